/* cat_acl — schema privileges: who holds USAGE and CREATE on a schema
 * (its access list, kept in the sys.schemas record: cat_schema.c), the
 * check the engine makes on use and on CREATE, GRANT and REVOKE ON SCHEMA;
 * and sequence privileges (SELECT, UPDATE, USAGE: grants in sys.grants by
 * the sequence's OID, as a table's) that the sequence functions check.
 *
 * Design notes: as for tables (cat_table_privs), the owner, its members
 * and superusers hold every privilege whatever the list says; the list
 * holds the other grantees, one item per grantee (the last grantor is
 * kept), as PostgreSQL's aclitems. Grant options ride above the
 * privilege bits (CAT_PRIV_GRANT_SHIFT). */
#include <stdlib.h>
#include <string.h>

#include "catalog/cat_int.h"

uint32_t cat_schema_privs(const cat_snapshot_t *s, cat_oid_t role, const cat_schema_t *sc)
{
  const uint32_t all = CAT_PRIV_SCHEMA_ALL | CAT_PRIV_SCHEMA_ALL << CAT_PRIV_GRANT_SHIFT;
  const cat_role_t *r = cat_role_by_oid(s, role);
  if ((r && r->cr_superuser) || cat_role_is_member(s, role, sc->cs_owner))
    return all;
  uint32_t p = 0;
  for (int i = 0; i < sc->cs_nacl; i++) {
    const cat_acl_item_t *it = &sc->cs_acl[i];
    if (it->ai_grantee == CAT_OID_PUBLIC_ROLE || cat_role_is_member(s, role, it->ai_grantee))
      p |= it->ai_privs;
  }
  return p & all;
}

int cat_check_schema_priv(const cat_snapshot_t *s, cat_oid_t role, const cat_schema_t *sc,
                          uint32_t privs, err_t *e)
{
  if ((cat_schema_privs(s, role, sc) & privs) == privs)
    return CZ_OK;
  return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied for schema %s", sc->cs_name);
}

uint32_t cat_sequence_privs(const cat_snapshot_t *s, cat_oid_t role, const cat_sequence_t *sq)
{
  const uint32_t all = CAT_PRIV_SELECT | CAT_PRIV_UPDATE | CAT_PRIV_USAGE;
  const cat_role_t *r = cat_role_by_oid(s, role);
  if ((r && r->cr_superuser) || cat_role_is_member(s, role, sq->sq_owner))
    return all;
  uint32_t p = 0;
  for (int i = 0; i < s->cs_ngrants; i++) {
    const cat_grant_t *g = &s->cs_grants[i];
    if (g->cg_table == sq->sq_oid &&
        (g->cg_grantee == CAT_OID_PUBLIC_ROLE || cat_role_is_member(s, role, g->cg_grantee)))
      p |= g->cg_privs;
  }
  return p & all;
}

int cat_check_sequence_priv(const cat_snapshot_t *s, cat_oid_t role, const cat_sequence_t *sq,
                            uint32_t any_of, err_t *e)
{
  if (cat_sequence_privs(s, role, sq) & any_of)
    return CZ_OK;
  return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied for sequence %s",
                 sq->sq_name);
}

/* The schema's record rewritten with grantee's item given the bits set
 * and stripped of those in clear (an item left empty is dropped). */
static int cat_schema_acl_change(cat_t *c, txn_t *tx, cat_oid_t schema, cat_oid_t grantee,
                                 uint32_t set, uint32_t clear, cat_oid_t grantor, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  const cat_schema_t *sch = cat_schema_by_oid(s, schema);
  if (!sch)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "schema with OID %u does not exist", (unsigned)schema);
  if (grantee != CAT_OID_PUBLIC_ROLE && !cat_role_by_oid(s, grantee))
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role with OID %u does not exist", (unsigned)grantee);
  cat_acl_item_t *items = calloc((size_t)sch->cs_nacl + 1, sizeof(*items));
  if (!items)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  int n = 0;
  bool found = false;
  for (int i = 0; i < sch->cs_nacl; i++) {
    cat_acl_item_t it = sch->cs_acl[i];
    if (it.ai_grantee == grantee) {
      found = true;
      it.ai_privs = (it.ai_privs | set) & ~clear;
      if (set)
        it.ai_grantor = grantor;
    }
    if (it.ai_privs)
      items[n++] = it;
  }
  if (!found && (set & ~clear))
    items[n++] = (cat_acl_item_t){grantee, grantor, set & ~clear};
  cat_schema_t sc = *sch;
  sc.cs_acl_set = true;
  sc.cs_nacl = n;
  sc.cs_acl = items;
  int rc = cat_schema_put(c, tx, &sc, true, e);
  free(items);
  return rc == CZ_OK ? cat_ddl_end(c, tx, e) : CZ_ERR;
}

int cat_grant_schema(cat_t *c, txn_t *tx, cat_oid_t schema, cat_oid_t grantee, uint32_t privs,
                     cat_oid_t grantor, err_t *e)
{
  return cat_schema_acl_change(c, tx, schema, grantee, privs, 0, grantor, e);
}

int cat_revoke_schema(cat_t *c, txn_t *tx, cat_oid_t schema, cat_oid_t grantee, uint32_t privs,
                      bool grant_option_only, err_t *e)
{
  uint32_t base = privs & CAT_PRIV_SCHEMA_ALL;
  uint32_t clear = base << CAT_PRIV_GRANT_SHIFT;
  if (!grant_option_only)
    clear |= base;
  return cat_schema_acl_change(c, tx, schema, grantee, 0, clear, 0, e);
}
