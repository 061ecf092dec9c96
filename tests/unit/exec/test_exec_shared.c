/* One plan, many executions at once: a plan is immutable and every run
 * state is its execution's (exec.h), so the same plan — a scan, a hash
 * join, a hash aggregate, a sort, a correlated and an uncorrelated
 * subquery — run from 4 threads at once, each in a context of its own
 * (a root context, or a worker context of one shared parent), many
 * rounds, gives every time the answer one thread alone gives. */
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/spill.h"
#include "mem_store.h"

#define NTHREADS 4
#define ROUNDS 30

static mem_db_t *db;

static const char *const queries[] = {
    /* hash join, hash aggregate, sort; a correlated scalar subquery per group */
    "SELECT x.b, x.n, x.s, (SELECT v.d FROM v WHERE v.g = x.b ORDER BY v.d DESC LIMIT 1) "
    "FROM (SELECT t.b, count(*) AS n, sum(u.k) AS s FROM t JOIN u ON t.a = u.a GROUP BY t.b) x "
    "ORDER BY x.b",
    /* a correlated subquery per scanned row, top-k sort */
    "SELECT t.a, t.c, (SELECT max(u.k) FROM u WHERE u.a = t.a + 1) FROM t "
    "WHERE t.c % 7 <> 3 AND t.a < 250 ORDER BY t.c DESC, t.a LIMIT 60",
    /* an uncorrelated IN set (cached per execution), DISTINCT, sort */
    "SELECT DISTINCT t.b, t.c % 5 FROM t WHERE t.a IN (SELECT u.a FROM u WHERE u.k % 3 = 0) "
    "ORDER BY 1, 2",
};
#define NQ ((int)(sizeof(queries) / sizeof(queries[0])))

static mem_plan_t *plans[NQ];
static char *want[NQ];
static int want_rows[NQ];

static void run_sql(const char *sql)
{
  err_t e;
  char *rows;
  int nr, nc;
  int64_t cnt;
  if (mem_run(db, sql, &rows, &nr, &nc, &cnt, &e) != CZ_OK)
    fail_msg("%s: %s %s", sql, e.er_sqlstate, e.er_msg);
  free(rows);
}

static int setup(void **state)
{
  (void)state;
  db = mem_db_new();
  run_sql("CREATE TABLE t(a int, b text, c int); CREATE TABLE u(a int, k int); "
          "CREATE TABLE v(g text, d text)");
  char *sql = malloc(1 << 20);
  static const char *const names[] = {"ant", "bee", "cat", "dog", "eel", "fox", "gnu", NULL};
  size_t n = (size_t)sprintf(sql, "INSERT INTO t VALUES ");
  for (int i = 0; i < 1200; i++)
    n += (size_t)sprintf(sql + n, "%s(%d,%s%s%s,%d)", i ? "," : "", i % 1200,
                         names[i % 8] ? "'" : "", names[i % 8] ? names[i % 8] : "NULL",
                         names[i % 8] ? "'" : "", (i * 37) % 1001);
  run_sql(sql);
  n = (size_t)sprintf(sql, "INSERT INTO u VALUES ");
  for (int i = 0; i < 600; i++)
    n += (size_t)sprintf(sql + n, "%s(%d,%d)", i ? "," : "", (i * 7) % 400, i);
  run_sql(sql);
  n = (size_t)sprintf(sql, "INSERT INTO v VALUES ");
  for (int i = 0; i < 200; i++)
    n += (size_t)sprintf(sql + n, "%s('%s','d%03d')", i ? "," : "", names[i % 7], (i * 13) % 200);
  run_sql(sql);
  free(sql);
  for (int q = 0; q < NQ; q++) {
    err_t e;
    if (!(plans[q] = mem_plan(db, queries[q], &e)))
      fail_msg("%s: %s %s", queries[q], e.er_sqlstate, e.er_msg);
    /* The answer of one thread alone, checked against a plan of its own
     * (the memory-table runner, vector size 7). */
    if (mem_plan_run(plans[q], NULL, 1024, &want[q], &want_rows[q], &e) != CZ_OK)
      fail_msg("%s: %s %s", queries[q], e.er_sqlstate, e.er_msg);
    char *rows;
    int nr, nc;
    int64_t cnt;
    if (mem_run(db, queries[q], &rows, &nr, &nc, &cnt, &e) != CZ_OK)
      fail_msg("%s: %s %s", queries[q], e.er_sqlstate, e.er_msg);
    if (strcmp(rows, want[q]) != 0 || want_rows[q] < 5)
      fail_msg("%s: reference answers differ or too few rows (%d)", queries[q], want_rows[q]);
    free(rows);
  }
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  for (int q = 0; q < NQ; q++) {
    mem_plan_free(plans[q]);
    free(want[q]);
  }
  mem_db_free(db);
  return 0;
}

