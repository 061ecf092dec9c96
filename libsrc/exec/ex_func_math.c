/* ex_func_math — numeric functions: abs, sign, round, trunc, floor, ceil,
 * sqrt (double and numeric), cbrt, power, exp, ln, log, mod, random, pi, the trigonometric
 * ones and the integers' bit operators (int4and …), with PostgreSQL's result types and error codes (2201E for
 * logarithms of zero or negatives, 2201F for invalid powers, 22003 on
 * overflow, 22012 for mod by zero). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/ex_int.h"

#define XF_ARGT(x, k) ((x)->x_args[k]->x_type.t_id)

static int xf_range(ty_id_t id, int64_t v, err_t *e)
{
  if ((id == TY_INT2 && (v < INT16_MIN || v > INT16_MAX)) ||
      (id == TY_INT4 && (v < INT32_MIN || v > INT32_MAX)))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "%s out of range",
                   id == TY_INT2 ? "smallint" : "integer");
  return CZ_OK;
}

static int xf_abs(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  switch (ty_phys(XF_ARGT(x, 0))) {
  case TP_I64:
    if (a[0].d_i64 == INT64_MIN)
      return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "bigint out of range");
    out->d_i64 = a[0].d_i64 < 0 ? -a[0].d_i64 : a[0].d_i64;
    return xf_range(XF_ARGT(x, 0), out->d_i64, e);
  case TP_F64:
    out->d_f64 = fabs(a[0].d_f64);
    return CZ_OK;
  case TP_NUM:
    out->d_num = a[0].d_num;
    if (out->d_num.n_val < 0)
      out->d_num.n_val = -out->d_num.n_val;
    return CZ_OK;
  default:
    return err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "abs of a non-number");
  }
}

static int xf_sign(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)e;
  if (XF_ARGT(x, 0) == TY_NUMERIC) {
    __int128 v = a[0].d_num.n_val;
    out->d_num.n_val = v > 0 ? 1 : v < 0 ? -1 : 0;
    out->d_num.n_scale = 0;
  } else {
    double v = a[0].d_f64;
    out->d_f64 = v > 0 ? 1 : v < 0 ? -1 : v; /* NaN stays NaN, -0 stays */
    if (v == 0)
      out->d_f64 = 0;
  }
  return CZ_OK;
}

/* NUMERIC to scale s (possibly negative: tens, hundreds …), rounding half
 * away from zero or truncating. The result's scale is max(s, 0). s is any
 * int the user wrote (INT_MIN included): it is clamped before any
 * arithmetic, since |n| < 10^38 makes every s below -38 give 0 (even
 * 5 * 10^37 rounds to 0 at 10^39) and scales past 38 cannot be held. */
static int xf_num_round(const num_t *n, int s, bool trunc, num_t *out, err_t *e)
{
  if (s > NUM_MAX_DIGITS)
    s = NUM_MAX_DIGITS;
  if (s < -NUM_MAX_DIGITS - 1) {
    out->n_val = 0;
    out->n_scale = 0;
    return CZ_OK;
  }
  if (s >= n->n_scale) {
    return num_rescale(n, s, out, e);
  }
  int drop = n->n_scale - s; /* both bounded: at most 38 + 39 */
  if (drop > 38) {
    out->n_val = 0;
    out->n_scale = (int16_t)(s > 0 ? s : 0);
    return CZ_OK;
  }
  __int128 p = 1;
  for (int i = 0; i < drop; i++)
    p *= 10;
  __int128 v = n->n_val, q = v / p, r = v % p;
  if (!trunc) {
    __int128 half = p / 2;
    if (r >= half && r > 0)
      q++;
    else if (-r >= half && r < 0)
      q--;
  }
  /* q is in units of 10^-s; a negative s scales back up to scale 0
   * (10^-s <= 10^39 does not fit a num_t: multiply in two steps). */
  if (s < 0) {
    num_t t = {q, 0};
    for (int left = -s; left > 0;) {
      int k = CZ_MIN(left, 19);
      num_t mul = {1, 0};
      for (int i = 0; i < k; i++)
        mul.n_val *= 10;
      if (t.n_val != 0 && num_mul(&t, &mul, &t, e) != CZ_OK)
        return CZ_ERR;
      left -= k;
    }
    *out = t;
    return CZ_OK;
  }
  out->n_val = q;
  out->n_scale = (int16_t)s;
  return CZ_OK;
}

