/* ce_api — the module's entry points: the codec table, the chooser, the
 * test switch, and the segment-level wrappers (header checks, NULL flags,
 * selections) around each codec's cursor, gather, fetch and filter.
 *
 * Design notes: the chooser runs every applicable codec's analyze over one
 * shared analysis (ce_stats) and keeps the smallest exact size; equal sizes
 * go to the codec with the lower cc_speed (faster decode). Codecs only see
 * filled values; NULL flags are applied here, so every codec gets NULLs
 * right in one place.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <strings.h>

#include "column/column_int.h"

static const ce_codec_t *const codecs[CE_COUNT_] = {
  [CE_RAW] = &ce_raw_codec, [CE_RLE] = &ce_rle_codec, [CE_DELTA_RLE] = &ce_delta_rle_codec,
  [CE_DICT] = &ce_dict_codec, [CE_DICT_RLE] = &ce_dict_rle_codec, [CE_FOR] = &ce_for_codec,
  [CE_DELTA] = &ce_delta_codec, [CE_PREFIX] = &ce_prefix_codec,
};

const ce_codec_t *ce_codec(int id)
{
  return id >= 0 && id < CE_COUNT_ ? codecs[id] : NULL;
}

const char *ce_name(int id)
{
  return id >= 0 && id < CE_COUNT_ ? codecs[id]->cc_name : "auto";
}

int ce_id_by_name(const char *name)
{
  for (int i = 0; i < CE_COUNT_; i++)
    if (name && strcasecmp(name, codecs[i]->cc_name) == 0)
      return i;
  return -1;
}

/* -2: not read from the environment yet. Only tests set it; atomic so
 * that encoders racing on the first read stay defined. */
static _Atomic int forced = -2;

void ce_force_codec(int id)
{
  forced = id >= 0 && id < CE_COUNT_ ? id : CE_AUTO;
}

int ce_forced_codec(void)
{
  if (forced == -2) {
    const char *env = getenv("CZ_FORCE_CODEC");
    int id = env && *env ? ce_id_by_name(env) : -1;
    if (env && *env && id < 0)
      log_warn("CZ_FORCE_CODEC=%s names no codec; choosing by size", env);
    forced = id >= 0 ? id : CE_AUTO;
  }
  return forced;
}

/* ---- encoding ------------------------------------------------------------- */

int ce_analyze(const vec_t *v, int start, int n, arena_t *scratch, int64_t sizes[CE_COUNT_], err_t *e)
{
  ce_stats_t st;
  if (ce_stats_build(&st, v, start, n, scratch, e) != CZ_OK)
    return CZ_ERR;
  size_t hdr = ce_hdr_size(&st);
  for (int i = 0; i < CE_COUNT_; i++) {
    int64_t b = codecs[i]->cc_analyze(&st);
    sizes[i] = b < 0 || b > UINT32_MAX ? -1 : b + (int64_t)hdr;
  }
  return CZ_OK;
}

int ce_encode(const vec_t *v, int start, int n, int want, arena_t *out_arena, arena_t *scratch,
              uint8_t **out, size_t *out_len, err_t *e)
{
  ce_stats_t st;
  if (ce_stats_build(&st, v, start, n, scratch, e) != CZ_OK)
    return CZ_ERR;
  int64_t sizes[CE_COUNT_];
  for (int i = 0; i < CE_COUNT_; i++) {
    sizes[i] = codecs[i]->cc_analyze(&st);
    if (sizes[i] > UINT32_MAX)
      sizes[i] = -1;
  }
  if (want == CE_AUTO)
    want = ce_forced_codec();
  if (want != CE_AUTO && (want < 0 || want >= CE_COUNT_))
    return err_set(e, SQLSTATE_INTERNAL, "column: no codec %d", want);
  if (want == CE_AUTO || sizes[want] < 0) {
    want = CE_RAW;
    for (int i = 0; i < CE_COUNT_; i++)
      if (sizes[i] >= 0 && (sizes[i] < sizes[want] ||
                            (sizes[i] == sizes[want] && codecs[i]->cc_speed < codecs[want]->cc_speed)))
        want = i;
  }
  if (sizes[want] < 0)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "column: segment of %d rows is too large to encode", n);
  size_t hdr = ce_hdr_size(&st), body = (size_t)sizes[want];
  uint8_t *o = arena_alloc(out_arena, hdr + body + 1);
  size_t h = ce_hdr_write(o, &st, want, body);
  size_t b = codecs[want]->cc_encode(&st, o + h, scratch);
  if (h != hdr || b != body)
    return err_set(e, SQLSTATE_INTERNAL, "column: codec %s wrote %zu bytes, announced %zu",
                   codecs[want]->cc_name, b, body);
  *out = o;
  *out_len = h + b;
  return CZ_OK;
}

