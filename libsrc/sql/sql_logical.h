/* sql_logical — the binder's output for one query block's FROM / WHERE:
 * the logical join block (relations, conjuncts, equivalence classes,
 * required orderings), and the interface through which the binder hands
 * it to the optimizer (libsrc/opt) without including it.
 *
 * Design notes (sql/README.md, "Binder → logical plan"; opt/README.md):
 * - A block's relations sit side by side in the block's row: relation u
 *   owns columns [un_base, un_base + un_width). Conjuncts are bound over
 *   that row (X_COL n is row column n). A decorrelated subquery (a SEMI /
 *   ANTI relation) has its columns past fb_width: they are read only by
 *   the conjuncts that join it and never reach the block's row.
 * - A relation is a stored table (un_table: the optimizer picks its access
 *   path and the columns it reads), a derived table (un_node: its query
 *   as a logical node, generated when the block is planned), an explicit
 *   join other than a plain inner one — LEFT, RIGHT, FULL, inner with
 *   USING / NATURAL — (un_outer: its sides and ON as written, built by
 *   the optimizer reading the columns the block reads), a function in
 *   FROM (un_node LN_FUNC), a LATERAL item reading the units before it
 *   (un_lateral, joined to them by the optimizer), or an input the binder
 *   has already built (un_op: a decorrelated subquery). Equalities never
 *   cross into an
 *   outer join's nullable side: its ON lives in un_outer, never among
 *   fb_conj.
 * - A SELECT block's upper part (group-by, HAVING, windows, projection,
 *   DISTINCT [ON], ORDER BY, LIMIT, row locking) is logical too
 *   (lp_upper_t); a SELECT block is a query node (lp_node_t LN_SELECT:
 *   its join block and upper part), and so are VALUES and set operations,
 *   INSERT / UPDATE / DELETE (lp_dml_t), WITH RECURSIVE (LN_RECURSIVE,
 *   its working table LN_WORKTABLE), materialised WITH queries (lp_cte_t,
 *   LN_CTE) and transitive(…) (LN_TRANSITIVE): the generator
 *   (opt/opt_gen_query.c, opt_gen.c, opt_gen_dml.c, opt_gen_cte.c) plans
 *   the join blocks, makes the physical choices and builds the operators
 *   of a whole tree.
 * - The optimizer is reached through sp_env_t.pe_opt (sql_opt_t below),
 *   which the statement runner fills with opt's entry points: sql ranks
 *   below opt and never includes it. A SELECT statement is bound to one
 *   tree and generated once (so_query), a DML statement likewise (so_dml),
 *   each subquery in an expression a node generated after the tree
 *   (so_subq; on demand when decorrelation reads its per-row plan); the
 *   binder still plans a decorrelating rebinding's block (so_block);
 *   opt/README.md, "Where the line is", says what moves next.
 * - Everything lives in the statement's arena; nothing here is freed.
 */
#ifndef CZ_SQL_LOGICAL_H
#define CZ_SQL_LOGICAL_H

#include "exec/exec.h"
#include "exec/exec_window.h"
#include "sql/sql_plan.h"

struct bd_s;        /* the binder's state (sql_bind_int.h), opaque outside sql */
struct bd_scope_s;  /* a query block's scope, likewise */

/* A LATERAL item that reads the columns of the items before it (a
 * derived table marked LATERAL, a function in FROM; sql_bind_lateral.c):
 * bound as a correlated subquery (ll_sq, its correlation values columns
 * of the rows it is joined to) whose query is the logical node ll_node,
 * filtered by ll_on (JOIN … ON over the item's row, the left row as
 * parameters; NULL none). The generator (opt/opt_lateral.c) builds the
 * node into ll_sq->xs_plan, once, and joins it per left row
 * (op_lateral). */
typedef struct lp_lateral_s {
  xsubq_t *ll_sq;
  const struct lp_node_s *ll_node;
  xnode_t *ll_on;
} lp_lateral_t;

