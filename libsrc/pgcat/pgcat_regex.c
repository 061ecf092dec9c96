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
 *
 * The C library's regcomp and regexec cannot be interrupted, so what
 * reaches them is bounded first (issue 7): regcomp parses groups
 * recursively (tens of thousands of nested parentheses overflow the
 * thread's stack) and copies each bounded repetition x{m,n} out n times
 * (nested bounds multiply: gigabytes), so a pattern nested deeper than
 * RX_MAX_DEPTH or larger than RX_MAX_SIZE once expanded is 2201B, as
 * PostgreSQL's "regular expression is too complex". regexec's unanchored
 * search restarts at every position (quadratic: 'b.*c' over 100 kB took
 * half a minute); '^.*(' pattern ')' matches the same strings in one
 * pass. Only a pattern with an unbounded repetition (* + {m,}) can run
 * far from each start, so only those are wrapped: the wrapper lets every
 * position of the pattern be live at once, which for 'a(a|b){20}c' makes
 * the C library build a million DFA states where the plain search stays
 * linear. A pattern with a ^ anchor (searched from the start only anyway)
 * is passed as written. Back-references are 0A000: regexec matches them
 * by backtracking, exponential in the subject and impossible to stop.
 */
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "pgcat/pgcat_int.h"

#define SQLSTATE_INVALID_REGEX "2201B"
#define SQLSTATE_INVALID_PARAMETER_VALUE "22023"
#define SQLSTATE_FEATURE_NOT_SUPPORTED "0A000"

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

#define RX_MAX_DEPTH 100      /* nested groups; PostgreSQL's own limit is deeper, regcomp's stack is not */
#define RX_MAX_SIZE 200000.0  /* atoms after copying out bounded repetitions (~0.5 s of regcomp) */

/* Skips the bracket expression starting at p[i] ('['); returns the index
 * of its closing ']' (or n when it is not closed). */
static size_t rx_skip_bracket(const char *p, size_t n, size_t i)
{
  i++;
  if (i < n && p[i] == '^')
    i++;
  if (i < n && p[i] == ']')
    i++;
  for (; i < n && p[i] != ']'; i++)
    if (p[i] == '[' && i + 1 < n && (p[i + 1] == ':' || p[i + 1] == '.' || p[i + 1] == '=')) {
      char close = p[i + 1];
      for (i += 2; i + 1 < n && !(p[i] == close && p[i + 1] == ']'); i++)
        ;
      i++;
    }
  return i;
}

/* Checks an ERE against the bounds above (2201B) and tells whether it
 * uses back-references, a ^ anchor (which regexec already tries at the
 * start only, and which '^.*(' would let match after a newline) or an
 * unbounded repetition. The size counts each atom once, times the upper
 * bound (or lower bound + 1) of every repetition around it, and + twice
 * (regcomp writes x+ as xx*). */
static int rx_check(const char *p, bool *backref, bool *anchored, bool *unbounded, err_t *e)
{
  double sum[RX_MAX_DEPTH + 1]; /* size of each open group so far */
  double last = 0;              /* size of the atom a quantifier applies to */
  int depth = 0;
  size_t n = strlen(p);
  sum[0] = 0;
  *backref = *anchored = *unbounded = false;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c == '\\' && i + 1 < n) {
      if (p[i + 1] >= '1' && p[i + 1] <= '9')
        *backref = true;
      i++;
      last = 1;
    } else if (c == '[') {
      i = rx_skip_bracket(p, n, i);
      last = 1;
    } else if (c == '(') {
      if (depth == RX_MAX_DEPTH)
        return err_set(e, SQLSTATE_INVALID_REGEX,
                       "invalid regular expression: regular expression is too complex "
                       "(groups nested deeper than %d)", RX_MAX_DEPTH);
      sum[++depth] = 0;
      last = 0;
      continue;
    } else if (c == ')' && depth > 0) {
      last = sum[depth--];
    } else if (c == '{') {
      long lo = 0, hi;
      size_t j = i + 1;
      for (; j < n && p[j] >= '0' && p[j] <= '9'; j++)
        lo = CZ_MIN(lo * 10 + (p[j] - '0'), 100000);
      hi = lo;
      if (j < n && p[j] == ',') {
        j++;
        if (j < n && p[j] >= '0' && p[j] <= '9') {
          for (hi = 0; j < n && p[j] >= '0' && p[j] <= '9'; j++)
            hi = CZ_MIN(hi * 10 + (p[j] - '0'), 100000);
        } else {
          hi = lo + 1; /* {m,}: m copies and a star */
          *unbounded = true;
        }
      }
      double k = hi < 1 ? 1 : (double)hi;
      sum[depth] += last * (k - 1);
      last *= k;
      i = j;
      if (last > RX_MAX_SIZE || sum[depth] > RX_MAX_SIZE)
        break; /* stop before products could overflow */
      continue;
    } else if (c == '+') {
      *unbounded = true;
      sum[depth] += last;
      last *= 2;
      if (sum[depth] > RX_MAX_SIZE)
        break;
      continue;
    } else if (c == '^') {
      *anchored = true;
      continue;
    } else if (c == '*' || c == '?' || c == '|' || c == '$') {
      *unbounded |= c == '*';
      continue;
    } else {
      last = 1;
    }
    sum[depth] += last;
    if (sum[depth] > RX_MAX_SIZE)
      break;
  }
  double total = last > RX_MAX_SIZE ? last : 0; /* a repetition that broke off */
  for (int d = 0; d <= depth; d++)
    total += sum[d];
  if (total > RX_MAX_SIZE)
    return err_set(e, SQLSTATE_INVALID_REGEX,
                   "invalid regular expression: regular expression is too complex");
  return CZ_OK;
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
  bool backref, anchored, unbounded;
  if (rx_check(text, &backref, &anchored, &unbounded, e) != CZ_OK) {
    free(text);
    free(copy);
    return NULL;
  }
  if (backref) {
    /* the C library matches them by backtracking, exponentially and
     * without a way to stop it: 160 bytes took 12 s with '((a|b)*)*\1c' */
    free(text);
    free(copy);
    err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
            "back-references in regular expressions are not supported");
    return NULL;
  }
  if (!anchored && unbounded) {
    size_t tl = strlen(text);
    char *wrapped = malloc(tl + 6);
    if (!wrapped) {
      free(text);
      free(copy);
      err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
      return NULL;
    }
    memcpy(wrapped, "^.*(", 4);
    memcpy(wrapped + 4, text, tl);
    memcpy(wrapped + 4 + tl, ")", 2);
    free(text);
    text = wrapped;
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
