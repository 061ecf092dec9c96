/* opt_card — estimates for join ordering and grouping.
 *
 * Design notes (opt/README.md, "Join order", "Estimates"):
 * - Everything comes from the table's handle (exec.h qt_stats,
 *   qt_sample), so any storage that implements those plugs in.
 * - A table's size is its row count kept by the catalog as rows change
 *   (qt_stats); a storage without statistics answers from its primary
 *   tree's shape (qt_sample with no range, no rows).
 * - Its own conjuncts: when constant conjuncts fix a prefix of the
 *   primary key or of an index (equalities, then one range), that key
 *   range is measured in the index's tree (qt_sample's *rows: exact when
 *   both ends fall on one leaf) and PC_SAMPLE rows are drawn from the
 *   range itself, on which the other conjuncts run; so `col = 'rare'` and
 *   `col = 'common'` of an indexed column get their own counts however
 *   rare the value. Otherwise PC_SAMPLE rows drawn from the whole table
 *   run every conjunct; a conjunct that finds no sampled row counts as
 *   half a row of the sample. Conjuncts that cannot run at plan time
 *   (parameters, volatile functions, or an error on a sampled row) count
 *   as DEFAULT_SEL.
 * - Conjuncts that fix the whole primary key to constants give one row.
 * - An equality with a column that is a key of its table (the primary key
 *   or a one-column unique index) keeps 1 / rows of that table: each row
 *   of the other side meets at most one. Other equalities of two columns
 *   keep 1 / max(distinct values of either).
 *   A column that is the primary key or a one-column unique index has as
 *   many distinct values as the table has rows; other columns take the
 *   catalog's distinct estimate (a HyperLogLog kept as rows are written)
 *   and, when the catalog has none (a table older than its statistics,
 *   not analyzed), the sample's, by Haas and Stokes' Duj1 estimator
 *   (n d / (n - f1 + f1 n / N): n sampled, d distinct, f1 seen once).
 * - Derived tables count the rows their own plan estimated (a grouped
 *   one: its groups, opt_group_rows); functions in FROM and catalog
 *   relations OPT_DEFAULT_ROWS.
 * - GROUP BY keeps the product of its keys' distinct values, at most the
 *   input's rows; a key that is not a column counts PC_DEFAULT_NDV.
 */
#include <math.h>
#include <string.h>

#include "opt/opt_card.h"

#define PC_SAMPLE 200
#define PC_SEED 0x5eedu           /* samples are seeded: the same data, the same plan */
#define PC_DEFAULT_NDV 200.0      /* distinct values of what cannot be measured (PostgreSQL's) */
/* A secondary index range holding more than this fraction of its table
 * costs more to read (each row fetched from the primary tree by key) than
 * the whole table in key order: a stored row scanned costs 0.2, a lookup
 * 1.5 (opt_join.c), so about 0.2 / 1.7. Tables under
 * PC_WIDE_MIN_ROWS rows keep the index (either way is cheap). */
#define OPT_WIDE_FRACTION 0.12
#define PC_WIDE_MIN_ROWS 1000
#define DEFAULT_SEL 0.1
#define DEFAULT_JOIN_SEL 0.3

typedef struct units_of_s {
  const int *uo_unit_of;
  bool *uo_seen;
} units_of_t;

static void unit_col(void *ctx, xnode_t *col)
{
  units_of_t *u = ctx;
  u->uo_seen[u->uo_unit_of[col->x_index]] = true;
}

void opt_conj_units(const xnode_t *x, const int *unit_of, bool *seen)
{
  units_of_t u = {unit_of, seen};
  bd_node_cols((xnode_t *)x, unit_col, &u);
}

