/* sql_bind_from — the FROM clause and WHERE: FROM items become range
 * entries of the block's scope and inputs of a left-deep join tree;
 * WHERE conjuncts are placed where they can first be evaluated: into the
 * scan of the one table they use (key bounds or a filter there), into the
 * join that brings their tables together (equalities of two columns make
 * it a hash join), or, when they hold subqueries, above all the joins.
 *
 * The row of the block is the FROM items' columns side by side in the
 * order written, and a left-deep join of the items in that order produces
 * exactly that row, so conjunct column numbers only change when a
 * conjunct is pushed into a single item (shifted by the item's base). */
#include <string.h>

#include "sql/sql_bind_ext.h"
#include "sql/sql_bind_int.h"

int bd_lookup_table(bd_t *b, const sql_name_t *n, const sp_table_t **out)
{
  int rc = b->b_env->pe_table(b->b_env->pe_ctx, n->nm_schema, n->nm_name, b->b_a, out, b->b_e);
  if (rc == CZ_ERR)
    return CZ_ERR;
  if (rc != CZ_OK)
    return bd_error(b, SQLSTATE_UNDEFINED_TABLE, n->nm_pos, "relation \"%s%s%s\" does not exist",
                    n->nm_schema ? n->nm_schema : "", n->nm_schema ? "." : "", n->nm_name);
  bd_ref_relation(b, n, (*out)->tb_oid);
  return CZ_OK;
}

static void scope_add(bd_t *b, bd_scope_t *sc, bd_rel_t *r)
{
  for (int i = 0; i < sc->sc_nrels; i++)
    if (!sc->sc_rels[i]->rl_hidden && strcmp(sc->sc_rels[i]->rl_name, r->rl_name) == 0 &&
        (!r->rl_schema || !sc->sc_rels[i]->rl_schema ||
         strcmp(r->rl_schema, sc->sc_rels[i]->rl_schema) == 0)) {
      bd_error(b, SQLSTATE_DUPLICATE_ALIAS, 0, "table name \"%s\" specified more than once",
               r->rl_name);
      r->rl_ncols = -1;  /* reported by the caller through b_e */
    }
  bd_rel_t **n = arena_alloc(b->b_a, sizeof(bd_rel_t *) * (size_t)(sc->sc_nrels + 1));
  if (sc->sc_nrels)
    memcpy(n, sc->sc_rels, sizeof(bd_rel_t *) * (size_t)sc->sc_nrels);
  n[sc->sc_nrels++] = r;
  sc->sc_rels = n;
  r->rl_base = sc->sc_width;
  if (r->rl_ncols > 0 && !r->rl_map)  /* a merged view's columns are its items' */
    sc->sc_width += r->rl_ncols;
}

int bd_scope_add(bd_t *b, bd_scope_t *sc, bd_rel_t *r, int pos)
{
  scope_add(b, sc, r);
  if (r->rl_ncols >= 0)
    return CZ_OK;
  b->b_e->er_pos = pos;
  return CZ_ERR;
}

static xnode_t *shift_copy(bd_t *b, const xnode_t *x, int delta)
{
  xnode_t *n = arena_alloc(b->b_a, sizeof(*n));
  *n = *x;
  if (x->x_kind == X_COL)
    n->x_index += delta;
  if (x->x_nargs) {
    n->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)x->x_nargs);
    for (int i = 0; i < x->x_nargs; i++)
      n->x_args[i] = shift_copy(b, x->x_args[i], delta);
  }
  return n;
}

static int bd_item(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, op_t **op,
                   const lp_node_t **node, const lp_outer_t **outer, const sp_table_t **table,
                   const char **alias);

static bd_rel_t *rel_new(bd_t *b, const char *name, const char *schema, int n)
{
  bd_rel_t *r = arena_zalloc(b->b_a, sizeof(*r));
  r->rl_name = name;
  r->rl_schema = schema;
  r->rl_ncols = n;
  r->rl_cols = arena_zalloc(b->b_a, sizeof(char *) * (size_t)(n + 1));
  r->rl_types = arena_zalloc(b->b_a, sizeof(ty_t) * (size_t)(n + 1));
  return r;
}

