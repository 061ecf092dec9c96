/* ce_dict — dictionary: the distinct values once, each row a bit-packed
 * code. Applies to every kind with at most CE_DICT_MAX distinct values.
 *
 * Body: u32 entries; u8 code width; 3 zero bytes; a value block of the
 * entries (first-appearance order); the codes of every row packed at the
 * width (ce_bitpack.c). A code >= entries is corruption, checked as codes
 * are read. Predicates test each entry once, then match codes against that
 * table. Cursor: c_p[0] entries, c_p[1] codes, c_u[0] entries, c_u[1] width.
 */
#include "column/column_int.h"

#define CE_DICT_HDR 8u

static int64_t dict_analyze(const ce_stats_t *st)
{
  if (st->st_ndict == 0 || st->st_n == 0)
    return -1;
  int w = ce_bits(st->st_ndict - 1);
  return CE_DICT_HDR + (int64_t)ce_vb_size(st, st->st_dict_row, st->st_ndict) + (int64_t)ce_pack_bytes(st->st_n, w);
}

static size_t dict_encode(const ce_stats_t *st, uint8_t *out, arena_t *scratch)
{
  int w = ce_bits(st->st_ndict - 1);
  ce_st32(out, st->st_ndict);
  out[4] = (uint8_t)w;
  out[5] = out[6] = out[7] = 0;
  size_t off = CE_DICT_HDR + ce_vb_write(out + CE_DICT_HDR, st, st->st_dict_row, st->st_ndict);
  uint64_t *codes = arena_alloc(scratch, sizeof(uint64_t) * st->st_n);
  for (uint32_t i = 0; i < st->st_n; i++)
    codes[i] = st->st_codes[i];
  ce_pack(out + off, codes, st->st_n, w);
  return off + ce_pack_bytes(st->st_n, w);
}

static int dict_open(ce_cursor_t *c, err_t *e)
{
  if (c->c_body_len < CE_DICT_HDR)
    return ce_corrupt(e, "dictionary body too short");
  uint32_t nd = ce_ld32(c->c_body);
  int w = c->c_body[4];
  if (w > 32 || (nd == 0 && c->c_n > 0) || nd > CE_DICT_MAX)
    return ce_corrupt(e, "dictionary size or code width");
  ce_vb_t vb;
  if (ce_vb_open(&vb, c->c_phys, nd, c->c_body + CE_DICT_HDR, c->c_body_len - CE_DICT_HDR, e) != CZ_OK)
    return CZ_ERR;
  size_t off = CE_DICT_HDR + vb.vb_len;
  if (ce_pack_bytes(c->c_n, w) > c->c_body_len - off)
    return ce_corrupt(e, "dictionary codes past the end");
  c->c_p[0] = c->c_body + CE_DICT_HDR;
  c->c_p[1] = c->c_body + off;
  c->c_u[0] = nd;
  c->c_u[1] = (uint64_t)w;
  c->c_const = nd <= 1;
  return CZ_OK;
}


static int dict_read(ce_cursor_t *c, uint32_t n, vec_t *v, int off, err_t *e)
{
  uint32_t nd = (uint32_t)c->c_u[0];
  int w = (int)c->c_u[1];
  ce_vb_t vb = ce_vb_make(c->c_phys, nd, c->c_p[0]);
  uint64_t codes[CE_BLK];
  while (n) {
    uint32_t m = CZ_MIN(n, CE_BLK);
    ce_unpack(c->c_p[1], c->c_pos, m, w, 0, codes);
    uint64_t bad = 0;
    for (uint32_t i = 0; i < m; i++)
      bad |= codes[i] >= nd;
    if (bad)
      return ce_corrupt(e, "dictionary code out of range");
    if (c->c_phys == TP_I64) {
      int64_t *o = v->v_i64 + off;
      for (uint32_t i = 0; i < m; i++)
        o[i] = (int64_t)ce_ld64(vb.vb_p + 8 * codes[i]);
    } else if (c->c_phys == TP_F64) {
      double *o = v->v_f64 + off;
      for (uint32_t i = 0; i < m; i++)
        memcpy(&o[i], vb.vb_p + 8 * codes[i], 8);
    } else {
      for (uint32_t i = 0; i < m; i++)
        ce_vb_put(&vb, (uint32_t)codes[i], v, off + (int)i);
    }
    c->c_pos += m;
    off += (int)m;
    n -= m;
  }
  return CZ_OK;
}

