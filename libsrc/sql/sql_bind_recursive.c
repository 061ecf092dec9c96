/* sql_bind_recursive — WITH RECURSIVE: a query of the list that names
 * itself is bound as a recursive union (an LN_RECURSIVE node,
 * sql_logical.h, which opt/opt_gen_cte.c builds as exec/op_recursive.c)
 * of its non-recursive term and its recursive term, whose one
 * self-reference is the working table.
 *
 * Design notes: PostgreSQL's rules (parse_cte.c), with its SQLSTATEs:
 * the body must be `non-recursive UNION [ALL] recursive` (42P19), the
 * non-recursive term must not name the query, the recursive term must
 * name it once, not inside a subquery, an outer join's nullable side,
 * EXCEPT or INTERSECT (42P19), and not aggregate (42P19); ORDER BY,
 * LIMIT, OFFSET and FOR UPDATE on the body are 0A000, as is a cycle
 * between two queries of the list. The column types are the
 * non-recursive term's; a recursive term whose columns only widen to
 * another type is 42804 (cast the non-recursive term). In a RECURSIVE
 * list every query sees all of them, later ones too (ct_visible). A
 * reference to the query from the main query binds the whole union
 * there, as non-recursive WITH queries are inlined. */
#include <string.h>

#include "exec/exec_ql.h"
#include "sql/sql_bind_int.h"


static bool q_refs(const sql_query_t *q, const char *name);

static bool e_refs(const sql_expr_t *x, const char *name)
{
  if (!x)
    return false;
  if (q_refs(x->ex_query, name) || e_refs(x->ex_left, name) || e_refs(x->ex_right, name) ||
      e_refs(x->ex_third, name))
    return true;
  for (int i = 0; i < sql_list_len(x->ex_list); i++) {
    if (x->ex_kind == SQL_E_CASE) {
      const sql_when_t *w = sql_list_at(x->ex_list, i);
      if (e_refs(w->wh_cond, name) || e_refs(w->wh_result, name))
        return true;
    } else if (e_refs(sql_list_at(x->ex_list, i), name)) {
      return true;
    }
  }
  if (x->ex_over) {
    for (int i = 0; i < sql_list_len(x->ex_over->wi_partition); i++)
      if (e_refs(sql_list_at(x->ex_over->wi_partition, i), name))
        return true;
    for (int i = 0; i < sql_list_len(x->ex_over->wi_order); i++)
      if (e_refs(((const sql_order_t *)sql_list_at(x->ex_over->wi_order, i))->or_expr, name))
        return true;
  }
  return false;
}

static bool f_refs(const sql_from_t *f, const char *name)
{
  switch (f->fr_kind) {
  case SQL_FROM_TABLE:
    return !f->fr_table.nm_schema && strcmp(f->fr_table.nm_name, name) == 0;
  case SQL_FROM_SUBQUERY:
    return q_refs(f->fr_query, name);
  case SQL_FROM_JOIN:
    return f_refs(f->fr_left, name) || f_refs(f->fr_right, name) || e_refs(f->fr_on, name);
  case SQL_FROM_FUNC:
    return e_refs(f->fr_func, name);
  }
  return false;
}

static bool list_refs(const sql_list_t *l, const char *name)
{
  for (int i = 0; i < sql_list_len(l); i++)
    if (e_refs(sql_list_at(l, i), name))
      return true;
  return false;
}

/* Whether q names `name` in a FROM clause (its own or a subquery's). */
static bool q_refs(const sql_query_t *q, const char *name)
{
  if (!q)
    return false;
  for (int i = 0; i < sql_list_len(q->qu_with); i++)
    if (q_refs(((const sql_cte_t *)sql_list_at(q->qu_with, i))->wc_query, name))
      return true;
  switch (q->qu_kind) {
  case SQL_Q_SELECT: {
    const sql_select_t *s = q->qu_select;
    for (int i = 0; i < sql_list_len(s->se_targets); i++)
      if (e_refs(((const sql_target_t *)sql_list_at(s->se_targets, i))->tg_expr, name))
        return true;
    for (int i = 0; i < sql_list_len(s->se_from); i++)
      if (f_refs(sql_list_at(s->se_from, i), name))
        return true;
    if (e_refs(s->se_where, name) || list_refs(s->se_group, name) || e_refs(s->se_having, name) ||
        e_refs(s->se_top, name) || list_refs(s->se_distinct_on, name))
      return true;
    break;
  }
  case SQL_Q_VALUES:
    for (int i = 0; i < sql_list_len(q->qu_rows); i++)
      if (list_refs(sql_list_at(q->qu_rows, i), name))
        return true;
    break;
  default:
    if (q_refs(q->qu_left, name) || q_refs(q->qu_right, name))
      return true;
    break;
  }
  for (int i = 0; i < sql_list_len(q->qu_order); i++)
    if (e_refs(((const sql_order_t *)sql_list_at(q->qu_order, i))->or_expr, name))
      return true;
  return e_refs(q->qu_limit, name) || e_refs(q->qu_offset, name);
}

