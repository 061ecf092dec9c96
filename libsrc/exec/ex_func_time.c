/* ex_func_time — date and time functions: now(), current_timestamp,
 * localtimestamp, current_date, current_time, localtime, date_part,
 * extract, date_trunc, make_date, make_timestamp, make_timestamptz,
 * timezone() (AT TIME ZONE).
 *
 * Design notes: PostgreSQL 14+ semantics: extract returns numeric (seconds
 * with 6 decimals, epoch with 6 for timestamps), date_part returns double
 * precision. now() is the statement's start (xc_stmt_ts), a timestamptz;
 * the local forms (localtimestamp, current_date, localtime) and the
 * timestamptz fields read the session's zone (ty_tz_current). Infinite inputs give
 * NULL where PostgreSQL would give an infinite numeric, which NUMERIC here
 * cannot hold.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "exec/ex_int.h"

#define XF_USECS_PER_DAY INT64_C(86400000000)
#define XF_EPOCH_SHIFT INT64_C(946684800) /* seconds from 1970 to 2000 */

int64_t xf_now(const xctx_t *c)
{
  if (c->xc_stmt_ts)
    return c->xc_stmt_ts;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ((int64_t)ts.tv_sec - XF_EPOCH_SHIFT) * 1000000 + ts.tv_nsec / 1000;
}

static int64_t xf_floor_div(int64_t a, int64_t b)
{
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* now(), current_timestamp: the statement's start, a timestamptz; with
 * an argument rounded to that many fraction digits (current_timestamp(p)) */
static int xf_now_fn(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)e;
  out->d_i64 = xf_now(c);
  if (x->x_nargs == 1 && a[0].d_i64 >= 0 && a[0].d_i64 < 6)
    out->d_i64 = ty_ts_round(out->d_i64, (int)a[0].d_i64);
  return CZ_OK;
}

/* The statement's start on the session's local clock (a timestamp). */
static int xf_local_now(xctx_t *c, int64_t *local, err_t *e)
{
  return ty_tstz_to_local(xf_now(c), ty_tz_current(), local, e);
}

static int xf_localtimestamp(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  if (xf_local_now(c, &out->d_i64, e) != CZ_OK)
    return CZ_ERR;
  if (x->x_nargs == 1 && a[0].d_i64 >= 0 && a[0].d_i64 < 6)
    out->d_i64 = ty_ts_round(out->d_i64, (int)a[0].d_i64);
  return CZ_OK;
}

/* localtime (time) and current_time (timetz: with the offset in force) */
static int xf_localtime(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  int64_t local;
  if (xf_local_now(c, &local, e) != CZ_OK)
    return CZ_ERR;
  int64_t tod = local - xf_floor_div(local, XF_USECS_PER_DAY) * XF_USECS_PER_DAY;
  if (x->x_nargs == 1 && a[0].d_i64 >= 0 && a[0].d_i64 < 6)
    tod = ty_time_add_us(ty_ts_round(tod, (int)a[0].d_i64), 0);
  if (x->x_type.t_id == TY_TIMETZ)
    out->d_i64 = ty_timetz_pack(tod, (int32_t)((xf_now(c) - local) / 1000000));
  else
    out->d_i64 = tod;
  return CZ_OK;
}

static int xf_current_date(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  (void)a;
  int64_t local;
  if (xf_local_now(c, &local, e) != CZ_OK)
    return CZ_ERR;
  out->d_i64 = xf_floor_div(local, XF_USECS_PER_DAY);
  return CZ_OK;
}

/* The broken-down parts of a TIMESTAMP. */
typedef struct xf_tm_s {
  int64_t tm_year;  /* astronomical */
  int tm_mon, tm_day, tm_hour, tm_min, tm_sec, tm_usec;
  int64_t tm_days;  /* days since 2000-01-01 */
} xf_tm_t;

static void xf_breakdown(int64_t us, xf_tm_t *tm)
{
  tm->tm_days = xf_floor_div(us, XF_USECS_PER_DAY);
  int64_t tod = us - tm->tm_days * XF_USECS_PER_DAY;
  ty_civil_from_days(tm->tm_days, &tm->tm_year, &tm->tm_mon, &tm->tm_day);
  tm->tm_hour = (int)(tod / INT64_C(3600000000));
  tm->tm_min = (int)(tod / 60000000 % 60);
  tm->tm_sec = (int)(tod / 1000000 % 60);
  tm->tm_usec = (int)(tod % 1000000);
}

typedef enum xf_field_e {
  XFF_MICROSECONDS, XFF_MILLISECONDS, XFF_SECOND, XFF_MINUTE, XFF_HOUR, XFF_DAY, XFF_WEEK,
  XFF_MONTH, XFF_QUARTER, XFF_YEAR, XFF_DECADE, XFF_CENTURY, XFF_MILLENNIUM, XFF_DOW,
  XFF_ISODOW, XFF_DOY, XFF_ISOYEAR, XFF_EPOCH, XFF_JULIAN, XFF_TZ, XFF_TZ_HOUR, XFF_TZ_MINUTE,
  XFF_BAD
} xf_field_t;

