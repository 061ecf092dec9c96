/* sql_bind_view — views named in FROM: the stored query text parsed and
 * bound where the view is used, either merged into the referencing block
 * or as one derived-table item.
 *
 * Design notes (sql/README.md, "Views"):
 * - A view is closed: its query sees no WITH query and no column of the
 *   statement that names it (b_ctes cleared, no enclosing scope), and
 *   the relations it reads are checked with its owner's privileges
 *   (b_view_owner, recorded in each sp_access_t); the user needs SELECT
 *   on the view itself only.
 * - Merging (PostgreSQL's pull-up of simple subqueries): a view whose
 *   query is one SELECT block without DISTINCT, GROUP BY, HAVING,
 *   aggregates or windows (its select list only plain columns and `*`),
 *   LIMIT / OFFSET / ORDER BY / FOR UPDATE, WITH, functions or LATERAL
 *   in FROM and subqueries in WHERE, named as a FROM-list item or inside
 *   inner joins of the list, is merged: its FROM items become units of
 *   the block (so the join search orders them with the block's other
 *   units) and its WHERE conjuncts the block's conjuncts. Its own range
 *   entries stay in the scope hidden (rl_hidden: no name or `*` reaches
 *   them), and the view's range entry maps its columns to theirs
 *   (rl_map), so the view's names resolve to plain columns of the block.
 * - Anything else (and any view on the nullable side of an outer join) is
 *   bound as a derived table, one unit of the block.
 * - A view keeps the columns it had when created (vi_ncols): a `*` that
 *   now yields more columns gives only the first ones; a column whose
 *   type changed is an error.
 */
#include <string.h>

#include "sql/sql_bind_ext.h"
#include "sql/sql_bind_int.h"

#define BD_VIEW_MAX_DEPTH 64

int bd_find_view(bd_t *b, const sql_from_t *fr, const sp_view_t **out)
{
  if (!b->b_env->pe_view || fr->fr_kind != SQL_FROM_TABLE)
    return 1;
  int rc = b->b_env->pe_view(b->b_env->pe_ctx, fr->fr_table.nm_schema, fr->fr_table.nm_name,
                             b->b_a, out, b->b_e);
  if (rc == CZ_OK)
    bd_ref_relation(b, &fr->fr_table, (*out)->vi_oid);
  return rc;
}

/* A privilege on the view (SELECT; INSERT, UPDATE, DELETE when written
 * through), as the role binding it needs it. */
static void view_access_priv(bd_t *b, const sp_view_t *v, unsigned priv)
{
  if (b->b_naccess == b->b_access_cap) {
    int cap = b->b_access_cap ? b->b_access_cap * 2 : 4;
    sp_access_t *n = arena_alloc(b->b_a, sizeof(*n) * (size_t)cap);
    if (b->b_naccess)
      memcpy(n, b->b_access, sizeof(*n) * (size_t)b->b_naccess);
    b->b_access = n;
    b->b_access_cap = cap;
  }
  b->b_access[b->b_naccess++] =
      (sp_access_t){.ac_priv = priv, .ac_role = b->b_view_owner, .ac_view = v};
}

static void view_access(bd_t *b, const sp_view_t *v)
{
  view_access_priv(b, v, SQL_PRIV_SELECT);
}

static int view_parse(bd_t *b, const sp_view_t *v, int pos, const sql_query_t **out)
{
  if (b->b_view_depth >= BD_VIEW_MAX_DEPTH)
    return bd_error(b, SQLSTATE_INVALID_OBJECT_DEF, pos,
                    "infinite recursion detected in rules for relation \"%s\"", v->vi_name);
  sql_stmt_list_t *l;
  if (sql_parse(b->b_a, v->vi_query, strlen(v->vi_query), &l, b->b_e) != CZ_OK) {
    b->b_e->er_pos = pos;
    return err_prefix(b->b_e, "view \"%s\"", v->vi_name);
  }
  if (l->sl_n != 1 || l->sl_stmts[0]->st_kind != SQL_STMT_SELECT)
    return bd_error(b, SQLSTATE_DATA_CORRUPTED, pos, "view \"%s\" has a bad definition",
                    v->vi_name);
  *out = l->sl_stmts[0]->st_query;
  return CZ_OK;
}

