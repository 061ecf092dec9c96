/* en_qmem — one execution's memory budget (MaxQueryMem), a child of the
 * server's budget for all executions (MaxServerQueryMem), and the end of
 * its temporary files.
 *
 * Design notes: the budget is attached, for the time the execution runs,
 * to every arena it allocates in: its own q_arena (and so the subquery
 * caches, the operators' run states and their arenas — the bulk of a
 * query's memory — all made under it), the plan's arena when the caller
 * gives one (a plan built for this one execution) and the portal's output
 * arena. A cached plan is never written while it runs (exec.h), so it is
 * not charged. When the execution ends its arenas are released, not
 * merely reset, and the budget detached: a prepared statement keeps its
 * plan, not the memory of its last run. After a run that held much memory the
 * freed pages go back to the system at once, not at the allocator's next
 * decay tick; after one that met a malloc failure the emergency reserve
 * is re-established.
 */
#include <stdatomic.h>

#include "engine/runner/runner_int.h"
#include "exec/spill.h"

/* All queries of the server together ([Parameters] MaxServerQueryMem):
 * each execution's budget charges it too (util's mb_parent), so the query
 * that would take the total past it spills or gets 53200. One engine per
 * process. */
static mem_budget_t en_server_budget;

void en_qmem_configure(int64_t server_limit)
{
  mem_budget_init(&en_server_budget, server_limit);
}

int64_t en_qmem_server_limit(void)
{
  return en_server_budget.mb_limit;
}

/* A run whose budget peaked above this gives its memory back at once. */
#define EN_QMEM_PURGE_PEAK ((int64_t)16 * 1024 * 1024)

void en_qmem_attach(qctx_t *q, mem_budget_t *b, int64_t limit, arena_t *plan_arena,
                    arena_t *out_arena)
{
  mem_budget_init(b, limit);
  mem_budget_set_parent(b, &en_server_budget);
  q->q_budget = b;
  q->q_spill = NULL;
  q->q_max_mem = limit;
  arena_set_budget(q->q_arena, b);
  if (plan_arena)
    arena_set_budget(plan_arena, b);
  if (out_arena)
    arena_set_budget(out_arena, b);
}

void en_qmem_detach(qctx_t *q, arena_t *plan_arena, arena_t *out_arena)
{
  mem_budget_t *b = q->q_budget;
  if (!b)
    return;
  /* The operators were closed (their files with them); what an error or
   * a cancel left open goes now, before the arena it is listed in. */
  spill_end(q);
  if (plan_arena) {
    arena_release_scratch(plan_arena);
    arena_set_budget(plan_arena, NULL);
  }
  if (out_arena) {
    arena_release(out_arena);
    arena_set_budget(out_arena, NULL);
  }
  qexec_end(q);  /* the run states live in q_arena */
  arena_release(q->q_arena);
  arena_set_budget(q->q_arena, NULL);
  q->q_budget = NULL;
  int over = mem_budget_exceeded(b);
  mem_reserve_restore();  /* whoever used it (a query, a session): no-op when there */
  if (atomic_load(&b->mb_peak) >= EN_QMEM_PURGE_PEAK || over)
    mem_return_to_os();
}
