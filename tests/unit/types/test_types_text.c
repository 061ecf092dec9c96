/* test_types_text — text input and output of every type, byte for byte
 * against what PostgreSQL 15 prints for the same value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
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

/* Parses in as type t and prints it again. */
static const char *round_trip(ty_t t, const char *in)
{
  static char out[256];
  datum_t d;
  err_t e;
  if (ty_parse_text(t, in, strlen(in), ar, &d, &e) != CZ_OK) {
    snprintf(out, sizeof(out), "ERR %s", e.er_sqlstate);
    return out;
  }
  size_t max = ty_text_max(t, &d);
  assert_true(max < sizeof(out));
  int n = ty_format_text(t, &d, out, sizeof(out) - 1);
  assert_true(n >= 0 && (size_t)n <= max);
  out[n] = '\0';
  return out;
}

static const char *fmt_f8(double v)
{
  static char out[64];
  datum_t d = {.d_f64 = v};
  int n = ty_format_text(ty_plain(TY_FLOAT8), &d, out, sizeof(out) - 1);
  out[n] = '\0';
  return out;
}

static const char *fmt_f4(float v)
{
  static char out[64];
  datum_t d = {.d_f64 = v};
  int n = ty_format_text(ty_plain(TY_FLOAT4), &d, out, sizeof(out) - 1);
  out[n] = '\0';
  return out;
}

static void test_float8_shortest_like_postgres(void **state)
{
  (void)state;
  assert_string_equal(fmt_f8(0.1), "0.1");
  assert_string_equal(fmt_f8(0.1 + 0.2), "0.30000000000000004");
  assert_string_equal(fmt_f8(1e20), "1e+20");
  assert_string_equal(fmt_f8(1e15), "1e+15");
  assert_string_equal(fmt_f8(123456789012345.0), "123456789012345");
  assert_string_equal(fmt_f8(1e-5), "1e-05");
  assert_string_equal(fmt_f8(0.0001), "0.0001");
  assert_string_equal(fmt_f8(1.0 / 3), "0.3333333333333333");
  assert_string_equal(fmt_f8(2.0 / 3), "0.6666666666666666");
  assert_string_equal(fmt_f8(100), "100");
  assert_string_equal(fmt_f8(-42), "-42");
  assert_string_equal(fmt_f8(999999999999999.0), "999999999999999");
  assert_string_equal(fmt_f8(-1.5), "-1.5");
  assert_string_equal(fmt_f8(1.7976931348623157e308), "1.7976931348623157e+308");
  assert_string_equal(fmt_f8(5e-324), "5e-324");
  assert_string_equal(fmt_f8(1.5e-10), "1.5e-10");
  assert_string_equal(fmt_f8(NAN), "NaN");
  assert_string_equal(fmt_f8(INFINITY), "Infinity");
  assert_string_equal(fmt_f8(-INFINITY), "-Infinity");
  assert_string_equal(fmt_f8(-0.0), "-0");
  assert_string_equal(fmt_f8(0.0), "0");
}

static void test_float4_shortest_like_postgres(void **state)
{
  (void)state;
  assert_string_equal(fmt_f4(0.1f), "0.1");
  assert_string_equal(fmt_f4(1000000.0f), "1e+06");
  assert_string_equal(fmt_f4(123456.0f), "123456");
  assert_string_equal(fmt_f4(1.0f / 3), "0.33333334");
  assert_string_equal(fmt_f4(3.4028235e38f), "3.4028235e+38");
  assert_string_equal(round_trip(ty_plain(TY_FLOAT4), "1.1"), "1.1");
  /* 1.2729598e+08 reads back as this float, but lies exactly halfway to
   * its neighbour: PostgreSQL prints the 9-digit form. */
  assert_string_equal(fmt_f4(127295984.0f), "1.27295984e+08");
  assert_string_equal(fmt_f4(72234704.0f), "7.2234704e+07");
  assert_string_equal(fmt_f4(1e-40f), "1e-40");
}

