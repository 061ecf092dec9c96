/* ty_num_text — NUMERIC text input and output and the NUMERIC(p,s)
 * modifier check. Input follows PostgreSQL's numeric_in: blanks around,
 * optional sign, digits with an optional point, optional exponent; the
 * scale is the number of fraction digits less the exponent (never below 0).
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "types/types_int.h"

static int ty_num_bad(const char *s, size_t len, err_t *e)
{
  return err_set(e, SQLSTATE_INVALID_TEXT, "invalid input syntax for type numeric: \"%.*s\"",
                 (int)CZ_MIN(len, 200), s);
}

/* Text input of a NUMERIC. With exact, a value whose non-zero digits do not
 * all fit in 38 significant digits at a scale of at most 38 is 22003
 * rather than silently rounded (PostgreSQL holds such values exactly, so
 * rounding would change data); zeros beyond them are dropped exactly.
 * Without it (conversions from float, whose digits are approximate anyway)
 * the value is rounded half away from zero. */
static int ty_num_parse_as(const char *s, size_t len, bool exact, num_t *out, err_t *e)
{
  size_t i = 0, end = len;
  while (i < end && isspace((unsigned char)s[i]))
    i++;
  while (end > i && isspace((unsigned char)s[end - 1]))
    end--;
  bool neg = false;
  if (i < end && (s[i] == '+' || s[i] == '-'))
    neg = s[i++] == '-';
  size_t dstart = i;
  int nint = 0, nfrac = 0;
  bool point = false;
  for (; i < end; i++) {
    if (s[i] >= '0' && s[i] <= '9') {
      if (point)
        nfrac++;
      else
        nint++;
    } else if (s[i] == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  size_t dend = i;
  if (nint + nfrac == 0) {
    size_t rest = end - dstart;
    if ((rest == 3 && strncasecmp(s + dstart, "nan", 3) == 0) ||
        (rest == 8 && strncasecmp(s + dstart, "infinity", 8) == 0) ||
        (rest == 3 && strncasecmp(s + dstart, "inf", 3) == 0))
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "numeric NaN and Infinity are not supported");
    return ty_num_bad(s, len, e);
  }
  long exp = 0;
  if (i < end && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    bool eneg = false;
    if (i < end && (s[i] == '+' || s[i] == '-'))
      eneg = s[i++] == '-';
    if (i >= end || !isdigit((unsigned char)s[i]))
      return ty_num_bad(s, len, e);
    for (; i < end && isdigit((unsigned char)s[i]); i++)
      if (exp < 1000000) /* far beyond any value 38 digits can hold */
        exp = exp * 10 + (s[i] - '0');
    if (eneg)
      exp = -exp;
  }
  if (i != end)
    return ty_num_bad(s, len, e);

  /* Digits in order, ignoring the point: value = D * 10^(exp - nfrac). */
  int ndig = nint + nfrac, z = 0;
  for (size_t k = dstart; k < dend; k++) {
    if (s[k] == '.')
      continue;
    if (s[k] != '0')
      break;
    z++;
  }
  long scale = nfrac - exp, mult = 0;
  if (scale < 0) {
    mult = -scale;
    scale = 0;
  }
  int nsig = ndig - z;
  if (nsig == 0) {
    out->n_val = 0;
    out->n_scale = (int16_t)CZ_MIN(scale, NUM_MAX_DIGITS);
    return CZ_OK;
  }
  long drop = CZ_MAX(0, CZ_MAX(scale - NUM_MAX_DIGITS, nsig + mult - NUM_MAX_DIGITS));
  if (drop > scale)
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE,
                      "numeric field overflow: \"%.*s\" has more than %d digits",
                      (int)CZ_MIN(len, 60), s, NUM_MAX_DIGITS);
  unsigned __int128 v = 0;
  int taken = 0, keep = nsig - (int)drop, idx = 0;
  bool round_up = false;
  if (exact && drop > 0) {
    /* Only zeros may go: find the first dropped digit that is not one. */
    int k2 = 0;
    for (size_t k = dstart; k < dend; k++) {
      if (s[k] == '.')
        continue;
      if (k2++ >= z + CZ_MAX(keep, 0) && s[k] != '0')
        return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE,
                       "numeric field overflow: \"%.*s\" has more than %d significant digits "
                       "or decimals",
                       (int)CZ_MIN(len, 60), s, NUM_MAX_DIGITS);
    }
  }
  if (keep < 0) {
    /* Every significant digit lies more than one place below the last
     * kept decimal: the value rounds to zero at scale 38. */
    out->n_val = 0;
    out->n_scale = (int16_t)(scale - drop);
    return CZ_OK;
  }
  for (size_t k = dstart; k < dend; k++) {
    if (s[k] == '.')
      continue;
    if (idx++ < z)
      continue;
    if (taken < keep) {
      v = v * 10 + (unsigned)(s[k] - '0');
      taken++;
    } else {
      round_up = s[k] >= '5';
      break;
    }
  }
  if (round_up)
    v++;
  v *= ty_pow10_u128((int)mult);
  scale -= drop;
  if (v >= ty_pow10_u128(NUM_MAX_DIGITS)) {
    if (scale == 0)
      return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE,
                      "numeric field overflow: \"%.*s\" has more than %d digits",
                      (int)CZ_MIN(len, 60), s, NUM_MAX_DIGITS);
    v /= 10; /* a rounding carry: the dropped digit is 0 */
    scale--;
  }
  out->n_val = neg ? -(__int128)v : (__int128)v;
  out->n_scale = (int16_t)scale;
  return CZ_OK;
}

