/* opt_join — the joins of one FROM clause: which order, which join
 * method, which columns each table reads.
 *
 * Design notes (opt/README.md, "Join order"):
 * - The FROM items are units: tables, whose scans are planned here with
 *   the WHERE conjuncts that use only them and reading only the columns
 *   the block names (bd_scope_use), or inputs built while binding
 *   (derived tables, explicit JOINs, functions).
 * - Every unit gets an estimated row count (opt_card.c: the table's
 *   size from its index, the selectivity of its own conjuncts measured on
 *   a sample of its rows); a conjunct between units gets a selectivity
 *   (an equality: one over the larger number of distinct values).
 * - The order is left-deep: each step joins the rows so far with one more
 *   unit, by a lookup of its primary key when the rows so far give all of
 *   it, by probing one of its indexes a batch of rows at a time when the
 *   rows so far give a prefix of the index's key (an index lookup join;
 *   a decorrelated EXISTS / NOT EXISTS over one table too, as a semi /
 *   anti one), by a hash join building on the new unit, or (no equality)
 *   a nested loop, whichever costs least. Up to JOIN_DP_MAX units every order is
 *   weighed by dynamic programming over subsets; beyond, a greedy search
 *   adds the cheapest next unit. Neither makes a cross product inside a
 *   connected component of the join graph, whose edges include the
 *   equalities equivalence classes imply (sql_logical_ec.c). The cost of a
 *   plan is the rows each step reads, builds, probes and produces,
 *   weighted per method (cost_* below).
 * - The joins produce the units' columns in the order chosen; a final
 *   projection puts them back in the block's row (columns no expression
 *   reads are NULL there), so expressions bound over the row need no
 *   change. Conjuncts holding subqueries are evaluated over that row,
 *   after all joins.
 */
#include <math.h>
#include <string.h>

#include "exec/exec_ql.h"
#include "opt/opt_int.h"
#include "opt/opt_card.h"

/* Orders of up to JOIN_DP_MAX units are weighed by dynamic programming
 * (2^10 subsets: well under a millisecond); beyond, greedy. */
#define JOIN_DP_MAX 10

/* Per-row costs, relative: what a step does to each row it touches. */
#define COST_SCAN 0.2    /* a stored row read and decoded by a scan */
#define COST_BUILD 1.0   /* a row put into a hash table */
#define COST_PROBE 0.3   /* a row looked up in a hash table */
#define COST_LOOKUP 1.5  /* a primary-key lookup in the B-tree */
#define COST_NLOOP 0.05  /* a pair of rows compared by a nested loop */
#define COST_OUT 0.1     /* a row produced by a join */
#define COST_MERGE 0.1   /* a row of either input of a merge join compared */
#define COST_SUBQ_ROW 15.0 /* a subquery run for one outer row as an index probe
                            * (open, probe, close: about ten batched lookups) */
#define COST_SEEK 3.0    /* a distinct key prefix sought in an index by a batched
                          * index lookup join (a descent: about 1 µs at TPC-H SF 1,
                          * where a scanned row is 0.07 µs) */
#define COST_FETCH 5.0   /* a row it finds through a secondary index, fetched from
                          * the primary tree by key (a random descent and the row
                          * decoded: 1.5-2 µs at SF 1); from the primary tree
                          * itself the rows are read as a scan reads them
                          * (COST_SCAN each) */

typedef struct jconj_s {
  xnode_t *jc_x;                /* over the block's row */
  int jc_nunits;
  int *jc_units;                /* units it reads */
  double jc_sel;
  bool jc_top;                  /* evaluated after all joins */
  bool jc_local;                /* one unit: inside its scan or filter */
  bool jc_semi;                 /* joins a SEMI / ANTI unit (its selectivity is jp_semi's) */
  int jc_ec;                    /* a `col = col` of equivalence class jc_ec between two
                                 * units, else -1 */
  bool jc_implied;              /* added by the class (lp_eclasses), not written */
} jconj_t;


typedef struct jplan_s {
  lp_ctx_t *jp_b;
  lp_block_t *jp_fb;
  int jp_nu;
  opt_unit_t *jp_units;          /* estimates (opt_card.h) */
  int jp_nconj;
  jconj_t *jp_conj;
  int *jp_unit_of;              /* block column -> unit */
  double *jp_semi;              /* per unit: SEMI / ANTI: the fraction of rows it keeps; else 0 */
  bool *jp_scratch;             /* per conjunct, for step_cost's lookup_keys */
  int *jp_uf;                   /* per unit, scratch of set_rows */
  /* the join graph: adj[u * nu + v] when a conjunct joins u and v (for
   * the search's rule of no cross product within a connected component);
   * comp[u] u's connected component */
  bool *jp_adj;
  int *jp_comp;
  double *jp_ixm;               /* per unit: rows of its table per distinct value of its
                                 * first probed key column (index_matches), 0 = not yet */
  bool *jp_aggl;                /* per unit: a scalar aggregate joined as an Index Lookup
                                 * Aggregate (agg_lookups); filter-like, as SEMI */
} jplan_t;

static bool conj_within(const jconj_t *c, const bool *in_set)
{
  for (int i = 0; i < c->jc_nunits; i++)
    if (!in_set[c->jc_units[i]])
      return false;
  return true;
}

static bool conj_uses(const jconj_t *c, int u)
{
  for (int i = 0; i < c->jc_nunits; i++)
    if (c->jc_units[i] == u)
      return true;
  return false;
}

/* Whether unit u may join the rows of in_set: a SEMI / ANTI unit only
 * after every unit its conjuncts read, and never first. */
static bool unit_ready(const jplan_t *jp, const bool *in_set, int u)
{
  if (jp->jp_semi[u] <= 0)
    return true;
  bool any = false;
  for (int v = 0; v < jp->jp_nu; v++)
    any |= in_set[v];
  if (!any)
    return false;
  for (int i = 0; i < jp->jp_nconj; i++) {
    const jconj_t *c = &jp->jp_conj[i];
    if (!conj_uses(c, u))
      continue;
    for (int k = 0; k < c->jc_nunits; k++)
      if (c->jc_units[k] != u && !in_set[c->jc_units[k]])
        return false;
  }
  return true;
}

/* `a = b` of two columns of one type: their units and columns. */
static bool col_equality(const jplan_t *jp, const xnode_t *x, int *ca, int *cb)
{
  if (x->x_kind != X_OP || x->x_op != XOP_EQ || x->x_nargs != 2)
    return false;
  const xnode_t *a = x->x_args[0], *d = x->x_args[1];
  if (a->x_kind != X_COL || d->x_kind != X_COL || a->x_type.t_id != d->x_type.t_id)
    return false;
  if (jp->jp_unit_of[a->x_index] == jp->jp_unit_of[d->x_index])
    return false;
  *ca = a->x_index;
  *cb = d->x_index;
  return true;
}

/* Whether the rows of in_set give unit u's whole primary key through
 * equalities applicable when u joins: lk[k] is the block column giving
 * key column k, used[i] marks the conjuncts taken. */
static bool lookup_keys(const jplan_t *jp, const bool *in_set, int u, int *lk, bool *used)
{
  const lp_rel_t *un = &jp->jp_fb->fb_units[u];
  const sp_table_t *t = un->un_table;
  if (!t || un->un_rowid || t->tb_npk <= 0 || t->tb_npk > 32 || jp->jp_units[u].pu_unknown)
    return false;  /* (lookups give no row locator) */
  for (int i = 0; i < jp->jp_nconj; i++)
    used[i] = false;
  for (int k = 0; k < t->tb_npk; k++) {
    int target = un->un_base + t->tb_pk[k];
    bool got = false;
    for (int i = 0; i < jp->jp_nconj && !got; i++) {
      const jconj_t *c = &jp->jp_conj[i];
      int a, d;
      if (used[i] || c->jc_top || c->jc_local || !conj_uses(c, u) || !col_equality(jp, c->jc_x, &a, &d))
        continue;
      if (c->jc_x->x_args[0]->x_type.t_id != t->tb_coltypes[t->tb_pk[k]].t_id)
        continue;
      int other = a == target ? d : d == target ? a : -1;
      if (other < 0 || !in_set[jp->jp_unit_of[other]])
        continue;
      lk[k] = other;
      used[i] = true;
      got = true;
    }
    if (!got)
      return false;
  }
  return true;
}

typedef enum jmethod_e { JM_HASH, JM_LOOKUP, JM_NLOOP, JM_PROBE, JM_MERGE, JM_INDEX } jmethod_t;

static bool has_param(const xnode_t *x)
{
  if (x->x_kind == X_PARAM || x->x_kind == X_SUBQ)
    return true;
  for (int i = 0; i < x->x_nargs; i++)
    if (has_param(x->x_args[i]))
      return true;
  return false;
}

/* Whether x (over the unit's own columns) equates table column tc. */
static bool leads_index(const sp_table_t *t, int tc)
{
  if (t->tb_npk > 0 && t->tb_pk[0] == tc)
    return true;
  for (int i = 0; i < t->tb_nindexes; i++)
    if (t->tb_indexes[i].ix_ncols > 0 && t->tb_indexes[i].ix_cols[0] == tc)
      return true;
  return false;
}

/* An index nested loop: unit u probed once per row of in_set through an
 * index (or its primary key) whose leading column an equality gives from
 * in_set. Marks in used[] every such equality between u and in_set (all
 * become key values of the probe: the scan takes the longest prefix
 * they fix) and returns their combined selectivity, or 0 when u cannot
 * be probed: not a table, a row-locator target, no such leading column,
 * or own conjuncts with parameters (the probe's context has only the
 * statement's). */
static double probe_keys(const jplan_t *jp, const bool *in_set, int u, bool *used)
{
  const lp_rel_t *un = &jp->jp_fb->fb_units[u];
  const sp_table_t *t = un->un_table;
  if (!t || un->un_rowid || jp->jp_units[u].pu_unknown || jp->jp_semi[u] > 0)
    return 0;
  for (int i = 0; i < jp->jp_units[u].pu_nown; i++)
    if (has_param(jp->jp_units[u].pu_own[i]))
      return 0;
  bool lead = false;
  double sel = 1;
  for (int i = 0; i < jp->jp_nconj; i++) {
    const jconj_t *c = &jp->jp_conj[i];
    int a, d;
    used[i] = false;
    if (c->jc_top || c->jc_local || c->jc_nunits != 2 || !conj_uses(c, u) ||
        !col_equality(jp, c->jc_x, &a, &d))
      continue;
    int mine = jp->jp_unit_of[a] == u ? a : d, other = mine == a ? d : a;
    if (!in_set[jp->jp_unit_of[other]])
      continue;
    used[i] = true;
    sel *= c->jc_sel;
    lead |= leads_index(t, mine - un->un_base);
  }
  return lead ? sel : 0;
}

/* ---- index lookup joins ---------------------------------------------------- */

/* The stored table unit u can be joined by probing: its own (an inner
 * table unit), or the one table a decorrelated SEMI / ANTI subquery
 * reads (un_look_table: every column of the unit one of the table's);
 * NULL otherwise. */
