/* Statistics kept by the table layer's writes (catalog/cat_stats.c):
 * committed row counts through commit, rollback and rollback to a
 * savepoint; distinct values, NULL fraction and width from single-row and
 * batch writes; ANALYZE rebuilding them; the statistics file across a
 * clean close and a crash.
 */
#include <math.h>

#include "../catalog/cat_test.h"

typedef struct st_fix_s {
  ct_env_t t;
  cat_oid_t oid;
  cat_snapshot_t *snap;
  const cat_table_t *tb;
  char *stats_path;
} st_fix_t;

/* st(id INT4 PRIMARY KEY, g INT4, s TEXT) */
static void st_setup(st_fix_t *f, const char *name)
{
  ct_init(&f->t, name);
  char buf[256];
  snprintf(buf, sizeof buf, "%s.stats", name);
  f->stats_path = cz_test_path(buf);
  unlink(f->stats_path);
  txn_t *tx = ct_begin(&f->t);
  cat_column_def_t cols[3] = {ct_col("id", TY_INT4, true), ct_col("g", TY_INT4, false),
                              ct_col("s", TY_TEXT, false)};
  int pk[1] = {0};
  cat_table_def_t def = {.td_name = "st", .td_owner = 10, .td_ncols = 3, .td_cols = cols,
                         .td_npk = 1, .td_pk = pk};
  CT_OK(cat_create_table(f->t.ce_cat, tx, &def, &f->oid, &e_));
  CT_OK(txn_commit(tx, &e_));
  f->snap = cat_snapshot(f->t.ce_cat);
  f->tb = cat_table_by_oid(f->snap, f->oid);
}

static void st_reopen(st_fix_t *f, bool checkpoint)
{
  cat_snapshot_release(f->snap);
  ct_close(&f->t, checkpoint);
  ct_open_only(&f->t);
  db_stats_t ds;
  db_get_stats(f->t.ce_db, &ds);
  CT_OK(cat_stats_attach(f->t.ce_cat, f->stats_path, ds.ds_replayed > 0, &e_));
  f->snap = cat_snapshot(f->t.ce_cat);
  f->tb = cat_table_by_oid(f->snap, f->oid);
}

static void st_teardown(st_fix_t *f)
{
  cat_snapshot_release(f->snap);
  ct_fini(&f->t);
  unlink(f->stats_path);
  free(f->stats_path);
}

/* Row i: g = i % 10, s NULL on even rows. */
static void st_row(int i, datum_t *row, char *buf)
{
  memset(row, 0, sizeof(datum_t) * 3);
  row[0].d_i64 = i;
  row[1].d_i64 = i % 10;
  if (i % 2 == 0) {
    row[2].d_null = true;
  } else {
    int n = snprintf(buf, 16, "s%05d", i);
    row[2].d_str = (str_t){buf, (uint32_t)n};
  }
}

static void st_insert(st_fix_t *f, txn_t *tx, int from, int to)
{
  char buf[16];
  for (int i = from; i < to; i++) {
    datum_t row[3];
    st_row(i, row, buf);
    CT_OK(tbl_insert_row(tx, f->tb, row, &e_));
  }
}

/* The same rows as one batch (tbl_insert: statistics once per batch). */
static void st_insert_batch(st_fix_t *f, txn_t *tx, int from, int to)
{
  arena_t *a = arena_create(NULL, "batch");
  err_t e;
  batch_t *b = batch_create(a, 3, f->tb->ct_types, to - from, &e);
  assert_non_null(b);
  char *bufs = arena_alloc(a, (size_t)(to - from) * 16);
  for (int i = from; i < to; i++) {
    datum_t row[3];
    st_row(i, row, bufs + (i - from) * 16);
    for (int c = 0; c < 3; c++)
      vec_set(&b->b_cols[c], i - from, &row[c]);
  }
  b->b_n = to - from;
  CT_OK(tbl_insert(tx, f->tb, b, NULL, to - from, &e_));
  arena_destroy(a);
}

static cat_tabstats_t st_get(st_fix_t *f, arena_t *a)
{
  cat_tabstats_t ts;
  cat_stats_get(f->tb, a, &ts);
  return ts;
}

