/* sql_bind_int — what the binder's and planner's files share: the
 * statement binding state, scopes of FROM items, and aggregate
 * collection.
 *
 * Design notes:
 * - A scope is one query block's FROM: range entries (bd_rel_t) laid out
 *   side by side in the row the block's FROM produces; X_COL indexes are
 *   positions in that row. A subquery's scope points at the enclosing one
 *   (sc_parent); a name found there becomes a correlation: an X_PARAM of
 *   the subquery whose value the executor copies from the outer row
 *   (xsubq_t xs_corr). Its index is made final (statement params first)
 *   when the statement is bound (bd_t b_fix).
 * - Aggregate calls bound in a block that groups are collected in the
 *   block's bd_aggctx_t and replaced by placeholder X_COL nodes; once the
 *   block is bound, expressions above the group-by are rewritten to its
 *   output layout (group keys, then aggregates), which is where 42803 is
 *   found.
 */
#ifndef CZ_SQL_BIND_INT_H
#define CZ_SQL_BIND_INT_H

#include "exec/exec.h"
#include "sql/sql.h"
#include "sql/sql_logical.h"
#include "sql/sql_plan.h"

/* One FROM item's columns in a scope. */
typedef struct bd_rel_s {
  const char *rl_name;          /* alias, else the table's name */
  const char *rl_schema;        /* the table's schema when not aliased; NULL */
  int rl_ncols;
  const char **rl_cols;
  ty_t *rl_types;
  int rl_base;                  /* its first column in the scope's row */
  const sp_table_t *rl_table;   /* stored table, NULL for derived ones */
  uint32_t rl_view_oid;         /* a view named in FROM (merged or derived); 0 otherwise */
  bool *rl_merged;              /* per column: merged into the other side's by JOIN USING
                                 * (not found unqualified, not in *); NULL = none */
  /* A view merged into the block (sql_bind_view.c): its range entry has
   * no columns of its own in the row (rl_base unused); column c is row
   * position rl_map[c], a column of the view's own FROM items, whose
   * range entries are rl_hidden (no name reaches them, nor `*`). */
  const int *rl_map;
  bool rl_hidden;
} bd_rel_t;

/* A JOIN … USING or NATURAL JOIN of a scope. PostgreSQL's `*` lists a
 * join's merged columns first, then its left and right sides' other
 * columns; the scope's row keeps the sides' columns in place, so `*`
 * reads the order from these (bd_star, sql_bind_query.c). */
typedef struct bd_using_s {
  int us_first, us_end;         /* its range entries: sc_rels[us_first, us_end) */
  int us_n;
  int *us_cols;                 /* the merged columns' row positions, in USING order (FULL:
                                 * the COALESCE columns) */
} bd_using_t;

typedef struct bd_aggctx_s bd_aggctx_t;
typedef struct bd_winctx_s bd_winctx_t;  /* window functions (sql_bind_window.c) */

typedef struct bd_scope_s bd_scope_t;
struct bd_scope_s {
  bd_scope_t *sc_parent;        /* the enclosing query's scope (correlation) */
  bd_rel_t **sc_rels;
  int sc_nrels;
  int sc_width;                 /* columns of the row */
  xsubq_t *sc_subq;             /* the subquery this scope belongs to, NULL at top */
  bd_aggctx_t *sc_agg;          /* where aggregate calls go; NULL: not allowed */
  const char *sc_agg_forbid;    /* why aggregates are not allowed ("WHERE") */
  bd_winctx_t *sc_win;          /* the block's window functions; NULL: none yet */
  bool *sc_used;                /* per row column: referenced by name or by *
                                 * (the planner reads only those); NULL = none yet */
  int sc_used_cap;
  bd_using_t **sc_usings;       /* USING / NATURAL joins, inner ones first */
  int sc_nusings;
  struct bd_srfctx_s *sc_srf;   /* the block's set-returning functions in its select list
                                 * (sql_bind_srf_list.c); NULL: not allowed here */
};


