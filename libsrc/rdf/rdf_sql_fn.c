/* rdf_sql_fn — SPARQL's expression language (SPARQL 1.1 §17) as SQL
 * functions over terms in N-Triples text, the form rdf_term(id) prints:
 * sparql_fn(name, args…) for the function library and the operators,
 * sparql_cmp(op, a, b) for the comparisons, sparql_ebv(t) for the
 * effective boolean value, sparql_order_key(t) for ORDER BY and MIN/MAX,
 * sparql_num / sparql_numtype / sparql_num_term for SUM and AVG.
 *
 * Design notes: a computed value (STR, CONCAT, arithmetic…) is a term that
 * may be in no dictionary, so the SPARQL compiler carries it as text in
 * N-Triples form — self-describing, and equal texts are equal terms
 * because every text comes out of rdf_term_ntriples (one escaping, numbers
 * in canonical form as the inline ids decode). SQL NULL is SPARQL's error
 * (and unbound): every function returns NULL for an error, so FILTER drops
 * the row and BIND leaves the variable unbound, as §17.3 and §18.6 say.
 * Values, numbers, dates and comparisons are rdf_sparql_value.c's; this
 * file is the library and its SQL registration. REGEX and REPLACE use PCRE2 in UTF mode with XPath's flags (i s
 * m x q), the hashes OpenSSL, UCASE and LCASE utf8proc's case mapping. */
#include <ctype.h>
#include <math.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <utf8proc.h>

#include "exec/expr.h"
#include "rdf/rdf_int.h"


/* ---- the result of one call ----------------------------------------------- */

typedef struct fn_ctx_s {
  xctx_t *x;
  arena_t *a;
} fn_ctx_t;

static char *fn_out(fn_ctx_t *f, rdf_term_t t) { return rdf_term_ntriples(&t, f->a); }
static char *fn_plain(fn_ctx_t *f, const char *s, size_t n) { return fn_out(f, rdf_sv_lit(s, n, NULL, NULL)); }
static char *fn_bool(fn_ctx_t *f, bool b)
{
  return fn_out(f, rdf_sv_lit(b ? "true" : "false", b ? 4 : 5, XSD_NS_FN "boolean", NULL));
}
static char *fn_int(fn_ctx_t *f, int64_t v)
{
  return rdf_sv_num_term(f->a, (rdf_sv_num_t){.k = SV_INT, .m = v});
}

/* A string literal like model's (same language tag; xsd:string or plain). */
static char *fn_like(fn_ctx_t *f, const rdf_term_t *model, const char *s, size_t n)
{
  return fn_out(f, rdf_sv_lit(s, n, NULL, model->rt_lang_len ? rdf_sv_cstr(f->a, model->rt_lang, model->rt_lang_len) : NULL));
}

/* §17.4.3.1.1 argument compatibility of two string literals. */
static bool fn_compatible(const rdf_term_t *a, const rdf_term_t *b)
{
  if (!rdf_sv_is_strlit(a) || !rdf_sv_is_strlit(b))
    return false;
  if (!b->rt_lang_len)
    return true;
  return a->rt_lang_len == b->rt_lang_len && strncasecmp(a->rt_lang, b->rt_lang, a->rt_lang_len) == 0;
}

static size_t fn_utf8_len(const char *s, size_t n)
{
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    c += ((unsigned char)s[i] & 0xC0) != 0x80;
  return c;
}

/* Byte offset of the code point number cp (clamped to n). */
static size_t fn_utf8_off(const char *s, size_t n, size_t cp)
{
  size_t i = 0;
  while (i < n && cp) {
    i++;
    while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
      i++;
    cp--;
  }
  return i;
}

static uint32_t fn_utf8_get(const char *s, size_t n, size_t *i)
{
  unsigned char c = (unsigned char)s[*i];
  int more = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  uint32_t cp = more == 0 ? c : more == 1 ? c & 0x1F : more == 2 ? c & 0x0F : c & 0x07;
  (*i)++;
  while (more-- > 0 && *i < n)
    cp = (cp << 6) | ((unsigned char)s[(*i)++] & 0x3F);
  return cp;
}

/* Unicode full case mapping, as XPath's fn:upper-case / fn:lower-case:
 * SpecialCasing's multi-character mappings (ß → SS), else the simple one
 * (utf8proc); the mapping of c into out, its number of characters. */
static size_t fn_case(uint32_t c, bool upper, uint32_t out[3])
{
  size_t n = rdf_case_special(c, upper, out);
  if (n > 0)
    return n;
  out[0] = (uint32_t)(upper ? utf8proc_toupper((utf8proc_int32_t)c) : utf8proc_tolower((utf8proc_int32_t)c));
  return 1;
}

/* ---- regular expressions -------------------------------------------------- */

/* One compiled pattern and one match context per thread (a filter uses
 * one pattern for every row), freed when the thread ends. */
typedef struct fn_rx_s {
  pcre2_code *code;
  char *pat;
  size_t pat_len;
  uint32_t opts;
  pcre2_match_context *mc;
} fn_rx_t;

static pthread_key_t fn_rx_key;
static pthread_once_t fn_rx_once = PTHREAD_ONCE_INIT;

static void fn_rx_free(void *p)
{
  fn_rx_t *rx = p;
  pcre2_code_free(rx->code);
  pcre2_match_context_free(rx->mc);
  free(rx->pat);
  free(rx);
}

static void fn_rx_key_make(void) { (void)pthread_key_create(&fn_rx_key, fn_rx_free); }

static fn_rx_t *fn_rx_get(void)
{
  (void)pthread_once(&fn_rx_once, fn_rx_key_make);
  fn_rx_t *rx = pthread_getspecific(fn_rx_key);
  if (rx)
    return rx;
  if (!(rx = calloc(1, sizeof *rx)) || !(rx->mc = pcre2_match_context_create(NULL))) {
    free(rx);
    return NULL;
  }
  /* bounded: a catastrophic pattern fails (an error value), never hangs */
  pcre2_set_match_limit(rx->mc, 10000000);
  pcre2_set_depth_limit(rx->mc, 100000);
  if (pthread_setspecific(fn_rx_key, rx) != 0) {
    fn_rx_free(rx);
    return NULL;
  }
  return rx;
}

static pcre2_code *fn_regex(const rdf_term_t *pat, const rdf_term_t *flags, pcre2_match_context **mc)
{
  uint32_t o = PCRE2_UTF;
  fn_rx_t *rx = fn_rx_get();
  if (!rx)
    return NULL;
  *mc = rx->mc;
  if (flags) {
    for (size_t i = 0; i < flags->rt_len; i++)
      switch (flags->rt_str[i]) {
      case 'i': o |= PCRE2_CASELESS; break;
      case 's': o |= PCRE2_DOTALL; break;
      case 'm': o |= PCRE2_MULTILINE; break;
      case 'x': o |= PCRE2_EXTENDED; break;
      case 'q': o |= PCRE2_LITERAL; break;
      default: return NULL;
      }
  }
  if (rx->code && rx->opts == o && rx->pat_len == pat->rt_len && memcmp(rx->pat, pat->rt_str, pat->rt_len) == 0)
    return rx->code;
  int ec;
  PCRE2_SIZE eo;
  pcre2_code *code = pcre2_compile((PCRE2_SPTR)pat->rt_str, pat->rt_len, o, &ec, &eo, NULL);
  char *copy = code ? malloc(pat->rt_len + 1) : NULL;
  if (!copy) {
    pcre2_code_free(code);
    return NULL;
  }
  memcpy(copy, pat->rt_str, pat->rt_len);
  pcre2_code_free(rx->code);
  free(rx->pat);
  rx->code = code;
  rx->pat = copy;
  rx->pat_len = pat->rt_len;
  rx->opts = o;
  return code;
}

