/* tb_index — CREATE INDEX: the catalog entry and empty tree
 * (cat_create_index), then, once the index-build gate is closed (no other
 * transaction writes the table until this one ends; cat_build_gate.c),
 * one entry per row the creating transaction sees, built in sorted
 * chunks (tb_rebuild.c's tbl_build_index).
 */
#include <string.h>

#include "table/tb_int.h"

int tbl_create_index(cat_t *c, txn_t *tx, const cat_index_def_t *def, cat_oid_t *oid, err_t *e)
{
  cat_oid_t ioid;
  if (cat_create_index(c, tx, def, &ioid, e) != CZ_OK)
    return CZ_ERR;
  if (oid)
    *oid = ioid;
  cat_snapshot_t *snap = cat_snapshot_tx(c, tx);
  const cat_index_t *ix = cat_index_by_oid(snap, ioid);
  if (!ix) {
    cat_snapshot_release(snap);
    return err_set(e, SQLSTATE_INTERNAL, "index %u vanished after its creation", (unsigned)ioid);
  }
  const cat_table_t *t = ix->ci_table;
  /* no other transaction may change the rows while they are read, nor
   * write them later with a snapshot that lacks the index */
  if (cat_index_build_begin(tx, t, snap->cs_version, e) != CZ_OK) {
    cat_snapshot_release(snap);
    return CZ_ERR;
  }
  int rc = tbl_build_index(tx, ix, e);
  cat_snapshot_release(snap);
  return rc;
}
