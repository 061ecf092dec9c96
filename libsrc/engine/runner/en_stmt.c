/* en_stmt — prepared statements: parse (through the front-end dispatch,
 * en_frontend.c), classify, plan (with parameter type inference) and
 * describe; re-planning when the catalog changed. The session holds the
 * statements and counts their references (runner.h). */
#include <stdio.h>
#include <string.h>

#include "engine/runner/runner_int.h"

bool en_is_utility(const sql_stmt_t *ast)
{
  switch (ast->st_kind) {
  case SQL_STMT_SELECT:
  case SQL_STMT_INSERT:
  case SQL_STMT_UPDATE:
  case SQL_STMT_DELETE:
    return false;
  default:
    return true;
  }
}

int en_plan(estmt_t *st, arena_t *a, splan_t **out, err_t *e)
{
  esession_t *s = st->st_sess;
  sp_env_t env;
  en_env(s, &env);
  if (sql_plan_stmt(a, st->st_ast, &env, st->st_given, st->st_nparams_given, out, e) != CZ_OK)
    return CZ_ERR;
  return en_check_access(s, *out, e);
}

static void stmt_describe(estmt_t *st, const splan_t *p)
{
  st->st_nparams = p->sp_nparams;
  st->st_ptypes = p->sp_param_types;
  if (p->sp_kind != SP_QUERY && !p->sp_cols) {
    st->st_ncols = -1;  /* DML without RETURNING: no rows */
    return;
  }
  st->st_ncols = p->sp_ncols;
  st->st_cols = arena_zalloc(st->st_arena, sizeof(ecol_t) * (size_t)(p->sp_ncols + 1));
  for (int i = 0; i < p->sp_ncols; i++) {
    st->st_cols[i].ec_name = arena_strdup(st->st_arena, p->sp_cols[i].pc_name);
    st->st_cols[i].ec_type = p->sp_cols[i].pc_type;
    st->st_cols[i].ec_table_oid = p->sp_cols[i].pc_table_oid;
    st->st_cols[i].ec_attnum = p->sp_cols[i].pc_attnum;
  }
}

/* Plans st into its own plan arena against the session's snapshot. */
int en_stmt_replan(estmt_t *st, err_t *e)
{
  esession_t *s = st->st_sess;
  arena_t *a = arena_create(st->st_arena, "plan");
  splan_t *p;
  if (en_plan(st, a, &p, e) != CZ_OK) {
    arena_destroy(a);
    return CZ_ERR;
  }
  if (st->st_plan_arena)
    arena_destroy(st->st_plan_arena);
  if (st->st_snap)
    cat_snapshot_release(st->st_snap);
  st->st_plan_arena = a;
  st->st_plan = p;
  /* the snapshot the plan was built against (its tables, indexes and
   * views live there), not a newer one a DDL committed meanwhile */
  st->st_snap = cat_snapshot_hold(es_snapshot(s));
  const char *path = es_setting(s, "search_path");
  st->st_path = arena_strdup(st->st_arena, path ? path : "");
  stmt_describe(st, p);
  return CZ_OK;
}

bool en_stmt_stale(const estmt_t *st)
{
  if (st->st_snap != es_snapshot(st->st_sess))
    return true;
  const char *path = es_setting(st->st_sess, "search_path");
  return !st->st_path || strcmp(st->st_path, path ? path : "") != 0;
}

static void one_text_col(estmt_t *st, const char *name)
{
  st->st_ncols = 1;
  st->st_cols = arena_zalloc(st->st_arena, sizeof(ecol_t));
  st->st_cols[0].ec_name = arena_strdup(st->st_arena, name);
  st->st_cols[0].ec_type = ty_plain(TY_TEXT);
}

