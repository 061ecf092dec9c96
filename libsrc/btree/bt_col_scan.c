/* bt_col_scan.c — reading column trees: locating a segment, point and
 * vectored lookups, and the column scan that decodes only needed columns.
 *
 * Design notes (README "Column leaves", rules C3 and C4):
 * - A segment is read as (entry key, descriptor, next entry's key) under one
 *   hold of its leaf's shared latch, and the runs wanted are copied out
 *   before the latch goes: a writer frees old runs only after swapping the
 *   descriptor, which needs that leaf exclusively.
 * - The rows a segment stands for are those below the next entry's key: a
 *   writer splitting a segment inserts the right half's entry before it
 *   shrinks the left one, and merging it grows the left one before deleting
 *   the right entry, so the clip makes both moments read as before or after.
 *   A scan resumes at the next entry's key and finds the segment holding it
 *   again by descent, so a merge meanwhile loses no row.
 * - Within a segment, predicates run on the compressed runs one after
 *   another, each on the previous one's survivors; key bounds cut by binary
 *   search on the decoded keys, and only when the key run's min/max say the
 *   segment straddles a bound; output columns are decoded for the survivors
 *   only.
 * - A held scan (bt_col_scan_hold: the table layer's probes) keeps the
 *   segment's leaf latched between calls and a re-aim (bt_col_scan_reaim)
 *   that starts inside it reuses its runs and decoded keys with no
 *   descent; the latch is what keeps them valid, so nothing is reused
 *   once it is let go.
 * - Lookups decode the key column only and fetch each found row's values
 *   from the runs (ce_fetch): a batch whose keys fall in many segments
 *   pays one key decode per segment, not a decode of every column.
 */
#include <stdlib.h>
#include <string.h>

#include "btree/bt_col_int.h"

static uint8_t *dup_bytes(arena_t *a, const void *p, size_t n)
{
  uint8_t *d = arena_try_alloc(a, n ? n : 1);
  if (d && n)
    memcpy(d, p, n);
  return d;
}

/* The key of entry ek's leaf position p's successor: the next slot, else
 * the first entry of the right sibling (latched shared while the leaf is
 * held: left to right, rule L4). */
static int next_entry_key(bt_tree_t *t, buf_t *b, int p, arena_t *a, btc_pos_t *pos, err_t *e)
{
  const uint8_t *pg = bp_page(b);
  uint8_t kb[BT_MAX_ROW];
  if (p + 1 < bpg_n(pg)) {
    pos->sp_nlen = (uint32_t)bpg_key_copy(pg, p + 1, kb);
  } else {
    pg_no_t r = bpg_chdr(pg)->bh_right;
    if (r == PG_NONE)
      return CZ_OK;
    buf_t *rb = bp_fix(t->t_bp, r, BP_SHARED, 0, e);
    if (!rb)
      return CZ_ERR;
    if (bpg_n(bp_page(rb)) == 0) { /* only an empty root leaf is empty (invariant 7) */
      bp_unfix(t->t_bp, rb);
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: empty leaf %u", (unsigned)t->t_root,
                     (unsigned)r);
    }
    pos->sp_nlen = (uint32_t)bpg_key_copy(bp_page(rb), 0, kb);
    bp_unfix(t->t_bp, rb);
  }
  if (!(pos->sp_next = dup_bytes(a, kb, pos->sp_nlen)))
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: segment position");
  pos->sp_has_next = true;
  return CZ_OK;
}

/* The key of the greatest entry <= key when it lies left of the leaf the
 * descent for key reached: a backward cursor, which moves left by the
 * rules (L6). *found false when key precedes every entry. */
static int entry_left_of(bt_tree_t *t, const void *key, size_t klen, arena_t *a, uint8_t **ek,
                         uint32_t *eklen, bool *found, err_t *e)
{
  bt_cursor_t *c;
  *found = false;
  if (bt_cursor_open(t->t_seg, &c, e) != CZ_OK)
    return CZ_ERR;
  const void *k, *v;
  size_t kl, vl;
  int rc = bt_seek(c, key, klen, BT_BACKWARD, e);
  if (rc == CZ_OK && (rc = bt_next(c, &k, &kl, &v, &vl, e)) == CZ_OK) {
    if ((*ek = dup_bytes(a, k, kl))) {
      *eklen = (uint32_t)kl;
      *found = true;
    } else {
      rc = err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: segment position");
    }
  }
  bt_cursor_close(c);
  return rc == CZ_ERR ? CZ_ERR : CZ_OK;
}

