/* pgcat_misc — the rest of pg_catalog: the database, roles and their
 * memberships, access methods, functions, settings, tablespaces,
 * collations, the convenience views pg_tables / pg_indexes / pg_views, and
 * the relations that exist but hold no rows in Cadenza (descriptions,
 * policies, extended statistics, publications).
 *
 * Design notes: roles come from the snapshot; the password verifier is
 * never shown (pg_authid.rolpassword is NULL, pg_roles shows '********'
 * when a password is set, as PostgreSQL does for non-superusers).
 * Settings come from the session (pgcat_env_t), so pg_settings, SHOW and
 * current_setting agree.
 */
#include <string.h>

#include "pgcat/pgcat_int.h"

/* ---- pg_database: the one database, under the name the client used ----- */

static const pgcat_col_t pg_database_cols[] = {
  {"oid", PGT_OID},             {"datname", PGT_NAME},          {"datdba", PGT_OID},
  {"encoding", PGT_INT4},       {"datlocprovider", PGT_CHAR},   {"datistemplate", PGT_BOOL},
  {"datallowconn", PGT_BOOL},   {"datconnlimit", PGT_INT4},     {"dattablespace", PGT_OID},
  {"datcollate", PGT_TEXT},     {"datctype", PGT_TEXT},         {"daticulocale", PGT_TEXT},
  {"datcollversion", PGT_TEXT}, {"datacl", PGT_ACLITEM_ARRAY},
  {"datfrozenxid", PGT_OID},    {"datminmxid", PGT_OID},
};

static int pgcat_fill_pg_database(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  pgcat_put_int(w, CAT_OID_DATABASE);
  pgcat_put_text(w, env->pe_database ? env->pe_database : "cadenza");
  pgcat_put_int(w, pgcat_builtin_owner(env));
  pgcat_put_int(w, 6);           /* PG_UTF8 */
  pgcat_put_char(w, 'c');
  pgcat_put_bool(w, false);
  pgcat_put_bool(w, true);
  pgcat_put_int(w, -1);
  pgcat_put_int(w, 1663);        /* pg_default */
  pgcat_put_text(w, "C");        /* strings compare bytewise */
  pgcat_put_text(w, "C");
  pgcat_put_null(w);
  pgcat_put_null(w);
  pgcat_put_null(w);
  pgcat_put_int(w, 0);           /* datfrozenxid */
  pgcat_put_int(w, 0);           /* datminmxid */
  return pgcat_row_end(w, e);
}

/* ---- pg_db_role_setting: ALTER ROLE / DATABASE … SET ---------------------- */

/* A setting row's items as a text[] value ('{a=1,"search_path=x, y"}'). */
static const char *pgcat_setconfig_text(arena_t *a, const cat_setting_t *st)
{
  pgcat_arr_t arr = {.pa_ndim = 1, .pa_n = st->st_n, .pa_items = (char **)st->st_items};
  arr.pa_dims[0] = st->st_n;
  return pgcat_arr_text(a, &arr, NULL);
}

static const pgcat_col_t pg_db_role_setting_cols[] = {
  {"setdatabase", PGT_OID}, {"setrole", PGT_OID}, {"setconfig", PGT_TEXT_ARRAY},
};

