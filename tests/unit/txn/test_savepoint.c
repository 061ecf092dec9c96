/* Savepoints: txn_savepoint_mark / txn_rollback_to_mark. Changes after a
 * mark are undone and those before kept (in the tree, in what others see,
 * in the commit record replayed after a restart), deferred deletes after
 * the mark are cancelled, trees created after it vanish and trees dropped
 * after it come back, nested marks, locks kept with the committed view for
 * a concurrent reader and writer, and the rollback-to callbacks.
 */
#include <pthread.h>

#include "txn_test.h"

static bt_tree_t *ts_setup(tt_db_t *t, const char *name, db_t **db, int rows)
{
  tt_init(t, name);
  *db = tt_open(t);
  bt_tree_t *tr = tt_create(*db, "rows", BT_UNIQUE);
  txn_t *tx = txn_begin(*db, 0, NULL);
  for (int i = 0; i < rows; i++)
    assert_int_equal(tt_insert(tx, tr, i, 1), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  return tr;
}

static bool ts_has_tree(db_t *db, const char *name)
{
  bt_tree_t *t;
  err_t e;
  return db_open_tree(db, name, &t, &e) == CZ_OK;
}

/* The state both checks below expect, as tx sees it and after commit. */
static void ts_check_partial(db_t *db, const txn_t *who, bt_tree_t *tr)
{
  assert_int_equal(tt_version_as(db, who, tr, 1), 2);   /* before the mark */
  assert_int_equal(tt_version_as(db, who, tr, 2), -1);  /* deleted before the mark */
  assert_int_equal(tt_version_as(db, who, tr, 20), 3); /* inserted before the mark */
  assert_int_equal(tt_version_as(db, who, tr, 4), 1);   /* updated after: undone */
  assert_int_equal(tt_version_as(db, who, tr, 5), 1);   /* deleted after: cancelled */
  assert_int_equal(tt_version_as(db, who, tr, 21), -1); /* inserted after: gone */
  assert_int_equal(tt_version_as(db, who, tr, 6), 8);   /* after the rollback */
}

static void test_rollback_to_mark(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "sp_basic", &db, 10);
  txn_t *tx = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(tx, tr, 1, 2), CZ_OK);
  assert_int_equal(tt_delete(tx, tr, 2), CZ_OK);
  assert_int_equal(tt_insert(tx, tr, 20, 3), CZ_OK);
  txn_mark_t *m = txn_savepoint_mark(tx);
  assert_int_equal(tt_update(tx, tr, 1, 5), CZ_OK);   /* locked before, changed again */
  assert_int_equal(tt_update(tx, tr, 4, 7), CZ_OK);
  assert_int_equal(tt_insert(tx, tr, 21, 1), CZ_OK);
  assert_int_equal(tt_delete(tx, tr, 5), CZ_OK);
  assert_int_equal(tt_insert(tx, tr, 2, 9), CZ_OK);   /* revives the key deleted before */
  assert_int_equal(tt_update(tx, tr, 20, 4), CZ_OK);
  bt_tree_t *nt;
  TT_OK(db_create_tree(tx, "after", BT_UNIQUE, &nt, &e_));
  assert_int_equal(tt_insert(tx, nt, 1, 1), CZ_OK);
  assert_int_equal(tt_version_as(db, tx, tr, 2), 9);
  TT_OK(txn_rollback_to_mark(tx, m, &e_));
  assert_false(ts_has_tree(db, "after"));
  assert_int_equal(tt_update(tx, tr, 6, 8), CZ_OK);
  ts_check_partial(db, tx, tr);
  /* others see the committed state only */
  assert_int_equal(tt_version_as(db, NULL, tr, 1), 1);
  assert_int_equal(tt_version_as(db, NULL, tr, 2), 1);
  assert_int_equal(tt_version_as(db, NULL, tr, 4), 1);
  assert_int_equal(tt_version_as(db, NULL, tr, 20), -1);
  assert_int_equal(tt_version_as(db, NULL, tr, 21), -1);
  TT_OK(txn_commit(tx, &e_));
  ts_check_partial(db, NULL, tr);
  assert_int_equal(tt_count(tr), 10); /* 0..9 less 2, plus 20 */
  assert_int_equal(db_tree_nlocked(db_tree_of(db, tr)), 0);
  /* the commit record holds exactly the surviving work: replay it */
  TT_OK(db_close(db, false, &e_));
  db = tt_open(&t);
  tr = tt_tree(db, "rows");
  ts_check_partial(db, NULL, tr);
  assert_int_equal(tt_count(tr), 10);
  assert_false(ts_has_tree(db, "after"));
  tt_close(db);
  tt_fini(&t);
}

