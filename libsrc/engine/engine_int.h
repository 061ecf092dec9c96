/* engine_int — the engine's private structures: the engine, sessions with
 * their run-time parameters and transaction state, prepared statements
 * and portals.
 *
 * Design notes (engine/README.md has the invariants):
 * - A prepared statement owns an arena with its text, its parse tree and
 *   its plan. The plan was built against one catalog snapshot (held by
 *   the statement); when the session's snapshot differs at bind time, the
 *   statement is planned again.
 * - A portal owns an arena with its parameter values and the run-time
 *   context. It uses the statement's plan unless another portal is
 *   running it, in which case it plans a private copy.
 * - Transactions: s_tx is the open transaction (a BEGIN block, or the
 *   implicit one of a running statement). SELECTs outside a block run
 *   without a transaction (committed data only), which keeps point
 *   selects cheap; anything that writes runs in one.
 */
#ifndef CZ_ENGINE_INT_H
#define CZ_ENGINE_INT_H

#include <pthread.h>

#include "catalog/catalog.h"
#include "engine/engine.h"
#include "exec/exec.h"
#include "sql/sql.h"
#include "sql/sql_plan.h"
#include "table/table.h"
#include "txn/txn.h"


struct engine_s {
  db_t *en_db;
  cat_t *en_cat;
  int en_vector_size;           /* [Parameters] VectorSize */
  int64_t en_max_mem;           /* [Parameters] MaxQueryMem */
  int en_threads;               /* [Parameters] ThreadsPerQuery (not used yet) */
  char *en_dirs_allowed;        /* [Parameters] DirsAllowed as written (malloc'd), NULL = none:
                                 * folders server-side COPY files may lie in (en_copy.c) */
  pthread_mutex_t en_mu;
  int en_nsessions;
};

/* A run-time parameter (GUC) of a session. */
typedef struct eguc_s {
  char *eg_name;                /* lower case */
  char *eg_value;
  bool eg_report;               /* sent as ParameterStatus */
  bool eg_changed;              /* since the last report */
  struct eguc_s *eg_next;
} eguc_t;

typedef struct enotice_s {
  char en_severity[16];
  char en_sqlstate[6];
  char *en_msg;
  struct enotice_s *en_next;
} enotice_t;

/* ---- en_cursor.c: DECLARE / FETCH / MOVE / CLOSE ------------------------ */


typedef enum ecur_kind_e { ECUR_NONE, ECUR_DECLARE, ECUR_FETCH, ECUR_MOVE, ECUR_CLOSE } ecur_kind_t;

/* A cursor statement as read (the parser does not know them). */
typedef struct ecur_stmt_s {
  ecur_kind_t cs_kind;
  char *cs_name;                /* NULL: CLOSE ALL */
  struct estmt_s *cs_query;     /* DECLARE: the query, prepared */
  int64_t cs_count;             /* FETCH / MOVE: rows, -1 = ALL */
} ecur_stmt_t;

/* An open cursor: a portal of its own statement, until CLOSE or the end
 * of the transaction block. */
typedef struct ecursor_s {
  char *cu_name;
  struct estmt_s *cu_stmt;      /* holds a reference */
  struct eportal_s *cu_portal;
  struct ecursor_s *cu_next;
} ecursor_t;

#define EN_PREP_BUCKETS 64     /* named prepared statements' hash (en_prepared.c) */

struct esession_s {
  engine_t *se_eng;
  arena_t *se_arena;            /* the session's lifetime */
  char *se_role;
  cat_oid_t se_role_oid;
  bool se_superuser;
  char se_status;               /* 'I', 'T', 'E' */
  txn_t *se_tx;                 /* open transaction or NULL */
  bool se_block;                /* inside BEGIN … COMMIT */
  bool se_multi;                /* inside esession_begin_implicit … end_implicit */
  ecursor_t *se_cursors;        /* open cursors (in se_arena) */
  cat_snapshot_t *se_snap;      /* what the session sees now */
  eguc_t *se_gucs;
  enotice_t *se_notices, *se_notices_tail;
  arena_t *se_notice_arena;
  volatile bool se_cancel;
  struct en_pgcat_s *se_pgcat;  /* pg_catalog environment (en_pgcat.c) */
  struct en_sp_s *se_sp;        /* savepoints and the statement mark (en_savepoint.c) */
  int se_exec_depth;            /* EXECUTEs running inside one another (en_prepared.c) */
  struct eprep_s *se_prepared[EN_PREP_BUCKETS]; /* named prepared statements (en_prepared.c):
                                 * SQL PREPARE's and the protocol's, one namespace */
};

