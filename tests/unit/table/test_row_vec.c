/* Decoding rows straight into a scan's vectors (tb_row_vec.c), row by row
 * and a run of rows at a time, against the datum decoder (tbl_row_decode)
 * and the executor-order predicate test (tb_pred_test): random rows of every type, with and without NULLs (the
 * step program and the general walk), rows shorter than the table (ADD
 * COLUMN), repeated and reordered outputs, and random pushed predicates —
 * integer and NUMERIC comparisons prepared for the column, NUMERIC values
 * stored at another scale than the column's, constants with more digits
 * than the column, IN lists, NULL tests. A row passes exactly when every
 * predicate holds on its decoded values, and a passing row's outputs equal
 * the datum decoder's.
 */
#include "../catalog/cat_test.h"
#include "table/tb_int.h"

static uint64_t rv_rng;

static uint64_t rv_rand(void)
{
  rv_rng ^= rv_rng << 13;
  rv_rng ^= rv_rng >> 7;
  rv_rng ^= rv_rng << 17;
  return rv_rng;
}

static const char *rv_words[] = { "", "a", "ab", "abc ", "b", "zz", "a  ", "abc" };

/* A value of t from a small domain (so that predicates hit and miss);
 * NULL with probability 1/nullp (0: never). */
static void rv_value(ty_t t, int nullp, datum_t *d)
{
  memset(d, 0, sizeof *d);
  if (nullp && rv_rand() % (uint64_t)nullp == 0) {
    d->d_null = true;
    return;
  }
  switch (t.t_id) {
  case TY_BOOL:
    d->d_bool = rv_rand() & 1;
    break;
  case TY_INT2:
  case TY_INT4:
  case TY_DATE:
  case TY_INT8:
  case TY_TIMESTAMP:
    d->d_i64 = (int64_t)(rv_rand() % 9) - 4;
    if (t.t_id == TY_INT8 && rv_rand() % 4 == 0)
      d->d_i64 *= INT64_C(1000000000000);
    break;
  case TY_FLOAT4:
  case TY_FLOAT8:
    d->d_f64 = (double)((int64_t)(rv_rand() % 9) - 4) / 2;
    if (rv_rand() % 10 == 0)
      d->d_f64 = __builtin_nan("");
    break;
  case TY_NUMERIC: {
    /* mostly the column's scale, sometimes another (1.5 stored as 1.50) */
    int scale = t.t_prec >= 0 ? t.t_scale : (int)(rv_rand() % 3);
    if (rv_rand() % 5 == 0)
      scale = (int)(rv_rand() % 4);
    d->d_num.n_val = (__int128)((int64_t)(rv_rand() % 41) - 20);
    for (int i = 0; i < scale - 1; i++)
      d->d_num.n_val *= 10;
    if (rv_rand() % 16 == 0)
      d->d_num.n_val *= (__int128)INT64_C(1000000000000000000);  /* wider than 8 bytes */
    d->d_num.n_scale = (int16_t)scale;
    break;
  }
  case TY_INTERVAL:
    d->d_iv.iv_months = (int32_t)(rv_rand() % 3);
    d->d_iv.iv_days = (int32_t)(rv_rand() % 40);
    d->d_iv.iv_us = (int64_t)(rv_rand() % 3) * 1000;
    break;
  default: {
    const char *w = rv_words[rv_rand() % CZ_ARRAY_LEN(rv_words)];
    d->d_str.s_ptr = w;
    d->d_str.s_len = (uint32_t)strlen(w);
  }
  }
}

static ty_t rv_type(void)
{
  static const ty_id_t ids[] = { TY_BOOL, TY_INT2, TY_INT4, TY_INT8, TY_DATE, TY_TIMESTAMP,
                                 TY_FLOAT4, TY_FLOAT8, TY_NUMERIC, TY_NUMERIC, TY_INTERVAL,
                                 TY_CHAR, TY_VARCHAR, TY_TEXT, TY_BYTEA };
  ty_t t = ty_plain(ids[rv_rand() % CZ_ARRAY_LEN(ids)]);
  if (t.t_id == TY_NUMERIC && rv_rand() % 3) {
    t.t_prec = 15;
    t.t_scale = (int16_t)(rv_rand() % 3);
  }
  return t;
}

/* A random predicate on output k (of type t). */
static void rv_pred(ty_t t, int k, datum_t *vals, tbl_pred_t *p)
{
  static const tbl_pred_op_t ops[] = { TBP_EQ, TBP_NE, TBP_LT, TBP_LE, TBP_GT, TBP_GE,
                                       TBP_LT, TBP_GE, TBP_IN, TBP_NOT_IN, TBP_NULL,
                                       TBP_NOT_NULL };
  memset(p, 0, sizeof *p);
  p->tp_out = k;
  p->tp_op = ops[rv_rand() % CZ_ARRAY_LEN(ops)];
  p->tp_rtrim = t.t_id == TY_CHAR;
  p->tp_vals = vals;
  p->tp_nvals = p->tp_op == TBP_NULL || p->tp_op == TBP_NOT_NULL ? 0
                : p->tp_op == TBP_IN || p->tp_op == TBP_NOT_IN ? 3
                                                               : 1;
  for (int i = 0; i < p->tp_nvals; i++) {
    do
      rv_value(t, 0, &vals[i]);
    while (vals[i].d_null);
    /* constants with more digits than the column (c < 0.055) */
    if (t.t_id == TY_NUMERIC && rv_rand() % 4 == 0) {
      vals[i].d_num.n_val = vals[i].d_num.n_val * 10 + 5;
      vals[i].d_num.n_scale++;
    }
  }
}

