/* txn_savepoint — marks inside a transaction and partial rollback to one
 * (SQL SAVEPOINT / ROLLBACK TO, the engine's per-statement marks).
 *
 * Design notes (txn/README.md, "Savepoints"):
 * - A mark is the tail of the operation list, its length and redo size,
 *   and the head of the lock-state journal. Rolling back undoes the
 *   operations after the tail newest first (the same inverse as a full
 *   rollback) and cuts them off the list, so the commit record holds only
 *   what survived.
 * - The only lock state a rollback must restore is the deferred-delete
 *   flag: pre-images are committed values, which cannot change while the
 *   key is locked, and the tree holds them again after the undo. So every
 *   change of lk_deleted after the first mark is journaled, and the
 *   journal is replayed backwards to the mark.
 * - Locks taken after the mark are released (as PostgreSQL releases a
 *   subtransaction's row locks): their changes are undone, so the tree
 *   holds their pre-images again and a waiter that now gets the key finds
 *   it unchanged. Locks taken before the mark stay, even when upgraded or
 *   first changed after it (PostgreSQL keeps those too). A lock marked
 *   with txn_lock_hold stays whenever it was taken: the catalog's DDL
 *   lock, which the catalog remembers having (c_ddl_tx) for the rest of
 *   the transaction.
 * - A tree created after the mark is hidden by the undo but freed only
 *   when the transaction ends (lock entries may have named it).
 * - A new command starts, so no stamp of the undone work is mistaken for
 *   the current command's history.
 * - Operations after the mark that a large transaction already streamed to
 *   the log are compensated there first (txn_stream_compensate).
 */
#include <string.h>

#include "txn/txn_int.h"

struct txn_mark_s {
  txn_op_t *m_last;               /* the newest operation at the mark (NULL = none) */
  uint32_t m_n_ops;
  size_t m_log_bytes;
  txn_ljournal_t *m_journal;      /* the journal's head at the mark */
  txn_lock_t *m_locks;            /* the newest lock at the mark (the locks list's head) */
};

txn_mark_t *txn_savepoint_mark(txn_t *tx)
{
  /* A mark of an unchanged state is shared (the engine marks every
   * statement phase of a block; most of them change nothing). */
  txn_mark_t *l = tx->tx_last_mark;
  if (l && l->m_last == tx->tx_last && l->m_n_ops == tx->tx_n_ops &&
      l->m_journal == tx->tx_journal && l->m_locks == tx->tx_locks)
    return l;
  txn_mark_t *m = arena_alloc(tx->tx_arena, sizeof *m);
  m->m_last = tx->tx_last;
  m->m_n_ops = tx->tx_n_ops;
  m->m_log_bytes = tx->tx_log_bytes;
  m->m_journal = tx->tx_journal;
  m->m_locks = tx->tx_locks;
  tx->tx_marked = true;
  tx->tx_last_mark = m;
  return m;
}

void txn_journal_lock(txn_t *tx, txn_lock_t *lk)
{
  if (!tx->tx_marked)
    return; /* nothing can roll back to a point inside the transaction */
  txn_ljournal_t *j = arena_alloc(tx->tx_arena, sizeof *j);
  j->lj_lock = lk;
  j->lj_old_deleted = lk->lk_deleted;
  j->lj_next = tx->tx_journal;
  tx->tx_journal = j;
}

void txn_on_rollback_to(txn_t *tx, txn_rollback_to_fn_t fn, void *ctx)
{
  txn_rbcb_t *cb = arena_alloc(tx->tx_arena, sizeof *cb);
  cb->rc_fn = fn;
  cb->rc_ctx = ctx;
  cb->rc_next = tx->tx_rbcbs;
  tx->tx_rbcbs = cb;
}

/* A created tree whose CREATE was undone: hidden now (its name free for
 * this transaction to use again), freed at the end. */
static void sp_note_dead(txn_t *tx, db_tree_t *dt)
{
  db_t *db = tx->tx_db;
  mutex_lock(&db->db_dir_mx);
  dt->dt_hider = tx;
  mutex_unlock(&db->db_dir_mx);
  txn_dead_t *d = arena_alloc(tx->tx_arena, sizeof *d);
  d->dd_tree = dt;
  d->dd_next = tx->tx_dead;
  tx->tx_dead = d;
}

void txn_free_dead_trees(txn_t *tx)
{
  for (txn_dead_t *d = tx->tx_dead; d; d = d->dd_next) {
    err_t e;
    err_clear(&e);
    if (db_dir_destroy(tx->tx_db, d->dd_tree, &e) != CZ_OK)
      log_warn("a tree created and rolled back to a savepoint left pages behind: %s", e.er_msg);
  }
  tx->tx_dead = NULL;
}

int txn_rollback_to_mark(txn_t *tx, txn_mark_t *mark, err_t *e)
{
  if (tx->tx_flags & TXN_BULK)
    return err_set(e, SQLSTATE_INTERNAL, "a bulk transaction cannot roll back to a savepoint");
  db_t *db = tx->tx_db;
  int rc = CZ_OK;
  /* 0. Streamed changes after the mark are in the log: log their inverse
   * while their keys are still locked (txn_stream.c). A failure fails
   * the log (no commit can follow); the rollback in memory goes on. */
  err_t ec;
  err_clear(&ec);
  int crc = txn_stream_compensate(tx, mark->m_last, mark->m_n_ops, mark->m_log_bytes, &ec);
  /* 1. The tree changes, newest first. */
  for (txn_op_t *op = tx->tx_last; op && op != mark->m_last; op = op->to_prev) {
    err_t e1;
    err_clear(&e1);
    if (txn_undo_op(db, op, &e1) != CZ_OK) {
      if (rc == CZ_OK && e)
        *e = e1;
      rc = CZ_ERR;
      continue;
    }
    if (op->to_kind == TXN_OP_CREATE)
      sp_note_dead(tx, op->to_tree);
  }
  if (rc != CZ_OK) {
    atomic_store(&db->db_broken, true);
    wal_set_failed(db->db_wal, "a rollback to a savepoint failed");
    return err_prefix(e, "rollback to savepoint");
  }
  /* 2. Forget them: the commit record holds only what is left. */
  tx->tx_last = mark->m_last;
  if (mark->m_last)
    mark->m_last->to_next = NULL;
  else
    tx->tx_first = NULL;
  tx->tx_n_ops = mark->m_n_ops;
  tx->tx_log_bytes = mark->m_log_bytes;
  /* 3. Deferred deletes after the mark are cancelled (and deletes the
   * undone work cancelled come back). */
  for (txn_ljournal_t *j = tx->tx_journal; j && j != mark->m_journal; j = j->lj_next)
    txn_lock_set_deleted(tx, j->lj_lock, j->lj_old_deleted);
  tx->tx_journal = mark->m_journal;
  /* 3b. Locks taken after the mark go (their changes are undone). */
  txn_lock_release_after(tx, mark->m_locks);
  /* 4. Readers opened from now on see the state at the mark. */
  txn_command_next(tx);
  /* 5. Layers above rebuild what they derived from the undone work. */
  for (txn_rbcb_t *cb = tx->tx_rbcbs; cb; cb = cb->rc_next)
    if (cb->rc_fn(cb->rc_ctx, tx, e) != CZ_OK)
      return err_prefix(e, "rollback to savepoint");
  if (crc != CZ_OK) {
    if (e)
      *e = ec;
    return err_prefix(e, "rollback to savepoint");
  }
  return CZ_OK;
}
