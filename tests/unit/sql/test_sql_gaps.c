/* test_sql_gaps — grammar gaps closed after the first cut: ASC / DESC /
 * NULLS per CREATE INDEX key, `^`, the ~~ family, left() and right(),
 * LIKE … ESCAPE, SIMILAR TO, INTERVAL literals, string continuation across lines,
 * DROP … CASCADE | RESTRICT, CREATE INDEX … USING btree, named
 * constraints, ::interval, BETWEEN SYMMETRIC, TABLE t, FROM ONLY,
 * dollar-quoted strings; each as its printed tree and its AST
 * fields, the errors around them, and every TPC-H query parsing (read
 * from /work/shared/tools/sql/tpch/queries, or $CZ_TPCH_QUERIES; skipped
 * when absent, never copied).
 */
#include <dirent.h>
#include <stdlib.h>

#include "sql_test.h"

#define SQLT_TPCH_DIR "/work/shared/tools/sql/tpch/queries"

static void sqlt_s(arena_t *a, const char *in, const char *want)
{
  const char *got = sqlt_stmt(a, in);
  if (strcmp(got, want) != 0)
    fprintf(stderr, "input: %s\n  want: %s\n  got:  %s\n", in, want, got);
  assert_string_equal(got, want);
}

static void test_index_order(void **state)
{
  arena_t *a = *state;
  sqlt_s(a, "CREATE INDEX i ON t (a)", "(create-index i t (a))");
  sqlt_s(a, "CREATE INDEX i ON t (a ASC)", "(create-index i t (a))");
  sqlt_s(a, "CREATE UNIQUE INDEX i ON t (a DESC, b ASC, c DESC NULLS FIRST, d NULLS LAST)",
         "(create-index unique i t ((desc a) b (desc c nulls-first) (asc d nulls-last)))");
  sqlt_s(a, "CREATE INDEX IF NOT EXISTS i ON s.t (a DESC) INCLUDE (b)",
         "(create-index if-not-exists i s.t ((desc a)) (include (b)))");
  sqlt_s(a, "CREATE INDEX ON t (\"A\" DESC)", "(create-index - t ((desc \"A\")))");
  /* the AST: names in ci_columns as before, orders in ci_keys beside them */
  sql_stmt_list_t *l = sqlt_parse(a, "CREATE INDEX i ON t (x DESC, y, z ASC NULLS FIRST)");
  const sql_create_index_t *ci = l->sl_stmts[0]->st_create_index;
  assert_int_equal(sql_list_len(ci->ci_columns), 3);
  assert_int_equal(sql_list_len(ci->ci_keys), 3);
  const char *names[] = {"x", "y", "z"};
  const bool desc[] = {true, false, false};
  const int nulls[] = {SQL_NULLS_DEFAULT, SQL_NULLS_DEFAULT, SQL_NULLS_FIRST};
  for (int i = 0; i < 3; i++) {
    const sql_order_t *o = sql_list_at(ci->ci_keys, i);
    assert_string_equal(sql_list_at(ci->ci_columns, i), names[i]);
    assert_int_equal(o->or_expr->ex_kind, SQL_E_COLUMN);
    assert_string_equal(o->or_expr->ex_name, names[i]);
    assert_int_equal(o->or_desc, desc[i]);
    assert_int_equal(o->or_nulls, nulls[i]);
  }
  assert_int_equal(((const sql_order_t *)sql_list_at(ci->ci_keys, 1))->or_expr->ex_pos, 30);
  sqlt_err(a, "CREATE INDEX i ON t (a DESC DESC)", "42601", 29);
  sqlt_err(a, "CREATE INDEX i ON t (a NULLS)", "42601", 29);
}

static void test_power(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "2 ^ 3", "(^ 2 3)");
  /* left-associative, as PostgreSQL's */
  sqlt_x(a, "2 ^ 3 ^ 2", "(^ (^ 2 3) 2)");
  /* above * / %, below unary minus (-2 ^ 2 is 4 in PostgreSQL) */
  sqlt_x(a, "a * b ^ c", "(* a (^ b c))");
  sqlt_x(a, "a ^ b * c", "(* (^ a b) c)");
  sqlt_x(a, "a + b ^ c % d", "(+ a (% (^ b c) d))");
  sqlt_x(a, "-2 ^ 2", "(^ -2 2)");
  sqlt_x(a, "-a ^ 2", "(^ (neg a) 2)");
  sqlt_x(a, "a ^ b::int", "(^ a (cast b int4))");
  sqlt_x(a, "a^b", "(^ a b)");
  /* in b_expr (BETWEEN's bounds) and as an ANY operator */
  sqlt_x(a, "x BETWEEN 2 ^ 2 AND 3", "(between x (^ 2 2) 3)");
  sqlt_x(a, "a OPERATOR(pg_catalog.^) b", "(^ a b)");
  sqlt_err(a, "SELECT 2 ^", "42601", 11);
}