/* ---- the functions ---------------------------------------------------------- */

typedef char *(*fn_impl_t)(fn_ctx_t *f, rdf_term_t *t, int n, bool *bad);

#define ARGS fn_ctx_t *f, rdf_term_t *t, int n, bool *bad
#define UNUSED_ARGS (void)f, (void)t, (void)n, (void)bad

static char *fn_str(ARGS)
{
  UNUSED_ARGS;
  if (t[0].rt_kind == RDF_BNODE)
    return NULL;
  return fn_plain(f, t[0].rt_str, t[0].rt_len);
}

static char *fn_lang(ARGS)
{
  UNUSED_ARGS;
  if (!rdf_sv_is_lit(&t[0]))
    return NULL;
  char *l = rdf_sv_cstr(f->a, t[0].rt_lang ? t[0].rt_lang : "", t[0].rt_lang_len);
  for (char *p = l; *p; p++)
    *p = (char)tolower((unsigned char)*p);
  return fn_plain(f, l, t[0].rt_lang_len);
}

static char *fn_datatype(ARGS)
{
  UNUSED_ARGS;
  if (!rdf_sv_is_lit(&t[0]))
    return NULL;
  const char *dt = t[0].rt_lang_len ? RDF_LANGSTRING : t[0].rt_dt ? rdf_sv_cstr(f->a, t[0].rt_dt, t[0].rt_dt_len) : RDF_XSD_STRING;
  return fn_out(f, rdf_iri(dt));
}

static char *fn_langmatches(ARGS)
{
  UNUSED_ARGS;
  if (!rdf_sv_is_plain(&t[0]) || !rdf_sv_is_plain(&t[1]))
    return NULL;
  const rdf_term_t *tag = &t[0], *range = &t[1];
  if (range->rt_len == 1 && range->rt_str[0] == '*')
    return fn_bool(f, tag->rt_len > 0);
  bool m = tag->rt_len >= range->rt_len && strncasecmp(tag->rt_str, range->rt_str, range->rt_len) == 0 &&
           (tag->rt_len == range->rt_len || tag->rt_str[range->rt_len] == '-') && range->rt_len > 0;
  return fn_bool(f, m);
}

static char *fn_iri(ARGS)
{
  UNUSED_ARGS;
  if (t[0].rt_kind == RDF_IRI)
    return fn_out(f, t[0]);
  if (!rdf_sv_is_plain(&t[0]))
    return NULL;
  /* Only absolute IRIs: the query's base is not known here. */
  const char *colon = memchr(t[0].rt_str, ':', t[0].rt_len);
  if (!colon || colon == t[0].rt_str)
    return NULL;
  return fn_out(f, rdf_iri(rdf_sv_cstr(f->a, t[0].rt_str, t[0].rt_len)));
}

static void fn_random(void *buf, size_t n)
{
  if (RAND_bytes(buf, (int)n) != 1)
    for (size_t i = 0; i < n; i++)
      ((unsigned char *)buf)[i] = (unsigned char)rand();
}

