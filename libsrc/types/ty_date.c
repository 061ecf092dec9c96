/* ty_date — DATE and TIMESTAMP: the proleptic Gregorian calendar, ISO text
 * input and PostgreSQL's ISO DateStyle output.
 *
 * Design notes: DATE is days and TIMESTAMP microseconds since 2000-01-01
 * (PostgreSQL's epochs, so binary wire values need no conversion); the
 * infinite values are PostgreSQL's too (DATE ±INT32_MAX-ish sentinels,
 * TIMESTAMP INT64_MIN/MAX). Years are astronomical inside (0 is 1 BC) and
 * printed with a " BC" suffix outside, as PostgreSQL does. Input accepts
 * what clients and tests send: 'YYYY-MM-DD', an optional time 'HH:MM[:SS
 * [.ffffff]]' after a blank or 'T' (also 'YYYY/MM/DD' and 'YYYYMMDD'),
 * an ignored zone suffix (PostgreSQL
 * ignores it for TIMESTAMP WITHOUT TIME ZONE), ' BC', and the words epoch,
 * infinity, -infinity.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "types/types_int.h"

/* Days from 1970-01-01 to 2000-01-01. */
#define TY_UNIX_TO_PG_DAYS 10957
#define TY_DATE_MIN_YEAR (-4713)     /* 4714 BC, PostgreSQL's lower bound */
#define TY_DATE_MAX_YEAR 5874897
#define TY_TS_MAX_YEAR 294276
#define TY_DAY_MIN (-2451545)        /* 4714-11-24 BC, Julian day 0 */