int btc_locate(bt_tree_t *t, const void *key, size_t klen, arena_t *a, btc_pos_t *pos, btc_desc_t *d,
               const bool *want, uint8_t **runs, uint64_t *pages, buf_t **hold, err_t *e)
{
  bpool_t *bp = t->t_bp;
  if (hold)
    *hold = NULL;
  for (int attempt = 0;; attempt++) {
    if (attempt > 1000)
      return err_set(e, SQLSTATE_INTERNAL, "column tree %u: no stable segment for a key", (unsigned)t->t_root);
    memset(pos, 0, sizeof *pos);
    bt_target_t tg;
    bool eq;
    bt_target_key(&tg, key, klen);
    if (!key)
      tg.t_inf = -1;
    buf_t *b = bt_descend(t->t_seg, &tg, BP_SHARED, 0, NULL, e);
    if (!b)
      return CZ_ERR;
    const uint8_t *pg = bp_page(b);
    /* The entry with the greatest key <= key: in this leaf, or the last of
     * a leaf to its left. */
    int p = key ? bpg_search_leaf(pg, &tg, true, 0, true, &eq) - 1 : 0;
    if (p < 0 && bpg_chdr(pg)->bh_left != PG_NONE) {
      bp_unfix(bp, b);
      uint8_t *ek;
      uint32_t eklen;
      bool found;
      if (entry_left_of(t, key, klen, a, &ek, &eklen, &found, e) != CZ_OK)
        return CZ_ERR;
      if (found) {
        bt_target_key(&tg, ek, eklen);
        if (!(b = bt_descend(t->t_seg, &tg, BP_SHARED, 0, NULL, e)))
          return CZ_ERR;
        pg = bp_page(b);
        p = bpg_search_leaf(pg, &tg, true, 0, false, &eq);
        if (!eq) { /* the entry went away meanwhile */
          bp_unfix(bp, b);
          continue;
        }
      } else {
        /* key precedes every entry: the first segment */
        tg.t_inf = -1;
        if (!(b = bt_descend(t->t_seg, &tg, BP_SHARED, 0, NULL, e)))
          return CZ_ERR;
        pg = bp_page(b);
        p = 0;
      }
    }
    if (p < 0)
      p = 0; /* key precedes every entry: the first segment */
    if (p >= bpg_n(pg)) { /* an empty tree */
      bp_unfix(bp, b);
      return CZ_OK;
    }
    pos->sp_found = true;
    pos->sp_first = p == 0 && bpg_chdr(pg)->bh_left == PG_NONE;
    uint8_t kb[BT_MAX_ROW];
    int vl;
    const uint8_t *v = bpg_val(pg, p, &vl);
    pos->sp_klen = (uint32_t)bpg_key_copy(pg, p, kb);
    if (!(pos->sp_key = dup_bytes(a, kb, pos->sp_klen)) || !(pos->sp_desc = dup_bytes(a, v, (size_t)vl))) {
      bp_unfix(bp, b);
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: segment position");
    }
    pos->sp_dlen = (size_t)vl;
    int rc = next_entry_key(t, b, p, a, pos, e);
    if (rc == CZ_OK)
      rc = btc_desc_parse(pos->sp_desc, pos->sp_dlen, d, e);
    for (int col = 0; rc == CZ_OK && runs && col < d->sd_ncols; col++) {
      runs[col] = NULL;
      if (!want || want[col])
        rc = btc_run_load(t, &d->sd_ref[col], a, &runs[col], pages, e);
    }
    if (rc != CZ_OK) {
      bp_unfix(bp, b);
      return CZ_ERR;
    }
    /* A split may have put an entry between the one found (left of the
     * leaf the descent reached) and key: the rows at key are then the new
     * entry's. */
    if (key && pos->sp_has_next && bt_keycmp(key, klen, pos->sp_next, pos->sp_nlen) >= 0) {
      bp_unfix(bp, b);
      continue;
    }
    if (hold)
      *hold = b;
    else
      bp_unfix(bp, b);
    return CZ_OK;
  }
}

/* ---- lookups ------------------------------------------------------------------ */

static int seg_load(bt_tree_t *t, const void *key, size_t klen, arena_t *a, look_seg_t *s, buf_t **hold,
                    bool keys_only, err_t *e)
{
  uint8_t **runs = s->ls_runs;
  s->ls_keys_only = keys_only;
  buf_t *b = NULL;
  if (hold)
    *hold = NULL;
  if (btc_locate(t, key, klen, a, &s->ls_pos, &s->ls_desc, NULL, runs, NULL, hold ? &b : NULL, e) != CZ_OK)
    return CZ_ERR;
  if (!s->ls_pos.sp_found)
    return CZ_OK;
  const btc_desc_t *d = &s->ls_desc;
  for (int c = 0; c < d->sd_ncols; c++) {
    ce_info_t ci;
    if (ce_info(runs[c], d->sd_ref[c].cr_len, &ci, e) != CZ_OK)
      goto fail;
    if (ci.ci_n != d->sd_rows || ci.ci_phys != d->sd_ref[c].cr_kind) {
      err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: run of column %d does not match its segment",
              (unsigned)t->t_root, c);
      goto fail;
    }
    if (keys_only && c > 0)
      continue;
    if (vec_init(&s->ls_vec[c], a, btc_kind_type(d->sd_ref[c].cr_kind), (int)d->sd_rows, e) != CZ_OK ||
        ce_decode(runs[c], d->sd_ref[c].cr_len, &s->ls_vec[c], 0, a, e) != CZ_OK)
      goto fail;
  }
  if (hold)
    *hold = b;
  return CZ_OK;
fail:
  if (b)
    bp_unfix(t->t_bp, b);
  return CZ_ERR;
}

int btc_seg_load(bt_tree_t *t, const void *key, size_t klen, arena_t *a, look_seg_t *s, buf_t **hold,
                 err_t *e)
{
  return seg_load(t, key, klen, a, s, hold, false, e);
}

int btc_seg_load_keys(bt_tree_t *t, const void *key, size_t klen, arena_t *a, look_seg_t *s, buf_t **hold,
                      err_t *e)
{
  return seg_load(t, key, klen, a, s, hold, true, e);
}

static bool look_covers(const look_seg_t *s, const void *key, size_t klen)
{
  const btc_pos_t *p = &s->ls_pos;
  if (!p->sp_found)
    return false;
  if (!p->sp_first && bt_keycmp(key, klen, p->sp_key, p->sp_klen) < 0)
    return false;
  return !p->sp_has_next || bt_keycmp(key, klen, p->sp_next, p->sp_nlen) < 0;
}

