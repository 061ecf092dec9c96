/* txn_int.h — structures shared inside txn/: the database handle, the
 * directory of named trees, transactions and their operation lists, the
 * log record (redo) format.
 *
 * Design notes (txn/README.md has the protocol and the numbered rules):
 * - The checkpoint gate: db_n_active and db_ckpt_pending are atomics, so
 *   beginning and ending a transaction take no mutex while no checkpoint
 *   is pending (Dekker-style: a transaction increments then reads pending,
 *   a checkpoint sets pending then reads the count; both sequentially
 *   consistent). db_mx and db_gate serve the waits. db_dir_mx guards the tree cache. The log has its own
 *   mutex (wal.c). Order: db_mx and db_dir_mx are never held together with
 *   anything else and never across a B-tree call.
 * - A transaction's operations form one doubly linked list in its arena:
 *   forward for the redo record, backward for the undo.
 */
#ifndef CZ_TXN_INT_H
#define CZ_TXN_INT_H

#include <stdatomic.h>

#include "thread/thread.h"
#include "txn/txn.h"
#include "txn/wal.h"

/* ---- the user root: what the checkpoint image says about txn/ ---------- */

#define DB_ROOT_MAGIC 0x425a4443u /* "CDZB" */
#define DB_ROOT_VERSION 1
#define DB_ROOT_SIZE 32

typedef struct db_root_s {
  uint64_t dr_generation;   /* the log generation that continues this image */
  uint64_t dr_next_tree_id; /* next id for db_create_tree */
  pg_no_t dr_dir_root;      /* the directory B-tree */
} db_root_t;

void db_root_encode(const db_root_t *r, uint8_t out[DB_ROOT_SIZE]);
int db_root_decode(const void *p, size_t len, db_root_t *r, err_t *e);

/* ---- named trees ------------------------------------------------------- */

#define DB_MAX_TREE_NAME 512

/* One named tree, in the cache by name, by id and by root page. */
typedef struct db_tree_s {
  char *dt_name;
  uint64_t dt_id;           /* stable across replay: the log names trees by id */
  pg_no_t dt_root;          /* changes when replay re-creates the tree */
  uint32_t dt_flags;
  bt_tree_t *dt_bt;         /* the handle db_create_tree/db_open_tree give out */
  db_t *dt_db;              /* its database (readers reach the lock table) */
  _Atomic bool dt_hidden;   /* dropped by a transaction not yet committed */
  _Atomic uint32_t dt_nlocked; /* keys of this tree in the lock table: readers skip
                                  the lock table while it is 0 */
  _Atomic uint32_t dt_nvers;   /* keys of this tree in the version store (txn_snapshot.c):
                                  snapshot readers skip it while it is 0 */
  _Atomic uint32_t dt_ndead;   /* of those, keys whose entry a committed delete left in the
                                  tree for older snapshots: read-committed readers skip
                                  the store while it is 0 */
  const txn_t *dt_hider;    /* that transaction: only it may reuse the name before it ends */
  uint64_t dt_creator;      /* tx_id of the transaction that created it (0: older than
                               this run, or replayed): until that one commits nobody
                               else can name the tree, so txn_fill_batch may fill it
                               without row locks, and a rollback need not undo its
                               rows one by one (the tree goes whole) */
  bool dt_buried;           /* dropped and committed: freed at the next checkpoint
                               (under db_dir_mx, on db_graveyard) */
  struct db_tree_s *dt_next_grave;
  struct db_tree_s *dt_next_name, *dt_next_id, *dt_next_root;
} db_tree_t;

typedef struct db_dir_cache_s {
  db_tree_t **dc_by_name, **dc_by_id, **dc_by_root;
  size_t dc_n_buckets;      /* power of two */
  size_t dc_count;
} db_dir_cache_t;

/* ---- the database ------------------------------------------------------ */

struct db_s {
  db_config_t db_cfg;       /* paths copied into db_arena */
  arena_t *db_arena;
  storage_t *db_st;
  bpool_t *db_bp;
  wal_t *db_wal;
  bt_tree_t *db_dir;        /* the directory tree: name -> id, root, flags */

