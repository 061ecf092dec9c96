/* ty_float — REAL and DOUBLE PRECISION text forms as PostgreSQL 15 prints
 * them with extra_float_digits = 1: the shortest digits that read back as
 * the same value, fixed notation for decimal exponents -4 .. 14 (float4:
 * -4 .. 5), otherwise d.ddde+XX; "NaN", "Infinity", "-Infinity", "-0".
 *
 * Design notes: the shortest digits come from the C library's correctly
 * rounded printf. If any decimal of at most DBL_DIG (15) digits reads back
 * as v, the 15-digit rounding of v is that decimal padded with zeros (the
 * padding's spacing is wider than v's rounding interval), so one %.14e and
 * stripping zeros finds it; otherwise 16 or 17 digits are needed and the
 * correctly rounded 16-digit form is tried before 17. float4 works the same
 * way from FLT_DIG (6) up to 9 digits. A candidate exactly halfway to a
 * neighbouring value is refused, as PostgreSQL's Ryu refuses it.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "types/types_int.h"

/* "d.ddddde±x" with prec digits after the point into digits/exp. */
static void ty_split_e(const char *buf, char *digits, int *exp10)
{
  int n = 0;
  const char *p = buf;
  if (*p == '-')
    p++;
  for (; *p && *p != 'e'; p++)
    if (*p >= '0' && *p <= '9')
      digits[n++] = *p;
  while (n > 1 && digits[n - 1] == '0')
    n--;
  digits[n] = '\0';
  *exp10 = *p == 'e' ? atoi(p + 1) : 0;
}

/* PostgreSQL's Ryu never takes a decimal lying exactly halfway between v
 * and a neighbour, even though reading it back rounds to v (ties go to the
 * even mantissa): it prints one more digit instead (1.27295984e+08, not
 * 1.2729598e+08). Midpoints of doubles are exact in long double (64-bit
 * mantissa), of floats in double. */
static bool ty_f64_on_bound(const char *buf, double v)
{
  long double d = strtold(buf, NULL);
  long double up = ((long double)v + (long double)nextafter(v, INFINITY)) / 2;
  long double down = ((long double)v + (long double)nextafter(v, -INFINITY)) / 2;
  return d == up || d == down;
}

static bool ty_f32_on_bound(const char *buf, float v)
{
  double d = strtod(buf, NULL);
  double up = ((double)v + (double)nextafterf(v, INFINITY)) / 2;
  double down = ((double)v + (double)nextafterf(v, -INFINITY)) / 2;
  return d == up || d == down;
}

void ty_f64_shortest(double v, char *digits, int *exp10)
{
  char buf[40];
  /* Subnormals have fewer significant bits: the 15-digit argument does
   * not hold for them, so they search from one digit. */
  for (int prec = fabs(v) < DBL_MIN ? 1 : DBL_DIG; prec <= 17; prec++) {
    snprintf(buf, sizeof(buf), "%.*e", prec - 1, v);
    if (prec == 17 || (strtod(buf, NULL) == v && !ty_f64_on_bound(buf, v)))
      break;
  }
  ty_split_e(buf, digits, exp10);
}

void ty_f32_shortest(float v, char *digits, int *exp10)
{
  char buf[40];
  for (int prec = fabsf(v) < FLT_MIN ? 1 : FLT_DIG; prec <= 9; prec++) {
    snprintf(buf, sizeof(buf), "%.*e", prec - 1, (double)v);
    if (prec == 9 || (strtof(buf, NULL) == v && !ty_f32_on_bound(buf, v)))
      break;
  }
  ty_split_e(buf, digits, exp10);
}

