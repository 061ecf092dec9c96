/* exec — the vectored executor: operator trees that pass batches of rows.
 *
 * Design notes (exec/README.md has the details):
 * - A plan is a tree of operators (op_t). Each operator produces batches of
 *   at most q_vector_size rows through ov_next; a batch travels with a
 *   selection vector (obatch_t) so that a filter selects rows without
 *   copying them (DESIGN.md §2.9). There is no row-at-a-time path.
 * - A finished plan is immutable: op_t, every operator's plan struct,
 *   xsubq_t and xnode_t hold only what the planner decided and are never
 *   written while a plan runs (the ov_* functions take const op_t *).
 *   Everything an execution changes — arenas, hash tables, sort buffers,
 *   cursors, positions, row counters, EXPLAIN ANALYZE figures, spill
 *   files, subquery contexts and caches — is a run state (opst_t and what
 *   an operator adds to it) in the execution's qexec_t, reached from the
 *   qctx_t and created at the first open. So one plan runs any number of
 *   times, and at once in many executions: sessions, portals, threads.
 * - Memory: each operator's run state has os_state (reset at open) for
 *   what lives for one execution (hash tables, sort buffers) and os_batch
 *   (reset at each ov_next) for the batch it returns. A batch returned by
 *   ov_next is valid until the next ov_next or ov_close of the same
 *   operator in the same execution.
 * - Expressions are xnode_t trees (exec/expr.h) over the operator's input
 *   columns; subqueries are X_SUBQ nodes whose x_subq is an xsubq_t.
 */
#ifndef CZ_EXEC_H
#define CZ_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/expr.h"
#include "types/types.h"
#include "util/util.h"

typedef struct op_s op_t;
typedef struct op_order_s op_order_t;
typedef struct qctx_s qctx_t;
typedef struct opst_s opst_t;     /* an operator's run state (exec_int.h) */
typedef struct qexec_s qexec_t;   /* one execution's run states (exec_state.c) */

/* SQLSTATEs raised by the executor. */

/* A batch and the rows of it that are selected. */
typedef struct obatch_s {
  batch_t *ob_b;        /* NULL at the end of the stream */
  const int *ob_sel;    /* selected row indexes ascending; NULL = all b_n */
  int ob_n;             /* number of selected rows */
} obatch_t;

/* Access to stored tables is a service of the layers below the planner
 * (the engine, through catalog/table; the column store): every table
 * handle the planner puts in an operator starts with a qtable_t whose
 * operations the executor calls, so exec does not depend on how rows are
 * stored and tables of different kinds mix in one plan. */
typedef struct qtable_ops_s qtable_ops_t;
typedef struct qtable_s {
  const qtable_ops_t *qt_ops;
} qtable_t;

/* One execution of a plan: parameters, cancellation, memory, the
 * transaction. Subqueries get a child context with their own parameters. */
struct qctx_s {
  arena_t *q_arena;             /* this execution's memory */
  const datum_t *q_params;      /* statement params, then correlation values */
  const ty_t *q_param_types;
  int q_nparams;
  int q_vector_size;            /* rows per batch */
  int64_t q_max_mem;            /* MaxQueryMem bytes; 0 = unlimited */
  mem_budget_t *q_budget;       /* what the execution's arenas are charged to
                                   (limit q_max_mem); NULL = not counted */
  volatile bool *q_cancel;      /* set by another thread: 57014 */
  void *q_txn;                  /* the table layer's transaction */
  void *q_tops_ctx;             /* the engine's session: for the table
                                   operations and as xctx_t xc_session
                                   (catalog functions) */
  qctx_t *q_parent;             /* the enclosing query for subqueries */
  int64_t q_stmt_ts;            /* statement start (TIMESTAMP) for now(); 0 = clock */
  struct spill_reg_s *q_spill;  /* the execution's temporary files (spill.h): on the
                                   root context only; spill_end deletes them */
  qexec_t *q_exec;              /* the run states of the operators, subqueries and
                                   expressions this context runs, in q_arena; NULL
                                   until the first open (qexec_of) */
  /* parallel execution (set where executions are set up; read by the
   * operator that runs a subtree on several threads) */
  struct qw_pool_s *q_workers;  /* the server's query workers (thread.h qw_*): a
                                   parallel part leases up to q_threads - 1 of them,
                                   gets what is free; NULL = this thread only */
  int q_threads;                /* [Parameters] ThreadsPerQuery: threads one execution
                                   may use, its own included (>= 1; 0 read as 1) */
};

/* An operator's code. st is o's run state in q's execution: ov_run_size
 * bytes (at least sizeof(opst_t), which it starts with), zeroed when first
 * created, then kept (its arenas reset) across re-opens in the same
 * execution; ov_open must (re)set every field it reads. Tables are written
 * with designated initialisers: a field left out is NULL (0), so adding a
 * field touches only the operators that use it. */
typedef struct op_vt_s {
  const char *ov_name;          /* for EXPLAIN */
  int (*ov_open)(const op_t *o, opst_t *st, qctx_t *q, err_t *e);
  /* out->ob_b NULL: no more rows. */
  int (*ov_next)(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e);
  void (*ov_close)(const op_t *o, opst_t *st, qctx_t *q);
  /* Extra text after the name on the EXPLAIN line; may be NULL. */
  char *(*ov_detail)(const op_t *o, arena_t *a);
  size_t ov_run_size;           /* 0 = sizeof(opst_t): nothing of its own */
  /* The column of its first input that output column col is, unchanged,
   * when every output row comes from one input row and whether one input
   * row gives output does not depend on the others (a filter, a
   * projection, the preserved side of a join): a row dropped below such
   * an operator could not have reached its output by another way. -1
   * when col is computed; NULL for every other operator. Runtime
   * filters (op_rfilter.c) walk down through these. */
  int (*ov_pass_col)(const op_t *o, int col);
  /* The order its output rows are known to come in (op_order.c); NULL:
   * none known. */
  void (*ov_order)(const op_t *o, op_order_t *out);
} op_vt_t;

