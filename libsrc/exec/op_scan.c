/* op_scan — reads a stored table (or one of its indexes) through the
 * storage hooks, optionally within bounds on a prefix of the key columns
 * computed per execution (so `pk = $1` is a point lookup), and with the
 * simple predicates the planner pushed (scan_pred_t) handed to the table
 * layer, which tests them while decoding rows. */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/op_rfilter.h"

typedef struct op_scan_s {
  op_t os_op;
  scan_spec_t os_spec;
  const qtable_ops_t *os_ops;   /* the table handle's operations */
  rf_target_t *os_rf;           /* hash joins whose builds filter its rows (op_rfilter.c) */
  int os_align;                 /* split (under a Gather) so that rows equal on the first
                                   os_align key columns share a morsel: a streaming
                                   group-by above sees whole groups per thread; 0 none */
} op_scan_t;

typedef struct scan_run_s {
  opst_t sr_st;
  qscan_t *os_cur;              /* the cursor, NULL when closed */
  bool os_empty;                /* a bound is NULL: no row can match */
  /* runtime filters in this run: rows tested and kept, and whether
   * testing stopped because they kept nearly everything */
  int64_t os_rf_tested, os_rf_kept;
  bool os_rf_off;
  batch_t *os_keep;             /* the batch filled, made once per execution (in its
                                   arena: a scan re-opened per outer row keeps it) */
  int os_dirty;                 /* rows of os_keep the last fill may have written */
} scan_run_t;

/* Rows tested before the filters' worth is judged, and the fraction they
 * must drop to be kept testing. */
#define RF_JUDGE_ROWS 4096
#define RF_USELESS 0.9

static const op_vt_t scan_vt;

/* The pushed predicates' values for this execution. A NULL value makes a
 * comparison unknown for every row (no row), a NULL list item can only
 * turn a miss into unknown (dropped from IN; NOT IN then passes no row). */
static int scan_preds(const op_scan_t *sc, scan_run_t *s, qctx_t *q, qpred_t **out, err_t *e)
{
  const scan_spec_t *sp = &sc->os_spec;
  *out = NULL;
  if (sp->ss_npred == 0)
    return CZ_OK;
  xctx_t xc;
  op_xctx(q, s->sr_st.os_state, &xc);
  qpred_t *qp = arena_alloc(s->sr_st.os_state, sizeof(qpred_t) * (size_t)sp->ss_npred);
  for (int j = 0; j < sp->ss_npred; j++) {
    const scan_pred_t *p = &sp->ss_preds[j];
    datum_t *vals = arena_alloc(s->sr_st.os_state, sizeof(datum_t) * (size_t)(p->sp_nvals + 1));
    int nv = 0;
    for (int i = 0; i < p->sp_nvals; i++) {
      if (xeval_scalar(&xc, p->sp_vals[i], &vals[nv], e) != CZ_OK)
        return CZ_ERR;
      if (!vals[nv].d_null) {
        nv++;
        continue;
      }
      if (p->sp_op != QP_IN)
        s->os_empty = true;  /* x op NULL, x NOT IN (…, NULL): never true */
    }
    if (p->sp_op == QP_IN && nv == 0)
      s->os_empty = true;
    qp[j] = (qpred_t){p->sp_col, p->sp_op, p->sp_rtrim, nv, vals};
  }
  *out = qp;
  return CZ_OK;
}

