/* bt_col_seg.c — segments: descriptors, run pages, and the transposition
 * between index rows and compressed column runs.
 *
 * Design notes (README "Column leaves"): a segment is encoded from rows
 * [from, to) of a btc_rows_t by transposing them into one vector per column
 * (column 0 the keys as strings) and letting ce_encode choose each column's
 * codec on that segment's values. Runs of up to BTC_INLINE bytes stay in the
 * descriptor while it fits beside its entry key; the others go to fresh run
 * pages (copy-on-write: nothing existing is overwritten, so a reader holding
 * the old descriptor still reads the old runs until the writer frees them
 * after the swap, rule C4).
 */
#include <string.h>

#include "btree/bt_col_int.h"

ty_t btc_kind_type(ty_phys_t k)
{
  switch (k) {
  case TP_BOOL: return ty_plain(TY_BOOL);
  case TP_I64: return ty_plain(TY_INT8);
  case TP_F64: return ty_plain(TY_FLOAT8);
  case TP_NUM: return ty_plain(TY_NUMERIC);
  default: return ty_plain(TY_BYTEA);
  }
}

void btc_rows_init(btc_rows_t *rs) { memset(rs, 0, sizeof *rs); }

int btc_rows_reserve(btc_rows_t *rs, arena_t *a, int n, err_t *e)
{
  if (n <= rs->rs_cap)
    return CZ_OK;
  int cap = rs->rs_cap ? rs->rs_cap : 64;
  while (cap < n)
    cap *= 2;
  const uint8_t **k = arena_try_alloc(a, sizeof *k * (size_t)cap);
  uint32_t *kl = arena_try_alloc(a, sizeof *kl * (size_t)cap);
  const uint8_t **v = arena_try_alloc(a, sizeof *v * (size_t)cap);
  uint32_t *vl = arena_try_alloc(a, sizeof *vl * (size_t)cap);
  if (!k || !kl || !v || !vl)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: rows of a segment");
  if (rs->rs_n) {
    memcpy(k, rs->rs_key, sizeof *k * (size_t)rs->rs_n);
    memcpy(kl, rs->rs_klen, sizeof *kl * (size_t)rs->rs_n);
    memcpy(v, rs->rs_val, sizeof *v * (size_t)rs->rs_n);
    memcpy(vl, rs->rs_vlen, sizeof *vl * (size_t)rs->rs_n);
  }
  rs->rs_key = k;
  rs->rs_klen = kl;
  rs->rs_val = v;
  rs->rs_vlen = vl;
  rs->rs_cap = cap;
  return CZ_OK;
}

/* ---- descriptors ----------------------------------------------------------- */

int btc_desc_parse(const uint8_t *d, size_t len, btc_desc_t *out, err_t *e)
{
  if (len < BTC_DESC_HEAD || d[0] != BTC_DESC_VERSION)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree: segment descriptor of %zu bytes, version %u",
                   len, len ? d[0] : 0);
  out->sd_ncols = bt_ld16(d + 2);
  out->sd_rows = bt_ld32(d + 4);
  if (out->sd_ncols < 1 || out->sd_ncols > BTC_MAX_COLS || out->sd_rows < 1 || out->sd_rows > BTC_SEG_ROWS)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree: segment of %d columns and %u rows",
                   out->sd_ncols, out->sd_rows);
  size_t off = BTC_DESC_HEAD;
  for (int c = 0; c < out->sd_ncols; c++) {
    btc_ref_t *r = &out->sd_ref[c];
    if (off + BTC_COL_HEAD > len)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree: descriptor ends in column %d", c);
    r->cr_place = d[off];
    r->cr_kind = (ty_phys_t)d[off + 1];
    r->cr_len = bt_ld32(d + off + 4);
    off += BTC_COL_HEAD;
    if (r->cr_kind > TP_STR || (c == 0 && r->cr_kind != TP_STR))
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree: column %d of kind %d", c, (int)r->cr_kind);
    if (r->cr_place == BTC_INLINE_RUN) {
      if (r->cr_len > len - off)
        return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree: inline run of column %d runs past the descriptor", c);
      r->cr_inline = d + off;
      r->cr_page = PG_NONE;
      off += r->cr_len;
    } else if (r->cr_place == BTC_PAGED_RUN) {
      if (off + 4 > len)
        return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree: descriptor ends in column %d", c);
      r->cr_inline = NULL;
      r->cr_page = bt_ld32(d + off);
      off += 4;
    } else {
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree: column %d placed %u", c, r->cr_place);
    }
  }
  if (off != len)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree: %zu bytes after the descriptor's columns", len - off);
  return CZ_OK;
}

/* ---- run pages --------------------------------------------------------------- */