/* The view's range entry: its alias (else its name, qualified by its
 * schema), the column aliases, then the view's own column names. */
static bd_rel_t *view_rel(bd_t *b, const sql_from_t *fr, const sp_view_t *v)
{
  bd_rel_t *r = arena_zalloc(b->b_a, sizeof(*r));
  r->rl_name = fr->fr_alias ? fr->fr_alias : v->vi_name;
  r->rl_schema = fr->fr_alias ? NULL : v->vi_schema;
  r->rl_view_oid = v->vi_oid;
  r->rl_ncols = v->vi_ncols;
  r->rl_cols = arena_zalloc(b->b_a, sizeof(char *) * (size_t)(v->vi_ncols + 1));
  r->rl_types = arena_zalloc(b->b_a, sizeof(ty_t) * (size_t)(v->vi_ncols + 1));
  int nal = sql_list_len(fr->fr_colnames);
  for (int c = 0; c < v->vi_ncols; c++) {
    r->rl_cols[c] = c < nal ? sql_list_at(fr->fr_colnames, c) : v->vi_colnames[c];
    r->rl_types[c] = v->vi_coltypes[c];
  }
  return r;
}

static int view_changed(bd_t *b, const sp_view_t *v, int pos, int ncols, const ty_t *types)
{
  if (ncols < v->vi_ncols)
    return bd_error(b, SQLSTATE_INVALID_OBJECT_DEF, pos,
                    "view \"%s\" no longer matches its definition: it has %d columns, %d expected",
                    v->vi_name, ncols, v->vi_ncols);
  for (int c = 0; c < v->vi_ncols; c++)
    if (types[c].t_id != v->vi_coltypes[c].t_id)
      return bd_error(b, SQLSTATE_INVALID_OBJECT_DEF, pos,
                      "view \"%s\" no longer matches its definition: column \"%s\" is of type %s, "
                      "%s expected",
                      v->vi_name, v->vi_colnames[c], ty_name(b->b_a, types[c]),
                      ty_name(b->b_a, v->vi_coltypes[c]));
  return CZ_OK;
}

/* What binding a view's body changes in b, saved and put back. */
typedef struct view_saved_s {
  bd_cte_t *vs_ctes;
  uint32_t vs_owner;
} view_saved_t;

static void view_enter(bd_t *b, const sp_view_t *v, view_saved_t *s)
{
  s->vs_ctes = b->b_ctes;
  s->vs_owner = b->b_view_owner;
  b->b_ctes = NULL;
  b->b_view_owner = v->vi_owner;
  b->b_view_depth++;
}

static void view_leave(bd_t *b, const view_saved_t *s)
{
  b->b_ctes = s->vs_ctes;
  b->b_view_owner = s->vs_owner;
  b->b_view_depth--;
}

int bd_view_item(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, const sp_view_t *v, op_t **op,
                 const lp_node_t **node)
{
  const sql_query_t *q;
  view_access(b, v);
  if (view_parse(b, v, fr->fr_pos, &q) != CZ_OK)
    return CZ_ERR;
  view_saved_t saved;
  view_enter(b, v, &saved);
  lp_node_t *qn;
  const char **names;
  int rc = bd_query_node(b, q, NULL, sc->sc_subq, &qn, &names, NULL);
  view_leave(b, &saved);
  if (rc != CZ_OK || view_changed(b, v, fr->fr_pos, qn->ln_ncols, qn->ln_types) != CZ_OK)
    return CZ_ERR;
  bd_rel_t *r = view_rel(b, fr, v);
  for (int c = 0; c < v->vi_ncols; c++)
    r->rl_types[c] = qn->ln_types[c];  /* typmods as the query gives them now */
  if (bd_scope_add(b, sc, r, fr->fr_pos) != CZ_OK)
    return CZ_ERR;
  if (node && qn->ln_ncols == v->vi_ncols) {
    *node = qn;  /* a unit of the block: generated with it (its subqueries
                  * decorrelated under the view's owner, sql_bind_decor.c) */
    return CZ_OK;
  }
  op_t *plan;
  if (bd_node_plan(b, qn, &plan) != CZ_OK)
    return CZ_ERR;
  if (plan->o_ncols > v->vi_ncols) {
    /* the query gives more columns than when the view was made: its own */
    xnode_t **x = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(v->vi_ncols + 1));
    for (int c = 0; c < v->vi_ncols; c++)
      x[c] = bd_col(b, c, plan->o_types[c]);
    plan = op_project_new(b->b_a, plan, v->vi_ncols, x);
  }
  *op = plan;
  return CZ_OK;
}

