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
 */
#include <string.h>

#include "table/tb_int.h"

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

static bool row_get_varint(const uint8_t *p, size_t len, size_t *off, uint64_t *out)
{
  uint64_t v = 0;
  for (int sh = 0; sh < 64; sh += 7) {
    if (*off >= len)
      return false;
    uint8_t b = p[(*off)++];
    v |= (uint64_t)(b & 0x7f) << sh;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

static size_t row_put_le(uint8_t *p, size_t cap, size_t n, uint64_t v, int w)
{
  for (int i = 0; i < w; i++, n++)
    if (n < cap)
      p[n] = (uint8_t)(v >> (8 * i));
  return n;
}

static int row_width(ty_id_t id)
{
  switch (id) {
  case TY_INT2:
    return 2;
  case TY_INT4:
  case TY_DATE:
  case TY_FLOAT4:
    return 4;
  default:
    return 8;
  }
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
      o = row_put_le(out, cap, o, (uint64_t)d->d_i64, row_width(types[i].t_id));
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

static int row_bad(err_t *e)
{
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed row encoding");
}

static uint64_t row_get_le(const uint8_t *p, int w)
{
  uint64_t v = 0;
  for (int i = w - 1; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

/* Decodes column i at *o into d (or skips it when d is NULL). */
static int row_get_col(ty_t t, const uint8_t *p, size_t len, size_t *o, arena_t *a, datum_t *d,
                       err_t *e)
{
  switch (ty_phys(t.t_id)) {
  case TP_BOOL:
    if (*o + 1 > len)
      return row_bad(e);
    if (d)
      d->d_bool = p[*o];
    *o += 1;
    return CZ_OK;
  case TP_I64: {
    int w = row_width(t.t_id);
    if (*o + (size_t)w > len)
      return row_bad(e);
    if (d) {
      uint64_t v = row_get_le(p + *o, w);
      if (w < 8 && (v >> (8 * w - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * w);
      d->d_i64 = (int64_t)v;
    }
    *o += (size_t)w;
    return CZ_OK;
  }
  case TP_F64:
    if (t.t_id == TY_FLOAT4) {
      if (*o + 4 > len)
        return row_bad(e);
      if (d) {
        uint32_t u = (uint32_t)row_get_le(p + *o, 4);
        float f;
        memcpy(&f, &u, 4);
        d->d_f64 = f;
      }
      *o += 4;
    } else {
      if (*o + 8 > len)
        return row_bad(e);
      if (d) {
        uint64_t u = row_get_le(p + *o, 8);
        memcpy(&d->d_f64, &u, 8);
      }
      *o += 8;
    }
    return CZ_OK;
  case TP_NUM: {
    if (*o + 2 > len)
      return row_bad(e);
    int scale = p[*o], w = p[*o + 1];
    if (w < 1 || w > 16 || *o + 2 + (size_t)w > len)
      return row_bad(e);
    if (d) {
      unsigned __int128 u = 0;
      for (int k = w - 1; k >= 0; k--)
        u = (u << 8) | p[*o + 2 + (size_t)k];
      if (w < 16 && (u >> (8 * w - 1)) & 1)
        u |= ~(unsigned __int128)0 << (8 * w);
      d->d_num.n_val = (__int128)u;
      d->d_num.n_scale = (int16_t)scale;
    }
    *o += 2 + (size_t)w;
    return CZ_OK;
  }
  case TP_IV:
    if (*o + 16 > len)
      return row_bad(e);
    if (d) {
      d->d_iv.iv_us = (int64_t)row_get_le(p + *o, 8);
      d->d_iv.iv_days = (int32_t)(uint32_t)row_get_le(p + *o + 8, 4);
      d->d_iv.iv_months = (int32_t)(uint32_t)row_get_le(p + *o + 12, 4);
    }
    *o += 16;
    return CZ_OK;
  case TP_STR: {
    uint64_t n;
    if (!row_get_varint(p, len, o, &n) || *o + n > len)
      return row_bad(e);
    if (d) {
      if (a && n) {
        char *s = arena_alloc(a, n);
        memcpy(s, p + *o, n);
        d->d_str.s_ptr = s;
      } else {
        d->d_str.s_ptr = n ? (const char *)p + *o : "";
      }
      d->d_str.s_len = (uint32_t)n;
    }
    *o += n;
    return CZ_OK;
  }
  }
  return row_bad(e);
}

/* A reference's body at *o: varint length, 8-byte id. */
static int row_get_ref(const uint8_t *p, size_t len, size_t *o, tb_ref_t *r, err_t *e)
{
  uint64_t n;
  if (!row_get_varint(p, len, o, &n) || *o + 8 > len)
    return row_bad(e);
  if (r) {
    r->lr_on = true;
    r->lr_len = n;
    r->lr_id = row_get_le(p + *o, 8);
  }
  *o += 8;
  return CZ_OK;
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
  size_t o = 0;
  uint64_t stored;
  if (!row_get_varint(p, len, &o, &stored))
    return row_bad(e);
  bool has_long = (stored & TB_ROW_LONG) != 0;
  stored &= ~(uint64_t)TB_ROW_LONG;
  if (stored > CAT_MAX_COLUMNS)
    return row_bad(e);
  size_t bm = o;
  size_t nbm = ((size_t)stored + 7) / 8;
  size_t lbm = bm + nbm;
  o += nbm * (has_long ? 2 : 1);
  if (o > len)
    return row_bad(e);
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

/* ---- decoding into vectors -------------------------------------------- */

static uint8_t row_kind(ty_id_t id)
{
  switch (ty_phys(id)) {
  case TP_BOOL:
    return TB_DK_BOOL;
  case TP_I64:
    return row_width(id) == 2 ? TB_DK_I16 : row_width(id) == 4 ? TB_DK_I32 : TB_DK_I64;
  case TP_F64:
    return id == TY_FLOAT4 ? TB_DK_F32 : TB_DK_F64;
  case TP_NUM:
    return TB_DK_NUM;
  case TP_IV:
    return TB_DK_IV;
  default:
    return TB_DK_STR;
  }
}

int tb_dplan_build(const ty_t *types, int n, const int *cols, int ncols, const tbl_pred_t *preds,
                   int npred, arena_t *a, tb_dplan_t **out, err_t *e)
{
  if (ncols > CAT_MAX_COLUMNS || npred > INT16_MAX)
    return err_set(e, SQLSTATE_INTERNAL, "%d columns asked of a row", ncols);
  tb_dplan_t *dp = arena_zalloc(a, sizeof *dp);
  dp->dp_ntab = n;
  dp->dp_nout = ncols;
  dp->dp_types = types;
  int upto = 0;
  for (int k = 0; k < ncols; k++)
    if (cols[k] >= 0 && cols[k] < n && cols[k] + 1 > upto)
      upto = cols[k] + 1;
  dp->dp_upto = upto;
  dp->dp_kind = arena_alloc(a, (size_t)upto + 1);
  dp->dp_width = arena_alloc(a, (size_t)upto + 1);
  dp->dp_out = arena_alloc(a, sizeof(int16_t) * ((size_t)upto + 1));
  dp->dp_pred = arena_alloc(a, sizeof(int16_t) * ((size_t)upto + 1));
  dp->dp_first = arena_alloc(a, sizeof(int16_t) * ((size_t)ncols + 1));
  dp->dp_pnext = arena_alloc(a, sizeof(int16_t) * ((size_t)npred + 1));
  for (int i = 0; i < upto; i++) {
    dp->dp_kind[i] = row_kind(types[i].t_id);
    switch (dp->dp_kind[i]) {
    case TB_DK_BOOL: dp->dp_width[i] = 1; break;
    case TB_DK_I16: dp->dp_width[i] = 2; break;
    case TB_DK_I32: case TB_DK_F32: dp->dp_width[i] = 4; break;
    case TB_DK_I64: case TB_DK_F64: dp->dp_width[i] = 8; break;
    case TB_DK_IV: dp->dp_width[i] = 16; break;  /* µs 8, days 4, months 4 */
    default: dp->dp_width[i] = 0; break;
    }
    dp->dp_out[i] = -1;
    dp->dp_pred[i] = -1;
  }
  for (int k = 0; k < ncols; k++) {
    int c = cols[k];
    if (c < 0 || c >= upto) {
      dp->dp_first[k] = -1;
      continue;
    }
    if (dp->dp_out[c] < 0)
      dp->dp_out[c] = (int16_t)k;
    dp->dp_first[k] = dp->dp_out[c];
  }
  dp->dp_strs = arena_alloc(a, sizeof(int16_t) * ((size_t)ncols + 1));
  for (int i = 0; i < upto; i++)
    if (dp->dp_out[i] >= 0 && dp->dp_kind[i] == TB_DK_STR)
      dp->dp_strs[dp->dp_nstr++] = dp->dp_out[i];
  tbl_pred_t *pm = arena_alloc(a, sizeof *pm * ((size_t)npred + 1));
  for (int j = npred - 1; j >= 0; j--) {
    pm[j] = preds[j];
    int k = preds[j].tp_out;
    if (k < 0 || k >= ncols)
      return err_set(e, SQLSTATE_INTERNAL, "predicate on column %d of a scan of %d", k, ncols);
    if (dp->dp_first[k] < 0) {
      /* a column past the table's: always NULL */
      dp->dp_pnext[j] = -1;
      continue;
    }
    pm[j].tp_out = dp->dp_first[k];
    int c = cols[k];
    dp->dp_pnext[j] = dp->dp_pred[c];
    dp->dp_pred[c] = (int16_t)j;
  }
  dp->dp_npred = npred;
  dp->dp_preds = pm;
  *out = dp;
  return CZ_OK;
}

static inline uint64_t row_le64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
#else
  return row_get_le(p, 8);
#endif
}

static inline uint32_t row_le32(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
#else
  return (uint32_t)row_get_le(p, 4);
#endif
}

/* The bytes the value of kind k at p[o] takes (its body for strings,
 * after the varint at *o); 0 and false when malformed. */
static inline bool row_skip(uint8_t k, const uint8_t *p, size_t len, size_t *o)
{
  size_t w;
  switch (k) {
  case TB_DK_BOOL: w = 1; break;
  case TB_DK_I16: w = 2; break;
  case TB_DK_I32: case TB_DK_F32: w = 4; break;
  case TB_DK_I64: case TB_DK_F64: w = 8; break;
  case TB_DK_IV: w = 16; break;
  case TB_DK_NUM:
    if (*o + 2 > len || p[*o + 1] < 1 || p[*o + 1] > 16)
      return false;
    w = 2 + (size_t)p[*o + 1];
    break;
  default: {
    uint64_t n;
    if (!row_get_varint(p, len, o, &n))
      return false;
    w = (size_t)n;
    if (n > len)
      return false;
  }
  }
  if (*o + w > len)
    return false;
  *o += w;
  return true;
}

/* Decodes the value of kind k at p[*o] into row r of v. */
static inline bool row_get_vec(uint8_t k, const uint8_t *p, size_t len, size_t *o, vec_t *v, int r)
{
  size_t at = *o;
  switch (k) {
  case TB_DK_BOOL:
    if (at + 1 > len)
      return false;
    v->v_bool[r] = p[at];
    *o = at + 1;
    return true;
  case TB_DK_I16:
    if (at + 2 > len)
      return false;
    v->v_i64[r] = (int16_t)(uint16_t)(p[at] | (p[at + 1] << 8));
    *o = at + 2;
    return true;
  case TB_DK_I32:
    if (at + 4 > len)
      return false;
    v->v_i64[r] = (int32_t)row_le32(p + at);
    *o = at + 4;
    return true;
  case TB_DK_I64:
    if (at + 8 > len)
      return false;
    v->v_i64[r] = (int64_t)row_le64(p + at);
    *o = at + 8;
    return true;
  case TB_DK_F32: {
    if (at + 4 > len)
      return false;
    uint32_t u = row_le32(p + at);
    float f;
    memcpy(&f, &u, 4);
    v->v_f64[r] = f;
    *o = at + 4;
    return true;
  }
  case TB_DK_F64: {
    if (at + 8 > len)
      return false;
    uint64_t u = row_le64(p + at);
    memcpy(&v->v_f64[r], &u, 8);
    *o = at + 8;
    return true;
  }
  case TB_DK_IV:
    if (at + 16 > len)
      return false;
    v->v_iv[r].iv_us = (int64_t)row_le64(p + at);
    v->v_iv[r].iv_days = (int32_t)(uint32_t)row_get_le(p + at + 8, 4);
    v->v_iv[r].iv_months = (int32_t)(uint32_t)row_get_le(p + at + 12, 4);
    *o = at + 16;
    return true;
  case TB_DK_NUM: {
    if (at + 2 > len)
      return false;
    int scale = p[at], w = p[at + 1];
    if (w < 1 || w > 16 || at + 2 + (size_t)w > len)
      return false;
    if (w <= 8 && at + 10 <= len) {
      /* the common case: one load, the sign spread by an arithmetic shift */
      int sh = 64 - 8 * w;
      v->v_num[r].n_val = (__int128)((int64_t)(row_le64(p + at + 2) << sh) >> sh);
    } else {
      unsigned __int128 u = 0;
      for (int b = w - 1; b >= 0; b--)
        u = (u << 8) | p[at + 2 + (size_t)b];
      if (w < 16 && (u >> (8 * w - 1)) & 1)
        u |= ~(unsigned __int128)0 << (8 * w);
      v->v_num[r].n_val = (__int128)u;
    }
    v->v_num[r].n_scale = (int16_t)scale;
    *o = at + 2 + (size_t)w;
    return true;
  }
  default: {
    uint64_t n;
    if (!row_get_varint(p, len, o, &n) || n > len || *o + n > len)
      return false;
    /* points into the row for now: copied once the row passed */
    v->v_str[r].s_ptr = (const char *)p + *o;
    v->v_str[r].s_len = (uint32_t)n;
    *o += n;
    return true;
  }
  }
}

int tb_row_decode_vec(const tb_dplan_t *dp, const uint8_t *p, size_t len, batch_t *out, int r,
                      arena_t *a, tb_ref_t *refs, int *nrefs, bool *pass, err_t *e)
{
  *pass = true;
  *nrefs = 0;
  size_t o = 0;
  uint64_t stored;
  if (!row_get_varint(p, len, &o, &stored))
    return row_bad(e);
  bool has_long = (stored & TB_ROW_LONG) != 0;
  stored &= ~(uint64_t)TB_ROW_LONG;
  if (stored > CAT_MAX_COLUMNS)
    return row_bad(e);
  size_t bm = o;
  size_t nbm = ((size_t)stored + 7) / 8;
  size_t lbm = bm + nbm;
  o += nbm * (has_long ? 2 : 1);
  if (o > len)
    return row_bad(e);
  vec_t *cols = out->b_cols;
  int nout = dp->dp_nout;
  for (int k = 0; k < nout; k++)
    cols[k].v_null[r] = 1;
  if (has_long)
    for (int k = 0; k < nout; k++)
      refs[k].lr_on = false;
  int upto = dp->dp_upto < (int)stored ? dp->dp_upto : (int)stored;
  const tbl_pred_t *preds = dp->dp_preds;
  size_t strbytes = 0;
  for (int i = 0; i < upto; i++) {
    int k = dp->dp_out[i];
    if ((p[bm + (size_t)i / 8] >> (i & 7)) & 1) {
      /* NULL: passes IS NULL only */
      for (int j = dp->dp_pred[i]; j >= 0; j = dp->dp_pnext[j])
        if (preds[j].tp_op != TBP_NULL) {
          *pass = false;
          return CZ_OK;
        }
      continue;
    }
    uint8_t kind = dp->dp_kind[i];
    bool ref = has_long && ((p[lbm + (size_t)i / 8] >> (i & 7)) & 1);
    if (ref) {
      if (kind != TB_DK_STR)
        return row_bad(e);
      if (k < 0) {
        if (row_get_ref(p, len, &o, NULL, e) != CZ_OK)
          return CZ_ERR;
        continue;
      }
      if (row_get_ref(p, len, &o, &refs[k], e) != CZ_OK)
        return CZ_ERR;
      cols[k].v_null[r] = 0;
      cols[k].v_str[r].s_ptr = "";
      cols[k].v_str[r].s_len = 0;
      (*nrefs)++;
      continue;  /* its predicates wait for the value */
    }
    if (k < 0) {
      size_t w = dp->dp_width[i];
      if (w) {  /* fixed width: no decoding at all */
        o += w;
        if (o > len)
          return row_bad(e);
      } else if (!row_skip(kind, p, len, &o)) {
        return row_bad(e);
      }
      continue;
    }
    if (!row_get_vec(kind, p, len, &o, &cols[k], r))
      return row_bad(e);
    cols[k].v_null[r] = 0;
    if (kind == TB_DK_STR)
      strbytes += cols[k].v_str[r].s_len;
    for (int j = dp->dp_pred[i]; j >= 0; j = dp->dp_pnext[j]) {
      const tbl_pred_t *pr = &preds[j];
      bool ok;
      if (kind >= TB_DK_I16 && kind <= TB_DK_I64 && pr->tp_op <= TBP_GE) {
        /* integers and dates: inline */
        int64_t x = cols[k].v_i64[r], y = pr->tp_vals[0].d_i64;
        switch (pr->tp_op) {
        case TBP_EQ: ok = x == y; break;
        case TBP_NE: ok = x != y; break;
        case TBP_LT: ok = x < y; break;
        case TBP_LE: ok = x <= y; break;
        case TBP_GT: ok = x > y; break;
        default: ok = x >= y; break;
        }
      } else {
        ok = tb_pred_test(pr, &cols[k], r);
      }
      if (!ok) {
        *pass = false;
        return CZ_OK;
      }
    }
  }
  /* Predicates on columns past the stored ones see NULLs. */
  if (dp->dp_npred && upto < dp->dp_upto)
    for (int j = 0; j < dp->dp_npred; j++)
      if (cols[preds[j].tp_out].v_null[r] && preds[j].tp_op != TBP_NULL) {
        *pass = false;
        return CZ_OK;
      }
  if (strbytes) {
    char *buf = arena_alloc(a, strbytes);
    for (int j = 0; j < dp->dp_nstr; j++) {
      int k = dp->dp_strs[j];
      if (cols[k].v_null[r])
        continue;
      str_t *s = &cols[k].v_str[r];
      if (s->s_len == 0)
        continue;
      memcpy(buf, s->s_ptr, s->s_len);
      s->s_ptr = buf;
      buf += s->s_len;
    }
  }
  /* Outputs repeating a column copy the first one's value. */
  for (int k = 0; k < nout; k++) {
    int f = dp->dp_first[k];
    if (f < 0 || f == k)
      continue;
    vec_t *v = &cols[k];
    v->v_null[r] = cols[f].v_null[r];
    size_t w = ty_phys_size(ty_phys(v->v_type.t_id));
    memcpy((char *)v->v_data + w * (size_t)r, (const char *)cols[f].v_data + w * (size_t)r, w);
    if (has_long)
      refs[k] = refs[f];
  }
  return CZ_OK;
}
