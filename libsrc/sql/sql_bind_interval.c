/* sql_bind_interval — INTERVAL literals in date and timestamp arithmetic
 * (see sql_bind_syn.h).
 *
 * Design notes: there is no interval type (types.h), so an interval can
 * only live while binding. Its text is read as PostgreSQL's interval input
 * reads the common forms — `3 months`, `1 year 2 mons -3 days`, `90` with
 * the unit written after the literal (`INTERVAL '90' DAY`), `1 day
 * 02:30:00`, `@ 1 day ago` — into months, days and microseconds, the three
 * parts PostgreSQL keeps apart because a month and a day have no fixed
 * length. Adding one to a timestamp follows PostgreSQL's timestamp_pl_interval:
 * months first (the day clamped to the end of the month: Jan 31 + 1 month
 * is Feb 28/29), then days, then the time. A date is a timestamp at
 * midnight and the result is a TIMESTAMP, as in PostgreSQL.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/sql_bind_syn.h"

#define SQLSTATE_BAD_DATETIME "22007"
#define SQLSTATE_DATETIME_RANGE "22008"
#define SQLSTATE_NOT_SUPPORTED "0A000"
#define IV_USEC_PER_DAY INT64_C(86400000000)
#define IV_MIN_YEAR (-4713)
#define IV_MAX_YEAR 294276
/* Beyond this many units an interval cannot move any timestamp in range;
 * the microsecond part is kept below IV_MAX_USEC so sums cannot overflow. */
#define IV_MAX_UNITS 1e12
#define IV_MAX_USEC 4e18

typedef struct iv_s {
  int64_t iv_months;
  int64_t iv_days;
  int64_t iv_usec;
} iv_t;

/* The unit words PostgreSQL accepts, and what one of each is. */
typedef enum iv_unit_e { IV_YEAR, IV_MONTH, IV_WEEK, IV_DAY, IV_HOUR, IV_MINUTE, IV_SECOND,
                         IV_MSEC, IV_USEC, IV_NONE } iv_unit_t;

static const struct {
  const char *name;
  iv_unit_t unit;
} iv_words[] = {
  {"year", IV_YEAR},     {"years", IV_YEAR},     {"y", IV_YEAR},       {"yr", IV_YEAR},
  {"yrs", IV_YEAR},      {"month", IV_MONTH},    {"months", IV_MONTH}, {"mon", IV_MONTH},
  {"mons", IV_MONTH},    {"week", IV_WEEK},      {"weeks", IV_WEEK},   {"w", IV_WEEK},
  {"day", IV_DAY},       {"days", IV_DAY},       {"d", IV_DAY},        {"hour", IV_HOUR},
  {"hours", IV_HOUR},    {"h", IV_HOUR},         {"hr", IV_HOUR},      {"hrs", IV_HOUR},
  {"minute", IV_MINUTE}, {"minutes", IV_MINUTE}, {"m", IV_MINUTE},     {"min", IV_MINUTE},
  {"mins", IV_MINUTE},   {"second", IV_SECOND},  {"seconds", IV_SECOND}, {"s", IV_SECOND},
  {"sec", IV_SECOND},    {"secs", IV_SECOND},    {"millisecond", IV_MSEC},
  {"milliseconds", IV_MSEC}, {"ms", IV_MSEC},    {"microsecond", IV_USEC},
  {"microseconds", IV_USEC}, {"us", IV_USEC},
};

static iv_unit_t iv_unit(const char *w, size_t n)
{
  for (size_t i = 0; i < sizeof iv_words / sizeof iv_words[0]; i++)
    if (strlen(iv_words[i].name) == n && strncasecmp(iv_words[i].name, w, n) == 0)
      return iv_words[i].unit;
  return IV_NONE;
}

/* Adds usec to iv's time part; false when the part would leave
 * ±IV_MAX_USEC. */
static bool iv_add_usec(iv_t *iv, double usec)
{
  if (!(fabs((double)iv->iv_usec + usec) < IV_MAX_USEC))
    return false;
  iv->iv_usec += (int64_t)llround(usec);
  return true;
}

/* v units into iv (|v| <= IV_MAX_UNITS); fractions spill into the smaller
 * parts as PostgreSQL does (a month is 30 days there, a year's fraction
 * whole months). False when the time part gets out of range. */
static bool iv_add(iv_t *iv, double v, iv_unit_t u)
{
  double usec = 0;
  switch (u) {
  case IV_YEAR: iv->iv_months += (int64_t)(v * 12); return true;
  case IV_MONTH: {
    double whole = trunc(v), days = (v - whole) * 30;
    iv->iv_months += (int64_t)whole;
    iv->iv_days += (int64_t)trunc(days);
    usec = (days - trunc(days)) * 86400e6;
    break;
  }
  case IV_WEEK:
  case IV_DAY: {
    double d = u == IV_WEEK ? v * 7 : v;
    iv->iv_days += (int64_t)trunc(d);
    usec = (d - trunc(d)) * 86400e6;
    break;
  }
  case IV_HOUR: usec = v * 3600e6; break;
  case IV_MINUTE: usec = v * 60e6; break;
  case IV_SECOND: usec = v * 1e6; break;
  case IV_MSEC: usec = v * 1e3; break;
  case IV_USEC: usec = v; break;
  case IV_NONE: break;
  }
  return iv_add_usec(iv, usec);
}

