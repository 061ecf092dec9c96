/* ce_dict_rle — dictionary with run-length codes: the distinct values once,
 * then runs of one code. Wins over ce_rle when long runs repeat a few wide
 * values (strings, NUMERIC), over ce_dict when runs are long.
 *
 * Body: u32 entries; u32 runs; u8 code width; 3 zero bytes; a value block
 * of the entries; u32 ends[runs] (as ce_rle); the code of each run packed
 * at the width. Predicates test each entry once and each run once.
 * Cursor: c_p[0] entries, c_p[1] ends, c_p[2] run codes, c_u[0] entries,
 * c_u[1] width, c_u[2] runs, c_u[3] the current run's code.
 */
#include "column/column_int.h"

#define CE_DR_HDR 12u

uint8_t *ce_dict_match(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t nd, const uint8_t *entries);

static int64_t drle_analyze(const ce_stats_t *st)
{
  if (st->st_ndict == 0 || st->st_n == 0)
    return -1;
  int w = ce_bits(st->st_ndict - 1);
  return CE_DR_HDR + (int64_t)ce_vb_size(st, st->st_dict_row, st->st_ndict) + 4 * (int64_t)st->st_nruns +
         (int64_t)ce_pack_bytes(st->st_nruns, w);
}

static size_t drle_encode(const ce_stats_t *st, uint8_t *out, arena_t *scratch)
{
  int w = ce_bits(st->st_ndict - 1);
  uint32_t nr = st->st_nruns;
  ce_st32(out, st->st_ndict);
  ce_st32(out + 4, nr);
  out[8] = (uint8_t)w;
  out[9] = out[10] = out[11] = 0;
  size_t off = CE_DR_HDR + ce_vb_write(out + CE_DR_HDR, st, st->st_dict_row, st->st_ndict);
  uint64_t *codes = arena_alloc(scratch, sizeof(uint64_t) * (nr + 1));
  uint32_t r = 0;
  for (uint32_t i = 0; i < st->st_n; i++) {
    if (i == 0 || st->st_codes[i] != st->st_codes[i - 1]) {
      if (r)
        ce_st32(out + off + 4 * (size_t)(r - 1), i);
      codes[r++] = st->st_codes[i];
    }
  }
  ce_st32(out + off + 4 * (size_t)(nr - 1), st->st_n);
  off += 4 * (size_t)nr;
  ce_pack(out + off, codes, nr, w);
  return off + ce_pack_bytes(nr, w);
}

static uint64_t code_of(const ce_cursor_t *c, uint32_t run)
{
  return ce_unpack_one(c->c_p[2], run, (int)c->c_u[1]);
}

static int drle_open(ce_cursor_t *c, err_t *e)
{
  if (c->c_body_len < CE_DR_HDR)
    return ce_corrupt(e, "dictionary body too short");
  uint32_t nd = ce_ld32(c->c_body), nr = ce_ld32(c->c_body + 4);
  int w = c->c_body[8];
  if (w > 32 || (nd == 0 && c->c_n > 0) || nd > CE_DICT_MAX || nr > c->c_n)
    return ce_corrupt(e, "dictionary size, run count or code width");
  ce_vb_t vb;
  if (ce_vb_open(&vb, c->c_phys, nd, c->c_body + CE_DR_HDR, c->c_body_len - CE_DR_HDR, e) != CZ_OK)
    return CZ_ERR;
  size_t off = CE_DR_HDR + vb.vb_len;
  if (4 * (size_t)nr > c->c_body_len - off)
    return ce_corrupt(e, "run ends past the end");
  const uint8_t *ends = c->c_body + off;
  if (ce_rle_check_ends(ends, nr, c->c_n, e) != CZ_OK)
    return CZ_ERR;
  off += 4 * (size_t)nr;
  if (ce_pack_bytes(nr, w) > c->c_body_len - off)
    return ce_corrupt(e, "run codes past the end");
  c->c_p[0] = c->c_body + CE_DR_HDR;
  c->c_p[1] = ends;
  c->c_p[2] = c->c_body + off;
  c->c_u[0] = nd;
  c->c_u[1] = (uint64_t)w;
  c->c_u[2] = nr;
  c->c_run = 0;
  c->c_run_end = nr ? ce_ld32(ends) : 0;
  c->c_u[3] = nr ? code_of(c, 0) : 0;
  if (nr && c->c_u[3] >= nd)
    return ce_corrupt(e, "dictionary code out of range");
  c->c_const = nd <= 1;
  return CZ_OK;
}

