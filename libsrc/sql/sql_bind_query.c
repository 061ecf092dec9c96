/* sql_bind_query — query blocks: the select list (with * expansion),
 * GROUP BY / HAVING with aggregates, DISTINCT, ORDER BY (by output
 * position, output name or expression), LIMIT / OFFSET / TOP, VALUES and
 * the set operations. */
#include <string.h>

#include "exec/exec_ql.h"
#include "sql/sql_bind_ext.h"
#include "sql/sql_bind_int.h"

/* The name PostgreSQL gives a result column without an alias. */
static const char *target_name(const sql_expr_t *x)
{
  switch (x->ex_kind) {
  case SQL_E_COLUMN:
    return x->ex_name;
  case SQL_E_FUNC:
    return x->ex_name;
  case SQL_E_CASE:
    return "case";
  case SQL_E_EXISTS:
    return "exists";
  case SQL_E_FIELD:
    return x->ex_name;
  case SQL_E_CAST:
    if (x->ex_left->ex_kind == SQL_E_COLUMN)
      return x->ex_left->ex_name;
    return NULL;
  default:
    return "?column?";
  }
}

typedef struct tlist_s {
  int tl_n, tl_cap;
  xnode_t **tl_x;
  const char **tl_names;
  sp_col_t *tl_cols;
} tlist_t;

/* keys (over the select list tl) as keys over the FROM row, when each
 * is a FROM column passed on as is; NULL otherwise. */
static sort_key_t *keys_on_from(bd_t *b, const tlist_t *tl, const sort_key_t *keys, int nord)
{
  sort_key_t *want = arena_alloc(b->b_a, sizeof(sort_key_t) * (size_t)nord);
  for (int i = 0; i < nord; i++) {
    const xnode_t *x = tl->tl_x[keys[i].sk_col];
    if (x->x_kind != X_COL)
      return NULL;
    want[i] = keys[i];
    want[i].sk_col = x->x_index;
  }
  return want;
}

/* An integer literal (LIMIT 10 is bound as its cast to bigint). */
static bool const_count(const xnode_t *x, int64_t *out)
{
  while (x->x_kind == X_CAST)
    x = x->x_args[0];
  ty_id_t t = x->x_type.t_id;
  if (x->x_kind != X_CONST || x->x_const.d_null || (t != TY_INT2 && t != TY_INT4 && t != TY_INT8))
    return false;
  *out = x->x_const.d_i64;
  return true;
}

/* ORDER BY … LIMIT over the FROM row's columns: tell the optimizer the
 * order and how many rows the LIMIT reads (a constant LIMIT + OFFSET;
 * else -1). */
static void order_wish(bd_t *b, lp_block_t *fb, const tlist_t *tl, const sort_key_t *keys, int nord,
                       const xnode_t *lim, const xnode_t *off)
{
  sort_key_t *want = keys_on_from(b, tl, keys, nord);
  if (!want)
    return;
  int64_t l, o = 0;
  double rows = const_count(lim, &l) && (!off || const_count(off, &o)) ? (double)l + (double)o : -1;
  fb->fb_nord = nord;
  fb->fb_order = want;
  fb->fb_limit = rows;
}

static void tl_add(bd_t *b, tlist_t *tl, xnode_t *x, const char *name, const sp_col_t *col)
{
  if (tl->tl_n == tl->tl_cap) {
    int cap = tl->tl_cap ? tl->tl_cap * 2 : 16;
    xnode_t **nx = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)cap);
    const char **nn = arena_alloc(b->b_a, sizeof(char *) * (size_t)cap);
    sp_col_t *nc = arena_alloc(b->b_a, sizeof(sp_col_t) * (size_t)cap);
    if (tl->tl_n) {
      memcpy(nx, tl->tl_x, sizeof(xnode_t *) * (size_t)tl->tl_n);
      memcpy(nn, tl->tl_names, sizeof(char *) * (size_t)tl->tl_n);
      memcpy(nc, tl->tl_cols, sizeof(sp_col_t) * (size_t)tl->tl_n);
    }
    tl->tl_x = nx;
    tl->tl_names = nn;
    tl->tl_cols = nc;
    tl->tl_cap = cap;
  }
  tl->tl_x[tl->tl_n] = x;
  tl->tl_names[tl->tl_n] = name;
  sp_col_t c = {.pc_name = name, .pc_type = x->x_type};
  if (col) {
    c.pc_table_oid = col->pc_table_oid;
    c.pc_attnum = col->pc_attnum;
  }
  tl->tl_cols[tl->tl_n++] = c;
}

/* Table and column of a FROM column, for RowDescription. */
static void col_origin(const bd_scope_t *sc, int index, sp_col_t *out)
{
  memset(out, 0, sizeof(*out));
  for (int r = 0; r < sc->sc_nrels; r++) {
    const bd_rel_t *rel = sc->sc_rels[r];
    if (rel->rl_table && index >= rel->rl_base && index < rel->rl_base + rel->rl_ncols) {
      out->pc_table_oid = rel->rl_table->tb_oid;
      out->pc_attnum = (int16_t)(index - rel->rl_base + 1);
    }
  }
}

/* One column of the scope's row into an unqualified `*`, once, unless an
 * outer USING join merged it away (an inner join's merged column may be). */
