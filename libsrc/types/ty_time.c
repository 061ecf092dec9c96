/* ty_time — TIMESTAMPTZ, TIME and TIMETZ: their text forms in the session's
 * zone, the TIMETZ packing, and the conversions between an instant and a
 * local time.
 *
 * Design notes: TIMESTAMPTZ is an instant (µs since 2000-01-01 UTC, like
 * PostgreSQL); only its text form and the calendar functions look at a
 * zone, the session's (ty_tz_current). TIMETZ keeps its own offset; it is
 * packed into one int64 whose order is PostgreSQL's timetz_cmp, so every
 * operator on TP_I64 (sort, hash, B-tree keys) handles it unchanged. Output
 * is DateStyle ISO as PostgreSQL 15 prints it: '2024-03-31 03:30:00+02',
 * offsets as +hh[:mm[:ss]], ' BC' after the offset.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "types/types_int.h"

#define TY_UNIX_PG_SECS INT64_C(946684800)
#define TY_TIMETZ_SHIFT 131072 /* 2^17 > 2 * TY_TIMETZ_MAX_ZONE + 1 */
#define TY_TIMETZ_BIAS 65536

int64_t ty_timetz_pack(int64_t time_us, int32_t zone_west)
{
  return (time_us + (int64_t)zone_west * 1000000) * TY_TIMETZ_SHIFT + (zone_west + TY_TIMETZ_BIAS);
}

void ty_timetz_unpack(int64_t v, int64_t *time_us, int32_t *zone_west)
{
  int64_t low = v & (TY_TIMETZ_SHIFT - 1); /* two's complement: the floor remainder */
  int32_t zone = (int32_t)(low - TY_TIMETZ_BIAS);
  int64_t utc = (v - low) / TY_TIMETZ_SHIFT;
  *zone_west = zone;
  *time_us = utc - (int64_t)zone * 1000000;
}

/* ---- abbreviations ------------------------------------------------------- */

/* The fixed-offset abbreviations of PostgreSQL's Default set that people
 * write (a subset: the full set has about 190); looked up before zone
 * names, as PostgreSQL does ('CET' is +01 even in summer). */
static const struct {
  const char *ab_name;
  int32_t ab_east;
  bool ab_dst;
} ty_tz_abbrevs[] = {
  {"acdt", 37800, true}, {"acst", 34200, false}, {"aedt", 39600, true}, {"aest", 36000, false},
  {"akdt", -28800, true}, {"akst", -32400, false}, {"awst", 28800, false}, {"bst", 3600, true},
  {"cdt", -18000, true}, {"cest", 7200, true}, {"cet", 3600, false}, {"cst", -21600, false},
  {"edt", -14400, true}, {"eest", 10800, true}, {"eet", 7200, false}, {"est", -18000, false},
  {"gmt", 0, false}, {"hst", -36000, false}, {"ist", 7200, false}, {"jst", 32400, false},
  {"kst", 32400, false}, {"mdt", -21600, true}, {"msk", 10800, false}, {"mst", -25200, false},
  {"nzdt", 46800, true}, {"nzst", 43200, false}, {"pdt", -25200, true}, {"pst", -28800, false},
  {"ut", 0, false}, {"utc", 0, false}, {"wet", 0, false}, {"west", 3600, true},
  {"z", 0, false}, {"zulu", 0, false},
};

bool ty_tz_abbrev_at(int i, char *name, int32_t *east, bool *isdst)
{
  if (i < 0 || i >= (int)CZ_ARRAY_LEN(ty_tz_abbrevs))
    return false;
  size_t k = 0;
  for (; k < 7 && ty_tz_abbrevs[i].ab_name[k]; k++)
    name[k] = (char)toupper((unsigned char)ty_tz_abbrevs[i].ab_name[k]);
  name[k] = '\0';
  *east = ty_tz_abbrevs[i].ab_east;
  *isdst = ty_tz_abbrevs[i].ab_dst;
  return true;
}

bool ty_tz_abbrev(const char *name, size_t len, int32_t *east)
{
  for (size_t i = 0; i < CZ_ARRAY_LEN(ty_tz_abbrevs); i++)
    if (strlen(ty_tz_abbrevs[i].ab_name) == len &&
        strncasecmp(ty_tz_abbrevs[i].ab_name, name, len) == 0) {
      *east = ty_tz_abbrevs[i].ab_east;
      return true;
    }
  return false;
}

ty_dt_rc_t ty_dt_zone_name(ty_dt_t *dt)
{
  int32_t east;
  if (ty_tz_abbrev(dt->dt_zone_name, dt->dt_zone_len, &east)) {
    dt->dt_zone_kind = TY_DT_ZONE_FIXED;
    dt->dt_zone_east = east;
    return TY_DT_OK;
  }
  char name[TY_TZ_NAME_MAX];
  if (dt->dt_zone_len >= sizeof(name))
    return TY_DT_BADZONE;
  memcpy(name, dt->dt_zone_name, dt->dt_zone_len);
  name[dt->dt_zone_len] = '\0';
  const ty_tz_t *z = ty_tz_find(name);
  if (!z) /* PostgreSQL: a word it cannot read is bad syntax, a path an unknown zone */
    return strchr(name, '/') ? TY_DT_BADZONE : TY_DT_SYNTAX;
  dt->dt_zone_kind = TY_DT_ZONE_NAMED;
  dt->dt_zone = z;
  return TY_DT_OK;
}

