/* sql_bind_decor — decorrelation: WHERE's EXISTS, NOT EXISTS, IN and
 * NOT IN subqueries become semi and anti joins that the join search
 * orders like any other unit (sql/README.md, "Decorrelation").
 *
 * Design notes:
 * - A subquery is bound once as a per-row X_SUBQ (today's path, which
 *   stays whenever decorrelation does not apply). When its conjunct is a
 *   top-level conjunct of WHERE, the planner binds the subquery's text
 *   again in decorrelating mode (b_decor): its top block pulls out the
 *   conjuncts that read the outer row — `inner = outer column`
 *   equalities become join keys, any other (e.g. Q21's `<>`) a residual
 *   of the join — and outputs [IN's value,] the keys' inner sides and the
 *   inner columns the residuals read, uncorrelated. The subquery's other
 *   conjuncts stay inside it.
 * - When the subquery reads one stored table (and its outputs are that
 *   table's columns) the unit carries the table and the subquery's own
 *   conjuncts (look_form, lp_rel_t un_look_*): the join planner may probe
 *   the table's index a batch of outer rows at a time (an Index Lookup
 *   Semi / Anti Join: TPC-H Q4, Q21, Q22) instead of hashing all of it.
 * - Otherwise, when a correlating equality's inner side leads a table's
 *   primary key or an index, the per-row subquery is an index probe per
 *   outer row; the join planner then weighs both ways (opt_join.c,
 *   keep_per_row) and may plan the block again with the subquery left
 *   per row (fb_keep).
 * - An uncorrelated IN / NOT IN needs no rebinding: its plan as bound
 *   (any shape) is the unit.
 * - It applies only when every correlation of the subquery was pulled out
 *   (no outer reference left in its select list, its other conjuncts, its
 *   own subqueries or outer joins), the block has no grouping,
 *   aggregates, windows, LIMIT / OFFSET, and there is at least one key.
 * - NOT IN becomes a null-aware anti join, and only when uncorrelated:
 *   its NULL rules hold over the subquery's whole result. A residual that
 *   reads no inner column would move into the outer WHERE: right for a
 *   semi join, wrong for an anti join (refused there).
 * - The new unit's columns lie past the block's row; the conjuncts that
 *   join it are the keys (outer column = its column) and the residuals
 *   rewritten over the block's row extended by them.
 * - A comparison with a correlated scalar aggregate subquery becomes an
 *   inner unit grouped by the keys; over one table it also carries the
 *   index lookup aggregate form (agg_look_form: the planner may compute
 *   each outer row's value by batched index probes), the only form for
 *   count() (un_agg_only).
 * - An uncorrelated IN over a unique column of one table joins as an
 *   inner unit (unique_in). */
#include <string.h>

#include "sql/sql_bind_int.h"

static bool is_ours(const bd_decor_t *dr, const xnode_t *x)
{
  if (x->x_kind != X_PARAM)
    return false;
  for (int i = 0; i < dr->dr_nparams; i++)
    if (dr->dr_params[i] == x)
      return true;
  return false;
}

/* What x reads: inner columns, dr_sq's correlation parameters (counted);
 * bad: a subquery, or a correlation value that is not an outer column. */
static void refs(const bd_decor_t *dr, const xnode_t *x, bool *inner, int *ours, bool *bad)
{
  if (x->x_kind == X_SUBQ)
    *bad = true;
  else if (x->x_kind == X_COL)
    *inner = true;
  else if (is_ours(dr, x)) {
    (*ours)++;
    const xnode_t *c = dr->dr_sq->xs_corr[x->x_index];
    if (c->x_kind != X_COL)
      *bad = true;
  }
  for (int i = 0; i < x->x_nargs; i++)
    refs(dr, x->x_args[i], inner, ours, bad);
}

static void collect_cols(bd_t *b, bd_decor_t *dr, xnode_t *x)
{
  if (x->x_kind == X_COL) {
    for (int i = 0; i < dr->dr_ncols; i++)
      if (dr->dr_cols[i]->x_index == x->x_index)
        return;
    xnode_t **n = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(dr->dr_ncols + 1));
    if (dr->dr_ncols)
      memcpy(n, dr->dr_cols, sizeof(xnode_t *) * (size_t)dr->dr_ncols);
    n[dr->dr_ncols++] = x;
    dr->dr_cols = n;
  }
  for (int i = 0; i < x->x_nargs; i++)
    collect_cols(b, dr, x->x_args[i]);
}

