/* db_open — the database handle's life: open (create or recover), close,
 * statistics.
 *
 * Design notes: opening is always "recover, then checkpoint". A new
 * database (an image whose root record holds no user root, which is also
 * what a crash during creation leaves) gets its directory tree and a first
 * checkpoint naming a log generation taken from the clock. An existing one opens its directory,
 * replays the log generation its image names and checkpoints, so the log
 * starts empty under the next generation and the image holds everything.
 */
#include <stdlib.h>
#include <string.h>

#include "txn/txn_int.h"

/* The configuration's strings may live in an ini the caller frees. */
static void db_copy_config(db_t *db, const db_config_t *cfg)
{
  db->db_cfg = *cfg;
  st_config_t *sc = &db->db_cfg.dc_storage;
  sc->sc_path = arena_strdup(db->db_arena, cfg->dc_storage.sc_path);
  for (int i = 0; i < sc->sc_n_stripes && i < ST_MAX_STRIPES; i++)
    sc->sc_stripes[i] = arena_strdup(db->db_arena, cfg->dc_storage.sc_stripes[i]);
  sc->sc_create = true;
  db->db_cfg.dc_wal_path = arena_strdup(db->db_arena, cfg->dc_wal_path);
}

static void db_free(db_t *db)
{
  /* Closing without a checkpoint: the log still holds the DROPs (replay
   * frees the pages); here only the memory goes. */
  db->db_graveyard = NULL;
  db_dir_cache_free(&db->db_cache);
  txn_locktab_free(db);
  txn_vstore_free(db);
  txn_ssi_free(db);
  if (db->db_dir)
    bt_close(db->db_dir);
  if (db->db_bp)
    bp_destroy(db->db_bp);
  if (db->db_st)
    st_close(db->db_st);
  wal_close(db->db_wal);
  mutex_destroy(&db->db_mx);
  mutex_destroy(&db->db_dir_mx);
  cond_destroy(&db->db_gate);
  cond_destroy(&db->db_timer_cond);
  arena_destroy(db->db_arena);
}

/* A new database: the directory tree, then the first image. */
static int db_init_new(db_t *db, err_t *e)
{
  pg_no_t root;
  if (bt_create(db->db_bp, BT_UNIQUE, &root, e) != CZ_OK || bt_open(db->db_bp, root, &db->db_dir, e) != CZ_OK)
    return err_prefix(e, "create the tree directory");
  /* Generations start from the clock, not from 1: a log left behind by an
   * earlier database of the same name can never name this one's image. */
  db->db_generation = time_wall_ms();
  atomic_store(&db->db_next_tree_id, 1);
  return db_checkpoint_locked_out(db, e);
}

static int db_init_existing(db_t *db, const void *user_root, size_t len, err_t *e)
{
  db_root_t r;
  if (db_root_decode(user_root, len, &r, e) != CZ_OK)
    return CZ_ERR;
  db->db_generation = r.dr_generation;
  atomic_store(&db->db_next_tree_id, r.dr_next_tree_id);
  if (bt_open(db->db_bp, r.dr_dir_root, &db->db_dir, e) != CZ_OK)
    return err_prefix(e, "open the tree directory");
  if (db_dir_load(db, e) != CZ_OK || db_recover(db, e) != CZ_OK)
    return CZ_ERR;
  return db_checkpoint_locked_out(db, e);
}

int db_open(const db_config_t *cfg, db_t **out, err_t *e)
{
  *out = NULL;
  if (!cfg->dc_wal_path || !cfg->dc_storage.sc_path)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "db_open: the database and log paths are required");
  arena_t *a = arena_create(NULL, "db");
  db_t *db = arena_zalloc(a, sizeof *db);
  db->db_arena = a;
  db_copy_config(db, cfg);
  mutex_init(&db->db_mx);
  mutex_init(&db->db_dir_mx);
  cond_init(&db->db_gate);
  cond_init(&db->db_timer_cond);
  int rc = db_dir_cache_init(&db->db_cache, e);
  if (rc == CZ_OK)
    rc = txn_locktab_create(db, e);
  if (rc == CZ_OK)
    rc = txn_vstore_create(db, e);
  if (rc == CZ_OK)
    rc = txn_ssi_create(db, e);
  /* The log first: its lock refuses a second server sharing it before
   * a database file is created or read. */
  if (rc == CZ_OK)
    rc = wal_open(db->db_cfg.dc_wal_path, db->db_cfg.dc_sync, &db->db_wal, e);
  if (rc == CZ_OK && st_open(&db->db_cfg.dc_storage, &db->db_st, e) != CZ_OK) {
    rc = CZ_ERR;
    wal_close_discard(db->db_wal);  /* a log made just now for a database in use */
    db->db_wal = NULL;
  }
  if (rc == CZ_OK)
    rc = bp_create(db->db_st, &db->db_cfg.dc_pool, &db->db_bp, e);
  if (rc == CZ_OK) {
    size_t len;
    const void *ur = st_user_root(db->db_st, &len);
    rc = len == 0 ? db_init_new(db, e) : db_init_existing(db, ur, len, e);
  }
  if (rc == CZ_OK)
    rc = db_timer_start(db, e);
  if (rc != CZ_OK) {
    err_prefix(e, "open database %s", cfg->dc_storage.sc_path);
    db_free(db);
    return CZ_ERR;
  }
  *out = db;
  return CZ_OK;
}

int db_close(db_t *db, bool checkpoint, err_t *e)
{
  if (!db)
    return CZ_OK;
  db_timer_stop(db);
  int rc = CZ_OK;
  if (checkpoint) {
    rc = db_checkpoint(db, e);
  } else {
    /* Close the gate for good and wait for the running transactions. */
    mutex_lock(&db->db_mx);
    while (atomic_load(&db->db_ckpt_pending))
      cond_wait(&db->db_gate, &db->db_mx);
    atomic_store(&db->db_ckpt_pending, true);
    while (atomic_load(&db->db_n_active) > 0)
      cond_wait(&db->db_gate, &db->db_mx);
    mutex_unlock(&db->db_mx);
  }
  db_free(db);
  return rc;
}

bpool_t *db_pool(db_t *db)
{
  return db->db_bp;
}

void db_get_stats(db_t *db, db_stats_t *out)
{
  wal_stats_t ws;
  wal_get_stats(db->db_wal, &ws);
  memset(out, 0, sizeof *out);
  out->ds_commits = atomic_load(&db->db_commits);
  out->ds_log_writes = ws.ws_writes;
  out->ds_log_bytes = ws.ws_bytes;
  out->ds_log_streamed = ws.ws_streamed;
  out->ds_checkpoints = atomic_load(&db->db_checkpoints);
  out->ds_replayed = db->db_replayed;
  txn_snap_stats(db, out);
}
