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

#endif /* CZ_THREAD_H */
