/* test_bp_readahead — extent read-ahead: the trigger (threshold misses into
 * one extent within the window), one request for the rest of the extent,
 * counting of the pages used, explicit prefetch, and bad pages.
 */
#include <fcntl.h>

#include "bp_test.h"

#define POOL 1024
#define N_PAGES 200

typedef struct ra_fixture_s {
  bpt_t f_t;
  pg_no_t f_pages[N_PAGES]; /* one owner: one extent */
} ra_fixture_t;

static ra_fixture_t *ra_open(int window_ms)
{
  ra_fixture_t *f = calloc(1, sizeof(*f));
  bp_config_t cfg = bpt_config(POOL);

  cfg.bc_read_ahead = true;
  cfg.bc_ra_threshold = 2;
  cfg.bc_ra_window_ms = window_ms;
  bpt_open(&f->f_t, "ra.db", &cfg);
  bpt_make_pages(&f->f_t, 1, N_PAGES, f->f_pages);
  for (int i = 1; i < N_PAGES; i++)
    assert_int_equal(pg_extent_of(f->f_pages[i]), pg_extent_of(f->f_pages[0]));
  bpt_cold(&f->f_t);
  bp_reset_stats(f->f_t.t_bp);
  return f;
}

static void ra_close(ra_fixture_t *f)
{
  bpt_close(&f->f_t);
  free(f);
}

/* The second miss into the extent reads the other pages with one request;
 * fixing them later reads nothing and counts them as used. */
static void test_threshold_reads_extent_once(void **state)
{
  ra_fixture_t *f = ra_open(1000);
  st_stats_t st0 = bpt_st_stats(&f->f_t);

  bpt_expect(&f->f_t, f->f_pages[10], 0, 0);
  assert_int_equal(bpt_stats(&f->f_t).bs_ra_requests, 0);
  bpt_expect(&f->f_t, f->f_pages[20], 0, 0);
  bp_stats_t s = bpt_stats(&f->f_t);
  assert_int_equal(s.bs_misses, 2);
  assert_int_equal(s.bs_ra_requests, 1);
  assert_int_equal(s.bs_ra_pages_read, N_PAGES - 2);
  assert_int_equal(s.bs_ra_pages_used, 0);
  assert_int_equal(bpt_st_stats(&f->f_t).ss_reads - st0.ss_reads, 3);

  for (int i = 0; i < N_PAGES; i++)
    bpt_expect(&f->f_t, f->f_pages[i], 0, BP_SCAN);
  s = bpt_stats(&f->f_t);
  assert_int_equal(s.bs_misses, 2);
  assert_int_equal(s.bs_ra_requests, 1);
  assert_int_equal(s.bs_ra_pages_used, N_PAGES - 2);
  assert_int_equal(bpt_st_stats(&f->f_t).ss_reads - st0.ss_reads, 3);
  ra_close(f);
}

/* One miss in each of several extents triggers nothing. */
static void test_spread_misses_no_trigger(void **state)
{
  bp_config_t cfg = bpt_config(POOL);
  bpt_t t;
  pg_no_t pages[8][4];

  cfg.bc_read_ahead = true;
  bpt_open(&t, "ra_spread.db", &cfg);
  for (int o = 0; o < 8; o++)
    bpt_make_pages(&t, 10 + (uint64_t)o, 4, pages[o]);
  for (int o = 1; o < 8; o++)
    assert_int_not_equal(pg_extent_of(pages[o][0]), pg_extent_of(pages[o - 1][0]));
  bpt_cold(&t);
  bp_reset_stats(t.t_bp);
  for (int o = 0; o < 8; o++)
    bpt_expect(&t, pages[o][0], 0, 0);
  bp_stats_t s = bpt_stats(&t);
  assert_int_equal(s.bs_misses, 8);
  assert_int_equal(s.bs_ra_requests, 0);
  assert_int_equal(s.bs_ra_pages_read, 0);
  bpt_close(&t);
}

/* Misses further apart than the window do not add up; two within it do. */
static void test_window_expires(void **state)
{
  ra_fixture_t *f = ra_open(200);

  bpt_expect(&f->f_t, f->f_pages[0], 0, 0);
  time_sleep_us(400 * 1000);
  bpt_expect(&f->f_t, f->f_pages[1], 0, 0);
  assert_int_equal(bpt_stats(&f->f_t).bs_ra_requests, 0);
  bpt_expect(&f->f_t, f->f_pages[2], 0, 0);
  bp_stats_t s = bpt_stats(&f->f_t);
  assert_int_equal(s.bs_misses, 3);
  assert_int_equal(s.bs_ra_requests, 1);
  assert_int_equal(s.bs_ra_pages_read, N_PAGES - 3);
  ra_close(f);
}

/* Read-ahead off: misses stay single reads. */
static void test_read_ahead_off(void **state)
{
  bp_config_t cfg = bpt_config(POOL);
  bpt_t t;
  pg_no_t pages[50];

  bpt_open(&t, "ra_off.db", &cfg);
  bpt_make_pages(&t, 1, 50, pages);
  bpt_cold(&t);
  bp_reset_stats(t.t_bp);
  for (int i = 0; i < 50; i++)
    bpt_expect(&t, pages[i], 0, 0);
  bp_stats_t s = bpt_stats(&t);
  assert_int_equal(s.bs_misses, 50);
  assert_int_equal(s.bs_ra_requests, 0);
  bpt_close(&t);
}