void bd_decor_extract(bd_t *b, bd_decor_t *dr, lp_block_t *fb)
{
  int n = fb->fb_nconj;
  dr->dr_inner = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(n + 1));
  dr->dr_outer = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(n + 1));
  dr->dr_resid = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(n + 1));
  int keep = 0;
  for (int i = 0; i < n; i++) {
    xnode_t *x = fb->fb_conj[i];
    bool inner = false, bad = false;
    int ours = 0;
    refs(dr, x, &inner, &ours, &bad);
    if (ours == 0 || bad) {
      fb->fb_conj[keep++] = x;  /* a bad one leaves a correlation: refused later */
      continue;
    }
    dr->dr_consumed += ours;
    if (x->x_kind == X_OP && x->x_op == XOP_EQ && x->x_nargs == 2) {
      for (int s = 0; s < 2; s++) {
        xnode_t *p = x->x_args[s], *o = x->x_args[1 - s];
        bool oi = false, ob = false;
        int oo = 0;
        refs(dr, o, &oi, &oo, &ob);
        if (!is_ours(dr, p) || oo || ob || o->x_type.t_id != p->x_type.t_id)
          continue;
        for (int u = 0; u < fb->fb_nunits && o->x_kind == X_COL; u++) {
          const lp_rel_t *un = &fb->fb_units[u];
          const sp_table_t *t = un->un_table;
          if (!t)
            continue;
          int c = o->x_index - un->un_base;
          if (t->tb_npk > 0 && c == t->tb_pk[0])
            dr->dr_key_probe = true;
          for (int ix = 0; ix < t->tb_nindexes; ix++)
            if (t->tb_indexes[ix].ix_ncols > 0 && t->tb_indexes[ix].ix_cols[0] == c)
              dr->dr_key_probe = true;
        }
        dr->dr_inner[dr->dr_nkeys] = o;
        dr->dr_outer[dr->dr_nkeys++] = dr->dr_sq->xs_corr[p->x_index];
        x = NULL;
        break;
      }
      if (!x)
        continue;
    }
    if (!inner && dr->dr_anti)
      dr->dr_fail = true;  /* NOT EXISTS (… WHERE outer.a > 5 …) is not a filter on a */
    dr->dr_resid[dr->dr_nresid++] = x;
    collect_cols(b, dr, x);
  }
  fb->fb_nconj = keep;
  /* one stored table whose other conjuncts are its own: the planner may
   * probe its indexes instead of joining the subquery's plan */
  dr->dr_table = NULL;
  const lp_rel_t *u0 = &fb->fb_units[0];
  if (fb->fb_nunits != 1 || !u0->un_table || u0->un_rowid || u0->un_kind != JOIN_INNER ||
      u0->un_lateral || u0->un_op || u0->un_node || u0->un_outer)
    return;
  for (int i = 0; i < keep; i++)
    if (bd_node_has_subq(fb->fb_conj[i]))
      return;
  dr->dr_table = u0->un_table;
  dr->dr_tbase = u0->un_base;
  dr->dr_nown = keep;
  dr->dr_own = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(keep + 1));
  if (keep)
    memcpy(dr->dr_own, fb->fb_conj, sizeof(xnode_t *) * (size_t)keep);
}

/* The unit's table form (lp_rel_t un_look_*), when the subquery reads one
 * stored table and every output of the unit is one of its columns. */
