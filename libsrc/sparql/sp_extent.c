/* sp_extent — where a SPARQL statement ends inside a multi-statement SQL
 * text (the engine's front-end dispatch, statements beginning `SPARQL`).
 *
 * Design notes: SPARQL uses ';' inside patterns (`?s :p ?o ; :q ?x`) and
 * GROUP_CONCAT(… ; SEPARATOR=…), and '#' both as a comment and inside
 * IRIs, so SQL's splitter cannot cut it. This is a small lexical scan,
 * not a parse: strings (short and long, both quotes, with backslash
 * escapes), IRIs (`<` directly followed by a non-blank, up to the next
 * `>` with no blank, quote or brace between — `?a < ?b` is not an IRI),
 * comments to end of line, and brace and parenthesis depth. A ';' at
 * depth 0 outside all of those ends the statement. */
#include <string.h>

#include "sparql/sparql.h"

static size_t ex_iri_end(const char *t, size_t i, size_t len)
{
  for (size_t j = i + 1; j < len; j++) {
    char c = t[j];
    if (c == '>')
      return j + 1;
    if (strchr(" \t\r\n\"{}|^`<", c))
      return 0;
  }
  return 0;
}

static size_t ex_string_end(const char *t, size_t i, size_t len)
{
  char q = t[i];
  bool lng = i + 2 < len && t[i + 1] == q && t[i + 2] == q;
  size_t j = i + (lng ? 3 : 1);
  while (j < len) {
    if (t[j] == '\\') {
      j += 2;
      continue;
    }
    if (t[j] == q) {
      if (!lng)
        return j + 1;
      if (j + 2 < len && t[j + 1] == q && t[j + 2] == q)
        return j + 3;
    } else if (!lng && (t[j] == '\n' || t[j] == '\r')) {
      return j; /* an unterminated short string: the parser reports it */
    }
    j++;
  }
  return len;
}

size_t sp_statement_extent(const char *t, size_t len)
{
  int depth = 0;
  size_t i = 0;
  while (i < len) {
    char c = t[i];
    if (c == '\'' || c == '"') {
      i = ex_string_end(t, i, len);
    } else if (c == '#') {
      while (i < len && t[i] != '\n')
        i++;
    } else if (c == '<' && i + 1 < len && !strchr(" \t\r\n=", t[i + 1])) {
      size_t e = ex_iri_end(t, i, len);
      i = e ? e : i + 1;
    } else {
      if (c == '{' || c == '(')
        depth++;
      else if ((c == '}' || c == ')') && depth > 0)
        depth--;
      else if (c == ';' && depth == 0)
        return i;
      i++;
    }
  }
  return len;
}
