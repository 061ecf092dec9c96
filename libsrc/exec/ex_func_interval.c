/* ex_func_interval — the INTERVAL functions: extract and date_part of an
 * interval's fields, date_trunc, justify_days / justify_hours /
 * justify_interval, age, make_interval.
 *
 * Design notes: PostgreSQL 15's semantics, computed by types (ty_iv_*):
 * extract gives NUMERIC (seconds and epoch with 6 decimals), date_part
 * double precision with PostgreSQL's floating-point formulas for the
 * fractional fields, so the last digits agree. make_interval takes 0 to 7
 * positional arguments (years, months, weeks, days, hours, mins, secs),
 * the missing ones 0, as PostgreSQL's defaults do.
 */
#include <string.h>

#include "exec/ex_int.h"

#define XI_USECS_PER_DAY INT64_C(86400000000)

/* The unit argument in lower case without blanks, as PostgreSQL reads it. */
static const char *xi_unit(const datum_t *a, char *buf, size_t cap)
{
  size_t n = 0;
  for (uint32_t i = 0; i < a->d_str.s_len && n < cap - 1; i++) {
    char ch = a->d_str.s_ptr[i];
    if (ch != ' ')
      buf[n++] = (char)((ch >= 'A' && ch <= 'Z') ? ch + 32 : ch);
  }
  buf[n] = '\0';
  return buf;
}

static int xi_extract(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  char u[32];
  return ty_iv_extract(&a[1].d_iv, xi_unit(&a[0], u, sizeof u), &out->d_num, e);
}

static int xi_date_part(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  char u[32];
  const char *unit = xi_unit(&a[0], u, sizeof u);
  num_t n;
  if (ty_iv_extract(&a[1].d_iv, unit, &n, e) != CZ_OK)
    return CZ_ERR;
  const ty_iv_t *v = &a[1].d_iv;
  if (strcmp(unit, "epoch") == 0) {
    /* interval_part's float8 epoch, term by term */
    double r = (double)v->iv_us / 1000000.0;
    r += (365.25 * 86400) * (v->iv_months / 12);
    r += (30.0 * 86400) * (v->iv_months % 12);
    r += 86400.0 * v->iv_days;
    out->d_f64 = r;
    return CZ_OK;
  }
  if (n.n_scale > 0) {
    /* second / millisecond: whole seconds plus the µs, in double */
    int64_t t = v->iv_us % INT64_C(60000000);
    int64_t sec = t / 1000000, us = t % 1000000;
    out->d_f64 = n.n_scale == 6 ? (double)sec + (double)us / 1000000.0
                                : (double)sec * 1000.0 + (double)us / 1000.0;
    return CZ_OK;
  }
  out->d_f64 = num_to_f64(&n);
  return CZ_OK;
}

/* date_trunc(unit, interval): the fields below unit cleared (interval_trunc). */
static int xi_date_trunc(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  char u[32];
  const char *unit = xi_unit(&a[0], u, sizeof u);
  ty_iv_t v = a[1].d_iv;
  int32_t years = v.iv_months / 12, mons = v.iv_months % 12;
  const int64_t H = INT64_C(3600000000), M = 60000000, S = 1000000;
  static const char *const units[] = {"millennium", "century", "decade", "year", "quarter",
                                      "month", "day", "hour", "minute", "second",
                                      "milliseconds", "microseconds"};
  int k = -1;
  for (int i = 0; i < (int)CZ_ARRAY_LEN(units); i++)
    if (strcmp(units[i], unit) == 0)
      k = i;
  if (k < 0 && (strcmp(unit, "millisecond") == 0 || strcmp(unit, "ms") == 0))
    k = 10;
  if (k < 0 && (strcmp(unit, "microsecond") == 0 || strcmp(unit, "us") == 0))
    k = 11;
  switch (k) {
  case 0: v.iv_months = years / 1000 * 12000; v.iv_days = 0; v.iv_us = 0; break;
  case 1: v.iv_months = years / 100 * 1200; v.iv_days = 0; v.iv_us = 0; break;
  case 2: v.iv_months = years / 10 * 120; v.iv_days = 0; v.iv_us = 0; break;
  case 3: v.iv_months = years * 12; v.iv_days = 0; v.iv_us = 0; break;
  case 4: v.iv_months = years * 12 + mons / 3 * 3; v.iv_days = 0; v.iv_us = 0; break;
  case 5: v.iv_days = 0; v.iv_us = 0; break;
  case 6: v.iv_us = 0; break;
  case 7: v.iv_us = v.iv_us / H * H; break;
  case 8: v.iv_us = v.iv_us / M * M; break;
  case 9: v.iv_us = v.iv_us / S * S; break;
  case 10: v.iv_us = v.iv_us / 1000 * 1000; break;
  case 11: break;
  default:
    if (strcmp(unit, "week") == 0)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "unit \"%s\" not supported for type interval", unit);
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "unit \"%s\" not recognized for type interval", unit);
  }
  out->d_iv = v;
  return CZ_OK;
}

