/* sp_compile_infer — inference at query time (DEFINE input:inference
 * "<ontology graph>", issue 10 item 9): each triple pattern of a BGP reads,
 * instead of pg_rdf.rdf_quad, the triples its pattern entails under the
 * ontology graph's RDFS/OWL rules, computed by the query itself — nothing
 * is materialized.
 *
 * Design notes: the rule set is the ontology graph. When its triples were
 * read at prepare (cp_tbox: queries), the closures of a constant class or
 * property (subClassOf/equivalentClass, subPropertyOf/equivalentProperty,
 * inverses, domains, ranges, intersections) are computed in C
 * (sp_infer_tbox.c) and written as constant id lists, index ranges the
 * planner sees (the ck_ functions); otherwise they are SQL's
 * transitive(…) over that graph's quads, evaluated per query. An
 * entailed relation has the columns (g, s, p, o) of rdf_quad so that
 * cp_bgp's conditions apply unchanged; g is always 0 (the default graph):
 * under inference the default graph is the merge of the dataset's default
 * graphs, a *set* of triples as the entailment regimes define it, so each
 * entailed triple is one row however many ways (or graphs) derive it.
 * The dataset's restriction (FROM) applies to the data quads inside.
 * Rules:
 *   x rdf:type C  — x typed with a subclass of C; x the subject (object) of
 *                   a subproperty of a property whose domain (range) is a
 *                   subclass of C; x meeting every conjunct of an
 *                   intersectionOf class below C (one level);
 *   x P y         — x p y for p a subproperty of P; y q x for q a
 *                   subproperty of an inverse of such a p; y P x when P is
 *                   symmetric; the transitive closure of all that when P
 *                   is transitive;
 *   a variable predicate: the data triples, once each (no entailment).
 * SQL evaluates every branch of a UNION and both inputs of a join however
 * a condition empties them, so when the ontology's triples were read at
 * prepare (cp_tbox) the rules that cannot fire are left out in C;
 * without them (an update's WHERE) every rule is in the SQL, each decided
 * by a condition on the ontology graph. */
#include <inttypes.h>
#include <string.h>

#include "sparql/sp_compile_int.h"

#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define RDFS_NS "http://www.w3.org/2000/01/rdf-schema#"
#define OWL_NS "http://www.w3.org/2002/07/owl#"

#define QUADS RDF_SCHEMA ".rdf_quad"

/* The SQL id expression of an IRI constant: the id looked up at prepare,
 * else its dictionary query (NULL, matching nothing, when unknown). */
static char *ci_iri(cp_t *c, const char *iri)
{
  sp_term_t *t = arena_zalloc(c->cp_a, sizeof(*t));
  t->tm_kind = SP_T_IRI;
  t->tm_str = arena_strdup(c->cp_a, iri);
  return ci_term(c, t);
}

char *ci_term(cp_t *c, const sp_term_t *t)
{
  char *inl, *q = sp_sql_term_query(c->cp_a, t, &inl, c->cp_e);
  int64_t known;
  if (inl)
    return inl;
  if (!q)
    return NULL;
  if (c->cp_ids && c->cp_ids(c->cp_ids_ctx, t, &known))
    return arena_sprintf(c->cp_a, "%" PRId64, known);
  return arena_sprintf(c->cp_a, "(%s)", q);
}

/* ---- what the ontology's triples (known at prepare) rule out ------------ */

/* The id of a constant term looked up at prepare (false: none). */
static bool ci_id(cp_t *c, const sp_term_t *t, int64_t *id)
{
  return c->cp_ids && c->cp_ids(c->cp_ids_ctx, t, id);
}

static bool ci_iri_id(cp_t *c, const char *iri, int64_t *id)
{
  sp_term_t *t = arena_zalloc(c->cp_a, sizeof(*t));
  t->tm_kind = SP_T_IRI;
  t->tm_str = arena_strdup(c->cp_a, iri);
  return ci_id(c, t, id);
}

/* Whether the ontology holds a triple (s, p, o); 0 matches anything. */
static bool ci_holds(const cp_t *c, int64_t s, int64_t p, int64_t o)
{
  for (size_t i = 0; i < c->cp_tbox_n; i++) {
    const int64_t *t = c->cp_tbox + 3 * i;
    if ((!s || t[0] == s) && (!p || t[1] == p) && (!o || t[2] == o))
      return true;
  }
  return false;
}

