/* ce_raw — values as they are: the body is one value block of every row
 * (ce_vblock.c). Applies to every kind; the fallback when nothing smaller
 * exists, and the fastest to decode (integers and floats are one memcpy).
 * c_p[0]: the block.
 */
#include "column/column_int.h"

static int64_t raw_analyze(const ce_stats_t *st)
{
  return (int64_t)ce_vb_size(st, NULL, st->st_n);
}

static size_t raw_encode(const ce_stats_t *st, uint8_t *out, arena_t *scratch)
{
  (void)scratch;
  return ce_vb_write(out, st, NULL, st->st_n);
}

static int raw_open(ce_cursor_t *c, err_t *e)
{
  ce_vb_t vb;
  if (ce_vb_open(&vb, c->c_phys, c->c_n, c->c_body, c->c_body_len, e) != CZ_OK)
    return CZ_ERR;
  c->c_p[0] = c->c_body;
  c->c_const = c->c_n <= 1;
  return CZ_OK;
}

static int raw_read(ce_cursor_t *c, uint32_t n, vec_t *v, int off, err_t *e)
{
  (void)e;
  ce_vb_t vb = ce_vb_make(c->c_phys, c->c_n, c->c_p[0]);
  uint32_t pos = c->c_pos;
  switch (c->c_phys) {
  case TP_I64:
    memcpy(v->v_i64 + off, vb.vb_p + 8 * (size_t)pos, 8 * (size_t)n);
    break;
  case TP_F64:
    memcpy(v->v_f64 + off, vb.vb_p + 8 * (size_t)pos, 8 * (size_t)n);
    break;
  case TP_BOOL:
    for (uint32_t i = 0; i < n; i++)
      v->v_bool[off + (int)i] = vb.vb_p[pos + i] & 1;
    break;
  default:
    for (uint32_t i = 0; i < n; i++)
      ce_vb_put(&vb, pos + i, v, off + (int)i);
    break;
  }
  c->c_pos += n;
  return CZ_OK;
}

static int raw_skip(ce_cursor_t *c, uint32_t n, err_t *e)
{
  (void)e;
  c->c_pos += n;
  return CZ_OK;
}

static int raw_gather(ce_cursor_t *c, const uint32_t *sel, uint32_t nsel, vec_t *v, int off, err_t *e)
{
  (void)e;
  ce_vb_t vb = ce_vb_make(c->c_phys, c->c_n, c->c_p[0]);
  if (c->c_phys == TP_I64) {
    for (uint32_t i = 0; i < nsel; i++)
      v->v_i64[off + (int)i] = (int64_t)ce_ld64(vb.vb_p + 8 * (size_t)sel[i]);
    return CZ_OK;
  }
  for (uint32_t i = 0; i < nsel; i++)
    ce_vb_put(&vb, sel[i], v, off + (int)i);
  return CZ_OK;
}

static int raw_fetch(ce_cursor_t *c, uint32_t pos, datum_t *out, err_t *e)
{
  (void)e;
  ce_vb_t vb = ce_vb_make(c->c_phys, c->c_n, c->c_p[0]);
  ce_vb_get(&vb, pos, out);
  return CZ_OK;
}

static int raw_filter(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t *sel, uint32_t *nout, err_t *e)
{
  (void)e;
  ce_vb_t vb = ce_vb_make(c->c_phys, c->c_n, c->c_p[0]);
  uint32_t k = 0, n = c->c_n;
  if (c->c_phys == TP_I64) {
    const uint8_t *p = vb.vb_p;
    if (cp->cp_nint == 1) {
      uint64_t lo = (uint64_t)cp->cp_lo[0], span = (uint64_t)cp->cp_hi[0] - lo;
      for (uint32_t i = 0; i < n; i++) {
        sel[k] = i;
        k += ce_ld64(p + 8 * (size_t)i) - lo <= span;
      }
    } else {
      for (uint32_t i = 0; i < n; i++) {
        sel[k] = i;
        k += ce_ipred_match(cp, (int64_t)ce_ld64(p + 8 * (size_t)i));
      }
    }
  } else {
    for (uint32_t i = 0; i < n; i++) {
      datum_t d;
      ce_vb_get(&vb, i, &d);
      sel[k] = i;
      k += ce_pred_test(cp, &d);
    }
  }
  *nout = k;
  return CZ_OK;
}

const ce_codec_t ce_raw_codec = {
  .cc_name = "raw", .cc_id = CE_RAW, .cc_speed = 0,
  .cc_analyze = raw_analyze, .cc_encode = raw_encode, .cc_open = raw_open, .cc_read = raw_read,
  .cc_skip = raw_skip, .cc_gather = raw_gather, .cc_fetch = raw_fetch, .cc_filter = raw_filter,
};
