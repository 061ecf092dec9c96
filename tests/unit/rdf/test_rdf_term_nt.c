/* test_rdf_term_nt — rdf_term_from_nt: terms written by the N-Triples
 * writer read back equal (random strings with every character the
 * escapes treat specially), the written forms rdf_term(id) produces, and
 * malformed input refused with 22P02, never read as another term.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "rdf/rdf.h"

typedef struct buf_s {
  char b[65536];
  size_t n;
} buf_t;

static int to_buf(void *ctx, const char *s, size_t n)
{
  buf_t *b = ctx;
  if (b->n + n > sizeof b->b)
    return -1;
  memcpy(b->b + b->n, s, n);
  b->n += n;
  return 0;
}

/* The object's text in the N-Triples line the writer makes for
 * <s> <p> o. */
static void write_object(const rdf_term_t *o, buf_t *b)
{
  b->n = 0;
  rdf_writer_t *w = rdf_writer_new(RDF_SYNTAX_NTRIPLES, to_buf, b, NULL);
  rdf_quad_t q = {.rq_s = rdf_iri("http://x/s"), .rq_p = rdf_iri("http://x/p"), .rq_o = *o};
  assert_int_equal(rdf_writer_quad(w, &q), 0);
  assert_int_equal(rdf_writer_finish(w), 0);
  static const char head[] = "<http://x/s> <http://x/p> ";
  assert_true(b->n > sizeof head + 2);
  assert_memory_equal(b->b, head, sizeof head - 1);
  assert_memory_equal(b->b + b->n - 3, " .\n", 3);
  memmove(b->b, b->b + sizeof head - 1, b->n - (sizeof head - 1) - 3);
  b->n -= sizeof head - 1 + 3;
}

static void back_equal(const rdf_term_t *t)
{
  buf_t *b = malloc(sizeof *b);
  write_object(t, b);
  arena_t *a = arena_create(NULL, "test");
  rdf_term_t back;
  err_t e;
  if (rdf_term_from_nt(a, b->b, b->n, &back, &e) != CZ_OK)
    fail_msg("%.*s: %s", (int)b->n, b->b, e.er_msg);
  if (!rdf_term_equal(&back, t))
    fail_msg("%.*s came back as %d \"%.*s\"", (int)b->n, b->b, back.rt_kind, (int)back.rt_len,
             back.rt_str);
  arena_destroy(a);
  free(b);
}

static void test_round_trip(void **state)
{
  (void)state;
  rdf_term_t fixed[] = {
      rdf_iri("http://example.org/a#b"),
      rdf_iri("http://example.org/sp ace\\<>\"{}|^`"),
      rdf_bnode("b0"),
      rdf_literal("", NULL, NULL),
      rdf_literal("plain", NULL, NULL),
      rdf_literal("Zürich \xF0\x9F\x98\x80", NULL, "de-CH"),
      rdf_literal("42", "http://www.w3.org/2001/XMLSchema#integer", NULL),
      rdf_literal("a \"q\" \\ \n \r \t \x01 \x7f", "http://x/t\\y", NULL),
  };
  for (size_t i = 0; i < CZ_ARRAY_LEN(fixed); i++)
    back_equal(&fixed[i]);
  uint64_t s = cz_test_seed();
  static const char pool[] = "ab\"\\\n\r\t\x01\x1f\x7f <>^@'";
  for (int k = 0; k < 2000; k++) {
    char lex[40];
    int n = (int)(s % 30);
    for (int i = 0; i < n; i++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      lex[i] = pool[(s >> 33) % (sizeof pool - 1)];
    }
    lex[n] = '\0';
    rdf_term_t t = rdf_literal(lex, k % 3 == 1 ? "http://x/dt" : NULL, k % 3 == 2 ? "en" : NULL);
    back_equal(&t);
  }
}

static void test_written_forms(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "test");
  rdf_term_t t;
  err_t e;
  const char *s = "\"x\"^^<http://www.w3.org/2001/XMLSchema#string>";
  assert_int_equal(rdf_term_from_nt(a, s, strlen(s), &t, &e), CZ_OK);
  assert_true(t.rt_kind == RDF_LITERAL && t.rt_dt == NULL && t.rt_len == 1);
  s = "\"\\u00E9\\U0001F600\"@fr";
  assert_int_equal(rdf_term_from_nt(a, s, strlen(s), &t, &e), CZ_OK);
  assert_int_equal(t.rt_len, 6);
  assert_memory_equal(t.rt_str, "\xC3\xA9\xF0\x9F\x98\x80", 6);
  assert_memory_equal(t.rt_lang, "fr", 2);
  s = "<http://x/\\u0020>";
  assert_int_equal(rdf_term_from_nt(a, s, strlen(s), &t, &e), CZ_OK);
  assert_true(t.rt_len == 10 && memcmp(t.rt_str, "http://x/ ", 10) == 0);
  arena_destroy(a);
}

static void test_malformed(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "test");
  const char *bad[] = {"", "x", "<", "_:", "\"", "\"abc", "\"a\"x", "\"a\"@", "\"a\"^^", "\"a\"^^<x",
                       "\"\\q\"", "\"\\u12\"", "\"\\uD800\"", "\"\\U00110000\"", "<a\\nb>", "\"a\\\""};
  for (size_t i = 0; i < CZ_ARRAY_LEN(bad); i++) {
    rdf_term_t t;
    err_t e;
    if (rdf_term_from_nt(a, bad[i], strlen(bad[i]), &t, &e) != CZ_ERR)
      fail_msg("%s was read as a term", bad[i]);
    assert_string_equal(e.er_sqlstate, "22P02");
  }
  arena_destroy(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_written_forms),
      cmocka_unit_test(test_malformed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
