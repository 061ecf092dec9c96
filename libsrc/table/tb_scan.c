/* tb_scan — forward and backward range scans over a table's primary tree or a secondary
 * index, filling batches; vectored point lookups by primary key.
 *
 * Design notes (table/README.md, "Reads"):
 * - Readers take no lock. Each entry is checked with txn_read_version
 *   while the cursor still holds its leaf (or inside the bt_lookup_batch
 *   callback), so a writer cannot commit or roll back in between: the
 *   reader sees the committed value, its own change, or the pre-image.
 * - A batch is filled under the leaf latches, then the cursor is released
 *   (bt_cursor_release) so writers are not blocked between batches.
 * - An index that does not cover the wanted columns (or a scan that wants
 *   locators, whose hash needs the row's stored value) collects up to a
 *   batch of primary keys, releases the index, and fetches the rows with
 *   one bt_lookup_batch (keys sorted, results put back in index order).
 * - Out-of-line values (tb_long.c) of the wanted columns are fetched after
 *   the batch's latches are released: decoding records each reference
 *   (row, column, primary key) and tb_resolve reads the chunks. A chunk
 *   found missing means the row's writer committed after this scan read
 *   the pre-image (its deletes apply at commit): the row is read again by
 *   key, as it is now (or dropped from the batch when it is gone) — a
 *   read-committed reader may see the row as of any moment of its read.
 * - A backward scan (ORDER BY … DESC with a LIMIT) seeks the high bound
 *   and steps down entry by entry, primary rows decoded one at a time:
 *   the leaf runs of forward scans are a forward-only fast path.
 */
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "table/tb_int.h"

struct tbl_scan_s {
  txn_t *s_tx;
  uint32_t s_cmd;             /* the command it reads as of (see txn_command_next) */
  const cat_table_t *s_t;
  const cat_index_t *s_ix;
  int s_ncols;
  int *s_cols;
  bool s_want_loc;
  bool s_fetch;               /* index entries lead to primary rows */
  bt_cursor_t *s_cur;
  uint8_t *s_low;
  size_t s_low_len;
  bool s_low_incl;
  uint8_t *s_high;            /* NULL = open */
  size_t s_high_len;
  bool s_high_incl;
  bool s_started, s_done;
  datum_t *s_row;             /* a whole row, for covered index scans */
  int *s_all;                 /* 0..ncols-1 */
  const tbl_pred_t *s_preds;  /* tbl_scan_filter */
  int s_npred;
  tb_dplan_t *s_plan;         /* primary scans: decoding into vectors */
  arena_t *s_a;               /* the scan's arena */
  tbl_morsels_t *s_disp;      /* a morsel scan's dispenser (tb_split.c); NULL plain */
  int s_piece;                /* the morsel being read (or last read), -1 none */
  bool s_in_piece;            /* s_piece is not finished */
  const bt_key_t *s_pend;     /* its exclusive end; NULL: the range's high bound */
  bt_run_t *s_run;            /* primary scans: the leaf run being decoded */
  uint8_t *s_kbuf;            /* a key of the run, built when one is needed */
  bool s_backward;            /* from the high bound down (tbl_scan_backward) */
  bool s_reseek;              /* re-aimed (tb_scan_aim): seek to s_low at the next fill */
  bool s_near;                /* ... and s_low is above the last range read: the cursor
                                 may move forward to it inside its leaf (tb_seek_near) */
  bool s_hold;                /* keep the leaf between fills (tb_scan_hold) */
  tb_colscan_t *s_col;        /* a column table's primary scan (tb_col_scan.c) */
};

void tbl_scan_backward(tbl_scan_t *s)
{
  if (!s->s_disp)
    s->s_backward = true;
}

/* Where a backward scan starts: the last entry inside the high bound
 * (every key extending an inclusive prefix sorts below the prefix and a
 * 0xFF byte: a key's bytes after a column start with a marker 0x01 or
 * 0x02). */
static int tb_seek_high(tbl_scan_t *s, err_t *e)
{
  if (!s->s_high)
    return bt_seek(s->s_cur, NULL, 0, BT_BACKWARD, e);
  if (!s->s_high_incl)
    return bt_seek(s->s_cur, s->s_high, s->s_high_len, BT_BACKWARD, e);
  uint8_t *k = arena_alloc(s->s_a, s->s_high_len + 1);
  memcpy(k, s->s_high, s->s_high_len);
  k[s->s_high_len] = 0xFF;
  return bt_seek(s->s_cur, k, s->s_high_len + 1, BT_BACKWARD, e);
}

/* Encodes a search key of any length into a: a value longer than a
 * stored key can be (BT_MAX_KEY) is no error for a search — it matches
 * nothing, and orders against stored keys as its first bytes do. */
int tb_search_key(const ty_t *types, const datum_t *vals, int n, arena_t *a, uint8_t **out,
                         size_t *len, err_t *e)
{
  /* encoded on the stack, then only its bytes kept: a vectored lookup
   * encodes a key per row, and BT_MAX_KEY bytes of fresh arena each made
   * a page fault per few keys (a fifth of a 75,000-row SPARQL result's
   * decoding time) */
  uint8_t tmp[BT_MAX_KEY];
  uint8_t *buf;
  if (tbl_key_encode(types, vals, n, tmp, BT_MAX_KEY, len, e) == CZ_OK) {
    buf = arena_alloc(a, *len ? *len : 1);
    memcpy(buf, tmp, *len);
    *out = buf;
    return CZ_OK;
  }
  if (!err_is(e, SQLSTATE_PROGRAM_LIMIT))
    return CZ_ERR;
  err_clear(e);
  buf = arena_alloc(a, *len);
  if (tbl_key_encode(types, vals, n, buf, *len, len, e) != CZ_OK)
    return CZ_ERR;
  *out = buf;
  return CZ_OK;
}

int tb_bound_encode(const cat_index_t *ix, const tbl_bound_t *b, arena_t *a, uint8_t **out,
                           size_t *len, err_t *e)
{
  *out = NULL;
  *len = 0;
  if (!b || b->tb_n <= 0)
    return CZ_OK;
  if (b->tb_n > ix->ci_nkeys)
    return err_set(e, SQLSTATE_INTERNAL, "bound on %d columns of index %s with %d", b->tb_n,
                   ix->ci_name, ix->ci_nkeys);
  return tb_search_key(ix->ci_key_types, b->tb_vals, b->tb_n, a, out, len, e);
}

