/* ex_eval — the vectored evaluator's entry points (xeval, xeval_filter,
 * xeval_scalar) and the per-node dispatch, constants, columns, parameters
 * and subqueries.
 *
 * Design notes: see exec/EXPR.md. Each call of xe_node computes one node
 * for all selected rows; children are evaluated first for the same rows
 * (or, for CASE, COALESCE, AND and OR, only for the rows that still need
 * them). Results of interior nodes live in temporaries of the per-batch
 * arena (xc_arena), which the caller resets between batches; nothing is
 * allocated per row except the bytes of new strings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "exec/ex_int.h"

int xe_error(const xnode_t *x, err_t *e, const char *sqlstate, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  err_setv(e, sqlstate, fmt, ap);
  va_end(ap);
  if (e && x)
    e->er_pos = x->x_pos;
  return CZ_ERR;
}

vec_t *xe_temp(xe_t *st, ty_t t)
{
  /* Not zeroed (unlike vec_init): a temporary is read only at the rows
   * its producer wrote, the selected ones. */
  static const size_t width[] = {[TP_BOOL] = 1, [TP_I64] = 8, [TP_F64] = 8,
                                 [TP_NUM] = sizeof(num_t), [TP_STR] = sizeof(str_t),
                                 [TP_IV] = sizeof(ty_iv_t)};
  arena_t *a = st->xe_c->xc_arena;
  size_t n = st->xe_n > 0 ? (size_t)st->xe_n : 1;
  vec_t *v = arena_alloc(a, sizeof(*v));
  v->v_type = t;
  v->v_cap = st->xe_n;
  v->v_null = arena_alloc(a, n);
  v->v_data = arena_alloc(a, n * width[ty_phys(t.t_id)]);
  return v;
}

bool xe_safe(const xnode_t *x)
{
  switch (x->x_kind) {
  case X_COL:
  case X_CONST:
    return true;
  case X_OP:
    switch (x->x_op) {
    case XOP_ADD: case XOP_SUB: case XOP_MUL: case XOP_DIV: case XOP_MOD: case XOP_NEG:
    case XOP_CONCAT: case XOP_LIKE: case XOP_NOT_LIKE: case XOP_ILIKE: case XOP_NOT_ILIKE:
      return false;
    default:
      break;
    }
    /* fall through - comparisons and logic are safe when their operands are */
  case X_IN_LIST:
    for (int i = 0; i < x->x_nargs; i++)
      if (!xe_safe(x->x_args[i]))
        return false;
    return true;
  default:
    return false;
  }
}

int *xe_sel_alloc(xe_t *st)
{
  return arena_alloc(st->xe_c->xc_arena, sizeof(int) * (size_t)(st->xe_n > 0 ? st->xe_n : 1));
}

void xe_copy_rows(vec_t *dst, const vec_t *src, const int *sel, int nsel)
{
  switch (ty_phys(src->v_type.t_id)) {
  case TP_BOOL:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = src->v_null[i]; dst->v_bool[i] = src->v_bool[i]; });
    break;
  case TP_I64:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = src->v_null[i]; dst->v_i64[i] = src->v_i64[i]; });
    break;
  case TP_F64:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = src->v_null[i]; dst->v_f64[i] = src->v_f64[i]; });
    break;
  case TP_NUM:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = src->v_null[i]; dst->v_num[i] = src->v_num[i]; });
    break;
  case TP_IV:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = src->v_null[i]; dst->v_iv[i] = src->v_iv[i]; });
    break;
  case TP_STR:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = src->v_null[i]; dst->v_str[i] = src->v_str[i]; });
    break;
  }
}

void xe_fill(vec_t *dst, const datum_t *d, const int *sel, int nsel)
{
  if (d->d_null) {
    XE_FOR(sel, nsel, i, { dst->v_null[i] = 1; });
    return;
  }
  switch (ty_phys(dst->v_type.t_id)) {
  case TP_BOOL:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = 0; dst->v_bool[i] = d->d_bool; });
    break;
  case TP_I64:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = 0; dst->v_i64[i] = d->d_i64; });
    break;
  case TP_F64:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = 0; dst->v_f64[i] = d->d_f64; });
    break;
  case TP_NUM:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = 0; dst->v_num[i] = d->d_num; });
    break;
  case TP_IV:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = 0; dst->v_iv[i] = d->d_iv; });
    break;
  case TP_STR:
    XE_FOR(sel, nsel, i, { dst->v_null[i] = 0; dst->v_str[i] = d->d_str; });
    break;
  }
}

