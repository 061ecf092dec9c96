/* test_sql_ext — the grammar added for the clients and bulk load: catalog
 * casts and regex operators, ANY/ALL, arrays, COLLATE, window calls, the
 * special-syntax functions, WITH, FOR UPDATE, FETCH FIRST, NATURAL/USING
 * joins, table functions, COPY, transaction modes, ALTER ROLE, RETURNING,
 * ON CONFLICT and the small utility statements; each as its printed tree,
 * and the errors these forms can raise.
 */
#include "sql_test.h"

static void test_catalog_casts(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "c.oid::regclass", "(cast c.oid regclass)");
  sqlt_x(a, "c.oid::pg_catalog.regclass::pg_catalog.text", "(cast (cast c.oid regclass) text)");
  sqlt_x(a, "'pg_class'::regclass", "(cast 'pg_class' regclass)");
  sqlt_x(a, "x::regtype", "(cast x regtype)");
  sqlt_x(a, "x::regnamespace::text", "(cast (cast x regnamespace) text)");
  sqlt_x(a, "x::oid", "(cast x oid)");
  sqlt_x(a, "x::name", "(cast x name)");
  sqlt_x(a, "x::int2vector", "(cast x int2vector)");
  /* quoted "char" is the one-byte type; unquoted char is CHAR(1) */
  sqlt_x(a, "x::\"char\"", "(cast x \"char\")");
  sqlt_x(a, "x::pg_catalog.\"char\"", "(cast x \"char\")");
  sqlt_x(a, "x::char", "(cast x char(1))");
  sqlt_x(a, "pr.prattrs::pg_catalog.int2[]", "(cast pr.prattrs int2[])");
  sqlt_x(a, "x::text[]", "(cast x text[])");
  sqlt_x(a, "CAST(x AS varchar(3)[2])", "(cast x varchar(3)[])");
  sql_stmt_list_t *l = sqlt_parse(a, "SELECT x::\"char\", y::int4[]");
  const sql_target_t *t0 = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 0);
  const sql_target_t *t1 = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 1);
  assert_int_equal(t0->tg_expr->ex_type.ty_id, SQL_TYPE_CHAR1);
  assert_false(t0->tg_expr->ex_type.ty_array);
  assert_int_equal(t1->tg_expr->ex_type.ty_id, SQL_TYPE_INT4);
  assert_true(t1->tg_expr->ex_type.ty_array);
}

static void test_regex_and_operator(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "n ~ '^pg_'", "(~ n '^pg_')");
  sqlt_x(a, "n ~* 'x'", "(~* n 'x')");
  sqlt_x(a, "n !~ '^pg_toast'", "(!~ n '^pg_toast')");
  sqlt_x(a, "n !~* 'x'", "(!~* n 'x')");
  /* ~ binds tighter than = and AND / OR, like PostgreSQL's other operators */
  sqlt_x(a, "n ~ '^pg_' OR n = 'information_schema'",
         "(or (~ n '^pg_') (= n 'information_schema'))");
  sqlt_x(a, "a || b ~ c", "(~ (|| a b) c)");
  sqlt_x(a, "c.relname OPERATOR(pg_catalog.~) '^(items)$' COLLATE pg_catalog.default",
         "(~ c.relname (collate '^(items)$' pg_catalog.default))");
  sqlt_x(a, "a OPERATOR(=) b", "(= a b)");
  sqlt_x(a, "a OPERATOR(pg_catalog.+) b", "(+ a b)");
  sqlt_x(a, "x COLLATE \"C\"", "(collate x \"C\")");
  sqlt_x(a, "x COLLATE \"C\" = y", "(= (collate x \"C\") y)");
  sqlt_x(a, "a IS NOT DISTINCT FROM b", "(is-not-distinct-from a b)");
}

