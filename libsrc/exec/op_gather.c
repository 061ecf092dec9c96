/* op_gather — runs one subtree of the plan on several threads at once:
 * the session's thread and up to ThreadsPerQuery - 1 leased query
 * workers, each in a worker context of its own (qctx_worker_init), all
 * reading the subtree's one scan through a shared morsel dispenser, so
 * that together they return exactly the rows one thread would (in no
 * particular order).
 *
 * Design notes:
 * - The subtree is a pipeline: a chain of operators along their first
 *   input ending in one splittable scan, the driving scan (op_gather_ok):
 *   splitting the leaf of a chain splits its output. On the chain:
 *   filters, projections, index lookup joins and lateral joins (each
 *   participant its own lookups and subquery runs), hash and nested-loop
 *   joins other than RIGHT / FULL (their second input is the build,
 *   made once and shared: op_join_share.c), and at the top only a
 *   (partial) group-by. Its operators must be safe to run on several
 *   threads of one execution (the planner puts no subquery or volatile
 *   function on the chain).
 * - Builds: at open, on the session's thread and in the Gather's own
 *   context, every join of the chain reads its build side into one table
 *   before any worker starts; the participants probe it read-only. A
 *   build that would spill makes the Gather run its subtree on the
 *   session's thread alone (EXPLAIN ANALYZE: "workers launched=0
 *   (a build spills)"), where the joins build and spill as usual.
 * - The dispenser is made at open on the session's thread, in the
 *   Gather's run state (op_scan_morsels); each participant context is told
 *   to read from it (op_scan_use_morsels) before it opens the subtree.
 * - Batches are copied: a worker copies each batch it made into one of
 *   its GATHER_SLOTS slots (the selected rows, strings included: the batch
 *   itself lives in the worker's run state and is reset at its next
 *   op_next) and goes on making the next, waiting only when every slot is
 *   full. A worker that had to wait for the consumer to take its one batch
 *   would stand idle for as long as the consumer works on it, and the
 *   operators above a Gather run on the session's thread alone. The
 *   consumer takes a worker's slots in order, so each worker's batches
 *   come in the order it made them. The session thread takes part: when
 *   no worker has a batch ready it runs the subtree one batch itself
 *   (handed over as it is, no copy).
 * - Stop: each worker context's q_cancel is the Gather's own stop flag
 *   (its parent chain still leads to the query's cancel flag, which the
 *   operators check per batch). The first error of any participant sets
 *   the flag; it is what the query fails with, the others' 57014 are
 *   dropped. Close (or the end of the rows) releases the lease, which
 *   waits for every task, then closes and frees the worker contexts.
 * - Drained (op_gather_drain: a parallel hash build, a parallel merge):
 *   no batch is handed over; each participant gives its batches to the
 *   consumer on its own thread, then all meet (a barrier), the session's
 *   thread runs the consumer's middle step, and every participant its
 *   second phase. All of it happens in open; the session's thread waits
 *   for every worker's phases before the stop flag is raised (a worker
 *   waiting at the barrier would take it for a stop).
 * - EXPLAIN ANALYZE: every participant's figures of the subtree are summed
 *   into run states of the Gather's own context (made for the purpose,
 *   never opened there): rows add up, time is thread time summed.
 */
#include <string.h>

#include "exec/exec_int.h"
#include "thread/thread.h"

typedef struct op_gather_s {
  op_t og_op;
  const op_t *og_scan;          /* the leaf scan that is split */
  int og_njoins;                /* joins on the chain whose builds are shared */
  const op_t **og_joins;
  int og_workers;               /* planned: ThreadsPerQuery - 1 when planned */
} op_gather_t;

typedef enum gstate_e { GS_RUN, GS_DONE } gstate_t;

/* Batches a worker may have made ahead of the consumer. */
#define GATHER_SLOTS 4

struct gather_run_s;

typedef struct gslot_s {
  arena_t *gs_a;                /* the copy's vectors and strings, reset at each fill */
  batch_t *gs_b;
} gslot_t;

