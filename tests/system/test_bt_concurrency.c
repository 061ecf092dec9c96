/* test_bt_concurrency — one B-tree, four writer threads and three readers
 * for about ten seconds over a pool smaller than the tree.
 *
 * Each writer owns the ids with id % 4 == its number (ids = 1 mod 16 are
 * never touched: they are the permanent set, inserted before the threads
 * start) and runs growing and shrinking phases (2.5 s each, so pages both
 * split and merge) of random inserts, updates, deletes and sorted batch
 * inserts on its own ids, checking its own keys with bt_lookup as it
 * goes (nobody else changes them, so the answer is exact). Readers scan
 * forward and backward (pausing with bt_cursor_release), and run sorted
 * bt_lookup_batch calls; they check that keys come in order and that every
 * permanent key is present with its value. At the end bt_check passes and
 * the tree equals the union of the writers' models and the permanent set.
 * Latch deadlocks show up as a hang (the runner's timeout); exit 0 on
 * success, printing what was verified.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btree/btree.h"
#include "cz_test.h"
#include "thread/thread.h"

#define N_IDS 240000u
#define N_WRITERS 4
#define N_READERS 3
#define RUN_SECONDS 10
#define KEY_LEN 12

#define CHECK(cond, ...)                                            \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "test_bt_concurrency: FAILED %s: ", #cond);   \
      fprintf(stderr, __VA_ARGS__);                                 \
      fprintf(stderr, "\n");                                        \
      exit(1);                                                      \
    }                                                               \
  } while (0)

static bt_tree_t *tree;
static _Atomic bool stop;
static uint8_t version[N_IDS]; /* 0 absent, else 1 + value version; id % 4 owned by one writer */
static _Atomic uint64_t n_writes, n_scanned, n_scans, n_batch_keys;
static uint64_t t_start;

#define PERM_STEP 16
static bool permanent(uint32_t id) { return id % PERM_STEP == 1; }

static void make_key(uint32_t id, uint8_t *k)
{
  k[0] = (uint8_t)(id >> 24);
  k[1] = (uint8_t)(id >> 16);
  k[2] = (uint8_t)(id >> 8);
  k[3] = (uint8_t)id;
  uint64_t h = hash64_int(id);
  memcpy(k + 4, &h, 8);
}

static uint32_t key_id(const uint8_t *k)
{
  return (uint32_t)k[0] << 24 | (uint32_t)k[1] << 16 | (uint32_t)k[2] << 8 | k[3];
}

static int make_val(uint32_t id, int ver, uint8_t *v)
{
  uint64_t h = hash64_int(((uint64_t)id << 8) | (uint64_t)ver);
  int n = 8 + (int)(h % 40);
  for (int i = 0; i < n; i++)
    v[i] = (uint8_t)(h >> (8 * (i & 7))) ^ (uint8_t)i;
  return n;
}

static bool val_ok(uint32_t id, int ver, const void *v, size_t vl)
{
  uint8_t ev[64];
  int n = make_val(id, ver, ev);
  return vl == (size_t)n && memcmp(v, ev, vl) == 0;
}

typedef struct wr_s {
  int w_no;
  uint64_t w_rng;
  cz_thread_t w_th;
} wr_t;

static uint32_t w_pick(wr_t *w)
{
  for (;;) {
    w->w_rng = hash64_int(w->w_rng + 0x9e3779b97f4a7c15ull);
    uint32_t id = (uint32_t)(w->w_rng % (N_IDS / 4)) * 4 + (uint32_t)w->w_no;
    if (!permanent(id))
      return id;
  }
}

