/* sql_bind_transitive — transitive(edges, start, stop [, min [, roots]]) in FROM:
 * the transitive closure of a relation, a logical node (LN_TRANSITIVE,
 * its edge and root queries nodes) that the generator builds into the
 * executor's Transitive Closure operator (exec op_transitive.c); SPARQL's `p*` and `p+`
 * property paths compile to it (libsrc/sparql sp_compile_path.c).
 *
 *   SELECT * FROM transitive((SELECT s, o FROM edges), 1, NULL, 1) AS t(x, y)
 *
 * - edges: a parenthesised query of two bigint columns (from, to); rows
 *   with a NULL are no edges.
 * - start, stop: bigint expressions (NULL: not given). Given start: the
 *   nodes reached from it; only stop: the nodes it is reached from; both:
 *   the pair (start, stop) when stop is reachable; neither: every pair.
 * - min: the integer constant 0 or 1 (default 1), the fewest steps; with
 *   0 a given end is paired with itself (even with no edge), and without
 *   ends every node of the edges is.
 * - roots: a parenthesised query of one bigint column, start then NULL:
 *   a search forward from each of its distinct values (with stop: the
 *   roots that reach it) — what a SPARQL path whose end another pattern
 *   binds runs on.
 * Output: the distinct pairs, columns named by the column aliases, else
 * the edge query's. The arguments see the enclosing queries (and, under
 * LATERAL, the items before it), as other functions in FROM. */
#include <string.h>

#include "sql/sql_bind_ext.h"
#include "sql/sql_bind_int.h"

bool bd_transitive_is(const sql_expr_t *f)
{
  return strcmp(f->ex_name, "transitive") == 0 && !f->ex_schema;
}

int bd_transitive(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, lp_node_t **out)
{
  const sql_expr_t *f = fr->fr_func;
  int n = sql_list_len(f->ex_list);
  if (n < 3 || n > 5)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, fr->fr_pos,
                    "function transitive takes 3 to 5 arguments (edges, start, stop [, min [, roots]])");
  if (fr->fr_ordinality)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, fr->fr_pos, "WITH ORDINALITY is not supported here");
  const sql_expr_t *ex = sql_list_at(f->ex_list, 0);
  if (ex->ex_kind != SQL_E_SUBQUERY)
    return bd_error(b, SQLSTATE_DATATYPE_MISMATCH, fr->fr_pos,
                    "the first argument of transitive must be a parenthesised query of the edges");
  int min_len = 1;
  if (n >= 4) {
    const sql_expr_t *m = sql_list_at(f->ex_list, 3);
    if (m->ex_kind != SQL_E_LITERAL || m->ex_lit != SQL_LIT_INT || (m->ex_int != 0 && m->ex_int != 1))
      return bd_error(b, SQLSTATE_INVALID_PARAMETER, fr->fr_pos,
                      "the fewest steps of transitive must be the constant 0 or 1");
    min_len = (int)m->ex_int;
  }
  lp_node_t *edges;
  const char **names;
  if (bd_query_node(b, ex->ex_query, sc->sc_parent, sc->sc_subq, &edges, &names, NULL) != CZ_OK)
    return CZ_ERR;
  if (edges->ln_ncols != 2 || edges->ln_types[0].t_id != TY_INT8 || edges->ln_types[1].t_id != TY_INT8)
    return bd_error(b, SQLSTATE_DATATYPE_MISMATCH, fr->fr_pos,
                    "the edges query of transitive must return two bigint columns");
  lp_node_t *roots = NULL;
  if (n == 5) {
    const sql_expr_t *rx = sql_list_at(f->ex_list, 4), *sx = sql_list_at(f->ex_list, 1);
    if (rx->ex_kind != SQL_E_SUBQUERY)
      return bd_error(b, SQLSTATE_DATATYPE_MISMATCH, fr->fr_pos,
                      "the roots of transitive must be a parenthesised query");
    if (sx->ex_kind != SQL_E_LITERAL || sx->ex_lit != SQL_LIT_NULL)
      return bd_error(b, SQLSTATE_INVALID_PARAMETER, fr->fr_pos,
                      "transitive takes a start or roots, not both (start must be NULL)");
    const char **rnames;
    if (bd_query_node(b, rx->ex_query, sc->sc_parent, sc->sc_subq, &roots, &rnames, NULL) != CZ_OK)
      return CZ_ERR;
    if (roots->ln_ncols != 1 || roots->ln_types[0].t_id != TY_INT8)
      return bd_error(b, SQLSTATE_DATATYPE_MISMATCH, fr->fr_pos,
                      "the roots query of transitive must return one bigint column");
  }
  bd_scope_t *args_sc = bd_scope_new(b);
  args_sc->sc_parent = sc->sc_parent;
  args_sc->sc_subq = sc->sc_subq;
  args_sc->sc_agg_forbid = "functions in FROM";
  xnode_t *end[2];
  ty_t i8 = ty_plain(TY_INT8);
  for (int i = 0; i < 2; i++)
    if (bd_expr(b, args_sc, sql_list_at(f->ex_list, 1 + i), &end[i]) != CZ_OK ||
        !(end[i] = bd_coerce(b, end[i], i8)))
      return CZ_ERR;
  ty_t *types = arena_alloc(b->b_a, sizeof(ty_t) * 2);
  types[0] = types[1] = i8;
  sql_from_t named = *fr;
  if (!named.fr_alias)
    named.fr_alias = "transitive";
  if (bd_scope_add(b, sc, bd_rel_derived(b, &named, 2, types, names), fr->fr_pos) != CZ_OK)
    return CZ_ERR;
  /* a logical relation: the generator builds it with the block that
   * reads it (opt/opt_gen_cte.c) */
  lp_node_t *tn = arena_zalloc(b->b_a, sizeof(*tn));
  *tn = (lp_node_t){.ln_kind = LN_TRANSITIVE, .ln_ncols = 2, .ln_types = types, .ln_l = edges,
                    .ln_r = roots, .ln_tr_start = end[0], .ln_tr_stop = end[1],
                    .ln_tr_min = min_len};
  *out = tn;
  return CZ_OK;
}
