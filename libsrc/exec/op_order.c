/* op_order — the order an operator's output rows are known to come in,
 * so that the planner can leave out a sort the input already satisfies
 * (ORDER BY of a table's key, `WHERE a = 5 ORDER BY b` over an index on
 * (a, b)) and a LIMIT above it stops the scan after a few batches.
 *
 * Design notes:
 * - Orders start at scans (the index's key order the planner wrote into
 *   scan_spec_t) and sorts, and pass up only through operators that emit
 *   their input's rows in input order: filters, projections, LIMIT,
 *   DISTINCT ON. A hash join does not count even when it probes in
 *   order: spilled, it probes partition by partition; a Gather hands
 *   morsels to threads. What a wrong "ordered" would cost is a wrong
 *   answer, so an operator states its order only when it holds in every
 *   run (ov_order NULL: none).
 * - Columns fixed by equality bounds of a scan hold one value: any
 *   wanted key on them is met, so `WHERE a = 5 ORDER BY a, b` uses
 *   (a, b) as well as `ORDER BY b` does. */
#include <string.h>

#include "exec/exec_int.h"

void op_order(const op_t *o, op_order_t *out)
{
  out->oo_n = out->oo_nconst = 0;
  out->oo_unique = false;
  if (o->o_vt->ov_order)
    o->o_vt->ov_order(o, out);
}

static bool is_const(const op_order_t *have, int col)
{
  for (int i = 0; i < have->oo_nconst; i++)
    if (have->oo_const[i] == col)
      return true;
  return false;
}

bool op_order_satisfies(const op_order_t *have, const sort_key_t *want, int n)
{
  int h = 0;
  for (int i = 0; i < n; i++) {
    if (is_const(have, want[i].sk_col))
      continue;
    if (h >= have->oo_n)
      return have->oo_unique;
    const sort_key_t *k = &have->oo_keys[h++];
    if (k->sk_col != want[i].sk_col || k->sk_desc != want[i].sk_desc ||
        k->sk_nulls_first != want[i].sk_nulls_first)
      return false;
  }
  return true;
}

/* The input's order in o's output columns: each input key is the output
 * column passing it on (ov_pass_col), the order ending at the first key
 * no output column passes on. */
void op_order_pass(const op_t *o, op_order_t *out)
{
  op_order_t in;
  op_order(o->o_in, &in);
  out->oo_n = out->oo_nconst = 0;
  out->oo_unique = false;
  for (int c = 0; c < o->o_ncols; c++) {
    int from = o->o_vt->ov_pass_col(o, c);
    if (from >= 0 && is_const(&in, from) && out->oo_nconst < OP_ORDER_MAX)
      out->oo_const[out->oo_nconst++] = c;
  }
  for (int i = 0; i < in.oo_n; i++) {
    int at = -1;
    for (int c = 0; c < o->o_ncols && at < 0; c++)
      if (o->o_vt->ov_pass_col(o, c) == in.oo_keys[i].sk_col)
        at = c;
    if (at < 0)
      return;
    out->oo_keys[out->oo_n] = in.oo_keys[i];
    out->oo_keys[out->oo_n++].sk_col = at;
  }
  out->oo_unique = in.oo_unique;
}

void op_order_same(const op_t *o, op_order_t *out)
{
  op_order(o->o_in, out);
}
