/* ty_tz — time zones: a reader of the system's TZif files (RFC 8536) and
 * of POSIX TZ strings, a cache of loaded zones, and the zone the current
 * thread's session uses.
 *
 * Design notes:
 * - A zone is a table of UTC transitions, each naming a local time type
 *   (UTC offset, DST flag, abbreviation), plus a POSIX TZ rule ("CET-1CEST,
 *   M3.5.0,M10.5.0/3": the TZif footer) for instants after the last
 *   transition: slim TZif files stop their table at the last rule change, so
 *   2038 and later come from the rule alone. Only the v2+ 64-bit data block
 *   is read (v1 data is skipped); files with leap seconds ("right/…") are
 *   refused, as PostgreSQL refuses them.
 * - Zones are immutable once loaded and live for the life of the process in
 *   one list guarded by a mutex (loaded once per name, shared by every
 *   session: a session's setting is a pointer). Fixed offsets (SET TIME ZONE
 *   5, INTERVAL '+05:30', 'UTC+3') are zones without transitions, interned
 *   in the same list under the name SHOW prints.
 * - Nothing here touches the C library's TZ environment or localtime: those
 *   are process-wide and not thread-safe.
 * - The session's zone reaches the text forms and the executor through a
 *   thread-local pointer (ty_tz_use), set by whoever runs a session's turn
 *   on a thread and copied to the workers of a parallel plan. NULL is UTC.
 * - Local time to UTC follows PostgreSQL's DetermineTimeZoneOffset: a local
 *   time skipped by a spring-forward change is read with the offset before
 *   it (02:30 in Berlin on the last Sunday of March is 03:30+02), one that
 *   occurs twice at a fall-back change with the offset after it.
 */
#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "types/types_int.h"

#define TY_TZ_DIR "/usr/share/zoneinfo"
#define TY_TZ_MAX_FILE (1 << 20)
#define TY_UNIX_PG_SECS INT64_C(946684800) /* 1970-01-01 to 2000-01-01 */

typedef struct ty_tz_type_s {
  int32_t tt_off;      /* seconds east of UTC */
  bool tt_isdst;
  char tt_abbr[12];
} ty_tz_type_t;

/* One end of a POSIX rule's DST period: a day of the year and a local time. */
typedef struct ty_tz_when_s {
  char w_kind;         /* 'J' Julian day 1..365 (no Feb 29), 'D' day 0..365, 'M' month.week.day */
  int w_mon, w_week, w_day;
  int32_t w_secs;      /* local time of day of the change; may pass 24 h */
} ty_tz_when_t;

typedef struct ty_tz_rule_s {
  ty_tz_type_t r_std, r_dst;
  bool r_has_dst;
  ty_tz_when_t r_start, r_end;  /* DST starts (in standard time), ends (in DST) */
} ty_tz_rule_t;

struct ty_tz_s {
  char tz_key[TY_TZ_NAME_MAX];   /* the spelling it is found under in the cache */
  char tz_name[TY_TZ_NAME_MAX];  /* as SHOW prints it (the file's own spelling) */
  int tz_ntrans;
  int64_t *tz_trans;             /* UTC Unix seconds, ascending */
  uint8_t *tz_trans_type;        /* the local time type from each transition on */
  int tz_ntypes;
  ty_tz_type_t *tz_types;        /* [0] also holds before the first transition */
  bool tz_has_rule;
  ty_tz_rule_t tz_rule;          /* after the last transition */
  struct ty_tz_s *tz_next;       /* the cache list */
};

static pthread_mutex_t ty_tz_mu = PTHREAD_MUTEX_INITIALIZER;
static ty_tz_t *ty_tz_cache;
static _Thread_local const ty_tz_t *ty_tz_cur;

/* ---- POSIX TZ strings ------------------------------------------------------ */

