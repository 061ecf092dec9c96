/* txn — transactions: begin through the checkpoint gate, row operations
 * applied to the B-trees at once and remembered for redo and undo, and
 * commit through the log.
 *
 * Design notes:
 * - Every operation goes to the tree first; only a change that happened is
 *   remembered (a failed insert or an absent key logs nothing).
 * - Commit encodes the operation list as one log record and waits for it
 *   to be durable (group commit in wal.c); a large transaction wrote most
 *   of it already, as continuation records (txn_stream.c). Only then are
 *   the pages of trees dropped by the transaction freed: until the DROP is
 *   durable a crash or a failed commit must find them intact.
 * - A transaction stays active (holding the checkpoint gate open) until it
 *   ends, so a checkpoint image never holds part of a transaction.
 * - Bulk transactions remember nothing; their commit is a checkpoint.
 */
#include <stdlib.h>
#include <string.h>

#include "txn/txn_int.h"

txn_t *txn_begin(db_t *db, int flags, err_t *e)
{
  if (atomic_load(&db->db_broken)) {
    err_set(e, SQLSTATE_INTERNAL, "the database must be reopened after an earlier failure");
    return NULL;
  }
  for (;;) {
    atomic_fetch_add(&db->db_n_active, 1);
    if (CZ_LIKELY(!atomic_load(&db->db_ckpt_pending)) || (flags & TXN_NESTED))
      break;
    /* A checkpoint is closing the gate: step back out and wait for it. */
    db_gate_leave(db);
    thread_block_begin(); /* the checkpoint may wait for idle sessions' transactions */
    mutex_lock(&db->db_mx);
    while (atomic_load(&db->db_ckpt_pending))
      cond_wait(&db->db_gate, &db->db_mx);
    mutex_unlock(&db->db_mx);
    thread_block_end();
  }
  arena_t *a = arena_create(NULL, "txn");
  txn_t *tx = arena_zalloc(a, sizeof *tx);
  tx->tx_db = db;
  tx->tx_arena = a;
  tx->tx_flags = flags;
  tx->tx_id = atomic_fetch_add(&db->db_next_txn_id, 1) + 1;
  tx->tx_cmd = 1;
  /* Bulk transactions log nothing to stream. */
  tx->tx_stream_limit = (flags & TXN_BULK) ? 0 : (size_t)db->db_cfg.dc_log_stream_bytes;
  return tx;
}

void txn_on_end(txn_t *tx, txn_end_fn_t fn, void *ctx)
{
  txn_endcb_t *cb = arena_alloc(tx->tx_arena, sizeof *cb);
  cb->ec_fn = fn;
  cb->ec_ctx = ctx;
  cb->ec_next = tx->tx_endcbs;
  tx->tx_endcbs = cb;
}

arena_t *txn_arena(txn_t *tx)
{
  return tx->tx_arena;
}

uint32_t txn_command_next(txn_t *tx)
{
  return atomic_fetch_add(&tx->tx_cmd, 1) + 1;
}

bool txn_is_bulk(const txn_t *tx)
{
  return tx->tx_flags & TXN_BULK;
}

db_t *txn_db(const txn_t *tx)
{
  return tx->tx_db;
}

uint64_t txn_id(const txn_t *tx)
{
  return tx->tx_id;
}

/* Runs the end callbacks (before the locks go: what they publish must be
 * in place when the next lock holder looks), then releases the locks. */
void txn_end_callbacks_and_locks(txn_t *tx, bool committed)
{
  for (txn_endcb_t *cb = tx->tx_endcbs; cb; cb = cb->ec_next)
    cb->ec_fn(cb->ec_ctx, tx, committed);
  tx->tx_endcbs = NULL;
  txn_lock_release_all(tx);
}

void txn_end(txn_t *tx)
{
  db_t *db = tx->tx_db;
  if (tx->tx_endcbs || tx->tx_locks)
    txn_end_callbacks_and_locks(tx, false);
  txn_snap_end(tx);
  txn_free_dead_trees(tx);
  arena_destroy(tx->tx_arena);
  db_gate_leave(db);
}