  cz_mutex_t db_mx;         /* the checkpoint gate */
  cz_cond_t db_gate;        /* n_active reached 0, or a checkpoint ended */
  _Atomic int db_n_active;  /* transactions begun and not ended (see txn_begin) */
  _Atomic bool db_ckpt_pending; /* new transactions wait; written under db_mx */
  bool db_closing;          /* db_close started: the timer thread stops */
  uint64_t db_generation;   /* log generation now being appended */
  _Atomic uint64_t db_next_tree_id;
  _Atomic bool db_broken;   /* memory no longer matches image + log: refuse work */

  cz_mutex_t db_dir_mx;
  db_dir_cache_t db_cache;
  db_tree_t *db_graveyard;  /* trees whose DROP committed, not yet freed (db_dir_mx) */

  cz_thread_t db_timer;     /* periodic checkpoints */
  bool db_timer_running;
  cz_cond_t db_timer_cond;  /* wakes the timer at close */

  struct txn_locktab_s *db_locks; /* row locks (txn_lock.c) */
  /* Snapshots (txn_snapshot.c): commit timestamps, the live snapshots and
   * the version store; serializable conflict tracking (txn_ssi.c). */
  _Atomic uint64_t db_commit_ts;  /* the last commit timestamp handed out */
  _Atomic uint32_t db_n_snap;     /* live snapshots (incremented before reading db_commit_ts) */
  struct txn_vstore_s *db_vstore;
  struct txn_ssi_s *db_ssi;
  _Atomic uint64_t db_next_txn_id;

  _Atomic uint64_t db_commits;
  _Atomic uint64_t db_checkpoints;
  uint64_t db_replayed;
  /* db_on_checkpoint's hook (under db_mx): run after each checkpoint,
   * while no transaction is active. */
  void (*db_ckpt_fn)(void *ctx);
  void *db_ckpt_ctx;
};

/* ---- the log record of one transaction (redo) -------------------------- */

/* Operation kinds, in the log and in a transaction's list. */
enum {
  TXN_OP_CREATE = 1,        /* key = name, val = u32 flags */
  TXN_OP_DROP = 2,          /* key = name */
  TXN_OP_INSERT = 3,
  TXN_OP_UPDATE = 4,        /* val = the new value */
  TXN_OP_DELETE = 5,        /* val = the entry's value in a non-unique tree, else empty */
  /* Only in a transaction's list, logged as INSERT: an insert of a key
   * whose entry a committed delete left in the tree for older snapshots
   * (txn_snapshot.c) overwrites that entry; its undo puts the old bytes
   * back (the entry is dead again). */
  TXN_OP_REVIVE = 6
};

/* One operation as the log holds it. */
typedef struct txn_logop_s {
  int lo_kind;
  uint64_t lo_tree_id;
  const uint8_t *lo_key;
  uint32_t lo_key_len;
  const uint8_t *lo_val;
  uint32_t lo_val_len;
} txn_logop_t;

#define TXN_LOG_OP_HEAD 17 /* u8 kind, u64 tree id, u32 key len, u32 val len */

/* Payload: u32 n_ops, then per op the head and key and val bytes. */
size_t txn_log_op_size(const txn_logop_t *op);
/* Writes the head and bytes of op at p; returns the bytes written. */
size_t txn_log_op_encode(uint8_t *p, const txn_logop_t *op);
void txn_log_begin(uint8_t *p, uint32_t n_ops);
/* A large transaction streams its redo (txn_stream.c): continuation
 * records while it runs, then its commit record, both tagged with its
 * transaction id:
 *   u32 tag | u64 transaction id | u32 n_ops | ops
 * A record whose first u32 is not a tag is a plain commit record (a
 * transaction that streamed nothing): u32 n_ops | ops. */
