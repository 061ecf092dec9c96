/* ce_vblock — a block of k values of one kind with O(1) access to each:
 * the raw codec's body, and the run values and dictionaries of the
 * run-length and dictionary codecs.
 *
 * Layout: BOOL 1 byte a value; I64 and F64 8 bytes (F64 as its IEEE bits);
 * NUM 16 bytes of two's complement value then a u16 scale; STR u32
 * offsets[k+1] (offsets[0] = 0, non-decreasing) then the bytes.
 */
#include "column/column_int.h"

size_t ce_vb_size(const ce_stats_t *st, const uint32_t *rows, uint32_t k)
{
  if (st->st_phys != TP_STR)
    return ce_vb_width(st->st_phys) * (size_t)k;
  size_t s = 4 * ((size_t)k + 1);
  for (uint32_t i = 0; i < k; i++)
    s += st->st_str[rows ? rows[i] : i].s_len;
  return s;
}

size_t ce_vb_write(uint8_t *o, const ce_stats_t *st, const uint32_t *rows, uint32_t k)
{
  switch (st->st_phys) {
  case TP_BOOL:
    for (uint32_t i = 0; i < k; i++)
      o[i] = (uint8_t)st->st_i64[rows ? rows[i] : i];
    return k;
  case TP_I64:
    if (!rows) {
      memcpy(o, st->st_i64, 8 * (size_t)k);
    } else {
      for (uint32_t i = 0; i < k; i++)
        ce_st64(o + 8 * (size_t)i, (uint64_t)st->st_i64[rows[i]]);
    }
    return 8 * (size_t)k;
  case TP_F64:
    for (uint32_t i = 0; i < k; i++)
      memcpy(o + 8 * (size_t)i, &st->st_f64[rows ? rows[i] : i], 8);
    return 8 * (size_t)k;
  case TP_NUM:
    for (uint32_t i = 0; i < k; i++) {
      const num_t *x = &st->st_num[rows ? rows[i] : i];
      unsigned __int128 v = (unsigned __int128)x->n_val;
      ce_st64(o + 18 * (size_t)i, (uint64_t)v);
      ce_st64(o + 18 * (size_t)i + 8, (uint64_t)(v >> 64));
      ce_st16(o + 18 * (size_t)i + 16, (uint16_t)x->n_scale);
    }
    return 18 * (size_t)k;
  case TP_IV:
    return 0; /* refused by ce_stats_build */
  case TP_STR: {
    uint8_t *bytes = o + 4 * ((size_t)k + 1);
    uint32_t off = 0;
    for (uint32_t i = 0; i < k; i++) {
      const str_t *s = &st->st_str[rows ? rows[i] : i];
      ce_st32(o + 4 * (size_t)i, off);
      if (s->s_len)
        memcpy(bytes + off, s->s_ptr, s->s_len);
      off += s->s_len;
    }
    ce_st32(o + 4 * (size_t)k, off);
    return 4 * ((size_t)k + 1) + off;
  }
  }
  return 0;
}

int ce_vb_open(ce_vb_t *vb, ty_phys_t phys, uint32_t k, const uint8_t *p, size_t len, err_t *e)
{
  memset(vb, 0, sizeof(*vb));
  vb->vb_phys = phys;
  vb->vb_k = k;
  vb->vb_p = p;
  if (phys != TP_STR) {
    size_t need = ce_vb_width(phys) * (size_t)k;
    if (need > len)
      return ce_corrupt(e, "value block past the end");
    vb->vb_len = need;
    /* NUMERIC values outside num_t's range would reach code that trusts
     * it (formatting, arithmetic): checked once here. */
    const __int128 lim = (__int128)10000000000000000000ull * 10000000000000000000ull;
    for (uint32_t i = 0; phys == TP_NUM && i < k; i++) {
      const uint8_t *q = p + 18 * (size_t)i;
      __int128 v = (__int128)((unsigned __int128)ce_ld64(q + 8) << 64 | ce_ld64(q));
      if (ce_ld16(q + 16) > NUM_MAX_DIGITS || v >= lim || v <= -lim)
        return ce_corrupt(e, "NUMERIC value out of range");
    }
    return CZ_OK;
  }
  size_t hdr = 4 * ((size_t)k + 1);
  if (hdr > len)
    return ce_corrupt(e, "string offsets past the end");
  uint32_t prev = 0;
  if (ce_ld32(p) != 0)
    return ce_corrupt(e, "first string offset not 0");
  for (uint32_t i = 1; i <= k; i++) {
    uint32_t o = ce_ld32(p + 4 * (size_t)i);
    if (o < prev)
      return ce_corrupt(e, "string offsets decrease");
    prev = o;
  }
  if (prev > len - hdr)
    return ce_corrupt(e, "string bytes past the end");
  vb->vb_bytes = p + hdr;
  vb->vb_nbytes = prev;
  vb->vb_len = hdr + prev;
  return CZ_OK;
}
