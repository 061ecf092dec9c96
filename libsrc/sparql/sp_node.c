/* sp_node — the syntax tree's builders, the prologue (PREFIX and BASE in
 * force), the flattening of triples written with ';', ',', [ … ] and
 * ( … ) into triple patterns, and the errors with line and column.
 *
 * Design notes: every node lives in the parse's arena. Blank nodes written
 * [] or made for [ … ] and collections are numbered per request
 * (ps_bnode_seq) and carry tm_anon; labelled ones keep their label (the
 * check that a label is not shared between basic graph patterns runs in
 * sp_check.c). Triples of nested nodes come after the triple that uses the
 * node, as Jena lists them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sparql/sparql_int.h"

sp_list_t *sp_list_new(arena_t *a)
{
  return arena_zalloc(a, sizeof(sp_list_t));
}

sp_list_t *sp_list_append(arena_t *a, sp_list_t *l, void *x)
{
  if (!l)
    l = sp_list_new(a);
  if (l->ls_n == l->ls_cap) {
    int cap = l->ls_cap ? l->ls_cap * 2 : 4;
    void **v = arena_alloc(a, sizeof(void *) * (size_t)cap);
    if (l->ls_n)
      memcpy(v, l->ls_v, sizeof(void *) * (size_t)l->ls_n);
    l->ls_v = v;
    l->ls_cap = cap;
  }
  l->ls_v[l->ls_n++] = x;
  return l;
}

sp_list_t *sp_concat(sp_pstate_t *ps, sp_list_t *a, sp_list_t *b)
{
  if (!a)
    return b;
  if (b)
    for (int i = 0; i < b->ls_n; i++)
      sp_list_append(ps->ps_arena, a, b->ls_v[i]);
  return a;
}

/* ---- errors ---- */

