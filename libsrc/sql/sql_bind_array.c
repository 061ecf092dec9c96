/* sql_bind_array — arrays in expressions: ARRAY[…], ARRAY(subquery),
 * subscripts and x op ANY/ALL (array), over arrays held as PostgreSQL's
 * text form (see sql_bind_ext.h). The array functions (array_make,
 * array_element, array_any_eq) are pgcat's, registered at server start.
 *
 * Design notes: whether a value is an array, and of what, is its type's
 * t_elem (types.h), set where arrays are made (ARRAY[…], ARRAY(…), casts
 * to array types, catalog array columns) and carried by the binder like
 * any type: through columns of subqueries in FROM, WITH, set operations,
 * CASE and COALESCE. So ARRAY[a, b] of array values builds one more
 * dimension, and ARRAY(subquery) of an array column stacks its rows,
 * however the value reached them, as in PostgreSQL.
 */
#include <string.h>

#include "exec/exec_pg.h"
#include "sql/sql_bind_ext.h"
#include "sql/sql_int.h"

int bd_ext_call(bd_t *b, const char *name, xnode_t **args, int n, int pos, xnode_t **out)
{
  ty_t types[XF_MAX_ARGS + 1] = {{0}}, to[XF_MAX_ARGS + 1], res;
  if (n > XF_MAX_ARGS)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, pos, "function %s has too many arguments", name);
  for (int i = 0; i < n; i++)
    types[i] = args[i]->x_type;
  const xfunc_t *f;
  if (xfunc_resolve(name, types, n, &f, to, &res, b->b_e) != CZ_OK) {
    b->b_e->er_pos = pos;
    return CZ_ERR;
  }
  xnode_t *fn = bd_node(b, X_FUNC, res, pos);
  fn->x_func = f;
  fn->x_nargs = n;
  fn->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++)
    if (!(fn->x_args[i] = bd_coerce(b, args[i], to[i])))
      return CZ_ERR;
  *out = fn;
  return CZ_OK;
}

/* A bound value as TEXT: untyped literals and parameters become text,
 * anything else is cast explicitly (an array's element compared as text). */
static xnode_t *as_text(bd_t *b, xnode_t *n, int pos)
{
  ty_id_t id = n->x_type.t_id;
  if (id == TY_TEXT)
    return n;
  if (id == TY_UNKNOWN || id == TY_VARCHAR)
    return bd_coerce(b, n, ty_plain(TY_TEXT));
  return bd_cast(b, n, ty_plain(TY_TEXT), pos);
}

/* The element type x[i] gives when the column reference x names a column
 * the table metadata marks subscriptable (pg_index.indkey: int2vector),
 * searched like the binder resolves names: innermost scope first. */
static bool column_subscript_elem(const bd_scope_t *sc, const sql_expr_t *x, ty_id_t *out)
{
  for (const bd_scope_t *s = sc; s; s = s->sc_parent) {
    const bd_rel_t *hit = NULL;
    int hit_col = -1, found = 0;
    for (int r = 0; r < s->sc_nrels; r++) {
      const bd_rel_t *rel = s->sc_rels[r];
      if (rel->rl_hidden || (x->ex_table && strcmp(rel->rl_name, x->ex_table) != 0))
        continue;
      for (int c = 0; c < rel->rl_ncols; c++)
        if (strcmp(rel->rl_cols[c], x->ex_name) == 0) {
          found++;
          hit = rel;
          hit_col = c;
        }
    }
    if (found > 1)
      return false;
    if (found == 1) {
      if (!hit->rl_table || !hit->rl_table->tb_subscript_elem ||
          hit->rl_table->tb_subscript_elem[hit_col] == TY_UNKNOWN)
        return false;
      *out = hit->rl_table->tb_subscript_elem[hit_col];
      return true;
    }
  }
  return false;
}

ty_t bd_array_of(ty_id_t elem)
{
  ty_t t = ty_plain(TY_TEXT);
  t.t_elem = elem == TY_UNKNOWN ? TY_TEXT : elem;
  return t;
}

