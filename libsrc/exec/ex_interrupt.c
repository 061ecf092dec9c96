/* ex_interrupt — the one check that long scalar work makes to learn that
 * its statement must stop (cancel request, statement_timeout, its memory
 * budget exceeded).
 *
 * Design notes: operators check the cancel flag once per batch
 * (op_check_cancel), but a single batch can hold seconds of scalar work
 * (repeat, padding, regular expressions, deep ARRAY building, a sort's
 * comparisons). Every loop whose trip count depends on data or arguments
 * calls xc_check_interrupt every so often (XC_INTERRUPT_EVERY iterations
 * or bytes, or once per row), so a cancel lands within milliseconds. The
 * check is a load of a flag another thread sets and of the budget's
 * exceeded state (charged by the arenas, util/arena.c).
 */
#include "exec/ex_int.h"

int xc_check_interrupt(const xctx_t *c, err_t *e)
{
  if (c && c->xc_cancel && *c->xc_cancel)
    return err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
  if (c && c->xc_budget && mem_budget_exceeded(c->xc_budget))
    return xc_budget_error(c, e);
  return CZ_OK;
}
