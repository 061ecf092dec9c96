/* en_cursor — SQL cursors: DECLARE name CURSOR FOR query, FETCH / MOVE
 * [FORWARD] [n | ALL | NEXT] [FROM | IN] name, CLOSE name | ALL (what
 * psycopg's server-side cursors send).
 *
 * Design notes: the grammar has no cursor statements, so they are read
 * here with a small tokenizer before the parser would refuse them; the
 * query after FOR is prepared as an ordinary statement (its errors point
 * into the whole text). A cursor is a portal of that statement kept by
 * the session under its name; FETCH runs it with a row limit (the
 * portal's suspension does the rest). Cursors live until CLOSE or the
 * end of their transaction block (WITHOUT HOLD, the only kind: outside a
 * block DECLARE is 25P01, as in PostgreSQL). Only forward fetching. */
#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "engine/runner/runner_int.h"

/* ---- reading the statement ------------------------------------------------ */

typedef struct ctok_s {
  const char *ct_p;             /* the text */
  size_t ct_len, ct_off;        /* where the next token starts */
} ctok_t;

static void skip_space(ctok_t *t)
{
  while (t->ct_off < t->ct_len) {
    const char *p = t->ct_p + t->ct_off;
    size_t left = t->ct_len - t->ct_off;
    if (isspace((unsigned char)*p))
      t->ct_off++;
    else if (left >= 2 && p[0] == '-' && p[1] == '-') {
      while (t->ct_off < t->ct_len && t->ct_p[t->ct_off] != '\n')
        t->ct_off++;
    } else if (left >= 2 && p[0] == '/' && p[1] == '*') {
      int depth = 0;
      do {
        if (t->ct_off + 1 < t->ct_len && t->ct_p[t->ct_off] == '/' && t->ct_p[t->ct_off + 1] == '*') {
          depth++;
          t->ct_off += 2;
        } else if (t->ct_off + 1 < t->ct_len && t->ct_p[t->ct_off] == '*' &&
                   t->ct_p[t->ct_off + 1] == '/') {
          depth--;
          t->ct_off += 2;
        } else
          t->ct_off++;
      } while (depth > 0 && t->ct_off < t->ct_len);
    } else
      break;
  }
}

/* The next word (an identifier, lowercased, or a quoted one, or an
 * optionally signed integer) into buf; false at the end or on anything
 * else. */
static bool next_word(ctok_t *t, char *buf, size_t cap, bool *quoted)
{
  skip_space(t);
  *quoted = false;
  size_t n = 0;
  if (t->ct_off >= t->ct_len)
    return false;
  const char *p = t->ct_p;
  if (p[t->ct_off] == '"') {
    *quoted = true;
    t->ct_off++;
    while (t->ct_off < t->ct_len) {
      if (p[t->ct_off] == '"') {
        if (t->ct_off + 1 < t->ct_len && p[t->ct_off + 1] == '"')
          t->ct_off++;
        else
          break;
      }
      if (n + 1 < cap)
        buf[n++] = p[t->ct_off];
      t->ct_off++;
    }
    if (t->ct_off >= t->ct_len)
      return false;  /* unterminated */
    t->ct_off++;
    buf[n] = '\0';
    return n > 0;
  }
  if (p[t->ct_off] == '-' || p[t->ct_off] == '+')
    buf[n++] = p[t->ct_off++];
  while (t->ct_off < t->ct_len &&
         (isalnum((unsigned char)p[t->ct_off]) || p[t->ct_off] == '_' || p[t->ct_off] == '$' ||
          (unsigned char)p[t->ct_off] >= 0x80)) {
    if (n + 1 < cap)
      buf[n++] = (char)tolower((unsigned char)p[t->ct_off]);
    t->ct_off++;
  }
  buf[n] = '\0';
  return n > 0 && (isalnum((unsigned char)buf[n - 1]) || buf[n - 1] == '_' ||
                   (unsigned char)buf[n - 1] >= 0x80);
}

