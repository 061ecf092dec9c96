/* Out-of-line (long) values: TEXT and BYTEA values of 0 B, 1 KB, 100 KB and
 * 5 MB through insert, select, update and delete; rollback; restart by log
 * replay and after a checkpoint; a concurrent reader during an uncommitted
 * update (and while updates commit under it); projection that reads no
 * chunk; the index key limit (54000); DROP TABLE; a database whose table
 * lacks its long-values tree; bulk inserts; a row too wide even with
 * every value out of line.
 */
#include <pthread.h>
#include <sched.h>

#include "../catalog/cat_test.h"

#define KB 1024
#define MB (1024 * 1024)

/* docs(id int4 primary key, title text, body text, data bytea) */
typedef struct tl_s {
  ct_env_t t;
  cat_oid_t oid;
} tl_t;

static void tl_open(tl_t *d, const char *name, bool index_on_title)
{
  ct_init(&d->t, name);
  txn_t *tx = ct_begin(&d->t);
  cat_column_def_t cols[4] = { ct_col("id", TY_INT4, false), ct_col("title", TY_TEXT, false),
                               ct_col("body", TY_TEXT, false), ct_col("data", TY_BYTEA, false) };
  int pk[1] = { 0 };
  cat_table_def_t def = { .td_name = "docs", .td_owner = 10, .td_ncols = 4, .td_cols = cols,
                          .td_npk = 1, .td_pk = pk };
  CT_OK(cat_create_table(d->t.ce_cat, tx, &def, &d->oid, &e_));
  if (index_on_title) {
    int keys[1] = { 1 };
    cat_index_def_t ix = { .id_name = "docs_title", .id_table = d->oid, .id_nkeys = 1, .id_keys = keys };
    CT_OK(tbl_create_index(d->t.ce_cat, tx, &ix, NULL, &e_));
  }
  CT_OK(txn_commit(tx, &e_));
}

/* A value of len bytes determined by seed: printable for text, every byte
 * value (zeros included) for bytea. */
static char *tl_val(size_t len, unsigned seed, bool binary)
{
  char *p = malloc(len ? len : 1);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < len; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p[i] = binary ? (char)(x & 0xff) : (char)('a' + x % 26);
  }
  return p;
}

static datum_t tl_str(const char *p, size_t len)
{
  datum_t d;
  memset(&d, 0, sizeof d);
  d.d_str.s_ptr = p;
  d.d_str.s_len = (uint32_t)len;
  return d;
}

static void tl_row(datum_t *row, int id, const char *title, size_t tl, const char *body, size_t bl,
                   const char *data, size_t dl)
{
  memset(row, 0, 4 * sizeof *row);
  row[0].d_i64 = id;
  row[1] = title ? tl_str(title, tl) : (datum_t){ .d_null = true };
  row[2] = body ? tl_str(body, bl) : (datum_t){ .d_null = true };
  row[3] = data ? tl_str(data, dl) : (datum_t){ .d_null = true };
}

/* Reads row id's columns cols (through a scan of the primary tree with
 * bounds id..id) into out (copied into a); returns whether it was found;
 * loc (may be NULL) gets its locator. */
static bool tl_get(txn_t *tx, const cat_table_t *tb, int id, const int *cols, int ncols, arena_t *a,
                   datum_t *out, str_t *loc)
{
  datum_t key = { .d_i64 = id };
  tbl_bound_t lo = { 1, &key, true }, hi = { 1, &key, true };
  ty_t types[5];
  for (int i = 0; i < ncols; i++)
    types[i] = tb->ct_types[cols[i]];
  types[ncols] = ty_plain(TY_BYTEA);
  tbl_scan_t *s;
  CT_OK(tbl_scan_open(tx, tb, 0, cols, ncols, &lo, &hi, loc != NULL, a, &s, &e_));
  err_t e;
  batch_t *b = batch_create(a, ncols + 1, types, 4, &e);
  assert_non_null(b);
  CT_OK(tbl_scan_next(s, b, a, &e_));
  bool found = b->b_n == 1;
  if (found) {
    for (int i = 0; i < ncols; i++) {
      memset(&out[i], 0, sizeof out[i]);
      out[i].d_null = b->b_cols[i].v_null[0];
      if (!out[i].d_null && ty_phys(types[i].t_id) == TP_STR)
        out[i].d_str = b->b_cols[i].v_str[0];
      else if (!out[i].d_null)
        out[i].d_i64 = b->b_cols[i].v_i64[0];
    }
    if (loc)
      *loc = b->b_cols[ncols].v_str[0];
  }
  tbl_scan_close(s);
  return found;
}

static void tl_expect(const datum_t *d, const char *want, size_t len)
{
  if (!want) {
    assert_true(d->d_null);
    return;
  }
  assert_false(d->d_null);
  assert_int_equal(d->d_str.s_len, len);
  if (len)
    assert_memory_equal(d->d_str.s_ptr, want, len);
}

static uint64_t tl_entries(bt_tree_t *t)
{
  bt_check_t bc;
  CT_OK(bt_check(t, &bc, &e_));
  return bc.bc_entries;
}

static tbl_stats_t tl_stats(void)
{
  tbl_stats_t st;
  tbl_get_stats(&st);
  return st;
}

/* The sizes of the brief: text and bytea of 0 B, 1 KB, 100 KB, 5 MB (and
 * 1000 B, the largest value kept in the row). */
static const size_t tl_sizes[] = { 0, 1000, KB, 100 * KB, 5 * MB };
#define TL_NSIZES 5

