/* sql_deparse — SQL text of an expression tree, for what the catalog
 * keeps as text (column DEFAULTs, CHECK constraints). Covers literals,
 * names, operators, function calls, casts, CASE, IN lists, BETWEEN,
 * ARRAY[…] and ANY / ALL over an array; anything else is 0A000. Every
 * operation is parenthesised, so the text binds as the tree did. */
#include <ctype.h>
#include <string.h>

#include "sql/sql_plan.h"

static const char *op_text(sql_op_t op)
{
  switch (op) {
  case SQL_OP_OR: return "OR";
  case SQL_OP_AND: return "AND";
  case SQL_OP_NOT: return "NOT";
  case SQL_OP_NEG: return "-";
  case SQL_OP_EQ: return "=";
  case SQL_OP_NE: return "<>";
  case SQL_OP_LT: return "<";
  case SQL_OP_LE: return "<=";
  case SQL_OP_GT: return ">";
  case SQL_OP_GE: return ">=";
  case SQL_OP_ADD: return "+";
  case SQL_OP_SUB: return "-";
  case SQL_OP_MUL: return "*";
  case SQL_OP_DIV: return "/";
  case SQL_OP_MOD: return "%";
  case SQL_OP_CONCAT: return "||";
  case SQL_OP_LIKE: return "LIKE";
  case SQL_OP_ILIKE: return "ILIKE";
  case SQL_OP_POW: return "^";
  case SQL_OP_MATCH: return "~";
  case SQL_OP_IMATCH: return "~*";
  case SQL_OP_SIMILAR: return "SIMILAR TO";
  case SQL_OP_BITAND: return "&";
  case SQL_OP_BITOR: return "|";
  case SQL_OP_BITXOR: return "#";
  case SQL_OP_BITNOT: return "~";
  case SQL_OP_SHL: return "<<";
  case SQL_OP_SHR: return ">>";
  case SQL_OP_JGET: return "->";
  case SQL_OP_JGET_TEXT: return "->>";
  case SQL_OP_JPATH: return "#>";
  case SQL_OP_JPATH_TEXT: return "#>>";
  case SQL_OP_JCONTAINS: return "@>";
  case SQL_OP_JCONTAINED: return "<@";
  case SQL_OP_JEXISTS: return "?";
  case SQL_OP_JEXISTS_ANY: return "?|";
  case SQL_OP_JEXISTS_ALL: return "?&";
  case SQL_OP_JDELETE_PATH: return "#-";
  case SQL_OP_JPATH_EXISTS: return "@?";
  case SQL_OP_JPATH_MATCH: return "@@";
  default: return "";
  }
}

static char *quote(arena_t *a, const char *s)
{
  size_t n = strlen(s), k = 0;
  char *o = arena_alloc(a, 2 * n + 3);
  o[k++] = '\'';
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\'')
      o[k++] = '\'';
    o[k++] = s[i];
  }
  o[k++] = '\'';
  o[k] = '\0';
  return o;
}

/* A column name as PostgreSQL prints it: bare when it needs no quotes. */
static char *ident(arena_t *a, const char *s)
{
  bool plain = s[0] && (islower((unsigned char)s[0]) || s[0] == '_') && !sql_keyword_reserved(s);
  for (const char *p = s; *p && plain; p++)
    plain = islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_';
  if (plain)
    return arena_strdup(a, s);
  size_t n = strlen(s), k = 0;
  char *o = arena_alloc(a, 2 * n + 3);
  o[k++] = '"';
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"')
      o[k++] = '"';
    o[k++] = s[i];
  }
  o[k++] = '"';
  o[k] = '\0';
  return o;
}

/* ", "-separated texts of a list of expressions. */
static char *list_text(arena_t *a, const sql_list_t *l, err_t *e)
{
  char *out = arena_strdup(a, "");
  for (int i = 0; i < sql_list_len(l); i++) {
    char *s = sql_deparse_expr(a, sql_list_at(l, i), e);
    if (!s)
      return NULL;
    out = arena_sprintf(a, "%s%s%s", out, i ? ", " : "", s);
  }
  return out;
}

