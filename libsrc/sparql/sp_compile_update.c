/* sp_compile_update — the SQL an update needs from the compiler: the
 * WHERE of DELETE/INSERT … WHERE and DELETE WHERE as one SELECT of term
 * ids (one row per solution), and the ids of constant terms looked up
 * without adding them to the dictionaries. The engine runs both
 * (engine/runner/en_sparql_update.c) and instantiates the templates.
 *
 * Design notes: the WHERE is compiled by the query compiler (cp_op); only
 * its dataset differs from a query's (spec Update §3.1.3): USING and USING
 * NAMED are FROM and FROM NAMED; else WITH g makes g the default graph;
 * else the default graph is the store's default graph (g = 0) — not the
 * union of all graphs a query sees — because a template quad without GRAPH
 * writes there, so `INSERT { ?s ?p ?o } WHERE { ?s ?p ?o }` is a no-op as
 * the standard says. Without USING NAMED, GRAPH ?g ranges over all named
 * graphs. Unbound variables and variables the WHERE does not bind are SQL
 * NULL. A computed term's column is its N-Triples text: the engine
 * encodes it (sp_wcol_t). */
#include <string.h>

#include "sparql/sp_compile_int.h"

char *sp_compile_update_where(arena_t *a, const sp_update_t *u, const sp_list_t *using,
                              const char *const *vars, int nvars, sp_wcol_t *kinds, err_t *e)
{
  cp_t c = {.cp_a = a, .cp_e = e, .cp_dataset = true};
  err_clear(e);
  if (u->up_inference) {
    /* every rule in the SQL (no ontology triples read here): how the
     * entailments are materialized into a graph */
    sp_term_t *g = arena_zalloc(a, sizeof(*g));
    g->tm_kind = SP_T_IRI;
    g->tm_str = u->up_inference;
    c.cp_infer = g;
  }
  if (!u->up_op) {
    err_set(e, SQLSTATE_INTERNAL, "SPARQL update compiler: an operation without a WHERE");
    return NULL;
  }
  if (!using || using->ls_n == 0)
    using = u->up_using;
  if (using && using->ls_n > 0) {
    c.cp_default_in = cp_graph_set(&c, using, SP_GR_IRI);
    c.cp_named_in = cp_graph_set(&c, using, SP_GR_NAMED);
  } else {
    if (u->up_with) {
      sp_gref_t g = {.gr_kind = SP_GR_IRI, .gr_iri = u->up_with};
      void *gv[1] = {&g};
      sp_list_t one = {.ls_n = 1, .ls_cap = 1, .ls_v = gv};
      c.cp_default_in = cp_graph_set(&c, &one, SP_GR_IRI);
    } else {
      c.cp_default_in = arena_strdup(a, "(0)");
    }
    c.cp_named_all = true;
  }
  if (!err_is(e, SQLSTATE_SUCCESSFUL_COMPLETION))
    return NULL;
  cp_rel_t r;
  if (cp_op(&c, u->up_op, &r) != CZ_OK)
    return NULL;
  char *cols = NULL;
  for (int i = 0; i < nvars; i++) {
    int k = cp_find(&r, vars[i]);
    kinds[i] = k < 0                 ? SP_WCOL_ID
               : r.cr_v[k].cv_count ? SP_WCOL_COUNT
               : r.cr_v[k].cv_text  ? SP_WCOL_TERM
                                    : SP_WCOL_ID;
    cols = cp_cat(&c, cols, ", ",
                  k >= 0 ? cp_col(&c, "w", vars[i]) : arena_strdup(a, "CAST(NULL AS int8)"));
  }
  return arena_sprintf(a, "SELECT %s FROM (%s) w", cols ? cols : "1", r.cr_sql);
}
