/* sql_bind_agg_order — ORDER BY inside aggregate calls and array_agg
 * (SQLAlchemy's reflection reads key columns as array_agg(attname ORDER
 * BY ord) per constraint).
 *
 * Design notes:
 * - One order per query block: the group-by keeps each group's rows in
 *   the order its input gave them (op_hashagg, also when it spills), so
 *   sorting the group-by's input by the aggregates' ORDER BY keys orders
 *   every group's values. Aggregates of one block with different ORDER
 *   BY lists are 0A000 here (PostgreSQL sorts per aggregate); an order on
 *   an aggregate whose result does not depend on it (sum, count …)
 *   counts the same. With such an order the block does not use the
 *   streaming or parallel group-by (sql_bind_query.c), whose input order
 *   is the keys'.
 * - array_agg(x) is string_agg over each value's element text
 *   (_cz_array_elem: quoted as array_out quotes, NULL as NULL) with a
 *   comma, wrapped in braces (_cz_array_wrap, pgcat_array.c): the array's
 *   text form, typed as an array of x's type like every array here
 *   (sql_bind_ext.h). No rows give NULL, as in PostgreSQL.
 */
#include <string.h>

#include "sql/sql_bind_ext.h"

static bool order_nulls_first(const sql_order_t *o)
{
  return o->or_nulls == SQL_NULLS_FIRST ? true : o->or_nulls == SQL_NULLS_LAST ? false : o->or_desc;
}

int bd_agg_order(bd_t *b, bd_scope_t *sc, const sql_expr_t *x)
{
  bd_aggctx_t *ag = sc->sc_agg;
  int n = sql_list_len(x->ex_agg_order);
  if (x->ex_distinct)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "DISTINCT with ORDER BY in the arguments of an aggregate is not supported");
  xnode_t **keys = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(n + 1));
  bool *desc = arena_alloc(b->b_a, (size_t)(n + 1)), *nf = arena_alloc(b->b_a, (size_t)(n + 1));
  ag->ag_in_agg = true;
  for (int i = 0; i < n; i++) {
    const sql_order_t *o = sql_list_at(x->ex_agg_order, i);
    if (bd_expr(b, sc, o->or_expr, &keys[i]) != CZ_OK) {
      ag->ag_in_agg = false;
      return CZ_ERR;
    }
    if (!(keys[i] = bd_finish_unknown(b, keys[i]))) {
      ag->ag_in_agg = false;
      return CZ_ERR;
    }
    desc[i] = o->or_desc;
    nf[i] = order_nulls_first(o);
  }
  ag->ag_in_agg = false;
  if (ag->ag_norder == 0) {
    ag->ag_norder = n;
    ag->ag_order = keys;
    ag->ag_order_desc = desc;
    ag->ag_order_nf = nf;
    return CZ_OK;
  }
  bool same = ag->ag_norder == n;
  for (int i = 0; same && i < n; i++)
    same = bd_node_equal(ag->ag_order[i], keys[i]) && ag->ag_order_desc[i] == desc[i] &&
           ag->ag_order_nf[i] == nf[i];
  if (!same)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "aggregates with different ORDER BY in one query level are not supported");
  return CZ_OK;
}

int bd_array_agg_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  bd_aggctx_t *ag = sc->sc_agg;
  if (!ag)
    return bd_error(b, SQLSTATE_GROUPING_ERROR, x->ex_pos, "aggregate functions are not allowed in %s",
                    sc->sc_agg_forbid ? sc->sc_agg_forbid : "this context");
  if (ag->ag_in_agg)
    return bd_error(b, SQLSTATE_GROUPING_ERROR, x->ex_pos, "aggregate function calls cannot be nested");
  if (x->ex_star)
    return bd_error(b, SQLSTATE_WRONG_OBJECT_TYPE, x->ex_pos,
                    "array_agg(*) must be used to call a parameterless aggregate function");
  if (sql_list_len(x->ex_list) != 1)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, x->ex_pos, "function array_agg takes 1 argument");
  if (x->ex_distinct || x->ex_filter)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos, "array_agg with %s is not supported",
                    x->ex_distinct ? "DISTINCT" : "FILTER");
  if (x->ex_agg_order && bd_agg_order(b, sc, x) != CZ_OK)
    return CZ_ERR;
  xnode_t *v;
  ag->ag_in_agg = true;
  int rc = bd_expr(b, sc, sql_list_at(x->ex_list, 0), &v);
  ag->ag_in_agg = false;
  if (rc != CZ_OK || !(v = bd_finish_unknown(b, v)))
    return CZ_ERR;
  ty_t et = v->x_type;
  if (et.t_elem != TY_UNKNOWN)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos, "array_agg of arrays is not supported");
  xnode_t *elem;
  if (et.t_id == TY_BOOL) {  /* t / f, as array_out writes booleans */
    if (bd_ext_call(b, "_cz_array_elem_bool", &v, 1, x->ex_pos, &elem) != CZ_OK)
      return CZ_ERR;
  } else {
    xnode_t *txt = et.t_id == TY_TEXT ? v : bd_cast(b, v, ty_plain(TY_TEXT), x->ex_pos);
    if (!txt || bd_ext_call(b, "_cz_array_elem", &txt, 1, x->ex_pos, &elem) != CZ_OK)
      return CZ_ERR;
  }
  xnode_t *comma = bd_node(b, X_CONST, ty_plain(TY_TEXT), x->ex_pos);
  comma->x_const.d_str.s_ptr = ",";
  comma->x_const.d_str.s_len = 1;
  agg_spec_t spec = {.ag_kind = XAGG_STRING_AGG, .ag_arg = elem, .ag_arg2 = comma,
                     .ag_type = ty_plain(TY_TEXT)};
  xnode_t *h = bd_agg_add(b, ag, &spec, x->ex_pos);
  if (bd_ext_call(b, "_cz_array_wrap", &h, 1, x->ex_pos, out) != CZ_OK)
    return CZ_ERR;
  (*out)->x_type = bd_array_of(et.t_id);
  return CZ_OK;
}
