/* The row store, hash index and row sets under a memory budget: every
 * growth step is fallible, a refusal is 53200 in the error and the
 * structure keeps the rows added before (exec_rows.c, exec README
 * invariant 9). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "exec/exec_int.h"

/* One text column of n rows "<tag> row <i>" padded with x to 100 bytes. */
static batch_t *text_batch(arena_t *a, int tag, int n)
{
  ty_t t = ty_plain(TY_TEXT);
  batch_t *b = batch_create(a, 1, &t, n, NULL);
  for (int i = 0; i < n; i++) {
    char *s = arena_alloc(a, 101);
    memset(s, 'x', 100);
    int k = snprintf(s, 101, "%d row %d", tag, i);
    s[k] = 'x';
    datum_t d = {.d_null = false};
    d.d_str.s_ptr = s;
    d.d_str.s_len = 100;
    vec_set(&b->b_cols[0], i, &d);
  }
  b->b_n = n;
  return b;
}

static void test_rows_append_refused_past_budget(void **state)
{
  (void)state;
  arena_t *src = arena_create(NULL, "input");
  batch_t *in = text_batch(src, 0, 1000);
  mem_budget_t b;
  mem_budget_init(&b, 1 << 20);
  arena_t *a = arena_create(NULL, "rows");
  arena_set_budget(a, &b);
  rstore_t rs;
  ty_t t = ty_plain(TY_TEXT);
  rs_init(&rs, a, 1, &t);
  err_t e;
  memset(&e, 0, sizeof e);
  int64_t added = 0, id = 0;
  for (int round = 0; round < 100 && id >= 0; round++)
    for (int i = 0; i < 1000 && id >= 0; i++)
      if ((id = rs_append_row(&rs, in, i, &e)) >= 0)
        added++;
  assert_true(id < 0);
  assert_string_equal(e.er_sqlstate, "53200");
  /* refused before the limit was passed, and what is stored is intact */
  assert_true(atomic_load(&b.mb_used) <= (int64_t)1 << 20);
  assert_true(added > 1000 && added == rs.rs_n);
  datum_t d;
  rs_get(&rs, 1001, 0, &d);
  assert_int_equal(d.d_str.s_len, 100);
  assert_memory_equal(d.d_str.s_ptr, "0 row 1x", 8);
  arena_destroy(a);
  assert_int_equal(atomic_load(&b.mb_used), 0);
  arena_destroy(src);
}

static void test_hash_doubling_refused_and_old_table_freed(void **state)
{
  (void)state;
  mem_budget_t b;
  mem_budget_init(&b, 8 << 20);
  arena_t *a = arena_create(NULL, "hash");
  arena_set_budget(a, &b);
  rhash_t h;
  err_t e;
  memset(&e, 0, sizeof e);
  assert_int_equal(rh_init(&h, a, 64, &e), CZ_OK);
  int64_t n = 0;
  int64_t peak_before = 0;
  while (rh_insert(&h, hash64_int((uint64_t)n), n, &e) == CZ_OK) {
    n++;
    peak_before = atomic_load(&b.mb_used);
  }
  assert_string_equal(e.er_sqlstate, "53200");
  assert_true(atomic_load(&b.mb_used) <= (int64_t)8 << 20);
  /* 16 bytes a slot, half full, and 8 a row for the chains: the old
   * arrays went back as they doubled, so the budget held (nearly) only the
   * last ones when the next doubling was refused. */
  assert_true(peak_before <= (int64_t)h.rh_cap * 16 + h.rh_next_cap * 8 + (64 << 10));
  /* every row inserted before is found */
  for (int64_t r = 0; r < n; r += 997) {
    int64_t pos = -1, row = -1;
    bool found = false;
    while (rh_next(&h, hash64_int((uint64_t)r), &pos, &row))
      found |= row == r;
    assert_true(found);
  }
  arena_destroy(a);
}

