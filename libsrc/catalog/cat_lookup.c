/* cat_lookup — finding objects in a snapshot by name and OID, role
 * membership and table privileges. Everything here reads an immutable
 * snapshot: no lock.
 */
#include <string.h>

#include "catalog/cat_int.h"

const cat_schema_t *cat_find_schema(const cat_snapshot_t *s, const char *name)
{
  for (int i = 0; i < s->cs_nschemas; i++)
    if (strcmp(s->cs_schemas[i].cs_name, name) == 0)
      return &s->cs_schemas[i];
  return NULL;
}

const cat_schema_t *cat_schema_by_oid(const cat_snapshot_t *s, cat_oid_t oid)
{
  for (int i = 0; i < s->cs_nschemas; i++)
    if (s->cs_schemas[i].cs_oid == oid)
      return &s->cs_schemas[i];
  return NULL;
}

static const cat_table_t *cat_table_in_schema(const cat_snapshot_t *s, cat_oid_t schema, const char *name)
{
  int kind;
  const void *o = cat_find_rel(s, schema, name, &kind);
  return o && kind == CAT_REL_TABLE ? o : NULL;
}

const cat_table_t *cat_find_table(const cat_snapshot_t *s, const char *schema, const char *name)
{
  if (schema) {
    const cat_schema_t *sch = cat_find_schema(s, schema);
    return sch ? cat_table_in_schema(s, sch->cs_oid, name) : NULL;
  }
  const cat_table_t *t = cat_table_in_schema(s, CAT_OID_PUBLIC, name);
  return t ? t : cat_table_in_schema(s, CAT_OID_PG_CATALOG, name);
}

const cat_table_t *cat_table_by_oid(const cat_snapshot_t *s, cat_oid_t oid)
{
  int lo = 0, hi = s->cs_ntables - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    cat_oid_t o = s->cs_tables[mid]->ct_oid;
    if (o == oid)
      return s->cs_tables[mid];
    if (o < oid)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

int cat_lookup_table(const cat_snapshot_t *s, const char *schema, const char *name,
                     const cat_table_t **out, err_t *e)
{
  *out = NULL;
  if (schema && !cat_find_schema(s, schema))
    return err_set(e, SQLSTATE_INVALID_SCHEMA, "schema \"%s\" does not exist", schema);
  *out = cat_find_table(s, schema, name);
  if (!*out) {
    if (schema)
      return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s.%s\" does not exist", schema, name);
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s\" does not exist", name);
  }
  return CZ_OK;
}

int cat_find_column(const cat_table_t *t, const char *name)
{
  for (int i = 0; i < t->ct_ncols; i++)
    if (strcmp(t->ct_cols[i].cc_name, name) == 0)
      return i;
  return -1;
}

int cat_lookup_column(const cat_table_t *t, const char *name, int *colno, err_t *e)
{
  *colno = cat_find_column(t, name);
  if (*colno < 0)
    return err_set(e, SQLSTATE_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist",
                   name, t->ct_name);
  return CZ_OK;
}

const cat_index_t *cat_find_index(const cat_snapshot_t *s, const char *schema, const char *name)
{
  const cat_schema_t *sch = cat_find_schema(s, schema ? schema : "public");
  if (!sch)
    return NULL;
  int kind;
  const void *o = cat_find_rel(s, sch->cs_oid, name, &kind);
  return o && kind == CAT_REL_INDEX ? o : NULL;
}

const cat_index_t *cat_index_by_oid(const cat_snapshot_t *s, cat_oid_t oid)
{
  int lo = 0, hi = s->cs_nindexes - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    cat_oid_t o = s->cs_indexes[mid]->ci_oid;
    if (o == oid)
      return s->cs_indexes[mid];
    if (o < oid)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

const cat_role_t *cat_find_role(const cat_snapshot_t *s, const char *name)
{
  for (int i = 0; i < s->cs_nroles; i++)
    if (strcmp(s->cs_roles[i].cr_name, name) == 0)
      return &s->cs_roles[i];
  return NULL;
}

const cat_role_t *cat_role_by_oid(const cat_snapshot_t *s, cat_oid_t oid)
{
  for (int i = 0; i < s->cs_nroles; i++)
    if (s->cs_roles[i].cr_oid == oid)
      return &s->cs_roles[i];
  return NULL;
}

int cat_lookup_role(const cat_snapshot_t *s, const char *name, const cat_role_t **out, err_t *e)
{
  *out = cat_find_role(s, name);
  if (!*out)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role \"%s\" does not exist", name);
  return CZ_OK;
}

/* Depth-first over memberships; depth bounded (cycles are refused at
 * GRANT, the bound only guards against a damaged catalog). */
static bool cat_member_rec(const cat_snapshot_t *s, cat_oid_t member, cat_oid_t role, int depth)
{
  if (member == role)
    return true;
  if (depth > 64)
    return false;
  for (int i = 0; i < s->cs_nmembers; i++)
    if (s->cs_members[i].cm_member == member &&
        cat_member_rec(s, s->cs_members[i].cm_role, role, depth + 1))
      return true;
  return false;
}

bool cat_role_is_member(const cat_snapshot_t *s, cat_oid_t member, cat_oid_t role)
{
  return cat_member_rec(s, member, role, 0);
}

uint32_t cat_table_privs(const cat_snapshot_t *s, cat_oid_t role, const cat_table_t *t)
{
  const cat_role_t *r = cat_role_by_oid(s, role);
  if (r && r->cr_superuser)
    return CAT_PRIV_ALL;
  if (cat_role_is_member(s, role, t->ct_owner))
    return CAT_PRIV_ALL;
  uint32_t p = 0;
  for (int i = 0; i < s->cs_ngrants; i++) {
    const cat_grant_t *g = &s->cs_grants[i];
    if (g->cg_table != t->ct_oid)
      continue;
    if (g->cg_grantee == CAT_OID_PUBLIC_ROLE || cat_role_is_member(s, role, g->cg_grantee))
      p |= g->cg_privs;
  }
  return p;
}

int cat_check_priv(const cat_snapshot_t *s, cat_oid_t role, const cat_table_t *t, uint32_t privs,
                   err_t *e)
{
  if ((cat_table_privs(s, role, t) & privs) == privs)
    return CZ_OK;
  return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied for table %s", t->ct_name);
}