static void test_like_operators(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "a ~~ 'x%'", "(like a 'x%')");
  sqlt_x(a, "a !~~ 'x%'", "(not-like a 'x%')");
  sqlt_x(a, "a ~~* 'x%'", "(ilike a 'x%')");
  sqlt_x(a, "a !~~* 'x%'", "(not-ilike a 'x%')");
  sqlt_x(a, "a~~b", "(like a b)");
  sqlt_x(a, "a ~~ ANY (ARRAY['x', 'y'])", "(any like a (array 'x' 'y'))");
  sqlt_x(a, "a ~ 'x'", "(~ a 'x')");
  sqlt_x(a, "a !~* 'x'", "(!~* a 'x')");
  /* like the other operators (OP), above comparisons */
  sqlt_x(a, "a ~~ b = c", "(= (like a b) c)");
  sqlt_err(a, "SELECT a ~~~ b", "42883", 0);  /* one operator, as PostgreSQL lexes it */
  /* the integers' bit operators, PostgreSQL's generic precedence */
  sqlt_x(a, "a & b | c", "(| (& a b) c)");
  sqlt_x(a, "a + b << c", "(<< (+ a b) c)");
  sqlt_x(a, "~a # b", "(# (~ a) b)");
  sqlt_x(a, "(f(x)).y", "(field (f x) y)");
}

static void test_like_escape(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "a LIKE 'x!%' ESCAPE '!'", "(like a 'x!%' (escape '!'))");
  sqlt_x(a, "a NOT LIKE 'x!%' ESCAPE '!'", "(not-like a 'x!%' (escape '!'))");
  sqlt_x(a, "a ILIKE 'x#_' ESCAPE '#'", "(ilike a 'x#_' (escape '#'))");
  sqlt_x(a, "a NOT ILIKE b ESCAPE c", "(not-ilike a b (escape c))");
  sqlt_x(a, "a LIKE b ESCAPE '' AND c", "(and (like a b (escape '')) c)");
  sqlt_x(a, "a LIKE b || c ESCAPE d || e", "(like a (|| b c) (escape (|| d e)))");
  sqlt_x(a, "NOT a LIKE b ESCAPE c", "(not (like a b (escape c)))");
  sqlt_x(a, "a LIKE b", "(like a b)");
  sql_stmt_list_t *l = sqlt_parse(a, "SELECT a LIKE 'p' ESCAPE '$'");
  const sql_target_t *t = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 0);
  assert_int_equal(t->tg_expr->ex_op, SQL_OP_LIKE);
  assert_non_null(t->tg_expr->ex_third);
  assert_string_equal(t->tg_expr->ex_third->ex_text, "$");
  sqlt_err(a, "SELECT a LIKE b ESCAPE", "42601", 23);
  sqlt_err(a, "SELECT a = b ESCAPE c", "42601", 14);
  /* ESCAPE stays a name elsewhere */
  sqlt_s(a, "SELECT escape FROM t", "(select (escape) (from t))");
}

static void test_similar_to(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "a SIMILAR TO 'x%'", "(similar-to a 'x%')");
  sqlt_x(a, "a NOT SIMILAR TO 'x%'", "(not-similar-to a 'x%')");
  sqlt_x(a, "a SIMILAR TO 'x#%' ESCAPE '#'", "(similar-to a 'x#%' (escape '#'))");
  sqlt_x(a, "a NOT SIMILAR TO b ESCAPE c", "(not-similar-to a b (escape c))");
  /* the precedence of LIKE: below ||, above comparisons' operands' AND */
  sqlt_x(a, "a || b SIMILAR TO c AND d", "(and (similar-to (|| a b) c) d)");
  sqlt_x(a, "a = b NOT SIMILAR TO c", "(= a (not-similar-to b c))");
  sql_stmt_list_t *l = sqlt_parse(a, "SELECT a NOT SIMILAR TO 'p'");
  const sql_target_t *t = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 0);
  assert_int_equal(t->tg_expr->ex_op, SQL_OP_SIMILAR);
  assert_true(t->tg_expr->ex_not);
  assert_null(t->tg_expr->ex_third);
  assert_int_equal(t->tg_expr->ex_pos, 10);
  sqlt_err(a, "SELECT a SIMILAR 'x'", "42601", 18);
  sqlt_err(a, "SELECT similar FROM t", "42601", 8);
}

