/* test_pgs_config — the server's [Parameters] keys: defaults, the sample
 * ini, and values that must be refused with F0000. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "net/pgserver.h"

static int load(const char *text, pgs_config_t *c, err_t *e)
{
  ini_t *ini = ini_parse(text, strlen(text), e);
  assert_non_null(ini);
  int rc = pgs_config_load(ini, c, e);
  ini_free(ini);
  return rc;
}

static void test_defaults(void **state)
{
  (void)state;
  pgs_config_t c;
  err_t e;
  assert_int_equal(load("[Database]\nDatabaseFile = x.db\n", &c, &e), CZ_OK);
  assert_string_equal(c.pc_listen, "127.0.0.1"); /* not reachable from the network */
  assert_int_equal(c.pc_port, 5480);
  assert_int_equal(c.pc_max_conns, 100);
  assert_int_equal(c.pc_auth, PGS_AUTH_SCRAM);
  assert_int_equal(c.pc_auth_timeout_s, 60);
  assert_true(c.pc_threads >= 4 && c.pc_threads <= 64);
  assert_string_equal(c.pc_ssl_cert, "");
  assert_int_equal(c.pc_su_reserved, 3);
  assert_int_equal(c.pc_max_startup, 0); /* as many as MaxClientConnections */
  assert_int_equal(c.pc_startup_timeout_s, 10);
  assert_int_equal(c.pc_require_ssl, PGS_SSL_OPTIONAL);
  /* a tiny MaxClientConnections shrinks the default reserve */
  assert_int_equal(load("[Parameters]\nMaxClientConnections = 1\n", &c, &e), CZ_OK);
  assert_int_equal(c.pc_su_reserved, 0);
}

static void test_sample_ini(void **state)
{
  (void)state;
  err_t e;
  ini_t *ini = ini_load(CZ_SRCDIR "/ini/cadenza.ini", &e);
  assert_non_null(ini);
  pgs_config_t c;
  assert_int_equal(pgs_config_load(ini, &c, &e), CZ_OK);
  assert_int_equal(c.pc_port, 5480);
  assert_string_equal(c.pc_listen, "127.0.0.1");
  assert_int_equal(c.pc_auth, PGS_AUTH_SCRAM);
  ini_free(ini);
}

static void test_values(void **state)
{
  (void)state;
  pgs_config_t c;
  err_t e;
  assert_int_equal(load("[Parameters]\nServerPort = 6000\nListenAddress = *\nServerThreads = 3\n"
                        "MaxClientConnections = 7\nAuthentication = Trust\n"
                        "AuthenticationTimeout = 5\nSSLCertificate = a.pem\n"
                        "SSLPrivateKey = b.pem\n",
                        &c, &e),
                   CZ_OK);
  assert_int_equal(c.pc_port, 6000);
  assert_string_equal(c.pc_listen, "*");
  assert_int_equal(c.pc_threads, 3);
  assert_int_equal(c.pc_max_conns, 7);
  assert_int_equal(c.pc_auth, PGS_AUTH_TRUST);
  assert_int_equal(c.pc_auth_timeout_s, 5);
  assert_string_equal(c.pc_ssl_cert, "a.pem");
  assert_string_equal(c.pc_ssl_key, "b.pem");
  assert_int_equal(load("[Parameters]\nSuperuserReservedConnections = 6\nMaxClientConnections = 7\n"
                        "MaxStartupConnections = 9\nStartupTimeout = 3\nRequireSSL = remote\n"
                        "SSLCertificate = a.pem\nSSLPrivateKey = b.pem\n",
                        &c, &e),
                   CZ_OK);
  assert_int_equal(c.pc_su_reserved, 6);
  assert_int_equal(c.pc_max_startup, 9);
  assert_int_equal(c.pc_startup_timeout_s, 3);
  assert_int_equal(c.pc_require_ssl, PGS_SSL_REMOTE);
  assert_int_equal(load("[Parameters]\nRequireSSL = yes\nSSLCertificate = a.pem\n"
                        "SSLPrivateKey = b.pem\n", &c, &e), CZ_OK);
  assert_int_equal(c.pc_require_ssl, PGS_SSL_ALL);
}

static void test_bad_values_refused(void **state)
{
  (void)state;
  static const char *const bad[] = {
      "[Parameters]\nAuthentication = md5\n",
      "[Parameters]\nServerPort = 70000\n",
      "[Parameters]\nServerPort = http\n",
      "[Parameters]\nServerThreads = 0\n",
      "[Parameters]\nMaxClientConnections = -1\n",
      "[Parameters]\nAuthenticationTimeout = 0\n",
      "[Parameters]\nSSLCertificate = only-the-cert.pem\n",
      "[Parameters]\nSuperuserReservedConnections = 7\nMaxClientConnections = 7\n",
      "[Parameters]\nStartupTimeout = 0\n",
      "[Parameters]\nRequireSSL = maybe\n",
      "[Parameters]\nRequireSSL = yes\n", /* and no certificate */
      "[Parameters]\nRequireSSL = remote\n",
  };
  for (size_t i = 0; i < CZ_ARRAY_LEN(bad); i++) {
    pgs_config_t c;
    err_t e;
    assert_int_equal(load(bad[i], &c, &e), CZ_ERR);
    assert_string_equal(e.er_sqlstate, SQLSTATE_CONFIG);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_sample_ini),
      cmocka_unit_test(test_values),
      cmocka_unit_test(test_bad_values_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
