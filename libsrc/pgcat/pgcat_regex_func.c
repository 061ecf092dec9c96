/* pgcat_regex_func — PostgreSQL's regular-expression functions over the
 * engine of pgcat_regex.c: regexp_like (what the binder makes of `~`,
 * `~*`, `!~`, `!~*` and SIMILAR TO), regexp_count, regexp_instr,
 * regexp_substr, regexp_replace, regexp_match, regexp_split_to_array and
 * substring(string FROM pattern).
 *
 * Design notes: every function walks the subject the way PostgreSQL's
 * regexp.c does, so that empty matches count and advance identically:
 * the next search starts where the last match ended, one character later
 * when it was empty; the split function ignores empty matches at the
 * ends and right after the previous match. Positions and the start
 * arguments are in characters, offsets inside in bytes. The set-returning
 * forms regexp_matches and regexp_split_to_table are not here (no
 * set-returning scalar functions yet). Arrays are PostgreSQL's text form,
 * as everywhere in pgcat. Loops over matches check for cancel every
 * RX_LOOP_CHECK matches; one long match is stopped inside the engine.
 */
#include <string.h>

#include "pgcat/pgcat_regex_int.h"

#define RX_LOOP_CHECK 4096

static const char *rx_fn(const xnode_t *x)
{
  return x->x_func ? x->x_func->fd_name : "regexp";
}

/* The flags argument (NULL: none). */
static int rx_flags_arg(const xnode_t *x, const datum_t *f, bool allow_g, unsigned *flags,
                        err_t *e)
{
  *flags = 0;
  if (!f)
    return CZ_OK;
  return rx_parse_flags(f->d_str.s_ptr, f->d_str.s_len, allow_g, rx_fn(x), flags, e);
}

/* The compiled pattern a[1] with the flags of optional argument
 * a[flags_pos] (the functions without 'g'); NULL on error. */
static rx_t *rx_pattern(const xnode_t *x, const datum_t *a, int flags_pos, err_t *e)
{
  unsigned flags;
  if (rx_flags_arg(x, x->x_nargs > flags_pos ? &a[flags_pos] : NULL, false, &flags, e) != CZ_OK)
    return NULL;
  return rx_get(&a[1].d_str, flags, e);
}

/* Byte offset of character n (0-based) of s, or len + 1 past its end. */
static size_t rx_byte_of(const char *s, size_t len, int64_t n)
{
  size_t b = 0;
  for (int64_t k = 0; k < n; k++) {
    if (b >= len)
      return len + 1;
    b += rx_utf8_len((unsigned char)s[b]);
  }
  return b > len ? len + 1 : b;
}

static int64_t rx_chars(const char *s, size_t n)
{
  int64_t k = 0;
  for (size_t b = 0; b < n; b += rx_utf8_len((unsigned char)s[b]))
    k++;
  return k;
}

/* Where the search after a match [so, eo) starts. */
static size_t rx_next(const char *s, size_t len, const int64_t *ov)
{
  size_t at = (size_t)ov[1];
  if (ov[0] == ov[1])
    at += at < len ? rx_utf8_len((unsigned char)s[at]) : 1;
  return at;
}

static int rx_check_int(const char *name, int64_t v, int64_t min, err_t *e)
{
  if (v < min)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "invalid value for parameter \"%s\": %lld",
                   name, (long long)v);
  return CZ_OK;
}

static int64_t *rx_ovec(xctx_t *c, const rx_t *r)
{
  return arena_alloc(c->xc_arena, sizeof(int64_t) * 2 * (size_t)(rx_groups(r) + 1));
}

/* Finds the n-th match (1-based) at or after byte offset start; 1 with
 * its offsets in ov, 0 when there are fewer, -1 on error. */
static int rx_nth(xctx_t *c, rx_t *r, const str_t *s, size_t start, int64_t n, int64_t *ov,
                  err_t *e)
{
  bool checked = false;
  for (int64_t k = 1; start <= s->s_len; k++) {
    if (k % RX_LOOP_CHECK == 0 && xc_check_interrupt(c, e) != CZ_OK)
      return -1;
    int m = rx_match(c, r, s->s_ptr, s->s_len, start, checked, ov, e);
    if (m <= 0)
      return m;
    if (k == n)
      return 1;
    checked = true;
    start = rx_next(s->s_ptr, s->s_len, ov);
  }
  return 0;
}

