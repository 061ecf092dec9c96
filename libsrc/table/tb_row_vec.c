/* tb_row_vec — decoding stored rows straight into a scan's vectors, with
 * the scan's pushed predicates tested on each value as it is read.
 *
 * Design notes (table/README.md, "Decoding into vectors"):
 * - A plan (tb_dplan_t) is built once per scan. Rows with no NULL among
 *   the columns walked and no out-of-line value — every row of a NOT NULL
 *   table — run the plan's step program: unwanted fixed-width columns are
 *   skipped a whole run in one add, unwanted variable ones by their
 *   length, wanted ones read into their vector row; other rows take the
 *   general walk (NULL bitmap per column, references).
 * - A predicate is tested as soon as its column is read and the row is
 *   dropped at the first false one, before the columns after it are read
 *   and before any string is copied out of the page. Integer and NUMERIC
 *   comparisons are prepared for the column (tb_cpred_t) and tested
 *   inline; the rest go through tb_pred_test, which is the executor's
 *   order (tb_pred.c).
 * - Values are read by tb_rowfmt.h's per-kind readers, the same ones the
 *   datum decoder (tb_row.c) uses.
 */
#include <string.h>

#include "table/tb_rowfmt.h"

/* c * 10^up into *out; false on overflow. */
static bool row_rescale(__int128 c, int up, __int128 *out)
{
  for (int i = 0; i < up; i++)
    if (__builtin_mul_overflow(c, (__int128)10, &c))
      return false;
  *out = c;
  return true;
}

static void row_prepare_pred(const tbl_pred_t *pr, ty_t t, uint8_t kind, tb_cpred_t *cp)
{
  static const uint8_t masks[] = {
    [TBP_EQ] = 2, [TBP_NE] = 5, [TBP_LT] = 1, [TBP_LE] = 3, [TBP_GT] = 4, [TBP_GE] = 6,
  };
  cp->cp_fast = TB_CP_GEN;
  cp->cp_op = (uint8_t)pr->tp_op;
  if (pr->tp_op > TBP_GE || pr->tp_nvals != 1)
    return;
  cp->cp_mask = masks[pr->tp_op];
  const datum_t *c = &pr->tp_vals[0];
  if (kind >= TB_DK_I16 && kind <= TB_DK_I64) {
    cp->cp_fast = TB_CP_INT;
    cp->cp_val = c->d_i64;
  } else if (kind == TB_DK_NUM) {
    /* Stored values of a NUMERIC(p,s) column have scale s: the constant at
     * that scale compares with them as integers (exactly, when it has no
     * more digits); a value of another scale takes tb_pred_test. */
    int scale = t.t_prec >= 0 && t.t_scale >= c->d_num.n_scale ? t.t_scale : c->d_num.n_scale;
    if (row_rescale(c->d_num.n_val, scale - c->d_num.n_scale, &cp->cp_val)) {
      cp->cp_fast = TB_CP_NUM;
      cp->cp_scale = (int16_t)scale;
    }
  }
}

