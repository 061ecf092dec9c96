/* UPDATE and DELETE read only the columns they use: the target scan
 * returns the locator and the columns of WHERE, SET and RETURNING, and
 * UPDATE hands the table layer only the columns it sets, so long values
 * of the other columns are neither read nor rewritten (the counters of
 * tbl_get_stats show it); results and constraints are unchanged.
 * Also named table constraints (CONSTRAINT name UNIQUE / PRIMARY KEY)
 * and WITH before INSERT / UPDATE / DELETE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "en_run.h"
#include "table/table.h"

static engine_t *eng;
static esession_t *ses;

static int setup(void **state)
{
  (void)state;
  en_fixture_open("dml", &eng, &ses);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  en_fixture_close(eng, ses);
  return 0;
}

/* Long-value counters read by running sql (rows checked when want). */
static tbl_stats_t run_counted(const char *sql, const char *want)
{
  tbl_stats_t s0, s1, d;
  tbl_get_stats(&s0);
  char *got = en_query(ses, sql);
  tbl_get_stats(&s1);
  if (want && strcmp(got, want) != 0)
    fail_msg("%s\n got: [%s]\nwant: [%s]", sql, got, want);
  free(got);
  d.ts_long_stored = s1.ts_long_stored - s0.ts_long_stored;
  d.ts_long_fetched = s1.ts_long_fetched - s0.ts_long_fetched;
  d.ts_long_chunks = s1.ts_long_chunks - s0.ts_long_chunks;
  d.ts_long_rereads = s1.ts_long_rereads - s0.ts_long_rereads;
  return d;
}

/* sql must read and write no long value. */
static void expect_no_long_io(const char *sql, const char *want)
{
  tbl_stats_t d = run_counted(sql, want);
  if (d.ts_long_chunks || d.ts_long_fetched || d.ts_long_stored)
    fail_msg("%s: %llu chunks read, %llu values rebuilt, %llu stored", sql,
             (unsigned long long)d.ts_long_chunks, (unsigned long long)d.ts_long_fetched,
             (unsigned long long)d.ts_long_stored);
}

static void make_docs(void)
{
  en_exec(ses, "CREATE TABLE docs (id int PRIMARY KEY, n int, title text, body text, "
               "note text)");
  en_exec(ses, "CREATE UNIQUE INDEX docs_title ON docs (title)");
  en_exec(ses, "CREATE INDEX docs_n ON docs (n)");
  en_exec(ses, "INSERT INTO docs SELECT g, g, chr(96 + g), repeat(chr(64 + g), 1000000), "
               "repeat('n', 5000) FROM generate_series(1, 3) g");
}

/* The documents, checked through their lengths and first letters. */
static const char *docs_sql = "SELECT id, n, title, length(body), substr(body, 1, 2), "
                              "length(note) FROM docs ORDER BY id";

