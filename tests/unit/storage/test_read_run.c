/* test_read_run — st_read_run reads a run of one extent in as few requests
 * as the layout allows, reports which pages are there and verify, and does
 * not fail on a bad page (read-ahead must not fail a query). */
#include "st_test.h"

enum { RUN = 32 };

/* RUN pages of a fresh extent; every page but `hole` allocated and written. */
static storage_t *run_db(const char *name, pg_no_t *first, int hole)
{
  storage_t *st = stt_open(stt_path(name));

  for (int i = 0; i < RUN; i++) {
    pg_no_t pg = stt_alloc(st, 42, PG_NONE);
    if (i == 0)
      *first = pg;
    assert_int_equal(pg, *first + (pg_no_t)i);
    stt_write(st, pg, 1);
  }
  if (hole >= 0)
    st_free_page(st, *first + (pg_no_t)hole);
  return st;
}

static void run_is_one_request_with_ok_mask(void **state)
{
  pg_no_t first;
  storage_t *st = run_db("rr_one.db", &first, 7);
  static uint8_t bufs[RUN][ST_PAGE_SIZE];
  bool ok[RUN];
  st_stats_t s0, s1;
  err_t e;

  st_get_stats(st, &s0);
  assert_int_equal(st_read_run(st, first, RUN, bufs, ok, &e), CZ_OK);
  st_get_stats(st, &s1);
  assert_int_equal(s1.ss_reads - s0.ss_reads, 1);
  for (int i = 0; i < RUN; i++) {
    assert_int_equal(ok[i], i != 7);
    if (i != 7)
      assert_int_equal(stt_tag_of(bufs[i], first + (pg_no_t)i), 1);
  }
  st_close(st);
}

static void bad_page_in_run_is_false_not_error(void **state)
{
  const char *path = stt_path("rr_bad.db");
  pg_no_t first;
  storage_t *st = run_db("rr_bad.db", &first, -1);
  static uint8_t bufs[RUN][ST_PAGE_SIZE];
  uint8_t byte = 0x5a;
  bool ok[RUN];
  st_stats_t s;
  err_t e;

  stt_file_io(path, (long long)(first + 3) * ST_PAGE_SIZE + 4000, &byte, 1, true);
  assert_int_equal(st_read_run(st, first, RUN, bufs, ok, &e), CZ_OK);
  for (int i = 0; i < RUN; i++)
    assert_int_equal(ok[i], i != 3);
  st_get_stats(st, &s);
  assert_int_equal(s.ss_checksum_failures, 1);
  st_close(st);
}

static void run_follows_the_remap(void **state)
{
  pg_no_t first;
  storage_t *st = run_db("rr_remap.db", &first, -1);
  static uint8_t bufs[RUN][ST_PAGE_SIZE];
  bool ok[RUN];
  st_stats_t s0, s1;
  err_t e;

  stt_checkpoint(st, NULL);
  stt_write(st, first + 5, 2);
  stt_write(st, first + 6, 2);
  st_get_stats(st, &s0);
  assert_int_equal(st_read_run(st, first, RUN, bufs, ok, &e), CZ_OK);
  st_get_stats(st, &s1);
  /* the pages at home in one request, the two remapped ones (written
   * separately, but their targets are adjacent) in another */
  assert_int_equal(s1.ss_reads - s0.ss_reads, 2);
  for (int i = 0; i < RUN; i++) {
    assert_true(ok[i]);
    assert_int_equal(stt_tag_of(bufs[i], first + (pg_no_t)i), i == 5 || i == 6 ? 2 : 1);
  }
  st_close(st);
}

static void run_across_extents_is_refused(void **state)
{
  pg_no_t first;
  storage_t *st = run_db("rr_cross.db", &first, -1);
  static uint8_t bufs[2][ST_PAGE_SIZE];
  bool ok[2];
  err_t e;

  assert_int_equal(st_read_run(st, first + ST_EXTENT_PAGES - 1, 2, bufs, ok, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_INTERNAL));
  st_close(st);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(run_is_one_request_with_ok_mask),
      cmocka_unit_test(bad_page_in_run_is_false_not_error),
      cmocka_unit_test(run_follows_the_remap),
      cmocka_unit_test(run_across_extents_is_refused),
  };

  return cmocka_run_group_tests_name("storage read run", tests, NULL, NULL);
}
