/* opt_lateral — LATERAL items (sql_logical.h lp_lateral_t): the item's
 * query generated into its subquery's plan, and a FROM list's lateral
 * unit joined to the units before it.
 *
 * Design notes:
 * - The item is a correlated subquery (its correlation values are
 *   columns of the rows it is joined to); op_lateral runs its plan
 *   (ll_sq->xs_plan) once per left row. The plan is built once (a second
 *   call finds it), from the item's node and its JOIN … ON as a filter
 *   over its rows.
 * - In a FROM list (`FROM a, b, LATERAL f(b.x), c`) the units before the
 *   last lateral unit are planned as a block of their own, with the
 *   conjuncts over their columns alone (no subquery among them: a
 *   decorrelation belongs to the whole block), so their scans keep key
 *   bounds and filters and the item runs only for rows that pass; their
 *   lateral join with the item becomes the block's first unit. This runs
 *   first thing when the block is planned (opt_block_plan), so the join
 *   search never sees a lateral unit and never orders one before what it
 *   reads. Earlier lateral units are inside the prefix, folded when it is
 *   planned.
 */
#include <string.h>

#include "exec/exec_ql.h"
#include "opt/opt_int.h"

op_t *opt_lateral_gen(lp_ctx_t *b, const lp_lateral_t *ll)
{
  xsubq_t *sq = ll->ll_sq;
  if (sq->xs_plan)
    return sq->xs_plan;
  op_t *plan;
  if (opt_gen_query(b, ll->ll_node, &plan) != CZ_OK)
    return NULL;
  if (ll->ll_on)
    plan = op_filter_new(b->lc_a, plan, ll->ll_on);
  sq->xs_plan = plan;
  return plan;
}

static void max_col(void *ctx, xnode_t *col)
{
  int *m = ctx;
  if (col->x_index > *m)
    *m = col->x_index;
}

int opt_lateral_fold(lp_ctx_t *b, lp_block_t *fb)
{
  int k = -1;
  for (int u = 1; u < fb->fb_nunits; u++)
    if (fb->fb_units[u].un_lateral)
      k = u;
  if (k < 0)
    return CZ_OK;
  lp_rel_t *lu = &fb->fb_units[k];
  int base = lu->un_base;  /* the units before it are the block's columns [0, base) */
  lp_block_t *prefix = arena_zalloc(b->lc_a, sizeof(*prefix));
  prefix->fb_nunits = prefix->fb_ucap = k;
  prefix->fb_units = fb->fb_units;
  prefix->fb_conj = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(fb->fb_nconj + 1));
  prefix->fb_cap = fb->fb_nconj + 1;
  int keep = 0;
  for (int i = 0; i < fb->fb_nconj; i++) {
    int m = -1;
    bd_node_cols(fb->fb_conj[i], max_col, &m);
    if (m >= 0 && m < base && !bd_node_has_subq(fb->fb_conj[i]))
      prefix->fb_conj[prefix->fb_nconj++] = fb->fb_conj[i];
    else
      fb->fb_conj[keep++] = fb->fb_conj[i];
  }
  fb->fb_nconj = keep;
  /* the prefix's row is the block's first base columns */
  prefix->fb_width = base;
  prefix->fb_used = fb->fb_used;
  prefix->fb_used_cap = fb->fb_used_cap < base ? fb->fb_used_cap : base;
  prefix->fb_subq = fb->fb_subq;
  prefix->fb_scope = fb->fb_scope;
  op_t *left;
  if (opt_block_plan(b, prefix, &left) != CZ_OK || !opt_lateral_gen(b, lu->un_lateral))
    return CZ_ERR;
  lp_rel_t merged = {.un_base = 0, .un_width = base + lu->un_width,
                     .un_op = op_lateral_new(b->lc_a, left, lu->un_lateral->ll_sq, JOIN_INNER)};
  int rest = fb->fb_nunits - k - 1;
  lp_rel_t *units = arena_zalloc(b->lc_a, sizeof(lp_rel_t) * (size_t)(rest + 2));
  units[0] = merged;
  memcpy(units + 1, fb->fb_units + k + 1, sizeof(lp_rel_t) * (size_t)rest);
  fb->fb_units = units;
  fb->fb_nunits = fb->fb_ucap = rest + 1;
  return CZ_OK;
}