static bool at_end(ctok_t *t)
{
  skip_space(t);
  while (t->ct_off < t->ct_len && t->ct_p[t->ct_off] == ';') {
    t->ct_off++;
    skip_space(t);
  }
  return t->ct_off >= t->ct_len;
}

static bool is_number(const char *w, int64_t *v)
{
  const char *p = w + (*w == '-' || *w == '+');
  if (!*p)
    return false;
  for (const char *c = p; *c; c++)
    if (!isdigit((unsigned char)*c))
      return false;
  long long x = strtoll(w, NULL, 10);
  *v = (int64_t)x;
  return true;
}

ecur_kind_t en_cursor_kind(const char *text, size_t len)
{
  ctok_t t = {.ct_p = text, .ct_len = len};
  char w[16];
  bool q;
  if (!next_word(&t, w, sizeof(w), &q) || q)
    return ECUR_NONE;
  if (strcmp(w, "declare") == 0)
    return ECUR_DECLARE;
  if (strcmp(w, "fetch") == 0)
    return ECUR_FETCH;
  if (strcmp(w, "move") == 0)
    return ECUR_MOVE;
  if (strcmp(w, "close") == 0)
    return ECUR_CLOSE;
  return ECUR_NONE;
}

static int syntax(ctok_t *t, err_t *e)
{
  err_set(e, SQLSTATE_SYNTAX_ERROR, "syntax error at or near \"%.*s\"",
          (int)(t->ct_off < t->ct_len ? 1 : 0), t->ct_p + t->ct_off);
  e->er_pos = (int)t->ct_off + 1;
  return CZ_ERR;
}

/* DECLARE name [BINARY | ASENSITIVE | INSENSITIVE | [NO] SCROLL]… CURSOR
 * [WITH | WITHOUT HOLD] FOR query */
static int parse_declare(estmt_t *st, ctok_t *t, const uint32_t *ptypes, int nparams,
                         ecur_stmt_t *cs, err_t *e)
{
  char w[128];
  bool q;
  if (!next_word(t, w, sizeof(w), &q))
    return syntax(t, e);
  cs->cs_name = arena_strdup(st->st_arena, w);
  for (;;) {
    if (!next_word(t, w, sizeof(w), &q) || q)
      return syntax(t, e);
    if (strcmp(w, "binary") == 0)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "binary cursors are not supported yet");
    if (strcmp(w, "asensitive") == 0 || strcmp(w, "insensitive") == 0 ||
        strcmp(w, "scroll") == 0 || strcmp(w, "no") == 0)
      continue;  /* NO SCROLL: we only go forward anyway; SCROLL is refused at FETCH */
    if (strcmp(w, "cursor") == 0)
      break;
    return syntax(t, e);
  }
  if (!next_word(t, w, sizeof(w), &q) || q)
    return syntax(t, e);
  if (strcmp(w, "with") == 0 || strcmp(w, "without") == 0) {
    bool hold = strcmp(w, "with") == 0;
    if (!next_word(t, w, sizeof(w), &q) || strcmp(w, "hold") != 0)
      return syntax(t, e);
    if (hold)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                     "cursors WITH HOLD are not supported yet");
    if (!next_word(t, w, sizeof(w), &q) || q)
      return syntax(t, e);
  }
  if (strcmp(w, "for") != 0)
    return syntax(t, e);
  skip_space(t);
  size_t off = t->ct_off;
  if (estmt_prepare(st->st_sess, t->ct_p + off, t->ct_len - off, ptypes, nparams, &cs->cs_query,
                    e) != CZ_OK) {
    if (e->er_pos > 0)
      e->er_pos += (int)off;
    return CZ_ERR;
  }
  if (cs->cs_query->st_kind != ESTMT_QUERY || !cs->cs_query->st_plan) {
    estmt_free(cs->cs_query);
    cs->cs_query = NULL;
    err_set(e, SQLSTATE_SYNTAX_ERROR, "DECLARE CURSOR must be followed by a SELECT or VALUES");
    e->er_pos = (int)off + 1;
    return CZ_ERR;
  }
  st->st_nparams = cs->cs_query->st_nparams;
  st->st_ptypes = cs->cs_query->st_ptypes;
  return CZ_OK;
}

