/* The engine across restarts, with roles and privileges, secondary
 * indexes and cancellation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "en_run.h"

static void expect_rows(esession_t *s, const char *sql, const char *want)
{
  char *got = en_query(s, sql);
  if (strcmp(got, want) != 0)
    fail_msg("%s\n got: [%s]\nwant: [%s]", sql, got, want);
  free(got);
}

static void close_engine(engine_t *eng)
{
  err_t e;
  assert_int_equal(engine_close(eng, &e), CZ_OK);
}

static void test_committed_data_survives_restart(void **state)
{
  (void)state;
  engine_t *eng = en_test_open("restart");
  esession_t *s = en_test_session(eng, "dba");
  en_exec(s, "CREATE TABLE r(id int PRIMARY KEY, v text)");
  en_exec(s, "INSERT INTO r VALUES (1, 'a'), (2, 'b')");
  en_exec(s, "BEGIN; INSERT INTO r VALUES (3, 'lost'); ROLLBACK");
  en_exec(s, "CREATE INDEX r_v ON r(v)");
  esession_close(s);
  close_engine(eng);

  eng = en_test_reopen("restart");
  s = en_test_session(eng, "dba");
  expect_rows(s, "SELECT id, v FROM r ORDER BY id", "1|a\n2|b");
  expect_rows(s, "SELECT id FROM r WHERE v = 'b'", "2");
  esession_close(s);
  close_engine(eng);
}

static void test_roles_and_privileges(void **state)
{
  (void)state;
  engine_t *eng = en_test_open("roles");
  esession_t *dba = en_test_session(eng, "dba");
  en_exec(dba, "CREATE USER alice PASSWORD 'pw'");
  en_exec(dba, "CREATE TABLE secret(a int)");
  en_exec(dba, "INSERT INTO secret VALUES (42)");
  arena_t *a = arena_create(NULL, "t");
  char *ver = NULL;
  err_t e;
  assert_int_equal(engine_role_verifier(eng, "alice", a, &ver, &e), CZ_OK);
  assert_non_null(strstr(ver, "SCRAM-SHA-256$"));
  assert_int_equal(engine_role_verifier(eng, "nobody", a, &ver, &e), 1);
  arena_destroy(a);

  esession_t *al = en_test_session(eng, "alice");
  en_expect_error(al, "SELECT * FROM secret", "42501");
  en_expect_error(al, "CREATE USER mallory", "42501");
  en_exec(dba, "GRANT SELECT ON secret TO alice");
  expect_rows(al, "SELECT * FROM secret", "42");
  en_expect_error(al, "INSERT INTO secret VALUES (1)", "42501");
  en_exec(dba, "REVOKE SELECT ON secret FROM alice");
  en_expect_error(al, "SELECT * FROM secret", "42501");
  en_expect_error(al, "DROP TABLE secret", "42501");
  esession_close(al);
  en_exec(dba, "DROP USER alice");
  en_exec(dba, "DROP TABLE secret");
  en_expect_error(dba, "DROP TABLE secret", "42P01");
  en_exec(dba, "DROP TABLE IF EXISTS secret");
  esession_close(dba);
  close_engine(eng);
}

static void test_index_scans_and_unique(void **state)
{
  (void)state;
  engine_t *eng = en_test_open("index");
  esession_t *s = en_test_session(eng, "dba");
  en_exec(s, "CREATE TABLE ix(a int, b int, c text)");
  en_exec(s, "INSERT INTO ix VALUES (1, 10, 'p'), (2, 20, 'q'), (3, 20, 'r'), (4, NULL, 's')");
  en_exec(s, "CREATE INDEX ix_b ON ix(b) INCLUDE (c)");
  char *plan = en_query(s, "EXPLAIN SELECT a FROM ix WHERE b = 20");
  assert_non_null(strstr(plan, "using ix_b"));
  free(plan);
  expect_rows(s, "SELECT a, c FROM ix WHERE b = 20 ORDER BY a", "2|q\n3|r");
  expect_rows(s, "SELECT a FROM ix WHERE b > 10", "2\n3");
  expect_rows(s, "SELECT a FROM ix WHERE b = NULL", "");
  en_expect_error(s, "CREATE UNIQUE INDEX ix_bu ON ix(b)", "23505");
  en_exec(s, "CREATE UNIQUE INDEX ix_a ON ix(a)");
  en_expect_error(s, "INSERT INTO ix VALUES (1, 0, 'dup')", "23505");
  en_exec(s, "DROP INDEX ix_b");
  expect_rows(s, "SELECT a FROM ix WHERE b = 20 ORDER BY a", "2\n3");
  esession_close(s);
  close_engine(eng);
}

static esession_t *cancel_target;
static int cancel_after_batch(void *ctx, const batch_t *b, err_t *e)
{
  (void)ctx;
  (void)b;
  (void)e;
  esession_cancel(cancel_target);
  return CZ_OK;
}

static void test_cancel_stops_the_statement(void **state)
{
  (void)state;
  engine_t *eng = en_test_open("cancel");
  esession_t *s = en_test_session(eng, "dba");
  en_exec(s, "CREATE TABLE big(a int)");
  en_exec(s, "INSERT INTO big VALUES (1),(2),(3),(4),(5),(6),(7),(8)");
  en_exec(s, "INSERT INTO big SELECT x.a FROM big x, big y, big z");
  err_t e;
  estmt_t *st;
  const char *sql = "SELECT x.a FROM big x, big y";
  assert_int_equal(estmt_prepare(s, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  eportal_t *p;
  assert_int_equal(eportal_bind(st, NULL, 0, &p, &e), CZ_OK);
  cancel_target = s;
  bool susp;
  assert_int_equal(eportal_execute(p, 0, cancel_after_batch, NULL, &susp, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "57014");
  eportal_free(p);
  estmt_free(st);
  /* the next statement is not affected */
  expect_rows(s, "SELECT count(*) FROM big", "520");
  esession_close(s);
  close_engine(eng);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_committed_data_survives_restart),
      cmocka_unit_test(test_roles_and_privileges),
      cmocka_unit_test(test_index_scans_and_unique),
      cmocka_unit_test(test_cancel_stops_the_statement),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
