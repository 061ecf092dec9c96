/* sql_plan — the binder's entry points: planning a statement, finishing
 * its parameters and correlations, type names, default values. */
#include <string.h>

#include "sql/sql_bind_int.h"

int sql_bind_type(const sql_type_t *t, ty_t *out, err_t *e)
{
  /* serial types exist only in CREATE TABLE (which binds the integer type) */
  if (t->ty_serial)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "type \"%s\" does not exist",
                   t->ty_serial == 2 ? "smallserial" : t->ty_serial == 4 ? "serial" : "bigserial");
  if (t->ty_array)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "array types are not supported yet");
  ty_t r = ty_plain(TY_UNKNOWN);
  switch (t->ty_id) {
  case SQL_TYPE_INT2: r.t_id = TY_INT2; break;
  case SQL_TYPE_INT4: r.t_id = TY_INT4; break;
  case SQL_TYPE_INT8: r.t_id = TY_INT8; break;
  case SQL_TYPE_FLOAT4: r.t_id = TY_FLOAT4; break;
  case SQL_TYPE_FLOAT8: r.t_id = TY_FLOAT8; break;
  case SQL_TYPE_NUMERIC:
    r.t_id = TY_NUMERIC;
    r.t_prec = (int16_t)t->ty_prec;
    r.t_scale = (int16_t)(t->ty_scale < 0 ? 0 : t->ty_scale);
    if (t->ty_prec > NUM_MAX_DIGITS)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "NUMERIC precision %d exceeds %d",
                     t->ty_prec, NUM_MAX_DIGITS);
    break;
  case SQL_TYPE_CHAR: r.t_id = TY_CHAR; r.t_len = t->ty_len < 0 ? 1 : t->ty_len; break;
  case SQL_TYPE_CHAR1: r.t_id = TY_CHAR; r.t_len = 1; break;
  case SQL_TYPE_VARCHAR: r.t_id = TY_VARCHAR; r.t_len = t->ty_len; break;
  case SQL_TYPE_TEXT: r.t_id = TY_TEXT; break;
  case SQL_TYPE_NAME: r.t_id = TY_TEXT; break;
  case SQL_TYPE_BOOL: r.t_id = TY_BOOL; break;
  case SQL_TYPE_DATE: r.t_id = TY_DATE; break;
  case SQL_TYPE_TIMESTAMP:
  case SQL_TYPE_TIMESTAMPTZ:
  case SQL_TYPE_TIME:
  case SQL_TYPE_TIMETZ:
    r.t_id = t->ty_id == SQL_TYPE_TIMESTAMP     ? TY_TIMESTAMP
             : t->ty_id == SQL_TYPE_TIMESTAMPTZ ? TY_TIMESTAMPTZ
             : t->ty_id == SQL_TYPE_TIME        ? TY_TIME
                                                : TY_TIMETZ;
    r.t_prec = (int16_t)(t->ty_prec >= 0 && t->ty_prec < 6 ? t->ty_prec : -1);
    break;
  case SQL_TYPE_BYTEA: r.t_id = TY_BYTEA; break;
  case SQL_TYPE_JSON: r.t_id = TY_JSON; break;
  case SQL_TYPE_JSONB: r.t_id = TY_JSONB; break;
  case SQL_TYPE_INTERVAL:
    _Static_assert(SQL_IV_F_DAY == TY_IV_F_DAY && SQL_IV_F_SECOND == TY_IV_F_SECOND &&
                   SQL_IV_F_YEAR == TY_IV_F_YEAR, "interval field bits differ");
    r.t_id = TY_INTERVAL;
    r.t_prec = (int16_t)t->ty_prec;
    r.t_scale = (int16_t)t->ty_scale;
    break;
  default:
    /* oid and the reg* types are numbers here until types has them */
    r.t_id = TY_INT8;
    break;
  }
  *out = r;
  return CZ_OK;
}

