/* en_cons_ddl — CHECK and FOREIGN KEY constraints made by DDL: resolved
 * from the syntax tree (columns, the referenced table and its unique
 * index, types), recorded in the catalog and validated against the
 * table's rows (en_constraint_add, for CREATE TABLE and ALTER TABLE … ADD
 * CONSTRAINT); and the foreign keys a DROP TABLE meets. Errors are
 * PostgreSQL 15's (42830, 42804, 42703, 42P10, 2BP01). */
#include <stdio.h>
#include <string.h>

#include "engine/runner/runner_int.h"

/* Column numbers of names in t; 42703 worded for a foreign key. */
static int cd_columns(const cat_table_t *t, const sql_list_t *names, arena_t *a, int **out, int *n,
                      err_t *e)
{
  *n = sql_list_len(names);
  *out = arena_alloc(a, sizeof(int) * (size_t)(*n + 1));
  for (int i = 0; i < *n; i++) {
    const char *nm = sql_list_at(names, i);
    (*out)[i] = cat_find_column(t, nm);
    if ((*out)[i] < 0)
      return err_set(e, SQLSTATE_UNDEFINED_COLUMN,
                     "column \"%s\" referenced in foreign key constraint does not exist", nm);
    for (int j = 0; j < i; j++)
      if ((*out)[j] == (*out)[i])
        return err_set(e, SQLSTATE_DUPLICATE_COLUMN, "foreign key referenced-columns list must not contain duplicates");
  }
  return CZ_OK;
}

/* The unique index of t over exactly the columns cols (in any order). */
static const cat_index_t *cd_unique_index(const cat_table_t *t, const int *cols, int n)
{
  for (int i = 0; i < t->ct_nindexes; i++) {
    const cat_index_t *ix = t->ct_indexes[i];
    if (!ix->ci_unique || ix->ci_hidden || ix->ci_nkeys != n)
      continue;
    bool all = true;
    for (int k = 0; k < n && all; k++) {
      bool has = false;
      for (int j = 0; j < n && !has; j++)
        has = ix->ci_keys[j] == cols[k];
      all = has;
    }
    if (all)
      return ix;
  }
  return NULL;
}

/* Whether x holds a subquery (PostgreSQL refuses them in CHECK). */
static bool cd_has_subquery(const sql_expr_t *x)
{
  if (!x)
    return false;
  if (x->ex_kind == SQL_E_SUBQUERY || x->ex_kind == SQL_E_EXISTS || x->ex_kind == SQL_E_IN_QUERY ||
      x->ex_kind == SQL_E_ARRAY_QUERY || x->ex_query)
    return true;
  if (cd_has_subquery(x->ex_left) || cd_has_subquery(x->ex_right) || cd_has_subquery(x->ex_third))
    return true;
  if (x->ex_kind == SQL_E_CASE) {
    for (int i = 0; i < sql_list_len(x->ex_list); i++) {
      const sql_when_t *w = sql_list_at(x->ex_list, i);
      if (cd_has_subquery(w->wh_cond) || cd_has_subquery(w->wh_result))
        return true;
    }
    return false;
  }
  for (int i = 0; i < sql_list_len(x->ex_list); i++)
    if (cd_has_subquery(sql_list_at(x->ex_list, i)))
      return true;
  return false;
}

static int cd_check(esession_t *s, arena_t *a, const cat_table_t *t, const sql_tabcons_t *tc,
                    cat_constraint_def_t *d, err_t *e)
{
  if (cd_has_subquery(tc->tc_check))
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "cannot use subquery in check constraint");
  if (tc->tc_no_inherit)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "NO INHERIT constraints are not supported: there is no table inheritance");
  const char *text = sql_deparse_expr(a, tc->tc_check, e);
  if (!text)
    return CZ_ERR;
  const char **names = arena_alloc(a, sizeof *names * (size_t)(t->ct_ncols + 1));
  for (int c = 0; c < t->ct_ncols; c++)
    names[c] = t->ct_cols[c].cc_name;
  xnode_t *x;
  bool *used;
  if (sql_bind_check(a, text, t->ct_ncols, names, t->ct_types, t->ct_name, &x, &used, e) != CZ_OK)
    return CZ_ERR;
  (void)s;
  int *keys = arena_alloc(a, sizeof(int) * (size_t)(t->ct_ncols + 1));
  int n = 0;
  for (int c = 0; c < t->ct_ncols; c++)
    if (used[c])
      keys[n++] = c;
  d->nd_type = 'c';
  d->nd_check = text;
  d->nd_nkeys = n;
  d->nd_keys = keys;
  return CZ_OK;
}

