/* test_col_txn — column trees under transactions (btree/README.md,
 * "Column leaves: log, undo, recovery"): the log, undo (rollback and
 * savepoints) and crash recovery reach a column tree through the same
 * entry calls as a row tree, so committed work survives a crash, the
 * uncommitted does not, and bt_check is clean after recovery.
 */
#include "txn_test.h"

#define TREE "cols"

/* Row i at version v: (i, v, "value-i-v..." of a length depending on both). */
static size_t col_row(int i, int v, uint8_t *buf, size_t cap)
{
  static const ty_phys_t kinds[3] = {TP_I64, TP_I64, TP_STR};
  char s[128];
  datum_t d[3];
  memset(d, 0, sizeof d);
  d[0].d_i64 = i;
  d[1].d_i64 = v;
  d[2].d_str.s_ptr = s;
  d[2].d_str.s_len = (uint32_t)tt_val(s, i, v);
  size_t len;
  err_t e;
  if (bt_crow_build(kinds, d, 3, buf, cap, &len, &e) != CZ_OK)
    fail_msg("bt_crow_build: %s", e.er_msg);
  return len;
}

static int c_insert(txn_t *tx, bt_tree_t *t, int i, int v)
{
  char k[32];
  uint8_t val[256];
  err_t e;
  size_t kl = tt_key(k, i), vl = col_row(i, v, val, sizeof val);
  return txn_insert(tx, t, k, kl, val, vl, &e);
}

static int c_update(txn_t *tx, bt_tree_t *t, int i, int v)
{
  char k[32];
  uint8_t val[256];
  err_t e;
  size_t kl = tt_key(k, i), vl = col_row(i, v, val, sizeof val);
  return txn_update(tx, t, k, kl, val, vl, &e);
}

/* Version of row i in the tree, -1 when absent; a value no version wrote
 * fails the test. */
static int c_version(bt_tree_t *t, int i)
{
  char k[32];
  uint8_t val[256];
  size_t vl;
  err_t e;
  size_t kl = tt_key(k, i);
  int rc = bt_lookup(t, k, kl, val, sizeof val, &vl, &e);
  if (rc == BT_NOT_FOUND)
    return -1;
  if (rc != CZ_OK)
    fail_msg("bt_lookup %d: %s %s", i, e.er_sqlstate, e.er_msg);
  ty_phys_t kinds[3];
  datum_t d[3];
  int n;
  if (bt_crow_parse(val, vl, 3, kinds, d, &n, &e) != CZ_OK || n != 3)
    fail_msg("row %d is not a column row", i);
  int v = (int)d[1].d_i64;
  uint8_t want[256];
  size_t wl = col_row(i, v, want, sizeof want);
  if (wl != vl || memcmp(want, val, vl) != 0)
    fail_msg("row %d holds a value no version wrote", i);
  return v;
}

static uint64_t c_check(bt_tree_t *t)
{
  bt_check_t chk;
  err_t e;
  if (bt_check(t, &chk, &e) != CZ_OK)
    fail_msg("bt_check: %s %s", e.er_sqlstate, e.er_msg);
  return chk.bc_entries;
}

typedef struct work_s {
  int w_n;         /* committed single-row transactions */
  int w_batch;     /* rows of one committed batch after them */
} work_t;

