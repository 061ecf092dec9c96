/* test_bt_tree — single-row operations over a real buffer pool and file:
 * insert, lookup, update, delete, the errors (23505, 54000, XX000), non-
 * unique duplicates, splits and merges under random workloads checked
 * against a model after every phase, root split and root collapse, long
 * keys, data that survives eviction from a small pool, and drop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bt_testlib.h"
#include "cz_test.h"

static bt_tree_t *new_tree(bt_env_t *env, uint32_t flags)
{
  err_t e;
  pg_no_t root;
  bt_tree_t *t;
  err_clear(&e);
  assert_int_equal(bt_create(env->be_bp, flags, &root, &e), CZ_OK);
  assert_int_equal(bt_open(env->be_bp, root, &t, &e), CZ_OK);
  assert_int_equal(bt_root(t), root);
  assert_int_equal(bt_flags(t), flags);
  return t;
}

/* The operations and their return values on a unique tree. */
static void test_basic_ops(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "basic.db", 256, true);
  bt_tree_t *t = new_tree(&env, BT_UNIQUE);
  char v[64];
  size_t vl;

  assert_int_equal(bt_lookup(t, "a", 1, v, sizeof v, &vl, &e), BT_NOT_FOUND);
  assert_int_equal(bt_insert(t, "apple", 5, "red", 3, &e), CZ_OK);
  assert_int_equal(bt_insert(t, "banana", 6, "yellow", 6, &e), CZ_OK);
  assert_int_equal(bt_insert(t, "", 0, "empty", 5, &e), CZ_OK);
  assert_int_equal(bt_lookup(t, "apple", 5, v, sizeof v, &vl, &e), CZ_OK);
  assert_int_equal(vl, 3);
  assert_memory_equal(v, "red", 3);
  assert_int_equal(bt_lookup(t, "", 0, v, sizeof v, &vl, &e), CZ_OK);
  assert_int_equal(vl, 5);
  /* A short buffer gets a prefix and the full length. */
  assert_int_equal(bt_lookup(t, "banana", 6, v, 2, &vl, &e), CZ_OK);
  assert_int_equal(vl, 6);
  assert_memory_equal(v, "ye", 2);

  assert_int_equal(bt_insert(t, "apple", 5, "green", 5, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_UNIQUE_VIOLATION));

  static uint8_t big[BT_MAX_ROW + 10];
  memset(big, 'k', sizeof big);
  err_clear(&e);
  assert_int_equal(bt_insert(t, big, BT_MAX_KEY + 1, "v", 1, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_PROGRAM_LIMIT));
  err_clear(&e);
  assert_int_equal(bt_insert(t, big, 100, big, BT_MAX_ROW - 99, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_PROGRAM_LIMIT));
  assert_int_equal(bt_insert(t, big, BT_MAX_KEY, big, BT_MAX_ROW - BT_MAX_KEY, &e), CZ_OK);
  assert_int_equal(bt_lookup(t, big, BT_MAX_KEY + 1, v, sizeof v, &vl, &e), BT_NOT_FOUND);

  char old[8];
  size_t ol;
  assert_int_equal(bt_update(t, "apple", 5, "green", 5, old, sizeof old, &ol, &e), CZ_OK);
  assert_int_equal(ol, 3);
  assert_memory_equal(old, "red", 3);
  assert_int_equal(bt_lookup(t, "apple", 5, v, sizeof v, &vl, &e), CZ_OK);
  assert_memory_equal(v, "green", 5);
  assert_int_equal(bt_update(t, "cherry", 6, "x", 1, NULL, 0, NULL, &e), BT_NOT_FOUND);

  assert_int_equal(bt_delete(t, "banana", 6, NULL, 0, old, sizeof old, &ol, &e), CZ_OK);
  assert_int_equal(ol, 6);
  assert_memory_equal(old, "yellow", 6);
  assert_int_equal(bt_delete(t, "banana", 6, NULL, 0, NULL, 0, NULL, &e), BT_NOT_FOUND);
  assert_int_equal(bt_lookup(t, "banana", 6, v, sizeof v, &vl, &e), BT_NOT_FOUND);

  bt_check_t chk;
  assert_int_equal(bt_check(t, &chk, &e), CZ_OK);
  assert_int_equal(chk.bc_entries, 3);
  assert_int_equal(chk.bc_height, 1);

  /* Reopen: the flags come from the root page. */
  pg_no_t root = bt_root(t);
  bt_close(t);
  assert_int_equal(bt_open(env.be_bp, root, &t, &e), CZ_OK);
  assert_int_equal(bt_flags(t), BT_UNIQUE);
  assert_int_equal(bt_drop(t, &e), CZ_OK);
  bt_env_close(&env);
}

