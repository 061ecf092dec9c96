/* test_rdf_xsd — datatype recognition, validation of lexical forms (with
 * the ranges of the integer-derived types) and canonical forms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "rdf/rdf.h"

#define XSD "http://www.w3.org/2001/XMLSchema#"

static rdf_xsd_t T(const char *local)
{
  char iri[128];
  strcpy(iri, XSD);
  strcat(iri, local);
  return rdf_xsd_from_iri(iri, strlen(iri));
}

static void test_recognition(void **state)
{
  (void)state;
  assert_int_equal(T("integer"), XSD_INTEGER);
  assert_int_equal(T("unsignedByte"), XSD_UNSIGNED_BYTE);
  assert_int_equal(T("dateTime"), XSD_DATETIME);
  assert_int_equal(T("gYear"), XSD_OTHER);
  assert_int_equal(T("integerx"), XSD_OTHER);
  assert_int_equal(rdf_xsd_from_iri("http://ex/integer", 17), XSD_OTHER);
  rdf_term_t plain = rdf_literal("x", NULL, NULL), tagged = rdf_literal("x", NULL, "en");
  assert_int_equal(rdf_xsd_of(&plain), XSD_STRING);
  assert_int_equal(rdf_xsd_of(&tagged), XSD_LANGSTRING);
  assert_true(rdf_xsd_is_integer(XSD_NEGATIVE_INTEGER));
  assert_false(rdf_xsd_is_integer(XSD_DECIMAL));
  assert_true(rdf_xsd_is_numeric(XSD_FLOAT));
  assert_string_equal(rdf_xsd_iri(XSD_SHORT), XSD "short");
}

typedef struct vcase_s {
  const char *type;
  const char *lex;
  const char *want; /* canonical form, or NULL when invalid */
  const char *state; /* SQLSTATE when invalid */
} vcase_t;

static const vcase_t cases[] = {
    {"integer", "0", "0", NULL},
    {"integer", "-0", "0", NULL},
    {"integer", "+0042", "42", NULL},
    {"integer", "-00100", "-100", NULL},
    {"integer", "123456789012345678901234567890", "123456789012345678901234567890", NULL},
    {"integer", "1.0", NULL, "22P02"},
    {"integer", "", NULL, "22P02"},
    {"integer", "+", NULL, "22P02"},
    {"integer", " 1", NULL, "22P02"},
    {"byte", "127", "127", NULL},
    {"byte", "-128", "-128", NULL},
    {"byte", "128", NULL, "22003"},
    {"byte", "-129", NULL, "22003"},
    {"short", "-32768", "-32768", NULL},
    {"short", "32768", NULL, "22003"},
    {"int", "2147483647", "2147483647", NULL},
    {"int", "-2147483649", NULL, "22003"},
    {"long", "-9223372036854775808", "-9223372036854775808", NULL},
    {"long", "9223372036854775808", NULL, "22003"},
    {"unsignedLong", "18446744073709551615", "18446744073709551615", NULL},
    {"unsignedLong", "18446744073709551616", NULL, "22003"},
    {"unsignedLong", "-1", NULL, "22003"},
    {"unsignedLong", "-0", "0", NULL},
    {"unsignedByte", "255", "255", NULL},
    {"unsignedByte", "256", NULL, "22003"},
    {"positiveInteger", "0", NULL, "22003"},
    {"positiveInteger", "1", "1", NULL},
    {"nonNegativeInteger", "0", "0", NULL},
    {"nonNegativeInteger", "-1", NULL, "22003"},
    {"negativeInteger", "-1", "-1", NULL},
    {"negativeInteger", "0", NULL, "22003"},
    {"nonPositiveInteger", "-0", "0", NULL},
    {"nonPositiveInteger", "5", NULL, "22003"},
    {"decimal", "1", "1.0", NULL},
    {"decimal", "+01.500", "1.5", NULL},
    {"decimal", ".5", "0.5", NULL},
    {"decimal", "5.", "5.0", NULL},
    {"decimal", "-0.0", "0.0", NULL},
    {"decimal", "-000.00120", "-0.0012", NULL},
    {"decimal", "1e3", NULL, "22P02"},
    {"decimal", ".", NULL, "22P02"},
    {"double", "1", "1.0E0", NULL},
    {"double", "1e3", "1.0E3", NULL},
    {"double", "-12.5E-3", "-1.25E-2", NULL},
    {"double", "0.1", "1.0E-1", NULL},
    {"double", "INF", "INF", NULL},
    {"double", "+INF", "INF", NULL},
    {"double", "-INF", "-INF", NULL},
    {"double", "NaN", "NaN", NULL},
    {"double", "-0", "-0.0E0", NULL},
    {"double", "0.0", "0.0E0", NULL},
    {"double", "inf", NULL, "22P02"},
    {"double", "1e", NULL, "22P02"},
    {"double", "e5", NULL, "22P02"},
    {"double", "1.7976931348623157E308", "1.7976931348623157E308", NULL},
    {"float", "0.1", "1.0E-1", NULL},
    {"float", "16777217", "1.6777216E7", NULL}, /* float precision */
    {"boolean", "true", "true", NULL},
    {"boolean", "1", "true", NULL},
    {"boolean", "0", "false", NULL},
    {"boolean", "TRUE", NULL, "22P02"},
    {"date", "2024-02-29", "2024-02-29", NULL},
    {"date", "2023-02-29", NULL, "22P02"},
    {"date", "2024-01-15Z", "2024-01-15Z", NULL},
    {"date", "2024-01-15+05:30", "2024-01-15+05:30", NULL},
    {"date", "2024-01-15+00:00", "2024-01-15Z", NULL},
    {"date", "2024-01-15+15:00", NULL, "22P02"},
    {"date", "-0044-03-15", "-0044-03-15", NULL},
    {"date", "12024-01-01", "12024-01-01", NULL},
    {"date", "02024-01-01", NULL, "22P02"},
    {"date", "24-01-01", NULL, "22P02"},
    {"dateTime", "2024-01-15T10:20:30", "2024-01-15T10:20:30", NULL},
    {"dateTime", "2024-01-15T10:20:30.500Z", "2024-01-15T10:20:30.5Z", NULL},
    {"dateTime", "2024-01-15T10:20:30.000-08:00", "2024-01-15T10:20:30-08:00", NULL},
    {"dateTime", "2024-12-31T24:00:00", "2025-01-01T00:00:00", NULL},
    {"dateTime", "2024-01-15T24:00:01", NULL, "22P02"},
    {"dateTime", "2024-01-15T10:60:00", NULL, "22P02"},
    {"dateTime", "2024-01-15", NULL, "22P02"},
    {"dateTime", "2024-01-15T10:20:30.", NULL, "22P02"},
    {"dateTime", "2024-01-15T10:20:30.123456Z", "2024-01-15T10:20:30.123456Z", NULL},
};