static void test_update_reads_no_untouched_long_value(void **state)
{
  (void)state;
  make_docs();
  expect_no_long_io("UPDATE docs SET n = n + 1", "");
  en_expect_rows(ses, docs_sql,
                 "1|2|a|1000000|AA|5000\n2|3|b|1000000|BB|5000\n3|4|c|1000000|CC|5000");
  /* through the secondary index on title, and moving the primary key
   * (the statement does not see the rows it moved) */
  expect_no_long_io("UPDATE docs SET n = n * 10 WHERE title = 'b'", "");
  expect_no_long_io("UPDATE docs SET id = id + 10", "");
  en_expect_rows(ses, docs_sql,
                 "11|2|a|1000000|AA|5000\n12|30|b|1000000|BB|5000\n13|4|c|1000000|CC|5000");
  /* RETURNING of set and unset short columns */
  expect_no_long_io("UPDATE docs SET title = title || 'x' WHERE n < 10 RETURNING id, n, title",
                    "11|2|ax\n13|4|cx");
  /* the index on the changed column is maintained; the other one too */
  en_expect_rows(ses, "SELECT id FROM docs WHERE title = 'cx'", "13");
  en_expect_rows(ses, "SELECT id FROM docs WHERE title = 'c'", "");
  en_expect_rows(ses, "SELECT id FROM docs WHERE n = 30", "12");
  /* a unique violation on the set column leaves everything as it was */
  en_expect_error(ses, "UPDATE docs SET title = 'b', n = 0 WHERE id = 13", "23505");
  en_expect_rows(ses, docs_sql,
                 "11|2|ax|1000000|AA|5000\n12|30|b|1000000|BB|5000\n13|4|cx|1000000|CC|5000");
  /* a long column that is read (WHERE, SET, RETURNING) is fetched */
  tbl_stats_t d = run_counted("UPDATE docs SET n = n + 100 WHERE length(body) > 10", NULL);
  assert_true(d.ts_long_fetched >= 3);
  d = run_counted("UPDATE docs SET n = n - 100 RETURNING length(note)", "5000\n5000\n5000");
  assert_true(d.ts_long_fetched >= 3);
  assert_int_equal(d.ts_long_stored, 0);
  /* setting a long column rewrites that column only */
  d = run_counted("UPDATE docs SET note = repeat('m', 3000) WHERE id = 12", "");
  assert_int_equal(d.ts_long_stored, 1);
  assert_int_equal(d.ts_long_chunks, 0);
  en_expect_rows(ses, docs_sql,
                 "11|2|ax|1000000|AA|5000\n12|30|b|1000000|BB|3000\n13|4|cx|1000000|CC|5000");
  /* SET from another column, a correlated subquery in WHERE */
  en_exec(ses, "CREATE TABLE pick (t text)");
  en_exec(ses, "INSERT INTO pick VALUES ('ax'), ('b')");
  expect_no_long_io("UPDATE docs SET title = upper(title), n = -id WHERE EXISTS "
                    "(SELECT 1 FROM pick WHERE pick.t = docs.title)",
                    "");
  en_expect_rows(ses, docs_sql,
              "11|-11|AX|1000000|AA|5000\n12|-12|B|1000000|BB|3000\n13|4|cx|1000000|CC|5000");
  /* rolled back: the old values come back */
  en_exec(ses, "BEGIN");
  expect_no_long_io("UPDATE docs SET n = n + 1000", "");
  expect_no_long_io("UPDATE docs SET n = 0", "");  /* the scan reads the locator only */
  en_expect_rows(ses, "SELECT count(*) FROM docs WHERE n = 0", "3");
  en_exec(ses, "ROLLBACK");
  en_expect_rows(ses, "SELECT n, length(body) FROM docs ORDER BY id",
                 "-11|1000000\n-12|1000000\n4|1000000");
}

static void test_delete_reads_no_long_value(void **state)
{
  (void)state;
  make_docs();
  expect_no_long_io("DELETE FROM docs WHERE n = 2", "");
  expect_no_long_io("DELETE FROM docs WHERE title = 'c' RETURNING id, n", "3|3");
  en_expect_rows(ses, docs_sql, "1|1|a|1000000|AA|5000");
  en_exec(ses, "INSERT INTO docs VALUES (5, 5, 'e', repeat('E', 20000), 'x')");
  /* RETURNING a long column reads it */
  tbl_stats_t d = run_counted("DELETE FROM docs WHERE id = 5 RETURNING substr(body, 1, 3)", "EEE");
  assert_true(d.ts_long_fetched >= 1);
  expect_no_long_io("DELETE FROM docs", "");
  en_expect_rows(ses, "SELECT count(*) FROM docs", "0");
  en_expect_rows(ses, "SELECT id FROM docs WHERE title = 'a'", "");
}

/* CONSTRAINT name UNIQUE / PRIMARY KEY names the index (the constraint),
 * as PostgreSQL does; unnamed ones keep t_pkey / t_col_key. */
