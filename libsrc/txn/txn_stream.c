/* txn_stream — streamed redo: a transaction whose redo not yet logged
 * reaches [Parameters] LogStreamBytes writes it to the log as continuation
 * records while it runs, so that neither its memory nor its commit record
 * grows with its size (txn/README.md, "Streamed redo").
 *
 * Design notes:
 * - A continuation record is appended without waiting for durability
 *   (wal_append_stream): the commit record's fdatasync covers every byte
 *   before it. Recovery applies a transaction's continuation records only
 *   when its commit record (tagged with the same transaction id) follows
 *   in the log (db_recover.c).
 * - The operation list stays whole: rollback and ROLLBACK TO still walk
 *   it. What goes once an operation is streamed is the copy of its new
 *   value when only the log needed it (to_val_redo: unique-tree inserts,
 *   updates, deletes' values, the flags of a CREATE); those copies live in
 *   tx_redo_arena, which is reset when the stream has caught up with the
 *   list. The value of a non-unique tree's insert names the entry its undo
 *   deletes, so it stays; so do values a caller keeps (txn_fill_batch).
 * - ROLLBACK TO a mark older than streamed operations logs their inverse
 *   (compensation, as ARIES's compensation log records), newest first,
 *   before the locks taken after the mark are released: replay then
 *   passes through the undone changes and back, and no other transaction
 *   can have changed those keys in between (they were locked until the
 *   compensation was written).
 * - A DROP is never streamed, nor anything after it until the commit: its
 *   ROLLBACK TO brings the tree back, and replay of a DROP frees the
 *   tree's pages, which no compensation could return.
 */
#include <stdlib.h>
#include <string.h>

#include "txn/txn_int.h"

/* The records stay far below WAL_MAX_RECORD: a chunk passes the limit by
 * at most one operation, and the limit is at most 256 MB (db_config.c). */

static size_t stream_op_size(const txn_op_t *op)
{
  return TXN_LOG_OP_HEAD + (size_t)op->to_key_len + op->to_val_len;
}

/* One operation as redo. A revived dead entry is an insert to replay (the
 * image and the log know nothing of dead entries). */
static size_t stream_op_encode(uint8_t *p, const txn_op_t *op)
{
  int kind = op->to_kind == TXN_OP_REVIVE ? TXN_OP_INSERT : op->to_kind;
  txn_logop_t lo = { .lo_kind = kind, .lo_tree_id = op->to_tree->dt_id,
                     .lo_key = op->to_key, .lo_key_len = op->to_key_len,
                     .lo_val = op->to_val, .lo_val_len = op->to_val_len };
  return txn_log_op_encode(p, &lo);
}

/* The operation that undoes op, as redo (what replay must do to take the
 * tree back to where it was before op). */
static int stream_op_inverse(const txn_op_t *op, txn_logop_t *lo, err_t *e)
{
  bool unique = op->to_tree->dt_flags & BT_UNIQUE;
  *lo = (txn_logop_t){ .lo_tree_id = op->to_tree->dt_id, .lo_key = op->to_key,
                       .lo_key_len = op->to_key_len };
  switch (op->to_kind) {
  case TXN_OP_INSERT:
  case TXN_OP_REVIVE: /* the dead entry it overwrote is absent for the log */
    lo->lo_kind = TXN_OP_DELETE;
    if (!unique) {
      lo->lo_val = op->to_val;
      lo->lo_val_len = op->to_val_len;
    }
    return CZ_OK;
  case TXN_OP_UPDATE:
    lo->lo_kind = TXN_OP_UPDATE;
    lo->lo_val = op->to_old;
    lo->lo_val_len = op->to_old_len;
    return CZ_OK;
  case TXN_OP_DELETE:
    lo->lo_kind = TXN_OP_INSERT;
    lo->lo_val = op->to_old;
    lo->lo_val_len = op->to_old_len;
    return CZ_OK;
  case TXN_OP_CREATE: /* key = the name, as a DROP names it */
    lo->lo_kind = TXN_OP_DROP;
    return CZ_OK;
  default:
    return err_set(e, SQLSTATE_INTERNAL, "compensation of a streamed operation of kind %d", op->to_kind);
  }
}

const uint8_t *txn_copy_val(txn_t *tx, int kind, const db_tree_t *dt, const void *val, size_t len,
                            bool *redo_only)
{
  *redo_only = false;
  if (len == 0)
    return NULL;
  arena_t *a = tx->tx_arena;
  if (tx->tx_stream_limit && (kind != TXN_OP_INSERT || (dt->dt_flags & BT_UNIQUE))) {
    if (!tx->tx_redo_arena)
      tx->tx_redo_arena = arena_create(tx->tx_arena, "txn redo");
    a = tx->tx_redo_arena;
    *redo_only = true;
  }
  uint8_t *c = arena_alloc(a, len);
  memcpy(c, val, len);
  return c;
}

static int stream_buf_reserve(uint8_t **buf, size_t *cap, size_t need, err_t *e)
{
  if (need <= *cap)
    return CZ_OK;
  need = CZ_MAX(need, *cap * 2);
  uint8_t *p = realloc(*buf, need);
  if (!p)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory encoding %zu bytes of redo", need);
  *buf = p;
  *cap = need;
  return CZ_OK;
}

