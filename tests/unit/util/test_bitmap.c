/* test_bitmap — set/clear/test, word-at-a-time search, count, resize. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "cz_test.h"
#include "util/util.h"

#define NONE ((size_t)-1)

static void test_bitmap_init_is_zeroed(void **state)
{
  bitmap_t bm;
  err_t e;
  (void)state;
  assert_int_equal(bitmap_init(&bm, 1000, &e), CZ_OK);
  assert_int_equal(bm.bm_bits, 1000);
  assert_int_equal(bitmap_count(&bm, 0, 1000), 0);
  assert_int_equal(bitmap_find_set(&bm, 0, 1000), NONE);
  assert_int_equal(bitmap_find_clear(&bm, 0, 1000), 0);
  bitmap_free(&bm);
  assert_null(bm.bm_words);
}

static void test_bitmap_set_clear_test(void **state)
{
  bitmap_t bm;
  err_t e;
  (void)state;
  bitmap_init(&bm, 200, &e);
  bitmap_set(&bm, 0);
  bitmap_set(&bm, 63);
  bitmap_set(&bm, 64);
  bitmap_set(&bm, 199);
  assert_true(bitmap_test(&bm, 0));
  assert_true(bitmap_test(&bm, 63));
  assert_true(bitmap_test(&bm, 64));
  assert_true(bitmap_test(&bm, 199));
  assert_false(bitmap_test(&bm, 1));
  assert_false(bitmap_test(&bm, 65));
  bitmap_clear(&bm, 63);
  assert_false(bitmap_test(&bm, 63));
  assert_int_equal(bitmap_count(&bm, 0, 200), 3);
  bitmap_free(&bm);
}

static void test_bitmap_find_respects_from_and_limit(void **state)
{
  bitmap_t bm;
  err_t e;
  (void)state;
  bitmap_init(&bm, 300, &e);
  bitmap_set(&bm, 5);
  bitmap_set(&bm, 130);
  assert_int_equal(bitmap_find_set(&bm, 0, 300), 5);
  assert_int_equal(bitmap_find_set(&bm, 5, 300), 5);
  assert_int_equal(bitmap_find_set(&bm, 6, 300), 130);
  assert_int_equal(bitmap_find_set(&bm, 6, 130), NONE);
  assert_int_equal(bitmap_find_set(&bm, 6, 131), 130);
  assert_int_equal(bitmap_find_set(&bm, 131, 300), NONE);
  assert_int_equal(bitmap_find_set(&bm, 300, 300), NONE);
  assert_int_equal(bitmap_find_set(&bm, 0, 100000), 5); /* limit clamped */
  for (size_t i = 0; i < 300; i++)
    bitmap_set(&bm, i);
  bitmap_clear(&bm, 250);
  assert_int_equal(bitmap_find_clear(&bm, 0, 300), 250);
  assert_int_equal(bitmap_find_clear(&bm, 0, 250), NONE);
  assert_int_equal(bitmap_find_clear(&bm, 251, 300), NONE);
  bitmap_free(&bm);
}

/* A full bitmap whose size is not a multiple of 64 has no clear bit: the
 * unused tail of the last word must not be reported. */
static void test_bitmap_find_clear_ignores_tail_bits(void **state)
{
  bitmap_t bm;
  err_t e;
  (void)state;
  bitmap_init(&bm, 70, &e);
  for (size_t i = 0; i < 70; i++)
    bitmap_set(&bm, i);
  assert_int_equal(bitmap_find_clear(&bm, 0, 70), NONE);
  assert_int_equal(bitmap_find_clear(&bm, 0, (size_t)-1), NONE);
  assert_int_equal(bitmap_count(&bm, 0, (size_t)-1), 70);
  bitmap_free(&bm);
}

/* Searches and counts agree with a bit-by-bit model on random bitmaps. */
static void test_bitmap_matches_naive_model(void **state)
{
  uint64_t rng = cz_test_seed() | 1;
  (void)state;
  for (int round = 0; round < 50; round++) {
    bitmap_t bm;
    err_t e;
    rng = hash64_int(rng);
    size_t bits = rng % 700 + 1;
    unsigned density = (unsigned)(rng >> 20) % 101;
    bitmap_init(&bm, bits, &e);
    for (size_t i = 0; i < bits; i++)
      if (hash64_int(rng + i) % 100 < density)
        bitmap_set(&bm, i);
    for (int q = 0; q < 40; q++) {
      rng = hash64_int(rng);
      size_t from = rng % (bits + 2), limit = (rng >> 32) % (bits + 2);
      size_t want_set = NONE, want_clear = NONE, want_count = 0;
      for (size_t i = from; i < limit && i < bits; i++) {
        if (bitmap_test(&bm, i)) {
          want_count++;
          if (want_set == NONE)
            want_set = i;
        } else if (want_clear == NONE) {
          want_clear = i;
        }
      }
      assert_int_equal(bitmap_find_set(&bm, from, limit), want_set);
      assert_int_equal(bitmap_find_clear(&bm, from, limit), want_clear);
      assert_int_equal(bitmap_count(&bm, from, limit), want_count);
    }
    bitmap_free(&bm);
  }
}

static void test_bitmap_resize_keeps_bits_zeroes_new(void **state)
{
  bitmap_t bm;
  err_t e;
  (void)state;
  bitmap_init(&bm, 100, &e);
  bitmap_set(&bm, 3);
  bitmap_set(&bm, 99);
  assert_int_equal(bitmap_resize(&bm, 5000, &e), CZ_OK);
  assert_int_equal(bm.bm_bits, 5000);
  assert_true(bitmap_test(&bm, 3));
  assert_true(bitmap_test(&bm, 99));
  assert_int_equal(bitmap_count(&bm, 0, 5000), 2);
  assert_int_equal(bitmap_find_set(&bm, 100, 5000), NONE);
  bitmap_free(&bm);
}

/* Shrinking then growing must not resurrect bits cut off by the shrink. */
static void test_bitmap_shrink_then_grow_clears_cut_bits(void **state)
{
  bitmap_t bm;
  err_t e;
  (void)state;
  bitmap_init(&bm, 128, &e);
  for (size_t i = 0; i < 128; i++)
    bitmap_set(&bm, i);
  assert_int_equal(bitmap_resize(&bm, 10, &e), CZ_OK);
  assert_int_equal(bitmap_count(&bm, 0, 10), 10);
  assert_int_equal(bitmap_resize(&bm, 128, &e), CZ_OK);
  assert_int_equal(bitmap_count(&bm, 0, 128), 10);
  assert_int_equal(bitmap_find_clear(&bm, 0, 128), 10);
  assert_int_equal(bitmap_resize(&bm, 0, &e), CZ_OK);
  assert_int_equal(bitmap_find_clear(&bm, 0, 128), NONE);
  bitmap_free(&bm);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bitmap_init_is_zeroed),
      cmocka_unit_test(test_bitmap_set_clear_test),
      cmocka_unit_test(test_bitmap_find_respects_from_and_limit),
      cmocka_unit_test(test_bitmap_find_clear_ignores_tail_bits),
      cmocka_unit_test(test_bitmap_matches_naive_model),
      cmocka_unit_test(test_bitmap_resize_keeps_bits_zeroes_new),
      cmocka_unit_test(test_bitmap_shrink_then_grow_clears_cut_bits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