/* ---- instants and local times ------------------------------------------------ */

int ty_tstz_to_local(int64_t tstz, const ty_tz_t *z, int64_t *ts, err_t *e)
{
  if (tstz == TY_TS_NOBEGIN || tstz == TY_TS_NOEND) {
    *ts = tstz;
    return CZ_OK;
  }
  *ts = tstz + (int64_t)ty_tz_offset_us(z, tstz) * 1000000;
  if (!ty_ts_in_range(*ts))
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "timestamp out of range");
  return CZ_OK;
}

int ty_local_to_tstz(int64_t ts, const ty_tz_t *z, int64_t *tstz, err_t *e)
{
  if (ts == TY_TS_NOBEGIN || ts == TY_TS_NOEND) {
    *tstz = ts;
    return CZ_OK;
  }
  *tstz = ts - (int64_t)ty_tz_local_offset_us(z, ts) * 1000000;
  if (!ty_ts_in_range(*tstz))
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "timestamp out of range");
  return CZ_OK;
}

/* ---- text ------------------------------------------------------------------------ */

int ty_tz_offset_format(int32_t east, char *out)
{
  int32_t a = east < 0 ? -east : east;
  int h = (int)(a / 3600), m = (int)(a / 60 % 60), s = (int)(a % 60);
  char sign = east >= 0 ? '+' : '-';
  if (s)
    return sprintf(out, "%c%02d:%02d:%02d", sign, h, m, s);
  if (m)
    return sprintf(out, "%c%02d:%02d", sign, h, m);
  return sprintf(out, "%c%02d", sign, h);
}

/* Local µs of a parsed date/time (its date and time fields). */
static int64_t ty_dt_local_us(const ty_dt_t *dt)
{
  int64_t days = ty_days_from_civil(dt->dt_year, dt->dt_mon, dt->dt_day);
  int64_t secs = (int64_t)dt->dt_hour * 3600 + dt->dt_min * 60 + dt->dt_sec;
  return days * TY_USECS_PER_DAY + secs * 1000000 + dt->dt_usec;
}

int ty_tstz_parse(const char *s, size_t len, int64_t *out, err_t *e)
{
  ty_dt_t dt;
  ty_dt_rc_t rc = ty_dt_parse(s, len, &dt);
  if (rc != TY_DT_OK)
    return ty_dt_error(rc, &dt, "timestamp with time zone", s, len, e);
  if (dt.dt_special) {
    *out = dt.dt_special == 1 ? TY_TS_NOEND : dt.dt_special == -1 ? TY_TS_NOBEGIN
                                                                 : -TY_UNIX_PG_SECS * 1000000;
    return CZ_OK;
  }
  if (dt.dt_year < -4713 || dt.dt_year > 294277)
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"%.*s\"",
                   (int)CZ_MIN(len, 200), s);
  int64_t local = ty_dt_local_us(&dt);
  int32_t east;
  if (dt.dt_zone_kind == TY_DT_ZONE_FIXED)
    east = dt.dt_zone_east;
  else
    east = ty_tz_local_offset_us(dt.dt_zone_kind == TY_DT_ZONE_NAMED ? dt.dt_zone : ty_tz_current(),
                                 local);
  *out = local - (int64_t)east * 1000000;
  if (!ty_ts_in_range(*out))
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"%.*s\"",
                   (int)CZ_MIN(len, 200), s);
  return CZ_OK;
}

int ty_tstz_format(int64_t us, char *out)
{
  if (us == TY_TS_NOEND || us == TY_TS_NOBEGIN)
    return ty_ts_format(us, out);
  int32_t east = ty_tz_offset_us(ty_tz_current(), us);
  int n = ty_ts_format(us + (int64_t)east * 1000000, out);
  bool bc = n > 3 && strcmp(out + n - 3, " BC") == 0;
  if (bc)
    n -= 3;
  n += ty_tz_offset_format(east, out + n);
  if (bc)
    n += sprintf(out + n, " BC");
  return n;
}

static int64_t ty_dt_time_us(const ty_dt_t *dt)
{
  return ((int64_t)dt->dt_hour * 3600 + dt->dt_min * 60 + dt->dt_sec) * 1000000 + dt->dt_usec;
}

int ty_time_parse(const char *s, size_t len, int64_t *out, err_t *e)
{
  ty_dt_t dt;
  ty_dt_rc_t rc = ty_time_dt_parse(s, len, &dt);
  if (rc == TY_DT_OK && (dt.dt_special || !dt.dt_has_time))
    rc = TY_DT_SYNTAX;
  if (rc != TY_DT_OK)
    return ty_dt_error(rc, &dt, "time", s, len, e);
  *out = ty_dt_time_us(&dt);
  if (*out > TY_USECS_PER_DAY)
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "date/time field value out of range: \"%.*s\"",
                   (int)CZ_MIN(len, 200), s);
  return CZ_OK;
}

