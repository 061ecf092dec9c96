/* pgcat_func — the catalog functions clients call: format_type,
 * pg_get_expr, pg_get_userbyid, pg_table_is_visible, pg_get_indexdef,
 * pg_get_constraintdef, current_schema(s), current_user, version,
 * has_table_privilege, array_to_string, pg_sleep, the reg* input and output
 * functions, …
 *
 * Design notes: they are registered once (pgcat_init) in exec's function
 * registry. A function that needs the catalog asks the engine's hook for
 * the environment of the session evaluating it (xctx_t's xc_session); the
 * hook is set before the server serves anyone and only read afterwards.
 * Arrays are PostgreSQL's one-dimensional text form ('{a,"b c"}') until
 * types/ has arrays, so array_to_string and array_upper parse that form.
 * OIDs are int8 arguments (types/ has no oid type yet).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exec/exec_pg.h"
#include "pgcat/pgcat_int.h"

static _Atomic(pgcat_env_fn) pgcat_hook;

static const pgcat_env_t *pgcat_env_of(xctx_t *c, err_t *e)
{
  pgcat_env_fn fn = atomic_load(&pgcat_hook);
  const pgcat_env_t *env = fn && c->xc_session ? fn(c->xc_session) : NULL;
  if (!env || !env->pe_snap) {
    err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE, "catalog function called outside a session");
    return NULL;
  }
  return env;
}

const pgcat_env_t *pgcat_env_get(xctx_t *c, err_t *e)
{
  return pgcat_env_of(c, e);
}

static void pgcat_out_text(xctx_t *c, datum_t *out, const char *s)
{
  if (!s) {
    out->d_null = true;
    return;
  }
  size_t n = strlen(s);
  char *p = arena_alloc(c->xc_arena, n + 1);
  memcpy(p, s, n + 1);
  out->d_null = false;
  out->d_str.s_ptr = p;
  out->d_str.s_len = (uint32_t)n;
}

static void pgcat_out_bool(datum_t *out, bool v)
{
  out->d_null = false;
  out->d_bool = v;
}

static void pgcat_out_int(datum_t *out, int64_t v)
{
  out->d_null = false;
  out->d_i64 = v;
}

/* A text argument as a NUL-terminated string in the arena. */
static char *pgcat_arg_str(xctx_t *c, const datum_t *d)
{
  return arena_sprintf(c->xc_arena, "%.*s", (int)d->d_str.s_len, d->d_str.s_ptr);
}

#define PGCAT_ENV()                               \
  const pgcat_env_t *env = pgcat_env_of(c, e);    \
  if (!env)                                       \
    return CZ_ERR

/* ---- types and expressions -------------------------------------------------- */

static int pf_format_type(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  if (a[0].d_null) {
    out->d_null = true;
    return CZ_OK;
  }
  /* a NULL modifier means "not given", which names bpchar differently */
  int32_t typmod = a[1].d_null ? -2 : (int32_t)a[1].d_i64;
  pgcat_out_text(c, out, pgcat_format_type((uint32_t)a[0].d_i64, typmod, c->xc_arena));
  return CZ_OK;
}

/* The catalog keeps expressions (defaults) as SQL text, which is what
 * PostgreSQL's deparser would give back. */
static int pf_pg_get_expr(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  pgcat_out_text(c, out, pgcat_arg_str(c, &a[0]));
  return CZ_OK;
}

static int pf_pg_get_userbyid(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  (void)x;
  PGCAT_ENV();
  const char *n = pgcat_role_name(env, (cat_oid_t)a[0].d_i64);
  pgcat_out_text(c, out, n ? n : arena_sprintf(c->xc_arena, "unknown (OID=%lld)",
                                               (long long)a[0].d_i64));
  return CZ_OK;
}

/* The pg_proc row's function (pgcat_fill_pg_proc numbers them from
 * PGCAT_FIRST_PROC_OID), or NULL. */
static const xfunc_def_t *pgcat_proc(int64_t oid)
{
  if (oid < PGCAT_FIRST_PROC_OID || oid - PGCAT_FIRST_PROC_OID >= INT32_MAX)
    return NULL; /* compared first: any int8 arrives here, INT64_MIN included */
  return xfunc_at((int)(oid - PGCAT_FIRST_PROC_OID));
}

/* 'name'::regproc: the function's name as pg_catalog's regproc columns
 * hold it (pg_type.typinput …), schema qualifier and quotes removed;
 * 42883 when no function pgcat knows has that name. */
static int pf_regprocin(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  const char *s = pgcat_arg_str(c, &a[0]);
  if (strncmp(s, "pg_catalog.", 11) == 0)
    s += 11;
  size_t n = strlen(s);
  char *name = arena_strdup(c->xc_arena, s);
  if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
    memmove(name, name + 1, n - 2);
    name[n - 2] = 0;
  }
  bool known = strcmp(name, "-") == 0 || pgcat_type_func_exists(name);
  known = known || xfunc_exists(name);
  if (!known)
    return err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "function \"%s\" does not exist", s);
  pgcat_out_text(c, out, name);
  return CZ_OK;
}

/* pg_function_is_visible: every function here is in pg_catalog, which is
 * always searched; NULL for an OID that is no function (as PostgreSQL). */
static int pf_pg_function_is_visible(xctx_t *c, const xnode_t *x, const datum_t *a,
                                     datum_t *out, err_t *e)
{
  (void)c, (void)x, (void)e;
  if (pgcat_proc(a[0].d_i64))
    pgcat_out_bool(out, true);
  else
    out->d_null = true;
  return CZ_OK;
}

/* pg_get_function_result / pg_get_function_arguments: the types as
 * format_type names ("integer", "text, integer"). */
static int pf_pg_get_function_result(xctx_t *c, const xnode_t *x, const datum_t *a,
                                     datum_t *out, err_t *e)
{
  (void)x, (void)e;
  const xfunc_def_t *f = pgcat_proc(a[0].d_i64);
  /* exec's polymorphic results (the argument's type) show as "any" */
  pgcat_out_text(c, out, !f ? NULL
                         : f->fd_result < 0 ? "\"any\""
                         : pgcat_format_type(pgcat_fn_type(f->fd_result), -1, c->xc_arena));
  return CZ_OK;
}

