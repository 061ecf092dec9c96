/* txn_undo — rollback: the inverse of each operation, newest first.
 *
 * Design notes: insert -> delete, update -> restore the old value, delete ->
 * re-insert the old entry, create tree -> hide and free it, drop tree ->
 * bring the hidden tree back. Nothing of an undone transaction was logged,
 * so undo never touches the log. An undo step that fails leaves memory
 * different from image + log: the database refuses further work (and the
 * log refuses commits) so that no checkpoint can make the half-undone state
 * durable; reopening recovers the committed state.
 */
#include <string.h>

#include "txn/txn_int.h"

int txn_undo_op(db_t *db, const txn_op_t *op, err_t *e)
{
  db_tree_t *dt = op->to_tree;
  bool unique = dt->dt_flags & BT_UNIQUE;
  int rc;
  switch (op->to_kind) {
  case TXN_OP_INSERT:
    rc = bt_delete(dt->dt_bt, op->to_key, op->to_key_len, unique ? NULL : op->to_val,
                   unique ? 0 : op->to_val_len, NULL, 0, NULL, e);
    break;
  case TXN_OP_UPDATE:
  case TXN_OP_REVIVE: /* the dead entry's bytes back: dead again */
    rc = bt_update(dt->dt_bt, op->to_key, op->to_key_len, op->to_old, op->to_old_len, NULL, 0, NULL, e);
    break;
  case TXN_OP_DELETE:
    rc = bt_insert(dt->dt_bt, op->to_key, op->to_key_len, op->to_old, op->to_old_len, e);
    break;
  case TXN_OP_CREATE:
    /* Freed by txn_undo_finish, once no lock names the tree. */
    rc = db_dir_hide(db, dt, e);
    break;
  case TXN_OP_DROP:
    rc = db_dir_unhide(db, dt, e);
    break;
  default:
    rc = err_set(e, SQLSTATE_INTERNAL, "undo of unknown operation %d", op->to_kind);
  }
  if (rc == BT_NOT_FOUND)
    rc = err_set(e, SQLSTATE_INTERNAL, "undo: the row changed by the transaction is gone");
  return rc;
}

int txn_undo_all(txn_t *tx, err_t *e)
{
  db_t *db = tx->tx_db;
  int rc = CZ_OK;
  for (const txn_op_t *op = tx->tx_last; op; op = op->to_prev) {
    /* A tree tx created is destroyed whole (txn_undo_finish): undoing
     * its rows one by one (a rebuild's millions) is wasted work. */
    if (op->to_kind != TXN_OP_CREATE && op->to_kind != TXN_OP_DROP &&
        op->to_tree->dt_creator == tx->tx_id)
      continue;
    if (op->to_unapplied) /* a deferred delete the failed commit never applied */
      continue;
    err_t e1;
    err_clear(&e1);
    if (txn_undo_op(db, op, &e1) != CZ_OK && rc == CZ_OK) {
      rc = CZ_ERR;
      if (e)
        *e = e1;
    }
  }
  if (rc != CZ_OK) {
    atomic_store(&db->db_broken, true);
    wal_set_failed(db->db_wal, "a rollback failed");
  }
  return rc;
}

void txn_undo_finish(txn_t *tx)
{
  for (const txn_op_t *op = tx->tx_last; op; op = op->to_prev) {
    if (op->to_kind != TXN_OP_CREATE)
      continue;
    err_t e;
    err_clear(&e);
    if (db_dir_destroy(tx->tx_db, op->to_tree, &e) != CZ_OK)
      log_warn("rolled back tree creation left pages behind: %s", e.er_msg);
  }
}

/* Callbacks and locks first (they may name created trees), then free the
 * trees the transaction created. */
static void txn_finish_rollback(txn_t *tx)
{
  txn_end_callbacks_and_locks(tx, false);
  txn_undo_finish(tx);
}

int txn_rollback(txn_t *tx, err_t *e)
{
  if (tx->tx_flags & TXN_BULK) {
    /* Its changes are in the trees and cannot be taken back: end it so the
     * checkpoint gate does not wait for it forever. They stay, so the end
     * callbacks hear "committed" (the catalog keeps a bulk DDL). */
    txn_end_callbacks_and_locks(tx, true);
    txn_end(tx);
    return err_set(e, SQLSTATE_INTERNAL, "a bulk transaction cannot roll back; its changes stay");
  }
  int rc = txn_undo_all(tx, e);
  txn_finish_rollback(tx);
  txn_end(tx);
  return rc;
}
