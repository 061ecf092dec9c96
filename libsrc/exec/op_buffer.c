/* op_buffer — reads its whole input at open and then returns it: a
 * statement that changes a table it also reads (INSERT … SELECT from the
 * same table, UPDATE, DELETE) must not see its own changes while it
 * reads, or a moved or added row would be read again. */
#include "exec/exec_int.h"

typedef struct op_buffer_s {
  op_t ob_op;
  rstore_t ob_rows;             /* run-time */
  int64_t ob_pos;
} op_buffer_t;

static int buffer_open(op_t *o, qctx_t *q, err_t *e)
{
  op_buffer_t *b = (op_buffer_t *)o;
  rs_init(&b->ob_rows, o->o_state, o->o_ncols, o->o_types);
  b->ob_pos = 0;
  return rs_fill(&b->ob_rows, o->o_in, q, o->o_state, e);
}

static int buffer_next(op_t *o, qctx_t *q, obatch_t *out, err_t *e)
{
  op_buffer_t *b = (op_buffer_t *)o;
  if (b->ob_pos >= b->ob_rows.rs_n)
    return CZ_OK;
  batch_t *bt = op_new_batch(o, q, e);
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

static void buffer_close(op_t *o, qctx_t *q)
{
  op_close(o->o_in, q);
}

static const op_vt_t buffer_vt = {"Buffer", buffer_open, buffer_next, buffer_close, NULL};

op_t *op_buffer_new(arena_t *a, op_t *in)
{
  op_buffer_t *b = arena_zalloc(a, sizeof(*b));
  op_init(&b->ob_op, &buffer_vt, a, in->o_ncols, in->o_types, in, NULL);
  return &b->ob_op;
}
