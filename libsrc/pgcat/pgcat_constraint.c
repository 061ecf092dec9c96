/* pgcat_constraint — constraints as PostgreSQL's catalogs show them:
 * pg_constraint (p primary keys, u UNIQUE constraints, c CHECK, f FOREIGN
 * KEY), pg_get_constraintdef, and the information_schema views
 * table_constraints, key_column_usage, referential_constraints,
 * check_constraints and constraint_column_usage.
 *
 * Design notes: a primary key's or UNIQUE constraint's OID is its index's
 * (or the table's ct_pk_oid), a CHECK's or FOREIGN KEY's its own
 * (catalog/cat_constraint.c). NOT NULL columns appear in the
 * information_schema views as CHECK constraints named
 * <schema oid>_<table oid>_<attnum>_not_null, as PostgreSQL 15 shows them.
 * A CHECK's text is the catalog's deparsed expression (every operation
 * parenthesised), so pg_get_constraintdef may differ from PostgreSQL's in
 * parentheses and implicit casts, never in meaning. */
#include <stdio.h>
#include <string.h>

#include "pgcat/pgcat_int.h"

static const char *pgcat_dbname(const pgcat_env_t *env)
{
  return env->pe_database ? env->pe_database : "cadenza";
}

static bool pgcat_can_see(const pgcat_env_t *env, const cat_table_t *t)
{
  return cat_table_privs(env->pe_snap, env->pe_user, t) != 0;
}

/* The OID pg_constraint gives an index-backed constraint. */
static cat_oid_t ix_conoid(const cat_index_t *ix)
{
  const cat_table_t *t = ix->ci_table;
  return ix->ci_primary && t->ct_pk_oid ? t->ct_pk_oid : ix->ci_oid;
}

static bool ix_is_constraint(const cat_index_t *ix)
{
  return !ix->ci_hidden && (ix->ci_primary || ix->ci_constraint);
}

static char *int2vec(arena_t *a, const int *cols, int n)
{
  char *s = NULL;
  for (int k = 0; k < n; k++)
    s = s ? arena_sprintf(a, "%s,%d", s, cols[k] + 1) : arena_sprintf(a, "%d", cols[k] + 1);
  return arena_sprintf(a, "{%s}", s ? s : "");
}

static char *col_list(arena_t *a, const cat_table_t *t, const int *cols, int n)
{
  char *s = NULL;
  for (int k = 0; k < n; k++) {
    char *q = pgcat_quote_ident(t->ct_cols[cols[k]].cc_name, a);
    s = s ? arena_sprintf(a, "%s, %s", s, q) : q;
  }
  return s ? s : arena_strdup(a, "");
}

static const char *action_sql(char c)
{
  switch (c) {
  case 'r': return "RESTRICT";
  case 'c': return "CASCADE";
  case 'n': return "SET NULL";
  case 'd': return "SET DEFAULT";
  default: return "NO ACTION";
  }
}

/* The CHECK text without one pair of outer parentheses, when it has one
 * around the whole expression. */
static const char *check_inner(const char *s, arena_t *a)
{
  size_t n = strlen(s);
  if (n < 2 || s[0] != '(' || s[n - 1] != ')')
    return s;
  int depth = 0;
  bool quote = false;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\'')
      quote = !quote;
    if (quote)
      continue;
    if (s[i] == '(')
      depth++;
    else if (s[i] == ')' && --depth == 0 && i != n - 1)
      return s;  /* (a) AND (b): the first pair closes early */
  }
  return arena_sprintf(a, "%.*s", (int)(n - 2), s + 1);
}

static char *fk_def(const pgcat_env_t *env, const cat_constraint_t *co, arena_t *a)
{
  const cat_table_t *rt = co->co_ref;
  const char *rname = pgcat_quote_ident(rt->ct_name, a);
  if (!pgcat_relation_visible(env, rt->ct_schema, rt->ct_name))
    rname = arena_sprintf(a, "%s.%s", pgcat_quote_ident(rt->ct_schema_name, a), rname);
  char *s = arena_sprintf(a, "FOREIGN KEY (%s) REFERENCES %s(%s)", col_list(a, co->co_table, co->co_keys, co->co_nkeys),
                          rname, col_list(a, rt, co->co_ref_keys, co->co_nkeys));
  if (co->co_match == 'f')
    s = arena_sprintf(a, "%s MATCH FULL", s);
  if (co->co_upd_action != 'a')
    s = arena_sprintf(a, "%s ON UPDATE %s", s, action_sql(co->co_upd_action));
  if (co->co_del_action != 'a') {
    s = arena_sprintf(a, "%s ON DELETE %s", s, action_sql(co->co_del_action));
    if (co->co_ndel_set)
      s = arena_sprintf(a, "%s (%s)", s, col_list(a, co->co_table, co->co_del_set, co->co_ndel_set));
  }
  if (co->co_deferrable)
    s = arena_sprintf(a, "%s DEFERRABLE", s);
  if (co->co_deferred)
    s = arena_sprintf(a, "%s INITIALLY DEFERRED", s);
  return s;
}