static void test_left_right(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "left(s, 2)", "(left s 2)");
  sqlt_x(a, "right('abc', n + 1)", "(right 'abc' (+ n 1))");
  sqlt_x(a, "LEFT(s, 2) || RIGHT(s, 1)", "(|| (left s 2) (right s 1))");
  /* the join keywords still join */
  sqlt_s(a, "SELECT left(a.x, 1) FROM a LEFT JOIN b ON a.i = b.i RIGHT JOIN c ON true",
         "(select ((left a.x 1)) (from (join right (join left a b (on (= a.i b.i))) c (on "
         "true))))");
  sqlt_s(a, "SELECT * FROM left(s, 1) AS f", "(select (*) (from (as (left s 1) f)))");
  sqlt_err(a, "SELECT left FROM t", "42601", 13);
}

static void test_interval(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "INTERVAL '1 day'", "(interval '1 day')");
  sqlt_x(a, "interval '90' day", "(interval day '90')");
  sqlt_x(a, "interval '3' MONTH", "(interval month '3')");
  sqlt_x(a, "interval '90' day (3)", "(interval day '90')");
  sqlt_x(a, "interval '1' day to second (3)", "(interval day to second(3) '1')");
  sqlt_x(a, "interval (2) '1.234'", "(interval(2) '1.234')");
  sqlt_x(a, "interval '1-2' year to month", "(interval year to month '1-2')");
  sqlt_x(a, "date '1998-12-01' - interval '90' day",
         "(- (date '1998-12-01') (interval day '90'))");
  sqlt_x(a, "d + interval '1' year < e", "(< (+ d (interval year '1')) e)");
  /* the type: in casts and column definitions, with its fields */
  sqlt_x(a, "x::interval", "(cast x interval)");
  sqlt_x(a, "CAST(x AS interval minute to second)", "(cast x interval minute to second)");
  sqlt_x(a, "x::interval(3)", "(cast x interval(3))");
  sql_stmt_list_t *l = sqlt_parse(a, "SELECT INTERVAL '2' hour");
  const sql_target_t *t = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 0);
  assert_int_equal(t->tg_expr->ex_kind, SQL_E_LITERAL);
  assert_int_equal(t->tg_expr->ex_lit, SQL_LIT_TYPED);
  assert_int_equal(t->tg_expr->ex_type.ty_id, SQL_TYPE_INTERVAL);
  assert_int_equal(t->tg_expr->ex_type.ty_scale, SQL_IV_F_HOUR);
  assert_string_equal(t->tg_expr->ex_text, "2");
  assert_int_equal(t->tg_expr->ex_pos, 8);
  /* the unit words are units only right after INTERVAL ['text'] */
  sqlt_s(a, "SELECT extract(year FROM d) year, day FROM t",
         "(select ((as (extract 'year' d) year) day) (from t))");
  sqlt_s(a, "SELECT interval '1 day' AS d", "(select ((as (interval '1 day') d)))");
  sqlt_s(a, "SELECT date '2020-01-01' day", "(select ((as (date '2020-01-01') day)))");
  /* quoted, the word is an alias again: INTERVAL '1' "day" */
  sqlt_s(a, "SELECT interval '1' \"day\"", "(select ((as (interval '1') day)))");
  /* INTERVAL is a col_name keyword (PostgreSQL's): a column, never a
   * function or the start of anything but a literal or a type */
  sqlt_s(a, "SELECT interval FROM t", "(select (interval) (from t))");
  sqlt_s(a, "SELECT t.interval + interval '1 day' FROM t",
         "(select ((+ t.interval (interval '1 day'))) (from t))");
  sqlt_err(a, "SELECT interval 5", "42601", 17);
  sqlt_err(a, "SELECT interval '1' day (x)", "42601", 26);
  sqlt_err(a, "SELECT interval '1' month to day", "42601", 21);
}