/* The plan part of an operator: what the planner decided. Never written
 * once the plan runs. */
struct op_s {
  const op_vt_t *o_vt;
  int o_ncols;                  /* output columns */
  ty_t *o_types;
  op_t *o_in;                   /* first input, NULL for leaves */
  op_t *o_in2;                  /* second input (joins, set operations) */
  double o_est_rows;            /* the planner's estimates for EXPLAIN; < 0 unknown */
  double o_est_cost;
  const char *o_why;            /* the planner's reason for this operator, shown by
                                   EXPLAIN: "decorrelated EXISTS", "SubPlan (per row)";
                                   NULL: none */
  int o_depth;
};

/* ---- the storage hooks ------------------------------------------------ */

typedef struct qscan_s qscan_t;   /* the table layer's cursor */
typedef struct qprobe_s qprobe_t; /* the table layer's index-prefix probe (qt_probe_*) */

/* A key range for a scan: bounds on a prefix of the index's key columns
 * given as datums of the key columns' types. A row qualifies when its
 * first qr_nlow key columns compare (lexicographically) above qr_low, or
 * equal with qr_low_incl, and likewise below qr_high; a bound of 0
 * columns is open. Equal low and high with both inclusive is a lookup of
 * a key prefix. */
typedef struct qrange_s {
  int qr_nlow;                  /* key columns given for the low bound */
  const datum_t *qr_low;
  bool qr_low_incl;
  int qr_nhigh;
  const datum_t *qr_high;
  bool qr_high_incl;
  bool qr_backward;             /* rows in descending key order (NULLs first), for
                                   ORDER BY … DESC: asked only of tables whose
                                   keys the planner knows (sp_table_t tb_pk) */
  int qr_align;                 /* qt_scan_split only: no range boundary between keys
                                   equal on the index's first qr_align key columns
                                   (0: anywhere) */
} qrange_t;

/* A simple predicate pushed into a scan: output column qp_col of the scan
 * compared with values computed when the scan opens. A row comes out only
 * when all its scan's predicates are true, so a NULL passes nothing but
 * QP_NULL. Values have the column's physical kind and compare as the
 * executor compares them (exec/ex_cmp.c: strings bytewise, NUMERIC by
 * value, NaN largest); they are never NULL (op_scan drops NULL list items
 * and skips the scan when a comparison's value is NULL). */
typedef enum qpred_op_e {
  QP_EQ, QP_NE, QP_LT, QP_LE, QP_GT, QP_GE,
  QP_IN,                        /* one of qp_vals */
  QP_NOT_IN,                    /* none of qp_vals (and not NULL) */
  QP_NULL, QP_NOT_NULL
} qpred_op_t;

typedef struct qpred_s {
  int qp_col;
  qpred_op_t qp_op;
  bool qp_rtrim;                /* the column's trailing blanks do not count
                                   (CHAR(n) compared as bpchar) */
  int qp_nvals;
  const datum_t *qp_vals;
} qpred_t;


/* INSERT … ON CONFLICT (qt_conflict_*): the storage's per-statement
 * state, what became of each proposed row, and DO UPDATE's evaluation:
 * for proposals sel[0..n) of b, ex holds at the same row numbers the row
 * each conflicts with (the table's columns, then its locator); eval fills
 * those rows of newv (the table's columns: SET's values, the others from
 * ex) and ok[row] (DO UPDATE's WHERE holds). */
typedef struct qconflict_s qconflict_t;
#define QCF_SKIPPED 0
#define QCF_INSERTED 1
#define QCF_UPDATED 2
typedef int (*qcf_eval_t)(void *ctx, const batch_t *ex, const batch_t *b, const int *sel, int n,
                          batch_t *newv, bool *ok, err_t *e);


/* Statistics of a stored table for the optimizer (qt_stats). Estimates,
 * never exact; an unknown figure is < 0. */
typedef struct qcolstats_s {
  double qc_ndv;                /* distinct non-NULL values */
  double qc_null_frac;          /* fraction of rows with NULL here */
  double qc_avg_width;          /* bytes of a non-NULL value */
} qcolstats_t;

typedef struct qstats_s {
  double qs_rows;               /* rows the table holds (committed) */
  int qs_ncols;
  const qcolstats_t *qs_cols;   /* per table column (qs_ncols of them) */
} qstats_t;
/* ---- parallel scans: the types (the operations are the last block of
 * qtable_ops_s) ----------------------------------------------------------
 * A scan cut into contiguous key ranges (a split) that several worker
 * threads read together through a morsel dispenser. Both are the
 * storage's own objects, made on the session's thread and read by the
 * workers; the caller keeps them (in its arena) until every scan on them
 * is closed. */
typedef struct qsplit_s qsplit_t;       /* a scan's range cut into ranges */
typedef struct qmorsels_s qmorsels_t;   /* hands a split's ranges to scans, thread-safe */

/* READ COMMITTED's re-evaluation of a changed row (PostgreSQL's
 * EvalPlanQual), given to qt_update / qt_delete: when a row of the batch
 * was changed or deleted by a transaction that committed after the scan
 * read it, the storage locks it and calls qe_fn with the batch row: cur
 * NULL (deleted: skipped), else the current version's columns and row
 * identity (valid during the call). qe_fn rewrites that batch row from
 * them (every column, the row identity too; values must outlive the
 * batch) and sets *pass, or leaves *pass false (no longer qualifies:
 * skipped). Under a snapshot, or without one (NULL), such a row is 40001. */