static void w_single(wr_t *w)
{
  err_t e;
  uint8_t k[KEY_LEN], v[64], got[64];
  size_t gl;
  err_clear(&e);
  uint32_t id = w_pick(w);
  make_key(id, k);
  /* Growing and shrinking phases in turn, so splits and merges (and the
   * merges of inner pages) both happen under concurrency. */
  bool shrink = ((time_now_ns() - t_start) / 2500000000ull) % 2 == 1;
  int r = (int)((w->w_rng >> 40) % 100), rc;
  int op = r < (shrink ? 10 : 50) ? 0 : r < (shrink ? 20 : 65) ? 1 : r < 80 ? 2 : 3;
  if (op == 0) {
    int vl = make_val(id, 0, v);
    rc = bt_insert(tree, k, KEY_LEN, v, (size_t)vl, &e);
    CHECK(version[id] ? rc == CZ_ERR : rc == CZ_OK, "insert %u: rc %d %s", id, rc, e.er_msg);
    version[id] = version[id] ? version[id] : 1;
  } else if (op == 1) {
    int nv = version[id] == 1 ? 1 : 0;
    int vl = make_val(id, nv, v);
    rc = bt_update(tree, k, KEY_LEN, v, (size_t)vl, NULL, 0, NULL, &e);
    CHECK(version[id] ? rc == CZ_OK : rc == BT_NOT_FOUND, "update %u: rc %d %s", id, rc, e.er_msg);
    if (version[id])
      version[id] = (uint8_t)(nv + 1);
  } else if (op == 2) {
    rc = bt_delete(tree, k, KEY_LEN, NULL, 0, NULL, 0, NULL, &e);
    CHECK(version[id] ? rc == CZ_OK : rc == BT_NOT_FOUND, "delete %u: rc %d %s", id, rc, e.er_msg);
    version[id] = 0;
  } else {
    rc = bt_lookup(tree, k, KEY_LEN, got, sizeof got, &gl, &e);
    CHECK(rc == (version[id] ? CZ_OK : BT_NOT_FOUND), "lookup %u: rc %d %s", id, rc, e.er_msg);
    CHECK(rc != CZ_OK || val_ok(id, version[id] - 1, got, gl), "lookup %u: value", id);
  }
  atomic_fetch_add(&n_writes, 1);
}

/* A sorted batch of this writer's absent ids from a random start. */
static void w_batch(wr_t *w)
{
  static _Thread_local bt_row_t rows[200];
  static _Thread_local uint8_t keys[200][KEY_LEN], vals[200][64];
  uint32_t id = w_pick(w);
  int n = 0;
  for (; id < N_IDS && n < 200; id += 4) {
    if (permanent(id) || version[id])
      continue;
    make_key(id, keys[n]);
    int vl = make_val(id, 0, vals[n]);
    rows[n] = (bt_row_t){ keys[n], KEY_LEN, vals[n], (uint32_t)vl };
    n++;
    version[id] = 1;
  }
  err_t e;
  int done;
  err_clear(&e);
  CHECK(bt_insert_batch(tree, rows, n, &done, &e) == CZ_OK && done == n, "batch: %s", e.er_msg);
  atomic_fetch_add(&n_writes, (uint64_t)n);
}

static void *writer(void *arg)
{
  wr_t *w = arg;
  while (!atomic_load(&stop)) {
    for (int i = 0; i < 1000; i++)
      w_single(w);
    if (((time_now_ns() - t_start) / 2500000000ull) % 2 == 0)
      w_batch(w);
  }
  return NULL;
}

typedef struct rd_s {
  int r_no;
  cz_thread_t r_th;
} rd_t;

