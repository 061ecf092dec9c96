/* ce_header — the segment header every codec shares: magic, version, codec
 * id, physical kind, row and NULL counts, body length, min/max for segment
 * skipping and the null bitmap; parsed and checked before any body byte is
 * read.
 *
 * Layout (little-endian, version 1):
 *   0  u8  0xCE            1  u8  version      2  u8  codec id   3  u8  kind
 *   4  u32 rows            8  u32 NULL rows    12 u32 body bytes
 *   16 u8  flags (1 min present, 2 max present) 17 u8 0  18 u16 min/max bytes
 *   20 min, max (each as a value: 1, 8, 18 bytes, or u16 length + bytes for
 *      strings, a min longer than CE_MM_STR_MAX cut to a prefix, a longer
 *      max left out)
 *   .. null bitmap, (rows + 7) / 8 bytes, only when NULL rows > 0
 *   .. body
 */
#include "column/column_int.h"

#define CE_HDR_FIXED 20u
#define CE_MM_STR_MAX 64u

int ce_corrupt(err_t *e, const char *what)
{
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "column segment is corrupted: %s", what);
}

static size_t mm_value_size(ty_phys_t p, const datum_t *d, bool is_max, bool *keep)
{
  *keep = !d->d_null;
  if (d->d_null)
    return 0;
  if (p == TP_STR) {
    if (d->d_str.s_len > CE_MM_STR_MAX) {
      if (is_max) {
        *keep = false;
        return 0;
      }
      return 2 + CE_MM_STR_MAX;
    }
    return 2 + d->d_str.s_len;
  }
  return ce_vb_width(p);
}

static size_t mm_write(uint8_t *o, ty_phys_t p, const datum_t *d)
{
  switch (p) {
  case TP_BOOL: o[0] = d->d_bool; return 1;
  case TP_I64: ce_st64(o, (uint64_t)d->d_i64); return 8;
  case TP_F64: { uint64_t b; memcpy(&b, &d->d_f64, 8); ce_st64(o, b); return 8; }
  case TP_NUM: {
    unsigned __int128 v = (unsigned __int128)d->d_num.n_val;
    ce_st64(o, (uint64_t)v);
    ce_st64(o + 8, (uint64_t)(v >> 64));
    ce_st16(o + 16, (uint16_t)d->d_num.n_scale);
    return 18;
  }
  case TP_STR: {
    uint32_t l = CZ_MIN(d->d_str.s_len, CE_MM_STR_MAX);
    ce_st16(o, (uint16_t)l);
    if (l)
      memcpy(o + 2, d->d_str.s_ptr, l);
    return 2 + l;
  }
  case TP_IV: break; /* refused by ce_stats_build */
  }
  return 0;
}

static size_t mm_size(const ce_stats_t *st, uint8_t *flags)
{
  bool kmin, kmax;
  size_t s = mm_value_size(st->st_phys, &st->st_min, false, &kmin);
  s += mm_value_size(st->st_phys, &st->st_max, true, &kmax);
  *flags = (uint8_t)((kmin ? CE_HF_MIN : 0) | (kmax ? CE_HF_MAX : 0));
  return s;
}

size_t ce_hdr_size(const ce_stats_t *st)
{
  uint8_t f;
  return CE_HDR_FIXED + mm_size(st, &f) + (st->st_nnull ? (st->st_n + 7) / 8 : 0);
}

size_t ce_hdr_write(uint8_t *o, const ce_stats_t *st, int codec, size_t body_len)
{
  uint8_t flags;
  size_t mm = mm_size(st, &flags);
  o[0] = CE_HEADER_MAGIC;
  o[1] = CE_FORMAT_VERSION;
  o[2] = (uint8_t)codec;
  o[3] = (uint8_t)st->st_phys;
  ce_st32(o + 4, st->st_n);
  ce_st32(o + 8, st->st_nnull);
  ce_st32(o + 12, (uint32_t)body_len);
  o[16] = flags;
  o[17] = 0;
  ce_st16(o + 18, (uint16_t)mm);
  size_t off = CE_HDR_FIXED;
  if (flags & CE_HF_MIN)
    off += mm_write(o + off, st->st_phys, &st->st_min);
  if (flags & CE_HF_MAX)
    off += mm_write(o + off, st->st_phys, &st->st_max);
  if (st->st_nnull) {
    size_t nb = (st->st_n + 7) / 8;
    memset(o + off, 0, nb);
    for (uint32_t i = 0; i < st->st_n; i++)
      if (st->st_nulls[i])
        o[off + (i >> 3)] |= (uint8_t)(1u << (i & 7));
    off += nb;
  }
  return off;
}

