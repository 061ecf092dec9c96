/* opt_group — a GROUP BY over input that already comes grouped: the
 * streaming group-by (exec op_groupagg.c) instead of a hash table, on one
 * thread or, in a parallel block, on every thread under a Gather whose
 * scan is split on group boundaries.
 *
 * Design notes:
 * - "Grouped" is read from op_order: the input comes sorted by a list of
 *   keys (the driving scan's index order, through filters and
 *   projections), and the group keys are plain columns that are either
 *   constant (equality-bound key columns) or exactly the first G of those
 *   sorted keys, in any order among themselves. Equal group keys are then
 *   adjacent (the key encoding makes equal values — NULLs, NUMERIC scales
 *   — equal bytes). An input ending in a unique key whose sorted keys are
 *   all group keys also qualifies (each group is one row).
 * - Parallel (workers > 0, the block would get a Gather): the same test,
 *   and the input must be a Gather pipeline (op_gather_driver); its
 *   driving scan is told to split only between keys that differ on its
 *   fixed columns and those G (op_scan_set_align), so each thread's
 *   groups are whole. The threads' union is the answer: no partial and
 *   final phases, no merge. A pipeline is the scan's order only through
 *   operators op_order passes it through (no hash join), so the morsel
 *   order of each thread is the order the group-by relies on.
 * - Aggregates the streaming group-by does not run (op_groupagg_ok) keep
 *   the hash plans.
 */
#include "opt/opt_int.h"

/* How many of have's sorted keys the group keys take (G above), or -1
 * when the rows do not come grouped by them. */
static int group_prefix(const op_order_t *have, int ngroup, xnode_t **group)
{
  if (have->oo_n == 0 && have->oo_nconst == 0 && !have->oo_unique)
    return -1; /* no order at all */
  bool used[OP_ORDER_MAX] = {false};
  int nvar = 0;
  bool other = false;           /* a group key that is no sorted key */
  for (int k = 0; k < ngroup; k++) {
    const xnode_t *x = group[k];
    if (x->x_kind != X_COL)
      return -1;
    bool fixed = false;
    for (int c = 0; c < have->oo_nconst && !fixed; c++)
      fixed = have->oo_const[c] == x->x_index;
    if (fixed)
      continue;
    int at = -1;
    for (int i = 0; i < have->oo_n && at < 0; i++)
      if (have->oo_keys[i].sk_col == x->x_index)
        at = i;
    if (at < 0) {
      other = true;
      continue;
    }
    if (!used[at])
      nvar++;
    used[at] = true;
  }
  /* the keys taken must be the first nvar sorted keys; with another
   * group key too, all of them and unique (each group one row) */
  if (other && !(have->oo_unique && nvar == have->oo_n))
    return -1;
  for (int i = 0; i < nvar; i++)
    if (!used[i])
      return -1;
  return nvar;
}

op_t *opt_agg_ordered(lp_ctx_t *b, op_t *in, int workers, int ngroup, xnode_t **group, int nagg,
                      const agg_spec_t *aggs)
{
  if (ngroup <= 0 || !op_groupagg_ok(nagg, aggs))
    return NULL;
  op_order_t have;
  op_order(in, &have);
  int g = group_prefix(&have, ngroup, group);
  if (g < 0)
    return NULL;
  if (workers <= 0)
    return op_groupagg_new(b->lc_a, in, ngroup, group, nagg, aggs);
  op_t *drv = (op_t *)op_gather_driver(in);
  if (!drv)
    return NULL;
  op_t *agg = op_groupagg_new(b->lc_a, in, ngroup, group, nagg, aggs);
  if (!agg)
    return NULL;
  /* the scan is split under this Gather only (a coarser split would
   * still be right for any other use of it) */
  op_scan_set_align(drv, g);
  return op_gather_new(b->lc_a, agg, workers);
}

op_t *opt_agg_having(lp_ctx_t *b, op_t *plan, xnode_t *having)
{
  if (!op_is_gather(plan) || !op_is_groupagg(plan->o_in) || !opt_par_safe(having))
    return NULL;
  op_t *f = op_filter_new(b->lc_a, plan->o_in, having);
  if (!op_gather_ok(f))
    return NULL;
  plan->o_in = f;
  return plan;
}