#define TXN_REC_PLAIN 0u                  /* txn_log_record_kind: untagged */
#define TXN_REC_CONTINUE 0xFFFFFFFFu      /* part of a transaction's redo, before its commit */
#define TXN_REC_STREAM_COMMIT 0xFFFFFFFEu /* the commit record of a transaction that streamed */
#define TXN_LOG_TAG_HEAD 16
/* Writes a tagged record's head; returns its size (TXN_LOG_TAG_HEAD). */
size_t txn_log_begin_tagged(uint8_t *p, uint32_t tag, uint64_t txn_id, uint32_t n_ops);
/* The record's tag (TXN_REC_*) and, when tagged, its transaction id. */
int txn_log_record_kind(const uint8_t *p, size_t len, uint32_t *tag, uint64_t *txn_id, err_t *e);
typedef int (*txn_logop_fn_t)(void *ctx, const txn_logop_t *op, err_t *e);
/* Calls fn per operation (of a plain or a tagged record); XX001 when the
 * payload is malformed. */
int txn_log_decode(const uint8_t *p, size_t len, txn_logop_fn_t fn, void *ctx, err_t *e);

/* ---- transactions ------------------------------------------------------ */

#define TXN_TREE_CACHE 8

typedef struct txn_op_s {
  /* Pointers first, then lengths and flags: 64 bytes, one per changed row
   * for the whole transaction (txn/README.md, "Streamed redo"). */
  struct txn_op_s *to_next, *to_prev;
  db_tree_t *to_tree;
  const uint8_t *to_key;
  const uint8_t *to_val;    /* as txn_logop_t */
  const uint8_t *to_old;    /* UPDATE, DELETE: the value before (for undo) */
  uint32_t to_key_len;
  uint32_t to_val_len;
  uint32_t to_old_len;
  uint8_t to_kind;          /* TXN_OP_* */
  bool to_unapplied;        /* a deferred DELETE logged but applied to the tree only after
                               the commit record is durable (txn_snap_commit): undo skips it */
  bool to_val_redo;         /* to_val is in tx_redo_arena: only the log needs it (not the
                               undo, nor a compensation), so it goes once streamed */
} txn_op_t;

struct txn_s {
  db_t *tx_db;
  arena_t *tx_arena;        /* tx itself, its operations and their bytes */
  int tx_flags;
  txn_op_t *tx_first, *tx_last;
  uint32_t tx_n_ops;
  size_t tx_log_bytes;      /* size of the redo payload so far */
  /* Streamed redo (txn_stream.c): the operations up to tx_logged are in
   * continuation records already; the commit record holds the rest. */
  size_t tx_stream_limit;   /* stream once this many bytes are not logged (0 = never) */
  txn_op_t *tx_logged;      /* the newest operation in the log (NULL = none) */
  uint32_t tx_logged_ops;   /* tx_n_ops and tx_log_bytes at tx_logged */
  size_t tx_logged_bytes;
  bool tx_streamed;         /* a continuation record was written: the commit record is tagged */
  uint64_t tx_stream_gen;   /* the log generation of the first one (invariant T1, checked at
                               commit) */
  arena_t *tx_redo_arena;   /* values only the log needs (to_val_redo): reset once streamed */
  bt_tree_t *tx_last_bt;    /* the last handle -> tree lookup (txn_tree_of) */
  db_tree_t *tx_last_tree;
  bt_tree_t *tx_tc_bt[TXN_TREE_CACHE]; /* a few more, round robin: a row change
                                          touches a table and its indexes */
  db_tree_t *tx_tc_dt[TXN_TREE_CACHE];
  unsigned tx_tc_next;
  uint64_t tx_id;
  _Atomic uint32_t tx_cmd;           /* current command (txn_command_next); changes are stamped.
                                        Atomic: worker threads of a parallel query may start
                                        commands of the session's transaction (lookups) */
  struct txn_lock_s *tx_locks;       /* locks held, newest first */
  uint32_t tx_n_deferred;            /* locks marked deleted (applied at commit) */
  struct txn_s *tx_waiting_for;      /* the holder it waits for (under the wait mutex);
                                        the holder clears it when it ends */
  struct txn_s *tx_wait_next, *tx_wait_prev; /* the list of waiting transactions */
  const volatile bool *tx_cancel;    /* raised: lock waits end with 57014 */
  const volatile int64_t *tx_lock_timeout; /* lock_timeout in ms (> 0): a longer wait
                                              ends with 55P03; NULL or <= 0 = none */
  struct txn_endcb_s *tx_endcbs;     /* txn_on_end callbacks, newest first */
  /* Savepoints (txn_savepoint.c). */
  bool tx_marked;                    /* a mark was taken: journal lock state changes */
  struct txn_mark_s *tx_last_mark;   /* the newest mark (shared while nothing changes) */
  struct txn_ljournal_s *tx_journal; /* lk_deleted changes since the first mark, newest first */
  struct txn_rbcb_s *tx_rbcbs;       /* txn_on_rollback_to callbacks, newest first */
  struct txn_dead_s *tx_dead;        /* trees created then rolled back to a mark: freed at the end */
  /* Isolation (txn_snapshot.c, txn_ssi.c). */
  uint8_t tx_iso;                    /* txn_iso_t */
  bool tx_has_snap;                  /* reads see tx_snap_ts (REPEATABLE READ, SERIALIZABLE) */
  uint64_t tx_snap_ts;               /* sees exactly the commits with timestamp <= this */
  _Atomic bool tx_snap_too_old;      /* cancelled over MaxVersionMem: versions it needs may be gone */
  _Atomic uint64_t tx_commit_ts;     /* 0 = not committed; TXN_TS_PENDING while being numbered */
  struct txn_s *tx_snap_next, *tx_snap_prev; /* the live snapshots (vs_mx) */
  struct txn_sx_s *tx_sx;            /* SERIALIZABLE: its conflict record (txn_ssi.c) */
};

