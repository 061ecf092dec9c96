/* ty_json — JSON text: the lexer and parser PostgreSQL's json_in and
 * jsonb_in follow (RFC 8259 with PostgreSQL's error DETAILs), the parse
 * tree, and the numeric form of JSON numbers that jsonb keeps.
 *
 * Design notes: one recursive-descent parser serves three callers —
 * json input only validates (no tree, escapes checked for form only, as
 * json keeps the text as written), json functions get a tree whose keys
 * keep their order, jsonb gets decoded strings, canonical numbers and
 * sorted unique keys. Recursion is bounded by TY_JSON_MAX_DEPTH, so a
 * document of any depth ends in 54001, never in a stack overflow; every
 * other routine that walks a tree walks one this parser built. Errors are
 * reported at the first bad token as PostgreSQL's pg_parse_json does.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "types/types_int.h"

typedef enum {
  TJK_OBJ_START, TJK_OBJ_END, TJK_ARR_START, TJK_ARR_END, TJK_COMMA, TJK_COLON,
  TJK_STRING, TJK_NUMBER, TJK_TRUE, TJK_FALSE, TJK_NULL, TJK_END
} tj_tok_t;

typedef struct tj_s {
  const char *tj_p, *tj_end;
  const char *tj_tok_start, *tj_tok_end; /* the current token's text */
  tj_tok_t tj_tok;
  str_t tj_str;          /* the current string token decoded (tj_a set) */
  arena_t *tj_a;         /* NULL: validate only */
  bool tj_jsonb;
  int tj_depth;
  err_t *tj_e;
} tj_t;

/* PostgreSQL's JSON_ALPHANUMERIC_CHAR: what a bad token runs on over. */
static bool tj_alnum(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c >= 0x80;
}

static int tj_syntax(tj_t *t, const char *fmt, ...) CZ_PRINTF(2, 3);
static int tj_syntax(tj_t *t, const char *fmt, ...)
{
  err_set(t->tj_e, SQLSTATE_INVALID_TEXT, "invalid input syntax for type json");
  if (t->tj_e) {
    va_list ap;
    va_start(ap, fmt);
    char d[256];
    vsnprintf(d, sizeof d, fmt, ap);
    va_end(ap);
    err_detail(t->tj_e, "%s", d);
  }
  return CZ_ERR;
}

static int tj_bad_token(tj_t *t)
{
  return tj_syntax(t, "Token \"%.*s\" is invalid.", (int)CZ_MIN(t->tj_tok_end - t->tj_tok_start, 200),
                   t->tj_tok_start);
}

static int tj_hex4(const char *p, const char *end, unsigned *out)
{
  if (end - p < 4)
    return -1;
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    int d = hex_digit_value(p[i]);
    if (d < 0)
      return -1;
    v = v * 16 + (unsigned)d;
  }
  *out = v;
  return 0;
}

/* A string token starting at the quote (json_lex_string). Decodes into
 * tj_str when a tree is built; surrogates and \u0000 are checked only
 * then, as PostgreSQL checks them only when it de-escapes. */
