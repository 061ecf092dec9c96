/* ty_interval — the INTERVAL type: PostgreSQL's text input and its
 * default (IntervalStyle postgres) output, typmod fields and precision,
 * ordering, arithmetic, timestamp arithmetic, justify, age, extract.
 *
 * Design notes: a value is PostgreSQL's three parts (months, days, µs),
 * never normalised, so `1 mon` and `30 days` print as written but compare
 * and hash equal through ty_iv_span (30 days a month, 24 h a day). Each
 * routine follows the PostgreSQL 15 function named beside it, down to its
 * rounding (C truncation toward zero, rint for sub-microseconds), so that
 * results match byte for byte; where PostgreSQL 15 lets an int32 part wrap
 * silently we report 22008 "interval out of range" instead.
 *
 * Input (DecodeInterval): the text is split into fields — numbers
 * (`1.5`, `1-2` year-month), times (`04:05:06.5`, signed too), words
 * (units, `ago`); other punctuation such as `@` is skipped — and the
 * fields are read right to left, so a number takes the unit written after
 * it; a number without one is a day before a time (`1 02:00`), else the
 * lowest field of the typmod (seconds when none). A field given twice is
 * 22007. Text starting with P is ISO 8601 (designators or the
 * alternative YYYY-MM-DDThh:mm:ss form), read when the rest fails.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "types/types_int.h"

#define IV_USEC_PER_SEC INT64_C(1000000)
#define IV_USEC_PER_MIN INT64_C(60000000)
#define IV_USEC_PER_HOUR INT64_C(3600000000)
#define IV_DAYS_PER_MONTH 30
#define IV_SECS_PER_DAY 86400
#define IV_MAX_FIELDS 64

static int iv_range_error(err_t *e)
{
  return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "interval out of range");
}

__int128 ty_iv_span(const ty_iv_t *v)
{
  return ((__int128)v->iv_months * IV_DAYS_PER_MONTH + v->iv_days) * TY_USECS_PER_DAY + v->iv_us;
}

/* ---- input ----------------------------------------------------------------- */

/* Units as DecodeUnits knows them (its table deltatktbl), matched on the
 * first 10 characters as PostgreSQL's TOKMAXLEN does (`milliseconds`). */
typedef enum iv_unit_e {
  IU_NONE, IU_AGO, IU_USEC, IU_MSEC, IU_SECOND, IU_MINUTE, IU_HOUR, IU_DAY, IU_WEEK, IU_MONTH,
  IU_YEAR, IU_DECADE, IU_CENTURY, IU_MILLENNIUM
} iv_unit_t;

static const struct {
  const char *w;
  iv_unit_t u;
} iv_units[] = {
  {"ago", IU_AGO},          {"c", IU_CENTURY},        {"cent", IU_CENTURY},
  {"centuries", IU_CENTURY}, {"century", IU_CENTURY}, {"d", IU_DAY},
  {"day", IU_DAY},          {"days", IU_DAY},         {"dec", IU_DECADE},
  {"decade", IU_DECADE},    {"decades", IU_DECADE},   {"decs", IU_DECADE},
  {"h", IU_HOUR},           {"hour", IU_HOUR},        {"hours", IU_HOUR},
  {"hr", IU_HOUR},          {"hrs", IU_HOUR},         {"m", IU_MINUTE},
  {"microsecon", IU_USEC},  {"mil", IU_MILLENNIUM},   {"millennia", IU_MILLENNIUM},
  {"millennium", IU_MILLENNIUM}, {"millisecon", IU_MSEC}, {"mils", IU_MILLENNIUM},
  {"min", IU_MINUTE},       {"mins", IU_MINUTE},      {"minute", IU_MINUTE},
  {"minutes", IU_MINUTE},   {"mon", IU_MONTH},        {"mons", IU_MONTH},
  {"month", IU_MONTH},      {"months", IU_MONTH},     {"ms", IU_MSEC},
  {"msec", IU_MSEC},        {"msecond", IU_MSEC},     {"mseconds", IU_MSEC},
  {"msecs", IU_MSEC},       {"s", IU_SECOND},         {"sec", IU_SECOND},
  {"second", IU_SECOND},    {"seconds", IU_SECOND},   {"secs", IU_SECOND},
  {"us", IU_USEC},          {"usec", IU_USEC},        {"usecond", IU_USEC},
  {"useconds", IU_USEC},    {"usecs", IU_USEC},       {"w", IU_WEEK},
  {"week", IU_WEEK},        {"weeks", IU_WEEK},       {"y", IU_YEAR},
  {"year", IU_YEAR},        {"years", IU_YEAR},       {"yr", IU_YEAR},
  {"yrs", IU_YEAR},
};

static iv_unit_t iv_unit_of(const char *w, size_t n)
{
  if (n > 10)
    n = 10;
  for (size_t i = 0; i < sizeof iv_units / sizeof iv_units[0]; i++)
    if (strlen(iv_units[i].w) == n && strncasecmp(iv_units[i].w, w, n) == 0)
      return iv_units[i].u;
  return IU_NONE;
}

/* Which fields a value set (DecodeInterval's fmask): one bit per unit,
 * a time sets hour, minute and the seconds at once. */
#define IM(u) (1u << (u))
#define IM_SECS (IM(IU_SECOND) | IM(IU_MSEC) | IM(IU_USEC))
#define IM_TIME (IM(IU_HOUR) | IM(IU_MINUTE) | IM_SECS)

typedef enum iv_ftype_e { IF_NUMBER, IF_TIME, IF_SIGNED, IF_WORD } iv_ftype_t;

typedef struct iv_field_s {
  iv_ftype_t f_type;
  const char *f_p;
  size_t f_n;
} iv_field_t;

/* The parts as they accumulate (PostgreSQL's pg_itm_in): each within
 * int32 (else 22015); years and months meet at the end, where a total
 * past int32 is 22008. */