static const struct {
  const char *f_name;
  xf_field_t f_field;
} xf_fields[] = {
  {"microsecond", XFF_MICROSECONDS}, {"microseconds", XFF_MICROSECONDS}, {"us", XFF_MICROSECONDS},
  {"millisecond", XFF_MILLISECONDS}, {"milliseconds", XFF_MILLISECONDS}, {"ms", XFF_MILLISECONDS},
  {"second", XFF_SECOND}, {"seconds", XFF_SECOND}, {"sec", XFF_SECOND}, {"s", XFF_SECOND},
  {"minute", XFF_MINUTE}, {"minutes", XFF_MINUTE}, {"min", XFF_MINUTE}, {"m", XFF_MINUTE},
  {"hour", XFF_HOUR}, {"hours", XFF_HOUR}, {"h", XFF_HOUR},
  {"day", XFF_DAY}, {"days", XFF_DAY}, {"d", XFF_DAY},
  {"week", XFF_WEEK}, {"weeks", XFF_WEEK}, {"w", XFF_WEEK},
  {"month", XFF_MONTH}, {"months", XFF_MONTH}, {"mon", XFF_MONTH},
  {"quarter", XFF_QUARTER}, {"qtr", XFF_QUARTER},
  {"year", XFF_YEAR}, {"years", XFF_YEAR}, {"y", XFF_YEAR}, {"yr", XFF_YEAR},
  {"decade", XFF_DECADE}, {"decades", XFF_DECADE},
  {"century", XFF_CENTURY}, {"centuries", XFF_CENTURY},
  {"millennium", XFF_MILLENNIUM}, {"millennia", XFF_MILLENNIUM},
  {"dow", XFF_DOW}, {"isodow", XFF_ISODOW}, {"doy", XFF_DOY}, {"isoyear", XFF_ISOYEAR},
  {"epoch", XFF_EPOCH}, {"julian", XFF_JULIAN},
  {"timezone", XFF_TZ}, {"timezone_h", XFF_TZ_HOUR}, {"timezone_hour", XFF_TZ_HOUR},
  {"timezone_m", XFF_TZ_MINUTE}, {"timezone_minute", XFF_TZ_MINUTE},
};

static xf_field_t xf_field_of(str_t s)
{
  char buf[32];
  size_t n = 0;
  for (uint32_t i = 0; i < s.s_len && n < sizeof(buf) - 1; i++)
    if (s.s_ptr[i] != ' ')
      buf[n++] = (char)((s.s_ptr[i] >= 'A' && s.s_ptr[i] <= 'Z') ? s.s_ptr[i] + 32 : s.s_ptr[i]);
  buf[n] = '\0';
  for (size_t i = 0; i < CZ_ARRAY_LEN(xf_fields); i++)
    if (strcmp(xf_fields[i].f_name, buf) == 0)
      return xf_fields[i].f_field;
  return XFF_BAD;
}

static int xf_isodow(int64_t days)
{
  /* 2000-01-01 was a Saturday (ISO day 6). */
  int64_t r = (days + 5) % 7;
  if (r < 0)
    r += 7;
  return (int)r + 1;
}

static void xf_isoweek(int64_t days, int64_t *isoyear, int *week)
{
  int64_t thursday = days - (xf_isodow(days) - 4);
  int64_t y;
  int m, d;
  ty_civil_from_days(thursday, &y, &m, &d);
  int64_t jan1 = ty_days_from_civil(y, 1, 1);
  *isoyear = y;
  *week = (int)((thursday - jan1) / 7 + 1);
}

static int64_t xf_year_shown(int64_t y)
{
  return y <= 0 ? y - 1 : y; /* there is no year 0: 1 BC is -1 */
}

/* The parts of a DATE (days, midnight) or a TIMESTAMP (µs): a date is
 * broken down from its days, since past year 294276 it has no TIMESTAMP. */
static void xf_breakdown_value(int64_t v, bool stored_date, xf_tm_t *tm)
{
  if (!stored_date) {
    xf_breakdown(v, tm);
    return;
  }
  memset(tm, 0, sizeof(*tm));
  tm->tm_days = v;
  ty_civil_from_days(v, &tm->tm_year, &tm->tm_mon, &tm->tm_day);
}

/* The field's value as a scaled integer (value = v / 10^scale); is_date
 * selects the DATE field rules. 128 bits: the epoch in µs of the last
 * timestamps passes INT64_MAX. */
