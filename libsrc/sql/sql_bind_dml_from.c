/* sql_bind_dml_from — UPDATE … FROM and DELETE … USING: the target and
 * the other FROM items form one block, planned by the join planner like a
 * SELECT's FROM; the modify operator then changes each target row once.
 *
 * Design notes:
 * - The block (lp_dml_t ld_from, planned by opt/opt_gen_dml.c with the
 *   statement) has a row of the target's columns (0 .. nc-1), the target's row
 *   locator (column nc, not nameable: the target's scope entry has nc
 *   columns), then the other items' columns, as bd_from_units lays them
 *   out. The target is the block's first unit with un_rowid set, so its
 *   scan takes its own WHERE conjuncts as key bounds and returns the
 *   locator; the join order and methods are the planner's choice.
 * - UPDATE projects the block row to the new values (columns 0 .. nc-1),
 *   the locator, and the other items' columns unchanged after it, so that
 *   RETURNING, bound over the block's scope, reads the new values of the
 *   target and the joined rows of the others at the same positions.
 * - A target row joined to several rows comes several times: the modify
 *   operator changes (counts, returns) only its first (op_dml_set_joined);
 *   PostgreSQL likewise updates it once, with an arbitrary one of them.
 * - The whole join is buffered before the first change (the scan must not
 *   meet the rows it changes).
 * - READ COMMITTED's recheck (op_dml_set_recheck): a target row another
 *   transaction changed is re-evaluated with the joined rows held fixed
 *   (PostgreSQL's EvalPlanQual): the projection then always carries the
 *   other items' columns, and the WHERE with the join conditions is
 *   tested again over [current target row, its locator, those columns].
 */
#include <string.h>

#include "sql/sql_bind_int.h"

/* The block of the target (name, alias) and the items from, with WHERE
 * bound into fb's conjuncts. */
static int bd_dml_block(bd_t *b, const sql_name_t *name, const char *alias, const sql_list_t *from,
                        const sql_expr_t *where, unsigned priv, const sp_table_t **tout,
                        bd_scope_t **scout, lp_block_t **fbout)
{
  const sp_table_t *t;
  if (bd_lookup_target(b, name, priv == SQL_PRIV_DELETE ? "delete from" : "update", &t, NULL) !=
      CZ_OK)
    return CZ_ERR;
  bd_access(b, t, priv);
  bd_scope_t *sc = bd_table_scope(b, t, alias);
  sc->sc_width = t->tb_ncols + 1;  /* the locator */
  lp_block_t *fb = arena_zalloc(b->b_a, sizeof(*fb));
  fb->fb_ucap = 8;
  fb->fb_units = arena_zalloc(b->b_a, sizeof(lp_rel_t) * (size_t)fb->fb_ucap);
  lp_rel_t *u = &fb->fb_units[fb->fb_nunits++];
  u->un_base = 0;
  u->un_width = t->tb_ncols + 1;
  u->un_table = t;
  u->un_alias = sc->sc_rels[0]->rl_name;
  u->un_rowid = true;
  for (int i = 0; i < sql_list_len(from); i++)
    if (bd_from_units(b, sc, sql_list_at(from, i), fb) != CZ_OK)
      return CZ_ERR;
  if (where) {
    xnode_t *w;
    sc->sc_agg = NULL;
    sc->sc_agg_forbid = "WHERE";
    if (bd_cond(b, sc, where, "WHERE", &w) != CZ_OK)
      return CZ_ERR;
    bd_conjuncts(b, w, &fb->fb_conj, &fb->fb_nconj, &fb->fb_cap);
    bd_access(b, t, SQL_PRIV_SELECT);  /* reading columns in WHERE needs SELECT */
  }
  *tout = t;
  *scout = sc;
  *fbout = fb;
  return CZ_OK;
}

/* Can a changed target row be re-evaluated (op_dml_set_recheck) over the
 * block row with the joined rows held fixed (whatever the other items
 * are: their row as the join produced it)? Not when WHERE or SET holds a
 * subquery (it would have to run again): such a row stays 40001. */
