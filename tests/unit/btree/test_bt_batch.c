/* test_bt_batch — vectored operations: bt_lookup_batch agrees with
 * bt_lookup (present and absent keys, duplicates in the batch, batches
 * longer than the release interval, non-unique trees); bt_insert_batch
 * appends (leaves filled to the brim), inserts inside the tree, mixes the
 * two in one batch, and stops at the first bad row with *n_done; sorted
 * runs inserted inside the tree (at the end of a key range, as a loader's
 * new ids land under each predicate) leave full leaves, not half ones.
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
  return t;
}

typedef struct res_s {
  int rs_calls;
  int rs_last;
  bool rs_found[6000];
  uint8_t rs_val[6000][64];
  size_t rs_vlen[6000];
} res_t;

static void collect(void *ctx, int i, bool found, const void *val, size_t val_len)
{
  res_t *r = ctx;
  assert_int_equal(i, r->rs_last + 1); /* in key order, once each */
  r->rs_last = i;
  r->rs_calls++;
  r->rs_found[i] = found;
  r->rs_vlen[i] = val_len;
  if (found)
    memcpy(r->rs_val[i], val, CZ_MIN(val_len, sizeof r->rs_val[i]));
}

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Batches of sorted random ids (half absent, some repeated) give the
 * same answers as single lookups. */
static void test_lookup_batch(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "lookup.db", 2000, true);
  bt_tree_t *t = new_tree(&env, BT_UNIQUE);
  const uint32_t n = 60000;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t id = (i * 7919u) % n;
    if (id % 2)
      continue;
    uint8_t k[16], v[64];
    int kl = bt_tkey(id, k), vl = bt_tval(id, 0, v);
    assert_int_equal(bt_insert(t, k, (size_t)kl, v, (size_t)vl, &e), CZ_OK);
  }
  static res_t res;
  static uint32_t ids[5000];
  static uint8_t keys[5000][16];
  static bt_key_t kv[5000];
  uint64_t rng = cz_test_seed();
  for (int round = 0; round < 6; round++) {
    int m = round == 0 ? 1 : round == 1 ? 10 : 5000;
    for (int i = 0; i < m; i++) {
      rng = hash64_int(rng + (uint64_t)i);
      /* Round 5: a dense run, many keys per leaf. */
      ids[i] = round == 5 ? (uint32_t)(rng % 6000) + 20000 : (uint32_t)(rng % (n + 100));
      if (i > 0 && rng % 10 == 0)
        ids[i] = ids[i - 1];
    }
    qsort(ids, (size_t)m, sizeof ids[0], cmp_u32);
    for (int i = 0; i < m; i++)
      kv[i] = (bt_key_t){ keys[i], (uint32_t)bt_tkey(ids[i], keys[i]) };
    memset(&res, 0, sizeof res);
    res.rs_last = -1;
    assert_int_equal(bt_lookup_batch(t, kv, m, collect, &res, &e), CZ_OK);
    assert_int_equal(res.rs_calls, m);
    for (int i = 0; i < m; i++) {
      uint8_t v[64];
      size_t vl;
      int rc = bt_lookup(t, kv[i].k_data, kv[i].k_len, v, sizeof v, &vl, &e);
      assert_int_equal(res.rs_found[i], rc == CZ_OK);
      assert_int_equal(rc == CZ_OK, ids[i] < n && ids[i] % 2 == 0);
      if (rc == CZ_OK) {
        assert_int_equal(res.rs_vlen[i], vl);
        assert_memory_equal(res.rs_val[i], v, vl);
      }
    }
  }
  /* Unsorted keys are refused. */
  uint8_t k10[16], k5[16];
  kv[0] = (bt_key_t){ k10, (uint32_t)bt_tkey(10, k10) };
  kv[1] = (bt_key_t){ k5, (uint32_t)bt_tkey(5, k5) };
  memset(&res, 0, sizeof res);
  res.rs_last = -1;
  assert_int_equal(bt_lookup_batch(t, kv, 2, collect, &res, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_INVALID_PARAMETER));
  bt_close(t);
  bt_env_close(&env);
}

