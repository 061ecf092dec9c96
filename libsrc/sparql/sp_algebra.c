/* sp_algebra — the translation of the syntax tree to the SPARQL algebra
 * (spec §18.2.2 – §18.2.5).
 *
 * Design notes: followed step by step, with the spec's simplification
 * Join(Z, A) = Join(A, Z) = A (Z the empty BGP, printed `(table unit)`):
 * - property paths (§18.2.2.4): a negated property set mixing forward and
 *   ^ members becomes alt(NPS(fwd), inv(NPS(inv))); then X link(iri) Y is a
 *   triple, X inv(iri) Y the triple Y iri X, X seq(P, Q) Y the two patterns
 *   X P ?V . ?V Q Y (?V fresh), anything else a Path; adjacent triples form
 *   one BGP, a Path stands alone and the pieces are joined in order;
 * - blank nodes in patterns become variables (`??N`) that are never
 *   projected; in templates and data they stay blank nodes;
 * - groups (§18.2.2.6): FILTERs collected over the whole group and applied
 *   last; OPTIONAL{Filter(F, A)} gives LeftJoin(G, A, F) when the FILTER
 *   is the OPTIONAL group's own (not a nested group's); MINUS, BIND and the
 *   rest in order (Minus, Extend, Join);
 * - queries (§18.2.4): Group with its aggregates (each aggregate call one
 *   `?.N`, an identical call reused), HAVING as a Filter, the trailing
 *   VALUES joined, select expressions as one Extend per run, then OrderBy,
 *   Project (not for SELECT *, as Jena prints it), Distinct or Reduced,
 *   Slice. A subquery is ToMultiSet of its translation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparql/sparql_int.h"

typedef struct sp_tr_s {
  sp_pstate_t *tr_ps;
  sp_strmap_t *tr_bvars;  /* blank node label -> the variable it became */
  int tr_bseq;            /* ??N */
  int tr_aseq;            /* ?.N */
} sp_tr_t;

typedef struct sp_aggctx_s {
  sp_list_t *ag_list;     /* sp_selitem_t *: (?.N, aggregate) */
  sp_list_t *ag_keys;     /* their printed forms, for reuse */
} sp_aggctx_t;

static sp_op_t *tr_pattern(sp_tr_t *tr, sp_pat_t *p);
static sp_op_t *tr_query(sp_tr_t *tr, sp_query_t *q);

static sp_op_t *op_new(sp_tr_t *tr, sp_op_kind_t k, sp_op_t *a, sp_op_t *b)
{
  sp_op_t *o = arena_zalloc(tr->tr_ps->ps_arena, sizeof *o);
  o->op_kind = k;
  o->op_a = a;
  o->op_b = b;
  o->op_start = o->op_length = -1;
  o->op_depth = 1 + CZ_MAX(a ? a->op_depth : 0, b ? b->op_depth : 0);
  if (o->op_depth > SP_MAX_DEPTH)
    sp_fail_state(tr->tr_ps, SQLSTATE_STATEMENT_TOO_COMPLEX, 0,
                  "the query's algebra is more than %d operators deep (too many joined or united patterns)",
                  SP_MAX_DEPTH);
  return o;
}

static bool op_is_unit(const sp_op_t *o)
{
  return o->op_kind == SP_OP_BGP && o->op_triples->ls_n == 0;
}

static sp_op_t *op_unit(sp_tr_t *tr)
{
  sp_op_t *o = op_new(tr, SP_OP_BGP, NULL, NULL);
  o->op_triples = sp_list_new(tr->tr_ps->ps_arena);
  return o;
}

static sp_op_t *op_join(sp_tr_t *tr, sp_op_t *a, sp_op_t *b)
{
  if (op_is_unit(a))
    return b;
  if (op_is_unit(b))
    return a;
  return op_new(tr, SP_OP_JOIN, a, b);
}

/* ---- terms of patterns ---- */

static sp_term_t *tr_anon_var(sp_tr_t *tr, const char *name)
{
  sp_term_t *v = sp_term_new(tr->tr_ps, SP_T_VAR, name, 0);
  v->tm_anon = true;
  return v;
}

