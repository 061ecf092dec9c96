/* crash_driver — the worker and the verifier of the crash test
 * (test_crash.c runs it, kills it, and runs it again with --verify).
 *
 *   crash_driver DIR K [N]               open DIR/crash.db (recovering), run K
 *                                        threads, print "ack t i" after each
 *                                        commit returns; N transactions per
 *                                        thread, 0 or absent = until killed
 *   crash_driver --verify DIR K a0 .. aK-1
 *                                        open (recovering), check the state
 *                                        is exactly transactions 0..p(t) of
 *                                        each thread t, p(t) >= a(t) (the last
 *                                        acknowledged i, -1 for none), and
 *                                        bt_check every tree; exit 0 or 1
 *
 * Design notes: transaction i of thread t is a pure function of (t, i), so
 * the state after transactions 0..p of every thread is known exactly
 * (expect_* below) and a verifier can tell "all of 0..p and nothing else"
 * from a scan. Each transaction sets the thread's progress row P(t) = i:
 * that names p. Thread t's keys all start with its number, so threads
 * touch disjoint keys as txn/ requires. Transaction i:
 *   - P(t) = i (insert at 0, update after);
 *   - inserts D(t,i,0..2); updates D(t,i-1,0) to a value of another size;
 *   - deletes D(t,i-W,0..2) unless (i-W) % 4 == 0 (those stay, so the data
 *     grows slowly and the small pool has to write pages between
 *     checkpoints);
 *   - non-unique tree: inserts (N(t,i%13), i), deletes (N(t,(i-26)%13),
 *     i-26) unless (i-26) % 3 == 0;
 *   - i % 50 == 10 creates tree x_t_i with 5 rows; i % 50 == 30 drops
 *     x_t_(i-20).
 * Before transaction i with i % 7 == 3, a transaction makes similar changes
 * (and with i % 14 == 3 creates a tree) and rolls back. After some commits
 * the thread checkpoints. The log streams redo past 256 bytes, so most
 * transactions write a continuation record before their commit record.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thread/thread.h"
#include "txn/txn.h"

#define W 60          /* a data row lives W transactions unless kept */
#define NU_MOD 13
#define NU_LIFE 26
#define MAX_THREADS 16

static db_t *g_db;
static bt_tree_t *g_data, *g_nu;
static long g_limit;  /* transactions per thread, 0 = no limit */

static void die(const char *what, const err_t *e)
{
  fprintf(stderr, "crash_driver: %s: %s %s\n", what, e ? e->er_sqlstate : "", e ? e->er_msg : "");
  fflush(stderr);
  exit(1);
}

/* ---- the deterministic content ---------------------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static size_t key_progress(uint8_t *k, int t)
{
  k[0] = 'P';
  put32(k + 1, (uint32_t)t);
  return 5;
}

static size_t key_data(uint8_t *k, int t, long i, int j)
{
  k[0] = 'D';
  put32(k + 1, (uint32_t)t);
  put32(k + 5, (uint32_t)i);
  k[9] = (uint8_t)j;
  return 10;
}

static size_t key_nu(uint8_t *k, int t, long i)
{
  k[0] = 'N';
  put32(k + 1, (uint32_t)t);
  put32(k + 5, (uint32_t)(i % NU_MOD));
  return 9;
}

/* Value of D(t,i,j) as inserted (upd = 0) or as updated by i+1 (upd = 1). */
static size_t val_data(uint8_t *v, int t, long i, int j, int upd)
{
  uint64_t h = hash64_int(((uint64_t)t << 48) ^ ((uint64_t)i << 8) ^ ((uint64_t)j << 2) ^ (uint64_t)upd);
  size_t n = upd ? 8 + h % 400 : 16 + h % 200;
  for (size_t x = 0; x < n; x++)
    v[x] = (uint8_t)(hash64_int(h + x) & 0xff);
  return n;
}

static bool data_kept(long k, long p)
{
  return k + W > p || k % 4 == 0;
}

static bool nu_kept(long k, long p)
{
  return k + NU_LIFE > p || k % 3 == 0;
}

static void tree_name(char *buf, int t, long i)
{
  sprintf(buf, "x_%d_%ld", t, i);
}

/* ---- the worker -------------------------------------------------------- */

static void check(int rc, const char *what, const err_t *e)
{
  if (rc != CZ_OK)
    die(what, e);
}