static void test_string_continuation(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "'foo'\n  'bar'", "'foobar'");
  sqlt_x(a, "'a' \r\n\t'b'\n'c'", "'abc'");
  sqlt_x(a, "E'\\t'\n'x'", "'\tx'");
  sqlt_x(a, "'a'\n'b' || 'c'", "(|| 'ab' 'c')");
  sqlt_s(a, "SELECT x NOT LIKE 'a'\n'%'", "(select ((not-like x 'a%')))");
  sql_stmt_list_t *two = sqlt_parse(a, "SELECT 'a'\n'b'; SELECT 1");
  assert_int_equal(two->sl_n, 2);
  assert_string_equal(sql_ast_print(a, two->sl_stmts[0]), "(select ('ab'))");
  /* without a newline between, two strings are an error, as in PostgreSQL */
  sqlt_err(a, "SELECT 'a' 'b'", "42601", 12);
  sqlt_err(a, "SELECT 'a' /* c */\n'b'", "42601", 20);
  /* the merged token spans both strings: the statement's byte range */
  sql_stmt_list_t *l = sqlt_parse(a, "SELECT 'a'\n'b'  ;");
  assert_int_equal(l->sl_stmts[0]->st_len, 14);
}

static void test_dollar_quotes(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "$$it's$$", "'it''s'");
  sqlt_x(a, "$$$$", "''");
  sqlt_x(a, "$a$ x $b$ y $a$", "' x $b$ y '");
  sqlt_x(a, "$fn$\\n$1 $ $$ $fn$", "'\\n$1 $ $$ '");
  sqlt_x(a, "$_x9$a$_x9$ || $$b$$", "(|| 'a' 'b')");
  sqlt_x(a, "$$a$$::text", "(cast 'a' text)");
  sqlt_x(a, "$1 || $$x$$", "(|| $1 'x')");
  /* the token is the whole string: positions and statement range */
  sql_stmt_list_t *l = sqlt_parse(a, "SELECT 1, $q$é$q$ x;");
  const sql_target_t *t = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 1);
  assert_int_equal(t->tg_expr->ex_pos, 11);
  assert_string_equal(t->tg_expr->ex_text, "é");
  assert_string_equal(t->tg_alias, "x");
  sqlt_err(a, "SELECT $a$ never closed $b$", "42601", 8);
  sqlt_err(a, "SELECT $$ open", "42601", 8);
  sqlt_err(a, "SELECT $foo", "42601", 8);
}

static void test_ddl_forms(void **state)
{
  arena_t *a = *state;
  sqlt_s(a, "DROP TABLE t CASCADE", "(drop-table t cascade)");
  sqlt_s(a, "DROP TABLE IF EXISTS t, s.u RESTRICT", "(drop-table if-exists t s.u)");
  sqlt_s(a, "DROP INDEX i CASCADE", "(drop-index i cascade)");
  sqlt_s(a, "DROP INDEX IF EXISTS i RESTRICT", "(drop-index if-exists i)");
  sqlt_s(a, "CREATE INDEX i ON t USING btree (a DESC)",
         "(create-index i t (using btree) ((desc a)))");
  sqlt_s(a, "CREATE UNIQUE INDEX IF NOT EXISTS i ON t USING BTREE (a)",
         "(create-index unique if-not-exists i t (using btree) (a))");
  sqlt_err(a, "CREATE INDEX i ON t USING hash (a)", "0A000", 27);
  sqlt_err(a, "CREATE INDEX i ON t USING foo (a)", "42704", 27);
  sqlt_s(a, "CREATE TABLE t (a int CONSTRAINT t_pk PRIMARY KEY, b int CONSTRAINT nn NOT NULL, "
            "CONSTRAINT t_b UNIQUE (b), PRIMARY KEY (a))",
         "(create-table t (col a int4 primary-key) (col b int4 not-null) (unique (b) "
         "(constraint t_b)) (primary-key (a)))");
  sqlt_s(a, "CREATE TABLE t (CONSTRAINT k PRIMARY KEY (a), a int)",
         "(create-table t (col a int4) (primary-key (a) (constraint k)))");
  sqlt_err(a, "CREATE TABLE t (a int CONSTRAINT c)", "42601", 35);
  sqlt_err(a, "CREATE TABLE t (a int CONSTRAINT c DEFAULT 1)", "42601", 36);
  /* CASCADE and RESTRICT stay names; CONSTRAINT is reserved */
  sqlt_s(a, "SELECT cascade, restrict FROM t", "(select (cascade restrict) (from t))");
  sqlt_err(a, "SELECT constraint FROM t", "42601", 8);
}