/* Non-unique tree: the batch finds the first value of each key, also when
 * the key's entries start on the next leaf. */
static void test_lookup_batch_nonunique(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "lookup_nu.db", 500, true);
  bt_tree_t *t = new_tree(&env, 0);
  static uint8_t keys[300][16];
  static bt_key_t kv[300];
  char v[16];
  for (int id = 0; id < 300; id++) {
    int kl = bt_tkey((uint32_t)id, keys[id]);
    kv[id] = (bt_key_t){ keys[id], (uint32_t)kl };
    for (int j = id % 40; j >= 0; j--) {
      snprintf(v, sizeof v, "v%05d", j * 3 + 1);
      assert_int_equal(bt_insert(t, keys[id], (size_t)kl, v, strlen(v), &e), CZ_OK);
    }
  }
  static res_t res;
  memset(&res, 0, sizeof res);
  res.rs_last = -1;
  assert_int_equal(bt_lookup_batch(t, kv, 300, collect, &res, &e), CZ_OK);
  for (int id = 0; id < 300; id++) {
    assert_true(res.rs_found[id]);
    assert_int_equal(res.rs_vlen[id], 6);
    assert_memory_equal(res.rs_val[id], "v00001", 6);
  }
  bt_close(t);
  bt_env_close(&env);
}

static bt_row_t rows[20000];
static uint8_t rkeys[20000][16], rvals[20000][64];

static void make_rows(const uint32_t *ids, int n, uint32_t version)
{
  for (int i = 0; i < n; i++) {
    int kl = bt_tkey(ids[i], rkeys[i]), vl = bt_tval(ids[i], version, rvals[i]);
    rows[i] = (bt_row_t){ rkeys[i], (uint32_t)kl, rvals[i], (uint32_t)vl };
  }
}

/* Appending sorted batches to an empty tree fills the leaves; inserting
 * batches inside the tree and batches that start inside and end after
 * the last key keep the tree equal to the model. */
static void test_insert_batch(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "ibatch.db", 3000, true);
  bt_tree_t *t = new_tree(&env, BT_UNIQUE);
  bt_model_t m;
  const uint32_t n = 200000;
  bt_model_init(&m, n);
  static uint32_t ids[20000];
  int done;
  /* Append: ids 0, 4, 8, ... below 100000, batches of 5000. */
  for (uint32_t base = 0; base < 100000; base += 20000) {
    int k = 0;
    for (uint32_t id = base; id < base + 20000; id += 4)
      ids[k++] = id;
    make_rows(ids, k, 0);
    assert_int_equal(bt_insert_batch(t, rows, k, &done, &e), CZ_OK);
    assert_int_equal(done, k);
    for (int i = 0; i < k; i++)
      m.bm_present[ids[i]] = 1;
    m.bm_count += (uint64_t)k;
  }
  bt_check_t chk;
  bt_model_verify(t, &m, &chk);
  /* Filled to the brim: leaves over 90% used on average. */
  assert_true(chk.bc_bytes_used > chk.bc_leaves * (uint64_t)(ST_PAGE_SIZE - 64) * 9 / 10);
  /* Inside: ids = 2 mod 4, random subsets, sorted batches. */
  uint64_t rng = cz_test_seed();
  for (int round = 0; round < 4; round++) {
    int k = 0;
    for (uint32_t id = 2; id < 100000 && k < 20000; id += 4) {
      rng = hash64_int(rng + id);
      if (rng % 4 == 0 && !m.bm_present[id])
        ids[k++] = id;
    }
    make_rows(ids, k, 0);
    assert_int_equal(bt_insert_batch(t, rows, k, &done, &e), CZ_OK);
    assert_int_equal(done, k);
    for (int i = 0; i < k; i++)
      m.bm_present[ids[i]] = 1;
    m.bm_count += (uint64_t)k;
    bt_model_verify(t, &m, NULL);
  }
  /* Mixed: odd ids from 90000 up to 110000: inside, then after the end. */
  int k = 0;
  for (uint32_t id = 90001; id < 110000; id += 2)
    ids[k++] = id;
  make_rows(ids, k, 0);
  assert_int_equal(bt_insert_batch(t, rows, k, &done, &e), CZ_OK);
  assert_int_equal(done, k);
  for (int i = 0; i < k; i++)
    m.bm_present[ids[i]] = 1;
  m.bm_count += (uint64_t)k;
  bt_model_verify(t, &m, &chk);
  bt_model_free(&m);
  bt_close(t);
  bt_env_close(&env);
}

