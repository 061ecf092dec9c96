/* opt_scan — access paths: a table scan bounded by the conjuncts
 * that fix a prefix of the primary key or of an index (equalities, then
 * one range), with the other conjuncts as a filter over it. */
#include <string.h>

#include "opt/opt_int.h"
#include "opt/opt_card.h"

static bool no_cols(const xnode_t *x)
{
  if (x->x_kind == X_COL || x->x_kind == X_SUBQ)
    return false;
  for (int i = 0; i < x->x_nargs; i++)
    if (!no_cols(x->x_args[i]))
      return false;
  return true;
}

/* If c is `col op value` (either order) with col of its stored type and
 * value free of columns, returns the comparison as seen from the column
 * (EQ, LT, LE, GT, GE) and the value. */
bool opt_key_pred(const xnode_t *c, int col, ty_t ctype, xop_t *op, xnode_t **val)
{
  if (c->x_kind != X_OP || c->x_nargs != 2 || ctype.t_id == TY_JSONB)
    return false;  /* jsonb keys are stored in text order, not jsonb's */
  xop_t o = c->x_op;
  if (o != XOP_EQ && o != XOP_LT && o != XOP_LE && o != XOP_GT && o != XOP_GE)
    return false;
  for (int side = 0; side < 2; side++) {
    const xnode_t *k = c->x_args[side], *v = c->x_args[1 - side];
    /* varchar compares as text, a smaller integer as a wider one: such a
     * cast of the key column does not change the key order. A widened
     * integer bound is checked against the column's range when the scan
     * opens (equalities only). */
    ty_id_t vt = ctype.t_id;
    if (k->x_kind == X_CAST && k->x_args[0]->x_kind == X_COL) {
      ty_id_t to = k->x_type.t_id;
      bool as_text = ctype.t_id == TY_VARCHAR && to == TY_TEXT;
      bool widened = c->x_op == XOP_EQ && (ctype.t_id == TY_INT2 || ctype.t_id == TY_INT4) &&
                     (to == TY_INT4 || to == TY_INT8);
      if (as_text || widened) {
        vt = to;
        k = k->x_args[0];
      }
    }
    if (k->x_kind != X_COL || k->x_index != col || k->x_type.t_id != ctype.t_id ||
        v->x_type.t_id != vt || !no_cols(v))
      continue;
    if (side == 1)  /* value op col: mirror the comparison */
      o = o == XOP_LT ? XOP_GT : o == XOP_LE ? XOP_GE : o == XOP_GT ? XOP_LT : o == XOP_GE ? XOP_LE : o;
    *op = o;
    *val = (xnode_t *)v;
    return true;
  }
  return false;
}

/* ---- predicates pushed into the scan ------------------------------------ */

/* A column of the table as a comparison sees it: the column itself, or
 * cast so that the stored value compares the same (a smaller integer as
 * a wider one, varchar as text) or the same once its trailing blanks are
 * dropped (CHAR(n) as text: *rtrim). */
static int pushed_col(const sp_table_t *t, const xnode_t *x, bool *rtrim)
{
  *rtrim = false;
  if (x->x_kind == X_CAST && x->x_args[0]->x_kind == X_COL) {
    ty_id_t from = x->x_args[0]->x_type.t_id, to = x->x_type.t_id;
    bool widened = (from == TY_INT2 && (to == TY_INT4 || to == TY_INT8)) ||
                   (from == TY_INT4 && to == TY_INT8);
    *rtrim = from == TY_CHAR && to == TY_TEXT;
    if (!widened && !*rtrim && !(from == TY_VARCHAR && to == TY_TEXT))
      return -1;
    x = x->x_args[0];
  }
  if (x->x_kind != X_COL || x->x_index < 0 || x->x_index >= t->tb_ncols ||
      x->x_type.t_id != t->tb_coltypes[x->x_index].t_id)
    return -1;
  return x->x_index;
}

/* Whether x, free of columns and subqueries, has one value for a whole
 * execution: constants, parameters, stable functions (now(),
 * current_date) and operators, casts and immutable functions over them
 * (timestamptz ± interval in the session's zone, `$1 + interval '1
 * day'`) — never a volatile function (it must run per row), nor a node
 * the binder would have folded but left because computing it fails
 * (bd_foldable: `1 / 0` stays per row, so that only a row reaching it
 * raises the error). */
