/* sp_check — the static rules of SPARQL 1.1 that the grammar does not
 * express (spec §18.2.1 scope, §18.2.4.1 grouping, §19.6 blank node labels,
 * Update §3.1 data and templates).
 *
 * Design notes: one walk over the request after parsing. Each rule is a
 * function of its own; the first violation sets the error (42601, with the
 * position of the offending item) and the walk stops. What is checked:
 * - variables in scope (sp_scope_pattern): BIND may not assign a variable
 *   already in scope in its group up to that point; `(expr AS ?v)` in SELECT
 *   may not name a variable in scope in the WHERE pattern or one projected
 *   before it;
 * - grouping: with GROUP BY or an aggregate, SELECT * is refused and every
 *   variable a select item reads outside an aggregate must be a group key
 *   (or a variable projected before it);
 * - aggregates only in SELECT, HAVING and ORDER BY, never nested;
 * - a blank node label belongs to one basic graph pattern (§19.6), and to
 *   one operation of an update request;
 * - VALUES rows as long as the variable list;
 * - templates and data: no property paths; no variables in INSERT DATA or
 *   DELETE DATA; no blank nodes in DELETE DATA, DELETE WHERE or DELETE
 *   templates.
 */
#include <string.h>

#include "sparql/sparql_int.h"

typedef struct sp_ck_s {
  sp_pstate_t *ck_ps;
  sp_strmap_t *ck_labels;  /* label -> the BGP id it belongs to (as intptr, never 0) */
  int ck_bgp_seq;        /* ids of basic graph patterns */
  int ck_op;             /* update: the operation, so labels are not shared between operations */
} sp_ck_t;

static int ck_pattern(sp_ck_t *ck, sp_pat_t *p);
static int ck_query(sp_ck_t *ck, sp_query_t *q);

sp_varset_t *sp_varset_new(arena_t *a)
{
  sp_varset_t *vs = arena_zalloc(a, sizeof *vs);
  vs->vs_list = sp_list_new(a);
  vs->vs_map = sp_strmap_new(a);
  return vs;
}

bool sp_vars_has(const sp_varset_t *vars, const char *name)
{
  return sp_strmap_get(vars->vs_map, name) != NULL;
}

void sp_vars_add(arena_t *a, sp_varset_t *vars, sp_term_t *v)
{
  if (v && v->tm_kind == SP_T_VAR && !sp_vars_has(vars, v->tm_str)) {
    sp_list_append(a, vars->vs_list, v);
    sp_strmap_put(vars->vs_map, v->tm_str, v);
  }
}

static void sp_scope_query(const sp_query_t *q, sp_varset_t *vars, arena_t *a)
{
  if (q->qu_vars) {
    for (int i = 0; i < q->qu_vars->ls_n; i++)
      sp_vars_add(a, vars, q->qu_vars->ls_v[i]);
    return;
  }
  if (q->qu_star) {
    sp_scope_pattern(q->qu_where, vars, a);
    if (q->qu_values)
      for (int i = 0; i < q->qu_values->va_vars->ls_n; i++)
        sp_vars_add(a, vars, q->qu_values->va_vars->ls_v[i]);
    return;
  }
  for (int i = 0; i < q->qu_select->ls_n; i++)
    sp_vars_add(a, vars, ((sp_selitem_t *)q->qu_select->ls_v[i])->si_var);
}

