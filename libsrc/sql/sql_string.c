/* sql_string — the text of literals and names: UTF-8 checks, quote
 * doubling, E'' escapes and identifier folding.
 *
 * Design notes: sql_parse rejects text that is not valid UTF-8 (or holds a
 * NUL byte) before scanning, so everything here may assume valid input;
 * only E'' escapes can produce new bytes, and their result is checked
 * again. Strings and names are NUL-terminated copies in the parse arena.
 */
#include <string.h>

#include "sql/sql_int.h"

/* Length of the UTF-8 sequence at s (at most n bytes), or 0 when invalid:
 * overlong forms, surrogates, code points past U+10FFFF and NUL. */
static size_t sql_utf8_seq(const unsigned char *s, size_t n)
{
  unsigned c = s[0];
  if (c == 0)
    return 0;
  if (c < 0x80)
    return 1;
  size_t len;
  unsigned lo = 0x80, hi = 0xbf; /* range of the second byte */
  if (c >= 0xc2 && c <= 0xdf)
    len = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0)
      lo = 0xa0; /* overlong */
    else if (c == 0xed)
      hi = 0x9f; /* surrogates */
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0)
      lo = 0x90; /* overlong */
    else if (c == 0xf4)
      hi = 0x8f; /* past U+10FFFF */
  } else
    return 0;
  if (n < len || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i < len; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  return len;
}

size_t sql_utf8_check(const char *s, size_t len)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  while (i < len) {
    if (u[i] >= 0x01 && u[i] < 0x80) {
      i++;
      continue;
    }
    size_t n = sql_utf8_seq(u + i, len - i);
    if (n == 0)
      return i;
    i += n;
  }
  return len;
}

int sql_utf8_chars(const char *s, size_t len)
{
  int n = 0;
  for (size_t i = 0; i < len; i++)
    n += ((unsigned char)s[i] & 0xc0) != 0x80;
  return n;
}

size_t sql_utf8_prefix(const char *s, size_t len, size_t max)
{
  if (len <= max)
    return len;
  while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
    max--;
  return max;
}

char *sql_string_dequote(arena_t *a, const char *s, size_t len, char quote)
{
  char *out = arena_alloc(a, len + 1);
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    out[n++] = s[i];
    if (s[i] == quote)
      i++; /* the scanner's pattern guarantees quotes come in pairs */
  }
  out[n] = 0;
  return out;
}

/* Decodes the escape at s[*i] (just past the backslash) into out; returns
 * the bytes written or -1 for a bad \u or \U escape. */
static int sql_unescape_one(const char *s, size_t len, size_t *i, char *out)
{
  char c = s[*i];
  (*i)++;
  switch (c) {
  case 'b': *out = '\b'; return 1;
  case 'f': *out = '\f'; return 1;
  case 'n': *out = '\n'; return 1;
  case 'r': *out = '\r'; return 1;
  case 't': *out = '\t'; return 1;
  case 'x': {
    int v = 0, nd = 0, d;
    while (nd < 2 && *i < len && (d = hex_digit_value(s[*i])) >= 0) {
      v = v * 16 + d;
      nd++;
      (*i)++;
    }
    if (nd == 0) {
      *out = 'x'; /* PostgreSQL: \x without hex digits is just x */
      return 1;
    }
    *out = (char)v;
    return 1;
  }
  case 'u':
  case 'U': {
    int want = c == 'u' ? 4 : 8, d;
    uint32_t cp = 0;
    for (int k = 0; k < want; k++, (*i)++) {
      if (*i >= len || (d = hex_digit_value(s[*i])) < 0)
        return -1;
      cp = cp * 16 + (uint32_t)d;
    }
    if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return -1;
    return (int)utf8_put(out, cp);
  }
  default:
    if (c >= '0' && c <= '7') {
      int v = c - '0';
      for (int k = 0; k < 2 && *i < len && s[*i] >= '0' && s[*i] <= '7'; k++, (*i)++)
        v = v * 8 + (s[*i] - '0');
      *out = (char)v;
      return 1;
    }
    *out = c; /* \\, \', and any other character stand for themselves */
    return 1;
  }
}

char *sql_string_unescape(sql_pstate_t *ps, const char *s, size_t len, int pos)
{
  /* no escape grows: \uXXXX (6 bytes) gives at most 3, \UXXXXXXXX at most 4 */
  char *out = arena_alloc(ps->ps_arena, len + 1);
  size_t n = 0;
  for (size_t i = 0; i < len;) {
    if (s[i] == '\'') {
      out[n++] = '\'';
      i += 2;
    } else if (s[i] == '\\') {
      i++;
      int w = sql_unescape_one(s, len, &i, out + n);
      if (w < 0) {
        sql_error_at(ps, SQLSTATE_INVALID_ESCAPE_SEQUENCE, pos, "invalid Unicode escape value");
        return NULL;
      }
      n += (size_t)w;
    } else
      out[n++] = s[i++];
  }
  out[n] = 0;
  size_t bad = sql_utf8_check(out, n);
  if (bad < n) {
    sql_error_at(ps, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE, pos,
                 "invalid byte sequence for encoding \"UTF8\": 0x%02x",
                 (unsigned char)out[bad]);
    return NULL;
  }
  return out;
}

char *sql_ident_fold(sql_pstate_t *ps, const char *s, size_t len, int pos, bool quoted)
{
  char *out;
  if (quoted) {
    out = sql_string_dequote(ps->ps_arena, s, len, '"');
    if (!out[0]) {
      sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "zero-length delimited identifier");
      return NULL;
    }
  } else {
    out = arena_alloc(ps->ps_arena, len + 1);
    for (size_t i = 0; i < len; i++)
      out[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 'a' - 'A') : s[i];
    out[len] = 0;
  }
  if (strlen(out) > SQL_NAME_MAX) {
    sql_error_at(ps, SQLSTATE_NAME_TOO_LONG, pos,
                 "identifier \"%.*s…\" is too long (more than %d bytes)",
                 (int)sql_utf8_prefix(out, strlen(out), 20), out, SQL_NAME_MAX);
    return NULL;
  }
  return out;
}
