/* SQL savepoints through engine.h: SAVEPOINT, RELEASE, ROLLBACK TO with
 * PostgreSQL's semantics (nesting, repeated names, errors), the failure of
 * a statement inside a block undoing that statement only, ROLLBACK TO
 * recovering a failed block, DDL after a savepoint, and a restart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "en_run.h"

static engine_t *eng;
static esession_t *ses;
static char db_name[32];

static int setup(void **state)
{
  (void)state;
  static int n;
  snprintf(db_name, sizeof(db_name), "savepoint%d", n++);
  eng = en_test_open(db_name);
  ses = en_test_session(eng, "dba");
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  en_fixture_close(eng, ses);
  return 0;
}

static void expect_tag(const char *sql, const char *tag)
{
  en_result_t r;
  memset(&r, 0, sizeof r);
  if (en_run(ses, sql, &r) != CZ_OK)
    fail_msg("%s: %s %s", sql, r.rr_err.er_sqlstate, r.rr_err.er_msg);
  assert_string_equal(r.rr_tag, tag);
  en_result_free(&r);
}

static void test_rollback_to_keeps_earlier_work(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE t(a int PRIMARY KEY, b text)");
  en_exec(ses, "BEGIN");
  en_exec(ses, "INSERT INTO t VALUES (1, 'one')");
  expect_tag("SAVEPOINT s1", "SAVEPOINT");
  en_exec(ses, "INSERT INTO t VALUES (2, 'two')");
  en_exec(ses, "UPDATE t SET b = 'uno' WHERE a = 1");
  en_exec(ses, "DELETE FROM t WHERE a = 1");
  en_expect_rows(ses, "SELECT a, b FROM t ORDER BY a", "2|two");
  expect_tag("ROLLBACK TO SAVEPOINT s1", "ROLLBACK");
  assert_int_equal(esession_tx_status(ses), 'T');
  en_expect_rows(ses, "SELECT a, b FROM t ORDER BY a", "1|one");
  en_exec(ses, "INSERT INTO t VALUES (3, 'three')");
  /* ROLLBACK TO keeps the savepoint */
  expect_tag("ROLLBACK TO s1", "ROLLBACK");
  en_expect_rows(ses, "SELECT a FROM t ORDER BY a", "1");
  en_exec(ses, "INSERT INTO t VALUES (4, 'four')");
  expect_tag("RELEASE SAVEPOINT s1", "RELEASE");
  en_expect_error(ses, "ROLLBACK TO s1", "3B001");
  assert_int_equal(esession_tx_status(ses), 'E');
  en_exec(ses, "ROLLBACK");
  en_expect_rows(ses, "SELECT count(*) FROM t", "0");
  en_exec(ses, "BEGIN; INSERT INTO t VALUES (1, 'one'); SAVEPOINT x; INSERT INTO t VALUES (2, 'two'); "
               "ROLLBACK TO x; INSERT INTO t VALUES (3, 'three'); COMMIT");
  en_expect_rows(ses, "SELECT a FROM t ORDER BY a", "1\n3");
}

static void test_nested_and_repeated_names(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE t(a int)");
  en_exec(ses, "BEGIN");
  en_exec(ses, "SAVEPOINT a");
  en_exec(ses, "INSERT INTO t VALUES (1)");
  en_exec(ses, "SAVEPOINT a");  /* the newest of a name wins */
  en_exec(ses, "INSERT INTO t VALUES (2)");
  en_exec(ses, "SAVEPOINT b");
  en_exec(ses, "INSERT INTO t VALUES (3)");
  en_exec(ses, "ROLLBACK TO a");
  en_expect_rows(ses, "SELECT a FROM t ORDER BY a", "1");
  en_expect_error(ses, "RELEASE b", "3B001");  /* gone with the rollback to a */
  en_exec(ses, "ROLLBACK");
  en_exec(ses, "BEGIN");
  en_exec(ses, "SAVEPOINT a");
  en_exec(ses, "INSERT INTO t VALUES (1)");
  en_exec(ses, "SAVEPOINT a");
  en_exec(ses, "INSERT INTO t VALUES (2)");
  en_exec(ses, "RELEASE a");  /* the inner one: its work stays */
  en_expect_rows(ses, "SELECT a FROM t ORDER BY a", "1\n2");
  en_exec(ses, "ROLLBACK TO a");  /* the outer one */
  en_expect_rows(ses, "SELECT count(*) FROM t", "0");
  en_exec(ses, "SAVEPOINT c");
  en_exec(ses, "SAVEPOINT d");
  en_exec(ses, "INSERT INTO t VALUES (5)");
  en_exec(ses, "RELEASE c");  /* and every later one */
  en_expect_error(ses, "ROLLBACK TO d", "3B001");
  en_exec(ses, "ROLLBACK TO a");
  en_exec(ses, "INSERT INTO t VALUES (6)");
  en_exec(ses, "COMMIT");
  en_expect_rows(ses, "SELECT a FROM t", "6");
}

