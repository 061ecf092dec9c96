/* thread — threads, a worker pool, mutexes, condition waits and the
 * read-write latch that guards buffer pages and other shared structures.
 *
 * Design notes: mutexes and condition variables are thin, checked wrappers
 * over pthreads (a failing pthread call is a bug: it logs and aborts). The
 * latch is our own: a word of atomic state, spinning briefly then sleeping on
 * a futex, writer-preferring so a stream of readers cannot starve a writer.
 * It may be released by a thread other than the one that took it (a B-tree
 * cursor may migrate between worker threads). See thread/README.md.
 */
#ifndef CZ_THREAD_H
#define CZ_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/util.h"

/* ---- threads ----------------------------------------------------------- */

typedef struct cz_thread_s {
  pthread_t th_id;
} cz_thread_t;

int thread_start(cz_thread_t *t, void *(*fn)(void *), void *arg, err_t *e);
void thread_join(cz_thread_t *t);
/* Names the calling thread (shown by gdb and top); at most 15 chars used. */
void thread_set_name(const char *name);

/* Blocking hints. A thread about to wait for something only another
 * session can bring about (a row lock held by a transaction whose COMMIT
 * has not arrived yet, a checkpoint gate) says so, so that the pool it
 * belongs to can run another thread meanwhile: without that, a pool whose
 * every thread waits for locks held by idle sessions would stop for good.
 * The handler is per thread (set by the pool's threads at start); threads
 * without one ignore the hints. Hints nest: only the outermost pair calls
 * the handler. */
typedef void (*thread_block_fn_t)(void *ctx, bool blocking);
void thread_set_block_handler(thread_block_fn_t fn, void *ctx);
void thread_block_begin(void);
void thread_block_end(void);

/* ---- mutexes and condition waits --------------------------------------- */

typedef struct cz_mutex_s {
  pthread_mutex_t mx_m;
} cz_mutex_t;

typedef struct cz_cond_s {
  pthread_cond_t cv_c; /* CLOCK_MONOTONIC */
} cz_cond_t;

void mutex_init(cz_mutex_t *m);
void mutex_destroy(cz_mutex_t *m);
void mutex_lock(cz_mutex_t *m);
bool mutex_trylock(cz_mutex_t *m);
void mutex_unlock(cz_mutex_t *m);

void cond_init(cz_cond_t *c);
void cond_destroy(cz_cond_t *c);
void cond_wait(cz_cond_t *c, cz_mutex_t *m);
/* Returns false on timeout. */
bool cond_timedwait(cz_cond_t *c, cz_mutex_t *m, uint64_t timeout_us);
void cond_signal(cz_cond_t *c);
void cond_broadcast(cz_cond_t *c);

/* ---- read-write latch -------------------------------------------------- */

/* 4 bytes of state, no allocation; zero-initialised memory is an unlatched
 * latch, so arrays of frames can be calloc'ed. */
typedef struct rwlatch_s {
  _Atomic uint32_t rl_state; /* bit 31 writer holds, bit 30 writers waiting, low bits reader count */
} rwlatch_t;

void rwl_init(rwlatch_t *l);
void rwl_lock_shared(rwlatch_t *l);
void rwl_lock_excl(rwlatch_t *l);
bool rwl_try_shared(rwlatch_t *l);
bool rwl_try_excl(rwlatch_t *l);
void rwl_unlock_shared(rwlatch_t *l);
void rwl_unlock_excl(rwlatch_t *l);
bool rwl_is_excl(const rwlatch_t *l); /* for assertions */

/* ---- worker pool ------------------------------------------------------- */

typedef struct wpool_s wpool_t;
typedef void (*wpool_fn_t)(void *arg);

/* A fixed set of threads taking tasks from a bounded FIFO queue. */
wpool_t *wpool_create(int n_threads, int queue_cap, const char *name, err_t *e);
/* Blocks while the queue is full. */
int wpool_submit(wpool_t *p, wpool_fn_t fn, void *arg, err_t *e);
/* Returns false at once when the queue is full. */
bool wpool_try_submit(wpool_t *p, wpool_fn_t fn, void *arg);
/* Waits until every submitted task has finished. */
void wpool_wait_idle(wpool_t *p);
/* Runs what is queued, then stops and joins the threads. */
void wpool_destroy(wpool_t *p);
int wpool_n_threads(const wpool_t *p);

/* ---- query workers (qworkers.c) ----------------------------------------
 * The server's threads for parallel queries, bounded server-wide: a query
 * leases up to ThreadsPerQuery - 1 extra workers and gets what is free now
 * (never waiting: with none it runs on its own thread), starts one task
 * on each and gives them back at the end (README rules 11-14). */
typedef struct qw_pool_s qw_pool_t;
typedef struct qw_lease_s qw_lease_t;
typedef void (*qw_task_fn_t)(void *arg);

typedef struct qw_stats_s {
  int qs_in_use;                /* slots leased now */
  int qs_running;               /* tasks running now */
  int qs_threads;               /* threads started so far (<= the limit) */
  int qs_peak_in_use;           /* most slots leased at once */
  int qs_peak_running;          /* most tasks running at once */
  uint64_t qs_granted;          /* slots granted in all */
  uint64_t qs_refused;          /* slots asked for and not granted (none free) */
  uint64_t qs_tasks;            /* tasks run */
} qw_stats_t;

/* A pool of at most max threads (0: no worker ever), started on first
 * need; name names them (15 chars). max < 0 is F0000 (a bad configuration). */
qw_pool_t *qw_pool_create(int max, const char *name, err_t *e);
/* Stops and joins the threads; every lease must have been released. */
void qw_pool_destroy(qw_pool_t *p);
int qw_pool_max(const qw_pool_t *p);
void qw_pool_stats(qw_pool_t *p, qw_stats_t *out);

/* Leases min(want, free) workers at once, without waiting; NULL when none
 * was asked for or p is NULL (every call below takes a NULL lease as one
 * of 0 workers). A lease of 0 workers is a valid lease. */
qw_lease_t *qw_acquire(qw_pool_t *p, int want);
/* The workers leased. */
int qw_lease_n(const qw_lease_t *l);
/* Runs fn(arg) on one of the lease's workers (at most qw_lease_n tasks
 * per lease): CZ_OK; 1 when the lease has no worker left; CZ_ERR when no
 * thread could be started (that slot is given back: run the work on the
 * calling thread). */
int qw_start(qw_lease_t *l, qw_task_fn_t fn, void *arg, err_t *e);
/* Asks the lease's tasks to stop: those not begun are dropped, running
 * ones see qw_stopping (they must poll it, or their query's cancel flag). */
void qw_stop(qw_lease_t *l);
bool qw_stopping(const qw_lease_t *l);
/* Waits until every task started on the lease has ended (or was dropped). */
void qw_wait(qw_lease_t *l);
/* qw_stop, qw_wait, then the workers go back to the pool and l is freed:
 * on every path (end, error, cancel) a query calls it exactly once, after
 * which nothing runs on its behalf. */
void qw_release(qw_lease_t *l);

#endif /* CZ_THREAD_H */
