/* exec_ql — operators for the rest of the query language: the recursive
 * union of WITH RECURSIVE and its working table, DISTINCT ON, grouping
 * sets (ROLLUP, CUBE), and the lateral join.
 *
 * Design notes: kept out of exec.h so that the core contract stays the
 * operators every plan uses; the binder's files for these features
 * include this header. Run-time state lives in the execution's run states
 * as for the others (exec/README.md invariants 1-9 hold for each); the
 * working table and the grouping sets' Replay leaf read their union's /
 * grouping operator's run state in the same execution.
 */
#ifndef CZ_EXEC_QL_H
#define CZ_EXEC_QL_H

#include "exec/exec.h"

/* ---- WITH RECURSIVE (op_recursive.c) ------------------------------------ */

/* The working table a recursive term reads (the CTE's self-reference):
 * the rows the previous iteration added. Made before the recursive term
 * is bound (it is a leaf of that term), tied to its union afterwards. */
op_t *op_worktable_new(arena_t *a, const char *name, int ncols, const ty_t *types);
/* The recursive union: the rows of nonrec, then the rows of rec run again
 * and again, each time over the rows the run before added (the working
 * table wt, a leaf of rec), until a run adds none. !all: a row already
 * returned is neither returned nor added again (UNION). */
op_t *op_recursive_new(arena_t *a, op_t *nonrec, op_t *rec, op_t *wt, bool all);

/* ---- transitive closure (op_transitive.c) ------------------------------ */

/* The distinct pairs (x, y) with y reachable from x over edges (two
 * bigint columns: from, to) in at least min_len (0 or 1) steps,
 * breadth-first from start (a bigint expression; NULL or a NULL value:
 * not given), or backward from stop when only it is given, or from every
 * node of the edges when neither is; with both given, the one pair
 * (start, stop) when reachable. roots (NULL: none), one bigint column,
 * replaces start: a forward search from each of its distinct values. */
op_t *op_transitive_new(arena_t *a, op_t *edges, op_t *roots, xnode_t *start, xnode_t *stop, int min_len);

/* ---- DISTINCT ON (op_distinct_on.c) ------------------------------------- */

/* Over input sorted on its key columns: the first row of each run of
 * rows with equal keys (NULLs equal). */
op_t *op_distinct_on_new(arena_t *a, op_t *in, int nkeys, const int *keys);

/* ---- grouping sets (op_groupsets.c) ------------------------------------- */

/* GROUP BY GROUPING SETS: the input is read once and kept; then for each
 * set s a hash group-by (op_hashagg_new) runs over the kept rows with
 * the keys set_keys[s][0..set_nkeys[s]) (indexes into keys[0..nkeys)).
 * Output: nkeys key columns (NULL where the set does not group by that
 * key), the aggregates, then ngrp int4 columns whose values for set s
 * are grp[s * ngrp + g] (GROUPING(…) of the select list). */
op_t *op_groupsets_new(arena_t *a, op_t *in, int nkeys, xnode_t **keys, int nsets,
                       const int *set_nkeys, int *const *set_keys, int nagg,
                       const agg_spec_t *aggs, int ngrp, const int32_t *grp);

/* ---- LATERAL (op_lateral.c) --------------------------------------------- */

/* For each left row: the correlation values of sq (X_COLs over the left
 * row) are set and sq's plan runs; output the left row joined to each of
 * its rows; LEFT: a left row whose plan gives none is padded with NULLs. */
op_t *op_lateral_new(arena_t *a, op_t *left, xsubq_t *sq, join_kind_t kind);

#endif /* CZ_EXEC_QL_H */
