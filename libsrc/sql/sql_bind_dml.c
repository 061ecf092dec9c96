/* sql_bind_dml — INSERT, UPDATE and DELETE bound into a logical node
 * (lp_dml_t, sql_logical.h): where the rows to write come from (VALUES,
 * a query, or the target's WHERE and the columns the statement reads, its
 * scan being the optimizer's), the row written, converted to the columns'
 * types, and what the writer does besides (ON CONFLICT, the recheck,
 * RETURNING); opt/opt_gen_dml.c builds the operators. Column defaults are
 * SQL text in the catalog, parsed and bound here. */
#include <string.h>

#include "sql/sql_bind_int.h"

/* bd_access, with the privileges of uv's owner when t is written through
 * a view (the user needs them on the view: sql_bind_view.c records that). */
static void bd_access_as(bd_t *b, const sp_table_t *t, unsigned priv, const bd_uview_t *uv)
{
  uint32_t saved = b->b_view_owner;
  if (uv && uv->uv_view)
    b->b_view_owner = uv->uv_view->vi_owner;
  bd_access(b, t, priv);
  b->b_view_owner = saved;
}

/* Assignment conversion of n to column c of t (42804 when not allowed). */
xnode_t *bd_assign(bd_t *b, const sp_table_t *t, int c, xnode_t *n, int pos)
{
  ty_t to = t->tb_coltypes[c];
  if (n->x_type.t_id != TY_UNKNOWN && n->x_type.t_id != to.t_id &&
      !xcast_allowed(n->x_type, to, false)) {
    bd_error(b, SQLSTATE_DATATYPE_MISMATCH, pos,
             "column \"%s\" is of type %s but expression is of type %s", t->tb_colnames[c],
             ty_name(b->b_a, to), ty_name(b->b_a, n->x_type));
    return NULL;
  }
  return bd_coerce(b, n, to);
}

/* The DEFAULT of column c (NULL when it has none). */
xnode_t *bd_default(bd_t *b, const sp_table_t *t, int c)
{
  const char *text = t->tb_defaults ? t->tb_defaults[c] : NULL;
  if (!text)
    return bd_const_null(b, t->tb_coltypes[c]);
  char *sql = arena_sprintf(b->b_a, "SELECT %s", text);
  sql_stmt_list_t *l;
  if (sql_parse(b->b_a, sql, strlen(sql), &l, b->b_e) != CZ_OK)
    return NULL;
  if (l->sl_n != 1 || l->sl_stmts[0]->st_kind != SQL_STMT_SELECT ||
      l->sl_stmts[0]->st_query->qu_kind != SQL_Q_SELECT) {
    bd_error(b, SQLSTATE_INTERNAL, 0, "bad default of column \"%s\"", t->tb_colnames[c]);
    return NULL;
  }
  const sql_target_t *tg = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 0);
  bd_scope_t *empty = bd_scope_new(b);
  empty->sc_agg_forbid = "DEFAULT expressions";
  xnode_t *n;
  if (bd_expr(b, empty, tg->tg_expr, &n) != CZ_OK)
    return NULL;
  return bd_assign(b, t, c, n, 0);
}

/* Table t alone as a scope, its columns at 0.. (named alias when given). */
bd_scope_t *bd_table_scope(bd_t *b, const sp_table_t *t, const char *alias)
{
  bd_scope_t *sc = arena_zalloc(b->b_a, sizeof(*sc));
  bd_rel_t *r = arena_zalloc(b->b_a, sizeof(*r));
  r->rl_name = alias ? alias : t->tb_name;
  r->rl_schema = alias ? NULL : t->tb_schema;
  r->rl_ncols = t->tb_ncols;
  r->rl_cols = t->tb_colnames;
  r->rl_types = (ty_t *)t->tb_coltypes;
  r->rl_table = t;
  sc->sc_rels = arena_alloc(b->b_a, sizeof(bd_rel_t *));
  sc->sc_rels[0] = r;
  sc->sc_nrels = 1;
  sc->sc_width = t->tb_ncols;
  return sc;
}