static int pf_regexp_like(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  rx_t *r = rx_pattern(x, a, 2, e);
  if (!r)
    return CZ_ERR;
  int64_t *ov = rx_ovec(c, r);
  int m = rx_match(c, r, a[0].d_str.s_ptr, a[0].d_str.s_len, 0, false, ov, e);
  if (m < 0)
    return CZ_ERR;
  out->d_null = false;
  out->d_bool = m == 1;
  return CZ_OK;
}

/* regexp_count(string, pattern [, start [, flags]]) */
static int pf_regexp_count(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                           err_t *e)
{
  int64_t start = x->x_nargs > 2 ? a[2].d_i64 : 1;
  if (rx_check_int("start", start, 1, e) != CZ_OK)
    return CZ_ERR;
  rx_t *r = rx_pattern(x, a, 3, e);
  if (!r)
    return CZ_ERR;
  const str_t *s = &a[0].d_str;
  int64_t *ov = rx_ovec(c, r);
  size_t at = rx_byte_of(s->s_ptr, s->s_len, start - 1);
  int64_t n = 0;
  bool checked = false;
  while (at <= s->s_len) {
    if (++n % RX_LOOP_CHECK == 0 && xc_check_interrupt(c, e) != CZ_OK)
      return CZ_ERR;
    int m = rx_match(c, r, s->s_ptr, s->s_len, at, checked, ov, e);
    if (m < 0)
      return CZ_ERR;
    if (m == 0) {
      n--;
      break;
    }
    checked = true;
    at = rx_next(s->s_ptr, s->s_len, ov);
  }
  out->d_null = false;
  out->d_i64 = CZ_MIN(n, INT32_MAX);
  return CZ_OK;
}

/* regexp_instr(string, pattern [, start [, N [, endoption [, flags [, subexpr]]]]]) */
static int pf_regexp_instr(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                           err_t *e)
{
  int n = x->x_nargs;
  int64_t start = n > 2 ? a[2].d_i64 : 1, nth = n > 3 ? a[3].d_i64 : 1;
  int64_t endopt = n > 4 ? a[4].d_i64 : 0, sub = n > 6 ? a[6].d_i64 : 0;
  if (rx_check_int("start", start, 1, e) != CZ_OK || rx_check_int("n", nth, 1, e) != CZ_OK)
    return CZ_ERR;
  if (endopt != 0 && endopt != 1)
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "invalid value for parameter \"endoption\": %lld", (long long)endopt);
  if (rx_check_int("subexpr", sub, 0, e) != CZ_OK)
    return CZ_ERR;
  rx_t *r = rx_pattern(x, a, 5, e);
  if (!r)
    return CZ_ERR;
  const str_t *s = &a[0].d_str;
  int64_t *ov = rx_ovec(c, r);
  int m = rx_nth(c, r, s, rx_byte_of(s->s_ptr, s->s_len, start - 1), nth, ov, e);
  if (m < 0)
    return CZ_ERR;
  out->d_null = false;
  out->d_i64 = 0;
  if (m == 1 && sub <= rx_groups(r) && ov[2 * sub] >= 0)
    out->d_i64 = rx_chars(s->s_ptr, (size_t)ov[2 * sub + endopt]) + 1;
  return CZ_OK;
}

static int rx_out_slice(xctx_t *c, datum_t *out, const char *p, size_t n, err_t *e)
{
  char *t = xc_alloc(c, n ? n : 1, e);
  if (!t)
    return CZ_ERR;
  if (n)
    memcpy(t, p, n);
  out->d_null = false;
  out->d_str.s_ptr = t;
  out->d_str.s_len = (uint32_t)n;
  return CZ_OK;
}

