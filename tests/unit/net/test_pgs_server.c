/* test_pgs_server — the wire-protocol server over real sockets on
 * 127.0.0.1 (a free port), against a real engine in a temporary folder:
 * startup and SCRAM, the simple and extended query protocols, errors and
 * the skip-to-Sync rule, transaction status, COPY, cancel, limits and
 * timeouts, clients that stall, and malformed input that must end in an
 * error or a closed connection while other sessions carry on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "cz_test.h"
#include "engine/engine.h"
#include "net/pgserver.h"
#include "pgs_client.h"

#define PASSWORD "s3cret-pw"

static ini_t *ini;
static engine_t *eng;
static pgs_server_t *srv;
static int port;
static char tls_cert[512], tls_key[512]; /* set while the TLS test runs */

/* A long statement: 10^9 rows through a cross join, counted. */
#define LONG_QUERY \
  "SELECT count(*) FROM t10 a, t10 b, t10 c, t10 d, t10 e, t10 f, t10 g, t10 h, t10 i"
/* A big result: 10^6 rows. */
#define BIG_QUERY \
  "SELECT a.a, b.a, c.a, d.a, e.a, f.a FROM t10 a, t10 b, t10 c, t10 d, t10 e, t10 f"

static void start_server(int threads, int max_conns, int auth_timeout, pgs_auth_t auth)
{
  pgs_config_t cfg;
  err_t e;
  pgs_config_defaults(&cfg);
  cfg.pc_port = 0;
  cfg.pc_threads = threads;
  cfg.pc_max_conns = max_conns;
  cfg.pc_auth_timeout_s = auth_timeout;
  cfg.pc_startup_timeout_s = CZ_MIN(auth_timeout, cfg.pc_startup_timeout_s);
  cfg.pc_auth = auth;
  snprintf(cfg.pc_ssl_cert, sizeof cfg.pc_ssl_cert, "%s", tls_cert);
  snprintf(cfg.pc_ssl_key, sizeof cfg.pc_ssl_key, "%s", tls_key);
  if (pgs_server_start(eng, &cfg, &srv, &e) != CZ_OK)
    fail_msg("server: %s", e.er_msg);
  port = pgs_server_port(srv);
  assert_true(port > 0);
}

static void restart_server(int threads, int max_conns, int auth_timeout, pgs_auth_t auth)
{
  pgs_server_stop(srv);
  start_server(threads, max_conns, auth_timeout, auth);
}

static void login(tc_t *c)
{
  assert_string_equal(tc_login(c, port, "dba", PASSWORD), "Z(I)");
}

static void must(tc_t *c, const char *sql, const char *tail)
{
  const char *t = tc_query(c, sql);
  size_t n = strlen(t), m = strlen(tail);
  if (n < m || strcmp(t + n - m, tail) != 0)
    fail_msg("%s\n  got: %s\n  want ...%s (%s)", sql, t, tail, c->tc_last_msg);
}

static int group_setup(void **state)
{
  (void)state;
  char text[1024];
  err_t e;
  snprintf(text, sizeof text,
           "[Database]\nDatabaseFile = %s/pgs.db\nTransactionFile = %s/pgs.trx\n"
           "[Parameters]\nDBAPassword = %s\nNumberOfBuffers = 2000\n",
           cz_test_tmpdir(), cz_test_tmpdir(), PASSWORD);
  ini = ini_parse(text, strlen(text), &e);
  if (!ini || engine_open(ini, &eng, &e) != CZ_OK) {
    fprintf(stderr, "engine: %s\n", e.er_msg);
    return -1;
  }
  start_server(4, 100, 60, PGS_AUTH_SCRAM);
  tc_t c;
  login(&c);
  must(&c, "CREATE TABLE t (a INTEGER PRIMARY KEY, b VARCHAR(20))", "Z(I)");
  must(&c, "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four'), (5, 'five')",
       "C(INSERT 0 5) Z(I)");
  must(&c, "CREATE TABLE t10 (a INTEGER)", "Z(I)");
  must(&c, "INSERT INTO t10 VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)",
       "C(INSERT 0 10) Z(I)");
  must(&c, "CREATE TABLE t2 (a INTEGER, b TEXT)", "Z(I)");
  tc_close(&c);
  return 0;
}

static int group_teardown(void **state)
{
  (void)state;
  err_t e;
  pgs_server_stop(srv);
  int rc = engine_close(eng, &e);
  ini_free(ini);
  return rc == CZ_OK ? 0 : -1;
}

/* ---- startup and authentication ---- */

static void test_login_scram(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  assert_true(c.tc_pid != 0);
  /* pg_backend_pid() is the pid of BackendKeyData, as in PostgreSQL */
  char want[64];
  snprintf(want, sizeof want, "T(p:23) D(%d) C(SELECT 1) Z(I)", c.tc_pid);
  assert_string_equal(tc_query(&c, "SELECT pg_backend_pid() AS p"), want);
  tc_close(&c);
}

static void test_login_wrong_password(void **state)
{
  (void)state;
  tc_t c;
  assert_string_equal(tc_login(&c, port, "dba", "not-the-password"), "E(28P01) EOF");
  assert_non_null(strstr(c.tc_last_msg, "password authentication failed"));
  tc_close(&c);
}