static int dict_skip(ce_cursor_t *c, uint32_t n, err_t *e)
{
  (void)e;
  c->c_pos += n;
  return CZ_OK;
}

static int dict_gather(ce_cursor_t *c, const uint32_t *sel, uint32_t nsel, vec_t *v, int off, err_t *e)
{
  uint32_t nd = (uint32_t)c->c_u[0];
  ce_vb_t vb = ce_vb_make(c->c_phys, nd, c->c_p[0]);
  for (uint32_t i = 0; i < nsel; i++) {
    uint64_t code = ce_unpack_one(c->c_p[1], sel[i], (int)c->c_u[1]);
    if (code >= nd)
      return ce_corrupt(e, "dictionary code out of range");
    ce_vb_put(&vb, (uint32_t)code, v, off + (int)i);
  }
  return CZ_OK;
}

static int dict_fetch(ce_cursor_t *c, uint32_t pos, datum_t *out, err_t *e)
{
  uint32_t nd = (uint32_t)c->c_u[0];
  uint64_t code = ce_unpack_one(c->c_p[1], pos, (int)c->c_u[1]);
  if (code >= nd)
    return ce_corrupt(e, "dictionary code out of range");
  ce_vb_t vb = ce_vb_make(c->c_phys, nd, c->c_p[0]);
  ce_vb_get(&vb, (uint32_t)code, out);
  return CZ_OK;
}

/* One byte per entry: does it match? Shared with ce_dict_rle. */
uint8_t *ce_dict_match(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t nd, const uint8_t *entries)
{
  ce_vb_t vb = ce_vb_make(c->c_phys, nd, entries);
  uint8_t *match = arena_alloc(c->c_arena, nd ? nd : 1);
  for (uint32_t i = 0; i < nd; i++) {
    datum_t d;
    ce_vb_get(&vb, i, &d);
    match[i] = ce_pred_test(cp, &d);
  }
  return match;
}

static int dict_filter(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t *sel, uint32_t *nout, err_t *e)
{
  uint32_t nd = (uint32_t)c->c_u[0], k = 0;
  int w = (int)c->c_u[1];
  const uint8_t *match = ce_dict_match(c, cp, nd, c->c_p[0]);
  uint64_t codes[CE_BLK];
  for (uint32_t base = 0; base < c->c_n; base += CE_BLK) {
    uint32_t m = CZ_MIN(c->c_n - base, CE_BLK);
    ce_unpack(c->c_p[1], base, m, w, 0, codes);
    uint64_t bad = 0;
    for (uint32_t i = 0; i < m; i++)
      bad |= codes[i] >= nd;
    if (bad)
      return ce_corrupt(e, "dictionary code out of range");
    for (uint32_t i = 0; i < m; i++) {
      sel[k] = base + i;
      k += match[codes[i]];
    }
  }
  *nout = k;
  return CZ_OK;
}

static int dict_dict(ce_cursor_t *c, ce_vb_t *dict, uint32_t *codes, err_t *e)
{
  uint32_t nd = (uint32_t)c->c_u[0];
  *dict = ce_vb_make(c->c_phys, nd, c->c_p[0]);
  uint64_t tmp[CE_BLK];
  for (uint32_t base = 0; base < c->c_n; base += CE_BLK) {
    uint32_t m = CZ_MIN(c->c_n - base, CE_BLK);
    ce_unpack(c->c_p[1], base, m, (int)c->c_u[1], 0, tmp);
    for (uint32_t i = 0; i < m; i++) {
      if (tmp[i] >= nd)
        return ce_corrupt(e, "dictionary code out of range");
      codes[base + i] = (uint32_t)tmp[i];
    }
  }
  return CZ_OK;
}

const ce_codec_t ce_dict_codec = {
  .cc_name = "dict", .cc_id = CE_DICT, .cc_speed = 3,
  .cc_analyze = dict_analyze, .cc_encode = dict_encode, .cc_open = dict_open, .cc_read = dict_read,
  .cc_skip = dict_skip, .cc_gather = dict_gather, .cc_fetch = dict_fetch, .cc_filter = dict_filter,
  .cc_dict = dict_dict,
};
