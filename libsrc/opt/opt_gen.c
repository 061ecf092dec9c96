/* opt_gen — the generator of a SELECT block's upper part: the planned
 * join block's operators and the block's logical upper part (lp_upper_t,
 * sql/sql_logical.h) in, the block's operator tree out. Every physical
 * choice above the joins is made here: parallel or not and where the
 * Gather goes, a streaming, partial / final or single hash group-by,
 * HAVING inside a Gather, a parallel sort, whether the rows already come
 * in ORDER BY's order, a top-k sort.
 *
 * Design notes:
 * - The binder fixed every row layout (sql_logical.h, "a query block's
 *   upper part"), so nothing here rewrites an expression: each choice
 *   gives the layout the binder assumed (opt_par_agg's projection puts
 *   the single group-by's back).
 * - Order of the operators, bottom up: [Gather] → [sort for ordered
 *   aggregates →] group-by [→ HAVING] → windows → [ProjectSet →]
 *   projection → DISTINCT → sort → DISTINCT ON → LockRows →
 *   TOP → LIMIT / OFFSET → projection dropping the hidden columns.
 *   Rows are locked after the sort: a top-k sort would hand LockRows only
 *   the first rows, and SKIP LOCKED needs the ones after them; DISTINCT
 *   ON's LIMIT counts the rows it keeps, so no top-k there either.
 */
#include "opt/opt_card.h"
#include "opt/opt_int.h"
#include "exec/exec_ql.h"
#include "exec/exec_pg.h"

/* Whether the join block's plan already comes in the order the block
 * wished of it (fb_order: ORDER BY … LIMIT over the block's columns). */
static bool order_from_plan(const lp_block_t *fb, const op_t *plan)
{
  op_order_t have;
  op_order(plan, &have);
  return op_order_satisfies(&have, fb->fb_order, fb->fb_nord);
}

/* ORDER BY inside the aggregates: the group-by's input sorted by it (the
 * hash group-by keeps each group's rows in input order), the order's
 * values as columns past the block's row. */
static op_t *gen_agg_order(lp_ctx_t *b, const lp_upper_t *u, op_t *in)
{
  int base = in->o_ncols, n = u->lu_nagg_order;
  xnode_t **cols = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(base + n));
  sort_key_t *keys = arena_zalloc(b->lc_a, sizeof(sort_key_t) * (size_t)n);
  for (int c = 0; c < base; c++)
    cols[c] = bd_col(b->lc_b, c, in->o_types[c]);
  for (int i = 0; i < n; i++) {
    cols[base + i] = u->lu_agg_order[i];
    keys[i].sk_col = base + i;
    keys[i].sk_desc = u->lu_agg_order_desc[i];
    keys[i].sk_nulls_first = u->lu_agg_order_nf[i];
  }
  return op_sort_new(b->lc_a, op_project_new(b->lc_a, in, base + n, cols), n, keys);
}

/* The group-by (plain keys, or grouping sets) and HAVING over plan;
 * par_agg: the parallel or streaming form chosen, NULL for one hash
 * group-by. */