int tb_dplan_build(const ty_t *types, int n, const int *cols, int ncols, const tbl_pred_t *preds,
                   int npred, arena_t *a, tb_dplan_t **out, err_t *e)
{
  if (ncols > CAT_MAX_COLUMNS || npred > INT16_MAX)
    return err_set(e, SQLSTATE_INTERNAL, "%d columns asked of a row", ncols);
  tb_dplan_t *dp = arena_zalloc(a, sizeof *dp);
  dp->dp_ntab = n;
  dp->dp_nout = ncols;
  dp->dp_types = types;
  int upto = 0;
  for (int k = 0; k < ncols; k++)
    if (cols[k] >= 0 && cols[k] < n && cols[k] + 1 > upto)
      upto = cols[k] + 1;
  dp->dp_upto = upto;
  dp->dp_kind = arena_alloc(a, (size_t)upto + 1);
  dp->dp_width = arena_alloc(a, (size_t)upto + 1);
  dp->dp_out = arena_alloc(a, sizeof(int16_t) * ((size_t)upto + 1));
  dp->dp_pred = arena_alloc(a, sizeof(int16_t) * ((size_t)upto + 1));
  dp->dp_first = arena_alloc(a, sizeof(int16_t) * ((size_t)ncols + 1));
  dp->dp_pnext = arena_alloc(a, sizeof(int16_t) * ((size_t)npred + 1));
  for (int i = 0; i < upto; i++) {
    dp->dp_kind[i] = row_kind(types[i].t_id);
    dp->dp_width[i] = (uint8_t)row_kind_width(dp->dp_kind[i]);
    dp->dp_out[i] = -1;
    dp->dp_pred[i] = -1;
  }
  for (int k = 0; k < ncols; k++) {
    int c = cols[k];
    if (c < 0 || c >= upto) {
      dp->dp_first[k] = -1;
      dp->dp_outside = true;
      continue;
    }
    if (dp->dp_out[c] < 0)
      dp->dp_out[c] = (int16_t)k;
    else
      dp->dp_repeats = true;
    dp->dp_first[k] = dp->dp_out[c];
  }
  dp->dp_strs = arena_alloc(a, sizeof(int16_t) * ((size_t)ncols + 1));
  for (int i = 0; i < upto; i++)
    if (dp->dp_out[i] >= 0 && dp->dp_kind[i] == TB_DK_STR)
      dp->dp_strs[dp->dp_nstr++] = dp->dp_out[i];
  tbl_pred_t *pm = arena_alloc(a, sizeof *pm * ((size_t)npred + 1));
  dp->dp_cpred = arena_zalloc(a, sizeof *dp->dp_cpred * ((size_t)npred + 1));
  for (int j = npred - 1; j >= 0; j--) {
    pm[j] = preds[j];
    int k = preds[j].tp_out;
    if (k < 0 || k >= ncols)
      return err_set(e, SQLSTATE_INTERNAL, "predicate on column %d of a scan of %d", k, ncols);
    if (dp->dp_first[k] < 0) {
      /* a column past the table's: always NULL */
      dp->dp_pnext[j] = -1;
      continue;
    }
    pm[j].tp_out = dp->dp_first[k];
    int c = cols[k];
    dp->dp_pnext[j] = dp->dp_pred[c];
    dp->dp_pred[c] = (int16_t)j;
    row_prepare_pred(&pm[j], types[c], dp->dp_kind[c], &dp->dp_cpred[j]);
  }
  dp->dp_npred = npred;
  dp->dp_preds = pm;
  /* The no-NULL program: one step per wanted column, one per unwanted
   * variable-width column, one per run of unwanted fixed-width ones. */
  dp->dp_steps = arena_alloc(a, sizeof *dp->dp_steps * ((size_t)upto + 1));
  for (int i = 0; i < upto; i++) {
    tb_dstep_t *last = dp->dp_nsteps ? &dp->dp_steps[dp->dp_nsteps - 1] : NULL;
    int k = dp->dp_out[i];
    if (k < 0 && dp->dp_width[i] && last && last->ds_op == TB_DS_SKIP) {
      last->ds_w = (uint16_t)(last->ds_w + dp->dp_width[i]);
      continue;
    }
    tb_dstep_t *st = &dp->dp_steps[dp->dp_nsteps++];
    memset(st, 0, sizeof *st);
    st->ds_kind = dp->dp_kind[i];
    st->ds_out = -1;
    st->ds_pred = -1;
    if (k < 0) {
      st->ds_op = dp->dp_width[i]                ? TB_DS_SKIP
                  : st->ds_kind == TB_DK_NUM ? TB_DS_SKIPNUM
                  : st->ds_kind == TB_DK_STR ? TB_DS_SKIPSTR
                                             : TB_DS_SKIPV;
      st->ds_w = dp->dp_width[i];
      continue;
    }
    switch (st->ds_kind) {
    case TB_DK_I32: st->ds_op = TB_DS_GET_I32; break;
    case TB_DK_I64: st->ds_op = TB_DS_GET_I64; break;
    case TB_DK_NUM: st->ds_op = TB_DS_GET_NUM; break;
    case TB_DK_STR: st->ds_op = TB_DS_GET_STR; break;
    default: st->ds_op = TB_DS_GET; break;
    }
    st->ds_out = (int16_t)k;
    st->ds_pred = dp->dp_pred[i];
    st->ds_slot = (uint32_t)row_kind_slot(st->ds_kind);
    st->ds_scratch = arena_alloc(a, sizeof *st->ds_scratch);
    if (vec_init(st->ds_scratch, a, types[i], TB_RUN_ROWS, e) != CZ_OK)
      return CZ_ERR;
  }
  dp->dp_bm_full = upto / 8;
  dp->dp_bm_mask = (uint8_t)((1u << (upto & 7)) - 1);
  *out = dp;
  return CZ_OK;
}