struct estmt_s {
  esession_t *st_sess;
  arena_t *st_arena;
  char *st_text;
  size_t st_len;
  sql_stmt_t *st_ast;           /* NULL for an empty statement */
  estmt_kind_t st_kind;
  int st_nparams_given;
  ty_t *st_given;               /* the client's parameter types */
  splan_t *st_plan;             /* queries and DML */
  arena_t *st_plan_arena;       /* child of st_arena, replaced when re-planned */
  cat_snapshot_t *st_snap;      /* the snapshot st_plan was built against */
  bool st_plan_busy;            /* a portal is running st_plan */
  int st_ncols;                 /* -1: no rows */
  ecol_t *st_cols;
  int st_nparams;
  ty_t *st_ptypes;
  int st_refs;                  /* the owner (until estmt_free) + live portals */
  ecur_stmt_t *st_cursor;       /* a cursor statement (st_ast is then NULL) */
};

typedef enum eport_state_e { EP_NEW, EP_RUNNING, EP_DONE } eport_state_t;

struct eportal_s {
  estmt_t *po_stmt;
  arena_t *po_arena;
  datum_t *po_params;
  int po_nparams;
  eport_state_t po_state;
  splan_t *po_plan;             /* the plan being run */
  bool po_own_plan;             /* planned for this portal (not the statement's) */
  arena_t *po_plan_arena;
  cat_snapshot_t *po_snap;      /* the snapshot po_plan uses (own plans) */
  qctx_t po_q;
  bool po_implicit;             /* runs in an implicit transaction it must end */
  obatch_t po_pending;          /* rows of the last batch not yet sent */
  int po_pending_off;
  int64_t po_rows;
  char po_tag[64];
  void *po_copy;                /* COPY state */
  arena_t *po_out;              /* compacted batches for the sink, reset per batch */
  arena_t *po_run_arena;        /* the running plan's arena (en_qmem_detach) */
  mem_budget_t po_budget;       /* the running execution's memory (en_qmem.c) */
  struct eportal_s *po_inner;   /* EXECUTE: the portal of the prepared statement it runs */
};

/* ---- en_qmem.c: one execution's memory budget -------------------------- */

/* Initialises b with limit and charges q's arena, the plan's arena and
 * out_arena (either may be NULL) to it. */
void en_qmem_attach(qctx_t *q, mem_budget_t *b, int64_t limit, arena_t *plan_arena,
                    arena_t *out_arena);
/* The server-wide limit of all executions' memory (MaxServerQueryMem;
 * 0 = none), before the first execution. */
void en_qmem_configure(int64_t server_limit);
int64_t en_qmem_server_limit(void);
/* The execution ended: deletes its temporary files (spill_end), releases
 * the plan's operator arenas, q's arena and out_arena, detaches the
 * budget, and gives memory back to the system
 * after a big run. No-op when nothing is attached. */
void en_qmem_detach(qctx_t *q, arena_t *plan_arena, arena_t *out_arena);

/* ---- en_env.c: the binder's view of the catalog, the executor's storage
 * hooks --------------------------------------------------------------- */

void en_env(esession_t *s, sp_env_t *env);

/* en_analyze.c: ANALYZE [names] / VACUUM ANALYZE (ast->st_drop's names). */
int en_analyze(esession_t *s, const sql_stmt_t *ast, err_t *e);

/* en_file.c: the one gate for SQL that reads or writes a server file (op
 * names the operation in errors: "COPY to a file"). On success *fd is open
 * for reading, or for writing and emptied; the caller closes it. */
int en_file_open(esession_t *s, const char *op, const char *path, bool write, int *fd, err_t *e);
/* Warns when DirsAllowed lets SQL into the database's folder. */
void en_file_warn_config(const engine_t *eng, const ini_t *ini);

/* The table handles the engine gives the planner (sp_table_t.tb_handle):
 * a stored table or a catalog relation, each with its own operations. */
typedef struct en_handle_s {
  qtable_t eh_q;                /* first: what the executor calls */
  const cat_table_t *eh_table;  /* a stored table, or NULL */
  const void *eh_rel;           /* a pgcat relation, or NULL */
} en_handle_t;
/* A handle for a stored table / a catalog relation, in a. */
en_handle_t *en_handle_table(const cat_table_t *t, arena_t *a);
en_handle_t *en_handle_rel(const void *rel, arena_t *a);
/* The stored table of a handle (NULL for a catalog relation). */
static inline const cat_table_t *en_handle_cat(const void *h)
{
  return ((const en_handle_t *)h)->eh_table;
}
/* The catalog relation of a handle (NULL for a stored table). */
static inline const void *en_handle_pgrel(const void *h)
{
  return ((const en_handle_t *)h)->eh_rel;
}
/* Checks the plan's privileges for the session's role (42501). */
int en_check_access(esession_t *s, const splan_t *p, err_t *e);

/* ---- en_session.c ---------------------------------------------------------- */

void en_notice(esession_t *s, const char *severity, const char *sqlstate, const char *fmt, ...)
    CZ_PRINTF(4, 5);
const char *en_guc_get(esession_t *s, const char *name);
int en_guc_set(esession_t *s, const char *name, const char *value, bool from_client, err_t *e);
/* Refreshes se_snap for the current transaction. */
void en_refresh_snapshot(esession_t *s);

/* ---- en_txn.c ------------------------------------------------------------ */

