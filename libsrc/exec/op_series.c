/* op_series — generate_series(start, stop[, step]) in FROM: integers
 * from start to stop by step (an empty series when step points away
 * from stop; step 0 is 22023), produced a batch at a time. */
#include "exec/exec_int.h"
#include "exec/exec_pg.h"

typedef struct op_series_s {
  op_t os_op;
  xnode_t *os_args[3];          /* start, stop, step (NULL = 1) */
} op_series_t;

typedef struct series_run_s {
  opst_t sr_st;
  int64_t os_next, os_stop, os_step;
  bool os_end;
} series_run_t;

static int series_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_series_t *sp = (const op_series_t *)o;
  series_run_t *s = (series_run_t *)st;
  xctx_t xc;
  op_xctx(q, st->os_state, &xc);
  datum_t v[3] = {{.d_null = false}, {.d_null = false}, {.d_null = false, .d_i64 = 1}};
  for (int i = 0; i < 3; i++)
    if (sp->os_args[i] && xeval_scalar(&xc, sp->os_args[i], &v[i], e) != CZ_OK)
      return CZ_ERR;
  s->os_end = v[0].d_null || v[1].d_null || v[2].d_null;  /* a NULL gives no rows */
  if (!s->os_end && v[2].d_i64 == 0)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "step size cannot equal zero");
  s->os_next = v[0].d_i64;
  s->os_stop = v[1].d_i64;
  s->os_step = v[2].d_i64;
  return CZ_OK;
}

static int series_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  series_run_t *s = (series_run_t *)st;
  if (s->os_end)
    return CZ_OK;
  batch_t *b = op_new_batch(o, st, q, e);
  if (!b)
    return CZ_ERR;
  int n = 0;
  while (n < q->q_vector_size &&
         (s->os_step > 0 ? s->os_next <= s->os_stop : s->os_next >= s->os_stop)) {
    b->b_cols[0].v_i64[n] = s->os_next;
    b->b_cols[0].v_null[n++] = 0;
    if (__builtin_add_overflow(s->os_next, s->os_step, &s->os_next)) {
      s->os_end = true;
      break;
    }
  }
  if (n == 0) {
    s->os_end = true;
    return CZ_OK;
  }
  b->b_n = n;
  out->ob_b = b;
  out->ob_n = n;
  return CZ_OK;
}

static const op_vt_t series_vt = {
    .ov_name = "GenerateSeries",
    .ov_open = series_open,
    .ov_next = series_next,
    .ov_run_size = sizeof(series_run_t),
};

op_t *op_series_new(arena_t *a, ty_t type, xnode_t *start, xnode_t *stop, xnode_t *step)
{
  op_series_t *s = arena_zalloc(a, sizeof(*s));
  op_init(&s->os_op, &series_vt, a, 1, &type, NULL, NULL);
  s->os_args[0] = start;
  s->os_args[1] = stop;
  s->os_args[2] = step;
  return &s->os_op;
}