static int pf_pg_get_function_arguments(xctx_t *c, const xnode_t *x, const datum_t *a,
                                        datum_t *out, err_t *e)
{
  (void)x, (void)e;
  const xfunc_def_t *f = pgcat_proc(a[0].d_i64);
  if (!f) {
    out->d_null = true;
    return CZ_OK;
  }
  char *s = arena_strdup(c->xc_arena, "");
  for (int k = 0; k < f->fd_nargs; k++) {
    bool variadic = (f->fd_flags & XF_VARIADIC) && k == f->fd_nargs - 1;
    bool any = f->fd_args[k] < 0; /* exec's XFA_* pseudo types: PostgreSQL's "any" */
    const char *t = any ? "\"any\""
                        : pgcat_format_type(pgcat_fn_type(f->fd_args[k]), -1, c->xc_arena);
    s = arena_sprintf(c->xc_arena, "%s%s%s%s%s", s, k ? ", " : "", variadic ? "VARIADIC " : "",
                      t, variadic && !any ? "[]" : "");
  }
  pgcat_out_text(c, out, s);
  return CZ_OK;
}

/* quote_ident(text): double-quoted when PostgreSQL would quote it. */
static int pf_quote_ident(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  pgcat_out_text(c, out, pgcat_quote_ident(pgcat_arg_str(c, &a[0]), c->xc_arena));
  return CZ_OK;
}

static int pf_pg_table_is_visible(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                  err_t *e)
{
  (void)x;
  PGCAT_ENV();
  cat_oid_t oid = (cat_oid_t)a[0].d_i64;
  const pgcat_rel_t *r = pgcat_find_oid(oid);
  const cat_table_t *t = r ? NULL : cat_table_by_oid(env->pe_snap, oid);
  const cat_index_t *ix = r || t ? NULL : cat_index_by_oid(env->pe_snap, oid);
  if (r)
    pgcat_out_bool(out, pgcat_relation_visible(env, pgcat_rel_schema_oid(r), pgcat_rel_name(r)));
  else if (t)
    pgcat_out_bool(out, pgcat_relation_visible(env, t->ct_schema, t->ct_name));
  else if (ix && !ix->ci_hidden)
    pgcat_out_bool(out, pgcat_relation_visible(env, ix->ci_table->ct_schema, ix->ci_name));
  else if (!ix && cat_sequence_by_oid(env->pe_snap, oid)) {
    const cat_sequence_t *sq = cat_sequence_by_oid(env->pe_snap, oid);
    pgcat_out_bool(out, pgcat_relation_visible(env, sq->sq_schema, sq->sq_name));
  } else if (!ix && cat_view_by_oid(env->pe_snap, oid)) {
    const cat_view_t *w = cat_view_by_oid(env->pe_snap, oid);
    pgcat_out_bool(out, pgcat_relation_visible(env, w->cw_schema, w->cw_name));
  } else
    out->d_null = true; /* no such relation: NULL, as PostgreSQL */
  return CZ_OK;
}

static int pf_pg_type_is_visible(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                 err_t *e)
{
  (void)c, (void)x, (void)e;
  /* every type is built in, in pg_catalog, which is always searched */
  if (pgcat_type_exists((uint32_t)a[0].d_i64))
    pgcat_out_bool(out, true);
  else
    out->d_null = true;
  return CZ_OK;
}

static int pf_pg_collation_is_visible(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                      err_t *e)
{
  (void)c, (void)x, (void)e;
  /* the three collations (pg_collation) live in pg_catalog, always searched */
  int64_t oid = a[0].d_i64;
  if (oid == 100 || oid == 950 || oid == 951)
    pgcat_out_bool(out, true);
  else
    out->d_null = true;
  return CZ_OK;
}

/* Descriptions of shared objects (databases, roles): none are kept. */
static int pf_no_description(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                             err_t *e)
{
  (void)c, (void)x, (void)a, (void)e;
  out->d_null = true;
  return CZ_OK;
}

/* obj_description(oid [, catalog name]) and col_description(table, column):
 * the COMMENT ON text the catalog keeps (cat_comment.c). Without the
 * catalog name (deprecated in PostgreSQL) any class's description of oid
 * with sub-id 0. */
static int pf_obj_description(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  PGCAT_ENV();
  const cat_snapshot_t *s = env->pe_snap;
  cat_oid_t oid = (cat_oid_t)a[0].d_i64;
  const char *text = NULL;
  if (x->x_nargs == 1) {
    for (int i = 0; i < s->cs_ncomments && !text; i++)
      if (s->cs_comments[i].cm_objoid == oid && s->cs_comments[i].cm_subid == 0)
        text = s->cs_comments[i].cm_text;
  } else {
    str_t cls = a[1].d_str;
    cat_oid_t classoid = 0;
    if (cls.s_len == 8 && memcmp(cls.s_ptr, "pg_class", 8) == 0)
      classoid = CAT_CLASS_PG_CLASS;
    else if (cls.s_len == 12 && memcmp(cls.s_ptr, "pg_namespace", 12) == 0)
      classoid = CAT_CLASS_PG_NAMESPACE;
    else if (cls.s_len == 13 && memcmp(cls.s_ptr, "pg_constraint", 13) == 0)
      classoid = CAT_CLASS_PG_CONSTRAINT;
    text = classoid ? cat_comment(s, classoid, oid, 0) : NULL;
  }
  pgcat_out_text(c, out, text);
  return CZ_OK;
}

static int pf_col_description(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  (void)x;
  PGCAT_ENV();
  pgcat_out_text(c, out, cat_comment(env->pe_snap, CAT_CLASS_PG_CLASS, (cat_oid_t)a[0].d_i64,
                                     (int32_t)a[1].d_i64));
  return CZ_OK;
}

static int pf_pg_get_indexdef(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  PGCAT_ENV();
  const cat_index_t *ix = cat_index_by_oid(env->pe_snap, (cat_oid_t)a[0].d_i64);
  int column = x->x_nargs > 1 ? (int)a[1].d_i64 : 0;
  pgcat_out_text(c, out, ix && !ix->ci_hidden ? pgcat_indexdef(env, ix, column, c->xc_arena)
                                              : NULL);
  return CZ_OK;
}

/* pg_get_viewdef(oid | name [, pretty]): the view's query (pgcat_view.c). */
static int pf_pg_get_viewdef(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  PGCAT_ENV();
  cat_oid_t oid;
  if (x->x_args[0]->x_type.t_id == TY_TEXT) {
    const char *name = pgcat_arg_str(c, &a[0]);
    if (pgcat_regclass_in(env, name, &oid, e) != CZ_OK)
      return CZ_ERR;
  } else
    oid = (cat_oid_t)a[0].d_i64;
  const cat_view_t *w = cat_view_by_oid(env->pe_snap, oid);
  pgcat_out_text(c, out, w ? pgcat_viewdef(env, w, c->xc_arena) : NULL);
  return CZ_OK;
}

