/* test_txn — transactions in one process: commit, rollback of every kind
 * of change, absent keys, read-only commits, group commit through the
 * database, named trees across a clean restart, bulk transactions and the
 * configuration from an ini file.
 */
#include "txn_test.h"

#include "thread/thread.h"

static void test_commit_visible_and_counted(void **state)
{
  tt_db_t t;
  tt_init(&t, "commit");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  txn_t *tx = txn_begin(db, 0, NULL);
  for (int i = 0; i < 100; i++)
    assert_int_equal(tt_insert(tx, tr, i, 0), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  for (int i = 0; i < 100; i++)
    assert_int_equal(tt_version(tr, i), 0);
  db_stats_t s;
  db_get_stats(db, &s);
  assert_int_equal(s.ds_commits, 2);
  assert_int_equal(s.ds_log_writes, 2);
  assert_true(s.ds_log_bytes > 100 * 20);
  tt_close(db);
  tt_fini(&t);
}

/* Insert, update and delete undone in reverse order, including several
 * changes to one row in one transaction. */
static void test_rollback_restores_rows(void **state)
{
  tt_db_t t;
  tt_init(&t, "rollback");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  txn_t *tx = txn_begin(db, 0, NULL);
  for (int i = 0; i < 300; i++)
    assert_int_equal(tt_insert(tx, tr, i, 1), CZ_OK);
  TT_OK(txn_commit(tx, &e_));

  tx = txn_begin(db, 0, NULL);
  for (int i = 0; i < 300; i += 3)
    assert_int_equal(tt_update(tx, tr, i, 2), CZ_OK);
  for (int i = 1; i < 300; i += 3)
    assert_int_equal(tt_delete(tx, tr, i), CZ_OK);
  for (int i = 300; i < 700; i++)
    assert_int_equal(tt_insert(tx, tr, i, 3), CZ_OK);
  assert_int_equal(tt_update(tx, tr, 0, 4), CZ_OK);
  assert_int_equal(tt_delete(tx, tr, 0), CZ_OK);
  assert_int_equal(tt_insert(tx, tr, 0, 5), CZ_OK);
  assert_int_equal(tt_delete(tx, tr, 301), CZ_OK);
  assert_int_equal(tt_version_as(db, tx, tr, 0), 5);
  /* Deleted by tx: gone for tx, still there for others until commit. */
  assert_int_equal(tt_version_as(db, tx, tr, 1), -1);
  assert_int_equal(tt_version_as(db, NULL, tr, 1), 1);
  assert_int_equal(tt_version_as(db, NULL, tr, 0), 1);
  assert_int_equal(tt_version_as(db, NULL, tr, 300), -1);
  TT_OK(txn_rollback(tx, &e_));

  for (int i = 0; i < 300; i++)
    assert_int_equal(tt_version(tr, i), 1);
  for (int i = 300; i < 700; i++)
    assert_int_equal(tt_version(tr, i), -1);
  assert_int_equal(tt_count(tr), 300);
  db_stats_t s;
  db_get_stats(db, &s);
  assert_int_equal(s.ds_log_writes, 2); /* the rolled-back transaction wrote nothing */
  tt_close(db);
  tt_fini(&t);
}

static void test_rollback_non_unique(void **state)
{
  tt_db_t t;
  tt_init(&t, "nonunique");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "dups", 0);
  err_t e;
  txn_t *tx = txn_begin(db, 0, NULL);
  TT_OK(txn_insert(tx, tr, "a", 1, "1", 1, &e_));
  TT_OK(txn_insert(tx, tr, "a", 1, "2", 1, &e_));
  TT_OK(txn_commit(tx, &e_));
  tx = txn_begin(db, 0, NULL);
  TT_OK(txn_delete(tx, tr, "a", 1, "1", 1, &e_));
  TT_OK(txn_insert(tx, tr, "a", 1, "3", 1, &e_));
  assert_int_equal(txn_delete(tx, tr, "a", 1, "9", 1, &e), BT_NOT_FOUND);
  assert_int_equal(txn_update(tx, tr, "a", 1, "4", 1, &e), CZ_ERR);
  TT_OK(txn_rollback(tx, &e_));
  char v[8];
  size_t vl;
  TT_OK(bt_lookup(tr, "a", 1, v, sizeof v, &vl, &e_));
  assert_int_equal(vl, 1);
  assert_int_equal(v[0], '1');
  assert_int_equal(tt_count(tr), 2);
  tt_close(db);
  tt_fini(&t);
}

