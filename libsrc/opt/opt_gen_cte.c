/* opt_gen_cte — the generator of WITH RECURSIVE's union (LN_RECURSIVE)
 * and its working table (LN_WORKTABLE), of references to a materialised
 * WITH query (LN_CTE), and of transitive(…) in FROM (LN_TRANSITIVE: the
 * other recursive relation), lp_node_t in sql/sql_logical.h.
 *
 * - A recursive union (exec op_recursive.c) runs its non-recursive term,
 *   then its recursive term over the working table holding the rows of
 *   the iteration before, until an iteration adds none; the recursive
 *   term is cast to the non-recursive term's types where they differ
 *   (the binder has checked that only the type name, never a length or
 *   precision, changes). The working table (exec op_worktable) is made
 *   here, between the two terms, and the recursive term's LN_WORKTABLE
 *   leaf is it.
 * - A materialised WITH query (exec op_cte.c) is one op_cte_t whose body
 *   runs once per execution into a worktable; each reference is a scan
 *   of it. The first reference generated makes it (lp_cte_t lc_mat),
 *   generating the body, and the others share it, so the body runs once
 *   however many read it.
 * - transitive(…) (exec op_transitive.c): its edge query and roots
 *   query generated, the closure over them. */
#include "exec/exec_ql.h"
#include "opt/opt_int.h"

int opt_gen_recursive(lp_ctx_t *b, const lp_node_t *n, op_t **out)
{
  op_t *l, *r;
  lp_wtable_t *wt = n->ln_wt;
  if (!wt)
    return err_set(b->lc_e, SQLSTATE_INTERNAL, "a recursive union without its working table");
  if (opt_gen_query(b, n->ln_l, &l) != CZ_OK)
    return CZ_ERR;
  /* the leaf the recursive term reads; a new one per generation, so
   * each generated union has its own */
  op_t *leaf = op_worktable_new(b->lc_a, wt->wt_name, n->ln_ncols, n->ln_types);
  wt->wt_op = leaf;
  if (opt_gen_query(b, n->ln_r, &r) != CZ_OK)
    return CZ_ERR;
  r = opt_cast_side(b, r, n->ln_ncols, n->ln_rcast);
  *out = op_recursive_new(b->lc_a, l, r, leaf, n->ln_all);
  return CZ_OK;
}

int opt_gen_worktable(lp_ctx_t *b, const lp_node_t *n, op_t **out)
{
  if (!n->ln_wt || !n->ln_wt->wt_op)
    return err_set(b->lc_e, SQLSTATE_INTERNAL,
                   "a working table read outside its recursive union");
  *out = n->ln_wt->wt_op;
  return CZ_OK;
}

int opt_gen_cte(lp_ctx_t *b, const lp_node_t *n, op_t **out)
{
  lp_cte_t *c = n->ln_cte;
  if (!c)
    return err_set(b->lc_e, SQLSTATE_INTERNAL, "a WITH query reference without its query");
  if (!c->lc_mat) {
    /* as the binder would have generated it, outside any decorrelating
     * rebinding (the body is bound outside one) */
    lp_ctx_t bc = *b;
    bc.lc_decor = false;
    op_t *body;
    if (opt_gen_query(&bc, c->lc_body, &body) != CZ_OK)
      return CZ_ERR;
    c->lc_mat = op_cte_new(b->lc_a, body, c->lc_name);
  }
  *out = op_cte_scan_new(b->lc_a, c->lc_mat);
  return CZ_OK;
}

int opt_gen_transitive(lp_ctx_t *b, const lp_node_t *n, op_t **out)
{
  op_t *edges, *roots = NULL;
  if (opt_gen_query(b, n->ln_l, &edges) != CZ_OK ||
      (n->ln_r && opt_gen_query(b, n->ln_r, &roots) != CZ_OK))
    return CZ_ERR;
  *out = op_transitive_new(b->lc_a, edges, roots, n->ln_tr_start, n->ln_tr_stop, n->ln_tr_min);
  return CZ_OK;
}