static void test_any_all_arrays(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "'d' = any(stxkind)", "(any = 'd' stxkind)");
  sqlt_x(a, "oid = any (pol.polroles)", "(any = oid pol.polroles)");
  sqlt_x(a, "x = SOME (SELECT y FROM t)", "(any = x (select (y) (from t)))");
  sqlt_x(a, "x <> ALL (ARRAY[1, 2])", "(all <> x (array 1 2))");
  sqlt_x(a, "x > ALL (SELECT 1)", "(all > x (select (1)))");
  sqlt_x(a, "x LIKE ANY (ARRAY['a%'])", "(any like x (array 'a%'))");
  sqlt_x(a, "x NOT LIKE ALL (ARRAY['a%'])", "(all not-like x (array 'a%'))");
  sqlt_x(a, "x OPERATOR(pg_catalog.~) ANY (p)", "(any ~ x p)");
  sqlt_x(a, "ARRAY[1, 2]", "(array 1 2)");
  sqlt_x(a, "ARRAY[]::int[]", "(cast (array) int4[])");
  sqlt_x(a, "array(select rolname from r order by 1)",
         "(array (select (rolname) (from r) (order-by (asc 1))))");
  sqlt_x(a, "prattrs[s]", "(subscript prattrs s)");
  sqlt_x(a, "t.a[1][2]", "(subscript (subscript t.a 1) 2)");
  sqlt_x(a, "(ARRAY[1, 2])[i + 1]", "(subscript (array 1 2) (+ i 1))");
  sqlt_x(a, "a[1] + 1", "(+ (subscript a 1) 1)");
}

static void test_functions(void **state)
{
  arena_t *a = *state;
  sqlt_x(a, "pg_catalog.format_type(a.atttypid, a.atttypmod)",
         "(pg_catalog.format_type a.atttypid a.atttypmod)");
  sqlt_x(a, "current_schema()", "(current_schema)");
  sqlt_x(a, "current_schema", "(current_schema)");
  sqlt_x(a, "current_user", "(current_user)");
  sqlt_x(a, "current_role", "(current_user)");
  sqlt_x(a, "user", "(current_user)");
  sqlt_x(a, "session_user", "(session_user)");
  sqlt_x(a, "current_catalog", "(current_database)");
  sqlt_x(a, "CURRENT_DATE", "(current_date)");
  sqlt_x(a, "CURRENT_TIMESTAMP", "(current_timestamp)");
  sqlt_x(a, "current_timestamp(3)", "(current_timestamp 3)");
  sqlt_x(a, "LOCALTIMESTAMP", "(localtimestamp)");
  sqlt_x(a, "EXTRACT(YEAR FROM d)", "(extract 'year' d)");
  sqlt_x(a, "extract('Epoch' FROM d)", "(extract 'epoch' d)");
  sqlt_x(a, "POSITION('a' IN s)", "(position s 'a')");
  sqlt_x(a, "SUBSTRING(s FROM 2 FOR 3)", "(substring s 2 3)");
  sqlt_x(a, "SUBSTRING(s FOR 3 FROM 2)", "(substring s 2 3)");
  sqlt_x(a, "SUBSTRING(s FROM 2)", "(substring s 2)");
  sqlt_x(a, "SUBSTRING(s FOR 2)", "(substring s 1 2)");
  sqlt_x(a, "substring(s, 1, 2)", "(substring s 1 2)");
  sqlt_x(a, "TRIM(s)", "(btrim s)");
  sqlt_x(a, "TRIM(BOTH 'x' FROM s)", "(btrim s 'x')");
  sqlt_x(a, "TRIM(LEADING FROM s)", "(ltrim s)");
  sqlt_x(a, "TRIM(TRAILING 'y' FROM s)", "(rtrim s 'y')");
  sqlt_x(a, "nullif(a.attidentity, '')", "(nullif a.attidentity '')");
  sqlt_x(a, "row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum)",
         "(row_number (over (partition-by a.attrelid) (order-by (asc a.attnum))))");
  sqlt_x(a, "sum(x) OVER ()", "(sum x (over))");
  sqlt_x(a, "rank() OVER (ORDER BY x DESC)", "(rank (over (order-by (desc x))))");
  /* frames: a lone bound is the start (the end is CURRENT ROW) */
  sqlt_x(a, "sum(x) OVER (ORDER BY y ROWS 2 PRECEDING)",
         "(sum x (over (rows (preceding 2) current-row) (order-by (asc y))))");
  sqlt_x(a, "sum(x) OVER (ORDER BY y RANGE BETWEEN UNBOUNDED PRECEDING AND 1 + 1 FOLLOWING "
            "EXCLUDE TIES)",
         "(sum x (over (range unbounded-preceding (following (+ 1 1)) exclude-ties) "
         "(order-by (asc y))))");
  sqlt_x(a, "count(*) OVER (w GROUPS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE NO "
            "OTHERS)",
         "(count * (over w (groups current-row unbounded-following)))");
  sqlt_x(a, "lag(x) OVER w", "(lag x (over w))");
  /* UNBOUNDED PRECEDING is the bound; a column named unbounded still reads */
  sqlt_x(a, "sum(x) OVER (ROWS BETWEEN unbounded PRECEDING AND \"unbounded\" FOLLOWING)",
         "(sum x (over (rows unbounded-preceding (following unbounded))))");
  /* FILTER folds into the argument */
  sqlt_x(a, "count(*) FILTER (WHERE x > 1)", "(count (case (when (> x 1) 1)))");
  /* the window hangs on the call */
  sql_stmt_list_t *l = sqlt_parse(a, "SELECT count(*) OVER (PARTITION BY a, b)");
  const sql_target_t *t = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 0);
  assert_non_null(t->tg_expr->ex_over);
  assert_int_equal(sql_list_len(t->tg_expr->ex_over->wi_partition), 2);
  assert_null(t->tg_expr->ex_over->wi_order);
  assert_true(t->tg_expr->ex_star);
}

