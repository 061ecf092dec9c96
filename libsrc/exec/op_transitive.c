/* op_transitive — Transitive Closure: the pairs (x, y) such that y is
 * reachable from x over the edges of its input in at least min_len
 * (0 or 1) steps, each pair once. It is what SPARQL's `p*` and `p+`
 * property paths run on (libsrc/sparql sp_compile_path.c), and SQL's
 * `transitive(edges, start, stop, min)` in FROM (sql_bind_transitive.c).
 *
 * Design notes:
 * - The input (two bigint columns: from, to; rows with a NULL skipped) is
 *   read whole at open into a pair array sorted by its first column and
 *   deduplicated: a node's successors are a range found by binary search.
 *   With only the stop end given, the pairs are stored reversed and the
 *   search runs backward from stop.
 * - Breadth-first search from each root with a visited set (open
 *   addressing over int8, each slot stamped with the root's number, so a
 *   new root needs no clearing): each node reached is returned once per
 *   root, so the pairs are distinct without a DISTINCT above.
 * - Roots: the start value when given (one search; NULL start and stop
 *   bound: the stop value, backward); with a roots input (the second),
 *   its distinct non-NULL values, forward (a SPARQL path whose end another
 *   pattern binds); else every node of the edges (min 1: every source;
 *   min 0: sources and targets, each paired with itself). With a stop
 *   given a root's search ends when it reaches stop: a reachability test.
 * - Zero steps (min 0): the root is paired with itself even when no edge
 *   touches it (SPARQL §18.4: ZeroOrMorePath of a term gives the term).
 *   One or more steps (min 1): the root is paired with itself only when a
 *   cycle leads back to it.
 * - Memory: the pairs, the visited set and the queue are in the run
 *   state's arena, allocated with arena_try_alloc (53200 past
 *   MaxQueryMem); the input read is checked per batch as rs_fill does.
 *   Cancellation is checked per input batch and every 64K edges walked.
 * - start and stop are evaluated once per open (a lateral use re-opens
 *   the operator per outer row with its parameters). */
#include <stdlib.h>
#include <string.h>

#include "exec/exec_int.h"
#include "exec/exec_ql.h"

typedef struct op_transitive_s {
  op_t ot_op;
  xnode_t *ot_start, *ot_stop;  /* bigint expressions; NULL = not given */
  int ot_min;                   /* 0 or 1 steps at least */
} op_transitive_t;

typedef struct tr_pair_s {
  int64_t tp_from, tp_to;
} tr_pair_t;

typedef struct transitive_run_s {
  opst_t tr_st;
  tr_pair_t *tr_edges;          /* sorted by (tp_from, tp_to), distinct */
  int64_t tr_nedges;
  bool tr_backward;             /* edges reversed: the search runs from stop */
  bool tr_have_start, tr_have_stop;
  int64_t tr_start, tr_stop;
  /* the roots: one value, or every node (tr_nodes) */
  int64_t *tr_roots;
  int64_t tr_nroots, tr_root_i;
  /* the search from the current root */
  int64_t tr_root;
  uint32_t tr_stamp;            /* the current root's number (visited stamps) */
  int64_t *tr_vkeys;            /* visited set: keys and the stamp of the root that set them */
  uint32_t *tr_vstamps;
  int64_t tr_vmask;
  int64_t *tr_queue;            /* nodes reached, to expand, in order */
  int64_t tr_qhead, tr_qtail, tr_qcap;
  int64_t tr_edge, tr_edge_end; /* the successors of the node being expanded */
  bool tr_in_root;              /* a root's search is under way */
  bool tr_done;
  bool tr_found;                /* the current root reached stop */
  int64_t tr_walked;            /* edges looked at since the last cancel check */
} transitive_run_t;

static int pair_cmp(const void *a, const void *b)
{
  const tr_pair_t *x = a, *y = b;
  if (x->tp_from != y->tp_from)
    return x->tp_from < y->tp_from ? -1 : 1;
  return x->tp_to < y->tp_to ? -1 : x->tp_to > y->tp_to;
}