int tbl_scan_open(txn_t *tx, const cat_table_t *t, int idx, const int *cols, int ncols,
                  const tbl_bound_t *low, const tbl_bound_t *high, bool want_loc, arena_t *a,
                  tbl_scan_t **out, err_t *e)
{
  *out = NULL;
  if (idx < 0 || idx >= t->ct_nindexes)
    return err_set(e, SQLSTATE_INTERNAL, "table %s has no index %d", t->ct_name, idx);
  for (int i = 0; i < ncols; i++)
    if (cols[i] < 0 || cols[i] >= t->ct_ncols)
      return err_set(e, SQLSTATE_INTERNAL, "table %s has no column %d", t->ct_name, cols[i]);
  tbl_scan_t *s = arena_zalloc(a, sizeof *s);
  s->s_tx = tx;
  /* What tx changes from now on (this statement's own writes) stays out
   * of this scan: no row is met again after an UPDATE moved it. */
  s->s_cmd = tx ? txn_command_next(tx) : 0;
  s->s_t = t;
  s->s_ix = t->ct_indexes[idx];
  s->s_ncols = ncols;
  s->s_cols = arena_alloc(a, sizeof(int) * (size_t)(ncols ? ncols : 1));
  if (ncols)
    memcpy(s->s_cols, cols, sizeof(int) * (size_t)ncols);
  s->s_want_loc = want_loc;
  s->s_a = a;
  s->s_fetch = idx > 0 && (want_loc || !tb_index_covers(s->s_ix, t, cols, ncols));
  s->s_row = arena_alloc(a, sizeof(datum_t) * (size_t)t->ct_ncols);
  s->s_all = arena_alloc(a, sizeof(int) * (size_t)t->ct_ncols);
  for (int i = 0; i < t->ct_ncols; i++)
    s->s_all[i] = i;
  s->s_piece = -1;
  if (tb_bound_encode(s->s_ix, low, a, &s->s_low, &s->s_low_len, e) != CZ_OK ||
      tb_bound_encode(s->s_ix, high, a, &s->s_high, &s->s_high_len, e) != CZ_OK)
    return CZ_ERR;
  s->s_low_incl = !low || low->tb_incl || low->tb_n == 0;
  s->s_high_incl = !high || high->tb_incl;
  if (bt_cursor_open(s->s_ix->ci_tree, &s->s_cur, e) != CZ_OK)
    return CZ_ERR;
  /* SERIALIZABLE conflict tracking: what the scan reads (txn_ssi.c) */
  txn_note_read(tx, s->s_ix->ci_dtree);
  if (s->s_fetch)
    txn_note_read(tx, t->ct_indexes[0]->ci_dtree);
  *out = s;
  return CZ_OK;
}

int tbl_scan_open_morsels(tbl_morsels_t *m, const int *cols, int ncols, bool want_loc, arena_t *a,
                          tbl_scan_t **out, err_t *e)
{
  const tbl_split_t *sp = m->m_split;
  /* opened without a transaction so that no command starts on this
   * (worker) thread: it reads in m's transaction as of m's command */
  if (tbl_scan_open(NULL, sp->sp_t, sp->sp_idx, cols, ncols, NULL, NULL, want_loc, a, out, e) != CZ_OK)
    return CZ_ERR;
  tbl_scan_t *s = *out;
  s->s_tx = m->m_tx;
  s->s_cmd = m->m_cmd;
  s->s_low = sp->sp_low;
  s->s_low_len = sp->sp_low_len;
  s->s_low_incl = sp->sp_low_incl;
  s->s_high = sp->sp_high;
  s->s_high_len = sp->sp_high_len;
  s->s_high_incl = sp->sp_high_incl;
  s->s_disp = m;
  return CZ_OK;
}

int tbl_scan_morsel(const tbl_scan_t *s)
{
  return s->s_piece;
}

int tbl_scan_filter(tbl_scan_t *s, const tbl_pred_t *preds, int n, err_t *e)
{
  if (s->s_started)
    return err_set(e, SQLSTATE_INTERNAL, "predicates added to a started scan");
  for (int j = 0; j < n; j++)
    if (preds[j].tp_out < 0 || preds[j].tp_out >= s->s_ncols)
      return err_set(e, SQLSTATE_INTERNAL, "predicate on column %d of a scan of %d",
                     preds[j].tp_out, s->s_ncols);
  s->s_preds = preds;
  s->s_npred = n;
  return CZ_OK;
}

void tbl_scan_close(tbl_scan_t *s)
{
  if (s && s->s_col) {
    tb_colscan_close(s->s_col);
    s->s_col = NULL;
  }
  if (s && s->s_cur) {
    bt_cursor_close(s->s_cur);
    s->s_cur = NULL;
  }
}

/* Byte order of keys, the shorter first on a tie (the trees' order). */
static int tb_keycmp(const uint8_t *k, size_t kl, const bt_key_t *b)
{
  int c = memcmp(k, b->k_data, CZ_MIN(kl, (size_t)b->k_len));
  return c ? c : kl < b->k_len ? -1 : kl > b->k_len;
}

/* The scan's range (or its morsel) is done: a morsel scan goes on with
 * the next morsel at its next batch. */
static void tb_range_end(tbl_scan_t *s)
{
  if (s->s_disp)
    s->s_in_piece = false;
  else
    s->s_done = true;
}

/* A morsel scan takes its next morsel and seeks to its start; none left
 * ends the scan. */
static int tb_take_piece(tbl_scan_t *s, err_t *e)
{
  const uint8_t *from;
  size_t from_len;
  if (tb_morsel_take(s->s_disp, &s->s_piece, &from, &from_len, &s->s_pend) != CZ_OK) {
    s->s_done = true;
    return CZ_OK;
  }
  s->s_in_piece = true;
  return bt_seek(s->s_cur, from, from_len, BT_FORWARD, e);
}

/* -1 before the range (skip), 0 in it, 1 past it (stop). */
static int tb_in_range(const tbl_scan_t *s, const uint8_t *k, size_t kl)
{
  if (!s->s_low_incl && s->s_low && kl >= s->s_low_len && memcmp(k, s->s_low, s->s_low_len) == 0)
    return -1;
  if (s->s_high) {
    size_t m = CZ_MIN(kl, s->s_high_len);
    int c = memcmp(k, s->s_high, m);
    if (c > 0)
      return 1;
    if (c == 0 && kl >= s->s_high_len && !s->s_high_incl)
      return 1;
  }
  return 0;
}

/* A backward scan's tb_in_range: 1 once below the low bound (stop), -1
 * inside an exclusive high bound's prefix (skip), else 0. */
static int tb_in_range_back(const tbl_scan_t *s, const uint8_t *k, size_t kl)
{
  if (s->s_low) {
    int c = memcmp(k, s->s_low, CZ_MIN(kl, s->s_low_len));
    if (c < 0 || (c == 0 && (kl < s->s_low_len || !s->s_low_incl)))
      return 1;
  }
  if (s->s_high) {
    int c = memcmp(k, s->s_high, CZ_MIN(kl, s->s_high_len));
    if (c > 0 || (c == 0 && kl >= s->s_high_len && !s->s_high_incl))
      return -1;
  }
  return 0;
}

