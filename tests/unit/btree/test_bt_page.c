/* test_bt_page — the in-page layer on plain 8 KB arrays: search, insert,
 * delete, prefix compression, compaction, split and merge (rebuild from
 * two pages), inner-page child selection and non-unique ordering. No
 * buffer pool: these are the layout's own guarantees.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "btree/btree_int.h"
#include "cz_test.h"

typedef struct mkey_s {
  uint8_t mk[64];
  int mk_len;
  uint8_t mv[16];
  int mv_len;
} mkey_t;

static _Alignas(8) uint8_t pgbuf[ST_PAGE_SIZE], pgbuf2[ST_PAGE_SIZE], pgbuf3[ST_PAGE_SIZE];

static int mkey_cmp(const void *a, const void *b)
{
  const mkey_t *x = a, *y = b;
  return bt_keycmp(x->mk, (size_t)x->mk_len, y->mk, (size_t)y->mk_len);
}

static uint64_t rng_state;
static uint64_t rnd(void)
{
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return rng_state >> 17;
}

/* A key "pfx-" + 8 random hex digits: shares a 4-byte prefix. */
static void make_key(mkey_t *k, const char *pfx)
{
  k->mk_len = snprintf((char *)k->mk, sizeof k->mk, "%s%08llx", pfx, (unsigned long long)(rnd() & 0xffffffffu));
  k->mv_len = 8;
  memcpy(k->mv, k->mk + k->mk_len - 8, 8);
}

/* The page holds exactly model[0..n) in order, with their values. */
static void assert_page_is(const uint8_t *pg, const mkey_t *model, int n)
{
  uint8_t kb[BT_MAX_ROW];
  assert_int_equal(bpg_n(pg), n);
  for (int i = 0; i < n; i++) {
    int kl = bpg_key_copy(pg, i, kb), vl;
    assert_int_equal(kl, model[i].mk_len);
    assert_memory_equal(kb, model[i].mk, (size_t)kl);
    const uint8_t *v = bpg_val(pg, i, &vl);
    assert_int_equal(vl, model[i].mv_len);
    assert_memory_equal(v, model[i].mv, (size_t)vl);
  }
  assert_true(bpg_lower(pg) <= bpg_chdr(pg)->bh_upper);
}

static int leaf_insert(uint8_t *pg, const mkey_t *k)
{
  bt_target_t t;
  bool eq;
  bt_target_key(&t, k->mk, (size_t)k->mk_len);
  int pos = bpg_search_leaf(pg, &t, true, 0, false, &eq);
  if (eq)
    return -1;
  bpg_ent_t e = bpg_ent_make(k->mk, (uint32_t)k->mk_len, k->mv, (uint32_t)k->mv_len, PG_NONE);
  return bpg_insert(pg, pos, &e) ? 1 : 0;
}

static mkey_t model[2000];

/* Filling a leaf with keys of one prefix stores the prefix once, keeps
 * order, and finds every key; a key outside the prefix shrinks it. */
static void test_insert_search_prefix(void **state)
{
  (void)state;
  rng_state = cz_test_seed();
  bpg_init(pgbuf, 0, 7, 0);
  int n = 0;
  for (;;) {
    mkey_t k;
    make_key(&k, "abcd-");
    int r = leaf_insert(pgbuf, &k);
    if (r == 0)
      break;
    if (r > 0)
      model[n++] = k;
  }
  assert_true(n > 200);
  qsort(model, (size_t)n, sizeof model[0], mkey_cmp);
  assert_page_is(pgbuf, model, n);
  assert_true(bpg_chdr(pgbuf)->bh_plen >= 5);
  for (int i = 0; i < n; i++) {
    bt_target_t t;
    bool eq;
    bt_target_key(&t, model[i].mk, (size_t)model[i].mk_len);
    assert_int_equal(bpg_search_leaf(pgbuf, &t, true, 0, false, &eq), i);
    assert_true(eq);
    assert_int_equal(bpg_search_leaf(pgbuf, &t, true, 0, true, &eq), i + 1);
  }
  /* Delete a third to make room, then insert a key of another prefix. */
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0) {
      bt_target_t t;
      bool eq;
      bt_target_key(&t, model[i].mk, (size_t)model[i].mk_len);
      int pos = bpg_search_leaf(pgbuf, &t, true, 0, false, &eq);
      assert_true(eq);
      bpg_delete(pgbuf, pos);
    } else {
      model[m++] = model[i];
    }
  }
  assert_page_is(pgbuf, model, m);
  mkey_t z;
  make_key(&z, "ab-"); /* shares exactly "ab" with "abcd-..." */
  assert_int_equal(leaf_insert(pgbuf, &z), 1);
  model[m++] = z;
  qsort(model, (size_t)m, sizeof model[0], mkey_cmp);
  assert_int_equal(bpg_chdr(pgbuf)->bh_plen, 2);
  assert_page_is(pgbuf, model, m);
  /* A key before everything, sharing nothing. */
  mkey_t a = { .mk = "A", .mk_len = 1, .mv = "v", .mv_len = 1 };
  assert_int_equal(leaf_insert(pgbuf, &a), 1);
  assert_int_equal(bpg_chdr(pgbuf)->bh_plen, 0);
  memmove(&model[1], &model[0], sizeof model[0] * (size_t)m);
  model[0] = a;
  assert_page_is(pgbuf, model, m + 1);
  assert_int_equal(leaf_insert(pgbuf, &a), -1);
}