static void look_form(bd_t *b, const bd_decor_t *dr, lp_rel_t *u, const op_t *plan)
{
  const sp_table_t *t = dr->dr_table;
  if (!t || plan->o_ncols < 1)
    return;
  int n = plan->o_ncols;
  int *col = arena_alloc(b->b_a, sizeof(int) * (size_t)n);
  int k = 0;
  const xnode_t **outs = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)n);
  if (dr->dr_in)
    outs[k++] = dr->dr_target;
  for (int i = 0; i < dr->dr_nkeys && k < n; i++)
    outs[k++] = dr->dr_inner[i];
  for (int i = 0; i < dr->dr_ncols && k < n; i++)
    outs[k++] = dr->dr_cols[i];
  if (k != n)
    return;
  for (int i = 0; i < n; i++) {
    const xnode_t *x = outs[i];
    int c = x && x->x_kind == X_COL ? x->x_index - dr->dr_tbase : -1;
    col[i] = c >= 0 && c < t->tb_ncols ? c : -1;
  }
  /* the own conjuncts over the table's columns */
  int width = dr->dr_tbase + t->tb_ncols;
  int *map = arena_alloc(b->b_a, sizeof(int) * (size_t)(width + 1));
  for (int c = 0; c < width; c++)
    map[c] = c >= dr->dr_tbase ? c - dr->dr_tbase : -1;
  xnode_t **own = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(dr->dr_nown + 1));
  for (int i = 0; i < dr->dr_nown; i++)
    own[i] = dr->dr_tbase ? bd_node_remap(b, dr->dr_own[i], map) : dr->dr_own[i];
  u->un_look_table = t;
  u->un_look_alias = t->tb_name;
  u->un_look_nown = dr->dr_nown;
  u->un_look_own = own;
  u->un_look_col = col;
}

op_t *bd_decor_output(bd_t *b, bd_decor_t *dr, op_t *plan, xnode_t *target)
{
  int n = (dr->dr_in ? 1 : 0) + dr->dr_nkeys + dr->dr_ncols;
  xnode_t **x = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(n + 1));
  int k = 0;
  if (dr->dr_in) {
    if (!target)
      return plan;  /* dr_fail is set */
    if (!(target = bd_finish_unknown(b, target)))
      return NULL;
    if (target->x_type.t_id != dr->dr_in_type.t_id && !(target = bd_coerce(b, target, dr->dr_in_type)))
      return NULL;
    dr->dr_target = target;
    x[k++] = target;
  }
  for (int i = 0; i < dr->dr_nkeys; i++)
    x[k++] = dr->dr_inner[i];
  for (int i = 0; i < dr->dr_ncols; i++)
    x[k++] = dr->dr_cols[i];
  if (n == 0)
    return plan;
  return op_project_new(b->b_a, plan, n, x);
}

/* Whether x is NULL whenever one of its aggregates (columns past the
 * ngroup keys of the grouped row) is: constants, columns, casts and
 * arithmetic only. */
static bool strict_value(const xnode_t *x, int ngroup, bool *has_agg)
{
  switch (x->x_kind) {
  case X_CONST:
    return true;
  case X_COL:
    *has_agg |= x->x_index >= ngroup;
    return true;
  case X_CAST:
    return strict_value(x->x_args[0], ngroup, has_agg);
  case X_OP:
    if (x->x_op != XOP_ADD && x->x_op != XOP_SUB && x->x_op != XOP_MUL && x->x_op != XOP_DIV &&
        x->x_op != XOP_NEG)
      return false;
    /* every group is computed, also those no outer row asks for: a
     * division by one of its values could fail where per row it never ran */
    if (x->x_op == XOP_DIV && x->x_args[1]->x_kind != X_CONST)
      return false;
    for (int i = 0; i < x->x_nargs; i++)
      if (!strict_value(x->x_args[i], ngroup, has_agg))
        return false;
    return true;
  default:
    return false;
  }
}

/* Whether x reads a column below ngroup (a group key). */
static bool reads_key(const xnode_t *x, int ngroup)
{
  if (x->x_kind == X_COL && x->x_index < ngroup)
    return true;
  for (int i = 0; i < x->x_nargs; i++)
    if (reads_key(x->x_args[i], ngroup))
      return true;
  return false;
}

/* Whether x reads only columns of the table at [base, base + n). */
static bool over_table(const xnode_t *x, int base, int n)
{
  if (x->x_kind == X_SUBQ || x->x_kind == X_PARAM)
    return false;
  if (x->x_kind == X_COL && (x->x_index < base || x->x_index >= base + n))
    return false;
  for (int i = 0; i < x->x_nargs; i++)
    if (!over_table(x->x_args[i], base, n))
      return false;
  return true;
}

