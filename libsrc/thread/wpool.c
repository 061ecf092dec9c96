/* wpool — a fixed set of worker threads fed from a bounded FIFO queue.
 *
 * Design notes: one mutex guards the ring of tasks and the counters; three
 * conditions say "queue not empty" (workers wait), "queue not full"
 * (submitters wait) and "idle" (wpool_wait_idle waits for an empty queue
 * with no task running). The bound gives back-pressure: a producer faster
 * than the workers blocks instead of growing memory. A task must not
 * wpool_submit to its own pool when the queue may be full, nor call
 * wpool_wait_idle or wpool_destroy on it: every worker could end up waiting
 * on itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thread/thread_int.h"

typedef struct wpool_task_s {
  wpool_fn_t wt_fn;
  void *wt_arg;
} wpool_task_t;

struct wpool_s {
  cz_mutex_t wp_mutex;
  cz_cond_t wp_not_empty;
  cz_cond_t wp_not_full;
  cz_cond_t wp_idle;
  wpool_task_t *wp_ring;
  int wp_cap;
  int wp_head;      /* index of the oldest queued task */
  int wp_count;     /* queued, not yet taken */
  int wp_running;   /* taken by a worker, not yet finished */
  bool wp_stopping; /* set by wpool_destroy: workers exit once the queue is empty */
  int wp_n_threads;
  cz_thread_t *wp_threads;
  char wp_name[16];
};

static void *wpool_worker(void *arg)
{
  wpool_t *p = arg;

  thread_set_name(p->wp_name);
  mutex_lock(&p->wp_mutex);
  for (;;) {
    wpool_task_t t;
    while (p->wp_count == 0 && !p->wp_stopping)
      cond_wait(&p->wp_not_empty, &p->wp_mutex);
    if (p->wp_count == 0)
      break;
    t = p->wp_ring[p->wp_head];
    p->wp_head = (p->wp_head + 1) % p->wp_cap;
    p->wp_count--;
    p->wp_running++;
    cond_signal(&p->wp_not_full);
    mutex_unlock(&p->wp_mutex);

    t.wt_fn(t.wt_arg);

    mutex_lock(&p->wp_mutex);
    p->wp_running--;
    if (p->wp_count == 0 && p->wp_running == 0)
      cond_broadcast(&p->wp_idle);
  }
  mutex_unlock(&p->wp_mutex);
  return NULL;
}

static void wpool_free(wpool_t *p)
{
  cond_destroy(&p->wp_idle);
  cond_destroy(&p->wp_not_full);
  cond_destroy(&p->wp_not_empty);
  mutex_destroy(&p->wp_mutex);
  free(p->wp_threads);
  free(p->wp_ring);
  free(p);
}

/* Stops and joins the first n threads; the queue drains first. */
static void wpool_stop(wpool_t *p, int n)
{
  mutex_lock(&p->wp_mutex);
  p->wp_stopping = true;
  cond_broadcast(&p->wp_not_empty);
  cond_broadcast(&p->wp_not_full);
  mutex_unlock(&p->wp_mutex);
  for (int i = 0; i < n; i++)
    thread_join(&p->wp_threads[i]);
}

wpool_t *wpool_create(int n_threads, int queue_cap, const char *name, err_t *e)
{
  wpool_t *p;

  if (n_threads <= 0 || queue_cap <= 0) {
    err_set(e, SQLSTATE_INVALID_PARAMETER, "wpool %s: need at least one thread and one queue slot",
            name ? name : "");
    return NULL;
  }
  p = calloc(1, sizeof *p);
  if (!p || !(p->wp_ring = calloc((size_t)queue_cap, sizeof *p->wp_ring)) ||
      !(p->wp_threads = calloc((size_t)n_threads, sizeof *p->wp_threads))) {
    if (p)
      free(p->wp_ring);
    free(p);
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "wpool %s: out of memory", name ? name : "");
    return NULL;
  }
  snprintf(p->wp_name, sizeof p->wp_name, "%s", name ? name : "wpool");
  p->wp_cap = queue_cap;
  p->wp_n_threads = n_threads;
  mutex_init(&p->wp_mutex);
  cond_init(&p->wp_not_empty);
  cond_init(&p->wp_not_full);
  cond_init(&p->wp_idle);
  for (int i = 0; i < n_threads; i++) {
    if (thread_start(&p->wp_threads[i], wpool_worker, p, e) != CZ_OK) {
      err_prefix(e, "wpool %s", p->wp_name);
      wpool_stop(p, i);
      wpool_free(p);
      return NULL;
    }
  }
  return p;
}

static void wpool_push(wpool_t *p, wpool_fn_t fn, void *arg)
{
  int tail = (p->wp_head + p->wp_count) % p->wp_cap;
  p->wp_ring[tail] = (wpool_task_t){fn, arg};
  p->wp_count++;
  cond_signal(&p->wp_not_empty);
}

int wpool_submit(wpool_t *p, wpool_fn_t fn, void *arg, err_t *e)
{
  mutex_lock(&p->wp_mutex);
  while (p->wp_count == p->wp_cap && !p->wp_stopping)
    cond_wait(&p->wp_not_full, &p->wp_mutex);
  if (p->wp_stopping) {
    mutex_unlock(&p->wp_mutex);
    return err_set(e, SQLSTATE_OBJECT_IN_USE, "wpool %s is shutting down", p->wp_name);
  }
  wpool_push(p, fn, arg);
  mutex_unlock(&p->wp_mutex);
  return CZ_OK;
}

bool wpool_try_submit(wpool_t *p, wpool_fn_t fn, void *arg)
{
  bool ok;
  mutex_lock(&p->wp_mutex);
  ok = p->wp_count < p->wp_cap && !p->wp_stopping;
  if (ok)
    wpool_push(p, fn, arg);
  mutex_unlock(&p->wp_mutex);
  return ok;
}

void wpool_wait_idle(wpool_t *p)
{
  mutex_lock(&p->wp_mutex);
  while (p->wp_count > 0 || p->wp_running > 0)
    cond_wait(&p->wp_idle, &p->wp_mutex);
  mutex_unlock(&p->wp_mutex);
}

void wpool_destroy(wpool_t *p)
{
  if (!p)
    return;
  wpool_stop(p, p->wp_n_threads);
  wpool_free(p);
}

int wpool_n_threads(const wpool_t *p)
{
  return p->wp_n_threads;
}