static const char *tz_posix_name(const char *p, char *out, size_t cap)
{
  size_t n = 0;
  if (*p == '<') {
    p++;
    while (*p && *p != '>') {
      if (n + 1 < cap)
        out[n++] = *p;
      p++;
    }
    if (*p != '>' || n == 0)
      return NULL;
    p++;
  } else {
    while (isalpha((unsigned char)*p)) {
      if (n + 1 < cap)
        out[n++] = *p;
      p++;
    }
    /* PostgreSQL allows an empty standard-time name ('+05:30', '-3'),
     * unlike IANA; a DST name needs three letters */
    if (n > 0 && n < 3)
      return NULL;
  }
  out[n] = '\0';
  return p;
}

/* [+-]hh[:mm[:ss]] into seconds; hours up to maxh. */
static const char *tz_posix_secs(const char *p, int maxh, int32_t *out)
{
  int sign = 1;
  if (*p == '+' || *p == '-')
    sign = *p++ == '-' ? -1 : 1;
  if (!isdigit((unsigned char)*p))
    return NULL;
  long v[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) {
    if (k > 0) {
      if (*p != ':')
        break;
      p++;
      if (!isdigit((unsigned char)*p))
        return NULL;
    }
    int nd = 0;
    while (isdigit((unsigned char)*p) && nd < 3) {
      v[k] = v[k] * 10 + (*p++ - '0');
      nd++;
    }
  }
  if (v[0] > maxh || v[1] > 59 || v[2] > 59)
    return NULL;
  *out = (int32_t)(sign * (v[0] * 3600 + v[1] * 60 + v[2]));
  return p;
}

static const char *tz_posix_when(const char *p, ty_tz_when_t *w)
{
  memset(w, 0, sizeof(*w));
  char *end;
  if (*p == 'J') {
    w->w_kind = 'J';
    w->w_day = (int)strtol(p + 1, &end, 10);
    if (end == p + 1 || w->w_day < 1 || w->w_day > 365)
      return NULL;
  } else if (*p == 'M') {
    w->w_kind = 'M';
    w->w_mon = (int)strtol(p + 1, &end, 10);
    if (end == p + 1 || *end != '.' || w->w_mon < 1 || w->w_mon > 12)
      return NULL;
    p = end + 1;
    w->w_week = (int)strtol(p, &end, 10);
    if (end == p || *end != '.' || w->w_week < 1 || w->w_week > 5)
      return NULL;
    p = end + 1;
    w->w_day = (int)strtol(p, &end, 10);
    if (end == p || w->w_day < 0 || w->w_day > 6)
      return NULL;
  } else if (isdigit((unsigned char)*p)) {
    w->w_kind = 'D';
    w->w_day = (int)strtol(p, &end, 10);
    if (w->w_day > 365)
      return NULL;
  } else {
    return NULL;
  }
  p = end;
  w->w_secs = 7200; /* 02:00 local unless said */
  if (*p == '/') {
    p = tz_posix_secs(p + 1, 167, &w->w_secs);
    if (!p)
      return NULL;
  }
  return p;
}

/* "STDoffset[DST[offset][,start[/time],end[/time]]]"; the offsets count
 * west of UTC (EST5 is UTC-5). DST without a rule takes the US one, as
 * PostgreSQL's tzparse does. */
static bool tz_posix_parse(const char *s, ty_tz_rule_t *r)
{
  memset(r, 0, sizeof(*r));
  const char *p = tz_posix_name(s, r->r_std.tt_abbr, sizeof(r->r_std.tt_abbr));
  int32_t west;
  if (!p || !(p = tz_posix_secs(p, 24, &west)))
    return false;
  r->r_std.tt_off = -west;
  if (*p == '\0')
    return true;
  if (!(p = tz_posix_name(p, r->r_dst.tt_abbr, sizeof(r->r_dst.tt_abbr))) || !r->r_dst.tt_abbr[0])
    return false;
  r->r_has_dst = true;
  r->r_dst.tt_isdst = true;
  r->r_dst.tt_off = r->r_std.tt_off + 3600;
  if (*p && *p != ',') {
    if (!(p = tz_posix_secs(p, 24, &west)))
      return false;
    r->r_dst.tt_off = -west;
  }
  if (*p == '\0')
    p = ",M3.2.0,M11.1.0";
  if (*p++ != ',' || !(p = tz_posix_when(p, &r->r_start)) || *p++ != ',' ||
      !(p = tz_posix_when(p, &r->r_end)))
    return false;
  return *p == '\0';
}

