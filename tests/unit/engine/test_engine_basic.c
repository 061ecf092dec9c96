/* The engine end to end: DDL, DML and queries through engine.h on a
 * temporary database. */
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
  en_fixture_open("basic", &eng, &ses);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  en_fixture_close(eng, ses);
  return 0;
}

static void test_create_insert_select(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE t(a int, b int)");
  en_result_t r = {0};
  assert_int_equal(en_run(ses, "INSERT INTO t VALUES (1, 2), (3, 4), (5, NULL)", &r), CZ_OK);
  assert_string_equal(r.rr_tag, "INSERT 0 3");
  en_expect_rows(ses, "SELECT a + b FROM t WHERE a > 1", "7\nNULL");
  assert_int_equal(en_run(ses, "SELECT a, b FROM t ORDER BY a DESC", &r), CZ_OK);
  assert_string_equal(r.rr_rows, "5|NULL\n3|4\n1|2");
  assert_string_equal(r.rr_tag, "SELECT 3");
  en_result_free(&r);
}

static void test_primary_key_lookup_and_dml(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE k(id int PRIMARY KEY, name varchar(10), v numeric(10,2) DEFAULT 1.5)");
  en_exec(ses, "INSERT INTO k(id, name) VALUES (3, 'c'), (1, 'a'), (2, 'b')");
  en_expect_rows(ses, "SELECT * FROM k", "1|a|1.50\n2|b|1.50\n3|c|1.50");
  en_expect_rows(ses, "SELECT name FROM k WHERE id = 2", "b");
  en_expect_rows(ses, "SELECT name FROM k WHERE id = 7", "");
  /* a bigint compared with the int key still looks the key up */
  en_expect_rows(ses, "SELECT name FROM k WHERE id = CAST(2 AS bigint)", "b");
  en_expect_rows(ses, "SELECT name FROM k WHERE id = 3000000000", "");
  char *plan = en_query(ses, "EXPLAIN SELECT name FROM k WHERE id = 3000000000");
  assert_non_null(strstr(plan, "lookup on 1 key column"));
  free(plan);
  en_expect_error(ses, "INSERT INTO k VALUES (1, 'dup', 0)", "23505");
  en_expect_error(ses, "INSERT INTO k VALUES (NULL, 'x', 0)", "23502");
  en_expect_error(ses, "INSERT INTO k VALUES (9, 'much too long', 0)", "22001");
  en_result_t r = {0};
  assert_int_equal(en_run(ses, "UPDATE k SET v = v * 2 WHERE id >= 2", &r), CZ_OK);
  assert_string_equal(r.rr_tag, "UPDATE 2");
  assert_int_equal(en_run(ses, "DELETE FROM k WHERE name = 'a'", &r), CZ_OK);
  assert_string_equal(r.rr_tag, "DELETE 1");
  en_expect_rows(ses, "SELECT id, v FROM k ORDER BY id", "2|3.00\n3|3.00");
  assert_int_equal(en_run(ses, "UPDATE k SET id = id + 10", &r), CZ_OK);
  en_expect_rows(ses, "SELECT id FROM k ORDER BY 1", "12\n13");
  en_result_free(&r);
}

/* A statement never reads its own changes: inserting a table's rows
 * into itself doubles it, and moving every key updates each row once. */
static void test_statement_does_not_see_its_changes(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE h(id int PRIMARY KEY)");
  en_exec(ses, "INSERT INTO h VALUES (1)");
  for (int i = 0; i < 8; i++)
    en_exec(ses, "INSERT INTO h SELECT id + (SELECT max(id) FROM h) FROM h");
  en_expect_rows(ses, "SELECT count(*), min(id), max(id) FROM h", "256|1|256");
  en_result_t r = {0};
  assert_int_equal(en_run(ses, "UPDATE h SET id = id + 1000", &r), CZ_OK);
  assert_string_equal(r.rr_tag, "UPDATE 256");
  en_result_free(&r);
  en_expect_rows(ses, "SELECT count(*), min(id), max(id) FROM h", "256|1001|1256");
  en_exec(ses, "DELETE FROM h WHERE id > 1010");
  en_expect_rows(ses, "SELECT count(*) FROM h", "10");
}

