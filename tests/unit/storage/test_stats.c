/* test_stats — st_get_stats counts requests, pages, remapped and
 * allocated pages and checksum failures as documented. */
#include "st_test.h"

static void requests_and_pages_are_counted(void **state)
{
  storage_t *st = stt_open(stt_path("stat_io.db"));
  static uint8_t bufs[8][ST_PAGE_SIZE];
  pg_no_t pg[8];
  void *bp[8];
  st_stats_t s0, s1;
  err_t e;

  for (int i = 0; i < 8; i++) {
    pg[i] = stt_alloc(st, 5, PG_NONE);
    stt_fill(bufs[i], pg[i], 1);
    bp[i] = bufs[i];
  }
  st_get_stats(st, &s0);
  assert_int_equal(st_write_pages(st, pg, bp, 8, &e), CZ_OK); /* contiguous: one request */
  st_get_stats(st, &s1);
  assert_int_equal(s1.ss_writes - s0.ss_writes, 1);
  assert_int_equal(s1.ss_pages_written - s0.ss_pages_written, 8);

  pg_no_t two[2] = {pg[0], pg[5]};
  void *bp2[2] = {bufs[0], bufs[5]};
  assert_int_equal(st_write_pages(st, two, bp2, 2, &e), CZ_OK); /* a gap: two requests */
  st_get_stats(st, &s0);
  assert_int_equal(s0.ss_writes - s1.ss_writes, 2);

  for (int i = 0; i < 8; i++)
    assert_int_equal(stt_read_tag(st, pg[i]), 1);
  st_get_stats(st, &s1);
  assert_int_equal(s1.ss_reads - s0.ss_reads, 8);
  assert_int_equal(s1.ss_pages_read - s0.ss_pages_read, 8);
  st_close(st);
}

static void allocated_and_remapped_are_counted(void **state)
{
  storage_t *st = stt_open(stt_path("stat_alloc.db"));
  st_stats_t s0, s1;
  pg_no_t a, b;

  st_get_stats(st, &s0);
  /* header, two root slots and one meta page in a new database */
  assert_int_equal(s0.ss_pages_allocated, 4);
  assert_int_equal(s0.ss_remapped, 0);
  assert_int_equal(s0.ss_checksum_failures, 0);
  a = stt_alloc(st, 5, PG_NONE);
  b = stt_alloc(st, 5, PG_NONE);
  stt_write(st, a, 1);
  stt_write(st, b, 1);
  st_get_stats(st, &s1);
  assert_int_equal(s1.ss_pages_allocated, 6);
  stt_checkpoint(st, NULL);
  stt_write(st, a, 2);
  st_get_stats(st, &s1);
  assert_int_equal(s1.ss_remapped, 1);
  assert_int_equal(s1.ss_pages_allocated, 7); /* the remap target counts */
  st_free_page(st, b);
  st_get_stats(st, &s1);
  assert_int_equal(s1.ss_pages_allocated, 6);
  st_close(st);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(requests_and_pages_are_counted),
      cmocka_unit_test(allocated_and_remapped_are_counted),
  };

  return cmocka_run_group_tests_name("storage stats", tests, NULL, NULL);
}