int txn_stream(txn_t *tx, err_t *e)
{
  txn_op_t *op = tx->tx_logged ? tx->tx_logged->to_next : tx->tx_first;
  uint8_t *buf = NULL;
  size_t cap = 0;
  while (op && op->to_kind != TXN_OP_DROP) {
    /* One record: operations until the limit is passed or a DROP. */
    size_t bytes = 0;
    uint32_t n = 0;
    txn_op_t *end = op;
    while (end && end->to_kind != TXN_OP_DROP && (n == 0 || bytes < tx->tx_stream_limit)) {
      bytes += stream_op_size(end);
      n++;
      end = end->to_next;
    }
    if (stream_buf_reserve(&buf, &cap, TXN_LOG_TAG_HEAD + bytes, e) != CZ_OK) {
      free(buf);
      return CZ_ERR;
    }
    size_t off = txn_log_begin_tagged(buf, TXN_REC_CONTINUE, tx->tx_id, n);
    for (txn_op_t *o = op; o != end; o = o->to_next)
      off += stream_op_encode(buf + off, o);
    if (wal_append_stream(tx->tx_db->db_wal, buf, off, e) != CZ_OK) {
      free(buf);
      return err_prefix(e, "streaming the redo of a large transaction");
    }
    if (!tx->tx_streamed)
      tx->tx_stream_gen = wal_generation(tx->tx_db->db_wal);
    tx->tx_streamed = true;
    for (txn_op_t *o = op; o != end; o = o->to_next) {
      if (o->to_val_redo) {
        o->to_val = NULL;
        o->to_val_len = 0;
        o->to_val_redo = false;
      }
      tx->tx_logged = o;
    }
    tx->tx_logged_ops += n;
    tx->tx_logged_bytes += bytes;
    op = end;
  }
  free(buf);
  /* Caught up (nothing waits behind a DROP): no redo-only value is left. */
  if (!op && tx->tx_redo_arena)
    arena_reset(tx->tx_redo_arena);
  return CZ_OK;
}

int txn_stream_compensate(txn_t *tx, txn_op_t *m_last, uint32_t m_n_ops, size_t m_log_bytes, err_t *e)
{
  if (m_n_ops >= tx->tx_logged_ops)
    return CZ_OK; /* nothing after the mark is in the log: cutting the list suffices */
  uint8_t *buf = NULL;
  size_t cap = 0;
  int rc = CZ_OK;
  txn_op_t *op = tx->tx_logged;
  while (rc == CZ_OK && op != m_last) {
    size_t bytes = 0;
    uint32_t n = 0;
    size_t off = TXN_LOG_TAG_HEAD;
    for (; op != m_last && (n == 0 || bytes < tx->tx_stream_limit); op = op->to_prev) {
      txn_logop_t lo;
      if ((rc = stream_op_inverse(op, &lo, e)) != CZ_OK)
        break;
      size_t sz = txn_log_op_size(&lo);
      if ((rc = stream_buf_reserve(&buf, &cap, off + sz, e)) != CZ_OK)
        break;
      off += txn_log_op_encode(buf + off, &lo);
      bytes += sz;
      n++;
    }
    if (rc == CZ_OK) {
      txn_log_begin_tagged(buf, TXN_REC_CONTINUE, tx->tx_id, n);
      rc = wal_append_stream(tx->tx_db->db_wal, buf, off, e);
    }
  }
  free(buf);
  /* Whatever happened, the list is cut at the mark (the caller): the
   * boundary goes with it. After a failure the log is failed and this
   * transaction can no longer commit. */
  tx->tx_logged = m_last;
  tx->tx_logged_ops = m_n_ops;
  tx->tx_logged_bytes = m_log_bytes;
  if (tx->tx_redo_arena)
    arena_reset(tx->tx_redo_arena); /* nothing after the mark is left, nothing before it is unlogged */
  return rc == CZ_OK ? CZ_OK : err_prefix(e, "logging the rollback of streamed changes");
}

uint8_t *txn_commit_record(txn_t *tx, size_t *len, err_t *e)
{
  txn_op_t *first = tx->tx_logged ? tx->tx_logged->to_next : tx->tx_first;
  uint32_t n = tx->tx_n_ops - tx->tx_logged_ops;
  size_t head = tx->tx_streamed ? TXN_LOG_TAG_HEAD : 4;
  size_t need = head + (tx->tx_log_bytes - tx->tx_logged_bytes);
  if (need > WAL_MAX_RECORD) {
    err_set(e, SQLSTATE_PROGRAM_LIMIT, "the transaction's log record of %zu bytes passes the limit of %zu",
            need, WAL_MAX_RECORD);
    err_hint(e, "Set [Parameters] LogStreamBytes to let large transactions write their log as they go.");
    return NULL;
  }
  /* T1: the checkpoint gate keeps a checkpoint (which starts a new log
   * generation) from running while tx is open. Were it ever to, replay
   * would not find the continuation records: refuse the commit. */
  if (tx->tx_streamed && tx->tx_stream_gen != wal_generation(tx->tx_db->db_wal)) {
    err_set(e, SQLSTATE_INTERNAL, "the log was restarted while a streaming transaction was open");
    return NULL;
  }
  uint8_t *buf = malloc(need);
  if (!buf) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory encoding the commit record (%zu bytes)", need);
    return NULL;
  }
  size_t off;
  if (tx->tx_streamed) {
    off = txn_log_begin_tagged(buf, TXN_REC_STREAM_COMMIT, tx->tx_id, n);
  } else {
    txn_log_begin(buf, n);
    off = 4;
  }
  for (txn_op_t *op = first; op; op = op->to_next)
    off += stream_op_encode(buf + off, op);
  *len = off;
  return buf;
}