int xe_split(const vec_t *v, const int *sel, int nsel, int *yes, int *no, int *nno)
{
  int ny = 0, nn = 0;
  const uint8_t *nul = v->v_null, *val = v->v_bool;
  if (no) {
    XE_FOR(sel, nsel, i, {
      if (!nul[i] && val[i])
        yes[ny++] = i;
      else
        no[nn++] = i;
    });
    *nno = nn;
  } else {
    XE_FOR(sel, nsel, i, {
      yes[ny] = i;
      ny += !nul[i] & (val[i] != 0); /* branch-free compaction */
    });
  }
  return ny;
}

/* A parameter's value in the node's type (a client may have sent it as
 * another type, e.g. text for an integer parameter). */
static int xe_param(xe_t *st, const xnode_t *x, datum_t *out, err_t *e)
{
  xctx_t *c = st->xe_c;
  if (x->x_index < 0 || x->x_index >= c->xc_nparams || !c->xc_params)
    return xe_error(x, e, SQLSTATE_PROTOCOL_VIOLATION, "there is no parameter $%d", x->x_index + 1);
  const datum_t *d = &c->xc_params[x->x_index];
  ty_t pt = c->xc_param_types ? c->xc_param_types[x->x_index] : x->x_type;
  if (d->d_null || pt.t_id == x->x_type.t_id || x->x_type.t_id == TY_UNKNOWN) {
    *out = *d;
    return CZ_OK;
  }
  if (xcast_datum_ex(pt, d, x->x_type, false, c->xc_arena, out, e) != CZ_OK) {
    if (e && e->er_pos == 0)
      e->er_pos = x->x_pos;
    return CZ_ERR;
  }
  return CZ_OK;
}

int xe_const_cast(xe_t *st, const xnode_t *x, datum_t *out, err_t *e)
{
  const xnode_t *arg = x->x_args[0];
  datum_t in;
  if (arg->x_kind == X_CONST)
    in = arg->x_const;
  else if (xe_param(st, arg, &in, e) != CZ_OK)
    return CZ_ERR;
  if (xcast_datum_ex(arg->x_type, &in, x->x_type, x->x_explicit, st->xe_c->xc_arena, out, e) !=
      CZ_OK) {
    if (e && e->er_pos == 0)
      e->er_pos = x->x_pos;
    return CZ_ERR;
  }
  return CZ_OK;
}

int xe_operand(xe_t *st, const xnode_t *x, const int *sel, int nsel, xe_arg_t *out, err_t *e)
{
  out->a_vec = NULL;
  out->a_const = NULL;
  if (x->x_kind == X_CONST) {
    out->a_const = &x->x_const;
    return CZ_OK;
  }
  if (x->x_kind == X_PARAM) {
    datum_t *d = arena_alloc(st->xe_c->xc_arena, sizeof(*d));
    if (xe_param(st, x, d, e) != CZ_OK)
      return CZ_ERR;
    out->a_const = d;
    return CZ_OK;
  }
  if (x->x_kind == X_CAST && (x->x_args[0]->x_kind == X_CONST || x->x_args[0]->x_kind == X_PARAM)) {
    /* A cast of a constant is a constant: convert it once per batch. */
    datum_t *d = arena_alloc(st->xe_c->xc_arena, sizeof(*d));
    if (xe_const_cast(st, x, d, e) != CZ_OK)
      return CZ_ERR;
    out->a_const = d;
    return CZ_OK;
  }
  return xe_node(st, x, sel, nsel, NULL, &out->a_vec, e);
}

/* X_SUBQ: the query layer computes it row by row (the outer row's values
 * are its parameters); IN gets the left operand's value. */