typedef struct qepq_s {
  int (*qe_fn)(void *ctx, int row, const datum_t *cur, const uint8_t *rid, size_t rid_len,
               bool *pass, err_t *e);
  void *qe_ctx;
} qepq_t;

/* The operations of a table handle; tab is always the handle itself. */
struct qtable_ops_s {
  /* Opens a scan of index idx (0 = the table's primary index) of table tab
   * returning columns cols[0..ncols) (table column numbers, 0-based) in
   * that order; range may be NULL (all rows); only rows passing the
   * predicates preds[0..npred) come back (they live as long as the scan).
   * want_rowid adds a last column with the row's identity (BYTEA, opaque)
   * for UPDATE/DELETE. */
  int (*qt_scan_open)(qctx_t *q, void *tab, int idx, const int *cols, int ncols,
                      const qrange_t *range, const qpred_t *preds, int npred, bool want_rowid,
                      arena_t *a, qscan_t **out, err_t *e);
  /* Fills up to out->b_cols[0].v_cap rows; sets out->b_n (0 = end). */
  int (*qt_scan_next)(qctx_t *q, qscan_t *s, batch_t *out, arena_t *a, err_t *e);
  void (*qt_scan_close)(qctx_t *q, qscan_t *s);
  /* Inserts rows sel of b (all the table's columns in order). */
  int (*qt_insert)(qctx_t *q, void *tab, const batch_t *b, const int *sel, int n, err_t *e);
  /* Updates rows: b holds all the table's columns (new values) and the
   * row identity as its last column; set (NULL = every column) marks the
   * columns the statement sets: the others keep their stored values and
   * their vectors in b are not read. epq (may be NULL): changed rows are
   * re-evaluated (qepq_t). */
  int (*qt_update)(qctx_t *q, void *tab, const batch_t *b, const bool *set, const int *sel,
                   int n, const qepq_t *epq, err_t *e);
  /* Deletes rows identified by the row identities in column rid of b
   * (epq as qt_update). */
  int (*qt_delete)(qctx_t *q, void *tab, const batch_t *b, int rid, const int *sel, int n,
                   const qepq_t *epq, err_t *e);
  /* Point lookups by the whole primary key: keys[i] holds row i's key
   * values (the key columns' types); fills row i of out (columns cols, out
   * created with capacity >= n) and found[i]. NULL when the
   * storage has none: the join operator then fails (XX000). */
  int (*qt_lookup)(qctx_t *q, void *tab, const datum_t *const *keys, int n, const int *cols,
                   int ncols, batch_t *out, bool *found, arena_t *a, err_t *e);
  /* INSERT … ON CONFLICT, both DO NOTHING and DO UPDATE: the storage
   * finds the conflicting rows (one vectored probe per batch) and settles
   * each proposal under its locks; the executor only evaluates DO
   * UPDATE's SET and WHERE (eval). qt_conflict_open starts one
   * statement's (arbiter `index`: 0 the primary key, else a unique
   * index's number; -1 every unique index, DO NOTHING only; eval NULL =
   * DO NOTHING); qt_conflict_apply proposes rows sel of b (every column)
   * in order: act[row] is QCF_*, *newv (in a, rows aligned with b) each
   * inserted or updated row as written. 21000 when DO UPDATE would change
   * a row this statement inserted or updated. NULL when the storage has
   * no unique indexes (0A000). */
  int (*qt_conflict_open)(qctx_t *q, void *tab, int index, qcf_eval_t eval, void *ctx,
                          const bool *set, arena_t *a, qconflict_t **out, err_t *e);
  int (*qt_conflict_apply)(qctx_t *q, qconflict_t *c, const batch_t *b, const int *sel, int n,
                           uint8_t *act, batch_t **newv, arena_t *a, err_t *e);

  /* ---- statistics and samples for the optimizer --------------------------
   * Called while a statement is planned, with no execution (no qctx):
   * they see committed rows only and cost a few page visits, never a
   * scan. NULL members: the storage keeps none (the planner then uses
   * its defaults). */
  /* The table's statistics (row count, per column distinct values, NULL
   * fraction, width), kept current as rows change; out's arrays in a. */
  int (*qt_stats)(void *tab, arena_t *a, qstats_t *out, err_t *e);
  /* A key range of index idx (0 the primary index; range NULL = all of
   * it): *rows the rows it holds, estimated from the index's tree (where
   * the range's ends fall on two descents; exact when they fall on one
   * leaf); and when n > 0 up to n rows drawn at random from the range
   * (seeded: the same data gives the same rows, and so the same plan),
   * columns cols[0..ncols) into out (capacity >= n; out->b_n set; a row
   * may come twice). */
  int (*qt_sample)(void *tab, int idx, const qrange_t *range, int n, uint64_t seed,
                   const int *cols, int ncols, batch_t *out, double *rows, arena_t *a, err_t *e);
  /* ---- parallel scans (scans split into morsels) ----------------------
   * NULL when the storage cannot split its scans (catalog relations): the
   * caller then scans on one thread. What the worker threads may do
   * meanwhile: table/README.md, "Parallel scans" (reads only; writes stay
   * on the session's thread). */
  /* Cuts the scan of index idx over range (NULL: every row) into about n
   * (1..4096) contiguous, disjoint key ranges that together hold exactly
   * the rows the plain scan returns, balanced by the index's upper levels
   * (no row is read); *nout says how many: fewer when the range spans few
   * pages, 1 for a table of one page, an empty table or an empty range.
   * range->qr_align > 0: rows equal on the index's first qr_align key
   * columns fall in one range (a streaming group-by per thread).
   * On the session's thread; the split lives in a. */
  int (*qt_scan_split)(qctx_t *q, void *tab, int idx, const qrange_t *range, int n, arena_t *a,
                       qsplit_t **out, int *nout, err_t *e);
  /* A morsel dispenser over the split's ranges, on the session's thread
   * (q->q_txn: every scan on it reads the transaction as of this moment,
   * as one scan would). Lives in a. */
  int (*qt_morsels_open)(qctx_t *q, void *tab, const qsplit_t *sp, arena_t *a, qmorsels_t **out,
                         err_t *e);
  /* Opens a scan on the dispenser m, on any thread (q: that thread's
   * context, in the same transaction; a: that thread's arena): columns,
   * predicates and row identity as qt_scan_open, over the split's index
   * and range. Each qt_scan_next fills its batch from one range, rows in
   * key order, and takes the next free range when its own is done, so a
   * fast worker reads more ranges; 0 rows: no range left. Closed with
   * qt_scan_close. The scans on one dispenser together return exactly
   * the rows of the plain scan, each once. */
  int (*qt_scan_open_morsels)(qctx_t *q, void *tab, qmorsels_t *m, const int *cols, int ncols,
                              const qpred_t *preds, int npred, bool want_rowid, arena_t *a,
                              qscan_t **out, err_t *e);
  /* A writing operator's input has ended (after its last qt_insert /
   * qt_update / qt_delete / qt_conflict_apply): the storage's checks that
   * wait for the end of the statement (foreign keys) run here. NULL: none. */
  int (*qt_modify_end)(qctx_t *q, void *tab, err_t *e);

