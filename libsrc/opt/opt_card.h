/* sql_plan_card — the estimates join ordering works from (sql/README.md,
 * "Join order"): rows of each FROM unit after its own conjuncts, and the
 * selectivity of a conjunct between units. */
#ifndef CZ_SQL_PLAN_CARD_H
#define CZ_SQL_PLAN_CARD_H

#include "sql/sql_bind_int.h"

/* Rows assumed for what cannot be measured (a catalog relation, a derived
 * table, a function in FROM). */
#define PC_DEFAULT_ROWS 1000.0

typedef struct pc_unit_s {
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
} pc_unit_t;

/* Marks in seen[] the units (unit_of: block column -> unit) x reads. */
void pc_conj_units(const xnode_t *x, const int *unit_of, bool *seen);
/* Fills out for unit un with its own conjuncts local[0..nl) (over the
 * block's row). Without `measure` only pu_need is set (one table alone
 * needs no estimates). */
int pc_unit_estimate(bd_t *b, bd_scope_t *sc, const bd_unit_t *un, xnode_t **local, int nl,
                     bool measure, pc_unit_t *out);
/* The fraction of pairs of rows a conjunct between units keeps. */
double pc_join_selectivity(bd_t *b, const bd_fromblk_t *fb, pc_unit_t *units, const int *unit_of,
                           const xnode_t *x);

/* Rows table t holds (catalog statistics, else measured on its primary
 * tree); < 0 unknown. Never fails. */
double pc_table_rows(bd_t *b, const sp_table_t *t);
/* Rows a FROM block's plan is estimated to give (< 0 unknown): its
 * join planner's estimate, or for one table planned without one, its row
 * count under the default selectivity of its conjuncts. */
double pc_block_rows(bd_t *b, const bd_fromblk_t *fb, const op_t *plan);
/* Groups of GROUP BY group[0..ngroup) (over fb's row) of in_rows input
 * rows: the product of the keys' distinct values, at most in_rows; < 0
 * when in_rows is. */
double pc_group_rows(bd_t *b, const bd_fromblk_t *fb, xnode_t **group, int ngroup,
                     double in_rows);

/* Whether constant conjuncts (NULL entries skipped) bound secondary index
 * ix_no of t to a key range so wide that scanning the whole table costs
 * less (the range measured in the index's tree; see PC_WIDE_FRACTION). */
bool pc_index_too_wide(bd_t *b, const sp_table_t *t, int ix_no, xnode_t **conj, int n);

#endif /* CZ_SQL_PLAN_CARD_H */