static void txn_changes(txn_t *tx, int t, long i, bool scratch)
{
  uint8_t k[16], v[512], pv[4];
  err_t e;
  put32(pv, scratch ? 0xdeadbeefu : (uint32_t)i);
  size_t kl = key_progress(k, t);
  check(i == 0 ? txn_insert(tx, g_data, k, kl, pv, 4, &e) : txn_update(tx, g_data, k, kl, pv, 4, &e),
        "progress row", &e);
  for (int j = 0; j < 3; j++) {
    kl = key_data(k, t, i, scratch ? j + 5 : j);
    check(txn_insert(tx, g_data, k, kl, v, val_data(v, t, i, j, 0), &e), "insert data", &e);
  }
  if (i >= 1) {
    kl = key_data(k, t, i - 1, 0);
    size_t vl = val_data(v, t, i - 1, 0, 1);
    if (scratch)
      v[0] ^= 0xff;
    check(txn_update(tx, g_data, k, kl, v, vl, &e), "update data", &e);
  }
  long old = i - W;
  if (old >= 0 && old % 4 != 0)
    for (int j = 0; j < 3; j++) {
      kl = key_data(k, t, old, j);
      check(txn_delete(tx, g_data, k, kl, NULL, 0, &e), "delete data", &e);
    }
  put32(pv, (uint32_t)i);
  kl = key_nu(k, t, i);
  check(txn_insert(tx, g_nu, k, kl, pv, 4, &e), "insert nu", &e);
  old = i - NU_LIFE;
  if (old >= 0 && old % 3 != 0) {
    put32(pv, (uint32_t)old);
    kl = key_nu(k, t, old);
    check(txn_delete(tx, g_nu, k, kl, pv, 4, &e), "delete nu", &e);
  }
}

static void txn_trees(txn_t *tx, int t, long i, bool scratch)
{
  char name[64];
  err_t e;
  if (scratch) {
    bt_tree_t *r;
    sprintf(name, "r_%d_%ld", t, i);
    check(db_create_tree(tx, name, BT_UNIQUE, &r, &e), "create scratch tree", &e);
    return;
  }
  if (i % 50 == 10) {
    bt_tree_t *x;
    tree_name(name, t, i);
    check(db_create_tree(tx, name, BT_UNIQUE, &x, &e), "create tree", &e);
    for (int r = 0; r < 5; r++) {
      uint8_t k[4], v[512];
      put32(k, (uint32_t)r);
      check(txn_insert(tx, x, k, 4, v, val_data(v, t, i, r, 0), &e), "insert into tree", &e);
    }
  } else if (i % 50 == 30) {
    tree_name(name, t, i - 20);
    check(db_drop_tree(tx, name, &e), "drop tree", &e);
  }
}

static long progress_of(int t)
{
  uint8_t k[8], v[16];
  size_t vl;
  err_t e;
  int rc = bt_lookup(g_data, k, key_progress(k, t), v, sizeof v, &vl, &e);
  if (rc == BT_NOT_FOUND)
    return -1;
  if (rc != CZ_OK || vl != 4)
    die("read progress row", &e);
  return (long)get32(v);
}

/* "pool W": the pages the pool wrote so far in this run (checkpoints,
 * background writer, evictions), for test_crash's summary. */
static void print_pool_stats(void)
{
  bp_stats_t bs;
  bp_get_stats(db_pool(g_db), &bs);
  printf("pool %" PRIu64 "\n", bs.bs_pages_written);
}

static void *worker_main(void *arg)
{
  int t = (int)(intptr_t)arg;
  err_t e;
  long start = progress_of(t) + 1;
  for (long i = start; g_limit == 0 || i < start + g_limit; i++) {
    if (i % 7 == 3) {
      txn_t *tx = txn_begin(g_db, 0, &e);
      if (!tx)
        die("begin", &e);
      txn_changes(tx, t, i, true);
      if (i % 14 == 3)
        txn_trees(tx, t, i, true);
      check(txn_rollback(tx, &e), "rollback", &e);
    }
    txn_t *tx = txn_begin(g_db, 0, &e);
    if (!tx)
      die("begin", &e);
    txn_changes(tx, t, i, false);
    txn_trees(tx, t, i, false);
    check(txn_commit(tx, &e), "commit", &e);
    flockfile(stdout);
    printf("ack %d %ld\n", t, i);
    if (t == 0 && i % 256 == 0)
      print_pool_stats();
    fflush(stdout);
    funlockfile(stdout);
    if (hash64_int(((uint64_t)t << 32) + (uint64_t)i) % 80 == 0)
      check(db_checkpoint(g_db, &e), "checkpoint", &e);
  }
  return NULL;
}