/* Identity columns (sp_table_t tb_identity): whether column c takes its
 * DEFAULT although a value was written for it (OVERRIDING USER VALUE), or
 * refuses the value (428C9: GENERATED ALWAYS without OVERRIDING SYSTEM
 * VALUE). */
static int bd_identity_value(bd_t *b, const sp_table_t *t, const sql_insert_t *in, int c, int pos,
                             bool *use_default)
{
  char id = t->tb_identity ? t->tb_identity[c] : 0;
  *use_default = id && in->in_overriding == 'u';
  if (id == 'a' && !in->in_overriding)
    return bd_error(b, SQLSTATE_GENERATED_ALWAYS, pos,
                    "cannot insert a non-DEFAULT value into column \"%s\"", t->tb_colnames[c]);
  return CZ_OK;
}

int bd_insert(bd_t *b, const sql_insert_t *in, op_t **out)
{
  const sp_table_t *t;
  bd_uview_t uv;
  if (bd_lookup_target(b, &in->in_table, "insert into", &t, &uv) != CZ_OK)
    return CZ_ERR;
  bd_access_as(b, t, SQL_PRIV_INSERT, &uv);
  sql_insert_t vin;
  if (uv.uv_view) {
    /* through a view: its column names are its table's (sql_bind_view.c) */
    vin = *in;
    int n = in->in_columns ? sql_list_len(in->in_columns) : uv.uv_ncols;
    const sql_query_t *vq = in->in_query;
    if (!in->in_columns && vq && vq->qu_kind == SQL_Q_VALUES && sql_list_len(vq->qu_rows) > 0 &&
        sql_list_len(sql_list_at(vq->qu_rows, 0)) < n)
      n = sql_list_len(sql_list_at(vq->qu_rows, 0));  /* the rest: defaults */
    sql_list_t *cols = arena_zalloc(b->b_a, sizeof(*cols));
    cols->ls_items = arena_alloc(b->b_a, sizeof(void *) * (size_t)(n + 1));
    cols->ls_cap = n + 1;
    for (int i = 0; i < n; i++) {
      const char *name;
      if (in->in_columns) {
        if (bd_view_colname(b, &uv, sql_list_at(in->in_columns, i), in->in_table.nm_pos,
                            &name) != CZ_OK)
          return CZ_ERR;
      } else
        name = t->tb_colnames[uv.uv_map[i]];
      cols->ls_items[cols->ls_n++] = (void *)name;
    }
    vin.in_columns = n ? cols : NULL;
    in = &vin;
  }
  int nc = t->tb_ncols;
  /* src[c]: position of table column c in the written column list, -1 = default */
  int *src = arena_alloc(b->b_a, sizeof(int) * (size_t)(nc + 1));
  int nlist = in->in_columns ? sql_list_len(in->in_columns) : nc;
  for (int c = 0; c < nc; c++)
    src[c] = in->in_columns ? -1 : c;
  for (int i = 0; in->in_columns && i < nlist; i++) {
    const char *name = sql_list_at(in->in_columns, i);
    int c;
    for (c = 0; c < nc; c++)
      if (strcmp(t->tb_colnames[c], name) == 0)
        break;
    if (c == nc)
      return bd_error(b, SQLSTATE_UNDEFINED_COLUMN, in->in_table.nm_pos,
                      "column \"%s\" of relation \"%s\" does not exist", name, t->tb_name);
    if (src[c] >= 0)
      return bd_error(b, SQLSTATE_DUPLICATE_COLUMN, in->in_table.nm_pos, "column \"%s\" specified more than once",
                      name);
    src[c] = i;
  }
  const sql_query_t *q = in->in_query;
  /* Without a column list, VALUES rows may be shorter than the table
   * (PostgreSQL fills the rest with defaults). */
  if (!in->in_columns && q && q->qu_kind == SQL_Q_VALUES && sql_list_len(q->qu_rows) > 0) {
    int n0 = sql_list_len(sql_list_at(q->qu_rows, 0));
    if (n0 < nc) {
      nlist = n0;
      for (int c = n0; c < nc; c++)
        src[c] = -1;
    }
  }
  lp_dml_t *d = arena_zalloc(b->b_a, sizeof(*d));
  d->ld_table = t;
  if (!q || (q->qu_kind == SQL_Q_VALUES && !q->qu_order && !q->qu_limit && !q->qu_offset)) {
    int nrows = q ? sql_list_len(q->qu_rows) : 1;
    xnode_t ***vals = arena_alloc(b->b_a, sizeof(xnode_t **) * (size_t)nrows);
    bd_scope_t *empty = bd_scope_new(b);
    empty->sc_agg_forbid = "VALUES";
    for (int r = 0; r < nrows; r++) {
      const sql_list_t *row = q ? sql_list_at(q->qu_rows, r) : NULL;
      int n = sql_list_len(row);
      if (q && n > nlist)
        return bd_error(b, SQLSTATE_SYNTAX_ERROR, q->qu_pos,
                        "INSERT has more expressions than target columns");
      if (q && n < nlist)
        return bd_error(b, SQLSTATE_SYNTAX_ERROR, q->qu_pos,
                        "INSERT has more target columns than expressions");
      vals[r] = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(nc + 1));
      for (int c = 0; c < nc; c++) {
        const sql_expr_t *x = src[c] >= 0 && row ? sql_list_at(row, src[c]) : NULL;
        xnode_t *v;
        bool use_default = false;
        if (x && x->ex_kind != SQL_E_DEFAULT &&
            bd_identity_value(b, t, in, c, x->ex_pos, &use_default) != CZ_OK)
          return CZ_ERR;
        if (!x || x->ex_kind == SQL_E_DEFAULT || use_default)
          v = bd_default(b, t, c);
        else if (bd_expr(b, empty, x, &v) == CZ_OK)
          v = bd_assign(b, t, c, v, x->ex_pos);
        else
          v = NULL;
        if (!v)
          return CZ_ERR;
        vals[r][c] = v;
      }
    }
    lp_node_t *src = arena_zalloc(b->b_a, sizeof(*src));
    *src = (lp_node_t){.ln_kind = LN_VALUES, .ln_ncols = nc, .ln_types = (ty_t *)t->tb_coltypes,
                       .ln_nrows = nrows, .ln_rows = vals};
    d->ld_src = src;
    if (bd_view_check(b, &uv, &d->ld_check) != CZ_OK)
      return CZ_ERR;
  } else {
    lp_node_t *sel;  /* the query, generated with the statement (opt_gen_dml.c) */
    if (q->qu_kind == SQL_Q_SELECT) {
      ty_t *hint = arena_alloc(b->b_a, sizeof(ty_t) * (size_t)(nlist + 1));
      for (int c = 0; c < nc; c++)
        if (src[c] >= 0)
          hint[src[c]] = t->tb_coltypes[c];
      b->b_hint = hint;
      b->b_nhint = nlist;
    }
    int rc = bd_query_node(b, q, NULL, NULL, &sel, NULL, NULL);
    b->b_hint = NULL;
    b->b_nhint = 0;
    if (rc != CZ_OK)
      return CZ_ERR;
    if (sel->ln_ncols > nlist)
      return bd_error(b, SQLSTATE_SYNTAX_ERROR, q->qu_pos,
                      "INSERT has more expressions than target columns");
    if (sel->ln_ncols < nlist && in->in_columns)
      return bd_error(b, SQLSTATE_SYNTAX_ERROR, q->qu_pos,
                      "INSERT has more target columns than expressions");
    for (int c = sel->ln_ncols; c < nc && !in->in_columns; c++)
      src[c] = -1;  /* a shorter query fills the first columns (the rest: defaults) */
    xnode_t **x = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(nc + 1));
    for (int c = 0; c < nc; c++) {
      bool use_default = false;
      if (src[c] >= 0 && bd_identity_value(b, t, in, c, q->qu_pos, &use_default) != CZ_OK)
        return CZ_ERR;
      if (use_default)
        src[c] = -1;
      x[c] = src[c] >= 0 ? bd_assign(b, t, c, bd_col(b, src[c], sel->ln_types[src[c]]), q->qu_pos)
                         : bd_default(b, t, c);
      if (!x[c])
        return CZ_ERR;
    }
    d->ld_src = sel;
    d->ld_nout = nc;
    d->ld_out = x;
    if (bd_view_check(b, &uv, &d->ld_check) != CZ_OK)
      return CZ_ERR;
    for (int i = 0; i < b->b_naccess; i++)
      /* handles are made per name resolution: the table's identity is its OID */
      if (b->b_access[i].ac_table && b->b_access[i].ac_table->tb_oid == t->tb_oid &&
          (b->b_access[i].ac_priv & SQL_PRIV_SELECT)) {
        d->ld_self_read = true;  /* reads the table it fills */
        break;
      }
  }
  if (in->in_on_conflict && bd_on_conflict(b, t, in, d) != CZ_OK)  /* sql_bind_upsert.c */
    return CZ_ERR;
  bd_ret_t ret;
  memset(&ret, 0, sizeof(ret));
  if (in->in_returning &&
      bd_returning_bind(b, bd_table_scope(b, t, in->in_alias), in->in_returning, &ret) != CZ_OK)
    return CZ_ERR;
  return bd_dml_gen(b, LN_INSERT, d, &ret, out);
}

