/* sp_compile_path — property path patterns (spec §9, §18.4) as SQL: a
 * path is compiled to the relation of the node pairs (a, b) it connects
 * in the graph in force (and the graph, g, under GRAPH ?var), then the
 * pattern's ends are conditions on or bindings of a and b.
 *
 * Design notes:
 * - Counting follows §18.4: a link, an inverse, a sequence (a join on
 *   the middle node) and an alternative (UNION ALL) keep duplicates;
 *   `*`, `+` and `?` give each pair once.
 * - `*` and `+` run on the executor's Transitive Closure operator through
 *   SQL's transitive(edges, start, stop, min) in FROM
 *   (sql/sql_bind_transitive.c): a breadth-first search from the given
 *   end, a reachability test with both, the closure from every node with
 *   neither. The ends reach the operator when the path is the pattern's
 *   own (constants of the triple, passed down through inverse, sequence
 *   and alternative as restrictions of a and b).
 * - Zero-length paths: an end that is a constant is paired with itself
 *   (even when the graph does not hold it, §18.4's ALP); with two
 *   variable ends every node of the graph in force (subject or object of
 *   one of its triples) is.
 * - A path inside GRAPH ?g pairs nodes of one graph at a time (g joins
 *   the steps); `*` and `+` there run the operator once per graph of the
 *   dataset (LATERAL), over that graph's edges.
 * - A `*` or `+` pattern joined after (or, inner, before) a pattern that
 *   binds one of its variable ends certainly (cp_path_seeded, from
 *   cp_join) searches from that pattern's distinct values only — the
 *   operator's roots input — instead of from every node: forward from
 *   the subject's, else backward (the edges reversed) from the object's.
 *   `*` adds the roots that are nodes of the graph paired with themselves.
 *   That pattern becomes a WITH query the join and the roots both read
 *   (computed once: a CTE Scan), so chained paths do not repeat it.
 * - A constant unknown to the dictionaries has no id: its links match
 *   nothing, and its zero-length pair cannot be returned (documented). */
#include <string.h>

#include "sparql/sp_compile_int.h"

/* The graph condition of quad alias q for the graph in force, or NULL. */
static char *pa_graph_cond(cp_t *c, const char *q)
{
  char *g = arena_sprintf(c->cp_a, "%s.g", q);
  if (c->cp_gkind == CP_G_DEFAULT) {
    if (!c->cp_dataset)
      return NULL;
    return c->cp_default_in ? arena_sprintf(c->cp_a, "%s IN %s", g, c->cp_default_in)
                            : arena_strdup(c->cp_a, "1 = 0");
  }
  char *named = c->cp_dataset && !c->cp_named_all ? (c->cp_named_in ? arena_sprintf(c->cp_a, "%s IN %s", g, c->cp_named_in)
                                                : arena_strdup(c->cp_a, "1 = 0"))
                              : arena_sprintf(c->cp_a, "%s <> 0", g);
  if (c->cp_gkind == CP_G_CONST) {
    char *id = sp_sql_term_id(c->cp_a, c->cp_gterm, c->cp_e);
    if (!id)
      return NULL;
    named = arena_sprintf(c->cp_a, "%s AND %s = %s", named, g, id);
  }
  return named;
}

static bool pa_gvar(const cp_t *c)
{
  return c->cp_gkind == CP_G_VAR;
}

/* ", q.g AS g" under GRAPH ?var, else "". */
static char *pa_gcol(cp_t *c, const char *alias)
{
  return pa_gvar(c) ? arena_sprintf(c->cp_a, ", %s.g AS g", alias) : arena_strdup(c->cp_a, "");
}

/* A quad alias's conditions: the graph in force and the ends given. */
static char *pa_quad_where(cp_t *c, const char *q, const char *pred, const char *start, const char *stop)
{
  char *w = arena_strdup(c->cp_a, pred);
  char *g = pa_graph_cond(c, q);
  if (g)
    w = cp_cat(c, w, " AND ", g);
  if (start)
    w = cp_cat(c, w, " AND ", arena_sprintf(c->cp_a, "%s.s = %s", q, start));
  if (stop)
    w = cp_cat(c, w, " AND ", arena_sprintf(c->cp_a, "%s.o = %s", q, stop));
  return w;
}