typedef struct iv_acc_s {
  int64_t a_us;
  int64_t a_days;
  int64_t a_months;
  int64_t a_years;
} iv_acc_t;

typedef enum iv_err_e { IE_OK, IE_FORMAT, IE_FIELD, IE_RANGE } iv_err_t;

static bool iv_frac_us(iv_acc_t *a, double frac, int64_t scale)
{
  if (frac == 0)
    return true;
  frac *= (double)scale;
  int64_t us = (int64_t)frac;
  frac -= (double)us;
  us += (int64_t)rint(frac);
  return !__builtin_add_overflow(a->a_us, us, &a->a_us);
}

static bool iv_frac_days(iv_acc_t *a, double frac, int scale)
{
  if (frac == 0)
    return true;
  frac *= scale;
  int extra = (int)frac;
  a->a_days += extra;
  if (a->a_days > INT32_MAX || a->a_days < INT32_MIN)
    return false;
  frac -= extra;
  return iv_frac_us(a, frac, TY_USECS_PER_DAY);
}

static bool iv_us_units(iv_acc_t *a, int64_t val, double frac, int64_t scale)
{
  int64_t us;
  if (__builtin_mul_overflow(val, scale, &us) || __builtin_add_overflow(a->a_us, us, &a->a_us))
    return false;
  return iv_frac_us(a, frac, scale);
}

static bool iv_days_units(iv_acc_t *a, int64_t val, int scale)
{
  int64_t d;
  if (__builtin_mul_overflow(val, (int64_t)scale, &d) || d > INT32_MAX || d < INT32_MIN)
    return false;
  a->a_days += d;
  return a->a_days <= INT32_MAX && a->a_days >= INT32_MIN;
}

static bool iv_year_units(iv_acc_t *a, int64_t val, double frac, int scale)
{
  int64_t y = val * scale; /* |val| checked below 2^31 first */
  if (val > INT32_MAX || val < INT32_MIN || y > INT32_MAX || y < INT32_MIN)
    return false;
  a->a_years += y;
  a->a_months += (int64_t)rint(frac * scale * 12);
  return a->a_years <= INT32_MAX && a->a_years >= INT32_MIN && a->a_months <= INT32_MAX &&
         a->a_months >= INT32_MIN;
}

/* Adds val.frac units of u (DecodeInterval's switch on type). */
static bool iv_add_units(iv_acc_t *a, iv_unit_t u, int64_t val, double frac)
{
  switch (u) {
  case IU_USEC: return iv_us_units(a, val, frac, 1);
  case IU_MSEC: return iv_us_units(a, val, frac, 1000);
  case IU_SECOND: return iv_us_units(a, val, frac, IV_USEC_PER_SEC);
  case IU_MINUTE: return iv_us_units(a, val, frac, IV_USEC_PER_MIN);
  case IU_HOUR: return iv_us_units(a, val, frac, IV_USEC_PER_HOUR);
  case IU_DAY: return iv_days_units(a, val, 1) && iv_frac_us(a, frac, TY_USECS_PER_DAY);
  case IU_WEEK: return iv_days_units(a, val, 7) && iv_frac_days(a, frac, 7);
  case IU_MONTH:
    a->a_months += val;
    if (val > INT32_MAX || val < INT32_MIN || a->a_months > INT32_MAX || a->a_months < INT32_MIN)
      return false;
    return iv_frac_days(a, frac, IV_DAYS_PER_MONTH);
  case IU_YEAR: return iv_year_units(a, val, frac, 1);
  case IU_DECADE: return iv_year_units(a, val, frac, 10);
  case IU_CENTURY: return iv_year_units(a, val, frac, 100);
  case IU_MILLENNIUM: return iv_year_units(a, val, frac, 1000);
  case IU_NONE:
  case IU_AGO:
    break;
  }
  return false;
}

/* A fraction `.ddd` (ParseFraction): its value, or false when it is not
 * digits. */
static bool iv_fraction(const char *p, size_t n, double *out)
{
  char buf[64];
  if (n == 0 || n >= sizeof buf || p[0] != '.')
    return false;
  for (size_t i = 1; i < n; i++)
    if (!isdigit((unsigned char)p[i]))
      return false;
  buf[0] = '0';
  memcpy(buf + 1, p, n);
  buf[n + 1] = '\0';
  *out = n == 1 ? 0 : strtod(buf, NULL);
  return true;
}

/* Unsigned decimal at p[0..n): value and digits used; false on overflow. */
static bool iv_digits(const char *p, size_t n, size_t *used, int64_t *out)
{
  int64_t v = 0;
  size_t i = 0;
  while (i < n && isdigit((unsigned char)p[i])) {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, p[i] - '0', &v))
      return false;
    i++;
  }
  *used = i;
  *out = v;
  return true;
}

/* A time h:mm[:ss[.f]] (DecodeTime). Two parts are mm:ss when a fraction
 * follows (`12:30.5`) or the typmod is MINUTE TO SECOND, as there. */
static iv_err_t iv_time(const char *p, size_t n, int range, int64_t *us)
{
  int64_t part[3] = {0, 0, 0};
  double frac = 0;
  int np = 0;
  size_t i = 0;
  for (;;) {
    size_t k;
    if (!iv_digits(p + i, n - i, &k, &part[np]))
      return IE_FIELD;
    if (k == 0)
      return IE_FORMAT;
    i += k;
    np++;
    if (i < n && p[i] == ':' && np < 3) {
      i++;
      continue;
    }
    break;
  }
  bool dot = false;
  if (i < n) {
    if (p[i] != '.' || np < 2 || !iv_fraction(p + i, n - i, &frac))
      return IE_FORMAT;
    dot = true;
  }
  if (np < 2)
    return IE_FORMAT;
  int64_t h = part[0], m = part[1], s = part[2];
  if (np == 2 && (dot || range == (TY_IV_F_MINUTE | TY_IV_F_SECOND))) {
    h = 0;
    m = part[0];
    s = part[1];
  }
  if (m < 0 || m > 59 || s < 0 || s > 59)
    return IE_FIELD;
  int64_t t;
  if (__builtin_mul_overflow(h, IV_USEC_PER_HOUR, &t) ||
      __builtin_add_overflow(t, m * IV_USEC_PER_MIN + s * IV_USEC_PER_SEC, &t) ||
      __builtin_add_overflow(t, (int64_t)rint(frac * 1e6), &t))
    return IE_FIELD;
  *us = t;
  return IE_OK;
}