static int64_t tz_floor_div(int64_t a, int64_t b)
{
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* The day (since 2000-01-01) a rule names in year y. */
static int64_t tz_when_day(const ty_tz_when_t *w, int64_t y)
{
  int64_t jan1 = ty_days_from_civil(y, 1, 1);
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (w->w_kind == 'J')
    return jan1 + w->w_day - 1 + (leap && w->w_day >= 60);
  if (w->w_kind == 'D')
    return jan1 + w->w_day;
  int64_t first = ty_days_from_civil(y, w->w_mon, 1);
  int wd = (int)(((first % 7) + 7 + 6) % 7); /* 2000-01-01 was a Saturday (6) */
  int64_t d = first + (w->w_day - wd + 7) % 7 + (int64_t)(w->w_week - 1) * 7;
  while (w->w_week == 5 && !ty_valid_ymd(y, w->w_mon, (int)(d - first + 1)))
    d -= 7;
  return d;
}

/* UTC Unix seconds of the rule's DST start and end in year y. */
static void tz_rule_year(const ty_tz_rule_t *r, int64_t y, int64_t *start, int64_t *end)
{
  *start = (tz_when_day(&r->r_start, y) * 86400 + TY_UNIX_PG_SECS) + r->r_start.w_secs -
           r->r_std.tt_off;
  *end = (tz_when_day(&r->r_end, y) * 86400 + TY_UNIX_PG_SECS) + r->r_end.w_secs - r->r_dst.tt_off;
}

static int64_t tz_year_of(int64_t unix_secs)
{
  int64_t y;
  int m, d;
  ty_civil_from_days(tz_floor_div(unix_secs - TY_UNIX_PG_SECS, 86400), &y, &m, &d);
  return y;
}

static const ty_tz_type_t *tz_rule_type(const ty_tz_rule_t *r, int64_t t)
{
  if (!r->r_has_dst)
    return &r->r_std;
  int64_t s, e;
  tz_rule_year(r, tz_year_of(t + r->r_std.tt_off), &s, &e);
  bool dst = s < e ? (t >= s && t < e) : !(t >= e && t < s);
  return dst ? &r->r_dst : &r->r_std;
}

/* ---- TZif ------------------------------------------------------------------- */

static uint32_t tz_be32(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t tz_be64(const uint8_t *p)
{
  return (int64_t)((uint64_t)tz_be32(p) << 32 | tz_be32(p + 4));
}

typedef struct tz_hdr_s {
  uint32_t h_isut, h_isstd, h_leap, h_time, h_type, h_char;
} tz_hdr_t;

static bool tz_read_hdr(const uint8_t *b, size_t len, size_t at, tz_hdr_t *h, int *version)
{
  if (at + 44 > len || memcmp(b + at, "TZif", 4) != 0)
    return false;
  *version = b[at + 4] == 0 ? 1 : b[at + 4] - '0';
  const uint8_t *c = b + at + 20;
  h->h_isut = tz_be32(c);
  h->h_isstd = tz_be32(c + 4);
  h->h_leap = tz_be32(c + 8);
  h->h_time = tz_be32(c + 12);
  h->h_type = tz_be32(c + 16);
  h->h_char = tz_be32(c + 20);
  return h->h_type >= 1 && h->h_type <= 256 && h->h_time <= 100000 && h->h_char <= 4096 &&
         h->h_leap <= 10000 && (h->h_isut == 0 || h->h_isut == h->h_type) &&
         (h->h_isstd == 0 || h->h_isstd == h->h_type);
}

static size_t tz_block_size(const tz_hdr_t *h, int tsize)
{
  return (size_t)h->h_time * tsize + h->h_time + h->h_type * 6 + h->h_char +
         (size_t)h->h_leap * (tsize + 4) + h->h_isstd + h->h_isut;
}

int ty_tz_parse_tzif(const uint8_t *b, size_t len, const char *name, ty_tz_t **out, err_t *e)
{
  tz_hdr_t h;
  int version;
  if (!tz_read_hdr(b, len, 0, &h, &version))
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "time zone file for \"%s\" is malformed", name);
  size_t at = 44;
  int tsize = 4;
  if (version >= 2) {
    /* skip the 32-bit block: the second header and 64-bit data follow */
    at += tz_block_size(&h, 4);
    if (!tz_read_hdr(b, len, at, &h, &version))
      return err_set(e, SQLSTATE_INVALID_PARAMETER, "time zone file for \"%s\" is malformed", name);
    at += 44;
    tsize = 8;
  }
  if (at + tz_block_size(&h, tsize) > len)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "time zone file for \"%s\" is truncated", name);
  if (h.h_leap)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "time zone \"%s\" appears to use leap seconds",
                   name);
  ty_tz_t *z = calloc(1, sizeof(*z) + h.h_time * 9 + h.h_type * sizeof(ty_tz_type_t));
  if (!z)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  snprintf(z->tz_name, sizeof(z->tz_name), "%s", name);
  /* one allocation: the int64 transitions first (aligned after the
   * struct), then the types, then the type index of each transition */
  z->tz_trans = (int64_t *)(z + 1);
  z->tz_types = (ty_tz_type_t *)(z->tz_trans + h.h_time);
  z->tz_trans_type = (uint8_t *)(z->tz_types + h.h_type);
  z->tz_ntrans = (int)h.h_time;
  z->tz_ntypes = (int)h.h_type;
  const uint8_t *p = b + at;
  for (uint32_t i = 0; i < h.h_time; i++, p += tsize)
    z->tz_trans[i] = tsize == 8 ? tz_be64(p) : (int64_t)(int32_t)tz_be32(p);
  for (uint32_t i = 0; i < h.h_time; i++) {
    z->tz_trans_type[i] = *p++;
    if (z->tz_trans_type[i] >= h.h_type || (i > 0 && z->tz_trans[i] <= z->tz_trans[i - 1])) {
      free(z);
      return err_set(e, SQLSTATE_INVALID_PARAMETER, "time zone file for \"%s\" is malformed", name);
    }
  }
  const uint8_t *chars = p + h.h_type * 6;
  for (uint32_t i = 0; i < h.h_type; i++, p += 6) {
    ty_tz_type_t *t = &z->tz_types[i];
    t->tt_off = (int32_t)tz_be32(p);
    t->tt_isdst = p[4] != 0;
    uint8_t ai = p[5];
    if (ai < h.h_char)
      snprintf(t->tt_abbr, sizeof(t->tt_abbr), "%.*s", (int)strnlen((const char *)chars + ai,
                                                                       h.h_char - ai),
               (const char *)chars + ai);
  }
  at += tz_block_size(&h, tsize);
  /* v2+ footer: "\n<POSIX TZ>\n"; empty means no rule */
  if (version >= 2 && at < len && b[at] == '\n') {
    const uint8_t *nl = memchr(b + at + 1, '\n', len - at - 1);
    if (nl && nl > b + at + 1) {
      char rule[128];
      size_t rl = (size_t)(nl - (b + at + 1));
      if (rl < sizeof(rule)) {
        memcpy(rule, b + at + 1, rl);
        rule[rl] = '\0';
        z->tz_has_rule = tz_posix_parse(rule, &z->tz_rule);
      }
    }
  }
  *out = z;
  return CZ_OK;
}

