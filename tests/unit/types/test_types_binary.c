/* test_types_binary — PostgreSQL's binary send/receive formats, including
 * NUMERIC's base-10000 digits, byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
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

static datum_t parse_text(ty_t t, const char *s)
{
  datum_t d;
  err_t e;
  assert_int_equal(ty_parse_text(t, s, strlen(s), ar, &d, &e), CZ_OK);
  return d;
}

/* Formats text s of type t in binary, checks the bytes, parses them back
 * and checks the text form again. */
static void check_binary(ty_t t, const char *s, const uint8_t *want, size_t wlen)
{
  datum_t d = parse_text(t, s), back;
  uint8_t buf[128];
  err_t e;
  assert_true(ty_binary_max(t, &d) <= sizeof(buf));
  int n = ty_format_binary(t, &d, buf, sizeof(buf));
  assert_int_equal(n, (int)wlen);
  assert_memory_equal(buf, want, wlen);
  assert_int_equal(ty_parse_binary(t, buf, (size_t)n, ar, &back, &e), CZ_OK);
  char txt[128];
  int tl = ty_format_text(t, &back, txt, sizeof(txt) - 1);
  txt[tl] = '\0';
  assert_string_equal(txt, s);
}

static void test_fixed_width_types(void **state)
{
  (void)state;
  check_binary(ty_plain(TY_INT2), "-2", (const uint8_t *)"\xff\xfe", 2);
  check_binary(ty_plain(TY_INT4), "258", (const uint8_t *)"\x00\x00\x01\x02", 4);
  check_binary(ty_plain(TY_INT8), "-1", (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff", 8);
  check_binary(ty_plain(TY_FLOAT8), "1.5", (const uint8_t *)"\x3f\xf8\x00\x00\x00\x00\x00\x00", 8);
  check_binary(ty_plain(TY_FLOAT4), "1.5", (const uint8_t *)"\x3f\xc0\x00\x00", 4);
  check_binary(ty_plain(TY_BOOL), "t", (const uint8_t *)"\x01", 1);
  check_binary(ty_plain(TY_DATE), "2000-01-02", (const uint8_t *)"\x00\x00\x00\x01", 4);
  check_binary(ty_plain(TY_TIMESTAMP), "2000-01-01 00:00:01",
               (const uint8_t *)"\x00\x00\x00\x00\x00\x0f\x42\x40", 8);
  check_binary(ty_plain(TY_TEXT), "h\xc3\xa9", (const uint8_t *)"h\xc3\xa9", 3);
  check_binary(ty_plain(TY_BYTEA), "\\x00ff", (const uint8_t *)"\x00\xff", 2);
}

static void test_numeric_digits(void **state)
{
  (void)state;
  ty_t n = ty_plain(TY_NUMERIC);
  /* ndigits, weight, sign, dscale, digits (big-endian int16 each) */
  check_binary(n, "1234.5678",
               (const uint8_t *)"\x00\x02\x00\x00\x00\x00\x00\x04\x04\xd2\x16\x2e", 12);
  check_binary(n, "0.01", (const uint8_t *)"\x00\x01\xff\xff\x00\x00\x00\x02\x00\x64", 10);
  check_binary(n, "12345", (const uint8_t *)"\x00\x02\x00\x01\x00\x00\x00\x00\x00\x01\x09\x29", 12);
  check_binary(n, "-1.50", (const uint8_t *)"\x00\x02\x00\x00\x40\x00\x00\x02\x00\x01\x13\x88", 12);
  check_binary(n, "0", (const uint8_t *)"\x00\x00\x00\x00\x00\x00\x00\x00", 8);
  check_binary(n, "0.000", (const uint8_t *)"\x00\x00\x00\x00\x00\x00\x00\x03", 8);
  check_binary(n, "10000", (const uint8_t *)"\x00\x01\x00\x01\x00\x00\x00\x00\x00\x01", 10);
}

static void test_numeric_recv_truncates_hidden_digits(void **state)
{
  (void)state;
  /* 1.2345 sent with dscale 2: PostgreSQL truncates to 1.23. */
  const uint8_t b[] = {0, 2, 0, 0, 0, 0, 0, 2, 0, 1, 0x09, 0x29};
  datum_t d;
  err_t e;
  char txt[64];
  assert_int_equal(ty_parse_binary(ty_plain(TY_NUMERIC), b, sizeof(b), ar, &d, &e), CZ_OK);
  int n = ty_format_text(ty_plain(TY_NUMERIC), &d, txt, sizeof(txt) - 1);
  txt[n] = '\0';
  assert_string_equal(txt, "1.23");
}

static void test_malformed_binary_is_22P03(void **state)
{
  (void)state;
  datum_t d;
  err_t e;
  assert_int_equal(ty_parse_binary(ty_plain(TY_INT4), (const uint8_t *)"\x00\x01", 2, ar, &d, &e),
                   CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22P03");
  const uint8_t bad_digit[] = {0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10};
  assert_int_equal(ty_parse_binary(ty_plain(TY_NUMERIC), bad_digit, sizeof(bad_digit), ar, &d, &e),
                   CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22P03");
  const uint8_t short_len[] = {0, 2, 0, 0, 0, 0, 0, 0, 0, 1};
  assert_int_equal(ty_parse_binary(ty_plain(TY_NUMERIC), short_len, sizeof(short_len), ar, &d, &e),
                   CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22P03");
  ty_t v2 = {TY_VARCHAR, 2, -1, 0, TY_UNKNOWN};
  assert_int_equal(ty_parse_binary(v2, (const uint8_t *)"abc", 3, ar, &d, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22001");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fixed_width_types),
      cmocka_unit_test(test_numeric_digits),
      cmocka_unit_test(test_numeric_recv_truncates_hidden_digits),
      cmocka_unit_test(test_malformed_binary_is_22P03),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
