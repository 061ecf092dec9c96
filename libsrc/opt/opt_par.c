/* opt_par — parallel plans: a Gather (exec op_gather.c) over the
 * pipeline of a FROM block whose driving scan is large — the scan, its
 * filter, and the joins along the probe side (hash and nested-loop joins
 * whose builds are made once and shared, index lookup and lateral joins
 * run by each thread) — and for a group-by over such a block a partial
 * aggregation in every thread below the Gather with a final one above
 * that merges the partials.
 *
 * Design notes:
 * - Only where the answer cannot depend on which thread reads which rows:
 *   a top-level query block (no correlation, not a subquery being
 *   decorrelated), a driving scan (the leaf along first inputs) of one of
 *   the block's own tables whose storage splits scans, no RIGHT / FULL
 *   join on the probe side (they mark build rows), and every expression
 *   of the block free of subqueries and of volatile functions (they would
 *   run in a worker context, and a subquery's state is its own
 *   execution's). Build sides may hold anything: they run once, on the
 *   session's thread.
 * - A derived table planned in parallel (a Gather over its pipeline, its
 *   select list above) that drives the block — Q9's
 *   `SELECT … FROM (SELECT … FROM part, lineitem, …) GROUP BY …` — gives
 *   its Gather to the block (op_gather_inner / op_gather_lift): its
 *   select list, the block's joins over it and the partial group-by then
 *   run on every thread, where the block's group-by alone would run on
 *   the session's thread over every row the derived table makes.
 * - Large means the driving table holds at least PAR_MIN_ROWS rows
 *   ([Parameters] ParallelMinRows; its
 *   row count from the table's statistics, not an estimate after
 *   filters): below that starting threads costs more than it saves.
 *   Workers: ThreadsPerQuery - 1 (what MaxQueryThreads leaves free is
 *   taken at run time, EXPLAIN ANALYZE says how many were launched).
 * - With group keys the final group-by is a Parallel Merge's (exec
 *   op_hashagg_par.c): partitioned by key hash, merged on every thread;
 *   a block expected to have at most PAR_DIRECT_RATIO rows a group has no
 *   partial phase (par_agg_direct).
 * - The merge: count and count(*) partials are summed (and cast back to
 *   bigint), sum partials summed (a sum of int2/int4 is bigint: the merged
 *   numeric is cast back), min / max / bool_and / bool_or take the same
 *   aggregate again, avg is computed as a partial sum and count and
 *   divided at the end exactly as the group-by divides (numeric by
 *   numeric, or float8 by float8). DISTINCT aggregates, string_agg and
 *   aggregates of intervals get no partial plan (a Gather still goes
 *   below the single group-by). A projection above the final group-by
 *   gives the layout the single group-by would have (keys, then one
 *   column per aggregate), so the select list binds to it unchanged.
 */
#include <string.h>

#include "opt/opt_int.h"
#include "opt/opt_card.h"

#define PAR_MIN_ROWS 100000.0
/* A group-by expected to see at most this many rows per group skips the
 * partial phase (par_agg_direct). */
#define PAR_DIRECT_RATIO 8.0

/* ParallelMinRows, or PAR_MIN_ROWS when the environment leaves it 0. */
static double par_min_rows(const lp_ctx_t *b)
{
  double m = b->lc_env->pe_par_min_rows;
  return m > 0 ? m : PAR_MIN_ROWS;
}

bool opt_par_safe(const xnode_t *x)
{
  if (!x)
    return true;
  if (x->x_kind == X_SUBQ)
    return false;
  if (x->x_kind == X_FUNC && (x->x_func->fd_flags & XF_VOLATILE))
    return false;
  for (int i = 0; i < x->x_nargs; i++)
    if (!opt_par_safe(x->x_args[i]))
      return false;
  return true;
}

/* The rows of the plain table unit whose scan is plan's driving scan, or
 * -1 when the driver is not one of the block's own tables (it lies inside
 * a derived table or subquery: not split). */
static double driver_rows(lp_ctx_t *b, const lp_block_t *fb, const op_t *drv)
{
  const void *h = op_scan_table(drv);
  for (int i = 0; i < fb->fb_nunits; i++) {
    const lp_rel_t *u = &fb->fb_units[i];
    if (u->un_table && u->un_table->tb_handle == h)
      return opt_table_rows(b, u->un_table);
  }
  return -1;
}