struct bd_aggctx_s {
  int ag_n, ag_cap;
  agg_spec_t *ag_specs;
  xnode_t **ag_holders;         /* placeholder nodes, one per aggregate */
  bool ag_in_agg;               /* binding an aggregate's argument (no nesting) */
  /* GROUPING(…) calls (sql_bind_grouping.c): placeholders that the rewrite
   * maps to the columns after the aggregates, one per call */
  int ag_ngrp, ag_grp_cap;
  xnode_t **ag_grp_holders;
  int *ag_grp_nargs;
  xnode_t ***ag_grp_args;       /* the arguments, bound over the FROM row */
  /* ORDER BY inside aggregate calls (sql_bind_agg_order.c): one order for
   * the block, its keys bound over the FROM row; the group-by's input is
   * sorted by it (the group-by keeps each group's rows in input order) */
  int ag_norder;
  xnode_t **ag_order;
  bool *ag_order_desc, *ag_order_nf;
};

/* A WITH query in force: inlined as a derived table where it is named in
 * FROM; its own body sees only the WITH queries before it (ct_prev). */
typedef struct bd_cte_s bd_cte_t;
struct bd_cte_s {
  const sql_cte_t *ct_cte;
  bd_cte_t *ct_prev;
  /* WITH RECURSIVE (sql_bind_recursive.c): every query of the list sees
   * all of them (ct_visible); while one is bound ct_busy is set, and while
   * its recursive term is bound ct_wt is the working table its one
   * self-reference reads (an LN_WORKTABLE node). */
  bool ct_recursive;
  bd_cte_t *ct_visible;
  bool ct_busy;
  lp_node_t *ct_wt;
  const char **ct_wt_names;
  int ct_wt_refs;
  xsubq_t *ct_wt_subq;          /* the subquery the recursive term is bound in */
  int ct_wt_nullable;           /* b_nullable when the recursive term began */
  int ct_wt_setop;              /* b_setop_other likewise */
  /* Materialisation (sql_bind_cte.c): the scope of the query holding the
   * WITH list, the references counted in the text, and once the first
   * reference is bound either the worktable every reference scans or
   * ct_inline (bound again at each reference). */
  bd_scope_t *ct_outer;
  xsubq_t *ct_sq;
  int ct_refs;
  lp_cte_t *ct_mat;
  const char **ct_mat_names;
  bool ct_inline;
};

/* Where a subquery was bound from, so that the planner can bind it again
 * decorrelated (sql_bind_decor.c). */
typedef struct bd_subq_src_s {
  xsubq_t *ss_sq;
  const sql_query_t *ss_q;
  bd_scope_t *ss_sc;            /* the scope it was bound in */
  /* the WITH queries visible there and the view owner in force (a view's
   * query: privileges): its block may be planned, and so decorrelated,
   * after both changed (a derived table's, generated with the enclosing
   * block, maybe outside the view it came from), so the subquery is bound
   * again with them (sql_bind_decor.c rebind) */
  struct bd_cte_s *ss_ctes;
  uint32_t ss_owner;
  lp_subq_t *ss_gen;            /* its node, for the generator (bd_subq_plan) */
} bd_subq_src_t;

/* A subquery being bound again for decorrelation (sql_bind_decor.c): its
 * top block pulls out the conjuncts that read the outer row and outputs
 * [IN's value,] the inner sides of the correlating equalities, then the
 * columns the other pulled-out conjuncts read. */