/* [-]h:mm[:ss[.f]] at s (n bytes) into iv; false when it is not one. */
static bool iv_time(iv_t *iv, const char *s, size_t n)
{
  double part[3] = {0, 0, 0};
  int np = 0;
  bool neg = false;
  size_t i = 0;
  if (i < n && (s[i] == '-' || s[i] == '+'))
    neg = s[i++] == '-';
  while (i < n && np < 3) {
    char *end;
    char buf[64];
    size_t k = i;
    while (k < n && s[k] != ':')
      k++;
    if (k == i || k - i >= sizeof buf)
      return false;
    memcpy(buf, s + i, k - i);
    buf[k - i] = '\0';
    if (!isdigit((unsigned char)buf[0]))
      return false;
    part[np++] = strtod(buf, &end);
    if (*end || (np < 3 && strchr(buf, '.')))
      return false;
    i = k < n ? k + 1 : k;
    if (k == n)
      break;
  }
  if (i < n || np < 2 || part[1] >= 60 || part[2] >= 60)
    return false;
  double usec = ((part[0] * 60 + part[1]) * 60 + part[2]) * 1e6;
  return iv_add_usec(iv, neg ? -usec : usec);
}

/* The literal's text (and trailing unit) into iv; 22007 when unreadable. */
static int iv_parse(bd_t *b, const sql_expr_t *x, iv_t *iv)
{
  const char *s = x->ex_text;
  size_t n = strlen(s), i = 0;
  iv_unit_t dflt = IV_SECOND; /* a bare number without a unit: seconds */
  if (x->ex_name)
    dflt = iv_unit(x->ex_name, strlen(x->ex_name));
  bool any = false, ago = false;
  memset(iv, 0, sizeof *iv);
  for (;;) {
    while (i < n && isspace((unsigned char)s[i]))
      i++;
    if (i == n)
      break;
    size_t k = i;
    while (k < n && !isspace((unsigned char)s[k]))
      k++;
    const char *w = s + i;
    size_t wl = k - i;
    i = k;
    if (wl == 1 && w[0] == '@' && !any)
      continue;
    if (wl == 3 && strncasecmp(w, "ago", 3) == 0 && any && !ago) {
      ago = true;
      continue;
    }
    if (ago)
      goto bad;
    if (memchr(w, ':', wl)) {
      if (!iv_time(iv, w, wl))
        goto bad;
      any = true;
      continue;
    }
    /* a number, its unit glued on (1day) or the next word */
    char buf[64], *end;
    if (wl >= sizeof buf)
      goto bad;
    memcpy(buf, w, wl);
    buf[wl] = '\0';
    if (!(isdigit((unsigned char)buf[0]) || buf[0] == '.' ||
          ((buf[0] == '-' || buf[0] == '+') && wl > 1)))
      goto bad;
    double v = strtod(buf, &end);
    if (end == buf || !isfinite(v) || fabs(v) > IV_MAX_UNITS)
      goto bad;
    iv_unit_t u;
    if (*end)
      u = iv_unit(end, strlen(end));
    else {
      size_t j = i;
      while (j < n && isspace((unsigned char)s[j]))
        j++;
      size_t e2 = j;
      while (e2 < n && !isspace((unsigned char)s[e2]))
        e2++;
      u = e2 > j ? iv_unit(s + j, e2 - j) : IV_NONE;
      if (u != IV_NONE)
        i = e2;
      else
        u = dflt;
    }
    if (u == IV_NONE)
      goto bad;
    if (!iv_add(iv, v, u))
      return bd_error(b, SQLSTATE_DATETIME_RANGE, x->ex_pos, "interval out of range");
    any = true;
  }
  if (!any)
    goto bad;
  if (ago) {
    iv->iv_months = -iv->iv_months;
    iv->iv_days = -iv->iv_days;
    iv->iv_usec = -iv->iv_usec;
  }
  return CZ_OK;
bad:
  return bd_error(b, SQLSTATE_BAD_DATETIME, x->ex_pos,
                  "invalid input syntax for type interval: \"%s\"", x->ex_text);
}

static int64_t iv_floor_div(int64_t a, int64_t d)
{
  int64_t q = a / d;
  return (a % d != 0 && (a < 0) != (d < 0)) ? q - 1 : q;
}