typedef struct gpart_s {
  qctx_t gp_q;                  /* the participant's context */
  struct gather_run_s *gp_run;
  gstate_t gp_state;            /* GS_DONE: its subtree ended (filled slots may remain) */
  gslot_t gp_slots[GATHER_SLOTS];
  int gp_head;                  /* its oldest filled slot */
  int gp_nfull;                 /* filled slots from gp_head on (the consumer's one included) */
  bool gp_started;              /* a task runs (or ran) it */
  int gp_rank;                  /* drain: its number among those that run (0 the session's) */
  int64_t gp_rows;              /* drain: rows its subtree returned */
  err_t gp_err;
} gpart_t;

typedef struct gather_run_s {
  opst_t gr_st;
  const op_t *gr_sub;
  cz_mutex_t gr_mx;
  cz_cond_t gr_cons;            /* a batch is ready or a participant ended */
  cz_cond_t gr_work;            /* a batch was consumed, or stop */
  bool gr_live;                 /* mutex and conditions initialised */
  arena_t *gr_arena;            /* participants and the dispenser: not os_state, which
                                   op_open resets before a re-open stops the workers */
  volatile bool gr_stop;
  qw_lease_t *gr_lease;
  int gr_n;                     /* participants (the session's is [0]) */
  gpart_t *gr_parts;
  int gr_taken;                 /* the worker whose head slot the consumer holds, or -1 */
  int gr_rr;                    /* round robin among ready workers */
  bool gr_lead_done;
  gpart_t *gr_failed;           /* the first participant that failed */
  jshare_t **gr_shares;         /* per og_joins: the shared build (NULL: none) */
  int gr_nshares;
  const ty_tz_t *gr_tz;         /* the session's TimeZone, put in force on each worker
                                   (text forms and casts of timestamptz read it) */
  gdrain_t *gr_drain;           /* drained (op_gather_drain): the consumer, else NULL */
  int gr_nrun;                  /* drain: participants that run (the session's and
                                   the workers started) */
  int gr_arrived;               /* drain: participants whose input ended */
  bool gr_phase2;               /* drain: every input ended and gd_mid ran */
  volatile bool gr_halt;        /* drain: a consumer asked to stop, without error */
} gather_run_t;

/* A copy of ob's selected rows into slot k of worker p (its own thread). */
static int gather_copy(gpart_t *p, int k, const obatch_t *ob, err_t *e)
{
  gslot_t *sl = &p->gp_slots[k];
  if (!sl->gs_a)
    sl->gs_a = arena_create(p->gp_q.q_arena, "gather slot");
  else
    arena_reset(sl->gs_a);
  const batch_t *in = ob->ob_b;
  ty_t *types = arena_alloc(sl->gs_a, sizeof(ty_t) * (size_t)(in->b_ncols + 1));
  for (int c = 0; c < in->b_ncols; c++)
    types[c] = in->b_cols[c].v_type;
  batch_t *b = batch_create(sl->gs_a, in->b_ncols, types, ob->ob_n > 0 ? ob->ob_n : 1, e);
  if (!b)
    return CZ_ERR;
  for (int c = 0; c < in->b_ncols; c++) {
    vec_gather(&b->b_cols[c], 0, &in->b_cols[c], ob->ob_sel, ob->ob_n);
    if (ty_phys(types[c].t_id) == TP_STR &&
        vec_copy_strings(sl->gs_a, &b->b_cols[c], 0, ob->ob_n, e) != CZ_OK)
      return CZ_ERR;
  }
  b->b_n = ob->ob_n;
  sl->gs_b = b;
  return CZ_OK;
}

static void gather_task(void *arg)
{
  gpart_t *p = arg;
  gather_run_t *g = p->gp_run;
  ty_tz_use(g->gr_tz);
  int rc = op_open(g->gr_sub, &p->gp_q, &p->gp_err);
  for (;;) {
    obatch_t ob = {0};
    if (rc == CZ_OK)
      rc = op_next(g->gr_sub, &p->gp_q, &ob, &p->gp_err);
    mutex_lock(&g->gr_mx);
    while (rc == CZ_OK && ob.ob_b && p->gp_nfull == GATHER_SLOTS && !g->gr_stop)
      cond_wait(&g->gr_work, &g->gr_mx);
    /* the consumer only empties slots from the head: this one stays free */
    int k = (p->gp_head + p->gp_nfull) % GATHER_SLOTS;
    bool stop = g->gr_stop;
    mutex_unlock(&g->gr_mx);
    if (rc == CZ_OK && ob.ob_b && !stop)
      rc = gather_copy(p, k, &ob, &p->gp_err);
    mutex_lock(&g->gr_mx);
    if (rc != CZ_OK || !ob.ob_b || g->gr_stop) {
      if (rc != CZ_OK && !g->gr_stop) {
        g->gr_failed = p;
        g->gr_stop = true;
        cond_broadcast(&g->gr_work);
      }
      mutex_unlock(&g->gr_mx);
      break;
    }
    p->gp_nfull++;
    cond_broadcast(&g->gr_cons);
    mutex_unlock(&g->gr_mx);
  }
  op_close(g->gr_sub, &p->gp_q);
  mutex_lock(&g->gr_mx);
  p->gp_state = GS_DONE;
  cond_broadcast(&g->gr_cons);
  mutex_unlock(&g->gr_mx);
}

