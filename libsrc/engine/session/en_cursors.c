/* en_cursors — the session's open cursors: named portals of their own
 * statements, kept until CLOSE or the end of the transaction block.
 * Cursor statements themselves (DECLARE, FETCH, MOVE, CLOSE) are read and
 * run by the statement runner (runner/en_cursor.c), which reaches this
 * registry through session.h. */
#include <string.h>

#include "engine/session/session_int.h"

static ecursor_t *find_cursor(esession_t *s, const char *name)
{
  for (ecursor_t *c = s->se_cursors; c; c = c->cu_next)
    if (strcmp(c->cu_name, name) == 0)
      return c;
  return NULL;
}

static void cursor_free(ecursor_t *c)
{
  eportal_free(c->cu_portal);
  estmt_free(c->cu_stmt);
}

const estmt_t *esession_cursor_stmt(esession_t *s, const char *name)
{
  ecursor_t *c = find_cursor(s, name);
  return c ? c->cu_stmt : NULL;
}

eportal_t *es_cursor_portal(esession_t *s, const char *name)
{
  ecursor_t *c = find_cursor(s, name);
  return c ? c->cu_portal : NULL;
}

int es_cursor_open(esession_t *s, const char *name, estmt_t *query, const datum_t *vals, int n,
                   err_t *e)
{
  if (find_cursor(s, name))
    return err_set(e, SQLSTATE_DUPLICATE_CURSOR, "cursor \"%s\" already exists", name);
  eportal_t *cp;
  if (en_portal_bind_values(query, vals, n, &cp, e) != CZ_OK)
    return CZ_ERR;
  ecursor_t *c = arena_zalloc(s->se_arena, sizeof(*c));
  c->cu_name = arena_strdup(s->se_arena, name);
  c->cu_stmt = query;
  c->cu_stmt->st_refs++;
  c->cu_portal = cp;
  c->cu_next = s->se_cursors;
  s->se_cursors = c;
  return CZ_OK;
}

void en_cursor_close_all(esession_t *s)
{
  ecursor_t *c = s->se_cursors;
  s->se_cursors = NULL;  /* first: freeing a portal may fail the block again */
  while (c) {
    ecursor_t *next = c->cu_next;
    cursor_free(c);
    c = next;
  }
}

bool es_cursor_close(esession_t *s, const char *name)
{
  if (!name) {
    en_cursor_close_all(s);
    return true;
  }
  for (ecursor_t **pc = &s->se_cursors; *pc; pc = &(*pc)->cu_next)
    if (strcmp((*pc)->cu_name, name) == 0) {
      ecursor_t *c = *pc;
      *pc = c->cu_next;
      cursor_free(c);
      return true;
    }
  return false;
}
