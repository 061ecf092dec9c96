/* en_schema_ddl — CREATE SCHEMA, ALTER SCHEMA … RENAME TO, DROP SCHEMA
 * [CASCADE], GRANT / REVOKE … ON SCHEMA, and the schema privilege checks
 * the other statements make (USAGE to reach an object, CREATE to make
 * one).
 *
 * Design notes: PostgreSQL 15's rules (CreateSchemaCommand, RenameSchema,
 * ExecGrant_Namespace): CREATE SCHEMA needs CREATE on the database (here:
 * a superuser or a role with CREATEDB) and, to name another owner,
 * membership in that role; RENAME and DROP need ownership; GRANT needs
 * ownership or the grant option of what is granted. DROP … CASCADE drops
 * the schema's views (newest first, so a view goes before the views it
 * reads), then its tables together (their foreign keys on each other,
 * their owned sequences and indexes with them), then its other
 * sequences, after one NOTICE listing them as PostgreSQL does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/runner/en_pgcat.h"
#include "engine/runner/runner_int.h"

static bool en_owns_schema(esession_t *s, const cat_schema_t *sc)
{
  return esession_is_superuser(s) || cat_role_is_member(es_snapshot(s), es_role_oid(s), sc->cs_owner);
}

static int schema_lookup(esession_t *s, const char *name, int pos, const cat_schema_t **out, err_t *e)
{
  *out = cat_find_schema(es_snapshot(s), name);
  if (*out)
    return CZ_OK;
  err_set(e, SQLSTATE_INVALID_SCHEMA, "schema \"%s\" does not exist", name);
  e->er_pos = pos;
  return CZ_ERR;
}

int en_check_schema_create(esession_t *s, const char *schema, err_t *e)
{
  if (esession_is_superuser(s))
    return CZ_OK;
  const cat_schema_t *sc = cat_find_schema(es_snapshot(s), schema ? schema : "public");
  if (!sc || cat_schema_is_temp(sc->cs_name))
    return CZ_OK;  /* the caller reports an unknown schema; temporary ones are the session's */
  return cat_check_schema_priv(es_snapshot(s), es_role_oid(s), sc, CAT_PRIV_CREATE, e);
}

int en_check_schema_usage(esession_t *s, const cat_snapshot_t *snap, cat_oid_t role,
                          cat_oid_t schema, err_t *e)
{
  if (schema == CAT_OID_PG_CATALOG || schema == CAT_OID_INFORMATION_SCHEMA)
    return CZ_OK;
  (void)s;
  const cat_schema_t *sc = cat_schema_by_oid(snap, schema);
  if (!sc || cat_schema_is_temp(sc->cs_name))
    return CZ_OK;
  return cat_check_schema_priv(snap, role, sc, CAT_PRIV_USAGE, e);
}

static int create_schema(esession_t *s, const sql_schema_t *sd, err_t *e)
{
  const cat_snapshot_t *snap = es_snapshot(s);
  const cat_role_t *me = cat_role_by_oid(snap, es_role_oid(s));
  const cat_role_t *owner = me;
  if (sd->sc_owner && strcmp(sd->sc_owner, "current_user") != 0 &&
      strcmp(sd->sc_owner, "session_user") != 0 &&
      cat_lookup_role(snap, sd->sc_owner, &owner, e) != CZ_OK)
    return CZ_ERR;
  if (!me || !owner)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role with OID %u does not exist",
                   (unsigned)es_role_oid(s));
  const char *name = sd->sc_name ? sd->sc_name : owner->cr_name;
  if (!esession_is_superuser(s) && !me->cr_createdb) {
    const pgcat_env_t *env = en_pgcat_env(s);  /* the database the client named */
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied for database %s",
                   env && env->pe_database ? env->pe_database : "");
  }
  if (!esession_is_superuser(s) && !cat_role_is_member(snap, me->cr_oid, owner->cr_oid))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be member of role \"%s\"",
                   owner->cr_name);
  if (cat_find_schema(snap, name)) {
    if (sd->sc_if_not_exists) {
      es_notice(s, "NOTICE", SQLSTATE_DUPLICATE_SCHEMA, "schema \"%s\" already exists, skipping", name);
      return CZ_OK;
    }
    err_set(e, SQLSTATE_DUPLICATE_SCHEMA, "schema \"%s\" already exists", name);
    e->er_pos = sd->sc_pos;
    return CZ_ERR;
  }
  if (strncmp(name, "pg_", 3) == 0) {
    err_set(e, SQLSTATE_RESERVED_NAME, "unacceptable schema name \"%s\"", name);
    err_detail(e, "The prefix \"pg_\" is reserved for system schemas.");
    return CZ_ERR;
  }
  return cat_create_schema(es_engine(s)->en_cat, es_txn(s), name, owner->cr_oid, NULL, e);
}