/* Drained: participant p's whole share of the input, each batch handed
 * to gd_batch on this thread. A consumer's "stop" (1) ends every
 * participant's reading without an error. */
static int drain_read(gather_run_t *g, gpart_t *p)
{
  gdrain_t *d = g->gr_drain;
  int rc = op_open(g->gr_sub, &p->gp_q, &p->gp_err);
  while (rc == CZ_OK && !g->gr_halt) {
    obatch_t ob = {0};
    if ((rc = op_next(g->gr_sub, &p->gp_q, &ob, &p->gp_err)) != CZ_OK || !ob.ob_b)
      break;
    p->gp_rows += ob.ob_n;
    if (ob.ob_n > 0)
      rc = d->gd_batch(d->gd_arg, p->gp_rank, &p->gp_q, &ob, &p->gp_err);
    if (rc > 0) {
      g->gr_halt = true;  /* a plain store: read by the others between batches */
      rc = CZ_OK;
    }
  }
  op_close(g->gr_sub, &p->gp_q);
  return rc;
}

/* A participant's input ended (rc its outcome): it waits for the others
 * (the session's thread runs gd_mid when all have arrived) and says
 * whether to go on to gd_part. A failure stops everyone. */
static bool drain_barrier(gather_run_t *g, gpart_t *p, int rc)
{
  mutex_lock(&g->gr_mx);
  if (rc != CZ_OK && !g->gr_stop) {
    g->gr_failed = p;
    g->gr_stop = true;
    cond_broadcast(&g->gr_work);
  }
  g->gr_arrived++;
  cond_broadcast(&g->gr_cons);
  bool go;
  if (p->gp_rank == 0) {
    while (g->gr_arrived < g->gr_nrun && !g->gr_stop)
      cond_wait(&g->gr_cons, &g->gr_mx);
    go = !g->gr_stop && !g->gr_halt;
    if (!go) {
      /* halted (every gr_halt was set before its setter arrived) or
       * stopped: the workers waiting here end without phase 2 */
      g->gr_phase2 = true;
      cond_broadcast(&g->gr_work);
    }
  } else {
    while (!g->gr_phase2 && !g->gr_stop)
      cond_wait(&g->gr_work, &g->gr_mx);
    go = !g->gr_stop && !g->gr_halt;
  }
  mutex_unlock(&g->gr_mx);
  return go;
}

static void drain_fail(gather_run_t *g, gpart_t *p)
{
  mutex_lock(&g->gr_mx);
  if (!g->gr_stop) {
    g->gr_failed = p;
    g->gr_stop = true;
    cond_broadcast(&g->gr_work);
    cond_broadcast(&g->gr_cons);
  }
  mutex_unlock(&g->gr_mx);
}

static void drain_task(void *arg)
{
  gpart_t *p = arg;
  gather_run_t *g = p->gp_run;
  gdrain_t *d = g->gr_drain;
  ty_tz_use(g->gr_tz);
  int rc = drain_read(g, p);
  if (drain_barrier(g, p, rc) && d->gd_part &&
      d->gd_part(d->gd_arg, p->gp_rank, g->gr_nrun, &p->gp_q, &p->gp_err) != CZ_OK)
    drain_fail(g, p);
  mutex_lock(&g->gr_mx);
  p->gp_state = GS_DONE;
  cond_broadcast(&g->gr_cons);
  mutex_unlock(&g->gr_mx);
}

/* Adds what participant context w measured of o and its inputs into the
 * run states of the Gather's context q. */
