/* tb_index — CREATE INDEX: the catalog entry and empty tree
 * (cat_create_index), then, once the index-build gate is closed (no other
 * transaction writes the table until this one ends; cat_build_gate.c),
 * one entry per row the creating transaction sees, with the unique check
 * of an insert. The scan reads only the
 * columns the index holds (key and INCLUDE; the primary key comes with
 * the locator), so long values of other columns are not fetched.
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
  arena_t *a = arena_create(NULL, "tbl_create_index");
  int *cols = arena_alloc(a, sizeof(int) * (size_t)(ix->ci_nkeys + ix->ci_ninclude + 1));
  int nc = 0;
  for (int i = 0; i < ix->ci_nkeys; i++)
    cols[nc++] = ix->ci_keys[i];
  for (int i = 0; i < ix->ci_ninclude; i++)
    cols[nc++] = ix->ci_include[i];
  tbl_scan_t *s = NULL;
  int rc = tbl_scan_open(tx, t, 0, cols, nc, NULL, NULL, true, a, &s, e);
  batch_t *b = NULL;
  if (rc == CZ_OK) {
    ty_t *types = arena_alloc(a, sizeof(ty_t) * (size_t)(nc + 1));
    for (int i = 0; i < nc; i++)
      types[i] = t->ct_types[cols[i]];
    types[nc] = ty_plain(TY_BYTEA);
    b = batch_create(a, nc + 1, types, 256, e);
    if (!b)
      rc = CZ_ERR;
  }
  datum_t *vals = arena_zalloc(a, sizeof(datum_t) * (size_t)t->ct_ncols);
  for (int i = 0; i < t->ct_ncols; i++)
    vals[i].d_null = true; /* columns the index does not hold: never read */
  arena_t *ba = arena_create(a, "batch");
  while (rc == CZ_OK) {
    arena_reset(ba);
    rc = tbl_scan_next(s, b, ba, e);
    if (rc != CZ_OK || b->b_n == 0)
      break;
    for (int r = 0; r < b->b_n && rc == CZ_OK; r++) {
      for (int k = 0; k < nc; k++)
        vec_get(&b->b_cols[k], r, &vals[cols[k]]);
      str_t loc = b->b_cols[nc].v_str[r];
      rc = tb_index_add(tx, ix, vals, (const uint8_t *)loc.s_ptr, loc.s_len - TBL_LOC_HASH, e);
    }
  }
  if (s)
    tbl_scan_close(s);
  arena_destroy(a);
  cat_snapshot_release(snap);
  return rc;
}
