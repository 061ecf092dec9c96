/* Tests of the Gather operator (op_gather.c) over a test table whose
 * scans split into morsels: with 1 to 4 threads (the session's and up
 * to 3 leased workers) every row comes back exactly once, a partial
 * group-by below the Gather gives per-thread partials that add up to the
 * whole, an error in a morsel read by any thread is the query's error,
 * EXPLAIN ANALYZE figures of all threads are summed, a hash join
 * over the split scan is built once and probed by every thread, a build
 * side under a Gather of its own is built by every thread, and a
 * Parallel Merge merges the partial groups on every thread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exec/exec_int.h"
#include "exec/spill.h"
#include "thread/thread.h"

#define NROWS 50000

/* The test table: values 0..NROWS-1 in one BIGINT column, range i of a
 * split holds rows [i*n/k, (i+1)*n/k). fail_at >= 0: reading that row
 * fails (XX000). */
typedef struct gtab_s {
  qtable_t gt_q;
  int64_t gt_fail_at;
} gtab_t;

struct qsplit_s {
  int sp_n;
};
struct qmorsels_s {
  int ms_n;
  atomic_int ms_next;
};
struct qscan_s {
  gtab_t *sc_t;
  qmorsels_t *sc_m;             /* NULL: a plain scan of every row */
  int64_t sc_pos, sc_end;
  bool sc_done;
};

static int g_open(qctx_t *q, void *tab, int idx, const int *cols, int ncols, const qrange_t *range,
                  const qpred_t *preds, int npred, bool rowid, arena_t *a, qscan_t **out, err_t *e)
{
  (void)q, (void)idx, (void)cols, (void)ncols, (void)range, (void)preds, (void)npred, (void)rowid,
      (void)e;
  qscan_t *s = arena_zalloc(a, sizeof(*s));
  s->sc_t = tab;
  s->sc_end = NROWS;
  *out = s;
  return CZ_OK;
}

static int g_next(qctx_t *q, qscan_t *s, batch_t *out, arena_t *a, err_t *e)
{
  (void)q, (void)a;
  out->b_n = 0;
  if (s->sc_m && s->sc_pos >= s->sc_end) {
    int i = atomic_fetch_add(&s->sc_m->ms_next, 1);
    if (i >= s->sc_m->ms_n)
      return CZ_OK;
    s->sc_pos = (int64_t)i * NROWS / s->sc_m->ms_n;
    s->sc_end = (int64_t)(i + 1) * NROWS / s->sc_m->ms_n;
  }
  int n = 0;
  while (n < out->b_cols[0].v_cap && s->sc_pos < s->sc_end) {
    if (s->sc_pos == s->sc_t->gt_fail_at)
      return err_set(e, "XX000", "test table: row %lld is unreadable", (long long)s->sc_pos);
    datum_t d = {.d_i64 = s->sc_pos++};
    vec_set(&out->b_cols[0], n++, &d);
  }
  out->b_n = n;
  return CZ_OK;
}

static void g_close(qctx_t *q, qscan_t *s)
{
  (void)q, (void)s;
}

static int g_split(qctx_t *q, void *tab, int idx, const qrange_t *range, int n, arena_t *a,
                   qsplit_t **out, int *nout, err_t *e)
{
  (void)q, (void)tab, (void)idx, (void)range, (void)e;
  qsplit_t *sp = arena_zalloc(a, sizeof(*sp));
  sp->sp_n = n;
  *out = sp;
  *nout = n;
  return CZ_OK;
}

static int g_morsels(qctx_t *q, void *tab, const qsplit_t *sp, arena_t *a, qmorsels_t **out,
                     err_t *e)
{
  (void)q, (void)tab, (void)e;
  qmorsels_t *m = arena_zalloc(a, sizeof(*m));
  m->ms_n = sp->sp_n;
  atomic_init(&m->ms_next, 0);
  *out = m;
  return CZ_OK;
}

static int g_open_morsels(qctx_t *q, void *tab, qmorsels_t *m, const int *cols, int ncols,
                          const qpred_t *preds, int npred, bool rowid, arena_t *a, qscan_t **out,
                          err_t *e)
{
  if (g_open(q, tab, 0, cols, ncols, NULL, preds, npred, rowid, a, out, e) != CZ_OK)
    return CZ_ERR;
  (*out)->sc_m = m;
  (*out)->sc_end = 0;
  return CZ_OK;
}

