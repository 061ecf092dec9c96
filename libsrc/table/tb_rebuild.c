/* tb_rebuild — trees filled in bulk: ALTER TABLE's rewrite of a table
 * into the new generation's empty trees (tbl_rewrite_*), and the sorted
 * build of an index from its table's rows (tbl_build_index: CREATE INDEX,
 * ADD UNIQUE, every index after a rewrite).
 *
 * Design notes:
 * - Entries are encoded into runs (TB_RB_CHUNK_BYTES of keys and values,
 *   or TB_RB_CHUNK_ROWS), each sorted by key unless it came sorted (a
 *   table read in the new key's order makes one run, no sort); at the end
 *   the runs are merged (a heap of run heads) into batches handed to
 *   txn_fill_batch in ascending order, so the new tree is built by its
 *   append path alone: no page is split in the middle, none visited
 *   twice. The key and value bytes live in the transaction's arena anyway
 *   (the redo list keeps them until the commit), so runs cost only their
 *   row arrays (24 bytes a row).
 * - The trees were created by the transaction (cat_alter_table,
 *   cat_create_index), so the fill takes no row locks (txn_fill_batch):
 *   nobody else can name them before the commit.
 * - Duplicates: within a run they meet after its sort, across runs in
 *   the merge. A unique secondary index holds index key ‖ primary key, so
 *   its entries never collide: after the build one pass over the new
 *   tree compares neighbouring key prefixes (NULLs never conflict).
 *   Either way the error is PostgreSQL's 23505 "could not create unique
 *   index" with DETAIL "Key (cols)=(values) is duplicated.".
 * - The rows and entries are logged like any insert: the transaction's
 *   commit record holds them, so a crash before it leaves the old
 *   version and one after it the new (no partly filled tree survives).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/tb_int.h"

#define TB_RB_CHUNK_BYTES ((size_t)64 << 20)
#define TB_RB_CHUNK_ROWS (1 << 20)

typedef struct tb_chunk_s {
  arena_t *ch_a;               /* key and value bytes: the transaction's arena (the
                                  redo list keeps them, txn_fill_batch) */
  bt_row_t *ch_rows;           /* the run being filled: malloc'd, grows */
  int ch_n, ch_cap;
  size_t ch_bytes;
  bt_row_t **ch_runs;          /* the sorted runs cut so far (malloc'd) */
  int *ch_run_n;
  int ch_nruns, ch_runcap;
} tb_chunk_t;

static void chunk_free(tb_chunk_t *ch)
{
  for (int i = 0; i < ch->ch_nruns; i++)
    free(ch->ch_runs[i]);
  free(ch->ch_runs);
  free(ch->ch_run_n);
  free(ch->ch_rows);
  memset(ch, 0, sizeof *ch);
}

static int chunk_add(tb_chunk_t *ch, const uint8_t *key, size_t kl, const uint8_t *val, size_t vl,
                     err_t *e)
{
  if (ch->ch_n == ch->ch_cap) {
    int cap = ch->ch_cap ? ch->ch_cap * 2 : 4096;
    bt_row_t *r = realloc(ch->ch_rows, sizeof *r * (size_t)cap);
    if (!r)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for a rebuild's chunk of %d rows", cap);
    ch->ch_rows = r;
    ch->ch_cap = cap;
  }
  uint8_t *p = arena_alloc(ch->ch_a, kl + vl + 1);
  memcpy(p, key, kl);
  if (vl)
    memcpy(p + kl, val, vl);
  bt_row_t *r = &ch->ch_rows[ch->ch_n++];
  r->r_key = p;
  r->r_key_len = (uint32_t)kl;
  r->r_val = p + kl;
  r->r_val_len = (uint32_t)vl;
  ch->ch_bytes += kl + vl + sizeof *r;
  return CZ_OK;
}

static bool chunk_full(const tb_chunk_t *ch)
{
  return ch->ch_bytes >= TB_RB_CHUNK_BYTES || ch->ch_n >= TB_RB_CHUNK_ROWS;
}

