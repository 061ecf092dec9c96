/* test_col_txn — column trees under transactions (btree/README.md,
 * "Column leaves: log, undo, recovery"): the log, undo (rollback and
 * savepoints) and crash recovery reach a column tree through the same
 * entry calls as a row tree, so committed work survives a crash, the
 * uncommitted does not, and bt_check is clean after recovery.
 */
#include <pthread.h>
#include <stdatomic.h>

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

/* Replay gathers a column tree's inserts into sorted batches
 * (db_recover.c): a tree's gathered inserts must still go in before a
 * later update or delete of the same tree, and before a DROP and CREATE
 * of a tree by the same name. Eight appenders' keys, the highest first
 * (as issue 9's ledger), in a unique column tree; pairs in a non-unique
 * one; every fifth transaction deletes, inserts again and updates rows
 * the one before inserted; a column tree created, dropped and created
 * again between them. */
#define RB_TX 80
#define RB_PER 104 /* rows per transaction: eight appenders, 13 rows each */
#define RB_KEY(r, j) ((7 - (j) % 8) * 100000 + (r) * 13 + (j) / 8)

static int rb_nu_insert(txn_t *tx, bt_tree_t *t, int i)
{
  char k[32];
  uint8_t val[256];
  err_t e;
  size_t kl = tt_key(k, i % 50), vl = col_row(i, 0, val, sizeof val);
  return txn_insert(tx, t, k, kl, val, vl, &e);
}

static int rb_delete(txn_t *tx, bt_tree_t *t, int i)
{
  char k[32];
  err_t e;
  size_t kl = tt_key(k, i);
  return txn_delete(tx, t, k, kl, NULL, 0, &e);
}

static int rb_work(db_t *db, void *arg)
{
  (void)arg;
  err_t e;
  bt_tree_t *ta, *tb, *td;
  txn_t *tx = txn_begin(db, 0, &e);
  if (db_create_tree(tx, "rb_a", BT_UNIQUE | BT_COLUMN, &ta, &e) != CZ_OK ||
      db_create_tree(tx, "rb_b", BT_COLUMN, &tb, &e) != CZ_OK || txn_commit(tx, &e) != CZ_OK ||
      db_checkpoint(db, &e) != CZ_OK)
    return 1;
  for (int r = 0; r < RB_TX; r++) {
    tx = txn_begin(db, 0, &e);
    for (int j = 0; j < RB_PER; j++)
      if (c_insert(tx, ta, RB_KEY(r, j), 0) != CZ_OK || rb_nu_insert(tx, tb, RB_KEY(r, j)) != CZ_OK)
        return 1;
    if (r % 5 == 4)
      for (int j = 0; j < RB_PER; j += 2) {
        int i = RB_KEY(r - 1, j);
        if (rb_delete(tx, ta, i) != CZ_OK)
          return 1;
        if (j % 4 == 0 && c_insert(tx, ta, i, 2) != CZ_OK)
          return 1;
        if (j % 8 == 0 && c_update(tx, ta, i, 3) != CZ_OK)
          return 1;
      }
    if (txn_commit(tx, &e) != CZ_OK)
      return 1;
    if (r == 20 || r == 22) { /* rb_d: 500 rows, dropped, again with 300 */
      tx = txn_begin(db, 0, &e);
      if (db_create_tree(tx, "rb_d", BT_UNIQUE | BT_COLUMN, &td, &e) != CZ_OK)
        return 1;
      for (int i = 0; i < (r == 20 ? 500 : 300); i++)
        if (c_insert(tx, td, i, r == 20 ? 4 : 5) != CZ_OK)
          return 1;
      if (txn_commit(tx, &e) != CZ_OK)
        return 1;
    }
    if (r == 21) {
      tx = txn_begin(db, 0, &e);
      if (db_drop_tree(tx, "rb_d", &e) != CZ_OK || txn_commit(tx, &e) != CZ_OK)
        return 1;
    }
  }
  return 0;
}

