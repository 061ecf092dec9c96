/* sp_iri — IRI references resolved against a base (RFC 3986 §5.2).
 *
 * Design notes: the strict algorithm of §5.2.2 (a reference with a scheme
 * is taken as it is, dots removed) with §5.2.3's merge and §5.2.4's
 * remove_dot_segments, on the IRI as UTF-8 text: components are split at
 * the ASCII delimiters only, so non-ASCII characters pass through. No
 * normalisation beyond that (case, percent-encoding) is done: IRIs compare
 * as strings in RDF.
 */
#include <stdbool.h>
#include <string.h>

#include "sparql/sparql_int.h"

typedef struct sp_iriparts_s {
  const char *ip_scheme; size_t ip_scheme_n;   /* NULL = none */
  const char *ip_auth; size_t ip_auth_n;       /* NULL = none */
  const char *ip_path; size_t ip_path_n;
  const char *ip_query; size_t ip_query_n;     /* NULL = none; without '?' */
  const char *ip_frag; size_t ip_frag_n;       /* NULL = none; without '#' */
} sp_iriparts_t;

static size_t sp_scheme_len(const char *s)
{
  size_t i = 0;
  if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
    return 0;
  for (i = 1; s[i]; i++) {
    char c = s[i];
    if (c == ':')
      return i;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '+' || c == '-' || c == '.'))
      return 0;
  }
  return 0;
}

bool sp_iri_is_absolute(const char *iri)
{
  return sp_scheme_len(iri) > 0;
}

static void sp_iri_split(const char *s, sp_iriparts_t *p)
{
  memset(p, 0, sizeof *p);
  size_t n = sp_scheme_len(s);
  if (n) {
    p->ip_scheme = s;
    p->ip_scheme_n = n;
    s += n + 1;
  }
  if (s[0] == '/' && s[1] == '/') {
    s += 2;
    size_t a = strcspn(s, "/?#");
    p->ip_auth = s;
    p->ip_auth_n = a;
    s += a;
  }
  size_t pl = strcspn(s, "?#");
  p->ip_path = s;
  p->ip_path_n = pl;
  s += pl;
  if (*s == '?') {
    s++;
    size_t q = strcspn(s, "#");
    p->ip_query = s;
    p->ip_query_n = q;
    s += q;
  }
  if (*s == '#') {
    p->ip_frag = s + 1;
    p->ip_frag_n = strlen(s + 1);
  }
}

/* RFC 3986 §5.2.4 on in (n bytes), written to out (room for n + 1). */
static size_t sp_remove_dots(const char *in, size_t n, char *out)
{
  size_t o = 0, i = 0;
  while (i < n) {
    const char *s = in + i;
    size_t left = n - i;
    if (left >= 3 && memcmp(s, "../", 3) == 0) { i += 3; continue; }
    if (left >= 2 && memcmp(s, "./", 2) == 0) { i += 2; continue; }
    if (left >= 3 && memcmp(s, "/./", 3) == 0) { i += 2; continue; }
    if (left == 2 && memcmp(s, "/.", 2) == 0) { i += 1; ((char *)in)[i] = '/'; continue; }
    if ((left >= 4 && memcmp(s, "/../", 4) == 0) || (left == 3 && memcmp(s, "/..", 3) == 0)) {
      if (left == 3) { i += 2; ((char *)in)[i] = '/'; } else i += 3;
      while (o > 0 && out[o - 1] != '/')
        o--;
      if (o > 0)
        o--;
      continue;
    }
    if ((left == 1 && s[0] == '.') || (left == 2 && memcmp(s, "..", 2) == 0)) { i = n; continue; }
    /* move the first segment (with its leading '/') */
    size_t k = 0;
    if (s[0] == '/')
      k = 1;
    while (k < left && s[k] != '/')
      k++;
    memcpy(out + o, s, k);
    o += k;
    i += k;
  }
  out[o] = '\0';
  return o;
}

static void sp_put(char *buf, size_t *o, const char *s, size_t n)
{
  memcpy(buf + *o, s, n);
  *o += n;
}

char *sp_iri_resolve(arena_t *a, const char *base, const char *ref)
{
  sp_iriparts_t r, b;
  sp_iri_split(ref, &r);
  if (r.ip_scheme == NULL && (base == NULL || !sp_iri_is_absolute(base)))
    return NULL;
  size_t cap = strlen(ref) + (base ? strlen(base) : 0) + 8;
  char *path = arena_alloc(a, cap);   /* the merged path before dot removal */
  char *clean = arena_alloc(a, cap);
  char *out = arena_alloc(a, cap);
  size_t pn = 0, o = 0;
  const char *scheme, *auth, *query;
  size_t scheme_n, auth_n, query_n;
  if (r.ip_scheme) {
    scheme = r.ip_scheme; scheme_n = r.ip_scheme_n;
    auth = r.ip_auth; auth_n = r.ip_auth_n;
    sp_put(path, &pn, r.ip_path, r.ip_path_n);
    query = r.ip_query; query_n = r.ip_query_n;
  } else {
    sp_iri_split(base, &b);
    scheme = b.ip_scheme; scheme_n = b.ip_scheme_n;
    if (r.ip_auth) {
      auth = r.ip_auth; auth_n = r.ip_auth_n;
      sp_put(path, &pn, r.ip_path, r.ip_path_n);
      query = r.ip_query; query_n = r.ip_query_n;
    } else {
      auth = b.ip_auth; auth_n = b.ip_auth_n;
      if (r.ip_path_n == 0) {
        sp_put(path, &pn, b.ip_path, b.ip_path_n);
        if (r.ip_query) { query = r.ip_query; query_n = r.ip_query_n; }
        else { query = b.ip_query; query_n = b.ip_query_n; }
      } else {
        if (r.ip_path[0] == '/') {
          sp_put(path, &pn, r.ip_path, r.ip_path_n);
        } else if (b.ip_auth && b.ip_path_n == 0) {   /* §5.2.3 merge */
          sp_put(path, &pn, "/", 1);
          sp_put(path, &pn, r.ip_path, r.ip_path_n);
        } else {
          size_t keep = b.ip_path_n;
          while (keep > 0 && b.ip_path[keep - 1] != '/')
            keep--;
          sp_put(path, &pn, b.ip_path, keep);
          sp_put(path, &pn, r.ip_path, r.ip_path_n);
        }
        query = r.ip_query; query_n = r.ip_query_n;
      }
    }
  }
  path[pn] = '\0';
  size_t cn = sp_remove_dots(path, pn, clean);
  sp_put(out, &o, scheme, scheme_n);
  sp_put(out, &o, ":", 1);
  if (auth) {
    sp_put(out, &o, "//", 2);
    sp_put(out, &o, auth, auth_n);
  }
  sp_put(out, &o, clean, cn);
  if (query) {
    sp_put(out, &o, "?", 1);
    sp_put(out, &o, query, query_n);
  }
  if (r.ip_frag) {
    sp_put(out, &o, "#", 1);
    sp_put(out, &o, r.ip_frag, r.ip_frag_n);
  }
  out[o] = '\0';
  return out;
}