#define TXN_TS_PENDING UINT64_MAX

/* ---- row locks (txn_lock.c) -------------------------------------------- */

/* What the lock entry knows of the key's committed value. */
enum {
  TXN_PRE_NONE = 0,         /* locked only: the tree still holds the committed value */
  TXN_PRE_ABSENT,           /* the key had no committed entry */
  TXN_PRE_VALUE             /* lk_pre is the committed value */
};

typedef struct txn_lock_s {
  struct txn_lock_s *lk_next;     /* hash chain (under the shard mutex) */
  struct txn_lock_s *lk_tx_next;  /* the owner's list */
  txn_t *lk_owner;
  db_tree_t *lk_tree;
  uint64_t lk_hash;
  uint8_t *lk_key;
  uint32_t lk_key_len;
  uint8_t lk_pre_state;           /* TXN_PRE_* */
  uint8_t lk_mode;                /* txn_lock_mode_t: entries of other owners in
                                     modes that do not conflict may sit in the chain
                                     beside it; one below NO_KEY_UPDATE never has a
                                     pre-image or changes (the owner's first change
                                     upgrades it) */
  bool lk_deleted;                /* the owner deleted the key: applied at commit */
  bool lk_hold;                   /* kept by ROLLBACK TO a mark older than it
                                     (txn_lock_hold: the catalog's DDL lock) */
  uint8_t *lk_pre;                /* in the owner's arena */
  uint32_t lk_pre_len;
  /* The owner's own view of the key when command lk_cmd began (its first
   * change in that command): readers of the owner opened at or before
   * that command see this instead of the tree. */
  uint32_t lk_cmd;                /* 0 = not changed yet */
  bool lk_cmd_exists;
  const uint8_t *lk_cmd_val;
  uint32_t lk_cmd_len;
} txn_lock_t;

int txn_locktab_create(db_t *db, err_t *e);
/* Releases tx's locks from tx->tx_locks up to (not including) stop, but
 * those with lk_hold, which stay in tx's list (ROLLBACK TO a mark taken
 * when stop was the newest lock); wakes waiters. */
