/* The table layer: key encoding order against datum_cmp over random
 * values, the row codec, inserts with NOT NULL and unique checks, scans
 * with bounds over the primary tree and secondary indexes (covering and
 * fetching), point lookups, updates and deletes through locators (stale
 * ones are 40001), tables without primary key, what a concurrent
 * reader sees of uncommitted rows, and CREATE INDEX against concurrent
 * writers.
 */
#include <pthread.h>

#include "../catalog/cat_test.h"

/* ---- key encoding ---------------------------------------------------- */

static int tt_sign(int x)
{
  return x < 0 ? -1 : x > 0;
}

static int tt_memcmp_len(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
  size_t m = al < bl ? al : bl;
  int c = memcmp(a, b, m);
  if (c)
    return tt_sign(c);
  return al < bl ? -1 : al > bl;
}

static uint64_t tt_rng;

static uint64_t tt_rand(void)
{
  tt_rng ^= tt_rng << 13;
  tt_rng ^= tt_rng >> 7;
  tt_rng ^= tt_rng << 17;
  return tt_rng;
}

static char tt_strpool[4096][8];

static void tt_random_datum(ty_t t, int i, datum_t *d)
{
  memset(d, 0, sizeof *d);
  if (tt_rand() % 16 == 0) {
    d->d_null = true;
    return;
  }
  switch (t.t_id) {
  case TY_BOOL:
    d->d_bool = tt_rand() & 1;
    break;
  case TY_INT2:
    d->d_i64 = (int16_t)tt_rand();
    break;
  case TY_INT4:
  case TY_DATE:
    d->d_i64 = (tt_rand() & 1) ? (int32_t)tt_rand() : (int32_t)(tt_rand() % 7) - 3;
    break;
  case TY_INT8:
  case TY_TIMESTAMP:
    d->d_i64 = (tt_rand() & 1) ? (int64_t)tt_rand() : (int64_t)(tt_rand() % 7) - 3;
    break;
  case TY_FLOAT8: {
    static const double special[] = { 0.0, -0.0, 1.0 / 0.0, -1.0 / 0.0, 1e-310, -1e-310 };
    uint64_t r = tt_rand() % 10;
    if (r < 6)
      d->d_f64 = special[r];
    else if (r == 6)
      d->d_f64 = __builtin_nan("");
    else
      d->d_f64 = ((double)(int64_t)tt_rand()) / (double)(1 + tt_rand() % 100000);
    break;
  }
  case TY_NUMERIC: {
    static const int64_t mags[] = { 1, 10, 1000, 1000000, 1000000000000ll };
    d->d_num.n_val = (__int128)((int64_t)(tt_rand() % 2000001) - 1000000) * mags[tt_rand() % 5];
    if (tt_rand() % 8 == 0)
      d->d_num.n_val *= (__int128)1000000000000000000ll;
    d->d_num.n_scale = (int16_t)(tt_rand() % 12);
    break;
  }
  case TY_INTERVAL: {
    /* small values that tie across parts (1 mon = 30 days) and extremes */
    static const int32_t lim[] = { 0, 1, -1, 30, INT32_MAX, INT32_MIN };
    uint64_t r = tt_rand();
    if (r % 3 == 0) {
      d->d_iv.iv_months = lim[tt_rand() % 6];
      d->d_iv.iv_days = lim[tt_rand() % 6];
      d->d_iv.iv_us = (tt_rand() & 1) ? (int64_t)(tt_rand() >> 1) * ((tt_rand() & 1) ? 1 : -1) : 0;
    } else {
      d->d_iv.iv_months = (int32_t)(tt_rand() % 5) - 2;
      d->d_iv.iv_days = (int32_t)(tt_rand() % 91) - 45;
      d->d_iv.iv_us = ((int64_t)(tt_rand() % 49) - 24) * INT64_C(3600000000);
    }
    break;
  }
  default: {
    char *s = tt_strpool[i % 4096];
    int n = (int)(tt_rand() % 7);
    for (int k = 0; k < n; k++)
      s[k] = "\0\001ab\xff"[tt_rand() % 5];
    d->d_str.s_ptr = s;
    d->d_str.s_len = (uint32_t)n;
  }
  }
}

/* SQL order with NULL last. */
static int tt_sql_cmp(ty_t t, const datum_t *a, const datum_t *b)
{
  if (a->d_null || b->d_null)
    return a->d_null == b->d_null ? 0 : a->d_null ? 1 : -1;
  return tt_sign(datum_cmp(ty_phys(t.t_id), a, b));
}