static int i64_cmp(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Reads an input to its end: the first ncols (int64) columns of each row
 * with no NULL among them, row after row, into a growing array in the
 * state arena; cancellable, its memory counted. */
static int tr_drain(const op_t *in, int ncols, arena_t *a, qctx_t *q, int64_t **out,
                    int64_t *nrows, err_t *e)
{
  int64_t cap = 256, n = 0;
  size_t row = sizeof(int64_t) * (size_t)ncols;
  int64_t *v = arena_try_alloc(a, row * (size_t)cap);
  if (!v)
    return op_alloc_error(a, e);
  if (op_open(in, q, e) != CZ_OK)
    return CZ_ERR;
  for (;;) {
    obatch_t ob = {0};
    if (op_next(in, q, &ob, e) != CZ_OK)
      return CZ_ERR;
    if (!ob.ob_b)
      break;
    if (op_check_cancel(q, e) != CZ_OK)
      return CZ_ERR;
    const vec_t *cols = ob.ob_b->b_cols;
    for (int k = 0; k < ob.ob_n; k++) {
      int i = ob.ob_sel ? ob.ob_sel[k] : k;
      bool null = false;
      for (int c = 0; c < ncols; c++)
        null |= cols[c].v_null[i];
      if (null)
        continue;
      if (n == cap) {
        int64_t *w = arena_try_alloc(a, row * (size_t)cap * 2);
        if (!w)
          return op_alloc_error(a, e);
        memcpy(w, v, row * (size_t)n);
        arena_free(a, v, row * (size_t)cap);
        v = w;
        cap *= 2;
      }
      for (int c = 0; c < ncols; c++)
        v[n * ncols + c] = cols[c].v_i64[i];
      n++;
    }
    if (op_check_mem(q, a, e) != CZ_OK)
      return CZ_ERR;
  }
  *out = v;
  *nrows = n;
  return CZ_OK;
}

/* Sorts v[0..n) and drops repeats; the number left. */
static int64_t i64_sort_unique(int64_t *v, int64_t n)
{
  qsort(v, (size_t)n, sizeof(int64_t), i64_cmp);
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++)
    if (m == 0 || v[i] != v[m - 1])
      v[m++] = v[i];
  return m;
}

/* Reads the edges, reversed when backward; sorted and distinct. */
static int tr_read_edges(const op_t *o, transitive_run_t *r, qctx_t *q, err_t *e)
{
  int64_t *rows, n;
  if (tr_drain(o->o_in, 2, r->tr_st.os_state, q, &rows, &n, e) != CZ_OK)
    return CZ_ERR;
  tr_pair_t *v = (tr_pair_t *)rows; /* two int64 per row: (from, to) */
  if (r->tr_backward)
    for (int64_t i = 0; i < n; i++) {
      int64_t f = v[i].tp_from;
      v[i].tp_from = v[i].tp_to;
      v[i].tp_to = f;
    }
  qsort(v, (size_t)n, sizeof(tr_pair_t), pair_cmp);
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++)
    if (m == 0 || v[i].tp_from != v[m - 1].tp_from || v[i].tp_to != v[m - 1].tp_to)
      v[m++] = v[i];
  r->tr_edges = v;
  r->tr_nedges = m;
  return CZ_OK;
}

/* The roots input's distinct non-NULL values. */
static int tr_read_roots(const op_t *o, transitive_run_t *r, qctx_t *q, err_t *e)
{
  int64_t n;
  if (tr_drain(o->o_in2, 1, r->tr_st.os_state, q, &r->tr_roots, &n, e) != CZ_OK)
    return CZ_ERR;
  r->tr_nroots = i64_sort_unique(r->tr_roots, n);
  return CZ_OK;
}

/* Every node of the edges (min 0) or every source (min 1), distinct. */
static int tr_all_roots(transitive_run_t *r, int min_len, err_t *e)
{
  arena_t *a = r->tr_st.os_state;
  int64_t n = 0, cap = r->tr_nedges * (min_len == 0 ? 2 : 1) + 1;
  int64_t *v = arena_try_alloc(a, sizeof(int64_t) * (size_t)cap);
  if (!v)
    return op_alloc_error(a, e);
  for (int64_t i = 0; i < r->tr_nedges; i++) {
    if (n == 0 || v[n - 1] != r->tr_edges[i].tp_from)
      v[n++] = r->tr_edges[i].tp_from;
    if (min_len == 0)
      v[n++] = r->tr_edges[i].tp_to;
  }
  r->tr_roots = v;
  r->tr_nroots = i64_sort_unique(v, n);
  return CZ_OK;
}

/* The visited set and queue, sized for every node the edges name plus
 * the root (a node enters the queue once per root, the root twice at
 * most: as the root and again through a cycle). */
