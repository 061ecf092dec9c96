/* en_portal — portals: binding parameter values, running a statement in
 * batches with a row limit (suspending and resuming), command tags, and
 * the transaction bracket of each execution. */
#include <stdio.h>
#include <string.h>

#include "engine/engine_int.h"

int eportal_bind(estmt_t *st, const eparam_t *params, int nparams, eportal_t **out, err_t *e)
{
  esession_t *s = st->st_sess;
  if (en_check_not_failed(s, st->st_ast, e) != CZ_OK)
    return CZ_ERR;
  if (st->st_plan && !st->st_plan_busy) {
    en_refresh_snapshot(s);
    if (st->st_snap != s->se_snap && en_stmt_replan(st, e) != CZ_OK) {
      en_tx_fail(s);
      return CZ_ERR;
    }
  }
  if (nparams != st->st_nparams) {
    en_tx_fail(s);
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION,
                   "bind message supplies %d parameters, but prepared statement requires %d",
                   nparams, st->st_nparams);
  }
  arena_t *a = arena_create(NULL, "portal");
  eportal_t *p = arena_zalloc(a, sizeof(*p));
  p->po_stmt = st;
  p->po_arena = a;
  p->po_nparams = nparams;
  p->po_params = arena_zalloc(a, sizeof(datum_t) * (size_t)(nparams + 1));
  for (int i = 0; i < nparams; i++) {
    const eparam_t *ep = &params[i];
    ty_t t = estmt_param_type(st, i);
    int rc = CZ_OK;
    if (!ep->ep_data)
      p->po_params[i].d_null = true;
    else if (ep->ep_format == 0)
      rc = ty_parse_text(t, (const char *)ep->ep_data, ep->ep_len, a, &p->po_params[i], e);
    else
      rc = ty_parse_binary(t, ep->ep_data, ep->ep_len, a, &p->po_params[i], e);
    if (rc != CZ_OK) {
      err_prefix(e, "parameter $%d", i + 1);
      arena_destroy(a);
      en_tx_fail(s);
      return CZ_ERR;
    }
  }
  st->st_refs++;
  *out = p;
  return CZ_OK;
}

int en_portal_bind_values(estmt_t *st, const datum_t *vals, int n, eportal_t **out, err_t *e)
{
  if (n != st->st_nparams)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION, "%d parameters given, %d wanted", n,
                   st->st_nparams);
  arena_t *a = arena_create(NULL, "portal");
  eportal_t *p = arena_zalloc(a, sizeof(*p));
  p->po_stmt = st;
  p->po_arena = a;
  p->po_nparams = n;
  p->po_params = arena_zalloc(a, sizeof(datum_t) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    p->po_params[i] = vals[i];
    if (!vals[i].d_null && ty_phys(estmt_param_type(st, i).t_id) == TP_STR) {
      char *c = arena_alloc(a, vals[i].d_str.s_len + 1);
      memcpy(c, vals[i].d_str.s_ptr, vals[i].d_str.s_len);
      p->po_params[i].d_str.s_ptr = c;  /* the caller's values die with its portal */
    }
  }
  st->st_refs++;
  *out = p;
  return CZ_OK;
}

static void portal_release_plan(eportal_t *p)
{
  if (!p->po_plan)
    return;
  if (p->po_own_plan) {
    if (p->po_snap)
      cat_snapshot_release(p->po_snap);
    p->po_snap = NULL;
  } else
    p->po_stmt->st_plan_busy = false;
  p->po_plan = NULL;
}

void eportal_free(eportal_t *p)
{
  if (!p)
    return;
  esession_t *s = p->po_stmt->st_sess;
  if (p->po_inner) {  /* EXECUTE: no plan of its own */
    eportal_free(p->po_inner);
    p->po_state = EP_DONE;
  }
  if (p->po_state == EP_RUNNING) {
    op_close(p->po_plan->sp_root, &p->po_q);
    en_qmem_detach(&p->po_q, p->po_run_arena, p->po_out);
    if (p->po_implicit)
      en_tx_end_implicit(s, false, NULL);
  }
  portal_release_plan(p);
  estmt_t *st = p->po_stmt;
  arena_destroy(p->po_arena);
  en_stmt_unref(st);
}

const char *eportal_tag(const eportal_t *p)
{
  return p->po_tag;
}

