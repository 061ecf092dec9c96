/* qworkers — the server's query worker threads: a query leases up to a
 * few extra threads for a parallel part of its plan, gets only what is
 * free under the server-wide limit (never waiting), runs one task on each
 * and gives them back at the end.
 *
 * Design notes (thread/README.md, rules 11-14):
 * - Slots, not threads, are leased: p_in_use counts the slots all leases
 *   hold and never passes p_max ([Parameters] MaxQueryThreads), so the
 *   query threads running at once (tasks) stay within it whatever the
 *   number of sessions. qw_acquire takes min(want, free) at once: a query
 *   that finds none runs on its own thread only.
 * - Threads start on first need and then stay, waiting for tasks: a task
 *   is queued and an idle thread woken, or a thread started when fewer
 *   are idle than tasks wait. Tasks queued + tasks running <= slots
 *   leased <= p_max, so at most p_max threads ever start and the queue
 *   (p_max entries) never overflows.
 * - Cancel safety: qw_release raises the lease's stop flag (tasks not yet
 *   begun are dropped, running ones see qw_stopping), waits until none of
 *   its tasks runs, and only then returns the slots and frees the lease —
 *   so whatever the task's argument points at may be freed after
 *   qw_release, on every path (end, error, cancel). Running tasks are
 *   never interrupted: they must poll qw_stopping (or their query's
 *   cancel flag) between batches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thread/thread.h"

typedef struct qw_task_s {
  qw_task_fn_t tk_fn;
  void *tk_arg;
  qw_lease_t *tk_lease;
} qw_task_t;

struct qw_pool_s {
  cz_mutex_t p_mx;
  cz_cond_t p_work;             /* a task was queued, or the pool stops */
  cz_cond_t p_done;             /* a task ended (qw_wait, qw_release) */
  int p_max;                    /* MaxQueryThreads: slots in all */
  int p_in_use;                 /* slots leased now */
  int p_nthreads;               /* threads started (<= p_max) */
  int p_idle;                   /* threads waiting on p_work */
  int p_running;                /* tasks running now */
  cz_thread_t *p_threads;       /* [p_max] */
  qw_task_t *p_queue;           /* ring of p_max tasks */
  int p_head, p_count;
  bool p_stopping;
  qw_stats_t p_stats;
  char p_name[16];
};

struct qw_lease_s {
  qw_pool_t *l_pool;
  int l_n;                      /* slots granted */
  int l_started;                /* tasks started on them */
  int l_pending;                /* started and not yet ended (queued or running) */
  _Atomic bool l_stop;          /* qw_stop / qw_release: drop queued tasks */
};

static void *qw_thread_main(void *arg)
{
  qw_pool_t *p = arg;
  thread_set_name(p->p_name);
  mutex_lock(&p->p_mx);
  for (;;) {
    while (p->p_count == 0 && !p->p_stopping) {
      p->p_idle++;
      cond_wait(&p->p_work, &p->p_mx);
      p->p_idle--;
    }
    if (p->p_count == 0)
      break;  /* stopping, nothing left */
    qw_task_t tk = p->p_queue[p->p_head];
    p->p_head = (p->p_head + 1) % p->p_max;
    p->p_count--;
    bool run = !atomic_load(&tk.tk_lease->l_stop);
    if (run) {
      p->p_running++;
      if (p->p_running > p->p_stats.qs_peak_running)
        p->p_stats.qs_peak_running = p->p_running;
      p->p_stats.qs_tasks++;
    }
    mutex_unlock(&p->p_mx);
    if (run)
      tk.tk_fn(tk.tk_arg);
    mutex_lock(&p->p_mx);
    if (run)
      p->p_running--;
    tk.tk_lease->l_pending--;
    cond_broadcast(&p->p_done);
  }
  mutex_unlock(&p->p_mx);
  return NULL;
}

qw_pool_t *qw_pool_create(int max, const char *name, err_t *e)
{
  if (max < 0) {
    err_set(e, SQLSTATE_CONFIG, "query worker threads must not be negative (%d)", max);
    return NULL;
  }
  qw_pool_t *p = calloc(1, sizeof *p);
  if (p && max > 0) {
    p->p_threads = calloc((size_t)max, sizeof *p->p_threads);
    p->p_queue = calloc((size_t)max, sizeof *p->p_queue);
  }
  if (!p || (max > 0 && (!p->p_threads || !p->p_queue))) {
    if (p) {
      free(p->p_threads);
      free(p->p_queue);
    }
    free(p);
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for %d query workers", max);
    return NULL;
  }
  mutex_init(&p->p_mx);
  cond_init(&p->p_work);
  cond_init(&p->p_done);
  p->p_max = max;
  snprintf(p->p_name, sizeof p->p_name, "%s", name ? name : "cz-query");
  return p;
}