static int xe_subq(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  xctx_t *c = st->xe_c;
  if (!c->xc_subq)
    return xe_error(x, e, SQLSTATE_INTERNAL, "subquery without an executor");
  xe_arg_t lhs = {NULL, NULL};
  if (x->x_subq_kind == 2 && x->x_nargs > 0 &&
      xe_operand(st, x->x_args[0], sel, nsel, &lhs, e) != CZ_OK)
    return CZ_ERR;
  XE_FOR(sel, nsel, i, {
    datum_t l, r;
    memset(&l, 0, sizeof(l));
    if (lhs.a_vec || lhs.a_const)
      xe_arg_get(&lhs, i, &l);
    if (c->xc_subq(c->xc_qctx, x->x_subq, x->x_subq_kind, st->xe_in, i,
                   x->x_subq_kind == 2 ? &l : NULL,
                   c->xc_arena, &r, e) != CZ_OK) {
      if (e && e->er_pos == 0)
        e->er_pos = x->x_pos;
      return CZ_ERR;
    }
    if (x->x_subq_kind == 2 && x->x_not && !r.d_null)
      r.d_bool = !r.d_bool;
    vec_set(dst, i, &r);
  });
  return CZ_OK;
}

static int xe_op(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  switch (x->x_op) {
  case XOP_AND:
  case XOP_OR:
  case XOP_NOT:
  case XOP_IS_NULL:
  case XOP_IS_NOT_NULL:
  case XOP_IS_TRUE:
  case XOP_IS_NOT_TRUE:
  case XOP_IS_FALSE:
  case XOP_IS_NOT_FALSE:
    return xe_logic(st, x, sel, nsel, dst, e);
  case XOP_EQ:
  case XOP_NE:
  case XOP_LT:
  case XOP_LE:
  case XOP_GT:
  case XOP_GE:
  case XOP_IS_DISTINCT:
  case XOP_IS_NOT_DISTINCT:
    return xe_compare(st, x, sel, nsel, dst, e);
  case XOP_ADD:
  case XOP_SUB:
  case XOP_MUL:
  case XOP_DIV:
  case XOP_MOD:
  case XOP_NEG:
    return xe_arith(st, x, sel, nsel, dst, e);
  case XOP_CONCAT:
  case XOP_LIKE:
  case XOP_NOT_LIKE:
  case XOP_ILIKE:
  case XOP_NOT_ILIKE:
    return xe_strop(st, x, sel, nsel, dst, e);
  }
  return xe_error(x, e, SQLSTATE_INTERNAL, "unknown operator %d", (int)x->x_op);
}

int xe_node(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, vec_t **res,
            err_t *e)
{
  switch (x->x_kind) {
  case X_COL: {
    if (x->x_index < 0 || x->x_index >= st->xe_in->b_ncols)
      return xe_error(x, e, SQLSTATE_INTERNAL, "column %d is not in the input", x->x_index);
    vec_t *col = &st->xe_in->b_cols[x->x_index];
    if (!dst) {
      *res = col;
      return CZ_OK;
    }
    xe_copy_rows(dst, col, sel, nsel);
    *res = dst;
    return CZ_OK;
  }
  case X_CONST:
  case X_PARAM: {
    if (dst && ty_phys(dst->v_type.t_id) != ty_phys(x->x_type.t_id) &&
        !(x->x_kind == X_CONST && x->x_const.d_null))
      return xe_error(x, e, SQLSTATE_INTERNAL, "expression result type does not match its target");
    vec_t *out = dst ? dst : xe_temp(st, x->x_type);
    datum_t d;
    if (x->x_kind == X_CONST)
      d = x->x_const;
    else if (xe_param(st, x, &d, e) != CZ_OK)
      return CZ_ERR;
    xe_fill(out, &d, sel, nsel);
    *res = out;
    return CZ_OK;
  }
  default:
    break;
  }
  if (dst && ty_phys(dst->v_type.t_id) != ty_phys(x->x_type.t_id))
    /* A binder bug would otherwise write values of one size into a vector
     * of another. */
    return xe_error(x, e, SQLSTATE_INTERNAL, "expression result type does not match its target");
  vec_t *out = dst ? dst : xe_temp(st, x->x_type);
  int rc;
  switch (x->x_kind) {
  case X_OP:
    rc = xe_op(st, x, sel, nsel, out, e);
    break;
  case X_FUNC:
    if (x->x_func && x->x_func->fd_special == XFS_COALESCE)
      rc = xe_coalesce(st, x, sel, nsel, out, e);
    else
      rc = xe_func(st, x, sel, nsel, out, e);
    break;
  case X_CASE:
    rc = xe_case(st, x, sel, nsel, out, e);
    break;
  case X_CAST:
    rc = xe_cast(st, x, sel, nsel, out, e);
    break;
  case X_IN_LIST:
    rc = xe_in_list(st, x, sel, nsel, out, e);
    break;
  case X_SUBQ:
    rc = xe_subq(st, x, sel, nsel, out, e);
    break;
  default:
    rc = xe_error(x, e, SQLSTATE_INTERNAL, "unknown expression node %d", (int)x->x_kind);
    break;
  }
  *res = out;
  return rc;
}