/* Sends rows [from, from+n) of the selected rows of ob to fn. */
static int portal_emit(eportal_t *p, const obatch_t *ob, int from, int n, erows_fn_t fn,
                       void *ctx, err_t *e)
{
  int ncols = p->po_stmt->st_ncols;
  if (!ob->ob_sel && from == 0 && n == ob->ob_b->b_n && ob->ob_b->b_ncols == ncols)
    return fn(ctx, ob->ob_b, e);
  arena_reset(p->po_out);
  int *sel = arena_alloc(p->po_out, sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    sel[i] = ob->ob_sel ? ob->ob_sel[from + i] : from + i;
  obatch_t part = {.ob_b = ob->ob_b, .ob_sel = sel, .ob_n = n};
  batch_t *b = op_compact(&part, ncols, p->po_out, e);
  if (!b)
    return CZ_ERR;
  return fn(ctx, b, e);
}

static int portal_start(eportal_t *p, err_t *e)
{
  estmt_t *st = p->po_stmt;
  esession_t *s = st->st_sess;
  /* The statement's plan unless another portal is running it. */
  if (st->st_plan_busy) {
    p->po_plan_arena = arena_create(p->po_arena, "plan");
    en_refresh_snapshot(s);
    if (en_plan(st, p->po_plan_arena, &p->po_plan, e) != CZ_OK)
      return CZ_ERR;
    p->po_own_plan = true;
    p->po_snap = cat_snapshot_tx(s->se_eng->en_cat, s->se_tx);
  } else {
    p->po_plan = st->st_plan;
    st->st_plan_busy = true;
  }
  bool writes = p->po_plan->sp_kind != SP_QUERY;
  if (writes || s->se_block) {
    bool implicit;
    if (en_tx_ensure(s, &implicit, e) != CZ_OK)
      return CZ_ERR;
    p->po_implicit = implicit;
  }
  qctx_t *q = &p->po_q;
  memset(q, 0, sizeof(*q));
  q->q_arena = arena_create(p->po_arena, "execution");
  q->q_params = p->po_params;
  q->q_param_types = p->po_plan->sp_param_types;
  q->q_nparams = p->po_nparams;
  q->q_vector_size = s->se_eng->en_vector_size;
  q->q_max_mem = s->se_eng->en_max_mem;
  q->q_cancel = &s->se_cancel;
  q->q_txn = s->se_tx;
  q->q_tops_ctx = s;
  /* now() is the statement's start: µs since 2000-01-01 as TIMESTAMP */
  q->q_stmt_ts = en_stmt_ts();
  for (int i = 0; i < p->po_plan->sp_nsubqs; i++)
    xsubq_reset(p->po_plan->sp_subqs[i], q);
  p->po_out = arena_create(p->po_arena, "out");
  p->po_run_arena = p->po_own_plan ? p->po_plan_arena : st->st_plan_arena;
  en_qmem_attach(q, &p->po_budget, s->se_eng->en_max_mem, p->po_run_arena, p->po_out);
  p->po_state = EP_RUNNING;
  return op_open(p->po_plan->sp_root, q, e);
}

static void portal_finish_tag(eportal_t *p)
{
  const splan_t *pl = p->po_plan;
  switch (pl->sp_kind) {
  case SP_QUERY:
    snprintf(p->po_tag, sizeof(p->po_tag), "SELECT %lld", (long long)p->po_rows);
    break;
  case SP_INSERT:
    snprintf(p->po_tag, sizeof(p->po_tag), "INSERT 0 %lld", (long long)op_dml_count(pl->sp_dml));
    break;
  case SP_UPDATE:
    snprintf(p->po_tag, sizeof(p->po_tag), "UPDATE %lld", (long long)op_dml_count(pl->sp_dml));
    break;
  case SP_DELETE:
    snprintf(p->po_tag, sizeof(p->po_tag), "DELETE %lld", (long long)op_dml_count(pl->sp_dml));
    break;
  }
}

/* Runs until max_rows rows went out or the plan ends. */
static int portal_run(eportal_t *p, int64_t max_rows, erows_fn_t fn, void *ctx, bool *suspended,
                      err_t *e)
{
  op_t *root = p->po_plan->sp_root;
  int64_t sent = 0;
  for (;;) {
    if (p->po_pending.ob_b) {
      int left = p->po_pending.ob_n - p->po_pending_off;
      int n = left;
      if (max_rows > 0 && n > max_rows - sent)
        n = (int)(max_rows - sent);
      if (n > 0 && portal_emit(p, &p->po_pending, p->po_pending_off, n, fn, ctx, e) != CZ_OK)
        return CZ_ERR;
      sent += n;
      p->po_rows += n;
      p->po_pending_off += n;
      if (p->po_pending_off >= p->po_pending.ob_n)
        p->po_pending.ob_b = NULL;
    }
    if (max_rows > 0 && sent >= max_rows) {
      /* Suspended unless the plan turns out to be at its end. */
      if (!p->po_pending.ob_b) {
        if (op_next(root, &p->po_q, &p->po_pending, e) != CZ_OK)
          return CZ_ERR;
        p->po_pending_off = 0;
      }
      *suspended = p->po_pending.ob_b != NULL;
      return CZ_OK;
    }
    obatch_t ob;
    if (op_next(root, &p->po_q, &ob, e) != CZ_OK)
      return CZ_ERR;
    if (!ob.ob_b)
      return CZ_OK;
    if (ob.ob_n == 0 || p->po_stmt->st_ncols < 0)
      continue;
    p->po_pending = ob;
    p->po_pending_off = 0;
  }
}

static int portal_utility(eportal_t *p, erows_fn_t fn, void *ctx, err_t *e);

static int portal_execute(eportal_t *p, int64_t max_rows, erows_fn_t fn, void *ctx,
                          bool *suspended, err_t *e)
{
  estmt_t *st = p->po_stmt;
  esession_t *s = st->st_sess;
  *suspended = false;
  if (p->po_state == EP_DONE)
    return CZ_OK;
  if (st->st_ast && st->st_ast->st_kind == SQL_STMT_EXECUTE)
    return en_execute_run(p, max_rows, fn, ctx, suspended, e);
  en_sp_stmt_mark(s);  /* a resumed portal too: writes since its last run stay on failure */
  if (p->po_state == EP_NEW) {
    s->se_cancel = false;  /* a cancel aims at the statement running when it came */
    if (en_check_not_failed(s, st->st_ast, e) != CZ_OK)
      return CZ_ERR;
    if (!st->st_ast) {
      p->po_state = EP_DONE;
      if (st->st_cursor) {
        if (en_cursor_run(p, fn, ctx, e) != CZ_OK) {
          en_tx_fail(s);
          return CZ_ERR;
        }
        return CZ_OK;
      }
      return CZ_OK;  /* empty query: tag "" */
    }
    if (en_is_utility(st->st_ast)) {
      p->po_state = EP_DONE;
      if (portal_utility(p, fn, ctx, e) != CZ_OK) {
        en_tx_fail(s);
        return CZ_ERR;
      }
      return CZ_OK;
    }
    if (portal_start(p, e) != CZ_OK)
      goto fail;
  }
  if (portal_run(p, max_rows, fn, ctx, suspended, e) != CZ_OK)
    goto fail;
  if (*suspended)
    return CZ_OK;  /* only reads suspend, and reads outside a block run without a transaction */
  op_close(p->po_plan->sp_root, &p->po_q);
  portal_finish_tag(p);
  en_qmem_detach(&p->po_q, p->po_run_arena, p->po_out);
  p->po_state = EP_DONE;
  portal_release_plan(p);
  if (p->po_implicit)
    return en_tx_end_implicit(s, true, e) == CZ_OK ? CZ_OK : (en_tx_fail(s), CZ_ERR);
  return CZ_OK;
fail:
  if (p->po_plan && p->po_state == EP_RUNNING) {
    op_close(p->po_plan->sp_root, &p->po_q);
    en_qmem_detach(&p->po_q, p->po_run_arena, p->po_out);
  }
  p->po_state = EP_DONE;
  portal_release_plan(p);
  if (p->po_implicit)
    en_tx_end_implicit(s, false, NULL);
  else
    en_tx_fail(s);
  return CZ_ERR;
}

/* The statement is what a fatal signal's log names (util/crash.c). */
int eportal_execute(eportal_t *p, int64_t max_rows, erows_fn_t fn, void *ctx, bool *suspended,
                    err_t *e)
{
  crash_stmt_t prev = crash_stmt_enter(p->po_stmt->st_text, p->po_stmt->st_len);
  int rc = portal_execute(p, max_rows, fn, ctx, suspended, e);
  crash_stmt_leave(prev);
  return rc;
}

/* EXPLAIN ANALYZE: runs the plan (changes included, as PostgreSQL does)
 * discarding its rows, in the session's transaction or an implicit one. */
static int explain_run(eportal_t *p, splan_t *pl, arena_t *a, err_t *e)
{
  esession_t *s = p->po_stmt->st_sess;
  bool implicit = false;
  if ((pl->sp_kind != SP_QUERY || s->se_block) && en_tx_ensure(s, &implicit, e) != CZ_OK)
    return CZ_ERR;
  qctx_t q = {.q_arena = a, .q_params = p->po_params, .q_param_types = pl->sp_param_types,
              .q_nparams = p->po_nparams, .q_vector_size = s->se_eng->en_vector_size,
              .q_max_mem = s->se_eng->en_max_mem, .q_cancel = &s->se_cancel, .q_txn = s->se_tx,
              .q_tops_ctx = s, .q_stmt_ts = en_stmt_ts()};
  /* The plan and the run share arena a: charged to the budget for the
   * run; its operator arenas are released after it (the rows counts the
   * EXPLAIN text shows live in the operators themselves). */
  mem_budget_t b;
  q.q_arena = arena_create(a, "execution");
  en_qmem_attach(&q, &b, s->se_eng->en_max_mem, a, NULL);
  for (int i = 0; i < pl->sp_nsubqs; i++)
    xsubq_reset(pl->sp_subqs[i], &q);
  int rc = op_open(pl->sp_root, &q, e);
  while (rc == CZ_OK) {
    obatch_t ob;
    if ((rc = op_next(pl->sp_root, &q, &ob, e)) != CZ_OK || !ob.ob_b)
      break;
  }
  op_close(pl->sp_root, &q);
  en_qmem_detach(&q, a, NULL);
  if (implicit)
    return en_tx_end_implicit(s, rc == CZ_OK, e) == CZ_OK ? rc : CZ_ERR;
  return rc;
}

/* EXPLAIN: the operator tree, one row per line. */
static int portal_explain(eportal_t *p, erows_fn_t fn, void *ctx, err_t *e)
{
  estmt_t *st = p->po_stmt;
  const sql_stmt_t *inner = st->st_ast->st_explained;
  bool analyze = st->st_ast->st_analyze;
  if (en_is_utility(inner))
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "EXPLAIN of this statement is not supported");
  arena_t *a = arena_create(p->po_arena, "explain");
  sp_env_t env;
  en_env(st->st_sess, &env);
  en_refresh_snapshot(st->st_sess);
  splan_t *pl;
  if (sql_plan_stmt(a, inner, &env, st->st_given, st->st_nparams_given, &pl, e) != CZ_OK)
    return CZ_ERR;
  if (en_check_access(st->st_sess, pl, e) != CZ_OK)
    return CZ_ERR;
  if (analyze && explain_run(p, pl, a, e) != CZ_OK)
    return CZ_ERR;
  char *text = op_explain(pl->sp_root, analyze, a);
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
  snprintf(p->po_tag, sizeof(p->po_tag), "EXPLAIN");
  return fn(ctx, b, e);
}