static void test_key_order_matches_datum_cmp(void **state)
{
  (void)state;
  tt_rng = cz_test_seed() | 1;
  static const ty_id_t ids[] = { TY_BOOL, TY_INT2, TY_INT4, TY_INT8, TY_FLOAT8, TY_NUMERIC,
                                 TY_VARCHAR, TY_BYTEA, TY_DATE, TY_TIMESTAMP, TY_INTERVAL };
  arena_t *a = arena_create(NULL, "keys");
  for (size_t ti = 0; ti < CZ_ARRAY_LEN(ids); ti++) {
    ty_t t = ty_plain(ids[ti]);
    for (int i = 0; i < 3000; i++) {
      datum_t x, y;
      tt_random_datum(t, 2 * i, &x);
      tt_random_datum(t, 2 * i + 1, &y);
      if (i % 5 == 0)
        y = x;
      uint8_t kx[128], ky[128];
      size_t lx = tbl_key_put(kx, sizeof kx, t, &x), ly = tbl_key_put(ky, sizeof ky, t, &y);
      assert_true(lx <= sizeof kx && ly <= sizeof ky);
      int want = tt_sql_cmp(t, &x, &y), got = tt_memcmp_len(kx, lx, ky, ly);
      if (want != got)
        fail_msg("type %d: order %d of the encodings, %d of the values", ids[ti], got, want);
      /* decoding gives an equal value and consumes exactly the encoding */
      datum_t back;
      size_t used;
      CT_OK(tbl_key_decode(&t, 1, kx, lx, a, &back, &used, &e_));
      assert_int_equal(used, lx);
      assert_int_equal(tt_sql_cmp(t, &x, &back), 0);
      assert_int_equal(back.d_null, x.d_null);
    }
  }
  /* composite keys order column by column, a prefix before its extensions */
  ty_t ct[2] = { ty_plain(TY_INT4), ty_plain(TY_TEXT) };
  for (int i = 0; i < 3000; i++) {
    datum_t x[2], y[2];
    for (int c = 0; c < 2; c++) {
      tt_random_datum(ct[c], 4 * i + c, &x[c]);
      tt_random_datum(ct[c], 4 * i + 2 + c, &y[c]);
    }
    if (i % 3 == 0)
      y[0] = x[0];
    uint8_t kx[128], ky[128];
    size_t lx, ly;
    CT_OK(tbl_key_encode(ct, x, 2, kx, sizeof kx, &lx, &e_));
    CT_OK(tbl_key_encode(ct, y, 2, ky, sizeof ky, &ly, &e_));
    int want = tt_sql_cmp(ct[0], &x[0], &y[0]);
    if (want == 0)
      want = tt_sql_cmp(ct[1], &x[1], &y[1]);
    assert_int_equal(tt_memcmp_len(kx, lx, ky, ly), want);
    size_t p = tbl_key_put(kx, sizeof kx, ct[0], &x[0]);
    assert_true(tt_memcmp_len(kx, p, kx, lx) <= 0);
  }
  uint8_t small[4];
  size_t len;
  datum_t big = { .d_null = false, .d_i64 = 5 };
  ty_t i8 = ty_plain(TY_INT8);
  CT_FAILS(SQLSTATE_PROGRAM_LIMIT, tbl_key_encode(&i8, &big, 1, small, sizeof small, &len, &e_));
  arena_destroy(a);
}

static void test_row_codec_roundtrip(void **state)
{
  (void)state;
  tt_rng = cz_test_seed() * 3 | 1;
  ty_t types[10] = { ty_plain(TY_BOOL), ty_plain(TY_INT2), ty_plain(TY_INT4), ty_plain(TY_INT8),
                     ty_plain(TY_FLOAT4), ty_plain(TY_FLOAT8), ty_plain(TY_NUMERIC),
                     ty_plain(TY_VARCHAR), ty_plain(TY_INTERVAL), ty_plain(TY_BYTEA) };
  arena_t *a = arena_create(NULL, "rows");
  for (int i = 0; i < 2000; i++) {
    datum_t row[10], back[12];
    for (int c = 0; c < 10; c++)
      tt_random_datum(types[c], 10 * i + c, &row[c]);
    if (!row[4].d_null)
      row[4].d_f64 = (float)row[4].d_f64;
    uint8_t buf[512];
    size_t len;
    CT_OK(tbl_row_encode(types, 10, row, buf, sizeof buf, &len, &e_));
    int cols[12] = { 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 6, 0 };
    CT_OK(tbl_row_decode(types, 10, buf, len, cols, 12, a, back, &e_));
    for (int k = 0; k < 12; k++) {
      const datum_t *want = &row[cols[k]];
      assert_int_equal(back[k].d_null, want->d_null);
      if (!want->d_null) {
        assert_int_equal(datum_cmp(ty_phys(types[cols[k]].t_id), &back[k], want), 0);
        if (types[cols[k]].t_id == TY_NUMERIC)
          assert_int_equal(back[k].d_num.n_scale, want->d_num.n_scale);
        if (types[cols[k]].t_id == TY_INTERVAL) /* the row keeps the three parts */
          assert_memory_equal(&back[k].d_iv, &want->d_iv, sizeof want->d_iv);
      }
    }
    /* a row written with fewer columns reads NULL in the later ones */
    CT_OK(tbl_row_encode(types, 3, row, buf, sizeof buf, &len, &e_));
    int late[2] = { 2, 7 };
    CT_OK(tbl_row_decode(types, 10, buf, len, late, 2, a, back, &e_));
    assert_int_equal(back[0].d_null, row[2].d_null);
    assert_true(back[1].d_null);
  }
  uint8_t bad[3] = { 0x7f, 0xff, 0xff };
  datum_t d;
  int c0 = 0;
  CT_FAILS(SQLSTATE_DATA_CORRUPTED, tbl_row_decode(types, 10, bad, sizeof bad, &c0, 1, a, &d, &e_));
  arena_destroy(a);
}

/* ---- a table ----------------------------------------------------------- */

typedef struct tt_tab_s {
  ct_env_t t;
  cat_oid_t oid;
  cat_oid_t name_ix;
} tt_tab_t;

/* people(id int4 primary key, name varchar not null, score float8), with
 * a unique index on name including score. */
static void tt_people(tt_tab_t *p, const char *name, bool with_index)
{
  ct_init(&p->t, name);
  txn_t *tx = ct_begin(&p->t);
  cat_column_def_t cols[3] = { ct_col("id", TY_INT4, false), ct_col("name", TY_VARCHAR, true),
                               ct_col("score", TY_FLOAT8, false) };
  int pk[1] = { 0 };
  cat_table_def_t def = { .td_name = "people", .td_owner = 10, .td_ncols = 3, .td_cols = cols,
                          .td_npk = 1, .td_pk = pk };
  CT_OK(cat_create_table(p->t.ce_cat, tx, &def, &p->oid, &e_));
  if (with_index) {
    int keys[1] = { 1 }, inc[1] = { 2 };
    cat_index_def_t ix = { .id_name = "people_name", .id_table = p->oid, .id_unique = true,
                           .id_nkeys = 1, .id_keys = keys, .id_ninclude = 1, .id_include = inc };
    CT_OK(tbl_create_index(p->t.ce_cat, tx, &ix, &p->name_ix, &e_));
  }
  CT_OK(txn_commit(tx, &e_));
}

