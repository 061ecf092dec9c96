/* op_values — VALUES rows (and SELECT without FROM): expressions without
 * columns, evaluated per execution so that parameters may appear. */
#include "exec/exec_int.h"

typedef struct op_values_s {
  op_t ov_op;
  int ov_nrows;
  xnode_t ***ov_rows;           /* ov_rows[r][c] */
} op_values_t;

typedef struct values_run_s {
  opst_t vr_st;
  int vr_next_row;              /* first row not yet returned */
} values_run_t;

static int values_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  (void)o;
  (void)q;
  (void)e;
  ((values_run_t *)st)->vr_next_row = 0;
  return CZ_OK;
}

static int values_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_values_t *v = (const op_values_t *)o;
  values_run_t *r = (values_run_t *)st;
  if (r->vr_next_row >= v->ov_nrows)
    return CZ_OK;
  batch_t *b = op_new_batch(o, st, q, e);
  if (!b)
    return CZ_ERR;
  xctx_t xc;
  op_xctx(q, st->os_batch, &xc);
  int n = 0;
  while (r->vr_next_row < v->ov_nrows && n < q->q_vector_size) {
    xnode_t **row = v->ov_rows[r->vr_next_row];
    for (int c = 0; c < o->o_ncols; c++) {
      datum_t d;
      if (xeval_scalar(&xc, row[c], &d, e) != CZ_OK)
        return CZ_ERR;
      vec_set(&b->b_cols[c], n, &d);
    }
    n++;
    r->vr_next_row++;
  }
  b->b_n = n;
  out->ob_b = b;
  out->ob_n = n;
  return CZ_OK;
}

static char *values_detail(const op_t *o, arena_t *a)
{
  return arena_sprintf(a, "%d rows", ((const op_values_t *)o)->ov_nrows);
}

static const op_vt_t values_vt = {
    .ov_name = "Values",
    .ov_open = values_open,
    .ov_next = values_next,
    .ov_detail = values_detail,
    .ov_run_size = sizeof(values_run_t),
};

op_t *op_values_new(arena_t *a, int ncols, const ty_t *types, int nrows, xnode_t ***rows)
{
  op_values_t *v = arena_zalloc(a, sizeof(*v));
  op_init(&v->ov_op, &values_vt, a, ncols, types, NULL, NULL);
  v->ov_nrows = nrows;
  v->ov_rows = rows;
  return &v->ov_op;
}