char *pgcat_constraintdef(const pgcat_env_t *env, cat_oid_t conoid, bool pretty, arena_t *a)
{
  const cat_snapshot_t *s = env->pe_snap;
  const cat_constraint_t *co = cat_constraint_by_oid(s, conoid);
  if (co && co->co_type == 'c') {
    const char *in = check_inner(co->co_check, a);
    return pretty ? arena_sprintf(a, "CHECK (%s)", in) : arena_sprintf(a, "CHECK ((%s))", in);
  }
  if (co)
    return fk_def(env, co, a);
  for (int i = 0; i < s->cs_nindexes; i++) {
    const cat_index_t *ix = s->cs_indexes[i];
    if (!ix_is_constraint(ix) || ix_conoid(ix) != conoid)
      continue;
    return arena_sprintf(a, "%s (%s)",
                         ix->ci_primary    ? "PRIMARY KEY"
                         : ix->ci_nulls_nd ? "UNIQUE NULLS NOT DISTINCT"
                                           : "UNIQUE",
                         col_list(a, ix->ci_table, ix->ci_keys, ix->ci_nkeys));
  }
  return NULL;
}

/* ---- pg_constraint ------------------------------------------------------- */

static const pgcat_col_t pg_constraint_cols[] = {
  {"oid", PGT_OID},            {"conname", PGT_NAME},         {"connamespace", PGT_OID},
  {"contype", PGT_CHAR},       {"condeferrable", PGT_BOOL},   {"condeferred", PGT_BOOL},
  {"convalidated", PGT_BOOL},  {"conrelid", PGT_OID},         {"contypid", PGT_OID},
  {"conindid", PGT_OID},       {"conparentid", PGT_OID},      {"confrelid", PGT_OID},
  {"confupdtype", PGT_CHAR},   {"confdeltype", PGT_CHAR},     {"confmatchtype", PGT_CHAR},
  {"conislocal", PGT_BOOL},    {"coninhcount", PGT_INT4},     {"connoinherit", PGT_BOOL},
  {"conkey", PGT_INT2_ARRAY},  {"confkey", PGT_INT2_ARRAY},   {"conpfeqop", PGT_OID_ARRAY},
  {"conppeqop", PGT_OID_ARRAY}, {"conffeqop", PGT_OID_ARRAY}, {"confdelsetcols", PGT_INT2_ARRAY},
  {"conexclop", PGT_OID_ARRAY}, {"conbin", PGT_PG_NODE_TREE},
};

static int pg_constraint_row(pgcat_rows_t *w, cat_oid_t oid, const char *name, const cat_table_t *t,
                             char type, bool deferrable, bool deferred, cat_oid_t indid,
                             const cat_constraint_t *co, const char *key, const char *bin, err_t *e)
{
  arena_t *a = w->pw_arena;
  pgcat_put_int(w, oid);
  pgcat_put_text(w, name);
  pgcat_put_int(w, t->ct_schema);
  pgcat_put_char(w, type);
  pgcat_put_bool(w, deferrable);
  pgcat_put_bool(w, deferred);
  pgcat_put_bool(w, true);
  pgcat_put_int(w, t->ct_oid);
  pgcat_put_int(w, 0);
  pgcat_put_int(w, indid);
  pgcat_put_int(w, 0);
  bool fk = co && co->co_type == 'f';
  pgcat_put_int(w, fk ? co->co_ref->ct_oid : 0);
  pgcat_put_char(w, fk ? co->co_upd_action : ' ');
  pgcat_put_char(w, fk ? co->co_del_action : ' ');
  pgcat_put_char(w, fk ? co->co_match : ' ');
  pgcat_put_bool(w, true);
  pgcat_put_int(w, 0);
  pgcat_put_bool(w, type == 'c' ? false : true);
  pgcat_put_text(w, key);
  pgcat_put_text(w, fk ? int2vec(a, co->co_ref_keys, co->co_nkeys) : NULL);
  for (int k = 0; k < 3; k++)
    pgcat_put_null(w);
  pgcat_put_text(w, fk && co->co_ndel_set ? int2vec(a, co->co_del_set, co->co_ndel_set) : NULL);
  pgcat_put_null(w);
  pgcat_put_text(w, bin);
  return pgcat_row_end(w, e);
}

