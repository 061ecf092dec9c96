/* pgcat_regex_syntax — PostgreSQL's regular-expression syntax (its
 * "advanced regular expressions", AREs) rewritten into PCRE2's, and the
 * flags arguments of the regexp functions.
 *
 * Design notes: the pattern is read once, left to right, and written out
 * item by item in a form PCRE2 reads the same way PostgreSQL reads the
 * original; anything PostgreSQL refuses is refused here with its message
 * (2201B), and PCRE2-only syntax is refused too, so that a pattern never
 * reaches PCRE2 features PostgreSQL does not have (callouts, verbs such as
 * (*LIMIT_MATCH=…), recursion, named groups, \K, \Q…\E).
 *
 * The differences handled (PostgreSQL 15 docs §9.7.3 against pcre2pattern):
 *  - escapes: \b is backspace and \B a backslash in PostgreSQL (word
 *    boundaries there are \y and \Y, written \b \B for PCRE2); \m \M (start
 *    and end of a word) and the brackets [[:<:]] [[:>:]] become
 *    \b(?=\w) and \b(?<=\w); \Z is the very end (PCRE2's \z; its \Z also
 *    matches before a final newline); \v is a vertical tab, not PCRE2's
 *    class of vertical space; \uXXXX, \UXXXXXXXX, \xhhh (any number of hex
 *    digits), \cX, \e, \a and octal \0xy are written as \x{…}; \d \s \w
 *    \D \S \W pass (Unicode-aware with PCRE2_UCP, as PostgreSQL's are in a
 *    UTF-8 database); any other letter or digit after a backslash is
 *    PostgreSQL's "invalid escape \ sequence", where PCRE2 would read
 *    \h \R \K \p{…} …
 *  - back-references: \N (one digit) is always one, \NN… one when that
 *    many groups have closed (else three octal digits are a character, as
 *    in PostgreSQL); written \g{N} so following digits stay literal. Inside
 *    lookaround every group is non-capturing, as PostgreSQL has it.
 *  - groups: only (…), (?:…), (?=…), (?!…), (?<=…), (?<!…) and (?#…)
 *    comments; (?i) elsewhere than the start is "quantifier operand
 *    invalid" in PostgreSQL and refused the same way.
 *  - quantifiers: bounds above 255 (RE_DUP_MAX) are "invalid repetition
 *    count(s)"; a quantifier after another (PCRE2's possessive a++ a*+) or
 *    with nothing to repeat is "quantifier operand invalid"; a { not
 *    followed by a digit is a literal brace, as in both.
 *  - bracket expressions: [:class:] passes (PCRE2 knows PostgreSQL's
 *    classes, word and ascii included); [.c.] and [=c=] with a single
 *    character become that character (named collating elements are
 *    refused); escapes inside brackets are translated as outside; in
 *    newline-sensitive mode a negated bracket also excludes \n, as
 *    PostgreSQL's does.
 *  - newlines: PostgreSQL's . and [^…] match a newline and ^ $ only match
 *    at the ends unless the n/m, p or w options say otherwise; this maps
 *    onto PCRE2_DOTALL, PCRE2_MULTILINE and PCRE2_DOLLAR_ENDONLY (without
 *    which $ would also match before a final newline) — chosen by the
 *    caller from the RX_NL_* flags this file returns.
 *  - x (expanded) mode is done here (white space and #-comments outside
 *    brackets dropped, \ before them keeps them), not by PCRE2_EXTENDED,
 *    so the checks above see the items as PostgreSQL groups them.
 *  - the leading director ***: (ARE follows) and ***= (the rest is a
 *    literal), and leading embedded options (?bcegimnpqstwx…).
 * What is not translated (listed in docs/sql-reference.md): PostgreSQL's
 * leftmost-longest preference for a whole match (PCRE2 takes the first
 * alternative that matches: 'ab' with (a|ab) gives 'a' where PostgreSQL
 * gives 'ab'), lookbehind of variable length (PCRE2 2201B), the b and e
 * options (0A000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgcat/pgcat_regex_int.h"

#define RX_DUP_MAX 255   /* PostgreSQL's largest repetition bound */
#define RX_MAX_NEST 1000 /* open groups this reader tracks; PCRE2's own limit is lower */

