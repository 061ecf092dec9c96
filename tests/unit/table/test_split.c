/* Parallel scans in the table layer: a split of a scan's range covers
 * every row exactly once, in order, for tables of 0, 1, a few and many
 * pages (and a tree of three levels), every kind of bound and N = 1..16,
 * with about N balanced ranges where the tree has them; 2 to 4 threads
 * scanning through one morsel dispenser inside one transaction return
 * exactly the rows of a plain scan (its own uncommitted rows included,
 * the ones it writes meanwhile excluded, long values whole) while another
 * transaction inserts into another table.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "../catalog/cat_test.h"

static int ts_cmp_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* ---- tables ------------------------------------------------------------ */

/* nums<size>(k int8 primary key, g int4, v varchar) with a non-unique
 * index on g: k = 3 i, g = i % 10, v 40 bytes. */
static cat_oid_t ts_nums(ct_env_t *env, int size)
{
  char name[32];
  snprintf(name, sizeof name, "nums%d", size);
  txn_t *tx = ct_begin(env);
  cat_column_def_t cols[3] = {ct_col("k", TY_INT8, false), ct_col("g", TY_INT4, false),
                              ct_col("v", TY_VARCHAR, false)};
  int pk[1] = {0};
  cat_table_def_t def = {.td_name = name, .td_owner = 10, .td_ncols = 3, .td_cols = cols,
                         .td_npk = 1, .td_pk = pk};
  cat_oid_t oid, ix;
  CT_OK(cat_create_table(env->ce_cat, tx, &def, &oid, &e_));
  char ixname[40];
  snprintf(ixname, sizeof ixname, "%s_g", name);
  int keys[1] = {1};
  cat_index_def_t idef = {.id_name = ixname, .id_table = oid, .id_nkeys = 1, .id_keys = keys};
  CT_OK(tbl_create_index(env->ce_cat, tx, &idef, &ix, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_t *s = cat_snapshot(env->ce_cat);
  const cat_table_t *t = cat_table_by_oid(s, oid);
  tx = ct_begin(env);
  for (int i = 0; i < size; i++) {
    char v[64];
    snprintf(v, sizeof v, "value-%08d-................................", i);
    datum_t row[3] = {{.d_i64 = 3 * (int64_t)i}, {.d_i64 = i % 10},
                      {.d_str = {v, (uint32_t)strlen(v)}}};
    CT_OK(tbl_insert_row(tx, t, row, &e_));
  }
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_release(s);
  return oid;
}

/* ---- scans -------------------------------------------------------------- */

typedef struct ts_rows_s {
  int64_t *r_k;
  int *r_morsel;
  int r_n, r_cap;
} ts_rows_t;

static void ts_add(ts_rows_t *r, int64_t k, int morsel)
{
  if (r->r_n == r->r_cap) {
    r->r_cap = r->r_cap ? 2 * r->r_cap : 1024;
    r->r_k = realloc(r->r_k, sizeof *r->r_k * (size_t)r->r_cap);
    r->r_morsel = realloc(r->r_morsel, sizeof *r->r_morsel * (size_t)r->r_cap);
  }
  r->r_k[r->r_n] = k;
  r->r_morsel[r->r_n++] = morsel;
}

static void ts_free(ts_rows_t *r)
{
  free(r->r_k);
  free(r->r_morsel);
  memset(r, 0, sizeof *r);
}

/* Reads s to its end into r (column 0 = k), batches of cap rows; for a
 * morsel scan checks that morsels come in ascending order. */
static void ts_drain(tbl_scan_t *s, const ty_t *types, int ncols, int cap, arena_t *a, ts_rows_t *r)
{
  err_t e;
  batch_t *b = batch_create(a, ncols, types, cap, &e);
  assert_non_null(b);
  int last = -1;
  for (;;) {
    CT_OK(tbl_scan_next(s, b, a, &e_));
    if (b->b_n == 0)
      break;
    int m = tbl_scan_morsel(s);
    assert_true(m >= last);
    last = m;
    for (int i = 0; i < b->b_n; i++)
      ts_add(r, b->b_cols[0].v_i64[i], m);
  }
}

static const ty_t ts_types[3] = {{.t_id = TY_INT8, .t_len = -1, .t_prec = -1, .t_scale = -1},
                                 {.t_id = TY_INT4, .t_len = -1, .t_prec = -1, .t_scale = -1},
                                 {.t_id = TY_VARCHAR, .t_len = -1, .t_prec = -1, .t_scale = -1}};

/* Splits the scan into about n ranges, reads them through one dispenser
 * on this thread and checks: 1 <= ranges <= n, the rows are those of the
 * plain scan in the same order (each exactly once), every morsel taken.
 * Returns the number of ranges; rows per morsel into per[] (may be NULL). */
static int ts_check_split_aligned(txn_t *tx, const cat_table_t *t, int idx, const tbl_bound_t *lo,
                                  const tbl_bound_t *hi, int n, int align, int *per);

static int ts_check_split(txn_t *tx, const cat_table_t *t, int idx, const tbl_bound_t *lo,
                          const tbl_bound_t *hi, int n, int *per)
{
  return ts_check_split_aligned(tx, t, idx, lo, hi, n, 0, per);
}

/* As ts_check_split, the split aligned on the first align key columns;
 * on the index on g (k = 3 i, g = i % 10) rows of one g then share a
 * range. */
static int ts_check_split_aligned(txn_t *tx, const cat_table_t *t, int idx, const tbl_bound_t *lo,
                                  const tbl_bound_t *hi, int n, int align, int *per)
{
  arena_t *a = arena_create(NULL, "split");
  int cols[2] = {0, 1};
  tbl_scan_t *s;
  ts_rows_t plain = {0}, got = {0};
  CT_OK(tbl_scan_open(tx, t, idx, cols, 2, lo, hi, false, a, &s, &e_));
  ts_drain(s, ts_types, 2, 97, a, &plain);
  tbl_scan_close(s);
  tbl_split_t *sp;
  CT_OK(tbl_scan_split(t, idx, lo, hi, n, align, a, &sp, &e_));
  int count = tbl_split_count(sp);
  assert_true(count >= 1 && count <= n);
  tbl_morsels_t *m;
  CT_OK(tbl_morsels_new(tx, sp, a, &m, &e_));
  CT_OK(tbl_scan_open_morsels(m, cols, 2, false, a, &s, &e_));
  ts_drain(s, ts_types, 2, 97, a, &got);
  tbl_scan_close(s);
  assert_int_equal(tbl_morsels_taken(m), count);
  if (got.r_n != plain.r_n)
    fail_msg("index %d, n %d (%d ranges): %d rows through the split, %d in the plain scan", idx, n,
             count, got.r_n, plain.r_n);
  for (int i = 0; i < got.r_n; i++) {
    assert_int_equal(got.r_k[i], plain.r_k[i]);
    assert_true(got.r_morsel[i] >= 0 && got.r_morsel[i] < count);
    if (per)
      per[got.r_morsel[i]]++;
    if (align > 0 && idx == 1 && i > 0 && (got.r_k[i] / 3) % 10 == (got.r_k[i - 1] / 3) % 10 &&
        got.r_morsel[i] != got.r_morsel[i - 1])
      fail_msg("n %d: g %d in ranges %d and %d", n, (int)((got.r_k[i] / 3) % 10),
               got.r_morsel[i - 1], got.r_morsel[i]);
  }
  ts_free(&plain);
  ts_free(&got);
  arena_destroy(a);
  return count;
}

static void test_split_covers_every_row_once(void **state)
{
  (void)state;
  ct_env_t env;
  ct_init(&env, "split_cover");
  static const int sizes[] = {0, 1, 50, 700, 20000};
  cat_oid_t oids[5];
  for (int i = 0; i < 5; i++)
    oids[i] = ts_nums(&env, sizes[i]);
  cat_snapshot_t *snap = cat_snapshot(env.ce_cat);
  for (int si = 0; si < 5; si++) {
    int size = sizes[si];
    const cat_table_t *t = cat_table_by_oid(snap, oids[si]);
    datum_t q1 = {.d_i64 = 3 * (int64_t)(size / 4)}, q3 = {.d_i64 = 3 * (int64_t)(3 * size / 4)};
    datum_t mid = {.d_i64 = 3 * (int64_t)(size / 2)};
    datum_t g3 = {.d_i64 = 3}, g5 = {.d_i64 = 5}, g7 = {.d_i64 = 7};
    for (int n = 1; n <= 16; n++) {
      /* the primary tree: open, closed, half-open, exclusive, point, empty */
      tbl_bound_t L = {1, &q1, true}, H = {1, &q3, true};
      int open = ts_check_split(NULL, t, 0, NULL, NULL, n, NULL);
      int closed = ts_check_split(NULL, t, 0, &L, &H, n, NULL);
      ts_check_split(NULL, t, 0, &L, NULL, n, NULL);
      ts_check_split(NULL, t, 0, NULL, &H, n, NULL);
      L.tb_incl = H.tb_incl = false;
      ts_check_split(NULL, t, 0, &L, &H, n, NULL);
      tbl_bound_t P = {1, &mid, true};
      assert_int_equal(ts_check_split(NULL, t, 0, &P, &P, n, NULL), 1);
      tbl_bound_t E1 = {1, &q3, true}, E2 = {1, &q1, false};
      ts_check_split(NULL, t, 0, &E1, &E2, n, NULL);
      /* the index on g: a prefix spanning pages, a closed and an open range */
      tbl_bound_t G7 = {1, &g7, true}, G3 = {1, &g3, true}, G5 = {1, &g5, true};
      int prefix = ts_check_split(NULL, t, 1, &G7, &G7, n, NULL);
      ts_check_split(NULL, t, 1, &G3, &G5, n, NULL);
      G3.tb_incl = G5.tb_incl = false;
      ts_check_split(NULL, t, 1, &G3, &G5, n, NULL);
      ts_check_split(NULL, t, 1, NULL, NULL, n, NULL);
      if (size <= 50) {
        /* one leaf page: one range */
        assert_int_equal(open, 1);
        assert_int_equal(closed, 1);
      }
      if (size == 20000) {
        /* many pages: as many ranges as asked, also for a key prefix */
        assert_int_equal(open, n);
        assert_int_equal(closed, n);
        assert_true(prefix >= (n < 4 ? n : 4));
      }
    }
    if (size == 20000) {
      /* balanced by the separators: no range more than twice the mean */
      for (int n = 2; n <= 16; n *= 2) {
        int per[16] = {0};
        assert_int_equal(ts_check_split(NULL, t, 0, NULL, NULL, n, per), n);
        for (int i = 0; i < n; i++)
          if (per[i] > 2 * size / n || per[i] < size / n / 3)
            fail_msg("range %d of %d holds %d of %d rows", i, n, per[i], size);
      }
    }
  }
  cat_snapshot_release(snap);
  ct_fini(&env);
}

/* Aligned splits: on the index on g (2000 rows a value, many pages each)
 * no g spans two ranges, for open, closed and prefix ranges; still
 * several ranges where the values allow. */
static void test_split_aligned_on_groups(void **state)
{
  (void)state;
  ct_env_t env;
  ct_init(&env, "split_aligned");
  cat_oid_t oid = ts_nums(&env, 20000);
  cat_snapshot_t *snap = cat_snapshot(env.ce_cat);
  const cat_table_t *t = cat_table_by_oid(snap, oid);
  datum_t g3 = {.d_i64 = 3}, g7 = {.d_i64 = 7}, k = {.d_i64 = 3 * 5001};
  for (int n = 1; n <= 16; n++) {
    int open = ts_check_split_aligned(NULL, t, 1, NULL, NULL, n, 1, NULL);
    tbl_bound_t G3 = {1, &g3, true}, G7 = {1, &g7, true};
    ts_check_split_aligned(NULL, t, 1, &G3, &G7, n, 1, NULL);
    G3.tb_incl = false;
    ts_check_split_aligned(NULL, t, 1, &G3, NULL, n, 1, NULL);
    /* one value of g: one range */
    assert_int_equal(ts_check_split_aligned(NULL, t, 1, &G7, &G7, n, 1, NULL), 1);
    /* the primary key aligned on its one column: as unaligned */
    tbl_bound_t K = {1, &k, true};
    ts_check_split_aligned(NULL, t, 0, &K, NULL, n, 1, NULL);
    if (n >= 4)
      assert_true(open >= 3 && open <= 10);
  }
  cat_snapshot_release(snap);
  ct_fini(&env);
}

/* A tree of three levels or more: long keys whose neighbours share all
 * but their last bytes make separators as long as the keys. */
static void test_split_descends_levels(void **state)
{
  (void)state;
  ct_env_t env;
  ct_init(&env, "split_levels");
  txn_t *tx = ct_begin(&env);
  cat_column_def_t cols[2] = {ct_col("k", TY_VARCHAR, false), ct_col("i", TY_INT8, false)};
  int pk[1] = {0};
  cat_table_def_t def = {.td_name = "wide", .td_owner = 10, .td_ncols = 2, .td_cols = cols,
                         .td_npk = 1, .td_pk = pk};
  cat_oid_t oid;
  CT_OK(cat_create_table(env.ce_cat, tx, &def, &oid, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_t *s = cat_snapshot(env.ce_cat);
  const cat_table_t *t = cat_table_by_oid(s, oid);
  tx = ct_begin(&env);
  enum { NROWS = 4000 };
  static char keys[NROWS][400];
  for (int i = 0; i < NROWS; i++) {
    snprintf(keys[i], sizeof keys[i], "%03d%0390d%05d", i / 50, 0, i);
    datum_t row[2] = {{.d_str = {keys[i], (uint32_t)strlen(keys[i])}}, {.d_i64 = i}};
    CT_OK(tbl_insert_row(tx, t, row, &e_));
  }
  CT_OK(txn_commit(tx, &e_));
  bt_check_t chk;
  CT_OK(bt_check(t->ct_indexes[0]->ci_tree, &chk, &e_));
  assert_true(chk.bc_height >= 3);
  arena_t *a = arena_create(NULL, "levels");
  int cols2[2] = {1, 0};
  ty_t types[2] = {ty_plain(TY_INT8), ty_plain(TY_VARCHAR)};
  for (int n = 1; n <= 16; n++) {
    tbl_split_t *sp;
    CT_OK(tbl_scan_split(t, 0, NULL, NULL, n, 0, a, &sp, &e_));
    assert_int_equal(tbl_split_count(sp), n);
    tbl_morsels_t *m;
    CT_OK(tbl_morsels_new(NULL, sp, a, &m, &e_));
    tbl_scan_t *sc;
    CT_OK(tbl_scan_open_morsels(m, cols2, 2, false, a, &sc, &e_));
    ts_rows_t got = {0};
    ts_drain(sc, types, 2, 64, a, &got);
    tbl_scan_close(sc);
    assert_int_equal(got.r_n, NROWS);
    for (int i = 0; i < NROWS; i++)
      assert_int_equal(got.r_k[i], i);
    ts_free(&got);
    arena_reset(a);
  }
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&env);
}

/* ---- several threads through one dispenser ---------------------------- */

#define TS_DOCS 6000
#define TS_LONG 4000  /* bytes of the long bodies (out of line) */

typedef struct ts_worker_s {
  tbl_morsels_t *w_m;
  txn_t *w_tx;
  const cat_table_t *w_t;
  const tbl_pred_t *w_preds;
  int w_npred;
  ts_rows_t w_rows;
  int w_lookups;
  char w_err[600];
} ts_worker_t;

/* The body of row k: long for every 50th row, else short; its first byte
 * tells k's residue so a torn value would show. */
static void ts_body(int64_t k, char *buf, size_t *len)
{
  size_t n = (k / 3) % 50 == 0 ? TS_LONG : 12;
  memset(buf, 'a' + (int)(k % 26), n);
  *len = n;
}

static void *ts_worker(void *arg)
{
  ts_worker_t *w = arg;
  arena_t *a = arena_create(NULL, "worker");
  int cols[3] = {0, 1, 2};
  tbl_scan_t *s;
  err_t e;
  err_clear(&e);
  batch_t *b = batch_create(a, 3, ts_types, 100, &e);
  if (tbl_scan_open_morsels(w->w_m, cols, 3, false, a, &s, &e) != CZ_OK ||
      (w->w_npred && tbl_scan_filter(s, w->w_preds, w->w_npred, &e) != CZ_OK)) {
    snprintf(w->w_err, sizeof w->w_err, "open: %s", e.er_msg);
    return NULL;
  }
  char want[TS_LONG];
  for (;;) {
    arena_t *ba = arena_create(a, "batch");
    if (tbl_scan_next(s, b, ba, &e) != CZ_OK) {
      snprintf(w->w_err, sizeof w->w_err, "next: %s", e.er_msg);
      break;
    }
    if (b->b_n == 0) {
      arena_destroy(ba);
      break;
    }
    int64_t prev = INT64_MIN;
    for (int i = 0; i < b->b_n; i++) {
      int64_t k = b->b_cols[0].v_i64[i];
      size_t len;
      ts_body(k, want, &len);
      const str_t *body = &b->b_cols[2].v_str[i];
      if (k <= prev || body->s_len != len || memcmp(body->s_ptr, want, len) != 0)
        snprintf(w->w_err, sizeof w->w_err, "row %lld: out of order or body of %u bytes",
                 (long long)k, body->s_len);
      prev = k;
      ts_add(&w->w_rows, k, tbl_scan_morsel(s));
    }
    /* a lookup in the same transaction from this thread too */
    datum_t key = {.d_i64 = b->b_cols[0].v_i64[0]};
    const datum_t *kp = &key;
    int one = 0;
    bool found = false;
    batch_t *lb = batch_create(ba, 1, ts_types, 1, &e);
    if (tbl_lookup(w->w_tx, w->w_t, &kp, 1, &one, 1, false, lb, &found, ba, &e) != CZ_OK || !found)
      snprintf(w->w_err, sizeof w->w_err, "lookup of %lld failed", (long long)key.d_i64);
    w->w_lookups++;
    arena_destroy(ba);
  }
  tbl_scan_close(s);
  arena_destroy(a);
  return NULL;
}

typedef struct ts_side_s {
  ct_env_t *sd_env;
  const cat_table_t *sd_t;
  _Atomic bool sd_stop;
  int sd_inserted;
} ts_side_t;

/* Another session: inserts into another table, committing, until told. */
static void *ts_side(void *arg)
{
  ts_side_t *sd = arg;
  int64_t k = 0;
  while (!atomic_load(&sd->sd_stop)) {
    txn_t *tx = ct_begin(sd->sd_env);
    for (int i = 0; i < 20; i++, k++) {
      datum_t row[3] = {{.d_i64 = 1000000 + k}, {.d_i64 = 1}, {.d_str = {"side", 4}}};
      CT_OK(tbl_insert_row(tx, sd->sd_t, row, &e_));
    }
    CT_OK(txn_commit(tx, &e_));
    sd->sd_inserted += 20;
  }
  return NULL;
}

static void ts_insert_doc(txn_t *tx, const cat_table_t *t, int64_t k)
{
  char body[TS_LONG];
  size_t len;
  ts_body(k, body, &len);
  datum_t row[3] = {{.d_i64 = k}, {.d_i64 = k % 7}, {.d_str = {body, (uint32_t)len}}};
  CT_OK(tbl_insert_row(tx, t, row, &e_));
}

static void test_threads_share_one_dispenser(void **state)
{
  (void)state;
  ct_env_t env;
  ct_init(&env, "split_threads");
  txn_t *tx = ct_begin(&env);
  cat_column_def_t cols[3] = {ct_col("k", TY_INT8, false), ct_col("g", TY_INT4, false),
                              ct_col("body", TY_TEXT, false)};
  int pk[1] = {0};
  cat_table_def_t def = {.td_name = "docs", .td_owner = 10, .td_ncols = 3, .td_cols = cols,
                         .td_npk = 1, .td_pk = pk};
  cat_oid_t docs;
  CT_OK(cat_create_table(env.ce_cat, tx, &def, &docs, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_oid_t side_oid = ts_nums(&env, 10);
  cat_snapshot_t *snap = cat_snapshot(env.ce_cat);
  const cat_table_t *t = cat_table_by_oid(snap, docs);
  tx = ct_begin(&env);
  for (int i = 0; i < TS_DOCS; i++)
    ts_insert_doc(tx, t, 3 * (int64_t)i);
  CT_OK(txn_commit(tx, &e_));
  ts_side_t side = {.sd_env = &env, .sd_t = cat_table_by_oid(snap, side_oid)};
  pthread_t side_th;
  assert_int_equal(pthread_create(&side_th, NULL, ts_side, &side), 0);
  datum_t in12[2] = {{.d_i64 = 1}, {.d_i64 = 2}};
  tbl_pred_t pred = {.tp_out = 1, .tp_op = TBP_IN, .tp_nvals = 2, .tp_vals = in12};
  for (int nthreads = 2; nthreads <= 4; nthreads++) {
    for (int filtered = 0; filtered < 2; filtered++) {
      tx = ct_begin(&env);
      /* the transaction's own uncommitted rows: the workers see them */
      for (int i = 0; i < 300; i++)
        ts_insert_doc(tx, t, 3 * (int64_t)(i * 17) + 1);
      arena_t *a = arena_create(NULL, "plain");
      int c3[3] = {0, 1, 2};
      tbl_scan_t *s;
      ts_rows_t plain = {0};
      CT_OK(tbl_scan_open(tx, t, 0, c3, 3, NULL, NULL, false, a, &s, &e_));
      if (filtered)
        CT_OK(tbl_scan_filter(s, &pred, 1, &e_));
      ts_drain(s, ts_types, 3, 128, a, &plain);
      tbl_scan_close(s);
      tbl_split_t *sp;
      CT_OK(tbl_scan_split(t, 0, NULL, NULL, 4 * nthreads, 0, a, &sp, &e_));
      assert_true(tbl_split_count(sp) > nthreads);
      tbl_morsels_t *m;
      CT_OK(tbl_morsels_new(tx, sp, a, &m, &e_));
      ts_worker_t w[4];
      pthread_t th[4];
      for (int i = 0; i < nthreads; i++) {
        w[i] = (ts_worker_t){.w_m = m, .w_tx = tx, .w_t = t, .w_preds = &pred,
                             .w_npred = filtered};
        assert_int_equal(pthread_create(&th[i], NULL, ts_worker, &w[i]), 0);
      }
      /* the session writes meanwhile (as INSERT … SELECT from the same
       * table would): rows after the dispenser's command stay out */
      for (int i = 0; i < 300; i++)
        ts_insert_doc(tx, t, 3 * (int64_t)(i * 13) + 2);
      ts_rows_t all = {0};
      int busy = 0;
      for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        if (w[i].w_err[0])
          fail_msg("worker %d: %s", i, w[i].w_err);
        busy += w[i].w_rows.r_n > 0;
        for (int r = 0; r < w[i].w_rows.r_n; r++)
          ts_add(&all, w[i].w_rows.r_k[r], w[i].w_rows.r_morsel[r]);
        ts_free(&w[i].w_rows);
      }
      assert_true(busy >= 1);
      assert_int_equal(all.r_n, plain.r_n);
      qsort(all.r_k, (size_t)all.r_n, sizeof *all.r_k, ts_cmp_i64);
      for (int r = 0; r < all.r_n; r++)
        assert_int_equal(all.r_k[r], plain.r_k[r]);
      assert_int_equal(tbl_morsels_taken(m), tbl_split_count(sp));
      ts_free(&all);
      ts_free(&plain);
      arena_destroy(a);
      CT_OK(txn_rollback(tx, &e_));
    }
  }
  atomic_store(&side.sd_stop, true);
  pthread_join(side_th, NULL);
  assert_true(side.sd_inserted > 0);
  cat_snapshot_release(snap);
  ct_fini(&env);
}

/* ---- a worker reading while its session writes --------------------------- */

#define TS_RACE_SCANS 400

typedef struct ts_race_s {
  tbl_morsels_t *rc_m[TS_RACE_SCANS];
  _Atomic bool rc_stop;
  int rc_scans;
  int rc_bad;                   /* scans that saw a row of the later command */
  int rc_bad_values;            /* rows seen with a value of the later command */
  int rc_base;
} ts_race_t;

static void *ts_race_reader(void *arg)
{
  ts_race_t *r = arg;
  arena_t *a = arena_create(NULL, "race");
  int cols[3] = {0, 1, 2};
  err_t e;
  batch_t *b = batch_create(a, 3, ts_types, 256, &e);
  for (int i = 0; i < TS_RACE_SCANS && !atomic_load(&r->rc_stop); i++) {
    tbl_scan_t *s;
    CT_OK(tbl_scan_open_morsels(r->rc_m[i], cols, 3, false, a, &s, &e_));
    int n = 0;
    for (;;) {
      arena_t *ba = arena_create(a, "batch");
      CT_OK(tbl_scan_next(s, b, ba, &e_));
      if (b->b_n == 0) {
        arena_destroy(ba);
        break;
      }
      n += b->b_n;
      for (int k = 0; k < b->b_n; k++)
        r->rc_bad_values += b->b_cols[2].v_str[k].s_len < 6 ||
                            memcmp(b->b_cols[2].v_str[k].s_ptr, "value-", 6) != 0;
      arena_destroy(ba);
    }
    tbl_scan_close(s);
    r->rc_scans++;
    r->rc_bad += n != r->rc_base;
  }
  arena_destroy(a);
  return NULL;
}

/* Updates the committed rows (k a multiple of 3) of t with from <= k <
 * below (v = 'updated'), through a scan with locators as UPDATE does.
 * Each key changes in one command only: txn/ keeps one level of history
 * per key (txn/README "Commands"). */
static void ts_update_rows(txn_t *tx, const cat_table_t *t, int64_t from, int64_t below)
{
  arena_t *a = arena_create(NULL, "update");
  int cols[3] = {0, 1, 2};
  ty_t types[4] = {ts_types[0], ts_types[1], ts_types[2], ty_plain(TY_BYTEA)};
  datum_t lo = {.d_i64 = from}, hi = {.d_i64 = below};
  tbl_bound_t L = {1, &lo, true}, H = {1, &hi, false};
  tbl_scan_t *s;
  CT_OK(tbl_scan_open(tx, t, 0, cols, 3, &L, &H, true, a, &s, &e_));
  err_t e;
  batch_t *b = batch_create(a, 4, types, 4096, &e);
  CT_OK(tbl_scan_next(s, b, a, &e_));
  tbl_scan_close(s);
  int *sel = arena_alloc(a, sizeof(int) * 4096), n = 0;
  for (int i = 0; i < b->b_n; i++) {
    b->b_cols[2].v_str[i].s_ptr = "updated";
    b->b_cols[2].v_str[i].s_len = 7;
    if (b->b_cols[0].v_i64[i] % 3 == 0)
      sel[n++] = i;
  }
  CT_OK(tbl_update(tx, t, b, 3, sel, n, &e_));
  arena_destroy(a);
}

/* The session inserts and updates rows while a worker of the same
 * transaction scans as of an earlier command: the worker never meets
 * them, not even in the instant between the tree change and the lock
 * entry's note of it (txn/ notes first). */
static void test_worker_never_sees_later_writes(void **state)
{
  (void)state;
  ct_env_t env;
  ct_init(&env, "split_race");
  enum { BASE = 3000 };
  cat_oid_t oid = ts_nums(&env, BASE);
  cat_snapshot_t *snap = cat_snapshot(env.ce_cat);
  const cat_table_t *t = cat_table_by_oid(snap, oid);
  txn_t *tx = ct_begin(&env);
  arena_t *a = arena_create(NULL, "race-main");
  static ts_race_t r;
  memset(&r, 0, sizeof r);
  r.rc_base = BASE;
  tbl_split_t *sp;
  CT_OK(tbl_scan_split(t, 0, NULL, NULL, 1, 0, a, &sp, &e_));
  for (int i = 0; i < TS_RACE_SCANS; i++)
    CT_OK(tbl_morsels_new(tx, sp, a, &r.rc_m[i], &e_));
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, ts_race_reader, &r), 0);
  for (int round = 0; round < 4 && r.rc_scans < TS_RACE_SCANS; round++)
    for (int i = 0; i < BASE; i++) {
      char v[64];
      snprintf(v, sizeof v, "later-%d", round);
      datum_t row[3] = {{.d_i64 = 3 * (int64_t)i + 1 + round * 100000000LL}, {.d_i64 = 1},
                        {.d_str = {v, (uint32_t)strlen(v)}}};
      CT_OK(tbl_insert_row(tx, t, row, &e_));
      if (round == 0 && i % 500 == 499)
        ts_update_rows(tx, t, 3 * (int64_t)(i - 499), 3 * (int64_t)(i + 1));
    }
  atomic_store(&r.rc_stop, true);
  pthread_join(th, NULL);
  assert_true(r.rc_scans > 0);
  if (r.rc_bad || r.rc_bad_values)
    fail_msg("%d of %d scans met rows written after their command, %d rows values updated after it",
             r.rc_bad, r.rc_scans, r.rc_bad_values);
  CT_OK(txn_rollback(tx, &e_));
  arena_destroy(a);
  cat_snapshot_release(snap);
  ct_fini(&env);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_split_covers_every_row_once),
    cmocka_unit_test(test_split_descends_levels),
    cmocka_unit_test(test_split_aligned_on_groups),
    cmocka_unit_test(test_threads_share_one_dispenser),
    cmocka_unit_test(test_worker_never_sees_later_writes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
