/* ty_wide.h — unsigned 256-bit magnitudes for NUMERIC arithmetic, whose
 * intermediate products and scaled dividends do not fit in 128 bits. */
#ifndef CZ_TY_WIDE_H
#define CZ_TY_WIDE_H

#include <stdbool.h>

typedef unsigned __int128 u128_t;

typedef struct u256_s {
  u128_t w_hi;
  u128_t w_lo;
} u256_t;

static inline u256_t u256_from(u128_t v)
{
  u256_t r = {0, v};
  return r;
}

static inline int u256_cmp(u256_t a, u256_t b)
{
  if (a.w_hi != b.w_hi)
    return a.w_hi < b.w_hi ? -1 : 1;
  if (a.w_lo != b.w_lo)
    return a.w_lo < b.w_lo ? -1 : 1;
  return 0;
}

static inline u256_t u256_add(u256_t a, u256_t b)
{
  u256_t r;
  r.w_lo = a.w_lo + b.w_lo;
  r.w_hi = a.w_hi + b.w_hi + (r.w_lo < a.w_lo);
  return r;
}

/* a - b, a >= b. */
static inline u256_t u256_sub(u256_t a, u256_t b)
{
  u256_t r;
  r.w_lo = a.w_lo - b.w_lo;
  r.w_hi = a.w_hi - b.w_hi - (a.w_lo < b.w_lo);
  return r;
}

/* Full product of two 128-bit values. */
u256_t u256_mul128(u128_t a, u128_t b);
/* a * b; false when the product does not fit in 256 bits. */
bool u256_mul(u256_t a, u128_t b, u256_t *out);
/* a mod d for a 256-bit divisor (d != 0). */
u256_t u256_mod(u256_t a, u256_t d);
/* Quotient and remainder of a / d (d != 0). */
u256_t u256_divmod(u256_t a, u128_t d, u128_t *rem);

#endif /* CZ_TY_WIDE_H */