static int scan_bounds(const op_scan_t *sc, scan_run_t *s, qctx_t *q, qrange_t *r, err_t *e)
{
  const scan_spec_t *sp = &sc->os_spec;
  xctx_t xc;
  op_xctx(q, s->sr_st.os_state, &xc);
  datum_t *low = arena_alloc(s->sr_st.os_state, sizeof(datum_t) * (size_t)(sp->ss_nlow + 1));
  datum_t *high = arena_alloc(s->sr_st.os_state, sizeof(datum_t) * (size_t)(sp->ss_nhigh + 1));
  for (int i = 0; i < sp->ss_nlow; i++) {
    if (xeval_scalar(&xc, sp->ss_low[i], &low[i], e) != CZ_OK)
      return CZ_ERR;
    s->os_empty |= low[i].d_null;  /* key = NULL matches nothing */
    /* a wider integer equal to a smaller key column: out of its range,
     * no row can match */
    ty_id_t kt = sp->ss_key_types ? sp->ss_key_types[i].t_id : TY_UNKNOWN;
    if (!low[i].d_null && sp->ss_low == sp->ss_high &&
        ((kt == TY_INT4 && (low[i].d_i64 < INT32_MIN || low[i].d_i64 > INT32_MAX)) ||
         (kt == TY_INT2 && (low[i].d_i64 < INT16_MIN || low[i].d_i64 > INT16_MAX))))
      s->os_empty = true;
  }
  if (sp->ss_high == sp->ss_low && sp->ss_nhigh == sp->ss_nlow)
    high = low;  /* a lookup: one key, shown to the table layer as such */
  else
    for (int i = 0; i < sp->ss_nhigh; i++) {
      if (xeval_scalar(&xc, sp->ss_high[i], &high[i], e) != CZ_OK)
        return CZ_ERR;
      s->os_empty |= high[i].d_null;
    }
  r->qr_nlow = sp->ss_nlow;
  r->qr_low = low;
  r->qr_low_incl = sp->ss_low_incl;
  r->qr_nhigh = sp->ss_nhigh;
  r->qr_high = high;
  r->qr_high_incl = sp->ss_high_incl;
  return CZ_OK;
}

/* A parallel scan's shared part (op_gather.c): the morsel dispenser over
 * the scan's bounds, made once per execution on the session's thread.
 * Each participant's context finds it keyed by the scan's spec address
 * (an address of the plan that is not the operator's own run state). */
struct scan_par_s {
  qmorsels_t *sp_m;
  bool sp_empty;                /* a bound is NULL: no row */
};

bool op_scan_splittable(const op_t *o)
{
  if (o->o_vt != &scan_vt)
    return false;
  const op_scan_t *sc = (const op_scan_t *)o;
  const qtable_ops_t *t = sc->os_ops;
  return t->qt_scan_split && t->qt_morsels_open && t->qt_scan_open_morsels &&
         !sc->os_spec.ss_point && !sc->os_spec.ss_rowid;
}

int op_scan_morsels(const op_t *o, qctx_t *q, arena_t *a, int n, scan_par_t **out, err_t *e)
{
  const op_scan_t *sc = (const op_scan_t *)o;
  const scan_spec_t *sp = &sc->os_spec;
  scan_par_t *p = arena_zalloc(a, sizeof(*p));
  *out = p;
  /* The bounds are evaluated as scan_open would, here in a run state of
   * the session's context that lives in a. */
  scan_run_t tmp;
  memset(&tmp, 0, sizeof(tmp));
  tmp.sr_st.os_state = a;
  qrange_t r;
  memset(&r, 0, sizeof(r));
  const qrange_t *rp = NULL;
  if (sp->ss_nlow || sp->ss_nhigh) {
    if (scan_bounds(sc, &tmp, q, &r, e) != CZ_OK)
      return CZ_ERR;
    if (tmp.os_empty) {
      p->sp_empty = true;
      return CZ_OK;
    }
    rp = &r;
  }
  if (sc->os_align > 0) {
    r.qr_align = sc->os_align;
    rp = &r;
  }
  qsplit_t *split;
  int nout = 0;
  if (sc->os_ops->qt_scan_split(q, sp->ss_table, sp->ss_index, rp, n, a, &split, &nout, e) != CZ_OK)
    return CZ_ERR;
  return sc->os_ops->qt_morsels_open(q, sp->ss_table, split, a, &p->sp_m, e);
}

void op_scan_set_align(op_t *o, int nkeys)
{
  op_scan_t *sc = (op_scan_t *)o;
  sc->os_align = sc->os_spec.ss_nfixed + nkeys;
}

bool op_scan_aligned(const op_t *o)
{
  return o->o_vt == &scan_vt && ((const op_scan_t *)o)->os_align > 0;
}

void *op_scan_table(const op_t *o)
{
  return o->o_vt == &scan_vt ? ((const op_scan_t *)o)->os_spec.ss_table : NULL;
}

