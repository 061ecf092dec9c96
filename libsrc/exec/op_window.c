/* op_window — row_number(), rank() and dense_rank() OVER (PARTITION BY …
 * ORDER BY …) over input sorted by the partition keys, then the order
 * keys: one pass, the numbers restart where a partition key changes.
 *
 * Design notes: a row is compared with the previous selected row of its
 * batch; for the first row of a batch, with a copy of the last row's keys
 * of the batch before (kept in ow_keys, strings copied), so numbering
 * continues across batch boundaries. ow_keys is reset before each copy:
 * it holds one row's keys, never one per batch. The output batch shares the input's
 * vectors and selection and adds one vector. */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/exec_pg.h"

typedef struct op_window_s {
  op_t ow_op;
  xwin_t ow_kind;
  int ow_npart, ow_norder;
  int *ow_part, *ow_ord;
  /* run-time */
  bool ow_have_prev;            /* ow_prev holds the last row's keys */
  datum_t *ow_prev;             /* partition keys then order keys */
  arena_t *ow_keys;             /* the strings of ow_prev (a child of o_state) */
  int64_t ow_rownum;            /* rows so far in the partition */
  int64_t ow_rank;              /* rank of the current peer group */
  int64_t ow_dense;             /* peer groups so far in the partition */
} op_window_t;

static int window_open(op_t *o, qctx_t *q, err_t *e)
{
  op_window_t *w = (op_window_t *)o;
  w->ow_have_prev = false;
  w->ow_rownum = w->ow_rank = w->ow_dense = 0;
  w->ow_prev = arena_zalloc(o->o_state, sizeof(datum_t) * (size_t)(w->ow_npart + w->ow_norder + 1));
  return op_open(o->o_in, q, e);
}

/* Whether row r of b equals the previous row (prev_row >= 0: that row of
 * b; else the saved keys) in the n columns cols[]. */
static bool keys_equal(const op_window_t *w, const batch_t *b, int r, int prev_row,
                       const int *cols, int n, const datum_t *saved)
{
  for (int k = 0; k < n; k++) {
    const vec_t *v = &b->b_cols[cols[k]];
    datum_t x, y;
    vec_get(v, r, &x);
    if (prev_row >= 0)
      vec_get(v, prev_row, &y);
    else
      y = saved[k];
    if (!datum_eq_nulls(ty_phys(v->v_type.t_id), &x, &y))
      return false;
  }
  (void)w;
  return true;
}

static int window_next(op_t *o, qctx_t *q, obatch_t *out, err_t *e)
{
  op_window_t *w = (op_window_t *)o;
  obatch_t in;
  if (op_next(o->o_in, q, &in, e) != CZ_OK)
    return CZ_ERR;
  if (!in.ob_b)
    return CZ_OK;
  const batch_t *ib = in.ob_b;
  int nin = o->o_ncols - 1;
  batch_t *b = arena_alloc(o->o_batch, sizeof(batch_t));
  b->b_ncols = o->o_ncols;
  b->b_n = ib->b_n;
  b->b_cols = arena_alloc(o->o_batch, sizeof(vec_t) * (size_t)o->o_ncols);
  memcpy(b->b_cols, ib->b_cols, sizeof(vec_t) * (size_t)nin);
  vec_t *num = &b->b_cols[nin];
  if (vec_init(num, o->o_batch, o->o_types[nin], ib->b_n > 0 ? ib->b_n : 1, e) != CZ_OK)
    return CZ_ERR;
  int prev = -1;
  for (int i = 0; i < in.ob_n; i++) {
    int r = in.ob_sel ? in.ob_sel[i] : i;
    bool have = prev >= 0 || w->ow_have_prev;
    bool same_part = have && keys_equal(w, ib, r, prev, w->ow_part, w->ow_npart, w->ow_prev);
    if (!same_part) {
      w->ow_rownum = 0;
      w->ow_dense = 0;
    }
    w->ow_rownum++;
    bool peer = same_part && keys_equal(w, ib, r, prev, w->ow_ord, w->ow_norder,
                                         w->ow_prev + w->ow_npart);
    if (!peer) {
      w->ow_rank = w->ow_rownum;
      w->ow_dense++;
    }
    datum_t d = {.d_null = false};
    d.d_i64 = w->ow_kind == XWIN_ROW_NUMBER ? w->ow_rownum
              : w->ow_kind == XWIN_RANK     ? w->ow_rank
                                            : w->ow_dense;
    vec_set(num, r, &d);
    prev = r;
  }
  if (prev >= 0) {
    /* Keep the last row's keys for the next batch (its vectors go away). */
    for (int k = 0; k < w->ow_npart + w->ow_norder; k++) {
      int c = k < w->ow_npart ? w->ow_part[k] : w->ow_ord[k - w->ow_npart];
      datum_t d;
      if (k == 0)
        arena_reset(w->ow_keys);  /* the previous batch's keys are compared already */
      vec_get(&ib->b_cols[c], prev, &d);
      if (datum_copy(ty_phys(ib->b_cols[c].v_type.t_id), &d, w->ow_keys, &w->ow_prev[k], e) !=
          CZ_OK)
        return CZ_ERR;
    }
    w->ow_have_prev = true;
  }
  out->ob_b = b;
  out->ob_sel = in.ob_sel;
  out->ob_n = in.ob_n;
  return CZ_OK;
}

static char *window_detail(const op_t *o, arena_t *a)
{
  static const char *names[] = {"row_number", "rank", "dense_rank"};
  const op_window_t *w = (const op_window_t *)o;
  return arena_sprintf(a, "%s() over %d partition key%s, %d order key%s", names[w->ow_kind],
                       w->ow_npart, w->ow_npart == 1 ? "" : "s", w->ow_norder,
                       w->ow_norder == 1 ? "" : "s");
}

static const op_vt_t window_vt = {"Window", window_open, window_next, NULL, window_detail};

op_t *op_window_new(arena_t *a, op_t *in, xwin_t kind, int npart, const int *part, int norder,
                    const int *ord)
{
  op_window_t *w = arena_zalloc(a, sizeof(*w));
  int n = in->o_ncols + 1;
  ty_t types[n];
  memcpy(types, in->o_types, sizeof(ty_t) * (size_t)in->o_ncols);
  types[in->o_ncols] = ty_plain(TY_INT8);
  op_init(&w->ow_op, &window_vt, a, n, types, in, NULL);
  w->ow_keys = arena_create(w->ow_op.o_state, "Window keys");
  w->ow_kind = kind;
  w->ow_npart = npart;
  w->ow_norder = norder;
  w->ow_part = arena_alloc(a, sizeof(int) * (size_t)(npart + 1));
  w->ow_ord = arena_alloc(a, sizeof(int) * (size_t)(norder + 1));
  if (npart)
    memcpy(w->ow_part, part, sizeof(int) * (size_t)npart);
  if (norder)
    memcpy(w->ow_ord, ord, sizeof(int) * (size_t)norder);
  return &w->ow_op;
}