static void test_long_insert_select_update_delete(void **state)
{
  (void)state;
  tl_t d;
  tl_open(&d, "long_crud", false);
  cat_snapshot_t *s = cat_snapshot(d.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, d.oid);
  char *body[TL_NSIZES], *data[TL_NSIZES];
  tbl_stats_t st0 = tl_stats();
  txn_t *tx = ct_begin(&d.t);
  int expect_out = 0;
  for (int i = 0; i < TL_NSIZES; i++) {
    body[i] = tl_val(tl_sizes[i], (unsigned)i + 1, false);
    data[i] = tl_val(tl_sizes[i], (unsigned)i + 100, true);
    datum_t row[4];
    tl_row(row, i, "t", 1, body[i], tl_sizes[i], data[i], tl_sizes[i]);
    CT_OK(tbl_insert_row(tx, tb, row, &e_));
    expect_out += tl_sizes[i] > 1000 ? 2 : 0;
  }
  CT_OK(txn_commit(tx, &e_));
  tbl_stats_t st1 = tl_stats();
  assert_int_equal(st1.ts_long_stored - st0.ts_long_stored, expect_out);
  uint64_t chunks = tl_entries(tb->ct_long_tree);
  assert_true(chunks >= 2 * (5 * MB / 1900));
  bt_check_t bc;
  CT_OK(bt_check(tb->ct_long_tree, &bc, &e_));
  assert_true(bc.bc_entries >= 3 * bc.bc_leaves); /* 4 chunks a leaf when appended */

  /* select every column: the values come back whole */
  arena_t *a = arena_create(NULL, "crud");
  int all[4] = { 0, 1, 2, 3 };
  datum_t got[4];
  for (int i = 0; i < TL_NSIZES; i++) {
    assert_true(tl_get(NULL, tb, i, all, 4, a, got, NULL));
    tl_expect(&got[2], body[i], tl_sizes[i]);
    tl_expect(&got[3], data[i], tl_sizes[i]);
  }
  /* projection: `select id, title` reads no chunk */
  tbl_stats_t before = tl_stats();
  int idt[2] = { 0, 1 };
  for (int i = 0; i < TL_NSIZES; i++)
    assert_true(tl_get(NULL, tb, i, idt, 2, a, got, NULL));
  int64_t n;
  CT_OK(tbl_count(NULL, tb, &n, &e_));
  assert_int_equal(n, TL_NSIZES);
  tbl_stats_t after = tl_stats();
  assert_int_equal(after.ts_long_chunks, before.ts_long_chunks);
  assert_int_equal(after.ts_long_fetched, before.ts_long_fetched);
  /* only the wanted long column is read: 5 MB body, not data */
  int idb[2] = { 0, 2 };
  assert_true(tl_get(NULL, tb, 4, idb, 2, a, got, NULL));
  tl_expect(&got[1], body[4], 5 * MB);
  after = tl_stats();
  assert_int_equal(after.ts_long_fetched - before.ts_long_fetched, 1);
  assert_int_equal(after.ts_long_chunks - before.ts_long_chunks, (5 * MB + 1899) / 1900);

  /* update of another column keeps the long values (nothing written) */
  str_t loc;
  assert_true(tl_get(NULL, tb, 4, all, 4, a, got, &loc));
  before = tl_stats();
  tx = ct_begin(&d.t);
  datum_t row[4];
  tl_row(row, 4, "renamed", 7, got[2].d_str.s_ptr, got[2].d_str.s_len, got[3].d_str.s_ptr,
         got[3].d_str.s_len);
  CT_OK(tbl_update_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  assert_int_equal(tl_stats().ts_long_stored, before.ts_long_stored);
  assert_int_equal(tl_entries(tb->ct_long_tree), chunks);
  assert_true(tl_get(NULL, tb, 4, all, 4, a, got, &loc));
  tl_expect(&got[1], "renamed", 7);
  tl_expect(&got[2], body[4], 5 * MB);

  /* update replacing the 5 MB body by 100 KB: the old chunks go at commit */
  char *nb = tl_val(100 * KB, 77, false);
  tx = ct_begin(&d.t);
  tl_row(row, 4, "renamed", 7, nb, 100 * KB, data[4], 5 * MB);
  CT_OK(tbl_update_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  uint64_t c2 = tl_entries(tb->ct_long_tree);
  assert_int_equal(c2, chunks - (5 * MB + 1899) / 1900 + (100 * KB + 1899) / 1900);
  assert_true(tl_get(NULL, tb, 4, all, 4, a, got, &loc));
  tl_expect(&got[2], nb, 100 * KB);
  tl_expect(&got[3], data[4], 5 * MB);
  /* a long value becoming short (and one becoming NULL) frees its chunks */
  tx = ct_begin(&d.t);
  tl_row(row, 4, "renamed", 7, "short", 5, NULL, 0);
  CT_OK(tbl_update_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  assert_int_equal(tl_entries(tb->ct_long_tree), chunks - 2 * ((5 * MB + 1899) / 1900));
  assert_true(tl_get(NULL, tb, 4, all, 4, a, got, NULL));
  tl_expect(&got[2], "short", 5);
  tl_expect(&got[3], NULL, 0);

  /* delete every row: no chunk is left */
  tx = ct_begin(&d.t);
  for (int i = 0; i < TL_NSIZES; i++) {
    assert_true(tl_get(tx, tb, i, idt, 2, a, got, &loc));
    CT_OK(tbl_delete_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, &e_));
  }
  CT_OK(txn_commit(tx, &e_));
  assert_int_equal(tl_entries(tb->ct_long_tree), 0);
  CT_OK(tbl_count(NULL, tb, &n, &e_));
  assert_int_equal(n, 0);
  for (int i = 0; i < TL_NSIZES; i++) {
    free(body[i]);
    free(data[i]);
  }
  free(nb);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&d.t);
}

static void test_long_rollback(void **state)
{
  (void)state;
  tl_t d;
  tl_open(&d, "long_rollback", false);
  cat_snapshot_t *s = cat_snapshot(d.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, d.oid);
  char *v1 = tl_val(100 * KB, 1, false), *v2 = tl_val(300 * KB, 2, true);
  datum_t row[4];
  /* an insert rolled back leaves no chunk */
  txn_t *tx = ct_begin(&d.t);
  tl_row(row, 1, "a", 1, v1, 100 * KB, v2, 300 * KB);
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  CT_OK(txn_rollback(tx, &e_));
  assert_int_equal(tl_entries(tb->ct_long_tree), 0);
  /* committed, then an update and a delete rolled back: the old values stay */
  tx = ct_begin(&d.t);
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  uint64_t chunks = tl_entries(tb->ct_long_tree);
  arena_t *a = arena_create(NULL, "rb");
  int all[4] = { 0, 1, 2, 3 };
  datum_t got[4];
  str_t loc;
  assert_true(tl_get(NULL, tb, 1, all, 4, a, got, &loc));
  tx = ct_begin(&d.t);
  tl_row(row, 1, "a", 1, v2, 300 * KB, v1, 100 * KB);
  CT_OK(tbl_update_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, &e_));
  CT_OK(txn_rollback(tx, &e_));
  tx = ct_begin(&d.t);
  CT_OK(tbl_delete_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, &e_));
  CT_OK(txn_rollback(tx, &e_));
  assert_int_equal(tl_entries(tb->ct_long_tree), chunks);
  assert_true(tl_get(NULL, tb, 1, all, 4, a, got, NULL));
  tl_expect(&got[2], v1, 100 * KB);
  tl_expect(&got[3], v2, 300 * KB);

  /* one transaction: insert, update twice, delete — no chunk is left;
   * insert then update — the last value is stored */
  tx = ct_begin(&d.t);
  tl_row(row, 2, "b", 1, v1, 100 * KB, NULL, 0);
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  for (int i = 0; i < 2; i++) {
    assert_true(tl_get(tx, tb, 2, all, 4, a, got, &loc));
    tl_row(row, 2, "b", 1, i ? v1 : v2, i ? 100 * KB : 300 * KB, v2, 5000);
    CT_OK(tbl_update_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, &e_));
  }
  assert_true(tl_get(tx, tb, 2, all, 4, a, got, &loc));
  tl_expect(&got[2], v1, 100 * KB);
  tl_expect(&got[3], v2, 5000);
  CT_OK(tbl_delete_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, &e_));
  tl_row(row, 3, "c", 1, v2, 300 * KB, NULL, 0);
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  assert_true(tl_get(tx, tb, 3, all, 4, a, got, &loc));
  tl_row(row, 3, "c", 1, v1, 100 * KB, NULL, 0);
  CT_OK(tbl_update_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  assert_int_equal(tl_entries(tb->ct_long_tree), chunks + (100 * KB + 1899) / 1900);
  assert_false(tl_get(NULL, tb, 2, all, 4, a, got, NULL));
  assert_true(tl_get(NULL, tb, 3, all, 4, a, got, NULL));
  tl_expect(&got[2], v1, 100 * KB);
  free(v1);
  free(v2);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&d.t);
}