static bool value_once(const xnode_t *x)
{
  switch (x->x_kind) {
  case X_CONST:
  case X_PARAM:
    return true;
  case X_FUNC:
    if (!(x->x_func->fd_flags & XF_STABLE) && !xfunc_immutable(x->x_func))
      return false;
    break;
  case X_OP:
  case X_CAST:
    break;
  default:
    return false;
  }
  if (bd_foldable(x))
    return false;
  for (int i = 0; i < x->x_nargs; i++)
    if (!value_once(x->x_args[i]))
      return false;
  return true;
}

/* A value computed once per execution (value_once) of the column's
 * comparison type. */
static bool pushed_value(const xnode_t *x, ty_id_t type)
{
  return x->x_type.t_id == type && value_once(x);
}

/* Whether conjunct c is a predicate the table layer can test: column op
 * value, column [NOT] IN (values), column IS [NOT] NULL. */
static bool pushable(const sp_table_t *t, const xnode_t *c, int *col, scan_pred_t *p)
{
  memset(p, 0, sizeof *p);
  /* jsonb orders and equals by its own rules, not its stored text's */
  if ((c->x_kind == X_IN_LIST || c->x_kind == X_OP) && c->x_nargs == 2 &&
      (c->x_args[0]->x_type.t_id == TY_JSONB || c->x_args[1]->x_type.t_id == TY_JSONB))
    return false;
  if (c->x_kind == X_IN_LIST && c->x_args[0]->x_type.t_id == TY_JSONB)
    return false;
  if (c->x_kind == X_IN_LIST) {
    int k = pushed_col(t, c->x_args[0], &p->sp_rtrim);
    if (k < 0 || c->x_nargs < 2)
      return false;
    for (int i = 1; i < c->x_nargs; i++)
      if (!pushed_value(c->x_args[i], c->x_args[0]->x_type.t_id))
        return false;
    *col = k;
    p->sp_op = c->x_not ? QP_NOT_IN : QP_IN;
    p->sp_nvals = c->x_nargs - 1;
    p->sp_vals = c->x_args + 1;
    return true;
  }
  if (c->x_kind != X_OP)
    return false;
  if ((c->x_op == XOP_IS_NULL || c->x_op == XOP_IS_NOT_NULL) && c->x_nargs == 1) {
    int k = pushed_col(t, c->x_args[0], &p->sp_rtrim);
    if (k < 0)
      return false;
    *col = k;
    p->sp_op = c->x_op == XOP_IS_NULL ? QP_NULL : QP_NOT_NULL;
    return true;
  }
  if (c->x_nargs != 2 || c->x_op < XOP_EQ || c->x_op > XOP_GE)
    return false;
  for (int side = 0; side < 2; side++) {
    const xnode_t *k = c->x_args[side], *v = c->x_args[1 - side];
    int kc = pushed_col(t, k, &p->sp_rtrim);
    if (kc < 0 || !pushed_value(v, k->x_type.t_id))
      continue;
    xop_t o = c->x_op;
    if (side == 1)  /* value op col: as seen from the column */
      o = o == XOP_LT ? XOP_GT : o == XOP_LE ? XOP_GE : o == XOP_GT ? XOP_LT : o == XOP_GE ? XOP_LE : o;
    static const qpred_op_t map[] = {[XOP_EQ] = QP_EQ, [XOP_NE] = QP_NE, [XOP_LT] = QP_LT,
                                     [XOP_LE] = QP_LE, [XOP_GT] = QP_GT, [XOP_GE] = QP_GE};
    *col = kc;
    p->sp_op = map[o];
    p->sp_nvals = 1;
    p->sp_vals = c->x_args + (1 - side);  /* the value, as a one-element list */
    return true;
  }
  return false;
}

/* Moves the conjuncts the table layer can test into the scan (sp): they
 * leave the filter, since the scan returns only rows passing them. out_pos
 * maps a table column to the scan's output column (-1: not read). */
static void push_preds(lp_ctx_t *b, const sp_table_t *t, xnode_t **conj, int n, const int *out_pos,
                       scan_spec_t *sp)
{
  scan_pred_t *preds = arena_alloc(b->lc_a, sizeof(scan_pred_t) * (size_t)(n + 1));
  int np = 0;
  for (int i = 0; i < n; i++) {
    int col;
    scan_pred_t p;
    if (!conj[i] || !pushable(t, conj[i], &col, &p) || out_pos[col] < 0)
      continue;
    p.sp_col = out_pos[col];
    p.sp_colname = t->tb_colnames[col];
    preds[np++] = p;
    conj[i] = NULL;
  }
  sp->ss_npred = np;
  sp->ss_preds = np ? preds : NULL;
}