static void test_nested_marks(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "sp_nested", &db, 10);
  txn_t *tx = txn_begin(db, 0, NULL);
  txn_mark_t *m1 = txn_savepoint_mark(tx);
  assert_int_equal(tt_update(tx, tr, 1, 2), CZ_OK);
  txn_mark_t *m2 = txn_savepoint_mark(tx);
  assert_int_equal(tt_update(tx, tr, 2, 2), CZ_OK);
  assert_int_equal(tt_delete(tx, tr, 1), CZ_OK);
  txn_mark_t *m3 = txn_savepoint_mark(tx);
  assert_int_equal(tt_update(tx, tr, 3, 2), CZ_OK);
  (void)m3;
  TT_OK(txn_rollback_to_mark(tx, m2, &e_));
  assert_int_equal(tt_version_as(db, tx, tr, 1), 2);
  assert_int_equal(tt_version_as(db, tx, tr, 2), 1);
  assert_int_equal(tt_version_as(db, tx, tr, 3), 1);
  assert_int_equal(tt_update(tx, tr, 4, 2), CZ_OK);
  /* the same mark again, then an outer one */
  TT_OK(txn_rollback_to_mark(tx, m2, &e_));
  assert_int_equal(tt_version_as(db, tx, tr, 4), 1);
  assert_int_equal(tt_update(tx, tr, 5, 2), CZ_OK);
  TT_OK(txn_rollback_to_mark(tx, m1, &e_));
  for (int i = 0; i < 10; i++)
    assert_int_equal(tt_version_as(db, tx, tr, i), 1);
  assert_int_equal(tt_update(tx, tr, 7, 3), CZ_OK);
  /* a mark of an unchanged state is the same mark */
  assert_ptr_equal(txn_savepoint_mark(tx), txn_savepoint_mark(tx));
  TT_OK(txn_commit(tx, &e_));
  TT_OK(db_close(db, false, &e_));
  db = tt_open(&t);
  tr = tt_tree(db, "rows");
  for (int i = 0; i < 10; i++)
    assert_int_equal(tt_version(tr, i), i == 7 ? 3 : 1);
  tt_close(db);
  tt_fini(&t);
}

static void test_trees_after_mark(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "sp_trees", &db, 3);
  txn_t *tx = txn_begin(db, 0, NULL);
  txn_mark_t *m = txn_savepoint_mark(tx);
  TT_OK(db_drop_tree(tx, "rows", &e_));
  bt_tree_t *nt;
  TT_OK(db_create_tree(tx, "fresh", BT_UNIQUE, &nt, &e_));
  assert_int_equal(tt_insert(tx, nt, 1, 1), CZ_OK);
  TT_OK(txn_rollback_to_mark(tx, m, &e_));
  assert_true(ts_has_tree(db, "rows"));
  assert_false(ts_has_tree(db, "fresh"));
  /* the name is free again for this transaction */
  TT_OK(db_create_tree(tx, "fresh", BT_UNIQUE, &nt, &e_));
  assert_int_equal(tt_insert(tx, nt, 2, 5), CZ_OK);
  assert_int_equal(tt_update(tx, tr, 0, 4), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  TT_OK(db_close(db, false, &e_));
  db = tt_open(&t);
  tr = tt_tree(db, "rows");
  nt = tt_tree(db, "fresh");
  assert_int_equal(tt_version(tr, 0), 4);
  assert_int_equal(tt_count(tr), 3);
  assert_int_equal(tt_version(nt, 1), -1);
  assert_int_equal(tt_version(nt, 2), 5);
  tt_close(db);
  tt_fini(&t);
}

typedef struct ts_job_s {
  txn_t *tx;
  bt_tree_t *tr;
  int key, version, rc;
  char sqlstate[6];
  volatile int done;
} ts_job_t;

static void *ts_updater(void *arg)
{
  ts_job_t *j = arg;
  char k[32], v[128];
  size_t kl = tt_key(k, j->key), vl = tt_val(v, j->key, j->version);
  err_t e;
  err_clear(&e);
  j->rc = txn_update(j->tx, j->tr, k, kl, v, vl, &e);
  memcpy(j->sqlstate, e.er_sqlstate, 6);
  j->done = 1;
  return NULL;
}

/* Keys locked after the mark are released by the rollback to it (as
 * PostgreSQL releases a subtransaction's row locks): a concurrent reader
 * sees the committed value throughout, a writer gets such a key at once
 * and finds it unchanged (no 40001), while a key locked before the mark
 * stays locked until the transaction ends. */
