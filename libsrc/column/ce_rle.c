/* ce_rle — run-length: one value per run of bit-identical rows. Applies to
 * every kind.
 *
 * Body: u32 runs; u32 ends[runs] (row after each run, strictly increasing,
 * the last = rows); a value block (ce_vblock.c) of one value per run.
 * Predicates test each run's value once and emit its rows as a range.
 * Cursor: c_p[0] ends, c_p[1] values, c_u[0] runs, c_run/c_run_end the run
 * holding c_pos.
 */
#include "column/column_int.h"

static int64_t rle_analyze(const ce_stats_t *st)
{
  int64_t s = 4 + 4 * (int64_t)st->st_nruns;
  if (st->st_phys != TP_STR)
    return s + (int64_t)(ce_vb_width(st->st_phys) * st->st_nruns);
  s += 4 * ((int64_t)st->st_nruns + 1);
  /* String bytes of the first row of every run. */
  const str_t *x = st->st_str;
  for (uint32_t i = 0; i < st->st_n; i++)
    if (i == 0 || x[i].s_len != x[i - 1].s_len || (x[i].s_len && memcmp(x[i].s_ptr, x[i - 1].s_ptr, x[i].s_len)))
      s += x[i].s_len;
  return s;
}

static bool same_prev(const ce_stats_t *st, uint32_t i)
{
  switch (st->st_phys) {
  case TP_BOOL:
  case TP_I64: return st->st_i64[i] == st->st_i64[i - 1];
  case TP_F64: return memcmp(&st->st_f64[i], &st->st_f64[i - 1], 8) == 0;
  case TP_NUM:
    return st->st_num[i].n_val == st->st_num[i - 1].n_val && st->st_num[i].n_scale == st->st_num[i - 1].n_scale;
  case TP_STR:
    return st->st_str[i].s_len == st->st_str[i - 1].s_len &&
           (!st->st_str[i].s_len || !memcmp(st->st_str[i].s_ptr, st->st_str[i - 1].s_ptr, st->st_str[i].s_len));
  case TP_IV: break; /* refused by ce_stats_build */
  }
  return false;
}

static size_t rle_encode(const ce_stats_t *st, uint8_t *out, arena_t *scratch)
{
  uint32_t nr = st->st_nruns, r = 0;
  uint32_t *first = arena_alloc(scratch, sizeof(uint32_t) * (nr + 1));
  ce_st32(out, nr);
  for (uint32_t i = 0; i < st->st_n; i++) {
    if (i == 0 || !same_prev(st, i)) {
      if (r)
        ce_st32(out + 4 * (size_t)r, i);
      first[r++] = i;
    }
  }
  if (nr)
    ce_st32(out + 4 * (size_t)nr, st->st_n);
  size_t off = 4 + 4 * (size_t)nr;
  return off + ce_vb_write(out + off, st, first, nr);
}

/* Checks a run-end array: runs <= rows, strictly increasing, last = rows. */
int ce_rle_check_ends(const uint8_t *ends, uint32_t nr, uint32_t n, err_t *e)
{
  uint32_t prev = 0;
  for (uint32_t i = 0; i < nr; i++) {
    uint32_t x = ce_ld32(ends + 4 * (size_t)i);
    if (x <= prev)
      return ce_corrupt(e, "run ends not increasing");
    prev = x;
  }
  if (prev != n)
    return ce_corrupt(e, "runs do not cover the rows");
  return CZ_OK;
}

static int rle_open(ce_cursor_t *c, err_t *e)
{
  if (c->c_body_len < 4)
    return ce_corrupt(e, "run-length body too short");
  uint32_t nr = ce_ld32(c->c_body);
  if (nr > c->c_n || 4 * (size_t)nr > c->c_body_len - 4)
    return ce_corrupt(e, "run count");
  const uint8_t *ends = c->c_body + 4;
  if (ce_rle_check_ends(ends, nr, c->c_n, e) != CZ_OK)
    return CZ_ERR;
  ce_vb_t vb;
  size_t off = 4 + 4 * (size_t)nr;
  if (ce_vb_open(&vb, c->c_phys, nr, c->c_body + off, c->c_body_len - off, e) != CZ_OK)
    return CZ_ERR;
  c->c_p[0] = ends;
  c->c_p[1] = c->c_body + off;
  c->c_u[0] = nr;
  c->c_run = 0;
  c->c_run_end = nr ? ce_ld32(ends) : 0;
  c->c_const = nr <= 1;
  return CZ_OK;
}