static int xf_field_value(xf_field_t f, const xf_tm_t *tmp, bool is_date, __int128 *v,
                          int *scale, str_t name, err_t *e)
{
  xf_tm_t tm = *tmp;
  *scale = 0;
  int64_t y = xf_year_shown(tm.tm_year);
  switch (f) {
  case XFF_MICROSECONDS:
  case XFF_MILLISECONDS:
  case XFF_SECOND:
  case XFF_MINUTE:
  case XFF_HOUR:
    if (is_date)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "unit \"%.*s\" not supported for type date", (int)name.s_len,
                     name.s_ptr);
    if (f == XFF_MICROSECONDS) {
      *v = (int64_t)tm.tm_sec * 1000000 + tm.tm_usec;
    } else if (f == XFF_MILLISECONDS) {
      *v = (int64_t)tm.tm_sec * 1000000 + tm.tm_usec;
      *scale = 3;
    } else if (f == XFF_SECOND) {
      *v = (int64_t)tm.tm_sec * 1000000 + tm.tm_usec;
      *scale = 6;
    } else {
      *v = f == XFF_MINUTE ? tm.tm_min : tm.tm_hour;
    }
    return CZ_OK;
  case XFF_DAY: *v = tm.tm_day; return CZ_OK;
  case XFF_MONTH: *v = tm.tm_mon; return CZ_OK;
  case XFF_QUARTER: *v = (tm.tm_mon - 1) / 3 + 1; return CZ_OK;
  case XFF_YEAR: *v = y; return CZ_OK;
  /* PostgreSQL's formulas on astronomical years (1 BC is 0); there is no
   * century or millennium 0. */
  case XFF_DECADE:
    *v = tm.tm_year >= 0 ? tm.tm_year / 10 : -((8 - (tm.tm_year - 1)) / 10);
    return CZ_OK;
  case XFF_CENTURY:
    *v = tm.tm_year > 0 ? (tm.tm_year + 99) / 100 : -((99 - (tm.tm_year - 1)) / 100);
    return CZ_OK;
  case XFF_MILLENNIUM:
    *v = tm.tm_year > 0 ? (tm.tm_year + 999) / 1000 : -((999 - (tm.tm_year - 1)) / 1000);
    return CZ_OK;
  case XFF_DOW: *v = xf_isodow(tm.tm_days) % 7; return CZ_OK;
  case XFF_ISODOW: *v = xf_isodow(tm.tm_days); return CZ_OK;
  case XFF_DOY: *v = tm.tm_days - ty_days_from_civil(tm.tm_year, 1, 1) + 1; return CZ_OK;
  case XFF_WEEK:
  case XFF_ISOYEAR: {
    int64_t iy;
    int w;
    xf_isoweek(tm.tm_days, &iy, &w);
    *v = f == XFF_WEEK ? w : xf_year_shown(iy);
    return CZ_OK;
  }
  case XFF_EPOCH:
    *v = (__int128)tm.tm_days * 86400 + XF_EPOCH_SHIFT;
    if (!is_date) {
      int64_t tod_s = ((int64_t)tm.tm_hour * 60 + tm.tm_min) * 60 + tm.tm_sec;
      *v = (*v + tod_s) * 1000000 + tm.tm_usec;
      *scale = 6;
    }
    return CZ_OK;
  case XFF_JULIAN:
    *v = tm.tm_days + 2451545;
    return CZ_OK;
  case XFF_TZ:
  case XFF_TZ_HOUR:
  case XFF_TZ_MINUTE:
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "unit \"%.*s\" not supported for type %s",
                   (int)name.s_len, name.s_ptr, is_date ? "date" : "timestamp without time zone");
  case XFF_BAD:
    break;
  }
  return err_set(e, SQLSTATE_INVALID_PARAMETER, "unit \"%.*s\" not recognized for type %s",
                 (int)name.s_len, name.s_ptr, is_date ? "date" : "timestamp");
}

static bool xf_infinite(int64_t v, bool is_date)
{
  return is_date ? (v >= INT32_MAX || v <= INT32_MIN) : (v == INT64_MAX || v == INT64_MIN);
}

/* extract(field from value); is_date says how the value is stored,
 * date_rules whether the DATE field rules (no hour etc.) apply. */
static int xf_extract_as(xctx_t *c, const datum_t *a, bool date_rules, bool is_date,
                         datum_t *out, err_t *e)
{
  (void)c;
  if (xf_infinite(a[1].d_i64, is_date)) {
    out->d_null = true;
    return CZ_OK;
  }
  xf_tm_t tm;
  xf_breakdown_value(a[1].d_i64, is_date, &tm);
  __int128 v = 0;
  int scale = 0;
  if (xf_field_value(xf_field_of(a[0].d_str), &tm, date_rules, &v, &scale, a[0].d_str, e) != CZ_OK)
    return CZ_ERR;
  out->d_num.n_val = v;
  out->d_num.n_scale = (int16_t)scale;
  return CZ_OK;
}

static int xf_extract(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  bool is_date = x->x_args[1]->x_type.t_id == TY_DATE;
  return xf_extract_as(c, a, is_date, is_date, out, e);
}

static int xf_date_part_as(xctx_t *c, bool is_date, const datum_t *a, datum_t *out, err_t *e);

/* date_part is double precision: PostgreSQL computes the fractional fields
 * in floating point (seconds + µs / 1e6, epoch µs / 1e6), so the same
 * arithmetic is used here for identical last digits; integral fields are
 * exact either way. */
static int xf_date_part(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xf_date_part_as(c, x->x_args[1]->x_type.t_id == TY_DATE, a, out, e);
}

static int xf_date_part_ts(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return xf_date_part_as(c, false, a, out, e);
}

