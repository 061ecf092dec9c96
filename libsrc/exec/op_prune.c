/* op_prune — the plan pass that leaves out the columns no consumer reads.
 *
 * Design notes: a join's output is its left row followed by its right
 * row, and the planner keeps every column a block reads anywhere in every
 * row it builds, so the key columns of the first joins, and the NULL
 * placeholders of a scan read for a few of its columns
 * (opt_scan.c), travel to the top of a join tree: each join copied them
 * into its build and gathered them into every output row (TPC-H Q13:
 * 17 columns gathered per pair, 3 read). Once the statement's plan is
 * whole, this pass walks it from the top with the columns each
 * operator's consumer reads:
 * - a projection reads the columns of its expressions; one whose output
 *   nobody reads is replaced by a NULL constant (computing it could read
 *   dropped columns, or fail where the query would not);
 * - a filter reads what its consumer reads plus its condition's columns;
 * - a group-by reads its keys' and its aggregates' arguments' columns;
 * - a join (op_join.c, every kind) fills only the output columns its
 *   consumer or its residual reads (oj_live; the others are NULL), keeps
 *   in its build only the right columns it outputs, hashes or its
 *   residual reads (oj_rlive), and asks its inputs for those plus the
 *   key columns;
 * - every other operator, and any expression holding a subquery (whose
 *   correlation may read any column), reads all its input's columns.
 * A column left out is NULL, never garbage: a consumer that read it
 * anyway would see a NULL, as it sees the planner's placeholders. An
 * operator with more than one consumer (a shared subtree) keeps all its
 * columns. The pass runs while the plan is still private to the planner
 * (plans are immutable once built). */
#include <string.h>

#include "exec/op_join_int.h"

typedef struct prune_s {
  arena_t *pr_a;
  const op_t **pr_ops;          /* every operator reached, with its consumers */
  int *pr_refs;
  int pr_n, pr_cap;
} prune_t;

static int prune_find(const prune_t *p, const op_t *o)
{
  for (int i = 0; i < p->pr_n; i++)
    if (p->pr_ops[i] == o)
      return i;
  return -1;
}

/* Counts o's consumers, and below it on its first visit. */
static void prune_count(prune_t *p, const op_t *o)
{
  if (!o)
    return;
  int i = prune_find(p, o);
  if (i >= 0) {
    p->pr_refs[i]++;
    return;
  }
  if (p->pr_n == p->pr_cap) {
    int cap = p->pr_cap ? 2 * p->pr_cap : 64;
    const op_t **ops = arena_alloc(p->pr_a, sizeof(*ops) * (size_t)cap);
    int *refs = arena_alloc(p->pr_a, sizeof(int) * (size_t)cap);
    if (p->pr_n) {
      memcpy(ops, p->pr_ops, sizeof(*ops) * (size_t)p->pr_n);
      memcpy(refs, p->pr_refs, sizeof(int) * (size_t)p->pr_n);
    }
    p->pr_ops = ops;
    p->pr_refs = refs;
    p->pr_cap = cap;
  }
  p->pr_ops[p->pr_n] = o;
  p->pr_refs[p->pr_n++] = 1;
  prune_count(p, o->o_in);
  prune_count(p, o->o_in2);
}

/* Marks in used[0..w) the input columns x reads; false when it holds a
 * subquery. */
static bool prune_cols(const xnode_t *x, bool *used, int w)
{
  if (x->x_kind == X_SUBQ)
    return false;
  if (x->x_kind == X_COL && x->x_index >= 0 && x->x_index < w)
    used[x->x_index] = true;
  for (int i = 0; i < x->x_nargs; i++)
    if (x->x_args[i] && !prune_cols(x->x_args[i], used, w))
      return false;
  return true;
}

/* A mask of n entries, all true when all; NULL when every entry is true. */
static uint8_t *prune_mask(arena_t *a, const bool *m, int n)
{
  bool every = true;
  for (int i = 0; i < n && every; i++)
    every = m[i];
  if (every)
    return NULL;
  uint8_t *out = arena_alloc(a, (size_t)n + 1);
  for (int i = 0; i < n; i++)
    out[i] = m[i];
  return out;
}

