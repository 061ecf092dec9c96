/* test_column_corrupt — damaged segments (random bit flips, overwritten
 * bytes, truncations) given to every reading entry point: each call either
 * fails with XX001 or returns a valid decode, and never reads out of
 * bounds (the sanitizer build runs this too). Fixed seed; CZ_TEST_SEED
 * replays another. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "col_gen.h"
#include "cz_test.h"

static void expect_ok_or_corrupt(int rc, const err_t *e)
{
  if (rc != CZ_OK && !err_is(e, SQLSTATE_DATA_CORRUPTED))
    fail_msg("error %s (%s), expected XX001", e->er_sqlstate, e->er_msg);
}

/* Every reader on buf[0, len) (a private copy, so that reads past len are
 * reads past the allocation and the sanitizer sees them). */
static void read_everything(const uint8_t *src, size_t len, uint32_t n_orig, arena_t *a)
{
  uint8_t *buf = malloc(len ? len : 1);
  memcpy(buf, src, len);
  err_t e;
  ce_info_t info;
  int rc = ce_info(buf, len, &info, &e);
  expect_ok_or_corrupt(rc, &e);
  if (rc != CZ_OK || info.ci_n > 2 * n_orig + 64) {
    free(buf);
    return;
  }
  uint32_t n = info.ci_n;
  ty_t t = ty_plain(cg_kinds[0]);
  static const ty_id_t by_phys[] = {TY_BOOL, TY_INT8, TY_FLOAT8, TY_NUMERIC, TY_TEXT};
  t = ty_plain(by_phys[info.ci_phys]);
  vec_t v;
  assert_int_equal(vec_init(&v, a, t, (int)n, &e), CZ_OK);
  expect_ok_or_corrupt(ce_decode(buf, len, &v, 0, a, &e), &e);
  uint32_t *sel = arena_alloc(a, sizeof(uint32_t) * (n + 1)), ns = 0;
  for (uint32_t i = 0; i < n; i += 1 + (uint32_t)cg_below(5))
    sel[ns++] = i;
  expect_ok_or_corrupt(ce_decode_sel(buf, len, sel, ns, &v, 0, a, &e), &e);
  if (n) {
    datum_t d;
    expect_ok_or_corrupt(ce_fetch(buf, len, (uint32_t)cg_below(n), &d, a, &e), &e);
  }
  datum_t k;
  cg_value(info.ci_phys, CG_RANDOM, 0, 1, a, &k);
  for (int op = CE_EQ; op <= CE_NOT_NULL; op++) {
    ce_pred_t p = {.p_op = (ce_op_t)op, .p_val = k, .p_hi = k, .p_lo_incl = true, .p_hi_incl = true,
                   .p_in = &k, .p_nin = 1};
    uint32_t *out = arena_alloc(a, sizeof(uint32_t) * (n + 1)), no;
    expect_ok_or_corrupt(ce_filter(buf, len, &p, NULL, 0, out, &no, a, &e), &e);
    if (no > n)
      fail_msg("filter selected %u of %u rows", no, n);
  }
  bool flag;
  datum_t cv;
  expect_ok_or_corrupt(ce_decode_const(buf, len, &flag, &cv, a, &e), &e);
  vec_t dict;
  uint32_t *codes;
  expect_ok_or_corrupt(ce_decode_dict(buf, len, &flag, &dict, &codes, a, &e), &e);
  ce_cursor_t c;
  rc = ce_cursor_open(&c, buf, len, a, &e);
  expect_ok_or_corrupt(rc, &e);
  if (rc == CZ_OK) {
    uint32_t pos = 0;
    while (pos < n) {
      uint32_t want = 1 + (uint32_t)cg_below(40); /* CZ_MIN evaluates twice */
      uint32_t m = CZ_MIN(n - pos, want);
      datum_t rv;
      (void)ce_cursor_run(&c, &rv);
      rc = cg_below(2) ? ce_cursor_skip(&c, m, &e) : ce_cursor_read(&c, m, &v, 0, &e);
      expect_ok_or_corrupt(rc, &e);
      if (rc != CZ_OK)
        break;
      pos += m;
    }
  }
  free(buf);
}

static void test_damaged_segments(void **s)
{
  (void)s;
  const char *env = getenv("CZ_TEST_SEED");
  cg_state = env && *env ? cz_test_seed() : 99;
  arena_t *a = arena_create(NULL, "t");
  err_t e;
  int rounds = 0;
  for (size_t ki = 0; ki < CZ_ARRAY_LEN(cg_kinds); ki++) {
    for (int dist = 0; dist < CG_DIST_COUNT; dist++) {
      int n = dist % 3 == 0 ? 1 + (int)cg_below(8) : 200 + (int)cg_below(200);
      vec_t v;
      assert_int_equal(vec_init(&v, a, ty_plain(cg_kinds[ki]), n, &e), CZ_OK);
      cg_fill(&v, n, dist, a);
      int64_t sz[CE_COUNT_];
      assert_int_equal(ce_analyze(&v, 0, n, a, sz, &e), CZ_OK);
      for (int id = 0; id < CE_COUNT_; id++) {
        if (sz[id] < 0)
          continue;
        uint8_t *buf;
        size_t len;
        assert_int_equal(ce_encode(&v, 0, n, id, a, a, &buf, &len, &e), CZ_OK);
        uint8_t *bad = arena_alloc(a, len);
        for (int t = 0; t < 150; t++) {
          memcpy(bad, buf, len);
          size_t blen = len;
          switch (cg_below(4)) {
          case 0: /* a few bit flips anywhere */
            for (int f = 0; f < 1 + (int)cg_below(3); f++) {
              size_t at = cg_below(len);
              bad[at] ^= (uint8_t)(1u << cg_below(8));
            }
            break;
          case 1: /* a random byte in the first 64 (header, lengths) */
            bad[cg_below(CZ_MIN(len, 64))] = (uint8_t)cg_rand();
            break;
          case 2: /* truncation */
            blen = cg_below(len);
            break;
          default: /* a 32-bit word of junk */
            if (len >= 4) {
              uint32_t j = (uint32_t)cg_rand();
              memcpy(bad + cg_below(len - 3), &j, 4);
            }
            break;
          }
          read_everything(bad, blen, (uint32_t)n, a);
          rounds++;
        }
        arena_reset(a);
        /* the arena was reset: rebuild the input for the next codec */
        assert_int_equal(vec_init(&v, a, ty_plain(cg_kinds[ki]), n, &e), CZ_OK);
        uint64_t keep = cg_state;
        cg_fill(&v, n, dist, a);
        cg_state = keep;
      }
    }
  }
  print_message("%d damaged segments read\n", rounds);
  arena_destroy(a);
}

static void test_wrong_inputs(void **s)
{
  (void)s;
  err_t e;
  ce_info_t info;
  uint8_t z[64] = {0};
  assert_int_equal(ce_info(NULL, 0, &info, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_DATA_CORRUPTED));
  assert_int_equal(ce_info(z, sizeof(z), &info, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_DATA_CORRUPTED));
  z[0] = CE_HEADER_MAGIC;
  z[1] = CE_FORMAT_VERSION + 1;
  assert_int_equal(ce_info(z, sizeof(z), &info, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_DATA_CORRUPTED));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_wrong_inputs),
    cmocka_unit_test(test_damaged_segments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