/* Whether x can be run on sampled rows at plan time. */
static bool plan_time_evaluable(const xnode_t *x)
{
  switch (x->x_kind) {
  case X_PARAM:
  case X_SUBQ:
    return false;
  case X_FUNC:
    /* a stable function (now(), current_date) has one value per
     * execution: its value now serves the estimate, as PostgreSQL's
     * estimate_expression_value takes it */
    if ((x->x_func->fd_flags & XF_VOLATILE) && !(x->x_func->fd_flags & XF_STABLE))
      return false;
    break;
  default:
    break;
  }
  for (int i = 0; i < x->x_nargs; i++)
    if (!plan_time_evaluable(x->x_args[i]))
      return false;
  return true;
}

static bool column_free(const xnode_t *x)
{
  if (x->x_kind == X_COL || x->x_kind == X_SUBQ)
    return false;
  for (int i = 0; i < x->x_nargs; i++)
    if (!column_free(x->x_args[i]))
      return false;
  return true;
}

/* `col op value` on table column tc (over the unit's own layout), op
 * equality only or (range) any comparison but <>. */
static bool restricts_column(const xnode_t *x, int tc, bool range)
{
  if (x->x_kind != X_OP || x->x_nargs != 2)
    return false;
  bool eq = x->x_op == XOP_EQ;
  bool cmp = x->x_op >= XOP_EQ && x->x_op <= XOP_GE && x->x_op != XOP_NE;
  if (!(range ? cmp : eq))
    return false;
  for (int side = 0; side < 2; side++) {
    const xnode_t *k = x->x_args[side], *v = x->x_args[1 - side];
    if (k->x_kind == X_CAST && k->x_args[0]->x_kind == X_COL)
      k = k->x_args[0];
    if (k->x_kind == X_COL && k->x_index == tc && column_free(v))
      return true;
  }
  return false;
}

static bool any_fixes(xnode_t **conj, int n, int tc, bool range)
{
  for (int i = 0; i < n; i++)
    if (restricts_column(conj[i], tc, range))
      return true;
  return false;
}

static double column_ndv(lp_ctx_t *b, const lp_rel_t *un, opt_unit_t *pu, int tc);

/* What a conjunct that cannot run at plan time keeps: `col = value`
 * whose value is only known at run time (a parameter, a correlated
 * subquery's outer column) keeps one of the column's distinct values
 * (PostgreSQL's eqsel without a constant); anything else DEFAULT_SEL. A
 * per-row subquery probing by its correlation column is then estimated
 * at the few rows it finds, not a tenth of the table (TPC-H Q2's min()
 * subquery, weighed against its decorrelated form). */
static double runtime_selectivity(lp_ctx_t *b, const lp_rel_t *un, opt_unit_t *pu, const xnode_t *x)
{
  if (!un->un_table || x->x_kind != X_OP || x->x_op != XOP_EQ || x->x_nargs != 2)
    return DEFAULT_SEL;
  for (int side = 0; side < 2; side++) {
    const xnode_t *k = x->x_args[side], *v = x->x_args[1 - side];
    if (k->x_kind == X_CAST && k->x_args[0]->x_kind == X_COL)
      k = k->x_args[0];
    if (k->x_kind == X_COL && k->x_index < un->un_table->tb_ncols && column_free(v))
      return 1 / column_ndv(b, un, pu, k->x_index);
  }
  return DEFAULT_SEL;
}

/* The fraction of sampled rows the conjuncts keep (each conjunct that
 * cannot run here counts runtime_selectivity). */
static double sample_selectivity(lp_ctx_t *b, const lp_rel_t *un, opt_unit_t *pu, batch_t *sample,
                                 xnode_t **conj, int n)
{
  int ns = sample->b_n;
  int *sel = arena_alloc(b->lc_a, sizeof(int) * (size_t)(ns + 1));
  int *next = arena_alloc(b->lc_a, sizeof(int) * (size_t)(ns + 1));
  int nsel = ns;
  for (int r = 0; r < ns; r++)
    sel[r] = r;
  double other = 1;
  xctx_t xc;
  memset(&xc, 0, sizeof(xc));
  xc.xc_arena = b->lc_a;
  for (int i = 0; i < n; i++) {
    if (!plan_time_evaluable(conj[i])) {
      other *= runtime_selectivity(b, un, pu, conj[i]);
      continue;
    }
    err_t e;
    err_clear(&e);
    int nn = 0;
    if (nsel == 0)
      break;
    if (xeval_filter(&xc, conj[i], sample, sel, nsel, next, &nn, &e) != CZ_OK) {
      other *= DEFAULT_SEL;  /* e.g. a cast that fails on some row */
      continue;
    }
    memcpy(sel, next, sizeof(int) * (size_t)nn);
    nsel = nn;
  }
  double kept = nsel > 0 ? nsel : 0.5;
  return kept / ns * other;
}