/* ---- cursors -------------------------------------------------------------- */

int ce_cursor_open(ce_cursor_t *c, const uint8_t *buf, size_t len, arena_t *a, err_t *e)
{
  ce_hdr_t h;
  memset(c, 0, sizeof(*c));
  if (ce_hdr_parse(buf, len, &h, e) != CZ_OK)
    return CZ_ERR;
  c->c_codec = codecs[h.h_codec];
  c->c_buf = buf;
  c->c_n = h.h_n;
  c->c_phys = h.h_phys;
  c->c_nulls = h.h_nulls;
  c->c_body = h.h_body;
  c->c_body_len = h.h_body_len;
  c->c_arena = a;
  return c->c_codec->cc_open(c, e);
}

static int check_vec(const ce_cursor_t *c, const vec_t *v, int off, uint32_t n, err_t *e)
{
  if (ty_phys(v->v_type.t_id) != c->c_phys)
    return ce_corrupt(e, "value kind differs from the column's");
  if (off < 0 || (uint64_t)off + n > (uint64_t)(v->v_cap < 0 ? 0 : v->v_cap))
    return err_set(e, SQLSTATE_INTERNAL, "column: vector of %d rows cannot take %u at %d", v->v_cap, n, off);
  return CZ_OK;
}

static void set_nulls(const ce_cursor_t *c, uint32_t pos, uint32_t n, uint8_t *dst)
{
  if (!c->c_nulls) {
    memset(dst, 0, n);
    return;
  }
  for (uint32_t i = 0; i < n; i++)
    dst[i] = (c->c_nulls[(pos + i) >> 3] >> ((pos + i) & 7)) & 1;
}

int ce_cursor_read(ce_cursor_t *c, uint32_t n, vec_t *v, int off, err_t *e)
{
  if (n > c->c_n - c->c_pos)
    return ce_corrupt(e, "read past the last row");
  if (check_vec(c, v, off, n, e) != CZ_OK)
    return CZ_ERR;
  if (n == 0)
    return CZ_OK;
  uint32_t pos = c->c_pos;
  if (c->c_codec->cc_read(c, n, v, off, e) != CZ_OK)
    return CZ_ERR;
  set_nulls(c, pos, n, v->v_null + off);
  return CZ_OK;
}

int ce_cursor_skip(ce_cursor_t *c, uint32_t n, err_t *e)
{
  if (n > c->c_n - c->c_pos)
    return ce_corrupt(e, "skip past the last row");
  return n ? c->c_codec->cc_skip(c, n, e) : CZ_OK;
}

uint32_t ce_cursor_run(ce_cursor_t *c, datum_t *val)
{
  if (!c->c_codec->cc_run || c->c_pos >= c->c_n)
    return 0;
  return c->c_codec->cc_run(c, val);
}