/* Views (issue 11, item 2): the statements, their printed trees, the
 * query's own text range, and WITH_LA keeping `timestamp WITH TIME ZONE`
 * and `… WITH CHECK OPTION` apart. */
static void test_view_forms(void **state)
{
  arena_t *a = *state;
  sqlt_s(a, "CREATE VIEW v AS SELECT a FROM t",
         "(create-view v (select (a) (from t)))");
  sqlt_s(a, "CREATE OR REPLACE TEMP VIEW s.v (x, y) AS SELECT a, b FROM t WITH CHECK OPTION",
         "(create-view or-replace temp s.v (x y) (select (a b) (from t)) check-cascaded)");
  sqlt_s(a, "CREATE TEMPORARY VIEW v AS SELECT 1 WITH CASCADED CHECK OPTION",
         "(create-view temp v (select (1)) check-cascaded)");
  sqlt_s(a, "CREATE VIEW v AS SELECT a FROM t WHERE a > 1 WITH LOCAL CHECK OPTION",
         "(create-view v (select (a) (from t) (where (> a 1))) check-local)");
  sqlt_s(a, "CREATE VIEW v AS SELECT a::timestamp WITH TIME ZONE FROM t WITH CHECK OPTION",
         "(create-view v (select ((cast a timestamptz)) (from t)) check-cascaded)");
  sqlt_s(a, "CREATE MATERIALIZED VIEW m AS SELECT a FROM t WITH NO DATA",
         "(create-view materialized m (select (a) (from t)) no-data)");
  sqlt_s(a, "CREATE MATERIALIZED VIEW IF NOT EXISTS m (x) AS SELECT a FROM t WITH DATA",
         "(create-view materialized m (x) (select (a) (from t)))");
  sqlt_s(a, "REFRESH MATERIALIZED VIEW m", "(refresh-materialized-view m)");
  sqlt_s(a, "REFRESH MATERIALIZED VIEW m WITH NO DATA", "(refresh-materialized-view m no-data)");
  sqlt_s(a, "ALTER VIEW IF EXISTS v RENAME TO w", "(alter-view v (rename w))");
  sqlt_s(a, "ALTER MATERIALIZED VIEW m RENAME TO n", "(alter-view materialized m (rename n))");
  sqlt_s(a, "DROP VIEW IF EXISTS v, w CASCADE", "(drop-view if-exists v w cascade)");
  sqlt_s(a, "DROP MATERIALIZED VIEW m", "(drop-materialized-view m)");
  /* the query's text is kept exactly (what the catalog stores) */
  const char *text = "CREATE VIEW v AS  SELECT a /* c */ FROM t  WITH CHECK OPTION";
  sql_stmt_list_t *l = sqlt_parse(a, text);
  assert_int_equal(l->sl_n, 1);
  const sql_view_t *v = l->sl_stmts[0]->st_view;
  assert_int_equal(v->vw_check, 'c');
  assert_true(strncmp(text + v->vw_off, "SELECT a /* c */ FROM t", v->vw_len) == 0);
  assert_int_equal(v->vw_len, strlen("SELECT a /* c */ FROM t"));
  /* the new words: CHECK reserved, the others names */
  sqlt_s(a, "SELECT view, data, temp, option, replace(data, 'a', 'b') FROM materialized",
         "(select (view data temp option (replace data 'a' 'b')) (from materialized))");
  sqlt_err(a, "SELECT check FROM t", "42601", 8);
  sqlt_err(a, "CREATE MATERIALIZED VIEW m AS SELECT 1 WITH CHECK OPTION", "42601", 45);
  /* a CTE after WITH is unaffected by WITH_LA */
  sqlt_s(a, "WITH x AS (SELECT 1) SELECT * FROM x",
         "(with (x (select (1))) (select (*) (from x)))");
}

