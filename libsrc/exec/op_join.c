/* op_join — joins by nested loop or by hashing: inner, left, right and
 * full here; semi and anti joins and the unmatched right rows of right
 * and full joins in op_join_kinds.c (the state is op_join_int.h).
 *
 * Both strategies share everything but how the right rows matching one
 * left row are enumerated, so they are one operator with two matchers:
 * the right input is materialised at open (with a hash index on the key
 * columns for the hash join); each left row is paired with its candidate
 * right rows into an output batch, the residual condition is evaluated
 * once per output batch (vectored), and for LEFT joins a left row that
 * has seen its last candidate without a surviving pair gets one row
 * padded with NULLs.
 * A left batch is replaced only at the start of a call, because output
 * rows point at its strings.
 * A hash join whose table passes the memory it may hold partitions both
 * inputs to temporary files and joins partition by partition
 * (op_join_spill.c); here only where the table and the left batches come
 * from changes (join_build_spill, join_fetch_left), and RIGHT / FULL emit
 * a partition's unmatched right rows when its left rows end (a right row
 * and every left row that could match it share one partition, so its
 * mark is final then). */
#include <string.h>

#include "exec/op_join_int.h"
#include "exec/op_rfilter.h"
#include "exec/op_join_spill.h"
#include "exec/spill.h"


/* Spilled: the next partition's table becomes the one joined (RIGHT /
 * FULL: with fresh marks, in the same arena, released with it); at the
 * last, the left input has ended. */
static int join_next_part(join_run_t *j, qctx_t *q, err_t *e)
{
  bool more;
  if (hjs_next_partition(j->oj_spill, q, j->oj_build, &j->oj_right, &j->oj_hash, &more, e) !=
      CZ_OK)
    return CZ_ERR;
  j->oj_rscan = 0;
  j->oj_rmatched = NULL;
  if (!more) {
    /* every partition's unmatched rows are out: none for the final pass */
    j->oj_rscan = j->oj_right.rs_n;
    j->oj_left_end = true;
    return CZ_OK;
  }
  if (join_keeps_right(j->sr_p->oj_kind)) {
    j->oj_rmatched = arena_try_zalloc(j->oj_build, (size_t)(j->oj_right.rs_n + 1));
    if (!j->oj_rmatched)
      return op_alloc_error(j->oj_build, e);
  }
  return CZ_OK;
}

/* The table went past its memory while the right input was read (after
 * the batch that made it so): what was built goes to partition files, so
 * does the rest of the right input and then the whole left input; the
 * first partition's table is built. */
