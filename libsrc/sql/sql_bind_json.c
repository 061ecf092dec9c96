/* sql_bind_json — the json and jsonb operators (-> ->> #> #>> @> <@ ? ?|
 * ?& #-, and jsonb's || and -) bound as calls of the functions PostgreSQL
 * implements them with (json_object_field, jsonb_exists, jsonb_concat …,
 * exec/ex_func_json.c), chosen by the operand types as PostgreSQL's
 * operator catalog chooses: the left side says json or jsonb, the right
 * side text (a key or path) or an integer (an array index). An operator
 * with no such pair is 42883 "operator does not exist", never a function
 * error.
 */
#include <stdio.h>
#include <string.h>

#include "sql/sql_bind_ext.h"
#include "sql/sql_logical.h"

bool bd_jsonop_is(sql_op_t op)
{
  return op >= SQL_OP_JGET && op <= SQL_OP_JPATH_MATCH;
}

static const char *jop_text(sql_op_t op)
{
  static const char *const names[] = {"->", "->>", "#>", "#>>", "@>", "<@",
                                      "?",  "?|",  "?&", "#-",  "@?", "@@"};
  return names[op - SQL_OP_JGET];
}

static bool is_int(ty_id_t id)
{
  return id == TY_INT2 || id == TY_INT4 || id == TY_INT8;
}

static bool is_textish(ty_t t)
{
  return t.t_elem == TY_UNKNOWN &&
         (t.t_id == TY_TEXT || t.t_id == TY_VARCHAR || t.t_id == TY_CHAR || t.t_id == TY_UNKNOWN);
}

static bool is_text_array(ty_t t)
{
  return t.t_id == TY_TEXT && (t.t_elem == TY_TEXT || t.t_elem == TY_VARCHAR);
}

/* The function an operator stands for, or NULL (42883). A left side of
 * unknown type is taken as jsonb where only jsonb has the operator and
 * as json otherwise, as PostgreSQL's resolution of an unknown operand
 * ends. */
static const char *jop_func(sql_op_t op, ty_t l, ty_t r, ty_t *lto)
{
  bool jb = l.t_id == TY_JSONB, js = l.t_id == TY_JSON;
  bool jsonb_only = op == SQL_OP_JCONTAINS || op == SQL_OP_JCONTAINED || op == SQL_OP_JEXISTS ||
                    op == SQL_OP_JEXISTS_ANY || op == SQL_OP_JEXISTS_ALL || op == SQL_OP_JDELETE_PATH ||
                    op == SQL_OP_JPATH_EXISTS || op == SQL_OP_JPATH_MATCH;
  if (l.t_id == TY_UNKNOWN) {
    if (jsonb_only)
      jb = true;
    else if (r.t_id != TY_UNKNOWN)
      js = true;
  }
  if (!jb && !js)
    return NULL;
  *lto = ty_plain(jb ? TY_JSONB : TY_JSON);
  switch (op) {
  case SQL_OP_JGET:
  case SQL_OP_JGET_TEXT: {
    bool txt = op == SQL_OP_JGET_TEXT;
    if (is_int(r.t_id))
      return jb ? (txt ? "jsonb_array_element_text" : "jsonb_array_element")
                : (txt ? "json_array_element_text" : "json_array_element");
    if (is_textish(r))
      return jb ? (txt ? "jsonb_object_field_text" : "jsonb_object_field")
                : (txt ? "json_object_field_text" : "json_object_field");
    return NULL;
  }
  case SQL_OP_JPATH:
  case SQL_OP_JPATH_TEXT:
    if (!is_text_array(r) && r.t_id != TY_UNKNOWN)
      return NULL;
    return op == SQL_OP_JPATH ? (jb ? "_cz_jsonb_path" : "_cz_json_path")
                              : (jb ? "_cz_jsonb_path_text" : "_cz_json_path_text");
  case SQL_OP_JCONTAINS:
  case SQL_OP_JCONTAINED:
    if (!jb || (r.t_id != TY_JSONB && r.t_id != TY_UNKNOWN))
      return NULL;
    return op == SQL_OP_JCONTAINS ? "jsonb_contains" : "jsonb_contained";
  case SQL_OP_JEXISTS:
    return jb && is_textish(r) ? "jsonb_exists" : NULL;
  case SQL_OP_JEXISTS_ANY:
  case SQL_OP_JEXISTS_ALL:
    if (!jb || (!is_text_array(r) && r.t_id != TY_UNKNOWN))
      return NULL;
    return op == SQL_OP_JEXISTS_ANY ? "jsonb_exists_any" : "jsonb_exists_all";
  case SQL_OP_JDELETE_PATH:
    return jb && (is_text_array(r) || r.t_id == TY_UNKNOWN) ? "jsonb_delete_path" : NULL;
  case SQL_OP_JPATH_EXISTS:  /* jsonpath is text here (ex_jsonpath.c) */
  case SQL_OP_JPATH_MATCH:
    if (!jb || !is_textish(r))
      return NULL;
    return op == SQL_OP_JPATH_EXISTS ? "_cz_jsonb_path_exists_op" : "_cz_jsonb_path_match_op";
  default:
    return NULL;
  }
}