static int xf_date_part_as(xctx_t *c, bool is_date, const datum_t *a, datum_t *out, err_t *e)
{
  if (!is_date && !xf_infinite(a[1].d_i64, is_date)) {
    int64_t us = a[1].d_i64;
    xf_tm_t tm;
    xf_breakdown(us, &tm);
    switch (xf_field_of(a[0].d_str)) {
    case XFF_MICROSECONDS:
      out->d_f64 = tm.tm_sec * 1000000.0 + tm.tm_usec;
      return CZ_OK;
    case XFF_MILLISECONDS:
      out->d_f64 = tm.tm_sec * 1000.0 + tm.tm_usec / 1000.0;
      return CZ_OK;
    case XFF_SECOND:
      out->d_f64 = tm.tm_sec + tm.tm_usec / 1000000.0;
      return CZ_OK;
    case XFF_EPOCH:
      /* as PostgreSQL: in double, so the last timestamps do not wrap */
      out->d_f64 = ((double)us + (double)XF_EPOCH_SHIFT * 1000000.0) / 1000000.0;
      return CZ_OK;
    default:
      break;
    }
  }
  /* date_part on a date is date_part on the timestamp at its midnight. */
  datum_t n;
  memset(&n, 0, sizeof(n));
  if (xf_extract_as(c, a, false, is_date, &n, e) != CZ_OK)
    return CZ_ERR;
  if (n.d_null) {
    out->d_null = true;
    return CZ_OK;
  }
  out->d_f64 = num_to_f64(&n.d_num);
  return CZ_OK;
}

static int xf_date_trunc(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  int64_t us = a[1].d_i64;
  if (xf_infinite(us, false)) {
    out->d_i64 = us;
    return CZ_OK;
  }
  xf_tm_t tm;
  xf_breakdown(us, &tm);
  int64_t day0 = tm.tm_days * XF_USECS_PER_DAY;
  int64_t y = tm.tm_year;
  switch (xf_field_of(a[0].d_str)) {
  case XFF_MICROSECONDS: out->d_i64 = us; break;
  case XFF_MILLISECONDS: out->d_i64 = xf_floor_div(us, 1000) * 1000; break;
  case XFF_SECOND: out->d_i64 = us - tm.tm_usec; break;
  case XFF_MINUTE: out->d_i64 = day0 + ((int64_t)tm.tm_hour * 60 + tm.tm_min) * 60000000; break;
  case XFF_HOUR: out->d_i64 = day0 + (int64_t)tm.tm_hour * 3600000000; break;
  case XFF_DAY: out->d_i64 = day0; break;
  case XFF_WEEK: out->d_i64 = (tm.tm_days - (xf_isodow(tm.tm_days) - 1)) * XF_USECS_PER_DAY; break;
  case XFF_MONTH: out->d_i64 = ty_days_from_civil(y, tm.tm_mon, 1) * XF_USECS_PER_DAY; break;
  case XFF_QUARTER:
    out->d_i64 = ty_days_from_civil(y, (tm.tm_mon - 1) / 3 * 3 + 1, 1) * XF_USECS_PER_DAY;
    break;
  case XFF_YEAR: out->d_i64 = ty_days_from_civil(y, 1, 1) * XF_USECS_PER_DAY; break;
  case XFF_DECADE:
    out->d_i64 = ty_days_from_civil(xf_floor_div(y, 10) * 10, 1, 1) * XF_USECS_PER_DAY;
    break;
  case XFF_CENTURY:
    out->d_i64 = ty_days_from_civil(xf_floor_div(y - 1, 100) * 100 + 1, 1, 1) * XF_USECS_PER_DAY;
    break;
  case XFF_MILLENNIUM:
    out->d_i64 = ty_days_from_civil(xf_floor_div(y - 1, 1000) * 1000 + 1, 1, 1) * XF_USECS_PER_DAY;
    break;
  default:
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "unit \"%.*s\" not recognized for type timestamp",
                   (int)a[0].d_str.s_len, a[0].d_str.s_ptr);
  }
  return CZ_OK;
}

static int xf_make_date(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  int64_t y = a[0].d_i64;
  if (y == 0 || a[1].d_i64 < 1 || a[1].d_i64 > 12 || a[2].d_i64 < 1 || a[2].d_i64 > 31)
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "date field value out of range: %lld-%02lld-%02lld",
                   (long long)y, (long long)a[1].d_i64, (long long)a[2].d_i64);
  if (y < 0)
    y++; /* -1 is 1 BC, astronomical year 0 */
  if (!ty_valid_ymd(y, (int)a[1].d_i64, (int)a[2].d_i64))
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "date field value out of range: %lld-%02lld-%02lld",
                   (long long)a[0].d_i64, (long long)a[1].d_i64, (long long)a[2].d_i64);
  out->d_i64 = ty_days_from_civil(y, (int)a[1].d_i64, (int)a[2].d_i64);
  return CZ_OK;
}

static int xf_make_timestamp(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                             err_t *e)
{
  datum_t d;
  memset(&d, 0, sizeof(d));
  if (xf_make_date(c, x, a, &d, e) != CZ_OK)
    return CZ_ERR;
  int64_t h = a[3].d_i64, mi = a[4].d_i64;
  double s = a[5].d_f64;
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || !(s >= 0 && s < 61))
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "time field value out of range");
  int64_t usec = (int64_t)(s * 1000000.0 + 0.5);
  out->d_i64 = d.d_i64 * XF_USECS_PER_DAY + (h * 3600 + mi * 60) * 1000000 + usec;
  return CZ_OK;
}

