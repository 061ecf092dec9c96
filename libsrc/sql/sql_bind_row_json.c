/* sql_bind_row_json — a FROM item's name as the argument of row_to_json,
 * to_json or to_jsonb: the whole row of that item as a JSON object
 * (`SELECT row_to_json(t) FROM t`, `to_jsonb(r) … FROM (…) r`).
 *
 * Design notes: there is no composite type to carry a whole row, so the
 * call is bound as _cz_json_row / _cz_jsonb_row (exec/ex_func_json.c)
 * over the item's column names and its columns read as `name.column`:
 * the object PostgreSQL's composite_to_json writes ({"a":1,"b":"x"},
 * nested json and jsonb as they are). A column of that name in scope wins,
 * as PostgreSQL resolves a bare name to a column first; other uses of a
 * whole-row reference are still 42703. */
#include <string.h>

#include "sql/sql_bind_ext.h"
#include "sql/sql_int.h"

/* The FROM item named name in sc or an enclosing scope, unless a column
 * of that name is visible first. */
static const bd_rel_t *row_rel(bd_scope_t *sc, const char *name)
{
  for (bd_scope_t *s = sc; s; s = s->sc_parent) {
    for (int i = 0; i < s->sc_nrels; i++) {
      const bd_rel_t *r = s->sc_rels[i];
      for (int c = 0; !r->rl_hidden && c < r->rl_ncols; c++)
        if (strcmp(r->rl_cols[c], name) == 0)
          return NULL;
    }
    for (int i = 0; i < s->sc_nrels; i++) {
      const bd_rel_t *r = s->sc_rels[i];
      if (!r->rl_hidden && r->rl_name && strcmp(r->rl_name, name) == 0)
        return r;
    }
  }
  return NULL;
}

int bd_row_json_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  bool jsonb = strcmp(x->ex_name, "to_jsonb") == 0;
  if ((x->ex_schema && strcmp(x->ex_schema, "pg_catalog") != 0) || sql_list_len(x->ex_list) != 1 ||
      (!jsonb && strcmp(x->ex_name, "to_json") != 0 && strcmp(x->ex_name, "row_to_json") != 0))
    return 1;
  const sql_expr_t *arg = sql_list_at(x->ex_list, 0);
  if (arg->ex_kind != SQL_E_COLUMN || arg->ex_table || arg->ex_schema)
    return 1;
  const bd_rel_t *r = row_rel(sc, arg->ex_name);
  if (!r)
    return 1;
  /* the call as if written: _cz_json_row('a', t.a, 'b', t.b, …) */
  sql_list_t *l = NULL;
  for (int c = 0; c < r->rl_ncols; c++) {
    sql_expr_t *key = arena_zalloc(b->b_a, sizeof(*key));
    sql_expr_t *col = arena_zalloc(b->b_a, sizeof(*col));
    *key = (sql_expr_t){.ex_kind = SQL_E_LITERAL, .ex_lit = SQL_LIT_STRING,
                        .ex_text = r->rl_cols[c], .ex_pos = arg->ex_pos};
    *col = (sql_expr_t){.ex_kind = SQL_E_COLUMN, .ex_table = r->rl_name,
                        .ex_name = r->rl_cols[c], .ex_pos = arg->ex_pos};
    l = sql_list_append(b->b_a, sql_list_append(b->b_a, l, key), col);
  }
  sql_expr_t *call = arena_zalloc(b->b_a, sizeof(*call));
  *call = (sql_expr_t){.ex_kind = SQL_E_FUNC, .ex_name = jsonb ? "_cz_jsonb_row" : "_cz_json_row",
                       .ex_list = l, .ex_pos = x->ex_pos};
  return bd_expr(b, sc, call, out);
}