/* The zero-length pairs: (end, end) for a given end, else (n, n) for
 * every node of the graph in force. */
static char *pa_zero(cp_t *c, const char *start, const char *stop)
{
  const char *end = start ? start : stop;
  if (end && !pa_gvar(c))
    return arena_sprintf(c->cp_a, "SELECT %s AS a, %s AS b", end, end);
  char *q1 = cp_fresh(c, "q"), *q2 = cp_fresh(c, "q"), *z = cp_fresh(c, "z");
  char *w1 = pa_graph_cond(c, q1), *w2 = pa_graph_cond(c, q2);
  if (!err_is(c->cp_e, SQLSTATE_SUCCESSFUL_COMPLETION))
    return NULL;
  if (end) {
    /* one pair per named graph */
    return arena_sprintf(c->cp_a, "SELECT %s AS a, %s AS b, %s.g AS g FROM (SELECT DISTINCT %s.g AS g FROM "
                         RDF_SCHEMA ".rdf_quad %s%s%s) %s",
                         end, end, z, q1, q1, w1 ? " WHERE " : "", w1 ? w1 : "", z);
  }
  return arena_sprintf(c->cp_a,
                       "SELECT %1$s.n AS a, %1$s.n AS b%2$s FROM (SELECT %3$s.s AS n%4$s FROM " RDF_SCHEMA
                       ".rdf_quad %3$s%5$s%6$s UNION SELECT %7$s.o AS n%8$s FROM " RDF_SCHEMA
                       ".rdf_quad %7$s%9$s%10$s) %1$s",
                       z, pa_gvar(c) ? arena_sprintf(c->cp_a, ", %s.g AS g", z) : "", q1,
                       pa_gvar(c) ? arena_sprintf(c->cp_a, ", %s.g AS g", q1) : "", w1 ? " WHERE " : "",
                       w1 ? w1 : "", q2, pa_gvar(c) ? arena_sprintf(c->cp_a, ", %s.g AS g", q2) : "",
                       w2 ? " WHERE " : "", w2 ? w2 : "");
}

static const char *pa_cols(const cp_t *c)
{
  return pa_gvar(c) ? "a, b, g" : "a, b";
}

/* The pairs of path p as SQL (columns a, b, and g under GRAPH ?var),
 * restricted where it helps to a = start and b = stop (SQL id
 * expressions, NULL: not given; the pattern applies them again). */
