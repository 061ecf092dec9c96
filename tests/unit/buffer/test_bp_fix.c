/* test_bp_fix — pins, latches and page contents: what a B-tree relies on
 * from bp_fix, bp_fix_new, bp_unfix, bp_set_dirty and bp_free_page.
 */
#include "bp_test.h"

/* Pages written through a pool of 16 frames come back intact after every
 * one of them has been evicted. */
static void test_contents_survive_eviction(void **state)
{
  bp_config_t cfg = bpt_config(16);
  bpt_t t;
  pg_no_t pages[300];
  err_t e;

  bpt_open(&t, "survive.db", &cfg);
  bpt_make_pages(&t, 1, 300, pages);
  /* change every other page once more: a second version must win */
  for (int i = 0; i < 300; i += 2) {
    buf_t *b = bp_fix(t.t_bp, pages[i], BP_EXCL, 0, &e);
    assert_non_null(b);
    bpt_fill(bp_page(b), pages[i], 1);
    bp_set_dirty(t.t_bp, b);
    bp_unfix(t.t_bp, b);
  }
  for (int i = 299; i >= 0; i--)
    bpt_expect(&t, pages[i], i % 2 == 0 ? 1 : 0, 0);
  bp_stats_t s = bpt_stats(&t);
  assert_true(s.bs_evictions >= 300 - 16);
  assert_true(s.bs_misses >= 300 - 16);
  assert_true(s.bs_n_used <= 16);
  bpt_close(&t);
}

/* A page stays in its frame while pinned, however many others pass. */
static void test_pinned_page_never_evicted(void **state)
{
  bp_config_t cfg = bpt_config(16);
  bpt_t t;
  pg_no_t pages[200];
  err_t e;

  bpt_open(&t, "pinned.db", &cfg);
  bpt_make_pages(&t, 1, 200, pages);
  bpt_cold(&t);
  buf_t *held = bp_fix(t.t_bp, pages[0], BP_SHARED, 0, &e);
  assert_non_null(held);
  uint8_t *data = bp_page(held);
  for (int round = 0; round < 3; round++)
    for (int i = 1; i < 200; i++)
      bpt_expect(&t, pages[i], 0, 0);
  assert_ptr_equal(bp_page(held), data);
  assert_int_equal(bp_page_no(held), pages[0]);
  assert_true(bpt_check(data, pages[0], 0));
  bp_unfix(t.t_bp, held);
  /* and it was not read again: a fix now is a hit */
  bp_reset_stats(t.t_bp);
  bpt_expect(&t, pages[0], 0, 0);
  assert_int_equal(bpt_stats(&t).bs_hits, 1);
  bpt_close(&t);
}

/* BP_NOWAIT gives NULL with a clear error when the latch is busy and the
 * page when it is compatible. */
static void test_nowait_busy_latch(void **state)
{
  bp_config_t cfg = bpt_config(16);
  bpt_t t;
  pg_no_t pg;
  err_t e;

  bpt_open(&t, "nowait.db", &cfg);
  bpt_make_pages(&t, 1, 1, &pg);
  buf_t *x = bp_fix(t.t_bp, pg, BP_EXCL, 0, &e);
  assert_non_null(x);
  err_set(&e, SQLSTATE_INTERNAL, "stale");
  assert_null(bp_fix(t.t_bp, pg, BP_SHARED, BP_NOWAIT, &e));
  assert_string_equal(e.er_sqlstate, "00000");
  assert_null(bp_fix(t.t_bp, pg, BP_EXCL, BP_NOWAIT, &e));
  assert_string_equal(e.er_sqlstate, "00000");
  bp_unfix(t.t_bp, x);

  buf_t *s1 = bp_fix(t.t_bp, pg, BP_SHARED, 0, &e);
  assert_non_null(s1);
  buf_t *s2 = bp_fix(t.t_bp, pg, BP_SHARED, BP_NOWAIT, &e);
  assert_ptr_equal(s1, s2);
  assert_null(bp_fix(t.t_bp, pg, BP_EXCL, BP_NOWAIT, &e));
  bp_unfix(t.t_bp, s2);
  bp_unfix(t.t_bp, s1);
  buf_t *x2 = bp_fix(t.t_bp, pg, BP_EXCL, BP_NOWAIT, &e);
  assert_non_null(x2);
  bp_unfix(t.t_bp, x2);
  bpt_close(&t);
}

