/* test_bt_col — column trees (btree/README.md, "Column leaves"): column
 * rows round trip; sorted batch loads build segments that scan, look up
 * and check back to the model with random, sorted, duplicate-heavy and
 * NULL-heavy values; random single-row inserts, updates and deletes
 * (splits, merges, emptied segments) keep every invariant; pushed
 * predicates agree with the decoded values and skip segments by min/max;
 * key ranges; a tree many times the buffer pool; contents survive close
 * and reopen; a batch with a duplicate stops at it; drop frees the runs.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bt_testlib.h"
#include "cz_test.h"

#define NCOL 5
enum { M_RANDOM, M_SORTED, M_DUPS, M_NULLS };

static uint64_t mix(uint64_t x)
{
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

static const ty_phys_t kinds[NCOL] = {TP_I64, TP_STR, TP_F64, TP_BOOL, TP_NUM};

/* The values of (id, version) in a mode; strings in sbuf (64 bytes). */
static void row_vals(uint32_t id, uint32_t ver, int mode, datum_t *v, char *sbuf)
{
  uint64_t h = mix(((uint64_t)id << 20) ^ ver);
  memset(v, 0, sizeof *v * NCOL);
  switch (mode) {
  case M_SORTED: v[0].d_i64 = (int64_t)id * 3 + ver; break;
  case M_DUPS: v[0].d_i64 = (int64_t)(h % 4); break;
  default: v[0].d_i64 = (int64_t)h; break;
  }
  int sl = mode == M_DUPS ? snprintf(sbuf, 64, "cat%u", (unsigned)(h % 3))
           : mode == M_SORTED ? snprintf(sbuf, 64, "s%08u.%u", id, ver)
                              : snprintf(sbuf, 64, "r%llx-%u", (unsigned long long)(h >> (h % 40)), ver);
  v[1].d_str.s_ptr = sbuf;
  v[1].d_str.s_len = (uint32_t)sl;
  v[2].d_f64 = mode == M_DUPS ? 1.5 : (double)(h % 100000) / 7.0;
  v[3].d_bool = (uint8_t)((h >> 7) & 1);
  v[4].d_num.n_val = (__int128)(h % 1000000) - 500000;
  v[4].d_num.n_scale = 2;
  if (mode == M_NULLS)
    for (int c = 0; c < NCOL; c++)
      v[c].d_null = ((h >> (c * 3)) % 8) != 0; /* 7 in 8 NULL */
}

static size_t make_row(uint32_t id, uint32_t ver, int mode, uint8_t *buf, size_t cap)
{
  datum_t v[NCOL];
  char s[64];
  err_t e;
  size_t len;
  row_vals(id, ver, mode, v, s);
  assert_int_equal(bt_crow_build(kinds, v, NCOL, buf, cap, &len, &e), CZ_OK);
  return len;
}

static bt_tree_t *new_col_tree(bt_env_t *env)
{
  err_t e;
  pg_no_t root;
  bt_tree_t *t;
  err_clear(&e);
  assert_int_equal(bt_create(env->be_bp, BT_UNIQUE | BT_COLUMN, &root, &e), CZ_OK);
  assert_int_equal(bt_open(env->be_bp, root, &t, &e), CZ_OK);
  return t;
}

static void tkey(uint32_t id, uint8_t *k)
{
  k[0] = (uint8_t)(id >> 24);
  k[1] = (uint8_t)(id >> 16);
  k[2] = (uint8_t)(id >> 8);
  k[3] = (uint8_t)id;
}

static void check_ok(bt_tree_t *t, uint64_t rows)
{
  err_t e;
  bt_check_t chk;
  err_clear(&e);
  if (bt_check(t, &chk, &e) != CZ_OK)
    fail_msg("bt_check: %s %s", e.er_sqlstate, e.er_msg);
  assert_int_equal(chk.bc_entries, rows);
  if (rows)
    assert_true(chk.bc_segments >= (rows + 4095) / 4096);
}

static bool datum_same(ty_phys_t k, const datum_t *a, const datum_t *b)
{
  if (a->d_null || b->d_null)
    return a->d_null == b->d_null;
  switch (k) {
  case TP_STR: return a->d_str.s_len == b->d_str.s_len && memcmp(a->d_str.s_ptr, b->d_str.s_ptr, a->d_str.s_len) == 0;
  case TP_F64: return memcmp(&a->d_f64, &b->d_f64, 8) == 0;
  case TP_BOOL: return a->d_bool == b->d_bool;
  case TP_NUM: return a->d_num.n_val == b->d_num.n_val && a->d_num.n_scale == b->d_num.n_scale;
  default: return a->d_i64 == b->d_i64;
  }
}

/* A full scan of every column equals the model, row for row. */
static void verify_scan(bt_tree_t *t, const bt_model_t *m, int mode)
{
  err_t e;
  int cols[NCOL + 1] = {0, 1, 2, 3, 4, 5};
  bt_col_scan_t *s;
  arena_t *a = arena_create(NULL, "verify");
  vec_t out[NCOL + 1];
  assert_int_equal(vec_init(&out[0], a, ty_plain(TY_BYTEA), 700, &e), CZ_OK);
  assert_int_equal(vec_init(&out[1], a, ty_plain(TY_INT8), 700, &e), CZ_OK);
  assert_int_equal(vec_init(&out[2], a, ty_plain(TY_BYTEA), 700, &e), CZ_OK);
  assert_int_equal(vec_init(&out[3], a, ty_plain(TY_FLOAT8), 700, &e), CZ_OK);
  assert_int_equal(vec_init(&out[4], a, ty_plain(TY_BOOL), 700, &e), CZ_OK);
  assert_int_equal(vec_init(&out[5], a, ty_plain(TY_NUMERIC), 700, &e), CZ_OK);
  assert_int_equal(bt_col_scan_open(t, NULL, 0, NULL, 0, cols, NCOL + 1, NULL, 0, &s, &e), CZ_OK);
  uint32_t id = 0;
  uint64_t seen = 0;
  int n, rc;
  while ((rc = bt_col_scan_next(s, out, 700, &n, &e)) == CZ_OK) {
    for (int r = 0; r < n; r++) {
      while (id < m->bm_n && !m->bm_present[id])
        id++;
      assert_true(id < m->bm_n);
      uint8_t k[4];
      tkey(id, k);
      assert_false(out[0].v_null[r]);
      assert_int_equal(out[0].v_str[r].s_len, 4);
      assert_memory_equal(out[0].v_str[r].s_ptr, k, 4);
      datum_t want[NCOL], got;
      char sb[64];
      row_vals(id, m->bm_version[id], mode, want, sb);
      for (int c = 0; c < NCOL; c++) {
        vec_get(&out[c + 1], r, &got);
        if (!datum_same(kinds[c], &want[c], &got))
          fail_msg("id %u column %d differs", id, c + 1);
      }
      id++;
      seen++;
    }
  }
  if (rc != BT_END)
    fail_msg("scan: %s %s", e.er_sqlstate, e.er_msg);
  assert_int_equal(seen, m->bm_count);
  bt_col_scan_close(s);
  arena_destroy(a);
}