/* regexp_substr(string, pattern [, start [, N [, flags [, subexpr]]]]) */
static int pf_regexp_substr(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                            err_t *e)
{
  int n = x->x_nargs;
  int64_t start = n > 2 ? a[2].d_i64 : 1, nth = n > 3 ? a[3].d_i64 : 1;
  int64_t sub = n > 5 ? a[5].d_i64 : 0;
  if (rx_check_int("start", start, 1, e) != CZ_OK || rx_check_int("n", nth, 1, e) != CZ_OK ||
      rx_check_int("subexpr", sub, 0, e) != CZ_OK)
    return CZ_ERR;
  rx_t *r = rx_pattern(x, a, 4, e);
  if (!r)
    return CZ_ERR;
  const str_t *s = &a[0].d_str;
  int64_t *ov = rx_ovec(c, r);
  int m = rx_nth(c, r, s, rx_byte_of(s->s_ptr, s->s_len, start - 1), nth, ov, e);
  if (m < 0)
    return CZ_ERR;
  out->d_null = true;
  if (m == 1 && sub <= rx_groups(r) && ov[2 * sub] >= 0)
    return rx_out_slice(c, out, s->s_ptr + ov[2 * sub], (size_t)(ov[2 * sub + 1] - ov[2 * sub]),
                        e);
  return CZ_OK;
}

/* substring(string FROM pattern): the first group's text, else the whole
 * match; NULL without a match or when that group did not take part. */
static int pf_substring_regex(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  (void)x;
  rx_t *r = rx_get(&a[1].d_str, 0, e);
  if (!r)
    return CZ_ERR;
  const str_t *s = &a[0].d_str;
  int64_t *ov = rx_ovec(c, r);
  int m = rx_match(c, r, s->s_ptr, s->s_len, 0, false, ov, e);
  if (m < 0)
    return CZ_ERR;
  int g = rx_groups(r) > 0 ? 1 : 0;
  out->d_null = true;
  if (m == 1 && ov[2 * g] >= 0)
    return rx_out_slice(c, out, s->s_ptr + ov[2 * g], (size_t)(ov[2 * g + 1] - ov[2 * g]), e);
  return CZ_OK;
}

/* A growing result string in the statement's arena (54000 past
 * XE_MAX_FIELD, 53200 past the budget: xc_alloc). */
typedef struct rx_sb_s {
  char *sb_p;
  size_t sb_n, sb_cap;
} rx_sb_t;

static int sb_put(xctx_t *c, rx_sb_t *b, const char *p, size_t n, err_t *e)
{
  if (n == 0)
    return CZ_OK;
  if (b->sb_n + n > b->sb_cap) {
    size_t cap = b->sb_cap ? b->sb_cap : 64;
    while (cap < b->sb_n + n)
      cap = cap > XE_MAX_FIELD ? cap + n : cap * 2;
    if (cap > XE_MAX_FIELD && b->sb_n + n <= XE_MAX_FIELD)
      cap = XE_MAX_FIELD;
    char *q = xc_alloc(c, cap, e);
    if (!q)
      return CZ_ERR;
    if (b->sb_n)
      memcpy(q, b->sb_p, b->sb_n);
    b->sb_p = q;
    b->sb_cap = cap;
  }
  memcpy(b->sb_p + b->sb_n, p, n);
  b->sb_n += n;
  return CZ_OK;
}

/* Appends replacement rep for the match ov of s: \1…\9 a group's text
 * (empty when it did not take part or does not exist), \& the whole
 * match, \\ a backslash; any other backslash is itself. */
static int rx_put_replacement(xctx_t *c, rx_sb_t *b, const str_t *rep, const char *s,
                              const int64_t *ov, int groups, err_t *e)
{
  const char *p = rep->s_ptr;
  size_t n = rep->s_len, lit = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] != '\\' || i + 1 >= n)
      continue;
    char d = p[i + 1];
    int g = d == '&' ? 0 : (d >= '1' && d <= '9') ? d - '0' : -1;
    if (g < 0 && d != '\\')
      continue;
    if (sb_put(c, b, p + lit, i - lit, e) != CZ_OK)
      return CZ_ERR;
    if (d == '\\') {
      if (sb_put(c, b, "\\", 1, e) != CZ_OK)
        return CZ_ERR;
    } else if (g <= groups && ov[2 * g] >= 0) {
      if (sb_put(c, b, s + ov[2 * g], (size_t)(ov[2 * g + 1] - ov[2 * g]), e) != CZ_OK)
        return CZ_ERR;
    }
    i++;
    lit = i + 1;
  }
  return sb_put(c, b, p + lit, n - lit, e);
}