int opt_par_workers(lp_ctx_t *b, const lp_block_t *fb, const op_t *plan)
{
  int threads = b->lc_env->pe_threads;
  if (threads <= 1 || b->lc_decor || fb->fb_nunits < 1)
    return 0;
  for (int i = 0; i < fb->fb_nunits; i++)
    if (fb->fb_units[i].un_rowid)
      return 0;
  for (int i = 0; i < fb->fb_nconj; i++)
    if (!opt_par_safe(fb->fb_conj[i]))
      return 0;
  /* the pipeline from plan down to its driving scan (op_gather_driver:
   * joins on the way keep their builds whole, made once and shared) */
  /* a group-by on top (a derived table's own) is a whole one, not the
   * partial op_gather_driver lets a Gather hold at its top */
  if (strcmp(plan->o_vt->ov_name, "HashAggregate") == 0 || op_is_groupagg(plan))
    return 0;
  /* a derived table planned in parallel drives the block: the block's
   * Gather takes the place of the derived table's (opt_par_builds) */
  const op_t *drv = op_gather_driver(plan);
  if (drv ? driver_rows(b, fb, drv) < par_min_rows(b) : !op_gather_inner(plan, opt_par_safe))
    return 0;
  return threads - 1;
}

void opt_par_builds(lp_ctx_t *b, const lp_block_t *fb, op_t *plan, int workers)
{
  const op_t *inner = op_gather_driver(plan) ? NULL : op_gather_inner(plan, opt_par_safe);
  if (inner)
    op_gather_lift(plan, inner);
  for (op_t *o = plan; o && o->o_in; o = o->o_in) {
    op_t *r = o->o_in2;
    if (!r || !op_join_shareable(o) || strcmp(r->o_vt->ov_name, "HashAggregate") == 0 ||
        op_is_groupagg(r))
      continue;
    /* a plain table of the block (its filters are the block's conjuncts,
     * already found safe); a derived table planned its own */
    const op_t *drv = op_gather_driver(r);
    if (!drv || driver_rows(b, fb, drv) < par_min_rows(b))
      continue;
    op_t *g = op_gather_new(b->lc_a, r, workers);
    if (g)
      o->o_in2 = g;
  }
}

op_t *opt_par_gather(lp_ctx_t *b, op_t *plan, int workers)
{
  op_t *g = op_gather_new(b->lc_a, plan, workers);
  return g ? g : plan;
}

op_t *opt_par_sort(lp_ctx_t *b, op_t *rows, int workers, int nkeys, const sort_key_t *keys)
{
  op_t *g = op_gather_new(b->lc_a, rows, workers);
  return g ? op_sort_par_new(b->lc_a, g, nkeys, keys) : NULL;
}

/* The type sum() gives over t (ex_agg.c xagg_resolve). */
static ty_t sum_type(ty_t t)
{
  ty_id_t id = t.t_id;
  return ty_plain(id == TY_INT2 || id == TY_INT4 ? TY_INT8
                  : id == TY_INT8 || id == TY_NUMERIC ? TY_NUMERIC : id);
}

/* Many groups, few rows each: no partial group-by (it would make about
 * as many groups as it reads, and the merge all of them again). The
 * threads hand their rows — the keys, then the aggregates' arguments —
 * straight to the hash partitions, and each partition is aggregated
 * whole by one thread: the single group-by's output, computed once. */
static op_t *par_agg_direct(lp_ctx_t *b, op_t *in, int workers, int ngroup, xnode_t **group,
                            int nagg, const agg_spec_t *aggs)
{
  xnode_t **ex = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(ngroup + nagg + 1));
  xnode_t **fk = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(ngroup + 1));
  agg_spec_t *fs = arena_zalloc(b->lc_a, sizeof(agg_spec_t) * (size_t)(nagg + 1));
  int n = 0;
  for (int k = 0; k < ngroup; k++) {
    ex[n++] = group[k];
    fk[k] = bd_col(b->lc_b, k, group[k]->x_type);
  }
  for (int i = 0; i < nagg; i++) {
    fs[i] = aggs[i];
    if (aggs[i].ag_arg) {
      ex[n] = aggs[i].ag_arg;
      fs[i].ag_arg = bd_col(b->lc_b, n++, aggs[i].ag_arg->x_type);
    }
  }
  op_t *rows = op_project_new(b->lc_a, in, n, ex);
  rows->o_est_rows = in->o_est_rows;
  op_t *g = op_gather_new(b->lc_a, rows, workers);
  if (!g)
    return NULL;
  op_t *leaf = op_pmerge_leaf_new(b->lc_a, rows);
  op_t *fin = op_hashagg_new(b->lc_a, leaf, ngroup, fk, nagg, fs);
  op_hashagg_set_mode(fin, "partitioned ");
  return op_pmerge_new(b->lc_a, g, fin, leaf, ngroup);
}