static void tt_person(datum_t *row, int id, char *namebuf, double score)
{
  memset(row, 0, 3 * sizeof *row);
  row[0].d_i64 = id;
  snprintf(namebuf, 16, "n%05d", id);
  row[1].d_str.s_ptr = namebuf;
  row[1].d_str.s_len = (uint32_t)strlen(namebuf);
  row[2].d_f64 = score;
}

static void tt_insert_people(tt_tab_t *p, txn_t *tx, const cat_table_t *tb, int from, int to, int step)
{
  for (int i = from; i < to; i += step) {
    datum_t row[3];
    char nb[16];
    tt_person(row, i, nb, i * 0.5);
    CT_OK(tbl_insert_row(tx, tb, row, &e_));
  }
  (void)p;
}

/* Scans index idx with bounds (forward, or backward) and returns the ids
 * in the order read (via column 0); batches of 7 rows, so the cursor is
 * released and finds its place again many times. */
static int tt_scan_ids_dir(txn_t *tx, const cat_table_t *tb, int idx, const tbl_bound_t *lo,
                           const tbl_bound_t *hi, int *ids, int cap, bool backward)
{
  arena_t *a = arena_create(NULL, "scan");
  int cols[2] = { 0, 1 };
  ty_t types[2] = { ty_plain(TY_INT4), ty_plain(TY_VARCHAR) };
  tbl_scan_t *s;
  CT_OK(tbl_scan_open(tx, tb, idx, cols, 2, lo, hi, false, a, &s, &e_));
  if (backward)
    tbl_scan_backward(s);
  err_t e;
  batch_t *b = batch_create(a, 2, types, 7, &e);
  int n = 0;
  for (;;) {
    CT_OK(tbl_scan_next(s, b, a, &e_));
    if (b->b_n == 0)
      break;
    for (int r = 0; r < b->b_n; r++) {
      assert_true(n < cap);
      ids[n++] = (int)b->b_cols[0].v_i64[r];
      char want[16];
      snprintf(want, sizeof want, "n%05d", ids[n - 1]);
      assert_int_equal(b->b_cols[1].v_str[r].s_len, strlen(want));
      assert_memory_equal(b->b_cols[1].v_str[r].s_ptr, want, strlen(want));
    }
  }
  tbl_scan_close(s);
  arena_destroy(a);
  return n;
}

static int tt_scan_ids(txn_t *tx, const cat_table_t *tb, int idx, const tbl_bound_t *lo,
                       const tbl_bound_t *hi, int *ids, int cap)
{
  return tt_scan_ids_dir(tx, tb, idx, lo, hi, ids, cap, false);
}

/* Backward scans: the same rows as forward in the opposite order, for
 * every kind of bound, on the primary tree and on an index; rows the
 * reading transaction deleted itself stay out. */
