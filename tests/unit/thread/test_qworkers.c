/* test_qworkers — the query workers: a lease gets what is free and never
 * waits, tasks run on other threads, the server-wide bound holds while
 * several "queries" compete, and release waits for the lease's tasks
 * (stopping them) before it returns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "thread/thread.h"
#include "util/util.h"

static qw_pool_t *new_pool(int max)
{
  err_t e;
  err_clear(&e);
  qw_pool_t *p = qw_pool_create(max, "cz-qw-test", &e);
  if (!p)
    fail_msg("qw_pool_create(%d): %s", max, e.er_msg);
  return p;
}

/* A task that must not run. */
static void never(void *arg)
{
  (void)arg;
  fail_msg("a task ran on a lease without workers");
}

static void test_acquire_takes_what_is_free_without_waiting(void **state)
{
  (void)state;
  qw_pool_t *p = new_pool(3);
  qw_lease_t *a = qw_acquire(p, 2), *b = qw_acquire(p, 2), *c = qw_acquire(p, 2);
  assert_int_equal(qw_lease_n(a), 2);
  assert_int_equal(qw_lease_n(b), 1);   /* only one left */
  assert_non_null(c);
  assert_int_equal(qw_lease_n(c), 0);   /* none left: runs alone, did not wait */
  qw_stats_t st;
  qw_pool_stats(p, &st);
  assert_int_equal(st.qs_in_use, 3);
  assert_int_equal(st.qs_refused, 1 + 2);
  assert_int_equal(st.qs_threads, 0);   /* threads start on first task only */
  err_t e;
  assert_int_equal(qw_start(c, never, NULL, &e), 1);
  qw_release(a);
  qw_lease_t *d = qw_acquire(p, 5);
  assert_int_equal(qw_lease_n(d), 2);   /* a's two came back */
  qw_release(b);
  qw_release(c);
  qw_release(d);
  qw_pool_stats(p, &st);
  assert_int_equal(st.qs_in_use, 0);
  assert_int_equal(st.qs_peak_in_use, 3);
  qw_pool_destroy(p);
}

static void test_no_pool_and_empty_pool(void **state)
{
  (void)state;
  assert_null(qw_acquire(NULL, 3));
  assert_int_equal(qw_lease_n(NULL), 0);
  err_t e;
  assert_int_equal(qw_start(NULL, never, NULL, &e), 1);
  qw_wait(NULL);
  qw_release(NULL);
  assert_false(qw_stopping(NULL));
  qw_pool_t *p = new_pool(0);
  qw_lease_t *l = qw_acquire(p, 1);
  assert_int_equal(qw_lease_n(l), 0);
  qw_release(l);
  qw_pool_destroy(p);
  err_clear(&e);
  assert_null(qw_pool_create(-1, "x", &e));
  assert_true(err_is(&e, SQLSTATE_CONFIG));
}

typedef struct seen_s {
  pthread_t sn_main;
  _Atomic int sn_runs;
  _Atomic int sn_elsewhere;
} seen_t;

static void note_thread(void *arg)
{
  seen_t *s = arg;
  if (!pthread_equal(pthread_self(), s->sn_main))
    atomic_fetch_add(&s->sn_elsewhere, 1);
  atomic_fetch_add(&s->sn_runs, 1);
}

static void test_tasks_run_on_worker_threads(void **state)
{
  (void)state;
  qw_pool_t *p = new_pool(3);
  seen_t s = {.sn_main = pthread_self()};
  for (int round = 0; round < 50; round++) {
    qw_lease_t *l = qw_acquire(p, 3);
    assert_int_equal(qw_lease_n(l), 3);
    err_t e;
    for (int i = 0; i < 3; i++)
      assert_int_equal(qw_start(l, note_thread, &s, &e), CZ_OK);
    assert_int_equal(qw_start(l, note_thread, &s, &e), 1);  /* one task per worker */
    qw_wait(l);
    assert_int_equal(atomic_load(&s.sn_runs), 3 * (round + 1));
    qw_release(l);
  }
  assert_int_equal(atomic_load(&s.sn_elsewhere), 150);
  qw_stats_t st;
  qw_pool_stats(p, &st);
  assert_true(st.qs_threads <= 3);
  assert_int_equal(st.qs_tasks, 150);
  qw_pool_destroy(p);
}

/* ---- the bound under contention ---------------------------------------- */

#define QW_LIMIT 4
#define QW_QUERIES 6
#define QW_ROUNDS 150

typedef struct race_s {
  qw_pool_t *r_pool;
  _Atomic int r_running;        /* worker tasks running now */
  _Atomic int r_peak;
  _Atomic int r_got_none;       /* acquisitions that got no worker */
  _Atomic int r_tasks;
} race_t;