/* Whether the non-NULL row r of v passes predicate j. */
static inline bool row_pred_pass(const tb_dplan_t *dp, int j, const vec_t *v, int r)
{
  const tb_cpred_t *cp = &dp->dp_cpred[j];
  if (cp->cp_fast == TB_CP_INT) {
    int64_t x = v->v_i64[r], y = (int64_t)cp->cp_val;
    return (cp->cp_mask >> ((x > y) - (x < y) + 1)) & 1;
  }
  if (cp->cp_fast == TB_CP_NUM && v->v_num[r].n_scale == cp->cp_scale) {
    __int128 x = v->v_num[r].n_val, y = cp->cp_val;
    return (cp->cp_mask >> ((x > y) - (x < y) + 1)) & 1;
  }
  return tb_pred_test(&dp->dp_preds[j], v, r);
}

/* Copies the strings of a row that passed out of the page into a (one
 * block), and gives repeated outputs their first one's value. */
static void row_finish(const tb_dplan_t *dp, vec_t *cols, int r, size_t strbytes, arena_t *a,
                       tb_ref_t *refs, bool has_long)
{
  if (strbytes) {
    char *buf = arena_alloc(a, strbytes);
    for (int j = 0; j < dp->dp_nstr; j++) {
      int k = dp->dp_strs[j];
      if (cols[k].v_null[r])
        continue;
      str_t *s = &cols[k].v_str[r];
      if (s->s_len == 0)
        continue;
      memcpy(buf, s->s_ptr, s->s_len);
      s->s_ptr = buf;
      buf += s->s_len;
    }
  }
  if (!dp->dp_repeats)
    return;
  for (int k = 0; k < dp->dp_nout; k++) {
    int f = dp->dp_first[k];
    if (f < 0 || f == k)
      continue;
    vec_t *v = &cols[k];
    v->v_null[r] = cols[f].v_null[r];
    size_t w = ty_phys_size(ty_phys(v->v_type.t_id));
    memcpy((char *)v->v_data + w * (size_t)r, (const char *)cols[f].v_data + w * (size_t)r, w);
    if (has_long)
      refs[k] = refs[f];
  }
}

/* The step program over a row whose walked columns are all present
 * (bodies from p[o]). Each read checks its bytes against len. */