static int xf_round(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  if (XF_ARGT(x, 0) == TY_NUMERIC)
    return xf_num_round(&a[0].d_num, x->x_nargs > 1 ? (int)a[1].d_i64 : 0, false, &out->d_num, e);
  out->d_f64 = rint(a[0].d_f64); /* PostgreSQL's dround: half to even */
  return CZ_OK;
}

static int xf_trunc(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  if (XF_ARGT(x, 0) == TY_NUMERIC)
    return xf_num_round(&a[0].d_num, x->x_nargs > 1 ? (int)a[1].d_i64 : 0, true, &out->d_num, e);
  out->d_f64 = trunc(a[0].d_f64);
  return CZ_OK;
}

static int xf_floor_ceil(const xnode_t *x, const datum_t *a, datum_t *out, bool ceiling,
                         err_t *e)
{
  if (XF_ARGT(x, 0) == TY_NUMERIC) {
    num_t t;
    if (xf_num_round(&a[0].d_num, 0, true, &t, e) != CZ_OK)
      return CZ_ERR;
    /* Truncation went toward zero; step away when it dropped a fraction
     * on the side that floor/ceil must move to. */
    if (num_cmp(&t, &a[0].d_num) != 0) {
      if (ceiling && a[0].d_num.n_val > 0)
        t.n_val++;
      else if (!ceiling && a[0].d_num.n_val < 0)
        t.n_val--;
    }
    out->d_num = t;
    return CZ_OK;
  }
  out->d_f64 = ceiling ? ceil(a[0].d_f64) : floor(a[0].d_f64);
  return CZ_OK;
}

static int xf_floor(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  return xf_floor_ceil(x, a, out, false, e);
}

static int xf_ceil(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  return xf_floor_ceil(x, a, out, true, e);
}

static int xf_check(double r, double in, err_t *e)
{
  if (isinf(r) && !isinf(in))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value out of range: overflow");
  return CZ_OK;
}

static int xf_sqrt(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  if (a[0].d_f64 < 0)
    return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_POWER, "cannot take square root of a negative number");
  out->d_f64 = sqrt(a[0].d_f64);
  return CZ_OK;
}

static int xf_sqrt_num(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  return num_sqrt(&a[0].d_num, &out->d_num, e);
}

/* ---- NUMERIC logarithms, exponentials and powers -------------------------
 *
 * PostgreSQL computes these in arbitrary precision with result scales
 * chosen to give at least 16 significant digits (NUMERIC_MIN_SIG_DIGITS)
 * and at least the inputs' scales. Here the scale rules are PostgreSQL's
 * and the value comes from long double arithmetic (64-bit mantissa, about
 * 19 digits), rounded once to that scale: the same digits except in the
 * rare case that the digits beyond the 19th would decide the rounding.
 * A result needing more than 17 significant digits is shown with 17
 * (fewer decimals than PostgreSQL rather than wrong ones). Integer powers are
 * computed exactly with NUMERIC multiplication. */

#define XF_MIN_SIG_DIGITS 16

static int xf_dec_exponent(const num_t *n)
{
  /* floor(log10(|n|)) for n != 0 */
  unsigned __int128 m = n->n_val < 0 ? (unsigned __int128)0 - (unsigned __int128)n->n_val
                                     : (unsigned __int128)n->n_val;
  int d = 0;
  while (m >= 10) {
    m /= 10;
    d++;
  }
  return d - n->n_scale;
}

/* A result's decimal weight estimate as an int in [-1000, 1000]: the
 * estimate is NaN or infinite for extreme arguments, and converting
 * those to int is undefined. */
