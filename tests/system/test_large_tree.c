/* test_large_tree — a B-tree of more than 100 MB over a pool of 1,000
 * buffers (8 MB): built mostly by bt_insert_batch (appends), with a share
 * of random inserts, updates and deletes and a sorted batch inserted
 * inside the tree, then verified entry by entry by a full scan, by random
 * bt_lookup and by bt_lookup_batch, and by bt_check. Values are computed
 * from (key, version), so the model is one byte per key. Exit 0 on
 * success; prints what it verified.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btree/btree.h"
#include "cz_test.h"

#define N_BASE 900000u        /* even ids 0, 2, ..., appended in batches */
#define N_IDS (2 * N_BASE)    /* odd ids are inserted at random places */
#define BATCH 10000
#define KEY_LEN 16
#define MIN_TREE_BYTES (100ull << 20)

static uint8_t state[N_IDS]; /* 0 absent, else 1 + value version */
static uint64_t n_present;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "test_large_tree: FAILED %s: ", #cond); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      exit(1);                                             \
    }                                                      \
  } while (0)

static void make_key(uint32_t id, uint8_t *k)
{
  uint64_t h = hash64_int(id);
  for (int b = 0; b < 8; b++) {
    k[b] = (uint8_t)((uint64_t)id >> (56 - 8 * b));
    k[8 + b] = (uint8_t)(h >> (56 - 8 * b));
  }
}

/* 80..127 bytes from (id, version). */
static int make_val(uint32_t id, int version, uint8_t *v)
{
  uint64_t h = hash64_int(((uint64_t)id << 8) | (uint64_t)version);
  int n = 80 + (int)(h % 48);
  for (int i = 0; i < n; i++)
    v[i] = (uint8_t)(h >> (8 * (i & 7))) + (uint8_t)i;
  return n;
}

static uint64_t rng = 0x1234567;
static uint32_t rnd(uint32_t n)
{
  rng = hash64_int(rng + 0x9e3779b97f4a7c15ull);
  return (uint32_t)(rng % n);
}

static void random_ops(bt_tree_t *t, uint32_t id_limit, int count, uint64_t *ops)
{
  err_t e;
  uint8_t k[KEY_LEN], v[128], old[128];
  size_t ol;
  err_clear(&e);
  for (int i = 0; i < count; i++) {
    uint32_t id = rnd(id_limit);
    make_key(id, k);
    int what = (int)(rng >> 40) % 3, rc;
    if (what == 0) {
      int vl = make_val(id, 0, v);
      rc = bt_insert(t, k, KEY_LEN, v, (size_t)vl, &e);
      CHECK(state[id] ? rc == CZ_ERR && err_is(&e, SQLSTATE_UNIQUE_VIOLATION) : rc == CZ_OK,
            "insert %u rc %d %s", id, rc, e.er_msg);
      if (!state[id]) {
        state[id] = 1;
        n_present++;
      }
    } else if (what == 1) {
      int nv = state[id] == 1 ? 1 : 0;
      int vl = make_val(id, nv, v);
      rc = bt_update(t, k, KEY_LEN, v, (size_t)vl, old, sizeof old, &ol, &e);
      CHECK(state[id] ? rc == CZ_OK : rc == BT_NOT_FOUND, "update %u rc %d %s", id, rc, e.er_msg);
      if (state[id]) {
        int evl = make_val(id, state[id] - 1, v);
        CHECK(ol == (size_t)evl && memcmp(old, v, ol) == 0, "update %u: old value", id);
        state[id] = (uint8_t)(nv + 1);
      }
    } else {
      rc = bt_delete(t, k, KEY_LEN, NULL, 0, NULL, 0, NULL, &e);
      CHECK(state[id] ? rc == CZ_OK : rc == BT_NOT_FOUND, "delete %u rc %d %s", id, rc, e.er_msg);
      if (state[id]) {
        state[id] = 0;
        n_present--;
      }
    }
    (*ops)++;
  }
}

static bt_row_t rows[BATCH];
static uint8_t rkeys[BATCH][KEY_LEN], rvals[BATCH][128];