static int row_decode_steps(const tb_dplan_t *dp, const uint8_t *p, size_t len, size_t o,
                            vec_t *cols, int r, arena_t *a, bool *pass, err_t *e)
{
  size_t strbytes = 0;
  const tb_dstep_t *st = dp->dp_steps, *end = st + dp->dp_nsteps;
  for (; st < end; st++) {
    vec_t *v;
    switch (st->ds_op) {
    case TB_DS_SKIP:
      o += st->ds_w;
      continue;
    case TB_DS_SKIPNUM:
      if (o + 2 > len)
        return row_bad(e);
      o += 2 + (size_t)p[o + 1];
      continue;
    case TB_DS_SKIPSTR:
      if (o < len && p[o] < 0x80) {  /* a one-byte length */
        o += 1 + (size_t)p[o];
        continue;
      }
      if (!row_read_str(p, len, &o, NULL))
        return row_bad(e);
      continue;
    case TB_DS_SKIPV:
      if (!row_read(st->ds_kind, p, len, &o, NULL))
        return row_bad(e);
      continue;
    case TB_DS_GET_I32:
      if (o + 4 > len)
        return row_bad(e);
      v = &cols[st->ds_out];
      v->v_i64[r] = (int32_t)row_le32(p + o);
      o += 4;
      break;
    case TB_DS_GET_I64:
      if (o + 8 > len)
        return row_bad(e);
      v = &cols[st->ds_out];
      v->v_i64[r] = (int64_t)row_le64(p + o);
      o += 8;
      break;
    case TB_DS_GET_NUM:
      v = &cols[st->ds_out];
      if (!row_read_num(p, len, &o, &v->v_num[r]))
        return row_bad(e);
      break;
    case TB_DS_GET_STR:
      v = &cols[st->ds_out];
      if (!row_read_str(p, len, &o, &v->v_str[r]))
        return row_bad(e);
      strbytes += v->v_str[r].s_len;
      break;
    default:
      v = &cols[st->ds_out];
      if (!row_read(st->ds_kind, p, len, &o, (char *)v->v_data + (size_t)r * st->ds_slot))
        return row_bad(e);
      break;
    }
    v->v_null[r] = 0;
    for (int j = st->ds_pred; j >= 0; j = dp->dp_pnext[j])
      if (!row_pred_pass(dp, j, v, r)) {
        *pass = false;
        return CZ_OK;
      }
  }
  if (o > len)
    return row_bad(e);
  if (dp->dp_outside)
    for (int k = 0; k < dp->dp_nout; k++)
      if (dp->dp_first[k] < 0)
        cols[k].v_null[r] = 1;
  row_finish(dp, cols, r, strbytes, a, NULL, false);
  return CZ_OK;
}

int tb_row_decode_vec(const tb_dplan_t *dp, const uint8_t *p, size_t len, batch_t *out, int r,
                      arena_t *a, tb_ref_t *refs, int *nrefs, bool *pass, err_t *e)
{
  *pass = true;
  *nrefs = 0;
  vec_t *cols = out->b_cols;
  int nout = dp->dp_nout;
  int upto0 = dp->dp_upto;
  /* The common row: a one-byte header (fewer than 128 columns, no
   * references), every walked column stored and none of them NULL. */
  if (len > 0 && p[0] < 0x80 && p[0] >= upto0) {
    const uint8_t *bm = p + 1;
    size_t nbm = ((size_t)p[0] + 7) / 8;
    if (1 + nbm > len)
      return row_bad(e);
    bool nulls = dp->dp_bm_mask && (bm[dp->dp_bm_full] & dp->dp_bm_mask);
    for (int b = 0; b < dp->dp_bm_full && !nulls; b++)
      nulls = bm[b] != 0;
    if (!nulls)
      return row_decode_steps(dp, p, len, 1 + nbm, cols, r, a, pass, e);
  }
  row_hdr_t h;
  if (!row_get_header(p, len, &h))
    return row_bad(e);
  uint64_t stored = h.rh_stored;
  bool has_long = h.rh_long;
  size_t bm = h.rh_bm, lbm = h.rh_lbm, o = h.rh_data;
  for (int k = 0; k < nout; k++)
    cols[k].v_null[r] = 1;
  if (has_long)
    for (int k = 0; k < nout; k++)
      refs[k].lr_on = false;
  int upto = upto0 < (int)stored ? upto0 : (int)stored;
  const tbl_pred_t *preds = dp->dp_preds;
  size_t strbytes = 0;
  for (int i = 0; i < upto; i++) {
    int k = dp->dp_out[i];
    if ((p[bm + (size_t)i / 8] >> (i & 7)) & 1) {
      /* NULL: passes IS NULL only */
      for (int j = dp->dp_pred[i]; j >= 0; j = dp->dp_pnext[j])
        if (preds[j].tp_op != TBP_NULL) {
          *pass = false;
          return CZ_OK;
        }
      continue;
    }
    uint8_t kind = dp->dp_kind[i];
    bool ref = has_long && ((p[lbm + (size_t)i / 8] >> (i & 7)) & 1);
    if (ref) {
      if (kind != TB_DK_STR)
        return row_bad(e);
      if (!row_read_ref(p, len, &o, k < 0 ? NULL : &refs[k]))
        return row_bad(e);
      if (k < 0)
        continue;
      cols[k].v_null[r] = 0;
      cols[k].v_str[r].s_ptr = "";
      cols[k].v_str[r].s_len = 0;
      (*nrefs)++;
      continue;  /* its predicates wait for the value */
    }
    if (k < 0) {
      size_t w = dp->dp_width[i];
      if (w) {  /* fixed width: no decoding at all */
        o += w;
        if (o > len)
          return row_bad(e);
      } else if (!row_read(kind, p, len, &o, NULL)) {
        return row_bad(e);
      }
      continue;
    }
    vec_t *v = &cols[k];
    if (!row_read(kind, p, len, &o, (char *)v->v_data + (size_t)r * row_kind_slot(kind)))
      return row_bad(e);
    v->v_null[r] = 0;
    if (kind == TB_DK_STR)
      strbytes += v->v_str[r].s_len;
    for (int j = dp->dp_pred[i]; j >= 0; j = dp->dp_pnext[j])
      if (!row_pred_pass(dp, j, v, r)) {
        *pass = false;
        return CZ_OK;
      }
  }
  /* Predicates on columns past the stored ones see NULLs. */
  if (dp->dp_npred && upto < upto0)
    for (int j = 0; j < dp->dp_npred; j++)
      if (cols[preds[j].tp_out].v_null[r] && preds[j].tp_op != TBP_NULL) {
        *pass = false;
        return CZ_OK;
      }
  row_finish(dp, cols, r, strbytes, a, refs, has_long);
  return CZ_OK;
}