/* ---- timestamptz, time, timetz ----------------------------------------------- */

/* A zone as timezone() and date_trunc() take it: a fixed abbreviation
 * first, then a zone of the database or a POSIX string (PostgreSQL's
 * timestamptz_zone); fixed offsets come back in *east with *z NULL. */
static int xf_zone_arg(str_t name, const ty_tz_t **z, int32_t *east, bool *fixed, err_t *e)
{
  char buf[TY_TZ_NAME_MAX];
  if (name.s_len == 0 || name.s_len >= sizeof(buf))
    goto bad;
  memcpy(buf, name.s_ptr, name.s_len);
  buf[name.s_len] = '\0';
  *fixed = ty_tz_abbrev(buf, name.s_len, east);
  if (*fixed)
    return CZ_OK;
  if ((*z = ty_tz_find(buf)) != NULL)
    return CZ_OK;
bad:
  return err_set(e, SQLSTATE_INVALID_PARAMETER, "time zone \"%.*s\" not recognized",
                 (int)CZ_MIN(name.s_len, 200), name.s_ptr);
}

/* An INTERVAL zone: east of UTC, no months or days (timestamp_izone). */
static int xf_izone_arg(const xnode_t *x, const ty_iv_t *iv, int32_t *east, err_t *e)
{
  if (iv->iv_months != 0 || iv->iv_days != 0) {
    char buf[TY_IV_TEXT_MAX];
    int n = ty_iv_format(iv, buf);
    (void)x;
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "interval time zone \"%.*s\" must not include months or days", n, buf);
  }
  *east = (int32_t)(iv->iv_us / 1000000);
  return CZ_OK;
}

/* timezone(zone, value) = value AT TIME ZONE zone: a timestamp read as
 * local time there gives the instant; an instant gives its local time
 * there; a timetz moves to the zone's offset (a named zone's offset now). */
static int xf_timezone(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  ty_id_t zt = x->x_args[0]->x_type.t_id, vt = x->x_args[1]->x_type.t_id;
  const ty_tz_t *z = NULL;
  int32_t east = 0;
  bool fixed = true;
  if (zt == TY_INTERVAL) {
    if (xf_izone_arg(x, &a[0].d_iv, &east, e) != CZ_OK)
      return CZ_ERR;
  } else if (xf_zone_arg(a[0].d_str, &z, &east, &fixed, e) != CZ_OK) {
    return CZ_ERR;
  }
  int64_t v = a[1].d_i64;
  if (vt == TY_TIMETZ) {
    int64_t tm;
    int32_t zone;
    ty_timetz_unpack(v, &tm, &zone);
    if (!fixed)
      east = ty_tz_offset_us(z, xf_now(c));
    /* the same instant of the day: UTC time = tm + zone */
    out->d_i64 = ty_timetz_pack(ty_time_add_us(tm, ((int64_t)zone + east) * 1000000), -east);
    return CZ_OK;
  }
  if (v == INT64_MAX || v == INT64_MIN) {
    out->d_i64 = v;
    return CZ_OK;
  }
  if (vt == TY_TIMESTAMP) { /* local there -> instant */
    if (!fixed)
      return ty_local_to_tstz(v, z, &out->d_i64, e);
    out->d_i64 = v - (int64_t)east * 1000000;
  } else { /* instant -> local there */
    if (!fixed)
      return ty_tstz_to_local(v, z, &out->d_i64, e);
    out->d_i64 = v + (int64_t)east * 1000000;
  }
  if (!ty_ts_in_range(out->d_i64))
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "timestamp out of range");
  return CZ_OK;
}

/* extract/date_part on a timestamptz: epoch is the instant's, the zone
 * fields the session zone's offset, the rest the local time's. */
static int xf_tstz_part(xctx_t *c, const xnode_t *x, const datum_t *a, bool numeric, datum_t *out,
                        err_t *e)
{
  int64_t v = a[1].d_i64;
  xf_field_t f = xf_field_of(a[0].d_str);
  if (v == INT64_MAX || v == INT64_MIN) {
    out->d_null = true;
    return CZ_OK;
  }
  int32_t east = ty_tz_offset_us(ty_tz_current(), v);
  __int128 r;
  int scale = 0;
  if (f == XFF_EPOCH) {
    if (!numeric) {
      out->d_f64 = ((double)v + (double)XF_EPOCH_SHIFT * 1000000.0) / 1000000.0;
      return CZ_OK;
    }
    r = (__int128)v + (__int128)XF_EPOCH_SHIFT * 1000000;
    scale = 6;
  } else if (f == XFF_TZ || f == XFF_TZ_HOUR || f == XFF_TZ_MINUTE) {
    r = f == XFF_TZ ? east : f == XFF_TZ_HOUR ? east / 3600 : east / 60 % 60;
  } else {
    datum_t b[2] = {a[0], a[1]};
    if (ty_tstz_to_local(v, ty_tz_current(), &b[1].d_i64, e) != CZ_OK)
      return CZ_ERR;
    if (numeric)
      return xf_extract_as(c, b, false, false, out, e);
    xnode_t fake = *x;
    return xf_date_part_ts(c, &fake, b, out, e);
  }
  if (numeric) {
    out->d_num.n_val = r;
    out->d_num.n_scale = (int16_t)scale;
  } else {
    out->d_f64 = (double)r;
  }
  return CZ_OK;
}

