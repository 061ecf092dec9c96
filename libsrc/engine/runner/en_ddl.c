/* en_ddl — DDL and role statements, carried out from the syntax tree in
 * the session's transaction (an implicit one outside a block): tables,
 * indexes, roles, grants, TRUNCATE (sequences: en_seq_ddl.c). Ownership and role checks here;
 * the catalog enforces names and dependencies. */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "engine/runner/en_pgcat.h"
#include "engine/runner/runner_int.h"

int en_grantee(esession_t *s, const char *name, bool grant_option, cat_oid_t *out, err_t *e)
{
  *out = CAT_OID_PUBLIC_ROLE;
  if (strcmp(name, "public") != 0) {
    const cat_role_t *r;
    if (cat_lookup_role(es_snapshot(s), name, &r, e) != CZ_OK)
      return CZ_ERR;
    *out = r->cr_oid;
  }
  if (grant_option && *out == CAT_OID_PUBLIC_ROLE)
    return err_set(e, SQLSTATE_INVALID_GRANT_OPERATION, "grant options can only be granted to roles");
  return CZ_OK;
}

static bool en_owns(esession_t *s, const cat_table_t *t)
{
  return esession_is_superuser(s) || t->ct_owner == es_role_oid(s);
}

static int col_number(const cat_table_t *t, const char *name, int *out, err_t *e)
{
  return cat_lookup_column(t, name, out, e);
}

cat_layout_t en_default_layout(esession_t *s, const cat_column_def_t *cols, int nc)
{
  cat_layout_t l = es_engine(s)->en_layout;
  err_t scratch;
  if (l == CAT_LAYOUT_COLUMN && cat_layout_check(cols, nc, &scratch) != CZ_OK)
    return CAT_LAYOUT_ROW;
  return l;
}

/* The layout of a new table: WITH (layout = …) as written (column on
 * columns it cannot hold is the catalog's 0A000), else the default. */
static cat_layout_t en_table_layout(esession_t *s, const sql_create_table_t *ct,
                                    const cat_column_def_t *cols, int nc)
{
  if (ct->ct_layout)
    return ct->ct_layout == 'c' ? CAT_LAYOUT_COLUMN : CAT_LAYOUT_ROW;
  return en_default_layout(s, cols, nc);
}