/* tb_in_range, and past a morsel's exclusive end too (a morsel scan). */
static int tb_past_end(const tbl_scan_t *s, const uint8_t *k, size_t kl)
{
  return s->s_pend && tb_keycmp(k, kl, s->s_pend) >= 0 ? 1 : tb_in_range(s, k, kl);
}

static void tb_put_loc(vec_t *v, int r, const uint8_t *pk, size_t pk_len, const void *val,
                       size_t val_len, arena_t *a)
{
  uint8_t *loc = arena_alloc(a, pk_len + TBL_LOC_HASH);
  memcpy(loc, pk, pk_len);
  uint64_t h = tb_row_hash(val, val_len);
  for (int i = 0; i < TBL_LOC_HASH; i++)
    loc[pk_len + (size_t)i] = (uint8_t)(h >> (8 * i));
  v->v_null[r] = 0;
  v->v_str[r].s_ptr = (const char *)loc;
  v->v_str[r].s_len = (uint32_t)(pk_len + TBL_LOC_HASH);
}

static void tb_move_row(batch_t *out, int ncols, int from, int to);

/* ---- out-of-line values of a batch ------------------------------------ */

/* A reference met while decoding a batch, fetched after the latches go. */
typedef struct tb_pend_s {
  int p_row, p_col;
  tb_ref_t p_ref;
  const uint8_t *p_pk;        /* the row's primary key (arena) */
  uint32_t p_pk_len;
} tb_pend_t;

typedef struct tb_pends_s {
  tb_pend_t *pl_v;
  int pl_n, pl_cap;
  uint64_t pl_bytes;          /* their total length */
} tb_pends_t;

static void tb_pend_add(tb_pends_t *pl, arena_t *a, int row, int col, const tb_ref_t *ref,
                        const uint8_t *pk, size_t pk_len)
{
  if (pl->pl_n == pl->pl_cap) {
    int cap = pl->pl_cap ? pl->pl_cap * 2 : 16;
    tb_pend_t *v = arena_alloc(a, sizeof *v * (size_t)cap);
    if (pl->pl_n)
      memcpy(v, pl->pl_v, sizeof *v * (size_t)pl->pl_n);
    pl->pl_v = v;
    pl->pl_cap = cap;
  }
  pl->pl_v[pl->pl_n++] = (tb_pend_t){ row, col, *ref, pk, (uint32_t)pk_len };
  pl->pl_bytes += ref->lr_len;
}

/* Decodes a stored row's wanted columns into row r of out; references
 * go to pl (pk: the row's key, copied when copy_pk: it may point into a
 * latched page). */
static int tb_put_row(const cat_table_t *t, const int *cols, int ncols, const void *val, size_t vl,
                      batch_t *out, int r, arena_t *a, datum_t *tmp, tb_ref_t *refs, tb_pends_t *pl,
                      const uint8_t *pk, size_t pk_len, bool copy_pk, err_t *e)
{
  if (tb_row_decode_refs(t->ct_types, t->ct_ncols, val, vl, cols, ncols, a, tmp, refs, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < ncols; i++) {
    vec_set(&out->b_cols[i], r, &tmp[i]);
    if (!refs[i].lr_on)
      continue;
    if (copy_pk) {
      uint8_t *c = arena_alloc(a, pk_len ? pk_len : 1);
      memcpy(c, pk, pk_len);
      pk = c;
      copy_pk = false;
    }
    tb_pend_add(pl, a, r, i, &refs[i], pk, pk_len);
  }
  return CZ_OK;
}

typedef struct tb_one_s {
  const txn_t *o_tx;
  uint32_t o_cmd;
  db_tree_t *o_dt;
  const bt_key_t *o_key;
  arena_t *o_a;
  const void *o_val;
  size_t o_len;
  bool o_found;
  const cat_table_t *o_t;     /* its column table's values are transcoded */
} tb_one_t;

static void tb_one_cb(void *ctx, int ki, bool found, const void *val, size_t vl)
{
  tb_one_t *o = ctx;
  (void)ki;
  o->o_found = false;
  if (!found)
    return;
  const void *v = val;
  size_t l = vl;
  if (txn_read_version_at(o->o_tx, o->o_cmd, o->o_dt, o->o_key->k_data, o->o_key->k_len, o->o_a, &v,
                          &l) == TXN_VIS_ABSENT)
    return;
  if (o->o_t && tb_is_column(o->o_t)) {
    err_t scratch;
    if (tb_col_row(o->o_t, v, l, o->o_a, &v, &l, &scratch) != CZ_OK)
      return;  /* a row that does not parse reads as gone; bt_check reports it */
  }
  void *c = arena_alloc(o->o_a, l ? l : 1);
  memcpy(c, v, l);
  o->o_val = c;
  o->o_len = l;
  o->o_found = true;
}

/* Reads row r again by its key, as it is now, with its long values;
 * *found false when it is gone. Retries while a committing writer's
 * chunks are in flux (its locks are released one by one). */
int tb_reread(const txn_t *tx, uint32_t cmd, const cat_table_t *t, const int *cols, int ncols,
                     bool want_loc, const uint8_t *pk, size_t pk_len, batch_t *out, int r,
                     bool *found, arena_t *a, err_t *e)
{
  datum_t *tmp = arena_alloc(a, sizeof(datum_t) * (size_t)(ncols ? ncols : 1));
  tb_ref_t *refs = arena_alloc(a, sizeof(tb_ref_t) * (size_t)(ncols ? ncols : 1));
  bt_key_t key = { pk, (uint32_t)pk_len };
  for (int attempt = 0; attempt < 2000; attempt++) {
    if (attempt > 20)
      usleep(1000);
    else if (attempt > 0)
      sched_yield();
    tb_one_t o = { .o_tx = tx, .o_cmd = cmd, .o_dt = t->ct_indexes[0]->ci_dtree, .o_key = &key, .o_a = a,
                   .o_t = t };
    if (bt_lookup_batch(t->ct_indexes[0]->ci_tree, &key, 1, tb_one_cb, &o, e) != CZ_OK)
      return CZ_ERR;
    if (!o.o_found) {
      *found = false;
      return CZ_OK;
    }
    if (tb_row_decode_refs(t->ct_types, t->ct_ncols, o.o_val, o.o_len, cols, ncols, a, tmp, refs, e) !=
        CZ_OK)
      return CZ_ERR;
    bool missing = false;
    for (int i = 0; i < ncols && !missing; i++)
      if (refs[i].lr_on && tb_long_fetch(tx, cmd, t, &refs[i], a, &tmp[i].d_str, &missing, e) != CZ_OK)
        return CZ_ERR;
    if (missing)
      continue;
    for (int i = 0; i < ncols; i++)
      vec_set(&out->b_cols[i], r, &tmp[i]);
    if (want_loc)
      tb_put_loc(&out->b_cols[ncols], r, pk, pk_len, o.o_val, o.o_len, a);
    *found = true;
    return CZ_OK;
  }
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "out-of-line values of a row of %s stay missing",
                 t->ct_name);
}