static void prune_op(prune_t *p, op_t *o, const bool *need);

/* A projection: the expressions of the columns read, NULL for the others. */
static void prune_project(prune_t *p, op_t *o, xnode_t **x, const bool *need)
{
  int w = o->o_in->o_ncols;
  bool *in = arena_zalloc(p->pr_a, (size_t)w + 1);
  bool all = false;
  for (int c = 0; c < o->o_ncols && !all; c++) {
    if (need && !need[c]) {
      if (x[c]->x_kind != X_CONST) {
        xnode_t *n = arena_zalloc(p->pr_a, sizeof(*n));
        n->x_kind = X_CONST;
        n->x_type = x[c]->x_type;
        n->x_const.d_null = true;
        x[c] = n;
      }
      continue;
    }
    all = !prune_cols(x[c], in, w);
  }
  prune_op(p, o->o_in, all ? NULL : in);
}

static void prune_join(prune_t *p, op_t *o, op_join_t *j, const bool *need)
{
  int nl = o->o_in->o_ncols, nr = o->o_in2->o_ncols, np = nl + nr;
  bool left_only = join_left_only(j->oj_kind);
  bool *pair = arena_zalloc(p->pr_a, (size_t)np + 1);
  for (int c = 0; c < (left_only ? nl : np); c++)
    pair[c] = !need || need[c];
  if (j->oj_cond && !prune_cols(j->oj_cond, pair, np))
    for (int c = 0; c < np; c++)
      pair[c] = true;
  if (!left_only)
    j->oj_live = prune_mask(p->pr_a, pair, np);
  for (int k = 0; k < j->oj_nkeys; k++) {
    pair[j->oj_lk[k]] = true;
    pair[nl + j->oj_rk[k]] = true;
  }
  j->oj_rlive = prune_mask(p->pr_a, pair + nl, nr);
  prune_op(p, o->o_in, pair);
  prune_op(p, o->o_in2, pair + nl);
}

/* need: per output column of o, whether its consumer reads it (NULL:
 * all). */
static void prune_op(prune_t *p, op_t *o, const bool *need)
{
  if (!o)
    return;
  int i = prune_find(p, o);
  if (i >= 0 && p->pr_refs[i] < 0)
    return;  /* shared, walked already with every column */
  if (i >= 0 && p->pr_refs[i] > 1) {
    p->pr_refs[i] = -1;
    need = NULL;
  }
  xnode_t **x = op_project_exprs(o);
  if (x) {
    prune_project(p, o, x, need);
    return;
  }
  const xnode_t *cond = op_filter_cond(o);
  if (cond) {
    int w = o->o_in->o_ncols;
    bool *in = arena_zalloc(p->pr_a, (size_t)w + 1);
    for (int c = 0; c < w; c++)
      in[c] = !need || need[c];
    prune_op(p, o->o_in, prune_cols(cond, in, w) ? in : NULL);
    return;
  }
  int nx = op_hashagg_inputs(o, NULL);
  if (nx >= 0) {
    const xnode_t **xs = arena_alloc(p->pr_a, sizeof(*xs) * (size_t)(nx + 1));
    (void)op_hashagg_inputs(o, xs);
    int w = o->o_in->o_ncols;
    bool *in = arena_zalloc(p->pr_a, (size_t)w + 1);
    bool all = false;
    for (int k = 0; k < nx && !all; k++)
      all = !prune_cols(xs[k], in, w);
    prune_op(p, o->o_in, all ? NULL : in);
    return;
  }
  op_join_t *j = op_join_of(o);
  if (j) {
    prune_join(p, o, j, need);
    return;
  }
  prune_op(p, o->o_in, NULL);
  prune_op(p, o->o_in2, NULL);
}

void op_prune_cols(arena_t *a, op_t *const *roots, int nroots)
{
  prune_t p = {.pr_a = a};
  for (int i = 0; i < nroots; i++)
    prune_count(&p, roots[i]);
  for (int i = 0; i < nroots; i++)
    prune_op(&p, roots[i], NULL);
}