  /* ---- index-prefix probes (the index lookup join, op_lookup.c) ----------
   * The rows of index idx (0 = primary; unique or not) whose first nkey
   * key columns equal given prefixes, a batch of prefixes at a time.
   * qt_probe_open, once per execution of the join (the probe reads as of
   * that moment): columns cols[0..ncols) (ncols >= 1) of the rows passing
   * preds (kept by reference). qt_probe_keys starts a batch: prefixes are
   * rows sel[0..n) (NULL: 0..n-1) of the vectors keys[0..nkey) (the key
   * columns' types; no NULL in a prefix given); equal prefixes are read
   * once: same[j] (when not NULL) is the next position in sel with a
   * prefix equal to position j's, -1 none. qt_probe_next fills out (ncols
   * columns, up to its capacity) with the next matching rows, each
   * distinct prefix's once, at[i] the first position in sel of the prefix
   * row i matched; out->b_n = 0 when the batch is done. Keys and batch
   * state live in a (qt_probe_keys's) until the next qt_probe_keys. NULL
   * when the storage has none (the planner then makes no such join). */
  int (*qt_probe_open)(qctx_t *q, void *tab, int idx, int nkey, const int *cols, int ncols,
                       const qpred_t *preds, int npred, arena_t *a, qprobe_t **out, err_t *e);
  int (*qt_probe_keys)(qctx_t *q, qprobe_t *p, const vec_t *const *keys, const int *sel, int n,
                       int *same, arena_t *a, err_t *e);
  int (*qt_probe_next)(qctx_t *q, qprobe_t *p, batch_t *out, int *at, arena_t *a, err_t *e);
  void (*qt_probe_close)(qctx_t *q, qprobe_t *p);

  /* ---- row locks (SELECT … FOR UPDATE / FOR SHARE, op_lockrows.c) -------
   * Locks the row rid names (a row identity a scan gave), shared or
   * exclusive, waiting for conflicting holders unless nowait, and says in
   * *st what became of it (QLOCK_*). QLOCK_CHANGED with cur not NULL: cur
   * (one datum per table column) holds its current values (in a). NULL:
   * the storage has no row locks (0A000). strength: QLOCK_FOR_*. */
  int (*qt_lock_row)(qctx_t *q, void *tab, const uint8_t *rid, size_t rid_len, int strength,
                     bool nowait, datum_t *cur, arena_t *a, int *st, err_t *e);
};

/* qt_lock_row's strengths, PostgreSQL's four: KEY SHARE conflicts only
 * with UPDATE (and with writers that delete or change the key), SHARE
 * with NO KEY UPDATE and UPDATE (and every writer), NO KEY UPDATE with
 * all but KEY SHARE (as an update that keeps the key), UPDATE with all. */
#define QLOCK_FOR_KEY_SHARE 1
#define QLOCK_FOR_SHARE 2
#define QLOCK_FOR_NO_KEY_UPDATE 3
#define QLOCK_FOR_UPDATE 4

/* qt_lock_row's outcomes. */
#define QLOCK_OK 0        /* locked; the version the row identity was read from */
#define QLOCK_CHANGED 1   /* locked; changed (and committed) by another since */
#define QLOCK_GONE 2      /* deleted since */
#define QLOCK_BUSY 3      /* nowait: held by another in a conflicting mode */

/* ---- running operators ------------------------------------------------- */

/* o's run state in q's execution is created at the first open (and
 * reset by every open); op_close of an operator never opened in q's
 * execution does nothing. */
int op_open(const op_t *o, qctx_t *q, err_t *e);
int op_next(const op_t *o, qctx_t *q, obatch_t *out, err_t *e);
void op_close(const op_t *o, qctx_t *q);
/* 57014 when the context (or an enclosing one) was cancelled. */
int op_check_cancel(qctx_t *q, err_t *e);
/* 53200 when the execution's memory budget is exceeded (op_next checks it
 * before every batch). */
int op_check_budget(const qctx_t *q, err_t *e);
/* The 53200 error for budget b (MEM_OVER_* in mb_exceeded). */
int op_budget_error(const mem_budget_t *b, int64_t limit, err_t *e);
/* Copies the selected rows of ob into a dense batch in a (strings too). */
batch_t *op_compact(const obatch_t *ob, int ncols, arena_t *a, err_t *e);

