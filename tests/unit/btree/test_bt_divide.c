/* test_bt_divide — cuts of a range for parallel scans: none for an empty
 * tree or a single leaf, n - 1 strictly ascending cuts strictly inside
 * the range for a big tree (whole, bounded, narrow), pieces of about even
 * size, and well-formed cuts while another thread splits and merges pages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>

#include "bt_testlib.h"
#include "cz_test.h"

static int keycmp(const void *a, size_t al, const void *b, size_t bl)
{
  int c = memcmp(a, b, al < bl ? al : bl);
  return c ? c : al < bl ? -1 : al > bl;
}

static bt_tree_t *filled_tree(bt_env_t *env, uint32_t n)
{
  err_t e;
  err_clear(&e);
  pg_no_t root;
  bt_tree_t *t;
  assert_int_equal(bt_create(env->be_bp, BT_UNIQUE, &root, &e), CZ_OK);
  assert_int_equal(bt_open(env->be_bp, root, &t, &e), CZ_OK);
  for (uint32_t i = 0; i < n; i++) {
    uint8_t k[32], v[64];
    int kl = bt_tkey(i, k), vl = bt_tval(i, 0, v);
    if (bt_insert(t, k, (size_t)kl, v, (size_t)vl, &e) != CZ_OK)
      fail_msg("insert %u: %s", i, e.er_msg);
  }
  return t;
}

/* Cuts strictly ascending and strictly inside (lo, hi). */
static void check_cuts(const bt_key_t *c, int nc, const void *lo, size_t lol, const void *hi,
                       size_t hil)
{
  for (int i = 0; i < nc; i++) {
    if (i > 0 && keycmp(c[i - 1].k_data, c[i - 1].k_len, c[i].k_data, c[i].k_len) >= 0)
      fail_msg("cut %d not above cut %d", i, i - 1);
    if (lo && keycmp(c[i].k_data, c[i].k_len, lo, lol) <= 0)
      fail_msg("cut %d not above the low end", i);
    if (hi && keycmp(c[i].k_data, c[i].k_len, hi, hil) >= 0)
      fail_msg("cut %d not below the high end", i);
  }
}

/* Entries of [lo, hi) per piece into per[0..nc]. */
static void count_pieces(bt_tree_t *t, const bt_key_t *c, int nc, const void *lo, size_t lol,
                         const void *hi, size_t hil, int *per)
{
  err_t e;
  bt_cursor_t *cur;
  assert_int_equal(bt_cursor_open(t, &cur, &e), CZ_OK);
  assert_int_equal(bt_seek(cur, lo, lol, BT_FORWARD, &e), CZ_OK);
  int p = 0;
  const void *k, *v;
  size_t kl, vl;
  while (bt_next(cur, &k, &kl, &v, &vl, &e) == CZ_OK) {
    if (hi && keycmp(k, kl, hi, hil) >= 0)
      break;
    while (p < nc && keycmp(k, kl, c[p].k_data, c[p].k_len) >= 0)
      p++;
    per[p]++;
  }
  bt_cursor_close(cur);
}