static bool rv_equal(ty_t t, const datum_t *x, const vec_t *v, int r)
{
  if (x->d_null || v->v_null[r])
    return x->d_null == (v->v_null[r] != 0);
  datum_t y;
  vec_get(v, r, &y);
  if (ty_phys(t.t_id) == TP_STR)
    return x->d_str.s_len == y.d_str.s_len &&
           memcmp(x->d_str.s_ptr, y.d_str.s_ptr, x->d_str.s_len) == 0;
  if (ty_phys(t.t_id) == TP_NUM)  /* the same scale too */
    return x->d_num.n_val == y.d_num.n_val && x->d_num.n_scale == y.d_num.n_scale;
  if (ty_phys(t.t_id) == TP_F64)
    return memcmp(&x->d_f64, &y.d_f64, sizeof(double)) == 0;
  return datum_cmp(ty_phys(t.t_id), x, &y) == 0;
}

static void rv_round(arena_t *a, int nullp, int *fast_rows, int *passed, int *run_rows)
{
  enum { NT = 12, NROWS = 40 };
  ty_t types[NT];
  int ntab = 1 + (int)(rv_rand() % NT);
  for (int i = 0; i < ntab; i++)
    types[i] = rv_type();
  /* outputs: random columns, repeats allowed */
  int cols[8];
  int ncols = (int)(rv_rand() % 6);
  ty_t otypes[9];
  for (int k = 0; k < ncols; k++) {
    cols[k] = (int)(rv_rand() % (uint64_t)ntab);
    otypes[k] = types[cols[k]];
  }
  tbl_pred_t preds[4];
  datum_t pvals[4][3];
  int npred = ncols ? (int)(rv_rand() % 4) : 0;
  for (int j = 0; j < npred; j++) {
    int k = (int)(rv_rand() % (uint64_t)ncols);
    rv_pred(otypes[k], k, pvals[j], &preds[j]);
  }
  tb_dplan_t *dp;
  err_t e;
  err_clear(&e);
  assert_int_equal(tb_dplan_build(types, ntab, cols, ncols, preds, npred, a, &dp, &e), CZ_OK);
  batch_t *b = batch_create(a, ncols ? ncols : 1, ncols ? otypes : types, NROWS, &e);
  assert_non_null(b);
  tb_ref_t refs[9];
  const uint8_t *rows[NROWS];
  uint16_t lens[NROWS];
  int kept[NROWS], nkept = 0;  /* the rows that passed, in order */
  for (int r = 0; r < NROWS; r++) {
    /* a row written when the table had fewer columns, now and then */
    int stored = rv_rand() % 8 == 0 ? (int)(rv_rand() % (uint64_t)(ntab + 1)) : ntab;
    datum_t row[NT];
    for (int i = 0; i < stored; i++)
      rv_value(types[i], nullp, &row[i]);
    uint8_t *buf = arena_alloc(a, 4096);
    size_t len;
    assert_int_equal(tbl_row_encode(types, stored, row, buf, 4096, &len, &e), CZ_OK);
    rows[r] = buf;
    lens[r] = (uint16_t)len;
    /* the reference: datums, then every predicate on a one-row vector */
    datum_t want[8];
    assert_int_equal(tbl_row_decode(types, ntab, buf, len, cols, ncols, a, want, &e), CZ_OK);
    bool expect = true;
    for (int j = 0; j < npred; j++) {
      vec_t v;
      assert_int_equal(vec_init(&v, a, otypes[preds[j].tp_out], 1, &e), CZ_OK);
      vec_set(&v, 0, &want[preds[j].tp_out]);
      if (!tb_pred_test(&preds[j], &v, 0))
        expect = false;
    }
    bool any_null = false;
    for (int i = 0; i < stored; i++)
      any_null |= row[i].d_null;
    if (!any_null && stored == ntab)
      (*fast_rows)++;
    int nrefs;
    bool pass;
    assert_int_equal(tb_row_decode_vec(dp, buf, len, b, r, a, refs, &nrefs, &pass, &e), CZ_OK);
    assert_int_equal(nrefs, 0);
    assert_int_equal(pass, expect);
    if (!pass)
      continue;
    (*passed)++;
    kept[nkept++] = r;
    for (int k = 0; k < ncols; k++)
      assert_true(rv_equal(otypes[k], &want[k], &b->b_cols[k], r));
  }
  /* The same rows a run at a time (tb_row_decode_rows, with random room;
   * a row it cannot take goes through the per-row path, as a scan does)
   * give the rows that passed, in order, with the same values. */
  batch_t *b2 = batch_create(a, ncols ? ncols : 1, ncols ? otypes : types, NROWS, &e);
  int n2 = 0;
  for (int i = 0; i < NROWS;) {
    int room = 1 + (int)(rv_rand() % (uint64_t)(NROWS - n2 + 1));
    int used, made;
    assert_int_equal(tb_row_decode_rows(dp, rows + i, lens + i, NROWS - i, b2, n2, room, a, &used,
                                        &made, &e),
                     CZ_OK);
    assert_true(made <= room && made <= used);
    if (used > 0) {
      (*run_rows) += used;
      i += used;
      n2 += made;
      continue;
    }
    int nrefs;
    bool pass;
    assert_int_equal(tb_row_decode_vec(dp, rows[i], lens[i], b2, n2, a, refs, &nrefs, &pass, &e),
                     CZ_OK);
    n2 += pass;
    i++;
  }
  assert_int_equal(n2, nkept);
  for (int j = 0; j < n2; j++)
    for (int k = 0; k < ncols; k++) {
      datum_t x;
      vec_get(&b->b_cols[k], kept[j], &x);
      x.d_null = b->b_cols[k].v_null[kept[j]] != 0;
      assert_true(rv_equal(otypes[k], &x, &b2->b_cols[k], j));
    }
}