/* The number a bare value stands for under the typmod's fields. */
static iv_unit_t iv_default_unit(int range)
{
  switch (range) {
  case TY_IV_F_YEAR: return IU_YEAR;
  case TY_IV_F_MONTH:
  case TY_IV_F_YEAR | TY_IV_F_MONTH: return IU_MONTH;
  case TY_IV_F_DAY: return IU_DAY;
  case TY_IV_F_HOUR:
  case TY_IV_F_DAY | TY_IV_F_HOUR: return IU_HOUR;
  case TY_IV_F_MINUTE:
  case TY_IV_F_HOUR | TY_IV_F_MINUTE:
  case TY_IV_F_DAY | TY_IV_F_HOUR | TY_IV_F_MINUTE: return IU_MINUTE;
  default: return IU_SECOND;
  }
}

/* Splits s into fields (ParseDateTime, for what an interval may hold). */
static iv_err_t iv_split(const char *s, size_t n, iv_field_t *f, int *nf)
{
  size_t i = 0;
  int k = 0;
  while (i < n) {
    unsigned char c = (unsigned char)s[i];
    if (isspace(c)) {
      i++;
      continue;
    }
    size_t st = i;
    iv_ftype_t ty;
    if (isdigit(c) || c == '.' || c == '+' || c == '-') {
      bool sign = c == '+' || c == '-', colon = false;
      i++;
      if (sign && (i >= n || !(isdigit((unsigned char)s[i]) || s[i] == '.')))
        return IE_FORMAT;
      while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '.' || s[i] == ':' ||
                       (s[i] == '-' && i + 1 < n && isdigit((unsigned char)s[i + 1])))) {
        colon |= s[i] == ':';
        i++;
      }
      ty = sign ? IF_SIGNED : colon ? IF_TIME : IF_NUMBER;
    } else if (isalpha(c)) {
      while (i < n && isalpha((unsigned char)s[i]))
        i++;
      ty = IF_WORD;
    } else if (ispunct(c)) {
      i++; /* `@` and other punctuation are noise, as in ParseDateTime */
      continue;
    } else {
      return IE_FORMAT;
    }
    if (k == IV_MAX_FIELDS)
      return IE_FORMAT;
    f[k].f_type = ty;
    f[k].f_p = s + st;
    f[k].f_n = i - st;
    k++;
  }
  *nf = k;
  return IE_OK;
}

/* A number field: integer part, then a year-month `-m` or a fraction. */
static iv_err_t iv_number(const iv_field_t *f, iv_unit_t *type, int64_t *val, double *frac)
{
  const char *p = f->f_p;
  size_t n = f->f_n, i = 0, used;
  bool neg = false;
  if (p[0] == '+' || p[0] == '-') {
    neg = p[0] == '-';
    i++;
  }
  if (!iv_digits(p + i, n - i, &used, val))
    return IE_FIELD;
  if (used == 0 && !(i < n && p[i] == '.'))
    return IE_FORMAT;
  i += used;
  *frac = 0;
  if (i < n && p[i] == '-') {
    int64_t m;
    if (!iv_digits(p + i + 1, n - i - 1, &used, &m))
      return IE_FIELD;
    if (used == 0 || i + 1 + used != n)
      return IE_FORMAT;
    if (m >= 12)
      return IE_FIELD;
    if (__builtin_mul_overflow(*val, 12, val) || __builtin_add_overflow(*val, m, val))
      return IE_FIELD;
    *type = IU_MONTH;
  } else if (i < n) {
    if (!iv_fraction(p + i, n - i, frac))
      return IE_FORMAT;
  }
  if (neg) {
    *val = -*val;
    *frac = -*frac;
  }
  return IE_OK;
}

static iv_err_t iv_decode(const char *s, size_t n, int range, iv_acc_t *a)
{
  iv_field_t f[IV_MAX_FIELDS];
  int nf;
  iv_err_t r = iv_split(s, n, f, &nf);
  if (r != IE_OK)
    return r;
  unsigned fmask = 0, tmask;
  bool ago = false;
  iv_unit_t type = IU_NONE; /* the unit read last, which numbers take */
  memset(a, 0, sizeof *a);
  for (int i = nf - 1; i >= 0; i--) {
    tmask = 0;
    switch (f[i].f_type) {
    case IF_TIME:
    case IF_SIGNED:
      if (memchr(f[i].f_p, ':', f[i].f_n)) {
        bool signed_ = f[i].f_type == IF_SIGNED;
        int64_t us;
        r = iv_time(f[i].f_p + signed_, f[i].f_n - signed_, range, &us);
        if (r != IE_OK)
          return r;
        if (signed_ && f[i].f_p[0] == '-')
          us = -us;
        if (__builtin_add_overflow(a->a_us, us, &a->a_us))
          return IE_FIELD;
        tmask = IM_TIME;
        type = IU_DAY; /* `1 02:00`: the number before a time is days */
        break;
      }
      /* fall through - a signed number */
    case IF_NUMBER: {
      int64_t val;
      double frac;
      if (type == IU_NONE)
        type = iv_default_unit(range);
      iv_unit_t u = type;
      r = iv_number(&f[i], &u, &val, &frac);
      if (r != IE_OK)
        return r;
      if (u == IU_AGO)
        return IE_FORMAT;
      if (!iv_add_units(a, u, val, frac))
        return IE_FIELD;
      tmask = u == IU_SECOND && frac != 0 ? IM_SECS : IM(u);
      if (u == IU_HOUR)
        type = IU_DAY;
      break;
    }
    case IF_WORD: {
      iv_unit_t u = iv_unit_of(f[i].f_p, f[i].f_n);
      if (u == IU_NONE)
        return IE_FORMAT;
      if (u == IU_AGO)
        ago = true;
      type = u;
      break;
    }
    }
    if (tmask & fmask)
      return IE_FORMAT;
    fmask |= tmask;
  }
  if (fmask == 0)
    return IE_FORMAT;
  if (ago) {
    a->a_us = -a->a_us;
    a->a_days = -a->a_days;
    a->a_months = -a->a_months;
    a->a_years = -a->a_years;
  }
  return IE_OK;
}

