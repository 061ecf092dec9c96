/* test_types_vec — type identity (physical kinds, names, PostgreSQL OIDs
 * and typmods), vectors and batches, datum ordering and hashing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "cz_test.h"
#include "types/types.h"

static void test_phys_kinds(void **state)
{
  (void)state;
  assert_int_equal(ty_phys(TY_INT2), TP_I64);
  assert_int_equal(ty_phys(TY_DATE), TP_I64);
  assert_int_equal(ty_phys(TY_TIMESTAMP), TP_I64);
  assert_int_equal(ty_phys(TY_FLOAT4), TP_F64);
  assert_int_equal(ty_phys(TY_NUMERIC), TP_NUM);
  assert_int_equal(ty_phys(TY_CHAR), TP_STR);
  assert_int_equal(ty_phys(TY_BYTEA), TP_STR);
  assert_int_equal(ty_phys(TY_BOOL), TP_BOOL);
}

static void test_names_like_format_type(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "t");
  ty_t v20 = {TY_VARCHAR, 20, -1, 0, TY_UNKNOWN}, n102 = {TY_NUMERIC, -1, 10, 2, TY_UNKNOWN}, c1 = {TY_CHAR, 1, -1, 0, TY_UNKNOWN};
  assert_string_equal(ty_name(a, ty_plain(TY_INT4)), "integer");
  assert_string_equal(ty_name(a, ty_plain(TY_FLOAT8)), "double precision");
  assert_string_equal(ty_name(a, v20), "character varying(20)");
  assert_string_equal(ty_name(a, ty_plain(TY_VARCHAR)), "character varying");
  assert_string_equal(ty_name(a, n102), "numeric(10,2)");
  assert_string_equal(ty_name(a, c1), "character(1)");
  assert_string_equal(ty_name(a, ty_plain(TY_TIMESTAMP)), "timestamp without time zone");
  assert_string_equal(ty_name(a, ty_plain(TY_BOOL)), "boolean");
  arena_destroy(a);
}

static void test_pg_oids_and_typmods(void **state)
{
  (void)state;
  ty_t v20 = {TY_VARCHAR, 20, -1, 0, TY_UNKNOWN}, n102 = {TY_NUMERIC, -1, 10, 2, TY_UNKNOWN};
  assert_int_equal(ty_pg_oid(ty_plain(TY_INT4)), 23);
  assert_int_equal(ty_pg_oid(ty_plain(TY_INT8)), 20);
  assert_int_equal(ty_pg_oid(ty_plain(TY_NUMERIC)), 1700);
  assert_int_equal(ty_pg_oid(ty_plain(TY_TIMESTAMP)), 1114);
  assert_int_equal(ty_pg_oid(ty_plain(TY_UNKNOWN)), 705);
  assert_int_equal(ty_pg_typmod(v20), 24);
  assert_int_equal(ty_pg_typmod(n102), (10 << 16 | 2) + 4);
  assert_int_equal(ty_pg_typmod(ty_plain(TY_TEXT)), -1);
  assert_int_equal(ty_pg_typlen(ty_plain(TY_INT8)), 8);
  assert_int_equal(ty_pg_typlen(ty_plain(TY_TEXT)), -1);
  ty_t t;
  assert_true(ty_from_pg_oid(1043, 24, &t));
  assert_int_equal(t.t_id, TY_VARCHAR);
  assert_int_equal(t.t_len, 20);
  assert_true(ty_from_pg_oid(1700, (10 << 16 | 2) + 4, &t));
  assert_int_equal(t.t_prec, 10);
  assert_int_equal(t.t_scale, 2);
  assert_true(ty_from_pg_oid(0, -1, &t));
  assert_int_equal(t.t_id, TY_UNKNOWN);
  assert_false(ty_from_pg_oid(600, -1, &t)); /* point */
}