static char *fn_uuid_text(fn_ctx_t *f)
{
  unsigned char b[16];
  fn_random(b, sizeof b);
  b[6] = (unsigned char)((b[6] & 0x0F) | 0x40);
  b[8] = (unsigned char)((b[8] & 0x3F) | 0x80);
  return arena_sprintf(f->a, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                       b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static char *fn_bnode(ARGS)
{
  UNUSED_ARGS;
  if (n == 2) {
    /* BNODE(str) with the solution's key (the compiler passes its
     * variables' values): one blank node per string per solution, a
     * different one for another string or another solution (§17.4.2.9). */
    if (!rdf_sv_is_plain(&t[0]) || !rdf_sv_is_plain(&t[1]))
      return NULL;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_MD_CTX *mc = EVP_MD_CTX_new();
    bool ok = mc && EVP_DigestInit_ex(mc, EVP_sha256(), NULL) &&
              EVP_DigestUpdate(mc, t[0].rt_str, t[0].rt_len) && EVP_DigestUpdate(mc, "\x02", 1) &&
              EVP_DigestUpdate(mc, t[1].rt_str, t[1].rt_len) && EVP_DigestFinal_ex(mc, md, &len);
    EVP_MD_CTX_free(mc);
    if (!ok)
      return NULL;
    char *label = arena_alloc(f->a, 2 + 32 + 1);
    strcpy(label, "sb");
    for (int i = 0; i < 16; i++)
      sprintf(label + 2 + i * 2, "%02x", md[i]);
    return fn_out(f, rdf_bnode(label));
  }
  char *u = fn_uuid_text(f);
  for (char *p = u; *p; p++)
    if (*p == '-')
      *p = '_';
  return fn_out(f, rdf_bnode(arena_sprintf(f->a, "sq%s", u)));
}

static char *fn_rand(ARGS)
{
  UNUSED_ARGS;
  uint64_t r;
  fn_random(&r, sizeof r);
  return rdf_sv_num_term(f->a, (rdf_sv_num_t){.k = SV_DBL, .d = (double)(r >> 11) / 9007199254740992.0});
}

static char *fn_uuid(ARGS)
{
  UNUSED_ARGS;
  return fn_out(f, rdf_iri(arena_sprintf(f->a, "urn:uuid:%s", fn_uuid_text(f))));
}

static char *fn_struuid(ARGS)
{
  UNUSED_ARGS;
  char *u = fn_uuid_text(f);
  return fn_plain(f, u, strlen(u));
}

static char *fn_now(ARGS)
{
  UNUSED_ARGS;
  /* The statement's start (one value for the whole query, §17.4.5.1). */
  int64_t us = f->x->xc_stmt_ts;
  struct timespec ts;
  if (!us) {
    clock_gettime(CLOCK_REALTIME, &ts);
    us = ((int64_t)ts.tv_sec - INT64_C(946684800)) * 1000000 + ts.tv_nsec / 1000;
  }
  time_t secs = (time_t)(us / 1000000 + INT64_C(946684800));
  struct tm tm;
  gmtime_r(&secs, &tm);
  char *s = arena_sprintf(f->a, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                          tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)((us / 1000) % 1000));
  return fn_out(f, rdf_sv_lit(s, strlen(s), XSD_NS_FN "dateTime", NULL));
}

static char *fn_rounding(fn_ctx_t *f, const rdf_term_t *t, char how)
{
  rdf_sv_num_t v;
  if (!rdf_sv_num_get(t, &v))
    return NULL;
  if (v.k >= SV_FLT) {
    v.d = how == 'a' ? fabs(v.d) : how == 'c' ? ceil(v.d) : how == 'f' ? floor(v.d) : floor(v.d + 0.5);
    return rdf_sv_num_term(f->a, v);
  }
  if (how == 'a') {
    v.m = v.m < 0 ? -v.m : v.m;
    return rdf_sv_num_term(f->a, v);
  }
  __int128 p = rdf_sv_pow10(v.scale), q = v.m / p, r = v.m % p;
  if (how == 'c' && r > 0)
    q++;
  else if (how == 'f' && r < 0)
    q--;
  else if (how == 'r' && (r * 2 >= p || (r < 0 && -r * 2 > p)))
    q += r > 0 ? 1 : -1;
  v.m = q;
  v.scale = 0;
  return rdf_sv_num_term(f->a, v);
}

static char *fn_abs(ARGS) { UNUSED_ARGS; return fn_rounding(f, &t[0], 'a'); }
static char *fn_ceil(ARGS) { UNUSED_ARGS; return fn_rounding(f, &t[0], 'c'); }
static char *fn_floor(ARGS) { UNUSED_ARGS; return fn_rounding(f, &t[0], 'f'); }
static char *fn_round(ARGS) { UNUSED_ARGS; return fn_rounding(f, &t[0], 'r'); }

static char *fn_concat(ARGS)
{
  UNUSED_ARGS;
  size_t len = 0;
  const char *lang = NULL;
  size_t lang_len = 0;
  bool same_lang = true;
  for (int i = 0; i < n; i++) {
    if (!rdf_sv_is_strlit(&t[i]))
      return NULL;
    len += t[i].rt_len;
    if (i == 0) {
      lang = t[i].rt_lang;
      lang_len = t[i].rt_lang_len;
    } else if (t[i].rt_lang_len != lang_len || (lang_len && strncasecmp(lang, t[i].rt_lang, lang_len) != 0))
      same_lang = false;
  }
  char *s = arena_alloc(f->a, len + 1);
  size_t o = 0;
  for (int i = 0; i < n; i++) {
    memcpy(s + o, t[i].rt_str, t[i].rt_len);
    o += t[i].rt_len;
  }
  s[o] = '\0';
  return fn_out(f, rdf_sv_lit(s, o, NULL, same_lang && lang_len ? rdf_sv_cstr(f->a, lang, lang_len) : NULL));
}

static char *fn_strlen(ARGS)
{
  UNUSED_ARGS;
  if (!rdf_sv_is_strlit(&t[0]))
    return NULL;
  return fn_int(f, (int64_t)fn_utf8_len(t[0].rt_str, t[0].rt_len));
}

static char *fn_changecase(fn_ctx_t *f, const rdf_term_t *t, bool upper)
{
  if (!rdf_sv_is_strlit(t))
    return NULL;
  /* a mapping may change a character's UTF-8 length (ı → I) or make it up
   * to three characters (ΐ → Ϊ́): never more than 3 times its bytes
   * (rdf_case_special.c), one byte may become 4 (a lone byte taken as a
   * character) */
  char *s = arena_alloc(f->a, t->rt_len * 4 + 1);
  size_t o = 0, i = 0;
  while (i < t->rt_len) {
    uint32_t to[3];
    size_t n = fn_case(fn_utf8_get(t->rt_str, t->rt_len, &i), upper, to);
    for (size_t k = 0; k < n; k++)
      o += utf8_put(s + o, to[k]);
  }
  s[o] = '\0';
  return fn_like(f, t, s, o);
}

static char *fn_ucase(ARGS) { UNUSED_ARGS; return fn_changecase(f, &t[0], true); }
static char *fn_lcase(ARGS) { UNUSED_ARGS; return fn_changecase(f, &t[0], false); }

static char *fn_encode_for_uri(ARGS)
{
  UNUSED_ARGS;
  if (!rdf_sv_is_strlit(&t[0]))
    return NULL;
  char *s = arena_alloc(f->a, t[0].rt_len * 3 + 1);
  size_t o = 0;
  for (size_t i = 0; i < t[0].rt_len; i++) {
    unsigned char c = (unsigned char)t[0].rt_str[i];
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      s[o++] = (char)c;
    else
      o += (size_t)sprintf(s + o, "%%%02X", c);
  }
  return fn_plain(f, s, o);
}

static const char *fn_find(const rdf_term_t *h, const rdf_term_t *nd)
{
  if (nd->rt_len == 0)
    return h->rt_str;
  if (nd->rt_len > h->rt_len)
    return NULL;
  return memmem(h->rt_str, h->rt_len, nd->rt_str, nd->rt_len);
}

static char *fn_contains(ARGS)
{
  UNUSED_ARGS;
  if (!fn_compatible(&t[0], &t[1]))
    return NULL;
  return fn_bool(f, fn_find(&t[0], &t[1]) != NULL);
}

static char *fn_strstarts(ARGS)
{
  UNUSED_ARGS;
  if (!fn_compatible(&t[0], &t[1]))
    return NULL;
  return fn_bool(f, t[1].rt_len <= t[0].rt_len && memcmp(t[0].rt_str, t[1].rt_str, t[1].rt_len) == 0);
}

static char *fn_strends(ARGS)
{
  UNUSED_ARGS;
  if (!fn_compatible(&t[0], &t[1]))
    return NULL;
  return fn_bool(f, t[1].rt_len <= t[0].rt_len &&
                        memcmp(t[0].rt_str + t[0].rt_len - t[1].rt_len, t[1].rt_str, t[1].rt_len) == 0);
}

static char *fn_strbefore_after(fn_ctx_t *f, rdf_term_t *t, bool after)
{
  if (!fn_compatible(&t[0], &t[1]))
    return NULL;
  const char *p = fn_find(&t[0], &t[1]);
  if (!p)
    return fn_plain(f, "", 0);
  if (after) {
    const char *s = p + t[1].rt_len;
    return fn_like(f, &t[0], s, (size_t)(t[0].rt_str + t[0].rt_len - s));
  }
  return fn_like(f, &t[0], t[0].rt_str, (size_t)(p - t[0].rt_str));
}

static char *fn_strbefore(ARGS) { UNUSED_ARGS; return fn_strbefore_after(f, t, false); }
static char *fn_strafter(ARGS) { UNUSED_ARGS; return fn_strbefore_after(f, t, true); }

static char *fn_substr(ARGS)
{
  UNUSED_ARGS;
  rdf_sv_num_t s, l;
  if (!rdf_sv_is_strlit(&t[0]) || !rdf_sv_num_get(&t[1], &s) || (n > 2 && !rdf_sv_num_get(&t[2], &l)))
    return NULL;
  /* XPath fn:substring: the characters at positions p with
   * round(start) <= p < round(start) + round(length). */
  double st = floor(rdf_sv_num_dbl(&s) + 0.5), end = n > 2 ? st + floor(rdf_sv_num_dbl(&l) + 0.5) : INFINITY;
  if (isnan(st) || isnan(end))
    return fn_like(f, &t[0], "", 0);
  size_t nc = fn_utf8_len(t[0].rt_str, t[0].rt_len);
  double from = st < 1 ? 1 : st, to = end > (double)nc + 1 ? (double)nc + 1 : end;
  if (to <= from)
    return fn_like(f, &t[0], "", 0);
  size_t b = fn_utf8_off(t[0].rt_str, t[0].rt_len, (size_t)from - 1);
  size_t e = fn_utf8_off(t[0].rt_str, t[0].rt_len, (size_t)to - 1);
  return fn_like(f, &t[0], t[0].rt_str + b, e - b);
}

static char *fn_datepart(fn_ctx_t *f, const rdf_term_t *t, char what)
{
  rdf_sv_dt_t d;
  if (!rdf_sv_dt_get(t, &d, false))
    return NULL;
  switch (what) {
  case 'Y': return fn_int(f, d.year);
  case 'M': return fn_int(f, d.month);
  case 'D': return fn_int(f, d.day);
  case 'h': return fn_int(f, d.hour);
  case 'm': return fn_int(f, d.minute);
  case 's': {
    rdf_term_t dec = rdf_sv_lit(rdf_sv_cstr(f->a, d.sec, d.sec_len), d.sec_len, XSD_NS_FN "decimal", NULL);
    rdf_sv_num_t v;
    if (!rdf_sv_num_get(&dec, &v))
      return NULL;
    return rdf_sv_num_term(f->a, v);
  }
  case 'z': {
    if (!d.has_tz)
      return NULL;
    int m = d.tz_min < 0 ? -d.tz_min : d.tz_min;
    char *s = m == 0 ? "PT0S"
                     : arena_sprintf(f->a, "%sPT%s%s", d.tz_min < 0 ? "-" : "",
                                     m / 60 ? arena_sprintf(f->a, "%dH", m / 60) : "",
                                     m % 60 ? arena_sprintf(f->a, "%dM", m % 60) : "");
    return fn_out(f, rdf_sv_lit(s, strlen(s), XSD_NS_FN "dayTimeDuration", NULL));
  }
  default:
    return fn_plain(f, d.tz, strlen(d.tz));
  }
}

static char *fn_year(ARGS) { UNUSED_ARGS; return fn_datepart(f, &t[0], 'Y'); }
static char *fn_month(ARGS) { UNUSED_ARGS; return fn_datepart(f, &t[0], 'M'); }
static char *fn_day(ARGS) { UNUSED_ARGS; return fn_datepart(f, &t[0], 'D'); }
static char *fn_hours(ARGS) { UNUSED_ARGS; return fn_datepart(f, &t[0], 'h'); }
static char *fn_minutes(ARGS) { UNUSED_ARGS; return fn_datepart(f, &t[0], 'm'); }
static char *fn_seconds(ARGS) { UNUSED_ARGS; return fn_datepart(f, &t[0], 's'); }
static char *fn_timezone(ARGS) { UNUSED_ARGS; return fn_datepart(f, &t[0], 'z'); }
static char *fn_tz(ARGS) { UNUSED_ARGS; return fn_datepart(f, &t[0], 't'); }

static char *fn_hash(fn_ctx_t *f, const rdf_term_t *t, const char *alg)
{
  if (!rdf_sv_is_plain(t))
    return NULL;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  const EVP_MD *m = EVP_get_digestbyname(alg);
  if (!m || !EVP_Digest(t->rt_str, t->rt_len, md, &len, m, NULL))
    return NULL;
  char *s = arena_alloc(f->a, len * 2 + 1);
  for (unsigned i = 0; i < len; i++)
    sprintf(s + i * 2, "%02x", md[i]);
  return fn_plain(f, s, len * 2);
}

static char *fn_md5(ARGS) { UNUSED_ARGS; return fn_hash(f, &t[0], "MD5"); }
static char *fn_sha1(ARGS) { UNUSED_ARGS; return fn_hash(f, &t[0], "SHA1"); }
static char *fn_sha256(ARGS) { UNUSED_ARGS; return fn_hash(f, &t[0], "SHA256"); }
static char *fn_sha384(ARGS) { UNUSED_ARGS; return fn_hash(f, &t[0], "SHA384"); }
static char *fn_sha512(ARGS) { UNUSED_ARGS; return fn_hash(f, &t[0], "SHA512"); }

static char *fn_strlang(ARGS)
{
  UNUSED_ARGS;
  if (!rdf_sv_is_plain(&t[0]) || !rdf_sv_is_plain(&t[1]) || t[1].rt_len == 0)
    return NULL;
  char *l = rdf_sv_cstr(f->a, t[1].rt_str, t[1].rt_len);
  for (char *p = l; *p; p++) {
    if (!isalnum((unsigned char)*p) && *p != '-')
      return NULL;
    *p = (char)tolower((unsigned char)*p);
  }
  return fn_out(f, rdf_sv_lit(t[0].rt_str, t[0].rt_len, NULL, l));
}

static char *fn_strdt(ARGS)
{
  UNUSED_ARGS;
  if (!rdf_sv_is_plain(&t[0]) || t[1].rt_kind != RDF_IRI)
    return NULL;
  return fn_out(f, rdf_sv_lit(t[0].rt_str, t[0].rt_len, rdf_sv_cstr(f->a, t[1].rt_str, t[1].rt_len), NULL));
}

static char *fn_isnumeric(ARGS)
{
  UNUSED_ARGS;
  rdf_sv_num_t v;
  bool num = rdf_sv_num_get(&t[0], &v);
  if (!num && rdf_sv_is_lit(&t[0]) && t[0].rt_dt && rdf_xsd_is_numeric(rdf_xsd_of(&t[0]))) {
    rdf_xsd_val_t xv; /* a valid number too big to compute with is still numeric */
    num = rdf_xsd_parse(rdf_xsd_of(&t[0]), t[0].rt_str, t[0].rt_len, &xv, NULL) == CZ_OK;
  }
  return fn_bool(f, num);
}

static char *fn_regex_call(ARGS)
{
  UNUSED_ARGS;
  if (!rdf_sv_is_strlit(&t[0]) || !rdf_sv_is_plain(&t[1]) || (n > 2 && !rdf_sv_is_plain(&t[2])))
    return NULL;
  pcre2_match_context *mc;
  pcre2_code *code = fn_regex(&t[1], n > 2 ? &t[2] : NULL, &mc);
  if (!code)
    return NULL;
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
  if (!md)
    return NULL;
  int rc = pcre2_match(code, (PCRE2_SPTR)t[0].rt_str, t[0].rt_len, 0, 0, md, mc);
  pcre2_match_data_free(md);
  if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
    return NULL;
  return fn_bool(f, rc >= 0);
}

static char *fn_replace(ARGS)
{
  UNUSED_ARGS;
  if (!rdf_sv_is_strlit(&t[0]) || !rdf_sv_is_plain(&t[1]) || !rdf_sv_is_plain(&t[2]) || (n > 3 && !rdf_sv_is_plain(&t[3])))
    return NULL;
  pcre2_match_context *mc;
  pcre2_code *code = fn_regex(&t[1], n > 3 ? &t[3] : NULL, &mc);
  if (!code)
    return NULL;
  /* XPath's replacement: $N a group, \$ and \\ escapes; PCRE2's: $$ for $. */
  char *rep = arena_alloc(f->a, t[2].rt_len * 2 + 1);
  size_t o = 0;
  for (size_t i = 0; i < t[2].rt_len; i++) {
    char c = t[2].rt_str[i];
    if (c == '\\' && i + 1 < t[2].rt_len && (t[2].rt_str[i + 1] == '$' || t[2].rt_str[i + 1] == '\\')) {
      if (t[2].rt_str[++i] == '$')
        rep[o++] = '$';
      rep[o++] = t[2].rt_str[i];
    } else if (c == '\\') {
      return NULL;
    } else {
      rep[o++] = c;
    }
  }
  PCRE2_SIZE cap = t[0].rt_len * 2 + 64;
  for (int round = 0; round < 8; round++) {
    PCRE2_UCHAR *buf = arena_alloc(f->a, cap + 1);
    PCRE2_SIZE len = cap;
    int rc = pcre2_substitute(code, (PCRE2_SPTR)t[0].rt_str, t[0].rt_len, 0,
                              PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH | PCRE2_SUBSTITUTE_UNSET_EMPTY, NULL, mc,
                              (PCRE2_SPTR)rep, o, buf, &len);
    if (rc >= 0)
      return fn_like(f, &t[0], (char *)buf, len);
    if (rc != PCRE2_ERROR_NOMEMORY)
      return NULL;
    cap = len;
  }
  return NULL;
}

/* The binary operators and unary minus and plus. */
static char *fn_arith_call(fn_ctx_t *f, rdf_term_t *t, int n, char op)
{
  rdf_sv_num_t a, b, r;
  if (!rdf_sv_num_get(&t[0], &a))
    return NULL;
  if (n == 1) {
    if (op == '-') {
      if (a.k >= SV_FLT)
        a.d = -a.d;
      else
        a.m = -a.m;
    }
    if (a.k == SV_INT || a.k == SV_DEC || a.k == SV_FLT || a.k == SV_DBL)
      return rdf_sv_num_term(f->a, a);
  }
  if (!rdf_sv_num_get(&t[1], &b) || !rdf_sv_arith(op, a, b, &r))
    return NULL;
  return rdf_sv_num_term(f->a, r);
}

static char *fn_add(ARGS) { UNUSED_ARGS; return fn_arith_call(f, t, n, '+'); }
static char *fn_sub(ARGS) { UNUSED_ARGS; return fn_arith_call(f, t, n, '-'); }
static char *fn_mul(ARGS) { UNUSED_ARGS; return fn_arith_call(f, t, n, '*'); }
static char *fn_div(ARGS) { UNUSED_ARGS; return fn_arith_call(f, t, n, '/'); }

/* A float or double as XPath's cast to xs:string writes it (XPath F&O
 * §19.1.2.2): the shortest digits that read back as the same value, in
 * plain decimal notation when 1e-6 <= |d| < 1e6 ("1", "-7.875"), else as
 * mantissa and exponent ("1.0E7", "1.5E-7"); "0", "-0", "NaN", "INF". */
static void fn_xpath_float_text(double d, bool single, char *out, size_t cap)
{
  if (isnan(d) || isinf(d) || d == 0) {
    snprintf(out, cap, "%s", isnan(d) ? "NaN" : isinf(d) ? (d < 0 ? "-INF" : "INF") : signbit(d) ? "-0" : "0");
    return;
  }
  char buf[40];
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, sizeof buf, "%.*e", p - 1, d);
    double back = strtod(buf, NULL);
    if (single ? (float)back == (float)d : back == d)
      break;
  }
  /* buf: [-]D[.DDD]e±X — the digits alone, trailing zeros dropped */
  const char *q = buf;
  bool neg = *q == '-';
  q += neg;
  char dig[24];
  int nd = 0;
  for (; *q && *q != 'e'; q++)
    if (*q != '.')
      dig[nd++] = *q;
  int exp = atoi(q + 1);
  while (nd > 1 && dig[nd - 1] == '0')
    nd--;
  size_t o = 0;
  char *w = out;
