/* test_bp_replace — the replacement policy: a hot set survives scans, scan
 * fixes never make a page hot, and a changed working set takes over.
 */
#include "bp_test.h"

#define POOL 100
#define HOT 20
#define SCAN (10 * POOL)

typedef struct rp_fixture_s {
  bpt_t f_t;
  pg_no_t f_hot[HOT];
  pg_no_t f_scan[SCAN];
} rp_fixture_t;

static int rp_setup(void **state)
{
  rp_fixture_t *f = calloc(1, sizeof(*f));
  bp_config_t cfg = bpt_config(POOL);

  bpt_open(&f->f_t, "replace.db", &cfg);
  bpt_make_pages(&f->f_t, 1, HOT, f->f_hot);
  bpt_make_pages(&f->f_t, 2, SCAN, f->f_scan);
  bpt_cold(&f->f_t);
  *state = f;
  return 0;
}

static int rp_teardown(void **state)
{
  rp_fixture_t *f = *state;
  bpt_close(&f->f_t);
  free(f);
  return 0;
}

/* Each scan page is fixed twice in a row, as a cursor that re-fixes its
 * leaf would: that must not count as re-use either. */
static void rp_scan(rp_fixture_t *f)
{
  for (int i = 0; i < SCAN; i++) {
    bpt_expect(&f->f_t, f->f_scan[i], 0, BP_SCAN);
    bpt_expect(&f->f_t, f->f_scan[i], 0, BP_SCAN);
  }
}

static uint64_t rp_hot_misses(rp_fixture_t *f)
{
  bp_reset_stats(f->f_t.t_bp);
  for (int i = 0; i < HOT; i++)
    bpt_expect(&f->f_t, f->f_hot[i], 0, 0);
  return bpt_stats(&f->f_t).bs_misses;
}

/* A hot set fixed repeatedly keeps its frames through a BP_SCAN scan of ten
 * times the pool. */
static void test_hot_set_survives_scan(void **state)
{
  rp_fixture_t *f = *state;

  for (int r = 0; r < 3; r++)
    for (int i = 0; i < HOT; i++)
      bpt_expect(&f->f_t, f->f_hot[i], 0, 0);
  rp_scan(f);
  assert_int_equal(rp_hot_misses(f), 0);
  /* the scan did churn the rest of the pool */
  assert_true(bpt_stats(&f->f_t).bs_n_used <= POOL);
}

/* The same set used only by scans is not protected: the next scan evicts
 * it (the check above can fail). */
static void test_scan_fixes_do_not_promote(void **state)
{
  rp_fixture_t *f = *state;

  for (int r = 0; r < 3; r++)
    for (int i = 0; i < HOT; i++)
      bpt_expect(&f->f_t, f->f_hot[i], 0, BP_SCAN);
  rp_scan(f);
  assert_int_equal(rp_hot_misses(f), HOT);
}

/* After the working set changes, the new set ends up resident and the old
 * protected pages are demoted and evicted. */
static void test_new_working_set_takes_over(void **state)
{
  rp_fixture_t *f = *state;
  enum { SET = 60 };
  uint64_t misses = 0;

  for (int r = 0; r < 3; r++)
    for (int i = 0; i < SET; i++)
      bpt_expect(&f->f_t, f->f_scan[i], 0, 0);
  for (int r = 0; r < 10; r++) {
    bp_reset_stats(f->f_t.t_bp);
    for (int i = 0; i < SET; i++)
      bpt_expect(&f->f_t, f->f_scan[SCAN - 1 - i], 0, 0);
    misses = bpt_stats(&f->f_t).bs_misses;
  }
  assert_int_equal(misses, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_hot_set_survives_scan, rp_setup, rp_teardown),
    cmocka_unit_test_setup_teardown(test_scan_fixes_do_not_promote, rp_setup, rp_teardown),
    cmocka_unit_test_setup_teardown(test_new_working_set_takes_over, rp_setup, rp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