static void test_counts_follow_transactions(void **state)
{
  (void)state;
  st_fix_t f;
  st_setup(&f, "stats_counts");
  arena_t *a = arena_create(NULL, "t");
  txn_t *tx = ct_begin(&f.t);
  st_insert(&f, tx, 0, 500);
  assert_true(st_get(&f, a).ts_rows == 0);  /* not before the commit */
  CT_OK(txn_commit(tx, &e_));
  assert_true(st_get(&f, a).ts_rows == 500);
  tx = ct_begin(&f.t);
  st_insert_batch(&f, tx, 500, 1000);
  CT_OK(txn_commit(tx, &e_));
  assert_true(st_get(&f, a).ts_rows == 1000);
  /* a rolled-back insert is not counted */
  tx = ct_begin(&f.t);
  st_insert(&f, tx, 1000, 1200);
  CT_OK(txn_rollback(tx, &e_));
  assert_true(st_get(&f, a).ts_rows == 1000);
  /* a failed batch counts the rows written before the failure, and the
   * rollback drops them */
  tx = ct_begin(&f.t);
  err_t e;
  st_insert_batch(&f, tx, 2000, 2010);
  char buf[16];
  datum_t dup[3];
  st_row(5, dup, buf);
  assert_int_equal(tbl_insert_row(tx, f.tb, dup, &e), CZ_ERR);
  CT_OK(txn_rollback(tx, &e_));
  assert_true(st_get(&f, a).ts_rows == 1000);
  /* rollback to a savepoint: the count is taken from the tree again */
  tx = ct_begin(&f.t);
  st_insert(&f, tx, 3000, 3010);
  txn_mark_t *m = txn_savepoint_mark(tx);
  st_insert(&f, tx, 3010, 3300);
  CT_OK(txn_rollback_to_mark(tx, m, &e_));
  CT_OK(txn_commit(tx, &e_));
  double rows = st_get(&f, a).ts_rows;
  if (fabs(rows - 1010) > 1010 * 0.25)
    fail_msg("after a rollback to a savepoint %.0f rows, want about 1010", rows);
  arena_destroy(a);
  st_teardown(&f);
}

static void test_column_estimates(void **state)
{
  (void)state;
  st_fix_t f;
  st_setup(&f, "stats_cols");
  arena_t *a = arena_create(NULL, "t");
  txn_t *tx = ct_begin(&f.t);
  st_insert(&f, tx, 0, 2000);
  st_insert_batch(&f, tx, 2000, 4000);
  CT_OK(txn_commit(tx, &e_));
  cat_tabstats_t ts = st_get(&f, a);
  assert_true(ts.ts_rows == 4000);
  assert_true(fabs(ts.ts_cols[0].cs_ndv - 4000) < 4000 * 0.1);
  assert_true(fabs(ts.ts_cols[1].cs_ndv - 10) < 0.5);
  assert_true(ts.ts_cols[1].cs_null_frac == 0);
  assert_true(fabs(ts.ts_cols[2].cs_null_frac - 0.5) < 1e-9);
  assert_true(fabs(ts.ts_cols[2].cs_ndv - 2000) < 2000 * 0.1);
  assert_true(fabs(ts.ts_cols[2].cs_avg_width - 6) < 1e-9);  /* "s00001" */
  assert_true(ts.ts_cols[1].cs_avg_width > 0);
  arena_destroy(a);
  st_teardown(&f);
}

