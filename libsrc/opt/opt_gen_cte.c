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

op_t *opt_gen_recursive(lp_ctx_t *b, const lp_node_t *n)
{
  op_t *l = opt_gen_node(b, n->ln_l), *r = opt_gen_node(b, n->ln_r);
  if (!l || !r || !n->ln_worktable)
    return NULL;
  r = opt_cast_side(b, r, n->ln_ncols, n->ln_rcast);
  return op_recursive_new(b->lc_a, l, r, n->ln_worktable, n->ln_all);
}

op_t *opt_gen_cte(lp_ctx_t *b, const lp_node_t *n)
{
  lp_cte_t *c = n->ln_cte;
  if (!c)
    return NULL;
  if (!c->lc_mat) {
    op_t *body = opt_gen_node(b, c->lc_body);
    if (!body)
      return NULL;
    c->lc_mat = op_cte_new(b->lc_a, body, c->lc_name);
  }
  return op_cte_scan_new(b->lc_a, c->lc_mat);
}
