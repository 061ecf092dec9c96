/* The typed loops of hash aggregation (op_hashagg_vec.c): key hashes the
 * same as row_hash's, and count/sum/avg/min/max over vectors giving what
 * the row-by-row step gives — NULLs skipped, 22003 on bigint and NUMERIC
 * overflow, NUMERIC sums exact across scales, rows of no group skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "exec/op_hashagg_vec.h"

static vec_t vec_of(arena_t *a, ty_id_t t, int n)
{
  vec_t v;
  assert_int_equal(vec_init(&v, a, ty_plain(t), n, NULL), CZ_OK);
  return v;
}

static num_t num(__int128 v, int scale)
{
  num_t n = {.n_val = v, .n_scale = (int16_t)scale};
  return n;
}

static void test_hash_matches_row_hash(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "t");
  ty_t types[3] = {ty_plain(TY_INT8), ty_plain(TY_TEXT), ty_plain(TY_NUMERIC)};
  batch_t *b = batch_create(a, 3, types, 6, NULL);
  const char *s[6] = {"a", "", "bb", "a", "ccc", "a"};
  for (int i = 0; i < 6; i++) {
    b->b_cols[0].v_i64[i] = i % 3 - 1;
    b->b_cols[1].v_str[i].s_ptr = s[i];
    b->b_cols[1].v_str[i].s_len = (uint32_t)strlen(s[i]);
    b->b_cols[2].v_num[i] = num(150 * i, i % 2 ? 2 : 1); /* 1.50 and 15.0 kinds */
  }
  b->b_cols[0].v_null[2] = 1;
  b->b_cols[1].v_null[4] = 1;
  b->b_cols[2].v_null[5] = 1;
  b->b_n = 6;
  uint64_t h[6];
  aggv_hash(b, 3, NULL, 6, h);
  for (int i = 0; i < 6; i++)
    assert_true(h[i] == row_hash(b, i, 3, NULL));
  int sel[3] = {1, 4, 5};
  aggv_hash(b, 2, sel, 3, h);
  for (int j = 0; j < 3; j++)
    assert_true(h[j] == row_hash(b, sel[j], 2, NULL));
  /* NUMERIC 1.5 and 1.50 are one key: equal hashes, equal keys */
  vec_t n = vec_of(a, TY_NUMERIC, 2);
  n.v_num[0] = num(15, 1);
  n.v_num[1] = num(150, 2);
  batch_t nb = {.b_n = 2, .b_ncols = 1, .b_cols = &n};
  aggv_hash(&nb, 1, NULL, 2, h);
  assert_true(h[0] == h[1]);
  assert_true(aggv_eq(TP_NUM, &n, 0, &n, 1));
  /* NULL equals NULL only */
  assert_true(aggv_eq(TP_I64, &b->b_cols[0], 2, &b->b_cols[0], 2));
  assert_false(aggv_eq(TP_I64, &b->b_cols[0], 2, &b->b_cols[0], 1));
  assert_true(aggv_eq(TP_STR, &b->b_cols[1], 0, &b->b_cols[1], 3));
  assert_false(aggv_eq(TP_STR, &b->b_cols[1], 0, &b->b_cols[1], 2));
  arena_destroy(a);
}

