/* rdf_sparql_value — SPARQL's values of RDF terms held as N-Triples text
 * (the form rdf_term(id) prints and the SPARQL compiler gives computed
 * terms): reading a term back from its text, numbers with §17.3's type
 * promotion and exact integer/decimal arithmetic, xsd:dateTime fields and
 * instants, and the operator mapping's comparisons. The SQL functions of
 * rdf_sql_fn.c are built on these.
 *
 * Design notes: integers and decimals are scaled 128-bit integers (as the
 * engine's NUMERIC): a result past 2^120 is an error, never a rounded
 * answer; float and double are C doubles. Printing goes through
 * rdf_term_ntriples in canonical form, so a computed number's text equals
 * the stored term's decode. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf_int.h"

/* ---- terms as text -------------------------------------------------------- */

char *rdf_sv_strndup(arena_t *a, const char *s, size_t n)
{
  char *p = arena_alloc(a, n + 1);
  if (n)
    memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

/* The body of a quoted string or IRI up to the closing delimiter, with the
 * N-Triples escapes undone; *pos moves past the delimiter. */
static char *fn_unescape(arena_t *a, const char *s, size_t n, size_t *pos, char close, size_t *len)
{
  char *out = arena_alloc(a, n + 1);
  size_t o = 0, i = *pos;
  while (i < n && s[i] != close) {
    if (s[i] != '\\' || i + 1 >= n) {
      out[o++] = s[i++];
      continue;
    }
    char e = s[i + 1];
    int hex = e == 'u' ? 4 : e == 'U' ? 8 : 0;
    if (hex) {
      uint32_t cp = 0;
      if (i + 2 + (size_t)hex > n)
        return NULL;
      for (int k = 0; k < hex; k++) {
        char h = s[i + 2 + k];
        if (!isxdigit((unsigned char)h))
          return NULL;
        cp = cp * 16 + (uint32_t)(isdigit((unsigned char)h) ? h - '0' : (tolower((unsigned char)h) - 'a' + 10));
      }
      o += utf8_put(out + o, cp);
      i += 2 + (size_t)hex;
      continue;
    }
    switch (e) {
    case 'n': out[o++] = '\n'; break;
    case 'r': out[o++] = '\r'; break;
    case 't': out[o++] = '\t'; break;
    case 'b': out[o++] = '\b'; break;
    case 'f': out[o++] = '\f'; break;
    default: out[o++] = e; break;
    }
    i += 2;
  }
  if (i >= n)
    return NULL;
  out[o] = '\0';
  *pos = i + 1;
  *len = o;
  return out;
}

/* A term from its N-Triples text; false when the text is not one. */
bool rdf_sv_parse(arena_t *a, const char *s, size_t n, rdf_term_t *t)
{
  *t = (rdf_term_t){0};
  size_t pos = 1, len;
  if (n >= 2 && s[0] == '<') {
    if (!(t->rt_str = fn_unescape(a, s, n, &pos, '>', &len)))
      return false;
    t->rt_kind = RDF_IRI;
    t->rt_len = len;
    return true;
  }
  if (n >= 2 && s[0] == '_' && s[1] == ':') {
    t->rt_kind = RDF_BNODE;
    t->rt_str = rdf_sv_strndup(a, s + 2, n - 2);
    t->rt_len = n - 2;
    return true;
  }
  if (n < 2 || s[0] != '"' || !(t->rt_str = fn_unescape(a, s, n, &pos, '"', &len)))
    return false;
  t->rt_kind = RDF_LITERAL;
  t->rt_len = len;
  if (pos < n && s[pos] == '@') {
    t->rt_lang = rdf_sv_strndup(a, s + pos + 1, n - pos - 1);
    t->rt_lang_len = n - pos - 1;
  } else if (pos + 2 < n && s[pos] == '^' && s[pos + 1] == '^' && s[pos + 2] == '<') {
    pos += 3;
    if (!(t->rt_dt = fn_unescape(a, s, n, &pos, '>', &len)))
      return false;
    t->rt_dt_len = len;
    if (len == sizeof(RDF_XSD_STRING) - 1 && memcmp(t->rt_dt, RDF_XSD_STRING, len) == 0)
      t->rt_dt = NULL, t->rt_dt_len = 0;
  }
  return true;
}

rdf_term_t rdf_sv_lit(const char *lex, size_t len, const char *dt, const char *lang)
{
  return (rdf_term_t){.rt_kind = RDF_LITERAL, .rt_str = lex, .rt_len = len, .rt_dt = dt,
                      .rt_dt_len = dt ? strlen(dt) : 0, .rt_lang = lang, .rt_lang_len = lang ? strlen(lang) : 0};
}

bool rdf_sv_is_lit(const rdf_term_t *t) { return t->rt_kind == RDF_LITERAL; }
/* A simple literal or xsd:string (RDF 1.1: one thing). */
bool rdf_sv_is_plain(const rdf_term_t *t) { return rdf_sv_is_lit(t) && !t->rt_dt && !t->rt_lang_len; }
/* A string literal: plain or language-tagged (§17.4.3 "string literal"). */
bool rdf_sv_is_strlit(const rdf_term_t *t) { return rdf_sv_is_lit(t) && !t->rt_dt; }

char *rdf_sv_cstr(arena_t *a, const char *s, size_t n) { return rdf_sv_strndup(a, s, n); }

/* ---- numbers -------------------------------------------------------------- */



#define FN_I128_LIMIT ((__int128)1 << 120)

__int128 rdf_sv_pow10(int n)
{
  __int128 p = 1;
  while (n-- > 0)
    p *= 10;
  return p;
}

double rdf_sv_num_dbl(const rdf_sv_num_t *n)
{
  if (n->k >= SV_FLT)
    return n->d;
  return (double)n->m / (double)rdf_sv_pow10(n->scale);
}

/* A numeric literal's value; false when the term is not a valid number
 * (or one too big to compute with exactly). */
bool rdf_sv_num_get(const rdf_term_t *t, rdf_sv_num_t *n)
{
  if (!rdf_sv_is_lit(t) || !t->rt_dt)
    return false;
  rdf_xsd_t x = rdf_xsd_of(t);
  if (!rdf_xsd_is_numeric(x))
    return false;
  rdf_xsd_val_t v;
  if (rdf_xsd_parse(x, t->rt_str, t->rt_len, &v, NULL) != CZ_OK || v.xv_big)
    return false;
  *n = (rdf_sv_num_t){0};
  if (x == XSD_DOUBLE || x == XSD_FLOAT) {
    n->k = x == XSD_DOUBLE ? SV_DBL : SV_FLT;
    n->d = v.xv_dbl;
  } else if (x == XSD_DECIMAL) {
    n->k = SV_DEC;
    n->m = v.xv_int;
    n->scale = v.xv_scale;
  } else {
    n->k = SV_INT;
    n->m = v.xv_int;
  }
  return true;
}

char *rdf_sv_i128_text(char *buf, __int128 v)
{
  char tmp[48];
  int n = 0;
  bool neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-v) : (unsigned __int128)v;
  do {
    tmp[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  int o = 0;
  if (neg)
    buf[o++] = '-';
  while (n)
    buf[o++] = tmp[--n];
  buf[o] = '\0';
  return buf;
}

/* The canonical literal of a number; NULL for a value out of range. */
char *rdf_sv_num_term(arena_t *a, rdf_sv_num_t n)
{
  char buf[96];
  rdf_term_t t;
  if (n.k == SV_INT) {
    rdf_sv_i128_text(buf, n.m);
    t = rdf_sv_lit(buf, strlen(buf), XSD_NS_FN "integer", NULL);
  } else if (n.k == SV_DEC) {
    while (n.scale > 0 && n.m % 10 == 0)
      n.m /= 10, n.scale--;
    char digits[64];
    bool neg = n.m < 0;
    rdf_sv_i128_text(digits, neg ? -n.m : n.m);
    size_t nd = strlen(digits), o = 0;
    if (neg)
      buf[o++] = '-';
    if ((int)nd <= n.scale) {
      buf[o++] = '0';
      buf[o++] = '.';
      for (int z = 0; z < n.scale - (int)nd; z++)
        buf[o++] = '0';
      memcpy(buf + o, digits, nd);
      o += nd;
    } else {
      memcpy(buf + o, digits, nd - (size_t)n.scale);
      o += nd - (size_t)n.scale;
      buf[o++] = '.';
      if (n.scale) {
        memcpy(buf + o, digits + nd - (size_t)n.scale, (size_t)n.scale);
        o += (size_t)n.scale;
      } else
        buf[o++] = '0';
    }
    buf[o] = '\0';
    t = rdf_sv_lit(buf, o, XSD_NS_FN "decimal", NULL);
  } else {
    rdf_xsd_val_t v = {.xv_type = n.k == SV_DBL ? XSD_DOUBLE : XSD_FLOAT, .xv_dbl = n.d};
    if (n.k == SV_FLT)
      v.xv_dbl = (double)(float)n.d;
    if (isnan(v.xv_dbl))
      snprintf(buf, sizeof buf, "NaN");
    else if (isinf(v.xv_dbl))
      snprintf(buf, sizeof buf, "%sINF", v.xv_dbl < 0 ? "-" : "");
    else if (rdf_xsd_canonical(&v, "", 0, buf, sizeof buf) < 0)
      return NULL;
    t = rdf_sv_lit(buf, strlen(buf), n.k == SV_DBL ? XSD_NS_FN "double" : XSD_NS_FN "float", NULL);
  }
  return rdf_term_ntriples(&t, a);
}

static bool fn_big(__int128 v) { return v > FN_I128_LIMIT || v < -FN_I128_LIMIT; }

/* Both numbers in the wider of their kinds (§17.3 numeric type promotion);
 * false when aligning two decimals' scales would overflow. */
static bool fn_promote(rdf_sv_num_t *a, rdf_sv_num_t *b, rdf_sv_kind_t *kind)
{
  rdf_sv_kind_t k = a->k > b->k ? a->k : b->k;
  if (k >= SV_FLT) {
    a->d = rdf_sv_num_dbl(a);
    b->d = rdf_sv_num_dbl(b);
  } else {
    while (a->scale < b->scale) {
      if (__builtin_mul_overflow(a->m, 10, &a->m) || fn_big(a->m))
        return false;
      a->scale++;
    }
    while (b->scale < a->scale) {
      if (__builtin_mul_overflow(b->m, 10, &b->m) || fn_big(b->m))
        return false;
      b->scale++;
    }
  }
  a->k = b->k = k;
  *kind = k;
  return true;
}

/* At most 30 fraction digits (the rest cut), trailing zeros dropped. */
static void fn_dec_trim(rdf_sv_num_t *r)
{
  while (r->scale > 30)
    r->m /= 10, r->scale--;
  while (r->scale > 0 && r->m % 10 == 0)
    r->m /= 10, r->scale--;
}

/* a op b for op in + - * /; false on an error (division by zero of
 * integers and decimals, overflow). */
bool rdf_sv_arith(char op, rdf_sv_num_t a, rdf_sv_num_t b, rdf_sv_num_t *r)
{
  rdf_sv_kind_t k;
  if (!fn_promote(&a, &b, &k))
    return false;
  *r = (rdf_sv_num_t){.k = k};
  if (k >= SV_FLT) {
    switch (op) {
    case '+': r->d = a.d + b.d; break;
    case '-': r->d = a.d - b.d; break;
    case '*': r->d = a.d * b.d; break;
    default: r->d = a.d / b.d; break;
    }
    return true;
  }
  r->scale = a.scale;
  switch (op) {
  case '+': r->m = a.m + b.m; break;
  case '-': r->m = a.m - b.m; break;
  case '*':
    if (__builtin_mul_overflow(a.m, b.m, &r->m))
      return false;
    r->scale = a.scale * 2;
    fn_dec_trim(r);
    break;
  default: {
    /* Integer division gives a decimal (op:numeric-divide): 24 digits
     * after the point, rounded half away from zero, then trimmed. */
    if (b.m == 0)
      return false;
    r->k = SV_DEC;
    __int128 num = a.m;
    int sc = 0;
    while (sc < 24 && !fn_big(num * 10))
      num *= 10, sc++;
    __int128 q = num / b.m, rem = num % b.m;
    if (rem && (rem < 0 ? -rem : rem) * 2 >= (b.m < 0 ? -b.m : b.m))
      q += ((num < 0) != (b.m < 0)) ? -1 : 1;
    r->m = q;
    r->scale = sc;
    fn_dec_trim(r);
    break;
  }
  }
  return !fn_big(r->m);
}

/* -1, 0, 1 comparing two numbers' values. */
int rdf_sv_num_cmp(rdf_sv_num_t a, rdf_sv_num_t b, bool *nan)
{
  rdf_sv_kind_t k;
  *nan = false;
  if (!fn_promote(&a, &b, &k)) {
    /* scales too far apart for exact alignment: compare as doubles */
    double x = rdf_sv_num_dbl(&a), y = rdf_sv_num_dbl(&b);
    return x < y ? -1 : x > y;
  }
  if (k >= SV_FLT) {
    if (isnan(a.d) || isnan(b.d)) {
      *nan = true;
      return 0;
    }
    return a.d < b.d ? -1 : a.d > b.d;
  }
  return a.m < b.m ? -1 : a.m > b.m;
}

/* ---- dates ---------------------------------------------------------------- */


static int64_t fn_days_from_civil(int64_t y, int m, int d)
{
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* xsd:dateTime (or xsd:date, fields past the day zero) from a valid literal. */
bool rdf_sv_dt_get(const rdf_term_t *t, rdf_sv_dt_t *d, bool date_ok)
{
  if (!rdf_sv_is_lit(t) || !t->rt_dt)
    return false;
  rdf_xsd_t x = rdf_xsd_of(t);
  if (x != XSD_DATETIME && !(date_ok && x == XSD_DATE))
    return false;
  rdf_xsd_val_t v;
  if (rdf_xsd_parse(x, t->rt_str, t->rt_len, &v, NULL) != CZ_OK)
    return false;
  *d = (rdf_sv_dt_t){0};
  const char *s = t->rt_str, *end = s + t->rt_len;
  const char *p = s + (*s == '-');
  char *q;
  d->year = strtoll(p, &q, 10);
  if (*s == '-')
    d->year = -d->year;
  d->month = atoi(q + 1);
  d->day = atoi(q + 4);
  p = q + 6;
  if (x == XSD_DATETIME) {
    d->hour = atoi(p + 1);
    d->minute = atoi(p + 4);
    d->sec = p + 7;
    const char *e = d->sec;
    while (e < end && (isdigit((unsigned char)*e) || *e == '.'))
      e++;
    d->sec_len = (size_t)(e - d->sec);
    p = e;
  }
  d->tz = p;
  d->has_tz = v.xv_has_tz;
  d->tz_min = v.xv_tz_min;
  double secs = d->sec ? strtod(d->sec, NULL) : 0;
  d->epoch = (double)fn_days_from_civil(d->year, d->month, d->day) * 86400.0 + d->hour * 3600.0 +
             d->minute * 60.0 + secs - (d->has_tz ? d->tz_min * 60.0 : 0);
  return true;
}

/* ---- comparisons (§17.3) ----------------------------------------------------- */


rdf_sv_cat_t rdf_sv_category(const rdf_term_t *t, rdf_sv_num_t *num, rdf_sv_dt_t *dt, bool *bv)
{
  if (!rdf_sv_is_lit(t))
    return SV_C_NONLIT;
  if (t->rt_lang_len)
    return SV_C_LANG;
  if (!t->rt_dt)
    return SV_C_STR;
  rdf_xsd_t x = rdf_xsd_of(t);
  if (rdf_sv_num_get(t, num))
    return SV_C_NUM;
  if (x == XSD_BOOLEAN) {
    rdf_xsd_val_t v;
    if (rdf_xsd_parse(x, t->rt_str, t->rt_len, &v, NULL) == CZ_OK) {
      *bv = v.xv_bool;
      return SV_C_BOOL;
    }
  }
  if ((x == XSD_DATETIME || x == XSD_DATE) && rdf_sv_dt_get(t, dt, true))
    return x == XSD_DATETIME ? SV_C_DT : SV_C_DATE;
  return SV_C_OTHER;
}

static bool fn_same_term(const rdf_term_t *a, const rdf_term_t *b)
{
  return rdf_term_equal(a, b);
}

/* The §17.3 operator mapping for = != < > <= >=: 1 true, 0 false, -1 error. */
int rdf_sv_compare(const char *op, const rdf_term_t *a, const rdf_term_t *b)
{
  bool eq_op = strcmp(op, "=") == 0 || strcmp(op, "!=") == 0;
  bool ne = strcmp(op, "!=") == 0;
  rdf_sv_num_t na, nb;
  rdf_sv_dt_t da, db;
  bool ba = false, bb = false;
  rdf_sv_cat_t ca = rdf_sv_category(a, &na, &da, &ba), cb = rdf_sv_category(b, &nb, &db, &bb);
  int cmp;
  if (ca == cb && ca == SV_C_NUM) {
    bool nan;
    cmp = rdf_sv_num_cmp(na, nb, &nan);
    if (nan)
      return ne ? 1 : 0;
  } else if (ca == cb && ca == SV_C_STR) {
    int r = memcmp(a->rt_str, b->rt_str, a->rt_len < b->rt_len ? a->rt_len : b->rt_len);
    cmp = r ? (r < 0 ? -1 : 1) : (a->rt_len < b->rt_len ? -1 : a->rt_len > b->rt_len);
  } else if (ca == cb && ca == SV_C_BOOL) {
    cmp = (int)ba - (int)bb;
  } else if (ca == cb && (ca == SV_C_DT || ca == SV_C_DATE)) {
    if (da.has_tz != db.has_tz && fabs(da.epoch - db.epoch) <= 14 * 3600)
      return -1; /* indeterminate (XML Schema's ±14 h) */
    cmp = da.epoch < db.epoch ? -1 : da.epoch > db.epoch;
  } else {
    if (!eq_op)
      return -1;
    bool same = fn_same_term(a, b);
    if (same)
      return ne ? 0 : 1;
    /* Two different literals: not equal when both are of types whose
     * values are known and differ in kind or value; an unknown datatype
     * is an error (RDFterm-equal) — except against a language-tagged
     * literal, whose value (a string with a tag) no typed literal has
     * (W3C open-eq-10: "xyz"@en != "abc"^^:unknown is true). */
    if (ca == SV_C_NONLIT || cb == SV_C_NONLIT)
      return ne ? 1 : 0;
    if ((ca == SV_C_OTHER || cb == SV_C_OTHER) && ca != SV_C_LANG && cb != SV_C_LANG)
      return -1;
    return ne ? 1 : 0;
  }
  if (strcmp(op, "=") == 0) return cmp == 0;
  if (ne) return cmp != 0;
  if (strcmp(op, "<") == 0) return cmp < 0;
  if (strcmp(op, ">") == 0) return cmp > 0;
  if (strcmp(op, "<=") == 0) return cmp <= 0;
  return cmp >= 0;
}

