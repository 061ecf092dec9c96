/* test_stream — streamed redo (txn_stream.c, LogStreamBytes): a large
 * transaction writes continuation records while it runs; replay applies
 * them only when its commit record follows. Commit then restart, a crash
 * before the commit (nothing), ROLLBACK TO after streaming (exact state,
 * also with another committer taking a released key), a DROP (never
 * streamed), interleaved committers, and the ini parameter.
 */
#include <sys/stat.h>

#include "txn/txn_int.h"
#include "txn/wal.h"
#include "txn_test.h"

#define TS_LIMIT 512 /* bytes: a record every dozen rows */

static void ts_init(tt_db_t *t, const char *name)
{
  tt_init(t, name);
  t->t_cfg.dc_log_stream_bytes = TS_LIMIT;
}

static uint64_t ts_streamed(db_t *db)
{
  db_stats_t s;
  db_get_stats(db, &s);
  return s.ds_log_streamed;
}

static uint64_t ts_replayed(db_t *db)
{
  db_stats_t s;
  db_get_stats(db, &s);
  return s.ds_replayed;
}

static uint64_t ts_log_size(const tt_db_t *t)
{
  struct stat sb;
  assert_int_equal(stat(t->t_wal_path, &sb), 0);
  return (uint64_t)sb.st_size;
}

/* Reopen without a checkpoint: the state comes from image + log. */
static db_t *ts_restart(tt_db_t *t, db_t *db)
{
  TT_OK(db_close(db, false, &e_));
  return tt_open(t);
}

static int ts_ins_dup(txn_t *tx, bt_tree_t *t, int i, int v)
{
  char k[32], val[128];
  err_t e;
  size_t kl = tt_key(k, i), vl = tt_val(val, i, v);
  return txn_insert(tx, t, k, kl, val, vl, &e);
}

