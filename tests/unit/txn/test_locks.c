/* Row locks and read committed: what readers see of others' uncommitted
 * changes, lock waits, 40001 after a concurrent change, deadlock detection,
 * concurrent increments, end callbacks, and the checkpoint that gives up
 * on open transactions.
 */
#include <pthread.h>

#include "txn_test.h"

static bt_tree_t *tl_setup(tt_db_t *t, const char *name, db_t **db, int rows)
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

static void test_readers_see_committed_only(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "rc_view", &db, 10);
  txn_t *w = txn_begin(db, 0, NULL);
  txn_t *r = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(w, tr, 1, 2), CZ_OK);
  assert_int_equal(tt_delete(w, tr, 2), CZ_OK);
  assert_int_equal(tt_insert(w, tr, 20, 3), CZ_OK);
  /* the writer sees its own changes */
  assert_int_equal(tt_version_as(db, w, tr, 1), 2);
  assert_int_equal(tt_version_as(db, w, tr, 2), -1);
  assert_int_equal(tt_version_as(db, w, tr, 20), 3);
  /* another transaction and a reader without one see the committed state */
  for (int k = 0; k < 2; k++) {
    const txn_t *who = k ? NULL : r;
    assert_int_equal(tt_version_as(db, who, tr, 1), 1);
    assert_int_equal(tt_version_as(db, who, tr, 2), 1);
    assert_int_equal(tt_version_as(db, who, tr, 20), -1);
    assert_int_equal(tt_version_as(db, who, tr, 3), 1);
  }
  TT_OK(txn_commit(w, &e_));
  assert_int_equal(tt_version_as(db, r, tr, 1), 2);
  assert_int_equal(tt_version_as(db, r, tr, 2), -1);
  assert_int_equal(tt_version_as(db, r, tr, 20), 3);
  assert_int_equal(tt_version(tr, 2), -1); /* the delete is applied at commit */
  assert_int_equal(db_tree_nlocked(db_tree_of(db, tr)), 0);
  TT_OK(txn_commit(r, &e_));
  tt_close(db);
  tt_fini(&t);
}

static void test_delete_then_insert_same_key(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "del_ins", &db, 4);
  txn_t *w = txn_begin(db, 0, NULL);
  assert_int_equal(tt_delete(w, tr, 1), CZ_OK);
  assert_int_equal(tt_delete(w, tr, 1), BT_NOT_FOUND);
  assert_int_equal(tt_update(w, tr, 1, 5), BT_NOT_FOUND);
  assert_int_equal(tt_insert(w, tr, 1, 6), CZ_OK);
  assert_int_equal(tt_version_as(db, w, tr, 1), 6);
  assert_int_equal(tt_version_as(db, NULL, tr, 1), 1);
  TT_OK(txn_commit(w, &e_));
  assert_int_equal(tt_version(tr, 1), 6);
  /* and it replays: reopen without checkpoint */
  TT_OK(db_close(db, false, &e_));
  db = tt_open(&t);
  tr = tt_tree(db, "rows");
  assert_int_equal(tt_version(tr, 1), 6);
  assert_int_equal(tt_count(tr), 4);
  tt_close(db);
  tt_fini(&t);
}

/* What a reader of tx opened in a command sees of tx's later changes. */
static int tl_version_at(db_t *db, txn_t *tx, uint32_t cmd, bt_tree_t *tr, int i)
{
  char k[32];
  size_t kl = tt_key(k, i);
  db_tree_t *dt = db_tree_of(db, tr);
  arena_t *a = arena_create(NULL, "at");
  char buf[256];
  size_t vl = 0;
  err_t e;
  int rc = bt_lookup(tr, k, kl, buf, sizeof buf - 1, &vl, &e);
  int ver = -1;
  if (rc == CZ_OK) {
    const void *v = buf;
    if (txn_read_version_at(tx, cmd, dt, k, kl, a, &v, &vl) != TXN_VIS_ABSENT) {
      char s[256];
      memcpy(s, v, vl);
      s[vl] = 0;
      if (sscanf(s, "value-%*d-%d", &ver) != 1)
        fail_msg("bad value %s", s);
    }
  }
  arena_destroy(a);
  return ver;
}

