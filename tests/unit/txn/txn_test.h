/* txn_test.h — shared fixture of the txn unit tests: a database and log in
 * the test's temporary folder, a small pool, row helpers, and a "crash": a
 * forked child does the work and _exit()s without closing, so the parent
 * finds the files exactly as a killed server leaves them.
 */
#ifndef CZ_TXN_TEST_H
#define CZ_TXN_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cz_test.h"
#include "txn/txn.h"

#define TT_OK(call)                                                 \
  do {                                                              \
    err_t e_;                                                       \
    err_clear(&e_);                                                 \
    int rc_ = (call);                                               \
    if (rc_ != CZ_OK)                                               \
      fail_msg("%s -> %d: %s %s", #call, rc_, e_.er_sqlstate, e_.er_msg); \
  } while (0)

typedef struct tt_db_s {
  char *t_db_path;
  char *t_wal_path;
  db_config_t t_cfg;
} tt_db_t;

/* Fresh files named after the test; no background threads. */
static inline void tt_init(tt_db_t *t, const char *name)
{
  char buf[256];
  memset(t, 0, sizeof *t);
  snprintf(buf, sizeof buf, "%s.db", name);
  t->t_db_path = cz_test_path(buf);
  snprintf(buf, sizeof buf, "%s.trx", name);
  t->t_wal_path = cz_test_path(buf);
  unlink(t->t_db_path);
  unlink(t->t_wal_path);
  t->t_cfg.dc_storage.sc_path = t->t_db_path;
  t->t_cfg.dc_storage.sc_create = true;
  t->t_cfg.dc_storage.sc_sync = false;
  bp_config_default(&t->t_cfg.dc_pool);
  t->t_cfg.dc_pool.bc_n_buffers = 256;
  t->t_cfg.dc_pool.bc_max_dirty = 200;
  t->t_cfg.dc_pool.bc_bg_writer = false;
  t->t_cfg.dc_pool.bc_read_ahead = false;
  t->t_cfg.dc_wal_path = t->t_wal_path;
  t->t_cfg.dc_checkpoint_interval_s = 0;
  t->t_cfg.dc_sync = false;
}

static inline void tt_fini(tt_db_t *t)
{
  unlink(t->t_db_path);
  unlink(t->t_wal_path);
  free(t->t_db_path);
  free(t->t_wal_path);
}

static inline db_t *tt_open(tt_db_t *t)
{
  db_t *db = NULL;
  TT_OK(db_open(&t->t_cfg, &db, &e_));
  return db;
}

static inline void tt_close(db_t *db)
{
  TT_OK(db_close(db, true, &e_));
}

/* Runs fn(db, arg) in a child over an opened database; the child then dies
 * without closing anything. fn returns 0 when all went as it expected. */
typedef int (*tt_crash_fn_t)(db_t *db, void *arg);

static inline void tt_run_and_crash(tt_db_t *t, tt_crash_fn_t fn, void *arg)
{
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    db_t *db;
    err_t e;
    if (db_open(&t->t_cfg, &db, &e) != CZ_OK) {
      fprintf(stderr, "child: db_open: %s\n", e.er_msg);
      _exit(2);
    }
    _exit(fn(db, arg) == 0 ? 0 : 3);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

/* Keys "k<i>" zero-padded so that they sort by i; values depend on (i, v). */
static inline size_t tt_key(char *buf, int i)
{
  return (size_t)sprintf(buf, "k%08d", i);
}

static inline size_t tt_val(char *buf, int i, int v)
{
  return (size_t)sprintf(buf, "value-%d-%d-%.*s", i, v, (i * 7 + v) % 60, "............................................................");
}

static inline int tt_insert(txn_t *tx, bt_tree_t *t, int i, int v)
{
  char k[32], val[128];
  err_t e;
  size_t kl = tt_key(k, i), vl = tt_val(val, i, v);
  return txn_insert(tx, t, k, kl, val, vl, &e);
}

static inline int tt_update(txn_t *tx, bt_tree_t *t, int i, int v)
{
  char k[32], val[128];
  err_t e;
  size_t kl = tt_key(k, i), vl = tt_val(val, i, v);
  return txn_update(tx, t, k, kl, val, vl, &e);
}

static inline int tt_delete(txn_t *tx, bt_tree_t *t, int i)
{
  char k[32];
  err_t e;
  size_t kl = tt_key(k, i);
  return txn_delete(tx, t, k, kl, NULL, 0, &e);
}

/* The version of row i (-1 when absent); fails the test on a value that
 * is not tt_val(i, v) for some v. */
static inline int tt_version(bt_tree_t *t, int i)
{
  char k[32], val[256], want[128];
  size_t vl = 0;
  err_t e;
  size_t kl = tt_key(k, i);
  int rc = bt_lookup(t, k, kl, val, sizeof val, &vl, &e);
  if (rc == BT_NOT_FOUND)
    return -1;
  if (rc != CZ_OK)
    fail_msg("bt_lookup: %s", e.er_msg);
  int v = -2;
  if (sscanf(val, "value-%*d-%d", &v) != 1 || tt_val(want, i, v) != vl || memcmp(want, val, vl) != 0)
    fail_msg("row %d holds a value that no version wrote: %.*s", i, (int)vl, val);
  return v;
}

/* Reading through read committed: what tx (NULL = nobody) sees of row i,
 * the check made under the leaf latch (inside the lookup callback). */
typedef struct tt_vis_s {
  const txn_t *tv_tx;
  db_tree_t *tv_dt;
  const char *tv_key;
  size_t tv_kl;
  arena_t *tv_a;
  bool tv_found;
  char tv_val[256];
  size_t tv_vl;
} tt_vis_t;

static inline void tt_vis_cb(void *ctx, int i, bool found, const void *val, size_t len)
{
  (void)i;
  tt_vis_t *v = ctx;
  v->tv_found = false;
  if (!found)
    return;
  const void *pv = val;
  size_t pl = len;
  txn_vis_t r = txn_read_version(v->tv_tx, v->tv_dt, v->tv_key, v->tv_kl, v->tv_a, &pv, &pl);
  if (r == TXN_VIS_ABSENT)
    return;
  v->tv_found = true;
  v->tv_vl = CZ_MIN(pl, sizeof v->tv_val - 1);
  memcpy(v->tv_val, pv, v->tv_vl);
  v->tv_val[v->tv_vl] = 0;
}

static inline int tt_version_as(db_t *db, const txn_t *tx, bt_tree_t *t, int i)
{
  char k[32], want[128];
  size_t kl = tt_key(k, i);
  tt_vis_t v = { .tv_tx = tx, .tv_dt = db_tree_of(db, t), .tv_key = k, .tv_kl = kl,
                 .tv_a = arena_create(NULL, "tt_vis") };
  bt_key_t key = { k, (uint32_t)kl };
  err_t e;
  if (bt_lookup_batch(t, &key, 1, tt_vis_cb, &v, &e) != CZ_OK)
    fail_msg("bt_lookup_batch: %s", e.er_msg);
  arena_destroy(v.tv_a);
  if (!v.tv_found)
    return -1;
  int ver = -2;
  if (sscanf(v.tv_val, "value-%*d-%d", &ver) != 1 || tt_val(want, i, ver) != v.tv_vl ||
      memcmp(want, v.tv_val, v.tv_vl) != 0)
    fail_msg("row %d holds a value that no version wrote: %s", i, v.tv_val);
  return ver;
}

static inline uint64_t tt_count(bt_tree_t *t)
{
  bt_check_t c;
  TT_OK(bt_check(t, &c, &e_));
  return c.bc_entries;
}

static inline bt_tree_t *tt_tree(db_t *db, const char *name)
{
  bt_tree_t *t = NULL;
  err_t e;
  int rc = db_open_tree(db, name, &t, &e);
  if (rc != CZ_OK)
    fail_msg("db_open_tree %s -> %d", name, rc);
  return t;
}

/* A committed tree of that name, created in its own transaction. */
static inline bt_tree_t *tt_create(db_t *db, const char *name, uint32_t flags)
{
  bt_tree_t *t = NULL;
  txn_t *tx = txn_begin(db, 0, NULL);
  assert_non_null(tx);
  TT_OK(db_create_tree(tx, name, flags, &t, &e_));
  TT_OK(txn_commit(tx, &e_));
  return t;
}

#endif /* CZ_TXN_TEST_H */
