/* bp_replace.c — choosing the frame to reuse: a clock with a probation
 * set and a protected set (a 2Q-style policy on one clock hand).
 *
 * Design notes: a page enters on probation. A later fix that is not
 * BP_SCAN (and not the first use of a read-ahead page) promotes it to the
 * protected set. The hand takes unpinned probation frames at once, so a
 * scan churns only probation frames; because the new page goes into the
 * frame the hand has just passed, probation behaves as a FIFO. Protected
 * frames are passed over while the protected set is within
 * bp_protected_max (75% of the pool); beyond that, or after a whole sweep
 * found no probation victim, the hand runs the classic clock over them:
 * a set reference bit is cleared, a clear one demotes the frame to
 * probation (it is evicted on a later pass unless used again first).
 * As in 2Q, a page evicted from probation is remembered for a while (a
 * lossy direct-mapped "ghost" table of page numbers, one slot per frame):
 * a non-scan miss on a remembered page is a re-use, and the page enters
 * protected directly. Without it a loop a little larger than the
 * probation share would never be promoted.
 * See README.md, "Replacement", for the sources (2Q, CLOCK, PostgreSQL).
 */
#include "buffer/buffer_int.h"

#define BP_VICTIM_WAIT_US 1000
#define BP_VICTIM_MAX_WAITS 3000 /* about 3 s with every frame pinned */

static inline _Atomic pg_no_t *bp_ghost_slot(bpool_t *bp, uint64_t hash)
{
  return &bp->bp_ghosts[(hash >> 16) % (uint64_t)bp->bp_n];
}

bool bp_ghost_take(bpool_t *bp, pg_no_t pg, uint64_t hash)
{
  _Atomic pg_no_t *g = bp_ghost_slot(bp, hash);
  if (atomic_load_explicit(g, memory_order_relaxed) != pg)
    return false;
  atomic_store_explicit(g, PG_NONE, memory_order_relaxed);
  return true;
}

bool bp_try_claim(bpool_t *bp, buf_t *b, bool remember)
{
  pg_no_t pg = atomic_load(&b->bf_page);
  uint32_t zero = 0;

  if (pg == PG_NONE) {
    if (!atomic_compare_exchange_strong(&b->bf_pins, &zero, 1))
      return false;
    /* Another thread may have claimed and filled it between our load and
     * the CAS; then it is not free any more. */
    if (atomic_load(&b->bf_page) != PG_NONE) {
      bp_unpin(b);
      return false;
    }
    return true;
  }

  uint64_t hash;
  bp_shard_t *sh = bp_shard_of(bp, pg, &hash);
  bool ok = false;
  mutex_lock(&sh->sh_mutex);
  if (bp_table_find(bp, sh, hash, pg) == b &&
      atomic_compare_exchange_strong(&b->bf_pins, &zero, 1)) {
    if ((atomic_load(&b->bf_flags) & (BF_IO | BF_WRITING)) == 0 &&
        (atomic_load(&b->bf_dirty) & BP_DIRTY_BIT) == 0) {
      bool used = !(atomic_load(&b->bf_flags) & BF_RA_UNUSED);
      uint8_t q = atomic_exchange(&b->bf_queue, BQ_FREE);
      bp_table_remove(bp, sh, hash, b);
      atomic_store(&b->bf_page, PG_NONE);
      atomic_store(&b->bf_flags, 0);
      atomic_store(&b->bf_ref, 0);
      if (q == BQ_PROTECTED)
        atomic_fetch_sub(&bp->bp_n_protected, 1);
      else if (remember && used)
        atomic_store_explicit(bp_ghost_slot(bp, hash), pg, memory_order_relaxed);
      ok = true;
    } else {
      bp_unpin(b);
    }
  }
  mutex_unlock(&sh->sh_mutex);
  return ok;
}

void bp_release_claimed(bpool_t *bp, buf_t *b)
{
  bp_unpin(b);
}

/* Writes a dirty frame the hand met so that it can be claimed. Returns
 * CZ_ERR only on a write error. */
static int bp_clean_victim(bpool_t *bp, buf_t *b, err_t *e)
{
  pg_no_t pg;
  int rc;

  if (!bp_pin_frame(bp, b, &pg))
    return CZ_OK;
  rc = bp_write_frame(bp, b, e);
  bp_unpin(b);
  if (rc > 0)
    atomic_fetch_add(&bp->bp_dirty_evictions, 1);
  return rc < 0 ? CZ_ERR : CZ_OK;
}