const char *ce_cursor_keep(ce_cursor_t *c, const char *s, uint32_t len)
{
  if (len == 0)
    return ""; /* never a NULL pointer, even for no bytes */
  if (len > c->c_chunk_left) {
    size_t sz = CZ_MAX((size_t)len, (size_t)65536);
    c->c_chunk = arena_alloc(c->c_arena, sz);
    c->c_chunk_left = sz;
  }
  char *p = c->c_chunk;
  if (len)
    memcpy(p, s, len);
  c->c_chunk += len;
  c->c_chunk_left -= len;
  return p;
}

#define CE_BLOCK 1024u

int ce_read_ints(ce_cursor_t *c, uint32_t n, vec_t *v, int off, ce_read_i64_fn fn, err_t *e)
{
  if (c->c_phys == TP_I64)
    return fn(c, n, v->v_i64 + off, e);
  int64_t tmp[CE_BLOCK];
  for (uint32_t done = 0; done < n;) {
    uint32_t k = CZ_MIN(n - done, CE_BLOCK);
    if (fn(c, k, tmp, e) != CZ_OK)
      return CZ_ERR;
    for (uint32_t i = 0; i < k; i++)
      v->v_bool[off + (int)(done + i)] = (uint8_t)(tmp[i] & 1);
    done += k;
  }
  return CZ_OK;
}

static ty_t phys_type(ty_phys_t p)
{
  static const ty_id_t ids[] = {TY_BOOL, TY_INT8, TY_FLOAT8, TY_NUMERIC, TY_TEXT};
  return ty_plain(ids[p]);
}

int ce_filter_by_read(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t *sel, uint32_t *nout, err_t *e)
{
  vec_t v;
  if (vec_init(&v, c->c_arena, phys_type(c->c_phys), CE_BLOCK, e) != CZ_OK)
    return CZ_ERR;
  uint32_t k = 0;
  for (uint32_t base = 0; base < c->c_n; base += CE_BLOCK) {
    uint32_t m = CZ_MIN(c->c_n - base, CE_BLOCK);
    if (c->c_codec->cc_read(c, m, &v, 0, e) != CZ_OK)
      return CZ_ERR;
    switch (c->c_phys) {
    case TP_I64:
      for (uint32_t i = 0; i < m; i++) {
        sel[k] = base + i;
        k += ce_ipred_match(cp, v.v_i64[i]);
      }
      break;
    case TP_F64:
      for (uint32_t i = 0; i < m; i++) {
        datum_t d = {.d_f64 = v.v_f64[i]};
        sel[k] = base + i;
        k += ce_pred_test(cp, &d);
      }
      break;
    default:
      for (uint32_t i = 0; i < m; i++) {
        datum_t d;
        vec_get(&v, (int)i, &d);
        sel[k] = base + i;
        k += ce_pred_test(cp, &d);
      }
      break;
    }
  }
  *nout = k;
  return CZ_OK;
}

/* ---- segment-level calls -------------------------------------------------- */

int ce_decode(const uint8_t *buf, size_t len, vec_t *v, int off, arena_t *a, err_t *e)
{
  ce_cursor_t c;
  if (ce_cursor_open(&c, buf, len, a, e) != CZ_OK)
    return CZ_ERR;
  return ce_cursor_read(&c, c.c_n, v, off, e);
}

static int check_sel(const uint32_t *sel, uint32_t nsel, uint32_t n, err_t *e)
{
  for (uint32_t i = 0; i < nsel; i++)
    if (sel[i] >= n || (i && sel[i] <= sel[i - 1]))
      return err_set(e, SQLSTATE_INTERNAL, "column: selection not ascending within %u rows", n);
  return CZ_OK;
}