static void test_float_input(void **state)
{
  (void)state;
  ty_t f8 = ty_plain(TY_FLOAT8);
  assert_string_equal(round_trip(f8, " 1.5 "), "1.5");
  assert_string_equal(round_trip(f8, "nan"), "NaN");
  assert_string_equal(round_trip(f8, "-inf"), "-Infinity");
  assert_string_equal(round_trip(f8, "Infinity"), "Infinity");
  assert_string_equal(round_trip(f8, "1e400"), "ERR 22003");
  assert_string_equal(round_trip(f8, "-NaN"), "NaN");
  assert_string_equal(round_trip(f8, "0x1p3"), "8");
  assert_string_equal(round_trip(f8, "1e-400"), "ERR 22003");
  assert_string_equal(round_trip(f8, "abc"), "ERR 22P02");
  assert_string_equal(round_trip(f8, ""), "ERR 22P02");
  assert_string_equal(round_trip(ty_plain(TY_FLOAT4), "1e40"), "ERR 22003");
}

static void test_integers(void **state)
{
  (void)state;
  assert_string_equal(round_trip(ty_plain(TY_INT4), " 42 "), "42");
  assert_string_equal(round_trip(ty_plain(TY_INT4), "+7"), "7");
  assert_string_equal(round_trip(ty_plain(TY_INT4), "-2147483648"), "-2147483648");
  assert_string_equal(round_trip(ty_plain(TY_INT4), "2147483648"), "ERR 22003");
  assert_string_equal(round_trip(ty_plain(TY_INT2), "32768"), "ERR 22003");
  assert_string_equal(round_trip(ty_plain(TY_INT2), "-32768"), "-32768");
  assert_string_equal(round_trip(ty_plain(TY_INT8), "-9223372036854775808"),
                      "-9223372036854775808");
  assert_string_equal(round_trip(ty_plain(TY_INT8), "9223372036854775808"), "ERR 22003");
  assert_string_equal(round_trip(ty_plain(TY_INT8), "99999999999999999999999"), "ERR 22003");
  static const char *const ints[] = {"0", "9", "10", "-10", "99", "100", "-101", "1000000007",
                                     "9223372036854775807"};
  for (size_t i = 0; i < CZ_ARRAY_LEN(ints); i++)
    assert_string_equal(round_trip(ty_plain(TY_INT8), ints[i]), ints[i]);
  assert_string_equal(round_trip(ty_plain(TY_INT4), "abc"), "ERR 22P02");
  assert_string_equal(round_trip(ty_plain(TY_INT4), "1.5"), "ERR 22P02");
  assert_string_equal(round_trip(ty_plain(TY_INT4), "-"), "ERR 22P02");
}

static void test_bool(void **state)
{
  (void)state;
  ty_t b = ty_plain(TY_BOOL);
  assert_string_equal(round_trip(b, "yes"), "t");
  assert_string_equal(round_trip(b, "TRUE"), "t");
  assert_string_equal(round_trip(b, "tr"), "t");
  assert_string_equal(round_trip(b, " of "), "f");
  assert_string_equal(round_trip(b, "0"), "f");
  assert_string_equal(round_trip(b, "on"), "t");
  assert_string_equal(round_trip(b, "o"), "ERR 22P02");
  assert_string_equal(round_trip(b, "truex"), "ERR 22P02");
  assert_string_equal(round_trip(b, ""), "ERR 22P02");
}

