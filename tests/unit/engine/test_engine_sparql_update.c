/* SPARQL Update through esession_sparql_update, the engine entry the HTTP
 * endpoint calls for application/sparql-update: the counts it reports, the
 * protocol's using-graph-uri / using-named-graph-uri (and their conflict
 * with WITH / USING), the base IRI, one transaction per request (an error
 * leaves nothing; inside a block the block fails), syntax errors. The
 * same requests through SQL (`SPARQL …`) are tests/server/isolated_sparql_update.py. */
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
  en_fixture_open("sparqlupd", &eng, &ses);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  en_fixture_close(eng, ses);
  return 0;
}

/* Runs an update; fails the test on error unless want_state is given. */
static void update(const char *text, const char *base, const char *const *using, int nusing,
                   const char *const *named, int nnamed, int64_t want_ins, int64_t want_del,
                   const char *want_state)
{
  err_t e;
  err_clear(&e);
  int64_t ins = -1, del = -1;
  int rc = esession_sparql_update(ses, text, strlen(text), base, using, nusing, named, nnamed, &ins,
                                  &del, &e);
  if (want_state) {
    if (rc == CZ_OK)
      fail_msg("%s: no error, want %s", text, want_state);
    if (strcmp(e.er_sqlstate, want_state) != 0)
      fail_msg("%s: %s %s, want %s", text, e.er_sqlstate, e.er_msg, want_state);
    return;
  }
  if (rc != CZ_OK)
    fail_msg("%s: %s %s", text, e.er_sqlstate, e.er_msg);
  assert_int_equal(ins, want_ins);
  assert_int_equal(del, want_del);
}

#define ALL_QUADS "SELECT rdf_term(g), rdf_term(s), rdf_term(p), rdf_term(o) FROM pg_rdf.rdf_quad ORDER BY 1, 2, 3, 4"

static void test_counts_and_base(void **state)
{
  (void)state;
  update("INSERT DATA { <a> <p> 1 , 2 . GRAPH <g> { <a> <p> 3 } }", "http://ex.org/", NULL, 0, NULL, 0,
         3, 0, NULL);
  update("INSERT DATA { <http://ex.org/a> <http://ex.org/p> 1 }", NULL, NULL, 0, NULL, 0, 0, 0, NULL);
  update("DELETE DATA { <http://ex.org/a> <http://ex.org/p> 2, 9 }", NULL, NULL, 0, NULL, 0, 0, 1, NULL);
  en_expect_rows(ses, ALL_QUADS,
                 "<http://ex.org/g>|<http://ex.org/a>|<http://ex.org/p>|\"3\"^^<http://www.w3.org/2001/XMLSchema#integer>\n"
                 "NULL|<http://ex.org/a>|<http://ex.org/p>|\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>");
  assert_int_equal(esession_tx_status(ses), 'I');
}

static void test_protocol_using(void **state)
{
  (void)state;
  update("PREFIX : <http://ex.org/> INSERT DATA { GRAPH :g1 { :a :p 1 } GRAPH :g2 { :b :p 2 } :c :p 3 }",
         NULL, NULL, 0, NULL, 0, 3, 0, NULL);
  const char *g1[] = {"http://ex.org/g1"}, *g2[] = {"http://ex.org/g2"};
  /* using-graph-uri: the WHERE's default graph is g1 */
  update("PREFIX : <http://ex.org/> INSERT { ?s :q ?o } WHERE { ?s :p ?o }", NULL, g1, 1, NULL, 0, 1,
         0, NULL);
  en_expect_rows(ses, "SPARQL PREFIX : <http://ex.org/> SELECT ?s ?o WHERE { ?s :q ?o }",
                 "<http://ex.org/a>|\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>");
  /* using-named-graph-uri alone: the default graph is empty, GRAPH ?g is g2 */
  update("PREFIX : <http://ex.org/> INSERT { ?s :r ?g } WHERE { GRAPH ?g { ?s :p ?o } }", NULL, NULL, 0,
         g2, 1, 1, 0, NULL);
  en_expect_rows(ses, "SPARQL PREFIX : <http://ex.org/> SELECT ?s ?g WHERE { ?s :r ?g }",
                 "<http://ex.org/b>|<http://ex.org/g2>");
  /* with WITH or USING in the request: 42601, nothing changes */
  update("PREFIX : <http://ex.org/> WITH :g1 INSERT { ?s :z 1 } WHERE { ?s :p ?o }", NULL, g1, 1, NULL,
         0, 0, 0, "42601");
  update("PREFIX : <http://ex.org/> INSERT { ?s :z 1 } USING :g2 WHERE { ?s :p ?o }", NULL, NULL, 0, g1,
         1, 0, 0, "42601");
  en_expect_rows(ses, "SELECT count(*) FROM pg_rdf.rdf_quad", "5");
}

