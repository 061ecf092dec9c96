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
  batch_t *pu_sample;           /* tables: sampled rows (every column), or NULL */
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

#endif /* CZ_SQL_PLAN_CARD_H */