static void star_col(bd_t *b, bd_scope_t *sc, int index, bool *done, tlist_t *tl)
{
  if (done[index])
    return;
  done[index] = true;
  for (int r = 0; r < sc->sc_nrels; r++) {
    const bd_rel_t *rel = sc->sc_rels[r];
    int c = index - rel->rl_base;
    if (rel->rl_map || c < 0 || c >= rel->rl_ncols)
      continue;  /* a merged view's entry covers no positions of its own */
    if (rel->rl_merged && rel->rl_merged[c])
      return;
    sp_col_t o;
    col_origin(sc, index, &o);
    bd_scope_use(b, sc, index);
    tl_add(b, tl, bd_col(b, index, rel->rl_types[c]), rel->rl_cols[c], &o);
    return;
  }
}

/* The unqualified `*` over range entries [from, to): PostgreSQL's order,
 * where a USING / NATURAL join lists its merged columns first, then its
 * sides' other columns (each side in the same way, recursively). open
 * marks the joins already being listed; done the columns already out. */
static void star_range(bd_t *b, bd_scope_t *sc, int from, int to, bool *open, bool *done,
                       tlist_t *tl)
{
  for (int r = from; r < to;) {
    int outer = -1;
    for (int u = 0; u < sc->sc_nusings; u++) {
      const bd_using_t *us = sc->sc_usings[u];
      if (!open[u] && us->us_first == r && us->us_end <= to &&
          (outer < 0 || us->us_end > sc->sc_usings[outer]->us_end))
        outer = u;
    }
    if (outer >= 0) {
      const bd_using_t *us = sc->sc_usings[outer];
      open[outer] = true;
      for (int i = 0; i < us->us_n; i++)
        star_col(b, sc, us->us_cols[i], done, tl);
      star_range(b, sc, r, us->us_end, open, done, tl);
      r = us->us_end;
      continue;
    }
    const bd_rel_t *rel = sc->sc_rels[r];
    if (rel->rl_hidden)
      ;  /* a merged view's own items: the view's entry lists its columns */
    else if (rel->rl_map)
      for (int c = 0; c < rel->rl_ncols; c++) {
        sp_col_t o = {0};
        bd_scope_use(b, sc, rel->rl_map[c]);
        tl_add(b, tl, bd_col(b, rel->rl_map[c], rel->rl_types[c]), rel->rl_cols[c], &o);
      }
    else
      for (int c = 0; c < rel->rl_ncols; c++)
        star_col(b, sc, rel->rl_base + c, done, tl);
    r++;
  }
}

static int bd_targets(bd_t *b, bd_scope_t *sc, const sql_select_t *s, bool top, tlist_t *tl)
{
  for (int i = 0; i < sql_list_len(s->se_targets); i++) {
    const sql_target_t *t = sql_list_at(s->se_targets, i);
    const sql_expr_t *x = t->tg_expr;
    if (x->ex_kind == SQL_E_STAR && !x->ex_table && sc->sc_nrels > 0) {
      bool *open = arena_zalloc(b->b_a, (size_t)sc->sc_nusings + 1);
      bool *done = arena_zalloc(b->b_a, (size_t)sc->sc_width + 1);
      star_range(b, sc, 0, sc->sc_nrels, open, done, tl);
      continue;
    }
    if (x->ex_kind == SQL_E_STAR) {
      bool any = false;
      for (int r = 0; r < sc->sc_nrels; r++) {
        const bd_rel_t *rel = sc->sc_rels[r];
        if (rel->rl_hidden || (x->ex_table && strcmp(rel->rl_name, x->ex_table) != 0))
          continue;
        any = true;
        for (int c = 0; c < rel->rl_ncols; c++) {
          if (rel->rl_merged && rel->rl_merged[c] && !x->ex_table)
            continue;
          int at = rel->rl_map ? rel->rl_map[c] : rel->rl_base + c;
          sp_col_t o = {0};
          if (!rel->rl_map)
            col_origin(sc, at, &o);
          bd_scope_use(b, sc, at);
          tl_add(b, tl, bd_col(b, at, rel->rl_types[c]), rel->rl_cols[c], &o);
        }
      }
      if (!any)
        return x->ex_table ? bd_error(b, SQLSTATE_UNDEFINED_TABLE, x->ex_pos,
                                      "missing FROM-clause entry for table \"%s\"", x->ex_table)
                           : bd_error(b, SQLSTATE_SYNTAX_ERROR, x->ex_pos,
                                      "SELECT * with no tables specified is not valid");
      continue;
    }
    if (x->ex_kind == SQL_E_FIELD && !x->ex_name) {  /* (record).* (sql_bind_record.c) */
      int nf;
      xnode_t **fx;
      const char **fn;
      if (bd_field_star(b, sc, x, &nf, &fx, &fn) != CZ_OK)
        return CZ_ERR;
      for (int k = 0; k < nf; k++)
        tl_add(b, tl, fx[k], fn[k], &(sp_col_t){0});
      continue;
    }
    xnode_t *n;
    if (bd_expr(b, sc, x, &n) != CZ_OK)
      return CZ_ERR;
    if (top && bd_reg_display(b, x, &n) != CZ_OK)
      return CZ_ERR;
    const char *name = t->tg_alias ? t->tg_alias : target_name(x);
    if (!name)
      name = ty_name(b->b_a, n->x_type);
    sp_col_t o;
    memset(&o, 0, sizeof(o));
    if (n->x_kind == X_COL && n->x_index >= 0)
      col_origin(sc, n->x_index, &o);
    tl_add(b, tl, n, name, &o);
  }
  return CZ_OK;
}