void op_scan_use_morsels(const op_t *o, qctx_t *w, scan_par_t *p)
{
  const op_scan_t *sc = (const op_scan_t *)o;
  scan_par_t **slot = qexec_state(w, &sc->os_spec, sizeof(scan_par_t *), true, NULL);
  *slot = p;
}

static int scan_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_scan_t *sc = (const op_scan_t *)o;
  scan_run_t *s = (scan_run_t *)st;
  const scan_spec_t *sp = &sc->os_spec;
  s->os_cur = NULL;
  s->os_empty = false;
  s->os_rf_tested = s->os_rf_kept = 0;
  s->os_rf_off = false;
  scan_par_t **par = qexec_state(q, &sc->os_spec, 0, false, NULL);
  if (par && *par) {
    /* One of a Gather's participants: rows from the shared dispenser. */
    if ((*par)->sp_empty)
      return CZ_OK;
    qpred_t *preds;
    if (scan_preds(sc, s, q, &preds, e) != CZ_OK)
      return CZ_ERR;
    if (s->os_empty)
      return CZ_OK;
    return sc->os_ops->qt_scan_open_morsels(q, sp->ss_table, (*par)->sp_m, sp->ss_cols,
                                           sp->ss_ncols, preds, sp->ss_npred, sp->ss_rowid,
                                           st->os_state, &s->os_cur, e);
  }
  qrange_t r = {.qr_backward = sp->ss_backward};
  const qrange_t *rp = sp->ss_backward ? &r : NULL;
  if (sp->ss_nlow || sp->ss_nhigh) {
    if (scan_bounds(sc, s, q, &r, e) != CZ_OK)
      return CZ_ERR;
    if (s->os_empty)
      return CZ_OK;
    rp = &r;
  }
  qpred_t *preds;
  if (scan_preds(sc, s, q, &preds, e) != CZ_OK)
    return CZ_ERR;
  if (s->os_empty)
    return CZ_OK;
  return sc->os_ops->qt_scan_open(q, sp->ss_table, sp->ss_index, sp->ss_cols, sp->ss_ncols, rp,
                                 preds, sp->ss_npred, sp->ss_rowid, st->os_state, &s->os_cur, e);
}

/* Drops from b the rows the runtime filters rule out: *sel the rows kept
 * (NULL: all), the count returned. */
static int scan_rfilter(const op_scan_t *sc, scan_run_t *s, qctx_t *q, batch_t *b,
                        const int **sel)
{
  *sel = NULL;
  if (!sc->os_rf || s->os_rf_off)
    return b->b_n;
  int *keep = arena_alloc(s->sr_st.os_batch, sizeof(int) * (size_t)(b->b_n + 1));
  for (int i = 0; i < b->b_n; i++)
    keep[i] = i;
  int n = rf_filter(sc->os_rf, q, b, b->b_n, keep, s->sr_st.os_batch);
  s->os_rf_tested += b->b_n;
  s->os_rf_kept += n;
  if (s->os_rf_tested >= RF_JUDGE_ROWS && s->os_rf_kept > RF_USELESS * (double)s->os_rf_tested)
    s->os_rf_off = true;
  if (n < b->b_n)
    *sel = keep;
  return n;
}

/* The batch a fill writes into: made (zeroed) once per execution, then
 * reused with the rows the last fill wrote cleared again, so a storage
 * sees what a fresh batch would show (a cell it does not write reads as
 * 0 / empty) at a cost that follows the rows returned, not VectorSize. */
static batch_t *scan_batch(const op_t *o, scan_run_t *s, qctx_t *q, err_t *e)
{
  batch_t *b = s->os_keep;
  if (!b || (o->o_ncols > 0 && b->b_cols[0].v_cap < q->q_vector_size)) {
    s->os_keep = batch_create(qexec_arena(q), o->o_ncols, o->o_types, q->q_vector_size, e);
    s->os_dirty = 0;
    return s->os_keep;
  }
  int n = s->os_dirty;
  for (int c = 0; c < b->b_ncols && n > 0; c++) {
    vec_t *v = &b->b_cols[c];
    memset(v->v_null, 0, (size_t)n);
    memset(v->v_data, 0, (size_t)n * ty_phys_size(ty_phys(v->v_type.t_id)));
  }
  s->os_dirty = 0;
  b->b_n = 0;
  return b;
}

