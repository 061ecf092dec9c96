/* sql_bind_bits — the integers' bit operators & | # ~ << >> (pgJDBC's
 * getIndexInfo tests `indoption[i] & 1`), bound as calls of exec's
 * int2and … int8shr (ex_func_math.c) with PostgreSQL's operand rules:
 * & | # take two integers of one type (the narrower one widened: smallint
 * & integer is integer), an untyped literal takes the other side's type;
 * a shift takes any integer on the left and a smallint or integer count
 * (a bigint count has no operator there either); the result has the left
 * (common) type. Anything else is 42883, as PostgreSQL, which would find
 * its bit-string operators for bit varying operands (not supported here).
 */
#include <stdio.h>

#include "sql/sql_bind_ext.h"
#include "sql/sql_logical.h"

static bool is_int(ty_id_t id)
{
  return id == TY_INT2 || id == TY_INT4 || id == TY_INT8;
}

static const char *op_text(sql_op_t op)
{
  switch (op) {
  case SQL_OP_BITAND: return "&";
  case SQL_OP_BITOR: return "|";
  case SQL_OP_BITXOR: return "#";
  case SQL_OP_BITNOT: return "~";
  case SQL_OP_SHL: return "<<";
  default: return ">>";
  }
}

static const char *op_func(sql_op_t op)
{
  switch (op) {
  case SQL_OP_BITAND: return "and";
  case SQL_OP_BITOR: return "or";
  case SQL_OP_BITXOR: return "xor";
  case SQL_OP_BITNOT: return "not";
  case SQL_OP_SHL: return "shl";
  default: return "shr";
  }
}

static ty_id_t wider(ty_id_t a, ty_id_t b)
{
  return a == TY_INT8 || b == TY_INT8 ? TY_INT8 : a == TY_INT4 || b == TY_INT4 ? TY_INT4 : TY_INT2;
}

bool bd_bitop_is(sql_op_t op)
{
  return op == SQL_OP_BITAND || op == SQL_OP_BITOR || op == SQL_OP_BITXOR || op == SQL_OP_BITNOT ||
         op == SQL_OP_SHL || op == SQL_OP_SHR;
}

int bd_bitop(bd_t *b, sql_op_t op, xnode_t *l, xnode_t *r, int pos, xnode_t **out)
{
  ty_id_t lt = l->x_type.t_id, rt = r ? r->x_type.t_id : TY_UNKNOWN;
  ty_id_t t;
  if (op == SQL_OP_BITNOT) {
    t = lt == TY_UNKNOWN ? TY_INT4 : lt;
    if (!is_int(t))
      return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, pos, "operator does not exist: ~ %s",
                      ty_name(b->b_a, l->x_type));
  } else if (op == SQL_OP_SHL || op == SQL_OP_SHR) {
    t = lt == TY_UNKNOWN ? TY_INT4 : lt;
    if (!is_int(t) || (rt != TY_UNKNOWN && rt != TY_INT2 && rt != TY_INT4))
      return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, pos, "operator does not exist: %s %s %s",
                      ty_name(b->b_a, l->x_type), op_text(op), ty_name(b->b_a, r->x_type));
  } else {
    if (lt == TY_UNKNOWN && rt == TY_UNKNOWN)
      return bd_error(b, SQLSTATE_AMBIGUOUS_FUNCTION, pos, "operator is not unique: unknown %s unknown",
                      op_text(op));
    t = lt == TY_UNKNOWN ? rt : rt == TY_UNKNOWN ? lt : wider(lt, rt);
    if ((lt != TY_UNKNOWN && !is_int(lt)) || (rt != TY_UNKNOWN && !is_int(rt)))
      return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, pos, "operator does not exist: %s %s %s",
                      ty_name(b->b_a, l->x_type), op_text(op), ty_name(b->b_a, r->x_type));
  }
  const char *prefix = t == TY_INT2 ? "int2" : t == TY_INT4 ? "int4" : "int8";
  char name[16];
  snprintf(name, sizeof name, "%s%s", prefix, op_func(op));
  xnode_t *args[2] = {bd_coerce(b, l, ty_plain(t)), NULL};
  if (!args[0])
    return CZ_ERR;
  int n = 1;
  if (r) {
    ty_t rto = ty_plain(op == SQL_OP_SHL || op == SQL_OP_SHR ? TY_INT4 : t);
    if (!(args[1] = bd_coerce(b, r, rto)))
      return CZ_ERR;
    n = 2;
  }
  xnode_t *fn;
  if (bd_ext_call(b, name, args, n, pos, &fn) != CZ_OK)
    return CZ_ERR;
  *out = bd_fold(b, fn);
  return CZ_OK;
}