/* pg_get_ruledef: no rules exist besides a view's _RETURN rule, whose
 * text pg_get_viewdef gives (NULL here). */
static int pf_pg_get_ruledef(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c, (void)x, (void)a, (void)e;
  out->d_null = true;
  return CZ_OK;
}

static int pf_pg_get_constraintdef(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                   err_t *e)
{
  (void)x;
  PGCAT_ENV();
  bool pretty = x->x_nargs > 1 && !a[1].d_null && a[1].d_bool;
  pgcat_out_text(c, out, pgcat_constraintdef(env, (cat_oid_t)a[0].d_i64, pretty, c->xc_arena));
  return CZ_OK;
}

/* pg_partition_ancestors(rel): a table and the partitioned tables above
 * it. Nothing is partitioned here, so it is the table itself — one row,
 * given as a scalar (psql's "Referenced by:" query reads it in an IN
 * subquery, where the one value is the whole answer). */
static int pf_pg_partition_ancestors(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                     err_t *e)
{
  (void)c, (void)x, (void)e;
  *out = a[0];
  return CZ_OK;
}

/* No extended statistics objects (nor triggers) exist, so no OID names one:
 * NULL (pg_get_statisticsobjdef_columns, pg_get_triggerdef). */
static int pf_pg_get_statisticsobjdef_columns(xctx_t *c, const xnode_t *x, const datum_t *a,
                                              datum_t *out, err_t *e)
{
  (void)c, (void)x, (void)a, (void)e;
  out->d_null = true;
  return CZ_OK;
}

/* PostgreSQL: ordinary tables outside the system schemas. */
static int pf_pg_relation_is_publishable(xctx_t *c, const xnode_t *x, const datum_t *a,
                                         datum_t *out, err_t *e)
{
  (void)x;
  PGCAT_ENV();
  const cat_table_t *t = cat_table_by_oid(env->pe_snap, (cat_oid_t)a[0].d_i64);
  pgcat_out_bool(out, t && t->ct_schema != CAT_OID_PG_CATALOG &&
                        t->ct_schema != CAT_OID_INFORMATION_SCHEMA);
  return CZ_OK;
}

/* ---- the session ------------------------------------------------------------- */

static int pf_current_schema(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                             err_t *e)
{
  (void)x, (void)a;
  PGCAT_ENV();
  /* the first existing schema the path names (NULL when none does) */
  cat_oid_t path[16];
  int n = pgcat_search_path_explicit(env, path, 16);
  pgcat_out_text(c, out, n > 0 ? pgcat_schema_name(env, path[0]) : NULL);
  return CZ_OK;
}

/* current_schemas(include_implicit): the search path as name[] text. */
static int pf_current_schemas(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  (void)x;
  PGCAT_ENV();
  cat_oid_t path[16];
  int n = a[0].d_bool ? pgcat_search_path(env, path, 16)
                      : pgcat_search_path_explicit(env, path, 16);
  char *list = arena_strdup(c->xc_arena, "");
  for (int i = 0; i < n; i++)
    list = arena_sprintf(c->xc_arena, "%s%s%s", list, *list ? "," : "",
                         pgcat_quote_ident(pgcat_schema_name(env, path[i]), c->xc_arena));
  pgcat_out_text(c, out, arena_sprintf(c->xc_arena, "{%s}", list));
  return CZ_OK;
}

static int pf_current_database(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                               err_t *e)
{
  (void)x, (void)a;
  PGCAT_ENV();
  pgcat_out_text(c, out, env->pe_database ? env->pe_database : "cadenza");
  return CZ_OK;
}

static int pf_current_user(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)a;
  PGCAT_ENV();
  pgcat_out_text(c, out, pgcat_role_name(env, env->pe_user));
  return CZ_OK;
}

static int pf_session_user(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)a;
  PGCAT_ENV();
  pgcat_out_text(c, out, pgcat_role_name(env, env->pe_session_user));
  return CZ_OK;
}

static int pf_version(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)a, (void)e;
  /* clients parse the leading "PostgreSQL <major>.<minor>" */
  pgcat_out_text(c, out, arena_sprintf(c->xc_arena, "PostgreSQL 15.0 (%s) on x86_64-pc-linux-gnu",
                                       cz_version()));
  return CZ_OK;
}

/* pg_sleep(seconds): waits in slices of at most 10 ms, so that a cancel
 * or statement_timeout (both set the cancel flag) ends it within one
 * slice with 57014. As PostgreSQL: zero, negative and NaN return at once,
 * Infinity waits until cancelled; void is shown as an empty text. */
static int pf_pg_sleep(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  double secs = a[0].d_f64;
  double start = (double)time_now_ns() / 1e9;
  for (;;) {
    if (c->xc_cancel && *c->xc_cancel)
      return err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
    double left = start + secs - (double)time_now_ns() / 1e9;
    if (!(left > 0))
      break;
    time_sleep_us(left > 0.01 ? 10000 : (uint64_t)(left * 1e6) + 1);
  }
  pgcat_out_text(c, out, "");
  return CZ_OK;
}

static int pf_pg_backend_pid(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                             err_t *e)
{
  (void)x, (void)a;
  PGCAT_ENV();
  pgcat_out_int(out, env->pe_backend_pid);
  return CZ_OK;
}

static int pf_pg_encoding_to_char(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                  err_t *e)
{
  (void)x, (void)e;
  /* the one server encoding is UTF8 (6); SQL_ASCII is 0; others unknown */
  int64_t v = a[0].d_i64;
  pgcat_out_text(c, out, v == 6 ? "UTF8" : v == 0 ? "SQL_ASCII" : "");
  return CZ_OK;
}

static int pf_current_setting(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  PGCAT_ENV();
  char *name = pgcat_arg_str(c, &a[0]);
  const char *v = pgcat_setting(env, name);
  bool missing_ok = x->x_nargs > 1 && !a[1].d_null && a[1].d_bool;
  if (!v && !missing_ok)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "unrecognized configuration parameter \"%s\"",
                   name);
  pgcat_out_text(c, out, v);
  return CZ_OK;
}

static int pf_pg_is_in_recovery(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                err_t *e)
{
  (void)c, (void)x, (void)a, (void)e;
  pgcat_out_bool(out, false); /* there are no standby servers */
  return CZ_OK;
}