static void insert_batch(bt_tree_t *t, const uint32_t *ids, int n)
{
  err_t e;
  int done;
  err_clear(&e);
  for (int i = 0; i < n; i++) {
    make_key(ids[i], rkeys[i]);
    int vl = make_val(ids[i], 0, rvals[i]);
    rows[i] = (bt_row_t){ rkeys[i], KEY_LEN, rvals[i], (uint32_t)vl };
  }
  CHECK(bt_insert_batch(t, rows, n, &done, &e) == CZ_OK, "bt_insert_batch: %s %s", e.er_sqlstate, e.er_msg);
  CHECK(done == n, "batch done %d of %d", done, n);
  for (int i = 0; i < n; i++) {
    state[ids[i]] = 1;
    n_present++;
  }
}

static uint64_t verify_scan(bt_tree_t *t)
{
  err_t e;
  bt_cursor_t *c;
  const void *k, *v;
  size_t kl, vl;
  uint8_t ek[KEY_LEN], ev[128];
  uint64_t seen = 0;
  uint32_t id = 0;
  err_clear(&e);
  CHECK(bt_cursor_open(t, &c, &e) == CZ_OK && bt_seek(c, NULL, 0, BT_FORWARD, &e) == CZ_OK, "seek: %s", e.er_msg);
  int rc;
  while ((rc = bt_next(c, &k, &kl, &v, &vl, &e)) == CZ_OK) {
    while (id < N_IDS && !state[id])
      id++;
    CHECK(id < N_IDS, "scan returned more entries than the model (%" PRIu64 ")", seen);
    make_key(id, ek);
    CHECK(kl == KEY_LEN && memcmp(k, ek, KEY_LEN) == 0, "scan: key of id %u expected", id);
    int evl = make_val(id, state[id] - 1, ev);
    CHECK(vl == (size_t)evl && memcmp(v, ev, vl) == 0, "scan: value of id %u", id);
    seen++;
    id++;
  }
  CHECK(rc == BT_END, "bt_next: %s %s", e.er_sqlstate, e.er_msg);
  CHECK(seen == n_present, "scan saw %" PRIu64 " of %" PRIu64, seen, n_present);
  bt_cursor_close(c);
  return seen;
}

static void verify_lookups(bt_tree_t *t, int n)
{
  err_t e;
  uint8_t k[KEY_LEN], v[128], ev[128];
  size_t vl;
  err_clear(&e);
  for (int i = 0; i < n; i++) {
    uint32_t id = rnd(N_IDS);
    make_key(id, k);
    int rc = bt_lookup(t, k, KEY_LEN, v, sizeof v, &vl, &e);
    CHECK(rc == (state[id] ? CZ_OK : BT_NOT_FOUND), "lookup %u rc %d %s", id, rc, e.er_msg);
    if (rc == CZ_OK) {
      int evl = make_val(id, state[id] - 1, ev);
      CHECK(vl == (size_t)evl && memcmp(v, ev, vl) == 0, "lookup %u: value", id);
    }
  }
}

typedef struct bres_s {
  const uint32_t *br_ids;
  uint64_t br_found;
} bres_t;

static void batch_cb(void *ctx, int i, bool found, const void *val, size_t val_len)
{
  bres_t *r = ctx;
  uint32_t id = r->br_ids[i];
  uint8_t ev[128];
  CHECK(found == (state[id] != 0), "batch lookup %u: found %d", id, found);
  if (found) {
    int evl = make_val(id, state[id] - 1, ev);
    CHECK(val_len == (size_t)evl && memcmp(val, ev, val_len) == 0, "batch lookup %u: value", id);
    r->br_found++;
  }
}

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t verify_batches(bt_tree_t *t, int n_batches)
{
  static uint32_t ids[BATCH];
  static uint8_t keys[BATCH][KEY_LEN];
  static bt_key_t kv[BATCH];
  err_t e;
  bres_t r = { ids, 0 };
  err_clear(&e);
  for (int b = 0; b < n_batches; b++) {
    for (int i = 0; i < BATCH; i++)
      ids[i] = rnd(N_IDS);
    qsort(ids, BATCH, sizeof ids[0], cmp_u32);
    for (int i = 0; i < BATCH; i++) {
      make_key(ids[i], keys[i]);
      kv[i] = (bt_key_t){ keys[i], KEY_LEN };
    }
    CHECK(bt_lookup_batch(t, kv, BATCH, batch_cb, &r, &e) == CZ_OK, "bt_lookup_batch: %s", e.er_msg);
  }
  return r.br_found;
}