/* FETCH | MOVE [NEXT | FORWARD [n | ALL] | n | ALL] [FROM | IN] name */
static int parse_fetch(estmt_t *st, ctok_t *t, ecur_stmt_t *cs, err_t *e)
{
  char w[128];
  bool q;
  cs->cs_count = 1;
  if (!next_word(t, w, sizeof(w), &q))
    return syntax(t, e);
  int64_t n;
  if (!q && strcmp(w, "forward") == 0) {
    size_t save = t->ct_off;
    if (!next_word(t, w, sizeof(w), &q))
      return syntax(t, e);
    if (!q && strcmp(w, "all") == 0)
      cs->cs_count = -1;
    else if (!q && is_number(w, &n))
      cs->cs_count = n;
    else
      t->ct_off = save;
    if (!next_word(t, w, sizeof(w), &q))
      return syntax(t, e);
  } else if (!q && (strcmp(w, "next") == 0 || strcmp(w, "all") == 0 || is_number(w, &n))) {
    cs->cs_count = strcmp(w, "all") == 0 ? -1 : strcmp(w, "next") == 0 ? 1 : n;
    if (!next_word(t, w, sizeof(w), &q))
      return syntax(t, e);
  } else if (!q && (strcmp(w, "prior") == 0 || strcmp(w, "first") == 0 ||
                    strcmp(w, "last") == 0 || strcmp(w, "absolute") == 0 ||
                    strcmp(w, "relative") == 0 || strcmp(w, "backward") == 0)) {
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "cursor can only scan forward (FETCH %s is not supported)", w);
  }
  if (cs->cs_count == 0 || cs->cs_count < -1)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "cursor can only scan forward");
  if (!q && (strcmp(w, "from") == 0 || strcmp(w, "in") == 0) &&
      !next_word(t, w, sizeof(w), &q))
    return syntax(t, e);
  cs->cs_name = arena_strdup(st->st_arena, w);
  return at_end(t) ? CZ_OK : syntax(t, e);
}

int en_cursor_prepare(estmt_t *st, const uint32_t *ptypes, int nparams, err_t *e)
{
  ecur_kind_t kind = en_cursor_kind(st->st_text, st->st_len);
  if (es_check_not_failed(st->st_sess, NULL, e) != CZ_OK)
    return CZ_ERR;  /* 25P02 before anything about the cursor, as PostgreSQL */
  ctok_t t = {.ct_p = st->st_text, .ct_len = st->st_len};
  char w[128];
  bool q;
  next_word(&t, w, sizeof(w), &q);
  ecur_stmt_t *cs = arena_zalloc(st->st_arena, sizeof(*cs));
  cs->cs_kind = kind;
  st->st_cursor = cs;
  st->st_kind = ESTMT_COMMAND;
  st->st_ncols = -1;
  int rc;
  switch (kind) {
  case ECUR_DECLARE:
    return parse_declare(st, &t, ptypes, nparams, cs, e);
  case ECUR_FETCH:
  case ECUR_MOVE:
    if ((rc = parse_fetch(st, &t, cs, e)) != CZ_OK)
      return rc;
    if (kind == ECUR_FETCH) {
      /* Rows come back: describe them from the cursor (it must exist). */
      const estmt_t *cq = esession_cursor_stmt(st->st_sess, cs->cs_name);
      if (!cq)
        return err_set(e, SQLSTATE_UNDEFINED_CURSOR, "cursor \"%s\" does not exist",
                       cs->cs_name);
      st->st_kind = ESTMT_QUERY;
      st->st_ncols = cq->st_ncols;
      st->st_cols = arena_alloc(st->st_arena, sizeof(ecol_t) * (size_t)(st->st_ncols + 1));
      for (int i = 0; i < st->st_ncols; i++) {
        st->st_cols[i] = cq->st_cols[i];
        st->st_cols[i].ec_name = arena_strdup(st->st_arena, cq->st_cols[i].ec_name);
      }
    }
    return CZ_OK;
  default: {
    if (!next_word(&t, w, sizeof(w), &q))
      return syntax(&t, e);
    cs->cs_name = !q && strcmp(w, "all") == 0 ? NULL : arena_strdup(st->st_arena, w);
    return at_end(&t) ? CZ_OK : syntax(&t, e);
  }
  }
}

