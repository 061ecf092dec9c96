/* sql_bind_lateral — LATERAL items in FROM: a derived table marked
 * LATERAL, or a function in FROM (implicitly lateral, as in PostgreSQL),
 * may read the columns of the FROM items before it.
 *
 * Design notes: the item is bound as a correlated subquery (an xsubq_t
 * registered with the statement's subqueries) whose enclosing scope is a
 * view of the items before it, so a name of theirs becomes a correlation
 * value (exec/op_lateral.c sets them per left row). An item that turns
 * out to read none of them (ncorr 0) is an ordinary FROM unit. Otherwise,
 * in a FROM list, it is a unit marked un_lateral; when the block is
 * planned (bd_lateral_fold, first thing in bd_from_finish) the units before
 * the last such unit are planned on their own, with the WHERE conjuncts
 * over them alone (so their scans keep key bounds and filters, and the
 * item runs only for rows that pass), and their lateral join with the
 * item becomes the block's first unit: the join search itself never sees
 * a lateral unit, so it never orders one before what it reads.
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
  view.sc_usings = NULL;  /* their range numbers are the whole scope's; no `*` reads a view */
  view.sc_nusings = 0;
  xsubq_t *sq = bd_subq_new(b, sc);
  bd_scope_t ls;
  memset(&ls, 0, sizeof(ls));
  ls.sc_parent = &view;
  ls.sc_subq = sq;
  op_t *plan;
  bd_rel_t *rel;
  if (fr->fr_kind == SQL_FROM_FUNC) {
    lp_node_t *fn;
    if (bd_from_func(b, &ls, fr, &fn) != CZ_OK || bd_node_plan(b, fn, &plan) != CZ_OK)
      return CZ_ERR;  /* sql_bind_srf.c */
    rel = ls.sc_rels[0];
  } else {
    const char **names;
    if (bd_query(b, fr->fr_query, &view, sq, &plan, &names, NULL) != CZ_OK)
      return CZ_ERR;
    rel = bd_rel_derived(b, fr, plan->o_ncols, plan->o_types, names);
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
  if (bd_scope_add(b, sc, rel, fr->fr_pos) != CZ_OK)
    return CZ_ERR;
  *out = op_lateral_new(b->b_a, left, sq, kind);
  return CZ_OK;
}

int bd_lateral_unit(bd_t *b, bd_scope_t *sc, lp_block_t *fb, const sql_from_t *fr)
{
  xsubq_t *sq;
  bd_rel_t *rel;
  if (lat_bind(b, sc, 0, fr, NULL, &sq, &rel) != CZ_OK)
    return CZ_ERR;
  lp_rel_t u = {.un_base = sc->sc_width, .un_width = rel->rl_ncols, .un_op = sq->xs_plan};
  if (sq->xs_ncorr > 0) {
    /* joined to the units before it when the block is planned; the
     * columns it reads are read by them */
    u.un_op = NULL;
    u.un_lateral = sq;
    for (int i = 0; i < sq->xs_ncorr; i++)
      if (sq->xs_corr[i]->x_kind == X_COL)
        bd_scope_use(b, sc, sq->xs_corr[i]->x_index);
  }
  if (bd_scope_add(b, sc, rel, fr->fr_pos) != CZ_OK)
    return CZ_ERR;
  *bd_fromblk_unit(b, fb) = u;
  return CZ_OK;
}

static void max_col(void *ctx, xnode_t *col)
{
  int *m = ctx;
  if (col->x_index > *m)
    *m = col->x_index;
}

int bd_lateral_fold(bd_t *b, bd_scope_t *sc, lp_block_t *fb)
{
  int k = -1;
  for (int u = 1; u < fb->fb_nunits; u++)
    if (fb->fb_units[u].un_lateral)
      k = u;
  if (k < 0)
    return CZ_OK;
  lp_rel_t *lu = &fb->fb_units[k];
  int base = lu->un_base;  /* the units before it are the block's columns [0, base) */
  /* the prefix: those units and the conjuncts over their columns alone
   * (they are filtered before the lateral item runs) */
  lp_block_t prefix;
  memset(&prefix, 0, sizeof(prefix));
  prefix.fb_nunits = prefix.fb_ucap = k;
  prefix.fb_units = fb->fb_units;
  prefix.fb_conj = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(fb->fb_nconj + 1));
  prefix.fb_cap = fb->fb_nconj + 1;
  int keep = 0;
  for (int i = 0; i < fb->fb_nconj; i++) {
    int m = -1;
    bd_node_cols(fb->fb_conj[i], max_col, &m);
    if (m >= 0 && m < base)
      prefix.fb_conj[prefix.fb_nconj++] = fb->fb_conj[i];
    else
      fb->fb_conj[keep++] = fb->fb_conj[i];
  }
  fb->fb_nconj = keep;
  int width = sc->sc_width;
  sc->sc_width = base;  /* bd_from_plan builds the row of the units it is given */
  op_t *left;
  int rc = bd_from_plan(b, sc, &prefix, &left);
  sc->sc_width = width;
  if (rc != CZ_OK)
    return CZ_ERR;
  lp_rel_t merged = {.un_base = 0, .un_width = base + lu->un_width,
                      .un_op = op_lateral_new(b->b_a, left, lu->un_lateral, JOIN_INNER)};
  int rest = fb->fb_nunits - k - 1;
  lp_rel_t *units = arena_zalloc(b->b_a, sizeof(lp_rel_t) * (size_t)(rest + 2));
  units[0] = merged;
  memcpy(units + 1, fb->fb_units + k + 1, sizeof(lp_rel_t) * (size_t)rest);
  fb->fb_units = units;
  fb->fb_nunits = fb->fb_ucap = rest + 1;
  return CZ_OK;
}