int bd_returning_bind(bd_t *b, bd_scope_t *sc, const sql_list_t *targets, bd_ret_t *out)
{
  memset(out, 0, sizeof(*out));
  if (!targets)
    return CZ_OK;
  sql_select_t s;
  memset(&s, 0, sizeof(s));
  s.se_targets = (sql_list_t *)targets;
  sc->sc_agg = NULL;
  sc->sc_agg_forbid = "RETURNING";
  tlist_t tl;
  memset(&tl, 0, sizeof(tl));
  if (bd_targets(b, sc, &s, false, &tl) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < tl.tl_n; i++) {
    if (!(tl.tl_x[i] = bd_finish_unknown(b, tl.tl_x[i])))
      return CZ_ERR;
    tl.tl_cols[i].pc_type = tl.tl_x[i]->x_type;
  }
  out->rt_n = tl.tl_n;
  out->rt_x = tl.tl_x;
  out->rt_cols = tl.tl_cols;
  return CZ_OK;
}

static bool is_int_literal(const sql_expr_t *x)
{
  return x->ex_kind == SQL_E_LITERAL && x->ex_lit == SQL_LIT_INT;
}

/* GROUP BY 2 and GROUP BY alias refer to the select list. */
int bd_group_item(bd_t *b, bd_scope_t *sc, const sql_select_t *s, const sql_expr_t *x,
                  xnode_t **out)
{
  int nt = sql_list_len(s->se_targets);
  const sql_expr_t *use = x;
  if (is_int_literal(x)) {
    if (x->ex_int < 1 || x->ex_int > nt)
      return bd_error(b, SQLSTATE_INVALID_COLUMN_REF, x->ex_pos,
                      "GROUP BY position %lld is not in select list", (long long)x->ex_int);
    use = ((const sql_target_t *)sql_list_at(s->se_targets, (int)x->ex_int - 1))->tg_expr;
  }
  bd_aggctx_t *saved = sc->sc_agg;
  sc->sc_agg = NULL;
  sc->sc_agg_forbid = "GROUP BY";
  int rc = bd_expr(b, sc, use, out);
  if (rc != CZ_OK && use == x && x->ex_kind == SQL_E_COLUMN && !x->ex_table &&
      err_is(b->b_e, SQLSTATE_UNDEFINED_COLUMN)) {
    for (int i = 0; i < nt; i++) {
      const sql_target_t *t = sql_list_at(s->se_targets, i);
      if (t->tg_alias && strcmp(t->tg_alias, x->ex_name) == 0) {
        rc = bd_expr(b, sc, t->tg_expr, out);
        break;
      }
    }
  }
  sc->sc_agg = saved;
  sc->sc_agg_forbid = NULL;
  return rc;
}

static bool nulls_first(const sql_order_t *o)
{
  return o->or_nulls == SQL_NULLS_FIRST ? true : o->or_nulls == SQL_NULLS_LAST ? false : o->or_desc;
}

/* An ORDER BY item that names an output column: a position or a bare
 * output name. -1 when it is an expression. */
static int order_output_ref(bd_t *b, const sql_order_t *o, const tlist_t *tl, int nvis, int *err)
{
  const sql_expr_t *x = o->or_expr;
  *err = 0;
  if (is_int_literal(x)) {
    if (x->ex_int < 1 || x->ex_int > nvis) {
      bd_error(b, SQLSTATE_INVALID_COLUMN_REF, x->ex_pos,
               "ORDER BY position %lld is not in select list", (long long)x->ex_int);
      *err = 1;
      return -1;
    }
    return (int)x->ex_int - 1;
  }
  if (x->ex_kind == SQL_E_COLUMN && !x->ex_table) {
    int found = -1;
    for (int i = 0; i < nvis; i++)
      if (strcmp(tl->tl_names[i], x->ex_name) == 0) {
        if (found >= 0 && !bd_node_equal(tl->tl_x[found], tl->tl_x[i])) {
          bd_error(b, SQLSTATE_AMBIGUOUS_COLUMN, x->ex_pos, "ORDER BY \"%s\" is ambiguous",
                   x->ex_name);
          *err = 1;
          return -1;
        }
        if (found < 0)
          found = i;
      }
    return found;
  }
  return -1;
}

/* DISTINCT ON's expressions resolved as ORDER BY items are: an output
 * position or name, else an expression equal to an output column or
 * added as a hidden one; *out their columns. */
static int bd_distinct_on(bd_t *b, bd_scope_t *sc, const sql_select_t *s, tlist_t *tl, int nvis,
                          int **out)
{
  int ndon = sql_list_len(s->se_distinct_on);
  int *don = arena_alloc(b->b_a, sizeof(int) * (size_t)ndon);
  for (int i = 0; i < ndon; i++) {
    sql_order_t o = {.or_expr = sql_list_at(s->se_distinct_on, i)};
    int err;
    int col = order_output_ref(b, &o, tl, nvis, &err);
    if (err)
      return CZ_ERR;
    if (col < 0) {
      xnode_t *n;
      if (bd_expr(b, sc, o.or_expr, &n) != CZ_OK)
        return CZ_ERR;
      for (int t = 0; t < tl->tl_n && col < 0; t++)
        if (bd_node_equal(tl->tl_x[t], n))
          col = t;
      if (col < 0) {
        col = tl->tl_n;
        tl_add(b, tl, n, "?distinct?", NULL);
      }
    }
    don[i] = col;
  }
  *out = don;
  return CZ_OK;
}

