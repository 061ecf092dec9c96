/* pg_catalog through the engine: every catalog query the clients send
 * (tests/unit/sql/client_queries.sql, psql's \l and \du in
 * tests/unit/pgcat/psql_backslash.sql) runs through engine.h on a real
 * database, and the answers psql, pgJDBC and psqlODBC build their output
 * from are checked row by row; plus the binder forms those queries need
 * (reg* casts, arrays as text, window numbering, generate_series) and the
 * rule that the system catalogs are read-only. */
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
static char oid[16];            /* items' OID as text */

static int setup(void **state)
{
  (void)state;
  en_fixture_open("pgcat", &eng, &ses);
  en_exec(ses, "CREATE TABLE items (id integer PRIMARY KEY, name varchar(40) NOT NULL, "
               "price numeric(10,2))");
  en_exec(ses, "INSERT INTO items VALUES (1, 'one', 0.50), (2, 'two', 1.50), (3, 'three', 2.50)");
  char *o = en_query(ses, "SELECT oid FROM pg_catalog.pg_class WHERE relname = 'items'");
  snprintf(oid, sizeof(oid), "%s", o);
  free(o);
  assert_true(atoi(oid) > 0);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  en_fixture_close(eng, ses);
  return 0;
}

/* sql with every "@OID" replaced by items' OID (malloc'd). */
static char *with_oid(const char *sql)
{
  size_t n = strlen(sql);
  char *out = malloc(n * 2 + 64);
  char *p = out;
  while (*sql) {
    if (strncmp(sql, "@OID", 4) == 0) {
      p += sprintf(p, "%s", oid);
      sql += 4;
    } else
      *p++ = *sql++;
  }
  *p = 0;
  return out;
}

static void expect_rows(const char *sql, const char *want)
{
  char *q = with_oid(sql), *w = with_oid(want);
  char *got = en_query(ses, q);
  if (strcmp(got, w) != 0)
    fail_msg("%s\n got: [%s]\nwant: [%s]", q, got, w);
  free(got);
  free(q);
  free(w);
}

/* ---- every client text runs ------------------------------------------------ */

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static int discard(void *ctx, const batch_t *b, err_t *e)
{
  (void)e;
  *(int *)ctx += b->b_n;
  return CZ_OK;
}

/* Runs one statement as the extended protocol would: prepared without
 * parameter types, every parameter bound to the text '2'. */
static bool run_one(const char *label, const char *sql, size_t len)
{
  err_t e;
  estmt_t *st;
  if (estmt_prepare(ses, sql, len, NULL, 0, &st, &e) != CZ_OK) {
    fprintf(stderr, "FAIL %s: prepare: %s %s\n%.*s\n", label, e.er_sqlstate, e.er_msg, (int)len,
            sql);
    return false;
  }
  int np = estmt_nparams(st);
  eparam_t params[8];
  for (int i = 0; i < np && i < 8; i++)
    params[i] = (eparam_t){(const uint8_t *)"2", 1, 0};
  eportal_t *p;
  bool ok = eportal_bind(st, params, np, &p, &e) == CZ_OK;
  if (ok) {
    int rows = 0;
    bool susp;
    ok = eportal_execute(p, 0, discard, &rows, &susp, &e) == CZ_OK;
    eportal_free(p);
  }
  if (!ok)
    fprintf(stderr, "FAIL %s: %s %s\n%.*s\n", label, e.er_sqlstate, e.er_msg, (int)len, sql);
  estmt_free(st);
  return ok;
}

/* Runs every `-- @@ label` text of a file (the captured OID 16824 made
 * items'); returns how many texts ran, failures counted in *failed.
 * DEALLOCATE of the driver's statement name is the protocol layer's. */