/* regexp_replace(source, pattern, replacement [, flags]) and
 * regexp_replace(source, pattern, replacement, start [, N [, flags]]):
 * the first match (or the N-th) replaced, every one with g or N = 0. */
static int rx_replace(xctx_t *c, const xnode_t *x, const datum_t *a, int64_t start, int64_t nth,
                      const datum_t *flags_arg, datum_t *out, err_t *e)
{
  unsigned flags;
  if (rx_flags_arg(x, flags_arg, true, &flags, e) != CZ_OK)
    return CZ_ERR;
  if (nth < 0)
    nth = (flags & RX_GLOBAL) ? 0 : 1;
  rx_t *r = rx_get(&a[1].d_str, flags, e);
  if (!r)
    return CZ_ERR;
  const str_t *s = &a[0].d_str;
  int64_t *ov = rx_ovec(c, r);
  rx_sb_t b = {0};
  size_t copied = 0, at = rx_byte_of(s->s_ptr, s->s_len, start - 1);
  bool checked = false;
  for (int64_t k = 1; at <= s->s_len; k++) {
    if (k % RX_LOOP_CHECK == 0 && xc_check_interrupt(c, e) != CZ_OK)
      return CZ_ERR;
    int m = rx_match(c, r, s->s_ptr, s->s_len, at, checked, ov, e);
    if (m < 0)
      return CZ_ERR;
    if (m == 0)
      break;
    checked = true;
    if (nth == 0 || k == nth) {
      if (sb_put(c, &b, s->s_ptr + copied, (size_t)ov[0] - copied, e) != CZ_OK ||
          rx_put_replacement(c, &b, &a[2].d_str, s->s_ptr, ov, rx_groups(r), e) != CZ_OK)
        return CZ_ERR;
      copied = (size_t)ov[1];
      if (nth != 0)
        break;
    }
    at = rx_next(s->s_ptr, s->s_len, ov);
  }
  if (copied == 0 && b.sb_n == 0) {
    *out = a[0]; /* nothing replaced: the source itself */
    out->d_null = false;
    return CZ_OK;
  }
  if (sb_put(c, &b, s->s_ptr + copied, s->s_len - copied, e) != CZ_OK)
    return CZ_ERR;
  out->d_null = false;
  out->d_str.s_ptr = b.sb_p ? b.sb_p : ""; /* everything replaced by nothing */
  out->d_str.s_len = (uint32_t)b.sb_n;
  return CZ_OK;
}

static int pf_regexp_replace(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                             err_t *e)
{
  return rx_replace(c, x, a, 1, -1, x->x_nargs > 3 ? &a[3] : NULL, out, e);
}

static int pf_regexp_replace_start(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                   err_t *e)
{
  int64_t start = a[3].d_i64, nth = x->x_nargs > 4 ? a[4].d_i64 : 1;
  if (rx_check_int("start", start, 1, e) != CZ_OK || rx_check_int("n", nth, 0, e) != CZ_OK)
    return CZ_ERR;
  return rx_replace(c, x, a, start, nth, x->x_nargs > 5 ? &a[5] : NULL, out, e);
}

static char *rx_item(xctx_t *c, const char *s, const int64_t *ov, int g, err_t *e)
{
  if (ov[2 * g] < 0)
    return NULL;
  size_t n = (size_t)(ov[2 * g + 1] - ov[2 * g]);
  char *t = xc_alloc(c, n + 1, e);
  if (t) {
    if (n)
      memcpy(t, s + ov[2 * g], n);
    t[n] = 0;
  }
  return t;
}