static void test_outside_block_and_unknown(void **state)
{
  (void)state;
  en_result_t r;
  memset(&r, 0, sizeof r);
  assert_int_equal(en_run(ses, "SAVEPOINT a", &r), CZ_ERR);
  assert_string_equal(r.rr_err.er_sqlstate, "25P01");
  assert_string_equal(r.rr_err.er_msg, "SAVEPOINT can only be used in transaction blocks");
  en_result_free(&r);
  en_expect_error(ses, "RELEASE a", "25P01");
  en_expect_error(ses, "ROLLBACK TO SAVEPOINT a", "25P01");
  assert_int_equal(esession_tx_status(ses), 'I');
  en_exec(ses, "BEGIN");
  en_expect_error(ses, "RELEASE SAVEPOINT nosuch", "3B001");
  assert_int_equal(esession_tx_status(ses), 'E');
  en_expect_error(ses, "SAVEPOINT a", "25P02");
  en_expect_error(ses, "RELEASE nosuch", "25P02");
  en_expect_error(ses, "ROLLBACK TO nosuch", "3B001");
  assert_int_equal(esession_tx_status(ses), 'E');
  en_exec(ses, "ROLLBACK");
  assert_int_equal(esession_tx_status(ses), 'I');
}

/* A failure undoes the failed statement only; ROLLBACK TO recovers the
 * block; without it the block ends rolled back. */
static void test_failed_statement_and_recovery(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE u(a int PRIMARY KEY)");
  en_exec(ses, "BEGIN");
  en_exec(ses, "INSERT INTO u VALUES (1)");
  en_exec(ses, "SAVEPOINT s");
  en_exec(ses, "INSERT INTO u VALUES (2)");
  en_expect_error(ses, "INSERT INTO u VALUES (3), (1)", "23505");  /* 3 went in first */
  assert_int_equal(esession_tx_status(ses), 'E');
  en_expect_error(ses, "SELECT 1", "25P02");
  en_exec(ses, "ROLLBACK TO s");
  assert_int_equal(esession_tx_status(ses), 'T');
  en_expect_rows(ses, "SELECT a FROM u ORDER BY a", "1");
  en_exec(ses, "INSERT INTO u VALUES (3)");  /* the failed statement's row is gone */
  en_expect_error(ses, "SELECT 1/0", "22012");
  en_exec(ses, "ROLLBACK TO s");
  en_exec(ses, "INSERT INTO u VALUES (2)");
  en_exec(ses, "COMMIT");
  en_expect_rows(ses, "SELECT a FROM u ORDER BY a", "1\n2");
  /* a failed block without ROLLBACK TO: COMMIT answers ROLLBACK */
  en_exec(ses, "BEGIN");
  en_exec(ses, "INSERT INTO u VALUES (10)");
  en_expect_error(ses, "INSERT INTO u VALUES (1)", "23505");
  expect_tag("COMMIT", "ROLLBACK");
  en_expect_rows(ses, "SELECT a FROM u ORDER BY a", "1\n2");
  /* a savepoint taken before the block's first change */
  en_exec(ses, "BEGIN");
  en_exec(ses, "SAVEPOINT first");
  en_expect_error(ses, "INSERT INTO u VALUES (5), (1)", "23505");
  en_exec(ses, "ROLLBACK TO first");
  en_exec(ses, "INSERT INTO u VALUES (5)");
  en_exec(ses, "COMMIT");
  en_expect_rows(ses, "SELECT a FROM u ORDER BY a", "1\n2\n5");
}

/* Another session sees only committed rows; a key whose change was rolled
 * back to a savepoint stays locked until the block ends. */