static void test_command_visibility(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "commands", &db, 4);
  txn_t *tx = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(tx, tr, 1, 2), CZ_OK);
  uint32_t c1 = txn_command_next(tx); /* a scan opens: it sees the update before it */
  assert_int_equal(tl_version_at(db, tx, c1, tr, 1), 2);
  assert_int_equal(tt_update(tx, tr, 1, 3), CZ_OK);   /* changes after it opened */
  assert_int_equal(tt_insert(tx, tr, 10, 3), CZ_OK);
  assert_int_equal(tt_delete(tx, tr, 2), CZ_OK);
  assert_int_equal(tl_version_at(db, tx, c1, tr, 1), 2);
  assert_int_equal(tl_version_at(db, tx, c1, tr, 10), -1);
  assert_int_equal(tl_version_at(db, tx, c1, tr, 2), 1);
  /* everything of tx at cmd 0 and in the next command */
  assert_int_equal(tl_version_at(db, tx, 0, tr, 1), 3);
  assert_int_equal(tl_version_at(db, tx, 0, tr, 10), 3);
  assert_int_equal(tl_version_at(db, tx, 0, tr, 2), -1);
  uint32_t c2 = txn_command_next(tx);
  assert_true(c2 > c1);
  assert_int_equal(tl_version_at(db, tx, c2, tr, 1), 3);
  assert_int_equal(tl_version_at(db, tx, c2, tr, 10), 3);
  assert_int_equal(tl_version_at(db, tx, c2, tr, 2), -1);
  /* others still see the committed state */
  assert_int_equal(tl_version_at(db, NULL, 0, tr, 1), 1);
  assert_int_equal(tl_version_at(db, NULL, 0, tr, 10), -1);
  TT_OK(txn_commit(tx, &e_));
  tt_close(db);
  tt_fini(&t);
}

/* A committed DROP keeps the tree readable for statements that still hold
 * its handle until the next checkpoint; its name is free at once. */
static void test_dropped_tree_lives_until_checkpoint(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "graveyard", &db, 5);
  txn_t *tx = txn_begin(db, 0, NULL);
  TT_OK(db_drop_tree(tx, "rows", &e_));
  TT_OK(txn_commit(tx, &e_));
  assert_int_equal(tt_version(tr, 3), 1); /* an old reader's handle still works */
  bt_tree_t *again = tt_create(db, "rows", BT_UNIQUE);
  assert_ptr_not_equal(again, tr);
  tx = txn_begin(db, 0, NULL);
  assert_int_equal(tt_insert(tx, again, 3, 7), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  TT_OK(db_checkpoint(db, &e_)); /* frees the old tree */
  assert_int_equal(tt_version(again, 3), 7);
  assert_int_equal(tt_count(again), 1);
  tt_close(db);
  db = tt_open(&t);
  assert_int_equal(tt_count(tt_tree(db, "rows")), 1);
  tt_close(db);
  tt_fini(&t);
}

/* ---- threads ------------------------------------------------------------ */

typedef struct tl_job_s {
  db_t *db;
  bt_tree_t *tr;
  txn_t *tx;
  int key, version;
  int op;          /* 0 update, 1 insert, 2 delete */
  int rc;
  char sqlstate[6];
  volatile int done;
} tl_job_t;

static void *tl_worker(void *arg)
{
  tl_job_t *j = arg;
  char k[32], v[128];
  size_t kl = tt_key(k, j->key), vl = tt_val(v, j->key, j->version);
  err_t e;
  err_clear(&e);
  if (j->op == 0)
    j->rc = txn_update(j->tx, j->tr, k, kl, v, vl, &e);
  else if (j->op == 1)
    j->rc = txn_insert(j->tx, j->tr, k, kl, v, vl, &e);
  else
    j->rc = txn_delete(j->tx, j->tr, k, kl, NULL, 0, &e);
  memcpy(j->sqlstate, e.er_sqlstate, 6);
  j->done = 1;
  return NULL;
}

static void tl_sleep_ms(int ms)
{
  time_sleep_us((uint64_t)ms * 1000);
}

