/* op_distinct — SELECT DISTINCT: streams the first occurrence of each row
 * (NULLs equal), remembering the rows seen in a row set.
 *
 * Design notes (exec/README.md, "Spilling"): when the set would pass the
 * memory it may hold, it stops taking new rows: a row already in it is
 * dropped as before, any other row goes to one of DS_FANOUT partition
 * files by bits of its hash. Equal rows hash equally, so each distinct row
 * not yet returned lives wholly in one partition; once the input ends the
 * partitions are read one at a time with a fresh set, the same way (a
 * partition whose set fills up again goes to files by the next bits, up to
 * DS_MAX_LEVEL levels; past that its set meets MaxQueryMem, 53200). */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/spill.h"

#define DS_FANOUT 32
#define DS_MAX_LEVEL 10

typedef struct op_distinct_s {
  op_t od_op;
} op_distinct_t;

typedef struct ds_part_s {
  spill_t *dp_file;
  int dp_level;                 /* the level its rows were partitioned at */
} ds_part_t;

typedef struct distinct_run_s {
  opst_t od_st;
  rset_t od_seen;
  arena_t *od_set;              /* the set's rows and index (released per partition) */
  arena_t *od_rd;               /* the batch read from a partition file */
  bool od_full;                 /* the set takes no new rows: they go to od_out */
  int od_level;                 /* level of the rows being read (0 = the input) */
  spill_t *od_src;              /* the partition file being read, NULL = the input */
  bool od_input_end;
  spill_t *od_out[DS_FANOUT];   /* partitions being written (level od_level + 1) */
  ds_part_t *od_queue;
  int od_nqueue, od_qcap;
} distinct_run_t;

static int distinct_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  distinct_run_t *d = (distinct_run_t *)st;
  /* files of an earlier execution were closed by its end: forgotten; the
   * arenas are children of os_state, reset with it at every open */
  arena_t *set = d->od_set, *rd = d->od_rd;
  memset((char *)d + sizeof(opst_t), 0, sizeof(*d) - sizeof(opst_t));
  d->od_set = set ? set : arena_create(st->os_state, "Distinct set");
  d->od_rd = rd ? rd : arena_create(st->os_state, "Distinct partition");
  if (rset_init(&d->od_seen, d->od_set, o->o_ncols, o->o_types, e) != CZ_OK)
    return CZ_ERR;
  return op_open(o->o_in, q, e);
}

/* Whether the set should stop taking new rows: a fair share of the memory
 * held and the budget near its limit, or a doubling coming that would not
 * fit. */
static bool distinct_should_fill(const distinct_run_t *d, qctx_t *q)
{
  if (d->od_level + 1 >= DS_MAX_LEVEL || !spill_dir())
    return false;
  int64_t lim = spill_mem_limit(q);
  int64_t used = (int64_t)arena_bytes_used(d->od_set);
  if (lim <= 0 || used < lim / 16)
    return false;
  /* half of the memory at most, as a hash join's table: the operators
   * below still open and read (a scan opened after the set filled) */
  if (used > lim / 2 || spill_pressure(q))
    return true;
  const rset_t *s = &d->od_seen;
  int64_t need = (int64_t)q->q_vector_size * 64;
  need += rh_growth_bytes(&s->rt_hash, q->q_vector_size);
  if (s->rt_rows.rs_n + q->q_vector_size > s->rt_cap)
    need += 8 * s->rt_cap * 2;
  return need > mem_budget_room(q->q_budget) - lim / 8;
}

static int distinct_put(distinct_run_t *d, const op_t *o, qctx_t *q, const batch_t *b, int row,
                        err_t *e)
{
  uint64_t h = row_hash(b, row, o->o_ncols, NULL);
  int p = (int)((h >> (5 * d->od_level)) & (DS_FANOUT - 1));
  if (!d->od_out[p] && !(d->od_out[p] = spill_open(q, o->o_ncols, o->o_types, e)))
    return CZ_ERR;
  return spill_put(d->od_out[p], b, row, e);
}

/* The rows being read ended: the partitions written from them join the
 * queue, and the next queued partition becomes the source with a fresh
 * set; *more false when none is left. */