static sp_term_t *tr_term(sp_tr_t *tr, sp_term_t *t)
{
  if (!t || t->tm_kind != SP_T_BNODE)
    return t;
  arena_t *a = tr->tr_ps->ps_arena;
  /* made blank nodes are keyed with a ':', which no label holds */
  const char *key = t->tm_anon ? arena_sprintf(a, ":%s", t->tm_str) : t->tm_str;
  sp_term_t *v = sp_strmap_get(tr->tr_bvars, key);
  if (v)
    return v;
  v = tr_anon_var(tr, arena_sprintf(a, "%d", tr->tr_bseq++));
  sp_strmap_put(tr->tr_bvars, key, v);
  return v;
}

/* ---- property paths ---- */

static sp_path_t *tr_path_norm(sp_tr_t *tr, sp_path_t *p)
{
  sp_pstate_t *ps = tr->tr_ps;
  switch (p->pa_kind) {
  case SP_P_LINK:
    return p;
  case SP_P_NPS:
    if (p->pa_inv->ls_n == 0)
      return p;
    else {
      sp_path_t *inv = sp_path_new(ps, SP_P_NPS, NULL, NULL);
      inv->pa_fwd = p->pa_inv;
      sp_path_t *r = sp_path_new(ps, SP_P_INV, inv, NULL);
      if (p->pa_fwd->ls_n == 0)
        return r;
      sp_path_t *fwd = sp_path_new(ps, SP_P_NPS, NULL, NULL);
      fwd->pa_fwd = p->pa_fwd;
      return sp_path_new(ps, SP_P_ALT, fwd, r);
    }
  default: {
    sp_path_t *n = sp_path_new(ps, p->pa_kind, tr_path_norm(tr, p->pa_a),
                               p->pa_b ? tr_path_norm(tr, p->pa_b) : NULL);
    return n;
  }
  }
}

/* Appends the pieces of X P Y to ops (sp_op_t *), extending the last BGP. */
static void tr_path_emit(sp_tr_t *tr, sp_list_t *ops, sp_term_t *x, sp_path_t *p, sp_term_t *y)
{
  arena_t *a = tr->tr_ps->ps_arena;
  sp_triple_t *t = arena_zalloc(a, sizeof *t);
  if (p->pa_kind == SP_P_LINK || (p->pa_kind == SP_P_INV && p->pa_a->pa_kind == SP_P_LINK)) {
    bool inv = p->pa_kind == SP_P_INV;
    t->tr_s = inv ? y : x;
    t->tr_p = sp_iri_term(tr->tr_ps, inv ? p->pa_a->pa_iri : p->pa_iri, 0);
    t->tr_o = inv ? x : y;
    sp_op_t *last = ops->ls_n ? ops->ls_v[ops->ls_n - 1] : NULL;
    if (!last || last->op_kind != SP_OP_BGP) {
      last = op_unit(tr);
      sp_list_append(a, ops, last);
    }
    sp_list_append(a, last->op_triples, t);
    return;
  }
  if (p->pa_kind == SP_P_SEQ) {
    sp_term_t *v = tr_anon_var(tr, sp_var_fresh(tr->tr_ps)->tm_str);
    tr_path_emit(tr, ops, x, p->pa_a, v);
    tr_path_emit(tr, ops, v, p->pa_b, y);
    return;
  }
  t->tr_s = x;
  t->tr_path = p;
  t->tr_o = y;
  sp_op_t *o = op_new(tr, SP_OP_PATH, NULL, NULL);
  o->op_path = t;
  sp_list_append(a, ops, o);
}

static sp_op_t *tr_triples(sp_tr_t *tr, sp_list_t *triples)
{
  arena_t *a = tr->tr_ps->ps_arena;
  sp_list_t *ops = sp_list_new(a);
  for (int i = 0; i < triples->ls_n; i++) {
    sp_triple_t *t = triples->ls_v[i];
    sp_term_t *s = tr_term(tr, t->tr_s), *o = tr_term(tr, t->tr_o);
    if (t->tr_path) {
      tr_path_emit(tr, ops, s, tr_path_norm(tr, t->tr_path), o);
      continue;
    }
    sp_op_t *last = ops->ls_n ? ops->ls_v[ops->ls_n - 1] : NULL;
    if (!last || last->op_kind != SP_OP_BGP) {
      last = op_unit(tr);
      sp_list_append(a, ops, last);
    }
    sp_triple_t *c = arena_zalloc(a, sizeof *c);
    c->tr_s = s;
    c->tr_p = tr_term(tr, t->tr_p);
    c->tr_o = o;
    sp_list_append(a, last->op_triples, c);
  }
  if (ops->ls_n == 0)
    return op_unit(tr);
  sp_op_t *r = ops->ls_v[0];
  for (int i = 1; i < ops->ls_n; i++)
    r = op_new(tr, SP_OP_JOIN, r, ops->ls_v[i]);
  return r;
}