typedef struct path_s {
  int pa_index;                 /* 0 primary, else the index number */
  const char *pa_name;
  int pa_neq;
  ty_t pa_key_types[32];        /* the key columns' types */
  xnode_t *pa_eq[32];
  int pa_eq_conj[32];
  xnode_t *pa_lo, *pa_hi;       /* range on the next key column */
  bool pa_lo_incl, pa_hi_incl;
} path_t;

static void path_fill(const sp_table_t *t, int nkey, const int *keys, xnode_t **conj, int n,
                      path_t *p)
{
  p->pa_neq = 0;
  p->pa_lo = p->pa_hi = NULL;
  for (int k = 0; k < nkey && k < 32; k++) {
    int col = keys[k];
    ty_t ct = t->tb_coltypes[col];
    p->pa_key_types[k] = ct;
    bool found = false;
    for (int i = 0; i < n && !found; i++) {
      xop_t op;
      xnode_t *v;
      if (conj[i] && opt_key_pred(conj[i], col, ct, &op, &v) && op == XOP_EQ) {
        p->pa_eq[p->pa_neq] = v;
        p->pa_eq_conj[p->pa_neq++] = i;
        found = true;
      }
    }
    if (found)
      continue;
    for (int i = 0; i < n; i++) {
      xop_t op;
      xnode_t *v;
      if (!conj[i] || !opt_key_pred(conj[i], col, ct, &op, &v))
        continue;
      if ((op == XOP_GT || op == XOP_GE) && !p->pa_lo) {
        p->pa_lo = v;
        p->pa_lo_incl = op == XOP_GE;
      } else if ((op == XOP_LT || op == XOP_LE) && !p->pa_hi) {
        p->pa_hi = v;
        p->pa_hi_incl = op == XOP_LE;
      }
    }
    break;
  }
}

static int path_score(const path_t *p)
{
  return p->pa_neq * 4 + (p->pa_lo ? 1 : 0) + (p->pa_hi ? 1 : 0);
}

/* The scan reads only the needed columns (long values of the others are
 * never rebuilt); a projection puts them back at their table positions,
 * NULL in the others, so that conjuncts and the caller's expressions
 * keep the one layout. */
static op_t *scan_subset(lp_ctx_t *b, const sp_table_t *t, scan_spec_t *sp, const bool *need)
{
  int nc = t->tb_ncols, k = 0;
  int *cols = arena_alloc(b->lc_a, sizeof(int) * (size_t)(nc + 1));
  ty_t *types = arena_alloc(b->lc_a, sizeof(ty_t) * (size_t)(nc + 1));
  xnode_t **x = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(nc + 1));
  for (int c = 0; c < nc; c++) {
    if (!need[c]) {
      x[c] = bd_const_null(b->lc_b, t->tb_coltypes[c]);
      continue;
    }
    x[c] = bd_col(b->lc_b, k, t->tb_coltypes[c]);
    cols[k] = c;
    types[k++] = t->tb_coltypes[c];
  }
  sp->ss_ncols = k;
  sp->ss_cols = cols;
  sp->ss_types = types;
  if (sp->ss_rowid)
    x[nc] = bd_col(b->lc_b, k, ty_plain(TY_BYTEA));
  return op_project_new(b->lc_a, op_scan_new(b->lc_a, sp), nc + (sp->ss_rowid ? 1 : 0), x);
}

static op_t *plan_scan(lp_ctx_t *b, const sp_table_t *t, const char *alias, bool rowid,
                       xnode_t **conj, int n, const bool *need, bool compact,
                       const scan_wish_t *w);

op_t *opt_scan_cols(lp_ctx_t *b, const sp_table_t *t, const char *alias, bool rowid,
                        xnode_t **conj, int n, const bool *need)
{
  return plan_scan(b, t, alias, rowid, conj, n, need, false, NULL);
}

op_t *opt_scan_compact(lp_ctx_t *b, const sp_table_t *t, const char *alias, xnode_t **conj,
                           int n, const bool *need)
{
  return plan_scan(b, t, alias, false, conj, n, need, true, NULL);
}