static void bd_finish(bd_t *b, splan_t *p)
{
  for (int i = 0; i < b->b_nparams; i++)
    if (b->b_ptypes[i].t_id == TY_UNKNOWN)
      b->b_ptypes[i] = ty_plain(TY_TEXT);
  for (int i = 0; i < b->b_nparam_nodes; i++)
    if (b->b_param_nodes[i]->x_type.t_id == TY_UNKNOWN)
      b->b_param_nodes[i]->x_type = b->b_ptypes[b->b_param_nodes[i]->x_index];
  for (int i = 0; i < b->b_nfix; i++)
    b->b_fix[i]->x_index += b->b_nparams;
  for (int i = 0; i < b->b_nsubqs; i++)
    b->b_subqs[i]->xs_param_base = b->b_nparams;
  p->sp_nparams = b->b_nparams;
  p->sp_param_types = b->b_ptypes;
  p->sp_nsubqs = b->b_nsubqs;
  p->sp_subqs = b->b_subqs;
  p->sp_naccess = b->b_naccess;
  p->sp_access = b->b_access;
}

/* Binding state for a statement with the client's parameter types. */
static void bd_init(bd_t *b, arena_t *a, const sp_env_t *env, const ty_t *param_types,
                    int nparams, err_t *e)
{
  memset(b, 0, sizeof(*b));
  b->b_a = a;
  b->b_env = env;
  b->b_e = e;
  if (nparams > 0) {
    b->b_pcap = nparams;
    b->b_ptypes = arena_alloc(a, sizeof(ty_t) * (size_t)nparams);
    memcpy(b->b_ptypes, param_types, sizeof(ty_t) * (size_t)nparams);
    b->b_nparams = nparams;
  }
}

int sql_plan_stmt(arena_t *a, const sql_stmt_t *st, const sp_env_t *env,
                  const ty_t *param_types, int nparams, splan_t **out, err_t *e)
{
  if (!env->pe_opt)
    return err_set(e, SQLSTATE_INTERNAL, "no optimizer in the planning environment");
  bd_t b;
  bd_init(&b, a, env, param_types, nparams, e);
  splan_t *p = arena_zalloc(a, sizeof(*p));
  int rc;
  /* WITH … INSERT/UPDATE/DELETE: in force for the whole statement */
  if (st->st_with && (bd_with_push(&b, st->st_with) != CZ_OK ||
                      bd_with_check(&b, st->st_with, NULL, NULL) != CZ_OK))
    return CZ_ERR;
  switch (st->st_kind) {
  case SQL_STMT_SELECT: {
    const char **names;
    p->sp_kind = SP_QUERY;
    b.b_top_query = st->st_query;
    /* bound to one logical tree, then generated at once (the optimizer's
     * so_query: each block planned, then the operators above it) */
    lp_node_t *tree;
    rc = bd_query_node(&b, st->st_query, NULL, NULL, &tree, &names, &p->sp_cols);
    if (rc == CZ_OK)
      rc = bd_node_plan(&b, tree, &p->sp_root);
    if (rc == CZ_OK) {
      p->sp_ncols = p->sp_root->o_ncols;
      if (st->st_query->qu_lock != SQL_LOCK_NONE)
        for (int i = 0; i < b.b_naccess; i++)
          b.b_access[i].ac_priv |= SQL_PRIV_UPDATE;
    }
    break;
  }
  case SQL_STMT_INSERT:
    p->sp_kind = SP_INSERT;
    rc = bd_insert(&b, st->st_insert, &p->sp_root);
    break;
  case SQL_STMT_UPDATE:
    p->sp_kind = SP_UPDATE;
    rc = bd_update(&b, st->st_update, &p->sp_root);
    break;
  case SQL_STMT_DELETE:
    p->sp_kind = SP_DELETE;
    rc = bd_delete(&b, st->st_delete, &p->sp_root);
    break;
  default:
    return err_set(e, SQLSTATE_INTERNAL, "statement kind %d is not planned", (int)st->st_kind);
  }
  /* the subqueries in expressions, after the tree that holds them */
  if (rc == CZ_OK)
    rc = bd_subq_gen_all(&b);
  if (rc != CZ_OK)
    return CZ_ERR;
  if (p->sp_kind != SP_QUERY) {
    p->sp_dml = b.b_dml ? b.b_dml : p->sp_root;
    p->sp_ncols = b.b_nret;
    p->sp_cols = b.b_ret_cols;
  }
  bd_finish(&b, p);
  p->sp_locks_rows = b.b_locks_rows;
  /* the plan is whole: columns nothing reads are left out of joins */
  op_t **roots = arena_alloc(a, sizeof(op_t *) * (size_t)(p->sp_nsubqs + 1));
  int nroots = 0;
  roots[nroots++] = p->sp_root;
  for (int i = 0; i < p->sp_nsubqs; i++)
    if (p->sp_subqs[i]->xs_plan)
      roots[nroots++] = p->sp_subqs[i]->xs_plan;
  op_prune_cols(a, roots, nroots);
  *out = p;
  return CZ_OK;
}

