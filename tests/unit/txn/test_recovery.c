/* test_recovery — crashes: a forked child works on the database and
 * _exit()s without closing it; the parent reopens (which recovers) and
 * checks that exactly the committed work is there. Also a torn log tail at
 * the database level, a stale log, and bulk mode around a crash.
 */
#include <sys/stat.h>

#include "txn/wal.h"
#include "txn_test.h"

/* Child: n committed transactions of one row each into "rows" (created in
 * the first), then one uncommitted transaction whose dirty pages are
 * written to disk before the crash. */
typedef struct work_s {
  int w_from, w_n;          /* committed rows w_from .. w_from + w_n - 1 */
  int w_uncommitted;        /* rows of the open transaction at the crash */
  bool w_checkpoint_middle; /* checkpoint after half the commits */
} work_t;

static int work_fn(db_t *db, void *arg)
{
  work_t *w = arg;
  err_t e;
  bt_tree_t *tr;
  if (db_open_tree(db, "rows", &tr, &e) != CZ_OK) {
    txn_t *tx = txn_begin(db, 0, &e);
    if (db_create_tree(tx, "rows", BT_UNIQUE, &tr, &e) != CZ_OK || txn_commit(tx, &e) != CZ_OK)
      return 1;
  }
  for (int i = w->w_from; i < w->w_from + w->w_n; i++) {
    txn_t *tx = txn_begin(db, 0, &e);
    if (tt_insert(tx, tr, i, 0) != CZ_OK || (i > w->w_from && tt_update(tx, tr, i - 1, 1) != CZ_OK) ||
        txn_commit(tx, &e) != CZ_OK)
      return 1;
    if (w->w_checkpoint_middle && i == w->w_from + w->w_n / 2 && db_checkpoint(db, &e) != CZ_OK)
      return 1;
  }
  if (w->w_uncommitted) {
    txn_t *tx = txn_begin(db, 0, &e);
    for (int i = 0; i < w->w_uncommitted; i++)
      if (tt_insert(tx, tr, 1000000 + i, 9) != CZ_OK)
        return 1;
    if (w->w_from + w->w_n > 0 && tt_update(tx, tr, w->w_from, 9) != CZ_OK)
      return 1;
    /* Steal: the uncommitted pages reach the disk (remapped by storage). */
    if (bp_flush_all(db_pool(db), &e) != CZ_OK)
      return 1;
  }
  return 0;
}

/* Rows from..from+n-1 committed by work_fn: the last at version 0, the
 * others updated to 1 by the next transaction. */
static void check_rows(bt_tree_t *tr, int from, int n)
{
  for (int i = from; i < from + n; i++)
    assert_int_equal(tt_version(tr, i), i == from + n - 1 ? 0 : 1);
}

static void test_commit_then_crash_replays(void **state)
{
  tt_db_t t;
  tt_init(&t, "replay");
  work_t w = { .w_from = 0, .w_n = 50 };
  tt_run_and_crash(&t, work_fn, &w);
  db_t *db = tt_open(&t);
  db_stats_t s;
  db_get_stats(db, &s);
  assert_int_equal(s.ds_replayed, 51); /* the create and 50 rows */
  bt_tree_t *tr = tt_tree(db, "rows");
  check_rows(tr, 0, 50);
  assert_int_equal(tt_count(tr), 50);
  tt_close(db);
  /* The open checkpointed: nothing is replayed the second time. */
  db = tt_open(&t);
  db_get_stats(db, &s);
  assert_int_equal(s.ds_replayed, 0);
  check_rows(tt_tree(db, "rows"), 0, 50);
  tt_close(db);
  tt_fini(&t);
}

static void test_uncommitted_invisible_after_crash(void **state)
{
  tt_db_t t;
  tt_init(&t, "uncommitted");
  t.t_cfg.dc_pool.bc_n_buffers = 64; /* small: pages get evicted and written too */
  work_t w = { .w_from = 0, .w_n = 20, .w_uncommitted = 3000 };
  tt_run_and_crash(&t, work_fn, &w);
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_tree(db, "rows");
  check_rows(tr, 0, 20);
  assert_int_equal(tt_count(tr), 20);
  assert_int_equal(tt_version(tr, 1000000), -1);
  bt_check_t c;
  TT_OK(bt_check(tr, &c, &e_));
  tt_close(db);
  tt_fini(&t);
}

static void test_checkpoint_then_commits_then_crash(void **state)
{
  tt_db_t t;
  tt_init(&t, "ckmid");
  work_t w = { .w_from = 0, .w_n = 40, .w_checkpoint_middle = true, .w_uncommitted = 10 };
  tt_run_and_crash(&t, work_fn, &w);
  db_t *db = tt_open(&t);
  db_stats_t s;
  db_get_stats(db, &s);
  assert_true(s.ds_replayed > 0 && s.ds_replayed < 40); /* only the part after the checkpoint */
  bt_tree_t *tr = tt_tree(db, "rows");
  check_rows(tr, 0, 40);
  assert_int_equal(tt_count(tr), 40);
  tt_close(db);
  /* A second crash cycle on the same database continues from there. */
  work_t w2 = { .w_from = 40, .w_n = 30, .w_uncommitted = 5 };
  tt_run_and_crash(&t, work_fn, &w2);
  db = tt_open(&t);
  tr = tt_tree(db, "rows");
  assert_int_equal(tt_version(tr, 39), 0);
  check_rows(tr, 40, 30);
  assert_int_equal(tt_count(tr), 70);
  tt_close(db);
  tt_fini(&t);
}