static void test_batch_get_set(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "t");
  err_t e;
  ty_t types[3] = {ty_plain(TY_INT4), ty_plain(TY_TEXT), ty_plain(TY_NUMERIC)};
  batch_t *b = batch_create(a, 3, types, 16, &e);
  assert_non_null(b);
  assert_int_equal(b->b_ncols, 3);
  assert_int_equal(b->b_cols[1].v_cap, 16);
  for (int i = 0; i < 16; i++)
    assert_int_equal(b->b_cols[0].v_null[i], 0);
  datum_t d = {.d_i64 = 42}, n = {.d_null = true}, s = {.d_str = {"hey", 3}}, out;
  vec_set(&b->b_cols[0], 3, &d);
  vec_set(&b->b_cols[0], 4, &n);
  vec_set(&b->b_cols[1], 3, &s);
  vec_get(&b->b_cols[0], 3, &out);
  assert_false(out.d_null);
  assert_int_equal(out.d_i64, 42);
  vec_get(&b->b_cols[0], 4, &out);
  assert_true(out.d_null);
  vec_get(&b->b_cols[1], 3, &out);
  assert_int_equal(out.d_str.s_len, 3);
  assert_ptr_equal(out.d_str.s_ptr, s.d_str.s_ptr);
  arena_destroy(a);
}

static void test_datum_order(void **state)
{
  (void)state;
  datum_t a = {.d_str = {"ab", 2}}, b = {.d_str = {"abc", 3}}, c = {.d_str = {"b", 1}};
  assert_true(datum_cmp(TP_STR, &a, &b) < 0);
  assert_true(datum_cmp(TP_STR, &b, &c) < 0);
  assert_int_equal(datum_cmp(TP_STR, &a, &a), 0);
  datum_t nan = {.d_f64 = NAN}, big = {.d_f64 = INFINITY}, z = {.d_f64 = 0.0}, nz = {.d_f64 = -0.0};
  assert_true(datum_cmp(TP_F64, &nan, &big) > 0);
  assert_int_equal(datum_cmp(TP_F64, &nan, &nan), 0);
  assert_int_equal(datum_cmp(TP_F64, &z, &nz), 0);
  assert_true(datum_hash(TP_F64, &z) == datum_hash(TP_F64, &nz));
  datum_t i1 = {.d_i64 = -5}, i2 = {.d_i64 = 3};
  assert_true(datum_cmp(TP_I64, &i1, &i2) < 0);
  assert_true(datum_hash(TP_I64, &i1) != datum_hash(TP_I64, &i2));
  datum_t s1 = {.d_str = {"x", 1}}, s2 = {.d_str = {"xy", 2}};
  assert_true(datum_hash(TP_STR, &s1) == datum_hash(TP_STR, &(datum_t){.d_str = {"xy", 1}}));
  assert_true(datum_hash(TP_STR, &s1) != datum_hash(TP_STR, &s2));
}

static void test_calendar_round_trip(void **state)
{
  (void)state;
  /* Every day from 4713 BC to 3000 AD converts back to itself. */
  int64_t first = ty_days_from_civil(-4712, 1, 1), last = ty_days_from_civil(3000, 12, 31);
  int64_t py = -4713;
  int pm = 12, pd = 31;
  for (int64_t d = first; d <= last; d++) {
    int64_t y;
    int m, dd;
    ty_civil_from_days(d, &y, &m, &dd);
    assert_int_equal(ty_days_from_civil(y, m, dd), d);
    assert_true(ty_valid_ymd(y, m, dd));
    /* consecutive */
    assert_true((y == py && m == pm && dd == pd + 1) || (y == py && m == pm + 1 && dd == 1) ||
                (y == py + 1 && m == 1 && dd == 1 && pm == 12));
    py = y;
    pm = m;
    pd = dd;
  }
  assert_false(ty_valid_ymd(1900, 2, 29));
  assert_true(ty_valid_ymd(2000, 2, 29));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_phys_kinds),
      cmocka_unit_test(test_names_like_format_type),
      cmocka_unit_test(test_pg_oids_and_typmods),
      cmocka_unit_test(test_batch_get_set),
      cmocka_unit_test(test_datum_order),
      cmocka_unit_test(test_calendar_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
