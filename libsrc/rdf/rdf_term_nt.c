/* rdf_term_nt — one RDF term read back from its N-Triples form.
 *
 * Design notes: SPARQL results reach the protocol servers as text — the
 * compiler decodes every term id at the top of the query with rdf_term(id)
 * into N-Triples form (rdf_sql.c) — and the results writers take terms.
 * This is the inverse of rdf_esc_nt_*: `<iri>`, `_:label`, `"lex"`,
 * `"lex"@lang`, `"lex"^^<dt>`, with ECHAR and UCHAR escapes decoded into
 * UTF-8. Strings that need no unescaping are views into the input; others
 * are copied into the caller's arena. Anything else is 22P02, never a
 * guess: a malformed value is a bug upstream, and it must not be passed
 * on as a different term.
 */
#include <string.h>

#include "rdf/rdf_int.h"

static int bad(err_t *e, const char *s, size_t n, const char *why)
{
  return err_set(e, SQLSTATE_INVALID_TEXT, "not an N-Triples term (%s): %.*s", why,
                 (int)(n > 60 ? 60 : n), s);
}

/* The body s[0..n) of an IRI or string with its escapes decoded: a view
 * when there are none. */
static int unescape(arena_t *a, const char *s, size_t n, bool iri, const char **out,
                    size_t *out_len, err_t *e)
{
  if (!memchr(s, '\\', n)) {
    *out = s;
    *out_len = n;
    return CZ_OK;
  }
  char *buf = arena_alloc(a, n + 1), *o = buf; /* an escape is never shorter than its UTF-8 */
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '\\') {
      *o++ = s[i];
      continue;
    }
    if (++i >= n)
      return bad(e, s, n, "escape at the end");
    char c = s[i];
    if (c == 'u' || c == 'U') {
      size_t digits = c == 'u' ? 4 : 8;
      if (i + digits >= n)
        return bad(e, s, n, "short \\u escape");
      uint32_t cp = 0;
      for (size_t k = 1; k <= digits; k++) {
        int h = hex_digit_value(s[i + k]);
        if (h < 0)
          return bad(e, s, n, "bad \\u escape");
        cp = cp << 4 | (uint32_t)h;
      }
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return bad(e, s, n, "\\u escape outside Unicode");
      o += utf8_put(o, cp);
      i += digits;
      continue;
    }
    if (iri)
      return bad(e, s, n, "escape in an IRI");
    static const char from[] = "tbnrf\"'\\", to[] = "\t\b\n\r\f\"'\\";
    const char *p = strchr(from, c);
    if (!p || !c)
      return bad(e, s, n, "unknown escape");
    *o++ = to[p - from];
  }
  *out = buf;
  *out_len = (size_t)(o - buf);
  return CZ_OK;
}

int rdf_term_from_nt(arena_t *a, const char *s, size_t n, rdf_term_t *t, err_t *e)
{
  memset(t, 0, sizeof(*t));
  if (n >= 2 && s[0] == '<' && s[n - 1] == '>') {
    t->rt_kind = RDF_IRI;
    return unescape(a, s + 1, n - 2, true, &t->rt_str, &t->rt_len, e);
  }
  if (n > 2 && s[0] == '_' && s[1] == ':') {
    t->rt_kind = RDF_BNODE;
    t->rt_str = s + 2;
    t->rt_len = n - 2;
    return CZ_OK;
  }
  if (n < 2 || s[0] != '"')
    return bad(e, s, n, "no <, _: or \"");
  size_t close = 0; /* the closing quote: the first unescaped " after the opening one */
  for (size_t i = 1; i < n; i++) {
    if (s[i] == '\\')
      i++;
    else if (s[i] == '"') {
      close = i;
      break;
    }
  }
  if (!close)
    return bad(e, s, n, "unterminated string");
  t->rt_kind = RDF_LITERAL;
  if (unescape(a, s + 1, close - 1, false, &t->rt_str, &t->rt_len, e) != CZ_OK)
    return CZ_ERR;
  const char *rest = s + close + 1;
  size_t rn = n - close - 1;
  if (rn == 0)
    return CZ_OK;
  if (rest[0] == '@' && rn > 1) {
    t->rt_lang = rest + 1;
    t->rt_lang_len = rn - 1;
    return CZ_OK;
  }
  if (rn > 4 && rest[0] == '^' && rest[1] == '^' && rest[2] == '<' && rest[rn - 1] == '>') {
    if (unescape(a, rest + 3, rn - 4, true, &t->rt_dt, &t->rt_dt_len, e) != CZ_OK)
      return CZ_ERR;
    if (t->rt_dt_len == strlen(RDF_XSD_STRING) && !memcmp(t->rt_dt, RDF_XSD_STRING, t->rt_dt_len)) {
      t->rt_dt = NULL; /* xsd:string is the plain literal (rdf_term_t's convention) */
      t->rt_dt_len = 0;
    }
    return CZ_OK;
  }
  return bad(e, s, n, "text after the string");
}