op_t *opt_par_agg(lp_ctx_t *b, op_t *in, int workers, int ngroup, xnode_t **group, int nagg,
                 const agg_spec_t *aggs, double rows, double groups)
{
  for (int k = 0; k < ngroup; k++)
    if (!opt_par_safe(group[k]))
      return NULL;
  for (int i = 0; i < nagg; i++)
    if (aggs[i].ag_distinct || aggs[i].ag_arg2 || !opt_par_safe(aggs[i].ag_arg))
      return NULL;
  if (ngroup > 0 && groups > 0 && rows > 0 && rows <= PAR_DIRECT_RATIO * groups)
    return par_agg_direct(b, in, workers, ngroup, group, nagg, aggs);
  agg_spec_t *ps = arena_zalloc(b->lc_a, sizeof(agg_spec_t) * (size_t)(2 * nagg + 1));
  int *first = arena_alloc(b->lc_a, sizeof(int) * (size_t)(nagg + 1));
  int np = 0;
  for (int i = 0; i < nagg; i++) {
    const agg_spec_t *a = &aggs[i];
    if (a->ag_distinct || a->ag_arg2 || !opt_par_safe(a->ag_arg) || a->ag_type.t_id == TY_INTERVAL)
      return NULL;
    first[i] = np;
    switch (a->ag_kind) {
    case XAGG_COUNT_STAR:
    case XAGG_COUNT:
    case XAGG_SUM:
    case XAGG_MIN:
    case XAGG_MAX:
    case XAGG_BOOL_AND:
    case XAGG_BOOL_OR:
      ps[np++] = *a;
      break;
    case XAGG_AVG: {
      xnode_t *arg = a->ag_arg;
      if (a->ag_type.t_id == TY_FLOAT8 && arg->x_type.t_id != TY_FLOAT8 &&
          !(arg = bd_coerce(b->lc_b, arg, ty_plain(TY_FLOAT8))))
        return NULL;
      ps[np++] = (agg_spec_t){XAGG_SUM, false, arg, NULL, sum_type(arg->x_type)};
      ps[np++] = (agg_spec_t){XAGG_COUNT, false, a->ag_arg, NULL, ty_plain(TY_INT8)};
      break;
    }
    default:
      return NULL;
    }
  }
  op_t *partial = op_hashagg_new(b->lc_a, in, ngroup, group, np, ps);
  op_hashagg_set_mode(partial, "partial ");
  op_t *g = op_gather_new(b->lc_a, partial, workers);
  if (!g)
    return NULL;
  /* the final group-by over the partials: keys, then partial columns */
  xnode_t **fk = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(ngroup + 1));
  xnode_t **out = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(ngroup + nagg + 1));
  for (int k = 0; k < ngroup; k++)
    fk[k] = out[k] = bd_col(b->lc_b, k, group[k]->x_type);
  agg_spec_t *fs = arena_zalloc(b->lc_a, sizeof(agg_spec_t) * (size_t)(np + 1));
  for (int j = 0; j < np; j++) {
    xnode_t *c = bd_col(b->lc_b, ngroup + j, ps[j].ag_type);
    xagg_t k = ps[j].ag_kind;
    bool summed = k == XAGG_COUNT || k == XAGG_COUNT_STAR || k == XAGG_SUM;
    fs[j] = (agg_spec_t){summed ? XAGG_SUM : k, false, c, NULL,
                         summed ? sum_type(ps[j].ag_type) : ps[j].ag_type};
  }
  /* with group keys the final group-by runs on every thread, each
   * merging whole hash partitions of the partial groups (op_hashagg_par.c);
   * without, its one group is merged on the session's thread */
  op_t *final;
  if (ngroup > 0) {
    op_t *leaf = op_pmerge_leaf_new(b->lc_a, partial);
    op_t *fin = op_hashagg_new(b->lc_a, leaf, ngroup, fk, np, fs);
    op_hashagg_set_mode(fin, "final ");
    final = op_pmerge_new(b->lc_a, g, fin, leaf, ngroup);
    if (!final)
      return NULL;
  } else {
    final = op_hashagg_new(b->lc_a, g, ngroup, fk, np, fs);
    op_hashagg_set_mode(final, "final ");
  }
  for (int i = 0; i < nagg; i++) {
    const agg_spec_t *a = &aggs[i];
    int j = first[i];
    xnode_t *c = bd_col(b->lc_b, ngroup + j, fs[j].ag_type);
    xnode_t *x = c;
    if (a->ag_kind == XAGG_AVG) {
      ty_t t = a->ag_type;
      xnode_t *cnt = bd_col(b->lc_b, ngroup + j + 1, fs[j + 1].ag_type);
      xnode_t *l = c->x_type.t_id == t.t_id ? c : bd_cast(b->lc_b, c, t, 0);
      xnode_t *r = bd_cast(b->lc_b, cnt, t, 0);
      if (!l || !r || bd_op(b->lc_b, XOP_DIV, l, r, 0, &x) != CZ_OK)
        return NULL;
    } else if (c->x_type.t_id != a->ag_type.t_id && !(x = bd_cast(b->lc_b, c, a->ag_type, 0)))
      return NULL;
    if (x->x_type.t_id != a->ag_type.t_id)
      return NULL;
    out[ngroup + i] = x;
  }
  op_t *p = op_project_new(b->lc_a, final, ngroup + nagg, out);
  p->o_est_rows = final->o_est_rows;
  return p;
}