static int run_file(const char *path, int *failed)
{
  char *buf = slurp(path);
  int texts = 0;
  char *p = strstr(buf, "\n-- @@ ");
  while (p) {
    char *label = p + 7;
    char *body = strchr(label, '\n');
    assert_non_null(body);
    *body++ = 0;
    char *next = strstr(body, "\n-- @@ ");
    if (next)
      *next = 0;
    char *sql = malloc(strlen(body) * 2 + 64), *o = sql;
    for (const char *s = body; *s;)
      if (strncmp(s, "16824", 5) == 0) {
        o += sprintf(o, "%s", oid);
        s += 5;
      } else
        *o++ = *s++;
    *o = 0;
    if (!strstr(sql, "DEALLOCATE")) {
      arena_t *a = arena_create(NULL, "split");
      etext_t *parts;
      int n;
      err_t e;
      if (esession_split(ses, sql, strlen(sql), a, &parts, &n, &e) != CZ_OK) {
        fprintf(stderr, "FAIL %s: %s\n", label, e.er_msg);
        (*failed)++;
      } else
        for (int i = 0; i < n; i++)
          if (!run_one(label, sql + parts[i].et_off, parts[i].et_len))
            (*failed)++;
      arena_destroy(a);
      texts++;
    }
    free(sql);
    if (next)
      *next = '\n';
    p = next;
  }
  free(buf);
  return texts;
}

static void test_every_client_text_runs(void **state)
{
  (void)state;
  int failed = 0;
  int n = run_file(CZ_SRCDIR "/tests/unit/sql/client_queries.sql", &failed);
  n += run_file(CZ_SRCDIR "/tests/unit/pgcat/psql_backslash.sql", &failed);
  assert_int_equal(failed, 0);
  assert_true(n >= 40);  /* 43 texts less the two DEALLOCATEs, plus \l and \du */
}

/* ---- what psql shows ----------------------------------------------------------- */

static void test_psql_dt_and_describe(void **state)
{
  (void)state;
  /* \dt */
  expect_rows("SELECT n.nspname, c.relname, CASE c.relkind WHEN 'r' THEN 'table' END, "
              "pg_catalog.pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class c "
              "LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
              "LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam "
              "WHERE c.relkind IN ('r','p','') AND n.nspname <> 'pg_catalog' "
              "AND n.nspname !~ '^pg_toast' AND n.nspname <> 'information_schema' "
              "AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1,2",
              "public|items|table|dba");
  /* \d items, 1: the name lookup */
  expect_rows("SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c "
              "LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
              "WHERE c.relname OPERATOR(pg_catalog.~) '^(items)$' COLLATE pg_catalog.default "
              "AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 2, 3",
              "@OID|public|items");
  /* 3: the columns */
  expect_rows("SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), "
              "(SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true) FROM pg_catalog.pg_attrdef d "
              "WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef), a.attnotnull, "
              "(SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t "
              "WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) "
              "AS attcollation, a.attidentity, a.attgenerated FROM pg_catalog.pg_attribute a "
              "WHERE a.attrelid = '@OID' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
              "id|integer|NULL|t|NULL||\n"
              "name|character varying(40)|NULL|t|NULL||\n"
              "price|numeric(10,2)|NULL|f|NULL||");
  /* 4: the indexes */
  expect_rows("SELECT c2.relname, i.indisprimary, i.indisunique, "
              "pg_catalog.pg_get_indexdef(i.indexrelid, 0, true), "
              "pg_catalog.pg_get_constraintdef(con.oid, true), contype "
              "FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i "
              "LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND "
              "conindid = i.indexrelid AND contype IN ('p','u','x')) "
              "WHERE c.oid = '@OID' AND c.oid = i.indrelid AND i.indexrelid = c2.oid "
              "ORDER BY i.indisprimary DESC, c2.relname",
              "items_pkey|t|t|CREATE UNIQUE INDEX items_pkey ON public.items USING btree (id)|"
              "PRIMARY KEY (id)|p");
}

