/* pgcat_class — relations and their parts: pg_namespace, pg_class,
 * pg_attribute, pg_index, pg_attrdef, pg_inherits (pg_constraint: pgcat_constraint.c); and the
 * text of an index's or constraint's definition.
 *
 * Design notes: every row is derived from the snapshot's schemas, tables
 * and indexes, plus the virtual relations of pgcat itself (so that
 * `\d pg_class` and 'pg_class'::regclass work). A table's hidden primary
 * tree (no PRIMARY KEY) is storage, not an index: it has no pg_class,
 * pg_index or pg_attribute rows. Defaults are kept as SQL text in the
 * catalog, and that text is what pg_attrdef.adbin holds and pg_get_expr
 * returns (PostgreSQL stores a node tree and deparses it; the SQL text is
 * what a client shows either way).
 */
#include <string.h>

#include "pgcat/pgcat_int.h"

/* pg_am OIDs of PostgreSQL */
#define PGCAT_AM_HEAP 2
#define PGCAT_AM_BTREE 403
#define PGCAT_COLL_DEFAULT 100

cat_oid_t pgcat_attrdef_oid(cat_oid_t table, int attnum)
{
  /* user OIDs stay far below 2^21, so this is unique and clear of them */
  return (cat_oid_t)((table << 11) | (uint32_t)attnum);
}

/* PostgreSQL's storage attributes of a column type. */
static bool pgcat_byval(ty_t t)
{
  int16_t len = ty_pg_typlen(t);
  return len == 1 || len == 2 || len == 4 || len == 8;
}

static char pgcat_align(ty_t t)
{
  switch (ty_pg_typlen(t)) {
  case 1: return 'c';
  case 2: return 's';
  case 8: return 'd';
  default: return 'i';
  }
}

static uint32_t pgcat_collation(ty_t t)
{
  return ty_phys(t.t_id) == TP_STR && t.t_id != TY_BYTEA ? PGCAT_COLL_DEFAULT : 0;
}

/* ---- aclitem text --------------------------------------------------------- */

/* One aclitem as PostgreSQL prints it: grantee=letters/grantor (an empty
 * grantee is PUBLIC), each letter followed by '*' when its grant option is
 * held. letters[i] stands for privilege bit bits[i]. */
static char *pgcat_aclitem(const pgcat_env_t *env, arena_t *a, cat_oid_t grantee,
                           cat_oid_t grantor, uint32_t privs, const char *letters,
                           const uint32_t *bits)
{
  char p[32];
  size_t n = 0;
  for (int i = 0; letters[i] && n + 2 < sizeof p; i++) {
    if (!(privs & bits[i]))
      continue;
    p[n++] = letters[i];
    if (privs & bits[i] << CAT_PRIV_GRANT_SHIFT)
      p[n++] = '*';
  }
  p[n] = 0;
  const char *ge = grantee == CAT_OID_PUBLIC_ROLE ? "" : pgcat_role_name(env, grantee);
  const char *gr = pgcat_role_name(env, grantor);
  return arena_sprintf(a, "%s=%s/%s", ge ? ge : "", p, gr ? gr : "");
}

static const uint32_t pgcat_table_bits[] = {CAT_PRIV_INSERT, CAT_PRIV_SELECT, CAT_PRIV_UPDATE,
                                            CAT_PRIV_DELETE};
static const uint32_t pgcat_schema_bits[] = {CAT_PRIV_USAGE, CAT_PRIV_CREATE};

/* A schema's nspacl: NULL for the default (the owner alone), else the
 * owner's item (every privilege: owners keep theirs here) and the list's. */
static const char *pgcat_schema_acl(const pgcat_env_t *env, const cat_schema_t *sc, arena_t *a)
{
  if (!sc->cs_acl_set)
    return NULL;
  char *acl = arena_sprintf(a, "{%s", pgcat_aclitem(env, a, sc->cs_owner, sc->cs_owner,
                                                     CAT_PRIV_SCHEMA_ALL, "UC", pgcat_schema_bits));
  for (int i = 0; i < sc->cs_nacl; i++)
    acl = arena_sprintf(a, "%s,%s", acl,
                        pgcat_aclitem(env, a, sc->cs_acl[i].ai_grantee, sc->cs_acl[i].ai_grantor,
                                      sc->cs_acl[i].ai_privs, "UC", pgcat_schema_bits));
  return arena_sprintf(a, "%s}", acl);
}