static const qtable_ops_t *table_ops(const sp_table_t *t)
{
  return t && t->tb_handle ? ((const qtable_t *)t->tb_handle)->qt_ops : NULL;
}

/* The table's statistics (NULL: the storage keeps none). Estimates never
 * fail a statement: an error is forgotten and the defaults serve. */
static const qstats_t *table_stats(lp_ctx_t *b, const sp_table_t *t)
{
  const qtable_ops_t *ops = table_ops(t);
  if (!ops || !ops->qt_stats)
    return NULL;
  qstats_t *st = arena_zalloc(b->lc_a, sizeof *st);
  if (ops->qt_stats(t->tb_handle, b->lc_a, st, b->lc_e) != CZ_OK) {
    err_clear(b->lc_e);
    return NULL;
  }
  return st;
}

/* Rows of key range r of index idx (NULL: the whole primary index) and,
 * with n > 0, up to n of them (every column) in *out. 1: not measured. */
static int table_sample(lp_ctx_t *b, const sp_table_t *t, int idx, const qrange_t *r, int n,
                        batch_t **out, double *rows)
{
  const qtable_ops_t *ops = table_ops(t);
  *out = NULL;
  *rows = -1;
  if (!ops || !ops->qt_sample)
    return 1;
  int *cols = arena_alloc(b->lc_a, sizeof(int) * (size_t)(t->tb_ncols + 1));
  for (int c = 0; c < t->tb_ncols; c++)
    cols[c] = c;
  batch_t *bt = NULL;
  if (n > 0 && !(bt = batch_create(b->lc_a, t->tb_ncols, t->tb_coltypes, n, b->lc_e))) {
    err_clear(b->lc_e);
    return 1;
  }
  if (ops->qt_sample(t->tb_handle, idx, r, n, PC_SEED, cols, t->tb_ncols, bt, rows, b->lc_a,
                     b->lc_e) != CZ_OK) {
    err_clear(b->lc_e);  /* e.g. a bound the key encoding refuses */
    *rows = -1;
    return 1;
  }
  *out = bt;
  return CZ_OK;
}

double opt_table_rows(lp_ctx_t *b, const sp_table_t *t)
{
  const qstats_t *st = table_stats(b, t);
  if (st && st->qs_rows >= 0)
    return st->qs_rows;
  batch_t *none;
  double rows;
  return table_sample(b, t, 0, NULL, 0, &none, &rows) == CZ_OK ? rows : -1;
}

/* The value of a column-free conjunct side at plan time. */
static bool const_value(lp_ctx_t *b, const xnode_t *v, datum_t *out)
{
  if (!plan_time_evaluable(v))
    return false;
  xctx_t xc;
  memset(&xc, 0, sizeof(xc));
  xc.xc_arena = b->lc_a;
  err_t e;
  err_clear(&e);
  return xeval_scalar(&xc, v, out, &e) == CZ_OK && !out->d_null;
}

/* A key range of one index that constant conjuncts fix: equalities on a
 * prefix of its key columns, then one range on the next (as the scan's
 * access path takes them, opt_scan.c). */
typedef struct pc_range_s {
  int pr_idx;                   /* 0 primary, else the index's number */
  int pr_score;                 /* 4 per equality, 1 per range end; 0 = none */
  qrange_t pr_r;
} pc_range_t;

