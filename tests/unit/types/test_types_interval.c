/* test_types_interval — INTERVAL's text input and output against what
 * PostgreSQL 15 prints, typmod fields and precision, the binary form,
 * ordering and hashing of the justified length, and the arithmetic
 * (cascading fractions, month ends, age, justify, extract). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

static ty_t iv_type(int fields, int prec)
{
  ty_t t = ty_plain(TY_INTERVAL);
  t.t_scale = (int16_t)fields;
  t.t_prec = (int16_t)prec;
  return t;
}

/* Parses in with type t and prints it, or "ERR <sqlstate>". */
static const char *rt(ty_t t, const char *in)
{
  static char out[256];
  datum_t d;
  err_t e;
  if (ty_parse_text(t, in, strlen(in), ar, &d, &e) != CZ_OK) {
    snprintf(out, sizeof(out), "ERR %s", e.er_sqlstate);
    return out;
  }
  int n = ty_format_text(t, &d, out, sizeof(out) - 1);
  assert_true(n >= 0);
  out[n] = '\0';
  return out;
}

static const char *iv(const char *in)
{
  return rt(ty_plain(TY_INTERVAL), in);
}

static ty_iv_t parse(const char *in)
{
  datum_t d;
  err_t e;
  assert_int_equal(ty_parse_text(ty_plain(TY_INTERVAL), in, strlen(in), ar, &d, &e), CZ_OK);
  return d.d_iv;
}

static const char *show(const ty_iv_t *v)
{
  static char out[TY_IV_TEXT_MAX];
  ty_iv_format(v, out);
  return out;
}

static void test_postgres_forms(void **state)
{
  (void)state;
  assert_string_equal(iv("1 year 2 mons 3 days 04:05:06.5"), "1 year 2 mons 3 days 04:05:06.5");
  assert_string_equal(iv("0"), "00:00:00");
  assert_string_equal(iv("-1 day +02:03"), "-1 days +02:03:00");
  assert_string_equal(iv("+1 day -2 hours"), "1 day -02:00:00");
  assert_string_equal(iv("1.5 months"), "1 mon 15 days");
  assert_string_equal(iv("1.5 years"), "1 year 6 mons");
  assert_string_equal(iv("0.5 weeks"), "3 days 12:00:00");
  assert_string_equal(iv("1 day 02:03:04.123456789"), "1 day 02:03:04.123457");
  assert_string_equal(iv("12:30.5"), "00:12:30.5");
  assert_string_equal(iv("100:00:00"), "100:00:00");
  assert_string_equal(iv("-00:00:01"), "-00:00:01");
  assert_string_equal(iv("1 week 1 day"), "8 days");
  assert_string_equal(iv("2 centuries"), "200 years");
  assert_string_equal(iv("1500 microseconds"), "00:00:00.0015");
  assert_string_equal(iv("1 yr 2 hrs 3 mins 4 secs"), "1 year 02:03:04");
  assert_string_equal(iv("1day"), "1 day");
  assert_string_equal(iv("-1 year -2 mons +3 days"), "-1 years -2 mons +3 days");
  assert_string_equal(iv("1 mon -1 s"), "1 mon -00:00:01");
  assert_string_equal(iv("2562047788:00:54.775807"), "2562047788:00:54.775807");
}

static void test_sql_and_iso_forms(void **state)
{
  (void)state;
  assert_string_equal(iv("1-2"), "1 year 2 mons");
  assert_string_equal(iv("-1-2"), "-1 years -2 mons");
  assert_string_equal(iv("1 2:03:04"), "1 day 02:03:04");
  assert_string_equal(iv("@ 1 hour ago"), "-01:00:00");
  assert_string_equal(iv("@ 1 day 2 hours ago"), "-1 days -02:00:00");
  assert_string_equal(iv("-1 day ago"), "1 day");
  assert_string_equal(iv("P1Y2M3DT4H5M6S"), "1 year 2 mons 3 days 04:05:06");
  assert_string_equal(iv("P1.5Y"), "1 year 6 mons");
  assert_string_equal(iv("PT1.5S"), "00:00:01.5");
  assert_string_equal(iv("P2W"), "14 days");
  /* ISO 8601's alternative forms, extended and basic */
  assert_string_equal(iv("P0001-02-03T04:05:06"), "1 year 2 mons 3 days 04:05:06");
  assert_string_equal(iv("P00010203T040506"), "1 year 2 mons 3 days 04:05:06");
  assert_string_equal(iv("P1-2"), "1 year 2 mons");
  assert_string_equal(iv("PT1:30"), "01:30:00");
  assert_string_equal(iv("P1.5-2"), "1 year 8 mons");
  assert_string_equal(iv("P1DT"), "1 day");
  assert_string_equal(iv(" P1D"), "ERR 22007");
  assert_string_equal(iv("P+1D"), "ERR 22007");
  assert_string_equal(iv("PT1D"), "ERR 22007");
}