static void test_more_forms(void **state)
{
  arena_t *a = *state;
  /* 'text'::interval and CAST('text' AS interval) are ordinary casts */
  sqlt_x(a, "'1 day'::interval", "(cast '1 day' interval)");
  sqlt_x(a, "CAST('3 months' AS INTERVAL)", "(cast '3 months' interval)");
  sqlt_x(a, "d - '30 days'::interval", "(- d (cast '30 days' interval))");
  sqlt_x(a, "x BETWEEN '1 day'::interval AND y", "(between x (cast '1 day' interval) y)");
  sqlt_x(a, "x::interval day", "(cast x interval day)");
  /* BETWEEN SYMMETRIC is rewritten as PostgreSQL does; ASYMMETRIC is plain */
  sqlt_x(a, "x BETWEEN SYMMETRIC 1 AND y", "(or (between x 1 y) (between x y 1))");
  sqlt_x(a, "x NOT BETWEEN SYMMETRIC 1 AND 2",
         "(and (not-between x 1 2) (not-between x 2 1))");
  sqlt_x(a, "x BETWEEN ASYMMETRIC 1 AND 2", "(between x 1 2)");
  sqlt_x(a, "x NOT BETWEEN ASYMMETRIC 1 AND 2", "(not-between x 1 2)");
  sqlt_x(a, "x BETWEEN SYMMETRIC 1 AND 2 AND z", "(and (or (between x 1 2) (between x 2 1)) z)");
  /* TABLE t is SELECT * FROM t; FROM ONLY t is t */
  sqlt_s(a, "TABLE s.t", "(select (*) (from s.t))");
  sqlt_s(a, "TABLE t UNION TABLE u ORDER BY 1",
         "(union (select (*) (from t)) (select (*) (from u)) (order-by (asc 1)))");
  sqlt_s(a, "INSERT INTO t TABLE u", "(insert t (select (*) (from u)))");
  sqlt_s(a, "SELECT * FROM ONLY t x JOIN ONLY u ON true",
         "(select (*) (from (join inner (as t x) u (on true))))");
  sqlt_err(a, "SELECT symmetric FROM t", "42601", 8);
  sqlt_err(a, "TABLE", "42601", 6);
}

/* Every TPC-H query parses as one statement. */
static void test_tpch_queries(void **state)
{
  arena_t *a = *state;
  const char *dir = getenv("CZ_TPCH_QUERIES") ? getenv("CZ_TPCH_QUERIES") : SQLT_TPCH_DIR;
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "SKIP: %s not found (set CZ_TPCH_QUERIES)\n", dir);
    skip();
    return;
  }
  int n = 0, failures = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    size_t len = strlen(de->d_name);
    if (len < 5 || strcmp(de->d_name + len - 4, ".sql") != 0)
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char buf[16384];
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = 0;
    sql_stmt_list_t *l = NULL;
    err_t e;
    err_clear(&e);
    if (sql_parse(a, buf, got, &l, &e) != CZ_OK || l->sl_n != 1) {
      fprintf(stderr, "%s: %s [%s] at %d\n", de->d_name, e.er_msg, e.er_sqlstate, e.er_pos);
      failures++;
    }
    n++;
    arena_reset(a);
  }
  closedir(d);
  assert_int_equal(n, 22);
  assert_int_equal(failures, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_index_order, sqlt_reset),
    cmocka_unit_test_setup(test_view_forms, sqlt_reset),
    cmocka_unit_test_setup(test_power, sqlt_reset),
    cmocka_unit_test_setup(test_like_operators, sqlt_reset),
    cmocka_unit_test_setup(test_like_escape, sqlt_reset),
    cmocka_unit_test_setup(test_similar_to, sqlt_reset),
    cmocka_unit_test_setup(test_left_right, sqlt_reset),
    cmocka_unit_test_setup(test_interval, sqlt_reset),
    cmocka_unit_test_setup(test_string_continuation, sqlt_reset),
    cmocka_unit_test_setup(test_dollar_quotes, sqlt_reset),
    cmocka_unit_test_setup(test_ddl_forms, sqlt_reset),
    cmocka_unit_test_setup(test_more_forms, sqlt_reset),
    cmocka_unit_test_setup(test_tpch_queries, sqlt_reset),
  };
  return cmocka_run_group_tests(tests, sqlt_setup, sqlt_teardown);
}