static int rx_out_array(xctx_t *c, pgcat_arr_t *arr, datum_t *out, err_t *e)
{
  arr->pa_ndim = arr->pa_n > 0 ? 1 : 0;
  arr->pa_dims[0] = arr->pa_n;
  char *t = pgcat_arr_text(c->xc_arena, arr, e);
  if (!t)
    return CZ_ERR;
  out->d_null = false;
  out->d_str.s_ptr = t;
  out->d_str.s_len = (uint32_t)strlen(t);
  return CZ_OK;
}

/* regexp_match(string, pattern [, flags]): the groups of the first match
 * (the whole match when there are none) as text[]; NULL without a match. */
static int pf_regexp_match(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                           err_t *e)
{
  rx_t *r = rx_pattern(x, a, 2, e);
  if (!r)
    return CZ_ERR;
  const str_t *s = &a[0].d_str;
  int64_t *ov = rx_ovec(c, r);
  int m = rx_match(c, r, s->s_ptr, s->s_len, 0, false, ov, e);
  if (m < 0)
    return CZ_ERR;
  if (m == 0) {
    out->d_null = true;
    return CZ_OK;
  }
  int groups = rx_groups(r);
  pgcat_arr_t arr = {0};
  arr.pa_n = groups > 0 ? groups : 1;
  arr.pa_items = arena_alloc(c->xc_arena, sizeof(char *) * (size_t)arr.pa_n);
  for (int g = 0; g < arr.pa_n; g++) {
    int k = groups > 0 ? g + 1 : 0;
    arr.pa_items[g] = rx_item(c, s->s_ptr, ov, k, e);
    if (!arr.pa_items[g] && ov[2 * k] >= 0)
      return CZ_ERR;
  }
  return rx_out_array(c, &arr, out, e);
}

/* regexp_split_to_array(string, pattern [, flags]) */
static int pf_regexp_split_to_array(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                    err_t *e)
{
  rx_t *r = rx_pattern(x, a, 2, e);
  if (!r)
    return CZ_ERR;
  const str_t *s = &a[0].d_str;
  int64_t *ov = rx_ovec(c, r);
  int cap = 16;
  pgcat_arr_t arr = {0};
  arr.pa_items = arena_alloc(c->xc_arena, sizeof(char *) * (size_t)cap);
  size_t at = 0, piece = 0, prev_end = 0;
  bool checked = false;
  int64_t piece_ov[2];
  for (int64_t k = 1;; k++) {
    if (k % RX_LOOP_CHECK == 0 && xc_check_interrupt(c, e) != CZ_OK)
      return CZ_ERR;
    int m = at <= s->s_len ? rx_match(c, r, s->s_ptr, s->s_len, at, checked, ov, e) : 0;
    if (m < 0)
      return CZ_ERR;
    bool last = m == 0;
    if (!last && !((size_t)ov[0] < s->s_len && (size_t)ov[1] > prev_end)) {
      /* an empty match at an end or right after the previous one: no split */
      prev_end = (size_t)ov[1];
      checked = true;
      at = rx_next(s->s_ptr, s->s_len, ov);
      continue;
    }
    if (arr.pa_n == cap) {
      if (cap > (1 << 27))
        return err_set(e, SQLSTATE_PROGRAM_LIMIT, "array size exceeds the maximum allowed");
      char **items = xc_alloc(c, sizeof(char *) * (size_t)cap * 2, e);
      if (!items)
        return CZ_ERR;
      memcpy(items, arr.pa_items, sizeof(char *) * (size_t)cap);
      arr.pa_items = items;
      cap *= 2;
    }
    piece_ov[0] = (int64_t)piece;
    piece_ov[1] = last ? (int64_t)s->s_len : ov[0];
    if (!(arr.pa_items[arr.pa_n++] = rx_item(c, s->s_ptr, piece_ov, 0, e)))
      return CZ_ERR;
    if (last)
      break;
    piece = prev_end = (size_t)ov[1];
    checked = true;
    at = rx_next(s->s_ptr, s->s_len, ov);
  }
  return rx_out_array(c, &arr, out, e);
}

