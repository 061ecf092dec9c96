/* ce_for — bit-packed integers with a frame of reference: each row stores
 * value - min in just enough bits for max - min (0 bits for a constant).
 * Applies to I64 and BOOL.
 *
 * Body: i64 reference; u8 width (0..64); 7 zero bytes; the offsets of every
 * row packed at the width. Comparisons and ranges are evaluated on the
 * packed offsets (the constant moved into the packed domain once), so the
 * reference is never added back while filtering.
 * Cursor: c_p[0] packed offsets, c_u[0] reference, c_u[1] width.
 */
#include "column/column_int.h"

#define CE_FOR_HDR 16u

static int64_t for_analyze(const ce_stats_t *st)
{
  if (!ce_phys_is_int(st->st_phys))
    return -1;
  int w = ce_bits((uint64_t)st->st_imax - (uint64_t)st->st_imin);
  return CE_FOR_HDR + (int64_t)ce_pack_bytes(st->st_n, w);
}

static size_t for_encode(const ce_stats_t *st, uint8_t *out, arena_t *scratch)
{
  uint64_t ref = (uint64_t)st->st_imin;
  int w = ce_bits((uint64_t)st->st_imax - ref);
  memset(out, 0, CE_FOR_HDR);
  ce_st64(out, ref);
  out[8] = (uint8_t)w;
  uint64_t *u = arena_alloc(scratch, sizeof(uint64_t) * (st->st_n ? st->st_n : 1));
  for (uint32_t i = 0; i < st->st_n; i++)
    u[i] = (uint64_t)st->st_i64[i] - ref;
  ce_pack(out + CE_FOR_HDR, u, st->st_n, w);
  return CE_FOR_HDR + ce_pack_bytes(st->st_n, w);
}

static int for_open(ce_cursor_t *c, err_t *e)
{
  if (!ce_phys_is_int(c->c_phys))
    return ce_corrupt(e, "frame of reference on a non-integer column");
  if (c->c_body_len < CE_FOR_HDR || c->c_body[8] > 64)
    return ce_corrupt(e, "frame of reference header");
  int w = c->c_body[8];
  if (ce_pack_bytes(c->c_n, w) > c->c_body_len - CE_FOR_HDR)
    return ce_corrupt(e, "packed values past the end");
  c->c_p[0] = c->c_body + CE_FOR_HDR;
  c->c_u[0] = ce_ld64(c->c_body);
  c->c_u[1] = (uint64_t)w;
  c->c_const = w == 0;
  return CZ_OK;
}

static int for_read_i64(ce_cursor_t *c, uint32_t n, int64_t *out, err_t *e)
{
  (void)e;
  ce_unpack(c->c_p[0], c->c_pos, n, (int)c->c_u[1], c->c_u[0], (uint64_t *)out);
  c->c_pos += n;
  return CZ_OK;
}

static int for_read(ce_cursor_t *c, uint32_t n, vec_t *v, int off, err_t *e)
{
  return ce_read_ints(c, n, v, off, for_read_i64, e);
}

static int for_skip(ce_cursor_t *c, uint32_t n, err_t *e)
{
  (void)e;
  c->c_pos += n;
  return CZ_OK;
}

static int for_gather(ce_cursor_t *c, const uint32_t *sel, uint32_t nsel, vec_t *v, int off, err_t *e)
{
  (void)e;
  int w = (int)c->c_u[1];
  for (uint32_t i = 0; i < nsel; i++) {
    int64_t x = (int64_t)(ce_unpack_one(c->c_p[0], sel[i], w) + c->c_u[0]);
    if (c->c_phys == TP_I64)
      v->v_i64[off + (int)i] = x;
    else
      v->v_bool[off + (int)i] = (uint8_t)(x & 1);
  }
  return CZ_OK;
}

static int for_fetch(ce_cursor_t *c, uint32_t pos, datum_t *out, err_t *e)
{
  (void)e;
  int64_t x = (int64_t)(ce_unpack_one(c->c_p[0], pos, (int)c->c_u[1]) + c->c_u[0]);
  if (c->c_phys == TP_I64)
    out->d_i64 = x;
  else
    out->d_bool = (uint8_t)(x & 1);
  return CZ_OK;
}


static int for_filter(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t *sel, uint32_t *nout, err_t *e)
{
  int w = (int)c->c_u[1];
  uint64_t ref = c->c_u[0];
  uint64_t maxoff = w == 64 ? UINT64_MAX : (w ? (1ull << w) - 1 : 0);
  if (c->c_phys != TP_I64 || cp->cp_nint != 1) {
    return ce_filter_decoded_i64(c, for_read_i64, cp, sel, nout, e);
  }
  /* The interval in the packed domain: [lo, hi] intersected with
   * [ref, ref + maxoff], as offsets from ref. Signed order must be kept:
   * compare in int64 before subtracting. */
  int64_t lo = cp->cp_lo[0], hi = cp->cp_hi[0];
  int64_t top = (int64_t)(ref + maxoff);
  if ((int64_t)ref > top)
    top = INT64_MAX; /* a corrupt width: stay in range, the unpacked values decide */
  if (lo < (int64_t)ref)
    lo = (int64_t)ref;
  if (hi > top)
    hi = top;
  *nout = 0;
  if (lo > hi)
    return CZ_OK;
  uint64_t plo = (uint64_t)lo - ref, span = (uint64_t)hi - (uint64_t)lo;
  uint32_t k = 0;
  uint64_t tmp[CE_BLK];
  for (uint32_t base = 0; base < c->c_n; base += CE_BLK) {
    uint32_t m = CZ_MIN(c->c_n - base, CE_BLK);
    ce_unpack(c->c_p[0], base, m, w, 0, tmp);
    for (uint32_t i = 0; i < m; i++) {
      sel[k] = base + i;
      k += tmp[i] - plo <= span;
    }
  }
  *nout = k;
  return CZ_OK;
}

const ce_codec_t ce_for_codec = {
  .cc_name = "for", .cc_id = CE_FOR, .cc_speed = 2,
  .cc_analyze = for_analyze, .cc_encode = for_encode, .cc_open = for_open, .cc_read = for_read,
  .cc_skip = for_skip, .cc_gather = for_gather, .cc_fetch = for_fetch, .cc_filter = for_filter,
};