/* One relation of a join block. */
typedef struct lp_rel_s {
  int un_base, un_width;        /* its columns in the block's row */
  const sp_table_t *un_table;   /* a plain table: its scan is planned with the joins */
  const char *un_alias;
  op_t *un_op;                  /* otherwise the input built while binding */
  const lp_lateral_t *un_lateral;   /* a LATERAL item reading the units before it, joined
                                     * to them first thing when the block is planned
                                     * (opt/opt_lateral.c; un_op NULL) */
  bool un_rowid;                /* the target of UPDATE … FROM / DELETE … USING: its scan
                                   also gives the row locator, block column
                                   un_base + tb_ncols (un_width = tb_ncols + 1) */
  /* JOIN_SEMI / JOIN_ANTI: a decorrelated subquery (sql_bind_decor.c),
   * joined after the units its conjuncts read, adding no columns to the
   * block's row (its own lie past it); JOIN_INNER otherwise */
  join_kind_t un_kind;
  bool un_null_aware;           /* ANTI of NOT IN */
  /* a decorrelated subquery: the conjunct it came from, its input's
   * estimated rows, and whether per row it would be an index probe (then
   * the planner compares both ways and may put the subquery back), with
   * the estimated cost of computing it once joined (0: one table, not
   * estimated) and of one run of it per row (0: not estimated) */
  int un_src_conj;
  /* a decorrelated subquery: what it was ("EXISTS", "NOT EXISTS", "IN",
   * "NOT IN", "IN, unique", "scalar subquery"), which EXPLAIN shows on the
   * join that brings it in ("decorrelated EXISTS"); NULL: not one */
  const char *un_decor;
  double un_sub_rows;
  double un_sub_cost;
  double un_row_cost;
  bool un_probe;
  /* a decorrelated subquery over one stored table (sql_bind_decor.c):
   * the table, the subquery's own conjuncts over the table's columns, and
   * per column of the unit the table column it is (-1: an expression),
   * so that the planner may join it by probing the table's indexes
   * (opt_join.c, an Index Lookup Semi / Anti Join); NULL: not one */
  const sp_table_t *un_look_table;
  const char *un_look_alias;
  int un_look_nown;
  xnode_t **un_look_own;
  int *un_look_col;
  /* a decorrelated scalar aggregate over un_look_table (un_look_own, and
   * un_look_col giving its keys' table columns, -1 for its value): it may
   * also be computed per outer row by an Index Lookup Aggregate (the
   * aggregates' arguments over the table's columns, the value over their
   * results); un_agg_only: only so, the grouped join would be wrong
   * (count() is 0, not a missing row, for a key without rows).
   * un_agg_n 0: not one */
  int un_agg_n;
  agg_spec_t *un_agg_specs;
  xnode_t *un_agg_val;
  bool un_agg_only;
  /* an explicit join (lp_outer_t), logical: the optimizer builds it
   * once, reading only the columns the block reads (opt_join.c
   * gen_units; NULL: not one) */
  const struct lp_outer_s *un_outer;
  /* a derived table (a subquery in FROM, a WITH query bound in place, a
   * view not merged) or a function in FROM: its logical node, generated when the optimizer
   * plans the block (opt_join.c gen_units), which then sets un_op to its
   * operators (NULL: not one) */
  const struct lp_node_s *un_node;
} lp_rel_t;

/* An equivalence class of equal columns (sql_logical_ec.c): columns of
 * the block's row that the WHERE's equalities make equal on every row
 * that passes, and the constant (or parameter) they equal, if one does. */
typedef struct lp_eclass_s {
  int ec_n;
  int *ec_cols;                 /* block row columns, ascending */
  xnode_t *ec_const;            /* a value without columns they all equal; NULL none */
  ty_t ec_type;
} lp_eclass_t;

