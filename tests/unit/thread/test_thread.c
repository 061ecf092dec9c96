/* test_thread — thread start/join/name, mutexes and condition waits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <string.h>

#include "thread/thread.h"

static void *set_to_arg(void *arg)
{
  *(int *)arg = 42;
  return NULL;
}

static void test_thread_start_runs_fn_with_arg(void **state)
{
  cz_thread_t t;
  err_t e;
  int v = 0;
  (void)state;
  assert_int_equal(thread_start(&t, set_to_arg, &v, &e), CZ_OK);
  thread_join(&t);
  assert_int_equal(v, 42);
}

static void *name_self(void *arg)
{
  thread_set_name("a-very-long-thread-name");
  pthread_getname_np(pthread_self(), arg, 32);
  return NULL;
}

static void test_thread_set_name_truncates_to_15(void **state)
{
  cz_thread_t t;
  err_t e;
  char name[32] = "";
  (void)state;
  thread_start(&t, name_self, name, &e);
  thread_join(&t);
  assert_string_equal(name, "a-very-long-thr");
}

typedef struct counter_s {
  cz_mutex_t ct_mutex;
  long ct_n; /* plain: guarded by ct_mutex */
} counter_t;

static void *count_up(void *arg)
{
  counter_t *c = arg;
  for (int i = 0; i < 100000; i++) {
    mutex_lock(&c->ct_mutex);
    c->ct_n++;
    mutex_unlock(&c->ct_mutex);
  }
  return NULL;
}

static void test_mutex_excludes(void **state)
{
  counter_t c = {.ct_n = 0};
  cz_thread_t t[4];
  err_t e;
  (void)state;
  mutex_init(&c.ct_mutex);
  for (int i = 0; i < 4; i++)
    thread_start(&t[i], count_up, &c, &e);
  for (int i = 0; i < 4; i++)
    thread_join(&t[i]);
  assert_int_equal(c.ct_n, 400000);
  mutex_destroy(&c.ct_mutex);
}

static void *try_from_other(void *arg)
{
  cz_mutex_t *m = arg;
  bool got = mutex_trylock(m);
  if (got)
    mutex_unlock(m);
  return (void *)(intptr_t)got;
}

static void test_mutex_trylock(void **state)
{
  cz_mutex_t m;
  cz_thread_t t;
  err_t e;
  (void)state;
  mutex_init(&m);
  mutex_lock(&m);
  thread_start(&t, try_from_other, &m, &e);
  void *ret;
  pthread_join(t.th_id, &ret);
  assert_false((bool)(intptr_t)ret);
  mutex_unlock(&m);
  assert_true(mutex_trylock(&m));
  mutex_unlock(&m);
  mutex_destroy(&m);
}

static void test_cond_timedwait_times_out(void **state)
{
  cz_mutex_t m;
  cz_cond_t c;
  uint64_t t0, el;
  (void)state;
  mutex_init(&m);
  cond_init(&c);
  mutex_lock(&m);
  t0 = time_now_ns();
  assert_false(cond_timedwait(&c, &m, 30000));
  el = time_now_ns() - t0;
  mutex_unlock(&m);
  assert_true(el >= 30000000u);
  assert_true(el < 3000000000u);
  cond_destroy(&c);
  mutex_destroy(&m);
}

typedef struct gate_s {
  cz_mutex_t gt_mutex;
  cz_cond_t gt_cond;
  int gt_open;    /* guarded by gt_mutex */
  int gt_waiting; /* guarded by gt_mutex */
  _Atomic int gt_passed;
} gate_t;

static void *gate_waiter(void *arg)
{
  gate_t *g = arg;
  mutex_lock(&g->gt_mutex);
  g->gt_waiting++;
  while (!g->gt_open)
    cond_wait(&g->gt_cond, &g->gt_mutex);
  mutex_unlock(&g->gt_mutex);
  atomic_fetch_add(&g->gt_passed, 1);
  return NULL;
}

static void *gate_timed_waiter(void *arg)
{
  gate_t *g = arg;
  bool signalled = true;
  mutex_lock(&g->gt_mutex);
  g->gt_waiting++;
  while (!g->gt_open && signalled)
    signalled = cond_timedwait(&g->gt_cond, &g->gt_mutex, 10000000);
  mutex_unlock(&g->gt_mutex);
  if (signalled)
    atomic_fetch_add(&g->gt_passed, 1);
  return NULL;
}

static void gate_run(int n, bool broadcast, void *(*fn)(void *))
{
  gate_t g = {.gt_open = 0};
  cz_thread_t t[4];
  err_t e;
  mutex_init(&g.gt_mutex);
  cond_init(&g.gt_cond);
  for (int i = 0; i < n; i++)
    thread_start(&t[i], fn, &g, &e);
  for (;;) {
    mutex_lock(&g.gt_mutex);
    int w = g.gt_waiting;
    mutex_unlock(&g.gt_mutex);
    if (w == n)
      break;
    time_sleep_us(1000);
  }
  assert_int_equal(atomic_load(&g.gt_passed), 0);
  mutex_lock(&g.gt_mutex);
  g.gt_open = 1;
  if (broadcast)
    cond_broadcast(&g.gt_cond);
  else
    cond_signal(&g.gt_cond);
  mutex_unlock(&g.gt_mutex);
  for (int i = 0; i < n; i++)
    thread_join(&t[i]);
  assert_int_equal(atomic_load(&g.gt_passed), n);
  cond_destroy(&g.gt_cond);
  mutex_destroy(&g.gt_mutex);
}

static void test_cond_signal_wakes_waiter(void **state)
{
  (void)state;
  gate_run(1, false, gate_waiter);
}

static void test_cond_broadcast_wakes_all(void **state)
{
  (void)state;
  gate_run(4, true, gate_waiter);
}

static void test_cond_timedwait_returns_true_when_signalled(void **state)
{
  (void)state;
  gate_run(2, true, gate_timed_waiter);
}

/* Blocking hints reach the thread's own handler once per outermost pair,
 * and threads without a handler ignore them. */
static int hint_calls[2];
static void count_hint(void *ctx, bool blocking)
{
  assert_ptr_equal(ctx, hint_calls);
  hint_calls[blocking ? 1 : 0]++;
}

static void *hint_without_handler(void *arg)
{
  (void)arg;
  thread_block_begin();
  thread_block_end();
  return NULL;
}

static void test_block_hints_nest_and_stay_per_thread(void **state)
{
  (void)state;
  err_t e;
  thread_set_block_handler(count_hint, hint_calls);
  thread_block_begin();
  thread_block_begin();
  assert_int_equal(hint_calls[1], 1);
  thread_block_end();
  assert_int_equal(hint_calls[0], 0);
  thread_block_end();
  assert_int_equal(hint_calls[0], 1);
  cz_thread_t t;
  assert_int_equal(thread_start(&t, hint_without_handler, NULL, &e), CZ_OK);
  thread_join(&t);
  assert_int_equal(hint_calls[0] + hint_calls[1], 2);
  thread_set_block_handler(NULL, NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thread_start_runs_fn_with_arg),
      cmocka_unit_test(test_thread_set_name_truncates_to_15),
      cmocka_unit_test(test_mutex_excludes),
      cmocka_unit_test(test_block_hints_nest_and_stay_per_thread),
      cmocka_unit_test(test_mutex_trylock),
      cmocka_unit_test(test_cond_timedwait_times_out),
      cmocka_unit_test(test_cond_signal_wakes_waiter),
      cmocka_unit_test(test_cond_broadcast_wakes_all),
      cmocka_unit_test(test_cond_timedwait_returns_true_when_signalled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