static void test_analyze_rebuilds(void **state)
{
  (void)state;
  st_fix_t f;
  st_setup(&f, "stats_analyze");
  arena_t *a = arena_create(NULL, "t");
  txn_t *tx = ct_begin(&f.t);
  st_insert(&f, tx, 0, 3000);
  CT_OK(txn_commit(tx, &e_));
  /* delete all but 100 rows: the sketch still has every id it saw */
  arena_t *sa = arena_create(NULL, "scan");
  tx = ct_begin(&f.t);
  int cols[1] = {0};
  tbl_scan_t *s;
  CT_OK(tbl_scan_open(tx, f.tb, 0, cols, 1, NULL, NULL, true, sa, &s, &e_));
  ty_t tys[2] = {ty_plain(TY_INT4), ty_plain(TY_BYTEA)};
  err_t e;
  batch_t *b = batch_create(sa, 2, tys, 4000, &e);
  CT_OK(tbl_scan_next(s, b, sa, &e_));
  assert_int_equal(b->b_n, 3000);
  tbl_scan_close(s);
  int sel[2900];
  for (int i = 0; i < 2900; i++)
    sel[i] = i + 100;
  CT_OK(tbl_delete(tx, f.tb, b, 1, sel, 2900, &e_));
  CT_OK(txn_commit(tx, &e_));
  arena_destroy(sa);
  cat_tabstats_t ts = st_get(&f, a);
  assert_true(ts.ts_rows == 100);
  assert_true(ts.ts_cols[0].cs_ndv <= 100);  /* capped by the rows */
  assert_false(ts.ts_analyzed);
  CT_OK(tbl_analyze(NULL, f.tb, NULL, &e_));
  ts = st_get(&f, a);
  assert_true(ts.ts_analyzed);
  assert_true(ts.ts_rows == 100);
  if (fabs(ts.ts_cols[0].cs_ndv - 100) >= 8)  /* linear counting: about 2% per sigma */
    fail_msg("ndv %f rows %f", ts.ts_cols[0].cs_ndv, ts.ts_rows);
  assert_true(fabs(ts.ts_cols[1].cs_ndv - 10) < 0.5);
  assert_true(fabs(ts.ts_cols[2].cs_null_frac - 0.5) < 1e-9);
  /* a cancelled ANALYZE fails with 57014 and leaves the statistics */
  volatile bool cancel = true;
  CT_FAILS(SQLSTATE_QUERY_CANCELED, tbl_analyze(NULL, f.tb, &cancel, &e_));
  assert_true(st_get(&f, a).ts_rows == 100);
  arena_destroy(a);
  st_teardown(&f);
}

static void test_saved_across_close_and_crash(void **state)
{
  (void)state;
  st_fix_t f;
  st_setup(&f, "stats_file");
  CT_OK(cat_stats_attach(f.t.ce_cat, f.stats_path, false, &e_));
  arena_t *a = arena_create(NULL, "t");
  txn_t *tx = ct_begin(&f.t);
  st_insert(&f, tx, 0, 1500);
  CT_OK(txn_commit(tx, &e_));
  st_reopen(&f, true);
  cat_tabstats_t ts = st_get(&f, a);
  assert_true(ts.ts_rows == 1500);
  assert_true(fabs(ts.ts_cols[1].cs_ndv - 10) < 0.5);
  assert_true(fabs(ts.ts_cols[2].cs_null_frac - 0.5) < 1e-9);
  /* after a crash the log replays rows the file does not know: the count
   * comes from the tree, the sketches stay */
  tx = ct_begin(&f.t);
  st_insert(&f, tx, 1500, 3000);
  CT_OK(txn_commit(tx, &e_));
  st_reopen(&f, false);
  ts = st_get(&f, a);
  if (fabs(ts.ts_rows - 3000) > 3000 * 0.25)
    fail_msg("after a crash %.0f rows, want about 3000", ts.ts_rows);
  assert_true(fabs(ts.ts_cols[1].cs_ndv - 10) < 0.5);
  /* a table the file does not hold: rows from the tree, no distinct
   * estimate until ANALYZE */
  cat_snapshot_release(f.snap);
  ct_close(&f.t, true);
  unlink(f.stats_path);
  ct_open_only(&f.t);
  CT_OK(cat_stats_attach(f.t.ce_cat, f.stats_path, false, &e_));
  f.snap = cat_snapshot(f.t.ce_cat);
  f.tb = cat_table_by_oid(f.snap, f.oid);
  ts = st_get(&f, a);
  assert_true(fabs(ts.ts_rows - 3000) <= 3000 * 0.25);
  assert_true(ts.ts_cols[1].cs_ndv < 0);
  CT_OK(tbl_analyze(NULL, f.tb, NULL, &e_));
  assert_true(fabs(st_get(&f, a).ts_cols[1].cs_ndv - 10) < 0.5);
  arena_destroy(a);
  st_teardown(&f);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counts_follow_transactions),
      cmocka_unit_test(test_column_estimates),
      cmocka_unit_test(test_analyze_rebuilds),
      cmocka_unit_test(test_saved_across_close_and_crash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
