/* sql_bind_lateral — LATERAL items in FROM: a derived table marked
 * LATERAL, or a function in FROM (implicitly lateral, as in PostgreSQL),
 * may read the columns of the FROM items before it.
 *
 * Design notes: the item is bound as a correlated subquery (an xsubq_t
 * registered with the statement's subqueries) whose enclosing scope is a
 * view of the items before it, so a name of theirs becomes a correlation
 * value (exec/op_lateral.c sets them per left row). An item that turns
 * out to read none of them (ncorr 0) is an ordinary FROM unit. Otherwise,
 * in a FROM list, the items before it are planned there and then (their
 * join order chosen among themselves, all their columns read) and the
 * lateral join of them and the item becomes the block's first unit, so
 * the join planner never puts the item before what it reads; the WHERE
 * conjuncts over those items are then filters above that unit (no key
 * bounds for them: the cost of keeping this apart from the join search).
 * In an explicit JOIN the left side is what it may read; an ON condition
 * is bound inside the item (a filter over its rows, the left row as
 * parameters), which is the same join for INNER and LEFT. */
#include <string.h>

#include "exec/exec_ql.h"
#include "sql/sql_bind_ext.h"
#include "sql/sql_bind_int.h"

bool bd_item_lateral(const sql_from_t *fr)
{
  return fr->fr_lateral || fr->fr_kind == SQL_FROM_FUNC;
}

static xsubq_t *lat_subq(bd_t *b, bd_scope_t *sc)
{
  xsubq_t *sq = arena_zalloc(b->b_a, sizeof(*sq));
  sq->xs_parent = sc->sc_subq;
  if (b->b_nsubqs == b->b_subq_cap) {
    int cap = b->b_subq_cap ? b->b_subq_cap * 2 : 8;
    xsubq_t **n = arena_alloc(b->b_a, sizeof(xsubq_t *) * (size_t)cap);
    if (b->b_nsubqs)
      memcpy(n, b->b_subqs, sizeof(xsubq_t *) * (size_t)b->b_nsubqs);
    b->b_subqs = n;
    b->b_subq_cap = cap;
  }
  b->b_subqs[b->b_nsubqs++] = sq;  /* parents first, as bd_subquery */
  return sq;
}

/* Binds fr as the plan of a new correlated subquery seeing sc's items
 * from first_rel on; its range entry (based at 0) in *out_rel. */
static int lat_bind(bd_t *b, bd_scope_t *sc, int first_rel, const sql_from_t *fr,
                    const sql_expr_t *on, xsubq_t **out_sq, bd_rel_t **out_rel)
{
  bd_scope_t view = *sc;
  view.sc_rels = sc->sc_rels + first_rel;
  view.sc_nrels = sc->sc_nrels - first_rel;
  view.sc_agg = NULL;
  view.sc_agg_forbid = "functions in FROM";
  view.sc_win = NULL;
  view.sc_used = NULL;
  view.sc_used_cap = 0;
  xsubq_t *sq = lat_subq(b, sc);
  bd_scope_t ls;
  memset(&ls, 0, sizeof(ls));
  ls.sc_parent = &view;
  ls.sc_subq = sq;
  op_t *plan;
  bd_rel_t *rel;
  if (fr->fr_kind == SQL_FROM_FUNC) {
    if (bd_from_func(b, &ls, fr, &plan) != CZ_OK)  /* sql_bind_srf.c */
      return CZ_ERR;
    rel = ls.sc_rels[0];
  } else {
    const char **names;
    if (bd_query(b, fr->fr_query, &view, sq, &plan, &names, NULL) != CZ_OK)
      return CZ_ERR;
    rel = arena_zalloc(b->b_a, sizeof(*rel));
    rel->rl_name = fr->fr_alias ? fr->fr_alias : "?subquery?";
    rel->rl_ncols = plan->o_ncols;
    rel->rl_cols = arena_zalloc(b->b_a, sizeof(char *) * (size_t)(plan->o_ncols + 1));
    rel->rl_types = arena_zalloc(b->b_a, sizeof(ty_t) * (size_t)(plan->o_ncols + 1));
    int nal = sql_list_len(fr->fr_colnames);
    for (int c = 0; c < plan->o_ncols; c++) {
      rel->rl_cols[c] = c < nal ? sql_list_at(fr->fr_colnames, c) : names[c];
      rel->rl_types[c] = plan->o_types[c];
    }
    ls.sc_rels = &rel;
    ls.sc_nrels = 1;
    ls.sc_width = rel->rl_ncols;
  }
  if (on) {
    ls.sc_agg = NULL;
    ls.sc_agg_forbid = "JOIN conditions";
    xnode_t *cond;
    if (bd_cond(b, &ls, on, "JOIN/ON", &cond) != CZ_OK)
      return CZ_ERR;
    plan = op_filter_new(b->b_a, plan, cond);
  }
  rel->rl_base = 0;
  sq->xs_plan = plan;
  *out_sq = sq;
  *out_rel = rel;
  return CZ_OK;
}

