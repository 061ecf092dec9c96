/* ce_delta — deltas of sorted integers: the first value, then each row's
 * difference from the row before, less the smallest difference, bit-packed
 * (a dense key column 1, 2, 3 … packs at 0 bits). Applies to I64 and BOOL
 * columns whose (NULL-filled) values never decrease.
 *
 * Body: i64 first; u64 smallest delta; u8 width; 7 zero bytes; rows-1
 * packed deltas. Reading keeps a running value, so a cursor reading a
 * segment in pieces pays one add per row; skipping sums packed deltas
 * (no per-row store); fetch sums from row 0 (segments are a few thousand
 * rows; restart points would bound it, see README).
 * Cursor: c_p[0] packed deltas, c_u[0] first, c_u[1] smallest delta,
 * c_u[2] width, c_acc the value of row c_pos - 1.
 */
#include "column/column_int.h"

#define CE_DELTA_HDR 24u

static int64_t delta_analyze(const ce_stats_t *st)
{
  if (!ce_phys_is_int(st->st_phys) || !st->st_sorted || st->st_n == 0)
    return -1;
  int w = st->st_n > 1 ? ce_bits(st->st_dmax - st->st_dmin) : 0;
  return CE_DELTA_HDR + (int64_t)ce_pack_bytes(st->st_n - 1, w);
}

static size_t delta_encode(const ce_stats_t *st, uint8_t *out, arena_t *scratch)
{
  uint64_t dmin = st->st_n > 1 ? st->st_dmin : 0;
  int w = st->st_n > 1 ? ce_bits(st->st_dmax - st->st_dmin) : 0;
  memset(out, 0, CE_DELTA_HDR);
  ce_st64(out, (uint64_t)st->st_i64[0]);
  ce_st64(out + 8, dmin);
  out[16] = (uint8_t)w;
  uint32_t k = st->st_n - 1;
  uint64_t *d = arena_alloc(scratch, sizeof(uint64_t) * (k ? k : 1));
  for (uint32_t i = 0; i < k; i++)
    d[i] = (uint64_t)st->st_i64[i + 1] - (uint64_t)st->st_i64[i] - dmin;
  ce_pack(out + CE_DELTA_HDR, d, k, w);
  return CE_DELTA_HDR + ce_pack_bytes(k, w);
}

static int delta_open(ce_cursor_t *c, err_t *e)
{
  if (!ce_phys_is_int(c->c_phys))
    return ce_corrupt(e, "deltas on a non-integer column");
  if (c->c_n == 0 || c->c_body_len < CE_DELTA_HDR || c->c_body[16] > 64)
    return ce_corrupt(e, "delta header");
  int w = c->c_body[16];
  if (ce_pack_bytes(c->c_n - 1, w) > c->c_body_len - CE_DELTA_HDR)
    return ce_corrupt(e, "packed deltas past the end");
  c->c_p[0] = c->c_body + CE_DELTA_HDR;
  c->c_u[0] = ce_ld64(c->c_body);
  c->c_u[1] = ce_ld64(c->c_body + 8);
  c->c_u[2] = (uint64_t)w;
  c->c_acc = 0;
  c->c_const = c->c_n <= 1 || (w == 0 && c->c_u[1] == 0);
  return CZ_OK;
}

static int delta_read_i64(ce_cursor_t *c, uint32_t n, int64_t *out, err_t *e)
{
  (void)e;
  uint64_t acc = (uint64_t)c->c_acc;
  uint32_t i = 0;
  if (c->c_pos == 0 && n) {
    acc = c->c_u[0];
    out[i++] = (int64_t)acc;
  }
  uint32_t m = n - i;
  if (m) {
    uint64_t *o = (uint64_t *)out + i;
    ce_unpack(c->c_p[0], c->c_pos + i - 1, m, (int)c->c_u[2], c->c_u[1], o);
    for (uint32_t j = 0; j < m; j++) {
      acc += o[j];
      o[j] = acc;
    }
  }
  c->c_acc = (int64_t)acc;
  c->c_pos += n;
  return CZ_OK;
}

static int delta_read(ce_cursor_t *c, uint32_t n, vec_t *v, int off, err_t *e)
{
  return ce_read_ints(c, n, v, off, delta_read_i64, e);
}

static int delta_skip(ce_cursor_t *c, uint32_t n, err_t *e)
{
  uint64_t acc = (uint64_t)c->c_acc, tmp[CE_BLK];
  if (c->c_pos == 0) {
    acc = c->c_u[0];
    c->c_pos = 1;
    n--;
  }
  acc += c->c_u[1] * n;
  while (n) {
    uint32_t m = CZ_MIN(n, CE_BLK);
    ce_unpack(c->c_p[0], c->c_pos - 1, m, (int)c->c_u[2], 0, tmp);
    for (uint32_t j = 0; j < m; j++)
      acc += tmp[j];
    c->c_pos += m;
    n -= m;
  }
  c->c_acc = (int64_t)acc;
  (void)e;
  return CZ_OK;
}

static int delta_filter(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t *sel, uint32_t *nout, err_t *e)
{
  return ce_filter_decoded_i64(c, delta_read_i64, cp, sel, nout, e);
}

const ce_codec_t ce_delta_codec = {
  .cc_name = "delta", .cc_id = CE_DELTA, .cc_speed = 3,
  .cc_analyze = delta_analyze, .cc_encode = delta_encode, .cc_open = delta_open, .cc_read = delta_read,
  .cc_skip = delta_skip, .cc_gather = NULL, .cc_fetch = NULL, .cc_filter = delta_filter,
};