static int64_t ty_floor_div(int64_t a, int64_t b)
{
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Civil-from-days in 400-year eras (each era has 146097 days), March-based
 * years so the leap day comes last. */
int64_t ty_days_from_civil(int64_t y, int m, int d)
{
  y -= m <= 2;
  int64_t era = ty_floor_div(y, 400);
  int64_t yoe = y - era * 400;                            /* 0..399 */
  int64_t mp = (m + 9) % 12;                              /* March = 0 */
  int64_t doy = (153 * mp + 2) / 5 + d - 1;               /* 0..365 */
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;    /* 0..146096 */
  return era * 146097 + doe - 719468 - TY_UNIX_TO_PG_DAYS;
}

void ty_civil_from_days(int64_t days, int64_t *y, int *m, int *d)
{
  int64_t z = days + TY_UNIX_TO_PG_DAYS + 719468;
  int64_t era = ty_floor_div(z, 146097);
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static bool ty_leap(int64_t y)
{
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

bool ty_valid_ymd(int64_t y, int m, int d)
{
  static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1)
    return false;
  return d <= mdays[m - 1] + (m == 2 && ty_leap(y));
}

/* ---- parsing ----------------------------------------------------------- */

static int ty_read_int(const char *s, size_t len, size_t *i, int maxdig, int64_t *out)
{
  int n = 0;
  int64_t v = 0;
  while (*i < len && isdigit((unsigned char)s[*i]) && n < maxdig) {
    v = v * 10 + (s[*i] - '0');
    (*i)++;
    n++;
  }
  *out = v;
  return n;
}

static bool ty_word(const char *s, size_t len, const char *w)
{
  return strlen(w) == len && strncasecmp(s, w, len) == 0;
}

/* A zone after a time or a date: 'Z', '+05', '-0330', '+05:30:15', or a
 * name ('UTC', 'Europe/Berlin', an abbreviation such as 'CEST'). */
static ty_dt_rc_t ty_dt_zone(const char *s, size_t end, size_t *i, ty_dt_t *dt)
{
  size_t j = *i;
  if ((s[j] == 'Z' || s[j] == 'z') && (j + 1 == end || s[j + 1] == ' ')) {
    dt->dt_zone_kind = TY_DT_ZONE_FIXED;
    dt->dt_zone_east = 0;
    *i = j + 1;
    return TY_DT_OK;
  }
  if (s[j] == '+' || s[j] == '-') {
    int sign = s[j] == '-' ? -1 : 1;
    int64_t zh, zm = 0, zs = 0;
    j++;
    int nd = ty_read_int(s, end, &j, 4, &zh);
    if (nd < 1)
      return TY_DT_SYNTAX;
    if (nd > 2) { /* +hhmm */
      zm = zh % 100;
      zh /= 100;
    } else if (j < end && s[j] == ':') {
      j++;
      if (ty_read_int(s, end, &j, 2, &zm) != 2)
        return TY_DT_SYNTAX;
      if (j < end && s[j] == ':') {
        j++;
        if (ty_read_int(s, end, &j, 2, &zs) != 2)
          return TY_DT_SYNTAX;
      }
    }
    if (zm > 59 || zs > 59)
      return TY_DT_RANGE;
    if (zh > 15)
      return TY_DT_TZDISP;
    dt->dt_zone_kind = TY_DT_ZONE_FIXED;
    dt->dt_zone_east = (int32_t)(sign * (zh * 3600 + zm * 60 + zs));
    *i = j;
    return TY_DT_OK;
  }
  if (!isalpha((unsigned char)s[j]))
    return TY_DT_SYNTAX;
  size_t k = j;
  while (k < end && (isalnum((unsigned char)s[k]) || s[k] == '/' || s[k] == '_' || s[k] == '-' ||
                     s[k] == '+'))
    k++;
  if ((k - j == 2 && (strncasecmp(s + j, "BC", 2) == 0 || strncasecmp(s + j, "AD", 2) == 0)))
    return TY_DT_OK; /* not a zone: the era, read by the caller */
  dt->dt_zone_name = s + j;
  dt->dt_zone_len = k - j;
  *i = k;
  return ty_dt_zone_name(dt);
}

/* 'HH:MM[:SS[.ffffff]]' and an optional zone, from s[*i]. */
static ty_dt_rc_t ty_dt_time(const char *s, size_t end, size_t *ip, ty_dt_t *dt)
{
  size_t i = *ip;
  int64_t hh, mi, ss = 0;
  if (ty_read_int(s, end, &i, 2, &hh) < 1 || i >= end || s[i++] != ':')
    return TY_DT_SYNTAX;
  if (ty_read_int(s, end, &i, 2, &mi) != 2)
    return TY_DT_SYNTAX;
  if (i < end && s[i] == ':') {
    i++;
    if (ty_read_int(s, end, &i, 2, &ss) != 2)
      return TY_DT_SYNTAX;
    if (i < end && s[i] == '.') {
      /* Fraction: microseconds, the seventh digit rounds. */
      i++;
      int64_t us = 0;
      int nd = 0;
      bool round = false;
      while (i < end && isdigit((unsigned char)s[i])) {
        if (nd < 6)
          us = us * 10 + (s[i] - '0');
        else if (nd == 6)
          round = s[i] >= '5';
        nd++;
        i++;
      }
      for (; nd < 6; nd++)
        us *= 10;
      dt->dt_usec = us + round;
    }
  }
  dt->dt_hour = (int)hh;
  dt->dt_min = (int)mi;
  dt->dt_sec = (int)ss;
  dt->dt_has_time = true;
  /* A zone ("Z", "+02", "-05:30", "Europe/Berlin"): TIMESTAMPTZ and TIMETZ
   * read it, TIMESTAMP and TIME ignore it as PostgreSQL does. */
  while (i < end && s[i] == ' ')
    i++;
  if (i < end) {
    ty_dt_rc_t zrc = ty_dt_zone(s, end, &i, dt);
    if (zrc != TY_DT_OK)
      return zrc;
  }
  *ip = i;
  return TY_DT_OK;
}

ty_dt_rc_t ty_time_dt_parse(const char *s, size_t len, ty_dt_t *dt)
{
  size_t i = 0, end = len;
  while (i < end && isspace((unsigned char)s[i]))
    i++;
  while (end > i && isspace((unsigned char)s[end - 1]))
    end--;
  /* a date first ('2024-01-01 12:00'): the whole timestamp form */
  size_t k = i;
  while (k < end && isdigit((unsigned char)s[k]))
    k++;
  if (k < end && k > i && (s[k] == '-' || s[k] == '/'))
    return ty_dt_parse(s + i, end - i, dt);
  memset(dt, 0, sizeof(*dt));
  if (ty_word(s + i, end - i, "allballs")) {
    dt->dt_has_time = true;
    dt->dt_zone_kind = TY_DT_ZONE_FIXED;
    return TY_DT_OK;
  }
  ty_dt_rc_t rc = ty_dt_time(s, end, &i, dt);
  if (rc != TY_DT_OK)
    return rc;
  if (i != end)
    return TY_DT_SYNTAX;
  if (dt->dt_hour > 24 || dt->dt_min > 59 || dt->dt_sec > 60 ||
      (dt->dt_hour == 24 && (dt->dt_min || dt->dt_sec || dt->dt_usec)))
    return TY_DT_RANGE;
  return TY_DT_OK;
}

ty_dt_rc_t ty_dt_parse(const char *s, size_t len, ty_dt_t *dt)
{
  size_t i = 0, end = len;
  memset(dt, 0, sizeof(*dt));
  while (i < end && isspace((unsigned char)s[i]))
    i++;
  while (end > i && isspace((unsigned char)s[end - 1]))
    end--;
  if (ty_word(s + i, end - i, "infinity") || ty_word(s + i, end - i, "+infinity")) {
    dt->dt_special = 1;
    return TY_DT_OK;
  }
  if (ty_word(s + i, end - i, "-infinity")) {
    dt->dt_special = -1;
    return TY_DT_OK;
  }
  if (ty_word(s + i, end - i, "epoch")) { /* 1970-01-01 00:00:00 */
    dt->dt_special = 2;
    return TY_DT_OK;
  }
  int64_t y, mo, d;
  int ny = ty_read_int(s, end, &i, 9, &y);
  if (ny == 8 && (i == end || s[i] == ' ' || s[i] == 'T')) {
    /* YYYYMMDD */
    d = y % 100;
    mo = y / 100 % 100;
    y /= 10000;
  } else {
    char sep = i < end ? s[i] : '\0';
    if (ny < 1 || (sep != '-' && sep != '/'))
      return TY_DT_SYNTAX;
    i++;
    if (ty_read_int(s, end, &i, 2, &mo) < 1 || i >= end || s[i++] != sep)
      return TY_DT_SYNTAX;
    if (ty_read_int(s, end, &i, 2, &d) < 1)
      return TY_DT_SYNTAX;
  }
  if (y == 0)
    return TY_DT_RANGE; /* there is no year 0 (1 BC precedes 1 AD) */
  dt->dt_year = y;
  dt->dt_mon = (int)mo;
  dt->dt_day = (int)d;
  if (i < end && (s[i] == ' ' || s[i] == 'T' || s[i] == 't')) {
    size_t j = i + 1;
    while (j < end && s[j] == ' ')
      j++;
    if (j < end && isdigit((unsigned char)s[j])) {
      i = j;
      ty_dt_rc_t rc = ty_dt_time(s, end, &i, dt);
      if (rc != TY_DT_OK)
        return rc;
    } else if (j < end && s[i] == ' ' && isalpha((unsigned char)s[j])) {
      /* a zone name after a date alone: '2024-03-31 Europe/Berlin' */
      i = j;
      ty_dt_rc_t zrc = ty_dt_zone(s, end, &i, dt);
      if (zrc != TY_DT_OK)
        return zrc;
    }
  }
  while (i < end && s[i] == ' ')
    i++;
  if (end - i == 2 && strncasecmp(s + i, "BC", 2) == 0) {
    if (dt->dt_year == 0)
      return TY_DT_RANGE;
    dt->dt_year = 1 - dt->dt_year;
    i = end;
  } else if (end - i == 2 && strncasecmp(s + i, "AD", 2) == 0) {
    i = end;
  }
  if (i != end)
    return TY_DT_SYNTAX;
  if (!ty_valid_ymd(dt->dt_year, dt->dt_mon, dt->dt_day))
    return TY_DT_RANGE;
  if (dt->dt_hour > 24 || dt->dt_min > 59 || dt->dt_sec > 60 ||
      (dt->dt_hour == 24 && (dt->dt_min || dt->dt_sec || dt->dt_usec)))
    return TY_DT_RANGE;
  return TY_DT_OK;
}

/* 294277-01-01, the first day past TIMESTAMP's range (PostgreSQL's
 * TIMESTAMP_END_JULIAN), in days since 2000-01-01. */
#define TY_TS_END_DAY ty_days_from_civil(TY_TS_MAX_YEAR + 1, 1, 1)

bool ty_date_to_ts(int64_t days, int64_t *us)
{
  if (days >= TY_DATE_NOEND) {
    *us = TY_TS_NOEND;
    return true;
  }
  if (days <= TY_DATE_NOBEGIN) {
    *us = TY_TS_NOBEGIN;
    return true;
  }
  if (days < TY_DAY_MIN || days >= TY_TS_END_DAY)
    return false;
  *us = days * TY_USECS_PER_DAY;
  return true;
}

bool ty_ts_in_range(int64_t us)
{
  return us >= TY_DAY_MIN * TY_USECS_PER_DAY && us < TY_TS_END_DAY * TY_USECS_PER_DAY;
}

int ty_dt_error(ty_dt_rc_t rc, const ty_dt_t *dt, const char *tname, const char *s, size_t len,
                err_t *e)
{
  if (rc == TY_DT_RANGE)
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "date/time field value out of range: \"%.*s\"",
                   (int)CZ_MIN(len, 200), s);
  if (rc == TY_DT_TZDISP)
    return err_set(e, SQLSTATE_INVALID_TZ_DISPLACEMENT,
                   "time zone displacement out of range: \"%.*s\"", (int)CZ_MIN(len, 200), s);
  if (rc == TY_DT_BADZONE) {
    /* PostgreSQL names the zone lower-cased */
    char z[TY_TZ_NAME_MAX];
    size_t n = CZ_MIN(dt->dt_zone_len, sizeof(z) - 1);
    for (size_t k = 0; k < n; k++)
      z[k] = (char)tolower((unsigned char)dt->dt_zone_name[k]);
    z[n] = '\0';
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "time zone \"%s\" not recognized", z);
  }
  return err_set(e, SQLSTATE_INVALID_DATETIME_FORMAT, "invalid input syntax for type %s: \"%.*s\"", tname,
                 (int)CZ_MIN(len, 200), s);
}

