/* test_rdf_id — 64-bit term ids: dictionary ids, inline values that
 * decode to exactly the term encoded, the rule for values that do not fit,
 * and the order of ids against the order of values on random values
 * (numbers across integer/decimal/double/float, dates, dateTimes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "rdf/rdf.h"

#define XSD "http://www.w3.org/2001/XMLSchema#"

static uint64_t rng_state;

static uint64_t rnd(void)
{
  /* splitmix64: reproducible from the test seed */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static rdf_id_t enc(const char *lex, const char *type)
{
  char dt[128];
  snprintf(dt, sizeof(dt), XSD "%s", type);
  rdf_term_t t = rdf_literal(lex, dt, NULL);
  return rdf_id_encode_literal(&t);
}

/* Encodes, decodes, and checks the term came back exactly. */
static rdf_id_t round_trip(const char *lex, const char *type)
{
  rdf_id_t id = enc(lex, type);
  if (!id)
    fail_msg("\"%s\"^^xsd:%s should be inline", lex, type);
  char buf[80];
  rdf_term_t back;
  err_t e;
  assert_int_equal(rdf_id_decode_literal(id, buf, sizeof(buf), &back, &e), CZ_OK);
  char dt[128];
  snprintf(dt, sizeof(dt), XSD "%s", type);
  rdf_term_t want = rdf_literal(lex, dt, NULL);
  if (!rdf_term_equal(&back, &want))
    fail_msg("\"%s\"^^xsd:%s came back as \"%.*s\"^^<%.*s>", lex, type, (int)back.rt_len,
             back.rt_str, (int)back.rt_dt_len, back.rt_dt);
  return id;
}

static void test_dictionary_ids(void **state)
{
  (void)state;
  rdf_id_t a = rdf_id_make_dict(RDF_ID_IRI, 1), b = rdf_id_make_dict(RDF_ID_BNODE, 5),
           l = rdf_id_make_dict(RDF_ID_LITDICT, RDF_ID_DICT_MAX);
  assert_int_equal(rdf_id_tag(a), RDF_ID_IRI);
  assert_int_equal(rdf_id_tag(b), RDF_ID_BNODE);
  assert_int_equal(rdf_id_tag(l), RDF_ID_LITDICT);
  assert_int_equal(rdf_id_dict_number(a), 1);
  assert_int_equal(rdf_id_dict_number(l), RDF_ID_DICT_MAX);
  assert_false(rdf_id_is_inline(a));
  assert_int_equal(rdf_id_make_dict(RDF_ID_IRI, 0), 0);
  assert_int_equal(rdf_id_make_dict(RDF_ID_IRI, RDF_ID_DICT_MAX + 1), 0);
  assert_int_equal(rdf_id_make_dict(RDF_ID_NUMERIC, 1), 0);
  /* kinds sort as SPARQL orders them: blank nodes, IRIs, literals */
  assert_true(b < a && a < l);
  assert_true(l < round_trip("true", "boolean"));
  char buf[80];
  rdf_term_t t;
  err_t e;
  assert_int_equal(rdf_id_decode_literal(a, buf, sizeof(buf), &t, &e), CZ_ERR);
}

static void test_round_trips(void **state)
{
  (void)state;
  static const char *const ok[][2] = {
      {"0", "integer"}, {"-1", "integer"}, {"999999999999999", "integer"},
      {"100000000000000000000000000", "integer"}, {"-123456789012345", "integer"},
      {"42", "int"}, {"-7", "byte"}, {"65535", "unsignedShort"}, {"5", "positiveInteger"},
      {"-5", "negativeInteger"}, {"0", "nonNegativeInteger"}, {"12", "unsignedLong"},
      {"0.0", "decimal"}, {"1.5", "decimal"}, {"-0.0012", "decimal"}, {"1000.0", "decimal"},
      {"12345678901234.5", "decimal"}, {"0.000000000000000000001", "decimal"},
      {"0.0E0", "double"}, {"1.0E0", "double"}, {"-2.5E-3", "double"}, {"1.0E-1", "double"},
      {"1.7976931348623E100", "double"}, {"1.0E127", "double"}, {"1.0E-128", "double"},
      {"1.0E0", "float"}, {"1.5E2", "float"}, {"-2.5E-1", "float"},
      {"true", "boolean"}, {"false", "boolean"},
      {"2024-01-15", "date"}, {"0001-01-01", "date"}, {"9999-12-31+14:00", "date"},
      {"0001-01-01-14:00", "date"}, {"2024-01-15Z", "date"}, {"2024-01-15-05:30", "date"},
      {"2024-01-15T10:20:30", "dateTime"}, {"2024-01-15T10:20:30.5Z", "dateTime"},
      {"2024-01-15T10:20:30.123+01:00", "dateTime"}, {"0001-01-01T00:00:00+14:00", "dateTime"},
      {"9999-12-31T23:59:59.999-14:00", "dateTime"},
  };
  for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
    round_trip(ok[i][0], ok[i][1]);
}