static const sp_table_t *look_table(const jplan_t *jp, int u)
{
  const lp_rel_t *un = &jp->jp_fb->fb_units[u];
  if (un->un_agg_n > 0)
    return un->un_look_table;  /* its keys' columns are the table's */
  if (un->un_kind == JOIN_INNER)
    return un->un_table && !un->un_rowid && !jp->jp_units[u].pu_unknown ? un->un_table : NULL;
  if ((un->un_kind != JOIN_SEMI && un->un_kind != JOIN_ANTI) || un->un_null_aware ||
      !un->un_look_table)
    return NULL;
  for (int c = 0; c < un->un_width; c++)
    if (un->un_look_col[c] < 0)
      return NULL;
  return un->un_look_table;
}

/* The table column block column bc of unit u is. */
static int look_tcol(const jplan_t *jp, int u, int bc)
{
  const lp_rel_t *un = &jp->jp_fb->fb_units[u];
  int c = bc - un->un_base;
  return un->un_kind == JOIN_INNER && !un->un_agg_n ? c : un->un_look_col[c];
}

/* An index of u's table and the equalities with the rows so far giving a
 * prefix of its key. */
typedef struct ixpick_s {
  int ip_index;                 /* 0 the primary key, else the table layer's ix_no */
  const char *ip_name;
  int ip_nk;                    /* key columns given */
  int ip_tcol[32];              /* their table columns */
  int ip_other[32];             /* the block columns giving them */
  int ip_conj[32];              /* the conjuncts that do */
  const xnode_t *ip_const[32];  /* or the constant a local `col = constant` gives
                                 * (ip_other -1); never all of them */
  int ip_njoin;                 /* key columns a join equality gives */
  bool ip_secondary;
  int ip_nixcols;               /* all the index's key columns (a secondary index
                                 * answers alone when they hold every column needed) */
  const int *ip_ixcols;
} ixpick_t;

/* The constant unit u's local conjunct c equates u's table column tc
 * with (`col = constant` of tc's type, either side), or NULL. Only an
 * inner table unit's: its block columns are its table's. */
static const xnode_t *const_key(const jplan_t *jp, const jconj_t *c, int u, const sp_table_t *t,
                                int tc)
{
  const lp_rel_t *un = &jp->jp_fb->fb_units[u];
  const xnode_t *x = c->jc_x;
  if (!c->jc_local || c->jc_units[0] != u || un->un_kind != JOIN_INNER || un->un_agg_n ||
      x->x_kind != X_OP || x->x_op != XOP_EQ || x->x_nargs != 2)
    return NULL;
  for (int side = 0; side < 2; side++) {
    const xnode_t *col = x->x_args[side], *k = x->x_args[1 - side];
    if (col->x_kind == X_COL && k->x_kind == X_CONST && !k->x_const.d_null &&
        col->x_index == un->un_base + tc && col->x_type.t_id == t->tb_coltypes[tc].t_id &&
        k->x_type.t_id == col->x_type.t_id)
      return k;
  }
  return NULL;
}

/* The index (primary key first on ties) whose longest key prefix the
 * equalities between u and in_set give (same types); false when none
 * gives even its first column. A key column a local `col = constant`
 * fixes counts too (rdf_quad's P before the S a join gives), as long as
 * a join equality gives at least one of the prefix's columns. */
static bool index_pick(const jplan_t *jp, const bool *in_set, int u, ixpick_t *ip)
{
  const sp_table_t *t = look_table(jp, u);
  ip->ip_nk = 0;
  if (!t)
    return false;
  for (int x = -1; x < t->tb_nindexes; x++) {
    int n = x < 0 ? t->tb_npk : t->tb_indexes[x].ix_ncols;
    const int *cols = x < 0 ? t->tb_pk : t->tb_indexes[x].ix_cols;
    int other[32], conj[32], k = 0, njoin = 0;
    const xnode_t *kconst[32];
    for (; k < n && k < 32; k++) {
      bool got = false;
      kconst[k] = NULL;
      for (int i = 0; i < jp->jp_nconj && !got; i++) {
        const xnode_t *kc = const_key(jp, &jp->jp_conj[i], u, t, cols[k]);
        if (kc) {
          other[k] = -1;
          conj[k] = i;
          kconst[k] = kc;
          got = true;
        }
      }
      for (int i = 0; i < jp->jp_nconj && !got; i++) {
        const jconj_t *c = &jp->jp_conj[i];
        int a, d;
        if (c->jc_top || c->jc_local || c->jc_nunits != 2 || !conj_uses(c, u) ||
            !col_equality(jp, c->jc_x, &a, &d))
          continue;
        int mine = jp->jp_unit_of[a] == u ? a : d, oth = mine == a ? d : a;
        if (!in_set[jp->jp_unit_of[oth]] || look_tcol(jp, u, mine) != cols[k] ||
            c->jc_x->x_args[0]->x_type.t_id != t->tb_coltypes[cols[k]].t_id)
          continue;
        other[k] = oth;
        conj[k] = i;
        got = true;
        njoin++;
      }
      if (!got)
        break;
    }
    if (njoin == 0 || k <= ip->ip_nk)  /* all constant: no join, a scan's filter */
      continue;
    ip->ip_index = x < 0 ? 0 : t->tb_indexes[x].ix_no;
    ip->ip_name = x < 0 ? (t->tb_pk_name ? t->tb_pk_name : t->tb_name) : t->tb_indexes[x].ix_name;
    ip->ip_secondary = x >= 0;
    ip->ip_nixcols = n;
    ip->ip_ixcols = cols;
    ip->ip_nk = k;
    ip->ip_njoin = 0;
    for (int j = 0; j < k; j++) {
      ip->ip_tcol[j] = cols[j];
      ip->ip_other[j] = other[j];
      ip->ip_conj[j] = conj[j];
      ip->ip_const[j] = kconst[j];
      ip->ip_njoin += kconst[j] == NULL;
    }
  }
  return ip->ip_nk > 0;
}

/* Rows of u's table per distinct value of table column tc (its
 * statistics), at least 1; the table's rows when unknown. */
static double index_matches(const jplan_t *jp, int u, const sp_table_t *t, int tc)
{
  if (jp->jp_ixm[u] > 0)
    return jp->jp_ixm[u];
  double rows = opt_table_rows(jp->jp_b, t);
  if (rows < 1)
    rows = OPT_DEFAULT_ROWS;
  double m = rows;
  const qtable_t *h = t->tb_handle;
  qstats_t st;
  err_t e;
  err_clear(&e);
  if (h && h->qt_ops->qt_stats && h->qt_ops->qt_stats(t->tb_handle, jp->jp_b->lc_a, &st, &e) == CZ_OK &&
      tc < st.qs_ncols && st.qs_cols[tc].qc_ndv > 0)
    m = rows / st.qs_cols[tc].qc_ndv;
  jp->jp_ixm[u] = CZ_MAX(m, 1.0);
  return jp->jp_ixm[u];
}

static void need_col(void *ctx, xnode_t *col);

/* Marks the table columns of unit u that x reads (ctx: an index_need_t). */
typedef struct index_need_s {
  const jplan_t *in_jp;
  int in_u;
  bool *in_need;                /* per table column */
} index_need_t;

static void index_need_col(void *ctx, xnode_t *col)
{
  index_need_t *n = ctx;
  if (n->in_jp->jp_unit_of[col->x_index] == n->in_u)
    n->in_need[look_tcol(n->in_jp, n->in_u, col->x_index)] = true;
}

/* The conjuncts an index lookup join of u to in_set completes (mine[i]:
 * not done, evaluated at this step; key[i]: one of ip's keys) and the
 * table columns it fetches (need, per table column: an inner unit's
 * needed columns; for a SEMI / ANTI unit only those its own conjuncts and
 * the other completed conjuncts read; at least the first key column).
 * Returns how many. */
static int index_need(const jplan_t *jp, bool *in_set, int u, const ixpick_t *ip, const bool *done,
                      bool *mine, bool *key, bool *need)
{
  const lp_rel_t *un = &jp->jp_fb->fb_units[u];
  const sp_table_t *t = look_table(jp, u);
  int nt = t->tb_ncols;
  memset(need, 0, (size_t)nt);
  memset(key, 0, (size_t)jp->jp_nconj);
  for (int k = 0; k < ip->ip_nk; k++)
    key[ip->ip_conj[k]] = true;
  bool was = in_set[u];
  in_set[u] = true;
  for (int i = 0; i < jp->jp_nconj; i++) {
    const jconj_t *c = &jp->jp_conj[i];
    mine[i] = !(done && done[i]) && !c->jc_top && conj_within(c, in_set) && conj_uses(c, u);
  }
  in_set[u] = was;
  if (un->un_kind == JOIN_INNER) {
    for (int c = 0; c < nt; c++)
      need[c] = jp->jp_units[u].pu_need[c];
  } else {
    index_need_t nd = {jp, u, need};
    for (int i = 0; i < un->un_look_nown; i++)
      bd_node_cols(un->un_look_own[i], need_col, need);  /* over the table's columns */
    for (int i = 0; i < jp->jp_nconj; i++)
      if (mine[i] && !key[i])
        bd_node_cols(jp->jp_conj[i].jc_x, index_need_col, &nd);
  }
  int nc = 0;
  for (int c = 0; c < nt; c++)
    nc += need[c];
  if (nc == 0) {
    need[ip->ip_tcol[0]] = true;  /* the probe returns at least one column */
    nc = 1;
  }
  return nc;
}

/* Whether a secondary index answers alone: its key columns hold every
 * column needed (INCLUDE columns are not known here: they only make the
 * estimate pessimistic). */
static bool index_covers(const ixpick_t *ip, const bool *need, int nt)
{
  for (int c = 0; c < nt; c++) {
    if (!need[c])
      continue;
    bool in = false;
    for (int k = 0; k < ip->ip_nixcols && !in; k++)
      in = ip->ip_ixcols[k] == c;
    if (!in)
      return false;
  }
  return true;
}

/* The table columns an Index Lookup Aggregate of unit un reads: its own
 * conjuncts', its aggregates' arguments and its keys' (a key the probed
 * prefix does not give is compared on the rows found). */
static void agg_need(const lp_rel_t *un, bool *need)
{
  for (int i = 0; i < un->un_look_nown; i++)
    bd_node_cols(un->un_look_own[i], need_col, need);
  for (int i = 0; i < un->un_agg_n; i++)
    if (un->un_agg_specs[i].ag_arg)
      bd_node_cols(un->un_agg_specs[i].ag_arg, need_col, need);
  for (int c = 0; c < un->un_width; c++)
    if (un->un_look_col[c] >= 0)
      need[un->un_look_col[c]] = true;
}

/* The cost of joining u to `rows` rows by an index lookup join through
 * ip: a seek per row (its distinct prefixes: at most), then each row
 * found read (decoded from the tree, or fetched by a secondary index). */