static void test_input_errors(void **state)
{
  (void)state;
  assert_string_equal(iv(""), "ERR 22007");
  assert_string_equal(iv("soon"), "ERR 22007");
  assert_string_equal(iv("1 day 1 day"), "ERR 22007");
  assert_string_equal(iv("1 hour 01:00"), "ERR 22007");
  assert_string_equal(iv("P1X"), "ERR 22007");
  assert_string_equal(iv("2147483648 days"), "ERR 22015");
  assert_string_equal(iv("99999999999 hours"), "ERR 22015");
  assert_string_equal(iv("1:60"), "ERR 22015");
  assert_string_equal(iv("1-12"), "ERR 22015");
  assert_string_equal(iv("178956971 years"), "ERR 22008");
  assert_string_equal(iv("2147483647 days"), "2147483647 days");
}

static void test_typmod_fields_and_precision(void **state)
{
  (void)state;
  assert_string_equal(rt(iv_type(TY_IV_F_DAY, -1), "90"), "90 days");
  assert_string_equal(rt(iv_type(TY_IV_F_MINUTE, -1), "90"), "01:30:00");
  assert_string_equal(rt(iv_type(TY_IV_F_MINUTE | TY_IV_F_SECOND, -1), "1:30"), "00:01:30");
  assert_string_equal(rt(iv_type(TY_IV_F_YEAR, -1), "1 year 3 months"), "1 year");
  assert_string_equal(rt(iv_type(TY_IV_F_YEAR | TY_IV_F_MONTH, -1), "1 year 3 mons 4 days"),
                      "1 year 3 mons");
  assert_string_equal(rt(iv_type(TY_IV_F_DAY | TY_IV_F_HOUR, -1), "1 day 13:14:15"),
                      "1 day 13:00:00");
  assert_string_equal(rt(iv_type(TY_IV_F_SECOND, 2), "1.23456 seconds"), "00:00:01.23");
  assert_string_equal(rt(iv_type(0, 2), "1.555 s"), "00:00:01.56");
  assert_string_equal(rt(iv_type(0, 0), "-1.5 s"), "-00:00:02");
  char buf[64];
  ty_t t = iv_type(TY_IV_F_DAY | TY_IV_F_HOUR | TY_IV_F_MINUTE | TY_IV_F_SECOND, 3);
  snprintf(buf, sizeof buf, "%s", ty_name(ar, t));
  assert_string_equal(buf, "interval day to second(3)");
  assert_int_equal(ty_pg_typmod(t), (0x1c08 << 16) | 3);
  assert_int_equal(ty_pg_typmod(ty_plain(TY_INTERVAL)), -1);
  ty_t back;
  assert_true(ty_from_pg_oid(1186, ty_pg_typmod(t), &back));
  assert_int_equal(back.t_scale, t.t_scale);
  assert_int_equal(back.t_prec, 3);
  assert_int_equal(ty_pg_oid(t), 1186);
  assert_int_equal(ty_pg_typlen(t), 16);
}