static int skip_record(void *ctx, const uint8_t *payload, size_t len, err_t *e)
{
  (void)ctx, (void)payload, (void)len, (void)e;
  return CZ_OK;
}

/* Where the log's records end: the file goes on with preallocated zeros
 * (txn/wal.c), so the last record is not at the end of the file. */
static off_t log_end(const char *path)
{
  uint8_t head[WAL_HEADER_SIZE];
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
  fclose(f);
  uint64_t gen = 0;
  for (int i = 7; i >= 0; i--)
    gen = gen << 8 | head[16 + i];
  wal_read_info_t info;
  TT_OK(wal_read_all(path, gen, skip_record, NULL, &info, &e_));
  assert_false(info.wr_stale);
  return (off_t)info.wr_valid_end;
}

/* The last commit's record torn: that transaction is gone, the ones before
 * it are there. */
static void test_torn_log_tail_loses_only_last(void **state)
{
  tt_db_t t;
  tt_init(&t, "torn");
  work_t w = { .w_from = 0, .w_n = 10 };
  tt_run_and_crash(&t, work_fn, &w);
  assert_int_equal(truncate(t.t_wal_path, log_end(t.t_wal_path) - 3), 0);
  db_t *db = tt_open(&t);
  db_stats_t s;
  db_get_stats(db, &s);
  assert_int_equal(s.ds_replayed, 10);
  bt_tree_t *tr = tt_tree(db, "rows");
  check_rows(tr, 0, 9);
  assert_int_equal(tt_count(tr), 9);
  tt_close(db);
  tt_fini(&t);
}

/* A damaged record in the middle ends the log there: the transactions
 * before it are replayed, nothing after it is. */
static void test_bad_record_stops_replay(void **state)
{
  tt_db_t t;
  tt_init(&t, "badrec");
  work_t w = { .w_from = 0, .w_n = 20 };
  tt_run_and_crash(&t, work_fn, &w);
  size_t len = (size_t)log_end(t.t_wal_path);
  FILE *f = fopen(t.t_wal_path, "r+b");
  assert_non_null(f);
  fseek(f, (long)(len / 2), SEEK_SET);
  int c = fgetc(f);
  fseek(f, (long)(len / 2), SEEK_SET);
  fputc(c ^ 0x40, f);
  fclose(f);
  db_t *db = tt_open(&t);
  db_stats_t s;
  db_get_stats(db, &s);
  assert_true(s.ds_replayed >= 2 && s.ds_replayed < 21);
  int n = (int)s.ds_replayed - 1; /* rows: the first record made the tree */
  bt_tree_t *tr = tt_tree(db, "rows");
  check_rows(tr, 0, n);
  assert_int_equal(tt_count(tr), (uint64_t)n);
  tt_close(db);
  tt_fini(&t);
}

/* A log whose generation the image has moved past is ignored: replaying
 * it again would apply its transactions twice. */
static void test_stale_log_ignored(void **state)
{
  tt_db_t t;
  tt_init(&t, "stale");
  work_t w = { .w_from = 0, .w_n = 10 };
  tt_run_and_crash(&t, work_fn, &w);
  size_t len = (size_t)log_end(t.t_wal_path);
  char *copy = malloc(len);
  FILE *f = fopen(t.t_wal_path, "rb");
  assert_int_equal(fread(copy, 1, len, f), len);
  fclose(f);
  db_t *db = tt_open(&t); /* replays, checkpoints: the image names the next generation */
  TT_OK(db_close(db, false, &e_));
  f = fopen(t.t_wal_path, "wb"); /* as if the crash came before the log restart */
  assert_int_equal(fwrite(copy, 1, len, f), len);
  fclose(f);
  free(copy);
  db = tt_open(&t);
  db_stats_t s;
  db_get_stats(db, &s);
  assert_int_equal(s.ds_replayed, 0);
  bt_tree_t *tr = tt_tree(db, "rows");
  check_rows(tr, 0, 10);
  assert_int_equal(tt_count(tr), 10);
  tt_close(db);
  tt_fini(&t);
}