/* The index lookup aggregate form (dr_nagg): one stored table whose
 * other conjuncts are its own, keys and aggregate arguments its columns,
 * aggregates with a typed loop (op_index_agg_supports), a value v (over
 * the grouped row [keys…, aggregates…]) that reads no key. */
static void agg_look_form(bd_t *b, bd_decor_t *dr, const bd_aggctx_t *ag, int nk, const xnode_t *v)
{
  const sp_table_t *t = dr->dr_table;
  if (!t || dr->dr_nresid > 0 || reads_key(v, nk))
    return;
  int base = dr->dr_tbase, n = t->tb_ncols;
  for (int k = 0; k < nk; k++)
    if (dr->dr_inner[k]->x_kind != X_COL || !over_table(dr->dr_inner[k], base, n))
      return;
  int width = base + n + nk + ag->ag_n;
  int *map = arena_alloc(b->b_a, sizeof(int) * (size_t)(width + 1));
  for (int c = 0; c < width; c++)
    map[c] = c >= base ? c - base : -1;
  agg_spec_t *specs = arena_alloc(b->b_a, sizeof(agg_spec_t) * (size_t)(ag->ag_n + 1));
  for (int i = 0; i < ag->ag_n; i++) {
    const agg_spec_t *s = &ag->ag_specs[i];
    if (s->ag_distinct || s->ag_arg2 || (s->ag_arg && !over_table(s->ag_arg, base, n)) ||
        !op_index_agg_supports(s))
      return;
    specs[i] = *s;
    if (s->ag_arg)
      specs[i].ag_arg = bd_node_remap(b, s->ag_arg, map);
  }
  for (int c = 0; c < width; c++)
    map[c] = c >= nk ? c - nk : -1;
  dr->dr_agg_val = bd_node_remap(b, v, map);
  dr->dr_aggs = specs;
  dr->dr_nagg = ag->ag_n;
}

op_t *bd_decor_grouped(bd_t *b, bd_decor_t *dr, op_t *plan, bd_aggctx_t *ag, xnode_t *target)
{
  if (dr->dr_nkeys == 0 || dr->dr_nresid > 0)
    dr->dr_fail = true;
  if (dr->dr_fail)
    return plan;
  int nk = dr->dr_nkeys;
  op_t *g = op_hashagg_new(b->b_a, plan, nk, dr->dr_inner, ag->ag_n, ag->ag_specs);
  xnode_t *v;
  if (bd_agg_rewrite(b, ag, nk, dr->dr_inner, target, &v) != CZ_OK || !(v = bd_finish_unknown(b, v)))
    return NULL;
  bool has_agg = false;
  if (!strict_value(v, nk, &has_agg)) {
    dr->dr_fail = true;
    return plan;
  }
  /* a key group with no row has no output row, so an outer row without
   * one is dropped by the join: right only when the per-row value is
   * NULL then (no count) and the comparison rejects NULL (the caller).
   * The index lookup aggregate computes each outer row's own value, the
   * empty one too, so it is right either way. */
  dr->dr_agg_only = !has_agg;
  for (int i = 0; i < ag->ag_n; i++)
    if (ag->ag_specs[i].ag_kind == XAGG_COUNT || ag->ag_specs[i].ag_kind == XAGG_COUNT_STAR)
      dr->dr_agg_only = true;
  agg_look_form(b, dr, ag, nk, v);
  if (dr->dr_agg_only && dr->dr_nagg == 0) {
    dr->dr_fail = true;
    return plan;
  }
  xnode_t **x = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(nk + 1));
  for (int i = 0; i < nk; i++)
    x[i] = bd_col(b, i, dr->dr_inner[i]->x_type);
  x[nk] = v;
  return op_project_new(b->b_a, g, nk + 1, x);
}

/* ---- the outer block ----------------------------------------------------- */

/* A copy of residual x over the block's row extended by the unit's
 * columns: inner column c -> base + its output, correlation k -> the
 * outer column it stands for. */
