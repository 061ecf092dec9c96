/* txn — the database handle, transactions, the write-ahead log with group
 * commit, checkpoint, roll-forward recovery and the non-transactional bulk
 * mode.
 *
 * Design notes (txn/README.md has the recovery protocol):
 * - A transaction applies its changes to the B-trees at once and keeps, in
 *   memory, a redo list (what to log) and an undo list (how to roll back).
 * - Commit appends the redo list to the log as ONE record (length, checksum,
 *   payload): a torn tail is simply not there after a crash. Group commit:
 *   committers queue their records; one of them writes everything queued
 *   with one write and one fdatasync and wakes all whose records it covered.
 *   db_commit returns only after its record is durable.
 * - The log is logical (tree, operation, key, value). Storage guarantees the
 *   disk holds exactly the last checkpoint image after a crash, so recovery
 *   = open the image, replay every complete record of the log generation the
 *   image names, in order, then checkpoint.
 * - Checkpoint: new transactions wait, running ones finish, the buffer pool
 *   writes every dirty page, storage switches the root record (which names
 *   the next log generation), and the log restarts empty.
 * - Bulk mode: a bulk transaction's changes are not logged and cannot roll
 *   back; they are durable at the next checkpoint (db_commit of a bulk
 *   transaction runs one).
 * - Read committed (unique trees): a writer locks each key it changes in
 *   the lock table (txn_lock.c) and keeps the key's committed pre-image in
 *   the lock entry; a writer meeting a key locked by another transaction
 *   waits until that one ends (deadlocks: 40P01), and an update or delete
 *   whose key was changed meanwhile by the other fails with 40001.
 *   Readers never wait: txn_read_version tells them what to see of a key
 *   another transaction holds (its pre-image; nothing for an uncommitted
 *   insert). A transaction's deletes of locked keys stay in the tree until
 *   its commit, so others keep seeing the row. Non-unique trees and bulk
 *   transactions are not locked.
 * - Repeatable read and serializable (txn_snapshot.c, txn_ssi.c): commits
 *   are numbered; a snapshot sees the commits up to its number, older
 *   committed values coming from a version store that keeps what live
 *   snapshots need (deleted entries stay in their trees, dead, meanwhile).
 *   Serializable adds rw-antidependency tracking per tree.
 * - The periodic checkpoint does not stall the server: when transactions
 *   stay open it gives up after a short wait and retries later
 *   (db_checkpoint_try).
 */
#ifndef CZ_TXN_H
#define CZ_TXN_H

#include <stdbool.h>
#include <stdint.h>

#include "btree/btree.h"
#include "buffer/buffer.h"
#include "storage/storage.h"
#include "util/util.h"

typedef struct db_s db_t;
typedef struct txn_s txn_t;
/* A named tree as txn/ knows it (the lock count readers test); obtained
 * once per handle with db_tree_of and cached by the caller. */
typedef struct db_tree_s db_tree_t;

typedef struct db_config_s {
  st_config_t dc_storage;
  bp_config_t dc_pool;
  const char *dc_wal_path;        /* [Database] TransactionFile */
  int64_t dc_checkpoint_interval_s; /* [Parameters] CheckpointInterval in minutes *60; 0 = only on demand */
  bool dc_sync;                   /* fsync the log at commit (false only in tests) */
  uint64_t dc_max_version_bytes;  /* [Parameters] MaxVersionMem (MB) in bytes; 0 = no limit */
  uint64_t dc_log_stream_bytes;   /* [Parameters] LogStreamBytes: a transaction whose redo not
                                     yet logged reaches this writes it to the log as it goes;
                                     0 = only at commit (one record of at most 1 GiB) */
} db_config_t;

/* From [Database] DatabaseFile, TransactionFile, [Striping], [Parameters]
 * NumberOfBuffers, MaxDirtyBuffers, CheckpointInterval, MaxVersionMem. */
int db_config_from_ini(const ini_t *ini, db_config_t *cfg, err_t *e);

/* Opens (creating when absent) and recovers: replays the log, then
 * checkpoints so the database starts from a clean image. */
int db_open(const db_config_t *cfg, db_t **out, err_t *e);
/* Waits for running transactions, checkpoints when checkpoint is true, and
 * frees everything. */
int db_close(db_t *db, bool checkpoint, err_t *e);
bpool_t *db_pool(db_t *db);

