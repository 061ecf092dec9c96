/* Regressions found by the sqllogictest corpus, the server tests and
 * clients: each test here failed before its fix (some only under the
 * sanitizers, as noted). */
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

static int setup(void **state)
{
  (void)state;
  en_fixture_open("fixes", &eng, &ses);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  en_fixture_close(eng, ses);
  return 0;
}

/* An untyped NULL used twice (BETWEEN compares it with both bounds) must
 * not be retyped by its first use: it was 42883 text <= integer. */
static void test_null_between(void **state)
{
  (void)state;
  en_expect_rows(ses, "SELECT NULL BETWEEN NULL AND 93", "NULL");
  en_expect_rows(ses, "SELECT NULL NOT BETWEEN 'a' AND 93", "NULL");
  en_expect_rows(ses, "SELECT 5 BETWEEN NULL AND 93, 5 NOT BETWEEN 1 AND NULL", "NULL|NULL");
  en_exec(ses, "CREATE TABLE nb(a int, b text)");
  en_exec(ses, "INSERT INTO nb VALUES (1, 'x'), (NULL, NULL)");
  en_expect_rows(ses, "SELECT count(*) FROM nb WHERE NULL BETWEEN a AND 93 OR b BETWEEN NULL AND 'z'",
                 "0");
  en_expect_rows(ses, "SELECT a FROM nb WHERE NULL NOT BETWEEN NULL AND a IS NULL ORDER BY a",
                 "1\nNULL");
}

/* A strict operator with a NULL constant operand is NULL without
 * evaluating the other side, and a condition that is constantly not true
 * runs nothing below it (PostgreSQL's constant folding and one-time
 * filter): these were division-by-zero and overflow errors. */
static void test_null_operand_folding(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE z(a int)");
  en_exec(ses, "INSERT INTO z VALUES (0), (1), (70000)");
  en_expect_rows(ses, "SELECT a FROM z WHERE a / 0 = NULL", "");
  en_expect_rows(ses, "SELECT count(*) FROM z WHERE NOT (a * a * a) > NULL", "0");
  en_expect_rows(ses, "SELECT a FROM z GROUP BY a HAVING NULL IN (a / a)", "");
  en_expect_rows(ses, "SELECT a FROM z WHERE a / a IS NOT NULL GROUP BY a HAVING NULL IS NOT NULL",
                 "");
  en_expect_rows(ses, "SELECT NULL + count(*), count(*) FROM z", "NULL|3");
  en_expect_rows(ses, "SELECT a IN (NULL), NULL::int IS NULL, NULL IS TRUE, NULL || 'x' FROM z WHERE a = 1",
              "NULL|t|f|NULL");
  en_expect_rows(ses, "SELECT NULL IN (1, a / 0) FROM z WHERE a = 0", "NULL");
  /* not folded: a NULL in a longer list, IS DISTINCT FROM, AND */
  en_expect_error(ses, "SELECT a IN (NULL, a / 0) FROM z", "22012");
  en_expect_rows(ses, "SELECT a IS DISTINCT FROM NULL, (a > 0 AND NULL) FROM z ORDER BY a",
              "t|f\nt|NULL\nt|NULL");
  char *plan = en_query(ses, "EXPLAIN SELECT a FROM z WHERE a / 0 = NULL");
  assert_non_null(strstr(plan, "Filter"));
  free(plan);
}

/* An explicit cast of a literal truncates to VARCHAR(n)/CHAR(n) (it was
 * 22001); assignment still fails. */
static void test_explicit_cast_of_literal_truncates(void **state)
{
  (void)state;
  en_expect_rows(ses, "SELECT 'abcd'::varchar(3), CAST('abcd' AS char(2)), 'ab'::char(4) || '|'",
              "abc|ab|ab|");
  en_expect_rows(ses, "SELECT '12.345'::numeric(5,2)", "12.35");
  en_exec(ses, "CREATE TABLE vc(v varchar(3))");
  en_expect_error(ses, "INSERT INTO vc VALUES ('abcd')", "22001");
  en_exec(ses, "INSERT INTO vc VALUES ('abcd'::varchar(3))");
  en_expect_rows(ses, "SELECT v FROM vc", "abc");
  en_expect_error(ses, "SELECT '1x'::numeric(5,2)", "22P02");
}

