/* test_rdf_writer — the RDF writers: parse, write, parse again gives the
 * same quads in every syntax; exact text of the escapes and of Turtle's
 * grouping; streaming through the sink and sink errors.
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

/* Tricky terms: quotes, backslashes, newlines, tabs, a C0 control, non-ASCII
 * text, language tags, typed literals, blank nodes, IRIs with characters
 * that need care, named and default graphs. */
static const char *tricky_nq =
    "<http://ex/s> <http://ex/p> \"say \\\"hi\\\"\\\\ back\" <http://ex/g1> .\n"
    "<http://ex/s> <http://ex/p> \"line1\\nline2\\r\\tend\\u0001\" <http://ex/g1> .\n"
    "<http://ex/s> <http://ex/p> \"caf\\u00E9 \\U0001F600 \xE2\x82\xAC\"@fr-BE .\n"
    "<http://ex/s> <http://ex/q> \"12\"^^<" XSD "integer> .\n"
    "<http://ex/s> <http://ex/q> \"-0012\"^^<" XSD "integer> .\n"
    "<http://ex/s> <http://ex/q> \"true\"^^<" XSD "boolean> .\n"
    "<http://ex/s> <http://ex/q> \"1.5E3\"^^<" XSD "double> .\n"
    "<http://ex/s> <http://ex/q> \"x\"^^<http://ex/my%20type> .\n"
    "_:a <http://ex/p> _:b _:g .\n"
    "_:b <http://ex/p> _:a _:g .\n"
    "<http://ex/s#frag> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/C> .\n"
    "<http://ex/s#frag> <http://ex/p> <http://ex/x> .\n"
    "<http://ex/s#frag> <http://ex/p> <http://ex/y> .\n"
    "<http://ex/s#frag> <http://ex/r> \"\" .\n"
    "<urn:x-y:z> <http://ex/p> \"no graph\" <http://ex/g2> .\n";

static void parse_text(const char *name, const char *text, size_t len, rdf_syntax_t syn,
                       tl_quads_t *out)
{
  err_t e;
  err_clear(&e);
  memset(out, 0, sizeof(*out));
  rdf_read_opts_t o = {.ro_syntax = syn, .ro_fn = tl_collect, .ro_ctx = out};
  int rc = rdf_read_mem(name, text, len, &o, &e);
  if (rc != CZ_OK)
    fprintf(stderr, "%s\n---\n%.*s\n---\n", e.er_msg, (int)len, text);
  assert_int_equal(rc, CZ_OK);
}

/* Collects the quads back as rdf_quad_t to hand to a writer. */
typedef struct wr_ctx_s {
  rdf_writer_t *w;
} wr_ctx_t;

static int write_quads(void *ctx, const rdf_quad_t *q, size_t n, err_t *e)
{
  (void)e;
  for (size_t i = 0; i < n; i++)
    if (rdf_writer_quad(((wr_ctx_t *)ctx)->w, &q[i]))
      return -1;
  return 0;
}

static void round_trip(rdf_syntax_t out_syn, bool keep_graphs, const char *const *prefixes)
{
  static const char *const names[] = {"", "x.nt", "x.nq", "x.ttl", "x.trig"};
  tl_quads_t first, second;
  parse_text("in.nq", tricky_nq, strlen(tricky_nq), RDF_SYNTAX_NQUADS, &first);
  /* write */
  tl_buf_t buf = {0};
  wr_ctx_t wc = {rdf_writer_new(out_syn, tl_buf_sink, &buf, prefixes)};
  assert_non_null(wc.w);
  err_t e;
  rdf_read_opts_t o = {.ro_syntax = RDF_SYNTAX_NQUADS, .ro_fn = write_quads, .ro_ctx = &wc};
  assert_int_equal(rdf_read_mem("in.nq", tricky_nq, strlen(tricky_nq), &o, &e), CZ_OK);
  assert_int_equal(rdf_writer_finish(wc.w), 0);
  /* parse what was written */
  parse_text(names[out_syn], tl_buf_str(&buf), buf.tb_len, out_syn, &second);
  if (!keep_graphs) {
    /* a triple syntax drops the graphs: compare without them */
    for (size_t i = 0; i < first.tq_n; i++) {
      char *last = strrchr(first.tq_lines[i], '\x01');
      strcpy(last + 1, "-");
    }
  }
  bool same = tl_same(&first, &second);
  if (!same)
    fprintf(stderr, "written:\n%s\n", tl_buf_str(&buf));
  assert_true(same);
  tl_free(&first);
  tl_free(&second);
  free(buf.tb_data);
}

static const char *const test_prefixes[] = {"ex", "http://ex/", "xsd", XSD, NULL};