void qw_pool_destroy(qw_pool_t *p)
{
  if (!p)
    return;
  mutex_lock(&p->p_mx);
  if (p->p_in_use > 0)
    log_error("query workers: %d leased slots at shutdown", p->p_in_use);
  p->p_stopping = true;
  cond_broadcast(&p->p_work);
  int n = p->p_nthreads;
  mutex_unlock(&p->p_mx);
  for (int i = 0; i < n; i++)
    thread_join(&p->p_threads[i]);
  cond_destroy(&p->p_done);
  cond_destroy(&p->p_work);
  mutex_destroy(&p->p_mx);
  free(p->p_threads);
  free(p->p_queue);
  free(p);
}

int qw_pool_max(const qw_pool_t *p)
{
  return p ? p->p_max : 0;
}

void qw_pool_stats(qw_pool_t *p, qw_stats_t *out)
{
  memset(out, 0, sizeof *out);
  if (!p)
    return;
  mutex_lock(&p->p_mx);
  *out = p->p_stats;
  out->qs_in_use = p->p_in_use;
  out->qs_running = p->p_running;
  out->qs_threads = p->p_nthreads;
  mutex_unlock(&p->p_mx);
}

qw_lease_t *qw_acquire(qw_pool_t *p, int want)
{
  if (!p || want <= 0)
    return NULL;
  qw_lease_t *l = calloc(1, sizeof *l);
  if (!l)
    return NULL;  /* no memory: the query runs alone */
  l->l_pool = p;
  atomic_init(&l->l_stop, false);
  mutex_lock(&p->p_mx);
  int free_slots = p->p_stopping ? 0 : p->p_max - p->p_in_use;
  int g = want < free_slots ? want : free_slots;
  p->p_in_use += g;
  if (p->p_in_use > p->p_stats.qs_peak_in_use)
    p->p_stats.qs_peak_in_use = p->p_in_use;
  p->p_stats.qs_granted += (uint64_t)g;
  p->p_stats.qs_refused += (uint64_t)(want - g);
  mutex_unlock(&p->p_mx);
  l->l_n = g;
  return l;
}

int qw_lease_n(const qw_lease_t *l)
{
  return l ? l->l_n : 0;
}

int qw_start(qw_lease_t *l, qw_task_fn_t fn, void *arg, err_t *e)
{
  if (!l || l->l_started >= l->l_n)
    return 1;
  qw_pool_t *p = l->l_pool;
  mutex_lock(&p->p_mx);
  if (p->p_idle <= p->p_count && p->p_nthreads < p->p_max) {
    /* fewer idle threads than queued tasks (this one included): one more */
    if (thread_start(&p->p_threads[p->p_nthreads], qw_thread_main, p, e) != CZ_OK) {
      /* the slot goes back: the caller does this part itself */
      l->l_n--;
      p->p_in_use--;
      mutex_unlock(&p->p_mx);
      return CZ_ERR;
    }
    p->p_nthreads++;
  }
  p->p_queue[(p->p_head + p->p_count) % p->p_max] = (qw_task_t){fn, arg, l};
  p->p_count++;
  l->l_started++;
  l->l_pending++;
  cond_signal(&p->p_work);
  mutex_unlock(&p->p_mx);
  return CZ_OK;
}

void qw_stop(qw_lease_t *l)
{
  if (l)
    atomic_store(&l->l_stop, true);
}

bool qw_stopping(const qw_lease_t *l)
{
  return l && atomic_load(&((qw_lease_t *)l)->l_stop);
}

void qw_wait(qw_lease_t *l)
{
  if (!l)
    return;
  qw_pool_t *p = l->l_pool;
  mutex_lock(&p->p_mx);
  while (l->l_pending > 0)
    cond_wait(&p->p_done, &p->p_mx);
  mutex_unlock(&p->p_mx);
}

void qw_release(qw_lease_t *l)
{
  if (!l)
    return;
  qw_stop(l);
  qw_wait(l);
  qw_pool_t *p = l->l_pool;
  mutex_lock(&p->p_mx);
  p->p_in_use -= l->l_n;
  mutex_unlock(&p->p_mx);
  free(l);
}