static int copy_collect(void *ctx, const char *data, size_t len, err_t *e)
{
  (void)e;
  char **buf = ctx;
  size_t old = *buf ? strlen(*buf) : 0;
  *buf = realloc(*buf, old + len + 1);
  memcpy(*buf + old, data, len);
  (*buf)[old + len] = '\0';
  return CZ_OK;
}

/* now() is one value for the whole statement, in every batch: COPY (query)
 * TO STDOUT used the clock for each batch. */
static void test_now_constant_in_statement(void **state)
{
  (void)state;
  en_expect_rows(ses, "SELECT count(DISTINCT now()), count(DISTINCT current_timestamp) "
              "FROM generate_series(1, 20000)",
              "1|1");
  err_t e;
  estmt_t *st;
  const char *sql = "COPY (SELECT now() FROM generate_series(1, 30000)) TO STDOUT";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  eportal_t *p;
  assert_int_equal(eportal_bind(st, NULL, 0, &p, &e), CZ_OK);
  char *out = NULL;
  assert_int_equal(eportal_copy_out(p, copy_collect, &out, &e), CZ_OK);
  assert_string_equal(eportal_tag(p), "COPY 30000");
  eportal_free(p);
  estmt_free(st);
  assert_non_null(out);
  char *nl = strchr(out, '\n');
  assert_non_null(nl);
  size_t line = (size_t)(nl - out) + 1;
  assert_int_equal(strlen(out), line * 30000);
  for (size_t i = line; i < strlen(out); i += line)
    if (memcmp(out, out + i, line) != 0)
      fail_msg("now() changed within the statement: %.*s vs %.*s", (int)line - 1, out,
               (int)line - 1, out + i);
  free(out);
}

/* Empty pieces: string_agg of empty strings and COPY of empty values
 * copied zero bytes from or to NULL (UBSan aborts before the fix). */
static void test_empty_strings_in_aggregates_and_copy(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE sa(k int, v text)");
  en_exec(ses, "INSERT INTO sa VALUES (1, ''), (1, ''), (2, 'a'), (2, ''), (2, 'b'), (3, NULL)");
  en_expect_rows(ses, "SELECT k, string_agg(v, ''), length(string_agg(v, ',')) FROM sa GROUP BY k ORDER BY k",
              "1||1\n2|ab|4\n3|NULL|NULL");
  en_expect_rows(ses, "SELECT string_agg(v, '') FROM sa WHERE k = 1", "");
  err_t e;
  estmt_t *st;
  const char *sql = "COPY sa FROM STDIN";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  eportal_t *p;
  assert_int_equal(eportal_bind(st, NULL, 0, &p, &e), CZ_OK);
  int ncols, format;
  assert_int_equal(eportal_copy_in_begin(p, &ncols, &format, &e), CZ_OK);
  assert_int_equal(eportal_copy_in_data(p, "", 0, &e), CZ_OK);
  assert_int_equal(eportal_copy_in_data(p, "4\t\n", 3, &e), CZ_OK);
  assert_int_equal(eportal_copy_in_done(p, &e), CZ_OK);
  eportal_free(p);
  estmt_free(st);
  sql = "COPY (SELECT v FROM sa WHERE k = 4) TO STDOUT";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  assert_int_equal(eportal_bind(st, NULL, 0, &p, &e), CZ_OK);
  char *out = NULL;
  assert_int_equal(eportal_copy_out(p, copy_collect, &out, &e), CZ_OK);
  assert_string_equal(out, "\n");
  free(out);
  eportal_free(p);
  estmt_free(st);
}

