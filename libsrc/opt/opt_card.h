/* opt_card — the estimates join ordering works from (opt/README.md,
 * "Join order"): rows of each FROM unit after its own conjuncts, and the
 * selectivity of a conjunct between units. */
#ifndef CZ_OPT_CARD_H
#define CZ_OPT_CARD_H

#include "opt/opt_int.h"

/* Rows assumed for what cannot be measured (a catalog relation, a derived
 * table, a function in FROM). */
#define OPT_DEFAULT_ROWS 1000.0

typedef struct opt_unit_s {
  double pu_total;              /* rows of the table (before conjuncts) */
  double pu_rows;               /* rows after the unit's own conjuncts */
  double pu_read;               /* rows its scan reads (key bounds narrow it) */
  bool pu_unknown;              /* not measured: defaults */
  const bool *pu_need;          /* tables: per column, read by the query */
  batch_t *pu_sample;           /* tables: rows sampled from the whole table (every
                                   column), or NULL */
  const qstats_t *pu_stats;     /* tables: the storage's statistics, or NULL */
  double *pu_ndv;               /* tables: distinct values per column, -1 = not yet */
  int pu_nown;
  xnode_t **pu_own;             /* the unit's own conjuncts over its own columns (the
                                 * one remapping, which its scan is planned from too) */
} opt_unit_t;

/* Marks in seen[] the units (unit_of: block column -> unit) x reads. */
void opt_conj_units(const xnode_t *x, const int *unit_of, bool *seen);
/* Fills out for unit un with its own conjuncts local[0..nl) (over the
 * block's row). Without `measure` only pu_need is set (one table alone
 * needs no estimates). */
int opt_unit_estimate(lp_ctx_t *b, const lp_block_t *fb, const lp_rel_t *un, xnode_t **local, int nl,
                     bool measure, opt_unit_t *out);
/* The fraction of pairs of rows a conjunct between units keeps. */
double opt_join_sel(lp_ctx_t *b, const lp_block_t *fb, opt_unit_t *units, const int *unit_of,
                           const xnode_t *x);

/* Rows table t holds (catalog statistics, else measured on its primary
 * tree); < 0 unknown. Never fails. */
double opt_table_rows(lp_ctx_t *b, const sp_table_t *t);
/* Rows a FROM block's plan is estimated to give (< 0 unknown): its
 * join planner's estimate, or for one table planned without one, its row
 * count under the default selectivity of its conjuncts. */
double opt_block_rows(lp_ctx_t *b, const lp_block_t *fb, const op_t *plan);
/* Groups of GROUP BY group[0..ngroup) (over fb's row) of in_rows input
 * rows: the product of the keys' distinct values, at most in_rows; < 0
 * when in_rows is. */
double opt_group_rows(lp_ctx_t *b, const lp_block_t *fb, xnode_t **group, int ngroup,
                     double in_rows);
/* Groups left after HAVING having (over the group-by's output) of
 * `groups`: DEFAULT_SEL per conjunct, as for any condition that cannot be
 * measured at plan time (an aggregate's value is not known before the
 * run). Without it a decorrelated IN over a grouped subquery under a
 * selective HAVING (TPC-H Q18) weighed as every group, and the join
 * above it built its hash table on the large side. < 0 when groups is. */
double opt_having_rows(lp_ctx_t *b, double groups, xnode_t *having);

/* Whether constant conjuncts (NULL entries skipped) bound secondary index
 * ix_no of t to a key range so wide that scanning the whole table costs
 * less (the range measured in the index's tree; see OPT_WIDE_FRACTION). */
bool opt_index_too_wide(lp_ctx_t *b, const sp_table_t *t, int ix_no, xnode_t **conj, int n);

#endif /* CZ_OPT_CARD_H */
