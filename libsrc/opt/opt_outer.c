/* opt_outer — an explicit join other than a plain inner one (LEFT,
 * RIGHT as a swapped LEFT, FULL, inner with USING / NATURAL; sql_logical.h
 * lp_outer_t) built from its logical description: its sides (tables
 * scanned, derived tables generated, nested joins built — each for the
 * columns read), the join method and the build side its condition and
 * the sides' sizes allow.
 *
 * Design notes (opt/README.md, "Outer joins"):
 * - A conjunct of a LEFT JOIN's ON that reads only the nullable (right)
 *   side — no column of the preserved side, no volatile function, no
 *   subquery — filters that side before the join: a right row failing it
 *   pairs with no left row anyway, and every left row is kept whatever
 *   happens to its partners. It goes into the right table's scan (key
 *   bounds, predicates tested by the table layer) or a filter over a
 *   right input of another kind. TPC-H Q13's `o_comment NOT LIKE …` was
 *   evaluated on 1.5 million pairs after a hash table of all of orders
 *   was built. A FULL JOIN preserves both sides: nothing moves.
 * - The hash table is built on the smaller side: when the right input is
 *   estimated at more than twice the left's rows, a LEFT join runs as a
 *   RIGHT join of (right, left) — the build side is then the preserved
 *   one; its rows without a partner come out padded after all pairs —
 *   and a FULL or inner one as the same join of (right, left); a
 *   projection puts the columns back in the block's order. Tables are
 *   estimated by their rows (halved per pushed conjunct), other sides by
 *   their plan's estimate; a side without one keeps the written order.
 *   A RIGHT or FULL hash join spills past MaxQueryMem as a LEFT one does
 *   (exec/op_join_spill.c), so the swap has no size limit.
 * - Without a `left col = right col` equality of one type the join is a
 *   nested loop (the FULL form too: PostgreSQL refuses such a FULL JOIN).
 * - A right table whose whole primary key an inner or LEFT join's ON
 *   gives is looked up per left row, which is cheaper than either hash
 *   table.
 * - FULL JOIN … USING / NATURAL: the merged columns (COALESCE of both
 *   sides, oj_extra) are computed over the join's row, after its sides'
 *   columns.
 */
#include <string.h>

#include "exec/exec_ql.h"
#include "opt/opt_int.h"
#include "opt/opt_card.h"

static void mark_cols(const xnode_t *x, int lw, bool *left, bool *right, bool *bad)
{
  if (x->x_kind == X_COL) {
    if (x->x_index < lw)
      *left = true;
    else
      *right = true;
  }
  if (x->x_kind == X_SUBQ || (x->x_kind == X_FUNC && (x->x_func->fd_flags & XF_VOLATILE)))
    *bad = true;
  for (int i = 0; i < x->x_nargs; i++)
    mark_cols(x->x_args[i], lw, left, right, bad);
}

/* Rows of a side: a table's size, another side's estimate as its plan
 * gives it (a derived table, a join), halved per conjunct filtering it;
 * -1 unknown. */
static double side_rows(lp_ctx_t *b, const sp_table_t *t, const op_t *built, int npushed)
{
  double rows = -1;
  if (t)
    rows = opt_table_rows(b, t);
  else
    for (const op_t *o = built; o && rows < 0; o = o->o_in2 ? NULL : o->o_in)
      rows = o->o_est_rows;
  if (rows < 0)
    return -1;
  for (int i = 0; i < npushed; i++)
    rows *= 0.5;
  return rows;
}

/* Whether a conjunct is a hash key: `left col = right col` of one type
 * (bd_join_op's rule). */
static bool has_key(xnode_t **conj, int n, int lw)
{
  for (int i = 0; i < n; i++) {
    const xnode_t *c = conj[i];
    if (!c || c->x_kind != X_OP || c->x_op != XOP_EQ || c->x_nargs != 2 ||
        c->x_args[0]->x_kind != X_COL || c->x_args[1]->x_kind != X_COL ||
        c->x_args[0]->x_type.t_id != c->x_args[1]->x_type.t_id)
      continue;
    if ((c->x_args[0]->x_index < lw) != (c->x_args[1]->x_index < lw))
      return true;
  }
  return false;
}

/* A join's row [a (aw columns), b (bw)] as [b, a]. */
static op_t *swap_back(lp_ctx_t *b, op_t *j, int aw, int bw)
{
  xnode_t **cols = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(aw + bw + 1));
  for (int i = 0; i < bw; i++)
    cols[i] = bd_col(b->lc_b, aw + i, j->o_types[aw + i]);
  for (int i = 0; i < aw; i++)
    cols[bw + i] = bd_col(b->lc_b, i, j->o_types[i]);
  return op_project_new(b->lc_a, j, aw + bw, cols);
}