op_t *opt_scan_ordered(lp_ctx_t *b, const sp_table_t *t, const char *alias, xnode_t **conj, int n,
                       const bool *need, const scan_wish_t *w)
{
  return plan_scan(b, t, alias, false, conj, n, need, true, w);
}

op_t *opt_scan_target(lp_ctx_t *b, const sp_table_t *t, const char *alias, xnode_t **conj,
                          int n, const bool *need)
{
  return plan_scan(b, t, alias, true, conj, n, need, true, NULL);
}

/* The scan's columns are the needed ones only; conditions left for the
 * filter are moved to their positions. */
static op_t *scan_compact(lp_ctx_t *b, const sp_table_t *t, scan_spec_t *sp, const bool *need,
                          xnode_t **conj, int n)
{
  int nc = t->tb_ncols, k = 0;
  int *cols = arena_alloc(b->lc_a, sizeof(int) * (size_t)(nc + 1));
  ty_t *types = arena_alloc(b->lc_a, sizeof(ty_t) * (size_t)(nc + 1));
  int *map = arena_alloc(b->lc_a, sizeof(int) * (size_t)(nc + 1));
  for (int c = 0; c < nc; c++) {
    map[c] = -1;
    if (need && !need[c])
      continue;
    map[c] = k;
    cols[k] = c;
    types[k++] = t->tb_coltypes[c];
  }
  sp->ss_ncols = k;
  sp->ss_cols = cols;
  sp->ss_types = types;
  for (int i = 0; i < n; i++)
    if (conj[i])
      conj[i] = bd_node_remap(b->lc_b, conj[i], map);
  return op_scan_new(b->lc_a, sp);
}

/* The key order of index ix (0: the primary) for op_order: its columns,
 * then, for a secondary index, the primary key's (its entries are keyed
 * by both). A table without a declared key is in no column's order. */
/* Secondary index number ix of t; NULL for the primary index (0) or an
 * unknown number. */
static const sp_index_t *index_of(const sp_table_t *t, int ix)
{
  for (int i = 0; i < t->tb_nindexes && ix != 0; i++)
    if (t->tb_indexes[i].ix_no == ix)
      return &t->tb_indexes[i];
  return NULL;
}

/* Columns in the key order of index in (NULL: the primary index): its
 * own, then the primary key's (its entries are keyed by both). */
static int order_len(const sp_table_t *t, const sp_index_t *in)
{
  return (in ? in->ix_ncols : 0) + t->tb_npk;
}

static int order_col(const sp_table_t *t, const sp_index_t *in, int k)
{
  int nix = in ? in->ix_ncols : 0;
  return k < nix ? in->ix_cols[k] : t->tb_pk[k - nix];
}

static void scan_order_of(lp_ctx_t *b, const sp_table_t *t, int ix, scan_spec_t *sp)
{
  const sp_index_t *in = index_of(t, ix);
  if (ix != 0 && !in)
    return;
  int n = order_len(t, in);
  int *ord = arena_alloc(b->lc_a, sizeof(int) * (size_t)(n + 1));
  for (int k = 0; k < n; k++)
    ord[k] = order_col(t, in, k);
  /* a jsonb key's text order is not jsonb's: the order ends before it */
  bool cut = false;
  for (int k = 0; k < n && !cut; k++)
    if (t->tb_coltypes[ord[k]].t_id == TY_JSONB) {
      n = k;
      cut = true;
    }
  sp->ss_nord = n;
  sp->ss_ord = ord;
  /* a unique index's NULLs may repeat */
  bool unique = t->tb_npk > 0 || (in && in->ix_unique);
  for (int i = 0; in && i < in->ix_ncols && t->tb_npk == 0; i++)
    unique = unique && t->tb_notnull && t->tb_notnull[in->ix_cols[i]];
  sp->ss_ord_unique = unique && !cut;
}

/* Whether index in (NULL: the primary index), its first nfixed key
 * columns fixed by equalities, reads its rows in the wished order:
 * forward (ascending, NULLs last) or, backward, descending with NULLs
 * first. A wished key on a fixed column is met by any order. */