int ty_date_parse(const char *s, size_t len, int64_t *out, err_t *e)
{
  ty_dt_t dt;
  ty_dt_rc_t rc = ty_dt_parse(s, len, &dt);
  if (rc != TY_DT_OK)
    return ty_dt_error(rc, &dt, "date", s, len, e);
  if (dt.dt_special) {
    *out = dt.dt_special == 1 ? TY_DATE_NOEND : dt.dt_special == -1 ? TY_DATE_NOBEGIN
                                                                     : -TY_UNIX_TO_PG_DAYS;
    return CZ_OK;
  }
  if (dt.dt_year < TY_DATE_MIN_YEAR || dt.dt_year > TY_DATE_MAX_YEAR ||
      ty_days_from_civil(dt.dt_year, dt.dt_mon, dt.dt_day) < TY_DAY_MIN)
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "date out of range: \"%.*s\"",
                   (int)CZ_MIN(len, 200), s);
  *out = ty_days_from_civil(dt.dt_year, dt.dt_mon, dt.dt_day);
  return CZ_OK;
}

int ty_ts_parse(const char *s, size_t len, int64_t *out, err_t *e)
{
  ty_dt_t dt;
  ty_dt_rc_t rc = ty_dt_parse(s, len, &dt);
  if (rc != TY_DT_OK)
    return ty_dt_error(rc, &dt, "timestamp", s, len, e);
  if (dt.dt_special) {
    *out = dt.dt_special == 1 ? TY_TS_NOEND : dt.dt_special == -1 ? TY_TS_NOBEGIN
                                                                 : -TY_UNIX_TO_PG_DAYS * TY_USECS_PER_DAY;
    return CZ_OK;
  }
  if (dt.dt_year < TY_DATE_MIN_YEAR || dt.dt_year > TY_TS_MAX_YEAR ||
      ty_days_from_civil(dt.dt_year, dt.dt_mon, dt.dt_day) < TY_DAY_MIN)
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"%.*s\"",
                   (int)CZ_MIN(len, 200), s);
  int64_t days = ty_days_from_civil(dt.dt_year, dt.dt_mon, dt.dt_day);
  int64_t secs = (int64_t)dt.dt_hour * 3600 + dt.dt_min * 60 + dt.dt_sec;
  *out = days * TY_USECS_PER_DAY + secs * 1000000 + dt.dt_usec;
  if (!ty_ts_in_range(*out)) /* 294276-12-31 23:59:59.9999999 rounds past the end */
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"%.*s\"",
                   (int)CZ_MIN(len, 200), s);
  return CZ_OK;
}

