/* ex_strop — string operators: || (text and bytea) and [NOT] [I]LIKE.
 *
 * Design notes: LIKE is matched left to right with one backtrack point
 * (the last %), which is linear for patterns with one % and never worse
 * than O(n*m); _ matches one UTF-8 character; a backslash makes the next
 * pattern character literal (PostgreSQL's default escape); ILIKE folds
 * ASCII letters in place, and lower-cases text with other letters first as
 * PostgreSQL does. A constant pattern without _ (TPC-H's '%special%requests%')
 * is planned once per batch into its literal pieces, each found with
 * memmem (xe_like_plan). Case mapping follows the C.UTF-8 ctype (Unicode simple
 * mappings), PostgreSQL's behaviour in a C.UTF-8 database. Concatenation sizes the whole batch
 * first and copies into one arena block, so a batch costs one allocation.
 */
#include <locale.h>
#include <pthread.h>
#include <string.h>
#include <wctype.h>

#include "exec/ex_int.h"

/* ---- case mapping -------------------------------------------------------- */

static locale_t xe_utf8_locale;
static pthread_once_t xe_locale_once = PTHREAD_ONCE_INIT;

static void xe_locale_init(void)
{
  xe_utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* Decodes one UTF-8 character at s (len > 0); *n its byte length. Bytes
 * that are not valid UTF-8 come back as themselves, one at a time. */
static uint32_t xe_utf8_decode(const unsigned char *s, size_t len, size_t *n)
{
  uint32_t c = s[0];
  size_t k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (k <= 1 || k > len) {
    *n = 1;
    return c;
  }
  c &= 0x7F >> k;
  for (size_t i = 1; i < k; i++) {
    if ((s[i] & 0xC0) != 0x80) {
      *n = 1;
      return s[0];
    }
    c = c << 6 | (s[i] & 0x3F);
  }
  *n = k;
  return c;
}

size_t xe_case_map(const char *s, size_t len, char *out, xe_case_t how)
{
  pthread_once(&xe_locale_once, xe_locale_init);
  const unsigned char *u = (const unsigned char *)s;
  size_t o = 0;
  bool word = false; /* initcap: inside a word (after an alphanumeric) */
  for (size_t i = 0; i < len;) {
    size_t n;
    uint32_t c = xe_utf8_decode(u + i, len - i, &n);
    uint32_t m = c;
    bool upper = how == XE_UPPER || (how == XE_INITCAP && !word);
    if (c < 0x80) {
      if (upper && c >= 'a' && c <= 'z')
        m = c - 32;
      else if (!upper && c >= 'A' && c <= 'Z')
        m = c + 32;
      if (how == XE_INITCAP)
        word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    } else if (xe_utf8_locale && n > 1) {
      m = (uint32_t)(upper ? towupper_l((wint_t)c, xe_utf8_locale)
                           : towlower_l((wint_t)c, xe_utf8_locale));
      if (how == XE_INITCAP)
        word = iswalnum_l((wint_t)c, xe_utf8_locale) != 0;
    } else if (how == XE_INITCAP) {
      word = false;
    }
    if (n == 1 && c >= 0x80) /* not UTF-8: keep the byte */
      out[o++] = (char)c;
    else
      o += utf8_put(out + o, m);
    i += n;
  }
  return o;
}

static bool xe_is_ascii(const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] >= 0x80)
      return false;
  return true;
}