/* PostgreSQL's rule for DISTINCT ON: the ORDER BY items that are DISTINCT
 * ON expressions must come first (42P10 otherwise); the sort is the ORDER
 * BY followed by the DISTINCT ON expressions it does not name, so that
 * equal DISTINCT ON values are adjacent. */
static int distinct_on_keys(bd_t *b, const sql_select_t *s, const int *don, int ndon,
                            sort_key_t **keys, int *nkeys)
{
  int nord = *nkeys;
  sort_key_t *k = arena_alloc(b->b_a, sizeof(sort_key_t) * (size_t)(nord + ndon + 1));
  bool skipped = false;
  int pos = ((const sql_expr_t *)sql_list_at(s->se_distinct_on, 0))->ex_pos;
  for (int i = 0; i < nord; i++) {
    bool is_don = false;
    for (int j = 0; j < ndon && !is_don; j++)
      is_don = don[j] == (*keys)[i].sk_col;
    if (is_don && skipped)
      return bd_error(b, SQLSTATE_INVALID_COLUMN_REF, pos,
                      "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
    skipped |= !is_don;
    k[i] = (*keys)[i];
  }
  int n = nord;
  for (int j = 0; j < ndon; j++) {
    bool named = false;
    for (int i = 0; i < n && !named; i++)
      named = k[i].sk_col == don[j];
    if (named)
      continue;
    if (skipped)
      return bd_error(b, SQLSTATE_INVALID_COLUMN_REF, pos,
                      "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
    k[n].sk_col = don[j];
    k[n].sk_desc = false;
    k[n++].sk_nulls_first = false;
  }
  *keys = k;
  *nkeys = n;
  return CZ_OK;
}

static int bd_limit_expr(bd_t *b, const sql_expr_t *x, xnode_t **out)
{
  *out = NULL;
  if (!x)
    return CZ_OK;
  bd_scope_t *empty = bd_scope_new(b);
  empty->sc_agg_forbid = "LIMIT";
  xnode_t *n;
  if (bd_expr(b, empty, x, &n) != CZ_OK)
    return CZ_ERR;
  if (!(n = bd_coerce(b, n, ty_plain(TY_INT8))))
    return CZ_ERR;
  *out = n;
  return CZ_OK;
}

/* Operators the binder built (a decorrelated block's output) as a node. */
static void plan_node(op_t *plan, lp_node_t *out)
{
  *out = (lp_node_t){.ln_kind = LN_PLAN, .ln_ncols = plan->o_ncols, .ln_types = plan->o_types,
                     .ln_plan = plan};
}

static int bd_select_block(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq,
                           lp_node_t *out, const char ***names, sp_col_t **cols)
{
  const sql_select_t *s = q->qu_select;
  int nhint = b->b_nhint;
  const ty_t *hint = b->b_hint;
  b->b_nhint = 0;  /* for this block only, not its subqueries */
  b->b_hint = NULL;
  bd_scope_t *sc = arena_zalloc(b->b_a, sizeof(*sc));
  sc->sc_parent = outer;
  sc->sc_subq = sq;
  lp_block_t *from;
  if (bd_from_bind(b, sc, s->se_from, s->se_where, &from) != CZ_OK)
    return CZ_ERR;
  bd_decor_t *decor = b->b_decor;
  if (!decor || !sq || sq != decor->dr_sq || q != decor->dr_q || decor->dr_claimed)
    decor = NULL;
  else {
    decor->dr_claimed = true;  /* this block gives up its correlated conjuncts */
    bd_decor_extract(b, decor, from);
  }
  bd_aggctx_t *ag = arena_zalloc(b->b_a, sizeof(*ag));
  sc->sc_agg = ag;
  if (bd_window_begin(b, sc, s->se_windows) != CZ_OK)
    return CZ_ERR;
  int ngroup = sql_list_len(s->se_group);
  xnode_t **group;
  bd_gsets_t gsets;  /* GROUPING SETS, ROLLUP, CUBE (sql_bind_grouping.c) */
  bool has_sets = bd_group_has_sets(s->se_group);
  if (has_sets) {
    if (bd_group_sets(b, sc, s, &gsets) != CZ_OK)
      return CZ_ERR;
    ngroup = gsets.gs_nkeys;
    group = gsets.gs_keys;
  } else {
    group = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(ngroup + 1));
    for (int i = 0; i < ngroup; i++) {
      if (bd_group_item(b, sc, s, sql_list_at(s->se_group, i), &group[i]) != CZ_OK)
        return CZ_ERR;
      if (!(group[i] = bd_finish_unknown(b, group[i])))
        return CZ_ERR;
    }
  }
  tlist_t tl;
  memset(&tl, 0, sizeof(tl));
  bd_srf_begin(b, sc);  /* set-returning functions (sql_bind_srf_list.c) */
  if (bd_targets(b, sc, s, q == b->b_top_query, &tl) != CZ_OK)
    return CZ_ERR;
  int nvis = tl.tl_n;
  xnode_t *having = NULL;
  bd_window_forbid(sc, "HAVING");
  bd_srf_forbid(sc, "HAVING");
  if (s->se_having && bd_cond(b, sc, s->se_having, "HAVING", &having) != CZ_OK)
    return CZ_ERR;
  bd_window_forbid(sc, NULL);
  bd_srf_forbid(sc, NULL);
  /* ORDER BY: output references, else expressions (maybe hidden columns). */
  int nord = sql_list_len(q->qu_order);
  sort_key_t *keys = arena_alloc(b->b_a, sizeof(sort_key_t) * (size_t)(nord + 1));
  for (int i = 0; i < nord; i++) {
    const sql_order_t *o = sql_list_at(q->qu_order, i);
    int err;
    int col = order_output_ref(b, o, &tl, nvis, &err);
    if (err)
      return CZ_ERR;
    if (col < 0) {
      xnode_t *n;
      if (bd_expr(b, sc, o->or_expr, &n) != CZ_OK)
        return CZ_ERR;
      for (int t = 0; t < tl.tl_n && col < 0; t++)
        if (bd_node_equal(tl.tl_x[t], n))
          col = t;
      if (col < 0) {
        if (s->se_distinct)
          return bd_error(b, SQLSTATE_INVALID_COLUMN_REF, o->or_expr->ex_pos,
                          "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
        col = tl.tl_n;
        tl_add(b, &tl, n, "?order?", NULL);
      }
    }
    keys[i].sk_col = col;
    keys[i].sk_desc = o->or_desc;
    keys[i].sk_nulls_first = nulls_first(o);
  }
  /* DISTINCT ON (…): its expressions as output columns (maybe hidden) */
  int ndon = sql_list_len(s->se_distinct_on);
  int *don = NULL;
  if (ndon && (bd_distinct_on(b, sc, s, &tl, nvis, &don) != CZ_OK ||
               distinct_on_keys(b, s, don, ndon, &keys, &nord) != CZ_OK))
    return CZ_ERR;
  xnode_t *lim, *off, *top;
  if (bd_limit_expr(b, q->qu_limit, &lim) != CZ_OK || bd_limit_expr(b, q->qu_offset, &off) != CZ_OK ||
      bd_limit_expr(b, s->se_top, &top) != CZ_OK)
    return CZ_ERR;
  bool reorders = ag->ag_n > 0 || ngroup > 0 || having || has_sets || ag->ag_ngrp > 0 ||
                  s->se_distinct || bd_window_any(sc) || bd_srf_any(sc);
  /* FOR UPDATE: where it is not allowed; the locators as hidden outputs */
  int nlock = bd_lock_ntables(b);
  int *rid_out = NULL;
  if (b->b_lock) {
    if (bd_lock_check(b, sc, s, ag->ag_n > 0 || ag->ag_ngrp > 0, bd_window_any(sc)) != CZ_OK)
      return CZ_ERR;
    rid_out = arena_alloc(b->b_a, sizeof(int) * (size_t)(nlock + 1));
    for (int k = 0; k < nlock; k++) {
      rid_out[k] = tl.tl_n;
      bd_scope_use(b, sc, bd_lock_col(b, k));
      tl_add(b, &tl, bd_col(b, bd_lock_col(b, k), ty_plain(TY_BYTEA)), "?rowid?", NULL);
    }
  }
  /* the WHERE as bound, for the recheck of a row changed before its lock */
  int nconj0 = from->fb_nconj;
  xnode_t **conj0 = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(nconj0 + 1));
  if (nconj0)
    memcpy(conj0, from->fb_conj, sizeof(xnode_t *) * (size_t)nconj0);
  if (nord && (lim || top) && !reorders && !decor && !b->b_lock)
    order_wish(b, from, &tl, keys, nord, top ? top : lim, top ? NULL : off);
  if (decor) {
    /* every expression over the FROM row is bound: a decorrelating
     * rebinding plans it now, its output shaped over the operators */
    /* the estimate weighs a subquery that could also probe an index per row
     * (opt_join.c keep_per_row); sampling costs, so only then */
    from->fb_estimate = decor->dr_key_probe || decor->dr_estimate;
    op_t *plan;
    if (bd_from_plan(b, sc, from, &plan) != CZ_OK)
      return CZ_ERR;
    decor->dr_est_rows = plan->o_est_rows;
    decor->dr_est_cost = bd_plan_est_cost(plan);
    /* what a semi / anti or grouped join cannot express: keep the per-row subquery */
    if ((ag->ag_n > 0 && !decor->dr_scalar) || ngroup > 0 || having || has_sets || ndon ||
        bd_window_any(sc) || bd_srf_any(sc) ||
        q->qu_limit || q->qu_offset || s->se_top || ((decor->dr_in || decor->dr_scalar) && nvis != 1))
      decor->dr_fail = true;
    if (decor->dr_scalar) {
      if (decor->dr_fail || ag->ag_n == 0) {
        decor->dr_fail = true;
        plan_node(plan, out);
        return CZ_OK;
      }
      plan = bd_decor_grouped(b, decor, plan, ag, tl.tl_x[0]);
    } else
      plan = bd_decor_output(b, decor, plan, nvis > 0 ? tl.tl_x[0] : NULL);
    if (!plan)
      return CZ_ERR;
    plan_node(plan, out);
    return CZ_OK;
  }
  /* the upper part, logical (sql_logical.h): the generator makes every
   * physical choice and builds the operators (opt/opt_gen.c) */
  lp_upper_t *u = arena_zalloc(b->b_a, sizeof(*u));
  u->lu_from = from;
  u->lu_width = sc->sc_width;
  u->lu_par = bd_par_block(outer, sq);
  u->lu_grouped = ag->ag_n > 0 || ngroup > 0 || having || has_sets || ag->ag_ngrp > 0;
  int win_base = sc->sc_width;  /* the windows' input: the FROM row, or the group-by's output */
  if (u->lu_grouped) {
    /* ORDER BY inside aggregates (sql_bind_agg_order.c): the group-by's
     * input is sorted by it */
    u->lu_nagg_order = ag->ag_norder;
    u->lu_agg_order = ag->ag_order;
    u->lu_agg_order_desc = ag->ag_order_desc;
    u->lu_agg_order_nf = ag->ag_order_nf;
    if (has_sets || ag->ag_ngrp > 0) {
      if (!has_sets)
        bd_group_one_set(b, ngroup, group, &gsets);
      if (bd_groupsets_logical(b, &gsets, ag, &u->lu_sets) != CZ_OK)
        return CZ_ERR;
    }
    for (int t = 0; t < tl.tl_n; t++)
      if (bd_agg_rewrite(b, ag, ngroup, group, tl.tl_x[t], &tl.tl_x[t]) != CZ_OK)
        return CZ_ERR;
    if (having && bd_agg_rewrite(b, ag, ngroup, group, having, &having) != CZ_OK)
      return CZ_ERR;
    win_base = ngroup + ag->ag_n + ag->ag_ngrp;
  }
  u->lu_ngroup = ngroup;
  u->lu_group = group;
  u->lu_nagg = ag->ag_n;
  u->lu_aggs = ag->ag_specs;
  u->lu_having = having;
  /* window functions of the select list / ORDER BY (sql_bind_window.c):
   * over the FROM row, or after GROUP BY and HAVING */
  bd_wgroup_t wg = {.wg_agg = ag, .wg_ngroup = ngroup, .wg_group = group};
  if (bd_window_logical(b, sc, u->lu_grouped ? &wg : NULL, win_base, &u->lu_nwin, &u->lu_wins) !=
      CZ_OK)
    return CZ_ERR;
  /* set-returning functions of the select list (sql_bind_srf_list.c): a
   * ProjectSet over the last window's row (or the group-by's, or the
   * block's) */
  int srf_base = u->lu_nwin ? u->lu_wins[u->lu_nwin - 1].lw_base + u->lu_wins[u->lu_nwin - 1].lw_nfn
                            : win_base;
  if (bd_srf_logical(b, sc, u->lu_grouped ? &wg : NULL, srf_base, &u->lu_nsrf,
                     &u->lu_srf_bounds) != CZ_OK)
    return CZ_ERR;
  u->lu_srf_base = srf_base;
  for (int t = 0; t < tl.tl_n; t++) {
    if (t < nhint && tl.tl_x[t]->x_type.t_id == TY_UNKNOWN &&
        !(tl.tl_x[t] = bd_coerce(b, tl.tl_x[t], hint[t])))
      return CZ_ERR;
    if (!(tl.tl_x[t] = bd_finish_unknown(b, tl.tl_x[t])))
      return CZ_ERR;
    tl.tl_cols[t].pc_type = tl.tl_x[t]->x_type;
  }
  u->lu_ntarget = tl.tl_n;
  u->lu_nvis = nvis;
  u->lu_targets = tl.tl_x;
  u->lu_distinct = s->se_distinct;
  u->lu_ndon = ndon;
  u->lu_don = don;
  u->lu_nord = nord;
  u->lu_keys = keys;
  u->lu_limit = lim;
  u->lu_offset = off;
  u->lu_top = top;
  if (b->b_lock)
    u->lu_lock = bd_lock_logical(b, rid_out, from, conj0, nconj0, tl.tl_x, tl.tl_n);
  /* every expression of the block is bound: the join block takes its
   * final form (sql_bind_opt.c), the generator plans it with the upper
   * part when the statement's tree is generated */
  if (bd_from_finish(b, sc, from) != CZ_OK)
    return CZ_ERR;
  ty_t *types = arena_alloc(b->b_a, sizeof(ty_t) * (size_t)(nvis + 1));
  for (int t = 0; t < nvis; t++)
    types[t] = tl.tl_cols[t].pc_type;
  *out = (lp_node_t){.ln_kind = LN_SELECT, .ln_ncols = nvis, .ln_types = types, .ln_upper = u};
  if (names)
    *names = tl.tl_names;
  if (cols)
    *cols = tl.tl_cols;
  return CZ_OK;
}

/* A SELECT block, with its own FOR UPDATE request in force while it is
 * bound (the enclosing block's is put back after). */
static int bd_select(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq,
                     lp_node_t *out, const char ***names, sp_col_t **cols)
{
  bd_lockreq_t *saved = bd_lock_begin(b, q);
  int rc = bd_select_block(b, q, outer, sq, out, names, cols);
  b->b_lock = saved;
  return rc;
}

/* VALUES (…), (…): rows of equal length; column types unified per column. */
static int bd_values(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq,
                     lp_node_t *out, const char ***names)
{
  int nrows = sql_list_len(q->qu_rows);
  int ncols = sql_list_len(sql_list_at(q->qu_rows, 0));
  bd_scope_t *sc = bd_scope_new(b);
  sc->sc_parent = outer;
  sc->sc_subq = sq;
  sc->sc_agg_forbid = "VALUES";
  xnode_t ***rows = arena_alloc(b->b_a, sizeof(xnode_t **) * (size_t)nrows);
  for (int r = 0; r < nrows; r++) {
    const sql_list_t *row = sql_list_at(q->qu_rows, r);
    if (sql_list_len(row) != ncols)
      return bd_error(b, SQLSTATE_SYNTAX_ERROR, q->qu_pos,
                      "VALUES lists must all be the same length");
    rows[r] = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)ncols);
    for (int c = 0; c < ncols; c++)
      if (bd_expr(b, sc, sql_list_at(row, c), &rows[r][c]) != CZ_OK)
        return CZ_ERR;
  }
  ty_t *types = arena_alloc(b->b_a, sizeof(ty_t) * (size_t)(ncols + 1));
  xnode_t **col = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(nrows + 1));
  for (int c = 0; c < ncols; c++) {
    for (int r = 0; r < nrows; r++)
      col[r] = rows[r][c];
    if (bd_unify(b, col, nrows, "VALUES", q->qu_pos, &types[c]) != CZ_OK)
      return CZ_ERR;
    ty_id_t elem = types[c].t_elem;
    for (int r = 0; r < nrows; r++)
      if (!(rows[r][c] = bd_finish_unknown(b, col[r])))
        return CZ_ERR;
    types[c] = rows[0][c]->x_type;
    if (types[c].t_id == TY_TEXT)
      types[c].t_elem = elem; /* an array beside NULLs stays one */
  }
  *out = (lp_node_t){.ln_kind = LN_VALUES, .ln_ncols = ncols, .ln_types = types,
                     .ln_nrows = nrows, .ln_rows = rows};
  if (names) {
    const char **nm = arena_alloc(b->b_a, sizeof(char *) * (size_t)(ncols + 1));
    for (int c = 0; c < ncols; c++)
      nm[c] = arena_sprintf(b->b_a, "column%d", c + 1);
    *names = nm;
  }
  return CZ_OK;
}