#define FX_PUT(ch) (o + 1 < cap ? (void)(w[o++] = (ch)) : (void)0)
  if (neg)
    FX_PUT('-');
  double ad = fabs(d);
  if (ad >= 1e-6 && ad < 1e6) {
    if (exp < 0) {
      FX_PUT('0');
      FX_PUT('.');
      for (int i = 0; i < -exp - 1; i++)
        FX_PUT('0');
      for (int i = 0; i < nd; i++)
        FX_PUT(dig[i]);
    } else {
      for (int i = 0; i <= exp; i++)
        FX_PUT(i < nd ? dig[i] : '0');
      if (nd > exp + 1) {
        FX_PUT('.');
        for (int i = exp + 1; i < nd; i++)
          FX_PUT(dig[i]);
      }
    }
    w[o] = 0;
  } else {
    FX_PUT(dig[0]);
    FX_PUT('.');
    for (int i = 1; i < nd; i++)
      FX_PUT(dig[i]);
    if (nd == 1)
      FX_PUT('0');
    w[o] = 0;
    size_t l = strlen(out);
    snprintf(out + l, cap - l, "E%d", exp);
  }
#undef FX_PUT
}

/* xsd:string(term): an IRI's string, a literal's lexical form — except a
 * valid boolean or number, which is written as XPath casts its value to
 * xs:string (cast-string: "0"^^xsd:boolean is "false", 1.0 and 1E0 are
 * "1"); dates and times keep their lexical form. */