/* ---- expressions ---- */

static void tr_agg_key(const sp_expr_t *e, char *buf, size_t n)
{
  FILE *f = fmemopen(buf, n, "w");
  if (!f) {
    buf[0] = '\0';
    return;
  }
  sp_print_expr(f, e);
  fclose(f);
  buf[n - 1] = '\0';
}

/* A copy of e with EXISTS patterns translated and, when ag is given,
 * each aggregate replaced by its ?.N variable. */
static sp_expr_t *tr_expr(sp_tr_t *tr, sp_expr_t *e, sp_aggctx_t *ag)
{
  if (!e)
    return NULL;
  arena_t *a = tr->tr_ps->ps_arena;
  sp_expr_t *c = arena_alloc(a, sizeof *c);
  *c = *e;
  if (e->ex_kind == SP_E_EXISTS || e->ex_kind == SP_E_NOTEXISTS) {
    c->ex_op = tr_pattern(tr, e->ex_pat);
    return c;
  }
  c->ex_a = tr_expr(tr, e->ex_a, e->ex_kind == SP_E_AGG ? NULL : ag);
  c->ex_b = tr_expr(tr, e->ex_b, e->ex_kind == SP_E_AGG ? NULL : ag);
  if (e->ex_args) {
    c->ex_args = sp_list_new(a);
    for (int i = 0; i < e->ex_args->ls_n; i++)
      sp_list_append(a, c->ex_args, tr_expr(tr, e->ex_args->ls_v[i], e->ex_kind == SP_E_AGG ? NULL : ag));
  }
  if (e->ex_kind == SP_E_AGG && ag) {
    char key[2048];
    tr_agg_key(c, key, sizeof key);
    sp_term_t *v = NULL;
    for (int i = 0; i < ag->ag_keys->ls_n && !v; i++)
      if (strcmp(ag->ag_keys->ls_v[i], key) == 0)
        v = ((sp_selitem_t *)ag->ag_list->ls_v[i])->si_var;
    if (!v) {
      v = tr_anon_var(tr, arena_sprintf(a, ".%d", tr->tr_aseq++));
      sp_selitem_t *s = arena_zalloc(a, sizeof *s);
      s->si_var = v;
      s->si_expr = c;
      sp_list_append(a, ag->ag_list, s);
      sp_list_append(a, ag->ag_keys, arena_strdup(a, key));
    }
    return sp_expr_term(tr->tr_ps, v);
  }
  return c;
}

/* ---- graph patterns ---- */

/* Whether group pattern g has a FILTER among its own elements. */
static bool tr_has_own_filter(const sp_pat_t *g)
{
  if (!g || g->pt_kind != SP_G_GROUP)
    return false;
  for (int i = 0; i < g->pt_list->ls_n; i++)
    if (((const sp_pat_t *)g->pt_list->ls_v[i])->pt_kind == SP_G_FILTER)
      return true;
  return false;
}