static void open_db(const char *dir)
{
  static char db_path[4096], wal_path[4096];
  snprintf(db_path, sizeof db_path, "%s/crash.db", dir);
  snprintf(wal_path, sizeof wal_path, "%s/crash.trx", dir);
  db_config_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dc_storage.sc_path = db_path;
  cfg.dc_storage.sc_create = true;
  cfg.dc_storage.sc_sync = true;
  bp_config_default(&cfg.dc_pool);
  cfg.dc_pool.bc_n_buffers = 200; /* small: dirty pages get written between checkpoints */
  cfg.dc_pool.bc_max_dirty = 100;
  cfg.dc_wal_path = wal_path;
  cfg.dc_sync = true;
  /* About half of a transaction's redo: most stream a continuation record
   * before their commit record (txn_stream.c), the rolled-back ones too,
   * and the small ones commit with one plain record. */
  cfg.dc_log_stream_bytes = 256;
  err_t e;
  check(db_open(&cfg, &g_db, &e), "open", &e);
}

/* The two shared trees, created by the first run; false when they are
 * absent and create is false. */
static bool open_trees(bool create)
{
  err_t e;
  if (db_open_tree(g_db, "data", &g_data, &e) == CZ_OK && db_open_tree(g_db, "nu", &g_nu, &e) == CZ_OK)
    return true;
  if (!create)
    return false;
  txn_t *tx = txn_begin(g_db, 0, &e);
  check(db_create_tree(tx, "data", BT_UNIQUE, &g_data, &e), "create data", &e);
  check(db_create_tree(tx, "nu", 0, &g_nu, &e), "create nu", &e);
  check(txn_commit(tx, &e), "commit trees", &e);
  return true;
}

static int run(const char *dir, int k)
{
  open_db(dir);
  open_trees(true);
  cz_thread_t th[MAX_THREADS];
  err_t e;
  for (int t = 0; t < k; t++)
    check(thread_start(&th[t], worker_main, (void *)(intptr_t)t, &e), "start thread", &e);
  for (int t = 0; t < k; t++)
    thread_join(&th[t]);
  check(db_close(g_db, true, &e), "close", &e);
  return 0;
}

/* ---- the verifier ------------------------------------------------------ */

static int g_failures;

static void fail(const char *fmt, ...) CZ_PRINTF(1, 2);
static void fail(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stdout, "verify: FAIL: ");
  vfprintf(stdout, fmt, ap);
  fprintf(stdout, "\n");
  va_end(ap);
  g_failures++;
}

/* Calls fn for every entry whose key starts with prefix. */
typedef void (*entry_fn_t)(int t, long p, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, long *n);

static void scan_prefix(bt_tree_t *tree, const uint8_t *prefix, size_t plen, int t, long p, entry_fn_t fn, long *n)
{
  bt_cursor_t *c;
  err_t e;
  check(bt_cursor_open(tree, &c, &e), "cursor", &e);
  check(bt_seek(c, prefix, plen, BT_FORWARD, &e), "seek", &e);
  const void *k, *v;
  size_t kl, vl;
  int rc;
  while ((rc = bt_next(c, &k, &kl, &v, &vl, &e)) == CZ_OK) {
    if (kl < plen || memcmp(k, prefix, plen) != 0)
      break;
    fn(t, p, k, kl, v, vl, n);
  }
  if (rc != CZ_OK && rc != BT_END)
    die("scan", &e);
  bt_cursor_close(c);
}

static void data_entry(int t, long p, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, long *n)
{
  long i = (long)get32(k + 5);
  int j = k[9];
  uint8_t want[512];
  if (kl != 10 || j > 2 || i > p || !data_kept(i, p)) {
    fail("thread %d at %ld: row D(%ld,%d) should not exist", t, p, i, j);
    return;
  }
  size_t wl = val_data(want, t, i, j, j == 0 && i + 1 <= p);
  if (vl != wl || memcmp(v, want, wl) != 0)
    fail("thread %d at %ld: row D(%ld,%d) has a wrong value (%zu bytes)", t, p, i, j, vl);
  (*n)++;
}

static void nu_entry(int t, long p, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, long *n)
{
  long i = vl == 4 ? (long)get32(v) : -1;
  if (kl != 9 || i < 0 || i > p || !nu_kept(i, p) || get32(k + 5) != (uint32_t)(i % NU_MOD)) {
    fail("thread %d at %ld: non-unique entry for %ld should not exist", t, p, i);
    return;
  }
  (*n)++;
}

static void tree_check(bt_tree_t *tree, const char *name)
{
  bt_check_t c;
  err_t e;
  if (bt_check(tree, &c, &e) != CZ_OK)
    fail("bt_check %s: %s", name, e.er_msg);
}