static int xf_weight(double w)
{
  if (isnan(w))
    return 0;
  return w < -1000 ? -1000 : w > 1000 ? 1000 : (int)w;
}

/* PostgreSQL's estimate_ln_dweight: the decimal weight of ln(x), x > 0. */
static int xf_ln_dweight(const num_t *x)
{
  num_t lo = {9, 1}, hi = {11, 1}, one = {1, 0}, d;
  if (x->n_val <= 0)
    return 0;
  if (num_cmp(x, &lo) >= 0 && num_cmp(x, &hi) <= 0) {
    if (num_sub(x, &one, &d, NULL) != CZ_OK || d.n_val == 0)
      return 0;
    return xf_dec_exponent(&d); /* ln(1 + d) ~ d */
  }
  /* x ~ digits * 10^dweight with digits its first two base-10000 groups,
   * as PostgreSQL estimates. */
  int weight, first;
  num_weight(x, &weight, &first);
  int shift = 4 - 4 * weight - x->n_scale;
  unsigned __int128 m = (unsigned __int128)x->n_val, digits = m;
  for (int k = 0; k < shift; k++)
    digits *= 10;
  for (int k = 0; k < -shift; k++)
    digits /= 10;
  double ln_var = log((double)digits) + (4 * weight - 4) * 2.302585092994045684;
  if (ln_var == 0)
    return 0;
  return xf_weight(log10(fabs(ln_var))); /* log(0) is -inf: not an int */
}

static int xf_clamp_scale(int rscale)
{
  return rscale < 0 ? 0 : rscale > NUM_MAX_DIGITS ? NUM_MAX_DIGITS : rscale;
}

/* v rounded to rscale decimals as a NUMERIC (through its decimal text,
 * which printf rounds correctly). */
static int xf_num_of_ld(long double v, int rscale, num_t *out, err_t *e)
{
  if (!isfinite(v))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value overflows numeric format");
  /* A long double holds about 19 significant digits, and exp/power of
   * larger arguments lose one or two of them: print at most 17, so that
   * the digits shown are right (PostgreSQL would print more). */
  char buf[128];
  long double mag = fabsl(v);
  int exp10 = mag > 0 ? (int)floorl(log10l(mag)) : 0; /* leading digit's place */
  int n;
  if (exp10 >= 17)
    n = snprintf(buf, sizeof(buf), "%.16Le", v);
  else
    n = snprintf(buf, sizeof(buf), "%.*Lf", xf_clamp_scale(CZ_MIN(rscale, 16 - exp10)), v);
  if (n < 0 || n >= (int)sizeof(buf))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value overflows numeric format");
  datum_t d;
  arena_t *a = NULL; /* numeric input allocates nothing */
  if (ty_parse_text(ty_plain(TY_NUMERIC), buf, (size_t)n, a, &d, e) != CZ_OK)
    return CZ_ERR;
  *out = d.d_num;
  return CZ_OK;
}

static long double xf_ld(const num_t *n)
{
  char buf[64];
  datum_t d = {.d_num = *n};
  int len = ty_format_text(ty_plain(TY_NUMERIC), &d, buf, sizeof(buf) - 1);
  buf[len < 0 ? 0 : len] = '\0';
  return strtold(buf, NULL);
}

/* ln(x) in long double; near 1 through log1p of the exact x - 1, which
 * keeps the digits that ln(1 + tiny) would otherwise cancel away. */
static long double xf_ln_ld(const num_t *x)
{
  num_t lo = {9, 1}, hi = {11, 1}, one = {1, 0}, d;
  if (num_cmp(x, &lo) >= 0 && num_cmp(x, &hi) <= 0 && num_sub(x, &one, &d, NULL) == CZ_OK)
    return log1pl(xf_ld(&d));
  return logl(xf_ld(x));
}

static int xf_ln_check(const num_t *x, err_t *e)
{
  if (x->n_val == 0)
    return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_LOG, "cannot take logarithm of zero");
  if (x->n_val < 0)
    return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_LOG, "cannot take logarithm of a negative number");
  return CZ_OK;
}