/* ---- a run of rows, one step at a time ------------------------------- */

/* Whether the step program can take the row: a one-byte header, every
 * walked column stored and none of them NULL; *o: where its bodies start. */
static inline bool row_plain(const tb_dplan_t *dp, const uint8_t *p, size_t len, size_t *o)
{
  if (len == 0 || p[0] >= 0x80 || p[0] < dp->dp_upto)
    return false;
  size_t nbm = ((size_t)p[0] + 7) / 8;
  if (1 + nbm > len)
    return false;
  const uint8_t *bm = p + 1;
  if (dp->dp_bm_mask && (bm[dp->dp_bm_full] & dp->dp_bm_mask))
    return false;
  for (int b = 0; b < dp->dp_bm_full; b++)
    if (bm[b])
      return false;
  *o = 1 + nbm;
  return true;
}

/* Reads one step's column of the live rows sel[0..ns) into its scratch
 * vector (run positions); false when a row is malformed. */
static bool row_step_read(const tb_dstep_t *st, const uint8_t *const *vals, const uint16_t *lens,
                          uint32_t *off, const uint16_t *sel, int ns)
{
  vec_t *v = st->ds_scratch;
  switch (st->ds_op) {
  case TB_DS_GET_I32:
    for (int j = 0; j < ns; j++) {
      int i = sel[j];
      if (off[i] + 4 > lens[i])
        return false;
      v->v_i64[i] = (int32_t)row_le32(vals[i] + off[i]);
      off[i] += 4;
    }
    return true;
  case TB_DS_GET_I64:
    for (int j = 0; j < ns; j++) {
      int i = sel[j];
      if (off[i] + 8 > lens[i])
        return false;
      v->v_i64[i] = (int64_t)row_le64(vals[i] + off[i]);
      off[i] += 8;
    }
    return true;
  case TB_DS_GET_NUM:
    for (int j = 0; j < ns; j++) {
      int i = sel[j];
      size_t o = off[i];
      if (!row_read_num(vals[i], lens[i], &o, &v->v_num[i]))
        return false;
      off[i] = (uint32_t)o;
    }
    return true;
  case TB_DS_GET_STR:
    for (int j = 0; j < ns; j++) {
      int i = sel[j];
      size_t o = off[i];
      if (!row_read_str(vals[i], lens[i], &o, &v->v_str[i]))
        return false;
      off[i] = (uint32_t)o;
    }
    return true;
  default:
    for (int j = 0; j < ns; j++) {
      int i = sel[j];
      size_t o = off[i];
      if (!row_read(st->ds_kind, vals[i], lens[i], &o, (char *)v->v_data + (size_t)i * st->ds_slot))
        return false;
      off[i] = (uint32_t)o;
    }
    return true;
  }
}

