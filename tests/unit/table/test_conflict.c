/* INSERT … ON CONFLICT in the table layer (tb_conflict.c) and point
 * lookups (tb_point.c): DO NOTHING on one and on every unique index, DO
 * UPDATE through an evaluation callback called once per batch for the
 * rows the probe found, 21000 for a value written twice, a proposal
 * waiting for another transaction's uncommitted insert of its value (then
 * updating it, or inserting after a rollback), and which bounds make a
 * point lookup.
 */
#include <pthread.h>

#include "../catalog/cat_test.h"

/* kv(id int4 primary key, name varchar not null unique, score float8) */
typedef struct tc_tab_s {
  ct_env_t t;
  cat_oid_t oid;
} tc_tab_t;

static void tc_create(tc_tab_t *p, const char *name)
{
  ct_init(&p->t, name);
  txn_t *tx = ct_begin(&p->t);
  cat_column_def_t cols[3] = { ct_col("id", TY_INT4, false), ct_col("name", TY_VARCHAR, true),
                               ct_col("score", TY_FLOAT8, false) };
  int pk[1] = { 0 };
  cat_table_def_t def = { .td_name = "kv", .td_owner = 10, .td_ncols = 3, .td_cols = cols,
                          .td_npk = 1, .td_pk = pk };
  CT_OK(cat_create_table(p->t.ce_cat, tx, &def, &p->oid, &e_));
  int keys[1] = { 1 };
  cat_index_def_t ix = { .id_name = "kv_name", .id_table = p->oid, .id_unique = true,
                         .id_nkeys = 1, .id_keys = keys };
  CT_OK(tbl_create_index(p->t.ce_cat, tx, &ix, NULL, &e_));
  CT_OK(txn_commit(tx, &e_));
}

static char tc_names[64][16];

/* A batch of proposals (id, "n<name>", score). */
static batch_t *tc_batch(arena_t *a, const cat_table_t *tb, int n, const int *ids, const int *names,
                         const double *scores)
{
  err_t e;
  batch_t *b = batch_create(a, 3, tb->ct_types, n, &e);
  assert_non_null(b);
  for (int i = 0; i < n; i++) {
    datum_t d = { .d_i64 = ids[i] };
    vec_set(&b->b_cols[0], i, &d);
    snprintf(tc_names[i], sizeof tc_names[i], "n%d", names[i]);
    datum_t s = { .d_str = { tc_names[i], (uint32_t)strlen(tc_names[i]) } };
    vec_set(&b->b_cols[1], i, &s);
    datum_t f = { .d_f64 = scores[i] };
    vec_set(&b->b_cols[2], i, &f);
  }
  b->b_n = n;
  return b;
}

static double tc_score(txn_t *tx, const cat_table_t *tb, int id, bool *found)
{
  arena_t *a = arena_create(NULL, "score");
  err_t e;
  int cols[1] = { 2 };
  ty_t t = ty_plain(TY_FLOAT8);
  batch_t *out = batch_create(a, 1, &t, 1, &e);
  datum_t k = { .d_i64 = id };
  const datum_t *keys[1] = { &k };
  CT_OK(tbl_lookup(tx, tb, keys, 1, cols, 1, false, out, found, a, &e_));
  double v = *found ? out->b_cols[0].v_f64[0] : 0;
  arena_destroy(a);
  return v;
}

/* DO UPDATE SET score = existing.score + excluded.score (WHERE excluded.score >= 0). */
static int tc_calls, tc_rows;

static int tc_eval(void *ctx, const batch_t *ex, const batch_t *b, const int *sel, int n,
                   batch_t *newv, bool *ok, err_t *e)
{
  (void)ctx;
  (void)e;
  tc_calls++;
  tc_rows += n;
  for (int i = 0; i < n; i++) {
    int r = sel[i];
    for (int c = 0; c < 2; c++) {
      datum_t d;
      vec_get(&ex->b_cols[c], r, &d);
      vec_set(&newv->b_cols[c], r, &d);
    }
    datum_t s = { .d_f64 = ex->b_cols[2].v_f64[r] + b->b_cols[2].v_f64[r] };
    vec_set(&newv->b_cols[2], r, &s);
    ok[r] = b->b_cols[2].v_f64[r] >= 0;
  }
  return CZ_OK;
}

