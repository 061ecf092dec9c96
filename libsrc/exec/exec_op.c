/* exec_op — running operators: open/next/close wrappers, cancellation,
 * memory checks, compaction of selected rows and expression contexts. */
#include <string.h>

#include "exec/exec_int.h"

void op_init(op_t *o, const op_vt_t *vt, arena_t *a, int ncols, const ty_t *types,
             op_t *in, op_t *in2)
{
  o->o_vt = vt;
  o->o_ncols = ncols;
  o->o_types = arena_alloc(a, sizeof(ty_t) * (size_t)(ncols > 0 ? ncols : 1));
  if (ncols > 0)
    memcpy(o->o_types, types, sizeof(ty_t) * (size_t)ncols);
  o->o_in = in;
  o->o_in2 = in2;
  o->o_est_rows = o->o_est_cost = -1;
  o->o_why = NULL;
}

/* What EXPLAIN ANALYZE shows of an operator's memory: its state arena
 * (hash tables, sort arrays, buffered rows), looked at after open and at
 * the end of its rows, when what it holds is largest. */
static void note_mem(opst_t *st)
{
  int64_t m = (int64_t)arena_bytes_used(st->os_state);
  if (m > st->os_mem)
    st->os_mem = m;
}

int op_pass_left_col(const op_t *o, int col)
{
  return col < o->o_in->o_ncols ? col : -1;
}

int op_open(const op_t *o, qctx_t *q, err_t *e)
{
  uint64_t t0 = time_now_ns();
  size_t size = o->o_vt->ov_run_size ? o->o_vt->ov_run_size : sizeof(opst_t);
  bool fresh;
  opst_t *st = qexec_state(q, o, size, true, &fresh);
  if (fresh) {
    /* Per-operator arenas hang off the execution's: they live as long as
     * it and are reset, not recreated, per open and per batch. */
    arena_t *xa = qexec_arena(q);
    st->os_state = arena_create_scratch(xa, o->o_vt->ov_name);
    st->os_batch = arena_create_scratch(xa, o->o_vt->ov_name);
  } else {
    arena_reset(st->os_state);
    arena_reset(st->os_batch);
  }
  st->os_opened = true;
  st->os_rows = 0;
  st->os_ns = 0;
  st->os_mem = 0;
  int rc = o->o_vt->ov_open(o, st, q, e);
  note_mem(st);
  st->os_ns += time_now_ns() - t0;
  return rc;
}

int op_next(const op_t *o, qctx_t *q, obatch_t *out, err_t *e)
{
  if (op_check_cancel(q, e) != CZ_OK || op_check_budget(q, e) != CZ_OK)
    return CZ_ERR;
  opst_t *st = op_state(o, q);
  if (!st)
    return err_set(e, SQLSTATE_INTERNAL, "%s: next before open", o->o_vt->ov_name);
  uint64_t t0 = time_now_ns();
  arena_reset(st->os_batch);
  out->ob_b = NULL;
  out->ob_sel = NULL;
  out->ob_n = 0;
  int rc = o->o_vt->ov_next(o, st, q, out, e);
  if (rc == CZ_OK && out->ob_b)
    st->os_rows += out->ob_n;
  else
    note_mem(st);
  st->os_ns += time_now_ns() - t0;
  return rc;
}

void op_close(const op_t *o, qctx_t *q)
{
  /* Never opened in this execution: nor was anything below it. */
  opst_t *st = op_state(o, q);
  if (!st)
    return;
  if (o->o_vt->ov_close)
    o->o_vt->ov_close(o, st, q);
  else {
    if (o->o_in)
      op_close(o->o_in, q);
    if (o->o_in2)
      op_close(o->o_in2, q);
  }
}

int op_check_cancel(qctx_t *q, err_t *e)
{
  for (qctx_t *c = q; c; c = c->q_parent)
    if (c->q_cancel && *c->q_cancel)
      return err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
  return CZ_OK;
}