/* ---- privileges ----------------------------------------------------------------- */

/* "SELECT, INSERT WITH GRANT OPTION" → CAT_PRIV_* bits; 22023 for an
 * unknown word. Privileges Cadenza lacks (REFERENCES, TRIGGER, TRUNCATE)
 * are never held. */
static int pgcat_priv_bits(const char *s, uint32_t *bits, bool *never, err_t *e)
{
  *bits = 0;
  *never = false;
  const char *p = s;
  while (*p) {
    while (*p == ' ' || *p == ',')
      p++;
    const char *w = p;
    while (*p && *p != ',')
      p++;
    size_t n = (size_t)(p - w);
    while (n && w[n - 1] == ' ')
      n--;
    if (!n)
      continue;
    static const struct {
      const char *name;
      uint32_t bit;
    } privs[] = {{"select", CAT_PRIV_SELECT}, {"insert", CAT_PRIV_INSERT},
                 {"update", CAT_PRIV_UPDATE}, {"delete", CAT_PRIV_DELETE},
                 {"truncate", 0},             {"references", 0},
                 {"trigger", 0}};
    bool known = false;
    for (size_t i = 0; i < CZ_ARRAY_LEN(privs) && !known; i++) {
      size_t ln = strlen(privs[i].name);
      if (n >= ln && strncasecmp(w, privs[i].name, ln) == 0 &&
          (n == ln || strncasecmp(w + ln, " with grant option", n - ln) == 0)) {
        known = true;
        *bits |= privs[i].bit;
        *never |= privs[i].bit == 0;
      }
    }
    if (!known)
      return err_set(e, SQLSTATE_INVALID_PARAMETER, "unrecognized privilege type: \"%.*s\"",
                     (int)n, w);
  }
  return CZ_OK;
}

/* The table named by text (regclass input) or by OID. */
static int pgcat_priv_table(xctx_t *c, const pgcat_env_t *env, const datum_t *d, bool by_oid,
                            const cat_table_t **t, const pgcat_rel_t **r, err_t *e)
{
  cat_oid_t oid;
  if (by_oid)
    oid = (cat_oid_t)d->d_i64;
  else if (pgcat_regclass_in(env, pgcat_arg_str(c, d), &oid, e))
    return CZ_ERR;
  *r = pgcat_find_oid(oid);
  *t = *r ? NULL : cat_table_by_oid(env->pe_snap, oid);
  return CZ_OK;
}

/* has_table_privilege([user,] table, privilege): the shapes differ in
 * whether a user is given and whether the table is a name or an OID. */
static int pgcat_has_table_priv(xctx_t *c, const datum_t *user, const datum_t *table,
                                bool by_oid, const datum_t *priv, datum_t *out, err_t *e)
{
  PGCAT_ENV();
  cat_oid_t role = env->pe_user;
  if (user) {
    const cat_role_t *r;
    if (cat_lookup_role(env->pe_snap, pgcat_arg_str(c, user), &r, e))
      return CZ_ERR;
    role = r->cr_oid;
  }
  const cat_table_t *t;
  const pgcat_rel_t *r;
  if (pgcat_priv_table(c, env, table, by_oid, &t, &r, e))
    return CZ_ERR;
  uint32_t want;
  bool never;
  if (pgcat_priv_bits(pgcat_arg_str(c, priv), &want, &never, e))
    return CZ_ERR;
  if (r) /* the catalog is readable by everyone, and read-only */
    pgcat_out_bool(out, !never && (want & ~CAT_PRIV_SELECT) == 0);
  else if (t)
    pgcat_out_bool(out, !never && (cat_table_privs(env->pe_snap, role, t) & want) == want);
  else
    out->d_null = true; /* an OID that names no table */
  return CZ_OK;
}

static int pf_htp_name(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return pgcat_has_table_priv(c, NULL, &a[0], false, &a[1], out, e);
}

static int pf_htp_oid(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return pgcat_has_table_priv(c, NULL, &a[0], true, &a[1], out, e);
}

static int pf_htp_user_name(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return pgcat_has_table_priv(c, &a[0], &a[1], false, &a[2], out, e);
}

static int pf_htp_user_oid(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return pgcat_has_table_priv(c, &a[0], &a[1], true, &a[2], out, e);
}

/* has_schema_privilege([user,] schema, privilege): privilege is a
 * comma-separated list of USAGE / CREATE, each optionally WITH GRANT
 * OPTION (true when any is held, as PostgreSQL). */
static int pf_has_schema_privilege(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                   err_t *e)
{
  PGCAT_ENV();
  int k = x->x_nargs == 3 ? 1 : 0;
  cat_oid_t role = env->pe_user;
  if (k) {
    const cat_role_t *r;
    if (cat_lookup_role(env->pe_snap, pgcat_arg_str(c, &a[0]), &r, e))
      return CZ_ERR;
    role = r->cr_oid;
  }
  const char *name = pgcat_arg_str(c, &a[k]);
  const cat_schema_t *sc = cat_find_schema(env->pe_snap, name);
  if (!sc)
    return err_set(e, SQLSTATE_INVALID_SCHEMA, "schema \"%s\" does not exist", name);
  uint32_t have = cat_schema_privs(env->pe_snap, role, sc);
  if (sc->cs_oid == CAT_OID_PG_CATALOG || sc->cs_oid == CAT_OID_INFORMATION_SCHEMA)
    have |= CAT_PRIV_USAGE;  /* PostgreSQL grants USAGE on these to PUBLIC */
  const char *list = pgcat_arg_str(c, &a[k + 1]);
  bool any = false;
  for (const char *p = list; *p;) {
    while (*p == ' ' || *p == ',')
      p++;
    if (!*p)
      break;
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    while (len && p[len - 1] == ' ')
      len--;
    uint32_t want;
    size_t word;
    if (len >= 5 && strncasecmp(p, "usage", 5) == 0)
      want = CAT_PRIV_USAGE, word = 5;
    else if (len >= 6 && strncasecmp(p, "create", 6) == 0)
      want = CAT_PRIV_CREATE, word = 6;
    else
      return err_set(e, SQLSTATE_INVALID_PARAMETER, "unrecognized privilege type: \"%.*s\"",
                     (int)len, p);
    const char *rest = p + word;
    size_t rlen = len - word;
    while (rlen && *rest == ' ')
      rest++, rlen--;
    if (rlen == 17 && strncasecmp(rest, "with grant option", 17) == 0)
      want <<= CAT_PRIV_GRANT_SHIFT;
    else if (rlen)
      return err_set(e, SQLSTATE_INVALID_PARAMETER, "unrecognized privilege type: \"%.*s\"",
                     (int)len, p);
    any |= (have & want) != 0;
    p += len;
  }
  pgcat_out_bool(out, any);
  return CZ_OK;
}

