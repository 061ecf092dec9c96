/* opt_gen_query — the generator of VALUES lists and set operations
 * (lp_node_t, sql/sql_logical.h): each side cast to the common types
 * where it differs, the set operation (exec op_setop.c), then ORDER BY
 * and LIMIT / OFFSET over the output. */
#include "opt/opt_int.h"

op_t *opt_cast_side(lp_ctx_t *b, op_t *side, int ncols, xnode_t **cast)
{
  return cast ? op_project_new(b->lc_a, side, ncols, cast) : side;
}

op_t *opt_gen_node(lp_ctx_t *b, const lp_node_t *n)
{
  op_t *p = NULL;
  switch (n->ln_kind) {
  case LN_PLAN:
    p = n->ln_plan;
    break;
  case LN_VALUES:
    p = op_values_new(b->lc_a, n->ln_ncols, n->ln_types, n->ln_nrows, n->ln_rows);
    break;
  case LN_SETOP: {
    op_t *l = opt_gen_node(b, n->ln_l), *r = opt_gen_node(b, n->ln_r);
    if (!l || !r)
      return NULL;
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
      return NULL;
    break;
  case LN_RECURSIVE:
    p = opt_gen_recursive(b, n);
    break;
  case LN_CTE:
    p = opt_gen_cte(b, n);
    break;
  }
  if (!p)
    return NULL;
  if (n->ln_nord)
    p = op_sort_new(b->lc_a, p, n->ln_nord, n->ln_keys);
  if (n->ln_limit || n->ln_offset)
    p = op_limit_new(b->lc_a, p, n->ln_limit, n->ln_offset);
  return p;
}

int opt_gen_query(lp_ctx_t *b, const lp_node_t *n, op_t **out)
{
  *out = opt_gen_node(b, n);
  if (!*out)
    return err_set(b->lc_e, SQLSTATE_INTERNAL, "a query node without operators");
  return CZ_OK;
}
