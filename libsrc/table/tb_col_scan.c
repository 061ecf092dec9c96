/* tb_col_scan — range scans of a column table's primary tree: the
 * column tree's vectored scan (bt_col_scan_*) decodes only the wanted
 * columns, straight into vectors, with the scan's predicates evaluated on
 * the compressed runs and segments skipped by their min/max.
 *
 * Design notes (table/README.md, "Column tables"):
 * - Bounds: the table scan's bounds are key prefixes (an inclusive high
 *   bound covers every key starting with it, an exclusive low one skips
 *   them); the column scan takes a half-open byte range [lo, hi), so such
 *   a prefix is extended by 0xFF bytes past every key starting with it
 *   (a column's encoding is never all 0xFF, as tb_sample.c relies on). A
 *   morsel (parallel scans) narrows the range to its piece.
 * - Visibility (txn rule L3): the column scan calls back, under the
 *   segment's leaf latch, before its predicates and min/max skipping
 *   (bt_col_scan_set_vis): when the tree holds no locked key and no
 *   version a snapshot must see (txn_tree_plain) every row is as stored;
 *   otherwise each row's key goes through txn_read_version_at:
 *   uncommitted inserts skipped, pre-images returned in place of the
 *   tree's values (and judged by the pushed predicates as they are). An
 *   undo that would swap the segment back waits for the latch, so a
 *   reader never keeps a rolled-back value.
 * - Predicates are pushed down when every one has a compressed form (not
 *   NOT IN, not CHAR(n)'s trailing-blank rule); the scan still tests each
 *   returned row with tbl_preds_pass, so a pushed predicate only ever
 *   removes work.
 * - Locators need every column (their hash is of the whole row's row
 *   format, tb_col.c), so a scan that wants them decodes every column.
 * - Long values (tb_col.c "marks"): a markable column's strings are
 *   unmarked as they are read, references fetched from the long-values
 *   tree as the scan's command sees them (a missing chunk: the row is read
 *   again by key, tb_reread, as row scans do). A pushed predicate would
 *   judge a mark instead of its value, so predicates on markable columns
 *   are pushed only while the table's long-values tree is empty when the
 *   range is opened (then no row holds a reference; a string column of a
 *   table that never held a long value keeps its pushdown), never on
 *   BYTEA (escapes). A first long value written into a table by another
 *   transaction while such a scan runs can hide that row from the scan:
 *   the one window where the scan misses a row read committed would show.
 */
#include <string.h>

#include "table/tb_int.h"

#define TB_PAST_PREFIX 16  /* 0xFF bytes that put a bound after its prefix's keys */
/* rows examined per call before returning what was kept (cancel checks) */
#define TB_COL_EXAMINE_BATCHES 16

struct tb_colscan_s {
  const cat_table_t *cs_t;
  txn_t *cs_tx;
  uint32_t cs_cmd;
  int cs_ncols;               /* the caller's columns */
  const int *cs_cols;
  bool cs_want_loc;
  const tbl_pred_t *cs_preds;
  int cs_npred;
  bt_col_pred_t *cs_bp;       /* the preds handed to bt_col_scan (room for all) */
  uint8_t *cs_lo, *cs_hi;     /* the range's ends (BT_MAX_KEY + TB_PAST_PREFIX bytes) */
  int cs_nread;               /* tree columns read: 0 the key, then per caller column
                                 (or every table column for locators) */
  int *cs_read;
  batch_t *cs_buf;            /* one segment's rows, cs_nread columns */
  bt_col_scan_t *cs_scan;     /* the column scan, re-aimed for each range; NULL before
                                 the first range and after tb_colscan_close */
  bool cs_range_done;         /* the range has been read to its end (tb_colscan_end) */
  bool cs_hold;               /* tb_colscan_hold: the segment's leaf kept between fills */
  datum_t *cs_row;            /* a whole row (locators) */
  bool *cs_mark;              /* per tree column read: strings may hold marks (tb_col.c) */
  tb_ref_t *cs_refs;          /* a row's references (every table column) */
};

/* Byte order of keys, the shorter first on a tie (the trees' order). */
static int tb_bytes_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
  int c = memcmp(a, b, CZ_MIN(al, bl));
  return c ? c : al < bl ? -1 : al > bl;
}

