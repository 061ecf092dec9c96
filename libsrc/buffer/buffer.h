/* buffer — the buffer pool: NumberOfBuffers frames of 8 KB over storage, a
 * sharded page table, pins and page latches, scan-resistant replacement, a
 * background writer and extent read-ahead.
 *
 * Design notes (buffer/README.md has the numbered rules):
 * - bp_fix pins a page and takes its latch in the mode asked; bp_unfix
 *   releases both. A pinned frame is never evicted; a latch is only held
 *   together with a pin.
 * - Latch order: callers take page latches top-down in a tree and
 *   left-to-right among siblings; anything else must use BP_NOWAIT and back
 *   off (btree/README.md).
 * - Dirty pages may be written at any time (the background writer, an
 *   eviction): storage keeps the checkpoint image intact, so "steal" is safe.
 * - Replacement keeps a frequently used hot set against one-time scans: a
 *   page enters on probation and joins the protected set only when used
 *   again later; one pass of a scan churns only the probation frames.
 * - Read-ahead: when misses into one extent repeat within a short window,
 *   the rest of the extent is read with one request (st_read_run), and the
 *   pages enter on probation.
 */
#ifndef CZ_BUFFER_H
#define CZ_BUFFER_H

#include <stdbool.h>
#include <stdint.h>

#include "storage/storage.h"
#include "util/util.h"

typedef struct bpool_s bpool_t;
typedef struct buf_s buf_t; /* a frame; use the accessors below */

typedef enum bp_latch_e {
  BP_SHARED = 0,
  BP_EXCL = 1
} bp_latch_t;

/* bp_fix flags */
#define BP_NOWAIT 0x1 /* return NULL (no error) instead of waiting for the latch */
#define BP_SCAN 0x2   /* a sequential access: do not count it as a re-use for replacement */

typedef struct bp_config_s {
  int bc_n_buffers;      /* NumberOfBuffers */
  int bc_max_dirty;      /* MaxDirtyBuffers: the background writer keeps dirty frames below this */
  bool bc_read_ahead;    /* extent read-ahead on (default); off also makes bp_prefetch_extent a no-op */
  int bc_ra_threshold;   /* misses into one extent within the window that trigger read-ahead (default 2) */
  int bc_ra_window_ms;   /* the window (default 1000) */
  bool bc_bg_writer;     /* run the background writer thread (default true) */
} bp_config_t;

/* Defaults for every field; then [Parameters] NumberOfBuffers,
 * MaxDirtyBuffers, ReadAhead from ini when ini is not NULL. */
int bp_config_from_ini(const ini_t *ini, bp_config_t *cfg, err_t *e);
void bp_config_default(bp_config_t *cfg);

int bp_create(storage_t *st, const bp_config_t *cfg, bpool_t **out, err_t *e);
/* Stops the background writer and frees the pool. Does not write dirty
 * pages: call bp_flush_all first for a clean shutdown. */
void bp_destroy(bpool_t *bp);
storage_t *bp_storage(bpool_t *bp);

/* Pins page pg and latches it in mode; reads it from storage when absent.
 * NULL with e set on an I/O or checksum error; NULL with e clear only for
 * BP_NOWAIT when the latch was busy. */
buf_t *bp_fix(bpool_t *bp, pg_no_t pg, bp_latch_t mode, int flags, err_t *e);
/* Allocates a new page for owner (st_alloc_page) and returns it pinned,
 * latched exclusively, zeroed and dirty. */
buf_t *bp_fix_new(bpool_t *bp, uint64_t owner, pg_no_t near, err_t *e);
void bp_unfix(bpool_t *bp, buf_t *b);
/* Caller holds the exclusive latch and has changed the page. */
void bp_set_dirty(bpool_t *bp, buf_t *b);
/* Caller holds the exclusive latch and the only pin: drops the frame and
 * frees the page in storage. b is invalid afterwards. */
void bp_free_page(bpool_t *bp, buf_t *b);

uint8_t *bp_page(buf_t *b);      /* the 8 KB page */
pg_no_t bp_page_no(const buf_t *b);

/* Explicit read-ahead for scans: brings the extent holding pg into the pool
 * with one request, in the background worker when there is one, and
 * returns at once. Pages already present are left alone. */
void bp_prefetch_extent(bpool_t *bp, pg_no_t pg);
/* Synchronous variant, for tests and for scans that need the pages now. */
int bp_read_extent(bpool_t *bp, pg_no_t pg, err_t *e);
/* A scan about to need page pg: when it is in the pool, asks the CPU to
 * bring its bytes into cache now, so that the scan finds them there
 * instead of waiting on memory line by line. Only a hint: nothing is
 * pinned, and a frame reused meanwhile only wastes it. */
void bp_prefetch_memory(bpool_t *bp, pg_no_t pg);

/* Writes every dirty page (sorted, in contiguous runs) and waits. Callers
 * that need a consistent image (checkpoint) stop page changes first. */
int bp_flush_all(bpool_t *bp, err_t *e);

/* Drops every unpinned clean frame (tests and benchmarks: a cold cache). */
void bp_drop_clean(bpool_t *bp);

typedef struct bp_stats_s {
  uint64_t bs_hits;
  uint64_t bs_misses;           /* pages read one at a time on demand */
  uint64_t bs_ra_requests;      /* read-ahead requests issued */
  uint64_t bs_ra_pages_read;    /* pages brought in by read-ahead */
  uint64_t bs_ra_pages_used;    /* of those, pages fixed afterwards */
  uint64_t bs_pages_written;
  uint64_t bs_evictions;
  uint64_t bs_dirty_evictions;  /* a dirty victim had to be written first */
  int bs_n_buffers;
  int bs_n_dirty;
  int bs_n_used;
} bp_stats_t;

void bp_get_stats(bpool_t *bp, bp_stats_t *out);
void bp_reset_stats(bpool_t *bp);

#endif /* CZ_BUFFER_H */