/* The columns of op as types, where they differ: per column its value in
 * types over op's row; NULL when op has them all. */
static xnode_t **cast_columns(bd_t *b, const lp_node_t *side, const ty_t *types)
{
  bool same = true;
  for (int c = 0; c < side->ln_ncols; c++)
    same &= side->ln_types[c].t_id == types[c].t_id;
  if (same)
    return NULL;
  xnode_t **x = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)side->ln_ncols);
  for (int c = 0; c < side->ln_ncols; c++)
    x[c] = bd_coerce(b, bd_col(b, c, side->ln_types[c]), types[c]);
  return x;
}

static int bd_setop(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq,
                    lp_node_t *out, const char ***names, sp_col_t **cols)
{
  lp_node_t *l, *r;
  const char **ln;
  /* a recursive reference is refused where PostgreSQL refuses it: in
   * INTERSECT ALL, EXCEPT ALL's left side and EXCEPT's right side */
  int saved_other = b->b_setop_other;
  if (q->qu_kind != SQL_Q_UNION && q->qu_all)
    b->b_setop_other = q->qu_kind;
  int rc = bd_query_node(b, q->qu_left, outer, sq, &l, &ln, cols);
  if (q->qu_kind == SQL_Q_EXCEPT)
    b->b_setop_other = q->qu_kind;
  if (rc == CZ_OK)
    rc = bd_query_node(b, q->qu_right, outer, sq, &r, NULL, NULL);
  b->b_setop_other = saved_other;
  if (rc != CZ_OK)
    return CZ_ERR;
  static const char *what[] = {"", "", "UNION", "EXCEPT", "INTERSECT"};
  if (l->ln_ncols != r->ln_ncols)
    return bd_error(b, SQLSTATE_SYNTAX_ERROR, q->qu_pos,
                    "each %s query must have the same number of columns", what[q->qu_kind]);
  ty_t *types = arena_alloc(b->b_a, sizeof(ty_t) * (size_t)(l->ln_ncols + 1));
  for (int c = 0; c < l->ln_ncols; c++) {
    ty_t pair[2] = {l->ln_types[c], r->ln_types[c]};
    if (xtype_common(pair, 2, &types[c], b->b_e) != CZ_OK) {
      b->b_e->er_pos = q->qu_pos;
      return CZ_ERR;
    }
  }
  xnode_t **lcast = cast_columns(b, l, types), **rcast = cast_columns(b, r, types);
  for (int c = 0; c < l->ln_ncols; c++)
    if ((lcast && !lcast[c]) || (rcast && !rcast[c]))
      return CZ_ERR;
  setop_kind_t k = q->qu_kind == SQL_Q_UNION    ? SETOP_UNION
                   : q->qu_kind == SQL_Q_EXCEPT ? SETOP_EXCEPT
                                                : SETOP_INTERSECT;
  *out = (lp_node_t){.ln_kind = LN_SETOP, .ln_ncols = l->ln_ncols, .ln_types = types,
                     .ln_setop = k, .ln_all = q->qu_all, .ln_l = l, .ln_r = r,
                     .ln_lcast = lcast, .ln_rcast = rcast};
  if (names)
    *names = ln;
  if (cols && *cols)
    for (int c = 0; c < l->ln_ncols; c++)
      (*cols)[c].pc_type = types[c];
  return CZ_OK;
}

