/* op_rfilter — runtime filters of hash joins, tested by scans
 * (op_rfilter.c has the design). Private to exec. */
#ifndef CZ_EXEC_OP_RFILTER_H
#define CZ_EXEC_OP_RFILTER_H

#include "exec/exec_int.h"

typedef struct rf_bloom_s rf_bloom_t;

/* A hash join whose build keys filter a scan's rows: the scan's output
 * columns that reach the join's left keys unchanged. */
typedef struct rf_target_s {
  const op_t *rt_join;
  int rt_ncols;
  int *rt_cols;
  struct rf_target_s *rt_next;
} rf_target_t;

/* Planning: gives the scan that feeds join's probe side (left keys
 * lk[0..nkeys)) a target, when one is reached through pass-through
 * operators and the kind allows (INNER, SEMI). */
void rf_attach(arena_t *a, op_t *join, join_kind_t kind, int nkeys, const int *lk);
/* The filter of a finished build's hash table (in a); NULL when there
 * is none (empty, too large, no memory). */
rf_bloom_t *rf_bloom_build(arena_t *a, const rhash_t *h);
/* Keeps in sel[0..n) (rows of b) those every ready filter of the targets
 * may pass; returns how many. Scratch memory from a. */
int rf_filter(const rf_target_t *t, qctx_t *q, const batch_t *b, int n, int *sel, arena_t *a);
/* The targets for EXPLAIN: "runtime filter on $2". */
char *rf_detail(const rf_target_t *t, arena_t *a);

/* op_scan.c */
bool op_is_scan(const op_t *o);
void op_scan_add_rf(op_t *scan, rf_target_t *t);
/* op_join.c: the filter of join's finished build in q's execution, or
 * NULL (not built there, spilled, none). */
const rf_bloom_t *op_join_rf(const op_t *join, qctx_t *q);

#endif /* CZ_EXEC_OP_RFILTER_H */
