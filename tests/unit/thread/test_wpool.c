/* test_wpool — every task runs once, FIFO, back-pressure, idle waits, drain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdlib.h>

#include "thread/thread.h"

#define N_TASKS 10000

typedef struct once_s {
  _Atomic int on_runs[N_TASKS];
} once_t;

typedef struct once_arg_s {
  once_t *oa_once;
  int oa_i;
} once_arg_t;

static void run_once(void *arg)
{
  once_arg_t *a = arg;
  atomic_fetch_add(&a->oa_once->on_runs[a->oa_i], 1);
}

static void test_wpool_runs_every_task_exactly_once(void **state)
{
  once_t *o = calloc(1, sizeof *o);
  once_arg_t *args = calloc(N_TASKS, sizeof *args);
  err_t e;
  wpool_t *p = wpool_create(4, 64, "once", &e);
  (void)state;
  assert_non_null(p);
  assert_int_equal(wpool_n_threads(p), 4);
  for (int i = 0; i < N_TASKS; i++) {
    args[i] = (once_arg_t){o, i};
    if (i % 2)
      assert_int_equal(wpool_submit(p, run_once, &args[i], &e), CZ_OK);
    else
      while (!wpool_try_submit(p, run_once, &args[i]))
        ;
  }
  wpool_wait_idle(p);
  for (int i = 0; i < N_TASKS; i++)
    assert_int_equal(atomic_load(&o->on_runs[i]), 1);
  wpool_destroy(p);
  free(args);
  free(o);
}

/* A gate tasks can wait on, opened by the test. */
typedef struct gate_s {
  _Atomic int gt_open;
  _Atomic int gt_started;
  _Atomic int gt_finished;
  _Atomic int gt_order_next;
  int gt_order[64];
} gate_t;

static void gated_task(void *arg)
{
  gate_t *g = arg;
  atomic_fetch_add(&g->gt_started, 1);
  while (!atomic_load(&g->gt_open))
    time_sleep_us(200);
  atomic_fetch_add(&g->gt_finished, 1);
}

static void counted_task(void *arg)
{
  gate_t *g = arg;
  atomic_fetch_add(&g->gt_finished, 1);
}

static void wait_started(gate_t *g, int n)
{
  for (int i = 0; i < 5000 && atomic_load(&g->gt_started) < n; i++)
    time_sleep_us(1000);
  assert_int_equal(atomic_load(&g->gt_started), n);
}

typedef struct submitter_s {
  wpool_t *sb_pool;
  gate_t *sb_gate;
  _Atomic int sb_returned;
} submitter_t;

static void *blocking_submitter(void *arg)
{
  submitter_t *s = arg;
  err_t e;
  wpool_submit(s->sb_pool, counted_task, s->sb_gate, &e);
  atomic_store(&s->sb_returned, 1);
  return NULL;
}

/* With the only worker busy and the queue full, try_submit fails and
 * submit blocks until a slot frees. */
static void test_wpool_full_queue_blocks_submit(void **state)
{
  gate_t g = {0};
  submitter_t s = {.sb_gate = &g};
  cz_thread_t t;
  err_t e;
  wpool_t *p = wpool_create(1, 2, "full", &e);
  (void)state;
  s.sb_pool = p;
  assert_int_equal(wpool_submit(p, gated_task, &g, &e), CZ_OK);
  wait_started(&g, 1);
  assert_true(wpool_try_submit(p, counted_task, &g));
  assert_true(wpool_try_submit(p, counted_task, &g));
  assert_false(wpool_try_submit(p, counted_task, &g));
  thread_start(&t, blocking_submitter, &s, &e);
  time_sleep_us(30000);
  assert_int_equal(atomic_load(&s.sb_returned), 0);
  atomic_store(&g.gt_open, 1);
  thread_join(&t);
  assert_int_equal(atomic_load(&s.sb_returned), 1);
  wpool_wait_idle(p);
  assert_int_equal(atomic_load(&g.gt_finished), 4);
  wpool_destroy(p);
}

