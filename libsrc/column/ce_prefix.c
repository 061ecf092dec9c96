/* ce_prefix — prefix-compressed strings (front coding): each string stores
 * the length of the prefix it shares with the string before it and the
 * rest. Every CE_PREFIX_RESTART-th string is stored whole (a restart point)
 * so skip and fetch jump to the nearest restart instead of row 0. Applies
 * to STR; wins on sorted or clustered keys (URLs, names, codes).
 *
 * Body: u32 longest string; u32 restarts (= ceil(rows / 16)); u32 data
 * bytes; u32 offset of each restart string in the data; the data: per row
 * varint shared, varint rest length, rest bytes. A string is rebuilt in a
 * scratch buffer of the longest length (allocated once per cursor) and, for
 * the vector, copied into the caller's arena in chunks.
 * Cursor: c_p[0] restart offsets, c_p[1] data, c_u[0] data bytes,
 * c_u[1] longest, c_off the next row's data offset, c_scratch the previous
 * string (c_scratch_len bytes).
 */
#include "column/column_int.h"
#include "column/ce_varint.h"

#define CE_PX_HDR 12u

static uint32_t nrestarts(uint32_t n)
{
  return (n + CE_PREFIX_RESTART - 1) / CE_PREFIX_RESTART;
}

static int64_t px_analyze(const ce_stats_t *st)
{
  if (st->st_phys != TP_STR || st->st_n == 0 || st->st_prefix_bytes > UINT32_MAX)
    return -1;
  return CE_PX_HDR + 4 * (int64_t)nrestarts(st->st_n) + (int64_t)st->st_prefix_bytes;
}

static size_t px_encode(const ce_stats_t *st, uint8_t *out, arena_t *scratch)
{
  (void)scratch;
  uint32_t nr = nrestarts(st->st_n);
  ce_st32(out, st->st_max_len);
  ce_st32(out + 4, nr);
  ce_st32(out + 8, (uint32_t)st->st_prefix_bytes);
  uint8_t *rs = out + CE_PX_HDR, *data = rs + 4 * (size_t)nr;
  size_t off = 0;
  const str_t *s = st->st_str;
  for (uint32_t i = 0; i < st->st_n; i++) {
    uint32_t len = s[i].s_len, shared = 0;
    if (i % CE_PREFIX_RESTART) {
      uint32_t m = CZ_MIN(len, s[i - 1].s_len);
      while (shared < m && s[i].s_ptr[shared] == s[i - 1].s_ptr[shared])
        shared++;
    } else {
      ce_st32(rs + 4 * (size_t)(i / CE_PREFIX_RESTART), (uint32_t)off);
    }
    off += ce_varint_put(data + off, shared);
    off += ce_varint_put(data + off, len - shared);
    if (len > shared)
      memcpy(data + off, s[i].s_ptr + shared, len - shared);
    off += len - shared;
  }
  return CE_PX_HDR + 4 * (size_t)nr + off;
}

static int px_open(ce_cursor_t *c, err_t *e)
{
  if (c->c_phys != TP_STR)
    return ce_corrupt(e, "prefix coding on a non-string column");
  if (c->c_n == 0 || c->c_body_len < CE_PX_HDR)
    return ce_corrupt(e, "prefix header");
  uint32_t maxlen = ce_ld32(c->c_body), nr = ce_ld32(c->c_body + 4), dlen = ce_ld32(c->c_body + 8);
  if (nr != nrestarts(c->c_n) || 4 * (size_t)nr > c->c_body_len - CE_PX_HDR ||
      dlen > c->c_body_len - CE_PX_HDR - 4 * (size_t)nr || maxlen > dlen)
    return ce_corrupt(e, "prefix sizes");
  const uint8_t *rs = c->c_body + CE_PX_HDR;
  for (uint32_t i = 0; i < nr; i++)
    if (ce_ld32(rs + 4 * (size_t)i) >= dlen || (i && ce_ld32(rs + 4 * (size_t)i) <= ce_ld32(rs + 4 * (size_t)(i - 1))))
      return ce_corrupt(e, "restart offsets");
  c->c_p[0] = rs;
  c->c_p[1] = rs + 4 * (size_t)nr;
  c->c_u[0] = dlen;
  c->c_u[1] = maxlen;
  c->c_off = 0;
  c->c_scratch = arena_alloc(c->c_arena, (size_t)maxlen + 1);
  c->c_scratch_len = 0;
  c->c_const = c->c_n <= 1;
  return CZ_OK;
}

/* Rebuilds row c_pos in c_scratch and advances. */
static inline int px_next(ce_cursor_t *c, err_t *e)
{
  uint32_t shared, rest;
  size_t end = (size_t)c->c_u[0];
  const uint8_t *d = c->c_p[1];
  if (!ce_varint_get(d, end, &c->c_off, &shared) || !ce_varint_get(d, end, &c->c_off, &rest))
    return ce_corrupt(e, "prefix lengths");
  if (shared > c->c_scratch_len || (c->c_pos % CE_PREFIX_RESTART == 0 && shared) ||
      rest > c->c_u[1] - shared || rest > end - c->c_off)
    return ce_corrupt(e, "prefix lengths");
  memcpy(c->c_scratch + shared, d + c->c_off, rest);
  c->c_off += rest;
  c->c_scratch_len = shared + rest;
  c->c_pos++;
  return CZ_OK;
}

static int px_read(ce_cursor_t *c, uint32_t n, vec_t *v, int off, err_t *e)
{
  for (uint32_t i = 0; i < n; i++) {
    if (px_next(c, e) != CZ_OK)
      return CZ_ERR;
    str_t *o = &v->v_str[off + (int)i];
    o->s_ptr = ce_cursor_keep(c, c->c_scratch, c->c_scratch_len);
    o->s_len = c->c_scratch_len;
  }
  return CZ_OK;
}

static int px_skip(ce_cursor_t *c, uint32_t n, err_t *e)
{
  uint32_t target = c->c_pos + n, r = target / CE_PREFIX_RESTART;
  if (r * CE_PREFIX_RESTART > c->c_pos) {
    c->c_pos = r * CE_PREFIX_RESTART;
    c->c_off = ce_ld32(c->c_p[0] + 4 * (size_t)r);
    c->c_scratch_len = 0;
  }
  while (c->c_pos < target)
    if (px_next(c, e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

static int px_filter(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t *sel, uint32_t *nout, err_t *e)
{
  uint32_t k = 0;
  datum_t d = {.d_null = false};
  for (uint32_t i = 0; i < c->c_n; i++) {
    if (px_next(c, e) != CZ_OK)
      return CZ_ERR;
    d.d_str.s_ptr = c->c_scratch;
    d.d_str.s_len = c->c_scratch_len;
    sel[k] = i;
    k += ce_pred_test(cp, &d);
  }
  *nout = k;
  return CZ_OK;
}

const ce_codec_t ce_prefix_codec = {
  .cc_name = "prefix", .cc_id = CE_PREFIX, .cc_speed = 4,
  .cc_analyze = px_analyze, .cc_encode = px_encode, .cc_open = px_open, .cc_read = px_read,
  .cc_skip = px_skip, .cc_gather = NULL, .cc_fetch = NULL, .cc_filter = px_filter,
};