/* Lookups of every tenth id (present or not) agree with the model, one by
 * one and as a sorted batch. */
typedef struct look_s {
  const bt_model_t *lk_m;
  const uint32_t *lk_ids;
  int lk_mode;
  int lk_calls;
} look_t;

static void look_cb(void *ctx, int i, bool found, const void *val, size_t len)
{
  look_t *l = ctx;
  uint32_t id = l->lk_ids[i];
  l->lk_calls++;
  assert_int_equal(found, l->lk_m->bm_present[id]);
  if (found) {
    uint8_t want[256];
    size_t wl = make_row(id, l->lk_m->bm_version[id], l->lk_mode, want, sizeof want);
    assert_int_equal(len, wl);
    assert_memory_equal(val, want, wl);
  }
}

static void verify_lookups(bt_tree_t *t, const bt_model_t *m, int mode)
{
  err_t e;
  int n = 0;
  uint32_t *ids = malloc(sizeof *ids * (m->bm_n / 10 + 2));
  bt_key_t *keys = malloc(sizeof *keys * (m->bm_n / 10 + 2));
  uint8_t *kb = malloc(4 * (m->bm_n / 10 + 2));
  for (uint32_t id = 0; id < m->bm_n; id += 10) {
    uint8_t val[256];
    size_t vl;
    tkey(id, kb + 4 * n);
    int rc = bt_lookup(t, kb + 4 * n, 4, val, sizeof val, &vl, &e);
    if (m->bm_present[id]) {
      assert_int_equal(rc, CZ_OK);
      uint8_t want[256];
      size_t wl = make_row(id, m->bm_version[id], mode, want, sizeof want);
      assert_int_equal(vl, wl);
      assert_memory_equal(val, want, wl);
    } else {
      assert_int_equal(rc, BT_NOT_FOUND);
    }
    ids[n] = id;
    keys[n].k_data = kb + 4 * n;
    keys[n].k_len = 4;
    n++;
  }
  look_t l = {m, ids, mode, 0};
  assert_int_equal(bt_lookup_batch(t, keys, n, look_cb, &l, &e), CZ_OK);
  assert_int_equal(l.lk_calls, n);
  free(ids);
  free(keys);
  free(kb);
}

/* bt_seek / bt_next from the start, from id `from`, and from the start
 * with bt_cursor_release every 97 rows (the cursor holds the segment's
 * leaf between calls and finds its place again by key after a release),
 * then backward from the end and from `from` (with releases): (key,
 * column row) equal the model's. */
static void verify_cursor(bt_tree_t *t, const bt_model_t *m, int mode, uint32_t from)
{
  err_t e;
  bt_cursor_t *c;
  assert_int_equal(bt_cursor_open(t, &c, &e), CZ_OK);
  for (int pass = 0; pass < 3; pass++) {
    uint8_t sk[4];
    uint32_t id = pass == 1 ? from : 0;
    tkey(id, sk);
    assert_int_equal(bt_seek(c, pass == 1 ? sk : NULL, pass == 1 ? 4 : 0, BT_FORWARD, &e), CZ_OK);
    const void *k, *v;
    size_t kl, vl;
    int rc;
    uint64_t seen = 0;
    while ((rc = bt_next(c, &k, &kl, &v, &vl, &e)) == CZ_OK) {
      while (id < m->bm_n && !m->bm_present[id])
        id++;
      assert_true(id < m->bm_n);
      uint8_t want[256], wk[4];
      tkey(id, wk);
      assert_int_equal(kl, 4);
      assert_memory_equal(k, wk, 4);
      size_t wl = make_row(id, m->bm_version[id], mode, want, sizeof want);
      assert_int_equal(vl, wl);
      assert_memory_equal(v, want, wl);
      id++;
      seen++;
      if (pass == 2 && seen % 97 == 0)
        bt_cursor_release(c);
    }
    if (rc != BT_END)
      fail_msg("bt_next: %s %s", e.er_sqlstate, e.er_msg);
    if (pass != 1)
      assert_int_equal(seen, m->bm_count);
  }
  /* backward: from the end, and from id `from` down with releases */
  for (int pass = 0; pass < 2; pass++) {
    uint8_t sk[4];
    tkey(from, sk);
    assert_int_equal(bt_seek(c, pass ? sk : NULL, pass ? 4 : 0, BT_BACKWARD, &e), CZ_OK);
    int64_t id = pass ? (int64_t)from : (int64_t)m->bm_n - 1;
    const void *k, *v;
    size_t kl, vl;
    int rc;
    uint64_t seen = 0;
    while ((rc = bt_next(c, &k, &kl, &v, &vl, &e)) == CZ_OK) {
      while (id >= 0 && !m->bm_present[id])
        id--;
      assert_true(id >= 0);
      uint8_t want[256], wk[4];
      tkey((uint32_t)id, wk);
      assert_int_equal(kl, 4);
      assert_memory_equal(k, wk, 4);
      size_t wl = make_row((uint32_t)id, m->bm_version[id], mode, want, sizeof want);
      assert_int_equal(vl, wl);
      assert_memory_equal(v, want, wl);
      id--;
      seen++;
      if (pass && seen % 89 == 0)
        bt_cursor_release(c);
    }
    if (rc != BT_END)
      fail_msg("bt_next backward: %s %s", e.er_sqlstate, e.er_msg);
    while (id >= 0 && !m->bm_present[id])
      id--;
    assert_true(id < 0);
    if (!pass)
      assert_int_equal(seen, m->bm_count);
  }
  bt_cursor_close(c);
}

