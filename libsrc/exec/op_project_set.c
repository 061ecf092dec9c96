/* op_project_set — set-returning functions in a select list (PostgreSQL's
 * ProjectSet): for each input row, k integer series run side by side, in
 * lockstep; the row is repeated as many times as the longest series has
 * members and the series that have ended give NULL. A row for which every
 * series is empty gives no row at all, as in PostgreSQL 10 and later.
 *
 * Design notes:
 * - Every set-returning function the binder accepts in a select list is
 *   an integer series (start, stop, step) plus an ordinary expression of
 *   its counter (unnest(a) is a[i] over a's subscripts, generate_series
 *   the counter itself), so this operator only counts: its output is the
 *   input row followed by one INT8 counter per series, and the binder's
 *   projection above computes the values.
 * - An input batch is held until all its rows are given out; an output
 *   batch holds rows of one input batch only, so the input's strings are
 *   valid while the consumer reads the batch (the input's next is not
 *   called before it asks for the following one).
 * - Bounds are evaluated once per input batch (vectored), a step of zero
 *   is 22023 as in generate_series.
 */
#include "exec/exec_int.h"
#include "exec/exec_pg.h"

typedef struct op_pset_s {
  op_t ps_op;
  int ps_nsrf;
  xnode_t **ps_bounds;          /* 3 per series: start, stop, step (NULL = 1), INT8 */
} op_pset_t;

typedef struct pset_run_s {
  opst_t pr_st;
  obatch_t pr_in;               /* the input batch being expanded; ob_b NULL = none */
  int pr_row;                   /* its next selected row (index into the selection) */
  int64_t pr_k;                 /* the next member of that row's series */
  vec_t *pr_b;                  /* 3 * nsrf bound vectors for the input batch */
  int pr_cap;                   /* rows each of them holds */
  int64_t *pr_count;            /* per series: members of the current row */
  int64_t pr_rows;              /* rows the current input row gives */
  bool pr_counted;              /* pr_count is for pr_row */
  bool pr_end;                  /* the input has ended */
} pset_run_t;

static int pset_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_pset_t *p = (const op_pset_t *)o;
  pset_run_t *r = (pset_run_t *)st;
  memset(&r->pr_in, 0, sizeof(r->pr_in));
  r->pr_row = 0;
  r->pr_k = 0;
  r->pr_cap = 0;
  r->pr_end = false;
  r->pr_counted = false;
  r->pr_b = arena_zalloc(st->os_state, sizeof(vec_t) * (size_t)(3 * p->ps_nsrf));
  r->pr_count = arena_zalloc(st->os_state, sizeof(int64_t) * (size_t)p->ps_nsrf);
  return op_open(o->o_in, q, e);
}

/* The members of the series start..stop by step (0 for a NULL bound). */
static int series_len(const datum_t *lo, const datum_t *hi, const datum_t *step, int64_t *out,
                      err_t *e)
{
  *out = 0;
  if (lo->d_null || hi->d_null || step->d_null)
    return CZ_OK;
  if (step->d_i64 == 0)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "step size cannot equal zero");
  __int128 span = (__int128)hi->d_i64 - lo->d_i64;
  __int128 s = step->d_i64;
  if ((span < 0 && s > 0) || (span > 0 && s < 0))
    return CZ_OK;
  __int128 n = span / s + 1;
  *out = n > INT64_MAX ? INT64_MAX : (int64_t)n;
  return CZ_OK;
}