typedef struct bd_decor_s {
  const sql_query_t *dr_q;      /* the subquery's text */
  xsubq_t *dr_sq;               /* set by bd_subquery: the new binding's subquery */
  bool dr_in;                   /* IN: output 0 is the value compared */
  ty_t dr_in_type;
  bool dr_anti;
  bool dr_scalar;               /* a scalar subquery: output the keys and the value per key group */
  bool dr_claimed;              /* its top block was bound in decorrelating mode */
  bool dr_fail;                 /* something forbids it: keep the per-row subquery */
  int dr_nparams, dr_param_cap; /* every correlation X_PARAM made for dr_sq */
  xnode_t **dr_params;
  int dr_consumed;              /* of those, how many the pulled-out conjuncts hold */
  int dr_nkeys;                 /* correlating equalities: inner side, outer side */
  xnode_t **dr_inner, **dr_outer;
  int dr_nresid;                /* other pulled-out conjuncts (inner row, dr_sq's params) */
  xnode_t **dr_resid;
  bool dr_key_probe;            /* a key's inner side leads a table's primary key or index */
  bool dr_estimate;             /* estimate the block's FROM (an IN joined as an inner join:
                                 * its rows decide the join order) */
  double dr_est_rows;           /* the block's FROM estimate (rows aggregated or joined) */
  double dr_est_cost;           /* and its cost (0: one table, not estimated) */
  int dr_ncols;                 /* inner columns the residuals read */
  xnode_t **dr_cols;
  xnode_t *dr_target;           /* IN: the value compared (bd_decor_output) */
  /* the subquery's FROM is one stored table (bd_decor_extract): the
   * table, its columns' place in the block's row, and the conjuncts left
   * to it (its own: no subquery), so that the planner may probe the
   * table's indexes instead (lp_rel_t un_look_*) */
  const sp_table_t *dr_table;
  int dr_tbase;
  int dr_nown;
  xnode_t **dr_own;
  /* a scalar subquery's index lookup aggregate form (bd_decor_grouped,
   * lp_rel_t un_agg_*): its aggregates over the table's columns, the
   * value over their results; dr_agg_only: the grouped join would be
   * wrong (count(), or a value not NULL without a group) */
  int dr_nagg;
  agg_spec_t *dr_aggs;
  xnode_t *dr_agg_val;
  bool dr_agg_only;
} bd_decor_t;

/* Statement binding state. */
typedef struct bd_s {
  arena_t *b_a;
  const sp_env_t *b_env;
  err_t *b_e;
  int b_nparams;                /* highest $n seen, or the client's count */
  int b_pcap;
  ty_t *b_ptypes;               /* TY_UNKNOWN until inferred */
  int b_nparam_nodes, b_param_cap;
  xnode_t **b_param_nodes;      /* every X_PARAM of a $n (types fixed at the end) */
  int b_nfix, b_fix_cap;
  xnode_t **b_fix;              /* correlation X_PARAMs: index += statement params */
  int b_nsubqs, b_subq_cap;
  xsubq_t **b_subqs;
  int b_nsrc, b_src_cap;
  bd_subq_src_t *b_src;         /* every subquery's text and scope */
  bd_decor_t *b_decor;          /* a decorrelating rebinding in progress, else NULL */
  struct bd_lockreq_s *b_lock;  /* SELECT … FOR UPDATE: the block whose tables lock
                                   their rows (sql_bind_lock.c), else NULL */
  bool b_locks_rows;            /* some block got a LockRows operator */
  int b_naccess, b_access_cap;
  sp_access_t *b_access;
  /* INSERT … SELECT: the types the target columns want, so that untyped
   * literals in the select list take them (not text); taken by the first
   * query block bound, then cleared. */
  /* The statement's outermost SELECT: its select list shows a string
   * cast to regclass & co. as the name, as PostgreSQL prints reg*
   * values (everywhere else the cast is the OID, for comparisons). */
  const sql_query_t *b_top_query;
  int b_nhint;
  const ty_t *b_hint;
  bd_cte_t *b_ctes;             /* WITH queries visible here, innermost first */
  bd_cte_t *b_cte_cur;          /* the WITH query whose body is being bound (recursion) */
  int b_ncorr;                  /* correlation parameters made so far (bd_corr) */
  int b_nvolatile;              /* volatile function calls bound so far */
  int b_nullable;               /* binding the nullable side of an outer join */
  int b_setop_other;            /* binding under EXCEPT / INTERSECT: 2 / 3 (innermost) */
  int b_setop_depth;
  op_t *b_dml;                  /* the statement's modify operator */
  int b_nret;                   /* RETURNING columns */
  sp_col_t *b_ret_cols;
  uint32_t b_view_owner;        /* binding a view's query: its owner (privileges), else 0 */
  int b_view_depth;             /* views being expanded, innermost last (recursion limit) */
  struct bd_recshape_s *b_recs; /* composite types' shapes met in the statement
                                 * (sql_bind_record.c); a record's ty_t names one */
  int b_nrecs;
} bd_t;

