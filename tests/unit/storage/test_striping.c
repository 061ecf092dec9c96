/* test_striping — with n stripe files extent e lives in file e % n at
 * offset (e / n) extents; the stripe count is fixed at creation. */
#include "st_test.h"

static st_config_t striped(const char *a, const char *b, const char *c)
{
  st_config_t cfg = stt_config(a);

  cfg.sc_stripes[0] = a;
  cfg.sc_stripes[1] = b;
  cfg.sc_stripes[2] = c;
  cfg.sc_n_stripes = c ? 3 : b ? 2 : 1;
  return cfg;
}

static void pages_land_in_their_stripe_file(void **state)
{
  char s0[512], s1[512];
  st_config_t cfg;
  storage_t *st;
  pg_no_t pg[4];

  snprintf(s0, sizeof s0, "%s", stt_path("sp_land.0"));
  snprintf(s1, sizeof s1, "%s", stt_path("sp_land.1"));
  cfg = striped(s0, s1, NULL);
  st = stt_open_cfg(&cfg);
  for (int i = 0; i < 4; i++) { /* owners 1..4 take extents 1..4 */
    pg[i] = stt_alloc(st, (uint64_t)i + 1, PG_NONE);
    assert_int_equal(pg_extent_of(pg[i]), (uint32_t)i + 1);
    stt_write(st, pg[i], (uint32_t)i + 10);
  }
  stt_checkpoint(st, NULL);
  st_close(st);

  /* extents 0, 2, 4 in stripe 0; 1, 3 in stripe 1 */
  assert_int_equal(stt_file_size(s0), 3LL * ST_EXTENT_SIZE);
  assert_int_equal(stt_file_size(s1), 2LL * ST_EXTENT_SIZE);
  for (int i = 0; i < 4; i++) {
    uint32_t ext = pg_extent_of(pg[i]);
    const char *f = ext % 2 ? s1 : s0;
    pg_no_t slot = (ext / 2) * ST_EXTENT_PAGES + pg[i] % ST_EXTENT_PAGES;
    assert_int_equal(stt_file_tag(f, slot, pg[i]), (uint32_t)i + 10);
  }

  st = stt_open_cfg(&cfg);
  for (int i = 0; i < 4; i++)
    assert_int_equal(stt_read_tag(st, pg[i]), (uint32_t)i + 10);
  st_close(st);
}

static void other_stripe_count_is_refused(void **state)
{
  char s0[512], s1[512], s2[512];
  st_config_t cfg;
  storage_t *st = NULL;
  err_t e;

  snprintf(s0, sizeof s0, "%s", stt_path("sp_count.0"));
  snprintf(s1, sizeof s1, "%s", stt_path("sp_count.1"));
  snprintf(s2, sizeof s2, "%s", stt_path("sp_count.2"));
  cfg = striped(s0, s1, NULL);
  st_close(stt_open_cfg(&cfg));

  cfg = striped(s0, s1, s2);
  cfg.sc_create = false;
  stt_file_io(s2, 0, NULL, 0, true); /* exists, empty */
  assert_int_equal(st_open(&cfg, &st, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_CONFIG));
  cfg = striped(s0, NULL, NULL);
  assert_int_equal(st_open(&cfg, &st, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_CONFIG));
  cfg = stt_config(s0); /* not striped: one file */
  assert_int_equal(st_open(&cfg, &st, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_CONFIG));
}

static void missing_stripe_file_is_an_io_error(void **state)
{
  char s0[512], s1[512];
  st_config_t cfg;
  storage_t *st = NULL;
  err_t e;

  snprintf(s0, sizeof s0, "%s", stt_path("sp_missing.0"));
  snprintf(s1, sizeof s1, "%s", stt_path("sp_missing.1"));
  cfg = striped(s0, s1, NULL);
  st_close(stt_open_cfg(&cfg));
  unlink(s1);
  assert_int_equal(st_open(&cfg, &st, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_IO_ERROR));
  assert_non_null(strstr(e.er_msg, s1));
}

/* A second open of a database sharing only a later stripe file with an
 * open one is refused (55006): every stripe is locked, not only the first. */
static void shared_stripe_is_locked(void **state)
{
  char s0[512], s1[512], t0[512];
  st_config_t cfg, other;
  storage_t *st2 = NULL;
  err_t e;

  (void)state;
  snprintf(s0, sizeof s0, "%s", stt_path("sp_lock.0"));
  snprintf(s1, sizeof s1, "%s", stt_path("sp_lock.1"));
  snprintf(t0, sizeof t0, "%s", stt_path("sp_lock.other0"));
  unlink(t0);
  cfg = striped(s0, s1, NULL);
  storage_t *st = stt_open_cfg(&cfg);
  other = striped(t0, s1, NULL);
  assert_int_equal(st_open(&other, &st2, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_OBJECT_IN_USE));
  assert_non_null(strstr(e.er_msg, s1));
  st_close(st);
  /* released with the first: the same files open again */
  st_close(stt_open_cfg(&cfg));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pages_land_in_their_stripe_file),
      cmocka_unit_test(other_stripe_count_is_refused),
      cmocka_unit_test(missing_stripe_file_is_an_io_error),
      cmocka_unit_test(shared_stripe_is_locked),
  };

  return cmocka_run_group_tests_name("storage striping", tests, NULL, NULL);
}
