/* opt_int — what the optimizer's files share. */
#ifndef CZ_OPT_INT_H
#define CZ_OPT_INT_H

#include "opt/opt.h"

/* ---- join blocks (opt_join.c) -------------------------------------------- */

/* The operators producing fb's row (sql_opt_t so_block). */
int opt_block_plan(lp_ctx_t *b, lp_block_t *fb, op_t **out);

/* ---- a block's upper part (opt_gen.c, opt_gen_query.c, opt_window.c) ---------------------- */

/* The operators of u over plan, the join block's (opt_gen_query.c's
 * LN_SELECT). */
int opt_gen_upper(lp_ctx_t *b, const lp_upper_t *u, op_t *plan, op_t **out);
/* The operators of a query node (so_query): a SELECT block, a VALUES
 * list, a set operation. */
int opt_gen_query(lp_ctx_t *b, const lp_node_t *n, op_t **out);
/* A subquery in an expression: its node's operators, the projection and
 * array gathering it asks for, into s->ls_sq->xs_plan (opt_gen_query.c). */
int opt_gen_subq(lp_ctx_t *b, const lp_subq_t *s);
/* A side over its row as the common types (cast: NULL when it has them). */
op_t *opt_cast_side(lp_ctx_t *b, op_t *side, int ncols, xnode_t **cast);
/* A derived table's node to generate when its block reads only the
 * columns need marks (over n's columns): n, or a copy whose other targets
 * are NULL and whose join block no longer uses the columns only they
 * read (opt_prune.c). */
const lp_node_t *opt_prune_derived(lp_ctx_t *b, const lp_node_t *n, const bool *need);
/* One window over in (in's width is w->lw_base). */
op_t *opt_window_build(lp_ctx_t *b, op_t *in, const lp_window_t *w);

/* ---- parallel plans (opt_par.c) ------------------------------------------ */

/* The workers a Gather over fb's plan may use (0: no parallel plan:
 * ThreadsPerQuery 1, not one large stored table, a subquery or volatile
 * function in a conjunct, or a plan op_gather_ok refuses). opt_par_gather
 * puts the Gather over plan; opt_par_agg builds partial group-by → Gather
 * → final group-by → projection to the single group-by's layout, NULL
 * when an aggregate cannot be merged (then a Gather below one group-by). */
int opt_par_workers(lp_ctx_t *b, const lp_block_t *fb, const op_t *plan);
op_t *opt_par_gather(lp_ctx_t *b, op_t *plan, int workers);
/* Puts a Gather of its own over each large build side of the joins of
 * plan's pipeline (their scans then run on every thread while the
 * session's thread fills the shared table). */
void opt_par_builds(lp_ctx_t *b, const lp_block_t *fb, op_t *plan, int workers);
op_t *opt_par_agg(lp_ctx_t *b, op_t *in, int workers, int ngroup, xnode_t **group, int nagg,
                  const agg_spec_t *aggs, double rows, double groups);
/* ORDER BY over a parallel pipeline (rows: the pipeline with the select
 * list's projection on top, every expression opt_par_safe): Parallel Sort
 * over a Gather of rows; NULL when the Gather cannot hold rows. */
op_t *opt_par_sort(lp_ctx_t *b, op_t *rows, int workers, int nkeys, const sort_key_t *keys);
/* Whether x may run on a query worker: no subquery, no volatile function. */
bool opt_par_safe(const xnode_t *x);

/* ---- group-by over grouped input (opt_group.c) --------------------------- */

/* A streaming group-by over in when in's rows come grouped by the keys
 * (op_order), with workers > 0 under a Gather of its own over a scan
 * split on group boundaries; NULL when in is not so ordered, not a Gather
 * pipeline (workers > 0), or an aggregate needs the hash group-by. */
op_t *opt_agg_ordered(lp_ctx_t *b, op_t *in, int workers, int ngroup, xnode_t **group, int nagg,
                      const agg_spec_t *aggs);
/* HAVING over such a Gather: tested by every thread below it (the
 * groups are whole there); plan with the filter inside, or NULL. */
op_t *opt_agg_having(lp_ctx_t *b, op_t *plan, xnode_t *having);

/* ---- OR factoring (opt_or.c) --------------------------------------------- */

/* Adds to fb's conjuncts what its ORs imply: conjuncts common to every
 * branch, and per unit the OR of each branch's conditions on it; unit_of
 * maps block columns to units. */
void opt_or_factor(lp_ctx_t *b, lp_block_t *fb, const int *unit_of);

/* ---- outer joins (opt_outer.c) ------------------------------------------- */

