/* bp_writer.c — dirty pages: marking, writing (victims, the background
 * writer, helpers, bp_flush_all).
 *
 * Design notes: a page is written from a copy taken under its shared
 * latch, never from the frame itself (storage stamps the checksum into the
 * buffer it writes, and readers may be looking at the frame). The dirty
 * word carries a generation bumped by every bp_set_dirty, so the writer
 * clears "dirty" with one CAS that fails when the page changed after the
 * copy. BF_WRITING makes one thread at a time the writer of a frame: a
 * frame that is dirty and being written cannot be evicted, and
 * bp_free_page waits for the write to end before freeing the page in
 * storage. Writes go in ascending page order, BP_WRITE_BATCH pages per
 * st_write_pages call, which coalesces contiguous pages into one pwritev.
 */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "buffer/buffer_int.h"

bool bp_mark_dirty(bpool_t *bp, buf_t *b)
{
  uint64_t d = atomic_load(&b->bf_dirty);

  while (!atomic_compare_exchange_weak(&b->bf_dirty, &d, (d + 2) | BP_DIRTY_BIT))
    ;
  if (d & BP_DIRTY_BIT)
    return false;
  atomic_fetch_add(&bp->bp_n_dirty, 1);
  return true;
}

void bp_forget_dirty(bpool_t *bp, buf_t *b)
{
  uint64_t d = atomic_load(&b->bf_dirty);

  while (!atomic_compare_exchange_weak(&b->bf_dirty, &d, (d + 2) & ~BP_DIRTY_BIT))
    ;
  if (d & BP_DIRTY_BIT)
    atomic_fetch_sub(&bp->bp_n_dirty, 1);
}

/* After a successful write of the copy taken at dirty word d. */
static void bp_end_write(bpool_t *bp, buf_t *b, uint64_t d, bool written)
{
  if (written && atomic_compare_exchange_strong(&b->bf_dirty, &d, d & ~BP_DIRTY_BIT))
    atomic_fetch_sub(&bp->bp_n_dirty, 1);
  atomic_fetch_and(&b->bf_flags, ~(uint32_t)BF_WRITING);
}

/* Becomes b's writer and copies the page into dst. b is pinned by the
 * caller. Returns false (nothing to do, or busy) without side effects. */
static bool bp_copy_for_write(buf_t *b, bool wait_latch, uint8_t *dst, uint64_t *d_out,
                              int *in_flight)
{
  uint64_t d;

  if (!(atomic_load(&b->bf_dirty) & BP_DIRTY_BIT))
    return false;
  if (atomic_fetch_or(&b->bf_flags, BF_WRITING) & BF_WRITING) {
    if (in_flight)
      (*in_flight)++;
    return false;
  }
  if (wait_latch)
    rwl_lock_shared(&b->bf_latch);
  else if (!rwl_try_shared(&b->bf_latch)) {
    atomic_fetch_and(&b->bf_flags, ~(uint32_t)BF_WRITING);
    return false;
  }
  d = atomic_load(&b->bf_dirty);
  if (d & BP_DIRTY_BIT)
    memcpy(dst, b->bf_data, ST_PAGE_SIZE);
  rwl_unlock_shared(&b->bf_latch);
  if (!(d & BP_DIRTY_BIT)) {
    atomic_fetch_and(&b->bf_flags, ~(uint32_t)BF_WRITING);
    return false;
  }
  *d_out = d;
  return true;
}

int bp_write_frame(bpool_t *bp, buf_t *b, err_t *e)
{
  alignas(4096) uint8_t copy[ST_PAGE_SIZE];
  pg_no_t pg = atomic_load(&b->bf_page);
  void *bufs[1] = {copy};
  uint64_t d;
  int rc;

  if (!bp_copy_for_write(b, false, copy, &d, NULL))
    return 0;
  rc = st_write_pages(bp->bp_st, &pg, bufs, 1, e);
  bp_end_write(bp, b, d, rc == CZ_OK);
  if (rc != CZ_OK)
    return CZ_ERR;
  atomic_fetch_add(&bp->bp_pages_written, 1);
  return 1;
}