/* A join of left (lw columns) and right over cond (in the joined row):
 * `left col = right col` conjuncts of one type become hash keys, the
 * rest the residual condition; without keys a nested loop. */
op_t *bd_join_op(bd_t *b, op_t *l, op_t *r, join_kind_t kind, xnode_t *cond)
{
  int lw = l->o_ncols;
  xnode_t **conj = NULL;
  int n = 0, cap = 0, nk = 0;
  int lk[32], rk[32];
  bd_conjuncts(b, cond, &conj, &n, &cap);
  for (int i = 0; i < n && nk < 32; i++) {
    const xnode_t *c = conj[i];
    if (c->x_kind != X_OP || c->x_op != XOP_EQ || c->x_args[0]->x_kind != X_COL ||
        c->x_args[1]->x_kind != X_COL || c->x_args[0]->x_type.t_id != c->x_args[1]->x_type.t_id)
      continue;
    int a = c->x_args[0]->x_index, d = c->x_args[1]->x_index;
    if ((a < lw) == (d < lw))
      continue;
    lk[nk] = a < lw ? a : d;
    rk[nk++] = (a < lw ? d : a) - lw;
    conj[i] = NULL;
  }
  xnode_t *rest = bd_and_all(b, conj, n);
  return nk ? op_hashjoin_new(b->b_a, l, r, kind, nk, lk, rk, rest)
            : op_nljoin_new(b->b_a, l, r, kind, cond);
}

/* Finds the one column called name among rels [from, to) of sc (side
 * names them in the error, which has no position, as PostgreSQL's). */
static int using_col(bd_t *b, bd_scope_t *sc, int from, int to, const char *name,
                     const char *side, bd_rel_t **rel, int *col)
{
  int found = 0;
  for (int r = from; r < to; r++)
    for (int c = 0; c < sc->sc_rels[r]->rl_ncols; c++)
      if (strcmp(sc->sc_rels[r]->rl_cols[c], name) == 0 &&
          !(sc->sc_rels[r]->rl_merged && sc->sc_rels[r]->rl_merged[c])) {
        found++;
        *rel = sc->sc_rels[r];
        *col = c;
      }
  if (found == 1)
    return CZ_OK;
  return found ? bd_error(b, SQLSTATE_AMBIGUOUS_COLUMN, 0,
                          "common column name \"%s\" appears more than once in %s table", name,
                          side)
               : bd_error(b, SQLSTATE_UNDEFINED_COLUMN, 0,
                          "column \"%s\" specified in USING clause does not exist in %s table",
                          name, side);
}

/* JOIN … USING (cols) and NATURAL JOIN: equalities of the same-named
 * columns (in the join's own row, starting at base); the side whose
 * value does not survive the join (the right one, or the left one of a
 * RIGHT JOIN) is merged: unqualified names and * see one column. */