static int tj_lex_string(tj_t *t)
{
  const char *s = t->tj_p + 1, *end = t->tj_end;
  bool decode = t->tj_a != NULL;
  char *o = NULL;
  size_t ol = 0;
  if (decode) {
    /* the string's span as written bounds its decoded length (decoding
     * never grows it); the loop below checks what lies in it */
    const char *q = s;
    while (q < end && *q != '"')
      q += *q == '\\' ? 2 : 1;
    o = arena_alloc(t->tj_a, (size_t)(CZ_MIN(q, end) - s) + 1);
  }
  unsigned hi = 0;  /* a high surrogate waiting for its low half */
  for (;;) {
    if (s >= end) {
      t->tj_tok_end = s;
      return tj_bad_token(t);
    }
    unsigned char c = (unsigned char)*s;
    if (c == '"')
      break;
    if (c < 0x20) {
      t->tj_tok_end = s + 1;
      return tj_syntax(t, "Character with value 0x%02x must be escaped.", c);
    }
    if (c != '\\') {
      if (decode && hi)
        return tj_syntax(t, "Unicode low surrogate must follow a high surrogate.");
      if (decode)
        o[ol++] = (char)c;
      s++;
      continue;
    }
    s++;
    if (s >= end) {
      t->tj_tok_end = s;
      return tj_bad_token(t);
    }
    if (*s == 'u') {
      unsigned cp;
      if (tj_hex4(s + 1, end, &cp) < 0) {
        t->tj_tok_end = s;
        return tj_syntax(t, "\"\\u\" must be followed by four hexadecimal digits.");
      }
      s += 5;
      if (!decode)
        continue;
      if (cp >= 0xd800 && cp <= 0xdbff) {
        if (hi)
          return tj_syntax(t, "Unicode high surrogate must not follow a high surrogate.");
        hi = cp;
        continue;
      }
      if (cp >= 0xdc00 && cp <= 0xdfff) {
        if (!hi)
          return tj_syntax(t, "Unicode low surrogate must follow a high surrogate.");
        cp = 0x10000 + ((hi - 0xd800) << 10) + (cp - 0xdc00);
        hi = 0;
      } else if (hi) {
        return tj_syntax(t, "Unicode low surrogate must follow a high surrogate.");
      }
      if (cp == 0) {
        if (t->tj_jsonb) {
          err_set(t->tj_e, SQLSTATE_UNTRANSLATABLE_CHARACTER, "unsupported Unicode escape sequence");
          return err_detail(t->tj_e, "\\u0000 cannot be converted to text.");
        }
        memcpy(o + ol, "\\u0000", 6); /* json keeps what it cannot hold in text */
        ol += 6;
        continue;
      }
      ol += utf8_put(o + ol, (uint32_t)cp);
      continue;
    }
    if (decode && hi)
      return tj_syntax(t, "Unicode low surrogate must follow a high surrogate.");
    char r;
    switch (*s) {
    case '"': r = '"'; break;
    case '\\': r = '\\'; break;
    case '/': r = '/'; break;
    case 'b': r = '\b'; break;
    case 'f': r = '\f'; break;
    case 'n': r = '\n'; break;
    case 'r': r = '\r'; break;
    case 't': r = '\t'; break;
    default: {
      /* the escaped character whole, as pg_mblen measures it */
      int n = 1;
      unsigned char b = (unsigned char)*s;
      if (b >= 0xf0) n = 4; else if (b >= 0xe0) n = 3; else if (b >= 0xc0) n = 2;
      n = (int)CZ_MIN(n, end - s);
      return tj_syntax(t, "Escape sequence \"\\%.*s\" is invalid.", n, s);
    }
    }
    if (decode)
      o[ol++] = r;
    s++;
  }
  if (decode && hi)
    return tj_syntax(t, "Unicode low surrogate must follow a high surrogate.");
  t->tj_tok_end = s + 1;
  t->tj_p = s + 1;
  t->tj_tok = TJK_STRING;
  if (decode) {
    t->tj_str.s_ptr = o;
    t->tj_str.s_len = (uint32_t)ol;
  }
  return CZ_OK;
}

/* A number (json_lex_number): -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
 * with no letters or digits glued on. */
static int tj_lex_number(tj_t *t)
{
  const char *s = t->tj_p, *end = t->tj_end;
  bool bad = false;
  if (s < end && *s == '-')
    s++;
  if (s < end && *s == '0') {
    s++;
  } else if (s < end && *s >= '1' && *s <= '9') {
    while (s < end && *s >= '0' && *s <= '9')
      s++;
  } else {
    bad = true;
  }
  if (!bad && s < end && *s == '.') {
    s++;
    if (s >= end || *s < '0' || *s > '9')
      bad = true;
    while (s < end && *s >= '0' && *s <= '9')
      s++;
  }
  if (!bad && s < end && (*s == 'e' || *s == 'E')) {
    s++;
    if (s < end && (*s == '+' || *s == '-'))
      s++;
    if (s >= end || *s < '0' || *s > '9')
      bad = true;
    while (s < end && *s >= '0' && *s <= '9')
      s++;
  }
  while (s < end && tj_alnum((unsigned char)*s)) {
    bad = true;
    s++;
  }
  t->tj_tok_end = s;
  if (bad)
    return tj_bad_token(t);
  t->tj_p = s;
  t->tj_tok = TJK_NUMBER;
  return CZ_OK;
}