static double index_cost(const jplan_t *jp, bool *in_set, int u, const ixpick_t *ip, double rows)
{
  const lp_rel_t *un = &jp->jp_fb->fb_units[u];
  bool fetch = ip->ip_secondary;
  if (fetch && un->un_agg_n > 0) {
    const sp_table_t *t = un->un_look_table;
    bool *need = arena_zalloc(jp->jp_b->lc_a, (size_t)t->tb_ncols + 1);
    agg_need(un, need);
    fetch = !index_covers(ip, need, t->tb_ncols);
  } else if (fetch) {
    arena_t *a = jp->jp_b->lc_a;
    const sp_table_t *t = look_table(jp, u);
    bool *need = arena_alloc(a, (size_t)t->tb_ncols + 1);
    bool *mine = arena_alloc(a, (size_t)jp->jp_nconj + 1);
    bool *key = arena_alloc(a, (size_t)jp->jp_nconj + 1);
    (void)index_need(jp, in_set, u, ip, NULL, mine, key, need);
    fetch = !index_covers(ip, need, t->tb_ncols);
  }
  double found;
  if (ip->ip_njoin < ip->ip_nk) {
    /* constant key parts: the unit's rows after its own conjuncts (its
     * sample's estimate, which the constants are part of), then the
     * joined parts' selectivities */
    double ksel = 1;
    for (int k = 0; k < ip->ip_nk; k++)
      if (!ip->ip_const[k])
        ksel *= jp->jp_conj[ip->ip_conj[k]].jc_sel;
    found = jp->jp_units[u].pu_rows * ksel;
  } else if (un->un_kind == JOIN_INNER && !un->un_agg_n) {
    double ksel = 1;
    for (int k = 0; k < ip->ip_nk; k++)
      ksel *= jp->jp_conj[ip->ip_conj[k]].jc_sel;
    found = jp->jp_units[u].pu_total * ksel;
  } else {
    /* the subquery's rows per key: its table's per value of the first
     * key column (its conjuncts run on them after) */
    found = index_matches(jp, u, look_table(jp, u), ip->ip_tcol[0]);
  }
  return rows * (COST_SEEK + found * (fetch ? COST_FETCH : COST_SCAN));
}

static int uf_find(int *uf, int x)
{
  while (uf[x] != x)
    x = uf[x] = uf[uf[x]];
  return x;
}

/* The selectivity of the implied equalities within in_set: an implied
 * `a = c` of a class counts only where the class's equalities counted so
 * far (the written ones, then the implied ones taken) do not already join
 * its two units — a = b and b = c make a = c true, not a third condition. */
static double implied_sel(const jplan_t *jp, const bool *in_set)
{
  const lp_block_t *fb = jp->jp_fb;
  if (fb->fb_nderived == 0)
    return 1;
  double r = 1;
  int *uf = jp->jp_uf;
  for (int e = 0; e < fb->fb_nec; e++) {
    bool any = false;
    for (int i = jp->jp_nconj - fb->fb_nderived; i < jp->jp_nconj && !any; i++)
      any = jp->jp_conj[i].jc_implied && jp->jp_conj[i].jc_ec == e && conj_within(&jp->jp_conj[i], in_set);
    if (!any)
      continue;
    for (int u = 0; u < jp->jp_nu; u++)
      uf[u] = u;
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < jp->jp_nconj; i++) {
        const jconj_t *c = &jp->jp_conj[i];
        if (c->jc_ec != e || c->jc_implied != (pass == 1) || !conj_within(c, in_set))
          continue;
        int x = uf_find(uf, c->jc_units[0]), y = uf_find(uf, c->jc_units[1]);
        if (x == y)
          continue;
        uf[x] = y;
        if (pass == 1)
          r *= c->jc_sel;
      }
  }
  return r;
}

/* Rows of the units of in_set joined: the product of their estimates and
 * of the selectivities of the conjuncts among them. */
static double set_rows(const jplan_t *jp, const bool *in_set)
{
  double r = 1;
  for (int u = 0; u < jp->jp_nu; u++)
    if (in_set[u])
      r *= jp->jp_semi[u] > 0 ? jp->jp_semi[u] : jp->jp_units[u].pu_rows;
  for (int i = 0; i < jp->jp_nconj; i++) {
    const jconj_t *c = &jp->jp_conj[i];
    if (!c->jc_top && !c->jc_local && !c->jc_semi && !c->jc_implied && conj_within(c, in_set))
      r *= c->jc_sel;
  }
  r *= implied_sel(jp, in_set);
  return r < 1 ? 1 : r;
}

static double scan_cost(const opt_unit_t *pu)
{
  return pu->pu_read * COST_SCAN;
}

/* Whether an inner hash join of `left` rows (joined so far) with a unit
 * of `right` rows builds its table on the joined rows and lets the
 * unit's scan probe it (bd_hashjoin_build_left). Building costs more a
 * row than probing, so the smaller side builds; the margin is because
 * the joined rows' estimate compounds the errors of every join below it
 * and a build side found too large spills. TPC-H Q18: the orders that
 * pass a selective HAVING are built on, lineitem probes (not 6 M
 * lineitem rows built on). */
static bool build_on_joined(double left, double right)
{
  return left * 2 < right;
}

/* The cost of a hash join: the build of the smaller side (see
 * build_on_joined) and the probe of the other. */
static double hash_cost(double left, double right, bool inner)
{
  if (inner && build_on_joined(left, right))
    return left * COST_BUILD + right * COST_PROBE;
  return right * COST_BUILD + left * COST_PROBE;
}

/* Whether the first join, of table unit t0 with table unit u, may merge
 * their scans: an equality between the first columns of their primary
 * keys (one type), an inner join, and a block that will not run on
 * several threads (a Gather's morsels come out of order). Whether the
 * scans really come in key order is known once they are built (op_order;
 * a scan bounded through a secondary index does not): else a hash join. */
static bool merge_keys(const jplan_t *jp, const bool *in_set, int u)
{
  const lp_ctx_t *b = jp->jp_b;
  if (b->lc_env->pe_threads > 1 && !b->lc_decor)
    return false;
  int t0 = -1, n = 0;
  for (int v = 0; v < jp->jp_nu; v++)
    if (in_set[v]) {
      t0 = v;
      n++;
    }
  if (n != 1)
    return false;
  const lp_rel_t *a = &jp->jp_fb->fb_units[t0], *r = &jp->jp_fb->fb_units[u];
  if (!a->un_table || !r->un_table || a->un_outer || r->un_outer || a->un_rowid || r->un_rowid ||
      r->un_kind != JOIN_INNER || a->un_kind != JOIN_INNER || !a->un_table->tb_npk ||
      !r->un_table->tb_npk)
    return false;
  int ka = a->un_base + a->un_table->tb_pk[0], kr = r->un_base + r->un_table->tb_pk[0];
  for (int i = 0; i < jp->jp_nconj; i++) {
    int x, y;
    if (!jp->jp_conj[i].jc_top && col_equality(jp, jp->jp_conj[i].jc_x, &x, &y) &&
        ((x == ka && y == kr) || (x == kr && y == ka)))
      return true;
  }
  return false;
}

/* The key pair (index into lk / rk) both of whose inputs come ordered by
 * it first (ascending, NULLs last), as built; -1 when none does. */
static int merge_pair(const op_t *left, const op_t *right, int nk, const int *lk, const int *rk)
{
  op_order_t lo, ro;
  op_order(left, &lo);
  op_order(right, &ro);
  if (!lo.oo_n || !ro.oo_n)
    return -1;
  for (int i = 0; i < nk; i++) {
    const sort_key_t *a = &lo.oo_keys[0], *d = &ro.oo_keys[0];
    if (a->sk_col == lk[i] && d->sk_col == rk[i] && !a->sk_desc && !d->sk_desc &&
        !a->sk_nulls_first && !d->sk_nulls_first &&
        left->o_types[lk[i]].t_id == right->o_types[rk[i]].t_id)
      return i;
  }
  return -1;
}

/* The cost of joining unit u to rows (estimate `rows`) of in_set, and the
 * method it would use. */
static double step_cost(const jplan_t *jp, bool *in_set, double rows, int u, jmethod_t *method)
{
  const opt_unit_t *pu = &jp->jp_units[u];
  if (jp->jp_aggl[u]) {
    /* an Index Lookup Aggregate: nothing else computes it */
    ixpick_t ip;
    *method = JM_INDEX;
    double ix = index_pick(jp, in_set, u, &ip) ? index_cost(jp, in_set, u, &ip, rows) : 1e30;
    return ix + rows * COST_OUT;
  }
  int lk[32];
  bool *used = jp->jp_scratch;
  bool equi = false;
  for (int i = 0; i < jp->jp_nconj && !equi; i++) {
    const jconj_t *c = &jp->jp_conj[i];
    int a, d;
    if (c->jc_top || c->jc_local || !conj_uses(c, u) || !col_equality(jp, c->jc_x, &a, &d))
      continue;
    int other = jp->jp_unit_of[a] == u ? d : a;
    equi = in_set[jp->jp_unit_of[other]];
  }
  bool inner = jp->jp_fb->fb_units[u].un_kind == JOIN_INNER;
  double hash = scan_cost(pu) + hash_cost(rows, pu->pu_rows, inner);
  double best = equi ? hash : scan_cost(pu) + pu->pu_rows * COST_BUILD + rows * pu->pu_rows * COST_NLOOP;
  *method = equi ? JM_HASH : JM_NLOOP;
  if (equi && merge_keys(jp, in_set, u)) {
    double merge = scan_cost(pu) + (rows + pu->pu_rows) * COST_MERGE;
    if (merge < best) {
      best = merge;
      *method = JM_MERGE;
    }
  }
  if (lookup_keys(jp, in_set, u, lk, used)) {
    double look = rows * COST_LOOKUP;
    if (look < best) {
      best = look;
      *method = JM_LOOKUP;
    }
  }
  ixpick_t ip;
  bool indexed = *method != JM_LOOKUP && index_pick(jp, in_set, u, &ip);
  if (indexed) {
    double ix = index_cost(jp, in_set, u, &ip, rows);
    if (ix < best) {
      best = ix;
      *method = JM_INDEX;
    }
  }
  /* a probe per row reads what the batched index lookup reads, a run
   * per row more: only where that cannot be used */
  double ksel = *method == JM_LOOKUP || indexed ? 0 : probe_keys(jp, in_set, u, used);
  if (ksel > 0) {
    /* per row: a run of the probe, then each row the key finds fetched */
    double found = rows * pu->pu_total * ksel;
    double probe = rows * COST_SUBQ_ROW + found * COST_LOOKUP;
    if (probe < best) {
      best = probe;
      *method = JM_PROBE;
    }
  }
  in_set[u] = true;
  double out = set_rows(jp, in_set);
  in_set[u] = false;
  return best + out * COST_OUT;
}

/* Equalities from one unit v that together give a key of several columns
 * of another unit u (its primary key or a unique index: TPC-H's keys are
 * unique indexes when ALTER TABLE … ADD PRIMARY KEY is not available)
 * find one row of u each: together they keep 1 / rows(u), not the
 * product of their separate estimates (which assumes the key's columns
 * independent and comes out far too low: Q9's lineitem–partsupp join
 * came out at 85 rows instead of 6 million). */
