/* op_join — inner and left joins, by nested loop or by hashing.
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
 * from changes (join_build_spill, join_fetch_left). */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/op_join_spill.h"

typedef struct op_join_s {
  op_t oj_op;
  join_kind_t oj_kind;
  xnode_t *oj_cond;             /* residual condition, NULL = true */
  int oj_nkeys;                 /* hash join: key pairs; 0 = nested loop */
  int *oj_lk;
  int *oj_rk;
  /* run-time */
  rstore_t oj_right;
  rhash_t oj_hash;
  obatch_t oj_left;             /* current left batch */
  bool oj_left_end;
  int oj_li;                    /* position in oj_left's selection */
  bool oj_in_row;               /* candidates of left row oj_li being enumerated */
  int64_t oj_rpos;              /* nested loop: next right row; hash: chain position */
  uint64_t oj_hv;               /* hash join: the left row's key hash */
  bool oj_null_key;             /* hash join: a left key is NULL: no match */
  uint8_t *oj_matched;          /* per left row of oj_left: a pair survived */
  int oj_matched_cap;
  arena_t *oj_build;            /* the right rows and their hash index */
  hjspill_t *oj_spill;          /* hash join past its memory: the partitions */
} op_join_t;

/* The table went past its memory while the right input was read (after
 * the batch that made it so): what was built goes to partition files, so
 * does the rest of the right input and then the whole left input; the
 * first partition's table is built. */
static int join_build_spill(op_join_t *j, qctx_t *q, err_t *e)
{
  op_t *o = &j->oj_op, *r = o->o_in2;
  j->oj_spill = hjs_begin(q, o->o_state, o->o_in, r, j->oj_nkeys, j->oj_lk, j->oj_rk, e);
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
      for (int k = 0; k < j->oj_nkeys; k++)
        has_null |= in.ob_b->b_cols[j->oj_rk[k]].v_null[row] != 0;
      if (!has_null && hjs_put_right(j->oj_spill, q, in.ob_b, row, e) != CZ_OK)
        return CZ_ERR;
    }
  }
  op_close(r, q);
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
  bool more;
  if (hjs_end_input(j->oj_spill, e) != CZ_OK ||
      hjs_next_partition(j->oj_spill, q, j->oj_build, &j->oj_right, &j->oj_hash, &more, e) != CZ_OK)
    return CZ_ERR;
  if (!more)
    j->oj_left_end = true;
  return CZ_OK;
}

