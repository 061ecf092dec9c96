/* op_distinct — SELECT DISTINCT: streams the first occurrence of each row
 * (NULLs equal), remembering the rows seen in a row set. */
#include "exec/exec_int.h"

typedef struct op_distinct_s {
  op_t od_op;
  rset_t od_seen;               /* run-time */
} op_distinct_t;

static int distinct_open(op_t *o, qctx_t *q, err_t *e)
{
  if (rset_init(&((op_distinct_t *)o)->od_seen, o->o_state, o->o_ncols, o->o_types, e) != CZ_OK)
    return CZ_ERR;
  return op_open(o->o_in, q, e);
}

static int distinct_next(op_t *o, qctx_t *q, obatch_t *out, err_t *e)
{
  op_distinct_t *d = (op_distinct_t *)o;
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      return CZ_OK;
    int *sel = arena_alloc(o->o_batch, sizeof(int) * (size_t)(in.ob_n + 1));
    int n = 0;
    for (int i = 0; i < in.ob_n; i++) {
      int row = in.ob_sel ? in.ob_sel[i] : i;
      bool added;
      if (rset_add(&d->od_seen, in.ob_b, row, &added, e) < 0)
        return CZ_ERR;
      if (added)
        sel[n++] = row;
    }
    if (op_check_mem(q, o->o_state, e) != CZ_OK)
      return CZ_ERR;
    if (n == 0)
      continue;
    out->ob_b = in.ob_b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
}

static const op_vt_t distinct_vt = {"Distinct", distinct_open, distinct_next, NULL, NULL};

op_t *op_distinct_new(arena_t *a, op_t *in)
{
  op_distinct_t *d = arena_zalloc(a, sizeof(*d));
  op_init(&d->od_op, &distinct_vt, a, in->o_ncols, in->o_types, in, NULL);
  return &d->od_op;
}
