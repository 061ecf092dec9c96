/* sql_node — building the syntax tree: lists, expressions, queries, FROM
 * items and the errors the grammar actions raise.
 *
 * Design notes: every node is zeroed arena memory, so a field a rule does
 * not set is NULL, false or 0. Expressions, set operations and joins record
 * their depth as they are built: left-deep chains (`1+1+…`, `SELECT … UNION
 * SELECT …`, `a JOIN b … JOIN c …`) grow without growing the parser stack,
 * and a recursive walker
 * needs a bound it can trust, so anything deeper than SQL_MAX_DEPTH is
 * refused here with 54001.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql_int.h"

int sql_error_at(sql_pstate_t *ps, const char *sqlstate, int pos, const char *fmt, ...)
{
  if (ps->ps_failed)
    return CZ_ERR;
  va_list ap;
  va_start(ap, fmt);
  err_setv(ps->ps_err, sqlstate, fmt, ap);
  va_end(ap);
  if (ps->ps_err)
    ps->ps_err->er_pos = pos;
  ps->ps_failed = true;
  return CZ_ERR;
}

int sql_syntax_error(sql_pstate_t *ps, const sql_loc_t *loc)
{
  if (loc->lc_off >= ps->ps_len)
    return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, loc->lc_pos, "syntax error at end of input");
  const char *tok = ps->ps_text + loc->lc_off;
  size_t len = sql_utf8_prefix(tok, loc->lc_end - loc->lc_off, 100);
  return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, loc->lc_pos, "syntax error at or near \"%.*s\"",
                      (int)len, tok);
}

sql_list_t *sql_list_append(arena_t *a, sql_list_t *l, void *item)
{
  if (!l)
    l = arena_zalloc(a, sizeof *l);
  if (l->ls_n == l->ls_cap) {
    /* the old array stays in the arena until it is reset: lists are short */
    int cap = l->ls_cap ? l->ls_cap * 2 : 4;
    void **items = arena_alloc(a, (size_t)cap * sizeof *items);
    if (l->ls_n)
      memcpy(items, l->ls_items, (size_t)l->ls_n * sizeof *items);
    l->ls_items = items;
    l->ls_cap = cap;
  }
  l->ls_items[l->ls_n++] = item;
  return l;
}

sql_expr_t *sql_expr_new(sql_pstate_t *ps, sql_expr_kind_t kind, int pos)
{
  sql_expr_t *x = arena_zalloc(ps->ps_arena, sizeof *x);
  x->ex_kind = kind;
  x->ex_pos = pos;
  x->ex_depth = 1;
  return x;
}

static int sql_depth(const sql_expr_t *x)
{
  return x ? x->ex_depth : 0;
}

sql_expr_t *sql_expr_done(sql_pstate_t *ps, sql_expr_t *x)
{
  int d = CZ_MAX(sql_depth(x->ex_left), CZ_MAX(sql_depth(x->ex_right), sql_depth(x->ex_third)));
  for (int i = 0; i < sql_list_len(x->ex_list); i++) {
    if (x->ex_kind == SQL_E_CASE) {
      const sql_when_t *w = sql_list_at(x->ex_list, i);
      d = CZ_MAX(d, CZ_MAX(sql_depth(w->wh_cond), sql_depth(w->wh_result)));
    } else
      d = CZ_MAX(d, sql_depth(sql_list_at(x->ex_list, i)));
  }
  x->ex_depth = d + 1;
  if (x->ex_depth > SQL_MAX_DEPTH) {
    sql_error_at(ps, SQLSTATE_STATEMENT_TOO_COMPLEX, x->ex_pos,
                 "expression nested too deeply (more than %d levels)", SQL_MAX_DEPTH);
    return NULL;
  }
  return x;
}

sql_expr_t *sql_expr_op(sql_pstate_t *ps, sql_op_t op, int pos, sql_expr_t *l, sql_expr_t *r)
{
  sql_expr_t *x = sql_expr_new(ps, SQL_E_OP, pos);
  x->ex_op = op;
  x->ex_left = l;
  x->ex_right = r;
  return sql_expr_done(ps, x);
}

sql_expr_t *sql_expr_op_not(sql_pstate_t *ps, sql_op_t op, int pos, sql_expr_t *l,
                            sql_expr_t *r)
{
  sql_expr_t *x = sql_expr_op(ps, op, pos, l, r);
  if (x)
    x->ex_not = true;
  return x;
}

sql_expr_t *sql_expr_number(sql_pstate_t *ps, const char *text, int pos, sql_lit_kind_t kind)
{
  sql_expr_t *x = sql_expr_new(ps, SQL_E_LITERAL, pos);
  x->ex_lit = kind;
  x->ex_text = text;
  if (kind == SQL_LIT_INT) {
    /* PostgreSQL types an integer too large for int8 as numeric */
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno == ERANGE)
      x->ex_lit = SQL_LIT_NUMERIC;
    else
      x->ex_int = v;
  }
  return x;
}

