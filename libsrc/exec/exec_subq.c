/* exec_subq — scalar, EXISTS and IN subqueries: the xsubq_fn_t callback
 * that expression evaluation calls for X_SUBQ nodes.
 *
 * Design notes: the subplan is run with the statement's parameters
 * followed by the correlation values of the outer row. An uncorrelated
 * subquery (no correlation values) runs once per execution: its scalar or
 * EXISTS result, or for IN the set of its values, is cached for the rest
 * of the execution. A correlated one re-runs per outer row. All of this
 * is the execution's (subq_run_t, in its run-state table), none of it
 * the plan's: the same xsubq_t runs at once in any number of executions. */
#include <string.h>

#include "exec/exec_int.h"

/* IN over a cached value set. */
typedef struct subq_set_s {
  rset_t ss_set;
  bool ss_has_null;
  bool ss_empty;
} subq_set_t;

/* A subquery's run state in one execution (the xsubq_t is the plan). */
typedef struct subq_run_s {
  qctx_t sr_q;                  /* the subplan's own context */
  qctx_t *sr_outer;             /* the context the X_SUBQ is evaluated in */
  datum_t *sr_params;           /* sr_q's parameters */
  bool sr_cached;               /* uncorrelated result known */
  datum_t sr_value;             /* scalar / EXISTS cache */
  subq_set_t *sr_set;           /* IN cache */
  arena_t *sr_arena;            /* cache memory */
} subq_run_t;

/* s's run state in outer's execution, made at the first evaluation: the
 * subplan's context is a child of outer (the statement's context for a
 * top-level subquery, the parent subquery's for a nested one, a worker's
 * in a worker) sharing its run-state table; the statement's parameters
 * are copied, the correlation values are set per outer row. */
static subq_run_t *subq_run(qctx_t *outer, const xsubq_t *s, bool make)
{
  bool fresh;
  subq_run_t *r = qexec_state(outer, s, sizeof(subq_run_t), make, &fresh);
  if (!fresh)
    return r;
  arena_t *xa = qexec_arena(outer);
  r->sr_outer = outer;
  r->sr_q = *outer;
  r->sr_q.q_parent = outer;
  int n = s->xs_param_base + s->xs_ncorr;
  r->sr_params = arena_zalloc(xa, sizeof(datum_t) * (size_t)(n ? n : 1));
  ty_t *types = arena_zalloc(xa, sizeof(ty_t) * (size_t)(n ? n : 1));
  for (int i = 0; i < s->xs_param_base && i < outer->q_nparams; i++) {
    r->sr_params[i] = outer->q_params[i];
    types[i] = outer->q_param_types[i];
  }
  for (int i = 0; i < s->xs_ncorr; i++)
    types[s->xs_param_base + i] = s->xs_corr[i]->x_type;
  r->sr_q.q_params = r->sr_params;
  r->sr_q.q_param_types = types;
  r->sr_q.q_nparams = n;
  r->sr_arena = arena_create(xa, "subquery");
  return r;
}

static int subq_bind_outer(const xsubq_t *s, subq_run_t *r, const batch_t *in, int row,
                           err_t *e)
{
  for (int i = 0; i < s->xs_ncorr; i++) {
    const xnode_t *c = s->xs_corr[i];
    datum_t *d = &r->sr_params[s->xs_param_base + i];
    if (c->x_kind == X_COL && in && c->x_index < in->b_ncols)
      vec_get(&in->b_cols[c->x_index], row, d);
    else if (c->x_kind == X_PARAM && c->x_index < r->sr_outer->q_nparams)
      *d = r->sr_outer->q_params[c->x_index];
    else
      return err_set(e, SQLSTATE_INTERNAL, "bad outer reference in a subquery");
  }
  return CZ_OK;
}

int xsubq_bind(qctx_t *outer, const xsubq_t *s, const batch_t *in, int row, qctx_t **sub,
               err_t *e)
{
  subq_run_t *r = subq_run(outer, s, true);
  if (subq_bind_outer(s, r, in, row, e) != CZ_OK)
    return CZ_ERR;
  *sub = &r->sr_q;
  return CZ_OK;
}

qctx_t *xsubq_ctx(qctx_t *outer, const xsubq_t *s)
{
  subq_run_t *r = subq_run(outer, s, false);
  return r ? &r->sr_q : NULL;
}