#define T TY_TEXT
#define I4 TY_INT4
#define S XF_STRICT
const xfunc_def_t pgcat_regex_funcs[] = {
  {.fd_name = "regexp_like", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = TY_BOOL, .fd_flags = S, .fd_row = pf_regexp_like},
  {.fd_name = "regexp_like", .fd_nargs = 3, .fd_args = {T, T, T}, .fd_result = TY_BOOL, .fd_flags = S, .fd_row = pf_regexp_like},
  {.fd_name = "regexp_count", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = I4, .fd_flags = S, .fd_row = pf_regexp_count},
  {.fd_name = "regexp_count", .fd_nargs = 3, .fd_args = {T, T, I4}, .fd_result = I4, .fd_flags = S, .fd_row = pf_regexp_count},
  {.fd_name = "regexp_count", .fd_nargs = 4, .fd_args = {T, T, I4, T}, .fd_result = I4, .fd_flags = S, .fd_row = pf_regexp_count},
  {.fd_name = "regexp_instr", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = I4, .fd_flags = S, .fd_row = pf_regexp_instr},
  {.fd_name = "regexp_instr", .fd_nargs = 3, .fd_args = {T, T, I4}, .fd_result = I4, .fd_flags = S, .fd_row = pf_regexp_instr},
  {.fd_name = "regexp_instr", .fd_nargs = 4, .fd_args = {T, T, I4, I4}, .fd_result = I4, .fd_flags = S, .fd_row = pf_regexp_instr},
  {.fd_name = "regexp_instr", .fd_nargs = 5, .fd_args = {T, T, I4, I4, I4}, .fd_result = I4, .fd_flags = S, .fd_row = pf_regexp_instr},
  {.fd_name = "regexp_instr", .fd_nargs = 6, .fd_args = {T, T, I4, I4, I4, T}, .fd_result = I4, .fd_flags = S, .fd_row = pf_regexp_instr},
  {.fd_name = "regexp_instr", .fd_nargs = 7, .fd_args = {T, T, I4, I4, I4, T, I4}, .fd_result = I4, .fd_flags = S, .fd_row = pf_regexp_instr},
  {.fd_name = "regexp_substr", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_substr},
  {.fd_name = "regexp_substr", .fd_nargs = 3, .fd_args = {T, T, I4}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_substr},
  {.fd_name = "regexp_substr", .fd_nargs = 4, .fd_args = {T, T, I4, I4}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_substr},
  {.fd_name = "regexp_substr", .fd_nargs = 5, .fd_args = {T, T, I4, I4, T}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_substr},
  {.fd_name = "regexp_substr", .fd_nargs = 6, .fd_args = {T, T, I4, I4, T, I4}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_substr},
  {.fd_name = "regexp_replace", .fd_nargs = 3, .fd_args = {T, T, T}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_replace},
  {.fd_name = "regexp_replace", .fd_nargs = 4, .fd_args = {T, T, T, T}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_replace},
  {.fd_name = "regexp_replace", .fd_nargs = 4, .fd_args = {T, T, T, I4}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_replace_start},
  {.fd_name = "regexp_replace", .fd_nargs = 5, .fd_args = {T, T, T, I4, I4}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_replace_start},
  {.fd_name = "regexp_replace", .fd_nargs = 6, .fd_args = {T, T, T, I4, I4, T}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_replace_start},
  {.fd_name = "regexp_match", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_match},
  {.fd_name = "regexp_match", .fd_nargs = 3, .fd_args = {T, T, T}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_match},
  {.fd_name = "regexp_split_to_array", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_split_to_array},
  {.fd_name = "regexp_split_to_array", .fd_nargs = 3, .fd_args = {T, T, T}, .fd_result = T, .fd_flags = S, .fd_row = pf_regexp_split_to_array},
  {.fd_name = "substring", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = S, .fd_row = pf_substring_regex},
};
#undef T
#undef I4
#undef S
const int pgcat_regex_nfuncs = (int)CZ_ARRAY_LEN(pgcat_regex_funcs);