static void test_other_session(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE v(a int PRIMARY KEY, b int)");
  en_exec(ses, "INSERT INTO v VALUES (1, 10), (2, 20)");
  esession_t *other = en_test_session(eng, "dba");
  en_exec(ses, "BEGIN");
  en_exec(ses, "UPDATE v SET b = 11 WHERE a = 1");
  en_exec(ses, "SAVEPOINT s");
  en_exec(ses, "UPDATE v SET b = 12 WHERE a = 1");
  en_exec(ses, "UPDATE v SET b = 22 WHERE a = 2");
  en_expect_rows(other, "SELECT a, b FROM v ORDER BY a", "1|10\n2|20");
  en_exec(ses, "ROLLBACK TO s");
  en_expect_rows(other, "SELECT a, b FROM v ORDER BY a", "1|10\n2|20");
  en_expect_rows(ses, "SELECT a, b FROM v ORDER BY a", "1|11\n2|20");
  en_exec(ses, "COMMIT");
  en_expect_rows(other, "SELECT a, b FROM v ORDER BY a", "1|11\n2|20");
  en_exec(other, "UPDATE v SET b = 23 WHERE a = 2");  /* no 40001: nothing changed it */
  en_expect_rows(ses, "SELECT b FROM v WHERE a = 2", "23");
  /* a failed block without savepoints is undone at once: its locks go
   * (the other session's update would wait forever otherwise) */
  en_exec(ses, "BEGIN");
  en_exec(ses, "UPDATE v SET b = 13 WHERE a = 1");
  en_expect_error(ses, "SELECT 1/0", "22012");
  en_exec(other, "UPDATE v SET b = 14 WHERE a = 1");
  en_exec(ses, "ROLLBACK");
  en_expect_rows(ses, "SELECT b FROM v WHERE a = 1", "14");
  esession_close(other);
}

static void test_ddl_after_savepoint(void **state)
{
  (void)state;
  en_exec(ses, "BEGIN");
  en_exec(ses, "CREATE TABLE a(x int)");
  en_exec(ses, "INSERT INTO a VALUES (1)");
  en_exec(ses, "SAVEPOINT s");
  en_exec(ses, "CREATE TABLE b(y int)");
  en_exec(ses, "INSERT INTO b VALUES (2)");
  en_exec(ses, "DROP TABLE a");
  en_exec(ses, "ROLLBACK TO s");
  en_expect_error(ses, "SELECT y FROM b", "42P01");
  en_exec(ses, "ROLLBACK TO s");
  en_expect_rows(ses, "SELECT x FROM a", "1");
  en_exec(ses, "CREATE TABLE b(z text)");  /* the name is free again */
  en_exec(ses, "INSERT INTO b VALUES ('zz')");
  en_exec(ses, "SAVEPOINT t");
  en_expect_error(ses, "CREATE TABLE b(w int)", "42P07");
  en_exec(ses, "ROLLBACK TO t");
  en_exec(ses, "COMMIT");
  en_expect_rows(ses, "SELECT x FROM a", "1");
  en_expect_rows(ses, "SELECT z FROM b", "zz");
  /* and after a restart (the log replayed, then the catalog loaded) */
  esession_close(ses);
  err_t e;
  assert_int_equal(engine_close(eng, &e), CZ_OK);
  eng = en_test_reopen(db_name);
  ses = en_test_session(eng, "dba");
  en_expect_rows(ses, "SELECT x FROM a", "1");
  en_expect_rows(ses, "SELECT z FROM b", "zz");
}

/* Long values are written as chunks in the row's transaction: they
 * follow the row back to the mark. */
static void test_long_values(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE l(a int PRIMARY KEY, b text)");
  en_exec(ses, "INSERT INTO l VALUES (1, repeat('a', 100000))");
  en_exec(ses, "BEGIN");
  en_exec(ses, "SAVEPOINT s");
  en_exec(ses, "INSERT INTO l VALUES (2, repeat('b', 200000))");
  en_exec(ses, "UPDATE l SET b = repeat('c', 150000) WHERE a = 1");
  en_expect_rows(ses, "SELECT a, length(b), substr(b, 1, 1) FROM l ORDER BY a", "1|150000|c\n2|200000|b");
  en_exec(ses, "ROLLBACK TO s");
  en_expect_rows(ses, "SELECT a, length(b), substr(b, 1, 1) FROM l ORDER BY a", "1|100000|a");
  en_exec(ses, "INSERT INTO l VALUES (3, repeat('d', 120000))");
  en_exec(ses, "COMMIT");
  en_expect_rows(ses, "SELECT a, length(b), substr(b, 1, 1) FROM l ORDER BY a", "1|100000|a\n3|120000|d");
  esession_close(ses);
  err_t e;
  assert_int_equal(engine_close(eng, &e), CZ_OK);
  eng = en_test_reopen(db_name);
  ses = en_test_session(eng, "dba");
  en_expect_rows(ses, "SELECT a, length(b), substr(b, 1, 1) FROM l ORDER BY a", "1|100000|a\n3|120000|d");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_rollback_to_keeps_earlier_work, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nested_and_repeated_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_outside_block_and_unknown, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failed_statement_and_recovery, setup, teardown),
      cmocka_unit_test_setup_teardown(test_other_session, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ddl_after_savepoint, setup, teardown),
      cmocka_unit_test_setup_teardown(test_long_values, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
