/* ty_num — NUMERIC arithmetic on scaled 128-bit integers.
 *
 * Design notes: a value is n_val * 10^-n_scale with |n_val| < 10^38.
 * Operations work on sign and 256-bit magnitude, so that no intermediate
 * (aligned operands, full products, scaled dividends) can overflow; the
 * result keeps PostgreSQL's scale (add/sub: the larger scale; mul: the sum
 * of the scales; div: select_div_scale's rule) unless it then has more than
 * 38 digits, in which case it is rounded (half away from zero) to the
 * largest scale at which it fits. A value whose integer part alone has more
 * than 38 digits is 22003. PostgreSQL has no such digit limit; this is the
 * one place where Cadenza's NUMERIC is narrower (types/README.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "types/ty_wide.h"
#include "types/types_int.h"

static const char ty_num_overflow_msg[] = "value overflows numeric format";

/* 10^0 .. 10^38, as constant expressions so the table needs no start-up. */
static const u128_t ty_pow10[39] = {
  (u128_t)UINT64_C(1),
  (u128_t)UINT64_C(10),
  (u128_t)UINT64_C(100),
  (u128_t)UINT64_C(1000),
  (u128_t)UINT64_C(10000),
  (u128_t)UINT64_C(100000),
  (u128_t)UINT64_C(1000000),
  (u128_t)UINT64_C(10000000),
  (u128_t)UINT64_C(100000000),
  (u128_t)UINT64_C(1000000000),
  (u128_t)UINT64_C(10000000000),
  (u128_t)UINT64_C(100000000000),
  (u128_t)UINT64_C(1000000000000),
  (u128_t)UINT64_C(10000000000000),
  (u128_t)UINT64_C(100000000000000),
  (u128_t)UINT64_C(1000000000000000),
  (u128_t)UINT64_C(10000000000000000),
  (u128_t)UINT64_C(100000000000000000),
  (u128_t)UINT64_C(1000000000000000000),
  (u128_t)UINT64_C(10000000000000000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(10),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(100),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(1000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(10000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(100000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(1000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(10000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(100000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(1000000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(10000000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(100000000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(1000000000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(10000000000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(100000000000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(1000000000000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(10000000000000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(100000000000000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(1000000000000000000),
  (u128_t)UINT64_C(10000000000000000000) * UINT64_C(10000000000000000000)
};

unsigned __int128 ty_pow10_u128(int k)
{
  return ty_pow10[k];
}

int ty_digits_u128(unsigned __int128 v)
{
  int d = 1;
  while (d < 39 && v >= ty_pow10_u128(d))
    d++;
  return d;
}

int ty_u128_to_dec(unsigned __int128 v, char *buf)
{
  /* At most two 128-bit divisions split v into 64-bit chunks of 19
   * digits; the digits then come from cheap 64-bit arithmetic. */
  const uint64_t chunk = UINT64_C(10000000000000000000);
  uint64_t part[3];
  int np = 0;
  while (v >= chunk) {
    part[np++] = (uint64_t)(v % chunk);
    v /= chunk;
  }
  char tmp[24];
  int n = 0, t = 0;
  uint64_t top = (uint64_t)v;
  do {
    tmp[t++] = (char)('0' + top % 10);
    top /= 10;
  } while (top);
  while (t > 0)
    buf[n++] = tmp[--t];
  while (np > 0) {
    uint64_t p = part[--np];
    for (int k = 18; k >= 0; k--) {
      buf[n + k] = (char)('0' + p % 10);
      p /= 10;
    }
    n += 19;
  }
  return n;
}

static u128_t ty_num_mag(const num_t *n)
{
  return n->n_val < 0 ? (u128_t)0 - (u128_t)n->n_val : (u128_t)n->n_val;
}

/* Divides m by 10^k rounding half away from zero (on the magnitude, so
 * the sign does not matter). For k > 38 it first truncates by 10^(k-38):
 * rounding half up by an even power of ten depends only on the last
 * division's remainder, so this is not a double rounding. */
static u256_t ty_wide_round_down(u256_t m, int k)
{
  u128_t rem;
  if (k <= 0)
    return m;
  if (k > 38) {
    m = u256_divmod(m, ty_pow10_u128(k - 38), &rem);
    k = 38;
  }
  u128_t p = ty_pow10_u128(k);
  u256_t q = u256_divmod(m, p, &rem);
  if (rem >= p - rem) /* rem * 2 >= p without overflow */
    q = u256_add(q, u256_from(1));
  return q;
}

static int ty_wide_digits(u256_t m)
{
  int d = 0;
  u128_t rem;
  while (m.w_hi != 0) {
    m = u256_divmod(m, ty_pow10_u128(38), &rem);
    d += 38;
  }
  return d + ty_digits_u128(m.w_lo);
}

/* Makes a num_t of sign and magnitude m at scale, rounding to fewer
 * decimals when it has more than 38 digits or a scale over 38. */
static int ty_num_finish(bool neg, u256_t m, int scale, num_t *out, err_t *e)
{
  u256_t lim = u256_from(ty_pow10_u128(NUM_MAX_DIGITS));
  if (scale > NUM_MAX_DIGITS || u256_cmp(m, lim) >= 0) {
    int drop = CZ_MAX(scale - NUM_MAX_DIGITS, ty_wide_digits(m) - NUM_MAX_DIGITS);
    drop = CZ_MIN(drop, scale);
    m = ty_wide_round_down(m, drop);
    scale -= drop;
    if (scale > 0 && u256_cmp(m, lim) >= 0) {
      /* Rounding carried into a new digit (9.99 -> 10.0): the dropped
       * digit is a zero, so this is exact. */
      m = ty_wide_round_down(m, 1);
      scale--;
    }
  }
  if (u256_cmp(m, lim) >= 0)
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "%s", ty_num_overflow_msg);
  out->n_val = neg && m.w_lo != 0 ? -(__int128)m.w_lo : (__int128)m.w_lo;
  out->n_scale = (int16_t)scale;
  return CZ_OK;
}

int num_from_i64(int64_t v, num_t *out)
{
  out->n_val = v;
  out->n_scale = 0;
  return CZ_OK;
}

int num_from_f64(double v, int scale, num_t *out, err_t *e)
{
  if (v != v)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "cannot convert NaN to numeric");
  if (v > 1.7976931348623157e308 || v < -1.7976931348623157e308)
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "cannot convert infinity to numeric");
  /* PostgreSQL converts through 15 significant digits (DBL_DIG), so that
   * 0.1::float8::numeric is 0.1 and not the binary fraction's expansion. */
  char buf[64];
  int n = snprintf(buf, sizeof(buf), "%.15g", v);
  num_t r;
  if (ty_num_parse_rounding(buf, (size_t)n, &r, e) != CZ_OK)
    return CZ_ERR;
  if (scale >= 0)
    return num_rescale(&r, scale, out, e);
  *out = r;
  return CZ_OK;
}

double num_to_f64(const num_t *n)
{
  u128_t m = ty_num_mag(n);
  /* Both operands exact in a double: IEEE division rounds correctly. */
  if (m <= ((u128_t)1 << 53) && n->n_scale <= 22) {
    double d = (double)m / (double)ty_pow10_u128(n->n_scale);
    return n->n_val < 0 ? -d : d;
  }
  char buf[TY_NUM_TEXT_MAX];
  ty_num_format(n, buf);
  double d;
  if (ty_f64_parse(buf, strlen(buf), false, &d, NULL) != CZ_OK)
    return n->n_val < 0 ? -1e308 : 1e308;
  return d;
}

int num_rescale(const num_t *n, int scale, num_t *out, err_t *e)
{
  if (scale < 0 || scale > NUM_MAX_DIGITS)
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "numeric scale %d is out of range", scale);
  bool neg = n->n_val < 0;
  u256_t m = u256_from(ty_num_mag(n));
  if (scale >= n->n_scale) {
    m = u256_mul128(m.w_lo, ty_pow10_u128(scale - n->n_scale));
  } else {
    m = ty_wide_round_down(m, n->n_scale - scale);
  }
  if (u256_cmp(m, u256_from(ty_pow10_u128(NUM_MAX_DIGITS))) >= 0)
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "%s", ty_num_overflow_msg);
  out->n_val = neg ? -(__int128)m.w_lo : (__int128)m.w_lo;
  out->n_scale = (int16_t)scale;
  return CZ_OK;
}

/* a ± b on signs and magnitudes aligned at the larger scale. */
static int ty_num_addsub(const num_t *a, const num_t *b, bool negate_b, num_t *out, err_t *e)
{
  int scale = CZ_MAX(a->n_scale, b->n_scale);
  u256_t ma = u256_mul128(ty_num_mag(a), ty_pow10_u128(scale - a->n_scale));
  u256_t mb = u256_mul128(ty_num_mag(b), ty_pow10_u128(scale - b->n_scale));
  bool na = a->n_val < 0, nb = (b->n_val < 0) != negate_b;
  if (b->n_val == 0)
    nb = false;
  if (na == nb)
    return ty_num_finish(na, u256_add(ma, mb), scale, out, e);
  int c = u256_cmp(ma, mb);
  if (c >= 0)
    return ty_num_finish(na && c != 0, u256_sub(ma, mb), scale, out, e);
  return ty_num_finish(nb, u256_sub(mb, ma), scale, out, e);
}

/* Values that fit in 64 bits brought to the same scale in 128 bits
 * (|v| < 2^63 times 10^18 < 2^60 stays below 2^123), for the fast paths
 * of add and subtract; false when they do not fit or the scales are too
 * far apart. */
static bool ty_num_align64(const num_t *a, const num_t *b, __int128 *va, __int128 *vb, int *scale)
{
  if (a->n_val > INT64_MAX || a->n_val < INT64_MIN || b->n_val > INT64_MAX ||
      b->n_val < INT64_MIN)
    return false;
  int d = a->n_scale - b->n_scale;
  if (d > 18 || d < -18)
    return false;
  *scale = CZ_MAX(a->n_scale, b->n_scale);
  *va = d < 0 ? a->n_val * (__int128)ty_pow10_u128(-d) : a->n_val;
  *vb = d > 0 ? b->n_val * (__int128)ty_pow10_u128(d) : b->n_val;
  return true;
}

int num_add(const num_t *a, const num_t *b, num_t *out, err_t *e)
{
  /* The common case: equal scales and no overflow stays in 128 bits. */
  if (a->n_scale != b->n_scale) {
    __int128 va, vb;
    int scale;
    if (ty_num_align64(a, b, &va, &vb, &scale) && scale <= NUM_MAX_DIGITS) {
      __int128 r = va + vb, lim = (__int128)ty_pow10_u128(NUM_MAX_DIGITS);
      if (r < lim && r > -lim) {
        out->n_val = r;
        out->n_scale = (int16_t)scale;
        return CZ_OK;
      }
    }
  }
  if (a->n_scale == b->n_scale) {
    /* |a|,|b| < 10^38, but 2 * 10^38 passes __int128's 1.7 * 10^38 */
    __int128 r, lim = (__int128)ty_pow10_u128(NUM_MAX_DIGITS);
    if (!__builtin_add_overflow(a->n_val, b->n_val, &r) && r < lim && r > -lim) {
      out->n_val = r;
      out->n_scale = a->n_scale;
      return CZ_OK;
    }
  }
  return ty_num_addsub(a, b, false, out, e);
}

int num_sub(const num_t *a, const num_t *b, num_t *out, err_t *e)
{
  if (a->n_scale != b->n_scale) {
    __int128 va, vb;
    int scale;
    if (ty_num_align64(a, b, &va, &vb, &scale) && scale <= NUM_MAX_DIGITS) {
      __int128 r = va - vb, lim = (__int128)ty_pow10_u128(NUM_MAX_DIGITS);
      if (r < lim && r > -lim) {
        out->n_val = r;
        out->n_scale = (int16_t)scale;
        return CZ_OK;
      }
    }
  }
  if (a->n_scale == b->n_scale) {
    __int128 r, lim = (__int128)ty_pow10_u128(NUM_MAX_DIGITS);
    if (!__builtin_sub_overflow(a->n_val, b->n_val, &r) && r < lim && r > -lim) {
      out->n_val = r;
      out->n_scale = a->n_scale;
      return CZ_OK;
    }
  }
  return ty_num_addsub(a, b, true, out, e);
}

int num_mul(const num_t *a, const num_t *b, num_t *out, err_t *e)
{
  /* Both within 64 bits: the product is below 2^126 < 10^38, exact. */
  if (a->n_val <= INT64_MAX && a->n_val >= INT64_MIN && b->n_val <= INT64_MAX &&
      b->n_val >= INT64_MIN && a->n_scale + b->n_scale <= NUM_MAX_DIGITS) {
    out->n_val = a->n_val * b->n_val;
    out->n_scale = (int16_t)(a->n_scale + b->n_scale);
    return CZ_OK;
  }
  bool neg = (a->n_val < 0) != (b->n_val < 0);
  u256_t m = u256_mul128(ty_num_mag(a), ty_num_mag(b));
  if (m.w_hi == 0 && m.w_lo == 0)
    neg = false;
  return ty_num_finish(neg, m, a->n_scale + b->n_scale, out, e);
}

void ty_num_weight(const num_t *n, int *weight, int *first_digit)
{
  u128_t m = ty_num_mag(n);
  /* d: the decimal exponent of the leading digit; weight is the base-10000
   * group holding it (floor division), first_digit that group's value. */
  int d = ty_digits_u128(m) - 1 - n->n_scale;
  int w = d >= 0 ? d / 4 : -((-d + 3) / 4);
  int shift = -4 * w - n->n_scale; /* first_digit = m * 10^shift */
  u128_t fd = shift >= 0 ? m * ty_pow10_u128(shift) : m / ty_pow10_u128(-shift);
  *weight = w;
  *first_digit = (int)fd;
}

int num_div(const num_t *a, const num_t *b, num_t *out, err_t *e)
{
  if (b->n_val == 0)
    return err_set(e, SQLSTATE_DIVISION_BY_ZERO, "division by zero");
  /* PostgreSQL's select_div_scale: at least 16 significant digits, at least
   * either input's scale. */
  int w1 = 0, f1 = 0, w2, f2;
  if (a->n_val != 0)
    ty_num_weight(a, &w1, &f1);
  ty_num_weight(b, &w2, &f2);
  int qweight = w1 - w2;
  if (f1 <= f2)
    qweight--;
  int rscale = 16 - qweight * 4;
  rscale = CZ_MAX(rscale, a->n_scale);
  rscale = CZ_MAX(rscale, b->n_scale);
  rscale = CZ_MAX(rscale, 0);
  rscale = CZ_MIN(rscale, NUM_MAX_DIGITS);
  bool neg = (a->n_val < 0) != (b->n_val < 0) && a->n_val != 0;
  /* q = round(|a| * 10^E / |b|), E = rscale + b.scale - a.scale >= 0,
   * computed in up to two steps of at most 10^38 each. */
  u128_t d = ty_num_mag(b), rem;
  int exp = rscale + b->n_scale - a->n_scale;
  int step = CZ_MIN(exp, 38);
  u256_t q = u256_divmod(u256_mul128(ty_num_mag(a), ty_pow10_u128(step)), d, &rem);
  exp -= step;
  while (exp > 0) {
    step = CZ_MIN(exp, 38);
    u256_t hi;
    if (!u256_mul(q, ty_pow10_u128(step), &hi))
      return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "%s", ty_num_overflow_msg);
    u256_t lo = u256_divmod(u256_mul128(rem, ty_pow10_u128(step)), d, &rem);
    q = u256_add(hi, lo);
    exp -= step;
  }
  if (rem >= d - rem)
    q = u256_add(q, u256_from(1));
  if (q.w_hi == 0 && q.w_lo == 0)
    neg = false;
  return ty_num_finish(neg, q, rscale, out, e);
}

int num_cmp(const num_t *a, const num_t *b)
{
  if (a->n_scale == b->n_scale)
    return a->n_val < b->n_val ? -1 : a->n_val > b->n_val;
  bool na = a->n_val < 0, nb = b->n_val < 0;
  if (na != nb)
    return na ? -1 : 1;
  int scale = CZ_MAX(a->n_scale, b->n_scale);
  u256_t ma = u256_mul128(ty_num_mag(a), ty_pow10_u128(scale - a->n_scale));
  u256_t mb = u256_mul128(ty_num_mag(b), ty_pow10_u128(scale - b->n_scale));
  int c = u256_cmp(ma, mb);
  return na ? -c : c;
}

int num_mod(const num_t *a, const num_t *b, num_t *out, err_t *e)
{
  if (b->n_val == 0)
    return err_set(e, SQLSTATE_DIVISION_BY_ZERO, "division by zero");
  /* Aligned magnitudes fit in 256 bits (at most 76 digits); the remainder
   * takes the dividend's sign, as C's % and PostgreSQL's mod do. */
  int scale = CZ_MAX(a->n_scale, b->n_scale);
  u256_t ma = u256_mul128(ty_num_mag(a), ty_pow10_u128(scale - a->n_scale));
  u256_t mb = u256_mul128(ty_num_mag(b), ty_pow10_u128(scale - b->n_scale));
  u256_t r = u256_mod(ma, mb);
  return ty_num_finish(a->n_val < 0 && (r.w_hi || r.w_lo), r, scale, out, e);
}

/* floor(sqrt(m)) for m < 2^256 whose root fits in 128 bits: Newton's
 * iteration from a long double estimate, then an exact correction. */
static u128_t ty_wide_isqrt(u256_t m)
{
  if (m.w_hi == 0 && m.w_lo < 2)
    return m.w_lo;
  long double approx = (long double)m.w_hi * 340282366920938463463374607431768211456.0L +
                       (long double)m.w_lo;
  long double r0 = sqrtl(approx);
  u128_t t = r0 >= 3.4e38L ? ~(u128_t)0 : (u128_t)r0;
  if (t == 0)
    t = 1;
  for (int k = 0; k < 8; k++) {
    u128_t rem;
    u256_t q = u256_divmod(m, t, &rem);
    if (q.w_hi != 0)
      break; /* t far too small: cannot happen from the estimate */
    u128_t next = t / 2 + q.w_lo / 2 + ((t & 1) + (q.w_lo & 1)) / 2;
    if (next == t || next == 0)
      break;
    t = next;
  }
  while (t > 0 && u256_cmp(u256_mul128(t, t), m) > 0)
    t--;
  while (u256_cmp(u256_mul128(t + 1, t + 1), m) <= 0)
    t++;
  return t;
}

int num_sqrt(const num_t *a, num_t *out, err_t *e)
{
  if (a->n_val < 0)
    return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_POWER, "cannot take square root of a negative number");
  /* PostgreSQL: rscale = 16 - sweight, sweight = (weight+1)*4/2 - 1 with
   * the base-10000 weight of the input; at least the input's scale. */
  int weight = 0, first;
  if (a->n_val != 0)
    ty_num_weight(a, &weight, &first);
  int sweight = (weight + 1) * 4 / 2 - 1;
  int r = CZ_MAX(16 - sweight, a->n_scale);
  r = CZ_MAX(r, 0);
  r = CZ_MIN(r, NUM_MAX_DIGITS);
  u128_t v = ty_num_mag(a);
  int dv = ty_digits_u128(v);
  /* N = v * 10^(2r - s) must stay below ~10^76 so that 4N fits in 256
   * bits and the root in 38 digits: fewer decimals otherwise. */
  while (r > 0 && dv + 2 * r - a->n_scale > 76)
    r--;
  int exp = 2 * r - a->n_scale;
  u256_t n;
  if (exp >= 0) {
    int e1 = CZ_MIN(exp, 38);
    n = u256_mul128(v, ty_pow10_u128(e1));
    if (exp > e1 && !u256_mul(n, ty_pow10_u128(exp - e1), &n))
      return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "%s", ty_num_overflow_msg);
  } else {
    n = u256_from(v / ty_pow10_u128(-exp));
  }
  /* round(sqrt(N)) = (floor(sqrt(4N)) + 1) / 2 */
  u256_t n4;
  if (!u256_mul(n, 4, &n4))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "%s", ty_num_overflow_msg);
  u128_t t = ty_wide_isqrt(n4);
  u128_t q = t / 2 + (t & 1);
  return ty_num_finish(false, u256_from(q), r, out, e);
}

void num_weight(const num_t *n, int *weight, int *first_group)
{
  if (n->n_val == 0) {
    *weight = 0;
    *first_group = 0;
    return;
  }
  ty_num_weight(n, weight, first_group);
}