static int rename_schema(esession_t *s, const sql_schema_t *sd, err_t *e)
{
  const cat_schema_t *sc;
  if (schema_lookup(s, sd->sc_name, sd->sc_pos, &sc, e) != CZ_OK)
    return CZ_ERR;
  if (!en_owns_schema(s, sc))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of schema %s", sc->cs_name);
  if (cat_find_schema(es_snapshot(s), sd->sc_new_name))
    return err_set(e, SQLSTATE_DUPLICATE_SCHEMA, "schema \"%s\" already exists", sd->sc_new_name);
  if (strncmp(sd->sc_new_name, "pg_", 3) == 0) {
    err_set(e, SQLSTATE_RESERVED_NAME, "unacceptable schema name \"%s\"", sd->sc_new_name);
    err_detail(e, "The prefix \"pg_\" is reserved for system schemas.");
    return CZ_ERR;
  }
  if (sc->cs_oid < CAT_FIRST_USER_OID && sc->cs_oid != CAT_OID_PUBLIC)
    return err_set(e, SQLSTATE_RESERVED_NAME, "unacceptable schema name \"%s\"", sc->cs_name);
  return cat_rename_schema(es_engine(s)->en_cat, es_txn(s), sc->cs_oid, sd->sc_new_name, e);
}

/* What lives in a schema, in OID order (PostgreSQL lists dependents in
 * the order it finds them, which is creation order for these): tables,
 * materialized views, views, and sequences no table owns. */
typedef struct member_s {
  cat_oid_t mb_oid;
  const char *mb_kind;         /* "table", "view", "materialized view", "sequence" */
  const char *mb_name;
} member_t;

static int members_cmp(const void *a, const void *b)
{
  cat_oid_t x = ((const member_t *)a)->mb_oid, y = ((const member_t *)b)->mb_oid;
  return x < y ? -1 : x > y;
}

static int schema_members(const cat_snapshot_t *snap, cat_oid_t schema, arena_t *a, member_t **out)
{
  int cap = snap->cs_ntables + snap->cs_nviews + snap->cs_nsequences + 1, n = 0;
  member_t *m = arena_alloc(a, sizeof(*m) * (size_t)cap);
  for (int i = 0; i < snap->cs_ntables; i++) {
    const cat_table_t *t = snap->cs_tables[i];
    if (t->ct_schema == schema && !cat_view_by_oid(snap, t->ct_oid))
      m[n++] = (member_t){t->ct_oid, "table", t->ct_name};
  }
  for (int i = 0; i < snap->cs_nviews; i++) {
    const cat_view_t *w = snap->cs_views[i];
    if (w->cw_schema == schema)
      m[n++] = (member_t){w->cw_oid, w->cw_kind == 'm' ? "materialized view" : "view", w->cw_name};
  }
  for (int i = 0; i < snap->cs_nsequences; i++) {
    const cat_sequence_t *q = snap->cs_sequences[i];
    if (q->sq_schema == schema && !q->sq_owned_table)
      m[n++] = (member_t){q->sq_oid, "sequence", q->sq_name};
  }
  for (int i = 0; i < n; i++)  /* the snapshot goes with the first drop */
    m[i].mb_name = arena_strdup(a, m[i].mb_name);
  qsort(m, (size_t)n, sizeof(*m), members_cmp);
  *out = m;
  return n;
}

/* "table s.t\nview s.v …" with each line's prefix, into buf. */
static void members_text(const member_t *m, int n, const char *schema, const char *prefix,
                         const char *suffix, char *buf, size_t cap)
{
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%s%s %s.%s%s", i ? "\n" : "", prefix,
                            m[i].mb_kind, schema, m[i].mb_name, suffix);
}

static int drop_one(esession_t *s, const char *schema, const member_t *m, err_t *e)
{
  sql_name_t nm = {.nm_schema = schema, .nm_name = m->mb_name};
  void *item = &nm;
  sql_list_t names = {.ls_n = 1, .ls_cap = 1, .ls_items = &item};
  sql_drop_t dr = {.dr_if_exists = true, .dr_names = &names, .dr_cascade = true};
  es_refresh_snapshot(s);
  cat_oid_t any;
  if (!cat_find_relation(es_snapshot(s), schema, m->mb_name, &any) &&
      !en_find_view(s, schema, m->mb_name))
    return CZ_OK;  /* gone with an object dropped before */
  int rc;
  if (strcmp(m->mb_kind, "view") == 0)
    rc = en_ddl_drop_views(s, &dr, false, e);
  else if (strcmp(m->mb_kind, "materialized view") == 0)
    rc = en_ddl_drop_views(s, &dr, true, e);
  else if (strcmp(m->mb_kind, "table") == 0)
    rc = en_ddl_drop_tables(s, &dr, e);
  else
    rc = en_ddl_drop_sequences(s, &dr, e);
  return rc;
}