static int tj_lex(tj_t *t)
{
  const char *s = t->tj_p, *end = t->tj_end;
  while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
    s++;
  t->tj_p = s;
  t->tj_tok_start = s;
  if (s >= end) {
    t->tj_tok = TJK_END;
    t->tj_tok_end = s;
    return CZ_OK;
  }
  static const char singles[] = "{}[],:";
  const char *q = memchr(singles, *s, 6);
  if (q) {
    static const tj_tok_t toks[] = {TJK_OBJ_START, TJK_OBJ_END, TJK_ARR_START,
                                    TJK_ARR_END,   TJK_COMMA,   TJK_COLON};
    t->tj_tok = toks[q - singles];
    t->tj_tok_end = t->tj_p = s + 1;
    return CZ_OK;
  }
  if (*s == '"')
    return tj_lex_string(t);
  if (*s == '-' || (*s >= '0' && *s <= '9'))
    return tj_lex_number(t);
  const char *w = s;
  while (w < end && tj_alnum((unsigned char)*w))
    w++;
  if (w == s) {
    unsigned char b = (unsigned char)*s;
    int n = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    t->tj_tok_end = s + CZ_MIN(n, end - s);
    return tj_bad_token(t);
  }
  t->tj_tok_end = w;
  size_t n = (size_t)(w - s);
  if (n == 4 && memcmp(s, "true", 4) == 0)
    t->tj_tok = TJK_TRUE;
  else if (n == 5 && memcmp(s, "false", 5) == 0)
    t->tj_tok = TJK_FALSE;
  else if (n == 4 && memcmp(s, "null", 4) == 0)
    t->tj_tok = TJK_NULL;
  else
    return tj_bad_token(t);
  t->tj_p = w;
  return CZ_OK;
}

/* "Expected …, but found" for the current token; the end of the input
 * says so instead. */
static int tj_expected(tj_t *t, const char *what)
{
  if (t->tj_tok == TJK_END)
    return tj_syntax(t, "The input string ended unexpectedly.");
  return tj_syntax(t, "Expected %s, but found \"%.*s\".", what,
                   (int)CZ_MIN(t->tj_tok_end - t->tj_tok_start, 200), t->tj_tok_start);
}

static int tj_value(tj_t *t, ty_jval_t **out);

/* Appends v to a growing array of pointers (doubling in the arena). */
static void tj_push(tj_t *t, ty_jval_t ***vals, str_t **keys, int *n, int *cap, ty_jval_t *v,
                    const str_t *key)
{
  if (*n == *cap) {
    int nc = *cap ? *cap * 2 : 4;
    ty_jval_t **nv = arena_alloc(t->tj_a, sizeof(*nv) * (size_t)nc);
    if (*n)
      memcpy(nv, *vals, sizeof(*nv) * (size_t)*n);
    *vals = nv;
    if (keys) {
      str_t *nk = arena_alloc(t->tj_a, sizeof(*nk) * (size_t)nc);
      if (*n)
        memcpy(nk, *keys, sizeof(*nk) * (size_t)*n);
      *keys = nk;
    }
    *cap = nc;
  }
  (*vals)[*n] = v;
  if (keys)
    (*keys)[*n] = *key;
  (*n)++;
}

static int tj_depth_check(tj_t *t)
{
  if (++t->tj_depth > TY_JSON_MAX_DEPTH) {
    err_set(t->tj_e, SQLSTATE_STATEMENT_TOO_COMPLEX, "stack depth limit exceeded");
    return err_hint(t->tj_e, "JSON documents nest at most %d arrays and objects deep.",
                    TY_JSON_MAX_DEPTH);
  }
  return CZ_OK;
}