/* Whether the ontology may have a triple with predicate iri (true when
 * its triples are not known). */
static bool ci_may_use(cp_t *c, const char *iri)
{
  int64_t p;
  if (!c->cp_tbox)
    return true;
  return ci_iri_id(c, iri, &p) && ci_holds(c, 0, p, 0);
}

/* 1: the ontology declares property pt of class kind; 0: it does not;
 * -1: not known (decided in SQL). */
static int ci_is_declared(cp_t *c, const sp_term_t *pt, const char *kind)
{
  int64_t p, type, k;
  if (!c->cp_tbox)
    return -1;
  if (!ci_id(c, pt, &p) || !ci_iri_id(c, RDF_NS "type", &type) || !ci_iri_id(c, kind, &k))
    return 0;
  return ci_holds(c, p, type, k);
}

/* Whether some intersection class is, by the subclass edges, below the
 * class cls (NULL: any class); true when not known. */
static bool ci_may_intersect(cp_t *c, const sp_term_t *cls)
{
  int64_t inter, first, rest, subc, eqc, cid;
  if (!c->cp_tbox)
    return true;
  if (!ci_iri_id(c, OWL_NS "intersectionOf", &inter) || !ci_holds(c, 0, inter, 0))
    return false;
  if (!cls)
    return true;
  if (!ci_id(c, cls, &cid))
    return false;
  ci_iri_id(c, RDF_NS "first", &first);
  ci_iri_id(c, RDF_NS "rest", &rest);
  ci_iri_id(c, RDFS_NS "subClassOf", &subc);
  ci_iri_id(c, OWL_NS "equivalentClass", &eqc);
  /* breadth-first down from cls: the classes below it */
  size_t cap = c->cp_tbox_n * 2 + 2, n = 0;
  int64_t *seen = arena_alloc(c->cp_a, sizeof(int64_t) * cap);
  seen[n++] = cid;
  for (size_t at = 0; at < n; at++) {
    int64_t k = seen[at];
    if (ci_holds(c, k, inter, 0))
      return true;
    for (size_t i = 0; i < c->cp_tbox_n && n + 1 < cap; i++) {
      const int64_t *t = c->cp_tbox + 3 * i;
      int64_t below = 0;
      if ((t[1] == subc && t[2] == k) || (t[1] == eqc && t[2] == k))
        below = t[0];
      else if (t[1] == eqc && t[0] == k)
        below = t[2];
      else if (t[1] == first && t[2] == k) {
        /* k is an item of a list: walk back to its head, whose
         * intersection is below k */
        int64_t cell = t[0];
        for (size_t steps = 0; steps <= c->cp_tbox_n; steps++) {
          bool moved = false;
          for (size_t j = 0; j < c->cp_tbox_n; j++) {
            const int64_t *u = c->cp_tbox + 3 * j;
            if (u[1] == rest && u[2] == cell) {
              cell = u[0];
              moved = true;
              break;
            }
          }
          if (!moved)
            break;
        }
        for (size_t j = 0; j < c->cp_tbox_n; j++) {
          const int64_t *u = c->cp_tbox + 3 * j;
          if (u[1] == inter && u[2] == cell)
            return true;
        }
      }
      if (below && ci_holds(c, below, inter, 0))
        return true;
      bool dup = false;
      for (size_t j = 0; j < n && below; j++)
        dup |= seen[j] == below;
      if (below && !dup)
        seen[n++] = below;
    }
  }
  return false;
}

/* Edges (x, y) of the ontology: x p y, plus both ways of each equivalence
 * e (NULL none); reversed: y, x. */
static char *ci_edges(cp_t *c, const char *o, const char *p, const char *e, bool reversed)
{
  const char *a = reversed ? "o" : "s", *b = reversed ? "s" : "o";
  char *s = arena_sprintf(c->cp_a, "SELECT %s, %s FROM " QUADS " WHERE g = %s AND p = %s", a, b, o, p);
  if (e)
    s = arena_sprintf(c->cp_a, "%s UNION ALL SELECT s, o FROM " QUADS " WHERE g = %s AND p = %s"
                               " UNION ALL SELECT o, s FROM " QUADS " WHERE g = %s AND p = %s",
                      s, o, e, o, e);
  return s;
}

