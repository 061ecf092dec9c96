/* sp_compile_bgp — a basic graph pattern as one SELECT over pg_rdf.rdf_quad:
 * an alias per triple, variables bound at their first column and compared
 * at the others, constants as term ids (inline, or one dictionary query
 * per distinct constant), the graph in force as a condition on g. */
#include <inttypes.h>
#include <string.h>

#include "sparql/sp_compile_int.h"

/* A BGP's FROM list and conditions as they grow; each constant's
 * dictionary query joined once (kN). */
typedef struct cp_bgp_s {
  char *bg_from, *bg_where;
  char **bg_binds;             /* each variable's first column */
  int bg_nconst;
  char **bg_cq, **bg_calias;   /* constant queries and their aliases */
} cp_bgp_t;

/* A term at column col of a quad alias: a condition, or the first binding
 * of its variable. */
static int cp_bgp_term(cp_t *c, const sp_term_t *t, const char *col, cp_rel_t *r, cp_bgp_t *b)
{
  if (t->tm_kind == SP_T_VAR) {
    int i = cp_find(r, cp_vname(c, t));
    if (i >= 0) {
      b->bg_where = cp_cat(c, b->bg_where, " AND ", arena_sprintf(c->cp_a, "%s = %s", col, b->bg_binds[i]));
    } else {
      r->cr_v[r->cr_n] = (cp_var_t){.cv_name = cp_vname(c, t)};
      b->bg_binds[r->cr_n++] = (char *)col;
    }
    return CZ_OK;
  }
  if (t->tm_kind == SP_T_BNODE)
    return cp_unsupported(c, "blank node constants in patterns");
  char *inl, *q = sp_sql_term_query(c->cp_a, t, &inl, c->cp_e);
  int64_t known;
  if (!inl && q && c->cp_ids && c->cp_ids(c->cp_ids_ctx, t, &known))
    inl = arena_sprintf(c->cp_a, "%" PRId64, known);
  if (inl) {
    b->bg_where = cp_cat(c, b->bg_where, " AND ", arena_sprintf(c->cp_a, "%s = %s", col, inl));
    return CZ_OK;
  }
  if (!q)
    return CZ_ERR;
  int k = 0;
  while (k < b->bg_nconst && strcmp(b->bg_cq[k], q) != 0)
    k++;
  if (k == b->bg_nconst) {
    b->bg_cq[k] = q;
    b->bg_calias[k] = cp_fresh(c, "k");
    b->bg_nconst++;
    b->bg_from = cp_cat(c, b->bg_from, ", ", arena_sprintf(c->cp_a, "(%s) %s", q, b->bg_calias[k]));
  }
  b->bg_where = cp_cat(c, b->bg_where, " AND ", arena_sprintf(c->cp_a, "%s = %s.id", col, b->bg_calias[k]));
  return CZ_OK;
}

/* The graph condition of one quad alias for the graph in force. */
static int cp_bgp_graph(cp_t *c, const char *q, cp_rel_t *r, cp_bgp_t *b)
{
  char **where = &b->bg_where;
  char *g = arena_sprintf(c->cp_a, "%s.g", q);
  if (c->cp_gkind == CP_G_DEFAULT) {
    if (c->cp_dataset)
      *where = cp_cat(c, *where, " AND ",
                      c->cp_default_in ? arena_sprintf(c->cp_a, "%s IN %s", g, c->cp_default_in)
                                       : arena_strdup(c->cp_a, "1 = 0"));
    return CZ_OK;
  }
  /* A named graph: never the default graph (g = 0), and one of FROM NAMED
   * when a dataset is given. */
  char *named = c->cp_dataset && !c->cp_named_all ? (c->cp_named_in ? arena_sprintf(c->cp_a, "%s IN %s", g, c->cp_named_in)
                                                : arena_strdup(c->cp_a, "1 = 0"))
                              : arena_sprintf(c->cp_a, "%s <> 0", g);
  *where = cp_cat(c, *where, " AND ", named);
  return cp_bgp_term(c, c->cp_gterm, g, r, b);
}

/* Whether term v of triple `self` is a variable another triple of op
 * uses too (a join column: its values come from elsewhere). */
static bool cp_bgp_shared(const sp_op_t *op, int self, const sp_term_t *v)
{
  if (v->tm_kind != SP_T_VAR)
    return false;
  for (int i = 0; i < op->op_triples->ls_n; i++) {
    const sp_triple_t *t = op->op_triples->ls_v[i];
    const sp_term_t *ts[3] = {t->tr_s, t->tr_p, t->tr_o};
    for (int k = 0; k < 3 && i != self; k++)
      if (ts[k]->tm_kind == SP_T_VAR && strcmp(ts[k]->tm_str, v->tm_str) == 0)
        return true;
  }
  return false;
}

