/* op_lockrows — SELECT … FOR UPDATE / FOR SHARE: locks the rows its input
 * returns, one table row per locked table, as PostgreSQL's LockRows does.
 *
 * Design notes:
 * - It sits above the sort and below LIMIT, so only rows that reach the
 *   output are locked; it is told LIMIT + OFFSET and stops pulling once
 *   it has passed that many rows (a batch may hold more: those are not
 *   locked). SKIP LOCKED then makes the job-queue pattern work: each
 *   worker's LIMIT 1 takes the first row nobody else holds.
 * - The storage locks and reports the row's fate (qt_lock_row): the same
 *   version (kept), deleted meanwhile (dropped, as PostgreSQL does in
 *   read committed), held by another under NOWAIT (55P03) or SKIP LOCKED
 *   (dropped), or changed meanwhile. A changed row is PostgreSQL's
 *   EvalPlanQual case; the one-table form is done here: the block row is
 *   rebuilt from the current values, the WHERE tested again (false:
 *   dropped), and the output columns evaluated again from it. Where no
 *   recheck was planned (joins) the statement fails with 40001 instead of
 *   returning a stale row.
 * - Locks are taken on the session's thread only (a Gather below runs
 *   the workers' scans; this operator is above it).
 */
#include <stdio.h>
#include <string.h>

#include "exec/exec_int.h"

typedef struct op_lockrows_s {
  op_t lr_op;
  int lr_ntab;
  const oplock_tab_t *lr_tabs;
  int lr_strength;              /* QLOCK_FOR_* */
  int lr_wait;                  /* QLOCK_WAIT / NOWAIT / SKIP */
  xnode_t *lr_limit_x, *lr_offset_x;
  const oplock_recheck_t *lr_rk; /* NULL: a changed row is 40001 */
} op_lockrows_t;

typedef struct lockrows_run_s {
  opst_t lr_st;
  int64_t lr_left;              /* rows still to pass on (-1 = no limit) */
} lockrows_run_t;

static int lr_count(qctx_t *q, arena_t *a, xnode_t *x, int64_t *out, err_t *e)
{
  *out = -1;
  if (!x)
    return CZ_OK;
  xctx_t xc;
  op_xctx(q, a, &xc);
  datum_t d;
  if (xeval_scalar(&xc, x, &d, e) != CZ_OK)
    return CZ_ERR;
  if (!d.d_null && d.d_i64 >= 0)
    *out = d.d_i64;
  return CZ_OK;  /* LIMIT's own operator reports bad values */
}

static int lockrows_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_lockrows_t *lp = (const op_lockrows_t *)o;
  lockrows_run_t *r = (lockrows_run_t *)st;
  int64_t lim, off;
  if (lr_count(q, st->os_state, lp->lr_limit_x, &lim, e) != CZ_OK ||
      lr_count(q, st->os_state, lp->lr_offset_x, &off, e) != CZ_OK)
    return CZ_ERR;
  r->lr_left = lim < 0 ? -1 : lim + (off > 0 ? off : 0);
  if (!q->q_txn)
    return err_set(e, SQLSTATE_INTERNAL, "row locks outside a transaction");
  return op_open(o->o_in, q, e);
}

/* A changed row: the block row rebuilt from cur (the table's current
 * values) and rid; *pass whether the WHERE still holds; then the outputs
 * evaluated into row `at` of out. */
static int lockrows_recheck(const op_lockrows_t *lp, qctx_t *q, arena_t *a, const datum_t *cur,
                            const datum_t *rid, batch_t *out, int at, bool *pass, err_t *e)
{
  const oplock_recheck_t *rk = lp->lr_rk;
  batch_t *row = batch_create(a, rk->rk_width, rk->rk_types, 1, e);
  if (!row)
    return CZ_ERR;
  row->b_n = 1;
  datum_t null = {.d_null = true};
  for (int c = 0; c < rk->rk_width; c++) {
    int k = c - rk->rk_base;
    const datum_t *d = k >= 0 && k < rk->rk_ncols ? &cur[k] : k == rk->rk_ncols ? rid : &null;
    vec_set(&row->b_cols[c], 0, d);
  }
  xctx_t xc;
  op_xctx(q, a, &xc);
  *pass = true;
  if (rk->rk_filter) {
    int sel[1], n = 0;
    if (xeval_filter(&xc, rk->rk_filter, row, NULL, 1, sel, &n, e) != CZ_OK)
      return CZ_ERR;
    if (n == 0) {
      *pass = false;
      return CZ_OK;
    }
  }
  for (int c = 0; c < out->b_ncols; c++) {
    vec_t v;
    if (vec_init(&v, a, rk->rk_out[c]->x_type, 1, e) != CZ_OK ||
        xeval(&xc, rk->rk_out[c], row, NULL, 1, &v, e) != CZ_OK)
      return CZ_ERR;
    datum_t d;
    vec_get(&v, 0, &d);
    vec_set(&out->b_cols[c], at, &d);
  }
  return CZ_OK;
}

/* Locks row i of in for every locked table: *keep whether it goes on,
 * *changed whether it was rebuilt into row `at` of *fresh (created on
 * demand, the input's columns). */