static void composite_key(jplan_t *jp, int u, int nk, const int *kcols, bool *mine)
{
  int base = jp->jp_fb->fb_units[u].un_base;
  for (int v = 0; v < jp->jp_nu; v++) {
    if (v == u)
      continue;
    int covered = 0;
    for (int k = 0; k < nk; k++) {
      bool got = false;
      for (int i = 0; i < jp->jp_nconj; i++) {
        const jconj_t *c = &jp->jp_conj[i];
        int a, d;
        if (c->jc_top || c->jc_local || c->jc_nunits != 2 || !conj_uses(c, u) ||
            !conj_uses(c, v) || !col_equality(jp, c->jc_x, &a, &d))
          continue;
        if (a == base + kcols[k] || d == base + kcols[k]) {
          if (!got)
            mine[i] = true;
          got = true;
        }
      }
      covered += got;
    }
    if (covered < nk) {
      memset(mine, 0, (size_t)jp->jp_nconj);
      continue;
    }
    bool first = true;
    for (int i = 0; i < jp->jp_nconj; i++)
      if (mine[i]) {
        jp->jp_conj[i].jc_sel = first ? 1 / CZ_MAX(jp->jp_units[u].pu_total, 1.0) : 1;
        first = false;
        mine[i] = false;
      }
  }
}

static void composite_keys(jplan_t *jp)
{
  bool *mine = arena_zalloc(jp->jp_b->lc_a, (size_t)jp->jp_nconj + 1);
  for (int u = 0; u < jp->jp_nu; u++) {
    const sp_table_t *t = jp->jp_fb->fb_units[u].un_table;
    if (!t || jp->jp_units[u].pu_unknown)
      continue;
    if (t->tb_npk >= 2)
      composite_key(jp, u, t->tb_npk, t->tb_pk, mine);
    for (int i = 0; i < t->tb_nindexes; i++)
      if (t->tb_indexes[i].ix_unique && t->tb_indexes[i].ix_ncols >= 2)
        composite_key(jp, u, t->tb_indexes[i].ix_ncols, t->tb_indexes[i].ix_cols, mine);
  }
}

/* ---- the search ---------------------------------------------------------- */

/* Whether joining u to the units of in_set makes no cross product: a
 * conjunct joins u to one of them, or none of them is in u's connected
 * component of the join graph (which is then disconnected, and some cross
 * product unavoidable). */
static bool joins_without_cross(const jplan_t *jp, const bool *in_set, int u)
{
  int nu = jp->jp_nu;
  bool same_comp = false;
  for (int v = 0; v < nu; v++) {
    if (!in_set[v])
      continue;
    if (jp->jp_adj[u * nu + v])
      return true;
    same_comp |= jp->jp_comp[v] == jp->jp_comp[u];
  }
  return !same_comp;
}

/* The join graph: units are adjacent when a conjunct (not evaluated
 * after all joins, not one unit's own) reads both; equivalence classes
 * have added their implied equalities to the conjuncts by now, so a = b
 * and b = c make a and c adjacent too. */
static void join_graph(jplan_t *jp)
{
  int nu = jp->jp_nu;
  arena_t *a = jp->jp_b->lc_a;
  jp->jp_adj = arena_zalloc(a, (size_t)nu * (size_t)nu + 1);
  jp->jp_comp = arena_alloc(a, sizeof(int) * (size_t)(nu + 1));
  for (int i = 0; i < jp->jp_nconj; i++) {
    const jconj_t *c = &jp->jp_conj[i];
    if (c->jc_top || c->jc_local)
      continue;
    for (int x = 0; x < c->jc_nunits; x++)
      for (int y = 0; y < c->jc_nunits; y++)
        jp->jp_adj[c->jc_units[x] * nu + c->jc_units[y]] = true;
  }
  int *stack = arena_alloc(a, sizeof(int) * (size_t)(nu + 1));
  for (int u = 0; u < nu; u++)
    jp->jp_comp[u] = -1;
  for (int u = 0; u < nu; u++) {
    if (jp->jp_comp[u] >= 0)
      continue;
    int top = 0;
    stack[top++] = u;
    jp->jp_comp[u] = u;
    while (top > 0) {
      int v = stack[--top];
      for (int w = 0; w < nu; w++)
        if (jp->jp_adj[v * nu + w] && jp->jp_comp[w] < 0) {
          jp->jp_comp[w] = u;
          stack[top++] = w;
        }
    }
  }
}

/* Every left-deep order of up to JOIN_DP_MAX units without a cross
 * product inside a connected component: best[S] is the cheapest way to
 * join the set S, last[S] the unit it joins last (INFINITY: S cannot be
 * built so). False when the whole set cannot (the caller goes greedy). */
static bool order_dp(const jplan_t *jp, int *order)
{
  int n = jp->jp_nu;
  size_t nsets = (size_t)1 << n;
  arena_t *a = jp->jp_b->lc_a;
  double *best = arena_alloc(a, sizeof(double) * nsets);
  int *last = arena_alloc(a, sizeof(int) * nsets);
  double *rows = arena_alloc(a, sizeof(double) * nsets);
  bool in_set[JOIN_DP_MAX];
  for (size_t s = 1; s < nsets; s++) {
    for (int u = 0; u < n; u++)
      in_set[u] = (s >> u) & 1;
    rows[s] = set_rows(jp, in_set);
    best[s] = INFINITY;
    last[s] = -1;
    if ((s & (s - 1)) == 0) {
      int u = __builtin_ctzll(s);
      if (jp->jp_semi[u] > 0)
        continue;  /* a semi / anti join has a left side */
      best[s] = scan_cost(&jp->jp_units[u]) + jp->jp_units[u].pu_rows * COST_OUT;
      last[s] = u;
      continue;
    }
    /* from the last unit down: on a tie the order written wins */
    for (int u = n - 1; u >= 0; u--) {
      if (!((s >> u) & 1))
        continue;
      size_t prev = s & ~((size_t)1 << u);
      if (best[prev] == INFINITY)
        continue;
      in_set[u] = false;
      if (!unit_ready(jp, in_set, u) || !joins_without_cross(jp, in_set, u)) {
        in_set[u] = true;
        continue;
      }
      jmethod_t m;
      double c = best[prev] + step_cost(jp, in_set, rows[prev], u, &m);
      in_set[u] = true;
      if (c < best[s]) {
        best[s] = c;
        last[s] = u;
      }
    }
  }
  size_t s = nsets - 1;
  if (best[s] == INFINITY)
    return false;
  for (int k = n - 1; k >= 0; k--) {
    order[k] = last[s];
    s &= ~((size_t)1 << last[s]);
  }
  return true;
}

/* Beyond JOIN_DP_MAX: start with the smallest unit, then add the unit
 * whose step costs least among those that make no cross product (any
 * ready unit when none does). */
static void order_greedy(const jplan_t *jp, int *order)
{
  int n = jp->jp_nu;
  bool *in_set = arena_zalloc(jp->jp_b->lc_a, (size_t)n + 1);
  int first = -1;
  for (int u = 0; u < n; u++)
    if (jp->jp_semi[u] <= 0 && (first < 0 || jp->jp_units[u].pu_rows < jp->jp_units[first].pu_rows))
      first = u;
  order[0] = first;
  in_set[first] = true;
  double rows = jp->jp_units[first].pu_rows;
  for (int k = 1; k < n; k++) {
    int pick = -1;
    double pick_cost = INFINITY;
    for (int pass = 0; pass < 2 && pick < 0; pass++)
      for (int u = 0; u < n; u++) {
        if (in_set[u] || !unit_ready(jp, in_set, u) ||
            (pass == 0 && !joins_without_cross(jp, in_set, u)))
          continue;
        jmethod_t m;
        double c = step_cost(jp, in_set, rows, u, &m);
        if (c < pick_cost) {
          pick_cost = c;
          pick = u;
        }
      }
    order[k] = pick;
    in_set[pick] = true;
    rows = set_rows(jp, in_set);
  }
}

/* ---- building the operators ---------------------------------------------- */

/* Whether c, joining the next unit to the rows so far, adds nothing: the
 * columns of a class in the rows so far are equal already (every equality
 * among them has been applied), so once one equality of the class joins
 * the unit (taken[]), an implied one beside it is redundant. Written ones
 * always run. */
static bool ec_redundant(const jconj_t *c, bool *taken)
{
  if (c->jc_ec < 0)
    return false;
  if (c->jc_implied && taken[c->jc_ec])
    return true;
  taken[c->jc_ec] = true;
  return false;
}

/* EXPLAIN shows the estimates of the joins and of the units' inputs
 * (only when there was a choice to make). */
static void estimate(op_t *o, const jplan_t *jp, double rows, double cost)
{
  if (jp->jp_nu < 2)
    return;
  o->o_est_rows = rows;
  o->o_est_cost = cost;
}

static void need_col(void *ctx, xnode_t *col)
{
  ((bool *)ctx)[col->x_index] = true;
}

/* The unit's own input: a table scan with its conjuncts reading its
 * needed columns (outputs: those columns in table order), or the bound
 * input under a filter of its conjuncts (all its columns). cols[i] is the
 * block column of output i. */
static op_t *unit_input(jplan_t *jp, int u, int *ncols, int *cols)
{
  lp_ctx_t *b = jp->jp_b;
  const lp_rel_t *un = &jp->jp_fb->fb_units[u];
  /* the unit's own conjuncts over its columns, as estimated (a copy:
   * planning the scan takes some out) */
  const opt_unit_t *pu = &jp->jp_units[u];
  int nl = pu->pu_nown;
  xnode_t **local = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(nl + 1));
  if (nl)
    memcpy(local, pu->pu_own, sizeof(xnode_t *) * (size_t)nl);
  *ncols = 0;
  if (!un->un_table) {
    for (int c = 0; c < un->un_width; c++)
      cols[(*ncols)++] = un->un_base + c;
    op_t *in = un->un_op;  /* an explicit join: built by gen_units for the columns read */
    xnode_t *f = bd_and_all(b->lc_b, local, nl);
    return f ? op_filter_new(b->lc_a, in, f) : in;
  }
  const bool *need = jp->jp_units[u].pu_need;
  int nt = un->un_table->tb_ncols;
  for (int c = 0; c < nt; c++)
    if (need[c])
      cols[(*ncols)++] = un->un_base + c;
  if (un->un_rowid) {
    cols[(*ncols)++] = un->un_base + nt;
    return opt_scan_target(b, un->un_table, un->un_alias, local, nl, need);
  }
  const lp_block_t *fb = jp->jp_fb;
  if (jp->jp_nu == 1 && fb->fb_nord) {
    /* the only table: the order a LIMIT above wants, in its columns */
    sort_key_t *keys = arena_alloc(b->lc_a, sizeof(sort_key_t) * (size_t)fb->fb_nord);
    scan_wish_t w = {.sw_n = fb->fb_nord, .sw_keys = keys, .sw_limit = fb->fb_limit};
    for (int i = 0; i < fb->fb_nord && w.sw_n; i++) {
      keys[i] = fb->fb_order[i];
      keys[i].sk_col -= un->un_base;
      if (keys[i].sk_col < 0 || keys[i].sk_col >= nt)
        w.sw_n = 0;
    }
    return opt_scan_ordered(b, un->un_table, un->un_alias, local, nl, need, &w);
  }
  return opt_scan_compact(b, un->un_table, un->un_alias, local, nl, need);
}