/* A full scan: order, and every permanent key with its value. */
static void r_scan(bt_dir_t dir, int pause_every)
{
  err_t e;
  bt_cursor_t *c;
  const void *k, *v;
  size_t kl, vl;
  err_clear(&e);
  CHECK(bt_cursor_open(tree, &c, &e) == CZ_OK && bt_seek(c, NULL, 0, dir, &e) == CZ_OK, "seek: %s", e.er_msg);
  int64_t prev = dir == BT_FORWARD ? -1 : (int64_t)N_IDS;
  int64_t next_perm = dir == BT_FORWARD ? 1 : (int64_t)(N_IDS - 2) / PERM_STEP * PERM_STEP + 1;
  uint64_t rows = 0;
  int rc;
  while ((rc = bt_next(c, &k, &kl, &v, &vl, &e)) == CZ_OK) {
    CHECK(kl == KEY_LEN, "scan: key length %zu", kl);
    int64_t id = key_id(k);
    CHECK(dir == BT_FORWARD ? id > prev : id < prev, "scan: %" PRId64 " after %" PRId64, id, prev);
    /* No permanent key may be skipped. */
    CHECK(dir == BT_FORWARD ? id <= next_perm : id >= next_perm, "scan %s: permanent id %" PRId64
          " missing (reached %" PRId64 ")", dir == BT_FORWARD ? "forward" : "backward", next_perm, id);
    if (id == next_perm) {
      CHECK(val_ok((uint32_t)id, 0, v, vl), "scan: value of permanent id %" PRId64, id);
      next_perm += dir == BT_FORWARD ? PERM_STEP : -PERM_STEP;
    }
    prev = id;
    if (pause_every && ++rows % (uint64_t)pause_every == 0)
      bt_cursor_release(c);
  }
  CHECK(rc == BT_END, "bt_next: %s", e.er_msg);
  CHECK(dir == BT_FORWARD ? next_perm >= (int64_t)N_IDS : next_perm < 0, "scan ended before permanent id %" PRId64,
        next_perm);
  bt_cursor_close(c);
  atomic_fetch_add(&n_scanned, rows);
  atomic_fetch_add(&n_scans, 1);
}

static void perm_cb(void *ctx, int i, bool found, const void *val, size_t val_len)
{
  const uint32_t *ids = ctx;
  if (permanent(ids[i]))
    CHECK(found && val_ok(ids[i], 0, val, val_len), "batch lookup: permanent id %u", ids[i]);
}

static void r_batch(uint64_t *rng)
{
  static _Thread_local uint32_t ids[2000];
  static _Thread_local uint8_t keys[2000][KEY_LEN];
  static _Thread_local bt_key_t kv[2000];
  uint32_t id = (uint32_t)(*rng % N_IDS);
  int n = 0;
  for (; n < 2000 && id < N_IDS; n++) {
    ids[n] = id;
    make_key(id, keys[n]);
    kv[n] = (bt_key_t){ keys[n], KEY_LEN };
    *rng = hash64_int(*rng);
    id += 1 + (uint32_t)(*rng % 50);
  }
  err_t e;
  err_clear(&e);
  CHECK(bt_lookup_batch(tree, kv, n, perm_cb, ids, &e) == CZ_OK, "bt_lookup_batch: %s", e.er_msg);
  atomic_fetch_add(&n_batch_keys, (uint64_t)n);
}

static void *reader(void *arg)
{
  rd_t *r = arg;
  uint64_t rng = (uint64_t)r->r_no * 7777 + 1;
  while (!atomic_load(&stop)) {
    if (r->r_no == 0)
      r_scan(BT_FORWARD, 500);
    else if (r->r_no == 1)
      r_scan(BT_BACKWARD, 700);
    else
      r_batch(&rng);
  }
  return NULL;
}

