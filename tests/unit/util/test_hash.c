/* test_hash — hash64 is wyhash final v4.3 and never changes; hash64_int mixes.
 *
 * hash64 values are stored on disk as page checksums, so the pinned values
 * below must never be edited to make a change pass: a change that breaks
 * them makes every existing database unreadable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/util.h"

/* The upstream wyhash test vectors (test_vector.cpp: message i, seed i). */
static void test_hash64_matches_wyhash_vectors(void **state)
{
  (void)state;
  assert_int_equal(hash64("", 0, 0), 0x93228a4de0eec5a2ull);
  assert_int_equal(hash64("a", 1, 1), 0xc5bac3db178713c4ull);
  assert_int_equal(hash64("abc", 3, 2), 0xa97f2f7b1d9b3314ull);
  assert_int_equal(hash64("message digest", 14, 3), 0x786d1f1df3801df4ull);
  assert_int_equal(hash64("abcdefghijklmnopqrstuvwxyz", 26, 4), 0xdca5a8138ad37c87ull);
}

/* wyhash final v4.3 reference values for data[i] = i % 256 on the
 * three-lane path and its boundaries (seeds 0 and 7). */
static void test_hash64_matches_wyhash_long_inputs(void **state)
{
  static const struct {
    size_t len;
    uint64_t seed;
    uint64_t want;
  } vec[] = {
      {47, 0, 0xe2cb58f6ab8e4419ull},  {48, 0, 0xecbfb7ff9e3d9a97ull},
      {49, 0, 0x0691f11bac523a91ull},  {96, 0, 0x948137d69794b570ull},
      {97, 0, 0x2501575738d109beull},  {1024, 0, 0x804dd1e6f38e5361ull},
      {48, 7, 0x2d369a1639889127ull},  {1024, 7, 0x542171872b2ca1c0ull},
  };
  uint8_t buf[1024];
  (void)state;
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)(i % 256);
  for (size_t i = 0; i < CZ_ARRAY_LEN(vec); i++)
    assert_int_equal(hash64(buf, vec[i].len, vec[i].seed), vec[i].want);
}

/* Values of this implementation on every code path (short, <=16, <=48,
 * >48 with tails, a full page), pinned because they are on disk. */
static void test_hash64_pinned_values(void **state)
{
  static const struct {
    size_t len;
    uint64_t want;
  } pins[] = {
      {1, 0x7e23dcb4798db9f9ull},
      {3, 0x21b8d3fbfbd3d767ull},
      {4, 0x3e62e2be06eae2a4ull},
      {8, 0x65169960569f2a86ull},
      {15, 0xa8981d82465f4612ull},
      {16, 0xc9d66a7c5703966cull},
      {17, 0xc7d9c19ef0762e64ull},
      {33, 0x624bd05ca8b5dd8full},
      {48, 0x139c82b64800485aull},
      {49, 0x4ba45e19a1ee7ea4ull},
      {95, 0x91d84bd32cfdf070ull},
      {96, 0x82cc7b1c729a98ceull},
      {100, 0x99adf9552d95c5e0ull},
      {1000, 0xb2f6281753f742c4ull},
      {8192, 0x60fab20c9bf5812cull},
  };
  uint8_t buf[8192];
  (void)state;
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)(i * 7 + 1);
  for (size_t i = 0; i < CZ_ARRAY_LEN(pins); i++)
    assert_int_equal(hash64(buf, pins[i].len, 42), pins[i].want);
}

static void test_hash64_every_byte_matters(void **state)
{
  uint8_t buf[200];
  (void)state;
  memset(buf, 0x5a, sizeof buf);
  for (size_t len = 1; len <= sizeof buf; len++) {
    uint64_t h = hash64(buf, len, 0);
    for (size_t i = 0; i < len; i++) {
      buf[i] ^= 1;
      assert_true(hash64(buf, len, 0) != h);
      buf[i] ^= 1;
    }
  }
}

static void test_hash64_length_and_seed_matter(void **state)
{
  static const uint8_t zeros[64];
  (void)state;
  for (size_t len = 0; len < 64; len++) {
    assert_true(hash64(zeros, len, 0) != hash64(zeros, len + 1, 0));
    assert_true(hash64(zeros, len, 0) != hash64(zeros, len, 1));
  }
}

static void test_hash64_ignores_alignment(void **state)
{
  uint8_t buf[300];
  (void)state;
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)(i * 13);
  uint64_t h = hash64(buf + 1, 200, 9);
  uint8_t copy[208];
  for (size_t off = 0; off < 8; off++) {
    memcpy(copy + off, buf + 1, 200);
    assert_int_equal(hash64(copy + off, 200, 9), h);
  }
}

/* Flipping one input bit flips about half the output bits on average. */
static void test_hash64_int_avalanche(void **state)
{
  uint64_t total = 0, n = 0;
  (void)state;
  for (uint64_t x = 0; x < 1000; x++) {
    uint64_t h = hash64_int(x);
    for (int b = 0; b < 64; b++) {
      total += (uint64_t)__builtin_popcountll(h ^ hash64_int(x ^ ((uint64_t)1 << b)));
      n++;
    }
  }
  assert_in_range(total * 100 / n, 3000, 3400);
}

static void test_hash64_int_pinned_and_nonzero(void **state)
{
  (void)state;
  assert_true(hash64_int(0) != 0);
  assert_int_equal(hash64_int(0), 0xe220a8397b1dcdafull);
  assert_int_equal(hash64_int(1), 0x910a2dec89025cc1ull);
  assert_true(hash64_int(1) != hash64_int(2));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hash64_matches_wyhash_vectors),
      cmocka_unit_test(test_hash64_matches_wyhash_long_inputs),
      cmocka_unit_test(test_hash64_pinned_values),
      cmocka_unit_test(test_hash64_every_byte_matters),
      cmocka_unit_test(test_hash64_length_and_seed_matter),
      cmocka_unit_test(test_hash64_ignores_alignment),
      cmocka_unit_test(test_hash64_int_avalanche),
      cmocka_unit_test(test_hash64_int_pinned_and_nonzero),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