static int tr_alloc_search(transitive_run_t *r, err_t *e)
{
  arena_t *a = r->tr_st.os_state;
  int64_t nodes = r->tr_nedges * 2 + 2;
  int64_t size = 16;
  while (size < nodes * 2)
    size *= 2;
  r->tr_vkeys = arena_try_alloc(a, sizeof(int64_t) * (size_t)size);
  r->tr_vstamps = arena_try_zalloc(a, sizeof(uint32_t) * (size_t)size);
  r->tr_qcap = nodes + 2;
  r->tr_queue = arena_try_alloc(a, sizeof(int64_t) * (size_t)r->tr_qcap);
  if (!r->tr_vkeys || !r->tr_vstamps || !r->tr_queue)
    return op_alloc_error(a, e);
  r->tr_vmask = size - 1;
  r->tr_stamp = 0;
  return CZ_OK;
}

/* Marks x visited for the current root; false when it was already. */
static bool tr_visit(transitive_run_t *r, int64_t x)
{
  uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull;
  int64_t i = (int64_t)(h >> 17) & r->tr_vmask;
  while (r->tr_vstamps[i] == r->tr_stamp) {
    if (r->tr_vkeys[i] == x)
      return false;
    i = (i + 1) & r->tr_vmask;
  }
  r->tr_vstamps[i] = r->tr_stamp;
  r->tr_vkeys[i] = x;
  return true;
}

/* The successors of x: [*lo, *hi) of the edges. */
static void tr_succ(const transitive_run_t *r, int64_t x, int64_t *lo, int64_t *hi)
{
  int64_t l = 0, h = r->tr_nedges;
  while (l < h) {
    int64_t m = l + (h - l) / 2;
    if (r->tr_edges[m].tp_from < x)
      l = m + 1;
    else
      h = m;
  }
  *lo = l;
  h = r->tr_nedges;
  while (l < h && r->tr_edges[l].tp_from == x)
    l++;
  *hi = l;
}

static int transitive_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_transitive_t *t = (const op_transitive_t *)o;
  transitive_run_t *r = (transitive_run_t *)st;
  memset((char *)r + sizeof(opst_t), 0, sizeof(*r) - sizeof(opst_t));
  xctx_t xc;
  op_xctx(q, st->os_state, &xc);
  datum_t d;
  if (t->ot_start) {
    if (xeval_scalar(&xc, t->ot_start, &d, e) != CZ_OK)
      return CZ_ERR;
    r->tr_have_start = !d.d_null;
    r->tr_start = d.d_i64;
  }
  if (t->ot_stop) {
    if (xeval_scalar(&xc, t->ot_stop, &d, e) != CZ_OK)
      return CZ_ERR;
    r->tr_have_stop = !d.d_null;
    r->tr_stop = d.d_i64;
  }
  if (o->o_in2)
    r->tr_have_start = false;  /* the roots input gives the starts */
  r->tr_backward = !r->tr_have_start && r->tr_have_stop && !o->o_in2;
  if (tr_read_edges(o, r, q, e) != CZ_OK || tr_alloc_search(r, e) != CZ_OK)
    return CZ_ERR;
  if (o->o_in2)
    return tr_read_roots(o, r, q, e);
  if (r->tr_have_start || r->tr_have_stop) {
    r->tr_roots = arena_alloc(st->os_state, sizeof(int64_t));
    r->tr_roots[0] = r->tr_have_start ? r->tr_start : r->tr_stop;
    r->tr_nroots = 1;
    return CZ_OK;
  }
  return tr_all_roots(r, t->ot_min, e);
}

/* Appends (root, x) — (x, root) when searching backward — unless a stop
 * is given that x is not. */
static void tr_emit(transitive_run_t *r, batch_t *b, int *n, int64_t x)
{
  bool reach = r->tr_have_stop && !r->tr_backward;  /* a reachability test per root */
  if (reach && x != r->tr_stop)
    return;
  int64_t from = r->tr_backward ? x : r->tr_root, to = r->tr_backward ? r->tr_root : x;
  b->b_cols[0].v_i64[*n] = from;
  b->b_cols[1].v_i64[*n] = to;
  b->b_cols[0].v_null[*n] = b->b_cols[1].v_null[*n] = 0;
  (*n)++;
  /* stop reached: nothing more to look for from this root */
  if (reach)
    r->tr_found = true;
}