/* ---- named trees ------------------------------------------------------- */

/* Trees are registered by name in the database's directory tree, so they
 * are found again after a restart. The handle is owned by db (do not
 * bt_close it) and valid until db_close or db_drop_tree. */
int db_create_tree(txn_t *tx, const char *name, uint32_t bt_flags, bt_tree_t **out, err_t *e);
/* BT_NOT_FOUND when no tree has that name. */
int db_open_tree(db_t *db, const char *name, bt_tree_t **out, err_t *e);
int db_drop_tree(txn_t *tx, const char *name, err_t *e);
/* The named tree behind a handle of this database (NULL when it is not
 * one). Takes the directory mutex: call once and cache the result. */
db_tree_t *db_tree_of(db_t *db, bt_tree_t *t);
/* Tells tx that handle t is the named tree dt (as db_tree_of said), so
 * its operations on t skip the directory lookup and its mutex. The table
 * layer passes the pair the catalog caches. */
void txn_note_tree(txn_t *tx, bt_tree_t *t, db_tree_t *dt);
/* The tree's id (stable across restarts). */
uint64_t db_tree_id(const db_tree_t *dt);

/* ---- transactions ------------------------------------------------------ */

#define TXN_BULK 0x1
/* A short transaction begun while the caller holds another live
 * transaction of the same database (the catalog logs a sequence's values
 * this way): it does not wait for a checkpoint that is closing the gate,
 * which could not finish before the caller's transaction ends anyway, so
 * waiting would deadlock; the checkpoint waits for it as for any. */
#define TXN_NESTED 0x2

/* Waits while a checkpoint is running. */
txn_t *txn_begin(db_t *db, int flags, err_t *e);
int txn_insert(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e);
/* BT_NOT_FOUND when the key is absent (nothing logged). In a unique tree
 * (not bulk) insert, update and delete lock the key first (see below);
 * update and delete fail with 40001 when they waited for a holder that
 * committed a change of the key; a delete is applied to the tree at
 * commit (others keep seeing the row until then). */
int txn_update(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e);
/* Non-unique trees name the entry with val; unique trees pass NULL. */
int txn_delete(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e);
/* Sorted rows through bt_insert_batch (the loader's path). */
int txn_insert_batch(txn_t *tx, bt_tree_t *t, const bt_row_t *rows, int n, err_t *e);
/* The same, saying how many rows went in before a failure (a duplicate:
 * rows[*n_done] is the one refused). */
int txn_insert_batch_done(txn_t *tx, bt_tree_t *t, const bt_row_t *rows, int n, int *n_done,
                          err_t *e);
/* As txn_insert_batch_done into a tree tx itself created (XX000
 * otherwise), taking no row locks: no other transaction can name the
 * tree before tx commits. For bulk builds (a rewrite, an index build);
 * later changes of those rows by tx lock as usual. The rows' key and
 * value bytes must live as long as tx (allocate them in txn_arena(tx)):
 * the redo list keeps them without a copy. */
int txn_fill_batch(txn_t *tx, bt_tree_t *t, const bt_row_t *rows, int n, int *n_done, err_t *e);

/* ---- row locks and read committed (txn_lock.c) -------------------------- */


/* Locks key of tree t for tx (a no-op for bulk transactions and when tx
 * already holds it). When another live transaction holds it, waits until
 * that one ends: 40P01 when waiting would close a cycle of waiters (the
 * requester is the victim), 57014 when the cancel flag is raised while
 * waiting. *waited (may be NULL) says whether it had to wait, *changed
 * (may be NULL) whether the holder waited for committed a change of the
 * key (its value now differs from the holder's pre-image); 55P03 when the
 * wait lasts longer than the lock timeout (txn_set_lock_timeout). Lock names are
 * (tree, key bytes): callers may lock names that are not entries (the
 * table layer locks the value of a unique index this way). */
int txn_lock(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
             bool *waited, bool *changed, err_t *e);
/* Locks key (as txn_lock) and reads its value as tx sees it now (its own
 * change, else the committed value: nobody else can change it while the
 * lock is held) into val (cap bytes, *val_len the full length). *found is
 * false when the key has no entry (or tx deleted it). The table layer
 * reads a row this way before changing it. */
