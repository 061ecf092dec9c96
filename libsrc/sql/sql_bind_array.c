/* sql_bind_array — arrays in expressions: ARRAY[…], ARRAY(subquery),
 * subscripts and x op ANY/ALL (array), over arrays held as PostgreSQL's
 * text form (see sql_bind_ext.h). The array functions (array_make,
 * array_element, array_any_eq) are pgcat's, registered at server start.
 */
#include <string.h>

#include "exec/exec_pg.h"
#include "pgcat/pgcat.h"
#include "sql/sql_bind_ext.h"

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

/* The PostgreSQL type of a column reference when it names a column of a
 * pgcat relation (pg_index.indkey: int2vector), searched like the binder
 * resolves names: innermost scope first. */
static bool column_pgtype(const bd_scope_t *sc, const sql_expr_t *x, pgcat_pgtype_t *out)
{
  for (const bd_scope_t *s = sc; s; s = s->sc_parent) {
    const bd_rel_t *hit = NULL;
    int hit_col = -1, found = 0;
    for (int r = 0; r < s->sc_nrels; r++) {
      const bd_rel_t *rel = s->sc_rels[r];
      if (x->ex_table && strcmp(rel->rl_name, x->ex_table) != 0)
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
      if (!hit->rl_table || !pgcat_is_rel(hit->rl_table->tb_handle))
        return false;
      *out = pgcat_col_pgtype(hit->rl_table->tb_handle, hit_col);
      return true;
    }
  }
  return false;
}

/* The element type of ARRAY[…] of literals (nested ones too), as
 * PostgreSQL types them: integers int4 (int8 when one is wider), numeric
 * when one has a point or exponent, boolean, else text. false when an
 * element is not a literal (its type would need binding). */
static bool literal_array_type(const sql_expr_t *x, int depth, ty_id_t *t)
{
  if (depth > PGCAT_ARRAY_MAXDIM)
    return false;
  for (int i = 0; i < sql_list_len(x->ex_list); i++) {
    const sql_expr_t *el = sql_list_at(x->ex_list, i);
    ty_id_t k;
    if (el->ex_kind == SQL_E_ARRAY) {
      if (!literal_array_type(el, depth + 1, t))
        return false;
      continue;
    }
    if (el->ex_kind != SQL_E_LITERAL)
      return false;
    switch (el->ex_lit) {
    case SQL_LIT_NULL: continue;
    case SQL_LIT_INT:
      k = el->ex_int >= INT32_MIN && el->ex_int <= INT32_MAX ? TY_INT4 : TY_INT8;
      break;
    case SQL_LIT_NUMERIC:
    case SQL_LIT_FLOAT: k = TY_NUMERIC; break;
    case SQL_LIT_BOOL: k = TY_BOOL; break;
    default: return false;
    }
    if (*t == TY_UNKNOWN || (*t == TY_INT4 && (k == TY_INT8 || k == TY_NUMERIC)) ||
        (*t == TY_INT8 && k == TY_NUMERIC))
      *t = k;
    else if (*t != k && !(k == TY_INT4 || (k == TY_INT8 && *t == TY_NUMERIC)))
      return false; /* booleans with numbers: the binder reports it */
  }
  return true;
}

int bd_array_elem_type(bd_t *b, const bd_scope_t *sc, const sql_expr_t *x, ty_t *out)
{
  *out = ty_plain(TY_TEXT);
  ty_id_t lt = TY_UNKNOWN;
  if (x->ex_kind == SQL_E_ARRAY && literal_array_type(x, 1, &lt) && lt != TY_UNKNOWN) {
    *out = ty_plain(lt);
    return CZ_OK;
  }
  if (x->ex_kind == SQL_E_CAST && x->ex_type.ty_array) {
    sql_type_t t = x->ex_type;
    t.ty_array = false;
    return sql_bind_type(&t, out, b->b_e);
  }
  pgcat_pgtype_t pt, el;
  if (x->ex_kind == SQL_E_COLUMN && column_pgtype(sc, x, &pt) && pgcat_pgtype_elem(pt, &el))
    *out = pgcat_pg_type_storage(el);
  return CZ_OK;
}

/* a[i][j]…: the subscripts of a chain, outermost array first; the
 * element of a multi-dimensional array (array_element_md). */
