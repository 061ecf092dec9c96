/* tb_rowfmt.h — the row format's per-kind readers, one set for every
 * decoder: values into datums (tb_row.c) and straight into a scan's
 * vectors (tb_row_vec.c).
 *
 * Design notes (table/README.md, "Row format"): a column's kind (TB_DK_*)
 * says how its body is laid out; a reader takes the body at p[*o], checks
 * it lies inside the row (len), stores the value in the physical slot of
 * its type (uint8_t for BOOL, int64_t for the integers and dates, double,
 * num_t, ty_iv_t, str_t — the same for a datum's union and a vector's
 * row) and steps *o past it. A NULL slot only skips the body. Strings are
 * left pointing into the row: the caller copies them when the row outlives
 * the page. Malformed bodies answer false, never read past len.
 */
#ifndef CZ_TB_ROWFMT_H
#define CZ_TB_ROWFMT_H

#include <string.h>

#include "table/tb_int.h"

static inline bool row_get_varint(const uint8_t *p, size_t len, size_t *off, uint64_t *out)
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

static inline int row_bad(err_t *e)
{
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed row encoding");
}

/* A row's header: the stored column count, whether it has out-of-line
 * values, and where its NULL bitmap (bm), its long-value bitmap (lbm)
 * and its first body (data) start. False when malformed. */
typedef struct row_hdr_s {
  uint64_t rh_stored;
  bool rh_long;
  size_t rh_bm, rh_lbm, rh_data;
} row_hdr_t;

static inline bool row_get_header(const uint8_t *p, size_t len, row_hdr_t *h)
{
  size_t o = 0;
  uint64_t stored;
  if (!row_get_varint(p, len, &o, &stored))
    return false;
  h->rh_long = (stored & TB_ROW_LONG) != 0;
  h->rh_stored = stored & ~(uint64_t)TB_ROW_LONG;
  if (h->rh_stored > CAT_MAX_COLUMNS)
    return false;
  size_t nbm = ((size_t)h->rh_stored + 7) / 8;
  h->rh_bm = o;
  h->rh_lbm = o + nbm;
  h->rh_data = o + nbm * (h->rh_long ? 2 : 1);
  return h->rh_data <= len;
}

static inline uint64_t row_get_le(const uint8_t *p, int w)
{
  uint64_t v = 0;
  for (int i = w - 1; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
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

/* The kind of a column of type id. */
static inline uint8_t row_kind(ty_id_t id)
{
  switch (ty_phys(id)) {
  case TP_BOOL:
    return TB_DK_BOOL;
  case TP_I64:
    return id == TY_INT2 ? TB_DK_I16 : id == TY_INT4 || id == TY_DATE ? TB_DK_I32 : TB_DK_I64;
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

/* Bytes of a body of kind k when fixed, else 0. */
static inline int row_kind_width(uint8_t k)
{
  switch (k) {
  case TB_DK_BOOL: return 1;
  case TB_DK_I16: return 2;
  case TB_DK_I32: case TB_DK_F32: return 4;
  case TB_DK_I64: case TB_DK_F64: return 8;
  case TB_DK_IV: return 16;  /* µs 8, days 4, months 4 */
  default: return 0;
  }
}

/* Bytes of the slot a value of kind k is stored in (a vector row). */
static inline size_t row_kind_slot(uint8_t k)
{
  switch (k) {
  case TB_DK_BOOL: return sizeof(uint8_t);
  case TB_DK_I16: case TB_DK_I32: case TB_DK_I64: return sizeof(int64_t);
  case TB_DK_F32: case TB_DK_F64: return sizeof(double);
  case TB_DK_NUM: return sizeof(num_t);
  case TB_DK_IV: return sizeof(ty_iv_t);
  default: return sizeof(str_t);
  }
}

/* NUMERIC body: scale byte, length byte w (1..16), w bytes of the
 * little-endian two's complement value. */
static inline bool row_read_num(const uint8_t *p, size_t len, size_t *o, num_t *dst)
{
  size_t at = *o;
  if (at + 2 > len)
    return false;
  int scale = p[at], w = p[at + 1];
  if (w < 1 || w > 16 || at + 2 + (size_t)w > len)
    return false;
  *o = at + 2 + (size_t)w;
  if (!dst)
    return true;
  if (w <= 8 && at + 10 <= len) {
    /* the common case: one load, the sign spread by an arithmetic shift */
    int sh = 64 - 8 * w;
    dst->n_val = (__int128)((int64_t)(row_le64(p + at + 2) << sh) >> sh);
  } else {
    unsigned __int128 u = 0;
    for (int b = w - 1; b >= 0; b--)
      u = (u << 8) | p[at + 2 + (size_t)b];
    if (w < 16 && (u >> (8 * w - 1)) & 1)
      u |= ~(unsigned __int128)0 << (8 * w);
    dst->n_val = (__int128)u;
  }
  dst->n_scale = (int16_t)scale;
  return true;
}

/* String body: varint length, the bytes (dst left pointing at them). */
static inline bool row_read_str(const uint8_t *p, size_t len, size_t *o, str_t *dst)
{
  uint64_t n;
  if (!row_get_varint(p, len, o, &n) || n > len || *o + n > len)
    return false;
  if (dst) {
    dst->s_ptr = n ? (const char *)p + *o : "";
    dst->s_len = (uint32_t)n;
  }
  *o += n;
  return true;
}

/* Reads (dst NULL: skips) the body of kind k at p[*o] into the slot dst. */
static inline bool row_read(uint8_t k, const uint8_t *p, size_t len, size_t *o, void *dst)
{
  size_t at = *o;
  switch (k) {
  case TB_DK_NUM:
    return row_read_num(p, len, o, dst);
  case TB_DK_STR:
    return row_read_str(p, len, o, dst);
  default:
    break;
  }
  size_t w = (size_t)row_kind_width(k);
  if (at + w > len)
    return false;
  *o = at + w;
  if (!dst)
    return true;
  const uint8_t *b = p + at;
  switch (k) {
  case TB_DK_BOOL:
    *(uint8_t *)dst = b[0];
    break;
  case TB_DK_I16:
    *(int64_t *)dst = (int16_t)(uint16_t)(b[0] | (b[1] << 8));
    break;
  case TB_DK_I32:
    *(int64_t *)dst = (int32_t)row_le32(b);
    break;
  case TB_DK_I64:
    *(int64_t *)dst = (int64_t)row_le64(b);
    break;
  case TB_DK_F32: {
    uint32_t u = row_le32(b);
    float f;
    memcpy(&f, &u, 4);
    *(double *)dst = f;
    break;
  }
  case TB_DK_F64: {
    uint64_t u = row_le64(b);
    memcpy(dst, &u, 8);
    break;
  }
  default: { /* TB_DK_IV */
    ty_iv_t *iv = dst;
    iv->iv_us = (int64_t)row_le64(b);
    iv->iv_days = (int32_t)row_le32(b + 8);
    iv->iv_months = (int32_t)row_le32(b + 12);
    break;
  }
  }
  return true;
}

/* A reference's body at *o: varint length, 8-byte id (r NULL: skipped). */
static inline bool row_read_ref(const uint8_t *p, size_t len, size_t *o, tb_ref_t *r)
{
  uint64_t n;
  if (!row_get_varint(p, len, o, &n) || *o + 8 > len)
    return false;
  if (r) {
    r->lr_on = true;
    r->lr_len = n;
    r->lr_id = row_le64(p + *o);
  }
  *o += 8;
  return true;
}

#endif /* CZ_TB_ROWFMT_H */