static void verify_trees(int t, long p)
{
  char name[64];
  err_t e;
  for (long i = 10; i <= p + 1; i += 50) {
    bt_tree_t *x;
    tree_name(name, t, i);
    bool want = i <= p && i + 20 > p;
    int rc = db_open_tree(g_db, name, &x, &e);
    if ((rc == CZ_OK) != want) {
      fail("thread %d at %ld: tree %s %s", t, p, name, want ? "missing" : "should not exist");
      continue;
    }
    if (rc != CZ_OK)
      continue;
    tree_check(x, name);
    for (int r = 0; r < 5; r++) {
      uint8_t k[4], v[512], want_v[512];
      size_t vl, wl = val_data(want_v, t, i, r, 0);
      put32(k, (uint32_t)r);
      if (bt_lookup(x, k, 4, v, sizeof v, &vl, &e) != CZ_OK || vl != wl || memcmp(v, want_v, wl) != 0)
        fail("thread %d: tree %s row %d wrong", t, name, r);
    }
  }
  for (long i = 3; i <= p + 1; i += 14) {
    bt_tree_t *x;
    sprintf(name, "r_%d_%ld", t, i);
    if (db_open_tree(g_db, name, &x, &e) == CZ_OK)
      fail("thread %d: tree %s of a rolled-back transaction exists", t, name);
  }
}

static void verify_thread(int t, long acked)
{
  long p = progress_of(t);
  if (p < acked)
    fail("thread %d: transaction %ld was acknowledged, the database has only up to %ld", t, acked, p);
  uint8_t prefix[8];
  long n = 0, want = 0;
  prefix[0] = 'D';
  put32(prefix + 1, (uint32_t)t);
  scan_prefix(g_data, prefix, 5, t, p, data_entry, &n);
  for (long i = 0; i <= p; i++)
    want += data_kept(i, p) ? 3 : 0;
  if (n != want)
    fail("thread %d at %ld: %ld data rows, expected %ld", t, p, n, want);
  n = want = 0;
  prefix[0] = 'N';
  scan_prefix(g_nu, prefix, 5, t, p, nu_entry, &n);
  for (long i = 0; i <= p; i++)
    want += nu_kept(i, p) ? 1 : 0;
  if (n != want)
    fail("thread %d at %ld: %ld non-unique entries, expected %ld", t, p, n, want);
  verify_trees(t, p);
  printf("verify: thread %d at %ld (acked %ld)\n", t, p, acked);
}

static int verify(const char *dir, int k, char **acked)
{
  open_db(dir);
  db_stats_t s;
  db_get_stats(g_db, &s);
  bp_stats_t bs;
  bp_get_stats(db_pool(g_db), &bs);
  /* Pages written during replay show the small pool at work. */
  printf("verify: %" PRIu64 " transactions replayed, %" PRIu64 " pages written (%" PRIu64 " dirty evictions)\n",
         s.ds_replayed, bs.bs_pages_written, bs.bs_dirty_evictions);
  if (open_trees(false)) {
    for (int t = 0; t < k; t++)
      verify_thread(t, strtol(acked[t], NULL, 10));
    tree_check(g_data, "data");
    tree_check(g_nu, "nu");
  } else {
    /* Killed before the first run created its trees: fine if nothing was
     * acknowledged yet. */
    for (int t = 0; t < k; t++)
      if (strtol(acked[t], NULL, 10) >= 0)
        fail("thread %d had acknowledged commits, but the trees are missing", t);
    printf("verify: no trees yet\n");
  }
  err_t e;
  check(db_close(g_db, true, &e), "close", &e);
  printf("verify: %s\n", g_failures ? "FAILED" : "ok");
  fflush(stdout);
  return g_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
  setvbuf(stdout, NULL, _IOFBF, 1 << 16);
  if (argc >= 4 && strcmp(argv[1], "--verify") == 0) {
    int k = atoi(argv[3]);
    if (k < 1 || k > MAX_THREADS || argc != 4 + k)
      die("usage: crash_driver --verify DIR K a0 .. aK-1", NULL);
    return verify(argv[2], k, argv + 4);
  }
  if (argc < 3)
    die("usage: crash_driver DIR K [N] | --verify DIR K a0 .. aK-1", NULL);
  int k = atoi(argv[2]);
  if (k < 1 || k > MAX_THREADS)
    die("K must be 1 to 16", NULL);
  g_limit = argc > 3 ? atol(argv[3]) : 0;
  return run(argv[1], k);
}
