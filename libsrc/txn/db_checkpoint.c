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
 * The timer's checkpoints give up on step 1 after DB_CKPT_TRY_MS (the gate
 * reopens) and retry later with a growing delay, so clients idle inside a
 * transaction do not stall the others.
 * A failure after step 2 may leave the image and the log disagreeing about
 * the generation; then the log refuses commits until the database is
 * reopened (which recovers correctly from either image).
 */
#include "txn/txn_int.h"

/* The timer's checkpoint waits this long for running transactions; when
 * they did not end it retries after DB_CKPT_RETRY_US, doubling the delay
 * at each further failure (up to the interval), so a client idle inside a
 * transaction costs the others a 50 ms pause now and then, not a stall. */
#define DB_CKPT_TRY_MS 50
#define DB_CKPT_RETRY_US 1000000

int db_checkpoint_locked_out(db_t *db, err_t *e)
{
  if (atomic_load(&db->db_broken))
    return err_set(e, SQLSTATE_INTERNAL, "checkpoint refused: the database must be reopened");
  /* Dead entries must not reach the image (after a restart nothing would
   * say they are dead): with no transaction active no snapshot needs them.
   * Before the buried trees go: the store names them. */
  if (txn_snap_purge(db, e) != CZ_OK)
    return err_prefix(e, "checkpoint");
  /* No transaction is active: nobody reads the trees whose DROP committed. */
  db_dir_free_buried(db);
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

/* wait_ms 0 = wait as long as it takes. Returns 1 when it gave up. */
static int db_checkpoint_wait(db_t *db, uint32_t wait_ms, err_t *e)
{
  mutex_lock(&db->db_mx);
  while (atomic_load(&db->db_ckpt_pending))
    cond_wait(&db->db_gate, &db->db_mx);
  atomic_store(&db->db_ckpt_pending, true);
  uint64_t deadline = time_now_ns() + (uint64_t)wait_ms * 1000000;
  while (atomic_load(&db->db_n_active) > 0) {
    if (wait_ms == 0) {
      cond_wait(&db->db_gate, &db->db_mx);
      continue;
    }
    uint64_t now = time_now_ns();
    if (now >= deadline) {
      /* Transactions stay open (clients idle in BEGIN): let the waiting
       * ones in and try again later rather than stall everybody. */
      atomic_store(&db->db_ckpt_pending, false);
      cond_broadcast(&db->db_gate);
      mutex_unlock(&db->db_mx);
      return 1;
    }
    cond_timedwait(&db->db_gate, &db->db_mx, (deadline - now) / 1000 + 1);
  }
  mutex_unlock(&db->db_mx);

  int rc = db_checkpoint_locked_out(db, e);

  mutex_lock(&db->db_mx);
  /* Still no transaction active: the hook sees committed state only. */
  if (rc == CZ_OK && db->db_ckpt_fn)
    db->db_ckpt_fn(db->db_ckpt_ctx);
  atomic_store(&db->db_ckpt_pending, false);
  cond_broadcast(&db->db_gate);
  mutex_unlock(&db->db_mx);
  return rc;
}

void db_on_checkpoint(db_t *db, void (*fn)(void *ctx), void *ctx)
{
  mutex_lock(&db->db_mx);
  db->db_ckpt_fn = fn;
  db->db_ckpt_ctx = ctx;
  mutex_unlock(&db->db_mx);
}

int db_checkpoint(db_t *db, err_t *e)
{
  return db_checkpoint_wait(db, 0, e);
}

int db_checkpoint_try(db_t *db, uint32_t wait_ms, err_t *e)
{
  return db_checkpoint_wait(db, wait_ms ? wait_ms : 1, e);
}

static void *db_timer_main(void *arg)
{
  db_t *db = arg;
  thread_set_name("cz-checkpoint");
  uint64_t interval_us = (uint64_t)db->db_cfg.dc_checkpoint_interval_s * 1000000;
  uint64_t wait_us = interval_us, retry_us = DB_CKPT_RETRY_US;
  mutex_lock(&db->db_mx);
  while (!db->db_closing) {
    if (cond_timedwait(&db->db_timer_cond, &db->db_mx, wait_us) || db->db_closing)
      continue;
    mutex_unlock(&db->db_mx);
    err_t e;
    err_clear(&e);
    int rc = db_checkpoint_try(db, DB_CKPT_TRY_MS, &e);
    if (rc == CZ_ERR)
      log_error("periodic checkpoint: %s", e.er_msg);
    /* Gave up on open transactions: retry sooner than a whole interval. */
    if (rc == 1) {
      wait_us = CZ_MIN(interval_us, retry_us);
      retry_us = CZ_MIN(retry_us * 2, interval_us);
    } else {
      wait_us = interval_us;
      retry_us = DB_CKPT_RETRY_US;
    }
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
