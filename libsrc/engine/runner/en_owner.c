/* en_owner — ALTER TABLE | SEQUENCE | VIEW | MATERIALIZED VIEW | SCHEMA
 * name OWNER TO role, which pg_dump writes after creating every object.
 *
 * Design notes: the catalog has no way yet to give an object to another
 * role. Restoring a dump as the role that owns everything (the common
 * case) names the owner the object already has, which succeeds, as in
 * PostgreSQL. An unknown role is 42704 and a caller who is neither the
 * owner nor a superuser 42501, as PostgreSQL checks them; a real change
 * of owner is refused (0A000) rather than accepted without effect.
 */
#include <stdio.h>
#include <string.h>

#include "engine/runner/runner_int.h"

int en_alter_owner(esession_t *s, const sql_stmt_t *ast, char *tag, size_t tagcap, err_t *e)
{
  const cat_snapshot_t *snap = es_snapshot(s);
  const char *kind = ast->st_owner_kind;
  const sql_name_t *nm = sql_list_at(ast->st_drop->dr_names, 0);
  snprintf(tag, tagcap, "ALTER %s", strcmp(kind, "table") == 0      ? "TABLE"
                                    : strcmp(kind, "sequence") == 0 ? "SEQUENCE"
                                    : strcmp(kind, "schema") == 0   ? "SCHEMA"
                                    : strcmp(kind, "view") == 0     ? "VIEW"
                                                                    : "MATERIALIZED VIEW");
  const char *rname = ast->st_owner_role;
  cat_oid_t role = strcmp(rname, "current_user") == 0 || strcmp(rname, "session_user") == 0
                       ? es_role_oid(s)
                       : 0;
  if (!role) {
    const cat_role_t *r = cat_find_role(snap, rname);
    if (!r)
      return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role \"%s\" does not exist", rname);
    role = r->cr_oid;
  }
  cat_oid_t owner = 0;
  const char *what = kind;
  if (strcmp(kind, "schema") == 0) {
    const cat_schema_t *sc = cat_find_schema(snap, nm->nm_name);
    if (!sc)
      return err_set(e, SQLSTATE_INVALID_SCHEMA, "schema \"%s\" does not exist", nm->nm_name);
    owner = sc->cs_owner;
  } else {
    /* ALTER TABLE names sequences and views too, as in PostgreSQL */
    const cat_table_t *t = cat_find_table(snap, nm->nm_schema, nm->nm_name);
    const cat_sequence_t *sq = t ? NULL : cat_find_sequence(snap, nm->nm_schema, nm->nm_name);
    const cat_view_t *v = t || sq ? NULL : cat_find_view(snap, nm->nm_schema, nm->nm_name);
    if (t) {
      owner = t->ct_owner;
      what = "table";
    } else if (sq) {
      owner = sq->sq_owner;
      what = "sequence";
    } else if (v) {
      owner = v->cw_owner;
      what = "view";
    } else {
      if (ast->st_drop->dr_if_exists) {
        es_notice(s, "NOTICE", "00000", "relation \"%s\" does not exist, skipping", nm->nm_name);
        return CZ_OK;
      }
      return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s\" does not exist", nm->nm_name);
    }
  }
  if (!esession_is_superuser(s) && owner != es_role_oid(s) &&
      !cat_role_is_member(snap, es_role_oid(s), owner))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of %s %s", what, nm->nm_name);
  if (owner == role)
    return CZ_OK;
  return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                 "changing the owner of %s \"%s\" to another role is not supported yet", what,
                 nm->nm_name);
}