/* ISO 8601's number (ParseISO8601Number): strtod's, truncated toward
 * zero into an integer part and a fraction; no leading '+'. */
static iv_err_t iv_iso_number(const char *p, const char **end, int64_t *ipart, double *frac)
{
  if (!(isdigit((unsigned char)*p) || *p == '-' || *p == '.'))
    return IE_FORMAT;
  char *e;
  double v = strtod(p, &e);
  if (e == p)
    return IE_FORMAT;
  if (isnan(v) || v < -1.0e15 || v > 1.0e15)
    return IE_FIELD;
  *ipart = v >= 0 ? (int64_t)floor(v) : -(int64_t)floor(-v);
  *frac = v - (double)*ipart;
  *end = e;
  return IE_OK;
}

/* Digits of the integer part at p (ISO8601IntegerWidth). */
static size_t iv_iso_width(const char *p)
{
  if (*p == '-')
    p++;
  return strspn(p, "0123456789");
}

/* The alternative form's fields, in the date part and in the time part. */
static const iv_unit_t iv_iso_date_units[3] = {IU_YEAR, IU_MONTH, IU_DAY};
static const iv_unit_t iv_iso_time_units[3] = {IU_HOUR, IU_MINUTE, IU_SECOND};

/* A designator's unit: Y M W D in the date part, H M S in the time part
 * (M is months or minutes by the part); IU_NONE for any other character. */
static iv_unit_t iv_iso_designator(bool date, char c)
{
  switch (c) {
  case 'Y': return date ? IU_YEAR : IU_NONE;
  case 'M': return date ? IU_MONTH : IU_MINUTE;
  case 'W': return date ? IU_WEEK : IU_NONE;
  case 'D': return date ? IU_DAY : IU_NONE;
  case 'H': return date ? IU_NONE : IU_HOUR;
  case 'S': return date ? IU_NONE : IU_SECOND;
  default: return IU_NONE;
  }
}

/* The alternative form's three fields packed in one number: YYYYMMDD or
 * hhmmss. The fraction is days' after YYYYMMDD but, after hhmmss,
 * microseconds' (PostgreSQL 15 passes it to AdjustFractMicroseconds with
 * scale 1, so `PT123456.5` is 12:34:56). */
static bool iv_iso_packed(iv_acc_t *a, bool date, int64_t val, double frac)
{
  const iv_unit_t *u = date ? iv_iso_date_units : iv_iso_time_units;
  return iv_add_units(a, u[0], val / 10000, 0) && iv_add_units(a, u[1], (val / 100) % 100, 0) &&
         iv_add_units(a, u[2], val % 100, date ? frac : 0) &&
         (date || iv_add_units(a, IU_USEC, 0, frac));
}

/* The alternative form with separators, YYYY-MM-DD or hh:mm:ss, trailing
 * parts left out: val.frac is the first field, next the character after
 * it (already passed), *pp what follows. Sets *done when the text ends
 * there; otherwise a date part ended at 'T' and *pp is past it. */
static iv_err_t iv_iso_alt(iv_acc_t *a, const char **pp, char next, int64_t val, double frac,
                           bool date, bool *done)
{
  const iv_unit_t *u = date ? iv_iso_date_units : iv_iso_time_units;
  const char *p = *pp;
  iv_err_t r;
  for (int k = 0;; k++) {
    if (!iv_add_units(a, u[k], val, frac))
      return IE_FIELD;
    if (next == '\0') {
      *done = true;
      return IE_OK;
    }
    if (date && next == 'T') {
      *pp = p;
      return IE_OK;
    }
    if (k == 2 || next != (date ? '-' : ':'))
      return IE_FORMAT;
    if ((r = iv_iso_number(p, &p, &val, &frac)) != IE_OK)
      return r;
    next = *p;
    if (next)
      p++;
  }
}

/* ISO 8601 (DecodeISO8601Interval): the designator form
 * P[nY][nM][nW][nD][T[nH][nM][nS]] and the alternative forms
 * PYYYY-MM-DDThh:mm:ss and PYYYYMMDDThhmmss, with fractions. have: a
 * designator was read in the current part, which then admits no
 * alternative form. */
static iv_err_t iv_iso8601(const char *s, size_t n, iv_acc_t *a)
{
  char buf[256];
  memset(a, 0, sizeof *a);
  if (n < 2 || n >= sizeof buf || s[0] != 'P')
    return IE_FORMAT;
  memcpy(buf, s + 1, n - 1);
  buf[n - 1] = '\0';
  const char *p = buf;
  bool date = true, have = false;
  int64_t val;
  double frac;
  iv_err_t r;
  while (*p) {
    if (*p == 'T') {
      date = false;
      have = false;
      p++;
      continue;
    }
    const char *start = p;
    if ((r = iv_iso_number(p, &p, &val, &frac)) != IE_OK)
      return r;
    char unit = *p;
    if (unit)
      p++;
    iv_unit_t u = iv_iso_designator(date, unit);
    if (u != IU_NONE) {
      if (!iv_add_units(a, u, val, frac))
        return IE_FIELD;
      have = true;
      continue;
    }
    bool ends = unit == '\0' || (date && unit == 'T');
    if (!ends && unit != (date ? '-' : ':'))
      return IE_FORMAT;
    if (have)
      return IE_FORMAT;
    if (ends && iv_iso_width(start) == (date ? 8u : 6u)) {
      if (!iv_iso_packed(a, date, val, frac))
        return IE_FIELD;
      if (unit == '\0')
        return IE_OK;
    } else {
      bool done = false;
      if ((r = iv_iso_alt(a, &p, unit, val, frac, date, &done)) != IE_OK)
        return r;
      if (done)
        return IE_OK;
    }
    date = false; /* the date part ended at 'T' */
    have = false;
  }
  return IE_OK;
}