static void test_login_unknown_user_looks_like_wrong_password(void **state)
{
  (void)state;
  tc_t c;
  assert_string_equal(tc_login(&c, port, "nobody_here", "whatever"), "E(28P01) EOF");
  tc_close(&c);
}

static void test_ssl_and_gss_requests_answered_n(void **state)
{
  (void)state;
  tc_t c;
  tc_connect(&c, port);
  pgw_write_request_code(&c.tc_out, PGW_SSL_REQUEST_CODE);
  tc_flush(&c);
  char answer = 0;
  assert_int_equal(recv(c.tc_fd, &answer, 1, 0), 1);
  assert_int_equal(answer, 'N'); /* no certificate configured */
  pgw_write_request_code(&c.tc_out, PGW_GSSENC_REQUEST_CODE);
  tc_flush(&c);
  assert_int_equal(recv(c.tc_fd, &answer, 1, 0), 1);
  assert_int_equal(answer, 'N');
  /* the same connection then starts normally */
  const char *names[] = {"user"};
  const char *values[] = {"dba"};
  pgw_write_startup(&c.tc_out, PGW_PROTOCOL_3_0, names, values, 1);
  tc_flush(&c);
  const uint8_t *b;
  uint32_t len;
  assert_int_equal(tc_read(&c, &b, &len), 'R');
  tc_close(&c);
}

static void test_newer_minor_version_negotiated(void **state)
{
  (void)state;
  tc_t c;
  tc_connect(&c, port);
  const char *names[] = {"user", "_pq_.fancy"};
  const char *values[] = {"dba", "1"};
  pgw_write_startup(&c.tc_out, PGW_PROTOCOL_3_0 | 2, names, values, 2);
  tc_flush(&c);
  const uint8_t *b;
  uint32_t len;
  assert_int_equal(tc_read(&c, &b, &len), 'v');
  assert_int_equal(b[3], 0);              /* newest minor we speak: 0 */
  assert_int_equal(b[7], 1);              /* one unknown option */
  assert_string_equal((const char *)b + 8, "_pq_.fancy");
  assert_int_equal(tc_read(&c, &b, &len), 'R');
  tc_close(&c);
}

/* ---- simple query ---- */

static void test_simple_several_statements(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  assert_string_equal(tc_query(&c, "SELECT 1 AS x; SELECT a, b FROM t WHERE a = 2"),
                      "T(x:23) D(1) C(SELECT 1) T(a:23,b:1043) D(2|two) C(SELECT 1) Z(I)");
  assert_string_equal(tc_query(&c, "SELECT b FROM t WHERE a > 3 ORDER BY a"),
                      "T(b:1043) D(four) D(five) C(SELECT 2) Z(I)");
  tc_close(&c);
}

static void test_simple_error_skips_the_rest(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  /* the whole text is parsed first, as in PostgreSQL: a syntax error
   * anywhere runs nothing; its position counts from the start of the text */
  assert_string_equal(tc_query(&c, "SELECT 1 AS x; SELEC 2; SELECT 3 AS y"), "E(42601@16) Z(I)");
  /* an error found while preparing or running a statement skips the rest */
  const char *t = tc_query(&c, "SELECT 1 AS x; SELECT nosuch FROM t; SELECT 3 AS y");
  if (strncmp(t, "T(x:23) D(1) C(SELECT 1) E(42703", 32) != 0 || strstr(t, "T(y") ||
      strcmp(t + strlen(t) - 5, " Z(I)") != 0)
    fail_msg("got %s", t);
  tc_close(&c);
}

static void test_simple_empty_query(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  assert_string_equal(tc_query(&c, ""), "I Z(I)");
  assert_string_equal(tc_query(&c, "  ;  "), "I Z(I)");
  tc_close(&c);
}

static void test_transaction_status(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  assert_string_equal(tc_query(&c, "BEGIN"), "C(BEGIN) Z(T)");
  /* RowDescription may precede the error, as in PostgreSQL when the
   * error arises while the statement runs */
  const char *t = tc_query(&c, "SELECT 1 / 0");
  if (!strstr(t, "E(22012") || strcmp(t + strlen(t) - 4, "Z(E)") != 0)
    fail_msg("got %s", t);
  assert_string_equal(tc_query(&c, "SELECT 1 AS x"), "E(25P02) Z(E)");
  assert_string_equal(tc_query(&c, "ROLLBACK"), "C(ROLLBACK) Z(I)");
  /* a warning comes before the CommandComplete it belongs to */
  assert_string_equal(tc_query(&c, "ROLLBACK"), "N(25P01) C(ROLLBACK) Z(I)");
  tc_close(&c);
}

static void test_parameter_status_after_set(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  assert_string_equal(tc_query(&c, "SET application_name = 'renamed'"),
                      "C(SET) S(application_name=renamed) Z(I)");
  tc_close(&c);
}

/* ---- extended query ---- */

