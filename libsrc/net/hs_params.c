/* hs_params — the parameters of a query string or of an
 * application/x-www-form-urlencoded body, decoded into the request's
 * arena. A key may come several times (default-graph-uri): all are kept
 * in order. */
#include <string.h>

#include "net/hs_int.h"

void hs_params_add(hs_params_t *p, arena_t *a, const char *key, const char *val, size_t len)
{
  if (p->ps_n == p->ps_cap) {
    int cap = p->ps_cap ? 2 * p->ps_cap : 8;
    hs_param_t *v = arena_alloc(a, (size_t)cap * sizeof *v);
    if (p->ps_n)
      memcpy(v, p->ps_v, (size_t)p->ps_n * sizeof *v);
    p->ps_v = v;
    p->ps_cap = cap;
  }
  char *k = arena_strdup(a, key), *v = arena_alloc(a, len + 1);
  memcpy(v, val, len);
  v[len] = '\0';
  p->ps_v[p->ps_n++] = (hs_param_t){.pm_key = k, .pm_val = v, .pm_len = len};
}

/* Decodes s[0..n) into out (at most n bytes); returns the length. A '%'
 * not followed by two hex digits stays as it is (WHATWG's percent-decode). */
static size_t form_decode(const char *s, size_t n, char *out)
{
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '+')
      out[o++] = ' ';
    else if (s[i] == '%' && i + 2 < n && hex_digit_value(s[i + 1]) >= 0 && hex_digit_value(s[i + 2]) >= 0) {
      out[o++] = (char)(hex_digit_value(s[i + 1]) << 4 | hex_digit_value(s[i + 2]));
      i += 2;
    } else
      out[o++] = s[i];
  }
  return o;
}

void hs_params_parse_form(hs_params_t *p, arena_t *a, const char *s, size_t n)
{
  size_t at = 0;
  while (at < n) {
    const char *amp = memchr(s + at, '&', n - at);
    size_t end = amp ? (size_t)(amp - s) : n;
    if (end > at) {
      const char *eq = memchr(s + at, '=', end - at);
      size_t kend = eq ? (size_t)(eq - s) : end;
      char *k = arena_alloc(a, kend - at + 1);
      k[form_decode(s + at, kend - at, k)] = '\0';
      size_t vstart = eq ? kend + 1 : end;
      char *v = arena_alloc(a, end - vstart + 1);
      size_t vl = form_decode(s + vstart, end - vstart, v);
      hs_params_add(p, a, k, v, vl);
    }
    at = end + 1;
  }
}

const hs_param_t *hs_params_get(const hs_params_t *p, const char *key, int *count)
{
  const hs_param_t *first = NULL;
  int c = 0;
  for (int i = 0; i < p->ps_n; i++)
    if (strcmp(p->ps_v[i].pm_key, key) == 0) {
      if (!first)
        first = &p->ps_v[i];
      c++;
    }
  if (count)
    *count = c;
  return first;
}

const char **hs_params_all(const hs_params_t *p, arena_t *a, const char *key, int *n)
{
  int c;
  hs_params_get(p, key, &c);
  const char **v = arena_alloc(a, (size_t)(c ? c : 1) * sizeof *v);
  *n = 0;
  for (int i = 0; i < p->ps_n; i++)
    if (strcmp(p->ps_v[i].pm_key, key) == 0)
      v[(*n)++] = p->ps_v[i].pm_val;
  return v;
}
