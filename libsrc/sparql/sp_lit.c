/* sp_lit — lexical forms: string escapes, \u and \U escapes in strings and
 * IRIs, the character classes of names (PN_CHARS_BASE, PN_CHARS), the
 * escapes of prefixed names' local parts, UTF-8.
 *
 * Design notes: SPARQL 1.1 §19.2 describes \u escapes as processed before
 * parsing, anywhere in the text; like Jena, Oxigraph and SPARQL 1.2 we
 * decode them only inside strings and IRIs (the W3C tests check exactly
 * this: an escape decoded to '\' does not start another escape, and an
 * escaped surrogate is an error). A decoded character is never re-scanned,
 * so `"\u0022"` is a string holding a quote.
 */
#include <stdlib.h>
#include <string.h>

#include "sparql/sparql_int.h"

/* Decodes one UTF-8 sequence at s (n bytes left); returns its length, or 0
 * when it is not well-formed (overlong, surrogate, past U+10FFFF). */
static int sp_utf8_get(const unsigned char *s, size_t n, uint32_t *cp)
{
  if (s[0] < 0x80) {
    *cp = s[0];
    return 1;
  }
  int len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
  if (len == 0 || (size_t)len > n)
    return 0;
  uint32_t v = s[0] & (0x7F >> len);
  for (int i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    v = (v << 6) | (s[i] & 0x3F);
  }
  static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
  if (v < min[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
    return 0;
  *cp = v;
  return len;
}

size_t sp_utf8_invalid_at(const char *s, size_t len)
{
  size_t i = 0;
  uint32_t cp;
  while (i < len) {
    int n = sp_utf8_get((const unsigned char *)s + i, len - i, &cp);
    if (n == 0)
      return i;
    i += (size_t)n;
  }
  return (size_t)-1;
}

/* \uXXXX or \UXXXXXXXX at s (s[0] == '\\'); the code point, or -1. */
static long sp_hex_escape(const char *s, size_t avail, int *used)
{
  int n = s[1] == 'u' ? 4 : 8;
  if (avail < (size_t)n + 2)
    return -1;
  long v = 0;
  for (int i = 0; i < n; i++) {
    int d = hex_digit_value(s[2 + i]);
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  *used = n + 2;
  return v;
}

static bool sp_cp_ok(sp_pstate_t *ps, long cp, int pos)
{
  if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    sp_fail(ps, pos, "escape \\u%04lX is not a Unicode character (a surrogate or past U+10FFFF)",
            cp < 0 ? 0 : (unsigned long)cp);
    return false;
  }
  return true;
}

const char *sp_lit_string(sp_pstate_t *ps, const char *text, size_t len, int pos)
{
  size_t q = (len >= 6 && text[1] == text[0] && text[2] == text[0]) ? 3 : 1;
  const char *s = text + q;
  size_t n = len - 2 * q;
  char *out = arena_alloc(ps->ps_arena, n + 1);
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    if (s[i] != '\\') {
      out[o++] = s[i++];
      continue;
    }
    char c = s[i + 1];
    switch (c) {
    case 't': out[o++] = '\t'; i += 2; continue;
    case 'b': out[o++] = '\b'; i += 2; continue;
    case 'n': out[o++] = '\n'; i += 2; continue;
    case 'r': out[o++] = '\r'; i += 2; continue;
    case 'f': out[o++] = '\f'; i += 2; continue;
    case '"': case '\'': case '\\': out[o++] = c; i += 2; continue;
    case 'u': case 'U': {
      int used = 0;
      long cp = sp_hex_escape(s + i, n - i, &used);
      if (cp < 0) {
        sp_fail(ps, pos, "bad \\%c escape in a string: %s hexadecimal digits needed", c,
                c == 'u' ? "four" : "eight");
        return NULL;
      }
      if (!sp_cp_ok(ps, cp, pos))
        return NULL;
      o += utf8_put(out + o, (uint32_t)cp);  /* never longer than the escape */
      i += (size_t)used;
      continue;
    }
    default:
      sp_fail(ps, pos, "invalid escape \"\\%c\" in a string (allowed: \\t \\b \\n \\r \\f \\\" \\' \\\\ \\u \\U)", c);
      return NULL;
    }
  }
  out[o] = '\0';
  return out;
}

const char *sp_lit_iriref(sp_pstate_t *ps, const char *text, size_t len, int pos)
{
  const char *s = text + 1;
  size_t n = len - 2;
  char *out = arena_alloc(ps->ps_arena, n + 1);
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    if (s[i] != '\\') {
      out[o++] = s[i++];
      continue;
    }
    int used = 0;
    long cp = sp_hex_escape(s + i, n - i, &used);
    if (cp < 0 || !sp_cp_ok(ps, cp, pos))
      return cp < 0 ? sp_fail(ps, pos, "bad escape in an IRI") : NULL;
    if (cp <= 0x20 || strchr("<>\"{}|^`\\", (int)cp)) {
      sp_fail(ps, pos, "escape \\u%04lX gives a character not allowed in an IRI", (unsigned long)cp);
      return NULL;
    }
    o += utf8_put(out + o, (uint32_t)cp);
    i += (size_t)used;
  }
  out[o] = '\0';
  return out;
}

/* PN_CHARS_BASE (spec [164]) beyond ASCII. */
static bool sp_cp_base(uint32_t c)
{
  return (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF) ||
         (c >= 0x370 && c <= 0x37D) || (c >= 0x37F && c <= 0x1FFF) || (c >= 0x200C && c <= 0x200D) ||
         (c >= 0x2070 && c <= 0x218F) || (c >= 0x2C00 && c <= 0x2FEF) || (c >= 0x3001 && c <= 0xD7FF) ||
         (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0xEFFFF);
}

/* The characters PN_CHARS and VARNAME add after the first position. */
static bool sp_cp_cont(uint32_t c)
{
  return sp_cp_base(c) || c == 0xB7 || (c >= 0x300 && c <= 0x36F) || (c >= 0x203F && c <= 0x2040);
}

bool sp_lit_name_ok(sp_pstate_t *ps, char kind, const char *s, size_t len, int pos)
{
  static const char *what[] = { "prefix", "local name", "variable name", "blank node label" };
  int w = kind == 'p' ? 0 : kind == 'l' ? 1 : kind == 'v' ? 2 : 3;
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    if ((unsigned char)s[i] < 0x80) {
      i++;
      continue;
    }
    int n = sp_utf8_get((const unsigned char *)s + i, len - i, &cp);
    if (n == 0 || !(i == 0 ? sp_cp_base(cp) : sp_cp_cont(cp))) {
      sp_fail(ps, pos, "character U+%04X is not allowed %s a %s", n ? cp : 0xFFFD,
              i == 0 ? "at the start of" : "in", what[w]);
      return false;
    }
    i += (size_t)n;
  }
  return true;
}

const char *sp_lit_local(sp_pstate_t *ps, const char *s, size_t len)
{
  char *out = arena_alloc(ps->ps_arena, len + 1);
  size_t o = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '\\' && i + 1 < len)
      i++;
    out[o++] = s[i];
  }
  out[o] = '\0';
  return out;
}
