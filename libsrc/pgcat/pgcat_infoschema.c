/* pgcat_infoschema — the SQL standard's information_schema views: tables,
 * columns, schemata, views (the constraint views: pgcat_constraint.c).
 *
 * Design notes: as in PostgreSQL, these views show only what the current
 * user may use: tables on which the role holds some privilege (owners and
 * superusers hold all, cat_table_privs), and the constraints and columns
 * of those tables. pg_catalog and information_schema relations are
 * readable by everyone and are listed too. Types are PostgreSQL's domains
 * reduced to their base types (sql_identifier → name, character_data and
 * yes_or_no → varchar, cardinal_number → int4).
 */
#include <string.h>

#include "pgcat/pgcat_int.h"

static const char *pgcat_db(const pgcat_env_t *env)
{
  return env->pe_database ? env->pe_database : "cadenza";
}

static bool pgcat_may_see(const pgcat_env_t *env, const cat_table_t *t)
{
  return cat_table_privs(env->pe_snap, env->pe_user, t) != 0;
}

static bool pgcat_may_see_view(const pgcat_env_t *env, const cat_view_t *v)
{
  cat_table_t shim = {.ct_oid = v->cw_oid, .ct_owner = v->cw_owner, .ct_name = v->cw_name};
  return pgcat_may_see(env, &shim);
}

/* ---- tables ------------------------------------------------------------- */

static const pgcat_col_t is_tables_cols[] = {
  {"table_catalog", PGT_NAME},               {"table_schema", PGT_NAME},
  {"table_name", PGT_NAME},                  {"table_type", PGT_VARCHAR},
  {"self_referencing_column_name", PGT_NAME}, {"reference_generation", PGT_VARCHAR},
  {"user_defined_type_catalog", PGT_NAME},   {"user_defined_type_schema", PGT_NAME},
  {"user_defined_type_name", PGT_NAME},      {"is_insertable_into", PGT_VARCHAR},
  {"is_typed", PGT_VARCHAR},                 {"commit_action", PGT_VARCHAR},
};

static int pgcat_table_row_ins(pgcat_rows_t *w, const pgcat_env_t *env, const char *schema,
                               const char *name, bool view, bool insertable, err_t *e);

static int pgcat_table_row(pgcat_rows_t *w, const pgcat_env_t *env, const char *schema,
                           const char *name, bool view, err_t *e)
{
  return pgcat_table_row_ins(w, env, schema, name, view, !view, e);
}

static int pgcat_table_row_ins(pgcat_rows_t *w, const pgcat_env_t *env, const char *schema,
                               const char *name, bool view, bool insertable, err_t *e)
{
  pgcat_put_text(w, pgcat_db(env));
  pgcat_put_text(w, schema);
  pgcat_put_text(w, name);
  pgcat_put_text(w, view ? "VIEW" : "BASE TABLE");
  for (int i = 0; i < 5; i++)
    pgcat_put_null(w);
  pgcat_put_text(w, insertable ? "YES" : "NO");
  pgcat_put_text(w, "NO");
  pgcat_put_null(w);
  return pgcat_row_end(w, e);
}