static void test_backward_scan_bounds(void **state)
{
  (void)state;
  tt_tab_t p;
  tt_people(&p, "back", true);
  txn_t *tx = ct_begin(&p.t);
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  tt_insert_people(&p, tx, tb, 0, 1000, 1);
  CT_OK(txn_commit(tx, &e_));
  static int fwd[2000], back[2000];
  datum_t lo = { .d_i64 = 100 }, hi = { .d_i64 = 200 };
  datum_t nlo = { .d_str = { "n00500", 6 } }, nhi = { .d_str = { "n00509", 6 } };
  for (int idx = 0; idx < 2; idx++)
    for (int incl = 0; incl < 2; incl++)
      for (int ends = 0; ends < 4; ends++) {
        tbl_bound_t L = { 1, idx ? &nlo : &lo, incl }, H = { 1, idx ? &nhi : &hi, !incl };
        const tbl_bound_t *l = (ends & 1) ? &L : NULL, *h = (ends & 2) ? &H : NULL;
        int nf = tt_scan_ids_dir(NULL, tb, idx, l, h, fwd, 2000, false);
        int nb = tt_scan_ids_dir(NULL, tb, idx, l, h, back, 2000, true);
        assert_int_equal(nf, nb);
        assert_true(nf > 0);
        for (int i = 0; i < nf; i++)
          assert_int_equal(back[i], fwd[nf - 1 - i]);
      }
  /* its own deletes: gone from its backward scan, there for others */
  tx = ct_begin(&p.t);
  arena_t *a = arena_create(NULL, "del");
  int cols[1] = { 0 };
  ty_t types[2] = { ty_plain(TY_INT4), ty_plain(TY_BYTEA) };
  err_t e;
  batch_t *b = batch_create(a, 2, types, 2000, &e);
  tbl_scan_t *sc;
  CT_OK(tbl_scan_open(tx, tb, 0, cols, 1, NULL, NULL, true, a, &sc, &e_));
  CT_OK(tbl_scan_next(sc, b, a, &e_));
  tbl_scan_close(sc);
  for (int r = 0; r < b->b_n; r++)
    if (b->b_cols[0].v_i64[r] >= 995)
      CT_OK(tbl_delete_row(tx, tb, (const uint8_t *)b->b_cols[1].v_str[r].s_ptr,
                           b->b_cols[1].v_str[r].s_len, &e_));
  int nb = tt_scan_ids_dir(tx, tb, 0, NULL, NULL, back, 2000, true);
  assert_int_equal(nb, 995);
  assert_int_equal(back[0], 994);
  nb = tt_scan_ids_dir(NULL, tb, 0, NULL, NULL, back, 2000, true);
  assert_int_equal(nb, 1000);
  assert_int_equal(back[0], 999);
  CT_OK(txn_commit(tx, &e_));
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

static void test_insert_scan_bounds(void **state)
{
  (void)state;
  tt_tab_t p;
  tt_people(&p, "scan", true);
  txn_t *tx = ct_begin(&p.t);
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  /* inserted out of order */
  tt_insert_people(&p, tx, tb, 1, 1000, 2);
  tt_insert_people(&p, tx, tb, 0, 1000, 2);
  CT_OK(txn_commit(tx, &e_));
  static int ids[2000];
  int n = tt_scan_ids(NULL, tb, 0, NULL, NULL, ids, 2000);
  assert_int_equal(n, 1000);
  for (int i = 0; i < n; i++)
    assert_int_equal(ids[i], i);
  datum_t lo = { .d_i64 = 100 }, hi = { .d_i64 = 200 };
  tbl_bound_t L = { 1, &lo, true }, H = { 1, &hi, true };
  n = tt_scan_ids(NULL, tb, 0, &L, &H, ids, 2000);
  assert_int_equal(n, 101);
  assert_int_equal(ids[0], 100);
  assert_int_equal(ids[100], 200);
  L.tb_incl = false;
  H.tb_incl = false;
  n = tt_scan_ids(NULL, tb, 0, &L, &H, ids, 2000);
  assert_int_equal(n, 99);
  assert_int_equal(ids[0], 101);
  n = tt_scan_ids(NULL, tb, 0, NULL, &H, ids, 2000);
  assert_int_equal(n, 200);
  n = tt_scan_ids(NULL, tb, 0, &L, NULL, ids, 2000);
  assert_int_equal(n, 899);
  /* the index on name: a covered scan, then one that fetches rows */
  datum_t nlo = { .d_str = { "n00500", 6 } }, nhi = { .d_str = { "n00509", 6 } };
  tbl_bound_t NL = { 1, &nlo, true }, NH = { 1, &nhi, false };
  n = tt_scan_ids(NULL, tb, 1, &NL, &NH, ids, 2000);
  assert_int_equal(n, 9);
  for (int i = 0; i < n; i++)
    assert_int_equal(ids[i], 500 + i);
  arena_t *a = arena_create(NULL, "fetch");
  int cols[3] = { 2, 0, 1 };
  ty_t types[4] = { ty_plain(TY_FLOAT8), ty_plain(TY_INT4), ty_plain(TY_VARCHAR), ty_plain(TY_BYTEA) };
  err_t e;
  batch_t *b = batch_create(a, 4, types, 50, &e);
  tbl_scan_t *sc;
  CT_OK(tbl_scan_open(NULL, tb, 1, cols, 3, &NL, &NH, true, a, &sc, &e_));
  CT_OK(tbl_scan_next(sc, b, a, &e_));
  assert_int_equal(b->b_n, 9);
  for (int r = 0; r < 9; r++) {
    assert_int_equal(b->b_cols[1].v_i64[r], 500 + r);
    assert_true(b->b_cols[0].v_f64[r] == (500 + r) * 0.5);
    assert_true(b->b_cols[3].v_str[r].s_len > TBL_LOC_HASH);
  }
  CT_OK(tbl_scan_next(sc, b, a, &e_));
  assert_int_equal(b->b_n, 0);
  tbl_scan_close(sc);
  /* point lookups, unsorted, one missing */
  datum_t k[4] = { { .d_i64 = 900 }, { .d_i64 = 3 }, { .d_i64 = 5000 }, { .d_i64 = 42 } };
  const datum_t *keys[4] = { &k[0], &k[1], &k[2], &k[3] };
  bool found[4];
  CT_OK(tbl_lookup(NULL, tb, keys, 4, cols, 3, false, b, found, a, &e_));
  assert_true(found[0] && found[1] && !found[2] && found[3]);
  assert_int_equal(b->b_cols[1].v_i64[0], 900);
  assert_int_equal(b->b_cols[1].v_i64[1], 3);
  assert_true(b->b_cols[1].v_null[2]);
  assert_int_equal(b->b_cols[1].v_i64[3], 42);
  int64_t count;
  CT_OK(tbl_count(NULL, tb, &count, &e_));
  assert_int_equal(count, 1000);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

static void test_not_null_and_unique(void **state)
{
  (void)state;
  tt_tab_t p;
  tt_people(&p, "constraints", true);
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  txn_t *tx = ct_begin(&p.t);
  datum_t row[3];
  char nb[16];
  tt_person(row, 1, nb, 1);
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  err_t e;
  /* duplicate primary key */
  assert_int_equal(tbl_insert_row(tx, tb, row, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_UNIQUE_VIOLATION);
  assert_non_null(strstr(e.er_msg, "people_pkey"));
  /* duplicate name through the unique index */
  row[0].d_i64 = 2;
  assert_int_equal(tbl_insert_row(tx, tb, row, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_UNIQUE_VIOLATION);
  assert_non_null(strstr(e.er_msg, "people_name"));
  /* NOT NULL */
  row[1].d_null = true;
  assert_int_equal(tbl_insert_row(tx, tb, row, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_NOT_NULL_VIOLATION);
  assert_non_null(strstr(e.er_msg, "\"name\""));
  row[1].d_null = false;
  row[0].d_null = true;
  CT_FAILS(SQLSTATE_NOT_NULL_VIOLATION, tbl_insert_row(tx, tb, row, &e_));
  CT_OK(txn_rollback(tx, &e_));
  /* a failed CREATE UNIQUE INDEX over duplicates */
  tx = ct_begin(&p.t);
  for (int i = 0; i < 3; i++) {
    tt_person(row, 10 + i, nb, 7);
    CT_OK(tbl_insert_row(tx, tb, row, &e_));
  }
  CT_OK(txn_commit(tx, &e_));
  tx = ct_begin(&p.t);
  int keys[1] = { 2 };
  cat_index_def_t ix = { .id_table = p.oid, .id_unique = true, .id_nkeys = 1, .id_keys = keys };
  CT_FAILS(SQLSTATE_UNIQUE_VIOLATION, tbl_create_index(p.t.ce_cat, tx, &ix, NULL, &e_));
  CT_OK(txn_rollback(tx, &e_));
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

/* Reads every row with its locator: ids[i], locators in a. */
static int tt_rows_with_locs(txn_t *tx, const cat_table_t *tb, arena_t *a, int *ids, str_t *locs, int cap)
{
  int cols[1] = { 0 };
  ty_t types[2] = { tb->ct_types[0], ty_plain(TY_BYTEA) };
  tbl_scan_t *s;
  CT_OK(tbl_scan_open(tx, tb, 0, cols, 1, NULL, NULL, true, a, &s, &e_));
  err_t e;
  batch_t *b = batch_create(a, 2, types, 64, &e);
  int n = 0;
  for (;;) {
    CT_OK(tbl_scan_next(s, b, a, &e_));
    if (b->b_n == 0)
      break;
    for (int r = 0; r < b->b_n && n < cap; r++, n++) {
      ids[n] = b->b_cols[0].v_null[r] ? -1 : (int)b->b_cols[0].v_i64[r];
      locs[n] = b->b_cols[1].v_str[r];
    }
  }
  tbl_scan_close(s);
  return n;
}

static void test_update_delete_by_locator(void **state)
{
  (void)state;
  tt_tab_t p;
  tt_people(&p, "modify", true);
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  txn_t *tx = ct_begin(&p.t);
  tt_insert_people(&p, tx, tb, 0, 100, 1);
  CT_OK(txn_commit(tx, &e_));
  arena_t *a = arena_create(NULL, "locs");
  int ids[200];
  str_t locs[200];
  tx = ct_begin(&p.t);
  int n = tt_rows_with_locs(tx, tb, a, ids, locs, 200);
  assert_int_equal(n, 100);
  /* rename row 5 (index entry moves), move row 7 to id 1007 (primary key changes), delete row 9 */
  datum_t row[3];
  char nb[16];
  tt_person(row, 5, nb, 99);
  snprintf(nb, sizeof nb, "zz");
  row[1].d_str.s_len = 2;
  CT_OK(tbl_update_row(tx, tb, (const uint8_t *)locs[5].s_ptr, locs[5].s_len, row, &e_));
  char nb2[16];
  tt_person(row, 1007, nb2, 7);
  snprintf(nb2, sizeof nb2, "n%05d", 7);
  CT_OK(tbl_update_row(tx, tb, (const uint8_t *)locs[7].s_ptr, locs[7].s_len, row, &e_));
  CT_OK(tbl_delete_row(tx, tb, (const uint8_t *)locs[9].s_ptr, locs[9].s_len, &e_));
  /* a locator read before the row changed is stale */
  CT_FAILS(SQLSTATE_SERIALIZATION, tbl_update_row(tx, tb, (const uint8_t *)locs[5].s_ptr, locs[5].s_len, row, &e_));
  CT_FAILS(SQLSTATE_SERIALIZATION, tbl_delete_row(tx, tb, (const uint8_t *)locs[9].s_ptr, locs[9].s_len, &e_));
  CT_OK(txn_commit(tx, &e_));
  /* unique index value taken: the statement fails, the caller rolls back */
  tx = ct_begin(&p.t);
  tt_person(row, 11, nb, 1);
  snprintf(nb, sizeof nb, "n%05d", 12);
  CT_FAILS(SQLSTATE_UNIQUE_VIOLATION, tbl_update_row(tx, tb, (const uint8_t *)locs[11].s_ptr, locs[11].s_len, row, &e_));
  CT_OK(txn_rollback(tx, &e_));
  int64_t count;
  CT_OK(tbl_count(NULL, tb, &count, &e_));
  assert_int_equal(count, 99);
  /* the index follows: zz at the end, n00005 gone, n00007 points at 1007 */
  arena_reset(a);
  int cols[2] = { 1, 0 };
  ty_t types[2] = { ty_plain(TY_VARCHAR), ty_plain(TY_INT4) };
  err_t e;
  batch_t *b = batch_create(a, 2, types, 200, &e);
  tbl_scan_t *sc;
  CT_OK(tbl_scan_open(NULL, tb, 1, cols, 2, NULL, NULL, false, a, &sc, &e_));
  CT_OK(tbl_scan_next(sc, b, a, &e_));
  tbl_scan_close(sc);
  assert_int_equal(b->b_n, 99);
  assert_int_equal(b->b_cols[1].v_i64[98], 5);
  assert_memory_equal(b->b_cols[0].v_str[98].s_ptr, "zz", 2);
  assert_int_equal(b->b_cols[1].v_i64[5], 6);
  assert_int_equal(b->b_cols[1].v_i64[6], 1007);
  assert_int_equal(b->b_cols[1].v_i64[7], 8);
  assert_int_equal(b->b_cols[1].v_i64[8], 10);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

static void test_table_without_primary_key(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "rowid");
  txn_t *tx = ct_begin(&t);
  cat_column_def_t cols[2] = { ct_col("a", TY_INT8, false), ct_col("b", TY_TEXT, false) };
  cat_table_def_t def = { .td_name = "heap", .td_owner = 10, .td_ncols = 2, .td_cols = cols };
  cat_oid_t oid;
  CT_OK(cat_create_table(t.ce_cat, tx, &def, &oid, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_t *s = cat_snapshot(t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, oid);
  tx = ct_begin(&t);
  for (int i = 0; i < 50; i++) {
    datum_t row[2] = { { .d_i64 = i % 3 }, { .d_null = true } };
    CT_OK(tbl_insert_row(tx, tb, row, &e_)); /* duplicates are fine */
  }
  CT_OK(txn_commit(tx, &e_));
  arena_t *a = arena_create(NULL, "rowid");
  int ids[100];
  str_t locs[100];
  tx = ct_begin(&t);
  int n = tt_rows_with_locs(tx, tb, a, ids, locs, 100);
  assert_int_equal(n, 50);
  for (int i = 0; i < n; i++)
    assert_int_equal(ids[i], i % 3); /* in insertion order */
  datum_t row[2] = { { .d_i64 = 77 }, { .d_str = { "x", 1 } } };
  CT_OK(tbl_update_row(tx, tb, (const uint8_t *)locs[0].s_ptr, locs[0].s_len, row, &e_));
  CT_OK(tbl_delete_row(tx, tb, (const uint8_t *)locs[1].s_ptr, locs[1].s_len, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_release(s);
  arena_destroy(a);
  /* after a restart new row ids continue after the old ones */
  ct_close(&t, false);
  ct_open_only(&t);
  s = cat_snapshot(t.ce_cat);
  tb = cat_table_by_oid(s, oid);
  tx = ct_begin(&t);
  datum_t r2[2] = { { .d_i64 = 1000 }, { .d_null = true } };
  CT_OK(tbl_insert_row(tx, tb, r2, &e_));
  CT_OK(txn_commit(tx, &e_));
  a = arena_create(NULL, "rowid2");
  n = tt_rows_with_locs(NULL, tb, a, ids, locs, 100);
  assert_int_equal(n, 50);
  assert_int_equal(ids[0], 77);
  assert_int_equal(ids[n - 1], 1000);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&t);
}

static void test_uncommitted_rows_hidden(void **state)
{
  (void)state;
  tt_tab_t p;
  tt_people(&p, "hidden", true);
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  txn_t *tx = ct_begin(&p.t);
  tt_insert_people(&p, tx, tb, 0, 10, 1);
  CT_OK(txn_commit(tx, &e_));
  arena_t *a = arena_create(NULL, "hidden");
  int ids[64];
  str_t locs[64];
  txn_t *w = ct_begin(&p.t);
  tt_insert_people(&p, w, tb, 10, 20, 1);
  int n = tt_rows_with_locs(w, tb, a, ids, locs, 64);
  assert_int_equal(n, 20);
  CT_OK(tbl_delete_row(w, tb, (const uint8_t *)locs[0].s_ptr, locs[0].s_len, &e_));
  /* others: the 10 committed rows, row 0 included; through the index too */
  static int got[64];
  assert_int_equal(tt_scan_ids(NULL, tb, 0, NULL, NULL, got, 64), 10);
  assert_int_equal(got[0], 0);
  assert_int_equal(tt_scan_ids(NULL, tb, 1, NULL, NULL, got, 64), 10);
  /* the writer: its own view */
  assert_int_equal(tt_scan_ids(w, tb, 0, NULL, NULL, got, 64), 19);
  assert_int_equal(tt_scan_ids(w, tb, 1, NULL, NULL, got, 64), 19);
  /* a second writer inserting a name the first one holds waits; here it
   * would block, so only check that a different name goes through */
  CT_OK(txn_commit(w, &e_));
  assert_int_equal(tt_scan_ids(NULL, tb, 0, NULL, NULL, got, 64), 19);
  assert_int_equal(tt_scan_ids(NULL, tb, 1, NULL, NULL, got, 64), 19);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

static void test_delete_then_drop_replays(void **state)
{
  (void)state;
  tt_tab_t p;
  tt_people(&p, "deldrop", true);
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  txn_t *tx = ct_begin(&p.t);
  tt_insert_people(&p, tx, tb, 0, 20, 1);
  CT_OK(txn_commit(tx, &e_));
  arena_t *a = arena_create(NULL, "deldrop");
  int ids[64];
  str_t locs[64];
  tx = ct_begin(&p.t);
  int n = tt_rows_with_locs(tx, tb, a, ids, locs, 64);
  for (int i = 0; i < n; i += 2)
    CT_OK(tbl_delete_row(tx, tb, (const uint8_t *)locs[i].s_ptr, locs[i].s_len, &e_));
  CT_OK(cat_drop_table(p.t.ce_cat, tx, p.oid, &e_));
  CT_OK(txn_commit(tx, &e_));
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_close(&p.t, false); /* the log replays the deletes and the drop */
  ct_open_only(&p.t);
  s = cat_snapshot(p.t.ce_cat);
  assert_null(cat_find_table(s, NULL, "people"));
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

typedef struct tt_job_s {
  ct_env_t *t;
  const cat_table_t *tb;
  int rc;
  char state[6];
  volatile int done;
} tt_job_t;

static void *tt_insert_same_name(void *arg)
{
  tt_job_t *j = arg;
  txn_t *tx = ct_begin(j->t);
  datum_t row[3];
  char nb[16];
  tt_person(row, 2, nb, 0);
  snprintf(nb, sizeof nb, "n%05d", 1);
  err_t e;
  err_clear(&e);
  j->rc = tbl_insert_row(tx, j->tb, row, &e);
  memcpy(j->state, e.er_sqlstate, 6);
  err_t e2;
  if (j->rc == CZ_OK)
    j->rc = txn_commit(tx, &e2);
  else
    txn_rollback(tx, &e2);
  j->done = 1;
  return NULL;
}

static void tt_unique_race(bool commit_first)
{
  tt_tab_t p;
  tt_people(&p, "race", true);
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  txn_t *tx = ct_begin(&p.t);
  tt_insert_people(&p, tx, tb, 1, 2, 1); /* id 1, name n00001, uncommitted */
  tt_job_t j = { .t = &p.t, .tb = tb };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, tt_insert_same_name, &j), 0);
  time_sleep_us(50000);
  assert_false(j.done); /* waits on the index value */
  if (commit_first)
    CT_OK(txn_commit(tx, &e_));
  else
    CT_OK(txn_rollback(tx, &e_));
  pthread_join(th, NULL);
  if (commit_first) {
    assert_int_equal(j.rc, CZ_ERR);
    assert_string_equal(j.state, SQLSTATE_UNIQUE_VIOLATION);
  } else {
    assert_int_equal(j.rc, CZ_OK);
  }
  int64_t count;
  CT_OK(tbl_count(NULL, tb, &count, &e_));
  assert_int_equal(count, 1);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

static void test_unique_value_waits_for_inserter(void **state)
{
  (void)state;
  tt_unique_race(true);
  tt_unique_race(false);
}

/* CREATE INDEX against concurrent writers (the index-build gate): the
 * build waits for another transaction's uncommitted rows, refuses new
 * writes while it runs (40001), and afterwards a writer still holding the
 * old snapshot (without the index) is refused too; the index then has
 * exactly the table's rows. Without the gate the rows committed after the
 * build read past them were missing from the index. */
typedef struct tt_build_s {
  ct_env_t *t;
  cat_oid_t table;
  int rc;
  volatile int done;
} tt_build_t;

static void *tt_build_name_index(void *arg)
{
  tt_build_t *b = arg;
  txn_t *tx = ct_begin(b->t);
  int keys[1] = { 1 };
  cat_index_def_t ix = { .id_name = "gate_name", .id_table = b->table, .id_nkeys = 1,
                         .id_keys = keys };
  err_t e;
  b->rc = tbl_create_index(b->t->ce_cat, tx, &ix, NULL, &e);
  if (b->rc == CZ_OK)
    b->rc = txn_commit(tx, &e);
  else
    txn_rollback(tx, &e);
  b->done = 1;
  return NULL;
}

static void test_create_index_gate(void **state)
{
  (void)state;
  tt_tab_t p;
  tt_people(&p, "gate", false);
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  txn_t *tx = ct_begin(&p.t);
  tt_insert_people(&p, tx, tb, 0, 10, 1);
  CT_OK(txn_commit(tx, &e_));
  txn_t *w = ct_begin(&p.t);
  tt_insert_people(&p, w, tb, 10, 20, 1); /* uncommitted when the build starts */
  tt_build_t b = { .t = &p.t, .table = p.oid };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, tt_build_name_index, &b), 0);
  time_sleep_us(100000);
  assert_false(b.done); /* waits for w's rows */
  txn_t *w2 = ct_begin(&p.t);
  datum_t row[3];
  char nb[16];
  tt_person(row, 30, nb, 0);
  CT_FAILS(SQLSTATE_SERIALIZATION, tbl_insert_row(w2, tb, row, &e_));
  CT_OK(txn_rollback(w2, &e_));
  CT_OK(txn_commit(w, &e_));
  pthread_join(th, NULL);
  assert_int_equal(b.rc, CZ_OK);
  /* the old snapshot lacks the index: its writers are refused */
  w2 = ct_begin(&p.t);
  CT_FAILS(SQLSTATE_SERIALIZATION, tbl_insert_row(w2, tb, row, &e_));
  CT_OK(txn_rollback(w2, &e_));
  cat_snapshot_t *s2 = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb2 = cat_table_by_oid(s2, p.oid);
  assert_int_equal(tb2->ct_nindexes, 2);
  w2 = ct_begin(&p.t);
  CT_OK(tbl_insert_row(w2, tb2, row, &e_));
  CT_OK(txn_commit(w2, &e_));
  static int got[64];
  assert_int_equal(tt_scan_ids(NULL, tb2, 0, NULL, NULL, got, 64), 21);
  assert_int_equal(tt_scan_ids(NULL, tb2, 1, NULL, NULL, got, 64), 21);
  cat_snapshot_release(s2);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

/* UPDATE id = id + 1000 over a scan in small batches: every row exactly
 * once (the scan does not meet the moved rows); INSERT ... SELECT from the
 * same table ends. */
static void test_statement_does_not_see_its_own_rows(void **state)
{
  (void)state;
  tt_tab_t p;
  tt_people(&p, "halloween", true);
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  txn_t *tx = ct_begin(&p.t);
  tt_insert_people(&p, tx, tb, 0, 100, 1);
  CT_OK(txn_commit(tx, &e_));
  tx = ct_begin(&p.t);
  arena_t *a = arena_create(NULL, "halloween");
  int cols[3] = { 0, 1, 2 };
  ty_t types[4] = { tb->ct_types[0], tb->ct_types[1], tb->ct_types[2], ty_plain(TY_BYTEA) };
  err_t e;
  batch_t *b = batch_create(a, 4, types, 7, &e);
  tbl_scan_t *sc;
  CT_OK(tbl_scan_open(tx, tb, 0, cols, 3, NULL, NULL, true, a, &sc, &e_));
  int updated = 0;
  for (;;) {
    CT_OK(tbl_scan_next(sc, b, a, &e_));
    if (b->b_n == 0)
      break;
    for (int r = 0; r < b->b_n; r++)
      b->b_cols[0].v_i64[r] += 1000;
    CT_OK(tbl_update(tx, tb, b, 3, NULL, b->b_n, &e_));
    updated += b->b_n;
    assert_true(updated <= 100); /* a row met twice */
  }
  tbl_scan_close(sc);
  assert_int_equal(updated, 100);
  /* the next statement sees the moved rows */
  static int ids[300];
  str_t locs[300];
  assert_int_equal(tt_rows_with_locs(tx, tb, a, ids, locs, 300), 100);
  assert_int_equal(ids[0], 1000);
  assert_int_equal(ids[99], 1099);
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_release(s);
  arena_destroy(a);
  ct_fini(&p.t);

  /* INSERT INTO heap SELECT * FROM heap */
  ct_env_t t;
  ct_init(&t, "insert_select");
  tx = ct_begin(&t);
  cat_column_def_t hc[1] = { ct_col("a", TY_INT8, false) };
  cat_table_def_t def = { .td_name = "heap", .td_owner = 10, .td_ncols = 1, .td_cols = hc };
  cat_oid_t oid;
  CT_OK(cat_create_table(t.ce_cat, tx, &def, &oid, &e_));
  CT_OK(txn_commit(tx, &e_));
  s = cat_snapshot(t.ce_cat);
  tb = cat_table_by_oid(s, oid);
  tx = ct_begin(&t);
  for (int i = 0; i < 10; i++) {
    datum_t d = { .d_i64 = i };
    CT_OK(tbl_insert_row(tx, tb, &d, &e_));
  }
  a = arena_create(NULL, "insert_select");
  int c0[1] = { 0 };
  b = batch_create(a, 1, tb->ct_types, 3, &e);
  CT_OK(tbl_scan_open(tx, tb, 0, c0, 1, NULL, NULL, false, a, &sc, &e_));
  int copied = 0;
  for (;;) {
    CT_OK(tbl_scan_next(sc, b, a, &e_));
    if (b->b_n == 0)
      break;
    CT_OK(tbl_insert(tx, tb, b, NULL, b->b_n, &e_));
    copied += b->b_n;
    assert_true(copied <= 10);
  }
  tbl_scan_close(sc);
  int64_t count;
  CT_OK(tbl_count(tx, tb, &count, &e_));
  assert_int_equal(count, 20);
  CT_OK(txn_commit(tx, &e_));
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&t);
}

static void test_bulk_insert_batches(void **state)
{
  (void)state;
  tt_tab_t p;
  tt_people(&p, "bulk", false);
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  err_t e;
  txn_t *tx = txn_begin(p.t.ce_db, TXN_BULK, &e);
  assert_non_null(tx);
  arena_t *a = arena_create(NULL, "bulk");
  batch_t *b = batch_create(a, 3, tb->ct_types, 500, &e);
  static char names[500][16];
  for (int round = 0; round < 4; round++) {
    b->b_n = 500;
    for (int r = 0; r < 500; r++) {
      int id = round + 4 * (499 - r); /* descending inside a batch, interleaved across */
      datum_t row[3];
      tt_person(row, id, names[r], id);
      for (int c = 0; c < 3; c++) {
        b->b_cols[c].v_null[r] = 0;
      }
      b->b_cols[0].v_i64[r] = row[0].d_i64;
      b->b_cols[1].v_str[r] = row[1].d_str;
      b->b_cols[2].v_f64[r] = row[2].d_f64;
    }
    CT_OK(tbl_insert(tx, tb, b, NULL, 500, &e_));
  }
  /* a duplicate in bulk mode is still 23505 */
  CT_FAILS(SQLSTATE_UNIQUE_VIOLATION, tbl_insert(tx, tb, b, NULL, 2, &e_));
  CT_OK(txn_commit(tx, &e_));
  static int ids[3000];
  assert_int_equal(tt_scan_ids(NULL, tb, 0, NULL, NULL, ids, 3000), 2000);
  for (int i = 0; i < 2000; i++)
    assert_int_equal(ids[i], i);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

/* tbl_insert_batch into a table whose secondary index is not unique (the
 * RDF loader's rdf_quad): the rows and the index entries each go in as
 * one sorted batch, in a logged transaction; the index then reads every
 * row in its order, and a rolled-back batch leaves neither rows nor
 * entries. */
static void tt_fill_batch(batch_t *b, int round, char names[][16])
{
  b->b_n = 500;
  for (int r = 0; r < 500; r++) {
    int id = round + 4 * (499 - r); /* descending inside a batch, interleaved across */
    datum_t row[3];
    tt_person(row, id, names[r], id);
    for (int c = 0; c < 3; c++)
      b->b_cols[c].v_null[r] = 0;
    b->b_cols[0].v_i64[r] = row[0].d_i64;
    b->b_cols[1].v_str[r] = row[1].d_str;
    b->b_cols[2].v_f64[r] = row[2].d_f64;
  }
}

static void test_batch_insert_nonunique_index(void **state)
{
  (void)state;
  tt_tab_t p;
  tt_people(&p, "batchix", false);
  txn_t *tx = ct_begin(&p.t);
  int keys[1] = { 1 };
  cat_oid_t ixoid;
  cat_index_def_t ix = { .id_name = "people_name_nu", .id_table = p.oid, .id_unique = false,
                         .id_nkeys = 1, .id_keys = keys };
  CT_OK(tbl_create_index(p.t.ce_cat, tx, &ix, &ixoid, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  assert_int_equal(tb->ct_nindexes, 2);
  err_t e;
  arena_t *a = arena_create(NULL, "batchix");
  batch_t *b = batch_create(a, 3, tb->ct_types, 500, &e);
  static char names[4][500][16];
  tx = txn_begin(p.t.ce_db, 0, &e);
  assert_non_null(tx);
  for (int round = 0; round < 3; round++) {
    tt_fill_batch(b, round, names[round]);
    CT_OK(tbl_insert_batch(tx, tb, b, 500, &e_));
  }
  CT_OK(txn_commit(tx, &e_));
  static int ids[3000];
  assert_int_equal(tt_scan_ids(NULL, tb, 1, NULL, NULL, ids, 3000), 1500);
  for (int i = 1; i < 1500; i++)
    assert_true(ids[i - 1] < ids[i]);
  /* a batch rolled back leaves nothing in the table or the index */
  tx = txn_begin(p.t.ce_db, 0, &e);
  tt_fill_batch(b, 3, names[3]);
  CT_OK(tbl_insert_batch(tx, tb, b, 500, &e_));
  txn_rollback(tx, NULL);
  assert_int_equal(tt_scan_ids(NULL, tb, 1, NULL, NULL, ids, 3000), 1500);
  assert_int_equal(tt_scan_ids(NULL, tb, 0, NULL, NULL, ids, 3000), 1500);
  /* a duplicate primary key in a batch is still 23505 */
  tx = txn_begin(p.t.ce_db, 0, &e);
  tt_fill_batch(b, 0, names[0]);
  CT_FAILS(SQLSTATE_UNIQUE_VIOLATION, tbl_insert_batch(tx, tb, b, 2, &e_));
  txn_rollback(tx, NULL);
  assert_int_equal(tt_scan_ids(NULL, tb, 1, NULL, NULL, ids, 3000), 1500);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_key_order_matches_datum_cmp),
    cmocka_unit_test(test_row_codec_roundtrip),
    cmocka_unit_test(test_insert_scan_bounds),
    cmocka_unit_test(test_backward_scan_bounds),
    cmocka_unit_test(test_not_null_and_unique),
    cmocka_unit_test(test_update_delete_by_locator),
    cmocka_unit_test(test_table_without_primary_key),
    cmocka_unit_test(test_uncommitted_rows_hidden),
    cmocka_unit_test(test_delete_then_drop_replays),
    cmocka_unit_test(test_unique_value_waits_for_inserter),
    cmocka_unit_test(test_statement_does_not_see_its_own_rows),
    cmocka_unit_test(test_bulk_insert_batches),
    cmocka_unit_test(test_batch_insert_nonunique_index),
    cmocka_unit_test(test_create_index_gate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