static void test_decode_vec_matches_datum_decoder(void **state)
{
  (void)state;
  rv_rng = cz_test_seed() | 1;
  arena_t *a = arena_create(NULL, "rowvec");
  int fast = 0, passed = 0, run = 0;
  for (int round = 0; round < 3000; round++) {
    rv_round(a, round % 3 == 0 ? 0 : 1 + (int)(round % 7), &fast, &passed, &run);
    if (round % 100 == 99) {
      arena_destroy(a);
      a = arena_create(NULL, "rowvec");
    }
  }
  arena_destroy(a);
  /* both paths were exercised, and predicates both kept and dropped rows */
  assert_true(fast > 1000);
  assert_true(passed > 1000);
  assert_true(run > 1000);
}

/* A row cut short is a data-corruption error, never a read past its end,
 * on both paths (no NULL: the step program; a NULL: the general walk). */
static void test_decode_vec_truncated_rows(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "rowvec");
  ty_t types[4] = { ty_plain(TY_INT4), ty_plain(TY_NUMERIC), ty_plain(TY_TEXT),
                    ty_plain(TY_INT8) };
  int cols[2] = { 3, 1 };
  tb_dplan_t *dp;
  err_t e;
  err_clear(&e);
  assert_int_equal(tb_dplan_build(types, 4, cols, 2, NULL, 0, a, &dp, &e), CZ_OK);
  batch_t *b = batch_create(a, 2, (ty_t[]){ types[3], types[1] }, 4, &e);
  for (int withnull = 0; withnull < 2; withnull++) {
    datum_t row[4] = { { .d_i64 = 7 },
                       { .d_num = { 12345, 2 } },
                       { .d_str = { "hello", 5 } },
                       { .d_i64 = -9 } };
    row[0].d_null = withnull;
    uint8_t buf[256];
    size_t len;
    assert_int_equal(tbl_row_encode(types, 4, row, buf, sizeof buf, &len, &e), CZ_OK);
    tb_ref_t refs[2];
    int nrefs;
    bool pass;
    assert_int_equal(tb_row_decode_vec(dp, buf, len, b, 0, a, refs, &nrefs, &pass, &e), CZ_OK);
    assert_int_equal(b->b_cols[0].v_i64[0], -9);
    assert_true(b->b_cols[1].v_num[0].n_val == 12345);
    for (size_t cut = 1; cut < len; cut++) {
      /* a copy exactly cut bytes long, so a sanitizer sees any overread */
      uint8_t *p = malloc(cut);  /* its own block: a checker sees any overread */
      assert_non_null(p);
      memcpy(p, buf, cut);
      err_clear(&e);
      assert_int_equal(tb_row_decode_vec(dp, p, cut, b, 1, a, refs, &nrefs, &pass, &e), CZ_ERR);
      assert_string_equal(e.er_sqlstate, SQLSTATE_DATA_CORRUPTED);
      /* a run: the same error, or the row left to the per-row path */
      const uint8_t *one[1] = { p };
      uint16_t l16 = (uint16_t)cut;
      int used, made;
      err_clear(&e);
      if (tb_row_decode_rows(dp, one, &l16, 1, b, 1, 2, a, &used, &made, &e) == CZ_OK)
        assert_int_equal(used, 0);
      else
        assert_string_equal(e.er_sqlstate, SQLSTATE_DATA_CORRUPTED);
      free(p);
    }
  }
  arena_destroy(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_decode_vec_matches_datum_decoder),
    cmocka_unit_test(test_decode_vec_truncated_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