static int pgcat_fill_pg_db_role_setting(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  for (int i = 0; i < env->pe_snap->cs_nsettings; i++) {
    const cat_setting_t *st = &env->pe_snap->cs_settings[i];
    pgcat_put_int(w, st->st_database);
    pgcat_put_int(w, st->st_role);
    pgcat_put_text(w, pgcat_setconfig_text(w->pw_arena, st));
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- roles ---------------------------------------------------------------- */

static const pgcat_col_t pg_roles_cols[] = {
  {"rolname", PGT_NAME},       {"rolsuper", PGT_BOOL},         {"rolinherit", PGT_BOOL},
  {"rolcreaterole", PGT_BOOL}, {"rolcreatedb", PGT_BOOL},      {"rolcanlogin", PGT_BOOL},
  {"rolreplication", PGT_BOOL}, {"rolconnlimit", PGT_INT4},    {"rolpassword", PGT_TEXT},
  {"rolvaliduntil", PGT_TIMESTAMPTZ}, {"rolbypassrls", PGT_BOOL}, {"rolconfig", PGT_TEXT_ARRAY},
  {"oid", PGT_OID},
};

static int pgcat_fill_pg_roles(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  for (int i = 0; i < env->pe_snap->cs_nroles; i++) {
    const cat_role_t *r = &env->pe_snap->cs_roles[i];
    pgcat_put_text(w, r->cr_name);
    pgcat_put_bool(w, r->cr_superuser);
    pgcat_put_bool(w, true);
    pgcat_put_bool(w, r->cr_createrole);
    pgcat_put_bool(w, r->cr_createdb);
    pgcat_put_bool(w, r->cr_login);
    pgcat_put_bool(w, false);
    pgcat_put_int(w, -1);
    pgcat_put_text(w, r->cr_verifier ? "********" : NULL);
    pgcat_put_null(w);
    pgcat_put_bool(w, r->cr_superuser);
    const cat_setting_t *st = cat_setting(env->pe_snap, 0, r->cr_oid);
    pgcat_put_text(w, st ? pgcat_setconfig_text(w->pw_arena, st) : NULL);
    pgcat_put_int(w, r->cr_oid);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

static const pgcat_col_t pg_authid_cols[] = {
  {"oid", PGT_OID},              {"rolname", PGT_NAME},        {"rolsuper", PGT_BOOL},
  {"rolinherit", PGT_BOOL},      {"rolcreaterole", PGT_BOOL},  {"rolcreatedb", PGT_BOOL},
  {"rolcanlogin", PGT_BOOL},     {"rolreplication", PGT_BOOL}, {"rolbypassrls", PGT_BOOL},
  {"rolconnlimit", PGT_INT4},    {"rolpassword", PGT_TEXT},    {"rolvaliduntil", PGT_TIMESTAMPTZ},
};

static int pgcat_fill_pg_authid(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  for (int i = 0; i < env->pe_snap->cs_nroles; i++) {
    const cat_role_t *r = &env->pe_snap->cs_roles[i];
    pgcat_put_int(w, r->cr_oid);
    pgcat_put_text(w, r->cr_name);
    pgcat_put_bool(w, r->cr_superuser);
    pgcat_put_bool(w, true);
    pgcat_put_bool(w, r->cr_createrole);
    pgcat_put_bool(w, r->cr_createdb);
    pgcat_put_bool(w, r->cr_login);
    pgcat_put_bool(w, false);
    pgcat_put_bool(w, r->cr_superuser);
    pgcat_put_int(w, -1);
    pgcat_put_null(w);             /* the verifier stays in the catalog */
    pgcat_put_null(w);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

static const pgcat_col_t pg_user_cols[] = {
  {"usename", PGT_NAME},     {"usesysid", PGT_OID},        {"usecreatedb", PGT_BOOL},
  {"usesuper", PGT_BOOL},    {"userepl", PGT_BOOL},        {"usebypassrls", PGT_BOOL},
  {"passwd", PGT_TEXT},      {"valuntil", PGT_TIMESTAMPTZ}, {"useconfig", PGT_TEXT_ARRAY},
};

static int pgcat_fill_pg_user(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  for (int i = 0; i < env->pe_snap->cs_nroles; i++) {
    const cat_role_t *r = &env->pe_snap->cs_roles[i];
    if (!r->cr_login)
      continue;
    pgcat_put_text(w, r->cr_name);
    pgcat_put_int(w, r->cr_oid);
    pgcat_put_bool(w, r->cr_createdb);
    pgcat_put_bool(w, r->cr_superuser);
    pgcat_put_bool(w, false);
    pgcat_put_bool(w, r->cr_superuser);
    pgcat_put_text(w, "********");
    pgcat_put_null(w);
    pgcat_put_null(w);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

static const pgcat_col_t pg_auth_members_cols[] = {
  {"roleid", PGT_OID}, {"member", PGT_OID}, {"grantor", PGT_OID}, {"admin_option", PGT_BOOL},
};

static int pgcat_fill_pg_auth_members(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  for (int i = 0; i < env->pe_snap->cs_nmembers; i++) {
    const cat_member_t *m = &env->pe_snap->cs_members[i];
    pgcat_put_int(w, m->cm_role);
    pgcat_put_int(w, m->cm_member);
    pgcat_put_int(w, m->cm_grantor);
    pgcat_put_bool(w, m->cm_admin);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- constant tables -------------------------------------------------------- */

static const pgcat_col_t pg_am_cols[] = {
  {"oid", PGT_OID}, {"amname", PGT_NAME}, {"amhandler", PGT_REGPROC}, {"amtype", PGT_CHAR},
};

static int pgcat_fill_pg_am(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  (void)env;
  /* tables are B-trees too, but clients expect the table AM to be heap */
  pgcat_put_int(w, 2);
  pgcat_put_text(w, "heap");
  pgcat_put_text(w, "heap_tableam_handler");
  pgcat_put_char(w, 't');
  if (pgcat_row_end(w, e))
    return CZ_ERR;
  pgcat_put_int(w, 403);
  pgcat_put_text(w, "btree");
  pgcat_put_text(w, "bthandler");
  pgcat_put_char(w, 'i');
  return pgcat_row_end(w, e);
}

static const pgcat_col_t pg_tablespace_cols[] = {
  {"oid", PGT_OID},               {"spcname", PGT_NAME},         {"spcowner", PGT_OID},
  {"spcacl", PGT_ACLITEM_ARRAY},  {"spcoptions", PGT_TEXT_ARRAY},
};

static int pgcat_fill_pg_tablespace(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  static const struct {
    cat_oid_t oid;
    const char *name;
  } spc[] = {{1663, "pg_default"}, {1664, "pg_global"}};
  for (size_t i = 0; i < CZ_ARRAY_LEN(spc); i++) {
    pgcat_put_int(w, spc[i].oid);
    pgcat_put_text(w, spc[i].name);
    pgcat_put_int(w, pgcat_builtin_owner(env));
    pgcat_put_null(w);
    pgcat_put_null(w);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

static const pgcat_col_t pg_collation_cols[] = {
  {"oid", PGT_OID},                 {"collname", PGT_NAME},      {"collnamespace", PGT_OID},
  {"collowner", PGT_OID},           {"collprovider", PGT_CHAR},  {"collisdeterministic", PGT_BOOL},
  {"collencoding", PGT_INT4},       {"collcollate", PGT_TEXT},   {"collctype", PGT_TEXT},
  {"colliculocale", PGT_TEXT},      {"collversion", PGT_TEXT},
};

static int pgcat_fill_pg_collation(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  /* strings compare bytewise: every collation here is C */
  static const struct {
    cat_oid_t oid;
    const char *name;
    char provider;
    const char *locale;
  } coll[] = {{100, "default", 'd', NULL}, {950, "C", 'c', "C"}, {951, "POSIX", 'c', "POSIX"}};
  for (size_t i = 0; i < CZ_ARRAY_LEN(coll); i++) {
    pgcat_put_int(w, coll[i].oid);
    pgcat_put_text(w, coll[i].name);
    pgcat_put_int(w, CAT_OID_PG_CATALOG);
    pgcat_put_int(w, pgcat_builtin_owner(env));
    pgcat_put_char(w, coll[i].provider);
    pgcat_put_bool(w, true);
    pgcat_put_int(w, -1);
    pgcat_put_text(w, coll[i].locale);
    pgcat_put_text(w, coll[i].locale);
    pgcat_put_null(w);
    pgcat_put_null(w);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- pg_proc: every registered function (exec's built-ins and pgcat's) ------ */

static const pgcat_col_t pg_proc_cols[] = {
  {"oid", PGT_OID},          {"proname", PGT_NAME},        {"pronamespace", PGT_OID},
  {"proowner", PGT_OID},     {"prolang", PGT_OID},         {"prokind", PGT_CHAR},
  {"proisstrict", PGT_BOOL}, {"proretset", PGT_BOOL},      {"provolatile", PGT_CHAR},
  {"pronargs", PGT_INT2},    {"prorettype", PGT_OID},      {"proargtypes", PGT_OIDVECTOR},
  {"prosrc", PGT_TEXT},
  /* the rest of PostgreSQL's columns (pg_dump reads proacl) */
  {"procost", PGT_FLOAT4},   {"prorows", PGT_FLOAT4},      {"provariadic", PGT_OID},
  {"prosecdef", PGT_BOOL},   {"proleakproof", PGT_BOOL},   {"proparallel", PGT_CHAR},
  {"pronargdefaults", PGT_INT2}, {"proallargtypes", PGT_OID_ARRAY},
  {"proargmodes", PGT_CHAR_ARRAY}, {"proargnames", PGT_TEXT_ARRAY},
  {"proargdefaults", PGT_PG_NODE_TREE}, {"probin", PGT_TEXT}, {"proconfig", PGT_TEXT_ARRAY},
  {"proacl", PGT_ACLITEM_ARRAY},
};

uint32_t pgcat_fn_type(int t)
{
  if (t < 0)
    return 2276; /* "any" */
  return ty_pg_oid(ty_plain((ty_id_t)t));
}

static int pgcat_fill_pg_proc(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  int nf = xfunc_count();
  for (int i = 0; i < nf; i++) {
    const xfunc_def_t *f = xfunc_at(i);
    char *args = arena_strdup(w->pw_arena, "");
    for (int k = 0; k < f->fd_nargs; k++)
      args = arena_sprintf(w->pw_arena, "%s%s%u", args, k ? " " : "", pgcat_fn_type(f->fd_args[k]));
    pgcat_put_int(w, PGCAT_FIRST_PROC_OID + i);
    pgcat_put_text(w, f->fd_name);
    pgcat_put_int(w, CAT_OID_PG_CATALOG);
    pgcat_put_int(w, pgcat_builtin_owner(env));
    pgcat_put_int(w, 12);                       /* internal */
    pgcat_put_char(w, 'f');
    pgcat_put_bool(w, (f->fd_flags & XF_STRICT) != 0);
    pgcat_put_bool(w, false);
    pgcat_put_char(w, (f->fd_flags & XF_VOLATILE) ? 'v' : 's');
    pgcat_put_int(w, f->fd_nargs);
    pgcat_put_int(w, pgcat_fn_type(f->fd_result));
    pgcat_put_text(w, args);
    pgcat_put_text(w, f->fd_name);
    pgcat_put_f64(w, 1);                        /* procost */
    pgcat_put_f64(w, 0);                        /* prorows */
    pgcat_put_int(w, 0);                        /* provariadic */
    pgcat_put_bool(w, false);
    pgcat_put_bool(w, false);
    pgcat_put_char(w, 's');                     /* proparallel: safe */
    pgcat_put_int(w, 0);
    for (int k = 0; k < 6; k++)                 /* no modes, names, defaults, config */
      pgcat_put_null(w);
    pgcat_put_null(w);                          /* proacl: the default, EXECUTE for all */
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- pg_operator: the operators the SQL grammar knows -------------------------
 *
 * The binder resolves an operator by its operands' types (exec's xop_resolve
 * and the function registry), so each symbol is listed once with "any"
 * (2276) operands and result; the list is the grammar's (sql_gram.y a_expr)
 * and changes with it. Tools (and the expression fuzzer) enumerate it. */

static const pgcat_col_t pg_operator_cols[] = {
  {"oid", PGT_OID},        {"oprname", PGT_NAME},  {"oprnamespace", PGT_OID},
  {"oprowner", PGT_OID},   {"oprkind", PGT_CHAR},  {"oprleft", PGT_OID},
  {"oprright", PGT_OID},   {"oprresult", PGT_OID},
  {"oprcanmerge", PGT_BOOL}, {"oprcanhash", PGT_BOOL}, {"oprcom", PGT_OID},
  {"oprnegate", PGT_OID},  {"oprcode", PGT_REGPROC}, {"oprrest", PGT_REGPROC},
  {"oprjoin", PGT_REGPROC},
};

static const struct {
  const char *po_name;
  char po_kind; /* 'b' binary, 'l' prefix */
} pgcat_operators[] = {
  {"=", 'b'},  {"<>", 'b'},  {"!=", 'b'},   {"<", 'b'},    {"<=", 'b'}, {">", 'b'},
  {">=", 'b'}, {"+", 'b'},   {"-", 'b'},    {"*", 'b'},    {"/", 'b'},  {"%", 'b'},
  {"^", 'b'},  {"||", 'b'},  {"~~", 'b'},   {"!~~", 'b'},  {"~~*", 'b'}, {"!~~*", 'b'},
  {"~", 'b'},  {"~*", 'b'},  {"!~", 'b'},   {"!~*", 'b'},  {"-", 'l'},  {"+", 'l'},
};

#define PGCAT_FIRST_OPERATOR_OID 15900

static int pgcat_fill_pg_operator(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  for (int i = 0; i < (int)CZ_ARRAY_LEN(pgcat_operators); i++) {
    pgcat_put_int(w, PGCAT_FIRST_OPERATOR_OID + i);
    pgcat_put_text(w, pgcat_operators[i].po_name);
    pgcat_put_int(w, CAT_OID_PG_CATALOG);
    pgcat_put_int(w, pgcat_builtin_owner(env));
    pgcat_put_char(w, pgcat_operators[i].po_kind);
    pgcat_put_int(w, pgcat_operators[i].po_kind == 'l' ? 0 : 2276);
    pgcat_put_int(w, 2276);
    pgcat_put_int(w, 2276);
    pgcat_put_bool(w, false);
    pgcat_put_bool(w, false);
    pgcat_put_int(w, 0);
    pgcat_put_int(w, 0);
    for (int k = 0; k < 3; k++)  /* resolved by the binder, not through a function */
      pgcat_put_null(w);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- pg_settings -------------------------------------------------------------- */

static const pgcat_col_t pg_settings_cols[] = {
  {"name", PGT_TEXT},       {"setting", PGT_TEXT},     {"unit", PGT_TEXT},
  {"category", PGT_TEXT},   {"short_desc", PGT_TEXT},  {"extra_desc", PGT_TEXT},
  {"context", PGT_TEXT},    {"vartype", PGT_TEXT},     {"source", PGT_TEXT},
  {"min_val", PGT_TEXT},    {"max_val", PGT_TEXT},     {"enumvals", PGT_TEXT_ARRAY},
  {"boot_val", PGT_TEXT},   {"reset_val", PGT_TEXT},   {"sourcefile", PGT_TEXT},
  {"sourceline", PGT_INT4}, {"pending_restart", PGT_BOOL},
};

static int pgcat_fill_pg_settings(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  for (int i = 0; i < env->pe_nsettings; i++) {
    const pgcat_setting_t *s = &env->pe_settings[i];
    pgcat_put_text(w, s->pst_name);
    pgcat_put_text(w, s->pst_value);
    pgcat_put_null(w);
    pgcat_put_text(w, "Client Connection Defaults");
    pgcat_put_text(w, "");
    pgcat_put_null(w);
    pgcat_put_text(w, "user");
    pgcat_put_text(w, "string");
    pgcat_put_text(w, "session");
    pgcat_put_null(w);
    pgcat_put_null(w);
    pgcat_put_null(w);
    pgcat_put_null(w);
    pgcat_put_text(w, s->pst_value);
    pgcat_put_null(w);
    pgcat_put_null(w);
    pgcat_put_bool(w, false);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- pg_tables, pg_indexes, pg_views -------------------------------------------- */

static const pgcat_col_t pg_tables_cols[] = {
  {"schemaname", PGT_NAME}, {"tablename", PGT_NAME},   {"tableowner", PGT_NAME},
  {"tablespace", PGT_NAME}, {"hasindexes", PGT_BOOL},  {"hasrules", PGT_BOOL},
  {"hastriggers", PGT_BOOL}, {"rowsecurity", PGT_BOOL},
};

static int pgcat_fill_pg_tables(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    if (cat_view_by_oid(s, t->ct_oid))
      continue;  /* a materialized view's table: pg_matviews */
    bool idx = false;
    for (int k = 0; k < t->ct_nindexes; k++)
      idx |= !t->ct_indexes[k]->ci_hidden;
    pgcat_put_text(w, pgcat_schema_name(env, t->ct_schema));
    pgcat_put_text(w, t->ct_name);
    pgcat_put_text(w, pgcat_role_name(env, t->ct_owner));
    pgcat_put_null(w);
    pgcat_put_bool(w, idx);
    pgcat_put_bool(w, false);
    pgcat_put_bool(w, false);
    pgcat_put_bool(w, false);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

static const pgcat_col_t pg_indexes_cols[] = {
  {"schemaname", PGT_NAME}, {"tablename", PGT_NAME}, {"indexname", PGT_NAME},
  {"tablespace", PGT_NAME}, {"indexdef", PGT_TEXT},
};

static int pgcat_fill_pg_indexes(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_nindexes; i++) {
    const cat_index_t *ix = s->cs_indexes[i];
    if (ix->ci_hidden)
      continue;
    pgcat_put_text(w, pgcat_schema_name(env, ix->ci_table->ct_schema));
    pgcat_put_text(w, ix->ci_table->ct_name);
    pgcat_put_text(w, ix->ci_name);
    pgcat_put_null(w);
    pgcat_put_text(w, pgcat_indexdef(env, ix, 0, w->pw_arena));
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

static const pgcat_col_t pg_views_cols[] = {
  {"schemaname", PGT_NAME}, {"viewname", PGT_NAME}, {"viewowner", PGT_NAME},
  {"definition", PGT_TEXT},
};

static const pgcat_col_t pg_description_cols[] = {
  {"objoid", PGT_OID}, {"classoid", PGT_OID}, {"objsubid", PGT_INT4}, {"description", PGT_TEXT},
};

/* COMMENT ON's descriptions (catalog/cat_comment.c). */
static int pgcat_fill_pg_description(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_ncomments; i++) {
    const cat_comment_t *cm = &s->cs_comments[i];
    pgcat_put_int(w, cm->cm_objoid);
    pgcat_put_int(w, cm->cm_classoid);
    pgcat_put_int(w, cm->cm_subid);
    pgcat_put_text(w, cm->cm_text);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- relations without rows in Cadenza ---------------------------------------- */

static const pgcat_col_t pg_policy_cols[] = {
  {"oid", PGT_OID},           {"polname", PGT_NAME},        {"polrelid", PGT_OID},
  {"polcmd", PGT_CHAR},       {"polpermissive", PGT_BOOL},  {"polroles", PGT_OID_ARRAY},
  {"polqual", PGT_PG_NODE_TREE}, {"polwithcheck", PGT_PG_NODE_TREE},
};

static const pgcat_col_t pg_statistic_ext_cols[] = {
  {"oid", PGT_OID},            {"stxrelid", PGT_OID},          {"stxname", PGT_NAME},
  {"stxnamespace", PGT_OID},   {"stxowner", PGT_OID},          {"stxstattarget", PGT_INT4},
  {"stxkeys", PGT_INT2VECTOR}, {"stxkind", PGT_CHAR_ARRAY},    {"stxexprs", PGT_PG_NODE_TREE},
};

static const pgcat_col_t pg_publication_cols[] = {
  {"oid", PGT_OID},           {"pubname", PGT_NAME},     {"pubowner", PGT_OID},
  {"puballtables", PGT_BOOL}, {"pubinsert", PGT_BOOL},   {"pubupdate", PGT_BOOL},
  {"pubdelete", PGT_BOOL},    {"pubtruncate", PGT_BOOL}, {"pubviaroot", PGT_BOOL},
};

static const pgcat_col_t pg_publication_namespace_cols[] = {
  {"oid", PGT_OID}, {"pnpubid", PGT_OID}, {"pnnspid", PGT_OID},
};

static const pgcat_col_t pg_publication_rel_cols[] = {
  {"oid", PGT_OID}, {"prpubid", PGT_OID}, {"prrelid", PGT_OID}, {"prqual", PGT_PG_NODE_TREE},
  {"prattrs", PGT_INT2VECTOR},
};

#define PGC CAT_OID_PG_CATALOG
const pgcat_rel_t pgcat_rels_misc[] = {
  PGCAT_REL("pg_database", PGC, 1262, 'r', pg_database_cols, pgcat_fill_pg_database),
  PGCAT_REL("pg_authid", PGC, 1260, 'r', pg_authid_cols, pgcat_fill_pg_authid),
  PGCAT_REL("pg_db_role_setting", PGC, 2964, 'r', pg_db_role_setting_cols,
            pgcat_fill_pg_db_role_setting),
  PGCAT_REL("pg_auth_members", PGC, 1261, 'r', pg_auth_members_cols, pgcat_fill_pg_auth_members),
  PGCAT_REL("pg_am", PGC, 2601, 'r', pg_am_cols, pgcat_fill_pg_am),
  PGCAT_REL("pg_proc", PGC, 1255, 'r', pg_proc_cols, pgcat_fill_pg_proc),
  PGCAT_REL("pg_operator", PGC, 2617, 'r', pg_operator_cols, pgcat_fill_pg_operator),
  PGCAT_REL("pg_description", PGC, 2609, 'r', pg_description_cols, pgcat_fill_pg_description),
  PGCAT_REL("pg_tablespace", PGC, 1213, 'r', pg_tablespace_cols, pgcat_fill_pg_tablespace),
  PGCAT_REL("pg_collation", PGC, 3456, 'r', pg_collation_cols, pgcat_fill_pg_collation),
  PGCAT_REL("pg_policy", PGC, 3256, 'r', pg_policy_cols, pgcat_fill_empty),
  PGCAT_REL("pg_statistic_ext", PGC, 3381, 'r', pg_statistic_ext_cols, pgcat_fill_empty),
  PGCAT_REL("pg_publication", PGC, 6104, 'r', pg_publication_cols, pgcat_fill_empty),
  PGCAT_REL("pg_publication_namespace", PGC, 6237, 'r', pg_publication_namespace_cols,
            pgcat_fill_empty),
  PGCAT_REL("pg_publication_rel", PGC, 6106, 'r', pg_publication_rel_cols, pgcat_fill_empty),
  PGCAT_REL("pg_roles", PGC, 12001, 'v', pg_roles_cols, pgcat_fill_pg_roles),
  PGCAT_REL("pg_user", PGC, 12002, 'v', pg_user_cols, pgcat_fill_pg_user),
  PGCAT_REL("pg_settings", PGC, 12003, 'v', pg_settings_cols, pgcat_fill_pg_settings),
  PGCAT_REL("pg_tables", PGC, 12004, 'v', pg_tables_cols, pgcat_fill_pg_tables),
  PGCAT_REL("pg_indexes", PGC, 12005, 'v', pg_indexes_cols, pgcat_fill_pg_indexes),
  PGCAT_REL("pg_views", PGC, 12006, 'v', pg_views_cols, pgcat_fill_pg_views),
};
const int pgcat_nrels_misc = (int)CZ_ARRAY_LEN(pgcat_rels_misc);