int op_budget_error(const mem_budget_t *b, int64_t limit, err_t *e)
{
  if (mem_budget_exceeded(b) == MEM_OVER_SERVER)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY,
                   "out of memory: the queries running together need more than "
                   "MaxServerQueryMem (%lld bytes)", (long long)b->mb_parent->mb_limit);
  /* No budget, or none with a limit: only the system can have refused. */
  if (mem_budget_exceeded(b) == MEM_OVER_SYSTEM || !b || b->mb_limit == 0)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY,
                   "out of memory: the system refused the query more memory");
  if (b && b->mb_limit > 0)
    limit = b->mb_limit;
  return err_set(e, SQLSTATE_OUT_OF_MEMORY, "query needs more than MaxQueryMem (%lld bytes)",
                 (long long)limit);
}

int op_alloc_error(const arena_t *a, err_t *e)
{
  const mem_budget_t *b = arena_budget(a);
  if (!b)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY,
                   "out of memory: the system refused the query more memory");
  return op_budget_error(b, b->mb_limit, e);
}

int op_check_budget(const qctx_t *q, err_t *e)
{
  if (CZ_UNLIKELY(q->q_budget && mem_budget_exceeded(q->q_budget)))
    return op_budget_error(q->q_budget, q->q_max_mem, e);
  return CZ_OK;
}

int op_check_mem(qctx_t *q, arena_t *a, err_t *e)
{
  /* With a budget the whole execution is counted (and cheaply); without
   * one (unit tests, old callers) only the operator's own arena. */
  if (q->q_budget)
    return op_check_budget(q, e);
  if (q->q_max_mem > 0 && (int64_t)arena_bytes_used(a) > q->q_max_mem)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY,
                   "query needs more than MaxQueryMem (%lld bytes)", (long long)q->q_max_mem);
  return CZ_OK;
}

batch_t *op_new_batch(const op_t *o, opst_t *st, const qctx_t *q, err_t *e)
{
  return batch_create(st->os_batch, o->o_ncols, o->o_types, q->q_vector_size, e);
}

batch_t *op_keep_batch(const op_t *o, qctx_t *q, batch_t **slot, int cap, err_t *e)
{
  if (*slot && ((*slot)->b_ncols == 0 || (*slot)->b_cols[0].v_cap >= cap)) {
    (*slot)->b_n = 0;
    return *slot;
  }
  *slot = batch_create(qexec_arena(q), o->o_ncols, o->o_types, cap, e);
  return *slot;
}

batch_t *op_compact(const obatch_t *ob, int ncols, arena_t *a, err_t *e)
{
  const batch_t *b = ob->ob_b;
  ty_t types[ncols > 0 ? ncols : 1];
  for (int c = 0; c < ncols; c++)
    types[c] = b->b_cols[c].v_type;
  batch_t *out = batch_create(a, ncols, types, ob->ob_n > 0 ? ob->ob_n : 1, e);
  if (!out)
    return NULL;
  for (int i = 0; i < ob->ob_n; i++) {
    int r = ob->ob_sel ? ob->ob_sel[i] : i;
    for (int c = 0; c < ncols; c++) {
      datum_t d;
      vec_get(&b->b_cols[c], r, &d);
      vec_set(&out->b_cols[c], i, &d);
    }
  }
  out->b_n = ob->ob_n;
  return out;
}

void op_xctx(qctx_t *q, arena_t *a, xctx_t *out)
{
  out->xc_arena = a;
  out->xc_params = q->q_params;
  out->xc_param_types = q->q_param_types;
  out->xc_nparams = q->q_nparams;
  out->xc_subq = xsubq_eval;
  out->xc_qctx = q;
  out->xc_cancel = q->q_cancel;
  out->xc_budget = q->q_budget;
  out->xc_max_mem = q->q_max_mem;
  out->xc_stmt_ts = q->q_stmt_ts;
  out->xc_session = q->q_tops_ctx;  /* for catalog functions (pgcat) */
}
