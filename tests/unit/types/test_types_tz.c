/* test_types_tz — the TZif reader (a file built here byte by byte: v2
 * 64-bit data, the footer rule past the table, malformed and leap-second
 * files refused), the system database's zones at known instants (DST
 * gaps and overlaps read as PostgreSQL reads them, the rule past 2038),
 * POSIX strings and fixed offsets, the TIMETZ packing's order, and the
 * text forms in the session's zone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "types/types.h"

#define UNIX_PG INT64_C(946684800)

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
  ty_tz_use(NULL);
  arena_destroy(ar);
  return 0;
}

/* ---- a TZif file built by hand ------------------------------------------------ */

typedef struct buf_s {
  uint8_t b[1024];
  size_t n;
} buf_t;

static void put32(buf_t *b, uint32_t v)
{
  for (int k = 3; k >= 0; k--)
    b->b[b->n++] = (uint8_t)(v >> (8 * k));
}

static void put64(buf_t *b, int64_t v)
{
  put32(b, (uint32_t)((uint64_t)v >> 32));
  put32(b, (uint32_t)v);
}

static void hdr(buf_t *b, char version, uint32_t leap, uint32_t timecnt, uint32_t typecnt,
                uint32_t charcnt)
{
  memcpy(b->b + b->n, "TZif", 4);
  b->n += 4;
  b->b[b->n++] = (uint8_t)version;
  memset(b->b + b->n, 0, 15);
  b->n += 15;
  put32(b, 0); /* isutcnt */
  put32(b, 0); /* isstdcnt */
  put32(b, leap);
  put32(b, timecnt);
  put32(b, typecnt);
  put32(b, charcnt);
}

/* A zone "Test/Zone": LMT +00:30 until 1900, then XST +01 / XDT +02 with
 * two transitions in 2000 and the rule "XST-1XDT,M3.5.0,M10.5.0/3" after. */
static size_t build_tzif(buf_t *b, uint32_t leap, const char *footer)
{
  b->n = 0;
  hdr(b, '2', 0, 0, 1, 4); /* a minimal v1 block: one type, "LMT\0" */
  put32(b, 1800);
  b->b[b->n++] = 0;
  b->b[b->n++] = 0;
  memcpy(b->b + b->n, "LMT", 4);
  b->n += 4;
  hdr(b, '2', leap, 3, 3, 12);
  int64_t t1900 = INT64_C(-2208988800);
  int64_t s2000 = INT64_C(954032400);  /* 2000-03-26 01:00 UTC */
  int64_t e2000 = INT64_C(972781200);  /* 2000-10-29 01:00 UTC */
  put64(b, t1900);
  put64(b, s2000);
  put64(b, e2000);
  b->b[b->n++] = 1;
  b->b[b->n++] = 2;
  b->b[b->n++] = 1;
  int32_t offs[3] = {1800, 3600, 7200};
  uint8_t dst[3] = {0, 0, 1}, idx[3] = {0, 4, 8};
  for (int i = 0; i < 3; i++) {
    put32(b, (uint32_t)offs[i]);
    b->b[b->n++] = dst[i];
    b->b[b->n++] = idx[i];
  }
  memcpy(b->b + b->n, "LMT\0XST\0XDT\0", 12);
  b->n += 12;
  for (uint32_t i = 0; i < leap; i++) {
    put64(b, 78796800);
    put32(b, 1);
  }
  b->n += (size_t)sprintf((char *)b->b + b->n, "\n%s\n", footer);
  return b->n;
}