void sp_line_col(const sp_pstate_t *ps, int pos, int *line, int *col)
{
  int l = 1, c = 1, chars = 0;
  for (size_t i = 0; i < ps->ps_len && chars < pos - 1; i++) {
    unsigned char b = (unsigned char)ps->ps_text[i];
    if ((b & 0xC0) == 0x80)
      continue;
    chars++;
    if (b == '\n') {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  *line = l;
  *col = c;
}

static void sp_failv(sp_pstate_t *ps, const char *sqlstate, int pos, const char *fmt, va_list ap)
{
  char msg[400];
  if (ps->ps_failed)
    return;
  ps->ps_failed = true;
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (pos > 0) {
    int line, col;
    sp_line_col(ps, pos, &line, &col);
    err_set(ps->ps_err, sqlstate, "SPARQL: %s (line %d, column %d)", msg, line, col);
    if (ps->ps_err)
      ps->ps_err->er_pos = pos;
  } else {
    err_set(ps->ps_err, sqlstate, "SPARQL: %s", msg);
  }
}

void *sp_fail(sp_pstate_t *ps, int pos, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  sp_failv(ps, SQLSTATE_SYNTAX_ERROR, pos, fmt, ap);
  va_end(ap);
  return NULL;
}

void *sp_fail_state(sp_pstate_t *ps, const char *sqlstate, int pos, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  sp_failv(ps, sqlstate, pos, fmt, ap);
  va_end(ap);
  return NULL;
}

/* ---- prologue ---- */

const char *sp_iri_from_ref(sp_pstate_t *ps, const char *ref, int pos)
{
  /* an absolute IRI is kept as written: RDF compares IRIs as strings, and
   * the loaders keep the data's absolute IRIs unchanged too */
  if (sp_iri_is_absolute(ref))
    return arena_strdup(ps->ps_arena, ref);
  if (!ps->ps_base)
    return sp_fail(ps, pos, "relative IRI <%s> without a base IRI", ref);
  return sp_iri_resolve(ps->ps_arena, ps->ps_base, ref);
}

int sp_base_declare(sp_pstate_t *ps, const char *iri, int pos)
{
  const char *abs = sp_iri_from_ref(ps, iri, pos);
  if (!abs)
    return CZ_ERR;
  ps->ps_base = abs;
  return CZ_OK;
}

int sp_prefix_declare(sp_pstate_t *ps, const char *name, const char *iri, int pos)
{
  (void)pos;
  sp_prefix_t *p = arena_zalloc(ps->ps_arena, sizeof *p);
  p->pf_name = name;
  p->pf_iri = iri;
  /* a later declaration of the same prefix wins: look-ups go newest first */
  sp_list_append(ps->ps_arena, ps->ps_prefixes, p);
  return CZ_OK;
}

const char *sp_iri_from_pname(sp_pstate_t *ps, sp_pname_t pn, int pos)
{
  for (int i = ps->ps_prefixes->ls_n - 1; i >= 0; i--) {
    sp_prefix_t *p = ps->ps_prefixes->ls_v[i];
    if (strcmp(p->pf_name, pn.pn_prefix) == 0)
      return arena_sprintf(ps->ps_arena, "%s%s", p->pf_iri, pn.pn_local);
  }
  return sp_fail(ps, pos, "undefined prefix \"%s:\"", pn.pn_prefix);
}

/* ---- terms ---- */

sp_term_t *sp_term_new(sp_pstate_t *ps, sp_term_kind_t k, const char *s, int pos)
{
  sp_term_t *t = arena_zalloc(ps->ps_arena, sizeof *t);
  t->tm_kind = k;
  t->tm_str = s;
  t->tm_pos = pos;
  return t;
}

sp_term_t *sp_iri_term(sp_pstate_t *ps, const char *iri, int pos)
{
  return sp_term_new(ps, SP_T_IRI, iri, pos);
}

sp_term_t *sp_bnode_fresh(sp_pstate_t *ps, int pos)
{
  sp_term_t *t = sp_term_new(ps, SP_T_BNODE, arena_sprintf(ps->ps_arena, "b%d", ps->ps_bnode_seq++), pos);
  t->tm_anon = true;
  return t;
}

sp_term_t *sp_var_fresh(sp_pstate_t *ps)
{
  sp_term_t *t = sp_term_new(ps, SP_T_VAR, arena_sprintf(ps->ps_arena, "P%d", ps->ps_var_seq++), 0);
  t->tm_anon = true;
  return t;
}

/* ---- expressions ---- */

sp_expr_t *sp_expr_new(sp_pstate_t *ps, sp_expr_kind_t k, int pos)
{
  sp_expr_t *e = arena_zalloc(ps->ps_arena, sizeof *e);
  e->ex_kind = k;
  e->ex_pos = pos;
  return e;
}

void sp_expr_depth(sp_pstate_t *ps, sp_expr_t *e)
{
  int d = 0;
  if (e->ex_a && e->ex_a->ex_depth > d)
    d = e->ex_a->ex_depth;
  if (e->ex_b && e->ex_b->ex_depth > d)
    d = e->ex_b->ex_depth;
  for (int i = 0; e->ex_args && i < e->ex_args->ls_n; i++)
    if (((sp_expr_t *)e->ex_args->ls_v[i])->ex_depth > d)
      d = ((sp_expr_t *)e->ex_args->ls_v[i])->ex_depth;
  e->ex_depth = d + 1;
  /* the parse goes on but fails at its end (sp_parse checks ps_failed) */
  if (e->ex_depth > SP_MAX_DEPTH)
    sp_fail_state(ps, SQLSTATE_STATEMENT_TOO_COMPLEX, e->ex_pos, "expression nested more than %d deep",
                  SP_MAX_DEPTH);
}

sp_expr_t *sp_expr_bin(sp_pstate_t *ps, sp_expr_kind_t k, sp_expr_t *a, sp_expr_t *b, int pos)
{
  sp_expr_t *e = sp_expr_new(ps, k, pos);
  e->ex_a = a;
  e->ex_b = b;
  sp_expr_depth(ps, e);
  return e;
}

sp_expr_t *sp_expr_term(sp_pstate_t *ps, sp_term_t *t)
{
  sp_expr_t *e = sp_expr_new(ps, SP_E_TERM, t->tm_pos);
  e->ex_term = t;
  return e;
}

sp_expr_t *sp_expr_builtin(sp_pstate_t *ps, const char *name, sp_list_t *args, int pos)
{
  int min, max;
  if (!sp_builtin_arity(name, &min, &max))
    return sp_fail(ps, pos, "%s is an aggregate, not a function here", name);
  if (args->ls_n < min || (max >= 0 && args->ls_n > max)) {
    if (min == max)
      return sp_fail(ps, pos, "%s takes %d argument%s, not %d", name, min, min == 1 ? "" : "s", args->ls_n);
    return sp_fail(ps, pos, "%s takes %d to %d arguments, not %d", name, min, max, args->ls_n);
  }
  if (strcmp(name, "bound") == 0) {
    sp_expr_t *a = args->ls_v[0];
    if (a->ex_kind != SP_E_TERM || a->ex_term->tm_kind != SP_T_VAR)
      return sp_fail(ps, pos, "BOUND takes a variable");
  }
  sp_expr_t *e = sp_expr_new(ps, SP_E_BUILTIN, pos);
  e->ex_name = name;
  e->ex_args = args;
  sp_expr_depth(ps, e);
  return e;
}

/* ---- patterns ---- */

sp_pat_t *sp_pat_new(sp_pstate_t *ps, sp_pat_kind_t k, int pos)
{
  sp_pat_t *p = arena_zalloc(ps->ps_arena, sizeof *p);
  p->pt_kind = k;
  p->pt_pos = pos;
  return p;
}

sp_path_t *sp_path_new(sp_pstate_t *ps, sp_path_kind_t k, sp_path_t *a, sp_path_t *b)
{
  sp_path_t *p = arena_zalloc(ps->ps_arena, sizeof *p);
  p->pa_kind = k;
  p->pa_a = a;
  p->pa_b = b;
  p->pa_depth = 1 + CZ_MAX(a ? a->pa_depth : 0, b ? b->pa_depth : 0);
  if (p->pa_depth > SP_MAX_DEPTH)
    sp_fail_state(ps, SQLSTATE_STATEMENT_TOO_COMPLEX, 0, "property path nested more than %d deep", SP_MAX_DEPTH);
  if (k == SP_P_NPS) {
    p->pa_fwd = sp_list_new(ps->ps_arena);
    p->pa_inv = sp_list_new(ps->ps_arena);
  }
  return p;
}

sp_path_t *sp_path_link(sp_pstate_t *ps, const char *iri)
{
  sp_path_t *p = sp_path_new(ps, SP_P_LINK, NULL, NULL);
  p->pa_iri = iri;
  return p;
}

sp_node_t *sp_node_term(sp_pstate_t *ps, sp_term_t *t)
{
  sp_node_t *n = arena_zalloc(ps->ps_arena, sizeof *n);
  n->nd_term = t;
  return n;
}

static sp_triple_t *sp_triple_new(sp_pstate_t *ps, sp_term_t *s, sp_term_t *p, sp_path_t *path,
                                  sp_term_t *o)
{
  sp_triple_t *t = arena_zalloc(ps->ps_arena, sizeof *t);
  t->tr_s = s;
  t->tr_o = o;
  if (path && path->pa_kind == SP_P_LINK)
    t->tr_p = sp_iri_term(ps, path->pa_iri, 0);
  else if (path)
    t->tr_path = path;
  else
    t->tr_p = p;
  return t;
}

sp_list_t *sp_triples_of(sp_pstate_t *ps, sp_node_t *s, sp_list_t *plist)
{
  sp_list_t *out = sp_list_new(ps->ps_arena);
  sp_concat(ps, out, s->nd_triples);
  if (plist)
    for (int i = 0; i < plist->ls_n; i++) {
      sp_verbobj_t *vo = plist->ls_v[i];
      for (int j = 0; j < vo->vo_objs->ls_n; j++) {
        sp_node_t *o = vo->vo_objs->ls_v[j];
        sp_list_append(ps->ps_arena, out, sp_triple_new(ps, s->nd_term, vo->vo_var, vo->vo_path, o->nd_term));
        sp_concat(ps, out, o->nd_triples);
      }
    }
  return out;
}

sp_node_t *sp_node_bnode_plist(sp_pstate_t *ps, sp_list_t *plist, int pos)
{
  sp_node_t *n = sp_node_term(ps, sp_bnode_fresh(ps, pos));
  n->nd_triples = sp_triples_of(ps, n, plist);
  return n;
}

sp_node_t *sp_node_collection(sp_pstate_t *ps, sp_list_t *nodes, int pos)
{
  sp_node_t *head = sp_node_term(ps, NULL);
  sp_list_t *tr = sp_list_new(ps->ps_arena);
  sp_term_t *prev = NULL;
  sp_path_t *first = sp_path_link(ps, RDF_NS "first");
  sp_path_t *rest = sp_path_link(ps, RDF_NS "rest");
  for (int i = 0; i < nodes->ls_n; i++) {
    sp_node_t *m = nodes->ls_v[i];
    sp_term_t *cell = sp_bnode_fresh(ps, pos);
    if (prev)
      sp_list_append(ps->ps_arena, tr, sp_triple_new(ps, prev, NULL, rest, cell));
    else
      head->nd_term = cell;
    sp_list_append(ps->ps_arena, tr, sp_triple_new(ps, cell, NULL, first, m->nd_term));
    sp_concat(ps, tr, m->nd_triples);
    prev = cell;
  }
  sp_list_append(ps->ps_arena, tr, sp_triple_new(ps, prev, NULL, rest, sp_iri_term(ps, RDF_NS "nil", pos)));
  head->nd_triples = tr;
  return head;
}

sp_list_t *sp_quads_of(sp_pstate_t *ps, sp_list_t *triples, sp_term_t *g, sp_list_t *into)
{
  if (!into)
    into = sp_list_new(ps->ps_arena);
  if (triples)
    for (int i = 0; i < triples->ls_n; i++) {
      sp_quad_t *q = arena_zalloc(ps->ps_arena, sizeof *q);
      q->qd_g = g;
      q->qd_t = triples->ls_v[i];
      sp_list_append(ps->ps_arena, into, q);
    }
  return into;
}

/* ---- queries and updates ---- */

sp_query_t *sp_query_new(sp_pstate_t *ps, sp_query_kind_t k, int pos)
{
  sp_query_t *q = arena_zalloc(ps->ps_arena, sizeof *q);
  q->qu_kind = k;
  q->qu_select = sp_list_new(ps->ps_arena);
  q->qu_limit = -1;
  q->qu_offset = -1;
  q->qu_pos = pos;
  return q;
}

sp_update_t *sp_update_new(sp_pstate_t *ps, sp_update_kind_t k, int pos)
{
  sp_update_t *u = arena_zalloc(ps->ps_arena, sizeof *u);
  u->up_kind = k;
  u->up_pos = pos;
  return u;
}