/* A query block's FROM and WHERE: relations and conjuncts. */
typedef struct lp_block_s {
  int fb_nunits, fb_ucap;
  lp_rel_t *fb_units;           /* the FROM items (inner JOINs' items too), as written */
  int fb_nconj, fb_cap;
  xnode_t **fb_conj;            /* WHERE's (and inner JOINs' ON) conjuncts over the block's row */
  bool fb_estimate;             /* estimate even one unit, into the plan's o_est_rows
                                 * (a subquery being decorrelated) */
  const bool *fb_keep;          /* per conjunct: leave its subquery per row (NULL = none) */
  /* Set by bd_from_finish from the block's scope when the block is handed
   * to the optimizer (every expression of the block bound by then). */
  int fb_width;                 /* columns of the block's row */
  const bool *fb_used;          /* per row column: read by some expression (NULL = none) */
  int fb_used_cap;              /* entries of fb_used */
  xsubq_t *fb_subq;             /* the subquery the block belongs to, NULL at top */
  struct bd_scope_s *fb_scope;  /* for lp_decorrelate */
  /* Set by lp_eclasses (the optimizer calls it once the conjuncts are
   * final: after decorrelation and OR factoring). */
  int fb_nec;
  lp_eclass_t *fb_ec;
  int *fb_conj_ec;              /* per conjunct: the class a `col = col` of it joins, or
                                 * -1 (derived conjuncts too; NULL = not computed) */
  int fb_nderived;              /* the last fb_nderived conjuncts are implied by the
                                 * others (lp_eclasses added them) */
  /* The order wanted of the block's rows and how many of them a LIMIT
   * above reads (set by the binder when ORDER BY names only the block's
   * columns and nothing reorders between; fb_nord 0: none): a
   * one-table block may then read an index in that order and stop
   * early (opt_scan.c). fb_limit < 0: LIMIT not a constant. */
  int fb_nord;
  const sort_key_t *fb_order;   /* over the block's row */
  double fb_limit;
} lp_block_t;

/* An explicit join other than a plain inner one (whose items are units
 * of the block): LEFT, RIGHT (built as a swapped LEFT JOIN), FULL, or an
 * inner join with USING / NATURAL or an alias of its own, as bound: its
 * sides and ON (or the USING equalities) over [left, right] as written.
 * A side is a table (oj_lt / oj_rt, scanned when the join is built, for
 * the columns read), an explicit join again (oj_lo / oj_ro, built with
 * it, for the columns read), a derived table or function in FROM (oj_ln /
 * oj_rn: its logical node, generated with the join for the columns read),
 * or operators the binder built (oj_l / oj_r: a view's query generated
 * at once; NULL for the other kinds); the right side may be
 * a LATERAL item instead (oj_lat). The
 * optimizer builds it (opt_outer.c: the join method, the build side, a
 * primary-key lookup). FULL JOIN … USING / NATURAL appends the merged
 * columns (COALESCE of both sides) to the join's row: oj_extra over
 * [left, right]. */
typedef struct lp_outer_s {
  join_kind_t oj_kind;          /* JOIN_LEFT (RIGHT: oj_right too), JOIN_FULL, JOIN_INNER */
  op_t *oj_l, *oj_r;
  const sp_table_t *oj_lt, *oj_rt;
  const struct lp_outer_s *oj_lo, *oj_ro;
  const struct lp_node_s *oj_ln, *oj_rn;
  const char *oj_lalias, *oj_ralias;
  xnode_t *oj_cond;
  bool oj_right;                /* RIGHT JOIN */
  /* `l [LEFT] JOIN LATERAL item`: the right side is the item run per left
   * row (oj_kind JOIN_INNER or JOIN_LEFT; its ON is the item's ll_on, the
   * other right-side fields and oj_cond unset) */
  const lp_lateral_t *oj_lat;
  int oj_nextra;
  xnode_t **oj_extra;
} lp_outer_t;

