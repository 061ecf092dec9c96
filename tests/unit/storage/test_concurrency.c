/* test_concurrency — threads allocating, writing, reading and freeing
 * their own pages at once (the buffer pool's pattern: disjoint pages),
 * with checkpoints between rounds: every page reads back as last written,
 * before and after reopen. */
#include <pthread.h>

#include "st_test.h"

enum { THREADS = 4, PER_THREAD = 200, ROUNDS = 3 };

typedef struct worker_s {
  storage_t *w_st;
  int w_id;
  int w_round;
  pg_no_t w_pages[PER_THREAD];
  uint32_t w_tags[PER_THREAD];
  int w_errors;
} worker_t;

static void *worker_main(void *arg)
{
  worker_t *w = arg;
  static _Thread_local uint8_t buf[ST_PAGE_SIZE];
  void *bp = buf;
  err_t e;

  for (int i = 0; i < PER_THREAD; i++) {
    pg_no_t pg = w->w_pages[i];
    uint32_t tag = (uint32_t)(w->w_round * 100000 + w->w_id * 1000 + i + 1);

    /* one page in ten is freed and replaced by a new one */
    if (pg == PG_NONE || i % 10 == w->w_round) {
      if (pg != PG_NONE)
        st_free_page(w->w_st, pg);
      if (st_alloc_page(w->w_st, 10 + (uint64_t)w->w_id, pg, &pg, &e) != CZ_OK) {
        w->w_errors++;
        continue;
      }
      w->w_pages[i] = pg;
    }
    stt_fill(buf, pg, tag);
    if (st_write_pages(w->w_st, &pg, &bp, 1, &e) != CZ_OK ||
        st_read_page(w->w_st, pg, buf, &e) != CZ_OK || stt_tag_of(buf, pg) != tag)
      w->w_errors++;
    w->w_tags[i] = tag;
  }
  return NULL;
}

static void check_workers(storage_t *st, worker_t *w)
{
  for (int t = 0; t < THREADS; t++)
    for (int i = 0; i < PER_THREAD; i++) {
      assert_true(st_page_is_allocated(st, w[t].w_pages[i]));
      assert_int_equal(st_extent_owner(st, w[t].w_pages[i]), 10 + (uint64_t)t);
      assert_int_equal(stt_read_tag(st, w[t].w_pages[i]), w[t].w_tags[i]);
    }
}

static void threads_on_disjoint_pages_do_not_interfere(void **state)
{
  const char *path = stt_path("conc.db");
  storage_t *st = stt_open(path);
  static worker_t w[THREADS];
  pthread_t th[THREADS];

  for (int r = 0; r < ROUNDS; r++) {
    for (int t = 0; t < THREADS; t++) {
      w[t].w_st = st;
      w[t].w_id = t;
      w[t].w_round = r;
      assert_int_equal(pthread_create(&th[t], NULL, worker_main, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
      pthread_join(th[t], NULL);
      assert_int_equal(w[t].w_errors, 0);
    }
    check_workers(st, w);
    stt_checkpoint(st, NULL);
  }
  st_close(st);
  st = stt_open(path);
  check_workers(st, w);
  st_close(st);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(threads_on_disjoint_pages_do_not_interfere),
  };

  return cmocka_run_group_tests_name("storage concurrency", tests, NULL, NULL);
}
