/* hash — hash64, a wyhash-style 64-bit hash, and hash64_int, an integer mixer.
 *
 * Design notes: hash64 computes exactly Wang Yi's wyhash, final version 4.3
 * (public domain; default secret, WYHASH_CONDOM 1), so its output can be
 * checked against the upstream test vectors: input is read as little-endian 64-bit words,
 * each pair is folded by a 64x64->128-bit multiply whose halves are xored
 * ("mum"), with three independent lanes for inputs over 48 bytes so that
 * the multiplies pipeline; it runs at several GB/s, which matters because
 * every 8 KB page read is checksummed. Tails are read with overlapping loads
 * instead of a byte loop. The result is stored on disk (page checksums), so
 * the constants, the byte order (always little-endian reads) and the
 * algorithm must never change; tests/unit/util/test_hash pins known values.
 *
 * hash64_int is the splitmix64 output function (Steele, Lea and Flood,
 * "Fast splittable pseudorandom number generators", 2014), with the golden
 * gamma added first so that 0 does not map to 0.
 */
#include <string.h>

#include "util/util.h"

/* wyhash's default secret (_wyp of final version 4.3). */
static const uint64_t hash_p0 = 0x2d358dccaa6c78a5ull;
static const uint64_t hash_p1 = 0x8bb84b93962eacc9ull;
static const uint64_t hash_p2 = 0x4b33a62ed433d4a3ull;
static const uint64_t hash_p3 = 0x4d5a2da51de1aa47ull;

static inline uint64_t hash_mix(uint64_t a, uint64_t b)
{
  __uint128_t r = (__uint128_t)a * b;
  return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t hash_r64(const uint8_t *p)
{
  uint64_t v;
  memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline uint64_t hash_r32(const uint8_t *p)
{
  uint32_t v;
  memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}

/* 1 to 3 bytes: first, middle and last byte, so every byte counts. */
static inline uint64_t hash_r3(const uint8_t *p, size_t k)
{
  return ((uint64_t)p[0] << 16) | ((uint64_t)p[k >> 1] << 8) | p[k - 1];
}

uint64_t hash64(const void *data, size_t len, uint64_t seed)
{
  const uint8_t *p = data;
  uint64_t a, b;
  __uint128_t r;

  seed ^= hash_mix(seed ^ hash_p0, hash_p1);
  if (CZ_LIKELY(len <= 16)) {
    if (len >= 4) {
      size_t mid = (len >> 3) << 2;
      a = (hash_r32(p) << 32) | hash_r32(p + mid);
      b = (hash_r32(p + len - 4) << 32) | hash_r32(p + len - 4 - mid);
    } else if (len > 0) {
      a = hash_r3(p, len);
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    size_t i = len;
    if (i >= 48) {
      uint64_t s1 = seed, s2 = seed;
      do {
        seed = hash_mix(hash_r64(p) ^ hash_p1, hash_r64(p + 8) ^ seed);
        s1 = hash_mix(hash_r64(p + 16) ^ hash_p2, hash_r64(p + 24) ^ s1);
        s2 = hash_mix(hash_r64(p + 32) ^ hash_p3, hash_r64(p + 40) ^ s2);
        p += 48;
        i -= 48;
      } while (i >= 48);
      seed ^= s1 ^ s2;
    }
    while (i > 16) {
      seed = hash_mix(hash_r64(p) ^ hash_p1, hash_r64(p + 8) ^ seed);
      i -= 16;
      p += 16;
    }
    /* The last 16 bytes, overlapping what came before when i < 16. */
    a = hash_r64(p + i - 16);
    b = hash_r64(p + i - 8);
  }
  a ^= hash_p1;
  b ^= seed;
  r = (__uint128_t)a * b;
  a = (uint64_t)r;
  b = (uint64_t)(r >> 64);
  return hash_mix(a ^ hash_p0 ^ (uint64_t)len, b ^ hash_p1);
}

uint64_t hash64_int(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