static int join_build_spill(join_run_t *j, qctx_t *q, err_t *e)
{
  const op_t *o = &j->sr_p->oj_op, *r = o->o_in2;
  opst_t *st = &j->sr_st;
  const op_join_t *jp = j->sr_p;
  j->oj_spill = hjs_begin(q, st->os_state, o->o_in, r, jp->oj_nkeys, jp->oj_lk, jp->oj_rk, e);
  if (!j->oj_spill || hjs_put_store(j->oj_spill, q, &j->oj_right, e) != CZ_OK)
    return CZ_ERR;
  arena_release(j->oj_build);
  rs_init(&j->oj_right, j->oj_build, r->o_ncols, r->o_types);
  for (;;) {
    obatch_t in;
    if (op_next(r, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      break;
    for (int i = 0; i < in.ob_n; i++) {
      int row = in.ob_sel ? in.ob_sel[i] : i;
      bool has_null = false;
      for (int k = 0; k < j->sr_p->oj_nkeys; k++)
        has_null |= in.ob_b->b_cols[j->sr_p->oj_rk[k]].v_null[row] != 0;
      j->oj_build_n++;
      j->oj_build_null |= has_null;
      /* a NULL key matches nothing; RIGHT / FULL still emit the row
       * (partition 0, stored unhashed there) */
      if ((!has_null || join_keeps_right(jp->oj_kind)) &&
          hjs_put_right(j->oj_spill, q, in.ob_b, row, e) != CZ_OK)
        return CZ_ERR;
    }
  }
  op_close(r, q);
  /* NOT IN with a NULL among the right keys: no row passes, so the left
   * input is not even partitioned (decided over the whole right input,
   * before any partition is joined). */
  if (jp->oj_null_aware && j->oj_build_null) {
    j->oj_left_end = true;
    return CZ_OK;
  }
  if (op_open(o->o_in, q, e) != CZ_OK)
    return CZ_ERR;
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      break;
    for (int i = 0; i < in.ob_n; i++)
      if (hjs_put_left(j->oj_spill, q, in.ob_b, in.ob_sel ? in.ob_sel[i] : i, e) != CZ_OK)
        return CZ_ERR;
  }
  op_close(o->o_in, q);
  if (hjs_end_input(j->oj_spill, e) != CZ_OK)
    return CZ_ERR;
  return join_next_part(j, q, e);
}

void join_scratch(join_run_t *j, int n)
{
  if (n <= j->oj_scratch_cap)
    return;
  arena_t *a = j->sr_st.os_state;
  j->oj_left_of = arena_alloc(a, sizeof(int) * (size_t)n);
  j->oj_right_of = arena_alloc(a, sizeof(int64_t) * (size_t)n);
  j->oj_done = arena_alloc(a, sizeof(int) * (size_t)n);
  j->oj_sel = arena_alloc(a, sizeof(int) * (size_t)n);
  j->oj_scratch_cap = n;
}

/* Per-position buffers for a batch of n selected rows (key hashes, NULL
 * key flags). */
static void join_lbuf(join_run_t *j, int n)
{
  if (n <= j->oj_lcap)
    return;
  j->oj_lhash = arena_alloc(j->sr_st.os_state, sizeof(uint64_t) * (size_t)n);
  j->oj_lnull = arena_alloc(j->sr_st.os_state, (size_t)n);
  j->oj_lcap = n;
}

/* Adds the selected rows of a right batch to the store, a column at a
 * time: a row with a NULL key never equals anything, so it is dropped, or
 * for RIGHT / FULL kept unhashed; the others are hashed (vectored). */
static int join_build_batch(join_run_t *j, const obatch_t *in, bool keep, err_t *e)
{
  const op_join_t *jp = j->sr_p;
  int n = in->ob_n;
  j->oj_build_n += n;
  if (!jp->oj_nkeys)
    return rs_append_rows(&j->oj_right, in->ob_b, in->ob_sel, n, e) < 0 ? CZ_ERR : CZ_OK;
  join_scratch(j, n);
  join_lbuf(j, n);
  int *rows = j->oj_done;
  uint8_t *nul = j->oj_lnull;
  int m = 0;
  for (int i = 0; i < n; i++) {
    int row = in->ob_sel ? in->ob_sel[i] : i;
    uint8_t has_null = 0;
    for (int k = 0; k < jp->oj_nkeys; k++)
      has_null |= in->ob_b->b_cols[jp->oj_rk[k]].v_null[row];
    j->oj_build_null |= has_null != 0;
    if (has_null && !keep)
      continue;
    nul[m] = has_null;
    rows[m++] = row;
  }
  rows_hash(in->ob_b, jp->oj_nkeys, jp->oj_rk, rows, m, j->oj_lhash);
  int64_t first = rs_append_rows(&j->oj_right, in->ob_b, rows, m, e);
  if (first < 0)
    return CZ_ERR;
  for (int i = 0; i < m; i++)
    if (!nul[i] && rh_insert(&j->oj_hash, j->oj_lhash[i], first + i, e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

/* Rows to size the hash table for: the last build's in this execution (a
 * join re-opened per outer row builds much the same), else the planner's
 * estimate — at most 2^20 rows and what a sixth of the memory limit holds
 * (about 40 bytes a row), so a wrong estimate cannot take much; past that
 * the table doubles as it fills. */
static int64_t join_size_hint(const join_run_t *j, const qctx_t *q)
{
  const op_t *r = j->sr_p->oj_op.o_in2;
  int64_t hint = j->oj_last_build > 0 ? j->oj_last_build
                 : r->o_est_rows > 0  ? (int64_t)r->o_est_rows
                                      : 64;
  int64_t lim = spill_mem_limit(q);
  int64_t most = CZ_MIN(lim > 0 ? lim / 256 : (int64_t)1 << 20,
                        mem_budget_room(q->q_budget) / 256);
  most = CZ_MIN(most, (int64_t)1 << 20);
  return CZ_MIN(hint, most);
}

/* Reads the whole right input (opened by the caller) into j->oj_right,
 * hashed on the keys for a hash join (a batch at a time, vectored), and
 * closes it. Past the memory the table may hold: with may_spill, both
 * inputs go to partition files (join_build_spill; j->oj_spill is then
 * set and the left input already read); without (a build shared by a
 * Gather's threads, op_join_share.c), *full is set and the right input is
 * left open for the caller. A finished hash build makes the runtime
 * filter of the scan below the probe side (op_rfilter.c). */
int join_build(join_run_t *j, qctx_t *q, bool may_spill, bool *full, err_t *e)
{
  const op_t *r = j->sr_p->oj_op.o_in2;
  opst_t *st = &j->sr_st;
  int nk = j->sr_p->oj_nkeys;
  bool keep = join_keeps_right(j->sr_p->oj_kind);
  *full = false;
  for (;;) {
    obatch_t in;
    if (op_next(r, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      break;
    if (join_build_batch(j, &in, keep, e) != CZ_OK)
      return CZ_ERR;
    if (op_check_mem(q, st->os_state, e) != CZ_OK)
      return CZ_ERR;
    if (nk && hjs_should_spill(q, j->oj_build, &j->oj_hash)) {
      if (!may_spill) {
        *full = true;
        return CZ_OK;
      }
      return join_build_spill(j, q, e);
    }
  }
  op_close(r, q);
  if (nk) {
    j->oj_last_build = j->oj_hash.rh_n;
    j->oj_rf = rf_bloom_build(st->os_state, &j->oj_hash);
  }
  if (keep) {
    j->oj_rmatched = arena_try_zalloc(st->os_state, (size_t)(j->oj_right.rs_n + 1));
    if (!j->oj_rmatched)
      return op_alloc_error(st->os_state, e);
  }
  return CZ_OK;
}

/* An empty build: the right rows' store and hash index in j->oj_build,
 * the table sized by join_size_hint. */
int join_build_init(join_run_t *j, qctx_t *q, err_t *e)
{
  const op_t *r = j->sr_p->oj_op.o_in2;
  rs_init(&j->oj_right, j->oj_build, r->o_ncols, r->o_types);
  j->oj_right.rs_live = j->sr_p->oj_rlive;
  if (j->sr_p->oj_nkeys && rh_init(&j->oj_hash, j->oj_build, join_size_hint(j, q), e) != CZ_OK)
    return CZ_ERR;
  j->oj_build_n = 0;
  j->oj_build_null = false;
  return CZ_OK;
}

static int join_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  join_run_t *j = (join_run_t *)st;
  j->sr_p = (const op_join_t *)o;
  const op_t *r = o->o_in2;
  if (!j->oj_build)  /* a child of os_state: reset with it at every open */
    j->oj_build = arena_create(st->os_state, "Join build");
  /* Files of an earlier execution were closed by its end (spill_end):
   * forgotten here, never touched. */
  j->oj_spill = NULL;
  /* what was in os_state went with its reset (the batches oj_out and
   * oj_pairs are the execution's: kept) */
  j->oj_scratch_cap = j->oj_lcap = 0;
  j->oj_pcols = NULL;
  j->oj_npcols = -1;
  int nk = j->sr_p->oj_nkeys;
  j->oj_kphys = arena_alloc(st->os_state, sizeof(ty_phys_t) * (size_t)(nk + 1));
  for (int k = 0; k < nk; k++)
    j->oj_kphys[k] = ty_phys(r->o_types[j->sr_p->oj_rk[k]].t_id);
  j->oj_int_key = nk == 1 && j->oj_kphys[0] == TP_I64 &&
                  ty_phys(o->o_in->o_types[j->sr_p->oj_lk[0]].t_id) == TP_I64;
  memset(&j->oj_left, 0, sizeof(j->oj_left));
  j->oj_left_end = false;
  j->oj_li = 0;
  j->oj_in_row = false;
  j->oj_matched = NULL;
  j->oj_matched_cap = 0;
  j->oj_rmatched = NULL;
  j->oj_rscan = 0;
  j->oj_part_tail = false;
  j->oj_rf = NULL;
  /* A participant of a Gather: the build is the Gather's, shared. */
  if (join_share_adopt(j, q))
    return op_open(o->o_in, q, e);
  if (join_build_init(j, q, e) != CZ_OK || op_open(r, q, e) != CZ_OK)
    return CZ_ERR;
  bool full;
  if (join_build(j, q, true, &full, e) != CZ_OK)
    return CZ_ERR;
  if (j->oj_spill)
    return CZ_OK;  /* spilled: the left input is in partition files already */
  return op_open(o->o_in, q, e);
}

const rf_bloom_t *op_join_rf(const op_t *join, qctx_t *q)
{
  const join_run_t *j = (const join_run_t *)op_state(join, q);
  return j && j->sr_st.os_opened ? j->oj_rf : NULL;
}

/* The next right row matching left row `lrow`, or -1. */
int64_t join_match(join_run_t *j, int lrow)
{
  int nk = j->sr_p->oj_nkeys;
  if (!nk)
    return j->oj_rpos < j->oj_right.rs_n ? j->oj_rpos++ : -1;
  if (j->oj_null_key)
    return -1;
  int64_t cand;
  const batch_t *lb = j->oj_left.ob_b;
  while (rh_next(&j->oj_hash, j->oj_hv, &j->oj_rpos, &cand)) {
    /* One integer key: its hash is a bijection of the value (row_hash
     * mixes it with invertible steps), so equal hashes are equal keys and
     * the stored row need not be read. */
    if (j->oj_int_key)
      return cand;
    bool eq = true;
    for (int k = 0; k < nk && eq; k++) {
      int idx;
      const vec_t *rv = rs_col(&j->oj_right, cand, j->sr_p->oj_rk[k], &idx);
      eq = vec_cell_eq(j->oj_kphys[k], &lb->b_cols[j->sr_p->oj_lk[k]], lrow, rv, idx);
    }
    if (eq)
      return cand;
  }
  return -1;
}

void join_start_row(join_run_t *j, int lrow)
{
  (void)lrow;
  j->oj_in_row = true;
  j->oj_rpos = j->sr_p->oj_nkeys ? -1 : 0;
  if (j->sr_p->oj_nkeys) {
    int p = j->oj_li;
    j->oj_null_key = j->oj_lnull[p] != 0;
    j->oj_hv = j->oj_lhash[p];
    /* the slot of a row a few ahead: in the cache when its turn comes */
    if (p + 8 < j->oj_left.ob_n)
      rh_prefetch(&j->oj_hash, j->oj_lhash[p + 8]);
  }
}

void join_copy_left(const batch_t *l, int lrow, batch_t *out, int row)
{
  for (int c = 0; c < l->b_ncols; c++) {
    datum_t d;
    vec_get(&l->b_cols[c], lrow, &d);
    vec_set(&out->b_cols[c], row, &d);
  }
}

int join_fetch_left(join_run_t *j, qctx_t *q, err_t *e)
{
  if (!j->oj_spill) {
    if (op_next(j->sr_p->oj_op.o_in, q, &j->oj_left, e) != CZ_OK)
      return CZ_ERR;
  } else {
    /* Spilled: the current partition's left rows, then the next
     * partition's table and rows (RIGHT / FULL: first the partition's
     * unmatched right rows, oj_part_tail, which join_next emits). */
    for (;;) {
      if (hjs_next_left(j->oj_spill, q, &j->oj_left, e) != CZ_OK)
        return CZ_ERR;
      if (j->oj_left.ob_b)
        break;
      if (join_keeps_right(j->sr_p->oj_kind)) {
        j->oj_part_tail = true;
        j->oj_li = 0;
        j->oj_in_row = false;
        return CZ_OK;
      }
      if (join_next_part(j, q, e) != CZ_OK)
        return CZ_ERR;
      if (j->oj_left_end)
        break;
    }
  }
  j->oj_li = 0;
  j->oj_in_row = false;
  if (!j->oj_left.ob_b) {
    j->oj_left_end = true;
    return CZ_OK;
  }
  int n = j->oj_left.ob_b->b_n;
  if (n > j->oj_matched_cap) {
    j->oj_matched_cap = n;
    j->oj_matched = arena_try_alloc(j->sr_st.os_state, (size_t)n);
    if (!j->oj_matched)
      return op_alloc_error(j->sr_st.os_state, e);
  }
  memset(j->oj_matched, 0, (size_t)n);
  int nk = j->sr_p->oj_nkeys;
  if (nk) {
    /* every selected row's key hash at once, and whether a key is NULL */
    const obatch_t *l = &j->oj_left;
    join_lbuf(j, l->ob_n);
    rows_hash(l->ob_b, nk, j->sr_p->oj_lk, l->ob_sel, l->ob_n, j->oj_lhash);
    for (int p = 0; p < l->ob_n; p++) {
      int row = l->ob_sel ? l->ob_sel[p] : p;
      uint8_t has_null = 0;
      for (int k = 0; k < nk; k++)
        has_null |= l->ob_b->b_cols[j->sr_p->oj_lk[k]].v_null[row];
      j->oj_lnull[p] = has_null;
    }
    for (int p = 0; p < l->ob_n && p < 8; p++)
      rh_prefetch(&j->oj_hash, j->oj_lhash[p]);
  }
  return CZ_OK;
}

static int join_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  join_run_t *j = (join_run_t *)st;
  j->sr_p = (const op_join_t *)o;
  if (join_left_only(j->sr_p->oj_kind))
    return join_next_semi(o, st, q, out, e);
  int vs = q->q_vector_size;
  int nleft = o->o_in->o_ncols;
  bool keep = join_keeps_right(j->sr_p->oj_kind);
  for (;;) {
    if (j->oj_left_end)
      return keep ? join_next_unmatched(j, q, out, e) : CZ_OK;
    if (j->oj_part_tail) {
      /* spilled RIGHT / FULL: this partition's unmatched right rows, then
       * the next partition */
      out->ob_b = NULL;
      if (join_next_unmatched(j, q, out, e) != CZ_OK)
        return CZ_ERR;
      if (out->ob_b)
        return CZ_OK;
      j->oj_part_tail = false;
      if (join_next_part(j, q, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    if (!j->oj_left.ob_b || j->oj_li >= j->oj_left.ob_n) {
      if (join_fetch_left(j, q, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    /* room for vs pairs plus a padded row per left row finished here */
    int cap = 2 * vs + 1;
    batch_t *b = op_keep_batch(o, q, &j->oj_out, cap, e);
    if (!b)
      return CZ_ERR;
    join_scratch(j, cap);
    int *left_of = j->oj_left_of, *done = j->oj_done, *sel = j->oj_sel;
    int64_t *right_of = j->oj_right_of;
    int npairs = 0, ndone = 0;
    while (npairs < vs && j->oj_li < j->oj_left.ob_n && ndone < vs) {
      int lrow = j->oj_left.ob_sel ? j->oj_left.ob_sel[j->oj_li] : j->oj_li;
      if (!j->oj_in_row)
        join_start_row(j, lrow);
      int64_t r = join_match(j, lrow);
      if (r < 0) {
        done[ndone++] = lrow;
        j->oj_in_row = false;
        j->oj_li++;
        continue;
      }
      right_of[npairs] = r;
      left_of[npairs++] = lrow;
    }
    /* the pairs, a column at a time: only the columns read above or by
     * the residual (oj_live); the others NULL once the padded rows are in */
    const batch_t *lb = j->oj_left.ob_b;
    const uint8_t *live = j->sr_p->oj_live;
    for (int c = 0; c < nleft; c++)
      if (!live || live[c])
        vec_gather(&b->b_cols[c], 0, &lb->b_cols[c], left_of, npairs);
    for (int c = nleft; c < o->o_ncols; c++)
      if (!live || live[c])
        rs_gather(&j->oj_right, c - nleft, right_of, npairs, &b->b_cols[c], 0);
    b->b_n = npairs;
    int n = 0;
    if (j->sr_p->oj_cond && npairs > 0) {
      xctx_t xc;
      op_xctx(q, st->os_batch, &xc);
      if (xeval_filter(&xc, j->sr_p->oj_cond, b, NULL, npairs, sel, &n, e) != CZ_OK)
        return CZ_ERR;
    } else {
      for (int k = 0; k < npairs; k++)
        sel[k] = k;
      n = npairs;
    }
    if (keep)
      for (int k = 0; k < n; k++)
        j->oj_rmatched[right_of[sel[k]]] = 1;
    if (j->sr_p->oj_kind == JOIN_LEFT || j->sr_p->oj_kind == JOIN_FULL) {
      for (int k = 0; k < n; k++)
        j->oj_matched[left_of[sel[k]]] = 1;
      /* the left rows left without a pair, padded with NULLs */
      int npad = 0;
      for (int d = 0; d < ndone; d++)
        if (!j->oj_matched[done[d]])
          done[npad++] = done[d];
      for (int c = 0; c < nleft; c++)
        if (!live || live[c])
          vec_gather(&b->b_cols[c], npairs, &lb->b_cols[c], done, npad);
      for (int c = nleft; c < o->o_ncols; c++)
        memset(b->b_cols[c].v_null + npairs, 1, (size_t)npad);
      for (int d = 0; d < npad; d++)
        sel[n++] = npairs + d;
      b->b_n += npad;
    }
    if (n == 0) {
      arena_reset(st->os_batch);  /* nothing of ours is referenced yet */
      continue;
    }
    if (live)
      for (int c = 0; c < o->o_ncols; c++)
        if (!live[c])
          memset(b->b_cols[c].v_null, 1, (size_t)b->b_n);
    out->ob_b = b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
}

static void join_close(const op_t *o, opst_t *st, qctx_t *q)
{
  join_run_t *j = (join_run_t *)st;
  j->sr_p = (const op_join_t *)o;
  hjs_close(j->oj_spill);
  j->oj_spill = NULL;
  op_close(o->o_in, q);
  op_close(o->o_in2, q);
}

static char *join_detail(const op_t *o, arena_t *a)
{
  const op_join_t *j = (const op_join_t *)o;
  static const char *const kinds[] = {"inner", "left", "right", "full", "semi", "anti"};
  char *t = arena_strdup(a, kinds[j->oj_kind]);
  if (j->oj_null_aware)
    t = arena_sprintf(a, "%s null-aware", t);
  for (int k = 0; k < j->oj_nkeys; k++)
    t = arena_sprintf(a, "%s%s $%d = $%d", t, k ? " and" : " on", j->oj_lk[k] + 1,
                      o->o_in->o_ncols + j->oj_rk[k] + 1);
  if (j->oj_cond)
    t = arena_sprintf(a, "%s filter", t);
  return t;
}

/* The left (probe) side's columns pass through every kind but RIGHT and
 * FULL, whose unmatched right rows come out of no left row. */
static int join_pass_col(const op_t *o, int col)
{
  join_kind_t k = ((const op_join_t *)o)->oj_kind;
  return !join_keeps_right(k) && col < o->o_in->o_ncols ? col : -1;
}

#define JOIN_VT(name, detail)                                                                     \
  {name, join_open, join_next, join_close, detail, sizeof(join_run_t), .ov_pass_col = join_pass_col}
static const op_vt_t nljoin_vt = JOIN_VT("NestedLoopJoin", join_detail);
static const op_vt_t hashjoin_vt = JOIN_VT("HashJoin", join_detail);
/* semi and anti joins show as their own nodes in EXPLAIN */
static const op_vt_t nlsemi_vt = JOIN_VT("NestedLoopSemiJoin", join_detail);
static const op_vt_t nlanti_vt = JOIN_VT("NestedLoopAntiJoin", join_detail);
static const op_vt_t hashsemi_vt = JOIN_VT("HashSemiJoin", join_detail);
static const op_vt_t hashanti_vt = JOIN_VT("HashAntiJoin", join_detail);

op_join_t *op_join_of(op_t *o)
{
  const op_vt_t *vt = o->o_vt;
  bool join = vt == &nljoin_vt || vt == &hashjoin_vt || vt == &nlsemi_vt || vt == &nlanti_vt ||
              vt == &hashsemi_vt || vt == &hashanti_vt;
  return join ? (op_join_t *)o : NULL;
}

/* Whether o is a join a Gather may build once and share: any hash or
 * nested-loop join but RIGHT / FULL, which mark build rows while probing
 * (op_join_share.c). Told by its operations, not its EXPLAIN name. */
bool op_join_shareable(const op_t *o)
{
  const op_vt_t *vt = o->o_vt;
  bool join = vt == &nljoin_vt || vt == &hashjoin_vt || vt == &nlsemi_vt || vt == &nlanti_vt ||
              vt == &hashsemi_vt || vt == &hashanti_vt;
  return join && !join_keeps_right(((const op_join_t *)o)->oj_kind);
}

static op_join_t *join_new(arena_t *a, const op_vt_t *vt, op_t *left, op_t *right,
                           join_kind_t kind, xnode_t *cond)
{
  op_join_t *j = arena_zalloc(a, sizeof(*j));
  int n = left->o_ncols + (join_left_only(kind) ? 0 : right->o_ncols);
  ty_t types[n > 0 ? n : 1];
  memcpy(types, left->o_types, sizeof(ty_t) * (size_t)left->o_ncols);
  if (!join_left_only(kind))
    memcpy(types + left->o_ncols, right->o_types, sizeof(ty_t) * (size_t)right->o_ncols);
  op_init(&j->oj_op, vt, a, n, types, left, right);
  j->oj_kind = kind;
  j->oj_cond = cond;
  if (join_left_only(kind)) {
    /* a residual is evaluated over pairs, whose layout the output lacks */
    int np = left->o_ncols + right->o_ncols;
    j->oj_pair_types = arena_alloc(a, sizeof(ty_t) * (size_t)(np > 0 ? np : 1));
    memcpy(j->oj_pair_types, left->o_types, sizeof(ty_t) * (size_t)left->o_ncols);
    memcpy(j->oj_pair_types + left->o_ncols, right->o_types,
           sizeof(ty_t) * (size_t)right->o_ncols);
  }
  return j;
}

op_t *op_nljoin_new(arena_t *a, op_t *left, op_t *right, join_kind_t kind, xnode_t *cond)
{
  const op_vt_t *vt = kind == JOIN_SEMI ? &nlsemi_vt : kind == JOIN_ANTI ? &nlanti_vt : &nljoin_vt;
  return &join_new(a, vt, left, right, kind, cond)->oj_op;
}

op_t *op_hashjoin_new(arena_t *a, op_t *left, op_t *right, join_kind_t kind, int nkeys,
                      const int *lk, const int *rk, xnode_t *cond)
{
  const op_vt_t *vt = kind == JOIN_SEMI   ? &hashsemi_vt
                      : kind == JOIN_ANTI ? &hashanti_vt
                                          : &hashjoin_vt;
  op_join_t *j = join_new(a, vt, left, right, kind, cond);
  j->oj_nkeys = nkeys;
  j->oj_lk = arena_alloc(a, sizeof(int) * (size_t)nkeys);
  j->oj_rk = arena_alloc(a, sizeof(int) * (size_t)nkeys);
  memcpy(j->oj_lk, lk, sizeof(int) * (size_t)nkeys);
  memcpy(j->oj_rk, rk, sizeof(int) * (size_t)nkeys);
  rf_attach(a, &j->oj_op, kind, nkeys, lk);
  return &j->oj_op;
}

void op_join_set_null_aware(op_t *o)
{
  op_join_t *j = (op_join_t *)o;
  if (j->oj_kind == JOIN_ANTI && j->oj_nkeys > 0)
    j->oj_null_aware = true;
}