int ty_iv_parse(ty_t t, const char *s, size_t len, ty_iv_t *out, err_t *e)
{
  iv_acc_t a;
  int range = t.t_id == TY_INTERVAL ? t.t_scale : 0;
  iv_err_t r = iv_decode(s, len, range, &a);
  if (r == IE_FORMAT)
    r = iv_iso8601(s, len, &a);
  switch (r) {
  case IE_OK:
    break;
  case IE_FORMAT:
    return err_set(e, SQLSTATE_INVALID_DATETIME_FORMAT, "invalid input syntax for type interval: \"%.*s\"",
                   (int)CZ_MIN(len, 200), s);
  case IE_FIELD:
    return err_set(e, SQLSTATE_INTERVAL_FIELD_OVERFLOW, "interval field value out of range: \"%.*s\"",
                   (int)CZ_MIN(len, 200), s);
  case IE_RANGE:
    return iv_range_error(e);
  }
  int64_t months = a.a_years * 12 + a.a_months;
  if (months > INT32_MAX || months < INT32_MIN || a.a_days > INT32_MAX || a.a_days < INT32_MIN ||
      a.a_us == INT64_MIN)
    return iv_range_error(e);
  out->iv_months = (int32_t)months;
  out->iv_days = (int32_t)a.a_days;
  out->iv_us = a.a_us;
  ty_iv_apply_typmod(t, out);
  return CZ_OK;
}

void ty_iv_apply_typmod(ty_t t, ty_iv_t *v)
{
  if (t.t_id != TY_INTERVAL)
    return;
  int range = t.t_scale;
  if (range == TY_IV_F_YEAR) {
    v->iv_months = v->iv_months / 12 * 12;
    v->iv_days = 0;
    v->iv_us = 0;
  } else if (range == TY_IV_F_MONTH || range == (TY_IV_F_YEAR | TY_IV_F_MONTH)) {
    v->iv_days = 0;
    v->iv_us = 0;
  } else if (range == TY_IV_F_DAY) {
    v->iv_us = 0;
  } else if (range == TY_IV_F_HOUR || range == (TY_IV_F_DAY | TY_IV_F_HOUR)) {
    v->iv_us = v->iv_us / IV_USEC_PER_HOUR * IV_USEC_PER_HOUR;
  } else if (range == TY_IV_F_MINUTE || range == (TY_IV_F_HOUR | TY_IV_F_MINUTE) ||
             range == (TY_IV_F_DAY | TY_IV_F_HOUR | TY_IV_F_MINUTE)) {
    v->iv_us = v->iv_us / IV_USEC_PER_MIN * IV_USEC_PER_MIN;
  }
  if (t.t_prec >= 0 && t.t_prec < 6) {
    static const int64_t scales[6] = {1000000, 100000, 10000, 1000, 100, 10};
    int64_t sc = scales[t.t_prec], off = sc / 2;
    if (v->iv_us >= 0)
      v->iv_us = (v->iv_us + off) / sc * sc;
    else
      v->iv_us = -((-v->iv_us + off) / sc * sc);
  }
}

/* ---- output ---------------------------------------------------------------- */

/* AddPostgresIntPart: ` [+]n unit[s]`. */
static int iv_part(char *out, int n, int64_t v, const char *unit, bool *zero, bool *before)
{
  if (v == 0)
    return n;
  n += sprintf(out + n, "%s%s%lld %s%s", *zero ? "" : " ", (*before && v > 0) ? "+" : "",
               (long long)v, unit, v != 1 ? "s" : "");
  *before = v < 0;
  *zero = false;
  return n;
}

int ty_iv_format(const ty_iv_t *v, char *out)
{
  int n = 0;
  bool zero = true, before = false;
  int64_t years = v->iv_months / 12, mons = v->iv_months % 12;
  int64_t t = v->iv_us;
  int64_t hour = t / IV_USEC_PER_HOUR;
  t -= hour * IV_USEC_PER_HOUR;
  int64_t min = t / IV_USEC_PER_MIN;
  t -= min * IV_USEC_PER_MIN;
  int64_t sec = t / IV_USEC_PER_SEC;
  int64_t fsec = t - sec * IV_USEC_PER_SEC;
  n = iv_part(out, n, years, "year", &zero, &before);
  n = iv_part(out, n, mons, "mon", &zero, &before);
  n = iv_part(out, n, v->iv_days, "day", &zero, &before);
  if (zero || hour != 0 || min != 0 || sec != 0 || fsec != 0) {
    bool minus = hour < 0 || min < 0 || sec < 0 || fsec < 0;
    unsigned long long h = hour < 0 ? 0ull - (unsigned long long)hour : (unsigned long long)hour;
    n += sprintf(out + n, "%s%s%02llu:%02lld:%02lld", zero ? "" : " ",
                 minus ? "-" : before ? "+" : "", h, (long long)llabs(min), (long long)llabs(sec));
    if (fsec != 0) {
      char f[24]; /* |fsec| < 10^6: six digits */
      snprintf(f, sizeof f, "%06lld", (long long)llabs(fsec));
      int k = 6;
      while (k > 0 && f[k - 1] == '0')
        k--;
      out[n++] = '.';
      memcpy(out + n, f, (size_t)k);
      n += k;
    }
  }
  out[n] = '\0';
  return n;
}

