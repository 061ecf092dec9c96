/* sql_bind_reg — casts to the reg* object-identifier types and to array
 * types (see sql_bind_ext.h).
 *
 * A string cast to regclass, regtype, regnamespace or regrole is the
 * object's OID ('pg_class'::regclass = 1259), looked up when the statement
 * runs, in its catalog snapshot, except as an item of the statement's
 * outermost select list, where it is shown as PostgreSQL shows it: the
 * name (bd_reg_display; there is no reg* type to carry both). A number
 * cast to one of them is the
 * object's name as text (c.oid::regclass shows "items"), which is what
 * clients print. regproc is a function's name (as pgcat holds regproc
 * columns): a string cast to it is checked and unqualified (regprocin).
 * A cast to an array type keeps the array's text form.
 */
#include "sql/sql_bind_ext.h"

static bool is_string(ty_id_t id)
{
  return id == TY_UNKNOWN || id == TY_TEXT || id == TY_VARCHAR || id == TY_CHAR;
}

static bool is_integer(ty_id_t id)
{
  return id == TY_INT2 || id == TY_INT4 || id == TY_INT8;
}

int bd_reg_display(bd_t *b, const sql_expr_t *x, xnode_t **n)
{
  const char *out_fn;
  if (x->ex_kind != SQL_E_CAST || x->ex_type.ty_array || (*n)->x_type.t_id != TY_INT8)
    return CZ_OK;
  switch (x->ex_type.ty_id) {
  case SQL_TYPE_REGCLASS: out_fn = "regclassout"; break;
  case SQL_TYPE_REGTYPE: out_fn = "regtypeout"; break;
  case SQL_TYPE_REGNAMESPACE: out_fn = "regnamespaceout"; break;
  case SQL_TYPE_REGROLE: out_fn = "regroleout"; break;
  default: return CZ_OK;
  }
  return bd_ext_call(b, out_fn, n, 1, x->ex_pos, n);
}

int bd_cast_ext(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  const char *tname, *in_fn, *out_fn;
  switch (x->ex_type.ty_id) {
  case SQL_TYPE_REGCLASS: tname = "regclass"; in_fn = "regclassin"; out_fn = "regclassout"; break;
  case SQL_TYPE_REGTYPE: tname = "regtype"; in_fn = "regtypein"; out_fn = "regtypeout"; break;
  case SQL_TYPE_REGNAMESPACE:
    tname = "regnamespace", in_fn = "regnamespacein", out_fn = "regnamespaceout";
    break;
  case SQL_TYPE_REGROLE: tname = "regrole"; in_fn = "regrolein"; out_fn = "regroleout"; break;
  case SQL_TYPE_REGPROC: tname = "regproc"; in_fn = "regprocin"; out_fn = "regprocout"; break;
  default: tname = in_fn = out_fn = NULL; break;
  }
  if (!in_fn && !x->ex_type.ty_array)
    return 1;
  xnode_t *n;
  if (bd_expr(b, sc, x->ex_left, &n) != CZ_OK)
    return CZ_ERR;
  ty_id_t id = n->x_type.t_id;
  if (x->ex_type.ty_array) {
    /* an array is its text form: only text (or an untyped literal) is one */
    if (!is_string(id))
      return bd_error(b, SQLSTATE_CANNOT_COERCE, x->ex_pos, "cannot cast type %s to an array type",
                      ty_name(b->b_a, n->x_type));
    if (!(n = bd_coerce(b, n, ty_plain(TY_TEXT))))
      return CZ_ERR;
    if (bd_ext_call(b, "array_in", &n, 1, x->ex_pos, out) != CZ_OK) /* checked, canonical */
      return CZ_ERR;
    sql_type_t et = x->ex_type;
    ty_t elem;
    et.ty_array = false;
    if (sql_bind_type(&et, &elem, b->b_e) != CZ_OK)
      return CZ_ERR;
    (*out)->x_type = bd_array_of(elem.t_id);
    return CZ_OK;
  }
  if (is_string(id)) {
    if (!(n = bd_coerce(b, n, ty_plain(TY_TEXT))))
      return CZ_ERR;
    return bd_ext_call(b, in_fn, &n, 1, x->ex_pos, out);
  }
  if (is_integer(id) && out_fn) {
    if (!(n = bd_coerce(b, n, ty_plain(TY_INT8))))
      return CZ_ERR;
    return bd_ext_call(b, out_fn, &n, 1, x->ex_pos, out);
  }
  return bd_error(b, SQLSTATE_CANNOT_COERCE, x->ex_pos, "cannot cast type %s to %s",
                  ty_name(b->b_a, n->x_type), tname);
}
