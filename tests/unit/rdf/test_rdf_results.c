/* test_rdf_results — the SPARQL results writers (JSON, XML, CSV, TSV)
 * against expected texts for tricky values: quotes, line breaks, tabs,
 * non-ASCII text, language tags, typed literals, blank nodes, unbound
 * values, ASK results; and streaming row by row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf.h"
#include "rdf_testlib.h"

#define XSD "http://www.w3.org/2001/XMLSchema#"

static const char *const vars[] = {"s", "o", "x"};

/* Row 1: an IRI, a literal with quote/newline/tab/CR/<>&, unbound.
 * Row 2: a blank node, a language-tagged literal with non-ASCII text, a
 * typed literal. Row 3: all unbound. */
static void write_rows(rdf_results_t *r)
{
  assert_int_equal(rdf_results_head(r, vars, 3), 0);
  rdf_term_t row1[3] = {rdf_iri("http://ex/a?b=1&c=\"2\""),
                        rdf_literal("say \"hi\",\nthen\ttab\r<&>", NULL, NULL), {0}};
  rdf_term_t row2[3] = {rdf_bnode("b0"), rdf_literal("caf\xC3\xA9 \xF0\x9F\x98\x80", NULL, "fr-BE"),
                        rdf_literal("42", XSD "integer", NULL)};
  rdf_term_t row3[3] = {{0}, {0}, {0}};
  assert_int_equal(rdf_results_row(r, row1), 0);
  assert_int_equal(rdf_results_row(r, row2), 0);
  assert_int_equal(rdf_results_row(r, row3), 0);
}

static const char *run(rdf_results_fmt_t fmt, tl_buf_t *b)
{
  memset(b, 0, sizeof(*b));
  rdf_results_t *r = rdf_results_new(fmt, tl_buf_sink, b);
  assert_non_null(r);
  write_rows(r);
  assert_int_equal(rdf_results_finish(r), 0);
  return tl_buf_str(b);
}

static void test_json(void **state)
{
  (void)state;
  tl_buf_t b;
  assert_string_equal(
      run(RDF_RESULTS_JSON, &b),
      "{\"head\":{\"vars\":[\"s\",\"o\",\"x\"]},\"results\":{\"bindings\":[\n"
      "{\"s\":{\"type\":\"uri\",\"value\":\"http://ex/a?b=1&c=\\\"2\\\"\"},"
      "\"o\":{\"type\":\"literal\",\"value\":\"say \\\"hi\\\",\\nthen\\ttab\\r<&>\"}},\n"
      "{\"s\":{\"type\":\"bnode\",\"value\":\"b0\"},"
      "\"o\":{\"type\":\"literal\",\"value\":\"caf\xC3\xA9 \xF0\x9F\x98\x80\",\"xml:lang\":\"fr-BE\"},"
      "\"x\":{\"type\":\"literal\",\"value\":\"42\",\"datatype\":\"" XSD "integer\"}},\n"
      "{}\n"
      "]}}\n");
  free(b.tb_data);
}

/* A result cut by the HTTP server's ResultSetMaxRows says so: JSON's
 * top-level "truncated"/"maxRows" after the results, XML's cz:truncated
 * element after </results>; CSV has no place for it. */
static void test_truncated_marker(void **state)
{
  (void)state;
  tl_buf_t b = {0};
  rdf_results_t *r = rdf_results_new(RDF_RESULTS_JSON, tl_buf_sink, &b);
  assert_int_equal(rdf_results_head(r, vars, 1), 0);
  rdf_term_t row[3] = {rdf_iri("http://ex/a"), {0}, {0}};
  assert_int_equal(rdf_results_row(r, row), 0);
  rdf_results_truncated(r, 1);
  assert_int_equal(rdf_results_finish(r), 0);
  assert_string_equal(tl_buf_str(&b),
                      "{\"head\":{\"vars\":[\"s\"]},\"results\":{\"bindings\":[\n"
                      "{\"s\":{\"type\":\"uri\",\"value\":\"http://ex/a\"}}\n"
                      "]},\"truncated\":true,\"maxRows\":1}\n");
  free(b.tb_data);
  memset(&b, 0, sizeof b);
  r = rdf_results_new(RDF_RESULTS_XML, tl_buf_sink, &b);
  assert_int_equal(rdf_results_head(r, vars, 1), 0);
  assert_int_equal(rdf_results_row(r, row), 0);
  rdf_results_truncated(r, 1);
  assert_int_equal(rdf_results_finish(r), 0);
  const char *x = tl_buf_str(&b);
  const char *tail = "</results>\n<cz:truncated xmlns:cz=\"urn:cadenza:results\" maxRows=\"1\"/>\n"
                     "</sparql>\n";
  assert_true(strlen(x) > strlen(tail));
  assert_string_equal(x + strlen(x) - strlen(tail), tail);
  free(b.tb_data);
}

static void test_xml(void **state)
{
  (void)state;
  tl_buf_t b;
  assert_string_equal(
      run(RDF_RESULTS_XML, &b),
      "<?xml version=\"1.0\"?>\n"
      "<sparql xmlns=\"http://www.w3.org/2005/sparql-results#\">\n"
      "<head>\n"
      "  <variable name=\"s\"/>\n"
      "  <variable name=\"o\"/>\n"
      "  <variable name=\"x\"/>\n"
      "</head>\n"
      "<results>\n"
      "  <result>\n"
      "    <binding name=\"s\"><uri>http://ex/a?b=1&amp;c=&quot;2&quot;</uri></binding>\n"
      "    <binding name=\"o\"><literal>say &quot;hi&quot;,\nthen\ttab&#13;&lt;&amp;&gt;</literal></binding>\n"
      "  </result>\n"
      "  <result>\n"
      "    <binding name=\"s\"><bnode>b0</bnode></binding>\n"
      "    <binding name=\"o\"><literal xml:lang=\"fr-BE\">caf\xC3\xA9 \xF0\x9F\x98\x80</literal></binding>\n"
      "    <binding name=\"x\"><literal datatype=\"" XSD "integer\">42</literal></binding>\n"
      "  </result>\n"
      "  <result>\n"
      "  </result>\n"
      "</results>\n"
      "</sparql>\n");
  free(b.tb_data);
}