static int scan_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_scan_t *sc = (const op_scan_t *)o;
  scan_run_t *s = (scan_run_t *)st;
  for (;;) {
    if (!s->os_cur)
      return CZ_OK;
    /* A point lookup returns at most one row: no need for a full batch. */
    batch_t *b = sc->os_spec.ss_point ? batch_create(st->os_batch, o->o_ncols, o->o_types, 1, e)
                                     : scan_batch(o, s, q, e);
    if (!b)
      return CZ_ERR;
    int rc = sc->os_ops->qt_scan_next(q, s->os_cur, b, st->os_batch, e);
    if (!sc->os_spec.ss_point) /* a rejected row may sit past the last one */
      s->os_dirty = rc != CZ_OK || b->b_n >= q->q_vector_size ? q->q_vector_size : b->b_n + 1;
    if (rc != CZ_OK)
      return CZ_ERR;
    if (b->b_n == 0) {
      sc->os_ops->qt_scan_close(q, s->os_cur);
      s->os_cur = NULL;
      return CZ_OK;
    }
    const int *sel;
    int n = scan_rfilter(sc, s, q, b, &sel);
    if (n == 0) {
      /* every row filtered out: the next batch, its strings in a fresh
       * batch arena (op_next resets it only per call) */
      if (op_check_cancel(q, e) != CZ_OK)
        return CZ_ERR;
      arena_reset(st->os_batch);
      continue;
    }
    out->ob_b = b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
}

static void scan_close(const op_t *o, opst_t *st, qctx_t *q)
{
  const op_scan_t *sc = (const op_scan_t *)o;
  scan_run_t *s = (scan_run_t *)st;
  if (s->os_cur) {
    sc->os_ops->qt_scan_close(q, s->os_cur);
    s->os_cur = NULL;
  }
}

/* A pushed value as EXPLAIN shows it: a constant's text, $n, or (expr). */
static char *value_text(const xnode_t *x, arena_t *a)
{
  while (x->x_kind == X_CAST && !x->x_explicit)
    x = x->x_args[0];
  if (x->x_kind == X_PARAM)
    return arena_sprintf(a, "$%d", x->x_index + 1);
  if (x->x_kind != X_CONST)
    return arena_strdup(a, "(expr)");
  if (x->x_const.d_null)
    return arena_strdup(a, "NULL");
  size_t n = ty_text_max(x->x_type, &x->x_const);
  char *buf = arena_alloc(a, n + 1);
  int w = ty_format_text(x->x_type, &x->x_const, buf, n + 1);
  buf[w < 0 ? 0 : w] = 0;
  ty_phys_t p = ty_phys(x->x_type.t_id);
  return p == TP_STR || (p == TP_I64 && x->x_type.t_id != TY_INT2 && x->x_type.t_id != TY_INT4 &&
                         x->x_type.t_id != TY_INT8)
             ? arena_sprintf(a, "'%s'", buf)
             : buf;
}

static char *pred_text(const scan_pred_t *p, arena_t *a)
{
  static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">="};
  const char *c = p->sp_colname ? p->sp_colname : "?";
  switch (p->sp_op) {
  case QP_NULL:
    return arena_sprintf(a, "%s IS NULL", c);
  case QP_NOT_NULL:
    return arena_sprintf(a, "%s IS NOT NULL", c);
  case QP_IN:
  case QP_NOT_IN: {
    char *t = arena_sprintf(a, "%s %sIN (", c, p->sp_op == QP_NOT_IN ? "NOT " : "");
    for (int i = 0; i < p->sp_nvals; i++)
      t = arena_sprintf(a, "%s%s%s", t, i ? ", " : "", value_text(p->sp_vals[i], a));
    return arena_sprintf(a, "%s)", t);
  }
  default:
    return arena_sprintf(a, "%s %s %s", c, ops[p->sp_op], value_text(p->sp_vals[0], a));
  }
}