/* Many rows of one hash make one chain (one slot), each found once. */
static void test_hash_chains_rows_of_one_hash(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "hash");
  rhash_t h;
  err_t e;
  memset(&e, 0, sizeof e);
  assert_int_equal(rh_init(&h, a, 16, &e), CZ_OK);
  for (int64_t r = 0; r < 20000; r++)
    assert_int_equal(rh_insert(&h, hash64_int((uint64_t)(r % 7)), r, &e), CZ_OK);
  assert_int_equal(h.rh_used, 7);
  assert_int_equal(h.rh_n, 20000);
  for (int k = 0; k < 7; k++) {
    int64_t pos = -1, row, n = 0, sum = 0;
    while (rh_next(&h, hash64_int((uint64_t)k), &pos, &row)) {
      assert_int_equal(row % 7, k);
      n++;
      sum += row;
    }
    assert_false(rh_next(&h, hash64_int((uint64_t)k), &pos, &row)); /* stays exhausted */
    int64_t want_n = (20000 - k + 6) / 7;
    assert_int_equal(n, want_n);
    assert_int_equal(sum, k * want_n + 7 * want_n * (want_n - 1) / 2);
  }
  int64_t pos = -1, row;
  assert_false(rh_next(&h, hash64_int(99), &pos, &row));
  arena_destroy(a);
}

/* rs_append_rows copies the selected rows a column at a time (strings
 * into the store, NULLs kept) and rs_gather / vec_gather read them back;
 * rows_hash gives row_hash's values over any columns. */
static void test_rows_columnwise_append_and_gather(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "rows");
  ty_t types[3] = {ty_plain(TY_INT8), ty_plain(TY_TEXT), ty_plain(TY_NUMERIC)};
  int n = 3000;
  batch_t *in = batch_create(a, 3, types, n, NULL);
  for (int i = 0; i < n; i++) {
    datum_t d = {.d_null = i % 5 == 0, .d_i64 = i * 3};
    vec_set(&in->b_cols[0], i, &d);
    char *s = arena_sprintf(a, "s%d", i);
    datum_t t = {.d_null = i % 7 == 0};
    t.d_str.s_ptr = s;
    t.d_str.s_len = (uint32_t)strlen(s);
    vec_set(&in->b_cols[1], i, &t);
    datum_t m = {.d_null = false, .d_num = {.n_val = i, .n_scale = 2}};
    vec_set(&in->b_cols[2], i, &m);
  }
  in->b_n = n;
  int *sel = arena_alloc(a, sizeof(int) * (size_t)n);
  int ns = 0;
  for (int i = 1; i < n; i += 2)
    sel[ns++] = i;
  rstore_t rs;
  rs_init(&rs, a, 3, types);
  err_t e;
  memset(&e, 0, sizeof e);
  assert_int_equal(rs_append_rows(&rs, in, NULL, 10, &e), 0);
  assert_int_equal(rs_append_rows(&rs, in, sel, ns, &e), 10);
  assert_int_equal(rs.rs_n, 10 + ns);
  int64_t *rows = arena_alloc(a, sizeof(int64_t) * (size_t)rs.rs_n);
  for (int64_t r = 0; r < rs.rs_n; r++)
    rows[r] = rs.rs_n - 1 - r; /* backwards, across chunks */
  batch_t *out = batch_create(a, 3, types, (int)rs.rs_n, NULL);
  for (int c = 0; c < 3; c++)
    rs_gather(&rs, c, rows, (int)rs.rs_n, &out->b_cols[c], 0);
  for (int64_t r = 0; r < rs.rs_n; r++) {
    int64_t stored = rows[r];
    int src = stored < 10 ? (int)stored : sel[stored - 10];
    for (int c = 0; c < 3; c++) {
      datum_t x, y;
      vec_get(&in->b_cols[c], src, &x);
      vec_get(&out->b_cols[c], (int)r, &y);
      assert_int_equal(x.d_null, y.d_null);
      if (!x.d_null)
        assert_int_equal(datum_cmp(ty_phys(types[c].t_id), &x, &y), 0);
    }
    /* the text was copied into the store */
    if (!out->b_cols[1].v_null[r])
      assert_ptr_not_equal(out->b_cols[1].v_str[r].s_ptr, in->b_cols[1].v_str[src].s_ptr);
  }
  int cols[2] = {2, 0};
  uint64_t *h = arena_alloc(a, sizeof(uint64_t) * (size_t)ns);
  rows_hash(in, 2, cols, sel, ns, h);
  for (int j = 0; j < ns; j++)
    assert_true(h[j] == row_hash(in, sel[j], 2, cols));
  arena_destroy(a);
}