void sp_scope_pattern(const sp_pat_t *p, sp_varset_t *vars, arena_t *a)
{
  if (!p)
    return;
  switch (p->pt_kind) {
  case SP_G_GROUP:
  case SP_G_UNION:
    for (int i = 0; i < p->pt_list->ls_n; i++)
      sp_scope_pattern(p->pt_list->ls_v[i], vars, a);
    break;
  case SP_G_TRIPLES:
    for (int i = 0; i < p->pt_list->ls_n; i++) {
      sp_triple_t *t = p->pt_list->ls_v[i];
      sp_vars_add(a, vars, t->tr_s);
      sp_vars_add(a, vars, t->tr_p);
      sp_vars_add(a, vars, t->tr_o);
    }
    break;
  case SP_G_OPTIONAL:
    sp_scope_pattern(p->pt_sub, vars, a);
    break;
  case SP_G_MINUS:
  case SP_G_FILTER:
    break;
  case SP_G_GRAPH:
  case SP_G_SERVICE:
    sp_vars_add(a, vars, p->pt_name);
    sp_scope_pattern(p->pt_sub, vars, a);
    break;
  case SP_G_BIND:
    sp_vars_add(a, vars, p->pt_var);
    break;
  case SP_G_VALUES:
    for (int i = 0; i < p->pt_values->va_vars->ls_n; i++)
      sp_vars_add(a, vars, p->pt_values->va_vars->ls_v[i]);
    break;
  case SP_G_SUBSELECT:
    sp_scope_query(p->pt_query, vars, a);
    break;
  }
}

/* ---- expressions ---- */

/* agg: 0 = no aggregates allowed here, 1 = allowed, 2 = inside one. */
static int ck_expr(sp_ck_t *ck, sp_expr_t *e, int agg)
{
  if (!e)
    return CZ_OK;
  if (e->ex_kind == SP_E_AGG) {
    if (agg == 0) {
      sp_fail(ck->ck_ps, e->ex_pos, "aggregate %s is allowed only in SELECT, HAVING and ORDER BY", e->ex_name);
      return CZ_ERR;
    }
    if (agg == 2) {
      sp_fail(ck->ck_ps, e->ex_pos, "aggregate %s inside another aggregate", e->ex_name);
      return CZ_ERR;
    }
    agg = 2;
  }
  if (e->ex_kind == SP_E_EXISTS || e->ex_kind == SP_E_NOTEXISTS)
    return ck_pattern(ck, e->ex_pat);
  if (ck_expr(ck, e->ex_a, agg) != CZ_OK || ck_expr(ck, e->ex_b, agg) != CZ_OK)
    return CZ_ERR;
  if (e->ex_args)
    for (int i = 0; i < e->ex_args->ls_n; i++)
      if (ck_expr(ck, e->ex_args->ls_v[i], agg) != CZ_OK)
        return CZ_ERR;
  return CZ_OK;
}

static bool sp_expr_has_agg(const sp_expr_t *e)
{
  if (!e)
    return false;
  if (e->ex_kind == SP_E_AGG)
    return true;
  if (e->ex_kind == SP_E_EXISTS || e->ex_kind == SP_E_NOTEXISTS)
    return false;
  if (sp_expr_has_agg(e->ex_a) || sp_expr_has_agg(e->ex_b))
    return true;
  if (e->ex_args)
    for (int i = 0; i < e->ex_args->ls_n; i++)
      if (sp_expr_has_agg(e->ex_args->ls_v[i]))
        return true;
  return false;
}

/* The first variable e reads outside aggregates (and EXISTS) that is not in ok, or NULL. */
static const sp_term_t *sp_expr_ungrouped(const sp_expr_t *e, const sp_varset_t *ok)
{
  if (!e || e->ex_kind == SP_E_AGG || e->ex_kind == SP_E_EXISTS || e->ex_kind == SP_E_NOTEXISTS)
    return NULL;
  if (e->ex_kind == SP_E_TERM)
    return e->ex_term->tm_kind == SP_T_VAR && !sp_vars_has(ok, e->ex_term->tm_str) ? e->ex_term : NULL;
  const sp_term_t *t = sp_expr_ungrouped(e->ex_a, ok);
  if (!t)
    t = sp_expr_ungrouped(e->ex_b, ok);
  if (e->ex_args)
    for (int i = 0; !t && i < e->ex_args->ls_n; i++)
      t = sp_expr_ungrouped(e->ex_args->ls_v[i], ok);
  return t;
}

/* ---- blank node labels ---- */