static int cd_fkey(esession_t *s, arena_t *a, const cat_table_t *t, const sql_tabcons_t *tc,
                   const char *column, cat_constraint_def_t *d, err_t *e)
{
  int *keys, n;
  if (column) {
    keys = arena_alloc(a, sizeof(int));
    keys[0] = cat_find_column(t, column);
    n = 1;
    if (keys[0] < 0)
      return err_set(e, SQLSTATE_UNDEFINED_COLUMN,
                     "column \"%s\" referenced in foreign key constraint does not exist", column);
  } else if (cd_columns(t, tc->tc_columns, a, &keys, &n, e) != CZ_OK) {
    return CZ_ERR;
  }
  const cat_table_t *rt;
  if (en_lookup_table(s, tc->tc_ref_table.nm_schema, tc->tc_ref_table.nm_name, &rt, e) != CZ_OK)
    return CZ_ERR;
  int *rkeys, rn;
  if (tc->tc_ref_columns) {
    if (cd_columns(rt, tc->tc_ref_columns, a, &rkeys, &rn, e) != CZ_OK)
      return CZ_ERR;
  } else {
    if (rt->ct_npk == 0)
      return err_set(e, SQLSTATE_INVALID_FOREIGN_KEY, "there is no primary key for referenced table \"%s\"",
                     rt->ct_name);
    rn = rt->ct_npk;
    rkeys = (int *)rt->ct_pk;
  }
  if (rn != n)
    return err_set(e, SQLSTATE_INVALID_FOREIGN_KEY,
                   "number of referencing and referenced columns for foreign key disagree");
  const cat_index_t *ix = cd_unique_index(rt, rkeys, rn);
  if (!ix)
    return err_set(e, SQLSTATE_INVALID_FOREIGN_KEY,
                   "there is no unique constraint matching given keys for referenced table \"%s\"",
                   rt->ct_name);
  for (int k = 0; k < n; k++) {
    ty_t ct = t->ct_cols[keys[k]].cc_type, pt = rt->ct_cols[rkeys[k]].cc_type;
    if (ct.t_id == pt.t_id || xcast_implicit(ct, pt) || xcast_implicit(pt, ct))
      continue;
    char cols[128];
    size_t w = 0;
    for (int i = 0; i < n && w < sizeof cols; i++)
      w += (size_t)snprintf(cols + w, sizeof cols - w, "_%s", t->ct_cols[keys[i]].cc_name);
    err_set(e, SQLSTATE_DATATYPE_MISMATCH, "foreign key constraint \"%s\" cannot be implemented",
            tc->tc_name ? tc->tc_name : arena_sprintf(a, "%s%s_fkey", t->ct_name, cols));
    return err_detail(e, "Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.",
                      t->ct_cols[keys[k]].cc_name, rt->ct_cols[rkeys[k]].cc_name, ty_name(a, ct),
                      ty_name(a, pt));
  }
  int nds = 0;
  int *ds = NULL;
  if (tc->tc_del_set_cols) {
    nds = sql_list_len(tc->tc_del_set_cols);
    ds = arena_alloc(a, sizeof(int) * (size_t)(nds + 1));
    for (int i = 0; i < nds; i++) {
      const char *nm = sql_list_at(tc->tc_del_set_cols, i);
      ds[i] = cat_find_column(t, nm);
      if (ds[i] < 0)
        return err_set(e, SQLSTATE_UNDEFINED_COLUMN,
                       "column \"%s\" referenced in foreign key constraint does not exist", nm);
      bool in = false;
      for (int k = 0; k < n && !in; k++)
        in = keys[k] == ds[i];
      if (!in)
        return err_set(e, SQLSTATE_INVALID_COLUMN_REF,
                       "column \"%s\" referenced in ON DELETE SET action must be part of foreign key", nm);
    }
  }
  d->nd_type = 'f';
  d->nd_nkeys = n;
  d->nd_keys = keys;
  d->nd_ref = rt->ct_oid;
  d->nd_ref_keys = rkeys;
  d->nd_ref_index = ix->ci_oid;
  d->nd_upd_action = tc->tc_on_update ? tc->tc_on_update : SQL_FK_NO_ACTION;
  d->nd_del_action = tc->tc_on_delete ? tc->tc_on_delete : SQL_FK_NO_ACTION;
  d->nd_match = tc->tc_match ? tc->tc_match : 's';
  d->nd_ndel_set = nds;
  d->nd_del_set = ds;
  d->nd_deferrable = tc->tc_deferrable;
  d->nd_deferred = tc->tc_deferred;
  return CZ_OK;
}

