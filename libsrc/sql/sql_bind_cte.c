/* sql_bind_cte — whether a (non-recursive) WITH query is inlined where it
 * is named or computed once into a worktable that every reference reads
 * (a logical lp_cte_t read by LN_CTE nodes, sql_logical.h; the generator,
 * opt/opt_gen_cte.c, builds exec/op_cte.c's operators), as PostgreSQL 12+
 * decides.
 *
 * Design notes:
 * - PostgreSQL's rule (subselect.c, SS_process_ctes): a WITH query is
 *   materialised when it is marked MATERIALIZED, or named more than once
 *   and not marked NOT MATERIALIZED, or it calls a volatile function
 *   (then also when marked NOT MATERIALIZED: each reference must see the
 *   same rows); otherwise it is inlined, which here means bound again at
 *   each reference as a derived table (sql_bind_from.c). WITH RECURSIVE
 *   queries keep their own path (sql_bind_recursive.c).
 * - References are counted in the text, before anything is bound, as
 *   PostgreSQL's cterefcount: every FROM item naming the query in the
 *   query's body and in the WITH queries after it, in subqueries too, but
 *   not where an inner WITH list of the same name hides it. A reference
 *   that is never bound (a subquery decorrelation rebinds, or a branch
 *   folded away) still counts: the choice is the text's, not the plan's.
 * - The body is bound once, at the first reference, in the scope of the
 *   query that holds the WITH list (ct_outer, ct_sq), seeing the WITH
 *   queries before it. A body that reads a column of an enclosing query
 *   (a WITH list inside a correlated subquery) changes per outer row: it
 *   is inlined whatever the count or the mark (what PostgreSQL gets by
 *   re-running the CTE's subplan when its parameters change).
 * - A WITH query the text never names is still bound once (its plan
 *   dropped, never run), so an unknown table or column in it is an error
 *   as in PostgreSQL, which analyses every WITH query.
 * - A data-modifying WITH query (INSERT … RETURNING inside WITH) does not
 *   parse here yet; when it does it must always be materialised. */
#include <string.h>

#include "sql/sql_bind_int.h"

static int q_count(const sql_query_t *q, const char *name);

static int e_count(const sql_expr_t *x, const char *name)
{
  if (!x)
    return 0;
  int n = q_count(x->ex_query, name) + e_count(x->ex_left, name) + e_count(x->ex_right, name) +
          e_count(x->ex_third, name);
  for (int i = 0; i < sql_list_len(x->ex_list); i++) {
    if (x->ex_kind == SQL_E_CASE) {
      const sql_when_t *w = sql_list_at(x->ex_list, i);
      n += e_count(w->wh_cond, name) + e_count(w->wh_result, name);
    } else {
      n += e_count(sql_list_at(x->ex_list, i), name);
    }
  }
  if (x->ex_over) {
    for (int i = 0; i < sql_list_len(x->ex_over->wi_partition); i++)
      n += e_count(sql_list_at(x->ex_over->wi_partition, i), name);
    for (int i = 0; i < sql_list_len(x->ex_over->wi_order); i++)
      n += e_count(((const sql_order_t *)sql_list_at(x->ex_over->wi_order, i))->or_expr, name);
  }
  return n;
}

static int list_count(const sql_list_t *l, const char *name)
{
  int n = 0;
  for (int i = 0; i < sql_list_len(l); i++)
    n += e_count(sql_list_at(l, i), name);
  return n;
}

static int f_count(const sql_from_t *f, const char *name)
{
  switch (f->fr_kind) {
  case SQL_FROM_TABLE:
    return !f->fr_table.nm_schema && strcmp(f->fr_table.nm_name, name) == 0;
  case SQL_FROM_SUBQUERY:
    return q_count(f->fr_query, name);
  case SQL_FROM_JOIN:
    return f_count(f->fr_left, name) + f_count(f->fr_right, name) + e_count(f->fr_on, name);
  case SQL_FROM_FUNC:
    return e_count(f->fr_func, name);
  }
  return 0;
}

/* References in q itself, its WITH list left out. */
static int body_count(const sql_query_t *q, const char *name)
{
  int n = 0;
  switch (q->qu_kind) {
  case SQL_Q_SELECT: {
    const sql_select_t *s = q->qu_select;
    for (int i = 0; i < sql_list_len(s->se_targets); i++)
      n += e_count(((const sql_target_t *)sql_list_at(s->se_targets, i))->tg_expr, name);
    for (int i = 0; i < sql_list_len(s->se_from); i++)
      n += f_count(sql_list_at(s->se_from, i), name);
    n += e_count(s->se_where, name) + list_count(s->se_group, name) +
         e_count(s->se_having, name) + e_count(s->se_top, name) +
         list_count(s->se_distinct_on, name);
    break;
  }
  case SQL_Q_VALUES:
    for (int i = 0; i < sql_list_len(q->qu_rows); i++)
      n += list_count(sql_list_at(q->qu_rows, i), name);
    break;
  default:
    n += q_count(q->qu_left, name) + q_count(q->qu_right, name);
    break;
  }
  for (int i = 0; i < sql_list_len(q->qu_order); i++)
    n += e_count(((const sql_order_t *)sql_list_at(q->qu_order, i))->or_expr, name);
  return n + e_count(q->qu_limit, name) + e_count(q->qu_offset, name);
}