/* Restart by log replay (no checkpoint at close) and after a checkpoint;
 * ids handed out after a restart do not collide with stored values. */
static void test_long_restart(void **state)
{
  (void)state;
  tl_t d;
  tl_open(&d, "long_restart", false);
  char *v[4], *nv[2] = { NULL, NULL };
  size_t len[4] = { 0, KB, 100 * KB, 5 * MB };
  for (int i = 0; i < 4; i++)
    v[i] = tl_val(len[i], (unsigned)i + 7, i & 1);
  /* row i: body v[i], data v[3 - i] */
  const char *bodyp[4];
  size_t bodyl[4];
  for (int i = 0; i < 4; i++) {
    bodyp[i] = v[i];
    bodyl[i] = len[i];
  }
  cat_snapshot_t *s = cat_snapshot(d.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, d.oid);
  txn_t *tx = ct_begin(&d.t);
  for (int i = 0; i < 4; i++) {
    datum_t row[4];
    tl_row(row, i, "x", 1, v[i], len[i], v[3 - i], len[3 - i]);
    CT_OK(tbl_insert_row(tx, tb, row, &e_));
  }
  CT_OK(txn_commit(tx, &e_));
  arena_t *a = arena_create(NULL, "restart");
  int all[4] = { 0, 1, 2, 3 };
  datum_t got[4];
  str_t loc;
  cat_snapshot_release(s);
  for (int round = 0; round < 2; round++) {
    ct_close(&d.t, round == 1); /* round 0: replay the log; 1: after a checkpoint */
    ct_open_only(&d.t);
    s = cat_snapshot(d.t.ce_cat);
    tb = cat_table_by_oid(s, d.oid);
    assert_non_null(tb);
    for (int i = 0; i < 4; i++) {
      assert_true(tl_get(NULL, tb, i, all, 4, a, got, NULL));
      tl_expect(&got[2], bodyp[i], bodyl[i]);
      tl_expect(&got[3], v[3 - i], len[3 - i]);
    }
    /* new values after the restart get fresh ids: stored beside the old */
    tx = ct_begin(&d.t);
    nv[round] = tl_val(50 * KB, 99 + (unsigned)round, false);
    datum_t row[4];
    tl_row(row, 10 + round, "n", 1, nv[round], 50 * KB, NULL, 0);
    CT_OK(tbl_insert_row(tx, tb, row, &e_));
    /* and one of the old rows gets a new body */
    assert_true(tl_get(tx, tb, round, all, 4, a, got, &loc));
    tl_row(row, round, "x", 1, nv[round], 50 * KB, v[3 - round], len[3 - round]);
    CT_OK(tbl_update_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, &e_));
    CT_OK(txn_commit(tx, &e_));
    bodyp[round] = nv[round];
    bodyl[round] = 50 * KB;
    for (int r = 0; r <= round; r++) {
      assert_true(tl_get(NULL, tb, 10 + r, all, 4, a, got, NULL));
      tl_expect(&got[2], nv[r], 50 * KB);
    }
    for (int i = 0; i < 4; i++) {
      assert_true(tl_get(NULL, tb, i, all, 4, a, got, NULL));
      tl_expect(&got[2], bodyp[i], bodyl[i]);
      tl_expect(&got[3], v[3 - i], len[3 - i]);
    }
    cat_snapshot_release(s);
  }
  /* once more by log replay after the last round's changes */
  ct_close(&d.t, false);
  ct_open_only(&d.t);
  s = cat_snapshot(d.t.ce_cat);
  tb = cat_table_by_oid(s, d.oid);
  for (int i = 0; i < 4; i++) {
    assert_true(tl_get(NULL, tb, i, all, 4, a, got, NULL));
    tl_expect(&got[2], bodyp[i], bodyl[i]);
    tl_expect(&got[3], v[3 - i], len[3 - i]);
  }
  cat_snapshot_release(s);
  for (int i = 0; i < 4; i++)
    free(v[i]);
  free(nv[0]);
  free(nv[1]);
  arena_destroy(a);
  ct_fini(&d.t);
}