static int ddl_create_table(esession_t *s, arena_t *a, const sql_create_table_t *written, err_t *e)
{
  /* the table's schema as search_path picks it, for everything below
   * (its sequences, indexes and constraints go in the same schema) */
  sql_create_table_t *ct = arena_alloc(a, sizeof(*ct));
  *ct = *written;
  if (en_new_schema(s, written->ct_table.nm_schema, written->ct_table.nm_name,
                    &ct->ct_table.nm_schema, e) != CZ_OK) {
    e->er_pos = written->ct_table.nm_pos;
    return CZ_ERR;
  }
  if (ct->ct_if_not_exists && cat_find_table(es_snapshot(s), ct->ct_table.nm_schema, ct->ct_table.nm_name)) {
    es_notice(s, "NOTICE", SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists, skipping", ct->ct_table.nm_name);
    return CZ_OK;
  }
  if (en_check_schema_create(s, ct->ct_table.nm_schema, e) != CZ_OK)
    return CZ_ERR;  /* en_schema_ddl.c: CREATE on the schema */
  int nc = sql_list_len(ct->ct_columns);
  cat_column_def_t *cols = arena_zalloc(a, sizeof(*cols) * (size_t)(nc + 1));
  int *pk = arena_alloc(a, sizeof(int) * (size_t)(nc + 1));
  int npk = 0;
  int pk_pos = 0;
  const char *pk_name = NULL;  /* CONSTRAINT name PRIMARY KEY: the key index's name */
  for (int i = 0; i < nc; i++) {
    const sql_coldef_t *cd = sql_list_at(ct->ct_columns, i);
    cols[i].cd_name = cd->cd_name;
    sql_type_t ty = cd->cd_type;
    ty.ty_serial = 0;  /* serial: the integer type, and a sequence (en_serial_plan) */
    if (sql_bind_type(&ty, &cols[i].cd_type, e) != CZ_OK) {
      e->er_pos = cd->cd_pos;
      return CZ_ERR;
    }
    cols[i].cd_not_null = cd->cd_not_null;
    if (cd->cd_default && (!(cols[i].cd_default = sql_deparse_expr(a, cd->cd_default, e)) ||
                           en_qualify_seq_names(s, a, cols[i].cd_default, &cols[i].cd_default,
                                                e) != CZ_OK))
      return CZ_ERR;
    if (cd->cd_primary) {
      if (npk)
        return err_set(e, SQLSTATE_INVALID_TABLE_DEF, "multiple primary keys for table \"%s\" are not allowed",
                       ct->ct_table.nm_name);
      pk[npk++] = i;
      pk_pos = cd->cd_pos;
      pk_name = cd->cd_pk_name;
    }
  }
  for (int k = 0; k < sql_list_len(ct->ct_constraints); k++) {
    const sql_tabcons_t *tc = sql_list_at(ct->ct_constraints, k);
    if (!tc->tc_primary)
      continue;
    if (npk)
      return err_set(e, SQLSTATE_INVALID_TABLE_DEF, "multiple primary keys for table \"%s\" are not allowed",
                     ct->ct_table.nm_name);
    for (int j = 0; j < sql_list_len(tc->tc_columns); j++) {
      const char *name = sql_list_at(tc->tc_columns, j);
      int c;
      for (c = 0; c < nc; c++)
        if (strcmp(cols[c].cd_name, name) == 0)
          break;
      if (c == nc) {
        err_set(e, SQLSTATE_UNDEFINED_COLUMN, "column \"%s\" named in key does not exist", name);
        e->er_pos = tc->tc_pos;
        return CZ_ERR;
      }
      pk[npk++] = c;
    }
    pk_pos = tc->tc_pos;
    pk_name = tc->tc_name;
  }
  (void)pk_pos;
  char *identity;
  const char **seqnames;
  if (en_serial_plan(s, a, ct, cols, &identity, &seqnames, e) != CZ_OK)  /* en_seq_ddl.c */
    return CZ_ERR;
  cat_table_def_t def = {.td_schema = ct->ct_table.nm_schema, .td_name = ct->ct_table.nm_name,
                         .td_owner = es_role_oid(s), .td_ncols = nc, .td_cols = cols,
                         .td_npk = npk, .td_pk = pk, .td_pk_name = pk_name,
                         .td_identity = identity, .td_layout = en_table_layout(s, ct, cols, nc)};
  cat_oid_t oid;
  if (cat_create_table(es_engine(s)->en_cat, es_txn(s), &def, &oid, e) != CZ_OK ||
      en_serial_make(s, ct, cols, seqnames, oid, e) != CZ_OK)
    return CZ_ERR;
  /* UNIQUE column and table constraints become unique indexes, of the
   * table's layout (a secondary index follows its table unless its own
   * WITH (layout = …) says otherwise). */
  for (int i = 0; i < nc; i++) {
    const sql_coldef_t *cd = sql_list_at(ct->ct_columns, i);
    if (!cd->cd_unique)
      continue;
    int key = i;
    cat_index_def_t id = {.id_name = cd->cd_unique_name, .id_table = oid, .id_unique = true,
                          .id_constraint = true, .id_nkeys = 1, .id_keys = &key,
                          .id_nulls_nd = cd->cd_unique_nulls_nd, .id_layout = def.td_layout};
    cat_oid_t ioid;
    if (tbl_create_index(es_engine(s)->en_cat, es_txn(s), &id, &ioid, e) != CZ_OK)
      return CZ_ERR;
  }
  for (int k = 0; k < sql_list_len(ct->ct_constraints); k++) {
    const sql_tabcons_t *tc = sql_list_at(ct->ct_constraints, k);
    if (tc->tc_primary || tc->tc_kind == 'c' || tc->tc_kind == 'f')
      continue;
    int nk = sql_list_len(tc->tc_columns);
    int *keys = arena_alloc(a, sizeof(int) * (size_t)(nk + 1));
    for (int j = 0; j < nk; j++) {
      const char *name = sql_list_at(tc->tc_columns, j);
      for (keys[j] = 0; keys[j] < nc; keys[j]++)
        if (strcmp(cols[keys[j]].cd_name, name) == 0)
          break;
      if (keys[j] == nc)
        return err_set(e, SQLSTATE_UNDEFINED_COLUMN, "column \"%s\" named in key does not exist",
                       name);
    }
    cat_index_def_t id = {.id_name = tc->tc_name, .id_table = oid, .id_unique = true,
                          .id_constraint = true, .id_nkeys = nk, .id_keys = keys,
                          .id_nulls_nd = tc->tc_nulls_not_distinct, .id_layout = def.td_layout};
    cat_oid_t ioid;
    if (tbl_create_index(es_engine(s)->en_cat, es_txn(s), &id, &ioid, e) != CZ_OK)
      return CZ_ERR;
  }
  /* CHECK and FOREIGN KEY: the column constraints, then the table's */
  es_refresh_snapshot(s);
  for (int i = 0; i < nc; i++) {
    const sql_coldef_t *cd = sql_list_at(ct->ct_columns, i);
    for (int k = 0; k < sql_list_len(cd->cd_constraints); k++) {
      const cat_table_t *t = cat_table_by_oid(es_snapshot(s), oid);
      if (!t || en_constraint_add(s, a, t, sql_list_at(cd->cd_constraints, k), cd->cd_name, e) != CZ_OK)
        return CZ_ERR;
    }
  }
  for (int k = 0; k < sql_list_len(ct->ct_constraints); k++) {
    const sql_tabcons_t *tc = sql_list_at(ct->ct_constraints, k);
    if (tc->tc_kind != 'c' && tc->tc_kind != 'f')
      continue;
    const cat_table_t *t = cat_table_by_oid(es_snapshot(s), oid);
    if (!t || en_constraint_add(s, a, t, tc, NULL, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* DROP of a name that does not exist: a notice with IF EXISTS (the caller
 * skips the name), else the error. */
static int ddl_drop_absent(esession_t *s, const sql_drop_t *dr, const sql_name_t *n,
                           const char *what, const char *sqlstate, err_t *e)
{
  if (dr->dr_if_exists) {
    es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION, "%s \"%s\" does not exist, skipping", what, n->nm_name);
    return CZ_OK;
  }
  err_set(e, sqlstate, "%s \"%s\" does not exist", what, n->nm_name);
  e->er_pos = n->nm_pos;
  return CZ_ERR;
}

/* The foreign keys that tables of the DROP list hold on each other go
 * first, silently (PostgreSQL drops such a set without CASCADE). */
static int ddl_drop_fk_within(esession_t *s, const sql_drop_t *dr, err_t *e)
{
  int n = sql_list_len(dr->dr_names);
  for (int i = 0; i < n; i++) {
    const sql_name_t *nm = sql_list_at(dr->dr_names, i);
    es_refresh_snapshot(s);
    const cat_table_t *t = cat_find_table(es_snapshot(s), en_name_schema(s, nm), nm->nm_name);
    for (int k = 0; t && k < t->ct_nrefby; k++) {
      const cat_constraint_t *co = t->ct_refby[k];
      if (co->co_table == t)
        continue;
      for (int j = 0; j < n; j++) {
        const sql_name_t *o = sql_list_at(dr->dr_names, j);
        if (cat_find_table(es_snapshot(s), en_name_schema(s, o), o->nm_name) != co->co_table)
          continue;
        if (!en_owns(s, co->co_table))
          return CZ_OK;  /* the owner check below reports it */
        if (cat_drop_constraint(es_engine(s)->en_cat, es_txn(s), co->co_oid, e) != CZ_OK)
          return CZ_ERR;
        es_refresh_snapshot(s);
        t = cat_find_table(es_snapshot(s), en_name_schema(s, nm), nm->nm_name);
        k = -1;  /* the table's list changed: again from the start */
        break;
      }
    }
  }
  return CZ_OK;
}

int en_ddl_drop_tables(esession_t *s, const sql_drop_t *dr, err_t *e)
{
  if (ddl_drop_fk_within(s, dr, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < sql_list_len(dr->dr_names); i++) {
    const sql_name_t *n = sql_list_at(dr->dr_names, i);
    es_refresh_snapshot(s);
    const cat_table_t *t = cat_find_table(es_snapshot(s), en_name_schema(s, n), n->nm_name);
    const cat_view_t *w = en_find_view(s, n->nm_schema, n->nm_name);
    if (w) {
      err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "\"%s\" is not a table", n->nm_name);
      return err_add_fields(e, NULL, w->cw_kind == 'm'
                                         ? "Use DROP MATERIALIZED VIEW to remove a materialized view."
                                         : "Use DROP VIEW to remove a view.");
    }
    if (!t) {
      if (ddl_drop_absent(s, dr, n, "table", SQLSTATE_UNDEFINED_TABLE, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    if (!en_owns(s, t))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of table %s", t->ct_name);
    /* the views and foreign keys that depend on it first (each may
     * refresh the snapshot: the table is found again) */
    if (en_view_drop_dependents(s, t->ct_oid, t->ct_name, dr->dr_cascade, e) != CZ_OK)
      return CZ_ERR;  /* en_view_ddl.c */
    t = cat_find_table(es_snapshot(s), en_name_schema(s, n), n->nm_name);
    if (!t || en_constraint_drop_refs(s, t, dr->dr_cascade, e) != CZ_OK)
      return CZ_ERR;
    t = cat_find_table(es_snapshot(s), en_name_schema(s, n), n->nm_name);
    if (!t || cat_drop_table(es_engine(s)->en_cat, es_txn(s), t->ct_oid, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

static int ddl_create_index(esession_t *s, arena_t *a, const sql_create_index_t *ci, err_t *e)
{
  const cat_table_t *t;
  if (en_lookup_table(s, ci->ci_table.nm_schema, ci->ci_table.nm_name, &t, e) != CZ_OK) {
    e->er_pos = ci->ci_table.nm_pos;
    return CZ_ERR;
  }
  if (!en_owns(s, t))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of table %s", t->ct_name);
  if (ci->ci_if_not_exists && ci->ci_index.nm_name &&
      cat_find_index(es_snapshot(s), t->ct_schema_name, ci->ci_index.nm_name)) {
    es_notice(s, "NOTICE", SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists, skipping", ci->ci_index.nm_name);
    return CZ_OK;
  }
  int nk = sql_list_len(ci->ci_columns), ni = sql_list_len(ci->ci_include);
  int *keys = arena_alloc(a, sizeof(int) * (size_t)(nk + 1));
  int *inc = arena_alloc(a, sizeof(int) * (size_t)(ni + 1));
  for (int i = 0; i < nk; i++)
    if (col_number(t, sql_list_at(ci->ci_columns, i), &keys[i], e) != CZ_OK)
      return CZ_ERR;
  for (int i = 0; i < ni; i++)
    if (col_number(t, sql_list_at(ci->ci_include, i), &inc[i], e) != CZ_OK)
      return CZ_ERR;
  cat_index_def_t def = {.id_name = ci->ci_index.nm_name, .id_table = t->ct_oid,
                         .id_unique = ci->ci_unique, .id_nkeys = nk, .id_keys = keys,
                         .id_ninclude = ni, .id_include = inc, .id_nulls_nd = ci->ci_nulls_nd,
                         .id_layout = ci->ci_layout == 'c'   ? CAT_LAYOUT_COLUMN
                                      : ci->ci_layout == 'r' ? CAT_LAYOUT_ROW
                                                             : t->ct_layout};
  cat_oid_t oid;
  return tbl_create_index(es_engine(s)->en_cat, es_txn(s), &def, &oid, e);
}

static int ddl_drop_indexes(esession_t *s, const sql_drop_t *dr, err_t *e)
{
  for (int i = 0; i < sql_list_len(dr->dr_names); i++) {
    const sql_name_t *n = sql_list_at(dr->dr_names, i);
    es_refresh_snapshot(s);
    const cat_index_t *ix = cat_find_index(es_snapshot(s), en_name_schema(s, n), n->nm_name);
    if (!ix) {
      if (ddl_drop_absent(s, dr, n, "index", SQLSTATE_UNDEFINED_OBJECT, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    if (!en_owns(s, ix->ci_table))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of index %s", ix->ci_name);
    if (cat_drop_index(es_engine(s)->en_cat, es_txn(s), ix->ci_oid, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

static bool may_manage_roles(esession_t *s)
{
  if (esession_is_superuser(s))
    return true;
  const cat_role_t *r = cat_role_by_oid(es_snapshot(s), es_role_oid(s));
  return r && r->cr_createrole;
}

/* The HTTP Digest hash of a new password, "<hex MD5(name:realm:pw)>:<realm>",
 * when [HTTPServer] DigestRealm is set (RFC 7616 §3.4.2, algorithm MD5,
 * the one every Digest client speaks); NULL otherwise and for a
 * password given as a SCRAM verifier (pg_dump's), from which no Digest
 * hash can be made. */
static int role_digest(esession_t *s, arena_t *a, const char *name, const char *pw,
                       const char **out, err_t *e)
{
  *out = NULL;
  const char *realm = es_engine(s)->en_digest_realm;
  if (!pw || !realm || strncmp(pw, "SCRAM-SHA-256$", 14) == 0)
    return CZ_OK;
  const char *text = arena_sprintf(a, "%s:%s:%s", name, realm, pw);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!EVP_Digest(text, strlen(text), md, &n, EVP_md5(), NULL) || n != 16)
    return err_set(e, SQLSTATE_INTERNAL, "MD5 is not available for the HTTP Digest hash");
  char hex[33];
  for (int i = 0; i < 16; i++)
    snprintf(hex + 2 * i, 3, "%02x", md[i]);
  *out = arena_sprintf(a, "%s:%s", hex, realm);
  return CZ_OK;
}

static int role_verifier(arena_t *a, const char *pw, const char **out, err_t *e)
{
  *out = NULL;
  if (!pw)
    return CZ_OK;
  if (strncmp(pw, "SCRAM-SHA-256$", 14) == 0) {
    *out = arena_strdup(a, pw);  /* already a verifier (pg_dump output) */
    return CZ_OK;
  }
  char *v = arena_alloc(a, SCRAM_VERIFIER_MAX);
  if (scram_make_verifier(pw, SCRAM_DEFAULT_ITERATIONS, v, e) != CZ_OK)
    return CZ_ERR;
  *out = v;
  return CZ_OK;
}

static int ddl_create_role(esession_t *s, arena_t *a, const sql_role_t *ro, err_t *e)
{
  if (!may_manage_roles(s))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied to create role");
  cat_role_def_t def = {.rd_name = sql_list_at(ro->ro_names, 0),
                        .rd_superuser = ro->ro_superuser > 0,
                        .rd_login = ro->ro_login > 0 || (ro->ro_user && ro->ro_login == 0),
                        .rd_createdb = ro->ro_createdb > 0,
                        .rd_createrole = ro->ro_createrole > 0};
  if (def.rd_superuser && !esession_is_superuser(s))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be superuser to create superusers");
  if (role_verifier(a, ro->ro_password, &def.rd_verifier, e) != CZ_OK ||
      role_digest(s, a, def.rd_name, ro->ro_password, &def.rd_digest, e) != CZ_OK)
    return CZ_ERR;
  cat_oid_t oid;
  return cat_create_role(es_engine(s)->en_cat, es_txn(s), &def, &oid, e);
}

static int ddl_alter_role(esession_t *s, arena_t *a, const sql_role_t *ro, err_t *e)
{
  const cat_role_t *r;
  if (cat_lookup_role(es_snapshot(s), sql_list_at(ro->ro_names, 0), &r, e) != CZ_OK)
    return CZ_ERR;
  bool self_pw_only = r->cr_oid == es_role_oid(s) && !ro->ro_superuser && !ro->ro_login &&
                      !ro->ro_createdb && !ro->ro_createrole;
  if (!may_manage_roles(s) && !self_pw_only)
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied to alter role");
  if ((r->cr_superuser || ro->ro_superuser) && !esession_is_superuser(s))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be superuser to alter superusers");
  cat_role_def_t def = {.rd_name = r->cr_name, .rd_superuser = r->cr_superuser,
                        .rd_login = r->cr_login, .rd_createdb = r->cr_createdb,
                        .rd_createrole = r->cr_createrole, .rd_verifier = r->cr_verifier,
                        .rd_digest = r->cr_digest};
  if (ro->ro_superuser)
    def.rd_superuser = ro->ro_superuser > 0;
  if (ro->ro_login)
    def.rd_login = ro->ro_login > 0;
  if (ro->ro_createdb)
    def.rd_createdb = ro->ro_createdb > 0;
  if (ro->ro_createrole)
    def.rd_createrole = ro->ro_createrole > 0;
  if (ro->ro_password_given &&
      (role_verifier(a, ro->ro_password, &def.rd_verifier, e) != CZ_OK ||
       role_digest(s, a, r->cr_name, ro->ro_password, &def.rd_digest, e) != CZ_OK))
    return CZ_ERR;
  return cat_alter_role(es_engine(s)->en_cat, es_txn(s), r->cr_oid, &def, e);
}

static int ddl_drop_roles(esession_t *s, const sql_role_t *ro, err_t *e)
{
  if (!may_manage_roles(s))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied to drop role");
  for (int i = 0; i < sql_list_len(ro->ro_names); i++) {
    const char *name = sql_list_at(ro->ro_names, i);
    es_refresh_snapshot(s);
    const cat_role_t *r = cat_find_role(es_snapshot(s), name);
    if (!r) {
      if (ro->ro_if_exists) {
        es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION, "role \"%s\" does not exist, skipping", name);
        continue;
      }
      return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role \"%s\" does not exist", name);
    }
    if (r->cr_oid == es_role_oid(s))
      return err_set(e, SQLSTATE_OBJECT_IN_USE, "current user cannot be dropped");
    if (r->cr_superuser && !esession_is_superuser(s))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be superuser to drop superusers");
    if (cat_drop_role(es_engine(s)->en_cat, es_txn(s), r->cr_oid, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* GRANT / REVOKE … ON SEQUENCE: SELECT (currval), UPDATE (nextval,
 * setval), USAGE (nextval, currval), kept in sys.grants by the sequence's
 * OID as a table's; the owner or a superuser grants. */
static int ddl_grant_sequence(esession_t *s, const sql_grant_t *g, bool grant, err_t *e)
{
  if (g->gr_privs & ~(SQL_PRIV_SELECT | SQL_PRIV_UPDATE | SQL_PRIV_USAGE))
    return err_set(e, SQLSTATE_INVALID_GRANT_OPERATION, "invalid privilege type %s for sequence",
                   g->gr_privs & SQL_PRIV_INSERT   ? "INSERT"
                   : g->gr_privs & SQL_PRIV_DELETE ? "DELETE"
                                                   : "CREATE");
  uint32_t privs = (g->gr_privs & SQL_PRIV_SELECT ? CAT_PRIV_SELECT : 0) |
                   (g->gr_privs & SQL_PRIV_UPDATE ? CAT_PRIV_UPDATE : 0) |
                   (g->gr_privs & SQL_PRIV_USAGE ? CAT_PRIV_USAGE : 0);
  uint32_t options = privs << CAT_PRIV_GRANT_SHIFT;
  for (int i = 0; i < sql_list_len(g->gr_tables); i++) {
    const sql_name_t *n = sql_list_at(g->gr_tables, i);
    es_refresh_snapshot(s);
    const cat_sequence_t *sq = cat_find_sequence(es_snapshot(s), en_name_schema(s, n), n->nm_name);
    if (!sq) {
      err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s\" does not exist", n->nm_name);
      e->er_pos = n->nm_pos;
      return CZ_ERR;
    }
    if (!esession_is_superuser(s) && !cat_role_is_member(es_snapshot(s), es_role_oid(s), sq->sq_owner))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied for sequence %s",
                     sq->sq_name);
    cat_oid_t oid = sq->sq_oid;
    for (int j = 0; j < sql_list_len(g->gr_roles); j++) {
      cat_oid_t grantee;
      if (en_grantee(s, sql_list_at(g->gr_roles, j), grant && g->gr_grant_option, &grantee, e) !=
          CZ_OK)
        return CZ_ERR;
      int rc = grant ? cat_grant(es_engine(s)->en_cat, es_txn(s), oid, grantee,
                                 privs | (g->gr_grant_option ? options : 0), es_role_oid(s), e)
                     : cat_revoke(es_engine(s)->en_cat, es_txn(s), oid, grantee,
                                  g->gr_grant_option ? options : privs | options, e);
      if (rc != CZ_OK)
        return CZ_ERR;
      es_refresh_snapshot(s);
    }
  }
  return CZ_OK;
}

static int ddl_grant(esession_t *s, const sql_grant_t *g, bool grant, err_t *e)
{
  if (g->gr_kind == 'n')
    return en_grant_schema(s, g, grant, e);  /* en_schema_ddl.c */
  if (g->gr_kind == 'S')
    return ddl_grant_sequence(s, g, grant, e);
  if (g->gr_privs & (SQL_PRIV_USAGE | SQL_PRIV_CREATE))
    return err_set(e, SQLSTATE_INVALID_GRANT_OPERATION, "invalid privilege type %s for table",
                   g->gr_privs & SQL_PRIV_USAGE ? "USAGE" : "CREATE");
  uint32_t privs = 0;
  if (g->gr_privs & SQL_PRIV_SELECT)
    privs |= CAT_PRIV_SELECT;
  if (g->gr_privs & SQL_PRIV_INSERT)
    privs |= CAT_PRIV_INSERT;
  if (g->gr_privs & SQL_PRIV_UPDATE)
    privs |= CAT_PRIV_UPDATE;
  if (g->gr_privs & SQL_PRIV_DELETE)
    privs |= CAT_PRIV_DELETE;
  for (int i = 0; i < sql_list_len(g->gr_tables); i++) {
    const sql_name_t *n = sql_list_at(g->gr_tables, i);
    const cat_table_t *t;
    const cat_view_t *w = en_find_view(s, n->nm_schema, n->nm_name);
    cat_table_t shim;  /* a view: its grants are kept by its OID as a table's */
    if (w && w->cw_kind == 'v') {
      shim = (cat_table_t){.ct_oid = w->cw_oid, .ct_owner = w->cw_owner, .ct_name = w->cw_name};
      t = &shim;
    } else if (en_lookup_table(s, n->nm_schema, n->nm_name, &t, e) != CZ_OK) {
      e->er_pos = n->nm_pos;
      return CZ_ERR;
    }
    if (!en_owns(s, t))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied for %s %s",
                     w ? "view" : "table", t->ct_name);
    for (int j = 0; j < sql_list_len(g->gr_roles); j++) {
      cat_oid_t grantee;
      if (en_grantee(s, sql_list_at(g->gr_roles, j), grant && g->gr_grant_option, &grantee, e) !=
          CZ_OK)
        return CZ_ERR;
      /* grant options ride above the privileges (CAT_PRIV_GRANT_SHIFT);
       * REVOKE GRANT OPTION FOR takes only those */
      uint32_t options = privs << CAT_PRIV_GRANT_SHIFT;
      int rc = grant ? cat_grant(es_engine(s)->en_cat, es_txn(s), t->ct_oid, grantee,
                                 privs | (g->gr_grant_option ? options : 0), es_role_oid(s), e)
                     : cat_revoke(es_engine(s)->en_cat, es_txn(s), t->ct_oid, grantee,
                                  g->gr_grant_option ? options : privs | options, e);
      if (rc != CZ_OK)
        return CZ_ERR;
      es_refresh_snapshot(s);
    }
  }
  return CZ_OK;
}

/* TRUNCATE [TABLE] [ONLY] t [*], … [RESTART IDENTITY | CONTINUE IDENTITY]
 * [CASCADE | RESTRICT]: deletes every row of each table through a planned
 * DELETE (transactional like any delete; foreign keys' actions find no
 * referencing rows left, see below).
 *
 * The tables: each name must be a table (42P01, 42809 for a view,
 * sequence or index), named once however often written. A table another
 * table's foreign key references is refused unless that table is
 * truncated too (0A000, as PostgreSQL) — with CASCADE it is added, and
 * the tables referencing it, with a NOTICE each. The list is emptied
 * referencing tables first, so that the deletes find no referencing rows.
 * RESTART IDENTITY restarts the sequences owned by the tables' columns
 * (serial, identity) at their START, as ALTER SEQUENCE … RESTART does
 * here: not undone by a rollback (PostgreSQL's is). */
static int ddl_truncate_tables(esession_t *s, arena_t *a, const sql_drop_t *dr,
                               const cat_table_t ***out, int *nout, err_t *e)
{
  const cat_snapshot_t *snap = es_snapshot(s);
  int cap = sql_list_len(dr->dr_names) + 8, n = 0;
  const cat_table_t **ts = arena_alloc(a, sizeof *ts * (size_t)cap);
  for (int i = 0; i < sql_list_len(dr->dr_names); i++) {
    const sql_name_t *nm = sql_list_at(dr->dr_names, i);
    cat_oid_t oid;
    char kind = cat_find_relation(snap, en_name_schema(s, nm), nm->nm_name, &oid);
    const cat_table_t *t =
        kind == 't' ? cat_find_table(snap, en_name_schema(s, nm), nm->nm_name) : NULL;
    if (!t) {
      e->er_pos = nm->nm_pos;
      return kind ? err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "\"%s\" is not a table", nm->nm_name)
                  : err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s\" does not exist",
                            nm->nm_name);
    }
    bool dup = false;
    for (int j = 0; j < n && !dup; j++)
      dup = ts[j] == t;
    if (!dup)
      ts[n++] = t;
  }
  /* the referencing tables: added (CASCADE) or refused */
  for (int i = 0; i < n; i++)
    for (int k = 0; k < ts[i]->ct_nrefby; k++) {
      const cat_table_t *rt = ts[i]->ct_refby[k]->co_table;
      bool in = false;
      for (int j = 0; j < n && !in; j++)
        in = ts[j] == rt;
      if (in)
        continue;
      if (!dr->dr_cascade) {
        err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                "cannot truncate a table referenced in a foreign key constraint");
        err_detail(e, "Table \"%s\" references \"%s\".", rt->ct_name, ts[i]->ct_name);
        return err_hint(e, "Truncate table \"%s\" at the same time, or use TRUNCATE ... CASCADE.",
                        rt->ct_name);
      }
      if (n == cap) {
        const cat_table_t **g = arena_alloc(a, sizeof *g * (size_t)(cap * 2));
        memcpy(g, ts, sizeof *g * (size_t)n);
        ts = g;
        cap *= 2;
      }
      ts[n++] = rt;
      es_notice(s, "NOTICE", "00000", "truncate cascades to table \"%s\"", rt->ct_name);
    }
  *out = ts;
  *nout = n;
  return CZ_OK;
}

/* Referencing before referenced (a cycle: in the order given). */
static int *ddl_truncate_order(arena_t *a, const cat_table_t **ts, int n)
{
  int *order = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  bool *done = arena_zalloc(a, (size_t)n + 1);
  for (int w = 0; w < n; w++) {
    int pick = -1;
    for (int i = 0; i < n && pick < 0; i++) {
      if (done[i])
        continue;
      bool blocked = false;
      for (int k = 0; k < ts[i]->ct_nrefby && !blocked; k++)
        for (int j = 0; j < n && !blocked; j++)
          blocked = j != i && !done[j] && ts[j] == ts[i]->ct_refby[k]->co_table && ts[j] != ts[i];
      if (!blocked)
        pick = i;
    }
    for (int i = 0; i < n && pick < 0; i++)
      if (!done[i])
        pick = i;
    done[pick] = true;
    order[w] = pick;
  }
  return order;
}

static int ddl_truncate(esession_t *s, arena_t *a, const sql_drop_t *dr, err_t *e)
{
  const cat_table_t **ts = NULL;
  int n = 0;
  if (ddl_truncate_tables(s, a, dr, &ts, &n, e) != CZ_OK)
    return CZ_ERR;
  int *order = ddl_truncate_order(a, ts, n);
  for (int i = 0; i < n; i++) {
    const cat_table_t *t = ts[order[i]];
    sql_delete_t de = {.de_table = {.nm_schema = t->ct_schema_name,
                                    .nm_name = t->ct_name}};
    sql_stmt_t st = {.st_kind = SQL_STMT_DELETE, .st_delete = &de};
    sp_env_t env;
    en_env(s, &env);
    splan_t *p;
    if (sql_plan_stmt(a, &st, &env, NULL, 0, &p, e) != CZ_OK || en_check_access(s, p, e) != CZ_OK)
      return CZ_ERR;
    /* The delete reads the rows to delete before deleting them (a
     * Buffer): as any query, under MaxQueryMem (53200), charged to a
     * budget that also covers the plan's arena a (en_exec.c). */
    erexec_t x;
    er_exec_begin(&x, s, p, NULL, 0, a, a, NULL);
    qctx_t *q = &x.x_q;
    obatch_t ob;
    int rc = op_open(p->sp_root, q, e);
    if (rc == CZ_OK)
      rc = op_next(p->sp_root, q, &ob, e);
    op_close(p->sp_root, q);
    er_exec_end(&x);
    if (rc != CZ_OK)
      return CZ_ERR;
  }
  if (!dr->dr_restart_identity)
    return CZ_OK;
  const cat_snapshot_t *snap = es_snapshot(s);
  for (int k = 0; k < snap->cs_nsequences; k++) {
    const cat_sequence_t *sq = snap->cs_sequences[k];
    for (int i = 0; i < n; i++)
      if (sq->sq_owned_table == ts[i]->ct_oid &&
          cat_seq_setval(en_seq_session(s), sq, es_txn(s), es_cancel_flag(s), sq->sq_start, false,
                         e) != CZ_OK)
        return CZ_ERR;
  }
  return CZ_OK;
}

static int ddl_run(esession_t *s, arena_t *a, const sql_stmt_t *st, char *tag, size_t tagcap,
                   err_t *e)
{
  switch (st->st_kind) {
  case SQL_STMT_CREATE_TABLE:
    snprintf(tag, tagcap, "CREATE TABLE");
    return ddl_create_table(s, a, st->st_create_table, e);
  case SQL_STMT_DROP_TABLE:
    snprintf(tag, tagcap, "DROP TABLE");
    return en_ddl_drop_tables(s, st->st_drop, e);
  case SQL_STMT_CREATE_SEQUENCE:
    snprintf(tag, tagcap, "CREATE SEQUENCE");
    return en_ddl_sequence(s, st, e);
  case SQL_STMT_ALTER_SEQUENCE:
    snprintf(tag, tagcap, "ALTER SEQUENCE");
    return en_ddl_sequence(s, st, e);
  case SQL_STMT_DROP_SEQUENCE:
    snprintf(tag, tagcap, "DROP SEQUENCE");
    return en_ddl_drop_sequences(s, st->st_drop, e);
  case SQL_STMT_DROP_VIEW:
    snprintf(tag, tagcap, "DROP VIEW");
    return en_ddl_drop_views(s, st->st_drop, false, e);  /* en_view_ddl.c */
  case SQL_STMT_DROP_MATVIEW:
    snprintf(tag, tagcap, "DROP MATERIALIZED VIEW");
    return en_ddl_drop_views(s, st->st_drop, true, e);
  case SQL_STMT_CREATE_INDEX:
    snprintf(tag, tagcap, "CREATE INDEX");
    return ddl_create_index(s, a, st->st_create_index, e);
  case SQL_STMT_DROP_INDEX:
    snprintf(tag, tagcap, "DROP INDEX");
    return ddl_drop_indexes(s, st->st_drop, e);
  case SQL_STMT_CREATE_ROLE:
    snprintf(tag, tagcap, "CREATE ROLE");
    return ddl_create_role(s, a, st->st_role, e);
  case SQL_STMT_ALTER_ROLE:
    snprintf(tag, tagcap, "ALTER ROLE");
    return ddl_alter_role(s, a, st->st_role, e);
  case SQL_STMT_DROP_ROLE:
    snprintf(tag, tagcap, "DROP ROLE");
    return ddl_drop_roles(s, st->st_role, e);
  case SQL_STMT_GRANT:
    snprintf(tag, tagcap, "GRANT");
    return ddl_grant(s, st->st_grant, true, e);
  case SQL_STMT_REVOKE:
    snprintf(tag, tagcap, "REVOKE");
    return ddl_grant(s, st->st_grant, false, e);
  case SQL_STMT_ALTER_TABLE:
    snprintf(tag, tagcap, "ALTER TABLE");
    return en_alter_table(s, st->st_alter, e);
  case SQL_STMT_TRUNCATE:
    snprintf(tag, tagcap, "TRUNCATE TABLE");
    return ddl_truncate(s, a, st->st_drop, e);
  case SQL_STMT_ALTER_SETTING:
    snprintf(tag, tagcap, st->st_setting->sa_role_kind ? "ALTER ROLE" : "ALTER DATABASE");
    return es_alter_setting(s, st->st_setting, e);
  case SQL_STMT_COMMENT:
    snprintf(tag, tagcap, "COMMENT");
    return en_comment(s, st->st_comment, e);
  case SQL_STMT_CREATE_SCHEMA:
  case SQL_STMT_ALTER_SCHEMA:
  case SQL_STMT_DROP_SCHEMA:
    return en_ddl_schema(s, st, tag, tagcap, e);  /* en_schema_ddl.c */
  case SQL_STMT_ALTER_OWNER:  /* a catalog change: in a transaction like all DDL */
    return en_alter_owner(s, st, tag, tagcap, e);
  default:
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "this statement is not supported yet");
  }
}

int en_ddl(esession_t *s, const char *text, const sql_stmt_t *st, char *tag, size_t tagcap,
           err_t *e)
{
  bool implicit;
  if (es_tx_ensure(s, &implicit, e) != CZ_OK)
    return CZ_ERR;
  es_refresh_snapshot(s);
  arena_t *a = arena_create(NULL, "ddl");
  int rc = st->st_kind == SQL_STMT_CREATE_VIEW || st->st_kind == SQL_STMT_ALTER_VIEW ||
                   st->st_kind == SQL_STMT_REFRESH_MATVIEW
               ? en_ddl_view(s, text, st, tag, tagcap, e)  /* en_view_ddl.c */
               : ddl_run(s, a, st, tag, tagcap, e);
  arena_destroy(a);
  if (rc != CZ_OK)
    return CZ_ERR;  /* the caller's es_tx_fail rolls back or fails the block */
  es_refresh_snapshot(s);
  if (implicit)
    return es_tx_end_implicit(s, true, e);
  return CZ_OK;
}