/* ---- a query block's upper part (opt/opt_gen.c builds it) -------------
 *
 * What sits above a SELECT block's join block, as the binder leaves it:
 * bound and typed expressions, no operators and no physical choice (hash
 * or streaming group-by, parallel or not, where a Gather goes, a parallel
 * or top-k sort, whether the rows already come in ORDER BY's order: the
 * generator decides). Row layouts are fixed here, so that expressions
 * bound over them stay valid whatever the generator builds:
 * - the group-by's output is the keys, then one column per aggregate,
 *   then (grouping sets) one int4 per GROUPING(…) call;
 * - window k's input is lw_base columns wide (the block's row, or the
 *   group-by's output, plus the windows before it) and it adds one column
 *   per call, lw_base + f for call f;
 * - the projection's output is lu_targets, of which the first lu_nvis
 *   are the block's columns (the rest: ORDER BY / DISTINCT ON
 *   expressions and row locators, dropped at the end). */

/* GROUPING SETS / ROLLUP / CUBE (or GROUPING(…) over a plain GROUP BY):
 * the sets as lists of indexes into the group keys, and per set s the
 * value of each GROUPING(…) call g (lg_grp[s * lg_ngrp + g]). */
typedef struct lp_gsets_s {
  int lg_nsets;
  const int *lg_set_n;
  int *const *lg_sets;
  int lg_ngrp;
  const int32_t *lg_grp;
} lp_gsets_t;

/* One window (calls over equal windows share it): PARTITION BY and
 * ORDER BY keys and the calls' arguments over its input row, the frame,
 * the calls (wf_args index lw_args; -1 absent). */
typedef struct lp_window_s {
  int lw_base;                  /* width of its input row */
  int lw_npart, lw_norder;
  xnode_t **lw_part, **lw_ord;
  bool *lw_desc, *lw_nulls_first;
  xframe_t lw_unit;
  xbound_t lw_start, lw_end;
  xnode_t *lw_start_off, *lw_end_off;
  xexclude_t lw_exclude;
  int lw_nfn;
  xwin_fn_t *lw_fns;
  int lw_nargs;
  xnode_t **lw_args;
} lp_window_t;

/* FOR UPDATE / FOR SHARE: the tables whose rows are locked (ol_rid: a
 * projection column), the mode, and the recheck of a changed row (NULL:
 * none, such a row fails with 40001). */
typedef struct lp_lock_s {
  int lk_n;
  const oplock_tab_t *lk_tabs;
  int lk_strength;              /* QLOCK_FOR_KEY_SHARE … QLOCK_FOR_UPDATE (exec.h) */
  int lk_wait;                  /* QLOCK_WAIT, QLOCK_NOWAIT, QLOCK_SKIP */
  const oplock_recheck_t *lk_recheck;
} lp_lock_t;

typedef struct lp_upper_s {
  lp_block_t *lu_from;          /* the join block (planned before the generator runs) */
  int lu_width;                 /* its row's columns (the windows' input when not grouped) */
  bool lu_par;                  /* may run in parallel: a top-level block or an
                                 * uncorrelated subquery's (run once per execution) */
  bool lu_grouped;              /* aggregates, GROUP BY, HAVING or GROUPING(…) */
  int lu_ngroup;
  xnode_t **lu_group;           /* over the block's row */
  int lu_nagg;
  const agg_spec_t *lu_aggs;    /* arguments over the block's row */
  const lp_gsets_t *lu_sets;    /* NULL: one plain GROUP BY */
  xnode_t *lu_having;           /* over the group-by's output; NULL none */
  int lu_nagg_order;            /* ORDER BY inside the aggregates (one for the block): */
  xnode_t **lu_agg_order;       /* over the block's row; the group-by's input is sorted */
  const bool *lu_agg_order_desc, *lu_agg_order_nf;    /* by it (no streaming or parallel
                                                          group-by then) */
  int lu_nwin;
  const lp_window_t *lu_wins;   /* in order: each reads the one before */
  int lu_nsrf;                  /* set-returning functions of the select list: a
                                 * ProjectSet over the last window's (or group-by's,
                                 * or block's) row, 3 bounds each (exec_pg.h
                                 * op_project_set_new); the targets read its counters */
  xnode_t **lu_srf_bounds;
  int lu_srf_base;              /* the ProjectSet's input row: its counters follow it */
  int lu_ntarget, lu_nvis;
  xnode_t **lu_targets;         /* over the last window's (or group-by's, or block's) row */
  bool lu_distinct;
  int lu_ndon;
  const int *lu_don;            /* DISTINCT ON: target columns */
  int lu_nord;
  const sort_key_t *lu_keys;    /* ORDER BY (then DISTINCT ON's) over the targets */
  xnode_t *lu_limit, *lu_offset, *lu_top;   /* bigint; NULL none */
  const lp_lock_t *lu_lock;     /* NULL: no row locking */
} lp_upper_t;