/* Deleting leaves fragments; compaction gathers them and keeps content. */
static void test_delete_compact(void **state)
{
  (void)state;
  rng_state = cz_test_seed() + 1;
  bpg_init(pgbuf, 0, 7, 0);
  int n = 0;
  while (n < 150) {
    mkey_t k;
    make_key(&k, "key-");
    if (leaf_insert(pgbuf, &k) > 0)
      model[n++] = k;
  }
  qsort(model, (size_t)n, sizeof model[0], mkey_cmp);
  int free_before = bpg_free(pgbuf);
  for (int i = n - 2; i >= 0; i -= 2) {
    bpg_delete(pgbuf, i);
    memmove(&model[i], &model[i + 1], sizeof model[0] * (size_t)(n - i - 1));
    n--;
  }
  assert_true(bpg_chdr(pgbuf)->bh_frag > 0);
  assert_true(bpg_free(pgbuf) > free_before);
  int free_mid = bpg_free(pgbuf);
  bpg_compact(pgbuf);
  assert_int_equal(bpg_chdr(pgbuf)->bh_frag, 0);
  assert_true(bpg_free(pgbuf) >= free_mid);
  assert_page_is(pgbuf, model, n);
  /* Deleting everything resets the page. */
  while (bpg_n(pgbuf))
    bpg_delete(pgbuf, 0);
  assert_int_equal(bpg_free(pgbuf), BT_AREA);
}

/* A split keeps every entry exactly once, left below the separator, right
 * at or above it, and the separator is a short prefix. The append split
 * leaves the left page full. Merging the halves gives the page back. */
static void test_split_merge(void **state)
{
  (void)state;
  bpg_ent_t ents[BPG_MAX_ENTS + 1];
  uint8_t sep[BT_MAX_ROW];
  uint32_t sk, sv;
  for (int append = 0; append < 2; append++) {
    rng_state = cz_test_seed() + 2 + (uint64_t)append;
    bpg_init(pgbuf, 0, 7, 0);
    int n = 0;
    mkey_t extra;
    for (;;) {
      mkey_t k;
      make_key(&k, "split-");
      int r = leaf_insert(pgbuf, &k);
      if (r == 0) {
        extra = k;
        if (append)
          memcpy(extra.mk, "zzzzzz", 6);
        break;
      }
      if (r > 0)
        model[n++] = k;
    }
    model[n++] = extra;
    qsort(model, (size_t)n, sizeof model[0], mkey_cmp);
    int ne = bpg_ents(pgbuf, ents);
    bt_target_t t;
    bool eq;
    bt_target_key(&t, extra.mk, (size_t)extra.mk_len);
    int pos = bpg_search_leaf(pgbuf, &t, true, 0, false, &eq);
    memmove(&ents[pos + 1], &ents[pos], sizeof ents[0] * (size_t)(ne - pos));
    ents[pos] = bpg_ent_make(extra.mk, (uint32_t)extra.mk_len, extra.mv, (uint32_t)extra.mv_len, PG_NONE);
    bpg_init(pgbuf2, 0, 7, 0);
    int k = bpg_split(pgbuf, pgbuf2, ents, ne + 1, append ? ne : BPG_SPLIT_BYTES, true, sep, &sk, &sv);
    assert_int_equal(k, append ? ne : k);
    assert_page_is(pgbuf, model, k);
    assert_page_is(pgbuf2, model + k, n - k);
    assert_int_equal(sv, BT_NOVAL);
    assert_true(sk <= 6 + 8);
    assert_true(bt_keycmp(model[k - 1].mk, (size_t)model[k - 1].mk_len, sep, sk) < 0);
    assert_true(bt_keycmp(sep, sk, model[k].mk, (size_t)model[k].mk_len) <= 0);
    if (!append) {
      int l = bpg_used(pgbuf), r = bpg_used(pgbuf2);
      assert_true(l > BT_AREA / 3 && r > BT_AREA / 3);
    }
    /* Merge: both pages' entries rebuilt into one (they fit after
     * deleting most of the right page). */
    if (append)
      continue;
    while (bpg_n(pgbuf2) > 3)
      bpg_delete(pgbuf2, bpg_n(pgbuf2) - 1);
    int nl = bpg_ents(pgbuf, ents);
    int nr = bpg_ents(pgbuf2, ents + nl);
    assert_true(bpg_build_size(ents, nl + nr, true) <= BT_AREA);
    bpg_init(pgbuf3, 0, 7, 0);
    bpg_build(pgbuf3, ents, nl + nr);
    assert_page_is(pgbuf3, model, nl + nr);
  }
}

