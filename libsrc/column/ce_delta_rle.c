/* ce_delta_rle — run-length of deltas: the first value, then runs of equal
 * differences between neighbouring rows (timestamps at a fixed step,
 * counters, step-wise constant columns). Applies to I64 and BOOL; deltas
 * wrap (two's complement), so any sequence is representable.
 *
 * Body: i64 first; u32 runs; then per run u32 length (>= 1) and i64 delta;
 * the lengths add up to rows - 1. Skipping inside a run is one multiply.
 * Cursor: c_p[0] runs, c_u[0] runs, c_u[1] first, c_run the current run,
 * c_run_end the row after it, c_acc the value of row c_pos - 1.
 */
#include "column/column_int.h"

#define CE_DR_HDR 12u

static int64_t drl_analyze(const ce_stats_t *st)
{
  if (!ce_phys_is_int(st->st_phys) || st->st_n == 0)
    return -1;
  return CE_DR_HDR + 12 * (int64_t)st->st_delta_runs;
}

static size_t drl_encode(const ce_stats_t *st, uint8_t *out, arena_t *scratch)
{
  (void)scratch;
  const int64_t *x = st->st_i64;
  ce_st64(out, (uint64_t)x[0]);
  ce_st32(out + 8, st->st_delta_runs);
  size_t off = CE_DR_HDR;
  uint32_t i = 1;
  while (i < st->st_n) {
    uint64_t d = (uint64_t)x[i] - (uint64_t)x[i - 1];
    uint32_t j = i + 1;
    while (j < st->st_n && (uint64_t)x[j] - (uint64_t)x[j - 1] == d)
      j++;
    ce_st32(out + off, j - i);
    ce_st64(out + off + 4, d);
    off += 12;
    i = j;
  }
  return off;
}

static int drl_open(ce_cursor_t *c, err_t *e)
{
  if (!ce_phys_is_int(c->c_phys))
    return ce_corrupt(e, "deltas on a non-integer column");
  if (c->c_n == 0 || c->c_body_len < CE_DR_HDR)
    return ce_corrupt(e, "delta runs header");
  uint32_t nr = ce_ld32(c->c_body + 8);
  if (nr > c->c_n - 1 || 12 * (size_t)nr > c->c_body_len - CE_DR_HDR)
    return ce_corrupt(e, "delta runs past the end");
  const uint8_t *p = c->c_body + CE_DR_HDR;
  uint64_t total = 0;
  for (uint32_t r = 0; r < nr; r++) {
    uint32_t len = ce_ld32(p + 12 * (size_t)r);
    if (len == 0)
      return ce_corrupt(e, "empty delta run");
    total += len;
  }
  if (total != c->c_n - 1)
    return ce_corrupt(e, "delta runs do not cover the rows");
  c->c_p[0] = p;
  c->c_u[0] = nr;
  c->c_u[1] = ce_ld64(c->c_body);
  c->c_run = 0;
  c->c_run_end = nr ? 1 + ce_ld32(p) : 1;
  c->c_const = nr == 0 || (nr == 1 && ce_ld64(p + 4) == 0);
  return CZ_OK;
}

/* Moves to the run holding c_pos (c_pos >= 1). */
static inline void to_run(ce_cursor_t *c)
{
  while (c->c_pos >= c->c_run_end && c->c_run + 1 < c->c_u[0]) {
    c->c_run++;
    c->c_run_end += ce_ld32(c->c_p[0] + 12 * (size_t)c->c_run);
  }
}

static int drl_read_i64(ce_cursor_t *c, uint32_t n, int64_t *out, err_t *e)
{
  (void)e;
  uint64_t acc = (uint64_t)c->c_acc;
  uint32_t i = 0;
  if (c->c_pos == 0 && n) {
    acc = c->c_u[1];
    out[i++] = (int64_t)acc;
    c->c_pos = 1;
  }
  while (i < n) {
    to_run(c);
    uint64_t d = ce_ld64(c->c_p[0] + 12 * (size_t)c->c_run + 4);
    uint32_t m = CZ_MIN(n - i, c->c_run_end - c->c_pos);
    for (uint32_t j = 0; j < m; j++) {
      acc += d;
      out[i + j] = (int64_t)acc;
    }
    i += m;
    c->c_pos += m;
  }
  c->c_acc = (int64_t)acc;
  return CZ_OK;
}

static int drl_read(ce_cursor_t *c, uint32_t n, vec_t *v, int off, err_t *e)
{
  return ce_read_ints(c, n, v, off, drl_read_i64, e);
}

static int drl_skip(ce_cursor_t *c, uint32_t n, err_t *e)
{
  (void)e;
  uint64_t acc = (uint64_t)c->c_acc;
  if (c->c_pos == 0) {
    acc = c->c_u[1];
    c->c_pos = 1;
    n--;
  }
  while (n) {
    to_run(c);
    uint64_t d = ce_ld64(c->c_p[0] + 12 * (size_t)c->c_run + 4);
    uint32_t m = CZ_MIN(n, c->c_run_end - c->c_pos);
    acc += d * m;
    c->c_pos += m;
    n -= m;
  }
  c->c_acc = (int64_t)acc;
  return CZ_OK;
}

static int drl_filter(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t *sel, uint32_t *nout, err_t *e)
{
  return ce_filter_decoded_i64(c, drl_read_i64, cp, sel, nout, e);
}

const ce_codec_t ce_delta_rle_codec = {
  .cc_name = "delta_rle", .cc_id = CE_DELTA_RLE, .cc_speed = 2,
  .cc_analyze = drl_analyze, .cc_encode = drl_encode, .cc_open = drl_open, .cc_read = drl_read,
  .cc_skip = drl_skip, .cc_gather = NULL, .cc_fetch = NULL, .cc_filter = drl_filter,
};