static op_t *gen_group(lp_ctx_t *b, const lp_upper_t *u, op_t *plan, op_t *par_agg)
{
  const lp_block_t *from = u->lu_from;
  double groups = -1;
  if (u->lu_nagg_order)
    plan = gen_agg_order(b, u, plan);
  if (u->lu_sets) {
    const lp_gsets_t *gs = u->lu_sets;
    plan = op_groupsets_new(b->lc_a, plan, u->lu_ngroup, u->lu_group, gs->lg_nsets, gs->lg_set_n,
                            gs->lg_sets, u->lu_nagg, u->lu_aggs, gs->lg_ngrp, gs->lg_grp);
  } else {
    /* the groups' estimate: what a derived table or a decorrelated
     * subquery over this block weighs (opt_card.c) */
    groups = opt_group_rows(b, from, u->lu_group, u->lu_ngroup, opt_block_rows(b, from, plan));
    plan = par_agg ? par_agg
                   : op_hashagg_new(b->lc_a, plan, u->lu_ngroup, u->lu_group, u->lu_nagg,
                                    u->lu_aggs);
    if (groups >= 0 && u->lu_ngroup > 0)
      plan->o_est_rows = groups;
  }
  if (u->lu_having) {
    /* over a parallel streaming group-by: tested in every thread */
    op_t *in_par = par_agg ? opt_agg_having(b, plan, u->lu_having) : NULL;
    plan = in_par ? in_par : op_filter_new(b->lc_a, plan, u->lu_having);
    if (groups >= 0)
      plan->o_est_rows = opt_having_rows(b, groups, u->lu_having);
    if (in_par)
      in_par->o_in->o_est_rows = plan->o_est_rows;
  }
  return plan;
}

/* The windows, each over the one before. Without GROUP BY their first
 * input is the block's row: SELECT without FROM reads one dummy column
 * the row lacks, so it is projected to the row's width first. */
static int gen_windows(lp_ctx_t *b, const lp_upper_t *u, op_t **plan)
{
  if (u->lu_nwin == 0)
    return CZ_OK;
  if (!u->lu_grouped && (*plan)->o_ncols != u->lu_width) {
    xnode_t **row = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(u->lu_width + 1));
    for (int c = 0; c < u->lu_width; c++)
      row[c] = bd_col(b->lc_b, c, (*plan)->o_types[c]);
    *plan = op_project_new(b->lc_a, *plan, u->lu_width, row);
  }
  for (int k = 0; k < u->lu_nwin; k++) {
    if ((*plan)->o_ncols != u->lu_wins[k].lw_base) {
      err_set(b->lc_e, SQLSTATE_INTERNAL, "window input has %d columns, the binder laid out %d",
              (*plan)->o_ncols, u->lu_wins[k].lw_base);
      return CZ_ERR;
    }
    *plan = opt_window_build(b, *plan, &u->lu_wins[k]);
  }
  return CZ_OK;
}

/* The select list's set-returning functions: a ProjectSet whose counter
 * columns follow the row the binder laid out (the last window's, the
 * group-by's, or the block's: SELECT without FROM reads one dummy column
 * the row lacks, projected away first). */
static int gen_srf(lp_ctx_t *b, const lp_upper_t *u, op_t **plan)
{
  int base = u->lu_srf_base;
  if (!u->lu_grouped && u->lu_nwin == 0 && (*plan)->o_ncols != base) {
    xnode_t **row = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(base + 1));
    for (int c = 0; c < base; c++)
      row[c] = bd_col(b->lc_b, c, (*plan)->o_types[c]);
    *plan = op_project_new(b->lc_a, *plan, base, row);
  }
  if ((*plan)->o_ncols != base) {
    err_set(b->lc_e, SQLSTATE_INTERNAL,
            "set-returning functions' input has %d columns, the binder laid out %d",
            (*plan)->o_ncols, base);
    return CZ_ERR;
  }
  *plan = op_project_set_new(b->lc_a, *plan, u->lu_nsrf, u->lu_srf_bounds);
  return CZ_OK;
}

