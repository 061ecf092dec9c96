/* test_hs_accept — the HTTP server's content negotiation (hs_accept.c,
 * RFC 9110 §12.5.1) and form decoding (hs_params.c): which format each
 * Accept header gets, and what a form body decodes to.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cz_test.h"
#include "net/hs_int.h"

static const hs_fmt_t solutions[] = {HS_FMT_JSON, HS_FMT_XML, HS_FMT_CSV, HS_FMT_TSV};
static const hs_fmt_t graphs[] = {HS_FMT_TTL, HS_FMT_NT};

static hs_fmt_t pick(const char *accept)
{
  return hs_accept_pick(accept, solutions, (int)CZ_ARRAY_LEN(solutions));
}

static void test_solutions(void **state)
{
  (void)state;
  assert_int_equal(pick(NULL), HS_FMT_JSON);
  assert_int_equal(pick(""), HS_FMT_JSON);
  assert_int_equal(pick("*/*"), HS_FMT_JSON);
  assert_int_equal(pick("application/sparql-results+xml"), HS_FMT_XML);
  assert_int_equal(pick("APPLICATION/Sparql-Results+XML"), HS_FMT_XML);
  assert_int_equal(pick("application/json"), HS_FMT_JSON);
  assert_int_equal(pick("text/xml"), HS_FMT_XML);
  assert_int_equal(pick("text/*"), HS_FMT_CSV); /* wildcards: canonical names only */
  assert_int_equal(pick("application/*"), HS_FMT_JSON);
  assert_int_equal(pick("text/csv;q=0.5, text/tab-separated-values;q=0.6"), HS_FMT_TSV);
  assert_int_equal(pick("text/csv ; q=1 , */*;q=0.1"), HS_FMT_CSV);
  /* the most specific range gives the q: a wildcard does not lift csv;q=0 */
  assert_int_equal(pick("text/csv;q=0, text/*;q=0.9, */*;q=0.1"), HS_FMT_TSV);
  assert_int_equal(pick("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"), HS_FMT_XML);
  assert_int_equal(pick("image/png"), HS_FMT_NONE);
  assert_int_equal(pick("text/csv;q=0"), HS_FMT_NONE);
  assert_int_equal(pick("text/csv;q=nonsense"), HS_FMT_CSV); /* a sloppy q is 1 */
  assert_int_equal(pick(",,;,"), HS_FMT_NONE);
  assert_int_equal(hs_accept_pick("*/*", graphs, 2), HS_FMT_TTL);
  assert_int_equal(hs_accept_pick("text/plain", graphs, 2), HS_FMT_NT);
  assert_int_equal(hs_accept_pick("application/sparql-results+json", graphs, 2), HS_FMT_NONE);
}

static void test_gzip(void **state)
{
  (void)state;
  assert_false(hs_accept_gzip(NULL));
  assert_false(hs_accept_gzip(""));
  assert_true(hs_accept_gzip("gzip"));
  assert_true(hs_accept_gzip("deflate, GZIP;q=0.5"));
  assert_true(hs_accept_gzip("br, *"));
  assert_false(hs_accept_gzip("gzip;q=0, *"));
  assert_false(hs_accept_gzip("br, deflate"));
  assert_false(hs_accept_gzip("*;q=0"));
}

static void test_media_types(void **state)
{
  (void)state;
  assert_string_equal(hs_fmt_media_type(HS_FMT_TSV), "text/tab-separated-values");
  const char *ct = "application/sparql-results+json; charset=utf-8";
  assert_int_equal(hs_fmt_from_media_type(ct, strlen(ct)), HS_FMT_JSON);
  assert_int_equal(hs_fmt_from_media_type("text/foo", 8), HS_FMT_NONE);
}

static void test_form(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "test");
  hs_params_t p = {0};
  const char *body = "query=SELECT+*+%7B%7D&default-graph-uri=a&default-graph-uri=b%26c&x&"
                     "bad=%zz%4&nul=a%00b&&=v";
  hs_params_parse_form(&p, a, body, strlen(body));
  int n;
  const hs_param_t *q = hs_params_get(&p, "query", &n);
  assert_non_null(q);
  assert_int_equal(n, 1);
  assert_string_equal(q->pm_val, "SELECT * {}");
  const char **g = hs_params_all(&p, a, "default-graph-uri", &n);
  assert_int_equal(n, 2);
  assert_string_equal(g[0], "a");
  assert_string_equal(g[1], "b&c");
  assert_string_equal(hs_params_get(&p, "x", NULL)->pm_val, "");
  assert_string_equal(hs_params_get(&p, "bad", NULL)->pm_val, "%zz%4");
  const hs_param_t *z = hs_params_get(&p, "nul", NULL);
  assert_int_equal(z->pm_len, 3);
  assert_memory_equal(z->pm_val, "a\0b", 3);
  assert_string_equal(hs_params_get(&p, "", NULL)->pm_val, "v");
  assert_null(hs_params_get(&p, "update", &n));
  assert_int_equal(n, 0);
  arena_destroy(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_solutions),
      cmocka_unit_test(test_gzip),
      cmocka_unit_test(test_media_types),
      cmocka_unit_test(test_form),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