/* A reader during an uncommitted update sees the old long value (and
 * the writer its new one); after the commit everyone sees the new one.
 * Likewise during an uncommitted DELETE. */
static void test_long_reader_during_update(void **state)
{
  (void)state;
  tl_t d;
  tl_open(&d, "long_reader", false);
  cat_snapshot_t *s = cat_snapshot(d.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, d.oid);
  char *old = tl_val(200 * KB, 5, false), *nw = tl_val(150 * KB, 6, false);
  datum_t row[4];
  txn_t *tx = ct_begin(&d.t);
  tl_row(row, 1, "t", 1, old, 200 * KB, NULL, 0);
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  arena_t *a = arena_create(NULL, "reader");
  int all[4] = { 0, 1, 2, 3 };
  datum_t got[4];
  str_t loc;
  assert_true(tl_get(NULL, tb, 1, all, 4, a, got, &loc));
  txn_t *w = ct_begin(&d.t);
  tl_row(row, 1, "t", 1, nw, 150 * KB, NULL, 0);
  CT_OK(tbl_update_row(w, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, &e_));
  /* no transaction, and another transaction: the committed value */
  assert_true(tl_get(NULL, tb, 1, all, 4, a, got, NULL));
  tl_expect(&got[2], old, 200 * KB);
  txn_t *r = ct_begin(&d.t);
  assert_true(tl_get(r, tb, 1, all, 4, a, got, NULL));
  tl_expect(&got[2], old, 200 * KB);
  /* the writer: its own */
  assert_true(tl_get(w, tb, 1, all, 4, a, got, NULL));
  tl_expect(&got[2], nw, 150 * KB);
  CT_OK(txn_commit(w, &e_));
  assert_true(tl_get(r, tb, 1, all, 4, a, got, NULL));
  tl_expect(&got[2], nw, 150 * KB);
  /* an uncommitted DELETE: others still read the whole value */
  w = ct_begin(&d.t);
  assert_true(tl_get(w, tb, 1, all, 4, a, got, &loc));
  CT_OK(tbl_delete_row(w, tb, (const uint8_t *)loc.s_ptr, loc.s_len, &e_));
  assert_false(tl_get(w, tb, 1, all, 4, a, got, NULL));
  assert_true(tl_get(r, tb, 1, all, 4, a, got, NULL));
  tl_expect(&got[2], nw, 150 * KB);
  assert_true(tl_get(NULL, tb, 1, all, 4, a, got, NULL));
  tl_expect(&got[2], nw, 150 * KB);
  CT_OK(txn_commit(w, &e_));
  assert_false(tl_get(r, tb, 1, all, 4, a, got, NULL));
  assert_int_equal(tl_entries(tb->ct_long_tree), 0);
  CT_OK(txn_commit(r, &e_));
  free(old);
  free(nw);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&d.t);
}

/* Readers racing with committing updaters: every value read is whole and
 * one that was committed (each version's bytes derive from a header that
 * names it), never a torn or vanished one. */
typedef struct tl_race_s {
  tl_t *d;
  const cat_table_t *tb;
  volatile int stop;
  int versions;
} tl_race_t;

static char *tl_version(int ver, size_t *len)
{
  *len = (size_t)(20 * KB + (ver % 7) * 3 * KB);
  char *p = tl_val(*len, (unsigned)ver + 1000, false);
  snprintf(p, 12, "v%09d", ver);
  return p;
}