/* Reads dir/rel, matching each path component case-insensitively when the
 * exact spelling is not there (PostgreSQL accepts 'europe/berlin'); the
 * name as found goes to canon. */
static uint8_t *tz_read_file(const char *rel, size_t *len, char *canon, size_t ccap)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", TY_TZ_DIR, rel);
  snprintf(canon, ccap, "%s", rel);
  FILE *f = fopen(path, "rb");
  if (!f) {
    /* component by component, case-insensitively */
    char dir[512], name[TY_TZ_NAME_MAX], comp[TY_TZ_NAME_MAX];
    snprintf(dir, sizeof(dir), "%s", TY_TZ_DIR);
    canon[0] = '\0';
    const char *p = rel;
    while (*p) {
      const char *sl = strchr(p, '/');
      size_t n = sl ? (size_t)(sl - p) : strlen(p);
      if (n == 0 || n >= sizeof(comp))
        return NULL;
      memcpy(comp, p, n);
      comp[n] = '\0';
      DIR *d = opendir(dir);
      if (!d)
        return NULL;
      struct dirent *de;
      name[0] = '\0';
      while ((de = readdir(d)) != NULL)
        if (strcasecmp(de->d_name, comp) == 0) { /* as long as comp: it fits */
          memcpy(name, de->d_name, n + 1);
          break;
        }
      closedir(d);
      if (!name[0])
        return NULL;
      size_t dl = strlen(dir), cl = strlen(canon);
      if (dl + 1 + strlen(name) >= sizeof(dir) || cl + 1 + strlen(name) >= ccap)
        return NULL;
      snprintf(dir + dl, sizeof(dir) - dl, "/%s", name);
      snprintf(canon + cl, ccap - cl, "%s%s", cl ? "/" : "", name);
      p = sl ? sl + 1 : p + n;
    }
    f = fopen(dir, "rb");
    if (!f)
      return NULL;
  }
  uint8_t *buf = malloc(TY_TZ_MAX_FILE);
  size_t n = buf ? fread(buf, 1, TY_TZ_MAX_FILE, f) : 0;
  fclose(f);
  if (buf && (n == 0 || n == TY_TZ_MAX_FILE)) { /* a directory reads 0 bytes */
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

/* A name that may be looked up as a file: no absolute path, no "..", only
 * the characters zone names use. */
static bool tz_file_name_ok(const char *name)
{
  if (!name[0] || name[0] == '/' || strstr(name, "..") || strlen(name) >= TY_TZ_NAME_MAX - 1)
    return false;
  for (const char *p = name; *p; p++)
    if (!isalnum((unsigned char)*p) && *p != '/' && *p != '_' && *p != '-' && *p != '+')
      return false;
  return true;
}

static ty_tz_t *tz_cache_find(const char *name)
{
  for (ty_tz_t *z = ty_tz_cache; z; z = z->tz_next)
    if (strcmp(z->tz_key, name) == 0)
      return z;
  return NULL;
}

static const ty_tz_t *tz_cache_add(ty_tz_t *z)
{
  snprintf(z->tz_key, sizeof(z->tz_key), "%s", z->tz_name);
  ty_tz_t *old = tz_cache_find(z->tz_key);
  if (old) { /* the canonical name was loaded under another spelling */
    free(z);
    return old;
  }
  z->tz_next = ty_tz_cache;
  ty_tz_cache = z;
  return z;
}

static ty_tz_t *tz_from_rule(const char *name, const ty_tz_rule_t *r)
{
  ty_tz_t *z = calloc(1, sizeof(*z));
  if (!z)
    return NULL;
  snprintf(z->tz_name, sizeof(z->tz_name), "%s", name);
  z->tz_ntypes = 1;
  z->tz_has_rule = true;
  z->tz_rule = *r;
  z->tz_types = &z->tz_rule.r_std;
  return z;
}

const ty_tz_t *ty_tz_find(const char *name)
{
  if (!name || !name[0] || strlen(name) >= TY_TZ_NAME_MAX - 1)
    return NULL;
  pthread_mutex_lock(&ty_tz_mu);
  const ty_tz_t *z = tz_cache_find(name);
  if (!z) {
    char canon[TY_TZ_NAME_MAX];
    size_t len = 0;
    uint8_t *buf = tz_file_name_ok(name) ? tz_read_file(name, &len, canon, sizeof(canon)) : NULL;
    ty_tz_t *nz = NULL;
    if (buf) {
      err_t e;
      if (ty_tz_parse_tzif(buf, len, canon, &nz, &e) != CZ_OK)
        nz = NULL;
      free(buf);
    }
    ty_tz_rule_t r;
    if (!nz && name[0] != ':' && tz_posix_parse(name, &r))
      nz = tz_from_rule(name, &r);
    if (!nz && (strcasecmp(name, "UTC") == 0 || strcasecmp(name, "GMT") == 0)) {
      /* without the database (no tzdata) UTC still works */
      memset(&r, 0, sizeof(r));
      snprintf(r.r_std.tt_abbr, sizeof(r.r_std.tt_abbr), "UTC");
      nz = tz_from_rule("UTC", &r);
    }
    if (nz) {
      z = tz_cache_add(nz);
      /* remember the spelling asked for too, so it is not read again;
       * SHOW prints the canonical name */
      if (strcmp(z->tz_key, name) != 0) {
        ty_tz_t *alias = malloc(sizeof(*alias));
        if (alias) {
          *alias = *z;
          if (z->tz_types == &z->tz_rule.r_std)
            alias->tz_types = &alias->tz_rule.r_std;
          snprintf(alias->tz_key, sizeof(alias->tz_key), "%s", name);
          alias->tz_next = ty_tz_cache;
          ty_tz_cache = alias;
        }
      }
    }
  }
  pthread_mutex_unlock(&ty_tz_mu);
  return z;
}

const ty_tz_t *ty_tz_fixed(int32_t east)
{
  /* PostgreSQL's pg_tzset_offset name: <+05:30>-05:30 (POSIX signs) */
  int32_t a = east < 0 ? -east : east;
  char off[24], name[TY_TZ_NAME_MAX];
  int n = snprintf(off, sizeof(off), "%02d", (int)(a / 3600));
  if (a % 3600) {
    n += snprintf(off + n, sizeof(off) - (size_t)n, ":%02d", (int)(a / 60 % 60));
    if (a % 60)
      snprintf(off + n, sizeof(off) - (size_t)n, ":%02d", (int)(a % 60));
  }
  snprintf(name, sizeof(name), east < 0 ? "<-%s>+%s" : "<+%s>-%s", off, off);
  return ty_tz_find(name);
}

const char *ty_tz_name(const ty_tz_t *z)
{
  return z ? z->tz_name : "UTC";
}

/* ---- offsets ---------------------------------------------------------------- */

static const ty_tz_type_t *tz_type_at(const ty_tz_t *z, int64_t t)
{
  if (z->tz_ntrans == 0)
    return z->tz_has_rule ? tz_rule_type(&z->tz_rule, t) : &z->tz_types[0];
  if (t < z->tz_trans[0])
    return &z->tz_types[0];
  if (t >= z->tz_trans[z->tz_ntrans - 1] && z->tz_has_rule)
    return tz_rule_type(&z->tz_rule, t);
  int lo = 0, hi = z->tz_ntrans - 1; /* last transition <= t */
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (z->tz_trans[mid] <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  return &z->tz_types[z->tz_trans_type[lo]];
}

int32_t ty_tz_offset_at(const ty_tz_t *z, int64_t unix_secs, const char **abbr, bool *isdst)
{
  if (!z) {
    if (abbr)
      *abbr = "UTC";
    if (isdst)
      *isdst = false;
    return 0;
  }
  const ty_tz_type_t *t = tz_type_at(z, unix_secs);
  if (abbr)
    *abbr = t->tt_abbr;
  if (isdst)
    *isdst = t->tt_isdst;
  return t->tt_off;
}

/* The first change of local time type after t; false when there is none. */
static bool tz_next_change(const ty_tz_t *z, int64_t t, int64_t *at)
{
  int lo = 0, hi = z->tz_ntrans; /* first transition > t */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (z->tz_trans[mid] > t)
      hi = mid;
    else
      lo = mid + 1;
  }
  if (lo < z->tz_ntrans) {
    *at = z->tz_trans[lo];
    return true;
  }
  if (!z->tz_has_rule || !z->tz_rule.r_has_dst)
    return false;
  int64_t y = tz_year_of(t), best = INT64_MAX;
  for (int64_t k = y - 1; k <= y + 1; k++) {
    int64_t s, e;
    tz_rule_year(&z->tz_rule, k, &s, &e);
    if (s > t && s < best)
      best = s;
    if (e > t && e < best)
      best = e;
  }
  *at = best;
  return best != INT64_MAX;
}

int32_t ty_tz_offset_local(const ty_tz_t *z, int64_t local_secs)
{
  if (!z)
    return 0;
  /* PostgreSQL's DetermineTimeZoneOffset: find the first change after a
   * day before, read the local time with the offsets on both sides of it */
  int64_t prev = local_secs - 86400, b;
  if (!tz_next_change(z, prev, &b))
    return ty_tz_offset_at(z, prev, NULL, NULL);
  int32_t before = ty_tz_offset_at(z, b - 1, NULL, NULL);
  int32_t after = ty_tz_offset_at(z, b, NULL, NULL);
  int64_t bt = local_secs - before, at = local_secs - after;
  if (bt < b && at < b)
    return before;
  if (bt >= b && at >= b)
    return after;
  return bt > at ? before : after;
}

/* ---- the current thread's session zone ------------------------------------- */

void ty_tz_use(const ty_tz_t *z)
{
  ty_tz_cur = z;
}

const ty_tz_t *ty_tz_current(void)
{
  return ty_tz_cur;
}

/* ---- µs timestamps ------------------------------------------------------------ */

int32_t ty_tz_offset_us(const ty_tz_t *z, int64_t utc_us)
{
  return ty_tz_offset_at(z, tz_floor_div(utc_us, 1000000) + TY_UNIX_PG_SECS, NULL, NULL);
}

int32_t ty_tz_local_offset_us(const ty_tz_t *z, int64_t local_us)
{
  return ty_tz_offset_local(z, tz_floor_div(local_us, 1000000) + TY_UNIX_PG_SECS);
}

/* ---- the system's zone ---------------------------------------------------------- */

const ty_tz_t *ty_tz_system(void)
{
  /* Debian names it in /etc/timezone; elsewhere /etc/localtime links into
   * the database. PostgreSQL's initdb looks the same way. */
  char name[TY_TZ_NAME_MAX] = "";
  FILE *f = fopen("/etc/timezone", "r");
  if (f) {
    if (fgets(name, sizeof(name), f)) {
      size_t n = strlen(name);
      while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == ' '))
        name[--n] = '\0';
    }
    fclose(f);
  }
  const ty_tz_t *z = name[0] ? ty_tz_find(name) : NULL;
  if (!z) {
    char link[512];
    ssize_t n = readlink("/etc/localtime", link, sizeof(link) - 1);
    if (n > 0) {
      link[n] = '\0';
      const char *p = strstr(link, "zoneinfo/");
      if (p)
        z = ty_tz_find(p + 9);
    }
  }
  return z ? z : ty_tz_find("UTC");
}