/* The plans have the shape this test is about. */
static void test_plan_shape(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "explain");
  const char *text = op_explain(mem_plan_root(plans[0]), NULL, a);
  assert_non_null(strstr(text, "HashJoin"));
  assert_non_null(strstr(text, "HashAggregate"));
  assert_non_null(strstr(text, "Sort"));
  assert_non_null(strstr(text, "Scan"));
  int corr;
  assert_true(mem_plan_nsubqs(plans[0], &corr) >= 1);
  assert_true(corr >= 1);
  assert_true(mem_plan_nsubqs(plans[1], &corr) >= 1 && corr >= 1);
  arena_destroy(a);
}

typedef struct runner_s {
  int r_id;
  qctx_t *r_worker;             /* NULL: a root context per run */
  int r_runs;
  int r_wrong;
  char r_msg[1024];
} runner_t;

static void *runner(void *arg)
{
  runner_t *r = arg;
  for (int i = 0; i < ROUNDS; i++) {
    int q = (i + r->r_id) % NQ;
    err_t e;
    char *rows;
    int nrows;
    int vs = (i + r->r_id) % 2 ? 7 : 1024;  /* batch boundaries too */
    if (mem_plan_run(plans[q], r->r_worker, vs, &rows, &nrows, &e) != CZ_OK) {
      r->r_wrong++;
      snprintf(r->r_msg, sizeof(r->r_msg), "query %d: %s %s", q, e.er_sqlstate, e.er_msg);
      continue;
    }
    r->r_runs++;
    if (nrows != want_rows[q] || strcmp(rows, want[q]) != 0) {
      r->r_wrong++;
      snprintf(r->r_msg, sizeof(r->r_msg), "query %d: %d rows, want %d", q, nrows, want_rows[q]);
    }
    free(rows);
  }
  return NULL;
}

static void run_threads(runner_t *rs)
{
  pthread_t th[NTHREADS];
  for (int i = 0; i < NTHREADS; i++)
    assert_int_equal(pthread_create(&th[i], NULL, runner, &rs[i]), 0);
  for (int i = 0; i < NTHREADS; i++)
    pthread_join(th[i], NULL);
  for (int i = 0; i < NTHREADS; i++) {
    if (rs[i].r_wrong)
      fail_msg("thread %d: %d wrong of %d: %s", i, rs[i].r_wrong, ROUNDS, rs[i].r_msg);
    assert_int_equal(rs[i].r_runs, ROUNDS);
  }
}

/* Each thread its own root context (as sessions running one prepared
 * statement). */
static void test_shared_plan_own_contexts(void **state)
{
  (void)state;
  runner_t rs[NTHREADS];
  memset(rs, 0, sizeof(rs));
  for (int i = 0; i < NTHREADS; i++)
    rs[i].r_id = i;
  run_threads(rs);
}

/* Each thread a worker context of one parent execution (as parallel
 * workers): own arenas and run states, the parent's parameters, budget,
 * cancel flag and spill registry shared; a worker context re-opens the
 * plan round after round. */
static void test_shared_plan_worker_contexts(void **state)
{
  (void)state;
  arena_t *pa = arena_create(NULL, "parent");
  mem_budget_t budget;
  mem_budget_init(&budget, 0);
  volatile bool cancel = false;
  qctx_t parent = {.q_arena = pa, .q_vector_size = 7, .q_budget = &budget, .q_cancel = &cancel};
  arena_set_budget(pa, &budget);
  qctx_t workers[NTHREADS];
  runner_t rs[NTHREADS];
  memset(rs, 0, sizeof(rs));
  err_t e;
  for (int i = 0; i < NTHREADS; i++) {
    assert_int_equal(qctx_worker_init(&workers[i], &parent, &e), CZ_OK);
    assert_ptr_equal(workers[i].q_budget, &budget);
    assert_ptr_not_equal(workers[i].q_arena, pa);
    rs[i].r_id = i;
    rs[i].r_worker = &workers[i];
  }
  assert_non_null(parent.q_spill);
  run_threads(rs);
  for (int i = 0; i < NTHREADS; i++)
    qctx_worker_end(&workers[i]);
  assert_true(atomic_load(&budget.mb_peak) > 0);  /* the workers' memory was the parent's */
  spill_end(&parent);
  arena_set_budget(pa, NULL);
  arena_destroy(pa);
}

/* A cancel of the parent stops its workers (57014). */
static void test_worker_sees_parent_cancel(void **state)
{
  (void)state;
  arena_t *pa = arena_create(NULL, "parent");
  volatile bool cancel = false;
  qctx_t parent = {.q_arena = pa, .q_vector_size = 7, .q_cancel = &cancel};
  qctx_t w;
  err_t e;
  assert_int_equal(qctx_worker_init(&w, &parent, &e), CZ_OK);
  cancel = true;
  char *rows;
  int nrows;
  assert_int_equal(mem_plan_run(plans[0], &w, 7, &rows, &nrows, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "57014");
  free(rows);
  qctx_worker_end(&w);
  spill_end(&parent);
  arena_destroy(pa);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plan_shape),
      cmocka_unit_test(test_shared_plan_own_contexts),
      cmocka_unit_test(test_shared_plan_worker_contexts),
      cmocka_unit_test(test_worker_sees_parent_cancel),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