static void test_psql_l_and_du(void **state)
{
  (void)state;
  expect_rows("SELECT d.datname, pg_catalog.pg_get_userbyid(d.datdba), "
              "pg_catalog.pg_encoding_to_char(d.encoding) FROM pg_catalog.pg_database d ORDER BY 1",
              "db|dba|UTF8");
  en_exec(ses, "CREATE ROLE grp");
  en_exec(ses, "CREATE USER u1 PASSWORD 'x'");
  /* (the SQL surface has no GRANT role TO role yet: memberships are empty) */
  expect_rows("SELECT r.rolname, r.rolsuper, r.rolcanlogin, ARRAY(SELECT b.rolname "
              "FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles b ON (m.roleid = b.oid) "
              "WHERE m.member = r.oid) as memberof FROM pg_catalog.pg_roles r "
              "WHERE r.rolname !~ '^pg_' ORDER BY 1",
              "dba|t|t|{}\ngrp|f|f|{}\nu1|f|t|{}");
  /* \dfS: pg_proc and the function description functions */
  expect_rows("SELECT n.nspname, p.proname, pg_catalog.pg_get_function_result(p.oid), "
              "pg_catalog.pg_get_function_arguments(p.oid), CASE p.prokind WHEN 'a' THEN 'agg' "
              "ELSE 'func' END FROM pg_catalog.pg_proc p LEFT JOIN pg_catalog.pg_namespace n "
              "ON n.oid = p.pronamespace WHERE pg_catalog.pg_function_is_visible(p.oid) AND "
              "p.proname OPERATOR(pg_catalog.~) '^(format_type|concat_ws)$' ORDER BY 1, 2, 4",
              "pg_catalog|concat_ws|text|text, \"any\", VARIADIC \"any\"|func\n"
              "pg_catalog|format_type|text|bigint, integer|func");
  expect_rows("SELECT pg_catalog.pg_function_is_visible(1), pg_get_function_result(1)", "NULL|NULL");
}

/* ---- what pgJDBC and psqlODBC read ---------------------------------------------- */

static void test_jdbc_get_columns(void **state)
{
  (void)state;
  expect_rows("SELECT * FROM (SELECT n.nspname,c.relname,a.attname,a.atttypid,a.attnotnull,"
              "a.atttypmod,row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum, "
              "nullif(a.attidentity, '') as attidentity, pg_catalog.pg_get_expr(def.adbin, def.adrelid) "
              "AS adsrc, dsc.description FROM pg_catalog.pg_namespace n "
              "JOIN pg_catalog.pg_class c ON (c.relnamespace = n.oid) "
              "JOIN pg_catalog.pg_attribute a ON (a.attrelid=c.oid) "
              "LEFT JOIN pg_catalog.pg_attrdef def ON (a.attrelid=def.adrelid AND a.attnum = def.adnum) "
              "LEFT JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid) "
              "WHERE c.relkind in ('r','p','v','f','m') and a.attnum > 0 AND NOT a.attisdropped "
              "AND n.nspname LIKE 'public' AND c.relname LIKE 'items') c WHERE true "
              "AND attname LIKE '%' ORDER BY nspname,c.relname,attnum",
              "public|items|id|23|t|-1|1|NULL|NULL|NULL\n"
              "public|items|name|1043|t|44|2|NULL|NULL|NULL\n"
              "public|items|price|1700|f|655366|3|NULL|NULL|NULL");
  expect_rows("SELECT n.nspname, c.relname, d.description FROM pg_catalog.pg_namespace n, "
              "pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_description d ON (c.oid = d.objoid "
              "AND d.objsubid = 0 and d.classoid = 'pg_class'::regclass) WHERE c.relnamespace = n.oid "
              "AND n.nspname LIKE 'public' AND c.relname LIKE '%' AND c.relkind = 'r'",
              "public|items|NULL");
}

static void test_odbc_columns(void **state)
{
  (void)state;
  expect_rows("select c.relname, a.attname, t.typname, a.attnum, a.attlen, a.atttypmod, "
              "a.attnotnull, c.relhasrules, c.relkind, case t.typtype when 'd' then t.typbasetype "
              "else 0 end, attidentity, c.relhassubclass from (((pg_catalog.pg_class c inner join "
              "pg_catalog.pg_namespace n on n.oid = c.relnamespace and c.relname like 'items' and "
              "n.nspname like 'public') inner join pg_catalog.pg_attribute a on (not a.attisdropped) "
              "and a.attnum > 0 and a.attrelid = c.oid) inner join pg_catalog.pg_type t on "
              "t.oid = a.atttypid) left outer join pg_attrdef d on a.atthasdef and "
              "d.adrelid = a.attrelid and d.adnum = a.attnum order by n.nspname, c.relname, attnum",
              "items|id|int4|1|4|-1|t|f|r|0||f\n"
              "items|name|varchar|2|-1|44|t|f|r|0||f\n"
              "items|price|numeric|3|-1|655366|f|f|r|0||f");
  expect_rows("select oid, typbasetype from pg_type where typname = 'lo'", "");
  expect_rows("select current_schema()", "public");
}

