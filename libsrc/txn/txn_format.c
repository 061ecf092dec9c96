/* txn_format — the two on-disk formats txn/ owns above the log framing: the
 * payload of a log record (a transaction's redo operations) and the user
 * root it keeps in the storage root record.
 *
 * Design notes: both are little-endian and length-checked on decode. A
 * record's first u32 is its operation count, or a tag (values no count can
 * have: 2^32 operations of 17 bytes each do not fit in a record) marking
 * the records of a transaction that streamed its redo (txn_stream.c). A log
 * record that passed its checksum but does not parse is corruption (XX001),
 * never a torn tail: the tail was already cut by the checksum.
 */
#include <string.h>

#include "txn/txn_int.h"

size_t txn_log_op_size(const txn_logop_t *op)
{
  return TXN_LOG_OP_HEAD + (size_t)op->lo_key_len + op->lo_val_len;
}

void txn_log_begin(uint8_t *p, uint32_t n_ops)
{
  wal_put_u32(p, n_ops);
}

size_t txn_log_op_encode(uint8_t *p, const txn_logop_t *op)
{
  p[0] = (uint8_t)op->lo_kind;
  wal_put_u64(p + 1, op->lo_tree_id);
  wal_put_u32(p + 9, op->lo_key_len);
  wal_put_u32(p + 13, op->lo_val_len);
  if (op->lo_key_len)
    memcpy(p + TXN_LOG_OP_HEAD, op->lo_key, op->lo_key_len);
  if (op->lo_val_len)
    memcpy(p + TXN_LOG_OP_HEAD + op->lo_key_len, op->lo_val, op->lo_val_len);
  return txn_log_op_size(op);
}

size_t txn_log_begin_tagged(uint8_t *p, uint32_t tag, uint64_t txn_id, uint32_t n_ops)
{
  wal_put_u32(p, tag);
  wal_put_u64(p + 4, txn_id);
  wal_put_u32(p + 12, n_ops);
  return TXN_LOG_TAG_HEAD;
}

int txn_log_record_kind(const uint8_t *p, size_t len, uint32_t *tag, uint64_t *txn_id, err_t *e)
{
  if (len < 4)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "log record of %zu bytes has no operation count", len);
  uint32_t first = wal_get_u32(p);
  *tag = TXN_REC_PLAIN;
  *txn_id = 0;
  if (first != TXN_REC_CONTINUE && first != TXN_REC_STREAM_COMMIT)
    return CZ_OK;
  if (len < TXN_LOG_TAG_HEAD)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "tagged log record of %zu bytes is cut short", len);
  *tag = first;
  *txn_id = wal_get_u64(p + 4);
  return CZ_OK;
}

int txn_log_decode(const uint8_t *p, size_t len, txn_logop_fn_t fn, void *ctx, err_t *e)
{
  uint32_t tag;
  uint64_t txn_id;
  if (txn_log_record_kind(p, len, &tag, &txn_id, e) != CZ_OK)
    return CZ_ERR;
  size_t off = tag == TXN_REC_PLAIN ? 0 : TXN_LOG_TAG_HEAD - 4;
  uint32_t n = wal_get_u32(p + off);
  off += 4;
  for (uint32_t i = 0; i < n; i++) {
    if (len - off < TXN_LOG_OP_HEAD)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "log record: operation %u of %u is cut short", i, n);
    txn_logop_t op;
    op.lo_kind = p[off];
    op.lo_tree_id = wal_get_u64(p + off + 1);
    op.lo_key_len = wal_get_u32(p + off + 9);
    op.lo_val_len = wal_get_u32(p + off + 13);
    off += TXN_LOG_OP_HEAD;
    if (op.lo_kind < TXN_OP_CREATE || op.lo_kind > TXN_OP_DELETE)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "log record: operation %u has unknown kind %d", i, op.lo_kind);
    if ((uint64_t)op.lo_key_len + op.lo_val_len > len - off)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "log record: operation %u overruns the record", i);
    op.lo_key = p + off;
    op.lo_val = p + off + op.lo_key_len;
    off += (size_t)op.lo_key_len + op.lo_val_len;
    if (fn(ctx, &op, e) != CZ_OK)
      return CZ_ERR;
  }
  if (off != len)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "log record: %zu bytes after the last operation", len - off);
  return CZ_OK;
}

void db_root_encode(const db_root_t *r, uint8_t out[DB_ROOT_SIZE])
{
  memset(out, 0, DB_ROOT_SIZE);
  wal_put_u32(out, DB_ROOT_MAGIC);
  wal_put_u32(out + 4, DB_ROOT_VERSION);
  wal_put_u64(out + 8, r->dr_generation);
  wal_put_u64(out + 16, r->dr_next_tree_id);
  wal_put_u32(out + 24, r->dr_dir_root);
}

int db_root_decode(const void *p, size_t len, db_root_t *r, err_t *e)
{
  const uint8_t *b = p;
  if (len < DB_ROOT_SIZE || wal_get_u32(b) != DB_ROOT_MAGIC)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "the database root record holds no transaction root (%zu bytes)", len);
  if (wal_get_u32(b + 4) != DB_ROOT_VERSION)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "transaction root version %u, expected %d", wal_get_u32(b + 4),
                   DB_ROOT_VERSION);
  r->dr_generation = wal_get_u64(b + 8);
  r->dr_next_tree_id = wal_get_u64(b + 16);
  r->dr_dir_root = wal_get_u32(b + 24);
  if (r->dr_generation == 0 || r->dr_dir_root == PG_NONE)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "transaction root names generation %llu, directory page %u",
                   (unsigned long long)r->dr_generation, (unsigned)r->dr_dir_root);
  return CZ_OK;
}
