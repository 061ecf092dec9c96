/* ini — Virtuoso-style configuration files: [Section] and Key = Value.
 *
 * Design notes: the whole file is parsed up front into a flat array of
 * (section, key, value) entries whose strings live in the ini's arena, so an
 * ini_t is freed in one call and lookups hand out pointers that live as long
 * as it. Lookups scan from the end, which makes a later duplicate win
 * without a separate de-duplication pass; configuration files have tens of
 * entries, so a linear scan is cheaper than building a hash table.
 *
 * Grammar, per line after trimming blanks: empty; a comment starting with
 * ';' or '#'; `[name]` (optionally followed by a comment); or `key = value`
 * with a non-empty key inside a section. Anything else is an F0000 error
 * naming the line, because a silently ignored typo in a configuration file
 * is worse than a server that refuses to start.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

typedef struct ini_entry_s {
  const char *ie_section;
  const char *ie_key;
  const char *ie_value;
} ini_entry_t;

struct ini_s {
  arena_t *in_arena; /* every string and the entry array */
  ini_entry_t *in_entries;
  size_t in_n;
  size_t in_cap;
};

static bool ini_blank(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Copies [s, e) with blanks trimmed from both ends into the arena. */
static char *ini_trimmed(arena_t *a, const char *s, const char *e)
{
  char *r;
  while (s < e && ini_blank(*s))
    s++;
  while (e > s && ini_blank(e[-1]))
    e--;
  r = arena_alloc(a, (size_t)(e - s) + 1);
  memcpy(r, s, (size_t)(e - s));
  r[e - s] = '\0';
  return r;
}

static void ini_add(ini_t *ini, const char *section, const char *key, const char *value)
{
  if (ini->in_n == ini->in_cap) {
    size_t cap = ini->in_cap ? ini->in_cap * 2 : 32;
    ini_entry_t *n = arena_alloc(ini->in_arena, cap * sizeof *n);
    if (ini->in_n)
      memcpy(n, ini->in_entries, ini->in_n * sizeof *n);
    ini->in_entries = n;
    ini->in_cap = cap;
  }
  ini->in_entries[ini->in_n++] = (ini_entry_t){section, key, value};
}

/* Parses one line [s, e), already known not to be blank or a comment. */
static int ini_parse_line(ini_t *ini, const char *s, const char *e, int lineno,
                          const char **section, err_t *err)
{
  const char *eq;
  const char *key;

  if (*s == '[') {
    const char *close = memchr(s, ']', (size_t)(e - s));
    const char *rest;
    if (!close)
      return err_set(err, SQLSTATE_CONFIG, "line %d: section header without closing ']'", lineno);
    *section = ini_trimmed(ini->in_arena, s + 1, close);
    if (!**section)
      return err_set(err, SQLSTATE_CONFIG, "line %d: empty section name", lineno);
    for (rest = close + 1; rest < e && ini_blank(*rest); rest++)
      ;
    if (rest < e && *rest != ';' && *rest != '#')
      return err_set(err, SQLSTATE_CONFIG, "line %d: text after section header", lineno);
    return CZ_OK;
  }
  eq = memchr(s, '=', (size_t)(e - s));
  if (!eq)
    return err_set(err, SQLSTATE_CONFIG, "line %d: expected 'Key = Value' or '[Section]'", lineno);
  key = ini_trimmed(ini->in_arena, s, eq);
  if (!*key)
    return err_set(err, SQLSTATE_CONFIG, "line %d: missing key before '='", lineno);
  if (!*section)
    return err_set(err, SQLSTATE_CONFIG, "line %d: key '%s' outside any [Section]", lineno, key);
  ini_add(ini, *section, key, ini_trimmed(ini->in_arena, eq + 1, e));
  return CZ_OK;
}

ini_t *ini_parse(const char *text, size_t len, err_t *e)
{
  ini_t *ini = calloc(1, sizeof *ini);
  const char *p = text, *end = text + len;
  const char *section = NULL;
  int lineno = 0;

  if (!ini) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "ini: out of memory");
    return NULL;
  }
  ini->in_arena = arena_create(NULL, "ini");
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    const char *s = p;
    lineno++;
    p = nl ? nl + 1 : end;
    while (s < le && ini_blank(*s))
      s++;
    if (s == le || *s == ';' || *s == '#')
      continue;
    if (memchr(s, '\0', (size_t)(le - s))) {
      err_set(e, SQLSTATE_CONFIG, "line %d: NUL byte", lineno);
      ini_free(ini);
      return NULL;
    }
    if (ini_parse_line(ini, s, le, lineno, &section, e) != CZ_OK) {
      ini_free(ini);
      return NULL;
    }
  }
  return ini;
}