/* ---- the binder forms the catalog queries use ------------------------------------ */

static void test_reg_casts(void **state)
{
  (void)state;
  expect_rows("SELECT 'pg_class'::regclass, 'items'::pg_catalog.regclass = @OID, "
              "@OID::regclass, 1259::regclass::text, 'int4'::regtype, 23::regtype, "
              "11::regnamespace, 'public'::regnamespace",
              "pg_class|t|items|pg_class|integer|integer|pg_catalog|public");
  /* the OID where the value is compared or kept, not shown */
  expect_rows("SELECT count(*) FROM pg_catalog.pg_class WHERE oid = 'pg_class'::regclass", "1");
  expect_rows("SELECT 'pg_class'::regclass::oid, 'pg_class'::regclass = 1259", "1259|t");
  en_expect_error(ses, "SELECT 'nosuch'::regclass", "42P01");
  /* regproc: a function's name, as pg_type.typinput holds it (pgJDBC's getTypeInfo) */
  expect_rows("SELECT count(*) > 0 AND count(*) = (SELECT count(*) FROM pg_catalog.pg_type "
              "WHERE typcategory = 'A' AND substr(typname, 1, 1) = '_') FROM pg_catalog.pg_type t "
              "WHERE t.typinput = 'pg_catalog.array_in'::regproc",
              "t");
  expect_rows("SELECT 'int4in'::regproc, 'format_type'::pg_catalog.regproc", "int4in|format_type");
  en_expect_error(ses, "SELECT 'nosuchfn'::regproc", "42883");
  /* the server's fixed limits are read-only settings (pgJDBC's getImportedKeys) */
  expect_rows("SELECT setting FROM pg_catalog.pg_settings WHERE name = 'max_index_keys'", "32");
  expect_rows("SELECT current_setting('max_function_args')", "8");
  en_expect_error(ses, "SELECT true::regclass", "42846");
}

static void test_arrays_as_text(void **state)
{
  (void)state;
  expect_rows("SELECT ARRAY['a', 'b c', NULL, ''], ARRAY[1, 2]::int4[], ARRAY[]::text[]",
              "{a,\"b c\",NULL,\"\"}|{1,2}|{}");
  expect_rows("SELECT ('{5,6,7}'::int2[])[2] + 1, ('{5,6}'::int2[])[9], 'x' = ANY ('{x,y}'), "
              "'z' = ANY ('{x,y}'), 'z' <> ALL ('{x,y}'), 'z' = ANY ('{x,NULL}')",
              "7|NULL|t|f|t|NULL");
  /* int2vector subscripts start at 0, and the element is int2 */
  expect_rows("SELECT i.indkey[0] + 0, i.indkey FROM pg_catalog.pg_index i "
              "WHERE i.indrelid = @OID", "1|1");
  expect_rows("SELECT array(SELECT relname FROM pg_catalog.pg_class "
              "WHERE relnamespace = 2200 ORDER BY 1 DESC), array(SELECT 1 WHERE false)",
              "{items_pkey,items}|{}");
  en_expect_error(ses, "SELECT 1 < ANY ('{1,2}')", "0A000");
}

static void test_window_numbering(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE w(g int, v int)");
  en_exec(ses, "INSERT INTO w VALUES (1, 10), (1, 20), (1, 20), (2, 5), (2, NULL), (3, 7)");
  expect_rows("SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v), "
              "rank() OVER (PARTITION BY g ORDER BY v), dense_rank() OVER (PARTITION BY g ORDER BY v) "
              "FROM w ORDER BY g, v",
              "1|10|1|1|1\n1|20|2|2|2\n1|20|3|2|2\n2|5|1|1|1\n2|NULL|2|2|2\n3|7|1|1|1");
  expect_rows("SELECT v, row_number() OVER (ORDER BY v DESC) FROM w WHERE g = 1 ORDER BY 2",
              "20|1\n20|2\n10|3");
  expect_rows("SELECT count(*) FROM (SELECT row_number() OVER () AS n FROM w) s WHERE n > 4", "2");
  expect_rows("SELECT row_number() OVER ()", "1");
  en_expect_error(ses, "SELECT g FROM w WHERE row_number() OVER () > 1", "42P20");
  /* windows over grouped rows, and the other window functions */
  expect_rows("SELECT g, count(*), rank() OVER (ORDER BY count(*) DESC, g) FROM w GROUP BY g "
              "ORDER BY g",
              "1|3|1\n2|2|2\n3|1|3");
  expect_rows("SELECT ntile(2) OVER (ORDER BY g, v), lag(v) OVER (ORDER BY g, v) FROM w "
              "WHERE g = 1 ORDER BY 1, 2",
              "1|10\n1|NULL\n2|20");
  en_expect_error(ses, "SELECT count(DISTINCT v) OVER () FROM w", "0A000");
  en_expect_error(ses, "SELECT sum(v) OVER (ROWS -1 PRECEDING) FROM w", "22013");
}

