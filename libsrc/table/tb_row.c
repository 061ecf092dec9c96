/* tb_row — the row codec: every column of a row in one B-tree value.
 *
 * Layout (table/README.md, "Row format"): varint column count, a NULL
 * bitmap (bit i of byte i/8 set = column i is NULL), then each non-NULL
 * column in order: BOOL 1 byte; INT2 2, INT4/DATE 4, INT8/TIMESTAMP 8
 * bytes little-endian; REAL 4 and DOUBLE 8 bytes IEEE; NUMERIC a scale
 * byte, a length byte and that many bytes of the two's complement value
 * (little-endian, minimal); strings a varint length and the bytes.
 * The column count lets a row written before ALTER TABLE ADD COLUMN read
 * as NULL in the new columns.
 *
 * Out-of-line values (tb_long.c): a row holding references carries
 * TB_ROW_LONG in its header varint (count | TB_ROW_LONG) and, after the
 * NULL bitmap, a long bitmap of the same size (bit i = column i is a
 * reference). A reference's body replaces the string's: varint total
 * length, then the 8-byte value id (little-endian). Rows without
 * references are byte for byte the format of before.
 *
 * The per-kind readers are tb_rowfmt.h's, shared with the decoder into a
 * scan's vectors (tb_row_vec.c).
 */
#include <string.h>

#include "table/tb_rowfmt.h"

static size_t row_put_varint(uint8_t *p, size_t cap, size_t n, uint64_t v)
{
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    if (v)
      b |= 0x80;
    if (n < cap)
      p[n] = b;
    n++;
  } while (v);
  return n;
}

static size_t row_put_le(uint8_t *p, size_t cap, size_t n, uint64_t v, int w)
{
  for (int i = 0; i < w; i++, n++)
    if (n < cap)
      p[n] = (uint8_t)(v >> (8 * i));
  return n;
}

int tbl_row_encode(const ty_t *types, int n, const datum_t *vals, uint8_t *out, size_t cap,
                   size_t *len, err_t *e)
{
  return tb_row_encode_refs(types, n, vals, NULL, out, cap, len, e);
}

int tb_row_encode_refs(const ty_t *types, int n, const datum_t *vals, const tb_ref_t *refs,
                       uint8_t *out, size_t cap, size_t *len, err_t *e)
{
  bool any = false;
  for (int i = 0; refs && i < n && !any; i++)
    any = refs[i].lr_on;
  size_t o = row_put_varint(out, cap, 0, (uint64_t)n | (any ? TB_ROW_LONG : 0));
  size_t bm = o;
  size_t nbm = ((size_t)n + 7) / 8;
  for (size_t i = 0; i < nbm * (any ? 2 : 1); i++, o++)
    if (o < cap)
      out[o] = 0;
  for (int i = 0; i < n; i++) {
    const datum_t *d = &vals[i];
    if (d->d_null) {
      if (bm + (size_t)i / 8 < cap)
        out[bm + (size_t)i / 8] |= (uint8_t)(1u << (i & 7));
      continue;
    }
    if (any && refs[i].lr_on) {
      size_t lb = bm + nbm + (size_t)i / 8;
      if (lb < cap)
        out[lb] |= (uint8_t)(1u << (i & 7));
      o = row_put_varint(out, cap, o, refs[i].lr_len);
      o = row_put_le(out, cap, o, refs[i].lr_id, 8);
      continue;
    }
    switch (ty_phys(types[i].t_id)) {
    case TP_BOOL:
      o = row_put_le(out, cap, o, d->d_bool ? 1 : 0, 1);
      break;
    case TP_I64:
      o = row_put_le(out, cap, o, (uint64_t)d->d_i64, row_kind_width(row_kind(types[i].t_id)));
      break;
    case TP_F64:
      if (types[i].t_id == TY_FLOAT4) {
        float f = (float)d->d_f64;
        uint32_t u;
        memcpy(&u, &f, 4);
        o = row_put_le(out, cap, o, u, 4);
      } else {
        uint64_t u;
        memcpy(&u, &d->d_f64, 8);
        o = row_put_le(out, cap, o, u, 8);
      }
      break;
    case TP_NUM: {
      __int128 v = d->d_num.n_val;
      int w = 1;
      while (w < 16) {
        __int128 lim = (__int128)1 << (8 * w - 1);
        if (v >= -lim && v < lim)
          break;
        w++;
      }
      o = row_put_le(out, cap, o, (uint8_t)d->d_num.n_scale, 1);
      o = row_put_le(out, cap, o, (uint64_t)w, 1);
      unsigned __int128 u = (unsigned __int128)v;
      for (int k = 0; k < w; k++, o++)
        if (o < cap)
          out[o] = (uint8_t)(u >> (8 * k));
      break;
    }
    case TP_IV: /* µs 8, days 4, months 4 bytes */
      o = row_put_le(out, cap, o, (uint64_t)d->d_iv.iv_us, 8);
      o = row_put_le(out, cap, o, (uint32_t)d->d_iv.iv_days, 4);
      o = row_put_le(out, cap, o, (uint32_t)d->d_iv.iv_months, 4);
      break;
    case TP_STR:
      o = row_put_varint(out, cap, o, d->d_str.s_len);
      if (o + d->d_str.s_len <= cap && d->d_str.s_len)
        memcpy(out + o, d->d_str.s_ptr, d->d_str.s_len);
      o += d->d_str.s_len;
      break;
    }
  }
  *len = o;
  if (o > cap)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "row is too big: size %zu, maximum size %zu", o, cap);
  return CZ_OK;
}