static void test_query_forms(void **state)
{
  static const sqlt_case_t c[] = {
    {"WITH x AS (SELECT 1), y(a) AS (SELECT 2) SELECT * FROM x, y ORDER BY 1 LIMIT 2",
     SQL_STMT_SELECT,
     "(with (x (select (1))) (y (a) (select (2))) (select (*) (from x y) (order-by (asc 1)) "
     "(limit 2)))"},
    {"WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r", SQL_STMT_SELECT,
     "(with-recursive (r (select (1))) (select (*) (from r)))"},
    {"WITH recursive AS (SELECT 1) SELECT * FROM recursive", SQL_STMT_SELECT,
     "(with (recursive (select (1))) (select (*) (from recursive)))"},
    {"WITH x AS MATERIALIZED (SELECT 1), y (a) AS NOT MATERIALIZED (SELECT 2) SELECT * FROM x, y",
     SQL_STMT_SELECT,
     "(with (x materialized (select (1))) (y (a) not-materialized (select (2))) "
     "(select (*) (from x y)))"},
    {"WITH materialized AS (SELECT 1 AS materialized) SELECT materialized FROM materialized",
     SQL_STMT_SELECT,
     "(with (materialized (select ((as 1 materialized)))) (select (materialized) (from "
     "materialized)))"},
    {"SELECT * FROM t FOR UPDATE", SQL_STMT_SELECT, "(select (*) (from t) (for-update))"},
    {"SELECT * FROM t WHERE a = 1 FOR SHARE NOWAIT", SQL_STMT_SELECT,
     "(select (*) (from t) (where (= a 1)) (for-share nowait))"},
    {"SELECT * FROM t LIMIT 1 FOR UPDATE", SQL_STMT_SELECT,
     "(select (*) (from t) (limit 1) (for-update))"},
    {"SELECT * FROM t FETCH FIRST 3 ROWS ONLY", SQL_STMT_SELECT,
     "(select (*) (from t) (limit 3))"},
    {"SELECT * FROM t ORDER BY a OFFSET 2 ROWS FETCH NEXT ROW ONLY", SQL_STMT_SELECT,
     "(select (*) (from t) (order-by (asc a)) (limit 1) (offset 2))"},
    {"SELECT * FROM t LIMIT ALL", SQL_STMT_SELECT, "(select (*) (from t))"},
    {"SELECT * FROM a NATURAL JOIN b JOIN c USING (x, y) LEFT JOIN d USING (z)",
     SQL_STMT_SELECT,
     "(select (*) (from (join left (join inner (join natural-inner a b) c (using (x y))) d "
     "(using (z)))))"},
    {"SELECT * FROM a NATURAL LEFT JOIN b", SQL_STMT_SELECT,
     "(select (*) (from (join natural-left a b)))"},
    {"SELECT * FROM (VALUES (1, 2)) AS v(a, b)", SQL_STMT_SELECT,
     "(select (*) (from (as (values (1 2)) v (a b))))"},
    {"SELECT s FROM pg_catalog.generate_series(0, 3) s, t", SQL_STMT_SELECT,
     "(select (s) (from (as (pg_catalog.generate_series 0 3) s) t))"},
    {"SELECT * FROM generate_series(1, 2) AS g(n)", SQL_STMT_SELECT,
     "(select (*) (from (as (generate_series 1 2) g (n))))"},
    {"SELECT 1 AS from, 2 AS user, 3 AS table_type", SQL_STMT_SELECT,
     "(select ((as 1 from) (as 2 user) (as 3 table_type)))"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
  sql_stmt_list_t *l = sqlt_parse(*state, "SELECT * FROM generate_series(1, 2) g(n)");
  const sql_from_t *f = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_from, 0);
  assert_int_equal(f->fr_kind, SQL_FROM_FUNC);
  assert_int_equal(f->fr_func->ex_kind, SQL_E_FUNC);
}

/* issue 8 item 6: LATERAL, DISTINCT ON, grouping sets, GROUPING(). */
static void test_query_language_forms(void **state)
{
  static const sqlt_case_t c[] = {
    {"SELECT * FROM t, LATERAL (SELECT t.a) s", SQL_STMT_SELECT,
     "(select (*) (from t (lateral (as (select (t.a)) s))))"},
    {"SELECT * FROM t LEFT JOIN LATERAL generate_series(1, t.n) g ON true", SQL_STMT_SELECT,
     "(select (*) (from (join left t (lateral (as (generate_series 1 t.n) g)) "
     "(on true))))"},
    {"SELECT DISTINCT ON (a, b + 1) a FROM t ORDER BY a", SQL_STMT_SELECT, "(select (distinct-on a (+ b 1)) (a) (from t) (order-by (asc a)))"},
    {"SELECT a, GROUPING(a, b) FROM t GROUP BY c, ROLLUP (a, (b, c)), CUBE (d), "
     "GROUPING SETS ((a), (), a, ROLLUP (b))", SQL_STMT_SELECT, "(select (a (grouping a b)) (from t) (group-by c (rollup a (grouping-row b c)) (cube d) "
     "(grouping-sets a (grouping-empty) a (rollup b))))"},
    {"SELECT sets FROM sets", SQL_STMT_SELECT, "(select (sets) (from sets))"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_copy(void **state)
{
  static const sqlt_case_t c[] = {
    {"COPY t FROM STDIN", SQL_STMT_COPY, "(copy t from stdin (format text))"},
    {"COPY t FROM STDIN CSV HEADER", SQL_STMT_COPY, "(copy t from stdin (format csv) header)"},
    {"COPY t FROM STDIN WITH CSV HEADER DELIMITER ';'", SQL_STMT_COPY,
     "(copy t from stdin (format csv) header (delimiter ';'))"},
    {"COPY t (a, b) FROM STDIN WITH (FORMAT csv, HEADER true, DELIMITER ';', NULL 'x', "
     "QUOTE '''', ESCAPE '\\')",
     SQL_STMT_COPY,
     "(copy t (a b) from stdin (format csv) header (delimiter ';') (null 'x') (quote '''') "
     "(escape '\\'))"},
    {"COPY t FROM STDIN (FORMAT text, HEADER false)", SQL_STMT_COPY,
     "(copy t from stdin (format text))"},
    {"COPY s.t TO STDOUT", SQL_STMT_COPY, "(copy s.t to stdout (format text))"},
    {"COPY t TO STDOUT (FORMAT 'csv', HEADER 1, FORCE_QUOTE *)", SQL_STMT_COPY,
     "(copy t to stdout (format csv) header (force-quote *))"},
    {"COPY (SELECT a FROM t ORDER BY a) TO STDOUT WITH CSV", SQL_STMT_COPY,
     "(copy (select (a) (from t) (order-by (asc a))) to stdout (format csv))"},
    {"COPY t FROM '/tmp/x.csv' (FORMAT csv, HEADER)", SQL_STMT_COPY,
     "(copy t from '/tmp/x.csv' (format csv) header)"},
    {"COPY t FROM STDIN WITH DELIMITER AS '|' NULL AS ''", SQL_STMT_COPY,
     "(copy t from stdin (format text) (delimiter '|') (null ''))"},
    {"COPY t FROM STDIN (FORMAT csv, FORCE_NOT_NULL (a, b), ENCODING 'UTF8', FREEZE)",
     SQL_STMT_COPY,
     "(copy t from stdin (format csv) (encoding 'UTF8') (force-not-null (a b)) freeze)"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
  sql_stmt_list_t *l = sqlt_parse(*state, "COPY t FROM STDIN CSV");
  const sql_copy_t *co = l->sl_stmts[0]->st_copy;
  assert_true(co->co_from);
  assert_null(co->co_file);
  assert_null(co->co_query);
  assert_int_equal(co->co_format, SQL_COPY_CSV);
  assert_string_equal(co->co_table.nm_name, "t");
}

static void test_dml_additions(void **state)
{
  static const sqlt_case_t c[] = {
    {"INSERT INTO t AS x VALUES (1) ON CONFLICT (a) DO NOTHING RETURNING a, b AS c",
     SQL_STMT_INSERT,
     "(insert (as t x) (values (1)) (on-conflict-do-nothing (a)) (returning (a (as b c))))"},
    {"INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING", SQL_STMT_INSERT,
     "(insert t (values (1)) (on-conflict-do-nothing))"},
    {"INSERT INTO t (a) SELECT b FROM u RETURNING *", SQL_STMT_INSERT,
     "(insert t (a) (select (b) (from u)) (returning (*)))"},
    {"UPDATE t SET a = 1 RETURNING *", SQL_STMT_UPDATE,
     "(update t (set (= a 1)) (returning (*)))"},
    {"DELETE FROM t WHERE a = 1 RETURNING a", SQL_STMT_DELETE,
     "(delete t (where (= a 1)) (returning (a)))"},
    {"WITH v AS (SELECT 1) INSERT INTO t SELECT * FROM v", SQL_STMT_INSERT,
     "(with (v (select (1))) (insert t (select (*) (from v))))"},
    {"WITH v AS (SELECT 1) UPDATE t SET a = (SELECT * FROM v)", SQL_STMT_UPDATE,
     "(with (v (select (1))) (update t (set (= a (subquery (select (*) (from v)))))))"},
    {"WITH RECURSIVE v AS (SELECT 1) DELETE FROM t", SQL_STMT_DELETE,
     "(with-recursive (v (select (1))) (delete t))"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_utility(void **state)
{
  static const sqlt_case_t c[] = {
    {"SHOW transaction isolation level", SQL_STMT_SHOW, "(show transaction_isolation)"},
    {"show transaction_isolation", SQL_STMT_SHOW, "(show transaction_isolation)"},
    {"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
     SQL_STMT_SET_TRANSACTION, "(set-transaction session isolation-serializable)"},
    {"SET TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY", SQL_STMT_SET_TRANSACTION,
     "(set-transaction isolation-read-committed read-only)"},
    {"SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED", SQL_STMT_SET_TRANSACTION,
     "(set-transaction isolation-read-uncommitted)"},
    {"SET SESSION datestyle = 'ISO'", SQL_STMT_SET, "(set datestyle 'ISO')"},
    {"SET transaction_isolation = 'serializable'", SQL_STMT_SET,
     "(set transaction_isolation 'serializable')"},
    {"BEGIN ISOLATION LEVEL REPEATABLE READ", SQL_STMT_BEGIN,
     "(begin isolation-repeatable-read)"},
    {"BEGIN", SQL_STMT_BEGIN, "(begin)"},
    {"START TRANSACTION READ WRITE NOT DEFERRABLE", SQL_STMT_BEGIN,
     "(begin read-write not-deferrable)"},
    {"START TRANSACTION ISOLATION LEVEL SERIALIZABLE DEFERRABLE", SQL_STMT_BEGIN,
     "(begin isolation-serializable deferrable)"},
    {"ALTER USER dba WITH PASSWORD 'x'", SQL_STMT_ALTER_ROLE, "(alter-user dba (password 'x'))"},
    {"ALTER ROLE r NOLOGIN PASSWORD NULL", SQL_STMT_ALTER_ROLE,
     "(alter-role r (password null) nologin)"},
    {"CREATE USER u WITH LOGIN SUPERUSER ENCRYPTED PASSWORD 'p'", SQL_STMT_CREATE_ROLE,
     "(create-user u (password 'p') login superuser)"},
    {"CREATE ROLE r CREATEDB NOCREATEROLE NOSUPERUSER", SQL_STMT_CREATE_ROLE,
     "(create-role r nosuperuser createdb nocreaterole)"},
    {"CHECKPOINT", SQL_STMT_CHECKPOINT, "(checkpoint)"},
    {"TRUNCATE TABLE a, s.b", SQL_STMT_TRUNCATE, "(truncate a s.b)"},
    {"TRUNCATE a", SQL_STMT_TRUNCATE, "(truncate a)"},
    {"VACUUM", SQL_STMT_VACUUM, "(vacuum)"},
    {"VACUUM ANALYZE", SQL_STMT_VACUUM, "(vacuum analyze)"},
    {"ANALYZE t", SQL_STMT_VACUUM, "(vacuum analyze t)"},
    {"DEALLOCATE \"_PLAN0x55ef0fd77720\"", SQL_STMT_DEALLOCATE,
     "(deallocate \"_PLAN0x55ef0fd77720\")"},
    {"DEALLOCATE PREPARE s_1", SQL_STMT_DEALLOCATE, "(deallocate s_1)"},
    {"DEALLOCATE prepare", SQL_STMT_DEALLOCATE, "(deallocate prepare)"},
    {"DEALLOCATE ALL", SQL_STMT_DEALLOCATE, "(deallocate all)"},
    {"RESET ALL", SQL_STMT_SET, "(set all default)"},
    {"RESET DateStyle", SQL_STMT_SET, "(set datestyle default)"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
  arena_t *a = *state;
  sql_stmt_list_t *l = sqlt_parse(a, "ALTER ROLE r PASSWORD NULL; CREATE USER u; "
                                     "SET TRANSACTION READ ONLY; DEALLOCATE ALL; BEGIN");
  assert_int_equal(l->sl_n, 5);
  assert_true(l->sl_stmts[0]->st_role->ro_password_given);
  assert_null(l->sl_stmts[0]->st_role->ro_password);
  assert_false(l->sl_stmts[1]->st_role->ro_password_given);
  assert_int_equal(l->sl_stmts[2]->st_txn->tm_read_only, 1);
  assert_int_equal(l->sl_stmts[2]->st_txn->tm_isolation, SQL_ISO_DEFAULT);
  assert_null(l->sl_stmts[3]->st_deallocate);
  assert_null(l->sl_stmts[4]->st_txn);
}

/* Words that became keywords stay usable as names where PostgreSQL allows. */
static void test_new_keywords_as_names(void **state)
{
  static const sqlt_case_t c[] = {
    {"SELECT level, header, format, rows, row, quote, read FROM copy", SQL_STMT_SELECT,
     "(select (level header format rows row quote read) (from copy))"},
    {"CREATE TABLE partition (over int, share text, next int)", SQL_STMT_CREATE_TABLE,
     "(create-table partition (col over int4) (col share text) (col next int4))"},
  };
  sqlt_cases(*state, c, CZ_ARRAY_LEN(c));
}

/* What quote_ident must quote: PostgreSQL quotes every keyword it does
 * not list as unreserved; the reserved ones cannot be bare names, the
 * col_name ones (and those this grammar is laxer about) can. */
static void test_keyword_reserved(void **state)
{
  arena_t *a = *state;
  static const char *const reserved[] = {"select", "from", "any", "using", "current_user",
                                         "user", "table", "default", "lateral", "window"};
  static const char *const quoted_names[] = {"trim", "values", "interval", "grouping",
                                             "between", "exists", "time", "analyze"};
  static const char *const free_words[] = {"level", "copy", "header", "rows", "items",
                                           "relname", "cube", "rollup", "set", "update",
                                           "insert", "delete", "drop", "by"};
  for (size_t i = 0; i < CZ_ARRAY_LEN(reserved); i++) {
    assert_true(sql_keyword_reserved(reserved[i]));
    sqlt_fail(a, arena_sprintf(a, "CREATE TABLE t (%s int)", reserved[i]));
  }
  for (size_t i = 0; i < CZ_ARRAY_LEN(quoted_names); i++) {
    assert_true(sql_keyword_reserved(quoted_names[i]));
    sqlt_parse(a, arena_sprintf(a, "CREATE TABLE t (%s int)", quoted_names[i]));
    sqlt_parse(a, arena_sprintf(a, "SELECT %s FROM %s", quoted_names[i], quoted_names[i]));
  }
  for (size_t i = 0; i < CZ_ARRAY_LEN(free_words); i++) {
    assert_false(sql_keyword_reserved(free_words[i]));
    sqlt_parse(a, arena_sprintf(a, "CREATE TABLE t (%s int)", free_words[i]));
    sqlt_parse(a, arena_sprintf(a, "SELECT %s FROM t", free_words[i]));
  }
}

static void test_errors(void **state)
{
  arena_t *a = *state;
  sqlt_err(a, "SELECT x::myschema.int4", "42704", 11);
  sqlt_err(a, "SELECT x::nosuchtype", "42704", 11);
  sqlt_err(a, "SELECT a OPERATOR(myschema.~) b", "42883", 19);
  sqlt_err(a, "SELECT a + ANY (b)", "42809", 12);
  sqlt_err(a, "WITH x AS (SELECT 1) (WITH y AS (SELECT 2) SELECT 3)", "42601", 1);
  sqlt_err(a, "SELECT 1 UNION SELECT 2 FOR UPDATE", "0A000", 25);
  sqlt_err(a, "COPY t FROM STDIN (FORMAT xml)", "22023", 20);
  sqlt_err(a, "COPY t FROM STDIN (COLOUR 'red')", "42601", 20);
  sqlt_err(a, "COPY t FROM STDIN (HEADER, HEADER)", "42601", 28);
  sqlt_err(a, "COPY t FROM STDIN (HEADER maybe)", "42601", 20);
  sqlt_err(a, "COPY t FROM STDIN (DELIMITER ';;')", "0A000", 1);
  sqlt_err(a, "COPY t FROM STDIN (QUOTE '\"')", "0A000", 1);
  sqlt_err(a, "COPY t FROM STDIN (FORMAT csv, DELIMITER '\"')", "22023", 1);
  sqlt_err(a, "COPY t FROM STDIN (FORMAT binary, HEADER)", "42601", 1);
  sqlt_err(a, "COPY t TO STDOUT (FORMAT csv, FORCE_NOT_NULL (a))", "0A000", 1);
  sqlt_err(a, "COPY (SELECT 1) FROM STDIN", "42601", 17);
  sqlt_err(a, "SELECT lateral FROM t", "42601", 8);
  sqlt_err(a, "SELECT extract(x) FROM t", "42601", 17);
  sqlt_err(a, "VACUUM FULL", "42601", 8);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_catalog_casts, sqlt_reset),
    cmocka_unit_test_setup(test_regex_and_operator, sqlt_reset),
    cmocka_unit_test_setup(test_any_all_arrays, sqlt_reset),
    cmocka_unit_test_setup(test_functions, sqlt_reset),
    cmocka_unit_test_setup(test_query_forms, sqlt_reset),
    cmocka_unit_test_setup(test_query_language_forms, sqlt_reset),
    cmocka_unit_test_setup(test_copy, sqlt_reset),
    cmocka_unit_test_setup(test_dml_additions, sqlt_reset),
    cmocka_unit_test_setup(test_utility, sqlt_reset),
    cmocka_unit_test_setup(test_new_keywords_as_names, sqlt_reset),
    cmocka_unit_test_setup(test_keyword_reserved, sqlt_reset),
    cmocka_unit_test_setup(test_errors, sqlt_reset),
  };
  return cmocka_run_group_tests(tests, sqlt_setup, sqlt_teardown);
}