static void test_round_trip_ntriples(void **state)
{
  (void)state;
  round_trip(RDF_SYNTAX_NTRIPLES, false, NULL);
}

static void test_round_trip_nquads(void **state)
{
  (void)state;
  round_trip(RDF_SYNTAX_NQUADS, true, NULL);
}

static void test_round_trip_turtle(void **state)
{
  (void)state;
  round_trip(RDF_SYNTAX_TURTLE, false, test_prefixes);
  round_trip(RDF_SYNTAX_TURTLE, false, NULL);
}

static void test_round_trip_trig(void **state)
{
  (void)state;
  round_trip(RDF_SYNTAX_TRIG, true, test_prefixes);
  round_trip(RDF_SYNTAX_TRIG, true, NULL);
}

static const char *write_one(rdf_syntax_t syn, const rdf_quad_t *q, size_t n,
                             const char *const *prefixes, tl_buf_t *buf)
{
  memset(buf, 0, sizeof(*buf));
  rdf_writer_t *w = rdf_writer_new(syn, tl_buf_sink, buf, prefixes);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(rdf_writer_quad(w, &q[i]), 0);
  assert_int_equal(rdf_writer_finish(w), 0);
  return tl_buf_str(buf);
}

static void test_ntriples_canonical_escapes(void **state)
{
  (void)state;
  rdf_quad_t q = {rdf_iri("http://ex/s"), rdf_iri("http://ex/a b<c>"),
                  rdf_literal("q\"b\\n\nr\rt\tc\x01\x7F \xC3\xA9", NULL, NULL), rdf_iri("http://ex/g")};
  tl_buf_t b;
  assert_string_equal(write_one(RDF_SYNTAX_NTRIPLES, &q, 1, NULL, &b),
                      "<http://ex/s> <http://ex/a\\u0020b\\u003Cc\\u003E> "
                      "\"q\\\"b\\\\n\\nr\\rt\tc\\u0001\\u007F \xC3\xA9\" .\n");
  free(b.tb_data);
  rdf_quad_t q2 = {rdf_bnode("b1"), rdf_iri("http://ex/p"), rdf_literal("5", XSD "integer", NULL),
                   rdf_iri("http://ex/g")};
  assert_string_equal(write_one(RDF_SYNTAX_NQUADS, &q2, 1, NULL, &b),
                      "_:b1 <http://ex/p> \"5\"^^<" XSD "integer> <http://ex/g> .\n");
  free(b.tb_data);
  /* xsd:string written out is the simple literal; a language tag wins */
  rdf_quad_t q3 = {rdf_bnode("weird label!"), rdf_iri("http://ex/p"),
                   rdf_literal("s", XSD "string", NULL), {0}};
  assert_string_equal(write_one(RDF_SYNTAX_NQUADS, &q3, 1, NULL, &b),
                      "_:x7765697264206c6162656c21 <http://ex/p> \"s\" .\n");
  free(b.tb_data);
}