static bool index_gives(const sp_table_t *t, const sp_index_t *in, int nfixed,
                        const scan_wish_t *w, bool backward)
{
  int nord = order_len(t, in), k = nfixed;
  for (int i = 0; i < w->sw_n; i++) {
    bool fixed = false;
    for (int f = 0; f < nfixed && f < nord; f++)
      fixed |= order_col(t, in, f) == w->sw_keys[i].sk_col;
    if (fixed)
      continue;
    if (k >= nord)
      return false;
    int col = order_col(t, in, k++);
    if (col != w->sw_keys[i].sk_col || t->tb_coltypes[col].t_id == TY_JSONB || w->sw_keys[i].sk_desc != backward ||
        w->sw_keys[i].sk_nulls_first != backward)
      return false;
  }
  return true;
}

/* Whether every conjunct left beside path p (on index columns keys) is
 * a range on the column after its equalities: each row the path reads
 * is then a row returned. */
static bool only_bounds(const sp_table_t *t, const path_t *p, const int *keys, int nkey,
                        xnode_t **conj, int n)
{
  for (int i = 0; i < n; i++) {
    bool eq = false;
    for (int j = 0; j < p->pa_neq; j++)
      eq |= p->pa_eq_conj[j] == i;
    xop_t op;
    xnode_t *v;
    if (!conj[i] || eq)
      continue;
    if (p->pa_neq >= nkey)
      return false;
    int col = keys[p->pa_neq];
    if (!opt_key_pred(conj[i], col, t->tb_coltypes[col], &op, &v) || op == XOP_EQ)
      return false;
  }
  return true;
}

/* Rows a LIMIT may read through a secondary index in its order: each
 * costs a lookup of the row (opt README: 1.5 against 0.2 per row
 * scanned), so only a few. */
#define ORDERED_INDEX_MAX_ROWS 10000

/* The path for a one-table block under ORDER BY … LIMIT (w): *best as
 * chosen for its bounds when its order (forward, or read backward) gives
 * the wish; else, when no index bounds the scan, the primary index read
 * backward for a descending wish, or a secondary index whose order gives
 * the wish, when nothing else is to be tested and the LIMIT is small.
 * Sets *backward for a backward read. */
static void wish_path(const sp_table_t *t, xnode_t **conj, int n, const scan_wish_t *w,
                      path_t *best, bool *backward)
{
  *backward = false;
  bool desc = w->sw_keys[0].sk_desc;
  const sp_index_t *bi = index_of(t, best->pa_index);
  if (index_gives(t, bi, best->pa_neq, w, false))
    return;  /* the forward read already gives it (op_order) */
  /* a column-wise primary tree reads forward only (table/README.md) */
  bool pk_back = !t->tb_column;
  if (desc && (bi || pk_back) && index_gives(t, bi, best->pa_neq, w, true) &&
      only_bounds(t, best, bi ? bi->ix_cols : t->tb_pk, bi ? bi->ix_ncols : t->tb_npk, conj, n)) {
    *backward = true;
    return;
  }
  if (path_score(best) > 0 || w->sw_limit < 0)
    return;
  if (desc && pk_back && best->pa_index == 0 && index_gives(t, NULL, 0, w, true)) {
    /* the table from its end: a filter may read further, never more than the whole table */
    *backward = true;
    return;
  }
  bool any_conj = false;
  for (int i = 0; i < n; i++)
    any_conj |= conj[i] != NULL;
  if (any_conj || w->sw_limit > ORDERED_INDEX_MAX_ROWS)
    return;
  for (int i = 0; i < t->tb_nindexes; i++) {
    const sp_index_t *ix = &t->tb_indexes[i];
    for (int dir = 0; dir < 2; dir++)
      if ((dir == 0 || desc) && index_gives(t, ix, 0, w, dir == 1)) {
        best->pa_index = ix->ix_no;
        best->pa_name = ix->ix_name;
        *backward = dir == 1;
        return;
      }
  }
}