static void test_errors_carry_sqlstates(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE e(a int, b text)");
  en_expect_rows(ses, "SELECT * FROM e", "");
  en_expect_error(ses, "SELECT * FROM nosuch", "42P01");
  en_expect_error(ses, "SELECT c FROM e", "42703");
  en_expect_error(ses, "SELECT a FROM e x, e y", "42702");
  en_expect_error(ses, "SELECT a + b FROM e", "42883");
  en_expect_error(ses, "SELECT a, count(*) FROM e", "42803");
  en_expect_error(ses, "SELECT * FROM e WHERE count(*) > 1", "42803");
  en_expect_error(ses, "SELEC 1", "42601");
  en_expect_error(ses, "SELECT 1/0", "22012");
  en_expect_error(ses, "CREATE TABLE e(x int)", "42P07");
  en_expect_error(ses, "SELECT 'abc'::int", "22P02");
  en_expect_error(ses, "SELECT (SELECT a FROM e UNION ALL SELECT 1 UNION ALL SELECT 2)", "21000");
  en_expect_error(ses, "SELECT * FROM e ORDER BY 3", "42P10");
}

static void test_transactions(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE tx(a int)");
  assert_int_equal(esession_tx_status(ses), 'I');
  en_exec(ses, "BEGIN");
  assert_int_equal(esession_tx_status(ses), 'T');
  en_exec(ses, "INSERT INTO tx VALUES (1)");
  en_exec(ses, "ROLLBACK");
  assert_int_equal(esession_tx_status(ses), 'I');
  en_expect_rows(ses, "SELECT count(*) FROM tx", "0");
  en_exec(ses, "BEGIN; INSERT INTO tx VALUES (2); COMMIT");
  en_expect_rows(ses, "SELECT a FROM tx", "2");
  en_exec(ses, "BEGIN");
  en_expect_error(ses, "SELECT nosuch FROM tx", "42703");
  assert_int_equal(esession_tx_status(ses), 'E');
  en_expect_error(ses, "SELECT 1", "25P02");
  en_result_t r = {0};
  assert_int_equal(en_run(ses, "COMMIT", &r), CZ_OK);
  assert_string_equal(r.rr_tag, "ROLLBACK");
  assert_int_equal(esession_tx_status(ses), 'I');
  en_result_free(&r);
  /* DDL is transactional */
  en_exec(ses, "BEGIN; CREATE TABLE gone(a int); INSERT INTO gone VALUES (1)");
  en_expect_rows(ses, "SELECT * FROM gone", "1");
  en_exec(ses, "ROLLBACK");
  en_expect_error(ses, "SELECT * FROM gone", "42P01");
}

static int notice_count;
static char notice_state[6];
static void on_notice(void *ctx, const char *sev, const err_t *notice)
{
  (void)ctx;
  (void)sev;
  notice_count++;
  snprintf(notice_state, sizeof(notice_state), "%s", notice->er_sqlstate);
}

static void test_commit_outside_block_warns(void **state)
{
  (void)state;
  en_result_t r = {0};
  assert_int_equal(en_run(ses, "COMMIT", &r), CZ_OK);
  assert_string_equal(r.rr_tag, "COMMIT");
  notice_count = 0;
  esession_drain_notices(ses, on_notice, NULL);
  assert_int_equal(notice_count, 1);
  assert_string_equal(notice_state, "25P01");
  en_result_free(&r);
}

static int count_rows(void *ctx, const batch_t *b, err_t *e)
{
  (void)e;
  *(int *)ctx += b->b_n;
  return CZ_OK;
}

static void test_portal_row_limit(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE p(a int)");
  en_exec(ses, "INSERT INTO p SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 "
               "UNION ALL SELECT 5");
  err_t e;
  estmt_t *st;
  const char *sql = "SELECT a FROM p WHERE a > $1 ORDER BY a";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  assert_int_equal(estmt_nparams(st), 1);
  assert_int_equal(estmt_param_type(st, 0).t_id, TY_INT4);
  const ecol_t *cols;
  int ncols;
  estmt_columns(st, &cols, &ncols);
  assert_int_equal(ncols, 1);
  assert_string_equal(cols[0].ec_name, "a");
  eparam_t prm = {.ep_data = (const uint8_t *)"1", .ep_len = 1, .ep_format = 0};
  eportal_t *p;
  assert_int_equal(eportal_bind(st, &prm, 1, &p, &e), CZ_OK);
  bool susp;
  int n = 0;
  assert_int_equal(eportal_execute(p, 3, count_rows, &n, &susp, &e), CZ_OK);
  assert_true(susp);
  assert_int_equal(n, 3);
  n = 0;
  assert_int_equal(eportal_execute(p, 3, count_rows, &n, &susp, &e), CZ_OK);
  assert_false(susp);
  assert_int_equal(n, 1);
  assert_string_equal(eportal_tag(p), "SELECT 4");
  eportal_free(p);
  /* the same statement again with another value */
  prm.ep_data = (const uint8_t *)"4";
  assert_int_equal(eportal_bind(st, &prm, 1, &p, &e), CZ_OK);
  n = 0;
  assert_int_equal(eportal_execute(p, 0, count_rows, &n, &susp, &e), CZ_OK);
  assert_int_equal(n, 1);
  eportal_free(p);
  estmt_free(st);
}