/* After '{' (parse_object). */
static int tj_object(tj_t *t, ty_jval_t *v)
{
  if (tj_depth_check(t) != CZ_OK || tj_lex(t) != CZ_OK)
    return CZ_ERR;
  int cap = 0;
  if (t->tj_tok == TJK_STRING) {
    for (;;) {
      if (t->tj_tok != TJK_STRING)
        return tj_expected(t, "string");
      str_t key = t->tj_str;
      if (tj_lex(t) != CZ_OK)
        return CZ_ERR;
      if (t->tj_tok != TJK_COLON)
        return tj_expected(t, "\":\"");
      if (tj_lex(t) != CZ_OK)
        return CZ_ERR;
      ty_jval_t *item;
      if (tj_value(t, &item) != CZ_OK)
        return CZ_ERR;
      if (t->tj_a)
        tj_push(t, &v->jv_vals, &v->jv_keys, &v->jv_n, &cap, item, &key);
      if (t->tj_tok != TJK_COMMA)
        break;
      if (tj_lex(t) != CZ_OK)
        return CZ_ERR;
    }
  } else if (t->tj_tok != TJK_OBJ_END) {
    return tj_expected(t, "string or \"}\"");
  }
  if (t->tj_tok != TJK_OBJ_END)
    return tj_expected(t, "\",\" or \"}\"");
  t->tj_depth--;
  if (t->tj_a && t->tj_jsonb)
    ty_jsonb_sort_keys(v);
  return tj_lex(t);
}

/* After '[' (parse_array). */
static int tj_array(tj_t *t, ty_jval_t *v)
{
  if (tj_depth_check(t) != CZ_OK || tj_lex(t) != CZ_OK)
    return CZ_ERR;
  int cap = 0;
  if (t->tj_tok != TJK_ARR_END) {
    for (;;) {
      ty_jval_t *item;
      if (tj_value(t, &item) != CZ_OK)
        return CZ_ERR;
      if (t->tj_a)
        tj_push(t, &v->jv_vals, NULL, &v->jv_n, &cap, item, NULL);
      if (t->tj_tok != TJK_COMMA)
        break;
      if (tj_lex(t) != CZ_OK)
        return CZ_ERR;
    }
  }
  if (t->tj_tok != TJK_ARR_END)
    return tj_expected(t, "\",\" or \"]\"");
  t->tj_depth--;
  return tj_lex(t);
}

/* A value starting at the current token; leaves the token after it. */
static int tj_value(tj_t *t, ty_jval_t **out)
{
  ty_jval_t scratch, *v = &scratch;
  if (t->tj_a)
    v = arena_zalloc(t->tj_a, sizeof(*v));
  else
    memset(v, 0, sizeof(*v));
  *out = v;
  const char *start = t->tj_tok_start;
  int rc = CZ_OK;
  switch (t->tj_tok) {
  case TJK_OBJ_START:
    v->jv_kind = TJ_OBJECT;
    rc = tj_object(t, v);
    break;
  case TJK_ARR_START:
    v->jv_kind = TJ_ARRAY;
    rc = tj_array(t, v);
    break;
  case TJK_STRING:
  case TJK_NUMBER:
  case TJK_TRUE:
  case TJK_FALSE:
  case TJK_NULL: {
    tj_tok_t k = t->tj_tok;
    v->jv_kind = k == TJK_STRING ? TJ_STRING : k == TJK_NUMBER ? TJ_NUMBER
                 : k == TJK_NULL ? TJ_NULL : TJ_BOOL;
    v->jv_bool = k == TJK_TRUE;
    if (t->tj_a && k == TJK_STRING)
      v->jv_str = t->tj_str;
    if (t->tj_a && k == TJK_NUMBER) {
      size_t n = (size_t)(t->tj_tok_end - t->tj_tok_start);
      if (t->tj_jsonb) {
        if (ty_json_number_canon(t->tj_tok_start, n, t->tj_a, &v->jv_str, t->tj_e) != CZ_OK)
          return CZ_ERR;
      } else {
        v->jv_str.s_ptr = t->tj_tok_start;
        v->jv_str.s_len = (uint32_t)n;
      }
    }
    const char *tend = t->tj_tok_end;
    if (tj_lex(t) != CZ_OK)
      return CZ_ERR;
    v->jv_raw.s_ptr = start;
    v->jv_raw.s_len = (uint32_t)(tend - start);
    return CZ_OK;
  }
  default:
    return tj_expected(t, "JSON value");
  }
  if (rc != CZ_OK)
    return CZ_ERR;
  /* the container's text runs to its closing bracket, just before the
   * token the parser now holds (blanks between excluded) */
  const char *stop = t->tj_tok_start;
  while (stop > start && stop[-1] != '}' && stop[-1] != ']')
    stop--;
  v->jv_raw.s_ptr = start;
  v->jv_raw.s_len = (uint32_t)(stop - start);
  return CZ_OK;
}

