/* hs_accept — content negotiation: which of the formats a response can
 * take the client's Accept header prefers (RFC 9110 §12.5.1).
 *
 * Design notes: each format has its canonical media type (sent in
 * Content-Type) and aliases clients commonly ask for (application/json
 * for SPARQL JSON results, text/plain for N-Triples, as Jena and
 * Oxigraph answer them). An offer's q is the q of the most specific range
 * that matches any of its names (type/subtype over type/ * over * / *);
 * the server's order breaks ties, so "* / *" gets the first offer.
 * Wildcards match the canonical name only (the Content-Type sent), so
 * text/ * gets CSV, not XML through its alias text/xml. Bad
 * q values count as 1 rather than failing the request: a client with a
 * sloppy header still gets an answer. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/hs_int.h"

static const char *const hs_names[HS_FMT_COUNT_][4] = {
    [HS_FMT_JSON] = {"application/sparql-results+json", "application/json", NULL},
    [HS_FMT_XML] = {"application/sparql-results+xml", "application/xml", "text/xml", NULL},
    [HS_FMT_CSV] = {"text/csv", NULL},
    [HS_FMT_TSV] = {"text/tab-separated-values", NULL},
    [HS_FMT_NT] = {"application/n-triples", "text/plain", NULL},
    [HS_FMT_TTL] = {"text/turtle", "application/x-turtle", NULL},
    [HS_FMT_HTML] = {"text/html", "application/xhtml+xml", NULL},
    [HS_FMT_JSONLD] = {"application/ld+json", NULL},
};

const char *hs_fmt_media_type(hs_fmt_t f)
{
  return f > HS_FMT_NONE && f < HS_FMT_COUNT_ ? hs_names[f][0] : "application/octet-stream";
}

static size_t trim(const char **s, size_t n)
{
  while (n && (**s == ' ' || **s == '\t')) {
    (*s)++;
    n--;
  }
  while (n && ((*s)[n - 1] == ' ' || (*s)[n - 1] == '\t'))
    n--;
  return n;
}

hs_fmt_t hs_fmt_from_media_type(const char *mt, size_t len)
{
  const char *semi = memchr(mt, ';', len);
  size_t n = trim(&mt, semi ? (size_t)(semi - mt) : len);
  for (int f = 1; f < HS_FMT_COUNT_; f++)
    for (int k = 0; hs_names[f][k]; k++)
      if (strlen(hs_names[f][k]) == n && strncasecmp(hs_names[f][k], mt, n) == 0)
        return (hs_fmt_t)f;
  return HS_FMT_NONE;
}

/* How specifically range r (len n) matches name: 3 exact, 2 type/ *, 1
 * * / *, 0 not at all. */
static int match_level(const char *r, size_t n, const char *name)
{
  if (n == 3 && strncmp(r, "*/*", 3) == 0)
    return 1;
  size_t nl = strlen(name);
  if (n == nl && strncasecmp(r, name, n) == 0)
    return 3;
  const char *slash = strchr(name, '/');
  size_t tl = (size_t)(slash - name);
  if (n == tl + 2 && strncasecmp(r, name, tl + 1) == 0 && r[tl + 1] == '*')
    return 2;
  return 0;
}

/* The q parameter of one Accept element's parameters p[0..n). */
static double q_of(const char *p, size_t n)
{
  while (n) {
    const char *semi = memchr(p, ';', n);
    size_t len = semi ? (size_t)(semi - p) : n;
    const char *s = p;
    size_t l = trim(&s, len);
    if (l >= 2 && (s[0] == 'q' || s[0] == 'Q') && s[1] == '=') {
      char buf[16];
      size_t k = CZ_MIN(l - 2, sizeof buf - 1);
      memcpy(buf, s + 2, k);
      buf[k] = '\0';
      char *end;
      double q = strtod(buf, &end);
      return end == buf || q < 0 || q > 1 ? 1.0 : q;
    }
    if (!semi)
      break;
    n -= len + 1;
    p = semi + 1;
  }
  return 1.0;
}

bool hs_accept_gzip(const char *ae)
{
  double q_gzip = -1, q_any = -1;
  for (const char *p = ae; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *semi = memchr(p, ';', len);
    const char *t = p;
    size_t tn = trim(&t, semi ? (size_t)(semi - p) : len);
    double q = semi ? q_of(semi + 1, len - (size_t)(semi - p) - 1) : 1.0;
    if (tn == 4 && strncasecmp(t, "gzip", 4) == 0)
      q_gzip = q;
    else if (tn == 1 && *t == '*')
      q_any = q;
    p = comma ? comma + 1 : p + len;
  }
  return q_gzip >= 0 ? q_gzip > 0 : q_any > 0;
}

hs_fmt_t hs_accept_pick(const char *accept, const hs_fmt_t *offers, int n)
{
  if (!accept || !*accept)
    return offers[0];
  hs_fmt_t best = HS_FMT_NONE;
  double best_q = 0;
  for (int i = 0; i < n; i++) {
    int level = 0;
    double q = 0;
    const char *p = accept;
    while (*p) {
      const char *comma = strchr(p, ',');
      size_t len = comma ? (size_t)(comma - p) : strlen(p);
      const char *semi = memchr(p, ';', len);
      const char *r = p;
      size_t rn = trim(&r, semi ? (size_t)(semi - p) : len);
      for (int k = 0; hs_names[offers[i]][k]; k++) {
        int l = match_level(r, rn, hs_names[offers[i]][k]);
        if (k > 0 && l < 3)
          l = 0; /* an alias counts when named: text/ * is not a request for XML */
        if (l > level) {
          level = l;
          q = semi ? q_of(semi + 1, len - (size_t)(semi - p) - 1) : 1.0;
        }
      }
      if (!comma)
        break;
      p = comma + 1;
    }
    if (level && q > best_q) {
      best = offers[i];
      best_q = q;
    }
  }
  return best;
}