/* Makes sure a transaction is open; *implicit says it was begun here. */
int en_tx_ensure(esession_t *s, bool *implicit, err_t *e);
/* Ends an implicit transaction: commit when ok, else roll back. */
int en_tx_end_implicit(esession_t *s, bool ok, err_t *e);
/* now() for a statement starting now: µs since 2000-01-01 as TIMESTAMP.
 * Every execution context of a statement gets it once (q_stmt_ts), so
 * now() is the same in all its rows and batches. */
int64_t en_stmt_ts(void);

/* en_frontend.c: a statement language's front end. fe_claims (NULL for
 * the default, SQL) tells by the statement's first words whether it is
 * this language's; fe_extent gives the bytes of the statement at text (up
 * to its terminating `;`, excluded); fe_parse (NULL: fe_prepare reads
 * st_text itself) parses one statement into a; fe_prepare sets up st from
 * the parsed form (classify, plan, describe). */
typedef struct efront_s {
  const char *fe_name;
  bool (*fe_claims)(const char *text, size_t len);
  size_t (*fe_extent)(const char *text, size_t len);
  int (*fe_parse)(arena_t *a, const char *text, size_t len, void **parsed, err_t *e);
  int (*fe_prepare)(estmt_t *st, void *parsed, const uint32_t *ptypes, int nparams, err_t *e);
} efront_t;
const efront_t *en_front_for(const char *text, size_t len);
/* en_stmt.c: the SQL front end's fe_prepare (parsed: a sql_stmt_t, NULL
 * for an empty statement). */
int en_sql_prepare(estmt_t *st, void *parsed, const uint32_t *ptypes, int nparams, err_t *e);

/* en_cursor.c. ECUR_NONE unless text starts with DECLARE, FETCH, MOVE or
 * CLOSE. */
ecur_kind_t en_cursor_kind(const char *text, size_t len);
/* Reads a cursor statement (en_cursor_kind not ECUR_NONE) into st. */
int en_cursor_prepare(estmt_t *st, const uint32_t *ptypes, int nparams, err_t *e);
void en_cursor_stmt_free(estmt_t *st);
/* Executes the cursor statement of portal p. */
int en_cursor_run(eportal_t *p, erows_fn_t fn, void *ctx, err_t *e);
/* Closes every cursor (the end of the transaction, the session). */
void en_cursor_close_all(esession_t *s);
/* A portal of st with parameter values already converted (copied). */
int en_portal_bind_values(estmt_t *st, const datum_t *vals, int n, eportal_t **out, err_t *e);
/* A statement failed: in a block the session goes to 'E'. */
void en_tx_fail(esession_t *s);
int en_tx_control(esession_t *s, const sql_stmt_t *st, char *tag, size_t tagcap, err_t *e);

/* ---- en_prepared.c: PREPARE / EXECUTE / DEALLOCATE ---------------------- */

int en_prepare_run(eportal_t *p, err_t *e);
int en_deallocate_run(eportal_t *p, err_t *e);
/* Describes an EXECUTE statement at prepare time: the target's rows, the
 * EXECUTE's own parameters ($n in its arguments). 26000 unknown name. */
int en_execute_describe(estmt_t *st, err_t *e);
/* Runs (or resumes) an EXECUTE portal through its inner portal. */
int en_execute_run(eportal_t *p, int64_t max_rows, erows_fn_t fn, void *ctx, bool *suspended,
                   err_t *e);
/* Drops every named prepared statement (DEALLOCATE ALL, session end). */
void en_prepared_free_all(esession_t *s);

/* ---- en_ddl.c -------------------------------------------------------------- */

int en_ddl(esession_t *s, const sql_stmt_t *st, char *tag, size_t tagcap, err_t *e);

/* ---- en_set.c -------------------------------------------------------------- */

int en_set(esession_t *s, const sql_stmt_t *st, char *tag, size_t tagcap, err_t *e);
/* SHOW name: the value as one row. */
int en_show(esession_t *s, const sql_set_t *sv, erows_fn_t fn, void *ctx, err_t *e);

/* ---- en_copy.c ------------------------------------------------------------- */

/* Checks a COPY statement at prepare time and sets its column count. */
int en_copy_describe(estmt_t *st, err_t *e);
/* COPY reached through eportal_execute (not the copy sub-protocol). */
int en_copy_run(eportal_t *p, err_t *e);

/* ---- en_stmt.c ------------------------------------------------------------- */

/* Plans st against the session's snapshot into arena a (privileges
 * checked). */
int en_plan(estmt_t *st, arena_t *a, splan_t **out, err_t *e);
/* Re-plans the statement's own plan (its describe data follows). */
int en_stmt_replan(estmt_t *st, err_t *e);
void en_stmt_unref(estmt_t *st);
/* 25P02 in a failed block unless ast ends the block. */
int en_check_not_failed(esession_t *s, const sql_stmt_t *ast, err_t *e);
/* True when the statement is carried out by the engine from its AST. */
bool en_is_utility(const sql_stmt_t *ast);

#include "engine/en_savepoint.h"

#endif /* CZ_ENGINE_INT_H */