static int xf_extract_tstz(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xf_tstz_part(c, x, a, true, out, e);
}

static int xf_date_part_tstz(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xf_tstz_part(c, x, a, false, out, e);
}

/* extract/date_part on time and timetz (time_part_common, timetz_part). */
static int xf_time_part(xctx_t *c, const xnode_t *x, const datum_t *a, bool numeric, datum_t *out,
                        err_t *e)
{
  (void)c;
  bool tz = x->x_args[1]->x_type.t_id == TY_TIMETZ;
  int64_t t = a[1].d_i64;
  int32_t zone = 0;
  if (tz)
    ty_timetz_unpack(a[1].d_i64, &t, &zone);
  int64_t sec = t / 1000000 % 60, us = t % 1000000;
  __int128 r;
  int scale = 0;
  double fr;
  switch (xf_field_of(a[0].d_str)) {
  case XFF_MICROSECONDS: r = sec * 1000000 + us; fr = (double)r; break;
  case XFF_MILLISECONDS: r = sec * 1000000 + us; scale = 3; fr = sec * 1000.0 + us / 1000.0; break;
  case XFF_SECOND: r = sec * 1000000 + us; scale = 6; fr = sec + us / 1000000.0; break;
  case XFF_MINUTE: r = t / 60000000 % 60; fr = (double)r; break;
  case XFF_HOUR: r = t / INT64_C(3600000000); fr = (double)r; break;
  case XFF_EPOCH:
    r = t + (int64_t)zone * 1000000;
    scale = 6;
    fr = t / 1000000.0 + zone;
    break;
  case XFF_TZ:
  case XFF_TZ_HOUR:
  case XFF_TZ_MINUTE:
    if (tz) {
      xf_field_t f = xf_field_of(a[0].d_str);
      r = f == XFF_TZ ? -zone : f == XFF_TZ_HOUR ? -zone / 3600 : -zone / 60 % 60;
      fr = (double)r;
      break;
    }
    /* fall through */
  default:
    if (xf_field_of(a[0].d_str) == XFF_BAD)
      return err_set(e, SQLSTATE_INVALID_PARAMETER, "unit \"%.*s\" not recognized for type %s",
                     (int)a[0].d_str.s_len, a[0].d_str.s_ptr,
                     tz ? "time with time zone" : "time without time zone");
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "unit \"%.*s\" not supported for type %s",
                   (int)a[0].d_str.s_len, a[0].d_str.s_ptr,
                   tz ? "time with time zone" : "time without time zone");
  }
  if (numeric) {
    out->d_num.n_val = r;
    out->d_num.n_scale = (int16_t)scale;
  } else {
    out->d_f64 = fr;
  }
  return CZ_OK;
}

static int xf_extract_time(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xf_time_part(c, x, a, true, out, e);
}

static int xf_date_part_time(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xf_time_part(c, x, a, false, out, e);
}

/* date_trunc(unit, timestamptz[, zone]): truncated on the zone's local
 * clock; from a day up the result takes that day's offset again, below
 * it keeps the value's (timestamptz_trunc_internal). */
static int xf_date_trunc_tstz(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  const ty_tz_t *z = ty_tz_current();
  int32_t east = 0;
  bool fixed = false;
  if (x->x_nargs == 3 && xf_zone_arg(a[2].d_str, &z, &east, &fixed, e) != CZ_OK)
    return CZ_ERR;
  int64_t v = a[1].d_i64;
  if (v == INT64_MAX || v == INT64_MIN) {
    out->d_i64 = v;
    return CZ_OK;
  }
  if (!fixed)
    east = ty_tz_offset_us(z, v);
  datum_t b[2] = {a[0], a[1]};
  b[1].d_i64 = v + (int64_t)east * 1000000;
  xf_field_t f = xf_field_of(a[0].d_str);
  if (xf_date_trunc(c, x, b, out, e) != CZ_OK)
    return CZ_ERR;
  bool redo = !fixed && f != XFF_MICROSECONDS && f != XFF_MILLISECONDS && f != XFF_SECOND &&
              f != XFF_MINUTE && f != XFF_HOUR;
  if (redo)
    return ty_local_to_tstz(out->d_i64, z, &out->d_i64, e);
  out->d_i64 -= (int64_t)east * 1000000;
  return CZ_OK;
}

/* make_timestamptz(y, m, d, h, mi, s[, zone]): local time in the zone
 * (the session's by default). */
