/* exec_state — an execution's run states: what every operator, subquery
 * and expression of a plan keeps while one execution runs, looked up by
 * the plan object's address; and the contexts of parallel workers.
 *
 * Design notes: a plan is immutable once built (exec.h), so everything an
 * execution changes hangs off its qctx_t: q_exec, a table from plan
 * object addresses to run states, made in the root context's q_arena at
 * the first open and forgotten with it (qexec_end). The table is an open
 * addressing hash on the address, looked up once per operator per batch
 * (op_next), not per row. Contexts of one execution's subqueries share
 * their root's table (a subquery's operators are other addresses); a
 * worker's context has a table of its own, so a subtree opened in it gets
 * fresh states while the parent's go on. A table is used by one thread:
 * no locks. Why addresses and not operator numbers given at a finishing
 * pass: every plan builder (the SQL planner, COPY, DDL helpers, unit
 * tests, run-time trees such as the grouping sets' per-set group-bys)
 * gets it right without a pass to remember, and expression nodes and
 * subqueries key the same table.
 */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/spill.h"

typedef struct qx_slot_s {
  const void *qs_key;
  void *qs_val;
} qx_slot_t;

struct qexec_s {
  arena_t *qx_arena;            /* run states and their arenas */
  qx_slot_t *qx_slots;
  uint32_t qx_cap;              /* power of two */
  uint32_t qx_n;
};

/* The root of q's chain of subquery contexts (a worker's context is a
 * root of its own table: its q_exec is set when it is made). */
static qexec_t *qexec_of(qctx_t *q)
{
  if (q->q_exec)
    return q->q_exec;
  qctx_t *r = q;
  while (r->q_parent && !r->q_exec)
    r = r->q_parent;
  if (!r->q_exec) {
    qexec_t *x = arena_zalloc(r->q_arena, sizeof(*x));
    x->qx_arena = arena_create(r->q_arena, "run states");
    x->qx_cap = 64;
    x->qx_slots = arena_zalloc(x->qx_arena, sizeof(qx_slot_t) * x->qx_cap);
    r->q_exec = x;
  }
  q->q_exec = r->q_exec;
  return q->q_exec;
}

static uint32_t qx_hash(const void *key)
{
  uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(h >> 32);
}

static qx_slot_t *qx_find(const qexec_t *x, const void *key)
{
  uint32_t m = x->qx_cap - 1;
  for (uint32_t i = qx_hash(key) & m;; i = (i + 1) & m) {
    qx_slot_t *s = &x->qx_slots[i];
    if (s->qs_key == key || !s->qs_key)
      return s;
  }
}

static void qx_grow(qexec_t *x)
{
  qx_slot_t *old = x->qx_slots;
  uint32_t n = x->qx_cap;
  x->qx_cap *= 2;
  x->qx_slots = arena_zalloc(x->qx_arena, sizeof(qx_slot_t) * x->qx_cap);
  for (uint32_t i = 0; i < n; i++)
    if (old[i].qs_key)
      *qx_find(x, old[i].qs_key) = old[i];
}

void *qexec_state(qctx_t *q, const void *key, size_t size, bool make, bool *fresh)
{
  if (fresh)
    *fresh = false;
  qexec_t *x = make ? qexec_of(q) : q->q_exec;
  if (!x) {
    for (const qctx_t *r = q->q_parent; r && !x; r = r->q_parent)
      x = r->q_exec;
    if (!x)
      return NULL;
  }
  qx_slot_t *s = qx_find(x, key);
  if (s->qs_key || !make)
    return s->qs_val;
  if ((x->qx_n + 1) * 2 > x->qx_cap) {
    qx_grow(x);
    s = qx_find(x, key);
  }
  s->qs_key = key;
  s->qs_val = arena_zalloc(x->qx_arena, size);
  x->qx_n++;
  if (fresh)
    *fresh = true;
  return s->qs_val;
}

arena_t *qexec_arena(qctx_t *q)
{
  return qexec_of(q)->qx_arena;
}

opst_t *op_state(const op_t *o, const qctx_t *q)
{
  return qexec_state((qctx_t *)q, o, 0, false, NULL);
}

void qexec_end(qctx_t *q)
{
  /* The table and the states live in q_arena, which the caller releases;
   * only the pointer must not outlive them. */
  q->q_exec = NULL;
}

int qctx_worker_init(qctx_t *w, qctx_t *parent, err_t *e)
{
  /* The spill registry is made on the root lazily by the first file;
   * workers share it, so it must exist before they start. */
  if (spill_reg_ensure(parent, e) != CZ_OK)
    return CZ_ERR;
  *w = *parent;
  w->q_parent = parent;  /* cancel flags and the spill registry are found upward */
  w->q_spill = NULL;
  w->q_arena = arena_create(parent->q_arena, "worker");
  w->q_exec = NULL;
  qexec_t *x = arena_zalloc(w->q_arena, sizeof(*x));
  x->qx_arena = arena_create(w->q_arena, "run states");
  x->qx_cap = 64;
  x->qx_slots = arena_zalloc(x->qx_arena, sizeof(qx_slot_t) * x->qx_cap);
  w->q_exec = x;
  return CZ_OK;
}

void qctx_worker_end(qctx_t *w)
{
  if (!w->q_arena)
    return;
  arena_destroy(w->q_arena);
  w->q_arena = NULL;
  w->q_exec = NULL;
}