static void busy_task(void *arg)
{
  race_t *r = arg;
  int now = atomic_fetch_add(&r->r_running, 1) + 1;
  int peak = atomic_load(&r->r_peak);
  while (now > peak && !atomic_compare_exchange_weak(&r->r_peak, &peak, now))
    ;
  usleep(200);
  atomic_fetch_add(&r->r_tasks, 1);
  atomic_fetch_sub(&r->r_running, 1);
}

static void *one_query(void *arg)
{
  race_t *r = arg;
  for (int i = 0; i < QW_ROUNDS; i++) {
    /* a query of ThreadsPerQuery 4 asks for 3 extra workers */
    qw_lease_t *l = qw_acquire(r->r_pool, 3);
    int n = qw_lease_n(l);
    if (n == 0)
      atomic_fetch_add(&r->r_got_none, 1);
    err_t e;
    for (int k = 0; k < n; k++)
      if (qw_start(l, busy_task, r, &e) != CZ_OK)
        fail_msg("qw_start failed: %s", e.er_msg);
    usleep(50);  /* the query's own share */
    qw_wait(l);
    qw_release(l);
  }
  return NULL;
}

static void test_bound_holds_under_contention(void **state)
{
  (void)state;
  race_t r = {.r_pool = new_pool(QW_LIMIT)};
  pthread_t th[QW_QUERIES];
  for (int i = 0; i < QW_QUERIES; i++)
    assert_int_equal(pthread_create(&th[i], NULL, one_query, &r), 0);
  for (int i = 0; i < QW_QUERIES; i++)
    pthread_join(th[i], NULL);
  qw_stats_t st;
  qw_pool_stats(r.r_pool, &st);
  assert_true(atomic_load(&r.r_peak) <= QW_LIMIT);
  assert_true(st.qs_peak_running <= QW_LIMIT);
  assert_true(st.qs_peak_in_use <= QW_LIMIT);
  assert_true(st.qs_threads <= QW_LIMIT);
  assert_int_equal(st.qs_in_use, 0);
  /* six queries asking for three each against four: some got fewer */
  assert_true(st.qs_refused > 0);
  assert_int_equal((uint64_t)atomic_load(&r.r_tasks), st.qs_granted);
  assert_int_equal(st.qs_tasks, st.qs_granted);
  qw_pool_destroy(r.r_pool);
}

/* ---- release stops and waits ------------------------------------------- */

typedef struct stopper_s {
  qw_lease_t *st_lease;
  _Atomic int st_started;
  _Atomic int st_finished;
} stopper_t;

/* Runs until its lease is stopped, as a worker polls between batches. */
static void until_stopped(void *arg)
{
  stopper_t *s = arg;
  atomic_fetch_add(&s->st_started, 1);
  while (!qw_stopping(s->st_lease))
    usleep(100);
  usleep(2000);  /* the rest of a batch */
  atomic_fetch_add(&s->st_finished, 1);
}

static void test_release_stops_and_waits_for_tasks(void **state)
{
  (void)state;
  qw_pool_t *p = new_pool(2);
  stopper_t *s = calloc(1, sizeof *s);
  s->st_lease = qw_acquire(p, 2);
  err_t e;
  assert_int_equal(qw_start(s->st_lease, until_stopped, s, &e), CZ_OK);
  assert_int_equal(qw_start(s->st_lease, until_stopped, s, &e), CZ_OK);
  while (atomic_load(&s->st_started) < 2)
    usleep(100);
  /* as a cancelled query does: release while its tasks still run */
  qw_release(s->st_lease);
  assert_int_equal(atomic_load(&s->st_finished), 2);
  free(s);  /* nothing runs on its behalf any more (ASan would see it) */
  qw_stats_t st;
  qw_pool_stats(p, &st);
  assert_int_equal(st.qs_in_use, 0);
  assert_int_equal(st.qs_running, 0);
  qw_pool_destroy(p);
}

static void test_stopped_lease_drops_queued_tasks(void **state)
{
  (void)state;
  qw_pool_t *p = new_pool(2);
  seen_t s = {.sn_main = pthread_self()};
  qw_lease_t *l = qw_acquire(p, 2);
  qw_stop(l);  /* stopped before its tasks begin: they never run */
  err_t e;
  assert_int_equal(qw_start(l, note_thread, &s, &e), CZ_OK);
  assert_int_equal(qw_start(l, note_thread, &s, &e), CZ_OK);
  qw_release(l);
  assert_int_equal(atomic_load(&s.sn_runs), 0);
  qw_pool_destroy(p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_acquire_takes_what_is_free_without_waiting),
    cmocka_unit_test(test_no_pool_and_empty_pool),
    cmocka_unit_test(test_tasks_run_on_worker_threads),
    cmocka_unit_test(test_bound_holds_under_contention),
    cmocka_unit_test(test_release_stops_and_waits_for_tasks),
    cmocka_unit_test(test_stopped_lease_drops_queued_tasks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