static void test_named_constraints(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE t (a int, b int, c int, CONSTRAINT bu UNIQUE (b), "
               "CONSTRAINT pk PRIMARY KEY (a), UNIQUE (c))");
  en_exec(ses, "INSERT INTO t VALUES (1, 1, 1)");
  en_result_t r;
  memset(&r, 0, sizeof(r));
  assert_int_equal(en_run(ses, "INSERT INTO t VALUES (2, 1, 2)", &r), CZ_ERR);
  assert_string_equal(r.rr_err.er_sqlstate, "23505");
  assert_non_null(strstr(r.rr_err.er_msg, "\"bu\""));
  en_result_free(&r);
  assert_int_equal(en_run(ses, "INSERT INTO t VALUES (1, 2, 2)", &r), CZ_ERR);
  assert_non_null(strstr(r.rr_err.er_msg, "\"pk\""));
  en_result_free(&r);
  assert_int_equal(en_run(ses, "INSERT INTO t VALUES (2, 2, 1)", &r), CZ_ERR);
  assert_non_null(strstr(r.rr_err.er_msg, "\"t_c_key\""));
  en_result_free(&r);
  en_expect_rows(ses, "SELECT indexname FROM pg_indexes WHERE tablename = 't' ORDER BY indexname",
              "bu\npk\nt_c_key");
  /* the name is taken: a second relation of that name is 42P07 */
  en_expect_error(ses, "CREATE TABLE u (a int, CONSTRAINT bu UNIQUE (a))", "42P07");
  en_exec(ses, "CREATE TABLE v (a int PRIMARY KEY, b int UNIQUE)");
  en_expect_rows(ses, "SELECT indexname FROM pg_indexes WHERE tablename = 'v' ORDER BY indexname",
              "v_b_key\nv_pkey");
  /* column constraints are named the same way */
  en_exec(ses, "CREATE TABLE x (a int CONSTRAINT x_id PRIMARY KEY, "
               "b int CONSTRAINT x_b_unique UNIQUE, c int UNIQUE)");
  en_expect_rows(ses, "SELECT indexname FROM pg_indexes WHERE tablename = 'x' ORDER BY indexname",
              "x_b_unique\nx_c_key\nx_id");
  en_expect_error(ses, "INSERT INTO x VALUES (1, 1, 1), (1, 2, 2)", "23505");
}

/* WITH before INSERT, UPDATE and DELETE: the queries are in force for
 * the whole statement (its query, WHERE and SET subqueries, RETURNING). */
static void test_with_before_dml(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE w (a int PRIMARY KEY, b text)");
  en_result_t r;
  memset(&r, 0, sizeof(r));
  assert_int_equal(en_run(ses, "WITH v AS (SELECT g FROM generate_series(1, 3) g) "
                               "INSERT INTO w SELECT g, 'x' || g FROM v", &r), CZ_OK);
  assert_string_equal(r.rr_tag, "INSERT 0 3");
  en_result_free(&r);
  en_expect_rows(ses, "WITH v AS (SELECT 10 AS k) INSERT INTO w VALUES ((SELECT k FROM v), 'ten') "
              "RETURNING a, b",
              "10|ten");
  en_expect_rows(ses, "WITH big AS (SELECT a FROM w WHERE a >= 2), tag AS (SELECT 'big' AS t) "
              "UPDATE w SET b = (SELECT t FROM tag) WHERE a IN (SELECT a FROM big) "
              "RETURNING a, b",
              "2|big\n3|big\n10|big");
  en_expect_rows(ses, "WITH one AS (SELECT 1 AS k) DELETE FROM w WHERE a = (SELECT k FROM one) "
              "RETURNING a, b",
              "1|x1");
  char *plan = en_query(ses, "EXPLAIN WITH v AS (SELECT 2 AS k) DELETE FROM w "
                             "WHERE a IN (SELECT k FROM v)");
  assert_non_null(strstr(plan, "Delete"));
  free(plan);
  en_expect_rows(ses, "SELECT a, b FROM w ORDER BY a", "2|big\n3|big\n10|big");
  en_expect_error(ses, "WITH x AS (SELECT 1), x AS (SELECT 2) DELETE FROM w", "42712");
  en_expect_error(ses, "WITH RECURSIVE x AS (SELECT * FROM x) DELETE FROM w", "42P19");
  en_expect_rows(ses, "WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM x "
                      "WHERE n < 3) DELETE FROM w WHERE a IN (SELECT n FROM x) RETURNING a",
                 "2\n3");
  en_expect_error(ses, "WITH v AS (SELECT 1) UPDATE w SET b = k", "42703");
  /* the names are the statement's only */
  en_expect_error(ses, "SELECT * FROM v", "42P01");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_update_reads_no_untouched_long_value, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete_reads_no_long_value, setup, teardown),
      cmocka_unit_test_setup_teardown(test_named_constraints, setup, teardown),
      cmocka_unit_test_setup_teardown(test_with_before_dml, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