/* ---- arithmetic ------------------------------------------------------------ */

/* a + b, or a - b: each field on its own, any overflow out of range. */
static int iv_add_sub(const ty_iv_t *a, const ty_iv_t *b, bool sub, ty_iv_t *out, err_t *e)
{
  ty_iv_t r;
  bool over = sub ? __builtin_sub_overflow(a->iv_months, b->iv_months, &r.iv_months) ||
                        __builtin_sub_overflow(a->iv_days, b->iv_days, &r.iv_days) ||
                        __builtin_sub_overflow(a->iv_us, b->iv_us, &r.iv_us)
                  : __builtin_add_overflow(a->iv_months, b->iv_months, &r.iv_months) ||
                        __builtin_add_overflow(a->iv_days, b->iv_days, &r.iv_days) ||
                        __builtin_add_overflow(a->iv_us, b->iv_us, &r.iv_us);
  if (over)
    return iv_range_error(e);
  *out = r;
  return CZ_OK;
}

int ty_iv_add(const ty_iv_t *a, const ty_iv_t *b, ty_iv_t *out, err_t *e)
{
  return iv_add_sub(a, b, false, out, e);
}

int ty_iv_sub(const ty_iv_t *a, const ty_iv_t *b, ty_iv_t *out, err_t *e)
{
  return iv_add_sub(a, b, true, out, e);
}

int ty_iv_neg(const ty_iv_t *a, ty_iv_t *out, err_t *e)
{
  if (a->iv_months == INT32_MIN || a->iv_days == INT32_MIN || a->iv_us == INT64_MIN)
    return iv_range_error(e);
  out->iv_months = -a->iv_months;
  out->iv_days = -a->iv_days;
  out->iv_us = -a->iv_us;
  return CZ_OK;
}

#define IV_TSROUND(j) (rint((j) * 1000000.0) / 1000000.0)

/* interval_mul and interval_div share the cascade: months and days are
 * truncated, what they lose moves to the next smaller part. */
static int iv_scale(const ty_iv_t *a, double f, bool div, ty_iv_t *out, err_t *e)
{
  double m = div ? a->iv_months / f : a->iv_months * f;
  double d = div ? a->iv_days / f : a->iv_days * f;
  if (isnan(m) || m > INT32_MAX || m < INT32_MIN || isnan(d) || d > INT32_MAX || d < INT32_MIN)
    return iv_range_error(e);
  ty_iv_t r;
  r.iv_months = (int32_t)m;
  r.iv_days = (int32_t)d;
  double mrem = IV_TSROUND((m - r.iv_months) * IV_DAYS_PER_MONTH);
  double srem = IV_TSROUND((d - r.iv_days + mrem - (int)mrem) * IV_SECS_PER_DAY);
  int64_t days = r.iv_days;
  if (fabs(srem) >= IV_SECS_PER_DAY) {
    days += (int)(srem / IV_SECS_PER_DAY);
    srem -= (int)(srem / IV_SECS_PER_DAY) * IV_SECS_PER_DAY;
  }
  days += (int32_t)mrem;
  if (days > INT32_MAX || days < INT32_MIN)
    return iv_range_error(e);
  r.iv_days = (int32_t)days;
  double t = rint((div ? (double)a->iv_us / f : (double)a->iv_us * f) + srem * 1e6);
  if (isnan(t) || !(t >= -9223372036854775808.0 && t < 9223372036854775808.0))
    return iv_range_error(e);
  r.iv_us = (int64_t)t;
  *out = r;
  return CZ_OK;
}

int ty_iv_mul(const ty_iv_t *a, double f, ty_iv_t *out, err_t *e)
{
  return iv_scale(a, f, false, out, e);
}

int ty_iv_div(const ty_iv_t *a, double f, ty_iv_t *out, err_t *e)
{
  if (f == 0)
    return err_set(e, SQLSTATE_DIVISION_BY_ZERO, "division by zero");
  return iv_scale(a, f, true, out, e);
}

/* The steps of PostgreSQL's justify functions. Whole days of the time
 * move into the days; false when the days overflow. */
static bool iv_carry_days(ty_iv_t *r)
{
  int64_t whole = r->iv_us / TY_USECS_PER_DAY;
  r->iv_us -= whole * TY_USECS_PER_DAY;
  int64_t days = (int64_t)r->iv_days + whole;
  if (days > INT32_MAX || days < INT32_MIN)
    return false;
  r->iv_days = (int32_t)days;
  return true;
}

/* Whole 30-day months of the days move into the months. */
static bool iv_carry_months(ty_iv_t *r)
{
  int32_t whole = r->iv_days / IV_DAYS_PER_MONTH;
  r->iv_days -= whole * IV_DAYS_PER_MONTH;
  return !__builtin_add_overflow(r->iv_months, whole, &r->iv_months);
}

/* Days and time of one sign: a day borrowed or lent. */
static void iv_sign_days(ty_iv_t *r)
{
  if (r->iv_days > 0 && r->iv_us < 0) {
    r->iv_us += TY_USECS_PER_DAY;
    r->iv_days--;
  } else if (r->iv_days < 0 && r->iv_us > 0) {
    r->iv_us -= TY_USECS_PER_DAY;
    r->iv_days++;
  }
}

/* Months and days of one sign (with_time: the time decides when there
 * are no days, as justify_interval has it). */
static void iv_sign_months(ty_iv_t *r, bool with_time)
{
  if (r->iv_months > 0 &&
      (r->iv_days < 0 || (with_time && r->iv_days == 0 && r->iv_us < 0))) {
    r->iv_days += IV_DAYS_PER_MONTH;
    r->iv_months--;
  } else if (r->iv_months < 0 &&
             (r->iv_days > 0 || (with_time && r->iv_days == 0 && r->iv_us > 0))) {
    r->iv_days -= IV_DAYS_PER_MONTH;
    r->iv_months++;
  }
}