/* Scalar (kind 0) or EXISTS (kind 1). */
static int subq_run_value(const xsubq_t *s, subq_run_t *r, int kind, arena_t *a, datum_t *out,
                          err_t *e)
{
  qctx_t *q = &r->sr_q;
  const op_t *p = s->xs_plan;
  memset(out, 0, sizeof(*out));
  out->d_null = kind == 0;
  if (op_open(p, q, e) != CZ_OK) {
    op_close(p, q);
    return CZ_ERR;
  }
  int rc = CZ_OK;
  bool have = false;
  for (;;) {
    obatch_t ob;
    if ((rc = op_next(p, q, &ob, e)) != CZ_OK || !ob.ob_b)
      break;
    if (ob.ob_n == 0)
      continue;
    if (kind == 1) {
      out->d_bool = 1;
      break;
    }
    if (have || ob.ob_n > 1) {
      rc = err_set(e, SQLSTATE_CARDINALITY,
                   "more than one row returned by a subquery used as an expression");
      break;
    }
    datum_t d;
    vec_get(&ob.ob_b->b_cols[0], ob.ob_sel ? ob.ob_sel[0] : 0, &d);
    if ((rc = datum_copy(ty_phys(p->o_types[0].t_id), &d, a, out, e)) != CZ_OK)
      break;
    have = true;
  }
  op_close(p, q);
  return rc;
}

static int subq_build_set(const xsubq_t *s, subq_run_t *r, err_t *e)
{
  qctx_t *q = &r->sr_q;
  const op_t *p = s->xs_plan;
  subq_set_t *set = arena_zalloc(r->sr_arena, sizeof(*set));
  if (rset_init(&set->ss_set, r->sr_arena, 1, p->o_types, e) != CZ_OK)
    return CZ_ERR;
  set->ss_empty = true;
  if (op_open(p, q, e) != CZ_OK) {
    op_close(p, q);
    return CZ_ERR;
  }
  int rc;
  for (;;) {
    obatch_t ob;
    if ((rc = op_next(p, q, &ob, e)) != CZ_OK || !ob.ob_b)
      break;
    for (int i = 0; i < ob.ob_n; i++) {
      int row = ob.ob_sel ? ob.ob_sel[i] : i;
      set->ss_empty = false;
      if (ob.ob_b->b_cols[0].v_null[row]) {
        set->ss_has_null = true;
        continue;
      }
      bool added;
      if (rset_add(&set->ss_set, ob.ob_b, row, &added, e) < 0) {
        rc = CZ_ERR;
        break;
      }
    }
    if (rc != CZ_OK || (rc = op_check_mem(q, r->sr_arena, e)) != CZ_OK)
      break;
  }
  op_close(p, q);
  if (rc == CZ_OK)
    r->sr_set = set;
  return rc;
}

/* x IN (subquery) with SQL's three-valued result. */
static void subq_in_result(const subq_set_t *set, ty_t t, const datum_t *lhs, datum_t *out)
{
  memset(out, 0, sizeof(*out));
  if (set->ss_empty)
    return;  /* FALSE, even for a NULL lhs */
  if (lhs->d_null) {
    out->d_null = true;
    return;
  }
  uint8_t null = 0;
  vec_t v = {.v_type = t, .v_cap = 1, .v_null = &null};
  datum_t tmp = *lhs;
  v.v_data = &tmp.d_bool;  /* the union's storage for one value */
  batch_t b = {.b_n = 1, .b_ncols = 1, .b_cols = &v};
  if (rset_find(&set->ss_set, &b, 0) >= 0)
    out->d_bool = 1;
  else if (set->ss_has_null)
    out->d_null = true;
}

int xsubq_eval(void *qctx, void *subq, int kind, const batch_t *in, int row,
               const datum_t *lhs, arena_t *a, datum_t *out, err_t *e)
{
  const xsubq_t *s = subq;
  if (!qctx)
    return err_set(e, SQLSTATE_INTERNAL, "subquery evaluated outside an execution");
  subq_run_t *r = subq_run(qctx, s, true);
  if (s->xs_ncorr == 0 && r->sr_cached) {
    if (kind == 2)
      subq_in_result(r->sr_set, s->xs_plan->o_types[0], lhs, out);
    else
      *out = r->sr_value;
    return CZ_OK;
  }
  if (subq_bind_outer(s, r, in, row, e) != CZ_OK)
    return CZ_ERR;
  if (kind == 2) {
    if (s->xs_ncorr > 0)
      arena_reset(r->sr_arena);
    if (subq_build_set(s, r, e) != CZ_OK)
      return CZ_ERR;
    r->sr_cached = true;
    subq_in_result(r->sr_set, s->xs_plan->o_types[0], lhs, out);
    return CZ_OK;
  }
  if (subq_run_value(s, r, kind, s->xs_ncorr == 0 ? r->sr_arena : a, out, e) != CZ_OK)
    return CZ_ERR;
  if (s->xs_ncorr == 0) {
    r->sr_value = *out;
    r->sr_cached = true;
  }
  return CZ_OK;
}