typedef struct rx_buf_s {
  char *rb_p;
  size_t rb_n, rb_cap;
  bool rb_oom;
} rx_buf_t;

static void rb_put(rx_buf_t *b, const char *s, size_t n)
{
  if (b->rb_oom)
    return;
  if (b->rb_n + n + 1 > b->rb_cap) {
    size_t cap = b->rb_cap ? b->rb_cap : 64;
    while (cap < b->rb_n + n + 1)
      cap *= 2;
    char *p = realloc(b->rb_p, cap);
    if (!p) {
      b->rb_oom = true;
      return;
    }
    b->rb_p = p;
    b->rb_cap = cap;
  }
  memcpy(b->rb_p + b->rb_n, s, n);
  b->rb_n += n;
  b->rb_p[b->rb_n] = 0;
}

static void rb_str(rx_buf_t *b, const char *s)
{
  rb_put(b, s, strlen(s));
}

static void rb_char(rx_buf_t *b, uint32_t cp)
{
  char t[16];
  snprintf(t, sizeof t, "\\x{%x}", (unsigned)cp);
  rb_str(b, t);
}

/* What the last item written was: decides whether a quantifier may follow. */
typedef enum rx_prev_e {
  RP_NONE,       /* start, after ( or |: a quantifier has no operand */
  RP_ATOM,       /* a character, class, bracket or group */
  RP_QUANT,      /* a quantifier: only ? (non-greedy) may follow */
  RP_LAZY,       /* a non-greedy quantifier: nothing may follow */
  RP_CONSTRAINT  /* ^ $ \A \Z \m \M \y \Y lookaround: not repeatable */
} rx_prev_t;

typedef struct rx_rd_s {
  const char *r_p;     /* the pattern */
  size_t r_n, r_i;     /* its length, the read position */
  unsigned r_flags;
  rx_buf_t r_out;
  rx_prev_t r_prev;
  int r_closed;        /* capturing groups closed so far (back-references) */
  int r_opened;        /* capturing groups opened so far: the next one's number - 1 */
  bool *r_done;        /* r_done[n]: group n has closed (a back-reference to an
                          open group is PostgreSQL's "invalid backreference") */
  int r_depth;         /* open groups */
  int r_look;          /* open lookaround groups: groups inside do not capture */
  bool r_look_at[RX_MAX_NEST]; /* whether open group k is a lookaround */
  int r_cap_at[RX_MAX_NEST];   /* open group k's number, 0: does not capture */
  err_t *r_e;
} rx_rd_t;

static int rx_bad(rx_rd_t *r, const char *why)
{
  return err_set(r->r_e, SQLSTATE_INVALID_REGEX, "invalid regular expression: %s", why);
}