/* Runs sql as one simple-protocol Query: one implicit transaction. */
static int run_text(const char *sql, en_result_t *r)
{
  esession_begin_implicit(ses);
  int rc = en_run(ses, sql, r);
  err_t e;
  int end = esession_end_implicit(ses, rc == CZ_OK, &e);
  return rc == CZ_OK ? end : rc;
}

/* The statements of one Query commit or roll back together, unless the
 * text has its own BEGIN/COMMIT. */
static void test_multi_statement_text_is_one_transaction(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE mt(a int PRIMARY KEY)");
  en_result_t r = {0};
  /* the failure of the third statement undoes the first two */
  assert_int_equal(run_text("INSERT INTO mt VALUES (1); INSERT INTO mt VALUES (2); "
                            "INSERT INTO mt VALUES (1/0)",
                            &r),
                   CZ_ERR);
  assert_string_equal(r.rr_err.er_sqlstate, "22012");
  en_expect_rows(ses, "SELECT count(*) FROM mt", "0");
  assert_int_equal(esession_tx_status(ses), 'I');
  /* a later statement sees the earlier ones' rows; all committed at the end */
  assert_int_equal(run_text("INSERT INTO mt VALUES (1); INSERT INTO mt VALUES (2); "
                            "SELECT count(*) FROM mt",
                            &r),
                   CZ_OK);
  assert_string_equal(r.rr_rows, "2");
  en_expect_rows(ses, "SELECT count(*) FROM mt", "2");
  /* BEGIN takes the statements before it into its block; after COMMIT a
   * new implicit transaction starts, which the failure rolls back alone */
  assert_int_equal(run_text("INSERT INTO mt VALUES (3); BEGIN; INSERT INTO mt VALUES (4); COMMIT; "
                            "INSERT INTO mt VALUES (5); INSERT INTO mt VALUES (5)",
                            &r),
                   CZ_ERR);
  assert_string_equal(r.rr_err.er_sqlstate, "23505");
  en_expect_rows(ses, "SELECT a FROM mt ORDER BY a", "1\n2\n3\n4");
  /* a block left open by the text stays open */
  assert_int_equal(run_text("INSERT INTO mt VALUES (6); BEGIN; INSERT INTO mt VALUES (7)", &r), CZ_OK);
  assert_int_equal(esession_tx_status(ses), 'T');
  en_exec(ses, "ROLLBACK");
  en_expect_rows(ses, "SELECT a FROM mt ORDER BY a", "1\n2\n3\n4");
  /* outside a text, statements still commit one by one */
  en_expect_error(ses, "INSERT INTO mt VALUES (8); INSERT INTO mt VALUES (8)", "23505");
  en_expect_rows(ses, "SELECT count(*) FROM mt WHERE a = 8", "1");
  en_result_free(&r);
}

/* WITH (non-recursive): inlined where named, each name visible to the
 * later WITH queries and to subqueries. */
static void test_with_queries(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE w(a int, b text)");
  en_exec(ses, "INSERT INTO w VALUES (1, 'x'), (2, 'y'), (3, 'z')");
  en_expect_rows(ses, "WITH c AS (SELECT a, b FROM w WHERE a > 1) SELECT * FROM c ORDER BY a",
                 "2|y\n3|z");
  en_expect_rows(ses, "WITH c(n) AS (SELECT a FROM w), d AS (SELECT n * 10 AS m FROM c) "
              "SELECT m FROM d ORDER BY m DESC",
              "30\n20\n10");
  en_expect_rows(ses, "WITH c AS (SELECT 1 AS k) SELECT b FROM w WHERE a IN (SELECT k FROM c)",
                 "x");
  en_expect_rows(ses, "WITH c AS (SELECT a FROM w) SELECT (SELECT count(*) FROM c), count(*) FROM c x, c y",
              "3|9");
  en_expect_rows(ses, "SELECT v FROM (WITH q AS (SELECT 5 AS v) SELECT v FROM q) s", "5");
  en_exec(ses, "INSERT INTO w WITH q AS (SELECT 9 AS a, 'q' AS b) SELECT * FROM q");
  en_expect_rows(ses, "SELECT b FROM w WHERE a = 9", "q");
  /* a WITH name hides a table of the same name */
  en_expect_rows(ses, "WITH w AS (SELECT 7 AS a) SELECT a FROM w", "7");
  en_expect_error(ses, "WITH c AS (SELECT 1), c AS (SELECT 2) SELECT * FROM c", "42712");
  en_expect_error(ses, "WITH c(a, b) AS (SELECT 1) SELECT * FROM c", "42P10");
  en_expect_error(ses, "WITH d AS (SELECT * FROM c), c AS (SELECT 1) SELECT * FROM d", "42P01");
  en_expect_rows(ses, "WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r", "1");
  en_expect_rows(ses, "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n % 3 + 1 FROM r) "
                      "SELECT sum(n) FROM r", "6");
  en_expect_error(ses, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n FROM r, r s) "
                       "SELECT * FROM r", "42P19");
}

