/* cat_owner — ALTER … OWNER TO: the owner field of a schema, table,
 * sequence or view record rewritten in place.
 *
 * Design notes: every record kind that has an owner keeps it as a u32 at
 * a fixed place (README "System tables"): after the name in sys.schemas,
 * after the schema OID in sys.tables, sys.sequences and sys.views. So the
 * change reads the record as the transaction sees it (under the DDL lock
 * nobody else writes the catalog), patches those four bytes and writes
 * the record back through the transaction: logged, undone on rollback,
 * and every field added later at the record's end is kept as it is. */
#include <string.h>

#include "catalog/cat_int.h"

/* The owner's offset in one record: fixed, or after the leading name. */
static int owner_offset(int sys, const uint8_t *v, size_t vl, size_t *off)
{
  if (sys != CAT_SYS_SCHEMAS) {
    *off = 4;
    return vl >= 8 ? CZ_OK : CZ_ERR;
  }
  if (vl < 4)
    return CZ_ERR;
  uint32_t n = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
  *off = 4 + (n == 0xffffffffu ? 0 : n);
  return *off + 4 <= vl ? CZ_OK : CZ_ERR;
}

static int set_owner_rec(cat_t *c, txn_t *tx, int sys, cat_oid_t oid, cat_oid_t owner, err_t *e)
{
  uint8_t k[4], v[BT_MAX_ROW];
  size_t kl = cat_key_oid(k, oid), vl = 0, off;
  bool found = false, changed = false;
  if (txn_lock_read(tx, c->c_sys[sys], k, kl, v, sizeof v, &vl, &found, &changed, e) != CZ_OK)
    return CZ_ERR;
  if (!found || vl > sizeof v || owner_offset(sys, v, vl, &off) != CZ_OK)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "catalog record of %s %u is missing or short",
                   cat_sys_names[sys], (unsigned)oid);
  v[off] = (uint8_t)(owner >> 24);
  v[off + 1] = (uint8_t)(owner >> 16);
  v[off + 2] = (uint8_t)(owner >> 8);
  v[off + 3] = (uint8_t)owner;
  cat_wbuf_t w = {v, vl, sizeof v, false};
  return cat_sys_put(c, tx, sys, k, kl, &w, true, e);
}

int cat_set_owner(cat_t *c, txn_t *tx, char kind, cat_oid_t oid, cat_oid_t owner, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  int rc;
  switch (kind) {
  case 'n': rc = set_owner_rec(c, tx, CAT_SYS_SCHEMAS, oid, owner, e); break;
  case 'r': rc = set_owner_rec(c, tx, CAT_SYS_TABLES, oid, owner, e); break;
  case 'S': rc = set_owner_rec(c, tx, CAT_SYS_SEQUENCES, oid, owner, e); break;
  case 'v': rc = set_owner_rec(c, tx, CAT_SYS_VIEWS, oid, owner, e); break;
  case 'm':  /* a materialized view is its table and its view record (same OID) */
    rc = set_owner_rec(c, tx, CAT_SYS_TABLES, oid, owner, e);
    if (rc == CZ_OK)
      rc = set_owner_rec(c, tx, CAT_SYS_VIEWS, oid, owner, e);
    break;
  default: rc = err_set(e, SQLSTATE_INTERNAL, "no owner for object kind '%c'", kind);
  }
  return rc == CZ_OK ? cat_ddl_end(c, tx, e) : CZ_ERR;
}