/* The target of UPDATE/DELETE: a one-table scope (its columns at 0..,
 * the row locator after them) and WHERE bound into conjuncts. The scan is
 * the generator's, given the columns every expression uses once all are
 * bound (bd_target_dml), so that it reads only those. */
typedef struct bd_target_s {
  const sp_table_t *tg_t;
  bd_uview_t tg_uv;             /* written through this view (uv_view NULL: the table) */
  bd_scope_t *tg_sc;
  xnode_t **tg_conj;
  int tg_n, tg_cap;
  bool *tg_need;                /* per column: read by the statement */
} bd_target_t;

static int bd_target(bd_t *b, const sql_name_t *name, const char *alias, const sql_expr_t *where,
                     unsigned priv, bd_target_t *tg)
{
  memset(tg, 0, sizeof(*tg));
  if (bd_lookup_target(b, name, priv == SQL_PRIV_DELETE ? "delete from" : "update", &tg->tg_t,
                       &tg->tg_uv) != CZ_OK)
    return CZ_ERR;
  const sp_table_t *t = tg->tg_t;
  bd_access_as(b, t, priv, &tg->tg_uv);
  bd_uview_t *uv = tg->tg_uv.uv_view ? &tg->tg_uv : NULL;
  tg->tg_sc = bd_table_scope(b, t, uv ? uv->uv_alias : alias);
  tg->tg_sc->sc_agg_forbid = "WHERE";
  tg->tg_need = arena_zalloc(b->b_a, sizeof(bool) * (size_t)(t->tb_ncols + 1));
  if (uv) {
    /* through a view: only the rows it shows, names as it gives them */
    xnode_t *vw;
    if (bd_view_where(b, uv, &vw) != CZ_OK ||
        bd_view_scope(b, uv, alias, tg->tg_sc) != CZ_OK)
      return CZ_ERR;
    bd_conjuncts(b, vw, &tg->tg_conj, &tg->tg_n, &tg->tg_cap);
  }
  if (where) {
    xnode_t *w;
    if (bd_cond(b, tg->tg_sc, where, "WHERE", &w) != CZ_OK)
      return CZ_ERR;
    bd_conjuncts(b, w, &tg->tg_conj, &tg->tg_n, &tg->tg_cap);
    bd_access_as(b, t, SQL_PRIV_SELECT, &tg->tg_uv);  /* reading columns in WHERE needs SELECT */
  }
  return CZ_OK;
}