static int bd_join_using(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, int first_rel, int mid,
                         int base, xnode_t **out, bd_using_t **rec)
{
  int split;
  for (split = first_rel; split < sc->sc_nrels && sc->sc_rels[split]->rl_base < mid; split++)
    ;
  sql_list_t names = {0};
  const sql_list_t *list = fr->fr_using;
  if (fr->fr_natural) {
    /* every left column name that the right side has too (columns an
     * inner USING join merged away are not the sides' columns) */
    for (int r = first_rel; r < split; r++)
      for (int c = 0; c < sc->sc_rels[r]->rl_ncols; c++) {
        const bd_rel_t *lrel = sc->sc_rels[r];
        const char *nm = lrel->rl_cols[c];
        bool right = false, seen = false;
        if (lrel->rl_merged && lrel->rl_merged[c])
          continue;
        for (int r2 = split; r2 < sc->sc_nrels && !right; r2++)
          for (int c2 = 0; c2 < sc->sc_rels[r2]->rl_ncols && !right; c2++)
            right = strcmp(sc->sc_rels[r2]->rl_cols[c2], nm) == 0 &&
                    !(sc->sc_rels[r2]->rl_merged && sc->sc_rels[r2]->rl_merged[c2]);
        for (int i = 0; i < names.ls_n && !seen; i++)
          seen = strcmp(names.ls_items[i], nm) == 0;
        if (!right || seen)
          continue;
        if (names.ls_n == names.ls_cap) {
          int cap = names.ls_cap ? names.ls_cap * 2 : 8;
          void **n = arena_alloc(b->b_a, sizeof(void *) * (size_t)cap);
          if (names.ls_n)
            memcpy(n, names.ls_items, sizeof(void *) * (size_t)names.ls_n);
          names.ls_items = n;
          names.ls_cap = cap;
        }
        names.ls_items[names.ls_n++] = (void *)nm;
      }
    list = &names;
  }
  xnode_t *cond = NULL;
  bd_using_t *us = arena_zalloc(b->b_a, sizeof(*us));
  us->us_first = first_rel;
  us->us_cols = arena_alloc(b->b_a, sizeof(int) * (size_t)(sql_list_len(list) + 1));
  for (int i = 0; i < sql_list_len(list); i++) {
    const char *nm = sql_list_at(list, i);
    bd_rel_t *lr, *rr;
    int lc, rc;
    if (using_col(b, sc, first_rel, split, nm, "left", &lr, &lc) != CZ_OK ||
        using_col(b, sc, split, sc->sc_nrels, nm, "right", &rr, &rc) != CZ_OK)
      return CZ_ERR;
    xnode_t *eq, *l = bd_col(b, lr->rl_base + lc - base, lr->rl_types[lc]);
    xnode_t *r = bd_col(b, rr->rl_base + rc - base, rr->rl_types[rc]);
    if (bd_op(b, XOP_EQ, l, r, fr->fr_pos, &eq) != CZ_OK)
      return CZ_ERR;
    cond = cond ? (bd_op(b, XOP_AND, cond, eq, fr->fr_pos, &cond) == CZ_OK ? cond : NULL) : eq;
    if (!cond)
      return CZ_ERR;
    bd_rel_t *gone = fr->fr_join == SQL_JOIN_RIGHT ? lr : rr;
    int gc = fr->fr_join == SQL_JOIN_RIGHT ? lc : rc;
    if (!gone->rl_merged)
      gone->rl_merged = arena_zalloc(b->b_a, (size_t)gone->rl_ncols + 1);
    gone->rl_merged[gc] = true;
    us->us_cols[us->us_n++] =
        fr->fr_join == SQL_JOIN_RIGHT ? rr->rl_base + rc : lr->rl_base + lc;
  }
  *out = cond;
  *rec = us;
  return CZ_OK;
}

/* Records a USING / NATURAL join once its range entries are all in sc. */
static void using_record(bd_t *b, bd_scope_t *sc, bd_using_t *us)
{
  us->us_end = sc->sc_nrels;
  bd_using_t **n = arena_alloc(b->b_a, sizeof(*n) * (size_t)(sc->sc_nusings + 1));
  if (sc->sc_nusings)
    memcpy(n, sc->sc_usings, sizeof(*n) * (size_t)sc->sc_nusings);
  n[sc->sc_nusings++] = us;
  sc->sc_usings = n;
}

static xnode_t *strip_casts(xnode_t *x)
{
  while (x->x_kind == X_CAST)
    x = x->x_args[0];
  return x;
}

/* FULL JOIN … USING / NATURAL: the merged column is COALESCE of both
 * sides (either may be the padded one), so both sides' columns are
 * hidden from unqualified names and `*` and a range entry of the
 * coalesced columns, after the join's own, takes the names; the join's
 * row gains those columns, which the optimizer computes from oj_extra. cond: the USING equalities (join row). */