static void test_crow(void **state)
{
  (void)state;
  uint8_t buf[512];
  for (int mode = M_RANDOM; mode <= M_NULLS; mode++)
    for (uint32_t id = 0; id < 200; id++) {
      datum_t v[NCOL], got[NCOL];
      ty_phys_t k[NCOL];
      char s[64];
      err_t e;
      int n;
      row_vals(id, 1, mode, v, s);
      size_t len = make_row(id, 1, mode, buf, sizeof buf);
      assert_int_equal(bt_crow_size(kinds, v, NCOL), len);
      assert_int_equal(bt_crow_parse(buf, len, NCOL, k, got, &n, &e), CZ_OK);
      assert_int_equal(n, NCOL);
      for (int c = 0; c < NCOL; c++) {
        assert_int_equal(k[c], kinds[c]);
        assert_true(datum_same(kinds[c], &v[c], &got[c]));
      }
      /* Cut short or with a byte too many: corrupt, never a crash. */
      assert_int_equal(bt_crow_parse(buf, len - 1, NCOL, k, got, &n, &e), CZ_ERR);
      assert_string_equal(e.er_sqlstate, "XX001");
      assert_int_equal(bt_crow_parse(buf, len + 1, NCOL, k, got, &n, &e), CZ_ERR);
    }
  ty_phys_t iv = TP_IV;
  datum_t d;
  memset(&d, 0, sizeof d);
  size_t len;
  err_t e;
  assert_int_equal(bt_crow_build(&iv, &d, 1, buf, sizeof buf, &len, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "0A000");
}

/* Loads ids [0, n) in sorted batches of `batch`. */
static void load(bt_tree_t *t, bt_model_t *m, uint32_t n, int batch, int mode)
{
  bt_row_t *rows = malloc(sizeof *rows * (size_t)batch);
  uint8_t *kb = malloc(4 * (size_t)batch), *vb = malloc(128 * (size_t)batch);
  for (uint32_t at = 0; at < n;) {
    int k = 0;
    for (; k < batch && at < n; k++, at++) {
      tkey(at, kb + 4 * k);
      rows[k].r_key = kb + 4 * k;
      rows[k].r_key_len = 4;
      rows[k].r_val = vb + 128 * k;
      rows[k].r_val_len = (uint32_t)make_row(at, 0, mode, vb + 128 * k, 128);
      m->bm_present[at] = 1;
      m->bm_version[at] = 0;
      m->bm_count++;
    }
    err_t e;
    int done;
    if (bt_insert_batch(t, rows, k, &done, &e) != CZ_OK)
      fail_msg("bt_insert_batch: %s %s", e.er_sqlstate, e.er_msg);
    assert_int_equal(done, k);
  }
  free(rows);
  free(kb);
  free(vb);
}

static void test_load_modes(void **state)
{
  (void)state;
  for (int mode = M_RANDOM; mode <= M_NULLS; mode++) {
    bt_env_t env;
    char name[32];
    snprintf(name, sizeof name, "col_load_%d.db", mode);
    bt_env_open(&env, name, 512, true);
    bt_tree_t *t = new_col_tree(&env);
    bt_model_t m;
    bt_model_init(&m, 20000);
    /* One big batch, then batches that top up the last segment. */
    load(t, &m, 12000, 12000, mode);
    check_ok(t, 12000);
    for (uint32_t at = 12000; at < 20000; at += 1000) {
      bt_row_t rows[1000];
      static uint8_t kb[4000], vb[128000];
      for (int i = 0; i < 1000; i++) {
        tkey(at + (uint32_t)i, kb + 4 * i);
        rows[i].r_key = kb + 4 * i;
        rows[i].r_key_len = 4;
        rows[i].r_val = vb + 128 * i;
        rows[i].r_val_len = (uint32_t)make_row(at + (uint32_t)i, 0, mode, vb + 128 * i, 128);
        m.bm_present[at + i] = 1;
        m.bm_count++;
      }
      err_t e;
      if (bt_insert_batch(t, rows, 1000, NULL, &e) != CZ_OK)
        fail_msg("batch: %s %s", e.er_sqlstate, e.er_msg);
    }
    check_ok(t, 20000);
    err_t e;
    bt_check_t chk;
    assert_int_equal(bt_check(t, &chk, &e), CZ_OK);
    assert_int_equal(chk.bc_segments, 5); /* appends fill segments: 4096 x 4 + 3616 */
    verify_scan(t, &m, mode);
    verify_lookups(t, &m, mode);
    verify_cursor(t, &m, mode, 8191);
    bt_close(t);
    bt_model_free(&m);
    bt_env_close(&env);
  }
}

/* Random single-row inserts, updates and deletes against the model. */
static void random_ops(int mode, uint32_t n, int ops, int n_buffers, bool delete_all)
{
  bt_env_t env;
  char name[32];
  snprintf(name, sizeof name, "col_ops_%d.db", mode);
  bt_env_open(&env, name, n_buffers, true);
  bt_tree_t *t = new_col_tree(&env);
  bt_model_t m;
  bt_model_init(&m, n);
  load(t, &m, n / 2, 4000, mode);
  /* the loaded half: ids [0, n/2); ops roam over [0, n) */
  uint64_t seed = cz_test_seed() + (uint64_t)mode;
  for (int i = 0; i < ops; i++) {
    seed = mix(seed + 0x9e3779b97f4a7c15ULL);
    uint32_t id = (uint32_t)(seed % n);
    int what = (int)((seed >> 32) % 3);
    uint8_t k[4], v[128], old[256];
    size_t ol;
    err_t e;
    tkey(id, k);
    if (what == 0) {
      size_t vl = make_row(id, m.bm_version[id] + 1, mode, v, sizeof v);
      int rc = bt_insert(t, k, 4, v, vl, &e);
      if (m.bm_present[id]) {
        assert_int_equal(rc, CZ_ERR);
        assert_string_equal(e.er_sqlstate, "23505");
      } else {
        if (rc != CZ_OK)
          fail_msg("insert %u: %s %s", id, e.er_sqlstate, e.er_msg);
        m.bm_present[id] = 1;
        m.bm_version[id]++;
        m.bm_count++;
      }
    } else if (what == 1) {
      size_t vl = make_row(id, m.bm_version[id] + 1, mode, v, sizeof v);
      int rc = bt_update(t, k, 4, v, vl, old, sizeof old, &ol, &e);
      if (m.bm_present[id]) {
        if (rc != CZ_OK)
          fail_msg("update %u: %s %s", id, e.er_sqlstate, e.er_msg);
        uint8_t want[256];
        size_t wl = make_row(id, m.bm_version[id], mode, want, sizeof want);
        assert_int_equal(ol, wl);
        assert_memory_equal(old, want, wl);
        m.bm_version[id]++;
      } else {
        assert_int_equal(rc, BT_NOT_FOUND);
      }
    } else {
      int rc = bt_delete(t, k, 4, NULL, 0, old, sizeof old, &ol, &e);
      if (m.bm_present[id]) {
        if (rc != CZ_OK)
          fail_msg("delete %u: %s %s", id, e.er_sqlstate, e.er_msg);
        uint8_t want[256];
        size_t wl = make_row(id, m.bm_version[id], mode, want, sizeof want);
        assert_int_equal(ol, wl);
        assert_memory_equal(old, want, wl);
        m.bm_present[id] = 0;
        m.bm_count--;
      } else {
        assert_int_equal(rc, BT_NOT_FOUND);
      }
    }
    if ((i + 1) % (ops / 4) == 0) {
      check_ok(t, m.bm_count);
      verify_scan(t, &m, mode);
    }
  }
  verify_lookups(t, &m, mode);
  verify_cursor(t, &m, mode, n / 3);
  /* Delete everything: segments merge and empty ones go. */
  for (uint32_t id = 0; delete_all && id < n; id++) {
    if (!m.bm_present[id])
      continue;
    uint8_t k[4];
    err_t e;
    tkey(id, k);
    if (bt_delete(t, k, 4, NULL, 0, NULL, 0, NULL, &e) != CZ_OK)
      fail_msg("delete %u: %s %s", id, e.er_sqlstate, e.er_msg);
    m.bm_present[id] = 0;
    m.bm_count--;
    if (id % 2500 == 0)
      check_ok(t, m.bm_count);
  }
  check_ok(t, m.bm_count);
  verify_scan(t, &m, mode);
  bt_close(t);
  bt_model_free(&m);
  bt_env_close(&env);
}

static void test_random_ops(void **state)
{
  (void)state;
  random_ops(M_RANDOM, 10000, 800, 512, true);
  random_ops(M_NULLS, 10000, 400, 512, false);
  random_ops(M_DUPS, 10000, 400, 512, false);
}

/* Ascending single-row inserts fill segments (no half-empty ones). */
static void test_ascending_inserts(void **state)
{
  (void)state;
  bt_env_t env;
  bt_env_open(&env, "col_asc.db", 512, true);
  bt_tree_t *t = new_col_tree(&env);
  bt_model_t m;
  bt_model_init(&m, 5000);
  for (uint32_t id = 0; id < 5000; id++) {
    uint8_t k[4], v[128];
    err_t e;
    tkey(id, k);
    size_t vl = make_row(id, 0, M_SORTED, v, sizeof v);
    if (bt_insert(t, k, 4, v, vl, &e) != CZ_OK)
      fail_msg("insert %u: %s %s", id, e.er_sqlstate, e.er_msg);
    m.bm_present[id] = 1;
    m.bm_count++;
  }
  err_t e;
  bt_check_t chk;
  assert_int_equal(bt_check(t, &chk, &e), CZ_OK);
  assert_int_equal(chk.bc_entries, 5000);
  assert_int_equal(chk.bc_segments, 2); /* 4096 + 904: the first one full */
  verify_scan(t, &m, M_SORTED);
  bt_close(t);
  bt_model_free(&m);
  bt_env_close(&env);
}

static void insert_model(bt_tree_t *t, bt_model_t *m, uint32_t id)
{
  uint8_t k[4], v[128];
  err_t e;
  tkey(id, k);
  size_t vl = make_row(id, m->bm_version[id] + 1, M_SORTED, v, sizeof v);
  if (bt_insert(t, k, 4, v, vl, &e) != CZ_OK)
    fail_msg("insert %u: %s %s", id, e.er_sqlstate, e.er_msg);
  m->bm_present[id] = 1;
  m->bm_version[id]++;
  m->bm_count++;
}

/* Rows below the first segment's entry key (the exception of C-I3), then
 * a split of that segment: the right half's entry must not sort before
 * the left half's (both halves lost rows to scans and lookups: issue 9's
 * crash test, eight appenders whose highest-numbered one inserted first).
 * Then the first segment emptied, so that a segment with a real key
 * becomes first, and rows inserted below that key until it splits. */
static void test_rows_below_first_entry(void **state)
{
  (void)state;
  bt_env_t env;
  bt_env_open(&env, "col_first.db", 512, true);
  bt_tree_t *t = new_col_tree(&env);
  bt_model_t m;
  bt_model_init(&m, 40000);
  /* eight appenders, ids w * 1000 + i, the last one first */
  for (uint32_t i = 0; i < 700; i++)
    for (int w = 7; w >= 0; w--)
      insert_model(t, &m, (uint32_t)w * 1000 + i);
  check_ok(t, m.bm_count);
  verify_scan(t, &m, M_SORTED);
  verify_lookups(t, &m, M_SORTED);
  verify_cursor(t, &m, M_SORTED, 3500);
  /* ascending from 10000: full segments after the appenders' ones */
  for (uint32_t id = 10000; id < 10000 + 3 * 4096; id++)
    insert_model(t, &m, id);
  check_ok(t, m.bm_count);
  /* empty the first segments (a full neighbour never absorbs them) */
  for (uint32_t id = 0; id < 10000 + 4096; id++) {
    if (!m.bm_present[id])
      continue;
    uint8_t k[4];
    err_t e;
    tkey(id, k);
    if (bt_delete(t, k, 4, NULL, 0, NULL, 0, NULL, &e) != CZ_OK)
      fail_msg("delete %u: %s %s", id, e.er_sqlstate, e.er_msg);
    m.bm_present[id] = 0;
    m.bm_count--;
  }
  check_ok(t, m.bm_count);
  /* rows below the new first segment's entry until it splits, twice */
  for (uint32_t id = 0; id < 9000; id++)
    insert_model(t, &m, id);
  check_ok(t, m.bm_count);
  verify_scan(t, &m, M_SORTED);
  verify_lookups(t, &m, M_SORTED);
  verify_cursor(t, &m, M_SORTED, 7000);
  bt_close(t);
  bt_model_free(&m);
  bt_env_close(&env);
}

/* Predicates: results equal filtering the model; a range on a sorted
 * column skips segments by min/max; key ranges cut inside segments. */
static void test_predicates_and_ranges(void **state)
{
  (void)state;
  bt_env_t env;
  bt_env_open(&env, "col_pred.db", 512, true);
  bt_tree_t *t = new_col_tree(&env);
  bt_model_t m;
  bt_model_init(&m, 30000);
  load(t, &m, 30000, 30000, M_SORTED);
  arena_t *a = arena_create(NULL, "pred");
  err_t e;
  vec_t out[2];
  assert_int_equal(vec_init(&out[0], a, ty_plain(TY_BYTEA), 4096, &e), CZ_OK);
  assert_int_equal(vec_init(&out[1], a, ty_plain(TY_INT8), 4096, &e), CZ_OK);
  int cols[2] = {0, 1};
  /* column 1 = id * 3 in M_SORTED: 30000 <= c1 < 33000 is ids [10000, 11000) */
  bt_col_pred_t p;
  memset(&p, 0, sizeof p);
  p.cp_col = 1;
  p.cp_pred.p_op = CE_RANGE;
  p.cp_pred.p_val.d_i64 = 30000;
  p.cp_pred.p_hi.d_i64 = 33000;
  p.cp_pred.p_lo_incl = true;
  p.cp_pred.p_hi_incl = false;
  bt_col_scan_t *s;
  assert_int_equal(bt_col_scan_open(t, NULL, 0, NULL, 0, cols, 2, &p, 1, &s, &e), CZ_OK);
  int n, rc, total = 0;
  while ((rc = bt_col_scan_next(s, out, 4096, &n, &e)) == CZ_OK)
    for (int r = 0; r < n; r++, total++) {
      int64_t v = out[1].v_i64[r];
      assert_true(v >= 30000 && v < 33000 && v % 3 == 0);
      uint8_t k[4];
      tkey((uint32_t)(v / 3), k);
      assert_memory_equal(out[0].v_str[r].s_ptr, k, 4);
    }
  assert_int_equal(rc, BT_END);
  assert_int_equal(total, 1000);
  uint64_t rd, sk;
  bt_col_scan_stats(s, &rd, &sk);
  assert_true(rd <= 2);
  assert_true(sk >= 6);
  bt_col_scan_close(s);
  /* A string equality on a column of distinct values: one row. */
  int cols2[1] = {0};
  p.cp_col = 2;
  p.cp_pred.p_op = CE_EQ;
  p.cp_pred.p_val.d_str.s_ptr = "s00012345.0";
  p.cp_pred.p_val.d_str.s_len = 11;
  assert_int_equal(bt_col_scan_open(t, NULL, 0, NULL, 0, cols2, 1, &p, 1, &s, &e), CZ_OK);
  total = 0;
  while ((rc = bt_col_scan_next(s, out, 4096, &n, &e)) == CZ_OK)
    total += n;
  assert_int_equal(rc, BT_END);
  assert_int_equal(total, 1);
  bt_col_scan_close(s);
  /* Key ranges [lo, hi) starting and ending inside segments. */
  uint32_t ranges[][2] = {{0, 1}, {5, 4100}, {4095, 4097}, {12345, 23456}, {29990, 40000}, {7, 7}};
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    uint8_t lo[4], hi[4];
    tkey(ranges[i][0], lo);
    tkey(ranges[i][1], hi);
    assert_int_equal(bt_col_scan_open(t, lo, 4, hi, 4, cols, 2, NULL, 0, &s, &e), CZ_OK);
    uint32_t want = ranges[i][0];
    while ((rc = bt_col_scan_next(s, out, 1000, &n, &e)) == CZ_OK)
      for (int r = 0; r < n; r++, want++)
        assert_int_equal(out[1].v_i64[r], (int64_t)want * 3);
    assert_int_equal(rc, BT_END);
    uint32_t end = ranges[i][1] < 30000 ? ranges[i][1] : 30000;
    assert_int_equal(want, end > ranges[i][0] ? end : ranges[i][0]);
    bt_col_scan_close(s);
  }
  arena_destroy(a);
  bt_close(t);
  bt_model_free(&m);
  bt_env_close(&env);
}