/* x over [left, right] -> over [right, left] (left has lw columns, right rw). */
static xnode_t *swap_sides(lp_ctx_t *b, const xnode_t *x, int lw, int rw)
{
  if (x->x_kind == X_PARAM)
    return (xnode_t *)x; /* shared: the binder renumbers parameters in place */
  xnode_t *n = arena_alloc(b->lc_a, sizeof(*n));
  *n = *x;
  if (x->x_kind == X_COL)
    n->x_index = x->x_index < lw ? x->x_index + rw : x->x_index - lw;
  if (x->x_nargs && x->x_kind != X_PARAM) {
    n->x_args = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)x->x_nargs);
    for (int i = 0; i < x->x_nargs; i++)
      n->x_args[i] = swap_sides(b, x->x_args[i], lw, rw);
  }
  return n;
}

op_t *opt_hashjoin_build_left(lp_ctx_t *b, op_t *l, op_t *r, int nk, const int *hl,
                              const int *hr, xnode_t *cond)
{
  int lw = l->o_ncols, rw = r->o_ncols;
  op_t *j = op_hashjoin_new(b->lc_a, r, l, JOIN_INNER, nk, hr, hl,
                            cond ? swap_sides(b, cond, lw, rw) : NULL);
  return swap_back(b, j, rw, lw);
}

/* l LEFT JOIN r over cond; a table side is scanned again (its own
 * conjuncts, the columns in its need mask) when it has conjuncts of its
 * own. */
static op_t *left_join(lp_ctx_t *b, op_t *l, const sp_table_t *lt, op_t *r, const sp_table_t *rt,
                       const char *ralias, const bool *rneed, xnode_t *cond)
{
  int lw = l->o_ncols, rw = r->o_ncols;
  xnode_t **conj = NULL;
  int n = 0, cap = 0;
  if (cond)
    bd_conjuncts(b->lc_b, cond, &conj, &n, &cap);
  /* the right side's own conjuncts, over its own columns */
  xnode_t **mine = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(n + 1));
  int nmine = 0;
  int *shift = arena_alloc(b->lc_a, sizeof(int) * (size_t)(lw + rw + 1));
  for (int c = 0; c < lw + rw; c++)
    shift[c] = c - lw;
  for (int i = 0; i < n; i++) {
    bool left = false, right = false, bad = false;
    mark_cols(conj[i], lw, &left, &right, &bad);
    if (left || !right || bad)
      continue;
    mine[nmine++] = bd_node_remap(b->lc_b, conj[i], shift);
    conj[i] = NULL;
  }
  if (nmine) {
    if (rt)
      r = opt_scan_cols(b, rt, ralias, false, mine, nmine, rneed);
    else
      r = op_filter_new(b->lc_a, r, bd_and_all(b->lc_b, mine, nmine));
  }
  xnode_t *rest = bd_and_all(b->lc_b, conj, n);
  /* without an equality to hash on, a nested loop keeps the left side outer */
  if (!has_key(conj, n, lw))
    return bd_join_op(b->lc_b, l, r, JOIN_LEFT, rest);
  double lrows = side_rows(b, lt, l, 0), rrows = side_rows(b, rt, r, nmine);
  if (lrows < 0 || rrows <= 2 * lrows)
    return bd_join_op(b->lc_b, l, r, JOIN_LEFT, rest);
  op_t *j = bd_join_op(b->lc_b, r, l, JOIN_RIGHT, swap_sides(b, rest, lw, rw));
  return swap_back(b, j, rw, lw);
}

/* Whether conjuncts fix the whole primary key of t, whose columns start
 * at tbase in the row, to columns before tbase: then lk[k] is the column
 * giving key column k and used[] marks the conjuncts taken. */
static bool pk_keys(const sp_table_t *t, int tbase, xnode_t **conj, int n, int *lk, bool *used)
{
  if (t->tb_npk <= 0 || t->tb_npk > 32)
    return false;
  for (int i = 0; i < n; i++)
    used[i] = false;
  for (int k = 0; k < t->tb_npk; k++) {
    int target = tbase + t->tb_pk[k];
    bool got = false;
    for (int i = 0; i < n && !got; i++) {
      const xnode_t *c = conj[i];
      if (!c || used[i] || c->x_kind != X_OP || c->x_op != XOP_EQ ||
          c->x_args[0]->x_kind != X_COL || c->x_args[1]->x_kind != X_COL ||
          c->x_args[0]->x_type.t_id != t->tb_coltypes[t->tb_pk[k]].t_id ||
          c->x_args[1]->x_type.t_id != t->tb_coltypes[t->tb_pk[k]].t_id)
        continue;
      int a = c->x_args[0]->x_index, d = c->x_args[1]->x_index;
      if (a == target && d < tbase)
        lk[k] = d, got = true;
      else if (d == target && a < tbase)
        lk[k] = a, got = true;
      if (got)
        used[i] = true;
    }
    if (!got)
      return false;
  }
  return true;
}