/* The EXPLAIN text of a tree: one line per operator, children indented
 * two spaces more than their parent; with run (EXPLAIN ANALYZE: the
 * context the tree ran in, before its execution ends), the rows, time and
 * memory of each operator in that execution. Allocated in a. */
char *op_explain(const op_t *root, const qctx_t *run, arena_t *a);

/* ---- executions ---------------------------------------------------------
 *
 * An execution is a root qctx_t set up by its caller (the engine): arena,
 * parameters, vector size, budget, cancel flag, transaction. Its run
 * states live in q_arena and go with it; qexec_end forgets them (the
 * engine calls it, through en_qmem_detach, before releasing q_arena). */
void qexec_end(qctx_t *q);

/* A worker's context for running a subtree of the plan that `parent` is
 * running, on another thread (parallel execution; exec/README.md,
 * "Executions and workers"). Shared with parent: the parameters, the
 * transaction and session, the cancel flag, the memory budget, the
 * statement timestamp and the spill registry (created here if missing, so
 * that workers never race to create it). Its own: an arena (a child of
 * parent's q_arena, charged to the same budget) and with it a fresh set of
 * run states: every operator, subquery and cache the worker opens gets
 * its own state. Call on the thread that owns parent, before the worker
 * starts; the worker then uses w alone. qctx_worker_end (on the owning
 * thread, after the worker stopped and closed what it opened) frees w's
 * arena and run states; the spill files it left are still the parent
 * execution's (spill_end). */
int qctx_worker_init(qctx_t *w, qctx_t *parent, err_t *e);
void qctx_worker_end(qctx_t *w);

/* ---- constructors (all allocate in a, the plan's arena) --------------- */

/* Rows of constant-free expressions: nrows rows of ncols expressions each
 * (rows[r][c]), evaluated at run time (they may hold parameters). */
op_t *op_values_new(arena_t *a, int ncols, const ty_t *types, int nrows, xnode_t ***rows);
/* A predicate the planner pushes into a scan: output column sp_col
 * against sp_nvals expressions without columns, evaluated per execution. */
typedef struct scan_pred_s {
  int sp_col;
  qpred_op_t sp_op;
  bool sp_rtrim;                /* qp_rtrim */
  int sp_nvals;
  xnode_t **sp_vals;
  const char *sp_colname;       /* for EXPLAIN */
} scan_pred_t;

/* A scan of a stored table through the hooks. range_x (may be NULL) holds
 * 2*nkey expressions for the low and high bounds of the key prefix, NULL
 * where open; evaluated per execution (parameters). */
typedef struct scan_spec_s {
  void *ss_table;               /* the table's handle (starts with a qtable_t) */
  const char *ss_name;          /* for EXPLAIN */
  int ss_index;                 /* 0 primary, else a secondary index */
  const char *ss_index_name;
  int ss_ncols;
  int *ss_cols;                 /* table column numbers */
  ty_t *ss_types;
  bool ss_rowid;                /* add the row identity column (BYTEA) */
  int ss_nlow, ss_nhigh;
  xnode_t **ss_low;             /* key prefix bounds */
  xnode_t **ss_high;
  bool ss_low_incl, ss_high_incl;
  const ty_t *ss_key_types;     /* types of the key columns bounded (a bound may be
                                   a wider integer than its column: range-checked) */
  bool ss_point;                /* equality on a whole unique key: at most one row */
  /* The index's key order (op_order): table columns ss_ord[0..ss_nord)
   * ascending, NULLs last (table/README.md invariant 1); the first
   * ss_nfixed of them fixed by equality bounds; ss_ord_unique: they end
   * with a unique key. 0: no order known. */
  int ss_nord;
  const int *ss_ord;
  int ss_nfixed;
  bool ss_ord_unique;
  bool ss_column;               /* the index read is column-wise (EXPLAIN says so) */
  bool ss_backward;             /* read the range from its high end down: the order
                                   is then descending with NULLs first */
  int ss_npred;                 /* predicates tested by the table layer */
  scan_pred_t *ss_preds;
} scan_spec_t;
op_t *op_scan_new(arena_t *a, const scan_spec_t *spec);
op_t *op_filter_new(arena_t *a, op_t *in, xnode_t *cond);
op_t *op_project_new(arena_t *a, op_t *in, int n, xnode_t **exprs);
/* Once a statement's plan is whole (its root and every subquery's plan,
 * nroots of them): the output columns no consumer reads are left unfilled
 * — NULL — by the joins, not kept in their builds, and not computed by
 * projections (op_prune.c). Changes the plan; never its answers. */
void op_prune_cols(arena_t *a, op_t *const *roots, int nroots);
/* Gather (op_gather.c): runs in on the session's thread and up to
 * ThreadsPerQuery - 1 query workers, its leaf scan read through one shared
 * morsel dispenser; rows come out in no particular order. in must be a
 * pipeline (op_gather_ok): a chain along first inputs of filters,
 * projections, lookup and lateral joins, hash and nested-loop joins other
 * than RIGHT / FULL (their builds made once and shared), a group-by at
 * most at its top (a streaming one, with filters and projections over
 * it, only over a scan split on group boundaries: op_scan_set_align),
 * without subqueries, ending in a scan whose storage
 * splits scans (the driving scan, op_gather_driver; NULL when in is not
 * such a pipeline); op_gather_new gives NULL otherwise. workers is the
 * planned number EXPLAIN shows. */
const op_t *op_gather_driver(const op_t *in);
bool op_gather_ok(const op_t *in);
/* A derived table planned in parallel on in's pipeline: the Gather reached
 * from in along first inputs through operators a pipeline may hold (the
 * expressions of its filters and projections all satisfy safe), itself
 * over a pipeline without a group-by; NULL when there is none (or in is
 * that Gather). op_gather_lift takes it out (its input takes its place),
 * so that one Gather over all of in runs the whole pipeline: the
 * operators above the derived table (a partial group-by) run on every
 * thread too. */
