/* test_bp_errors — a page failing verification surfaces as XX001 from
 * bp_fix, leaves no frame behind, and the pool stays usable.
 */
#include <fcntl.h>

#include "bp_test.h"

static void bpt_corrupt(bpt_t *t, pg_no_t pg)
{
  int fd = open(t->t_path, O_WRONLY);
  char junk[32];

  assert_true(fd >= 0);
  memset(junk, 0xa5, sizeof(junk));
  assert_int_equal(pwrite(fd, junk, sizeof(junk), (off_t)pg * ST_PAGE_SIZE + 4000),
                   (ssize_t)sizeof(junk));
  close(fd);
}

static void test_checksum_error_is_xx001(void **state)
{
  bp_config_t cfg = bpt_config(16);
  bpt_t t;
  pg_no_t pages[40];
  err_t e;

  bpt_open(&t, "bad.db", &cfg);
  bpt_make_pages(&t, 1, 40, pages);
  bpt_cold(&t);
  bpt_corrupt(&t, pages[7]);
  for (int attempt = 0; attempt < 3; attempt++) {
    assert_null(bp_fix(t.t_bp, pages[7], BP_SHARED, 0, &e));
    assert_string_equal(e.er_sqlstate, SQLSTATE_DATA_CORRUPTED);
    assert_int_equal(bpt_stats(&t).bs_n_used, 0);
  }
  assert_null(bp_fix(t.t_bp, pages[7], BP_EXCL, BP_NOWAIT, &e));
  assert_string_equal(e.er_sqlstate, SQLSTATE_DATA_CORRUPTED);
  /* every other page still works, through many evictions */
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < 40; i++)
      if (i != 7)
        bpt_expect(&t, pages[i], 0, 0);
  assert_true(bpt_stats(&t).bs_n_used <= 16);
  bpt_close(&t);
}

/* A page rewritten through the pool is good again. */
static void test_rewrite_heals(void **state)
{
  bp_config_t cfg = bpt_config(16);
  bpt_t t;
  pg_no_t pages[4];
  err_t e;

  bpt_open(&t, "heal.db", &cfg);
  bpt_make_pages(&t, 1, 4, pages);
  buf_t *keep = bp_fix(t.t_bp, pages[2], BP_EXCL, 0, &e);
  assert_non_null(keep);
  bpt_corrupt(&t, pages[2]); /* on disk only: the frame is good */
  bpt_fill(bp_page(keep), pages[2], 3);
  bp_set_dirty(t.t_bp, keep);
  bp_unfix(t.t_bp, keep);
  bpt_cold(&t);
  bpt_expect(&t, pages[2], 3, 0);
  bpt_close(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_checksum_error_is_xx001),
    cmocka_unit_test(test_rewrite_heals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