/* A tree many times the pool (64 buffers = 512 KB), written, closed,
 * reopened and read back; then dropped. */
static void test_larger_than_pool_and_reopen(void **state)
{
  (void)state;
  bt_env_t env;
  bt_env_open(&env, "col_big.db", 64, true);
  bt_tree_t *t = new_col_tree(&env);
  pg_no_t root = bt_root(t);
  bt_model_t m;
  bt_model_init(&m, 150000);
  load(t, &m, 150000, 5000, M_RANDOM);
  err_t e;
  bt_check_t chk;
  assert_int_equal(bt_check(t, &chk, &e), CZ_OK);
  assert_int_equal(chk.bc_entries, 150000);
  assert_true(chk.bc_run_pages > 4 * 64);
  bt_close(t);
  bt_env_close(&env);
  bt_env_open(&env, "col_big.db", 64, false);
  assert_int_equal(bt_open(env.be_bp, root, &t, &e), CZ_OK);
  check_ok(t, 150000);
  verify_scan(t, &m, M_RANDOM);
  verify_lookups(t, &m, M_RANDOM);
  assert_int_equal(bt_drop(t, &e), CZ_OK);
  bt_model_free(&m);
  bt_env_close(&env);
}

/* A batch inside the tree with a duplicate stops before it: the rows
 * before it are in, *n_done says how many. Non-unique column trees are
 * refused (not built yet). */