static void test_extended_named_statement_text_and_binary(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  pgw_write_parse(&c.tc_out, "s1", "SELECT a, b FROM t WHERE a = $1", NULL, 0);
  pgw_write_describe(&c.tc_out, 'S', "s1");
  /* text parameter, text results */
  const uint8_t *v1[] = {(const uint8_t *)"3"};
  int32_t l1[] = {1};
  pgw_bind_t b1 = {.bi_portal = "", .bi_stmt = "s1", .bi_n_params = 1, .bi_values = v1,
                   .bi_lens = l1};
  pgw_write_bind(&c.tc_out, &b1);
  pgw_write_execute(&c.tc_out, "", 0);
  /* binary parameter, first column binary */
  static const uint8_t four[4] = {0, 0, 0, 4};
  const uint8_t *v2[] = {four};
  int32_t l2[] = {4};
  int16_t pf[] = {1};
  int16_t rf[] = {1, 0};
  pgw_bind_t b2 = {.bi_portal = "p2", .bi_stmt = "s1", .bi_n_formats = 1, .bi_formats = pf,
                   .bi_n_params = 1, .bi_values = v2, .bi_lens = l2,
                   .bi_n_result_formats = 2, .bi_result_formats = rf};
  pgw_write_bind(&c.tc_out, &b2);
  pgw_write_describe(&c.tc_out, 'P', "p2");
  pgw_write_execute(&c.tc_out, "p2", 0);
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"),
                      "1 t(23) T(a:23,b:1043) 2 D(3|three) C(SELECT 1) "
                      "2 T(a:23b,b:1043) D(x00000004|four) C(SELECT 1) Z(I)");
  /* the statement outlives the Sync; NULL parameter */
  int32_t lnull[] = {-1};
  const uint8_t *vnull[] = {NULL};
  pgw_bind_t b3 = {.bi_portal = "", .bi_stmt = "s1", .bi_n_params = 1, .bi_values = vnull,
                   .bi_lens = lnull};
  pgw_write_bind(&c.tc_out, &b3);
  pgw_write_execute(&c.tc_out, "", 0);
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "2 C(SELECT 0) Z(I)");
  tc_close(&c);
}

static void test_extended_row_limit_suspends(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  pgw_write_parse(&c.tc_out, "", "SELECT a FROM t ORDER BY a", NULL, 0);
  pgw_bind_t b = {.bi_portal = "", .bi_stmt = ""};
  pgw_write_bind(&c.tc_out, &b);
  pgw_write_execute(&c.tc_out, "", 2);
  pgw_write_execute(&c.tc_out, "", 2);
  pgw_write_execute(&c.tc_out, "", 2);
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  const char *t = tc_until(&c, "Z");
  if (strncmp(t, "1 2 D(1) D(2) s D(3) D(4) s D(5) C(SELECT ", 42) != 0 ||
      strcmp(t + strlen(t) - 5, " Z(I)") != 0)
    fail_msg("got %s", t);
  tc_close(&c);
}

static void test_extended_error_discards_until_sync(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  pgw_write_parse(&c.tc_out, "", "SELEC 1", NULL, 0);
  pgw_bind_t b = {.bi_portal = "", .bi_stmt = ""};
  pgw_write_bind(&c.tc_out, &b);
  pgw_write_execute(&c.tc_out, "", 0);
  pgw_write_parse(&c.tc_out, "", "SELECT 1 AS x", NULL, 0); /* skipped too */
  pgw_write_sync(&c.tc_out);
  pgw_write_parse(&c.tc_out, "", "SELECT 1 AS x", NULL, 0);
  pgw_write_bind(&c.tc_out, &b);
  pgw_write_execute(&c.tc_out, "", 0);
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "E(42601@1) Z(I)");
  assert_string_equal(tc_until(&c, "Z"), "1 2 D(1) C(SELECT 1) Z(I)");
  /* names that do not exist */
  pgw_bind_t nb = {.bi_portal = "", .bi_stmt = "nosuch"};
  pgw_write_bind(&c.tc_out, &nb);
  pgw_write_sync(&c.tc_out);
  pgw_write_execute(&c.tc_out, "nosuch", 0);
  pgw_write_sync(&c.tc_out);
  pgw_write_describe(&c.tc_out, 'S', "nosuch");
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "E(26000) Z(I)");
  assert_string_equal(tc_until(&c, "Z"), "E(34000) Z(I)");
  assert_string_equal(tc_until(&c, "Z"), "E(26000) Z(I)");
  tc_close(&c);
}

/* Parse/Bind/Execute of one statement, without Sync. */
static void pipe_exec(tc_t *c, const char *sql)
{
  pgw_write_parse(&c->tc_out, "", sql, NULL, 0);
  pgw_bind_t b = {.bi_portal = "", .bi_stmt = ""};
  pgw_write_bind(&c->tc_out, &b);
  pgw_write_execute(&c->tc_out, "", 0);
}

/* The extended messages up to Sync are one implicit transaction outside
 * a block, as in PostgreSQL: a failure rolls back what the earlier
 * Executes did, and the commit happens at Sync. */