/* The hand meets a protected frame: the clock over the protected set runs
 * only when that set is over its share or no probation frame was free in
 * a whole turn. */
static void bp_pass_protected(bpool_t *bp, buf_t *b, int step)
{
  uint8_t q = BQ_PROTECTED;
  bool demote = atomic_load(&bp->bp_n_protected) > bp->bp_protected_max ||
                step >= bp->bp_n;

  if (!demote)
    return;
  if (atomic_load(&b->bf_ref) && atomic_exchange(&b->bf_ref, 0))
    return;
  if (atomic_compare_exchange_strong(&b->bf_queue, &q, BQ_PROBATION))
    atomic_fetch_sub(&bp->bp_n_protected, 1);
}

/* One sweep of up to three turns of the hand. NULL with *failed false when
 * every frame stayed pinned or busy. */
static buf_t *bp_sweep(bpool_t *bp, bool *failed, err_t *e)
{
  int n = bp->bp_n;

  for (int step = 0; step < 3 * n; step++) {
    uint64_t pos = atomic_fetch_add_explicit(&bp->bp_hand, 1, memory_order_relaxed);
    buf_t *b = &bp->bp_frames[pos % (uint64_t)n];

    if (atomic_load_explicit(&b->bf_pins, memory_order_relaxed) != 0)
      continue;
    if (atomic_load(&b->bf_queue) == BQ_PROTECTED) {
      bp_pass_protected(bp, b, step);
      continue;
    }
    if (atomic_load(&b->bf_dirty) & BP_DIRTY_BIT) {
      if (bp_clean_victim(bp, b, e) != CZ_OK) {
        *failed = true;
        return NULL;
      }
    }
    bool had_page = atomic_load(&b->bf_page) != PG_NONE;
    if (bp_try_claim(bp, b, true)) {
      if (had_page)
        atomic_fetch_add(&bp->bp_evictions, 1);
      return b;
    }
  }
  return NULL;
}

buf_t *bp_get_victim(bpool_t *bp, bool wait, err_t *e)
{
  for (int round = 0; round <= BP_VICTIM_MAX_WAITS; round++) {
    bool failed = false;
    buf_t *b = bp_sweep(bp, &failed, e);
    if (b)
      return b;
    if (failed)
      return NULL; /* e says why */
    if (!wait)
      return NULL; /* read-ahead: no error, it just stops */
    time_sleep_us(BP_VICTIM_WAIT_US);
  }
  err_set(e, SQLSTATE_OUT_OF_MEMORY,
          "buffer pool: all %d buffers stay pinned (NumberOfBuffers too small?)", bp->bp_n);
  return NULL;
}

void bp_touch(bpool_t *bp, buf_t *b, int flags)
{
  uint32_t f = atomic_load_explicit(&b->bf_flags, memory_order_relaxed);

  /* The first fix of a read-ahead page is the use it was read for, not a
   * re-use: it stays on probation. */
  if (CZ_UNLIKELY(f & BF_RA_UNUSED)) {
    if (atomic_fetch_and(&b->bf_flags, ~(uint32_t)BF_RA_UNUSED) & BF_RA_UNUSED)
      atomic_fetch_add(&bp->bp_ra_pages_used, 1);
    return;
  }
  if (flags & BP_SCAN)
    return;
  uint8_t q = atomic_load_explicit(&b->bf_queue, memory_order_relaxed);
  if (q == BQ_PROTECTED) {
    /* Read before writing: a hot page's cache line stays shared. */
    if (!atomic_load_explicit(&b->bf_ref, memory_order_relaxed))
      atomic_store_explicit(&b->bf_ref, 1, memory_order_relaxed);
  } else if (q == BQ_PROBATION) {
    if (atomic_compare_exchange_strong(&b->bf_queue, &q, BQ_PROTECTED))
      atomic_fetch_add(&bp->bp_n_protected, 1);
  }
}

void bp_drop_clean(bpool_t *bp)
{
  for (int i = 0; i < bp->bp_n; i++) {
    buf_t *b = &bp->bp_frames[i];
    if (atomic_load(&b->bf_page) == PG_NONE || atomic_load(&b->bf_pins) != 0)
      continue;
    if (bp_try_claim(bp, b, false))
      bp_release_claimed(bp, b);
  }
}