static xnode_t *resid_remap(bd_t *b, const bd_decor_t *dr, const xnode_t *x, int base)
{
  if (x->x_kind == X_PARAM && !is_ours(dr, x))
    return (xnode_t *)x; /* shared: bd_finish renumbers parameters in place */
  xnode_t *n = arena_alloc(b->b_a, sizeof(*n));
  *n = *x;
  if (x->x_kind == X_COL) {
    for (int i = 0; i < dr->dr_ncols; i++)
      if (dr->dr_cols[i]->x_index == x->x_index)
        n->x_index = base + (dr->dr_in ? 1 : 0) + dr->dr_nkeys + i;
  } else if (is_ours(dr, x)) {
    *n = *dr->dr_sq->xs_corr[x->x_index];
    n->x_nargs = 0;
  }
  if (x->x_nargs && x->x_kind != X_PARAM) {
    n->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)x->x_nargs);
    for (int i = 0; i < x->x_nargs; i++)
      n->x_args[i] = resid_remap(b, dr, x->x_args[i], base);
  }
  return n;
}

static const bd_subq_src_t *find_src(const bd_t *b, const xsubq_t *sq)
{
  for (int i = 0; i < b->b_nsrc; i++)
    if (b->b_src[i].ss_sq == sq)
      return &b->b_src[i];
  return NULL;
}

/* src's query bound again (bd_subquery) with the WITH queries and the
 * view owner it was first bound with: the block being decorrelated may
 * be planned after both changed (a derived table's, generated with the
 * enclosing block, outside the view it may come from). */
static int rebind(bd_t *b, const bd_subq_src_t *src, bd_scope_t *sc, const sql_query_t *q, int kind,
                  int pos, xsubq_t **nsq, op_t **plan)
{
  bd_cte_t *ctes = b->b_ctes;
  uint32_t owner = b->b_view_owner;
  b->b_ctes = src->ss_ctes;
  b->b_view_owner = src->ss_owner;
  lp_subq_t *ls;
  /* generated now, inside the rebinding (b_decor set): its top block is
   * the unit's input */
  int rc = bd_subquery(b, sc, q, kind, pos, nsq, &ls);
  if (rc == CZ_OK)
    rc = bd_subq_plan(b, *nsq, plan);
  b->b_ctes = ctes;
  b->b_view_owner = owner;
  return rc;
}

/* Whether column c of table t is its one-column primary key or unique
 * index: no two rows share a value (NULLs aside, which join nothing). */
static bool unique_col(const sp_table_t *t, int c)
{
  if (t->tb_npk == 1 && t->tb_pk[0] == c)
    return true;
  for (int i = 0; i < t->tb_nindexes; i++)
    if (t->tb_indexes[i].ix_unique && t->tb_indexes[i].ix_ncols == 1 && t->tb_indexes[i].ix_cols[0] == c)
      return true;
  return false;
}

/* An uncorrelated `x IN (SELECT t.c FROM t WHERE …)` whose c is unique in
 * t (TPC-H Q20's `ps_partkey IN (SELECT p_partkey FROM part WHERE …)`):
 * each outer row equals at most one of its rows, so the semi join is an
 * inner join, which the join search may start with (the few parts
 * found, then partsupp probed by its key) instead of only after the
 * outer rows. The subquery is bound again in decorrelating mode (dr_table:
 * one stored table, its conjuncts its own); dr->dr_claimed false: not
 * one. */
static int unique_in(bd_t *b, bd_scope_t *sc, const bd_subq_src_t *src, const xnode_t *x,
                     bd_decor_t *dr, op_t **plan)
{
  const sql_query_t *q = src->ss_q;
  memset(dr, 0, sizeof(*dr));
  dr->dr_q = q;
  dr->dr_in = true;
  op_t *old;
  if (bd_subq_plan(b, x->x_subq, &old) != CZ_OK)
    return CZ_ERR;
  dr->dr_in_type = old->o_types[0];
  dr->dr_estimate = true;
  bd_decor_t *saved = b->b_decor;
  b->b_decor = dr;
  xsubq_t *nsq;
  int rc = rebind(b, src, sc, q, x->x_subq_kind, x->x_pos, &nsq, plan);
  b->b_decor = saved;
  if (rc != CZ_OK)
    return CZ_ERR;
  const xnode_t *tg = dr->dr_target;
  const sp_table_t *t = dr->dr_table;
  if (!dr->dr_claimed || dr->dr_fail || dr->dr_nparams || dr->dr_nkeys || dr->dr_nresid || !t || !tg ||
      tg->x_kind != X_COL || tg->x_index < dr->dr_tbase || tg->x_index >= dr->dr_tbase + t->tb_ncols ||
      !unique_col(t, tg->x_index - dr->dr_tbase) || (*plan)->o_ncols != 1)
    dr->dr_claimed = false;
  return CZ_OK;
}

