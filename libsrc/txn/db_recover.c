/* db_recover — roll-forward recovery: replay every complete record of the
 * log generation the checkpoint image names, in log order.
 *
 * Design notes: the image holds exactly the transactions committed before
 * its checkpoint (none was active during it), and log generation G holds
 * exactly those committed after it, each once, in commit order. Records
 * are applied straight through the B-trees, without transactions; trees are
 * found by id, which replay of a CREATE re-establishes. Concurrent
 * transactions touched disjoint keys, so commit order reproduces their
 * combined effect.
 *
 * A large transaction's continuation records (txn_stream.c) precede its
 * commit record and are applied only if that record is in the log (a first
 * pass collects the ids of the streamed transactions that committed), at
 * their place in log order: every key such a transaction changed was locked
 * by it from the change to its commit, so no commit in between touched it
 * (txn/README.md, "Streamed redo"). Any operation that does not apply cleanly (a key that
 * should be absent is present, an unknown tree) means the log and the
 * image disagree: recovery stops with XX001 rather than guess.
 */
#include <stdlib.h>

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

/* The ids of the streamed transactions whose commit record is in the log
 * (pass 1), sorted for pass 2's lookups. */
typedef struct rc_committed_s {
  uint64_t *rc_ids;
  bool *rc_done;             /* pass 2: that id's commit record was replayed */
  size_t rc_n, rc_cap;
  uint64_t rc_commits;       /* commit records, plain or tagged */
} rc_committed_t;

typedef struct rc_replay_s {
  db_t *rp_db;
  rc_committed_t *rp_committed;
  uint64_t rp_skipped;       /* continuation records of transactions that never committed */
} rc_replay_t;

static int rc_collect(void *ctx, const uint8_t *payload, size_t len, err_t *e)
{
  rc_committed_t *c = ctx;
  uint32_t tag;
  uint64_t id;
  if (txn_log_record_kind(payload, len, &tag, &id, e) != CZ_OK)
    return CZ_ERR;
  if (tag != TXN_REC_CONTINUE)
    c->rc_commits++;
  if (tag != TXN_REC_STREAM_COMMIT)
    return CZ_OK;
  if (c->rc_n == c->rc_cap) {
    size_t cap = c->rc_cap ? c->rc_cap * 2 : 64;
    uint64_t *p = realloc(c->rc_ids, cap * sizeof *p);
    if (!p)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory collecting committed transactions");
    c->rc_ids = p;
    c->rc_cap = cap;
  }
  c->rc_ids[c->rc_n++] = id;
  return CZ_OK;
}

static int rc_cmp_id(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int db_replay_record(void *ctx, const uint8_t *payload, size_t len, err_t *e)
{
  rc_replay_t *rp = ctx;
  uint32_t tag;
  uint64_t id;
  if (txn_log_record_kind(payload, len, &tag, &id, e) != CZ_OK)
    return CZ_ERR;
  if (tag == TXN_REC_PLAIN)
    return txn_log_decode(payload, len, db_replay_op, rp->rp_db, e);
  rc_committed_t *c = rp->rp_committed;
  const uint64_t *at = c->rc_n ? bsearch(&id, c->rc_ids, c->rc_n, sizeof id, rc_cmp_id) : NULL;
  if (!at) {
    rp->rp_skipped++;
    return CZ_OK;
  }
  /* T1: a transaction's continuation records precede its commit record,
   * which is there once (transaction ids are unique in a generation). */
  bool *done = &c->rc_done[at - c->rc_ids];
  if (*done)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "log: a record of transaction %llu after its commit record",
                   (unsigned long long)id);
  if (tag == TXN_REC_STREAM_COMMIT)
    *done = true;
  return txn_log_decode(payload, len, db_replay_op, rp->rp_db, e);
}

int db_recover(db_t *db, err_t *e)
{
  /* Pass 1: which streamed transactions committed. Pass 2: every commit
   * record and the continuation records of those, in log order. */
  rc_committed_t committed = { 0 };
  rc_replay_t rp = { .rp_db = db, .rp_committed = &committed };
  wal_read_info_t info;
  int rc = wal_read_all(db->db_cfg.dc_wal_path, db->db_generation, rc_collect, &committed, &info, e);
  if (rc == CZ_OK) {
    if (committed.rc_n > 1)
      qsort(committed.rc_ids, committed.rc_n, sizeof *committed.rc_ids, rc_cmp_id);
    committed.rc_done = calloc(committed.rc_n + 1, sizeof *committed.rc_done);
    if (!committed.rc_done)
      rc = err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory replaying the log");
  }
  if (rc == CZ_OK)
    rc = wal_read_all(db->db_cfg.dc_wal_path, db->db_generation, db_replay_record, &rp, &info, e);
  free(committed.rc_ids);
  free(committed.rc_done);
  if (rc != CZ_OK)
    return err_prefix(e, "recovery from %s (record %llu)", db->db_cfg.dc_wal_path,
                      (unsigned long long)info.wr_records + 1);
  db->db_replayed = committed.rc_commits;
  if (rp.rp_skipped > 0)
    log_info("recovery: %llu continuation records of transactions that did not commit skipped",
             (unsigned long long)rp.rp_skipped);
  if (info.wr_stale)
    log_info("log %s has generation %llu, the image names %llu: already in the image, ignored",
             db->db_cfg.dc_wal_path, (unsigned long long)info.wr_generation,
             (unsigned long long)db->db_generation);
  else if (info.wr_records > 0 || info.wr_valid_end < info.wr_file_size)
    log_info("recovery: %llu transactions replayed from %s, %llu bytes after the last record ignored "
             "(preallocated zeros or a torn tail)",
             (unsigned long long)committed.rc_commits, db->db_cfg.dc_wal_path,
             (unsigned long long)(info.wr_file_size - info.wr_valid_end));
  return CZ_OK;
}