/* INSERT / UPDATE / DELETE … RETURNING, and INSERT with fewer VALUES than
 * columns. */
static void test_returning(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE r(id int PRIMARY KEY, v text DEFAULT 'd', n int)");
  en_result_t res = {0};
  assert_int_equal(en_run(ses, "INSERT INTO r VALUES (1, 'a', 10), (2, 'b', 20) RETURNING *", &res),
                   CZ_OK);
  assert_string_equal(res.rr_rows, "1|a|10\n2|b|20");
  assert_string_equal(res.rr_tag, "INSERT 0 2");
  en_expect_rows(ses, "INSERT INTO r(id) VALUES (3) RETURNING id, v || '!' AS vv, n", "3|d!|NULL");
  en_expect_rows(ses, "INSERT INTO r AS x (id, n) SELECT 4, 40 RETURNING x.id * 2", "8");
  en_expect_rows(ses, "INSERT INTO r VALUES (5) RETURNING 'lit', NULL, v", "lit|NULL|d");
  assert_int_equal(en_run(ses, "UPDATE r SET n = n + 1 WHERE id <= 2 RETURNING id, n, "
                               "(SELECT count(*) FROM r)",
                          &res),
                   CZ_OK);
  assert_string_equal(res.rr_rows, "1|11|5\n2|21|5");
  assert_string_equal(res.rr_tag, "UPDATE 2");
  assert_int_equal(en_run(ses, "DELETE FROM r WHERE id = 3 RETURNING *", &res), CZ_OK);
  assert_string_equal(res.rr_rows, "3|d|NULL");
  assert_string_equal(res.rr_tag, "DELETE 1");
  en_expect_rows(ses, "UPDATE r SET v = 'z' WHERE id = 99 RETURNING id", "");
  en_expect_error(ses, "DELETE FROM r WHERE id = 4 RETURNING count(*)", "42803");
  en_expect_rows(ses, "SELECT id, v, n FROM r ORDER BY id", "1|a|11\n2|b|21\n4|d|40\n5|d|NULL");
  char *plan = en_query(ses, "EXPLAIN UPDATE r SET n = 0 RETURNING id");
  assert_non_null(strstr(plan, "Update"));
  free(plan);
  en_result_free(&res);
}

