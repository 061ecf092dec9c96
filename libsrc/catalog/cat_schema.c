/* cat_schema — schemas: the sys.schemas record (name, owner, access
 * list), CREATE / DROP / ALTER … RENAME of a schema.
 *
 * Design notes: a schema's privileges are kept in its own record, after
 * the owner (README "System tables"): u8 whether the access list is
 * explicit, then u32 n and n × (u32 grantee, u32 grantor, u32 privileges).
 * A record that ends before the access list (written before schemas had
 * privileges) reads as the default: the owner alone, except `public`,
 * whose default is PostgreSQL 15's (USAGE to PUBLIC), which its bootstrap
 * record spells out. Every change rewrites the whole record through the
 * DDL transaction: logged, undone on rollback, recovered like any row. */
#include <string.h>

#include "catalog/cat_int.h"

int cat_schema_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                      cat_schema_t *out, err_t *e)
{
  if (kl != 4)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed schema record in the catalog");
  cat_rbuf_t r = {v, vl, 0, false};
  out->cs_oid = cat_key_get(k, 0);
  out->cs_name = cat_r_str(&r, a);
  out->cs_owner = cat_r_u32(&r);
  bool legacy = !r.r_bad && r.r_off == vl;  /* written before access lists */
  out->cs_acl_set = cat_r_opt_u8(&r, 0) != 0;
  uint32_t n = out->cs_acl_set ? cat_r_u32(&r) : 0;
  if (n > 100000)
    r.r_bad = true;
  cat_acl_item_t *items = NULL;
  if (!r.r_bad && n) {
    items = arena_alloc(a, sizeof(*items) * n);
    for (uint32_t i = 0; i < n; i++) {
      items[i].ai_grantee = cat_r_u32(&r);
      items[i].ai_grantor = cat_r_u32(&r);
      items[i].ai_privs = cat_r_u32(&r);
    }
  }
  out->cs_nacl = (int)n;
  out->cs_acl = items;
  if (r.r_bad || !out->cs_name)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed schema record in the catalog");
  if (legacy && out->cs_oid == CAT_OID_PUBLIC) {
    /* PostgreSQL 15's default for public, which bootstrap now writes */
    cat_acl_item_t *it = arena_alloc(a, sizeof(*it));
    *it = (cat_acl_item_t){CAT_OID_PUBLIC_ROLE, out->cs_owner, CAT_PRIV_USAGE};
    out->cs_acl_set = true;
    out->cs_nacl = 1;
    out->cs_acl = it;
  }
  return CZ_OK;
}

int cat_schema_put(cat_t *c, txn_t *tx, const cat_schema_t *sc, bool replace, err_t *e)
{
  uint8_t k[4], buf[BT_MAX_ROW];
  cat_wbuf_t w = {buf, 0, sizeof buf, false};
  cat_w_str(&w, sc->cs_name);
  cat_w_u32(&w, sc->cs_owner);
  cat_w_u8(&w, sc->cs_acl_set ? 1 : 0);
  if (sc->cs_acl_set) {
    cat_w_u32(&w, (uint32_t)sc->cs_nacl);
    for (int i = 0; i < sc->cs_nacl; i++) {
      cat_w_u32(&w, sc->cs_acl[i].ai_grantee);
      cat_w_u32(&w, sc->cs_acl[i].ai_grantor);
      cat_w_u32(&w, sc->cs_acl[i].ai_privs);
    }
  }
  if (w.w_over)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "too many privileges granted on schema %s",
                   sc->cs_name);
  return cat_sys_put(c, tx, CAT_SYS_SCHEMAS, k, cat_key_oid(k, sc->cs_oid), &w, replace, e);
}

int cat_create_schema(cat_t *c, txn_t *tx, const char *name, cat_oid_t owner, cat_oid_t *oid, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK || cat_name_check("schema", name, e) != CZ_OK)
    return CZ_ERR;
  if (cat_find_schema(s, name))
    return err_set(e, SQLSTATE_DUPLICATE_SCHEMA, "schema \"%s\" already exists", name);
  cat_oid_t so;
  if (cat_next_oid(c, tx, &so, e) != CZ_OK)
    return CZ_ERR;
  cat_schema_t sc = {.cs_oid = so, .cs_name = name, .cs_owner = owner};
  if (cat_schema_put(c, tx, &sc, false, e) != CZ_OK || cat_ddl_end(c, tx, e) != CZ_OK)
    return CZ_ERR;
  if (oid)
    *oid = so;
  return CZ_OK;
}

int cat_drop_schema(cat_t *c, txn_t *tx, cat_oid_t schema, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  const cat_schema_t *sch = cat_schema_by_oid(s, schema);
  if (!sch)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "schema with OID %u does not exist", (unsigned)schema);
  if (schema < CAT_FIRST_USER_OID)
    return err_set(e, SQLSTATE_DEPENDENT_OBJECTS, "cannot drop schema %s because it is required by the database system",
                   sch->cs_name);
  bool used = false;
  for (int i = 0; i < s->cs_ntables && !used; i++)
    used = s->cs_tables[i]->ct_schema == schema;
  for (int i = 0; i < s->cs_nsequences && !used; i++)
    used = s->cs_sequences[i]->sq_schema == schema;
  for (int i = 0; i < s->cs_nviews && !used; i++)
    used = s->cs_views[i]->cw_schema == schema;
  if (used)
    return err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
                   "cannot drop schema %s because other objects depend on it", sch->cs_name);
  uint8_t k[4];
  if (cat_sys_del(c, tx, CAT_SYS_SCHEMAS, k, cat_key_oid(k, schema), e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

int cat_rename_schema(cat_t *c, txn_t *tx, cat_oid_t schema, const char *name, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK || cat_name_check("schema", name, e) != CZ_OK)
    return CZ_ERR;
  const cat_schema_t *sch = cat_schema_by_oid(s, schema);
  if (!sch)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "schema with OID %u does not exist", (unsigned)schema);
  if (cat_find_schema(s, name))
    return err_set(e, SQLSTATE_DUPLICATE_SCHEMA, "schema \"%s\" already exists", name);
  cat_schema_t sc = *sch;
  sc.cs_name = name;
  if (cat_schema_put(c, tx, &sc, true, e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}
