/* sql_bind_opt — the binder's side of the optimizer's interface: each
 * call builds the planning context from the binder's state and goes
 * through sp_env_t.pe_opt (sql_logical.h), so that sql never includes
 * opt. sql_plan_stmt refuses an environment without an optimizer, so the
 * calls here never find pe_opt NULL. */
#include "sql/sql_bind_int.h"

static lp_ctx_t ctx_of(bd_t *b)
{
  lp_ctx_t c = {.lc_a = b->b_a, .lc_env = b->b_env, .lc_e = b->b_e, .lc_b = b,
                .lc_decor = b->b_decor != NULL};
  return c;
}

int bd_from_finish(bd_t *b, bd_scope_t *sc, lp_block_t *fb)
{
  if (!b->b_env || !b->b_env->pe_opt)
    return bd_error(b, SQLSTATE_INTERNAL, 0, "no optimizer in the planning environment");
  fb->fb_width = sc->sc_width;
  fb->fb_used = sc->sc_used;
  fb->fb_used_cap = sc->sc_used_cap;
  fb->fb_subq = sc->sc_subq;
  fb->fb_scope = sc;
  return CZ_OK;
}

int bd_from_plan(bd_t *b, bd_scope_t *sc, lp_block_t *fb, op_t **out)
{
  if (bd_from_finish(b, sc, fb) != CZ_OK)
    return CZ_ERR;
  lp_ctx_t c = ctx_of(b);
  return b->b_env->pe_opt->so_block(&c, fb, out);
}

int lp_decorrelate(lp_ctx_t *c, lp_block_t *fb)
{
  return bd_decorrelate(c->lc_b, fb->fb_scope, fb);
}

double bd_plan_est_cost(const op_t *o)
{
  for (; o; o = o->o_in)
    if (o->o_est_cost > 0)
      return o->o_est_cost;
  return 0;
}

bool bd_par_block(const bd_scope_t *outer, const xsubq_t *sq)
{
  if (!sq)
    return !outer;
  return sq->xs_ncorr == 0;
}

int bd_node_plan(bd_t *b, const lp_node_t *n, op_t **out)
{
  lp_ctx_t c = ctx_of(b);
  return b->b_env->pe_opt->so_query(&c, n, out);
}

/* s generated in the context it was bound in (a decorrelating
 * rebinding's: no parallel plans). */
static int subq_gen(bd_t *b, const lp_subq_t *s)
{
  lp_ctx_t c = ctx_of(b);
  c.lc_decor = s->ls_decor;
  return b->b_env->pe_opt->so_subq(&c, s);
}

int bd_subq_plan(bd_t *b, const xsubq_t *sq, op_t **out)
{
  if (!sq->xs_plan) {
    const lp_subq_t *s = NULL;
    for (int i = 0; i < b->b_nsrc && !s; i++)
      if (b->b_src[i].ss_sq == sq)
        s = b->b_src[i].ss_gen;
    if (!s || !s->ls_node)
      return bd_error(b, SQLSTATE_INTERNAL, 0, "subquery without a logical node");
    if (subq_gen(b, s) != CZ_OK)
      return CZ_ERR;
  }
  *out = sq->xs_plan;
  return CZ_OK;
}

int bd_subq_gen_all(bd_t *b)
{
  /* b_nsrc may grow as we go: generating a block decorrelates its
   * subqueries, which binds them again */
  for (int i = 0; i < b->b_nsrc; i++) {
    const lp_subq_t *s = b->b_src[i].ss_gen;
    if (!s || !s->ls_node || s->ls_sq->xs_plan)
      continue;  /* (no node: its binding failed, and so did the statement's) */
    if (!b->b_env || !b->b_env->pe_opt)
      return bd_error(b, SQLSTATE_INTERNAL, 0, "no optimizer in the planning environment");
    if (subq_gen(b, s) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

int bd_dml_gen(bd_t *b, lp_nkind_t kind, lp_dml_t *d, const bd_ret_t *ret, op_t **out)
{
  d->ld_nret = ret->rt_x ? ret->rt_n : 0;
  d->ld_ret = ret->rt_x;
  lp_node_t *n = arena_zalloc(b->b_a, sizeof(*n));
  n->ln_kind = kind;
  n->ln_dml = d;
  lp_ctx_t c = ctx_of(b);
  if (b->b_env->pe_opt->so_dml(&c, n, out, &b->b_dml) != CZ_OK)
    return CZ_ERR;
  if (ret->rt_x) {
    b->b_nret = ret->rt_n;
    b->b_ret_cols = ret->rt_cols;
  }
  return CZ_OK;
}