static char *scan_detail(const op_t *o, arena_t *a)
{
  const scan_spec_t *sp = &((const op_scan_t *)o)->os_spec;
  char *t = arena_strdup(a, sp->ss_name ? sp->ss_name : "?");
  if (sp->ss_index_name)
    t = arena_sprintf(a, "%s using %s", t, sp->ss_index_name);
  if (sp->ss_column)
    t = arena_sprintf(a, "%s column-wise", t);
  if (sp->ss_nlow && sp->ss_nhigh && sp->ss_nlow == sp->ss_nhigh && sp->ss_low == sp->ss_high)
    t = arena_sprintf(a, "%s (lookup on %d key column%s)", t, sp->ss_nlow,
                      sp->ss_nlow > 1 ? "s" : "");
  else if (sp->ss_nlow || sp->ss_nhigh)
    t = arena_sprintf(a, "%s (range on key prefix)", t);
  if (sp->ss_backward)
    t = arena_sprintf(a, "%s backward", t);
  for (int j = 0; j < sp->ss_npred; j++)
    t = arena_sprintf(a, "%s%s%s", t, j ? " AND " : " pushed: ", pred_text(&sp->ss_preds[j], a));
  if (((const op_scan_t *)o)->os_align > 0)
    t = arena_sprintf(a, "%s, split by %d key column%s", t, ((const op_scan_t *)o)->os_align,
                      ((const op_scan_t *)o)->os_align > 1 ? "s" : "");
  const rf_target_t *rf = ((const op_scan_t *)o)->os_rf;
  if (rf)
    t = arena_sprintf(a, "%s, %s", t, rf_detail(rf, a));
  return t;
}

/* The index's key order (ss_ord) as far as the scan outputs its columns;
 * the equality-bound ones are constant. A parallel scan's morsels come
 * out of order, but only under a Gather, which states no order. */
static void scan_order(const op_t *o, op_order_t *out)
{
  const scan_spec_t *sp = &((const op_scan_t *)o)->os_spec;
  out->oo_n = out->oo_nconst = 0;
  out->oo_unique = false;
  for (int k = 0; k < sp->ss_nord; k++) {
    int at = -1;
    for (int c = 0; c < sp->ss_ncols && at < 0; c++)
      if (sp->ss_cols[c] == sp->ss_ord[k])
        at = c;
    if (k < sp->ss_nfixed) {
      if (at >= 0 && out->oo_nconst < OP_ORDER_MAX)
        out->oo_const[out->oo_nconst++] = at;
      continue;
    }
    if (at < 0 || out->oo_n == OP_ORDER_MAX)
      return;
    out->oo_keys[out->oo_n++] =
        (sort_key_t){.sk_col = at, .sk_desc = sp->ss_backward, .sk_nulls_first = sp->ss_backward};
  }
  out->oo_unique = sp->ss_ord_unique;
}

static const op_vt_t scan_vt = {
    .ov_name = "Scan",
    .ov_open = scan_open,
    .ov_next = scan_next,
    .ov_close = scan_close,
    .ov_detail = scan_detail,
    .ov_run_size = sizeof(scan_run_t),
    .ov_order = scan_order,
};

bool op_is_scan(const op_t *o)
{
  return o->o_vt == &scan_vt;
}

void op_scan_add_rf(op_t *scan, rf_target_t *t)
{
  op_scan_t *sc = (op_scan_t *)scan;
  t->rt_next = sc->os_rf;
  sc->os_rf = t;
}

op_t *op_scan_new(arena_t *a, const scan_spec_t *spec)
{
  op_scan_t *s = arena_zalloc(a, sizeof(*s));
  int n = spec->ss_ncols + (spec->ss_rowid ? 1 : 0);
  ty_t types[n > 0 ? n : 1];
  memcpy(types, spec->ss_types, sizeof(ty_t) * (size_t)spec->ss_ncols);
  if (spec->ss_rowid)
    types[spec->ss_ncols] = ty_plain(TY_BYTEA);
  op_init(&s->os_op, &scan_vt, a, n, types, NULL, NULL);
  s->os_spec = *spec;
  s->os_ops = ((const qtable_t *)spec->ss_table)->qt_ops;
  return &s->os_op;
}