ty_t bd_array_elem_of(const bd_scope_t *sc, const sql_expr_t *x, const xnode_t *bound)
{
  if (bound->x_type.t_elem != TY_UNKNOWN)
    return ty_plain(bound->x_type.t_elem);
  if (bound->x_type.t_id == TY_TEXT && bound->x_type.t_scale < 0)  /* int2vector, oidvector */
    return ty_plain((ty_id_t)-bound->x_type.t_scale);
  /* int2vector and oidvector columns of the catalog: subscripted, though
   * not arrays to ARRAY[…] (PostgreSQL's ARRAY[indkey] is {"1 2"}) */
  ty_id_t el;
  if (x->ex_kind == SQL_E_COLUMN && column_subscript_elem(sc, x, &el))
    return ty_plain(el);
  return ty_plain(TY_TEXT);
}

/* a[i][j]…: the subscripts of a chain, outermost array first; the
 * element of a multi-dimensional array (array_element_md). */
static int bd_subscript_md(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  const sql_expr_t *chain[XF_MAX_ARGS];
  int n = 0;
  const sql_expr_t *base = x;
  for (; base->ex_kind == SQL_E_SUBSCRIPT; base = base->ex_left) {
    if (n >= TY_ARRAY_MAXDIM)
      return bd_error(b, SQLSTATE_PROGRAM_LIMIT, x->ex_pos,
                      "number of array dimensions (%d) exceeds the maximum allowed (%d)", n + 1,
                      TY_ARRAY_MAXDIM);
    chain[n++] = base;
  }
  xnode_t *args[TY_ARRAY_MAXDIM + 1], *el;
  if (bd_expr(b, sc, base, &args[0]) != CZ_OK)
    return CZ_ERR;
  ty_t et = bd_array_elem_of(sc, base, args[0]);
  if (!(args[0] = as_text(b, args[0], x->ex_pos)))
    return CZ_ERR;
  for (int k = 0; k < n; k++) {
    xnode_t *idx;
    if (bd_expr(b, sc, chain[n - 1 - k]->ex_right, &idx) != CZ_OK ||
        !(args[k + 1] = bd_coerce(b, idx, ty_plain(TY_INT4))))
      return CZ_ERR;
  }
  if (bd_ext_call(b, "array_element_md", args, n + 1, x->ex_pos, &el) != CZ_OK)
    return CZ_ERR;
  if (et.t_id != TY_TEXT && !(el = bd_cast(b, el, et, x->ex_pos)))
    return CZ_ERR;
  *out = el;
  return CZ_OK;
}

static int bd_subscript(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  xnode_t *arr, *idx, *el;
  if (x->ex_left->ex_kind == SQL_E_SUBSCRIPT)
    return bd_subscript_md(b, sc, x, out);
  if (bd_expr(b, sc, x->ex_left, &arr) != CZ_OK || bd_expr(b, sc, x->ex_right, &idx) != CZ_OK)
    return CZ_ERR;
  ty_t et = bd_array_elem_of(sc, x->ex_left, arr);
  /* a catalog column of type name, which PostgreSQL subscripts as
   * char[NAMEDATALEN] from 0 (pg_dump's typname[0] = '_') */
  bool name = arr->x_type.t_elem == TY_UNKNOWN && et.t_id == TY_CHAR;
  if (!(arr = as_text(b, arr, x->ex_pos)))
    return CZ_ERR;
  if (!(idx = bd_coerce(b, idx, ty_plain(TY_INT4))))
    return CZ_ERR;
  xnode_t *args[2] = {arr, idx};
  if (name) {
    if (bd_ext_call(b, "name_element", args, 2, x->ex_pos, &el) != CZ_OK)
      return CZ_ERR;
    *out = el;
    return CZ_OK;
  }
  if (bd_ext_call(b, "array_element", args, 2, x->ex_pos, &el) != CZ_OK)
    return CZ_ERR;
  if (et.t_id != TY_TEXT && !(el = bd_cast(b, el, et, x->ex_pos)))
    return CZ_ERR;
  *out = el;
  return CZ_OK;
}

static bool is_array(const xnode_t *n)
{
  return n->x_type.t_elem != TY_UNKNOWN;
}

