/* test_types_json — json and jsonb values: json keeps its text, jsonb's
 * canonical form (key order, last duplicate kept, numeric's numbers,
 * escapes), PostgreSQL's error DETAILs, the depth limit, binary forms and
 * jsonb's btree order. Expected texts are PostgreSQL 15's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "types/types.h"

static arena_t *ar;

static int setup(void **state)
{
  (void)state;
  ar = arena_create(NULL, "test");
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  arena_destroy(ar);
  return 0;
}

static void check_out(ty_id_t id, const char *in, const char *want)
{
  datum_t d;
  err_t e;
  assert_int_equal(ty_parse_text(ty_plain(id), in, strlen(in), ar, &d, &e), CZ_OK);
  char buf[256];
  int n = ty_format_text(ty_plain(id), &d, buf, sizeof buf);
  assert_true(n >= 0);
  buf[n] = '\0';
  assert_string_equal(buf, want);
}

static void check_err(ty_id_t id, const char *in, const char *state, const char *detail)
{
  datum_t d;
  err_t e;
  err_clear(&e);
  assert_int_equal(ty_parse_text(ty_plain(id), in, strlen(in), ar, &d, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, state);
  if (detail)
    assert_string_equal(e.er_detail, detail);
}

static void test_json_keeps_text(void **state)
{
  (void)state;
  check_out(TY_JSON, "{\"b\":1, \"a\" : [1,2.50,1e2], \"a\":\"x\"}", "{\"b\":1, \"a\" : [1,2.50,1e2], \"a\":\"x\"}");
  check_out(TY_JSON, "\"\\u0000\\ud800\"", "\"\\u0000\\ud800\""); /* form only, as json_in */
}

static void test_jsonb_canonical(void **state)
{
  (void)state;
  check_out(TY_JSONB, "{\"b\":1, \"a\" : [1,2.50,1e2], \"a\":\"x\"}", "{\"a\": \"x\", \"b\": 1}");
  check_out(TY_JSONB, "{\"aa\":1,\"b\":2,\"a\":3}", "{\"a\": 3, \"b\": 2, \"aa\": 1}");
  check_out(TY_JSONB, "[1.5e3, -0, -0.0, 1E-2, 0.00100, 10.50, 1e-3]",
            "[1500, 0, 0.0, 0.01, 0.00100, 10.50, 0.001]");
  check_out(TY_JSONB, " \"\\u00e9\\ud83d\\ude00\\n\\u001f\\/\" ", "\"\xc3\xa9\xf0\x9f\x98\x80\\n\\u001f/\"");
  check_out(TY_JSONB, "[{}, [], null, true, false]", "[{}, [], null, true, false]");
}

static void test_errors(void **state)
{
  (void)state;
  check_err(TY_JSON, "{\"a\":1,}", "22P02", "Expected string, but found \"}\".");
  check_err(TY_JSON, "[1 2]", "22P02", "Expected \",\" or \"]\", but found \"2\".");
  check_err(TY_JSON, "[,]", "22P02", "Expected JSON value, but found \",\".");
  check_err(TY_JSON, "{1:2}", "22P02", "Expected string or \"}\", but found \"1\".");
  check_err(TY_JSON, "{\"a\" 1}", "22P02", "Expected \":\", but found \"1\".");
  check_err(TY_JSON, "tru", "22P02", "Token \"tru\" is invalid.");
  check_err(TY_JSON, "01", "22P02", "Token \"01\" is invalid.");
  check_err(TY_JSON, "1.", "22P02", "Token \"1.\" is invalid.");
  check_err(TY_JSON, "\"abc", "22P02", "Token \"\"abc\" is invalid.");
  check_err(TY_JSON, "\"a\\x\"", "22P02", "Escape sequence \"\\x\" is invalid.");
  check_err(TY_JSON, "\"\\u12\"", "22P02", "\"\\u\" must be followed by four hexadecimal digits.");
  check_err(TY_JSON, "\"a\tb\"", "22P02", "Character with value 0x09 must be escaped.");
  check_err(TY_JSON, "  ", "22P02", "The input string ended unexpectedly.");
  check_err(TY_JSON, "[1] x", "22P02", "Token \"x\" is invalid.");
  check_err(TY_JSON, "[1] 2", "22P02", "Expected end of input, but found \"2\".");
  check_err(TY_JSONB, "\"\\ud800\"", "22P02", "Unicode low surrogate must follow a high surrogate.");
  check_err(TY_JSONB, "\"\\ud800\\ud800\"", "22P02", "Unicode high surrogate must not follow a high surrogate.");
  check_err(TY_JSONB, "\"\\u0000\"", "22P05", "\\u0000 cannot be converted to text.");
}

