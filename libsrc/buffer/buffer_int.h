/* buffer_int.h — the buffer pool's private structures, shared by the bp_*.c
 * files of this module only.
 *
 * Design notes (README.md has the numbered invariants):
 * - A frame's identity (bf_page) changes only while the changer holds both
 *   the shard mutex of the page concerned and the frame's only pin, so a
 *   fixer that pins a frame under the shard mutex knows the frame keeps its
 *   page until it unpins.
 * - Pins grow only under the shard mutex (lookup) or by a CAS 0 -> 1 on a
 *   frame that is in no table (claiming a free frame); they shrink anywhere.
 * - bf_dirty packs a generation and the dirty bit into one atomic word so a
 *   writer can clear "dirty" only if nothing changed since its copy.
 */
#ifndef CZ_BUFFER_INT_H
#define CZ_BUFFER_INT_H

#include <stdalign.h>
#include <stdatomic.h>

#include "buffer/buffer.h"
#include "thread/thread.h"

/* bf_flags bits. VALID and IO change only under the shard mutex; the
 * others are atomic bit operations. */
#define BF_VALID 0x1     /* bf_data holds page bf_page */
#define BF_IO 0x2        /* being read: fixers wait on the shard's condition */
#define BF_WRITING 0x4   /* a copy is being written: one writer per frame */
#define BF_RA_UNUSED 0x8 /* installed by read-ahead, not fixed since */

/* bf_queue: the replacement list a frame is on. */
#define BQ_FREE 0      /* no page */
#define BQ_PROBATION 1 /* entered once (or scanned, or demoted): evicted first */
#define BQ_PROTECTED 2 /* re-used later: the hot set, evicted by clock */

#define BP_DIRTY_BIT ((uint64_t)1) /* low bit of bf_dirty; the rest is a generation */

#define BP_N_SHARDS 128      /* power of two */
#define BP_WRITE_BATCH 64    /* pages per st_write_pages call (512 KB) */
#define BP_RA_SLOTS 64       /* extent miss history entries */
#define BP_WRITER_PERIOD_US 50000

struct buf_s {
  _Atomic pg_no_t bf_page;   /* PG_NONE when the frame holds no page */
  _Atomic uint32_t bf_pins;
  _Atomic uint32_t bf_flags; /* BF_* */
  _Atomic uint8_t bf_queue;  /* BQ_*: changed by CAS so the list counts stay exact */
  _Atomic uint8_t bf_ref;    /* clock reference bit of a protected frame */
  rwlatch_t bf_latch;        /* the page latch; held only together with a pin */
  _Atomic uint64_t bf_dirty; /* generation << 1 | dirty bit; never reset, so stale copies never clear it */
  int32_t bf_hnext;          /* next frame in the page-table chain, -1 = end (shard mutex) */
  int32_t bf_index;          /* position in bp_frames */
  uint8_t *bf_data;          /* the 8 KB page inside bp_mem */
};

/* One page-table shard: a chained hash over frame indices. Hits and misses
 * are counted here, under the mutex a fix takes anyway, so the hit path
 * touches no shared counter. */
typedef struct bp_shard_s {
  alignas(64) cz_mutex_t sh_mutex;
  cz_cond_t sh_io_done;   /* broadcast when a read into a frame of this shard ends */
  int32_t *sh_heads;      /* bucket -> first frame index, -1 = empty */
  uint32_t sh_mask;       /* buckets - 1 */
  uint64_t sh_hits;
  uint64_t sh_misses;
} bp_shard_t;

/* Recent demand misses into one extent (read-ahead trigger). */
typedef struct bp_ra_slot_s {
  uint32_t rs_extent;
  int rs_count;
  uint64_t rs_first_ms; /* time of the first miss of this window */
} bp_ra_slot_t;

struct bpool_s {
  storage_t *bp_st;
  bp_config_t bp_cfg;
  int bp_n;                  /* frames */
  buf_t *bp_frames;
  uint8_t *bp_mem;           /* bp_n pages, 4096-aligned */
  bp_shard_t bp_shards[BP_N_SHARDS];

  /* replacement */
  _Atomic uint64_t bp_hand;  /* clock hand, taken modulo bp_n */
  _Atomic int bp_n_protected;
  _Atomic int bp_n_used;
  int bp_protected_max;      /* 75% of the pool */
  _Atomic pg_no_t *bp_ghosts; /* pages recently evicted from probation, direct-mapped, lossy (2Q's A1out) */

  /* dirty pages and the background writer */
  _Atomic int bp_n_dirty;
  cz_mutex_t bp_flush_mutex; /* one flush pass at a time: bp_flush_all excludes the writer */
  cz_mutex_t bp_wr_mutex;    /* guards bp_wr_stop and bp_wr_kick */
  cz_cond_t bp_wr_cond;
  bool bp_wr_stop;
  _Atomic bool bp_wr_kick;  /* set by a thread that crossed half of bc_max_dirty */
  bool bp_wr_running;
  cz_thread_t bp_wr_thread;

