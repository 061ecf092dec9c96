/* en_frontend — the statement runner's front-end dispatch: which language
 * a statement is written in, where it ends, and the parser that reads it.
 *
 * Design notes: a text of several statements is cut by the front end of
 * each statement in turn (chosen by the statement's first word), and every
 * statement is parsed exactly once: esession_split parses them all before
 * the first runs (a syntax error anywhere runs nothing, as in PostgreSQL)
 * and hands the parsed form to estmt_prepare_parsed. SQL is the default;
 * cursor statements (DECLARE, FETCH, MOVE, CLOSE) have their own reader in
 * en_cursor.c; SPARQL statements (`SPARQL …`, en_sparql.c) their own
 * extent rule (a `;` inside braces does not end them). Procedure bodies
 * join here the same way. */
#include <string.h>

#include "engine/runner/runner_int.h"

static bool cursor_claims(const char *text, size_t len)
{
  return en_cursor_kind(text, len) != ECUR_NONE;
}

static int cursor_prepare(estmt_t *st, void *parsed, const uint32_t *ptypes, int nparams,
                          err_t *e)
{
  (void)parsed; /* the cursor reader reads st_text itself, once */
  return en_cursor_prepare(st, ptypes, nparams, e);
}

static int sql_front_parse(arena_t *a, const char *text, size_t len, void **parsed, err_t *e)
{
  sql_stmt_list_t *l;
  if (sql_parse(a, text, len, &l, e) != CZ_OK)
    return CZ_ERR;
  if (l->sl_n > 1)
    return err_set(e, SQLSTATE_SYNTAX_ERROR,
                   "cannot insert multiple commands into a prepared statement");
  *parsed = l->sl_n ? l->sl_stmts[0] : NULL;
  return CZ_OK;
}

static const efront_t en_fronts[] = {
    {"cursor", cursor_claims, sql_statement_extent, NULL, cursor_prepare},
    {"sql", NULL, sql_statement_extent, sql_front_parse, en_sql_prepare},
};

const efront_t *en_front_for(const char *text, size_t len)
{
  if (en_sparql_front.fe_claims(text, len))
    return &en_sparql_front;
  size_t n = CZ_ARRAY_LEN(en_fronts);
  for (size_t i = 0; i + 1 < n; i++)
    if (en_fronts[i].fe_claims(text, len))
      return &en_fronts[i];
  return &en_fronts[n - 1];
}

/* Characters (not bytes) of text[0..off), for error positions. */
static int chars_before(const char *text, size_t off)
{
  int n = 0;
  for (size_t i = 0; i < off; i++)
    n += ((unsigned char)text[i] & 0xC0) != 0x80;
  return n;
}

int esession_split(esession_t *s, const char *text, size_t len, arena_t *a, etext_t **stmts,
                   int *n, err_t *e)
{
  int cap = 4, cnt = 0;
  etext_t *out = arena_alloc(a, sizeof(etext_t) * (size_t)cap);
  size_t at = 0;
  for (;;) {
    at += sql_skip_blanks(text + at, len - at);
    if (at < len && text[at] == ';') {
      at++;
      continue;
    }
    if (at >= len)
      break;
    const efront_t *fe = en_front_for(text + at, len - at);
    size_t ext = fe->fe_extent(text + at, len - at), body = ext;
    while (body > 0 && strchr(" \t\n\r\f\v", text[at + body - 1]))
      body--;
    void *parsed = NULL;
    if (fe->fe_parse && fe->fe_parse(a, text + at, body, &parsed, e) != CZ_OK) {
      if (e->er_pos > 0)
        e->er_pos += chars_before(text, at);
      /* As PostgreSQL: a syntax error fails the open block (25P02 until
       * ROLLBACK) like any failed statement. */
      esession_fail(s);
      return CZ_ERR;
    }
    if (cnt == cap) {
      etext_t *grown = arena_alloc(a, sizeof(etext_t) * (size_t)cap * 2);
      memcpy(grown, out, sizeof(etext_t) * (size_t)cnt);
      out = grown;
      cap *= 2;
    }
    out[cnt++] = (etext_t){.et_off = at, .et_len = body, .et_front = fe, .et_parsed = parsed};
    at += ext;
  }
  *n = cnt;
  *stmts = out;
  return CZ_OK;
}
