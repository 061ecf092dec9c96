/* test_bp_writer — dirty pages: bp_flush_all, the background writer, the
 * dirty limit and dirty victims.
 */
#include "bp_test.h"

/* Dirty pages changed in random order are written sorted, in a handful of
 * contiguous requests, and nothing stays dirty. */
static void test_flush_all_ascending_runs(void **state)
{
  enum { N = 500 };
  bp_config_t cfg = bpt_config(1000);
  bpt_t t;
  pg_no_t pages[N];
  int order[N];
  err_t e;

  bpt_open(&t, "flush.db", &cfg);
  bpt_make_pages(&t, 1, N, pages);
  BPT_OK(bp_flush_all(t.t_bp, &e), &e);
  assert_int_equal(bpt_stats(&t).bs_n_dirty, 0);

  srand((unsigned)cz_test_seed());
  for (int i = 0; i < N; i++)
    order[i] = i;
  for (int i = N - 1; i > 0; i--) {
    int j = rand() % (i + 1), x = order[i];
    order[i] = order[j];
    order[j] = x;
  }
  for (int i = 0; i < N; i++) {
    buf_t *b = bp_fix(t.t_bp, pages[order[i]], BP_EXCL, 0, &e);
    assert_non_null(b);
    bpt_fill(bp_page(b), pages[order[i]], 1);
    bp_set_dirty(t.t_bp, b);
    bp_unfix(t.t_bp, b);
  }
  assert_int_equal(bpt_stats(&t).bs_n_dirty, N);
  bp_reset_stats(t.t_bp);
  st_stats_t st0 = bpt_st_stats(&t);
  BPT_OK(bp_flush_all(t.t_bp, &e), &e);
  st_stats_t st1 = bpt_st_stats(&t);
  bp_stats_t s = bpt_stats(&t);
  assert_int_equal(s.bs_n_dirty, 0);
  assert_int_equal(s.bs_pages_written, N);
  assert_int_equal(st1.ss_pages_written - st0.ss_pages_written, N);
  /* 500 pages of one owner span at most 3 extents; 64 pages per call */
  assert_true(st1.ss_writes - st0.ss_writes <= N / 64 + 1 + 3);
  bp_drop_clean(t.t_bp);
  assert_int_equal(bpt_stats(&t).bs_n_used, 0);
  for (int i = 0; i < N; i++)
    bpt_expect(&t, pages[i], 1, 0);
  bpt_close(&t);
}

/* Flushing copies pages that are pinned and share-latched. */
static void test_flush_writes_pinned_pages(void **state)
{
  bp_config_t cfg = bpt_config(64);
  bpt_t t;
  pg_no_t pages[10];
  err_t e;

  bpt_open(&t, "flush_pinned.db", &cfg);
  bpt_make_pages(&t, 1, 10, pages);
  buf_t *held = bp_fix(t.t_bp, pages[3], BP_SHARED, 0, &e);
  assert_non_null(held);
  BPT_OK(bp_flush_all(t.t_bp, &e), &e);
  assert_int_equal(bpt_stats(&t).bs_n_dirty, 0);
  bp_unfix(t.t_bp, held);
  bp_drop_clean(t.t_bp);
  assert_int_equal(bpt_stats(&t).bs_n_used, 0);
  bpt_expect(&t, pages[3], 0, 0);
  bpt_close(&t);
}

/* Making pages dirty never leaves more than MaxDirtyBuffers dirty. */
static void test_dirty_limit_kept(void **state)
{
  enum { N = 1000, MAX_DIRTY = 100 };
  bp_config_t cfg = bpt_config(400);
  bpt_t t;
  err_t e;
  int worst = 0;

  cfg.bc_max_dirty = MAX_DIRTY;
  cfg.bc_bg_writer = true;
  bpt_open(&t, "limit.db", &cfg);
  for (int i = 0; i < N; i++) {
    buf_t *b = bp_fix_new(t.t_bp, 1, PG_NONE, &e);
    assert_non_null(b);
    bpt_fill(bp_page(b), bp_page_no(b), 0);
    bp_unfix(t.t_bp, b);
    worst = CZ_MAX(worst, bpt_stats(&t).bs_n_dirty);
  }
  assert_true(worst <= MAX_DIRTY);
  assert_true(bpt_stats(&t).bs_pages_written >= N - MAX_DIRTY);
  bpt_close(&t);
}

/* The background writer alone brings the dirty count down to a quarter of
 * the limit, writing the pages in ascending contiguous runs. */
static void test_bg_writer_writes_runs(void **state)
{
  enum { N = 60, MAX_DIRTY = 100 };
  bp_config_t cfg = bpt_config(400);
  bpt_t t;
  pg_no_t pages[N];

  cfg.bc_max_dirty = MAX_DIRTY; /* N is over half: the writer is woken */
  cfg.bc_bg_writer = true;
  bpt_open(&t, "bgw.db", &cfg);
  st_stats_t st0 = bpt_st_stats(&t);
  bpt_make_pages(&t, 1, N, pages);
  for (int i = 0; i < 1000 && bpt_stats(&t).bs_n_dirty > MAX_DIRTY / 4; i++)
    time_sleep_us(10 * 1000);
  st_stats_t st1 = bpt_st_stats(&t);
  bp_stats_t s = bpt_stats(&t);
  assert_true(s.bs_n_dirty <= MAX_DIRTY / 4);
  assert_int_equal(s.bs_dirty_evictions, 0);
  assert_int_equal(st1.ss_pages_written - st0.ss_pages_written, N - s.bs_n_dirty);
  /* the writer may have woken mid-way once or twice: a few runs at most */
  assert_true(st1.ss_writes - st0.ss_writes <= 4);
  bpt_close(&t);
}

/* Without a background writer, evicting a dirty frame writes it first and
 * counts it. */
static void test_dirty_victims_written(void **state)
{
  enum { N = 100 };
  bp_config_t cfg = bpt_config(16);
  bpt_t t;
  pg_no_t pages[N];

  cfg.bc_max_dirty = 1000; /* no dirty limit: the victims must be written */
  bpt_open(&t, "victims.db", &cfg);
  bpt_make_pages(&t, 1, N, pages);
  bp_stats_t s = bpt_stats(&t);
  assert_true(s.bs_dirty_evictions >= N - 16);
  assert_int_equal(s.bs_pages_written, s.bs_dirty_evictions);
  for (int i = 0; i < N; i++)
    bpt_expect(&t, pages[i], 0, 0);
  bpt_close(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_flush_all_ascending_runs),
    cmocka_unit_test(test_flush_writes_pinned_pages),
    cmocka_unit_test(test_dirty_limit_kept),
    cmocka_unit_test(test_bg_writer_writes_runs),
    cmocka_unit_test(test_dirty_victims_written),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