static void slow_task(void *arg)
{
  time_sleep_us(30000);
  atomic_store((_Atomic int *)arg, 1);
}

/* wait_idle must also wait for a task that is running, not just queued. */
static void test_wpool_wait_idle_waits_for_running_task(void **state)
{
  _Atomic int done = 0;
  err_t e;
  wpool_t *p = wpool_create(2, 4, "idle", &e);
  (void)state;
  wpool_submit(p, slow_task, &done, &e);
  time_sleep_us(5000); /* let a worker take it off the queue */
  wpool_wait_idle(p);
  assert_int_equal(atomic_load(&done), 1);
  wpool_wait_idle(p); /* idle pool: returns at once */
  wpool_destroy(p);
}

static void ordered_task(void *arg)
{
  gate_t *g = (gate_t *)((intptr_t *)arg)[0];
  int i = (int)((intptr_t *)arg)[1];
  g->gt_order[atomic_fetch_add(&g->gt_order_next, 1)] = i;
}

static void test_wpool_single_thread_is_fifo(void **state)
{
  gate_t g = {0};
  intptr_t args[40][2];
  err_t e;
  wpool_t *p = wpool_create(1, 8, "fifo", &e);
  (void)state;
  for (int i = 0; i < 40; i++) {
    args[i][0] = (intptr_t)&g;
    args[i][1] = i;
    wpool_submit(p, ordered_task, args[i], &e);
  }
  wpool_wait_idle(p);
  for (int i = 0; i < 40; i++)
    assert_int_equal(g.gt_order[i], i);
  wpool_destroy(p);
}

/* destroy runs what is still queued before joining. */
static void test_wpool_destroy_drains_queue(void **state)
{
  gate_t g = {0};
  err_t e;
  wpool_t *p = wpool_create(1, 64, "drain", &e);
  (void)state;
  wpool_submit(p, gated_task, &g, &e);
  wait_started(&g, 1);
  for (int i = 0; i < 50; i++)
    assert_true(wpool_try_submit(p, counted_task, &g));
  atomic_store(&g.gt_open, 1);
  wpool_destroy(p);
  assert_int_equal(atomic_load(&g.gt_finished), 51);
}

static void rendezvous_task(void *arg)
{
  gate_t *g = arg;
  atomic_fetch_add(&g->gt_started, 1);
  for (int i = 0; i < 5000 && atomic_load(&g->gt_started) < 4; i++)
    time_sleep_us(1000);
  if (atomic_load(&g->gt_started) >= 4)
    atomic_fetch_add(&g->gt_finished, 1);
}

/* n threads really run n tasks at once: four tasks that each wait for the
 * other three all meet. */
static void test_wpool_threads_run_concurrently(void **state)
{
  gate_t g = {0};
  err_t e;
  wpool_t *p = wpool_create(4, 4, "conc", &e);
  (void)state;
  for (int i = 0; i < 4; i++)
    wpool_submit(p, rendezvous_task, &g, &e);
  wpool_wait_idle(p);
  assert_int_equal(atomic_load(&g.gt_finished), 4);
  wpool_destroy(p);
}

static void test_wpool_rejects_bad_sizes(void **state)
{
  err_t e;
  (void)state;
  assert_null(wpool_create(0, 4, "bad", &e));
  assert_true(err_is(&e, SQLSTATE_INVALID_PARAMETER));
  assert_null(wpool_create(2, 0, "bad", &e));
  assert_true(err_is(&e, SQLSTATE_INVALID_PARAMETER));
  wpool_destroy(NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_wpool_runs_every_task_exactly_once),
      cmocka_unit_test(test_wpool_full_queue_blocks_submit),
      cmocka_unit_test(test_wpool_wait_idle_waits_for_running_task),
      cmocka_unit_test(test_wpool_single_thread_is_fifo),
      cmocka_unit_test(test_wpool_destroy_drains_queue),
      cmocka_unit_test(test_wpool_threads_run_concurrently),
      cmocka_unit_test(test_wpool_rejects_bad_sizes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
