/* bp_fix.c — fixing pages: lookup, pin, latch; reading a missing page into
 * a victim frame; new pages; dirty marking; freeing a page.
 *
 * Design notes: a hit is one shard mutex round trip (lookup, pin, count),
 * the replacement touch (usually a read of two bytes) and the latch. A miss
 * claims a victim first, then inserts it into the page table marked IO
 * while holding the shard mutex, so any later fixer of the same page finds
 * the frame and waits on the shard's condition instead of reading the page
 * a second time (README.md, rule 2). A failed read removes the frame from
 * the table again before waking the waiters; they retry and read (and fail)
 * on their own account.
 */
#include <string.h>

#include "buffer/buffer_int.h"

/* Under sh_mutex: pins b and waits out a read in progress. False (b not
 * pinned) when that read failed and the frame was given up. */
static bool bp_pin_found(bp_shard_t *sh, buf_t *b)
{
  atomic_fetch_add_explicit(&b->bf_pins, 1, memory_order_acquire);
  while (atomic_load(&b->bf_flags) & BF_IO)
    cond_wait(&sh->sh_io_done, &sh->sh_mutex);
  if (atomic_load(&b->bf_flags) & BF_VALID)
    return true;
  bp_unpin(b);
  return false;
}

bool bp_begin_read(bpool_t *bp, bp_shard_t *sh, uint64_t hash, pg_no_t pg, buf_t *v,
                   bool demand, int flags)
{
  mutex_lock(&sh->sh_mutex);
  if (bp_table_find(bp, sh, hash, pg)) {
    mutex_unlock(&sh->sh_mutex);
    return false;
  }
  atomic_store(&v->bf_page, pg);
  atomic_store(&v->bf_flags, BF_IO);
  if (demand && !(flags & BP_SCAN) && bp_ghost_take(bp, pg, hash)) {
    atomic_store(&v->bf_queue, BQ_PROTECTED);
    atomic_fetch_add(&bp->bp_n_protected, 1);
  } else {
    atomic_store(&v->bf_queue, BQ_PROBATION);
  }
  bp_table_insert(bp, sh, hash, v);
  if (demand)
    sh->sh_misses++;
  mutex_unlock(&sh->sh_mutex);
  return true;
}

void bp_end_read(bpool_t *bp, bp_shard_t *sh, uint64_t hash, buf_t *v, uint32_t valid_flags)
{
  mutex_lock(&sh->sh_mutex);
  if (valid_flags) {
    atomic_store(&v->bf_flags, valid_flags);
  } else {
    bp_table_remove(bp, sh, hash, v);
    atomic_store(&v->bf_page, PG_NONE);
    atomic_store(&v->bf_flags, 0);
    if (atomic_exchange(&v->bf_queue, BQ_FREE) == BQ_PROTECTED)
      atomic_fetch_sub(&bp->bp_n_protected, 1);
  }
  cond_broadcast(&sh->sh_io_done);
  mutex_unlock(&sh->sh_mutex);
}

/* The miss path. CZ_OK with *out pinned and valid, CZ_OK with *out NULL
 * when another thread brought the page in meanwhile (look again), CZ_ERR
 * on a read error. */
static int bp_load_page(bpool_t *bp, pg_no_t pg, int flags, bp_shard_t *sh, uint64_t hash,
                        buf_t **out, err_t *e)
{
  buf_t *v = bp_get_victim(bp, true, e);
  int rc;

  *out = NULL;
  if (!v)
    return CZ_ERR;
  if (!bp_begin_read(bp, sh, hash, pg, v, true, flags)) {
    bp_release_claimed(bp, v);
    return CZ_OK;
  }
  rc = st_read_page(bp->bp_st, pg, v->bf_data, e);
  bp_end_read(bp, sh, hash, v, rc == CZ_OK ? BF_VALID : 0);
  if (rc != CZ_OK) {
    bp_unpin(v);
    return CZ_ERR;
  }
  if (bp->bp_cfg.bc_read_ahead)
    bp_ra_note_miss(bp, pg);
  *out = v;
  return CZ_OK;
}

/* Pins pg, reading it when absent. */
static buf_t *bp_pin_page(bpool_t *bp, pg_no_t pg, int flags, err_t *e)
{
  uint64_t hash;
  bp_shard_t *sh = bp_shard_of(bp, pg, &hash);

  for (;;) {
    mutex_lock(&sh->sh_mutex);
    buf_t *b = bp_table_find(bp, sh, hash, pg);
    if (CZ_LIKELY(b != NULL)) {
      bool ok = bp_pin_found(sh, b);
      if (ok)
        sh->sh_hits++;
      mutex_unlock(&sh->sh_mutex);
      if (ok) {
        bp_touch(bp, b, flags);
        return b;
      }
      continue;
    }
    mutex_unlock(&sh->sh_mutex);
    if (bp_load_page(bp, pg, flags, sh, hash, &b, e) != CZ_OK)
      return NULL;
    if (b)
      return b;
  }
}