int ty_iv_justify_hours(const ty_iv_t *a, ty_iv_t *out, err_t *e)
{
  ty_iv_t r = *a;
  if (!iv_carry_days(&r))
    return iv_range_error(e);
  iv_sign_days(&r);
  *out = r;
  return CZ_OK;
}

int ty_iv_justify_days(const ty_iv_t *a, ty_iv_t *out, err_t *e)
{
  ty_iv_t r = *a;
  if (!iv_carry_months(&r))
    return iv_range_error(e);
  iv_sign_months(&r, false);
  *out = r;
  return CZ_OK;
}

int ty_iv_justify(const ty_iv_t *a, ty_iv_t *out, err_t *e)
{
  ty_iv_t r = *a;
  /* days and time of one sign: months first, so the days cannot overflow */
  bool same = (r.iv_days > 0 && r.iv_us > 0) || (r.iv_days < 0 && r.iv_us < 0);
  if ((same && !iv_carry_months(&r)) || !iv_carry_days(&r) || !iv_carry_months(&r))
    return iv_range_error(e);
  iv_sign_months(&r, true);
  iv_sign_days(&r);
  *out = r;
  return CZ_OK;
}

/* ---- timestamps ------------------------------------------------------------ */

static int64_t iv_floor_div(int64_t a, int64_t d)
{
  int64_t q = a / d;
  return (a % d != 0 && (a < 0) != (d < 0)) ? q - 1 : q;
}

static int iv_month_days(int64_t y, int m)
{
  return (int)(ty_days_from_civil(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1) -
               ty_days_from_civil(y, m, 1));
}

static int iv_ts_range(err_t *e)
{
  return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "timestamp out of range");
}

int ty_ts_add_iv(int64_t ts, const ty_iv_t *v, int sign, int64_t *out, err_t *e)
{
  if (ts == TY_TS_NOBEGIN || ts == TY_TS_NOEND) {
    *out = ts;
    return CZ_OK;
  }
  int64_t months = (int64_t)sign * v->iv_months, days_add = (int64_t)sign * v->iv_days;
  int64_t us_add = v->iv_us;
  if (sign < 0 && __builtin_sub_overflow((int64_t)0, us_add, &us_add))
    return iv_ts_range(e);
  int64_t days = iv_floor_div(ts, TY_USECS_PER_DAY);
  int64_t tod = ts - days * TY_USECS_PER_DAY;
  if (months != 0) {
    int64_t y;
    int m, d;
    ty_civil_from_days(days, &y, &m, &d);
    int64_t total = y * 12 + (m - 1) + months;
    y = iv_floor_div(total, 12);
    m = (int)(total - y * 12) + 1;
    if (y < -4714 || y > 294277)
      return iv_ts_range(e);
    int md = iv_month_days(y, m);
    if (d > md)
      d = md;
    days = ty_days_from_civil(y, m, d);
    if (!ty_ts_in_range(days * TY_USECS_PER_DAY + tod))
      return iv_ts_range(e);
  }
  if (days_add != 0) {
    days += days_add;
    /* |days| < 2^33 here, so days * a day's µs cannot overflow */
    if (!ty_ts_in_range(days * TY_USECS_PER_DAY + tod))
      return iv_ts_range(e);
  }
  int64_t r;
  if (__builtin_add_overflow(days * TY_USECS_PER_DAY + tod, us_add, &r) || !ty_ts_in_range(r))
    return iv_ts_range(e);
  *out = r;
  return CZ_OK;
}

int ty_ts_diff(int64_t a, int64_t b, ty_iv_t *out, err_t *e)
{
  if (a == TY_TS_NOBEGIN || a == TY_TS_NOEND || b == TY_TS_NOBEGIN || b == TY_TS_NOEND)
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "cannot subtract infinite timestamps");
  ty_iv_t r = {0, 0, 0};
  if (__builtin_sub_overflow(a, b, &r.iv_us))
    return iv_range_error(e);
  return ty_iv_justify_hours(&r, out, e);
}

/* A timestamp's calendar fields (timestamp2tm). */
typedef struct iv_tm_s {
  int64_t year;
  int mon, mday, hour, min, sec, usec;
} iv_tm_t;

static void iv_tm_of(int64_t ts, iv_tm_t *tm)
{
  int64_t days = iv_floor_div(ts, TY_USECS_PER_DAY);
  int64_t tod = ts - days * TY_USECS_PER_DAY;
  ty_civil_from_days(days, &tm->year, &tm->mon, &tm->mday);
  tm->hour = (int)(tod / IV_USEC_PER_HOUR);
  tod -= tm->hour * IV_USEC_PER_HOUR;
  tm->min = (int)(tod / IV_USEC_PER_MIN);
  tod -= tm->min * IV_USEC_PER_MIN;
  tm->sec = (int)(tod / IV_USEC_PER_SEC);
  tm->usec = (int)(tod - tm->sec * IV_USEC_PER_SEC);
}

int ty_ts_age(int64_t a, int64_t b, ty_iv_t *out, err_t *e)
{
  if (a == TY_TS_NOBEGIN || a == TY_TS_NOEND || b == TY_TS_NOBEGIN || b == TY_TS_NOEND)
    return iv_ts_range(e);
  iv_tm_t t1, t2;
  iv_tm_of(a, &t1);
  iv_tm_of(b, &t2);
  /* the differences, smallest first; each field borrows from the next
   * until none is negative (a day's borrow is the earlier month's days) */
  int s = a < b ? -1 : 1;
  const iv_tm_t *early = a < b ? &t1 : &t2;
  int64_t f[7] = {t1.usec - t2.usec, t1.sec - t2.sec, t1.min - t2.min, t1.hour - t2.hour,
                  t1.mday - t2.mday, t1.mon - t2.mon, t1.year - t2.year};
  static const int64_t carry[6] = {IV_USEC_PER_SEC, 60, 60, 24, 0, 12};
  for (int i = 0; i < 7; i++)
    f[i] *= s;
  for (int i = 0; i < 6; i++)
    while (f[i] < 0) {
      f[i] += i == 4 ? iv_month_days(early->year, early->mon) : carry[i];
      f[i + 1]--;
    }
  int64_t months = (f[6] * 12 + f[5]) * s;
  if (months > INT32_MAX || months < INT32_MIN)
    return iv_range_error(e);
  out->iv_months = (int32_t)months;
  out->iv_days = (int32_t)(f[4] * s);
  out->iv_us = (((f[3] * 60 + f[2]) * 60 + f[1]) * IV_USEC_PER_SEC + f[0]) * s;
  return CZ_OK;
}