static int xf_make_timestamptz(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                               err_t *e)
{
  datum_t local;
  memset(&local, 0, sizeof(local));
  if (xf_make_timestamp(c, x, a, &local, e) != CZ_OK)
    return CZ_ERR;
  const ty_tz_t *z = ty_tz_current();
  int32_t east = 0;
  bool fixed = false;
  if (x->x_nargs == 7) {
    /* parse_sane_timezone: a numeric offset first, in ISO signs (+05 is
     * east), then the names timezone() takes */
    str_t zs = a[6].d_str;
    if (zs.s_len > 0 && zs.s_ptr[0] >= '0' && zs.s_ptr[0] <= '9')
      return err_set(e, SQLSTATE_INVALID_PARAMETER,
                     "invalid input syntax for type numeric time zone: \"%.*s\"",
                     (int)CZ_MIN(zs.s_len, 200), zs.s_ptr);
    if (zs.s_len > 1 && (zs.s_ptr[0] == '+' || zs.s_ptr[0] == '-')) {
      int v[3] = {0, 0, 0}, k = 0, nd = 0;
      bool ok = true;
      for (uint32_t i = 1; i < zs.s_len && ok; i++) {
        char ch = zs.s_ptr[i];
        if (ch >= '0' && ch <= '9' && nd < 2) {
          v[k] = v[k] * 10 + (ch - '0');
          nd++;
        } else if (ch >= '0' && ch <= '9' && k < 2 && nd == 2 && zs.s_len - 1 == 4) {
          k++, nd = 1, v[k] = ch - '0'; /* +hhmm */
        } else if (ch == ':' && k < 2 && nd > 0) {
          k++, nd = 0;
        } else {
          ok = false;
        }
      }
      if (!ok || v[1] > 59 || v[2] > 59)
        return err_set(e, SQLSTATE_INVALID_DATETIME_FORMAT,
                       "invalid input syntax for type numeric time zone: \"%.*s\"",
                       (int)CZ_MIN(zs.s_len, 200), zs.s_ptr);
      if (v[0] > 15)
        return err_set(e, SQLSTATE_INVALID_TZ_DISPLACEMENT, "numeric time zone \"%.*s\" out of range",
                       (int)CZ_MIN(zs.s_len, 200), zs.s_ptr);
      east = (zs.s_ptr[0] == '-' ? -1 : 1) * (v[0] * 3600 + v[1] * 60 + v[2]);
      fixed = true;
    } else if (xf_zone_arg(zs, &z, &east, &fixed, e) != CZ_OK) {
      return CZ_ERR;
    }
  }
  if (!fixed)
    return ty_local_to_tstz(local.d_i64, z, &out->d_i64, e);
  out->d_i64 = local.d_i64 - (int64_t)east * 1000000;
  if (!ty_ts_in_range(out->d_i64))
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "timestamp out of range");
  return CZ_OK;
}

#define TS TY_TIMESTAMP
#define TZ TY_TIMESTAMPTZ
#define S XF_STRICT
/* now() and its kin: the statement's time (xc_stmt_ts), one value per execution */
#define V (XF_VOLATILE | XF_STABLE)