/* Unit u joined by probing it once per row of the rows so far (acc,
 * whose layout pos gives): a LATERAL-style subplan (op_lateral) whose
 * scan has the probed table's own conjuncts and `column = $k`, $k the
 * value of the row so far, as key bounds (opt_scan.c takes the
 * longest index prefix they fix). The equalities also stay as a filter
 * over the joined rows (a NULL key value must find nothing, whatever
 * the key bound does with it). u's needed columns follow acc's. */
static op_t *probe_join(jplan_t *jp, int u, op_t *acc, const int *pos, const bool *used,
                        int *ncols, int *cols)
{
  lp_ctx_t *b = jp->jp_b;
  const lp_rel_t *un = &jp->jp_fb->fb_units[u];
  const sp_table_t *t = un->un_table;
  const opt_unit_t *pu = &jp->jp_units[u];
  xsubq_t *sq = arena_zalloc(b->lc_a, sizeof(*sq));
  sq->xs_parent = jp->jp_fb->fb_subq;
  xnode_t **conj = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(pu->pu_nown + jp->jp_nconj + 1));
  int n = pu->pu_nown;
  if (n)
    memcpy(conj, pu->pu_own, sizeof(xnode_t *) * (size_t)n);
  int nk = 0;
  for (int i = 0; i < jp->jp_nconj; i++)
    if (used[i])
      nk++;
  sq->xs_corr = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(nk + 1));
  for (int i = 0; i < jp->jp_nconj; i++) {
    if (!used[i])
      continue;
    const xnode_t *x = jp->jp_conj[i].jc_x;
    int a = x->x_args[0]->x_index, d = x->x_args[1]->x_index;
    int mine = jp->jp_unit_of[a] == u ? a : d, other = mine == a ? d : a;
    ty_t ty = x->x_args[0]->x_type;
    sq->xs_corr[sq->xs_ncorr] = bd_col(b->lc_b, pos[other], ty);
    xnode_t *p = bd_param_corr(b->lc_b, ty, sq->xs_ncorr++);
    xnode_t *eq;
    if (bd_op(b->lc_b, XOP_EQ, bd_col(b->lc_b, mine - un->un_base, ty), p, x->x_pos, &eq) != CZ_OK)
      return NULL;
    conj[n++] = eq;
  }
  bd_subq_register(b->lc_b, sq);
  *ncols = 0;
  for (int c = 0; c < t->tb_ncols; c++)
    if (pu->pu_need[c])
      cols[(*ncols)++] = un->un_base + c;
  sq->xs_plan = opt_scan_compact(b, t, un->un_alias, conj, n, pu->pu_need);
  return op_lateral_new(b->lc_a, acc, sq, JOIN_INNER);
}

/* Unit u joined to acc (the rows so far, whose layout pos gives) by an
 * index lookup join through ip: the table's needed columns fetched after
 * acc's (for a SEMI / ANTI unit only those its conditions read; they do
 * not stay in the row), the unit's own conjuncts and the other conjuncts
 * the step completes its residual. Updates pos, *acc_w, in_set, done. */
static op_t *agg_join(jplan_t *jp, int u, op_t *acc, const ixpick_t *ip, int *pos, int *acc_w,
                      bool *in_set, bool *done);

static op_t *index_join(jplan_t *jp, int u, op_t *acc, const ixpick_t *ip, int *pos, int *acc_w,
                        bool *in_set, bool *done, bool *ec_taken)
{
  if (jp->jp_aggl[u])
    return agg_join(jp, u, acc, ip, pos, acc_w, in_set, done);
  lp_ctx_t *b = jp->jp_b;
  const lp_block_t *fb = jp->jp_fb;
  const lp_rel_t *un = &fb->fb_units[u];
  const sp_table_t *t = look_table(jp, u);
  bool semi = un->un_kind != JOIN_INNER;
  int nt = t->tb_ncols;
  bool *need = arena_zalloc(b->lc_a, (size_t)nt + 1);
  bool *key = arena_zalloc(b->lc_a, (size_t)jp->jp_nconj + 1);
  bool *mine = arena_zalloc(b->lc_a, (size_t)jp->jp_nconj + 1);
  int nc = index_need(jp, in_set, u, ip, done, mine, key, need);
  in_set[u] = true;
  /* conjuncts of the units before that this step completes too (none
   * in practice: each is done where its last unit joins) */
  for (int i = 0; i < jp->jp_nconj; i++)
    mine[i] = mine[i] || (!done[i] && !jp->jp_conj[i].jc_top && conj_within(&jp->jp_conj[i], in_set));
  xnode_t **own = semi ? un->un_look_own : jp->jp_units[u].pu_own;
  int nown = semi ? un->un_look_nown : jp->jp_units[u].pu_nown;
  int *tcols = arena_alloc(b->lc_a, sizeof(int) * (size_t)nc);
  ty_t *types = arena_alloc(b->lc_a, sizeof(ty_t) * (size_t)nc);
  int *tpos = arena_alloc(b->lc_a, sizeof(int) * (size_t)(nt + 1));  /* table column -> row */
  nc = 0;
  for (int c = 0; c < nt; c++) {
    tpos[c] = -1;
    if (!need[c])
      continue;
    tpos[c] = *acc_w + nc;
    types[nc] = t->tb_coltypes[c];
    tcols[nc++] = c;
  }
  for (int c = 0; c < un->un_width; c++)
    pos[un->un_base + c] = tpos[look_tcol(jp, u, un->un_base + c)];
  int lk[32];
  datum_t kconst[32];
  ty_t ktypes[32];
  const char **names = arena_alloc(b->lc_a, sizeof(char *) * (size_t)ip->ip_nk);
  for (int k = 0; k < ip->ip_nk; k++) {
    lk[k] = ip->ip_const[k] ? -1 : pos[ip->ip_other[k]];
    if (ip->ip_const[k]) {
      kconst[k] = ip->ip_const[k]->x_const;
      ktypes[k] = ip->ip_const[k]->x_type;
    }
    names[k] = t->tb_colnames[ip->ip_tcol[k]];
  }
  xnode_t **rest = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(jp->jp_nconj + nown + 1));
  int nrest = 0;
  for (int i = 0; i < nown; i++)
    rest[nrest++] = bd_node_remap(b->lc_b, own[i], tpos);  /* over the table's columns */
  memset(ec_taken, 0, (size_t)fb->fb_nec + 1);
  for (int i = 0; i < jp->jp_nconj; i++)
    if (key[i])
      (void)ec_redundant(&jp->jp_conj[i], ec_taken);
  for (int i = 0; i < jp->jp_nconj; i++) {
    if (!mine[i])
      continue;
    done[i] = true;
    const jconj_t *c = &jp->jp_conj[i];
    if (key[i] || (c->jc_local && !semi) || ec_redundant(c, ec_taken))
      continue;  /* (an inner unit's own conjuncts are pu_own, above) */
    rest[nrest++] = bd_node_remap(b->lc_b, c->jc_x, pos);
  }
  op_t *o = op_index_join_new(b->lc_a, acc, un->un_kind, t->tb_handle, t->tb_name, ip->ip_index,
                              ip->ip_name, ip->ip_nk, lk, names, nc, tcols, types,
                              bd_and_all(b->lc_b, rest, nrest));
  if (ip->ip_njoin < ip->ip_nk)
    op_index_join_set_consts(o, b->lc_a, kconst, ktypes);
  if (semi)
    for (int c = 0; c < un->un_width; c++)
      pos[un->un_base + c] = -1;  /* its columns were only for the conditions */
  else
    *acc_w += nc;
  return o;
}

/* Whether x reads block column vcol. */
static bool agg_reads_value(const jplan_t *jp, const xnode_t *x, int vcol)
{
  if (x->x_kind == X_COL && x->x_index == vcol)
    return true;
  for (int i = 0; i < x->x_nargs; i++)
    if (agg_reads_value(jp, x->x_args[i], vcol))
      return true;
  return false;
}

/* Unit u, a scalar aggregate, computed for each row of acc by an Index
 * Lookup Aggregate through ip (exec.h op_index_agg_new): its own
 * conjuncts and the key equalities the probe does not give run on the
 * rows found, the conjuncts reading its value (the comparison) filter
 * the rows after. Its value is the one column it adds. */
static op_t *agg_join(jplan_t *jp, int u, op_t *acc, const ixpick_t *ip, int *pos, int *acc_w,
                      bool *in_set, bool *done)
{
  lp_ctx_t *b = jp->jp_b;
  const lp_rel_t *un = &jp->jp_fb->fb_units[u];
  const sp_table_t *t = un->un_look_table;
  int nt = t->tb_ncols, nleft = *acc_w;
  bool *need = arena_zalloc(b->lc_a, (size_t)nt + 1);
  agg_need(un, need);
  int *tcols = arena_alloc(b->lc_a, sizeof(int) * (size_t)(nt + 1));
  ty_t *types = arena_alloc(b->lc_a, sizeof(ty_t) * (size_t)(nt + 1));
  int *tpos = arena_alloc(b->lc_a, sizeof(int) * (size_t)(nt + 1));  /* table column -> pair row */
  int nc = 0;
  for (int c = 0; c < nt; c++) {
    tpos[c] = -1;
    if (!need[c])
      continue;
    tpos[c] = nleft + nc;
    types[nc] = t->tb_coltypes[c];
    tcols[nc++] = c;
  }
  int width = un->un_base + un->un_width;
  for (int v = 0; v < jp->jp_nu; v++)
    width = CZ_MAX(width, jp->jp_fb->fb_units[v].un_base + jp->jp_fb->fb_units[v].un_width);
  int *map = arena_alloc(b->lc_a, sizeof(int) * (size_t)(width + 1));  /* block column -> pair row */
  memcpy(map, pos, sizeof(int) * (size_t)width);
  for (int c = 0; c < un->un_width; c++)
    map[un->un_base + c] = un->un_look_col[c] >= 0 ? tpos[un->un_look_col[c]] : -1;
  bool *key = arena_zalloc(b->lc_a, (size_t)jp->jp_nconj + 1);
  for (int k = 0; k < ip->ip_nk; k++)
    key[ip->ip_conj[k]] = true;
  xnode_t **rest = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(jp->jp_nconj + un->un_look_nown + 1));
  xnode_t **post = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(jp->jp_nconj + 1));
  int nrest = 0, npost = 0;
  for (int i = 0; i < un->un_look_nown; i++)
    rest[nrest++] = bd_node_remap(b->lc_b, un->un_look_own[i], tpos);
  int *lk = arena_alloc(b->lc_a, sizeof(int) * (size_t)(ip->ip_nk + 1));
  const char **names = arena_alloc(b->lc_a, sizeof(char *) * (size_t)(ip->ip_nk + 1));
  for (int k = 0; k < ip->ip_nk; k++) {
    lk[k] = pos[ip->ip_other[k]];
    names[k] = t->tb_colnames[ip->ip_tcol[k]];
  }
  agg_spec_t *specs = arena_alloc(b->lc_a, sizeof(agg_spec_t) * (size_t)(un->un_agg_n + 1));
  for (int i = 0; i < un->un_agg_n; i++) {
    specs[i] = un->un_agg_specs[i];
    if (specs[i].ag_arg)
      specs[i].ag_arg = bd_node_remap(b->lc_b, specs[i].ag_arg, tpos);
  }
  /* the value: its column after the left's (the unit's last) */
  int vcol = un->un_base + un->un_width - 1;
  for (int c = 0; c < un->un_width; c++)
    pos[un->un_base + c] = -1;
  pos[vcol] = nleft;
  in_set[u] = true;
  for (int i = 0; i < jp->jp_nconj; i++) {
    const jconj_t *c = &jp->jp_conj[i];
    if (done[i] || c->jc_top || !conj_within(c, in_set))
      continue;
    done[i] = true;
    if (key[i])
      continue;
    if (conj_uses(c, u) && !agg_reads_value(jp, c->jc_x, vcol))
      rest[nrest++] = bd_node_remap(b->lc_b, c->jc_x, map);  /* a key equality */
    else
      post[npost++] = bd_node_remap(b->lc_b, c->jc_x, pos);
  }
  xnode_t *val = un->un_agg_val;
  op_t *o = op_index_agg_new(b->lc_a, acc, t->tb_handle, t->tb_name, ip->ip_index, ip->ip_name, ip->ip_nk,
                             lk, names, nc, tcols, types, bd_and_all(b->lc_b, rest, nrest),
                             un->un_agg_n, specs, 1, &val);
  *acc_w += 1;
  xnode_t *f = bd_and_all(b->lc_b, post, npost);
  return f ? op_filter_new(b->lc_a, o, f) : o;
}

