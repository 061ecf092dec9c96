/* test_rdf_sparql_value — SPARQL values of terms held as N-Triples text:
 * reading terms back (escapes, datatypes, language tags), exact integer
 * and decimal arithmetic with §17.3's promotion and its errors, canonical
 * results, dateTime fields, and the operator mapping's comparisons
 * (numbers by value, strings by code point, dateTimes with and without
 * timezone, unknown datatypes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "rdf/rdf_int.h"

#define XSD "http://www.w3.org/2001/XMLSchema#"

static arena_t *A;

static rdf_term_t P(const char *nt)
{
  rdf_term_t t;
  assert_true(rdf_sv_parse(A, nt, strlen(nt), &t));
  return t;
}

static rdf_sv_num_t N(const char *nt)
{
  rdf_term_t t = P(nt);
  rdf_sv_num_t n;
  assert_true(rdf_sv_num_get(&t, &n));
  return n;
}

/* a op b as N-Triples text, or NULL for an error */
static const char *OP(char op, const char *a, const char *b)
{
  rdf_sv_num_t r;
  if (!rdf_sv_arith(op, N(a), N(b), &r))
    return NULL;
  return rdf_sv_num_term(A, r);
}

static int CMP(const char *op, const char *a, const char *b)
{
  rdf_term_t x = P(a), y = P(b);
  return rdf_sv_compare(op, &x, &y);
}

static void test_parse(void **state)
{
  (void)state;
  rdf_term_t t = P("\"a\\\"b\\u00e9\\n\"@en-GB");
  assert_int_equal(t.rt_kind, RDF_LITERAL);
  assert_int_equal(t.rt_len, 6);
  assert_memory_equal(t.rt_str, "a\"b\xc3\xa9\n", 6);
  assert_int_equal(t.rt_lang_len, 5);
  t = P("\"x\"^^<" XSD "string>");
  assert_null(t.rt_dt); /* xsd:string is the simple literal */
  assert_true(rdf_sv_is_plain(&t));
  t = P("<http://a/b\\u0020c>");
  assert_int_equal(t.rt_kind, RDF_IRI);
  assert_string_equal(t.rt_str, "http://a/b c");
  t = P("_:b1");
  assert_int_equal(t.rt_kind, RDF_BNODE);
  rdf_term_t bad;
  assert_false(rdf_sv_parse(A, "\"open", 5, &bad));
  assert_false(rdf_sv_parse(A, "plain", 5, &bad));
  assert_false(rdf_sv_parse(A, "\"\\u12\"", 7, &bad));
}

static void test_arithmetic(void **state)
{
  (void)state;
  assert_string_equal(OP('+', "\"1\"^^<" XSD "integer>", "\"2\"^^<" XSD "integer>"), "\"3\"^^<" XSD "integer>");
  assert_string_equal(OP('/', "\"7\"^^<" XSD "integer>", "\"2\"^^<" XSD "integer>"), "\"3.5\"^^<" XSD "decimal>");
  assert_string_equal(OP('+', "\"0.1\"^^<" XSD "decimal>", "\"0.2\"^^<" XSD "decimal>"), "\"0.3\"^^<" XSD "decimal>");
  assert_string_equal(OP('*', "\"1.5\"^^<" XSD "decimal>", "\"2\"^^<" XSD "integer>"), "\"3.0\"^^<" XSD "decimal>");
  assert_string_equal(OP('*', "\"1.5E0\"^^<" XSD "double>", "\"2\"^^<" XSD "integer>"), "\"3.0E0\"^^<" XSD "double>");
  assert_string_equal(OP('-', "\"1\"^^<" XSD "float>", "\"3\"^^<" XSD "integer>"), "\"-2.0E0\"^^<" XSD "float>");
  assert_string_equal(OP('/', "\"1\"^^<" XSD "integer>", "\"3\"^^<" XSD "integer>"),
                      "\"0.333333333333333333333333\"^^<" XSD "decimal>");
  assert_null(OP('/', "\"1\"^^<" XSD "integer>", "\"0\"^^<" XSD "integer>"));      /* an error */
  assert_null(OP('/', "\"1.0\"^^<" XSD "decimal>", "\"0.0\"^^<" XSD "decimal>"));
  assert_string_equal(OP('/', "\"1\"^^<" XSD "double>", "\"0\"^^<" XSD "integer>"), "\"INF\"^^<" XSD "double>");
  /* exact, or an error: never a wrapped or rounded integer */
  const char *big = "\"999999999999999999\"^^<" XSD "integer>";
  const char *r = OP('*', big, big);
  assert_string_equal(r, "\"999999999999999998000000000000000001\"^^<" XSD "integer>");
  rdf_sv_num_t huge = {.k = SV_INT, .m = (__int128)1 << 119}, out;
  assert_false(rdf_sv_arith('*', huge, huge, &out));
  /* a derived type promotes to xsd:integer */
  assert_string_equal(OP('+', "\"1\"^^<" XSD "byte>", "\"1\"^^<" XSD "short>"), "\"2\"^^<" XSD "integer>");
}