int cp_bgp(cp_t *c, const sp_op_t *op, cp_rel_t *out)
{
  int nt = op->op_triples ? op->op_triples->ls_n : 0;
  cp_rel_init(c, out, nt * 4 + 1);
  cp_bgp_t b = {0};
  size_t cap = sizeof(char *) * (size_t)(nt * 4 + 1);
  b.bg_binds = arena_alloc(c->cp_a, cap);
  b.bg_cq = arena_alloc(c->cp_a, cap);
  b.bg_calias = arena_alloc(c->cp_a, cap);
  if (nt == 0) {
    if (c->cp_gkind == CP_G_DEFAULT) {
      out->cr_sql = arena_strdup(c->cp_a, "SELECT 1 AS \"?unit\"");
      return CZ_OK;
    }
    /* GRAPH g {}: one solution per named graph (of the dataset). */
    char *q = cp_fresh(c, "q");
    b.bg_from = arena_sprintf(c->cp_a, RDF_SCHEMA ".rdf_quad %s", q);
    if (cp_bgp_graph(c, q, out, &b) != CZ_OK)
      return CZ_ERR;
    out->cr_sql = arena_sprintf(c->cp_a, "SELECT DISTINCT %s FROM %s WHERE %s",
                                cp_select_list(c, out, b.bg_binds), b.bg_from, b.bg_where);
    return CZ_OK;
  }
  for (int i = 0; i < nt; i++) {
    const sp_triple_t *t = op->op_triples->ls_v[i];
    char *q = cp_fresh(c, "q");
    /* Under inference a pattern reads the triples it entails (in the
     * default graph, each once: sp_compile_infer.c). */
    char *src = RDF_SCHEMA ".rdf_quad";
    if (c->cp_infer) {
      if (c->cp_gkind != CP_G_DEFAULT)
        return cp_unsupported(c, "GRAPH patterns under inference");
      if (!(src = cp_infer_source(c, t)))
        return CZ_ERR;
      src = arena_sprintf(c->cp_a, "(%s)", src);
    }
    b.bg_from = cp_cat(c, b.bg_from, ", ", arena_sprintf(c->cp_a, "%s %s", src, q));
    if (cp_bgp_term(c, t->tr_s, arena_sprintf(c->cp_a, "%s.s", q), out, &b) != CZ_OK ||
        cp_bgp_term(c, t->tr_p, arena_sprintf(c->cp_a, "%s.p", q), out, &b) != CZ_OK ||
        cp_bgp_term(c, t->tr_o, arena_sprintf(c->cp_a, "%s.o", q), out, &b) != CZ_OK ||
        (!c->cp_infer && cp_bgp_graph(c, q, out, &b) != CZ_OK))
      return CZ_ERR;
    /* A variable predicate with a subject or object given (a constant,
     * or a variable another pattern binds): the distinct (s, p) or
     * (o, p) projection gives the predicates that subject or object has,
     * each then a lookup of rdf_quad by its key (PSOG or POGS), instead
     * of a scan of every quad. The projection may hold pairs whose quads
     * were deleted (libsrc/rdf README "Projections"): the join with
     * rdf_quad confirms each. */
    bool s_given = t->tr_s->tm_kind != SP_T_VAR || cp_bgp_shared(op, i, t->tr_s);
    bool o_given = t->tr_o->tm_kind != SP_T_VAR || cp_bgp_shared(op, i, t->tr_o);
    if (t->tr_s->tm_kind == SP_T_VAR && t->tr_o->tm_kind != SP_T_VAR)
      s_given = false;  /* a constant object fixes more than a joined subject */
    if (!c->cp_infer && t->tr_p->tm_kind == SP_T_VAR && (s_given || o_given)) {
      const char *col = s_given ? "s" : "o", *pj = cp_fresh(c, "j");
      b.bg_from = cp_cat(c, b.bg_from, ", ",
                         arena_sprintf(c->cp_a, RDF_SCHEMA ".rdf_quad_%sp %s", col, pj));
      b.bg_where = cp_cat(c, b.bg_where, " AND ",
                          arena_sprintf(c->cp_a, "%s.%s = %s.%s AND %s.p = %s.p", pj, col, q, col, pj, q));
    }
  }
  out->cr_sql = arena_sprintf(c->cp_a, "SELECT %s FROM %s%s%s", cp_select_list(c, out, b.bg_binds),
                              b.bg_from, b.bg_where ? " WHERE " : "", b.bg_where ? b.bg_where : "");
  return CZ_OK;
}