static void test_turtle_grouping_text(void **state)
{
  (void)state;
  rdf_quad_t q[] = {
      {rdf_iri("http://ex/s"), rdf_iri("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
       rdf_iri("http://ex/C"), {0}},
      {rdf_iri("http://ex/s"), rdf_iri("http://ex/p"), rdf_literal("1", XSD "integer", NULL), {0}},
      {rdf_iri("http://ex/s"), rdf_iri("http://ex/p"), rdf_literal("a", NULL, "en"), {0}},
      {rdf_iri("http://ex/s"), rdf_iri("http://ex/q"), rdf_iri("http://other/x y"), {0}},
      {rdf_iri("http://ex/t"), rdf_iri("http://ex/p"), rdf_literal("1.0", XSD "decimal", NULL), {0}},
  };
  tl_buf_t b;
  assert_string_equal(write_one(RDF_SYNTAX_TURTLE, q, 5, test_prefixes, &b),
                      "@prefix ex: <http://ex/> .\n"
                      "@prefix xsd: <" XSD "> .\n"
                      "\n"
                      "ex:s a ex:C ;\n"
                      "    ex:p 1 , \"a\"@en ;\n"
                      "    ex:q <http://other/x\\u0020y> .\n"
                      "ex:t ex:p \"1.0\"^^xsd:decimal .\n");
  free(b.tb_data);
  /* TriG: a block per graph, the default graph at the top level */
  q[0].rq_g = rdf_iri("http://ex/g");
  q[1].rq_g = rdf_iri("http://ex/g");
  assert_string_equal(write_one(RDF_SYNTAX_TRIG, q, 3, test_prefixes, &b),
                      "@prefix ex: <http://ex/> .\n"
                      "@prefix xsd: <" XSD "> .\n"
                      "\n"
                      "ex:g {\n"
                      "  ex:s a ex:C ;\n"
                      "      ex:p 1 .\n"
                      "}\n"
                      "ex:s ex:p \"a\"@en .\n");
  free(b.tb_data);
}

/* JSON-LD in expanded form: a node object per run of one subject, a
 * values array per predicate, "@id" / "@value" with "@language" or
 * "@type" (none for xsd:string), blank nodes as "_:label", a subject seen
 * again later in a node object of its own; an empty graph is []. */
static void test_jsonld_text(void **state)
{
  (void)state;
  rdf_quad_t q[] = {
      {rdf_iri("http://ex/s"), rdf_iri("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
       rdf_iri("http://ex/C"), {0}},
      {rdf_iri("http://ex/s"), rdf_iri("http://ex/p"), rdf_literal("1", XSD "integer", NULL), {0}},
      {rdf_iri("http://ex/s"), rdf_iri("http://ex/p"), rdf_literal("a \"q\"\n", NULL, "en"), {0}},
      {rdf_iri("http://ex/s"), rdf_iri("http://ex/q"), rdf_bnode("b1"), {0}},
      {rdf_bnode("b1"), rdf_iri("http://ex/p"), rdf_literal("x", XSD "string", NULL), {0}},
      {rdf_iri("http://ex/s"), rdf_iri("http://ex/p"), rdf_iri("http://ex/o"), {0}},
  };
  tl_buf_t b;
  assert_string_equal(write_one(RDF_SYNTAX_JSONLD, q, 6, NULL, &b),
                      "[\n{\"@id\":\"http://ex/s\",\n"
                      "  \"http://www.w3.org/1999/02/22-rdf-syntax-ns#type\":[{\"@id\":\"http://ex/C\"}],\n"
                      "  \"http://ex/p\":[{\"@value\":\"1\",\"@type\":\"" XSD "integer\"},"
                      "{\"@value\":\"a \\\"q\\\"\\n\",\"@language\":\"en\"}],\n"
                      "  \"http://ex/q\":[{\"@id\":\"_:b1\"}]},\n"
                      "{\"@id\":\"_:b1\",\n"
                      "  \"http://ex/p\":[{\"@value\":\"x\"}]},\n"
                      "{\"@id\":\"http://ex/s\",\n"
                      "  \"http://ex/p\":[{\"@id\":\"http://ex/o\"}]}\n"
                      "]\n");
  free(b.tb_data);
  assert_string_equal(write_one(RDF_SYNTAX_JSONLD, q, 0, NULL, &b), "[]\n");
  free(b.tb_data);
  /* the reader does not take it */
  err_t e;
  tl_quads_t none = {0};
  rdf_read_opts_t o = {.ro_syntax = RDF_SYNTAX_JSONLD, .ro_fn = tl_collect, .ro_ctx = &none};
  assert_int_equal(rdf_read_mem("x.jsonld", "[]", 2, &o, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "0A000");
}

static void test_streams_and_stops_on_sink_error(void **state)
{
  (void)state;
  char lex[64];
  tl_buf_t b = {0};
  rdf_writer_t *w = rdf_writer_new(RDF_SYNTAX_NTRIPLES, tl_buf_sink, &b, NULL);
  for (int i = 0; i < 2000; i++) {
    snprintf(lex, sizeof(lex), "value %d", i);
    rdf_quad_t q = {rdf_iri("http://ex/s"), rdf_iri("http://ex/p"), rdf_literal(lex, NULL, NULL), {0}};
    assert_int_equal(rdf_writer_quad(w, &q), 0);
  }
  /* more than one buffer's worth reached the sink before the end */
  assert_true(b.tb_calls >= 3);
  assert_int_equal(rdf_writer_finish(w), 0);
  free(b.tb_data);
  tl_buf_t f = {.tb_fail_after = 2};
  w = rdf_writer_new(RDF_SYNTAX_NTRIPLES, tl_buf_sink, &f, NULL);
  int st = 0;
  for (int i = 0; i < 5000 && st == 0; i++) {
    rdf_quad_t q = {rdf_iri("http://ex/s"), rdf_iri("http://ex/p"), rdf_literal("x", NULL, NULL), {0}};
    st = rdf_writer_quad(w, &q);
  }
  assert_int_equal(st, -7);
  assert_int_equal(rdf_writer_finish(w), -7);
  free(f.tb_data);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_ntriples),
      cmocka_unit_test(test_round_trip_nquads),
      cmocka_unit_test(test_round_trip_turtle),
      cmocka_unit_test(test_round_trip_trig),
      cmocka_unit_test(test_ntriples_canonical_escapes),
      cmocka_unit_test(test_turtle_grouping_text),
      cmocka_unit_test(test_jsonld_text),
      cmocka_unit_test(test_streams_and_stops_on_sink_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