/* ---- VALUES and set operations (opt/opt_gen_query.c builds them) -------
 *
 * A query that is not one SELECT block: VALUES rows, or a set operation
 * over two queries, with ORDER BY (of output columns) and LIMIT / OFFSET
 * over it; or a SELECT block (LN_SELECT: its lp_upper_t, whose lu_from is
 * its join block; its ORDER BY and LIMIT are the upper part's). A side is
 * a node again, or (LN_PLAN) operators the binder still builds. The same
 * node carries INSERT / UPDATE / DELETE (ln_dml), WITH RECURSIVE's union
 * and its working table, references to a materialised WITH query and
 * transitive(…) (below). */
typedef enum lp_nkind_e {
  LN_PLAN,                      /* operators already built: only a decorrelating
                                 * rebinding's block, shaped over its plan */
  LN_VALUES,
  LN_SETOP,
  LN_SELECT,                    /* one SELECT block: its join block and upper part */
  LN_FUNC,                      /* a function in FROM: a series of integers, each
                                 * number made into the function's row */
  LN_INSERT, LN_UPDATE, LN_DELETE,      /* ln_dml (lp_dml_t below) */
  LN_RECURSIVE,                         /* WITH RECURSIVE's union (below) */
  LN_WORKTABLE,                         /* its working table, read in its recursive term */
  LN_CTE,                               /* a reference to a materialised WITH query */
  LN_TRANSITIVE                         /* transitive(…) in FROM (below) */
} lp_nkind_t;

typedef struct lp_node_s {
  lp_nkind_t ln_kind;
  int ln_ncols;
  ty_t *ln_types;               /* the output's column types (a set operation's: the
                                 * sides' common types, modifiers and array-ness too) */
  op_t *ln_plan;                /* LN_PLAN */
  int ln_nrows;                 /* LN_VALUES: ln_nrows rows of ln_ncols expressions, */
  xnode_t ***ln_rows;           /* each of its column's type */
  setop_kind_t ln_setop;        /* LN_SETOP: UNION / EXCEPT / INTERSECT [ALL] */
  bool ln_all;
  const struct lp_node_s *ln_l, *ln_r;
  xnode_t **ln_lcast, **ln_rcast;   /* per column a side's value in the common type, over
                                     * the side's row; NULL: the side has those types */
  int ln_nord;
  const sort_key_t *ln_keys;    /* ORDER BY over the output; ln_nord 0: none */
  xnode_t *ln_limit, *ln_offset;    /* bigint; NULL none */
  const lp_upper_t *ln_upper;   /* LN_SELECT: ln_ncols is its lu_nvis */
  /* LN_FUNC (sql_bind_srf.c: generate_series, unnest, …): the numbers
   * ln_fn_lo .. ln_fn_hi by ln_fn_step (NULL: 1) of type ln_fn_type (their
   * values computed once per execution), and the row made of each: per
   * column an expression over [the number] (ln_fn_row NULL: the number) */
  ty_t ln_fn_type;
  xnode_t *ln_fn_lo, *ln_fn_hi, *ln_fn_step;
  xnode_t **ln_fn_row;
  const struct lp_dml_s *ln_dml;    /* LN_INSERT, LN_UPDATE, LN_DELETE */
  /* LN_RECURSIVE (opt/opt_gen_cte.c): ln_l the non-recursive term, ln_r
   * the recursive term (ln_rcast: its values in ln_l's types, NULL: it
   * has them) reading ln_wt, the rows of the iteration before, through
   * its one LN_WORKTABLE node (ln_wt the same, ln_types ln_l's); ln_all:
   * UNION ALL, else rows already produced are dropped. */
  struct lp_wtable_s *ln_wt;
  /* LN_CTE (opt/opt_gen_cte.c): the WITH query every reference to it
   * reads */
  struct lp_cte_s *ln_cte;
  /* LN_TRANSITIVE (sql_bind_transitive.c, opt/opt_gen_cte.c): the
   * transitive closure of ln_l's edges (two bigint columns), from the
   * bigint ln_tr_start and / or to ln_tr_stop (NULL: not given), or from
   * each of ln_r's roots (one bigint column; NULL: none), in at least
   * ln_tr_min (0 or 1) steps: exec op_transitive's pairs */
  xnode_t *ln_tr_start, *ln_tr_stop;
  int ln_tr_min;
} lp_node_t;