static void test_count_sum_nulls_and_groups(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "t");
  vec_t v = vec_of(a, TY_INT8, 6);
  int64_t vals[6] = {5, 7, 0, -3, 100, 1};
  for (int i = 0; i < 6; i++)
    v.v_i64[i] = vals[i];
  v.v_null[2] = 1;
  int64_t grp[6] = {0, 1, 0, 0, -1, 1}; /* row 4 went to a partition */
  agg_state_t st[2];
  err_t e;
  memset(&e, 0, sizeof e);
  agg_spec_t sum = {.ag_kind = XAGG_SUM, .ag_type = ty_plain(TY_INT8)};
  memset(st, 0, sizeof st);
  assert_int_equal(aggv_accum(&sum, st, grp, &v, NULL, 6, a, &e), 1);
  assert_int_equal(st[0].as_i64, 2);
  assert_int_equal(st[0].as_count, 2); /* the NULL not counted */
  assert_int_equal(st[1].as_i64, 8);
  agg_spec_t cnt = {.ag_kind = XAGG_COUNT, .ag_type = ty_plain(TY_INT8)};
  agg_spec_t star = {.ag_kind = XAGG_COUNT_STAR, .ag_type = ty_plain(TY_INT8)};
  memset(st, 0, sizeof st);
  assert_int_equal(aggv_accum(&cnt, st, grp, &v, NULL, 6, a, &e), 1);
  assert_int_equal(st[0].as_count, 2);
  memset(st, 0, sizeof st);
  assert_int_equal(aggv_accum(&star, st, grp, NULL, NULL, 6, a, &e), 1);
  assert_int_equal(st[0].as_count, 3);
  assert_int_equal(st[1].as_count, 2);
  /* with a selection: only rows 1 and 3 */
  int sel[2] = {1, 3};
  int64_t g2[2] = {0, 0};
  memset(st, 0, sizeof st);
  assert_int_equal(aggv_accum(&sum, st, g2, &v, sel, 2, a, &e), 1);
  assert_int_equal(st[0].as_i64, 4);
  /* DISTINCT and string_agg are not the typed loops' */
  agg_spec_t dsum = sum;
  dsum.ag_distinct = true;
  assert_int_equal(aggv_accum(&dsum, st, grp, &v, NULL, 6, a, &e), 0);
  arena_destroy(a);
}

static void test_bigint_overflow(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "t");
  vec_t v = vec_of(a, TY_INT8, 2);
  v.v_i64[0] = INT64_MAX;
  v.v_i64[1] = 1;
  int64_t grp[2] = {0, 0};
  agg_state_t st;
  memset(&st, 0, sizeof st);
  err_t e;
  memset(&e, 0, sizeof e);
  agg_spec_t sum = {.ag_kind = XAGG_SUM, .ag_type = ty_plain(TY_INT8)};
  assert_int_equal(aggv_accum(&sum, &st, grp, &v, NULL, 2, a, &e), -1);
  assert_string_equal(e.er_sqlstate, "22003");
  /* the same bigints into a NUMERIC sum (sum(int8)) are exact */
  agg_spec_t nsum = {.ag_kind = XAGG_SUM, .ag_type = ty_plain(TY_NUMERIC)};
  v.v_i64[1] = INT64_MAX;
  memset(&st, 0, sizeof st);
  assert_int_equal(aggv_accum(&nsum, &st, grp, &v, NULL, 2, a, &e), 1);
  assert_true(st.as_num.n_val == (__int128)INT64_MAX * 2);
  assert_int_equal(st.as_num.n_scale, 0);
  arena_destroy(a);
}

