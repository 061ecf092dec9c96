/* Snapshots (REPEATABLE READ, SERIALIZABLE): a snapshot reader sees the
 * commits before it and nothing after, through updates, deletes (dead
 * entries left in the tree), inserts and revived keys; read committed
 * readers skip dead entries; first updater wins (40001); the version store
 * empties when the last snapshot ends and dead entries leave the tree;
 * replay after a restart; serializable write skew fails one transaction.
 */
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

typedef struct ts_vis_s {
  const txn_t *sv_tx;
  uint32_t sv_cmd;
  db_tree_t *sv_dt;
  const char *sv_key;
  size_t sv_kl;
  arena_t *sv_a;
  int sv_ver;
} ts_vis_t;

static void ts_vis_cb(void *ctx, int i, bool found, const void *val, size_t len)
{
  (void)i;
  ts_vis_t *v = ctx;
  v->sv_ver = -1;
  if (!found)
    return;
  const void *pv = val;
  size_t pl = len;
  if (txn_read_version_at(v->sv_tx, v->sv_cmd, v->sv_dt, v->sv_key, v->sv_kl, v->sv_a, &pv, &pl) ==
      TXN_VIS_ABSENT)
    return;
  char s[256];
  memcpy(s, pv, CZ_MIN(pl, sizeof s - 1));
  s[CZ_MIN(pl, sizeof s - 1)] = 0;
  if (sscanf(s, "value-%*d-%d", &v->sv_ver) != 1)
    fail_msg("bad value %s", s);
}

/* What a scan of tx (opened now) sees of row i: -1 absent. */
static int ts_seen(db_t *db, txn_t *tx, bt_tree_t *tr, int i)
{
  char k[32];
  size_t kl = tt_key(k, i);
  ts_vis_t v = { .sv_tx = tx, .sv_cmd = tx ? txn_command_next(tx) : 0, .sv_dt = db_tree_of(db, tr),
                 .sv_key = k, .sv_kl = kl, .sv_a = arena_create(NULL, "ts"), .sv_ver = -1 };
  bt_key_t key = { k, (uint32_t)kl };
  err_t e;
  if (bt_lookup_batch(tr, &key, 1, ts_vis_cb, &v, &e) != CZ_OK)
    fail_msg("bt_lookup_batch: %s", e.er_msg);
  arena_destroy(v.sv_a);
  return v.sv_ver;
}

static txn_t *ts_begin(db_t *db, txn_iso_t iso)
{
  txn_t *tx = txn_begin(db, 0, NULL);
  assert_non_null(tx);
  TT_OK(txn_set_isolation(tx, iso, &e_));
  return tx;
}

static uint64_t ts_versions(db_t *db)
{
  db_stats_t s;
  db_get_stats(db, &s);
  return s.ds_versions;
}

static void test_snapshot_sees_commits_before_it(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "snap_view", &db, 10);
  txn_t *r = ts_begin(db, TXN_ISO_REPEATABLE_READ);
  txn_t *w = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(w, tr, 1, 2), CZ_OK);
  assert_int_equal(tt_delete(w, tr, 2), CZ_OK);
  assert_int_equal(tt_insert(w, tr, 20, 3), CZ_OK);
  TT_OK(txn_commit(w, &e_));
  /* the snapshot still sees the state before w */
  assert_int_equal(ts_seen(db, r, tr, 1), 1);
  assert_int_equal(ts_seen(db, r, tr, 2), 1);
  assert_int_equal(ts_seen(db, r, tr, 20), -1);
  /* the deleted entry stays in the tree, dead: read committed skips it */
  assert_int_equal(tt_version(tr, 2), 1);
  assert_int_equal(tt_version_as(db, NULL, tr, 2), -1);
  assert_int_equal(ts_seen(db, NULL, tr, 2), -1);
  assert_int_equal(ts_seen(db, NULL, tr, 1), 2);
  assert_true(ts_versions(db) >= 3);
  /* a second commit on the same keys: still the first state */
  w = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(w, tr, 1, 5), CZ_OK);
  assert_int_equal(tt_insert(w, tr, 2, 6), CZ_OK); /* revives the dead entry */
  TT_OK(txn_commit(w, &e_));
  assert_int_equal(ts_seen(db, r, tr, 1), 1);
  assert_int_equal(ts_seen(db, r, tr, 2), 1);
  assert_int_equal(ts_seen(db, NULL, tr, 2), 6);
  /* a snapshot taken now sees both commits */
  txn_t *r2 = ts_begin(db, TXN_ISO_REPEATABLE_READ);
  assert_int_equal(ts_seen(db, r2, tr, 1), 5);
  assert_int_equal(ts_seen(db, r2, tr, 2), 6);
  assert_int_equal(ts_seen(db, r2, tr, 20), 3);
  TT_OK(txn_commit(r2, &e_));
  TT_OK(txn_commit(r, &e_));
  /* no snapshot left: the store is empty */
  assert_int_equal(ts_versions(db), 0);
  tt_close(db);
  tt_fini(&t);
}

