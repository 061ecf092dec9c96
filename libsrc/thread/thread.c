/* thread — threads, mutexes and condition waits: checked pthread wrappers.
 *
 * Design notes: failures of mutex and condition calls are bugs (see
 * thread_int.h) and abort; starting a thread can fail for want of resources,
 * so thread_start alone reports an err_t. Condition variables run on
 * CLOCK_MONOTONIC so that timeouts survive changes of the wall clock. Debug
 * builds make mutexes error-checking, which turns a double lock or an unlock
 * by a non-owner into an abort at the faulty call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "thread/thread_int.h"

void th_check_failed(int rc, const char *call)
{
  if (rc == 0)
    log_error("%s", call);
  else
    log_error("%s failed: %s", call, strerror(rc));
  abort();
}

typedef struct th_boot_s {
  void *(*tb_fn)(void *);
  void *tb_arg;
} th_boot_t;

/* Every thread gets its alternate signal stack before it runs anything, so
 * that a stack overflow on it is logged (util/crash.c). */
static void *th_boot(void *p)
{
  th_boot_t b = *(th_boot_t *)p;
  free(p);
  crash_thread_init();
  return b.tb_fn(b.tb_arg);
}

int thread_start(cz_thread_t *t, void *(*fn)(void *), void *arg, err_t *e)
{
  th_boot_t *b = malloc(sizeof *b);
  if (!b)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "cannot start thread: out of memory");
  b->tb_fn = fn;
  b->tb_arg = arg;
  int rc = pthread_create(&t->th_id, NULL, th_boot, b);
  if (rc != 0) {
    free(b);
    return err_set(e, rc == EAGAIN ? SQLSTATE_OUT_OF_MEMORY : SQLSTATE_INTERNAL,
                   "cannot start thread: %s", strerror(rc));
  }
  return CZ_OK;
}

void thread_join(cz_thread_t *t)
{
  th_check(pthread_join(t->th_id, NULL), "pthread_join");
}

void thread_set_name(const char *name)
{
  char buf[16];
  snprintf(buf, sizeof buf, "%.15s", name);
  /* Naming is cosmetic; a failure is not worth stopping for. */
  (void)pthread_setname_np(pthread_self(), buf);
}

static _Thread_local thread_block_fn_t th_block_fn;
static _Thread_local void *th_block_ctx;
static _Thread_local int th_block_depth;

void thread_set_block_handler(thread_block_fn_t fn, void *ctx)
{
  th_block_fn = fn;
  th_block_ctx = ctx;
  th_block_depth = 0;
}

void thread_block_begin(void)
{
  if (th_block_depth++ == 0 && th_block_fn)
    th_block_fn(th_block_ctx, true);
}

void thread_block_end(void)
{
  if (--th_block_depth == 0 && th_block_fn)
    th_block_fn(th_block_ctx, false);
}

void mutex_init(cz_mutex_t *m)
{
  pthread_mutexattr_t at;
  th_check(pthread_mutexattr_init(&at), "pthread_mutexattr_init");
#ifdef CZ_DEBUG
  th_check(pthread_mutexattr_settype(&at, PTHREAD_MUTEX_ERRORCHECK), "pthread_mutexattr_settype");
#endif
  th_check(pthread_mutex_init(&m->mx_m, &at), "pthread_mutex_init");
  pthread_mutexattr_destroy(&at);
}

void mutex_destroy(cz_mutex_t *m)
{
  th_check(pthread_mutex_destroy(&m->mx_m), "pthread_mutex_destroy");
}

void mutex_lock(cz_mutex_t *m)
{
  th_check(pthread_mutex_lock(&m->mx_m), "pthread_mutex_lock");
}

bool mutex_trylock(cz_mutex_t *m)
{
  int rc = pthread_mutex_trylock(&m->mx_m);
  if (rc == EBUSY)
    return false;
  th_check(rc, "pthread_mutex_trylock");
  return true;
}

void mutex_unlock(cz_mutex_t *m)
{
  th_check(pthread_mutex_unlock(&m->mx_m), "pthread_mutex_unlock");
}

void cond_init(cz_cond_t *c)
{
  pthread_condattr_t at;
  th_check(pthread_condattr_init(&at), "pthread_condattr_init");
  th_check(pthread_condattr_setclock(&at, CLOCK_MONOTONIC), "pthread_condattr_setclock");
  th_check(pthread_cond_init(&c->cv_c, &at), "pthread_cond_init");
  pthread_condattr_destroy(&at);
}

void cond_destroy(cz_cond_t *c)
{
  th_check(pthread_cond_destroy(&c->cv_c), "pthread_cond_destroy");
}

void cond_wait(cz_cond_t *c, cz_mutex_t *m)
{
  th_check(pthread_cond_wait(&c->cv_c, &m->mx_m), "pthread_cond_wait");
}

bool cond_timedwait(cz_cond_t *c, cz_mutex_t *m, uint64_t timeout_us)
{
  struct timespec ts;
  uint64_t ns;
  int rc;

  /* A century is forever, and keeps tv_sec from overflowing. */
  timeout_us = CZ_MIN(timeout_us, (uint64_t)100 * 365 * 86400 * 1000000);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ns = (uint64_t)ts.tv_nsec + (timeout_us % 1000000u) * 1000u;
  ts.tv_sec += (time_t)(timeout_us / 1000000u + ns / 1000000000u);
  ts.tv_nsec = (long)(ns % 1000000000u);
  rc = pthread_cond_timedwait(&c->cv_c, &m->mx_m, &ts);
  if (rc == ETIMEDOUT)
    return false;
  th_check(rc, "pthread_cond_timedwait");
  return true;
}

void cond_signal(cz_cond_t *c)
{
  th_check(pthread_cond_signal(&c->cv_c), "pthread_cond_signal");
}

void cond_broadcast(cz_cond_t *c)
{
  th_check(pthread_cond_broadcast(&c->cv_c), "pthread_cond_broadcast");
}