static int distinct_next_source(distinct_run_t *d, const op_t *o, err_t *e, bool *more)
{
  spill_close(d->od_src);
  d->od_src = NULL;
  for (int p = 0; p < DS_FANOUT; p++) {
    if (!d->od_out[p])
      continue;
    if (d->od_nqueue == d->od_qcap) {
      int cap = d->od_qcap ? d->od_qcap * 2 : DS_FANOUT;
      ds_part_t *n = arena_alloc(d->od_st.os_state, sizeof(ds_part_t) * (size_t)cap);
      if (d->od_nqueue)
        memcpy(n, d->od_queue, sizeof(ds_part_t) * (size_t)d->od_nqueue);
      d->od_queue = n;
      d->od_qcap = cap;
    }
    ds_part_t part = {d->od_out[p], d->od_level + 1};
    d->od_out[p] = NULL;
    d->od_queue[d->od_nqueue++] = part;
    if (spill_rewind(part.dp_file, e) != CZ_OK)
      return CZ_ERR;
  }
  *more = d->od_nqueue > 0;
  if (!*more)
    return CZ_OK;
  ds_part_t part = d->od_queue[--d->od_nqueue];
  d->od_src = part.dp_file;
  d->od_level = part.dp_level;
  d->od_full = false;
  arena_release(d->od_set);
  return rset_init(&d->od_seen, d->od_set, o->o_ncols, o->o_types, e);
}

static int distinct_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  distinct_run_t *d = (distinct_run_t *)st;
  for (;;) {
    obatch_t in;
    if (!d->od_input_end) {
      if (op_next(o->o_in, q, &in, e) != CZ_OK)
        return CZ_ERR;
      if (!in.ob_b) {
        d->od_input_end = true;
        op_close(o->o_in, q);
        continue;
      }
    } else {
      /* after the input: the partitions, one at a time */
      if (!d->od_src) {
        bool more;
        if (distinct_next_source(d, o, e, &more) != CZ_OK)
          return CZ_ERR;
        if (!more)
          return CZ_OK;
      }
      if (op_check_cancel(q, e) != CZ_OK)
        return CZ_ERR;
      arena_reset(d->od_rd);
      batch_t *b = batch_create(d->od_rd, o->o_ncols, o->o_types, q->q_vector_size, e);
      if (!b || spill_get(d->od_src, b, d->od_rd, e) != CZ_OK)
        return CZ_ERR;
      if (b->b_n == 0) {
        bool more;
        if (distinct_next_source(d, o, e, &more) != CZ_OK)
          return CZ_ERR;
        if (!more)
          return CZ_OK;
        continue;
      }
      in.ob_b = b;
      in.ob_sel = NULL;
      in.ob_n = b->b_n;
    }
    int *sel = arena_alloc(st->os_batch, sizeof(int) * (size_t)(in.ob_n + 1));
    int n = 0;
    for (int i = 0; i < in.ob_n; i++) {
      int row = in.ob_sel ? in.ob_sel[i] : i;
      if (d->od_full) {
        if (rset_find(&d->od_seen, in.ob_b, row) < 0 &&
            distinct_put(d, o, q, in.ob_b, row, e) != CZ_OK)
          return CZ_ERR;
        continue;
      }
      bool added;
      if (rset_add(&d->od_seen, in.ob_b, row, &added, e) < 0)
        return CZ_ERR;
      if (added)
        sel[n++] = row;
    }
    if (op_check_mem(q, d->od_set, e) != CZ_OK)
      return CZ_ERR;
    if (!d->od_full && distinct_should_fill(d, q))
      d->od_full = true;
    if (n == 0) {
      arena_reset(st->os_batch);  /* nothing of ours is referenced yet */
      continue;
    }
    out->ob_b = in.ob_b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
}

static void distinct_close(const op_t *o, opst_t *st, qctx_t *q)
{
  distinct_run_t *d = (distinct_run_t *)st;
  spill_close(d->od_src);
  d->od_src = NULL;
  for (int p = 0; p < DS_FANOUT; p++) {
    spill_close(d->od_out[p]);
    d->od_out[p] = NULL;
  }
  for (int i = 0; i < d->od_nqueue; i++)
    spill_close(d->od_queue[i].dp_file);
  d->od_nqueue = 0;
  if (!d->od_input_end)
    op_close(o->o_in, q);
  d->od_input_end = true;
}

static const op_vt_t distinct_vt = {
    .ov_name = "Distinct",
    .ov_open = distinct_open,
    .ov_next = distinct_next,
    .ov_close = distinct_close,
    .ov_run_size = sizeof(distinct_run_t),
};

op_t *op_distinct_new(arena_t *a, op_t *in)
{
  op_distinct_t *d = arena_zalloc(a, sizeof(*d));
  op_init(&d->od_op, &distinct_vt, a, in->o_ncols, in->o_types, in, NULL);
  return &d->od_op;
}