int main(void)
{
  err_t e;
  err_clear(&e);
  char *path = cz_test_path("conc.db");
  st_config_t sc;
  memset(&sc, 0, sizeof sc);
  sc.sc_path = path;
  sc.sc_create = true;
  sc.sc_sync = false;
  storage_t *st;
  CHECK(st_open(&sc, &st, &e) == CZ_OK, "st_open: %s", e.er_msg);
  bp_config_t bc;
  bp_config_default(&bc);
  bc.bc_n_buffers = 600; /* smaller than the tree: eviction under load */
  bc.bc_max_dirty = 450;
  bpool_t *bp;
  CHECK(bp_create(st, &bc, &bp, &e) == CZ_OK, "bp_create: %s", e.er_msg);
  pg_no_t root;
  CHECK(bt_create(bp, BT_UNIQUE, &root, &e) == CZ_OK && bt_open(bp, root, &tree, &e) == CZ_OK, "create: %s", e.er_msg);

  /* The permanent set, appended; and a third of the writers' ids. */
  uint64_t n_perm = 0;
  for (uint32_t id = 0; id < N_IDS; id++) {
    uint8_t k[KEY_LEN], v[64];
    if (!permanent(id) && hash64_int(id) % 3)
      continue;
    make_key(id, k);
    int vl = make_val(id, 0, v);
    CHECK(bt_insert(tree, k, KEY_LEN, v, (size_t)vl, &e) == CZ_OK, "preload %u: %s", id, e.er_msg);
    if (permanent(id))
      n_perm++;
    else
      version[id] = 1;
  }

  wr_t w[N_WRITERS];
  rd_t r[N_READERS];
  t_start = time_now_ns();
  for (int i = 0; i < N_WRITERS; i++) {
    w[i].w_no = i;
    w[i].w_rng = (uint64_t)i * 1000003 + 17;
    CHECK(thread_start(&w[i].w_th, writer, &w[i], &e) == CZ_OK, "thread_start: %s", e.er_msg);
  }
  for (int i = 0; i < N_READERS; i++) {
    r[i].r_no = i;
    CHECK(thread_start(&r[i].r_th, reader, &r[i], &e) == CZ_OK, "thread_start: %s", e.er_msg);
  }
  time_sleep_us(RUN_SECONDS * 1000000ull);
  atomic_store(&stop, true);
  for (int i = 0; i < N_WRITERS; i++)
    thread_join(&w[i].w_th);
  for (int i = 0; i < N_READERS; i++)
    thread_join(&r[i].r_th);

  /* Quiet now: the tree is exactly the model. */
  bt_check_t chk;
  CHECK(bt_check(tree, &chk, &e) == CZ_OK, "bt_check: %s", e.er_msg);
  uint64_t expect = n_perm;
  for (uint32_t id = 0; id < N_IDS; id++)
    expect += !permanent(id) && version[id];
  CHECK(chk.bc_entries == expect, "bt_check counts %" PRIu64 ", model %" PRIu64, chk.bc_entries, expect);
  bt_cursor_t *c;
  const void *k, *v;
  size_t kl, vl;
  CHECK(bt_cursor_open(tree, &c, &e) == CZ_OK && bt_seek(c, NULL, 0, BT_FORWARD, &e) == CZ_OK, "seek");
  uint32_t id = 0;
  uint64_t seen = 0;
  while (bt_next(c, &k, &kl, &v, &vl, &e) == CZ_OK) {
    while (id < N_IDS && !permanent(id) && !version[id])
      id++;
    CHECK(key_id(k) == id, "final scan: id %u expected, %u found", id, key_id(k));
    CHECK(val_ok(id, permanent(id) ? 0 : version[id] - 1, v, vl), "final scan: value of %u", id);
    seen++;
    id++;
  }
  CHECK(seen == expect, "final scan saw %" PRIu64 " of %" PRIu64, seen, expect);
  bt_cursor_close(c);
  bt_close(tree);
  bp_destroy(bp);
  st_close(st);
  free(path);
  printf("test_bt_concurrency: OK: %d writers, %d readers, %d s: %" PRIu64 " writes, %" PRIu64 " scans (%" PRIu64
         " rows, order and permanent keys checked), %" PRIu64 " batch-lookup keys; final tree of %" PRIu64
         " entries (%" PRIu64 " leaves, height %d) equals the model, bt_check passes\n",
         N_WRITERS, N_READERS, RUN_SECONDS, atomic_load(&n_writes), atomic_load(&n_scans), atomic_load(&n_scanned),
         atomic_load(&n_batch_keys), seen, chk.bc_leaves, chk.bc_height);
  return 0;
}
