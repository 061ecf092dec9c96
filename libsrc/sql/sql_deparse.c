/* sql_deparse — SQL text of an expression tree, for what the catalog
 * keeps as text (column DEFAULTs). Covers literals, names, operators,
 * function calls, casts and CASE; anything else is 0A000. */
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
    return arena_sprintf(a, "\"%s\"", x->ex_name);
  case SQL_E_OP: {
    char *l = sql_deparse_expr(a, x->ex_left, e);
    if (!l)
      return NULL;
    if (x->ex_op == SQL_OP_NOT || x->ex_op == SQL_OP_NEG)
      return arena_sprintf(a, "(%s %s)", op_text(x->ex_op), l);
    if (x->ex_op == SQL_OP_IS_NULL)
      return arena_sprintf(a, "(%s IS %sNULL)", l, x->ex_not ? "NOT " : "");
    if (x->ex_op == SQL_OP_IS_UNKNOWN)
      return arena_sprintf(a, "(%s IS %sUNKNOWN)", l, x->ex_not ? "NOT " : "");
    if (!x->ex_right || !op_text(x->ex_op)[0] || x->ex_third /* LIKE … ESCAPE */)
      break;
    char *r = sql_deparse_expr(a, x->ex_right, e);
    if (!r)
      return NULL;
    return arena_sprintf(a, "(%s %s%s %s)", l, x->ex_not ? "NOT " : "", op_text(x->ex_op), r);
  }
  case SQL_E_CAST: {
    char *l = sql_deparse_expr(a, x->ex_left, e);
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
  err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "this DEFAULT expression is not supported yet");
  if (e)
    e->er_pos = x->ex_pos;
  return NULL;
}