/* An aggregate call outside subqueries. */
static bool e_has_agg(const sql_expr_t *x)
{
  if (!x)
    return false;
  if (x->ex_kind == SQL_E_FUNC && !x->ex_over && xagg_is_aggregate(x->ex_name))
    return true;
  if (e_has_agg(x->ex_left) || e_has_agg(x->ex_right) || e_has_agg(x->ex_third))
    return true;
  for (int i = 0; i < sql_list_len(x->ex_list); i++) {
    if (x->ex_kind == SQL_E_CASE) {
      const sql_when_t *w = sql_list_at(x->ex_list, i);
      if (e_has_agg(w->wh_cond) || e_has_agg(w->wh_result))
        return true;
    } else if (e_has_agg(sql_list_at(x->ex_list, i))) {
      return true;
    }
  }
  return false;
}

static bool term_aggregates(const sql_query_t *q)
{
  if (q->qu_kind != SQL_Q_SELECT)
    return false;
  const sql_select_t *s = q->qu_select;
  if (s->se_group || s->se_having)
    return true;
  for (int i = 0; i < sql_list_len(s->se_targets); i++)
    if (e_has_agg(((const sql_target_t *)sql_list_at(s->se_targets, i))->tg_expr))
      return true;
  return false;
}

/* The self-reference inside the recursive term: the working table. */
static int wt_ref(bd_t *b, bd_scope_t *sc, bd_cte_t *cte, lp_node_t **node, const char ***names)
{
  const sql_cte_t *c = cte->ct_cte;
  if (b->b_cte_cur != cte)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, c->wc_pos,
                    "mutual recursion between WITH items is not implemented");
  if (!cte->ct_wt)
    return bd_error(b, SQLSTATE_INVALID_RECURSION, c->wc_pos,
                    "recursive reference to query \"%s\" must not appear within its "
                    "non-recursive term", c->wc_name);
  if (sc->sc_subq != cte->ct_wt_subq)
    return bd_error(b, SQLSTATE_INVALID_RECURSION, c->wc_pos,
                    "recursive reference to query \"%s\" must not appear within a subquery",
                    c->wc_name);
  if (b->b_nullable != cte->ct_wt_nullable)
    return bd_error(b, SQLSTATE_INVALID_RECURSION, c->wc_pos,
                    "recursive reference to query \"%s\" must not appear within an outer join",
                    c->wc_name);
  if (b->b_setop_other != cte->ct_wt_setop)
    return bd_error(b, SQLSTATE_INVALID_RECURSION, c->wc_pos,
                    "recursive reference to query \"%s\" must not appear within %s", c->wc_name,
                    b->b_setop_other == SQL_Q_EXCEPT ? "EXCEPT" : "INTERSECT");
  if (cte->ct_wt_refs++)
    return bd_error(b, SQLSTATE_INVALID_RECURSION, c->wc_pos,
                    "recursive reference to query \"%s\" must not appear more than once",
                    c->wc_name);
  *node = cte->ct_wt;
  *names = cte->ct_wt_names;
  return CZ_OK;
}