static void test_extended_pipeline_is_one_transaction(void **state)
{
  (void)state;
  tc_t c, o;
  login(&c);
  login(&o);
  assert_string_equal(tc_query(&c, "CREATE TABLE pipe_t (a int)"), "C(CREATE TABLE) Z(I)");
  /* the second Execute fails: the first one's row goes too */
  pipe_exec(&c, "INSERT INTO pipe_t VALUES (1)");
  pipe_exec(&c, "INSERT INTO pipe_t VALUES (1/0)");
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "1 2 C(INSERT 0 1) 1 2 E(22012@29) Z(I)");
  assert_string_equal(tc_query(&c, "SELECT count(*) AS n FROM pipe_t"),
                      "T(n:20) D(0) C(SELECT 1) Z(I)");
  /* an error outside the engine (Bind) rolls back the earlier Execute too */
  pipe_exec(&c, "INSERT INTO pipe_t VALUES (1)");
  pgw_bind_t nb = {.bi_portal = "", .bi_stmt = "nosuch"};
  pgw_write_bind(&c.tc_out, &nb);
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "1 2 C(INSERT 0 1) E(26000) Z(I)");
  assert_string_equal(tc_query(&o, "SELECT count(*) AS n FROM pipe_t"),
                      "T(n:20) D(0) C(SELECT 1) Z(I)");
  /* the commit happens at Sync, not at the end of each Execute */
  pipe_exec(&c, "INSERT INTO pipe_t VALUES (2)");
  pipe_exec(&c, "INSERT INTO pipe_t VALUES (3)");
  pgw_write_flush(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "C"), "1 2 C(INSERT 0 1)");
  assert_string_equal(tc_until(&c, "C"), "1 2 C(INSERT 0 1)");
  assert_string_equal(tc_query(&o, "SELECT count(*) AS n FROM pipe_t"),
                      "T(n:20) D(0) C(SELECT 1) Z(I)");
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "Z(I)");
  assert_string_equal(tc_query(&o, "SELECT count(*) AS n FROM pipe_t"),
                      "T(n:20) D(2) C(SELECT 1) Z(I)");
  /* a portal suspended in the implicit transaction is closed at Sync */
  pgw_write_parse(&c.tc_out, "", "SELECT a FROM pipe_t ORDER BY a", NULL, 0);
  pgw_bind_t b = {.bi_portal = "", .bi_stmt = ""};
  pgw_write_bind(&c.tc_out, &b);
  pgw_write_execute(&c.tc_out, "", 1);
  pgw_write_sync(&c.tc_out);
  pgw_write_execute(&c.tc_out, "", 1);
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "1 2 D(2) s Z(I)");
  assert_string_equal(tc_until(&c, "Z"), "E(34000) Z(I)");
  /* a Query after extended messages without Sync ends their transaction */
  pipe_exec(&c, "INSERT INTO pipe_t VALUES (4)");
  pgw_write_query(&c.tc_out, "SELECT count(*) AS n FROM pipe_t");
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "1 2 C(INSERT 0 1) T(n:20) D(3) C(SELECT 1) Z(I)");
  assert_string_equal(tc_query(&o, "SELECT count(*) AS n FROM pipe_t"),
                      "T(n:20) D(3) C(SELECT 1) Z(I)");
  /* inside a block the block decides; Sync commits nothing */
  assert_string_equal(tc_query(&c, "BEGIN"), "C(BEGIN) Z(T)");
  pipe_exec(&c, "INSERT INTO pipe_t VALUES (5)");
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "1 2 C(INSERT 0 1) Z(T)");
  assert_string_equal(tc_query(&c, "ROLLBACK"), "C(ROLLBACK) Z(I)");
  assert_string_equal(tc_query(&o, "DROP TABLE pipe_t"), "C(DROP TABLE) Z(I)");
  tc_close(&o);
  tc_close(&c);
}

static void test_extended_names_close_and_empty(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  pgw_write_parse(&c.tc_out, "s", "SELECT 1 AS x", NULL, 0);
  pgw_write_parse(&c.tc_out, "s", "SELECT 2 AS x", NULL, 0);
  pgw_write_sync(&c.tc_out);
  pgw_write_close(&c.tc_out, 'S', "s");
  pgw_write_close(&c.tc_out, 'S', "never-was");
  pgw_write_parse(&c.tc_out, "s", "SELECT 2 AS x", NULL, 0);
  pgw_bind_t b = {.bi_portal = "", .bi_stmt = "s"};
  pgw_write_bind(&c.tc_out, &b);
  pgw_write_execute(&c.tc_out, "", 0);
  pgw_write_sync(&c.tc_out);
  /* the empty query */
  pgw_write_parse(&c.tc_out, "", "", NULL, 0);
  pgw_bind_t e = {.bi_portal = "", .bi_stmt = ""};
  pgw_write_bind(&c.tc_out, &e);
  pgw_write_describe(&c.tc_out, 'P', "");
  pgw_write_execute(&c.tc_out, "", 0);
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "1 E(42P05) Z(I)");
  assert_string_equal(tc_until(&c, "Z"), "3 3 1 2 D(2) C(SELECT 1) Z(I)");
  assert_string_equal(tc_until(&c, "Z"), "1 2 n I Z(I)");
  tc_close(&c);
}

static void test_extended_declared_parameter_type(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  uint32_t types[] = {20}; /* int8 */
  pgw_write_parse(&c.tc_out, "", "SELECT a FROM t WHERE a = $1", types, 1);
  pgw_write_describe(&c.tc_out, 'S', "");
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "1 t(20) T(a:23) Z(I)");
  tc_close(&c);
}

/* ---- COPY ---- */