/* bp_read_extent brings the extent in with one request, leaving present
 * pages alone. */
static void test_read_extent_sync(void **state)
{
  ra_fixture_t *f = ra_open(1000);
  st_stats_t st0 = bpt_st_stats(&f->f_t);
  err_t e;

  bpt_expect(&f->f_t, f->f_pages[N_PAGES / 2], 0, 0);
  BPT_OK(bp_read_extent(f->f_t.t_bp, f->f_pages[0], &e), &e);
  bp_stats_t s = bpt_stats(&f->f_t);
  assert_int_equal(s.bs_ra_requests, 1);
  assert_int_equal(s.bs_ra_pages_read, N_PAGES - 1);
  assert_int_equal(bpt_st_stats(&f->f_t).ss_reads - st0.ss_reads, 2);
  for (int i = 0; i < N_PAGES; i++)
    bpt_expect(&f->f_t, f->f_pages[i], 0, 0);
  assert_int_equal(bpt_stats(&f->f_t).bs_misses, 1);
  /* everything present: nothing to read */
  BPT_OK(bp_read_extent(f->f_t.t_bp, f->f_pages[0], &e), &e);
  assert_int_equal(bpt_stats(&f->f_t).bs_ra_requests, 1);
  ra_close(f);
}

/* bp_prefetch_extent returns at once and the worker brings the pages in. */
static void test_prefetch_async(void **state)
{
  ra_fixture_t *f = ra_open(1000);

  bp_prefetch_extent(f->f_t.t_bp, f->f_pages[5]);
  for (int i = 0; i < 500 && bpt_stats(&f->f_t).bs_ra_pages_read < N_PAGES; i++)
    time_sleep_us(10 * 1000);
  bp_stats_t s = bpt_stats(&f->f_t);
  assert_int_equal(s.bs_ra_requests, 1);
  assert_int_equal(s.bs_ra_pages_read, N_PAGES);
  for (int i = 0; i < N_PAGES; i++)
    bpt_expect(&f->f_t, f->f_pages[i], 0, 0);
  assert_int_equal(bpt_stats(&f->f_t).bs_misses, 0);
  assert_int_equal(bpt_stats(&f->f_t).bs_ra_pages_used, N_PAGES);
  ra_close(f);
}

/* A page failing its checksum is not installed by read-ahead and the
 * read-ahead does not fail; the demand read then reports XX001. */
static void test_bad_page_skipped(void **state)
{
  ra_fixture_t *f = ra_open(1000);
  pg_no_t bad = f->f_pages[33];
  int fd = open(f->f_t.t_path, O_WRONLY);
  char junk[64];
  err_t e;

  assert_true(fd >= 0);
  memset(junk, 0x5a, sizeof(junk));
  assert_int_equal(pwrite(fd, junk, sizeof(junk), (off_t)bad * ST_PAGE_SIZE + 1000),
                   (ssize_t)sizeof(junk));
  close(fd);

  BPT_OK(bp_read_extent(f->f_t.t_bp, f->f_pages[0], &e), &e);
  assert_int_equal(bpt_stats(&f->f_t).bs_ra_pages_read, N_PAGES - 1);
  assert_null(bp_fix(f->f_t.t_bp, bad, BP_SHARED, 0, &e));
  assert_string_equal(e.er_sqlstate, SQLSTATE_DATA_CORRUPTED);
  for (int i = 0; i < N_PAGES; i++)
    if (f->f_pages[i] != bad)
      bpt_expect(&f->f_t, f->f_pages[i], 0, 0);
  ra_close(f);
}

/* Pages read ahead enter on probation: reading ahead more extents than the
 * pool holds leaves a hot set resident. */
static void test_read_ahead_spares_hot_set(void **state)
{
  enum { HOT = 100, EXTENTS = 6, PER = 200 };
  bp_config_t cfg = bpt_config(POOL);
  bpt_t t;
  pg_no_t hot[HOT];
  pg_no_t *cold = calloc(EXTENTS * PER, sizeof(pg_no_t));
  err_t e;

  bpt_open(&t, "ra_hot.db", &cfg);
  bpt_make_pages(&t, 1, HOT, hot);
  for (int x = 0; x < EXTENTS; x++)
    bpt_make_pages(&t, 10 + (uint64_t)x, PER, cold + x * PER);
  bpt_cold(&t);
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < HOT; i++)
      bpt_expect(&t, hot[i], 0, 0);
  for (int x = 0; x < EXTENTS; x++)
    BPT_OK(bp_read_extent(t.t_bp, cold[x * PER], &e), &e);
  assert_int_equal(bpt_stats(&t).bs_ra_pages_read, EXTENTS * PER);
  bp_reset_stats(t.t_bp);
  for (int i = 0; i < HOT; i++)
    bpt_expect(&t, hot[i], 0, 0);
  assert_int_equal(bpt_stats(&t).bs_misses, 0);
  free(cold);
  bpt_close(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_threshold_reads_extent_once),
    cmocka_unit_test(test_spread_misses_no_trigger),
    cmocka_unit_test(test_window_expires),
    cmocka_unit_test(test_read_ahead_off),
    cmocka_unit_test(test_read_extent_sync),
    cmocka_unit_test(test_prefetch_async),
    cmocka_unit_test(test_bad_page_skipped),
    cmocka_unit_test(test_read_ahead_spares_hot_set),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
