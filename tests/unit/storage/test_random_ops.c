/* test_random_ops — a seeded random mix of allocations, writes, frees,
 * checkpoints and reopens without checkpoint, checked against a model:
 * after a checkpoint the current state is the image; after a reopen the
 * image is the current state. CZ_TEST_SEED=<n> replays a run. */
#include "st_test.h"

enum { MAXP = 4096, OPS = 6000 };

typedef struct model_s {
  uint32_t cur[MAXP];  /* tag of each allocated page now, 0 = not allocated */
  uint32_t img[MAXP];  /* the same in the checkpoint image */
} model_t;

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % n);
}

static pg_no_t some_allocated(const model_t *m)
{
  for (int tries = 0; tries < 64; tries++) {
    pg_no_t pg = rnd(MAXP);
    if (m->cur[pg])
      return pg;
  }
  return PG_NONE;
}

static void check_all(storage_t *st, const model_t *m)
{
  for (pg_no_t pg = ST_EXTENT_PAGES; pg < MAXP; pg++) {
    if (m->cur[pg]) {
      assert_true(st_page_is_allocated(st, pg));
      assert_int_equal(stt_read_tag(st, pg), m->cur[pg]);
    } else if (st_page_is_allocated(st, pg)) {
      /* storage's own: a meta page or a remap target, never an owner's */
      uint64_t owner = st_extent_owner(st, pg);
      assert_true(owner == 0 || owner == UINT64_MAX);
    }
  }
}

static void random_ops_match_the_model(void **state)
{
  static model_t m;
  const char *path = stt_path("random.db");
  storage_t *st = stt_open(path);
  uint32_t tag = 1;
  st_stats_t s;

  rng = cz_test_seed() | 1;
  for (int op = 0; op < OPS; op++) {
    uint32_t r = rnd(1000);
    pg_no_t pg;

    if (r < 350) {                       /* allocate and write */
      pg = stt_alloc(st, 1 + rnd(4), PG_NONE);
      assert_true(pg < MAXP);
      assert_int_equal(pg_extent_of(pg) == 0, false);
      assert_int_equal(m.cur[pg], 0);
      m.cur[pg] = ++tag;
      stt_write(st, pg, tag);
    } else if (r < 750) {                /* rewrite */
      if ((pg = some_allocated(&m)) != PG_NONE) {
        m.cur[pg] = ++tag;
        stt_write(st, pg, tag);
      }
    } else if (r < 950) {                /* free */
      if ((pg = some_allocated(&m)) != PG_NONE) {
        st_free_page(st, pg);
        m.cur[pg] = 0;
      }
    } else if (r < 985) {                /* checkpoint */
      stt_checkpoint(st, NULL);
      memcpy(m.img, m.cur, sizeof m.img);
    } else {                             /* crash-like reopen: back to the image */
      st_close(st);
      st = stt_open(path);
      memcpy(m.cur, m.img, sizeof m.cur);
      check_all(st, &m);
    }
  }
  check_all(st, &m);
  stt_checkpoint(st, NULL);
  st_close(st);
  st = stt_open(path);
  check_all(st, &m);
  st_get_stats(st, &s);
  assert_int_equal(s.ss_checksum_failures, 0);
  st_close(st);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(random_ops_match_the_model),
  };

  return cmocka_run_group_tests_name("storage random operations", tests, NULL, NULL);
}