/* The join's operators: the nullable side's own ON conjuncts pushed into
 * it, the hash table built on the smaller side; need (over the join's
 * columns, written order; NULL = all): the columns read, the others NULL
 * at their positions. */
op_t *opt_outer_build(lp_ctx_t *b, const lp_outer_t *oj, const bool *need);
/* l INNER JOIN r on l.hl[i] = r.hr[i] (and cond, over [l, r]) with the
 * hash table built on l and r probing it: the row is [l, r] as
 * op_hashjoin_new's, through a projection. For a left input estimated
 * much smaller than the right (opt_join.c build_on_joined). */
op_t *opt_hashjoin_build_left(lp_ctx_t *b, op_t *l, op_t *r, int nk, const int *hl,
                              const int *hr, xnode_t *cond);

/* ---- LATERAL items (opt_lateral.c) --------------------------------------- */

/* The item's plan, built into ll_sq->xs_plan the first time (NULL:
 * failed, lc_e set). */
op_t *opt_lateral_gen(lp_ctx_t *b, const lp_lateral_t *ll);
/* A FROM list's last lateral unit and the units before it, planned and
 * joined into the block's first unit (called first by opt_block_plan). */
int opt_lateral_fold(lp_ctx_t *b, lp_block_t *fb);

/* ---- access paths (opt_scan.c) ------------------------------------------- */

/* A scan of table t (plus the row identity when rowid), using the
 * conjuncts conj[0..n) (over the scan's columns) for key bounds where they
 * allow (used conjuncts are set to NULL), reading only the columns need
 * marks (need[c], NULL = all); the others are NULL at their positions in
 * the result. */
op_t *opt_scan_cols(lp_ctx_t *b, const sp_table_t *t, const char *alias, bool rowid,
                    xnode_t **conj, int n, const bool *need);
/* As opt_scan_cols, but the result holds only the needed columns, in
 * table order (the conjuncts' columns must be needed). */
op_t *opt_scan_compact(lp_ctx_t *b, const sp_table_t *t, const char *alias, xnode_t **conj,
                       int n, const bool *need);
/* The order a LIMIT above a one-table block wants of its scan
 * (lp_block_t fb_order, in table columns) and the rows it reads. */
typedef struct scan_wish_s {
  int sw_n;
  const sort_key_t *sw_keys;
  double sw_limit;              /* < 0: not a constant */
} scan_wish_t;
/* As opt_scan_compact; with no conjunct to bound any index and a small
 * LIMIT, a secondary index whose key order gives the wish is read
 * instead of the table (the LIMIT stops it after a few entries). */
op_t *opt_scan_ordered(lp_ctx_t *b, const sp_table_t *t, const char *alias, xnode_t **conj, int n,
                       const bool *need, const scan_wish_t *w);
/* As opt_scan_compact, plus the row locator as a last column (the target
 * of UPDATE … FROM / DELETE … USING). */
op_t *opt_scan_target(lp_ctx_t *b, const sp_table_t *t, const char *alias, xnode_t **conj,
                      int n, const bool *need);
/* If c is `col op value` (either order) with col (of type ctype) as a key
 * column can be bounded by value (free of columns), the comparison as
 * seen from the column (EQ, LT, LE, GT, GE) and the value. */
bool opt_key_pred(const xnode_t *c, int col, ty_t ctype, xop_t *op, xnode_t **val);

/* ---- WITH RECURSIVE and materialised WITH queries (opt_gen_cte.c) ------- */

/* The operators of an LN_RECURSIVE, LN_WORKTABLE or LN_CTE node (from
 * opt_gen_query.c's walk). */
int opt_gen_recursive(lp_ctx_t *b, const lp_node_t *n, op_t **out);
int opt_gen_worktable(lp_ctx_t *b, const lp_node_t *n, op_t **out);
int opt_gen_cte(lp_ctx_t *b, const lp_node_t *n, op_t **out);
/* transitive(…) in FROM (LN_TRANSITIVE): its edge and root queries, then
 * the Transitive Closure over them. */
int opt_gen_transitive(lp_ctx_t *b, const lp_node_t *n, op_t **out);

/* ---- INSERT, UPDATE and DELETE (opt_gen_dml.c) ------------------------- */

/* The operators of a DML node (sql_opt_t so_dml): out the root, writer
 * (NULL: not wanted) its modify operator. */
int opt_gen_dml(lp_ctx_t *b, const lp_node_t *n, op_t **out, op_t **writer);

#endif /* CZ_OPT_INT_H */
