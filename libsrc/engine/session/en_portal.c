/* en_portal — portals: binding parameter values, running a statement in
 * batches with a row limit (suspending and resuming), command tags, the
 * transaction bracket of each execution, the utility statements the
 * session keeps, and the portal's side of the copy sub-protocol.
 *
 * Design notes: the statement runner sets up and ends each execution
 * (er_exec_begin / er_exec_end on po_x) and carries out the utility
 * statements that are not the session's (er_utility); it sees a portal
 * only as its erun_t (po_run). */
#include <stdio.h>
#include <string.h>

#include "engine/session/session_int.h"

int eportal_bind(estmt_t *st, const eparam_t *params, int nparams, eportal_t **out, err_t *e)
{
  esession_t *s = st->st_sess;
  if (es_check_not_failed(s, st->st_ast, e) != CZ_OK)
    return CZ_ERR;
  if (st->st_plan && st->st_plan_runs == 0) {
    es_refresh_snapshot(s);
    if (en_stmt_stale(st) && en_stmt_replan(st, e) != CZ_OK) {
      es_tx_fail(s);
      return CZ_ERR;
    }
  }
  if (nparams != st->st_nparams) {
    es_tx_fail(s);
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION,
                   "bind message supplies %d parameters, but prepared statement requires %d",
                   nparams, st->st_nparams);
  }
  arena_t *a = arena_create(NULL, "portal");
  eportal_t *p = arena_zalloc(a, sizeof(*p));
  p->po_run.ru_stmt = st;
  p->po_run.ru_arena = a;
  p->po_run.ru_nparams = nparams;
  p->po_run.ru_params = arena_zalloc(a, sizeof(datum_t) * (size_t)(nparams + 1));
  for (int i = 0; i < nparams; i++) {
    const eparam_t *ep = &params[i];
    ty_t t = estmt_param_type(st, i);
    int rc = CZ_OK;
    if (!ep->ep_data)
      p->po_run.ru_params[i].d_null = true;
    else if (ep->ep_format == 0)
      rc = ty_parse_text(t, (const char *)ep->ep_data, ep->ep_len, a, &p->po_run.ru_params[i], e);
    else
      rc = ty_parse_binary(t, ep->ep_data, ep->ep_len, a, &p->po_run.ru_params[i], e);
    if (rc != CZ_OK) {
      err_prefix(e, "parameter $%d", i + 1);
      arena_destroy(a);
      es_tx_fail(s);
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
  if (st->st_plan && st->st_plan_runs == 0) {  /* as eportal_bind: a stale plan is rebuilt */
    es_refresh_snapshot(st->st_sess);
    if (en_stmt_stale(st) && en_stmt_replan(st, e) != CZ_OK)
      return CZ_ERR;
  }
  arena_t *a = arena_create(NULL, "portal");
  eportal_t *p = arena_zalloc(a, sizeof(*p));
  p->po_run.ru_stmt = st;
  p->po_run.ru_arena = a;
  p->po_run.ru_nparams = n;
  p->po_run.ru_params = arena_zalloc(a, sizeof(datum_t) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    p->po_run.ru_params[i] = vals[i];
    if (!vals[i].d_null && ty_phys(estmt_param_type(st, i).t_id) == TP_STR) {
      char *c = arena_alloc(a, vals[i].d_str.s_len + 1);
      memcpy(c, vals[i].d_str.s_ptr, vals[i].d_str.s_len);
      p->po_run.ru_params[i].d_str.s_ptr = c;  /* the caller's values die with its portal */
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
    p->po_run.ru_stmt->st_plan_runs--;
  p->po_plan = NULL;
}

void eportal_free(eportal_t *p)
{
  if (!p)
    return;
  esession_t *s = p->po_run.ru_stmt->st_sess;
  if (p->po_inner) {  /* EXECUTE: no plan of its own */
    eportal_free(p->po_inner);
    p->po_state = EP_DONE;
  }
  if (p->po_run.ru_copy) {  /* a COPY FROM STDIN the protocol left unfinished */
    er_copy_in_fail(&p->po_run, "portal closed");
    p->po_state = EP_DONE;
  }
  if (p->po_state == EP_RUNNING) {
    op_close(p->po_plan->sp_root, &p->po_x.x_q);
    er_exec_end(&p->po_x);
    if (p->po_implicit)
      es_tx_end_implicit(s, false, NULL);
  }
  portal_release_plan(p);
  estmt_t *st = p->po_run.ru_stmt;
  arena_destroy(p->po_run.ru_arena);
  en_stmt_unref(st);
}

const char *eportal_tag(const eportal_t *p)
{
  return p->po_run.ru_tag;
}

/* Sends rows [from, from+n) of the selected rows of ob to fn. */
static int portal_emit(eportal_t *p, const obatch_t *ob, int from, int n, erows_fn_t fn,
                       void *ctx, err_t *e)
{
  int ncols = p->po_run.ru_stmt->st_ncols;
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
  estmt_t *st = p->po_run.ru_stmt;
  esession_t *s = st->st_sess;
  /* The statement's plan: immutable, every run state is the execution's
   * (exec.h), so any number of portals run it at once. Only when it was
   * stale at bind (DDL or a new search_path since it was built) while
   * other portals ran it, so that bind could not replace it, does this
   * portal plan a tree of its own. */
  if (st->st_plan_runs > 0 && en_stmt_stale(st)) {
    p->po_plan_arena = arena_create(p->po_run.ru_arena, "plan");
    es_refresh_snapshot(s);
    if (en_plan(st, p->po_plan_arena, &p->po_plan, e) != CZ_OK)
      return CZ_ERR;
    p->po_own_plan = true;
    p->po_snap = cat_snapshot_hold(s->se_snap);  /* the one en_plan used */
  } else {
    p->po_plan = st->st_plan;
    st->st_plan_runs++;
  }
  bool writes = p->po_plan->sp_kind != SP_QUERY || p->po_plan->sp_locks_rows;
  if (writes || s->se_block || es_tx_always(s)) {
    bool implicit;
    if (es_tx_ensure(s, &implicit, e) != CZ_OK)
      return CZ_ERR;
    p->po_implicit = implicit;
  }
  p->po_out = arena_create(p->po_run.ru_arena, "out");
  /* A cached plan is not written while it runs: only a plan of this
   * portal's own is charged with the execution. */
  er_exec_begin(&p->po_x, s, p->po_plan, p->po_run.ru_params, p->po_run.ru_nparams,
                p->po_run.ru_arena, p->po_own_plan ? p->po_plan_arena : NULL, p->po_out);
  p->po_state = EP_RUNNING;
  return op_open(p->po_plan->sp_root, &p->po_x.x_q, e);
}

static void portal_finish_tag(eportal_t *p)
{
  const splan_t *pl = p->po_plan;
  char *tag = p->po_run.ru_tag;
  size_t cap = sizeof(p->po_run.ru_tag);
  switch (pl->sp_kind) {
  case SP_QUERY:
    snprintf(tag, cap, "SELECT %lld", (long long)p->po_rows);
    break;
  case SP_INSERT:
    snprintf(tag, cap, "INSERT 0 %lld", (long long)op_dml_count(pl->sp_dml, &p->po_x.x_q));
    break;
  case SP_UPDATE:
    snprintf(tag, cap, "UPDATE %lld", (long long)op_dml_count(pl->sp_dml, &p->po_x.x_q));
    break;
  case SP_DELETE:
    snprintf(tag, cap, "DELETE %lld", (long long)op_dml_count(pl->sp_dml, &p->po_x.x_q));
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
        if (op_next(root, &p->po_x.x_q, &p->po_pending, e) != CZ_OK)
          return CZ_ERR;
        p->po_pending_off = 0;
      }
      *suspended = p->po_pending.ob_b != NULL;
      return CZ_OK;
    }
    obatch_t ob;
    if (op_next(root, &p->po_x.x_q, &ob, e) != CZ_OK)
      return CZ_ERR;
    if (!ob.ob_b)
      return CZ_OK;
    if (ob.ob_n == 0 || p->po_run.ru_stmt->st_ncols < 0)
      continue;
    p->po_pending = ob;
    p->po_pending_off = 0;
  }
}

static int portal_utility(eportal_t *p, erows_fn_t fn, void *ctx, err_t *e);

static int portal_execute(eportal_t *p, int64_t max_rows, erows_fn_t fn, void *ctx,
                          bool *suspended, err_t *e)
{
  estmt_t *st = p->po_run.ru_stmt;
  esession_t *s = st->st_sess;
  *suspended = false;
  if (p->po_state == EP_DONE)
    return CZ_OK;
  if (st->st_ast && st->st_ast->st_kind == SQL_STMT_EXECUTE)
    return en_execute_run(p, max_rows, fn, ctx, suspended, e);
  en_sp_stmt_mark(s);  /* a resumed portal too: writes since its last run stay on failure */
  if (p->po_state == EP_NEW) {
    s->se_cancel = false;  /* a cancel aims at the statement running when it came */
    if (es_check_not_failed(s, st->st_ast, e) != CZ_OK)
      return CZ_ERR;
    if (!st->st_ast) {
      p->po_state = EP_DONE;
      if (st->st_sparql_update)  /* its own transaction bracket, failure included */
        return en_sparql_update_run(&p->po_run, fn, ctx, e);
      if (st->st_cursor) {
        if (en_cursor_run(&p->po_run, fn, ctx, e) != CZ_OK) {
          es_tx_fail(s);
          return CZ_ERR;
        }
        return CZ_OK;
      }
      return CZ_OK;  /* empty query: tag "" */
    }
    if (en_is_utility(st->st_ast)) {
      p->po_state = EP_DONE;
      if (portal_utility(p, fn, ctx, e) != CZ_OK) {
        es_tx_fail(s);
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
  op_close(p->po_plan->sp_root, &p->po_x.x_q);
  portal_finish_tag(p);
  er_exec_end(&p->po_x);
  p->po_state = EP_DONE;
  portal_release_plan(p);
  if (p->po_implicit)
    return es_tx_end_implicit(s, true, e) == CZ_OK ? CZ_OK : (es_tx_fail(s), CZ_ERR);
  return CZ_OK;
fail:
  if (p->po_plan && p->po_state == EP_RUNNING) {
    op_close(p->po_plan->sp_root, &p->po_x.x_q);
    er_exec_end(&p->po_x);
  }
  p->po_state = EP_DONE;
  portal_release_plan(p);
  if (p->po_implicit)
    es_tx_end_implicit(s, false, NULL);
  else
    es_tx_fail(s);
  return CZ_ERR;
}

/* The statement is what a fatal signal's log names (util/crash.c). */
int eportal_execute(eportal_t *p, int64_t max_rows, erows_fn_t fn, void *ctx, bool *suspended,
                    err_t *e)
{
  crash_stmt_t prev = crash_stmt_enter(p->po_run.ru_stmt->st_text, p->po_run.ru_stmt->st_len);
  int rc = portal_execute(p, max_rows, fn, ctx, suspended, e);
  crash_stmt_leave(prev);
  return rc;
}

static int portal_utility(eportal_t *p, erows_fn_t fn, void *ctx, err_t *e)
{
  estmt_t *st = p->po_run.ru_stmt;
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
    return en_tx_control(s, ast, p->po_run.ru_tag, sizeof(p->po_run.ru_tag), e);
  case SQL_STMT_SET:
    return en_set(s, ast, p->po_run.ru_tag, sizeof(p->po_run.ru_tag), e);
  case SQL_STMT_SHOW:
    snprintf(p->po_run.ru_tag, sizeof(p->po_run.ru_tag), "SHOW");
    return en_show(s, ast->st_set, fn, ctx, e);
  case SQL_STMT_DEALLOCATE:
    return en_deallocate_run(p, e);
  case SQL_STMT_PREPARE:
    return en_prepare_run(p, e);
  default:  /* EXPLAIN, COPY with a file, VACUUM, CHECKPOINT, DDL */
    return er_utility(&p->po_run, fn, ctx, e);
  }
}

/* ---- the copy sub-protocol: the runner copies, the portal keeps its state -- */

/* The statement is what a fatal signal's log names (util/crash.c). */
int eportal_copy_out(eportal_t *p, ecopy_out_fn_t fn, void *ctx, err_t *e)
{
  estmt_t *st = p->po_run.ru_stmt;
  crash_stmt_t prev = crash_stmt_enter(st->st_text, st->st_len);
  int rc = er_copy_out(&p->po_run, fn, ctx, e);
  p->po_state = EP_DONE;
  crash_stmt_leave(prev);
  return rc;
}

int eportal_copy_in_begin(eportal_t *p, int *ncols, int *format, err_t *e)
{
  int rc = er_copy_in_begin(&p->po_run, ncols, format, e);
  if (rc == CZ_OK)
    p->po_state = EP_RUNNING;
  return rc;
}

int eportal_copy_in_data(eportal_t *p, const char *data, size_t len, err_t *e)
{
  estmt_t *st = p->po_run.ru_stmt;
  crash_stmt_t prev = crash_stmt_enter(st->st_text, st->st_len);
  int rc = er_copy_in_data(&p->po_run, data, len, e);
  crash_stmt_leave(prev);
  return rc;
}

int eportal_copy_in_done(eportal_t *p, err_t *e)
{
  if (!p->po_run.ru_copy)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION, "no COPY in progress");
  p->po_state = EP_DONE;
  return er_copy_in_done(&p->po_run, e);
}

void eportal_copy_in_fail(eportal_t *p, const char *reason)
{
  if (!p->po_run.ru_copy)
    return;
  p->po_state = EP_DONE;
  er_copy_in_fail(&p->po_run, reason);
}