static void test_divide_shapes(void **state)
{
  (void)state;
  bt_env_t env;
  bt_env_open(&env, "divide.db", 2048, true);
  err_t e;
  err_clear(&e);
  arena_t *a = arena_create(NULL, "divide");
  bt_key_t *c;
  int nc;
  bt_tree_t *empty = filled_tree(&env, 0), *small = filled_tree(&env, 30);
  assert_int_equal(bt_divide(empty, NULL, 0, NULL, 0, 8, a, &c, &nc, &e), CZ_OK);
  assert_int_equal(nc, 0);
  assert_int_equal(bt_divide(small, NULL, 0, NULL, 0, 8, a, &c, &nc, &e), CZ_OK);
  assert_int_equal(nc, 0);  /* one leaf: no cut */
  enum { N = 60000 };
  bt_tree_t *big = filled_tree(&env, N);
  bt_check_t chk;
  assert_int_equal(bt_check(big, &chk, &e), CZ_OK);
  uint8_t lo[32], hi[32];
  int lol = bt_tkey(N / 10, lo), hil = bt_tkey(N / 2, hi);
  for (int n = 1; n <= 64; n++) {
    /* the whole tree, then a bounded range */
    for (int bounded = 0; bounded < 2; bounded++) {
      const void *l = bounded ? lo : NULL, *h = bounded ? hi : NULL;
      size_t ll = bounded ? (size_t)lol : 0, hl = bounded ? (size_t)hil : 0;
      assert_int_equal(bt_divide(big, l, ll, h, hl, n, a, &c, &nc, &e), CZ_OK);
      assert_int_equal(nc, n - 1);
      check_cuts(c, nc, l, ll, h, hl);
      int per[64] = {0};
      count_pieces(big, c, nc, l, ll, h, hl, per);
      int total = 0, max = 0;
      for (int i = 0; i < n; i++) {
        total += per[i];
        max = per[i] > max ? per[i] : max;
      }
      assert_int_equal(total, bounded ? N / 2 - N / 10 : N);
      if (max > 2 * total / n + 2 * (int)(chk.bc_entries / chk.bc_leaves))
        fail_msg("n %d: a piece of %d of %d entries", n, max, total);
    }
    arena_reset(a);
  }
  /* a range inside one leaf: no cut; an empty range: none */
  int l2 = bt_tkey(100, lo), h2 = bt_tkey(103, hi);
  assert_int_equal(bt_divide(big, lo, (size_t)l2, hi, (size_t)h2, 16, a, &c, &nc, &e), CZ_OK);
  assert_true(nc <= 1);
  check_cuts(c, nc, lo, (size_t)l2, hi, (size_t)h2);
  assert_int_equal(bt_divide(big, hi, (size_t)h2, lo, (size_t)l2, 16, a, &c, &nc, &e), CZ_OK);
  assert_int_equal(nc, 0);
  arena_destroy(a);
  bt_close(empty);
  bt_close(small);
  bt_close(big);
  bt_env_close(&env);
}

typedef struct churn_s {
  bt_tree_t *ch_t;
  _Atomic bool ch_stop;
  uint32_t ch_n;
} churn_t;

/* Deletes and re-inserts runs of keys: pages split and merge. */
static void *churn(void *arg)
{
  churn_t *ch = arg;
  err_t e;
  uint64_t r = 12345;
  while (!atomic_load(&ch->ch_stop)) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t from = (uint32_t)((r >> 33) % ch->ch_n), len = 1 + (uint32_t)((r >> 20) % 3000);
    for (int pass = 0; pass < 2; pass++)
      for (uint32_t i = from; i < from + len && i < ch->ch_n; i++) {
        uint8_t k[32], v[64];
        int kl = bt_tkey(i, k);
        if (pass == 0)
          bt_delete(ch->ch_t, k, (size_t)kl, NULL, 0, NULL, 0, NULL, &e);
        else {
          int vl = bt_tval(i, 1, v);
          bt_insert(ch->ch_t, k, (size_t)kl, v, (size_t)vl, &e);
        }
      }
  }
  return NULL;
}

static void test_divide_while_tree_changes(void **state)
{
  (void)state;
  bt_env_t env;
  bt_env_open(&env, "divide_churn.db", 2048, true);
  churn_t ch = {.ch_t = filled_tree(&env, 40000), .ch_n = 40000};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, churn, &ch), 0);
  arena_t *a = arena_create(NULL, "divide");
  err_t e;
  err_clear(&e);
  uint8_t lo[32], hi[32];
  int lol = bt_tkey(5000, lo), hil = bt_tkey(30000, hi);
  for (int i = 0; i < 400; i++) {
    bt_key_t *c;
    int nc, n = 2 + i % 40;
    bool bounded = i % 2;
    const void *l = bounded ? lo : NULL, *h = bounded ? hi : NULL;
    size_t ll = bounded ? (size_t)lol : 0, hl = bounded ? (size_t)hil : 0;
    if (bt_divide(ch.ch_t, l, ll, h, hl, n, a, &c, &nc, &e) != CZ_OK)
      fail_msg("bt_divide: %s", e.er_msg);
    assert_true(nc <= n - 1);
    check_cuts(c, nc, l, ll, h, hl);
    arena_reset(a);
  }
  atomic_store(&ch.ch_stop, true);
  pthread_join(th, NULL);
  arena_destroy(a);
  bt_check_t chk;
  assert_int_equal(bt_check(ch.ch_t, &chk, &e), CZ_OK);
  bt_close(ch.ch_t);
  bt_env_close(&env);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_divide_shapes),
    cmocka_unit_test(test_divide_while_tree_changes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