/* ---- the names of the database ----------------------------------------------------- */

static void tz_walk(const char *dir, const char *prefix, int depth,
                    void (*fn)(void *ctx, const char *name), void *ctx)
{
  DIR *d = opendir(dir);
  if (!d || depth > 4) {
    if (d)
      closedir(d);
    return;
  }
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    const char *n = de->d_name;
    /* dot files; PostgreSQL's exclusions; the leap-second and duplicate trees */
    if (n[0] == '.' || strcmp(n, "posixrules") == 0 || strcmp(n, "Factory") == 0 ||
        strcmp(n, "localtime") == 0 || strcmp(n, "right") == 0 || strcmp(n, "posix") == 0)
      continue;
    char path[768], name[TY_TZ_NAME_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, n);
    if (snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? "/" : "", n) >= (int)sizeof(name))
      continue;
    DIR *sub = opendir(path);
    if (sub) {
      closedir(sub);
      tz_walk(path, name, depth + 1, fn, ctx);
      continue;
    }
    FILE *f = fopen(path, "rb");
    char magic[4] = {0};
    bool tzif = f && fread(magic, 1, 4, f) == 4 && memcmp(magic, "TZif", 4) == 0;
    if (f)
      fclose(f);
    if (tzif && ty_tz_find(name))
      fn(ctx, name);
  }
  closedir(d);
}

void ty_tz_each_name(void (*fn)(void *ctx, const char *name), void *ctx)
{
  tz_walk(TY_TZ_DIR, "", 0, fn, ctx);
}
