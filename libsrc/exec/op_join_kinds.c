/* op_join_kinds — the join kinds that do not simply pair rows: SEMI and
 * ANTI (what decorrelated EXISTS / IN / NOT EXISTS / NOT IN become), and
 * the second pass of RIGHT and FULL joins over the build rows no pair
 * matched.
 *
 * Design notes:
 * - SEMI / ANTI return the left batch itself under a selection: a left
 *   row is decided once all its candidates are known (or, without a
 *   residual condition, at its first candidate), so no row is copied.
 *   With a residual, candidates are paired into a scratch batch of at
 *   most one vector, evaluated vectored, and the rows whose enumeration
 *   finished are returned; a row whose candidates span several calls
 *   keeps its place (oj_in_row, oj_rpos) and its verdict (oj_matched).
 * - NOT IN (null-aware ANTI): a NULL among the right keys makes every
 *   comparison NULL or FALSE, so no row passes; a left row with a NULL
 *   key passes only when the right input is empty. */
#include <string.h>

#include "exec/op_join_int.h"

/* Marks in used[] the columns x reads; false when it holds a subquery,
 * whose correlation may read any column. */
static bool join_cols_used(const xnode_t *x, bool *used, int ncols)
{
  if (x->x_kind == X_SUBQ)
    return false;
  if (x->x_kind == X_COL && x->x_index >= 0 && x->x_index < ncols)
    used[x->x_index] = true;
  for (int i = 0; i < x->x_nargs; i++)
    if (x->x_args[i] && !join_cols_used(x->x_args[i], used, ncols))
      return false;
  return true;
}

/* The pair columns the residual reads (oj_pcols), once per open: only
 * those are copied into the pairs. */
static void join_residual_cols(join_run_t *j, int npair_cols)
{
  if (j->oj_pcols)
    return;
  arena_t *a = j->sr_st.os_state;
  bool *used = arena_zalloc(a, (size_t)npair_cols + 1);
  j->oj_pcols = arena_alloc(a, sizeof(int) * (size_t)(npair_cols + 1));
  j->oj_npcols = 0;
  if (!join_cols_used(j->sr_p->oj_cond, used, npair_cols)) {
    j->oj_npcols = -1;
    return;
  }
  for (int c = 0; c < npair_cols; c++)
    if (used[c])
      j->oj_pcols[j->oj_npcols++] = c;
}

int join_next_semi(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  join_run_t *j = (join_run_t *)st;
  bool anti = j->sr_p->oj_kind == JOIN_ANTI;
  int vs = q->q_vector_size;
  int nleft = o->o_in->o_ncols;
  int npair_cols = nleft + o->o_in2->o_ncols;
  if (j->sr_p->oj_null_aware && j->oj_build_null)
    return CZ_OK;
  for (;;) {
    if (j->oj_left_end)
      return CZ_OK;
    if (!j->oj_left.ob_b || j->oj_li >= j->oj_left.ob_n) {
      if (join_fetch_left(j, q, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    const obatch_t *lb = &j->oj_left;
    batch_t *pairs = NULL;
    if (j->sr_p->oj_cond) {
      if (!j->oj_pairs) {
        j->oj_pairs = batch_create(qexec_arena(q), npair_cols, j->sr_p->oj_pair_types, vs, e);
        if (!j->oj_pairs)
          return CZ_ERR;
      }
      join_residual_cols(j, npair_cols);
      pairs = j->oj_pairs;
    }
    join_scratch(j, CZ_MAX(vs, lb->ob_n) + 1);
    int *left_of = j->oj_left_of, *done = j->oj_done;
    int64_t *right_of = j->oj_right_of;
    int npairs = 0, ndone = 0;
    while (npairs < vs && j->oj_li < lb->ob_n) {
      int lrow = lb->ob_sel ? lb->ob_sel[j->oj_li] : j->oj_li;
      if (!j->oj_in_row) {
        join_start_row(j, lrow);
        if (j->sr_p->oj_null_aware && j->oj_null_key && j->oj_build_n > 0)
          j->oj_matched[lrow] = 1;  /* NULL NOT IN (non-empty): not TRUE */
      }
      int64_t r = j->oj_matched[lrow] ? -1 : join_match(j, lrow);
      if (r >= 0 && !pairs)
        j->oj_matched[lrow] = 1;  /* no residual: the first candidate decides */
      if (r < 0 || !pairs) {
        done[ndone++] = lrow;
        j->oj_in_row = false;
        j->oj_li++;
        continue;
      }
      right_of[npairs] = r;
      left_of[npairs++] = lrow;
    }
    if (npairs > 0) {
      /* the pairs, a column at a time: only the columns the residual reads */
      int nc = j->oj_npcols < 0 ? npair_cols : j->oj_npcols;
      for (int i = 0; i < nc; i++) {
        int c = j->oj_npcols < 0 ? i : j->oj_pcols[i];
        if (c < nleft)
          vec_gather(&pairs->b_cols[c], 0, &lb->ob_b->b_cols[c], left_of, npairs);
        else
          rs_gather(&j->oj_right, c - nleft, right_of, npairs, &pairs->b_cols[c], 0);
      }
      pairs->b_n = npairs;
      int *psel = j->oj_sel;
      int np = 0;
      xctx_t xc;
      op_xctx(q, st->os_batch, &xc);
      if (xeval_filter(&xc, j->sr_p->oj_cond, pairs, NULL, npairs, psel, &np, e) != CZ_OK)
        return CZ_ERR;
      for (int k = 0; k < np; k++)
        j->oj_matched[left_of[psel[k]]] = 1;
    }
    /* done[] becomes the selection returned (in place: n <= d) */
    int *sel = done;
    int n = 0;
    for (int d = 0; d < ndone; d++)
      if ((j->oj_matched[done[d]] != 0) != anti)
        sel[n++] = done[d];
    if (n == 0) {
      arena_reset(st->os_batch);  /* nothing of ours is referenced yet */
      continue;
    }
    out->ob_b = lb->ob_b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
}

int join_next_unmatched(join_run_t *j, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_t *o = &j->sr_p->oj_op;
  int vs = q->q_vector_size;
  int nleft = o->o_in->o_ncols;
  join_scratch(j, vs + 1);
  int64_t *rows = j->oj_right_of;
  while (j->oj_rscan < j->oj_right.rs_n) {
    int n = 0;
    while (n < vs && j->oj_rscan < j->oj_right.rs_n) {
      int64_t r = j->oj_rscan++;
      if (!j->oj_rmatched[r])
        rows[n++] = r;
    }
    if (n == 0)
      continue;
    batch_t *b = op_keep_batch(o, q, &j->oj_out, vs, e);
    if (!b)
      return CZ_ERR;
    for (int c = 0; c < nleft; c++)
      memset(b->b_cols[c].v_null, 1, (size_t)n);
    const uint8_t *live = j->sr_p->oj_live;
    for (int c = nleft; c < o->o_ncols; c++)
      if (!live || live[c])
        rs_gather(&j->oj_right, c - nleft, rows, n, &b->b_cols[c], 0);
      else
        memset(b->b_cols[c].v_null, 1, (size_t)n);
    b->b_n = n;
    out->ob_b = b;
    out->ob_n = n;
    return CZ_OK;
  }
  return CZ_OK;
}
