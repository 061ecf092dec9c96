/* op_filter — keeps the rows for which a condition is TRUE by narrowing
 * the selection vector; the column vectors are passed on untouched. */
#include "exec/exec_int.h"

typedef struct op_filter_s {
  op_t of_op;
  xnode_t *of_cond;
} op_filter_t;

/* A condition that is a constant other than TRUE (the binder folds
 * `x = NULL`, `NULL IS NOT NULL`) passes no row whatever the input: the
 * input is not run at all, as PostgreSQL's one-time filter does, so its
 * run-time errors (a division by zero below) do not happen. */
static bool filter_never(const op_filter_t *f)
{
  const xnode_t *c = f->of_cond;
  return c->x_kind == X_CONST && (c->x_const.d_null || !c->x_const.d_bool);
}

static int filter_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  (void)st;
  if (filter_never((const op_filter_t *)o))
    return CZ_OK;
  return op_open(o->o_in, q, e);
}

static int filter_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_filter_t *f = (const op_filter_t *)o;
  if (filter_never(f))
    return CZ_OK;
  xctx_t xc;
  op_xctx(q, st->os_batch, &xc);
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      return CZ_OK;
    if (in.ob_n == 0)
      continue;
    int *sel = arena_alloc(st->os_batch, sizeof(int) * (size_t)in.ob_n);
    int n = 0;
    if (xeval_filter(&xc, f->of_cond, in.ob_b, in.ob_sel, in.ob_n, sel, &n, e) != CZ_OK)
      return CZ_ERR;
    if (n == 0)
      continue;
    out->ob_b = in.ob_b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
}

static int filter_pass_col(const op_t *o, int col)
{
  (void)o;
  return col;
}

static const op_vt_t filter_vt = {
    .ov_name = "Filter",
    .ov_open = filter_open,
    .ov_next = filter_next,
    .ov_pass_col = filter_pass_col,
    .ov_order = op_order_pass,
};

op_t *op_filter_new(arena_t *a, op_t *in, xnode_t *cond)
{
  op_filter_t *f = arena_zalloc(a, sizeof(*f));
  op_init(&f->of_op, &filter_vt, a, in->o_ncols, in->o_types, in, NULL);
  f->of_cond = cond;
  return &f->of_op;
}

const xnode_t *op_filter_cond(const op_t *o)
{
  return o->o_vt == &filter_vt ? ((const op_filter_t *)o)->of_cond : NULL;
}