static void *tl_updater(void *arg)
{
  tl_race_t *r = arg;
  arena_t *a = arena_create(NULL, "updater");
  int all[4] = { 0, 1, 2, 3 };
  for (int ver = 1; ver <= 150; ver++) {
    txn_t *tx = ct_begin(&r->d->t);
    datum_t got[4];
    str_t loc;
    arena_reset(a);
    assert_true(tl_get(tx, r->tb, 1, all, 4, a, got, &loc));
    size_t len;
    char *v = tl_version(ver, &len);
    datum_t row[4];
    tl_row(row, 1, "t", 1, v, len, NULL, 0);
    CT_OK(tbl_update_row(tx, r->tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, &e_));
    CT_OK(txn_commit(tx, &e_));
    free(v);
    r->versions = ver;
  }
  r->stop = 1;
  arena_destroy(a);
  return NULL;
}

static void test_long_readers_race_commits(void **state)
{
  (void)state;
  tl_t d;
  tl_open(&d, "long_race", false);
  cat_snapshot_t *s = cat_snapshot(d.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, d.oid);
  size_t len;
  char *v0 = tl_version(0, &len);
  datum_t row[4];
  txn_t *tx = ct_begin(&d.t);
  tl_row(row, 1, "t", 1, v0, len, NULL, 0);
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  free(v0);
  tl_race_t r = { .d = &d, .tb = tb };
  uint64_t rr0 = tl_stats().ts_long_rereads;
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, tl_updater, &r), 0);
  arena_t *a = arena_create(NULL, "race");
  int cols[1] = { 2 };
  int reads = 0, last = 0;
  while (!r.stop) {
    arena_reset(a);
    datum_t got[1];
    assert_true(tl_get(NULL, tb, 1, cols, 1, a, got, NULL));
    assert_false(got[0].d_null);
    int ver = atoi(got[0].d_str.s_ptr + 1);
    assert_true(ver >= last); /* committed versions only, in order */
    last = ver;
    size_t wl;
    char *want = tl_version(ver, &wl);
    tl_expect(&got[0], want, wl);
    free(want);
    reads++;
  }
  pthread_join(th, NULL);
  assert_int_equal(r.versions, 150);
  print_message("%d reads, %llu rows read again after a commit took their chunks\n", reads,
                (unsigned long long)(tl_stats().ts_long_rereads - rr0));
  assert_true(reads > 0);
  /* only the last version's chunks remain */
  size_t ll;
  free(tl_version(150, &ll));
  assert_int_equal(tl_entries(tb->ct_long_tree), (ll + 1899) / 1900);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&d.t);
}

/* An index on a column whose values may be long: keys are limited to
 * BT_MAX_KEY (54000 "index row size ... exceeds maximum"); a value that
 * fits the key but is stored out of line in the row keeps the index
 * right through update and delete. */
static void test_long_index_limit(void **state)
{
  (void)state;
  tl_t d;
  tl_open(&d, "long_index", true);
  cat_snapshot_t *s = cat_snapshot(d.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, d.oid);
  char *big = tl_val(2000, 1, false), *mid = tl_val(1010, 2, false), *mid2 = tl_val(1005, 3, false);
  datum_t row[4];
  txn_t *tx = ct_begin(&d.t);
  tl_row(row, 1, big, 2000, NULL, 0, NULL, 0);
  {
    err_t e;
    err_clear(&e);
    assert_int_not_equal(tbl_insert_row(tx, tb, row, &e), CZ_OK);
    assert_true(err_is(&e, SQLSTATE_PROGRAM_LIMIT));
    assert_non_null(strstr(e.er_msg, "index row size"));
  }
  CT_OK(txn_rollback(tx, &e_));
  tx = ct_begin(&d.t);
  tl_row(row, 1, mid, 1010, NULL, 0, NULL, 0);
  tbl_stats_t st = tl_stats();
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  assert_int_equal(tl_stats().ts_long_stored - st.ts_long_stored, 1); /* out of line in the row */
  CT_OK(txn_commit(tx, &e_));
  /* the index finds it (covering scan: the key holds the value) */
  arena_t *a = arena_create(NULL, "ix");
  datum_t k = tl_str(mid, 1010);
  tbl_bound_t lo = { 1, &k, true };
  int cols[2] = { 0, 1 };
  ty_t types[2] = { ty_plain(TY_INT4), ty_plain(TY_TEXT) };
  err_t e;
  batch_t *b = batch_create(a, 2, types, 8, &e);
  tbl_scan_t *sc;
  CT_OK(tbl_scan_open(NULL, tb, 1, cols, 2, &lo, &lo, false, a, &sc, &e_));
  CT_OK(tbl_scan_next(sc, b, a, &e_));
  assert_int_equal(b->b_n, 1);
  assert_int_equal(b->b_cols[0].v_i64[0], 1);
  tbl_scan_close(sc);
  /* searching for a value longer than any key is no error: nothing found */
  datum_t kbig = tl_str(big, 2000);
  tbl_bound_t lb = { 1, &kbig, true };
  CT_OK(tbl_scan_open(NULL, tb, 1, cols, 2, &lb, &lb, false, a, &sc, &e_));
  CT_OK(tbl_scan_next(sc, b, a, &e_));
  assert_int_equal(b->b_n, 0);
  tbl_scan_close(sc);
  CT_OK(tbl_scan_open(NULL, tb, 1, cols, 2, NULL, &lb, false, a, &sc, &e_));
  CT_OK(tbl_scan_next(sc, b, a, &e_));
  assert_int_equal(b->b_n, memcmp(mid, big, 1010) < 0 ? 1 : 0);
  tbl_scan_close(sc);
  /* update to another long title and delete: the old entry goes */
  int all[4] = { 0, 1, 2, 3 };
  datum_t got[4];
  str_t loc;
  assert_true(tl_get(NULL, tb, 1, all, 4, a, got, &loc));
  tl_expect(&got[1], mid, 1010);
  tx = ct_begin(&d.t);
  tl_row(row, 1, mid2, 1005, NULL, 0, NULL, 0);
  CT_OK(tbl_update_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  assert_int_equal(tl_entries(tb->ct_indexes[1]->ci_tree), 1);
  CT_OK(tbl_scan_open(NULL, tb, 1, cols, 2, &lo, &lo, false, a, &sc, &e_));
  CT_OK(tbl_scan_next(sc, b, a, &e_));
  assert_int_equal(b->b_n, 0);
  tbl_scan_close(sc);
  assert_true(tl_get(NULL, tb, 1, all, 4, a, got, &loc));
  tx = ct_begin(&d.t);
  CT_OK(tbl_delete_row(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, &e_));
  CT_OK(txn_commit(tx, &e_));
  assert_int_equal(tl_entries(tb->ct_indexes[1]->ci_tree), 0);
  assert_int_equal(tl_entries(tb->ct_long_tree), 0);
  free(big);
  free(mid);
  free(mid2);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&d.t);
}