static void range_of_key(lp_ctx_t *b, const sp_table_t *t, int nkey, const int *keys, xnode_t **conj,
                         int n, pc_range_t *out)
{
  datum_t *lo = arena_alloc(b->lc_a, sizeof(datum_t) * (size_t)(nkey + 1));
  datum_t *hi = arena_alloc(b->lc_a, sizeof(datum_t) * (size_t)(nkey + 1));
  int neq = 0;
  bool has_lo = false, has_hi = false, lo_incl = true, hi_incl = true;
  for (int k = 0; k < nkey; k++) {
    int col = keys[k];
    ty_t ct = t->tb_coltypes[col];
    bool found = false;
    for (int i = 0; i < n && !found; i++) {
      xop_t op;
      xnode_t *v;
      if (opt_key_pred(conj[i], col, ct, &op, &v) && op == XOP_EQ && const_value(b, v, &lo[neq])) {
        hi[neq] = lo[neq];
        neq++;
        found = true;
      }
    }
    if (found)
      continue;
    for (int i = 0; i < n; i++) {
      xop_t op;
      xnode_t *v;
      datum_t d;
      if (!opt_key_pred(conj[i], col, ct, &op, &v) || op == XOP_EQ || !const_value(b, v, &d))
        continue;
      if ((op == XOP_GT || op == XOP_GE) && !has_lo) {
        lo[neq] = d;
        has_lo = true;
        lo_incl = op == XOP_GE;
      } else if ((op == XOP_LT || op == XOP_LE) && !has_hi) {
        hi[neq] = d;
        has_hi = true;
        hi_incl = op == XOP_LE;
      }
    }
    break;
  }
  out->pr_score = neq * 4 + has_lo + has_hi;
  out->pr_r = (qrange_t){.qr_nlow = neq + has_lo, .qr_low = lo,
                         .qr_low_incl = has_lo ? lo_incl : true, .qr_nhigh = neq + has_hi,
                         .qr_high = hi, .qr_high_incl = has_hi ? hi_incl : true};
}

static void best_range(lp_ctx_t *b, const sp_table_t *t, xnode_t **conj, int n, pc_range_t *best)
{
  memset(best, 0, sizeof(*best));
  if (t->tb_npk > 0)
    range_of_key(b, t, t->tb_npk, t->tb_pk, conj, n, best);
  for (int i = 0; i < t->tb_nindexes; i++) {
    pc_range_t cur;
    range_of_key(b, t, t->tb_indexes[i].ix_ncols, t->tb_indexes[i].ix_cols, conj, n, &cur);
    cur.pr_idx = t->tb_indexes[i].ix_no;
    if (cur.pr_score > best->pr_score)
      *best = cur;
  }
}

/* Rows a plan's output was estimated at: the first estimate down its
 * chain of one-input operators (projections, filters, sorts over a
 * grouping or a join); < 0 none. */
static double plan_rows(const op_t *o)
{
  for (; o; o = o->o_in2 ? NULL : o->o_in)
    if (o->o_est_rows >= 0)
      return o->o_est_rows;
  return -1;
}