void db_gate_leave(db_t *db)
{
  /* Only a closing gate (checkpoint, close) waits for the count to reach
   * 0; it holds db_mx from its last look at the count until it waits, so
   * the broadcast cannot slip in between. */
  if (atomic_fetch_sub(&db->db_n_active, 1) == 1 && atomic_load(&db->db_ckpt_pending)) {
    mutex_lock(&db->db_mx);
    cond_broadcast(&db->db_gate);
    mutex_unlock(&db->db_mx);
  }
}

static const uint8_t *txn_copy(txn_t *tx, const void *p, size_t n)
{
  if (n == 0)
    return NULL;
  uint8_t *c = arena_alloc(tx->tx_arena, n);
  memcpy(c, p, n);
  return c;
}

/* An operation whose key and value bytes the caller keeps for the whole
 * transaction (txn_fill_batch: they are in the transaction's arena). */
static txn_op_t *txn_add_op_kept(txn_t *tx, int kind, db_tree_t *dt, const void *key,
                                 size_t key_len, const void *val, size_t val_len)
{
  txn_op_t *op = arena_alloc(tx->tx_arena, sizeof *op);
  memset(op, 0, sizeof *op);
  op->to_kind = kind;
  op->to_tree = dt;
  op->to_key = key;
  op->to_key_len = (uint32_t)key_len;
  op->to_val = val_len ? val : NULL;
  op->to_val_len = (uint32_t)val_len;
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

txn_op_t *txn_add_op(txn_t *tx, int kind, db_tree_t *dt, const void *key, size_t key_len,
                     const void *val, size_t val_len, const void *old, size_t old_len)
{
  txn_op_t *op = arena_zalloc(tx->tx_arena, sizeof *op);
  op->to_kind = kind;
  op->to_tree = dt;
  op->to_key = txn_copy(tx, key, key_len);
  op->to_key_len = (uint32_t)key_len;
  op->to_val = txn_copy_val(tx, kind, dt, val, val_len, &op->to_val_redo);
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
static void txn_cache_tree(txn_t *tx, bt_tree_t *t, db_tree_t *dt)
{
  unsigned i = tx->tx_tc_next++ % TXN_TREE_CACHE;
  tx->tx_tc_bt[i] = t;
  tx->tx_tc_dt[i] = dt;
}

db_tree_t *txn_tree_of(txn_t *tx, bt_tree_t *t)
{
  if (t == tx->tx_last_bt)
    return tx->tx_last_tree;
  db_tree_t *dt = NULL;
  for (int i = 0; i < TXN_TREE_CACHE && !dt; i++)
    if (tx->tx_tc_bt[i] == t)
      dt = tx->tx_tc_dt[i];
  if (!dt) {
    dt = db_dir_find_bt(tx->tx_db, t);
    if (!dt)
      return NULL;
    txn_cache_tree(tx, t, dt);
  }
  tx->tx_last_bt = t;
  tx->tx_last_tree = dt;
  return dt;
}

void txn_note_tree(txn_t *tx, bt_tree_t *t, db_tree_t *dt)
{
  for (int i = 0; i < TXN_TREE_CACHE; i++)
    if (tx->tx_tc_bt[i] == t)
      return;
  txn_cache_tree(tx, t, dt);
}

static db_tree_t *txn_tree(txn_t *tx, bt_tree_t *t, err_t *e)
{
  db_tree_t *dt = txn_tree_of(tx, t);
  if (!dt) {
    err_set(e, SQLSTATE_INTERNAL, "tree with root page %u is not a named tree of this database",
            (unsigned)bt_root(t));
    return NULL;
  }
  if (atomic_load(&dt->dt_hidden)) {
    err_set(e, SQLSTATE_OBJECT_IN_USE, "tree %s has been dropped", dt->dt_name);
    return NULL;
  }
  return dt;
}

static bool txn_logged(const txn_t *tx)
{
  return !(tx->tx_flags & TXN_BULK);
}

/* After a row operation: a transaction whose redo not yet logged reached
 * its limit streams it (txn_stream.c). Only after a success: a failed
 * call's caller undoes it, and the next call streams. */
static int txn_after_change(txn_t *tx, int rc, err_t *e)
{
  if (rc == CZ_OK && CZ_UNLIKELY(txn_stream_due(tx)))
    return txn_stream(tx, e);
  return rc;
}

int txn_insert(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e)
{
  db_tree_t *dt = txn_tree(tx, t, e);
  if (!dt)
    return CZ_ERR;
  if (CZ_UNLIKELY(tx->tx_sx != NULL) && txn_ssi_write(tx, dt, e) != CZ_OK)
    return CZ_ERR;
  int rc;
  if (txn_locks_tree(tx, dt)) {
    rc = txn_locked_insert(tx, dt, key, key_len, val, val_len, e);
  } else {
    rc = bt_insert(t, key, key_len, val, val_len, e);
    if (rc == CZ_OK && txn_logged(tx))
      txn_add_op(tx, TXN_OP_INSERT, dt, key, key_len, val, val_len, NULL, 0);
  }
  return txn_after_change(tx, rc, e);
}

int txn_update(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e)
{
  db_tree_t *dt = txn_tree(tx, t, e);
  if (!dt)
    return CZ_ERR;
  if (CZ_UNLIKELY(tx->tx_sx != NULL) && txn_ssi_write(tx, dt, e) != CZ_OK)
    return CZ_ERR;
  if (txn_locks_tree(tx, dt))
    return txn_after_change(tx, txn_locked_update(tx, dt, key, key_len, val, val_len, e), e);
  uint8_t old[BT_MAX_ROW];
  size_t old_len = 0;
  int rc = bt_update(t, key, key_len, val, val_len, old, sizeof old, &old_len, e);
  if (rc == CZ_OK && txn_logged(tx))
    txn_add_op(tx, TXN_OP_UPDATE, dt, key, key_len, val, val_len, old, CZ_MIN(old_len, sizeof old));
  return txn_after_change(tx, rc, e);
}

int txn_delete(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e)
{
  db_tree_t *dt = txn_tree(tx, t, e);
  if (!dt)
    return CZ_ERR;
  if (CZ_UNLIKELY(tx->tx_sx != NULL) && txn_ssi_write(tx, dt, e) != CZ_OK)
    return CZ_ERR;
  if (txn_locks_tree(tx, dt))
    return txn_after_change(tx, txn_locked_delete(tx, dt, key, key_len, e), e);
  uint8_t old[BT_MAX_ROW];
  size_t old_len = 0;
  int rc = bt_delete(t, key, key_len, val, val_len, old, sizeof old, &old_len, e);
  if (rc == CZ_OK && txn_logged(tx)) {
    /* A unique tree's entry is named by the key alone: log no value. */
    size_t named = (dt->dt_flags & BT_UNIQUE) ? 0 : val_len;
    txn_add_op(tx, TXN_OP_DELETE, dt, key, key_len, val, named, old, CZ_MIN(old_len, sizeof old));
  }
  return txn_after_change(tx, rc, e);
}

int txn_insert_batch(txn_t *tx, bt_tree_t *t, const bt_row_t *rows, int n, err_t *e)
{
  int done;
  return txn_insert_batch_done(tx, t, rows, n, &done, e);
}

static int txn_insert_rows(txn_t *tx, db_tree_t *dt, bt_tree_t *t, const bt_row_t *rows, int n,
                           int *n_done, bool lock, bool kept, err_t *e);

int txn_fill_batch(txn_t *tx, bt_tree_t *t, const bt_row_t *rows, int n, int *n_done, err_t *e)
{
  db_tree_t *dt = txn_tree(tx, t, e);
  if (!dt)
    return CZ_ERR;
  if (dt->dt_creator != tx->tx_id)
    return err_set(e, SQLSTATE_INTERNAL, "tree %s was not created by the filling transaction",
                   dt->dt_name);
  return txn_after_change(tx, txn_insert_rows(tx, dt, t, rows, n, n_done, false, true, e), e);
}

int txn_insert_batch_done(txn_t *tx, bt_tree_t *t, const bt_row_t *rows, int n, int *n_done,
                          err_t *e)
{
  db_tree_t *dt = txn_tree(tx, t, e);
  if (!dt)
    return CZ_ERR;
  *n_done = 0;
  if (CZ_UNLIKELY(tx->tx_sx != NULL) && txn_ssi_write(tx, dt, e) != CZ_OK)
    return CZ_ERR;
  return txn_after_change(tx, txn_insert_rows(tx, dt, t, rows, n, n_done, txn_locks_tree(tx, dt), false, e),
                          e);
}

/* Sorted rows into dt: under their locks (lock: txn_insert_batch.c), else
 * in one bt_insert_batch, logged (kept: the rows' bytes live in tx's arena,
 * the log keeps them without a copy). */
static int txn_insert_rows(txn_t *tx, db_tree_t *dt, bt_tree_t *t, const bt_row_t *rows, int n,
                           int *n_done, bool lock, bool kept, err_t *e)
{
  *n_done = 0;
  if (lock)
    return txn_locked_insert_batch(tx, dt, rows, n, n_done, e);
  int done = 0;
  int rc = bt_insert_batch(t, rows, n, &done, e);
  if (rc == CZ_OK)
    done = n;
  if (txn_logged(tx))
    for (int i = 0; i < done; i++) {
      if (kept)
        txn_add_op_kept(tx, TXN_OP_INSERT, dt, rows[i].r_key, rows[i].r_key_len, rows[i].r_val,
                        rows[i].r_val_len);
      else
        txn_add_op(tx, TXN_OP_INSERT, dt, rows[i].r_key, rows[i].r_key_len, rows[i].r_val,
                   rows[i].r_val_len, NULL, 0);
    }
  *n_done = done;
  return rc;
}

/* After the commit record is durable: the dropped trees go to the
 * graveyard; the next checkpoint (no transaction active, so no statement
 * still reading them) frees their pages. */
static void txn_finish_drops(txn_t *tx)
{
  for (txn_op_t *op = tx->tx_first; op; op = op->to_next)
    if (op->to_kind == TXN_OP_DROP)
      db_dir_bury(tx->tx_db, op->to_tree);
}

static int txn_commit_bulk(txn_t *tx, err_t *e)
{
  db_t *db = tx->tx_db;
  txn_end_callbacks_and_locks(tx, true);
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
  /* A serializable transaction a read doomed must not commit. */
  if (CZ_UNLIKELY(tx->tx_sx != NULL) && txn_check_serializable(tx, e) != CZ_OK)
    goto failed;
  bool deletes = tx->tx_n_deferred > 0;
  if (txn_lock_apply_deletes(tx, e) != CZ_OK)
    goto failed;
  if (tx->tx_n_ops == 0) {
    if (tx->tx_sx)
      txn_ssi_commit(tx, e);
    txn_end_callbacks_and_locks(tx, true);
    txn_end(tx);
    return CZ_OK;
  }
  /* The deferred deletes may have taken the redo past the limit. */
  if (txn_stream_due(tx) && txn_stream(tx, e) != CZ_OK)
    goto failed;
  size_t len;
  uint8_t *rec = txn_commit_record(tx, &len, e);
  if (!rec)
    goto failed;
  /* The wait for the log flush is a block like a lock wait: a session
   * pool whose threads all wait for the disk would hold back the very
   * committers that could share the next flush (group commit). */
  thread_block_begin();
  int wrc = wal_append_and_wait(db->db_wal, rec, len, e);
  thread_block_end();
  free(rec);
  if (wrc != CZ_OK)
    goto failed;
  /* Durable: number the commit, keep what older snapshots need, apply
   * the deferred deletes. A failure here leaves memory behind the log. */
  err_t es;
  err_clear(&es);
  if (txn_snap_commit(tx, deletes, &es) != CZ_OK) {
    log_error("after a durable commit: %s", es.er_msg);
    atomic_store(&db->db_broken, true);
    wal_set_failed(db->db_wal, "a committed change could not be applied");
  }
  txn_end_callbacks_and_locks(tx, true);
  txn_finish_drops(tx);
  atomic_fetch_add(&db->db_commits, 1);
  txn_end(tx);
  return CZ_OK;

failed:;
  err_t e2;
  err_clear(&e2);
  if (txn_undo_all(tx, &e2) != CZ_OK)
    log_error("rollback after a failed commit: %s", e2.er_msg);
  txn_end_callbacks_and_locks(tx, false);
  txn_undo_finish(tx);
  txn_end(tx);
  return err_prefix(e, "commit");
}