int main(void)
{
  err_t e;
  err_clear(&e);
  uint64_t t0 = time_now_ns();
  char *path = cz_test_path("large.db");
  st_config_t sc;
  memset(&sc, 0, sizeof sc);
  sc.sc_path = path;
  sc.sc_create = true;
  sc.sc_sync = false;
  storage_t *st;
  CHECK(st_open(&sc, &st, &e) == CZ_OK, "st_open: %s", e.er_msg);
  bp_config_t bc;
  bp_config_default(&bc);
  bc.bc_n_buffers = 1000;
  bc.bc_max_dirty = 750;
  bpool_t *bp;
  CHECK(bp_create(st, &bc, &bp, &e) == CZ_OK, "bp_create: %s", e.er_msg);
  pg_no_t root;
  bt_tree_t *t;
  CHECK(bt_create(bp, BT_UNIQUE, &root, &e) == CZ_OK && bt_open(bp, root, &t, &e) == CZ_OK, "create: %s", e.er_msg);

  /* Build: appended batches, each tenth followed by random operations on
   * the part built so far. */
  static uint32_t ids[BATCH];
  uint64_t ops = 0;
  int nb = 0;
  for (uint32_t base = 0; base < N_BASE; base += BATCH, nb++) {
    for (int i = 0; i < BATCH; i++)
      ids[i] = 2 * (base + (uint32_t)i);
    insert_batch(t, ids, BATCH);
    if (nb % 10 == 9)
      random_ops(t, 2 * (base + BATCH), 3000, &ops);
  }
  /* A sorted batch of odd ids inside the tree (not an append). */
  int k = 0;
  for (uint32_t id = 1; id < N_IDS && k < BATCH; id += 2 * 89)
    if (!state[id])
      ids[k++] = id;
  insert_batch(t, ids, k);
  random_ops(t, N_IDS, 20000, &ops);
  double build_s = (double)(time_now_ns() - t0) / 1e9;

  bt_check_t chk;
  CHECK(bt_check(t, &chk, &e) == CZ_OK, "bt_check: %s", e.er_msg);
  uint64_t bytes = (chk.bc_leaves + chk.bc_inner) * (uint64_t)ST_PAGE_SIZE;
  CHECK(bytes >= MIN_TREE_BYTES, "tree of %" PRIu64 " bytes is under 100 MB", bytes);
  CHECK(chk.bc_entries == n_present, "bt_check counts %" PRIu64 " entries, model %" PRIu64, chk.bc_entries, n_present);
  uint64_t scanned = verify_scan(t);
  verify_lookups(t, 100000);
  uint64_t found = verify_batches(t, 20);
  bp_stats_t bs;
  bp_get_stats(bp, &bs);
  CHECK(bs.bs_evictions > 0, "no evictions");

  /* Everything survives a flush, a checkpoint and a fresh pool. */
  bt_close(t);
  CHECK(bp_flush_all(bp, &e) == CZ_OK && st_checkpoint(st, NULL, 0, &e) == CZ_OK, "checkpoint: %s", e.er_msg);
  bp_destroy(bp);
  CHECK(bp_create(st, &bc, &bp, &e) == CZ_OK && bt_open(bp, root, &t, &e) == CZ_OK, "reopen: %s", e.er_msg);
  verify_lookups(t, 20000);
  CHECK(bt_check(t, &chk, &e) == CZ_OK, "bt_check after reopen: %s", e.er_msg);
  bt_close(t);
  bp_destroy(bp);
  st_close(st);
  free(path);

  printf("test_large_tree: OK: tree of %.1f MB (%" PRIu64 " leaves, %" PRIu64 " inner, height %d) over a pool of "
         "1000 buffers (%" PRIu64 " evictions); %" PRIu64 " entries verified by full scan, 100000 random lookups, "
         "%d batch lookups (%" PRIu64 " found), bt_check; %" PRIu64 " random inserts/updates/deletes; "
         "build %.1f s, total %.1f s\n",
         (double)bytes / 1048576.0, chk.bc_leaves, chk.bc_inner, chk.bc_height, bs.bs_evictions, scanned,
         20 * BATCH, found, ops, build_s, (double)(time_now_ns() - t0) / 1e9);
  return 0;
}