/* Non-unique: (key, value) identifies an entry; update is not allowed. */
static void test_nonunique(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "nonunique.db", 256, true);
  bt_tree_t *t = new_tree(&env, 0);
  char v[16];
  size_t vl;
  /* Enough duplicates of one key to span many leaves, inserted in a
   * scrambled order, between two other keys. */
  assert_int_equal(bt_insert(t, "a", 1, "x", 1, &e), CZ_OK);
  assert_int_equal(bt_insert(t, "c", 1, "x", 1, &e), CZ_OK);
  const int n = 3000;
  for (int i = 0; i < n; i++) {
    int j = (i * 7919) % n;
    snprintf(v, sizeof v, "val%06d", j);
    assert_int_equal(bt_insert(t, "b", 1, v, strlen(v), &e), CZ_OK);
  }
  assert_int_equal(bt_insert(t, "b", 1, "val000005", 9, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_UNIQUE_VIOLATION));
  assert_int_equal(bt_lookup(t, "b", 1, v, sizeof v, &vl, &e), CZ_OK);
  assert_int_equal(vl, 9);
  assert_memory_equal(v, "val000000", 9);
  err_clear(&e);
  assert_int_equal(bt_update(t, "b", 1, "q", 1, NULL, 0, NULL, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_INTERNAL));
  bt_check_t chk;
  assert_int_equal(bt_check(t, &chk, &e), CZ_OK);
  assert_int_equal(chk.bc_entries, (uint64_t)n + 2);
  assert_true(chk.bc_leaves > 3);

  /* Delete the even values: each delete names its entry. */
  for (int i = 0; i < n; i += 2) {
    snprintf(v, sizeof v, "val%06d", i);
    assert_int_equal(bt_delete(t, "b", 1, v, strlen(v), NULL, 0, NULL, &e), CZ_OK);
    assert_int_equal(bt_delete(t, "b", 1, v, strlen(v), NULL, 0, NULL, &e), BT_NOT_FOUND);
  }
  assert_int_equal(bt_lookup(t, "b", 1, v, sizeof v, &vl, &e), CZ_OK);
  assert_memory_equal(v, "val000001", 9);
  /* The scan sees a, then b's values ascending, then c. */
  bt_cursor_t *c;
  const void *k, *val;
  size_t kl, vlen;
  assert_int_equal(bt_cursor_open(t, &c, &e), CZ_OK);
  assert_int_equal(bt_seek(c, "b", 1, BT_FORWARD, &e), CZ_OK);
  for (int i = 1; i < n; i += 2) {
    assert_int_equal(bt_next(c, &k, &kl, &val, &vlen, &e), CZ_OK);
    snprintf(v, sizeof v, "val%06d", i);
    assert_int_equal(kl, 1);
    assert_memory_equal(val, v, 9);
  }
  assert_int_equal(bt_next(c, &k, &kl, &val, &vlen, &e), CZ_OK);
  assert_memory_equal(k, "c", 1);
  /* Backward from "b" inclusive starts at b's last value. */
  assert_int_equal(bt_seek(c, "b", 1, BT_BACKWARD, &e), CZ_OK);
  assert_int_equal(bt_next(c, &k, &kl, &val, &vlen, &e), CZ_OK);
  snprintf(v, sizeof v, "val%06d", n - 1);
  assert_memory_equal(val, v, 9);
  bt_cursor_close(c);
  assert_int_equal(bt_check(t, &chk, &e), CZ_OK);
  assert_int_equal(chk.bc_entries, (uint64_t)n / 2 + 2);
  bt_close(t);
  bt_env_close(&env);
}