int btc_run_load(bt_tree_t *t, const btc_ref_t *ref, arena_t *a, uint8_t **buf, uint64_t *pages, err_t *e)
{
  uint8_t *out = arena_try_alloc(a, ref->cr_len ? ref->cr_len : 1);
  if (!out)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: run of %u bytes", ref->cr_len);
  if (ref->cr_place == BTC_INLINE_RUN) {
    memcpy(out, ref->cr_inline, ref->cr_len);
    *buf = out;
    return CZ_OK;
  }
  uint32_t got = 0;
  pg_no_t pg = ref->cr_page;
  while (got < ref->cr_len) {
    if (pg == PG_NONE)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: run chain ends after %u of %u bytes",
                     (unsigned)t->t_root, got, ref->cr_len);
    buf_t *b = bp_fix(t->t_bp, pg, BP_SHARED, BP_SCAN, e);
    if (!b)
      return err_prefix(e, "column tree %u: run page %u", (unsigned)t->t_root, (unsigned)pg);
    const uint8_t *p = bp_page(b);
    const pg_head_t *ph = (const pg_head_t *)p;
    uint32_t here = bt_ld32(p + PG_HEAD_SIZE + 4);
    if (ph->ph_type != PG_T_BTREE_RUN || ph->ph_owner != t->t_root || here == 0 || here > BTC_RUN_DATA ||
        here > ref->cr_len - got) {
      bp_unfix(t->t_bp, b);
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: run page %u (type %u, %u bytes) is not part of a run",
                     (unsigned)t->t_root, (unsigned)pg, (unsigned)ph->ph_type, here);
    }
    memcpy(out + got, p + BTC_RUN_HEAD, here);
    got += here;
    pg = bt_ld32(p + PG_HEAD_SIZE);
    bp_unfix(t->t_bp, b);
    if (pages)
      (*pages)++;
  }
  if (pg != PG_NONE)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: run chain longer than its %u bytes",
                   (unsigned)t->t_root, ref->cr_len);
  *buf = out;
  return CZ_OK;
}

/* Writes len bytes on a chain of new run pages near *near; *first gets
 * the chain's first page, *near its last. */
static int run_write(bt_tree_t *t, const uint8_t *bytes, uint32_t len, pg_no_t *near, pg_no_t *first, err_t *e)
{
  buf_t *prev = NULL;
  *first = PG_NONE;
  for (uint32_t off = 0; off < len;) {
    buf_t *b = bp_fix_new(t->t_bp, t->t_root, *near, e);
    if (!b) {
      if (prev) {
        bp_set_dirty(t->t_bp, prev);
        bp_unfix(t->t_bp, prev);
      }
      return err_prefix(e, "column tree %u: run page", (unsigned)t->t_root);
    }
    uint8_t *p = bp_page(b);
    pg_head_t *ph = (pg_head_t *)p;
    ph->ph_type = PG_T_BTREE_RUN;
    ph->ph_flags = 0;
    ph->ph_owner = t->t_root;
    uint32_t here = len - off < BTC_RUN_DATA ? len - off : BTC_RUN_DATA;
    bt_st32(p + PG_HEAD_SIZE, PG_NONE);
    bt_st32(p + PG_HEAD_SIZE + 4, here);
    memcpy(p + BTC_RUN_HEAD, bytes + off, here);
    off += here;
    *near = bp_page_no(b);
    if (prev) {
      bt_st32(bp_page(prev) + PG_HEAD_SIZE, bp_page_no(b));
      bp_set_dirty(t->t_bp, prev);
      bp_unfix(t->t_bp, prev);
    } else {
      *first = bp_page_no(b);
    }
    prev = b;
  }
  if (prev) {
    bp_set_dirty(t->t_bp, prev);
    bp_unfix(t->t_bp, prev);
  }
  return CZ_OK;
}

static int free_chain(bt_tree_t *t, pg_no_t pg, err_t *e)
{
  while (pg != PG_NONE) {
    buf_t *b = bp_fix(t->t_bp, pg, BP_EXCL, 0, e);
    if (!b)
      return err_prefix(e, "column tree %u: freeing run page %u", (unsigned)t->t_root, (unsigned)pg);
    const pg_head_t *ph = (const pg_head_t *)bp_page(b);
    if (ph->ph_type != PG_T_BTREE_RUN || ph->ph_owner != t->t_root) {
      bp_unfix(t->t_bp, b);
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: page %u in a run chain is not a run page",
                     (unsigned)t->t_root, (unsigned)pg);
    }
    pg_no_t next = bt_ld32(bp_page(b) + PG_HEAD_SIZE);
    bp_free_page(t->t_bp, b);
    pg = next;
  }
  return CZ_OK;
}