static int full_using(bd_t *b, bd_scope_t *sc, int first_rel, int base, xnode_t *cond,
                      lp_outer_t *oj, bd_using_t *us)
{
  xnode_t **conj = NULL;
  int n = 0, cap = 0;
  if (cond)
    bd_conjuncts(b, cond, &conj, &n, &cap);
  bd_rel_t *m = arena_zalloc(b->b_a, sizeof(*m));
  m->rl_name = arena_sprintf(b->b_a, "\x01using%d", sc->sc_nrels);  /* no name a query can spell */
  m->rl_cols = arena_alloc(b->b_a, sizeof(char *) * (size_t)(n + 1));
  m->rl_types = arena_alloc(b->b_a, sizeof(ty_t) * (size_t)(n + 1));
  xnode_t **x = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    xnode_t *eq = conj[i];
    xnode_t *lc = strip_casts(eq->x_args[0]);
    /* the left column's range entry: hidden unqualified, its name taken */
    for (int r = first_rel; r < sc->sc_nrels; r++) {
      bd_rel_t *rel = sc->sc_rels[r];
      int c = base + lc->x_index - rel->rl_base;
      if (c < 0 || c >= rel->rl_ncols)
        continue;
      if (!rel->rl_merged)
        rel->rl_merged = arena_zalloc(b->b_a, (size_t)rel->rl_ncols + 1);
      rel->rl_merged[c] = true;
      m->rl_cols[m->rl_ncols] = rel->rl_cols[c];
    }
    xnode_t *notnull, *cs = bd_node(b, X_CASE, eq->x_args[0]->x_type, eq->x_pos);
    if (bd_op(b, XOP_IS_NOT_NULL, eq->x_args[0], NULL, eq->x_pos, &notnull) != CZ_OK)
      return CZ_ERR;
    cs->x_nargs = 3;
    cs->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * 3);
    cs->x_args[0] = notnull;
    cs->x_args[1] = eq->x_args[0];
    cs->x_args[2] = eq->x_args[1];
    cs->x_has_else = true;
    m->rl_types[m->rl_ncols] = cs->x_type;
    x[m->rl_ncols++] = cs;
  }
  scope_add(b, sc, m);
  for (int i = 0; i < m->rl_ncols && i < us->us_n; i++)
    us->us_cols[i] = m->rl_base + i;
  oj->oj_nextra = m->rl_ncols;
  oj->oj_extra = x;
  return CZ_OK;
}

/* An explicit JOIN: both sides go into sc, ON is bound over just them,
 * and the join is left logical in *outer (lp_outer_t: the optimizer
 * builds it, reading the columns the block reads). */
