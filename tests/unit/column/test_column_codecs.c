/* test_column_codecs — every codec on every kind and distribution: exact
 * analyze sizes, round trips, selections, fetch, cursors read in pieces
 * with skips, the compressed forms, the chooser and the force switch, and
 * a randomized differential check of every predicate on the compressed
 * form against the same predicate on the decoded values (fixed seed;
 * CZ_TEST_SEED replays another). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "col_gen.h"
#include "column/column_int.h"
#include "cz_test.h"

static const int sizes_n[] = {0, 1, 2, 17, 300, 4100};

static void seed_rng(void)
{
  const char *s = getenv("CZ_TEST_SEED");
  cg_state = s && *s ? cz_test_seed() : 20261126;
}

static void make_pred(ty_phys_t ph, const vec_t *v, int n, arena_t *a, ce_pred_t *p)
{
  memset(p, 0, sizeof(*p));
  p->p_op = (ce_op_t)cg_below(CE_NOT_NULL + 1);
  datum_t vals[6];
  for (int i = 0; i < 6; i++) {
    if (n > 0 && cg_below(3)) {
      vec_get(v, (int)cg_below((uint64_t)n), &vals[i]);
      if (vals[i].d_null && cg_below(4))
        cg_value(ph, (int)cg_below(CG_DIST_COUNT), i, n, a, &vals[i]);
    } else {
      cg_value(ph, (int)cg_below(CG_DIST_COUNT), i, n, a, &vals[i]);
      vals[i].d_null = cg_below(20) == 0;
    }
  }
  p->p_val = vals[0];
  p->p_hi = vals[1];
  if (p->p_op == CE_RANGE && cg_below(4) && !vals[0].d_null && !vals[1].d_null &&
      datum_cmp(ph, &vals[0], &vals[1]) > 0) {
    p->p_val = vals[1];
    p->p_hi = vals[0];
  }
  p->p_lo_incl = cg_below(2);
  p->p_hi_incl = cg_below(2);
  int nin = 1 + (int)cg_below(5);
  datum_t *in = arena_alloc(a, sizeof(datum_t) * (size_t)nin);
  for (int i = 0; i < nin; i++)
    in[i] = vals[1 + i];
  p->p_in = in;
  p->p_nin = nin;
}

static void check_row(ty_phys_t ph, const vec_t *want, int wi, const vec_t *got, int gi, const char *what)
{
  datum_t a, b;
  vec_get(want, wi, &a);
  vec_get(got, gi, &b);
  if (a.d_null != b.d_null || (!a.d_null && !cg_same(ph, &a, &b)))
    fail_msg("%s: row %d differs (null %d/%d)", what, wi, a.d_null, b.d_null);
}

/* Everything about one encoded segment of v[0, n). */
static void check_segment(const vec_t *v, int n, const uint8_t *buf, size_t len, arena_t *a)
{
  err_t e;
  ty_phys_t ph = ty_phys(v->v_type.t_id);
  ce_info_t info;
  assert_int_equal(ce_info(buf, len, &info, &e), CZ_OK);
  assert_int_equal(info.ci_n, (uint32_t)n);
  assert_int_equal(info.ci_len, len);
  uint32_t nnull = 0;
  for (int i = 0; i < n; i++)
    nnull += v->v_null[i];
  assert_int_equal(info.ci_nnull, nnull);
  /* min/max bound every non-NULL value */
  for (int i = 0; i < n; i++) {
    datum_t d;
    vec_get(v, i, &d);
    if (d.d_null)
      continue;
    assert_true(info.ci_has_min);
    assert_true(datum_cmp(ph, &info.ci_min, &d) <= 0);
    if (info.ci_has_max)
      assert_true(datum_cmp(ph, &info.ci_max, &d) >= 0);
  }

  /* full decode, at an offset */
  vec_t out;
  assert_int_equal(vec_init(&out, a, v->v_type, n + 3, &e), CZ_OK);
  assert_int_equal(ce_decode(buf, len, &out, 3, a, &e), CZ_OK);
  for (int i = 0; i < n; i++)
    check_row(ph, v, i, &out, i + 3, "decode");

  /* selection decode and fetch */
  uint32_t *sel = arena_alloc(a, sizeof(uint32_t) * (size_t)(n + 1));
  uint32_t ns = 0, every = 1u << (1 + cg_below(4)); /* dense or sparse: 1/2 .. 1/16 */
  for (int i = 0; i < n; i++)
    if (cg_below(every) == 0)
      sel[ns++] = (uint32_t)i;
  vec_t sv;
  assert_int_equal(vec_init(&sv, a, v->v_type, (int)ns, &e), CZ_OK);
  assert_int_equal(ce_decode_sel(buf, len, sel, ns, &sv, 0, a, &e), CZ_OK);
  for (uint32_t i = 0; i < ns; i++)
    check_row(ph, v, (int)sel[i], &sv, (int)i, "decode_sel");
  for (int k = 0; k < CZ_MIN(n, 40); k++) {
    uint32_t pos = (uint32_t)cg_below((uint64_t)n);
    datum_t d, w;
    assert_int_equal(ce_fetch(buf, len, pos, &d, a, &e), CZ_OK);
    vec_get(v, (int)pos, &w);
    assert_int_equal(d.d_null, w.d_null);
    if (!w.d_null)
      assert_true(cg_same(ph, &d, &w));
  }
  datum_t dd;
  assert_int_equal(ce_fetch(buf, len, (uint32_t)n, &dd, a, &e), CZ_ERR);

  /* a cursor in pieces with skips */
  ce_cursor_t c;
  vec_t piece;
  assert_int_equal(vec_init(&piece, a, v->v_type, 64, &e), CZ_OK);
  assert_int_equal(ce_cursor_open(&c, buf, len, a, &e), CZ_OK);
  int pos = 0;
  while (pos < n) {
    uint64_t want = 1 + cg_below(64); /* CZ_MIN evaluates twice */
    uint32_t k = (uint32_t)CZ_MIN((uint64_t)(n - pos), want);
    if (cg_below(3) == 0) {
      datum_t rv;
      uint32_t run = ce_cursor_run(&c, &rv);
      if (run) {
        assert_true(run <= (uint32_t)(n - pos));
        for (uint32_t i = 0; i < run; i++) {
          datum_t w;
          vec_get(v, pos + (int)i, &w);
          if (!w.d_null)
            assert_true(cg_same(ph, &rv, &w));
        }
      }
      assert_int_equal(ce_cursor_skip(&c, k, &e), CZ_OK);
    } else {
      if (ce_cursor_read(&c, k, &piece, 0, &e) != CZ_OK)
        fail_msg("cursor read %u at %d of %d: %s", k, pos, n, e.er_msg);
      for (uint32_t i = 0; i < k; i++)
        check_row(ph, v, pos + (int)i, &piece, (int)i, "cursor");
    }
    pos += (int)k;
  }
  assert_int_equal(ce_cursor_read(&c, 1, &piece, 0, &e), CZ_ERR);

  /* compressed forms */
  bool is_const, avail;
  datum_t cv;
  assert_int_equal(ce_decode_const(buf, len, &is_const, &cv, a, &e), CZ_OK);
  if (is_const)
    for (int i = 0; i < n; i++) {
      datum_t w;
      vec_get(v, i, &w);
      assert_int_equal(w.d_null, cv.d_null);
      if (!w.d_null)
        assert_true(cg_same(ph, &cv, &w));
    }
  vec_t dict;
  uint32_t *codes;
  assert_int_equal(ce_decode_dict(buf, len, &avail, &dict, &codes, a, &e), CZ_OK);
  if (avail)
    for (int i = 0; i < n; i++) {
      if (v->v_null[i]) {
        assert_int_equal(codes[i], UINT32_MAX);
        continue;
      }
      assert_true(codes[i] < (uint32_t)dict.v_cap);
      check_row(ph, v, i, &dict, (int)codes[i], "dict form");
    }

  /* predicates: compressed form against the reference on decoded values */
  uint32_t *got = arena_alloc(a, sizeof(uint32_t) * (size_t)(n + 1));
  uint8_t *in_sel = arena_zalloc(a, (size_t)n + 1);
  for (uint32_t j = 0; j < ns; j++)
    in_sel[sel[j]] = 1;
  for (int it = 0; it < 60; it++) {
    ce_pred_t p;
    make_pred(ph, v, n, a, &p);
    bool restrict_sel = cg_below(3) == 0;
    uint32_t ng;
    assert_int_equal(ce_filter(buf, len, &p, restrict_sel ? sel : NULL, ns, got, &ng, a, &e), CZ_OK);
    uint32_t k = 0;
    for (int i = 0; i < n; i++) {
      if (restrict_sel && !in_sel[i])
        continue;
      datum_t d;
      vec_get(&out, i + 3, &d);
      /* ce_pred_match (one value outside a segment) agrees with the filter */
      if (ce_pred_match(&p, ph, &d) != cg_ref_match(ph, &p, &d))
        fail_msg("ce_pred_match op %d: row %d disagrees with the filter", (int)p.p_op, i);
      if (cg_ref_match(ph, &p, &d)) {
        if (k >= ng || got[k] != (uint32_t)i)
          fail_msg("predicate op %d: row %d should match (codec %s)", (int)p.p_op, i, ce_name(info.ci_codec));
        k++;
      }
    }
    if (k != ng)
      fail_msg("predicate op %d: %u rows selected, %u expected (codec %s)", (int)p.p_op, ng, k,
               ce_name(info.ci_codec));
    if (!ce_may_match(&info, &p))
      assert_int_equal(ng, 0);
  }
}