/* ---- merging ------------------------------------------------------------- */

static bool from_simple(const sql_from_t *fr)
{
  switch (fr->fr_kind) {
  case SQL_FROM_TABLE:
    return true;
  case SQL_FROM_SUBQUERY:
    return !fr->fr_lateral;
  case SQL_FROM_JOIN:
    return from_simple(fr->fr_left) && from_simple(fr->fr_right);
  default:
    return false;  /* functions in FROM (they may be lateral) */
  }
}

/* Whether q is one plain SELECT block the block naming it can absorb. */
static bool view_simple(bd_t *b, const sql_query_t *q)
{
  if (q->qu_kind != SQL_Q_SELECT || q->qu_with || q->qu_order || q->qu_limit || q->qu_offset ||
      q->qu_lock)
    return false;
  const sql_select_t *s = q->qu_select;
  if (s->se_distinct || s->se_top || s->se_group || s->se_having || s->se_windows ||
      s->se_distinct_on || sql_list_len(s->se_from) == 0)
    return false;
  for (int i = 0; i < sql_list_len(s->se_from); i++)
    if (!from_simple(sql_list_at(s->se_from, i)))
      return false;
  for (int i = 0; i < sql_list_len(s->se_targets); i++) {
    const sql_target_t *t = sql_list_at(s->se_targets, i);
    if (t->tg_expr->ex_kind != SQL_E_COLUMN && t->tg_expr->ex_kind != SQL_E_STAR)
      return false;
  }
  if (s->se_where) {
    /* no subquery in WHERE (they would be bound against the view's own
     * scope, which does not outlive the merge); the printed form names
     * every subquery "(select", "(values", "(exists" or a set operation,
     * and a string holding such text only makes this refuse */
    const char *p = sql_expr_print(b->b_a, s->se_where);
    if (strstr(p, "(select") || strstr(p, "(values") || strstr(p, "(exists") ||
        strstr(p, "(union") || strstr(p, "(except") || strstr(p, "(intersect"))
      return false;
  }
  return true;
}

static void rels_append(bd_t *b, bd_scope_t *sc, bd_rel_t *const *rels, int n)
{
  bd_rel_t **all = arena_alloc(b->b_a, sizeof(bd_rel_t *) * (size_t)(sc->sc_nrels + n + 1));
  if (sc->sc_nrels)
    memcpy(all, sc->sc_rels, sizeof(bd_rel_t *) * (size_t)sc->sc_nrels);
  for (int i = 0; i < n; i++) {
    rels[i]->rl_hidden = true;
    all[sc->sc_nrels + i] = rels[i];
  }
  sc->sc_rels = all;
  sc->sc_nrels += n;
}

/* One target of the view's select list as row positions (a column or the
 * columns of a `*`). */