static int bd_join(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, const lp_outer_t **outer)
{
  int first_rel = sc->sc_nrels;
  int base = sc->sc_width;
  op_t *l, *r;
  const lp_outer_t *lo, *ro;  /* a side that is an explicit join, logical */
  const lp_node_t *ln, *rn;   /* a side that is a derived table, logical */
  const sp_table_t *t;
  const char *al;
  /* the nullable sides of outer joins (a recursive reference is refused there) */
  bool null_l = fr->fr_join == SQL_JOIN_RIGHT || fr->fr_join == SQL_JOIN_FULL;
  bool null_r = fr->fr_join == SQL_JOIN_LEFT || fr->fr_join == SQL_JOIN_FULL;
  /* FOR UPDATE of a side: the nullable ones first (PostgreSQL's error) */
  if ((null_l && bd_lock_join_item(b, fr->fr_left, true) != CZ_OK) ||
      (null_r && bd_lock_join_item(b, fr->fr_right, true) != CZ_OK) ||
      bd_lock_join_item(b, fr->fr_left, null_l) != CZ_OK ||
      bd_lock_join_item(b, fr->fr_right, null_r) != CZ_OK)
    return CZ_ERR;
  b->b_nullable += null_l;
  int rc = bd_item(b, sc, fr->fr_left, &l, &ln, &lo, &t, &al);
  b->b_nullable -= null_l;
  if (rc != CZ_OK)
    return CZ_ERR;
  const sp_table_t *ltable = t;
  const char *lalias = al;
  int mid = sc->sc_width;
  if (bd_item_lateral(fr->fr_right) && !fr->fr_natural && !fr->fr_using &&
      (fr->fr_join == SQL_JOIN_INNER || fr->fr_join == SQL_JOIN_LEFT ||
       fr->fr_join == SQL_JOIN_CROSS)) {
    /* the right side run per left row (sql_bind_lateral.c) */
    lp_outer_t *oj = arena_zalloc(b->b_a, sizeof(*oj));
    *oj = (lp_outer_t){.oj_l = l, .oj_lt = ltable, .oj_lo = lo, .oj_ln = ln, .oj_lalias = lalias,
                       .oj_kind = fr->fr_join == SQL_JOIN_LEFT ? JOIN_LEFT : JOIN_INNER};
    if (bd_lateral_join(b, sc, first_rel, base, fr->fr_right, fr->fr_on, &oj->oj_lat) != CZ_OK)
      return CZ_ERR;
    *outer = oj;
    return CZ_OK;
  }
  b->b_nullable += null_r;
  rc = bd_item(b, sc, fr->fr_right, &r, &rn, &ro, &t, &al);
  b->b_nullable -= null_r;
  if (rc != CZ_OK)
    return CZ_ERR;
  const sp_table_t *rtable = t;
  const char *ralias = al;
  xnode_t *cond = NULL;
  bd_using_t *us = NULL;
  if ((fr->fr_natural || fr->fr_using) &&
      bd_join_using(b, sc, fr, first_rel, mid, base, &cond, &us) != CZ_OK)
    return CZ_ERR;
  if (fr->fr_on) {
    bd_scope_t *js = bd_scope_copy(b, sc);  /* only this join's items are visible in ON */
    js->sc_rels = sc->sc_rels + first_rel;
    js->sc_nrels = sc->sc_nrels - first_rel;
    js->sc_agg = NULL;
    js->sc_agg_forbid = "JOIN conditions";
    if (bd_cond(b, js, fr->fr_on, "JOIN/ON", &cond) != CZ_OK)
      return CZ_ERR;
    if (bd_node_has_subq(cond))
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, fr->fr_on->ex_pos,
                      "subqueries in JOIN conditions are not supported yet");
    cond = shift_copy(b, cond, -base);
  }
  lp_outer_t *oj = arena_zalloc(b->b_a, sizeof(*oj));
  *oj = (lp_outer_t){.oj_l = l, .oj_lt = ltable, .oj_lo = lo, .oj_ln = ln, .oj_lalias = lalias,
                     .oj_r = r, .oj_rt = rtable, .oj_ro = ro, .oj_rn = rn, .oj_ralias = ralias,
                     .oj_cond = cond};
  switch (fr->fr_join) {
  case SQL_JOIN_RIGHT:
    oj->oj_right = true;
    oj->oj_kind = JOIN_LEFT;  /* b LEFT JOIN a, the columns put back in order */
    break;
  case SQL_JOIN_LEFT:
    oj->oj_kind = JOIN_LEFT;
    break;
  case SQL_JOIN_FULL:
    oj->oj_kind = JOIN_FULL;
    break;
  default:
    oj->oj_kind = JOIN_INNER;
    break;
  }
  if (us) {
    /* FULL: once full_using has made the merged columns */
    if (fr->fr_join == SQL_JOIN_FULL && full_using(b, sc, first_rel, base, cond, oj, us) != CZ_OK)
      return CZ_ERR;
    using_record(b, sc, us);
  }
  *outer = oj;
  return CZ_OK;
}

static bd_cte_t *bd_find_cte(const bd_t *b, const char *name)
{
  for (bd_cte_t *c = b->b_ctes; c; c = c->ct_prev)
    if (strcmp(c->ct_cte->wc_name, name) == 0)
      return c;
  return NULL;
}

/* A derived table's logical node as the unit's or join side's input
 * (node: un_node / oj_ln / oj_rn, generated when the block is planned),
 * or generated now (node NULL). */
static int derived_input(bd_t *b, lp_node_t *n, op_t **op, const lp_node_t **node)
{
  if (node) {
    *node = n;
    return CZ_OK;
  }
  return bd_node_plan(b, n, op);
}