static void run_kind(ty_id_t kind)
{
  seed_rng();
  arena_t *a = arena_create(NULL, "t");
  err_t e;
  int tried[CE_COUNT_] = {0};
  for (int dist = 0; dist < CG_DIST_COUNT; dist++) {
    for (size_t si = 0; si < CZ_ARRAY_LEN(sizes_n); si++) {
      int n = sizes_n[si];
      vec_t v;
      assert_int_equal(vec_init(&v, a, ty_plain(kind), n, &e), CZ_OK);
      cg_fill(&v, n, dist, a);
      int64_t sz[CE_COUNT_];
      assert_int_equal(ce_analyze(&v, 0, n, a, sz, &e), CZ_OK);
      assert_true(sz[CE_RAW] > 0);
      int64_t best = INT64_MAX;
      for (int id = 0; id < CE_COUNT_; id++)
        if (sz[id] >= 0 && sz[id] < best)
          best = sz[id];
      for (int id = 0; id < CE_COUNT_; id++) {
        if (sz[id] < 0)
          continue;
        tried[id]++;
        uint8_t *buf;
        size_t len;
        assert_int_equal(ce_encode(&v, 0, n, id, a, a, &buf, &len, &e), CZ_OK);
        assert_int_equal((int64_t)len, sz[id]);
        ce_info_t info;
        assert_int_equal(ce_info(buf, len, &info, &e), CZ_OK);
        assert_int_equal(info.ci_codec, id);
        check_segment(&v, n, buf, len, a);
      }
      /* the chooser takes a smallest */
      uint8_t *buf;
      size_t len;
      assert_int_equal(ce_encode(&v, 0, n, CE_AUTO, a, a, &buf, &len, &e), CZ_OK);
      assert_int_equal((int64_t)len, best);
      arena_reset(a);
    }
  }
  /* each codec that applies to the kind was exercised */
  for (int id = 0; id < CE_COUNT_; id++)
    print_message("kind %d codec %s: %d segments\n", (int)kind, ce_name(id), tried[id]);
  assert_true(tried[CE_RAW] > 0 && tried[CE_RLE] > 0 && tried[CE_DICT] > 0 && tried[CE_DICT_RLE] > 0);
  if ((kind == TY_INT8 || kind == TY_BOOL))
    assert_true(tried[CE_FOR] > 0 && tried[CE_DELTA] > 0 && tried[CE_DELTA_RLE] > 0);
  if (kind == TY_TEXT)
    assert_true(tried[CE_PREFIX] > 0);
  arena_destroy(a);
}