static int xf_ln_num(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  const num_t *v = &a[0].d_num;
  if (xf_ln_check(v, e) != CZ_OK)
    return CZ_ERR;
  int rscale = CZ_MAX(XF_MIN_SIG_DIGITS - xf_ln_dweight(v), v->n_scale);
  return xf_num_of_ld(xf_ln_ld(v), rscale, &out->d_num, e);
}

/* log(base, x) and log(x) = log(10, x). */
static int xf_log_num(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  num_t ten = {10, 0};
  const num_t *base = x->x_nargs > 1 ? &a[0].d_num : &ten;
  const num_t *v = x->x_nargs > 1 ? &a[1].d_num : &a[0].d_num;
  if (xf_ln_check(base, e) != CZ_OK || xf_ln_check(v, e) != CZ_OK)
    return CZ_ERR;
  long double lb = xf_ln_ld(base);
  if (lb == 0)
    return err_set(e, SQLSTATE_DIVISION_BY_ZERO, "division by zero");
  int rscale = XF_MIN_SIG_DIGITS - (xf_ln_dweight(v) - xf_ln_dweight(base));
  rscale = CZ_MAX(rscale, CZ_MAX(base->n_scale, v->n_scale));
  return xf_num_of_ld(xf_ln_ld(v) / lb, rscale, &out->d_num, e);
}

static int xf_exp_num(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  const num_t *v = &a[0].d_num;
  int w = xf_weight(num_to_f64(v) * 0.434294481903252); /* decimal weight of the result */
  int rscale = CZ_MAX(XF_MIN_SIG_DIGITS - w, v->n_scale);
  return xf_num_of_ld(expl(xf_ld(v)), rscale, &out->d_num, e);
}

/* base^n for an integer n, exactly by squaring (NUMERIC products). */
static int xf_num_ipow(const num_t *base, int64_t n, num_t *out, err_t *e)
{
  num_t r = {1, 0}, b = *base;
  uint64_t k = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
  while (k) {
    if ((k & 1) && num_mul(&r, &b, &r, e) != CZ_OK)
      return CZ_ERR;
    k >>= 1;
    if (k && num_mul(&b, &b, &b, e) != CZ_OK)
      return CZ_ERR;
  }
  if (n < 0) {
    num_t one = {1, 0};
    return num_div(&one, &r, out, e);
  }
  *out = r;
  return CZ_OK;
}

static int xf_power_num(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  const num_t *base = &a[0].d_num, *ex = &a[1].d_num;
  num_t ipart;
  bool integral = num_rescale(ex, 0, &ipart, NULL) == CZ_OK && num_cmp(&ipart, ex) == 0;
  if (base->n_val == 0 && ex->n_val < 0)
    return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_POWER, "zero raised to a negative power is undefined");
  if (base->n_val < 0 && !integral)
    return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_POWER,
                   "a negative number raised to a non-integer power yields a complex result");
  if (integral && ipart.n_val >= INT32_MIN && ipart.n_val <= INT32_MAX) {
    int rscale = CZ_MAX(XF_MIN_SIG_DIGITS, base->n_scale);
    num_t r;
    if (xf_num_ipow(base, (int64_t)ipart.n_val, &r, e) != CZ_OK)
      return CZ_ERR;
    return num_rescale(&r, xf_clamp_scale(rscale), &out->d_num, e);
  }
  if (base->n_val == 0) {
    out->d_num.n_val = 0;
    out->d_num.n_scale = (int16_t)xf_clamp_scale(CZ_MAX(XF_MIN_SIG_DIGITS, base->n_scale));
    return CZ_OK;
  }
  long double lnr = xf_ln_ld(base) * xf_ld(ex);
  int rscale = XF_MIN_SIG_DIGITS - xf_weight((double)lnr * 0.434294481903252);
  rscale = CZ_MAX(rscale, CZ_MAX(base->n_scale, ex->n_scale));
  return xf_num_of_ld(expl(lnr), rscale, &out->d_num, e);
}

