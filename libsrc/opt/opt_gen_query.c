/* opt_gen_query — the generator of query nodes (lp_node_t,
 * sql/sql_logical.h): a SELECT block (its join block planned, opt_join.c,
 * then its upper part over it, opt_gen.c); a function in FROM (a series,
 * exec op_series, with a projection of its row); VALUES lists; set operations,
 * each side cast to the common types where it differs, the set operation
 * (exec op_setop.c); INSERT / UPDATE / DELETE (opt_gen_dml.c), WITH
 * RECURSIVE and WITH query references (opt_gen_cte.c); then ORDER BY and
 * LIMIT / OFFSET over the output. And a subquery in an expression
 * (lp_subq_t): its node, then the projection and the array its use asks
 * for, into the xsubq_t the expression evaluates. */
#include "exec/exec_pg.h"
#include "opt/opt_int.h"

op_t *opt_cast_side(lp_ctx_t *b, op_t *side, int ncols, xnode_t **cast)
{
  return cast ? op_project_new(b->lc_a, side, ncols, cast) : side;
}

int opt_gen_subq(lp_ctx_t *b, const lp_subq_t *s)
{
  op_t *p;
  if (opt_gen_query(b, s->ls_node, &p) != CZ_OK)
    return CZ_ERR;
  if (s->ls_proj) {
    xnode_t **cols = arena_alloc(b->lc_a, sizeof(xnode_t *));
    cols[0] = s->ls_proj;
    p = op_project_new(b->lc_a, p, 1, cols);
  }
  if (s->ls_array)
    p = op_array_agg_new(b->lc_a, p);
  s->ls_sq->xs_plan = p;
  return CZ_OK;
}

int opt_gen_query(lp_ctx_t *b, const lp_node_t *n, op_t **out)
{
  op_t *p = NULL;
  switch (n->ln_kind) {
  case LN_PLAN:
    p = n->ln_plan;
    break;
  case LN_SELECT: {
    op_t *joins;
    if (opt_block_plan(b, n->ln_upper->lu_from, &joins) != CZ_OK ||
        opt_gen_upper(b, n->ln_upper, joins, &p) != CZ_OK)
      return CZ_ERR;
    break;
  }
  case LN_FUNC:
    p = op_series_new(b->lc_a, n->ln_fn_type, n->ln_fn_lo, n->ln_fn_hi, n->ln_fn_step);
    if (n->ln_fn_row)
      p = op_project_new(b->lc_a, p, n->ln_ncols, n->ln_fn_row);
    break;
  case LN_VALUES:
    p = op_values_new(b->lc_a, n->ln_ncols, n->ln_types, n->ln_nrows, n->ln_rows);
    break;
  case LN_SETOP: {
    op_t *l, *r;
    if (opt_gen_query(b, n->ln_l, &l) != CZ_OK || opt_gen_query(b, n->ln_r, &r) != CZ_OK)
      return CZ_ERR;
    l = opt_cast_side(b, l, n->ln_ncols, n->ln_lcast);
    r = opt_cast_side(b, r, n->ln_ncols, n->ln_rcast);
    p = op_setop_new(b->lc_a, l, r, n->ln_setop, n->ln_all);
    /* the columns are of the common types (modifiers, array-ness), not the
     * left side's: same physical types, so only the description changes */
    p->o_types = n->ln_types;
    break;
  }
  case LN_INSERT:
  case LN_UPDATE:
  case LN_DELETE:
    if (opt_gen_dml(b, n, &p, NULL) != CZ_OK)
      return CZ_ERR;
    break;
  case LN_RECURSIVE:
    if (opt_gen_recursive(b, n, &p) != CZ_OK)
      return CZ_ERR;
    break;
  case LN_WORKTABLE:
    if (opt_gen_worktable(b, n, &p) != CZ_OK)
      return CZ_ERR;
    break;
  case LN_CTE:
    if (opt_gen_cte(b, n, &p) != CZ_OK)
      return CZ_ERR;
    break;
  case LN_TRANSITIVE:
    if (opt_gen_transitive(b, n, &p) != CZ_OK)
      return CZ_ERR;
    break;
  }
  if (!p)
    return err_set(b->lc_e, SQLSTATE_INTERNAL, "a query node without operators");
  if (n->ln_nord)
    p = op_sort_new(b->lc_a, p, n->ln_nord, n->ln_keys);
  if (n->ln_limit || n->ln_offset)
    p = op_limit_new(b->lc_a, p, n->ln_limit, n->ln_offset);
  *out = p;
  return CZ_OK;
}