/* The compressed form of a table predicate, when it has one. */
static bool push_pred(const tbl_pred_t *tp, ce_pred_t *cp)
{
  memset(cp, 0, sizeof *cp);
  if (tp->tp_rtrim)
    return false;
  switch (tp->tp_op) {
  case TBP_EQ: cp->p_op = CE_EQ; break;
  case TBP_NE: cp->p_op = CE_NE; break;
  case TBP_LT: cp->p_op = CE_LT; break;
  case TBP_LE: cp->p_op = CE_LE; break;
  case TBP_GT: cp->p_op = CE_GT; break;
  case TBP_GE: cp->p_op = CE_GE; break;
  case TBP_IN:
    cp->p_op = CE_IN;
    cp->p_in = tp->tp_vals;
    cp->p_nin = tp->tp_nvals;
    return true;
  case TBP_NULL: cp->p_op = CE_IS_NULL; return true;
  case TBP_NOT_NULL: cp->p_op = CE_NOT_NULL; return true;
  default: return false;
  }
  if (tp->tp_nvals < 1)
    return false;
  cp->p_val = tp->tp_vals[0];
  return true;
}

int tb_colscan_new(txn_t *tx, uint32_t cmd, const cat_table_t *t, const int *cols, int ncols,
                   bool want_loc, const tbl_pred_t *preds, int npred, int cap, arena_t *a,
                   tb_colscan_t **out, err_t *e)
{
  tb_colscan_t *c = arena_zalloc(a, sizeof *c);
  c->cs_t = t;
  c->cs_tx = tx;
  c->cs_cmd = cmd;
  c->cs_ncols = ncols;
  c->cs_cols = cols;
  c->cs_want_loc = want_loc;
  c->cs_preds = preds;
  c->cs_npred = npred;
  c->cs_row = arena_alloc(a, sizeof(datum_t) * (size_t)(t->ct_ncols + 1));
  c->cs_lo = arena_alloc(a, BT_MAX_KEY + TB_PAST_PREFIX);
  c->cs_hi = arena_alloc(a, BT_MAX_KEY + TB_PAST_PREFIX);
  c->cs_bp = arena_alloc(a, sizeof(bt_col_pred_t) * (size_t)(npred + 1));
  /* the tree columns read: the key, then the wanted ones (all for locators) */
  int nread = 1 + (want_loc ? t->ct_ncols : ncols);
  c->cs_nread = nread;
  c->cs_read = arena_alloc(a, sizeof(int) * (size_t)nread);
  ty_t *types = arena_alloc(a, sizeof(ty_t) * (size_t)nread);
  c->cs_mark = arena_zalloc(a, sizeof(bool) * (size_t)nread);
  c->cs_refs = arena_zalloc(a, sizeof(tb_ref_t) * (size_t)(t->ct_ncols + 1));
  c->cs_read[0] = 0;
  types[0] = ty_plain(TY_BYTEA);
  for (int i = 1; i < nread; i++) {
    int col = want_loc ? i - 1 : cols[i - 1];
    c->cs_read[i] = col + 1;
    types[i] = t->ct_types[col];
    c->cs_mark[i] = tb_col_markable(&t->ct_types[col]);
  }
  /* one call hands out at most the caller's batch */
  c->cs_buf = batch_create(a, nread, types, cap > 0 ? cap : 1, e);
  if (!c->cs_buf)
    return CZ_ERR;
  *out = c;
  return CZ_OK;
}

/* Copies a bound into buf (room for BT_MAX_KEY + TB_PAST_PREFIX), extended
 * past every key starting with it when past; its length, or (size_t)-1
 * when it is longer than any stored key can be (the caller then treats
 * the end as open for a low bound, as empty for a high one). */
static size_t put_bound(uint8_t *buf, const uint8_t *k, size_t kl, bool past)
{
  if (kl > BT_MAX_KEY)
    return (size_t)-1;
  memcpy(buf, k, kl);
  if (past) {
    memset(buf + kl, 0xFF, TB_PAST_PREFIX);
    kl += TB_PAST_PREFIX;
  }
  return kl;
}