static void test_do_nothing(void **state)
{
  (void)state;
  tc_tab_t p;
  tc_create(&p, "cf_nothing");
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  arena_t *a = arena_create(NULL, "cf");
  txn_t *tx = ct_begin(&p.t);
  int ids0[2] = { 1, 2 }, names0[2] = { 1, 2 };
  double sc0[2] = { 1, 2 };
  CT_OK(tbl_insert(tx, tb, tc_batch(a, tb, 2, ids0, names0, sc0), NULL, 2, &e_));
  CT_OK(txn_commit(tx, &e_));
  tx = ct_begin(&p.t);
  /* every unique index: a taken id, a new row, its repeat, a taken name */
  tbl_conflict_t *c;
  CT_OK(tbl_conflict_open(tx, tb, -1, NULL, NULL, NULL, a, &c, &e_));
  int ids[4] = { 1, 3, 3, 4 }, names[4] = { 9, 3, 8, 2 };
  double sc[4] = { 0, 0, 0, 0 };
  uint8_t act[4];
  batch_t *newv;
  CT_OK(tbl_conflict_apply(c, tc_batch(a, tb, 4, ids, names, sc), NULL, 4, act, &newv, a, &e_));
  assert_int_equal(act[0], TBL_CF_SKIPPED);
  assert_int_equal(act[1], TBL_CF_INSERTED);
  assert_int_equal(act[2], TBL_CF_SKIPPED);
  assert_int_equal(act[3], TBL_CF_SKIPPED);
  /* the name index alone: a taken id is 23505 */
  CT_OK(tbl_conflict_open(tx, tb, 1, NULL, NULL, NULL, a, &c, &e_));
  int ids2[1] = { 1 }, names2[1] = { 77 };
  CT_FAILS(SQLSTATE_UNIQUE_VIOLATION,
           tbl_conflict_apply(c, tc_batch(a, tb, 1, ids2, names2, sc), NULL, 1, act, &newv, a,
                              &e_));
  CT_OK(txn_rollback(tx, &e_));
  int64_t count;
  CT_OK(tbl_count(NULL, tb, &count, &e_));
  assert_int_equal(count, 2);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

static void test_do_update(void **state)
{
  (void)state;
  tc_tab_t p;
  tc_create(&p, "cf_update");
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  arena_t *a = arena_create(NULL, "cf");
  txn_t *tx = ct_begin(&p.t);
  int ids0[2] = { 1, 2 }, names0[2] = { 1, 2 };
  double sc0[2] = { 10, 20 };
  CT_OK(tbl_insert(tx, tb, tc_batch(a, tb, 2, ids0, names0, sc0), NULL, 2, &e_));
  bool set[3] = { false, false, true };
  tbl_conflict_t *c;
  CT_OK(tbl_conflict_open(tx, tb, 0, tc_eval, NULL, set, a, &c, &e_));
  tc_calls = tc_rows = 0;
  /* two found (one with WHERE false), one new */
  int ids[3] = { 1, 5, 2 }, names[3] = { 1, 5, 2 };
  double sc[3] = { 1, 5, -1 };
  uint8_t act[3];
  batch_t *newv;
  CT_OK(tbl_conflict_apply(c, tc_batch(a, tb, 3, ids, names, sc), NULL, 3, act, &newv, a, &e_));
  assert_int_equal(tc_calls, 1); /* the found rows evaluated together */
  assert_int_equal(tc_rows, 2);
  assert_int_equal(act[0], TBL_CF_UPDATED);
  assert_int_equal(act[1], TBL_CF_INSERTED);
  assert_int_equal(act[2], TBL_CF_SKIPPED);
  assert_true(newv->b_cols[2].v_f64[0] == 11);
  assert_true(newv->b_cols[0].v_i64[1] == 5);
  bool found;
  assert_true(tc_score(tx, tb, 1, &found) == 11 && found);
  assert_true(tc_score(tx, tb, 2, &found) == 20 && found);
  assert_true(tc_score(tx, tb, 5, &found) == 5 && found);
  /* a value this statement wrote, again (in a later batch, and in one batch) */
  int ids2[1] = { 5 }, names2[1] = { 5 };
  CT_FAILS(SQLSTATE_CARDINALITY,
           tbl_conflict_apply(c, tc_batch(a, tb, 1, ids2, names2, sc), NULL, 1, act, &newv, a,
                              &e_));
  CT_OK(tbl_conflict_open(tx, tb, 0, tc_eval, NULL, set, a, &c, &e_));
  int ids3[2] = { 8, 8 }, names3[2] = { 8, 9 };
  CT_FAILS(SQLSTATE_CARDINALITY,
           tbl_conflict_apply(c, tc_batch(a, tb, 2, ids3, names3, sc), NULL, 2, act, &newv, a,
                              &e_));
  CT_OK(txn_rollback(tx, &e_));
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

/* Another transaction's upsert of a value tx has inserted, uncommitted. */
typedef struct tc_job_s {
  ct_env_t *t;
  const cat_table_t *tb;
  int index;
  int rc;
  uint8_t act;
  volatile int done;
} tc_job_t;

static void *tc_upsert_one(void *arg)
{
  tc_job_t *j = arg;
  arena_t *a = arena_create(NULL, "job");
  txn_t *tx = ct_begin(j->t);
  bool set[3] = { false, false, true };
  tbl_conflict_t *c;
  err_t e;
  int ids[1] = { 7 }, names[1] = { 7 };
  double sc[1] = { 100 };
  batch_t *newv;
  j->rc = tbl_conflict_open(tx, j->tb, j->index, tc_eval, NULL, set, a, &c, &e);
  if (j->rc == CZ_OK)
    j->rc = tbl_conflict_apply(c, tc_batch(a, j->tb, 1, ids, names, sc), NULL, 1, &j->act, &newv,
                               a, &e);
  if (j->rc == CZ_OK)
    j->rc = txn_commit(tx, &e);
  else
    txn_rollback(tx, &e);
  arena_destroy(a);
  j->done = 1;
  return NULL;
}

static void tc_race(bool commit_first, int index)
{
  tc_tab_t p;
  tc_create(&p, "cf_race");
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  arena_t *a = arena_create(NULL, "cf");
  txn_t *tx = ct_begin(&p.t);
  int ids[1] = { 7 }, names[1] = { 7 };
  double sc[1] = { 1 };
  CT_OK(tbl_insert(tx, tb, tc_batch(a, tb, 1, ids, names, sc), NULL, 1, &e_));
  tc_job_t j = { .t = &p.t, .tb = tb, .index = index };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, tc_upsert_one, &j), 0);
  time_sleep_us(50000);
  assert_false(j.done); /* waits for the inserter */
  if (commit_first)
    CT_OK(txn_commit(tx, &e_));
  else
    CT_OK(txn_rollback(tx, &e_));
  pthread_join(th, NULL);
  assert_int_equal(j.rc, CZ_OK); /* never 23505 */
  assert_int_equal(j.act, commit_first ? TBL_CF_UPDATED : TBL_CF_INSERTED);
  bool found;
  assert_true(tc_score(NULL, tb, 7, &found) == (commit_first ? 101 : 100) && found);
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

static void test_waits_for_inserter(void **state)
{
  (void)state;
  tc_race(true, 0);
  tc_race(false, 0);
  tc_race(true, 1);
  tc_race(false, 1);
}

static void test_point_lookup(void **state)
{
  (void)state;
  tc_tab_t p;
  tc_create(&p, "cf_point");
  cat_snapshot_t *s = cat_snapshot(p.t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, p.oid);
  arena_t *a = arena_create(NULL, "cf");
  txn_t *tx = ct_begin(&p.t);
  int ids[2] = { 3, 4 }, names[2] = { 3, 4 };
  double sc[2] = { 3, 4 };
  CT_OK(tbl_insert(tx, tb, tc_batch(a, tb, 2, ids, names, sc), NULL, 2, &e_));
  datum_t k3 = { .d_i64 = 3 }, k3b = { .d_i64 = 3 }, k4 = { .d_i64 = 4 };
  tbl_bound_t lo = { 1, &k3, true }, hi = { 1, &k3b, true }, hi4 = { 1, &k4, true };
  tbl_bound_t open_lo = { 1, &k3, false };
  int cols[1] = { 2 };
  tbl_point_t *pt;
  err_t e;
  assert_int_equal(tbl_point_open(tx, tb, 0, cols, 1, &lo, &hi4, false, a, &pt, &e), 1);
  assert_int_equal(tbl_point_open(tx, tb, 0, cols, 1, &open_lo, &hi, false, a, &pt, &e), 1);
  assert_int_equal(tbl_point_open(tx, tb, 1, cols, 1, &lo, &hi, false, a, &pt, &e), 1);
  assert_int_equal(tbl_point_open(tx, tb, 0, cols, 1, NULL, NULL, false, a, &pt, &e), 1);
  CT_OK(tbl_point_open(tx, tb, 0, cols, 1, &lo, &hi, true, a, &pt, &e_));
  ty_t types[2] = { ty_plain(TY_FLOAT8), ty_plain(TY_BYTEA) };
  batch_t *out = batch_create(a, 2, types, 4, &e);
  CT_OK(tbl_point_next(pt, out, a, &e_));
  assert_int_equal(out->b_n, 1);
  assert_true(out->b_cols[0].v_f64[0] == 3);
  assert_false(out->b_cols[1].v_null[0]);
  CT_OK(tbl_point_next(pt, out, a, &e_));
  assert_int_equal(out->b_n, 0);
  CT_OK(txn_rollback(tx, &e_));
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&p.t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_do_nothing),
    cmocka_unit_test(test_do_update),
    cmocka_unit_test(test_waits_for_inserter),
    cmocka_unit_test(test_point_lookup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