typedef struct bp_dirty_ent_s {
  pg_no_t de_page;
  int32_t de_frame;
} bp_dirty_ent_t;

static int bp_dirty_ent_cmp(const void *a, const void *b)
{
  pg_no_t x = ((const bp_dirty_ent_t *)a)->de_page;
  pg_no_t y = ((const bp_dirty_ent_t *)b)->de_page;
  return (x > y) - (x < y);
}

/* One batch of copies being written. */
typedef struct bp_batch_s {
  int wb_n;
  pg_no_t wb_pages[BP_WRITE_BATCH];
  void *wb_bufs[BP_WRITE_BATCH];
  buf_t *wb_frames[BP_WRITE_BATCH];
  uint64_t wb_dirty[BP_WRITE_BATCH];
} bp_batch_t;

static int bp_batch_write(bpool_t *bp, bp_batch_t *wb, err_t *e)
{
  int rc = CZ_OK;

  if (wb->wb_n == 0)
    return CZ_OK;
  rc = st_write_pages(bp->bp_st, wb->wb_pages, wb->wb_bufs, wb->wb_n, e);
  for (int i = 0; i < wb->wb_n; i++)
    bp_end_write(bp, wb->wb_frames[i], wb->wb_dirty[i], rc == CZ_OK);
  if (rc == CZ_OK)
    atomic_fetch_add(&bp->bp_pages_written, (uint64_t)wb->wb_n);
  wb->wb_n = 0;
  return rc;
}

/* Snapshot of the dirty frames, sorted by page. Returns the count. */
static int bp_collect_dirty(bpool_t *bp, bp_dirty_ent_t *ents)
{
  int n = 0;

  for (int i = 0; i < bp->bp_n; i++) {
    buf_t *b = &bp->bp_frames[i];
    pg_no_t pg = atomic_load_explicit(&b->bf_page, memory_order_relaxed);
    if (pg == PG_NONE || !(atomic_load_explicit(&b->bf_dirty, memory_order_relaxed) & BP_DIRTY_BIT))
      continue;
    ents[n].de_page = pg;
    ents[n].de_frame = i;
    n++;
  }
  qsort(ents, (size_t)n, sizeof(ents[0]), bp_dirty_ent_cmp);
  return n;
}

int bp_write_dirty(bpool_t *bp, int target, bool wait_latch, int *in_flight, err_t *e)
{
  bp_dirty_ent_t *ents = malloc((size_t)bp->bp_n * sizeof(*ents));
  uint8_t *copies = aligned_alloc(4096, (size_t)BP_WRITE_BATCH * ST_PAGE_SIZE);
  bp_batch_t *wb = malloc(sizeof(*wb));
  int rc = CZ_OK;

  if (!ents || !copies || !wb) {
    rc = err_set(e, SQLSTATE_OUT_OF_MEMORY, "buffer pool: write batch");
    goto out;
  }
  wb->wb_n = 0;
  int n = bp_collect_dirty(bp, ents);
  for (int i = 0; i < n && rc == CZ_OK; i++) {
    buf_t *b = &bp->bp_frames[ents[i].de_frame];
    pg_no_t pg;
    int k = wb->wb_n;

    if (atomic_load(&bp->bp_n_dirty) <= target)
      break;
    if (!bp_pin_frame(bp, b, &pg))
      continue;
    uint8_t *dst = copies + (size_t)k * ST_PAGE_SIZE;
    if (pg == ents[i].de_page &&
        bp_copy_for_write(b, wait_latch, dst, &wb->wb_dirty[k], in_flight)) {
      wb->wb_pages[k] = pg;
      wb->wb_bufs[k] = dst;
      wb->wb_frames[k] = b;
      wb->wb_n++;
    }
    bp_unpin(b);
    if (wb->wb_n == BP_WRITE_BATCH)
      rc = bp_batch_write(bp, wb, e);
  }
  if (rc == CZ_OK)
    rc = bp_batch_write(bp, wb, e);
out:
  free(wb);
  free(copies);
  free(ents);
  return rc;
}