const op_t *op_gather_inner(const op_t *in, bool (*safe)(const xnode_t *x));
void op_gather_lift(op_t *in, const op_t *gather);
/* Whether o is a join whose build (second input) a Gather over it makes
 * once and shares among its threads: hash and nested-loop joins other
 * than RIGHT / FULL (op_join_share.c). */
bool op_join_shareable(const op_t *o);
/* The table handle a scan reads (its scan_spec_t's ss_table). */
void *op_scan_table(const op_t *scan);
/* A scan split under a Gather keeps the rows that agree on its fixed key
 * columns and its next nkeys order keys in one morsel (qrange_t
 * qr_align), for a streaming group-by on them above it. */
void op_scan_set_align(op_t *scan, int nkeys);
/* Whether op_scan_set_align was called on o (a scan). */
bool op_scan_aligned(const op_t *o);
op_t *op_gather_new(arena_t *a, op_t *in, int workers);
bool op_is_gather(const op_t *o);
/* The final group-by of a parallel plan run by every thread
 * (op_hashagg_par.c): gather is the Gather of the partial group-bys,
 * final the final group-by over leaf, a Partitions leaf of the partial
 * rows' layout (op_pmerge_leaf_new); the partial rows are partitioned by
 * the hash of their first ngroup columns (the keys) and each partition
 * merged by one thread. NULL unless gather is a Gather and ngroup > 0. */
op_t *op_pmerge_leaf_new(arena_t *a, const op_t *partial);
op_t *op_pmerge_new(arena_t *a, op_t *gather, op_t *final, const op_t *leaf, int ngroup);
/* LIMIT/OFFSET: expressions without columns, NULL when absent. */
op_t *op_limit_new(arena_t *a, op_t *in, xnode_t *limit, xnode_t *offset);

/* SELECT … FOR UPDATE / FOR SHARE (op_lockrows.c; PostgreSQL's LockRows).
 * Each input row locks, per locked table, the row its identity column
 * names; rows deleted meanwhile are dropped, rows another holds are
 * dropped under SKIP LOCKED and fail with 55P03 under NOWAIT. A row
 * changed meanwhile is re-checked when rk is given (one table: the row
 * rebuilt from its current values, the WHERE tested again, the outputs
 * evaluated again); without rk it fails with 40001. limit/offset (may be
 * NULL): a LIMIT above takes only that many rows, so no more are locked. */
#define QLOCK_WAIT 0
#define QLOCK_NOWAIT 1
#define QLOCK_SKIP 2
typedef struct oplock_tab_s {
  void *ol_table;               /* the table's handle */
  const char *ol_name;          /* for the NOWAIT message */
  int ol_rid;                   /* input column of its row identities */
} oplock_tab_t;
typedef struct oplock_recheck_s {
  int rk_width;                 /* the block row the expressions read */
  const ty_t *rk_types;
  int rk_base;                  /* the table's columns there: rk_base .. + rk_ncols - 1, */
  int rk_ncols;                 /* then its row identity */
  const xnode_t *rk_filter;     /* the WHERE over the block row; NULL = none */
  xnode_t *const *rk_out;       /* per input column: its expression over the block row */
} oplock_recheck_t;
op_t *op_lockrows_new(arena_t *a, op_t *in, int ntab, const oplock_tab_t *tabs, int strength,
                      int wait, xnode_t *limit, xnode_t *offset, const oplock_recheck_t *rk);

typedef struct sort_key_s {
  int sk_col;                   /* input column */
  bool sk_desc;
  bool sk_nulls_first;
} sort_key_t;
op_t *op_sort_new(arena_t *a, op_t *in, int nkeys, const sort_key_t *keys);
/* Parallel Sort: gather (an op_gather_new) is drained, every participant
 * sorts the rows it produced on its own thread, and the output merges
 * them (NULL when gather is not a Gather). Equal keys come in no fixed
 * order. */
op_t *op_sort_par_new(arena_t *a, op_t *gather, int nkeys, const sort_key_t *keys);

/* An order an operator's output rows are known to come in (op_order.c):
 * sorted by oo_keys[0..oo_n) (output columns), and each of the columns
 * oo_const[0..oo_nconst) holding one value over all the rows. Known from
 * a scan's index order (scan_spec_t ss_ord) or a sort, and kept by the
 * operators that pass their input's rows on in their order. oo_unique:
 * no two rows agree on all of oo_keys (they end with a unique key), so
 * any further wanted keys are met too. */
#define OP_ORDER_MAX 16
struct op_order_s {
  int oo_n;
  sort_key_t oo_keys[OP_ORDER_MAX];
  int oo_nconst;
  int oo_const[OP_ORDER_MAX];
  bool oo_unique;
};
void op_order(const op_t *o, op_order_t *out);
/* Whether rows in order have already come sorted by want[0..n) (a
 * wanted key on a constant column is met by any order). */
bool op_order_satisfies(const op_order_t *have, const sort_key_t *want, int n);
/* ov_order for operators that pass their first input's rows on in order:
 * through ov_pass_col (op_order_pass), or with the same columns
 * (op_order_same: LIMIT, DISTINCT ON). */
void op_order_pass(const op_t *o, op_order_t *out);
void op_order_same(const op_t *o, op_order_t *out);
/* Top-k: the sort may drop rows past LIMIT + OFFSET (the limit operator
 * above still applies them); expressions without columns. */
void op_sort_set_limit(op_t *sort, xnode_t *limit, xnode_t *offset);

