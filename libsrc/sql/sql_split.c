/* sql_split — where SQL statements begin and end in a text, by the
 * lexical rules alone: the engine's front-end dispatch cuts a
 * multi-statement text into statements before each is parsed once by the
 * parser of its language (SQL, cursor statements, later SPARQL), so the
 * cut cannot be left to the SQL grammar.
 *
 * The rules follow sql_scan.l exactly where a `;` could hide: quoted
 * strings ('' doubling), E'' strings (backslash escapes), quoted
 * identifiers, dollar quotes ($tag$ … $tag$; a `$` inside an identifier or
 * a parameter does not open one), -- comments and nested slash-star
 * comments. An unterminated quote or comment runs to the end of the text;
 * the parser then reports it. */
#include <string.h>

#include "sql/sql_int.h"

static bool ident_start(unsigned char c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c >= 0x80;
}

static bool ident_cont(unsigned char c)
{
  return ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

static bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Past the comment starting at i (text[i] is '-' or '/'); i itself when
 * none starts there. */
static size_t skip_comment(const char *t, size_t len, size_t i)
{
  if (i + 1 < len && t[i] == '-' && t[i + 1] == '-') {
    while (i < len && t[i] != '\n')
      i++;
    return i;
  }
  if (i + 1 < len && t[i] == '/' && t[i + 1] == '*') {
    int depth = 0;
    while (i < len) {
      if (i + 1 < len && t[i] == '/' && t[i + 1] == '*') {
        depth++;
        i += 2;
      } else if (i + 1 < len && t[i] == '*' && t[i + 1] == '/') {
        i += 2;
        if (--depth == 0)
          return i;
      } else {
        i++;
      }
    }
  }
  return i;
}

/* Past the quoted text opened by quote at i; backslash escapes when
 * escapes. */
static size_t skip_quoted(const char *t, size_t len, size_t i, char quote, bool escapes)
{
  for (i++; i < len; i++) {
    if (escapes && t[i] == '\\') {
      i++;
      continue;
    }
    if (t[i] == quote) {
      if (i + 1 < len && t[i + 1] == quote) {
        i++;
        continue;
      }
      return i + 1;
    }
  }
  return len;
}

/* The length of the dollar-quote delimiter ($$ or $tag$) at i, or 0. */
static size_t dollar_delim(const char *t, size_t len, size_t i)
{
  size_t j = i + 1;
  if (j < len && ident_start((unsigned char)t[j]))
    while (j < len && ident_cont((unsigned char)t[j]) && t[j] != '$')
      j++;
  return j < len && t[j] == '$' ? j + 1 - i : 0;
}

static size_t skip_dollar_quoted(const char *t, size_t len, size_t i, size_t dlen)
{
  for (size_t j = i + dlen; j + dlen <= len; j++)
    if (t[j] == '$' && memcmp(t + j, t + i, dlen) == 0)
      return j + dlen;
  return len;
}

size_t sql_skip_blanks(const char *text, size_t len)
{
  size_t i = 0;
  for (;;) {
    while (i < len && is_space(text[i]))
      i++;
    size_t j = i < len ? skip_comment(text, len, i) : i;
    if (j == i)
      return i;
    i = j;
  }
}

size_t sql_statement_extent(const char *t, size_t len)
{
  size_t i = 0;
  while (i < len) {
    unsigned char c = (unsigned char)t[i];
    if (c == ';')
      return i;
    if (c == '-' || c == '/') {
      size_t j = skip_comment(t, len, i);
      i = j > i ? j : i + 1;
    } else if (c == '\'') {
      i = skip_quoted(t, len, i, '\'', false);
    } else if (c == '"') {
      i = skip_quoted(t, len, i, '"', false);
    } else if (c == '$') {
      size_t d = dollar_delim(t, len, i);
      if (d)
        i = skip_dollar_quoted(t, len, i, d);
      else
        for (i++; i < len && t[i] >= '0' && t[i] <= '9';) /* a parameter: $1 */
          i++;
    } else if (ident_start(c)) {
      size_t s = i;
      while (i < len && ident_cont((unsigned char)t[i]))
        i++;
      if (i - s == 1 && (c == 'e' || c == 'E') && i < len && t[i] == '\'')
        i = skip_quoted(t, len, i, '\'', true);
    } else if (c >= '0' && c <= '9') {
      while (i < len && (ident_cont((unsigned char)t[i]) || t[i] == '.'))
        i++; /* numbers and the junk after them: no quote can open inside */
    } else {
      i++;
    }
  }
  return len;
}