static inline int to_run(ce_cursor_t *c, err_t *e)
{
  if (c->c_pos < c->c_run_end || c->c_pos >= c->c_n)
    return CZ_OK;
  uint32_t nr = (uint32_t)c->c_u[2];
  if (c->c_run + 1 < nr && ce_ld32(c->c_p[1] + 4 * (size_t)(c->c_run + 1)) > c->c_pos)
    c->c_run++;
  else
    c->c_run = ce_rle_find(c->c_p[1], nr, c->c_run, c->c_pos);
  c->c_run_end = ce_ld32(c->c_p[1] + 4 * (size_t)c->c_run);
  c->c_u[3] = code_of(c, c->c_run);
  if (c->c_u[3] >= c->c_u[0])
    return ce_corrupt(e, "dictionary code out of range");
  return CZ_OK;
}

static int drle_read(ce_cursor_t *c, uint32_t n, vec_t *v, int off, err_t *e)
{
  ce_vb_t vb = ce_vb_make(c->c_phys, (uint32_t)c->c_u[0], c->c_p[0]);
  while (n) {
    if (to_run(c, e) != CZ_OK)
      return CZ_ERR;
    uint32_t m = CZ_MIN(n, c->c_run_end - c->c_pos), code = (uint32_t)c->c_u[3];
    if (c->c_phys == TP_I64) {
      int64_t x = (int64_t)ce_ld64(vb.vb_p + 8 * (size_t)code), *o = v->v_i64 + off;
      for (uint32_t i = 0; i < m; i++)
        o[i] = x;
    } else {
      for (uint32_t i = 0; i < m; i++)
        ce_vb_put(&vb, code, v, off + (int)i);
    }
    off += (int)m;
    n -= m;
    c->c_pos += m;
  }
  return CZ_OK;
}

static int drle_skip(ce_cursor_t *c, uint32_t n, err_t *e)
{
  c->c_pos += n;
  return to_run(c, e);
}

static int drle_gather(ce_cursor_t *c, const uint32_t *sel, uint32_t nsel, vec_t *v, int off, err_t *e)
{
  ce_vb_t vb = ce_vb_make(c->c_phys, (uint32_t)c->c_u[0], c->c_p[0]);
  for (uint32_t i = 0; i < nsel; i++) {
    c->c_pos = sel[i];
    if (to_run(c, e) != CZ_OK)
      return CZ_ERR;
    ce_vb_put(&vb, (uint32_t)c->c_u[3], v, off + (int)i);
  }
  return CZ_OK;
}

static int drle_filter(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t *sel, uint32_t *nout, err_t *e)
{
  uint32_t nd = (uint32_t)c->c_u[0], nr = (uint32_t)c->c_u[2], k = 0, start = 0;
  const uint8_t *match = ce_dict_match(c, cp, nd, c->c_p[0]);
  for (uint32_t r = 0; r < nr; r++) {
    uint32_t end = ce_ld32(c->c_p[1] + 4 * (size_t)r);
    uint64_t code = code_of(c, r);
    if (code >= nd)
      return ce_corrupt(e, "dictionary code out of range");
    if (match[code])
      for (uint32_t i = start; i < end; i++)
        sel[k++] = i;
    start = end;
  }
  *nout = k;
  return CZ_OK;
}

static int drle_dict(ce_cursor_t *c, ce_vb_t *dict, uint32_t *codes, err_t *e)
{
  uint32_t nd = (uint32_t)c->c_u[0], nr = (uint32_t)c->c_u[2], start = 0;
  *dict = ce_vb_make(c->c_phys, nd, c->c_p[0]);
  for (uint32_t r = 0; r < nr; r++) {
    uint32_t end = ce_ld32(c->c_p[1] + 4 * (size_t)r);
    uint64_t code = code_of(c, r);
    if (code >= nd)
      return ce_corrupt(e, "dictionary code out of range");
    for (uint32_t i = start; i < end; i++)
      codes[i] = (uint32_t)code;
    start = end;
  }
  return CZ_OK;
}

static uint32_t drle_run(ce_cursor_t *c, datum_t *val)
{
  if (to_run(c, NULL) != CZ_OK)
    return 0;
  ce_vb_t vb = ce_vb_make(c->c_phys, (uint32_t)c->c_u[0], c->c_p[0]);
  ce_vb_get(&vb, (uint32_t)c->c_u[3], val);
  return c->c_run_end - c->c_pos;
}

const ce_codec_t ce_dict_rle_codec = {
  .cc_name = "dict_rle", .cc_id = CE_DICT_RLE, .cc_speed = 2,
  .cc_analyze = drle_analyze, .cc_encode = drle_encode, .cc_open = drle_open, .cc_read = drle_read,
  .cc_skip = drle_skip, .cc_gather = drle_gather, .cc_fetch = NULL, .cc_filter = drle_filter,
  .cc_dict = drle_dict, .cc_run = drle_run,
};