static void need_col(void *ctx, xnode_t *col)
{
  bd_target_t *tg = ctx;
  if (col->x_index >= 0 && col->x_index < tg->tg_t->tb_ncols)
    tg->tg_need[col->x_index] = true;
}

/* Marks the columns x reads as needed. */
static void bd_target_use(bd_target_t *tg, xnode_t *x)
{
  bd_node_cols(x, need_col, tg);
}

/* The node of a one-table UPDATE / DELETE, every expression bound: the
 * target's scan as the generator is to plan it (WHERE's conjuncts, the
 * columns the statement reads, WHERE's included). */
static lp_dml_t *bd_target_dml(bd_t *b, bd_target_t *tg)
{
  for (int i = 0; i < tg->tg_n; i++)
    bd_target_use(tg, tg->tg_conj[i]);
  lp_dml_t *d = arena_zalloc(b->b_a, sizeof(*d));
  d->ld_table = tg->tg_t;
  d->ld_alias = tg->tg_sc->sc_rels[0]->rl_name;
  d->ld_nconj = tg->tg_n;
  d->ld_conj = tg->tg_conj;
  d->ld_need = tg->tg_need;
  return d;
}

/* READ COMMITTED's recheck of a changed row (op_dml_set_recheck) for a
 * one-table UPDATE / DELETE: over the scan's row (the table's columns,
 * then the locator) the WHERE, and outs (one per input column of the
 * writing operator). None where it cannot be evaluated over that row
 * alone (a subquery): a changed row then stays 40001. */
