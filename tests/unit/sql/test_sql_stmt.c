/* test_sql_stmt — every statement kind, several statements in one text,
 * empty statements, statement positions, and parsing from many threads.
 */
#include <pthread.h>

#include "sql_test.h"

static void test_select_clauses(void **state)
{
  static const sqlt_case_t c[] = {
    {"SELECT 1", SQL_STMT_SELECT, "(select (1))"},
    {"SELECT DISTINCT a, b AS x, c y FROM t", SQL_STMT_SELECT,
     "(select distinct (a (as b x) (as c y)) (from t))"},
    {"SELECT ALL * , t.*, s.t.* FROM s.t", SQL_STMT_SELECT, "(select (* t.* s.t.*) (from s.t))"},
    {"SELECT TOP 5 a FROM t", SQL_STMT_SELECT, "(select (top 5) (a) (from t))"},
    /* TOP is a keyword only where it opens the row limit; a name elsewhere */
    {"SELECT DISTINCT top 2 top FROM top", SQL_STMT_SELECT,
     "(select distinct (top 2) (top) (from top))"},
    {"SELECT top, top.top FROM top WHERE top > 1", SQL_STMT_SELECT,
     "(select (top top.top) (from top) (where (> top 1)))"},
    {"CREATE TABLE top (top int)", SQL_STMT_CREATE_TABLE, "(create-table top (col top int4))"},
    {"SELECT a, count(*) FROM t WHERE a > 1 GROUP BY a, b HAVING count(*) > 2", SQL_STMT_SELECT,
     "(select (a (count *)) (from t) (where (> a 1)) (group-by a b) (having (> (count *) 2)))"},
    {"SELECT a FROM t ORDER BY a DESC NULLS FIRST, b ASC NULLS LAST, c", SQL_STMT_SELECT,
     "(select (a) (from t) (order-by (desc a nulls-first) (asc b nulls-last) (asc c)))"},
    {"SELECT a FROM t LIMIT 10 OFFSET 20", SQL_STMT_SELECT,
     "(select (a) (from t) (limit 10) (offset 20))"},
    {"SELECT a FROM t OFFSET 2 LIMIT ALL", SQL_STMT_SELECT, "(select (a) (from t) (offset 2))"},
    {"(SELECT a FROM t) ORDER BY 1", SQL_STMT_SELECT,
     "(select (a) (from t) (order-by (asc 1)))"},
    {"VALUES (1, 'a'), (2, 'b')", SQL_STMT_SELECT, "(values (1 'a') (2 'b'))"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_from_and_joins(void **state)
{
  static const sqlt_case_t c[] = {
    {"SELECT * FROM t1 x, s.t2 AS y", SQL_STMT_SELECT,
     "(select (*) (from (as t1 x) (as s.t2 y)))"},
    {"SELECT * FROM a JOIN b ON a.x = b.x", SQL_STMT_SELECT,
     "(select (*) (from (join inner a b (on (= a.x b.x)))))"},
    {"SELECT * FROM a INNER JOIN b ON p LEFT OUTER JOIN c ON q", SQL_STMT_SELECT,
     "(select (*) (from (join left (join inner a b (on p)) c (on q))))"},
    {"SELECT * FROM a LEFT JOIN b ON p CROSS JOIN c", SQL_STMT_SELECT,
     "(select (*) (from (join cross (join left a b (on p)) c)))"},
    {"SELECT * FROM a RIGHT JOIN b ON p FULL OUTER JOIN c ON q", SQL_STMT_SELECT,
     "(select (*) (from (join full (join right a b (on p)) c (on q))))"},
    {"SELECT * FROM a JOIN (b JOIN c ON q) ON p", SQL_STMT_SELECT,
     "(select (*) (from (join inner a (join inner b c (on q)) (on p))))"},
    {"SELECT s.x FROM (SELECT 1 AS x) AS s, (VALUES (1)) v", SQL_STMT_SELECT,
     "(select (s.x) (from (as (select ((as 1 x))) s) (as (values (1)) v)))"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_set_operations(void **state)
{
  static const sqlt_case_t c[] = {
    {"SELECT 1 UNION SELECT 2", SQL_STMT_SELECT, "(union (select (1)) (select (2)))"},
    {"SELECT 1 UNION ALL SELECT 2 EXCEPT SELECT 3 ORDER BY 1 LIMIT 1", SQL_STMT_SELECT,
     "(except (union-all (select (1)) (select (2))) (select (3)) (order-by (asc 1)) (limit 1))"},
    /* INTERSECT binds tighter than UNION and EXCEPT */
    {"SELECT 1 UNION SELECT 2 INTERSECT SELECT 3", SQL_STMT_SELECT,
     "(union (select (1)) (intersect (select (2)) (select (3))))"},
    {"(SELECT 1 UNION SELECT 2) INTERSECT ALL SELECT 3", SQL_STMT_SELECT,
     "(intersect-all (union (select (1)) (select (2))) (select (3)))"},
    {"SELECT 1 EXCEPT ALL (SELECT 2 ORDER BY 1)", SQL_STMT_SELECT,
     "(except-all (select (1)) (select (2) (order-by (asc 1))))"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_insert_update_delete(void **state)
{
  static const sqlt_case_t c[] = {
    {"INSERT INTO t VALUES (1, DEFAULT), (2, 3)", SQL_STMT_INSERT,
     "(insert t (values (1 default) (2 3)))"},
    {"insert into S.T (a, \"B\") values (1, 'x')", SQL_STMT_INSERT,
     "(insert s.t (a \"B\") (values (1 'x')))"},
    {"INSERT INTO t (a) SELECT b FROM u WHERE c", SQL_STMT_INSERT,
     "(insert t (a) (select (b) (from u) (where c)))"},
    {"INSERT INTO t DEFAULT VALUES", SQL_STMT_INSERT, "(insert t default-values)"},
    {"UPDATE t SET a = 1, b = b + 1 WHERE c", SQL_STMT_UPDATE,
     "(update t (set (= a 1) (= b (+ b 1))) (where c))"},
    {"UPDATE t AS x SET a = DEFAULT", SQL_STMT_UPDATE, "(update (as t x) (set (= a default)))"},
    {"DELETE FROM t", SQL_STMT_DELETE, "(delete t)"},
    {"DELETE FROM s.t x WHERE a IN (SELECT b FROM u)", SQL_STMT_DELETE,
     "(delete (as s.t x) (where (in a (select (b) (from u)))))"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_create_drop_table(void **state)
{
  static const sqlt_case_t c[] = {
    {"CREATE TABLE t (a INTEGER PRIMARY KEY, b DOUBLE PRECISION NOT NULL DEFAULT 0.5,"
     " c CHARACTER VARYING(20) UNIQUE NULL, d NUMERIC(10,2), e TIMESTAMP WITHOUT TIME ZONE,"
     " f BYTEA, g CHAR, h TEXT, i BOOLEAN, j DATE, k REAL, l SMALLINT, m BIGINT,"
     " n INT8, o FLOAT4, p VARCHAR(3), q DECIMAL, r INT2, s FLOAT8, u INT,"
     " PRIMARY KEY (a, b), UNIQUE (c))",
     SQL_STMT_CREATE_TABLE,
     "(create-table t (col a int4 primary-key) (col b float8 not-null (default 0.5))"
     " (col c varchar(20) unique) (col d numeric(10,2)) (col e timestamp) (col f bytea)"
     " (col g char(1)) (col h text) (col i bool) (col j date) (col k float4) (col l int2)"
     " (col m int8) (col n int8) (col o float4) (col p varchar(3)) (col q numeric)"
     " (col r int2) (col s float8) (col u int4) (primary-key (a b)) (unique (c)))"},
    {"CREATE TABLE IF NOT EXISTS s.\"T\" (x int DEFAULT -1 NOT NULL)", SQL_STMT_CREATE_TABLE,
     "(create-table if-not-exists s.\"T\" (col x int4 not-null (default -1)))"},
    {"DROP TABLE t", SQL_STMT_DROP_TABLE, "(drop-table t)"},
    {"DROP TABLE IF EXISTS t1, s.t2", SQL_STMT_DROP_TABLE, "(drop-table if-exists t1 s.t2)"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_create_drop_index(void **state)
{
  static const sqlt_case_t c[] = {
    {"CREATE INDEX i ON t (a)", SQL_STMT_CREATE_INDEX, "(create-index i t (a))"},
    {"CREATE UNIQUE INDEX i ON s.t (a, b) INCLUDE (c, d)", SQL_STMT_CREATE_INDEX,
     "(create-index unique i s.t (a b) (include (c d)))"},
    {"CREATE INDEX ON t (a)", SQL_STMT_CREATE_INDEX, "(create-index - t (a))"},
    {"CREATE INDEX IF NOT EXISTS i ON t (a)", SQL_STMT_CREATE_INDEX,
     "(create-index if-not-exists i t (a))"},
    {"DROP INDEX i", SQL_STMT_DROP_INDEX, "(drop-index i)"},
    {"DROP INDEX IF EXISTS i, j", SQL_STMT_DROP_INDEX, "(drop-index if-exists i j)"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_transactions(void **state)
{
  static const sqlt_case_t c[] = {
    {"BEGIN", SQL_STMT_BEGIN, "(begin)"},
    {"BEGIN TRANSACTION", SQL_STMT_BEGIN, "(begin)"},
    {"begin work", SQL_STMT_BEGIN, "(begin)"},
    {"START TRANSACTION", SQL_STMT_BEGIN, "(begin)"},
    {"COMMIT", SQL_STMT_COMMIT, "(commit)"},
    {"COMMIT WORK", SQL_STMT_COMMIT, "(commit)"},
    {"END", SQL_STMT_COMMIT, "(commit)"},
    {"ROLLBACK", SQL_STMT_ROLLBACK, "(rollback)"},
    {"ROLLBACK TRANSACTION", SQL_STMT_ROLLBACK, "(rollback)"},
    {"SAVEPOINT sp1", SQL_STMT_SAVEPOINT, "(savepoint sp1)"},
    {"RELEASE SAVEPOINT sp1", SQL_STMT_RELEASE, "(release sp1)"},
    {"RELEASE sp1", SQL_STMT_RELEASE, "(release sp1)"},
    {"RELEASE savepoint", SQL_STMT_RELEASE, "(release savepoint)"},
    {"ROLLBACK TO SAVEPOINT sp1", SQL_STMT_ROLLBACK_TO, "(rollback-to sp1)"},
    {"ROLLBACK WORK TO sp1", SQL_STMT_ROLLBACK_TO, "(rollback-to sp1)"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_privileges_and_roles(void **state)
{
  static const sqlt_case_t c[] = {
    {"GRANT SELECT, INSERT ON TABLE t1, s.t2 TO alice, PUBLIC", SQL_STMT_GRANT,
     "(grant (select insert) (t1 s.t2) (alice public))"},
    {"GRANT ALL PRIVILEGES ON t TO bob", SQL_STMT_GRANT, "(grant (all) (t) (bob))"},
    {"REVOKE UPDATE, DELETE ON t FROM bob", SQL_STMT_REVOKE, "(revoke (update delete) (t) (bob))"},
    {"REVOKE ALL ON t FROM bob", SQL_STMT_REVOKE, "(revoke (all) (t) (bob))"},
    {"CREATE USER bob WITH PASSWORD 'se''cret'", SQL_STMT_CREATE_ROLE,
     "(create-user bob (password 'se''cret'))"},
    {"CREATE USER bob PASSWORD 'x'", SQL_STMT_CREATE_ROLE, "(create-user bob (password 'x'))"},
    {"CREATE ROLE readers", SQL_STMT_CREATE_ROLE, "(create-role readers)"},
    {"DROP USER bob", SQL_STMT_DROP_ROLE, "(drop-user bob)"},
    {"DROP ROLE IF EXISTS r1, r2", SQL_STMT_DROP_ROLE, "(drop-role if-exists r1 r2)"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_explain_set_show(void **state)
{
  static const sqlt_case_t c[] = {
    {"EXPLAIN SELECT 1", SQL_STMT_EXPLAIN, "(explain (select (1)))"},
    {"EXPLAIN ANALYZE DELETE FROM t", SQL_STMT_EXPLAIN, "(explain analyze (delete t))"},
    {"SET search_path = a, b", SQL_STMT_SET, "(set search_path 'a' 'b')"},
    {"SET extra_float_digits TO 3", SQL_STMT_SET, "(set extra_float_digits 3)"},
    {"SET application_name = 'psql'", SQL_STMT_SET, "(set application_name 'psql')"},
    {"SET standard_conforming_strings = on", SQL_STMT_SET,
     "(set standard_conforming_strings 'on')"},
    {"SET SESSION x = -1.5", SQL_STMT_SET, "(set x -1.5)"},
    {"SET LOCAL x TO DEFAULT", SQL_STMT_SET, "(set local x default)"},
    {"SET TIME ZONE 'UTC'", SQL_STMT_SET, "(set timezone 'UTC')"},
    {"SET a.b = true", SQL_STMT_SET, "(set a.b 'true')"},
    {"SHOW server_version", SQL_STMT_SHOW, "(show server_version)"},
    {"SHOW ALL", SQL_STMT_SHOW, "(show all)"},
    {"SHOW TIME ZONE", SQL_STMT_SHOW, "(show timezone)"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

/* Each statement knows where its text is, so the server can log it or run
 * the statements of one Query message one by one. */
static void test_multiple_statements(void **state)
{
  arena_t *a = *state;
  const char *text = "SELECT 1; INSERT INTO t VALUES (1);\n  UPDATE t SET a = 2 ;DELETE FROM t";
  sql_stmt_list_t *l = sqlt_parse(a, text);
  assert_int_equal(l->sl_n, 4);
  static const char *const want[] = {
    "SELECT 1", "INSERT INTO t VALUES (1)", "UPDATE t SET a = 2", "DELETE FROM t",
  };
  static const int pos[] = {1, 11, 39, 59};
  for (int i = 0; i < 4; i++) {
    const sql_stmt_t *s = l->sl_stmts[i];
    assert_int_equal(s->st_len, strlen(want[i]));
    assert_memory_equal(text + s->st_off, want[i], s->st_len);
    assert_int_equal(s->st_pos, pos[i]);
  }
  assert_int_equal(l->sl_stmts[0]->st_kind, SQL_STMT_SELECT);
  assert_int_equal(l->sl_stmts[3]->st_kind, SQL_STMT_DELETE);
}

/* The lexical cut (sql_split.c) must find the statements the parser
 * finds, whatever hides a `;`: quotes, E'' escapes, quoted identifiers,
 * dollar quotes, parameters, comments. */
static void test_statement_extent(void **state)
{
  arena_t *a = *state;
  static const char *const texts[] = {
    "SELECT 1; SELECT 2",
    "SELECT ';' AS x; SELECT 'it''s;'",
    "SELECT E'a\\';b\\\\'; SELECT 2",
    "SELECT \"a;b\" FROM \"t;\"\"x\"; SELECT 3",
    "SELECT $$;$$, $tag$ ; $x$ ; $tag$; SELECT $1 + 2",
    "SELECT a$b FROM t; SELECT e'\\';'",
    "SELECT 1 -- a comment; with a semicolon\n; SELECT /* a ; /* nested ; */ one */ 2",
    "SELECT 1e5;SELECT 1.5e-3 ; ; SELECT x.y FROM t x",
  };
  for (size_t k = 0; k < CZ_ARRAY_LEN(texts); k++) {
    const char *t = texts[k];
    size_t len = strlen(t), at = 0;
    sql_stmt_list_t *l = sqlt_parse(a, t);
    int i = 0;
    for (;;) {
      at += sql_skip_blanks(t + at, len - at);
      if (at < len && t[at] == ';') {
        at++;
        continue;
      }
      if (at >= len)
        break;
      size_t ext = sql_statement_extent(t + at, len - at);
      assert_true(i < l->sl_n);
      const sql_stmt_t *st = l->sl_stmts[i++];
      assert_int_equal(st->st_off, at);
      assert_true(st->st_off + st->st_len <= at + ext);
      size_t rest = at + ext - (st->st_off + st->st_len);
      assert_int_equal(sql_skip_blanks(t + st->st_off + st->st_len, rest), rest);
      at += ext;
    }
    assert_int_equal(i, l->sl_n);
  }
}

static void test_empty_statements(void **state)
{
  arena_t *a = *state;
  static const char *const empty[] = {"", ";", " ;; ; ", "-- only a comment", "/* c */;\n"};
  for (size_t i = 0; i < CZ_ARRAY_LEN(empty); i++)
    assert_int_equal(sqlt_parse(a, empty[i])->sl_n, 0);
  sql_stmt_list_t *l = sqlt_parse(a, ";;SELECT 1;;;SELECT 2;");
  assert_int_equal(l->sl_n, 2);
  assert_int_equal(l->sl_stmts[1]->st_pos, 14);
  /* text need not be NUL-terminated: only len bytes are read */
  err_t e;
  assert_int_equal(sql_parse(a, "SELECT 1garbage", 8, &l, &e), CZ_OK);
  assert_int_equal(l->sl_n, 1);
}

/* Positions of nodes point at the token that names them. */
static void test_node_positions(void **state)
{
  arena_t *a = *state;
  sql_stmt_list_t *l = sqlt_parse(a, "SELECT a + f(b) FROM t WHERE c");
  const sql_select_t *se = l->sl_stmts[0]->st_query->qu_select;
  const sql_expr_t *x = ((const sql_target_t *)sql_list_at(se->se_targets, 0))->tg_expr;
  assert_int_equal(x->ex_pos, 10);
  assert_int_equal(x->ex_left->ex_pos, 8);
  assert_int_equal(x->ex_right->ex_pos, 12);
  assert_int_equal(((const sql_from_t *)sql_list_at(se->se_from, 0))->fr_table.nm_pos, 22);
  assert_int_equal(se->se_where->ex_pos, 30);
}

typedef struct sqlt_thread_s {
  const char *tt_text;
  const char *tt_want;
  int tt_bad;
} sqlt_thread_t;

static void *sqlt_thread_main(void *arg)
{
  sqlt_thread_t *t = arg;
  arena_t *a = arena_create(NULL, "sql-thread");
  for (int i = 0; i < 500; i++) {
    sql_stmt_list_t *l;
    err_t e;
    if (sql_parse(a, t->tt_text, strlen(t->tt_text), &l, &e) != CZ_OK ||
        strcmp(sql_ast_print(a, l->sl_stmts[0]), t->tt_want) != 0)
      t->tt_bad++;
    /* an error in between must not leak into the next parse */
    if (sql_parse(a, "SELECT FROM FROM", 16, &l, &e) != CZ_ERR || e.er_pos != 8)
      t->tt_bad++;
    arena_reset(a);
  }
  arena_destroy(a);
  return NULL;
}

/* The parser keeps no global state: threads parsing at once agree with a
 * parse done alone. */
static void test_parse_from_threads(void **state)
{
  arena_t *a = *state;
  const char *text = "SELECT a, CASE WHEN b THEN 'x' END FROM t JOIN u ON t.k = u.k "
                     "WHERE c NOT BETWEEN 1 AND 2 ORDER BY 1";
  const char *want = sqlt_stmt(a, text);
  sqlt_thread_t t[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    t[i] = (sqlt_thread_t){.tt_text = text, .tt_want = want};
    assert_int_equal(pthread_create(&th[i], NULL, sqlt_thread_main, &t[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(t[i].tt_bad, 0);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_select_clauses, sqlt_reset),
    cmocka_unit_test_setup(test_from_and_joins, sqlt_reset),
    cmocka_unit_test_setup(test_set_operations, sqlt_reset),
    cmocka_unit_test_setup(test_insert_update_delete, sqlt_reset),
    cmocka_unit_test_setup(test_create_drop_table, sqlt_reset),
    cmocka_unit_test_setup(test_create_drop_index, sqlt_reset),
    cmocka_unit_test_setup(test_transactions, sqlt_reset),
    cmocka_unit_test_setup(test_privileges_and_roles, sqlt_reset),
    cmocka_unit_test_setup(test_explain_set_show, sqlt_reset),
    cmocka_unit_test_setup(test_multiple_statements, sqlt_reset),
    cmocka_unit_test_setup(test_statement_extent, sqlt_reset),
    cmocka_unit_test_setup(test_empty_statements, sqlt_reset),
    cmocka_unit_test_setup(test_node_positions, sqlt_reset),
    cmocka_unit_test_setup(test_parse_from_threads, sqlt_reset),
  };
  return cmocka_run_group_tests(tests, sqlt_setup, sqlt_teardown);
}
