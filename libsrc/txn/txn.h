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
 * - Isolation between concurrent transactions (row locks, read committed
 *   versions) comes with the SQL transaction layer; here concurrent
 *   transactions must touch disjoint keys.
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

typedef struct db_config_s {
  st_config_t dc_storage;
  bp_config_t dc_pool;
  const char *dc_wal_path;        /* [Database] TransactionFile */
  int64_t dc_checkpoint_interval_s; /* [Parameters] CheckpointInterval in minutes *60; 0 = only on demand */
  bool dc_sync;                   /* fsync the log at commit (false only in tests) */
} db_config_t;

/* From [Database] DatabaseFile, TransactionFile, [Striping], [Parameters]
 * NumberOfBuffers, MaxDirtyBuffers, CheckpointInterval. */
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

/* ---- transactions ------------------------------------------------------ */

#define TXN_BULK 0x1

/* Waits while a checkpoint is running. */
txn_t *txn_begin(db_t *db, int flags, err_t *e);
int txn_insert(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e);
/* BT_NOT_FOUND when the key is absent (nothing logged). */
int txn_update(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e);
/* Non-unique trees name the entry with val; unique trees pass NULL. */
int txn_delete(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
               const void *val, size_t val_len, err_t *e);
/* Sorted rows through bt_insert_batch (the loader's path). */
int txn_insert_batch(txn_t *tx, bt_tree_t *t, const bt_row_t *rows, int n, err_t *e);

/* Durable when it returns CZ_OK. On error the transaction is rolled back.
 * tx is freed either way. */
int txn_commit(txn_t *tx, err_t *e);
/* Undoes every change of tx in reverse order and frees it. XX000 for a bulk
 * transaction (it cannot roll back). */
int txn_rollback(txn_t *tx, err_t *e);

/* ---- checkpoint -------------------------------------------------------- */

int db_checkpoint(db_t *db, err_t *e);

typedef struct db_stats_s {
  uint64_t ds_commits;
  uint64_t ds_log_writes;     /* fdatasyncs of the log: commits / this = group size */
  uint64_t ds_log_bytes;
  uint64_t ds_checkpoints;
  uint64_t ds_replayed;       /* records replayed at the last open */
} db_stats_t;

void db_get_stats(db_t *db, db_stats_t *out);

#endif /* CZ_TXN_H */