static void test_batch_duplicate_and_limits(void **state)
{
  (void)state;
  bt_env_t env;
  bt_env_open(&env, "col_dup.db", 256, true);
  bt_tree_t *t = new_col_tree(&env);
  bt_model_t m;
  bt_model_init(&m, 10000);
  static bt_row_t rows[5001];
  static uint8_t kb[4 * 5001], vb[128 * 5001];
  err_t e;
  int n = 0;
  /* even ids, one batch */
  for (uint32_t id = 0; id < 10000; id += 2, n++) {
    tkey(id, kb + 4 * n);
    rows[n].r_key = kb + 4 * n;
    rows[n].r_key_len = 4;
    rows[n].r_val = vb + 128 * n;
    rows[n].r_val_len = (uint32_t)make_row(id, 0, M_RANDOM, vb + 128 * n, 128);
    m.bm_present[id] = 1;
    m.bm_count++;
  }
  assert_int_equal(bt_insert_batch(t, rows, n, NULL, &e), CZ_OK);
  /* odd ids 1..7999 inside the segments, then 8000 (present) */
  n = 0;
  for (uint32_t id = 1; id <= 8000; id += 2, n++) {
    tkey(id, kb + 4 * n);
    rows[n].r_key = kb + 4 * n;
    rows[n].r_key_len = 4;
    rows[n].r_val = vb + 128 * n;
    rows[n].r_val_len = (uint32_t)make_row(id, 0, M_RANDOM, vb + 128 * n, 128);
  }
  tkey(8000, kb + 4 * n);
  rows[n].r_key = kb + 4 * n;
  rows[n].r_key_len = 4;
  rows[n].r_val = vb;
  rows[n].r_val_len = rows[0].r_val_len;
  n++;
  int done = -1;
  assert_int_equal(bt_insert_batch(t, rows, n, &done, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "23505");
  assert_int_equal(done, n - 1);
  for (uint32_t id = 1; id < 8000; id += 2) {
    m.bm_present[id] = 1;
    m.bm_count++;
  }
  check_ok(t, m.bm_count);
  verify_scan(t, &m, M_RANDOM);
  bt_close(t);
  bt_model_free(&m);
  bt_env_close(&env);
}

/* Readers beside a writer (rules C1-C4 and the clip at the next entry):
 * ids divisible by 3 never change; the writer inserts and deletes the
 * others so that segments split, merge and empty. Every concurrent scan
 * returns strictly ascending keys holding every stable id exactly once,
 * and every lookup of a stable id finds it. */
typedef struct conc_s {
  bt_tree_t *cc_t;
  volatile int cc_stop;
  int cc_scans;
  int cc_bad;
  char cc_why[800];
} conc_t;

static void *conc_reader(void *arg)
{
  conc_t *c = arg;
  arena_t *a = arena_create(NULL, "conc");
  err_t e;
  vec_t out[1];
  int cols[1] = {0};
  if (vec_init(&out[0], a, ty_plain(TY_BYTEA), 512, &e) != CZ_OK)
    return NULL;
  while (!c->cc_stop && !c->cc_bad) {
    bt_col_scan_t *s;
    if (bt_col_scan_open(c->cc_t, NULL, 0, NULL, 0, cols, 1, NULL, 0, &s, &e) != CZ_OK) {
      snprintf(c->cc_why, sizeof c->cc_why, "open: %s", e.er_msg);
      c->cc_bad = 1;
      break;
    }
    int64_t last = -1, next_stable = 0;
    int n, rc;
    while ((rc = bt_col_scan_next(s, out, 512, &n, &e)) == CZ_OK) {
      for (int r = 0; r < n; r++) {
        const uint8_t *k = (const uint8_t *)out[0].v_str[r].s_ptr;
        int64_t id = ((int64_t)k[0] << 24) | (k[1] << 16) | (k[2] << 8) | k[3];
        if (id <= last || (id % 3 == 0 && id != next_stable) || (id % 3 != 0 && id > next_stable)) {
          snprintf(c->cc_why, sizeof c->cc_why, "scan: id %lld after %lld, stable expected %lld",
                   (long long)id, (long long)last, (long long)next_stable);
          c->cc_bad = 1;
        }
        if (id % 3 == 0)
          next_stable += 3;
        last = id;
      }
    }
    if (rc != BT_END) {
      snprintf(c->cc_why, sizeof c->cc_why, "scan: %s %s", e.er_sqlstate, e.er_msg);
      c->cc_bad = 1;
    }
    if (!c->cc_bad && next_stable != 30000) {
      snprintf(c->cc_why, sizeof c->cc_why, "scan ended at stable %lld", (long long)next_stable);
      c->cc_bad = 1;
    }
    bt_col_scan_close(s);
    for (uint32_t id = 0; id < 30000 && !c->cc_bad; id += 999) {
      uint8_t key[4], val[256];
      size_t vl;
      tkey(id - id % 3, key);
      if (bt_lookup(c->cc_t, key, 4, val, sizeof val, &vl, &e) != CZ_OK) {
        snprintf(c->cc_why, sizeof c->cc_why, "lookup of stable %u failed", id - id % 3);
        c->cc_bad = 1;
      }
    }
    c->cc_scans++;
  }
  arena_destroy(a);
  return NULL;
}

static void test_readers_beside_writer(void **state)
{
  (void)state;
  bt_env_t env;
  bt_env_open(&env, "col_conc.db", 512, true);
  bt_tree_t *t = new_col_tree(&env);
  bt_model_t m;
  bt_model_init(&m, 30000);
  load(t, &m, 30000, 30000, M_RANDOM);
  conc_t c;
  memset(&c, 0, sizeof c);
  c.cc_t = t;
  pthread_t th[2];
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&th[i], NULL, conc_reader, &c), 0);
  uint64_t seed = cz_test_seed();
  /* Deletes then inserts in a band of ids, so that segments shrink and
   * merge, then grow and split, while the readers run. */
  for (int round = 0; round < 2 && !c.cc_bad; round++)
    for (uint32_t id = 4000; id < 13000 && !c.cc_bad; id += 1 + (uint32_t)((seed = mix(seed)) % 4)) {
      if (id % 3 == 0)
        continue;
      uint8_t k[4], v[128];
      err_t e;
      tkey(id, k);
      if (m.bm_present[id]) {
        assert_int_equal(bt_delete(t, k, 4, NULL, 0, NULL, 0, NULL, &e), CZ_OK);
        m.bm_present[id] = 0;
        m.bm_count--;
      } else {
        size_t vl = make_row(id, 0, M_RANDOM, v, sizeof v);
        assert_int_equal(bt_insert(t, k, 4, v, vl, &e), CZ_OK);
        m.bm_present[id] = 1;
        m.bm_count++;
      }
    }
  c.cc_stop = 1;
  for (int i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  if (c.cc_bad)
    fail_msg("%s", c.cc_why);
  assert_true(c.cc_scans > 0);
  check_ok(t, m.bm_count);
  verify_scan(t, &m, M_RANDOM);
  bt_close(t);
  bt_model_free(&m);
  bt_env_close(&env);
}