static void tl_conflict(bool commit_first, int first_op, int second_op, int want_rc, const char *want_state)
{
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "conflict", &db, 5);
  txn_t *t1 = txn_begin(db, 0, NULL);
  if (first_op == 1)
    assert_int_equal(tt_insert(t1, tr, 7, 2), CZ_OK);
  else if (first_op == 0)
    assert_int_equal(tt_update(t1, tr, 3, 2), CZ_OK);
  else
    assert_int_equal(tt_delete(t1, tr, 3), CZ_OK);
  tl_job_t j = { .db = db, .tr = tr, .tx = txn_begin(db, 0, NULL), .key = first_op == 1 ? 7 : 3,
                 .version = 9, .op = second_op };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, tl_worker, &j), 0);
  tl_sleep_ms(50);
  assert_false(j.done); /* it waits for t1 */
  if (commit_first)
    TT_OK(txn_commit(t1, &e_));
  else
    TT_OK(txn_rollback(t1, &e_));
  pthread_join(th, NULL);
  assert_int_equal(j.rc, want_rc);
  if (want_state)
    assert_string_equal(j.sqlstate, want_state);
  TT_OK(txn_rollback(j.tx, &e_));
  tt_close(db);
  tt_fini(&t);
}

static void test_update_after_committed_update_is_40001(void **state)
{
  (void)state;
  tl_conflict(true, 0, 0, CZ_ERR, SQLSTATE_SERIALIZATION);
}

static void test_update_after_rollback_proceeds(void **state)
{
  (void)state;
  tl_conflict(false, 0, 0, CZ_OK, NULL);
}

static void test_delete_after_committed_delete_is_40001(void **state)
{
  (void)state;
  tl_conflict(true, 2, 2, CZ_ERR, SQLSTATE_SERIALIZATION);
}

static void test_insert_waits_for_uncommitted_insert(void **state)
{
  (void)state;
  tl_conflict(true, 1, 1, CZ_ERR, SQLSTATE_UNIQUE_VIOLATION);
  tl_conflict(false, 1, 1, CZ_OK, NULL);
}

/* ---- txn_insert_batch under locks (txn_insert_batch.c) ---------------- */

/* Sorted rows of keys keys[0..n) with value v (bytes in buf). */
static void tl_rows(const int *keys, int n, int v, bt_row_t *rows, char (*buf)[160])
{
  for (int i = 0; i < n; i++) {
    size_t kl = tt_key(buf[i], keys[i]);
    size_t vl = tt_val(buf[i] + kl, keys[i], v);
    rows[i] = (bt_row_t){ buf[i], (uint32_t)kl, buf[i] + kl, (uint32_t)vl };
  }
}

static int tl_batch(txn_t *tx, bt_tree_t *tr, const int *keys, int n, int v, int *done, err_t *e)
{
  bt_row_t *rows = calloc((size_t)n, sizeof *rows);
  char(*buf)[160] = calloc((size_t)n, sizeof *buf);
  tl_rows(keys, n, v, rows, buf);
  int rc = txn_insert_batch_done(tx, tr, rows, n, done, e);
  free(rows);
  free(buf);
  return rc;
}

/* Appended and interleaved keys over several chunks: others see none of
 * them until the commit, the owner all; a rollback leaves nothing. */
static void test_batch_insert_visibility(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "batch_vis", &db, 0);
  int keys[1200], n = 0;
  for (int i = 0; i < 600; i++)
    keys[n++] = i * 2;  /* even keys, then odd ones between them */
  err_t e;
  int done = -1;
  txn_t *w = txn_begin(db, 0, NULL);
  assert_int_equal(tl_batch(w, tr, keys, n, 1, &done, &e), CZ_OK);
  assert_int_equal(done, 600);
  TT_OK(txn_commit(w, &e_));
  n = 0;
  for (int i = 0; i < 600; i++)
    keys[n++] = i * 2 + 1;
  for (int i = 0; i < 600; i++)
    keys[n++] = 2000 + i;
  w = txn_begin(db, 0, NULL);
  assert_int_equal(tl_batch(w, tr, keys, n, 2, &done, &e), CZ_OK);
  assert_int_equal(done, n);
  for (int k = 0; k < 2; k++) {
    const txn_t *who = k ? NULL : w;
    assert_int_equal(tt_version_as(db, who, tr, 0), 1);
    assert_int_equal(tt_version_as(db, who, tr, 301), k ? -1 : 2);
    assert_int_equal(tt_version_as(db, who, tr, 2599), k ? -1 : 2);
  }
  assert_int_equal(db_tree_nlocked(db_tree_of(db, tr)), (uint32_t)n);
  TT_OK(txn_commit(w, &e_));
  assert_int_equal(tt_version_as(db, NULL, tr, 301), 2);
  assert_int_equal(tt_count(tr), 1800);
  w = txn_begin(db, 0, NULL);
  keys[0] = 5000;
  keys[1] = 5001;
  assert_int_equal(tl_batch(w, tr, keys, 2, 3, &done, &e), CZ_OK);
  TT_OK(txn_rollback(w, &e_));
  assert_int_equal(tt_version(tr, 5000), -1);
  assert_int_equal(tt_count(tr), 1800);
  assert_int_equal(db_tree_nlocked(db_tree_of(db, tr)), 0);
  tt_close(db);
  tt_fini(&t);
}