/* ts (µs since 2000-01-01) plus sign * iv. */
static int iv_apply(bd_t *b, int pos, int64_t ts, const iv_t *iv, int sign, int64_t *out)
{
  int64_t days = iv_floor_div(ts, IV_USEC_PER_DAY);
  int64_t tod = ts - days * IV_USEC_PER_DAY;
  int64_t y;
  int m, d;
  ty_civil_from_days(days, &y, &m, &d);
  int64_t total = y * 12 + (m - 1) + sign * iv->iv_months;
  y = iv_floor_div(total, 12);
  m = (int)(total - y * 12) + 1;
  if (y < IV_MIN_YEAR - 1 || y > IV_MAX_YEAR + 1)
    goto range;
  int mdays = (int)(ty_days_from_civil(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1) -
                    ty_days_from_civil(y, m, 1));
  if (d > mdays)
    d = mdays;
  days = ty_days_from_civil(y, m, d) + sign * iv->iv_days;
  /* bounded: |days| < 2^32 and |usec| < 2^63 / 2 by IV_MAX_UNITS */
  double r = (double)days * (double)IV_USEC_PER_DAY + (double)tod + (double)(sign * iv->iv_usec);
  if (r < -9.2e18 || r > 9.2e18)
    goto range;
  int64_t res = days * IV_USEC_PER_DAY + tod + sign * iv->iv_usec;
  if (!ty_ts_in_range(res))
    goto range;
  *out = res;
  return CZ_OK;
range:
  return bd_error(b, SQLSTATE_DATETIME_RANGE, pos, "timestamp out of range");
}

bool bd_is_interval(const sql_expr_t *x)
{
  return x && x->ex_kind == SQL_E_LITERAL && x->ex_lit == SQL_LIT_INTERVAL;
}

int bd_interval_alone(bd_t *b, const sql_expr_t *x)
{
  return bd_error(b, SQLSTATE_NOT_SUPPORTED, x->ex_pos,
                  "type interval is not supported here: only date or timestamp ± INTERVAL "
                  "'…' is");
}

int bd_interval_arith(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  bool iv_left = bd_is_interval(x->ex_left);
  const sql_expr_t *ivx = iv_left ? x->ex_left : x->ex_right;
  const sql_expr_t *dx = iv_left ? x->ex_right : x->ex_left;
  if (bd_is_interval(dx) || (iv_left && x->ex_op != SQL_OP_ADD))
    return bd_interval_alone(b, iv_left ? x->ex_left : x->ex_right);
  iv_t iv;
  if (iv_parse(b, ivx, &iv) != CZ_OK)
    return CZ_ERR;
  xnode_t *d;
  if (bd_expr(b, sc, dx, &d) != CZ_OK)
    return CZ_ERR;
  ty_t ts = ty_plain(TY_TIMESTAMP);
  if (d->x_type.t_id == TY_UNKNOWN && !(d = bd_coerce(b, d, ts)))
    return CZ_ERR;
  ty_id_t id = d->x_type.t_id;
  if (id != TY_DATE && id != TY_TIMESTAMP)
    return bd_error(b, "42883", x->ex_pos, "operator does not exist: %s %s interval",
                    ty_name(b->b_a, d->x_type), x->ex_op == SQL_OP_ADD ? "+" : "-");
  int sign = x->ex_op == SQL_OP_SUB ? -1 : 1;
  if (d->x_kind == X_CONST) {
    if (d->x_const.d_null) {
      *out = bd_const_null(b, ts);
      return CZ_OK;
    }
    int64_t v = d->x_const.d_i64;
    if (id == TY_DATE && !ty_date_to_ts(d->x_const.d_i64, &v))
      return bd_error(b, SQLSTATE_DATETIME_RANGE, x->ex_pos, "date out of range for timestamp");
    xnode_t *n = bd_node(b, X_CONST, ts, x->ex_pos);
    if (v == INT64_MAX || v == INT64_MIN)
      n->x_const.d_i64 = v; /* infinity ± an interval is infinity */
    else if (iv_apply(b, x->ex_pos, v, &iv, sign, &n->x_const.d_i64) != CZ_OK)
      return CZ_ERR;
    *out = n;
    return CZ_OK;
  }
  if (id == TY_DATE && iv.iv_months == 0 && iv.iv_usec == 0 && iv.iv_days >= INT32_MIN &&
      iv.iv_days <= INT32_MAX) {
    /* whole days: date ± integer is a date, then the timestamp at midnight */
    xnode_t *k = bd_const_i64(b, TY_INT4, iv.iv_days), *sum;
    if (bd_op(b, sign > 0 ? XOP_ADD : XOP_SUB, d, k, x->ex_pos, &sum) != CZ_OK)
      return CZ_ERR;
    return (*out = bd_cast(b, sum, ts, x->ex_pos)) ? CZ_OK : CZ_ERR;
  }
  return bd_error(b, SQLSTATE_NOT_SUPPORTED, ivx->ex_pos,
                  "type interval is not supported: only constant dates and timestamps, or "
                  "dates ± whole days, take an INTERVAL");
}
