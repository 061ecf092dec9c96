/* opt_gen_cte — the generator of WITH RECURSIVE's union (LN_RECURSIVE)
 * and of references to a materialised WITH query (LN_CTE), lp_node_t in
 * sql/sql_logical.h.
 *
 * - A recursive union (exec op_recursive.c) runs its non-recursive term,
 *   then its recursive term over the working table holding the rows of
 *   the iteration before, until an iteration adds none; the recursive
 *   term is cast to the non-recursive term's types where they differ
 *   (the binder has checked that only the type name, never a length or
 *   precision, changes).
 * - A materialised WITH query (exec op_cte.c) is one op_cte_t whose body
 *   runs once per execution into a worktable; each reference is a scan
 *   of it. The first reference generated makes it (lp_cte_t lc_mat) and
 *   the others share it, so the body runs once however many read it. */
#include "exec/exec_ql.h"
#include "opt/opt_int.h"

int opt_gen_recursive(lp_ctx_t *b, const lp_node_t *n, op_t **out)
{
  op_t *l, *r;
  if (!n->ln_worktable)
    return err_set(b->lc_e, SQLSTATE_INTERNAL, "a recursive union without its working table");
  if (opt_gen_query(b, n->ln_l, &l) != CZ_OK || opt_gen_query(b, n->ln_r, &r) != CZ_OK)
    return CZ_ERR;
  r = opt_cast_side(b, r, n->ln_ncols, n->ln_rcast);
  *out = op_recursive_new(b->lc_a, l, r, n->ln_worktable, n->ln_all);
  return CZ_OK;
}

int opt_gen_cte(lp_ctx_t *b, const lp_node_t *n, op_t **out)
{
  lp_cte_t *c = n->ln_cte;
  if (!c)
    return err_set(b->lc_e, SQLSTATE_INTERNAL, "a WITH query reference without its query");
  if (!c->lc_mat) {
    op_t *body;
    if (opt_gen_query(b, c->lc_body, &body) != CZ_OK)
      return CZ_ERR;
    c->lc_mat = op_cte_new(b->lc_a, body, c->lc_name);
  }
  *out = op_cte_scan_new(b->lc_a, c->lc_mat);
  return CZ_OK;
}