static void test_rset_add_refused(void **state)
{
  (void)state;
  arena_t *src = arena_create(NULL, "input");
  mem_budget_t b;
  mem_budget_init(&b, 1 << 20);
  arena_t *a = arena_create(NULL, "set");
  arena_set_budget(a, &b);
  rset_t s;
  err_t e;
  memset(&e, 0, sizeof e);
  ty_t t = ty_plain(TY_TEXT);
  assert_int_equal(rset_init(&s, a, 1, &t, &e), CZ_OK);
  bool added;
  int64_t id = 0;
  int tag = 0;
  for (; id >= 0 && tag < 1000; tag++) {
    batch_t *in = text_batch(src, tag, 100);
    for (int i = 0; i < 100 && id >= 0; i++)
      if ((id = rset_add(&s, in, i, &added, &e)) >= 0) {
        assert_true(added);
        s.rt_counts[id]++;
      }
  }
  assert_true(id < 0);
  assert_string_equal(e.er_sqlstate, "53200");
  assert_true(tag > 2);
  /* the rows added before are all there, counted once */
  batch_t *first = text_batch(src, 0, 100);
  for (int i = 0; i < 100; i++) {
    int64_t f = rset_find(&s, first, i);
    assert_true(f >= 0);
    assert_int_equal(s.rt_counts[f], 1);
    assert_int_equal(rset_add(&s, first, i, &added, &e), f);
    assert_false(added);
  }
  arena_destroy(a);
  arena_destroy(src);
}

/* The parallel build's insert (rh_insert_within): ranges of a table made
 * for all rows filled one after the other, a probe that would leave its
 * range refused and inserted after with rh_insert; every row is found
 * under its hash, chains of equal hashes included. */
static void test_hash_ranges_with_overflow(void **state)
{
  (void)state;
  arena_t *a = arena_create(NULL, "t");
  rhash_t h;
  err_t e;
  enum { N = 3000 };
  assert_int_equal(rh_init(&h, a, N, &e), CZ_OK);
  int64_t half = h.rh_cap / 2, used = 0, over[N], nover = 0;
  uint64_t hv[N];
  for (int r = 0; r < N; r++)  /* many homes just below the middle: overflow there */
    hv[r] = r % 3 == 0 ? (uint64_t)(half - 1 - r % 40) + ((uint64_t)r << 32)
                       : hash64_int((uint64_t)(r % 1000));
  for (int part = 0; part < 2; part++) {
    int64_t lo = part ? half : 0, hi = part ? h.rh_cap : half;
    for (int r = 0; r < N; r++) {
      int64_t home = (int64_t)(hv[r] & (uint64_t)(h.rh_cap - 1));
      if (home >= lo && home < hi && !rh_insert_within(&h, hv[r], r, hi, &used))
        over[nover++] = r;
    }
  }
  assert_true(nover > 0);
  h.rh_used = used;
  h.rh_n = N - nover;
  for (int i = 0; i < nover; i++)
    assert_int_equal(rh_insert(&h, hv[over[i]], over[i], &e), CZ_OK);
  assert_int_equal(h.rh_n, N);
  for (int r = 0; r < N; r++) {
    int64_t pos = -1, row;
    int found = 0, same = 0;
    while (rh_next(&h, hv[r], &pos, &row)) {
      found += row == r;
      same++;
      assert_int_equal(hv[row], hv[r]);
    }
    assert_int_equal(found, 1);
    assert_true(same >= 1);
  }
  arena_destroy(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_append_refused_past_budget),
      cmocka_unit_test(test_hash_doubling_refused_and_old_table_freed),
      cmocka_unit_test(test_hash_chains_rows_of_one_hash),
      cmocka_unit_test(test_hash_ranges_with_overflow),
      cmocka_unit_test(test_rows_columnwise_append_and_gather),
      cmocka_unit_test(test_rset_add_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