/* ORDER BY / LIMIT over a VALUES list or a set operation: only output
 * columns can be named. */
static int bd_order_outputs(bd_t *b, const sql_query_t *q, const char **names, lp_node_t *n)
{
  int nord = sql_list_len(q->qu_order);
  if (nord) {
    sort_key_t *keys = arena_alloc(b->b_a, sizeof(sort_key_t) * (size_t)nord);
    tlist_t tl = {.tl_n = n->ln_ncols, .tl_names = names};
    tl.tl_x = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(tl.tl_n + 1));
    for (int c = 0; c < tl.tl_n; c++)
      tl.tl_x[c] = bd_col(b, c, n->ln_types[c]);
    for (int i = 0; i < nord; i++) {
      const sql_order_t *o = sql_list_at(q->qu_order, i);
      int err;
      int col = order_output_ref(b, o, &tl, tl.tl_n, &err);
      if (err)
        return CZ_ERR;
      if (col < 0)
        return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, o->or_expr->ex_pos,
                        "ORDER BY on a set operation must name a result column");
      keys[i].sk_col = col;
      keys[i].sk_desc = o->or_desc;
      keys[i].sk_nulls_first = nulls_first(o);
    }
    n->ln_nord = nord;
    n->ln_keys = keys;
  }
  return bd_limit_expr(b, q->qu_limit, &n->ln_limit) != CZ_OK ||
                 bd_limit_expr(b, q->qu_offset, &n->ln_offset) != CZ_OK
             ? CZ_ERR
             : CZ_OK;
}