/* Fetches the values pl names into out; rows that had to be read again
 * and were gone get gone[row] = true. */
static int tb_resolve(const txn_t *tx, uint32_t cmd, const cat_table_t *t, const int *cols,
                      int ncols, bool want_loc, const tb_pends_t *pl, batch_t *out, bool *gone,
                      arena_t *a, err_t *e)
{
  int redone = -1;
  for (int i = 0; i < pl->pl_n; i++) {
    const tb_pend_t *p = &pl->pl_v[i];
    if (p->p_row == redone)
      continue;
    datum_t d;
    memset(&d, 0, sizeof d);
    bool missing;
    if (tb_long_fetch(tx, cmd, t, &p->p_ref, a, &d.d_str, &missing, e) != CZ_OK)
      return CZ_ERR;
    if (!missing) {
      vec_set(&out->b_cols[p->p_col], p->p_row, &d);
      continue;
    }
    bool found;
    tb_long_note_reread();
    if (tb_reread(tx, cmd, t, cols, ncols, want_loc, p->p_pk, p->p_pk_len, out, p->p_row, &found, a,
                  e) != CZ_OK)
      return CZ_ERR;
    if (!found)
      gone[p->p_row] = true;
    redone = p->p_row;
  }
  return CZ_OK;
}

/* A covered index entry: key columns, pk columns and INCLUDE columns give
 * the wanted ones. */
static int tb_put_index_entry(tbl_scan_t *s, const uint8_t *k, size_t kl, const void *v, size_t vl,
                              batch_t *out, int r, arena_t *a, err_t *e)
{
  const cat_index_t *ix = s->s_ix;
  const cat_table_t *t = s->s_t;
  datum_t kv[CAT_MAX_INDEX_KEYS];
  size_t used = 0;
  for (int i = 0; i < t->ct_ncols; i++) {
    memset(&s->s_row[i], 0, sizeof(datum_t));
    s->s_row[i].d_null = true;
  }
  if (tbl_key_decode(ix->ci_key_types, ix->ci_nkeys, k, kl, a, kv, &used, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < ix->ci_nkeys; i++)
    s->s_row[ix->ci_keys[i]] = kv[i];
  if (t->ct_npk > 0) {
    int npk;
    const ty_t *pt = tb_pk_types(t, &npk);
    if (tbl_key_decode(pt, npk, k + used, kl - used, a, kv, NULL, e) != CZ_OK)
      return CZ_ERR;
    for (int i = 0; i < npk; i++)
      s->s_row[t->ct_pk[i]] = kv[i];
  }
  if (ix->ci_ninclude > 0) {
    ty_t it[CAT_MAX_INDEX_KEYS];
    int seq[CAT_MAX_INDEX_KEYS];
    for (int i = 0; i < ix->ci_ninclude; i++) {
      it[i] = t->ct_types[ix->ci_include[i]];
      seq[i] = i;
    }
    if (ix->ci_layout == CAT_LAYOUT_COLUMN) {
      /* a column row of the INCLUDE columns (tb_index_entry) */
      ty_phys_t kinds[CAT_MAX_INDEX_KEYS];
      int got = 0;
      if (bt_crow_parse(v, vl, ix->ci_ninclude, kinds, kv, &got, e) != CZ_OK)
        return CZ_ERR;
      for (int i = got; i < ix->ci_ninclude; i++) {
        memset(&kv[i], 0, sizeof kv[i]);
        kv[i].d_null = true;
      }
      /* strings into a: the cursor's column row goes at its next step */
      for (int i = 0; i < got; i++)
        if (!kv[i].d_null && kinds[i] == TP_STR) {
          char *p = arena_alloc(a, kv[i].d_str.s_len ? kv[i].d_str.s_len : 1);
          memcpy(p, kv[i].d_str.s_ptr, kv[i].d_str.s_len);
          kv[i].d_str.s_ptr = p;
        }
    } else if (tbl_row_decode(it, ix->ci_ninclude, v, vl, seq, ix->ci_ninclude, a, kv, e) !=
               CZ_OK) {
      return CZ_ERR;
    }
    for (int i = 0; i < ix->ci_ninclude; i++)
      s->s_row[ix->ci_include[i]] = kv[i];
  }
  for (int i = 0; i < s->s_ncols; i++)
    vec_set(&out->b_cols[i], r, &s->s_row[s->s_cols[i]]);
  return CZ_OK;
}

/* ---- fetching rows by primary key ------------------------------------- */

typedef struct tb_fetch_s {
  const txn_t *f_tx;
  uint32_t f_cmd;
  const cat_table_t *f_t;
  const int *f_cols;
  int f_ncols;
  bool f_want_loc;
  const bt_key_t *f_keys;     /* sorted */
  const int *f_pos;           /* sorted index -> output row */
  batch_t *f_out;
  bool *f_found;              /* by output row */
  arena_t *f_a;
  datum_t *f_tmp;
  tb_ref_t *f_refs;
  tb_pends_t f_pl;
  err_t *f_e;
  int f_rc;
} tb_fetch_t;

static void tb_fetch_cb(void *ctx, int ki, bool found, const void *val, size_t vl)
{
  tb_fetch_t *f = ctx;
  int r = f->f_pos[ki];
  f->f_found[r] = false;
  if (!found || f->f_rc != CZ_OK)
    return;
  const bt_key_t *k = &f->f_keys[ki];
  const void *v = val;
  size_t l = vl;
  txn_vis_t vis = txn_read_version_at(f->f_tx, f->f_cmd, f->f_t->ct_indexes[0]->ci_dtree, k->k_data,
                                      k->k_len, f->f_a, &v, &l);
  if (vis == TXN_VIS_ABSENT)
    return;
  if (tb_is_column(f->f_t) && tb_col_row(f->f_t, v, l, f->f_a, &v, &l, f->f_e) != CZ_OK) {
    f->f_rc = CZ_ERR;
    return;
  }
  if (tb_put_row(f->f_t, f->f_cols, f->f_ncols, v, l, f->f_out, r, f->f_a, f->f_tmp, f->f_refs,
                 &f->f_pl, k->k_data, k->k_len, false, f->f_e) != CZ_OK) {
    f->f_rc = CZ_ERR;
    return;
  }
  if (f->f_want_loc)
    tb_put_loc(&f->f_out->b_cols[f->f_ncols], r, k->k_data, k->k_len, v, l, f->f_a);
  f->f_found[r] = true;
}

/* Sorts keys[0..n) by bytes; perm[i] = original position of sorted key i. */
void tb_sort(bt_key_t *keys, int *perm, int n, arena_t *a)
{
  bool sorted = true;
  for (int i = 0; i < n; i++)
    perm[i] = i;
  for (int i = 1; i < n && sorted; i++) {
    size_t m = CZ_MIN(keys[i - 1].k_len, keys[i].k_len);
    int c = memcmp(keys[i - 1].k_data, keys[i].k_data, m);
    sorted = c < 0 || (c == 0 && keys[i - 1].k_len <= keys[i].k_len);
  }
  if (sorted)
    return;
  /* A merge sort of the permutation (qsort has no context argument). */
  int *tmp = arena_alloc(a, sizeof(int) * (size_t)n);
  for (int w = 1; w < n; w *= 2) {
    for (int lo = 0; lo < n; lo += 2 * w) {
      int mid = CZ_MIN(lo + w, n), hi = CZ_MIN(lo + 2 * w, n);
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        const bt_key_t *x = &keys[perm[i]], *y = &keys[perm[j]];
        size_t m = CZ_MIN(x->k_len, y->k_len);
        int c = memcmp(x->k_data, y->k_data, m);
        if (c == 0)
          c = x->k_len < y->k_len ? -1 : x->k_len > y->k_len;
        tmp[k++] = c <= 0 ? perm[i++] : perm[j++];
      }
      while (i < mid)
        tmp[k++] = perm[i++];
      while (j < hi)
        tmp[k++] = perm[j++];
    }
    memcpy(perm, tmp, sizeof(int) * (size_t)n);
  }
  bt_key_t *sk = arena_alloc(a, sizeof *sk * (size_t)n);
  for (int i = 0; i < n; i++)
    sk[i] = keys[perm[i]];
  memcpy(keys, sk, sizeof *sk * (size_t)n);
}