int ty_time_format(int64_t us, char *out)
{
  int64_t secs = us / 1000000, frac = us % 1000000;
  int n = sprintf(out, "%02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
  if (frac) {
    n += sprintf(out + n, ".%06lld", (long long)frac);
    while (out[n - 1] == '0')
      n--;
    out[n] = '\0';
  }
  return n;
}

/* Today's date in the session's zone, for a TIMETZ written without a date
 * in a zone whose offset depends on the date (PostgreSQL uses the current
 * date too). */
static int64_t ty_today_local(const ty_tz_t *z)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t utc = ((int64_t)ts.tv_sec - TY_UNIX_PG_SECS) * 1000000;
  int64_t local = utc + (int64_t)ty_tz_offset_us(z, utc) * 1000000;
  int64_t days = local / TY_USECS_PER_DAY;
  return local < 0 && local % TY_USECS_PER_DAY ? days - 1 : days;
}

int ty_timetz_parse(const char *s, size_t len, int64_t *out, err_t *e)
{
  ty_dt_t dt;
  ty_dt_rc_t rc = ty_time_dt_parse(s, len, &dt);
  if (rc == TY_DT_OK && (dt.dt_special || !dt.dt_has_time))
    rc = TY_DT_SYNTAX;
  if (rc != TY_DT_OK)
    return ty_dt_error(rc, &dt, "time with time zone", s, len, e);
  int64_t t = ty_dt_time_us(&dt);
  if (t > TY_USECS_PER_DAY)
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "date/time field value out of range: \"%.*s\"",
                   (int)CZ_MIN(len, 200), s);
  int32_t east;
  if (dt.dt_zone_kind == TY_DT_ZONE_FIXED) {
    east = dt.dt_zone_east;
  } else {
    const ty_tz_t *z = dt.dt_zone_kind == TY_DT_ZONE_NAMED ? dt.dt_zone : ty_tz_current();
    int64_t day = dt.dt_year ? ty_days_from_civil(dt.dt_year, dt.dt_mon, dt.dt_day)
                             : ty_today_local(z);
    east = ty_tz_local_offset_us(z, day * TY_USECS_PER_DAY + t);
  }
  *out = ty_timetz_pack(t, -east);
  return CZ_OK;
}

int ty_timetz_format(int64_t v, char *out)
{
  int64_t t;
  int32_t zone;
  ty_timetz_unpack(v, &t, &zone);
  int n = ty_time_format(t, out);
  return n + ty_tz_offset_format(-zone, out + n);
}

int64_t ty_time_round(int64_t us, int prec)
{
  if (prec < 0 || prec >= 6)
    return us;
  int64_t unit = 1;
  for (int k = prec; k < 6; k++)
    unit *= 10;
  return (us + unit / 2) / unit * unit;
}

/* ---- arithmetic ---------------------------------------------------------------- */

int ty_tstz_add_iv(int64_t t, const ty_iv_t *v, int sign, const ty_tz_t *z, int64_t *out, err_t *e)
{
  if (t == TY_TS_NOBEGIN || t == TY_TS_NOEND) {
    *out = t;
    return CZ_OK;
  }
  /* timestamptz_pl_interval: months, then days, on the local calendar of
   * the zone (so '1 day' keeps the wall-clock time across a DST change),
   * each step read back with that date's offset; then the time part as
   * elapsed µs ('24 hours' is 24 real hours). */
  ty_iv_t part = {0, 0, 0};
  for (int step = 0; step < 2; step++) {
    part.iv_months = step == 0 ? v->iv_months : 0;
    part.iv_days = step == 1 ? v->iv_days : 0;
    if (part.iv_months == 0 && part.iv_days == 0)
      continue;
    int64_t local;
    if (ty_tstz_to_local(t, z, &local, e) != CZ_OK || ty_ts_add_iv(local, &part, sign, &local, e) != CZ_OK ||
        ty_local_to_tstz(local, z, &t, e) != CZ_OK)
      return CZ_ERR;
  }
  part.iv_months = part.iv_days = 0;
  part.iv_us = v->iv_us;
  return ty_ts_add_iv(t, &part, sign, out, e);
}

int64_t ty_time_add_us(int64_t time_us, int64_t us)
{
  /* time_pl_interval: the day wraps */
  int64_t r = (time_us + us % TY_USECS_PER_DAY) % TY_USECS_PER_DAY;
  return r < 0 ? r + TY_USECS_PER_DAY : r;
}

int64_t ty_time_to_timetz(int64_t time_us, const ty_tz_t *z)
{
  /* time_timetz: the zone's offset on today's date */
  int64_t day = ty_today_local(z);
  int32_t east = ty_tz_local_offset_us(z, day * TY_USECS_PER_DAY + time_us);
  return ty_timetz_pack(time_us, -east);
}