static int view_target(bd_t *b, bd_scope_t *ts, const sql_target_t *t, int **map, ty_t **types,
                       int *n, int *cap)
{
  const sql_expr_t *x = t->tg_expr;
  for (int r = 0; r < ts->sc_nrels; r++) {
    const bd_rel_t *rel = ts->sc_rels[r];
    if (x->ex_kind != SQL_E_STAR)
      break;
    if (rel->rl_hidden || (x->ex_table && strcmp(rel->rl_name, x->ex_table) != 0))
      continue;
    for (int c = 0; c < rel->rl_ncols; c++) {
      if (rel->rl_merged && rel->rl_merged[c] && !x->ex_table)
        continue;
      if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        int *nm = arena_alloc(b->b_a, sizeof(int) * (size_t)*cap);
        ty_t *nt = arena_alloc(b->b_a, sizeof(ty_t) * (size_t)*cap);
        if (*n) {
          memcpy(nm, *map, sizeof(int) * (size_t)*n);
          memcpy(nt, *types, sizeof(ty_t) * (size_t)*n);
        }
        *map = nm;
        *types = nt;
      }
      (*map)[*n] = rel->rl_map ? rel->rl_map[c] : rel->rl_base + c;
      (*types)[(*n)++] = rel->rl_types[c];
    }
  }
  if (x->ex_kind == SQL_E_STAR)
    return CZ_OK;
  xnode_t *col;
  if (bd_expr(b, ts, x, &col) != CZ_OK)
    return CZ_ERR;
  if (col->x_kind != X_COL)
    return bd_error(b, SQLSTATE_INTERNAL, x->ex_pos, "view column is not a column");
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 16;
    int *nm = arena_alloc(b->b_a, sizeof(int) * (size_t)*cap);
    ty_t *nt = arena_alloc(b->b_a, sizeof(ty_t) * (size_t)*cap);
    if (*n) {
      memcpy(nm, *map, sizeof(int) * (size_t)*n);
      memcpy(nt, *types, sizeof(ty_t) * (size_t)*n);
    }
    *map = nm;
    *types = nt;
  }
  (*map)[*n] = col->x_index;
  (*types)[(*n)++] = col->x_type;
  return CZ_OK;
}

int bd_view_merge(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, const sp_view_t *v,
                  lp_block_t *fb)
{
  const sql_query_t *q;
  if (view_parse(b, v, fr->fr_pos, &q) != CZ_OK)
    return CZ_ERR;
  if (!view_simple(b, q))
    return 1;
  view_access(b, v);
  const sql_select_t *s = q->qu_select;
  /* the view's own scope: its items laid out where the block's row goes on */
  bd_scope_t *ts = arena_zalloc(b->b_a, sizeof(*ts));
  ts->sc_subq = sc->sc_subq;
  ts->sc_width = sc->sc_width;
  ts->sc_agg_forbid = "WHERE";
  view_saved_t saved;
  view_enter(b, v, &saved);
  int rc = CZ_OK;
  for (int i = 0; i < sql_list_len(s->se_from) && rc == CZ_OK; i++)
    rc = bd_from_units(b, ts, sql_list_at(s->se_from, i), fb);
  if (rc == CZ_OK && s->se_where) {
    xnode_t *w;
    rc = bd_cond(b, ts, s->se_where, "WHERE", &w);
    if (rc == CZ_OK)
      bd_conjuncts(b, w, &fb->fb_conj, &fb->fb_nconj, &fb->fb_cap);
  }
  /* what FROM's ON and WHERE read is read by the block; the select list
   * is read only where the statement names the view's columns */
  for (int c = 0; c < ts->sc_used_cap; c++)
    if (ts->sc_used[c])
      bd_scope_use(b, sc, c);
  ts->sc_used = NULL;
  ts->sc_used_cap = 0;
  int *map = NULL, n = 0, cap = 0;
  ty_t *types = NULL;
  for (int i = 0; i < sql_list_len(s->se_targets) && rc == CZ_OK; i++)
    rc = view_target(b, ts, sql_list_at(s->se_targets, i), &map, &types, &n, &cap);
  view_leave(b, &saved);
  if (rc != CZ_OK || view_changed(b, v, fr->fr_pos, n, types) != CZ_OK)
    return CZ_ERR;
  rels_append(b, sc, ts->sc_rels, ts->sc_nrels);
  sc->sc_width = ts->sc_width;
  bd_rel_t *r = view_rel(b, fr, v);
  for (int c = 0; c < v->vi_ncols; c++)
    r->rl_types[c] = types[c];
  r->rl_map = map;
  return bd_scope_add(b, sc, r, fr->fr_pos);
}

/* ---- views as the target of INSERT, UPDATE, DELETE ------------------------ */

/* PostgreSQL's reasons a view is not automatically updatable (DETAIL of
 * 55000), NULL when it is: one table in FROM (or another such view), no
 * DISTINCT, GROUP BY, HAVING, LIMIT / OFFSET, set operation, WITH,
 * window, and (here) only plain columns in its select list. */