/* An existing key: 23505 after the rows before it, the key unchanged; a
 * key twice: 23505; keys the owner deleted come back with new values. */
static void test_batch_insert_conflicts(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "batch_dup", &db, 10);  /* keys 0..9, value 1 */
  err_t e;
  int done = -1;
  int k1[] = { 20, 21, 22, 5, 23 };
  txn_t *w = txn_begin(db, 0, NULL);
  assert_int_equal(tl_batch(w, tr, (int[]){ 3, 10, 11 }, 3, 2, &done, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_UNIQUE_VIOLATION);
  assert_int_equal(done, 0);
  TT_OK(txn_rollback(w, &e_));
  w = txn_begin(db, 0, NULL);
  /* sorted as the table layer hands them: 5 20 21 22 23 */
  int k1s[] = { k1[3], k1[0], k1[1], k1[2], k1[4] };
  assert_int_equal(tl_batch(w, tr, k1s, 5, 2, &done, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_UNIQUE_VIOLATION);
  assert_int_equal(done, 0);
  assert_int_equal(tt_version_as(db, w, tr, 5), 1);
  TT_OK(txn_rollback(w, &e_));
  w = txn_begin(db, 0, NULL);
  assert_int_equal(tl_batch(w, tr, (int[]){ 10, 11, 12, 12, 13 }, 5, 2, &done, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_UNIQUE_VIOLATION);
  TT_OK(txn_rollback(w, &e_));
  assert_int_equal(tt_count(tr), 10);
  w = txn_begin(db, 0, NULL);
  assert_int_equal(tt_delete(w, tr, 4), CZ_OK);
  assert_int_equal(tl_batch(w, tr, (int[]){ 4, 30, 31 }, 3, 7, &done, &e), CZ_OK);
  assert_int_equal(done, 3);
  assert_int_equal(tt_version_as(db, w, tr, 4), 7);
  assert_int_equal(tt_version_as(db, NULL, tr, 4), 1);
  TT_OK(txn_commit(w, &e_));
  assert_int_equal(tt_version(tr, 4), 7);
  assert_int_equal(tt_version(tr, 31), 7);
  /* and it replays: reopen without checkpoint */
  TT_OK(db_close(db, false, &e_));
  db = tt_open(&t);
  tr = tt_tree(db, "rows");
  assert_int_equal(tt_version(tr, 4), 7);
  assert_int_equal(tt_count(tr), 12);
  tt_close(db);
  tt_fini(&t);
}

static void test_deadlock_detected(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "deadlock", &db, 5);
  txn_t *t1 = txn_begin(db, 0, NULL), *t2 = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(t1, tr, 1, 2), CZ_OK);
  assert_int_equal(tt_update(t2, tr, 2, 2), CZ_OK);
  tl_job_t j = { .db = db, .tr = tr, .tx = t1, .key = 2, .version = 3, .op = 0 };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, tl_worker, &j), 0);
  tl_sleep_ms(50);
  assert_false(j.done);
  /* t2 now waits for t1, which waits for t2: t2 is the victim */
  err_t e;
  char k[32], v[128];
  size_t kl = tt_key(k, 1), vl = tt_val(v, 1, 4);
  assert_int_equal(txn_update(t2, tr, k, kl, v, vl, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_DEADLOCK);
  TT_OK(txn_rollback(t2, &e_));
  pthread_join(th, NULL);
  /* t2 rolled back its change of row 2: t1's update goes through */
  assert_int_equal(j.rc, CZ_OK);
  TT_OK(txn_commit(t1, &e_));
  assert_int_equal(tt_version(tr, 1), 2);
  assert_int_equal(tt_version(tr, 2), 3);
  tt_close(db);
  tt_fini(&t);
}