/* A WITH query named in FROM: a scan of its worktable when it is
 * materialised (an LN_CTE node, sql_bind_cte.c), a recursive union (an
 * LN_RECURSIVE node, or its working table inside its recursive term,
 * LN_WORKTABLE, sql_bind_recursive.c), else its body bound here as a
 * derived table, seeing the WITH queries defined before it (not itself
 * or later ones). Each is a node, generated with the block. */
static int bd_cte_ref(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, bd_cte_t *cte, op_t **op,
                      const lp_node_t **node)
{
  const sql_cte_t *c = cte->ct_cte;
  const char **names;
  lp_node_t *inl = NULL;
  int rc;
  bool done = false;
  if (cte->ct_recursive) {
    rc = bd_cte_recursive(b, sc, cte, &inl, &names);  /* sql_bind_recursive.c */
  } else if ((rc = bd_cte_materialized(b, cte, &inl, &names, &done)) != CZ_OK || done) {
    /* computed once (sql_bind_cte.c); EXPLAIN shows the query's plan
     * under the first reference generated (exec/op_cte.c): the FROM
     * items in order, then the subqueries in expressions */
  } else {
    bd_cte_t *saved = b->b_ctes;
    b->b_ctes = cte->ct_prev;
    rc = bd_query_node(b, c->wc_query, sc->sc_parent, sc->sc_subq, &inl, &names, NULL);
    b->b_ctes = saved;
  }
  if (rc != CZ_OK)
    return CZ_ERR;
  int ncols = inl->ln_ncols;
  const ty_t *types = inl->ln_types;
  int ncte = sql_list_len(c->wc_columns), nal = sql_list_len(fr->fr_colnames);
  if (ncte > ncols)
    return bd_error(b, SQLSTATE_INVALID_COLUMN_REF, c->wc_pos,
                    "WITH query \"%s\" has %d columns available but %d columns specified",
                    c->wc_name, ncols, ncte);
  bd_rel_t *r = rel_new(b, fr->fr_alias ? fr->fr_alias : c->wc_name, NULL, ncols);
  for (int i = 0; i < ncols; i++) {
    r->rl_cols[i] = i < nal    ? sql_list_at(fr->fr_colnames, i)
                    : i < ncte ? sql_list_at(c->wc_columns, i)
                               : names[i];
    r->rl_types[i] = types[i];
  }
  if (bd_scope_add(b, sc, r, fr->fr_pos) != CZ_OK)
    return CZ_ERR;
  return derived_input(b, inl, op, node);
}

bd_rel_t *bd_rel_derived(bd_t *b, const sql_from_t *fr, int ncols, const ty_t *types,
                         const char **names)
{
  bd_rel_t *r = rel_new(b, fr->fr_alias ? fr->fr_alias : "?subquery?", NULL, ncols);
  int nal = sql_list_len(fr->fr_colnames);
  for (int c = 0; c < ncols; c++) {
    r->rl_cols[c] = c < nal ? sql_list_at(fr->fr_colnames, c) : names[c];
    r->rl_types[c] = types[c];
  }
  return r;
}

/* One FROM item into sc: a stored table (*table: its scan is planned
 * later), a derived table (*node when node is given, else *op), or the
 * operators of anything else. */