/* Conjunct i of fb as a semi / anti unit, when it can be. */
static int decorrelate_one(bd_t *b, bd_scope_t *sc, lp_block_t *fb, int i, int *ext)
{
  xnode_t *x = fb->fb_conj[i];
  bool neg = false;
  if (x->x_kind == X_OP && x->x_op == XOP_NOT && x->x_nargs == 1 && x->x_args[0]->x_kind == X_SUBQ &&
      x->x_args[0]->x_subq_kind == 1) {
    neg = true;
    x = x->x_args[0];
  }
  if (x->x_kind != X_SUBQ || x->x_subq_kind == 0)
    return CZ_OK;
  bool in = x->x_subq_kind == 2;
  if (in) {
    neg = x->x_not;
    if (x->x_args[0]->x_kind != X_COL)
      return CZ_OK;  /* hash keys are columns */
  }
  const xsubq_t *old = x->x_subq;
  const bd_subq_src_t *src = find_src(b, old);
  if (!src || !src->ss_q || src->ss_sc != sc)
    return CZ_OK;
  op_t *old_plan;  /* the per-row plan: its type and estimated cost */
  if (bd_subq_plan(b, old, &old_plan) != CZ_OK)
    return CZ_ERR;
  bd_decor_t dr;
  memset(&dr, 0, sizeof(dr));
  dr.dr_q = src->ss_q;
  dr.dr_in = in;
  dr.dr_in_type = in ? old_plan->o_types[0] : ty_plain(TY_BOOL);
  dr.dr_anti = neg;
  op_t *plan;
  bool unique = false;
  if (in && !neg && old->xs_ncorr == 0 && unique_in(b, sc, src, x, &dr, &plan) == CZ_OK &&
      dr.dr_claimed)
    unique = true;  /* (an error in the rebinding is the bound one's: not reported twice) */
  else if (in && old->xs_ncorr == 0) {
    /* uncorrelated IN: the subquery as bound, whatever its shape
     * (GROUP BY … HAVING in TPC-H Q18, set operations, LIMIT) */
    err_clear(b->b_e);
    memset(&dr, 0, sizeof(dr));
    dr.dr_q = src->ss_q;
    dr.dr_in = in;
    dr.dr_in_type = old_plan->o_types[0];
    plan = old_plan;
    dr.dr_est_rows = plan->o_est_rows;
  } else {
    bd_decor_t *saved = b->b_decor;
    b->b_decor = &dr;
    xsubq_t *nsq;
    int rc = rebind(b, src, sc, src->ss_q, x->x_subq_kind, x->x_pos, &nsq, &plan);
    b->b_decor = saved;
    if (rc != CZ_OK)
      return CZ_ERR;
    if (!dr.dr_claimed || dr.dr_fail || dr.dr_consumed != dr.dr_nparams)
      return CZ_OK;  /* an outer reference is left somewhere: per row it stays */
  }
  if (dr.dr_nkeys + in == 0)
    return CZ_OK;  /* nothing to hash on: the cached subquery is as good */
  if (in && neg && (dr.dr_nkeys > 0 || dr.dr_nresid > 0))
    return CZ_OK;  /* NOT IN's NULL rules per outer row: not a plain anti join */
  if (in && x->x_args[0]->x_type.t_id != plan->o_types[0].t_id)
    return CZ_OK;
  int base = *ext;
  lp_rel_t *u = bd_fromblk_unit(b, fb);
  u->un_base = base;
  u->un_width = plan->o_ncols;
  u->un_op = plan;
  u->un_kind = unique ? JOIN_INNER : neg ? JOIN_ANTI : JOIN_SEMI;
  u->un_null_aware = in && neg;
  u->un_src_conj = i;
  u->un_decor = unique ? "IN, unique" : in ? (neg ? "NOT IN" : "IN") : neg ? "NOT EXISTS" : "EXISTS";
  u->un_sub_rows = dr.dr_est_rows;
  u->un_sub_cost = dr.dr_est_cost;
  u->un_row_cost = bd_plan_est_cost(old_plan);
  u->un_probe = dr.dr_key_probe;
  if (!unique)
    look_form(b, &dr, u, plan);
  *ext += plan->o_ncols;
  /* the conjunct becomes the join's keys and residuals */
  int nnew = 0;
  int k = 0;
  if (in) {
    xnode_t *eq;
    if (bd_op(b, XOP_EQ, x->x_args[0], bd_col(b, base, plan->o_types[0]), x->x_pos, &eq) != CZ_OK)
      return CZ_ERR;
    fb->fb_conj[i] = eq;
    nnew++;
    k = 1;
  }
  for (int j = 0; j < dr.dr_nkeys; j++, k++) {
    xnode_t *eq;
    if (bd_op(b, XOP_EQ, dr.dr_outer[j], bd_col(b, base + k, plan->o_types[k]), x->x_pos, &eq) !=
        CZ_OK)
      return CZ_ERR;
    if (nnew++ == 0)
      fb->fb_conj[i] = eq;
    else
      bd_fromblk_conj(b, fb, eq);
  }
  for (int j = 0; j < dr.dr_nresid; j++)
    bd_fromblk_conj(b, fb, resid_remap(b, &dr, dr.dr_resid[j], base));
  return CZ_OK;
}