/* Whether every conjunct reading scalar aggregate unit u reads either
 * its value or is `outer column = its key` (then a probe key or compared
 * on the rows found): its keys are not in the Index Lookup Aggregate's
 * output. */
static bool agg_conjs_ok(const jplan_t *jp, int u)
{
  const lp_rel_t *un = &jp->jp_fb->fb_units[u];
  int vcol = un->un_base + un->un_width - 1;
  for (int i = 0; i < jp->jp_nconj; i++) {
    const jconj_t *c = &jp->jp_conj[i];
    int a, d;
    if (!conj_uses(c, u) || agg_reads_value(jp, c->jc_x, vcol))
      continue;
    if (c->jc_top || c->jc_nunits != 2 || !col_equality(jp, c->jc_x, &a, &d))
      return false;
    int mine = jp->jp_unit_of[a] == u ? a : d;
    if (un->un_look_col[mine - un->un_base] < 0)
      return false;
  }
  return true;
}

/* Decorrelated scalar aggregates over one table (un_agg_n) whose keys
 * give a prefix of one of its indexes: computed for each outer row by an
 * Index Lookup Aggregate — the distinct keys of a batch of outer rows
 * probe the index once — when that reads less than grouping the whole
 * filtered table and hash-joining it (TPC-H Q20's sum over lineitem per
 * (part, supplier) of 8,500 partsupp rows; Q17's avg per part), and
 * always when the grouped join would be wrong (un_agg_only: count()).
 * Such a unit joins like a SEMI one (after the units its conjuncts read,
 * keeping every row). An un_agg_only unit without such an index stays
 * per row (keep; returns true). */
static bool agg_lookups(jplan_t *jp, bool *keep)
{
  bool *in_set = arena_zalloc(jp->jp_b->lc_a, (size_t)jp->jp_nu + 1);
  bool any = false;
  for (int u = 0; u < jp->jp_nu; u++) {
    const lp_rel_t *un = &jp->jp_fb->fb_units[u];
    if (un->un_agg_n == 0)
      continue;
    /* the rows reaching it: every other unit's (the decorrelated ones
     * filter: a semi join, an IN over a unique column joined) */
    for (int v = 0; v < jp->jp_nu; v++)
      in_set[v] = v != u;
    ixpick_t ip;
    if (!agg_conjs_ok(jp, u) || !index_pick(jp, in_set, u, &ip)) {
      if (un->un_agg_only) {
        keep[un->un_src_conj] = true;
        any = true;
      }
      continue;
    }
    double outer = set_rows(jp, in_set);
    double look = index_cost(jp, in_set, u, &ip, outer);
    double sub = un->un_sub_rows > 0 ? un->un_sub_rows : OPT_DEFAULT_ROWS;
    double grouped = opt_table_rows(jp->jp_b, un->un_look_table) * COST_SCAN + sub * COST_BUILD +
                     un->un_sub_cost + outer * COST_PROBE;
    /* where keep_per_row would run the subquery per row, the batched
     * lookup reads what those runs read, without a run per row: always
     * better (the rows it finds per key are estimated from the first key
     * column only, high when more keys are given) */
    double per_row = outer * CZ_MAX(COST_SUBQ_ROW, un->un_row_cost);
    if (!un->un_agg_only && grouped <= look && per_row >= sub * (COST_SCAN + COST_BUILD) + un->un_sub_cost)
      continue;
    jp->jp_aggl[u] = true;
    jp->jp_semi[u] = 1;
    for (int i = 0; i < jp->jp_nconj; i++)
      if (conj_uses(&jp->jp_conj[i], u))
        jp->jp_conj[i].jc_semi = true;
  }
  return any;
}

/* Whether x's subqueries are all uncorrelated (their value is the same
 * for every row: computed once per execution and cached). */
static bool subq_uncorrelated(const xnode_t *x)
{
  if (x->x_kind == X_SUBQ && x->x_subq && ((const xsubq_t *)x->x_subq)->xs_ncorr > 0)
    return false;
  for (int i = 0; i < x->x_nargs; i++)
    if (!subq_uncorrelated(x->x_args[i]))
      return false;
  return true;
}

/* What EXPLAIN says of a filter holding subqueries: each correlated
 * one runs per row reaching it, uncorrelated ones once per execution. */
static const char *subq_why(const xnode_t *x)
{
  if (!x || !bd_node_has_subq(x))
    return NULL;
  return subq_uncorrelated(x) ? "InitPlan (once)" : "SubPlan (per row)";
}

/* The step that joined unit un to prev (the rows before it) made acc:
 * when un is a decorrelated subquery, EXPLAIN names it on the step's
 * join — the operator over prev, under the filters the step added — or
 * on the unit's plan when it is the first (an inner unit may be). */
static void why_step(lp_ctx_t *b, op_t *acc, const op_t *prev, const lp_rel_t *un)
{
  if (!un->un_decor || !acc)
    return;
  op_t *o = acc;
  while (prev && o->o_in && o->o_in != prev)
    o = o->o_in;
  if (prev && o->o_in != prev)
    o = acc;  /* the sides swapped (a build on the rows so far): the top */
  o->o_why = arena_sprintf(b->lc_a, "decorrelated %s", un->un_decor);
}

/* The conjuncts left for after all joins (they hold subqueries) that
 * read only the units joined so far and whose subqueries are
 * uncorrelated filter the rows as soon as those units are joined, so the
 * joins after them (an index lookup per row, a hash probe) see fewer rows
 * (TPC-H Q22's c_acctbal > (SELECT avg …) before its NOT EXISTS). */
static op_t *early_top(jplan_t *jp, op_t *acc, const int *pos, const bool *in_set, bool *done)
{
  lp_ctx_t *b = jp->jp_b;
  xnode_t **x = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(jp->jp_nconj + 1));
  int n = 0;
  for (int i = 0; i < jp->jp_nconj; i++) {
    const jconj_t *c = &jp->jp_conj[i];
    if (done[i] || !c->jc_top || c->jc_nunits == 0 || !conj_within(c, in_set) ||
        !subq_uncorrelated(c->jc_x))
      continue;
    done[i] = true;
    x[n++] = bd_node_remap(b->lc_b, c->jc_x, pos);
  }
  xnode_t *f = bd_and_all(b->lc_b, x, n);
  if (!f)
    return acc;
  op_t *o = op_filter_new(b->lc_a, acc, f);
  o->o_why = subq_why(f);
  return o;
}

/* Decorrelated subqueries that would be an index probe per outer row:
 * when the rows reaching them are few, probing per row reads less than
 * hashing the whole subquery; such a unit's conjunct is marked to stay
 * per row (fb_keep) and the block is planned again. One run per row
 * costs at least COST_SUBQ_ROW, more when its own plan joins tables
 * (TPC-H Q2's min() subquery hashes supplier on every run: per row it
 * is 5x slower than grouped once); the joined form costs its rows read
 * and hashed plus its own joins. */
static bool keep_per_row(jplan_t *jp, int bwidth, bool *keep)
{
  bool *in_set = arena_zalloc(jp->jp_b->lc_a, (size_t)jp->jp_nu + 1);
  bool any = false;
  for (int u = 0; u < jp->jp_nu; u++) {
    const lp_rel_t *un = &jp->jp_fb->fb_units[u];
    if (un->un_base < bwidth || !un->un_probe)
      continue;
    /* the rows reaching it: the block's units and the other semi / anti
     * joins, which only filter */
    for (int v = 0; v < jp->jp_nu; v++)
      in_set[v] = v != u && (jp->jp_fb->fb_units[v].un_base < bwidth || jp->jp_semi[v] > 0);
    /* probing its table's index a batch of rows at a time costs less
     * than a subquery run per row, always */
    ixpick_t ip;
    if (index_pick(jp, in_set, u, &ip))
      continue;
    double outer = set_rows(jp, in_set);
    double sub = un->un_sub_rows > 0 ? un->un_sub_rows : OPT_DEFAULT_ROWS;
    double per_row = CZ_MAX(COST_SUBQ_ROW, un->un_row_cost);
    if (outer * per_row < sub * (COST_SCAN + COST_BUILD) + un->un_sub_cost) {
      keep[un->un_src_conj] = true;
      any = true;
    }
  }
  return any;
}

/* Estimates of the block's own units, kept for a second plan (their
 * conjuncts do not change; sampling twice would cost twice). */
typedef struct est_cache_s {
  int ec_n;                     /* units estimated (the block's own), 0 = none yet */
  opt_unit_t *ec_units;
} est_cache_t;

static int plan_block(lp_ctx_t *b, lp_block_t *fb, bool *keep, bool *redo, est_cache_t *ec,
                      op_t **out);

typedef struct unit_cols_s {
  bool *uc_need;
  int uc_base, uc_width;
} unit_cols_t;