static const qtable_ops_t gtab_ops = {
    .qt_scan_open = g_open,
    .qt_scan_next = g_next,
    .qt_scan_close = g_close,
    .qt_scan_split = g_split,
    .qt_morsels_open = g_morsels,
    .qt_scan_open_morsels = g_open_morsels,
};

typedef struct fixture_s {
  arena_t *f_a;                 /* the plan's */
  gtab_t f_tab;
  op_t *f_scan;
  qw_pool_t *f_pool;
} fixture_t;

static op_t *make_scan(fixture_t *f)
{
  static int cols[] = {0};
  static ty_t types[1];
  types[0] = ty_plain(TY_INT8);
  scan_spec_t sp;
  memset(&sp, 0, sizeof(sp));
  sp.ss_table = &f->f_tab;
  sp.ss_name = "gtab";
  sp.ss_cols = cols;
  sp.ss_ncols = 1;
  sp.ss_types = types;
  return op_scan_new(f->f_a, &sp);
}

static int setup(void **state)
{
  fixture_t *f = calloc(1, sizeof(*f));
  f->f_a = arena_create(NULL, "plan");
  f->f_tab.gt_q.qt_ops = &gtab_ops;
  f->f_tab.gt_fail_at = -1;
  f->f_scan = make_scan(f);
  err_t e;
  f->f_pool = qw_pool_create(3, "gather-test", &e);
  assert_non_null(f->f_pool);
  *state = f;
  return 0;
}

static int teardown(void **state)
{
  fixture_t *f = *state;
  qw_pool_destroy(f->f_pool);
  arena_destroy(f->f_a);
  free(f);
  return 0;
}

/* Runs o to its end in a fresh execution of `threads` threads; calls fn
 * on every row's column 0 and 1 (when o has two columns). */
typedef struct run_s {
  arena_t *r_a;
  qctx_t r_q;
  volatile bool r_cancel;
} run_t;

static void run_begin(run_t *r, fixture_t *f, int threads)
{
  memset(r, 0, sizeof(*r));
  r->r_a = arena_create(NULL, "execution");
  r->r_q = (qctx_t){.q_arena = r->r_a, .q_vector_size = 100, .q_cancel = &r->r_cancel,
                    .q_workers = f->f_pool, .q_threads = threads};
}

static void run_end(run_t *r)
{
  qexec_end(&r->r_q);
  spill_end(&r->r_q);
  arena_destroy(r->r_a);
}

static int drain(const op_t *o, run_t *r, int64_t *sums, int64_t *nrows, unsigned char *seen,
                 err_t *e)
{
  if (op_open(o, &r->r_q, e) != CZ_OK) {
    op_close(o, &r->r_q);
    return CZ_ERR;
  }
  for (;;) {
    obatch_t ob;
    if (op_next(o, &r->r_q, &ob, e) != CZ_OK) {
      op_close(o, &r->r_q);
      return CZ_ERR;
    }
    if (!ob.ob_b)
      break;
    for (int k = 0; k < ob.ob_n; k++) {
      int row = ob.ob_sel ? ob.ob_sel[k] : k;
      datum_t d;
      for (int c = 0; c < o->o_ncols; c++) {
        vec_get(&ob.ob_b->b_cols[c], row, &d);
        sums[c] += d.d_i64;
        if (seen && c == 0 && d.d_i64 >= 0 && d.d_i64 < NROWS)
          seen[d.d_i64]++;
      }
      (*nrows)++;
    }
  }
  op_close(o, &r->r_q);
  return CZ_OK;
}

/* Every row once, whatever the number of threads. */
static void test_gather_rows_once(void **state)
{
  fixture_t *f = *state;
  op_t *g = op_gather_new(f->f_a, f->f_scan, 3);
  assert_non_null(g);
  for (int threads = 1; threads <= 4; threads++) {
    run_t r;
    run_begin(&r, f, threads);
    unsigned char *seen = calloc(NROWS, 1);
    int64_t sums[1] = {0}, n = 0;
    err_t e;
    assert_int_equal(drain(g, &r, sums, &n, seen, &e), CZ_OK);
    assert_int_equal(n, NROWS);
    for (int i = 0; i < NROWS; i++)
      assert_int_equal(seen[i], 1);
    /* EXPLAIN ANALYZE's figures of the scan: every thread's rows summed */
    const opst_t *st = op_state(f->f_scan, &r.r_q);
    assert_non_null(st);
    assert_int_equal(st->os_rows, NROWS);
    free(seen);
    run_end(&r);
  }
  qw_stats_t qs;
  qw_pool_stats(f->f_pool, &qs);
  assert_int_equal(qs.qs_in_use, 0);  /* every lease given back */
}