static void test_dead_entries_collected(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "snap_dead", &db, 10);
  txn_t *r = ts_begin(db, TXN_ISO_REPEATABLE_READ);
  txn_t *w = txn_begin(db, 0, NULL);
  for (int i = 0; i < 5; i++)
    assert_int_equal(tt_delete(w, tr, i), CZ_OK);
  TT_OK(txn_commit(w, &e_));
  assert_int_equal(tt_count(tr), 10); /* dead, still there */
  for (int i = 0; i < 5; i++)
    assert_int_equal(ts_seen(db, r, tr, i), 1);
  /* an insert over a dead entry, rolled back: dead again */
  w = txn_begin(db, 0, NULL);
  assert_int_equal(tt_insert(w, tr, 3, 7), CZ_OK);
  assert_int_equal(ts_seen(db, w, tr, 3), 7);
  TT_OK(txn_rollback(w, &e_));
  assert_int_equal(ts_seen(db, NULL, tr, 3), -1);
  assert_int_equal(ts_seen(db, r, tr, 3), 1);
  TT_OK(txn_commit(r, &e_));
  assert_int_equal(ts_versions(db), 0);
  assert_int_equal(tt_count(tr), 5); /* the dead entries left the tree */
  for (int i = 0; i < 5; i++)
    assert_int_equal(tt_version(tr, i), -1);
  /* and the log says the same after a restart without checkpoint */
  TT_OK(db_close(db, false, &e_));
  db = tt_open(&t);
  tr = tt_tree(db, "rows");
  assert_int_equal(tt_count(tr), 5);
  tt_close(db);
  tt_fini(&t);
}

/* A dead entry revived by a transaction that commits after the last
 * snapshot ended (the collector could not take the key while it held it):
 * the row must be alive, not dead. */
static void test_revive_after_snapshots_end(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "snap_revive", &db, 4);
  txn_t *r = ts_begin(db, TXN_ISO_REPEATABLE_READ);
  txn_t *w = txn_begin(db, 0, NULL);
  assert_int_equal(tt_delete(w, tr, 1), CZ_OK);
  TT_OK(txn_commit(w, &e_));
  txn_t *w2 = txn_begin(db, 0, NULL);
  assert_int_equal(tt_insert(w2, tr, 1, 8), CZ_OK);
  TT_OK(txn_commit(r, &e_)); /* the collector skips key 1: w2 holds it */
  assert_int_equal(ts_seen(db, NULL, tr, 1), -1);
  TT_OK(txn_commit(w2, &e_));
  assert_int_equal(ts_seen(db, NULL, tr, 1), 8);
  assert_int_equal(tt_version_as(db, NULL, tr, 1), 8);
  assert_int_equal(ts_versions(db), 0);
  tt_close(db);
  tt_fini(&t);
}

static void test_checkpoint_purges(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "snap_ckpt", &db, 6);
  txn_t *r = ts_begin(db, TXN_ISO_REPEATABLE_READ);
  txn_t *w = txn_begin(db, 0, NULL);
  assert_int_equal(tt_delete(w, tr, 1), CZ_OK);
  TT_OK(txn_commit(w, &e_));
  /* a key lock held while the snapshot ends keeps the dead entry */
  txn_t *h = txn_begin(db, 0, NULL);
  char k[32];
  size_t kl = tt_key(k, 1);
  TT_OK(txn_lock(h, tr, k, kl, NULL, NULL, &e_));
  TT_OK(txn_commit(r, &e_));
  assert_int_equal(tt_count(tr), 6);
  assert_int_equal(ts_seen(db, NULL, tr, 1), -1);
  TT_OK(txn_commit(h, &e_));
  /* the checkpoint (nobody active) removes what is left */
  TT_OK(db_checkpoint(db, &e_));
  assert_int_equal(ts_versions(db), 0);
  assert_int_equal(tt_count(tr), 5);
  TT_OK(db_close(db, true, &e_));
  db = tt_open(&t);
  tr = tt_tree(db, "rows");
  assert_int_equal(tt_count(tr), 5);
  assert_int_equal(tt_version(tr, 1), -1);
  tt_close(db);
  tt_fini(&t);
}

/* Dead entries of a tree dropped meanwhile: the checkpoint drops their
 * versions before it frees the tree. */
static void test_dropped_tree_versions(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "snap_drop", &db, 6);
  txn_t *r = ts_begin(db, TXN_ISO_REPEATABLE_READ);
  txn_t *w = txn_begin(db, 0, NULL);
  assert_int_equal(tt_delete(w, tr, 1), CZ_OK);
  assert_int_equal(tt_update(w, tr, 2, 3), CZ_OK);
  TT_OK(txn_commit(w, &e_));
  w = txn_begin(db, 0, NULL);
  TT_OK(db_drop_tree(w, "rows", &e_));
  TT_OK(txn_commit(w, &e_));
  assert_int_equal(ts_seen(db, r, tr, 1), 1); /* the snapshot's statement still reads it */
  TT_OK(txn_commit(r, &e_));
  TT_OK(db_checkpoint(db, &e_));
  assert_int_equal(ts_versions(db), 0);
  tt_close(db);
  tt_fini(&t);
}