/* The data quads' condition on alias q for the dataset's default graph. */
static char *ci_dataset(cp_t *c, const char *q)
{
  if (!c->cp_dataset)
    return arena_strdup(c->cp_a, "TRUE");
  return c->cp_default_in ? arena_sprintf(c->cp_a, "%s.g IN %s", q, c->cp_default_in)
                          : arena_strdup(c->cp_a, "1 = 0");
}

/* Pairs (x, y): y reached from a value of roots (one column) over edges,
 * each root with itself. */
static char *ci_closure(cp_t *c, const char *edges, const char *roots)
{
  return arena_sprintf(c->cp_a, "SELECT x, y FROM transitive((%s), NULL, NULL, 0, (%s)) AS t(x, y)", edges,
                       roots);
}

/* (p, c): a property p whose domain (which = "domain") or range is, by
 * subPropertyOf and subClassOf, c. */
static char *ci_prop_class(cp_t *c, const char *o, const char *which, const char *sce, const char *spe_down)
{
  char *rel = ci_iri(c, which);
  char *props = arena_sprintf(c->cp_a, "SELECT s FROM " QUADS " WHERE g = %s AND p = %s", o, rel);
  char *classes = arena_sprintf(c->cp_a, "SELECT o FROM " QUADS " WHERE g = %s AND p = %s", o, rel);
  return arena_sprintf(c->cp_a,
                       "SELECT sp.y AS p, sc.y AS c FROM " QUADS " d, (%s) sp, (%s) sc"
                       " WHERE d.g = %s AND d.p = %s AND sp.x = d.s AND sc.x = d.o",
                       ci_closure(c, spe_down, props), ci_closure(c, sce, classes), o, rel);
}

/* The condition that the ontology declares property pid of class kind. */
static char *ci_declared(cp_t *c, const char *o, const char *pid, const char *type, const char *kind)
{
  return arena_sprintf(c->cp_a, "EXISTS (SELECT 1 FROM " QUADS " WHERE g = %s AND s = %s AND p = %s AND o = %s)", o,
                       pid, type, ci_iri(c, kind));
}

/* What the rules of one pattern share: the ontology graph's id, rdf:type's,
 * and the closures' edge queries. */
typedef struct ci_s {
  const char *o, *type;
  char *sce;      /* subclass edges (sub, super): subClassOf, both ways of
                     equivalentClass, an intersection to each conjunct */
  char *spe, *spe_down; /* subproperty edges (sub, super) and reversed */
  char *conj;     /* (x, k): k a conjunct of the intersection class x */
} ci_t;

/* (s, c): s is a c by the asserted types, domains and ranges (no
 * intersection membership); cls an id expression to restrict c, or NULL. */
static char *ci_types0(cp_t *c, const ci_t *v, const char *cls)
{
  char *q = cp_fresh(c, "i");
  /* a constant class: its subclasses only, found backward from it */
  char *direct =
      cls ? arena_sprintf(c->cp_a,
                          "SELECT %s.s, sc.y AS c FROM " QUADS " %s, transitive((%s), NULL, %s, 0) AS sc(x, y)"
                          " WHERE %s.p = %s AND %s.o = sc.x AND %s",
                          q, q, v->sce, cls, q, v->type, q, ci_dataset(c, q))
          : arena_sprintf(c->cp_a,
                          "SELECT %s.s, sc.y AS c FROM " QUADS " %s, (%s) sc WHERE %s.p = %s AND %s.o = sc.x AND %s",
                          q, q,
                          ci_closure(c, v->sce, arena_sprintf(c->cp_a, "SELECT o FROM " QUADS " WHERE p = %s", v->type)),
                          q, v->type, q, ci_dataset(c, q));
  char *r = cp_fresh(c, "i");
  if (ci_may_use(c, RDFS_NS "domain")) {
    char *dom = ci_prop_class(c, v->o, RDFS_NS "domain", v->sce, v->spe_down);
    char *only = cls ? arena_sprintf(c->cp_a, " AND pd.c = %s", cls) : "";
    direct = arena_sprintf(c->cp_a, "%s UNION ALL SELECT %s.s, pd.c FROM " QUADS " %s, (%s) pd WHERE %s.p = pd.p AND %s%s",
                           direct, r, r, dom, r, ci_dataset(c, r), only);
  }
  if (ci_may_use(c, RDFS_NS "range")) {
    char *rng = ci_prop_class(c, v->o, RDFS_NS "range", v->sce, v->spe_down);
    char *only_r = cls ? arena_sprintf(c->cp_a, " AND pr.c = %s", cls) : "";
    direct = arena_sprintf(c->cp_a, "%s UNION ALL SELECT %s.o, pr.c FROM " QUADS " %s, (%s) pr WHERE %s.p = pr.p AND %s%s",
                           direct, r, r, rng, r, ci_dataset(c, r), only_r);
  }
  return direct;
}