int txn_lock_read(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len, void *val,
                  size_t cap, size_t *val_len, bool *found, bool *changed, err_t *e);
/* Row lock strengths, PostgreSQL's four, weakest first; a holder of one
 * and a requester of another conflict as in PostgreSQL's table:
 *   KEY_SHARE     (FOR KEY SHARE, a foreign key's check of the referenced
 *                 key)          conflicts with EXCLUSIVE only;
 *   SHARED        (FOR SHARE)   with NO_KEY_UPDATE and EXCLUSIVE;
 *   NO_KEY_UPDATE (FOR NO KEY UPDATE, an UPDATE of the row that keeps
 *                 its key)      with SHARED, NO_KEY_UPDATE, EXCLUSIVE;
 *   EXCLUSIVE     (FOR UPDATE, DELETE, an insert, a key change; every
 *                 other writer) with all.
 * Asking for a stronger mode than one holds upgrades the entry (waiting
 * for the holders that conflict with the new mode). */
typedef enum txn_lock_mode_e {
  TXN_LOCK_KEY_SHARE = 1,
  TXN_LOCK_SHARED = 2,
  TXN_LOCK_NO_KEY_UPDATE = 3,
  TXN_LOCK_EXCLUSIVE = 4
} txn_lock_mode_t;
/* txn_lock_read taking the lock in mode (NO_KEY_UPDATE: the table
 * layer's update, whose key change, if any, then takes EXCLUSIVE through
 * txn_delete of the old key). */
int txn_lock_read_as(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
                     txn_lock_mode_t mode, void *val, size_t cap, size_t *val_len, bool *found,
                     bool *changed, err_t *e);
/* txn_lock in mode (KEY_SHARE: a foreign key's check of the key it
 * references). */
int txn_lock_as(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len, txn_lock_mode_t mode,
                err_t *e);
/* txn_lock_row with nowait: a conflicting holder is there (nothing taken). */
#define TXN_BUSY 2
/* Locks key in mode and reads its value as tx sees it now (as
 * txn_lock_read; *found false when the key has no entry or tx deleted
 * it), waiting for conflicting holders as txn_lock does (40P01, 57014,
 * 55P03 after the lock timeout) — or, with nowait, returning TXN_BUSY at
 * once. A shared holder asking for the exclusive mode upgrades (waiting
 * for the other sharers). Records no pre-image: taking a lock changes
 * nothing readers see. */
int txn_lock_row(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len, txn_lock_mode_t mode,
                 bool nowait, void *val, size_t cap, size_t *val_len, bool *found, err_t *e);
/* lock_timeout: a lock wait of tx longer than *ms milliseconds (read at
 * each wait; <= 0 = none) ends with 55P03 "canceling statement due to
 * lock timeout". ms (NULL = none) must outlive tx: the session's setting. */
void txn_set_lock_timeout(txn_t *tx, const volatile int64_t *ms);
/* Whether tx holds the lock on key (tests, assertions). */
bool txn_holds_lock(const txn_t *tx, bt_tree_t *t, const void *key, size_t key_len);
/* A flag another thread may raise (esession_cancel): lock waits end with
 * 57014. NULL = none. */
void txn_set_cancel(txn_t *tx, const volatile bool *flag);

/* What a reader sees of an entry it read from tree dt. Call it WHILE the
 * value is still latched (between bt_next calls, or inside a
 * bt_lookup_batch callback), so that a writer cannot end in between.
 * self is the reader's transaction (NULL = none: committed data only). */
typedef enum txn_vis_e {
  TXN_VIS_CURRENT = 0,  /* the tree's value is visible as it is */
  TXN_VIS_ABSENT,       /* skip the entry: another's uncommitted insert,
                           or a delete of self's not yet applied */
  TXN_VIS_PREIMAGE      /* another's uncommitted change: *val (copied
                           into a) is the committed value */
} txn_vis_t;
/* Fast: one atomic load when no key of dt is locked. self sees all its
 * own changes. */
txn_vis_t txn_read_version(const txn_t *self, db_tree_t *dt, const void *key, size_t key_len,
                           arena_t *a, const void **val, size_t *val_len);