int bd_lateral_join(bd_t *b, bd_scope_t *sc, int first_rel, int base, op_t *left,
                    const sql_from_t *fr, join_kind_t kind, const sql_expr_t *on, op_t **out)
{
  xsubq_t *sq;
  bd_rel_t *rel;
  if (lat_bind(b, sc, first_rel, fr, on, &sq, &rel) != CZ_OK)
    return CZ_ERR;
  /* correlations read the join's own row (its left side from 0) */
  for (int i = 0; i < sq->xs_ncorr; i++)
    if (sq->xs_corr[i]->x_kind == X_COL) {
      xnode_t *c = arena_alloc(b->b_a, sizeof(*c));
      *c = *sq->xs_corr[i];
      c->x_index -= base;
      sq->xs_corr[i] = c;
    }
  if (bd_scope_add(b, sc, rel) != CZ_OK) {
    b->b_e->er_pos = fr->fr_pos;
    return CZ_ERR;
  }
  *out = op_lateral_new(b->b_a, left, sq, kind);
  return CZ_OK;
}

int bd_lateral_unit(bd_t *b, bd_scope_t *sc, bd_fromblk_t *fb, const sql_from_t *fr)
{
  xsubq_t *sq;
  bd_rel_t *rel;
  if (lat_bind(b, sc, 0, fr, NULL, &sq, &rel) != CZ_OK)
    return CZ_ERR;
  int w = sc->sc_width;
  bd_unit_t u = {.un_base = w, .un_width = rel->rl_ncols, .un_op = sq->xs_plan};
  if (sq->xs_ncorr > 0) {
    /* the items before it, planned now, all their columns read */
    for (int c = 0; c < w; c++)
      bd_scope_use(b, sc, c);
    bd_fromblk_t prefix = *fb;
    prefix.fb_nconj = prefix.fb_cap = 0;  /* the conjuncts stay the block's */
    prefix.fb_conj = NULL;
    op_t *left;
    if (bd_from_plan(b, sc, &prefix, &left) != CZ_OK)
      return CZ_ERR;
    u.un_base = 0;
    u.un_width = w + rel->rl_ncols;
    u.un_op = op_lateral_new(b->b_a, left, sq, JOIN_INNER);
    fb->fb_nunits = 0;
  }
  if (bd_scope_add(b, sc, rel) != CZ_OK) {
    b->b_e->er_pos = fr->fr_pos;
    return CZ_ERR;
  }
  if (fb->fb_nunits == fb->fb_ucap) {
    int cap = fb->fb_ucap ? fb->fb_ucap * 2 : 8;
    bd_unit_t *n = arena_zalloc(b->b_a, sizeof(bd_unit_t) * (size_t)cap);
    if (fb->fb_nunits)
      memcpy(n, fb->fb_units, sizeof(bd_unit_t) * (size_t)fb->fb_nunits);
    fb->fb_units = n;
    fb->fb_ucap = cap;
  }
  fb->fb_units[fb->fb_nunits++] = u;
  return CZ_OK;
}