int sql_bind_args(arena_t *a, const sql_list_t *args, const ty_t *to, int n, const sp_env_t *env,
                  const ty_t *param_types, int nparams, xnode_t ***out, ty_t **out_ptypes,
                  int *out_nparams, err_t *e)
{
  bd_t b;
  bd_init(&b, a, env, param_types, nparams, e);
  bd_scope_t empty;
  memset(&empty, 0, sizeof(empty));
  empty.sc_agg_forbid = "EXECUTE parameter";
  xnode_t **x = arena_zalloc(a, sizeof(xnode_t *) * (size_t)(n + 1));
  for (int i = 0; i < n && i < sql_list_len(args); i++) {
    const sql_expr_t *ex = sql_list_at(args, i);
    if (bd_expr(&b, &empty, ex, &x[i]) != CZ_OK)
      return CZ_ERR;
    if (bd_node_has_subq(x[i]) || b.b_nsubqs > 0)
      return bd_error(&b, SQLSTATE_FEATURE_NOT_SUPPORTED, ex->ex_pos,
                      "cannot use subquery in EXECUTE parameter");
    if (!(x[i] = bd_cast(&b, x[i], to[i], ex->ex_pos)))
      return CZ_ERR;
  }
  splan_t p;
  memset(&p, 0, sizeof(p));
  bd_finish(&b, &p);
  *out = x;
  *out_ptypes = p.sp_param_types;
  *out_nparams = p.sp_nparams;
  return CZ_OK;
}

/* Volatile functions only: a default with a subquery is evaluated once
 * (sql_eval_default runs subqueries; a per-row evaluation does not). */
static bool node_volatile(const xnode_t *x)
{
  if (x->x_kind == X_SUBQ)
    return false;
  if (x->x_kind == X_FUNC && (x->x_func->fd_flags & XF_VOLATILE))
    return true;
  for (int i = 0; i < x->x_nargs; i++)
    if (node_volatile(x->x_args[i]))
      return true;
  return false;
}

int sql_bind_default(arena_t *a, const char *text, ty_t t, xnode_t **out, bool *is_volatile,
                     err_t *e)
{
  char *sql = arena_sprintf(a, "SELECT CAST(%s AS %s)", text, ty_name(a, t));
  sql_stmt_list_t *l;
  if (sql_parse(a, sql, strlen(sql), &l, e) != CZ_OK)
    return CZ_ERR;
  bd_t b;
  memset(&b, 0, sizeof(b));
  b.b_a = a;
  b.b_e = e;
  bd_scope_t empty;
  memset(&empty, 0, sizeof(empty));
  const sql_target_t *tg = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 0);
  if (bd_expr(&b, &empty, tg->tg_expr, out) != CZ_OK || bd_subq_gen_all(&b) != CZ_OK)
    return CZ_ERR;
  *is_volatile = node_volatile(*out);
  return CZ_OK;
}