/* Each batch adds a run of new ids at the end of every one of ten key
 * ranges (group g holds ids g * 20000 + 0, 1, 2, ...), so all runs but the
 * last land inside the tree, past the last key of a leaf that has a right
 * sibling: the split there keeps the old leaf whole and the run fills new
 * leaves. A split in the middle would leave every leaf half full. Then runs
 * inside a leaf (between two keys): the leaf splits at the run's place,
 * and the run fills the left part. */
static void test_insert_batch_runs_fill(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "ibatch_runs.db", 3000, true);
  bt_tree_t *t = new_tree(&env, BT_UNIQUE);
  bt_model_t m;
  bt_model_init(&m, 200000);
  static uint32_t ids[20000];
  int done;
  const uint32_t run = 240, step = 2;
  for (uint32_t r = 0; r < 40; r++) {
    int k = 0;
    for (uint32_t g = 0; g < 10; g++)
      for (uint32_t i = 0; i < run; i++)
        ids[k++] = g * 20000 + (r * run + i) * step;
    make_rows(ids, k, 0);
    assert_int_equal(bt_insert_batch(t, rows, k, &done, &e), CZ_OK);
    assert_int_equal(done, k);
    for (int i = 0; i < k; i++)
      m.bm_present[ids[i]] = 1;
    m.bm_count += (uint64_t)k;
  }
  bt_check_t chk;
  bt_model_verify(t, &m, &chk);
  uint64_t cap = chk.bc_leaves * (uint64_t)(ST_PAGE_SIZE - 64);
  assert_true(chk.bc_bytes_used > cap * 9 / 10);
  /* Runs of odd ids inside ranges already full: 20 runs of 300. */
  int k = 0;
  for (uint32_t g = 0; g < 10; g++)
    for (uint32_t b = 0; b < 2; b++)
      for (uint32_t i = 0; i < 300; i++)
        ids[k++] = g * 20000 + b * 9000 + 1001 + i * 2;
  make_rows(ids, k, 0);
  assert_int_equal(bt_insert_batch(t, rows, k, &done, &e), CZ_OK);
  assert_int_equal(done, k);
  for (int i = 0; i < k; i++)
    m.bm_present[ids[i]] = 1;
  m.bm_count += (uint64_t)k;
  bt_model_verify(t, &m, &chk);
  cap = chk.bc_leaves * (uint64_t)(ST_PAGE_SIZE - 64);
  assert_true(chk.bc_bytes_used > cap * 85 / 100);
  bt_model_free(&m);
  bt_close(t);
  bt_env_close(&env);
}