int tb_fetch(const txn_t *tx, uint32_t cmd, const cat_table_t *t, const int *cols, int ncols,
                    bool want_loc, bt_key_t *keys, int n, batch_t *out, bool *found, arena_t *a,
                    err_t *e)
{
  int *perm = arena_alloc(a, sizeof(int) * (size_t)(n ? n : 1));
  tb_sort(keys, perm, n, a);
  for (int r = 0; r < n; r++) {
    for (int c = 0; c < ncols + (want_loc ? 1 : 0); c++)
      out->b_cols[c].v_null[r] = 1;
    found[r] = false;
  }
  tb_fetch_t f = { .f_tx = tx, .f_cmd = cmd, .f_t = t, .f_cols = cols, .f_ncols = ncols, .f_want_loc = want_loc,
                   .f_keys = keys, .f_pos = perm, .f_out = out, .f_found = found, .f_a = a,
                   .f_tmp = arena_alloc(a, sizeof(datum_t) * (size_t)(ncols ? ncols : 1)),
                   .f_refs = arena_alloc(a, sizeof(tb_ref_t) * (size_t)(ncols ? ncols : 1)), .f_e = e,
                   .f_rc = CZ_OK };
  if (n > 0 && bt_lookup_batch(t->ct_indexes[0]->ci_tree, keys, n, tb_fetch_cb, &f, e) != CZ_OK)
    return CZ_ERR;
  if (f.f_rc != CZ_OK || f.f_pl.pl_n == 0)
    return f.f_rc;
  bool *gone = arena_zalloc(a, sizeof(bool) * (size_t)n);
  if (tb_resolve(tx, cmd, t, cols, ncols, want_loc, &f.f_pl, out, gone, a, e) != CZ_OK)
    return CZ_ERR;
  for (int r = 0; r < n; r++) {
    if (!gone[r])
      continue;
    found[r] = false;
    for (int c = 0; c < ncols + (want_loc ? 1 : 0); c++)
      out->b_cols[c].v_null[r] = 1;
  }
  return CZ_OK;
}

static void tb_move_row(batch_t *out, int ncols, int from, int to)
{
  for (int c = 0; c < ncols; c++) {
    datum_t d;
    vec_get(&out->b_cols[c], from, &d);
    vec_set(&out->b_cols[c], to, &d);
  }
}

/* ---- the scan --------------------------------------------------------- */


static int tb_scan_batch(tbl_scan_t *s, batch_t *out, arena_t *a, err_t *e)
{
  return tb_scan_fill(s, out, 0, NULL, a, e);
}

static int tb_seek_near(tbl_scan_t *s, err_t *e);

/* A batch of a filtered scan stops after the rows of this many batches
 * were examined (a rejected row weighs 1, a kept one TB_REJECT_WEIGHT). */
#define TB_REJECT_WEIGHT_BATCHES 16
#define TB_REJECT_WEIGHT 64

/* Fills rows *n.. of out from the primary tree, a leaf run at a time
 * (the decode loop): while a leaf is pinned its entries are decoded one
 * after the other with no cursor step between them. A key is built only
 * when something needs it: a run that reaches past a bound is checked
 * entry by entry, a tree with locked keys has each entry's visibility
 * checked, locators and out-of-line values carry the key. A tree without
 * locked keys while the leaf is latched holds only committed rows, and
 * none can change before the latch goes (readers check visibility under
 * the latch, README invariant 4): the whole run is read as it is. */
