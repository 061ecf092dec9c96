/* test_remap — a page of the checkpoint image is never overwritten before
 * the next checkpoint: its rewrite goes to a remap location, reads follow
 * it, the checkpoint copies it home, and a reopen without checkpoint shows
 * the old image exactly. */
#include "st_test.h"

static void rewritten_image_page_goes_elsewhere(void **state)
{
  const char *path = stt_path("rm_elsewhere.db");
  storage_t *st = stt_open(path);
  pg_no_t pg = stt_alloc(st, 7, PG_NONE);
  st_stats_t s;

  stt_write(st, pg, 1);
  /* Allocated since the checkpoint: written in place. */
  assert_int_equal(stt_file_tag(path, pg, pg), 1);
  stt_checkpoint(st, NULL);

  stt_write(st, pg, 2);
  st_get_stats(st, &s);
  assert_int_equal(s.ss_remapped, 1);
  assert_int_equal(stt_file_tag(path, pg, pg), 1); /* the image copy is intact */
  assert_int_equal(stt_read_tag(st, pg), 2);       /* reads follow the remap */
  stt_write(st, pg, 3);                            /* the same target again */
  st_get_stats(st, &s);
  assert_int_equal(s.ss_remapped, 1);
  assert_int_equal(stt_read_tag(st, pg), 3);

  stt_checkpoint(st, NULL);
  st_get_stats(st, &s);
  assert_int_equal(s.ss_remapped, 0);
  assert_int_equal(stt_file_tag(path, pg, pg), 3); /* copied back home */
  assert_int_equal(stt_read_tag(st, pg), 3);
  st_close(st);
}

static void reopen_without_checkpoint_shows_old_image(void **state)
{
  const char *path = stt_path("rm_old_image.db");
  storage_t *st = stt_open(path);
  pg_no_t a = stt_alloc(st, 7, PG_NONE), b = stt_alloc(st, 7, PG_NONE), c;
  st_stats_t s0, s1;

  stt_write(st, a, 1);
  stt_write(st, b, 1);
  stt_checkpoint(st, "one");
  st_get_stats(st, &s0);

  stt_write(st, a, 2);      /* rewritten: remapped */
  st_free_page(st, b);      /* freed */
  c = stt_alloc(st, 7, PG_NONE);
  stt_write(st, c, 2);      /* new */
  assert_int_not_equal(c, b); /* b stays the image's until the checkpoint */
  st_close(st);

  st = stt_open(path);
  assert_int_equal(stt_read_tag(st, a), 1);
  assert_true(st_page_is_allocated(st, b));
  assert_int_equal(stt_read_tag(st, b), 1);
  assert_false(st_page_is_allocated(st, c));
  st_get_stats(st, &s1);
  assert_int_equal(s1.ss_pages_allocated, s0.ss_pages_allocated);
  assert_int_equal(s1.ss_remapped, 0);
  st_close(st);
}

static void freeing_remapped_page_frees_its_target(void **state)
{
  storage_t *st = stt_open(stt_path("rm_free.db"));
  pg_no_t pg = stt_alloc(st, 7, PG_NONE);
  st_stats_t s0, s1;

  stt_write(st, pg, 1);
  stt_checkpoint(st, NULL);
  st_get_stats(st, &s0);
  stt_write(st, pg, 2);
  st_get_stats(st, &s1);
  assert_int_equal(s1.ss_pages_allocated, s0.ss_pages_allocated + 1); /* the target */
  st_free_page(st, pg);
  st_get_stats(st, &s1);
  assert_int_equal(s1.ss_remapped, 0);
  assert_int_equal(s1.ss_pages_allocated, s0.ss_pages_allocated - 1);
  st_close(st);
}

static void remap_targets_of_one_call_are_contiguous(void **state)
{
  const char *path = stt_path("rm_contig.db");
  storage_t *st = stt_open(path);
  enum { N = 40 };
  pg_no_t pg[N], order[N];
  static uint8_t bufs[N][ST_PAGE_SIZE];
  void *bp[N];
  st_stats_t s0, s1;
  err_t e;

  for (int i = 0; i < N; i++) {
    pg[i] = stt_alloc(st, 9, PG_NONE);
    stt_write(st, pg[i], 1);
  }
  stt_checkpoint(st, NULL);
  /* Rewrite them all in one call, in descending order. */
  for (int i = 0; i < N; i++) {
    order[i] = pg[N - 1 - i];
    stt_fill(bufs[i], order[i], 2);
    bp[i] = bufs[i];
  }
  st_get_stats(st, &s0);
  assert_int_equal(st_write_pages(st, order, bp, N, &e), CZ_OK);
  st_get_stats(st, &s1);
  assert_int_equal(s1.ss_writes - s0.ss_writes, 1); /* one pwritev */
  assert_int_equal(s1.ss_pages_written - s0.ss_pages_written, N);
  assert_int_equal(s1.ss_remapped, N);
  for (int i = 0; i < N; i++)
    assert_int_equal(stt_read_tag(st, pg[i]), 2);
  st_close(st);
}

static void write_of_unallocated_page_is_refused(void **state)
{
  storage_t *st = stt_open(stt_path("rm_unalloc.db"));
  static uint8_t buf[ST_PAGE_SIZE];
  void *b = buf;
  pg_no_t pg = 100;
  err_t e;

  stt_fill(buf, pg, 1);
  assert_int_equal(st_write_pages(st, &pg, &b, 1, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_INTERNAL));
  pg = ST_PAGE_SIZE; /* beyond the file */
  assert_int_equal(st_write_pages(st, &pg, &b, 1, &e), CZ_ERR);
  st_close(st);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rewritten_image_page_goes_elsewhere),
      cmocka_unit_test(reopen_without_checkpoint_shows_old_image),
      cmocka_unit_test(freeing_remapped_page_frees_its_target),
      cmocka_unit_test(remap_targets_of_one_call_are_contiguous),
      cmocka_unit_test(write_of_unallocated_page_is_refused),
  };

  return cmocka_run_group_tests_name("storage remap", tests, NULL, NULL);
}