static void sum_figures(const op_t *o, qctx_t *q, qctx_t *w)
{
  for (; o; o = o->o_in) {
    const opst_t *ws = op_state(o, w);
    if (!ws)
      return;
    /* a lateral join's subplan ran in w (a shared build did not: its
     * figures are the Gather's context's own) */
    if (o->o_in2)
      sum_figures(o->o_in2, q, w);
    size_t size = o->o_vt->ov_run_size ? o->o_vt->ov_run_size : sizeof(opst_t);
    opst_t *ps = qexec_state(q, o, size, true, NULL);
    ps->os_opened = true;
    ps->os_rows += ws->os_rows;
    ps->os_ns += ws->os_ns;
    ps->os_mem += ws->os_mem;
  }
}

/* Stops every participant, waits for the workers, closes the session's
 * run of the subtree, sums the figures and frees the contexts. */
static void gather_finish(const op_t *o, gather_run_t *g, qctx_t *q)
{
  if (!g->gr_live)
    return;
  mutex_lock(&g->gr_mx);
  g->gr_stop = true;
  cond_broadcast(&g->gr_work);
  mutex_unlock(&g->gr_mx);
  qw_release(g->gr_lease);
  g->gr_lease = NULL;
  if (g->gr_n > 0)
    op_close(g->gr_sub, &g->gr_parts[0].gp_q);
  /* Fresh figures per open of the Gather, as for other operators. */
  for (const op_t *s = o->o_in; s; s = s->o_in) {
    opst_t *ps = op_state(s, q);
    if (ps)
      ps->os_rows = ps->os_ns = 0, ps->os_mem = 0;
  }
  for (int i = 0; i < g->gr_n; i++) {
    sum_figures(o->o_in, q, &g->gr_parts[i].gp_q);
    qctx_worker_end(&g->gr_parts[i].gp_q);
  }
  g->gr_n = 0;
  for (int i = 0; i < g->gr_nshares; i++)
    op_join_share_end(g->gr_shares[i]);
  g->gr_nshares = 0;
  cond_destroy(&g->gr_cons);
  cond_destroy(&g->gr_work);
  mutex_destroy(&g->gr_mx);
  g->gr_live = false;
}

static int gather_fail(gather_run_t *g, err_t *e)
{
  if (e)
    *e = g->gr_failed->gp_err;
  return CZ_ERR;
}

/* The session's share failed: stop all. The query's error is the first
 * one (a worker's that made the session's stop, 57014, comes first). */
static int gather_stop_on(gather_run_t *g, gpart_t *p, err_t *e)
{
  mutex_lock(&g->gr_mx);
  if (!g->gr_failed)
    g->gr_failed = p;
  g->gr_stop = true;
  cond_broadcast(&g->gr_work);
  mutex_unlock(&g->gr_mx);
  return gather_fail(g, e);
}

/* The shared builds of the chain's joins, made here in the Gather's
 * context q before any participant runs. One that would spill: the
 * builds made are freed, none is shared, *spills is set (the subtree
 * then runs on this thread alone and its joins build as usual). */
static int gather_builds(const op_gather_t *og, gather_run_t *g, qctx_t *q, bool *spills,
                         err_t *e)
{
  g->gr_nshares = 0;
  if (og->og_njoins == 0)
    return CZ_OK;
  g->gr_shares = arena_zalloc(g->gr_arena, sizeof(jshare_t *) * (size_t)og->og_njoins);
  for (int k = 0; k < og->og_njoins; k++) {
    jshare_t *s;
    if (op_join_share_build(og->og_joins[k], q, g->gr_arena, &s, e) != CZ_OK)
      return CZ_ERR;
    if (!s) {
      *spills = true;
      break;
    }
    g->gr_shares[g->gr_nshares++] = s;
  }
  if (*spills) {
    for (int k = 0; k < g->gr_nshares; k++)
      op_join_share_end(g->gr_shares[k]);
    g->gr_nshares = 0;
  }
  return CZ_OK;
}

static int gather_drain_lead(const op_t *o, gather_run_t *g, qctx_t *q, err_t *e);

/* The key under which op_gather_drain tells the Gather's open of its
 * consumer (in the execution's run states; not the operator's own
 * address, which keys its run state). */
static const void *drain_key(const op_t *o)
{
  return &((const op_gather_t *)o)->og_scan;
}