static int tb_scan_rows(tbl_scan_t *s, batch_t *out, int cap, arena_t *a, tb_ref_t *refs,
                        tb_pends_t *pl, int *np, err_t *e)
{
  if (!s->s_run) {
    s->s_run = arena_alloc(s->s_a, sizeof *s->s_run);
    s->s_kbuf = arena_alloc(s->s_a, BT_MAX_KEY + 1);
  }
  bt_run_t *run = s->s_run;
  uint8_t *kb = s->s_kbuf;
  const cat_index_t *ix = s->s_ix;
  const tb_dplan_t *dp = s->s_plan;
  int n = *np;
  int64_t budget = (int64_t)cap * TB_REJECT_WEIGHT_BATCHES * TB_REJECT_WEIGHT;
  /* a morsel scan stops at its morsel's end (tb_range_end): the next
   * batch takes the next morsel */
  while (n < cap && pl->pl_bytes < TB_BATCH_LONG_BYTES && budget > 0 && !s->s_done &&
         (!s->s_disp || s->s_in_piece)) {
    int rc = bt_next_run(s->s_cur, BT_RUN_MAX, run, e);
    if (rc == BT_END) {
      tb_range_end(s);
      break;
    }
    if (rc != CZ_OK)
      return CZ_ERR;
    int rn = run->br_n;
    /* Keys ascend: only a run's first entries can fall before an
     * exclusive low bound and only its last ones past the high bound. */
    bool ranged = false;
    if (s->s_low && !s->s_low_incl) {
      size_t kl = bt_run_key(run, 0, kb);
      ranged = tb_in_range(s, kb, kl) != 0;
    }
    if (!ranged && (s->s_high || s->s_pend)) {
      size_t kl = bt_run_key(run, rn - 1, kb);
      ranged = tb_past_end(s, kb, kl) != 0;
    }
    bool locked = !txn_tree_plain(s->s_tx, ix->ci_dtree);
    bool need_key = ranged || locked || s->s_want_loc;
    int i = 0;
    for (; i < rn && n < cap && budget > 0 && pl->pl_bytes < TB_BATCH_LONG_BYTES; i++) {
      if (!need_key) {
        /* the plain rows from here on, a step of the plan at a time */
        int used, made;
        if (tb_row_decode_rows(dp, run->br_val + i, run->br_vlen + i, rn - i, out, n, cap - n, a,
                               &used, &made, e) != CZ_OK)
          return CZ_ERR;
        if (used > 0) {
          budget -= (int64_t)made * TB_REJECT_WEIGHT + (used - made);
          n += made;
          i += used - 1;
          continue;
        }
      }
      budget -= TB_REJECT_WEIGHT;
      const void *v = run->br_val[i];
      size_t vl = run->br_vlen[i];
      size_t kl = 0;
      if (need_key)
        kl = bt_run_key(run, i, kb);
      if (ranged) {
        int in = tb_past_end(s, kb, kl);
        if (in < 0)
          continue;
        if (in > 0) {
          tb_range_end(s);
          break;
        }
      }
      if (locked &&
          txn_read_version_at(s->s_tx, s->s_cmd, ix->ci_dtree, kb, kl, a, &v, &vl) == TXN_VIS_ABSENT)
        continue;
      int nrefs;
      bool pass;
      if (tb_row_decode_vec(dp, v, vl, out, n, a, refs, &nrefs, &pass, e) != CZ_OK)
        return CZ_ERR;
      if (!pass) {
        budget += TB_REJECT_WEIGHT - 1;
        continue;
      }
      if (nrefs) {
        /* the key points into the latched page or kb */
        if (!need_key)
          kl = bt_run_key(run, i, kb);
        uint8_t *pk = arena_alloc(a, kl ? kl : 1);
        memcpy(pk, kb, kl);
        for (int c = 0; c < s->s_ncols; c++)
          if (refs[c].lr_on)
            tb_pend_add(pl, a, n, c, &refs[c], pk, kl);
      }
      if (s->s_want_loc)
        tb_put_loc(&out->b_cols[s->s_ncols], n, kb, kl, v, vl, a);
      n++;
    }
    bt_run_take(s->s_cur, run, i);
  }
  *np = n;
  return CZ_OK;
}

int tbl_scan_step(tbl_scan_t *s, batch_t *out, arena_t *a, bool *done, err_t *e)
{
  int rc = tb_scan_batch(s, out, a, e);
  *done = s->s_done && out->b_n == 0;
  return rc;
}

int tbl_scan_next(tbl_scan_t *s, batch_t *out, arena_t *a, err_t *e)
{
  /* A fetching scan whose whole batch vanished between the index and the
   * rows goes on with the next batch rather than report an early end. */
  int rc;
  do
    rc = tb_scan_batch(s, out, a, e);
  while (rc == CZ_OK && out->b_n == 0 && !s->s_done);
  return rc;
}

/* tb_scan_fill of a column table's primary tree, forward: the column
 * tree's vectored scan (tb_col_scan.c), its range started again for each
 * morsel and after a re-aim (tb_scan_aim: probes). A morsel scan fills a
 * batch from one piece only. */
static int tb_scan_fill_col(tbl_scan_t *s, batch_t *out, int n0, int cap, arena_t *a, err_t *e)
{
  bool fresh = !s->s_started || s->s_reseek;
  s->s_started = true;
  s->s_reseek = false;
  if (!s->s_col && tb_colscan_new(s->s_tx, s->s_cmd, s->s_t, s->s_cols, s->s_ncols, s->s_want_loc,
                                  s->s_preds, s->s_npred, cap, s->s_a, &s->s_col, e) != CZ_OK)
    return CZ_ERR;
  tb_colscan_hold(s->s_col, s->s_hold);
  if (fresh && !s->s_disp) {
    s->s_in_piece = false;
    if (tb_colscan_range(s->s_col, s->s_low, s->s_low_len, s->s_low_incl, s->s_high,
                         s->s_high_len, s->s_high_incl, NULL, NULL, e) != CZ_OK)
      return CZ_ERR;
    s->s_in_piece = true;
  }
  int n = n0;
  while (n < cap && !s->s_done) {
    if (!s->s_in_piece) {
      /* a morsel scan's next piece */
      const uint8_t *f;
      size_t fl;
      if (tb_morsel_take(s->s_disp, &s->s_piece, &f, &fl, &s->s_pend) != CZ_OK) {
        s->s_done = true;
        break;
      }
      bt_key_t from = {f, (uint32_t)fl};
      if (tb_colscan_range(s->s_col, s->s_low, s->s_low_len, s->s_low_incl, s->s_high,
                           s->s_high_len, s->s_high_incl, &from, s->s_pend, e) != CZ_OK)
        return CZ_ERR;
      s->s_in_piece = true;
    }
    bool ended;
    if (tb_colscan_fill(s->s_col, out, &n, cap, a, &ended, e) != CZ_OK)
      return CZ_ERR;
    if (!ended)
      break;  /* full, or enough rows examined for one call */
    tb_colscan_end(s->s_col);
    s->s_in_piece = false;
    if (!s->s_disp) {
      s->s_done = true;
    } else if (n > n0) {
      break;
    }
  }
  out->b_n = n;
  return CZ_OK;
}