static void test_int8(void **s) { (void)s; run_kind(TY_INT8); }
static void test_bool(void **s) { (void)s; run_kind(TY_BOOL); }
static void test_float8(void **s) { (void)s; run_kind(TY_FLOAT8); }
static void test_numeric(void **s) { (void)s; run_kind(TY_NUMERIC); }
static void test_text(void **s) { (void)s; run_kind(TY_TEXT); }

static uint8_t *enc(const vec_t *v, int n, int want, arena_t *a, size_t *len)
{
  err_t e;
  uint8_t *buf;
  assert_int_equal(ce_encode(v, 0, n, want, a, a, &buf, len, &e), CZ_OK);
  return buf;
}

static int codec_of(const uint8_t *buf, size_t len)
{
  ce_info_t info;
  err_t e;
  assert_int_equal(ce_info(buf, len, &info, &e), CZ_OK);
  return info.ci_codec;
}

static void test_chooser_picks_by_shape(void **s)
{
  (void)s;
  arena_t *a = arena_create(NULL, "t");
  err_t e;
  size_t len;
  vec_t v;
  int n = 4000;
  assert_int_equal(vec_init(&v, a, ty_plain(TY_INT8), n, &e), CZ_OK);
  for (int i = 0; i < n; i++)
    v.v_i64[i] = 1000000 + i; /* dense keys: deltas of 1 pack at 0 bits */
  uint8_t *b = enc(&v, n, CE_AUTO, a, &len);
  assert_true(codec_of(b, len) == CE_DELTA || codec_of(b, len) == CE_DELTA_RLE);
  assert_true(len < 100);
  for (int i = 0; i < n; i++)
    v.v_i64[i] = (int64_t)(cg_rand() & 0xfffff); /* random 20-bit: frame of reference */
  b = enc(&v, n, CE_AUTO, a, &len);
  assert_int_equal(codec_of(b, len), CE_FOR);
  assert_true(len < (size_t)n * 21 / 8 + 100);
  for (int i = 0; i < n; i++)
    v.v_i64[i] = 7;
  b = enc(&v, n, CE_AUTO, a, &len);
  assert_true(len < 80);
  vec_t sv;
  assert_int_equal(vec_init(&sv, a, ty_plain(TY_TEXT), n, &e), CZ_OK);
  static const char *cities[] = {"Amsterdam", "Berlin", "Copenhagen", "Dublin"};
  for (int i = 0; i < n; i++) {
    sv.v_str[i].s_ptr = cities[cg_below(4)];
    sv.v_str[i].s_len = (uint32_t)strlen(sv.v_str[i].s_ptr);
  }
  b = enc(&sv, n, CE_AUTO, a, &len);
  assert_int_equal(codec_of(b, len), CE_DICT);
  for (int i = 0; i < n; i++) {
    char *p = arena_alloc(a, 48);
    int l = snprintf(p, 48, "http://example.org/resource/item%08d", i);
    sv.v_str[i].s_ptr = p;
    sv.v_str[i].s_len = (uint32_t)l;
  }
  b = enc(&sv, n, CE_AUTO, a, &len);
  assert_int_equal(codec_of(b, len), CE_PREFIX);
  arena_destroy(a);
}