/* The one database: every role that may log in may connect. */
static int pf_has_database_privilege(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                     err_t *e)
{
  PGCAT_ENV();
  int k = x->x_nargs == 3 ? 1 : 0;
  const cat_role_t *r = cat_role_by_oid(env->pe_snap, env->pe_user);
  if (k && cat_lookup_role(env->pe_snap, pgcat_arg_str(c, &a[0]), &r, e))
    return CZ_ERR;
  const char *priv = pgcat_arg_str(c, &a[k + 1]);
  if (strncasecmp(priv, "connect", 7) == 0 || strncasecmp(priv, "temp", 4) == 0)
    pgcat_out_bool(out, r != NULL);
  else if (strncasecmp(priv, "create", 6) == 0)
    pgcat_out_bool(out, r && (r->cr_superuser || r->cr_createdb));
  else
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "unrecognized privilege type: \"%s\"", priv);
  return CZ_OK;
}

/* ---- arrays in their text form ----------------------------------------------------- */

/* An array literal's elements, flattened in row-major order (quotes and
 * backslashes undone; an unquoted NULL is NULL; any number of dimensions,
 * *ndim set when not NULL). Returns the count, or -1 when s is not an
 * array literal. */
static int pgcat_array_split(arena_t *a, const char *s, size_t len, char ***items, int *ndim)
{
  pgcat_arr_t r;
  err_t ignored;
  *items = NULL;
  if (pgcat_arr_parse(a, s, len, &r, &ignored) != CZ_OK)
    return -1;
  *items = r.pa_items;
  if (ndim)
    *ndim = r.pa_ndim;
  return r.pa_n;
}

/* An array's elements from either text form: '{a,b}' (lower bound 1) or
 * the vector form of int2vector / oidvector, '1 2' (lower bound 0, as
 * PostgreSQL subscripts vectors). -1 when s is neither. */
static int pgcat_array_parse(arena_t *a, const char *s, size_t len, char ***items, int *lower,
                             int *ndim)
{
  *lower = 1;
  if (ndim)
    *ndim = 1;
  if (len == 0 || s[0] == '{')
    return pgcat_array_split(a, s, len, items, ndim);
  *lower = 0;
  int n = 0;
  *items = arena_alloc(a, sizeof **items * (len / 2 + 1));
  for (size_t i = 0; i < len;) {
    while (i < len && s[i] == ' ')
      i++;
    size_t j = i;
    while (j < len && s[j] != ' ')
      j++;
    if (j > i) {
      for (size_t k = i; k < j; k++)
        if (!((s[k] >= '0' && s[k] <= '9') || s[k] == '-'))
          return -1;
      (*items)[n++] = arena_sprintf(a, "%.*s", (int)(j - i), s + i);
    }
    i = j;
  }
  return n;
}

/* Argument 0 of an array function, parsed as pgcat_array_parse does (*n
 * items); 22P02 when it is not an array literal. */
static int pgcat_array_arg_nd(xctx_t *c, const datum_t *a, char ***items, int *lower, int *n,
                              int *ndim, err_t *e)
{
  if (a[0].d_str.s_len > 0 && a[0].d_str.s_ptr[0] == '{') {
    /* the parser's own message (non-rectangular, too many dimensions) */
    pgcat_arr_t r;
    if (pgcat_arr_parse(c->xc_arena, a[0].d_str.s_ptr, a[0].d_str.s_len, &r, e) != CZ_OK)
      return CZ_ERR;
    *items = r.pa_items;
    *lower = 1;
    *n = r.pa_n;
    if (ndim)
      *ndim = r.pa_ndim;
    return CZ_OK;
  }
  *n = pgcat_array_parse(c->xc_arena, a[0].d_str.s_ptr, a[0].d_str.s_len, items, lower, ndim);
  if (*n < 0)
    return err_set(e, SQLSTATE_INVALID_TEXT, "malformed array literal: \"%s\"",
                   pgcat_arg_str(c, &a[0]));
  return CZ_OK;
}

static int pgcat_array_arg(xctx_t *c, const datum_t *a, char ***items, int *lower, int *n,
                           err_t *e)
{
  return pgcat_array_arg_nd(c, a, items, lower, n, NULL, e);
}

static int pf_array_to_string(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  char **items;
  int lower, n;
  if (pgcat_array_arg(c, a, &items, &lower, &n, e) != CZ_OK)
    return CZ_ERR;
  const char *sep = pgcat_arg_str(c, &a[1]);
  const char *null_as = x->x_nargs > 2 && !a[2].d_null ? pgcat_arg_str(c, &a[2]) : NULL;
  /* two passes (length, then copy): linear in the array's size */
  size_t total = 0, seplen = strlen(sep);
  for (int i = 0; i < n; i++) {
    const char *v = items[i] ? items[i] : null_as;
    if (v)
      total += strlen(v) + seplen;
  }
  if (total > XE_MAX_FIELD)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "requested length too large");
  char *res = arena_alloc(c->xc_arena, total + 1), *p = res;
  bool first = true;
  for (int i = 0; i < n; i++) {
    const char *v = items[i] ? items[i] : null_as;
    if (!v)
      continue;
    if (!first) {
      memcpy(p, sep, seplen);
      p += seplen;
    }
    size_t l = strlen(v);
    memcpy(p, v, l);
    p += l;
    first = false;
  }
  *p = 0;
  out->d_null = false;
  out->d_str.s_ptr = res;
  out->d_str.s_len = (uint32_t)(p - res);
  return CZ_OK;
}

/* array_upper / array_lower (arr, 1): the last or first subscript of
 * the first dimension (arrays count from 1, vectors from 0); NULL when
 * the array is empty or another dimension is asked. */