/* Absent keys: BT_NOT_FOUND and nothing logged; a failed insert leaves the
 * transaction usable. A read-only commit does not touch the log. */
static void test_absent_keys_and_read_only(void **state)
{
  tt_db_t t;
  tt_init(&t, "absent");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  db_stats_t before, after;
  db_get_stats(db, &before);
  txn_t *tx = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(tx, tr, 5, 1), BT_NOT_FOUND);
  assert_int_equal(tt_delete(tx, tr, 5), BT_NOT_FOUND);
  TT_OK(txn_commit(tx, &e_));
  db_get_stats(db, &after);
  assert_int_equal(after.ds_log_writes, before.ds_log_writes);
  assert_int_equal(after.ds_log_bytes, before.ds_log_bytes);

  tx = txn_begin(db, 0, NULL);
  assert_int_equal(tt_insert(tx, tr, 5, 1), CZ_OK);
  assert_int_equal(tt_insert(tx, tr, 5, 2), CZ_ERR);
  assert_int_equal(tt_insert(tx, tr, 6, 1), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  assert_int_equal(tt_version(tr, 5), 1);
  assert_int_equal(tt_version(tr, 6), 1);
  tt_close(db);
  tt_fini(&t);
}

/* A handle that is not a named tree of the database is refused. */
static void test_unregistered_tree_refused(void **state)
{
  tt_db_t t;
  tt_init(&t, "unreg");
  db_t *db = tt_open(&t);
  pg_no_t root;
  bt_tree_t *raw;
  TT_OK(bt_create(db_pool(db), BT_UNIQUE, &root, &e_));
  TT_OK(bt_open(db_pool(db), root, &raw, &e_));
  txn_t *tx = txn_begin(db, 0, NULL);
  err_t e;
  assert_int_equal(txn_insert(tx, raw, "k", 1, "v", 1, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_INTERNAL));
  TT_OK(txn_rollback(tx, &e_));
  bt_close(raw);
  tt_close(db);
  tt_fini(&t);
}

static void test_create_drop_rollback(void **state)
{
  tt_db_t t;
  tt_init(&t, "ddl");
  db_t *db = tt_open(&t);
  bt_tree_t *keep = tt_create(db, "keep", BT_UNIQUE);
  txn_t *tx = txn_begin(db, 0, NULL);
  assert_int_equal(tt_insert(tx, keep, 1, 1), CZ_OK);
  TT_OK(txn_commit(tx, &e_));

  /* Create rolled back: gone, name free again. */
  bt_tree_t *tmp, *again;
  err_t e;
  tx = txn_begin(db, 0, NULL);
  TT_OK(db_create_tree(tx, "tmp", BT_UNIQUE, &tmp, &e_));
  assert_int_equal(tt_insert(tx, tmp, 1, 1), CZ_OK);
  assert_int_equal(db_create_tree(tx, "tmp", BT_UNIQUE, &again, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_UNIQUE_VIOLATION));
  TT_OK(txn_rollback(tx, &e_));
  assert_int_equal(db_open_tree(db, "tmp", &again, &e), BT_NOT_FOUND);

  /* Drop rolled back: the tree and its rows are back. */
  tx = txn_begin(db, 0, NULL);
  TT_OK(db_drop_tree(tx, "keep", &e_));
  assert_int_equal(db_open_tree(db, "keep", &again, &e), BT_NOT_FOUND);
  assert_int_equal(db_drop_tree(tx, "keep", &e), BT_NOT_FOUND);
  assert_int_equal(tt_insert(tx, keep, 2, 1), CZ_ERR); /* no change after its drop */
  /* Re-created under the same name in the same transaction. */
  TT_OK(db_create_tree(tx, "keep", 0, &again, &e_));
  TT_OK(txn_rollback(tx, &e_));
  bt_tree_t *back = tt_tree(db, "keep");
  assert_ptr_equal(back, keep);
  assert_int_equal(tt_version(back, 1), 1);
  assert_int_equal(bt_flags(back) & BT_UNIQUE, BT_UNIQUE);

  /* Drop committed: gone for good, also after a restart. */
  tx = txn_begin(db, 0, NULL);
  TT_OK(db_drop_tree(tx, "keep", &e_));
  TT_OK(txn_commit(tx, &e_));
  assert_int_equal(db_open_tree(db, "keep", &again, &e), BT_NOT_FOUND);
  tt_close(db);
  db = tt_open(&t);
  assert_int_equal(db_open_tree(db, "keep", &again, &e), BT_NOT_FOUND);
  assert_int_equal(db_open_tree(db, "tmp", &again, &e), BT_NOT_FOUND);
  tt_close(db);
  tt_fini(&t);
}