static int tj_run(const char *s, size_t len, bool jsonb, arena_t *a, ty_jval_t **out, err_t *e)
{
  tj_t t = {.tj_p = s, .tj_end = s + len, .tj_a = a, .tj_jsonb = jsonb, .tj_e = e};
  ty_jval_t *v;
  if (tj_lex(&t) != CZ_OK || tj_value(&t, &v) != CZ_OK)
    return CZ_ERR;
  if (t.tj_tok != TJK_END)
    return tj_expected(&t, "end of input");
  if (out)
    *out = v;
  return CZ_OK;
}

int ty_json_validate(const char *s, size_t len, err_t *e)
{
  return tj_run(s, len, false, NULL, NULL, e);
}

int ty_json_parse(const char *s, size_t len, bool jsonb, arena_t *a, ty_jval_t **out, err_t *e)
{
  return tj_run(s, len, jsonb, a, out, e);
}

/* numeric_in then numeric_out: the digits times a power of ten, printed
 * with the scale the input had (fraction digits less the exponent). */
int ty_json_number_canon(const char *s, size_t len, arena_t *a, str_t *out, err_t *e)
{
  size_t i = 0;
  bool neg = false;
  if (i < len && (s[i] == '-' || s[i] == '+'))
    neg = s[i++] == '-';
  char *dig = arena_alloc(a, len + 1);
  size_t nd = 0;
  long frac = 0;
  bool point = false;
  for (; i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
    if (s[i] == '.') {
      point = true;
      continue;
    }
    dig[nd++] = s[i];
    if (point)
      frac++;
  }
  long exp10 = 0;
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    bool eneg = false;
    if (i < len && (s[i] == '+' || s[i] == '-'))
      eneg = s[i++] == '-';
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
      if (exp10 < 100000000)
        exp10 = exp10 * 10 + (s[i] - '0');
    }
    if (eneg)
      exp10 = -exp10;
  }
  if (nd == 0 || i != len)
    return err_set(e, SQLSTATE_INVALID_TEXT, "invalid input syntax for type numeric: \"%.*s\"",
                   (int)CZ_MIN(len, 200), s);
  long scale = frac - exp10;          /* the value is dig × 10^-scale */
  long dscale = scale > 0 ? scale : 0;
  /* skip leading zeros of the digit string */
  size_t lead = 0;
  while (lead < nd && dig[lead] == '0')
    lead++;
  long sig = (long)(nd - lead);       /* significant digits */
  long intdigits = sig - scale;       /* digits before the point */
  if (intdigits > 131072 || dscale > 16383)
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value overflows numeric format");
  bool zero = sig == 0;
  size_t cap = (size_t)(2 + (intdigits > 0 ? intdigits : 1) + 1 + dscale);
  char *o = arena_alloc(a, cap);
  size_t ol = 0;
  if (neg && !zero)
    o[ol++] = '-';
  /* digit k of the value counted from the point: position p in 0..sig-1
   * of the significant digits has weight intdigits-1-p */
  if (intdigits <= 0) {
    o[ol++] = '0';
  } else {
    for (long p = 0; p < intdigits; p++)
      o[ol++] = p < sig ? dig[lead + p] : '0';
  }
  if (dscale > 0) {
    o[ol++] = '.';
    for (long k = 0; k < dscale; k++) {
      long p = intdigits + k; /* index into the significant digits */
      o[ol++] = (p >= 0 && p < sig) ? dig[lead + p] : '0';
    }
  }
  out->s_ptr = o;
  out->s_len = (uint32_t)ol;
  return CZ_OK;
}