/* ---- lock modes (SELECT … FOR UPDATE / FOR SHARE) ----------------------- */

static int tl_lock_row(txn_t *tx, bt_tree_t *tr, int key, txn_lock_mode_t mode, bool nowait,
                       bool *found, err_t *e)
{
  char k[32], v[256];
  size_t kl = tt_key(k, key), vl = 0;
  return txn_lock_row(tx, tr, k, kl, mode, nowait, v, sizeof v, &vl, found, e);
}

/* Sharers coexist; an exclusive request of another is TXN_BUSY under
 * nowait and waits for every sharer otherwise; the readers see the row. */
static void test_shared_locks(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "shared", &db, 5);
  txn_t *t1 = txn_begin(db, 0, NULL), *t2 = txn_begin(db, 0, NULL), *t3 = txn_begin(db, 0, NULL);
  bool found = false;
  {
    err_t e_;
    assert_int_equal(tl_lock_row(t1, tr, 3, TXN_LOCK_SHARED, true, &found, &e_), CZ_OK);
  }
  assert_true(found);
  {
    err_t e_;
    assert_int_equal(tl_lock_row(t2, tr, 3, TXN_LOCK_SHARED, true, &found, &e_), CZ_OK);
  }
  {
    err_t e_;
    assert_int_equal(tl_lock_row(t3, tr, 3, TXN_LOCK_EXCLUSIVE, true, &found, &e_), TXN_BUSY);
  }
  assert_int_equal(tt_version(tr, 3), 1); /* readers are not held back */
  /* an update by t3 waits until both sharers are gone */
  tl_job_t j = { .db = db, .tr = tr, .tx = t3, .key = 3, .version = 5, .op = 0 };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, tl_worker, &j), 0);
  tl_sleep_ms(50);
  assert_false(j.done);
  TT_OK(txn_commit(t1, &e_));
  tl_sleep_ms(50);
  assert_false(j.done); /* t2 still shares it */
  TT_OK(txn_commit(t2, &e_));
  pthread_join(th, NULL);
  assert_int_equal(j.rc, CZ_OK); /* sharers changed nothing: no 40001 */
  TT_OK(txn_commit(t3, &e_));
  assert_int_equal(tt_version(tr, 3), 5);
  /* an absent key locks (found false) */
  txn_t *t4 = txn_begin(db, 0, NULL);
  {
    err_t e_;
    assert_int_equal(tl_lock_row(t4, tr, 42, TXN_LOCK_EXCLUSIVE, false, &found, &e_), CZ_OK);
  }
  assert_false(found);
  TT_OK(txn_rollback(t4, &e_));
  tt_close(db);
  tt_fini(&t);
}

/* Two sharers that both upgrade: the second one's wait would close a
 * cycle through a sharer, so it is the deadlock's victim (40P01). */
static void test_shared_upgrade_deadlock(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "upgrade", &db, 5);
  txn_t *t1 = txn_begin(db, 0, NULL), *t2 = txn_begin(db, 0, NULL);
  bool found;
  {
    err_t e_;
    assert_int_equal(tl_lock_row(t1, tr, 2, TXN_LOCK_SHARED, false, &found, &e_), CZ_OK);
  }
  {
    err_t e_;
    assert_int_equal(tl_lock_row(t2, tr, 2, TXN_LOCK_SHARED, false, &found, &e_), CZ_OK);
  }
  tl_job_t j = { .db = db, .tr = tr, .tx = t1, .key = 2, .version = 7, .op = 0 };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, tl_worker, &j), 0);
  tl_sleep_ms(50);
  assert_false(j.done); /* t1's upgrade waits for t2 */
  err_t e;
  assert_int_equal(tl_lock_row(t2, tr, 2, TXN_LOCK_EXCLUSIVE, false, &found, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_DEADLOCK);
  TT_OK(txn_rollback(t2, &e_));
  pthread_join(th, NULL);
  assert_int_equal(j.rc, CZ_OK);
  TT_OK(txn_commit(t1, &e_));
  assert_int_equal(tt_version(tr, 2), 7);
  tt_close(db);
  tt_fini(&t);
}

