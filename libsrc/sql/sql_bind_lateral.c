/* sql_bind_lateral — LATERAL items in FROM: a derived table marked
 * LATERAL, or a function in FROM (implicitly lateral, as in PostgreSQL),
 * may read the columns of the FROM items before it.
 *
 * Design notes: the item is bound as a correlated subquery (an xsubq_t
 * registered with the statement's subqueries) whose enclosing scope is a
 * view of the items before it, so a name of theirs becomes a correlation
 * value (exec/op_lateral.c sets them per left row); its query stays a
 * logical node (lp_lateral_t, sql_logical.h), which the generator builds
 * (opt/opt_lateral.c). An item that turns out to read none of them
 * (ncorr 0) is an ordinary FROM unit, a derived table. Otherwise, in a
 * FROM list, it is a unit marked un_lateral, which the optimizer joins to
 * the units before it first thing when it plans the block (so the join
 * search never orders it before what it reads). In an explicit JOIN the
 * left side is what it may read: the join is an lp_outer_t whose right
 * side is the item (oj_lat); an ON condition is bound inside the item (a
 * filter over its rows, the left row as parameters), which is the same
 * join for INNER and LEFT. */
#include <string.h>

#include "exec/exec_ql.h"
#include "sql/sql_bind_ext.h"
#include "sql/sql_bind_int.h"

bool bd_item_lateral(const sql_from_t *fr)
{
  return fr->fr_lateral || fr->fr_kind == SQL_FROM_FUNC;
}

/* Binds fr as a new correlated subquery seeing sc's items from
 * first_rel on, its query a logical node; its range entry (based at 0)
 * in *out_rel. */
static int lat_bind(bd_t *b, bd_scope_t *sc, int first_rel, const sql_from_t *fr,
                    const sql_expr_t *on, lp_lateral_t **out_ll, bd_rel_t **out_rel)
{
  bd_scope_t *view = bd_scope_copy(b, sc);
  view->sc_rels = sc->sc_rels + first_rel;
  view->sc_nrels = sc->sc_nrels - first_rel;
  view->sc_agg = NULL;
  view->sc_agg_forbid = "functions in FROM";
  view->sc_win = NULL;
  view->sc_used = NULL;
  view->sc_used_cap = 0;
  view->sc_usings = NULL;  /* their range numbers are the whole scope's; no `*` reads a view */
  view->sc_nusings = 0;
  xsubq_t *sq = bd_subq_new(b, sc);
  bd_scope_t *ls = bd_scope_new(b);
  ls->sc_parent = view;
  ls->sc_subq = sq;
  lp_node_t *node;
  bd_rel_t *rel;
  if (fr->fr_kind == SQL_FROM_FUNC) {
    if (bd_from_func(b, ls, fr, &node) != CZ_OK)
      return CZ_ERR;  /* sql_bind_srf.c */
    rel = ls->sc_rels[0];
  } else {
    const char **names;
    if (bd_query_node(b, fr->fr_query, view, sq, &node, &names, NULL) != CZ_OK)
      return CZ_ERR;
    rel = bd_rel_derived(b, fr, node->ln_ncols, node->ln_types, names);
    ls->sc_rels = &rel;
    ls->sc_nrels = 1;
    ls->sc_width = rel->rl_ncols;
  }
  lp_lateral_t *ll = arena_zalloc(b->b_a, sizeof(*ll));
  ll->ll_sq = sq;
  ll->ll_node = node;
  if (on) {
    ls->sc_agg = NULL;
    ls->sc_agg_forbid = "JOIN conditions";
    if (bd_cond(b, ls, on, "JOIN/ON", &ll->ll_on) != CZ_OK)
      return CZ_ERR;
  }
  rel->rl_base = 0;
  *out_ll = ll;
  *out_rel = rel;
  return CZ_OK;
}

int bd_lateral_join(bd_t *b, bd_scope_t *sc, int first_rel, int base, const sql_from_t *fr,
                    const sql_expr_t *on, const lp_lateral_t **out)
{
  lp_lateral_t *ll;
  bd_rel_t *rel;
  if (lat_bind(b, sc, first_rel, fr, on, &ll, &rel) != CZ_OK)
    return CZ_ERR;
  /* correlations read the join's own row (its left side from 0) */
  xsubq_t *sq = ll->ll_sq;
  for (int i = 0; i < sq->xs_ncorr; i++)
    if (sq->xs_corr[i]->x_kind == X_COL) {
      xnode_t *c = arena_alloc(b->b_a, sizeof(*c));
      *c = *sq->xs_corr[i];
      c->x_index -= base;
      sq->xs_corr[i] = c;
    }
  if (bd_scope_add(b, sc, rel, fr->fr_pos) != CZ_OK)
    return CZ_ERR;
  *out = ll;
  return CZ_OK;
}

int bd_lateral_unit(bd_t *b, bd_scope_t *sc, lp_block_t *fb, const sql_from_t *fr)
{
  lp_lateral_t *ll;
  bd_rel_t *rel;
  if (lat_bind(b, sc, 0, fr, NULL, &ll, &rel) != CZ_OK)
    return CZ_ERR;
  lp_rel_t u = {.un_base = sc->sc_width, .un_width = rel->rl_ncols, .un_node = ll->ll_node};
  if (ll->ll_sq->xs_ncorr > 0) {
    /* joined to the units before it when the block is planned; the
     * columns it reads are read by them */
    u.un_node = NULL;
    u.un_lateral = ll;
    for (int i = 0; i < ll->ll_sq->xs_ncorr; i++)
      if (ll->ll_sq->xs_corr[i]->x_kind == X_COL)
        bd_scope_use(b, sc, ll->ll_sq->xs_corr[i]->x_index);
  }
  if (bd_scope_add(b, sc, rel, fr->fr_pos) != CZ_OK)
    return CZ_ERR;
  *bd_fromblk_unit(b, fb) = u;
  return CZ_OK;
}