static void test_one_transaction(void **state)
{
  (void)state;
  update("INSERT DATA { GRAPH <http://ex.org/g> { <http://ex.org/a> <http://ex.org/p> 1 } }", NULL, NULL,
         0, NULL, 0, 1, 0, NULL);
  /* the last operation fails: the first is undone */
  update("INSERT DATA { <http://ex.org/x> <http://ex.org/p> 1 } ; CREATE GRAPH <http://ex.org/g>", NULL,
         NULL, 0, NULL, 0, 0, 0, "42710");
  en_expect_rows(ses, "SELECT count(*) FROM pg_rdf.rdf_quad", "1");
  assert_int_equal(esession_tx_status(ses), 'I');
  /* SILENT: that operation alone is undone */
  update("INSERT DATA { <http://ex.org/x> <http://ex.org/p> 1 } ; CREATE SILENT GRAPH <http://ex.org/g>",
         NULL, NULL, 0, NULL, 0, 1, 0, NULL);
  en_expect_rows(ses, "SELECT count(*) FROM pg_rdf.rdf_quad", "2");
  /* inside a block: part of it; a failure fails the block */
  en_exec(ses, "BEGIN");
  update("CLEAR ALL", NULL, NULL, 0, NULL, 0, 0, 2, NULL);
  assert_int_equal(esession_tx_status(ses), 'T');
  en_expect_rows(ses, "SELECT count(*) FROM pg_rdf.rdf_quad", "0");
  en_exec(ses, "ROLLBACK");
  en_expect_rows(ses, "SELECT count(*) FROM pg_rdf.rdf_quad", "2");
  en_exec(ses, "BEGIN");
  update("LOAD <http://ex.org/data.ttl>", NULL, NULL, 0, NULL, 0, 0, 0, "0A000");
  assert_int_equal(esession_tx_status(ses), 'E');
  update("CLEAR ALL", NULL, NULL, 0, NULL, 0, 0, 0, "25P02");
  en_exec(ses, "ROLLBACK");
  en_expect_rows(ses, "SELECT count(*) FROM pg_rdf.rdf_quad", "2");
}

static void test_errors(void **state)
{
  (void)state;
  err_t e;
  err_clear(&e);
  int64_t ins, del;
  const char *bad = "INSERT DATA {\n <http://ex.org/a> <http://ex.org/p> }";
  assert_int_equal(esession_sparql_update(ses, bad, strlen(bad), NULL, NULL, 0, NULL, 0, &ins, &del, &e),
                   CZ_ERR);
  assert_string_equal(e.er_sqlstate, "42601");
  assert_non_null(strstr(e.er_msg, "line 2"));
  const char *query = "SELECT * WHERE { ?s ?p ?o }";
  assert_int_equal(esession_sparql_update(ses, query, strlen(query), NULL, NULL, 0, NULL, 0, &ins, &del, &e),
                   CZ_ERR);
  assert_string_equal(e.er_sqlstate, "42601");
  assert_int_equal(esession_tx_status(ses), 'I');
  en_expect_rows(ses, "SELECT 1", "1");
  /* in a block a syntax error fails the block, as in SQL */
  en_exec(ses, "BEGIN");
  assert_int_equal(esession_sparql_update(ses, bad, strlen(bad), NULL, NULL, 0, NULL, 0, &ins, &del, &e),
                   CZ_ERR);
  assert_int_equal(esession_tx_status(ses), 'E');
  en_exec(ses, "ROLLBACK");
}

/* Many quads in one request: DELETE DATA looks its constants up in one
 * dictionary probe (rdf_dict_lookup), every quad deleted by key. */
