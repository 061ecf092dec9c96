/* op_distinct — SELECT DISTINCT: streams the first occurrence of each row
 * (NULLs equal), remembering the rows seen in a row set. */
#include "exec/exec_int.h"

typedef struct op_distinct_s {
  op_t od_op;
} op_distinct_t;

typedef struct distinct_run_s {
  opst_t od_st;
  rset_t od_seen;
} distinct_run_t;

static int distinct_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  if (rset_init(&((distinct_run_t *)st)->od_seen, st->os_state, o->o_ncols, o->o_types, e) != CZ_OK)
    return CZ_ERR;
  return op_open(o->o_in, q, e);
}

static int distinct_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  distinct_run_t *d = (distinct_run_t *)st;
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      return CZ_OK;
    int *sel = arena_alloc(st->os_batch, sizeof(int) * (size_t)(in.ob_n + 1));
    int n = 0;
    for (int i = 0; i < in.ob_n; i++) {
      int row = in.ob_sel ? in.ob_sel[i] : i;
      bool added;
      if (rset_add(&d->od_seen, in.ob_b, row, &added, e) < 0)
        return CZ_ERR;
      if (added)
        sel[n++] = row;
    }
    if (op_check_mem(q, st->os_state, e) != CZ_OK)
      return CZ_ERR;
    if (n == 0)
      continue;
    out->ob_b = in.ob_b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
}

static const op_vt_t distinct_vt = {"Distinct", distinct_open, distinct_next, NULL, NULL,
                                     sizeof(distinct_run_t)};

op_t *op_distinct_new(arena_t *a, op_t *in)
{
  op_distinct_t *d = arena_zalloc(a, sizeof(*d));
  op_init(&d->od_op, &distinct_vt, a, in->o_ncols, in->o_types, in, NULL);
  return &d->od_op;
}