/* lock_timeout: a wait past it is 55P03, about that long; none when 0. */
static void test_lock_timeout(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "timeout", &db, 5);
  txn_t *t1 = txn_begin(db, 0, NULL), *t2 = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(t1, tr, 1, 2), CZ_OK);
  volatile int64_t ms = 150;
  txn_set_lock_timeout(t2, &ms);
  bool found;
  err_t e;
  uint64_t t0 = time_now_ns();
  assert_int_equal(tl_lock_row(t2, tr, 1, TXN_LOCK_SHARED, false, &found, &e), CZ_ERR);
  uint64_t spent_ms = (time_now_ns() - t0) / 1000000;
  assert_string_equal(e.er_sqlstate, SQLSTATE_LOCK_NOT_AVAILABLE);
  assert_string_equal(e.er_msg, "canceling statement due to lock timeout");
  assert_true(spent_ms >= 140 && spent_ms < 1000);
  /* other keys are free; with the timeout off the wait lasts until t1 ends */
  {
    err_t e_;
    assert_int_equal(tl_lock_row(t2, tr, 4, TXN_LOCK_EXCLUSIVE, false, &found, &e_), CZ_OK);
  }
  ms = 0;
  tl_job_t j = { .db = db, .tr = tr, .tx = t2, .key = 1, .version = 9, .op = 0 };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, tl_worker, &j), 0);
  tl_sleep_ms(300);
  assert_false(j.done);
  TT_OK(txn_rollback(t1, &e_));
  pthread_join(th, NULL);
  assert_int_equal(j.rc, CZ_OK);
  TT_OK(txn_commit(t2, &e_));
  tt_close(db);
  tt_fini(&t);
}

static void test_lock_names_and_holds(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "names", &db, 2);
  txn_t *t1 = txn_begin(db, 0, NULL);
  bool waited = true, changed = true;
  TT_OK(txn_lock(t1, tr, "not-a-row", 9, &waited, &changed, &e_));
  assert_false(waited);
  assert_false(changed);
  assert_true(txn_holds_lock(t1, tr, "not-a-row", 9));
  /* a lock that changes nothing hides nothing from readers */
  assert_int_equal(db_tree_nlocked(db_tree_of(db, tr)), 1);
  assert_int_equal(tt_version_as(db, NULL, tr, 1), 1);
  TT_OK(txn_commit(t1, &e_));
  assert_int_equal(db_tree_nlocked(db_tree_of(db, tr)), 0);
  tt_close(db);
  tt_fini(&t);
}

/* ---- concurrent increments ------------------------------------------------ */

#define TL_THREADS 8
#define TL_KEYS 4
#define TL_ROUNDS 200

typedef struct tl_inc_s {
  db_t *db;
  bt_tree_t *tr;
  int seed;
  int committed[TL_KEYS];
  int conflicts;
  int fatal;
} tl_inc_t;

static int tl_read_counter(txn_t *tx, bt_tree_t *tr, int key, int64_t *out, err_t *e)
{
  char k[32], v[64];
  size_t kl = (size_t)snprintf(k, sizeof k, "c%d", key), vl;
  bool found;
  if (txn_lock_read(tx, tr, k, kl, v, sizeof v - 1, &vl, &found, NULL, e) != CZ_OK)
    return CZ_ERR;
  v[vl] = 0;
  *out = found ? atoll(v) : -1;
  return CZ_OK;
}