/* ---- non-unique column trees (bt_col_pair.c) ------------------------------ */

/* Pair i: key "group" i / 2500 as 4 bytes (zero bytes exercise the
 * escapes; a group's pairs span segments), value a column row whose bytes
 * order differently from i. */
#define NU_N 12000
typedef struct nu_pair_s {
  uint8_t np_k[4];
  uint8_t np_v[64];
  size_t np_vl;
  bool np_in;
} nu_pair_t;

static int nu_cmp(const void *x, const void *y)
{
  const nu_pair_t *a = x, *b = y;
  int c = memcmp(a->np_k, b->np_k, 4);
  if (c)
    return c;
  size_t m = a->np_vl < b->np_vl ? a->np_vl : b->np_vl;
  c = memcmp(a->np_v, b->np_v, m);
  return c ? c : (a->np_vl > b->np_vl) - (a->np_vl < b->np_vl);
}

static nu_pair_t *nu_pairs(void)
{
  nu_pair_t *p = calloc(NU_N, sizeof *p);
  static const ty_phys_t k2[2] = {TP_I64, TP_STR};
  for (uint32_t i = 0; i < NU_N; i++) {
    tkey(i / 2500, p[i].np_k);
    datum_t d[2];
    char sb[32];
    memset(d, 0, sizeof d);
    d[0].d_i64 = (int64_t)(mix(i) % 1000);
    d[1].d_str.s_ptr = sb;
    d[1].d_str.s_len = (uint32_t)snprintf(sb, sizeof sb, "v%u", i);
    err_t e;
    assert_int_equal(bt_crow_build(k2, d, 2, p[i].np_v, sizeof p[i].np_v, &p[i].np_vl, &e), CZ_OK);
  }
  qsort(p, NU_N, sizeof *p, nu_cmp);
  return p;
}

