/* iq_split — cuts script text into statements at top-level semicolons.
 *
 * Design notes: the scanner knows just enough of PostgreSQL's lexical rules
 * to tell a terminating ';' from one inside something else: '…' strings
 * ('' doubles a quote), E'…' strings (backslash escapes too), "…"
 * identifiers, $tag$ … $tag$ quotes, -- comments to the end of the line,
 * nested block comments, and parentheses (a ';' inside them belongs to the
 * statement, as psql does for rule actions) and braces (SPARQL's patterns,
 * `SPARQL SELECT * WHERE { ?s :p ?o ; :q ?x }`, which SQL never uses
 * outside strings). It is incremental: input comes
 * in any chunks and the state (sp_lex …) survives between them. Where a
 * decision needs the next byte ("-" then "-"?, "'" then "'"?, a dollar tag
 * cut short) and that byte has not arrived, scanning stops at the undecided
 * byte until more input or the end of input comes, so the statements do not
 * depend on how the text was chunked.
 *
 * Invariants:
 *  1. sp_buf[0, sp_scan) has been scanned; sp_line is the line of sp_scan.
 *  2. When !sp_started, the buffer holds nothing before sp_scan: blanks and
 *     comments ahead of a statement are dropped as soon as they are scanned.
 *  3. When sp_started, sp_buf[sp_start] is the statement's first byte and
 *     sp_start_line its line.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "isql.h"

void iq_split_init(iq_split_t *s, int first_line)
{
  memset(s, 0, sizeof *s);
  s->sp_lex = IQ_LEX_TOP;
  s->sp_line = first_line;
}

void iq_split_free(iq_split_t *s)
{
  iq_buf_free(&s->sp_buf);
  free(s->sp_tag);
  s->sp_tag = NULL;
}

void iq_split_feed(iq_split_t *s, const char *text, size_t len)
{
  iq_buf_append(&s->sp_buf, text, len);
}

void iq_split_finish(iq_split_t *s) { s->sp_eof = true; }

void iq_split_reset(iq_split_t *s)
{
  /* Count the dropped lines so later line numbers stay true. */
  for (size_t i = s->sp_scan; i < s->sp_buf.b_len; i++)
    if (s->sp_buf.b_data[i] == '\n')
      s->sp_line++;
  iq_buf_clear(&s->sp_buf);
  s->sp_scan = 0;
  s->sp_lex = IQ_LEX_TOP;
  s->sp_comment_depth = 0;
  s->sp_paren_depth = 0;
  s->sp_escape = false;
  free(s->sp_tag);
  s->sp_tag = NULL;
  s->sp_started = false;
  s->sp_start = 0;
}

bool iq_split_pending(const iq_split_t *s)
{
  if (s->sp_started)
    return true;
  if (s->sp_lex == IQ_LEX_BLOCK_COMMENT)
    return true;
  /* Unscanned bytes other than blanks (an undecided "-" at the end). */
  for (size_t i = s->sp_scan; i < s->sp_buf.b_len; i++)
    if (!isspace((unsigned char)s->sp_buf.b_data[i]))
      return true;
  return false;
}

const char *iq_lex_name(iq_lex_t lex)
{
  switch (lex) {
  case IQ_LEX_TOP: return "statement";
  case IQ_LEX_SQUOTE: return "quoted string";
  case IQ_LEX_ESTRING: return "E'' string";
  case IQ_LEX_DQUOTE: return "quoted identifier";
  case IQ_LEX_LINE_COMMENT: return "comment";
  case IQ_LEX_BLOCK_COMMENT: return "/* comment";
  case IQ_LEX_DOLLAR: return "dollar-quoted string";
  }
  return "statement";
}

/* Bytes that continue an identifier: a '$' or a quote right after one of
 * these is part of the word (foo$bar, somE'…' is not an E string). */
static bool ident_byte(int c)
{
  return c >= 0x80 || isalnum(c) || c == '_' || c == '$';
}

static bool tag_start_byte(int c) { return c >= 0x80 || isalpha(c) || c == '_'; }

static bool tag_byte(int c) { return c >= 0x80 || isalnum(c) || c == '_'; }

/* The byte at i, or -1 when it has not been fed. */
static int peek(const iq_split_t *s, size_t i)
{
  return i < s->sp_buf.b_len ? (unsigned char)s->sp_buf.b_data[i] : -1;
}