/* ---- SELECT … FOR UPDATE / FOR SHARE (sql_bind_lock.c) ------------------ */
typedef struct bd_lockreq_s bd_lockreq_t;
/* Starts binding block q: its own locking request in b->b_lock (NULL
 * when q has none); returns the enclosing one, for the caller to put
 * back (b->b_lock = saved) when the block is bound. */
bd_lockreq_t *bd_lock_begin(bd_t *b, const sql_query_t *q);
/* Whether the table known as alias in the block is to be locked. */
bool bd_lock_wants(const bd_t *b, const char *alias);
/* A table unit of the block just bound: when it is to be locked, its scan
 * gives the locator (un_rowid) as one more block column. */
void bd_lock_unit(bd_t *b, bd_scope_t *sc, lp_rel_t *u);
/* A side of an explicit join that is not a unit of the block: 0A000 when
 * it is a table to be locked (PostgreSQL's words for the nullable side). */
int bd_lock_join_item(bd_t *b, const sql_from_t *item, bool nullable);
/* PostgreSQL's 0A000 where rows cannot be locked (DISTINCT, GROUP BY,
 * HAVING, aggregates, window functions), and 42P01 for a name in OF that
 * is not in FROM. */
int bd_lock_check(bd_t *b, const bd_scope_t *sc, const sql_select_t *s, bool aggregates,
                  bool windows);
/* Tables locked in the block, and the block column of the k-th's locator. */
int bd_lock_ntables(const bd_t *b);
int bd_lock_col(const bd_t *b, int k);
/* The block's row locking for the generator's LockRows (the block's
 * outputs outs[0..nouts), the k-th locator in output column rid_out[k];
 * conj[0..nconj) the block's WHERE, for the recheck); lk_n 0 when no
 * table of the block locks its rows. */
const lp_lock_t *bd_lock_logical(bd_t *b, const int *rid_out, const lp_block_t *from,
                                 xnode_t **conj, int nconj, xnode_t **outs, int nouts);

/* ---- nodes (sql_bind_node.c) ------------------------------------------- */
/* Notes that column index of sc's row is read (bd_from_plan reads only
 * the columns so noted). */
void bd_scope_use(bd_t *b, bd_scope_t *sc, int index);
/* A scope in the statement's arena, empty or a copy of sc. Scopes are
 * never on the stack: a subquery bound under one is generated, and so
 * maybe decorrelated (rebound, resolving names up its scopes), after the
 * function that bound it has returned. */
bd_scope_t *bd_scope_new(bd_t *b);
bd_scope_t *bd_scope_copy(bd_t *b, const bd_scope_t *sc);
/* CREATE VIEW's notes (sql_bind_refs.c; sp_env_t pe_refs): a relation
 * named in FROM, a column reference resolved to column col of rel, a
 * column of the scope's row used. */
void bd_ref_relation(bd_t *b, const sql_name_t *n, uint32_t oid);
void bd_ref_column(bd_t *b, const sql_expr_t *x, const bd_rel_t *rel, int col);
void bd_ref_use(bd_t *b, const bd_scope_t *sc, int index);

/* Untyped literals and parameters left at the end become text. */
xnode_t *bd_finish_unknown(bd_t *b, xnode_t *n);
int bd_error(bd_t *b, const char *sqlstate, int pos, const char *fmt, ...) CZ_PRINTF(4, 5);
void bd_access(bd_t *b, const sp_table_t *t, unsigned priv);

/* ---- expressions (sql_bind_expr.c) ------------------------------------- */