static void test_replay_batches_column_inserts(void **state)
{
  (void)state;
  tt_db_t t;
  tt_init(&t, "colreplay");
  tt_run_and_crash(&t, rb_work, NULL);
  db_t *db = tt_open(&t);
  bt_tree_t *ta = tt_tree(db, "rb_a"), *tb = tt_tree(db, "rb_b"), *td = tt_tree(db, "rb_d");
  uint64_t rows = 0;
  for (int r = 0; r < RB_TX; r++)
    for (int j = 0; j < RB_PER; j++) {
      bool redone = r % 5 == 3 && r + 1 < RB_TX && j % 2 == 0;
      int want = !redone ? 0 : j % 8 == 0 ? 3 : j % 4 == 0 ? 2 : -1;
      assert_int_equal(c_version(ta, RB_KEY(r, j)), want);
      rows += want >= 0;
    }
  assert_int_equal(c_check(ta), rows);
  assert_int_equal(c_check(tb), (uint64_t)RB_TX * RB_PER);
  assert_int_equal(c_check(td), 300);
  for (int i = 0; i < 300; i++)
    assert_int_equal(c_version(td, i), 5);
  assert_int_equal(c_version(td, 300), -1);
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

/* ---- rule L3 on column trees (txn/README.md) ------------------------------- */

/* Writers update rows to POISON and roll back; readers must never take
 * POISON for a committed value. Before L3 held for column trees a reader
 * copied a segment under its leaf latch and checked visibility after
 * letting go: an undo could swap the segment back and release its lock in
 * between, and the reader then saw the rolled-back value as current. */
#define L3_ROWS 6000
#define L3_POISON 7

typedef struct l3_s {
  db_t *l_db;
  bt_tree_t *l_t;
  db_tree_t *l_dt;
  atomic_bool l_stop;
  atomic_int l_bad;        /* POISON taken as visible */
  atomic_long l_checked;   /* rows checked by readers */
  atomic_long l_rollbacks;
  int l_mode;              /* reader: 0 batch lookup, 1 cursor, 2 column scan */
} l3_t;

static int l3_version_of(const void *val, size_t vl)
{
  ty_phys_t kinds[3];
  datum_t d[3];
  int n;
  err_t e;
  if (bt_crow_parse(val, vl, 3, kinds, d, &n, &e) != CZ_OK || n != 3)
    return -2;
  return (int)d[1].d_i64;
}

/* A reader's verdict on one entry, checked where the caller stands
 * (inside the callback, between bt_next calls). */
static void l3_judge(l3_t *l, arena_t *a, const void *key, size_t kl, const void *val, size_t vl)
{
  const void *v = val;
  size_t len = vl;
  txn_vis_t r = txn_read_version(NULL, l->l_dt, key, kl, a, &v, &len);
  if (r != TXN_VIS_ABSENT && l3_version_of(v, len) != 0)
    atomic_fetch_add(&l->l_bad, 1);
  atomic_fetch_add(&l->l_checked, 1);
}

typedef struct l3_cb_s {
  l3_t *cb_l;
  arena_t *cb_a;
  const bt_key_t *cb_keys;
} l3_cb_t;

static void l3_lookup_cb(void *ctx, int i, bool found, const void *val, size_t vl)
{
  l3_cb_t *c = ctx;
  if (found)
    l3_judge(c->cb_l, c->cb_a, c->cb_keys[i].k_data, c->cb_keys[i].k_len, val, vl);
  else
    atomic_fetch_add(&c->cb_l->l_bad, 1); /* every row is committed: none may be missing */
}

/* The column scan's visibility, as the table layer wires it to txn. */
static bool l3_plain(void *ctx)
{
  l3_t *l = ctx;
  return txn_tree_plain(NULL, l->l_dt);
}

static bt_vis_t l3_vis_row(void *ctx, const void *key, size_t kl, arena_t *a, const void **val, size_t *vl)
{
  l3_t *l = ctx;
  switch (txn_read_version(NULL, l->l_dt, key, kl, a, val, vl)) {
  case TXN_VIS_ABSENT: return BT_VIS_SKIP;
  case TXN_VIS_PREIMAGE: return BT_VIS_REPLACE;
  default: return BT_VIS_KEEP;
  }
}

/* One column scan of every row: column 2 (the version) must be 0 in each,
 * and with a predicate "version = 0" no row may be missing (a replaced
 * row is judged by the version the reader sees). */
static void l3_scan(l3_t *l, arena_t *a, bool with_pred)
{
  err_t e;
  bt_col_scan_t *sc;
  int cols[2] = {0, 2};
  bt_col_pred_t pred;
  memset(&pred, 0, sizeof pred);
  pred.cp_col = 2;
  pred.cp_pred.p_op = CE_EQ;
  pred.cp_pred.p_val.d_i64 = 0;
  if (bt_col_scan_open(l->l_t, NULL, 0, NULL, 0, cols, 2, &pred, with_pred ? 1 : 0, &sc, &e) != CZ_OK) {
    atomic_fetch_add(&l->l_bad, 1000);
    return;
  }
  bt_col_vis_t vis = {l3_plain, l3_vis_row, l};
  bt_col_scan_set_vis(sc, &vis);
  vec_t out[2];
  if (vec_init(&out[0], a, ty_plain(TY_BYTEA), 1024, &e) != CZ_OK ||
      vec_init(&out[1], a, ty_plain(TY_INT8), 1024, &e) != CZ_OK) {
    atomic_fetch_add(&l->l_bad, 1000);
    bt_col_scan_close(sc);
    return;
  }
  int n, rc, total = 0;
  while ((rc = bt_col_scan_next(sc, out, 1024, &n, &e)) == CZ_OK) {
    for (int i = 0; i < n; i++)
      if (out[1].v_null[i] || out[1].v_i64[i] != 0)
        atomic_fetch_add(&l->l_bad, 1);
    total += n;
    atomic_fetch_add(&l->l_checked, n);
  }
  if (rc != BT_END || total != L3_ROWS)
    atomic_fetch_add(&l->l_bad, 1000);
  bt_col_scan_close(sc);
}

static void *l3_writer(void *arg)
{
  l3_t *l = arg;
  unsigned seed = 12345;
  while (!atomic_load(&l->l_stop)) {
    err_t e;
    txn_t *tx = txn_begin(l->l_db, 0, &e);
    int i = (int)(rand_r(&seed) % L3_ROWS);
    if (!tx || c_update(tx, l->l_t, i, L3_POISON) != CZ_OK || txn_rollback(tx, &e) != CZ_OK) {
      atomic_fetch_add(&l->l_bad, 1000);
      break;
    }
    atomic_fetch_add(&l->l_rollbacks, 1);
  }
  return NULL;
}

static void *l3_reader(void *arg)
{
  l3_t *l = arg;
  arena_t *a = arena_create(NULL, "l3_reader");
  char (*kb)[16] = malloc(16 * L3_ROWS);
  bt_key_t *keys = malloc(sizeof *keys * L3_ROWS);
  for (int i = 0; i < L3_ROWS; i++) {
    keys[i].k_data = kb[i];
    keys[i].k_len = (uint32_t)tt_key(kb[i], i);
  }
  err_t e;
  while (!atomic_load(&l->l_stop)) {
    arena_reset(a);
    if (l->l_mode >= 2) {
      l3_scan(l, a, l->l_mode == 3);
    } else if (l->l_mode == 0) {
      l3_cb_t c = {l, a, keys};
      if (bt_lookup_batch(l->l_t, keys, L3_ROWS, l3_lookup_cb, &c, &e) != CZ_OK)
        atomic_fetch_add(&l->l_bad, 1000);
    } else {
      bt_cursor_t *cur;
      if (bt_cursor_open(l->l_t, &cur, &e) != CZ_OK || bt_seek(cur, NULL, 0, BT_FORWARD, &e) != CZ_OK) {
        atomic_fetch_add(&l->l_bad, 1000);
        break;
      }
      const void *k, *v;
      size_t kl, vl;
      int rc, n = 0;
      while ((rc = bt_next(cur, &k, &kl, &v, &vl, &e)) == CZ_OK) {
        l3_judge(l, a, k, kl, v, vl);
        n++;
        if (n % 1024 == 0)
          arena_reset(a);
      }
      if (rc != BT_END || n != L3_ROWS)
        atomic_fetch_add(&l->l_bad, 1000);
      bt_cursor_close(cur);
    }
  }
  free(keys);
  free(kb);
  arena_destroy(a);
  return NULL;
}

static void l3_run(int mode)
{
  tt_db_t t;
  char name[16];
  snprintf(name, sizeof name, "coll3_%d", mode);
  tt_init(&t, name);
  db_t *db = tt_open(&t);
  l3_t l;
  memset(&l, 0, sizeof l);
  l.l_db = db;
  l.l_mode = mode;
  l.l_t = tt_create(db, TREE, BT_UNIQUE | BT_COLUMN);
  l.l_dt = db_tree_of(db, l.l_t);
  txn_t *tx = txn_begin(db, 0, NULL);
  for (int i = 0; i < L3_ROWS; i++)
    assert_int_equal(c_insert(tx, l.l_t, i, 0), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  pthread_t w, r;
  assert_int_equal(pthread_create(&w, NULL, l3_writer, &l), 0);
  assert_int_equal(pthread_create(&r, NULL, l3_reader, &l), 0);
  /* Long enough for a few hundred rollbacks to interleave with reads. */
  for (int ms = 0; ms < 3000 && atomic_load(&l.l_bad) == 0; ms += 10)
    usleep(10000);
  atomic_store(&l.l_stop, true);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
  if (atomic_load(&l.l_bad) != 0)
    fail_msg("mode %d: %d bad reads (%ld rows checked, %ld rollbacks)", mode, atomic_load(&l.l_bad),
             atomic_load(&l.l_checked), atomic_load(&l.l_rollbacks));
  print_message("mode %d: %ld rows checked, %ld rollbacks\n", mode, atomic_load(&l.l_checked),
                atomic_load(&l.l_rollbacks));
  assert_true(atomic_load(&l.l_rollbacks) > 10);
  assert_true(atomic_load(&l.l_checked) > L3_ROWS);
  assert_int_equal(c_check(l.l_t), L3_ROWS);
  tt_close(db);
  tt_fini(&t);
}

static void test_l3_batch_lookup(void **state)
{
  (void)state;
  l3_run(0);
}

static void test_l3_cursor(void **state)
{
  (void)state;
  l3_run(1);
}

static void test_l3_column_scan(void **state)
{
  (void)state;
  l3_run(2);
  l3_run(3);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crash_recovers_column_tree),
      cmocka_unit_test(test_replay_batches_column_inserts),
      cmocka_unit_test(test_rollback_and_savepoint),
      cmocka_unit_test(test_l3_batch_lookup),
      cmocka_unit_test(test_l3_cursor),
      cmocka_unit_test(test_l3_column_scan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
