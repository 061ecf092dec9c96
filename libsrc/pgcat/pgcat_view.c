/* pgcat_view — views in the catalogs: pg_views, pg_matviews,
 * information_schema.views, pg_rewrite (a view's own _RETURN rule only:
 * there are no other rules) and pg_get_viewdef.
 *
 * Design notes: a view's definition is the text of its query as written,
 * with the names its tables and columns have now (cat_view_text;
 * catalog/README.md, "Views"), shown the way pg_get_viewdef frames it
 * (a leading space and a closing semicolon); PostgreSQL prints its own
 * deparsed form instead (qualified columns, one per line), which is not
 * reproduced. pg_class and pg_attribute rows for views are made by
 * pgcat_class.c, information_schema.tables and columns by
 * pgcat_infoschema.c.
 */
#include <string.h>

#include "pgcat/pgcat_int.h"

/* Whether the bare name of relation oid finds it under env's search_path. */
static bool viewdef_visible(const void *ctx, cat_oid_t oid)
{
  const pgcat_env_t *env = ctx;
  const cat_view_t *v = cat_view_by_oid(env->pe_snap, oid);
  if (v)
    return pgcat_relation_visible(env, v->cw_schema, v->cw_name);
  const cat_table_t *t = cat_table_by_oid(env->pe_snap, oid);
  if (t)
    return pgcat_relation_visible(env, t->ct_schema, t->ct_name);
  const cat_sequence_t *sq = cat_sequence_by_oid(env->pe_snap, oid);
  return sq && pgcat_relation_visible(env, sq->sq_schema, sq->sq_name);
}

/* Relations the current search_path would not find by their bare names
 * are shown with their schema, as PostgreSQL's deparser does (pg_dump
 * reads definitions under an empty search_path). */
char *pgcat_viewdef(const pgcat_env_t *env, const cat_view_t *w, arena_t *a)
{
  return arena_sprintf(a, " %s;",
                       cat_view_text(a, env->pe_snap, w, pgcat_quote_ident, viewdef_visible, env));
}

/* ---- pg_views, pg_matviews ----------------------------------------------- */

