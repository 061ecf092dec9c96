/* cat_build_gate — row writers of a table against an index being built on
 * it (CREATE INDEX).
 *
 * Design notes:
 * - A writer maintains the indexes of the catalog snapshot its statement
 *   took. CREATE INDEX fills the new index from the rows its transaction
 *   sees, and publishes the index only at its commit. A row another
 *   transaction had not committed when the build read past it, or wrote
 *   with a snapshot that lacks the index, would never reach the index (as
 *   PostgreSQL's ShareLock on the table prevents). So:
 *   1. The builder sets rt_builder, then waits until rt_writing is 0 and
 *      no other transaction holds a lock on a key of the primary tree (an
 *      uncommitted change), and only then reads the rows.
 *   2. A writer increments rt_writing, then reads rt_builder: when another
 *      transaction builds, the write fails with 40001 (a wait could
 *      deadlock with the builder waiting for this transaction's rows).
 *      Both are sequentially consistent atomics, so either the writer sees
 *      the builder or the builder sees the write in flight and waits for
 *      it (and then for its transaction through the lock count).
 *   3. At the builder's commit (txn_on_end) rt_index_version becomes the
 *      version of the snapshot holding the index, before rt_builder is
 *      cleared; a writer whose table comes from an older snapshot fails
 *      with 40001, as the next statement takes the new snapshot.
 * - The builder's own writes to the table in the same transaction pass
 *   the gate and are seen by its build; its own locks are not waited for.
 * - Nothing here is durable: after a restart no build is running and
 *   every snapshot is new.
 */
#include "catalog/cat_int.h"

int cat_table_write_begin(const cat_table_t *t, const txn_t *tx, err_t *e)
{
  cat_table_rt_t *rt = t->ct_rt;
  atomic_fetch_add(&rt->rt_writing, 1);
  const txn_t *b = atomic_load(&rt->rt_builder);
  if (b && b != tx) {
    atomic_fetch_sub(&rt->rt_writing, 1);
    return err_set(e, SQLSTATE_SERIALIZATION,
                   "could not serialize access to table \"%s\": an index is being built on it",
                   t->ct_name);
  }
  if (t->ct_version < atomic_load(&rt->rt_index_version)) {
    atomic_fetch_sub(&rt->rt_writing, 1);
    return err_set(e, SQLSTATE_SERIALIZATION,
                   "could not serialize access to table \"%s\": an index was created on it "
                   "after the statement began",
                   t->ct_name);
  }
  return CZ_OK;
}

void cat_table_write_end(const cat_table_t *t)
{
  atomic_fetch_sub(&t->ct_rt->rt_writing, 1);
}

static void cat_build_end(void *ctx, txn_t *tx, bool committed)
{
  cat_table_rt_t *rt = ctx;
  if (atomic_load(&rt->rt_builder) != tx)
    return; /* a second index on the table in the same transaction: done */
  if (committed) {
    uint64_t v = rt->rt_build_version;
    if (v > atomic_load(&rt->rt_index_version))
      atomic_store(&rt->rt_index_version, v);
  }
  atomic_store(&rt->rt_builder, NULL);
}

int cat_index_build_begin(txn_t *tx, const cat_table_t *t, uint64_t version, err_t *e)
{
  cat_table_rt_t *rt = t->ct_rt;
  /* DDL is serialised by the DDL lock: no other builder can be here. */
  if (atomic_load(&rt->rt_builder) != tx) {
    rt->rt_build_version = version;
    atomic_store(&rt->rt_builder, tx);
    txn_on_end(tx, cat_build_end, rt);
  } else if (version > rt->rt_build_version) {
    rt->rt_build_version = version;
  }
  const db_tree_t *dt = t->ct_indexes[0]->ci_dtree;
  uint64_t deadline = time_now_ns() + (uint64_t)CAT_BUILD_WAIT_MS * 1000000u;
  uint64_t pause_us = 50;
  for (;;) {
    if (atomic_load(&rt->rt_writing) == 0 &&
        db_tree_nlocked(dt) == txn_tree_nlocked_own(tx, dt))
      return CZ_OK;
    if (txn_cancel_requested(tx))
      return err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
    if (time_now_ns() > deadline)
      return err_set(e, SQLSTATE_LOCK_NOT_AVAILABLE,
                     "could not build an index on table \"%s\": other transactions kept "
                     "uncommitted changes in it for %d s",
                     t->ct_name, CAT_BUILD_WAIT_MS / 1000);
    time_sleep_us(pause_us);
    if (pause_us < 10000)
      pause_us *= 2;
  }
}