static void bd_target_recheck(bd_t *b, const bd_target_t *tg, lp_dml_t *d, xnode_t **outs,
                              int nouts)
{
  for (int i = 0; i < tg->tg_n; i++)
    if (bd_node_has_subq(tg->tg_conj[i]))
      return;
  for (int i = 0; i < nouts; i++)
    if (bd_node_has_subq(outs[i]))
      return;
  d->ld_rk_where = tg->tg_n ? bd_and_all(b, tg->tg_conj, tg->tg_n) : NULL;
  d->ld_rk_out = outs;
}

int bd_set_list(bd_t *b, bd_scope_t *sc, const sp_table_t *t, const sql_list_t *list,
                xnode_t ***xout, bool **setout)
{
  int nc = t->tb_ncols;
  xnode_t **x = arena_zalloc(b->b_a, sizeof(xnode_t *) * (size_t)(nc + 2));
  bool *set = arena_zalloc(b->b_a, sizeof(bool) * (size_t)(nc + 1));
  for (int i = 0; i < sql_list_len(list); i++) {
    const sql_assign_t *as = sql_list_at(list, i);
    int c;
    for (c = 0; c < nc; c++)
      if (strcmp(t->tb_colnames[c], as->as_column) == 0)
        break;
    if (c == nc)
      return bd_error(b, SQLSTATE_UNDEFINED_COLUMN, as->as_pos,
                      "column \"%s\" of relation \"%s\" does not exist", as->as_column, t->tb_name);
    if (x[c])
      return bd_error(b, SQLSTATE_SYNTAX_ERROR, as->as_pos, "multiple assignments to same column \"%s\"",
                      as->as_column);
    xnode_t *v;
    if (as->as_expr->ex_kind != SQL_E_DEFAULT && t->tb_identity && t->tb_identity[c] == 'a')
      return bd_error(b, SQLSTATE_GENERATED_ALWAYS, as->as_pos,
                      "column \"%s\" can only be updated to DEFAULT", as->as_column);
    if (as->as_expr->ex_kind == SQL_E_DEFAULT)
      v = bd_default(b, t, c);
    else if (bd_expr(b, sc, as->as_expr, &v) == CZ_OK)
      v = bd_assign(b, t, c, v, as->as_expr->ex_pos);
    else
      v = NULL;
    if (!v)
      return CZ_ERR;
    x[c] = v;
    set[c] = true;
  }
  *xout = x;
  *setout = set;
  return CZ_OK;
}