int bp_flush_all(bpool_t *bp, err_t *e)
{
  int rc = CZ_OK;

  mutex_lock(&bp->bp_flush_mutex);
  for (int pass = 0; atomic_load(&bp->bp_n_dirty) > 0; pass++) {
    int in_flight = 0;
    if (pass == 1000) {
      rc = err_set(e, SQLSTATE_OBJECT_IN_USE,
                   "bp_flush_all: pages keep being changed during the flush");
      break;
    }
    rc = bp_write_dirty(bp, 0, true, &in_flight, e);
    if (rc != CZ_OK)
      break;
    /* Frames another thread is writing (a victim) are done in a moment. */
    if (in_flight)
      time_sleep_us(200);
  }
  mutex_unlock(&bp->bp_flush_mutex);
  return rc;
}

static void bp_writer_kick(bpool_t *bp)
{
  mutex_lock(&bp->bp_wr_mutex);
  bp->bp_wr_kick = true;
  cond_signal(&bp->bp_wr_cond);
  mutex_unlock(&bp->bp_wr_mutex);
}

void bp_dirty_throttle(bpool_t *bp)
{
  int n = atomic_load(&bp->bp_n_dirty);
  int max = bp->bp_cfg.bc_max_dirty;

  if (bp->bp_wr_running && n >= max / 2 && !atomic_load(&bp->bp_wr_kick))
    bp_writer_kick(bp);
  if (n >= max) {
    /* Help: the caller may hold latches, so only try-latches here. */
    err_t err;
    if (bp_write_dirty(bp, max / 2, false, NULL, &err) != CZ_OK)
      log_warn("buffer pool: writing dirty pages: %s", err.er_msg);
  }
}

static void *bp_writer_main(void *arg)
{
  bpool_t *bp = arg;
  int low = bp->bp_cfg.bc_max_dirty / 4;

  thread_set_name("bp-writer");
  for (;;) {
    mutex_lock(&bp->bp_wr_mutex);
    if (!bp->bp_wr_stop && !bp->bp_wr_kick)
      cond_timedwait(&bp->bp_wr_cond, &bp->bp_wr_mutex, BP_WRITER_PERIOD_US);
    bool stop = bp->bp_wr_stop;
    bp->bp_wr_kick = false;
    mutex_unlock(&bp->bp_wr_mutex);
    if (stop)
      break;
    if (atomic_load(&bp->bp_n_dirty) <= low)
      continue;
    err_t err;
    mutex_lock(&bp->bp_flush_mutex);
    if (bp_write_dirty(bp, 0, false, NULL, &err) != CZ_OK)
      log_error("buffer pool writer: %s", err.er_msg);
    mutex_unlock(&bp->bp_flush_mutex);
  }
  return NULL;
}

int bp_writer_start(bpool_t *bp, err_t *e)
{
  mutex_init(&bp->bp_wr_mutex);
  cond_init(&bp->bp_wr_cond);
  mutex_init(&bp->bp_flush_mutex);
  if (!bp->bp_cfg.bc_bg_writer)
    return CZ_OK;
  if (thread_start(&bp->bp_wr_thread, bp_writer_main, bp, e) != CZ_OK) {
    mutex_destroy(&bp->bp_flush_mutex);
    cond_destroy(&bp->bp_wr_cond);
    mutex_destroy(&bp->bp_wr_mutex);
    return CZ_ERR;
  }
  bp->bp_wr_running = true;
  return CZ_OK;
}

void bp_writer_stop(bpool_t *bp)
{
  if (bp->bp_wr_running) {
    mutex_lock(&bp->bp_wr_mutex);
    bp->bp_wr_stop = true;
    cond_signal(&bp->bp_wr_cond);
    mutex_unlock(&bp->bp_wr_mutex);
    thread_join(&bp->bp_wr_thread);
    bp->bp_wr_running = false;
  }
  mutex_destroy(&bp->bp_flush_mutex);
  cond_destroy(&bp->bp_wr_cond);
  mutex_destroy(&bp->bp_wr_mutex);
}