int btc_desc_free_runs(bt_tree_t *t, const btc_desc_t *d, err_t *e)
{
  for (int c = 0; c < d->sd_ncols; c++)
    if (d->sd_ref[c].cr_place == BTC_PAGED_RUN && free_chain(t, d->sd_ref[c].cr_page, e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

/* ---- encoding ---------------------------------------------------------------- */

/* The column count and kinds of rows [from, to): the widest row decides
 * the count, the first row having a column its kind. */
static int seg_shape(const btc_rows_t *rs, int from, int to, ty_phys_t *kinds, int *ncols, err_t *e)
{
  ty_phys_t k[BTC_MAX_COLS];
  datum_t v[BTC_MAX_COLS];
  int m = 0;
  for (int r = from; r < to; r++) {
    int n;
    if (bt_crow_parse(rs->rs_val[r], rs->rs_vlen[r], BTC_MAX_COLS - 1, k, v, &n, e) != CZ_OK)
      return CZ_ERR;
    for (int c = 0; c < n; c++) {
      if (c >= m)
        kinds[c] = k[c];
      else if (kinds[c] != k[c])
        return err_set(e, SQLSTATE_DATATYPE_MISMATCH,
                       "column tree: column %d holds kind %d in one row and %d in another", c + 1,
                       (int)kinds[c], (int)k[c]);
    }
    if (n > m)
      m = n;
  }
  *ncols = m;
  return CZ_OK;
}

int btc_seg_encode(bt_tree_t *t, const btc_rows_t *rs, int from, int to, uint32_t entry_klen, arena_t *a,
                   uint8_t **desc, size_t *desc_len, err_t *e)
{
  int n = to - from, m = 0;
  ty_phys_t kinds[BTC_MAX_COLS];
  if (n < 1 || n > BTC_SEG_ROWS)
    return err_set(e, SQLSTATE_INTERNAL, "column tree: segment of %d rows", n);
  if (seg_shape(rs, from, to, kinds, &m, e) != CZ_OK)
    return CZ_ERR;
  int ncols = m + 1;
  long budget = (long)BT_MAX_ROW - entry_klen - BTC_DESC_HEAD - (long)ncols * (BTC_COL_HEAD + 4);
  if (budget < 0)
    return err_set(e, SQLSTATE_TOO_MANY_COLUMNS, "column tree: %d columns do not fit a segment beside a %u-byte key",
                   ncols, entry_klen);
  arena_t *sc = arena_create(a, "btc_encode");
  if (!sc)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: encode arena");
  int rc = CZ_ERR;
  vec_t *vecs = arena_try_zalloc(sc, sizeof *vecs * (size_t)ncols);
  uint8_t **runs = arena_try_zalloc(sc, sizeof *runs * (size_t)ncols);
  size_t *lens = arena_try_zalloc(sc, sizeof *lens * (size_t)ncols);
  if (!vecs || !runs || !lens) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: encode");
    goto out;
  }
  if (vec_init(&vecs[0], sc, btc_kind_type(TP_STR), n, e) != CZ_OK)
    goto out;
  for (int c = 1; c < ncols; c++)
    if (vec_init(&vecs[c], sc, btc_kind_type(kinds[c - 1]), n, e) != CZ_OK)
      goto out;
  /* Transpose. */
  for (int r = 0; r < n; r++) {
    ty_phys_t k[BTC_MAX_COLS];
    datum_t v[BTC_MAX_COLS];
    int cn;
    datum_t kd = {.d_null = false};
    kd.d_str.s_ptr = (const char *)rs->rs_key[from + r];
    kd.d_str.s_len = rs->rs_klen[from + r];
    vec_set(&vecs[0], r, &kd);
    if (bt_crow_parse(rs->rs_val[from + r], rs->rs_vlen[from + r], BTC_MAX_COLS - 1, k, v, &cn, e) != CZ_OK)
      goto out;
    for (int c = 0; c < m; c++) {
      if (c >= cn)
        v[c].d_null = true;
      vec_set(&vecs[c + 1], r, &v[c]);
    }
  }
  size_t dlen = BTC_DESC_HEAD;
  bool inl[BTC_MAX_COLS];
  for (int c = 0; c < ncols; c++) {
    if (ce_encode(&vecs[c], 0, n, CE_AUTO, sc, sc, &runs[c], &lens[c], e) != CZ_OK)
      goto out;
    if (lens[c] > UINT32_MAX / 2) {
      err_set(e, SQLSTATE_PROGRAM_LIMIT, "column tree: run of %zu bytes", lens[c]);
      goto out;
    }
    long extra = (long)lens[c] - 4;
    inl[c] = lens[c] <= BTC_INLINE && extra <= budget;
    if (inl[c])
      budget -= extra;
    dlen += BTC_COL_HEAD + (inl[c] ? lens[c] : 4);
  }
  uint8_t *d = arena_try_alloc(a, dlen);
  if (!d) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: descriptor");
    goto out;
  }
  d[0] = BTC_DESC_VERSION;
  d[1] = 0;
  bt_st16(d + 2, (uint16_t)ncols);
  bt_st32(d + 4, (uint32_t)n);
  size_t off = BTC_DESC_HEAD;
  pg_no_t near = t->t_root;
  pg_no_t firsts[BTC_MAX_COLS];
  for (int c = 0; c < ncols; c++) {
    d[off] = inl[c] ? BTC_INLINE_RUN : BTC_PAGED_RUN;
    d[off + 1] = (uint8_t)(c == 0 ? TP_STR : kinds[c - 1]);
    bt_st16(d + off + 2, 0);
    bt_st32(d + off + 4, (uint32_t)lens[c]);
    off += BTC_COL_HEAD;
    if (inl[c]) {
      memcpy(d + off, runs[c], lens[c]);
      off += lens[c];
    } else {
      pg_no_t first;
      if (run_write(t, runs[c], (uint32_t)lens[c], &near, &first, e) != CZ_OK) {
        /* The chains written so far are reachable from nothing. */
        err_t e2;
        for (int j = 0; j < c; j++)
          if (!inl[j])
            free_chain(t, firsts[j], &e2);
        goto out;
      }
      firsts[c] = first;
      bt_st32(d + off, first);
      off += 4;
    }
  }
  *desc = d;
  *desc_len = dlen;
  rc = CZ_OK;
out:
  arena_destroy(sc);
  return rc;
}

/* ---- decoding ---------------------------------------------------------------- */

int btc_seg_decode(bt_tree_t *t, const btc_desc_t *d, arena_t *a, btc_rows_t *rs, err_t *e)
{
  uint32_t n = d->sd_rows;
  vec_t vecs[BTC_MAX_COLS];
  ty_phys_t kinds[BTC_MAX_COLS];
  for (int c = 0; c < d->sd_ncols; c++) {
    uint8_t *buf;
    ce_info_t ci;
    if (btc_run_load(t, &d->sd_ref[c], a, &buf, NULL, e) != CZ_OK)
      return CZ_ERR;
    if (ce_info(buf, d->sd_ref[c].cr_len, &ci, e) != CZ_OK)
      return err_prefix(e, "column tree %u, column %d", (unsigned)t->t_root, c);
    if (ci.ci_n != n || ci.ci_phys != d->sd_ref[c].cr_kind || ci.ci_len != d->sd_ref[c].cr_len)
      return err_set(e, SQLSTATE_DATA_CORRUPTED,
                     "column tree %u: run of column %d holds %u rows of kind %d in %zu bytes; the segment says %u of %d in %u",
                     (unsigned)t->t_root, c, ci.ci_n, (int)ci.ci_phys, ci.ci_len, n, (int)d->sd_ref[c].cr_kind,
                     d->sd_ref[c].cr_len);
    if (vec_init(&vecs[c], a, btc_kind_type(d->sd_ref[c].cr_kind), (int)n, e) != CZ_OK ||
        ce_decode(buf, d->sd_ref[c].cr_len, &vecs[c], 0, a, e) != CZ_OK)
      return CZ_ERR;
    if (c > 0)
      kinds[c - 1] = d->sd_ref[c].cr_kind;
  }
  if (btc_rows_reserve(rs, a, rs->rs_n + (int)n, e) != CZ_OK)
    return CZ_ERR;
  int m = d->sd_ncols - 1;
  for (uint32_t r = 0; r < n; r++) {
    datum_t kd, v[BTC_MAX_COLS];
    vec_get(&vecs[0], (int)r, &kd);
    if (kd.d_null)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: NULL key in a segment", (unsigned)t->t_root);
    for (int c = 0; c < m; c++)
      vec_get(&vecs[c + 1], (int)r, &v[c]);
    size_t sz = bt_crow_size(kinds, v, m), len;
    uint8_t *row = arena_try_alloc(a, sz);
    if (!row)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: rebuilt row");
    if (bt_crow_build(kinds, v, m, row, sz, &len, e) != CZ_OK)
      return CZ_ERR;
    int i = rs->rs_n++;
    rs->rs_key[i] = (const uint8_t *)kd.d_str.s_ptr;
    rs->rs_klen[i] = kd.d_str.s_len;
    rs->rs_val[i] = row;
    rs->rs_vlen[i] = (uint32_t)len;
  }
  return CZ_OK;
}
