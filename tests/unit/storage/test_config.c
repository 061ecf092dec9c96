/* test_config — st_config_from_ini: [Database] DatabaseFile with its
 * default, [Striping] Stripe1..N replacing it, numbering errors. */
#include "st_test.h"

/* The config's strings point into the ini: it lives until teardown. */
static ini_t *g_ini;

static int free_ini(void **state)
{
  ini_free(g_ini);
  g_ini = NULL;
  return 0;
}

static st_config_t from_text(const char *text, int expect_rc, err_t *e)
{
  st_config_t cfg;

  free_ini(NULL);
  g_ini = ini_parse(text, strlen(text), e);
  assert_non_null(g_ini);
  memset(&cfg, 0xa5, sizeof cfg);
  assert_int_equal(st_config_from_ini(g_ini, &cfg, e), expect_rc);
  return cfg;
}

static void database_file_is_read(void **state)
{
  err_t e;
  st_config_t c = from_text("[Database]\nDatabaseFile = /data/x.db\n", CZ_OK, &e);

  assert_string_equal(c.sc_path, "/data/x.db");
  assert_int_equal(c.sc_n_stripes, 0);
  assert_true(c.sc_create);
  assert_true(c.sc_sync);
}

static void database_file_defaults(void **state)
{
  err_t e;
  st_config_t c = from_text("[Parameters]\nNumberOfBuffers = 10\n", CZ_OK, &e);

  assert_string_equal(c.sc_path, "cadenza.db");
  assert_int_equal(c.sc_n_stripes, 0);
}

static void stripes_replace_database_file(void **state)
{
  err_t e;
  st_config_t c = from_text("[Database]\nDatabaseFile = x.db\n"
                            "[Striping]\nStripe1 = /d1/a.db\nstripe2 = /d2/b.db\n",
                            CZ_OK, &e);

  assert_int_equal(c.sc_n_stripes, 2);
  assert_string_equal(c.sc_stripes[0], "/d1/a.db");
  assert_string_equal(c.sc_stripes[1], "/d2/b.db");
  assert_string_equal(c.sc_path, "/d1/a.db");
}

static void stripe_gap_is_an_error(void **state)
{
  err_t e;

  from_text("[Striping]\nStripe1 = a\nStripe3 = c\n", CZ_ERR, &e);
  assert_true(err_is(&e, SQLSTATE_CONFIG));
  assert_non_null(strstr(e.er_msg, "Stripe2"));
}

static void seventeen_stripes_is_an_error(void **state)
{
  char text[1024] = "[Striping]\n";
  err_t e;

  for (int i = 1; i <= ST_MAX_STRIPES + 1; i++)
    snprintf(text + strlen(text), sizeof text - strlen(text), "Stripe%d = s%d\n", i, i);
  from_text(text, CZ_ERR, &e);
  assert_true(err_is(&e, SQLSTATE_CONFIG));
}

static void config_opens_a_striped_database(void **state)
{
  char text[2048];
  err_t e;
  st_config_t c;
  storage_t *st;

  snprintf(text, sizeof text, "[Striping]\nStripe1 = %s\n", stt_path("cf_s1.db"));
  snprintf(text + strlen(text), sizeof text - strlen(text), "Stripe2 = %s\n",
           stt_path("cf_s2.db"));
  c = from_text(text, CZ_OK, &e);
  c.sc_sync = false;
  st = stt_open_cfg(&c);
  assert_true(st_was_created(st));
  st_close(st);
  assert_int_equal(stt_file_size(stt_path("cf_s1.db")), ST_EXTENT_SIZE);
  assert_int_equal(stt_file_size(stt_path("cf_s2.db")), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(database_file_is_read, free_ini),
      cmocka_unit_test_teardown(database_file_defaults, free_ini),
      cmocka_unit_test_teardown(stripes_replace_database_file, free_ini),
      cmocka_unit_test_teardown(stripe_gap_is_an_error, free_ini),
      cmocka_unit_test_teardown(seventeen_stripes_is_an_error, free_ini),
      cmocka_unit_test_teardown(config_opens_a_striped_database, free_ini),
  };

  return cmocka_run_group_tests_name("storage config", tests, NULL, NULL);
}
