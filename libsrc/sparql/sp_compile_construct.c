/* sp_compile_construct — CONSTRUCT and DESCRIBE as SQL: the result graph
 * as rows (s, p, o) of N-Triples text, each triple once.
 *
 * Design notes:
 * - CONSTRUCT (§16.2): the WHERE's solutions (with ORDER BY, LIMIT and
 *   OFFSET) are read once and crossed with the template's triple numbers
 *   (a VALUES list); per number a CASE picks the triple's terms: a
 *   variable's value by rdf_term(id), a constant's N-Triples text made at
 *   compile time, a blank node a label fresh per solution
 *   (`_:cz<solution number>_<template label number>`, the solution number
 *   from row_number() over the solutions). A triple whose subject is
 *   unbound or a literal, whose predicate is not an IRI, or whose object
 *   is unbound is left out (§16.2.1); SELECT DISTINCT removes the
 *   duplicates of the graph.
 * - DESCRIBE (§16.4 leaves the description to the service): the
 *   **subject triples** of each resource — every triple of the default
 *   graph (the dataset's, as for patterns) whose subject is the resource;
 *   no blank-node closure (not a Concise Bounded Description). The
 *   resources: the IRIs named, and the values of the variables named (of
 *   every variable in scope for `DESCRIBE *`) in the WHERE's solutions,
 *   read through the (s, p) projection and then rdf_quad by key. */
#include <string.h>

#include "sparql/sp_compile_int.h"

/* A template position: 0 subject, 1 predicate, 2 object. */
typedef struct ct_term_s {
  char *tt_text;    /* its N-Triples text as SQL */
  char *tt_valid;   /* when the position holds a valid term, as SQL; NULL: never */
} ct_term_t;

/* The blank node labels of the template, each numbered once. */
typedef struct ct_labels_s {
  const char **lb_v;
  int lb_n, lb_cap;
} ct_labels_t;

static int ct_label(cp_t *c, ct_labels_t *l, const char *label)
{
  for (int i = 0; i < l->lb_n; i++)
    if (strcmp(l->lb_v[i], label) == 0)
      return i;
  if (l->lb_n == l->lb_cap) {
    int cap = l->lb_cap ? l->lb_cap * 2 : 8;
    const char **v = arena_alloc(c->cp_a, sizeof(char *) * (size_t)cap);
    if (l->lb_n)
      memcpy(v, l->lb_v, sizeof(char *) * (size_t)l->lb_n);
    l->lb_v = v;
    l->lb_cap = cap;
  }
  l->lb_v[l->lb_n] = label;
  return l->lb_n++;
}