/* Row of key in the segment, or -1. */
static int look_find(const look_seg_t *s, const void *key, size_t klen)
{
  const str_t *ks = s->ls_vec[0].v_str;
  int lo = 0, hi = (int)s->ls_desc.sd_rows;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (bt_keycmp((const uint8_t *)ks[mid].s_ptr, ks[mid].s_len, key, klen) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < (int)s->ls_desc.sd_rows && bt_keycmp((const uint8_t *)ks[lo].s_ptr, ks[lo].s_len, key, klen) == 0)
    return lo;
  return -1;
}

int btc_seg_row(const look_seg_t *s, int r, arena_t *a, uint8_t **row, size_t *len, err_t *e)
{
  ty_phys_t kinds[BTC_MAX_COLS];
  datum_t v[BTC_MAX_COLS];
  int m = s->ls_desc.sd_ncols - 1;
  for (int c = 0; c < m; c++) {
    kinds[c] = s->ls_desc.sd_ref[c + 1].cr_kind;
    if (!s->ls_keys_only)
      vec_get(&s->ls_vec[c + 1], r, &v[c]);
    else if (ce_fetch(s->ls_runs[c + 1], s->ls_desc.sd_ref[c + 1].cr_len, (uint32_t)r, &v[c], a, e) != CZ_OK)
      return CZ_ERR;
  }
  size_t sz = bt_crow_size(kinds, v, m);
  if (!(*row = arena_try_alloc(a, sz)))
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: row");
  return bt_crow_build(kinds, v, m, *row, sz, len, e);
}

/* First row of the segment at or above key. */
static int look_lower(const look_seg_t *s, const void *key, size_t klen)
{
  const str_t *ks = s->ls_vec[0].v_str;
  int lo = 0, hi = (int)s->ls_desc.sd_rows;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (bt_keycmp((const uint8_t *)ks[mid].s_ptr, ks[mid].s_len, key, klen) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* (Re)loads *s with the segment of key (held: keep its leaf latched, the
 * previous one let go first). */
static int look_load(bt_tree_t *t, arena_t *a, look_seg_t **s, buf_t **held, const void *key, size_t klen,
                     err_t *e)
{
  if (held && *held) {
    bp_unfix(t->t_bp, *held);
    *held = NULL;
  }
  arena_reset(a);
  if (!(*s = arena_try_zalloc(a, sizeof **s)))
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: lookup");
  return btc_seg_load_keys(t, key, klen, a, *s, held, e);
}

/* The row of key: in a unique tree the row with that key, in a non-unique
 * one its first pair (which may lie in a later segment when the pairs of
 * key start at a segment's end). *s is reused when it covers the key. */
static int look_key(bt_tree_t *t, arena_t *a, look_seg_t **s, buf_t **held, const void *key, size_t klen,
                    int *row, err_t *e)
{
  *row = -1;
  if (t->t_unique) {
    if (!look_covers(*s, key, klen) && look_load(t, a, s, held, key, klen, e) != CZ_OK)
      return CZ_ERR;
    if ((*s)->ls_pos.sp_found)
      *row = look_find(*s, key, klen);
    return CZ_OK;
  }
  uint8_t b[BT_MAX_KEY + 2];
  uint32_t blen = btc_pair_bound(key, klen, b);
  if (!look_covers(*s, b, blen) && look_load(t, a, s, held, b, blen, e) != CZ_OK)
    return CZ_ERR;
  for (;;) {
    const btc_pos_t *p = &(*s)->ls_pos;
    if (!p->sp_found)
      return CZ_OK;
    int r = look_lower(*s, b, blen);
    const str_t *ks = (*s)->ls_vec[0].v_str;
    if (r < (int)(*s)->ls_desc.sd_rows &&
        (!p->sp_has_next || bt_keycmp((const uint8_t *)ks[r].s_ptr, ks[r].s_len, p->sp_next, p->sp_nlen) < 0)) {
      if (ks[r].s_len >= blen && memcmp(ks[r].s_ptr, b, blen) == 0)
        *row = r;
      return CZ_OK;
    }
    /* Past this segment's rows: the next segment starts with a pair of
     * key, or no pair of key exists. */
    if (!p->sp_has_next || p->sp_nlen < blen || memcmp(p->sp_next, b, blen) != 0)
      return CZ_OK;
    uint8_t next[BT_MAX_KEY];
    uint32_t nlen = p->sp_nlen;
    memcpy(next, p->sp_next, nlen);
    if (look_load(t, a, s, held, next, nlen, e) != CZ_OK)
      return CZ_ERR;
  }
}

int btc_lookup(bt_tree_t *t, const void *key, size_t klen, void *val, size_t cap, size_t *vlen, err_t *e)
{
  arena_t *a = arena_create(NULL, "btc_lookup");
  if (!a)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: lookup arena");
  look_seg_t *s = arena_try_zalloc(a, sizeof *s);
  int rc = CZ_ERR, r;
  if (!s) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: lookup");
    goto out;
  }
  if (look_key(t, a, &s, NULL, key, klen, &r, e) != CZ_OK)
    goto out;
  if (r < 0) {
    rc = BT_NOT_FOUND;
    goto out;
  }
  uint8_t *row;
  size_t len;
  if (btc_seg_row(s, r, a, &row, &len, e) != CZ_OK)
    goto out;
  if (val)
    memcpy(val, row, len < cap ? len : cap);
  if (vlen)
    *vlen = len;
  rc = CZ_OK;
out:
  arena_destroy(a);
  return rc;
}

/* The callback runs while the segment's leaf is latched (txn's rule L3:
 * the caller checks visibility there, and an undo that would swap the
 * segment and release its lock waits); the latch is let go before the
 * next segment's descent. */
int btc_lookup_batch(bt_tree_t *t, const bt_key_t *keys, int n, bt_lookup_cb_t cb, void *ctx, err_t *e)
{
  arena_t *a = arena_create(NULL, "btc_lookup_batch");
  arena_t *rowa = arena_create(NULL, "btc_lookup_row");
  int rc = CZ_ERR;
  buf_t *held = NULL;
  look_seg_t *s = a ? arena_try_zalloc(a, sizeof *s) : NULL;
  if (!s || !rowa) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: batch lookup");
    goto out;
  }
  for (int i = 0; i < n; i++) {
    const void *k = keys[i].k_data;
    size_t kl = keys[i].k_len;
    if (i > 0 && bt_keycmp(keys[i - 1].k_data, keys[i - 1].k_len, k, kl) > 0) {
      err_set(e, SQLSTATE_INTERNAL, "bt_lookup_batch: keys not sorted at %d", i);
      goto out;
    }
    int r;
    if (look_key(t, a, &s, &held, k, kl, &r, e) != CZ_OK)
      goto out;
    if (r < 0) {
      cb(ctx, i, false, NULL, 0);
      continue;
    }
    uint8_t *row;
    size_t len;
    arena_reset(rowa);
    if (btc_seg_row(s, r, rowa, &row, &len, e) != CZ_OK)
      goto out;
    cb(ctx, i, true, row, len);
  }
  rc = CZ_OK;
out:
  if (held)
    bp_unfix(t->t_bp, held);
  if (a)
    arena_destroy(a);
  if (rowa)
    arena_destroy(rowa);
  return rc;
}