static void test_copy_in_and_out(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  pgw_write_query(&c.tc_out, "COPY t2 FROM STDIN");
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "GZ"), "G(2)");
  pgw_write_copy_data(&c.tc_out, "1\tx\n2", 5); /* a line split across messages */
  pgw_write_copy_data(&c.tc_out, "\ty\n", 3);
  pgw_write_copy_done(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "C(COPY 2) Z(I)");

  /* CopyFail rolls the copy back */
  pgw_write_query(&c.tc_out, "COPY t2 FROM STDIN");
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "GZ"), "G(2)");
  pgw_write_copy_data(&c.tc_out, "3\tz\n", 4);
  pgw_write_copy_fail(&c.tc_out, "changed my mind");
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "E(57014) Z(I)");

  /* COPY in the middle of a multi-statement Query */
  pgw_write_query(&c.tc_out, "SELECT 1 AS x; COPY t2 FROM STDIN; SELECT count(*) AS n FROM t2");
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "GZ"), "T(x:23) D(1) C(SELECT 1) G(2)");
  pgw_write_copy_data(&c.tc_out, "3\tz\n", 4);
  pgw_write_copy_done(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "C(COPY 1) T(n:20) D(3) C(SELECT 1) Z(I)");

  /* out: collect the data whatever its chunking */
  pgw_write_query(&c.tc_out, "COPY t2 TO STDOUT");
  tc_flush(&c);
  const uint8_t *b;
  uint32_t len;
  assert_int_equal(tc_read(&c, &b, &len), 'H');
  char data[256] = "";
  size_t n = 0;
  char type;
  while ((type = tc_read(&c, &b, &len)) == 'd') {
    assert_true(n + len < sizeof data);
    memcpy(data + n, b, len);
    n += len;
  }
  data[n] = 0;
  assert_int_equal(type, 'c');
  assert_string_equal(data, "1\tx\n2\ty\n3\tz\n");
  assert_string_equal(tc_until(&c, "Z"), "C(COPY 3) Z(I)");
  tc_close(&c);
}

/* ---- cancel, terminate ---- */

static void test_cancel_request(void **state)
{
  (void)state;
  tc_t c, k;
  login(&c);
  pgw_write_query(&c.tc_out, LONG_QUERY);
  tc_flush(&c);
  usleep(300 * 1000);
  /* a wrong key is ignored and answered with nothing but a close */
  tc_connect(&k, port);
  pgw_write_cancel(&k.tc_out, c.tc_pid, c.tc_key ^ 1);
  tc_flush(&k);
  assert_string_equal(tc_until(&k, ""), "EOF");
  tc_close(&k);
  tc_connect(&k, port);
  pgw_write_cancel(&k.tc_out, c.tc_pid, c.tc_key);
  tc_flush(&k);
  assert_string_equal(tc_until(&k, ""), "EOF");
  tc_close(&k);
  const char *t = tc_until(&c, "Z");
  if (strlen(t) < 13 || strcmp(t + strlen(t) - 13, "E(57014) Z(I)") != 0)
    fail_msg("got %s", t);
  assert_string_equal(tc_query(&c, "SELECT 1 AS x"), "T(x:23) D(1) C(SELECT 1) Z(I)");
  tc_close(&c);
}

/* SET statement_timeout cancels a statement that runs longer, as
 * PostgreSQL: 57014 "canceling statement due to statement timeout". */
static void test_statement_timeout(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  assert_string_equal(tc_query(&c, "SET statement_timeout = 'soon'"), "E(22023) Z(I)");
  assert_string_equal(tc_query(&c, "SET statement_timeout = 200"), "C(SET) Z(I)");
  uint64_t t0 = time_now_ns();
  assert_string_equal(tc_query(&c, LONG_QUERY), "T(count:20) E(57014) Z(I)");
  uint64_t ms = (time_now_ns() - t0) / 1000000;
  assert_true(ms >= 150 && ms < 5000);
  assert_string_equal(c.tc_last_msg, "canceling statement due to statement timeout");
  /* short statements are not hit, the next one included */
  assert_string_equal(tc_query(&c, "SELECT 1 AS x"), "T(x:23) D(1) C(SELECT 1) Z(I)");
  /* each statement of a text has its own clock */
  assert_string_equal(tc_query(&c, "SELECT 1 AS x; " LONG_QUERY),
                      "T(x:23) D(1) C(SELECT 1) T(count:20) E(57014) Z(I)");
  /* the extended protocol, with units */
  assert_string_equal(tc_query(&c, "SET statement_timeout = '0.2s'"), "C(SET) Z(I)");
  pgw_write_parse(&c.tc_out, "", LONG_QUERY, NULL, 0);
  pgw_bind_t b = {.bi_portal = "", .bi_stmt = ""};
  pgw_write_bind(&c.tc_out, &b);
  pgw_write_execute(&c.tc_out, "", 0);
  pgw_write_sync(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "1 2 E(57014) Z(I)");
  assert_string_equal(c.tc_last_msg, "canceling statement due to statement timeout");
  /* back to none */
  assert_string_equal(tc_query(&c, "SET statement_timeout TO DEFAULT"), "C(SET) Z(I)");
  assert_string_equal(tc_query(&c, "SHOW statement_timeout"),
                      "T(statement_timeout:25) D(0) C(SHOW) Z(I)");
  tc_close(&c);
}

