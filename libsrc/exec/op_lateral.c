/* op_lateral — a join whose right side is a LATERAL subquery or function:
 * it is run again for every left row, with that row's values as its
 * correlation parameters (as a correlated subquery, xsubq_t).
 *
 * Design notes: per left row the right plan is opened in the subquery's
 * own context with the correlation values set, and each batch it returns
 * becomes an output batch: its vectors are shared, the left row's values
 * are repeated beside them. A new left batch is fetched only at the
 * start of a call, so the left values output batches point at stay
 * valid (invariant 1). LEFT: a left row the right plan gives no row for
 * comes out once with NULLs on the right. An ON condition is applied by
 * the binder inside the right plan (a filter over its rows seeing the
 * left row as parameters), which is the same for inner and left joins. */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/exec_ql.h"

typedef struct op_lateral_s {
  op_t lt_op;
  xsubq_t *lt_sq;
  join_kind_t lt_kind;
} op_lateral_t;

typedef struct lateral_run_s {
  opst_t lt_st;
  obatch_t lt_left;             /* the left batch (ob_b NULL: none yet) */
  int lt_i;                     /* its selected row being joined */
  bool lt_ropen;                /* the right plan runs for that row */
  bool lt_matched;              /* and gave a row */
  bool lt_done;
} lateral_run_t;

static int lat_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  lateral_run_t *l = (lateral_run_t *)st;
  memset(&l->lt_left, 0, sizeof(l->lt_left));
  l->lt_i = 0;
  l->lt_ropen = l->lt_matched = l->lt_done = false;
  return op_open(o->o_in, q, e);
}

/* Row `row` of the left batch repeated into vectors of cap rows. */
static int lat_left_cols(const op_t *o, opst_t *st, batch_t *b, const batch_t *lb, int row,
                         int cap, err_t *e)
{
  int lw = o->o_in->o_ncols;
  for (int c = 0; c < lw; c++) {
    if (vec_init(&b->b_cols[c], st->os_batch, o->o_types[c], cap, e) != CZ_OK)
      return CZ_ERR;
    datum_t d;
    vec_get(&lb->b_cols[c], row, &d);
    for (int i = 0; i < cap; i++)
      vec_set(&b->b_cols[c], i, &d);
  }
  return CZ_OK;
}

static int lat_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_lateral_t *lp = (const op_lateral_t *)o;
  lateral_run_t *l = (lateral_run_t *)st;
  const xsubq_t *s = lp->lt_sq;
  const op_t *rp = s->xs_plan;
  int lw = o->o_in->o_ncols;
  while (!l->lt_done) {
    if (!l->lt_left.ob_b || l->lt_i >= l->lt_left.ob_n) {
      if (op_next(o->o_in, q, &l->lt_left, e) != CZ_OK)
        return CZ_ERR;
      l->lt_i = 0;
      if (!l->lt_left.ob_b) {
        l->lt_done = true;
        break;
      }
      continue;
    }
    int row = l->lt_left.ob_sel ? l->lt_left.ob_sel[l->lt_i] : l->lt_i;
    qctx_t *sq;
    if (!l->lt_ropen) {
      if (xsubq_bind(q, s, l->lt_left.ob_b, row, &sq, e) != CZ_OK || op_open(rp, sq, e) != CZ_OK)
        return CZ_ERR;
      l->lt_ropen = true;
      l->lt_matched = false;
    } else
      sq = xsubq_ctx(q, s);
    obatch_t rb;
    if (op_next(rp, sq, &rb, e) != CZ_OK)
      return CZ_ERR;
    if (rb.ob_b && rb.ob_n == 0)
      continue;
    if (rb.ob_b) {
      int cap = rb.ob_b->b_n > 0 ? rb.ob_b->b_n : 1;
      batch_t *b = arena_zalloc(st->os_batch, sizeof(*b));
      b->b_ncols = o->o_ncols;
      b->b_n = rb.ob_b->b_n;
      b->b_cols = arena_zalloc(st->os_batch, sizeof(vec_t) * (size_t)o->o_ncols);
      if (lat_left_cols(o, st, b, l->lt_left.ob_b, row, cap, e) != CZ_OK)
        return CZ_ERR;
      for (int c = lw; c < o->o_ncols; c++)
        b->b_cols[c] = rb.ob_b->b_cols[c - lw];
      l->lt_matched = true;
      out->ob_b = b;
      out->ob_sel = rb.ob_sel;
      out->ob_n = rb.ob_n;
      return CZ_OK;
    }
    op_close(rp, sq);
    l->lt_ropen = false;
    l->lt_i++;
    if (lp->lt_kind == JOIN_LEFT && !l->lt_matched) {
      batch_t *b = op_new_batch(o, st, q, e);
      if (!b || lat_left_cols(o, st, b, l->lt_left.ob_b, row, b->b_cols[0].v_cap, e) != CZ_OK)
        return CZ_ERR;
      for (int c = lw; c < o->o_ncols; c++)
        b->b_cols[c].v_null[0] = 1;
      b->b_n = 1;
      out->ob_b = b;
      out->ob_n = 1;
      return CZ_OK;
    }
  }
  return CZ_OK;
}

static void lat_close(const op_t *o, opst_t *st, qctx_t *q)
{
  const op_lateral_t *lp = (const op_lateral_t *)o;
  lateral_run_t *l = (lateral_run_t *)st;
  op_close(o->o_in, q);
  qctx_t *sq = xsubq_ctx(q, lp->lt_sq);
  if (sq)
    op_close(lp->lt_sq->xs_plan, sq);
  l->lt_ropen = false;
}

static const op_vt_t lateral_vt = {
    .ov_name = "Nested Loop Lateral",
    .ov_open = lat_open,
    .ov_next = lat_next,
    .ov_close = lat_close,
    .ov_run_size = sizeof(lateral_run_t),
    .ov_pass_col = op_pass_left_col,
};

op_t *op_lateral_new(arena_t *a, op_t *left, xsubq_t *sq, join_kind_t kind)
{
  op_lateral_t *l = arena_zalloc(a, sizeof(*l));
  op_t *r = sq->xs_plan;
  int nc = left->o_ncols + r->o_ncols;
  ty_t *types = arena_alloc(a, sizeof(ty_t) * (size_t)(nc + 1));
  memcpy(types, left->o_types, sizeof(ty_t) * (size_t)left->o_ncols);
  memcpy(types + left->o_ncols, r->o_types, sizeof(ty_t) * (size_t)r->o_ncols);
  op_init(&l->lt_op, &lateral_vt, a, nc, types, left, r);
  l->lt_sq = sq;
  l->lt_kind = kind;
  return &l->lt_op;
}
