/* test_types_num — NUMERIC arithmetic: PostgreSQL's result scales, exact
 * results, rounding, overflow (22003) and division by zero (22012). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cz_test.h"
#include "types/types.h"

static num_t N(const char *s)
{
  datum_t d;
  err_t e;
  arena_t *a = arena_create(NULL, "n");
  int rc = ty_parse_text(ty_plain(TY_NUMERIC), s, strlen(s), a, &d, &e);
  arena_destroy(a);
  assert_int_equal(rc, CZ_OK);
  return d.d_num;
}

static const char *S(const num_t *n)
{
  static char buf[8][64];
  static int k;
  char *b = buf[k++ % 8];
  datum_t d = {.d_num = *n};
  int len = ty_format_text(ty_plain(TY_NUMERIC), &d, b, 63);
  b[len] = '\0';
  return b;
}

typedef int (*binop_t)(const num_t *, const num_t *, num_t *, err_t *);

static const char *op(binop_t f, const char *a, const char *b)
{
  static char err[16];
  num_t x = N(a), y = N(b), r;
  err_t e;
  if (f(&x, &y, &r, &e) != CZ_OK) {
    snprintf(err, sizeof(err), "ERR %s", e.er_sqlstate);
    return err;
  }
  return S(&r);
}

static void test_add_sub_keep_larger_scale(void **state)
{
  (void)state;
  assert_string_equal(op(num_add, "1.5", "2.25"), "3.75");
  assert_string_equal(op(num_add, "1.50", "-1.5"), "0.00");
  assert_string_equal(op(num_sub, "1", "0.001"), "0.999");
  assert_string_equal(op(num_sub, "-5", "5"), "-10");
  assert_string_equal(op(num_add, "99999999999999999999999999999999999999", "1"), "ERR 22003");
  /* the equal-scale fast path: 2 * (10^38 - 1) passes __int128 (UBSan) */
  assert_string_equal(op(num_add, "99999999999999999999999999999999999999",
                         "99999999999999999999999999999999999999"), "ERR 22003");
  assert_string_equal(op(num_sub, "-99999999999999999999999999999999999999",
                         "99999999999999999999999999999999999999"), "ERR 22003");
  assert_string_equal(op(num_add, "9999999999999999999.9999999999999999999",
                         "9999999999999999999.9999999999999999999"),
                      "20000000000000000000.000000000000000000");
  assert_string_equal(op(num_add, "99999999999999999999999999999999999999", "-1"),
                      "99999999999999999999999999999999999998");
  /* Aligning 38 digits by one more scale digit overflows 128 bits in the
   * intermediate but the result fits after rounding to scale 0. */
  assert_string_equal(op(num_add, "9999999999999999999999999999999999999", "0.4"),
                      "9999999999999999999999999999999999999.4");
}

static void test_mul_scale_is_sum(void **state)
{
  (void)state;
  assert_string_equal(op(num_mul, "1.5", "2.25"), "3.375");
  assert_string_equal(op(num_mul, "-0.1", "0.1"), "-0.01");
  assert_string_equal(op(num_mul, "0", "-3.5"), "0.0");
  assert_string_equal(op(num_mul, "12345678901234567890", "12345678901234567890"), "ERR 22003");
  assert_string_equal(op(num_mul, "1234567890123456789", "1234567890123456789"),
                      "1524157875323883675019051998750190521");
}

static void test_div_postgres_scale(void **state)
{
  (void)state;
  assert_string_equal(op(num_div, "1", "3"), "0.33333333333333333333");
  assert_string_equal(op(num_div, "10", "3"), "3.3333333333333333");
  assert_string_equal(op(num_div, "100", "3"), "33.3333333333333333");
  assert_string_equal(op(num_div, "1.0", "2"), "0.50000000000000000000");
  assert_string_equal(op(num_div, "3", "2"), "1.5000000000000000");
  assert_string_equal(op(num_div, "-7", "2"), "-3.5000000000000000");
  assert_string_equal(op(num_div, "2", "3"), "0.66666666666666666667");
  assert_string_equal(op(num_div, "1", "0"), "ERR 22012");
  assert_string_equal(op(num_div, "0", "5"), "0.00000000000000000000");
}

