/* opt_outer — an explicit LEFT JOIN (a RIGHT JOIN is one with its
 * sides swapped) planned with what its ON condition allows.
 *
 * Design notes (opt/README.md, "Outer joins"):
 * - A conjunct of ON that reads only the nullable (right) side — no
 *   column of the preserved side, no volatile function, no subquery —
 *   filters that side before the join: a right row failing it pairs with
 *   no left row anyway, and every left row is kept whatever happens to
 *   its partners. It goes into the right table's scan (key bounds,
 *   predicates tested by the table layer) or a filter over a right input
 *   of another kind. TPC-H Q13's `o_comment NOT LIKE …` was evaluated on
 *   1.5 million pairs after a hash table of all of orders was built.
 * - The hash table is built on the smaller side: when the right input is
 *   estimated at more than twice the left's rows, the join runs as a
 *   RIGHT join of (right, left) — the build side is then the preserved
 *   one; its rows without a partner come out padded after all pairs —
 *   and a projection puts the columns back in the block's order. Only
 *   tables are estimated (their rows from the environment, halved per
 *   pushed conjunct); a side of any other kind keeps the written order.
 *   A RIGHT hash join spills past MaxQueryMem as a LEFT one does
 *   (exec/op_join_spill.c), so the swap has no size limit.
 * - A right table whose whole primary key ON gives is still looked up per
 *   left row (bd_join), which is cheaper than either hash table.
 */
#include <string.h>

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

/* Rows of a table side: its size, halved per conjunct filtering it; -1
 * unknown. */
static double side_rows(lp_ctx_t *b, const sp_table_t *t, int npushed)
{
  double rows = t ? opt_table_rows(b, t) : -1;
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
  double lrows = side_rows(b, lt, 0), rrows = side_rows(b, rt, nmine);
  if (lrows < 0 || rrows <= 2 * lrows)
    return bd_join_op(b->lc_b, l, r, JOIN_LEFT, rest);
  op_t *j = bd_join_op(b->lc_b, r, l, JOIN_RIGHT, swap_sides(b, rest, lw, rw));
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
static int side_width(const op_t *as_bound, const sp_table_t *t, const lp_outer_t *oj)
{
  return t ? t->tb_ncols : oj ? outer_width(oj) : as_bound->o_ncols;
}

static int outer_width(const lp_outer_t *oj)
{
  return side_width(oj->oj_l, oj->oj_lt, oj->oj_lo) + side_width(oj->oj_r, oj->oj_rt, oj->oj_ro);
}

/* A side built for the columns need marks (need NULL: all; the others
 * NULL): a table scanned (at least one column: a scan returns rows of
 * some column), a nested outer join built, else the side as bound. */
static op_t *side_scan(lp_ctx_t *b, op_t *as_bound, const sp_table_t *t, const lp_outer_t *oj,
                       const char *alias, bool *need)
{
  if (oj)
    return opt_outer_build(b, oj, need);
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

op_t *opt_outer_build(lp_ctx_t *b, const lp_outer_t *oj, const bool *need)
{
  int lw = side_width(oj->oj_l, oj->oj_lt, oj->oj_lo),
      rw = side_width(oj->oj_r, oj->oj_rt, oj->oj_ro);
  bool *mask = NULL;
  if (need) {
    mask = arena_alloc(b->lc_a, (size_t)(lw + rw + 1));
    memcpy(mask, need, (size_t)(lw + rw));
    if (oj->oj_cond)
      need_cols(oj->oj_cond, mask, lw + rw);
  }
  op_t *l = side_scan(b, oj->oj_l, oj->oj_lt, oj->oj_lo, oj->oj_lalias, mask);
  op_t *r = side_scan(b, oj->oj_r, oj->oj_rt, oj->oj_ro, oj->oj_ralias, mask ? mask + lw : NULL);
  if (!l || !r)
    return NULL;
  if (!oj->oj_right)
    return left_join(b, l, oj->oj_lt, r, oj->oj_rt, oj->oj_ralias, mask ? mask + lw : NULL,
                     oj->oj_cond);
  /* b LEFT JOIN a, then the columns back in the written order */
  xnode_t *c2 = oj->oj_cond ? swap_sides(b, oj->oj_cond, lw, rw) : NULL;
  op_t *j = left_join(b, r, oj->oj_rt, l, oj->oj_lt, oj->oj_lalias, mask, c2);
  return swap_back(b, j, rw, lw);
}