static int bd_item(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, op_t **op,
                   const lp_node_t **node, const lp_outer_t **outer, const sp_table_t **table,
                   const char **alias)
{
  *op = NULL;
  if (node)
    *node = NULL;
  if (outer)
    *outer = NULL;
  *table = NULL;
  *alias = NULL;
  switch (fr->fr_kind) {
  case SQL_FROM_TABLE: {
    bd_cte_t *cte = fr->fr_table.nm_schema ? NULL : bd_find_cte(b, fr->fr_table.nm_name);
    if (cte)
      return bd_cte_ref(b, sc, fr, cte, op, node);
    const sp_view_t *v;
    int vrc = bd_find_view(b, fr, &v);
    if (vrc != 1)
      return vrc == CZ_OK ? bd_view_item(b, sc, fr, v, op, node) : CZ_ERR;  /* sql_bind_view.c */
    const sp_table_t *t;
    if (bd_lookup_table(b, &fr->fr_table, &t) != CZ_OK)
      return CZ_ERR;
    if (t->tb_unpopulated && !b->b_env->pe_refresh)
      return bd_error(b, SQLSTATE_OBJECT_NOT_IN_STATE, fr->fr_pos,
                      "materialized view \"%s\" has not been populated", t->tb_name);
    bd_access(b, t, SQL_PRIV_SELECT);
    bd_rel_t *r = rel_new(b, fr->fr_alias ? fr->fr_alias : t->tb_name,
                          fr->fr_alias ? NULL : t->tb_schema, t->tb_ncols);
    for (int c = 0; c < t->tb_ncols; c++) {
      r->rl_cols[c] = t->tb_colnames[c];
      r->rl_types[c] = t->tb_coltypes[c];
    }
    int nal = sql_list_len(fr->fr_colnames);
    for (int c = 0; c < nal && c < t->tb_ncols; c++)
      r->rl_cols[c] = sql_list_at(fr->fr_colnames, c);
    r->rl_table = t;
    if (bd_scope_add(b, sc, r, fr->fr_pos) != CZ_OK)
      return CZ_ERR;
    *table = t;
    *alias = r->rl_name;
    return CZ_OK;
  }
  case SQL_FROM_SUBQUERY: {
    /* A derived table sees the enclosing query (not its siblings). */
    bd_scope_t outer = {.sc_parent = sc->sc_parent, .sc_subq = sc->sc_subq};
    const char **names;
    lp_node_t *q;
    if (bd_query_node(b, fr->fr_query, outer.sc_parent, sc->sc_subq, &q, &names, NULL) != CZ_OK ||
        bd_scope_add(b, sc, bd_rel_derived(b, fr, q->ln_ncols, q->ln_types, names), fr->fr_pos) !=
            CZ_OK)
      return CZ_ERR;
    return derived_input(b, q, op, node);
  }
  case SQL_FROM_JOIN:
    return bd_join(b, sc, fr, outer);
  case SQL_FROM_FUNC:
  {
    lp_node_t *fn;
    return bd_from_func(b, sc, fr, &fn) != CZ_OK ? CZ_ERR  /* sql_bind_srf.c */
                                                 : derived_input(b, fn, op, node);
  }
  default:
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, fr->fr_pos,
                    "functions in FROM are not supported yet");
  }
}

void bd_fromblk_conj(bd_t *b, lp_block_t *fb, xnode_t *x)
{
  if (fb->fb_nconj == fb->fb_cap) {
    int cap = fb->fb_cap ? fb->fb_cap * 2 : 8;
    xnode_t **n = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)cap);
    if (fb->fb_nconj)
      memcpy(n, fb->fb_conj, sizeof(xnode_t *) * (size_t)fb->fb_nconj);
    fb->fb_conj = n;
    fb->fb_cap = cap;
  }
  fb->fb_conj[fb->fb_nconj++] = x;
}

lp_rel_t *bd_fromblk_unit(bd_t *b, lp_block_t *fb)
{
  if (fb->fb_nunits == fb->fb_ucap) {
    int cap = fb->fb_ucap ? fb->fb_ucap * 2 : 8;
    lp_rel_t *n = arena_zalloc(b->b_a, sizeof(lp_rel_t) * (size_t)cap);
    if (fb->fb_nunits)
      memcpy(n, fb->fb_units, sizeof(lp_rel_t) * (size_t)fb->fb_nunits);
    fb->fb_units = n;
    fb->fb_ucap = cap;
  }
  lp_rel_t *u = &fb->fb_units[fb->fb_nunits++];
  memset(u, 0, sizeof(*u));
  return u;
}

/* An inner or cross JOIN without USING, NATURAL or an alias of its own
 * is the same as its items listed in FROM with ON in WHERE: its items
 * become units of the block, so the join planner orders them with the
 * others. Other items (outer joins among them) are one unit each. */