static void test_tzif_read(void **state)
{
  (void)state;
  buf_t b;
  ty_tz_t *z = NULL;
  err_t e;
  size_t n = build_tzif(&b, 0, "XST-1XDT,M3.5.0,M10.5.0/3");
  assert_int_equal(ty_tz_parse_tzif(b.b, n, "Test/Zone", &z, &e), CZ_OK);
  const char *ab;
  bool dst;
  /* before the first transition: type 0 */
  assert_int_equal(ty_tz_offset_at(z, INT64_C(-3000000000), &ab, &dst), 1800);
  assert_string_equal(ab, "LMT");
  assert_int_equal(ty_tz_offset_at(z, 0, &ab, &dst), 3600);
  assert_string_equal(ab, "XST");
  assert_false(dst);
  /* inside the table's DST period, and right at its ends */
  assert_int_equal(ty_tz_offset_at(z, INT64_C(954032400), &ab, &dst), 7200);
  assert_true(dst);
  assert_int_equal(ty_tz_offset_at(z, INT64_C(954032399), NULL, NULL), 3600);
  assert_int_equal(ty_tz_offset_at(z, INT64_C(972781199), NULL, NULL), 7200);
  assert_int_equal(ty_tz_offset_at(z, INT64_C(972781200), NULL, NULL), 3600);
  /* past the table: the footer rule (2050-07-01 and 2050-01-01 UTC) */
  assert_int_equal(ty_tz_offset_at(z, INT64_C(2540246400), &ab, &dst), 7200);
  assert_string_equal(ab, "XDT");
  assert_int_equal(ty_tz_offset_at(z, INT64_C(2524608000), &ab, &dst), 3600);
  /* 2050's change: last Sunday of March (the 27th) at 01:00 UTC */
  int64_t s2050 = INT64_C(2531955600);
  assert_int_equal(ty_tz_offset_at(z, s2050 - 1, NULL, NULL), 3600);
  assert_int_equal(ty_tz_offset_at(z, s2050, NULL, NULL), 7200);
  /* a local time in the skipped hour reads with the offset before it,
   * one in the repeated hour with the offset after it */
  assert_int_equal(ty_tz_offset_local(z, s2050 + 3600 + 1800), 3600);
  int64_t e2050 = INT64_C(2550704400); /* 2050-10-30 01:00 UTC */
  assert_int_equal(ty_tz_offset_local(z, e2050 + 3600 + 1800), 3600);
  assert_int_equal(ty_tz_offset_local(z, e2050 + 2 * 3600 + 1800), 3600);
  assert_int_equal(ty_tz_offset_local(z, e2050 - 3600), 7200);
  free(z);
}

static void test_tzif_malformed(void **state)
{
  (void)state;
  buf_t b;
  ty_tz_t *z = NULL;
  err_t e;
  size_t n = build_tzif(&b, 0, "XST-1XDT,M3.5.0,M10.5.0/3");
  /* truncated anywhere inside the data: refused, never read past */
  for (size_t cut = 0; cut < n - 30; cut += 7) {
    z = NULL;
    if (ty_tz_parse_tzif(b.b, cut, "Test/Zone", &z, &e) == CZ_OK)
      fail_msg("a file cut at %zu bytes was read", cut);
    assert_string_equal(e.er_sqlstate, "22023");
  }
  uint8_t bad[64];
  memcpy(bad, b.b, sizeof bad);
  bad[0] = 'X';
  assert_int_equal(ty_tz_parse_tzif(bad, sizeof bad, "x", &z, &e), CZ_ERR);
  /* leap seconds ("right/…" zones) are refused as PostgreSQL does */
  n = build_tzif(&b, 1, "XST-1");
  assert_int_equal(ty_tz_parse_tzif(b.b, n, "right/Test", &z, &e), CZ_ERR);
  assert_non_null(strstr(e.er_msg, "leap seconds"));
  /* no footer rule: the last type holds on */
  n = build_tzif(&b, 0, "");
  assert_int_equal(ty_tz_parse_tzif(b.b, n, "Test/NoRule", &z, &e), CZ_OK);
  assert_int_equal(ty_tz_offset_at(z, INT64_C(2540246400), NULL, NULL), 3600);
  free(z);
}

/* ---- the system database ------------------------------------------------------- */

static int64_t unix_of(int y, int m, int d, int hh, int mi)
{
  return (ty_days_from_civil(y, m, d) * 86400 + UNIX_PG) + hh * 3600 + mi * 60;
}