static inline size_t xe_utf8_len(unsigned char c)
{
  return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

static inline unsigned char xe_fold(unsigned char c, bool icase)
{
  return icase && c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

int xe_like_match(const char *s, size_t slen, const char *p, size_t plen, bool icase, bool *match,
                  err_t *e)
{
  size_t si = 0, pi = 0, star_p = 0, star_s = 0;
  bool star = false;
  const unsigned char *us = (const unsigned char *)s, *up = (const unsigned char *)p;
  while (si < slen) {
    if (pi < plen) {
      unsigned char c = up[pi];
      if (c == '%') {
        while (pi < plen && up[pi] == '%')
          pi++;
        if (pi == plen) { /* a trailing % matches the rest */
          *match = true;
          return CZ_OK;
        }
        star = true;
        star_p = pi;
        star_s = si;
        continue;
      }
      if (c == '_') {
        si += xe_utf8_len(us[si]);
        pi++;
        continue;
      }
      if (c == '\\') {
        /* Like PostgreSQL, a trailing escape is an error only when the
         * match gets that far ('abc' LIKE 'abc\' is simply false). */
        if (pi + 1 == plen)
          return err_set(e, SQLSTATE_INVALID_ESCAPE_SEQUENCE,
                         "LIKE pattern must not end with escape character");
        c = up[++pi];
      }
      if (xe_fold(c, icase) == xe_fold(us[si], icase)) {
        si++;
        pi++;
        continue;
      }
    }
    if (!star) {
      *match = false;
      return CZ_OK;
    }
    /* Let the last % swallow one more character and retry after it. */
    star_s += xe_utf8_len(us[star_s]);
    si = star_s;
    pi = star_p;
  }
  while (pi < plen && up[pi] == '%')
    pi++;
  *match = pi == plen && si <= slen;
  return CZ_OK;
}

static int xe_concat(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  xe_arg_t l, r;
  if (xe_operand(st, x->x_args[0], sel, nsel, &l, e) != CZ_OK ||
      xe_operand(st, x->x_args[1], sel, nsel, &r, e) != CZ_OK)
    return CZ_ERR;
  size_t total = 0;
  XE_FOR(sel, nsel, i, {
    if (xe_arg_null(&l, i) || xe_arg_null(&r, i))
      continue;
    size_t one = (size_t)(l.a_const ? l.a_const->d_str.s_len : l.a_vec->v_str[i].s_len) +
                 (r.a_const ? r.a_const->d_str.s_len : r.a_vec->v_str[i].s_len);
    if (one > XE_MAX_FIELD)
      return xe_error(x, e, SQLSTATE_PROGRAM_LIMIT, "requested length too large");
    total += one;
  });
  char *buf = xc_alloc(st->xe_c, total, e);
  if (!buf)
    return CZ_ERR;
  XE_FOR(sel, nsel, i, {
    if (xe_arg_null(&l, i) || xe_arg_null(&r, i)) {
      dst->v_null[i] = 1;
      continue;
    }
    str_t a = l.a_const ? l.a_const->d_str : l.a_vec->v_str[i];
    str_t b = r.a_const ? r.a_const->d_str : r.a_vec->v_str[i];
    if (a.s_len)
      memcpy(buf, a.s_ptr, a.s_len);
    if (b.s_len)
      memcpy(buf + a.s_len, b.s_ptr, b.s_len);
    dst->v_null[i] = 0;
    dst->v_str[i].s_ptr = buf;
    dst->v_str[i].s_len = a.s_len + b.s_len;
    buf += a.s_len + b.s_len;
  });
  return CZ_OK;
}

/* ---- LIKE with a constant pattern without _ --------------------------- */

#define XE_LIKE_SEGS 16

/* The pattern as its literal pieces between %s, escapes resolved: each
 * piece is then a byte string to find (valid UTF-8 on both sides, so a
 * byte match starts on a character). Patterns with _ or a trailing
 * escape, or more than XE_LIKE_SEGS pieces, are matched by
 * xe_like_match. */
typedef struct xe_like_s {
  bool lk_lead, lk_trail;       /* the pattern starts / ends with % */
  int lk_n;
  str_t lk_seg[XE_LIKE_SEGS];
} xe_like_t;

/* false: not of this form. buf holds plen bytes. */
static bool xe_like_plan(const char *p, size_t plen, char *buf, xe_like_t *lk)
{
  memset(lk, 0, sizeof(*lk));
  size_t o = 0, start = 0;
  bool pct = false;
  lk->lk_lead = plen > 0 && p[0] == '%';
  for (size_t i = 0; i < plen;) {
    char c = p[i];
    if (c == '%') {
      if (o > start) {
        if (lk->lk_n == XE_LIKE_SEGS)
          return false;
        lk->lk_seg[lk->lk_n].s_ptr = buf + start;
        lk->lk_seg[lk->lk_n++].s_len = (uint32_t)(o - start);
      }
      start = o;
      pct = true;
      i++;
      continue;
    }
    if (c == '_')
      return false;
    if (c == '\\') {
      if (i + 1 == plen)
        return false;  /* the error, if the match gets there, is xe_like_match's */
      c = p[++i];
    }
    buf[o++] = c;
    pct = false;
    i++;
  }
  if (o > start) {
    if (lk->lk_n == XE_LIKE_SEGS)
      return false;
    lk->lk_seg[lk->lk_n].s_ptr = buf + start;
    lk->lk_seg[lk->lk_n++].s_len = (uint32_t)(o - start);
  }
  lk->lk_trail = pct;
  return true;
}

/* s LIKE the planned pattern: the first piece a prefix (unless %
 * leads), the last a suffix (unless % ends it), the others found
 * leftmost in order in between — leftmost is never worse, as a later
 * piece then has the most room. */
static bool xe_like_pieces(const xe_like_t *lk, const char *s, size_t n)
{
  if (lk->lk_n == 0)
    return lk->lk_lead || n == 0;
  size_t pos = 0, end = n;
  int first = 0, last = lk->lk_n;
  if (!lk->lk_lead) {
    const str_t *g = &lk->lk_seg[0];
    if (g->s_len > n || memcmp(s, g->s_ptr, g->s_len) != 0)
      return false;
    pos = g->s_len;
    first = 1;
    if (!lk->lk_trail && lk->lk_n == 1)
      return pos == n;  /* no % at all */
  }
  if (!lk->lk_trail) {
    const str_t *g = &lk->lk_seg[lk->lk_n - 1];
    if (g->s_len > end - pos || memcmp(s + n - g->s_len, g->s_ptr, g->s_len) != 0)
      return false;
    end = n - g->s_len;
    last--;
  }
  for (int k = first; k < last; k++) {
    const str_t *g = &lk->lk_seg[k];
    const char *hit = memmem(s + pos, end - pos, g->s_ptr, g->s_len);
    if (!hit)
      return false;
    pos = (size_t)(hit - s) + g->s_len;
  }
  return true;
}

int xe_strop(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  if (x->x_op == XOP_CONCAT)
    return xe_concat(st, x, sel, nsel, dst, e);
  bool icase = x->x_op == XOP_ILIKE || x->x_op == XOP_NOT_ILIKE;
  bool negate = x->x_op == XOP_NOT_LIKE || x->x_op == XOP_NOT_ILIKE;
  xe_arg_t l, r;
  if (xe_operand(st, x->x_args[0], sel, nsel, &l, e) != CZ_OK ||
      xe_operand(st, x->x_args[1], sel, nsel, &r, e) != CZ_OK)
    return CZ_ERR;
  if (!icase && r.a_const && !r.a_const->d_null) {
    /* a constant pattern: planned once for the batch */
    str_t p = r.a_const->d_str;
    char *buf = xc_alloc(st->xe_c, (size_t)p.s_len + 1, e);
    if (!buf)
      return CZ_ERR;
    xe_like_t lk;
    if (xe_like_plan(p.s_ptr, p.s_len, buf, &lk)) {
      XE_FOR(sel, nsel, i, {
        if (xe_arg_null(&l, i)) {
          dst->v_null[i] = 1;
          continue;
        }
        str_t s = l.a_const ? l.a_const->d_str : l.a_vec->v_str[i];
        dst->v_null[i] = 0;
        dst->v_bool[i] = xe_like_pieces(&lk, s.s_ptr, s.s_len) != negate;
      });
      return CZ_OK;
    }
  }
  XE_FOR(sel, nsel, i, {
    if (xe_arg_null(&l, i) || xe_arg_null(&r, i)) {
      dst->v_null[i] = 1;
      continue;
    }
    str_t s = l.a_const ? l.a_const->d_str : l.a_vec->v_str[i];
    str_t p = r.a_const ? r.a_const->d_str : r.a_vec->v_str[i];
    bool m;
    if (icase && (!xe_is_ascii(s.s_ptr, s.s_len) || !xe_is_ascii(p.s_ptr, p.s_len))) {
      /* PostgreSQL's ILIKE on multibyte text: lower() both, then LIKE. */
      char *ls = xc_alloc(st->xe_c, 2 * (size_t)s.s_len + 2 * (size_t)p.s_len + 1, e);
      if (!ls)
        return CZ_ERR;
      char *lp = ls + 2 * (size_t)s.s_len;
      s.s_len = (uint32_t)xe_case_map(s.s_ptr, s.s_len, ls, XE_LOWER);
      s.s_ptr = ls;
      p.s_len = (uint32_t)xe_case_map(p.s_ptr, p.s_len, lp, XE_LOWER);
      p.s_ptr = lp;
    }
    if (xe_like_match(s.s_ptr, s.s_len, p.s_ptr, p.s_len, icase, &m, e) != CZ_OK) {
      if (e)
        e->er_pos = x->x_pos;
      return CZ_ERR;
    }
    dst->v_null[i] = 0;
    dst->v_bool[i] = m != negate;
  });
  return CZ_OK;
}