static void test_binary_form(void **state)
{
  (void)state;
  datum_t d = {.d_iv = parse("1 mon 2 days 00:00:03")}, back;
  uint8_t b[16];
  err_t e;
  assert_int_equal(ty_format_binary(ty_plain(TY_INTERVAL), &d, b, sizeof b), 16);
  /* interval_send: int64 µs, int32 days, int32 months, big-endian */
  static const uint8_t want[16] = {0, 0, 0, 0, 0, 0x2d, 0xc6, 0xc0, 0, 0, 0, 2, 0, 0, 0, 1};
  assert_memory_equal(b, want, 16);
  assert_int_equal(ty_parse_binary(ty_plain(TY_INTERVAL), b, 16, ar, &back, &e), CZ_OK);
  assert_memory_equal(&back.d_iv, &d.d_iv, sizeof d.d_iv);
  assert_int_equal(ty_parse_binary(ty_plain(TY_INTERVAL), b, 15, ar, &back, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22P03");
}

static void test_order_and_hash_use_the_justified_length(void **state)
{
  (void)state;
  datum_t a = {.d_iv = parse("1 mon")}, b = {.d_iv = parse("30 days")}, c = {.d_iv = parse("720:00:00")};
  datum_t d = {.d_iv = parse("29 days 23:59:59.999999")};
  assert_int_equal(datum_cmp(TP_IV, &a, &b), 0);
  assert_int_equal(datum_cmp(TP_IV, &b, &c), 0);
  assert_int_equal(datum_hash(TP_IV, &a), datum_hash(TP_IV, &b));
  assert_int_equal(datum_hash(TP_IV, &a), datum_hash(TP_IV, &c));
  assert_true(datum_cmp(TP_IV, &d, &a) < 0);
  assert_true(datum_cmp(TP_IV, &a, &d) > 0);
  /* the parts stay as written */
  assert_string_equal(show(&a.d_iv), "1 mon");
  assert_string_equal(show(&b.d_iv), "30 days");
}

/* Every value's text reads back as the same three parts. */
static void test_text_round_trip_random(void **state)
{
  (void)state;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    ty_iv_t v = {.iv_us = (int64_t)x >> (int)(x % 40), .iv_days = (int32_t)(x >> 20) >> (int)(x % 31),
                 .iv_months = (int32_t)(x >> 11) >> (int)((x >> 5) % 31)};
    if (v.iv_us == INT64_MIN)
      v.iv_us = 0;
    char txt[TY_IV_TEXT_MAX];
    int n = ty_iv_format(&v, txt);
    ty_iv_t back;
    err_t e;
    if (ty_iv_parse(ty_plain(TY_INTERVAL), txt, (size_t)n, &back, &e) != CZ_OK)
      fail_msg("%s does not read back: %s", txt, e.er_msg);
    if (memcmp(&back, &v, sizeof v) != 0)
      fail_msg("%s reads back as %s", txt, show(&back));
  }
}

static void test_arithmetic(void **state)
{
  (void)state;
  err_t e;
  ty_iv_t a = parse("1 day"), b = parse("2 hours"), r;
  assert_int_equal(ty_iv_add(&a, &b, &r, &e), CZ_OK);
  assert_string_equal(show(&r), "1 day 02:00:00");
  assert_int_equal(ty_iv_sub(&a, &b, &r, &e), CZ_OK);
  assert_string_equal(show(&r), "1 day -02:00:00");
  ty_iv_t y = parse("1 year");
  assert_int_equal(ty_iv_div(&y, 7, &r, &e), CZ_OK);
  assert_string_equal(show(&r), "1 mon 21 days 10:17:08.5344");
  ty_iv_t m = parse("1 mon 1 day");
  assert_int_equal(ty_iv_mul(&m, 0.3, &r, &e), CZ_OK);
  assert_string_equal(show(&r), "9 days 07:12:00");
  assert_int_equal(ty_iv_div(&a, 0, &r, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22012");
  ty_iv_t lo = parse("-2147483648 days"), one = parse("1 day");
  assert_int_equal(ty_iv_sub(&lo, &one, &r, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22008");
  assert_int_equal(ty_iv_neg(&lo, &r, &e), CZ_ERR);
}

static int64_t ts(const char *s)
{
  datum_t d;
  err_t e;
  assert_int_equal(ty_parse_text(ty_plain(TY_TIMESTAMP), s, strlen(s), ar, &d, &e), CZ_OK);
  return d.d_i64;
}

static const char *show_ts(int64_t v)
{
  static char out[64];
  datum_t d = {.d_i64 = v};
  int n = ty_format_text(ty_plain(TY_TIMESTAMP), &d, out, sizeof out - 1);
  out[n] = '\0';
  return out;
}

static void test_timestamps(void **state)
{
  (void)state;
  err_t e;
  int64_t r;
  ty_iv_t mon = parse("1 mon"), d;
  assert_int_equal(ty_ts_add_iv(ts("2020-01-31 10:00"), &mon, 1, &r, &e), CZ_OK);
  assert_string_equal(show_ts(r), "2020-02-29 10:00:00");
  assert_int_equal(ty_ts_add_iv(ts("2020-03-31"), &mon, -1, &r, &e), CZ_OK);
  assert_string_equal(show_ts(r), "2020-02-29 00:00:00");
  assert_int_equal(ty_ts_add_iv(ts("294276-12-01"), &mon, 1, &r, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22008");
  assert_int_equal(ty_ts_add_iv(INT64_MAX, &mon, 1, &r, &e), CZ_OK);
  assert_true(r == INT64_MAX);
  assert_int_equal(ty_ts_diff(ts("2020-03-01"), ts("2020-01-01 12:00"), &d, &e), CZ_OK);
  assert_string_equal(show(&d), "59 days 12:00:00");
  assert_int_equal(ty_ts_diff(INT64_MAX, ts("2020-01-01"), &d, &e), CZ_ERR);
  assert_int_equal(ty_ts_age(ts("2001-04-10"), ts("1957-06-13"), &d, &e), CZ_OK);
  assert_string_equal(show(&d), "43 years 9 mons 27 days");
  assert_int_equal(ty_ts_age(ts("2020-01-01"), ts("2020-03-31 10:00"), &d, &e), CZ_OK);
  assert_string_equal(show(&d), "-2 mons -30 days -10:00:00");
}

static void test_justify_make_extract(void **state)
{
  (void)state;
  err_t e;
  ty_iv_t r;
  ty_iv_t a = parse("65 days"), b = parse("50 hours"), c = parse("1 mon -1 hour"), d = parse("-1 mon 50 hours");
  assert_int_equal(ty_iv_justify_days(&a, &r, &e), CZ_OK);
  assert_string_equal(show(&r), "2 mons 5 days");
  assert_int_equal(ty_iv_justify_hours(&b, &r, &e), CZ_OK);
  assert_string_equal(show(&r), "2 days 02:00:00");
  assert_int_equal(ty_iv_justify(&c, &r, &e), CZ_OK);
  assert_string_equal(show(&r), "29 days 23:00:00");
  assert_int_equal(ty_iv_justify(&d, &r, &e), CZ_OK);
  assert_string_equal(show(&r), "-27 days -22:00:00");
  assert_int_equal(ty_iv_make(1, 2, 3, 4, 5, 6, 7.5, &r, &e), CZ_OK);
  assert_string_equal(show(&r), "1 year 2 mons 25 days 05:06:07.5");
  num_t n;
  ty_iv_t x = parse("1 year 1 mon 1 day 1 s");
  assert_int_equal(ty_iv_extract(&x, "epoch", &n, &e), CZ_OK);
  assert_true(n.n_val == (__int128)34236001000000 && n.n_scale == 6);
  ty_iv_t s = parse("1 min 1.5 sec");
  assert_int_equal(ty_iv_extract(&s, "second", &n, &e), CZ_OK);
  assert_true(n.n_val == 1500000 && n.n_scale == 6);
  assert_int_equal(ty_iv_extract(&s, "week", &n, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "0A000");
  assert_int_equal(ty_iv_extract(&s, "foo", &n, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22023");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_postgres_forms),
      cmocka_unit_test(test_sql_and_iso_forms),
      cmocka_unit_test(test_input_errors),
      cmocka_unit_test(test_typmod_fields_and_precision),
      cmocka_unit_test(test_binary_form),
      cmocka_unit_test(test_order_and_hash_use_the_justified_length),
      cmocka_unit_test(test_text_round_trip_random),
      cmocka_unit_test(test_arithmetic),
      cmocka_unit_test(test_timestamps),
      cmocka_unit_test(test_justify_make_extract),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
