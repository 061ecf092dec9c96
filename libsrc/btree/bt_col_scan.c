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

int btc_locate(bt_tree_t *t, const void *key, size_t klen, arena_t *a, btc_pos_t *pos, btc_desc_t *d,
               const bool *want, uint8_t **runs, uint64_t *pages, err_t *e)
{
  bt_cursor_t *c;
  if (bt_cursor_open(t->t_seg, &c, e) != CZ_OK)
    return CZ_ERR;
  int rc = CZ_ERR;
  for (int attempt = 0;; attempt++) {
    const void *k, *v;
    size_t kl, vl;
    uint8_t *ek = NULL;
    size_t eklen = 0;
    memset(pos, 0, sizeof *pos);
    if (key) {
      if (bt_seek(c, key, klen, BT_BACKWARD, e) != CZ_OK)
        goto out;
      int r = bt_next(c, &k, &kl, &v, &vl, e);
      if (r == CZ_ERR)
        goto out;
      if (r == CZ_OK) {
        if (!(ek = dup_bytes(a, k, kl)))
          goto oom;
        eklen = kl;
      }
    }
    if (bt_seek(c, ek, eklen, BT_FORWARD, e) != CZ_OK)
      goto out;
    int r = bt_next(c, &k, &kl, &v, &vl, e);
    if (r == CZ_ERR)
      goto out;
    if (r == BT_END) {
      if (ek)
        continue; /* the entry went away between the two seeks */
      rc = CZ_OK;   /* empty tree */
      goto out;
    }
    if (ek && (kl != eklen || memcmp(k, ek, kl) != 0))
      continue;
    pos->sp_found = true;
    pos->sp_first = ek == NULL;
    if (!(pos->sp_key = dup_bytes(a, k, kl)) || !(pos->sp_desc = dup_bytes(a, v, vl)))
      goto oom;
    pos->sp_klen = (uint32_t)kl;
    pos->sp_dlen = vl;
    if (btc_desc_parse(pos->sp_desc, vl, d, e) != CZ_OK)
      goto out;
    for (int col = 0; runs && col < d->sd_ncols; col++) {
      runs[col] = NULL;
      if ((!want || want[col]) && btc_run_load(t, &d->sd_ref[col], a, &runs[col], pages, e) != CZ_OK)
        goto out;
    }
    r = bt_next(c, &k, &kl, &v, &vl, e);
    if (r == CZ_ERR)
      goto out;
    if (r == CZ_OK) {
      pos->sp_has_next = true;
      if (!(pos->sp_next = dup_bytes(a, k, kl)))
        goto oom;
      pos->sp_nlen = (uint32_t)kl;
    }
    /* A split may have put an entry between the one found and key: the
     * rows at key are then the new entry's. */
    if (key && pos->sp_has_next && bt_keycmp(key, klen, pos->sp_next, pos->sp_nlen) >= 0) {
      if (attempt > 1000) {
        err_set(e, SQLSTATE_INTERNAL, "column tree %u: no stable segment for a key", (unsigned)t->t_root);
        goto out;
      }
      continue;
    }
    rc = CZ_OK;
    goto out;
  }
oom:
  err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: segment position");
out:
  bt_cursor_close(c);
  return rc;
}

/* ---- lookups ------------------------------------------------------------------ */