static void unit_col(void *ctx, xnode_t *col)
{
  unit_cols_t *m = ctx;
  int c = col->x_index - m->uc_base;
  if (c >= 0 && c < m->uc_width)
    m->uc_need[c] = true;
}

/* The units that are logical nodes generated, once, for the columns the
 * block reads (its expressions and every conjunct, so also the conjuncts
 * implied from them later): a derived table's query (opt_prune.c), an
 * explicit join (opt_outer.c; its derived sides pruned likewise). From
 * here on those operators are the unit's input (un_op), which the
 * estimates read (a derived table counts the rows its plan estimated). */
static int gen_units(lp_ctx_t *b, lp_block_t *fb)
{
  for (int u = 0; u < fb->fb_nunits; u++) {
    lp_rel_t *un = &fb->fb_units[u];
    if (un->un_op || !(un->un_node || un->un_outer))
      continue;
    bool *need = NULL;
    if (fb->fb_used) {
      need = arena_alloc(b->lc_a, (size_t)un->un_width + 1);
      for (int c = 0; c < un->un_width; c++) {
        int bc = un->un_base + c;
        need[c] = bc < fb->fb_used_cap && fb->fb_used[bc];
      }
      unit_cols_t m = {need, un->un_base, un->un_width};
      for (int i = 0; i < fb->fb_nconj; i++)
        bd_node_cols(fb->fb_conj[i], unit_col, &m);
    }
    if (un->un_node) {
      const lp_node_t *n = need ? opt_prune_derived(b, un->un_node, need) : un->un_node;
      if (opt_gen_query(b, n, &un->un_op) != CZ_OK)
        return CZ_ERR;
    }
    if (un->un_outer && !(un->un_op = opt_outer_build(b, un->un_outer, need)))
      return CZ_ERR;
  }
  return CZ_OK;
}

int opt_block_plan(lp_ctx_t *b, lp_block_t *fb, op_t **out)
{
  /* LATERAL units are joined to what they read first (opt_lateral.c) */
  if (opt_lateral_fold(b, fb) != CZ_OK || gen_units(b, fb) != CZ_OK)
    return CZ_ERR;
  /* decorrelation changes fb; a second plan starts from it as bound */
  int nconj0 = fb->fb_nconj, nu0 = fb->fb_nunits;
  xnode_t **conj0 = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(nconj0 + 1));
  if (nconj0)
    memcpy(conj0, fb->fb_conj, sizeof(xnode_t *) * (size_t)nconj0);
  bool *keep = arena_zalloc(b->lc_a, (size_t)nconj0 + 1);
  fb->fb_keep = keep;
  est_cache_t ec = {0};
  for (;;) {
    bool redo = false;
    if (plan_block(b, fb, keep, &redo, &ec, out) != CZ_OK)
      return CZ_ERR;
    if (!redo)
      return CZ_OK;
    if (nconj0)
      memcpy(fb->fb_conj, conj0, sizeof(xnode_t *) * (size_t)nconj0);
    fb->fb_nconj = nconj0;
    fb->fb_nunits = nu0;
  }
}