static char *fn_cast_string(fn_ctx_t *f, const rdf_term_t *v)
{
  if (rdf_sv_is_lit(v) && !v->rt_lang_len && v->rt_dt) {
    rdf_xsd_t from = rdf_xsd_of(v);
    if (from == XSD_BOOLEAN) {
      rdf_xsd_val_t xv;
      if (rdf_xsd_parse(from, v->rt_str, v->rt_len, &xv, NULL) == CZ_OK)
        return fn_plain(f, xv.xv_bool ? "true" : "false", xv.xv_bool ? 4 : 5);
    }
    rdf_sv_num_t num;
    if (rdf_xsd_is_numeric(from) && rdf_sv_num_get(v, &num) && num.scale <= 60) {
      char buf[128];
      if (num.k == SV_FLT || num.k == SV_DBL) {
        fn_xpath_float_text(num.d, num.k == SV_FLT, buf, sizeof buf);
      } else {
        /* integer, or a decimal without trailing zeros ("1.0" is "1") */
        __int128 m = num.m;
        int scale = num.scale;
        while (scale > 0 && m % 10 == 0) {
          m /= 10;
          scale--;
        }
        char digits[64];
        rdf_sv_i128_text(digits, m < 0 ? -m : m);
        size_t nd = strlen(digits), o = 0, sc = (size_t)scale;
        if (m < 0)
          buf[o++] = '-';
        size_t whole = nd > sc ? nd - sc : 0;  /* digits before the point */
        if (!whole)
          buf[o++] = '0';
        memcpy(buf + o, digits, whole);
        o += whole;
        if (sc) {
          buf[o++] = '.';
          for (size_t i = nd; i < sc; i++)
            buf[o++] = '0';
          memcpy(buf + o, digits + whole, nd - whole);
          o += nd - whole;
        }
        buf[o] = 0;
      }
      return fn_plain(f, buf, strlen(buf));
    }
  }
  return fn_plain(f, v->rt_str, v->rt_len);
}

/* XPath casts (§17.5) to one xsd type: cast(target-iri, term). */
static char *fn_cast(ARGS)
{
  UNUSED_ARGS;
  if (t[0].rt_kind != RDF_IRI)
    return NULL;
  rdf_xsd_t to = rdf_xsd_from_iri(t[0].rt_str, t[0].rt_len);
  rdf_term_t *v = &t[1];
  if (v->rt_kind == RDF_BNODE)
    return NULL;
  if (to == XSD_STRING)
    return fn_cast_string(f, v);
  if (v->rt_kind == RDF_IRI || v->rt_lang_len)
    return NULL;
  rdf_xsd_t from = rdf_xsd_of(v);
  rdf_sv_num_t num;
  bool isnum = rdf_sv_num_get(v, &num);
  if (from == XSD_STRING) {
    /* A string is cast by its lexical form (whitespace collapsed at the
     * ends, as XML Schema's facets say for these types). */
    size_t b = 0, e = v->rt_len;
    while (b < e && isspace((unsigned char)v->rt_str[b]))
      b++;
    while (e > b && isspace((unsigned char)v->rt_str[e - 1]))
      e--;
    char *lex = rdf_sv_cstr(f->a, v->rt_str + b, e - b);
    rdf_xsd_val_t xv;
    if (rdf_xsd_parse(to, lex, e - b, &xv, NULL) != CZ_OK || to == XSD_OTHER)
      return NULL;
    char canon[96];
    int cl = rdf_xsd_canonical(&xv, lex, e - b, canon, sizeof canon);
    const char *out = cl >= 0 ? canon : lex;
    return fn_out(f, rdf_sv_lit(out, strlen(out), rdf_xsd_iri(to), NULL));
  }
  if (to == XSD_BOOLEAN) {
    if (from == XSD_BOOLEAN) {
      rdf_xsd_val_t xv;
      if (rdf_xsd_parse(from, v->rt_str, v->rt_len, &xv, NULL) != CZ_OK)
        return NULL;
      return fn_bool(f, xv.xv_bool);
    }
    if (!isnum)
      return NULL;
    bool nan;
    bool z = rdf_sv_num_cmp(num, (rdf_sv_num_t){.k = SV_INT}, &nan) == 0 || nan;
    return fn_bool(f, !z);
  }
  if (rdf_xsd_is_numeric(to)) {
    if (from == XSD_BOOLEAN) {
      rdf_xsd_val_t xv;
      if (rdf_xsd_parse(from, v->rt_str, v->rt_len, &xv, NULL) != CZ_OK)
        return NULL;
      num = (rdf_sv_num_t){.k = SV_INT, .m = xv.xv_bool};
    } else if (!isnum) {
      return NULL;
    }
    rdf_sv_num_t r = num;
    if (to == XSD_DOUBLE || to == XSD_FLOAT) {
      r.d = rdf_sv_num_dbl(&num);
      r.k = to == XSD_DOUBLE ? SV_DBL : SV_FLT;
      return rdf_sv_num_term(f->a, r);
    }
    if (to == XSD_DECIMAL) {
      if (num.k >= SV_FLT) {
        if (!isfinite(num.d) || fabs(num.d) > 1e30)
          return NULL;
        char buf[64];
        snprintf(buf, sizeof buf, "%.17g", num.d);
        rdf_term_t dl = rdf_sv_lit(buf, strlen(buf), XSD_NS_FN "decimal", NULL);
        if (!strchr(buf, 'e') && rdf_sv_num_get(&dl, &r))
          return rdf_sv_num_term(f->a, (r.k = SV_DEC, r));
        return NULL;
      }
      r.k = SV_DEC;
      return rdf_sv_num_term(f->a, r);
    }
    /* integer (and derived types: checked against their range) */
    if (num.k >= SV_FLT) {
      if (!isfinite(num.d) || fabs(num.d) > 9.2e18)
        return NULL;
      r = (rdf_sv_num_t){.k = SV_INT, .m = (__int128)trunc(num.d)};
    } else {
      r = (rdf_sv_num_t){.k = SV_INT, .m = num.m / rdf_sv_pow10(num.scale)};
    }
    char buf[64];
    rdf_sv_i128_text(buf, r.m);
    rdf_xsd_val_t xv;
    if (rdf_xsd_parse(to, buf, strlen(buf), &xv, NULL) != CZ_OK)
      return NULL;
    return fn_out(f, rdf_sv_lit(buf, strlen(buf), rdf_xsd_iri(to), NULL));
  }
  if (to == XSD_DATETIME || to == XSD_DATE) {
    if (from != to)
      return NULL;
    return fn_out(f, *v);
  }
  return NULL;
}