static int xf_cbrt(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  (void)e;
  out->d_f64 = cbrt(a[0].d_f64);
  return CZ_OK;
}

static int xf_power(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  double b = a[0].d_f64, p = a[1].d_f64;
  if (b == 0 && p < 0)
    return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_POWER, "zero raised to a negative power is undefined");
  if (b < 0 && floor(p) != p)
    return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_POWER,
                   "a negative number raised to a non-integer power yields a complex result");
  double r = pow(b, p);
  if (isinf(r) && !isinf(b) && !isinf(p))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value out of range: overflow");
  if (r == 0 && b != 0 && !isinf(p))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value out of range: underflow");
  out->d_f64 = r;
  return CZ_OK;
}

static int xf_exp(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  double r = exp(a[0].d_f64);
  if (r == 0 && !isinf(a[0].d_f64))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value out of range: underflow");
  out->d_f64 = r;
  return xf_check(r, a[0].d_f64, e);
}

static int xf_log_check(double v, err_t *e)
{
  if (v == 0)
    return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_LOG, "cannot take logarithm of zero");
  if (v < 0)
    return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_LOG, "cannot take logarithm of a negative number");
  return CZ_OK;
}

static int xf_ln(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  if (xf_log_check(a[0].d_f64, e) != CZ_OK)
    return CZ_ERR;
  out->d_f64 = log(a[0].d_f64);
  return CZ_OK;
}

static int xf_log10(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  if (xf_log_check(a[0].d_f64, e) != CZ_OK)
    return CZ_ERR;
  out->d_f64 = log10(a[0].d_f64);
  return CZ_OK;
}

static int xf_mod(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  switch (ty_phys(XF_ARGT(x, 0))) {
  case TP_I64:
    if (a[1].d_i64 == 0)
      return err_set(e, SQLSTATE_DIVISION_BY_ZERO, "division by zero");
    out->d_i64 = a[1].d_i64 == -1 ? 0 : a[0].d_i64 % a[1].d_i64;
    return CZ_OK;
  case TP_NUM:
    return num_mod(&a[0].d_num, &a[1].d_num, &out->d_num, e);
  default:
    return err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "function mod(double precision) does not exist");
  }
}

/* mod over floats has no PostgreSQL definition: reject at bind time. */
static int xf_mod_type(const ty_t *args, int n, ty_t *result, err_t *e)
{
  if (n != 2 || !xt_is_number(args[0].t_id) || args[0].t_id == TY_FLOAT4 ||
      args[0].t_id == TY_FLOAT8)
    return err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "function mod does not exist for these types");
  *result = ty_plain(args[0].t_id);
  return CZ_OK;
}

/* A per-thread xorshift generator seeded from the clock and the thread:
 * random() needs no lock and no shared state. */
static __thread uint64_t xf_rand_state;

static int xf_random(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  (void)a;
  (void)e;
  if (xf_rand_state == 0)
    xf_rand_state = hash64_int(time_now_ns() ^ (uint64_t)(uintptr_t)&xf_rand_state) | 1;
  uint64_t s = xf_rand_state;
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  xf_rand_state = s;
  out->d_f64 = (double)(s >> 11) * (1.0 / 9007199254740992.0);
  return CZ_OK;
}

static int xf_pi(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  (void)a;
  (void)e;
  out->d_f64 = 3.14159265358979323846;
  return CZ_OK;
}

#define XF_UNARY_F8(fname, expr)                                                            \
  static int fname(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)  \
  {                                                                                         \
    (void)c;                                                                                \
    (void)x;                                                                                \
    double v = a[0].d_f64;                                                                  \
    if (isinf(v))                                                                           \
      return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "input is out of range");                 \
    out->d_f64 = (expr);                                                                    \
    return CZ_OK;                                                                           \
  }

XF_UNARY_F8(xf_sin, sin(v))
XF_UNARY_F8(xf_cos, cos(v))
XF_UNARY_F8(xf_tan, tan(v))
XF_UNARY_F8(xf_atan, atan(v))
/* PostgreSQL's own constant and operations, for the same last digit. */
#define XF_RADIANS_PER_DEGREE 0.0174532925199432957692
static int xf_degrees(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  out->d_f64 = a[0].d_f64 / XF_RADIANS_PER_DEGREE;
  return xf_check(out->d_f64, a[0].d_f64, e);
}

