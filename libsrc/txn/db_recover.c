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
 *
 * Inserts into a column tree are gathered and applied as sorted batches
 * (rc_pending_t): one at a time, each re-encoded its whole segment, so a
 * logged 200,000-row COPY took minutes to replay; a batch re-encodes each
 * segment it touches once. Only the order of changes to one tree matters
 * (changes to different trees commute), so a tree's gathered inserts are
 * applied before any other change to that tree (update, delete, drop),
 * before any CREATE or DROP (names and ids), past RC_PENDING_BYTES, and at
 * the end; inserts among themselves commute (distinct keys: a key
 * inserted twice is a duplicate in the batch, XX001 as before).
 */
#include <stdlib.h>
#include <string.h>

#include "txn/txn_int.h"

/* Bytes of gathered column-tree inserts that make replay apply them all. */
#define RC_PENDING_BYTES (64u << 20)
#define RC_PENDING_TREES 16

typedef struct rc_tree_rows_s {
  db_tree_t *tr_dt;
  bt_row_t *tr_rows;
  size_t tr_n, tr_cap;
} rc_tree_rows_t;

/* Inserts into column trees not applied yet, per tree; the bytes live in
 * pd_arena, reset whenever every tree's rows have been applied. */
typedef struct rc_pending_s {
  arena_t *pd_arena;
  rc_tree_rows_t pd_tree[RC_PENDING_TREES];
  int pd_n;
  size_t pd_bytes;
} rc_pending_t;

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
  rc_pending_t *rp_pending;
  uint64_t rp_skipped;       /* continuation records of transactions that never committed */
} rc_replay_t;

/* memcmp order, the shorter first on a tie (btree.h's key order); then
 * the value (a non-unique tree's entries are ordered by key and value). */
static int rc_bytes_cmp(const void *a, size_t al, const void *b, size_t bl)
{
  int c = memcmp(a, b, al < bl ? al : bl);
  return c ? c : (al > bl) - (al < bl);
}

static int rc_row_cmp(const void *x, const void *y)
{
  const bt_row_t *a = x, *b = y;
  int c = rc_bytes_cmp(a->r_key, a->r_key_len, b->r_key, b->r_key_len);
  return c ? c : rc_bytes_cmp(a->r_val, a->r_val_len, b->r_val, b->r_val_len);
}

static int rc_apply_tree(rc_tree_rows_t *tr, err_t *e)
{
  if (tr->tr_n == 0)
    return CZ_OK;
  qsort(tr->tr_rows, tr->tr_n, sizeof *tr->tr_rows, rc_row_cmp);
  size_t done = 0;
  while (done < tr->tr_n) { /* bt_insert_batch counts in int */
    size_t k = tr->tr_n - done < (1u << 30) ? tr->tr_n - done : (1u << 30);
    if (bt_insert_batch(tr->tr_dt->dt_bt, tr->tr_rows + done, (int)k, NULL, e) != CZ_OK)
      return err_prefix(e, "replaying %zu inserts into tree %s", tr->tr_n, tr->tr_dt->dt_name);
    done += k;
  }
  tr->tr_n = 0;
  return CZ_OK;
}

/* Applies the gathered inserts of tree only (NULL: of every tree). */
static int rc_apply_pending(rc_pending_t *pd, db_tree_t *only, err_t *e)
{
  for (int i = 0; i < pd->pd_n; i++)
    if ((!only || pd->pd_tree[i].tr_dt == only) && rc_apply_tree(&pd->pd_tree[i], e) != CZ_OK)
      return CZ_ERR;
  if (!only) {
    for (int i = 0; i < pd->pd_n; i++)
      free(pd->pd_tree[i].tr_rows);
    pd->pd_n = 0;
    pd->pd_bytes = 0;
    arena_reset(pd->pd_arena);
  }
  return CZ_OK;
}

/* Gathers an insert into a column tree (copies of its bytes). */
static int rc_gather(rc_pending_t *pd, db_tree_t *dt, const txn_logop_t *op, err_t *e)
{
  int i = 0;
  while (i < pd->pd_n && pd->pd_tree[i].tr_dt != dt)
    i++;
  if (i == pd->pd_n) {
    if (pd->pd_n == RC_PENDING_TREES && rc_apply_pending(pd, NULL, e) != CZ_OK)
      return CZ_ERR;
    i = pd->pd_n++;
    pd->pd_tree[i] = (rc_tree_rows_t){ .tr_dt = dt };
  }
  rc_tree_rows_t *tr = &pd->pd_tree[i];
  if (tr->tr_n == tr->tr_cap) {
    size_t cap = tr->tr_cap ? tr->tr_cap * 2 : 1024;
    bt_row_t *r = realloc(tr->tr_rows, cap * sizeof *r);
    if (!r)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory gathering inserts to replay");
    tr->tr_rows = r;
    tr->tr_cap = cap;
  }
  uint8_t *b = arena_try_alloc(pd->pd_arena, (size_t)op->lo_key_len + op->lo_val_len + 1);
  if (!b)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory gathering inserts to replay");
  memcpy(b, op->lo_key, op->lo_key_len);
  if (op->lo_val_len)
    memcpy(b + op->lo_key_len, op->lo_val, op->lo_val_len);
  tr->tr_rows[tr->tr_n++] = (bt_row_t){ b, op->lo_key_len, b + op->lo_key_len, op->lo_val_len };
  pd->pd_bytes += (size_t)op->lo_key_len + op->lo_val_len + sizeof(bt_row_t);
  if (pd->pd_bytes >= RC_PENDING_BYTES)
    return rc_apply_pending(pd, NULL, e);
  return CZ_OK;
}

static int db_replay_op(void *ctx, const txn_logop_t *op, err_t *e)
{
  rc_replay_t *rp = ctx;
  db_t *db = rp->rp_db;
  rc_pending_t *pd = rp->rp_pending;
  if (op->lo_kind == TXN_OP_CREATE || op->lo_kind == TXN_OP_DROP) {
    if (rc_apply_pending(pd, NULL, e) != CZ_OK)
      return CZ_ERR;
  }
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
  if (dt->dt_flags & BT_COLUMN) {
    if (op->lo_kind == TXN_OP_INSERT)
      return rc_gather(pd, dt, op, e);
    if (rc_apply_pending(pd, dt, e) != CZ_OK)
      return CZ_ERR;
  }
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
    return txn_log_decode(payload, len, db_replay_op, rp, e);
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
  return txn_log_decode(payload, len, db_replay_op, rp, e);
}

int db_recover(db_t *db, err_t *e)
{
  /* Pass 1: which streamed transactions committed. Pass 2: every commit
   * record and the continuation records of those, in log order. */
  rc_committed_t committed = { 0 };
  rc_pending_t pending = { 0 };
  if (!(pending.pd_arena = arena_create(NULL, "replay_inserts")))
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory replaying the log");
  rc_replay_t rp = { .rp_db = db, .rp_committed = &committed, .rp_pending = &pending };
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
  if (rc == CZ_OK)
    rc = rc_apply_pending(&pending, NULL, e);
  for (int i = 0; i < pending.pd_n; i++)
    free(pending.pd_tree[i].tr_rows);
  arena_destroy(pending.pd_arena);
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