static int gather_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_gather_t *og = (const op_gather_t *)o;
  gather_run_t *g = (gather_run_t *)st;
  gdrain_t *const *dslot = qexec_state(q, drain_key(o), 0, false, NULL);
  gdrain_t *drain = dslot ? *dslot : NULL;
  gather_finish(o, g, q);  /* a re-open */
  if (!g->gr_arena)
    g->gr_arena = arena_create_scratch(qexec_arena(q), "Gather");
  else
    arena_reset(g->gr_arena);
  g->gr_sub = o->o_in;
  g->gr_stop = false;
  g->gr_taken = -1;
  g->gr_rr = 0;
  g->gr_lead_done = false;
  g->gr_failed = NULL;
  g->gr_lease = NULL;
  g->gr_n = 0;
  mutex_init(&g->gr_mx);
  cond_init(&g->gr_cons);
  cond_init(&g->gr_work);
  g->gr_live = true;

  int threads = q->q_threads > 1 ? q->q_threads : 1;
  bool spills = false;
  if (threads > 1 && gather_builds(og, g, q, &spills, e) != CZ_OK)
    return CZ_ERR;
  if (spills)
    threads = 1;
  scan_par_t *par;
  /* Enough morsels that a slower thread holds up the end by little. */
  int nmorsels = threads * 32 > 4096 ? 4096 : threads * 32;
  if (op_scan_morsels(og->og_scan, q, g->gr_arena, nmorsels, &par, e) != CZ_OK)
    return CZ_ERR;
  if (threads > 1)
    g->gr_lease = qw_acquire(q->q_workers, threads - 1);
  int nw = qw_lease_n(g->gr_lease);
  g->gr_tz = ty_tz_current();
  g->gr_parts = arena_zalloc(g->gr_arena, sizeof(gpart_t) * (size_t)(nw + 1));
  for (int i = 0; i <= nw; i++) {
    gpart_t *p = &g->gr_parts[i];
    if (qctx_worker_init(&p->gp_q, q, e) != CZ_OK)
      return CZ_ERR;
    g->gr_n = i + 1;
    p->gp_run = g;
    p->gp_q.q_cancel = &g->gr_stop;
    p->gp_state = GS_RUN;
    op_scan_use_morsels(og->og_scan, &p->gp_q, par);
    for (int k = 0; k < g->gr_nshares; k++)
      op_join_share_use(og->og_joins[k], &p->gp_q, g->gr_shares[k]);
  }
  /* Workers first: opening the subtree may read all of it (a partial
   * group-by does), and the session's share must not be all of it. */
  g->gr_drain = drain;
  g->gr_nrun = 1;
  g->gr_arrived = 0;
  g->gr_phase2 = g->gr_halt = false;
  for (int i = 1; i <= nw; i++) {
    gpart_t *p = &g->gr_parts[i];
    err_t se;
    err_clear(&se);
    p->gp_rank = g->gr_nrun;
    if (qw_start(g->gr_lease, drain ? drain_task : gather_task, p, &se) == CZ_OK) {
      p->gp_started = true;
      g->gr_nrun++;
    } else
      p->gp_state = GS_DONE;  /* no thread: the others read its share */
  }
  int launched = g->gr_nrun - 1;
  st->os_note = arena_sprintf(qexec_arena(q), "workers launched=%d%s", launched,
                              spills ? " (a build spills: one thread)" : "");
  gpart_t *lead = &g->gr_parts[0];
  if (drain)
    return gather_drain_lead(o, g, q, e);
  if (op_open(g->gr_sub, &lead->gp_q, &lead->gp_err) != CZ_OK)
    return gather_stop_on(g, lead, e);
  return CZ_OK;
}

/* Drained: the session's thread reads its share, waits for the others,
 * runs gd_mid, then its gd_part beside the workers'; the rows all
 * participants read are the Gather's (EXPLAIN ANALYZE). Everything has
 * stopped and is freed when it returns. */