static int key_cmp(const void *a, const void *b)
{
  const bt_row_t *x = a, *y = b;
  uint32_t m = CZ_MIN(x->r_key_len, y->r_key_len);
  int c = memcmp(x->r_key, y->r_key, m);
  if (c)
    return c;
  return x->r_key_len < y->r_key_len ? -1 : x->r_key_len > y->r_key_len;
}

/* "(a, b)=(1, x)" for the first n key columns encoded at p. */
static void key_text(const ty_t *types, const char *const *names, int n, const uint8_t *p,
                     size_t len, char *out, size_t cap)
{
  arena_t *a = arena_create(NULL, "key text");
  datum_t *vals = arena_zalloc(a, sizeof(datum_t) * (size_t)(n + 1));
  err_t e;
  err_clear(&e);
  size_t off = 0;
  out[0] = 0;
  off += (size_t)snprintf(out + off, cap - off, "(");
  for (int i = 0; i < n && off < cap; i++)
    off += (size_t)snprintf(out + off, cap - off, "%s%s", i ? ", " : "", names[i]);
  if (off < cap)
    off += (size_t)snprintf(out + off, cap - off, ")=(");
  if (tbl_key_decode(types, n, p, len, a, vals, NULL, &e) == CZ_OK) {
    for (int i = 0; i < n && off < cap; i++) {
      if (i)
        off += (size_t)snprintf(out + off, cap - off, ", ");
      if (off >= cap)
        break;
      if (vals[i].d_null) {
        off += (size_t)snprintf(out + off, cap - off, "null");
        continue;
      }
      size_t need = ty_text_max(types[i], &vals[i]) + 1;
      char *buf = arena_alloc(a, need);
      int m = ty_format_text(types[i], &vals[i], buf, need);
      off += (size_t)snprintf(out + off, cap - off, "%.*s", m > 0 ? m : 0, buf);
    }
  }
  if (off < cap)
    snprintf(out + off, cap - off, ")");
  arena_destroy(a);
}

static int dup_error(const cat_index_t *ix, const uint8_t *key, size_t kl, err_t *e)
{
  const cat_table_t *t = ix->ci_table;
  int n;
  const ty_t *types;
  const char *rowid = "ctid";
  const char **names = calloc((size_t)CAT_MAX_INDEX_KEYS + 1, sizeof(char *));
  if (ix->ci_primary) {
    types = tb_pk_types(t, &n);
    for (int i = 0; i < n && names; i++)
      names[i] = t->ct_npk ? t->ct_cols[t->ct_pk[i]].cc_name : rowid;
  } else {
    types = ix->ci_key_types;
    n = ix->ci_nkeys;
    for (int i = 0; i < n && names; i++)
      names[i] = t->ct_cols[ix->ci_keys[i]].cc_name;
  }
  char text[240];
  text[0] = 0;
  if (names)
    key_text(types, names, n, key, kl, text, sizeof text);
  free(names);
  err_set(e, SQLSTATE_UNIQUE_VIOLATION, "could not create unique index \"%s\"", ix->ci_name);
  return err_detail(e, "Key %s is duplicated.", text);
}