static void test_force_switch(void **s)
{
  (void)s;
  arena_t *a = arena_create(NULL, "t");
  err_t e;
  size_t len;
  vec_t v, sv;
  assert_int_equal(vec_init(&v, a, ty_plain(TY_INT8), 100, &e), CZ_OK);
  assert_int_equal(vec_init(&sv, a, ty_plain(TY_TEXT), 100, &e), CZ_OK);
  for (int i = 0; i < 100; i++) {
    v.v_i64[i] = i;
    sv.v_str[i].s_ptr = "x";
    sv.v_str[i].s_len = 1;
  }
  assert_int_equal(ce_id_by_name("dict_rle"), CE_DICT_RLE);
  assert_int_equal(ce_id_by_name("nonesuch"), -1);
  for (int id = 0; id < CE_COUNT_; id++) {
    assert_int_equal(ce_id_by_name(ce_name(id)), id);
    ce_force_codec(id);
    assert_int_equal(ce_forced_codec(), id);
    uint8_t *b = enc(&v, 100, CE_AUTO, a, &len);
    if (id != CE_PREFIX)
      assert_int_equal(codec_of(b, len), id);
    else
      assert_int_not_equal(codec_of(b, len), CE_PREFIX); /* not for integers: chooser */
    b = enc(&sv, 100, CE_AUTO, a, &len);
    if (id == CE_FOR || id == CE_DELTA || id == CE_DELTA_RLE)
      assert_true(codec_of(b, len) != id);
    else
      assert_int_equal(codec_of(b, len), id);
  }
  ce_force_codec(CE_AUTO);
  assert_int_equal(ce_forced_codec(), CE_AUTO);
  arena_destroy(a);
}