/* ---- the column scan ---------------------------------------------------------- */

/* A row the visibility callback replaced: its values by segment column
 * (0 the key), NULL beyond what the replacement holds. */
typedef struct scan_repl_s {
  uint32_t sr_row;
  datum_t sr_val[BTC_MAX_COLS];
} scan_repl_t;

struct bt_col_scan_s {
  bt_tree_t *cs_tree;
  uint8_t *cs_lo, *cs_hi;       /* copies of the bounds; NULL open */
  uint8_t *cs_lo_buf, *cs_hi_buf; /* where they are copied (BT_MAX_KEY + 2 bytes each) */
  uint32_t cs_lo_len, cs_hi_len;
  int *cs_cols;
  int cs_ncols;
  bt_col_pred_t *cs_preds;
  int cs_npreds;
  bool cs_has_vis;
  bt_col_vis_t cs_vis;
  arena_t *cs_arena;            /* the current segment: position, runs, decoded keys */
  arena_t *cs_varena;           /* the current visit: selection, replacements, output strings */
  uint8_t *cs_resume;           /* next segment at or after this key; NULL = from lo */
  uint32_t cs_resume_len;
  bool cs_started;
  bool cs_done;
  /* the current segment */
  btc_desc_t cs_desc;
  uint8_t *cs_runs[BTC_MAX_COLS];
  btc_pos_t cs_pos;
  vec_t cs_keys;                /* its key column, decoded once (cs_keys_ok) */
  bool cs_keys_ok;
  bool cs_hold;                 /* bt_col_scan_hold: keep the leaf latched between calls */
  buf_t *cs_held;               /* the leaf of the current segment while held; the
                                   segment is reused by a re-aim only while it is */
  uint32_t *cs_sel;             /* surviving rows */
  uint32_t cs_nsel;
  uint32_t cs_at;               /* next of cs_sel to hand out */
  scan_repl_t *cs_repl;         /* replaced rows, ascending by row */
  uint32_t cs_nrepl;
  uint32_t *cs_repl_of;         /* row -> 1 + index in cs_repl, 0 = stored (NULL when none) */
  uint64_t cs_read, cs_skipped;
};

/* Copies the bounds (already pairs in a non-unique tree) into the scan. */
static void set_bounds(bt_col_scan_t *s, const void *lo, size_t lo_len, const void *hi, size_t hi_len)
{
  s->cs_lo = s->cs_hi = NULL;
  s->cs_lo_len = s->cs_hi_len = 0;
  if (lo) {
    s->cs_lo = s->cs_lo_buf;
    memcpy(s->cs_lo, lo, lo_len);
    s->cs_lo_len = (uint32_t)lo_len;
  }
  if (hi) {
    s->cs_hi = s->cs_hi_buf;
    memcpy(s->cs_hi, hi, hi_len);
    s->cs_hi_len = (uint32_t)hi_len;
  }
}

/* Lets go of the current segment's leaf: the segment can no longer be
 * reused (a writer may swap it as soon as the latch goes, C3/C4). */
static void seg_let_go(bt_col_scan_t *s)
{
  if (s->cs_held) {
    bp_unfix(s->cs_tree->t_bp, s->cs_held);
    s->cs_held = NULL;
  }
}