/* WITH RECURSIVE's working table: wt_op is the generator's, made by
 * opt_gen_recursive before it generates the recursive term, whose
 * LN_WORKTABLE leaf returns it (NULL before; a recursive union generated
 * again makes a new one for that generation). */
typedef struct lp_wtable_s {
  const char *wt_name;
  op_t *wt_op;
} lp_wtable_t;

/* A materialised WITH query (sql_bind_cte.c decides which are): its
 * body is computed once per execution into a worktable that every
 * reference (an LN_CTE node) reads. lc_mat is the generator's: made when
 * the first reference is generated, shared by the others, NULL before. */
typedef struct lp_cte_s {
  const char *lc_name;
  const lp_node_t *lc_body;
  op_cte_t *lc_mat;
} lp_cte_t;

/* A subquery in an expression (an X_SUBQ's xsubq_t; sql_bind_expr.c,
 * sql_bind_array.c): its query as a logical node, which the generator
 * (opt/opt_gen_query.c opt_gen_subq) builds into ls_sq->xs_plan — for
 * every subquery of the statement once its tree is generated, or earlier
 * when decorrelation asks for the per-row plan (its types and estimated
 * cost; sql_bind_decor.c) — and over it, when set, ls_proj: its one
 * column computed over the node's row (IN's value in the comparison's
 * type, ARRAY()'s element as text), then with ls_array its rows gathered
 * into one array (ARRAY(subquery)). ls_decor: bound inside a
 * decorrelating rebinding, generated as then (lp_ctx_t lc_decor: no
 * parallel plans). */
typedef struct lp_subq_s {
  xsubq_t *ls_sq;
  const lp_node_t *ls_node;
  xnode_t *ls_proj;
  bool ls_array;
  bool ls_decor;
} lp_subq_t;

/* ---- INSERT, UPDATE and DELETE (opt/opt_gen_dml.c builds them) ---------
 *
 * A data-changing statement as the binder leaves it: the target, where
 * its rows come from, the row handed to the writer, and what the writer
 * does besides writing — every expression bound and typed over the rows
 * fixed here, no operator of its own. The generator builds, bottom up: the source (INSERT's VALUES
 * or query; a one-table UPDATE / DELETE's target scan, whose access path
 * — key lookup, index or table scan — and columns read are the
 * optimizer's; UPDATE … FROM / DELETE … USING's planned join block) →
 * projection to the written row → WITH CHECK OPTION filter → buffer →
 * the writer (ON CONFLICT, joined-row and recheck settings) → RETURNING.
 *
 * Rows:
 * - INSERT: ld_src's row; ld_out (ld_nout = the table's columns) gives
 *   each table column over it (NULL ld_out: the source is VALUES rows
 *   already of the table's columns and types).
 * - one-table UPDATE / DELETE (ld_src NULL): the target scan's row is
 *   [the table's columns (those ld_need marks; the others NULL), the row
 *   locator]; ld_conj (WHERE, and a view's WHERE) over it.
 * - UPDATE … FROM / DELETE … USING: ld_from's row is [target columns,
 *   locator, the other items' columns] (sql_bind_dml_from.c).
 * - UPDATE's ld_out: the new values, the locator, then columns only
 *   passed on; DELETE writes its input row as it is (ld_out NULL). With
 *   ld_from, an entry of ld_out or ld_rk_out (ld_nout entries each) that
 *   is NULL is the source row's column at that position, as the
 *   generator's plan types it.
 * - RETURNING (ld_ret) reads the writer's input row. */