static void ct_term(cp_t *c, const sp_term_t *t, int pos, const cp_rel_t *r, const char *w, ct_labels_t *l,
                    ct_term_t *out)
{
  out->tt_text = out->tt_valid = NULL;
  switch (t->tm_kind) {
  case SP_T_VAR: {
    int i = cp_find(r, cp_vname(c, t));
    if (i < 0)
      return; /* never bound */
    char *col = cp_col(c, w, r->cr_v[i].cv_name);
    if (r->cr_v[i].cv_count) {
      /* an aggregate's count: an xsd:integer, an object only */
      out->tt_text = arena_sprintf(c->cp_a, "'\"' || CAST(%s AS text) || '\"^^" CP_XSD_INTEGER "'", col);
      out->tt_valid = pos == 2 ? arena_sprintf(c->cp_a, "%s IS NOT NULL", col) : NULL;
      return;
    }
    if (r->cr_v[i].cv_text) {
      /* a computed term, already N-Triples text: its first characters say
       * what kind of term it is */
      out->tt_text = col;
      out->tt_valid = pos == 0   ? arena_sprintf(c->cp_a, "(left(%1$s, 1) = '<' OR left(%1$s, 2) = '_:')", col)
                      : pos == 1 ? arena_sprintf(c->cp_a, "left(%s, 1) = '<'", col)
                                 : arena_sprintf(c->cp_a, "%s IS NOT NULL", col);
      return;
    }
    out->tt_text = arena_sprintf(c->cp_a, "rdf_term(%s)", col);
    out->tt_valid = pos == 0   ? arena_sprintf(c->cp_a, "%s >= " CP_BNODE_LO " AND %s < " CP_LIT_LO, col, col)
                    : pos == 1 ? arena_sprintf(c->cp_a, "%s >= " CP_IRI_LO " AND %s < " CP_LIT_LO, col, col)
                               : arena_sprintf(c->cp_a, "%s IS NOT NULL", col);
    return;
  }
  case SP_T_IRI: {
    rdf_term_t iri = rdf_iri(t->tm_str);
    out->tt_text = sp_sql_quote(c->cp_a, rdf_term_ntriples(&iri, c->cp_a));
    out->tt_valid = arena_strdup(c->cp_a, "TRUE");
    return;
  }
  case SP_T_LIT: {
    const char *dt = t->tm_dt && strcmp(t->tm_dt, RDF_XSD_STRING) == 0 ? NULL : t->tm_dt;
    rdf_term_t lit = rdf_literal(t->tm_str, dt, t->tm_lang);
    out->tt_text = sp_sql_quote(c->cp_a, rdf_term_ntriples(&lit, c->cp_a));
    out->tt_valid = pos == 2 ? arena_strdup(c->cp_a, "TRUE") : NULL;
    return;
  }
  case SP_T_BNODE:
    out->tt_text = arena_sprintf(c->cp_a, "'_:cz' || CAST(%s.\"?row\" AS text) || '_%d'", w,
                                 ct_label(c, l, t->tm_str));
    out->tt_valid = pos != 1 ? arena_strdup(c->cp_a, "TRUE") : NULL;
    return;
  }
}

static bool ct_has_bnode(const sp_list_t *tmpl)
{
  for (int i = 0; i < tmpl->ls_n; i++) {
    const sp_triple_t *t = tmpl->ls_v[i];
    if (t->tr_s->tm_kind == SP_T_BNODE || t->tr_p->tm_kind == SP_T_BNODE || t->tr_o->tm_kind == SP_T_BNODE)
      return true;
  }
  return false;
}

static char *ct_empty(cp_t *c)
{
  return arena_strdup(c->cp_a, "SELECT CAST(NULL AS text) AS s, CAST(NULL AS text) AS p, CAST(NULL AS text) AS o"
                               " WHERE 1 = 0");
}

static char *ct_construct(cp_t *c, const sp_query_t *q)
{
  cp_rel_t r;
  if (cp_op(c, q->qu_op, &r) != CZ_OK)
    return NULL;
  char *w = cp_fresh(c, "w"), *k = cp_fresh(c, "k");
  char *sols = arena_sprintf(c->cp_a, "(%s) %s", r.cr_sql, w);
  if (ct_has_bnode(q->qu_template)) {
    /* number the solutions, for fresh blank nodes per solution */
    char *n = cp_fresh(c, "n");
    sols = arena_sprintf(c->cp_a, "(SELECT %s%srow_number() OVER () AS \"?row\" FROM (%s) %s) %s",
                         r.cr_n ? cp_passthrough(c, &r, n) : "", r.cr_n ? ", " : "", r.cr_sql, n, w);
  }
  ct_labels_t labels = {0};
  char *cs[3] = {NULL, NULL, NULL}, *valid = NULL, *nums = NULL;
  int nt = 0;
  for (int i = 0; i < q->qu_template->ls_n; i++) {
    const sp_triple_t *t = q->qu_template->ls_v[i];
    ct_term_t tt[3];
    ct_term(c, t->tr_s, 0, &r, w, &labels, &tt[0]);
    ct_term(c, t->tr_p, 1, &r, w, &labels, &tt[1]);
    ct_term(c, t->tr_o, 2, &r, w, &labels, &tt[2]);
    if (!tt[0].tt_valid || !tt[1].tt_valid || !tt[2].tt_valid)
      continue; /* never a valid triple */
    nt++;
    for (int j = 0; j < 3; j++)
      cs[j] = cp_cat(c, cs[j], " ", arena_sprintf(c->cp_a, "WHEN %d THEN %s", nt, tt[j].tt_text));
    valid = cp_cat(c, valid, " ",
                   arena_sprintf(c->cp_a, "WHEN %d THEN %s AND %s AND %s", nt, tt[0].tt_valid, tt[1].tt_valid,
                                 tt[2].tt_valid));
    nums = cp_cat(c, nums, ", ", arena_sprintf(c->cp_a, "(%d)", nt));
  }
  if (!nt)
    return ct_empty(c);
  return arena_sprintf(c->cp_a,
                       "SELECT DISTINCT CASE %1$s.i %2$s END AS s, CASE %1$s.i %3$s END AS p, CASE %1$s.i %4$s END AS o"
                       " FROM %5$s, (VALUES %6$s) AS %1$s(i) WHERE CASE %1$s.i %7$s ELSE FALSE END",
                       k, cs[0], cs[1], cs[2], sols, nums, valid);
}