int ty_num_parse(const char *s, size_t len, num_t *out, err_t *e)
{
  return ty_num_parse_as(s, len, true, out, e);
}

int ty_num_parse_rounding(const char *s, size_t len, num_t *out, err_t *e)
{
  return ty_num_parse_as(s, len, false, out, e);
}

int ty_num_format(const num_t *n, char *out)
{
  unsigned __int128 m = n->n_val < 0 ? (unsigned __int128)0 - (unsigned __int128)n->n_val
                                     : (unsigned __int128)n->n_val;
  char dig[48];
  int nd = ty_u128_to_dec(m, dig);
  int scale = n->n_scale, o = 0;
  if (n->n_val < 0)
    out[o++] = '-';
  if (nd <= scale) {
    out[o++] = '0';
  } else {
    memcpy(out + o, dig, (size_t)(nd - scale));
    o += nd - scale;
  }
  if (scale > 0) {
    out[o++] = '.';
    for (int k = nd; k < scale; k++)
      out[o++] = '0';
    int from = nd > scale ? nd - scale : 0;
    memcpy(out + o, dig + from, (size_t)(nd - from));
    o += nd - from;
  }
  out[o] = '\0';
  return o;
}

int ty_num_apply_typmod(const num_t *n, int prec, int scale, num_t *out, err_t *e)
{
  num_t r;
  if (prec < 0) {
    *out = *n;
    return CZ_OK;
  }
  if (num_rescale(n, CZ_MIN(scale, NUM_MAX_DIGITS), &r, e) != CZ_OK)
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "numeric field overflow");
  if (prec < NUM_MAX_DIGITS) {
    unsigned __int128 m = r.n_val < 0 ? (unsigned __int128)0 - (unsigned __int128)r.n_val
                                      : (unsigned __int128)r.n_val;
    if (m >= ty_pow10_u128(prec))
      return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE,
                     "numeric field overflow: a field with precision %d, scale %d must round "
                     "to an absolute value less than %s%d",
                     prec, scale, prec - scale > 0 ? "10^" : "", prec - scale > 0 ? prec - scale : 1);
  }
  *out = r;
  return CZ_OK;
}
