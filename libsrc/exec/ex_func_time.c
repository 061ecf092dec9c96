/* ex_func_time — date and time functions: now(), current_timestamp,
 * localtimestamp, current_date, date_part, extract, date_trunc,
 * make_date, make_timestamp.
 *
 * Design notes: PostgreSQL 14+ semantics: extract returns numeric (seconds
 * with 6 decimals, epoch with 6 for timestamps), date_part returns double
 * precision. There are no time zones: TIMESTAMP is without time zone, and
 * now() is the statement's start (xc_stmt_ts) in UTC. Infinite inputs give
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

static int xf_now_fn(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  (void)a;
  (void)e;
  out->d_i64 = xf_now(c);
  return CZ_OK;
}

static int xf_current_date(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  (void)a;
  (void)e;
  out->d_i64 = xf_floor_div(xf_now(c), XF_USECS_PER_DAY);
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
  XFF_ISODOW, XFF_DOY, XFF_ISOYEAR, XFF_EPOCH, XFF_JULIAN, XFF_BAD
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

/* date_part is double precision: PostgreSQL computes the fractional fields
 * in floating point (seconds + µs / 1e6, epoch µs / 1e6), so the same
 * arithmetic is used here for identical last digits; integral fields are
 * exact either way. */
static int xf_date_part(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  bool is_date = x->x_args[1]->x_type.t_id == TY_DATE;
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

#define TS TY_TIMESTAMP
#define S XF_STRICT
#define V XF_VOLATILE

const xfunc_def_t xfunc_time_defs[] = {
  {.fd_name = "now", .fd_nargs = 0, .fd_result = TS, .fd_flags = V, .fd_row = xf_now_fn},
  {.fd_name = "current_timestamp", .fd_nargs = 0, .fd_result = TS, .fd_flags = V, .fd_row = xf_now_fn},
  {.fd_name = "localtimestamp", .fd_nargs = 0, .fd_result = TS, .fd_flags = V, .fd_row = xf_now_fn},
  {.fd_name = "statement_timestamp", .fd_nargs = 0, .fd_result = TS, .fd_flags = V, .fd_row = xf_now_fn},
  {.fd_name = "transaction_timestamp", .fd_nargs = 0, .fd_result = TS, .fd_flags = V, .fd_row = xf_now_fn},
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