static int bd_subscript_md(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  const sql_expr_t *chain[XF_MAX_ARGS];
  int n = 0;
  const sql_expr_t *base = x;
  for (; base->ex_kind == SQL_E_SUBSCRIPT; base = base->ex_left) {
    if (n >= PGCAT_ARRAY_MAXDIM)
      return bd_error(b, "54000", x->ex_pos,
                      "number of array dimensions (%d) exceeds the maximum allowed (%d)", n + 1,
                      PGCAT_ARRAY_MAXDIM);
    chain[n++] = base;
  }
  xnode_t *args[PGCAT_ARRAY_MAXDIM + 1], *el;
  ty_t et;
  if (bd_array_elem_type(b, sc, base, &et) != CZ_OK || bd_expr(b, sc, base, &args[0]) != CZ_OK)
    return CZ_ERR;
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
  ty_t et;
  if (x->ex_left->ex_kind == SQL_E_SUBSCRIPT)
    return bd_subscript_md(b, sc, x, out);
  if (bd_array_elem_type(b, sc, x->ex_left, &et) != CZ_OK || bd_expr(b, sc, x->ex_left, &arr) != CZ_OK ||
      bd_expr(b, sc, x->ex_right, &idx) != CZ_OK)
    return CZ_ERR;
  if (!(arr = as_text(b, arr, x->ex_pos)))
    return CZ_ERR;
  if (!(idx = bd_coerce(b, idx, ty_plain(TY_INT4))))
    return CZ_ERR;
  xnode_t *args[2] = {arr, idx};
  if (bd_ext_call(b, "array_element", args, 2, x->ex_pos, &el) != CZ_OK)
    return CZ_ERR;
  if (et.t_id != TY_TEXT && !(el = bd_cast(b, el, et, x->ex_pos)))
    return CZ_ERR;
  *out = el;
  return CZ_OK;
}

/* Whether x is written as an array: ARRAY[…], ARRAY(…) or a cast to an
 * array type. Arrays are text here, so a sub-array is known by how it is
 * written (columns of array type are text too). */
static bool is_array_syntax(const sql_expr_t *x)
{
  return x->ex_kind == SQL_E_ARRAY || x->ex_kind == SQL_E_ARRAY_QUERY ||
         (x->ex_kind == SQL_E_CAST && x->ex_type.ty_array);
}

static bool is_null_literal(const sql_expr_t *x)
{
  return x->ex_kind == SQL_E_LITERAL && x->ex_lit == SQL_LIT_NULL;
}

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
  int nsub = 0, nnull = 0;
  for (int i = 0; i < n; i++) {
    const sql_expr_t *ex = sql_list_at(x->ex_list, i);
    nsub += is_array_syntax(ex);
    nnull += is_null_literal(ex);
  }
  if (nsub > 0) {
    /* ARRAY[ARRAY[1,2], ARRAY[3,4]]: a multi-dimensional array ({{1,2},{3,4}}),
     * not an array of the sub-arrays' text */
    if (nsub + nnull != n)
      return bd_error(b, SQLSTATE_DATATYPE_MISMATCH, x->ex_pos,
                      "ARRAY elements and sub-arrays cannot be mixed");
    for (int i = 0; i < n; i++) {
      if (bd_expr(b, sc, sql_list_at(x->ex_list, i), &el[i]) != CZ_OK)
        return CZ_ERR;
      if (!(el[i] = as_text(b, el[i], x->ex_pos)))
        return CZ_ERR;
    }
    return bd_ext_call(b, "array_make_md", el, n, x->ex_pos, out);
  }
  for (int i = 0; i < n; i++)
    if (bd_expr(b, sc, sql_list_at(x->ex_list, i), &el[i]) != CZ_OK)
      return CZ_ERR;
  ty_t t;
  if (bd_unify(b, el, n, "ARRAY", x->ex_pos, &t) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < n; i++)
    if (!(el[i] = as_text(b, el[i], x->ex_pos)))
      return CZ_ERR;
  return bd_ext_call(b, "array_make", el, n, x->ex_pos, out);
}

static int bd_array_query(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  xsubq_t *sq;
  op_t *plan;
  if (bd_subquery(b, sc, x->ex_query, 0, x->ex_pos, &sq, &plan) != CZ_OK)
    return CZ_ERR;
  if (plan->o_types[0].t_id != TY_TEXT) {
    xnode_t **cols = arena_alloc(b->b_a, sizeof(xnode_t *));
    if (!(cols[0] = as_text(b, bd_col(b, 0, plan->o_types[0]), x->ex_pos)))
      return CZ_ERR;
    plan = op_project_new(b->b_a, plan, 1, cols);
  }
  sq->xs_plan = op_array_agg_new(b->b_a, plan);
  xnode_t *n = bd_node(b, X_SUBQ, ty_plain(TY_TEXT), x->ex_pos);
  n->x_subq = sq;
  n->x_subq_kind = 0;
  /* rows that are arrays make one more dimension, as in PostgreSQL */
  const sql_query_t *q = x->ex_query;
  if (q->qu_kind == SQL_Q_SELECT && sql_list_len(q->qu_select->se_targets) == 1) {
    const sql_target_t *t = sql_list_at(q->qu_select->se_targets, 0);
    if (is_array_syntax(t->tg_expr))
      return bd_ext_call(b, "array_stack", &n, 1, x->ex_pos, out);
  }
  *out = n;
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