static int xi_justify_days(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  return ty_iv_justify_days(&a[0].d_iv, &out->d_iv, e);
}

static int xi_justify_hours(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  return ty_iv_justify_hours(&a[0].d_iv, &out->d_iv, e);
}

static int xi_justify(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  return ty_iv_justify(&a[0].d_iv, &out->d_iv, e);
}

/* age(a, b); on timestamptz both are read on the session zone's clock
 * first (timestamptz_age) */
static int xi_age2(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  int64_t l0 = a[0].d_i64, l1 = a[1].d_i64;
  if (x->x_args[0]->x_type.t_id == TY_TIMESTAMPTZ &&
      (ty_tstz_to_local(l0, ty_tz_current(), &l0, e) != CZ_OK ||
       ty_tstz_to_local(l1, ty_tz_current(), &l1, e) != CZ_OK))
    return CZ_ERR;
  return ty_ts_age(l0, l1, &out->d_iv, e);
}

/* age(ts): from today's midnight (current_date, in the session's zone), as
 * PostgreSQL's. */
static int xi_age1(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  int64_t now;
  if (ty_tstz_to_local(xf_now(c), ty_tz_current(), &now, e) != CZ_OK)
    return CZ_ERR;
  int64_t day = now / XI_USECS_PER_DAY - (now % XI_USECS_PER_DAY < 0);
  int64_t v = a[0].d_i64;
  if (x->x_args[0]->x_type.t_id == TY_TIMESTAMPTZ &&
      ty_tstz_to_local(v, ty_tz_current(), &v, e) != CZ_OK)
    return CZ_ERR;
  return ty_ts_age(day * XI_USECS_PER_DAY, v, &out->d_iv, e);
}

static int xi_make_interval(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                            err_t *e)
{
  (void)c;
  int64_t p[6] = {0, 0, 0, 0, 0, 0};
  double secs = 0;
  for (int i = 0; i < x->x_nargs && i < 6; i++)
    p[i] = a[i].d_i64;
  if (x->x_nargs == 7)
    secs = a[6].d_f64;
  return ty_iv_make(p[0], p[1], p[2], p[3], p[4], p[5], secs, &out->d_iv, e);
}

#define IV TY_INTERVAL
#define TS TY_TIMESTAMP
#define I4 TY_INT4
#define S XF_STRICT
#define MKIV(n, ...) \
  {.fd_name = "make_interval", .fd_nargs = n, .fd_args = {__VA_ARGS__}, .fd_result = IV, \
   .fd_flags = S, .fd_row = xi_make_interval}

const xfunc_def_t xfunc_interval_defs[] = {
  {.fd_name = "extract", .fd_nargs = 2, .fd_args = {TY_TEXT, IV}, .fd_result = TY_NUMERIC, .fd_flags = S, .fd_row = xi_extract},
  {.fd_name = "date_part", .fd_nargs = 2, .fd_args = {TY_TEXT, IV}, .fd_result = TY_FLOAT8, .fd_flags = S, .fd_row = xi_date_part},
  {.fd_name = "date_trunc", .fd_nargs = 2, .fd_args = {TY_TEXT, IV}, .fd_result = IV, .fd_flags = S, .fd_row = xi_date_trunc},
  {.fd_name = "justify_days", .fd_nargs = 1, .fd_args = {IV}, .fd_result = IV, .fd_flags = S, .fd_row = xi_justify_days},
  {.fd_name = "justify_hours", .fd_nargs = 1, .fd_args = {IV}, .fd_result = IV, .fd_flags = S, .fd_row = xi_justify_hours},
  {.fd_name = "justify_interval", .fd_nargs = 1, .fd_args = {IV}, .fd_result = IV, .fd_flags = S, .fd_row = xi_justify},
  {.fd_name = "age", .fd_nargs = 2, .fd_args = {TS, TS}, .fd_result = IV, .fd_flags = S, .fd_row = xi_age2},
  {.fd_name = "age", .fd_nargs = 1, .fd_args = {TS}, .fd_result = IV, .fd_flags = S | XF_VOLATILE, .fd_row = xi_age1},
  {.fd_name = "age", .fd_nargs = 2, .fd_args = {TY_TIMESTAMPTZ, TY_TIMESTAMPTZ}, .fd_result = IV, .fd_flags = S, .fd_row = xi_age2},
  {.fd_name = "age", .fd_nargs = 1, .fd_args = {TY_TIMESTAMPTZ}, .fd_result = IV, .fd_flags = S | XF_VOLATILE, .fd_row = xi_age1},
  MKIV(0, 0),
  MKIV(1, I4),
  MKIV(2, I4, I4),
  MKIV(3, I4, I4, I4),
  MKIV(4, I4, I4, I4, I4),
  MKIV(5, I4, I4, I4, I4, I4),
  MKIV(6, I4, I4, I4, I4, I4, I4),
  MKIV(7, I4, I4, I4, I4, I4, I4, TY_FLOAT8),
};
const int xfunc_interval_ndefs = (int)CZ_ARRAY_LEN(xfunc_interval_defs);