/* EXECUTE of a prepared query: described as the query (columns, its own
 * $1), suspended and resumed under a row limit, and still running after
 * its target is DEALLOCATEd (the portal keeps the statement alive). */
static void test_execute_row_limit(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE xr(a int PRIMARY KEY)");
  en_exec(ses, "INSERT INTO xr VALUES (1),(2),(3),(4),(5)");
  en_exec(ses, "PREPARE xr_q(int) AS SELECT a FROM xr WHERE a >= $1 ORDER BY a");
  err_t e;
  estmt_t *st;
  const char *sql = "EXECUTE xr_q($1 - 1)";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  assert_int_equal(estmt_kind(st), ESTMT_QUERY);
  assert_int_equal(estmt_nparams(st), 1);
  const ecol_t *cols;
  int ncols;
  estmt_columns(st, &cols, &ncols);
  assert_int_equal(ncols, 1);
  assert_string_equal(cols[0].ec_name, "a");
  eparam_t prm = {.ep_data = (const uint8_t *)"2", .ep_len = 1, .ep_format = 0};
  eportal_t *p;
  assert_int_equal(eportal_bind(st, &prm, 1, &p, &e), CZ_OK);
  bool susp;
  int n = 0;
  assert_int_equal(eportal_execute(p, 2, count_rows, &n, &susp, &e), CZ_OK);
  assert_true(susp);
  assert_int_equal(n, 2);
  en_exec(ses, "DEALLOCATE xr_q");
  n = 0;
  assert_int_equal(eportal_execute(p, 0, count_rows, &n, &susp, &e), CZ_OK);
  assert_false(susp);
  assert_int_equal(n, 3);
  assert_string_equal(eportal_tag(p), "SELECT 5");
  eportal_free(p);
  /* the target is gone now */
  assert_int_equal(eportal_bind(st, &prm, 1, &p, &e), CZ_OK);
  assert_int_equal(eportal_execute(p, 0, count_rows, &n, &susp, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "26000");
  eportal_free(p);
  estmt_free(st);
  en_expect_error(ses, "EXECUTE xr_q(1)", "26000");
}

static void test_parameter_types_and_formats(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE pt(id bigint PRIMARY KEY, name text, price numeric(6,2))");
  err_t e;
  estmt_t *st;
  const char *sql = "INSERT INTO pt VALUES ($1, $2, $3)";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  assert_int_equal(estmt_nparams(st), 3);
  assert_int_equal(estmt_param_type(st, 0).t_id, TY_INT8);
  assert_int_equal(estmt_param_type(st, 1).t_id, TY_TEXT);
  assert_int_equal(estmt_param_type(st, 2).t_id, TY_NUMERIC);
  const ecol_t *cols;
  int ncols;
  estmt_columns(st, &cols, &ncols);
  assert_int_equal(ncols, -1);
  /* $1 in binary (int8 big endian), the others as text */
  uint8_t id[8] = {0, 0, 0, 0, 0, 0, 0, 7};
  eparam_t prm[3] = {{.ep_data = id, .ep_len = 8, .ep_format = 1},
                     {.ep_data = (const uint8_t *)"seven", .ep_len = 5, .ep_format = 0},
                     {.ep_data = NULL}};
  eportal_t *p;
  bool susp;
  assert_int_equal(eportal_bind(st, prm, 3, &p, &e), CZ_OK);
  assert_int_equal(eportal_execute(p, 0, count_rows, &(int){0}, &susp, &e), CZ_OK);
  assert_string_equal(eportal_tag(p), "INSERT 0 1");
  eportal_free(p);
  /* wrong parameter count and a bad value */
  assert_int_equal(eportal_bind(st, prm, 2, &p, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "08P01");
  prm[0] = (eparam_t){.ep_data = (const uint8_t *)"x", .ep_len = 1, .ep_format = 0};
  assert_int_equal(eportal_bind(st, prm, 3, &p, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22P02");
  estmt_free(st);
  en_expect_rows(ses, "SELECT id, name, price FROM pt", "7|seven|NULL");
  /* a client-declared type wins over inference; untyped ones are text */
  uint32_t oids[2] = {20, 0};
  sql = "SELECT $1 + 1, $2";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), oids, 2, &st, &e), CZ_OK);
  assert_int_equal(estmt_param_type(st, 0).t_id, TY_INT8);
  assert_int_equal(estmt_param_type(st, 1).t_id, TY_TEXT);
  estmt_columns(st, &cols, &ncols);
  assert_int_equal(ncols, 2);
  assert_int_equal(cols[0].ec_type.t_id, TY_INT8);
  assert_string_equal(cols[0].ec_name, "?column?");
  estmt_free(st);
  /* LIMIT takes a bigint; a table column reports its table and attnum */
  sql = "SELECT name FROM pt LIMIT $1";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  assert_int_equal(estmt_param_type(st, 0).t_id, TY_INT8);
  estmt_columns(st, &cols, &ncols);
  assert_true(cols[0].ec_table_oid != 0);
  assert_int_equal(cols[0].ec_attnum, 2);
  estmt_free(st);
}

static void test_explain(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE x(id int PRIMARY KEY, v int)");
  char *plan = en_query(ses, "EXPLAIN SELECT v FROM x WHERE id = 1");
  assert_non_null(strstr(plan, "Scan  x (lookup on 1 key column)"));
  assert_non_null(strstr(plan, "Project"));
  free(plan);
  en_exec(ses, "INSERT INTO x VALUES (1, 10), (2, 20), (3, 30)");
  plan = en_query(ses, "EXPLAIN ANALYZE SELECT v FROM x WHERE v + 0 > 15");
  assert_non_null(strstr(plan, "Filter  (rows=2)"));
  assert_non_null(strstr(plan, "Scan  x  (rows=3)"));
  free(plan);
  /* a simple comparison is tested by the scan itself */
  plan = en_query(ses, "EXPLAIN ANALYZE SELECT v FROM x WHERE v > 15");
  assert_null(strstr(plan, "Filter"));
  assert_non_null(strstr(plan, "Scan  x pushed: v > 15  (rows=2)"));
  free(plan);
  /* equality joins hash, whether written with JOIN … ON or in WHERE */
  plan = en_query(ses, "EXPLAIN SELECT * FROM x a LEFT JOIN x b ON a.v = b.id * 10 AND a.id = b.v");
  assert_non_null(strstr(plan, "HashJoin  left on $1 = $4 filter"));
  free(plan);
  plan = en_query(ses, "EXPLAIN SELECT * FROM x a, x b WHERE a.id = b.v");
  assert_non_null(strstr(plan, "HashJoin  inner on $1 = $4"));
  free(plan);
  en_expect_rows(ses, "SELECT a.id, b.id FROM x a LEFT JOIN x b ON a.v = b.id * 10 ORDER BY 1",
              "1|1\n2|2\n3|3");
  /* a join on the inner table's whole primary key looks the key up when
   * the outer side is much smaller (x grows by rows no query here meets) */
  en_exec(ses, "INSERT INTO x SELECT g, 0 FROM generate_series(100, 5000) g");
  en_exec(ses, "CREATE TABLE y(k int PRIMARY KEY, xid int)");
  en_exec(ses, "INSERT INTO y VALUES (5, 1), (6, 3), (7, NULL), (8, 9)");
  plan = en_query(ses, "EXPLAIN SELECT y.k, x.v FROM y, x WHERE x.id = y.xid AND x.v > 5");
  assert_non_null(strstr(plan, "LookupJoin  inner x on $2 filter"));
  free(plan);
  en_expect_rows(ses, "SELECT y.k, x.v FROM y, x WHERE x.id = y.xid AND x.v > 5 ORDER BY 1",
              "5|10\n6|30");
  plan = en_query(ses, "EXPLAIN SELECT * FROM y LEFT JOIN x ON x.id = y.xid AND x.v > 15");
  assert_non_null(strstr(plan, "LookupJoin  left x on $2 filter"));
  free(plan);
  en_expect_rows(ses, "SELECT y.k, x.v FROM y LEFT JOIN x ON x.id = y.xid AND x.v > 15 ORDER BY 1",
              "5|NULL\n6|30\n7|NULL\n8|NULL");
}

static int copy_out_cb(void *ctx, const char *data, size_t len, err_t *e)
{
  (void)e;
  char *buf = ctx;
  strncat(buf, data, len);
  return CZ_OK;
}

static void test_copy_in_and_out(void **state)
{
  (void)state;
  en_exec(ses, "CREATE TABLE c1(a int, b text, d int DEFAULT 7)");
  err_t e;
  estmt_t *st;
  const char *sql = "COPY c1 (a, b) FROM STDIN";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  assert_int_equal(estmt_kind(st), ESTMT_COPY_IN);
  eportal_t *p;
  assert_int_equal(eportal_bind(st, NULL, 0, &p, &e), CZ_OK);
  int ncols, format;
  assert_int_equal(eportal_copy_in_begin(p, &ncols, &format, &e), CZ_OK);
  assert_int_equal(ncols, 2);
  assert_int_equal(format, 0);
  /* chunks cut inside lines; a tab and a newline escaped; \N is NULL */
  const char *chunks[] = {"1\tone\n2\ttw", "o\\tx\n3\t\\N\n4\tfour\\nlines", "\n"};
  for (int i = 0; i < 3; i++)
    assert_int_equal(eportal_copy_in_data(p, chunks[i], strlen(chunks[i]), &e), CZ_OK);
  assert_int_equal(eportal_copy_in_done(p, &e), CZ_OK);
  assert_string_equal(eportal_tag(p), "COPY 4");
  eportal_free(p);
  estmt_free(st);
  en_expect_rows(ses, "SELECT a, b, d FROM c1 WHERE a < 4 ORDER BY a",
                 "1|one|7\n2|two\tx|7\n3|NULL|7");

  sql = "COPY c1 TO STDOUT (FORMAT csv, HEADER true)";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  assert_int_equal(estmt_kind(st), ESTMT_COPY_OUT);
  assert_int_equal(eportal_bind(st, NULL, 0, &p, &e), CZ_OK);
  char out[1024] = "";
  assert_int_equal(eportal_copy_out(p, copy_out_cb, out, &e), CZ_OK);
  assert_string_equal(out, "a,b,d\n1,one,7\n2,two\tx,7\n3,,7\n4,\"four\nlines\",7\n");
  assert_string_equal(eportal_tag(p), "COPY 4");
  eportal_free(p);
  estmt_free(st);

  /* a bad value fails the whole COPY */
  sql = "COPY c1 FROM STDIN WITH (FORMAT csv)";
  assert_int_equal(estmt_prepare(ses, sql, strlen(sql), NULL, 0, &st, &e), CZ_OK);
  assert_int_equal(eportal_bind(st, NULL, 0, &p, &e), CZ_OK);
  assert_int_equal(eportal_copy_in_begin(p, &ncols, &format, &e), CZ_OK);
  assert_int_equal(format, 0); /* CSV is a text format on the wire */
  const char *bad = "5,\"x,y\",1\n6,z,notanumber\n";
  int rc = eportal_copy_in_data(p, bad, strlen(bad), &e);
  if (rc == CZ_OK)
    rc = eportal_copy_in_done(p, &e);
  else
    eportal_copy_in_fail(p, e.er_msg);
  assert_int_equal(rc, CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22P02");
  eportal_free(p);
  estmt_free(st);
  en_expect_rows(ses, "SELECT count(*) FROM c1", "4");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_create_insert_select, setup, teardown),
      cmocka_unit_test_setup_teardown(test_primary_key_lookup_and_dml, setup, teardown),
      cmocka_unit_test_setup_teardown(test_statement_does_not_see_its_changes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors_carry_sqlstates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_transactions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_commit_outside_block_warns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_portal_row_limit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execute_row_limit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parameter_types_and_formats, setup, teardown),
      cmocka_unit_test_setup_teardown(test_explain, setup, teardown),
      cmocka_unit_test_setup_teardown(test_copy_in_and_out, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