/* (s, c): s is a c because it satisfies every conjunct of an intersection
 * class x ⊑* c — a named class it is (ci_types0), or a restriction
 * onProperty p someValuesFrom d it meets (s p' y, p' ⊑* p, y a d by
 * ci_types0). One level: a conjunct's own membership is not through
 * another intersection. */
static char *ci_types_int(cp_t *c, const ci_t *v, const char *cls)
{
  char *all = ci_types0(c, v, NULL);
  char *onp = ci_iri(c, OWL_NS "onProperty"), *svf = ci_iri(c, OWL_NS "someValuesFrom");
  char *props = arena_sprintf(c->cp_a, "SELECT o FROM " QUADS " WHERE g = %s AND p = %s", v->o, onp);
  char *q = cp_fresh(c, "i");
  char *sat = arena_sprintf(
      c->cp_a,
      "SELECT t0.s, cj.x, cj.k FROM (%s) cj, (%s) t0(s, c) WHERE t0.c = cj.k"
      " UNION ALL SELECT %s.s, cj.x, cj.k FROM (%s) cj, " QUADS " op, " QUADS " sv, (%s) spp, " QUADS " %s,"
      " (%s) t1(s, c) WHERE op.g = %s AND op.s = cj.k AND op.p = %s AND sv.g = %s AND sv.s = cj.k AND sv.p = %s"
      " AND spp.x = op.o AND %s.p = spp.y AND %s AND t1.s = %s.o AND t1.c = sv.o",
      v->conj, all, q, v->conj, ci_closure(c, v->spe_down, props), q, all, v->o, onp, v->o, svf, q,
      ci_dataset(c, q), q);
  char *heads = arena_sprintf(c->cp_a, "SELECT x FROM (%s) h", v->conj);
  return arena_sprintf(c->cp_a,
                       "SELECT m.s, sc.y FROM (SELECT sat.s, sat.x FROM (%s) sat(s, x, k),"
                       " (SELECT x, count(DISTINCT k) AS n FROM (%s) c0 GROUP BY x) cn WHERE cn.x = sat.x"
                       " GROUP BY sat.s, sat.x HAVING count(DISTINCT sat.k) = min(cn.n)) m, (%s) sc"
                       " WHERE sc.x = m.x%s",
                       sat, v->conj, ci_closure(c, v->sce, heads),
                       cls ? arena_sprintf(c->cp_a, " AND sc.y = %s", cls) : "");
}

/* " = id" for a list of one id, else " IN (list)": the planner makes an
 * index key of an equality, not of a one-element IN list. */
static char *ci_in(cp_t *c, const char *list)
{
  bool one = *list != '\0';
  for (const char *x = list; *x; x++)
    one &= (*x >= '0' && *x <= '9') || *x == '-';
  return arena_sprintf(c->cp_a, one ? " = %s" : " IN (%s)", list);
}

/* (s, o): x p y for p in subs, and y q x for q in inv_subs (NULL: none);
 * fs and fo constants s and o must be (NULL: any). */