int opt_gen_upper(lp_ctx_t *b, const lp_upper_t *u, op_t *plan, op_t **out)
{
  lp_block_t *from = u->lu_from;
  int ngroup = u->lu_ngroup, nord = u->lu_nord;
  /* ordered aggregates need their group's rows in order: one hash group-by */
  bool plain_group = u->lu_grouped && !u->lu_sets && !u->lu_nagg_order;
  /* parallel plans (opt_par.c) */
  int par = u->lu_par ? opt_par_workers(b, from, plan) : 0;
  /* the join block already in ORDER BY's order with a LIMIT: the first
   * rows of one thread's scan answer, a parallel plan would read them all */
  if (par && from->fb_nord && order_from_plan(from, plan))
    par = 0;
  if (par)
    opt_par_builds(b, from, plan, par);
  op_t *par_agg = NULL;
  /* input already grouped by the keys (an index order): a streaming
   * group-by, under a Gather of its own when parallel (opt_group.c) */
  if (plain_group && ngroup > 0)
    par_agg = opt_agg_ordered(b, plan, par, ngroup, u->lu_group, u->lu_nagg, u->lu_aggs);
  if (par && plain_group && !par_agg) {
    double rows = opt_block_rows(b, from, plan);
    par_agg = opt_par_agg(b, plan, par, ngroup, u->lu_group, u->lu_nagg, u->lu_aggs, rows,
                          ngroup > 0 ? opt_group_rows(b, from, u->lu_group, ngroup, rows) : 1);
  }
  /* ORDER BY over a parallel pipeline, nothing grouped or windowed: the
   * select list runs on every thread too, each thread sorts the rows it
   * made and a Parallel Sort merges them */
  bool par_sort = par && !u->lu_grouped && nord > 0 && !u->lu_distinct && !u->lu_ndon &&
                  u->lu_nwin == 0 && u->lu_nsrf == 0;
  for (int t = 0; par_sort && t < u->lu_ntarget; t++)
    par_sort = opt_par_safe(u->lu_targets[t]);
  if (par && !par_agg && !par_sort)
    plan = opt_par_gather(b, plan, par);
  if (u->lu_grouped)
    plan = gen_group(b, u, plan, par_agg);
  if (gen_windows(b, u, &plan) != CZ_OK)
    return CZ_ERR;
  if (u->lu_nsrf && gen_srf(b, u, &plan) != CZ_OK)
    return CZ_ERR;
  plan = op_project_new(b->lc_a, plan, u->lu_ntarget, u->lu_targets);
  if (u->lu_distinct)
    plan = op_distinct_new(b->lc_a, plan);
  op_t *sort_op = par_sort ? opt_par_sort(b, plan, par, nord, u->lu_keys) : NULL;
  if (sort_op)
    plan = sort_op;
  op_order_t have;
  op_order(plan, &have);
  if (nord && !sort_op && !op_order_satisfies(&have, u->lu_keys, nord))
    plan = sort_op = op_sort_new(b->lc_a, plan, nord, u->lu_keys);
  if (u->lu_ndon) {
    /* the first row of each run of equal DISTINCT ON values, in the
     * ORDER BY's order; LIMIT counts the rows kept, so no top-k sort */
    plan = op_distinct_on_new(b->lc_a, plan, u->lu_ndon, u->lu_don);
    sort_op = NULL;
  }
  xnode_t *lim = u->lu_top ? u->lu_top : u->lu_limit;
  xnode_t *off = u->lu_top ? NULL : u->lu_offset;
  if (sort_op && lim && !u->lu_lock)
    op_sort_set_limit(sort_op, lim, off);
  if (u->lu_lock && u->lu_lock->lk_n > 0) {
    const lp_lock_t *lk = u->lu_lock;
    plan = op_lockrows_new(b->lc_a, plan, lk->lk_n, lk->lk_tabs, lk->lk_strength, lk->lk_wait, lim,
                           off, lk->lk_recheck);
  }
  if (u->lu_top)
    plan = op_limit_new(b->lc_a, plan, u->lu_top, NULL);
  if (u->lu_limit || u->lu_offset)
    plan = op_limit_new(b->lc_a, plan, u->lu_limit, u->lu_offset);
  if (u->lu_ntarget > u->lu_nvis) {
    xnode_t **vis = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(u->lu_nvis + 1));
    for (int t = 0; t < u->lu_nvis; t++)
      vis[t] = bd_col(b->lc_b, t, u->lu_targets[t]->x_type);
    plan = op_project_new(b->lc_a, plan, u->lu_nvis, vis);
  }
  *out = plan;
  return CZ_OK;
}
