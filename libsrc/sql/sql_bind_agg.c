/* sql_bind_agg — aggregate calls and the rewrite of expressions above a
 * GROUP BY to the group-by operator's output (keys, then aggregates). */
#include <string.h>

#include "sql/sql_bind_ext.h"

int bd_agg_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  bd_aggctx_t *ag = sc->sc_agg;
  if (!ag)
    return bd_error(b, SQLSTATE_GROUPING_ERROR, x->ex_pos, "aggregate functions are not allowed in %s",
                    sc->sc_agg_forbid ? sc->sc_agg_forbid : "this context");
  if (ag->ag_in_agg)
    return bd_error(b, SQLSTATE_GROUPING_ERROR, x->ex_pos,
                    "aggregate function calls cannot be nested");
  if (x->ex_agg_order && bd_agg_order(b, sc, x) != CZ_OK)  /* sql_bind_agg_order.c */
    return CZ_ERR;
  int n = sql_list_len(x->ex_list);
  xnode_t **args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(n ? n : 1));
  ty_t *types = arena_zalloc(b->b_a, sizeof(ty_t) * (size_t)(n ? n : 1));
  ty_t *arg_to = arena_zalloc(b->b_a, sizeof(ty_t) * (size_t)(n ? n : 1));
  ag->ag_in_agg = true;
  for (int i = 0; i < n; i++) {
    if (bd_expr(b, sc, sql_list_at(x->ex_list, i), &args[i]) != CZ_OK) {
      ag->ag_in_agg = false;
      return CZ_ERR;
    }
    types[i] = args[i]->x_type;
  }
  ag->ag_in_agg = false;
  xagg_t kind;
  ty_t res;
  if (xagg_resolve(x->ex_name, x->ex_star, types, n, &kind, arg_to, &res, b->b_e) != CZ_OK) {
    b->b_e->er_pos = x->ex_pos;
    return CZ_ERR;
  }
  if (n > 1 && !(kind == XAGG_STRING_AGG && n == 2))
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "aggregates of several arguments are not supported yet");
  agg_spec_t spec = {.ag_kind = kind, .ag_distinct = x->ex_distinct, .ag_arg = NULL,
                     .ag_type = res};
  if (n == 2 && (!(spec.ag_arg2 = bd_coerce(b, args[1], arg_to[1])) ||
                 !(spec.ag_arg2 = bd_finish_unknown(b, spec.ag_arg2))))
    return CZ_ERR;
  if (n >= 1 && kind != XAGG_COUNT_STAR) {
    if (!(spec.ag_arg = bd_coerce(b, args[0], arg_to[0])))
      return CZ_ERR;
    if (!(spec.ag_arg = bd_finish_unknown(b, spec.ag_arg)))
      return CZ_ERR;
  }
  *out = bd_agg_add(b, ag, &spec, x->ex_pos);
  return CZ_OK;
}

xnode_t *bd_agg_add(bd_t *b, bd_aggctx_t *ag, const agg_spec_t *spec, int pos)
{
  if (ag->ag_n == ag->ag_cap) {
    int cap = ag->ag_cap ? ag->ag_cap * 2 : 8;
    agg_spec_t *ns = arena_alloc(b->b_a, sizeof(agg_spec_t) * (size_t)cap);
    xnode_t **nh = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)cap);
    if (ag->ag_n) {
      memcpy(ns, ag->ag_specs, sizeof(agg_spec_t) * (size_t)ag->ag_n);
      memcpy(nh, ag->ag_holders, sizeof(xnode_t *) * (size_t)ag->ag_n);
    }
    ag->ag_specs = ns;
    ag->ag_holders = nh;
    ag->ag_cap = cap;
  }
  xnode_t *h = bd_col(b, -1, spec->ag_type);  /* placeholder: its index is set by the rewrite */
  h->x_pos = pos;
  ag->ag_specs[ag->ag_n] = *spec;
  ag->ag_holders[ag->ag_n++] = h;
  return h;
}

typedef struct rw_s {
  bd_t *rw_b;
  bd_aggctx_t *rw_ag;
  int rw_ngroup;
  xnode_t **rw_group;
  int rw_nsubq;                 /* subqueries already rewritten (shared nodes) */
  xsubq_t *rw_subq[64];
} rw_t;

static int rw_node(rw_t *w, xnode_t *x, xnode_t **out)
{
  bd_t *b = w->rw_b;
  if (bd_window_is_holder(x) || bd_srf_is_holder(x)) {  /* computed after the group-by */
    *out = x;
    return CZ_OK;
  }
  for (int i = 0; i < w->rw_ag->ag_n; i++)
    if (w->rw_ag->ag_holders[i] == x) {
      *out = bd_col(b, w->rw_ngroup + i, x->x_type);
      return CZ_OK;
    }
  for (int i = 0; i < w->rw_ag->ag_ngrp; i++)
    if (w->rw_ag->ag_grp_holders[i] == x) {  /* GROUPING(…): after the aggregates */
      *out = bd_col(b, w->rw_ngroup + w->rw_ag->ag_n + i, x->x_type);
      return CZ_OK;
    }
  for (int k = 0; k < w->rw_ngroup; k++)
    if (bd_node_equal(w->rw_group[k], x)) {
      *out = bd_col(b, k, x->x_type);
      return CZ_OK;
    }
  if (x->x_kind == X_COL)
    return bd_error(b, SQLSTATE_GROUPING_ERROR, x->x_pos,
                    "column must appear in the GROUP BY clause or be used in an aggregate function");
  xnode_t *n = arena_alloc(b->b_a, sizeof(*n));
  *n = *x;
  if (x->x_kind == X_SUBQ) {
    xsubq_t *s = x->x_subq;
    bool done = false;
    for (int i = 0; i < w->rw_nsubq; i++)
      done |= w->rw_subq[i] == s;
    if (!done) {
      if (w->rw_nsubq == (int)CZ_ARRAY_LEN(w->rw_subq))
        return bd_error(b, SQLSTATE_PROGRAM_LIMIT, x->x_pos, "too many subqueries");
      w->rw_subq[w->rw_nsubq++] = s;
      xnode_t **corr = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(s->xs_ncorr + 1));
      for (int i = 0; i < s->xs_ncorr; i++)
        if (rw_node(w, s->xs_corr[i], &corr[i]) != CZ_OK)
          return CZ_ERR;
      s->xs_corr = corr;
    }
  }
  if (x->x_nargs) {
    n->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)x->x_nargs);
    for (int i = 0; i < x->x_nargs; i++)
      if (rw_node(w, x->x_args[i], &n->x_args[i]) != CZ_OK)
        return CZ_ERR;
  }
  *out = n;
  return CZ_OK;
}

int bd_agg_rewrite(bd_t *b, bd_aggctx_t *ag, int ngroup, xnode_t **group, xnode_t *x,
                   xnode_t **out)
{
  rw_t w = {.rw_b = b, .rw_ag = ag, .rw_ngroup = ngroup, .rw_group = group, .rw_nsubq = 0};
  return rw_node(&w, x, out);
}