static sp_op_t *tr_group(sp_tr_t *tr, sp_pat_t *g)
{
  arena_t *a = tr->tr_ps->ps_arena;
  sp_list_t *fs = sp_list_new(a);
  sp_op_t *G = op_unit(tr);
  for (int i = 0; i < g->pt_list->ls_n; i++) {
    sp_pat_t *e = g->pt_list->ls_v[i];
    switch (e->pt_kind) {
    case SP_G_FILTER:
      sp_list_append(a, fs, tr_expr(tr, e->pt_expr, NULL));
      break;
    case SP_G_OPTIONAL: {
      sp_op_t *A = tr_pattern(tr, e->pt_sub);
      sp_op_t *lj;
      /* Only the OPTIONAL's own group's FILTERs become the LeftJoin's
       * condition: a Filter of a nested group (OPTIONAL {{ P FILTER F }})
       * is Join(Z, Filter(F, P)) before simplification, and stays on the
       * right side (W3C dawg-optional-filter-005-not-simplified). */
      if (A->op_kind == SP_OP_FILTER && tr_has_own_filter(e->pt_sub)) {
        lj = op_new(tr, SP_OP_LEFTJOIN, G, A->op_a);
        lj->op_exprs = A->op_exprs;
      } else {
        lj = op_new(tr, SP_OP_LEFTJOIN, G, A);
        lj->op_exprs = sp_list_new(a);
      }
      G = lj;
      break;
    }
    case SP_G_MINUS:
      G = op_new(tr, SP_OP_MINUS, G, tr_pattern(tr, e->pt_sub));
      break;
    case SP_G_BIND: {
      sp_selitem_t *b = arena_zalloc(a, sizeof *b);
      b->si_var = e->pt_var;
      b->si_expr = tr_expr(tr, e->pt_expr, NULL);
      if (G->op_kind == SP_OP_EXTEND) {
        /* BIND after BIND: one Extend with both, as Jena prints them */
        sp_list_append(a, G->op_binds, b);
      } else {
        G = op_new(tr, SP_OP_EXTEND, G, NULL);
        G->op_binds = sp_list_append(a, NULL, b);
      }
      break;
    }
    default:
      G = op_join(tr, G, tr_pattern(tr, e));
      break;
    }
  }
  if (fs->ls_n) {
    sp_op_t *f = op_new(tr, SP_OP_FILTER, G, NULL);
    f->op_exprs = fs;
    G = f;
  }
  return G;
}

static sp_op_t *tr_pattern(sp_tr_t *tr, sp_pat_t *p)
{
  switch (p->pt_kind) {
  case SP_G_GROUP:
    return tr_group(tr, p);
  case SP_G_TRIPLES:
    return tr_triples(tr, p->pt_list);
  case SP_G_UNION: {
    sp_op_t *u = tr_pattern(tr, p->pt_list->ls_v[0]);
    for (int i = 1; i < p->pt_list->ls_n; i++)
      u = op_new(tr, SP_OP_UNION, u, tr_pattern(tr, p->pt_list->ls_v[i]));
    return u;
  }
  case SP_G_GRAPH:
  case SP_G_SERVICE: {
    sp_op_t *o = op_new(tr, p->pt_kind == SP_G_GRAPH ? SP_OP_GRAPH : SP_OP_SERVICE,
                        tr_pattern(tr, p->pt_sub), NULL);
    o->op_term = p->pt_name;
    o->op_silent = p->pt_silent;
    return o;
  }
  case SP_G_VALUES: {
    sp_op_t *o = op_new(tr, SP_OP_TABLE, NULL, NULL);
    o->op_values = p->pt_values;
    return o;
  }
  case SP_G_SUBSELECT:
    return op_new(tr, SP_OP_TOMULTISET, tr_query(tr, p->pt_query), NULL);
  case SP_G_OPTIONAL:
  case SP_G_MINUS:
  case SP_G_FILTER:
  case SP_G_BIND:
    break;  /* only inside a group, handled there */
  }
  return op_unit(tr);
}

/* ---- queries ---- */