/* ARRAY[…]: of sub-arrays (array-typed elements, NULLs and untyped
 * literals among them) a multi-dimensional array ({{1,2},{3,4}}), not an
 * array of the sub-arrays' text; else a one-dimensional array of the
 * elements' common type. */
static int bd_array_ctor(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  int n = sql_list_len(x->ex_list);
  if (n == 0) {
    xnode_t *c = bd_node(b, X_CONST, ty_plain(TY_TEXT), x->ex_pos);
    c->x_const.d_str.s_ptr = "{}";
    c->x_const.d_str.s_len = 2;
    *out = c;
    return CZ_OK;
  }
  if (n > XF_MAX_ARGS)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "ARRAY[…] with more than %d elements is not supported", XF_MAX_ARGS);
  xnode_t **el = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)n);
  int nsub = 0, nuntyped = 0;
  for (int i = 0; i < n; i++) {
    if (bd_expr(b, sc, sql_list_at(x->ex_list, i), &el[i]) != CZ_OK)
      return CZ_ERR;
    nsub += is_array(el[i]);
    nuntyped += el[i]->x_type.t_id == TY_UNKNOWN;
  }
  if (nsub > 0) {
    if (nsub + nuntyped != n)
      return bd_error(b, SQLSTATE_DATATYPE_MISMATCH, x->ex_pos,
                      "ARRAY elements and sub-arrays cannot be mixed");
    ty_t *elems = arena_alloc(b->b_a, sizeof(ty_t) * (size_t)n);
    int ne = 0;
    for (int i = 0; i < n; i++)
      if (is_array(el[i]))
        elems[ne++] = ty_plain(el[i]->x_type.t_elem);
    ty_t common;
    if (xtype_common(elems, ne, &common, b->b_e) != CZ_OK) {
      b->b_e->er_pos = x->ex_pos;
      return CZ_ERR;
    }
    for (int i = 0; i < n; i++)
      if (!(el[i] = as_text(b, el[i], x->ex_pos)))
        return CZ_ERR;
    if (bd_ext_call(b, "array_make_md", el, n, x->ex_pos, out) != CZ_OK)
      return CZ_ERR;
    (*out)->x_type = bd_array_of(common.t_id);
    return CZ_OK;
  }
  ty_t t;
  if (bd_unify(b, el, n, "ARRAY", x->ex_pos, &t) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < n; i++)
    if (!(el[i] = as_text(b, el[i], x->ex_pos)))
      return CZ_ERR;
  if (bd_ext_call(b, "array_make", el, n, x->ex_pos, out) != CZ_OK)
    return CZ_ERR;
  (*out)->x_type = bd_array_of(t.t_id);
  return CZ_OK;
}

static int bd_array_query(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  xsubq_t *sq;
  lp_subq_t *ls;
  if (bd_subquery(b, sc, x->ex_query, 0, x->ex_pos, &sq, &ls) != CZ_OK)
    return CZ_ERR;
  ty_t col = ls->ls_node->ln_types[0];
  if (col.t_id != TY_TEXT && !(ls->ls_proj = as_text(b, bd_col(b, 0, col), x->ex_pos)))
    return CZ_ERR;
  ls->ls_array = true;  /* the generator gathers the rows into one array */
  xnode_t *n = bd_node(b, X_SUBQ, bd_array_of(col.t_elem != TY_UNKNOWN ? col.t_elem : col.t_id),
                       x->ex_pos);
  n->x_subq = sq;
  n->x_subq_kind = 0;
  /* rows that are arrays make one more dimension, as in PostgreSQL:
   * whatever way the column came to be an array (a UNION, a subquery in
   * FROM, WITH, a cast, a catalog column) */
  if (col.t_elem != TY_UNKNOWN) {
    if (bd_ext_call(b, "array_stack", &n, 1, x->ex_pos, out) != CZ_OK)
      return CZ_ERR;
    (*out)->x_type = n->x_type;
    return CZ_OK;
  }
  *out = n;
  return CZ_OK;
}