int opt_unit_estimate(lp_ctx_t *b, const lp_block_t *fb, const lp_rel_t *un, xnode_t **local, int nl,
                     bool measure, opt_unit_t *out)
{
  memset(out, 0, sizeof(*out));
  const sp_table_t *t = un->un_table;
  /* local conjuncts over the unit's own columns */
  /* local conjuncts read only the unit's columns; those of a decorrelated
   * subquery lie past the block's row (sc_width), so the map spans the
   * unit, not the row: one built to sc_width left them unmapped */
  int width = un->un_base + un->un_width;
  int *shift = arena_alloc(b->lc_a, sizeof(int) * (size_t)(width + 1));
  for (int c = 0; c < width; c++)
    shift[c] = c - un->un_base;
  xnode_t **own = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(nl + 1));
  for (int i = 0; i < nl; i++)
    own[i] = bd_node_remap(b->lc_b, local[i], shift);
  out->pu_own = own;
  out->pu_nown = nl;
  if (t) {
    bool *need = arena_zalloc(b->lc_a, (size_t)t->tb_ncols + 1);
    for (int c = 0; c < t->tb_ncols; c++) {
      int bc = un->un_base + c;
      need[c] = bc < fb->fb_used_cap && fb->fb_used[bc];
    }
    bool any = false;
    for (int c = 0; c < t->tb_ncols; c++)
      any |= need[c];
    if (!any && t->tb_ncols > 0)  /* count(*): a scan returns rows of some column */
      need[t->tb_npk > 0 ? t->tb_pk[0] : 0] = true;
    out->pu_need = need;
  }
  out->pu_unknown = true;
  out->pu_total = OPT_DEFAULT_ROWS;
  double sel = 1;
  for (int i = 0; i < nl; i++)
    sel *= DEFAULT_SEL;
  if (!measure)
    return CZ_OK;
  if (!t) {
    double sub = plan_rows(un->un_op);
    if (sub >= 0)
      out->pu_total = CZ_MAX(sub, 1.0);
  } else {
    out->pu_stats = table_stats(b, t);
    double total = out->pu_stats ? out->pu_stats->qs_rows : -1;
    if (total < 0)
      total = opt_table_rows(b, t);
    if (total >= 0) {
      out->pu_unknown = false;
      out->pu_total = total;
    }
  }
  if (t) {  /* before the sample: runtime_selectivity reads distinct counts */
    out->pu_ndv = arena_alloc(b->lc_a, sizeof(double) * (size_t)(t->tb_ncols + 1));
    for (int c = 0; c < t->tb_ncols; c++)
      out->pu_ndv[c] = -1;
  }
  double range_rows = -1;
  if (!out->pu_unknown && nl > 0 && out->pu_total > 0) {
    pc_range_t rg;
    best_range(b, t, own, nl, &rg);
    batch_t *sample = NULL;
    double rows = -1;
    if (rg.pr_score > 0 &&
        table_sample(b, t, rg.pr_idx, &rg.pr_r, PC_SAMPLE, &sample, &rows) == CZ_OK) {
      /* the range's own rows, then the other conjuncts on rows drawn from
       * it (the range's conjuncts pass on them anyway) */
      range_rows = rows;
      double rest = sample->b_n > 0 ? sample_selectivity(b, un, out, sample, own, nl) : 1;
      sel = CZ_MIN(rows / out->pu_total, 1.0) * rest;
    } else if (table_sample(b, t, 0, NULL, PC_SAMPLE, &sample, &rows) == CZ_OK &&
               sample->b_n > 0) {
      out->pu_sample = sample;
      sel = sample_selectivity(b, un, out, sample, own, nl);
    }
  }
  out->pu_rows = out->pu_total * sel;
  out->pu_read = out->pu_total;
  if (t && !out->pu_unknown) {
    bool whole_key = t->tb_npk > 0;
    for (int k = 0; k < t->tb_npk && whole_key; k++)
      whole_key = any_fixes(own, nl, t->tb_pk[k], false);
    if (whole_key)
      out->pu_rows = out->pu_total >= 1 ? 1 : out->pu_total;
    /* key bounds: the scan reads about what it returns (the range itself
     * when it was measured) */
    bool bounded = t->tb_npk > 0 && any_fixes(own, nl, t->tb_pk[0], true);
    for (int i = 0; i < t->tb_nindexes && !bounded; i++)
      bounded = any_fixes(own, nl, t->tb_indexes[i].ix_cols[0], true);
    if (range_rows >= 0)
      out->pu_read = CZ_MIN(out->pu_total, CZ_MAX(range_rows, out->pu_rows) + 1);
    else if (bounded)
      out->pu_read = CZ_MIN(out->pu_total, out->pu_rows * 4 + 1);
  }
  if (out->pu_rows < 1)
    out->pu_rows = 1;
  return CZ_OK;
}