static int bd_query_body(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq,
                         lp_node_t *out, const char ***names, sp_col_t **cols);

/* WITH: the names are put in force for the query (and its subqueries),
 * each also for the WITH queries after it; a reference in FROM binds the
 * body there as a derived table (sql_bind_from.c), which is what
 * PostgreSQL does with a non-recursive CTE (it inlines it; one it keeps
 * materialised gives the same rows for queries without side effects). */
int bd_with_push(bd_t *b, const sql_query_t *q)
{
  bd_cte_t *saved = b->b_ctes;
  int n = sql_list_len(q->qu_with);
  for (int i = 0; i < n; i++) {
    const sql_cte_t *c = sql_list_at(q->qu_with, i);
    for (int j = 0; j < i; j++)
      if (strcmp(((const sql_cte_t *)sql_list_at(q->qu_with, j))->wc_name, c->wc_name) == 0) {
        b->b_ctes = saved;
        return bd_error(b, SQLSTATE_DUPLICATE_ALIAS, c->wc_pos,
                        "WITH query name \"%s\" specified more than once", c->wc_name);
      }
    bd_cte_t *e = arena_zalloc(b->b_a, sizeof(*e));
    e->ct_cte = c;
    e->ct_prev = b->b_ctes;
    e->ct_recursive = q->qu_recursive;
    b->b_ctes = e;
  }
  /* RECURSIVE: each query sees the whole list (sql_bind_recursive.c) */
  for (bd_cte_t *e = b->b_ctes; q->qu_recursive && e != saved; e = e->ct_prev)
    e->ct_visible = b->b_ctes;
  return CZ_OK;
}