static int ck_label(sp_ck_t *ck, sp_term_t *t, int bgp)
{
  if (!t || t->tm_kind != SP_T_BNODE || t->tm_anon)
    return CZ_OK;
  t->tm_bgp = bgp;
  void *owner = sp_strmap_get(ck->ck_labels, t->tm_str);
  if (!owner) {
    sp_strmap_put(ck->ck_labels, t->tm_str, (void *)(intptr_t)bgp);
    return CZ_OK;
  }
  if ((intptr_t)owner != bgp) {
    sp_fail(ck->ck_ps, t->tm_pos, "blank node label _:%s is used in two different basic graph patterns%s",
            t->tm_str, ck->ck_op ? " or update operations" : "");
    return CZ_ERR;
  }
  return CZ_OK;
}

static int ck_triples(sp_ck_t *ck, sp_list_t *triples, int bgp)
{
  for (int i = 0; triples && i < triples->ls_n; i++) {
    sp_triple_t *t = triples->ls_v[i];
    if (ck_label(ck, t->tr_s, bgp) != CZ_OK || ck_label(ck, t->tr_o, bgp) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- patterns ---- */

static int ck_values(sp_ck_t *ck, sp_values_t *v)
{
  int n = v->va_vars->ls_n;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (strcmp(((sp_term_t *)v->va_vars->ls_v[i])->tm_str, ((sp_term_t *)v->va_vars->ls_v[j])->tm_str) == 0) {
        sp_fail(ck->ck_ps, ((sp_term_t *)v->va_vars->ls_v[i])->tm_pos, "variable ?%s is listed twice in VALUES",
                ((sp_term_t *)v->va_vars->ls_v[i])->tm_str);
        return CZ_ERR;
      }
  for (int r = 0; r < v->va_rows->ls_n; r++) {
    sp_list_t *row = v->va_rows->ls_v[r];
    if (row->ls_n != n) {
      sp_fail(ck->ck_ps, v->va_pos, "VALUES row %d has %d value%s for %d variable%s", r + 1, row->ls_n,
              row->ls_n == 1 ? "" : "s", n, n == 1 ? "" : "s");
      return CZ_ERR;
    }
  }
  return CZ_OK;
}

static int ck_group(sp_ck_t *ck, sp_pat_t *g)
{
  arena_t *a = ck->ck_ps->ps_arena;
  sp_varset_t *seen = sp_varset_new(a);   /* variables in scope so far */
  for (int i = 0; i < g->pt_list->ls_n; i++) {
    sp_pat_t *e = g->pt_list->ls_v[i];
    if (e->pt_kind == SP_G_BIND && sp_vars_has(seen, e->pt_var->tm_str)) {
      sp_fail(ck->ck_ps, e->pt_var->tm_pos,
              "BIND assigns ?%s, which is already in scope in its group", e->pt_var->tm_str);
      return CZ_ERR;
    }
    if (ck_pattern(ck, e) != CZ_OK)
      return CZ_ERR;
    sp_scope_pattern(e, seen, a);
  }
  return CZ_OK;
}

static int ck_pattern(sp_ck_t *ck, sp_pat_t *p)
{
  if (!p)
    return CZ_OK;
  switch (p->pt_kind) {
  case SP_G_GROUP:
    return ck_group(ck, p);
  case SP_G_UNION:
    for (int i = 0; i < p->pt_list->ls_n; i++)
      if (ck_pattern(ck, p->pt_list->ls_v[i]) != CZ_OK)
        return CZ_ERR;
    return CZ_OK;
  case SP_G_TRIPLES:
    return ck_triples(ck, p->pt_list, ++ck->ck_bgp_seq);
  case SP_G_OPTIONAL:
  case SP_G_MINUS:
  case SP_G_GRAPH:
  case SP_G_SERVICE:
    return ck_pattern(ck, p->pt_sub);
  case SP_G_FILTER:
  case SP_G_BIND:
    return ck_expr(ck, p->pt_expr, 0);
  case SP_G_VALUES:
    return ck_values(ck, p->pt_values);
  case SP_G_SUBSELECT:
    return ck_query(ck, p->pt_query);
  }
  return CZ_OK;
}

/* ---- queries ---- */

static int ck_select(sp_ck_t *ck, sp_query_t *q, bool grouped)
{
  sp_pstate_t *ps = ck->ck_ps;
  arena_t *a = ps->ps_arena;
  sp_varset_t *inscope = sp_varset_new(a);
  sp_varset_t *keys = sp_varset_new(a);     /* group keys */
  sp_varset_t *projected = sp_varset_new(a);
  sp_scope_pattern(q->qu_where, inscope, a);
  if (q->qu_group)
    for (int i = 0; i < q->qu_group->ls_n; i++) {
      sp_selitem_t *g = q->qu_group->ls_v[i];
      if (g->si_expr == NULL || g->si_var)
        sp_vars_add(a, keys, g->si_var);
      if (g->si_expr && g->si_var && sp_vars_has(inscope, g->si_var->tm_str)) {
        sp_fail(ps, g->si_var->tm_pos, "GROUP BY (… AS ?%s): ?%s is already in scope", g->si_var->tm_str,
                g->si_var->tm_str);
        return CZ_ERR;
      }
    }
  if (grouped && q->qu_star) {
    sp_fail(ps, q->qu_pos, "SELECT * is not allowed with GROUP BY or aggregates");
    return CZ_ERR;
  }
  for (int i = 0; i < q->qu_select->ls_n; i++) {
    sp_selitem_t *s = q->qu_select->ls_v[i];
    if (s->si_expr) {
      if (sp_vars_has(inscope, s->si_var->tm_str) || sp_vars_has(projected, s->si_var->tm_str)) {
        sp_fail(ps, s->si_var->tm_pos, "(… AS ?%s): ?%s is already in scope", s->si_var->tm_str, s->si_var->tm_str);
        return CZ_ERR;
      }
      if (ck_expr(ck, s->si_expr, 1) != CZ_OK)
        return CZ_ERR;
      if (grouped) {
        const sp_term_t *v = sp_expr_ungrouped(s->si_expr, keys);
        if (v && !sp_vars_has(projected, v->tm_str)) {
          sp_fail(ps, v->tm_pos, "?%s is neither grouped nor aggregated", v->tm_str);
          return CZ_ERR;
        }
      }
    } else if (grouped && !sp_vars_has(keys, s->si_var->tm_str)) {
      sp_fail(ps, s->si_var->tm_pos, "?%s is selected but neither grouped nor aggregated", s->si_var->tm_str);
      return CZ_ERR;
    }
    sp_vars_add(a, projected, s->si_var);
  }
  return CZ_OK;
}

static int ck_query(sp_ck_t *ck, sp_query_t *q)
{
  sp_pstate_t *ps = ck->ck_ps;
  arena_t *a = ps->ps_arena;
  bool grouped = q->qu_group != NULL;
  if (ck_pattern(ck, q->qu_where) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < q->qu_select->ls_n && !grouped; i++)
    grouped = sp_expr_has_agg(((sp_selitem_t *)q->qu_select->ls_v[i])->si_expr);
  for (int i = 0; q->qu_having && i < q->qu_having->ls_n && !grouped; i++)
    grouped = sp_expr_has_agg(q->qu_having->ls_v[i]);
  for (int i = 0; q->qu_order && i < q->qu_order->ls_n && !grouped; i++)
    grouped = sp_expr_has_agg(((sp_order_t *)q->qu_order->ls_v[i])->or_expr);
  if (q->qu_group)
    for (int i = 0; i < q->qu_group->ls_n; i++)
      if (ck_expr(ck, ((sp_selitem_t *)q->qu_group->ls_v[i])->si_expr, 0) != CZ_OK)
        return CZ_ERR;
  for (int i = 0; q->qu_having && i < q->qu_having->ls_n; i++)
    if (ck_expr(ck, q->qu_having->ls_v[i], 1) != CZ_OK)
      return CZ_ERR;
  for (int i = 0; q->qu_order && i < q->qu_order->ls_n; i++)
    if (ck_expr(ck, ((sp_order_t *)q->qu_order->ls_v[i])->or_expr, 1) != CZ_OK)
      return CZ_ERR;
  if (q->qu_values && ck_values(ck, q->qu_values) != CZ_OK)
    return CZ_ERR;
  if (q->qu_kind == SP_Q_SELECT && ck_select(ck, q, grouped) != CZ_OK)
    return CZ_ERR;
  if (q->qu_kind == SP_Q_CONSTRUCT) {
    for (int i = 0; i < q->qu_template->ls_n; i++) {
      sp_triple_t *t = q->qu_template->ls_v[i];
      if (t->tr_path) {
        sp_fail(ps, q->qu_pos, "property paths are not allowed in a CONSTRUCT template");
        return CZ_ERR;
      }
    }
  }
  sp_varset_t *vars = sp_varset_new(a);
  if (q->qu_kind == SP_Q_SELECT)
    sp_scope_query(q, vars, a);
  else if (q->qu_kind == SP_Q_DESCRIBE) {
    if (q->qu_star)
      sp_scope_pattern(q->qu_where, vars, a);
    else
      for (int i = 0; i < q->qu_describe->ls_n; i++)
        sp_vars_add(a, vars, q->qu_describe->ls_v[i]);
  }
  q->qu_vars = vars->vs_list;
  return CZ_OK;
}

/* ---- updates ---- */

static int ck_quads(sp_ck_t *ck, sp_update_t *u, sp_list_t *quads, bool no_vars, bool no_bnodes,
                    const char *what)
{
  if (!quads)
    return CZ_OK;
  for (int i = 0; i < quads->ls_n; i++) {
    sp_quad_t *q = quads->ls_v[i];
    sp_triple_t *t = q->qd_t;
    sp_term_t *terms[4] = { q->qd_g, t->tr_s, t->tr_p, t->tr_o };
    if (t->tr_path) {
      sp_fail(ck->ck_ps, u->up_pos, "property paths are not allowed in %s", what);
      return CZ_ERR;
    }
    for (int k = 0; k < 4; k++) {
      sp_term_t *x = terms[k];
      if (!x)
        continue;
      if (no_vars && x->tm_kind == SP_T_VAR) {
        sp_fail(ck->ck_ps, x->tm_pos, "variable ?%s is not allowed in %s", x->tm_str, what);
        return CZ_ERR;
      }
      if (no_bnodes && x->tm_kind == SP_T_BNODE) {
        sp_fail(ck->ck_ps, x->tm_pos ? x->tm_pos : u->up_pos, "blank nodes are not allowed in %s", what);
        return CZ_ERR;
      }
    }
    /* data blocks share the request's label scope: one operation, one BGP */
    if (no_vars && (ck_label(ck, t->tr_s, -ck->ck_op) != CZ_OK || ck_label(ck, t->tr_o, -ck->ck_op) != CZ_OK))
      return CZ_ERR;
  }
  return CZ_OK;
}

static int ck_update(sp_ck_t *ck, sp_update_t *u)
{
  switch (u->up_kind) {
  case SP_U_INSERT_DATA:
    return ck_quads(ck, u, u->up_insert, true, false, "INSERT DATA");
  case SP_U_DELETE_DATA:
    return ck_quads(ck, u, u->up_delete, true, true, "DELETE DATA");
  case SP_U_DELETE_WHERE:
    return ck_quads(ck, u, u->up_delete, false, true, "DELETE WHERE");
  case SP_U_MODIFY:
    if (ck_quads(ck, u, u->up_delete, false, true, "a DELETE template") != CZ_OK ||
        ck_quads(ck, u, u->up_insert, false, false, "an INSERT template") != CZ_OK)
      return CZ_ERR;
    return ck_pattern(ck, u->up_where);
  default:
    return CZ_OK;
  }
}

int sp_check_request(sp_pstate_t *ps, sp_request_t *rq)
{
  sp_ck_t ck;
  memset(&ck, 0, sizeof ck);
  ck.ck_ps = ps;
  ck.ck_labels = sp_strmap_new(ps->ps_arena);
  if (!rq->rq_update)
    return ck_query(&ck, rq->rq_query);
  for (int i = 0; i < rq->rq_ops->ls_n; i++) {
    ck.ck_op = i + 1;
    if (ck_update(&ck, rq->rq_ops->ls_v[i]) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}