/* Whether table column tc is a key by itself (each value on one row). */
static bool column_is_key(const sp_table_t *t, int tc)
{
  if (t->tb_npk == 1 && t->tb_pk[0] == tc)
    return true;
  for (int i = 0; i < t->tb_nindexes; i++)
    if (t->tb_indexes[i].ix_unique && t->tb_indexes[i].ix_ncols == 1 &&
        t->tb_indexes[i].ix_cols[0] == tc)
      return true;
  return false;
}

/* Distinct values of table column tc of unit u (see the notes). */
static double column_ndv(lp_ctx_t *b, const lp_rel_t *un, opt_unit_t *pu, int tc)
{
  const sp_table_t *t = un->un_table;
  if (!t || pu->pu_unknown)
    return pu->pu_rows;
  if (pu->pu_ndv[tc] >= 0)
    return pu->pu_ndv[tc];
  double n = pu->pu_total;
  double ndv = column_is_key(t, tc) ? n : -1;
  if (ndv < 0 && pu->pu_stats && tc < pu->pu_stats->qs_ncols)
    ndv = pu->pu_stats->qs_cols[tc].qc_ndv;
  if (ndv < 0 && !pu->pu_sample && n > 0) {
    batch_t *sample = NULL;
    double rows;
    if (table_sample(b, t, 0, NULL, PC_SAMPLE, &sample, &rows) == CZ_OK && sample->b_n > 0)
      pu->pu_sample = sample;
  }
  if (ndv < 0 && pu->pu_sample) {
    const vec_t *v = &pu->pu_sample->b_cols[tc];
    ty_phys_t p = ty_phys(v->v_type.t_id);
    int ns = pu->pu_sample->b_n, distinct = 0, once = 0, nonnull = 0;
    for (int i = 0; i < ns; i++) {
      datum_t x;
      vec_get(v, i, &x);
      if (x.d_null)
        continue;
      nonnull++;
      int count = 0;
      bool first = true;
      for (int j = 0; j < ns; j++) {
        datum_t y;
        vec_get(v, j, &y);
        if (y.d_null || datum_cmp(p, &x, &y) != 0)
          continue;
        count++;
        if (j < i)
          first = false;
      }
      if (first) {
        distinct++;
        once += count == 1;
      }
    }
    if (nonnull > 0) {
      /* Haas and Stokes' Duj1: n d / (n - f1 + f1 n / N) */
      double sn = nonnull;
      ndv = sn * distinct / (sn - once + once * sn / CZ_MAX(n, sn));
    }
  }
  if (ndv < 0)
    ndv = n / 10;
  if (ndv > n)
    ndv = n;
  if (ndv < 1)
    ndv = 1;
  pu->pu_ndv[tc] = ndv;
  return ndv;
}

double opt_join_sel(lp_ctx_t *b, const lp_block_t *fb, opt_unit_t *units, const int *unit_of,
                           const xnode_t *x)
{
  if (x->x_kind == X_OP && x->x_op == XOP_EQ && x->x_nargs == 2 &&
      x->x_args[0]->x_kind == X_COL && x->x_args[1]->x_kind == X_COL) {
    /* a key column: each row of the other side meets at most one row */
    double key = -1;
    for (int side = 0; side < 2; side++) {
      int col = x->x_args[side]->x_index, u = unit_of[col];
      const lp_rel_t *un = &fb->fb_units[u];
      if (un->un_table && !units[u].pu_unknown && column_is_key(un->un_table, col - un->un_base))
        key = CZ_MAX(key, units[u].pu_total);
    }
    if (key >= 1)
      return 1 / key;
    double m = 1;
    for (int side = 0; side < 2; side++) {
      int col = x->x_args[side]->x_index, u = unit_of[col];
      double d = column_ndv(b, &fb->fb_units[u], &units[u], col - fb->fb_units[u].un_base);
      if (d > m)
        m = d;
    }
    return 1 / m;
  }
  return DEFAULT_JOIN_SEL;
}