static int pf_array_bound(xctx_t *c, const datum_t *a, bool upper, datum_t *out, err_t *e)
{
  char **items;
  int lower, n;
  if (a[0].d_str.s_len > 0 && a[0].d_str.s_ptr[0] == '{') {
    pgcat_arr_t r;
    if (pgcat_arr_parse(c->xc_arena, a[0].d_str.s_ptr, a[0].d_str.s_len, &r, e) != CZ_OK)
      return CZ_ERR;
    if (a[1].d_i64 < 1 || a[1].d_i64 > r.pa_ndim)
      out->d_null = true;
    else
      pgcat_out_int(out, upper ? r.pa_dims[a[1].d_i64 - 1] : 1);
    return CZ_OK;
  }
  if (pgcat_array_arg(c, a, &items, &lower, &n, e) != CZ_OK)
    return CZ_ERR;
  if (n == 0 || a[1].d_i64 != 1)
    out->d_null = true;
  else
    pgcat_out_int(out, upper ? n - 1 + lower : lower);
  return CZ_OK;
}

/* The last subscript of the flattened elements (unnest's series). */
static int pf_array_flat_upper(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                               err_t *e)
{
  (void)x;
  char **items;
  int lower, n;
  if (pgcat_array_arg(c, a, &items, &lower, &n, e) != CZ_OK)
    return CZ_ERR;
  pgcat_out_int(out, n - 1 + lower);
  return CZ_OK;
}

static int pf_array_upper(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return pf_array_bound(c, a, true, out, e);
}

static int pf_array_lower(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return pf_array_bound(c, a, false, out, e);
}

/* x = ANY (arr) over the text form, with SQL's three values: true when an
 * element equals x, else NULL when x or an element is NULL, else false. */
static int pf_array_any_eq(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  if (a[0].d_null) {
    out->d_null = true;
    return CZ_OK;
  }
  char **items;
  int lower, n;
  if (pgcat_array_arg(c, a, &items, &lower, &n, e) != CZ_OK)
    return CZ_ERR;
  bool unknown = a[1].d_null;
  if (!unknown) {
    const char *v = pgcat_arg_str(c, &a[1]);
    for (int i = 0; i < n; i++) {
      if (!items[i])
        unknown = true;
      else if (strcmp(items[i], v) == 0) {
        pgcat_out_bool(out, true);
        return CZ_OK;
      }
    }
  }
  if (unknown && n > 0)
    out->d_null = true;
  else
    pgcat_out_bool(out, false);
  return CZ_OK;
}

/* ARRAY[a, b, …] (the binder passes the elements as text): the array's
 * text form, NULL elements included. */
static int pf_array_make(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  int n = x->x_nargs;
  /* the text form at most doubles an element (quotes, backslashes):
   * refuse what could pass PostgreSQL's 1 GB field limit before building */
  size_t bound = 2;
  for (int i = 0; i < n; i++)
    bound += 2 * (size_t)(a[i].d_null ? 4 : a[i].d_str.s_len) + 3;
  if (bound > XE_MAX_FIELD)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "array size exceeds the maximum allowed (%u bytes)", XE_MAX_FIELD);
  str_t *el = arena_alloc(c->xc_arena, sizeof(str_t) * (size_t)(n + 1));
  bool *nulls = arena_alloc(c->xc_arena, (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    nulls[i] = a[i].d_null;
    el[i] = a[i].d_null ? (str_t){"", 0} : a[i].d_str;
  }
  char *s = xarray_text(c->xc_arena, el, nulls, n, e);
  if (!s)
    return CZ_ERR;
  out->d_null = false;
  out->d_str.s_ptr = s;
  out->d_str.s_len = (uint32_t)strlen(s);
  return CZ_OK;
}

/* arr[i] over the text form (1-based; NULL outside the array). */
static int pf_array_element(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  char **items;
  int lower, n, ndim;
  if (pgcat_array_arg_nd(c, a, &items, &lower, &n, &ndim, e) != CZ_OK)
    return CZ_ERR;
  /* one subscript of a multi-dimensional array: NULL, as PostgreSQL;
   * array_flat_element (unnest) indexes the flattened elements */
  int64_t i = a[1].d_i64 - lower;
  bool flat = x->x_func && strcmp(x->x_func->fd_name, "array_flat_element") == 0;
  pgcat_out_text(c, out, i >= 0 && i < n && (ndim <= 1 || flat) ? items[i] : NULL);
  return CZ_OK;
}

/* information_schema._pg_expandarray(arr)'s row for subscript i: the
 * record (arr[i], i - lower + 1) as text (the binder's select-list form of
 * the set-returning function runs i over arr's subscripts). */
static int pf_expandarray_row(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  (void)x;
  char **items;
  int lower, n;
  if (pgcat_array_arg(c, a, &items, &lower, &n, e) != CZ_OK)
    return CZ_ERR;
  int64_t i = a[1].d_i64 - lower;
  if (i < 0 || i >= n) {
    out->d_null = true;
    return CZ_OK;
  }
  const char *f[2] = {items[i], arena_sprintf(c->xc_arena, "%lld", (long long)(i + 1))};
  pgcat_out_text(c, out, pgcat_record_text(c->xc_arena, f, 2));
  return CZ_OK;
}

/* ---- reg* input and output ------------------------------------------------------------ */

typedef int (*pgcat_in_fn)(const pgcat_env_t *env, const char *text, cat_oid_t *out, err_t *e);

static int pgcat_reg_in(xctx_t *c, const datum_t *a, datum_t *out, pgcat_in_fn in, bool soft,
                        err_t *e)
{
  PGCAT_ENV();
  cat_oid_t oid;
  err_t local;
  if (in(env, pgcat_arg_str(c, &a[0]), &oid, soft ? &local : e)) {
    if (!soft)
      return CZ_ERR;
    out->d_null = true; /* to_regclass & co.: NULL instead of an error */
    return CZ_OK;
  }
  pgcat_out_int(out, oid);
  return CZ_OK;
}

static int pf_regclassin(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return pgcat_reg_in(c, a, out, pgcat_regclass_in, false, e);
}
static int pf_to_regclass(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return pgcat_reg_in(c, a, out, pgcat_regclass_in, true, e);
}
static int pf_regtypein(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return pgcat_reg_in(c, a, out, pgcat_regtype_in, false, e);
}
static int pf_to_regtype(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return pgcat_reg_in(c, a, out, pgcat_regtype_in, true, e);
}
static int pf_regnamespacein(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                             err_t *e)
{
  (void)x;
  return pgcat_reg_in(c, a, out, pgcat_regnamespace_in, false, e);
}
static int pf_regrolein(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return pgcat_reg_in(c, a, out, pgcat_regrole_in, false, e);
}