static void apply_insert(bt_tree_t *t, bt_model_t *m, uint32_t id)
{
  err_t e;
  uint8_t k[16], v[64];
  err_clear(&e);
  int kl = bt_tkey(id, k), vl = bt_tval(id, m->bm_version[id], v);
  int rc = bt_insert(t, k, (size_t)kl, v, (size_t)vl, &e);
  if (m->bm_present[id]) {
    assert_int_equal(rc, CZ_ERR);
    assert_true(err_is(&e, SQLSTATE_UNIQUE_VIOLATION));
  } else {
    if (rc != CZ_OK)
      fail_msg("insert %u: %s %s", id, e.er_sqlstate, e.er_msg);
    m->bm_present[id] = 1;
    m->bm_count++;
  }
}

static void apply_update(bt_tree_t *t, bt_model_t *m, uint32_t id)
{
  err_t e;
  uint8_t k[16], v[64], old[64];
  size_t ol;
  err_clear(&e);
  int kl = bt_tkey(id, k), vl = bt_tval(id, m->bm_version[id] + 1, v);
  int rc = bt_update(t, k, (size_t)kl, v, (size_t)vl, old, sizeof old, &ol, &e);
  if (!m->bm_present[id]) {
    assert_int_equal(rc, BT_NOT_FOUND);
    return;
  }
  if (rc != CZ_OK)
    fail_msg("update %u: %s %s", id, e.er_sqlstate, e.er_msg);
  int evl = bt_tval(id, m->bm_version[id], v);
  assert_int_equal(ol, evl);
  assert_memory_equal(old, v, ol);
  m->bm_version[id]++;
}

static void apply_delete(bt_tree_t *t, bt_model_t *m, uint32_t id)
{
  err_t e;
  uint8_t k[16];
  err_clear(&e);
  int kl = bt_tkey(id, k);
  int rc = bt_delete(t, k, (size_t)kl, NULL, 0, NULL, 0, NULL, &e);
  if (!m->bm_present[id]) {
    assert_int_equal(rc, BT_NOT_FOUND);
    return;
  }
  if (rc != CZ_OK)
    fail_msg("delete %u: %s %s", id, e.er_sqlstate, e.er_msg);
  m->bm_present[id] = 0;
  m->bm_count--;
}

static void check_lookups(bt_tree_t *t, const bt_model_t *m, uint64_t *rng, int count)
{
  err_t e;
  uint8_t k[16], v[64], ev[64];
  size_t vl;
  err_clear(&e);
  for (int i = 0; i < count; i++) {
    *rng = hash64_int(*rng);
    uint32_t id = (uint32_t)(*rng % m->bm_n);
    int kl = bt_tkey(id, k);
    int rc = bt_lookup(t, k, (size_t)kl, v, sizeof v, &vl, &e);
    assert_int_equal(rc, m->bm_present[id] ? CZ_OK : BT_NOT_FOUND);
    if (rc == CZ_OK) {
      int evl = bt_tval(id, m->bm_version[id], ev);
      assert_int_equal(vl, evl);
      assert_memory_equal(v, ev, vl);
    }
  }
}

/* Random phases: grow (inserts with some updates and deletes), churn,
 * shrink to nothing; after each, scans both ways, lookups and bt_check
 * agree with the model. Splits, root splits, merges and the collapse of
 * the root all happen on the way. */