static void test_terminate_closes(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  pgw_write_terminate(&c.tc_out);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, "Z"), "EOF");
  tc_close(&c);
}

/* ---- bad input ---- */

static void be32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* Sends raw bytes (after logging in when typed) and expects an error
 * then EOF, or EOF alone. */
static void expect_refused(const uint8_t *bytes, size_t len, bool typed, const char *what)
{
  tc_t c;
  if (typed)
    login(&c);
  else
    tc_connect(&c, port);
  tc_send_raw(&c, bytes, len);
  shutdown(c.tc_fd, SHUT_WR); /* a truncated message then ends */
  const char *t = tc_until(&c, "");
  /* an error (protocol, bad UTF-8, unsupported version, no user) then
   * the close, or the close alone */
  static const char *const codes[] = {"E(08P01", "E(22021", "E(0A000", "E(28000"};
  bool ok = strcmp(t, "EOF") == 0;
  for (size_t i = 0; !ok && i < CZ_ARRAY_LEN(codes); i++)
    ok = strncmp(t, codes[i], 7) == 0 && strcmp(t + strlen(t) - 4, " EOF") == 0;
  if (!ok)
    fail_msg("%s: got %s", what, t);
  tc_close(&c);
}

/* Waits (up to 5 s) until the server holds at most n connections and
 * returns how many it holds. A connection its client closed is reaped
 * by the server only when a session thread sees the EOF, some time after
 * tc_close returns, so a count taken right after an earlier test may
 * still include that test's connections. */
static int settle_conns(int n)
{
  for (int i = 0; i < 500 && pgs_server_n_conns(srv) > n; i++)
    usleep(10 * 1000);
  return pgs_server_n_conns(srv);
}

/* Bad UTF-8 in a well-framed Query is an ERROR, as in PostgreSQL: the
 * session goes on. */
static void test_invalid_utf8_keeps_session(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  tc_send_raw(&c, (const uint8_t *)"Q\0\0\0\x0fSELECT '\xff'\0", 16);
  assert_string_equal(tc_until(&c, "Z"), "E(22021) Z(I)");
  assert_string_equal(tc_query(&c, "SELECT 1 AS x"), "T(x:23) D(1) C(SELECT 1) Z(I)");
  tc_close(&c);
}

static void test_bad_input_leaves_others_working(void **state)
{
  (void)state;
  /* the earlier tests' connections are gone first (a failed test may
   * leave its own open for good: those are counted in before) */
  int before = settle_conns(0);
  tc_t bystander;
  login(&bystander);
  uint8_t m[64];

  /* startup phase */
  be32(m, 4);
  expect_refused(m, 4, false, "startup length 4");
  be32(m, 0x7fffffff);
  expect_refused(m, 8, false, "startup length huge");
  be32(m, 8);
  be32(m + 4, 2u << 16); /* protocol 2.0 */
  expect_refused(m, 8, false, "protocol 2");
  be32(m, 9);
  be32(m + 4, PGW_PROTOCOL_3_0);
  m[8] = 0; /* no user */
  expect_refused(m, 9, false, "no user");
  be32(m, 12);
  be32(m + 4, PGW_PROTOCOL_3_0);
  memcpy(m + 8, "use", 3); /* truncated, then the client goes away */
  expect_refused(m, 11, false, "truncated startup");
  be32(m, 8);
  be32(m + 4, PGW_SSL_REQUEST_CODE);
  memcpy(m + 8, "Q\0\0\0\5x", 6); /* pipelined past SSLRequest */
  expect_refused(m, 14, false, "data after SSLRequest");

  /* typed phase */
  expect_refused((const uint8_t *)"F\0\0\0\4", 5, true, "FunctionCall");
  expect_refused((const uint8_t *)"z\0\0\0\4", 5, true, "unknown type");
  expect_refused((const uint8_t *)"Q\x7f\xff\xff\xff", 5, true, "huge Query");
  expect_refused((const uint8_t *)"S\0\0\0\5x", 6, true, "Sync with a body");
  expect_refused((const uint8_t *)"Q\0\0\0\3", 5, true, "length 3");
  expect_refused((const uint8_t *)"Q\0\0\0\010abcd", 9, true, "no NUL");
  expect_refused((const uint8_t *)"B\0\0\0\x0a\0\0\0\x7f\xff\0", 11, true, "Bind counts");
  expect_refused((const uint8_t *)"Q\0\0\0\x40SELECT", 11, true, "truncated Query");

  /* random bytes from a fixed seed, in both phases */
  uint64_t seed = cz_test_seed();
  for (int i = 0; i < 40; i++) {
    uint8_t r[48];
    for (size_t j = 0; j < sizeof r; j++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      r[j] = (uint8_t)(seed >> 56);
    }
    if (i % 2)
      r[0] = "QPBDESHCXpdcf"[r[1] % 13];
    expect_refused(r, sizeof r, i % 2 == 1, "random bytes");
  }

  assert_string_equal(tc_query(&bystander, "SELECT 1 AS x"), "T(x:23) D(1) C(SELECT 1) Z(I)");
  tc_close(&bystander);
  /* every refused connection is gone */
  assert_int_equal(settle_conns(before), before);
}

/* ---- limits, timeouts, stalled clients ---- */

