/* tb_lock — the row locks of SELECT … FOR UPDATE / FOR SHARE: lock the
 * row a locator names and say whether it is still the version the scan
 * read.
 *
 * Design notes (table/README.md, "Row locks of SELECT"):
 * - The lock is the primary key's row lock in txn/ (txn_lock_row), in
 *   the strength asked (txn_lock_mode_t: PostgreSQL's four). Writers take
 *   the same lock, NO KEY UPDATE or EXCLUSIVE, so a row locked in a share
 *   mode cannot change until its holders end (FOR KEY SHARE lets an
 *   update that keeps the key through).
 * - After the lock (and any wait) the row is read again under it and its
 *   hash compared with the locator's: equal, the scan's version is the
 *   current one; different, another transaction changed it and committed
 *   (the caller re-checks the new version, PostgreSQL's EvalPlanQual in
 *   read committed); absent, it was deleted (the caller skips it). Under
 *   a snapshot (REPEATABLE READ, SERIALIZABLE) both are 40001.
 */
#include <string.h>

#include "table/tb_int.h"

int tbl_lock_row(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t loc_len, int strength,
                 bool nowait, datum_t *cur, arena_t *a, int *st, err_t *e)
{
  if (loc_len <= TBL_LOC_HASH || loc_len > TBL_MAX_LOC)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "malformed row locator");
  size_t pk_len = loc_len - TBL_LOC_HASH;
  uint64_t want = 0;
  for (int i = 0; i < TBL_LOC_HASH; i++)
    want |= (uint64_t)loc[pk_len + (size_t)i] << (8 * i);
  uint8_t row[BT_MAX_ROW];
  size_t len = 0;
  bool found = false;
  int rc = txn_lock_row(tx, t->ct_indexes[0]->ci_tree, loc, pk_len,
                        strength == TBL_LOCK_KEY_SHARE     ? TXN_LOCK_KEY_SHARE
                        : strength == TBL_LOCK_SHARE       ? TXN_LOCK_SHARED
                        : strength == TBL_LOCK_NO_KEY_UPDATE ? TXN_LOCK_NO_KEY_UPDATE
                                                           : TXN_LOCK_EXCLUSIVE,
                        nowait, row, sizeof row, &len,
                        &found, e);
  if (rc == TXN_BUSY) {
    *st = TBL_LOCK_BUSY;
    return CZ_OK;
  }
  if (rc != CZ_OK)
    return CZ_ERR;
  if (found && len <= BT_MAX_ROW && tb_is_column(t) &&
      tb_col_row_inplace(t, row, sizeof row, &len, e) != CZ_OK)
    return CZ_ERR;
  bool same = found && len <= BT_MAX_ROW && tb_row_hash(row, len) == want;
  /* Under a snapshot the scan read the snapshot's version: a newer one
   * (changed or deleted after the snapshot) is 40001, first updater wins,
   * as PostgreSQL's REPEATABLE READ locks. */
  if (!same && txn_isolation(tx) != TXN_ISO_READ_COMMITTED)
    return err_set(e, SQLSTATE_SERIALIZATION, "could not serialize access due to concurrent update");
  if (!found || len > BT_MAX_ROW) {
    *st = TBL_LOCK_GONE;
    return CZ_OK;
  }
  if (same) {
    *st = TBL_LOCK_OK;
    return CZ_OK;
  }
  *st = TBL_LOCK_CHANGED;
  if (!cur)
    return CZ_OK;
  arena_t *tmp = NULL;
  rc = tb_row_decode_full(tx, t, row, len, NULL, cur, &tmp, e);
  /* the values outlive this call: strings into the caller's arena */
  for (int c = 0; rc == CZ_OK && c < t->ct_ncols; c++) {
    if (cur[c].d_null || ty_phys(t->ct_types[c].t_id) != TP_STR || !cur[c].d_str.s_len)
      continue;
    char *p = arena_alloc(a, cur[c].d_str.s_len);
    memcpy(p, cur[c].d_str.s_ptr, cur[c].d_str.s_len);
    cur[c].d_str.s_ptr = p;
  }
  arena_destroy(tmp);
  return rc;
}