static void test_numeric_keeps_scale(void **state)
{
  (void)state;
  ty_t n = ty_plain(TY_NUMERIC);
  assert_string_equal(round_trip(n, "1.50"), "1.50");
  assert_string_equal(round_trip(n, "-0.001"), "-0.001");
  assert_string_equal(round_trip(n, "1e3"), "1000");
  assert_string_equal(round_trip(n, "1.5e-3"), "0.0015");
  assert_string_equal(round_trip(n, "  12  "), "12");
  assert_string_equal(round_trip(n, "0.000"), "0.000");
  assert_string_equal(round_trip(n, "-0"), "0");
  assert_string_equal(round_trip(n, ".5"), "0.5");
  assert_string_equal(round_trip(n, "007"), "7");
  assert_string_equal(round_trip(n, "12345678901234567890123456789012345678"),
                      "12345678901234567890123456789012345678");
  assert_string_equal(round_trip(n, "123456789012345678901234567890123456789"), "ERR 22003");
  assert_string_equal(round_trip(n, "1.2.3"), "ERR 22P02");
  assert_string_equal(round_trip(n, "e5"), "ERR 22P02");
  assert_string_equal(round_trip(n, "1e1001"), "ERR 22003");
  assert_string_equal(round_trip(n, "00.100"), "0.100");
  /* more than 38 significant digits is 22003, never a silent rounding */
  assert_string_equal(round_trip(n, "1.000000000000000000000000000000000000001"), "ERR 22003");
  ty_t n52 = {TY_NUMERIC, -1, 5, 2, TY_UNKNOWN};
  assert_string_equal(round_trip(n52, "123.456"), "123.46");
  assert_string_equal(round_trip(n52, "-1.005"), "-1.01");
  assert_string_equal(round_trip(n52, "1"), "1.00");
  assert_string_equal(round_trip(n52, "1000"), "ERR 22003");
  assert_string_equal(round_trip(n52, "999.995"), "ERR 22003");
}

static void test_dates(void **state)
{
  (void)state;
  ty_t d = ty_plain(TY_DATE);
  assert_string_equal(round_trip(d, "2020-02-29"), "2020-02-29");
  assert_string_equal(round_trip(d, "2021-02-29"), "ERR 22008");
  assert_string_equal(round_trip(d, "2021-13-01"), "ERR 22008");
  assert_string_equal(round_trip(d, "0001-01-01 BC"), "0001-01-01 BC");
  assert_string_equal(round_trip(d, "1900-03-01"), "1900-03-01");
  assert_string_equal(round_trip(d, "infinity"), "infinity");
  assert_string_equal(round_trip(d, "2020-01-02 10:11:12"), "2020-01-02");
  assert_string_equal(round_trip(d, "yesterdayish"), "ERR 22007");
  assert_string_equal(round_trip(d, "epoch"), "1970-01-01");
  assert_string_equal(round_trip(d, "0000-01-01"), "ERR 22008");
  assert_string_equal(round_trip(d, "20200101"), "2020-01-01");
  assert_string_equal(round_trip(d, "2020/1/2"), "2020-01-02");
  assert_string_equal(round_trip(d, "4714-11-24 BC"), "4714-11-24 BC");
  assert_string_equal(round_trip(d, "4714-11-23 BC"), "ERR 22008");
  assert_string_equal(round_trip(d, "5874897-12-31"), "5874897-12-31");
  datum_t v;
  err_t e;
  assert_int_equal(ty_parse_text(d, "2000-01-01", 10, ar, &v, &e), CZ_OK);
  assert_int_equal(v.d_i64, 0);
  assert_int_equal(ty_parse_text(d, "1999-12-31", 10, ar, &v, &e), CZ_OK);
  assert_int_equal(v.d_i64, -1);
  assert_int_equal(ty_parse_text(d, "1970-01-01", 10, ar, &v, &e), CZ_OK);
  assert_int_equal(v.d_i64, -10957);
}