/* Whether the held segment holds the rows at key (NULL: the first row). */
static bool seg_covers(const bt_col_scan_t *s, const uint8_t *key, uint32_t klen)
{
  const btc_pos_t *p = &s->cs_pos;
  if (!s->cs_held || !p->sp_found)
    return false;
  if (!key)
    return p->sp_first;
  if (!p->sp_first && bt_keycmp(key, klen, p->sp_key, p->sp_klen) < 0)
    return false;
  return !p->sp_has_next || bt_keycmp(key, klen, p->sp_next, p->sp_nlen) < 0;
}

int bt_col_scan_open(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len,
                     const int *cols, int ncols, const bt_col_pred_t *preds, int npreds,
                     bt_col_scan_t **out, err_t *e)
{
  if (!t->t_column)
    return err_set(e, SQLSTATE_INTERNAL, "bt_col_scan_open: tree %u is not a column tree", (unsigned)t->t_root);
  if (ncols < 0 || npreds < 0 || lo_len > BT_MAX_KEY || hi_len > BT_MAX_KEY)
    return err_set(e, SQLSTATE_INTERNAL, "bt_col_scan_open: bad arguments");
  uint8_t lob[BT_MAX_KEY + 2], hib[BT_MAX_KEY + 2];
  if (!t->t_unique) {
    /* Rows are (key, value) pairs (bt_col_pair.c): the bounds are the
     * lowest pairs of lo and hi; column 0 is handed out as keys. */
    for (int i = 0; i < npreds; i++)
      if (preds[i].cp_col == 0)
        return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                       "column scan: predicates on the keys of a non-unique column tree are not built yet");
    if (lo) {
      lo_len = btc_pair_bound(lo, lo_len, lob);
      lo = lob;
    }
    if (hi) {
      hi_len = btc_pair_bound(hi, hi_len, hib);
      hi = hib;
    }
  }
  arena_t *a = arena_create(NULL, "btc_scan");
  if (!a)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column scan");
  bt_col_scan_t *s = calloc(1, sizeof *s);
  arena_t *va = arena_create(NULL, "btc_scan_visit");
  /* bounds buffers of the largest size, so that a re-aim fits */
  uint8_t *mem = malloc(2 * (size_t)(BT_MAX_KEY + 2) + sizeof(int) * (size_t)(ncols + 1) +
                        sizeof(bt_col_pred_t) * (size_t)(npreds + 1) + 2 * BT_MAX_KEY + 32);
  if (!s || !mem || !va) {
    free(s);
    free(mem);
    arena_destroy(a);
    if (va)
      arena_destroy(va);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column scan");
  }
  /* One block: predicates, columns, bounds, the resume key buffer. */
  s->cs_preds = (bt_col_pred_t *)mem;
  if (npreds)
    memcpy(s->cs_preds, preds, sizeof *preds * (size_t)npreds);
  s->cs_cols = (int *)(mem + sizeof(bt_col_pred_t) * (size_t)(npreds + 1));
  if (ncols)
    memcpy(s->cs_cols, cols, sizeof(int) * (size_t)ncols);
  uint8_t *p = (uint8_t *)(s->cs_cols + ncols + 1);
  s->cs_lo_buf = p;
  p += BT_MAX_KEY + 2;
  s->cs_hi_buf = p;
  p += BT_MAX_KEY + 2;
  s->cs_resume = p;
  s->cs_tree = t;
  s->cs_ncols = ncols;
  s->cs_npreds = npreds;
  s->cs_arena = a;
  s->cs_varena = va;
  set_bounds(s, lo, lo_len, hi, hi_len);
  *out = s;
  return CZ_OK;
}

int bt_col_scan_reaim(bt_col_scan_t *s, const void *lo, size_t lo_len, const void *hi, size_t hi_len,
                      err_t *e)
{
  bt_tree_t *t = s->cs_tree;
  if (lo_len > BT_MAX_KEY || hi_len > BT_MAX_KEY)
    return err_set(e, SQLSTATE_INTERNAL, "bt_col_scan_reaim: bad arguments");
  uint8_t lob[BT_MAX_KEY + 2], hib[BT_MAX_KEY + 2];
  if (!t->t_unique) {
    if (lo) {
      lo_len = btc_pair_bound(lo, lo_len, lob);
      lo = lob;
    }
    if (hi) {
      hi_len = btc_pair_bound(hi, hi_len, hib);
      hi = hib;
    }
  }
  set_bounds(s, lo, lo_len, hi, hi_len);
  s->cs_started = false;
  s->cs_done = false;
  s->cs_nsel = s->cs_at = 0;
  return CZ_OK;
}

void bt_col_scan_hold(bt_col_scan_t *s, bool hold)
{
  s->cs_hold = hold;
  if (!hold)
    seg_let_go(s);
}

void bt_col_scan_set_vis(bt_col_scan_t *s, const bt_col_vis_t *vis)
{
  s->cs_has_vis = vis && vis->cv_row;
  if (s->cs_has_vis)
    s->cs_vis = *vis;
}

void bt_col_scan_close(bt_col_scan_t *s)
{
  if (!s)
    return;
  seg_let_go(s);
  arena_destroy(s->cs_arena);
  arena_destroy(s->cs_varena);
  free(s->cs_preds);
  free(s);
}

void bt_col_scan_stats(const bt_col_scan_t *s, uint64_t *read, uint64_t *skipped)
{
  *read = s->cs_read;
  *skipped = s->cs_skipped;
}