int tb_scan_fill(tbl_scan_t *s, batch_t *out, int n0, bt_key_t *defer, arena_t *a, err_t *e)
{
  out->b_n = n0;
  if (s->s_done)
    return CZ_OK;
  int cap = out->b_ncols > 0 ? out->b_cols[0].v_cap : 0;
  if (out->b_ncols < s->s_ncols + (s->s_want_loc ? 1 : 0))
    return err_set(e, SQLSTATE_INTERNAL, "scan batch has %d columns, %d wanted", out->b_ncols,
                   s->s_ncols + (s->s_want_loc ? 1 : 0));
  if (cap <= 0)
    return err_set(e, SQLSTATE_INTERNAL, "scan batch without capacity");
  if (s->s_ix->ci_no == 0 && tb_is_column(s->s_t) && !s->s_backward)
    return tb_scan_fill_col(s, out, n0, cap, a, e);
  if (!s->s_started) {
    s->s_started = true;
    if (s->s_ix->ci_no == 0 &&
        tb_dplan_build(s->s_t->ct_types, s->s_t->ct_ncols, s->s_cols, s->s_ncols, s->s_preds,
                       s->s_npred, s->s_a, &s->s_plan, e) != CZ_OK)
      return CZ_ERR;
    if (!s->s_disp && (s->s_backward ? tb_seek_high(s, e)
                                     : bt_seek(s->s_cur, s->s_low, s->s_low_len, BT_FORWARD, e)) !=
                          CZ_OK)
      return CZ_ERR;
    s->s_reseek = false;
  }
  if (s->s_reseek) {
    s->s_reseek = false;
    int near = s->s_near ? tb_seek_near(s, e) : 0;
    if (near < 0 || (near == 0 && bt_seek(s->s_cur, s->s_low, s->s_low_len, BT_FORWARD, e) != CZ_OK))
      return CZ_ERR;
  }
  if (s->s_disp && !s->s_in_piece && tb_take_piece(s, e) != CZ_OK)
    return CZ_ERR;
  if (s->s_done)
    return CZ_OK;
  const cat_index_t *ix = s->s_ix;
  bool primary = ix->ci_no == 0;
  bool runs = primary && !s->s_backward;  /* the leaf-run decode loop */
  if (n0 > 0 && s->s_fetch && !defer)
    return err_set(e, SQLSTATE_INTERNAL, "a fetching scan fills from row 0");
  bt_key_t *pks = defer ? defer : s->s_fetch ? arena_alloc(a, sizeof *pks * (size_t)cap) : NULL;
  tb_ref_t *refs = arena_alloc(a, sizeof(tb_ref_t) * (size_t)(s->s_ncols ? s->s_ncols : 1));
  tb_pends_t pl = { NULL, 0, 0, 0 };
  int n = n0;
  /* Rows a predicate rejects count too, a little: a selective scan still
   * releases its cursor (writers) and returns to its caller (cancel)
   * every so often, with fewer rows or none. */
  int64_t budget = (int64_t)cap * TB_REJECT_WEIGHT_BATCHES * TB_REJECT_WEIGHT;
  if (runs && tb_scan_rows(s, out, cap, a, refs, &pl, &n, e) != CZ_OK) {
    bt_cursor_release(s->s_cur);
    return CZ_ERR;
  }
  /* index entries a leaf run at a time; the entry past the range is left
   * to the cursor (not taken), as the primary scan leaves it, so a probe
   * moving on to the next prefix starts from it (tb_seek_near) */
  /* a column index (no leaf runs: bt_next_run is the row leaves') is
   * read entry by entry below, as a backward scan is */
  bool col_index = !primary && ix->ci_layout == CAT_LAYOUT_COLUMN;
  bool index_runs = !primary && !s->s_backward && !col_index;
  if (index_runs && !s->s_run) {
    s->s_run = arena_alloc(s->s_a, sizeof *s->s_run);
    s->s_kbuf = arena_alloc(s->s_a, BT_MAX_KEY + 1);
  }
  bool ended = false;
  while (index_runs && n < cap && budget > 0 && !ended) {
    bt_run_t *run = s->s_run;
    int rc = bt_next_run(s->s_cur, BT_RUN_MAX, run, e);
    if (rc == BT_END) {
      tb_range_end(s);
      break;
    }
    if (rc != CZ_OK) {
      bt_cursor_release(s->s_cur);
      return CZ_ERR;
    }
    int i = 0;
    for (; i < run->br_n && n < cap && budget > 0; i++) {
      budget -= TB_REJECT_WEIGHT;
      uint8_t *k = s->s_kbuf;
      size_t kl = bt_run_key(run, i, k);
      const void *v = run->br_val[i];
      size_t vl = run->br_vlen[i];
      int in = tb_past_end(s, k, kl);
      if (in < 0)
        continue;
      if (in > 0) {
        tb_range_end(s);
        ended = true;
        break;
      }
      if (txn_read_version_at(s->s_tx, s->s_cmd, ix->ci_dtree, k, kl, a, &v, &vl) == TXN_VIS_ABSENT)
        continue;
      if (s->s_fetch) {
        size_t pre = tbl_key_skip(ix->ci_key_types, ix->ci_nkeys, k, kl);
        uint8_t *pk = arena_alloc(a, kl - pre + 1);
        memcpy(pk, k + pre, kl - pre);
        pks[n].k_data = pk;
        pks[n].k_len = (uint32_t)(kl - pre);
      } else if (tb_put_index_entry(s, k, kl, v, vl, out, n, a, e) != CZ_OK) {
        bt_cursor_release(s->s_cur);
        return CZ_ERR;
      }
      n++;
    }
    bt_run_take(s->s_cur, run, i);
  }
  /* a backward scan, entry by entry (leaf runs are forward only), and a
   * column index's forward one; their rows' predicates are tested below */
  while ((s->s_backward || col_index) && n < cap && budget > 0) {
    budget -= TB_REJECT_WEIGHT;
    const void *k, *v;
    size_t kl, vl;
    int rc = bt_next(s->s_cur, &k, &kl, &v, &vl, e);
    if (rc == BT_END) {
      tb_range_end(s);
      break;
    }
    if (rc != CZ_OK) {
      bt_cursor_release(s->s_cur);
      return CZ_ERR;
    }
    int in = s->s_backward ? tb_in_range_back(s, k, kl) : tb_past_end(s, k, kl);
    if (in < 0)
      continue;
    if (in > 0) {
      tb_range_end(s);
      break;
    }
    if (txn_read_version_at(s->s_tx, s->s_cmd, ix->ci_dtree, k, kl, a, &v, &vl) == TXN_VIS_ABSENT)
      continue;
    if (primary) {
      if (tb_put_row(s->s_t, s->s_cols, s->s_ncols, v, vl, out, n, a, s->s_row, refs, &pl, k, kl,
                     true, e) != CZ_OK) {
        bt_cursor_release(s->s_cur);
        return CZ_ERR;
      }
      if (s->s_want_loc)
        tb_put_loc(&out->b_cols[s->s_ncols], n, k, kl, v, vl, a);
    } else if (s->s_fetch) {
      size_t pre = tbl_key_skip(ix->ci_key_types, ix->ci_nkeys, k, kl);
      uint8_t *pk = arena_alloc(a, kl - pre + 1);
      memcpy(pk, (const uint8_t *)k + pre, kl - pre);
      pks[n].k_data = pk;
      pks[n].k_len = (uint32_t)(kl - pre);
    } else if (tb_put_index_entry(s, k, kl, v, vl, out, n, a, e) != CZ_OK) {
      bt_cursor_release(s->s_cur);
      return CZ_ERR;
    }
    n++;
  }
  /* a probe keeps its leaf between prefixes; long values are read with
   * no latch held */
  if (!s->s_hold || pl.pl_n > 0)
    bt_cursor_release(s->s_cur);
  if (pl.pl_n > 0) {
    bool *gone = arena_zalloc(a, sizeof(bool) * (size_t)n);
    if (tb_resolve(s->s_tx, s->s_cmd, s->s_t, s->s_cols, s->s_ncols, s->s_want_loc, &pl, out, gone,
                   a, e) != CZ_OK)
      return CZ_ERR;
    /* rows with out-of-line values: their predicates are tested now that
     * the values are read (a row read again may have changed too) */
    if (s->s_npred)
      for (int i = 0; i < pl.pl_n; i++) {
        int r = pl.pl_v[i].p_row;
        if (!gone[r] && !tbl_preds_pass(s->s_preds, s->s_npred, out, r))
          gone[r] = true;
      }
    int w = n0;
    for (int r = n0; r < n; r++) {
      if (gone[r])
        continue;
      if (w != r)
        tb_move_row(out, s->s_ncols + (s->s_want_loc ? 1 : 0), r, w);
      w++;
    }
    n = w;
  }
  if (s->s_fetch && n > 0 && !defer) {
    bool *found = arena_alloc(a, sizeof(bool) * (size_t)n);
    if (tb_fetch(s->s_tx, s->s_cmd, s->s_t, s->s_cols, s->s_ncols, s->s_want_loc, pks, n, out,
                 found, a, e) != CZ_OK)
      return CZ_ERR;
    int w = 0;
    for (int r = 0; r < n; r++) {
      if (!found[r] || (s->s_npred && !tbl_preds_pass(s->s_preds, s->s_npred, out, r)))
        continue;
      if (w != r)
        tb_move_row(out, s->s_ncols + (s->s_want_loc ? 1 : 0), r, w);
      w++;
    }
    n = w;
  }
  if (s->s_npred && !runs && !s->s_fetch) {
    /* covered index entries and a backward scan's rows: tested once decoded */
    int w = n0;
    for (int r = n0; r < n; r++) {
      if (!tbl_preds_pass(s->s_preds, s->s_npred, out, r))
        continue;
      if (w != r)
        tb_move_row(out, s->s_ncols + (s->s_want_loc ? 1 : 0), r, w);
      w++;
    }
    n = w;
  }
  out->b_n = n;
  return CZ_OK;
}