static int work_fn(db_t *db, void *arg)
{
  work_t *w = arg;
  err_t e;
  bt_tree_t *tr;
  txn_t *tx = txn_begin(db, 0, &e);
  if (db_create_tree(tx, TREE, BT_UNIQUE | BT_COLUMN, &tr, &e) != CZ_OK || txn_commit(tx, &e) != CZ_OK)
    return 1;
  for (int i = 0; i < w->w_n; i++) {
    tx = txn_begin(db, 0, &e);
    if (c_insert(tx, tr, i, 0) != CZ_OK || (i > 0 && c_update(tx, tr, i - 1, 1) != CZ_OK) ||
        txn_commit(tx, &e) != CZ_OK)
      return 1;
    if (i == w->w_n / 2 && db_checkpoint(db, &e) != CZ_OK)
      return 1;
  }
  /* One committed sorted batch after the single rows. */
  static bt_row_t rows[6000];
  static char kb[6000][32];
  static uint8_t vb[6000][160];
  for (int j = 0; j < w->w_batch; j++) {
    int i = 100000 + j;
    rows[j].r_key = kb[j];
    rows[j].r_key_len = (uint32_t)tt_key(kb[j], i);
    rows[j].r_val = vb[j];
    rows[j].r_val_len = (uint32_t)col_row(i, 0, vb[j], sizeof vb[j]);
  }
  tx = txn_begin(db, 0, &e);
  if (txn_insert_batch(tx, tr, rows, w->w_batch, &e) != CZ_OK || txn_commit(tx, &e) != CZ_OK)
    return 1;
  /* Uncommitted at the crash, its pages stolen to disk. */
  tx = txn_begin(db, 0, &e);
  for (int i = 0; i < 50; i++)
    if (c_insert(tx, tr, 200000 + i, 9) != CZ_OK)
      return 1;
  if (c_update(tx, tr, 0, 9) != CZ_OK || txn_delete(tx, tr, kb[0], rows[0].r_key_len, NULL, 0, &e) != CZ_OK)
    return 1;
  if (bp_flush_all(db_pool(db), &e) != CZ_OK)
    return 1;
  return 0;
}

static void test_crash_recovers_column_tree(void **state)
{
  (void)state;
  tt_db_t t;
  tt_init(&t, "colcrash");
  work_t w = {.w_n = 120, .w_batch = 5000};
  tt_run_and_crash(&t, work_fn, &w);
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_tree(db, TREE);
  assert_int_equal(c_check(tr), (uint64_t)(w.w_n + w.w_batch));
  for (int i = 0; i < w.w_n; i++)
    assert_int_equal(c_version(tr, i), i == w.w_n - 1 ? 0 : 1);
  for (int j = 0; j < w.w_batch; j += 7)
    assert_int_equal(c_version(tr, 100000 + j), 0);
  for (int i = 0; i < 50; i++)
    assert_int_equal(c_version(tr, 200000 + i), -1);
  tt_close(db);
  tt_fini(&t);
}

/* Rollback and a savepoint undo inserts, updates and deletes of a column
 * tree through the same entry calls. */
static void test_rollback_and_savepoint(void **state)
{
  (void)state;
  tt_db_t t;
  tt_init(&t, "colundo");
  db_t *db = tt_open(&t);
  err_t e;
  bt_tree_t *tr;
  txn_t *tx = txn_begin(db, 0, &e);
  TT_OK(db_create_tree(tx, TREE, BT_UNIQUE | BT_COLUMN, &tr, &e_));
  for (int i = 0; i < 5000; i++)
    assert_int_equal(c_insert(tx, tr, i, 0), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  tx = txn_begin(db, 0, &e);
  for (int i = 0; i < 5000; i += 3)
    assert_int_equal(c_update(tx, tr, i, 1), CZ_OK);
  for (int i = 1; i < 5000; i += 3) {
    char k[32];
    size_t kl = tt_key(k, i);
    assert_int_equal(txn_delete(tx, tr, k, kl, NULL, 0, &e), CZ_OK);
  }
  for (int i = 5000; i < 5500; i++)
    assert_int_equal(c_insert(tx, tr, i, 0), CZ_OK);
  TT_OK(txn_rollback(tx, &e_));
  assert_int_equal(c_check(tr), 5000);
  for (int i = 0; i < 5500; i++)
    assert_int_equal(c_version(tr, i), i < 5000 ? 0 : -1);
  /* A savepoint: the work after the mark goes, the work before stays. */
  tx = txn_begin(db, 0, &e);
  assert_int_equal(c_update(tx, tr, 10, 2), CZ_OK);
  txn_mark_t *mark = txn_savepoint_mark(tx);
  assert_int_equal(c_update(tx, tr, 11, 2), CZ_OK);
  assert_int_equal(c_insert(tx, tr, 9000, 2), CZ_OK);
  TT_OK(txn_rollback_to_mark(tx, mark, &e_));
  TT_OK(txn_commit(tx, &e_));
  assert_int_equal(c_version(tr, 10), 2);
  assert_int_equal(c_version(tr, 11), 0);
  assert_int_equal(c_version(tr, 9000), -1);
  assert_int_equal(c_check(tr), 5000);
  tt_close(db);
  tt_fini(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crash_recovers_column_tree),
      cmocka_unit_test(test_rollback_and_savepoint),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