typedef struct lp_dml_s {
  const sp_table_t *ld_table;
  const lp_node_t *ld_src;      /* the rows (see above); NULL: the target's scan or ld_from */
  lp_block_t *ld_from;          /* UPDATE … FROM / DELETE … USING: the join block of the
                                 * target and the other items, planned by the generator */
  const char *ld_alias;         /* the target scan's (EXPLAIN) */
  int ld_nconj;
  xnode_t *const *ld_conj;      /* the target scan's conjuncts */
  const bool *ld_need;          /* per table column: read by the statement */
  int ld_nout;
  xnode_t **ld_out;             /* the writer's input over the source row; NULL: as it is */
  xnode_t *ld_check;            /* WITH CHECK OPTION over the writer's input; NULL none */
  bool ld_self_read;            /* INSERT … SELECT reading its target: the source is
                                 * buffered whole before the first row is written */
  const bool *ld_set;           /* UPDATE: per table column, whether SET gives it */
  bool ld_joined;               /* FROM / USING: a target row may come once per row it
                                 * joined (op_dml_set_joined: locator at the table's
                                 * column count; UPDATE writes that many + 1 columns) */
  /* INSERT … ON CONFLICT: the arbiter index (0 the primary key, -1 every
   * unique index); DO UPDATE's SET (ld_conf_set / ld_conf_x, NULL: DO
   * NOTHING) and WHERE over [existing row, its locator, excluded row] */
  bool ld_conflict;
  int ld_conf_index;
  const bool *ld_conf_set;
  xnode_t **ld_conf_x;
  xnode_t *ld_conf_where;
  /* READ COMMITTED's recheck of a row another transaction changed
   * (op_dml_set_recheck): WHERE over the source row and, per column of
   * the writer's input, its expression over it (ld_rk_out NULL: no
   * recheck, such a row fails with 40001) */
  xnode_t *ld_rk_where;
  xnode_t **ld_rk_out;
  int ld_nret;
  xnode_t **ld_ret;             /* RETURNING over the writer's input row; NULL none */
} lp_dml_t;

/* What one call into the optimizer works with. */
typedef struct lp_ctx_s {
  arena_t *lc_a;                /* the statement's arena: plans live here */
  const sp_env_t *lc_env;
  err_t *lc_e;
  struct bd_s *lc_b;            /* the binder, for the services below */
  bool lc_decor;                /* inside a decorrelating rebinding (no parallel plans) */
} lp_ctx_t;

/* The optimizer's entry points (libsrc/opt fills one: opt_entry()). */
typedef struct sql_opt_s {
  /* The operators producing fb's row (fb_width columns; columns nobody
   * reads may be NULL), with the conjuncts applied. */
  int (*so_block)(lp_ctx_t *c, lp_block_t *fb, op_t **out);
  /* The operators of a query node (opt/opt_gen_query.c): a SELECT block
   * (its join block planned, then its upper part, opt/opt_gen.c), a
   * VALUES list or a set operation, derived tables in FROM generated as
   * their blocks are planned. */
  int (*so_query)(lp_ctx_t *c, const lp_node_t *n, op_t **out);
  /* The operators of INSERT / UPDATE / DELETE (opt/opt_gen_dml.c): out
   * the statement's root, writer its modify operator (under RETURNING). */
  int (*so_dml)(lp_ctx_t *c, const lp_node_t *n, op_t **out, op_t **writer);
  /* A subquery in an expression: its operators into s->ls_sq->xs_plan. */
  int (*so_subq)(lp_ctx_t *c, const lp_subq_t *s);
} sql_opt_t;

/* ---- binder services the optimizer calls (implemented in sql) ---------- */