/* First row of keys at or above (upper: above) key. */
static uint32_t key_bound(const vec_t *keys, uint32_t n, const uint8_t *key, uint32_t klen, bool upper)
{
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    int c = bt_keycmp((const uint8_t *)keys->v_str[mid].s_ptr, keys->v_str[mid].s_len, key, klen);
    if (c < 0 || (upper && c == 0))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The segment's keys, decoded once per segment (a re-aimed scan that
 * stays in the segment searches them again without decoding). */
static int decode_keys(bt_col_scan_t *s, vec_t *keys, err_t *e)
{
  const btc_desc_t *d = &s->cs_desc;
  if (!s->cs_keys_ok) {
    if (vec_init(&s->cs_keys, s->cs_arena, btc_kind_type(TP_STR), (int)d->sd_rows, e) != CZ_OK ||
        ce_decode(s->cs_runs[0], d->sd_ref[0].cr_len, &s->cs_keys, 0, s->cs_arena, e) != CZ_OK)
      return CZ_ERR;
    s->cs_keys_ok = true;
  }
  *keys = s->cs_keys;
  return CZ_OK;
}

/* Rows [*from, *to) of the segment inside [low, high) (either NULL: open),
 * decoding the key run only when its min/max straddle a bound (always
 * when keys is not NULL: the caller wants them). */
static int seg_key_range(bt_col_scan_t *s, const uint8_t *low, uint32_t low_len, const uint8_t *high,
                         uint32_t high_len, uint32_t *from, uint32_t *to, vec_t *keys, err_t *e)
{
  const btc_desc_t *d = &s->cs_desc;
  ce_info_t ci;
  *from = 0;
  *to = d->sd_rows;
  if (ce_info(s->cs_runs[0], d->sd_ref[0].cr_len, &ci, e) != CZ_OK)
    return CZ_ERR;
  if (ci.ci_n != d->sd_rows || ci.ci_phys != TP_STR || ci.ci_nnull != 0)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: key run does not match its segment",
                   (unsigned)s->cs_tree->t_root);
  bool need_lo = low && !(ci.ci_has_min && bt_keycmp((const uint8_t *)ci.ci_min.d_str.s_ptr,
                                                     ci.ci_min.d_str.s_len, low, low_len) >= 0);
  bool need_hi = high && !(ci.ci_has_max && bt_keycmp((const uint8_t *)ci.ci_max.d_str.s_ptr,
                                                      ci.ci_max.d_str.s_len, high, high_len) < 0);
  if (!need_lo && !need_hi && !keys)
    return CZ_OK;
  vec_t own;
  if (!keys)
    keys = &own;
  if (decode_keys(s, keys, e) != CZ_OK)
    return CZ_ERR;
  if (need_lo)
    *from = key_bound(keys, d->sd_rows, low, low_len, false);
  if (need_hi)
    *to = key_bound(keys, d->sd_rows, high, high_len, false);
  if (*to < *from)
    *to = *from;
  return CZ_OK;
}

/* A non-unique tree's row key (a pair) as its key, rebuilt in a. */
static int pair_key(const bt_tree_t *t, str_t *k, arena_t *a, err_t *e)
{
  uint8_t *kb = arena_try_alloc(a, k->s_len ? k->s_len : 1);
  const uint8_t *pv;
  uint32_t kl, pvl;
  if (!kb)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column scan: keys");
  if (btc_pair_split((const uint8_t *)k->s_ptr, k->s_len, kb, &kl, &pv, &pvl) != CZ_OK)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: a row's key is not a (key, value) pair",
                   (unsigned)t->t_root);
  k->s_ptr = (const char *)kb;
  k->s_len = kl;
  return CZ_OK;
}

/* Under the segment's leaf latch: asks the visibility callback about rows
 * [r0, r1) (keys decoded), marking skipped rows in *skip and collecting
 * replacements in cs_repl. */
static int seg_vis(bt_col_scan_t *s, const vec_t *keys, uint32_t r0, uint32_t r1, uint8_t **skip, err_t *e)
{
  const btc_desc_t *d = &s->cs_desc;
  bt_tree_t *t = s->cs_tree;
  for (uint32_t r = r0; r < r1; r++) {
    const void *val = NULL;
    size_t vl = 0;
    str_t kk = keys->v_str[r];
    const str_t *k = &kk;
    if (!t->t_unique && pair_key(t, &kk, s->cs_varena, e) != CZ_OK)
      return CZ_ERR;
    bt_vis_t v = s->cs_vis.cv_row(s->cs_vis.cv_ctx, k->s_ptr, k->s_len, s->cs_varena, &val, &vl);
    if (v == BT_VIS_KEEP)
      continue;
    if (!*skip && !(*skip = arena_try_zalloc(s->cs_varena, d->sd_rows)))
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column scan: visibility");
    (*skip)[r] = 1;
    if (v != BT_VIS_REPLACE)
      continue;
    if (!s->cs_repl_of) {
      s->cs_repl_of = arena_try_zalloc(s->cs_varena, sizeof(uint32_t) * d->sd_rows);
      s->cs_repl = arena_try_alloc(s->cs_varena, sizeof(scan_repl_t) * (r1 - r0));
      if (!s->cs_repl_of || !s->cs_repl)
        return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column scan: visibility");
    }
    scan_repl_t *rp = &s->cs_repl[s->cs_nrepl];
    ty_phys_t kinds[BTC_MAX_COLS];
    int n;
    if (bt_crow_parse(val, vl, BTC_MAX_COLS - 1, kinds, rp->sr_val + 1, &n, e) != CZ_OK)
      return CZ_ERR;
    for (int c = 1; c <= n && c < d->sd_ncols; c++)
      if (!rp->sr_val[c].d_null && kinds[c - 1] != d->sd_ref[c].cr_kind)
        return err_set(e, SQLSTATE_DATATYPE_MISMATCH, "column tree %u: a visible version of a row has "
                       "another kind in column %d than its segment", (unsigned)t->t_root, c);
    for (int c = n + 1; c < BTC_MAX_COLS; c++)
      rp->sr_val[c].d_null = true;
    rp->sr_val[0].d_null = false;
    rp->sr_val[0].d_str = *k;
    rp->sr_row = r;
    s->cs_repl_of[r] = ++s->cs_nrepl;
  }
  return CZ_OK;
}