/* Whether the table's long-values tree holds no entry (nothing of it can
 * be referenced); errors read as not empty. */
static bool long_tree_empty(const cat_table_t *t)
{
  err_t scratch;
  bt_cursor_t *cur;
  if (!t->ct_long_tree || bt_cursor_open(t->ct_long_tree, &cur, &scratch) != CZ_OK)
    return !t->ct_long_tree;
  uint8_t zero = 0;
  bool empty = false;
  if (bt_seek(cur, &zero, 1, BT_FORWARD, &scratch) == CZ_OK) {
    const void *k, *v;
    size_t kl, vl;
    empty = bt_next(cur, &k, &kl, &v, &vl, &scratch) == BT_END;
  }
  bt_cursor_close(cur);
  return empty;
}

/* The scan's visibility callbacks (README above, "Visibility"). */
static bool vis_plain(void *ctx)
{
  const tb_colscan_t *c = ctx;
  return txn_tree_plain(c->cs_tx, c->cs_t->ct_indexes[0]->ci_dtree);
}

static bt_vis_t vis_row(void *ctx, const void *key, size_t key_len, arena_t *a, const void **val,
                        size_t *val_len)
{
  const tb_colscan_t *c = ctx;
  switch (txn_read_version_at(c->cs_tx, c->cs_cmd, c->cs_t->ct_indexes[0]->ci_dtree, key, key_len,
                              a, val, val_len)) {
  case TXN_VIS_ABSENT: return BT_VIS_SKIP;
  case TXN_VIS_PREIMAGE: return BT_VIS_REPLACE;
  default: return BT_VIS_KEEP;
  }
}

int tb_colscan_range(tb_colscan_t *c, const uint8_t *low, size_t low_len, bool low_incl,
                     const uint8_t *high, size_t high_len, bool high_incl, const bt_key_t *from,
                     const bt_key_t *until, err_t *e)
{
  const cat_table_t *t = c->cs_t;
  /* the range [lo, hi) */
  const uint8_t *lo = NULL, *hi = NULL;
  size_t lo_len = 0, hi_len = 0;
  if (low) {
    lo_len = put_bound(c->cs_lo, low, low_len, !low_incl);
    lo = c->cs_lo;
    if (lo_len == (size_t)-1)
      lo_len = BT_MAX_KEY;  /* above every stored key's first bytes: nothing is read */
  }
  if (high) {
    hi_len = put_bound(c->cs_hi, high, high_len, high_incl);
    hi = c->cs_hi;
    if (hi_len == (size_t)-1) {
      memcpy(c->cs_hi, high, BT_MAX_KEY);
      memset(c->cs_hi + BT_MAX_KEY, 0xFF, TB_PAST_PREFIX);
      hi_len = BT_MAX_KEY + TB_PAST_PREFIX;
    }
  }
  /* a morsel's piece inside the range */
  if (from && from->k_len > 0 && (!lo || tb_bytes_cmp(from->k_data, from->k_len, lo, lo_len) > 0)) {
    lo = from->k_data;
    lo_len = from->k_len;
  }
  if (until && (!hi || tb_bytes_cmp(until->k_data, until->k_len, hi, hi_len) < 0)) {
    hi = until->k_data;
    hi_len = until->k_len;
  }
  if (c->cs_scan) {
    /* the same columns, predicates and visibility: re-aimed, so that a
     * held segment serves the next range (bt_col_scan_hold) */
    if (bt_col_scan_reaim(c->cs_scan, lo, lo_len, hi, hi_len, e) != CZ_OK)
      return CZ_ERR;
    c->cs_range_done = false;
    return CZ_OK;
  }
  const cat_index_t *pix = t->ct_indexes[0];
  int nbp = 0;
  int lt_empty = -1;  /* the long-values tree looked at once, when a predicate asks */
  for (int j = 0; j < c->cs_npred; j++) {
    const ty_t *ty = &t->ct_types[c->cs_cols[c->cs_preds[j].tp_out]];
    if (tb_col_markable(ty)) {
      if (ty->t_id == TY_BYTEA)
        continue;
      if (lt_empty < 0)
        lt_empty = long_tree_empty(t);
      if (!lt_empty)
        continue;
    }
    if (push_pred(&c->cs_preds[j], &c->cs_bp[nbp].cp_pred)) {
      c->cs_bp[nbp].cp_col = c->cs_cols[c->cs_preds[j].tp_out] + 1;
      nbp++;
    }
  }
  if (bt_col_scan_open(pix->ci_tree, lo, lo_len, hi, hi_len, c->cs_read, c->cs_nread, c->cs_bp, nbp,
                       &c->cs_scan, e) != CZ_OK)
    return CZ_ERR;
  bt_col_vis_t vis = {vis_plain, vis_row, c};
  bt_col_scan_set_vis(c->cs_scan, &vis);
  bt_col_scan_hold(c->cs_scan, c->cs_hold);
  c->cs_range_done = false;
  return CZ_OK;
}