/* Statement-level visibility of one's own changes (no Halloween effect:
 * an UPDATE that moves rows forward, or INSERT … SELECT from the same
 * table, must not meet the rows it wrote). txn_command_next starts a new
 * command of tx and returns its number: a reader opened then passes it to
 * txn_read_version_at and does not see what tx changes from then on (it
 * sees the key as tx had it when the command began; one level of history
 * per key). cmd 0 = see everything of tx. */
uint32_t txn_command_next(txn_t *tx);
txn_vis_t txn_read_version_at(const txn_t *self, uint32_t cmd, db_tree_t *dt, const void *key,
                              size_t key_len, arena_t *a, const void **val, size_t *val_len);
/* Whether every entry of dt is visible to self as the tree holds it (no
 * key locked; none in the version store that self's snapshot, or a
 * read-committed reader, must see otherwise): then a scan may skip
 * txn_read_version_at for a whole leaf. One or two atomic loads. */
bool txn_tree_plain(const txn_t *self, const db_tree_t *dt);
/* Number of keys of dt now locked (0 = every entry is committed). */
uint32_t db_tree_nlocked(const db_tree_t *dt);
/* Number of keys of dt that tx itself holds locked (walks tx's locks;
 * only tx's own thread may call it). */
uint32_t txn_tree_nlocked_own(const txn_t *tx, const db_tree_t *dt);
/* Whether tx's cancel flag (txn_set_cancel) is raised. */
bool txn_cancel_requested(const txn_t *tx);
/* Why a scan plus txn_read_version suffices: a key another transaction
 * deleted stays in the tree (marked in its lock entry) until that
 * transaction commits, so no committed row is ever missing from the tree;
 * uncommitted values are replaced by their pre-images and uncommitted
 * inserts skipped. The reader sees exactly the committed state plus its
 * own changes. */

/* ---- isolation levels (txn_snapshot.c, txn_ssi.c) ------------------------ */

/* READ COMMITTED is what every transaction starts with. REPEATABLE READ
 * is snapshot isolation: the snapshot is taken by txn_set_isolation (call
 * it before the transaction's first statement), scans and lookups
 * (txn_read_version_at) see exactly the commits before it plus the
 * transaction's own changes, and txn_lock_read reports a key a later
 * commit changed as changed (the table layer's update and delete then
 * fail with 40001: first updater wins). SERIALIZABLE adds conflict tracking
 * (txn_ssi.c, README "Serializable") that fails one transaction of every
 * dangerous structure with 40001. txn_read_version (no command) stays the
 * latest committed state for constraint checks, as PostgreSQL's. */
typedef enum txn_iso_e {
  TXN_ISO_READ_COMMITTED = 0,
  TXN_ISO_REPEATABLE_READ,
  TXN_ISO_SERIALIZABLE
} txn_iso_t;
int txn_set_isolation(txn_t *tx, txn_iso_t iso, err_t *e);
txn_iso_t txn_isolation(const txn_t *tx);
/* SERIALIZABLE: tx reads tree dt (a scan, lookup or probe opens on it).
 * A conflict that closes a dangerous structure dooms tx: its next write,
 * txn_check_serializable or commit fails with 40001. No-op otherwise. */
void txn_note_read(txn_t *tx, db_tree_t *dt);
/* Whether a transaction that committed after tx's snapshot changed,
 * inserted or deleted key of dt (false without a snapshot). ON CONFLICT
 * asks it of the row it conflicts with: PostgreSQL fails that with 40001
 * under REPEATABLE READ and SERIALIZABLE. */
bool txn_snapshot_changed(const txn_t *tx, db_tree_t *dt, const void *key, size_t key_len);
/* Keeps tx's lock on (t, key) (taken with txn_lock) through a ROLLBACK
 * TO a savepoint older than it, which releases the other locks taken
 * after that savepoint: for locks that guard state kept outside the
 * transaction's operations (the catalog's DDL lock). */
void txn_lock_hold(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len);
/* 40001 when tx is doomed (the engine asks at each statement). */
int txn_check_serializable(const txn_t *tx, err_t *e);
/* 72000 "snapshot too old" when tx's snapshot was cancelled because the
 * version store passed MaxVersionMem (txn/README.md, "Snapshots"): what
 * it read since may be wrong, so the engine asks after every read of a
 * table (a scan batch, a lookup, a probe) and at each statement. One
 * atomic load; CZ_OK without a snapshot. */
int txn_check_snapshot(const txn_t *tx, err_t *e);