static void test_bitpack_every_width(void **s)
{
  (void)s;
  seed_rng();
  uint64_t vals[300], out[300];
  uint8_t buf[8 * 310];
  for (int w = 0; w <= 64; w++) {
    uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
    for (int i = 0; i < 300; i++)
      vals[i] = cg_rand() & mask;
    if (w)
      vals[5] = mask;
    ce_pack(buf, vals, 300, w);
    for (int t = 0; t < 20; t++) {
      uint64_t start = cg_below(300), k = cg_below(300 - start + 1);
      ce_unpack(buf, start, k, w, 3, out);
      for (uint64_t i = 0; i < k; i++)
        assert_true(out[i] == vals[start + i] + 3);
      if (start < 300)
        assert_true(ce_unpack_one(buf, start, w) == vals[start]);
    }
  }
}

static void test_min_max_skip_segments(void **s)
{
  (void)s;
  arena_t *a = arena_create(NULL, "t");
  err_t e;
  size_t len;
  vec_t v;
  assert_int_equal(vec_init(&v, a, ty_plain(TY_INT8), 101, &e), CZ_OK);
  for (int i = 0; i <= 100; i++)
    v.v_i64[i] = 100 + i;
  v.v_null[50] = 1;
  uint8_t *b = enc(&v, 101, CE_AUTO, a, &len);
  ce_info_t info;
  assert_int_equal(ce_info(b, len, &info, &e), CZ_OK);
  assert_int_equal(info.ci_min.d_i64, 100);
  assert_int_equal(info.ci_max.d_i64, 200);
  ce_pred_t p = {.p_op = CE_EQ, .p_val = {.d_i64 = 50}};
  assert_false(ce_may_match(&info, &p));
  p.p_op = CE_GT;
  p.p_val.d_i64 = 200;
  assert_false(ce_may_match(&info, &p));
  p.p_op = CE_GE;
  assert_true(ce_may_match(&info, &p));
  p.p_op = CE_IS_NULL;
  assert_true(ce_may_match(&info, &p));
  p.p_op = CE_RANGE;
  p.p_val.d_i64 = 10;
  p.p_hi.d_i64 = 100;
  p.p_lo_incl = true;
  p.p_hi_incl = false;
  assert_false(ce_may_match(&info, &p));
  p.p_hi_incl = true;
  assert_true(ce_may_match(&info, &p));
  arena_destroy(a);
}

static void test_sorted_extremes_and_wraps(void **s)
{
  (void)s;
  arena_t *a = arena_create(NULL, "t");
  err_t e;
  size_t len;
  vec_t v, out;
  int64_t x[] = {INT64_MIN, INT64_MIN, -1, 0, INT64_MAX};
  assert_int_equal(vec_init(&v, a, ty_plain(TY_INT8), 5, &e), CZ_OK);
  assert_int_equal(vec_init(&out, a, ty_plain(TY_INT8), 5, &e), CZ_OK);
  memcpy(v.v_i64, x, sizeof(x));
  for (int id = 0; id < CE_COUNT_; id++) {
    if (id == CE_PREFIX)
      continue;
    uint8_t *b = enc(&v, 5, id, a, &len);
    assert_int_equal(codec_of(b, len), id);
    assert_int_equal(ce_decode(b, len, &out, 0, a, &e), CZ_OK);
    assert_memory_equal(out.v_i64, x, sizeof(x));
    ce_pred_t p = {.p_op = CE_LT, .p_val = {.d_i64 = 0}};
    uint32_t sel[5], ns;
    assert_int_equal(ce_filter(b, len, &p, NULL, 0, sel, &ns, a, &e), CZ_OK);
    assert_int_equal(ns, 3);
    p.p_op = CE_GT;
    p.p_val.d_i64 = INT64_MAX;
    assert_int_equal(ce_filter(b, len, &p, NULL, 0, sel, &ns, a, &e), CZ_OK);
    assert_int_equal(ns, 0);
  }
  arena_destroy(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bitpack_every_width),
    cmocka_unit_test(test_int8),
    cmocka_unit_test(test_bool),
    cmocka_unit_test(test_float8),
    cmocka_unit_test(test_numeric),
    cmocka_unit_test(test_text),
    cmocka_unit_test(test_chooser_picks_by_shape),
    cmocka_unit_test(test_force_switch),
    cmocka_unit_test(test_min_max_skip_segments),
    cmocka_unit_test(test_sorted_extremes_and_wraps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