/* First run whose end is > pos. */
uint32_t ce_rle_find(const uint8_t *ends, uint32_t nr, uint32_t from, uint32_t pos)
{
  uint32_t lo = from, hi = nr;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (ce_ld32(ends + 4 * (size_t)mid) <= pos)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static inline void to_run(ce_cursor_t *c)
{
  if (c->c_pos < c->c_run_end || c->c_pos >= c->c_n)
    return;
  uint32_t nr = (uint32_t)c->c_u[0];
  if (c->c_run + 1 < nr && ce_ld32(c->c_p[0] + 4 * (size_t)(c->c_run + 1)) > c->c_pos)
    c->c_run++;
  else
    c->c_run = ce_rle_find(c->c_p[0], nr, c->c_run, c->c_pos);
  c->c_run_end = ce_ld32(c->c_p[0] + 4 * (size_t)c->c_run);
}

static int rle_read(ce_cursor_t *c, uint32_t n, vec_t *v, int off, err_t *e)
{
  (void)e;
  ce_vb_t vb = ce_vb_make(c->c_phys, (uint32_t)c->c_u[0], c->c_p[1]);
  while (n) {
    to_run(c);
    uint32_t m = CZ_MIN(n, c->c_run_end - c->c_pos);
    switch (c->c_phys) {
    case TP_I64: {
      int64_t x = (int64_t)ce_ld64(vb.vb_p + 8 * (size_t)c->c_run), *o = v->v_i64 + off;
      for (uint32_t i = 0; i < m; i++)
        o[i] = x;
      break;
    }
    case TP_F64: {
      datum_t d;
      ce_vb_get(&vb, c->c_run, &d);
      double *o = v->v_f64 + off;
      for (uint32_t i = 0; i < m; i++)
        o[i] = d.d_f64;
      break;
    }
    default:
      for (uint32_t i = 0; i < m; i++)
        ce_vb_put(&vb, c->c_run, v, off + (int)i);
      break;
    }
    off += (int)m;
    n -= m;
    c->c_pos += m;
  }
  return CZ_OK;
}

static int rle_skip(ce_cursor_t *c, uint32_t n, err_t *e)
{
  (void)e;
  c->c_pos += n;
  to_run(c);
  return CZ_OK;
}

static int rle_gather(ce_cursor_t *c, const uint32_t *sel, uint32_t nsel, vec_t *v, int off, err_t *e)
{
  (void)e;
  ce_vb_t vb = ce_vb_make(c->c_phys, (uint32_t)c->c_u[0], c->c_p[1]);
  for (uint32_t i = 0; i < nsel; i++) {
    c->c_pos = sel[i];
    to_run(c);
    ce_vb_put(&vb, c->c_run, v, off + (int)i);
  }
  return CZ_OK;
}

static int rle_fetch(ce_cursor_t *c, uint32_t pos, datum_t *out, err_t *e)
{
  (void)e;
  ce_vb_t vb = ce_vb_make(c->c_phys, (uint32_t)c->c_u[0], c->c_p[1]);
  ce_vb_get(&vb, ce_rle_find(c->c_p[0], (uint32_t)c->c_u[0], 0, pos), out);
  return CZ_OK;
}

static int rle_filter(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t *sel, uint32_t *nout, err_t *e)
{
  (void)e;
  uint32_t nr = (uint32_t)c->c_u[0], k = 0, start = 0;
  ce_vb_t vb = ce_vb_make(c->c_phys, nr, c->c_p[1]);
  for (uint32_t r = 0; r < nr; r++) {
    uint32_t end = ce_ld32(c->c_p[0] + 4 * (size_t)r);
    datum_t d;
    ce_vb_get(&vb, r, &d);
    if (ce_pred_test(cp, &d))
      for (uint32_t i = start; i < end; i++)
        sel[k++] = i;
    start = end;
  }
  *nout = k;
  return CZ_OK;
}

static uint32_t rle_run(ce_cursor_t *c, datum_t *val)
{
  to_run(c);
  ce_vb_t vb = ce_vb_make(c->c_phys, (uint32_t)c->c_u[0], c->c_p[1]);
  ce_vb_get(&vb, c->c_run, val);
  return c->c_run_end - c->c_pos;
}

const ce_codec_t ce_rle_codec = {
  .cc_name = "rle", .cc_id = CE_RLE, .cc_speed = 1,
  .cc_analyze = rle_analyze, .cc_encode = rle_encode, .cc_open = rle_open, .cc_read = rle_read,
  .cc_skip = rle_skip, .cc_gather = rle_gather, .cc_fetch = rle_fetch, .cc_filter = rle_filter,
  .cc_run = rle_run,
};
