/* op_cte — a WITH query computed once per execution: every CTE Scan over
 * the same op_cte_t reads the one worktable that the first of them to be
 * opened fills from the query's plan (PostgreSQL's CTE Scan over its
 * materialised CTE).
 *
 * Design notes:
 * - The worktable is the execution's, not the plan's: a cte_table_t in
 *   the run-state table keyed by the op_cte_t's address, so one prepared
 *   plan runs in many executions at once. Contexts of one execution's
 *   subqueries share their root's run-state table, so a reference inside
 *   a per-row subquery finds the table the outer query filled (and fills
 *   it once for all the rows when it comes first). A worker context of a
 *   Gather has a table of its own: a reference there would compute the
 *   query again for that worker; the planner never puts one on a
 *   Gather's chain (the scan is not splittable, and a join's build side
 *   is read on the session's thread in the Gather's context, i.e. the
 *   execution's table), so the body runs once and all threads read it.
 * - Memory: the rows live in an arena made under the execution's
 *   run-state arena; each batch appended is checked against MaxQueryMem
 *   (rs_fill), so a worktable too large for the query fails with 53200 as
 *   the other operators that hold their input (buffer, window) do. It is
 *   kept until the execution ends: any reference may be re-opened (a
 *   nested loop's inner side, a per-row subquery) and read it again.
 * - The body's plan is the input of the first scan made (EXPLAIN shows it
 *   once, there); the other scans have no input. Whichever scan opens
 *   first runs it, through the op_cte_t, which every scan holds.
 * - Errors: a failed fill leaves the table unfilled (ct_failed); the
 *   execution fails with that error, so nothing reads a partial table. */
#include "exec/exec_int.h"

struct op_cte_s {
  op_t *oc_body;                /* the WITH query's plan */
  const char *oc_name;          /* for EXPLAIN */
  int oc_nscans;                /* scans made over it (the first shows the body) */
  double oc_rows, oc_cost;      /* the body's estimates (< 0 unknown), for every scan */
};

/* The worktable of one execution. */
typedef struct cte_table_s {
  arena_t *ct_arena;
  rstore_t ct_rows;
  bool ct_filled;
  bool ct_failed;
} cte_table_t;

typedef struct op_cte_scan_s {
  op_t cs_op;
  op_cte_t *cs_cte;
  bool cs_first;                /* the body is its input (EXPLAIN) */
} op_cte_scan_t;

typedef struct cte_scan_run_s {
  opst_t cs_st;
  cte_table_t *cs_table;
  int64_t cs_pos;
} cte_scan_run_t;

op_cte_t *op_cte_new(arena_t *a, op_t *body, const char *name)
{
  op_cte_t *c = arena_zalloc(a, sizeof(*c));
  c->oc_body = body;
  c->oc_name = arena_strdup(a, name);
  /* the first estimates down the body's one-input chain (the planner's
   * estimate sits on the group-by or join under projections) */
  c->oc_rows = c->oc_cost = -1;
  for (const op_t *o = body; o && (c->oc_rows < 0 || c->oc_cost < 0); o = o->o_in2 ? NULL : o->o_in) {
    if (c->oc_rows < 0 && o->o_est_rows >= 0)
      c->oc_rows = o->o_est_rows;
    if (c->oc_cost < 0 && o->o_est_cost > 0)
      c->oc_cost = o->o_est_cost;
  }
  return c;
}

static int cte_fill(const op_cte_t *c, qctx_t *q, cte_table_t *t, err_t *e)
{
  if (t->ct_failed)
    return err_set(e, SQLSTATE_INTERNAL, "WITH query \"%s\" failed earlier", c->oc_name);
  t->ct_arena = arena_create(qexec_arena(q), "CTE worktable");
  rs_init(&t->ct_rows, t->ct_arena, c->oc_body->o_ncols, c->oc_body->o_types);
  if (rs_fill(&t->ct_rows, c->oc_body, q, t->ct_arena, e) != CZ_OK) {
    op_close(c->oc_body, q);
    t->ct_failed = true;
    return CZ_ERR;
  }
  t->ct_filled = true;
  return CZ_OK;
}

static int cte_scan_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_cte_scan_t *s = (const op_cte_scan_t *)o;
  cte_scan_run_t *r = (cte_scan_run_t *)st;
  r->cs_pos = 0;
  r->cs_table = qexec_state(q, s->cs_cte, sizeof(cte_table_t), true, NULL);
  if (!r->cs_table->ct_filled && cte_fill(s->cs_cte, q, r->cs_table, e) != CZ_OK)
    return CZ_ERR;
  st->os_mem = (int64_t)arena_bytes_used(r->cs_table->ct_arena);
  return CZ_OK;
}

static int cte_scan_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  cte_scan_run_t *r = (cte_scan_run_t *)st;
  const rstore_t *rs = &r->cs_table->ct_rows;
  if (r->cs_pos >= rs->rs_n)
    return CZ_OK;
  batch_t *bt = op_new_batch(o, st, q, e);
  if (!bt)
    return CZ_ERR;
  int n = 0;
  while (r->cs_pos < rs->rs_n && n < q->q_vector_size)
    rs_copy_out(rs, r->cs_pos++, bt, n++, 0);
  bt->b_n = n;
  out->ob_b = bt;
  out->ob_n = n;
  return CZ_OK;
}

static void cte_scan_close(const op_t *o, opst_t *st, qctx_t *q)
{
  (void)o;
  (void)st;
  (void)q;  /* the body was closed when the table was filled */
}

static char *cte_scan_detail(const op_t *o, arena_t *a)
{
  const op_cte_scan_t *s = (const op_cte_scan_t *)o;
  return arena_sprintf(a, "on %s", s->cs_cte->oc_name);
}

static const op_vt_t cte_scan_vt = {
    .ov_name = "CTE Scan",
    .ov_open = cte_scan_open,
    .ov_next = cte_scan_next,
    .ov_close = cte_scan_close,
    .ov_detail = cte_scan_detail,
    .ov_run_size = sizeof(cte_scan_run_t),
};

op_t *op_cte_scan_new(arena_t *a, op_cte_t *c)
{
  op_cte_scan_t *s = arena_zalloc(a, sizeof(*s));
  s->cs_cte = c;
  s->cs_first = c->oc_nscans++ == 0;
  op_init(&s->cs_op, &cte_scan_vt, a, c->oc_body->o_ncols, c->oc_body->o_types,
          s->cs_first ? c->oc_body : NULL, NULL);
  /* the first reference pays for the body; the others only read */
  s->cs_op.o_est_rows = c->oc_rows;
  s->cs_op.o_est_cost = s->cs_first ? c->oc_cost : c->oc_rows >= 0 ? c->oc_rows * 0.2 : -1;
  return &s->cs_op;
}

bool op_is_cte_scan(const op_t *o)
{
  return o->o_vt == &cte_scan_vt;
}