static void test_random_model(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "random.db", 2000, true);
  bt_tree_t *t = new_tree(&env, BT_UNIQUE);
  bt_model_t m;
  const uint32_t n = 40000;
  bt_model_init(&m, n);
  uint64_t rng = cz_test_seed();
  bt_check_t chk;
  /* Phase weights: insert, update, delete (per 100). */
  static const int phases[][3] = { { 80, 10, 10 }, { 80, 10, 10 }, { 34, 33, 33 }, { 10, 20, 70 }, { 5, 5, 90 } };
  int max_height = 0;
  for (size_t ph = 0; ph < CZ_ARRAY_LEN(phases); ph++) {
    for (int i = 0; i < 40000; i++) {
      rng = hash64_int(rng + (uint64_t)i);
      uint32_t id = (uint32_t)((rng >> 8) % n);
      int r = (int)(rng % 100);
      if (r < phases[ph][0])
        apply_insert(t, &m, id);
      else if (r < phases[ph][0] + phases[ph][1])
        apply_update(t, &m, id);
      else
        apply_delete(t, &m, id);
    }
    bt_model_verify(t, &m, &chk);
    print_message("phase %zu: %llu entries, %llu leaves, %llu inner, height %d\n", ph,
                  (unsigned long long)chk.bc_entries, (unsigned long long)chk.bc_leaves,
                  (unsigned long long)chk.bc_inner, chk.bc_height);
    check_lookups(t, &m, &rng, 2000);
    if (chk.bc_height > max_height)
      max_height = chk.bc_height;
  }
  assert_true(max_height >= 2);
  /* Delete everything left: merges down to the root leaf. */
  for (uint32_t id = 0; id < n; id++)
    if (m.bm_present[id])
      apply_delete(t, &m, id);
  bt_model_verify(t, &m, &chk);
  assert_int_equal(chk.bc_height, 1);
  assert_int_equal(chk.bc_leaves, 1);
  assert_int_equal(chk.bc_inner, 0);
  /* And it grows again. */
  for (uint32_t id = 0; id < n; id += 3)
    apply_insert(t, &m, id);
  bt_model_verify(t, &m, &chk);
  bt_model_free(&m);
  bt_close(t);
  bt_env_close(&env);
}

/* Keys and rows at the limits make pages of three or four entries; splits
 * and merges still keep every page valid. */
static void test_long_keys(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "long.db", 512, true);
  bt_tree_t *t = new_tree(&env, BT_UNIQUE);
  static uint8_t k[BT_MAX_KEY], v[BT_MAX_ROW];
  uint64_t rng = cz_test_seed();
  const int n = 600;
  uint8_t present[600] = { 0 };
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < n; i++) {
      rng = hash64_int(rng + 1);
      int id = (int)(rng % (uint64_t)n);
      /* Long shared runs: the key differs only at its end, and its length
       * depends on the id alone. */
      memset(k, 'p', sizeof k);
      int kl = BT_MAX_KEY - id % 200;
      k[kl - 2] = (uint8_t)(id >> 8);
      k[kl - 1] = (uint8_t)id;
      memset(v, id & 0xff, sizeof v);
      int vl = BT_MAX_ROW - BT_MAX_KEY - (id % 500);
      if (round < 2 || (rng >> 40) % 2) {
        int rc = bt_insert(t, k, (size_t)kl, v, (size_t)vl, &e);
        assert_int_equal(rc, present[id] ? CZ_ERR : CZ_OK);
        present[id] = 1;
      } else {
        int rc = bt_delete(t, k, (size_t)kl, NULL, 0, NULL, 0, NULL, &e);
        assert_int_equal(rc, present[id] ? CZ_OK : BT_NOT_FOUND);
        present[id] = 0;
      }
    }
    bt_check_t chk;
    if (bt_check(t, &chk, &e) != CZ_OK)
      fail_msg("bt_check: %s", e.er_msg);
    uint64_t cnt = 0;
    for (int i = 0; i < n; i++)
      cnt += present[i];
    assert_int_equal(chk.bc_entries, cnt);
    if (round == 1)
      assert_true(chk.bc_height >= 3); /* inner pages split too */
  }
  bt_close(t);
  bt_env_close(&env);
}