static int pf_regclassout(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  PGCAT_ENV();
  pgcat_out_text(c, out, pgcat_regclass_out(env, (cat_oid_t)a[0].d_i64, c->xc_arena));
  return CZ_OK;
}
static int pf_regtypeout(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  pgcat_out_text(c, out, pgcat_regtype_out((cat_oid_t)a[0].d_i64, c->xc_arena));
  return CZ_OK;
}
static int pf_regnamespaceout(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  (void)x;
  PGCAT_ENV();
  pgcat_out_text(c, out, pgcat_regnamespace_out(env, (cat_oid_t)a[0].d_i64, c->xc_arena));
  return CZ_OK;
}
static int pf_regroleout(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  PGCAT_ENV();
  pgcat_out_text(c, out, pgcat_regrole_out(env, (cat_oid_t)a[0].d_i64, c->xc_arena));
  return CZ_OK;
}

/* ---- the table --------------------------------------------------------------------------- */

#define I8 TY_INT8
#define I4 TY_INT4
#define TX TY_TEXT
#define BO TY_BOOL
#define S XF_STRICT
#define V XF_VOLATILE

const xfunc_def_t pgcat_funcs[] = {
  {.fd_name = "format_type", .fd_nargs = 2, .fd_args = {I8, I4}, .fd_result = TX,
   .fd_row = pf_format_type},
  {.fd_name = "pg_get_expr", .fd_nargs = 2, .fd_args = {TX, I8}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_pg_get_expr},
  {.fd_name = "pg_get_expr", .fd_nargs = 3, .fd_args = {TX, I8, BO}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_expr},
  {.fd_name = "pg_get_userbyid", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_pg_get_userbyid},
  {.fd_name = "pg_table_is_visible", .fd_nargs = 1, .fd_args = {I8}, .fd_result = BO,
   .fd_flags = S, .fd_row = pf_pg_table_is_visible},
  {.fd_name = "regprocin", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_regprocin},
  {.fd_name = "pg_function_is_visible", .fd_nargs = 1, .fd_args = {I8}, .fd_result = BO,
   .fd_flags = S, .fd_row = pf_pg_function_is_visible},
  {.fd_name = "pg_get_function_result", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_function_result},
  {.fd_name = "pg_get_function_arguments", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_function_arguments},
  {.fd_name = "pg_type_is_visible", .fd_nargs = 1, .fd_args = {I8}, .fd_result = BO,
   .fd_flags = S, .fd_row = pf_pg_type_is_visible},
  {.fd_name = "pg_collation_is_visible", .fd_nargs = 1, .fd_args = {I8}, .fd_result = BO,
   .fd_flags = S, .fd_row = pf_pg_collation_is_visible},
  {.fd_name = "obj_description", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_obj_description},
  {.fd_name = "obj_description", .fd_nargs = 2, .fd_args = {I8, TX}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_obj_description},
  {.fd_name = "col_description", .fd_nargs = 2, .fd_args = {I8, I4}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_col_description},
  {.fd_name = "shobj_description", .fd_nargs = 2, .fd_args = {I8, TX}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_no_description},
  {.fd_name = "pg_get_indexdef", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_pg_get_indexdef},
  {.fd_name = "pg_get_indexdef", .fd_nargs = 3, .fd_args = {I8, I4, BO}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_indexdef},
  {.fd_name = "pg_get_viewdef", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_pg_get_viewdef},
  {.fd_name = "pg_get_viewdef", .fd_nargs = 2, .fd_args = {I8, BO}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_viewdef},
  {.fd_name = "pg_get_viewdef", .fd_nargs = 2, .fd_args = {I8, I4}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_viewdef},
  {.fd_name = "pg_get_viewdef", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_pg_get_viewdef},
  {.fd_name = "pg_get_viewdef", .fd_nargs = 2, .fd_args = {TX, BO}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_viewdef},
  {.fd_name = "pg_get_ruledef", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_pg_get_ruledef},
  {.fd_name = "pg_get_ruledef", .fd_nargs = 2, .fd_args = {I8, BO}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_ruledef},
  {.fd_name = "pg_get_triggerdef", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_statisticsobjdef_columns},
  {.fd_name = "pg_get_triggerdef", .fd_nargs = 2, .fd_args = {I8, BO}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_statisticsobjdef_columns},
  {.fd_name = "pg_partition_ancestors", .fd_nargs = 1, .fd_args = {I8}, .fd_result = I8,
   .fd_flags = S, .fd_row = pf_pg_partition_ancestors},
  {.fd_name = "pg_get_constraintdef", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_constraintdef},
  {.fd_name = "pg_get_constraintdef", .fd_nargs = 2, .fd_args = {I8, BO}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_get_constraintdef},
  {.fd_name = "pg_get_statisticsobjdef_columns", .fd_nargs = 1, .fd_args = {I8},
   .fd_result = TX, .fd_flags = S, .fd_row = pf_pg_get_statisticsobjdef_columns},
  {.fd_name = "pg_relation_is_publishable", .fd_nargs = 1, .fd_args = {I8}, .fd_result = BO,
   .fd_flags = S, .fd_row = pf_pg_relation_is_publishable},
  {.fd_name = "current_schema", .fd_nargs = 0, .fd_result = TX, .fd_flags = V,
   .fd_row = pf_current_schema},
  {.fd_name = "current_schemas", .fd_nargs = 1, .fd_args = {BO}, .fd_result = TX,
   .fd_flags = S | V, .fd_row = pf_current_schemas},
  {.fd_name = "current_database", .fd_nargs = 0, .fd_result = TX, .fd_flags = V,
   .fd_row = pf_current_database},
  {.fd_name = "current_user", .fd_nargs = 0, .fd_result = TX, .fd_flags = V,
   .fd_row = pf_current_user},
  {.fd_name = "session_user", .fd_nargs = 0, .fd_result = TX, .fd_flags = V,
   .fd_row = pf_session_user},
  {.fd_name = "version", .fd_nargs = 0, .fd_result = TX, .fd_row = pf_version},
  {.fd_name = "pg_sleep", .fd_nargs = 1, .fd_args = {TY_FLOAT8}, .fd_result = TX,
   .fd_flags = S | V, .fd_row = pf_pg_sleep},
  {.fd_name = "pg_backend_pid", .fd_nargs = 0, .fd_result = I4, .fd_flags = V,
   .fd_row = pf_pg_backend_pid},
  {.fd_name = "pg_encoding_to_char", .fd_nargs = 1, .fd_args = {I4}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_pg_encoding_to_char},
  {.fd_name = "current_setting", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX,
   .fd_flags = S | V, .fd_row = pf_current_setting},
  {.fd_name = "current_setting", .fd_nargs = 2, .fd_args = {TX, BO}, .fd_result = TX,
   .fd_flags = S | V, .fd_row = pf_current_setting},
  {.fd_name = "pg_is_in_recovery", .fd_nargs = 0, .fd_result = BO, .fd_row = pf_pg_is_in_recovery},
  {.fd_name = "has_table_privilege", .fd_nargs = 2, .fd_args = {TX, TX}, .fd_result = BO,
   .fd_flags = S | V, .fd_row = pf_htp_name},
  {.fd_name = "has_table_privilege", .fd_nargs = 2, .fd_args = {I8, TX}, .fd_result = BO,
   .fd_flags = S | V, .fd_row = pf_htp_oid},
  {.fd_name = "has_table_privilege", .fd_nargs = 3, .fd_args = {TX, TX, TX}, .fd_result = BO,
   .fd_flags = S | V, .fd_row = pf_htp_user_name},
  {.fd_name = "has_table_privilege", .fd_nargs = 3, .fd_args = {TX, I8, TX}, .fd_result = BO,
   .fd_flags = S | V, .fd_row = pf_htp_user_oid},
  {.fd_name = "has_schema_privilege", .fd_nargs = 2, .fd_args = {TX, TX}, .fd_result = BO,
   .fd_flags = S | V, .fd_row = pf_has_schema_privilege},
  {.fd_name = "has_schema_privilege", .fd_nargs = 3, .fd_args = {TX, TX, TX}, .fd_result = BO,
   .fd_flags = S | V, .fd_row = pf_has_schema_privilege},
  {.fd_name = "has_database_privilege", .fd_nargs = 2, .fd_args = {TX, TX}, .fd_result = BO,
   .fd_flags = S | V, .fd_row = pf_has_database_privilege},
  {.fd_name = "has_database_privilege", .fd_nargs = 3, .fd_args = {TX, TX, TX}, .fd_result = BO,
   .fd_flags = S | V, .fd_row = pf_has_database_privilege},
  {.fd_name = "array_to_string", .fd_nargs = 2, .fd_args = {TX, TX}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_array_to_string},
  {.fd_name = "array_to_string", .fd_nargs = 3, .fd_args = {TX, TX, TX}, .fd_result = TX,
   .fd_row = pf_array_to_string},
  {.fd_name = "array_upper", .fd_nargs = 2, .fd_args = {TX, I4}, .fd_result = I4, .fd_flags = S,
   .fd_row = pf_array_upper},
  {.fd_name = "array_lower", .fd_nargs = 2, .fd_args = {TX, I4}, .fd_result = I4, .fd_flags = S,
   .fd_row = pf_array_lower},
  {.fd_name = "array_any_eq", .fd_nargs = 2, .fd_args = {TX, TX}, .fd_result = BO,
   .fd_row = pf_array_any_eq},
  {.fd_name = "array_make", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX,
   .fd_flags = XF_VARIADIC, .fd_row = pf_array_make},
  {.fd_name = "array_element", .fd_nargs = 2, .fd_args = {TX, I4}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_array_element},
  {.fd_name = "array_flat_element", .fd_nargs = 2, .fd_args = {TX, I4}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_array_element},
  {.fd_name = "_cz_expandarray_row", .fd_nargs = 2, .fd_args = {TX, I4}, .fd_result = TX,
   .fd_flags = S, .fd_row = pf_expandarray_row},
  {.fd_name = "array_flat_upper", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I4,
   .fd_flags = S, .fd_row = pf_array_flat_upper},
  {.fd_name = "quote_ident", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_quote_ident},
  {.fd_name = "regclassin", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8, .fd_flags = S | V,
   .fd_row = pf_regclassin},
  {.fd_name = "to_regclass", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8, .fd_flags = S | V,
   .fd_row = pf_to_regclass},
  {.fd_name = "regclassout", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX, .fd_flags = S | V,
   .fd_row = pf_regclassout},
  {.fd_name = "regtypein", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8, .fd_flags = S,
   .fd_row = pf_regtypein},
  {.fd_name = "to_regtype", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8, .fd_flags = S,
   .fd_row = pf_to_regtype},
  {.fd_name = "regtypeout", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_regtypeout},
  {.fd_name = "regnamespacein", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8,
   .fd_flags = S | V, .fd_row = pf_regnamespacein},
  {.fd_name = "regnamespaceout", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX,
   .fd_flags = S | V, .fd_row = pf_regnamespaceout},
  {.fd_name = "regrolein", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8, .fd_flags = S | V,
   .fd_row = pf_regrolein},
  {.fd_name = "regroleout", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX, .fd_flags = S | V,
   .fd_row = pf_regroleout},
};
const int pgcat_nfuncs = (int)CZ_ARRAY_LEN(pgcat_funcs);