void txn_lock_release_after(txn_t *tx, txn_lock_t *stop);
void txn_locktab_free(db_t *db);
/* Whether dt takes part in locking for tx (unique tree, not bulk). */
bool txn_locks_tree(const txn_t *tx, const db_tree_t *dt);
/* Takes (or finds) tx's exclusive lock on (dt, key), waiting for other
 * holders. *changed: a holder waited for committed a change of the key. */
int txn_lock_acquire(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len,
                     txn_lock_t **out, bool *waited, bool *changed, err_t *e);
/* The batch insert's forms (txn_insert_batch.c): the key's lock-table hash
 * computed once; a cache hint fetching its chain slot a few rows before
 * the lock (never waits, harmless whatever the table does meanwhile); an
 * exclusive lock taken with it (waits as txn_lock_acquire). */
uint64_t txn_lock_hash(const db_tree_t *dt, const void *key, size_t key_len);
void txn_lock_prefetch_slot(txn_t *tx, uint64_t h);
int txn_lock_acquire_hashed(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len, uint64_t h,
                            txn_lock_t **out, err_t *e);
/* The same in either mode; nowait: TXN_BUSY (nothing taken) instead of
 * waiting for a conflicting holder. A shared holder asking for the
 * exclusive mode upgrades its entry once the other sharers are gone. */
int txn_lock_acquire_mode(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len,
                          txn_lock_mode_t mode, bool nowait, txn_lock_t **out, bool *waited,
                          bool *changed, err_t *e);
/* Records the pre-image of lk from the tree (a lookup) when not yet known.
 * *exists: whether the key now has an entry in the tree. */
int txn_lock_note_pre(txn_t *tx, txn_lock_t *lk, bool *exists, err_t *e);
/* Sets lk's pre-image from a value the caller read (under the lock). */
void txn_lock_set_pre(txn_t *tx, txn_lock_t *lk, bool exists, const void *val, size_t len);
/* Applies the deletes marked in tx's locks (before the commit record). */
int txn_lock_apply_deletes(txn_t *tx, err_t *e);
/* Releases every lock of tx and wakes waiters. */
void txn_lock_release_all(txn_t *tx);
/* The row operations of txn.c on a locking tree: lock, record the
 * pre-image, apply (deletes only mark the lock; commit applies them). */
int txn_locked_insert(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len,
                      const void *val, size_t val_len, err_t *e);
/* Sorted rows into a locking unique tree (txn_insert_batch.c): all keys
 * locked, their pre-images found in one batch lookup, the absent ones
 * inserted in one bt_insert_batch. *n_done as txn_insert_batch_done. */
int txn_locked_insert_batch(txn_t *tx, db_tree_t *dt, const bt_row_t *rows, int n, int *n_done,
                            err_t *e);
/* lk (the owner's, pre-image unknown, untouched in any command) covers a
 * key with no committed entry that the owner inserts now. */
void txn_lock_note_absent(txn_t *tx, txn_lock_t *lk);
int txn_locked_update(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len,
                      const void *val, size_t val_len, err_t *e);
int txn_locked_delete(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len, err_t *e);

typedef struct txn_endcb_s {
  struct txn_endcb_s *ec_next;
  txn_end_fn_t ec_fn;
  void *ec_ctx;
} txn_endcb_t;

/* Savepoints (txn_savepoint.c). */
typedef struct txn_ljournal_s {
  struct txn_ljournal_s *lj_next;
  struct txn_lock_s *lj_lock;
  bool lj_old_deleted;            /* lk_deleted before the change */
} txn_ljournal_t;

typedef struct txn_rbcb_s {
  struct txn_rbcb_s *rc_next;
  txn_rollback_to_fn_t rc_fn;
  void *rc_ctx;
} txn_rbcb_t;

typedef struct txn_dead_s {
  struct txn_dead_s *dd_next;
  db_tree_t *dd_tree;
} txn_dead_t;