/* A tree many times the pool: every entry survives eviction, and the file
 * reopened in a new pool still holds the tree. */
static void test_eviction(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "evict.db", 48, true);
  bt_tree_t *t = new_tree(&env, BT_UNIQUE);
  bt_model_t m;
  const uint32_t n = 30000;
  bt_model_init(&m, n);
  for (uint32_t i = 0; i < n; i++)
    apply_insert(t, &m, (uint32_t)((i * 7919u) % n));
  bt_check_t chk;
  bt_model_verify(t, &m, &chk);
  assert_true(chk.bc_leaves + chk.bc_inner > 48 * 3);
  bp_stats_t bs;
  bp_get_stats(env.be_bp, &bs);
  assert_true(bs.bs_evictions > 0);
  pg_no_t root = bt_root(t);
  bt_close(t);
  bt_env_close(&env);

  bt_env_open(&env, "evict.db", 32, false);
  assert_int_equal(bt_open(env.be_bp, root, &t, &e), CZ_OK);
  uint64_t rng = 7;
  check_lookups(t, &m, &rng, 3000);
  bt_model_verify(t, &m, NULL);
  assert_int_equal(bt_drop(t, &e), CZ_OK);
  bt_model_free(&m);
  bt_env_close(&env);
}

/* Sizes (bt_pages) of trees growing side by side: each tree's count is
 * its own pages only, exact after splits, after deletes that merge and
 * free pages, after a drop of the other tree, and after a checkpoint and
 * reopen. */
static void test_pages(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "pages.db", 500, true);
  bt_tree_t *a = new_tree(&env, BT_UNIQUE);
  bt_tree_t *b = new_tree(&env, BT_UNIQUE);
  assert_int_equal(bt_pages(a), 1);
  assert_int_equal(bt_pages(b), 1);
  bt_model_t ma, mb;
  const uint32_t n = 30000;
  bt_model_init(&ma, n);
  bt_model_init(&mb, n);
  for (uint32_t id = 0; id < n; id++) {
    apply_insert(a, &ma, id);
    if (id % 2 == 0)
      apply_insert(b, &mb, n - 1 - id);
  }
  bt_check_t ca, cb;
  bt_model_verify(a, &ma, &ca);
  bt_model_verify(b, &mb, &cb);
  assert_true(bt_pages(a) > 100);
  assert_true(bt_pages(b) > 50);
  uint64_t a_full = bt_pages(a);
  /* Deleting a contiguous range empties leaves: they are merged and freed. */
  for (uint32_t id = 0; id < n * 3 / 4; id++)
    apply_delete(a, &ma, id);
  bt_model_verify(a, &ma, &ca);
  assert_true(bt_pages(a) < a_full / 2);
  pg_no_t ra = bt_root(a), rb = bt_root(b);
  uint64_t a_pages = bt_pages(a);
  assert_int_equal(bt_drop(b, &e), CZ_OK);
  assert_int_equal(bt_pages(a), a_pages);
  bt_close(a);
  bt_env_close(&env);
  bt_env_open(&env, "pages.db", 500, false);
  assert_int_equal(bt_open(env.be_bp, ra, &a, &e), CZ_OK);
  assert_int_equal(bt_pages(a), a_pages);
  bt_model_verify(a, &ma, &ca);
  /* A new tree gets b's freed space (its root may even be b's old root)
   * and starts at one page. */
  bt_tree_t *c = new_tree(&env, 0);
  (void)rb;
  assert_int_equal(bt_pages(c), 1);
  bt_close(c);
  bt_close(a);
  bt_model_free(&ma);
  bt_model_free(&mb);
  bt_env_close(&env);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_basic_ops),
    cmocka_unit_test(test_nonunique),
    cmocka_unit_test(test_random_model),
    cmocka_unit_test(test_long_keys),
    cmocka_unit_test(test_eviction),
    cmocka_unit_test(test_pages),
  };
  return cmocka_run_group_tests_name("bt_tree", tests, NULL, NULL);
}