static void test_too_many_connections(void **state)
{
  (void)state;
  restart_server(2, 2, 60, PGS_AUTH_SCRAM);
  tc_t a, b, c;
  login(&a);
  login(&b);
  assert_string_equal(tc_login(&c, port, "dba", PASSWORD), "E(53300) EOF");
  tc_close(&c);
  tc_close(&b);
  settle_conns(1);
  login(&c); /* a slot is free again */
  tc_close(&c);
  tc_close(&a);
  restart_server(4, 100, 60, PGS_AUTH_SCRAM);
}

static void test_startup_timeout(void **state)
{
  (void)state;
  restart_server(2, 100, 1, PGS_AUTH_SCRAM);
  tc_t c;
  tc_connect(&c, port);
  uint64_t t0 = time_now_ns();
  assert_string_equal(tc_until(&c, ""), "EOF"); /* never sent a byte */
  uint64_t ms = (time_now_ns() - t0) / 1000000;
  assert_true(ms >= 500 && ms < 5000);
  tc_close(&c);
  /* half an authentication is cut off too */
  tc_connect(&c, port);
  const char *names[] = {"user"};
  const char *values[] = {"dba"};
  pgw_write_startup(&c.tc_out, PGW_PROTOCOL_3_0, names, values, 1);
  tc_flush(&c);
  assert_string_equal(tc_until(&c, ""), "R(10) EOF"); /* SASL asked; we never answered */
  tc_close(&c);
  restart_server(4, 100, 60, PGS_AUTH_SCRAM);
}

static void test_partial_message_does_not_stall_others(void **state)
{
  (void)state;
  restart_server(1, 100, 60, PGS_AUTH_SCRAM); /* one thread for everybody */
  tc_t slow, fast;
  login(&slow);
  static const char part[] = "Q\0\0\0\x12SELECT"; /* 18 bytes declared, 10 sent */
  tc_send_raw(&slow, part, 11);
  login(&fast);
  assert_string_equal(tc_query(&fast, "SELECT 1 AS x"), "T(x:23) D(1) C(SELECT 1) Z(I)");
  tc_send_raw(&slow, " 1 AS x\0", 8);
  assert_string_equal(tc_until(&slow, "Z"), "T(x:23) D(1) C(SELECT 1) Z(I)");
  tc_close(&slow);
  tc_close(&fast);
  restart_server(4, 100, 60, PGS_AUTH_SCRAM);
}

static void test_client_not_reading_does_not_stall_others(void **state)
{
  (void)state;
  restart_server(1, 100, 60, PGS_AUTH_SCRAM);
  tc_t big, fast;
  login(&big);
  pgw_write_query(&big.tc_out, BIG_QUERY);
  tc_flush(&big);
  usleep(500 * 1000); /* its output fills the socket buffers; it parks */
  login(&fast);
  assert_string_equal(tc_query(&fast, "SELECT 1 AS x"), "T(x:23) D(1) C(SELECT 1) Z(I)");
  /* now read it all: every row arrives */
  long rows = 0;
  const uint8_t *b;
  uint32_t len;
  char type;
  while ((type = tc_read(&big, &b, &len)) != 0 && type != 'Z')
    rows += type == 'D';
  assert_int_equal(type, 'Z');
  assert_int_equal(rows, 1000000);
  tc_close(&big);
  tc_close(&fast);
  restart_server(4, 100, 60, PGS_AUTH_SCRAM);
}

static void test_busy_session_threads_still_accept_and_cancel(void **state)
{
  (void)state;
  restart_server(1, 100, 60, PGS_AUTH_SCRAM); /* one session thread */
  tc_t busy, late, k;
  login(&busy);
  pgw_write_query(&busy.tc_out, LONG_QUERY);
  tc_flush(&busy);
  usleep(300 * 1000); /* the only session thread now runs it */
  login(&late);        /* accepted and authenticated all the same */
  pgw_write_query(&late.tc_out, "SELECT 1 AS x");
  tc_flush(&late);
  tc_connect(&k, port); /* and the cancel gets through */
  pgw_write_cancel(&k.tc_out, busy.tc_pid, busy.tc_key);
  tc_flush(&k);
  assert_string_equal(tc_until(&k, ""), "EOF");
  tc_close(&k);
  const char *t = tc_until(&busy, "Z");
  if (strlen(t) < 13 || strcmp(t + strlen(t) - 13, "E(57014) Z(I)") != 0)
    fail_msg("got %s", t);
  assert_string_equal(tc_until(&late, "Z"), "T(x:23) D(1) C(SELECT 1) Z(I)");
  tc_close(&busy);
  tc_close(&late);
  restart_server(4, 100, 60, PGS_AUTH_SCRAM);
}

static void test_trust_authentication(void **state)
{
  (void)state;
  restart_server(2, 100, 60, PGS_AUTH_TRUST);
  tc_t c;
  assert_string_equal(tc_login(&c, port, "dba", NULL), "Z(I)");
  tc_close(&c);
  restart_server(4, 100, 60, PGS_AUTH_SCRAM);
}

