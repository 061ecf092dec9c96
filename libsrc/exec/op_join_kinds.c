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
    int *left_of = NULL;
    if (j->sr_p->oj_cond) {
      pairs = batch_create(st->os_batch, npair_cols, j->sr_p->oj_pair_types, vs, e);
      if (!pairs)
        return CZ_ERR;
      left_of = arena_alloc(st->os_batch, sizeof(int) * (size_t)(vs + 1));
    }
    int *done = arena_alloc(st->os_batch, sizeof(int) * (size_t)(lb->ob_n + 1));
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
      join_copy_left(lb->ob_b, lrow, pairs, npairs);
      rs_copy_out(&j->oj_right, r, pairs, npairs, nleft);
      left_of[npairs++] = lrow;
    }
    if (npairs > 0) {
      pairs->b_n = npairs;
      int *psel = arena_alloc(st->os_batch, sizeof(int) * (size_t)(npairs + 1));
      int np = 0;
      xctx_t xc;
      op_xctx(q, st->os_batch, &xc);
      if (xeval_filter(&xc, j->sr_p->oj_cond, pairs, NULL, npairs, psel, &np, e) != CZ_OK)
        return CZ_ERR;
      for (int k = 0; k < np; k++)
        j->oj_matched[left_of[psel[k]]] = 1;
    }
    int *sel = arena_alloc(st->os_batch, sizeof(int) * (size_t)(ndone + 1));
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
  opst_t *st = &j->sr_st;
  int vs = q->q_vector_size;
  int nleft = o->o_in->o_ncols;
  while (j->oj_rscan < j->oj_right.rs_n) {
    batch_t *b = batch_create(st->os_batch, o->o_ncols, o->o_types, vs, e);
    if (!b)
      return CZ_ERR;
    int n = 0;
    while (n < vs && j->oj_rscan < j->oj_right.rs_n) {
      int64_t r = j->oj_rscan++;
      if (j->oj_rmatched[r])
        continue;
      for (int c = 0; c < nleft; c++)
        b->b_cols[c].v_null[n] = 1;
      rs_copy_out(&j->oj_right, r, b, n, nleft);
      n++;
    }
    if (n == 0) {
      arena_reset(st->os_batch);
      continue;
    }
    b->b_n = n;
    out->ob_b = b;
    out->ob_n = n;
    return CZ_OK;
  }
  return CZ_OK;
}
