/* op_buffer — reads its whole input at open and then returns it: a
 * statement that changes a table it also reads (INSERT … SELECT from the
 * same table, UPDATE, DELETE) must not see its own changes while it
 * reads, or a moved or added row would be read again. */
#include "exec/exec_int.h"

typedef struct op_buffer_s {
  op_t ob_op;
} op_buffer_t;

typedef struct buffer_run_s {
  opst_t ob_st;
  rstore_t ob_rows;
  int64_t ob_pos;
} buffer_run_t;

static int buffer_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  buffer_run_t *b = (buffer_run_t *)st;
  rs_init(&b->ob_rows, st->os_state, o->o_ncols, o->o_types);
  b->ob_pos = 0;
  return rs_fill(&b->ob_rows, o->o_in, q, st->os_state, e);
}

static int buffer_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  buffer_run_t *b = (buffer_run_t *)st;
  if (b->ob_pos >= b->ob_rows.rs_n)
    return CZ_OK;
  batch_t *bt = op_new_batch(o, st, q, e);
  if (!bt)
    return CZ_ERR;
  int n = 0;
  while (b->ob_pos < b->ob_rows.rs_n && n < q->q_vector_size)
    rs_copy_out(&b->ob_rows, b->ob_pos++, bt, n++, 0);
  bt->b_n = n;
  out->ob_b = bt;
  out->ob_n = n;
  return CZ_OK;
}

static void buffer_close(const op_t *o, opst_t *st, qctx_t *q)
{
  (void)st;
  op_close(o->o_in, q);
}

static const op_vt_t buffer_vt = {
    .ov_name = "Buffer",
    .ov_open = buffer_open,
    .ov_next = buffer_next,
    .ov_close = buffer_close,
    .ov_run_size = sizeof(buffer_run_t),
};

op_t *op_buffer_new(arena_t *a, op_t *in)
{
  op_buffer_t *b = arena_zalloc(a, sizeof(*b));
  op_init(&b->ob_op, &buffer_vt, a, in->o_ncols, in->o_types, in, NULL);
  return &b->ob_op;
}