/* Evaluates the bounds of every series for the input batch's rows. */
static int pset_bounds(const op_pset_t *p, pset_run_t *r, qctx_t *q, err_t *e)
{
  const batch_t *in = r->pr_in.ob_b;
  int cap = in->b_n > 0 ? in->b_n : 1;
  if (cap > r->pr_cap) {
    for (int j = 0; j < 3 * p->ps_nsrf; j++)
      if (vec_init(&r->pr_b[j], r->pr_st.os_state, ty_plain(TY_INT8), cap, e) != CZ_OK)
        return CZ_ERR;
    r->pr_cap = cap;
  }
  xctx_t xc;
  op_xctx(q, r->pr_st.os_batch, &xc);
  for (int j = 0; j < 3 * p->ps_nsrf; j++) {
    const xnode_t *x = p->ps_bounds[j];
    if (!x)
      continue;
    if (xeval(&xc, x, in, r->pr_in.ob_sel, r->pr_in.ob_n, &r->pr_b[j], e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* Counts the series of the current input row (its index in the batch: row). */
static int pset_count(const op_pset_t *p, pset_run_t *r, int row, err_t *e)
{
  r->pr_rows = 0;
  for (int j = 0; j < p->ps_nsrf; j++) {
    datum_t d[3] = {{.d_null = false}, {.d_null = false}, {.d_null = false, .d_i64 = 1}};
    for (int k = 0; k < 3; k++)
      if (p->ps_bounds[3 * j + k])
        vec_get(&r->pr_b[3 * j + k], row, &d[k]);
    if (series_len(&d[0], &d[1], &d[2], &r->pr_count[j], e) != CZ_OK)
      return CZ_ERR;
    if (r->pr_count[j] > r->pr_rows)
      r->pr_rows = r->pr_count[j];
  }
  r->pr_counted = true;
  r->pr_k = 0;
  return CZ_OK;
}

static int pset_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_pset_t *p = (const op_pset_t *)o;
  pset_run_t *r = (pset_run_t *)st;
  int nin = o->o_ncols - p->ps_nsrf;
  for (;;) {
    if (r->pr_end)
      return CZ_OK;
    if (!r->pr_in.ob_b || r->pr_row >= r->pr_in.ob_n) {
      if (op_next(o->o_in, q, &r->pr_in, e) != CZ_OK)
        return CZ_ERR;
      if (!r->pr_in.ob_b) {
        r->pr_end = true;
        return CZ_OK;
      }
      r->pr_row = 0;
      r->pr_counted = false;
      if (r->pr_in.ob_n == 0)
        continue;
      if (pset_bounds(p, r, q, e) != CZ_OK)
        return CZ_ERR;
    }
    batch_t *b = op_new_batch(o, st, q, e);
    if (!b)
      return CZ_ERR;
    const batch_t *in = r->pr_in.ob_b;
    int n = 0;
    while (n < q->q_vector_size && r->pr_row < r->pr_in.ob_n) {
      int row = r->pr_in.ob_sel ? r->pr_in.ob_sel[r->pr_row] : r->pr_row;
      if (!r->pr_counted && pset_count(p, r, row, e) != CZ_OK)
        return CZ_ERR;
      if (r->pr_k >= r->pr_rows) {
        r->pr_row++;
        r->pr_counted = false;
        continue;
      }
      for (int c = 0; c < nin; c++) {
        datum_t d;
        vec_get(&in->b_cols[c], row, &d);
        vec_set(&b->b_cols[c], n, &d);
      }
      for (int j = 0; j < p->ps_nsrf; j++) {
        vec_t *v = &b->b_cols[nin + j];
        if (r->pr_k < r->pr_count[j]) {
          datum_t lo, step = {.d_null = false, .d_i64 = 1};
          vec_get(&r->pr_b[3 * j], row, &lo);
          if (p->ps_bounds[3 * j + 2])
            vec_get(&r->pr_b[3 * j + 2], row, &step);
          /* within the series, so start + k * step lies between start and stop */
          v->v_i64[n] = (int64_t)((__int128)lo.d_i64 + (__int128)r->pr_k * step.d_i64);
          v->v_null[n] = 0;
        } else {
          v->v_null[n] = 1;
        }
      }
      n++;
      r->pr_k++;
    }
    if (n == 0)
      continue;
    b->b_n = n;
    out->ob_b = b;
    out->ob_sel = NULL;
    out->ob_n = n;
    return CZ_OK;
  }
}

static const op_vt_t pset_vt = {
    .ov_name = "ProjectSet",
    .ov_open = pset_open,
    .ov_next = pset_next,
    .ov_run_size = sizeof(pset_run_t),
};

op_t *op_project_set_new(arena_t *a, op_t *in, int nsrf, xnode_t **bounds)
{
  op_pset_t *p = arena_zalloc(a, sizeof(*p));
  int n = in->o_ncols + nsrf;
  ty_t *types = arena_alloc(a, sizeof(ty_t) * (size_t)n);
  memcpy(types, in->o_types, sizeof(ty_t) * (size_t)in->o_ncols);
  for (int j = 0; j < nsrf; j++)
    types[in->o_ncols + j] = ty_plain(TY_INT8);
  op_init(&p->ps_op, &pset_vt, a, n, types, in, NULL);
  p->ps_nsrf = nsrf;
  p->ps_bounds = bounds;
  return &p->ps_op;
}