static void test_locks_with_reader_and_writer(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "sp_locks", &db, 6);
  txn_t *w = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(w, tr, 2, 5), CZ_OK);
  txn_mark_t *m = txn_savepoint_mark(w);
  assert_int_equal(tt_update(w, tr, 2, 6), CZ_OK);
  assert_int_equal(tt_update(w, tr, 3, 7), CZ_OK);
  assert_int_equal(tt_insert(w, tr, 9, 7), CZ_OK);
  txn_t *r = txn_begin(db, 0, NULL);
  assert_int_equal(tt_version_as(db, r, tr, 2), 1);
  assert_int_equal(tt_version_as(db, r, tr, 3), 1);
  assert_int_equal(tt_version_as(db, r, tr, 9), -1);
  TT_OK(txn_rollback_to_mark(w, m, &e_));
  assert_int_equal(tt_version_as(db, r, tr, 2), 1);
  assert_int_equal(tt_version_as(db, r, tr, 3), 1);
  assert_int_equal(tt_version_as(db, r, tr, 9), -1);
  assert_int_equal(tt_version_as(db, w, tr, 2), 5);
  assert_int_equal(tt_version_as(db, w, tr, 3), 1);
  ts_job_t j = { .tx = txn_begin(db, 0, NULL), .tr = tr, .key = 3, .version = 8 };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, ts_updater, &j), 0);
  pthread_join(th, NULL);  /* the lock taken after the mark is gone: no wait */
  assert_int_equal(j.rc, CZ_OK); /* the undone change is no concurrent update */
  TT_OK(txn_commit(j.tx, &e_));
  ts_job_t j2 = { .tx = txn_begin(db, 0, NULL), .tr = tr, .key = 2, .version = 9 };
  pthread_t th2;
  assert_int_equal(pthread_create(&th2, NULL, ts_updater, &j2), 0);
  time_sleep_us(50000);
  assert_false(j2.done); /* the lock taken before the mark is still held */
  TT_OK(txn_commit(w, &e_));
  pthread_join(th2, NULL);
  assert_int_equal(j2.rc, CZ_ERR); /* w committed its change before the mark */
  assert_string_equal(j2.sqlstate, "40001");
  txn_rollback(j2.tx, NULL);
  assert_int_equal(tt_version_as(db, r, tr, 2), 5);
  assert_int_equal(tt_version_as(db, r, tr, 3), 8);
  assert_int_equal(tt_version_as(db, r, tr, 9), -1);
  TT_OK(txn_commit(r, &e_));
  tt_close(db);
  tt_fini(&t);
}

static int ts_cb_count;

static int ts_on_rollback_to(void *ctx, txn_t *tx, err_t *e)
{
  (void)tx;
  (void)e;
  ts_cb_count += *(int *)ctx;
  return CZ_OK;
}

static int ts_on_rollback_to_fails(void *ctx, txn_t *tx, err_t *e)
{
  (void)ctx;
  (void)tx;
  return err_set(e, "XX000", "refused");
}

static void test_rollback_to_callbacks(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "sp_cb", &db, 2);
  txn_t *tx = txn_begin(db, 0, NULL);
  int one = 1;
  ts_cb_count = 0;
  txn_on_rollback_to(tx, ts_on_rollback_to, &one);
  txn_mark_t *m = txn_savepoint_mark(tx);
  assert_int_equal(tt_update(tx, tr, 0, 3), CZ_OK);
  TT_OK(txn_rollback_to_mark(tx, m, &e_));
  assert_int_equal(ts_cb_count, 1);
  txn_on_rollback_to(tx, ts_on_rollback_to_fails, NULL);
  err_t e;
  err_clear(&e);
  assert_int_equal(txn_rollback_to_mark(tx, m, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "XX000");
  TT_OK(txn_rollback(tx, &e_));
  /* bulk transactions cannot roll back to a mark */
  txn_t *b = txn_begin(db, TXN_BULK, NULL);
  txn_mark_t *bm = txn_savepoint_mark(b);
  assert_int_equal(txn_rollback_to_mark(b, bm, &e), CZ_ERR);
  TT_OK(txn_commit(b, &e_));
  tt_close(db);
  tt_fini(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rollback_to_mark),
    cmocka_unit_test(test_nested_marks),
    cmocka_unit_test(test_trees_after_mark),
    cmocka_unit_test(test_locks_with_reader_and_writer),
    cmocka_unit_test(test_rollback_to_callbacks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