/* The scalar subquery argument of comparison x (possibly under a cast),
 * when the other argument holds none: its place in x. */
static xnode_t **scalar_arg(xnode_t *x)
{
  if (x->x_kind != X_OP || x->x_nargs != 2 || x->x_op < XOP_EQ || x->x_op > XOP_GE)
    return NULL;
  for (int s = 0; s < 2; s++) {
    xnode_t **p = &x->x_args[s];
    if ((*p)->x_kind == X_CAST && (*p)->x_args[0]->x_kind == X_SUBQ)
      p = &(*p)->x_args[0];
    if ((*p)->x_kind == X_SUBQ && (*p)->x_subq_kind == 0 && !bd_node_has_subq(x->x_args[1 - s]))
      return p;
  }
  return NULL;
}

/* The unit's index lookup aggregate form (lp_rel_t un_agg_*). */
static void agg_unit(bd_t *b, const bd_decor_t *dr, lp_rel_t *u)
{
  const sp_table_t *t = dr->dr_table;
  int width = dr->dr_tbase + t->tb_ncols;
  int *map = arena_alloc(b->b_a, sizeof(int) * (size_t)(width + 1));
  for (int c = 0; c < width; c++)
    map[c] = c >= dr->dr_tbase ? c - dr->dr_tbase : -1;
  xnode_t **own = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(dr->dr_nown + 1));
  for (int i = 0; i < dr->dr_nown; i++)
    own[i] = bd_node_remap(b, dr->dr_own[i], map);
  int *col = arena_alloc(b->b_a, sizeof(int) * (size_t)(dr->dr_nkeys + 1));
  for (int k = 0; k < dr->dr_nkeys; k++)
    col[k] = dr->dr_inner[k]->x_index - dr->dr_tbase;
  col[dr->dr_nkeys] = -1;
  u->un_look_table = t;
  u->un_look_alias = t->tb_name;
  u->un_look_nown = dr->dr_nown;
  u->un_look_own = own;
  u->un_look_col = col;
  u->un_agg_n = dr->dr_nagg;
  u->un_agg_specs = dr->dr_aggs;
  u->un_agg_val = dr->dr_agg_val;
  u->un_agg_only = dr->dr_agg_only;
}

/* `a < (SELECT 0.2 * avg(x) FROM t WHERE t.k = outer.k …)` (TPC-H Q2,
 * Q17, Q20): the subquery grouped by its correlating columns becomes an
 * inner unit joined on them, and the comparison reads its value. The
 * comparison rejects NULL and the value is NULL for an outer row without
 * a group (no count), so an inner join drops exactly the rows the
 * per-row subquery would. */