static int transitive_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_transitive_t *t = (const op_transitive_t *)o;
  transitive_run_t *r = (transitive_run_t *)st;
  if (r->tr_done)
    return CZ_OK;
  batch_t *b = op_new_batch(o, st, q, e);
  if (!b)
    return CZ_ERR;
  int n = 0;
  while (n < q->q_vector_size && !r->tr_done) {
    if (r->tr_found) {
      r->tr_found = false;
      r->tr_in_root = false;
    }
    if (!r->tr_in_root) {
      if (r->tr_root_i >= r->tr_nroots) {
        r->tr_done = true;
        break;
      }
      r->tr_root = r->tr_roots[r->tr_root_i++];
      if (++r->tr_stamp == 0) {
        /* 2^32 roots: the stamps start over */
        memset(r->tr_vstamps, 0, sizeof(uint32_t) * (size_t)(r->tr_vmask + 1));
        r->tr_stamp = 1;
      }
      r->tr_qhead = r->tr_qtail = 0;
      r->tr_edge = r->tr_edge_end = 0;
      r->tr_queue[r->tr_qtail++] = r->tr_root;
      r->tr_in_root = true;
      if (t->ot_min == 0) {
        tr_visit(r, r->tr_root);
        tr_emit(r, b, &n, r->tr_root);
      }
      continue;
    }
    if (r->tr_edge < r->tr_edge_end) {
      int64_t x = r->tr_edges[r->tr_edge++].tp_to;
      if (++r->tr_walked >= 65536) {
        r->tr_walked = 0;
        if (op_check_cancel(q, e) != CZ_OK)
          return CZ_ERR;
      }
      if (tr_visit(r, x)) {
        /* the root reached again through a cycle (min 1) is not expanded twice */
        if (x != r->tr_root || t->ot_min == 0) {
          if (r->tr_qtail < r->tr_qcap)
            r->tr_queue[r->tr_qtail++] = x;
        }
        tr_emit(r, b, &n, x);
      }
      continue;
    }
    if (r->tr_qhead == r->tr_qtail) {
      r->tr_in_root = false;
      continue;
    }
    tr_succ(r, r->tr_queue[r->tr_qhead++], &r->tr_edge, &r->tr_edge_end);
  }
  if (n == 0)
    return CZ_OK;
  b->b_n = n;
  out->ob_b = b;
  out->ob_n = n;
  return CZ_OK;
}

static void transitive_close(const op_t *o, opst_t *st, qctx_t *q)
{
  (void)st;
  op_close(o->o_in, q);
  if (o->o_in2)
    op_close(o->o_in2, q);
}

/* Whether an end is given in the plan: an expression that is not the
 * NULL constant (its value may still be NULL at run time). */
static bool tr_given(const xnode_t *x)
{
  return x && !(x->x_kind == X_CONST && x->x_const.d_null);
}

static char *transitive_detail(const op_t *o, arena_t *a)
{
  const op_transitive_t *t = (const op_transitive_t *)o;
  const char *steps = t->ot_min == 0 ? "0 or more steps" : "1 or more steps";
  bool start = tr_given(t->ot_start), stop = tr_given(t->ot_stop);
  if (o->o_in2)
    return arena_sprintf(a, "(%s, forward from each root%s)", steps, stop ? " to stop" : "");
  if (start && stop)
    return arena_sprintf(a, "(%s, from start to stop)", steps);
  if (start)
    return arena_sprintf(a, "(%s, forward from start)", steps);
  if (stop)
    return arena_sprintf(a, "(%s, backward from stop)", steps);
  return arena_sprintf(a, "(%s, from every node)", steps);
}

static const op_vt_t transitive_vt = {
    .ov_name = "Transitive Closure",
    .ov_open = transitive_open,
    .ov_next = transitive_next,
    .ov_close = transitive_close,
    .ov_detail = transitive_detail,
    .ov_run_size = sizeof(transitive_run_t),
};

op_t *op_transitive_new(arena_t *a, op_t *edges, op_t *roots, xnode_t *start, xnode_t *stop, int min_len)
{
  op_transitive_t *t = arena_zalloc(a, sizeof(*t));
  ty_t types[2] = {ty_plain(TY_INT8), ty_plain(TY_INT8)};
  op_init(&t->ot_op, &transitive_vt, a, 2, types, edges, roots);
  t->ot_start = start;
  t->ot_stop = stop;
  t->ot_min = min_len;
  return &t->ot_op;
}
