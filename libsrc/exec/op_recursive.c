/* op_recursive — WITH RECURSIVE: the recursive union and the working
 * table its recursive term reads.
 *
 * Design notes (PostgreSQL's RecursiveUnion and WorkTableScan): the
 * non-recursive term's rows are returned and kept as the working table;
 * then the recursive term runs (re-opened) with its WorkTable leaf reading
 * the working table, its rows are returned and kept as the next working
 * table, and so on until a run adds no row. Two row stores in two arenas
 * take turns: the one the term reads and the one it fills; when a run
 * ends the one read is reset and becomes the next to fill, so memory is
 * what two consecutive iterations hold (plus, for UNION, the set of rows
 * seen, which PostgreSQL keeps too), not the whole output: an infinite
 * UNION ALL recursion streams until LIMIT, cancel or statement_timeout
 * stops it. Rows are streamed as each run produces them. */
#include "exec/exec_int.h"
#include "exec/exec_ql.h"

typedef struct op_recursive_s op_recursive_t;

typedef struct op_worktable_s {
  op_t wt_op;
  const char *wt_name;
  op_recursive_t *wt_union;     /* set by op_recursive_new */
} op_worktable_t;

typedef struct worktable_run_s {
  opst_t wt_st;
  int64_t wt_pos;               /* next row to return */
} worktable_run_t;

struct op_recursive_s {
  op_t ru_op;
  bool ru_all;
  op_worktable_t *ru_wt;
};

/* The union's run state, which its working table (a leaf below it, in
 * the same execution) reads. */
typedef struct recursive_run_s {
  opst_t ru_st;
  arena_t *ru_ar[2];
  rstore_t ru_store[2];         /* [ru_cur] is read by the working table, the other filled */
  int ru_cur;
  int ru_phase;                 /* 0 non-recursive term, 1 recursive term, 2 done */
  rset_t ru_seen;               /* UNION: every row returned */
} recursive_run_t;

static int wt_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_worktable_t *w = (const op_worktable_t *)o;
  ((worktable_run_t *)st)->wt_pos = 0;
  if (!w->wt_union || !op_state(&w->wt_union->ru_op, q))
    return err_set(e, SQLSTATE_INTERNAL, "working table without its recursive union");
  return CZ_OK;
}

static int wt_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_worktable_t *wp = (const op_worktable_t *)o;
  worktable_run_t *w = (worktable_run_t *)st;
  const recursive_run_t *u = (const recursive_run_t *)op_state(&wp->wt_union->ru_op, q);
  const rstore_t *rs = &u->ru_store[u->ru_cur];
  if (w->wt_pos >= rs->rs_n)
    return CZ_OK;
  batch_t *b = op_new_batch(o, st, q, e);
  if (!b)
    return CZ_ERR;
  int n = 0;
  while (n < q->q_vector_size && w->wt_pos < rs->rs_n)
    rs_copy_out(rs, w->wt_pos++, b, n++, 0);
  b->b_n = n;
  out->ob_b = b;
  out->ob_n = n;
  return CZ_OK;
}

static char *wt_detail(const op_t *o, arena_t *a)
{
  return arena_sprintf(a, "on %s", ((const op_worktable_t *)o)->wt_name);
}

static const op_vt_t worktable_vt = {
    .ov_name = "WorkTable Scan",
    .ov_open = wt_open,
    .ov_next = wt_next,
    .ov_detail = wt_detail,
    .ov_run_size = sizeof(worktable_run_t),
};

op_t *op_worktable_new(arena_t *a, const char *name, int ncols, const ty_t *types)
{
  op_worktable_t *w = arena_zalloc(a, sizeof(*w));
  op_init(&w->wt_op, &worktable_vt, a, ncols, types, NULL, NULL);
  w->wt_name = name;
  return &w->wt_op;
}

/* Makes store i empty, in its arena emptied first. */
static void store_clear(const op_t *o, recursive_run_t *u, int i)
{
  arena_reset(u->ru_ar[i]);
  rs_init(&u->ru_store[i], u->ru_ar[i], o->o_ncols, o->o_types);
}

static int ru_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_recursive_t *up = (const op_recursive_t *)o;
  recursive_run_t *u = (recursive_run_t *)st;
  if (!u->ru_ar[0]) {
    u->ru_ar[0] = arena_create_scratch(qexec_arena(q), "recursive work");
    u->ru_ar[1] = arena_create_scratch(qexec_arena(q), "recursive work");
  }
  store_clear(o, u, 0);
  store_clear(o, u, 1);
  u->ru_cur = 0;
  u->ru_phase = 0;
  if (!up->ru_all && rset_init(&u->ru_seen, st->os_state, o->o_ncols, o->o_types, e) != CZ_OK)
    return CZ_ERR;
  return op_open(o->o_in, q, e);
}

/* Keeps the new rows of `in` (all, or for UNION those not seen before)
 * in the store being filled; *n of them, selected by sel. */
static int ru_keep(const op_recursive_t *up, recursive_run_t *u, qctx_t *q, const obatch_t *in,
                   int *sel, int *n, err_t *e)
{
  rstore_t *next = &u->ru_store[1 - u->ru_cur];
  *n = 0;
  for (int i = 0; i < in->ob_n; i++) {
    int row = in->ob_sel ? in->ob_sel[i] : i;
    if (!up->ru_all) {
      bool added;
      if (rset_add(&u->ru_seen, in->ob_b, row, &added, e) < 0)
        return CZ_ERR;
      if (!added)
        continue;
    }
    if (rs_append_row(next, in->ob_b, row, e) < 0)
      return CZ_ERR;
    sel[(*n)++] = row;
  }
  return op_check_mem(q, u->ru_st.os_state, e);
}

static int ru_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_recursive_t *up = (const op_recursive_t *)o;
  recursive_run_t *u = (recursive_run_t *)st;
  for (;;) {
    if (u->ru_phase == 2)
      return CZ_OK;
    const op_t *in_op = u->ru_phase == 0 ? o->o_in : o->o_in2;
    obatch_t in;
    if (op_next(in_op, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (in.ob_b) {
      int *sel = arena_alloc(st->os_batch, sizeof(int) * (size_t)(in.ob_n + 1));
      int n;
      if (ru_keep(up, u, q, &in, sel, &n, e) != CZ_OK)
        return CZ_ERR;
      if (n == 0)
        continue;
      out->ob_b = in.ob_b;
      out->ob_sel = sel;
      out->ob_n = n;
      return CZ_OK;
    }
    /* a run ended: what it added becomes the working table */
    op_close(in_op, q);
    u->ru_cur = 1 - u->ru_cur;
    store_clear(o, u, 1 - u->ru_cur);
    if (u->ru_store[u->ru_cur].rs_n == 0) {
      u->ru_phase = 2;
      return CZ_OK;
    }
    u->ru_phase = 1;
    if (op_open(o->o_in2, q, e) != CZ_OK)
      return CZ_ERR;
  }
}

static const op_vt_t recursive_vt = {
    .ov_name = "Recursive Union",
    .ov_open = ru_open,
    .ov_next = ru_next,
    .ov_run_size = sizeof(recursive_run_t),
};

op_t *op_recursive_new(arena_t *a, op_t *nonrec, op_t *rec, op_t *wt, bool all)
{
  op_recursive_t *u = arena_zalloc(a, sizeof(*u));
  op_init(&u->ru_op, &recursive_vt, a, nonrec->o_ncols, nonrec->o_types, nonrec, rec);
  u->ru_all = all;
  u->ru_wt = (op_worktable_t *)wt;
  u->ru_wt->wt_union = u;
  return &u->ru_op;
}
