/* Index-prefix probes (tb_probe.c): batches of key prefixes against the
 * primary tree (a whole key and a prefix of a composite key) and a
 * non-unique secondary index (covering, and fetching the rows), with
 * duplicate, missing and unordered prefixes, output batches smaller than
 * a prefix's rows, predicates, and a probe reused for several batches;
 * every answer checked against a brute-force count. The primary tests
 * run on a row table and on a column table of several segments (probes
 * whose prefixes share a segment re-aim one held column scan; prefixes
 * around segment ends and past the last row).
 */
#include "../catalog/cat_test.h"

/* pairs(a int4, b int4, c int4, v varchar, primary key (a, b)), index on
 * c: a = i / 5, b = i % 5, c = i % 7, v "v<i>". */
static int tp_size = 3000;  /* rows of the table under test */

static cat_oid_t tp_pairs(ct_env_t *env, int size, cat_layout_t layout)
{
  txn_t *tx = ct_begin(env);
  cat_column_def_t cols[4] = {ct_col("a", TY_INT4, false), ct_col("b", TY_INT4, false),
                              ct_col("c", TY_INT4, false), ct_col("v", TY_VARCHAR, false)};
  int pk[2] = {0, 1};
  cat_table_def_t def = {.td_name = "pairs", .td_owner = 10, .td_ncols = 4, .td_cols = cols,
                         .td_npk = 2, .td_pk = pk, .td_layout = layout};
  cat_oid_t oid, ix;
  CT_OK(cat_create_table(env->ce_cat, tx, &def, &oid, &e_));
  int keys[1] = {2};
  cat_index_def_t idef = {.id_name = "pairs_c", .id_table = oid, .id_nkeys = 1, .id_keys = keys};
  CT_OK(tbl_create_index(env->ce_cat, tx, &idef, &ix, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_t *s = cat_snapshot(env->ce_cat);
  const cat_table_t *t = cat_table_by_oid(s, oid);
  tx = ct_begin(env);
  if (layout == CAT_LAYOUT_COLUMN) {
    /* one sorted batch: segments built directly (row by row would
     * re-encode a segment per row) */
    arena_t *a = arena_create(NULL, "pairs");
    ty_t types[4] = {t->ct_types[0], t->ct_types[1], t->ct_types[2], t->ct_types[3]};
    batch_t *b = batch_create(a, 4, types, size, NULL);
    assert_non_null(b);
    for (int i = 0; i < size; i++) {
      char *v = arena_alloc(a, 32);
      snprintf(v, 32, "v%d", i);
      datum_t row[4] = {{.d_i64 = i / 5}, {.d_i64 = i % 5}, {.d_i64 = i % 7},
                        {.d_str = {v, (uint32_t)strlen(v)}}};
      for (int c = 0; c < 4; c++)
        vec_set(&b->b_cols[c], i, &row[c]);
    }
    b->b_n = size;
    CT_OK(tbl_insert_batch(tx, t, b, size, &e_));
    arena_destroy(a);
  } else {
    for (int i = 0; i < size; i++) {
      char v[32];
      snprintf(v, sizeof v, "v%d", i);
      datum_t row[4] = {{.d_i64 = i / 5}, {.d_i64 = i % 5}, {.d_i64 = i % 7},
                        {.d_str = {v, (uint32_t)strlen(v)}}};
      CT_OK(tbl_insert_row(tx, t, row, &e_));
    }
  }
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_release(s);
  return oid;
}

static const ty_t tp_int = {.t_id = TY_INT4, .t_len = -1, .t_prec = -1, .t_scale = -1};
static const ty_t tp_str = {.t_id = TY_VARCHAR, .t_len = -1, .t_prec = -1, .t_scale = -1};

/* Probes p with the prefixes keys[j][0..nkey) (j < n), columns cols (all
 * int4 but table column 3), output batches of cap rows; checks the same[]
 * chains, that every row's first key column (output column kcol) is its
 * prefix's and at[] the prefix's first position; the rows per position
 * (so a repeated prefix's rows count once, at its first) into got[]. */
static void tp_probe(tbl_probe_t *p, int nkey, int n, const int64_t (*keys)[2], const int *cols,
                     int ncols, int kcol, int cap, arena_t *a, int *got)
{
  vec_t kv[2];
  const vec_t *kp[2] = {&kv[0], &kv[1]};
  for (int c = 0; c < nkey; c++) {
    vec_init(&kv[c], a, tp_int, n, NULL);
    for (int j = 0; j < n; j++) {
      datum_t d = {.d_i64 = keys[j][c]};
      vec_set(&kv[c], j, &d);
    }
  }
  int *same = arena_alloc(a, sizeof(int) * (size_t)n);
  CT_OK(tbl_probe_keys(p, kp, NULL, n, same, a, &e_));
  /* same[]: the next equal prefix after j, in order */
  for (int j = 0; j < n; j++) {
    int want = -1;
    for (int k = j + 1; k < n && want < 0; k++)
      if (keys[k][0] == keys[j][0] && (nkey < 2 || keys[k][1] == keys[j][1]))
        want = k;
    assert_int_equal(same[j], want);
  }
  ty_t types[4];
  for (int c = 0; c < ncols; c++)
    types[c] = cols[c] == 3 ? tp_str : tp_int;
  batch_t *b = batch_create(a, ncols, types, cap, NULL);
  int *at = arena_alloc(a, sizeof(int) * (size_t)cap);
  memset(got, 0, sizeof(int) * (size_t)n);
  for (;;) {
    CT_OK(tbl_probe_next(p, b, at, a, &e_));
    if (b->b_n == 0)
      break;
    assert_true(b->b_n <= cap);
    for (int r = 0; r < b->b_n; r++) {
      int j = at[r];
      assert_true(j >= 0 && j < n);
      for (int k = 0; k < j; k++)  /* the first position of its prefix */
        assert_false(keys[k][0] == keys[j][0] && (nkey < 2 || keys[k][1] == keys[j][1]));
      assert_int_equal(b->b_cols[kcol].v_i64[r], keys[j][0]);
      got[j]++;
    }
  }
}

/* Rows whose column kc (and kc2 when >= 0) equal the prefix, passing
 * `a < lt` when lt >= 0. */
static int tp_count(int kc, int64_t kv, int kc2, int64_t kv2, int64_t lt)
{
  int n = 0;
  for (int i = 0; i < tp_size; i++) {
    int64_t col[3] = {i / 5, i % 5, i % 7};
    if (col[kc] == kv && (kc2 < 0 || col[kc2] == kv2) && (lt < 0 || col[0] < lt))
      n++;
  }
  return n;
}

static void probe_primary_prefix(cat_layout_t layout)
{
  ct_env_t env;
  ct_init(&env, layout == CAT_LAYOUT_COLUMN ? "probe_primary_col" : "probe_primary");
  /* the column table spans several segments (BTC_SEG_ROWS = 4,096) */
  tp_size = layout == CAT_LAYOUT_COLUMN ? 13000 : 3000;
  cat_oid_t oid = tp_pairs(&env, tp_size, layout);
  cat_snapshot_t *snap = cat_snapshot(env.ce_cat);
  const cat_table_t *t = cat_table_by_oid(snap, oid);
  arena_t *a = arena_create(NULL, "probe");
  int cols[3] = {1, 3, 0};
  tbl_probe_t *p;
  CT_OK(tbl_probe_open(NULL, t, 0, 1, cols, 3, NULL, 0, a, &p, &e_));
  /* one-column prefixes: unordered, duplicated, missing, negative */
  static const int64_t k1[][2] = {{7, 0}, {3, 0}, {7, 0}, {100000, 0}, {0, 0}, {-4, 0}, {3, 0}, {599, 0}};
  int got[8];
  for (int cap = 1; cap <= 1024; cap *= 4) {
    tp_probe(p, 1, 8, k1, cols, 3, 2, cap, a, got);
    for (int j = 0; j < 8; j++) {
      bool first = true;
      for (int k = 0; k < j; k++)
        first &= k1[k][0] != k1[j][0];
      assert_int_equal(got[j], first ? tp_count(0, k1[j][0], -1, 0, -1) : 0);
    }
  }
  /* the same probe again with no prefixes, then a new batch */
  CT_OK(tbl_probe_keys(p, NULL, NULL, 0, NULL, a, &e_));
  batch_t *b = batch_create(a, 3, (ty_t[]){tp_int, tp_str, tp_int}, 8, NULL);
  int at[8];
  CT_OK(tbl_probe_next(p, b, at, a, &e_));
  assert_int_equal(b->b_n, 0);
  tbl_probe_close(p);
  /* a two-column prefix: the whole key, one row each */
  CT_OK(tbl_probe_open(NULL, t, 0, 2, cols, 3, NULL, 0, a, &p, &e_));
  static const int64_t k2[][2] = {{5, 4}, {5, 2}, {5, 4}, {5, 9}, {0, 0}};
  tp_probe(p, 2, 5, k2, cols, 3, 2, 2, a, got);
  int want[5] = {1, 1, 0, 0, 1};
  for (int j = 0; j < 5; j++)
    assert_int_equal(got[j], want[j]);
  tbl_probe_close(p);
  /* many prefixes in one batch, most sharing a segment with the one
   * before, around every segment end (rows 4,096 and 8,192 are keys
   * 819 and 1,638) and past the last row; every batch size */
  enum { NK = 400 };
  static int64_t km[NK][2];
  for (int j = 0; j < NK; j++)
    km[j][0] = j < 300 ? (int64_t)(j * 9 % 2700) : (int64_t)(810 + (j - 300) % 40) + (j % 2) * 819;
  km[NK - 1][0] = tp_size / 5 + 3;
  int gotm[NK];
  CT_OK(tbl_probe_open(NULL, t, 0, 1, cols, 3, NULL, 0, a, &p, &e_));
  for (int cap = 1; cap <= 4096; cap *= 8) {
    tp_probe(p, 1, NK, (const int64_t(*)[2])km, cols, 3, 2, cap, a, gotm);
    for (int j = 0; j < NK; j++) {
      bool first = true;
      for (int k = 0; k < j; k++)
        first &= km[k][0] != km[j][0];
      assert_int_equal(gotm[j], first ? tp_count(0, km[j][0], -1, 0, -1) : 0);
    }
  }
  tbl_probe_close(p);
  arena_destroy(a);
  cat_snapshot_release(snap);
  ct_fini(&env);
}

static void test_probe_primary_prefix(void **state)
{
  (void)state;
  probe_primary_prefix(CAT_LAYOUT_ROW);
}

static void test_probe_primary_prefix_column(void **state)
{
  (void)state;
  probe_primary_prefix(CAT_LAYOUT_COLUMN);
}

static void test_probe_secondary(void **state)
{
  (void)state;
  ct_env_t env;
  ct_init(&env, "probe_secondary");
  tp_size = 3000;
  cat_oid_t oid = tp_pairs(&env, tp_size, CAT_LAYOUT_ROW);
  cat_snapshot_t *snap = cat_snapshot(env.ce_cat);
  const cat_table_t *t = cat_table_by_oid(snap, oid);
  int idx = -1;
  for (int i = 1; i < t->ct_nindexes; i++)
    if (strcmp(t->ct_indexes[i]->ci_name, "pairs_c") == 0)
      idx = i;
  assert_true(idx > 0);
  arena_t *a = arena_create(NULL, "probe");
  static const int64_t k1[][2] = {{3, 0}, {6, 0}, {3, 0}, {12, 0}, {0, 0}};
  int got[5];
  /* covering (the key and the primary key's columns), then fetching (v) */
  int covered[3] = {2, 0, 1}, fetched[3] = {3, 2, 0};
  for (int form = 0; form < 2; form++) {
    const int *cols = form ? fetched : covered;
    for (int cap = 3; cap <= 3000; cap *= 10) {
      tbl_probe_t *p;
      CT_OK(tbl_probe_open(NULL, t, idx, 1, cols, 3, NULL, 0, a, &p, &e_));
      tp_probe(p, 1, 5, k1, cols, 3, form ? 1 : 0, cap, a, got);
      int want[5] = {tp_count(2, 3, -1, 0, -1), tp_count(2, 6, -1, 0, -1), 0, 0,
                     tp_count(2, 0, -1, 0, -1)};
      for (int j = 0; j < 5; j++)
        assert_int_equal(got[j], want[j]);
      tbl_probe_close(p);
      /* with a predicate on a (column 2 of covered, 3 of fetched): a < 100 */
      datum_t hundred = {.d_i64 = 100};
      tbl_pred_t pr = {.tp_out = form ? 2 : 1, .tp_op = TBP_LT, .tp_nvals = 1, .tp_vals = &hundred};
      CT_OK(tbl_probe_open(NULL, t, idx, 1, cols, 3, &pr, 1, a, &p, &e_));
      tp_probe(p, 1, 5, k1, cols, 3, form ? 1 : 0, cap, a, got);
      int wantp[5] = {tp_count(2, 3, -1, 0, 100), tp_count(2, 6, -1, 0, 100), 0, 0,
                      tp_count(2, 0, -1, 0, 100)};
      for (int j = 0; j < 5; j++)
        assert_int_equal(got[j], wantp[j]);
      tbl_probe_close(p);
    }
  }
  arena_destroy(a);
  cat_snapshot_release(snap);
  ct_fini(&env);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_probe_primary_prefix),
    cmocka_unit_test(test_probe_primary_prefix_column),
    cmocka_unit_test(test_probe_secondary),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
