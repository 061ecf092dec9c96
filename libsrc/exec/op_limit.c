/* op_limit — LIMIT / OFFSET (and TOP n): passes on a window of the input
 * by trimming selection vectors; stops pulling once the limit is met. */
#include <string.h>

#include "exec/exec_int.h"

typedef struct op_limit_s {
  op_t ol_op;
  xnode_t *ol_limit_x;
  xnode_t *ol_offset_x;
} op_limit_t;

typedef struct limit_run_s {
  opst_t lr_st;
  int64_t ol_limit;             /* -1 = no limit */
  int64_t ol_skip;              /* rows still to skip */
  int64_t ol_left;              /* rows still to return */
} limit_run_t;

static int limit_value(qctx_t *q, arena_t *a, xnode_t *x, int64_t dflt, int64_t *out,
                       const char *what, err_t *e)
{
  *out = dflt;
  if (!x)
    return CZ_OK;
  xctx_t xc;
  op_xctx(q, a, &xc);
  datum_t d;
  if (xeval_scalar(&xc, x, &d, e) != CZ_OK)
    return CZ_ERR;
  if (d.d_null)
    return CZ_OK;  /* LIMIT NULL is no limit, OFFSET NULL is 0 */
  if (d.d_i64 < 0)
    return err_set(e, strcmp(what, "LIMIT") == 0 ? SQLSTATE_INVALID_LIMIT : SQLSTATE_INVALID_OFFSET,
                   "%s must not be negative", what);
  *out = d.d_i64;
  return CZ_OK;
}

static int limit_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_limit_t *lp = (const op_limit_t *)o;
  limit_run_t *l = (limit_run_t *)st;
  if (limit_value(q, st->os_state, lp->ol_limit_x, -1, &l->ol_limit, "LIMIT", e) != CZ_OK ||
      limit_value(q, st->os_state, lp->ol_offset_x, 0, &l->ol_skip, "OFFSET", e) != CZ_OK)
    return CZ_ERR;
  l->ol_left = l->ol_limit;
  if (l->ol_left == 0)
    return CZ_OK;  /* never opened: nothing will be pulled */
  return op_open(o->o_in, q, e);
}

static int limit_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  limit_run_t *l = (limit_run_t *)st;
  while (l->ol_left != 0) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      return CZ_OK;
    int start = 0;
    if (l->ol_skip > 0) {
      int64_t s = CZ_MIN(l->ol_skip, (int64_t)in.ob_n);
      l->ol_skip -= s;
      start = (int)s;
    }
    int n = in.ob_n - start;
    if (n <= 0)
      continue;
    if (l->ol_left > 0 && n > l->ol_left)
      n = (int)l->ol_left;
    if (l->ol_left > 0)
      l->ol_left -= n;
    int *sel = arena_alloc(st->os_batch, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
      sel[i] = in.ob_sel ? in.ob_sel[start + i] : start + i;
    out->ob_b = in.ob_b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
  return CZ_OK;
}

static void limit_close(const op_t *o, opst_t *st, qctx_t *q)
{
  (void)st;
  op_close(o->o_in, q);
}

static const op_vt_t limit_vt = {
    .ov_name = "Limit",
    .ov_open = limit_open,
    .ov_next = limit_next,
    .ov_close = limit_close,
    .ov_run_size = sizeof(limit_run_t),
    .ov_order = op_order_same,
};

op_t *op_limit_new(arena_t *a, op_t *in, xnode_t *limit, xnode_t *offset)
{
  op_limit_t *l = arena_zalloc(a, sizeof(*l));
  op_init(&l->ol_op, &limit_vt, a, in->o_ncols, in->o_types, in, NULL);
  l->ol_limit_x = limit;
  l->ol_offset_x = offset;
  return &l->ol_op;
}