/* A self-signed certificate and its key, PEM, in the test folder. */
static void make_certificate(void)
{
  EVP_PKEY *key = EVP_EC_gen("P-256");
  assert_non_null(key);
  X509 *x = X509_new();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
  X509_gmtime_adj(X509_getm_notBefore(x), 0);
  X509_gmtime_adj(X509_getm_notAfter(x), 3600);
  X509_set_pubkey(x, key);
  X509_NAME *name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost", -1, -1, 0);
  X509_set_issuer_name(x, name);
  assert_true(X509_sign(x, key, EVP_sha256()) > 0);
  snprintf(tls_cert, sizeof tls_cert, "%s/cert.pem", cz_test_tmpdir());
  snprintf(tls_key, sizeof tls_key, "%s/key.pem", cz_test_tmpdir());
  FILE *f = fopen(tls_cert, "w");
  assert_non_null(f);
  PEM_write_X509(f, x);
  fclose(f);
  f = fopen(tls_key, "w");
  assert_non_null(f);
  PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL);
  fclose(f);
  X509_free(x);
  EVP_PKEY_free(key);
}

static void test_tls(void **state)
{
  (void)state;
  make_certificate();
  restart_server(2, 100, 60, PGS_AUTH_SCRAM);
  tc_t c;
  tc_connect(&c, port);
  assert_int_equal(tc_start_tls(&c), 'S');
  assert_string_equal(tc_auth(&c, "dba", PASSWORD), "Z(I)");
  assert_string_equal(tc_query(&c, "SELECT 1 AS x"), "T(x:23) D(1) C(SELECT 1) Z(I)");
  /* a result far bigger than one TLS record and the socket buffers */
  pgw_write_query(&c.tc_out, BIG_QUERY);
  tc_flush(&c);
  long rows = 0;
  const uint8_t *b;
  uint32_t len;
  char type;
  while ((type = tc_read(&c, &b, &len)) != 0 && type != 'Z')
    rows += type == 'D';
  assert_int_equal(type, 'Z');
  assert_int_equal(rows, 1000000);
  tc_close(&c);
  /* plain connections still work beside TLS ones */
  login(&c);
  tc_close(&c);
  /* bytes pipelined after SSLRequest are refused, not taken as encrypted */
  tc_connect(&c, port);
  static const uint8_t sneaky[] = {0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f, 'Q', 0, 0, 0, 5, 'x'};
  tc_send_raw(&c, sneaky, sizeof sneaky);
  const char *t = tc_until(&c, "");
  if (strcmp(t, "EOF") != 0 && strcmp(t, "E(08P01) EOF") != 0)
    fail_msg("got %s", t);
  tc_close(&c);
  tls_cert[0] = tls_key[0] = 0;
  restart_server(4, 100, 60, PGS_AUTH_SCRAM);
}

static void test_stop_tells_clients_and_rolls_back(void **state)
{
  (void)state;
  tc_t c;
  login(&c);
  assert_string_equal(tc_query(&c, "BEGIN"), "C(BEGIN) Z(T)");
  assert_string_equal(tc_query(&c, "INSERT INTO t2 VALUES (99, 'uncommitted')"),
                      "C(INSERT 0 1) Z(T)");
  pgs_server_stop(srv);
  assert_string_equal(tc_until(&c, "Z"), "E(57P01) EOF");
  tc_close(&c);
  start_server(4, 100, 60, PGS_AUTH_SCRAM);
  login(&c);
  assert_string_equal(tc_query(&c, "SELECT count(*) AS n FROM t2 WHERE a = 99"),
                      "T(n:20) D(0) C(SELECT 1) Z(I)");
  tc_close(&c);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_login_scram),
      cmocka_unit_test(test_login_wrong_password),
      cmocka_unit_test(test_login_unknown_user_looks_like_wrong_password),
      cmocka_unit_test(test_ssl_and_gss_requests_answered_n),
      cmocka_unit_test(test_newer_minor_version_negotiated),
      cmocka_unit_test(test_simple_several_statements),
      cmocka_unit_test(test_simple_error_skips_the_rest),
      cmocka_unit_test(test_simple_empty_query),
      cmocka_unit_test(test_transaction_status),
      cmocka_unit_test(test_parameter_status_after_set),
      cmocka_unit_test(test_extended_named_statement_text_and_binary),
      cmocka_unit_test(test_extended_row_limit_suspends),
      cmocka_unit_test(test_extended_error_discards_until_sync),
      cmocka_unit_test(test_extended_pipeline_is_one_transaction),
      cmocka_unit_test(test_extended_names_close_and_empty),
      cmocka_unit_test(test_extended_declared_parameter_type),
      cmocka_unit_test(test_copy_in_and_out),
      cmocka_unit_test(test_cancel_request),
      cmocka_unit_test(test_statement_timeout),
      cmocka_unit_test(test_terminate_closes),
      cmocka_unit_test(test_invalid_utf8_keeps_session),
      cmocka_unit_test(test_bad_input_leaves_others_working),
      cmocka_unit_test(test_too_many_connections),
      cmocka_unit_test(test_startup_timeout),
      cmocka_unit_test(test_partial_message_does_not_stall_others),
      cmocka_unit_test(test_client_not_reading_does_not_stall_others),
      cmocka_unit_test(test_busy_session_threads_still_accept_and_cancel),
      cmocka_unit_test(test_trust_authentication),
      cmocka_unit_test(test_tls),
      cmocka_unit_test(test_stop_tells_clients_and_rolls_back),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
