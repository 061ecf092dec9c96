/* sql_plan_card — estimates for join ordering.
 *
 * Design notes (sql/README.md, "Join order"):
 * - A table's size comes from its primary tree (pe_estimate: where the
 *   tree's ends fall, two descents). Its own conjuncts are run on a
 *   sample of PC_SAMPLE rows picked by random descents (pe_sample), so a
 *   frequent literal and a rare one of the same column get different
 *   estimates; a conjunct that finds no sampled row counts as half a row
 *   of the sample. Conjuncts that cannot run at plan time (parameters,
 *   volatile functions, or an error on a sampled row) count as
 *   DEFAULT_SEL.
 * - Conjuncts that fix the whole primary key to constants give one row.
 * - An equality with a column that is a key of its table (the primary key
 *   or a one-column unique index) keeps 1 / rows of that table: each row
 *   of the other side meets at most one. Other equalities of two columns
 *   keep 1 / max(distinct values of either).
 *   A column that is the primary key or a one-column unique index has as
 *   many distinct values as the table has rows; other columns are
 *   estimated from the sample with Haas and Stokes' Duj1 estimator
 *   (n d / (n - f1 + f1 n / N): n sampled, d distinct, f1 seen once).
 * - Derived tables and functions in FROM count PC_DEFAULT_ROWS rows.
 */
#include <math.h>
#include <string.h>

#include "sql/sql_plan_card.h"

#define PC_SAMPLE 200
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

void pc_conj_units(const xnode_t *x, const int *unit_of, bool *seen)
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
    if (x->x_func->fd_flags & XF_VOLATILE)
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

static double column_ndv(bd_t *b, const bd_unit_t *un, pc_unit_t *pu, int tc);

/* What a conjunct that cannot run at plan time keeps: `col = value`
 * whose value is only known at run time (a parameter, a correlated
 * subquery's outer column) keeps one of the column's distinct values
 * (PostgreSQL's eqsel without a constant); anything else DEFAULT_SEL. A
 * per-row subquery probing by its correlation column is then estimated
 * at the few rows it finds, not a tenth of the table (TPC-H Q2's min()
 * subquery, weighed against its decorrelated form). */
static double runtime_selectivity(bd_t *b, const bd_unit_t *un, pc_unit_t *pu, const xnode_t *x)
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
static double sample_selectivity(bd_t *b, const bd_unit_t *un, pc_unit_t *pu, batch_t *sample,
                                 xnode_t **conj, int n)
{
  int ns = sample->b_n;
  int *sel = arena_alloc(b->b_a, sizeof(int) * (size_t)(ns + 1));
  int *next = arena_alloc(b->b_a, sizeof(int) * (size_t)(ns + 1));
  int nsel = ns;
  for (int r = 0; r < ns; r++)
    sel[r] = r;
  double other = 1;
  xctx_t xc;
  memset(&xc, 0, sizeof(xc));
  xc.xc_arena = b->b_a;
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

int pc_unit_estimate(bd_t *b, bd_scope_t *sc, const bd_unit_t *un, xnode_t **local, int nl,
                     bool measure, pc_unit_t *out)
{
  memset(out, 0, sizeof(*out));
  const sp_table_t *t = un->un_table;
  /* local conjuncts over the unit's own columns */
  /* local conjuncts read only the unit's columns; those of a decorrelated
   * subquery lie past the block's row (sc_width), so the map spans the
   * unit, not the row: one built to sc_width left them unmapped */
  int width = un->un_base + un->un_width;
  int *shift = arena_alloc(b->b_a, sizeof(int) * (size_t)(width + 1));
  for (int c = 0; c < width; c++)
    shift[c] = c - un->un_base;
  xnode_t **own = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(nl + 1));
  for (int i = 0; i < nl; i++)
    own[i] = bd_node_remap(b, local[i], shift);
  out->pu_own = own;
  out->pu_nown = nl;
  if (t) {
    bool *need = arena_zalloc(b->b_a, (size_t)t->tb_ncols + 1);
    for (int c = 0; c < t->tb_ncols; c++) {
      int bc = un->un_base + c;
      need[c] = bc < sc->sc_used_cap && sc->sc_used[bc];
    }
    bool any = false;
    for (int c = 0; c < t->tb_ncols; c++)
      any |= need[c];
    if (!any && t->tb_ncols > 0)  /* count(*): a scan returns rows of some column */
      need[t->tb_npk > 0 ? t->tb_pk[0] : 0] = true;
    out->pu_need = need;
  }
  out->pu_unknown = true;
  out->pu_total = PC_DEFAULT_ROWS;
  double sel = 1;
  for (int i = 0; i < nl; i++)
    sel *= DEFAULT_SEL;
  if (!measure)
    return CZ_OK;
  const sp_env_t *env = b->b_env;
  double total;
  if (t && env->pe_estimate) {
    int rc = env->pe_estimate(env->pe_ctx, t, &total, b->b_e);
    if (rc == CZ_ERR)
      return CZ_ERR;
    if (rc == CZ_OK) {
      out->pu_unknown = false;
      out->pu_total = total;
    }
  }
  if (t) {
    out->pu_ndv = arena_alloc(b->b_a, sizeof(double) * (size_t)(t->tb_ncols + 1));
    for (int c = 0; c < t->tb_ncols; c++)
      out->pu_ndv[c] = -1;
  }
  if (!out->pu_unknown && nl > 0 && env->pe_sample && out->pu_total > 0) {
    batch_t *sample = NULL;
    int rc = env->pe_sample(env->pe_ctx, t, PC_SAMPLE, b->b_a, &sample, b->b_e);
    if (rc == CZ_ERR)
      return CZ_ERR;
    if (rc == CZ_OK && sample->b_n > 0) {
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
    /* key bounds: the scan reads about what it returns */
    bool bounded = t->tb_npk > 0 && any_fixes(own, nl, t->tb_pk[0], true);
    for (int i = 0; i < t->tb_nindexes && !bounded; i++)
      bounded = any_fixes(own, nl, t->tb_indexes[i].ix_cols[0], true);
    if (bounded)
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
static double column_ndv(bd_t *b, const bd_unit_t *un, pc_unit_t *pu, int tc)
{
  const sp_table_t *t = un->un_table;
  if (!t || pu->pu_unknown)
    return pu->pu_rows;
  if (pu->pu_ndv[tc] >= 0)
    return pu->pu_ndv[tc];
  double n = pu->pu_total;
  double ndv = column_is_key(t, tc) ? n : -1;
  if (ndv < 0 && !pu->pu_sample && b->b_env->pe_sample && n > 0) {
    batch_t *sample = NULL;
    int rc = b->b_env->pe_sample(b->b_env->pe_ctx, t, PC_SAMPLE, b->b_a, &sample, b->b_e);
    if (rc == CZ_OK && sample->b_n > 0)
      pu->pu_sample = sample;
    err_clear(b->b_e);
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

double pc_join_selectivity(bd_t *b, const bd_fromblk_t *fb, pc_unit_t *units, const int *unit_of,
                           const xnode_t *x)
{
  if (x->x_kind == X_OP && x->x_op == XOP_EQ && x->x_nargs == 2 &&
      x->x_args[0]->x_kind == X_COL && x->x_args[1]->x_kind == X_COL) {
    /* a key column: each row of the other side meets at most one row */
    double key = -1;
    for (int side = 0; side < 2; side++) {
      int col = x->x_args[side]->x_index, u = unit_of[col];
      const bd_unit_t *un = &fb->fb_units[u];
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
