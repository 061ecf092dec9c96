/* sp_infer_tbox — the closures of an inference rule set (subclasses,
 * subproperties, inverses, domains, ranges, intersection conjuncts),
 * computed in C from the ontology graph's triples read at prepare
 * (cp_tbox), so that sp_compile_infer.c can write them into the SQL as
 * constant id lists (`q.o IN (…)`, `q.p IN (…)`) the planner turns into
 * index lookups, instead of transitive(…) over the ontology graph, which
 * SQL would evaluate (and join against every candidate triple) per query.
 *
 * Design notes: the ontology is small (its triples are one array of ids
 * in the statement's arena), so each closure is a breadth-first walk over
 * the array, quadratic in the ontology's size and linear in nothing the
 * data holds. Edges are exactly those of the SQL the compiler writes when
 * the ontology is not known (ci_edges and v.conj there), so both paths
 * give the same answers: subclass edges are subClassOf, equivalentClass
 * both ways and an intersection class to each of its conjuncts;
 * subproperty edges subPropertyOf and equivalentProperty both ways. The
 * lists are fixed at prepare, like the choice of rules: a statement
 * prepared before the ontology changes keeps its closures (each SPARQL
 * statement sent as text is prepared anew, so it sees the change). */
#include <inttypes.h>
#include <string.h>

#include "sparql/sp_compile_int.h"

#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define RDFS_NS "http://www.w3.org/2000/01/rdf-schema#"
#define OWL_NS "http://www.w3.org/2002/07/owl#"

/* The id of a vocabulary IRI, or CI_NO_ID when the store does not know it
 * (then no ontology triple uses it). */
#define CI_NO_ID INT64_MIN

static int64_t ci_vocab(cp_t *c, const char *iri)
{
  sp_term_t t = {.tm_kind = SP_T_IRI, .tm_str = iri};
  int64_t id;
  return c->cp_ids && c->cp_ids(c->cp_ids_ctx, &t, &id) ? id : CI_NO_ID;
}

bool ci_ids_has(const ci_ids_t *s, int64_t id)
{
  for (size_t i = 0; i < s->ids_n; i++)
    if (s->ids_v[i] == id)
      return true;
  return false;
}

/* Adds id unless already there; true when added. */
bool ci_ids_add(cp_t *c, ci_ids_t *s, int64_t id)
{
  if (ci_ids_has(s, id))
    return false;
  if (s->ids_n == s->ids_cap) {
    size_t cap = s->ids_cap ? s->ids_cap * 2 : 16;
    int64_t *v = arena_alloc(c->cp_a, sizeof(int64_t) * cap);
    if (s->ids_n)
      memcpy(v, s->ids_v, sizeof(int64_t) * s->ids_n);
    s->ids_v = v;
    s->ids_cap = cap;
  }
  s->ids_v[s->ids_n++] = id;
  return true;
}

/* Every x with an edge (x, y) to a member y (down = true) or (y, x) from
 * one (down = false) added to s, until nothing more is reached. Edges:
 * p1 one way, p2 (an equivalence, or CI_NO_ID) both ways, and when conj
 * an intersection class to each of its conjuncts. */
static void ci_walk(cp_t *c, ci_ids_t *s, int64_t p1, int64_t p2, bool conj, bool down)
{
  for (size_t at = 0; at < s->ids_n; at++) {
    int64_t k = s->ids_v[at];
    for (size_t i = 0; i < c->cp_tbox_n; i++) {
      const int64_t *t = c->cp_tbox + 3 * i;
      if (p1 != CI_NO_ID && t[1] == p1) {
        if (down && t[2] == k)
          ci_ids_add(c, s, t[0]);
        else if (!down && t[0] == k)
          ci_ids_add(c, s, t[2]);
      }
      if (p2 != CI_NO_ID && t[1] == p2) {
        if (t[2] == k)
          ci_ids_add(c, s, t[0]);
        if (t[0] == k)
          ci_ids_add(c, s, t[2]);
      }
    }
    if (conj && down) {
      /* the intersection classes k is a conjunct of are below k */
      int64_t inter = ci_vocab(c, OWL_NS "intersectionOf");
      for (size_t i = 0; i < c->cp_tbox_n && inter != CI_NO_ID; i++) {
        const int64_t *t = c->cp_tbox + 3 * i;
        if (t[1] != inter)
          continue;
        ci_ids_t ks = {0};
        ci_conjuncts(c, t[0], &ks);
        if (ci_ids_has(&ks, k))
          ci_ids_add(c, s, t[0]);
      }
    }
  }
}

void ci_classes_below(cp_t *c, int64_t cls, ci_ids_t *out)
{
  ci_ids_add(c, out, cls);
  ci_walk(c, out, ci_vocab(c, RDFS_NS "subClassOf"), ci_vocab(c, OWL_NS "equivalentClass"), true, true);
}

void ci_props_below(cp_t *c, ci_ids_t *props)
{
  ci_walk(c, props, ci_vocab(c, RDFS_NS "subPropertyOf"), ci_vocab(c, OWL_NS "equivalentProperty"), false, true);
}

void ci_inverses(cp_t *c, const ci_ids_t *props, ci_ids_t *out)
{
  int64_t inv = ci_vocab(c, OWL_NS "inverseOf");
  for (size_t i = 0; i < c->cp_tbox_n && inv != CI_NO_ID; i++) {
    const int64_t *t = c->cp_tbox + 3 * i;
    if (t[1] != inv)
      continue;
    if (ci_ids_has(props, t[0]))
      ci_ids_add(c, out, t[2]);
    if (ci_ids_has(props, t[2]))
      ci_ids_add(c, out, t[0]);
  }
}

void ci_objects(cp_t *c, int64_t s, const char *p_iri, ci_ids_t *out)
{
  int64_t p = ci_vocab(c, p_iri);
  for (size_t i = 0; i < c->cp_tbox_n && p != CI_NO_ID; i++) {
    const int64_t *t = c->cp_tbox + 3 * i;
    if (t[1] == p && t[0] == s)
      ci_ids_add(c, out, t[2]);
  }
}

void ci_conjuncts(cp_t *c, int64_t x, ci_ids_t *out)
{
  ci_ids_t cells = {0};
  ci_objects(c, x, OWL_NS "intersectionOf", &cells);
  /* every cell of the lists (rest* from each head), then their items */
  ci_walk(c, &cells, ci_vocab(c, RDF_NS "rest"), CI_NO_ID, false, false);
  for (size_t i = 0; i < cells.ids_n; i++)
    ci_objects(c, cells.ids_v[i], RDF_NS "first", out);
}

void ci_props_with_class(cp_t *c, const char *which, const ci_ids_t *below, ci_ids_t *out)
{
  int64_t rel = ci_vocab(c, which);
  for (size_t i = 0; i < c->cp_tbox_n && rel != CI_NO_ID; i++) {
    const int64_t *t = c->cp_tbox + 3 * i;
    if (t[1] == rel && ci_ids_has(below, t[2]))
      ci_ids_add(c, out, t[0]);
  }
  ci_props_below(c, out);
}

char *ci_id_list(cp_t *c, const ci_ids_t *s)
{
  char *r = NULL;
  for (size_t i = 0; i < s->ids_n; i++)
    r = cp_cat(c, r ? r : "", ", ", arena_sprintf(c->cp_a, "%" PRId64, s->ids_v[i]));
  return r;
}