static int pgcat_fill_is_tables(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    if (pgcat_may_see(env, t) && !cat_view_by_oid(s, t->ct_oid) &&  /* not materialized views */
        pgcat_table_row(w, env, pgcat_schema_name(env, t->ct_schema), t->ct_name, false, e))
      return CZ_ERR;
  }
  for (int i = 0; i < s->cs_nviews; i++) {
    const cat_view_t *v = s->cs_views[i];
    if (v->cw_kind == 'v' && pgcat_may_see_view(env, v) &&
        pgcat_table_row_ins(w, env, pgcat_schema_name(env, v->cw_schema), v->cw_name, true,
                            v->cw_updatable, e))
      return CZ_ERR;
  }
  for (int i = 0, n = pgcat_nrels(); i < n; i++) {
    const pgcat_rel_t *r = pgcat_rel_at(i);
    if (pgcat_table_row(w, env, pgcat_rel_schema(r), r->pr_name, r->pr_kind == 'v', e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- columns ------------------------------------------------------------ */

static const pgcat_col_t is_columns_cols[] = {
  {"table_catalog", PGT_NAME},          {"table_schema", PGT_NAME},
  {"table_name", PGT_NAME},             {"column_name", PGT_NAME},
  {"ordinal_position", PGT_INT4},       {"column_default", PGT_VARCHAR},
  {"is_nullable", PGT_VARCHAR},         {"data_type", PGT_VARCHAR},
  {"character_maximum_length", PGT_INT4}, {"character_octet_length", PGT_INT4},
  {"numeric_precision", PGT_INT4},      {"numeric_precision_radix", PGT_INT4},
  {"numeric_scale", PGT_INT4},          {"datetime_precision", PGT_INT4},
  {"interval_type", PGT_VARCHAR},       {"interval_precision", PGT_INT4},
  {"character_set_catalog", PGT_NAME},  {"character_set_schema", PGT_NAME},
  {"character_set_name", PGT_NAME},     {"collation_catalog", PGT_NAME},
  {"collation_schema", PGT_NAME},       {"collation_name", PGT_NAME},
  {"domain_catalog", PGT_NAME},         {"domain_schema", PGT_NAME},
  {"domain_name", PGT_NAME},            {"udt_catalog", PGT_NAME},
  {"udt_schema", PGT_NAME},             {"udt_name", PGT_NAME},
  {"scope_catalog", PGT_NAME},          {"scope_schema", PGT_NAME},
  {"scope_name", PGT_NAME},             {"maximum_cardinality", PGT_INT4},
  {"dtd_identifier", PGT_NAME},         {"is_self_referencing", PGT_VARCHAR},
  {"is_identity", PGT_VARCHAR},         {"identity_generation", PGT_VARCHAR},
  {"identity_start", PGT_VARCHAR},      {"identity_increment", PGT_VARCHAR},
  {"identity_maximum", PGT_VARCHAR},    {"identity_minimum", PGT_VARCHAR},
  {"identity_cycle", PGT_VARCHAR},      {"is_generated", PGT_VARCHAR},
  {"generation_expression", PGT_VARCHAR}, {"is_updatable", PGT_VARCHAR},
};

/* The precision columns of a type: precision, radix, scale, datetime
 * precision; -1 for NULL. */
static void pgcat_type_numbers(ty_t t, int v[4])
{
  v[0] = v[1] = v[2] = v[3] = -1;
  switch (t.t_id) {
  case TY_INT2: v[0] = 16, v[1] = 2, v[2] = 0; break;
  case TY_INT4: v[0] = 32, v[1] = 2, v[2] = 0; break;
  case TY_INT8: v[0] = 64, v[1] = 2, v[2] = 0; break;
  case TY_FLOAT4: v[0] = 24, v[1] = 2; break;
  case TY_FLOAT8: v[0] = 53, v[1] = 2; break;
  case TY_NUMERIC:
    v[1] = 10;
    if (t.t_prec >= 0)
      v[0] = t.t_prec, v[2] = t.t_scale;
    break;
  case TY_DATE: v[3] = 0; break;
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
  case TY_TIME:
  case TY_TIMETZ: v[3] = t.t_prec >= 0 ? t.t_prec : 6; break;
  default: break;
  }
}

static void pgcat_put_opt(pgcat_rows_t *w, int v)
{
  if (v < 0)
    pgcat_put_null(w);
  else
    pgcat_put_int(w, v);
}

static int pgcat_column_row(pgcat_rows_t *w, const pgcat_env_t *env, const char *schema,
                            const char *table, const char *name, int pos, ty_t t,
                            const char *def, bool notnull, bool view,
                            const cat_sequence_t *ident, char ident_kind, err_t *e)
{
  arena_t *a = w->pw_arena;
  uint32_t oid = ty_pg_oid(t);
  bool str = ty_phys(t.t_id) == TP_STR && t.t_id != TY_BYTEA;
  int num[4];
  pgcat_type_numbers(t, num);
  pgcat_put_text(w, pgcat_db(env));
  pgcat_put_text(w, schema);
  pgcat_put_text(w, table);
  pgcat_put_text(w, name);
  pgcat_put_int(w, pos);
  pgcat_put_text(w, def);
  pgcat_put_text(w, notnull ? "NO" : "YES");
  pgcat_put_text(w, pgcat_format_type(oid, -1, a));
  pgcat_put_opt(w, str && t.t_len >= 0 ? t.t_len : -1);
  pgcat_put_opt(w, str ? (t.t_len >= 0 ? t.t_len * 4 : 1073741824) : -1);
  for (int i = 0; i < 4; i++)
    pgcat_put_opt(w, num[i]);
  pgcat_put_null(w);                   /* interval_type */
  pgcat_put_null(w);
  for (int i = 0; i < 3; i++)
    pgcat_put_null(w);                 /* character_set_* */
  for (int i = 0; i < 3; i++)
    pgcat_put_null(w);                 /* collation_*: the default */
  for (int i = 0; i < 3; i++)
    pgcat_put_null(w);                 /* domain_* */
  pgcat_put_text(w, pgcat_db(env));
  pgcat_put_text(w, "pg_catalog");
  pgcat_put_text(w, pgcat_type_name(oid, a));
  for (int i = 0; i < 4; i++)
    pgcat_put_null(w);                 /* scope_*, maximum_cardinality */
  pgcat_put_text(w, arena_sprintf(a, "%d", pos));
  pgcat_put_text(w, "NO");
  pgcat_put_text(w, ident_kind ? "YES" : "NO");
  if (ident_kind && ident) {           /* identity_*: its sequence's options */
    pgcat_put_text(w, ident_kind == 'a' ? "ALWAYS" : "BY DEFAULT");
    pgcat_put_text(w, arena_sprintf(a, "%lld", (long long)ident->sq_start));
    pgcat_put_text(w, arena_sprintf(a, "%lld", (long long)ident->sq_increment));
    pgcat_put_text(w, arena_sprintf(a, "%lld", (long long)ident->sq_max));
    pgcat_put_text(w, arena_sprintf(a, "%lld", (long long)ident->sq_min));
    pgcat_put_text(w, ident->sq_cycle ? "YES" : "NO");
  } else {
    for (int i = 0; i < 6; i++)
      pgcat_put_null(w);
  }
  pgcat_put_text(w, "NEVER");
  pgcat_put_null(w);
  pgcat_put_text(w, view ? "NO" : "YES");
  return pgcat_row_end(w, e);
}

static int pgcat_fill_is_columns(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    if (!pgcat_may_see(env, t) || cat_view_by_oid(s, t->ct_oid))
      continue;  /* materialized views are not listed, as in PostgreSQL */
    const char *schema = pgcat_schema_name(env, t->ct_schema);
    for (int c = 0; c < t->ct_ncols; c++) {
      const cat_column_t *col = &t->ct_cols[c];
      const cat_sequence_t *ident = NULL;
      for (int q = 0; col->cc_identity && q < s->cs_nsequences && !ident; q++)
        if (s->cs_sequences[q]->sq_owned_table == t->ct_oid &&
            s->cs_sequences[q]->sq_owned_col == c)
          ident = s->cs_sequences[q];
      /* an identity column has no column_default, as PostgreSQL's */
      if (pgcat_column_row(w, env, schema, t->ct_name, col->cc_name, col->cc_num + 1,
                           col->cc_type,
                           col->cc_identity ? NULL
                                            : pgcat_expr_text(env, col->cc_default, w->pw_arena),
                           col->cc_not_null, false, ident, col->cc_identity, e))
        return CZ_ERR;
    }
  }
  for (int i = 0; i < s->cs_nviews; i++) {
    const cat_view_t *v = s->cs_views[i];
    if (v->cw_kind != 'v' || !pgcat_may_see_view(env, v))
      continue;
    for (int c = 0; c < v->cw_ncols; c++)
      if (pgcat_column_row(w, env, pgcat_schema_name(env, v->cw_schema), v->cw_name,
                           v->cw_colnames[c], c + 1, v->cw_coltypes[c], NULL, false,
                           !v->cw_updatable, NULL, 0, e))
        return CZ_ERR;
  }
  for (int i = 0, n = pgcat_nrels(); i < n; i++) {
    const pgcat_rel_t *r = pgcat_rel_at(i);
    for (int c = 0; c < r->pr_ncols; c++)
      if (pgcat_column_row(w, env, pgcat_rel_schema(r), r->pr_name, r->pr_cols[c].pc_name, c + 1,
                           pgcat_col_type(r, c), NULL, false, r->pr_kind == 'v', NULL, 0, e))
        return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- schemata ----------------------------------------------------------- */

static const pgcat_col_t is_schemata_cols[] = {
  {"catalog_name", PGT_NAME},                  {"schema_name", PGT_NAME},
  {"schema_owner", PGT_NAME},                  {"default_character_set_catalog", PGT_NAME},
  {"default_character_set_schema", PGT_NAME},  {"default_character_set_name", PGT_NAME},
  {"sql_path", PGT_VARCHAR},
};

static int pgcat_fill_is_schemata(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_nschemas; i++) {
    pgcat_put_text(w, pgcat_db(env));
    pgcat_put_text(w, s->cs_schemas[i].cs_name);
    pgcat_put_text(w, pgcat_role_name(env, s->cs_schemas[i].cs_owner));
    for (int k = 0; k < 4; k++)
      pgcat_put_null(w);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

static const pgcat_col_t is_views_cols[] = {
  {"table_catalog", PGT_NAME},     {"table_schema", PGT_NAME},
  {"table_name", PGT_NAME},        {"view_definition", PGT_VARCHAR},
  {"check_option", PGT_VARCHAR},   {"is_updatable", PGT_VARCHAR},
  {"is_insertable_into", PGT_VARCHAR}, {"is_trigger_updatable", PGT_VARCHAR},
  {"is_trigger_deletable", PGT_VARCHAR}, {"is_trigger_insertable_into", PGT_VARCHAR},
};

/* ---- table_privileges ---------------------------------------------------- */

static const pgcat_col_t is_table_privileges_cols[] = {
  {"grantor", PGT_NAME},        {"grantee", PGT_NAME},     {"table_catalog", PGT_NAME},
  {"table_schema", PGT_NAME},   {"table_name", PGT_NAME},  {"privilege_type", PGT_VARCHAR},
  {"is_grantable", PGT_VARCHAR}, {"with_hierarchy", PGT_VARCHAR},
};

/* One row per privilege of privs (grant options: is_grantable). */
static int pgcat_priv_rows(pgcat_rows_t *w, const pgcat_env_t *env, cat_oid_t grantor,
                           cat_oid_t grantee, const char *schema, const char *name, uint32_t privs,
                           err_t *e)
{
  static const struct {
    uint32_t bit;
    const char *word;
  } kinds[] = {{CAT_PRIV_INSERT, "INSERT"}, {CAT_PRIV_SELECT, "SELECT"},
               {CAT_PRIV_UPDATE, "UPDATE"}, {CAT_PRIV_DELETE, "DELETE"}};
  const char *ge = grantee == CAT_OID_PUBLIC_ROLE ? "PUBLIC" : pgcat_role_name(env, grantee);
  for (size_t k = 0; k < CZ_ARRAY_LEN(kinds); k++) {
    if (!(privs & kinds[k].bit))
      continue;
    pgcat_put_text(w, pgcat_role_name(env, grantor));
    pgcat_put_text(w, ge);
    pgcat_put_text(w, pgcat_db(env));
    pgcat_put_text(w, schema);
    pgcat_put_text(w, name);
    pgcat_put_text(w, kinds[k].word);
    pgcat_put_text(w, privs & kinds[k].bit << CAT_PRIV_GRANT_SHIFT ? "YES" : "NO");
    pgcat_put_text(w, kinds[k].bit == CAT_PRIV_SELECT ? "YES" : "NO");
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* The privileges on tables and views: the owner's (all, grantable), then
 * each grant's. Cadenza's table privileges are four: PostgreSQL's owner
 * rows for TRUNCATE, REFERENCES and TRIGGER have no counterpart. */
static int pgcat_fill_is_table_privileges(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  const uint32_t owner_privs = CAT_PRIV_ALL | CAT_PRIV_ALL << CAT_PRIV_GRANT_SHIFT;
  for (int pass = 0; pass < 2; pass++) {
    int n = pass ? s->cs_nviews : s->cs_ntables;
    for (int i = 0; i < n; i++) {
      cat_oid_t oid, owner, schema;
      const char *name;
      if (pass) {
        const cat_view_t *v = s->cs_views[i];
        if (v->cw_kind != 'v' || !pgcat_may_see_view(env, v))
          continue;
        oid = v->cw_oid, owner = v->cw_owner, schema = v->cw_schema, name = v->cw_name;
      } else {
        const cat_table_t *t = s->cs_tables[i];
        if (!pgcat_may_see(env, t))
          continue;
        oid = t->ct_oid, owner = t->ct_owner, schema = t->ct_schema, name = t->ct_name;
      }
      const char *sn = pgcat_schema_name(env, schema);
      if (pgcat_priv_rows(w, env, owner, owner, sn, name, owner_privs, e))
        return CZ_ERR;
      for (int g = 0; g < s->cs_ngrants; g++) {
        const cat_grant_t *gr = &s->cs_grants[g];
        if (gr->cg_table == oid &&
            pgcat_priv_rows(w, env, gr->cg_grantor, gr->cg_grantee, sn, name, gr->cg_privs, e))
          return CZ_ERR;
      }
    }
  }
  return CZ_OK;
}

#define ISC CAT_OID_INFORMATION_SCHEMA
const pgcat_rel_t pgcat_rels_infoschema[] = {
  PGCAT_REL("table_privileges", ISC, 13107, 'v', is_table_privileges_cols,
            pgcat_fill_is_table_privileges),
  PGCAT_REL("tables", ISC, 13101, 'v', is_tables_cols, pgcat_fill_is_tables),
  PGCAT_REL("columns", ISC, 13102, 'v', is_columns_cols, pgcat_fill_is_columns),
  PGCAT_REL("schemata", ISC, 13103, 'v', is_schemata_cols, pgcat_fill_is_schemata),
  PGCAT_REL("views", ISC, 13106, 'v', is_views_cols, pgcat_fill_is_views),
};
const int pgcat_nrels_infoschema = (int)CZ_ARRAY_LEN(pgcat_rels_infoschema);