/* PostgreSQL checks every query of a RECURSIVE list, named or not: each
 * is bound once here (the plans are dropped: each reference binds its
 * own). q's list must be the innermost in force. */
int bd_with_check(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq)
{
  if (!q->qu_recursive)
    return CZ_OK;
  bd_scope_t *wsc = bd_scope_new(b);
  wsc->sc_parent = outer;
  wsc->sc_subq = sq;
  bd_cte_t *e = b->b_ctes;
  for (int i = 0; i < sql_list_len(q->qu_with) && e; i++, e = e->ct_prev) {
    lp_node_t *n;
    const char **nm;
    if (bd_cte_recursive(b, wsc, e, &n, &nm) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

int bd_query(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq, op_t **out,
             const char ***names, sp_col_t **cols)
{
  lp_node_t *n;
  return bd_query_node(b, q, outer, sq, &n, names, cols) != CZ_OK ? CZ_ERR
                                                                   : bd_node_plan(b, n, out);
}

int bd_query_node(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq,
                  lp_node_t **node, const char ***names, sp_col_t **cols)
{
  lp_node_t *out = arena_zalloc(b->b_a, sizeof(*out));
  *node = out;
  if (!q->qu_with)
    return bd_query_body(b, q, outer, sq, out, names, cols);
  bd_cte_t *saved = b->b_ctes;
  if (bd_with_push(b, q) != CZ_OK)
    return CZ_ERR;
  for (bd_cte_t *e = b->b_ctes; e != saved; e = e->ct_prev) {
    e->ct_outer = outer;
    e->ct_sq = sq;
  }
  if (!q->qu_recursive)
    bd_cte_count_refs(q, b->b_ctes);
  if (bd_with_check(b, q, outer, sq) != CZ_OK ||
      (!q->qu_recursive && bd_cte_check_unused(b, b->b_ctes, saved) != CZ_OK)) {
    b->b_ctes = saved;
    return CZ_ERR;
  }
  int rc = bd_query_body(b, q, outer, sq, out, names, cols);
  b->b_ctes = saved;
  return rc;
}

static int bd_query_body(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq,
                         lp_node_t *out, const char ***names, sp_col_t **cols)
{
  const char **nm = NULL;
  sp_col_t *cl = NULL;
  int rc;
  switch (q->qu_kind) {
  case SQL_Q_SELECT:
    return bd_select(b, q, outer, sq, out, names, cols);
  case SQL_Q_VALUES:
    rc = bd_values(b, q, outer, sq, out, &nm);
    break;
  default:
    rc = bd_setop(b, q, outer, sq, out, &nm, &cl);
    break;
  }
  if (rc != CZ_OK || bd_order_outputs(b, q, nm, out) != CZ_OK)
    return CZ_ERR;
  if (names)
    *names = nm;
  if (cols) {
    if (!cl) {
      cl = arena_zalloc(b->b_a, sizeof(sp_col_t) * (size_t)(out->ln_ncols + 1));
      for (int c = 0; c < out->ln_ncols; c++) {
        cl[c].pc_name = nm[c];
        cl[c].pc_type = out->ln_types[c];
      }
    }
    *cols = cl;
  }
  return CZ_OK;
}