static void test_many_quads(void **state)
{
  (void)state;
  size_t cap = 200000, n = 0;
  char *ins = malloc(cap), *del = malloc(cap);
  n += (size_t)snprintf(ins + n, cap - n, "PREFIX : <http://ex.org/> INSERT DATA {");
  for (int i = 0; i < 700; i++)
    n += (size_t)snprintf(ins + n, cap - n, " :s%d :p \"v%d\" .", i % 50, i);
  snprintf(ins + n, cap - n, " }");
  update(ins, NULL, NULL, 0, NULL, 0, 700, 0, NULL);
  n = (size_t)snprintf(del, cap, "PREFIX : <http://ex.org/> DELETE DATA {");
  for (int i = 0; i < 700; i += 2)
    n += (size_t)snprintf(del + n, cap - n, " :s%d :p \"v%d\" .", i % 50, i);
  snprintf(del + n, cap - n, " :s1 :p \"nothing\" }");
  update(del, NULL, NULL, 0, NULL, 0, 0, 350, NULL);
  en_expect_rows(ses, "SELECT count(*) FROM pg_rdf.rdf_quad", "350");
  update("DELETE WHERE { ?s <http://ex.org/p> ?o }", NULL, NULL, 0, NULL, 0, 0, 350, NULL);
  /* constants longer than the dictionaries' short keys */
  char *lng = malloc(5000);
  memset(lng, 'x', 3000);
  lng[3000] = '\0';
  snprintf(ins, cap, "INSERT DATA { <http://ex.org/%s> <http://ex.org/p> \"%s\" }", lng, lng);
  snprintf(del, cap, "DELETE DATA { <http://ex.org/%s> <http://ex.org/p> \"%s\" }", lng, lng);
  update(ins, NULL, NULL, 0, NULL, 0, 1, 0, NULL);
  update(del, NULL, NULL, 0, NULL, 0, 0, 1, NULL);
  en_expect_rows(ses, "SELECT count(*) FROM pg_rdf.rdf_quad", "0");
  free(lng);
  free(ins);
  free(del);
}

/* Edge cases: empty templates and patterns, empty requests, unknown
 * graphs everywhere, a graph variable bound to a literal — each runs
 * without error and changes what it should (nothing, mostly). */
static void test_edges(void **state)
{
  (void)state;
  static const struct {
    const char *text;
    int64_t ins, del;
  } cases[] = {
      {"", 0, 0},
      {"PREFIX : <http://ex.org/>", 0, 0},
      {"INSERT DATA {}", 0, 0},
      {"DELETE DATA {}", 0, 0},
      {"DELETE WHERE {}", 0, 0},
      {"INSERT {} WHERE {}", 0, 0},
      {"INSERT { <http://ex.org/a> <http://ex.org/p> 1 } WHERE {}", 1, 0},
      {"INSERT DATA { <http://ex.org/a> <http://ex.org/p> 1 } ;", 0, 0},
      {"CLEAR GRAPH <http://ex.org/none> ; DROP GRAPH <http://ex.org/none> ; CLEAR NAMED", 0, 0},
      {"COPY <http://ex.org/none> TO <http://ex.org/none2> ; MOVE DEFAULT TO DEFAULT", 0, 0},
      {"INSERT { GRAPH ?o { ?s ?p ?o } } WHERE { ?s ?p ?o }", 0, 0},
      {"DELETE { GRAPH <http://ex.org/none> { ?s ?p ?o } } WHERE { ?s ?p ?o }", 0, 0},
      {"WITH <http://ex.org/none> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", 0, 0},
      {"DELETE { ?s ?p ?o } USING <http://ex.org/none> WHERE { ?s ?p ?o }", 0, 0},
      {"INSERT { ?x <http://ex.org/q> ?s } WHERE { ?s ?p ?o OPTIONAL { ?s <http://ex.org/none> ?x } }", 0,
       0},
      {"MOVE DEFAULT TO <http://ex.org/g> ; MOVE <http://ex.org/g> TO DEFAULT", 2, 2},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    update(cases[i].text, NULL, NULL, 0, NULL, 0, cases[i].ins, cases[i].del, NULL);
  en_expect_rows(ses, ALL_QUADS,
                 "NULL|<http://ex.org/a>|<http://ex.org/p>|\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_counts_and_base, setup, teardown),
      cmocka_unit_test_setup_teardown(test_protocol_using, setup, teardown),
      cmocka_unit_test_setup_teardown(test_one_transaction, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_many_quads, setup, teardown),
      cmocka_unit_test_setup_teardown(test_edges, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