/* ---- pg_namespace -------------------------------------------------------- */

static const pgcat_col_t pg_namespace_cols[] = {
  {"oid", PGT_OID}, {"nspname", PGT_NAME}, {"nspowner", PGT_OID}, {"nspacl", PGT_ACLITEM_ARRAY},
};

static int pgcat_fill_pg_namespace(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  bool have_pgc = false, have_is = false;
  for (int i = 0; i < s->cs_nschemas; i++) {
    const cat_schema_t *sc = &s->cs_schemas[i];
    have_pgc |= sc->cs_oid == CAT_OID_PG_CATALOG;
    have_is |= sc->cs_oid == CAT_OID_INFORMATION_SCHEMA;
    pgcat_put_int(w, sc->cs_oid);
    pgcat_put_text(w, sc->cs_name);
    pgcat_put_int(w, sc->cs_owner);
    const char *acl = pgcat_schema_acl(env, sc, w->pw_arena);
    if (acl)
      pgcat_put_text(w, acl);
    else
      pgcat_put_null(w);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  /* the schemas of the virtual relations, should the catalog not list them */
  const struct {
    bool have;
    cat_oid_t oid;
    const char *name;
  } builtin[] = {{have_pgc, CAT_OID_PG_CATALOG, "pg_catalog"},
                 {have_is, CAT_OID_INFORMATION_SCHEMA, "information_schema"}};
  for (size_t i = 0; i < CZ_ARRAY_LEN(builtin); i++) {
    if (builtin[i].have)
      continue;
    pgcat_put_int(w, builtin[i].oid);
    pgcat_put_text(w, builtin[i].name);
    pgcat_put_int(w, pgcat_builtin_owner(env));
    pgcat_put_null(w);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- pg_class ------------------------------------------------------------ */

static const pgcat_col_t pg_class_cols[] = {
  {"oid", PGT_OID},                 {"relname", PGT_NAME},
  {"relnamespace", PGT_OID},        {"reltype", PGT_OID},
  {"reloftype", PGT_OID},           {"relowner", PGT_OID},
  {"relam", PGT_OID},               {"relfilenode", PGT_OID},
  {"reltablespace", PGT_OID},       {"relpages", PGT_INT4},
  {"reltuples", PGT_FLOAT4},        {"relallvisible", PGT_INT4},
  {"reltoastrelid", PGT_OID},       {"relhasindex", PGT_BOOL},
  {"relisshared", PGT_BOOL},        {"relpersistence", PGT_CHAR},
  {"relkind", PGT_CHAR},            {"relnatts", PGT_INT2},
  {"relchecks", PGT_INT2},          {"relhasrules", PGT_BOOL},
  {"relhastriggers", PGT_BOOL},     {"relhassubclass", PGT_BOOL},
  {"relrowsecurity", PGT_BOOL},     {"relforcerowsecurity", PGT_BOOL},
  {"relispopulated", PGT_BOOL},     {"relreplident", PGT_CHAR},
  {"relispartition", PGT_BOOL},     {"relrewrite", PGT_OID},
  {"relacl", PGT_ACLITEM_ARRAY},    {"reloptions", PGT_TEXT_ARRAY},
  {"relpartbound", PGT_PG_NODE_TREE},
  {"relfrozenxid", PGT_OID},        {"relminmxid", PGT_OID},
};

/* A table's privileges as PostgreSQL's aclitem[] text, or NULL when no
 * grant was ever made (the owner's default rights). */
static const char *pgcat_rel_acl(const pgcat_env_t *env, cat_oid_t oid, cat_oid_t owner_oid,
                                 arena_t *a)
{
  const cat_snapshot_t *s = env->pe_snap;
  char *acl = NULL;
  for (int i = 0; i < s->cs_ngrants; i++) {
    const cat_grant_t *g = &s->cs_grants[i];
    if (g->cg_table != oid || !g->cg_privs)
      continue;
    if (!acl)
      acl = arena_sprintf(a, "{%s", pgcat_aclitem(env, a, owner_oid, owner_oid, CAT_PRIV_ALL, "arwd",
                                                   pgcat_table_bits));
    acl = arena_sprintf(a, "%s,%s", acl,
                        pgcat_aclitem(env, a, g->cg_grantee, g->cg_grantor, g->cg_privs, "arwd",
                                      pgcat_table_bits));
  }
  return acl ? arena_sprintf(a, "%s}", acl) : NULL;
}

/* A sequence's relacl: rwU (SELECT, UPDATE, USAGE), NULL when no grant
 * was made. */
static const char *pgcat_seq_acl(const pgcat_env_t *env, const cat_sequence_t *sq, arena_t *a)
{
  static const uint32_t bits[] = {CAT_PRIV_SELECT, CAT_PRIV_UPDATE, CAT_PRIV_USAGE};
  const cat_snapshot_t *s = env->pe_snap;
  char *acl = NULL;
  for (int i = 0; i < s->cs_ngrants; i++) {
    const cat_grant_t *g = &s->cs_grants[i];
    if (g->cg_table != sq->sq_oid || !g->cg_privs)
      continue;
    if (!acl)
      acl = arena_sprintf(a, "{%s", pgcat_aclitem(env, a, sq->sq_owner, sq->sq_owner,
                                                   CAT_PRIV_SELECT | CAT_PRIV_UPDATE | CAT_PRIV_USAGE,
                                                   "rwU", bits));
    acl = arena_sprintf(a, "%s,%s", acl,
                        pgcat_aclitem(env, a, g->cg_grantee, g->cg_grantor, g->cg_privs, "rwU", bits));
  }
  return acl ? arena_sprintf(a, "%s}", acl) : NULL;
}

static const char *pgcat_table_acl(const pgcat_env_t *env, const cat_table_t *t, arena_t *a)
{
  return pgcat_rel_acl(env, t->ct_oid, t->ct_owner, a);
}

static bool pgcat_has_index(const cat_table_t *t)
{
  for (int i = 0; i < t->ct_nindexes; i++)
    if (!t->ct_indexes[i]->ci_hidden)
      return true;
  return false;
}

/* A table's rows as the catalog's statistics keep them (an index has
 * one entry per row of its table). */
static double pgcat_rows_of(const cat_table_t *t, arena_t *a)
{
  cat_tabstats_t ts;
  cat_stats_get(t, a, &ts);
  return ts.ts_rows;
}

/* reloptions of a relation stored with this layout: the row layout is
 * the default PostgreSQL shows as no option. */
static const char *pgcat_layout_option(cat_layout_t l)
{
  return l == CAT_LAYOUT_COLUMN ? "{layout=column}" : NULL;
}

/* The columns common to every pg_class row; the caller puts the rest. */
static void pgcat_class_head(pgcat_rows_t *w, cat_oid_t oid, const char *name, cat_oid_t ns,
                             cat_oid_t owner, cat_oid_t am, double tuples)
{
  pgcat_put_int(w, oid);
  pgcat_put_text(w, name);
  pgcat_put_int(w, ns);
  pgcat_put_int(w, 0);          /* reltype: no composite row types */
  pgcat_put_int(w, 0);          /* reloftype */
  pgcat_put_int(w, owner);
  pgcat_put_int(w, am);
  pgcat_put_int(w, 0);          /* relfilenode: trees are named, not numbered */
  pgcat_put_int(w, 0);          /* reltablespace: the default */
  pgcat_put_int(w, 0);          /* relpages */
  pgcat_put_f64(w, tuples);     /* reltuples: kept current (cat_stats_*); -1 unknown */
  pgcat_put_int(w, 0);          /* relallvisible */
  pgcat_put_int(w, 0);          /* reltoastrelid */
}

/* The rest of a pg_class row. t (NULL for an index or a view) gives
 * relchecks and relhastriggers; kind 'v' (a view): relhasrules, as
 * PostgreSQL's _RETURN rule makes it; populated: relispopulated (false for
 * a materialized view WITH NO DATA). */
static int pgcat_class_tail(pgcat_rows_t *w, bool hasindex, char kind, int natts,
                            const char *acl, const cat_table_t *t, bool populated,
                            const char *reloptions, err_t *e)
{
  /* CHECK constraints, and PostgreSQL's foreign key triggers (on both the
   * referencing and the referenced table: psql lists foreign keys only
   * for a table that has triggers) */
  int checks = 0;
  bool triggers = t && t->ct_nrefby > 0;
  for (int i = 0; t && i < t->ct_ncons; i++) {
    checks += t->ct_cons[i]->co_type == 'c';
    triggers |= t->ct_cons[i]->co_type == 'f';
  }
  pgcat_put_bool(w, hasindex);
  pgcat_put_bool(w, false);     /* relisshared */
  pgcat_put_char(w, 'p');       /* relpersistence: permanent */
  pgcat_put_char(w, kind);
  pgcat_put_int(w, natts);
  pgcat_put_int(w, checks);     /* relchecks */
  pgcat_put_bool(w, kind == 'v'); /* relhasrules */
  pgcat_put_bool(w, triggers);  /* relhastriggers */
  pgcat_put_bool(w, false);     /* relhassubclass */
  pgcat_put_bool(w, false);     /* relrowsecurity */
  pgcat_put_bool(w, false);     /* relforcerowsecurity */
  pgcat_put_bool(w, populated); /* relispopulated */
  pgcat_put_char(w, kind == 'r' || kind == 'm' ? 'd' : 'n');
  pgcat_put_bool(w, false);     /* relispartition */
  pgcat_put_int(w, 0);          /* relrewrite */
  pgcat_put_text(w, acl);
  pgcat_put_text(w, reloptions); /* text[]: the storage parameters (NULL none) */
  pgcat_put_null(w);            /* relpartbound */
  pgcat_put_int(w, 0);          /* relfrozenxid: no transaction id wraparound here */
  pgcat_put_int(w, 0);          /* relminmxid */
  return pgcat_row_end(w, e);
}

static int pgcat_fill_pg_class(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    const cat_view_t *mv = cat_view_by_oid(s, t->ct_oid);  /* a materialized view's table */
    pgcat_class_head(w, t->ct_oid, t->ct_name, t->ct_schema, t->ct_owner, PGCAT_AM_HEAP,
                     pgcat_rows_of(t, w->pw_arena));
    if (pgcat_class_tail(w, pgcat_has_index(t), mv ? 'm' : 'r', t->ct_ncols,
                         pgcat_table_acl(env, t, w->pw_arena), t, !mv || mv->cw_populated,
                         pgcat_layout_option(t->ct_layout), e))
      return CZ_ERR;
  }
  for (int i = 0; i < s->cs_nviews; i++) {
    const cat_view_t *v = s->cs_views[i];
    if (v->cw_kind != 'v')
      continue;
    pgcat_class_head(w, v->cw_oid, v->cw_name, v->cw_schema, v->cw_owner, 0, -1);
    if (pgcat_class_tail(w, false, 'v', v->cw_ncols,
                         pgcat_rel_acl(env, v->cw_oid, v->cw_owner, w->pw_arena), NULL, true, NULL,
                         e))
      return CZ_ERR;
  }
  for (int i = 0; i < s->cs_nindexes; i++) {
    const cat_index_t *ix = s->cs_indexes[i];
    if (ix->ci_hidden)
      continue;
    pgcat_class_head(w, ix->ci_oid, ix->ci_name, ix->ci_table->ct_schema,
                     ix->ci_table->ct_owner, PGCAT_AM_BTREE, pgcat_rows_of(ix->ci_table, w->pw_arena));
    if (pgcat_class_tail(w, false, 'i', ix->ci_nkeys + ix->ci_ninclude, NULL, NULL, true,
                         pgcat_layout_option(ix->ci_layout), e))
      return CZ_ERR;
  }
  for (int i = 0; i < s->cs_nsequences; i++) {
    const cat_sequence_t *sq = s->cs_sequences[i];
    pgcat_class_head(w, sq->sq_oid, sq->sq_name, sq->sq_schema, sq->sq_owner, 0, 1);
    /* three attributes, as PostgreSQL's: last_value, log_cnt, is_called */
    if (pgcat_class_tail(w, false, 'S', 3, pgcat_seq_acl(env, sq, w->pw_arena), NULL, true, NULL, e))
      return CZ_ERR;
  }
  cat_oid_t owner = pgcat_builtin_owner(env);
  for (int i = 0, n = pgcat_nrels(); i < n; i++) {
    const pgcat_rel_t *r = pgcat_rel_at(i);
    pgcat_class_head(w, r->pr_oid, r->pr_name, r->pr_schema, owner,
                     r->pr_kind == 'r' ? PGCAT_AM_HEAP : 0, -1);
    if (pgcat_class_tail(w, false, r->pr_kind, r->pr_ncols, NULL, NULL, true, NULL, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- pg_attribute -------------------------------------------------------- */

static const pgcat_col_t pg_attribute_cols[] = {
  {"attrelid", PGT_OID},       {"attname", PGT_NAME},         {"atttypid", PGT_OID},
  {"attstattarget", PGT_INT4}, {"attlen", PGT_INT2},          {"attnum", PGT_INT2},
  {"attndims", PGT_INT4},      {"attcacheoff", PGT_INT4},     {"atttypmod", PGT_INT4},
  {"attbyval", PGT_BOOL},      {"attalign", PGT_CHAR},        {"attstorage", PGT_CHAR},
  {"attcompression", PGT_CHAR}, {"attnotnull", PGT_BOOL},     {"atthasdef", PGT_BOOL},
  {"atthasmissing", PGT_BOOL}, {"attidentity", PGT_CHAR},     {"attgenerated", PGT_CHAR},
  {"attisdropped", PGT_BOOL},  {"attislocal", PGT_BOOL},      {"attinhcount", PGT_INT4},
  {"attcollation", PGT_OID},   {"attacl", PGT_ACLITEM_ARRAY}, {"attoptions", PGT_TEXT_ARRAY},
  {"attfdwoptions", PGT_TEXT_ARRAY}, {"attmissingval", PGT_TEXT},
};

static int pgcat_attr_row(pgcat_rows_t *w, cat_oid_t rel, const char *name, ty_t t, int attnum,
                          bool notnull, bool hasdef, char identity, err_t *e)
{
  pgcat_put_int(w, rel);
  pgcat_put_text(w, name);
  pgcat_put_int(w, ty_pg_oid(t));
  pgcat_put_int(w, -1);
  pgcat_put_int(w, ty_pg_typlen(t));
  pgcat_put_int(w, attnum);
  pgcat_put_int(w, 0);
  pgcat_put_int(w, -1);
  pgcat_put_int(w, ty_pg_typmod(t));
  pgcat_put_bool(w, pgcat_byval(t));
  pgcat_put_char(w, pgcat_align(t));
  /* the type's own (pg_dump writes SET STORAGE for any difference) */
  char st = pgcat_type_storage(ty_pg_oid(t));
  pgcat_put_char(w, st ? st : ty_pg_typlen(t) == -1 ? 'x' : 'p');
  pgcat_put_char(w, '\0');
  pgcat_put_bool(w, notnull);
  pgcat_put_bool(w, hasdef);
  pgcat_put_bool(w, false);
  pgcat_put_char(w, identity);  /* attidentity: 'a' ALWAYS, 'd' BY DEFAULT, '' none */
  pgcat_put_char(w, '\0');      /* attgenerated */
  pgcat_put_bool(w, false);
  pgcat_put_bool(w, true);
  pgcat_put_int(w, 0);
  pgcat_put_int(w, pgcat_collation(t));
  pgcat_put_null(w);
  pgcat_put_null(w);
  pgcat_put_null(w);
  pgcat_put_null(w);
  return pgcat_row_end(w, e);
}

static int pgcat_fill_pg_attribute(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    for (int c = 0; c < t->ct_ncols; c++) {
      const cat_column_t *col = &t->ct_cols[c];
      /* an identity column's DEFAULT is its sequence: no pg_attrdef row */
      if (pgcat_attr_row(w, t->ct_oid, col->cc_name, col->cc_type, col->cc_num + 1,
                         col->cc_not_null, col->cc_default != NULL && !col->cc_identity,
                         col->cc_identity, e))
        return CZ_ERR;
    }
  }
  for (int i = 0; i < s->cs_nviews; i++) {
    const cat_view_t *v = s->cs_views[i];
    for (int c = 0; c < v->cw_ncols && v->cw_kind == 'v'; c++)
      if (pgcat_attr_row(w, v->cw_oid, v->cw_colnames[c], v->cw_coltypes[c], c + 1, false, false,
                         '\0', e))
        return CZ_ERR;
  }
  for (int i = 0; i < s->cs_nindexes; i++) {
    const cat_index_t *ix = s->cs_indexes[i];
    if (ix->ci_hidden)
      continue;
    const cat_table_t *t = ix->ci_table;
    for (int k = 0; k < ix->ci_nkeys + ix->ci_ninclude; k++) {
      int c = k < ix->ci_nkeys ? ix->ci_keys[k] : ix->ci_include[k - ix->ci_nkeys];
      if (pgcat_attr_row(w, ix->ci_oid, t->ct_cols[c].cc_name, t->ct_cols[c].cc_type, k + 1,
                         false, false, '\0', e))
        return CZ_ERR;
    }
  }
  for (int i = 0, n = pgcat_nrels(); i < n; i++) {
    const pgcat_rel_t *r = pgcat_rel_at(i);
    for (int c = 0; c < r->pr_ncols; c++)
      if (pgcat_attr_row(w, r->pr_oid, r->pr_cols[c].pc_name, pgcat_col_type(r, c), c + 1,
                         false, false, '\0', e))
        return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- pg_index ------------------------------------------------------------ */

static const pgcat_col_t pg_index_cols[] = {
  {"indexrelid", PGT_OID},      {"indrelid", PGT_OID},          {"indnatts", PGT_INT2},
  {"indnkeyatts", PGT_INT2},    {"indisunique", PGT_BOOL},      {"indnullsnotdistinct", PGT_BOOL},
  {"indisprimary", PGT_BOOL},   {"indisexclusion", PGT_BOOL},   {"indimmediate", PGT_BOOL},
  {"indisclustered", PGT_BOOL}, {"indisvalid", PGT_BOOL},       {"indcheckxmin", PGT_BOOL},
  {"indisready", PGT_BOOL},     {"indislive", PGT_BOOL},        {"indisreplident", PGT_BOOL},
  {"indkey", PGT_INT2VECTOR},   {"indcollation", PGT_OIDVECTOR}, {"indclass", PGT_OIDVECTOR},
  {"indoption", PGT_INT2VECTOR}, {"indexprs", PGT_PG_NODE_TREE}, {"indpred", PGT_PG_NODE_TREE},
};

/* "a b c": the space-separated text form of int2vector / oidvector. */
static char *pgcat_vector(arena_t *a, const char *prev, int64_t v)
{
  return prev ? arena_sprintf(a, "%s %lld", prev, (long long)v)
              : arena_sprintf(a, "%lld", (long long)v);
}

static int pgcat_fill_pg_index(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  arena_t *a = w->pw_arena;
  for (int i = 0; i < s->cs_nindexes; i++) {
    const cat_index_t *ix = s->cs_indexes[i];
    if (ix->ci_hidden)
      continue;
    const cat_table_t *t = ix->ci_table;
    int n = ix->ci_nkeys + ix->ci_ninclude;
    char *key = NULL, *coll = NULL, *cls = NULL, *opt = NULL;
    for (int k = 0; k < n; k++) {
      int c = k < ix->ci_nkeys ? ix->ci_keys[k] : ix->ci_include[k - ix->ci_nkeys];
      key = pgcat_vector(a, key, c + 1);
      if (k < ix->ci_nkeys) {
        coll = pgcat_vector(a, coll, pgcat_collation(t->ct_cols[c].cc_type));
        cls = pgcat_vector(a, cls, 0);
        opt = pgcat_vector(a, opt, 0);
      }
    }
    pgcat_put_int(w, ix->ci_oid);
    pgcat_put_int(w, t->ct_oid);
    pgcat_put_int(w, n);
    pgcat_put_int(w, ix->ci_nkeys);
    pgcat_put_bool(w, ix->ci_unique || ix->ci_primary);
    pgcat_put_bool(w, ix->ci_nulls_nd);  /* indnullsnotdistinct */
    pgcat_put_bool(w, ix->ci_primary);
    pgcat_put_bool(w, false);
    pgcat_put_bool(w, true);
    pgcat_put_bool(w, false);
    pgcat_put_bool(w, true);
    pgcat_put_bool(w, false);
    pgcat_put_bool(w, true);
    pgcat_put_bool(w, true);
    pgcat_put_bool(w, false);
    pgcat_put_text(w, key ? key : "");
    pgcat_put_text(w, coll ? coll : "");
    pgcat_put_text(w, cls ? cls : "");
    pgcat_put_text(w, opt ? opt : "");
    pgcat_put_null(w);
    pgcat_put_null(w);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- pg_attrdef ---------------------------------------------------------- */

static const pgcat_col_t pg_attrdef_cols[] = {
  {"oid", PGT_OID}, {"adrelid", PGT_OID}, {"adnum", PGT_INT2}, {"adbin", PGT_PG_NODE_TREE},
};

static int pgcat_fill_pg_attrdef(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    for (int c = 0; c < t->ct_ncols; c++) {
      if (!t->ct_cols[c].cc_default || t->ct_cols[c].cc_identity)
        continue;
      pgcat_put_int(w, pgcat_attrdef_oid(t->ct_oid, c + 1));
      pgcat_put_int(w, t->ct_oid);
      pgcat_put_int(w, c + 1);
      pgcat_put_text(w, pgcat_expr_text(env, t->ct_cols[c].cc_default, w->pw_arena));
      if (pgcat_row_end(w, e))
        return CZ_ERR;
    }
  }
  return CZ_OK;
}

/* ---- pg_inherits: Cadenza has no table inheritance or partitions --------- */

static const pgcat_col_t pg_inherits_cols[] = {
  {"inhrelid", PGT_OID}, {"inhparent", PGT_OID}, {"inhseqno", PGT_INT4},
  {"inhdetachpending", PGT_BOOL},
};

/* ---- definitions as text ------------------------------------------------- */

char *pgcat_indexdef(const pgcat_env_t *env, const cat_index_t *ix, int column, arena_t *a)
{
  const cat_table_t *t = ix->ci_table;
  int n = ix->ci_nkeys + ix->ci_ninclude;
  if (column > 0) {
    if (column > n)
      return NULL;
    int k = column - 1;
    int c = k < ix->ci_nkeys ? ix->ci_keys[k] : ix->ci_include[k - ix->ci_nkeys];
    return pgcat_quote_ident(t->ct_cols[c].cc_name, a);
  }
  char *cols = NULL, *inc = NULL;
  for (int k = 0; k < n; k++) {
    int c = k < ix->ci_nkeys ? ix->ci_keys[k] : ix->ci_include[k - ix->ci_nkeys];
    char *q = pgcat_quote_ident(t->ct_cols[c].cc_name, a);
    if (k < ix->ci_nkeys)
      cols = cols ? arena_sprintf(a, "%s, %s", cols, q) : q;
    else
      inc = inc ? arena_sprintf(a, "%s, %s", inc, q) : q;
  }
  const char *schema = pgcat_schema_name(env, t->ct_schema);
  return arena_sprintf(a, "CREATE %sINDEX %s ON %s.%s USING btree (%s)%s%s%s%s%s",
                       ix->ci_unique || ix->ci_primary ? "UNIQUE " : "",
                       pgcat_quote_ident(ix->ci_name, a),
                       pgcat_quote_ident(schema ? schema : "public", a),
                       pgcat_quote_ident(t->ct_name, a), cols ? cols : "",
                       inc ? " INCLUDE (" : "", inc ? inc : "", inc ? ")" : "",
                       ix->ci_nulls_nd ? " NULLS NOT DISTINCT" : "",
                       ix->ci_layout == CAT_LAYOUT_COLUMN ? " WITH (layout=column)" : "");
}

/* ---- pg_stats -------------------------------------------------------------
 * One row per column of each table whose statistics describe every row
 * (catalog/README.md, "Statistics"): null_frac, avg_width and n_distinct
 * (as PostgreSQL: negative when it is a fraction of the rows, -1 for a
 * unique column, used when the distinct values are over a tenth of the
 * rows), for the tables the user may read. No most-common values,
 * histograms or correlation are kept: those columns are NULL (typed text[]
 * here, anyarray / real[] in PostgreSQL). */

static const pgcat_col_t pg_stats_cols[] = {
  {"schemaname", PGT_NAME},          {"tablename", PGT_NAME},
  {"attname", PGT_NAME},             {"inherited", PGT_BOOL},
  {"null_frac", PGT_FLOAT4},         {"avg_width", PGT_INT4},
  {"n_distinct", PGT_FLOAT4},        {"most_common_vals", PGT_TEXT_ARRAY},
  {"most_common_freqs", PGT_TEXT_ARRAY}, {"histogram_bounds", PGT_TEXT_ARRAY},
  {"correlation", PGT_FLOAT4},       {"most_common_elems", PGT_TEXT_ARRAY},
  {"most_common_elem_freqs", PGT_TEXT_ARRAY}, {"elem_count_histogram", PGT_TEXT_ARRAY},
};

static int pgcat_fill_pg_stats(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    /* as PostgreSQL's view: the columns the user may read */
    if (!(cat_table_privs(s, env->pe_user, t) & CAT_PRIV_SELECT))
      continue;
    cat_tabstats_t ts;
    cat_stats_get(t, w->pw_arena, &ts);
    for (int c = 0; c < t->ct_ncols; c++) {
      const cat_colstats_t *cs = &ts.ts_cols[c];
      if (cs->cs_ndv < 0 || cs->cs_null_frac < 0)
        continue;
      double nd = cs->cs_ndv;
      if (ts.ts_rows > 0 && nd > 0.1 * ts.ts_rows)
        nd = -CZ_MIN(nd / ts.ts_rows, 1.0);
      pgcat_put_text(w, t->ct_schema_name);
      pgcat_put_text(w, t->ct_name);
      pgcat_put_text(w, t->ct_cols[c].cc_name);
      pgcat_put_bool(w, false);
      pgcat_put_f64(w, cs->cs_null_frac);
      pgcat_put_int(w, cs->cs_avg_width >= 0 ? (int64_t)(cs->cs_avg_width + 0.5) : 0);
      pgcat_put_f64(w, nd);
      for (int k = 0; k < 3; k++)
        pgcat_put_null(w);
      pgcat_put_null(w);  /* correlation */
      for (int k = 0; k < 3; k++)
        pgcat_put_null(w);
      if (pgcat_row_end(w, e) != CZ_OK)
        return CZ_ERR;
    }
  }
  return CZ_OK;
}

const pgcat_rel_t pgcat_rels_class[] = {
  PGCAT_REL("pg_namespace", CAT_OID_PG_CATALOG, 2615, 'r', pg_namespace_cols,
            pgcat_fill_pg_namespace),
  PGCAT_REL("pg_class", CAT_OID_PG_CATALOG, 1259, 'r', pg_class_cols, pgcat_fill_pg_class),
  PGCAT_REL("pg_attribute", CAT_OID_PG_CATALOG, 1249, 'r', pg_attribute_cols,
            pgcat_fill_pg_attribute),
  PGCAT_REL("pg_index", CAT_OID_PG_CATALOG, 2610, 'r', pg_index_cols, pgcat_fill_pg_index),
  PGCAT_REL("pg_attrdef", CAT_OID_PG_CATALOG, 2604, 'r', pg_attrdef_cols, pgcat_fill_pg_attrdef),
  PGCAT_REL("pg_inherits", CAT_OID_PG_CATALOG, 2611, 'r', pg_inherits_cols, pgcat_fill_empty),
  PGCAT_REL("pg_stats", CAT_OID_PG_CATALOG, 12010, 'v', pg_stats_cols, pgcat_fill_pg_stats),
};
const int pgcat_nrels_class = (int)CZ_ARRAY_LEN(pgcat_rels_class);