static void test_timestamps(void **state)
{
  (void)state;
  ty_t t = ty_plain(TY_TIMESTAMP);
  assert_string_equal(round_trip(t, "2020-01-02 03:04:05.123"), "2020-01-02 03:04:05.123");
  assert_string_equal(round_trip(t, "2020-01-02"), "2020-01-02 00:00:00");
  assert_string_equal(round_trip(t, "2020-01-02T03:04:05.1234567"), "2020-01-02 03:04:05.123457");
  assert_string_equal(round_trip(t, "1960-06-30 23:59:59.5"), "1960-06-30 23:59:59.5");
  assert_string_equal(round_trip(t, "2020-01-02 03:04"), "2020-01-02 03:04:00");
  assert_string_equal(round_trip(t, "2020-01-02 24:00:00"), "2020-01-03 00:00:00");
  assert_string_equal(round_trip(t, "2020-01-02 25:00:00"), "ERR 22008");
  assert_string_equal(round_trip(t, "2020-01-02 03:04:05+02"), "2020-01-02 03:04:05");
  assert_string_equal(round_trip(t, "-infinity"), "-infinity");
  assert_string_equal(round_trip(t, "epoch"), "1970-01-01 00:00:00");
  assert_string_equal(round_trip(t, "2020-01-01 23:59:59.9999995"), "2020-01-02 00:00:00");
  assert_string_equal(round_trip(t, "2020-01-01 12:00:60"), "2020-01-01 12:01:00");
  assert_string_equal(round_trip(t, "294277-01-01"), "ERR 22008");
  ty_t t0 = {TY_TIMESTAMP, -1, 0, 0, TY_UNKNOWN};
  assert_string_equal(round_trip(t0, "2020-01-02 03:04:05.5"), "2020-01-02 03:04:06");
}

static void test_strings_and_lengths(void **state)
{
  (void)state;
  ty_t v3 = {TY_VARCHAR, 3, -1, 0, TY_UNKNOWN};
  ty_t c3 = {TY_CHAR, 3, -1, 0, TY_UNKNOWN};
  assert_string_equal(round_trip(v3, "abc"), "abc");
  assert_string_equal(round_trip(v3, "abcd"), "ERR 22001");
  assert_string_equal(round_trip(v3, "abc   "), "abc");
  assert_string_equal(round_trip(v3, "\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");
  assert_string_equal(round_trip(c3, "a"), "a  ");
  assert_string_equal(round_trip(c3, "abcd"), "ERR 22001");
  assert_string_equal(round_trip(ty_plain(TY_TEXT), "anything"), "anything");
}

static void test_bytea(void **state)
{
  (void)state;
  ty_t b = ty_plain(TY_BYTEA);
  assert_string_equal(round_trip(b, "\\x0aff"), "\\x0aff");
  assert_string_equal(round_trip(b, "\\x0A FF"), "\\x0aff");
  assert_string_equal(round_trip(b, "ab\\\\c"), "\\x61625c63");
  assert_string_equal(round_trip(b, "\\141"), "\\x61");
  assert_string_equal(round_trip(b, ""), "\\x");
  assert_string_equal(round_trip(b, "\\x0g"), "ERR 22023");
  assert_string_equal(round_trip(b, "\\x0"), "ERR 22023");
  assert_string_equal(round_trip(b, "a\\9"), "ERR 22P02");
}

static void test_format_reports_small_buffer(void **state)
{
  (void)state;
  datum_t d = {.d_i64 = 123456};
  char buf[4];
  assert_int_equal(ty_format_text(ty_plain(TY_INT4), &d, buf, sizeof(buf)), -1);
  assert_true(ty_text_max(ty_plain(TY_INT4), &d) >= 6);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_float8_shortest_like_postgres),
      cmocka_unit_test(test_float4_shortest_like_postgres),
      cmocka_unit_test(test_float_input),
      cmocka_unit_test(test_integers),
      cmocka_unit_test(test_bool),
      cmocka_unit_test(test_numeric_keeps_scale),
      cmocka_unit_test(test_dates),
      cmocka_unit_test(test_timestamps),
      cmocka_unit_test(test_strings_and_lengths),
      cmocka_unit_test(test_bytea),
      cmocka_unit_test(test_format_reports_small_buffer),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
