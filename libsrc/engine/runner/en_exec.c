/* en_exec — the one place an execution of a plan is set up and ended
 * (portals, EXPLAIN ANALYZE, COPY (query) TO, the DELETE of TRUNCATE), and
 * EXPLAIN [ANALYZE].
 *
 * Design notes: an execution is a qctx_t over a plan plus the memory budget
 * it runs under (en_qmem.c). Every statement that runs operators gets its
 * context here, so each sees the same things: its own arena, VectorSize,
 * the session's cancel flag and transaction, now() fixed once
 * (q_stmt_ts), the budget charged to the context's arena (which holds
 * every operator's run state: plans are immutable, exec.h), the output's
 * arena, and the plan's arena only when the plan was built for this one
 * execution. The caller opens, drives and closes the operators and then
 * ends the execution (er_exec_end), which deletes its spill files and
 * releases the run states even after an error or a cancel. */
#include <stdio.h>
#include <string.h>

#include "engine/runner/runner_int.h"

int64_t en_stmt_ts(void)
{
  return (int64_t)time_wall_ms() * 1000 - INT64_C(946684800000000);
}

void er_exec_begin(erexec_t *x, esession_t *s, const splan_t *pl, datum_t *params, int nparams,
                   arena_t *parent, arena_t *plan_arena, arena_t *out)
{
  engine_t *eng = es_engine(s);
  memset(x, 0, sizeof(*x));
  qctx_t *q = &x->x_q;
  q->q_arena = arena_create(parent, "execution");
  q->q_params = params;
  q->q_param_types = pl->sp_param_types;
  q->q_nparams = nparams;
  q->q_vector_size = eng->en_vector_size;
  q->q_max_mem = eng->en_max_mem;
  q->q_workers = eng->en_qworkers;
  q->q_threads = esession_threads(s);
  q->q_cancel = es_cancel_flag(s);
  q->q_txn = es_txn(s);
  q->q_tops_ctx = s;
  /* now() is the statement's start: µs since 2000-01-01 as TIMESTAMP */
  q->q_stmt_ts = en_stmt_ts();
  x->x_plan_arena = plan_arena;
  x->x_out = out;
  /* A cached plan is not written while it runs: only a plan built for
   * this execution (plan_arena not NULL) is charged with it. */
  en_qmem_attach(q, &x->x_budget, eng->en_max_mem, plan_arena, out);
}

void er_exec_end(erexec_t *x)
{
  en_qmem_detach(&x->x_q, x->x_plan_arena, x->x_out);
}

/* EXPLAIN ANALYZE: runs the plan (changes included, as PostgreSQL does)
 * discarding its rows, in the session's transaction or an implicit one;
 * *text is the EXPLAIN text with the figures of that run, read from its
 * run states before they go. */
static int explain_run(erun_t *r, splan_t *pl, arena_t *a, char **text, err_t *e)
{
  esession_t *s = r->ru_stmt->st_sess;
  bool implicit = false;
  if ((pl->sp_kind != SP_QUERY || pl->sp_locks_rows || es_in_block(s)) &&
      es_tx_ensure(s, &implicit, e) != CZ_OK)
    return CZ_ERR;
  /* The run's states live in its q_arena (a child of a), charged to the
   * budget and released after it. */
  erexec_t x;
  er_exec_begin(&x, s, pl, r->ru_params, r->ru_nparams, a, NULL, NULL);
  qctx_t *q = &x.x_q;
  int rc = op_open(pl->sp_root, q, e);
  while (rc == CZ_OK) {
    obatch_t ob;
    if ((rc = op_next(pl->sp_root, q, &ob, e)) != CZ_OK || !ob.ob_b)
      break;
  }
  op_close(pl->sp_root, q);
  *text = op_explain(pl->sp_root, q, a);
  er_exec_end(&x);
  if (implicit)
    return es_tx_end_implicit(s, rc == CZ_OK, e) == CZ_OK ? rc : CZ_ERR;
  return rc;
}

int en_explain(erun_t *r, erows_fn_t fn, void *ctx, err_t *e)
{
  estmt_t *st = r->ru_stmt;
  const sql_stmt_t *inner = st->st_ast->st_explained;
  bool analyze = st->st_ast->st_analyze;
  if (en_is_utility(inner))
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "EXPLAIN of this statement is not supported");
  arena_t *a = arena_create(r->ru_arena, "explain");
  sp_env_t env;
  en_env(st->st_sess, &env);
  es_refresh_snapshot(st->st_sess);
  splan_t *pl;
  uint64_t t0 = time_now_ns();
  if (sql_plan_stmt(a, inner, &env, st->st_given, st->st_nparams_given, &pl, e) != CZ_OK)
    return CZ_ERR;
  if (en_check_access(st->st_sess, pl, e) != CZ_OK)
    return CZ_ERR;
  uint64_t t1 = time_now_ns();
  char *text = NULL;
  if (analyze && explain_run(r, pl, a, &text, e) != CZ_OK)
    return CZ_ERR;
  if (!analyze)
    text = op_explain(pl->sp_root, NULL, a);
  if (analyze) {
    /* where the time went, as PostgreSQL's summary lines (a SPARQL
     * statement's front end first: parse, constants, compile to SQL) */
    uint64_t t2 = time_now_ns();
    if (st->st_front_ns)
      text = arena_sprintf(a, "%s\nSPARQL Compile Time: %.3f ms", text, (double)st->st_front_ns / 1e6);
    text = arena_sprintf(a, "%s\nPlanning Time: %.3f ms\nExecution Time: %.3f ms", text,
                         (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e6);
  }
  int nlines = 1;
  for (char *c = text; *c; c++)
    nlines += *c == '\n';
  ty_t t = ty_plain(TY_TEXT);
  batch_t *b = batch_create(a, 1, &t, nlines, e);
  if (!b)
    return CZ_ERR;
  char *line = text;
  for (int i = 0; i < nlines; i++) {
    char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    datum_t d = {.d_null = false};
    d.d_str.s_ptr = line;
    d.d_str.s_len = (uint32_t)len;
    vec_set(&b->b_cols[0], i, &d);
    line = nl ? nl + 1 : line + len;
  }
  b->b_n = nlines;
  snprintf(r->ru_tag, sizeof(r->ru_tag), "EXPLAIN");
  return fn(ctx, b, e);
}
