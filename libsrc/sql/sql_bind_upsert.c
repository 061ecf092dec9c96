/* sql_bind_upsert — INSERT … ON CONFLICT: which unique index arbitrates
 * (the conflict target), and DO UPDATE's SET and WHERE, bound over the
 * existing row and the proposed one (`excluded`).
 *
 * Design notes:
 * - The arbiter is found as PostgreSQL infers it: the unique index (or
 *   primary key) whose key columns are exactly the listed ones, in any
 *   order (42P10 when none), or the constraint named by ON CONSTRAINT
 *   (42704). An index predicate (`ON CONFLICT (a) WHERE p`) is bound and
 *   checked but selects nothing: Cadenza has no partial indexes, and a
 *   non-partial index satisfies every predicate. DO NOTHING without a
 *   target arbitrates on every unique index; DO UPDATE needs a target
 *   (42601).
 * - DO UPDATE's expressions see the row [the existing row's nc columns
 *   (named as the target, or its alias), its locator (not nameable), the
 *   proposed row's nc columns named `excluded`]: the layout the table
 *   layer hands the executor's evaluation (qcf_eval_t).
 */
#include <string.h>

#include "sql/sql_bind_int.h"

/* Whether the n columns cols are the columns names names (any order). */
static bool same_columns(const sp_table_t *t, const int *cols, int n, const sql_list_t *names)
{
  if (n != sql_list_len(names))
    return false;
  for (int i = 0; i < n; i++) {
    bool found = false;
    for (int j = 0; j < n && !found; j++)
      found = strcmp(t->tb_colnames[cols[j]], sql_list_at(names, i)) == 0;
    if (!found)
      return false;
  }
  return true;
}

/* The arbiter index number (0 the primary key; -1 every unique index). */
static int bd_conflict_index(bd_t *b, const sp_table_t *t, const sql_insert_t *in, int *out)
{
  *out = -1;
  int pos = in->in_conflict_pos;
  if (in->in_conflict_constraint) {
    const char *name = in->in_conflict_constraint;
    if (t->tb_pk_name && strcmp(t->tb_pk_name, name) == 0) {
      *out = 0;
      return CZ_OK;
    }
    for (int i = 0; i < t->tb_nindexes; i++)
      if (t->tb_indexes[i].ix_unique && strcmp(t->tb_indexes[i].ix_name, name) == 0) {
        *out = t->tb_indexes[i].ix_no;
        return CZ_OK;
      }
    return bd_error(b, SQLSTATE_UNDEFINED_OBJECT, pos,
                    "constraint \"%s\" for table \"%s\" does not exist", name, t->tb_name);
  }
  if (!in->in_conflict_cols) {
    if (in->in_do_update)
      return bd_error(b, SQLSTATE_SYNTAX_ERROR, pos,
                      "ON CONFLICT DO UPDATE requires inference specification or constraint name");
    return CZ_OK;
  }
  for (int i = 0; i < sql_list_len(in->in_conflict_cols); i++) {
    const char *name = sql_list_at(in->in_conflict_cols, i);
    int c;
    for (c = 0; c < t->tb_ncols && strcmp(t->tb_colnames[c], name) != 0; c++)
      ;
    if (c == t->tb_ncols)
      return bd_error(b, SQLSTATE_UNDEFINED_COLUMN, pos, "column \"%s\" does not exist", name);
  }
  if (in->in_conflict_where) {
    bd_scope_t *sc = bd_table_scope(b, t, in->in_alias);
    sc->sc_agg_forbid = "index predicates";
    xnode_t *w;
    if (bd_cond(b, sc, in->in_conflict_where, "WHERE", &w) != CZ_OK)
      return CZ_ERR;
  }
  if (t->tb_npk > 0 && same_columns(t, t->tb_pk, t->tb_npk, in->in_conflict_cols)) {
    *out = 0;
    return CZ_OK;
  }
  for (int i = 0; i < t->tb_nindexes; i++)
    if (t->tb_indexes[i].ix_unique &&
        same_columns(t, t->tb_indexes[i].ix_cols, t->tb_indexes[i].ix_ncols,
                     in->in_conflict_cols)) {
      *out = t->tb_indexes[i].ix_no;
      return CZ_OK;
    }
  return bd_error(b, SQLSTATE_INVALID_COLUMN_REF, pos,
                  "there is no unique or exclusion constraint matching the ON CONFLICT "
                  "specification");
}

static void reads_target(void *ctx, xnode_t *col)
{
  int *nc = ctx;
  if (col->x_index < nc[0])
    nc[1] = 1;
}

int bd_on_conflict(bd_t *b, const sp_table_t *t, const sql_insert_t *in, lp_dml_t *d)
{
  int index;
  if (bd_conflict_index(b, t, in, &index) != CZ_OK)
    return CZ_ERR;
  d->ld_conflict = true;
  d->ld_conf_index = index;
  if (!in->in_do_update)
    return CZ_OK;
  bd_access(b, t, SQL_PRIV_UPDATE);
  int nc = t->tb_ncols;
  /* [target columns, locator, excluded columns] */
  bd_scope_t *sc = bd_table_scope(b, t, in->in_alias);
  bd_rel_t *ex = arena_zalloc(b->b_a, sizeof(*ex));
  *ex = *sc->sc_rels[0];
  ex->rl_name = "excluded";
  ex->rl_schema = NULL;
  ex->rl_base = nc + 1;
  bd_rel_t **rels = arena_alloc(b->b_a, sizeof(bd_rel_t *) * 2);
  rels[0] = sc->sc_rels[0];
  rels[1] = ex;
  sc->sc_rels = rels;
  sc->sc_nrels = 2;
  sc->sc_width = 2 * nc + 1;
  sc->sc_agg_forbid = "UPDATE";
  xnode_t **x;
  bool *set;
  if (bd_set_list(b, sc, t, in->in_update_set, &x, &set) != CZ_OK)
    return CZ_ERR;
  xnode_t *where = NULL;
  if (in->in_update_where) {
    sc->sc_agg_forbid = "WHERE";
    if (bd_cond(b, sc, in->in_update_where, "WHERE", &where) != CZ_OK)
      return CZ_ERR;
  }
  int probe[2] = {nc, 0};  /* reading the existing row needs SELECT */
  for (int c = 0; c < nc; c++)
    if (x[c])
      bd_node_cols(x[c], reads_target, probe);
  if (where)
    bd_node_cols(where, reads_target, probe);
  if (probe[1])
    bd_access(b, t, SQL_PRIV_SELECT);
  d->ld_conf_set = set;
  d->ld_conf_x = x;
  d->ld_conf_where = where;
  return CZ_OK;
}