/* A name dropped by one open transaction is not free for another. */
static void test_dropped_name_held_until_end(void **state)
{
  tt_db_t t;
  tt_init(&t, "held");
  db_t *db = tt_open(&t);
  tt_create(db, "x", BT_UNIQUE);
  txn_t *dropper = txn_begin(db, 0, NULL);
  txn_t *other = txn_begin(db, 0, NULL);
  TT_OK(db_drop_tree(dropper, "x", &e_));
  bt_tree_t *tr;
  err_t e;
  assert_int_equal(db_create_tree(other, "x", BT_UNIQUE, &tr, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_OBJECT_IN_USE));
  TT_OK(txn_commit(dropper, &e_));
  TT_OK(db_create_tree(other, "x", 0, &tr, &e_));
  TT_OK(txn_commit(other, &e_));
  tt_close(db);
  db = tt_open(&t);
  assert_int_equal(bt_flags(tt_tree(db, "x")) & BT_UNIQUE, 0);
  tt_close(db);
  tt_fini(&t);
}

static void test_named_trees_survive_restart(void **state)
{
  tt_db_t t;
  tt_init(&t, "names");
  db_t *db = tt_open(&t);
  char name[32];
  for (int n = 0; n < 100; n++) {
    snprintf(name, sizeof name, "tree-%03d", n);
    bt_tree_t *tr = tt_create(db, name, n % 2 ? BT_UNIQUE : 0);
    txn_t *tx = txn_begin(db, 0, NULL);
    assert_int_equal(tt_insert(tx, tr, n, n), CZ_OK);
    TT_OK(txn_commit(tx, &e_));
  }
  tt_close(db);
  db = tt_open(&t);
  for (int n = 0; n < 100; n++) {
    snprintf(name, sizeof name, "tree-%03d", n);
    bt_tree_t *tr = tt_tree(db, name);
    assert_int_equal(bt_flags(tr) & BT_UNIQUE, n % 2 ? BT_UNIQUE : 0);
    assert_int_equal(tt_version(tr, n), n);
    assert_int_equal(tt_count(tr), 1);
  }
  /* New trees get ids after the old ones: creating more still works. */
  bt_tree_t *more = tt_create(db, "more", BT_UNIQUE);
  assert_non_null(more);
  tt_close(db);
  tt_fini(&t);
}

static void test_insert_batch_and_rollback(void **state)
{
  tt_db_t t;
  tt_init(&t, "batch");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  enum { N = 2000 };
  static char keys[N][16], vals[N][128];
  bt_row_t rows[N];
  for (int i = 0; i < N; i++) {
    rows[i].r_key = keys[i];
    rows[i].r_key_len = (uint32_t)tt_key(keys[i], i);
    rows[i].r_val = vals[i];
    rows[i].r_val_len = (uint32_t)tt_val(vals[i], i, 0);
  }
  txn_t *tx = txn_begin(db, 0, NULL);
  TT_OK(txn_insert_batch(tx, tr, rows, N / 2, &e_));
  TT_OK(txn_commit(tx, &e_));
  tx = txn_begin(db, 0, NULL);
  TT_OK(txn_insert_batch(tx, tr, rows + N / 2, N / 2, &e_));
  assert_int_equal(tt_count(tr), N);
  TT_OK(txn_rollback(tx, &e_));
  assert_int_equal(tt_count(tr), N / 2);
  tt_close(db);
  db = tt_open(&t);
  tr = tt_tree(db, "rows");
  assert_int_equal(tt_count(tr), N / 2);
  for (int i = 0; i < N; i++)
    assert_int_equal(tt_version(tr, i), i < N / 2 ? 0 : -1);
  tt_close(db);
  tt_fini(&t);
}

/* ---- group commit through the database -------------------------------- */