/* A partial group-by in each thread: one partial row per thread, adding
 * up to count and sum of the whole table. */
static void test_gather_partial_agg(void **state)
{
  fixture_t *f = *state;
  xnode_t *col = arena_zalloc(f->f_a, sizeof(*col));
  col->x_kind = X_COL;
  col->x_type = ty_plain(TY_INT8);
  col->x_index = 0;
  agg_spec_t aggs[2] = {{XAGG_COUNT_STAR, false, NULL, NULL, ty_plain(TY_INT8)},
                        {XAGG_MAX, false, col, NULL, ty_plain(TY_INT8)}};
  op_t *partial = op_hashagg_new(f->f_a, f->f_scan, 0, NULL, 2, aggs);
  op_t *g = op_gather_new(f->f_a, partial, 3);
  assert_non_null(g);
  for (int threads = 1; threads <= 4; threads++) {
    run_t r;
    run_begin(&r, f, threads);
    int64_t sums[2] = {0, 0}, n = 0;
    err_t e;
    assert_int_equal(drain(g, &r, sums, &n, NULL, &e), CZ_OK);
    assert_true(n >= 1 && n <= threads);  /* one partial per thread that ran */
    assert_int_equal(sums[0], NROWS);
    run_end(&r);
  }
}

/* An error in any thread's morsel is the query's error; nothing leaks
 * and the workers are back in the pool. */
static void test_gather_error(void **state)
{
  fixture_t *f = *state;
  op_t *g = op_gather_new(f->f_a, f->f_scan, 3);
  for (int threads = 1; threads <= 4; threads++) {
    for (int64_t at = 0; at < NROWS; at += NROWS / 7) {
      f->f_tab.gt_fail_at = at;
      run_t r;
      run_begin(&r, f, threads);
      int64_t sums[1] = {0}, n = 0;
      err_t e;
      assert_int_equal(drain(g, &r, sums, &n, NULL, &e), CZ_ERR);
      assert_string_equal(e.er_sqlstate, "XX000");
      assert_non_null(strstr(e.er_msg, "unreadable"));
      run_end(&r);
    }
  }
  f->f_tab.gt_fail_at = -1;
  qw_stats_t qs;
  qw_pool_stats(f->f_pool, &qs);
  assert_int_equal(qs.qs_in_use, 0);
}

/* Cancel of the query stops every thread with 57014. */
static void test_gather_cancel(void **state)
{
  fixture_t *f = *state;
  op_t *g = op_gather_new(f->f_a, f->f_scan, 3);
  run_t r;
  run_begin(&r, f, 4);
  err_t e;
  assert_int_equal(op_open(g, &r.r_q, &e), CZ_OK);
  obatch_t ob;
  assert_int_equal(op_next(g, &r.r_q, &ob, &e), CZ_OK);
  r.r_cancel = true;
  int rc = CZ_OK;
  for (int i = 0; i < NROWS && rc == CZ_OK; i++) {
    rc = op_next(g, &r.r_q, &ob, &e);
    if (rc == CZ_OK && !ob.ob_b)
      break;
  }
  assert_int_equal(rc, CZ_ERR);
  assert_string_equal(e.er_sqlstate, "57014");
  op_close(g, &r.r_q);
  run_end(&r);
}

/* Re-opened in one execution (a rescan), mid-stream and after the end:
 * the workers of the first open are stopped, the rows come again. */
static void test_gather_reopen(void **state)
{
  fixture_t *f = *state;
  op_t *g = op_gather_new(f->f_a, f->f_scan, 3);
  run_t r;
  run_begin(&r, f, 3);
  err_t e;
  obatch_t ob;
  assert_int_equal(op_open(g, &r.r_q, &e), CZ_OK);
  assert_int_equal(op_next(g, &r.r_q, &ob, &e), CZ_OK);
  for (int round = 0; round < 3; round++) {
    int64_t sums[1] = {0}, n = 0;
    assert_int_equal(drain(g, &r, sums, &n, NULL, &e), CZ_OK);
    assert_int_equal(n, NROWS);
    assert_int_equal(sums[0], (int64_t)NROWS * (NROWS - 1) / 2);
  }
  run_end(&r);
}