static void test_compare(void **state)
{
  (void)state;
  assert_int_equal(CMP("=", "\"1\"^^<" XSD "integer>", "\"1.0\"^^<" XSD "decimal>"), 1);
  assert_int_equal(CMP("=", "\"01\"^^<" XSD "integer>", "\"1\"^^<" XSD "integer>"), 1);
  assert_int_equal(CMP("<", "\"2\"^^<" XSD "integer>", "\"10\"^^<" XSD "integer>"), 1);
  assert_int_equal(CMP("<", "\"2\"", "\"10\""), 0);                       /* code points */
  assert_int_equal(CMP("<", "\"a\"", "\"\xc3\xa9\""), 1);
  assert_int_equal(CMP("<", "\"a\"@en", "\"b\""), -1);                    /* no order: error */
  assert_int_equal(CMP("=", "\"a\"@en", "\"a\"@EN"), 1);                 /* tags without case */
  assert_int_equal(CMP("!=", "\"a\"", "\"b\"@en"), 1);
  assert_int_equal(CMP("=", "\"x\"^^<http://u/t>", "\"y\"^^<http://u/t>"), -1); /* unknown type */
  assert_int_equal(CMP("=", "\"x\"^^<http://u/t>", "\"x\"^^<http://u/t>"), 1);
  /* a language-tagged literal is no typed literal's value (W3C open-eq-10) */
  assert_int_equal(CMP("!=", "\"x\"@en", "\"y\"^^<http://u/t>"), 1);
  assert_int_equal(CMP("=", "\"x\"^^<http://u/t>", "\"x\"@en"), 0);
  assert_int_equal(CMP("=", "\"x\"@en", "\"x\"^^<" XSD "integer>"), 0); /* ill-typed */
  assert_int_equal(CMP("!=", "\"x\"", "\"y\"^^<http://u/t>"), -1);
  assert_int_equal(CMP("=", "<http://a>", "\"http://a\""), 0);
  assert_int_equal(CMP("<", "<http://a>", "<http://b>"), -1);
  assert_int_equal(CMP("=", "\"2002-04-02T23:00:00-04:00\"^^<" XSD "dateTime>",
                       "\"2002-04-03T02:00:00-01:00\"^^<" XSD "dateTime>"), 1);
  assert_int_equal(CMP("<", "\"2008-10-01T00:00:00Z\"^^<" XSD "dateTime>",
                       "\"2008-10-03T00:00:00\"^^<" XSD "dateTime>"), 1);   /* 2 days: determinate */
  assert_int_equal(CMP("<", "\"2008-10-01T00:00:00Z\"^^<" XSD "dateTime>",
                       "\"2008-10-01T05:00:00\"^^<" XSD "dateTime>"), -1);  /* within 14 h */
  assert_int_equal(CMP("=", "\"1999-12-31T24:00:00\"^^<" XSD "dateTime>",
                       "\"2000-01-01T00:00:00\"^^<" XSD "dateTime>"), 1);
  assert_int_equal(CMP("=", "\"NaN\"^^<" XSD "double>", "\"NaN\"^^<" XSD "double>"), 0);
  assert_int_equal(CMP("!=", "\"NaN\"^^<" XSD "double>", "\"NaN\"^^<" XSD "double>"), 1);
  assert_int_equal(CMP("=", "\"true\"^^<" XSD "boolean>", "\"1\"^^<" XSD "boolean>"), 1);
}

static void test_datetime(void **state)
{
  (void)state;
  rdf_term_t t = P("\"2011-01-10T14:45:13.815-05:00\"^^<" XSD "dateTime>");
  rdf_sv_dt_t d;
  assert_true(rdf_sv_dt_get(&t, &d, false));
  assert_int_equal(d.year, 2011);
  assert_int_equal(d.month, 1);
  assert_int_equal(d.day, 10);
  assert_int_equal(d.hour, 14);
  assert_int_equal(d.minute, 45);
  assert_int_equal(d.sec_len, 6);
  assert_memory_equal(d.sec, "13.815", 6);
  assert_true(d.has_tz);
  assert_int_equal(d.tz_min, -300);
  t = P("\"2011-01-10\"^^<" XSD "date>");
  assert_false(rdf_sv_dt_get(&t, &d, false));
  assert_true(rdf_sv_dt_get(&t, &d, true));
  t = P("\"2011-13-10T00:00:00\"^^<" XSD "dateTime>");
  assert_false(rdf_sv_dt_get(&t, &d, false));
}

int main(void)
{
  A = arena_create(NULL, "test_rdf_sparql_value");
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parse),
    cmocka_unit_test(test_arithmetic),
    cmocka_unit_test(test_compare),
    cmocka_unit_test(test_datetime),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  arena_destroy(A);
  return rc;
}