/* l INNER / LEFT JOIN table rt (its columns after l's lw) looked up per
 * left row when cond fixes rt's whole primary key (cheaper than either
 * hash table: one probe per left row, no build); NULL when it does not. */
static op_t *pk_lookup(lp_ctx_t *b, op_t *l, const sp_table_t *rt, join_kind_t kind,
                       xnode_t *cond)
{
  if (!rt || !cond)
    return NULL;
  xnode_t **conj = NULL;
  int n = 0, cap = 0, lk[32];
  bd_conjuncts(b->lc_b, cond, &conj, &n, &cap);
  bool *used = arena_alloc(b->lc_a, (size_t)n + 1);
  if (!pk_keys(rt, l->o_ncols, conj, n, lk, used))
    return NULL;
  for (int i = 0; i < n; i++)
    if (used[i])
      conj[i] = NULL;
  int *cols = arena_alloc(b->lc_a, sizeof(int) * (size_t)(rt->tb_ncols + 1));
  for (int c = 0; c < rt->tb_ncols; c++)
    cols[c] = c;
  return op_lookup_join_new(b->lc_a, l, kind, rt->tb_npk, lk, rt->tb_handle, rt->tb_name,
                            rt->tb_ncols, cols, rt->tb_coltypes, bd_and_all(b->lc_b, conj, n));
}

/* l INNER or FULL JOIN r over cond: a hash join (on the `l col = r col`
 * equalities of one type) whose table is built on the smaller side — the
 * right one, unless the right is estimated at more than twice the left's
 * rows (a FULL join is symmetric: (r FULL JOIN l) with the columns put
 * back) — else, without such an equality, a nested loop. */
static op_t *sym_join(lp_ctx_t *b, op_t *l, const sp_table_t *lt, op_t *r, const sp_table_t *rt,
                      join_kind_t kind, xnode_t *cond)
{
  int lw = l->o_ncols, rw = r->o_ncols;
  xnode_t **conj = NULL;
  int n = 0, cap = 0;
  if (cond)
    bd_conjuncts(b->lc_b, cond, &conj, &n, &cap);
  double lrows = side_rows(b, lt, l, 0), rrows = side_rows(b, rt, r, 0);
  if (!has_key(conj, n, lw) || lrows < 0 || rrows <= 2 * lrows)
    return bd_join_op(b->lc_b, l, r, kind, cond);
  op_t *j = bd_join_op(b->lc_b, r, l, kind, swap_sides(b, cond, lw, rw));
  return swap_back(b, j, rw, lw);
}

/* Marks in need the columns x reads. */
static void need_cols(const xnode_t *x, bool *need, int width)
{
  if (x->x_kind == X_COL && x->x_index >= 0 && x->x_index < width)
    need[x->x_index] = true;
  for (int i = 0; i < x->x_nargs; i++)
    need_cols(x->x_args[i], need, width);
}

static int outer_width(const lp_outer_t *oj);

/* A side's columns. */
static int side_width(const op_t *as_bound, const sp_table_t *t, const lp_outer_t *oj,
                      const lp_node_t *n)
{
  return t ? t->tb_ncols : oj ? outer_width(oj) : n ? n->ln_ncols : as_bound->o_ncols;
}

/* The right side's columns: a LATERAL item's as its node gives them. */
static int right_width(const lp_outer_t *oj)
{
  return oj->oj_lat ? oj->oj_lat->ll_node->ln_ncols
                    : side_width(oj->oj_r, oj->oj_rt, oj->oj_ro, oj->oj_rn);
}

static int outer_width(const lp_outer_t *oj)
{
  return side_width(oj->oj_l, oj->oj_lt, oj->oj_lo, oj->oj_ln) + right_width(oj) +
         oj->oj_nextra;
}


/* A side built for the columns need marks (need NULL: all; the others
 * NULL): a table scanned (at least one column: a scan returns rows of
 * some column), a nested join built, a derived table generated for those
 * columns (opt_prune.c), else the side as bound. NULL: failed. */