/* Moves *i past n bytes, counting the newlines among them. */
static void advance(iq_split_t *s, size_t *i, size_t n)
{
  for (size_t k = 0; k < n; k++)
    if (s->sp_buf.b_data[*i + k] == '\n')
      s->sp_line++;
  *i += n;
}

static void mark_start(iq_split_t *s, size_t i)
{
  if (!s->sp_started) {
    s->sp_started = true;
    s->sp_start = i;
    s->sp_start_line = s->sp_line;
  }
}

/* Copies sp_buf[sp_start, end) without trailing blanks into out. */
static void take_statement(iq_split_t *s, size_t end, iq_stmt_t *out)
{
  const char *b = s->sp_buf.b_data;
  size_t start = s->sp_started ? s->sp_start : end;
  while (end > start && isspace((unsigned char)b[end - 1]))
    end--;
  out->st_text = iq_xmalloc(end - start + 1);
  memcpy(out->st_text, b + start, end - start);
  out->st_text[end - start] = '\0';
  out->st_line = s->sp_started ? s->sp_start_line : s->sp_line;
  out->st_open = IQ_LEX_TOP;
}

/* Scanning stopped at i because the byte there cannot be decided yet
 * (invariant 1), or the buffer ran out. Drops leading blanks (invariant 2). */
static void pause_at(iq_split_t *s, size_t i)
{
  if (!s->sp_started) {
    iq_buf_consume(&s->sp_buf, i);
    s->sp_scan = 0;
  } else {
    s->sp_scan = i;
  }
}

/* Whether a closing quote at i is doubled (an escaped quote). Returns -1
 * when the next byte has not come yet. */
static int doubled(const iq_split_t *s, size_t i, int q)
{
  int n = peek(s, i + 1);
  if (n < 0)
    return s->sp_eof ? 0 : -1;
  return n == q;
}

/* In TOP state at a '$' that does not continue a word: returns the length
 * of a $tag$ starting at i, 0 when it is not one, -1 when undecided. */
static long dollar_tag_len(const iq_split_t *s, size_t i)
{
  size_t j = i + 1;
  int c = peek(s, j);
  if (c < 0)
    return s->sp_eof ? 0 : -1;
  if (c != '$' && !tag_start_byte(c))
    return 0;
  while ((c = peek(s, j)) >= 0 && tag_byte(c))
    j++;
  if (c < 0)
    return s->sp_eof ? 0 : -1;
  return c == '$' ? (long)(j - i + 1) : 0;
}

/* One byte (or token opener) in TOP state. Returns 1 when a statement ended
 * at i, 0 to continue, -1 when the byte at i is undecided. */
static int scan_top(iq_split_t *s, size_t *ip)
{
  size_t i = *ip;
  const char *b = s->sp_buf.b_data;
  int c = (unsigned char)b[i];
  int n;

  if (isspace(c)) {
    advance(s, ip, 1);
    return 0;
  }
  if (c == '-' || c == '/') {
    n = peek(s, i + 1);
    if (n < 0 && !s->sp_eof)
      return -1;
    if (c == '-' && n == '-') {
      s->sp_lex = IQ_LEX_LINE_COMMENT;
      advance(s, ip, 2);
      return 0;
    }
    if (c == '/' && n == '*') {
      s->sp_lex = IQ_LEX_BLOCK_COMMENT;
      s->sp_comment_depth = 1;
      advance(s, ip, 2);
      return 0;
    }
  }
  if (c == ';' && s->sp_paren_depth == 0)
    return 1;
  mark_start(s, i);
  switch (c) {
  case '(':
  case '{': /* SPARQL statements: `?s :p ?o ; :q ?x` inside braces */
    s->sp_paren_depth++;
    break;
  case ')':
  case '}':
    if (s->sp_paren_depth > 0)
      s->sp_paren_depth--;
    break;
  case '\'':
    /* E'…' when the quote follows a lone E (not the end of a longer word). */
    if (i >= 1 && (b[i - 1] == 'E' || b[i - 1] == 'e') &&
        (i < 2 || !ident_byte((unsigned char)b[i - 2])))
      s->sp_lex = IQ_LEX_ESTRING;
    else
      s->sp_lex = IQ_LEX_SQUOTE;
    s->sp_escape = false;
    break;
  case '"':
    s->sp_lex = IQ_LEX_DQUOTE;
    break;
  case '$':
    if (i == 0 || !ident_byte((unsigned char)b[i - 1])) {
      long tl = dollar_tag_len(s, i);
      if (tl < 0)
        return -1;
      if (tl > 0) {
        free(s->sp_tag);
        s->sp_tag = iq_xmalloc((size_t)tl + 1);
        memcpy(s->sp_tag, b + i, (size_t)tl);
        s->sp_tag[tl] = '\0';
        s->sp_lex = IQ_LEX_DOLLAR;
        advance(s, ip, (size_t)tl);
        return 0;
      }
    }
    break;
  default:
    break;
  }
  advance(s, ip, 1);
  return 0;
}