static int jop_no_such(bd_t *b, const char *op, xnode_t *l, xnode_t *r, int pos)
{
  char *ln = ty_name(b->b_a, l->x_type), *rn = ty_name(b->b_a, r->x_type);
  if (l->x_type.t_id == TY_UNKNOWN)
    ln = "unknown";
  if (r->x_type.t_id == TY_UNKNOWN)
    rn = "unknown";
  bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, pos, "operator does not exist: %s %s %s", ln, op, rn);
  return err_hint(b->b_e, "No operator matches the given name and argument types. You might need to add explicit type casts.");
}

static int jop_call(bd_t *b, const char *fn, ty_t lto, xnode_t *l, xnode_t *r, int pos, xnode_t **out)
{
  xnode_t *args[2];
  if (!(args[0] = bd_coerce(b, l, lto)))
    return CZ_ERR;
  args[1] = r;
  return bd_ext_call(b, fn, args, 2, pos, out);
}

int bd_jsonop(bd_t *b, sql_op_t op, xnode_t *l, xnode_t *r, int pos, xnode_t **out)
{
  ty_t lto;
  const char *fn = jop_func(op, l->x_type, r->x_type, &lto);
  if (!fn)
    return jop_no_such(b, jop_text(op), l, r, pos);
  return jop_call(b, fn, lto, l, r, pos, out);
}

bool bd_jsonb_arith(sql_op_t op, const xnode_t *l, const xnode_t *r)
{
  ty_id_t lt = l->x_type.t_id, rt = r ? r->x_type.t_id : TY_UNKNOWN;
  if (op == SQL_OP_CONCAT)
    return (lt == TY_JSONB && (rt == TY_JSONB || rt == TY_UNKNOWN)) ||
           (lt == TY_UNKNOWN && rt == TY_JSONB);
  return op == SQL_OP_SUB && lt == TY_JSONB && r;
}

int bd_jsonb_arith_op(bd_t *b, sql_op_t op, xnode_t *l, xnode_t *r, int pos, xnode_t **out)
{
  if (op == SQL_OP_CONCAT) {
    xnode_t *rr = bd_coerce(b, r, ty_plain(TY_JSONB));
    if (!rr)
      return CZ_ERR;
    return jop_call(b, "jsonb_concat", ty_plain(TY_JSONB), l, rr, pos, out);
  }
  /* jsonb - text (a key), - integer (an index), - text[] (keys) */
  ty_t r_t = r->x_type;
  if (!is_int(r_t.t_id) && !is_textish(r_t) && !is_text_array(r_t))
    return jop_no_such(b, "-", l, r, pos);
  return jop_call(b, is_text_array(r_t) ? "_cz_jsonb_delete_keys" : "jsonb_delete", ty_plain(TY_JSONB), l,
                  r, pos, out);
}