void en_cursor_stmt_free(estmt_t *st)
{
  if (st->st_cursor && st->st_cursor->cs_query) {
    estmt_free(st->st_cursor->cs_query);
    st->st_cursor->cs_query = NULL;
  }
}

/* FETCH's sink: counts the rows it passes on. */
typedef struct fetch_sink_s {
  erows_fn_t fs_fn;
  void *fs_ctx;
  int64_t fs_rows;
} fetch_sink_t;

static int fetch_rows(void *ctx, const batch_t *b, err_t *e)
{
  fetch_sink_t *f = ctx;
  f->fs_rows += b->b_n;
  return f->fs_fn ? f->fs_fn(f->fs_ctx, b, e) : CZ_OK;
}

int en_cursor_run(erun_t *p, erows_fn_t fn, void *ctx, err_t *e)
{
  estmt_t *st = p->ru_stmt;
  esession_t *s = st->st_sess;
  ecur_stmt_t *cs = st->st_cursor;
  switch (cs->cs_kind) {
  case ECUR_DECLARE:
    if (!es_in_block(s))
      return err_set(e, SQLSTATE_NO_ACTIVE_TX,
                     "DECLARE CURSOR can only be used in transaction blocks");
    if (es_cursor_open(s, cs->cs_name, cs->cs_query, p->ru_params, p->ru_nparams, e) != CZ_OK)
      return CZ_ERR;
    snprintf(p->ru_tag, sizeof(p->ru_tag), "DECLARE CURSOR");
    return CZ_OK;
  case ECUR_FETCH:
  case ECUR_MOVE: {
    eportal_t *cp = es_cursor_portal(s, cs->cs_name);
    if (!cp)
      return err_set(e, SQLSTATE_UNDEFINED_CURSOR, "cursor \"%s\" does not exist", cs->cs_name);
    if (cs->cs_kind == ECUR_FETCH &&
        esession_cursor_stmt(s, cs->cs_name)->st_ncols != st->st_ncols)
      return err_set(e, SQLSTATE_UNDEFINED_CURSOR, "cursor \"%s\" changed since the FETCH was "
                     "prepared", cs->cs_name);
    fetch_sink_t f = {.fs_fn = cs->cs_kind == ECUR_FETCH ? fn : NULL, .fs_ctx = ctx};
    bool susp;
    /* A failure ends the block, and with it the cursor (es_tx_fail). */
    if (eportal_execute(cp, cs->cs_count < 0 ? 0 : cs->cs_count, fetch_rows, &f, &susp, e) !=
        CZ_OK) {
      e->er_pos = 0;  /* a position in the cursor's query, not in this text */
      return CZ_ERR;
    }
    snprintf(p->ru_tag, sizeof(p->ru_tag), "%s %lld", cs->cs_kind == ECUR_FETCH ? "FETCH" : "MOVE",
             (long long)f.fs_rows);
    return CZ_OK;
  }
  default:
    snprintf(p->ru_tag, sizeof(p->ru_tag), "CLOSE CURSOR");
    if (es_cursor_close(s, cs->cs_name) || !cs->cs_name)
      return CZ_OK;
    return err_set(e, SQLSTATE_UNDEFINED_CURSOR, "cursor \"%s\" does not exist", cs->cs_name);
  }
}