/* Lays digits (first digit at 10^exp10) out as PostgreSQL does. */
static int ty_float_layout(bool neg, const char *digits, int exp10, int fixed_max, char *out)
{
  int o = 0, nd = (int)strlen(digits);
  if (neg)
    out[o++] = '-';
  if (exp10 < -4 || exp10 >= fixed_max) {
    out[o++] = digits[0];
    if (nd > 1) {
      out[o++] = '.';
      memcpy(out + o, digits + 1, (size_t)(nd - 1));
      o += nd - 1;
    }
    o += sprintf(out + o, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    return o;
  }
  if (exp10 < 0) {
    out[o++] = '0';
    out[o++] = '.';
    for (int k = -1; k > exp10; k--)
      out[o++] = '0';
    memcpy(out + o, digits, (size_t)nd);
    o += nd;
  } else {
    for (int k = 0; k <= exp10; k++)
      out[o++] = k < nd ? digits[k] : '0';
    if (nd > exp10 + 1) {
      out[o++] = '.';
      memcpy(out + o, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
      o += nd - exp10 - 1;
    }
  }
  out[o] = '\0';
  return o;
}

static int ty_float_special(double v, char *out)
{
  if (isnan(v))
    return sprintf(out, "NaN");
  if (isinf(v))
    return sprintf(out, v < 0 ? "-Infinity" : "Infinity");
  if (v == 0)
    return sprintf(out, signbit(v) ? "-0" : "0");
  return -1;
}

/* Whole numbers below the switch to exponent notation print as integers:
 * their shortest form is their digits. A fast path for a common case. */
static int ty_float_whole(double v, double limit, char *out)
{
  if (v == 0 || v >= limit || v <= -limit || v != (double)(int64_t)v)
    return -1;
  return ty_i64_format((int64_t)v, out);
}

int ty_f64_format(double v, char *out)
{
  int n = ty_float_special(v, out);
  if (n >= 0)
    return n;
  if ((n = ty_float_whole(v, 1e15, out)) >= 0)
    return n;
  char digits[24];
  int exp10;
  ty_f64_shortest(v, digits, &exp10);
  return ty_float_layout(v < 0, digits, exp10, DBL_DIG, out);
}

int ty_f32_format(float v, char *out)
{
  int n = ty_float_special((double)v, out);
  if (n >= 0)
    return n;
  if ((n = ty_float_whole((double)v, 1e6, out)) >= 0)
    return n;
  char digits[24];
  int exp10;
  ty_f32_shortest(v, digits, &exp10);
  return ty_float_layout(v < 0, digits, exp10, FLT_DIG, out);
}

/* PostgreSQL's float4in/float8in: strtod syntax with blanks around, plus
 * NaN, [+-]Infinity and [+-]inf in any case; out of range (including an
 * underflow to zero of a non-zero literal) is 22003. */
int ty_f64_parse(const char *s, size_t len, bool is_float4, double *out, err_t *e)
{
  const char *tname = is_float4 ? "real" : "double precision";
  char stack[128], *buf = stack;
  char *heap = NULL;
  if (len >= sizeof(stack)) {
    heap = malloc(len + 1); /* rare: a literal of over 127 characters */
    if (!heap)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
    buf = heap;
  }
  memcpy(buf, s, len);
  buf[len] = '\0';
  char *p = buf;
  while (isspace((unsigned char)*p))
    p++;
  char *end = p + strlen(p);
  while (end > p && isspace((unsigned char)end[-1]))
    *--end = '\0';
  int rc = CZ_OK;
  const char *w = p;
  bool neg = false;
  if (*w == '+' || *w == '-')
    neg = *w++ == '-';
  if (strcasecmp(w, "nan") == 0) {
    *out = NAN; /* a sign is accepted and ignored, as strtod does */
  } else if (strcasecmp(w, "infinity") == 0 || strcasecmp(w, "inf") == 0) {
    *out = neg ? -INFINITY : INFINITY;
  } else if (*p == '\0') {
    rc = err_set(e, SQLSTATE_INVALID_TEXT, "invalid input syntax for type %s: \"%.*s\"", tname,
                 (int)CZ_MIN(len, 200), s);
  } else {
    char *stop;
    errno = 0;
    double d = is_float4 ? (double)strtof(p, &stop) : strtod(p, &stop);
    if (stop == p || *stop != '\0') {
      rc = err_set(e, SQLSTATE_INVALID_TEXT, "invalid input syntax for type %s: \"%.*s\"", tname,
                   (int)CZ_MIN(len, 200), s);
    } else if (errno == ERANGE && (d == 0 || isinf(d))) {
      rc = err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "\"%.*s\" is out of range for type %s",
                   (int)CZ_MIN(len, 200), s, tname);
    } else {
      *out = d;
    }
  }
  free(heap);
  return rc;
}