/* INSERT … ON CONFLICT [(cols)] DO NOTHING */
static void test_on_conflict_do_nothing(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE oc(id int PRIMARY KEY, u text UNIQUE, n int)");
  en_exec(ses, "INSERT INTO oc VALUES (1, 'a', 1), (2, 'b', 2)");
  en_result_t res = {0};
  /* conflicts with stored rows, with an earlier row of the same statement,
   * and none for NULL keys */
  assert_int_equal(en_run(ses, "INSERT INTO oc VALUES (1, 'x', 0), (3, 'a', 0), (4, 'd', 4), "
                               "(4, 'e', 5), (5, NULL, 5), (6, NULL, 6) ON CONFLICT DO NOTHING",
                          &res),
                   CZ_OK);
  assert_string_equal(res.rr_tag, "INSERT 0 3");
  /* with a target, only that index is the arbiter */
  en_expect_error(ses, "INSERT INTO oc VALUES (1, 'y', 0), (7, 'b', 7) ON CONFLICT (id) DO NOTHING",
                  "23505");
  en_expect_rows(ses, "INSERT INTO oc VALUES (1, 'y', 0), (7, 'g', 7) ON CONFLICT (id) DO NOTHING "
              "RETURNING id",
              "7");
  en_expect_rows(ses, "INSERT INTO oc VALUES (8, 'a', 8) ON CONFLICT (u) DO NOTHING RETURNING id",
                 "");
  en_expect_error(ses, "INSERT INTO oc VALUES (9, 'z', 9) ON CONFLICT (n) DO NOTHING", "42P10");
  en_expect_rows(ses, "SELECT id, u FROM oc ORDER BY id", "1|a\n2|b\n4|d\n5|NULL\n6|NULL\n7|g");
  char *plan = en_query(ses, "EXPLAIN INSERT INTO oc VALUES (1) ON CONFLICT DO NOTHING");
  assert_non_null(strstr(plan, "on conflict do nothing"));
  free(plan);
  en_result_free(&res);
}

/* DECLARE / FETCH / MOVE / CLOSE (read outside the parser), as psycopg's
 * server-side cursors use them. */
static void test_cursors(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE cu(a int)");
  en_exec(ses, "INSERT INTO cu SELECT * FROM generate_series(1, 10)");
  en_expect_error(ses, "DECLARE c CURSOR FOR SELECT a FROM cu", "25P01");
  en_exec(ses, "BEGIN");
  en_result_t r = {0};
  assert_int_equal(en_run(ses, "DECLARE c CURSOR FOR SELECT a FROM cu ORDER BY a", &r), CZ_OK);
  assert_string_equal(r.rr_tag, "DECLARE CURSOR");
  assert_int_equal(en_run(ses, "FETCH 3 FROM c", &r), CZ_OK);
  assert_string_equal(r.rr_rows, "1\n2\n3");
  assert_string_equal(r.rr_tag, "FETCH 3");
  en_expect_rows(ses, "FETCH NEXT c", "4");
  assert_int_equal(en_run(ses, "MOVE 2 IN c", &r), CZ_OK);
  assert_string_equal(r.rr_tag, "MOVE 2");
  en_expect_rows(ses, "/* psycopg */ FETCH FORWARD 2 FROM \"c\"; FETCH ALL c", "9\n10");
  assert_int_equal(en_run(ses, "FETCH c", &r), CZ_OK);
  assert_string_equal(r.rr_tag, "FETCH 0");
  /* parameters of the query, a quoted name, the statement's columns */
  const char *sql = "DECLARE \"Big\" NO SCROLL CURSOR WITHOUT HOLD FOR SELECT a * $1 AS x FROM cu "
                    "WHERE a > 8 ORDER BY a";
  err_t e;
  estmt_t *st;
  uint32_t int4 = 23;
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), &int4, 1, &st, &e), CZ_OK);
  eparam_t prm = {.ep_data = (const uint8_t *)"100", .ep_len = 3, .ep_format = 0};
  eportal_t *p;
  assert_int_equal(eportal_bind(st, &prm, 1, &p, &e), CZ_OK);
  bool susp;
  assert_int_equal(eportal_execute(p, 0, NULL, NULL, &susp, &e), CZ_OK);
  eportal_free(p);
  estmt_free(st);  /* the cursor keeps what it needs */
  const estmt_t *cs = esession_cursor_stmt(ses, "Big");
  assert_non_null(cs);
  const ecol_t *cols;
  int ncols;
  estmt_columns(cs, &cols, &ncols);
  assert_int_equal(ncols, 1);
  assert_string_equal(cols[0].ec_name, "x");
  en_expect_rows(ses, "FETCH ALL FROM \"Big\"", "900\n1000");
  en_exec(ses, "CLOSE \"Big\"");
  assert_null(esession_cursor_stmt(ses, "Big"));
  en_expect_error(ses, "FETCH \"Big\"", "34000");
  en_exec(ses, "ROLLBACK");
  /* cursors end with their block; a failure in a FETCH fails the block */
  en_exec(ses, "BEGIN; DECLARE k CURSOR FOR SELECT a FROM cu; COMMIT");
  assert_null(esession_cursor_stmt(ses, "k"));
  en_exec(ses, "BEGIN; DECLARE z CURSOR FOR SELECT 1 / (a - 5) FROM cu ORDER BY a");
  en_expect_error(ses, "FETCH ALL z", "22012");
  assert_int_equal(esession_tx_status(ses), 'E');
  en_expect_error(ses, "CLOSE z", "25P02");
  en_exec(ses, "ROLLBACK");
  en_exec(ses, "BEGIN");
  en_exec(ses, "DECLARE a1 CURSOR FOR SELECT 1");
  en_expect_error(ses, "DECLARE a1 CURSOR FOR SELECT 2", "42P03");
  en_exec(ses, "ROLLBACK; BEGIN");
  en_expect_error(ses, "DECLARE b1 CURSOR FOR INSERT INTO cu VALUES (1)", "42601");
  en_exec(ses, "ROLLBACK; BEGIN");
  en_expect_error(ses, "DECLARE b2 CURSOR WITH HOLD FOR SELECT 1", "0A000");
  en_exec(ses, "ROLLBACK; BEGIN; DECLARE b3 CURSOR FOR SELECT 1");
  en_expect_error(ses, "FETCH BACKWARD 1 FROM b3", "0A000");
  en_exec(ses, "ROLLBACK; BEGIN; DECLARE b4 CURSOR FOR SELECT 1; DECLARE b5 CURSOR FOR SELECT 2; "
               "CLOSE ALL");
  assert_null(esession_cursor_stmt(ses, "b4"));
  en_exec(ses, "ROLLBACK");
  /* the parser's error stands for a text without cursor statements */
  en_expect_error(ses, "SELEC 1", "42601");
  en_result_free(&r);
}