/* Sorts the run being filled (unless it came sorted) and keeps it. */
static int run_cut(const cat_index_t *ix, tb_chunk_t *ch, err_t *e)
{
  if (ch->ch_n == 0)
    return CZ_OK;
  bool sorted = true;
  for (int i = 1; i < ch->ch_n && sorted; i++)
    sorted = key_cmp(&ch->ch_rows[i - 1], &ch->ch_rows[i]) < 0;
  if (!sorted) {
    qsort(ch->ch_rows, (size_t)ch->ch_n, sizeof *ch->ch_rows, key_cmp);
    for (int i = 1; i < ch->ch_n; i++)
      if (key_cmp(&ch->ch_rows[i - 1], &ch->ch_rows[i]) == 0)
        return dup_error(ix, ch->ch_rows[i].r_key, ch->ch_rows[i].r_key_len, e);
  }
  if (ch->ch_nruns == ch->ch_runcap) {
    int cap = ch->ch_runcap * 2 + 8;
    bt_row_t **r = realloc(ch->ch_runs, sizeof *r * (size_t)cap);
    int *n = r ? realloc(ch->ch_run_n, sizeof *n * (size_t)cap) : NULL;
    if (r)
      ch->ch_runs = r;
    if (!r || !n)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for a rebuild's runs");
    ch->ch_run_n = n;
    ch->ch_runcap = cap;
  }
  ch->ch_runs[ch->ch_nruns] = ch->ch_rows;
  ch->ch_run_n[ch->ch_nruns++] = ch->ch_n;
  ch->ch_rows = NULL;
  ch->ch_n = ch->ch_cap = 0;
  ch->ch_bytes = 0;
  return CZ_OK;
}

#define TB_RB_OUT 8192               /* rows per txn_fill_batch call */

/* Merges the runs into ix's (empty) tree in ascending key order. */
static int runs_finish(txn_t *tx, const cat_index_t *ix, tb_chunk_t *ch, err_t *e)
{
  if (run_cut(ix, ch, e) != CZ_OK)
    return CZ_ERR;
  int k = ch->ch_nruns;
  if (k == 0)
    return CZ_OK;
  /* a heap of runs by their head row */
  int *heap = malloc(sizeof(int) * (size_t)k);
  int *pos = calloc((size_t)k, sizeof(int));
  bt_row_t *out = malloc(sizeof(bt_row_t) * TB_RB_OUT);
  if (!heap || !pos || !out) {
    free(heap);
    free(pos);
    free(out);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for a rebuild's merge");
  }
#define HEAD(r) (&ch->ch_runs[r][pos[r]])
  int hn = 0;
  for (int r = 0; r < k; r++) {
    /* sift up */
    int i = hn++;
    heap[i] = r;
    while (i > 0 && key_cmp(HEAD(heap[(i - 1) / 2]), HEAD(heap[i])) > 0) {
      int t = heap[i];
      heap[i] = heap[(i - 1) / 2];
      heap[(i - 1) / 2] = t;
      i = (i - 1) / 2;
    }
  }
  int rc = CZ_OK, no = 0;
  const bt_row_t *last = NULL;
  while (hn > 0 && rc == CZ_OK) {
    int r = heap[0];
    const bt_row_t *row = HEAD(r);
    if (last && key_cmp(last, row) == 0) {
      rc = dup_error(ix, row->r_key, row->r_key_len, e);
      break;
    }
    out[no++] = *row;
    last = row;
    if (++pos[r] == ch->ch_run_n[r])
      heap[0] = heap[--hn];
    /* sift down */
    for (int i = 0;;) {
      int l = 2 * i + 1, m = i;
      if (l < hn && key_cmp(HEAD(heap[l]), HEAD(heap[m])) < 0)
        m = l;
      if (l + 1 < hn && key_cmp(HEAD(heap[l + 1]), HEAD(heap[m])) < 0)
        m = l + 1;
      if (m == i)
        break;
      int t = heap[i];
      heap[i] = heap[m];
      heap[m] = t;
      i = m;
    }
    if (no == TB_RB_OUT || hn == 0) {
      int done = 0;
      rc = txn_fill_batch(tx, ix->ci_tree, out, no, &done, e);
      if (rc != CZ_OK && err_is(e, SQLSTATE_UNIQUE_VIOLATION) && done < no)
        rc = dup_error(ix, out[done].r_key, out[done].r_key_len, e);
      no = 0;
    }
  }
#undef HEAD
  free(heap);
  free(pos);
  free(out);
  return rc;
}

/* One pass over a unique secondary index just built: neighbours with the
 * same index key (no NULL in it) are duplicates. */