static void test_mod(void **state)
{
  (void)state;
  assert_string_equal(op(num_mod, "10", "3"), "1");
  assert_string_equal(op(num_mod, "-10", "3"), "-1");
  assert_string_equal(op(num_mod, "5.5", "2"), "1.5");
  assert_string_equal(op(num_mod, "1", "0"), "ERR 22012");
  /* Aligning the scales needs more than 128 bits; PostgreSQL's values. */
  assert_string_equal(op(num_mod, "1234567890123456789012345678901234567",
                         "0.123456789012345678901234567890"),
                      "0.097530855309753085530976543120");
  assert_string_equal(op(num_mod, "-99999999999999999999999999999999999999", "7.5"), "-1.5");
}

static const char *sqrt_of(const char *a)
{
  static char err[16];
  num_t x = N(a), r;
  err_t e;
  if (num_sqrt(&x, &r, &e) != CZ_OK) {
    snprintf(err, sizeof(err), "ERR %s", e.er_sqlstate);
    return err;
  }
  return S(&r);
}

/* Values printed by PostgreSQL 15 for sqrt(x::numeric). */
static void test_sqrt_postgres_scale(void **state)
{
  (void)state;
  assert_string_equal(sqrt_of("2"), "1.414213562373095");
  assert_string_equal(sqrt_of("2.0"), "1.414213562373095");
  assert_string_equal(sqrt_of("0"), "0.000000000000000");
  assert_string_equal(sqrt_of("0.25"), "0.50000000000000000");
  assert_string_equal(sqrt_of("100"), "10.000000000000000");
  assert_string_equal(sqrt_of("1e-10"), "0.000010000000000000000");
  assert_string_equal(sqrt_of("-1"), "ERR 2201F");
}

static void test_rescale_rounds_half_away(void **state)
{
  (void)state;
  num_t r, x;
  err_t e;
  x = N("2.5");
  assert_int_equal(num_rescale(&x, 0, &r, &e), CZ_OK);
  assert_string_equal(S(&r), "3");
  x = N("-2.5");
  assert_int_equal(num_rescale(&x, 0, &r, &e), CZ_OK);
  assert_string_equal(S(&r), "-3");
  x = N("1.2345");
  assert_int_equal(num_rescale(&x, 2, &r, &e), CZ_OK);
  assert_string_equal(S(&r), "1.23");
  assert_int_equal(num_rescale(&x, 6, &r, &e), CZ_OK);
  assert_string_equal(S(&r), "1.234500");
  x = N("99999999999999999999999999999999999999");
  assert_int_equal(num_rescale(&x, 1, &r, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22003");
}

static void test_compare_across_scales(void **state)
{
  (void)state;
  num_t a = N("1.0"), b = N("1.00"), c = N("-2"), d = N("0.999");
  assert_int_equal(num_cmp(&a, &b), 0);
  assert_true(num_cmp(&c, &a) < 0);
  assert_true(num_cmp(&d, &a) < 0);
  assert_true(num_cmp(&a, &d) > 0);
  datum_t x = {.d_num = a}, y = {.d_num = b};
  assert_true(datum_hash(TP_NUM, &x) == datum_hash(TP_NUM, &y));
}

static void test_float_conversions(void **state)
{
  (void)state;
  num_t r;
  err_t e;
  assert_int_equal(num_from_f64(0.1, -1, &r, &e), CZ_OK);
  assert_string_equal(S(&r), "0.1");
  assert_int_equal(num_from_f64(1e20, -1, &r, &e), CZ_OK);
  assert_string_equal(S(&r), "100000000000000000000");
  assert_int_equal(num_from_f64(2.675, 2, &r, &e), CZ_OK);
  assert_string_equal(S(&r), "2.68");
  assert_int_equal(num_from_f64(1.0 / 0.0, -1, &r, &e), CZ_ERR);
  num_t x = N("0.1");
  assert_true(num_to_f64(&x) == 0.1);
  x = N("12345678901234567890.123");
  assert_true(num_to_f64(&x) == 12345678901234567890.123);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_add_sub_keep_larger_scale),
      cmocka_unit_test(test_mul_scale_is_sum),
      cmocka_unit_test(test_div_postgres_scale),
      cmocka_unit_test(test_mod),
      cmocka_unit_test(test_sqrt_postgres_scale),
      cmocka_unit_test(test_rescale_rounds_half_away),
      cmocka_unit_test(test_compare_across_scales),
      cmocka_unit_test(test_float_conversions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