/* Reads one min/max value at p (room bytes); returns its size or 0. */
static size_t mm_read(const uint8_t *p, size_t room, ty_phys_t ph, datum_t *d)
{
  memset(d, 0, sizeof(*d));
  if (ph == TP_STR) {
    if (room < 2)
      return 0;
    uint32_t l = ce_ld16(p);
    if (l > CE_MM_STR_MAX || room < 2 + (size_t)l)
      return 0;
    d->d_str.s_ptr = (const char *)p + 2;
    d->d_str.s_len = l;
    return 2 + l;
  }
  size_t w = ce_vb_width(ph);
  if (room < w)
    return 0;
  ce_vb_t vb = {.vb_phys = ph, .vb_k = 1, .vb_p = p};
  ce_vb_get(&vb, 0, d);
  const __int128 lim = (__int128)10000000000000000000ull * 10000000000000000000ull;
  if (ph == TP_NUM && (ce_ld16(p + 16) > NUM_MAX_DIGITS || d->d_num.n_val >= lim || d->d_num.n_val <= -lim))
    return 0;
  return w;
}

int ce_hdr_parse(const uint8_t *buf, size_t len, ce_hdr_t *h, err_t *e)
{
  memset(h, 0, sizeof(*h));
  if (!buf || len < CE_HDR_FIXED)
    return ce_corrupt(e, "shorter than its header");
  if (buf[0] != CE_HEADER_MAGIC)
    return ce_corrupt(e, "bad magic byte");
  if (buf[1] != CE_FORMAT_VERSION)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "column segment has format version %u, this build reads %u",
                   buf[1], CE_FORMAT_VERSION);
  if (buf[2] >= CE_COUNT_)
    return ce_corrupt(e, "unknown codec id");
  if (buf[3] > TP_STR)
    return ce_corrupt(e, "unknown value kind");
  h->h_codec = buf[2];
  h->h_phys = (ty_phys_t)buf[3];
  h->h_n = ce_ld32(buf + 4);
  h->h_nnull = ce_ld32(buf + 8);
  h->h_body_len = ce_ld32(buf + 12);
  h->h_flags = buf[16];
  h->h_mm_len = ce_ld16(buf + 18);
  if (h->h_n > CE_MAX_ROWS || h->h_nnull > h->h_n || (h->h_flags & ~3u) || buf[17])
    return ce_corrupt(e, "bad counts or flags");
  size_t off = CE_HDR_FIXED;
  if (h->h_mm_len > len - off)
    return ce_corrupt(e, "min/max past the end");
  h->h_mm = buf + off;
  off += h->h_mm_len;
  if (h->h_nnull) {
    size_t nb = ((size_t)h->h_n + 7) / 8;
    if (nb > len - off)
      return ce_corrupt(e, "null bitmap past the end");
    h->h_nulls = buf + off;
    off += nb;
  }
  if (h->h_body_len > len - off)
    return ce_corrupt(e, "body past the end");
  h->h_body = buf + off;
  h->h_total = off + h->h_body_len;
  return CZ_OK;
}

int ce_info(const uint8_t *buf, size_t len, ce_info_t *out, err_t *e)
{
  ce_hdr_t h;
  memset(out, 0, sizeof(*out));
  if (ce_hdr_parse(buf, len, &h, e) != CZ_OK)
    return CZ_ERR;
  out->ci_codec = h.h_codec;
  out->ci_phys = h.h_phys;
  out->ci_n = h.h_n;
  out->ci_nnull = h.h_nnull;
  out->ci_len = h.h_total;
  size_t off = 0;
  out->ci_min.d_null = out->ci_max.d_null = true;
  if (h.h_flags & CE_HF_MIN) {
    size_t s = mm_read(h.h_mm, h.h_mm_len, h.h_phys, &out->ci_min);
    if (!s)
      return ce_corrupt(e, "bad min");
    off += s;
    out->ci_has_min = true;
  }
  if (h.h_flags & CE_HF_MAX) {
    size_t s = mm_read(h.h_mm + off, h.h_mm_len - off, h.h_phys, &out->ci_max);
    if (!s)
      return ce_corrupt(e, "bad max");
    off += s;
    out->ci_has_max = true;
  }
  if (off != h.h_mm_len)
    return ce_corrupt(e, "min/max length mismatch");
  return CZ_OK;
}