static char *ci_base(cp_t *c, const char *subs, const char *inv_subs, const char *fs, const char *fo)
{
  char *q = cp_fresh(c, "i");
  char *r = arena_sprintf(c->cp_a, "SELECT %s.s, %s.o FROM " QUADS " %s WHERE %s.p%s AND %s%s%s%s%s", q, q, q,
                          q, ci_in(c, subs), ci_dataset(c, q), fs ? " AND s = " : "", fs ? fs : "", fo ? " AND o = " : "",
                          fo ? fo : "");
  if (!inv_subs)
    return r;
  q = cp_fresh(c, "i");
  return arena_sprintf(c->cp_a, "%s UNION ALL SELECT %s.o, %s.s FROM " QUADS " %s WHERE %s.p%s AND %s%s%s%s%s", r,
                       q, q, q, q, ci_in(c, inv_subs), ci_dataset(c, q), fs ? " AND o = " : "", fs ? fs : "",
                       fo ? " AND s = " : "", fo ? fo : "");
}

/* ---- the ontology known at prepare: closures as constant id lists ------ */

/* One column s: the members of a class whose subclasses (with itself) are
 * below, by asserted types, domains and ranges — ci_types0's rules with
 * the closures as constants, so each branch is an index range. */
static char *ck_types0(cp_t *c, const ci_ids_t *below, const char *type)
{
  char *q = cp_fresh(c, "i");
  char *r = arena_sprintf(c->cp_a, "SELECT %s.s FROM " QUADS " %s WHERE %s.p = %s AND %s.o%s AND %s", q, q, q,
                          type, q, ci_in(c, ci_id_list(c, below)), ci_dataset(c, q));
  ci_ids_t dom = {0}, rng = {0};
  ci_props_with_class(c, RDFS_NS "domain", below, &dom);
  ci_props_with_class(c, RDFS_NS "range", below, &rng);
  if (dom.ids_n) {
    q = cp_fresh(c, "i");
    r = arena_sprintf(c->cp_a, "%s UNION ALL SELECT %s.s FROM " QUADS " %s WHERE %s.p%s AND %s", r, q, q, q,
                      ci_in(c, ci_id_list(c, &dom)), ci_dataset(c, q));
  }
  if (rng.ids_n) {
    q = cp_fresh(c, "i");
    r = arena_sprintf(c->cp_a, "%s UNION ALL SELECT %s.o FROM " QUADS " %s WHERE %s.p%s AND %s", r, q, q, q,
                      ci_in(c, ci_id_list(c, &rng)), ci_dataset(c, q));
  }
  return r;
}

/* One column s: what meets conjunct k of an intersection — a member of k
 * (ck_types0), or, k a restriction onProperty p someValuesFrom d, the
 * subject of a subproperty of p whose object is a d (ck_types0). */
static char *ck_conjunct(cp_t *c, int64_t k, const char *type)
{
  ci_ids_t below = {0}, onp = {0}, svf = {0};
  ci_classes_below(c, k, &below);
  char *r = ck_types0(c, &below, type);
  ci_objects(c, k, OWL_NS "onProperty", &onp);
  ci_objects(c, k, OWL_NS "someValuesFrom", &svf);
  for (size_t i = 0; i < onp.ids_n; i++)
    for (size_t j = 0; j < svf.ids_n; j++) {
      ci_ids_t subs = {0}, dbelow = {0};
      ci_classes_below(c, svf.ids_v[j], &dbelow);
      ci_ids_add(c, &subs, onp.ids_v[i]);
      ci_props_below(c, &subs);
      char *q = cp_fresh(c, "i");
      r = arena_sprintf(c->cp_a, "%s UNION ALL SELECT %s.s FROM " QUADS " %s WHERE %s.p%s AND %s AND %s.o IN (%s)",
                        r, q, q, q, ci_in(c, ci_id_list(c, &subs)), ci_dataset(c, q), q, ck_types0(c, &dbelow, type));
    }
  return r;
}

/* One column s: the members of class cls (ci_types0 and ci_types_int's
 * rules): of cls and its subclasses, and of each intersection class below
 * it, those that meet every conjunct (one level deep, as ci_types_int). */