const xfunc_def_t xfunc_time_defs[] = {
  {.fd_name = "now", .fd_nargs = 0, .fd_result = TZ, .fd_flags = V, .fd_row = xf_now_fn},
  {.fd_name = "current_timestamp", .fd_nargs = 0, .fd_result = TZ, .fd_flags = V, .fd_row = xf_now_fn},
  {.fd_name = "current_timestamp", .fd_nargs = 1, .fd_args = {TY_INT4}, .fd_result = TZ, .fd_flags = V, .fd_row = xf_now_fn},
  {.fd_name = "localtimestamp", .fd_nargs = 0, .fd_result = TS, .fd_flags = V, .fd_row = xf_localtimestamp},
  {.fd_name = "localtimestamp", .fd_nargs = 1, .fd_args = {TY_INT4}, .fd_result = TS, .fd_flags = V, .fd_row = xf_localtimestamp},
  {.fd_name = "current_time", .fd_nargs = 0, .fd_result = TY_TIMETZ, .fd_flags = V, .fd_row = xf_localtime},
  {.fd_name = "current_time", .fd_nargs = 1, .fd_args = {TY_INT4}, .fd_result = TY_TIMETZ, .fd_flags = V, .fd_row = xf_localtime},
  {.fd_name = "localtime", .fd_nargs = 0, .fd_result = TY_TIME, .fd_flags = V, .fd_row = xf_localtime},
  {.fd_name = "localtime", .fd_nargs = 1, .fd_args = {TY_INT4}, .fd_result = TY_TIME, .fd_flags = V, .fd_row = xf_localtime},
  {.fd_name = "statement_timestamp", .fd_nargs = 0, .fd_result = TZ, .fd_flags = V, .fd_row = xf_now_fn},
  {.fd_name = "transaction_timestamp", .fd_nargs = 0, .fd_result = TZ, .fd_flags = V, .fd_row = xf_now_fn},
  {.fd_name = "timezone", .fd_nargs = 2, .fd_args = {TY_TEXT, TZ}, .fd_result = TS, .fd_flags = S, .fd_row = xf_timezone},
  {.fd_name = "timezone", .fd_nargs = 2, .fd_args = {TY_TEXT, TS}, .fd_result = TZ, .fd_flags = S, .fd_row = xf_timezone},
  {.fd_name = "timezone", .fd_nargs = 2, .fd_args = {TY_TEXT, TY_TIMETZ}, .fd_result = TY_TIMETZ, .fd_flags = S, .fd_row = xf_timezone},
  {.fd_name = "timezone", .fd_nargs = 2, .fd_args = {TY_INTERVAL, TZ}, .fd_result = TS, .fd_flags = S, .fd_row = xf_timezone},
  {.fd_name = "timezone", .fd_nargs = 2, .fd_args = {TY_INTERVAL, TS}, .fd_result = TZ, .fd_flags = S, .fd_row = xf_timezone},
  {.fd_name = "timezone", .fd_nargs = 2, .fd_args = {TY_INTERVAL, TY_TIMETZ}, .fd_result = TY_TIMETZ, .fd_flags = S, .fd_row = xf_timezone},
  {.fd_name = "date_part", .fd_nargs = 2, .fd_args = {TY_TEXT, TZ}, .fd_result = TY_FLOAT8, .fd_flags = S, .fd_row = xf_date_part_tstz},
  {.fd_name = "extract", .fd_nargs = 2, .fd_args = {TY_TEXT, TZ}, .fd_result = TY_NUMERIC, .fd_flags = S, .fd_row = xf_extract_tstz},
  {.fd_name = "date_part", .fd_nargs = 2, .fd_args = {TY_TEXT, TY_TIME}, .fd_result = TY_FLOAT8, .fd_flags = S, .fd_row = xf_date_part_time},
  {.fd_name = "extract", .fd_nargs = 2, .fd_args = {TY_TEXT, TY_TIME}, .fd_result = TY_NUMERIC, .fd_flags = S, .fd_row = xf_extract_time},
  {.fd_name = "date_part", .fd_nargs = 2, .fd_args = {TY_TEXT, TY_TIMETZ}, .fd_result = TY_FLOAT8, .fd_flags = S, .fd_row = xf_date_part_time},
  {.fd_name = "extract", .fd_nargs = 2, .fd_args = {TY_TEXT, TY_TIMETZ}, .fd_result = TY_NUMERIC, .fd_flags = S, .fd_row = xf_extract_time},
  {.fd_name = "date_trunc", .fd_nargs = 2, .fd_args = {TY_TEXT, TZ}, .fd_result = TZ, .fd_flags = S, .fd_row = xf_date_trunc_tstz},
  {.fd_name = "date_trunc", .fd_nargs = 3, .fd_args = {TY_TEXT, TZ, TY_TEXT}, .fd_result = TZ, .fd_flags = S, .fd_row = xf_date_trunc_tstz},
  {.fd_name = "make_timestamptz", .fd_nargs = 6, .fd_args = {TY_INT4, TY_INT4, TY_INT4, TY_INT4, TY_INT4, TY_FLOAT8}, .fd_result = TZ, .fd_flags = S, .fd_row = xf_make_timestamptz},
  {.fd_name = "make_timestamptz", .fd_nargs = 7, .fd_args = {TY_INT4, TY_INT4, TY_INT4, TY_INT4, TY_INT4, TY_FLOAT8, TY_TEXT}, .fd_result = TZ, .fd_flags = S, .fd_row = xf_make_timestamptz},
  {.fd_name = "current_date", .fd_nargs = 0, .fd_result = TY_DATE, .fd_flags = V, .fd_row = xf_current_date},
  {.fd_name = "date_part", .fd_nargs = 2, .fd_args = {TY_TEXT, TS}, .fd_result = TY_FLOAT8, .fd_flags = S, .fd_row = xf_date_part},
  {.fd_name = "date_part", .fd_nargs = 2, .fd_args = {TY_TEXT, TY_DATE}, .fd_result = TY_FLOAT8, .fd_flags = S, .fd_row = xf_date_part},
  {.fd_name = "extract", .fd_nargs = 2, .fd_args = {TY_TEXT, TS}, .fd_result = TY_NUMERIC, .fd_flags = S, .fd_row = xf_extract},
  {.fd_name = "extract", .fd_nargs = 2, .fd_args = {TY_TEXT, TY_DATE}, .fd_result = TY_NUMERIC, .fd_flags = S, .fd_row = xf_extract},
  {.fd_name = "date_trunc", .fd_nargs = 2, .fd_args = {TY_TEXT, TS}, .fd_result = TS, .fd_flags = S, .fd_row = xf_date_trunc},
  {.fd_name = "make_date", .fd_nargs = 3, .fd_args = {TY_INT4, TY_INT4, TY_INT4}, .fd_result = TY_DATE, .fd_flags = S, .fd_row = xf_make_date},
  {.fd_name = "make_timestamp", .fd_nargs = 6, .fd_args = {TY_INT4, TY_INT4, TY_INT4, TY_INT4, TY_INT4, TY_FLOAT8}, .fd_result = TS, .fd_flags = S, .fd_row = xf_make_timestamp},
};
const int xfunc_time_ndefs = (int)CZ_ARRAY_LEN(xfunc_time_defs);