static int unique_check(const cat_index_t *ix, err_t *e)
{
  bt_cursor_t *cur;
  if (bt_cursor_open(ix->ci_tree, &cur, e) != CZ_OK)
    return CZ_ERR;
  uint8_t prev[BT_MAX_KEY];
  size_t prev_len = 0;
  bool have = false;
  /* a holds one decoded key at a time (reset before each); vals outlives it */
  arena_t *a = arena_create(NULL, "unique check");
  datum_t vals[CAT_MAX_INDEX_KEYS + 1];
  int rc = bt_seek(cur, NULL, 0, BT_FORWARD, e);
  while (rc == CZ_OK) {
    const void *k, *v;
    size_t kl, vl;
    rc = bt_next(cur, &k, &kl, &v, &vl, e);
    if (rc != CZ_OK)
      break;
    size_t pl = tbl_key_skip(ix->ci_key_types, ix->ci_nkeys, k, kl);
    if (have && pl == prev_len && memcmp(prev, k, pl) == 0) {
      arena_reset(a);
      bool null = false;
      if (tbl_key_decode(ix->ci_key_types, ix->ci_nkeys, k, pl, a, vals, NULL, e) != CZ_OK) {
        rc = CZ_ERR;
        break;
      }
      for (int i = 0; i < ix->ci_nkeys && !ix->ci_nulls_nd; i++)
        null = null || vals[i].d_null;
      if (!null) {
        uint8_t copy[BT_MAX_KEY];
        memcpy(copy, k, pl);
        bt_cursor_close(cur);
        arena_destroy(a);
        return dup_error(ix, copy, pl, e);
      }
    }
    memcpy(prev, k, pl);
    prev_len = pl;
    have = true;
  }
  bt_cursor_close(cur);
  arena_destroy(a);
  return rc == BT_END ? CZ_OK : rc;
}

int tbl_build_index(txn_t *tx, const cat_index_t *ix, err_t *e)
{
  const cat_table_t *t = ix->ci_table;
  arena_t *a = arena_create(NULL, "tbl_build_index");
  int *cols = arena_alloc(a, sizeof(int) * (size_t)(ix->ci_nkeys + ix->ci_ninclude + 1));
  int nc = 0;
  for (int i = 0; i < ix->ci_nkeys; i++)
    cols[nc++] = ix->ci_keys[i];
  for (int i = 0; i < ix->ci_ninclude; i++)
    cols[nc++] = ix->ci_include[i];
  tbl_scan_t *s = NULL;
  batch_t *b = NULL;
  tb_chunk_t ch = {.ch_a = txn_arena(tx)};
  /* reads only what the index holds (key and INCLUDE columns; the
   * primary key comes with the locator): long values of other columns
   * are not fetched */
  int rc = tbl_scan_open(tx, t, 0, cols, nc, NULL, NULL, true, a, &s, e);
  if (rc == CZ_OK) {
    ty_t *types = arena_alloc(a, sizeof(ty_t) * (size_t)(nc + 1));
    for (int i = 0; i < nc; i++)
      types[i] = t->ct_types[cols[i]];
    types[nc] = ty_plain(TY_BYTEA);
    b = batch_create(a, nc + 1, types, 1024, e);
    if (!b)
      rc = CZ_ERR;
  }
  datum_t *vals = arena_zalloc(a, sizeof(datum_t) * (size_t)(t->ct_ncols + 1));
  for (int i = 0; i < t->ct_ncols; i++)
    vals[i].d_null = true; /* columns the index does not hold: never read */
  arena_t *ba = arena_create(a, "batch");
  uint8_t key[BT_MAX_KEY], val[BT_MAX_ROW];
  while (rc == CZ_OK) {
    arena_reset(ba);
    rc = tbl_scan_next(s, b, ba, e);
    if (rc != CZ_OK || b->b_n == 0)
      break;
    for (int r = 0; r < b->b_n && rc == CZ_OK; r++) {
      for (int k = 0; k < nc; k++)
        vec_get(&b->b_cols[k], r, &vals[cols[k]]);
      str_t loc = b->b_cols[nc].v_str[r];
      size_t kl, pl, vl;
      bool has_null;
      rc = tb_index_entry(ix, vals, (const uint8_t *)loc.s_ptr, loc.s_len - TBL_LOC_HASH, key, &kl,
                          &pl, &has_null, val, &vl, e);
      if (rc == CZ_OK)
        rc = chunk_add(&ch, key, kl, val, vl, e);
      if (rc == CZ_OK && chunk_full(&ch))
        rc = run_cut(ix, &ch, e);
    }
  }
  if (s)
    tbl_scan_close(s);
  if (rc == CZ_OK)
    rc = runs_finish(tx, ix, &ch, e);
  chunk_free(&ch);
  arena_destroy(a);
  if (rc == CZ_OK && ix->ci_unique)
    rc = unique_check(ix, e);
  return rc;
}

