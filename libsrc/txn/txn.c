/* txn — transactions: begin through the checkpoint gate, row operations
 * applied to the B-trees at once and remembered for redo and undo, and
 * commit through the log.
 *
 * Design notes:
 * - Every operation goes to the tree first; only a change that happened is
 *   remembered (a failed insert or an absent key logs nothing).
 * - Commit encodes the operation list as one log record and waits for it
 *   to be durable (group commit in wal.c). Only then are the pages of trees
 *   dropped by the transaction freed: until the DROP is durable a crash or
 *   a failed commit must find them intact.
 * - A transaction stays active (holding the checkpoint gate open) until it
 *   ends, so a checkpoint image never holds part of a transaction.
 * - Bulk transactions remember nothing; their commit is a checkpoint.
 */
#include <string.h>

#include "txn/txn_int.h"

txn_t *txn_begin(db_t *db, int flags, err_t *e)
{
  if (atomic_load(&db->db_broken)) {
    err_set(e, SQLSTATE_INTERNAL, "the database must be reopened after an earlier failure");
    return NULL;
  }
  mutex_lock(&db->db_mx);
  while (db->db_ckpt_pending)
    cond_wait(&db->db_gate, &db->db_mx);
  db->db_n_active++;
  mutex_unlock(&db->db_mx);
  arena_t *a = arena_create(NULL, "txn");
  txn_t *tx = arena_zalloc(a, sizeof *tx);
  tx->tx_db = db;
  tx->tx_arena = a;
  tx->tx_flags = flags;
  return tx;
}

void txn_end(txn_t *tx)
{
  db_t *db = tx->tx_db;
  arena_destroy(tx->tx_arena);
  mutex_lock(&db->db_mx);
  if (--db->db_n_active == 0)
    cond_broadcast(&db->db_gate);
  mutex_unlock(&db->db_mx);
}

static const uint8_t *txn_copy(txn_t *tx, const void *p, size_t n)
{
  if (n == 0)
    return NULL;
  uint8_t *c = arena_alloc(tx->tx_arena, n);
  memcpy(c, p, n);
  return c;
}

txn_op_t *txn_add_op(txn_t *tx, int kind, db_tree_t *dt, const void *key, size_t key_len,
                     const void *val, size_t val_len, const void *old, size_t old_len)
{
  txn_op_t *op = arena_zalloc(tx->tx_arena, sizeof *op);
  op->to_kind = kind;
  op->to_tree = dt;
  op->to_key = txn_copy(tx, key, key_len);
  op->to_key_len = (uint32_t)key_len;
  op->to_val = txn_copy(tx, val, val_len);
  op->to_val_len = (uint32_t)val_len;
  op->to_old = txn_copy(tx, old, old_len);
  op->to_old_len = (uint32_t)old_len;
  op->to_prev = tx->tx_last;
  if (tx->tx_last)
    tx->tx_last->to_next = op;
  else
    tx->tx_first = op;
  tx->tx_last = op;
  tx->tx_n_ops++;
  tx->tx_log_bytes += TXN_LOG_OP_HEAD + key_len + val_len;
  return op;
}

/* The directory entry of a handle; XX000 for a tree txn/ does not know,
 * 55006 for one dropped by an open transaction (a change logged after its
 * DROP could not be replayed). */
static db_tree_t *txn_tree(txn_t *tx, bt_tree_t *t, err_t *e)
{
  db_tree_t *dt = t == tx->tx_last_bt ? tx->tx_last_tree : db_dir_find_bt(tx->tx_db, t);
  if (!dt) {
    err_set(e, SQLSTATE_INTERNAL, "tree with root page %u is not a named tree of this database",
            (unsigned)bt_root(t));
    return NULL;
  }
  if (atomic_load(&dt->dt_hidden)) {
    err_set(e, SQLSTATE_OBJECT_IN_USE, "tree %s has been dropped", dt->dt_name);
    return NULL;
  }
  tx->tx_last_bt = t;
  tx->tx_last_tree = dt;
  return dt;
}

static bool txn_logged(const txn_t *tx)
{
  return !(tx->tx_flags & TXN_BULK);
}

int txn_insert(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e)
{
  db_tree_t *dt = txn_tree(tx, t, e);
  if (!dt)
    return CZ_ERR;
  int rc = bt_insert(t, key, key_len, val, val_len, e);
  if (rc == CZ_OK && txn_logged(tx))
    txn_add_op(tx, TXN_OP_INSERT, dt, key, key_len, val, val_len, NULL, 0);
  return rc;
}