/* Aggregates of the hash group-by. */
typedef struct agg_spec_s {
  xagg_t ag_kind;
  bool ag_distinct;
  xnode_t *ag_arg;              /* over the input; NULL for count(*) */
  xnode_t *ag_arg2;             /* string_agg's delimiter; NULL otherwise */
  ty_t ag_type;                 /* result type */
} agg_spec_t;
/* Output: the ngroup key values, then one column per aggregate. With no
 * group keys exactly one row comes out, even for empty input. */
op_t *op_hashagg_new(arena_t *a, op_t *in, int ngroup, xnode_t **group, int nagg,
                     const agg_spec_t *aggs);
/* What EXPLAIN says of a group-by's part in a parallel plan ("partial ",
 * "final "); the operator itself is the same. */
void op_hashagg_set_mode(op_t *o, const char *mode);
/* A streaming group-by (op_groupagg.c, EXPLAIN "GroupAggregate"): the
 * output of op_hashagg_new, for input whose rows come grouped by the keys
 * (each group's rows adjacent; the planner asks op_order). NULL without
 * group keys or with an aggregate it does not run (op_groupagg_ok: not
 * DISTINCT, string_agg, min / max of text). */
op_t *op_groupagg_new(arena_t *a, op_t *in, int ngroup, xnode_t **group, int nagg,
                      const agg_spec_t *aggs);
bool op_groupagg_ok(int nagg, const agg_spec_t *aggs);
bool op_is_groupagg(const op_t *o);
/* Removes duplicate rows (all columns; NULLs equal). */
op_t *op_distinct_new(arena_t *a, op_t *in);

/* INNER, LEFT (left rows without a partner padded with NULLs), RIGHT (the
 * right rows without one, padded, after all pairs), FULL (both); SEMI
 * (each left row with at least one partner, once) and ANTI (each left
 * row with none) output only the left columns. */
typedef enum join_kind_e { JOIN_INNER, JOIN_LEFT, JOIN_RIGHT, JOIN_FULL, JOIN_SEMI, JOIN_ANTI } join_kind_t;
/* Output: the left columns then the right ones (SEMI / ANTI: the left
 * ones). cond over left then right columns (NULL = true). The right input
 * is materialised once per execution. */
op_t *op_nljoin_new(arena_t *a, op_t *left, op_t *right, join_kind_t kind, xnode_t *cond);
/* Equi-join on nkeys pairs (left column lk[i] = right column rk[i]), then
 * the residual condition cond over the joined layout. Builds on the right. */
op_t *op_hashjoin_new(arena_t *a, op_t *left, op_t *right, join_kind_t kind, int nkeys,
                      const int *lk, const int *rk, xnode_t *cond);
/* Inner merge join (op_mergejoin.c): both inputs come in ascending order
 * of their keys (lk[i] of the left, rk[i] of the right; one type each
 * pair; NULLs last), as op_order says; cond the residual over left then
 * right columns. Output as op_hashjoin_new's, in the left input's order. */
op_t *op_mergejoin_new(arena_t *a, op_t *left, op_t *right, int nkeys, const int *lk,
                       const int *rk, xnode_t *cond);
/* Makes hash ANTI join o answer as `NOT IN` in a WHERE: no row at all
 * when a right key is NULL, and a left row with a NULL key passes only
 * when the right input is empty (without this, NULL keys never match).
 * No effect on other joins. */
void op_join_set_null_aware(op_t *o);

/* Index nested-loop join: each left row's columns lk[0..nkeys) are the
 * whole primary key of table; the matching row (at most one) is looked
 * up, a batch of keys at a time. Output: the left columns, then the
 * table's columns cols[0..ncols) (types). cond: residual over the joined
 * row (NULL = true); a LEFT join pads rows without a match (or whose
 * match fails cond) with NULLs; SEMI / ANTI output only the left columns
 * of the rows with / without a match passing cond. */
op_t *op_lookup_join_new(arena_t *a, op_t *left, join_kind_t kind, int nkeys, const int *lk,
                         void *table, const char *name, int ncols, const int *cols,
                         const ty_t *types, xnode_t *cond);

/* Index lookup join on a prefix of index `index` of table (0 = its
 * primary key; unique or not): each left row's columns lk[0..nkeys) equal
 * to the index's first nkeys key columns (key_names, for EXPLAIN) find
 * every such row, a batch of left rows per vectored probe (qt_probe_*).
 * Output and cond as op_lookup_join_new (ncols >= 1 fetched columns);
 * several matches per left row; a NULL key part finds nothing. */
op_t *op_index_join_new(arena_t *a, op_t *left, join_kind_t kind, void *table, const char *name,
                        int index, const char *index_name, int nkeys, const int *lk,
                        const char *const *key_names, int ncols, const int *cols,
                        const ty_t *types, xnode_t *cond);
/* Key parts of an index lookup join (op_index_join_new) that are
 * constants, not left columns: where lk[k] < 0, consts[k] (of types[k],
 * strings in a plan arena that outlives o) is key column k's value for
 * every left row. A prefix such as (P = constant, S = left column) finds
 * the few rows of one subject instead of every row of P. */
void op_index_join_set_consts(op_t *o, arena_t *a, const datum_t *consts, const ty_t *types);
/* Index Lookup Aggregate: a correlated scalar aggregate subquery over one
 * table, batched. Probes as op_index_join_new; per left row, the
 * aggregates aggs (arguments over the pair row: left then fetched
 * columns) of its pairs passing cond, then the values vals over the row
 * of those nagg results. Output: every left row once, in order, then its
 * values; a left row without a passing pair (or with a NULL key part)
 * has count 0 and NULL for the other aggregates, as the subquery run for
 * that row alone. Only aggregates op_index_agg_supports. */
