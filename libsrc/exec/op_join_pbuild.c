/* op_join_pbuild — a shared hash join build made by every thread of the
 * build side's Gather: each thread stores the rows it reads and hashes
 * their keys, then each thread fills its own range of the one hash table.
 * The probe (op_join.c) sees an ordinary table and store: read-only and
 * lock-free, as with a build made by one thread.
 *
 * Design notes:
 * - Where: op_join_share_build, for a hash join whose build side is a
 *   Gather (the planner's, opt_par_builds) and a query with more than one
 *   thread. The Gather is drained (op_gather_drain): no batch crosses
 *   threads, each participant keeps what it read.
 * - Phase 1, per participant (gd_batch): rows with a NULL key are dropped
 *   (a shared build is never RIGHT / FULL, which keep them); the others
 *   go to the participant's own row store and their key hashes (rows_hash,
 *   the values the probe computes) to its own array, in its own arena (a
 *   child of the build's, so charged to MaxQueryMem once).
 * - Between (gd_mid, the session's thread): the stores become one. Full
 *   chunks are taken over as they are (their strings stay in the
 *   participant arenas, which live as long as the build); only the last,
 *   partial chunk of each participant is copied to the end. So a
 *   participant's row i has the number chunk_base * RS_CHUNK + i in its
 *   full chunks, tail_base + (i - full rows) in its tail. The table is
 *   made for all rows at once (rh_init): it never grows while threads
 *   fill it.
 * - Phase 2, per participant (gd_part): the table's slots are cut into as
 *   many contiguous ranges as there are participants; each fills the
 *   range holding the home slot of a hash (every participant's hash
 *   arrays are read, only its range's hashes taken), probing linearly
 *   only inside its range: one that would cross its end is kept aside
 *   and inserted after all (rh_insert, on the session's thread; with a
 *   table at most half full these are few). A chain's rows (rh_next_row)
 *   are written by the owner of its slot. So no two threads write one
 *   slot or one chain entry, and the table is what sequential inserts in
 *   some order would make (rows of a hash come out in another order:
 *   rows of a join come out in no fixed order anyway).
 * - Memory: each participant checks after each batch the build's bytes
 *   (the sum of what the participants last measured of their own arenas,
 *   plus the table still to come) against what a join's table may hold:
 *   past it (or under spill_pressure) reading stops for all (a halt, not
 *   an error) and the shared build gives up as a build by one thread
 *   would (*full): the Gather above runs on one thread and its join
 *   builds and spills as usual. Every growth step is fallible (53200).
 * - Cancel: phase 1 through op_next's checks; phase 2 checks the cancel
 *   flag every PB_CHECK_EVERY hashes it reads.
 * - Statistics: oj_build_n, oj_build_null, oj_last_build and the runtime
 *   filter are set as join_build sets them.
 */
#include <stdatomic.h>
#include <string.h>

#include "exec/op_join_int.h"
#include "exec/op_rfilter.h"
#include "exec/spill.h"

#define PB_CHECK_EVERY 65536

typedef struct pb_part_s {
  arena_t *pp_a;                /* its rows, hashes, scratch and overflow */
  rstore_t pp_rows;
  uint64_t *pp_hash;            /* per stored row: its key hash */
  int64_t pp_hcap;
  int64_t pp_build_n;           /* rows read, NULL keys too */
  bool pp_null;                 /* a row had a NULL key */
  int *pp_sel;                  /* scratch per batch: rows kept */
  int pp_selcap;
  _Atomic int64_t pp_bytes;     /* its arena's bytes at its last check */
  int64_t pp_full;              /* rows in its full chunks */
  int64_t pp_chunk_base;        /* the first of its full chunks in the whole store */
  int64_t pp_tail_base;         /* the number of its first tail row in the whole store */
  int64_t *pp_over;             /* phase 2: global rows whose probe left its range */
  uint64_t *pp_over_hash;
  int64_t pp_nover, pp_overcap;
  int64_t pp_used;              /* phase 2: slots it took */
} pb_part_t;

typedef struct pbuild_s {
  join_run_t *pb_j;
  qctx_t *pb_q;
  int pb_n;                     /* participants that ran */
  int pb_max;                   /* entries of pb_parts (q_threads) */
  pb_part_t *pb_parts;
} pbuild_t;

/* Whether the build (all participants) passes what a join's table may
 * hold: half of the memory limit, or the budget under pressure once the
 * build holds a sixteenth of it (hjs_should_spill's rule, with the table
 * still to be made counted in). */