/* Distinct values of block column col (one of fb's units' columns). */
static double block_col_ndv(lp_ctx_t *b, const lp_block_t *fb, int col, double in_rows)
{
  for (int u = 0; fb && u < fb->fb_nunits; u++) {
    const lp_rel_t *un = &fb->fb_units[u];
    if (col < un->un_base || col >= un->un_base + un->un_width)
      continue;
    const sp_table_t *t = un->un_table;
    int tc = col - un->un_base;
    if (!t || tc >= t->tb_ncols)
      return CZ_MIN(PC_DEFAULT_NDV, in_rows);
    const qstats_t *st = table_stats(b, t);
    if (st && column_is_key(t, tc))
      return st->qs_rows;
    if (st && tc < st->qs_ncols && st->qs_cols[tc].qc_ndv >= 0)
      return st->qs_cols[tc].qc_ndv;
    /* no catalog estimate (a table older than its statistics): the
     * default, not a sample (grouping must not make planning sample) */
    return CZ_MIN(PC_DEFAULT_NDV, in_rows);
  }
  return CZ_MIN(PC_DEFAULT_NDV, in_rows);
}

double opt_block_rows(lp_ctx_t *b, const lp_block_t *fb, const op_t *plan)
{
  double rows = plan_rows(plan);
  if (rows >= 0 || !fb || fb->fb_nunits != 1 || !fb->fb_units[0].un_table)
    return rows;
  /* one table, planned without estimates: its row count, and the
   * conjuncts' default selectivity */
  const qstats_t *st = table_stats(b, fb->fb_units[0].un_table);
  if (!st || st->qs_rows < 0)
    return -1;
  rows = st->qs_rows;
  for (int i = 0; i < fb->fb_nconj; i++)
    rows *= DEFAULT_SEL;
  return rows;
}

double opt_having_rows(lp_ctx_t *b, double groups, xnode_t *having)
{
  if (groups < 0)
    return -1;
  xnode_t **conj = NULL;
  int n = 0, cap = 0;
  bd_conjuncts(b->lc_b, having, &conj, &n, &cap);
  for (int i = 0; i < n; i++)
    groups *= DEFAULT_SEL;
  return groups < 1 ? 1 : groups;
}

double opt_group_rows(lp_ctx_t *b, const lp_block_t *fb, xnode_t **group, int ngroup, double in_rows)
{
  if (in_rows < 0)
    return -1;
  double groups = 1;
  for (int i = 0; i < ngroup && groups < in_rows; i++) {
    const xnode_t *k = group[i];
    while (k->x_kind == X_CAST && k->x_nargs == 1)
      k = k->x_args[0];
    groups *= k->x_kind == X_COL ? block_col_ndv(b, fb, k->x_index, in_rows)
                                  : CZ_MIN(PC_DEFAULT_NDV, in_rows);
  }
  return CZ_MAX(CZ_MIN(groups, in_rows), 1.0);
}

bool opt_index_too_wide(lp_ctx_t *b, const sp_table_t *t, int ix_no, xnode_t **conj, int n)
{
  const sp_index_t *ix = NULL;
  for (int i = 0; i < t->tb_nindexes; i++)
    if (t->tb_indexes[i].ix_no == ix_no)
      ix = &t->tb_indexes[i];
  if (!ix)
    return false;
  const qstats_t *st = table_stats(b, t);
  if (!st || st->qs_rows < PC_WIDE_MIN_ROWS)
    return false;
  xnode_t **live = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(n + 1));
  int nl = 0;
  for (int i = 0; i < n; i++)
    if (conj[i])
      live[nl++] = conj[i];
  pc_range_t rg;
  range_of_key(b, t, ix->ix_ncols, ix->ix_cols, live, nl, &rg);
  batch_t *none;
  double rows;
  if (rg.pr_score == 0 || table_sample(b, t, ix_no, &rg.pr_r, 0, &none, &rows) != CZ_OK)
    return false;
  return rows > OPT_WIDE_FRACTION * st->qs_rows;
}