buf_t *bp_fix(bpool_t *bp, pg_no_t pg, bp_latch_t mode, int flags, err_t *e)
{
  if (CZ_UNLIKELY(pg == PG_NONE)) {
    err_set(e, SQLSTATE_INTERNAL, "bp_fix: page 0 is not a data page");
    return NULL;
  }
  for (;;) {
    buf_t *b = bp_pin_page(bp, pg, flags, e);
    if (!b)
      return NULL;
    if (flags & BP_NOWAIT) {
      bool got = mode == BP_EXCL ? rwl_try_excl(&b->bf_latch) : rwl_try_shared(&b->bf_latch);
      if (!got) {
        bp_unpin(b);
        err_clear(e);
        return NULL;
      }
    } else if (mode == BP_EXCL) {
      rwl_lock_excl(&b->bf_latch);
    } else {
      rwl_lock_shared(&b->bf_latch);
    }
    /* The holder of the exclusive latch we waited for may have freed the
     * page (bp_free_page); our pin kept the frame empty, so look again. */
    if (CZ_LIKELY(atomic_load(&b->bf_page) == pg))
      return b;
    bp_unfix(bp, b);
  }
}

buf_t *bp_fix_new(bpool_t *bp, uint64_t owner, pg_no_t near, err_t *e)
{
  pg_no_t pg;
  uint64_t hash;
  bp_shard_t *sh;
  buf_t *v;

  if (st_alloc_page(bp->bp_st, owner, near, &pg, e) != CZ_OK)
    return NULL;
  v = bp_get_victim(bp, true, e);
  if (!v) {
    st_free_page(bp->bp_st, pg);
    return NULL;
  }
  memset(v->bf_data, 0, ST_PAGE_SIZE);
  rwl_lock_excl(&v->bf_latch);
  sh = bp_shard_of(bp, pg, &hash);
  mutex_lock(&sh->sh_mutex);
  for (;;) {
    buf_t *old = bp_table_find(bp, sh, hash, pg);
    if (CZ_LIKELY(old == NULL))
      break;
    /* A frame for this page number already exists: a read-ahead that saw
     * the page allocated before we could enter it, or a frame of an earlier
     * life of the number (storage's own pages are freed without
     * bp_free_page). Its contents are meaningless for a new page: wait out
     * any read, then take the frame over instead of reading the page. */
    atomic_fetch_add_explicit(&old->bf_pins, 1, memory_order_acquire);
    while (atomic_load(&old->bf_flags) & BF_IO)
      cond_wait(&sh->sh_io_done, &sh->sh_mutex);
    if (!(atomic_load(&old->bf_flags) & BF_VALID)) {
      bp_unpin(old); /* the failed read dropped it from the table: look again */
      continue;
    }
    mutex_unlock(&sh->sh_mutex);
    rwl_unlock_excl(&v->bf_latch);
    bp_release_claimed(bp, v);
    rwl_lock_excl(&old->bf_latch);
    memset(old->bf_data, 0, ST_PAGE_SIZE);
    atomic_fetch_and(&old->bf_flags, ~(uint32_t)BF_RA_UNUSED);
    v = old;
    goto installed;
  }
  atomic_store(&v->bf_page, pg);
  atomic_store(&v->bf_flags, BF_VALID);
  atomic_store(&v->bf_queue, BQ_PROBATION);
  bp_table_insert(bp, sh, hash, v);
  mutex_unlock(&sh->sh_mutex);
installed:
  if (bp_mark_dirty(bp, v))
    bp_dirty_throttle(bp);
  return v;
}

void bp_unfix(bpool_t *bp, buf_t *b)
{
  /* Only the caller can hold the latch exclusively while it holds it. */
  if (rwl_is_excl(&b->bf_latch))
    rwl_unlock_excl(&b->bf_latch);
  else
    rwl_unlock_shared(&b->bf_latch);
  bp_unpin(b);
}

void bp_set_dirty(bpool_t *bp, buf_t *b)
{
  if (bp_mark_dirty(bp, b))
    bp_dirty_throttle(bp);
}

void bp_free_page(bpool_t *bp, buf_t *b)
{
  pg_no_t pg = atomic_load(&b->bf_page);
  uint64_t hash;
  bp_shard_t *sh = bp_shard_of(bp, pg, &hash);

  /* A writer may still be writing a copy taken before our latch; the page
   * must not be freed in storage under it. A writer that starts now cannot
   * get the shared latch and gives up. */
  while (atomic_load(&b->bf_flags) & BF_WRITING)
    time_sleep_us(50);
  bp_forget_dirty(bp, b);
  mutex_lock(&sh->sh_mutex);
  bp_table_remove(bp, sh, hash, b);
  atomic_store(&b->bf_page, PG_NONE);
  atomic_store(&b->bf_flags, 0);
  atomic_store(&b->bf_ref, 0);
  if (atomic_exchange(&b->bf_queue, BQ_FREE) == BQ_PROTECTED)
    atomic_fetch_sub(&bp->bp_n_protected, 1);
  mutex_unlock(&sh->sh_mutex);
  rwl_unlock_excl(&b->bf_latch);
  bp_unpin(b);
  st_free_page(bp->bp_st, pg);
}

uint8_t *bp_page(buf_t *b)
{
  return b->bf_data;
}

pg_no_t bp_page_no(const buf_t *b)
{
  return atomic_load(&((buf_t *)b)->bf_page);
}