void tb_colscan_hold(tb_colscan_t *c, bool hold)
{
  c->cs_hold = hold;
  if (c->cs_scan)
    bt_col_scan_hold(c->cs_scan, hold);
}

void tb_colscan_end(tb_colscan_t *c)
{
  c->cs_range_done = true;
  if (!c->cs_hold)
    bt_col_scan_hold(c->cs_scan, false);
}

void tb_colscan_close(tb_colscan_t *c)
{
  if (c && c->cs_scan) {
    bt_col_scan_close(c->cs_scan);
    c->cs_scan = NULL;
  }
}

/* Copies value d into row r of v (strings into a). */
static void put_value(vec_t *v, int r, const datum_t *d, arena_t *a)
{
  if (d->d_null) {
    v->v_null[r] = 1;
    return;
  }
  v->v_null[r] = 0;
  switch (ty_phys(v->v_type.t_id)) {
  case TP_BOOL: v->v_bool[r] = d->d_bool; break;
  case TP_I64: v->v_i64[r] = d->d_i64; break;
  case TP_F64: v->v_f64[r] = d->d_f64; break;
  case TP_NUM: v->v_num[r] = d->d_num; break;
  case TP_IV: v->v_iv[r] = d->d_iv; break;
  case TP_STR: {
    char *p = arena_alloc(a, d->d_str.s_len ? d->d_str.s_len : 1);
    memcpy(p, d->d_str.s_ptr, d->d_str.s_len);
    v->v_str[r].s_ptr = p;
    v->v_str[r].s_len = d->d_str.s_len;
    break;
  }
  }
}

/* The locator of a row: its primary key and the hash of its values in
 * the row format, references as references (tb_col.c: as tb_col_row). */
static int put_loc(const cat_table_t *t, vec_t *v, int r, const str_t *pk, const datum_t *row,
                   const tb_ref_t *refs, arena_t *a, err_t *e)
{
  size_t need;
  err_t scratch;
  uint8_t none[1];
  tb_row_encode_refs(t->ct_types, t->ct_ncols, row, refs, none, 0, &need, &scratch);
  uint8_t *buf = arena_alloc(a, need ? need : 1);
  size_t len;
  if (tb_row_encode_refs(t->ct_types, t->ct_ncols, row, refs, buf, need, &len, e) != CZ_OK)
    return CZ_ERR;
  uint64_t h = tb_row_hash(buf, len);
  uint8_t *loc = arena_alloc(a, pk->s_len + TBL_LOC_HASH);
  memcpy(loc, pk->s_ptr, pk->s_len);
  for (int i = 0; i < TBL_LOC_HASH; i++)
    loc[pk->s_len + (size_t)i] = (uint8_t)(h >> (8 * i));
  v->v_null[r] = 0;
  v->v_str[r].s_ptr = (const char *)loc;
  v->v_str[r].s_len = (uint32_t)(pk->s_len + TBL_LOC_HASH);
  return CZ_OK;
}

/* Unmarks the strings of row i's markable columns read into row (all
 * table columns, locators) or d (the caller's column k), fetching
 * references of the caller's columns into a and adding their bytes to
 * *bytes. *missing: a chunk is gone (read the row again). */