static op_t *plan_scan(lp_ctx_t *b, const sp_table_t *t, const char *alias, bool rowid,
                       xnode_t **conj, int n, const bool *need, bool compact,
                       const scan_wish_t *w)
{
  path_t best, cur;
  memset(&best, 0, sizeof(best));
  path_fill(t, t->tb_npk, t->tb_pk, conj, n, &best);
  for (int i = 0; i < t->tb_nindexes; i++) {
    memset(&cur, 0, sizeof(cur));
    path_fill(t, t->tb_indexes[i].ix_ncols, t->tb_indexes[i].ix_cols, conj, n, &cur);
    cur.pa_index = t->tb_indexes[i].ix_no;
    cur.pa_name = t->tb_indexes[i].ix_name;
    if (path_score(&cur) > path_score(&best))
      best = cur;
  }
  /* a literal frequent in an index's column: the whole table in key
   * order reads less than the index range and a lookup per row */
  if (best.pa_index != 0 && !b->lc_env->pe_no_seqscan &&
      opt_index_too_wide(b, t, best.pa_index, conj, n)) {
    memset(&best, 0, sizeof(best));
    path_fill(t, t->tb_npk, t->tb_pk, conj, n, &best);
  }
  bool backward = false;
  if (w && w->sw_n)
    wish_path(t, conj, n, w, &best, &backward);
  scan_spec_t sp;
  memset(&sp, 0, sizeof(sp));
  sp.ss_table = t->tb_handle;
  sp.ss_name = alias && strcmp(alias, t->tb_name) != 0
                   ? arena_sprintf(b->lc_a, "%s %s", t->tb_name, alias)
                   : t->tb_name;
  sp.ss_index = best.pa_index;
  sp.ss_index_name = best.pa_name;
  const sp_index_t *bix = index_of(t, best.pa_index);
  sp.ss_column = best.pa_index == 0 ? t->tb_column : bix && bix->ix_column;
  sp.ss_ncols = t->tb_ncols;
  sp.ss_cols = arena_alloc(b->lc_a, sizeof(int) * (size_t)(t->tb_ncols + 1));
  for (int c = 0; c < t->tb_ncols; c++)
    sp.ss_cols[c] = c;
  sp.ss_types = (ty_t *)t->tb_coltypes;
  sp.ss_rowid = rowid;
  sp.ss_backward = backward;
  scan_order_of(b, t, best.pa_index, &sp);
  if (path_score(&best) > 0) {
    sp.ss_nfixed = best.pa_neq;
    int ne = best.pa_neq;
    ty_t *kt = arena_alloc(b->lc_a, sizeof(ty_t) * (size_t)(ne + 2));
    memcpy(kt, best.pa_key_types, sizeof(ty_t) * (size_t)(ne + 1));
    sp.ss_key_types = kt;
    xnode_t **eq = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(ne + 1));
    memcpy(eq, best.pa_eq, sizeof(xnode_t *) * (size_t)ne);
    for (int i = 0; i < ne; i++)
      conj[best.pa_eq_conj[i]] = NULL;
    if (!best.pa_lo && !best.pa_hi) {
      sp.ss_point = best.pa_index == 0 && t->tb_npk > 0 && ne == t->tb_npk;
      sp.ss_low = sp.ss_high = eq;
      sp.ss_nlow = sp.ss_nhigh = ne;
      sp.ss_low_incl = sp.ss_high_incl = true;
    } else {
      xnode_t **lo = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(ne + 1));
      xnode_t **hi = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(ne + 1));
      memcpy(lo, eq, sizeof(xnode_t *) * (size_t)ne);
      memcpy(hi, eq, sizeof(xnode_t *) * (size_t)ne);
      sp.ss_nlow = sp.ss_nhigh = ne;
      sp.ss_low_incl = sp.ss_high_incl = true;
      if (best.pa_lo) {
        lo[sp.ss_nlow++] = best.pa_lo;
        sp.ss_low_incl = best.pa_lo_incl;
      }
      if (best.pa_hi) {
        hi[sp.ss_nhigh++] = best.pa_hi;
        sp.ss_high_incl = best.pa_hi_incl;
      }
      sp.ss_low = lo;
      sp.ss_high = hi;
    }
  }
  /* Range conjuncts stay in the filter: where NULL keys sort relative to
   * the bound is the table layer's business, not something to rely on.
   * They and the other simple conjuncts on columns the scan reads are
   * tested by the table layer instead (push_preds). */
  int *out_pos = arena_alloc(b->lc_a, sizeof(int) * (size_t)(t->tb_ncols + 1));
  for (int c = 0, k = 0; c < t->tb_ncols; c++)
    out_pos[c] = (need && !need[c]) ? -1 : (compact || need) ? k++ : c;
  push_preds(b, t, conj, n, out_pos, &sp);
  op_t *o = compact ? scan_compact(b, t, &sp, need, conj, n)
             : need  ? scan_subset(b, t, &sp, need)
                     : op_scan_new(b->lc_a, &sp);
  xnode_t *rest = bd_and_all(b->lc_b, conj, n);
  return rest ? op_filter_new(b->lc_a, o, rest) : o;
}
