/* bp_readahead.c — extent read-ahead: the miss history that triggers it,
 * reading an extent with one request, and the prefetch worker.
 *
 * Design notes: after Virtuoso's extent read history. A small direct-mapped
 * table remembers, per extent, how many demand misses fell into it since
 * the first one of the current window. The miss that reaches
 * bc_ra_threshold within bc_ra_window_ms reads the allocated pages of the
 * extent that are not in the pool with ONE st_read_run call into a scratch
 * buffer. Before the read each such page gets a victim frame entered in the
 * page table marked IO (fixers of it wait, as for a demand read); after it,
 * each page storage verified (ok[i]) is copied into its frame, valid, on
 * probation and flagged BF_RA_UNUSED, and the others leave the table. The
 * read happens in the missing thread after its own page is read and before
 * it is latched, so the pages are there when its scan goes on. Read-ahead
 * never fails a query: a bad page is simply not installed (its demand read
 * reports it), a read error is dropped, and reserving frames stops when no
 * victim is free without waiting. One read-ahead fills at most a quarter of
 * the pool. bp_prefetch_extent hands the same work to one worker thread
 * and drops the request when the worker's queue is full.
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

/* Claims a frame for each allocated page of [first, end) that is not in
 * the pool and enters it in the page table marked IO, as a demand miss
 * does: while the run is read nobody else can hold, write or read these
 * pages. (Installing after the read instead would race with an eviction
 * that writes a newer version in between.) Returns how many; *lo and *hi
 * bound them. */
static int bp_ra_reserve(bpool_t *bp, pg_no_t first, pg_no_t end, buf_t **frames,
                         pg_no_t *lo, pg_no_t *hi)
{
  int limit = CZ_MAX(bp->bp_n / 4, 1);
  int n = 0;
  err_t err;

  for (pg_no_t p = CZ_MAX(first, 1); p < end && n < limit; p++) {
    uint64_t hash;
    bp_shard_t *sh = bp_shard_of(bp, p, &hash);
    if (!st_page_is_allocated(bp->bp_st, p) || bp_is_present(bp, p))
      continue;
    buf_t *v = bp_get_victim(bp, false, &err);
    if (!v)
      break; /* everything pinned: read what we have */
    if (!bp_begin_read(bp, sh, hash, p, v, false, 0)) {
      bp_release_claimed(bp, v);
      continue;
    }
    frames[p - first] = v;
    if (n++ == 0)
      *lo = p;
    *hi = p;
  }
  return n;
}

/* Storage's own pages (header, root records, allocation maps) share
 * extents with data pages but are never fixed through the pool: installing
 * them would only leave stale frames behind when storage reuses them. */
static bool bp_ra_is_data_page(const uint8_t *page)
{
  const pg_head_t *h = (const pg_head_t *)page;
  return h->ph_type != PG_T_FREE && h->ph_type != PG_T_HEADER &&
         h->ph_type != PG_T_ROOT_RECORD && h->ph_type != PG_T_META;
}

/* Reads the allocated pages of pg's extent that are not in the pool, with
 * one request from the first to the last of them. */
static int bp_ra_extent(bpool_t *bp, pg_no_t pg, err_t *e)
{
  pg_no_t first = pg_extent_first(pg);
  pg_no_t end = CZ_MIN(first + ST_EXTENT_PAGES, st_n_pages(bp->bp_st));
  buf_t *frames[ST_EXTENT_PAGES] = {NULL};
  pg_no_t lo = PG_NONE, hi = PG_NONE;
  uint64_t installed = 0;
  int rc = CZ_OK;

  if (bp_ra_reserve(bp, first, end, frames, &lo, &hi) == 0)
    return CZ_OK;
  int n = (int)(hi - lo + 1);
  uint8_t *bufs = aligned_alloc(4096, (size_t)n * ST_PAGE_SIZE);
  bool *ok = calloc((size_t)n, sizeof(bool));
  if (!bufs || !ok) {
    rc = err_set(e, SQLSTATE_OUT_OF_MEMORY, "read-ahead buffer");
  } else {
    atomic_fetch_add(&bp->bp_ra_requests, 1);
    rc = st_read_run(bp->bp_st, lo, n, bufs, ok, e);
  }
  for (pg_no_t p = lo; p <= hi; p++) {
    buf_t *v = frames[p - first];
    uint64_t hash;
    bp_shard_t *sh = bp_shard_of(bp, p, &hash);
    if (!v)
      continue;
    bool good = rc == CZ_OK && ok[p - lo] &&
                bp_ra_is_data_page(bufs + (size_t)(p - lo) * ST_PAGE_SIZE);
    if (good)
      memcpy(v->bf_data, bufs + (size_t)(p - lo) * ST_PAGE_SIZE, ST_PAGE_SIZE);
    /* a page not read leaves the table; a fixer waiting for it reads it
     * itself and reports its error */
    bp_end_read(bp, sh, hash, v, good ? BF_VALID | BF_RA_UNUSED : 0);
    bp_unpin(v);
    installed += good;
  }
  atomic_fetch_add(&bp->bp_ra_pages_read, installed);
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
  /* ReadAhead = 0 turns off the scans' hints as well as the trigger, so
   * the two settings can be compared. */
  if (!bp->bp_cfg.bc_read_ahead)
    return;
  /* A warm scan hints extents that are in the pool already: the worker
   * would look every page of them up (a shard mutex and a probe each)
   * to read nothing. Two probes here say whether it is worth it. */
  pg_no_t first = pg_extent_first(pg);
  pg_no_t end = CZ_MIN(first + ST_EXTENT_PAGES, st_n_pages(bp->bp_st));
  if (end > first && bp_is_present(bp, end - 1) && bp_is_present(bp, first + (end - first) / 2))
    return;
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

void bp_prefetch_memory(bpool_t *bp, pg_no_t pg)
{
  uint64_t hash;
  bp_shard_t *sh = bp_shard_of(bp, pg, &hash);
  mutex_lock(&sh->sh_mutex);
  buf_t *b = bp_table_find(bp, sh, hash, pg);
  /* the frame's memory stays the pool's whatever page it holds later */
  const uint8_t *d = b ? b->bf_data : NULL;
  mutex_unlock(&sh->sh_mutex);
  if (!d)
    return;
  for (int off = 0; off < ST_PAGE_SIZE; off += 64)
    __builtin_prefetch(d + off);
}