sql_expr_t *sql_expr_string(sql_pstate_t *ps, const char *text, int pos)
{
  sql_expr_t *x = sql_expr_new(ps, SQL_E_LITERAL, pos);
  x->ex_lit = SQL_LIT_STRING;
  x->ex_text = text;
  return x;
}

/* "-" + text, or text without its "-": negating twice gives the original. */
static const char *sql_negate_text(arena_t *a, const char *text)
{
  return text[0] == '-' ? text + 1 : arena_sprintf(a, "-%s", text);
}

sql_expr_t *sql_expr_negate(sql_pstate_t *ps, sql_expr_t *x, int pos)
{
  bool number = x->ex_kind == SQL_E_LITERAL &&
                (x->ex_lit == SQL_LIT_INT || x->ex_lit == SQL_LIT_NUMERIC ||
                 x->ex_lit == SQL_LIT_FLOAT);
  if (!number)
    return sql_expr_op(ps, SQL_OP_NEG, pos, x, NULL);
  x->ex_pos = pos;
  x->ex_text = sql_negate_text(ps->ps_arena, x->ex_text);
  if (x->ex_lit == SQL_LIT_INT) {
    if (x->ex_int == INT64_MIN)
      x->ex_lit = SQL_LIT_NUMERIC;
    else
      x->ex_int = -x->ex_int;
  } else if (x->ex_lit == SQL_LIT_NUMERIC && strcmp(x->ex_text, "-9223372036854775808") == 0) {
    x->ex_lit = SQL_LIT_INT;
    x->ex_int = INT64_MIN;
  }
  return x;
}

sql_query_t *sql_query_setop(sql_pstate_t *ps, sql_query_kind_t kind, bool all, int pos,
                             sql_query_t *l, sql_query_t *r)
{
  sql_query_t *q = arena_zalloc(ps->ps_arena, sizeof *q);
  q->qu_kind = kind;
  q->qu_all = all;
  q->qu_pos = pos;
  q->qu_left = l;
  q->qu_right = r;
  q->qu_depth = 1 + CZ_MAX(l->qu_depth, r->qu_depth);
  if (q->qu_depth > SQL_MAX_DEPTH) {
    sql_error_at(ps, SQLSTATE_STATEMENT_TOO_COMPLEX, pos,
                 "set operations nested too deeply (more than %d levels)", SQL_MAX_DEPTH);
    return NULL;
  }
  return q;
}

sql_query_t *sql_query_tail(sql_pstate_t *ps, sql_query_t *q, sql_list_t *order,
                            sql_expr_t *limit, sql_expr_t *offset, int pos)
{
  const char *dup = NULL;
  if (order && q->qu_order)
    dup = "ORDER BY";
  else if (limit && q->qu_limit)
    dup = "LIMIT";
  else if (offset && q->qu_offset)
    dup = "OFFSET";
  if (dup) {
    sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "multiple %s clauses not allowed", dup);
    return NULL;
  }
  if (order)
    q->qu_order = order;
  if (limit)
    q->qu_limit = limit;
  if (offset)
    q->qu_offset = offset;
  return q;
}

sql_from_t *sql_from_item(sql_pstate_t *ps, int pos, sql_name_t n, sql_query_t *q,
                          const char *alias)
{
  sql_from_t *f = arena_zalloc(ps->ps_arena, sizeof *f);
  f->fr_kind = q ? SQL_FROM_SUBQUERY : SQL_FROM_TABLE;
  f->fr_pos = pos;
  f->fr_depth = 1;
  if (!q)
    f->fr_table = n;
  f->fr_query = q;
  f->fr_alias = alias;
  return f;
}

sql_from_t *sql_from_join(sql_pstate_t *ps, sql_join_kind_t kind, int pos, sql_from_t *l,
                          sql_from_t *r, sql_expr_t *on)
{
  sql_from_t *f = arena_zalloc(ps->ps_arena, sizeof *f);
  f->fr_kind = SQL_FROM_JOIN;
  f->fr_pos = pos;
  f->fr_join = kind;
  f->fr_left = l;
  f->fr_right = r;
  f->fr_on = on;
  f->fr_depth = 1 + CZ_MAX(l->fr_depth, r->fr_depth);
  if (f->fr_depth > SQL_MAX_DEPTH) {
    sql_error_at(ps, SQLSTATE_STATEMENT_TOO_COMPLEX, pos,
                 "joins nested too deeply (more than %d levels)", SQL_MAX_DEPTH);
    return NULL;
  }
  return f;
}

sql_stmt_t *sql_stmt_new(sql_pstate_t *ps, sql_stmt_kind_t kind)
{
  sql_stmt_t *s = arena_zalloc(ps->ps_arena, sizeof *s);
  s->st_kind = kind;
  return s;
}

const char *sql_lock_name(sql_lock_t mode)
{
  switch (mode) {
  case SQL_LOCK_SHARE:
    return "FOR SHARE";
  case SQL_LOCK_NO_KEY_UPDATE:
    return "FOR NO KEY UPDATE";
  case SQL_LOCK_KEY_SHARE:
    return "FOR KEY SHARE";
  default:
    return "FOR UPDATE";
  }
}