/* References in q, where an own WITH query of that name hides the outer
 * one from the WITH queries after it and from q's body (a RECURSIVE list
 * hides it everywhere in q). */
static int q_count(const sql_query_t *q, const char *name)
{
  if (!q)
    return 0;
  int n = 0;
  for (int i = 0; i < sql_list_len(q->qu_with); i++) {
    const sql_cte_t *c = sql_list_at(q->qu_with, i);
    if (q->qu_recursive && strcmp(c->wc_name, name) == 0)
      return 0;
  }
  for (int i = 0; i < sql_list_len(q->qu_with); i++) {
    const sql_cte_t *c = sql_list_at(q->qu_with, i);
    n += q_count(c->wc_query, name);
    if (strcmp(c->wc_name, name) == 0)
      return n;
  }
  return n + body_count(q, name);
}

void bd_cte_count_refs(const sql_query_t *q, bd_cte_t *last)
{
  int n = sql_list_len(q->qu_with);
  bd_cte_t *e = last;
  for (int i = n - 1; i >= 0 && e; i--, e = e->ct_prev) {
    const sql_cte_t *c = e->ct_cte;
    int refs = body_count(q, c->wc_name);
    for (int j = i + 1; j < n; j++) {
      const sql_cte_t *later = sql_list_at(q->qu_with, j);
      refs += q_count(later->wc_query, c->wc_name);
      if (strcmp(later->wc_name, c->wc_name) == 0)
        break;  /* cannot happen: 42712 before */
    }
    e->ct_refs = refs;
  }
}

int bd_cte_materialized(bd_t *b, bd_cte_t *cte, lp_node_t **node, const char ***names,
                        bool *done)
{
  *done = false;
  const sql_cte_t *c = cte->ct_cte;
  if (cte->ct_inline)
    return CZ_OK;
  if (!cte->ct_mat) {
    bool want = c->wc_materialized == SQL_CTE_MATERIALIZED ||
                (c->wc_materialized == SQL_CTE_DEFAULT && cte->ct_refs > 1);
    bd_cte_t *saved = b->b_ctes;
    bd_decor_t *saved_decor = b->b_decor;
    b->b_ctes = cte->ct_prev;
    b->b_decor = NULL;
    int corr = b->b_ncorr, vol = b->b_nvolatile;
    lp_node_t *q;
    const char **nm;
    int rc = bd_query_node(b, c->wc_query, cte->ct_outer, cte->ct_sq, &q, &nm, NULL);
    b->b_ctes = saved;
    b->b_decor = saved_decor;
    if (rc != CZ_OK)
      return CZ_ERR;
    /* volatile (random(), nextval()): every reference must see the same
     * rows, marked NOT MATERIALIZED or not */
    if (b->b_nvolatile != vol)
      want = true;
    if (!want || b->b_ncorr != corr) {
      cte->ct_inline = true;  /* per reference, as a derived table */
      return CZ_OK;
    }
    lp_cte_t *mat = arena_zalloc(b->b_a, sizeof(*mat));
    mat->lc_name = c->wc_name;
    mat->lc_body = q;  /* generated with its first reference (opt/opt_gen_cte.c) */
    cte->ct_mat = mat;
    cte->ct_mat_names = nm;
  }
  /* a reference: a scan of the one worktable (opt/opt_gen_cte.c) */
  lp_node_t *ref = arena_zalloc(b->b_a, sizeof(*ref));
  ref->ln_kind = LN_CTE;
  ref->ln_ncols = cte->ct_mat->lc_body->ln_ncols;
  ref->ln_types = cte->ct_mat->lc_body->ln_types;
  ref->ln_cte = cte->ct_mat;
  *node = ref;
  *names = cte->ct_mat_names;
  *done = true;
  return CZ_OK;
}

/* Binds e and the entries before it (down to stop) that nothing names,
 * in list order; the plans are dropped. */
static int check_unused(bd_t *b, bd_cte_t *e, bd_cte_t *stop)
{
  if (e == stop)
    return CZ_OK;
  if (check_unused(b, e->ct_prev, stop) != CZ_OK)
    return CZ_ERR;
  if (e->ct_refs > 0 || e->ct_recursive)
    return CZ_OK;
  bd_cte_t *saved = b->b_ctes;
  bd_decor_t *saved_decor = b->b_decor;
  int nhint = b->b_nhint;
  const ty_t *hint = b->b_hint;
  b->b_ctes = e->ct_prev;
  b->b_decor = NULL;
  b->b_nhint = 0;  /* INSERT's target types are for its own query */
  b->b_hint = NULL;
  op_t *q;
  const char **nm;
  int rc = bd_query(b, e->ct_cte->wc_query, e->ct_outer, e->ct_sq, &q, &nm, NULL);
  b->b_ctes = saved;
  b->b_decor = saved_decor;
  b->b_nhint = nhint;
  b->b_hint = hint;
  return rc;
}

int bd_cte_check_unused(bd_t *b, bd_cte_t *last, bd_cte_t *stop)
{
  return check_unused(b, last, stop);
}