static const struct {
  const char *name;
  int min, max;
  fn_impl_t fn;
} fn_table[] = {
    {"str", 1, 1, fn_str},           {"lang", 1, 1, fn_lang},
    {"datatype", 1, 1, fn_datatype}, {"langMatches", 2, 2, fn_langmatches},
    {"iri", 1, 1, fn_iri},           {"uri", 1, 1, fn_iri},
    {"bnode", 0, 2, fn_bnode},       {"rand", 0, 0, fn_rand},
    {"abs", 1, 1, fn_abs},           {"ceil", 1, 1, fn_ceil},
    {"floor", 1, 1, fn_floor},       {"round", 1, 1, fn_round},
    {"concat", 0, 64, fn_concat},    {"strlen", 1, 1, fn_strlen},
    {"ucase", 1, 1, fn_ucase},       {"lcase", 1, 1, fn_lcase},
    {"encode_for_uri", 1, 1, fn_encode_for_uri},
    {"contains", 2, 2, fn_contains}, {"strstarts", 2, 2, fn_strstarts},
    {"strends", 2, 2, fn_strends},   {"strbefore", 2, 2, fn_strbefore},
    {"strafter", 2, 2, fn_strafter}, {"substr", 2, 3, fn_substr},
    {"year", 1, 1, fn_year},         {"month", 1, 1, fn_month},
    {"day", 1, 1, fn_day},           {"hours", 1, 1, fn_hours},
    {"minutes", 1, 1, fn_minutes},   {"seconds", 1, 1, fn_seconds},
    {"timezone", 1, 1, fn_timezone}, {"tz", 1, 1, fn_tz},
    {"now", 0, 0, fn_now},           {"uuid", 0, 0, fn_uuid},
    {"struuid", 0, 0, fn_struuid},   {"md5", 1, 1, fn_md5},
    {"sha1", 1, 1, fn_sha1},         {"sha256", 1, 1, fn_sha256},
    {"sha384", 1, 1, fn_sha384},     {"sha512", 1, 1, fn_sha512},
    {"strlang", 2, 2, fn_strlang},   {"strdt", 2, 2, fn_strdt},
    {"isNumeric", 1, 1, fn_isnumeric}, {"regex", 2, 3, fn_regex_call},
    {"replace", 3, 4, fn_replace},   {"+", 1, 2, fn_add},
    {"-", 1, 2, fn_sub},             {"*", 2, 2, fn_mul},
    {"/", 2, 2, fn_div},             {"cast", 2, 2, fn_cast},
};

/* Whether sparql_fn knows name (the compiler asks before it emits a call). */
bool rdf_sparql_fn_known(const char *name)
{
  for (size_t i = 0; i < sizeof fn_table / sizeof fn_table[0]; i++)
    if (strcmp(fn_table[i].name, name) == 0)
      return true;
  return false;
}

static char *rs_dup(xctx_t *c, const datum_t *d)
{
  return rdf_sv_strndup(c->xc_arena, d->d_str.s_ptr, d->d_str.s_len);
}

static void rs_text(datum_t *out, const char *s)
{
  *out = (datum_t){.d_null = s == NULL};
  if (s)
    out->d_str = (str_t){(char *)s, (uint32_t)strlen(s)};
}

/* sparql_fn(name, term…): NULL for an error or an unbound argument. */
static int rs_fn(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)e;
  *out = (datum_t){.d_null = true};
  if (a[0].d_null)
    return CZ_OK;
  char *name = rs_dup(c, &a[0]);
  int n = x->x_nargs - 1;
  for (size_t i = 0; i < sizeof fn_table / sizeof fn_table[0]; i++) {
    if (strcmp(fn_table[i].name, name) != 0)
      continue;
    if (n < fn_table[i].min || n > fn_table[i].max)
      return err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "SPARQL function %s does not take %d arguments", name, n);
    fn_ctx_t f = {.x = c, .a = c->xc_arena};
    rdf_term_t *t = arena_zalloc(c->xc_arena, sizeof(rdf_term_t) * (size_t)(n + 1));
    for (int k = 0; k < n; k++)
      if (a[k + 1].d_null || !rdf_sv_parse(c->xc_arena, a[k + 1].d_str.s_ptr, a[k + 1].d_str.s_len, &t[k]))
        return CZ_OK;
    bool bad = false;
    rs_text(out, fn_table[i].fn(&f, t, n, &bad));
    return CZ_OK;
  }
  return err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "unknown SPARQL function %s", name);
}

/* ---- comparisons, EBV, order --------------------------------------------- */

static int rs_cmp(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  rdf_term_t ta, tb;
  *out = (datum_t){.d_null = true};
  if (!rdf_sv_parse(c->xc_arena, a[1].d_str.s_ptr, a[1].d_str.s_len, &ta) ||
      !rdf_sv_parse(c->xc_arena, a[2].d_str.s_ptr, a[2].d_str.s_len, &tb))
    return CZ_OK;
  int r = rdf_sv_compare(rs_dup(c, &a[0]), &ta, &tb);
  if (r >= 0)
    *out = (datum_t){.d_bool = r == 1};
  return CZ_OK;
}

/* The effective boolean value (§17.2.2); NULL for an error. */
static int rs_ebv(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  rdf_term_t t;
  *out = (datum_t){.d_null = true};
  if (!rdf_sv_parse(c->xc_arena, a[0].d_str.s_ptr, a[0].d_str.s_len, &t) || !rdf_sv_is_lit(&t))
    return CZ_OK;
  rdf_xsd_t k = rdf_xsd_of(&t);
  if (rdf_sv_is_plain(&t)) {
    *out = (datum_t){.d_bool = t.rt_len > 0};
  } else if (k == XSD_BOOLEAN) {
    rdf_xsd_val_t v;
    *out = (datum_t){.d_bool = rdf_xsd_parse(k, t.rt_str, t.rt_len, &v, NULL) == CZ_OK && v.xv_bool};
  } else if (rdf_xsd_is_numeric(k)) {
    rdf_sv_num_t n;
    bool nan;
    *out = (datum_t){.d_bool = rdf_sv_num_get(&t, &n) && rdf_sv_num_cmp(n, (rdf_sv_num_t){.k = SV_INT}, &nan) != 0 && !nan};
  }
  return CZ_OK;
}