/* Inner pages: the child for a key is the number of separators <= key. */
static void test_inner_search(void **state)
{
  (void)state;
  char keys[100][16];
  bpg_ent_t ents[100];
  bpg_init(pgbuf, 1, 7, 0);
  bpg_hdr(pgbuf)->bh_leftmost = 1000;
  for (int i = 0; i < 100; i++) {
    snprintf(keys[i], sizeof keys[i], "sep%03d", i * 10);
    ents[i] = bpg_ent_make(keys[i], (uint32_t)strlen(keys[i]), NULL, BT_NOVAL, (uint32_t)(1001 + i));
  }
  assert_true(bpg_build_size(ents, 100, false) <= BT_AREA);
  bpg_build(pgbuf, ents, 100);
  assert_int_equal(bpg_chdr(pgbuf)->bh_plen, 3);
  for (int v = -5; v < 1000; v += 3) {
    char k[16];
    bt_target_t t;
    if (v < 0)
      snprintf(k, sizeof k, "sea");
    else
      snprintf(k, sizeof k, "sep%03d", v);
    bt_target_key(&t, k, strlen(k));
    int c = bpg_search_inner(pgbuf, &t, 0);
    int expect = v < 0 ? 0 : v / 10 + 1;
    assert_int_equal(c, expect);
    assert_int_equal(bpg_child(pgbuf, c), (pg_no_t)(1000 + expect));
  }
  bt_target_t t;
  bt_target_key(&t, "z", 1);
  assert_int_equal(bpg_search_inner(pgbuf, &t, 0), 100);
  t.t_inf = -1;
  assert_int_equal(bpg_search_inner(pgbuf, &t, 0), 0);
  /* Separator insert into the middle and deletion. */
  bpg_ent_t mid = bpg_ent_make("sep005", 6, NULL, BT_NOVAL, 5555);
  assert_true(bpg_insert(pgbuf, 1, &mid));
  bt_target_key(&t, "sep007", 6);
  assert_int_equal(bpg_child(pgbuf, bpg_search_inner(pgbuf, &t, 0)), 5555u);
  bpg_delete(pgbuf, 1);
  assert_int_equal(bpg_child(pgbuf, bpg_search_inner(pgbuf, &t, 0)), 1001u);
}

/* Non-unique leaves order by (key, value); a key-only target finds the
 * first entry of the key; a split among duplicates gets a value part. */
static void test_nonunique_order(void **state)
{
  (void)state;
  bpg_ent_t ents[BPG_MAX_ENTS + 1];
  uint8_t sep[BT_MAX_ROW];
  uint32_t sk, sv;
  char vals[600][8];
  bpg_init(pgbuf, 0, 7, 0);
  int n = 0;
  for (int i = 0; i < 600; i++) {
    snprintf(vals[i], sizeof vals[i], "%05d", (i * 37) % 600);
    bt_target_t t;
    bool eq;
    bt_target_entry(&t, &(bt_tree_t){ .t_unique = false }, "dup", 3, vals[i], 5);
    int pos = bpg_search_leaf(pgbuf, &t, false, 0, false, &eq);
    assert_false(eq);
    bpg_ent_t e = bpg_ent_make("dup", 3, vals[i], 5, PG_NONE);
    if (!bpg_insert(pgbuf, pos, &e))
      break;
    n++;
  }
  assert_true(n > 300);
  for (int i = 1; i < n; i++) {
    int a, b;
    const uint8_t *va = bpg_val(pgbuf, i - 1, &a), *vb = bpg_val(pgbuf, i, &b);
    assert_true(memcmp(va, vb, 5) < 0);
  }
  bt_target_t t;
  bool eq;
  bt_target_key(&t, "dup", 3);
  assert_int_equal(bpg_search_leaf(pgbuf, &t, false, 0, false, &eq), 0);
  assert_true(eq);
  int ne = bpg_ents(pgbuf, ents);
  bpg_init(pgbuf2, 0, 7, 0);
  int k = bpg_split(pgbuf, pgbuf2, ents, ne, BPG_SPLIT_BYTES, false, sep, &sk, &sv);
  assert_int_equal(sk, 3);
  assert_true(sv != BT_NOVAL && sv >= 1);
  int lv, rv;
  const uint8_t *l = bpg_val(pgbuf, k - 1, &lv), *r = bpg_val(pgbuf2, 0, &rv);
  assert_true(bt_keycmp(l, (size_t)lv, sep + sk, sv) < 0);
  assert_true(bt_keycmp(sep + sk, sv, r, (size_t)rv) <= 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_insert_search_prefix),
    cmocka_unit_test(test_delete_compact),
    cmocka_unit_test(test_split_merge),
    cmocka_unit_test(test_inner_search),
    cmocka_unit_test(test_nonunique_order),
  };
  return cmocka_run_group_tests_name("bt_page", tests, NULL, NULL);
}