static void *tl_incrementer(void *arg)
{
  tl_inc_t *w = arg;
  unsigned s = (unsigned)w->seed;
  for (int r = 0; r < TL_ROUNDS; r++) {
    int a = (int)(rand_r(&s) % TL_KEYS), b = (int)(rand_r(&s) % TL_KEYS);
    err_t e;
    err_clear(&e);
    txn_t *tx = txn_begin(w->db, 0, &e);
    int rc = CZ_OK;
    int keys[2] = { a, b };
    for (int i = 0; i < 2 && rc == CZ_OK; i++) {
      int64_t cur;
      rc = tl_read_counter(tx, w->tr, keys[i], &cur, &e);
      if (rc != CZ_OK)
        break;
      char k[32], v[64];
      size_t kl = (size_t)snprintf(k, sizeof k, "c%d", keys[i]);
      size_t vl = (size_t)snprintf(v, sizeof v, "%lld", (long long)cur + 1);
      rc = txn_update(tx, w->tr, k, kl, v, vl, &e);
      time_sleep_us(rand_r(&s) % 300); /* hold the lock a while: waits and deadlocks happen */
    }
    if (rc == CZ_OK && txn_commit(tx, &e) == CZ_OK) {
      w->committed[a]++;
      w->committed[b]++;
    } else if (rc != CZ_OK) {
      if (err_is(&e, SQLSTATE_DEADLOCK) || err_is(&e, SQLSTATE_SERIALIZATION))
        w->conflicts++;
      else
        w->fatal++;
      err_t e2;
      txn_rollback(tx, &e2);
    } else {
      w->fatal++;
    }
  }
  return NULL;
}

static void test_concurrent_increments(void **state)
{
  (void)state;
  tt_db_t t;
  tt_init(&t, "increments");
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "counters", BT_UNIQUE);
  txn_t *tx = txn_begin(db, 0, NULL);
  for (int i = 0; i < TL_KEYS; i++) {
    char k[32];
    size_t kl = (size_t)snprintf(k, sizeof k, "c%d", i);
    TT_OK(txn_insert(tx, tr, k, kl, "0", 1, &e_));
  }
  TT_OK(txn_commit(tx, &e_));
  tl_inc_t w[TL_THREADS];
  pthread_t th[TL_THREADS];
  uint64_t seed = cz_test_seed();
  for (int i = 0; i < TL_THREADS; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].db = db;
    w[i].tr = tr;
    w[i].seed = (int)(seed + (uint64_t)i);
    assert_int_equal(pthread_create(&th[i], NULL, tl_incrementer, &w[i]), 0);
  }
  int want[TL_KEYS] = { 0 }, conflicts = 0;
  for (int i = 0; i < TL_THREADS; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(w[i].fatal, 0);
    conflicts += w[i].conflicts;
    for (int k = 0; k < TL_KEYS; k++)
      want[k] += w[i].committed[k];
  }
  tx = txn_begin(db, 0, NULL);
  for (int k = 0; k < TL_KEYS; k++) {
    int64_t got;
    TT_OK(tl_read_counter(tx, tr, k, &got, &e_));
    assert_int_equal(got, want[k]);
  }
  TT_OK(txn_commit(tx, &e_));
  print_message("increments: %d conflicts (deadlocks or serialization)\n", conflicts);
  assert_true(conflicts > 0); /* opposite lock orders did meet */
  /* the log replays to the same values */
  TT_OK(db_close(db, false, &e_));
  db = tt_open(&t);
  tr = tt_tree(db, "counters");
  tx = txn_begin(db, 0, NULL);
  for (int k = 0; k < TL_KEYS; k++) {
    int64_t got;
    TT_OK(tl_read_counter(tx, tr, k, &got, &e_));
    assert_int_equal(got, want[k]);
  }
  TT_OK(txn_commit(tx, &e_));
  tt_close(db);
  tt_fini(&t);
}

/* ---- end callbacks and the checkpoint ------------------------------------- */

static void tl_on_end(void *ctx, txn_t *tx, bool committed)
{
  (void)tx;
  *(int *)ctx = committed ? 1 : 2;
}

static void test_end_callbacks(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "callbacks", &db, 2);
  int a = 0, b = 0, c = 0;
  txn_t *tx = txn_begin(db, 0, NULL);
  txn_on_end(tx, tl_on_end, &a);
  assert_int_equal(tt_update(tx, tr, 0, 2), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  tx = txn_begin(db, 0, NULL);
  txn_on_end(tx, tl_on_end, &b);
  TT_OK(txn_rollback(tx, &e_));
  tx = txn_begin(db, 0, NULL);
  txn_on_end(tx, tl_on_end, &c);
  TT_OK(txn_commit(tx, &e_)); /* read-only commit */
  assert_int_equal(a, 1);
  assert_int_equal(b, 2);
  assert_int_equal(c, 1);
  tt_close(db);
  tt_fini(&t);
}