static int portal_utility(eportal_t *p, erows_fn_t fn, void *ctx, err_t *e)
{
  estmt_t *st = p->po_stmt;
  esession_t *s = st->st_sess;
  const sql_stmt_t *ast = st->st_ast;
  switch (ast->st_kind) {
  case SQL_STMT_BEGIN:
  case SQL_STMT_COMMIT:
  case SQL_STMT_ROLLBACK:
  case SQL_STMT_SAVEPOINT:
  case SQL_STMT_RELEASE:
  case SQL_STMT_ROLLBACK_TO:
  case SQL_STMT_SET_TRANSACTION:
    return en_tx_control(s, ast, p->po_tag, sizeof(p->po_tag), e);
  case SQL_STMT_SET:
    return en_set(s, ast, p->po_tag, sizeof(p->po_tag), e);
  case SQL_STMT_SHOW:
    snprintf(p->po_tag, sizeof(p->po_tag), "SHOW");
    return en_show(s, ast->st_set, fn, ctx, e);
  case SQL_STMT_EXPLAIN:
    return portal_explain(p, fn, ctx, e);
  case SQL_STMT_COPY:
    return en_copy_run(p, e);
  case SQL_STMT_DEALLOCATE:
    return en_deallocate_run(p, e);
  case SQL_STMT_PREPARE:
    return en_prepare_run(p, e);
  case SQL_STMT_VACUUM:
    snprintf(p->po_tag, sizeof(p->po_tag), "%s", ast->st_analyze ? "ANALYZE" : "VACUUM");
    return ast->st_analyze ? en_analyze(s, ast, e) : CZ_OK;  /* nothing to vacuum */
  case SQL_STMT_CHECKPOINT:
    if (!s->se_superuser)
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be superuser to do CHECKPOINT");
    snprintf(p->po_tag, sizeof(p->po_tag), "CHECKPOINT");
    return engine_checkpoint(s->se_eng, e);
  default:
    return en_ddl(s, ast, p->po_tag, sizeof(p->po_tag), e);
  }
}