/* What a CHECK expression may not hold (sql_bind_check). */
static int check_forbidden(const xnode_t *x, err_t *e)
{
  if (x->x_kind == X_SUBQ)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "cannot use subquery in check constraint");
  if (x->x_kind == X_PARAM)
    return err_set(e, SQLSTATE_UNDEFINED_PARAMETER, "there is no parameter $%d", x->x_index + 1);
  for (int i = 0; i < x->x_nargs; i++)
    if (check_forbidden(x->x_args[i], e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

int sql_bind_check(arena_t *a, const char *text, int ncols, const char *const *names,
                   const ty_t *types, const char *table, xnode_t **out, bool **used, err_t *e)
{
  char *sql = arena_sprintf(a, "SELECT (%s)", text);
  sql_stmt_list_t *l;
  if (sql_parse(a, sql, strlen(sql), &l, e) != CZ_OK)
    return CZ_ERR;
  bd_t b;
  memset(&b, 0, sizeof(b));
  b.b_a = a;
  b.b_e = e;
  sp_table_t *t = arena_zalloc(a, sizeof *t);
  t->tb_name = table;
  t->tb_ncols = ncols;
  t->tb_colnames = (const char **)names;
  t->tb_coltypes = types;
  bd_scope_t *sc = bd_table_scope(&b, t, NULL);
  sc->sc_agg_forbid = "check constraints";
  const sql_target_t *tg = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 0);
  if (bd_expr(&b, sc, tg->tg_expr, out) != CZ_OK) {
    e->er_pos = 0;  /* a position in the constraint's text, not the statement's */
    return CZ_ERR;
  }
  if (check_forbidden(*out, e) != CZ_OK)
    return CZ_ERR;
  if ((*out)->x_type.t_id != TY_BOOL && (*out)->x_type.t_id != TY_UNKNOWN)
    return err_set(e, SQLSTATE_DATATYPE_MISMATCH, "argument of CHECK must be type boolean, not type %s",
                   ty_name(a, (*out)->x_type));
  if (used) {
    *used = arena_zalloc(a, (size_t)ncols + 1);
    for (int i = 0; i < ncols && sc->sc_used && i < sc->sc_used_cap; i++)
      (*used)[i] = sc->sc_used[i];
  }
  return CZ_OK;
}

static int eval_default_in(arena_t *a, mem_budget_t *budget, const char *text, ty_t t,
                           void *session, datum_t *out, err_t *e)
{
  xnode_t *n;
  bool vol;
  if (sql_bind_default(a, text, t, &n, &vol, e) != CZ_OK)
    return CZ_ERR;
  xctx_t xc = {.xc_arena = a, .xc_subq = xsubq_eval, .xc_budget = budget,
               .xc_max_mem = budget ? budget->mb_limit : 0, .xc_session = session};
  return xeval_scalar(&xc, n, out, e);
}

/* A default is evaluated when a statement is planned, outside any
 * execution: the work is done in a child of a, charged to a's budget
 * (its user's MaxQueryMem: 53200 past it, as a query's), and only the
 * value is copied to a. */
int sql_eval_default(arena_t *a, const char *text, ty_t t, void *session, datum_t *out, err_t *e)
{
  mem_budget_t *budget = arena_budget(a);
  arena_t *w = arena_create(a, "default");
  datum_t v;
  int rc = eval_default_in(w, budget, text, t, session, &v, e);
  if (rc == CZ_OK && mem_budget_exceeded(budget))
    rc = op_budget_error(budget, budget->mb_limit, e);
  if (rc == CZ_OK) {
    *out = v;
    if (!v.d_null && ty_phys(t.t_id) == TP_STR && v.d_str.s_len > 0) {
      char *s = arena_try_alloc(a, v.d_str.s_len);
      if (!s)
        rc = op_budget_error(budget, budget ? budget->mb_limit : 0, e);
      else {
        memcpy(s, v.d_str.s_ptr, v.d_str.s_len);
        out->d_str.s_ptr = s;
      }
    }
  }
  if (rc != CZ_OK && e)
    e->er_pos = 0;  /* a position in the default's text, not the statement's */
  arena_destroy(w);
  return rc;
}