static void test_what_goes_to_the_dictionary(void **state)
{
  (void)state;
  static const char *const no[][2] = {
      {"01", "integer"},   /* not canonical: a different term from "1" */
      {"+1", "integer"},
      {"1234567890123456", "integer"}, /* 16 significant digits */
      {"1", "decimal"},    /* canonical is "1.0" */
      {"1.50", "decimal"},
      {"1.234567890123456", "decimal"},
      {"1e0", "double"},   /* canonical is "1.0E0" */
      {"1.0E128", "double"}, /* exponent beyond the range */
      {"1.0E-129", "double"},
      {"1.2345678901234567E0", "double"}, /* 17 digits */
      {"-0.0E0", "double"}, {"INF", "double"}, {"NaN", "double"}, {"-INF", "float"},
      {"1.0E-1", "float"}, /* 0.1f is not a short decimal: exact order needs the dictionary */
      {"1", "boolean"},
      {"2024-1-15", "date"}, /* invalid */
      {"2024-01-15+00:00", "date"}, /* canonical is Z */
      {"10000-01-01", "date"}, /* year beyond 9999 */
      {"0000-01-01", "date"},
      {"2024-01-15T10:20:30.0Z", "dateTime"},
      {"2024-01-15T10:20:30.1234Z", "dateTime"}, /* finer than a millisecond */
      {"2024-01-15T24:00:00", "dateTime"},
      {"abc", "integer"},
      {"1", "gYear"},
  };
  for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
    if (enc(no[i][0], no[i][1]) != 0)
      fail_msg("\"%s\"^^xsd:%s should go to the literal dictionary", no[i][0], no[i][1]);
  rdf_term_t s = rdf_literal("1", NULL, NULL), l = rdf_literal("1", NULL, "en"), i = rdf_iri("x");
  assert_int_equal(rdf_id_encode_literal(&s), 0);
  assert_int_equal(rdf_id_encode_literal(&l), 0);
  assert_int_equal(rdf_id_encode_literal(&i), 0);
}

/* ---- order on random values ---- */

typedef struct tn_num_s {
  char lex[64];
  const char *type;
  long double v; /* for doubles: the exact value; others: the decimal value */
  int64_t scaled; /* exact integer/decimal values, scaled by 10^6 */
  bool is_float;
  rdf_id_t id;
} tn_num_t;

static void make_num(tn_num_t *n)
{
  rdf_xsd_val_t v;
  for (;;) {
    switch (rnd() % 4) {
    case 0: { /* integer */
      int64_t x = (int64_t)(rnd() % 2000000001) - 1000000000;
      if (rnd() % 4 == 0)
        x = (int64_t)(rnd() % 21) - 10;
      snprintf(n->lex, sizeof(n->lex), "%lld", (long long)x);
      n->type = "integer";
      n->scaled = x * 1000000;
      n->is_float = false;
      break;
    }
    case 1: { /* decimal, 0..6 fraction digits */
      int64_t x = (int64_t)(rnd() % 2000000000001ull) - 1000000000000ll;
      int sc = (int)(rnd() % 7);
      int64_t p = 1;
      for (int k = 0; k < sc; k++)
        p *= 10;
      x = x / p * p;
      if (rnd() % 3 == 0) /* on the grid of the short doubles and floats */
        x = ((int64_t)(rnd() % 2001) - 1000) * 100000;
      long long ip = (long long)(x / 1000000), fp = (long long)llabs(x % 1000000);
      char b[64];
      snprintf(b, sizeof(b), "%s%lld.%06lld", x < 0 && ip == 0 ? "-" : "", ip, fp);
      /* canonical: strip trailing zeros (one digit kept) */
      size_t L = strlen(b);
      while (b[L - 1] == '0' && b[L - 2] != '.')
        b[--L] = '\0';
      if (strcmp(b, "-0.0") == 0)
        strcpy(b, "0.0");
      snprintf(n->lex, sizeof(n->lex), "%s", b);
      n->type = "decimal";
      n->scaled = x;
      n->is_float = false;
      break;
    }
    default: { /* double or float near the others, with few digits */
      bool fl = rnd() % 4 == 0;
      double d = ((double)(int64_t)(rnd() % 2000001) - 1000000.0) / (double)(1 << (rnd() % 12));
      if (rnd() % 3 == 0)
        d = ((double)(int64_t)(rnd() % 2001) - 1000.0) / 10.0; /* short decimals: 0.1 etc. */
      if (fl)
        d = (double)(float)d;
      n->type = fl ? "float" : "double";
      n->v = (long double)d;
      n->is_float = true;
      rdf_xsd_val_t dv = {.xv_type = fl ? XSD_FLOAT : XSD_DOUBLE, .xv_dbl = d};
      rdf_xsd_canonical(&dv, NULL, 0, n->lex, sizeof(n->lex));
      break;
    }
    }
    n->id = enc(n->lex, n->type);
    if (n->id)
      break; /* only inline values are compared here */
  }
  err_t e;
  (void)v;
  (void)e;
}