static int drop_schemas(esession_t *s, const sql_drop_t *dr, err_t *e)
{
  for (int i = 0; i < sql_list_len(dr->dr_names); i++) {
    const sql_name_t *n = sql_list_at(dr->dr_names, i);
    es_refresh_snapshot(s);
    const cat_schema_t *sc = cat_find_schema(es_snapshot(s), n->nm_name);
    if (!sc) {
      if (dr->dr_if_exists) {
        es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION,
                  "schema \"%s\" does not exist, skipping", n->nm_name);
        continue;
      }
      err_set(e, SQLSTATE_INVALID_SCHEMA, "schema \"%s\" does not exist", n->nm_name);
      e->er_pos = n->nm_pos;
      return CZ_ERR;
    }
    if (!en_owns_schema(s, sc))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of schema %s", sc->cs_name);
    if (sc->cs_oid < CAT_FIRST_USER_OID)
      return err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
                     "cannot drop schema %s because it is required by the database system",
                     sc->cs_name);
    cat_oid_t oid = sc->cs_oid;
    const char *name = n->nm_name;
    arena_t *a = arena_create(NULL, "drop schema");
    member_t *m;
    int nm = schema_members(es_snapshot(s), oid, a, &m);
    char text[1024];
    int rc = CZ_OK;
    if (nm && !dr->dr_cascade) {
      members_text(m, nm, name, "", " depends on schema ", text, sizeof text);
      /* each line ends with the schema's name */
      char detail[1024];
      size_t len = 0;
      detail[0] = 0;
      for (int k = 0; k < nm && len < sizeof detail; k++)
        len += (size_t)snprintf(detail + len, sizeof detail - len, "%s%s %s.%s depends on schema %s",
                                k ? "\n" : "", m[k].mb_kind, name, m[k].mb_name, name);
      err_set(e, SQLSTATE_DEPENDENT_OBJECTS, "cannot drop schema %s because other objects depend on it",
              name);
      err_add_fields(e, detail, "Use DROP ... CASCADE to drop the dependent objects too.");
      rc = CZ_ERR;
    } else if (nm) {
      if (nm == 1) {
        es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION, "drop cascades to %s %s.%s",
                  m[0].mb_kind, name, m[0].mb_name);
      } else {
        members_text(m, nm, name, "drop cascades to ", "", text, sizeof text);
        err_t notice;
        err_set(&notice, SQLSTATE_SUCCESSFUL_COMPLETION, "drop cascades to %d other objects", nm);
        err_add_fields(&notice, text, NULL);
        es_notice_err(s, "NOTICE", &notice);
      }
      /* views newest first, then the tables, then the free sequences */
      for (int k = nm - 1; k >= 0 && rc == CZ_OK; k--)
        if (strstr(m[k].mb_kind, "view"))
          rc = drop_one(s, name, &m[k], e);
      /* the tables in one DROP: their foreign keys on each other go silently */
      void **items = arena_alloc(a, sizeof(void *) * (size_t)nm);
      sql_name_t *tn = arena_alloc(a, sizeof(sql_name_t) * (size_t)nm);
      int nt = 0;
      es_refresh_snapshot(s);
      for (int k = 0; k < nm; k++)
        if (strcmp(m[k].mb_kind, "table") == 0 && cat_find_table(es_snapshot(s), name, m[k].mb_name)) {
          tn[nt] = (sql_name_t){.nm_schema = name, .nm_name = m[k].mb_name};
          items[nt] = &tn[nt];
          nt++;
        }
      sql_list_t tables = {.ls_n = nt, .ls_cap = nt, .ls_items = items};
      sql_drop_t tdr = {.dr_names = &tables, .dr_cascade = true};
      if (rc == CZ_OK && nt)
        rc = en_ddl_drop_tables(s, &tdr, e);
      for (int k = 0; k < nm && rc == CZ_OK; k++)
        if (strcmp(m[k].mb_kind, "sequence") == 0)
          rc = drop_one(s, name, &m[k], e);
    }
    arena_destroy(a);
    if (rc != CZ_OK)
      return CZ_ERR;
    es_refresh_snapshot(s);
    if (cat_drop_schema(es_engine(s)->en_cat, es_txn(s), oid, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* GRANT / REVOKE … ON SCHEMA. */
int en_grant_schema(esession_t *s, const sql_grant_t *g, bool grant, err_t *e)
{
  if (g->gr_privs & ~(SQL_PRIV_USAGE | SQL_PRIV_CREATE)) {
    const char *p = g->gr_privs & SQL_PRIV_SELECT   ? "SELECT"
                    : g->gr_privs & SQL_PRIV_INSERT ? "INSERT"
                    : g->gr_privs & SQL_PRIV_UPDATE ? "UPDATE"
                                                    : "DELETE";
    return err_set(e, SQLSTATE_INVALID_GRANT_OPERATION, "invalid privilege type %s for schema", p);
  }
  uint32_t privs = (g->gr_privs & SQL_PRIV_USAGE ? CAT_PRIV_USAGE : 0) |
                   (g->gr_privs & SQL_PRIV_CREATE ? CAT_PRIV_CREATE : 0);
  for (int i = 0; i < sql_list_len(g->gr_tables); i++) {
    const sql_name_t *n = sql_list_at(g->gr_tables, i);
    es_refresh_snapshot(s);
    const cat_schema_t *sc;
    if (schema_lookup(s, n->nm_name, n->nm_pos, &sc, e) != CZ_OK)
      return CZ_ERR;
    /* PostgreSQL's rule: the owner grants anything; another role what it
     * holds the grant option of (a WARNING for the rest), and one that
     * holds no privilege on the schema at all gets 42501 */
    uint32_t mine = cat_schema_privs(es_snapshot(s), es_role_oid(s), sc), use = privs;
    if (!en_owns_schema(s, sc)) {
      use = privs & mine >> CAT_PRIV_GRANT_SHIFT;
      if (!(mine & (CAT_PRIV_SCHEMA_ALL | CAT_PRIV_SCHEMA_ALL << CAT_PRIV_GRANT_SHIFT)))
        return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied for schema %s",
                       sc->cs_name);
      if (use != privs)
        es_notice(s, "WARNING", grant ? SQLSTATE_PRIVILEGE_NOT_GRANTED : SQLSTATE_PRIVILEGE_NOT_REVOKED,
                  grant ? (use ? "not all privileges were granted for \"%s\""
                               : "no privileges were granted for \"%s\"")
                        : (use ? "not all privileges could be revoked for \"%s\""
                               : "no privileges could be revoked for \"%s\""),
                  sc->cs_name);
      if (!use)
        continue;
    }
    cat_oid_t oid = sc->cs_oid;
    for (int j = 0; j < sql_list_len(g->gr_roles); j++) {
      cat_oid_t grantee;
      if (en_grantee(s, sql_list_at(g->gr_roles, j), grant && g->gr_grant_option, &grantee, e) !=
          CZ_OK)
        return CZ_ERR;
      /* the owner's rights are implicit (always held): granting them to
       * the owner itself changes nothing, as in PostgreSQL */
      const cat_schema_t *cur = cat_schema_by_oid(es_snapshot(s), oid);
      if (cur && grantee == cur->cs_owner)
        continue;
      uint32_t bits = use | (g->gr_grant_option ? use << CAT_PRIV_GRANT_SHIFT : 0);
      int rc = grant ? cat_grant_schema(es_engine(s)->en_cat, es_txn(s), oid, grantee, bits,
                                        es_role_oid(s), e)
                     : cat_revoke_schema(es_engine(s)->en_cat, es_txn(s), oid, grantee, use,
                                         g->gr_grant_option, e);
      if (rc != CZ_OK)
        return CZ_ERR;
      es_refresh_snapshot(s);
    }
  }
  return CZ_OK;
}

int en_ddl_schema(esession_t *s, const sql_stmt_t *st, char *tag, size_t tagcap, err_t *e)
{
  switch (st->st_kind) {
  case SQL_STMT_CREATE_SCHEMA:
    snprintf(tag, tagcap, "CREATE SCHEMA");
    return create_schema(s, st->st_schema, e);
  case SQL_STMT_ALTER_SCHEMA:
    snprintf(tag, tagcap, "ALTER SCHEMA");
    return rename_schema(s, st->st_schema, e);
  default:
    snprintf(tag, tagcap, "DROP SCHEMA");
    return drop_schemas(s, st->st_drop, e);
  }
}