static sp_op_t *tr_query(sp_tr_t *tr, sp_query_t *q)
{
  arena_t *a = tr->tr_ps->ps_arena;
  sp_op_t *P = q->qu_where ? tr_pattern(tr, q->qu_where) : op_unit(tr);
  sp_aggctx_t ag = { sp_list_new(a), sp_list_new(a) };
  /* select expressions, HAVING and ORDER BY, aggregates replaced */
  sp_list_t *sel = sp_list_new(a), *having = sp_list_new(a), *order = sp_list_new(a);
  for (int i = 0; i < q->qu_select->ls_n; i++) {
    sp_selitem_t *s = q->qu_select->ls_v[i], *c = arena_alloc(a, sizeof *c);
    *c = *s;
    c->si_expr = tr_expr(tr, s->si_expr, &ag);
    sp_list_append(a, sel, c);
  }
  for (int i = 0; q->qu_having && i < q->qu_having->ls_n; i++)
    sp_list_append(a, having, tr_expr(tr, q->qu_having->ls_v[i], &ag));
  for (int i = 0; q->qu_order && i < q->qu_order->ls_n; i++) {
    sp_order_t *o = q->qu_order->ls_v[i], *c = arena_alloc(a, sizeof *c);
    *c = *o;
    c->or_expr = tr_expr(tr, o->or_expr, &ag);
    sp_list_append(a, order, c);
  }
  if (q->qu_group || ag.ag_list->ls_n) {
    sp_op_t *g = op_new(tr, SP_OP_GROUP, P, NULL);
    g->op_binds = sp_list_new(a);
    for (int i = 0; q->qu_group && i < q->qu_group->ls_n; i++) {
      sp_selitem_t *k = q->qu_group->ls_v[i], *c = arena_alloc(a, sizeof *c);
      *c = *k;
      c->si_expr = tr_expr(tr, k->si_expr, NULL);
      sp_list_append(a, g->op_binds, c);
    }
    g->op_aggs = ag.ag_list;
    P = g;
  }
  if (having->ls_n) {
    P = op_new(tr, SP_OP_FILTER, P, NULL);
    P->op_exprs = having;
  }
  if (q->qu_values) {
    sp_op_t *t = op_new(tr, SP_OP_TABLE, NULL, NULL);
    t->op_values = q->qu_values;
    P = op_join(tr, P, t);
  }
  for (int i = 0; i < sel->ls_n; i++) {
    sp_selitem_t *s = sel->ls_v[i];
    if (!s->si_expr)
      continue;
    if (P->op_kind == SP_OP_EXTEND && i > 0 && ((sp_selitem_t *)sel->ls_v[i - 1])->si_expr)
      sp_list_append(a, P->op_binds, s);
    else {
      P = op_new(tr, SP_OP_EXTEND, P, NULL);
      P->op_binds = sp_list_append(a, NULL, s);
    }
  }
  if (order->ls_n) {
    P = op_new(tr, SP_OP_ORDER, P, NULL);
    P->op_order = order;
  }
  if (q->qu_kind == SP_Q_SELECT && !q->qu_star) {
    P = op_new(tr, SP_OP_PROJECT, P, NULL);
    P->op_vars = q->qu_vars;
  }
  if (q->qu_distinct)
    P = op_new(tr, SP_OP_DISTINCT, P, NULL);
  else if (q->qu_reduced)
    P = op_new(tr, SP_OP_REDUCED, P, NULL);
  if (q->qu_limit >= 0 || q->qu_offset >= 0) {
    P = op_new(tr, SP_OP_SLICE, P, NULL);
    P->op_start = q->qu_offset;
    P->op_length = q->qu_limit;
  }
  q->qu_op = P;
  return P;
}

/* DELETE WHERE's pattern: its quads as BGPs, GRAPH blocks as Graph. */
static sp_op_t *tr_quads_pattern(sp_tr_t *tr, sp_list_t *quads)
{
  arena_t *a = tr->tr_ps->ps_arena;
  sp_op_t *P = op_unit(tr);
  for (int i = 0; i < quads->ls_n;) {
    sp_term_t *g = ((sp_quad_t *)quads->ls_v[i])->qd_g;
    sp_list_t *run = sp_list_new(a);
    while (i < quads->ls_n && ((sp_quad_t *)quads->ls_v[i])->qd_g == g)
      sp_list_append(a, run, ((sp_quad_t *)quads->ls_v[i++])->qd_t);
    sp_op_t *b = tr_triples(tr, run);
    if (g) {
      b = op_new(tr, SP_OP_GRAPH, b, NULL);
      b->op_term = g;
    }
    P = op_join(tr, P, b);
  }
  return P;
}

int sp_translate_request(sp_pstate_t *ps, sp_request_t *rq)
{
  sp_tr_t tr;
  memset(&tr, 0, sizeof tr);
  tr.tr_ps = ps;
  tr.tr_bvars = sp_strmap_new(ps->ps_arena);
  if (!rq->rq_update) {
    tr_query(&tr, rq->rq_query);
    return ps->ps_failed ? CZ_ERR : CZ_OK;
  }
  for (int i = 0; i < rq->rq_ops->ls_n; i++) {
    sp_update_t *u = rq->rq_ops->ls_v[i];
    if (u->up_kind == SP_U_MODIFY)
      u->up_op = tr_pattern(&tr, u->up_where);
    else if (u->up_kind == SP_U_DELETE_WHERE)
      u->up_op = tr_quads_pattern(&tr, u->up_delete);
  }
  return ps->ps_failed ? CZ_ERR : CZ_OK;
}