/* SPARQL's numeric comparison: integers and decimals exactly; with a
 * double or float on either side, both as doubles. */
static int tn_num_cmp(const tn_num_t *a, const tn_num_t *b)
{
  if (!a->is_float && !b->is_float)
    return a->scaled < b->scaled ? -1 : a->scaled > b->scaled;
  double x = a->is_float ? (double)a->v : strtod(a->lex, NULL);
  double y = b->is_float ? (double)b->v : strtod(b->lex, NULL);
  return x < y ? -1 : x > y;
}

static void test_numeric_order(void **state)
{
  (void)state;
  rng_state = cz_test_seed();
  enum { N = 600 };
  static tn_num_t n[N];
  for (int i = 0; i < N; i++) {
    make_num(&n[i]);
    round_trip(n[i].lex, n[i].type);
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      int want = tn_num_cmp(&n[i], &n[j]);
      rdf_id_t ki = rdf_id_numeric_key(n[i].id), kj = rdf_id_numeric_key(n[j].id);
      int got = ki < kj ? -1 : ki > kj;
      if (got != want)
        fail_msg("%s^^%s vs %s^^%s: ids order %d, values %d", n[i].lex, n[i].type, n[j].lex,
                 n[j].type, got, want);
      /* whole ids: the value order, ties broken by the datatype */
      if (want != 0 && (n[i].id < n[j].id ? -1 : 1) != want)
        fail_msg("whole ids out of order: %s %s", n[i].lex, n[j].lex);
      if (n[i].id == n[j].id && strcmp(n[i].lex, n[j].lex) != 0)
        fail_msg("one id for two terms: %s %s", n[i].lex, n[j].lex);
    }
}

static void random_datetime(char *out, size_t cap, bool date_only, bool tz, int64_t *key)
{
  int y = 1 + (int)(rnd() % 9999), mo = 1 + (int)(rnd() % 12), d = 1 + (int)(rnd() % 28);
  if (rnd() % 3 == 0)
    y = 2000 + (int)(rnd() % 3); /* close values too */
  int hh = (int)(rnd() % 24), mi = (int)(rnd() % 60), ss = (int)(rnd() % 60),
      ms = rnd() % 2 ? 0 : (int)(rnd() % 1000);
  int off = tz ? (int)(rnd() % 57) * 15 - 420 : 0;
  if (tz && rnd() % 4 == 0)
    off = 0;
  int n = date_only ? snprintf(out, cap, "%04d-%02d-%02d", y, mo, d)
                    : snprintf(out, cap, "%04d-%02d-%02dT%02d:%02d:%02d", y, mo, d, hh, mi, ss);
  if (!date_only && ms) {
    n += snprintf(out + n, cap - (size_t)n, ".%03d", ms);
    while (out[n - 1] == '0')
      out[--n] = '\0';
  }
  if (tz) {
    if (off == 0)
      snprintf(out + n, cap - (size_t)n, "Z");
    else
      snprintf(out + n, cap - (size_t)n, "%c%02d:%02d", off < 0 ? '-' : '+', abs(off) / 60,
               abs(off) % 60);
  }
  /* the instant, from the civil fields (independently of the module) */
  int64_t yy = y - (mo <= 2);
  int64_t era = yy / 400, yoe = yy - era * 400, mp = (mo + 9) % 12;
  int64_t doy = (153 * mp + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = era * 146097 + doe;
  int64_t t = date_only ? days * 86400000 : days * 86400000 + ((hh * 60 + mi) * 60 + ss) * 1000 + ms;
  *key = t - (int64_t)off * 60000;
}

static void check_date_order(bool date_only, bool tz)
{
  enum { N = 400 };
  static char lex[N][48];
  static int64_t key[N];
  static rdf_id_t id[N];
  const char *type = date_only ? "date" : "dateTime";
  for (int i = 0; i < N; i++) {
    random_datetime(lex[i], sizeof(lex[i]), date_only, tz, &key[i]);
    id[i] = round_trip(lex[i], type);
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      int want = key[i] < key[j] ? -1 : key[i] > key[j];
      if (want != 0 && (id[i] < id[j] ? -1 : 1) != want)
        fail_msg("%s vs %s: ids out of order", lex[i], lex[j]);
      if (id[i] == id[j] && strcmp(lex[i], lex[j]) != 0)
        fail_msg("one id for %s and %s", lex[i], lex[j]);
    }
}

static void test_date_order(void **state)
{
  (void)state;
  rng_state = cz_test_seed() ^ 0x5555;
  check_date_order(true, false);
  check_date_order(true, true);
  check_date_order(false, false);
  check_date_order(false, true);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dictionary_ids),
      cmocka_unit_test(test_round_trips),
      cmocka_unit_test(test_what_goes_to_the_dictionary),
      cmocka_unit_test(test_numeric_order),
      cmocka_unit_test(test_date_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