static bool pb_too_big(pbuild_t *pb, pb_part_t *p, qctx_t *w)
{
  int64_t lim = spill_mem_limit(w);
  if (lim <= 0 || !spill_dir())
    return false;
  atomic_store_explicit(&p->pp_bytes, (int64_t)arena_bytes_used(p->pp_a), memory_order_relaxed);
  int64_t used = 0;
  for (int i = 0; i < pb->pb_max; i++)
    used += atomic_load_explicit(&pb->pb_parts[i].pp_bytes, memory_order_relaxed);
  /* the table to come: two slots and a chain entry per row, every
   * participant assumed to hold about as many rows as this one */
  used += p->pp_rows.rs_n * pb->pb_max * (2 * (int64_t)sizeof(rh_ent_t) + 8);
  if (used < lim / 16)
    return false;
  return used > lim / 2 || spill_pressure(w);
}

/* Phase 1: a batch read by participant `part`. */
static int pb_batch(void *arg, int part, qctx_t *w, const obatch_t *in, err_t *e)
{
  pbuild_t *pb = arg;
  pb_part_t *p = &pb->pb_parts[part];
  const op_join_t *jp = pb->pb_j->sr_p;
  int n = in->ob_n;
  p->pp_build_n += n;
  if (n > p->pp_selcap) {
    p->pp_sel = arena_alloc(p->pp_a, sizeof(int) * (size_t)n);
    p->pp_selcap = n;
  }
  int m = 0;
  for (int i = 0; i < n; i++) {
    int row = in->ob_sel ? in->ob_sel[i] : i;
    uint8_t has_null = 0;
    for (int k = 0; k < jp->oj_nkeys; k++)
      has_null |= in->ob_b->b_cols[jp->oj_rk[k]].v_null[row];
    p->pp_null |= has_null != 0;
    if (!has_null)
      p->pp_sel[m++] = row;
  }
  int64_t first = p->pp_rows.rs_n;
  if (first + m > p->pp_hcap) {
    int64_t cap = CZ_MAX(p->pp_hcap * 2, (int64_t)4096);
    while (cap < first + m)
      cap *= 2;
    uint64_t *h = arena_try_alloc(p->pp_a, sizeof(uint64_t) * (size_t)cap);
    if (!h)
      return op_alloc_error(p->pp_a, e);
    if (first)
      memcpy(h, p->pp_hash, sizeof(uint64_t) * (size_t)first);
    arena_free(p->pp_a, p->pp_hash, sizeof(uint64_t) * (size_t)p->pp_hcap);
    p->pp_hash = h;
    p->pp_hcap = cap;
  }
  rows_hash(in->ob_b, jp->oj_nkeys, jp->oj_rk, p->pp_sel, m, p->pp_hash + first);
  if (rs_append_rows(&p->pp_rows, in->ob_b, p->pp_sel, m, e) < 0)
    return CZ_ERR;
  if (op_check_mem(w, p->pp_a, e) != CZ_OK)
    return CZ_ERR;
  return pb_too_big(pb, p, w) ? 1 : CZ_OK;
}

/* Between the phases: one store, one empty table for all rows. */
static int pb_mid(void *arg, int nparts, qctx_t *q, err_t *e)
{
  (void)q;
  pbuild_t *pb = arg;
  join_run_t *j = pb->pb_j;
  pb->pb_n = nparts;
  int64_t full_chunks = 0, total = 0;
  for (int t = 0; t < nparts; t++) {
    pb_part_t *p = &pb->pb_parts[t];
    p->pp_chunk_base = full_chunks;
    p->pp_full = p->pp_rows.rs_n / RS_CHUNK * RS_CHUNK;
    full_chunks += p->pp_rows.rs_n / RS_CHUNK;
    total += p->pp_rows.rs_n;
    j->oj_build_n += p->pp_build_n;
    j->oj_build_null |= p->pp_null;
  }
  rstore_t *rs = &j->oj_right;
  int cap = (int)(full_chunks + nparts + 8);
  rs->rs_chunks = arena_try_alloc(rs->rs_arena, sizeof(batch_t *) * (size_t)cap);
  if (!rs->rs_chunks)
    return op_alloc_error(rs->rs_arena, e);
  rs->rs_cap_chunks = cap;
  for (int t = 0; t < nparts; t++) {
    pb_part_t *p = &pb->pb_parts[t];
    for (int64_t c = 0; c < p->pp_full / RS_CHUNK; c++)
      rs->rs_chunks[rs->rs_nchunks++] = p->pp_rows.rs_chunks[c];
  }
  rs->rs_n = full_chunks * RS_CHUNK;
  for (int t = 0; t < nparts; t++) {
    pb_part_t *p = &pb->pb_parts[t];
    int tail = (int)(p->pp_rows.rs_n - p->pp_full);
    p->pp_tail_base = rs->rs_n;
    if (tail > 0 &&
        rs_append_rows(rs, p->pp_rows.rs_chunks[p->pp_full / RS_CHUNK], NULL, tail, e) < 0)
      return CZ_ERR;
  }
  return rh_init(&j->oj_hash, j->oj_build, total, e);
}

