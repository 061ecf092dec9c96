/* bp_readahead.c — extent read-ahead: the miss history that triggers it,
 * reading an extent with one request, and the prefetch worker.
 *
 * Design notes: after Virtuoso's extent read history. A small direct-mapped
 * table remembers, per extent, how many demand misses fell into it since
 * the first one of the current window. The miss that reaches
 * bc_ra_threshold within bc_ra_window_ms reads the pages of the extent that
 * are not in the pool with ONE st_read_run call into a scratch buffer and
 * installs each page storage verified (ok[i]) into a victim frame on
 * probation, flagged BF_RA_UNUSED. That read happens in the missing thread,
 * before it latches its own page, so the pages are there when its scan
 * goes on. Read-ahead never fails a query: a bad page is simply not
 * installed (its later demand read reports it), a read error is dropped,
 * and installing stops when no victim is free without waiting. At most a
 * quarter of the pool is filled by one read-ahead so it cannot flush the
 * pool. bp_prefetch_extent hands the same work to one worker thread and
 * drops the request when the worker's queue is full.
 */
#include <stdlib.h>
#include <string.h>

#include "buffer/buffer_int.h"

#define BP_PREFETCH_QUEUE 16

typedef struct bp_prefetch_req_s {
  bpool_t *pr_bp;
  pg_no_t pr_page;
} bp_prefetch_req_t;

int bp_ra_start(bpool_t *bp, err_t *e)
{
  mutex_init(&bp->bp_ra_mutex);
  for (int i = 0; i < BP_RA_SLOTS; i++)
    bp->bp_ra_slots[i].rs_extent = UINT32_MAX;
  bp->bp_prefetch = wpool_create(1, BP_PREFETCH_QUEUE, "bp-prefetch", e);
  if (!bp->bp_prefetch) {
    mutex_destroy(&bp->bp_ra_mutex);
    return CZ_ERR;
  }
  return CZ_OK;
}

void bp_ra_stop(bpool_t *bp)
{
  wpool_destroy(bp->bp_prefetch); /* runs what is queued: the pool is still whole */
  bp->bp_prefetch = NULL;
  mutex_destroy(&bp->bp_ra_mutex);
}

static bool bp_is_present(bpool_t *bp, pg_no_t pg)
{
  uint64_t hash;
  bp_shard_t *sh = bp_shard_of(bp, pg, &hash);
  mutex_lock(&sh->sh_mutex);
  bool present = bp_table_find(bp, sh, hash, pg) != NULL;
  mutex_unlock(&sh->sh_mutex);
  return present;
}

/* Puts a page read ahead into a victim frame. -1: no victim free now (stop),
 * 0: the page is present already, 1: installed. */
static int bp_install(bpool_t *bp, pg_no_t pg, const uint8_t *data)
{
  uint64_t hash;
  bp_shard_t *sh = bp_shard_of(bp, pg, &hash);
  err_t err;
  buf_t *v = bp_get_victim(bp, false, &err);

  if (!v)
    return -1;
  memcpy(v->bf_data, data, ST_PAGE_SIZE);
  mutex_lock(&sh->sh_mutex);
  if (bp_table_find(bp, sh, hash, pg)) {
    mutex_unlock(&sh->sh_mutex);
    bp_release_claimed(bp, v);
    return 0;
  }
  atomic_store(&v->bf_page, pg);
  atomic_store(&v->bf_flags, BF_VALID | BF_RA_UNUSED);
  atomic_store(&v->bf_queue, BQ_PROBATION);
  bp_table_insert(bp, sh, hash, v);
  mutex_unlock(&sh->sh_mutex);
  bp_unpin(v);
  return 1;
}

/* Reads the allocated pages of pg's extent that are not in the pool, with
 * one request from the first to the last of them. */
static int bp_ra_extent(bpool_t *bp, pg_no_t pg, err_t *e)
{
  pg_no_t first = pg_extent_first(pg);
  pg_no_t end = CZ_MIN(first + ST_EXTENT_PAGES, st_n_pages(bp->bp_st));
  pg_no_t lo = PG_NONE, hi = PG_NONE;
  int limit = CZ_MAX(bp->bp_n / 4, 1);
  int installed = 0;

  for (pg_no_t p = CZ_MAX(first, 1); p < end; p++) {
    if (!st_page_is_allocated(bp->bp_st, p) || bp_is_present(bp, p))
      continue;
    if (lo == PG_NONE)
      lo = p;
    hi = p;
  }
  if (lo == PG_NONE)
    return CZ_OK;
  int n = (int)(hi - lo + 1);
  uint8_t *bufs = aligned_alloc(4096, (size_t)n * ST_PAGE_SIZE);
  bool *ok = calloc((size_t)n, sizeof(bool));
  int rc = CZ_OK;
  if (!bufs || !ok) {
    rc = err_set(e, SQLSTATE_OUT_OF_MEMORY, "read-ahead buffer");
    goto out;
  }
  atomic_fetch_add(&bp->bp_ra_requests, 1);
  rc = st_read_run(bp->bp_st, lo, n, bufs, ok, e);
  for (int i = 0; rc == CZ_OK && i < n && installed < limit; i++) {
    if (!ok[i])
      continue;
    int got = bp_install(bp, lo + (pg_no_t)i, bufs + (size_t)i * ST_PAGE_SIZE);
    if (got < 0)
      break;
    installed += got;
  }
  atomic_fetch_add(&bp->bp_ra_pages_read, (uint64_t)installed);
out:
  free(ok);
  free(bufs);
  return rc;
}

void bp_ra_note_miss(bpool_t *bp, pg_no_t pg)
{
  uint32_t ext = pg_extent_of(pg);
  bp_ra_slot_t *rs = &bp->bp_ra_slots[hash64_int(ext) % BP_RA_SLOTS];
  uint64_t now = time_now_ns() / 1000000;
  bool trigger;

  mutex_lock(&bp->bp_ra_mutex);
  if (rs->rs_extent != ext || now - rs->rs_first_ms > (uint64_t)bp->bp_cfg.bc_ra_window_ms) {
    rs->rs_extent = ext;
    rs->rs_count = 0;
    rs->rs_first_ms = now;
  }
  trigger = ++rs->rs_count == bp->bp_cfg.bc_ra_threshold;
  mutex_unlock(&bp->bp_ra_mutex);
  if (trigger) {
    err_t err;
    if (bp_ra_extent(bp, pg, &err) != CZ_OK)
      log_debug("read-ahead of extent %u dropped: %s", (unsigned)ext, err.er_msg);
  }
}

static void bp_prefetch_task(void *arg)
{
  bp_prefetch_req_t *req = arg;
  err_t err;

  if (bp_ra_extent(req->pr_bp, req->pr_page, &err) != CZ_OK)
    log_debug("prefetch of page %u dropped: %s", (unsigned)req->pr_page, err.er_msg);
  free(req);
}

void bp_prefetch_extent(bpool_t *bp, pg_no_t pg)
{
  bp_prefetch_req_t *req = malloc(sizeof(*req));

  if (!req)
    return;
  req->pr_bp = bp;
  req->pr_page = pg;
  if (!wpool_try_submit(bp->bp_prefetch, bp_prefetch_task, req))
    free(req); /* the worker is behind: a prefetch is only a hint */
}

int bp_read_extent(bpool_t *bp, pg_no_t pg, err_t *e)
{
  return bp_ra_extent(bp, pg, e);
}