/* A text whose byte order is SPARQL's ORDER BY order (§15.1): blank
 * nodes, IRIs, literals; among literals numbers by value, then dateTimes
 * by value, then the rest by their lexical form. Blank nodes, IRIs and
 * those literals compare by their label, IRI or lexical form as strings
 * (IRIs "as simple literals"): that text, then the separator \x01, which
 * sorts below every character, so a string comes before its extensions
 * (`<…/Offer1>` before `<…/Offer10>`; the N-Triples text alone put the
 * closing `>` against the `0`). Bytes 0 and 1 inside it count as 2 —
 * control characters only, there to keep the separator unique. The
 * term's own text follows the separator, so equal values of two types
 * stay apart and the term can be read back (sparql_order_term). */
static int rs_order_key(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  rdf_term_t t;
  *out = (datum_t){.d_null = true};
  if (!rdf_sv_parse(c->xc_arena, a[0].d_str.s_ptr, a[0].d_str.s_len, &t))
    return CZ_OK;
  rdf_sv_num_t n;
  rdf_sv_dt_t d;
  bool b;
  rdf_sv_cat_t k = rdf_sv_category(&t, &n, &d, &b);
  char rank;
  double v = 0;
  if (t.rt_kind == RDF_BNODE)
    rank = '1';
  else if (t.rt_kind == RDF_IRI)
    rank = '2';
  else if (k == SV_C_NUM) {
    rank = '3';
    v = rdf_sv_num_dbl(&n);
  } else if (k == SV_C_DT || k == SV_C_DATE) {
    rank = '4';
    v = d.epoch;
  } else
    rank = '5';
  char key[24] = "";
  const char *text = "";
  size_t text_len = 0;
  if (rank == '3' || rank == '4') {
    /* the double's bits made order-preserving as unsigned, in hex */
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    u = (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
    snprintf(key, sizeof key, "%016llx", (unsigned long long)u);
  } else {
    char *s = arena_alloc(c->xc_arena, t.rt_len + 1);
    for (size_t i = 0; i < t.rt_len; i++)
      s[i] = (unsigned char)t.rt_str[i] < 2 ? '\x02' : t.rt_str[i];
    text = s;
    text_len = t.rt_len;
  }
  rs_text(out, arena_sprintf(c->xc_arena, "%c%s%.*s\x01%.*s", rank, key, (int)text_len, text,
                             (int)a[0].d_str.s_len, a[0].d_str.s_ptr));
  return CZ_OK;
}

/* The term of an order key. */
static int rs_order_term(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c, (void)x, (void)e;
  const char *s = a[0].d_str.s_ptr;
  const char *p = memchr(s, '\x01', a[0].d_str.s_len);
  *out = (datum_t){.d_null = p == NULL};
  if (p)
    out->d_str = (str_t){(char *)p + 1, (uint32_t)(a[0].d_str.s_len - (size_t)(p + 1 - s))};
  return CZ_OK;
}

/* For SUM and AVG: a number's kind (1 integer … 4 double), NULL for
 * anything else, and its value as text SQL can cast to numeric. */
static int rs_numtype(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  rdf_term_t t;
  rdf_sv_num_t n;
  *out = (datum_t){.d_null = true};
  if (rdf_sv_parse(c->xc_arena, a[0].d_str.s_ptr, a[0].d_str.s_len, &t) && rdf_sv_num_get(&t, &n))
    *out = (datum_t){.d_i64 = n.k == SV_INT ? 1 : n.k == SV_DEC ? 2 : n.k == SV_FLT ? 3 : 4};
  return CZ_OK;
}

static int rs_num(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  rdf_term_t t;
  rdf_sv_num_t n;
  *out = (datum_t){.d_null = true};
  if (!rdf_sv_parse(c->xc_arena, a[0].d_str.s_ptr, a[0].d_str.s_len, &t) || !rdf_sv_num_get(&t, &n))
    return CZ_OK;
  if (n.k >= SV_FLT) {
    if (!isfinite(n.d))
      return CZ_OK;
    rs_text(out, arena_sprintf(c->xc_arena, "%.17g", n.d));
  } else {
    rdf_term_t dl;
    char *s = rdf_sv_num_term(c->xc_arena, (n.k = SV_DEC, n));
    if (!s || !rdf_sv_parse(c->xc_arena, s, strlen(s), &dl))
      return CZ_OK;
    rs_text(out, rdf_sv_cstr(c->xc_arena, dl.rt_str, dl.rt_len));
  }
  return CZ_OK;
}

/* sparql_num_term(value text, kind int8): the literal of a SUM or AVG. */
static int rs_num_term(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  *out = (datum_t){.d_null = true};
  if (a[0].d_null || a[1].d_null)
    return CZ_OK;
  int64_t k = a[1].d_i64;
  char *s = rs_dup(c, &a[0]);
  /* SQL numeric's quotient (AVG) may carry more digits than an exact
   * decimal here holds (18): cut fraction digits to fit. */
  char *dot = strchr(s, '.');
  if (dot && !strpbrk(s, "eE")) {
    size_t digits = 0;
    for (char *p = s; *p; p++)
      digits += isdigit((unsigned char)*p) != 0;
    size_t frac = strlen(dot + 1);
    while (digits > 18 && frac > 1) {
      dot[frac--] = '\0';
      digits--;
    }
  }
  rdf_term_t t = rdf_sv_lit(s, strlen(s), k >= 3 ? XSD_NS_FN "double" : XSD_NS_FN "decimal", NULL);
  rdf_sv_num_t n;
  if (!rdf_sv_num_get(&t, &n)) {
    /* SQL numeric text may carry more digits than our decimal: as double */
    n = (rdf_sv_num_t){.k = SV_DBL, .d = strtod(s, NULL)};
    if (k < 3)
      return CZ_OK;
  }
  if (k == 1 && n.k == SV_DEC) {
    if (n.m % rdf_sv_pow10(n.scale) != 0)
      return CZ_OK;
    n = (rdf_sv_num_t){.k = SV_INT, .m = n.m / rdf_sv_pow10(n.scale)};
  }
  if (k == 3)
    n.k = SV_FLT;
  rs_text(out, rdf_sv_num_term(c->xc_arena, n));
  return CZ_OK;
}

/* sparql_lex(t): STR's lexical form as SQL text (GROUP_CONCAT). */
static int rs_lex(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  rdf_term_t t;
  *out = (datum_t){.d_null = true};
  if (rdf_sv_parse(c->xc_arena, a[0].d_str.s_ptr, a[0].d_str.s_len, &t) && t.rt_kind != RDF_BNODE)
    rs_text(out, rdf_sv_cstr(c->xc_arena, t.rt_str, t.rt_len));
  return CZ_OK;
}

/* sparql_plain(s): a simple literal of SQL text. */
static int rs_plain(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  rdf_term_t t = rdf_sv_lit(a[0].d_str.s_ptr, a[0].d_str.s_len, NULL, NULL);
  rs_text(out, rdf_term_ntriples(&t, c->xc_arena));
  return CZ_OK;
}

/* sparql_agg_list(kind, terms, sep): SUM, AVG or GROUP_CONCAT over
 * terms joined by \x01 (string_agg(DISTINCT t, E'\x01'): DISTINCT by
 * term, as §18.5.1 says, which SQL's numeric sum cannot do). N-Triples
 * text escapes every C0 control, so \x01 separates unambiguously. */
static int rs_agg_list(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  *out = (datum_t){.d_null = true};
  if (a[0].d_null)
    return CZ_OK;
  char *kind = rs_dup(c, &a[0]);
  bool concat = strcmp(kind, "group_concat") == 0;
  fn_ctx_t f = {.x = c, .a = c->xc_arena};
  const char *s = a[1].d_null ? "" : a[1].d_str.s_ptr;
  size_t n = a[1].d_null ? 0 : a[1].d_str.s_len, i = 0;
  rdf_sv_num_t sum = {.k = SV_INT};
  int64_t count = 0;
  char *text = arena_strdup(c->xc_arena, "");
  size_t tlen = 0;
  const char *sep = a[2].d_null ? " " : rs_dup(c, &a[2]);
  while (i < n) {
    const char *end = memchr(s + i, '\x01', n - i);
    size_t len = end ? (size_t)(end - (s + i)) : n - i;
    rdf_term_t t;
    if (!rdf_sv_parse(c->xc_arena, s + i, len, &t))
      return CZ_OK;
    if (concat) {
      if (t.rt_kind == RDF_BNODE)
        return CZ_OK;
      char *grown = arena_alloc(c->xc_arena, tlen + strlen(sep) + t.rt_len + 1);
      size_t o = 0;
      memcpy(grown, text, tlen);
      o = tlen;
      if (count) {
        memcpy(grown + o, sep, strlen(sep));
        o += strlen(sep);
      }
      memcpy(grown + o, t.rt_str, t.rt_len);
      o += t.rt_len;
      grown[o] = '\0';
      text = grown;
      tlen = o;
    } else {
      rdf_sv_num_t v;
      if (!rdf_sv_num_get(&t, &v) || !rdf_sv_arith('+', sum, v, &sum))
        return CZ_OK;
    }
    count++;
    i += len + 1;
  }
  if (concat) {
    rs_text(out, fn_plain(&f, text, tlen));
  } else if (strcmp(kind, "avg") == 0 && count) {
    rdf_sv_num_t avg;
    if (rdf_sv_arith('/', sum, (rdf_sv_num_t){.k = SV_INT, .m = count}, &avg))
      rs_text(out, rdf_sv_num_term(c->xc_arena, avg));
  } else {
    rs_text(out, rdf_sv_num_term(c->xc_arena, sum));
  }
  return CZ_OK;
}

/* sparql_order_num(t): for ORDER BY over ids, a number's place among the
 * inline numbers — the inline id of its value (its canonical form when
 * that fits, else the double of its value rounded to 15 digits, which
 * orders the same except between values closer than that); for a
 * boolean, date or dateTime the inline id of its canonical form (dates
 * and dateTimes by instant) when it has one; NULL otherwise (or NaN,
 * INF). */
static int rs_order_num(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  rdf_term_t t;
  *out = (datum_t){.d_null = true};
  if (!rdf_sv_parse(c->xc_arena, a[0].d_str.s_ptr, a[0].d_str.s_len, &t) || !rdf_sv_is_lit(&t) || !t.rt_dt)
    return CZ_OK;
  rdf_xsd_t k = rdf_xsd_of(&t);
  rdf_xsd_val_t v;
  bool timed = k == XSD_DATE || k == XSD_DATETIME || k == XSD_BOOLEAN;
  if ((!rdf_xsd_is_numeric(k) && !timed) || rdf_xsd_parse(k, t.rt_str, t.rt_len, &v, NULL) != CZ_OK)
    return CZ_OK;
  char canon[128];
  rdf_id_t id = 0;
  if (timed) {
    if (rdf_xsd_canonical(&v, t.rt_str, t.rt_len, canon, sizeof canon) > 0) {
      rdf_term_t ct = rdf_sv_lit(canon, strlen(canon), rdf_sv_cstr(c->xc_arena, t.rt_dt, t.rt_dt_len), NULL);
      id = rdf_id_encode_literal(&ct);
    }
    if (id)
      *out = (datum_t){.d_i64 = (int64_t)id};
    return CZ_OK;
  }
  if (rdf_xsd_canonical(&v, t.rt_str, t.rt_len, canon, sizeof canon) > 0) {
    rdf_term_t ct = rdf_sv_lit(canon, strlen(canon), rdf_sv_cstr(c->xc_arena, t.rt_dt, t.rt_dt_len), NULL);
    id = rdf_id_encode_literal(&ct);
  }
  if (!id) {
    double d = v.xv_big || k == XSD_DOUBLE || k == XSD_FLOAT ? strtod(t.rt_str, NULL) : 0;
    if (!v.xv_big && k != XSD_DOUBLE && k != XSD_FLOAT) {
      rdf_sv_num_t n;
      if (!rdf_sv_num_get(&t, &n))
        return CZ_OK;
      d = rdf_sv_num_dbl(&n);
    }
    if (!isfinite(d))
      return CZ_OK;
    char dl[64];
    snprintf(dl, sizeof dl, "%.14E", d);
    rdf_term_t dt = rdf_sv_lit(dl, strlen(dl), XSD_NS_FN "double", NULL);
    rdf_xsd_val_t dv;
    if (rdf_xsd_parse(XSD_DOUBLE, dl, strlen(dl), &dv, NULL) != CZ_OK ||
        rdf_xsd_canonical(&dv, dl, strlen(dl), canon, sizeof canon) <= 0)
      return CZ_OK;
    dt = rdf_sv_lit(canon, strlen(canon), XSD_NS_FN "double", NULL);
    id = rdf_id_encode_literal(&dt);
  }
  if (id)
    *out = (datum_t){.d_i64 = (int64_t)id};
  return CZ_OK;
}

#define T TY_TEXT
static const xfunc_def_t rs_fn_defs[] = {
    {.fd_name = "sparql_order_num", .fd_nargs = 1, .fd_args = {T}, .fd_result = TY_INT8, .fd_flags = XF_STRICT,
     .fd_row = rs_order_num},
    {.fd_name = "sparql_agg_list", .fd_nargs = 3, .fd_args = {T, T, T}, .fd_result = T, .fd_row = rs_agg_list},
    {.fd_name = "sparql_fn", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = XF_VARIADIC,
     .fd_row = rs_fn},
    /* RAND, UUID, STRUUID, BNODE(): a new value per call */
    {.fd_name = "sparql_fn_volatile", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T,
     .fd_flags = XF_VARIADIC | XF_VOLATILE, .fd_row = rs_fn},
    {.fd_name = "sparql_cmp", .fd_nargs = 3, .fd_args = {T, T, T}, .fd_result = TY_BOOL, .fd_flags = XF_STRICT,
     .fd_row = rs_cmp},
    {.fd_name = "sparql_ebv", .fd_nargs = 1, .fd_args = {T}, .fd_result = TY_BOOL, .fd_flags = XF_STRICT,
     .fd_row = rs_ebv},
    {.fd_name = "sparql_order_key", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = XF_STRICT,
     .fd_row = rs_order_key},
    {.fd_name = "sparql_order_term", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = XF_STRICT,
     .fd_row = rs_order_term},
    {.fd_name = "sparql_numtype", .fd_nargs = 1, .fd_args = {T}, .fd_result = TY_INT8, .fd_flags = XF_STRICT,
     .fd_row = rs_numtype},
    {.fd_name = "sparql_num", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = XF_STRICT,
     .fd_row = rs_num},
    {.fd_name = "sparql_num_term", .fd_nargs = 2, .fd_args = {T, TY_INT8}, .fd_result = T, .fd_row = rs_num_term},
    {.fd_name = "sparql_lex", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = XF_STRICT,
     .fd_row = rs_lex},
    {.fd_name = "sparql_plain", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = XF_STRICT,
     .fd_row = rs_plain},
};
#undef T

int rdf_sql_fn_init(err_t *e)
{
  return xfunc_register(rs_fn_defs, (int)(sizeof rs_fn_defs / sizeof rs_fn_defs[0]), e);
}