enum { GC_THREADS = 16, GC_TXNS = 40 };

typedef struct gc_s {
  db_t *g_db;
  bt_tree_t *g_tree;
  int g_thread;
  int g_errors;
} gc_t;

static void *gc_main(void *arg)
{
  gc_t *g = arg;
  for (int i = 0; i < GC_TXNS; i++) {
    txn_t *tx = txn_begin(g->g_db, 0, NULL);
    int row = g->g_thread * 1000 + i;
    err_t e;
    if (!tx || tt_insert(tx, g->g_tree, row, g->g_thread) != CZ_OK || txn_commit(tx, &e) != CZ_OK)
      g->g_errors++;
  }
  return NULL;
}

static void test_group_commit_many_threads(void **state)
{
  tt_db_t t;
  tt_init(&t, "group");
  t.t_cfg.dc_sync = true;
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  db_stats_t before, after;
  db_get_stats(db, &before);
  cz_thread_t th[GC_THREADS];
  gc_t g[GC_THREADS];
  for (int i = 0; i < GC_THREADS; i++) {
    g[i] = (gc_t){ .g_db = db, .g_tree = tr, .g_thread = i };
    TT_OK(thread_start(&th[i], gc_main, &g[i], &e_));
  }
  for (int i = 0; i < GC_THREADS; i++) {
    thread_join(&th[i]);
    assert_int_equal(g[i].g_errors, 0);
  }
  db_get_stats(db, &after);
  uint64_t commits = after.ds_commits - before.ds_commits;
  uint64_t writes = after.ds_log_writes - before.ds_log_writes;
  print_message("%llu commits, %llu log syncs\n", (unsigned long long)commits, (unsigned long long)writes);
  assert_int_equal(commits, GC_THREADS * GC_TXNS);
  assert_true(writes < commits);
  tt_close(db);
  /* Everything durable: also found after reopening. */
  db = tt_open(&t);
  tr = tt_tree(db, "rows");
  assert_int_equal(tt_count(tr), GC_THREADS * GC_TXNS);
  for (int th_i = 0; th_i < GC_THREADS; th_i++)
    for (int i = 0; i < GC_TXNS; i++)
      assert_int_equal(tt_version(tr, th_i * 1000 + i), th_i);
  tt_close(db);
  tt_fini(&t);
}

/* ---- bulk and checkpoint ---------------------------------------------- */