int bd_update(bd_t *b, const sql_update_t *up, op_t **out)
{
  if (up->up_from)
    return bd_update_from(b, up, out);  /* sql_bind_dml_from.c */
  bd_target_t tg;
  if (bd_target(b, &up->up_table, up->up_alias, up->up_where, SQL_PRIV_UPDATE, &tg) != CZ_OK)
    return CZ_ERR;
  const sp_table_t *t = tg.tg_t;
  bd_scope_t *sc = tg.tg_sc;
  int nc = t->tb_ncols;
  xnode_t **x;
  bool *set;
  sc->sc_agg_forbid = "UPDATE";
  const sql_list_t *setl = up->up_set;
  if (tg.tg_uv.uv_view) {
    /* SET names the view's columns: as the table's */
    sql_list_t *m = arena_zalloc(b->b_a, sizeof(*m));
    int n = sql_list_len(setl);
    m->ls_items = arena_alloc(b->b_a, sizeof(void *) * (size_t)(n + 1));
    m->ls_cap = n + 1;
    for (int i = 0; i < n; i++) {
      sql_assign_t *as = arena_alloc(b->b_a, sizeof(*as));
      *as = *(const sql_assign_t *)sql_list_at(setl, i);
      if (bd_view_colname(b, &tg.tg_uv, as->as_column, as->as_pos, &as->as_column) != CZ_OK)
        return CZ_ERR;
      m->ls_items[m->ls_n++] = as;
    }
    setl = m;
  }
  if (bd_set_list(b, sc, t, setl, &x, &set) != CZ_OK)
    return CZ_ERR;
  xnode_t *check = NULL;  /* WITH CHECK OPTION: the view's WHERE over the new row */
  if (tg.tg_uv.uv_view && tg.tg_uv.uv_view->vi_check && bd_view_where(b, &tg.tg_uv, &check) != CZ_OK)
    return CZ_ERR;
  if (check)
    bd_target_use(&tg, check);  /* the columns it names are read, set or not */
  for (int c = 0; c < nc; c++)
    if (x[c])
      bd_target_use(&tg, x[c]);
  /* RETURNING sees the new values at the same columns as WHERE saw the
   * old: a column not set is passed on when RETURNING reads it. */
  bd_ret_t ret;
  if (bd_returning_bind(b, sc, up->up_returning, &ret) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < ret.rt_n; i++)
    bd_target_use(&tg, ret.rt_x[i]);
  lp_dml_t *d = bd_target_dml(b, &tg);
  /* Columns not set are not given to the table layer (their stored
   * values, long ones included, stay untouched and unread). */
  for (int c = 0; c < nc; c++)
    if (!x[c])
      x[c] = tg.tg_need[c] ? bd_col(b, c, t->tb_coltypes[c]) : bd_const_null(b, t->tb_coltypes[c]);
  x[nc] = bd_col(b, nc, ty_plain(TY_BYTEA));
  d->ld_nout = nc + 1;
  d->ld_out = x;
  d->ld_set = set;
  if (!check)
    bd_target_recheck(b, &tg, d, x, nc + 1);
  else if (bd_view_check(b, &tg.tg_uv, &d->ld_check) != CZ_OK)
    return CZ_ERR;
  return bd_dml_gen(b, LN_UPDATE, d, &ret, out);
}

int bd_delete(bd_t *b, const sql_delete_t *de, op_t **out)
{
  if (de->de_using)
    return bd_delete_using(b, de, out);  /* sql_bind_dml_from.c */
  bd_target_t tg;
  if (bd_target(b, &de->de_table, de->de_alias, de->de_where, SQL_PRIV_DELETE, &tg) != CZ_OK)
    return CZ_ERR;
  bd_ret_t ret;
  if (bd_returning_bind(b, tg.tg_sc, de->de_returning, &ret) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < ret.rt_n; i++)
    bd_target_use(&tg, ret.rt_x[i]);
  const sp_table_t *t = tg.tg_t;
  lp_dml_t *d = bd_target_dml(b, &tg);
  /* the rewritten row: the current version's columns as the scan gives them */
  xnode_t **outs = arena_zalloc(b->b_a, sizeof(xnode_t *) * (size_t)(t->tb_ncols + 2));
  for (int c = 0; c < t->tb_ncols; c++)
    outs[c] = tg.tg_need[c] ? bd_col(b, c, t->tb_coltypes[c]) : bd_const_null(b, t->tb_coltypes[c]);
  outs[t->tb_ncols] = bd_col(b, t->tb_ncols, ty_plain(TY_BYTEA));
  bd_target_recheck(b, &tg, d, outs, t->tb_ncols + 1);
  return bd_dml_gen(b, LN_DELETE, d, &ret, out);
}