static int xf_radians(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  out->d_f64 = a[0].d_f64 * XF_RADIANS_PER_DEGREE;
  return xf_check(out->d_f64, a[0].d_f64, e);
}

static int xf_asin_acos(const datum_t *a, datum_t *out, bool is_acos, err_t *e)
{
  double v = a[0].d_f64;
  if (v < -1 || v > 1)
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "input is out of range");
  out->d_f64 = is_acos ? acos(v) : asin(v);
  return CZ_OK;
}

static int xf_asin(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  return xf_asin_acos(a, out, false, e);
}

static int xf_acos(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  return xf_asin_acos(a, out, true, e);
}

static int xf_atan2(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  (void)e;
  out->d_f64 = atan2(a[0].d_f64, a[1].d_f64);
  return CZ_OK;
}

/* ---- bit operators on integers (& | # ~ << >>, bound as these calls) ----
 * PostgreSQL's int2and … int8shr: the result has the (common) type of the
 * operands, so and/or/xor/not never overflow. A shift's count is taken as
 * PostgreSQL's C code on x86-64 takes it: modulo the width of the int it
 * shifts in (32 for smallint and integer, 64 for bigint); a smallint is
 * shifted as an int and cut to 16 bits. Shifting left is done unsigned so
 * that bits leave at the top, as there. */

static int64_t xf_narrow(ty_id_t id, int64_t v)
{
  if (id == TY_INT2)
    return (int16_t)(uint16_t)(uint64_t)v;
  if (id == TY_INT4)
    return (int32_t)(uint32_t)(uint64_t)v;
  return v;
}

static int xf_bitand(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c, (void)x, (void)e;
  out->d_i64 = a[0].d_i64 & a[1].d_i64;
  return CZ_OK;
}

static int xf_bitor(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c, (void)x, (void)e;
  out->d_i64 = a[0].d_i64 | a[1].d_i64;
  return CZ_OK;
}

static int xf_bitxor(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c, (void)x, (void)e;
  out->d_i64 = a[0].d_i64 ^ a[1].d_i64;
  return CZ_OK;
}

static int xf_bitnot(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c, (void)x, (void)e;
  out->d_i64 = ~a[0].d_i64;
  return CZ_OK;
}

static int xf_shl(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c, (void)e;
  ty_id_t id = XF_ARGT(x, 0);
  unsigned n = (unsigned)a[1].d_i64 & (id == TY_INT8 ? 63u : 31u);
  out->d_i64 = xf_narrow(id, (int64_t)((uint64_t)a[0].d_i64 << n));
  return CZ_OK;
}

static int xf_shr(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c, (void)e;
  ty_id_t id = XF_ARGT(x, 0);
  unsigned n = (unsigned)a[1].d_i64 & (id == TY_INT8 ? 63u : 31u);
  out->d_i64 = xf_narrow(id, a[0].d_i64 >> n); /* arithmetic: the sign is kept */
  return CZ_OK;
}