/* A byte c inside a quote whose quote character is q: a doubled q stays
 * inside, a single one closes. Returns as scan_inside does. */
static int close_quote(iq_split_t *s, size_t *ip, int c, int q)
{
  int d;
  if (c == q) {
    if ((d = doubled(s, *ip, q)) < 0)
      return -1;
    if (d) {
      advance(s, ip, 2);
      return 0;
    }
    s->sp_lex = IQ_LEX_TOP;
  }
  advance(s, ip, 1);
  return 0;
}

/* One byte inside a quote or comment. Returns 0 to continue, -1 when the
 * byte at i is undecided. */
static int scan_inside(iq_split_t *s, size_t *ip)
{
  size_t i = *ip;
  const char *b = s->sp_buf.b_data;
  int c = (unsigned char)b[i];

  switch (s->sp_lex) {
  case IQ_LEX_ESTRING:
    if (s->sp_escape) {
      s->sp_escape = false;
      break;
    }
    if (c == '\\') {
      s->sp_escape = true;
      break;
    }
    return close_quote(s, ip, c, '\''); /* '' escapes a quote here too */
  case IQ_LEX_SQUOTE:
    return close_quote(s, ip, c, '\'');
  case IQ_LEX_DQUOTE:
    return close_quote(s, ip, c, '"');
  case IQ_LEX_LINE_COMMENT:
    if (c == '\n')
      s->sp_lex = IQ_LEX_TOP;
    break;
  case IQ_LEX_BLOCK_COMMENT:
    if (c == '*' || c == '/') {
      int n = peek(s, i + 1);
      if (n < 0 && !s->sp_eof)
        return -1;
      if (c == '*' && n == '/') {
        if (--s->sp_comment_depth == 0)
          s->sp_lex = IQ_LEX_TOP;
        advance(s, ip, 2);
        return 0;
      }
      if (c == '/' && n == '*') {
        s->sp_comment_depth++;
        advance(s, ip, 2);
        return 0;
      }
    }
    break;
  case IQ_LEX_DOLLAR: {
    size_t tl = strlen(s->sp_tag);
    size_t have = s->sp_buf.b_len - i;
    if (c != '$')
      break;
    if (have < tl) {
      /* A possible closing tag cut short by the end of the fed text. */
      if (!s->sp_eof && memcmp(b + i, s->sp_tag, have) == 0)
        return -1;
      break;
    }
    if (memcmp(b + i, s->sp_tag, tl) == 0) {
      s->sp_lex = IQ_LEX_TOP;
      advance(s, ip, tl);
      return 0;
    }
    break;
  }
  case IQ_LEX_TOP:
    break;
  }
  advance(s, ip, 1);
  return 0;
}

bool iq_split_next(iq_split_t *s, iq_stmt_t *out)
{
  size_t i = s->sp_scan;

  while (i < s->sp_buf.b_len) {
    int r = s->sp_lex == IQ_LEX_TOP ? scan_top(s, &i) : scan_inside(s, &i);
    if (r < 0) {
      pause_at(s, i);
      return false;
    }
    if (r == 0)
      continue;
    /* A ';' at top level, at i. */
    if (!s->sp_started) {
      advance(s, &i, 1); /* an empty statement: skip it */
      iq_buf_consume(&s->sp_buf, i);
      i = 0;
      continue;
    }
    take_statement(s, i, out);
    advance(s, &i, 1);
    iq_buf_consume(&s->sp_buf, i);
    s->sp_scan = 0;
    s->sp_started = false;
    s->sp_paren_depth = 0;
    return true;
  }
  if (s->sp_eof && (s->sp_started || s->sp_lex == IQ_LEX_BLOCK_COMMENT)) {
    /* The text after the last ';', or something left open. */
    iq_lex_t open = s->sp_lex == IQ_LEX_LINE_COMMENT ? IQ_LEX_TOP : s->sp_lex;
    take_statement(s, i, out);
    out->st_open = open;
    s->sp_scan = i; /* scanned to the end: reset counts no line twice */
    iq_split_reset(s);
    return true;
  }
  pause_at(s, i);
  return false;
}