static int pa_pairs(cp_t *c, const sp_path_t *p, const char *start, const char *stop, char **out)
{
  switch (p->pa_kind) {
  case SP_P_LINK: {
    sp_term_t t = {.tm_kind = SP_T_IRI, .tm_str = p->pa_iri};
    char *inl, *kq = sp_sql_term_query(c->cp_a, &t, &inl, c->cp_e);
    if (!kq)
      return CZ_ERR;
    char *q = cp_fresh(c, "q"), *k = cp_fresh(c, "k");
    char *w = pa_quad_where(c, q, arena_sprintf(c->cp_a, "%s.p = %s.id", q, k), start, stop);
    if (!err_is(c->cp_e, SQLSTATE_SUCCESSFUL_COMPLETION))
      return CZ_ERR;
    *out = arena_sprintf(c->cp_a, "SELECT %s.s AS a, %s.o AS b%s FROM (%s) %s, " RDF_SCHEMA ".rdf_quad %s WHERE %s",
                         q, q, pa_gcol(c, q), kq, k, q, w);
    return CZ_OK;
  }
  case SP_P_NPS: {
    /* !(p1 | … ): every triple whose predicate is none of them (an
     * unknown IRI excludes nothing: its id is 0, no predicate's) */
    char *q = cp_fresh(c, "q");
    char *pred = arena_strdup(c->cp_a, "1 = 1");
    for (int i = 0; p->pa_fwd && i < p->pa_fwd->ls_n; i++) {
      sp_term_t t = {.tm_kind = SP_T_IRI, .tm_str = p->pa_fwd->ls_v[i]};
      char *id = sp_sql_term_id(c->cp_a, &t, c->cp_e);
      if (!id)
        return CZ_ERR;
      pred = cp_cat(c, pred, " AND ", arena_sprintf(c->cp_a, "%s.p <> %s", q, id));
    }
    if (p->pa_inv && p->pa_inv->ls_n)
      return cp_unsupported(c, "negated property sets with inverse members left by the translation");
    char *w = pa_quad_where(c, q, pred, start, stop);
    if (!err_is(c->cp_e, SQLSTATE_SUCCESSFUL_COMPLETION))
      return CZ_ERR;
    *out = arena_sprintf(c->cp_a, "SELECT %s.s AS a, %s.o AS b%s FROM " RDF_SCHEMA ".rdf_quad %s WHERE %s", q, q,
                         pa_gcol(c, q), q, w);
    return CZ_OK;
  }
  case SP_P_INV: {
    char *in;
    if (pa_pairs(c, p->pa_a, stop, start, &in) != CZ_OK)
      return CZ_ERR;
    char *x = cp_fresh(c, "p");
    *out = arena_sprintf(c->cp_a, "SELECT %s.b AS a, %s.a AS b%s FROM (%s) %s", x, x, pa_gcol(c, x), in, x);
    return CZ_OK;
  }
  case SP_P_SEQ: {
    char *l, *r;
    if (pa_pairs(c, p->pa_a, start, NULL, &l) != CZ_OK || pa_pairs(c, p->pa_b, NULL, stop, &r) != CZ_OK)
      return CZ_ERR;
    char *x = cp_fresh(c, "p"), *y = cp_fresh(c, "p");
    *out = arena_sprintf(c->cp_a, "SELECT %s.a AS a, %s.b AS b%s FROM (%s) %s JOIN (%s) %s ON %s.b = %s.a%s", x, y,
                         pa_gcol(c, x), l, x, r, y, x, y,
                         pa_gvar(c) ? arena_sprintf(c->cp_a, " AND %s.g = %s.g", x, y) : "");
    return CZ_OK;
  }
  case SP_P_ALT: {
    char *l, *r;
    if (pa_pairs(c, p->pa_a, start, stop, &l) != CZ_OK || pa_pairs(c, p->pa_b, start, stop, &r) != CZ_OK)
      return CZ_ERR;
    char *x = cp_fresh(c, "p"), *y = cp_fresh(c, "p");
    *out = arena_sprintf(c->cp_a, "SELECT %s FROM (%s) %s UNION ALL SELECT %s FROM (%s) %s", pa_cols(c), l, x,
                         pa_cols(c), r, y);
    return CZ_OK;
  }
  case SP_P_OPT: {
    char *in, *zero = pa_zero(c, start, stop);
    if (!zero || pa_pairs(c, p->pa_a, start, stop, &in) != CZ_OK)
      return CZ_ERR;
    char *x = cp_fresh(c, "p"), *y = cp_fresh(c, "p");
    *out = arena_sprintf(c->cp_a, "SELECT %s FROM (%s) %s UNION SELECT %s FROM (%s) %s", pa_cols(c), zero, x,
                         pa_cols(c), in, y);
    return CZ_OK;
  }
  case SP_P_STAR:
  case SP_P_PLUS: {
    char *in;
    if (pa_pairs(c, p->pa_a, NULL, NULL, &in) != CZ_OK)
      return CZ_ERR;
    bool star = p->pa_kind == SP_P_STAR;
    char *t = cp_fresh(c, "t");
    const char *from = start ? start : "CAST(NULL AS int8)", *to = stop ? stop : "CAST(NULL AS int8)";
    char *closure;
    if (!pa_gvar(c)) {
      closure = arena_sprintf(c->cp_a, "SELECT %s.a AS a, %s.b AS b FROM transitive((%s), %s, %s, %d) AS %s(a, b)",
                              t, t, in, from, to, star ? 0 : 1, t);
    } else {
      /* GRAPH ?g: one closure per graph of the dataset, over its edges
       * (the operator run once per graph, LATERAL) */
      char *q = cp_fresh(c, "q"), *gg = cp_fresh(c, "gg"), *e = cp_fresh(c, "e");
      char *w = pa_graph_cond(c, q);
      if (!w)
        return CZ_ERR;
      closure = arena_sprintf(c->cp_a,
                              "SELECT %1$s.a AS a, %1$s.b AS b, %2$s.g AS g FROM (SELECT DISTINCT %3$s.g AS g FROM "
                              RDF_SCHEMA ".rdf_quad %3$s WHERE %4$s) %2$s, LATERAL transitive((SELECT %5$s.a, %5$s.b"
                              " FROM (%6$s) %5$s WHERE %5$s.g = %2$s.g), %7$s, %8$s, %9$d) AS %1$s(a, b)",
                              t, gg, q, w, e, in, from, to, star ? 0 : 1);
    }
    if (!star || start || stop) {
      *out = closure;
      return CZ_OK;
    }
    /* p* between two variables: every node of the graph with itself too */
    char *zero = pa_zero(c, NULL, NULL);
    if (!zero)
      return CZ_ERR;
    char *x = cp_fresh(c, "p"), *y = cp_fresh(c, "p");
    *out = arena_sprintf(c->cp_a, "SELECT %s FROM (%s) %s UNION SELECT %s FROM (%s) %s", pa_cols(c), closure, x,
                         pa_cols(c), zero, y);
    return CZ_OK;
  }
  }
  return cp_unsupported(c, "this property path");
}

