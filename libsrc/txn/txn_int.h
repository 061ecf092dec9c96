/* txn_int.h — structures shared inside txn/: the database handle, the
 * directory of named trees, transactions and their operation lists, the
 * log record (redo) format.
 *
 * Design notes (txn/README.md has the protocol and the numbered rules):
 * - db_mx guards the checkpoint gate: the count of active transactions and
 *   the pending flag. db_dir_mx guards the tree cache. The log has its own
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
  _Atomic bool dt_hidden;   /* dropped by a transaction not yet committed */
  const txn_t *dt_hider;    /* that transaction: only it may reuse the name before it ends */
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
  int db_n_active;          /* transactions begun and not ended */
  bool db_ckpt_pending;     /* new transactions wait */
  bool db_closing;          /* db_close started: the timer thread stops */
  uint64_t db_generation;   /* log generation now being appended */
  _Atomic uint64_t db_next_tree_id;
  _Atomic bool db_broken;   /* memory no longer matches image + log: refuse work */

  cz_mutex_t db_dir_mx;
  db_dir_cache_t db_cache;

  cz_thread_t db_timer;     /* periodic checkpoints */
  bool db_timer_running;
  cz_cond_t db_timer_cond;  /* wakes the timer at close */

  _Atomic uint64_t db_commits;
  _Atomic uint64_t db_checkpoints;
  uint64_t db_replayed;
};

/* ---- the log record of one transaction (redo) -------------------------- */

/* Operation kinds, in the log and in a transaction's list. */
enum {
  TXN_OP_CREATE = 1,        /* key = name, val = u32 flags */
  TXN_OP_DROP = 2,          /* key = name */
  TXN_OP_INSERT = 3,
  TXN_OP_UPDATE = 4,        /* val = the new value */
  TXN_OP_DELETE = 5         /* val = the entry's value in a non-unique tree, else empty */
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
typedef int (*txn_logop_fn_t)(void *ctx, const txn_logop_t *op, err_t *e);
/* Calls fn per operation; XX001 when the payload is malformed. */
int txn_log_decode(const uint8_t *p, size_t len, txn_logop_fn_t fn, void *ctx, err_t *e);

/* ---- transactions ------------------------------------------------------ */

typedef struct txn_op_s {
  struct txn_op_s *to_next, *to_prev;
  int to_kind;              /* TXN_OP_* */
  db_tree_t *to_tree;
  const uint8_t *to_key;
  uint32_t to_key_len;
  const uint8_t *to_val;    /* as txn_logop_t */
  uint32_t to_val_len;
  const uint8_t *to_old;    /* UPDATE, DELETE: the value before (for undo) */
  uint32_t to_old_len;
} txn_op_t;

struct txn_s {
  db_t *tx_db;
  arena_t *tx_arena;        /* tx itself, its operations and their bytes */
  int tx_flags;
  txn_op_t *tx_first, *tx_last;
  uint32_t tx_n_ops;
  size_t tx_log_bytes;      /* size of the redo payload so far */
  bt_tree_t *tx_last_bt;    /* one-entry cache of the handle -> tree lookup */
  db_tree_t *tx_last_tree;
};

/* Appends an operation (copying key, val and old into the arena). */
txn_op_t *txn_add_op(txn_t *tx, int kind, db_tree_t *dt, const void *key, size_t key_len,
                     const void *val, size_t val_len, const void *old, size_t old_len);
/* Applies the undo of every operation, newest first. */
int txn_undo_all(txn_t *tx, err_t *e);
/* Leaves the checkpoint gate and frees tx. */
void txn_end(txn_t *tx);

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

/* ---- checkpoint and recovery ------------------------------------------- */

/* The checkpoint proper; the caller holds the gate closed (pending set and
 * no transaction active). */
int db_checkpoint_locked_out(db_t *db, err_t *e);
int db_timer_start(db_t *db, err_t *e);
void db_timer_stop(db_t *db);
/* Replays the log generation the image names. */
int db_recover(db_t *db, err_t *e);

#endif /* CZ_TXN_INT_H */