/* Remembers lk's deleted flag before a change (when tx has marks). */
void txn_journal_lock(txn_t *tx, struct txn_lock_s *lk);
/* Sets lk's deleted flag (shard mutex, deferred count) without journaling. */
void txn_lock_set_deleted(txn_t *tx, struct txn_lock_s *lk, bool deleted);
/* Frees the trees created after a mark that was rolled back to (at the
 * end of tx, after its locks are released: lock entries name them). */
void txn_free_dead_trees(txn_t *tx);

/* ---- snapshots and the version store (txn_snapshot.c) ------------------ */

int txn_vstore_create(db_t *db, err_t *e);
void txn_vstore_free(db_t *db);
/* After the commit record is durable: numbers the commit, keeps the prior
 * committed value of every key tx changed while an older snapshot may
 * live, and applies tx's deferred deletes (or leaves them in the tree,
 * dead, for those snapshots). deletes: tx marked some (before
 * txn_lock_apply_deletes logged them). */
int txn_snap_commit(txn_t *tx, bool deletes, err_t *e);
/* When tx ends: drops its snapshot and collects versions no snapshot needs. */
void txn_snap_end(txn_t *tx);
/* The checkpoint's collection (no transaction active): every version goes,
 * every dead entry leaves its tree. */
int txn_snap_purge(db_t *db, err_t *e);
/* Whether the entry of key in dt is dead (a committed delete left it for
 * older snapshots). Call while the entry is latched or its key locked. */
bool txn_snap_dead(db_tree_t *dt, const void *key, size_t key_len);
/* Whether a commit after tx's snapshot changed key (first updater wins). */
bool txn_snap_changed(const txn_t *tx, db_tree_t *dt, const void *key, size_t key_len);
/* The store's answer for a snapshot reader: the value before the first
 * commit after snap (TXN_VIS_PREIMAGE or TXN_VIS_ABSENT), TXN_VIS_ABSENT
 * when the key's newest committed change deleted it, else cand. */
txn_vis_t txn_snap_read_store(uint64_t snap, db_tree_t *dt, const void *key, size_t key_len,
                              arena_t *a, const void **val, size_t *val_len, txn_vis_t cand);
/* bt_lookup of the latest committed state plus the caller's own changes:
 * a dead entry is BT_NOT_FOUND (*dead, may be NULL, says it is there).
 * The caller holds the key's lock. */
int txn_tree_lookup(db_tree_t *dt, const void *key, size_t key_len, void *buf, size_t cap,
                    size_t *val_len, bool *dead, err_t *e);
/* An insert over a dead entry (TXN_OP_REVIVE). */
int txn_snap_revive(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len, const void *val,
                    size_t val_len, err_t *e);
/* The store's figures for db_get_stats. */
void txn_snap_stats(db_t *db, db_stats_t *out);
/* Takes the lock on (dt, key) for tx only when nobody else holds it. */
bool txn_lock_try(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len);

/* ---- serializable (txn_ssi.c) ------------------------------------------ */

int txn_ssi_create(db_t *db, err_t *e);
void txn_ssi_free(db_t *db);
int txn_ssi_begin(txn_t *tx, err_t *e);
/* tx writes dt: 40001 when that closes a dangerous structure. */
int txn_ssi_write(txn_t *tx, db_tree_t *dt, err_t *e);
/* At commit, with tx's commit timestamp (0 for a read-only one: it takes
 * one). 40001 when tx was doomed by a read. */
int txn_ssi_commit(txn_t *tx, err_t *e);
/* At the end (after txn_ssi_commit or for a rollback). */
void txn_ssi_end(txn_t *tx);

/* The named tree of a handle through tx's cache (the directory mutex only
 * on a miss); NULL when unknown. Does not check dt_hidden. */
db_tree_t *txn_tree_of(txn_t *tx, bt_tree_t *t);

/* Appends an operation (copying key, val and old into the arena). */
txn_op_t *txn_add_op(txn_t *tx, int kind, db_tree_t *dt, const void *key, size_t key_len,
                     const void *val, size_t val_len, const void *old, size_t old_len);