static int decorrelate_scalar(bd_t *b, bd_scope_t *sc, lp_block_t *fb, int i, int *ext)
{
  xnode_t *x = fb->fb_conj[i];
  xnode_t **at = scalar_arg(x);
  if (!at)
    return CZ_OK;
  const xsubq_t *old = (*at)->x_subq;
  const bd_subq_src_t *src = find_src(b, old);
  if (!src || !src->ss_q || src->ss_sc != sc)
    return CZ_OK;
  op_t *old_plan;  /* the per-row plan: its type and estimated cost */
  if (bd_subq_plan(b, old, &old_plan) != CZ_OK)
    return CZ_ERR;
  bd_decor_t dr;
  memset(&dr, 0, sizeof(dr));
  dr.dr_q = src->ss_q;
  dr.dr_scalar = true;
  bd_decor_t *saved = b->b_decor;
  b->b_decor = &dr;
  xsubq_t *nsq;
  op_t *plan;
  int rc = rebind(b, src, sc, src->ss_q, 0, (*at)->x_pos, &nsq, &plan);
  b->b_decor = saved;
  if (rc != CZ_OK)
    return CZ_ERR;
  if (!dr.dr_claimed || dr.dr_fail || dr.dr_consumed != dr.dr_nparams ||
      plan->o_ncols != dr.dr_nkeys + 1 ||
      plan->o_types[dr.dr_nkeys].t_id != old_plan->o_types[0].t_id)
    return CZ_OK;
  int base = *ext;
  lp_rel_t *u = bd_fromblk_unit(b, fb);
  u->un_base = base;
  u->un_width = plan->o_ncols;
  u->un_op = plan;
  u->un_kind = JOIN_INNER;
  u->un_src_conj = i;
  u->un_decor = "scalar subquery";
  u->un_sub_rows = dr.dr_est_rows;
  u->un_sub_cost = dr.dr_est_cost;
  u->un_row_cost = bd_plan_est_cost(old_plan);
  u->un_probe = dr.dr_key_probe;
  if (dr.dr_nagg > 0)
    agg_unit(b, &dr, u);
  *ext += plan->o_ncols;
  /* the comparison reads the unit's value; a copy, as nodes are shared */
  xnode_t *cmp = arena_alloc(b->b_a, sizeof(*cmp));
  *cmp = *x;
  cmp->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * 2);
  for (int s = 0; s < 2; s++) {
    xnode_t *a = x->x_args[s];
    if (&x->x_args[s] == at)
      a = bd_col(b, base + dr.dr_nkeys, plan->o_types[dr.dr_nkeys]);
    else if (a->x_kind == X_CAST && &a->x_args[0] == at) {
      xnode_t *c = arena_alloc(b->b_a, sizeof(*c));
      *c = *a;
      c->x_args = arena_alloc(b->b_a, sizeof(xnode_t *));
      c->x_args[0] = bd_col(b, base + dr.dr_nkeys, plan->o_types[dr.dr_nkeys]);
      a = c;
    }
    cmp->x_args[s] = a;
  }
  fb->fb_conj[i] = cmp;
  for (int j = 0; j < dr.dr_nkeys; j++) {
    xnode_t *eq;
    if (bd_op(b, XOP_EQ, dr.dr_outer[j], bd_col(b, base + j, plan->o_types[j]), x->x_pos, &eq) !=
        CZ_OK)
      return CZ_ERR;
    bd_fromblk_conj(b, fb, eq);
  }
  return CZ_OK;
}

int bd_decorrelate(bd_t *b, bd_scope_t *sc, lp_block_t *fb)
{
  if (fb->fb_nunits == 0)
    return CZ_OK;
  int ext = sc->sc_width;
  int n = fb->fb_nconj;
  for (int i = 0; i < n; i++)
    if (!(fb->fb_keep && fb->fb_keep[i]) &&
        (decorrelate_one(b, sc, fb, i, &ext) != CZ_OK || decorrelate_scalar(b, sc, fb, i, &ext) != CZ_OK))
      return CZ_ERR;
  return CZ_OK;
}