/* Whether replaced row rp passes every predicate. */
static bool repl_passes(const bt_col_scan_t *s, const scan_repl_t *rp)
{
  for (int i = 0; i < s->cs_npreds; i++) {
    int c = s->cs_preds[i].cp_col;
    datum_t null;
    memset(&null, 0, sizeof null);
    null.d_null = true;
    const datum_t *v = c >= 0 && c < s->cs_desc.sd_ncols ? &rp->sr_val[c] : &null;
    ty_phys_t kind = c >= 0 && c < s->cs_desc.sd_ncols ? s->cs_desc.sd_ref[c].cr_kind : TP_I64;
    if (!ce_pred_match(&s->cs_preds[i].cp_pred, kind, v))
      return false;
  }
  return true;
}

/* Reads the segment holding the resume key (or lo): sets cs_sel to its
 * rows in range that pass the predicates, and moves the resume key to
 * the next entry. A held segment (bt_col_scan_hold) that holds the
 * resume key is visited again as it is — runs, decoded keys — with no
 * descent: its leaf has stayed latched, so nothing has changed it. */
static int seg_next(bt_col_scan_t *s, err_t *e)
{
  bt_tree_t *t = s->cs_tree;
  arena_reset(s->cs_varena);
  s->cs_nsel = s->cs_at = 0;
  s->cs_nrepl = 0;
  s->cs_repl = NULL;
  s->cs_repl_of = NULL;
  /* A copy: cs_resume moves on to the next entry below. */
  uint32_t from_len = s->cs_started ? s->cs_resume_len : s->cs_lo_len;
  const uint8_t *from_key = s->cs_started ? s->cs_resume : s->cs_lo;
  if (from_key && !(from_key = dup_bytes(s->cs_varena, from_key, from_len)))
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column scan: resume key");
  buf_t *held = NULL;
  if (seg_covers(s, from_key, from_len)) {
    held = s->cs_held;
  } else {
    /* Let go before descending again (latch order, C3). */
    seg_let_go(s);
    arena_reset(s->cs_arena);
    s->cs_keys_ok = false;
    bool want[BTC_MAX_COLS];
    memset(want, 0, sizeof want);
    want[0] = true;
    for (int i = 0; i < s->cs_ncols; i++)
      if (s->cs_cols[i] >= 0 && s->cs_cols[i] < BTC_MAX_COLS)
        want[s->cs_cols[i]] = true;
    for (int i = 0; i < s->cs_npreds; i++)
      if (s->cs_preds[i].cp_col >= 0 && s->cs_preds[i].cp_col < BTC_MAX_COLS)
        want[s->cs_preds[i].cp_col] = true;
    if (btc_locate(t, from_key, from_len, s->cs_arena, &s->cs_pos, &s->cs_desc, want, s->cs_runs, NULL,
                   &held, e) != CZ_OK)
      return CZ_ERR;
  }
  s->cs_started = true;
  const btc_pos_t pos = s->cs_pos;
  if (!pos.sp_found) {
    s->cs_done = true;
    return CZ_OK;
  }
  const btc_desc_t *d = &s->cs_desc;
  /* The rows this visit stands for: [from_key, next) within [lo, hi). */
  const uint8_t *high = pos.sp_has_next ? pos.sp_next : NULL;
  uint32_t high_len = pos.sp_nlen;
  if (s->cs_hi && (!high || bt_keycmp(s->cs_hi, s->cs_hi_len, high, high_len) < 0)) {
    high = s->cs_hi;
    high_len = s->cs_hi_len;
  }
  if (pos.sp_has_next && !(s->cs_hi && bt_keycmp(pos.sp_next, pos.sp_nlen, s->cs_hi, s->cs_hi_len) >= 0)) {
    memcpy(s->cs_resume, pos.sp_next, pos.sp_nlen);
    s->cs_resume_len = pos.sp_nlen;
  } else {
    s->cs_done = true;
  }
  /* Visibility under the latch the rows were read with (rule L3), before
   * anything is skipped or filtered: a replaced row is judged by the
   * version the reader sees, not by the segment's. */
  uint32_t r0, r1;
  uint8_t *skip = NULL;
  bool ranged = false;
  if (s->cs_has_vis && !(s->cs_vis.cv_plain && s->cs_vis.cv_plain(s->cs_vis.cv_ctx))) {
    vec_t keys;
    int rc = seg_key_range(s, from_key, from_len, high, high_len, &r0, &r1, &keys, e);
    if (rc == CZ_OK)
      rc = seg_vis(s, &keys, r0, r1, &skip, e);
    if (rc != CZ_OK) {
      bp_unfix(t->t_bp, held);
      s->cs_held = NULL;
      return CZ_ERR;
    }
    ranged = true;
  }
  if (s->cs_hold)
    s->cs_held = held;
  else {
    bp_unfix(t->t_bp, held);
    s->cs_held = NULL;
  }
  /* Whole-segment skipping on min/max before anything is decoded (the
   * stored values' bounds say nothing of a replacement's). */
  for (int i = 0; i < s->cs_npreds && s->cs_nrepl == 0; i++) {
    int c = s->cs_preds[i].cp_col;
    ce_info_t ci;
    if (c < 0 || c >= d->sd_ncols) {
      /* A column the segment lacks is NULL in every row. */
      ce_op_t op = s->cs_preds[i].cp_pred.p_op;
      if (op == CE_IS_NULL)
        continue;
      s->cs_skipped++;
      return CZ_OK;
    }
    if (ce_info(s->cs_runs[c], d->sd_ref[c].cr_len, &ci, e) != CZ_OK)
      return CZ_ERR;
    if (ci.ci_n != d->sd_rows)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: run of column %d holds %u rows, its segment %u",
                     (unsigned)t->t_root, c, ci.ci_n, d->sd_rows);
    if (!ce_may_match(&ci, &s->cs_preds[i].cp_pred)) {
      s->cs_skipped++;
      return CZ_OK;
    }
  }
  s->cs_read++;
  if (!ranged && seg_key_range(s, from_key, from_len, high, high_len, &r0, &r1, NULL, e) != CZ_OK)
    return CZ_ERR;
  uint32_t *sel = arena_try_alloc(s->cs_varena, sizeof *sel * d->sd_rows);
  uint32_t *tmp = arena_try_alloc(s->cs_varena, sizeof *tmp * d->sd_rows);
  if (!sel || !tmp)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column scan: selection");
  uint32_t nsel = 0;
  for (uint32_t r = r0; r < r1; r++)
    if (!skip || !skip[r])
      sel[nsel++] = r;
  bool all = r0 == 0 && r1 == d->sd_rows && nsel == r1 - r0;
  for (int i = 0; i < s->cs_npreds && nsel > 0; i++) {
    int c = s->cs_preds[i].cp_col;
    if (c < 0 || c >= d->sd_ncols) {
      /* A column the segment lacks is NULL in every stored row. */
      if (s->cs_preds[i].cp_pred.p_op != CE_IS_NULL)
        nsel = 0;
      continue;
    }
    uint32_t nout;
    if (ce_filter(s->cs_runs[c], d->sd_ref[c].cr_len, &s->cs_preds[i].cp_pred, all ? NULL : sel,
                  all ? 0 : nsel, tmp, &nout, s->cs_varena, e) != CZ_OK)
      return CZ_ERR;
    uint32_t *x = sel;
    sel = tmp;
    tmp = x;
    nsel = nout;
    all = false;
  }
  if (s->cs_nrepl > 0) {
    /* Merge the replaced rows that pass into the selection, in row order. */
    uint32_t n = 0, i = 0;
    for (uint32_t j = 0; j < s->cs_nrepl; j++) {
      const scan_repl_t *rp = &s->cs_repl[j];
      if (!repl_passes(s, rp))
        continue;
      while (i < nsel && sel[i] < rp->sr_row)
        tmp[n++] = sel[i++];
      tmp[n++] = rp->sr_row;
    }
    while (i < nsel)
      tmp[n++] = sel[i++];
    sel = tmp;
    nsel = n;
  }
  s->cs_sel = sel;
  s->cs_nsel = nsel;
  return CZ_OK;
}