/* Applies the undo of every operation, newest first. Trees the
 * transaction created are hidden; txn_undo_finish frees them (after the
 * locks naming them are released). */
int txn_undo_all(txn_t *tx, err_t *e);
/* The inverse of one operation (BT_NOT_FOUND turned into XX000). */
int txn_undo_op(db_t *db, const txn_op_t *op, err_t *e);
void txn_undo_finish(txn_t *tx);
/* Leaves the checkpoint gate (one active transaction less). */
void db_gate_leave(db_t *db);
/* Runs the txn_on_end callbacks, then releases the locks. */
void txn_end_callbacks_and_locks(txn_t *tx, bool committed);
/* Leaves the checkpoint gate and frees tx (running the callbacks and
 * releasing the locks as a rollback when that was not done yet). */
void txn_end(txn_t *tx);

/* ---- streamed redo (txn_stream.c) ------------------------------------- */

/* Whether tx's redo not yet logged has reached its stream limit. */
static inline bool txn_stream_due(const txn_t *tx)
{
  return tx->tx_stream_limit && tx->tx_log_bytes - tx->tx_logged_bytes >= tx->tx_stream_limit;
}
/* Appends tx's operations not yet logged as continuation records (up to
 * the first DROP, which is never streamed) and frees their redo-only
 * values. */
int txn_stream(txn_t *tx, err_t *e);
/* Before a rollback to the mark whose newest operation is m_last (NULL:
 * none), m_n_ops and m_log_bytes: logs the inverse of every streamed
 * operation after it, newest first, and moves the stream's boundary back
 * to the mark. */
int txn_stream_compensate(txn_t *tx, txn_op_t *m_last, uint32_t m_n_ops, size_t m_log_bytes, err_t *e);
/* The commit record (malloc'd): the operations not yet logged, tagged
 * when tx streamed. */
uint8_t *txn_commit_record(txn_t *tx, size_t *len, err_t *e);
/* Copies a value into the arena the operation's kind needs it in. */
const uint8_t *txn_copy_val(txn_t *tx, int kind, const db_tree_t *dt, const void *val, size_t len,
                            bool *redo_only);

/* ---- directory (db_dir.c) ---------------------------------------------- */

int db_dir_cache_init(db_dir_cache_t *c, err_t *e);
void db_dir_cache_free(db_dir_cache_t *c);
/* Loads every entry of the directory tree into the cache, opening handles. */
int db_dir_load(db_t *db, err_t *e);
db_tree_t *db_dir_find_id(db_t *db, uint64_t id);
db_tree_t *db_dir_find_bt(db_t *db, bt_tree_t *bt);
/* A new tree: bt_create, a directory entry and a cache entry. */
int db_dir_create(db_t *db, const char *name, size_t name_len, uint64_t id, uint32_t flags,
                  db_tree_t **out, err_t *e);
/* Removes the directory entry and hides the tree (db_open_tree misses it). */
int db_dir_hide(db_t *db, db_tree_t *dt, err_t *e);
/* Undoes db_dir_hide. */
int db_dir_unhide(db_t *db, db_tree_t *dt, err_t *e);
/* Frees a hidden tree's pages and its cache entry. */
int db_dir_destroy(db_t *db, db_tree_t *dt, err_t *e);
/* A committed DROP: the tree stays readable (statements that started
 * before still hold its handle) until the next checkpoint, which runs
 * when no transaction is active, frees it (db_dir_free_buried). */
void db_dir_bury(db_t *db, db_tree_t *dt);
void db_dir_free_buried(db_t *db);

/* ---- checkpoint and recovery ------------------------------------------- */

/* The checkpoint proper; the caller holds the gate closed (pending set and
 * no transaction active). */
int db_checkpoint_locked_out(db_t *db, err_t *e);
int db_timer_start(db_t *db, err_t *e);
void db_timer_stop(db_t *db);
/* Replays the log generation the image names. */
int db_recover(db_t *db, err_t *e);

#endif /* CZ_TXN_INT_H */