static int join_open(op_t *o, qctx_t *q, err_t *e)
{
  op_join_t *j = (op_join_t *)o;
  op_t *r = o->o_in2;
  /* Files of an earlier execution were closed by its end (spill_end):
   * forgotten here, never touched. */
  j->oj_spill = NULL;
  rs_init(&j->oj_right, j->oj_build, r->o_ncols, r->o_types);
  if (j->oj_nkeys && rh_init(&j->oj_hash, j->oj_build, 64, e) != CZ_OK)
    return CZ_ERR;
  memset(&j->oj_left, 0, sizeof(j->oj_left));
  j->oj_left_end = false;
  j->oj_li = 0;
  j->oj_in_row = false;
  j->oj_matched = NULL;
  j->oj_matched_cap = 0;
  if (op_open(r, q, e) != CZ_OK)
    return CZ_ERR;
  for (;;) {
    obatch_t in;
    if (op_next(r, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      break;
    for (int i = 0; i < in.ob_n; i++) {
      int row = in.ob_sel ? in.ob_sel[i] : i;
      if (j->oj_nkeys) {
        bool has_null = false;
        for (int k = 0; k < j->oj_nkeys; k++)
          has_null |= in.ob_b->b_cols[j->oj_rk[k]].v_null[row] != 0;
        if (has_null)
          continue;  /* a NULL key never equals anything */
        uint64_t h = row_hash(in.ob_b, row, j->oj_nkeys, j->oj_rk);
        int64_t id = rs_append_row(&j->oj_right, in.ob_b, row, e);
        if (id < 0 || rh_insert(&j->oj_hash, h, id, e) != CZ_OK)
          return CZ_ERR;
      } else if (rs_append_row(&j->oj_right, in.ob_b, row, e) < 0)
        return CZ_ERR;
    }
    if (op_check_mem(q, o->o_state, e) != CZ_OK)
      return CZ_ERR;
    if (j->oj_nkeys && hjs_should_spill(q, j->oj_build, &j->oj_hash))
      return join_build_spill(j, q, e);
  }
  op_close(r, q);
  return op_open(o->o_in, q, e);
}

/* The next right row matching left row `lrow`, or -1. */
static int64_t join_match(op_join_t *j, int lrow)
{
  if (!j->oj_nkeys)
    return j->oj_rpos < j->oj_right.rs_n ? j->oj_rpos++ : -1;
  if (j->oj_null_key)
    return -1;
  int64_t cand;
  while (rh_next(&j->oj_hash, j->oj_hv, &j->oj_rpos, &cand)) {
    bool eq = true;
    for (int k = 0; k < j->oj_nkeys && eq; k++) {
      datum_t a, b;
      vec_get(&j->oj_left.ob_b->b_cols[j->oj_lk[k]], lrow, &a);
      rs_get(&j->oj_right, cand, j->oj_rk[k], &b);
      eq = datum_cmp(ty_phys(j->oj_right.rs_types[j->oj_rk[k]].t_id), &a, &b) == 0;
    }
    if (eq)
      return cand;
  }
  return -1;
}

static void join_start_row(op_join_t *j, int lrow)
{
  j->oj_in_row = true;
  j->oj_rpos = j->oj_nkeys ? -1 : 0;
  if (j->oj_nkeys) {
    const batch_t *b = j->oj_left.ob_b;
    j->oj_null_key = false;
    for (int k = 0; k < j->oj_nkeys; k++)
      j->oj_null_key |= b->b_cols[j->oj_lk[k]].v_null[lrow] != 0;
    if (!j->oj_null_key)
      j->oj_hv = row_hash(b, lrow, j->oj_nkeys, j->oj_lk);
  }
}

static void copy_left(const batch_t *l, int lrow, batch_t *out, int row)
{
  for (int c = 0; c < l->b_ncols; c++) {
    datum_t d;
    vec_get(&l->b_cols[c], lrow, &d);
    vec_set(&out->b_cols[c], row, &d);
  }
}

static int join_fetch_left(op_join_t *j, qctx_t *q, err_t *e)
{
  if (!j->oj_spill) {
    if (op_next(j->oj_op.o_in, q, &j->oj_left, e) != CZ_OK)
      return CZ_ERR;
  } else {
    /* Spilled: the current partition's left rows, then the next
     * partition's table and rows. */
    for (;;) {
      if (hjs_next_left(j->oj_spill, q, &j->oj_left, e) != CZ_OK)
        return CZ_ERR;
      if (j->oj_left.ob_b)
        break;
      bool more;
      if (hjs_next_partition(j->oj_spill, q, j->oj_build, &j->oj_right, &j->oj_hash, &more,
                             e) != CZ_OK)
        return CZ_ERR;
      if (!more)
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
    j->oj_matched = arena_alloc(j->oj_op.o_state, (size_t)n);
  }
  memset(j->oj_matched, 0, (size_t)n);
  return CZ_OK;
}

static int join_next(op_t *o, qctx_t *q, obatch_t *out, err_t *e)
{
  op_join_t *j = (op_join_t *)o;
  int vs = q->q_vector_size;
  int nleft = o->o_in->o_ncols;
  for (;;) {
    if (j->oj_left_end)
      return CZ_OK;
    if (!j->oj_left.ob_b || j->oj_li >= j->oj_left.ob_n) {
      if (join_fetch_left(j, q, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    /* room for vs pairs plus a padded row per left row finished here */
    batch_t *b = batch_create(o->o_batch, o->o_ncols, o->o_types, 2 * vs + 1, e);
    if (!b)
      return CZ_ERR;
    int *left_of = arena_alloc(o->o_batch, sizeof(int) * (size_t)(vs + 1));
    int *done = arena_alloc(o->o_batch, sizeof(int) * (size_t)(vs + 1));
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
      copy_left(j->oj_left.ob_b, lrow, b, npairs);
      rs_copy_out(&j->oj_right, r, b, npairs, nleft);
      left_of[npairs++] = lrow;
    }
    b->b_n = npairs;
    int *sel = arena_alloc(o->o_batch, sizeof(int) * (size_t)(npairs + ndone + 1));
    int n = 0;
    if (j->oj_cond && npairs > 0) {
      xctx_t xc;
      op_xctx(q, o->o_batch, &xc);
      if (xeval_filter(&xc, j->oj_cond, b, NULL, npairs, sel, &n, e) != CZ_OK)
        return CZ_ERR;
    } else {
      for (int k = 0; k < npairs; k++)
        sel[k] = k;
      n = npairs;
    }
    if (j->oj_kind == JOIN_LEFT) {
      for (int k = 0; k < n; k++)
        j->oj_matched[left_of[sel[k]]] = 1;
      for (int d = 0; d < ndone; d++) {
        if (j->oj_matched[done[d]])
          continue;
        int row = b->b_n++;
        copy_left(j->oj_left.ob_b, done[d], b, row);
        for (int c = nleft; c < o->o_ncols; c++)
          b->b_cols[c].v_null[row] = 1;
        sel[n++] = row;
      }
    }
    if (n == 0) {
      arena_reset(o->o_batch);  /* nothing of ours is referenced yet */
      continue;
    }
    out->ob_b = b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
}

static void join_close(op_t *o, qctx_t *q)
{
  op_join_t *j = (op_join_t *)o;
  hjs_close(j->oj_spill);
  j->oj_spill = NULL;
  op_close(o->o_in, q);
  op_close(o->o_in2, q);
}

static char *join_detail(const op_t *o, arena_t *a)
{
  const op_join_t *j = (const op_join_t *)o;
  char *t = arena_strdup(a, j->oj_kind == JOIN_LEFT ? "left" : "inner");
  for (int k = 0; k < j->oj_nkeys; k++)
    t = arena_sprintf(a, "%s%s $%d = $%d", t, k ? " and" : " on", j->oj_lk[k] + 1,
                      o->o_in->o_ncols + j->oj_rk[k] + 1);
  if (j->oj_cond)
    t = arena_sprintf(a, "%s filter", t);
  return t;
}

static const op_vt_t nljoin_vt = {"NestedLoopJoin", join_open, join_next, join_close,
                                  join_detail};
static const op_vt_t hashjoin_vt = {"HashJoin", join_open, join_next, join_close, join_detail};

static op_join_t *join_new(arena_t *a, const op_vt_t *vt, op_t *left, op_t *right,
                           join_kind_t kind, xnode_t *cond)
{
  op_join_t *j = arena_zalloc(a, sizeof(*j));
  int n = left->o_ncols + right->o_ncols;
  ty_t types[n > 0 ? n : 1];
  memcpy(types, left->o_types, sizeof(ty_t) * (size_t)left->o_ncols);
  memcpy(types + left->o_ncols, right->o_types, sizeof(ty_t) * (size_t)right->o_ncols);
  op_init(&j->oj_op, vt, a, n, types, left, right);
  j->oj_build = arena_create(j->oj_op.o_state, "Join build");
  j->oj_kind = kind;
  j->oj_cond = cond;
  return j;
}

op_t *op_nljoin_new(arena_t *a, op_t *left, op_t *right, join_kind_t kind, xnode_t *cond)
{
  return &join_new(a, &nljoin_vt, left, right, kind, cond)->oj_op;
}

op_t *op_hashjoin_new(arena_t *a, op_t *left, op_t *right, join_kind_t kind, int nkeys,
                      const int *lk, const int *rk, xnode_t *cond)
{
  op_join_t *j = join_new(a, &hashjoin_vt, left, right, kind, cond);
  j->oj_nkeys = nkeys;
  j->oj_lk = arena_alloc(a, sizeof(int) * (size_t)nkeys);
  j->oj_rk = arena_alloc(a, sizeof(int) * (size_t)nkeys);
  memcpy(j->oj_lk, lk, sizeof(int) * (size_t)nkeys);
  memcpy(j->oj_rk, rk, sizeof(int) * (size_t)nkeys);
  return &j->oj_op;
}
