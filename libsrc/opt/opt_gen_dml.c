/* opt_gen_dml — the generator of INSERT, UPDATE and DELETE (lp_dml_t,
 * sql/sql_logical.h): the rows' source (for a one-table UPDATE / DELETE
 * the target's scan, its access path chosen here), the row handed to the
 * writer, the writer with its ON CONFLICT, joined-row and recheck
 * settings, and RETURNING over it.
 *
 * Why the buffers: an UPDATE or DELETE reads the table it changes, and
 * a changed row may move ahead of the scan (a new key, a changed indexed
 * column), so every row to change is read before the first change; an
 * INSERT … SELECT reading its target likewise (ld_self_read). RETURNING's
 * buffer runs the whole change at the first fetch, as PostgreSQL does,
 * whatever the client's row limit. */
#include <string.h>

#include "opt/opt_int.h"

/* The target's scan of a one-table UPDATE / DELETE: the columns the
 * statement reads and the locator, WHERE as key bounds where it allows. */
static op_t *target_scan(lp_ctx_t *b, const lp_dml_t *d)
{
  /* opt_scan_cols takes the conjuncts it uses as key bounds out of the
   * list it is given: the node's own list stays whole */
  xnode_t **conj = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(d->ld_nconj + 1));
  if (d->ld_nconj)
    memcpy(conj, d->ld_conj, sizeof(xnode_t *) * (size_t)d->ld_nconj);
  return opt_scan_cols(b, d->ld_table, d->ld_alias, true, conj, d->ld_nconj, d->ld_need);
}

/* x (n entries) with each NULL entry the source row's column at its
 * position, typed as src gives it (the binder leaves passed-on columns
 * NULL: their types are the plan's); NULL x: NULL. */
static xnode_t **passed_on(lp_ctx_t *b, xnode_t **x, int n, const op_t *src)
{
  if (!x)
    return NULL;
  xnode_t **r = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(n + 1));
  for (int c = 0; c < n; c++)
    r[c] = x[c] ? x[c] : bd_col(b->lc_b, c, src->o_types[c]);
  return r;
}

/* The recheck of a changed row over src's row (the target's columns at
 * 0, its locator after them, then any other items' columns). */
static const oplock_recheck_t *recheck(lp_ctx_t *b, const lp_dml_t *d, const op_t *src,
                                       xnode_t **rk_out)
{
  const sp_table_t *t = d->ld_table;
  oplock_recheck_t *rk = arena_zalloc(b->lc_a, sizeof(*rk));
  *rk = (oplock_recheck_t){.rk_width = src->o_ncols, .rk_types = src->o_types, .rk_base = 0,
                           .rk_ncols = t->tb_ncols, .rk_filter = d->ld_rk_where,
                           .rk_out = rk_out};
  if (!d->ld_src && !d->ld_from) {
    /* the scan leaves the columns nobody reads out (NULL typed): the
     * recheck reads the current row as the table has it */
    ty_t *types = arena_zalloc(b->lc_a, sizeof(ty_t) * (size_t)(t->tb_ncols + 2));
    for (int c = 0; c < t->tb_ncols; c++)
      types[c] = t->tb_coltypes[c];
    types[t->tb_ncols] = ty_plain(TY_BYTEA);
    rk->rk_width = t->tb_ncols + 1;
    rk->rk_types = types;
  }
  return rk;
}

int opt_gen_dml(lp_ctx_t *b, const lp_node_t *n, op_t **out, op_t **writer)
{
  const lp_dml_t *d = n->ln_dml;
  if (!d || (n->ln_kind != LN_INSERT && n->ln_kind != LN_UPDATE && n->ln_kind != LN_DELETE))
    return err_set(b->lc_e, SQLSTATE_INTERNAL, "a data-changing node without its statement");
  const sp_table_t *t = d->ld_table;
  int nc = t->tb_ncols;
  op_t *src;
  if (d->ld_src) {
    if (opt_gen_query(b, d->ld_src, &src) != CZ_OK)
      return CZ_ERR;
  } else if (d->ld_from) {
    if (opt_block_plan(b, d->ld_from, &src) != CZ_OK)
      return CZ_ERR;
  } else if (n->ln_kind == LN_INSERT) {
    return err_set(b->lc_e, SQLSTATE_INTERNAL, "an INSERT node without rows");
  } else {
    src = target_scan(b, d);
  }
  /* UPDATE … FROM / DELETE … USING pass the other items' columns on */
  xnode_t **out_x = d->ld_from ? passed_on(b, d->ld_out, d->ld_nout, src) : d->ld_out;
  op_t *rows = out_x ? op_project_new(b->lc_a, src, d->ld_nout, out_x) : src;
  if (d->ld_check)
    rows = op_filter_new(b->lc_a, rows, d->ld_check);
  if (n->ln_kind != LN_INSERT || d->ld_self_read)
    rows = op_buffer_new(b->lc_a, rows);
  op_t *w;
  switch (n->ln_kind) {
  case LN_INSERT:
    w = op_insert_new(b->lc_a, rows, t->tb_handle, t->tb_name);
    if (d->ld_conflict) {
      if (d->ld_conf_x)
        op_insert_do_update(w, d->ld_conf_index, nc, d->ld_conf_set, d->ld_conf_x,
                            d->ld_conf_where);
      else
        op_insert_skip_conflicts(w, d->ld_conf_index);
    }
    break;
  case LN_UPDATE:
    w = op_update_new(b->lc_a, rows, t->tb_handle, t->tb_name, d->ld_set);
    break;
  default:
    w = op_delete_new(b->lc_a, rows, t->tb_handle, t->tb_name, nc);
    break;
  }
  if (d->ld_joined)
    op_dml_set_joined(w, nc, n->ln_kind == LN_UPDATE ? nc + 1 : 0);
  if (d->ld_rk_out)
    op_dml_set_recheck(w, recheck(b, d, src,
                                  !d->ld_from                 ? d->ld_rk_out
                                  : d->ld_rk_out == d->ld_out ? out_x
                                                              : passed_on(b, d->ld_rk_out,
                                                                          d->ld_nout, src)));
  if (writer)
    *writer = w;
  if (!d->ld_ret) {
    *out = w;
    return CZ_OK;
  }
  op_dml_set_returning(w);
  *out = op_buffer_new(b->lc_a, op_project_new(b->lc_a, w, d->ld_nret, d->ld_ret));
  return CZ_OK;
}
