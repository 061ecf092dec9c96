/* db_recover — roll-forward recovery: replay every complete record of the
 * log generation the checkpoint image names, in log order.
 *
 * Design notes: the image holds exactly the transactions committed before
 * its checkpoint (none was active during it), and log generation G holds
 * exactly those committed after it, each once, in commit order. Records
 * are applied straight through the B-trees, without transactions; trees are
 * found by id, which replay of a CREATE re-establishes. Concurrent
 * transactions touched disjoint keys, so commit order reproduces their
 * combined effect. Any operation that does not apply cleanly (a key that
 * should be absent is present, an unknown tree) means the log and the
 * image disagree: recovery stops with XX001 rather than guess.
 */
#include "txn/txn_int.h"

static int db_replay_op(void *ctx, const txn_logop_t *op, err_t *e)
{
  db_t *db = ctx;
  if (op->lo_kind == TXN_OP_CREATE) {
    if (op->lo_val_len != 4)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "log: create tree with a %u-byte flags field", op->lo_val_len);
    db_tree_t *dt;
    return db_dir_create(db, (const char *)op->lo_key, op->lo_key_len, op->lo_tree_id,
                         wal_get_u32(op->lo_val), &dt, e);
  }
  db_tree_t *dt = db_dir_find_id(db, op->lo_tree_id);
  if (!dt)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "log names tree id %llu, which does not exist",
                   (unsigned long long)op->lo_tree_id);
  bool unique = dt->dt_flags & BT_UNIQUE;
  int rc;
  switch (op->lo_kind) {
  case TXN_OP_DROP:
    rc = db_dir_hide(db, dt, e);
    return rc == CZ_OK ? db_dir_destroy(db, dt, e) : rc;
  case TXN_OP_INSERT:
    rc = bt_insert(dt->dt_bt, op->lo_key, op->lo_key_len, op->lo_val, op->lo_val_len, e);
    break;
  case TXN_OP_UPDATE:
    rc = bt_update(dt->dt_bt, op->lo_key, op->lo_key_len, op->lo_val, op->lo_val_len, NULL, 0, NULL, e);
    break;
  default: /* TXN_OP_DELETE: txn_log_decode admits no other kind */
    rc = bt_delete(dt->dt_bt, op->lo_key, op->lo_key_len, unique ? NULL : op->lo_val,
                   unique ? 0 : op->lo_val_len, NULL, 0, NULL, e);
    break;
  }
  if (rc == BT_NOT_FOUND)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "log: a row changed in tree %s is missing", dt->dt_name);
  return rc;
}

static int db_replay_record(void *ctx, const uint8_t *payload, size_t len, err_t *e)
{
  return txn_log_decode(payload, len, db_replay_op, ctx, e);
}

int db_recover(db_t *db, err_t *e)
{
  wal_read_info_t info;
  if (wal_read_all(db->db_cfg.dc_wal_path, db->db_generation, db_replay_record, db, &info, e) != CZ_OK)
    return err_prefix(e, "recovery from %s (record %llu)", db->db_cfg.dc_wal_path,
                      (unsigned long long)info.wr_records + 1);
  db->db_replayed = info.wr_records;
  if (info.wr_stale)
    log_info("log %s has generation %llu, the image names %llu: already in the image, ignored",
             db->db_cfg.dc_wal_path, (unsigned long long)info.wr_generation,
             (unsigned long long)db->db_generation);
  else if (info.wr_records > 0 || info.wr_valid_end < info.wr_file_size)
    log_info("recovery: %llu transactions replayed from %s, %llu bytes after the last record ignored "
             "(preallocated zeros or a torn tail)",
             (unsigned long long)info.wr_records, db->db_cfg.dc_wal_path,
             (unsigned long long)(info.wr_file_size - info.wr_valid_end));
  return CZ_OK;
}