static char *ct_describe(cp_t *c, const sp_query_t *q)
{
  const sp_list_t *targets = q->qu_star ? q->qu_vars : q->qu_describe;
  char *res = NULL;
  cp_rel_t r = {0};
  bool have_sols = false;
  for (int i = 0; targets && i < targets->ls_n; i++) {
    const sp_term_t *t = targets->ls_v[i];
    char *one;
    if (t->tm_kind == SP_T_VAR) {
      if (!have_sols) {
        if (cp_op(c, q->qu_op, &r) != CZ_OK)
          return NULL;
        have_sols = true;
      }
      int j = cp_find(&r, cp_vname(c, t));
      if (j < 0 || r.cr_v[j].cv_count)
        continue; /* never bound, or a count (a literal: no triples) */
      if (r.cr_v[j].cv_text)
      {
        /* a computed term (BIND, VALUES) is text, and the description
         * is looked up by id */
        cp_unsupported(c, "DESCRIBE of a computed term");
        return NULL;
      }
      char *x = cp_fresh(c, "x");
      one = arena_sprintf(c->cp_a, "SELECT %s AS r FROM (%s) %s", cp_col(c, x, r.cr_v[j].cv_name), r.cr_sql, x);
    } else {
      char *id = sp_sql_term_id(c->cp_a, t, c->cp_e);
      if (!id)
        return NULL;
      one = arena_sprintf(c->cp_a, "SELECT %s AS r", id);
    }
    char *u = cp_fresh(c, "u");
    res = cp_cat(c, res, " UNION ALL ", arena_sprintf(c->cp_a, "SELECT %s.r AS r FROM (%s) %s", u, one, u));
  }
  if (!res)
    return ct_empty(c);
  char *qa = cp_fresh(c, "q"), *ja = cp_fresh(c, "j"), *da = cp_fresh(c, "d");
  char *g = NULL;
  if (c->cp_dataset)
    g = c->cp_default_in ? arena_sprintf(c->cp_a, " AND %s.g IN %s", qa, c->cp_default_in)
                         : arena_strdup(c->cp_a, " AND 1 = 0");
  /* Each resource's predicates from the (s, p) projection, then its quads
   * by key (p, s): a few lookups per resource, where `s IN (…)` scanned
   * every quad (no index leads with s). The projection may hold pairs of
   * deleted quads; the join with rdf_quad drops them. */
  return arena_sprintf(c->cp_a,
                       "SELECT DISTINCT rdf_term(%1$s.s) AS s, rdf_term(%1$s.p) AS p, rdf_term(%1$s.o) AS o"
                       " FROM (%2$s) %5$s, " RDF_SCHEMA ".rdf_quad_sp %4$s, " RDF_SCHEMA ".rdf_quad %1$s"
                       " WHERE %4$s.s = %5$s.r AND %1$s.s = %4$s.s AND %1$s.p = %4$s.p%3$s",
                       qa, res, g ? g : "", ja, da);
}

char *cp_graph_query(cp_t *c, const sp_query_t *q)
{
  return q->qu_kind == SP_Q_CONSTRUCT ? ct_construct(c, q) : ct_describe(c, q);
}