/* A COPY FROM STDIN portal freed before CopyDone or CopyFail (a client
 * of engine.h that gives up): the copy is failed with it, so its rows are
 * rolled back with its implicit transaction and the session goes on. It
 * crashed: the running portal was closed as if it ran a plan. */
static void test_copy_in_portal_freed_unfinished(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE cf(a int)");
  err_t e;
  estmt_t *st;
  const char *sql = "COPY cf FROM STDIN";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  eportal_t *p;
  assert_int_equal(eportal_bind(st, NULL, 0, &p, &e), CZ_OK);
  int ncols, format;
  assert_int_equal(eportal_copy_in_begin(p, &ncols, &format, &e), CZ_OK);
  assert_int_equal(eportal_copy_in_data(p, "1\n2\n", 4, &e), CZ_OK);
  eportal_free(p);
  estmt_free(st);
  assert_int_equal(esession_tx_status(ses), 'I');
  en_expect_rows(ses, "SELECT count(*) FROM cf", "0");
  en_exec(ses, "INSERT INTO cf VALUES (3)");
  en_expect_rows(ses, "SELECT a FROM cf", "3");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_null_between, setup, teardown),
      cmocka_unit_test_setup_teardown(test_null_operand_folding, setup, teardown),
      cmocka_unit_test_setup_teardown(test_explicit_cast_of_literal_truncates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_now_constant_in_statement, setup, teardown),
      cmocka_unit_test_setup_teardown(test_empty_strings_in_aggregates_and_copy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_multi_statement_text_is_one_transaction, setup, teardown),
      cmocka_unit_test_setup_teardown(test_with_queries, setup, teardown),
      cmocka_unit_test_setup_teardown(test_returning, setup, teardown),
      cmocka_unit_test_setup_teardown(test_on_conflict_do_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cursors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_copy_in_portal_freed_unfinished, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