static int lockrows_row(const op_lockrows_t *lp, opst_t *st, qctx_t *q, const batch_t *in, int i,
                        int cap, batch_t **fresh, int at, bool *keep, bool *changed, err_t *e)
{
  *keep = true;
  *changed = false;
  const oplock_tab_t *tabs = lp->lr_tabs;
  for (int k = 0; k < lp->lr_ntab && *keep; k++) {
    datum_t rid;
    vec_get(&in->b_cols[tabs[k].ol_rid], i, &rid);
    if (rid.d_null)
      continue;  /* no row of this table here */
    const qtable_ops_t *ops = ((const qtable_t *)tabs[k].ol_table)->qt_ops;
    if (!ops->qt_lock_row)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                     "cannot lock rows in relation \"%s\"", tabs[k].ol_name);
    datum_t *cur = NULL;
    if (lp->lr_rk)
      cur = arena_zalloc(st->os_batch, sizeof(datum_t) * (size_t)(lp->lr_rk->rk_ncols + 1));
    int what;
    if (ops->qt_lock_row(q, tabs[k].ol_table, (const uint8_t *)rid.d_str.s_ptr, rid.d_str.s_len,
                         lp->lr_strength, lp->lr_wait != QLOCK_WAIT, cur, st->os_batch, &what,
                         e) != CZ_OK)
      return CZ_ERR;
    switch (what) {
    case QLOCK_OK:
      break;
    case QLOCK_GONE:
      *keep = false;
      break;
    case QLOCK_BUSY:
      if (lp->lr_wait == QLOCK_NOWAIT)
        return err_set(e, SQLSTATE_LOCK_NOT_AVAILABLE,
                       "could not obtain lock on row in relation \"%s\"", tabs[k].ol_name);
      *keep = false;  /* SKIP LOCKED */
      break;
    default:  /* QLOCK_CHANGED */
      if (!lp->lr_rk)
        return err_set(e, SQLSTATE_SERIALIZATION,
                       "could not serialize access due to concurrent update");
      if (!*fresh && !(*fresh = batch_create(st->os_batch, lp->lr_op.o_ncols, lp->lr_op.o_types,
                                             cap, e)))
        return CZ_ERR;
      if (lockrows_recheck(lp, q, st->os_batch, cur, &rid, *fresh, at, keep, e) != CZ_OK)
        return CZ_ERR;
      *changed = *keep;
      break;
    }
  }
  return CZ_OK;
}

static int lockrows_next(const op_lockrows_t *lp, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  lockrows_run_t *r = (lockrows_run_t *)st;
  while (r->lr_left != 0) {
    obatch_t in;
    if (op_next(lp->lr_op.o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      return CZ_OK;
    int *sel = arena_alloc(st->os_batch, sizeof(int) * (size_t)(in.ob_n + 1));
    bool *repl = arena_zalloc(st->os_batch, sizeof(bool) * (size_t)(in.ob_n + 1));
    batch_t *fresh = NULL;
    int n = 0;
    for (int j = 0; j < in.ob_n && r->lr_left != 0; j++) {
      int i = in.ob_sel ? in.ob_sel[j] : j;
      bool keep, changed;
      if (op_check_cancel(q, e) != CZ_OK ||
          lockrows_row(lp, st, q, in.ob_b, i, in.ob_n, &fresh, n, &keep, &changed, e) != CZ_OK)
        return CZ_ERR;
      if (!keep)
        continue;
      repl[n] = changed;
      sel[n++] = i;
      if (r->lr_left > 0)
        r->lr_left--;
    }
    if (n == 0)
      continue;
    if (fresh) {
      /* some rows were rebuilt: a batch of the kept rows, in order */
      for (int j = 0; j < n; j++) {
        if (repl[j])
          continue;
        for (int c = 0; c < fresh->b_ncols; c++) {
          datum_t d;
          vec_get(&in.ob_b->b_cols[c], sel[j], &d);
          vec_set(&fresh->b_cols[c], j, &d);
        }
      }
      fresh->b_n = n;
      out->ob_b = fresh;
      out->ob_sel = NULL;
      out->ob_n = n;
      return CZ_OK;
    }
    out->ob_b = in.ob_b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
  return CZ_OK;
}

static int lockrows_next_vt(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  return lockrows_next((const op_lockrows_t *)o, st, q, out, e);
}

static void lockrows_close(const op_t *o, opst_t *st, qctx_t *q)
{
  (void)st;
  op_close(o->o_in, q);
}

static char *lockrows_detail(const op_t *o, arena_t *a)
{
  const op_lockrows_t *lp = (const op_lockrows_t *)o;
  const char *w = lp->lr_wait == QLOCK_NOWAIT ? " NOWAIT" : lp->lr_wait == QLOCK_SKIP ? " SKIP LOCKED" : "";
  const char *m = lp->lr_strength == QLOCK_FOR_KEY_SHARE       ? "key share"
                  : lp->lr_strength == QLOCK_FOR_SHARE         ? "share"
                  : lp->lr_strength == QLOCK_FOR_NO_KEY_UPDATE ? "no key update"
                                                               : "update";
  size_t n = strlen(w) + strlen(m) + 4;
  char *s = arena_alloc(a, n);
  snprintf(s, n, "(%s%s)", m, w);
  return s;
}

static const op_vt_t lockrows_vt = {"LockRows", lockrows_open, lockrows_next_vt, lockrows_close,
                                    lockrows_detail, sizeof(lockrows_run_t), NULL,
                                    .ov_order = op_order_same};

op_t *op_lockrows_new(arena_t *a, op_t *in, int ntab, const oplock_tab_t *tabs, int strength,
                      int wait, xnode_t *limit, xnode_t *offset, const oplock_recheck_t *rk)
{
  op_lockrows_t *l = arena_zalloc(a, sizeof(*l));
  op_init(&l->lr_op, &lockrows_vt, a, in->o_ncols, in->o_types, in, NULL);
  l->lr_ntab = ntab;
  l->lr_tabs = tabs;
  l->lr_strength = strength;
  l->lr_wait = wait;
  l->lr_limit_x = limit;
  l->lr_offset_x = offset;
  l->lr_rk = rk;
  return &l->lr_op;
}