static bool is_alnum(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Reads up to max hex digits (at least min) at r_i into *cp. */
static int rx_hex(rx_rd_t *r, int min, int max, uint32_t *cp)
{
  uint64_t v = 0;
  int k = 0;
  while (k < max && r->r_i < r->r_n && hex_digit_value(r->r_p[r->r_i]) >= 0) {
    v = v * 16 + (uint64_t)hex_digit_value(r->r_p[r->r_i++]);
    if (v > 0x10FFFF)
      return rx_bad(r, "invalid escape \\ sequence");
    k++;
  }
  if (k < min || (v >= 0xD800 && v <= 0xDFFF))
    return rx_bad(r, "invalid escape \\ sequence");
  *cp = (uint32_t)v;
  return CZ_OK;
}

/* The escape after a backslash (r_i at the character after it). Inside a
 * bracket expression only character and class escapes are allowed.
 * Sets *kind to the item's rx_prev_t. */
static int rx_escape(rx_rd_t *r, bool in_bracket, rx_prev_t *kind)
{
  rx_buf_t *o = &r->r_out;
  if (r->r_i >= r->r_n)
    return rx_bad(r, "invalid escape \\ sequence");
  char c = r->r_p[r->r_i++];
  uint32_t cp;
  *kind = RP_ATOM;
  if (!is_alnum(c)) {
    if ((unsigned char)c < 0x80) {
      char t[2] = {'\\', c};
      rb_put(o, t, 2);
    } else {
      /* a multi-byte character is itself (PCRE2 would too, but say it plainly) */
      size_t l = rx_utf8_len((unsigned char)c);
      rb_put(o, r->r_p + r->r_i - 1, CZ_MIN(l, r->r_n - r->r_i + 1));
      r->r_i += CZ_MIN(l, r->r_n - r->r_i + 1) - 1;
    }
    return CZ_OK;
  }
  switch (c) {
  case 'a': rb_char(o, 0x07); return CZ_OK;
  case 'b': rb_char(o, 0x08); return CZ_OK;
  case 'B': rb_str(o, "\\\\"); return CZ_OK;
  case 'e': rb_char(o, 0x1B); return CZ_OK;
  case 'f': rb_char(o, 0x0C); return CZ_OK;
  case 'n': rb_char(o, 0x0A); return CZ_OK;
  case 'r': rb_char(o, 0x0D); return CZ_OK;
  case 't': rb_char(o, 0x09); return CZ_OK;
  case 'v': rb_char(o, 0x0B); return CZ_OK;
  case 'c':
    if (r->r_i >= r->r_n)
      return rx_bad(r, "invalid escape \\ sequence");
    rb_char(o, (unsigned char)r->r_p[r->r_i++] & 0x1F);
    return CZ_OK;
  case 'u':
    if (rx_hex(r, 4, 4, &cp) != CZ_OK)
      return CZ_ERR;
    rb_char(o, cp);
    return CZ_OK;
  case 'U':
    if (rx_hex(r, 8, 8, &cp) != CZ_OK)
      return CZ_ERR;
    rb_char(o, cp);
    return CZ_OK;
  case 'x':
    if (rx_hex(r, 1, 8, &cp) != CZ_OK)
      return CZ_ERR;
    rb_char(o, cp);
    return CZ_OK;
  case 'd': case 's': case 'w': case 'D': case 'S': case 'W': {
    char t[2] = {'\\', c};
    rb_put(o, t, 2);
    return CZ_OK;
  }
  default:
    break;
  }
  if (c >= '0' && c <= '9') {
    size_t start = r->r_i - 1, end = start;
    while (end < r->r_n && r->r_p[end] >= '0' && r->r_p[end] <= '9' && end - start < 9)
      end++;
    if (c == '0') {
      /* \0, \0y, \0yz: octal */
      uint32_t v = 0;
      r->r_i = start + 1;
      for (int k = 0; k < 2 && r->r_i < r->r_n && r->r_p[r->r_i] >= '0' && r->r_p[r->r_i] <= '7'; k++)
        v = v * 8 + (uint32_t)(r->r_p[r->r_i++] - '0');
      rb_char(o, v);
      return CZ_OK;
    }
    long num = 0;
    for (size_t k = start; k < end; k++)
      num = num * 10 + (r->r_p[k] - '0');
    if (end - start > 1 && num > r->r_closed) {
      /* not a back-reference: three octal digits are a character */
      bool octal = end - start >= 3;
      for (size_t k = start; octal && k < start + 3; k++)
        octal = r->r_p[k] <= '7';
      if (octal) {
        uint32_t v = (uint32_t)((r->r_p[start] - '0') * 64 + (r->r_p[start + 1] - '0') * 8 +
                                (r->r_p[start + 2] - '0'));
        r->r_i = start + 3;
        rb_char(o, v);
        return CZ_OK;
      }
      end = start + 1; /* the first digit alone, the rest literal digits */
      num = c - '0';
    }
    if (in_bracket || num > r->r_opened || !r->r_done[num] || r->r_look > 0)
      return rx_bad(r, "invalid backreference number");
    char t[32];
    snprintf(t, sizeof t, "\\g{%ld}", num);
    rb_str(o, t);
    r->r_i = end;
    return CZ_OK;
  }
  if (!in_bracket) {
    *kind = RP_CONSTRAINT;
    switch (c) {
    case 'A': rb_str(o, "\\A"); return CZ_OK;
    case 'Z': rb_str(o, "\\z"); return CZ_OK;
    case 'm': rb_str(o, "\\b(?=\\w)"); return CZ_OK;
    case 'M': rb_str(o, "\\b(?<=\\w)"); return CZ_OK;
    case 'y': rb_str(o, "\\b"); return CZ_OK;
    case 'Y': rb_str(o, "\\B"); return CZ_OK;
    default: break;
    }
  }
  return rx_bad(r, "invalid escape \\ sequence");
}

/* A bracket expression; r_i at the character after '['. */
static int rx_bracket(rx_rd_t *r)
{
  rx_buf_t *o = &r->r_out;
  const char *p = r->r_p;
  size_t n = r->r_n;
  bool negated = false;
  rb_str(o, "[");
  if (r->r_i < n && p[r->r_i] == '^') {
    negated = true;
    rb_str(o, "^");
    r->r_i++;
  }
  if (r->r_i < n && p[r->r_i] == ']') {
    rb_str(o, "\\]"); /* a ] first is a member */
    r->r_i++;
  }
  for (;;) {
    if (r->r_i >= n)
      return rx_bad(r, "brackets [] not balanced");
    char c = p[r->r_i];
    if (c == ']') {
      r->r_i++;
      break;
    }
    if (c == '[' && r->r_i + 1 < n && (p[r->r_i + 1] == ':' || p[r->r_i + 1] == '.' ||
                                        p[r->r_i + 1] == '=')) {
      char kind = p[r->r_i + 1];
      size_t s = r->r_i + 2, e = s;
      while (e + 1 < n && !(p[e] == kind && p[e + 1] == ']'))
        e++;
      if (e + 1 >= n)
        return rx_bad(r, "brackets [] not balanced");
      if (kind == ':') {
        /* PostgreSQL's classes, which are also PCRE2's */
        static const char *const names[] = {"alnum", "alpha", "ascii", "blank", "cntrl",
                                            "digit", "graph", "lower", "print", "punct",
                                            "space", "upper", "word",  "xdigit"};
        bool known = false;
        for (size_t k = 0; k < CZ_ARRAY_LEN(names) && !known; k++)
          known = strlen(names[k]) == e - s && memcmp(names[k], p + s, e - s) == 0;
        if (!known)
          return rx_bad(r, "invalid character class");
        rb_put(o, p + r->r_i, e + 2 - r->r_i);
      } else {
        /* [.c.] / [=c=]: one character stands for itself */
        if (e == s || rx_utf8_len((unsigned char)p[s]) != e - s)
          return rx_bad(r, "invalid collating element");
        if ((unsigned char)p[s] < 0x80)
          rb_char(o, (unsigned char)p[s]);
        else
          rb_put(o, p + s, e - s);
      }
      r->r_i = e + 2;
      continue;
    }
    if (c == '\\') {
      rx_prev_t kind;
      r->r_i++;
      if (rx_escape(r, true, &kind) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    if (c == '[') {
      rb_str(o, "\\[");
      r->r_i++;
      continue;
    }
    size_t l = CZ_MIN(rx_utf8_len((unsigned char)c), n - r->r_i);
    rb_put(o, p + r->r_i, l);
    r->r_i += l;
  }
  if (negated && (r->r_flags & RX_NL_DOT))
    rb_str(o, "\\n");
  rb_str(o, "]");
  return CZ_OK;
}

/* A quantifier at r_i (* + ? or { followed by a digit). */
static int rx_quantifier(rx_rd_t *r)
{
  const char *p = r->r_p;
  char c = p[r->r_i];
  if (r->r_prev == RP_QUANT && c == '?') {
    rb_str(&r->r_out, "?");
    r->r_i++;
    r->r_prev = RP_LAZY;
    return CZ_OK;
  }
  if (r->r_prev != RP_ATOM)
    return rx_bad(r, "quantifier operand invalid");
  if (c != '{') {
    rb_put(&r->r_out, &c, 1);
    r->r_i++;
    r->r_prev = RP_QUANT;
    return CZ_OK;
  }
  size_t i = r->r_i + 1;
  long lo = 0, hi = -1;
  for (; i < r->r_n && p[i] >= '0' && p[i] <= '9'; i++)
    lo = CZ_MIN(lo * 10 + (p[i] - '0'), 100000);
  bool comma = i < r->r_n && p[i] == ',';
  if (comma) {
    i++;
    if (i < r->r_n && p[i] >= '0' && p[i] <= '9')
      for (hi = 0; i < r->r_n && p[i] >= '0' && p[i] <= '9'; i++)
        hi = CZ_MIN(hi * 10 + (p[i] - '0'), 100000);
  } else {
    hi = lo;
  }
  if (i >= r->r_n || p[i] != '}')
    return rx_bad(r, "braces {} not balanced");
  if (lo > RX_DUP_MAX || hi > RX_DUP_MAX || (hi >= 0 && hi < lo))
    return rx_bad(r, "invalid repetition count(s)");
  char t[40];
  if (!comma)
    snprintf(t, sizeof t, "{%ld}", lo);
  else if (hi < 0)
    snprintf(t, sizeof t, "{%ld,}", lo);
  else
    snprintf(t, sizeof t, "{%ld,%ld}", lo, hi);
  rb_str(&r->r_out, t);
  r->r_i = i + 1;
  r->r_prev = RP_QUANT;
  return CZ_OK;
}

/* An opening parenthesis at r_i. */
static int rx_open(rx_rd_t *r)
{
  const char *p = r->r_p;
  size_t i = r->r_i + 1;
  bool look = false, cap = false;
  const char *text = NULL;
  if (i < r->r_n && p[i] == '?') {
    char d = i + 1 < r->r_n ? p[i + 1] : 0;
    char d2 = i + 2 < r->r_n ? p[i + 2] : 0;
    if (d == '#') {
      /* a comment: dropped with its text */
      const char *close = memchr(p + i, ')', r->r_n - i);
      if (!close)
        return rx_bad(r, "parentheses () not balanced");
      r->r_i = (size_t)(close - p) + 1;
      return CZ_OK;
    }
    if (d == ':')
      text = "(?:", i += 2;
    else if (d == '=' || d == '!')
      text = d == '=' ? "(?=" : "(?!", look = true, i += 2;
    else if (d == '<' && (d2 == '=' || d2 == '!'))
      text = d2 == '=' ? "(?<=" : "(?<!", look = true, i += 3;
    else
      return rx_bad(r, "quantifier operand invalid");
  } else {
    cap = r->r_look == 0;
    text = cap ? "(" : "(?:";
  }
  if (r->r_depth >= RX_MAX_NEST)
    return err_set(r->r_e, SQLSTATE_INVALID_REGEX,
                   "invalid regular expression: regular expression is too complex");
  r->r_look_at[r->r_depth] = look;
  r->r_cap_at[r->r_depth] = cap ? ++r->r_opened : 0;
  r->r_depth++;
  r->r_look += look;
  rb_str(&r->r_out, text);
  r->r_i = i;
  r->r_prev = RP_NONE;
  return CZ_OK;
}

static int rx_literal(rx_rd_t *r)
{
  for (size_t i = 0; i < r->r_n; i++) {
    char c = r->r_p[i];
    if ((unsigned char)c >= 0x80 || is_alnum(c)) {
      rb_put(&r->r_out, &c, 1);
    } else {
      char t[2] = {'\\', c};
      rb_put(&r->r_out, t, 2);
    }
  }
  return CZ_OK;
}

/* The leading director and embedded options; advances r_i past them. */
static int rx_prefix(rx_rd_t *r)
{
  const char *p = r->r_p;
  if (r->r_flags & RX_LITERAL)
    return CZ_OK; /* the q flag: even a director is literal text */
  if (r->r_n >= 4 && memcmp(p, "***", 3) == 0 && (p[3] == ':' || p[3] == '=')) {
    r->r_i = 4;
    if (p[3] == '=') {
      r->r_flags |= RX_LITERAL;
      return CZ_OK;
    }
  }
  if (r->r_flags & RX_LITERAL)
    return CZ_OK;
  if (r->r_n - r->r_i >= 3 && p[r->r_i] == '(' && p[r->r_i + 1] == '?' &&
      p[r->r_i + 2] >= 'a' && p[r->r_i + 2] <= 'z') {
    size_t s = r->r_i + 2, e = s;
    while (e < r->r_n && p[e] != ')')
      e++;
    if (e >= r->r_n)
      return rx_bad(r, "invalid embedded option");
    unsigned f = r->r_flags;
    for (size_t k = s; k < e; k++) {
      /* PostgreSQL's letters; g is a function flag, not an embedded one */
      if (p[k] == 'g' || rx_parse_flags(p + k, 1, true, NULL, &f, r->r_e) != CZ_OK)
        return rx_bad(r, "invalid embedded option");
    }
    r->r_flags = f;
    r->r_i = e + 1;
  }
  return CZ_OK;
}

static bool rx_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int rx_body(rx_rd_t *r)
{
  const char *p = r->r_p;
  while (r->r_i < r->r_n) {
    char c = p[r->r_i];
    if (r->r_flags & RX_EXPANDED) {
      if (rx_space(c)) {
        r->r_i++;
        continue;
      }
      if (c == '#') {
        while (r->r_i < r->r_n && p[r->r_i] != '\n')
          r->r_i++;
        continue;
      }
    }
    switch (c) {
    case '\\': {
      rx_prev_t kind;
      r->r_i++;
      if (rx_escape(r, false, &kind) != CZ_OK)
        return CZ_ERR;
      r->r_prev = kind;
      continue;
    }
    case '[':
      if (r->r_n - r->r_i >= 7 && (memcmp(p + r->r_i, "[[:<:]]", 7) == 0 ||
                                   memcmp(p + r->r_i, "[[:>:]]", 7) == 0)) {
        rb_str(&r->r_out, p[r->r_i + 3] == '<' ? "\\b(?=\\w)" : "\\b(?<=\\w)");
        r->r_i += 7;
        r->r_prev = RP_CONSTRAINT;
        continue;
      }
      r->r_i++;
      if (rx_bracket(r) != CZ_OK)
        return CZ_ERR;
      r->r_prev = RP_ATOM;
      continue;
    case '(':
      if (rx_open(r) != CZ_OK)
        return CZ_ERR;
      continue;
    case ')': {
      if (r->r_depth == 0)
        return rx_bad(r, "parentheses () not balanced");
      r->r_depth--;
      bool look = r->r_look_at[r->r_depth];
      r->r_look -= look;
      if (r->r_cap_at[r->r_depth]) {
        r->r_closed++;
        r->r_done[r->r_cap_at[r->r_depth]] = true;
      }
      rb_str(&r->r_out, ")");
      r->r_i++;
      r->r_prev = look ? RP_CONSTRAINT : RP_ATOM;
      continue;
    }
    case '*': case '+': case '?':
      if (rx_quantifier(r) != CZ_OK)
        return CZ_ERR;
      continue;
    case '{':
      if (r->r_i + 1 < r->r_n && p[r->r_i + 1] >= '0' && p[r->r_i + 1] <= '9') {
        if (rx_quantifier(r) != CZ_OK)
          return CZ_ERR;
      } else {
        rb_str(&r->r_out, "\\{");
        r->r_i++;
        r->r_prev = RP_ATOM;
      }
      continue;
    case '|':
      rb_str(&r->r_out, "|");
      r->r_i++;
      r->r_prev = RP_NONE;
      continue;
    case '^': case '$':
      rb_put(&r->r_out, &c, 1);
      r->r_i++;
      r->r_prev = RP_CONSTRAINT;
      continue;
    case '.':
      rb_str(&r->r_out, ".");
      r->r_i++;
      r->r_prev = RP_ATOM;
      continue;
    case '}': case ']':
      rb_str(&r->r_out, c == '}' ? "\\}" : "\\]");
      r->r_i++;
      r->r_prev = RP_ATOM;
      continue;
    default: {
      size_t l = CZ_MIN(rx_utf8_len((unsigned char)c), r->r_n - r->r_i);
      if ((unsigned char)c < 0x80 && !is_alnum(c) && !rx_space(c)) {
        char t[2] = {'\\', c}; /* punctuation PCRE2 might read (#, space in x mode) */
        rb_put(&r->r_out, t, 2);
      } else {
        rb_put(&r->r_out, p + r->r_i, l);
      }
      r->r_i += l;
      r->r_prev = RP_ATOM;
      continue;
    }
    }
  }
  if (r->r_depth > 0)
    return rx_bad(r, "parentheses () not balanced");
  return CZ_OK;
}

int rx_translate(const char *p, size_t n, unsigned flags, char **out, size_t *out_len,
                 unsigned *out_flags, err_t *e)
{
  rx_rd_t *r = calloc(1, sizeof(*r));
  if (!r)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  r->r_p = p;
  r->r_n = n;
  r->r_flags = flags & ~RX_GLOBAL;
  r->r_e = e;
  r->r_done = calloc(n / 2 + 2, 1); /* at most one group per two bytes */
  if (!r->r_done) {
    free(r);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  }
  int rc = rx_prefix(r);
  if (rc == CZ_OK) {
    if (r->r_flags & RX_LITERAL) {
      r->r_p = p + r->r_i;
      r->r_n = n - r->r_i;
      rc = rx_literal(r);
    } else {
      rc = rx_body(r);
    }
  }
  rb_put(&r->r_out, "", 0); /* an empty pattern is an empty string, not NULL */
  if (rc == CZ_OK && r->r_out.rb_oom)
    rc = err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  if (rc != CZ_OK) {
    free(r->r_out.rb_p);
  } else {
    *out = r->r_out.rb_p;
    *out_len = r->r_out.rb_n;
    *out_flags = r->r_flags;
  }
  free(r->r_done);
  free(r);
  return rc;
}

int rx_parse_flags(const char *s, size_t n, bool allow_g, const char *fn, unsigned *flags,
                   err_t *e)
{
  unsigned f = *flags;
  for (size_t i = 0; i < n; i++) {
    switch (s[i]) {
    case 'g':
      if (!allow_g)
        return err_set(e, SQLSTATE_INVALID_PARAMETER,
                       "%s() does not support the \"global\" option", fn ? fn : "regexp");
      f |= RX_GLOBAL;
      break;
    case 'i': f |= RX_ICASE; break;
    case 'c': f &= ~RX_ICASE; break;
    case 'n': case 'm': f |= RX_NL_DOT | RX_NL_ANCHOR; break;
    case 'p': f = (f & ~RX_NL_ANCHOR) | RX_NL_DOT; break;
    case 'w': f = (f & ~RX_NL_DOT) | RX_NL_ANCHOR; break;
    case 's': f &= ~(RX_NL_DOT | RX_NL_ANCHOR); break;
    case 'x': f |= RX_EXPANDED; break;
    case 't': f &= ~RX_EXPANDED; break;
    case 'q': f |= RX_LITERAL; break;
    case 'b': case 'e':
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "regular expression option \"%c\" (POSIX %s syntax) is not supported",
                     s[i], s[i] == 'b' ? "basic" : "extended");
    default: {
      size_t l = CZ_MIN(rx_utf8_len((unsigned char)s[i]), n - i);
      return err_set(e, SQLSTATE_INVALID_PARAMETER, "invalid regular expression option: \"%.*s\"",
                     (int)l, s + i);
    }
    }
  }
  *flags = f;
  return CZ_OK;
}