int btc_seg_load(bt_tree_t *t, const void *key, size_t klen, arena_t *a, look_seg_t *s, err_t *e)
{
  uint8_t *runs[BTC_MAX_COLS];
  if (btc_locate(t, key, klen, a, &s->ls_pos, &s->ls_desc, NULL, runs, NULL, e) != CZ_OK)
    return CZ_ERR;
  if (!s->ls_pos.sp_found)
    return CZ_OK;
  const btc_desc_t *d = &s->ls_desc;
  for (int c = 0; c < d->sd_ncols; c++) {
    ce_info_t ci;
    if (ce_info(runs[c], d->sd_ref[c].cr_len, &ci, e) != CZ_OK)
      return CZ_ERR;
    if (ci.ci_n != d->sd_rows || ci.ci_phys != d->sd_ref[c].cr_kind)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: run of column %d does not match its segment",
                     (unsigned)t->t_root, c);
    if (vec_init(&s->ls_vec[c], a, btc_kind_type(d->sd_ref[c].cr_kind), (int)d->sd_rows, e) != CZ_OK ||
        ce_decode(runs[c], d->sd_ref[c].cr_len, &s->ls_vec[c], 0, a, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
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
    vec_get(&s->ls_vec[c + 1], r, &v[c]);
  }
  size_t sz = bt_crow_size(kinds, v, m);
  if (!(*row = arena_try_alloc(a, sz)))
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: row");
  return bt_crow_build(kinds, v, m, *row, sz, len, e);
}

int btc_lookup(bt_tree_t *t, const void *key, size_t klen, void *val, size_t cap, size_t *vlen, err_t *e)
{
  arena_t *a = arena_create(NULL, "btc_lookup");
  if (!a)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: lookup arena");
  look_seg_t *s = arena_try_zalloc(a, sizeof *s);
  int rc = CZ_ERR;
  if (!s) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: lookup");
    goto out;
  }
  if (btc_seg_load(t, key, klen, a, s, e) != CZ_OK)
    goto out;
  int r = s->ls_pos.sp_found ? look_find(s, key, klen) : -1;
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

int btc_lookup_batch(bt_tree_t *t, const bt_key_t *keys, int n, bt_lookup_cb_t cb, void *ctx, err_t *e)
{
  arena_t *a = arena_create(NULL, "btc_lookup_batch");
  arena_t *rowa = arena_create(NULL, "btc_lookup_row");
  int rc = CZ_ERR;
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
    if (!look_covers(s, k, kl)) {
      arena_reset(a);
      s = arena_try_zalloc(a, sizeof *s);
      if (!s) {
        err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: batch lookup");
        goto out;
      }
      if (btc_seg_load(t, k, kl, a, s, e) != CZ_OK)
        goto out;
    }
    int r = s->ls_pos.sp_found ? look_find(s, k, kl) : -1;
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
  if (a)
    arena_destroy(a);
  if (rowa)
    arena_destroy(rowa);
  return rc;
}

/* ---- the column scan ---------------------------------------------------------- */

struct bt_col_scan_s {
  bt_tree_t *cs_tree;
  uint8_t *cs_lo, *cs_hi;       /* copies of the bounds; NULL open */
  uint32_t cs_lo_len, cs_hi_len;
  int *cs_cols;
  int cs_ncols;
  bt_col_pred_t *cs_preds;
  int cs_npreds;
  arena_t *cs_arena;            /* the current segment: runs, decoded strings */
  uint8_t *cs_resume;           /* next segment at or after this key; NULL = from lo */
  uint32_t cs_resume_len;
  bool cs_started;
  bool cs_done;
  /* the current segment */
  btc_desc_t cs_desc;
  uint8_t *cs_runs[BTC_MAX_COLS];
  uint32_t *cs_sel;             /* surviving rows */
  uint32_t cs_nsel;
  uint32_t cs_at;               /* next of cs_sel to hand out */
  uint64_t cs_read, cs_skipped;
};

int bt_col_scan_open(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len,
                     const int *cols, int ncols, const bt_col_pred_t *preds, int npreds,
                     bt_col_scan_t **out, err_t *e)
{
  if (!t->t_column)
    return err_set(e, SQLSTATE_INTERNAL, "bt_col_scan_open: tree %u is not a column tree", (unsigned)t->t_root);
  if (ncols < 0 || npreds < 0 || lo_len > BT_MAX_KEY || hi_len > BT_MAX_KEY)
    return err_set(e, SQLSTATE_INTERNAL, "bt_col_scan_open: bad arguments");
  arena_t *a = arena_create(NULL, "btc_scan");
  if (!a)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column scan");
  bt_col_scan_t *s = calloc(1, sizeof *s);
  uint8_t *mem = malloc((size_t)lo_len + hi_len + sizeof(int) * (size_t)(ncols + 1) +
                        sizeof(bt_col_pred_t) * (size_t)(npreds + 1) + 2 * BT_MAX_KEY + 16);
  if (!s || !mem) {
    free(s);
    free(mem);
    arena_destroy(a);
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
  if (lo) {
    s->cs_lo = p;
    memcpy(p, lo, lo_len);
    s->cs_lo_len = (uint32_t)lo_len;
    p += lo_len;
  }
  if (hi) {
    s->cs_hi = p;
    memcpy(p, hi, hi_len);
    s->cs_hi_len = (uint32_t)hi_len;
    p += hi_len;
  }
  s->cs_resume = p;
  s->cs_tree = t;
  s->cs_ncols = ncols;
  s->cs_npreds = npreds;
  s->cs_arena = a;
  *out = s;
  return CZ_OK;
}

void bt_col_scan_close(bt_col_scan_t *s)
{
  if (!s)
    return;
  arena_destroy(s->cs_arena);
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

/* Rows [*from, *to) of the segment inside [low, high) (either NULL: open),
 * decoding the key run only when its min/max straddle a bound. */
static int seg_key_range(bt_col_scan_t *s, const uint8_t *low, uint32_t low_len, const uint8_t *high,
                         uint32_t high_len, uint32_t *from, uint32_t *to, err_t *e)
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
  if (!need_lo && !need_hi)
    return CZ_OK;
  vec_t keys;
  if (vec_init(&keys, s->cs_arena, btc_kind_type(TP_STR), (int)d->sd_rows, e) != CZ_OK ||
      ce_decode(s->cs_runs[0], d->sd_ref[0].cr_len, &keys, 0, s->cs_arena, e) != CZ_OK)
    return CZ_ERR;
  if (need_lo)
    *from = key_bound(&keys, d->sd_rows, low, low_len, false);
  if (need_hi)
    *to = key_bound(&keys, d->sd_rows, high, high_len, false);
  if (*to < *from)
    *to = *from;
  return CZ_OK;
}

/* Reads the segment holding the resume key (or lo): sets cs_sel to its
 * rows in range that pass the predicates, and moves the resume key to
 * the next entry. */
static int seg_next(bt_col_scan_t *s, err_t *e)
{
  bt_tree_t *t = s->cs_tree;
  arena_reset(s->cs_arena);
  s->cs_nsel = s->cs_at = 0;
  /* A copy: cs_resume moves on to the next entry below. */
  uint32_t from_len = s->cs_started ? s->cs_resume_len : s->cs_lo_len;
  const uint8_t *from_key = s->cs_started ? s->cs_resume : s->cs_lo;
  if (from_key && !(from_key = dup_bytes(s->cs_arena, from_key, from_len)))
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column scan: resume key");
  btc_pos_t pos;
  bool want[BTC_MAX_COLS];
  memset(want, 0, sizeof want);
  want[0] = true;
  for (int i = 0; i < s->cs_ncols; i++)
    if (s->cs_cols[i] >= 0 && s->cs_cols[i] < BTC_MAX_COLS)
      want[s->cs_cols[i]] = true;
  for (int i = 0; i < s->cs_npreds; i++)
    if (s->cs_preds[i].cp_col >= 0 && s->cs_preds[i].cp_col < BTC_MAX_COLS)
      want[s->cs_preds[i].cp_col] = true;
  if (btc_locate(t, from_key, from_len, s->cs_arena, &pos, &s->cs_desc, want, s->cs_runs, NULL, e) != CZ_OK)
    return CZ_ERR;
  s->cs_started = true;
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
  /* Whole-segment skipping on min/max before anything is decoded. */
  for (int i = 0; i < s->cs_npreds; i++) {
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
  uint32_t r0, r1;
  if (seg_key_range(s, from_key, from_len, high, high_len, &r0, &r1, e) != CZ_OK)
    return CZ_ERR;
  uint32_t *sel = arena_try_alloc(s->cs_arena, sizeof *sel * d->sd_rows);
  uint32_t *tmp = arena_try_alloc(s->cs_arena, sizeof *tmp * d->sd_rows);
  if (!sel || !tmp)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column scan: selection");
  uint32_t nsel = r1 - r0;
  bool all = r0 == 0 && r1 == d->sd_rows;
  for (uint32_t i = 0; i < nsel; i++)
    sel[i] = r0 + i;
  for (int i = 0; i < s->cs_npreds && nsel > 0; i++) {
    int c = s->cs_preds[i].cp_col;
    if (c >= d->sd_ncols)
      continue; /* IS NULL on a missing column: every row */
    uint32_t nout;
    if (ce_filter(s->cs_runs[c], d->sd_ref[c].cr_len, &s->cs_preds[i].cp_pred, all ? NULL : sel,
                  all ? 0 : nsel, tmp, &nout, s->cs_arena, e) != CZ_OK)
      return CZ_ERR;
    uint32_t *x = sel;
    sel = tmp;
    tmp = x;
    nsel = nout;
    all = false;
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
    if (ce_decode_sel(s->cs_runs[c], d->sd_ref[c].cr_len, sel, k, &out[i], 0, s->cs_arena, e) != CZ_OK)
      return CZ_ERR;
  }
  s->cs_at += k;
  *n = (int)k;
  return CZ_OK;
}