  /* read-ahead */
  cz_mutex_t bp_ra_mutex;    /* guards bp_ra_slots */
  bp_ra_slot_t bp_ra_slots[BP_RA_SLOTS];
  wpool_t *bp_prefetch;      /* one worker for bp_prefetch_extent */

  /* counters that are not per shard */
  _Atomic uint64_t bp_ra_requests;
  _Atomic uint64_t bp_ra_pages_read;
  _Atomic uint64_t bp_ra_pages_used;
  _Atomic uint64_t bp_pages_written;
  _Atomic uint64_t bp_evictions;
  _Atomic uint64_t bp_dirty_evictions;
};

static inline bp_shard_t *bp_shard_of(bpool_t *bp, pg_no_t pg, uint64_t *hash)
{
  uint64_t h = hash64_int(pg);
  *hash = h;
  return &bp->bp_shards[h & (BP_N_SHARDS - 1)];
}

static inline void bp_unpin(buf_t *b)
{
  atomic_fetch_sub_explicit(&b->bf_pins, 1, memory_order_release);
}

/* bp_table.c — page table; caller holds sh->sh_mutex. */
int bp_table_init(bpool_t *bp, err_t *e);
void bp_table_free(bpool_t *bp);
buf_t *bp_table_find(bpool_t *bp, bp_shard_t *sh, uint64_t hash, pg_no_t pg);
void bp_table_insert(bpool_t *bp, bp_shard_t *sh, uint64_t hash, buf_t *b);
void bp_table_remove(bpool_t *bp, bp_shard_t *sh, uint64_t hash, buf_t *b);
/* Pins the frame if it still holds a valid page that is in the table (for
 * the writer, which finds frames by position, not by page). */
bool bp_pin_frame(bpool_t *bp, buf_t *b, pg_no_t *pg_out);

/* bp_fix.c — the read protocol, shared with read-ahead */
/* Makes the claimed frame v the frame of pg, marked IO, unless pg is
 * present (false; v untouched). From then on fixers of pg wait for the
 * read instead of reading. demand: a bp_fix miss (counted; a remembered
 * page enters protected unless flags has BP_SCAN). */
bool bp_begin_read(bpool_t *bp, bp_shard_t *sh, uint64_t hash, pg_no_t pg, buf_t *v,
                   bool demand, int flags);
/* Ends the read into v and wakes the waiters: valid_flags (BF_VALID ...)
 * when the page was read, 0 when not (v leaves the table, stays pinned). */
void bp_end_read(bpool_t *bp, bp_shard_t *sh, uint64_t hash, buf_t *v, uint32_t valid_flags);

/* bp_replace.c — replacement */
/* A frame claimed for reuse: pinned once by the caller, no page, in no
 * table. NULL with e set when every frame stays pinned (after waiting a
 * while when wait) or a dirty victim cannot be written. */
buf_t *bp_get_victim(bpool_t *bp, bool wait, err_t *e);
/* Gives back a claimed frame that was not used. */
void bp_release_claimed(bpool_t *bp, buf_t *b);
/* Updates replacement state for a fix that found b present. */
void bp_touch(bpool_t *bp, buf_t *b, int flags);
/* Unmaps an unpinned clean frame: claims it. Returns true when claimed.
 * remember: an evicted probation page is remembered as a ghost. */
bool bp_try_claim(bpool_t *bp, buf_t *b, bool remember);
/* True (and forgets it) when pg was evicted from probation lately: a fix of
 * it now is a re-use, and it enters protected. */
bool bp_ghost_take(bpool_t *bp, pg_no_t pg, uint64_t hash);

/* bp_writer.c — dirty pages */
/* Marks b dirty; returns true when it was clean before. */
bool bp_mark_dirty(bpool_t *bp, buf_t *b);
/* Clears the dirty bit for good (page freed). */
void bp_forget_dirty(bpool_t *bp, buf_t *b);
/* Writes one pinned dirty frame (a victim) from a copy taken under a
 * try-shared latch: 1 written, 0 skipped (clean, busy, or another thread
 * writing it), CZ_ERR on a write error. */
int bp_write_frame(bpool_t *bp, buf_t *b, err_t *e);
/* Writes dirty frames in ascending page order until at most target remain.
 * wait_latch: take shared latches waiting (flush) or try only (writer,
 * helpers holding latches). *in_flight counts frames skipped because
 * another thread is writing them. */
int bp_write_dirty(bpool_t *bp, int target, bool wait_latch, int *in_flight, err_t *e);
/* Called after a frame became dirty: wakes the writer past half the limit
 * and makes the caller help past the limit. */
void bp_dirty_throttle(bpool_t *bp);
int bp_writer_start(bpool_t *bp, err_t *e);
void bp_writer_stop(bpool_t *bp);

/* bp_readahead.c */
int bp_ra_start(bpool_t *bp, err_t *e);
void bp_ra_stop(bpool_t *bp);
/* Records a demand miss of pg; reads the rest of the extent when the
 * misses into it reach the threshold within the window. */
void bp_ra_note_miss(bpool_t *bp, pg_no_t pg);

#endif /* CZ_BUFFER_INT_H */