static void test_depth_limit(void **state)
{
  (void)state;
  int n = TY_JSON_MAX_DEPTH;
  char *s = malloc((size_t)(2 * n + 3));
  memset(s, '[', (size_t)n);
  memset(s + n, ']', (size_t)n);
  s[2 * n] = '\0';
  datum_t d;
  err_t e;
  assert_int_equal(ty_parse_text(ty_plain(TY_JSONB), s, strlen(s), ar, &d, &e), CZ_OK);
  memmove(s + 1, s, (size_t)(2 * n + 1));
  s[0] = '[';
  strcat(s, "]");
  check_err(TY_JSON, s, "54001", NULL);
  check_err(TY_JSONB, s, "54001", NULL);
  free(s);
}

static void test_binary(void **state)
{
  (void)state;
  datum_t d;
  err_t e;
  const uint8_t in[] = {1, '{', '"', 'b', '"', ':', '1', ',', '"', 'a', '"', ':', '2', '}'};
  assert_int_equal(ty_parse_binary(ty_plain(TY_JSONB), in, sizeof in, ar, &d, &e), CZ_OK);
  uint8_t out[64];
  int n = ty_format_binary(ty_plain(TY_JSONB), &d, out, sizeof out);
  assert_int_equal(n, 1 + (int)strlen("{\"a\": 2, \"b\": 1}"));
  assert_int_equal(out[0], 1);
  assert_memory_equal(out + 1, "{\"a\": 2, \"b\": 1}", (size_t)n - 1);
  const uint8_t v2[] = {2, '1'};
  assert_int_equal(ty_parse_binary(ty_plain(TY_JSONB), v2, sizeof v2, ar, &d, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22P03");
  assert_int_equal(ty_pg_oid(ty_plain(TY_JSON)), 114);
  assert_int_equal(ty_pg_oid(ty_plain(TY_JSONB)), 3802);
}

static int cmp_texts(const char *a, const char *b)
{
  ty_jval_t *x, *y;
  err_t e;
  assert_int_equal(ty_json_parse(a, strlen(a), true, ar, &x, &e), CZ_OK);
  assert_int_equal(ty_json_parse(b, strlen(b), true, ar, &y, &e), CZ_OK);
  return ty_jsonb_cmp(x, y);
}

static void test_btree_order(void **state)
{
  (void)state;
  /* null < string < number < boolean < array < object */
  assert_true(cmp_texts("null", "\"a\"") < 0);
  assert_true(cmp_texts("\"z\"", "1") < 0);
  assert_true(cmp_texts("100", "true") < 0);
  assert_true(cmp_texts("[1]", "{}") < 0);
  assert_true(cmp_texts("2", "10") < 0);
  assert_true(cmp_texts("-2", "-10") > 0);
  assert_int_equal(cmp_texts("1.0", "1.00"), 0);
  assert_true(cmp_texts("[1, 2]", "[3]") > 0);   /* more elements first */
  assert_true(cmp_texts("{\"a\": 1}", "{\"a\": 2}") < 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json_keeps_text),   cmocka_unit_test(test_jsonb_canonical),
      cmocka_unit_test(test_errors),            cmocka_unit_test(test_depth_limit),
      cmocka_unit_test(test_binary),            cmocka_unit_test(test_btree_order),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