/* Decodes the column of type t at *o into d (or skips it when d is NULL);
 * strings are copied into a when a is given. */
static int row_get_col(ty_t t, const uint8_t *p, size_t len, size_t *o, arena_t *a, datum_t *d,
                       err_t *e)
{
  uint8_t k = row_kind(t.t_id);
  /* every member of a datum's union starts at the union */
  if (!row_read(k, p, len, o, d ? (void *)&d->d_i64 : NULL))
    return row_bad(e);
  if (d && k == TB_DK_STR && a && d->d_str.s_len) {
    char *c = arena_alloc(a, d->d_str.s_len);
    memcpy(c, d->d_str.s_ptr, d->d_str.s_len);
    d->d_str.s_ptr = c;
  }
  return CZ_OK;
}

/* A reference's body at *o: varint length, 8-byte id. */
static int row_get_ref(const uint8_t *p, size_t len, size_t *o, tb_ref_t *r, err_t *e)
{
  return row_read_ref(p, len, o, r) ? CZ_OK : row_bad(e);
}

int tbl_row_decode(const ty_t *types, int n, const uint8_t *p, size_t len, const int *cols,
                   int ncols, arena_t *a, datum_t *out, err_t *e)
{
  return tb_row_decode_refs(types, n, p, len, cols, ncols, a, out, NULL, e);
}

bool tb_row_has_refs(const uint8_t *p, size_t len)
{
  size_t o = 0;
  uint64_t h;
  return row_get_varint(p, len, &o, &h) && (h & TB_ROW_LONG);
}

int tb_row_decode_refs(const ty_t *types, int n, const uint8_t *p, size_t len, const int *cols,
                       int ncols, arena_t *a, datum_t *out, tb_ref_t *refs, err_t *e)
{
  row_hdr_t h;
  if (!row_get_header(p, len, &h))
    return row_bad(e);
  uint64_t stored = h.rh_stored;
  bool has_long = h.rh_long;
  size_t bm = h.rh_bm, lbm = h.rh_lbm, o = h.rh_data;
  int maxc = -1;
  for (int k = 0; k < ncols; k++) {
    memset(&out[k], 0, sizeof out[k]);
    out[k].d_null = true;
    if (refs)
      refs[k].lr_on = false;
    if (cols[k] > maxc)
      maxc = cols[k];
  }
  int upto = CZ_MIN(maxc + 1, (int)stored);
  upto = CZ_MIN(upto, n);
  /* wanted[i]: the first output wanting column i (-1: none), and
   * also_wanted[k] the next output wanting the same column, so a row is
   * decoded in one pass whatever the number of outputs */
  int16_t wanted[CAT_MAX_COLUMNS + 1], also_wanted[CAT_MAX_COLUMNS + 1];
  if (ncols > CAT_MAX_COLUMNS)
    return err_set(e, SQLSTATE_INTERNAL, "%d columns asked of a row", ncols);
  for (int i = 0; i < upto; i++)
    wanted[i] = -1;
  for (int k = ncols - 1; k >= 0; k--) {
    if (cols[k] < 0 || cols[k] >= upto) {
      also_wanted[k] = -1;
      continue;
    }
    also_wanted[k] = wanted[cols[k]];
    wanted[cols[k]] = (int16_t)k;
  }
  for (int i = 0; i < upto; i++) {
    bool null = (p[bm + (size_t)i / 8] >> (i & 7)) & 1;
    if (null)
      continue;
    bool ref = has_long && ((p[lbm + (size_t)i / 8] >> (i & 7)) & 1);
    if (ref && ty_phys(types[i].t_id) != TP_STR)
      return row_bad(e);
    /* First output wanting column i decodes it; the others copy. */
    int first = -1;
    for (int k = wanted[i]; k >= 0; k = also_wanted[k]) {
      if (first < 0) {
        first = k;
        out[k].d_null = false;
        if (ref) {
          if (!refs)
            return err_set(e, SQLSTATE_INTERNAL,
                           "column %d holds an out-of-line value: read it through its table", i);
          if (row_get_ref(p, len, &o, &refs[k], e) != CZ_OK)
            return CZ_ERR;
          out[k].d_str.s_ptr = "";
          out[k].d_str.s_len = 0;
        } else if (row_get_col(types[i], p, len, &o, a, &out[k], e) != CZ_OK) {
          return CZ_ERR;
        }
      } else {
        out[k] = out[first];
        if (refs)
          refs[k] = refs[first];
      }
    }
    if (first < 0) {
      int rc = ref ? row_get_ref(p, len, &o, NULL, e) : row_get_col(types[i], p, len, &o, NULL, NULL, e);
      if (rc != CZ_OK)
        return CZ_ERR;
    }
  }
  return CZ_OK;
}