int ty_iv_make(int64_t years, int64_t months, int64_t weeks, int64_t days, int64_t hours,
               int64_t mins, double secs, ty_iv_t *out, err_t *e)
{
  if (isinf(secs) || isnan(secs))
    return iv_range_error(e);
  int64_t m, d, t, x;
  double us = rint(secs * 1e6);
  if (!(us >= -9223372036854775808.0 && us < 9223372036854775808.0))
    return iv_range_error(e);
  if (__builtin_mul_overflow(years, 12, &m) || __builtin_add_overflow(m, months, &m) ||
      m > INT32_MAX || m < INT32_MIN || __builtin_mul_overflow(weeks, 7, &d) ||
      __builtin_add_overflow(d, days, &d) || d > INT32_MAX || d < INT32_MIN ||
      __builtin_mul_overflow(hours, IV_USEC_PER_HOUR, &t) ||
      __builtin_mul_overflow(mins, IV_USEC_PER_MIN, &x) || __builtin_add_overflow(t, x, &t) ||
      __builtin_add_overflow(t, (int64_t)us, &t))
    return iv_range_error(e);
  out->iv_months = (int32_t)m;
  out->iv_days = (int32_t)d;
  out->iv_us = t;
  return CZ_OK;
}

/* ---- extract ---------------------------------------------------------------- */

static void iv_num(__int128 v, int scale, num_t *out)
{
  out->n_val = v;
  out->n_scale = (int16_t)scale;
}

int ty_iv_extract(const ty_iv_t *v, const char *field, num_t *out, err_t *e)
{
  int64_t year = v->iv_months / 12, mon = v->iv_months % 12;
  int64_t t = v->iv_us;
  int64_t hour = t / IV_USEC_PER_HOUR;
  t -= hour * IV_USEC_PER_HOUR;
  int64_t min = t / IV_USEC_PER_MIN;
  t -= min * IV_USEC_PER_MIN; /* t: seconds and µs, |t| < 60 s */
  static const struct {
    const char *w;
    int f;
  } names[] = {
    {"microsecond", 1}, {"microseconds", 1}, {"us", 1}, {"usec", 1}, {"usecs", 1},
    {"millisecond", 2}, {"milliseconds", 2}, {"ms", 2}, {"msec", 2}, {"msecs", 2},
    {"second", 3}, {"seconds", 3}, {"sec", 3}, {"secs", 3}, {"s", 3},
    {"minute", 4}, {"minutes", 4}, {"min", 4}, {"mins", 4}, {"m", 4},
    {"hour", 5}, {"hours", 5}, {"hr", 5}, {"hrs", 5}, {"h", 5},
    {"day", 6}, {"days", 6}, {"d", 6},
    {"month", 7}, {"months", 7}, {"mon", 7}, {"mons", 7},
    {"quarter", 8}, {"qtr", 8},
    {"year", 9}, {"years", 9}, {"y", 9}, {"yr", 9}, {"yrs", 9},
    {"decade", 10}, {"decades", 10}, {"dec", 10}, {"decs", 10},
    {"century", 11}, {"centuries", 11}, {"c", 11}, {"cent", 11},
    {"millennium", 12}, {"millennia", 12}, {"mil", 12}, {"mils", 12},
    {"epoch", 13},
    {"week", 99}, {"weeks", 99}, {"w", 99}, {"dow", 99}, {"doy", 99}, {"isodow", 99},
    {"isoyear", 99}, {"julian", 99}, {"timezone", 99}, {"timezone_hour", 99},
    {"timezone_minute", 99},
  };
  int f = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(names[i].w, field) == 0)
      f = names[i].f;
  switch (f) {
  case 1: iv_num(t, 0, out); return CZ_OK;
  case 2: iv_num(t, 3, out); return CZ_OK;
  case 3: iv_num(t, 6, out); return CZ_OK;
  case 4: iv_num(min, 0, out); return CZ_OK;
  case 5: iv_num(hour, 0, out); return CZ_OK;
  case 6: iv_num(v->iv_days, 0, out); return CZ_OK;
  case 7: iv_num(mon, 0, out); return CZ_OK;
  case 8: iv_num(mon / 3 + 1, 0, out); return CZ_OK;
  case 9: iv_num(year, 0, out); return CZ_OK;
  case 10: iv_num(year / 10, 0, out); return CZ_OK;
  case 11: iv_num(year / 100, 0, out); return CZ_OK;
  case 12: iv_num(year / 1000, 0, out); return CZ_OK;
  case 13: {
    /* a year is 365.25 days, a month 30 (interval_part's epoch) */
    __int128 secs = ((__int128)1461 * (v->iv_months / 12) + (__int128)120 * (v->iv_months % 12) +
                     (__int128)4 * v->iv_days) * (IV_SECS_PER_DAY / 4);
    iv_num(secs * IV_USEC_PER_SEC + v->iv_us, 6, out);
    return CZ_OK;
  }
  case 99:
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "unit \"%s\" not supported for type interval",
                   field);
  default:
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "unit \"%s\" not recognized for type interval", field);
  }
}