int en_constraint_add(esession_t *s, arena_t *a, const cat_table_t *t, const sql_tabcons_t *tc,
                      const char *column, err_t *e)
{
  cat_constraint_def_t d = {.nd_name = tc->tc_name, .nd_table = t->ct_oid};
  int rc;
  if (tc->tc_kind == 'c')
    rc = cd_check(s, a, t, tc, &d, e);
  else if (tc->tc_kind == 'f')
    rc = cd_fkey(s, a, t, tc, column, &d, e);
  else
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "en_constraint_add makes CHECK and FOREIGN KEY constraints only");
  if (rc != CZ_OK) {
    if (e->er_pos == 0)
      e->er_pos = tc->tc_pos;
    return CZ_ERR;
  }
  cat_oid_t oid;
  txn_t *tx = es_txn(s);
  if (cat_create_constraint(es_engine(s)->en_cat, tx, &d, &oid, NULL, e) != CZ_OK)
    return CZ_ERR;
  es_refresh_snapshot(s);
  const cat_constraint_t *co = cat_constraint_by_oid(es_snapshot(s), oid);
  if (!co)
    return err_set(e, SQLSTATE_INTERNAL, "constraint %u vanished", (unsigned)oid);
  return en_cons_validate(s, tx, co, a, e);
}

int en_constraint_drop_refs(esession_t *s, const cat_table_t *t, bool cascade, err_t *e)
{
  int others = 0;
  const cat_constraint_t *first = NULL;
  for (int i = 0; i < t->ct_nrefby; i++)
    if (t->ct_refby[i]->co_table != t) {
      others++;
      if (!first)
        first = t->ct_refby[i];
    }
  if (!others)
    return CZ_OK;
  if (!cascade) {
    err_set(e, SQLSTATE_DEPENDENT_OBJECTS, "cannot drop table %s because other objects depend on it",
            t->ct_name);
    char buf[sizeof e->er_detail];
    size_t w = 0;
    for (int i = 0; i < t->ct_nrefby && w < sizeof buf; i++) {
      const cat_constraint_t *co = t->ct_refby[i];
      if (co->co_table != t)
        w += (size_t)snprintf(buf + w, sizeof buf - w, "%sconstraint %s on table %s depends on table %s",
                              w ? "\n" : "", co->co_name, co->co_table->ct_name, t->ct_name);
    }
    return err_detail(e, "%s", buf);
  }
  if (others == 1)
    es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION, "drop cascades to constraint %s on table %s",
              first->co_name, first->co_table->ct_name);
  else
    es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION, "drop cascades to %d other objects", others);
  cat_oid_t *oids = arena_alloc(txn_arena(es_txn(s)), sizeof *oids * (size_t)others);
  int n = 0;
  for (int i = 0; i < t->ct_nrefby; i++)
    if (t->ct_refby[i]->co_table != t)
      oids[n++] = t->ct_refby[i]->co_oid;
  for (int i = 0; i < n; i++)
    if (cat_drop_constraint(es_engine(s)->en_cat, es_txn(s), oids[i], e) != CZ_OK)
      return CZ_ERR;
  es_refresh_snapshot(s);
  return CZ_OK;
}