static int pgcat_fill_pg_constraint(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  arena_t *a = w->pw_arena;
  for (int i = 0; i < s->cs_nindexes; i++) {
    const cat_index_t *ix = s->cs_indexes[i];
    if (!ix_is_constraint(ix))
      continue;
    if (pg_constraint_row(w, ix_conoid(ix), ix->ci_name, ix->ci_table, ix->ci_primary ? 'p' : 'u', false,
                          false, ix->ci_oid, NULL, int2vec(a, ix->ci_keys, ix->ci_nkeys), NULL, e))
      return CZ_ERR;
  }
  for (int i = 0; i < s->cs_nconstraints; i++) {
    const cat_constraint_t *co = s->cs_constraints[i];
    if (pg_constraint_row(w, co->co_oid, co->co_name, co->co_table, co->co_type, co->co_deferrable,
                          co->co_deferred, co->co_type == 'f' ? co->co_ref_index->ci_oid : 0, co,
                          int2vec(a, co->co_keys, co->co_nkeys), co->co_type == 'c' ? co->co_check : NULL,
                          e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- information_schema ---------------------------------------------------- */

static const pgcat_col_t is_table_constraints_cols[] = {
  {"constraint_catalog", PGT_NAME}, {"constraint_schema", PGT_NAME},
  {"constraint_name", PGT_NAME},    {"table_catalog", PGT_NAME},
  {"table_schema", PGT_NAME},       {"table_name", PGT_NAME},
  {"constraint_type", PGT_VARCHAR}, {"is_deferrable", PGT_VARCHAR},
  {"initially_deferred", PGT_VARCHAR}, {"enforced", PGT_VARCHAR},
  {"nulls_distinct", PGT_VARCHAR},
};

static void put_names(pgcat_rows_t *w, const pgcat_env_t *env, const cat_table_t *t, const char *con)
{
  const char *schema = pgcat_schema_name(env, t->ct_schema);
  pgcat_put_text(w, pgcat_dbname(env));
  pgcat_put_text(w, schema);
  pgcat_put_text(w, con);
  pgcat_put_text(w, pgcat_dbname(env));
  pgcat_put_text(w, schema);
  pgcat_put_text(w, t->ct_name);
}

static const char *notnull_name(arena_t *a, const cat_table_t *t, int c)
{
  return arena_sprintf(a, "%u_%u_%d_not_null", (unsigned)t->ct_schema, (unsigned)t->ct_oid, c + 1);
}

static int tc_row(pgcat_rows_t *w, const pgcat_env_t *env, const cat_table_t *t, const char *name,
                  const char *type, bool deferrable, bool deferred, err_t *e)
{
  put_names(w, env, t, name);
  pgcat_put_text(w, type);
  pgcat_put_text(w, deferrable ? "YES" : "NO");
  pgcat_put_text(w, deferred ? "YES" : "NO");
  pgcat_put_text(w, "YES");
  pgcat_put_text(w, strcmp(type, "UNIQUE") == 0 ? "YES" : NULL);
  return pgcat_row_end(w, e);
}

static int pgcat_fill_is_table_constraints(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    if (!pgcat_can_see(env, t))
      continue;
    for (int k = 0; k < t->ct_nindexes; k++) {
      const cat_index_t *ix = t->ct_indexes[k];
      if (ix_is_constraint(ix) &&
          tc_row(w, env, t, ix->ci_name, ix->ci_primary ? "PRIMARY KEY" : "UNIQUE", false, false, e))
        return CZ_ERR;
    }
    for (int k = 0; k < t->ct_ncons; k++) {
      const cat_constraint_t *co = t->ct_cons[k];
      if (tc_row(w, env, t, co->co_name, co->co_type == 'c' ? "CHECK" : "FOREIGN KEY", co->co_deferrable,
                 co->co_deferred, e))
        return CZ_ERR;
    }
    for (int c = 0; c < t->ct_ncols; c++)
      if (t->ct_cols[c].cc_not_null &&
          tc_row(w, env, t, notnull_name(w->pw_arena, t, c), "CHECK", false, false, e))
        return CZ_ERR;
  }
  return CZ_OK;
}

static const pgcat_col_t is_key_column_usage_cols[] = {
  {"constraint_catalog", PGT_NAME}, {"constraint_schema", PGT_NAME},
  {"constraint_name", PGT_NAME},    {"table_catalog", PGT_NAME},
  {"table_schema", PGT_NAME},       {"table_name", PGT_NAME},
  {"column_name", PGT_NAME},        {"ordinal_position", PGT_INT4},
  {"position_in_unique_constraint", PGT_INT4},
};

static int pgcat_fill_is_key_column_usage(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    if (!pgcat_can_see(env, t))
      continue;
    for (int k = 0; k < t->ct_nindexes; k++) {
      const cat_index_t *ix = t->ct_indexes[k];
      if (!ix_is_constraint(ix))
        continue;
      for (int j = 0; j < ix->ci_nkeys; j++) {
        put_names(w, env, t, ix->ci_name);
        pgcat_put_text(w, t->ct_cols[ix->ci_keys[j]].cc_name);
        pgcat_put_int(w, j + 1);
        pgcat_put_null(w);
        if (pgcat_row_end(w, e))
          return CZ_ERR;
      }
    }
    for (int k = 0; k < t->ct_ncons; k++) {
      const cat_constraint_t *co = t->ct_cons[k];
      if (co->co_type != 'f')
        continue;
      for (int j = 0; j < co->co_nkeys; j++) {
        put_names(w, env, t, co->co_name);
        pgcat_put_text(w, t->ct_cols[co->co_keys[j]].cc_name);
        pgcat_put_int(w, j + 1);
        int pos = 0;
        for (int m = 0; m < co->co_ref_index->ci_nkeys; m++)
          if (co->co_ref_index->ci_keys[m] == co->co_ref_keys[j])
            pos = m + 1;
        pgcat_put_int(w, pos);
        if (pgcat_row_end(w, e))
          return CZ_ERR;
      }
    }
  }
  return CZ_OK;
}

static const pgcat_col_t is_referential_constraints_cols[] = {
  {"constraint_catalog", PGT_NAME},        {"constraint_schema", PGT_NAME},
  {"constraint_name", PGT_NAME},           {"unique_constraint_catalog", PGT_NAME},
  {"unique_constraint_schema", PGT_NAME},  {"unique_constraint_name", PGT_NAME},
  {"match_option", PGT_VARCHAR},           {"update_rule", PGT_VARCHAR},
  {"delete_rule", PGT_VARCHAR},
};

static int pgcat_fill_is_referential_constraints(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_nconstraints; i++) {
    const cat_constraint_t *co = s->cs_constraints[i];
    if (co->co_type != 'f' || !pgcat_can_see(env, co->co_table))
      continue;
    const char *schema = pgcat_schema_name(env, co->co_table->ct_schema);
    pgcat_put_text(w, pgcat_dbname(env));
    pgcat_put_text(w, schema);
    pgcat_put_text(w, co->co_name);
    pgcat_put_text(w, pgcat_dbname(env));
    pgcat_put_text(w, pgcat_schema_name(env, co->co_ref->ct_schema));
    pgcat_put_text(w, co->co_ref_index->ci_name);
    pgcat_put_text(w, co->co_match == 'f' ? "FULL" : "NONE");
    pgcat_put_text(w, action_sql(co->co_upd_action));
    pgcat_put_text(w, action_sql(co->co_del_action));
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

static const pgcat_col_t is_check_constraints_cols[] = {
  {"constraint_catalog", PGT_NAME}, {"constraint_schema", PGT_NAME},
  {"constraint_name", PGT_NAME},    {"check_clause", PGT_VARCHAR},
};

static int pgcat_fill_is_check_constraints(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  arena_t *a = w->pw_arena;
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    if (!pgcat_can_see(env, t))
      continue;
    const char *schema = pgcat_schema_name(env, t->ct_schema);
    for (int k = 0; k < t->ct_ncons; k++) {
      const cat_constraint_t *co = t->ct_cons[k];
      if (co->co_type != 'c')
        continue;
      pgcat_put_text(w, pgcat_dbname(env));
      pgcat_put_text(w, schema);
      pgcat_put_text(w, co->co_name);
      pgcat_put_text(w, arena_sprintf(a, "(%s)", check_inner(co->co_check, a)));
      if (pgcat_row_end(w, e))
        return CZ_ERR;
    }
    for (int c = 0; c < t->ct_ncols; c++) {
      if (!t->ct_cols[c].cc_not_null)
        continue;
      pgcat_put_text(w, pgcat_dbname(env));
      pgcat_put_text(w, schema);
      pgcat_put_text(w, notnull_name(a, t, c));
      pgcat_put_text(w, arena_sprintf(a, "%s IS NOT NULL", pgcat_quote_ident(t->ct_cols[c].cc_name, a)));
      if (pgcat_row_end(w, e))
        return CZ_ERR;
    }
  }
  return CZ_OK;
}

static const pgcat_col_t is_constraint_column_usage_cols[] = {
  {"table_catalog", PGT_NAME},      {"table_schema", PGT_NAME},
  {"table_name", PGT_NAME},         {"column_name", PGT_NAME},
  {"constraint_catalog", PGT_NAME}, {"constraint_schema", PGT_NAME},
  {"constraint_name", PGT_NAME},
};

static int ccu_row(pgcat_rows_t *w, const pgcat_env_t *env, const cat_table_t *t, int col,
                   const cat_table_t *ct, const char *con, err_t *e)
{
  pgcat_put_text(w, pgcat_dbname(env));
  pgcat_put_text(w, pgcat_schema_name(env, t->ct_schema));
  pgcat_put_text(w, t->ct_name);
  pgcat_put_text(w, t->ct_cols[col].cc_name);
  pgcat_put_text(w, pgcat_dbname(env));
  pgcat_put_text(w, pgcat_schema_name(env, ct->ct_schema));
  pgcat_put_text(w, con);
  return pgcat_row_end(w, e);
}

/* The columns each constraint uses: a key's columns, a CHECK's, and for
 * a foreign key the referenced columns (PostgreSQL's definition). */
static int pgcat_fill_is_constraint_column_usage(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    if (!pgcat_can_see(env, t))
      continue;
    for (int k = 0; k < t->ct_nindexes; k++) {
      const cat_index_t *ix = t->ct_indexes[k];
      for (int j = 0; ix_is_constraint(ix) && j < ix->ci_nkeys; j++)
        if (ccu_row(w, env, t, ix->ci_keys[j], t, ix->ci_name, e))
          return CZ_ERR;
    }
    for (int k = 0; k < t->ct_ncons; k++) {
      const cat_constraint_t *co = t->ct_cons[k];
      for (int j = 0; j < co->co_nkeys; j++) {
        int rc = co->co_type == 'c' ? ccu_row(w, env, t, co->co_keys[j], t, co->co_name, e)
                                    : ccu_row(w, env, co->co_ref, co->co_ref_keys[j], t, co->co_name, e);
        if (rc)
          return CZ_ERR;
      }
    }
  }
  return CZ_OK;
}

/* ---- pg_trigger: empty. Foreign keys are enforced without triggers (the
 * engine checks them, en_cons.c); pg_class.relhastriggers is still true
 * for their tables, which is what makes psql look for them. */
static const pgcat_col_t pg_trigger_cols[] = {
  {"oid", PGT_OID},             {"tgrelid", PGT_OID},          {"tgparentid", PGT_OID},
  {"tgname", PGT_NAME},         {"tgfoid", PGT_OID},           {"tgtype", PGT_INT2},
  {"tgenabled", PGT_CHAR},      {"tgisinternal", PGT_BOOL},    {"tgconstrrelid", PGT_OID},
  {"tgconstrindid", PGT_OID},   {"tgconstraint", PGT_OID},     {"tgdeferrable", PGT_BOOL},
  {"tginitdeferred", PGT_BOOL}, {"tgnargs", PGT_INT2},         {"tgattr", PGT_INT2VECTOR},
  {"tgargs", PGT_TEXT},         {"tgqual", PGT_PG_NODE_TREE},  {"tgoldtable", PGT_NAME},
  {"tgnewtable", PGT_NAME},
};

#define ISC CAT_OID_INFORMATION_SCHEMA
const pgcat_rel_t pgcat_rels_constraint[] = {
  PGCAT_REL("pg_trigger", CAT_OID_PG_CATALOG, 2620, 'r', pg_trigger_cols, pgcat_fill_empty),
  PGCAT_REL("pg_constraint", CAT_OID_PG_CATALOG, 2606, 'r', pg_constraint_cols,
            pgcat_fill_pg_constraint),
  PGCAT_REL("table_constraints", ISC, 13104, 'v', is_table_constraints_cols,
            pgcat_fill_is_table_constraints),
  PGCAT_REL("key_column_usage", ISC, 13105, 'v', is_key_column_usage_cols,
            pgcat_fill_is_key_column_usage),
  PGCAT_REL("referential_constraints", ISC, 13120, 'v', is_referential_constraints_cols,
            pgcat_fill_is_referential_constraints),
  PGCAT_REL("check_constraints", ISC, 13121, 'v', is_check_constraints_cols,
            pgcat_fill_is_check_constraints),
  PGCAT_REL("constraint_column_usage", ISC, 13122, 'v', is_constraint_column_usage_cols,
            pgcat_fill_is_constraint_column_usage),
};
const int pgcat_nrels_constraint = (int)CZ_ARRAY_LEN(pgcat_rels_constraint);