int ce_decode_sel(const uint8_t *buf, size_t len, const uint32_t *sel, uint32_t nsel, vec_t *v, int off,
                  arena_t *a, err_t *e)
{
  ce_cursor_t c;
  if (ce_cursor_open(&c, buf, len, a, e) != CZ_OK || check_sel(sel, nsel, c.c_n, e) != CZ_OK ||
      check_vec(&c, v, off, nsel, e) != CZ_OK)
    return CZ_ERR;
  if (c.c_codec->cc_gather) {
    if (c.c_codec->cc_gather(&c, sel, nsel, v, off, e) != CZ_OK)
      return CZ_ERR;
  } else {
    for (uint32_t i = 0; i < nsel; i++) {
      if ((sel[i] > c.c_pos && c.c_codec->cc_skip(&c, sel[i] - c.c_pos, e) != CZ_OK) ||
          c.c_codec->cc_read(&c, 1, v, off + (int)i, e) != CZ_OK)
        return CZ_ERR;
    }
  }
  for (uint32_t i = 0; i < nsel; i++)
    v->v_null[off + (int)i] = ce_is_null(c.c_nulls, sel[i]);
  return CZ_OK;
}

int ce_fetch(const uint8_t *buf, size_t len, uint32_t pos, datum_t *out, arena_t *a, err_t *e)
{
  ce_cursor_t c;
  memset(out, 0, sizeof(*out));
  if (ce_cursor_open(&c, buf, len, a, e) != CZ_OK)
    return CZ_ERR;
  if (pos >= c.c_n)
    return err_set(e, SQLSTATE_INTERNAL, "column: row %u of a %u-row segment", pos, c.c_n);
  if (ce_is_null(c.c_nulls, pos)) {
    out->d_null = true;
    return CZ_OK;
  }
  if (c.c_codec->cc_fetch)
    return c.c_codec->cc_fetch(&c, pos, out, e);
  datum_t slot;
  uint8_t nul = 0;
  vec_t v = {.v_type = phys_type(c.c_phys), .v_cap = 1, .v_null = &nul, .v_data = &slot.d_num};
  if ((pos && c.c_codec->cc_skip(&c, pos, e) != CZ_OK) || c.c_codec->cc_read(&c, 1, &v, 0, e) != CZ_OK)
    return CZ_ERR;
  vec_get(&v, 0, out);
  return CZ_OK;
}

/* A sparse input selection (late materialization: most rows already
 * gone): decode just those rows and test them, instead of the segment. */
static int filter_few(ce_cursor_t *c, const ce_cpred_t *cp, const uint32_t *sel_in, uint32_t nsel_in,
                      uint32_t *sel_out, uint32_t *nout, err_t *e)
{
  vec_t v;
  if (vec_init(&v, c->c_arena, phys_type(c->c_phys), (int)nsel_in, e) != CZ_OK)
    return CZ_ERR;
  if (c->c_codec->cc_gather) {
    if (c->c_codec->cc_gather(c, sel_in, nsel_in, &v, 0, e) != CZ_OK)
      return CZ_ERR;
  } else {
    for (uint32_t i = 0; i < nsel_in; i++)
      if ((sel_in[i] > c->c_pos && c->c_codec->cc_skip(c, sel_in[i] - c->c_pos, e) != CZ_OK) ||
          c->c_codec->cc_read(c, 1, &v, (int)i, e) != CZ_OK)
        return CZ_ERR;
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < nsel_in; i++) {
    if (ce_is_null(c->c_nulls, sel_in[i]))
      continue;
    datum_t d;
    vec_get(&v, (int)i, &d);
    sel_out[k] = sel_in[i];
    k += ce_pred_test(cp, &d);
  }
  *nout = k;
  return CZ_OK;
}