int pgcat_fill_pg_views(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_nviews; i++) {
    const cat_view_t *v = s->cs_views[i];
    if (v->cw_kind != 'v')
      continue;
    pgcat_put_text(w, pgcat_schema_name(env, v->cw_schema));
    pgcat_put_text(w, v->cw_name);
    pgcat_put_text(w, pgcat_role_name(env, v->cw_owner));
    pgcat_put_text(w, pgcat_viewdef(env, v, w->pw_arena));
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

static const pgcat_col_t pg_matviews_cols[] = {
  {"schemaname", PGT_NAME}, {"matviewname", PGT_NAME}, {"matviewowner", PGT_NAME},
  {"tablespace", PGT_NAME}, {"hasindexes", PGT_BOOL},  {"ispopulated", PGT_BOOL},
  {"definition", PGT_TEXT},
};

static int pgcat_fill_pg_matviews(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_nviews; i++) {
    const cat_view_t *v = s->cs_views[i];
    const cat_table_t *t = v->cw_kind == 'm' ? cat_table_by_oid(s, v->cw_oid) : NULL;
    if (!t)
      continue;
    bool idx = false;
    for (int k = 0; k < t->ct_nindexes; k++)
      idx |= !t->ct_indexes[k]->ci_hidden;
    pgcat_put_text(w, pgcat_schema_name(env, v->cw_schema));
    pgcat_put_text(w, v->cw_name);
    pgcat_put_text(w, pgcat_role_name(env, v->cw_owner));
    pgcat_put_null(w);
    pgcat_put_bool(w, idx);
    pgcat_put_bool(w, v->cw_populated);
    pgcat_put_text(w, pgcat_viewdef(env, v, w->pw_arena));
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- pg_rewrite: psql's \d+ asks for rules other than a view's _RETURN ---- */

static const pgcat_col_t pg_rewrite_cols[] = {
  {"oid", PGT_OID},          {"rulename", PGT_NAME},        {"ev_class", PGT_OID},
  {"ev_type", PGT_CHAR},     {"ev_enabled", PGT_CHAR},      {"is_instead", PGT_BOOL},
  {"ev_qual", PGT_PG_NODE_TREE}, {"ev_action", PGT_PG_NODE_TREE},
};

/* One _RETURN rule per view and materialized view, as PostgreSQL keeps a
 * view's query (pg_depend ties it to the relations it reads). */
static int pgcat_fill_pg_rewrite(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_nviews; i++) {
    const cat_view_t *v = s->cs_views[i];
    pgcat_put_int(w, pgcat_rule_oid(v->cw_oid));
    pgcat_put_text(w, "_RETURN");
    pgcat_put_int(w, v->cw_oid);
    pgcat_put_char(w, '1');      /* ON SELECT */
    pgcat_put_char(w, 'O');      /* enabled */
    pgcat_put_bool(w, true);
    pgcat_put_null(w);
    pgcat_put_null(w);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- information_schema.views ------------------------------------------- */

int pgcat_fill_is_views(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_nviews; i++) {
    const cat_view_t *v = s->cs_views[i];
    if (v->cw_kind != 'v')
      continue;
    cat_table_t shim = {.ct_oid = v->cw_oid, .ct_owner = v->cw_owner, .ct_name = v->cw_name};
    if (cat_table_privs(s, env->pe_user, &shim) == 0)
      continue;  /* as PostgreSQL: only what the user may use */
    pgcat_put_text(w, env->pe_database ? env->pe_database : "cadenza");
    pgcat_put_text(w, pgcat_schema_name(env, v->cw_schema));
    pgcat_put_text(w, v->cw_name);
    /* the definition only for its owner, as PostgreSQL */
    if (cat_role_is_member(s, env->pe_user, v->cw_owner))
      pgcat_put_text(w, pgcat_viewdef(env, v, w->pw_arena));
    else
      pgcat_put_null(w);
    pgcat_put_text(w, v->cw_check == 'l' ? "LOCAL" : v->cw_check ? "CASCADED" : "NONE");
    pgcat_put_text(w, v->cw_updatable ? "YES" : "NO");
    pgcat_put_text(w, v->cw_updatable ? "YES" : "NO");
    for (int k = 0; k < 3; k++)
      pgcat_put_text(w, "NO");
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- WITH CHECK OPTION ---------------------------------------------------- */

/* _cz_view_check(cond, view): the binder's check of a row written through
 * a view WITH CHECK OPTION (sql_bind_view.c); not strict: a NULL condition
 * fails too, as the row must satisfy the view's WHERE. */
static int pf_view_check(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c, (void)x;
  if (a[0].d_null || !a[0].d_bool)
    return err_set(e, SQLSTATE_WITH_CHECK_OPTION, "new row violates check option for view \"%.*s\"",
                   a[1].d_null ? 0 : (int)a[1].d_str.s_len, a[1].d_null ? "" : a[1].d_str.s_ptr);
  out->d_null = false;
  out->d_bool = true;
  return CZ_OK;
}

const xfunc_def_t pgcat_view_funcs[] = {
  {.fd_name = "_cz_view_check", .fd_nargs = 2, .fd_args = {TY_BOOL, TY_TEXT},
   .fd_result = TY_BOOL, .fd_row = pf_view_check},
};
const int pgcat_view_nfuncs = (int)CZ_ARRAY_LEN(pgcat_view_funcs);

#define PGC CAT_OID_PG_CATALOG
const pgcat_rel_t pgcat_rels_view[] = {
  PGCAT_REL("pg_matviews", PGC, 12007, 'v', pg_matviews_cols, pgcat_fill_pg_matviews),
  PGCAT_REL("pg_rewrite", PGC, 2618, 'r', pg_rewrite_cols, pgcat_fill_pg_rewrite),
};
const int pgcat_nrels_view = (int)CZ_ARRAY_LEN(pgcat_rels_view);