int en_sql_prepare(estmt_t *st, void *parsed, const uint32_t *param_types, int nparams,
                   err_t *e)
{
  esession_t *s = st->st_sess;
  arena_t *a = st->st_arena;
  st->st_ast = parsed;
  if (es_check_not_failed(s, st->st_ast, e) != CZ_OK)
    return CZ_ERR;
  st->st_nparams_given = nparams;
  st->st_given = arena_zalloc(a, sizeof(ty_t) * (size_t)(nparams + 1));
  for (int i = 0; i < nparams; i++)
    if (!param_types[i] || !ty_from_pg_oid(param_types[i], -1, &st->st_given[i]))
      st->st_given[i] = ty_plain(TY_UNKNOWN);
  st->st_nparams = nparams;
  st->st_ptypes = st->st_given;
  if (st->st_ast) {
    switch (st->st_ast->st_kind) {
    case SQL_STMT_SELECT:
      st->st_kind = ESTMT_QUERY;
      /* fall through */
    case SQL_STMT_INSERT:
    case SQL_STMT_UPDATE:
    case SQL_STMT_DELETE:
      es_refresh_snapshot(s);
      if (en_stmt_replan(st, e) != CZ_OK)
        return CZ_ERR;
      if (st->st_ncols >= 0)
        st->st_kind = ESTMT_QUERY;  /* SELECT, or DML with RETURNING: rows */
      break;
    case SQL_STMT_SHOW:
      st->st_kind = ESTMT_QUERY;
      one_text_col(st, st->st_ast->st_set->sv_name);
      break;
    case SQL_STMT_EXPLAIN:
      st->st_kind = ESTMT_QUERY;
      one_text_col(st, "QUERY PLAN");
      break;
    case SQL_STMT_EXECUTE:
      es_refresh_snapshot(s);
      if (es_execute_describe(st, e) != CZ_OK)
        return CZ_ERR;
      break;
    case SQL_STMT_COPY:
      st->st_kind = st->st_ast->st_copy->co_from ? ESTMT_COPY_IN : ESTMT_COPY_OUT;
      if (en_copy_describe(st, e) != CZ_OK)
        return CZ_ERR;
      if (st->st_kind == ESTMT_COPY_IN)
        st->st_ncols = -1;  /* no RowDescription; copy_in_begin gives the count */
      break;
    default:
      break;
    }
  }
  return CZ_OK;
}

static int stmt_prepare(esession_t *s, const char *text, size_t len, const efront_t *fe,
                        void *parsed, const uint32_t *param_types, int nparams, estmt_t **out,
                        err_t *e)
{
  arena_t *a = arena_create(NULL, "statement");
  estmt_t *st = arena_zalloc(a, sizeof(*st));
  st->st_sess = s;
  st->st_arena = a;
  st->st_refs = 1;
  st->st_text = arena_alloc(a, len + 1);
  memcpy(st->st_text, text, len);
  st->st_text[len] = '\0';
  st->st_len = len;
  st->st_ncols = -1;
  st->st_kind = ESTMT_COMMAND;
  if (!fe) {
    fe = en_front_for(st->st_text, len);
    if (fe->fe_parse && fe->fe_parse(a, st->st_text, len, &parsed, e) != CZ_OK)
      goto fail;
  }
  if (fe->fe_prepare(st, parsed, param_types, nparams, e) != CZ_OK)
    goto fail;
  *out = st;
  return CZ_OK;
fail:
  if (st->st_snap)
    cat_snapshot_release(st->st_snap);
  en_cursor_stmt_free(st);
  arena_destroy(a);
  /* As in PostgreSQL, a statement that cannot even be prepared fails the
   * transaction block it is in (25P02 itself leaves the state as it is). */
  if (!err_is(e, SQLSTATE_IN_FAILED_TX))
    es_tx_fail(s);
  return CZ_ERR;
}

/* The statement is what a fatal signal's log names (util/crash.c). */
int estmt_prepare(esession_t *s, const char *text, size_t len, const uint32_t *param_types,
                  int nparams, estmt_t **out, err_t *e)
{
  crash_stmt_t prev = crash_stmt_enter(text, len);
  int rc = stmt_prepare(s, text, len, NULL, NULL, param_types, nparams, out, e);
  crash_stmt_leave(prev);
  return rc;
}

int estmt_prepare_parsed(esession_t *s, const char *text, const etext_t *t, estmt_t **out,
                         err_t *e)
{
  crash_stmt_t prev = crash_stmt_enter(text, t->et_len);
  int rc = stmt_prepare(s, text, t->et_len, t->et_front, t->et_parsed, NULL, 0, out, e);
  crash_stmt_leave(prev);
  return rc;
}

void en_stmt_unref(estmt_t *st)
{
  if (--st->st_refs > 0)
    return;
  en_cursor_stmt_free(st);
  if (st->st_snap)
    cat_snapshot_release(st->st_snap);
  arena_destroy(st->st_arena);
}

void estmt_free(estmt_t *st)
{
  if (st)
    en_stmt_unref(st);
}

int estmt_nparams(const estmt_t *st)
{
  return st->st_nparams;
}

ty_t estmt_param_type(const estmt_t *st, int i)
{
  if (i < 0 || i >= st->st_nparams)
    return ty_plain(TY_UNKNOWN);
  return st->st_ptypes[i].t_id == TY_UNKNOWN ? ty_plain(TY_TEXT) : st->st_ptypes[i];
}

void estmt_columns(const estmt_t *st, const ecol_t **cols, int *ncols)
{
  *cols = st->st_cols;
  *ncols = st->st_ncols;
}

estmt_kind_t estmt_kind(const estmt_t *st)
{
  return st->st_kind;
}