static char *ck_types(cp_t *c, int64_t cls, const char *type)
{
  ci_ids_t below = {0};
  ci_classes_below(c, cls, &below);
  char *r = ck_types0(c, &below, type);
  for (size_t i = 0; i < below.ids_n; i++) {
    ci_ids_t ks = {0};
    ci_conjuncts(c, below.ids_v[i], &ks);
    char *all = NULL;
    for (size_t j = 0; j < ks.ids_n; j++) {
      char *a = cp_fresh(c, "k");
      all = cp_cat(c, all ? all : "", " INTERSECT ",
                   arena_sprintf(c->cp_a, "SELECT %s.s FROM (%s) %s(s)", a, ck_conjunct(c, ks.ids_v[j], type), a));
    }
    if (all) {
      char *m = cp_fresh(c, "x");
      r = arena_sprintf(c->cp_a, "%s UNION ALL SELECT %s.s FROM (%s) %s(s)", r, m, all, m);
    }
  }
  return r;
}

/* The relation (g, s, p, o) triple t reads under inference. */
char *cp_infer_source(cp_t *c, const sp_triple_t *t)
{
  ci_t v = {.o = ci_term(c, c->cp_infer), .type = ci_iri(c, RDF_NS "type")};
  char *o = (char *)v.o, *type = (char *)v.type;
  char *ints = arena_sprintf(c->cp_a, "SELECT o FROM " QUADS " WHERE g = %s AND p = %s", o,
                             ci_iri(c, OWL_NS "intersectionOf"));
  /* the list cells of each intersection, then their items */
  char *cells = ci_closure(c, arena_sprintf(c->cp_a, "SELECT s, o FROM " QUADS " WHERE g = %s AND p = %s", o,
                                            ci_iri(c, RDF_NS "rest")),
                           ints);
  v.conj = arena_sprintf(c->cp_a,
                         "SELECT ih.s AS x, fi.o AS k FROM " QUADS " ih, (%s) ce, " QUADS " fi"
                         " WHERE ih.g = %s AND ih.p = %s AND ce.x = ih.o AND fi.g = %s AND fi.s = ce.y AND fi.p = %s",
                         cells, o, ci_iri(c, OWL_NS "intersectionOf"), o, ci_iri(c, RDF_NS "first"));
  v.sce = arena_sprintf(c->cp_a, "%s UNION ALL SELECT x, k FROM (%s) cjs",
                        ci_edges(c, o, ci_iri(c, RDFS_NS "subClassOf"), ci_iri(c, OWL_NS "equivalentClass"), false),
                        v.conj);
  v.spe = ci_edges(c, o, ci_iri(c, RDFS_NS "subPropertyOf"), ci_iri(c, OWL_NS "equivalentProperty"), false);
  v.spe_down = ci_edges(c, o, ci_iri(c, RDFS_NS "subPropertyOf"), ci_iri(c, OWL_NS "equivalentProperty"), true);
  char *spe = v.spe, *spe_down = v.spe_down;
  if (!o || !type || !spe || !spe_down)
    return NULL;
  const sp_term_t *p = t->tr_p;
  if (p->tm_kind == SP_T_VAR)
    return arena_sprintf(c->cp_a, "SELECT DISTINCT 0 AS g, q.s, q.p, q.o FROM " QUADS " q WHERE %s",
                         ci_dataset(c, "q"));
  if (p->tm_kind != SP_T_IRI) {
    cp_unsupported(c, "a literal or blank node as predicate under inference");
    return NULL;
  }
  if (strcmp(p->tm_str, RDF_NS "type") == 0) {
    const sp_term_t *cls = t->tr_o;
    int64_t cls_id;
    if (c->cp_tbox && cls->tm_kind == SP_T_IRI && ci_id(c, cls, &cls_id))
      return arena_sprintf(c->cp_a, "SELECT DISTINCT 0 AS g, m.s, %s AS p, %" PRId64 " AS o FROM (%s) m(s)", type,
                           cls_id, ck_types(c, cls_id, type));
    char *cid = cls->tm_kind == SP_T_IRI ? ci_term(c, cls) : NULL;
    char *types = ci_types0(c, &v, cid);
    if (ci_may_intersect(c, cid ? cls : NULL))
      types = arena_sprintf(c->cp_a, "%s UNION ALL %s", types, ci_types_int(c, &v, cid));
    return arena_sprintf(c->cp_a, "SELECT DISTINCT 0 AS g, m.s, %s AS p, m.c AS o FROM (%s) m(s, c)", type, types);
  }
  char *pid = ci_term(c, p);
  char *inv = ci_edges(c, o, ci_iri(c, OWL_NS "inverseOf"), NULL, false);
  char *inv_back = ci_edges(c, o, ci_iri(c, OWL_NS "inverseOf"), NULL, true);
  /* P's subproperties; the inverses of those (either direction of
   * owl:inverseOf) and their subproperties */
  char *subs = arena_sprintf(c->cp_a, "SELECT x FROM transitive((%s), NULL, %s, 0) AS sb(x, y)", spe, pid);
  char *invs = arena_sprintf(c->cp_a, "SELECT iv.y FROM (%s UNION ALL %s) iv(x, y) WHERE iv.x IN (%s)", inv,
                             inv_back, subs);
  char *inv_subs = arena_sprintf(c->cp_a, "SELECT y FROM (%s) isb", ci_closure(c, spe_down, invs));
  char *base = ci_base(c, subs, inv_subs, NULL, NULL);
  int is_trans = ci_is_declared(c, p, OWL_NS "TransitiveProperty");
  int is_sym = ci_is_declared(c, p, OWL_NS "SymmetricProperty");
  if (is_trans >= 0) {
    /* the ontology is known: only the rules that fire, the pattern's
     * constants inside them */
    const sp_term_t *ts = t->tr_s, *to = t->tr_o;
    char *sc = ts->tm_kind == SP_T_IRI || ts->tm_kind == SP_T_LIT ? ci_term(c, ts) : NULL;
    char *oc = to->tm_kind == SP_T_IRI || to->tm_kind == SP_T_LIT ? ci_term(c, to) : NULL;
    if (!ci_may_use(c, OWL_NS "inverseOf"))
      inv_subs = NULL;
    int64_t p_id;
    if (ci_id(c, p, &p_id)) {
      /* the closures as constants: P's subproperties, their inverses'
       * subproperties */
      ci_ids_t below = {0}, inverses = {0};
      ci_ids_add(c, &below, p_id);
      ci_props_below(c, &below);
      ci_inverses(c, &below, &inverses);
      ci_props_below(c, &inverses);
      subs = ci_id_list(c, &below);
      inv_subs = ci_id_list(c, &inverses);
    }
    char *rel;
    if (is_trans) {
      char *edges = ci_base(c, subs, inv_subs, NULL, NULL);
      if (is_sym)
        edges = arena_sprintf(c->cp_a, "SELECT b.s, b.o FROM (%s) b(s, o) UNION ALL SELECT b.o, b.s FROM (%s) b(s, o)",
                              edges, edges);
      rel = arena_sprintf(c->cp_a, "SELECT tc.x, tc.y FROM transitive((%s), %s, %s) AS tc(x, y)", edges,
                          sc ? sc : "NULL", oc ? oc : "NULL");
    } else {
      rel = ci_base(c, subs, inv_subs, sc, oc);
      if (is_sym)
        rel = arena_sprintf(c->cp_a, "%s UNION ALL SELECT b.o, b.s FROM (%s) b(s, o)", rel,
                            ci_base(c, subs, inv_subs, oc, sc));
    }
    return arena_sprintf(c->cp_a, "SELECT DISTINCT 0 AS g, e.s, %s AS p, e.o FROM (%s) e(s, o)", pid, rel);
  }
  char *sym = ci_declared(c, o, pid, type, OWL_NS "SymmetricProperty");
  char *trans = ci_declared(c, o, pid, type, OWL_NS "TransitiveProperty");
  char *both = arena_sprintf(c->cp_a, "SELECT b.s, b.o FROM (%s) b(s, o) UNION ALL SELECT b.o, b.s FROM (%s) b(s, o) WHERE %s",
                             base, base, sym);
  return arena_sprintf(c->cp_a,
                       "SELECT DISTINCT 0 AS g, e.s, %s AS p, e.o FROM ("
                       "SELECT tc.x, tc.y FROM transitive((%s), NULL, NULL) AS tc(x, y) WHERE %s"
                       " UNION ALL SELECT d.s, d.o FROM (%s) d(s, o) WHERE NOT %s) e(s, o)",
                       pid, both, trans, both, trans);
}