/* Gather refuses a subtree that is not a pipeline over a splittable
 * scan: a RIGHT join (it marks build rows), a group-by below a join. */
static void test_gather_refuses(void **state)
{
  fixture_t *f = *state;
  op_t *j = op_nljoin_new(f->f_a, f->f_scan, make_scan(f), JOIN_RIGHT, NULL);
  assert_null(op_gather_new(f->f_a, j, 1));
  assert_false(op_gather_ok(j));
  assert_true(op_gather_ok(f->f_scan));
  op_t *agg = op_hashagg_new(f->f_a, make_scan(f), 0, NULL, 0, NULL);
  int k0[1] = {0};
  op_t *ja = op_hashjoin_new(f->f_a, agg, make_scan(f), JOIN_INNER, 1, k0, k0, NULL);
  assert_false(op_gather_ok(ja));
  op_t *inner = op_nljoin_new(f->f_a, f->f_scan, make_scan(f), JOIN_INNER, NULL);
  assert_true(op_gather_ok(inner));
  assert_ptr_equal(op_gather_driver(inner), f->f_scan);
}

/* A hash join (and a semi join) over the split scan, its build made once
 * and probed by every thread: every probe row joined exactly once, for
 * 1 to 4 threads; the leases given back. */
static void test_gather_hashjoin(void **state)
{
  fixture_t *f = *state;
  int k0[1] = {0};
  op_t *j = op_hashjoin_new(f->f_a, f->f_scan, make_scan(f), JOIN_INNER, 1, k0, k0, NULL);
  op_t *g = op_gather_new(f->f_a, j, 3);
  assert_non_null(g);
  op_t *sj = op_hashjoin_new(f->f_a, make_scan(f), make_scan(f), JOIN_SEMI, 1, k0, k0, NULL);
  op_t *gs = op_gather_new(f->f_a, sj, 3);
  assert_non_null(gs);
  for (int threads = 1; threads <= 4; threads++) {
    run_t r;
    run_begin(&r, f, threads);
    unsigned char *seen = calloc(NROWS, 1);
    int64_t sums[2] = {0, 0}, n = 0;
    err_t e;
    assert_int_equal(drain(g, &r, sums, &n, seen, &e), CZ_OK);
    assert_int_equal(n, NROWS);
    assert_int_equal(sums[0], sums[1]);  /* each row met its own key */
    for (int i = 0; i < NROWS; i++)
      assert_int_equal(seen[i], 1);
    int64_t ss[1] = {0}, sn = 0;
    assert_int_equal(drain(gs, &r, ss, &sn, NULL, &e), CZ_OK);
    assert_int_equal(sn, NROWS);
    assert_int_equal(ss[0], (int64_t)NROWS * (NROWS - 1) / 2);
    free(seen);
    run_end(&r);
  }
  /* an error while the build is read is the query's */
  f->f_tab.gt_fail_at = NROWS / 3;
  run_t r;
  run_begin(&r, f, 3);
  int64_t sums[2] = {0, 0}, n = 0;
  err_t e;
  assert_int_equal(drain(g, &r, sums, &n, NULL, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "XX000");
  run_end(&r);
  f->f_tab.gt_fail_at = -1;
  qw_stats_t qs;
  qw_pool_stats(f->f_pool, &qs);
  assert_int_equal(qs.qs_in_use, 0);
}

/* A hash join whose build side is a Gather itself: the build is made by
 * all threads (op_join_pbuild.c): every probe row joined exactly once,
 * for 1 to 4 threads; an error while building is the query's. */
static void test_gather_parallel_build(void **state)
{
  fixture_t *f = *state;
  int k0[1] = {0};
  op_t *build = op_gather_new(f->f_a, make_scan(f), 3);
  assert_non_null(build);
  op_t *j = op_hashjoin_new(f->f_a, f->f_scan, build, JOIN_INNER, 1, k0, k0, NULL);
  op_t *g = op_gather_new(f->f_a, j, 3);
  assert_non_null(g);
  for (int threads = 1; threads <= 4; threads++) {
    run_t r;
    run_begin(&r, f, threads);
    unsigned char *seen = calloc(NROWS, 1);
    int64_t sums[2] = {0, 0}, n = 0;
    err_t e;
    assert_int_equal(drain(g, &r, sums, &n, seen, &e), CZ_OK);
    assert_int_equal(n, NROWS);
    assert_int_equal(sums[0], sums[1]);
    for (int i = 0; i < NROWS; i++)
      assert_int_equal(seen[i], 1);
    free(seen);
    run_end(&r);
  }
  f->f_tab.gt_fail_at = NROWS / 2;
  run_t r;
  run_begin(&r, f, 4);
  int64_t sums[2] = {0, 0}, n = 0;
  err_t e;
  assert_int_equal(drain(g, &r, sums, &n, NULL, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "XX000");
  run_end(&r);
  f->f_tab.gt_fail_at = -1;
  qw_stats_t qs;
  qw_pool_stats(f->f_pool, &qs);
  assert_int_equal(qs.qs_in_use, 0);
}

/* A Parallel Merge (op_hashagg_par.c) of per-thread partial group-bys
 * keyed by the value: every group once, with its count, for 1 to 4
 * threads; an error in a thread is the query's; a cancel stops it. */
static void test_gather_parallel_merge(void **state)
{
  fixture_t *f = *state;
  xnode_t *col = arena_zalloc(f->f_a, sizeof(*col));
  col->x_kind = X_COL;
  col->x_type = ty_plain(TY_INT8);
  col->x_index = 0;
  xnode_t *cnt = arena_zalloc(f->f_a, sizeof(*cnt));
  *cnt = *col;
  cnt->x_index = 1;
  agg_spec_t pa[1] = {{XAGG_COUNT_STAR, false, NULL, NULL, ty_plain(TY_INT8)}};
  op_t *partial = op_hashagg_new(f->f_a, f->f_scan, 1, &col, 1, pa);
  op_t *g = op_gather_new(f->f_a, partial, 3);
  assert_non_null(g);
  op_t *leaf = op_pmerge_leaf_new(f->f_a, partial);
  agg_spec_t fa[1] = {{XAGG_MAX, false, cnt, NULL, ty_plain(TY_INT8)}};
  op_t *fin = op_hashagg_new(f->f_a, leaf, 1, &col, 1, fa);
  op_t *m = op_pmerge_new(f->f_a, g, fin, leaf, 1);
  assert_non_null(m);
  assert_null(op_pmerge_new(f->f_a, partial, fin, leaf, 1));  /* not over a Gather */
  for (int threads = 1; threads <= 4; threads++) {
    run_t r;
    run_begin(&r, f, threads);
    unsigned char *seen = calloc(NROWS, 1);
    int64_t sums[2] = {0, 0}, n = 0;
    err_t e;
    assert_int_equal(drain(m, &r, sums, &n, seen, &e), CZ_OK);
    assert_int_equal(n, NROWS);
    assert_int_equal(sums[1], NROWS);  /* each group counted one row */
    for (int i = 0; i < NROWS; i++)
      assert_int_equal(seen[i], 1);
    /* EXPLAIN ANALYZE: the final group-by's rows of every thread */
    const opst_t *st = op_state(fin, &r.r_q);
    assert_non_null(st);
    assert_int_equal(st->os_rows, NROWS);
    free(seen);
    run_end(&r);
  }
  f->f_tab.gt_fail_at = NROWS / 5;
  run_t r;
  run_begin(&r, f, 3);
  int64_t sums[2] = {0, 0}, n = 0;
  err_t e;
  assert_int_equal(drain(m, &r, sums, &n, NULL, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "XX000");
  run_end(&r);
  f->f_tab.gt_fail_at = -1;
  run_begin(&r, f, 3);
  r.r_cancel = true;
  assert_int_equal(drain(m, &r, sums, &n, NULL, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "57014");
  run_end(&r);
  qw_stats_t qs;
  qw_pool_stats(f->f_pool, &qs);
  assert_int_equal(qs.qs_in_use, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_gather_rows_once, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_partial_agg, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_cancel, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_reopen, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_refuses, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_hashjoin, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_parallel_build, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather_parallel_merge, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
