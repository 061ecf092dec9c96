/* pgcat_regex — regexp_like(string, pattern [, flags]), what the binder
 * turns PostgreSQL's `~`, `~*`, `!~` and `OPERATOR(pg_catalog.~)` into.
 * Clients put these in every catalog query (psql's `\d name` matches
 * relnames with '^(name)$', `\dt` and pgJDBC filter schemas with '^pg_').
 *
 * Design notes: patterns are POSIX extended regular expressions (the C
 * library's regcomp), which PostgreSQL's advanced expressions extend; the
 * class escapes \d \D (digits) are rewritten to bracket expressions since
 * ERE lacks them, \w \s \b work as the C library's extensions. Flags: 'i'
 * ignores case, 'c' is case-sensitive (the default), others are 22023.
 * A compiled pattern is cached per thread (the last one used), because a
 * filter evaluates the same constant pattern for every row; the cache is
 * freed when its thread ends (a pthread key's destructor).
 */
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "pgcat/pgcat_int.h"

#define SQLSTATE_INVALID_REGEX "2201B"
#define SQLSTATE_INVALID_PARAMETER_VALUE "22023"

typedef struct rx_cache_s {
  char *rc_pattern;       /* malloc'd; NULL when empty */
  int rc_flags;
  regex_t rc_re;
} rx_cache_t;

static pthread_key_t rx_key;
static pthread_once_t rx_once = PTHREAD_ONCE_INIT;

static void rx_cache_free(void *p)
{
  rx_cache_t *c = p;
  if (c->rc_pattern) {
    regfree(&c->rc_re);
    free(c->rc_pattern);
  }
  free(c);
}

static void rx_key_init(void)
{
  pthread_key_create(&rx_key, rx_cache_free);
}

static rx_cache_t *rx_cache_get(void)
{
  pthread_once(&rx_once, rx_key_init);
  rx_cache_t *c = pthread_getspecific(rx_key);
  if (!c && (c = calloc(1, sizeof(*c))) != NULL)
    pthread_setspecific(rx_key, c);
  return c;
}

/* ERE text for a PostgreSQL pattern: \d and \D become bracket expressions
 * outside brackets; everything else is passed through. */
static char *rx_translate(const char *p, size_t n)
{
  char *out = malloc(n * 6 + 1);
  if (!out)
    return NULL;
  size_t o = 0;
  bool in_bracket = false;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (!in_bracket && c == '\\' && i + 1 < n && (p[i + 1] == 'd' || p[i + 1] == 'D')) {
      const char *rep = p[i + 1] == 'd' ? "[0-9]" : "[^0-9]";
      memcpy(out + o, rep, strlen(rep));
      o += strlen(rep);
      i++;
      continue;
    }
    if (c == '\\' && i + 1 < n) {
      out[o++] = c;
      out[o++] = p[++i];
      continue;
    }
    if (!in_bracket && c == '[') {
      in_bracket = true;
      out[o++] = c;
      /* a ] right after [ or [^ is a literal member */
      if (i + 1 < n && p[i + 1] == '^')
        out[o++] = p[++i];
      if (i + 1 < n && p[i + 1] == ']')
        out[o++] = p[++i];
      continue;
    }
    if (in_bracket && c == ']')
      in_bracket = false;
    out[o++] = c;
  }
  out[o] = 0;
  return out;
}

/* The compiled form of pattern with cflags, from the cache or compiled
 * now; NULL with 2201B when the pattern is invalid. */
static regex_t *rx_get(const str_t *pat, int cflags, err_t *e)
{
  rx_cache_t *c = rx_cache_get();
  if (!c) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  if (c->rc_pattern && c->rc_flags == cflags && strlen(c->rc_pattern) == pat->s_len &&
      memcmp(c->rc_pattern, pat->s_ptr, pat->s_len) == 0)
    return &c->rc_re;
  if (c->rc_pattern) {
    regfree(&c->rc_re);
    free(c->rc_pattern);
    c->rc_pattern = NULL;
  }
  if (memchr(pat->s_ptr, 0, pat->s_len)) {
    err_set(e, SQLSTATE_INVALID_REGEX, "invalid regular expression: NUL byte");
    return NULL;
  }
  char *text = rx_translate(pat->s_ptr, pat->s_len);
  char *copy = malloc((size_t)pat->s_len + 1);
  if (!text || !copy) {
    free(text);
    free(copy);
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  memcpy(copy, pat->s_ptr, pat->s_len);
  copy[pat->s_len] = 0;
  int rc = regcomp(&c->rc_re, text, cflags);
  free(text);
  if (rc != 0) {
    char msg[128];
    regerror(rc, &c->rc_re, msg, sizeof(msg));
    free(copy);
    err_set(e, SQLSTATE_INVALID_REGEX, "invalid regular expression: %s", msg);
    return NULL;
  }
  c->rc_pattern = copy;
  c->rc_flags = cflags;
  return &c->rc_re;
}

static int rx_flags(const datum_t *f, int *cflags, err_t *e)
{
  *cflags = REG_EXTENDED | REG_NOSUB;
  if (!f)
    return CZ_OK;
  for (uint32_t i = 0; i < f->d_str.s_len; i++) {
    char c = f->d_str.s_ptr[i];
    if (c == 'i')
      *cflags |= REG_ICASE;
    else if (c == 'c')
      *cflags &= ~REG_ICASE;
    else
      return err_set(e, SQLSTATE_INVALID_PARAMETER_VALUE,
                     "invalid regular expression option: \"%c\"", c);
  }
  return CZ_OK;
}

static int pf_regexp_like(xctx_t *c, const xnode_t *x, const datum_t *args, datum_t *out,
                          err_t *e)
{
  int cflags;
  if (rx_flags(x->x_nargs > 2 ? &args[2] : NULL, &cflags, e) != CZ_OK)
    return CZ_ERR;
  regex_t *re = rx_get(&args[1].d_str, cflags, e);
  if (!re)
    return CZ_ERR;
  /* regexec wants a NUL-terminated subject. */
  const str_t *s = &args[0].d_str;
  char stackbuf[256];
  char *subj = s->s_len < sizeof(stackbuf) ? stackbuf : arena_alloc(c->xc_arena, s->s_len + 1);
  memcpy(subj, s->s_ptr, s->s_len);
  subj[s->s_len] = 0;
  out->d_null = false;
  out->d_bool = regexec(re, subj, 0, NULL, 0) == 0;
  return CZ_OK;
}

const xfunc_def_t pgcat_regex_funcs[] = {
  {.fd_name = "regexp_like", .fd_nargs = 2, .fd_args = {TY_TEXT, TY_TEXT}, .fd_result = TY_BOOL,
   .fd_flags = XF_STRICT, .fd_row = pf_regexp_like},
  {.fd_name = "regexp_like", .fd_nargs = 3, .fd_args = {TY_TEXT, TY_TEXT, TY_TEXT},
   .fd_result = TY_BOOL, .fd_flags = XF_STRICT, .fd_row = pf_regexp_like},
};
const int pgcat_regex_nfuncs = (int)CZ_ARRAY_LEN(pgcat_regex_funcs);