int bd_from_units(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, lp_block_t *fb)
{
  if (fr->fr_kind == SQL_FROM_JOIN &&
      (fr->fr_join == SQL_JOIN_INNER || fr->fr_join == SQL_JOIN_CROSS) && !fr->fr_natural &&
      !fr->fr_using && !fr->fr_alias && !fr->fr_colnames) {
    int first_rel = sc->sc_nrels;
    if (bd_from_units(b, sc, fr->fr_left, fb) != CZ_OK ||
        bd_from_units(b, sc, fr->fr_right, fb) != CZ_OK)
      return CZ_ERR;
    if (!fr->fr_on)
      return CZ_OK;
    bd_scope_t *js = bd_scope_copy(b, sc);  /* only this join's items are visible in ON */
    js->sc_rels = sc->sc_rels + first_rel;
    js->sc_nrels = sc->sc_nrels - first_rel;
    js->sc_agg = NULL;
    js->sc_agg_forbid = "JOIN conditions";
    js->sc_used = NULL;
    js->sc_used_cap = 0;
    xnode_t *cond;
    int rc = bd_cond(b, js, fr->fr_on, "JOIN/ON", &cond);
    /* columns ON reads are read by the block */
    for (int c = 0; c < js->sc_used_cap; c++)
      if (js->sc_used[c])
        bd_scope_use(b, sc, c);
    if (rc != CZ_OK)
      return CZ_ERR;
    if (bd_node_has_subq(cond))
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, fr->fr_on->ex_pos,
                      "subqueries in JOIN conditions are not supported yet");
    xnode_t **conj = NULL;
    int n = 0, cap = 0;
    bd_conjuncts(b, cond, &conj, &n, &cap);
    for (int i = 0; i < n; i++)
      bd_fromblk_conj(b, fb, conj[i]);
    return CZ_OK;
  }
  if (fb->fb_nunits > 0 && bd_item_lateral(fr))
    return bd_lateral_unit(b, sc, fb, fr);  /* sql_bind_lateral.c */
  if (fr->fr_kind == SQL_FROM_TABLE && !(!fr->fr_table.nm_schema && bd_find_cte(b, fr->fr_table.nm_name))) {
    const sp_view_t *v;
    int rc = bd_find_view(b, fr, &v);
    if (rc == CZ_OK) {
      bd_lockreq_t *lock = b->b_lock;  /* a view's tables are not locked */
      b->b_lock = NULL;
      rc = bd_view_merge(b, sc, fr, v, fb);  /* sql_bind_view.c; 1: not simple */
      b->b_lock = lock;
    }
    if (rc != 1)
      return rc;
  }
  lp_rel_t *u = bd_fromblk_unit(b, fb);
  u->un_base = sc->sc_width;
  if (bd_item(b, sc, fr, &u->un_op, &u->un_node, &u->un_outer, &u->un_table, &u->un_alias) !=
      CZ_OK)
    return CZ_ERR;
  u->un_width = sc->sc_width - u->un_base;
  bd_lock_unit(b, sc, u);  /* FOR UPDATE: the scan also gives the locator */
  return CZ_OK;
}

int bd_from_bind(bd_t *b, bd_scope_t *sc, const sql_list_t *from, const sql_expr_t *where,
                 lp_block_t **out)
{
  lp_block_t *fb = arena_zalloc(b->b_a, sizeof(*fb));
  for (int i = 0; i < sql_list_len(from); i++)
    if (bd_from_units(b, sc, sql_list_at(from, i), fb) != CZ_OK)
      return CZ_ERR;
  if (where) {
    xnode_t *w;
    const char *saved_forbid = sc->sc_agg_forbid;
    bd_aggctx_t *saved_agg = sc->sc_agg;
    sc->sc_agg = NULL;
    sc->sc_agg_forbid = "WHERE";
    int rc = bd_cond(b, sc, where, "WHERE", &w);
    sc->sc_agg = saved_agg;
    sc->sc_agg_forbid = saved_forbid;
    if (rc != CZ_OK)
      return CZ_ERR;
    bd_conjuncts(b, w, &fb->fb_conj, &fb->fb_nconj, &fb->fb_cap);
  }
  *out = fb;
  return CZ_OK;
}
