/* ty_wide — 256-bit multiply and divide for NUMERIC (see ty_wide.h). */
#include "types/ty_wide.h"

#include <stdint.h>

u256_t u256_mul128(u128_t a, u128_t b)
{
  uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64);
  uint64_t b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64);
  u128_t p00 = (u128_t)a0 * b0, p01 = (u128_t)a0 * b1;
  u128_t p10 = (u128_t)a1 * b0, p11 = (u128_t)a1 * b1;
  /* Middle column: the high half of p00 plus the low halves of the cross
   * products; its carry-out goes to the high word with their high halves. */
  u128_t mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;
  u256_t r;
  r.w_lo = (mid << 64) | (uint64_t)p00;
  r.w_hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

bool u256_mul(u256_t a, u128_t b, u256_t *out)
{
  u256_t lo = u256_mul128(a.w_lo, b);
  u256_t hi = u256_mul128(a.w_hi, b);
  if (hi.w_hi != 0)
    return false;
  u128_t top = lo.w_hi + hi.w_lo;
  if (top < lo.w_hi)
    return false;
  out->w_lo = lo.w_lo;
  out->w_hi = top;
  return true;
}

u256_t u256_divmod(u256_t a, u128_t d, u128_t *rem)
{
  if (a.w_hi == 0) {
    *rem = a.w_lo % d;
    return u256_from(a.w_lo / d);
  }
  /* Long division, one bit at a time: NUMERIC division is rare enough and
   * at most 256 steps of shifts and compares. r < d always; the bit shifted
   * out of r's top says r << 1 exceeds 128 bits and so certainly d. */
  u256_t q = {0, 0};
  u128_t r = 0;
  for (int i = 255; i >= 0; i--) {
    u128_t bit = i >= 128 ? (a.w_hi >> (i - 128)) & 1 : (a.w_lo >> i) & 1;
    u128_t carry = r >> 127;
    r = (r << 1) | bit;
    if (carry || r >= d) {
      r -= d;
      if (i >= 128)
        q.w_hi |= (u128_t)1 << (i - 128);
      else
        q.w_lo |= (u128_t)1 << i;
    }
  }
  *rem = r;
  return q;
}

u256_t u256_mod(u256_t a, u256_t d)
{
  if (d.w_hi == 0) {
    u128_t rem;
    u256_divmod(a, d.w_lo, &rem);
    return u256_from(rem);
  }
  /* Shift-and-subtract: r stays below d < 2^256, and r << 1 | bit fits
   * unless r's top bit is set, in which case r << 1 exceeds d anyway. */
  u256_t r = {0, 0};
  for (int i = 255; i >= 0; i--) {
    u128_t bit = i >= 128 ? (a.w_hi >> (i - 128)) & 1 : (a.w_lo >> i) & 1;
    bool carry = (r.w_hi >> 127) != 0;
    r.w_hi = (r.w_hi << 1) | (r.w_lo >> 127);
    r.w_lo = (r.w_lo << 1) | bit;
    if (carry || u256_cmp(r, d) >= 0)
      r = u256_sub(r, d); /* wraps correctly when carry: the true value is r + 2^256 */
  }
  return r;
}