static void test_bulk_cannot_roll_back(void **state)
{
  tt_db_t t;
  tt_init(&t, "bulkrb");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  db_stats_t before, after;
  db_get_stats(db, &before);
  txn_t *tx = txn_begin(db, TXN_BULK, NULL);
  assert_int_equal(tt_insert(tx, tr, 1, 1), CZ_OK);
  err_t e;
  assert_int_equal(txn_rollback(tx, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_INTERNAL));
  assert_int_equal(tt_version(tr, 1), 1);
  /* Not logged: the log did not move. The gate is open again. */
  db_get_stats(db, &after);
  assert_int_equal(after.ds_log_bytes, before.ds_log_bytes);
  TT_OK(db_checkpoint(db, &e_));
  tx = txn_begin(db, TXN_BULK, NULL);
  assert_int_equal(tt_insert(tx, tr, 2, 1), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  db_get_stats(db, &after);
  assert_int_equal(after.ds_checkpoints, before.ds_checkpoints + 2);
  tt_close(db);
  tt_fini(&t);
}

/* A checkpoint waits for running transactions; new ones wait for it. */
typedef struct ck_s {
  db_t *c_db;
  volatile int c_done;
} ck_t;

static void *ck_main(void *arg)
{
  ck_t *c = arg;
  err_t e;
  if (db_checkpoint(c->c_db, &e) == CZ_OK)
    c->c_done = 1;
  else
    c->c_done = -1;
  return NULL;
}

static void test_checkpoint_waits_for_transactions(void **state)
{
  tt_db_t t;
  tt_init(&t, "ckwait");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  txn_t *tx = txn_begin(db, 0, NULL);
  assert_int_equal(tt_insert(tx, tr, 1, 1), CZ_OK);
  ck_t c = { .c_db = db };
  cz_thread_t th;
  TT_OK(thread_start(&th, ck_main, &c, &e_));
  time_sleep_us(100 * 1000);
  assert_int_equal(c.c_done, 0);
  TT_OK(txn_commit(tx, &e_));
  thread_join(&th);
  assert_int_equal(c.c_done, 1);
  tt_close(db);
  tt_fini(&t);
}

static void test_periodic_checkpoint(void **state)
{
  tt_db_t t;
  tt_init(&t, "periodic");
  t.t_cfg.dc_checkpoint_interval_s = 1;
  db_t *db = tt_open(&t);
  db_stats_t s0, s1;
  db_get_stats(db, &s0);
  time_sleep_us(2500 * 1000);
  db_get_stats(db, &s1);
  assert_true(s1.ds_checkpoints >= s0.ds_checkpoints + 1);
  tt_close(db);
  tt_fini(&t);
}

static void test_config_from_ini(void **state)
{
  const char *text = "[Database]\nDatabaseFile = x.db\nTransactionFile = x.trx\n"
                     "[Parameters]\nCheckpointInterval = 5\nNumberOfBuffers = 1000\n";
  err_t e;
  ini_t *ini = ini_parse(text, strlen(text), &e);
  assert_non_null(ini);
  db_config_t cfg;
  TT_OK(db_config_from_ini(ini, &cfg, &e_));
  assert_string_equal(cfg.dc_storage.sc_path, "x.db");
  assert_string_equal(cfg.dc_wal_path, "x.trx");
  assert_int_equal(cfg.dc_checkpoint_interval_s, 300);
  assert_int_equal(cfg.dc_pool.bc_n_buffers, 1000);
  assert_true(cfg.dc_sync);
  ini_free(ini);

  const char *dflt = "[Database]\nDatabaseFile = y.db\n";
  ini = ini_parse(dflt, strlen(dflt), &e);
  assert_non_null(ini);
  TT_OK(db_config_from_ini(ini, &cfg, &e_));
  assert_string_equal(cfg.dc_wal_path, "cadenza.trx");
  assert_int_equal(cfg.dc_checkpoint_interval_s, 3600);
  ini_free(ini);

  const char *bad = "[Database]\nDatabaseFile = y.db\n[Parameters]\nCheckpointInterval = soon\n";
  ini = ini_parse(bad, strlen(bad), &e);
  assert_non_null(ini);
  assert_int_equal(db_config_from_ini(ini, &cfg, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_CONFIG));
  ini_free(ini);
}

/* The sample shipped in ini/ is what new users start from: it must load
 * and say what its comments say. */
static void test_sample_ini_loads(void **state)
{
  (void)state;
  err_t e;
  ini_t *ini = ini_load(CZ_SRCDIR "/ini/cadenza.ini", &e);
  assert_non_null(ini);
  db_config_t cfg;
  TT_OK(db_config_from_ini(ini, &cfg, &e_));
  assert_string_equal(cfg.dc_storage.sc_path, "cadenza.db");
  assert_int_equal(cfg.dc_storage.sc_n_stripes, 0);
  assert_string_equal(cfg.dc_wal_path, "cadenza.trx");
  assert_int_equal(cfg.dc_pool.bc_n_buffers, 10000);
  assert_int_equal(cfg.dc_pool.bc_max_dirty, 7500);
  assert_true(cfg.dc_pool.bc_read_ahead);
  assert_int_equal(cfg.dc_checkpoint_interval_s, 3600);
  ini_free(ini);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_commit_visible_and_counted),
    cmocka_unit_test(test_rollback_restores_rows),
    cmocka_unit_test(test_rollback_non_unique),
    cmocka_unit_test(test_absent_keys_and_read_only),
    cmocka_unit_test(test_unregistered_tree_refused),
    cmocka_unit_test(test_create_drop_rollback),
    cmocka_unit_test(test_dropped_name_held_until_end),
    cmocka_unit_test(test_named_trees_survive_restart),
    cmocka_unit_test(test_insert_batch_and_rollback),
    cmocka_unit_test(test_group_commit_many_threads),
    cmocka_unit_test(test_bulk_cannot_roll_back),
    cmocka_unit_test(test_checkpoint_waits_for_transactions),
    cmocka_unit_test(test_periodic_checkpoint),
    cmocka_unit_test(test_config_from_ini),
    cmocka_unit_test(test_sample_ini_loads),
  };
  return cmocka_run_group_tests_name("txn", tests, NULL, NULL);
}