void tb_scan_aim(tbl_scan_t *s, const uint8_t *key, size_t len, bool above)
{
  s->s_low = s->s_high = (uint8_t *)key;
  s->s_low_len = s->s_high_len = len;
  s->s_low_incl = s->s_high_incl = true;
  s->s_done = false;
  s->s_reseek = true;
  /* a column index's cursor takes the entry past a range (bt_next): the
   * next range is sought from the root */
  s->s_near = above && !(s->s_ix->ci_no > 0 && s->s_ix->ci_layout == CAT_LAYOUT_COLUMN);
}

void tb_scan_hold(tbl_scan_t *s, bool hold)
{
  s->s_hold = hold;
  if (!hold)
    bt_cursor_release(s->s_cur);
  if (!hold && s->s_col)
    tb_colscan_hold(s->s_col, false);
}

/* How key k (kl bytes) orders against the prefix p: < 0 below every key
 * starting with p, 0 starting with it, > 0 above. */
static int tb_prefix_cmp(const uint8_t *k, size_t kl, const uint8_t *p, size_t pl)
{
  int c = memcmp(k, p, CZ_MIN(kl, pl));
  return c ? c : kl < pl ? -1 : 0;
}

/* The cursor stands just after the last range read (its first entry past
 * it, not taken), and s_low is above that range: when the first entry
 * from there that is not below s_low is in the same leaf, the cursor
 * moves to it without a descent (a probe's prefixes come sorted, often
 * close together). 1 done, 0 the caller seeks, -1 error. */
static int tb_seek_near(tbl_scan_t *s, err_t *e)
{
  if (!s->s_run) {
    s->s_run = arena_alloc(s->s_a, sizeof *s->s_run);
    s->s_kbuf = arena_alloc(s->s_a, BT_MAX_KEY + 1);
  }
  bt_run_t *run = s->s_run;
  uint8_t *kb = s->s_kbuf;
  int rc = bt_next_run(s->s_cur, BT_RUN_MAX, run, e);
  if (rc == BT_END)
    return 1;  /* nothing after the last range: nothing at s_low either */
  if (rc != CZ_OK)
    return -1;
  size_t kl = bt_run_key(run, 0, kb);
  if (tb_prefix_cmp(kb, kl, s->s_low, s->s_low_len) >= 0)
    return 1;  /* here already */
  kl = bt_run_key(run, run->br_n - 1, kb);
  if (tb_prefix_cmp(kb, kl, s->s_low, s->s_low_len) < 0)
    return 0;  /* beyond this leaf's entries: descend */
  int lo = 1, hi = run->br_n - 1;  /* the first entry not below: in (0, n - 1] */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    kl = bt_run_key(run, mid, kb);
    if (tb_prefix_cmp(kb, kl, s->s_low, s->s_low_len) >= 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  bt_run_take(s->s_cur, run, lo);
  return 1;
}

bool tb_scan_fetches(const tbl_scan_t *s)
{
  return s->s_fetch;
}

bool tb_scan_ended(const tbl_scan_t *s)
{
  return s->s_done;
}

uint32_t tb_scan_cmd(const tbl_scan_t *s)
{
  return s->s_cmd;
}

void tb_scan_rows_move(batch_t *out, int ncols, int from, int to)
{
  tb_move_row(out, ncols, from, to);
}

int tbl_lookup(txn_t *tx, const cat_table_t *t, const datum_t *const *keys, int n,
               const int *cols, int ncols, bool want_loc, batch_t *out, bool *found,
               arena_t *a, err_t *e)
{
  int npk;
  const ty_t *pt = tb_pk_types(t, &npk);
  bt_key_t *bk = arena_alloc(a, sizeof *bk * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    uint8_t *k;
    size_t len;
    if (tb_search_key(pt, keys[i], npk, a, &k, &len, e) != CZ_OK)
      return CZ_ERR;
    bk[i].k_data = k;
    bk[i].k_len = (uint32_t)len; /* longer than BT_MAX_KEY: not found */
  }
  txn_note_read(tx, t->ct_indexes[0]->ci_dtree);
  if (tb_fetch(tx, tx ? txn_command_next(tx) : 0, t, cols, ncols, want_loc, bk, n, out, found, a,
               e) != CZ_OK)
    return CZ_ERR;
  out->b_n = n;
  return CZ_OK;
}

int tbl_count(txn_t *tx, const cat_table_t *t, int64_t *out, err_t *e)
{
  *out = 0;
  arena_t *a = arena_create(NULL, "tbl_count");
  tbl_scan_t *s;
  int rc = tbl_scan_open(tx, t, 0, NULL, 0, NULL, NULL, false, a, &s, e);
  if (rc == CZ_OK) {
    ty_t ty = ty_plain(TY_INT8);
    batch_t *b = batch_create(a, 1, &ty, 256, e);
    if (!b)
      rc = CZ_ERR;
    while (rc == CZ_OK) {
      rc = tbl_scan_next(s, b, a, e);
      if (rc != CZ_OK || b->b_n == 0)
        break;
      *out += b->b_n;
    }
    tbl_scan_close(s);
  }
  arena_destroy(a);
  return rc;
}
