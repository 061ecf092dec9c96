/* db_checkpoint — the checkpoint and its timer thread.
 *
 * Design notes (txn/README.md, "Checkpoint", has the crash windows):
 * 1. Close the gate: set db_ckpt_pending (txn_begin waits) and wait until
 *    no transaction is active. One checkpoint at a time: a second caller
 *    waits for the running one, then does its own (a bulk commit needs a
 *    checkpoint that started after its changes).
 * 2. bp_flush_all: every dirty page goes to storage.
 * 3. st_checkpoint with a user root naming log generation G+1: the image
 *    now holds every committed transaction, so log G is stale.
 * 4. wal_restart(G+1): the log is empty under the new generation.
 * 5. Open the gate.
 * A failure after step 2 may leave the image and the log disagreeing about
 * the generation; then the log refuses commits until the database is
 * reopened (which recovers correctly from either image).
 */
#include "txn/txn_int.h"

int db_checkpoint_locked_out(db_t *db, err_t *e)
{
  if (atomic_load(&db->db_broken))
    return err_set(e, SQLSTATE_INTERNAL, "checkpoint refused: the database must be reopened");
  if (bp_flush_all(db->db_bp, e) != CZ_OK)
    return err_prefix(e, "checkpoint");
  db_root_t r = { .dr_generation = db->db_generation + 1,
                  .dr_next_tree_id = atomic_load(&db->db_next_tree_id),
                  .dr_dir_root = bt_root(db->db_dir) };
  uint8_t root[DB_ROOT_SIZE];
  db_root_encode(&r, root);
  if (st_checkpoint(db->db_st, root, sizeof root, e) != CZ_OK) {
    wal_set_failed(db->db_wal, "storage checkpoint failed");
    return err_prefix(e, "checkpoint");
  }
  if (wal_restart(db->db_wal, r.dr_generation, e) != CZ_OK)
    return err_prefix(e, "checkpoint");
  db->db_generation = r.dr_generation;
  atomic_fetch_add(&db->db_checkpoints, 1);
  return CZ_OK;
}

int db_checkpoint(db_t *db, err_t *e)
{
  mutex_lock(&db->db_mx);
  while (db->db_ckpt_pending)
    cond_wait(&db->db_gate, &db->db_mx);
  db->db_ckpt_pending = true;
  while (db->db_n_active > 0)
    cond_wait(&db->db_gate, &db->db_mx);
  mutex_unlock(&db->db_mx);

  int rc = db_checkpoint_locked_out(db, e);

  mutex_lock(&db->db_mx);
  db->db_ckpt_pending = false;
  cond_broadcast(&db->db_gate);
  mutex_unlock(&db->db_mx);
  return rc;
}

static void *db_timer_main(void *arg)
{
  db_t *db = arg;
  thread_set_name("cz-checkpoint");
  uint64_t interval_us = (uint64_t)db->db_cfg.dc_checkpoint_interval_s * 1000000;
  mutex_lock(&db->db_mx);
  while (!db->db_closing) {
    if (cond_timedwait(&db->db_timer_cond, &db->db_mx, interval_us) || db->db_closing)
      continue;
    mutex_unlock(&db->db_mx);
    err_t e;
    err_clear(&e);
    if (db_checkpoint(db, &e) != CZ_OK)
      log_error("periodic checkpoint: %s", e.er_msg);
    mutex_lock(&db->db_mx);
  }
  mutex_unlock(&db->db_mx);
  return NULL;
}

int db_timer_start(db_t *db, err_t *e)
{
  if (db->db_cfg.dc_checkpoint_interval_s <= 0)
    return CZ_OK;
  if (thread_start(&db->db_timer, db_timer_main, db, e) != CZ_OK)
    return CZ_ERR;
  db->db_timer_running = true;
  return CZ_OK;
}

void db_timer_stop(db_t *db)
{
  mutex_lock(&db->db_mx);
  db->db_closing = true;
  cond_broadcast(&db->db_timer_cond);
  mutex_unlock(&db->db_mx);
  if (db->db_timer_running)
    thread_join(&db->db_timer);
  db->db_timer_running = false;
}