static void test_csv(void **state)
{
  (void)state;
  tl_buf_t b;
  assert_string_equal(run(RDF_RESULTS_CSV, &b),
                      "s,o,x\r\n"
                      "\"http://ex/a?b=1&c=\"\"2\"\"\",\"say \"\"hi\"\",\nthen\ttab\r<&>\",\r\n"
                      "_:b0,caf\xC3\xA9 \xF0\x9F\x98\x80,42\r\n"
                      ",,\r\n");
  free(b.tb_data);
}

static void test_tsv(void **state)
{
  (void)state;
  tl_buf_t b;
  assert_string_equal(run(RDF_RESULTS_TSV, &b),
                      "?s\t?o\t?x\n"
                      "<http://ex/a?b=1&c=\\u00222\\u0022>\t\"say \\\"hi\\\",\\nthen\\ttab\\r<&>\"\t\n"
                      "_:b0\t\"caf\xC3\xA9 \xF0\x9F\x98\x80\"@fr-BE\t\"42\"^^<" XSD "integer>\n"
                      "\t\t\n");
  free(b.tb_data);
}

static const char *ask(rdf_results_fmt_t fmt, bool v, tl_buf_t *b)
{
  memset(b, 0, sizeof(*b));
  rdf_results_t *r = rdf_results_new(fmt, tl_buf_sink, b);
  assert_int_equal(rdf_results_boolean(r, v), 0);
  assert_int_equal(rdf_results_finish(r), 0);
  return tl_buf_str(b);
}

static void test_ask(void **state)
{
  (void)state;
  tl_buf_t b;
  assert_string_equal(ask(RDF_RESULTS_JSON, true, &b), "{\"head\":{},\"boolean\":true}\n");
  free(b.tb_data);
  assert_string_equal(ask(RDF_RESULTS_XML, false, &b),
                      "<?xml version=\"1.0\"?>\n<sparql xmlns=\"http://www.w3.org/2005/sparql-results#\">\n"
                      "<head/>\n<boolean>false</boolean>\n</sparql>\n");
  free(b.tb_data);
  assert_string_equal(ask(RDF_RESULTS_CSV, true, &b), "_askResult\r\ntrue\r\n");
  free(b.tb_data);
  assert_string_equal(ask(RDF_RESULTS_TSV, false, &b), "?_askResult\nfalse\n");
  free(b.tb_data);
}

static void test_empty_result_and_call_order(void **state)
{
  (void)state;
  tl_buf_t b = {0};
  rdf_results_t *r = rdf_results_new(RDF_RESULTS_JSON, tl_buf_sink, &b);
  rdf_term_t row[1] = {{0}};
  assert_int_equal(rdf_results_row(r, row), -1); /* a row before the head */
  const char *v[] = {"a"};
  assert_int_equal(rdf_results_head(r, v, 1), 0);
  assert_int_equal(rdf_results_boolean(r, true), -1);
  assert_int_equal(rdf_results_finish(r), 0);
  assert_string_equal(tl_buf_str(&b), "{\"head\":{\"vars\":[\"a\"]},\"results\":{\"bindings\":[\n]}}\n");
  free(b.tb_data);
  assert_string_equal(rdf_results_media_type(RDF_RESULTS_JSON), "application/sparql-results+json");
}

static void test_streams_row_by_row(void **state)
{
  (void)state;
  tl_buf_t b = {0};
  rdf_results_t *r = rdf_results_new(RDF_RESULTS_XML, tl_buf_sink, &b);
  const char *v[] = {"n"};
  assert_int_equal(rdf_results_head(r, v, 1), 0);
  char lex[32];
  size_t calls_at_1000 = 0;
  for (int i = 0; i < 2000; i++) {
    snprintf(lex, sizeof(lex), "%d", i);
    rdf_term_t row[1] = {rdf_literal(lex, XSD "integer", NULL)};
    assert_int_equal(rdf_results_row(r, row), 0);
    if (i == 1000)
      calls_at_1000 = b.tb_calls;
  }
  /* the sink saw output long before the end */
  assert_true(calls_at_1000 >= 2);
  assert_int_equal(rdf_results_finish(r), 0);
  assert_non_null(strstr(tl_buf_str(&b), "<literal datatype=\"" XSD "integer\">1999</literal>"));
  free(b.tb_data);
  /* a failing sink stops the writer */
  tl_buf_t f = {.tb_fail_after = 1};
  r = rdf_results_new(RDF_RESULTS_CSV, tl_buf_sink, &f);
  assert_int_equal(rdf_results_head(r, v, 1), 0);
  int st = 0;
  for (int i = 0; i < 100000 && st == 0; i++) {
    rdf_term_t row[1] = {rdf_literal("some text", NULL, NULL)};
    st = rdf_results_row(r, row);
  }
  assert_int_equal(st, -7);
  assert_int_equal(rdf_results_finish(r), -7);
  free(f.tb_data);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json),
      cmocka_unit_test(test_truncated_marker),
      cmocka_unit_test(test_xml),
      cmocka_unit_test(test_csv),
      cmocka_unit_test(test_tsv),
      cmocka_unit_test(test_ask),
      cmocka_unit_test(test_empty_result_and_call_order),
      cmocka_unit_test(test_streams_row_by_row),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