int ce_filter(const uint8_t *buf, size_t len, const ce_pred_t *p, const uint32_t *sel_in, uint32_t nsel_in,
              uint32_t *sel_out, uint32_t *nout, arena_t *scratch, err_t *e)
{
  ce_cursor_t c;
  ce_cpred_t cp;
  *nout = 0;
  if (ce_cursor_open(&c, buf, len, scratch, e) != CZ_OK ||
      ce_pred_compile(&cp, p, c.c_phys, scratch, e) != CZ_OK)
    return CZ_ERR;
  if (sel_in && check_sel(sel_in, nsel_in, c.c_n, e) != CZ_OK)
    return CZ_ERR;
  uint32_t k = 0;
  if (p->p_op == CE_IS_NULL || p->p_op == CE_NOT_NULL) {
    bool want = p->p_op == CE_IS_NULL;
    uint32_t m = sel_in ? nsel_in : c.c_n;
    for (uint32_t i = 0; i < m; i++) {
      uint32_t r = sel_in ? sel_in[i] : i;
      sel_out[k] = r;
      k += ce_is_null(c.c_nulls, r) == want;
    }
    *nout = k;
    return CZ_OK;
  }
  if (cp.cp_none || c.c_n == 0)
    return CZ_OK;
  if (sel_in && nsel_in < c.c_n / 4)
    return filter_few(&c, &cp, sel_in, nsel_in, sel_out, nout, e);
  uint32_t *all = sel_in ? arena_alloc(scratch, sizeof(uint32_t) * c.c_n) : sel_out;
  uint32_t m = 0;
  if (c.c_codec->cc_filter(&c, &cp, all, &m, e) != CZ_OK)
    return CZ_ERR;
  if (m > c.c_n)
    return err_set(e, SQLSTATE_INTERNAL, "column: codec %s selected too many rows", c.c_codec->cc_name);
  if (c.c_nulls) {
    for (uint32_t i = 0; i < m; i++) {
      all[k] = all[i];
      k += !ce_is_null(c.c_nulls, all[i]);
    }
    m = k;
  }
  if (!sel_in) {
    *nout = m;
    return CZ_OK;
  }
  k = 0;
  for (uint32_t i = 0, j = 0; i < m && j < nsel_in;) {
    if (all[i] < sel_in[j]) {
      i++;
    } else if (all[i] > sel_in[j]) {
      j++;
    } else {
      sel_out[k++] = all[i];
      i++;
      j++;
    }
  }
  *nout = k;
  return CZ_OK;
}

int ce_decode_const(const uint8_t *buf, size_t len, bool *is_const, datum_t *val, arena_t *a, err_t *e)
{
  ce_cursor_t c;
  *is_const = false;
  memset(val, 0, sizeof(*val));
  if (ce_cursor_open(&c, buf, len, a, e) != CZ_OK)
    return CZ_ERR;
  ce_hdr_t h;
  if (ce_hdr_parse(buf, len, &h, e) != CZ_OK)
    return CZ_ERR;
  if (c.c_n > 0 && h.h_nnull == c.c_n) {
    *is_const = true;
    val->d_null = true;
    return CZ_OK;
  }
  if (c.c_n == 0 || h.h_nnull > 0 || !c.c_const)
    return CZ_OK;
  *is_const = true;
  return ce_fetch(buf, len, 0, val, a, e);
}

int ce_decode_dict(const uint8_t *buf, size_t len, bool *avail, vec_t *dict, uint32_t **codes, arena_t *a,
                   err_t *e)
{
  ce_cursor_t c;
  *avail = false;
  if (ce_cursor_open(&c, buf, len, a, e) != CZ_OK)
    return CZ_ERR;
  if (!c.c_codec->cc_dict)
    return CZ_OK;
  ce_vb_t vb;
  uint32_t *cd = arena_alloc(a, sizeof(uint32_t) * (c.c_n ? c.c_n : 1));
  if (c.c_codec->cc_dict(&c, &vb, cd, e) != CZ_OK)
    return CZ_ERR;
  if (vec_init(dict, a, phys_type(c.c_phys), (int)vb.vb_k, e) != CZ_OK)
    return CZ_ERR;
  for (uint32_t i = 0; i < vb.vb_k; i++)
    ce_vb_put(&vb, i, dict, (int)i);
  for (uint32_t i = 0; i < c.c_n; i++)
    if (ce_is_null(c.c_nulls, i))
      cd[i] = UINT32_MAX;
  *codes = cd;
  *avail = true;
  return CZ_OK;
}