static int unmark_value(tb_colscan_t *c, datum_t *d, tb_ref_t *ref, bool fetch, arena_t *a,
                        uint64_t *bytes, bool *missing, err_t *e)
{
  ref->lr_on = false;
  if (d->d_null || tb_col_unmark(c->cs_t, &d->d_str, ref, e) != CZ_OK)
    return d->d_null ? CZ_OK : CZ_ERR;
  if (!ref->lr_on || !fetch)
    return CZ_OK;
  bool gone = false;
  if (tb_long_fetch(c->cs_tx, c->cs_cmd, c->cs_t, ref, a, &d->d_str, &gone, e) != CZ_OK)
    return CZ_ERR;
  *bytes += ref->lr_len;
  if (gone)
    *missing = true;
  return CZ_OK;
}

int tb_colscan_fill(tb_colscan_t *c, batch_t *out, int *np, int cap, arena_t *a, bool *ended,
                    err_t *e)
{
  const cat_table_t *t = c->cs_t;
  int n = *np;
  int examined = 0;
  uint64_t long_bytes = 0;
  *ended = false;
  datum_t *row = c->cs_row;
  while (n < cap && examined < cap * TB_COL_EXAMINE_BATCHES && long_bytes < TB_BATCH_LONG_BYTES) {
    int got = 0;
    int max = CZ_MIN(cap - n, c->cs_buf->b_cols[0].v_cap);
    if (long_bytes > 0)
      max = 1;  /* rows with long values: one at a time, so the budget holds */
    if (!c->cs_scan || c->cs_range_done) {
      *ended = true;
      break;
    }
    int rc = bt_col_scan_next(c->cs_scan, c->cs_buf->b_cols, max, &got, e);
    if (rc == BT_END) {
      *ended = true;
      break;
    }
    if (rc != CZ_OK)
      return CZ_ERR;
    examined += got;
    const vec_t *in = c->cs_buf->b_cols;
    for (int i = 0; i < got; i++) {
      const str_t *key = &in[0].v_str[i];
      bool missing = false;
      if (c->cs_want_loc) {
        for (int col = 0; col < t->ct_ncols; col++) {
          vec_get(&in[col + 1], i, &row[col]);
          c->cs_refs[col].lr_on = false;
          if (c->cs_mark[col + 1] &&
              unmark_value(c, &row[col], &c->cs_refs[col], false, a, &long_bytes, &missing, e) != CZ_OK)
            return CZ_ERR;
        }
      }
      for (int k = 0; k < c->cs_ncols; k++) {
        datum_t d;
        int col = c->cs_cols[k];
        if (c->cs_want_loc) {
          d = row[col];
          if (c->cs_refs[col].lr_on) {
            tb_ref_t r = c->cs_refs[col];
            bool gone = false;
            if (tb_long_fetch(c->cs_tx, c->cs_cmd, t, &r, a, &d.d_str, &gone, e) != CZ_OK)
              return CZ_ERR;
            long_bytes += r.lr_len;
            missing |= gone;
          }
        } else {
          vec_get(&in[k + 1], i, &d);
          tb_ref_t r;
          if (c->cs_mark[k + 1] &&
              unmark_value(c, &d, &r, true, a, &long_bytes, &missing, e) != CZ_OK)
            return CZ_ERR;
        }
        put_value(&out->b_cols[k], n, &d, a);
      }
      if (missing) {
        /* a committed deleter took a chunk since the row was read */
        bool found;
        tb_long_note_reread();
        if (tb_reread(c->cs_tx, c->cs_cmd, t, c->cs_cols, c->cs_ncols, c->cs_want_loc,
                      (const uint8_t *)key->s_ptr, key->s_len, out, n, &found, a, e) != CZ_OK)
          return CZ_ERR;
        if (!found)
          continue;
        if (c->cs_npred && !tbl_preds_pass(c->cs_preds, c->cs_npred, out, n))
          continue;
        n++;
        continue;
      }
      if (c->cs_npred && !tbl_preds_pass(c->cs_preds, c->cs_npred, out, n))
        continue;
      if (c->cs_want_loc &&
          put_loc(t, &out->b_cols[c->cs_ncols], n, key, row, c->cs_refs, a, e) != CZ_OK)
        return CZ_ERR;
      n++;
    }
  }
  *np = n;
  return CZ_OK;
}