/* Durable when it returns CZ_OK. On error the transaction is rolled back.
 * tx is freed either way. */
int txn_commit(txn_t *tx, err_t *e);
/* Undoes every change of tx in reverse order and frees it. XX000 for a bulk
 * transaction (it cannot roll back). */
int txn_rollback(txn_t *tx, err_t *e);

/* Calls fn(ctx, committed) when tx ends, after its commit is durable (or
 * its rollback done) and before its locks are released, newest
 * registration first. The catalog publishes or discards its pending
 * snapshot this way. fn must not fail or start transactions. */
typedef void (*txn_end_fn_t)(void *ctx, txn_t *tx, bool committed);
void txn_on_end(txn_t *tx, txn_end_fn_t fn, void *ctx);
/* ---- savepoints (txn_savepoint.c) --------------------------------------- */

/* A point in a transaction to roll back to (SQL SAVEPOINT, and the
 * engine's implicit mark before each statement of a block). Lives in the
 * transaction's arena. */
typedef struct txn_mark_s txn_mark_t;
/* Marks the current state of tx. Cheap: a few words. */
txn_mark_t *txn_savepoint_mark(txn_t *tx);
/* Undoes every change tx made after mark, newest first, and forgets it:
 * the commit record will not hold it. Deletes deferred after the mark are
 * cancelled; trees created after it are hidden (freed when tx ends),
 * trees dropped after it come back; then the txn_on_rollback_to callbacks
 * run (the catalog rebuilds its private snapshot). Keys locked after the
 * mark STAY locked until tx ends (their entries hold the committed
 * pre-image, which equals the tree again, so readers and waiters see the
 * committed state). mark stays valid (roll back to it again); marks taken
 * after it are invalid from now on. Starts a new command. On an undo
 * failure the database is marked broken (as for txn_rollback) and the
 * caller must roll tx back. A no-op for bulk transactions' unlogged
 * changes: XX000 when tx is bulk. */
int txn_rollback_to_mark(txn_t *tx, txn_mark_t *mark, err_t *e);
/* Called by txn_rollback_to_mark after the undo, newest registration
 * first; fn may fail (then txn_rollback_to_mark fails). */
typedef int (*txn_rollback_to_fn_t)(void *ctx, txn_t *tx, err_t *e);
void txn_on_rollback_to(txn_t *tx, txn_rollback_to_fn_t fn, void *ctx);

/* The transaction's arena: lives until it ends (callers may keep
 * per-transaction state there). */
arena_t *txn_arena(txn_t *tx);
/* Whether tx is a bulk (TXN_BULK) transaction. */
bool txn_is_bulk(const txn_t *tx);
db_t *txn_db(const txn_t *tx);
/* A serial number unique among the transactions of this open database. */
uint64_t txn_id(const txn_t *tx);

/* ---- checkpoint -------------------------------------------------------- */

/* Waits for running transactions (new ones wait meanwhile) and checkpoints. */
int db_checkpoint(db_t *db, err_t *e);
/* As db_checkpoint, but gives up (returns 1, nothing done, new
 * transactions released) when transactions are still running after
 * wait_ms. The timer uses it with a short wait and retries sooner. */
int db_checkpoint_try(db_t *db, uint32_t wait_ms, err_t *e);

/* One hook run after every successful checkpoint (db_checkpoint, the
 * timer's, db_close's), while no transaction is active: the catalog saves
 * its statistics there. fn NULL removes it; a running hook is waited for.
 * fn must not start transactions. */
void db_on_checkpoint(db_t *db, void (*fn)(void *ctx), void *ctx);

typedef struct db_stats_s {
  uint64_t ds_commits;
  uint64_t ds_log_writes;     /* fdatasyncs of the log: commits / this = group size */
  uint64_t ds_log_bytes;
  uint64_t ds_log_streamed;   /* continuation records of large transactions (LogStreamBytes) */
  uint64_t ds_checkpoints;
  uint64_t ds_replayed;       /* records replayed at the last open */
  uint64_t ds_versions;       /* keys in the version store (older snapshots need them) */
  uint64_t ds_version_bytes;  /* their memory */
  uint64_t ds_snapshots;      /* live snapshots */
} db_stats_t;

void db_get_stats(db_t *db, db_stats_t *out);

#endif /* CZ_TXN_H */
