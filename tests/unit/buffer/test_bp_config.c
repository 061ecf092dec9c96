/* test_bp_config — defaults and the [Parameters] keys of cadenza.ini. */
#include "bp_test.h"

static void test_defaults(void **state)
{
  bp_config_t cfg;
  err_t e;

  BPT_OK(bp_config_from_ini(NULL, &cfg, &e), &e);
  assert_int_equal(cfg.bc_n_buffers, 10000);
  assert_int_equal(cfg.bc_max_dirty, 7500);
  assert_true(cfg.bc_read_ahead);
  assert_int_equal(cfg.bc_ra_threshold, 2);
  assert_int_equal(cfg.bc_ra_window_ms, 1000);
  assert_true(cfg.bc_bg_writer);
}

static bp_config_t cf_parse(const char *text, int expect_rc, const char *state)
{
  bp_config_t cfg;
  err_t e;
  ini_t *ini = ini_parse(text, strlen(text), &e);

  if (!ini)
    fail_msg("ini_parse: %s", e.er_msg);
  assert_int_equal(bp_config_from_ini(ini, &cfg, &e), expect_rc);
  if (state)
    assert_string_equal(e.er_sqlstate, state);
  ini_free(ini);
  return cfg;
}

static void test_ini_keys(void **state)
{
  bp_config_t cfg = cf_parse("[Parameters]\nNumberOfBuffers = 2000\nMaxDirtyBuffers = 300\n"
                             "ReadAhead = off\n", CZ_OK, NULL);
  assert_int_equal(cfg.bc_n_buffers, 2000);
  assert_int_equal(cfg.bc_max_dirty, 300);
  assert_false(cfg.bc_read_ahead);
  assert_true(cfg.bc_bg_writer);
}

/* MaxDirtyBuffers defaults to three quarters of NumberOfBuffers. */
static void test_max_dirty_follows_buffers(void **state)
{
  bp_config_t cfg = cf_parse("[Parameters]\nNumberOfBuffers = 4000\n", CZ_OK, NULL);
  assert_int_equal(cfg.bc_max_dirty, 3000);
  assert_true(cfg.bc_read_ahead);
}

static void test_bad_values(void **state)
{
  cf_parse("[Parameters]\nNumberOfBuffers = lots\n", CZ_ERR, SQLSTATE_CONFIG);
  cf_parse("[Parameters]\nNumberOfBuffers = 2\n", CZ_ERR, SQLSTATE_CONFIG);
  cf_parse("[Parameters]\nNumberOfBuffers = 100\nMaxDirtyBuffers = 200\n", CZ_ERR,
           SQLSTATE_CONFIG);
  cf_parse("[Parameters]\nReadAhead = maybe\n", CZ_ERR, SQLSTATE_CONFIG);
}

/* bp_create refuses a config it cannot run. */
static void test_create_refuses_tiny_pool(void **state)
{
  bp_config_t cfg = bpt_config(2);
  bpool_t *bp = (bpool_t *)1;
  err_t e;

  assert_int_equal(bp_create(NULL, &cfg, &bp, &e), CZ_ERR);
  assert_null(bp);
  assert_string_equal(e.er_sqlstate, SQLSTATE_INVALID_PARAMETER);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_defaults),
    cmocka_unit_test(test_ini_keys),
    cmocka_unit_test(test_max_dirty_follows_buffers),
    cmocka_unit_test(test_bad_values),
    cmocka_unit_test(test_create_refuses_tiny_pool),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