op_t *op_index_agg_new(arena_t *a, op_t *left, void *table, const char *name, int index,
                       const char *index_name, int nkeys, const int *lk, const char *const *key_names,
                       int ncols, const int *cols, const ty_t *types, xnode_t *cond, int nagg,
                       const agg_spec_t *aggs, int nval, xnode_t **vals);
bool op_index_agg_supports(const agg_spec_t *ag);
/* Whether o is one (tests, the parallel planner). */
bool op_is_index_join(const op_t *o);

typedef enum setop_kind_e { SETOP_UNION, SETOP_EXCEPT, SETOP_INTERSECT } setop_kind_t;
/* Inputs with equal column types; all: keep duplicates (bag semantics). */
op_t *op_setop_new(arena_t *a, op_t *left, op_t *right, setop_kind_t kind, bool all);

/* Reads all of its input at open, then returns it (a statement that
 * changes what it reads must not read its own changes). */
op_t *op_buffer_new(arena_t *a, op_t *in);
/* A WITH query computed once per execution (op_cte.c): every scan made
 * by op_cte_scan_new over the same op_cte_t reads the one worktable the
 * first of them to open fills from body (53200 past MaxQueryMem); the
 * first scan made shows body as its input in EXPLAIN. */
typedef struct op_cte_s op_cte_t;
op_cte_t *op_cte_new(arena_t *a, op_t *body, const char *name);
op_t *op_cte_scan_new(arena_t *a, op_cte_t *c);
bool op_is_cte_scan(const op_t *o);

/* DML: consume the input and change the table; produce no rows. The
 * number of rows changed is op_dml_count after the execution. */
op_t *op_insert_new(arena_t *a, op_t *in, void *table, const char *name);
/* in: the table's columns (new values) then the row identity. */
/* set: as qt_update (NULL = every column). */
op_t *op_update_new(arena_t *a, op_t *in, void *table, const char *name, const bool *set);
/* in: anything with the row identity at column rid. */
op_t *op_delete_new(arena_t *a, op_t *in, void *table, const char *name, int rid);
/* In q's execution (0 when o never ran in it). */
int64_t op_dml_count(const op_t *o, const qctx_t *q);
/* RETURNING: o (an insert, update or delete) also returns each batch it
 * changed, as its input gave it (the new rows for INSERT and UPDATE, the
 * removed ones for DELETE), instead of nothing. */
void op_dml_set_returning(op_t *o);
/* UPDATE / DELETE in READ COMMITTED: a row changed by a transaction
 * that committed after the scan read it is re-evaluated (qepq_t) instead
 * of failing with 40001: rk's block row is the scan's or join's (the
 * table's columns from rk_base, then the row identity, from the current
 * version; any other column from the input row at the same position: the
 * joined rows held fixed, as PostgreSQL's EvalPlanQual), rk_filter the
 * WHERE with the join conditions, rk_out one expression per input column
 * of o (the new values and the row identity for an update, then what it
 * passes on; the block's columns for a delete). */
void op_dml_set_recheck(op_t *o, const oplock_recheck_t *rk);
/* UPDATE … FROM / DELETE … USING: the input holds a target row once per
 * row it joined (locator at column loc); o changes it once, with the
 * first, and counts and returns only that one. For an update the input's
 * first nwrite columns (the table's, then the locator) are written; the
 * columns after them are only passed on (RETURNING of the other tables). */
void op_dml_set_joined(op_t *o, int loc, int nwrite);
/* ON CONFLICT DO NOTHING: insert o skips the rows whose key in unique
 * index `index` (-1: any unique index) is already there (qt_conflict_*);
 * the count and RETURNING cover only the rows inserted. */
void op_insert_skip_conflicts(op_t *o, int index);
/* ON CONFLICT (…) DO UPDATE: a proposed row whose key in unique index
 * `index` a row has updates that row instead. set_x[c] (NULL where set[c]
 * is false) and where (NULL = none) are over the row [the existing row's
 * nc columns, its locator, the proposed (excluded) row's nc columns]; the
 * count and RETURNING cover the rows inserted and updated (as written). */
void op_insert_do_update(op_t *o, int index, int nc, const bool *set, xnode_t **set_x,
                         xnode_t *where);

/* ---- subqueries -------------------------------------------------------- */

/* The x_subq of an X_SUBQ node (the plan part: immutable while it runs).
 * The subplan sees the statement's parameters followed by the correlation
 * values: xs_corr[i] is an X_COL (of the batch the X_SUBQ is evaluated
 * over) or an X_PARAM (of the enclosing query) whose value becomes
 * parameter xs_param_base + i. Its run state (the subplan's child
 * context, the parameter values, the uncorrelated result cache) is one
 * per execution, created the first time the execution evaluates it
 * (exec_subq.c), in the context the X_SUBQ is evaluated in. */
typedef struct xsubq_s {
  op_t *xs_plan;
  int xs_ncorr;
  xnode_t **xs_corr;
  int xs_param_base;
  struct xsubq_s *xs_parent;    /* the subquery whose plan holds this one, or NULL */
} xsubq_t;

/* The xsubq_fn_t the executor installs in every xctx_t (qctx: the
 * qctx_t the expression is evaluated in, op_xctx's xc_qctx). */
int xsubq_eval(void *qctx, void *subq, int kind, const batch_t *in, int row,
               const datum_t *lhs, arena_t *a, datum_t *out, err_t *e);
/* The subplan's context for s evaluated in outer, its correlation values
 * taken from row `row` of in (in NULL: only X_PARAM correlations): what a
 * lateral join re-opens s->xs_plan in per left row. */
int xsubq_bind(qctx_t *outer, const xsubq_t *s, const batch_t *in, int row, qctx_t **sub,
               err_t *e);

/* An xctx_t for evaluating expressions in q with results in a. */
void op_xctx(qctx_t *q, arena_t *a, xctx_t *out);

#endif /* CZ_EXEC_H */