static int gather_drain_lead(const op_t *o, gather_run_t *g, qctx_t *q, err_t *e)
{
  gpart_t *lead = &g->gr_parts[0];
  gdrain_t *d = g->gr_drain;
  int rc = drain_read(g, lead);
  if (drain_barrier(g, lead, rc)) {
    if (d->gd_mid && d->gd_mid(d->gd_arg, g->gr_nrun, q, &lead->gp_err) != CZ_OK) {
      drain_fail(g, lead);
    } else {
      mutex_lock(&g->gr_mx);
      g->gr_phase2 = true;
      cond_broadcast(&g->gr_work);
      mutex_unlock(&g->gr_mx);
      if (d->gd_part && d->gd_part(d->gd_arg, 0, g->gr_nrun, &lead->gp_q, &lead->gp_err) != CZ_OK)
        drain_fail(g, lead);
    }
  }
  /* every worker's phases end before the stop flag is raised: a worker
   * still waiting at the barrier must not read it as a stop */
  mutex_lock(&g->gr_mx);
  for (int i = 1; i < g->gr_n; i++)
    while (g->gr_parts[i].gp_started && g->gr_parts[i].gp_state != GS_DONE)
      cond_wait(&g->gr_cons, &g->gr_mx);
  mutex_unlock(&g->gr_mx);
  int64_t rows = 0;
  for (int i = 0; i < g->gr_n; i++)
    rows += g->gr_parts[i].gp_rows;
  d->gd_halted = g->gr_halt;
  gpart_t *failed = NULL;
  err_t fe;
  gather_finish(o, g, q);  /* waits for every worker */
  if (g->gr_failed) {
    failed = g->gr_failed;
    fe = failed->gp_err;
  }
  opst_t *st = &g->gr_st;
  st->os_rows = rows;
  if (failed) {
    if (e)
      *e = fe;
    return CZ_ERR;
  }
  return CZ_OK;
}

static int gather_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  gather_run_t *g = (gather_run_t *)st;
  if (!g->gr_live)
    return CZ_OK;
  mutex_lock(&g->gr_mx);
  if (g->gr_taken > 0) {
    gpart_t *p = &g->gr_parts[g->gr_taken];
    p->gp_head = (p->gp_head + 1) % GATHER_SLOTS;
    p->gp_nfull--;
    g->gr_taken = -1;
    cond_broadcast(&g->gr_work);
  }
  for (;;) {
    if (g->gr_failed) {
      mutex_unlock(&g->gr_mx);
      return gather_fail(g, e);
    }
    int ready = -1;
    bool running = false;
    for (int k = 0; k < g->gr_n - 1; k++) {
      int i = 1 + (g->gr_rr + k) % (g->gr_n - 1);
      if (g->gr_parts[i].gp_nfull > 0) {
        ready = i;
        break;
      }
      running |= g->gr_parts[i].gp_state != GS_DONE;
    }
    if (ready > 0) {
      gpart_t *p = &g->gr_parts[ready];
      g->gr_taken = ready;
      g->gr_rr = ready;
      batch_t *b = p->gp_slots[p->gp_head].gs_b;
      *out = (obatch_t){.ob_b = b, .ob_sel = NULL, .ob_n = b->b_n};
      mutex_unlock(&g->gr_mx);
      return CZ_OK;
    }
    if (!g->gr_lead_done) {
      mutex_unlock(&g->gr_mx);
      gpart_t *p = &g->gr_parts[0];
      if (op_next(g->gr_sub, &p->gp_q, out, &p->gp_err) != CZ_OK)
        return gather_stop_on(g, p, e);
      if (out->ob_b)
        return CZ_OK;
      mutex_lock(&g->gr_mx);
      g->gr_lead_done = true;
      continue;
    }
    if (!running) {
      mutex_unlock(&g->gr_mx);
      gather_finish(o, g, q);
      out->ob_b = NULL;
      return CZ_OK;
    }
    cond_wait(&g->gr_cons, &g->gr_mx);
  }
}

static void gather_close(const op_t *o, opst_t *st, qctx_t *q)
{
  gather_finish(o, (gather_run_t *)st, q);
}

static char *gather_detail(const op_t *o, arena_t *a)
{
  return arena_sprintf(a, "(workers planned=%d)", ((const op_gather_t *)o)->og_workers);
}

static const op_vt_t gather_vt = {
    .ov_name = "Gather",
    .ov_open = gather_open,
    .ov_next = gather_next,
    .ov_close = gather_close,
    .ov_detail = gather_detail,
    .ov_run_size = sizeof(gather_run_t),
};

bool op_is_gather(const op_t *o)
{
  return o && o->o_vt == &gather_vt;
}