/* db_close without a checkpoint leaves image + log, like a crash. */
static void test_close_without_checkpoint(void **state)
{
  tt_db_t t;
  tt_init(&t, "nockpt");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  txn_t *tx = txn_begin(db, 0, NULL);
  assert_int_equal(tt_insert(tx, tr, 1, 1), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  TT_OK(db_close(db, false, &e_));
  db = tt_open(&t);
  db_stats_t s;
  db_get_stats(db, &s);
  assert_int_equal(s.ds_replayed, 2);
  assert_int_equal(tt_version(tt_tree(db, "rows"), 1), 1);
  tt_close(db);
  tt_fini(&t);
}

/* Trees created, filled and dropped between checkpoints are replayed by id. */
static int ddl_fn(db_t *db, void *arg)
{
  err_t e;
  bt_tree_t *a, *b, *c;
  txn_t *tx = txn_begin(db, 0, &e);
  if (db_create_tree(tx, "a", BT_UNIQUE, &a, &e) != CZ_OK || db_create_tree(tx, "b", 0, &b, &e) != CZ_OK ||
      tt_insert(tx, a, 1, 1) != CZ_OK || tt_insert(tx, b, 2, 2) != CZ_OK || txn_commit(tx, &e) != CZ_OK)
    return 1;
  tx = txn_begin(db, 0, &e);
  if (db_drop_tree(tx, "a", &e) != CZ_OK || db_create_tree(tx, "a", 0, &c, &e) != CZ_OK ||
      tt_insert(tx, c, 3, 3) != CZ_OK || txn_commit(tx, &e) != CZ_OK)
    return 1;
  tx = txn_begin(db, 0, &e); /* uncommitted drop */
  if (db_drop_tree(tx, "b", &e) != CZ_OK)
    return 1;
  return 0;
}

static void test_create_drop_replayed(void **state)
{
  tt_db_t t;
  tt_init(&t, "ddlcrash");
  tt_run_and_crash(&t, ddl_fn, NULL);
  db_t *db = tt_open(&t);
  bt_tree_t *a = tt_tree(db, "a"), *b = tt_tree(db, "b");
  assert_int_equal(bt_flags(a) & BT_UNIQUE, 0);
  assert_int_equal(tt_version(a, 3), 3);
  assert_int_equal(tt_version(a, 1), -1);
  assert_int_equal(tt_count(a), 1);
  assert_int_equal(tt_version(b, 2), 2);
  tt_close(db);
  tt_fini(&t);
}

/* ---- bulk mode around a crash ----------------------------------------- */

typedef struct bulk_s {
  bool b_commit;            /* commit the bulk transaction before the crash */
} bulk_t;

static int bulk_fn(db_t *db, void *arg)
{
  bulk_t *b = arg;
  err_t e;
  bt_tree_t *tr = NULL;
  txn_t *tx = txn_begin(db, 0, &e);
  if (db_create_tree(tx, "logged", BT_UNIQUE, &tr, &e) != CZ_OK || tt_insert(tx, tr, 1, 1) != CZ_OK ||
      txn_commit(tx, &e) != CZ_OK)
    return 1;
  tx = txn_begin(db, TXN_BULK, &e);
  bt_tree_t *bt;
  if (db_create_tree(tx, "bulk", BT_UNIQUE, &bt, &e) != CZ_OK)
    return 1;
  for (int i = 0; i < 5000; i++)
    if (tt_insert(tx, bt, i, 7) != CZ_OK)
      return 1;
  if (b->b_commit)
    return txn_commit(tx, &e) == CZ_OK ? 0 : 1;
  return bp_flush_all(db_pool(db), &e) == CZ_OK ? 0 : 1;
}

static void test_bulk_durable_after_commit(void **state)
{
  tt_db_t t;
  tt_init(&t, "bulkok");
  bulk_t b = { .b_commit = true };
  tt_run_and_crash(&t, bulk_fn, &b);
  db_t *db = tt_open(&t);
  db_stats_t s;
  db_get_stats(db, &s);
  assert_int_equal(s.ds_replayed, 0); /* the bulk commit's checkpoint holds it all */
  bt_tree_t *bt = tt_tree(db, "bulk");
  assert_int_equal(tt_count(bt), 5000);
  assert_int_equal(tt_version(bt, 4999), 7);
  assert_int_equal(tt_version(tt_tree(db, "logged"), 1), 1);
  tt_close(db);
  tt_fini(&t);
}

static void test_bulk_lost_before_commit(void **state)
{
  tt_db_t t;
  tt_init(&t, "bulklost");
  bulk_t b = { .b_commit = false };
  tt_run_and_crash(&t, bulk_fn, &b);
  db_t *db = tt_open(&t);
  bt_tree_t *bt;
  err_t e;
  assert_int_equal(db_open_tree(db, "bulk", &bt, &e), BT_NOT_FOUND);
  /* Nothing else lost: the logged transaction is there. */
  assert_int_equal(tt_version(tt_tree(db, "logged"), 1), 1);
  tt_close(db);
  tt_fini(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_commit_then_crash_replays),
    cmocka_unit_test(test_uncommitted_invisible_after_crash),
    cmocka_unit_test(test_checkpoint_then_commits_then_crash),
    cmocka_unit_test(test_torn_log_tail_loses_only_last),
    cmocka_unit_test(test_bad_record_stops_replay),
    cmocka_unit_test(test_stale_log_ignored),
    cmocka_unit_test(test_close_without_checkpoint),
    cmocka_unit_test(test_create_drop_replayed),
    cmocka_unit_test(test_bulk_durable_after_commit),
    cmocka_unit_test(test_bulk_lost_before_commit),
  };
  return cmocka_run_group_tests_name("txn_recovery", tests, NULL, NULL);
}