ini_t *ini_load(const char *path, err_t *e)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t len = 0, cap = 0, n;
  ini_t *ini;

  if (!f) {
    err_set(e, SQLSTATE_IO_ERROR, "open %s: %s", path, strerror(errno));
    return NULL;
  }
  do {
    if (len == cap) {
      char *nb;
      cap = cap ? cap * 2 : 8192;
      nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        err_set(e, SQLSTATE_OUT_OF_MEMORY, "read %s: out of memory", path);
        return NULL;
      }
      buf = nb;
    }
    n = fread(buf + len, 1, cap - len, f);
    len += n;
  } while (n > 0);
  if (ferror(f)) {
    err_set(e, SQLSTATE_IO_ERROR, "read %s: %s", path, strerror(errno));
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  ini = ini_parse(buf, len, e);
  free(buf);
  if (!ini)
    err_prefix(e, "%s", path);
  return ini;
}

void ini_free(ini_t *ini)
{
  if (!ini)
    return;
  arena_destroy(ini->in_arena);
  free(ini);
}

const char *ini_get(const ini_t *ini, const char *section, const char *key)
{
  for (size_t i = ini->in_n; i-- > 0;) {
    const ini_entry_t *en = &ini->in_entries[i];
    if (strcasecmp(en->ie_key, key) == 0 && strcasecmp(en->ie_section, section) == 0)
      return en->ie_value;
  }
  return NULL;
}

/* Parses a decimal integer at s; *end is set after it. Returns false on no
 * digits or overflow. */
static bool ini_parse_i64(const char *s, int64_t *out, const char **end)
{
  char *e;
  long long v;
  errno = 0;
  v = strtoll(s, &e, 10);
  if (e == s || errno == ERANGE)
    return false;
  *out = v;
  *end = e;
  return true;
}

static const char *ini_skip_blanks(const char *s)
{
  while (ini_blank(*s))
    s++;
  return s;
}

int ini_get_int(const ini_t *ini, const char *section, const char *key,
                int64_t dflt, int64_t *out, err_t *e)
{
  const char *v = ini_get(ini, section, key);
  const char *end;
  int64_t n;

  if (!v) {
    *out = dflt;
    return CZ_OK;
  }
  if (!ini_parse_i64(v, &n, &end) || *ini_skip_blanks(end))
    return err_set(e, SQLSTATE_CONFIG, "[%s] %s: '%s' is not an integer", section, key, v);
  *out = n;
  return CZ_OK;
}

/* The multiplier of a size suffix (K, KB, M, MB, G, GB, T, TB, any case),
 * 1 for none, 0 when the suffix is not one of them. */
static int64_t ini_size_unit(const char *s)
{
  static const char units[] = "KMGT";
  const char *u;
  int64_t mult = 1;

  s = ini_skip_blanks(s);
  if (!*s)
    return 1;
  u = strchr(units, toupper((unsigned char)*s));
  if (!u)
    return 0;
  for (const char *k = units; k <= u; k++)
    mult *= 1024;
  s++;
  if (toupper((unsigned char)*s) == 'B')
    s++;
  return *ini_skip_blanks(s) ? 0 : mult;
}

int ini_get_size(const ini_t *ini, const char *section, const char *key,
                 int64_t dflt, int64_t *out, err_t *e)
{
  const char *v = ini_get(ini, section, key);
  const char *end;
  int64_t n, mult;

  if (!v) {
    *out = dflt;
    return CZ_OK;
  }
  if (!ini_parse_i64(v, &n, &end) || n < 0 || (mult = ini_size_unit(end)) == 0)
    return err_set(e, SQLSTATE_CONFIG,
                   "[%s] %s: '%s' is not a size (a number with an optional K, M or G suffix)",
                   section, key, v);
  if (n > INT64_MAX / mult)
    return err_set(e, SQLSTATE_CONFIG, "[%s] %s: '%s' is too large", section, key, v);
  *out = n * mult;
  return CZ_OK;
}

int ini_get_bool(const ini_t *ini, const char *section, const char *key,
                 bool dflt, bool *out, err_t *e)
{
  static const char *const yes[] = {"1", "yes", "on", "true"};
  static const char *const no[] = {"0", "no", "off", "false"};
  const char *v = ini_get(ini, section, key);

  if (!v) {
    *out = dflt;
    return CZ_OK;
  }
  for (size_t i = 0; i < CZ_ARRAY_LEN(yes); i++) {
    if (strcasecmp(v, yes[i]) == 0) {
      *out = true;
      return CZ_OK;
    }
    if (strcasecmp(v, no[i]) == 0) {
      *out = false;
      return CZ_OK;
    }
  }
  return err_set(e, SQLSTATE_CONFIG, "[%s] %s: '%s' is not a boolean (yes/no, on/off, true/false, 1/0)",
                 section, key, v);
}