int op_gather_drain(const op_t *o, qctx_t *q, gdrain_t *d, err_t *e)
{
  gdrain_t **slot = qexec_state(q, drain_key(o), sizeof(gdrain_t *), true, NULL);
  d->gd_halted = false;
  *slot = d;
  int rc = op_open(o, q, e);
  *slot = NULL;
  op_close(o, q);
  return rc;
}

/* The operators of a chain that give the same rows (as a multiset) when
 * their first input is split: each input row's output depends on that
 * row alone (a join's second input is whole in every participant). */
static bool gather_splits(const op_t *o)
{
  static const char *const ok[] = {"Filter",         "Project",        "LookupJoin",
                                   "LookupSemiJoin", "LookupAntiJoin", "Nested Loop Lateral"};
  if (op_is_index_join(o))
    return true;
  for (size_t i = 0; i < CZ_ARRAY_LEN(ok); i++)
    if (strcmp(o->o_vt->ov_name, ok[i]) == 0)
      return true;
  return op_join_shareable(o);
}

const op_t *op_gather_driver(const op_t *in)
{
  const op_t *o = in;
  /* a group-by only at the top: it is a partial one a final group-by
   * above the Gather merges (below a join or a filter it would not be),
   * or a streaming one over a scan split on group boundaries, whose
   * groups are whole in each thread */
  /* (HAVING and projections above a streaming one: its groups are whole) */
  const op_t *g = o;
  while (g->o_in && (strcmp(g->o_vt->ov_name, "Filter") == 0 ||
                     strcmp(g->o_vt->ov_name, "Project") == 0))
    g = g->o_in;
  bool aligned = op_is_groupagg(g);
  if (aligned)
    o = g;
  if (strcmp(o->o_vt->ov_name, "HashAggregate") == 0 || aligned) {
    if (!o->o_in)
      return NULL;
    o = o->o_in;
  }
  for (; o->o_in; o = o->o_in)
    if (!gather_splits(o))
      return NULL;
  if (aligned && !op_scan_aligned(o))
    return NULL;
  return op_scan_splittable(o) ? o : NULL;
}

bool op_gather_ok(const op_t *in)
{
  return op_gather_driver(in) != NULL;
}

/* Whether o's own expressions (a filter's or a projection's) satisfy safe;
 * the joins of a pipeline test conjuncts the planner found safe. */
static bool chain_op_safe(const op_t *o, bool (*safe)(const xnode_t *x))
{
  if (strcmp(o->o_vt->ov_name, "Filter") == 0)
    return safe(op_filter_cond(o));
  if (strcmp(o->o_vt->ov_name, "Project") == 0) {
    xnode_t **x = op_project_exprs(o);
    for (int i = 0; i < o->o_ncols; i++)
      if (!safe(x[i]))
        return false;
  }
  return true;
}

const op_t *op_gather_inner(const op_t *in, bool (*safe)(const xnode_t *x))
{
  const op_t *o = in;
  for (; o && !op_is_gather(o); o = o->o_in)
    if (!gather_splits(o) || !chain_op_safe(o, safe))
      return NULL;
  if (!o || o == in || op_is_groupagg(o->o_in) ||
      strcmp(o->o_in->o_vt->ov_name, "HashAggregate") == 0 || !op_gather_driver(o->o_in))
    return NULL;
  return o;
}

void op_gather_lift(op_t *in, const op_t *gather)
{
  for (op_t *o = in; o; o = o->o_in)
    if (o->o_in == gather) {
      o->o_in = gather->o_in;
      return;
    }
}

op_t *op_gather_new(arena_t *a, op_t *in, int workers)
{
  if (!op_gather_ok(in))
    return NULL;
  op_gather_t *g = arena_zalloc(a, sizeof(*g));
  op_init(&g->og_op, &gather_vt, a, in->o_ncols, in->o_types, in, NULL);
  g->og_scan = op_gather_driver(in);
  for (const op_t *s = in; s->o_in; s = s->o_in)
    if (op_join_shareable(s))
      g->og_njoins++;
  g->og_joins = arena_alloc(a, sizeof(op_t *) * (size_t)(g->og_njoins + 1));
  int k = 0;
  for (const op_t *s = in; s->o_in; s = s->o_in)
    if (op_join_shareable(s))
      g->og_joins[k++] = s;
  g->og_workers = workers;
  g->og_op.o_est_rows = in->o_est_rows;
  g->og_op.o_est_cost = in->o_est_cost;
  return &g->og_op;
}