static void test_checkpoint_try_gives_up(void **state)
{
  (void)state;
  tt_db_t t;
  db_t *db;
  bt_tree_t *tr = tl_setup(&t, "ckpt_try", &db, 2);
  txn_t *idle = txn_begin(db, 0, NULL); /* a client idle in BEGIN */
  db_stats_t s0, s1;
  db_get_stats(db, &s0);
  uint64_t t0 = time_now_ns();
  err_t e;
  assert_int_equal(db_checkpoint_try(db, 50, &e), 1);
  assert_true(time_now_ns() - t0 < 2000000000ull);
  /* new transactions are not held back afterwards */
  txn_t *tx = txn_begin(db, 0, NULL);
  assert_int_equal(tt_update(tx, tr, 1, 2), CZ_OK);
  TT_OK(txn_commit(tx, &e_));
  db_get_stats(db, &s1);
  assert_int_equal(s1.ds_checkpoints, s0.ds_checkpoints);
  TT_OK(txn_commit(idle, &e_));
  assert_int_equal(db_checkpoint_try(db, 50, &e), CZ_OK);
  db_get_stats(db, &s1);
  assert_int_equal(s1.ds_checkpoints, s0.ds_checkpoints + 1);
  tt_close(db);
  tt_fini(&t);
}

/* The periodic checkpoint with a client idle in BEGIN: other transactions
 * are never held back for long, and once the idle one ends the checkpoint
 * happens. */
static void test_timer_does_not_stall_on_idle_transaction(void **state)
{
  (void)state;
  tt_db_t t;
  tt_init(&t, "timer_idle");
  t.t_cfg.dc_checkpoint_interval_s = 1;
  db_t *db = tt_open(&t);
  bt_tree_t *tr = tt_create(db, "rows", BT_UNIQUE);
  txn_t *idle = txn_begin(db, 0, NULL);
  db_stats_t s0, s1;
  db_get_stats(db, &s0);
  uint64_t worst = 0, until = time_now_ns() + 3500000000ull;
  int i = 0;
  while (time_now_ns() < until) {
    uint64_t t0 = time_now_ns();
    txn_t *tx = txn_begin(db, 0, NULL);
    uint64_t waited = time_now_ns() - t0;
    worst = waited > worst ? waited : worst;
    assert_int_equal(tt_insert(tx, tr, i++, 1), CZ_OK);
    TT_OK(txn_commit(tx, &e_));
    time_sleep_us(2000);
  }
  db_get_stats(db, &s1);
  assert_int_equal(s1.ds_checkpoints, s0.ds_checkpoints); /* it kept giving up */
  print_message("worst wait in txn_begin: %.1f ms\n", worst / 1e6);
  assert_true(worst < 1000000000ull);
  TT_OK(txn_commit(idle, &e_));
  until = time_now_ns() + 12000000000ull; /* retries back off: 1 s, 2 s, 4 s ... */
  do {
    time_sleep_us(50000);
    db_get_stats(db, &s1);
  } while (s1.ds_checkpoints == s0.ds_checkpoints && time_now_ns() < until);
  assert_true(s1.ds_checkpoints > s0.ds_checkpoints);
  tt_close(db);
  tt_fini(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_readers_see_committed_only),
    cmocka_unit_test(test_delete_then_insert_same_key),
    cmocka_unit_test(test_command_visibility),
    cmocka_unit_test(test_dropped_tree_lives_until_checkpoint),
    cmocka_unit_test(test_update_after_committed_update_is_40001),
    cmocka_unit_test(test_update_after_rollback_proceeds),
    cmocka_unit_test(test_delete_after_committed_delete_is_40001),
    cmocka_unit_test(test_insert_waits_for_uncommitted_insert),
    cmocka_unit_test(test_batch_insert_visibility),
    cmocka_unit_test(test_batch_insert_conflicts),
    cmocka_unit_test(test_deadlock_detected),
    cmocka_unit_test(test_lock_names_and_holds),
    cmocka_unit_test(test_shared_locks),
    cmocka_unit_test(test_shared_upgrade_deadlock),
    cmocka_unit_test(test_lock_timeout),
    cmocka_unit_test(test_concurrent_increments),
    cmocka_unit_test(test_end_callbacks),
    cmocka_unit_test(test_checkpoint_try_gives_up),
    cmocka_unit_test(test_timer_does_not_stall_on_idle_transaction),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