xnode_t *bd_node(struct bd_s *b, xkind_t kind, ty_t type, int pos);
xnode_t *bd_col(struct bd_s *b, int index, ty_t type);
xnode_t *bd_const_null(struct bd_s *b, ty_t type);
xnode_t *bd_const_i64(struct bd_s *b, ty_id_t id, int64_t v);
/* Converts n to type `to`: folds untyped literals (22P02 on bad text:
 * NULL returned, b_e set), types untyped parameters, else wraps an
 * X_CAST. */
xnode_t *bd_coerce(struct bd_s *b, xnode_t *n, ty_t to);
/* Explicit CAST: also checks xcast_allowed (42846). */
xnode_t *bd_cast(struct bd_s *b, xnode_t *n, ty_t to, int pos);
bool bd_node_equal(const xnode_t *x, const xnode_t *y);
bool bd_node_has_subq(const xnode_t *x);
/* A copy of x whose X_COL n reads column map[n] (for moving a condition
 * to another row layout; x holds no subquery). */
xnode_t *bd_node_remap(struct bd_s *b, const xnode_t *x, const int *map);
/* Calls fn on every X_COL of x (and of subquery correlations). */
void bd_node_cols(xnode_t *x, void (*fn)(void *ctx, xnode_t *col), void *ctx);
/* n, or the constant it computes when it is immutable over constants
 * (sql_bind_fold.c); never fails: an error leaves n for run time. */
xnode_t *bd_fold(struct bd_s *b, xnode_t *n);
/* Whether n is immutable over constants, so that bd_fold computes it: a
 * bound node still of that shape was left because computing it fails
 * (its error belongs to the rows that evaluate it). */
bool bd_foldable(const xnode_t *n);
/* Binds an operator with already bound operands (r NULL for unary). */
int bd_op(struct bd_s *b, xop_t op, xnode_t *l, xnode_t *r, int pos, xnode_t **out);
/* Lists sq among the statement's subqueries (after its parent's). */
void bd_subq_register(struct bd_s *b, xsubq_t *sq);
/* A parameter of type t standing for correlation value k of the
 * subquery it is used in (numbered after the statement's parameters
 * once the statement is bound). */
xnode_t *bd_param_corr(struct bd_s *b, ty_t t, int k);
/* Splits an AND tree into conjuncts (appends to *list). */
void bd_conjuncts(struct bd_s *b, xnode_t *x, xnode_t ***list, int *n, int *cap);
/* The AND of conj[0..n) (NULL entries skipped; NULL when none). */
xnode_t *bd_and_all(struct bd_s *b, xnode_t **conj, int n);
/* A join of l and r (r's columns after l's) over cond: `l col = r col`
 * conjuncts of one type become hash keys (built on r), the rest the
 * residual; without keys a nested loop (sql_bind_from.c). */
op_t *bd_join_op(struct bd_s *b, op_t *l, op_t *r, join_kind_t kind, xnode_t *cond);
/* Decorrelation (sql_bind_decor.c): WHERE's EXISTS / NOT EXISTS / IN /
 * NOT IN and scalar-comparison conjuncts whose subquery can give up its
 * correlation become SEMI / ANTI / grouped relations of fb (rebinding the
 * subquery's text); fb_keep marks those to leave per row. */
int lp_decorrelate(lp_ctx_t *c, lp_block_t *fb);
/* Equivalence classes of fb's row (sql_logical_ec.c): from its
 * conjuncts `col = col` (one type) and `col = value` (value free of
 * columns, subqueries and volatile functions, of the column's type), over
 * the block's own row (never a decorrelated subquery's columns, never an
 * outer join's ON). Appends the conjuncts the classes imply and no
 * conjunct states: `a = c` for columns of different relations, and
 * `b = value` for each column of a class with a value. Each is implied by
 * the conjuncts already there, so no answer changes: they only give the
 * search join edges and the scans key bounds. */
int lp_eclasses(lp_ctx_t *c, lp_block_t *fb);

#endif /* CZ_SQL_LOGICAL_H */
