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
 * depth 0 outside all of those ends the statement — unless what follows
 * it begins another SPARQL Update operation (`INSERT DATA`, `DELETE {`,
 * `CLEAR GRAPH`, `COPY ex:a TO …`, `PREFIX p:` …): an update request's
 * operations are separated by ';' too. The words after the keyword tell
 * it from SQL (`INSERT INTO`, `DROP TABLE`, `COPY t TO`, `WITH x AS`,
 * `MOVE FORWARD`), which has none of those forms. */
#include <ctype.h>
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

static size_t ex_blanks(const char *t, size_t i, size_t len)
{
  while (i < len) {
    if (isspace((unsigned char)t[i]))
      i++;
    else if (t[i] == '#')
      while (i < len && t[i] != '\n')
        i++;
    else
      break;
  }
  return i;
}

/* The word at t[i] (letters, digits, '_', '-'), its end in *end. */
static bool ex_word(const char *t, size_t i, size_t len, const char *w, size_t *end)
{
  size_t n = strlen(w);
  if (len - i < n || strncasecmp(t + i, w, n) != 0)
    return false;
  if (i + n < len && (isalnum((unsigned char)t[i + n]) || t[i + n] == '_' || t[i + n] == '-' ||
                      t[i + n] == ':'))
    return false;
  *end = i + n;
  return true;
}

static bool ex_any_word(const char *t, size_t i, size_t len, const char *const *ws)
{
  size_t end;
  for (; *ws; ws++)
    if (ex_word(t, i, len, *ws, &end))
      return true;
  return false;
}

/* An IRI or a prefixed name (`ex:g`, `:g`) at t[i]. */
static bool ex_graph_name(const char *t, size_t i, size_t len)
{
  if (i >= len)
    return false;
  if (t[i] == '<')
    return true;
  while (i < len && (isalnum((unsigned char)t[i]) || t[i] == '_' || t[i] == '-' || t[i] == '.' ||
                     (unsigned char)t[i] >= 0x80))
    i++;
  return i < len && t[i] == ':';
}

/* Whether t[i..] begins a SPARQL Update operation (or its prologue). */
static bool ex_update_follows(const char *t, size_t i, size_t len)
{
  static const char *const graph_ops[] = {"silent", "graph", "default", "named", "all", NULL};
  static const char *const create_ops[] = {"silent", "graph", NULL};
  static const char *const copy_ops[] = {"silent", "default", "graph", NULL};
  static const char *const del_ops[] = {"data", "where", NULL};
  size_t w;
  i = ex_blanks(t, i, len);
  if (ex_word(t, i, len, "insert", &w) || ex_word(t, i, len, "delete", &w)) {
    size_t j = ex_blanks(t, w, len);
    return (j < len && t[j] == '{') || ex_any_word(t, j, len, del_ops);
  }
  if (ex_word(t, i, len, "load", &w)) {
    size_t j = ex_blanks(t, w, len);
    return (j < len && t[j] == '<') || ex_any_word(t, j, len, create_ops);
  }
  if (ex_word(t, i, len, "clear", &w) || ex_word(t, i, len, "drop", &w))
    return ex_any_word(t, ex_blanks(t, w, len), len, graph_ops);
  if (ex_word(t, i, len, "create", &w))
    return ex_any_word(t, ex_blanks(t, w, len), len, create_ops);
  if (ex_word(t, i, len, "add", &w) || ex_word(t, i, len, "move", &w) ||
      ex_word(t, i, len, "copy", &w)) {
    size_t j = ex_blanks(t, w, len);
    return ex_any_word(t, j, len, copy_ops) || ex_graph_name(t, j, len);
  }
  if (ex_word(t, i, len, "with", &w) || ex_word(t, i, len, "prefix", &w) ||
      ex_word(t, i, len, "base", &w))
    return ex_graph_name(t, ex_blanks(t, w, len), len);
  return false;
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
      else if (c == ';' && depth == 0 && !ex_update_follows(t, i + 1, len))
        return i;
      i++;
    }
  }
  return len;
}