typedef struct nu_look_s {
  int nl_found[6];
  uint8_t nl_v[6][64];
  size_t nl_vl[6];
} nu_look_t;

static void nu_look_cb(void *ctx, int i, bool found, const void *val, size_t len)
{
  nu_look_t *l = ctx;
  l->nl_found[i] = found;
  if (found && len <= sizeof l->nl_v[i]) {
    memcpy(l->nl_v[i], val, len);
    l->nl_vl[i] = len;
  }
}

static void nu_verify(bt_tree_t *t, const nu_pair_t *p)
{
  err_t e;
  uint64_t n = 0;
  for (int i = 0; i < NU_N; i++)
    n += p[i].np_in;
  check_ok(t, n);
  /* the cursor: every pair in (key, value) order, from the start and from a key */
  bt_cursor_t *c;
  assert_int_equal(bt_cursor_open(t, &c, &e), CZ_OK);
  for (int pass = 0; pass < 2; pass++) {
    uint8_t sk[4];
    tkey(2, sk);
    assert_int_equal(bt_seek(c, pass ? sk : NULL, pass ? 4 : 0, BT_FORWARD, &e), CZ_OK);
    int i = 0;
    while (i < NU_N && (!p[i].np_in || (pass && memcmp(p[i].np_k, sk, 4) < 0)))
      i++;
    const void *k, *v;
    size_t kl, vl;
    int rc;
    while ((rc = bt_next(c, &k, &kl, &v, &vl, &e)) == CZ_OK) {
      assert_true(i < NU_N);
      assert_int_equal(kl, 4);
      assert_memory_equal(k, p[i].np_k, 4);
      assert_int_equal(vl, p[i].np_vl);
      assert_memory_equal(v, p[i].np_v, vl);
      for (i++; i < NU_N && !p[i].np_in; i++)
        ;
    }
    assert_int_equal(rc, BT_END);
    assert_int_equal(i, NU_N);
  }
  /* backward from key 2: every pair of keys <= 2, last first */
  {
    uint8_t sk[4];
    tkey(2, sk);
    assert_int_equal(bt_seek(c, sk, 4, BT_BACKWARD, &e), CZ_OK);
    int i = NU_N - 1;
    while (i >= 0 && (!p[i].np_in || memcmp(p[i].np_k, sk, 4) > 0))
      i--;
    const void *k, *v;
    size_t kl, vl;
    int rc;
    while ((rc = bt_next(c, &k, &kl, &v, &vl, &e)) == CZ_OK) {
      assert_true(i >= 0);
      assert_int_equal(kl, 4);
      assert_memory_equal(k, p[i].np_k, 4);
      assert_int_equal(vl, p[i].np_vl);
      assert_memory_equal(v, p[i].np_v, vl);
      for (i--; i >= 0 && !p[i].np_in; i--)
        ;
    }
    assert_int_equal(rc, BT_END);
    assert_int_equal(i, -1);
  }
  bt_cursor_close(c);
  /* lookups: the first pair of each key, by one and by batch */
  bt_key_t keys[6];
  uint8_t kb[6][4];
  for (uint32_t g = 0; g < 6; g++) {
    tkey(g, kb[g]);
    keys[g] = (bt_key_t){kb[g], 4};
  }
  nu_look_t look;
  memset(&look, 0, sizeof look);
  assert_int_equal(bt_lookup_batch(t, keys, 6, nu_look_cb, &look, &e), CZ_OK);
  for (uint32_t g = 0; g < 6; g++) {
    tkey(g, kb[g]);
    keys[g] = (bt_key_t){kb[g], 4};
    int first = -1;
    for (int i = 0; i < NU_N && first < 0; i++)
      if (p[i].np_in && memcmp(p[i].np_k, kb[g], 4) == 0)
        first = i;
    uint8_t val[128];
    size_t vl;
    int rc = bt_lookup(t, kb[g], 4, val, sizeof val, &vl, &e);
    if (first < 0) {
      assert_int_equal(rc, BT_NOT_FOUND);
      assert_false(look.nl_found[g]);
    } else {
      assert_int_equal(rc, CZ_OK);
      assert_int_equal(vl, p[first].np_vl);
      assert_memory_equal(val, p[first].np_v, vl);
      assert_true(look.nl_found[g]);
      assert_int_equal(look.nl_vl[g], vl);
      assert_memory_equal(look.nl_v[g], val, vl);
    }
  }
  /* a column scan of keys [1, 3) with the keys handed out as keys */
  arena_t *a = arena_create(NULL, "nu");
  int cols[2] = {0, 1};
  vec_t out[2];
  assert_int_equal(vec_init(&out[0], a, ty_plain(TY_BYTEA), 500, &e), CZ_OK);
  assert_int_equal(vec_init(&out[1], a, ty_plain(TY_INT8), 500, &e), CZ_OK);
  bt_col_scan_t *sc;
  assert_int_equal(bt_col_scan_open(t, kb[1], 4, kb[3], 4, cols, 2, NULL, 0, &sc, &e), CZ_OK);
  int i = 0, got, rc;
  while ((rc = bt_col_scan_next(sc, out, 500, &got, &e)) == CZ_OK) {
    for (int r = 0; r < got; r++) {
      while (i < NU_N && (!p[i].np_in || memcmp(p[i].np_k, kb[1], 4) < 0))
        i++;
      assert_true(i < NU_N && memcmp(p[i].np_k, kb[3], 4) < 0);
      assert_int_equal(out[0].v_str[r].s_len, 4);
      assert_memory_equal(out[0].v_str[r].s_ptr, p[i].np_k, 4);
      i++;
    }
  }
  assert_int_equal(rc, BT_END);
  while (i < NU_N && (!p[i].np_in || memcmp(p[i].np_k, kb[1], 4) < 0))
    i++;
  assert_true(i == NU_N || memcmp(p[i].np_k, kb[3], 4) >= 0);
  bt_col_scan_close(sc);
  /* cuts for parallel scans are keys, ascending */
  bt_key_t *cuts;
  int ncuts;
  assert_int_equal(bt_divide(t, NULL, 0, NULL, 0, 4, a, &cuts, &ncuts, &e), CZ_OK);
  for (int j = 1; j < ncuts; j++)
    assert_true(memcmp(cuts[j - 1].k_data, cuts[j].k_data, 4) < 0 || cuts[j - 1].k_len < cuts[j].k_len);
  arena_destroy(a);
}

