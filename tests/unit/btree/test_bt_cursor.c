/* test_bt_cursor — range scans: forward and backward with bounds, empty
 * ranges, release and re-seek while the tree changes between calls, non-
 * unique duplicates across a release, leaf runs (bt_next_run) with partial
 * takes and releases, and the backward step that finds its
 * left sibling latched (BP_NOWAIT fails, the cursor re-finds its place).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bt_testlib.h"
#include "btree/btree_int.h"
#include "cz_test.h"
#include "thread/thread.h"

static bt_env_t env;
static bt_tree_t *tree;
static const uint32_t N = 20000;

/* Even ids 0, 2, ..., N - 2 are present. */
static int setup_even(void **state)
{
  (void)state;
  err_t e;
  pg_no_t root;
  err_clear(&e);
  bt_env_open(&env, "cursor.db", 1000, true);
  assert_int_equal(bt_create(env.be_bp, BT_UNIQUE, &root, &e), CZ_OK);
  assert_int_equal(bt_open(env.be_bp, root, &tree, &e), CZ_OK);
  for (uint32_t id = 0; id < N; id += 2) {
    uint8_t k[16], v[64];
    int kl = bt_tkey(id, k), vl = bt_tval(id, 0, v);
    assert_int_equal(bt_insert(tree, k, (size_t)kl, v, (size_t)vl, &e), CZ_OK);
  }
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  bt_close(tree);
  bt_env_close(&env);
  return 0;
}