static void test_first_updater_wins(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "snap_fuw", &db, 6);
  txn_t *r = ts_begin(db, TXN_ISO_REPEATABLE_READ);
  txn_t *w = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(w, tr, 1, 2), CZ_OK);
  assert_int_equal(tt_delete(w, tr, 2), CZ_OK);
  TT_OK(txn_commit(w, &e_));
  err_t e;
  char k[32], v[256];
  size_t vl;
  bool found, changed;
  /* the row a later commit updated, the one it deleted, one untouched */
  int keys[] = { 1, 2, 3 };
  bool want_changed[] = { true, true, false };
  for (int i = 0; i < 3; i++) {
    size_t kl = tt_key(k, keys[i]);
    TT_OK(txn_lock_read(r, tr, k, kl, v, sizeof v, &vl, &found, &changed, &e_));
    assert_int_equal(changed, want_changed[i]);
  }
  TT_OK(txn_rollback(r, &e_));
  /* read committed keeps its rule: a change committed before is no change */
  txn_t *rc = txn_begin(db, 0, NULL);
  size_t kl = tt_key(k, 1);
  TT_OK(txn_lock_read(rc, tr, k, kl, v, sizeof v, &vl, &found, &changed, &e_));
  assert_false(changed);
  assert_true(found);
  (void)e;
  TT_OK(txn_commit(rc, &e_));
  tt_close(db);
  tt_fini(&t);
}

static void test_isolation_before_first_change(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = ts_setup(&t, "snap_late", &db, 2);
  txn_t *w = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(w, tr, 1, 2), CZ_OK);
  err_t e;
  assert_int_equal(txn_set_isolation(w, TXN_ISO_REPEATABLE_READ, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_ACTIVE_TX);
  TT_OK(txn_rollback(w, &e_));
  tt_close(db);
  tt_fini(&t);
}

/* Write skew at tree level: each reads both trees and writes one. */
static void test_serializable_write_skew(void **state)
{
  (void)state;
  tt_db_t t;
  tt_init(&t, "snap_ssi");
  db_t *db = tt_open(&t);
  bt_tree_t *x = tt_create(db, "x", BT_UNIQUE), *y = tt_create(db, "y", BT_UNIQUE);
  db_tree_t *dx = db_tree_of(db, x), *dy = db_tree_of(db, y);
  err_t e;
  for (int iso = TXN_ISO_REPEATABLE_READ; iso <= TXN_ISO_SERIALIZABLE; iso++) {
    txn_t *a = ts_begin(db, (txn_iso_t)iso), *b = ts_begin(db, (txn_iso_t)iso);
    txn_note_read(a, dx);
    txn_note_read(a, dy);
    txn_note_read(b, dx);
    txn_note_read(b, dy);
    assert_int_equal(tt_insert(a, x, iso, 1), CZ_OK);
    int rb = tt_insert(b, y, iso, 1);
    int ca = txn_commit(a, &e);
    assert_int_equal(ca, CZ_OK);
    if (iso == TXN_ISO_SERIALIZABLE) {
      assert_int_equal(rb, CZ_ERR); /* b would close a dangerous structure */
      TT_OK(txn_rollback(b, &e_));
    } else {
      assert_int_equal(rb, CZ_OK);
      TT_OK(txn_commit(b, &e));
    }
  }
  /* a reader that meets a concurrent writer's tree is doomed at commit */
  txn_t *a = ts_begin(db, TXN_ISO_SERIALIZABLE), *b = ts_begin(db, TXN_ISO_SERIALIZABLE);
  txn_note_read(a, dy);
  assert_int_equal(tt_insert(b, y, 50, 1), CZ_OK); /* a ->rw b */
  txn_note_read(b, dx);
  assert_int_equal(tt_insert(a, x, 50, 1), CZ_ERR); /* b ->rw a: a would be the pivot */
  TT_OK(txn_rollback(a, &e_));
  TT_OK(txn_commit(b, &e_));
  tt_close(db);
  tt_fini(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_snapshot_sees_commits_before_it),
    cmocka_unit_test(test_dead_entries_collected),
    cmocka_unit_test(test_revive_after_snapshots_end),
    cmocka_unit_test(test_checkpoint_purges),
    cmocka_unit_test(test_dropped_tree_versions),
    cmocka_unit_test(test_first_updater_wins),
    cmocka_unit_test(test_isolation_before_first_change),
    cmocka_unit_test(test_serializable_write_skew),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