static void test_generate_series(void **state)
{
  (void)state;
  expect_rows("SELECT s FROM generate_series(1, 4) s", "1\n2\n3\n4");
  expect_rows("SELECT * FROM pg_catalog.generate_series(10, 1, -4)", "10\n6\n2");
  expect_rows("SELECT x FROM generate_series(1, 3) AS t(x) WHERE x <> 2", "1\n3");
  expect_rows("SELECT count(*) FROM generate_series(5, 1)", "0");
  /* correlated: the bounds are the outer row's */
  expect_rows("SELECT id, (SELECT sum(s) FROM generate_series(1, id) s) FROM items ORDER BY id",
              "1|1\n2|3\n3|6");
  en_expect_error(ses, "SELECT * FROM generate_series(1, 3, 0)", "22023");
  en_expect_error(ses, "SELECT * FROM lower('x')", "0A000");
}

static void test_unnest(void **state)
{
  (void)state;
  expect_rows("SELECT x FROM unnest('{a,\"b c\",NULL}') x", "a\nb c\nNULL");
  expect_rows("SELECT count(*) FROM pg_catalog.unnest('{}'::text[])", "0");
  expect_rows("SELECT count(*) FROM unnest(NULL::text[])", "0");
  expect_rows("SELECT u + 1 FROM unnest('{4,5}'::int4[]) AS t(u)", "5\n6");
  /* an int2vector from the catalog: its elements, typed int2 */
  expect_rows("SELECT (SELECT max(k) * 10 FROM unnest(i.indkey) k) FROM pg_catalog.pg_index i "
              "WHERE i.indrelid = @OID", "10");
  /* psql's \d+ reads TOAST options through it (none here) */
  expect_rows("SELECT array(select 'toast.' || x from pg_catalog.unnest(tc.reloptions) x) "
              "FROM pg_catalog.pg_class tc WHERE tc.oid = @OID", "{}");
}

/* ---- read-only catalogs, visible to every role ----------------------------------- */

static void test_catalogs_read_only(void **state)
{
  (void)state;
  en_expect_error(ses, "INSERT INTO pg_catalog.pg_class (relname) VALUES ('x')", "42501");
  en_expect_error(ses, "DELETE FROM pg_class", "42501");
  en_expect_error(ses, "UPDATE information_schema.tables SET table_name = 'x'", "42501");
  en_exec(ses, "CREATE USER reader PASSWORD 'x'");
  esession_t *r = en_test_session(eng, "reader");
  char *got = en_query(r, "SELECT relname FROM pg_class WHERE relname = 'items'");
  assert_string_equal(got, "items");
  free(got);
  /* information_schema shows only what the role may use */
  got = en_query(r, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'items'");
  assert_string_equal(got, "0");
  free(got);
  en_expect_error(r, "SELECT * FROM items", "42501");
  esession_close(r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_every_client_text_runs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_psql_dt_and_describe, setup, teardown),
      cmocka_unit_test_setup_teardown(test_psql_l_and_du, setup, teardown),
      cmocka_unit_test_setup_teardown(test_jdbc_get_columns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_odbc_columns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reg_casts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_arrays_as_text, setup, teardown),
      cmocka_unit_test_setup_teardown(test_window_numbering, setup, teardown),
      cmocka_unit_test_setup_teardown(test_generate_series, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unnest, setup, teardown),
      cmocka_unit_test_setup_teardown(test_catalogs_read_only, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