/* The first bad row stops the batch; the rows before it stay. */
static void test_insert_batch_errors(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "ibatch_err.db", 500, true);
  bt_tree_t *t = new_tree(&env, BT_UNIQUE);
  uint32_t ids[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
  int done = -1;
  make_rows(ids, 10, 0);
  rows[5] = rows[4]; /* a duplicate within the batch */
  assert_int_equal(bt_insert_batch(t, rows, 10, &done, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_UNIQUE_VIOLATION));
  assert_int_equal(done, 5);
  /* A key already in the tree, inside the tree. */
  uint32_t ids2[4] = { 0, 3, 11, 12 };
  make_rows(ids2, 4, 0);
  err_clear(&e);
  assert_int_equal(bt_insert_batch(t, rows, 4, &done, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_UNIQUE_VIOLATION));
  assert_int_equal(done, 1);
  /* Out of order. */
  uint32_t ids3[3] = { 20, 22, 21 };
  make_rows(ids3, 3, 0);
  err_clear(&e);
  assert_int_equal(bt_insert_batch(t, rows, 3, &done, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_INVALID_PARAMETER));
  assert_int_equal(done, 2);
  /* Too long. */
  static uint8_t big[BT_MAX_KEY + 1];
  memset(big, 0xff, sizeof big);
  uint32_t ids4[2] = { 30, 31 };
  make_rows(ids4, 2, 0);
  rows[1].r_key = big;
  rows[1].r_key_len = sizeof big;
  err_clear(&e);
  assert_int_equal(bt_insert_batch(t, rows, 2, &done, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_PROGRAM_LIMIT));
  assert_int_equal(done, 1);
  bt_check_t chk;
  assert_int_equal(bt_check(t, &chk, &e), CZ_OK);
  /* 1..5, 0, 20, 22, 30 */
  assert_int_equal(chk.bc_entries, 9);
  bt_close(t);
  bt_env_close(&env);
}

/* Non-unique batch append: many values per key, ordered by (key, value). */
static void test_insert_batch_nonunique(void **state)
{
  (void)state;
  bt_env_t env;
  err_t e;
  err_clear(&e);
  bt_env_open(&env, "ibatch_nu.db", 500, true);
  bt_tree_t *t = new_tree(&env, 0);
  static char vals[20000][8];
  int n = 0;
  for (uint32_t id = 0; id < 100; id++)
    for (int j = 0; j < 200; j++, n++) {
      int kl = bt_tkey(id, rkeys[n]);
      snprintf(vals[n], sizeof vals[n], "%06d", j);
      rows[n] = (bt_row_t){ rkeys[n], (uint32_t)kl, vals[n], 6 };
    }
  int done;
  assert_int_equal(bt_insert_batch(t, rows, n / 2, &done, &e), CZ_OK);
  assert_int_equal(bt_insert_batch(t, rows + n / 2, n - n / 2, &done, &e), CZ_OK);
  /* The same entry again is a violation; another value of a key is not. */
  assert_int_equal(bt_insert_batch(t, rows + 77, 1, &done, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_UNIQUE_VIOLATION));
  bt_check_t chk;
  assert_int_equal(bt_check(t, &chk, &e), CZ_OK);
  assert_int_equal(chk.bc_entries, (uint64_t)n);
  bt_cursor_t *c;
  const void *k, *v;
  size_t kl, vl;
  assert_int_equal(bt_cursor_open(t, &c, &e), CZ_OK);
  assert_int_equal(bt_seek(c, NULL, 0, BT_FORWARD, &e), CZ_OK);
  for (int i = 0; i < n; i++) {
    assert_int_equal(bt_next(c, &k, &kl, &v, &vl, &e), CZ_OK);
    assert_int_equal(kl, rows[i].r_key_len);
    assert_memory_equal(k, rows[i].r_key, kl);
    assert_memory_equal(v, rows[i].r_val, 6);
  }
  assert_int_equal(bt_next(c, &k, &kl, &v, &vl, &e), BT_END);
  bt_cursor_close(c);
  bt_close(t);
  bt_env_close(&env);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lookup_batch),
    cmocka_unit_test(test_lookup_batch_nonunique),
    cmocka_unit_test(test_insert_batch),
    cmocka_unit_test(test_insert_batch_runs_fill),
    cmocka_unit_test(test_insert_batch_errors),
    cmocka_unit_test(test_insert_batch_nonunique),
  };
  return cmocka_run_group_tests_name("bt_batch", tests, NULL, NULL);
}