static void test_numeric_scales_and_overflow(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "t");
  vec_t v = vec_of(a, TY_NUMERIC, 4);
  v.v_num[0] = num(15, 1);    /* 1.5 */
  v.v_num[1] = num(225, 2);   /* 2.25 */
  v.v_num[2] = num(-1, 0);    /* -1 */
  v.v_num[3] = num(999, 3);   /* 0.999 */
  int64_t grp[4] = {0, 0, 0, 0};
  agg_state_t st;
  memset(&st, 0, sizeof st);
  err_t e;
  memset(&e, 0, sizeof e);
  agg_spec_t sum = {.ag_kind = XAGG_SUM, .ag_type = ty_plain(TY_NUMERIC)};
  assert_int_equal(aggv_accum(&sum, &st, grp, &v, NULL, 4, a, &e), 1);
  /* 1.5 + 2.25 - 1 + 0.999 = 3.749, at the largest scale seen */
  assert_true(st.as_num.n_val == 3749);
  assert_int_equal(st.as_num.n_scale, 3);
  assert_int_equal(st.as_count, 4);
  /* one value: its own scale kept */
  memset(&st, 0, sizeof st);
  assert_int_equal(aggv_accum(&sum, &st, grp, &v, NULL, 1, a, &e), 1);
  assert_true(st.as_num.n_val == 15 && st.as_num.n_scale == 1);
  /* past 38 digits: 22003, as num_add */
  __int128 big = 1;
  for (int i = 0; i < 37; i++)
    big *= 10;
  v.v_num[0] = num(big * 9, 0);
  v.v_num[1] = num(big * 9, 0);
  memset(&st, 0, sizeof st);
  assert_int_equal(aggv_accum(&sum, &st, grp, &v, NULL, 2, a, &e), -1);
  assert_string_equal(e.er_sqlstate, "22003");
  /* wide values of other scales go through num_add, exactly */
  v.v_num[0] = num(big, 2);
  v.v_num[1] = num(5, 3);
  memset(&st, 0, sizeof st);
  memset(&e, 0, sizeof e);
  num_t want;
  assert_int_equal(num_add(&v.v_num[0], &v.v_num[1], &want, &e), CZ_OK);
  assert_int_equal(aggv_accum(&sum, &st, grp, &v, NULL, 2, a, &e), 1);
  assert_true(st.as_num.n_val == want.n_val && st.as_num.n_scale == want.n_scale);
  arena_destroy(a);
}

static void test_float_avg_min_max(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "t");
  vec_t v = vec_of(a, TY_FLOAT8, 5);
  double vals[5] = {2.5, -0.0, NAN, 0.0, -7};
  for (int i = 0; i < 5; i++)
    v.v_f64[i] = vals[i];
  int64_t grp[5] = {0, 0, 0, 0, 0};
  agg_state_t st;
  err_t e;
  memset(&e, 0, sizeof e);
  agg_spec_t mx = {.ag_kind = XAGG_MAX, .ag_type = ty_plain(TY_FLOAT8)};
  agg_spec_t mn = {.ag_kind = XAGG_MIN, .ag_type = ty_plain(TY_FLOAT8)};
  memset(&st, 0, sizeof st);
  assert_int_equal(aggv_accum(&mx, &st, grp, &v, NULL, 5, a, &e), 1);
  assert_true(isnan(st.as_val.d_f64)); /* NaN sorts above every number */
  memset(&st, 0, sizeof st);
  assert_int_equal(aggv_accum(&mn, &st, grp, &v, NULL, 5, a, &e), 1);
  assert_true(st.as_val.d_f64 == -7);
  /* ties take the later value: min over -0, 0 is 0 (its sign shows) */
  memset(&st, 0, sizeof st);
  int sel[2] = {1, 3};
  assert_int_equal(aggv_accum(&mn, &st, grp, &v, sel, 2, a, &e), 1);
  assert_false(signbit(st.as_val.d_f64));
  assert_false(st.as_val.d_null);
  /* NULLs skipped by min/max of NUMERIC; 1.5 vs 1.50 keeps the later */
  vec_t n = vec_of(a, TY_NUMERIC, 3);
  n.v_num[0] = num(15, 1);
  n.v_null[1] = 1;
  n.v_num[2] = num(150, 2);
  agg_spec_t nmx = {.ag_kind = XAGG_MAX, .ag_type = ty_plain(TY_NUMERIC)};
  memset(&st, 0, sizeof st);
  assert_int_equal(aggv_accum(&nmx, &st, grp, &n, NULL, 3, a, &e), 1);
  assert_int_equal(st.as_count, 2);
  assert_int_equal(st.as_val.d_num.n_scale, 2);
  /* one scale: compared by value, negatives too */
  n.v_null[1] = 0;
  n.v_num[0] = num(-250, 2);
  n.v_num[1] = num(-1000, 2);
  n.v_num[2] = num(7, 2);
  agg_spec_t nmn = {.ag_kind = XAGG_MIN, .ag_type = ty_plain(TY_NUMERIC)};
  memset(&st, 0, sizeof st);
  assert_int_equal(aggv_accum(&nmn, &st, grp, &n, NULL, 3, a, &e), 1);
  assert_true(st.as_val.d_num.n_val == -1000);
  memset(&st, 0, sizeof st);
  assert_int_equal(aggv_accum(&nmx, &st, grp, &n, NULL, 3, a, &e), 1);
  assert_true(st.as_val.d_num.n_val == 7);
  /* avg(float8): a float sum */
  agg_spec_t avg = {.ag_kind = XAGG_AVG, .ag_type = ty_plain(TY_FLOAT8)};
  memset(&st, 0, sizeof st);
  int sel2[3] = {0, 3, 4};
  assert_int_equal(aggv_accum(&avg, &st, grp, &v, sel2, 3, a, &e), 1);
  assert_true(st.as_f64 == -4.5 && st.as_count == 3);
  arena_destroy(a);
}