int bt_col_scan_next(bt_col_scan_t *s, vec_t *out, int max, int *n, err_t *e)
{
  *n = 0;
  if (max <= 0)
    return err_set(e, SQLSTATE_INTERNAL, "bt_col_scan_next: room for %d rows", max);
  while (s->cs_at >= s->cs_nsel) {
    if (s->cs_done)
      return BT_END;
    if (seg_next(s, e) != CZ_OK)
      return CZ_ERR;
  }
  uint32_t k = s->cs_nsel - s->cs_at;
  if (k > (uint32_t)max)
    k = (uint32_t)max;
  const uint32_t *sel = s->cs_sel + s->cs_at;
  const btc_desc_t *d = &s->cs_desc;
  for (int i = 0; i < s->cs_ncols; i++) {
    int c = s->cs_cols[i];
    if (c < 0 || c >= d->sd_ncols) {
      for (uint32_t r = 0; r < k; r++)
        out[i].v_null[r] = 1;
      continue;
    }
    if (ty_phys(out[i].v_type.t_id) != d->sd_ref[c].cr_kind)
      return err_set(e, SQLSTATE_DATATYPE_MISMATCH, "column scan: output %d is not of column %d's kind", i, c);
    if (ce_decode_sel(s->cs_runs[c], d->sd_ref[c].cr_len, sel, k, &out[i], 0, s->cs_varena, e) != CZ_OK)
      return CZ_ERR;
    for (uint32_t r = 0; c == 0 && !s->cs_tree->t_unique && r < k; r++)
      if (pair_key(s->cs_tree, &out[i].v_str[r], s->cs_varena, e) != CZ_OK)
        return CZ_ERR;
    /* Replaced rows: the version the reader sees over the stored one. */
    for (uint32_t r = 0; s->cs_nrepl && r < k; r++)
      if (s->cs_repl_of[sel[r]])
        vec_set(&out[i], (int)r, &s->cs_repl[s->cs_repl_of[sel[r]] - 1].sr_val[c]);
  }
  s->cs_at += k;
  *n = (int)k;
  return CZ_OK;
}
