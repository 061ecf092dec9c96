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
  /* run-time */
  obatch_t lt_left;             /* the left batch (ob_b NULL: none yet) */
  int lt_i;                     /* its selected row being joined */
  bool lt_ropen;                /* the right plan runs for that row */
  bool lt_matched;              /* and gave a row */
  bool lt_done;
} op_lateral_t;

static int lat_open(op_t *o, qctx_t *q, err_t *e)
{
  op_lateral_t *l = (op_lateral_t *)o;
  memset(&l->lt_left, 0, sizeof(l->lt_left));
  l->lt_i = 0;
  l->lt_ropen = l->lt_matched = l->lt_done = false;
  return op_open(o->o_in, q, e);
}

static int lat_bind(op_lateral_t *l, qctx_t *q, int row, err_t *e)
{
  xsubq_t *s = l->lt_sq;
  const batch_t *in = l->lt_left.ob_b;
  for (int i = 0; i < s->xs_ncorr; i++) {
    const xnode_t *c = s->xs_corr[i];
    datum_t *d = &s->xs_params[s->xs_param_base + i];
    if (c->x_kind == X_COL && c->x_index < in->b_ncols)
      vec_get(&in->b_cols[c->x_index], row, d);
    else if (c->x_kind == X_PARAM && c->x_index < q->q_nparams)
      *d = q->q_params[c->x_index];
    else
      return err_set(e, SQLSTATE_INTERNAL, "bad outer reference in a LATERAL item");
  }
  return CZ_OK;
}

/* Row `row` of the left batch repeated into vectors of cap rows. */
static int lat_left_cols(op_t *o, batch_t *b, const batch_t *lb, int row, int cap, err_t *e)
{
  int lw = o->o_in->o_ncols;
  for (int c = 0; c < lw; c++) {
    if (vec_init(&b->b_cols[c], o->o_batch, o->o_types[c], cap, e) != CZ_OK)
      return CZ_ERR;
    datum_t d;
    vec_get(&lb->b_cols[c], row, &d);
    for (int i = 0; i < cap; i++)
      vec_set(&b->b_cols[c], i, &d);
  }
  return CZ_OK;
}

static int lat_next(op_t *o, qctx_t *q, obatch_t *out, err_t *e)
{
  op_lateral_t *l = (op_lateral_t *)o;
  xsubq_t *s = l->lt_sq;
  op_t *rp = s->xs_plan;
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
    if (!l->lt_ropen) {
      if (lat_bind(l, q, row, e) != CZ_OK || op_open(rp, &s->xs_q, e) != CZ_OK)
        return CZ_ERR;
      l->lt_ropen = true;
      l->lt_matched = false;
    }
    obatch_t rb;
    if (op_next(rp, &s->xs_q, &rb, e) != CZ_OK)
      return CZ_ERR;
    if (rb.ob_b && rb.ob_n == 0)
      continue;
    if (rb.ob_b) {
      int cap = rb.ob_b->b_n > 0 ? rb.ob_b->b_n : 1;
      batch_t *b = arena_zalloc(o->o_batch, sizeof(*b));
      b->b_ncols = o->o_ncols;
      b->b_n = rb.ob_b->b_n;
      b->b_cols = arena_zalloc(o->o_batch, sizeof(vec_t) * (size_t)o->o_ncols);
      if (lat_left_cols(o, b, l->lt_left.ob_b, row, cap, e) != CZ_OK)
        return CZ_ERR;
      for (int c = lw; c < o->o_ncols; c++)
        b->b_cols[c] = rb.ob_b->b_cols[c - lw];
      l->lt_matched = true;
      out->ob_b = b;
      out->ob_sel = rb.ob_sel;
      out->ob_n = rb.ob_n;
      return CZ_OK;
    }
    op_close(rp, &s->xs_q);
    l->lt_ropen = false;
    l->lt_i++;
    if (l->lt_kind == JOIN_LEFT && !l->lt_matched) {
      batch_t *b = op_new_batch(o, q, e);
      if (!b || lat_left_cols(o, b, l->lt_left.ob_b, row, b->b_cols[0].v_cap, e) != CZ_OK)
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

static void lat_close(op_t *o, qctx_t *q)
{
  op_lateral_t *l = (op_lateral_t *)o;
  op_close(o->o_in, q);
  if (l->lt_sq->xs_outer)
    op_close(l->lt_sq->xs_plan, &l->lt_sq->xs_q);
  l->lt_ropen = false;
}

static const op_vt_t lateral_vt = {"Nested Loop Lateral", lat_open, lat_next, lat_close, NULL};

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