/* tbl_update_row_cols: the columns not set keep their stored values; their
 * long values are neither read nor written, through a primary key change
 * too, and the index on a set column follows. */
static void test_long_update_some_columns(void **state)
{
  (void)state;
  tl_t d;
  tl_open(&d, "long_cols", true);
  cat_snapshot_t *s = cat_snapshot(d.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, d.oid);
  char *body = tl_val(5 * MB, 11, false), *data = tl_val(100 * KB, 12, true), *data2 = tl_val(50 * KB, 13, true);
  datum_t row[4];
  txn_t *tx = ct_begin(&d.t);
  tl_row(row, 1, "a", 1, body, 5 * MB, data, 100 * KB);
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  uint64_t chunks = tl_entries(tb->ct_long_tree);
  arena_t *a = arena_create(NULL, "cols");
  int idt[2] = { 0, 1 }, all[4] = { 0, 1, 2, 3 };
  datum_t got[4];
  str_t loc;
  /* title only */
  assert_true(tl_get(NULL, tb, 1, idt, 2, a, got, &loc));
  tbl_stats_t before = tl_stats();
  tx = ct_begin(&d.t);
  bool set_title[4] = { false, true, false, false };
  memset(row, 0, sizeof row);
  row[1] = tl_str("b", 1);
  CT_OK(tbl_update_row_cols(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, set_title, &e_));
  CT_OK(txn_commit(tx, &e_));
  tbl_stats_t after = tl_stats();
  assert_int_equal(after.ts_long_chunks, before.ts_long_chunks);
  assert_int_equal(after.ts_long_stored, before.ts_long_stored);
  assert_int_equal(tl_entries(tb->ct_long_tree), chunks);
  /* the primary key only: the row moves with its references */
  assert_true(tl_get(NULL, tb, 1, idt, 2, a, got, &loc));
  tx = ct_begin(&d.t);
  bool set_id[4] = { true, false, false, false };
  memset(row, 0, sizeof row);
  row[0].d_i64 = 2;
  CT_OK(tbl_update_row_cols(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, set_id, &e_));
  CT_OK(txn_commit(tx, &e_));
  after = tl_stats();
  assert_int_equal(after.ts_long_chunks, before.ts_long_chunks);
  assert_int_equal(after.ts_long_stored, before.ts_long_stored);
  assert_false(tl_get(NULL, tb, 1, idt, 2, a, got, NULL));
  assert_true(tl_get(NULL, tb, 2, all, 4, a, got, &loc));
  tl_expect(&got[1], "b", 1);
  tl_expect(&got[2], body, 5 * MB);
  tl_expect(&got[3], data, 100 * KB);
  /* the index follows the title and the new key */
  datum_t kb = tl_str("b", 1);
  tbl_bound_t b1 = { 1, &kb, true };
  ty_t types[2] = { ty_plain(TY_INT4), ty_plain(TY_TEXT) };
  err_t e;
  batch_t *ib = batch_create(a, 2, types, 4, &e);
  tbl_scan_t *sc;
  CT_OK(tbl_scan_open(NULL, tb, 1, idt, 2, &b1, &b1, false, a, &sc, &e_));
  CT_OK(tbl_scan_next(sc, ib, a, &e_));
  assert_int_equal(ib->b_n, 1);
  assert_int_equal(ib->b_cols[0].v_i64[0], 2);
  tbl_scan_close(sc);
  assert_int_equal(tl_entries(tb->ct_indexes[1]->ci_tree), 1);
  /* data set to a new value: written, the old one's chunks freed; body kept */
  before = tl_stats();
  tx = ct_begin(&d.t);
  bool set_data[4] = { false, false, false, true };
  memset(row, 0, sizeof row);
  row[3] = tl_str(data2, 50 * KB);
  CT_OK(tbl_update_row_cols(tx, tb, (const uint8_t *)loc.s_ptr, loc.s_len, row, set_data, &e_));
  CT_OK(txn_commit(tx, &e_));
  after = tl_stats();
  assert_int_equal(after.ts_long_stored - before.ts_long_stored, 1);
  assert_int_equal(after.ts_long_chunks, before.ts_long_chunks);
  assert_int_equal(tl_entries(tb->ct_long_tree),
                   chunks - (100 * KB + 1899) / 1900 + (50 * KB + 1899) / 1900);
  assert_true(tl_get(NULL, tb, 2, all, 4, a, got, NULL));
  tl_expect(&got[1], "b", 1);
  tl_expect(&got[2], body, 5 * MB);
  tl_expect(&got[3], data2, 50 * KB);
  free(body);
  free(data);
  free(data2);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&d.t);
}