/* Moves the kept rows sel[0..ns) of each output's scratch vector to rows
 * r0.. of out; strings leave the page for one block of a per column. */
static void row_put_kept(const tb_dplan_t *dp, const uint16_t *sel, int ns, vec_t *cols, int r0,
                         arena_t *a)
{
  const tb_dstep_t *st = dp->dp_steps, *end = st + dp->dp_nsteps;
  for (; st < end; st++) {
    if (st->ds_op < TB_DS_GET_I32)
      continue;
    const vec_t *v = st->ds_scratch;
    vec_t *o = &cols[st->ds_out];
    memset(o->v_null + r0, 0, (size_t)ns);
    if (st->ds_slot == sizeof(int64_t)) {
      for (int j = 0; j < ns; j++)
        o->v_i64[r0 + j] = v->v_i64[sel[j]];
    } else if (st->ds_slot == 16) {
      /* num_t, str_t: a fixed size, so each copy is two moves, not a call */
      for (int j = 0; j < ns; j++)
        memcpy((char *)o->v_data + (size_t)(r0 + j) * 16,
               (const char *)v->v_data + (size_t)sel[j] * 16, 16);
    } else {
      size_t w = st->ds_slot;
      for (int j = 0; j < ns; j++)
        memcpy((char *)o->v_data + (size_t)(r0 + j) * w,
               (const char *)v->v_data + (size_t)sel[j] * w, w);
    }
    if (st->ds_kind != TB_DK_STR)
      continue;
    size_t bytes = 0;
    for (int j = 0; j < ns; j++)
      bytes += o->v_str[r0 + j].s_len;
    if (!bytes)
      continue;
    char *buf = arena_alloc(a, bytes);
    for (int j = 0; j < ns; j++) {
      str_t *s = &o->v_str[r0 + j];
      if (!s->s_len)
        continue;
      if (s->s_len <= 8) {
        /* flags and codes (TPC-H's l_returnflag): a call per byte costs
         * more than the bytes */
        for (uint32_t k = 0; k < s->s_len; k++)
          buf[k] = s->s_ptr[k];
      } else {
        memcpy(buf, s->s_ptr, s->s_len);
      }
      s->s_ptr = buf;
      buf += s->s_len;
    }
  }
  if (dp->dp_outside || dp->dp_repeats)
    for (int j = 0; j < ns; j++) {
      if (dp->dp_outside)
        for (int k = 0; k < dp->dp_nout; k++)
          if (dp->dp_first[k] < 0)
            cols[k].v_null[r0 + j] = 1;
      row_finish(dp, cols, r0 + j, 0, a, NULL, false);
    }
}

/* Keeps the rows of sel[0..ns) of the scratch vector v that pass
 * predicate j (branch-free loops for the prepared comparisons); how many. */