/* A constant end as an id expression: NULL (no row) when unknown. */
static int pa_end(cp_t *c, const sp_term_t *t, char **out)
{
  *out = NULL;
  if (t->tm_kind == SP_T_VAR)
    return CZ_OK;
  if (t->tm_kind == SP_T_BNODE)
    return cp_unsupported(c, "blank node constants in patterns");
  char *inl, *q = sp_sql_term_query(c->cp_a, t, &inl, c->cp_e);
  if (inl) {
    *out = inl;
    return CZ_OK;
  }
  if (!q)
    return CZ_ERR;
  *out = arena_sprintf(c->cp_a, "(%s)", q);
  return CZ_OK;
}

/* Binds variable t to column col of r, or compares it with its first
 * column when already bound. */
static void pa_bind(cp_t *c, const sp_term_t *t, char *col, cp_rel_t *r, char **ex, char **where)
{
  const char *name = cp_vname(c, t);
  int i = cp_find(r, name);
  if (i >= 0) {
    *where = cp_cat(c, *where, " AND ", arena_sprintf(c->cp_a, "%s = %s", col, ex[i]));
    return;
  }
  r->cr_v[r->cr_n] = (cp_var_t){.cv_name = name};
  ex[r->cr_n++] = col;
}

/* The pattern over the pairs: constant ends as conditions, variables
 * bound to a and b (and g under GRAPH ?var). */
static int pa_pattern(cp_t *c, const sp_triple_t *t, const char *start, const char *stop, const char *pairs,
                      cp_rel_t *out)
{
  char *p = cp_fresh(c, "pp");
  cp_rel_init(c, out, 3);
  char *ex[3];
  char *where = NULL;
  if (start)
    where = cp_cat(c, where, " AND ", arena_sprintf(c->cp_a, "%s.a = %s", p, start));
  else
    pa_bind(c, t->tr_s, arena_sprintf(c->cp_a, "%s.a", p), out, ex, &where);
  if (stop)
    where = cp_cat(c, where, " AND ", arena_sprintf(c->cp_a, "%s.b = %s", p, stop));
  else
    pa_bind(c, t->tr_o, arena_sprintf(c->cp_a, "%s.b", p), out, ex, &where);
  if (pa_gvar(c))
    pa_bind(c, c->cp_gterm, arena_sprintf(c->cp_a, "%s.g", p), out, ex, &where);
  out->cr_sql = arena_sprintf(c->cp_a, "SELECT %s FROM (%s) %s%s%s", cp_select_list(c, out, ex), pairs, p,
                              where ? " WHERE " : "", where ? where : "");
  return CZ_OK;
}

int cp_path(cp_t *c, const sp_op_t *op, cp_rel_t *out)
{
  const sp_triple_t *t = op->op_path;
  char *start, *stop, *pairs;
  if (pa_end(c, t->tr_s, &start) != CZ_OK || pa_end(c, t->tr_o, &stop) != CZ_OK ||
      pa_pairs(c, t->tr_path, start, stop, &pairs) != CZ_OK)
    return CZ_ERR;
  return pa_pattern(c, t, start, stop, pairs, out);
}