int bd_expr(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* A boolean condition (WHERE, ON, HAVING): 42804 when not boolean. */
int bd_cond(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, const char *what, xnode_t **out);
/* Common type of n nodes, coercing each in place (CASE, IN, UNION). */
int bd_unify(bd_t *b, xnode_t **nodes, int n, const char *ctx, int pos, ty_t *out);
/* A subquery as an X_SUBQ of kind 0/1/2 in scope sc: bound to a logical
 * node (*out_ls; its use may add a projection or array gathering), its
 * operators generated later (bd_subq_plan, bd_subq_gen_all). */
int bd_subquery(bd_t *b, bd_scope_t *sc, const sql_query_t *q, int kind, int pos,
                xsubq_t **out_sq, lp_subq_t **out_ls);
/* sq's operators, generated now if they are not yet (sql_bind_opt.c):
 * what decorrelation reads of the per-row plan. */
int bd_subq_plan(bd_t *b, const xsubq_t *sq, op_t **out);
/* Generates every subquery of the statement not generated yet, parents
 * first (those whose generation binds more, by decorrelating, too). */
int bd_subq_gen_all(bd_t *b);

/* ---- aggregates (sql_bind_agg.c) --------------------------------------- */

int bd_agg_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* Adds spec to ag: the placeholder of its result (sql_bind_agg.c). */
xnode_t *bd_agg_add(bd_t *b, bd_aggctx_t *ag, const agg_spec_t *spec, int pos);
/* ORDER BY inside aggregates (sql_bind_agg_order.c): the call's order,
 * which must equal the block's other aggregates' (0A000 otherwise). */
int bd_agg_order(bd_t *b, bd_scope_t *sc, const sql_expr_t *x);
/* array_agg(x [ORDER BY …]). */
int bd_array_agg_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* Rewrites x (over the FROM row) to the group-by's output: group keys
 * are matched structurally, aggregate placeholders map to their columns,
 * any other column is 42803. */
int bd_agg_rewrite(bd_t *b, bd_aggctx_t *ag, int ngroup, xnode_t **group, xnode_t *x,
                   xnode_t **out);

/* ---- queries (sql_bind_query.c, sql_bind_from.c) ----------------------- */

/* Binds a query in a new scope whose parent is `outer` (NULL at top);
 * sq is the subquery it is the plan of (NULL at top). Result names in
 * *names (may be NULL). */
int bd_query(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq, op_t **out,
             const char ***names, sp_col_t **cols);
/* The same query as a logical node (sql_logical.h), not generated: a
 * SELECT block (LN_SELECT), VALUES, a set operation over such nodes;
 * LN_PLAN for a decorrelating rebinding's block (its output is shaped
 * over operators). bd_query is this, then the generator (so_query). */
int bd_query_node(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq,
                  lp_node_t **out, const char ***names, sp_col_t **cols);
/* A FROM clause in two steps: bd_from_bind puts its items into sc and
 * binds WHERE, giving the block's logical form (sql_logical.h);
 * bd_from_plan, called once every expression of the block is bound (so
 * that bd_scope_use knows the columns read), folds LATERAL items, fills
 * the block's view of sc and hands it to the optimizer (sql_bind_opt.c),
 * which returns the operators producing sc's row. */
int bd_from_bind(bd_t *b, bd_scope_t *sc, const sql_list_t *from, const sql_expr_t *where,
                 lp_block_t **out);
int bd_from_plan(bd_t *b, bd_scope_t *sc, lp_block_t *fb, op_t **out);
/* bd_from_plan without the optimizer: the block in its final logical
 * form (LATERAL folded, the block's view of sc filled), planned later by
 * the generator (a SELECT block's, opt_gen_query.c). */
int bd_from_finish(bd_t *b, bd_scope_t *sc, lp_block_t *fb);
/* The optimizer's estimated cost of plan o: the nearest estimate below
 * its root along first inputs (a block's last join carries the cost of
 * all its joins); 0 when nothing below was estimated. */
double bd_plan_est_cost(const op_t *o);
/* Adds one FROM item to sc and fb (bd_from_bind does it for each item):
 * UPDATE … FROM and DELETE … USING put their target first themselves. */
int bd_from_units(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, lp_block_t *fb);
/* Whether a block bound in scope outer for subquery sq may run in
 * parallel: a top-level one, or one of a subquery without correlation
 * (so far: every expression of the block is bound when it is asked). */
bool bd_par_block(const bd_scope_t *outer, const xsubq_t *sq);
/* The operators of a query node (so_query, opt/opt_gen_query.c). */
int bd_node_plan(bd_t *b, const lp_node_t *n, op_t **out);
/* sql_bind_decor.c (lp_decorrelate in sql_logical.h is the optimizer's
 * door to it): WHERE's EXISTS / NOT EXISTS / IN / NOT IN conjuncts
 * whose subquery is correlated only by conjuncts it can give up become
 * SEMI / ANTI units of fb (the others stay per-row subqueries). */
int bd_decorrelate(bd_t *b, bd_scope_t *sc, lp_block_t *fb);
/* In the decorrelating rebinding's top block (called by bd_select):
 * pulls the correlated conjuncts out of fb, then shapes the output. */
void bd_decor_extract(bd_t *b, bd_decor_t *dr, lp_block_t *fb);
op_t *bd_decor_output(bd_t *b, bd_decor_t *dr, op_t *plan, xnode_t *target);
/* The same for a scalar subquery: its aggregates grouped by the keys'
 * inner sides (ag: the block's aggregates); NULL with b_e set on error. */
op_t *bd_decor_grouped(bd_t *b, bd_decor_t *dr, op_t *plan, bd_aggctx_t *ag, xnode_t *target);
int bd_lookup_table(bd_t *b, const sql_name_t *n, const sp_table_t **out);
/* Puts q's WITH queries in force (b_ctes; the caller restores it):
 * 42712 for a name given twice. */
int bd_with_push(bd_t *b, const sql_query_t *q);
/* After bd_with_push of a RECURSIVE list: binds each of its queries once,
 * so an invalid one fails even when nothing names it. */
int bd_with_check(bd_t *b, const sql_query_t *q, bd_scope_t *outer, xsubq_t *sq);

/* ---- the rest of the query language ------------------------------------ */

/* GROUP BY 2 / alias / expression (sql_bind_query.c). */
int bd_group_item(bd_t *b, bd_scope_t *sc, const sql_select_t *s, const sql_expr_t *x,
                  xnode_t **out);
/* Grouping sets (sql_bind_grouping.c): the distinct key expressions and
 * the sets as lists of key indexes. */
typedef struct bd_gsets_s {
  int gs_nkeys, gs_kcap;
  xnode_t **gs_keys;
  int gs_nsets, gs_scap;
  int *gs_set_n;
  int **gs_sets;
} bd_gsets_t;
bool bd_group_has_sets(const sql_list_t *group);
int bd_group_sets(bd_t *b, bd_scope_t *sc, const sql_select_t *s, bd_gsets_t *out);
/* The plain GROUP BY keys as one grouping set (GROUPING(…) without sets). */
void bd_group_one_set(bd_t *b, int ngroup, xnode_t **group, bd_gsets_t *out);
/* GROUPING(args): a placeholder collected in the block's aggregate context. */
int bd_grouping_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* The sets and the GROUPING calls' values per set, for the generator's
 * grouping-sets operator (42803 for an argument that is not a key). */
int bd_groupsets_logical(bd_t *b, const bd_gsets_t *gs, const bd_aggctx_t *ag,
                         const lp_gsets_t **out);

/* WITH RECURSIVE (sql_bind_recursive.c): a WITH query named in FROM whose
 * list is RECURSIVE: binds a self-referencing one as a recursive union
 * (*node: LN_RECURSIVE, generated with the block that reads it; a query
 * that does not refer to itself: its node), or a reference inside its
 * recursive term as its working table (*node: LN_WORKTABLE). */
int bd_cte_recursive(bd_t *b, bd_scope_t *sc, bd_cte_t *cte, lp_node_t **node,
                     const char ***names);

/* Materialised WITH queries (sql_bind_cte.c). bd_cte_count_refs sets
 * ct_refs of the entries bd_with_push made for q's list (last: the
 * innermost, b_ctes after the push). bd_cte_materialized, at a FROM
 * reference to a non-recursive WITH query: *done with the reference (an
 * LN_CTE node, a CTE Scan when generated) in *node when the query is
 * computed once, else *done false (bind it inline). */
void bd_cte_count_refs(const sql_query_t *q, bd_cte_t *last);
int bd_cte_materialized(bd_t *b, bd_cte_t *cte, lp_node_t **node, const char ***names,
                        bool *done);
/* Binds the WITH queries from last down to stop (exclusive) that nothing
 * names (ct_refs 0), so their errors are reported; nothing of them runs. */
int bd_cte_check_unused(bd_t *b, bd_cte_t *last, bd_cte_t *stop);

/* LATERAL (sql_bind_lateral.c): whether a FROM item is lateral (LATERAL,
 * or a function whose arguments read earlier items); binding one as the
 * right side of the rows so far (the items of sc from first_rel on,
 * their columns from base): *out the item, which an lp_outer_t's oj_lat
 * joins to them. on: JOIN's condition. */
bool bd_item_lateral(const sql_from_t *fr);
int bd_lateral_join(bd_t *b, bd_scope_t *sc, int first_rel, int base, const sql_from_t *fr,
                    const sql_expr_t *on, const lp_lateral_t **out);
/* A lateral item of a FROM list after other items: a unit marked
 * un_lateral (or an ordinary unit when it reads none of them), joined to
 * the units before it when the optimizer plans the block
 * (opt/opt_lateral.c). */
int bd_lateral_unit(bd_t *b, bd_scope_t *sc, lp_block_t *fb, const sql_from_t *fr);
/* Adds range entry r to sc at the end of its row (42712 for a name
 * already there: CZ_ERR, b_e set at pos). */
int bd_scope_add(bd_t *b, bd_scope_t *sc, bd_rel_t *r, int pos);
/* The range entry of a derived table fr whose query gives ncols columns
 * of types, with output names: fr's alias (else ?subquery?), its column
 * aliases, then the names. */
bd_rel_t *bd_rel_derived(bd_t *b, const sql_from_t *fr, int ncols, const ty_t *types,
                         const char **names);
/* A new, zeroed unit at the end of fb. */
lp_rel_t *bd_fromblk_unit(bd_t *b, lp_block_t *fb);
/* Appends conjunct x to fb's list. */
void bd_fromblk_conj(bd_t *b, lp_block_t *fb, xnode_t *x);
/* A new subquery registered with the statement (parents before their own
 * subqueries), its parent sc's (NULL: none). */
xsubq_t *bd_subq_new(bd_t *b, bd_scope_t *sc);


/* ---- views (sql_bind_view.c) -------------------------------------------- */

/* The view named by FROM item fr (CZ_OK, *out set), 1 when fr names no
 * view (or the environment has none). */
int bd_find_view(bd_t *b, const sql_from_t *fr, const sp_view_t **out);
/* View v as one FROM item: its query bound as a derived table, its node
 * in *node when node is given (a unit of the block, generated with it),
 * else generated now into *op. */
int bd_view_item(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, const sp_view_t *v, op_t **op,
                 const lp_node_t **node);
/* View v merged into the block: its FROM items become units of fb, its
 * WHERE conjuncts of fb, its columns a mapped range entry. 1 when v is not
 * simple enough (the caller binds it as one item). */
int bd_view_merge(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, const sp_view_t *v,
                  lp_block_t *fb);

/* An automatically updatable view written through (sql_bind_view.c):
 * its one table, and where the view's columns are in that table. */
typedef struct bd_uview_s {
  const sp_view_t *uv_view;
  const sp_table_t *uv_t;       /* the table written */
  int uv_ncols;
  int *uv_map;                  /* view column -> table column */
  const char *uv_alias;         /* the table's name in the view's FROM */
  const sql_expr_t *uv_where;   /* the view's WHERE (over the table), NULL none */
} bd_uview_t;
/* The table an INSERT, UPDATE or DELETE writes (what: "insert into",
 * "update", "delete from", for the messages): a materialized view is
 * 42809 (but for REFRESH); a view is 55000 unless it is automatically
 * updatable and uv is given, which then describes it (uv_view NULL for a
 * table). */
int bd_lookup_target(bd_t *b, const sql_name_t *n, const char *what, const sp_table_t **out,
                     bd_uview_t *uv);
/* The view's WHERE over its table's row (columns at 0..): NULL none. */
int bd_view_where(bd_t *b, const bd_uview_t *uv, xnode_t **out);
/* Column names of the view as its table's (INSERT's list, SET's
 * targets); 42703 for a name the view does not have. */
int bd_view_colname(bd_t *b, const bd_uview_t *uv, const char *name, int pos, const char **out);
/* WITH CHECK OPTION over rows whose columns 0.. are the table's: the
 * condition of a filter that fails (44000) on a row outside the view;
 * NULL without the option. */
int bd_view_check(bd_t *b, const bd_uview_t *uv, xnode_t **out);
/* The view's range entry over a one-table scope of its table (UPDATE and
 * DELETE: names in WHERE, SET and RETURNING are the view's). */
int bd_view_scope(bd_t *b, const bd_uview_t *uv, const char *alias, bd_scope_t *sc);

/* ---- DML (sql_bind_dml.c) ----------------------------------------------- */

/* RETURNING targets bound in scope sc (the rows the modify operator
 * passes on: the target table's columns at 0..), with their column
 * descriptions (rt_x NULL without RETURNING); the generator projects
 * them over the modify operator (bd_dml_gen). */
typedef struct bd_ret_s {
  int rt_n;
  xnode_t **rt_x;
  sp_col_t *rt_cols;
} bd_ret_t;
int bd_returning_bind(bd_t *b, bd_scope_t *sc, const sql_list_t *targets, bd_ret_t *out);
int bd_insert(bd_t *b, const sql_insert_t *in, op_t **out);
/* Assignment conversion of n to column c of t (42804 when not allowed). */
xnode_t *bd_assign(bd_t *b, const sp_table_t *t, int c, xnode_t *n, int pos);
/* The DEFAULT of column c of t (a NULL constant when it has none). */
xnode_t *bd_default(bd_t *b, const sp_table_t *t, int c);
/* Table t alone as a scope, its columns at 0.. (named alias when given). */
bd_scope_t *bd_table_scope(bd_t *b, const sp_table_t *t, const char *alias);
/* An UPDATE's SET list bound in sc: (*x)[c] the new value of column c
 * (converted to its type), NULL where not set; (*set)[c] marks the set
 * ones. 42703 for an unknown column, 42601 for one set twice. */
int bd_set_list(bd_t *b, bd_scope_t *sc, const sp_table_t *t, const sql_list_t *list,
                xnode_t ***x, bool **set);
/* INSERT's ON CONFLICT clause into d, the INSERT into t
 * (sql_bind_upsert.c). */
int bd_on_conflict(bd_t *b, const sp_table_t *t, const sql_insert_t *in, lp_dml_t *d);
/* The operators of DML statement d of kind kind (LN_INSERT, LN_UPDATE,
 * LN_DELETE) with RETURNING ret (rt_x NULL: none), by the generator
 * (opt/opt_gen_dml.c): sets b_dml, b_nret, b_ret_cols. */
int bd_dml_gen(bd_t *b, lp_nkind_t kind, lp_dml_t *d, const bd_ret_t *ret, op_t **out);
/* sql_bind_dml_from.c */
int bd_update_from(bd_t *b, const sql_update_t *up, op_t **out);
int bd_delete_using(bd_t *b, const sql_delete_t *de, op_t **out);
int bd_update(bd_t *b, const sql_update_t *up, op_t **out);
int bd_delete(bd_t *b, const sql_delete_t *de, op_t **out);

#endif /* CZ_SQL_BIND_INT_H */