static int row_filter(const tb_dplan_t *dp, int j, const vec_t *v, uint16_t *sel, int ns)
{
  const tb_cpred_t *cp = &dp->dp_cpred[j];
  unsigned mask = cp->cp_mask;
  int w = 0;
  if (cp->cp_fast == TB_CP_INT) {
    int64_t y = (int64_t)cp->cp_val;
    for (int k = 0; k < ns; k++) {
      int i = sel[k];
      int64_t x = v->v_i64[i];
      sel[w] = (uint16_t)i;
      w += (mask >> ((x > y) - (x < y) + 1)) & 1;
    }
    return w;
  }
  if (cp->cp_fast == TB_CP_NUM) {
    __int128 y = cp->cp_val;
    for (int k = 0; k < ns; k++) {
      int i = sel[k];
      const num_t *x = &v->v_num[i];
      sel[w] = (uint16_t)i;
      if (CZ_LIKELY(x->n_scale == cp->cp_scale))
        w += (mask >> ((x->n_val > y) - (x->n_val < y) + 1)) & 1;
      else
        w += tb_pred_test(&dp->dp_preds[j], v, i);
    }
    return w;
  }
  for (int k = 0; k < ns; k++) {
    int i = sel[k];
    sel[w] = (uint16_t)i;
    w += tb_pred_test(&dp->dp_preds[j], v, i);
  }
  return w;
}

int tb_row_decode_rows(const tb_dplan_t *dp, const uint8_t *const *vals, const uint16_t *lens,
                       int n, batch_t *out, int r0, int room, arena_t *a, int *consumed,
                       int *produced, err_t *e)
{
  uint32_t off[TB_RUN_ROWS];
  uint16_t sel[TB_RUN_ROWS];
  *consumed = *produced = 0;
  if (n > TB_RUN_ROWS)
    n = TB_RUN_ROWS;
  int m = 0;
  for (; m < n; m++) {
    size_t o;
    if (!row_plain(dp, vals[m], lens[m], &o))
      break;
    off[m] = (uint32_t)o;
    sel[m] = (uint16_t)m;
  }
  n = m;
  if (n == 0 || room <= 0)
    return CZ_OK;
  int ns = n;  /* live rows: sel[0..ns) */
  const tb_dstep_t *st = dp->dp_steps, *end = st + dp->dp_nsteps;
  for (; st < end && ns > 0; st++) {
    switch (st->ds_op) {
    case TB_DS_SKIP:
      for (int j = 0; j < ns; j++)
        off[sel[j]] += st->ds_w;
      continue;
    case TB_DS_SKIPNUM:
      for (int j = 0; j < ns; j++) {
        int i = sel[j];
        if (off[i] + 2 > lens[i])
          return row_bad(e);
        off[i] += 2 + (uint32_t)vals[i][off[i] + 1];
      }
      continue;
    case TB_DS_SKIPSTR:
      for (int j = 0; j < ns; j++) {
        int i = sel[j];
        const uint8_t *p = vals[i];
        if (off[i] < lens[i] && p[off[i]] < 0x80) {
          off[i] += 1 + (uint32_t)p[off[i]];
          continue;
        }
        size_t o = off[i];
        if (!row_read_str(p, lens[i], &o, NULL))
          return row_bad(e);
        off[i] = (uint32_t)o;
      }
      continue;
    case TB_DS_SKIPV:
      for (int j = 0; j < ns; j++) {
        int i = sel[j];
        size_t o = off[i];
        if (!row_read(st->ds_kind, vals[i], lens[i], &o, NULL))
          return row_bad(e);
        off[i] = (uint32_t)o;
      }
      continue;
    default:
      break;
    }
    if (!row_step_read(st, vals, lens, off, sel, ns))
      return row_bad(e);
    /* the column's predicates: keep the rows that pass */
    for (int pj = st->ds_pred; pj >= 0 && ns > 0; pj = dp->dp_pnext[pj])
      ns = row_filter(dp, pj, st->ds_scratch, sel, ns);
  }
  for (int j = 0; j < ns; j++)
    if (off[sel[j]] > lens[sel[j]])
      return row_bad(e);
  /* Out of room: the rows after the last one kept are read again later. */
  *consumed = n;
  if (ns > room) {
    ns = room;
    *consumed = sel[ns - 1] + 1;
  }
  *produced = ns;
  if (ns > 0)
    row_put_kept(dp, sel, ns, out->b_cols, r0, a);
  return CZ_OK;
}