static const char *not_updatable(const sql_query_t *q)
{
  if (q->qu_kind != SQL_Q_SELECT)
    return q->qu_kind == SQL_Q_VALUES
               ? "Views that do not select from a single table or view are not automatically "
                 "updatable."
               : "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable.";
  const sql_select_t *s = q->qu_select;
  if (q->qu_with)
    return "Views containing WITH are not automatically updatable.";
  if (s->se_distinct || s->se_distinct_on)
    return "Views containing DISTINCT are not automatically updatable.";
  if (s->se_group)
    return "Views containing GROUP BY are not automatically updatable.";
  if (s->se_having)
    return "Views containing HAVING are not automatically updatable.";
  if (q->qu_limit || q->qu_offset || s->se_top)
    return "Views containing LIMIT or OFFSET are not automatically updatable.";
  if (s->se_windows)
    return "Views that return window functions are not automatically updatable.";
  if (sql_list_len(s->se_from) != 1 ||
      ((const sql_from_t *)sql_list_at(s->se_from, 0))->fr_kind != SQL_FROM_TABLE)
    return "Views that do not select from a single table or view are not automatically updatable.";
  for (int i = 0; i < sql_list_len(s->se_targets); i++) {
    const sql_target_t *t = sql_list_at(s->se_targets, i);
    if (t->tg_expr->ex_kind != SQL_E_COLUMN && t->tg_expr->ex_kind != SQL_E_STAR)
      return "Views that return columns that are not columns of their base relation are not "
             "automatically updatable.";
  }
  return NULL;
}

bool sql_view_updatable(const sql_query_t *q)
{
  return not_updatable(q) == NULL;
}

int bd_lookup_target(bd_t *b, const sql_name_t *n, const char *what, const sp_table_t **out,
                     bd_uview_t *uv)
{
  sql_from_t fr = {.fr_kind = SQL_FROM_TABLE, .fr_table = *n, .fr_pos = n->nm_pos};
  const sp_view_t *v;
  if (uv)
    memset(uv, 0, sizeof(*uv));
  int rc = bd_find_view(b, &fr, &v);
  if (rc == CZ_ERR)
    return CZ_ERR;
  if (rc == CZ_OK) {
    const sql_query_t *q;
    if (view_parse(b, v, n->nm_pos, &q) != CZ_OK)
      return CZ_ERR;
    const char *why = not_updatable(q);
    if (why || !uv) {
      bd_error(b, SQLSTATE_OBJECT_NOT_IN_STATE, n->nm_pos, "cannot %s view \"%s\"", what,
               v->vi_name);
      const char *hint =
          what[0] == 'i' ? "To enable inserting into the view, provide an INSTEAD OF INSERT "
                           "trigger or an unconditional ON INSERT DO INSTEAD rule."
          : what[0] == 'u' ? "To enable updating the view, provide an INSTEAD OF UPDATE trigger "
                             "or an unconditional ON UPDATE DO INSTEAD rule."
                           : "To enable deleting from the view, provide an INSTEAD OF DELETE "
                             "trigger or an unconditional ON DELETE DO INSTEAD rule.";
      return err_add_fields(b->b_e, why ? why : "Writing a view through UPDATE … FROM or DELETE "
                                                "… USING is not supported yet.",
                            why ? hint : NULL);
    }
    const sql_select_t *s = q->qu_select;
    const sql_from_t *item = sql_list_at(s->se_from, 0);
    /* the view's table (a view of a view: that view's table, recursively) */
    view_saved_t saved;
    view_enter(b, v, &saved);
    bd_uview_t inner;
    rc = bd_lookup_target(b, &item->fr_table, what, out, &inner);
    view_leave(b, &saved);
    if (rc != CZ_OK)
      return CZ_ERR;
    if (inner.uv_view)
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, n->nm_pos,
                      "writing through a view of a view is not supported yet");
    view_access_priv(b, v, what[0] == 'i' ? SQL_PRIV_INSERT : what[0] == 'u' ? SQL_PRIV_UPDATE
                                                                              : SQL_PRIV_DELETE);
    if (s->se_where && what[0] != 'i')
      view_access(b, v);  /* rows are read to be chosen */
    /* the table's columns as the view names them */
    const sp_table_t *t = *out;
    uv->uv_view = v;
    uv->uv_t = t;
    uv->uv_alias = item->fr_alias ? item->fr_alias : t->tb_name;
    uv->uv_where = s->se_where;
    bd_scope_t *ts = bd_table_scope(b, t, uv->uv_alias);
    int cap = 0;
    ty_t *types = NULL;
    for (int i = 0; i < sql_list_len(s->se_targets); i++)
      if (view_target(b, ts, sql_list_at(s->se_targets, i), &uv->uv_map, &types, &uv->uv_ncols,
                      &cap) != CZ_OK)
        return CZ_ERR;
    if (view_changed(b, v, n->nm_pos, uv->uv_ncols, types) != CZ_OK)
      return CZ_ERR;
    uv->uv_ncols = v->vi_ncols;
    for (int i = 0; i < uv->uv_ncols; i++)
      for (int k = 0; k < i; k++)
        if (uv->uv_map[k] == uv->uv_map[i])
          return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, n->nm_pos,
                          "cannot %s view \"%s\": it shows column \"%s\" twice", what,
                          v->vi_name, t->tb_colnames[uv->uv_map[i]]);
    return CZ_OK;
  }
  if (bd_lookup_table(b, n, out) != CZ_OK)
    return CZ_ERR;
  if ((*out)->tb_matview && !b->b_env->pe_refresh)
    return bd_error(b, SQLSTATE_WRONG_OBJECT_TYPE, n->nm_pos,
                    "cannot change materialized view \"%s\"", (*out)->tb_name);
  return CZ_OK;
}