/* CREATE INDEX on a table of long documents reads only the indexed
 * column: no chunk is fetched. */
static void test_long_create_index_reads_no_chunks(void **state)
{
  (void)state;
  tl_t d;
  tl_open(&d, "long_mkindex", false);
  cat_snapshot_t *s = cat_snapshot(d.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, d.oid);
  char *v = tl_val(100 * KB, 4, false);
  txn_t *tx = ct_begin(&d.t);
  for (int i = 0; i < 20; i++) {
    char title[16];
    snprintf(title, sizeof title, "doc%02d", i);
    datum_t row[4];
    tl_row(row, i, title, strlen(title), v, 100 * KB, NULL, 0);
    CT_OK(tbl_insert_row(tx, tb, row, &e_));
  }
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_release(s);
  tbl_stats_t before = tl_stats();
  tx = ct_begin(&d.t);
  int keys[1] = { 1 };
  cat_index_def_t ix = { .id_name = "docs_title", .id_table = d.oid, .id_unique = true, .id_nkeys = 1,
                         .id_keys = keys };
  CT_OK(tbl_create_index(d.t.ce_cat, tx, &ix, NULL, &e_));
  CT_OK(txn_commit(tx, &e_));
  assert_int_equal(tl_stats().ts_long_chunks, before.ts_long_chunks);
  s = cat_snapshot(d.t.ce_cat);
  tb = cat_table_by_oid(s, d.oid);
  assert_int_equal(tb->ct_nindexes, 2);
  assert_int_equal(tl_entries(tb->ct_indexes[1]->ci_tree), 20);
  /* a fetching index scan wanting the body rebuilds it */
  arena_t *a = arena_create(NULL, "mkindex");
  datum_t k = tl_str("doc07", 5);
  tbl_bound_t b1 = { 1, &k, true };
  int cols[2] = { 0, 2 };
  ty_t types[2] = { ty_plain(TY_INT4), ty_plain(TY_TEXT) };
  err_t e;
  batch_t *b = batch_create(a, 2, types, 8, &e);
  tbl_scan_t *sc;
  CT_OK(tbl_scan_open(NULL, tb, 1, cols, 2, &b1, &b1, false, a, &sc, &e_));
  CT_OK(tbl_scan_next(sc, b, a, &e_));
  assert_int_equal(b->b_n, 1);
  assert_int_equal(b->b_cols[0].v_i64[0], 7);
  assert_int_equal(b->b_cols[1].v_str[0].s_len, 100 * KB);
  assert_memory_equal(b->b_cols[1].v_str[0].s_ptr, v, 100 * KB);
  tbl_scan_close(sc);
  /* and a point lookup by primary key */
  datum_t pk = { .d_i64 = 3 };
  const datum_t *keysv[1] = { &pk };
  bool found[1];
  batch_t *lb = batch_create(a, 2, types, 1, &e);
  CT_OK(tbl_lookup(NULL, tb, keysv, 1, cols, 2, false, lb, found, a, &e_));
  assert_true(found[0]);
  assert_int_equal(lb->b_cols[1].v_str[0].s_len, 100 * KB);
  assert_memory_equal(lb->b_cols[1].v_str[0].s_ptr, v, 100 * KB);
  free(v);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&d.t);
}

/* DROP TABLE drops the long values; a database whose table lacks the
 * long-values tree (written before it existed) gets it at open. */