int pgcat_init(pgcat_env_fn fn, err_t *e)
{
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static bool registered;
  atomic_store(&pgcat_hook, fn);
  pthread_mutex_lock(&lock);
  int rc = CZ_OK;
  if (!registered) {
    /* One definition at a time: a function exec already has with the same
     * arguments (42723) is exec's; pgcat's copy is not needed. */
    const xfunc_def_t *tabs[] = {pgcat_funcs, pgcat_regex_funcs, pgcat_array_funcs,
                                 pgcat_seq_funcs, pgcat_view_funcs, pgcat_dump_funcs,
                                 pgcat_size_funcs, pgcat_record_funcs, pgcat_json_object_funcs};
    const int ns[] = {pgcat_nfuncs, pgcat_regex_nfuncs, pgcat_array_nfuncs, pgcat_seq_nfuncs,
                      pgcat_view_nfuncs, pgcat_dump_nfuncs, pgcat_size_nfuncs, pgcat_record_nfuncs,
                      pgcat_json_object_nfuncs};
    for (int t = 0; t < (int)CZ_ARRAY_LEN(tabs) && rc == CZ_OK; t++)
      for (int i = 0; i < ns[t] && rc == CZ_OK; i++) {
        err_t e2;
        if (xfunc_register(&tabs[t][i], 1, &e2) != CZ_OK && !err_is(&e2, SQLSTATE_DUPLICATE_FUNCTION)) {
          *e = e2;
          rc = CZ_ERR;
        }
      }
    registered = rc == CZ_OK;
  }
  pthread_mutex_unlock(&lock);
  return rc;
}