static int plan_block(lp_ctx_t *b, lp_block_t *fb, bool *keep, bool *redo, est_cache_t *ec,
                      op_t **out)
{
  int nu = fb->fb_nunits, nu_own = fb->fb_nunits;
  if (nu == 0) {
    /* SELECT without FROM: one row (of one unused column). */
    xnode_t ***rows = arena_alloc(b->lc_a, sizeof(xnode_t **));
    rows[0] = arena_alloc(b->lc_a, sizeof(xnode_t *));
    rows[0][0] = bd_const_i64(b->lc_b, TY_INT4, 0);
    ty_t t = ty_plain(TY_INT4);
    op_t *v = op_values_new(b->lc_a, 1, &t, 1, rows);
    xnode_t *c = bd_and_all(b->lc_b, fb->fb_conj, fb->fb_nconj);
    *out = c ? op_filter_new(b->lc_a, v, c) : v;
    return CZ_OK;
  }
  if (lp_decorrelate(b, fb) != CZ_OK)  /* sql_bind_decor.c */
    return CZ_ERR;
  nu = fb->fb_nunits;
  jplan_t jp = {.jp_b = b, .jp_fb = fb, .jp_nu = nu};
  /* the block's row, then the columns of semi / anti units */
  int bwidth = fb->fb_width, width = bwidth;
  for (int u = 0; u < nu; u++)
    width = CZ_MAX(width, fb->fb_units[u].un_base + fb->fb_units[u].un_width);
  jp.jp_unit_of = arena_alloc(b->lc_a, sizeof(int) * (size_t)(width + 1));
  for (int u = 0; u < nu; u++)
    for (int c = 0; c < fb->fb_units[u].un_width; c++)
      jp.jp_unit_of[fb->fb_units[u].un_base + c] = u;
  opt_or_factor(b, fb, jp.jp_unit_of);  /* opt_or.c */
  /* equivalence classes, and the equalities they imply (sql_logical_ec.c) */
  if (lp_eclasses(b, fb) != CZ_OK)
    return CZ_ERR;
  /* which units each conjunct reads */
  jp.jp_nconj = fb->fb_nconj;
  jp.jp_conj = arena_zalloc(b->lc_a, sizeof(jconj_t) * (size_t)(fb->fb_nconj + 1));
  jp.jp_uf = arena_alloc(b->lc_a, sizeof(int) * (size_t)(nu + 1));
  bool *seen = arena_alloc(b->lc_a, (size_t)nu + 1);
  for (int i = 0; i < fb->fb_nconj; i++) {
    jconj_t *c = &jp.jp_conj[i];
    c->jc_x = fb->fb_conj[i];
    memset(seen, 0, (size_t)nu);
    opt_conj_units(c->jc_x, jp.jp_unit_of, seen);
    c->jc_units = arena_alloc(b->lc_a, sizeof(int) * (size_t)(nu + 1));
    for (int u = 0; u < nu; u++)
      if (seen[u])
        c->jc_units[c->jc_nunits++] = u;
    c->jc_top = bd_node_has_subq(c->jc_x) || c->jc_nunits == 0;
    c->jc_local = !c->jc_top && c->jc_nunits == 1;
    c->jc_ec = !c->jc_top && c->jc_nunits == 2 ? fb->fb_conj_ec[i] : -1;
    c->jc_implied = i >= fb->fb_nconj - fb->fb_nderived && c->jc_ec >= 0;
    for (int k = 0; k < c->jc_nunits; k++)
      c->jc_semi |= fb->fb_units[c->jc_units[k]].un_kind != JOIN_INNER;
  }
  /* estimates (and the columns each table reads) */
  jp.jp_units = arena_zalloc(b->lc_a, sizeof(opt_unit_t) * (size_t)(nu + 1));
  for (int u = 0; u < nu; u++) {
    xnode_t **local = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(fb->fb_nconj + 1));
    int nl = 0;
    for (int i = 0; i < jp.jp_nconj; i++)
      if (jp.jp_conj[i].jc_local && jp.jp_conj[i].jc_units[0] == u)
        local[nl++] = jp.jp_conj[i].jc_x;
    if (u < ec->ec_n) {
      jp.jp_units[u] = ec->ec_units[u];
      continue;
    }
    if (opt_unit_estimate(b, fb, &fb->fb_units[u], local, nl, nu > 1 || fb->fb_estimate,
                         &jp.jp_units[u]) != CZ_OK)
      return CZ_ERR;
  }
  /* a decorrelated scalar subquery grouped by its keys has at most a
   * row per input row; its keys are unique, so an outer column equal to
   * one (1 / max(distinct values), the unit's rows for its side) keeps
   * each outer row about once, not OPT_DEFAULT_ROWS-times-off */
  for (int u = 0; u < nu; u++) {
    const lp_rel_t *un = &fb->fb_units[u];
    if (un->un_kind == JOIN_INNER && !un->un_table && un->un_sub_rows > 0 && u >= ec->ec_n)
      jp.jp_units[u].pu_rows = jp.jp_units[u].pu_read = jp.jp_units[u].pu_total =
          CZ_MAX(un->un_sub_rows, 1.0);
  }
  for (int i = 0; i < jp.jp_nconj; i++)
    if (!jp.jp_conj[i].jc_top && !jp.jp_conj[i].jc_local)
      jp.jp_conj[i].jc_sel = opt_join_sel(b, fb, jp.jp_units, jp.jp_unit_of, jp.jp_conj[i].jc_x);
  composite_keys(&jp);
  for (int i = 0; i < jp.jp_nconj; i++)
    if (jp.jp_conj[i].jc_ec >= 0 && fb->fb_ec[jp.jp_conj[i].jc_ec].ec_const)
      jp.jp_conj[i].jc_sel = 1;  /* both sides filter on the class's value already */
  /* a semi join keeps the outer rows with a partner: about rows(u) times
   * the keys' selectivity, at most all; an anti join the others */
  jp.jp_semi = arena_zalloc(b->lc_a, sizeof(double) * (size_t)(nu + 1));
  for (int u = 0; u < nu; u++) {
    const lp_rel_t *un = &fb->fb_units[u];
    if (un->un_kind == JOIN_INNER)
      continue;
    if (un->un_sub_rows > 0)
      jp.jp_units[u].pu_rows = un->un_sub_rows;
    double f = jp.jp_units[u].pu_rows;
    for (int i = 0; i < jp.jp_nconj; i++)
      if (jp.jp_conj[i].jc_semi && conj_uses(&jp.jp_conj[i], u))
        f *= jp.jp_conj[i].jc_sel > 0 ? jp.jp_conj[i].jc_sel : 0.1;
    f = CZ_MIN(CZ_MAX(f, 0.05), 1.0);
    jp.jp_semi[u] = un->un_kind == JOIN_SEMI ? f : CZ_MAX(1.0 - f, 0.05);
  }
  jp.jp_ixm = arena_zalloc(b->lc_a, sizeof(double) * (size_t)(nu + 1));
  jp.jp_aggl = arena_zalloc(b->lc_a, (size_t)nu + 1);
  bool kept = agg_lookups(&jp, keep);
  if (keep_per_row(&jp, bwidth, keep) || kept) {
    ec->ec_n = nu_own;
    ec->ec_units = jp.jp_units;
    *redo = true;
    return CZ_OK;
  }
  jp.jp_scratch = arena_alloc(b->lc_a, (size_t)jp.jp_nconj + 1);
  join_graph(&jp);
  /* the order */
  int *order = arena_alloc(b->lc_a, sizeof(int) * (size_t)(nu + 1));
  if (nu == 1)
    order[0] = 0;
  else if (nu > JOIN_DP_MAX || !order_dp(&jp, order))
    order_greedy(&jp, order);
  /* the operators, in that order; pos[c] is block column c's place in
   * the rows built so far (-1: not read) */
  int *pos = arena_alloc(b->lc_a, sizeof(int) * (size_t)(width + 1));
  for (int c = 0; c < width; c++)
    pos[c] = -1;
  bool *in_set = arena_zalloc(b->lc_a, (size_t)nu + 1);
  bool *done = arena_zalloc(b->lc_a, (size_t)jp.jp_nconj + 1);
  int *ucols = arena_alloc(b->lc_a, sizeof(int) * (size_t)(width + 1));
  bool *used = arena_alloc(b->lc_a, (size_t)jp.jp_nconj + 1);
  bool *ec_taken = arena_alloc(b->lc_a, (size_t)fb->fb_nec + 1);
  op_t *acc = NULL;
  int acc_w = 0;
  double rows = 0, cost = 0;
  op_t *prev = NULL;             /* the rows before the last step */
  for (int k = 0; k < nu; k++) {
    int u = order[k];
    const lp_rel_t *un = &fb->fb_units[u];
    jmethod_t m = JM_HASH;
    int lk[32];
    if (k > 0)
      why_step(b, acc, prev, &fb->fb_units[order[k - 1]]);
    if (k > 0)
      acc = early_top(&jp, acc, pos, in_set, done);
    prev = acc;
    if (k > 0)
      (void)step_cost(&jp, in_set, rows, u, &m);
    if (m == JM_LOOKUP && lookup_keys(&jp, in_set, u, lk, used)) {
      /* the unit's needed columns come from the lookup; its own
       * conjuncts and the step's others are the residual */
      const sp_table_t *t = un->un_table;
      const bool *need = jp.jp_units[u].pu_need;
      int nc = 0;
      int *tcols = arena_alloc(b->lc_a, sizeof(int) * (size_t)(t->tb_ncols + 1));
      ty_t *types = arena_alloc(b->lc_a, sizeof(ty_t) * (size_t)(t->tb_ncols + 1));
      for (int c = 0; c < t->tb_ncols; c++)
        if (need[c]) {
          pos[un->un_base + c] = acc_w + nc;
          types[nc] = t->tb_coltypes[c];
          tcols[nc++] = c;
        }
      for (int kk = 0; kk < t->tb_npk; kk++)
        lk[kk] = pos[lk[kk]];
      in_set[u] = true;
      xnode_t **rest = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(jp.jp_nconj + 1));
      int nrest = 0;
      memset(ec_taken, 0, (size_t)fb->fb_nec + 1);
      for (int i = 0; i < jp.jp_nconj; i++)
        if (used[i])
          (void)ec_redundant(&jp.jp_conj[i], ec_taken);
      for (int i = 0; i < jp.jp_nconj; i++) {
        jconj_t *c = &jp.jp_conj[i];
        if (done[i] || c->jc_top || used[i] || !conj_within(c, in_set))
          continue;
        done[i] = true;
        if (!ec_redundant(c, ec_taken))
          rest[nrest++] = bd_node_remap(b->lc_b, c->jc_x, pos);
      }
      acc = op_lookup_join_new(b->lc_a, acc, JOIN_INNER, t->tb_npk, lk, t->tb_handle, t->tb_name,
                               nc, tcols, types, bd_and_all(b->lc_b, rest, nrest));
      for (int i = 0; i < jp.jp_nconj; i++)
        done[i] = done[i] || used[i];
      acc_w += nc;
      cost += rows * COST_LOOKUP;
      rows = set_rows(&jp, in_set);
      cost += rows * COST_OUT;
      estimate(acc, &jp, rows, cost);
      continue;
    }
    ixpick_t ip;
    if (m == JM_INDEX && index_pick(&jp, in_set, u, &ip)) {
      if (!(acc = index_join(&jp, u, acc, &ip, pos, &acc_w, in_set, done, ec_taken)))
        return CZ_ERR;
      in_set[u] = false;
      cost += index_cost(&jp, in_set, u, &ip, rows);
      in_set[u] = true;
      rows = set_rows(&jp, in_set);
      cost += rows * COST_OUT;
      estimate(acc, &jp, rows, cost);
      continue;
    }
    double ksel = m == JM_PROBE ? probe_keys(&jp, in_set, u, used) : 0;
    if (ksel > 0) {
      int nuc;
      acc = probe_join(&jp, u, acc, pos, used, &nuc, ucols);
      if (!acc)
        return CZ_ERR;
      for (int i = 0; i < nuc; i++)
        pos[ucols[i]] = acc_w + i;
      acc_w += nuc;
      in_set[u] = true;
      /* its own conjuncts ran in the probe; the rest that it completes
       * (the key equalities among them) filter the joined rows */
      xnode_t **rest = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(jp.jp_nconj + 1));
      int nrest = 0;
      memset(ec_taken, 0, (size_t)fb->fb_nec + 1);
      for (int i = 0; i < jp.jp_nconj; i++) {
        jconj_t *c = &jp.jp_conj[i];
        if (done[i] || c->jc_top || !conj_within(c, in_set))
          continue;
        done[i] = true;
        if (!c->jc_local && !ec_redundant(c, ec_taken))
          rest[nrest++] = bd_node_remap(b->lc_b, c->jc_x, pos);
      }
      xnode_t *cond = bd_and_all(b->lc_b, rest, nrest);
      if (cond)
        acc = op_filter_new(b->lc_a, acc, cond);
      cost += rows * COST_SUBQ_ROW + rows * jp.jp_units[u].pu_total * ksel * COST_LOOKUP;
      rows = set_rows(&jp, in_set);
      cost += rows * COST_OUT;
      estimate(acc, &jp, rows, cost);
      continue;
    }
    int nuc;
    op_t *in = unit_input(&jp, u, &nuc, ucols);
    const opt_unit_t *pu = &jp.jp_units[u];
    estimate(in, &jp, pu->pu_rows, scan_cost(pu));
    for (int i = 0; i < jp.jp_nconj; i++)
      if (jp.jp_conj[i].jc_local && jp.jp_conj[i].jc_units[0] == u)
        done[i] = true;
    if (k == 0) {
      acc = in;
      for (int i = 0; i < nuc; i++)
        pos[ucols[i]] = i;
      acc_w = nuc;
      in_set[u] = true;
      rows = set_rows(&jp, in_set);
      cost = scan_cost(pu) + rows * COST_OUT;
      continue;
    }
    for (int i = 0; i < nuc; i++)
      pos[ucols[i]] = acc_w + i;
    in_set[u] = true;
    int hl[32], hr[32], nk = 0;
    xnode_t *hx[32];              /* each key pair's equality, over the joined row */
    xnode_t **rest = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(jp.jp_nconj + 1));
    int nrest = 0;
    /* the columns of a class in the rows so far are equal already (every
     * equality among them has been applied), so one of its equalities
     * joins u: an implied one beside it adds nothing */
    memset(ec_taken, 0, (size_t)fb->fb_nec + 1);
    for (int i = 0; i < jp.jp_nconj; i++) {
      jconj_t *c = &jp.jp_conj[i];
      if (done[i] || c->jc_top || !conj_within(c, in_set))
        continue;
      done[i] = true;
      if (ec_redundant(c, ec_taken))
        continue;
      int a, d;
      if (nk < 32 && col_equality(&jp, c->jc_x, &a, &d) &&
          (jp.jp_unit_of[a] == u) != (jp.jp_unit_of[d] == u)) {
        int mine = jp.jp_unit_of[a] == u ? a : d, other = mine == a ? d : a;
        hl[nk] = pos[other];
        hx[nk] = bd_node_remap(b->lc_b, c->jc_x, pos);
        hr[nk++] = pos[mine] - acc_w;
        continue;
      }
      rest[nrest++] = bd_node_remap(b->lc_b, c->jc_x, pos);
    }
    join_kind_t kind = un->un_kind;
    int mk = m == JM_MERGE && kind == JOIN_INNER ? merge_pair(acc, in, nk, hl, hr) : -1;
    if (mk >= 0) {
      /* merged on one key pair; the others' equalities are residual */
      for (int i = 0; i < nk; i++)
        if (i != mk)
          rest[nrest++] = hx[i];
      acc = op_mergejoin_new(b->lc_a, acc, in, 1, &hl[mk], &hr[mk], bd_and_all(b->lc_b, rest, nrest));
      acc_w += nuc;
      cost += scan_cost(pu) + (rows + pu->pu_rows) * COST_MERGE;
      rows = set_rows(&jp, in_set);
      cost += rows * COST_OUT;
      estimate(acc, &jp, rows, cost);
      continue;
    }
    xnode_t *cond = bd_and_all(b->lc_b, rest, nrest);
    bool build_left = nk && kind == JOIN_INNER && build_on_joined(rows, pu->pu_rows);
    acc = build_left ? opt_hashjoin_build_left(b, acc, in, nk, hl, hr, cond)
          : nk       ? op_hashjoin_new(b->lc_a, acc, in, kind, nk, hl, hr, cond)
                     : op_nljoin_new(b->lc_a, acc, in, kind, cond);
    if (un->un_null_aware)
      op_join_set_null_aware(acc);
    if (kind != JOIN_INNER) {
      /* its columns were only for the join's conditions */
      for (int i = 0; i < nuc; i++)
        pos[ucols[i]] = -1;
      nuc = 0;
    }
    acc_w += nuc;
    cost += scan_cost(pu) + (nk ? hash_cost(rows, pu->pu_rows, kind == JOIN_INNER)
                                : pu->pu_rows * COST_BUILD + rows * pu->pu_rows * COST_NLOOP);
    rows = set_rows(&jp, in_set);
    cost += rows * COST_OUT;
    estimate(acc, &jp, rows, cost);
  }
  if (nu > 0)
    why_step(b, acc, prev, &fb->fb_units[order[nu - 1]]);
  /* back to the block's row */
  bool identity = acc_w == bwidth;
  for (int c = 0; c < bwidth && identity; c++)
    identity = pos[c] == c;
  if (!identity) {
    xnode_t **x = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(bwidth + 1));
    for (int u = 0; u < nu; u++) {
      const lp_rel_t *un = &fb->fb_units[u];
      if (un->un_base >= bwidth)
        continue;  /* a decorrelated subquery's columns are not the block's */
      for (int c = 0; c < un->un_width; c++) {
        int bc = un->un_base + c;
        ty_t t = !un->un_table                  ? un->un_op->o_types[c]
                 : c < un->un_table->tb_ncols ? un->un_table->tb_coltypes[c]
                                              : ty_plain(TY_BYTEA);  /* the locator */
        x[bc] = pos[bc] >= 0 ? bd_col(b->lc_b, pos[bc], t) : bd_const_null(b->lc_b, t);
      }
    }
    acc = op_project_new(b->lc_a, acc, bwidth, x);
  }
  xnode_t **top = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(jp.jp_nconj + 1));
  int ntop = 0;
  for (int i = 0; i < jp.jp_nconj; i++)
    if (!done[i])
      top[ntop++] = jp.jp_conj[i].jc_x;
  xnode_t *c = bd_and_all(b->lc_b, top, ntop);
  *out = c ? op_filter_new(b->lc_a, acc, c) : acc;
  if (c)
    (*out)->o_why = subq_why(c);
  if (fb->fb_estimate && (*out)->o_est_rows <= 0)
    (*out)->o_est_rows = rows;  /* what a decorrelating caller weighs */
  return CZ_OK;
}