static void test_validation_and_canonical_forms(void **state)
{
  (void)state;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const vcase_t *c = &cases[i];
    rdf_xsd_t t = T(c->type);
    assert_int_not_equal(t, XSD_OTHER);
    rdf_xsd_val_t v;
    err_t e;
    err_clear(&e);
    int rc = rdf_xsd_parse(t, c->lex, strlen(c->lex), &v, &e);
    if (!c->want) {
      if (rc == CZ_OK || strcmp(e.er_sqlstate, c->state) != 0)
        fail_msg("xsd:%s \"%s\" should fail with %s (rc %d, %s)", c->type, c->lex, c->state, rc,
                 e.er_sqlstate);
      continue;
    }
    if (rc != CZ_OK)
      fail_msg("xsd:%s \"%s\": %s", c->type, c->lex, e.er_msg);
    char out[128];
    int n = rdf_xsd_canonical(&v, c->lex, strlen(c->lex), out, sizeof(out));
    assert_true(n >= 0);
    if (strcmp(out, c->want) != 0)
      fail_msg("xsd:%s \"%s\": canonical \"%s\", want \"%s\"", c->type, c->lex, out, c->want);
    /* the canonical form is valid and its own canonical form */
    rdf_xsd_val_t v2;
    assert_int_equal(rdf_xsd_parse(t, out, (size_t)n, &v2, &e), CZ_OK);
    char out2[128];
    rdf_xsd_canonical(&v2, out, (size_t)n, out2, sizeof(out2));
    assert_string_equal(out, out2);
  }
}

static void test_values(void **state)
{
  (void)state;
  rdf_xsd_val_t v;
  err_t e;
  assert_int_equal(rdf_xsd_parse(XSD_DECIMAL, "-12.340", 7, &v, &e), CZ_OK);
  assert_int_equal(v.xv_int, -1234);
  assert_int_equal(v.xv_scale, 2);
  assert_int_equal(rdf_xsd_parse(XSD_INTEGER, "-9000000000000000000", 20, &v, &e), CZ_OK);
  assert_true(v.xv_big);
  assert_int_equal(rdf_xsd_parse(XSD_DATETIME, "0001-01-02T00:00:01.5+01:00", 27, &v, &e), CZ_OK);
  assert_int_equal(v.xv_days, 1);
  assert_int_equal(v.xv_ms, 1500);
  assert_true(v.xv_has_tz);
  assert_int_equal(v.xv_tz_min, 60);
  assert_int_equal(rdf_xsd_parse(XSD_FLOAT, "0.1", 3, &v, &e), CZ_OK);
  assert_true(v.xv_dbl == (double)0.1f);
  /* types without a value space accept anything */
  assert_int_equal(rdf_xsd_parse(XSD_OTHER, "whatever", 8, &v, &e), CZ_OK);
  assert_int_equal(rdf_xsd_parse(XSD_STRING, "", 0, &v, &e), CZ_OK);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_recognition),
      cmocka_unit_test(test_validation_and_canonical_forms),
      cmocka_unit_test(test_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
