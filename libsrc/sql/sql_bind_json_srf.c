/* sql_bind_json_srf — the json / jsonb set-returning functions in FROM:
 * json[b]_each[_text] (key, value), json[b]_array_elements[_text]
 * (value) and json[b]_object_keys, bound as unnest is (sql_bind_srf.c):
 * a series 0 .. n-1 over the document's items, each row's columns
 * computed from the item number (_cz_json_srf_* in exec/ex_func_json.c,
 * which keeps the last document parsed, so a document is parsed once, not
 * once per row). Errors for the wrong kind of document are PostgreSQL's
 * ("cannot extract elements from an object", "cannot call jsonb_each on
 * a non-object" …). The select-list form of these functions is not here.
 * jsonb_path_query(doc, path, …) is read as
 * jsonb_array_elements(jsonb_path_query_array(doc, path, …)) in FROM and
 * in a select list (bd_jsonpath_query_expr; exec/ex_jsonpath.c).
 */
#include <string.h>

#include "exec/exec_pg.h"
#include "sql/sql_bind_ext.h"
#include "sql/sql_int.h"

static const char *const json_srfs[] = {
  "json_each", "json_each_text", "json_array_elements", "json_array_elements_text",
  "json_object_keys", "jsonb_each", "jsonb_each_text", "jsonb_array_elements",
  "jsonb_array_elements_text", "jsonb_object_keys",
};

bool bd_json_srf_is(const char *name)
{
  for (size_t i = 0; i < CZ_ARRAY_LEN(json_srfs); i++)
    if (strcmp(name, json_srfs[i]) == 0)
      return true;
  return false;
}

const sql_expr_t *bd_jsonpath_query_expr(bd_t *b, const sql_expr_t *x)
{
  if (x->ex_kind != SQL_E_FUNC || x->ex_over || strcmp(x->ex_name, "jsonb_path_query") != 0 ||
      (x->ex_schema && strcmp(x->ex_schema, "pg_catalog") != 0))
    return x;
  sql_expr_t *arr = arena_alloc(b->b_a, sizeof(*arr));
  *arr = *x;
  arr->ex_name = "jsonb_path_query_array";
  arr->ex_schema = NULL;
  sql_expr_t *elems = arena_alloc(b->b_a, sizeof(*elems));
  *elems = *x;
  elems->ex_name = "jsonb_array_elements";
  elems->ex_schema = NULL;
  elems->ex_list = sql_list_append(b->b_a, NULL, arr);
  return elems;
}

static xnode_t *text_const(bd_t *b, const char *s, int pos)
{
  xnode_t *c = bd_node(b, X_CONST, ty_plain(TY_TEXT), pos);
  c->x_const.d_str.s_ptr = s;
  c->x_const.d_str.s_len = (uint32_t)strlen(s);
  return c;
}

int bd_json_srf(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, lp_node_t **out)
{
  const sql_expr_t *f = fr->fr_func;
  const char *name = f->ex_name;
  bool jsonb = strncmp(name, "jsonb", 5) == 0;
  bool each = strstr(name, "_each") != NULL, keys = strstr(name, "_keys") != NULL;
  bool txt = strstr(name, "_text") != NULL;
  if (sql_list_len(f->ex_list) != 1)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, fr->fr_pos, "function %s takes 1 argument", name);
  if (fr->fr_ordinality)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, fr->fr_pos, "WITH ORDINALITY is not supported here");
  bd_scope_t *args_sc = bd_scope_new(b);
  args_sc->sc_parent = sc->sc_parent;
  args_sc->sc_subq = sc->sc_subq;
  args_sc->sc_agg_forbid = "functions in FROM";
  xnode_t *doc;
  if (bd_expr(b, args_sc, sql_list_at(f->ex_list, 0), &doc) != CZ_OK)
    return CZ_ERR;
  ty_id_t want = jsonb ? TY_JSONB : TY_JSON;
  if (doc->x_type.t_id != want && doc->x_type.t_id != TY_UNKNOWN)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, fr->fr_pos, "function %s(%s) does not exist", name,
                    ty_name(b->b_a, doc->x_type));
  if (!(doc = bd_coerce(b, doc, ty_plain(want))))
    return CZ_ERR;
  xnode_t *cnt, *cargs[2] = {doc, text_const(b, name, fr->fr_pos)};
  if (bd_ext_call(b, "_cz_json_srf_count", cargs, 2, fr->fr_pos, &cnt) != CZ_OK)
    return CZ_ERR;
  xnode_t *hi;
  if (bd_op(b, XOP_SUB, cnt, bd_const_i64(b, TY_INT4, 1), fr->fr_pos, &hi) != CZ_OK)
    return CZ_ERR;
  ty_t i4 = ty_plain(TY_INT4);
  xnode_t *ix = bd_col(b, 0, i4);
  xnode_t *item_args[2] = {doc, ix};
  int ncol = each ? 2 : 1;
  xnode_t **cols = arena_alloc(b->b_a, sizeof(xnode_t *) * 2);
  const char **names = arena_alloc(b->b_a, sizeof(char *) * 2);
  ty_t *types = arena_alloc(b->b_a, sizeof(ty_t) * 2);
  int k = 0;
  if (each || keys) {
    if (bd_ext_call(b, "_cz_json_srf_key", item_args, 2, fr->fr_pos, &cols[k]) != CZ_OK)
      return CZ_ERR;
    names[k++] = keys ? (fr->fr_alias ? fr->fr_alias : name) : "key";
  }
  if (!keys) {
    if (bd_ext_call(b, txt ? "_cz_json_srf_value_text" : "_cz_json_srf_value", item_args, 2, fr->fr_pos,
                    &cols[k]) != CZ_OK)
      return CZ_ERR;
    names[k++] = "value";
  }
  for (int i = 0; i < ncol; i++) {
    types[i] = cols[i]->x_type;
    if (i < sql_list_len(fr->fr_colnames))
      names[i] = sql_list_at(fr->fr_colnames, i);
  }
  const char *rel = fr->fr_alias ? fr->fr_alias : name;
  for (int i = 0; i < sc->sc_nrels; i++)
    if (!sc->sc_rels[i]->rl_hidden && strcmp(sc->sc_rels[i]->rl_name, rel) == 0 &&
        !sc->sc_rels[i]->rl_schema)
      return bd_error(b, SQLSTATE_DUPLICATE_ALIAS, fr->fr_pos, "table name \"%s\" specified more than once",
                      rel);
  bd_rel_t *r = arena_zalloc(b->b_a, sizeof(*r));
  r->rl_name = rel;
  r->rl_ncols = ncol;
  r->rl_cols = names;
  r->rl_types = types;
  r->rl_base = sc->sc_width;
  bd_rel_t **nr = arena_alloc(b->b_a, sizeof(bd_rel_t *) * (size_t)(sc->sc_nrels + 1));
  if (sc->sc_nrels)
    memcpy(nr, sc->sc_rels, sizeof(bd_rel_t *) * (size_t)sc->sc_nrels);
  nr[sc->sc_nrels++] = r;
  sc->sc_rels = nr;
  sc->sc_width += ncol;
  *out = bd_func_node(b, i4, bd_const_i64(b, TY_INT4, 0), hi, NULL, ncol, cols);
  return CZ_OK;
}