static void test_non_unique(void **state)
{
  (void)state;
  bt_env_t env;
  bt_env_open(&env, "col_nonunique.db", 256, true);
  err_t e;
  pg_no_t root;
  bt_tree_t *t;
  assert_int_equal(bt_create(env.be_bp, BT_COLUMN, &root, &e), CZ_OK);
  assert_int_equal(bt_open(env.be_bp, root, &t, &e), CZ_OK);
  nu_pair_t *p = nu_pairs();
  /* even pairs by one sorted batch, odd ones one by one */
  bt_row_t *rows = calloc(NU_N, sizeof *rows);
  int n = 0;
  for (int i = 0; i < NU_N; i += 2) {
    rows[n++] = (bt_row_t){p[i].np_k, 4, p[i].np_v, (uint32_t)p[i].np_vl};
    p[i].np_in = true;
  }
  assert_int_equal(bt_insert_batch(t, rows, n, NULL, &e), CZ_OK);
  nu_verify(t, p);
  for (int i = 1; i < NU_N; i += 2) {
    if (bt_insert(t, p[i].np_k, 4, p[i].np_v, p[i].np_vl, &e) != CZ_OK)
      fail_msg("insert %d: %s %s", i, e.er_sqlstate, e.er_msg);
    p[i].np_in = true;
  }
  nu_verify(t, p);
  /* the same pair twice is 23505; bt_update is for unique trees */
  assert_int_equal(bt_insert(t, p[7].np_k, 4, p[7].np_v, p[7].np_vl, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "23505");
  assert_int_equal(bt_update(t, p[7].np_k, 4, p[7].np_v, p[7].np_vl, NULL, 0, NULL, &e), CZ_ERR);
  /* deletes name the pair: drop every pair of group 1 and most of the rest
   * (segments merge and empty) */
  for (int i = 0; i < NU_N; i++) {
    bool drop = memcmp(p[i].np_k, "\0\0\0\1", 4) == 0 || i % 3 != 0;
    if (!drop)
      continue;
    assert_int_equal(bt_delete(t, p[i].np_k, 4, p[i].np_v, p[i].np_vl, NULL, 0, NULL, &e), CZ_OK);
    p[i].np_in = false;
  }
  assert_int_equal(bt_delete(t, p[1].np_k, 4, p[1].np_v, p[1].np_vl, NULL, 0, NULL, &e), BT_NOT_FOUND);
  nu_verify(t, p);
  /* a predicate on the pairs' keys is not built */
  bt_col_scan_t *sc;
  bt_col_pred_t pr;
  memset(&pr, 0, sizeof pr);
  pr.cp_col = 0;
  pr.cp_pred.p_op = CE_IS_NULL;
  assert_int_equal(bt_col_scan_open(t, NULL, 0, NULL, 0, NULL, 0, &pr, 1, &sc, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "0A000");
  free(rows);
  free(p);
  assert_int_equal(bt_drop(t, &e), CZ_OK);
  bt_env_close(&env);
}

/* ---- bt_estimate and bt_sample on column trees (bt_col_stats.c) ----------- */

typedef struct smp_s {
  uint32_t sm_lo, sm_hi;
  int sm_n, sm_bad;
} smp_t;

static void smp_cb(void *ctx, const void *key, size_t klen, const void *val, size_t vlen)
{
  smp_t *s = ctx;
  const uint8_t *k = key;
  uint32_t id = klen == 4 ? ((uint32_t)k[0] << 24 | (uint32_t)k[1] << 16 | (uint32_t)k[2] << 8 | k[3]) : 0;
  uint8_t want[256];
  size_t wl = make_row(id, 0, M_RANDOM, want, sizeof want);
  if (klen != 4 || id < s->sm_lo || id >= s->sm_hi || wl != vlen || memcmp(want, val, vlen) != 0)
    s->sm_bad++;
  s->sm_n++;
}

static void test_estimate_and_sample(void **state)
{
  (void)state;
  bt_env_t env;
  bt_env_open(&env, "col_estimate.db", 512, true);
  bt_tree_t *t = new_col_tree(&env);
  bt_model_t m;
  bt_model_init(&m, 30000);
  load(t, &m, 30000, 30000, M_RANDOM);
  err_t e;
  double est;
  uint8_t lo[4], hi[4];
  /* the whole tree, a wide range: within a quarter */
  assert_int_equal(bt_estimate(t, NULL, 0, NULL, 0, &est, &e), CZ_OK);
  assert_true(est > 30000 * 0.75 && est < 30000 * 1.25);
  tkey(5000, lo);
  tkey(20000, hi);
  assert_int_equal(bt_estimate(t, lo, 4, hi, 4, &est, &e), CZ_OK);
  assert_true(est > 15000 * 0.7 && est < 15000 * 1.3);
  /* inside one segment: exact */
  tkey(100, lo);
  tkey(350, hi);
  assert_int_equal(bt_estimate(t, lo, 4, hi, 4, &est, &e), CZ_OK);
  assert_true(est == 250);
  assert_int_equal(bt_estimate(t, hi, 4, lo, 4, &est, &e), CZ_OK);
  assert_true(est == 0);
  /* samples: rows of the range, their values the stored ones */
  smp_t sm = {5000, 20000, 0, 0};
  tkey(5000, lo);
  tkey(20000, hi);
  assert_int_equal(bt_sample(t, lo, 4, hi, 4, 40, 42, smp_cb, &sm, &e), CZ_OK);
  assert_int_equal(sm.sm_bad, 0);
  assert_true(sm.sm_n >= 30);
  smp_t all = {0, 30000, 0, 0};
  assert_int_equal(bt_sample(t, NULL, 0, NULL, 0, 20, 7, smp_cb, &all, &e), CZ_OK);
  assert_int_equal(all.sm_bad, 0);
  assert_int_equal(all.sm_n, 20);
  bt_close(t);
  bt_model_free(&m);
  bt_env_close(&env);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crow),
      cmocka_unit_test(test_load_modes),
      cmocka_unit_test(test_ascending_inserts),
      cmocka_unit_test(test_rows_below_first_entry),
      cmocka_unit_test(test_random_ops),
      cmocka_unit_test(test_predicates_and_ranges),
      cmocka_unit_test(test_larger_than_pool_and_reopen),
      cmocka_unit_test(test_batch_duplicate_and_limits),
      cmocka_unit_test(test_readers_beside_writer),
      cmocka_unit_test(test_non_unique),
      cmocka_unit_test(test_estimate_and_sample),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