#define F8 TY_FLOAT8
#define NUM TY_NUMERIC
#define S XF_STRICT
#define XF_BITS(T, t)                                                                          \
  {.fd_name = #t "and", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = S, .fd_row = xf_bitand}, \
  {.fd_name = #t "or", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = S, .fd_row = xf_bitor},   \
  {.fd_name = #t "xor", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = S, .fd_row = xf_bitxor}, \
  {.fd_name = #t "not", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = S, .fd_row = xf_bitnot},    \
  {.fd_name = #t "shl", .fd_nargs = 2, .fd_args = {T, TY_INT4}, .fd_result = T, .fd_flags = S, .fd_row = xf_shl}, \
  {.fd_name = #t "shr", .fd_nargs = 2, .fd_args = {T, TY_INT4}, .fd_result = T, .fd_flags = S, .fd_row = xf_shr}

const xfunc_def_t xfunc_math_defs[] = {
  {.fd_name = "abs", .fd_nargs = 1, .fd_args = {XFA_ANYNUM}, .fd_result = XFR_ARG0, .fd_flags = S, .fd_row = xf_abs},
  {.fd_name = "sign", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_sign},
  {.fd_name = "sign", .fd_nargs = 1, .fd_args = {NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_sign},
  {.fd_name = "round", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_round},
  {.fd_name = "round", .fd_nargs = 1, .fd_args = {NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_round},
  {.fd_name = "round", .fd_nargs = 2, .fd_args = {NUM, TY_INT4}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_round},
  {.fd_name = "trunc", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_trunc},
  {.fd_name = "trunc", .fd_nargs = 1, .fd_args = {NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_trunc},
  {.fd_name = "trunc", .fd_nargs = 2, .fd_args = {NUM, TY_INT4}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_trunc},
  {.fd_name = "floor", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_floor},
  {.fd_name = "floor", .fd_nargs = 1, .fd_args = {NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_floor},
  {.fd_name = "ceil", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_ceil},
  {.fd_name = "ceil", .fd_nargs = 1, .fd_args = {NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_ceil},
  {.fd_name = "ceiling", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_ceil},
  {.fd_name = "ceiling", .fd_nargs = 1, .fd_args = {NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_ceil},
  {.fd_name = "sqrt", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_sqrt},
  {.fd_name = "sqrt", .fd_nargs = 1, .fd_args = {NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_sqrt_num},
  {.fd_name = "cbrt", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_cbrt},
  {.fd_name = "power", .fd_nargs = 2, .fd_args = {F8, F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_power},
  {.fd_name = "power", .fd_nargs = 2, .fd_args = {NUM, NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_power_num},
  {.fd_name = "pow", .fd_nargs = 2, .fd_args = {F8, F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_power},
  {.fd_name = "pow", .fd_nargs = 2, .fd_args = {NUM, NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_power_num},
  {.fd_name = "exp", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_exp},
  {.fd_name = "exp", .fd_nargs = 1, .fd_args = {NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_exp_num},
  {.fd_name = "ln", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_ln},
  {.fd_name = "ln", .fd_nargs = 1, .fd_args = {NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_ln_num},
  {.fd_name = "log", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_log10},
  {.fd_name = "log", .fd_nargs = 1, .fd_args = {NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_log_num},
  {.fd_name = "log", .fd_nargs = 2, .fd_args = {NUM, NUM}, .fd_result = NUM, .fd_flags = S, .fd_row = xf_log_num},
  {.fd_name = "log10", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_log10},
  {.fd_name = "mod", .fd_nargs = 2, .fd_args = {XFA_COMMON, XFA_COMMON}, .fd_result = XFR_COMMON, .fd_flags = S, .fd_row = xf_mod, .fd_type = xf_mod_type},
  {.fd_name = "random", .fd_nargs = 0, .fd_result = F8, .fd_flags = XF_VOLATILE, .fd_row = xf_random},
  {.fd_name = "pi", .fd_nargs = 0, .fd_result = F8, .fd_row = xf_pi},
  {.fd_name = "sin", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_sin},
  {.fd_name = "cos", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_cos},
  {.fd_name = "tan", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_tan},
  {.fd_name = "asin", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_asin},
  {.fd_name = "acos", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_acos},
  {.fd_name = "atan", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_atan},
  {.fd_name = "atan2", .fd_nargs = 2, .fd_args = {F8, F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_atan2},
  {.fd_name = "degrees", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_degrees},
  {.fd_name = "radians", .fd_nargs = 1, .fd_args = {F8}, .fd_result = F8, .fd_flags = S, .fd_row = xf_radians},
  XF_BITS(TY_INT2, int2),
  XF_BITS(TY_INT4, int4),
  XF_BITS(TY_INT8, int8),
};
const int xfunc_math_ndefs = (int)CZ_ARRAY_LEN(xfunc_math_defs);