/* ---- the rewrite of a table's rows --------------------------------------- */

struct tbl_rewrite_s {
  txn_t *rw_tx;
  const cat_table_t *rw_t;     /* the new version (its trees empty at begin) */
  arena_t *rw_a;
  tb_chunk_t rw_ch;
  int64_t rw_rows;
};

int tbl_rewrite_begin(txn_t *tx, const cat_table_t *t, tbl_rewrite_t **out, err_t *e)
{
  (void)e;
  arena_t *a = arena_create(NULL, "tbl_rewrite");
  tbl_rewrite_t *rw = arena_zalloc(a, sizeof *rw);
  rw->rw_tx = tx;
  rw->rw_t = t;
  rw->rw_a = a;
  rw->rw_ch.ch_a = txn_arena(tx);
  txn_note_tree(tx, t->ct_indexes[0]->ci_tree, t->ct_indexes[0]->ci_dtree);
  *out = rw;
  return CZ_OK;
}

int tbl_rewrite_row(tbl_rewrite_t *rw, const datum_t *vals, err_t *e)
{
  const cat_table_t *t = rw->rw_t;
  for (int c = 0; c < t->ct_ncols; c++)
    if (t->ct_cols[c].cc_not_null && vals[c].d_null)
      return err_set(e, SQLSTATE_NOT_NULL_VIOLATION, "column \"%s\" of relation \"%s\" contains null values",
                     t->ct_cols[c].cc_name, t->ct_name);
  int64_t rowid = 0;
  if (t->ct_npk == 0 && cat_next_rowid(t, &rowid, e) != CZ_OK)
    return CZ_ERR;
  uint8_t key[BT_MAX_KEY], row[BT_MAX_ROW];
  size_t kl, rl;
  if (tb_pk_encode(t, vals, rowid, key, sizeof key, &kl, e) != CZ_OK ||
      tb_row_store(rw->rw_tx, t, vals, NULL, NULL, 0, row, BT_MAX_ROW - kl, &rl, e) != CZ_OK ||
      chunk_add(&rw->rw_ch, key, kl, row, rl, e) != CZ_OK)
    return CZ_ERR;
  rw->rw_rows++;
  if (chunk_full(&rw->rw_ch))
    return run_cut(t->ct_indexes[0], &rw->rw_ch, e);
  return CZ_OK;
}

int tbl_rewrite_end(tbl_rewrite_t *rw, int64_t *rows, err_t *e)
{
  const cat_table_t *t = rw->rw_t;
  int rc = runs_finish(rw->rw_tx, t->ct_indexes[0], &rw->rw_ch, e);
  for (int i = 1; i < t->ct_nindexes && rc == CZ_OK; i++)
    rc = tbl_build_index(rw->rw_tx, t->ct_indexes[i], e);
  if (rows)
    *rows = rw->rw_rows;
  tbl_rewrite_abort(rw);
  return rc;
}

void tbl_rewrite_abort(tbl_rewrite_t *rw)
{
  if (!rw)
    return;
  chunk_free(&rw->rw_ch);
  arena_destroy(rw->rw_a);
}