/* ---- output ------------------------------------------------------------ */

static int ty_ymd_format(int64_t days, char *out, bool *bc)
{
  int64_t y;
  int m, d;
  ty_civil_from_days(days, &y, &m, &d);
  *bc = y <= 0;
  if (*bc)
    y = 1 - y;
  return sprintf(out, "%04lld-%02d-%02d", (long long)y, m, d);
}

int ty_date_format(int64_t days, char *out)
{
  if (days >= TY_DATE_NOEND)
    return sprintf(out, "infinity");
  if (days <= TY_DATE_NOBEGIN)
    return sprintf(out, "-infinity");
  bool bc;
  int n = ty_ymd_format(days, out, &bc);
  if (bc)
    n += sprintf(out + n, " BC");
  return n;
}

int ty_ts_format(int64_t us, char *out)
{
  if (us == TY_TS_NOEND)
    return sprintf(out, "infinity");
  if (us == TY_TS_NOBEGIN)
    return sprintf(out, "-infinity");
  int64_t days = ty_floor_div(us, TY_USECS_PER_DAY);
  int64_t tod = us - days * TY_USECS_PER_DAY;
  bool bc;
  int n = ty_ymd_format(days, out, &bc);
  int64_t secs = tod / 1000000, frac = tod % 1000000;
  n += sprintf(out + n, " %02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60),
               (int)(secs % 60));
  if (frac) {
    /* PostgreSQL prints the fraction without trailing zeros. */
    char f[8];
    int fl = sprintf(f, "%06lld", (long long)frac);
    while (fl > 0 && f[fl - 1] == '0')
      fl--;
    out[n++] = '.';
    memcpy(out + n, f, (size_t)fl);
    n += fl;
    out[n] = '\0';
  }
  if (bc)
    n += sprintf(out + n, " BC");
  return n;
}

int64_t ty_ts_round(int64_t us, int prec)
{
  if (us == TY_TS_NOEND || us == TY_TS_NOBEGIN)
    return us;
  /* timestamp(p): round to p fraction digits, half away from zero. */
  int64_t unit = 1;
  for (int k = prec; k < 6; k++)
    unit *= 10;
  int64_t r = us % unit;
  us -= r;
  if (r >= unit / 2)
    us += unit;
  else if (r <= -unit / 2)
    us -= unit;
  return us;
}
