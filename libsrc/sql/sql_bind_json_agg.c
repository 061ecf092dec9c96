/* sql_bind_json_agg — json_agg, jsonb_agg, json_object_agg and
 * jsonb_object_agg, bound as string_agg over each row's JSON text the way
 * array_agg is (sql_bind_agg_order.c): the group-by needs no new
 * aggregate, ORDER BY inside the call orders the rows as it does for
 * array_agg, and no rows give NULL, as in PostgreSQL.
 *
 * Design notes: json_agg(x) is _cz_json_wrap_array(string_agg(
 * _cz_json_or_null(to_json(x)), ', ')) — PostgreSQL's `[1, 2]`, a NULL
 * row giving `null`; json_object_agg(k, v) joins _cz_json_pair(k, v)
 * (`"k" : v`; a NULL key is 22023) and wraps them as `{ … }`. The jsonb
 * forms wrap into jsonb, whose input sorts the keys and keeps the last
 * value of a key. The helpers live in exec/ex_func_json.c.
 */
#include <string.h>

#include "sql/sql_bind_ext.h"

bool bd_json_agg_is(const char *name)
{
  return strcmp(name, "json_agg") == 0 || strcmp(name, "jsonb_agg") == 0 ||
         strcmp(name, "json_object_agg") == 0 || strcmp(name, "jsonb_object_agg") == 0;
}

int bd_json_agg_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  bd_aggctx_t *ag = sc->sc_agg;
  const char *name = x->ex_name;
  bool jsonb = name[4] == 'b', object = strstr(name, "object") != NULL;
  int want = object ? 2 : 1;
  if (!ag)
    return bd_error(b, SQLSTATE_GROUPING_ERROR, x->ex_pos, "aggregate functions are not allowed in %s",
                    sc->sc_agg_forbid ? sc->sc_agg_forbid : "this context");
  if (ag->ag_in_agg)
    return bd_error(b, SQLSTATE_GROUPING_ERROR, x->ex_pos, "aggregate function calls cannot be nested");
  if (x->ex_star)
    return bd_error(b, SQLSTATE_WRONG_OBJECT_TYPE, x->ex_pos,
                    "%s(*) must be used to call a parameterless aggregate function", name);
  if (sql_list_len(x->ex_list) != want)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, x->ex_pos, "function %s takes %d argument%s", name,
                    want, want > 1 ? "s" : "");
  if (x->ex_distinct || x->ex_filter)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos, "%s with %s is not supported", name,
                    x->ex_distinct ? "DISTINCT" : "FILTER");
  if (x->ex_agg_order && bd_agg_order(b, sc, x) != CZ_OK)
    return CZ_ERR;
  xnode_t *args[2];
  ag->ag_in_agg = true;
  int rc = CZ_OK;
  for (int i = 0; i < want && rc == CZ_OK; i++) {
    rc = bd_expr(b, sc, sql_list_at(x->ex_list, i), &args[i]);
    if (rc == CZ_OK && !(args[i] = bd_finish_unknown(b, args[i])))
      rc = CZ_ERR;
  }
  ag->ag_in_agg = false;
  if (rc != CZ_OK)
    return CZ_ERR;
  xnode_t *elem;
  if (object) {
    xnode_t *key = args[0], *val;
    if (key->x_type.t_id != TY_TEXT && !(key = bd_cast(b, key, ty_plain(TY_TEXT), x->ex_pos)))
      return CZ_ERR;
    if (bd_ext_call(b, "to_json", &args[1], 1, x->ex_pos, &val) != CZ_OK)
      return CZ_ERR;
    xnode_t *pair[2] = {key, val};
    if (bd_ext_call(b, "_cz_json_pair", pair, 2, x->ex_pos, &elem) != CZ_OK)
      return CZ_ERR;
  } else {
    xnode_t *j;
    if (bd_ext_call(b, "to_json", &args[0], 1, x->ex_pos, &j) != CZ_OK ||
        bd_ext_call(b, "_cz_json_or_null", &j, 1, x->ex_pos, &elem) != CZ_OK)
      return CZ_ERR;
  }
  xnode_t *sep = bd_node(b, X_CONST, ty_plain(TY_TEXT), x->ex_pos);
  sep->x_const.d_str.s_ptr = ", ";
  sep->x_const.d_str.s_len = 2;
  agg_spec_t spec = {.ag_kind = XAGG_STRING_AGG, .ag_arg = elem, .ag_arg2 = sep,
                     .ag_type = ty_plain(TY_TEXT)};
  xnode_t *h = bd_agg_add(b, ag, &spec, x->ex_pos);
  const char *wrap = object ? (jsonb ? "_cz_jsonb_wrap_object" : "_cz_json_wrap_object")
                            : (jsonb ? "_cz_jsonb_wrap_array" : "_cz_json_wrap_array");
  return bd_ext_call(b, wrap, &h, 1, x->ex_pos, out);
}