/* (SELECT array_agg(e [ORDER BY k]) FROM … [WHERE …]): a scalar subquery
 * whose only item is array_agg over its rows (pg_dump's index statistics
 * columns) is ARRAY(SELECT e FROM … [WHERE …] ORDER BY k), NULL when
 * there are no rows, as the aggregate gives. array_agg is not an
 * aggregate of exec's, so no other shape has it (42883 from the
 * aggregate lookup); 1 when x is not of this shape. */
int bd_array_agg_subq(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  const sql_query_t *q = x->ex_query;
  if (q->qu_kind != SQL_Q_SELECT || q->qu_order || q->qu_limit || q->qu_offset || q->qu_with)
    return 1;
  const sql_select_t *se = q->qu_select;
  if (se->se_distinct || se->se_top || se->se_group || se->se_having || se->se_windows ||
      se->se_distinct_on || sql_list_len(se->se_targets) != 1)
    return 1;
  const sql_target_t *tg = sql_list_at(se->se_targets, 0);
  const sql_expr_t *f = tg->tg_expr;
  if (f->ex_kind != SQL_E_FUNC || strcmp(f->ex_name, "array_agg") != 0 ||
      (f->ex_schema && strcmp(f->ex_schema, "pg_catalog") != 0) || sql_list_len(f->ex_list) != 1 ||
      f->ex_distinct || f->ex_star || f->ex_over || f->ex_filter)
    return 1;
  sql_target_t *ntg = arena_zalloc(b->b_a, sizeof(*ntg));
  ntg->tg_expr = sql_list_at(f->ex_list, 0);
  sql_select_t *nse = arena_alloc(b->b_a, sizeof(*nse));
  *nse = *se;
  nse->se_targets = sql_list_append(b->b_a, NULL, ntg);
  sql_query_t *nq = arena_alloc(b->b_a, sizeof(*nq));
  *nq = *q;
  nq->qu_select = nse;
  nq->qu_order = f->ex_agg_order;
  sql_expr_t ax = *x;
  ax.ex_kind = SQL_E_ARRAY_QUERY;
  ax.ex_query = nq;
  xnode_t *arr;
  if (bd_array_query(b, sc, &ax, &arr) != CZ_OK ||
      bd_ext_call(b, "_cz_array_or_null", &arr, 1, x->ex_pos, out) != CZ_OK)
    return CZ_ERR;
  (*out)->x_type = arr->x_type;
  return CZ_OK;
}

int bd_array_expr(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  switch (x->ex_kind) {
  case SQL_E_ARRAY:
    return bd_array_ctor(b, sc, x, out);
  case SQL_E_ARRAY_QUERY:
    return bd_array_query(b, sc, x, out);
  case SQL_E_SUBSCRIPT:
    return bd_subscript(b, sc, x, out);
  default:
    return bd_error(b, SQLSTATE_INTERNAL, x->ex_pos, "not an array expression");
  }
}

int bd_array_any(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  bool any = x->ex_kind == SQL_E_ANY;
  /* x = ANY (a) and its negation x <> ALL (a); other operators need
   * typed elements, which arrays as text do not have. */
  bool eq_any = any && x->ex_op == SQL_OP_EQ && !x->ex_not;
  bool ne_all = !any && x->ex_op == SQL_OP_NE && !x->ex_not;
  if (!eq_any && !ne_all)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "only = ANY and <> ALL are supported over arrays");
  xnode_t *lhs, *arr, *m;
  if (bd_expr(b, sc, x->ex_left, &lhs) != CZ_OK || bd_expr(b, sc, x->ex_right, &arr) != CZ_OK)
    return CZ_ERR;
  if (!(lhs = as_text(b, lhs, x->ex_pos)) || !(arr = as_text(b, arr, x->ex_pos)))
    return CZ_ERR;
  xnode_t *args[2] = {arr, lhs};
  if (bd_ext_call(b, "array_any_eq", args, 2, x->ex_pos, &m) != CZ_OK)
    return CZ_ERR;
  if (eq_any) {
    *out = m;
    return CZ_OK;
  }
  return bd_op(b, XOP_NOT, m, NULL, x->ex_pos, out);
}