static void test_system_zones(void **state)
{
  (void)state;
  const ty_tz_t *b = ty_tz_find("Europe/Berlin");
  assert_non_null(b);
  assert_string_equal(ty_tz_name(b), "Europe/Berlin");
  assert_ptr_equal(ty_tz_find("europe/BERLIN"), b);
  assert_string_equal(ty_tz_name(ty_tz_find("europe/BERLIN")), "Europe/Berlin");
  assert_int_equal(ty_tz_offset_at(b, unix_of(2024, 1, 15, 12, 0), NULL, NULL), 3600);
  assert_int_equal(ty_tz_offset_at(b, unix_of(2024, 7, 15, 12, 0), NULL, NULL), 7200);
  /* 2024-03-31 01:00 UTC and 2024-10-27 01:00 UTC */
  assert_int_equal(ty_tz_offset_at(b, unix_of(2024, 3, 31, 0, 59), NULL, NULL), 3600);
  assert_int_equal(ty_tz_offset_at(b, unix_of(2024, 3, 31, 1, 0), NULL, NULL), 7200);
  assert_int_equal(ty_tz_offset_at(b, unix_of(2024, 10, 27, 0, 59), NULL, NULL), 7200);
  assert_int_equal(ty_tz_offset_at(b, unix_of(2024, 10, 27, 1, 0), NULL, NULL), 3600);
  assert_int_equal(ty_tz_offset_local(b, unix_of(2024, 3, 31, 2, 30)), 3600);
  assert_int_equal(ty_tz_offset_local(b, unix_of(2024, 10, 27, 2, 30)), 3600);
  assert_int_equal(ty_tz_offset_local(b, unix_of(2024, 10, 27, 1, 30)), 7200);
  /* past 2038 (the footer rule) and before 1893 (local mean time) */
  assert_int_equal(ty_tz_offset_at(b, unix_of(2100, 7, 1, 0, 0), NULL, NULL), 7200);
  assert_int_equal(ty_tz_offset_at(b, unix_of(2100, 3, 28, 0, 59), NULL, NULL), 3600);
  assert_int_equal(ty_tz_offset_at(b, unix_of(2100, 3, 28, 1, 0), NULL, NULL), 7200);
  assert_int_equal(ty_tz_offset_at(b, unix_of(1850, 1, 1, 0, 0), NULL, NULL), 3208);
  const ty_tz_t *sj = ty_tz_find("America/St_Johns");
  assert_non_null(sj);
  assert_int_equal(ty_tz_offset_at(sj, unix_of(2024, 1, 1, 12, 0), NULL, NULL), -12600);
  assert_int_equal(ty_tz_offset_at(sj, unix_of(2024, 7, 1, 12, 0), NULL, NULL), -9000);
  assert_int_equal(ty_tz_offset_at(sj, unix_of(2090, 7, 1, 12, 0), NULL, NULL), -9000);
  const ty_tz_t *k = ty_tz_find("Asia/Kolkata");
  assert_int_equal(ty_tz_offset_at(k, unix_of(2024, 7, 1, 12, 0), NULL, NULL), 19800);
  assert_int_equal(ty_tz_offset_at(ty_tz_find("UTC"), unix_of(2024, 7, 1, 12, 0), NULL, NULL), 0);
  assert_null(ty_tz_find("Foo/Bar"));
  assert_null(ty_tz_find("../../etc/passwd"));
  assert_null(ty_tz_find("/etc/localtime"));
  assert_null(ty_tz_find(""));
}

static void test_posix_and_fixed(void **state)
{
  (void)state;
  const ty_tz_t *z = ty_tz_find("XST5XDT,M3.2.0,M11.1.0");
  assert_non_null(z);
  assert_int_equal(ty_tz_offset_at(z, unix_of(2024, 1, 1, 12, 0), NULL, NULL), -18000);
  assert_int_equal(ty_tz_offset_at(z, unix_of(2024, 7, 1, 12, 0), NULL, NULL), -14400);
  /* a string offset counts west, as PostgreSQL reads it */
  assert_int_equal(ty_tz_offset_at(ty_tz_find("+05:30"), 0, NULL, NULL), -19800);
  assert_int_equal(ty_tz_offset_at(ty_tz_find("<+03>-3"), 0, NULL, NULL), 10800);
  const ty_tz_t *f = ty_tz_fixed(19800);
  assert_string_equal(ty_tz_name(f), "<+05:30>-05:30");
  assert_int_equal(ty_tz_offset_at(f, 0, NULL, NULL), 19800);
  assert_string_equal(ty_tz_name(ty_tz_fixed(-12600)), "<-03:30>+03:30");
  assert_string_equal(ty_tz_name(ty_tz_fixed(18000)), "<+05>-05");
  assert_ptr_equal(ty_tz_fixed(18000), ty_tz_fixed(18000));
  assert_null(ty_tz_find("XST5XDT,M13.2.0,M11.1.0"));
  assert_null(ty_tz_find("XS5"));
}

/* ---- TIMETZ and the text forms -------------------------------------------------- */

static void test_timetz_order(void **state)
{
  (void)state;
  int64_t us = INT64_C(3600000000);
  /* 12:00+05:30 equals 06:30+00 in instant, sorts by zone after it */
  int64_t a = ty_timetz_pack(12 * us, -19800), b = ty_timetz_pack(6 * us + us / 2, 0);
  assert_true(a < b); /* same instant: the larger zone (west) is greater */
  assert_true(ty_timetz_pack(12 * us, 3600) > ty_timetz_pack(11 * us, 0) ||
              ty_timetz_pack(12 * us, 3600) < ty_timetz_pack(11 * us, 0));
  assert_true(ty_timetz_pack(0, -57599) < ty_timetz_pack(24 * us, 57599));
  int32_t zones[] = {-57599, -19800, 0, 12600, 57599};
  int64_t times[] = {0, 1, 43200000000, 86400000000};
  for (size_t i = 0; i < 5; i++)
    for (size_t j = 0; j < 4; j++) {
      int64_t t;
      int32_t z;
      ty_timetz_unpack(ty_timetz_pack(times[j], zones[i]), &t, &z);
      assert_int_equal(t, times[j]);
      assert_int_equal(z, zones[i]);
    }
}