/* Phase 2: participant `part` fills its range of the table's slots. */
static int pb_part(void *arg, int part, int nparts, qctx_t *w, err_t *e)
{
  pbuild_t *pb = arg;
  rhash_t *h = &pb->pb_j->oj_hash;
  pb_part_t *me = &pb->pb_parts[part];
  int64_t lo = h->rh_cap / nparts * part;
  int64_t hi = part == nparts - 1 ? h->rh_cap : h->rh_cap / nparts * (part + 1);
  uint64_t m = (uint64_t)h->rh_cap - 1;
  int64_t seen = 0;
  for (int t = 0; t < nparts; t++) {
    const pb_part_t *p = &pb->pb_parts[t];
    int64_t n = p->pp_rows.rs_n;
    for (int64_t i = 0; i < n; i++) {
      if (++seen % PB_CHECK_EVERY == 0 && op_check_cancel(w, e) != CZ_OK)
        return CZ_ERR;
      uint64_t hv = p->pp_hash[i];
      int64_t home = (int64_t)(hv & m);
      if (home < lo || home >= hi)
        continue;
      int64_t row = i < p->pp_full ? p->pp_chunk_base * RS_CHUNK + i
                                   : p->pp_tail_base + (i - p->pp_full);
      if (rh_insert_within(h, hv, row, hi, &me->pp_used))
        continue;
      if (me->pp_nover == me->pp_overcap) {
        int64_t cap = CZ_MAX(me->pp_overcap * 2, (int64_t)256);
        int64_t *r = arena_try_alloc(me->pp_a, sizeof(int64_t) * (size_t)cap);
        uint64_t *x = arena_try_alloc(me->pp_a, sizeof(uint64_t) * (size_t)cap);
        if (!r || !x)
          return op_alloc_error(me->pp_a, e);
        if (me->pp_nover) {
          memcpy(r, me->pp_over, sizeof(int64_t) * (size_t)me->pp_nover);
          memcpy(x, me->pp_over_hash, sizeof(uint64_t) * (size_t)me->pp_nover);
        }
        me->pp_over = r;
        me->pp_over_hash = x;
        me->pp_overcap = cap;
      }
      me->pp_over[me->pp_nover] = row;
      me->pp_over_hash[me->pp_nover++] = hv;
    }
  }
  return CZ_OK;
}

/* After phase 2, on the session's thread: the counts, the rows kept
 * aside, the hash arrays given back. */
static int pb_finish(pbuild_t *pb, err_t *e)
{
  join_run_t *j = pb->pb_j;
  rhash_t *h = &j->oj_hash;
  int64_t used = 0, over = 0;
  for (int t = 0; t < pb->pb_n; t++) {
    used += pb->pb_parts[t].pp_used;
    over += pb->pb_parts[t].pp_nover;
  }
  h->rh_used = used;
  h->rh_n = j->oj_right.rs_n - over;
  for (int t = 0; t < pb->pb_n; t++) {
    pb_part_t *p = &pb->pb_parts[t];
    for (int64_t i = 0; i < p->pp_nover; i++)
      if (rh_insert(h, p->pp_over_hash[i], p->pp_over[i], e) != CZ_OK)
        return CZ_ERR;
    arena_free(p->pp_a, p->pp_hash, sizeof(uint64_t) * (size_t)p->pp_hcap);
    p->pp_hash = NULL;
  }
  return CZ_OK;
}

int join_pbuild(join_run_t *j, qctx_t *q, bool *full, err_t *e)
{
  const op_t *r = j->sr_p->oj_op.o_in2;
  *full = false;
  pbuild_t pb = {.pb_j = j, .pb_q = q, .pb_max = CZ_MAX(q->q_threads, 1)};
  pb.pb_parts = arena_zalloc(j->oj_build, sizeof(pb_part_t) * (size_t)pb.pb_max);
  for (int t = 0; t < pb.pb_max; t++) {
    pb_part_t *p = &pb.pb_parts[t];
    p->pp_a = arena_create(j->oj_build, "Join build part");
    rs_init(&p->pp_rows, p->pp_a, r->o_ncols, r->o_types);
  }
  rs_init(&j->oj_right, j->oj_build, r->o_ncols, r->o_types);
  j->oj_build_n = 0;
  j->oj_build_null = false;
  gdrain_t d = {.gd_batch = pb_batch, .gd_mid = pb_mid, .gd_part = pb_part, .gd_arg = &pb};
  if (op_gather_drain(r, q, &d, e) != CZ_OK)
    return CZ_ERR;
  if (d.gd_halted) {
    *full = true;
    return CZ_OK;
  }
  if (pb_finish(&pb, e) != CZ_OK)
    return CZ_ERR;
  j->oj_last_build = j->oj_hash.rh_n;
  j->oj_rf = rf_bloom_build(j->sr_st.os_state, &j->oj_hash);
  return CZ_OK;
}