static void test_stream_then_commit(void **state)
{
  (void)state;
  tt_db_t t;
  ts_init(&t, "st_commit");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  bt_tree_t *nu = tt_create(db, "dups", 0);
  txn_t *tx = txn_begin(db, 0, NULL);
  for (int i = 0; i < 300; i++)
    assert_int_equal(tt_insert(tx, tr, i, 0), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  uint64_t before = ts_log_size(&t), streamed = ts_streamed(db);

  tx = txn_begin(db, 0, NULL);
  for (int i = 300; i < 3000; i++)
    assert_int_equal(tt_insert(tx, tr, i, 1), CZ_OK);
  for (int i = 0; i < 100; i++)
    assert_int_equal(tt_update(tx, tr, i, 2), CZ_OK);
  for (int i = 100; i < 150; i++)
    assert_int_equal(tt_delete(tx, tr, i), CZ_OK); /* deferred: logged at commit */
  for (int i = 0; i < 500; i++)
    assert_int_equal(ts_ins_dup(tx, nu, i % 50, i), CZ_OK);
  for (int i = 0; i < 50; i++) { /* a non-unique delete names its entry by value */
    char k[32], val[128];
    size_t kl = tt_key(k, i), vl = tt_val(val, i, i);
    TT_OK(txn_delete(tx, nu, k, kl, val, vl, &e_));
  }
  /* Written while the transaction runs, before any commit record. */
  assert_true(ts_streamed(db) - streamed > 50);
  assert_true(ts_log_size(&t) - before > 2700 * 20);
  TT_OK(txn_commit(tx, &e_));

  db = ts_restart(&t, db);
  assert_int_equal(ts_replayed(db), 4); /* two creates, the 300 rows, the big one */
  tr = tt_tree(db, "rows");
  nu = tt_tree(db, "dups");
  for (int i = 0; i < 3000; i++)
    assert_int_equal(tt_version(tr, i), i < 100 ? 2 : i < 150 ? -1 : i < 300 ? 0 : 1);
  assert_int_equal(tt_count(tr), 2950);
  assert_int_equal(tt_count(nu), 450);
  tt_close(db);
  tt_fini(&t);
}

/* Negative control: with LogStreamBytes 0 nothing is written before the
 * commit record. */
static void test_no_stream_when_off(void **state)
{
  (void)state;
  tt_db_t t;
  tt_init(&t, "st_off");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  uint64_t before = ts_log_size(&t);
  txn_t *tx = txn_begin(db, 0, NULL);
  for (int i = 0; i < 3000; i++)
    assert_int_equal(tt_insert(tx, tr, i, 1), CZ_OK);
  assert_int_equal(ts_log_size(&t), before);
  assert_int_equal(ts_streamed(db), 0);
  TT_OK(txn_commit(tx, &e_));
  assert_true(ts_log_size(&t) > before + 3000 * 20);
  tt_close(db);
  tt_fini(&t);
}

/* Child: 20 committed rows, then a streaming transaction that inserts and
 * updates (also the committed rows) and is never committed; its pages
 * are stolen to the disk. */
static int crash_open_fn(db_t *db, void *arg)
{
  (void)arg;
  err_t e;
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  txn_t *tx = txn_begin(db, 0, &e);
  for (int i = 0; i < 20; i++)
    if (tt_insert(tx, tr, i, 0) != CZ_OK)
      return 1;
  if (txn_commit(tx, &e) != CZ_OK)
    return 1;
  tx = txn_begin(db, 0, &e);
  for (int i = 20; i < 4000; i++)
    if (tt_insert(tx, tr, i, 1) != CZ_OK)
      return 1;
  for (int i = 0; i < 20; i++)
    if (tt_update(tx, tr, i, 3) != CZ_OK)
      return 1;
  bt_tree_t *nt;
  if (db_create_tree(tx, "made", BT_UNIQUE, &nt, &e) != CZ_OK)
    return 1;
  for (int i = 0; i < 500; i++)
    if (tt_insert(tx, nt, i, 0) != CZ_OK)
      return 1;
  if (ts_streamed(db) < 50 || bp_flush_all(db_pool(db), &e) != CZ_OK)
    return 1;
  return 0;
}

static void test_stream_crash_before_commit(void **state)
{
  (void)state;
  tt_db_t t;
  ts_init(&t, "st_crash");
  t.t_cfg.dc_pool.bc_n_buffers = 64;
  tt_run_and_crash(&t, crash_open_fn, NULL);
  db_t *db = tt_open(&t);
  assert_int_equal(ts_replayed(db), 2); /* the create and the 20 rows */
  bt_tree_t *tr = tt_tree(db, "rows");
  for (int i = 0; i < 40; i++)
    assert_int_equal(tt_version(tr, i), i < 20 ? 0 : -1);
  assert_int_equal(tt_count(tr), 20);
  bt_tree_t *nt;
  err_t e;
  assert_int_equal(db_open_tree(db, "made", &nt, &e), BT_NOT_FOUND);
  tt_close(db);
  tt_fini(&t);
}

/* The state test_stream_savepoint expects, in memory and after a restart. */
static void sp_check(db_t *db, bt_tree_t *tr, bt_tree_t *nu)
{
  for (int i = 0; i < 2200; i++) {
    int want = -1;
    if (i < 1000)
      want = i == 200 ? 7 : i < 50 ? 4 : 0; /* 0..49 updated before the mark */
    else if (i >= 2000 && i < 2100)
      want = 8;
    assert_int_equal(tt_version(tr, i), want);
  }
  assert_int_equal(tt_count(tr), 1100);
  assert_int_equal(tt_count(nu), 100);
  bt_tree_t *x;
  err_t e;
  assert_int_equal(db_open_tree(db, "sp_made", &x, &e), BT_NOT_FOUND);
  assert_int_equal(db_open_tree(db, "sp_kept", &x, &e), CZ_OK);
  assert_int_equal(tt_count(x), 30);
}

static void test_stream_savepoint(void **state)
{
  (void)state;
  tt_db_t t;
  ts_init(&t, "st_savepoint");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  bt_tree_t *nu = tt_create(db, "dups", 0);
  txn_t *tx = txn_begin(db, 0, NULL);
  for (int i = 0; i < 1000; i++)
    assert_int_equal(tt_insert(tx, tr, i, 0), CZ_OK);
  for (int i = 0; i < 50; i++)
    assert_int_equal(tt_update(tx, tr, i, 4), CZ_OK);
  for (int i = 0; i < 100; i++)
    assert_int_equal(ts_ins_dup(tx, nu, i, 0), CZ_OK);
  uint64_t s0 = ts_streamed(db);
  assert_true(s0 > 10);
  txn_mark_t *m = txn_savepoint_mark(tx);
  /* After the mark, streamed before the rollback: every kind. */
  for (int i = 1000; i < 2000; i++)
    assert_int_equal(tt_insert(tx, tr, i, 1), CZ_OK);
  for (int i = 0; i < 300; i++)
    assert_int_equal(tt_update(tx, tr, i, 5), CZ_OK);
  for (int i = 300; i < 400; i++)
    assert_int_equal(tt_delete(tx, tr, i), CZ_OK);
  for (int i = 0; i < 100; i++)
    assert_int_equal(ts_ins_dup(tx, nu, i, 1), CZ_OK);
  for (int i = 0; i < 50; i++) {
    char k[32], val[128];
    size_t kl = tt_key(k, i), vl = tt_val(val, i, 0);
    TT_OK(txn_delete(tx, nu, k, kl, val, vl, &e_));
  }
  bt_tree_t *nt;
  TT_OK(db_create_tree(tx, "sp_made", BT_UNIQUE, &nt, &e_));
  for (int i = 0; i < 200; i++)
    assert_int_equal(tt_insert(tx, nt, i, 0), CZ_OK);
  assert_true(ts_streamed(db) > s0 + 50);
  TT_OK(txn_rollback_to_mark(tx, m, &e_));
  /* The tree is back at the mark for the owner. */
  for (int i = 0; i < 1100; i++)
    assert_int_equal(tt_version(tr, i), i < 50 ? 4 : i < 1000 ? 0 : -1);
  /* Work after the rollback; a nested mark taken after the boundary and
   * rolled back before anything more streams. */
  for (int i = 2000; i < 2100; i++)
    assert_int_equal(tt_insert(tx, tr, i, 8), CZ_OK);
  txn_mark_t *m2 = txn_savepoint_mark(tx);
  assert_int_equal(tt_update(tx, tr, 201, 9), CZ_OK);
  TT_OK(txn_rollback_to_mark(tx, m2, &e_));
  assert_int_equal(tt_update(tx, tr, 200, 7), CZ_OK);
  bt_tree_t *kt;
  TT_OK(db_create_tree(tx, "sp_kept", BT_UNIQUE, &kt, &e_));
  for (int i = 0; i < 30; i++)
    assert_int_equal(tt_insert(tx, kt, i, 0), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  sp_check(db, tr, nu);

  db = ts_restart(&t, db);
  sp_check(db, tt_tree(db, "rows"), tt_tree(db, "dups"));
  tt_close(db);
  tt_fini(&t);
}

/* A rollback to a mark releases the locks taken after it: another
 * transaction may insert such a key and commit before the owner commits.
 * Replay must meet the owner's compensation before that insert. */
static void test_stream_savepoint_released_key(void **state)
{
  (void)state;
  tt_db_t t;
  ts_init(&t, "st_released");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  txn_t *a = txn_begin(db, 0, NULL);
  assert_int_equal(tt_insert(a, tr, 0, 0), CZ_OK);
  txn_mark_t *m = txn_savepoint_mark(a);
  for (int i = 1; i < 500; i++)
    assert_int_equal(tt_insert(a, tr, i, 1), CZ_OK);
  TT_OK(txn_rollback_to_mark(a, m, &e_));
  txn_t *b = txn_begin(db, 0, NULL);
  for (int i = 1; i < 20; i++)
    assert_int_equal(tt_insert(b, tr, i, 2), CZ_OK);
  TT_OK(txn_commit(b, &e_));
  assert_int_equal(tt_insert(a, tr, 600, 3), CZ_OK);
  TT_OK(txn_commit(a, &e_));
  db = ts_restart(&t, db);
  tr = tt_tree(db, "rows");
  for (int i = 0; i < 700; i++)
    assert_int_equal(tt_version(tr, i), i == 0 ? 0 : i < 20 ? 2 : i == 600 ? 3 : -1);
  tt_close(db);
  tt_fini(&t);
}

/* A DROP is never streamed (its rollback could not be compensated): what
 * follows it waits for the commit record; a rollback to a mark before the
 * DROP brings the tree back. */
static void test_stream_drop(void **state)
{
  (void)state;
  tt_db_t t;
  ts_init(&t, "st_drop");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  bt_tree_t *gone = tt_create(db, "gone", BT_UNIQUE);
  bt_tree_t *back = tt_create(db, "back", BT_UNIQUE);
  txn_t *tx = txn_begin(db, 0, NULL);
  assert_int_equal(tt_insert(tx, back, 1, 1), CZ_OK);
  assert_int_equal(tt_insert(tx, gone, 1, 1), CZ_OK);
  TT_OK(txn_commit(tx, &e_));

  tx = txn_begin(db, 0, NULL);
  for (int i = 0; i < 500; i++)
    assert_int_equal(tt_insert(tx, tr, i, 0), CZ_OK);
  txn_mark_t *m = txn_savepoint_mark(tx);
  TT_OK(db_drop_tree(tx, "back", &e_));
  uint64_t s = ts_streamed(db);
  for (int i = 500; i < 1000; i++)
    assert_int_equal(tt_insert(tx, tr, i, 1), CZ_OK);
  assert_true(ts_streamed(db) <= s + 1); /* at most what preceded the DROP: the rest waits */
  TT_OK(txn_rollback_to_mark(tx, m, &e_));
  TT_OK(db_drop_tree(tx, "gone", &e_));
  for (int i = 1000; i < 1500; i++)
    assert_int_equal(tt_insert(tx, tr, i, 2), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  (void)gone;
  (void)back;

  db = ts_restart(&t, db);
  tr = tt_tree(db, "rows");
  for (int i = 0; i < 1500; i++)
    assert_int_equal(tt_version(tr, i), i < 500 ? 0 : i < 1000 ? -1 : 2);
  assert_int_equal(tt_version(tt_tree(db, "back"), 1), 1);
  bt_tree_t *x;
  err_t e;
  assert_int_equal(db_open_tree(db, "gone", &x, &e), BT_NOT_FOUND);
  tt_close(db);
  tt_fini(&t);
}

/* Interleaved: streaming transactions and small committers alternate on
 * disjoint keys and on keys released by a commit; one streaming
 * transaction rolls back, one is open at the crash. */
typedef struct il_s {
  bool il_crash; /* leave the last one open (child) */
} il_t;

static int interleave_fn(db_t *db, void *arg)
{
  il_t *il = arg;
  err_t e;
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  txn_t *a = txn_begin(db, 0, &e), *b = txn_begin(db, 0, &e), *c = txn_begin(db, 0, &e);
  for (int i = 0; i < 3000; i++) {
    /* a: 0.., b: 10000.., c: 20000.. (rolled back); small commits between */
    if (tt_insert(a, tr, i, 1) != CZ_OK || tt_insert(b, tr, 10000 + i, 1) != CZ_OK ||
        tt_insert(c, tr, 20000 + i, 1) != CZ_OK)
      return 1;
    if (i % 500 == 0) {
      txn_t *s = txn_begin(db, 0, &e);
      if (tt_insert(s, tr, 30000 + i, 1) != CZ_OK || txn_commit(s, &e) != CZ_OK)
        return 1;
    }
  }
  if (txn_commit(b, &e) != CZ_OK || txn_rollback(c, &e) != CZ_OK)
    return 1;
  for (int i = 0; i < 100; i++)
    if (tt_update(a, tr, 10000 + i, 2) != CZ_OK) /* keys b committed */
      return 1;
  if (txn_commit(a, &e) != CZ_OK)
    return 1;
  /* After a's commit another may change its keys. */
  txn_t *s = txn_begin(db, 0, &e);
  for (int i = 0; i < 10; i++)
    if (tt_update(s, tr, i, 3) != CZ_OK)
      return 1;
  if (txn_commit(s, &e) != CZ_OK)
    return 1;
  if (il->il_crash) {
    txn_t *d = txn_begin(db, 0, &e);
    for (int i = 0; i < 2000; i++)
      if (tt_update(d, tr, i, 9) != CZ_OK || tt_insert(d, tr, 40000 + i, 9) != CZ_OK)
        return 1;
    if (bp_flush_all(db_pool(db), &e) != CZ_OK)
      return 1;
    return 0;
  }
  return db_close(db, false, &e) == CZ_OK ? 0 : 1;
}

static void il_check(db_t *db)
{
  bt_tree_t *tr = tt_tree(db, "rows");
  for (int i = 0; i < 3000; i++) {
    assert_int_equal(tt_version(tr, i), i < 10 ? 3 : 1);
    assert_int_equal(tt_version(tr, 10000 + i), i < 100 ? 2 : 1);
    assert_int_equal(tt_version(tr, 20000 + i), -1);
    assert_int_equal(tt_version(tr, 30000 + i), i % 500 == 0 ? 1 : -1);
    assert_int_equal(tt_version(tr, 40000 + i), -1);
  }
  assert_int_equal(tt_count(tr), 6006);
}

static void test_stream_interleaved(void **state)
{
  (void)state;
  tt_db_t t;
  ts_init(&t, "st_interleave");
  t.t_cfg.dc_pool.bc_n_buffers = 64;
  il_t il = { .il_crash = false };
  tt_run_and_crash(&t, interleave_fn, &il);
  db_t *db = tt_open(&t);
  il_check(db);
  tt_close(db);
  tt_fini(&t);

  ts_init(&t, "st_interleave_crash");
  t.t_cfg.dc_pool.bc_n_buffers = 64;
  il.il_crash = true;
  tt_run_and_crash(&t, interleave_fn, &il);
  db = tt_open(&t);
  il_check(db);
  tt_close(db);
  tt_fini(&t);
}

/* Appends a framed record to a closed log (after its last record). */
static void ts_append_raw(const char *path, const uint8_t *payload, size_t len)
{
  FILE *f = fopen(path, "r+b");
  assert_non_null(f);
  uint8_t head[WAL_HEADER_SIZE];
  assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
  uint8_t rec[WAL_REC_HEAD];
  wal_record_head(rec, wal_get_u64(head + 16), payload, len);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  assert_int_equal(fwrite(rec, 1, sizeof rec, f), sizeof rec);
  assert_int_equal(fwrite(payload, 1, len, f), len);
  fclose(f);
}

/* T1 checked by replay: a continuation record after its transaction's
 * commit record is corruption (XX001), never applied or skipped. A
 * continuation record with no commit record is skipped. */
static void test_stream_record_after_commit(void **state)
{
  (void)state;
  for (int late = 0; late < 2; late++) {
    tt_db_t t;
    ts_init(&t, "st_order");
    db_t *db = tt_open(&t);
    bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
    uint64_t id = db_tree_id(db_tree_of(db, tr));
    TT_OK(db_close(db, false, &e_));
    uint8_t rec[128];
    char k[32], v[128];
    size_t kl = tt_key(k, 1), vl = tt_val(v, 1, 5);
    txn_logop_t op = { TXN_OP_INSERT, id, (const uint8_t *)k, (uint32_t)kl, (const uint8_t *)v, (uint32_t)vl };
    size_t n = txn_log_begin_tagged(rec, TXN_REC_CONTINUE, 77777, 1);
    n += txn_log_op_encode(rec + n, &op);
    uint8_t commit[TXN_LOG_TAG_HEAD];
    txn_log_begin_tagged(commit, TXN_REC_STREAM_COMMIT, 77777, 0);
    if (late) {
      ts_append_raw(t.t_wal_path, commit, sizeof commit);
      ts_append_raw(t.t_wal_path, rec, n);
      err_t e;
      assert_int_equal(db_open(&t.t_cfg, &db, &e), CZ_ERR);
      assert_true(err_is(&e, SQLSTATE_DATA_CORRUPTED));
      assert_non_null(strstr(e.er_msg, "after its commit record"));
    } else {
      ts_append_raw(t.t_wal_path, rec, n); /* no commit record: skipped */
      db = tt_open(&t);
      assert_int_equal(tt_version(tt_tree(db, "rows"), 1), -1);
      tt_close(db);
    }
    tt_fini(&t);
  }
}

static void test_stream_config(void **state)
{
  (void)state;
  err_t e;
  db_config_t cfg;
  const char *cases[] = { "[Parameters]\nLogStreamBytes = 64K\n", "", "[Parameters]\nLogStreamBytes = 0\n" };
  uint64_t want[] = { 65536, (uint64_t)64 << 20, 0 };
  for (int i = 0; i < 3; i++) {
    ini_t *ini = ini_parse(cases[i], strlen(cases[i]), &e);
    assert_non_null(ini);
    TT_OK(db_config_from_ini(ini, &cfg, &e_));
    assert_int_equal(cfg.dc_log_stream_bytes, want[i]);
    ini_free(ini);
  }
  const char *bad[] = { "[Parameters]\nLogStreamBytes = -1\n", "[Parameters]\nLogStreamBytes = 1G\n" };
  for (int i = 0; i < 2; i++) {
    ini_t *ini = ini_parse(bad[i], strlen(bad[i]), &e);
    assert_non_null(ini);
    assert_int_equal(db_config_from_ini(ini, &cfg, &e), CZ_ERR);
    assert_non_null(strstr(e.er_msg, "LogStreamBytes"));
    ini_free(ini);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_stream_then_commit),
    cmocka_unit_test(test_no_stream_when_off),
    cmocka_unit_test(test_stream_crash_before_commit),
    cmocka_unit_test(test_stream_savepoint),
    cmocka_unit_test(test_stream_savepoint_released_key),
    cmocka_unit_test(test_stream_drop),
    cmocka_unit_test(test_stream_interleaved),
    cmocka_unit_test(test_stream_record_after_commit),
    cmocka_unit_test(test_stream_config),
  };
  return cmocka_run_group_tests_name("txn_stream", tests, NULL, NULL);
}