static op_t *side_scan(lp_ctx_t *b, op_t *as_bound, const sp_table_t *t, const lp_outer_t *oj,
                       const lp_node_t *n, const char *alias, bool *need)
{
  if (oj)
    return opt_outer_build(b, oj, need);
  if (n) {
    op_t *op;
    if (need)
      n = opt_prune_derived(b, n, need);
    return opt_gen_query(b, n, &op) == CZ_OK ? op : NULL;
  }
  if (!t)
    return as_bound;
  if (!need)
    return opt_scan_cols(b, t, alias, false, NULL, 0, NULL);
  bool any = false;
  for (int c = 0; c < t->tb_ncols; c++)
    any |= need[c];
  if (!any && t->tb_ncols > 0)
    need[t->tb_npk > 0 ? t->tb_pk[0] : 0] = true;
  return opt_scan_cols(b, t, alias, false, NULL, 0, need);
}

/* `l [LEFT] JOIN LATERAL item`: the left side built for the columns read
 * and those the item's correlation values read, the item run per left
 * row. */
static op_t *lateral_build(lp_ctx_t *b, const lp_outer_t *oj, bool *mask)
{
  const xsubq_t *sq = oj->oj_lat->ll_sq;
  if (mask)
    for (int i = 0; i < sq->xs_ncorr; i++)
      need_cols(sq->xs_corr[i], mask, side_width(oj->oj_l, oj->oj_lt, oj->oj_lo, oj->oj_ln));
  op_t *l = side_scan(b, oj->oj_l, oj->oj_lt, oj->oj_lo, oj->oj_ln, oj->oj_lalias, mask);
  if (!l || !opt_lateral_gen(b, oj->oj_lat))
    return NULL;
  return op_lateral_new(b->lc_a, l, oj->oj_lat->ll_sq, oj->oj_kind);
}

/* The join of l and r (sides built) as its kind asks. */
static op_t *join_sides(lp_ctx_t *b, const lp_outer_t *oj, op_t *l, op_t *r, const bool *rmask,
                        const bool *mask)
{
  int lw = l->o_ncols, rw = r->o_ncols;
  if (oj->oj_right) {
    /* b LEFT JOIN a, then the columns back in the written order */
    xnode_t *c2 = oj->oj_cond ? swap_sides(b, oj->oj_cond, lw, rw) : NULL;
    op_t *j = left_join(b, r, oj->oj_rt, l, oj->oj_lt, oj->oj_lalias, mask, c2);
    return swap_back(b, j, rw, lw);
  }
  if (oj->oj_kind != JOIN_FULL) {
    op_t *j = pk_lookup(b, l, oj->oj_rt, oj->oj_kind, oj->oj_cond);
    if (j)
      return j;
  }
  if (oj->oj_kind == JOIN_LEFT)
    return left_join(b, l, oj->oj_lt, r, oj->oj_rt, oj->oj_ralias, rmask, oj->oj_cond);
  return sym_join(b, l, oj->oj_lt, r, oj->oj_rt, oj->oj_kind, oj->oj_cond);
}

op_t *opt_outer_build(lp_ctx_t *b, const lp_outer_t *oj, const bool *need)
{
  int lw = side_width(oj->oj_l, oj->oj_lt, oj->oj_lo, oj->oj_ln), rw = right_width(oj);
  bool *mask = NULL;
  if (need) {
    mask = arena_alloc(b->lc_a, (size_t)(lw + rw + 1));
    memcpy(mask, need, (size_t)(lw + rw));
    if (oj->oj_cond)
      need_cols(oj->oj_cond, mask, lw + rw);
    for (int i = 0; i < oj->oj_nextra; i++)
      if (need[lw + rw + i])
        need_cols(oj->oj_extra[i], mask, lw + rw);
  }
  if (oj->oj_lat)
    return lateral_build(b, oj, mask);
  op_t *l = side_scan(b, oj->oj_l, oj->oj_lt, oj->oj_lo, oj->oj_ln, oj->oj_lalias, mask);
  op_t *r = side_scan(b, oj->oj_r, oj->oj_rt, oj->oj_ro, oj->oj_rn, oj->oj_ralias,
                      mask ? mask + lw : NULL);
  if (!l || !r)
    return NULL;
  op_t *j = join_sides(b, oj, l, r, mask ? mask + lw : NULL, mask);
  if (!oj->oj_nextra)
    return j;
  /* FULL JOIN … USING: the merged columns after the sides' */
  xnode_t **x = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(lw + rw + oj->oj_nextra + 1));
  for (int c = 0; c < lw + rw; c++)
    x[c] = bd_col(b->lc_b, c, j->o_types[c]);
  for (int i = 0; i < oj->oj_nextra; i++)
    x[lw + rw + i] = oj->oj_extra[i];
  return op_project_new(b->lc_a, j, lw + rw + oj->oj_nextra, x);
}