static int rec_union(bd_t *b, bd_scope_t *sc, bd_cte_t *cte, lp_node_t **node,
                     const char ***names)
{
  const sql_cte_t *c = cte->ct_cte;
  const sql_query_t *body = c->wc_query;
  if (body->qu_kind != SQL_Q_UNION || body->qu_with)
    return bd_error(b, SQLSTATE_INVALID_RECURSION, c->wc_pos,
                    "recursive query \"%s\" does not have the form non-recursive-term UNION "
                    "[ALL] recursive-term", c->wc_name);
  const char *bad = body->qu_order    ? "ORDER BY"
                    : body->qu_offset ? "OFFSET"
                    : body->qu_limit  ? "LIMIT"
                    : body->qu_lock   ? "FOR UPDATE/SHARE"
                                      : NULL;
  if (bad)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, c->wc_pos,
                    "%s in a recursive query is not implemented", bad);
  if (q_refs(body->qu_left, c->wc_name))
    return bd_error(b, SQLSTATE_INVALID_RECURSION, c->wc_pos,
                    "recursive reference to query \"%s\" must not appear within its "
                    "non-recursive term", c->wc_name);
  if (term_aggregates(body->qu_right))
    return bd_error(b, SQLSTATE_INVALID_RECURSION, c->wc_pos,
                    "aggregate functions are not allowed in a recursive query's recursive term");
  lp_node_t *l, *r;  /* the terms, generated with the union */
  const char **ln;
  if (bd_query_node(b, body->qu_left, sc->sc_parent, sc->sc_subq, &l, &ln, NULL) != CZ_OK)
    return CZ_ERR;
  int ncte = sql_list_len(c->wc_columns);
  if (ncte > l->ln_ncols)
    return bd_error(b, SQLSTATE_INVALID_COLUMN_REF, c->wc_pos,
                    "WITH query \"%s\" has %d columns available but %d columns specified",
                    c->wc_name, l->ln_ncols, ncte);
  const char **nm = arena_alloc(b->b_a, sizeof(char *) * (size_t)(l->ln_ncols + 1));
  for (int i = 0; i < l->ln_ncols; i++)
    nm[i] = i < ncte ? sql_list_at(c->wc_columns, i) : ln[i];
  /* the working table, made by the generator with the union */
  lp_wtable_t *wt = arena_zalloc(b->b_a, sizeof(*wt));
  wt->wt_name = c->wc_name;
  lp_node_t *wn = arena_zalloc(b->b_a, sizeof(*wn));
  *wn = (lp_node_t){.ln_kind = LN_WORKTABLE, .ln_ncols = l->ln_ncols, .ln_types = l->ln_types,
                    .ln_wt = wt};
  cte->ct_wt = wn;
  cte->ct_wt_names = nm;
  cte->ct_wt_refs = 0;
  cte->ct_wt_subq = sc->sc_subq;
  cte->ct_wt_nullable = b->b_nullable;
  cte->ct_wt_setop = b->b_setop_other;
  if (bd_query_node(b, body->qu_right, sc->sc_parent, sc->sc_subq, &r, NULL, NULL) != CZ_OK)
    return CZ_ERR;
  if (r->ln_ncols != l->ln_ncols)
    return bd_error(b, SQLSTATE_SYNTAX_ERROR, body->qu_pos,
                    "each UNION query must have the same number of columns");
  bool same = true;
  for (int i = 0; i < l->ln_ncols; i++) {
    ty_t lt = l->ln_types[i], rt = r->ln_types[i], common = lt;
    if (rt.t_id != lt.t_id && !(lt.t_id == TY_VARCHAR && rt.t_id == TY_TEXT)) {
      /* (varchar then text stays varchar in PostgreSQL: each casts to the
       * other implicitly, so the first is kept) */
      ty_t pair[2] = {lt, rt};
      if (xtype_common(pair, 2, &common, b->b_e) != CZ_OK) {
        b->b_e->er_pos = body->qu_pos;
        return CZ_ERR;
      }
    }
    /* the overall type keeps a length (CHAR, VARCHAR) or a precision
     * (NUMERIC) only when both terms agree on it */
    bool lmod = (lt.t_id == TY_VARCHAR || lt.t_id == TY_CHAR) ? lt.t_len >= 0
                : lt.t_id == TY_NUMERIC                     ? lt.t_prec >= 0
                                                            : false;
    bool lost = lmod && (rt.t_id != lt.t_id || rt.t_len != lt.t_len ||
                         rt.t_prec != lt.t_prec || rt.t_scale != lt.t_scale);
    if (lost) {
      common.t_len = -1;
      common.t_prec = common.t_scale = -1;
    }
    if (common.t_id != lt.t_id || lost)
      return bd_error(b, SQLSTATE_DATATYPE_MISMATCH, c->wc_pos,
                      "recursive query \"%s\" column %d has type %s in non-recursive term but "
                      "type %s overall", c->wc_name, i + 1, ty_name(b->b_a, lt),
                      ty_name(b->b_a, common));
    same &= rt.t_id == lt.t_id;
  }
  xnode_t **x = NULL;
  if (!same) {
    x = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)r->ln_ncols);
    for (int i = 0; i < r->ln_ncols; i++)
      if (!(x[i] = bd_coerce(b, bd_col(b, i, r->ln_types[i]), l->ln_types[i])))
        return CZ_ERR;
  }
  /* a term that did not read the working table after all (the name was
   * a nearer WITH query's): a plain union */
  lp_node_t *n = arena_zalloc(b->b_a, sizeof(*n));
  *n = (lp_node_t){.ln_kind = cte->ct_wt_refs ? LN_RECURSIVE : LN_SETOP,
                   .ln_ncols = l->ln_ncols, .ln_types = l->ln_types,
                   .ln_setop = SETOP_UNION, .ln_all = body->qu_all,
                   .ln_l = l, .ln_r = r, .ln_rcast = x,
                   .ln_wt = wt};
  *node = n;
  *names = nm;
  return CZ_OK;
}

int bd_cte_recursive(bd_t *b, bd_scope_t *sc, bd_cte_t *cte, lp_node_t **node,
                     const char ***names)
{
  *node = NULL;
  if (cte->ct_busy)
    return wt_ref(b, sc, cte, node, names);
  const sql_cte_t *c = cte->ct_cte;
  bd_cte_t *saved = b->b_ctes, *saved_cur = b->b_cte_cur;
  b->b_ctes = cte->ct_visible;
  b->b_cte_cur = cte;
  cte->ct_busy = true;
  int rc = q_refs(c->wc_query, c->wc_name)
               ? rec_union(b, sc, cte, node, names)
               : bd_query_node(b, c->wc_query, sc->sc_parent, sc->sc_subq, node, names, NULL);
  cte->ct_busy = false;
  cte->ct_wt = NULL;
  b->b_ctes = saved;
  b->b_cte_cur = saved_cur;
  return rc;
}