static bool bd_dml_epq_ok(bd_t *b, const lp_block_t *fb, xnode_t **set_x, int nc)
{
  (void)b;
  for (int i = 0; i < fb->fb_nconj; i++)
    if (bd_node_has_subq(fb->fb_conj[i]))
      return false;
  for (int c = 0; set_x && c < nc; c++)
    if (set_x[c] && bd_node_has_subq(set_x[c]))
      return false;
  return true;
}

int bd_update_from(bd_t *b, const sql_update_t *up, op_t **out)
{
  const sp_table_t *t;
  bd_scope_t *sc;
  lp_block_t *fb;
  if (bd_dml_block(b, &up->up_table, up->up_alias, up->up_from, up->up_where, SQL_PRIV_UPDATE,
                   &t, &sc, &fb) != CZ_OK)
    return CZ_ERR;
  int nc = t->tb_ncols;
  xnode_t **set_x;
  bool *set;
  sc->sc_agg_forbid = "UPDATE";
  if (bd_set_list(b, sc, t, up->up_set, &set_x, &set) != CZ_OK)
    return CZ_ERR;
  bd_ret_t ret;
  if (bd_returning_bind(b, sc, up->up_returning, &ret) != CZ_OK)
    return CZ_ERR;
  bool epq = bd_dml_epq_ok(b, fb, set_x, nc);
  xnode_t *where = epq && fb->fb_nconj ? bd_and_all(b, fb->fb_conj, fb->fb_nconj) : NULL;
  if (bd_from_finish(b, sc, fb) != CZ_OK)  /* planned by the generator (opt_gen_dml.c) */
    return CZ_ERR;
  /* new values, the locator, then (for RETURNING and the recheck, which
   * holds the joined rows fixed) the other items, passed on (NULL) */
  int width = ret.rt_n > 0 || epq ? sc->sc_width : nc + 1;
  xnode_t **x = arena_zalloc(b->b_a, sizeof(xnode_t *) * (size_t)(width + 1));
  for (int c = 0; c < nc; c++)
    x[c] = set[c] ? set_x[c] : bd_col(b, c, t->tb_coltypes[c]);
  lp_dml_t *d = arena_zalloc(b->b_a, sizeof(*d));
  *d = (lp_dml_t){.ld_table = t, .ld_from = fb, .ld_nout = width, .ld_out = x, .ld_set = set,
                  .ld_joined = true};
  if (epq) {
    d->ld_rk_where = where;
    d->ld_rk_out = x;
  }
  return bd_dml_gen(b, LN_UPDATE, d, &ret, out);
}

int bd_delete_using(bd_t *b, const sql_delete_t *de, op_t **out)
{
  const sp_table_t *t;
  bd_scope_t *sc;
  lp_block_t *fb;
  if (bd_dml_block(b, &de->de_table, de->de_alias, de->de_using, de->de_where, SQL_PRIV_DELETE,
                   &t, &sc, &fb) != CZ_OK)
    return CZ_ERR;
  bd_ret_t ret;
  if (bd_returning_bind(b, sc, de->de_returning, &ret) != CZ_OK)
    return CZ_ERR;
  bool epq = bd_dml_epq_ok(b, fb, NULL, 0);
  xnode_t *where = epq && fb->fb_nconj ? bd_and_all(b, fb->fb_conj, fb->fb_nconj) : NULL;
  if (bd_from_finish(b, sc, fb) != CZ_OK)  /* planned by the generator (opt_gen_dml.c) */
    return CZ_ERR;
  lp_dml_t *d = arena_zalloc(b->b_a, sizeof(*d));
  *d = (lp_dml_t){.ld_table = t, .ld_from = fb, .ld_joined = true};
  if (epq) {
    /* the recheck passes the block's row on as it is (NULL entries) */
    d->ld_rk_where = where;
    d->ld_nout = sc->sc_width;
    d->ld_rk_out = arena_zalloc(b->b_a, sizeof(xnode_t *) * (size_t)(sc->sc_width + 1));
  }
  return bd_dml_gen(b, LN_DELETE, d, &ret, out);
}