int bd_view_where(bd_t *b, const bd_uview_t *uv, xnode_t **out)
{
  *out = NULL;
  if (!uv->uv_where)
    return CZ_OK;
  bd_scope_t *ts = bd_table_scope(b, uv->uv_t, uv->uv_alias);
  ts->sc_agg_forbid = "WHERE";
  view_saved_t saved;
  view_enter(b, uv->uv_view, &saved);
  int rc = bd_cond(b, ts, uv->uv_where, "WHERE", out);
  view_leave(b, &saved);
  return rc;
}

int bd_view_colname(bd_t *b, const bd_uview_t *uv, const char *name, int pos, const char **out)
{
  for (int i = 0; i < uv->uv_ncols; i++)
    if (strcmp(uv->uv_view->vi_colnames[i], name) == 0) {
      *out = uv->uv_t->tb_colnames[uv->uv_map[i]];
      return CZ_OK;
    }
  return bd_error(b, SQLSTATE_UNDEFINED_COLUMN, pos, "column \"%s\" of relation \"%s\" does not exist",
                  name, uv->uv_view->vi_name);
}

int bd_view_check(bd_t *b, const bd_uview_t *uv, xnode_t **out)
{
  *out = NULL;
  if (!uv->uv_view || !uv->uv_view->vi_check || !uv->uv_where)
    return CZ_OK;
  xnode_t *w, *chk;
  if (bd_view_where(b, uv, &w) != CZ_OK)
    return CZ_ERR;
  xnode_t *args[2] = {w, bd_node(b, X_CONST, ty_plain(TY_TEXT), 0)};
  args[1]->x_const.d_str.s_ptr = uv->uv_view->vi_name;
  args[1]->x_const.d_str.s_len = (uint32_t)strlen(uv->uv_view->vi_name);
  if (bd_ext_call(b, "_cz_view_check", args, 2, 0, &chk) != CZ_OK)  /* pgcat_view.c */
    return CZ_ERR;
  *out = chk;
  return CZ_OK;
}

int bd_view_scope(bd_t *b, const bd_uview_t *uv, const char *alias, bd_scope_t *sc)
{
  sc->sc_rels[0]->rl_hidden = true;
  sql_from_t fr = {.fr_kind = SQL_FROM_TABLE, .fr_alias = alias};
  bd_rel_t *r = view_rel(b, &fr, uv->uv_view);
  r->rl_map = uv->uv_map;
  return bd_scope_add(b, sc, r, 0);
}