static void test_text_min_max_copies(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "t");
  vec_t v = vec_of(a, TY_TEXT, 5);
  char buf[5][8] = {"b", "abc", "", "zz", "ab"};
  for (int i = 0; i < 5; i++) {
    v.v_str[i].s_ptr = buf[i];
    v.v_str[i].s_len = (uint32_t)strlen(buf[i]);
  }
  v.v_null[2] = 1;
  int64_t grp[5] = {0, 0, 0, 1, 1};
  agg_state_t st[2];
  err_t e;
  memset(&e, 0, sizeof e);
  agg_spec_t mn = {.ag_kind = XAGG_MIN, .ag_type = ty_plain(TY_TEXT)};
  agg_spec_t mx = {.ag_kind = XAGG_MAX, .ag_type = ty_plain(TY_TEXT)};
  memset(st, 0, sizeof st);
  assert_int_equal(aggv_accum(&mn, st, grp, &v, NULL, 5, a, &e), 1);
  memset(buf, 'q', sizeof buf); /* the states hold copies */
  assert_int_equal(st[0].as_val.d_str.s_len, 3);
  assert_memory_equal(st[0].as_val.d_str.s_ptr, "abc", 3);
  assert_int_equal(st[0].as_count, 2);
  assert_memory_equal(st[1].as_val.d_str.s_ptr, "ab", 2);
  memcpy(buf[0], "b", 2);
  memcpy(buf[1], "abc", 4);
  memcpy(buf[3], "zz", 3);
  memcpy(buf[4], "ab", 3);
  memset(st, 0, sizeof st);
  assert_int_equal(aggv_accum(&mx, st, grp, &v, NULL, 5, a, &e), 1);
  assert_int_equal(st[0].as_val.d_str.s_len, 1);
  assert_memory_equal(st[0].as_val.d_str.s_ptr, "b", 1);
  assert_memory_equal(st[1].as_val.d_str.s_ptr, "zz", 2);
  /* the copy is fallible: past the budget 53200, nothing kept broken */
  mem_budget_t b;
  mem_budget_init(&b, 4096);
  arena_t *small = arena_create(NULL, "small");
  arena_set_budget(small, &b);
  vec_t w = vec_of(a, TY_TEXT, 1);
  char *big = arena_alloc(a, 1 << 20);
  memset(big, 'x', 1 << 20);
  w.v_str[0].s_ptr = big;
  w.v_str[0].s_len = 1 << 20;
  int64_t g0 = 0;
  memset(st, 0, sizeof st);
  assert_int_equal(aggv_accum(&mx, st, &g0, &w, NULL, 1, small, &e), -1);
  assert_string_equal(e.er_sqlstate, "53200");
  arena_destroy(small);
  arena_destroy(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hash_matches_row_hash),
      cmocka_unit_test(test_count_sum_nulls_and_groups),
      cmocka_unit_test(test_bigint_overflow),
      cmocka_unit_test(test_numeric_scales_and_overflow),
      cmocka_unit_test(test_float_avg_min_max),
      cmocka_unit_test(test_text_min_max_copies),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