int xc_budget_error(const xctx_t *c, err_t *e)
{
  /* The budget that refused is the arena's (the same as xc_budget while a
   * query runs; none when the planner folds constants). */
  const mem_budget_t *b = c->xc_budget ? c->xc_budget : arena_budget(c->xc_arena);
  if (!b || mem_budget_exceeded(b) != MEM_OVER_LIMIT)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory: the system refused the query more memory");
  return err_set(e, SQLSTATE_OUT_OF_MEMORY, "query needs more than MaxQueryMem (%lld bytes)",
                 (long long)(b->mb_limit > 0 ? b->mb_limit : c->xc_max_mem));
}

void *xc_alloc(xctx_t *c, size_t n, err_t *e)
{
  if (n > XE_MAX_FIELD) {
    err_set(e, SQLSTATE_PROGRAM_LIMIT, "requested length too large");
    return NULL;
  }
  void *p = arena_try_alloc(c->xc_arena, n ? n : 1);
  if (!p)
    xc_budget_error(c, e);
  return p;
}

int xeval(xctx_t *c, const xnode_t *x, const batch_t *in, const int *sel, int nsel, vec_t *out,
          err_t *e)
{
  if (xc_check_interrupt(c, e) != CZ_OK)
    return CZ_ERR;
  xe_t st = {c, in, in->b_n};
  if (!sel)
    nsel = in->b_n;
  vec_t *res;
  return xe_node(&st, x, sel, nsel, out, &res, e);
}

/* A filter over an AND tree narrows the selection conjunct by conjunct,
 * so later conjuncts see only the rows earlier ones kept. */
static int xe_filter(xe_t *st, const xnode_t *x, const int *sel, int nsel, int *sel_out,
                     int *nout, err_t *e)
{
  if (x->x_kind == X_OP && x->x_op == XOP_AND && x->x_nargs == 2) {
    int *mid = xe_sel_alloc(st), nmid;
    if (xe_filter(st, x->x_args[0], sel, nsel, mid, &nmid, e) != CZ_OK)
      return CZ_ERR;
    return xe_filter(st, x->x_args[1], mid, nmid, sel_out, nout, e);
  }
  if (x->x_kind == X_CONST) {
    bool keep = !x->x_const.d_null && x->x_const.d_bool;
    int n = 0;
    if (keep)
      XE_FOR(sel, nsel, i, { sel_out[n++] = i; });
    *nout = n;
    return CZ_OK;
  }
  vec_t *v;
  if (xe_node(st, x, sel, nsel, NULL, &v, e) != CZ_OK)
    return CZ_ERR;
  *nout = xe_split(v, sel, nsel, sel_out, NULL, NULL);
  return CZ_OK;
}

int xeval_filter(xctx_t *c, const xnode_t *x, const batch_t *in, const int *sel, int nsel,
                 int *sel_out, int *nout, err_t *e)
{
  if (xc_check_interrupt(c, e) != CZ_OK)
    return CZ_ERR;
  xe_t st = {c, in, in->b_n};
  if (!sel)
    nsel = in->b_n;
  return xe_filter(&st, x, sel, nsel, sel_out, nout, e);
}

int xeval_scalar(xctx_t *c, const xnode_t *x, datum_t *out, err_t *e)
{
  if (x->x_kind == X_CONST) {
    *out = x->x_const;
    return CZ_OK;
  }
  if (xc_check_interrupt(c, e) != CZ_OK)
    return CZ_ERR;
  batch_t one = {1, 0, NULL};
  xe_t st = {c, &one, 1};
  vec_t *v = xe_temp(&st, x->x_type), *res;
  if (xe_node(&st, x, NULL, 1, v, &res, e) != CZ_OK)
    return CZ_ERR;
  vec_get(res, 0, out);
  return CZ_OK;
}