/* A new page is zeroed, dirty and exclusively latched. */
static void test_fix_new_zeroed_dirty_excl(void **state)
{
  bp_config_t cfg = bpt_config(16);
  bpt_t t;
  err_t e;
  static const uint8_t zero[ST_PAGE_SIZE];

  bpt_open(&t, "new.db", &cfg);
  /* leave garbage in every frame first */
  pg_no_t pages[40];
  bpt_make_pages(&t, 1, 40, pages);
  BPT_OK(bp_flush_all(t.t_bp, &e), &e);
  assert_int_equal(bpt_stats(&t).bs_n_dirty, 0);

  buf_t *b = bp_fix_new(t.t_bp, 2, PG_NONE, &e);
  assert_non_null(b);
  pg_no_t pg = bp_page_no(b);
  assert_int_not_equal(pg, PG_NONE);
  assert_memory_equal(bp_page(b), zero, ST_PAGE_SIZE);
  assert_int_equal(bpt_stats(&t).bs_n_dirty, 1);
  assert_null(bp_fix(t.t_bp, pg, BP_SHARED, BP_NOWAIT, &e));
  bpt_fill(bp_page(b), pg, 7);
  bp_unfix(t.t_bp, b);
  bpt_cold(&t);
  bpt_expect(&t, pg, 7, 0);
  bpt_close(&t);
}

/* bp_free_page drops the frame and frees the page in storage. */
static void test_free_page(void **state)
{
  bp_config_t cfg = bpt_config(16);
  bpt_t t;
  pg_no_t pages[3];
  err_t e;

  bpt_open(&t, "free.db", &cfg);
  bpt_make_pages(&t, 1, 3, pages);
  assert_int_equal(bpt_stats(&t).bs_n_used, 3);
  assert_int_equal(bpt_stats(&t).bs_n_dirty, 3);
  buf_t *b = bp_fix(t.t_bp, pages[1], BP_EXCL, 0, &e);
  assert_non_null(b);
  bp_free_page(t.t_bp, b);
  assert_false(st_page_is_allocated(t.t_st, pages[1]));
  bp_stats_t s = bpt_stats(&t);
  assert_int_equal(s.bs_n_used, 2);
  assert_int_equal(s.bs_n_dirty, 2);
  bpt_cold(&t);
  bpt_expect(&t, pages[0], 0, 0);
  bpt_expect(&t, pages[2], 0, 0);
  bpt_close(&t);
}

/* Page 0 is the file header, never a page of the pool. */
static void test_page_zero_refused(void **state)
{
  bp_config_t cfg = bpt_config(16);
  bpt_t t;
  err_t e;

  bpt_open(&t, "zero.db", &cfg);
  assert_null(bp_fix(t.t_bp, PG_NONE, BP_SHARED, 0, &e));
  assert_string_equal(e.er_sqlstate, SQLSTATE_INTERNAL);
  bpt_close(&t);
}

/* Hits are counted as hits and do not read. */
static void test_hit_counts(void **state)
{
  bp_config_t cfg = bpt_config(16);
  bpt_t t;
  pg_no_t pages[4];

  bpt_open(&t, "hits.db", &cfg);
  bpt_make_pages(&t, 1, 4, pages);
  bpt_cold(&t);
  bp_reset_stats(t.t_bp);
  st_stats_t before = bpt_st_stats(&t);
  for (int r = 0; r < 5; r++)
    for (int i = 0; i < 4; i++)
      bpt_expect(&t, pages[i], 0, 0);
  bp_stats_t s = bpt_stats(&t);
  assert_int_equal(s.bs_misses, 4);
  assert_int_equal(s.bs_hits, 16);
  assert_int_equal(bpt_st_stats(&t).ss_pages_read - before.ss_pages_read, 4);
  bpt_close(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_contents_survive_eviction),
    cmocka_unit_test(test_pinned_page_never_evicted),
    cmocka_unit_test(test_nowait_busy_latch),
    cmocka_unit_test(test_fix_new_zeroed_dirty_excl),
    cmocka_unit_test(test_free_page),
    cmocka_unit_test(test_page_zero_refused),
    cmocka_unit_test(test_hit_counts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