static uint32_t key_id(const void *k)
{
  const uint8_t *b = k;
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Seeks at id (or NULL with id < 0) and returns the first id seen, -1 at
 * the end. */
static int64_t first_after_seek(bt_cursor_t *c, int64_t id, bt_dir_t dir)
{
  err_t e;
  uint8_t k[16];
  const void *rk, *rv;
  size_t rkl, rvl;
  err_clear(&e);
  int kl = id >= 0 ? bt_tkey((uint32_t)id, k) : 0;
  assert_int_equal(bt_seek(c, id >= 0 ? k : NULL, (size_t)kl, dir, &e), CZ_OK);
  int rc = bt_next(c, &rk, &rkl, &rv, &rvl, &e);
  if (rc == BT_END)
    return -1;
  assert_int_equal(rc, CZ_OK);
  return key_id(rk);
}

static void test_seek_bounds(void **state)
{
  (void)state;
  err_t e;
  bt_cursor_t *c;
  err_clear(&e);
  assert_int_equal(bt_cursor_open(tree, &c, &e), CZ_OK);
  assert_int_equal(first_after_seek(c, -1, BT_FORWARD), 0);
  assert_int_equal(first_after_seek(c, -1, BT_BACKWARD), N - 2);
  assert_int_equal(first_after_seek(c, 100, BT_FORWARD), 100);
  assert_int_equal(first_after_seek(c, 101, BT_FORWARD), 102);
  assert_int_equal(first_after_seek(c, 100, BT_BACKWARD), 100);
  assert_int_equal(first_after_seek(c, 101, BT_BACKWARD), 100);
  assert_int_equal(first_after_seek(c, N - 1, BT_FORWARD), -1);
  assert_int_equal(first_after_seek(c, N + 5, BT_BACKWARD), N - 2);
  /* A key sorting before every key: "" */
  const void *rk, *rv;
  size_t rkl, rvl;
  assert_int_equal(bt_seek(c, "", 0, BT_BACKWARD, &e), CZ_OK);
  assert_int_equal(bt_next(c, &rk, &rkl, &rv, &rvl, &e), BT_END);
  assert_int_equal(bt_next(c, &rk, &rkl, &rv, &rvl, &e), BT_END);
  /* A seek key longer than any key may be. */
  static uint8_t longk[BT_MAX_KEY + 50];
  memset(longk, 0, sizeof longk);
  bt_tkey(50, longk); /* id 50's key followed by zeros: sorts after it */
  assert_int_equal(bt_seek(c, longk, sizeof longk, BT_FORWARD, &e), CZ_OK);
  assert_int_equal(bt_next(c, &rk, &rkl, &rv, &rvl, &e), CZ_OK);
  assert_int_equal(key_id(rk), 52);
  /* Range scan [1000, 3000) forward and (3000, 1000] backward. */
  for (int dir = 0; dir < 2; dir++) {
    uint8_t k[16];
    int kl = bt_tkey(dir == BT_FORWARD ? 1000 : 2999, k);
    assert_int_equal(bt_seek(c, k, (size_t)kl, (bt_dir_t)dir, &e), CZ_OK);
    uint32_t expect = dir == BT_FORWARD ? 1000 : 2998, seen = 0;
    while (bt_next(c, &rk, &rkl, &rv, &rvl, &e) == CZ_OK) {
      uint32_t id = key_id(rk);
      if (dir == BT_FORWARD ? id >= 3000 : id < 1000)
        break;
      assert_int_equal(id, expect);
      uint8_t v[64];
      int vl = bt_tval(id, 0, v);
      assert_int_equal(rvl, vl);
      assert_memory_equal(rv, v, rvl);
      expect = dir == BT_FORWARD ? expect + 2 : expect - 2;
      seen++;
    }
    assert_int_equal(seen, 1000);
  }
  bt_cursor_close(c);
}

/* Releases every few rows; meanwhile the entry just returned is deleted,
 * a key behind is inserted (must not show up) and a key ahead inserted
 * (must show up) and one ahead deleted (must not). */
static void test_release_reseek(void **state)
{
  (void)state;
  err_t e;
  bt_cursor_t *c;
  uint8_t k[16], v[64];
  const void *rk, *rv;
  size_t rkl, rvl;
  err_clear(&e);
  for (int dir = 0; dir < 2; dir++) {
    assert_int_equal(bt_cursor_open(tree, &c, &e), CZ_OK);
    assert_int_equal(bt_seek(c, NULL, 0, (bt_dir_t)dir, &e), CZ_OK);
    int64_t prev = dir == BT_FORWARD ? -1 : (int64_t)N + 10;
    int rows = 0, rc;
    while ((rc = bt_next(c, &rk, &rkl, &rv, &rvl, &e)) == CZ_OK) {
      uint32_t id = key_id(rk);
      if (dir == BT_FORWARD)
        assert_true((int64_t)id > prev);
      else
        assert_true((int64_t)id < prev);
      /* Odd ids = 1 mod 4 are inserted ahead of the cursor and must show
       * up; odd ids = 3 mod 4 are inserted behind it and must not. */
      assert_true(id % 4 != 3);
      prev = id;
      if (++rows % 37 == 0) {
        bt_cursor_release(c);
        int kl = bt_tkey(id, k);
        assert_int_equal(bt_delete(tree, k, (size_t)kl, NULL, 0, NULL, 0, NULL, &e), CZ_OK);
        uint32_t behind = dir == BT_FORWARD ? id - 1 : id + 1, ahead = dir == BT_FORWARD ? id + 3 : id - 3;
        if (behind % 4 == 3 && behind < N) {
          kl = bt_tkey(behind, k);
          int vl = bt_tval(behind, 0, v);
          assert_int_equal(bt_insert(tree, k, (size_t)kl, v, (size_t)vl, &e), CZ_OK);
        }
        if (ahead % 4 == 1 && ahead < N) {
          kl = bt_tkey(ahead, k);
          int vl = bt_tval(ahead, 0, v);
          assert_int_equal(bt_insert(tree, k, (size_t)kl, v, (size_t)vl, &e), CZ_OK);
        }
        /* Put the deleted one back: it is behind the cursor now. */
        kl = bt_tkey(id, k);
        int vl = bt_tval(id, 0, v);
        assert_int_equal(bt_insert(tree, k, (size_t)kl, v, (size_t)vl, &e), CZ_OK);
      }
    }
    assert_int_equal(rc, BT_END);
    bt_cursor_close(c);
    /* Remove the odd inserts again for the next direction. */
    for (uint32_t id = 1; id < N; id += 2) {
      int kl = bt_tkey(id, k);
      bt_delete(tree, k, (size_t)kl, NULL, 0, NULL, 0, NULL, &e);
    }
  }
  bt_check_t chk;
  assert_int_equal(bt_check(tree, &chk, &e), CZ_OK);
  assert_int_equal(chk.bc_entries, N / 2);
}

/* Leaf runs: a forward scan by bt_next_run / bt_run_take, taking a random
 * part of each run and now and then releasing the cursor while entries
 * ahead of it and behind it are inserted, meets exactly the entries
 * bt_next would: every key in order once, the ones inserted ahead, none
 * of those behind; each entry's key (prefix ‖ suffix) and value are the
 * stored ones. */
/* Inserts an entry unless it is there already (a run may release twice
 * at one place). */
static void run_insert_once(const uint8_t *k, int kl, const uint8_t *v, int vl)
{
  err_t e;
  err_clear(&e);
  if (bt_insert(tree, k, (size_t)kl, v, (size_t)vl, &e) != CZ_OK)
    assert_string_equal(e.er_sqlstate, SQLSTATE_UNIQUE_VIOLATION);
}

static void test_leaf_runs(void **state)
{
  (void)state;
  err_t e;
  bt_cursor_t *c;
  static bt_run_t run;
  uint8_t k[16], v[64], kb[BT_MAX_KEY];
  err_clear(&e);
  uint64_t rng = cz_test_seed() | 1;
  assert_int_equal(bt_cursor_open(tree, &c, &e), CZ_OK);
  int kl = bt_tkey(101, k);
  assert_int_equal(bt_seek(c, k, (size_t)kl, BT_FORWARD, &e), CZ_OK);
  int64_t prev = 101;  /* the first entry is 102 */
  int rows = 0, rc, runs = 0;
  while ((rc = bt_next_run(c, BT_RUN_MAX, &run, &e)) == CZ_OK) {
    assert_true(run.br_n >= 1 && run.br_n <= BT_RUN_MAX);
    runs++;
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    int take = (int)(rng % (uint64_t)(run.br_n + 1));
    for (int i = 0; i < take; i++) {
      size_t l = bt_run_key(&run, i, kb);
      uint32_t id = key_id(kb);
      assert_int_equal(l, bt_tkey(id, k));
      assert_memory_equal(kb, k, l);
      assert_true((int64_t)id > prev);
      /* every even id, and the odd ones inserted ahead (1 mod 4) */
      assert_true(id % 2 == 0 ? (int64_t)id == (prev % 2 == 0 ? prev + 2 : prev + 1) : id % 4 == 1);
      assert_true(id % 4 != 3);
      int vl = bt_tval(id, 0, v);
      assert_int_equal(run.br_vlen[i], vl);
      assert_memory_equal(run.br_val[i], v, (size_t)vl);
      prev = id;
      rows++;
    }
    bt_run_take(c, &run, take);
    if (rng % 5 == 0 && prev >= 0) {
      bt_cursor_release(c);
      uint32_t behind = (uint32_t)prev - 1, ahead = (uint32_t)prev + 3;
      if (behind % 4 == 3) {
        kl = bt_tkey(behind, k);
        int vl = bt_tval(behind, 0, v);
        run_insert_once(k, kl, v, vl);
      }
      if (ahead % 4 == 1 && ahead < N) {
        kl = bt_tkey(ahead, k);
        int vl = bt_tval(ahead, 0, v);
        run_insert_once(k, kl, v, vl);
      }
    }
  }
  assert_int_equal(rc, BT_END);
  assert_int_equal(prev, N - 2);
  assert_true(rows >= (int)(N - 102) / 2);
  assert_true(runs > 1);
  assert_int_equal(bt_next_run(c, BT_RUN_MAX, &run, &e), BT_END);
  bt_cursor_close(c);
  for (uint32_t id = 1; id < N; id += 2) {
    kl = bt_tkey(id, k);
    bt_delete(tree, k, (size_t)kl, NULL, 0, NULL, 0, NULL, &e);
  }
  bt_check_t chk;
  assert_int_equal(bt_check(tree, &chk, &e), CZ_OK);
  assert_int_equal(chk.bc_entries, N / 2);
}

/* Holds a leaf exclusively for a while, then lets go. */
typedef struct holder_s {
  pg_no_t ho_page;
  _Atomic int ho_state; /* 1 = holding, 2 = released */
} holder_t;

static void *hold_page(void *arg)
{
  holder_t *h = arg;
  err_t e;
  err_clear(&e);
  buf_t *b = bp_fix(env.be_bp, h->ho_page, BP_EXCL, 0, &e);
  assert_non_null(b);
  atomic_store(&h->ho_state, 1);
  time_sleep_us(50000);
  atomic_store(&h->ho_state, 2);
  bp_unfix(env.be_bp, b);
  return NULL;
}

/* A backward scan reaching a leaf whose left sibling is latched by someone
 * else does not wait holding its leaf: it lets go, re-finds its place and
 * goes on once the sibling is free, returning every entry once. */
static void test_backward_nowait(void **state)
{
  (void)state;
  err_t e;
  err_clear(&e);
  bt_target_t tg;
  uint8_t k[16];
  int kl = bt_tkey(N / 2, k);
  bt_target_key(&tg, k, (size_t)kl);
  buf_t *leaf = bt_descend(tree, &tg, BP_SHARED, 0, NULL, &e);
  assert_non_null(leaf);
  holder_t h = { .ho_page = bpg_chdr(bp_page(leaf))->bh_left };
  atomic_init(&h.ho_state, 0);
  bp_unfix(env.be_bp, leaf);
  assert_true(h.ho_page != PG_NONE);
  cz_thread_t th;
  assert_int_equal(thread_start(&th, hold_page, &h, &e), CZ_OK);
  while (atomic_load(&h.ho_state) == 0)
    time_sleep_us(100);
  bt_cursor_t *c;
  const void *rk, *rv;
  size_t rkl, rvl;
  assert_int_equal(bt_cursor_open(tree, &c, &e), CZ_OK);
  assert_int_equal(bt_seek(c, k, (size_t)kl, BT_BACKWARD, &e), CZ_OK);
  int64_t expect = N / 2;
  int rc;
  while ((rc = bt_next(c, &rk, &rkl, &rv, &rvl, &e)) == CZ_OK) {
    assert_int_equal(key_id(rk), expect);
    expect -= 2;
  }
  assert_int_equal(rc, BT_END);
  assert_int_equal(expect, -2);
  assert_int_equal(atomic_load(&h.ho_state), 2);
  thread_join(&th);
  bt_cursor_close(c);
}

/* Non-unique: a release in the middle of a long run of duplicates neither
 * repeats nor skips an entry, forward or backward. */
static void test_nonunique_release(void **state)
{
  (void)state;
  err_t e;
  pg_no_t root;
  bt_tree_t *t;
  err_clear(&e);
  assert_int_equal(bt_create(env.be_bp, 0, &root, &e), CZ_OK);
  assert_int_equal(bt_open(env.be_bp, root, &t, &e), CZ_OK);
  const int n = 4000;
  char v[16];
  for (int i = 0; i < n; i++) {
    snprintf(v, sizeof v, "%07d", (i * 17) % n);
    assert_int_equal(bt_insert(t, "dup", 3, v, 7, &e), CZ_OK);
  }
  bt_cursor_t *c;
  const void *rk, *rv;
  size_t rkl, rvl;
  assert_int_equal(bt_cursor_open(t, &c, &e), CZ_OK);
  for (int dir = 0; dir < 2; dir++) {
    assert_int_equal(bt_seek(c, "dup", 3, (bt_dir_t)dir, &e), CZ_OK);
    int i = 0;
    while (bt_next(c, &rk, &rkl, &rv, &rvl, &e) == CZ_OK) {
      snprintf(v, sizeof v, "%07d", dir == BT_FORWARD ? i : n - 1 - i);
      assert_int_equal(rvl, 7);
      assert_memory_equal(rv, v, 7);
      if (++i % 101 == 0)
        bt_cursor_release(c);
    }
    assert_int_equal(i, n);
  }
  bt_cursor_close(c);
  assert_int_equal(bt_drop(t, &e), CZ_OK);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_seek_bounds),
    cmocka_unit_test(test_release_reseek),
    cmocka_unit_test(test_leaf_runs),
    cmocka_unit_test(test_backward_nowait),
    cmocka_unit_test(test_nonunique_release),
  };
  return cmocka_run_group_tests_name("bt_cursor", tests, setup_even, teardown);
}