static const char *fmt(ty_id_t id, const char *in)
{
  static char out[128];
  datum_t d;
  err_t e;
  if (ty_parse_text(ty_plain(id), in, strlen(in), ar, &d, &e) != CZ_OK) {
    snprintf(out, sizeof(out), "ERR %s", e.er_sqlstate);
    return out;
  }
  int n = ty_format_text(ty_plain(id), &d, out, sizeof(out) - 1);
  assert_true(n >= 0);
  out[n] = '\0';
  return out;
}

static void test_text_forms(void **state)
{
  (void)state;
  ty_tz_use(ty_tz_find("Europe/Berlin"));
  assert_string_equal(fmt(TY_TIMESTAMPTZ, "2024-03-31 02:30:00"), "2024-03-31 03:30:00+02");
  assert_string_equal(fmt(TY_TIMESTAMPTZ, "2024-10-27 02:30:00"), "2024-10-27 02:30:00+01");
  assert_string_equal(fmt(TY_TIMESTAMPTZ, "2024-07-01T12:00:00Z"), "2024-07-01 14:00:00+02");
  assert_string_equal(fmt(TY_TIMESTAMPTZ, "1850-01-01 00:00+00"), "1850-01-01 00:53:28+00:53:28");
  assert_string_equal(fmt(TY_TIMESTAMPTZ, "0001-01-01 00:00+00 BC"), "0001-01-01 00:53:28+00:53:28 BC");
  assert_string_equal(fmt(TY_TIMESTAMPTZ, "2024-01-01 12:00 Foo/Bar"), "ERR 22023");
  assert_string_equal(fmt(TY_TIMESTAMPTZ, "2024-01-01 12:00+16"), "ERR 22009");
  ty_tz_use(ty_tz_find("America/St_Johns"));
  assert_string_equal(fmt(TY_TIMESTAMPTZ, "2024-01-01 12:00+00"), "2024-01-01 08:30:00-03:30");
  ty_tz_use(NULL);
  assert_string_equal(fmt(TY_TIMESTAMPTZ, "2024-01-01 12:00:00.5 Asia/Kolkata"), "2024-01-01 06:30:00.5+00");
  assert_string_equal(fmt(TY_TIME, "24:00"), "24:00:00");
  assert_string_equal(fmt(TY_TIME, "12:34:56.100"), "12:34:56.1");
  assert_string_equal(fmt(TY_TIME, "24:00:01"), "ERR 22008");
  assert_string_equal(fmt(TY_TIMETZ, "12:00-03:30"), "12:00:00-03:30");
  assert_string_equal(fmt(TY_TIMETZ, "12:00:00.25+05:30:15"), "12:00:00.25+05:30:15");
  /* the binary form of timetz: µs then the zone west, as PostgreSQL */
  datum_t d;
  err_t e;
  assert_int_equal(ty_parse_text(ty_plain(TY_TIMETZ), "12:00+05:30", 11, ar, &d, &e), CZ_OK);
  uint8_t bin[12];
  assert_int_equal(ty_format_binary(ty_plain(TY_TIMETZ), &d, bin, sizeof bin), 12);
  static const uint8_t want[12] = {0, 0, 0, 0x0a, 0x0e, 0xeb, 0xb0, 0x00, 0xff, 0xff, 0xb2, 0xa8};
  assert_memory_equal(bin, want, 12);
  datum_t back;
  assert_int_equal(ty_parse_binary(ty_plain(TY_TIMETZ), bin, 12, ar, &back, &e), CZ_OK);
  assert_true(back.d_i64 == d.d_i64);
  bin[8] = 0x7f; /* a zone past 15:59:59 */
  assert_int_equal(ty_parse_binary(ty_plain(TY_TIMETZ), bin, 12, ar, &back, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22P03");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_tzif_read, setup, teardown),
    cmocka_unit_test_setup_teardown(test_tzif_malformed, setup, teardown),
    cmocka_unit_test_setup_teardown(test_system_zones, setup, teardown),
    cmocka_unit_test_setup_teardown(test_posix_and_fixed, setup, teardown),
    cmocka_unit_test_setup_teardown(test_timetz_order, setup, teardown),
    cmocka_unit_test_setup_teardown(test_text_forms, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