/* The column of variable t certainly bound in r, or NULL. */
static const cp_var_t *pa_bound(cp_t *c, const sp_term_t *t, const cp_rel_t *r)
{
  if (t->tm_kind != SP_T_VAR)
    return NULL;
  int i = cp_find(r, cp_vname(c, t));
  /* a computed term is no id to search from: the path then runs unseeded
   * and the join compares its ids with the term's text */
  return i >= 0 && !r->cr_v[i].cv_maybe_null && !r->cr_v[i].cv_count && !r->cr_v[i].cv_text
             ? &r->cr_v[i]
             : NULL;
}

int cp_path_seeded(cp_t *c, const sp_op_t *op, const cp_rel_t *bound, const char *cte, cp_rel_t *out,
                   bool *seeded)
{
  *seeded = false;
  const sp_triple_t *t = op->op_path;
  const sp_path_t *p = t->tr_path;
  if ((p->pa_kind != SP_P_STAR && p->pa_kind != SP_P_PLUS) || pa_gvar(c) || t->tr_s->tm_kind != SP_T_VAR)
    return cp_path(c, op, out);
  const cp_var_t *sv = pa_bound(c, t->tr_s, bound), *ov = pa_bound(c, t->tr_o, bound);
  if (!sv && !ov)
    return cp_path(c, op, out);
  /* forward from ?s's values, else backward (edges reversed) from ?o's */
  bool fwd = sv != NULL;
  char *start = NULL, *stop, *in;
  if (pa_end(c, t->tr_o, &stop) != CZ_OK || pa_pairs(c, p->pa_a, NULL, NULL, &in) != CZ_OK)
    return CZ_ERR;
  char *ra = cp_fresh(c, "r"), *rv = cp_fresh(c, "rv");
  char *roots = arena_sprintf(c->cp_a, "SELECT DISTINCT %s AS v FROM %s %s",
                              cp_col(c, ra, (fwd ? sv : ov)->cv_name), cte, ra);
  *seeded = true;
  char *tr = cp_fresh(c, "t"), *e = cp_fresh(c, "e");
  char *closure = fwd ? arena_sprintf(c->cp_a,
                                      "SELECT %1$s.a AS a, %1$s.b AS b FROM transitive((%2$s), NULL, %3$s, 1, (%4$s))"
                                      " AS %1$s(a, b)",
                                      tr, in, stop ? stop : "CAST(NULL AS int8)", roots)
                      : arena_sprintf(c->cp_a,
                                      "SELECT %1$s.b AS a, %1$s.a AS b FROM transitive((SELECT %2$s.b, %2$s.a FROM (%3$s)"
                                      " %2$s), NULL, NULL, 1, (%4$s)) AS %1$s(a, b)",
                                      tr, e, in, roots);
  if (p->pa_kind == SP_P_STAR) {
    /* the zero-length pairs of the roots that are nodes of the graph
     * (joins, not correlated EXISTS: a correlated subquery would keep
     * the WITH query from being computed once) */
    char *q1 = cp_fresh(c, "q"), *q2 = cp_fresh(c, "q"), *rv2 = cp_fresh(c, "rv");
    char *g1 = pa_graph_cond(c, q1), *g2 = pa_graph_cond(c, q2);
    if (!err_is(c->cp_e, SQLSTATE_SUCCESSFUL_COMPLETION))
      return CZ_ERR;
    char *zero = arena_sprintf(c->cp_a,
                               "SELECT %1$s.v AS a, %1$s.v AS b FROM (%2$s) %1$s, " RDF_SCHEMA ".rdf_quad %3$s WHERE %3$s.s"
                               " = %1$s.v%4$s%5$s UNION SELECT %6$s.v AS a, %6$s.v AS b FROM (%2$s) %6$s, " RDF_SCHEMA
                               ".rdf_quad %7$s WHERE %7$s.o = %6$s.v%8$s%9$s",
                               rv, roots, q1, g1 ? " AND " : "", g1 ? g1 : "", rv2, q2, g2 ? " AND " : "", g2 ? g2 : "");
    char *x = cp_fresh(c, "p"), *y = cp_fresh(c, "p");
    closure = arena_sprintf(c->cp_a, "SELECT a, b FROM (%s) %s UNION SELECT a, b FROM (%s) %s", closure, x, zero, y);
  }
  return pa_pattern(c, t, start, stop, closure, out);
}