char *sql_deparse_expr(arena_t *a, const sql_expr_t *x, err_t *e)
{
  switch (x->ex_kind) {
  case SQL_E_LITERAL:
    switch (x->ex_lit) {
    case SQL_LIT_NULL: return arena_strdup(a, "NULL");
    case SQL_LIT_BOOL: return arena_strdup(a, x->ex_bool ? "true" : "false");
    case SQL_LIT_INT: return arena_sprintf(a, "%lld", (long long)x->ex_int);
    case SQL_LIT_NUMERIC:
    case SQL_LIT_FLOAT: return arena_strdup(a, x->ex_text);
    case SQL_LIT_STRING: return quote(a, x->ex_text);
    case SQL_LIT_TYPED:
      return arena_sprintf(a, "CAST(%s AS %s)", quote(a, x->ex_text), sql_type_print(a, &x->ex_type));
    }
    break;
  case SQL_E_COLUMN:
    return ident(a, x->ex_name);
  case SQL_E_IN_LIST: {
    char *l = sql_deparse_expr(a, x->ex_left, e);
    char *r = l ? list_text(a, x->ex_list, e) : NULL;
    return r ? arena_sprintf(a, "(%s %sIN (%s))", l, x->ex_not ? "NOT " : "", r) : NULL;
  }
  case SQL_E_BETWEEN: {
    char *l = sql_deparse_expr(a, x->ex_left, e);
    char *lo = l ? sql_deparse_expr(a, x->ex_right, e) : NULL;
    char *hi = lo ? sql_deparse_expr(a, x->ex_third, e) : NULL;
    return hi ? arena_sprintf(a, "(%s %sBETWEEN %s AND %s)", l, x->ex_not ? "NOT " : "", lo, hi) : NULL;
  }
  case SQL_E_ARRAY: {
    char *l = list_text(a, x->ex_list, e);
    return l ? arena_sprintf(a, "ARRAY[%s]", l) : NULL;
  }
  case SQL_E_ANY:
  case SQL_E_ALL: {
    if (x->ex_query || !x->ex_right || !op_text(x->ex_op)[0])
      break;
    char *l = sql_deparse_expr(a, x->ex_left, e);
    char *r = l ? sql_deparse_expr(a, x->ex_right, e) : NULL;
    return r ? arena_sprintf(a, "(%s %s %s (%s))", l, op_text(x->ex_op),
                             x->ex_kind == SQL_E_ANY ? "ANY" : "ALL", r)
             : NULL;
  }
  case SQL_E_CASE: {
    char *out = arena_strdup(a, "CASE");
    if (x->ex_left) {
      char *v = sql_deparse_expr(a, x->ex_left, e);
      if (!v)
        return NULL;
      out = arena_sprintf(a, "%s %s", out, v);
    }
    for (int i = 0; i < sql_list_len(x->ex_list); i++) {
      const sql_when_t *w = sql_list_at(x->ex_list, i);
      char *c = sql_deparse_expr(a, w->wh_cond, e);
      char *r = c ? sql_deparse_expr(a, w->wh_result, e) : NULL;
      if (!r)
        return NULL;
      out = arena_sprintf(a, "%s WHEN %s THEN %s", out, c, r);
    }
    if (x->ex_right) {
      char *r = sql_deparse_expr(a, x->ex_right, e);
      if (!r)
        return NULL;
      out = arena_sprintf(a, "%s ELSE %s", out, r);
    }
    return arena_sprintf(a, "%s END", out);
  }
  case SQL_E_OP: {
    char *l = sql_deparse_expr(a, x->ex_left, e);
    if (!l)
      return NULL;
    if (x->ex_op == SQL_OP_NOT || x->ex_op == SQL_OP_NEG || x->ex_op == SQL_OP_BITNOT)
      return arena_sprintf(a, "(%s %s)", op_text(x->ex_op), l);
    if (x->ex_op == SQL_OP_IS_NULL)
      return arena_sprintf(a, "(%s IS %sNULL)", l, x->ex_not ? "NOT " : "");
    if (x->ex_op == SQL_OP_IS_UNKNOWN)
      return arena_sprintf(a, "(%s IS %sUNKNOWN)", l, x->ex_not ? "NOT " : "");
    if (x->ex_op == SQL_OP_IS_TRUE || x->ex_op == SQL_OP_IS_FALSE)
      return arena_sprintf(a, "(%s IS %s%s)", l, x->ex_not ? "NOT " : "",
                           x->ex_op == SQL_OP_IS_TRUE ? "TRUE" : "FALSE");
    if (x->ex_op == SQL_OP_IS_DISTINCT && x->ex_right) {
      char *r = sql_deparse_expr(a, x->ex_right, e);
      return r ? arena_sprintf(a, "(%s IS %sDISTINCT FROM %s)", l, x->ex_not ? "NOT " : "", r) : NULL;
    }
    if (!x->ex_right || !op_text(x->ex_op)[0])
      break;
    char *r = sql_deparse_expr(a, x->ex_right, e);
    if (!r)
      return NULL;
    if (x->ex_third) {  /* LIKE / SIMILAR TO … ESCAPE */
      char *t = sql_deparse_expr(a, x->ex_third, e);
      return t ? arena_sprintf(a, "(%s %s%s %s ESCAPE %s)", l, x->ex_not ? "NOT " : "", op_text(x->ex_op),
                               r, t)
               : NULL;
    }
    if (x->ex_not && (x->ex_op == SQL_OP_MATCH || x->ex_op == SQL_OP_IMATCH))
      return arena_sprintf(a, "(%s !%s %s)", l, op_text(x->ex_op), r);
    return arena_sprintf(a, "(%s %s%s %s)", l, x->ex_not ? "NOT " : "", op_text(x->ex_op), r);
  }
  case SQL_E_CAST: {
    char *l = sql_deparse_expr(a, x->ex_left, e);
    /* a string constant as PostgreSQL's deparser shows it ('s'::regclass:
     * a serial column's default reads back as PostgreSQL prints it) */
    if (l && x->ex_left->ex_kind == SQL_E_LITERAL && x->ex_left->ex_lit == SQL_LIT_STRING)
      return arena_sprintf(a, "%s::%s", l, sql_type_print(a, &x->ex_type));
    return l ? arena_sprintf(a, "CAST(%s AS %s)", l, sql_type_print(a, &x->ex_type)) : NULL;
  }
  case SQL_E_FUNC: {
    if (x->ex_over || x->ex_distinct)
      break;
    /* the SQL value functions (CURRENT_DATE, CURRENT_TIMESTAMP,
     * LOCALTIME, …) are keywords: written without parentheses */
    if (!x->ex_star && sql_list_len(x->ex_list) == 0 && sql_keyword_reserved(x->ex_name))
      return arena_strdup(a, x->ex_name);
    char *args = arena_strdup(a, x->ex_star ? "*" : "");
    for (int i = 0; i < sql_list_len(x->ex_list); i++) {
      char *s = sql_deparse_expr(a, sql_list_at(x->ex_list, i), e);
      if (!s)
        return NULL;
      args = arena_sprintf(a, "%s%s%s", args, i ? ", " : "", s);
    }
    return arena_sprintf(a, "%s(%s)", x->ex_name, args);
  }
  default:
    break;
  }
  err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "this expression is not supported yet in a DEFAULT or CHECK");
  if (e)
    e->er_pos = x->ex_pos;
  return NULL;
}
