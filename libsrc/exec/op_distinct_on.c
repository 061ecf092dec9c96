/* op_distinct_on — SELECT DISTINCT ON (…): over input sorted on the key
 * columns, streams the first row of each run of equal keys (NULLs equal).
 *
 * Design notes: only the keys of the last row returned are kept (copied
 * into od_keys, reset when they change), so memory does not grow with
 * the input; a run may span batches. */
#include "exec/exec_int.h"
#include "exec/exec_ql.h"

typedef struct op_distinct_on_s {
  op_t od_op;
  int od_nkeys;
  int *od_keys;                 /* input columns */
} op_distinct_on_t;

typedef struct distinct_on_run_s {
  opst_t dr_st;
  arena_t *od_keyarena;         /* the copied keys; reset when a new run starts */
  datum_t *od_prev;
  bool od_have;
} distinct_on_run_t;

static int don_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_distinct_on_t *dp = (const op_distinct_on_t *)o;
  distinct_on_run_t *d = (distinct_on_run_t *)st;
  if (!d->od_keyarena) {
    d->od_keyarena = arena_create_scratch(qexec_arena(q), "distinct on keys");
    d->od_prev = arena_zalloc(qexec_arena(q), sizeof(datum_t) * (size_t)(dp->od_nkeys + 1));
  }
  arena_reset(d->od_keyarena);
  d->od_have = false;
  return op_open(o->o_in, q, e);
}

static bool same_keys(const op_distinct_on_t *dp, const distinct_on_run_t *d, const batch_t *b,
                      int row)
{
  for (int k = 0; k < dp->od_nkeys; k++) {
    const vec_t *v = &b->b_cols[dp->od_keys[k]];
    datum_t x;
    vec_get(v, row, &x);
    if (!datum_eq_nulls(v->v_type.t_id, &x, &d->od_prev[k]))
      return false;
  }
  return true;
}

static int don_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_distinct_on_t *dp = (const op_distinct_on_t *)o;
  distinct_on_run_t *d = (distinct_on_run_t *)st;
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      return CZ_OK;
    int *sel = arena_alloc(st->os_batch, sizeof(int) * (size_t)(in.ob_n + 1));
    int n = 0;
    for (int i = 0; i < in.ob_n; i++) {
      int row = in.ob_sel ? in.ob_sel[i] : i;
      if (d->od_have && same_keys(dp, d, in.ob_b, row))
        continue;
      arena_reset(d->od_keyarena);
      for (int k = 0; k < dp->od_nkeys; k++) {
        const vec_t *v = &in.ob_b->b_cols[dp->od_keys[k]];
        datum_t x;
        vec_get(v, row, &x);
        if (datum_copy(ty_phys(v->v_type.t_id), &x, d->od_keyarena, &d->od_prev[k], e) != CZ_OK)
          return CZ_ERR;
      }
      d->od_have = true;
      sel[n++] = row;
    }
    if (n == 0)
      continue;
    out->ob_b = in.ob_b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
}

static const op_vt_t distinct_on_vt = {
    .ov_name = "Unique",
    .ov_open = don_open,
    .ov_next = don_next,
    .ov_run_size = sizeof(distinct_on_run_t),
    .ov_order = op_order_same,
};

op_t *op_distinct_on_new(arena_t *a, op_t *in, int nkeys, const int *keys)
{
  op_distinct_on_t *d = arena_zalloc(a, sizeof(*d));
  op_init(&d->od_op, &distinct_on_vt, a, in->o_ncols, in->o_types, in, NULL);
  d->od_nkeys = nkeys;
  d->od_keys = arena_alloc(a, sizeof(int) * (size_t)(nkeys + 1));
  for (int k = 0; k < nkeys; k++)
    d->od_keys[k] = keys[k];
  return &d->od_op;
}