int txn_update(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e)
{
  db_tree_t *dt = txn_tree(tx, t, e);
  if (!dt)
    return CZ_ERR;
  uint8_t old[BT_MAX_ROW];
  size_t old_len = 0;
  int rc = bt_update(t, key, key_len, val, val_len, old, sizeof old, &old_len, e);
  if (rc == CZ_OK && txn_logged(tx))
    txn_add_op(tx, TXN_OP_UPDATE, dt, key, key_len, val, val_len, old, CZ_MIN(old_len, sizeof old));
  return rc;
}

int txn_delete(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e)
{
  db_tree_t *dt = txn_tree(tx, t, e);
  if (!dt)
    return CZ_ERR;
  uint8_t old[BT_MAX_ROW];
  size_t old_len = 0;
  int rc = bt_delete(t, key, key_len, val, val_len, old, sizeof old, &old_len, e);
  if (rc == CZ_OK && txn_logged(tx)) {
    /* A unique tree's entry is named by the key alone: log no value. */
    size_t named = (dt->dt_flags & BT_UNIQUE) ? 0 : val_len;
    txn_add_op(tx, TXN_OP_DELETE, dt, key, key_len, val, named, old, CZ_MIN(old_len, sizeof old));
  }
  return rc;
}

int txn_insert_batch(txn_t *tx, bt_tree_t *t, const bt_row_t *rows, int n, err_t *e)
{
  db_tree_t *dt = txn_tree(tx, t, e);
  if (!dt)
    return CZ_ERR;
  int done = 0;
  int rc = bt_insert_batch(t, rows, n, &done, e);
  if (rc == CZ_OK)
    done = n;
  if (txn_logged(tx))
    for (int i = 0; i < done; i++)
      txn_add_op(tx, TXN_OP_INSERT, dt, rows[i].r_key, rows[i].r_key_len, rows[i].r_val, rows[i].r_val_len,
                 NULL, 0);
  return rc;
}

/* The redo record: the operations in the order they were done. */
static uint8_t *txn_encode_redo(txn_t *tx, size_t *len)
{
  size_t n = 4 + tx->tx_log_bytes;
  uint8_t *buf = arena_alloc(tx->tx_arena, n);
  txn_log_begin(buf, tx->tx_n_ops);
  size_t off = 4;
  for (txn_op_t *op = tx->tx_first; op; op = op->to_next) {
    txn_logop_t lo = { .lo_kind = op->to_kind, .lo_tree_id = op->to_tree->dt_id,
                       .lo_key = op->to_key, .lo_key_len = op->to_key_len,
                       .lo_val = op->to_val, .lo_val_len = op->to_val_len };
    off += txn_log_op_encode(buf + off, &lo);
  }
  *len = off;
  return buf;
}

/* After the commit record is durable: free the pages of dropped trees. A
 * failure here only leaks pages (the drop itself is durable). */
static void txn_finish_drops(txn_t *tx)
{
  for (txn_op_t *op = tx->tx_first; op; op = op->to_next) {
    if (op->to_kind != TXN_OP_DROP)
      continue;
    err_t e;
    err_clear(&e);
    if (db_dir_destroy(tx->tx_db, op->to_tree, &e) != CZ_OK)
      log_warn("committed drop left pages behind: %s", e.er_msg);
  }
}

static int txn_commit_bulk(txn_t *tx, err_t *e)
{
  db_t *db = tx->tx_db;
  txn_end(tx);
  if (db_checkpoint(db, e) != CZ_OK)
    return err_prefix(e, "bulk commit");
  atomic_fetch_add(&db->db_commits, 1);
  return CZ_OK;
}

int txn_commit(txn_t *tx, err_t *e)
{
  if (tx->tx_flags & TXN_BULK)
    return txn_commit_bulk(tx, e);
  db_t *db = tx->tx_db;
  if (tx->tx_n_ops == 0) {
    txn_end(tx);
    return CZ_OK;
  }
  size_t len;
  uint8_t *rec = txn_encode_redo(tx, &len);
  if (wal_append_and_wait(db->db_wal, rec, len, e) != CZ_OK) {
    err_t e2;
    err_clear(&e2);
    if (txn_undo_all(tx, &e2) != CZ_OK)
      log_error("rollback after a failed commit: %s", e2.er_msg);
    txn_end(tx);
    return err_prefix(e, "commit");
  }
  txn_finish_drops(tx);
  atomic_fetch_add(&db->db_commits, 1);
  txn_end(tx);
  return CZ_OK;
}