static void test_long_drop_and_old_database(void **state)
{
  (void)state;
  tl_t d;
  tl_open(&d, "long_drop", false);
  cat_snapshot_t *s = cat_snapshot(d.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, d.oid);
  char name[64];
  snprintf(name, sizeof name, "%s", tb->ct_long_tree_name);
  char *v = tl_val(30 * KB, 3, true);
  datum_t row[4];
  txn_t *tx = ct_begin(&d.t);
  tl_row(row, 1, "t", 1, NULL, 0, v, 30 * KB);
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  tx = ct_begin(&d.t);
  CT_OK(cat_drop_table(d.t.ce_cat, tx, d.oid, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_release(s);
  bt_tree_t *bt;
  err_t e;
  assert_int_equal(db_open_tree(d.t.ce_db, name, &bt, &e), BT_NOT_FOUND);
  ct_close(&d.t, false);
  ct_open_only(&d.t);
  assert_int_equal(db_open_tree(d.t.ce_db, name, &bt, &e), BT_NOT_FOUND);
  ct_fini(&d.t);

  /* an "old" database: the table's long tree removed behind the catalog */
  tl_open(&d, "long_old", false);
  s = cat_snapshot(d.t.ce_cat);
  tb = cat_table_by_oid(s, d.oid);
  snprintf(name, sizeof name, "%s", tb->ct_long_tree_name);
  tx = ct_begin(&d.t);
  tl_row(row, 1, "t", 1, "short body", 10, NULL, 0);
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_release(s);
  tx = ct_begin(&d.t);
  CT_OK(db_drop_tree(tx, name, &e_));
  CT_OK(txn_commit(tx, &e_));
  ct_close(&d.t, true);
  ct_open_only(&d.t);
  CT_OK(db_open_tree(d.t.ce_db, name, &bt, &e_));
  s = cat_snapshot(d.t.ce_cat);
  tb = cat_table_by_oid(s, d.oid);
  assert_non_null(tb->ct_long_tree);
  tx = ct_begin(&d.t);
  tl_row(row, 2, "t", 1, NULL, 0, v, 30 * KB);
  CT_OK(tbl_insert_row(tx, tb, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  arena_t *a = arena_create(NULL, "old");
  int all[4] = { 0, 1, 2, 3 };
  datum_t got[4];
  assert_true(tl_get(NULL, tb, 1, all, 4, a, got, NULL));
  tl_expect(&got[2], "short body", 10);
  assert_true(tl_get(NULL, tb, 2, all, 4, a, got, NULL));
  tl_expect(&got[3], v, 30 * KB);
  arena_destroy(a);
  free(v);
  cat_snapshot_release(s);
  ct_fini(&d.t);
}

/* Bulk-mode batch inserts store long values too; a row too wide even
 * with every string out of line is 54000. */
static void test_long_bulk_and_too_wide(void **state)
{
  (void)state;
  tl_t d;
  tl_open(&d, "long_bulk", false);
  cat_snapshot_t *s = cat_snapshot(d.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, d.oid);
  arena_t *a = arena_create(NULL, "bulk");
  err_t e;
  batch_t *b = batch_create(a, 4, tb->ct_types, 8, &e);
  char *v[8];
  for (int i = 0; i < 8; i++) {
    v[i] = tl_val((size_t)(i + 1) * 700, (unsigned)i, false);
    b->b_cols[0].v_null[i] = 0;
    b->b_cols[0].v_i64[i] = i;
    b->b_cols[1].v_null[i] = 1;
    b->b_cols[2].v_null[i] = 0;
    b->b_cols[2].v_str[i] = (str_t){ v[i], (uint32_t)(i + 1) * 700 };
    b->b_cols[3].v_null[i] = 1;
  }
  b->b_n = 8;
  err_clear(&e);
  txn_t *tx = txn_begin(d.t.ce_db, TXN_BULK, &e);
  assert_non_null(tx);
  CT_OK(tbl_insert(tx, tb, b, NULL, 8, &e_));
  CT_OK(txn_commit(tx, &e_));
  int all[4] = { 0, 1, 2, 3 };
  datum_t got[4];
  for (int i = 0; i < 8; i++) {
    assert_true(tl_get(NULL, tb, i, all, 4, a, got, NULL));
    tl_expect(&got[2], v[i], (size_t)(i + 1) * 700);
    free(v[i]);
  }
  cat_snapshot_release(s);

  /* 300 text columns of 100 bytes: 300 references do not fit in a row */
  tx = ct_begin(&d.t);
  cat_column_def_t cols[301];
  char names[301][8];
  for (int i = 0; i < 301; i++) {
    snprintf(names[i], sizeof names[i], "c%d", i);
    cols[i] = ct_col(names[i], i ? TY_TEXT : TY_INT4, false);
  }
  int pk[1] = { 0 };
  cat_table_def_t def = { .td_name = "wide", .td_owner = 10, .td_ncols = 301, .td_cols = cols,
                          .td_npk = 1, .td_pk = pk };
  cat_oid_t woid;
  CT_OK(cat_create_table(d.t.ce_cat, tx, &def, &woid, &e_));
  CT_OK(txn_commit(tx, &e_));
  s = cat_snapshot(d.t.ce_cat);
  const cat_table_t *wt = cat_table_by_oid(s, woid);
  datum_t *row = calloc(301, sizeof *row);
  char *hundred = tl_val(100, 9, false);
  for (int i = 1; i < 301; i++)
    row[i] = tl_str(hundred, 100);
  tx = ct_begin(&d.t);
  CT_FAILS(SQLSTATE_PROGRAM_LIMIT, tbl_insert_row(tx, wt, row, &e_));
  CT_OK(txn_rollback(tx, &e_));
  /* 60 such columns do fit: some move out of line */
  for (int i = 61; i < 301; i++)
    row[i].d_null = true;
  tx = ct_begin(&d.t);
  CT_OK(tbl_insert_row(tx, wt, row, &e_));
  CT_OK(txn_commit(tx, &e_));
  assert_true(tl_entries(wt->ct_long_tree) > 0);
  int c60[2] = { 60, 1 };
  ty_t t2[2] = { ty_plain(TY_TEXT), ty_plain(TY_TEXT) };
  tbl_scan_t *sc;
  CT_OK(tbl_scan_open(NULL, wt, 0, c60, 2, NULL, NULL, false, a, &sc, &e_));
  batch_t *wb = batch_create(a, 2, t2, 4, &e);
  CT_OK(tbl_scan_next(sc, wb, a, &e_));
  assert_int_equal(wb->b_n, 1);
  assert_int_equal(wb->b_cols[0].v_str[0].s_len, 100);
  assert_memory_equal(wb->b_cols[0].v_str[0].s_ptr, hundred, 100);
  assert_memory_equal(wb->b_cols[1].v_str[0].s_ptr, hundred, 100);
  tbl_scan_close(sc);
  free(hundred);
  free(row);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&d.t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_long_insert_select_update_delete),
    cmocka_unit_test(test_long_rollback),
    cmocka_unit_test(test_long_restart),
    cmocka_unit_test(test_long_reader_during_update),
    cmocka_unit_test(test_long_readers_race_commits),
    cmocka_unit_test(test_long_index_limit),
    cmocka_unit_test(test_long_create_index_reads_no_chunks),
    cmocka_unit_test(test_long_update_some_columns),
    cmocka_unit_test(test_long_drop_and_old_database),
    cmocka_unit_test(test_long_bulk_and_too_wide),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
