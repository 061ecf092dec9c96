/* runner.h — the statement runner's interface: what the session calls.
 * The runner turns a statement's text into a prepared statement (the
 * front-end dispatch: each language enters through its own parser, once),
 * plans it, runs the statements it carries out itself (DDL, COPY, EXPLAIN,
 * cursor statements, VACUUM, CHECKPOINT) and sets up every execution of a
 * plan in one place (er_exec_begin). See engine/README.md for the
 * boundary; the runner's private structures are in runner_int.h.
 *
 * Design notes:
 * - A prepared statement (estmt_t) is the runner's product; the session
 *   holds it, counts its references (st_refs) and the portals running
 *   its plan (st_plan_runs: the plan is immutable, any number may). Everything else in it the
 *   runner fills in and the session only reads.
 * - The runner knows no portal: a run of a statement reaches it as an
 *   erun_t (the statement, an arena, parameter values, the command tag
 *   to fill, COPY FROM's state between calls), which the portal embeds.
 */
#ifndef CZ_ENGINE_RUNNER_H
#define CZ_ENGINE_RUNNER_H

#include "engine/engine_int.h"
#include "exec/exec.h"
#include "sql/sql.h"
#include "sql/sql_plan.h"

struct ecur_stmt_s;
struct en_pgcat_s;

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
  const char *st_path;          /* and the search_path its names were resolved under */
  int st_plan_runs;             /* portals running st_plan now (it is immutable: any
                                   number may; it is not replaced while one does) */
  int st_ncols;                 /* -1: no rows */
  ecol_t *st_cols;
  int st_nparams;
  ty_t *st_ptypes;
  int st_refs;                  /* the owner (until estmt_free) + live portals */
  struct ecur_stmt_s *st_cursor; /* a cursor statement (st_ast is then NULL) */
  bool st_sparql_update;        /* `SPARQL <update>` (st_ast NULL): en_sparql_update_run */
  uint64_t st_front_ns;         /* a front end's own work before SQL planning (SPARQL:
                                   parse, constants' lookup, compile to SQL, SQL
                                   parse), for EXPLAIN ANALYZE; 0 for SQL */
};

/* One run of a statement the runner carries out (a portal's, embedded in
 * it): what the runner reads and fills. */
typedef struct erun_s {
  estmt_t *ru_stmt;
  arena_t *ru_arena;            /* lives as long as the run */
  datum_t *ru_params;           /* the bound values */
  int ru_nparams;
  char ru_tag[64];              /* the command tag (SELECT n, COPY n, …) */
  void *ru_copy;                /* COPY FROM STDIN's state between calls */
} erun_t;

/* ---- statements (en_stmt.c) ----------------------------------------------- */

/* Plans st against the session's snapshot into arena a (privileges
 * checked). */
int en_plan(estmt_t *st, arena_t *a, splan_t **out, err_t *e);
/* Re-plans the statement's own plan (its describe data follows). */
int en_stmt_replan(estmt_t *st, err_t *e);
/* Whether st's plan was built against another snapshot (DDL since) or
 * another search_path than the session's now (PostgreSQL re-plans a
 * cached plan when search_path changes). */
bool en_stmt_stale(const estmt_t *st);
/* Drops a reference; the last one frees the statement. */
void en_stmt_unref(estmt_t *st);
/* True when the runner carries the statement out from its AST (not a
 * query or DML run as a plan). */
bool en_is_utility(const sql_stmt_t *ast);
/* The binder's environment for session s (en_env.c). */
void en_env(esession_t *s, sp_env_t *env);
/* now() for a statement starting now: µs since 2000-01-01 as TIMESTAMP.
 * Every execution of a statement gets it once (q_stmt_ts, xc_stmt_ts),
 * so now() is the same in all its rows and batches. */
int64_t en_stmt_ts(void);

/* ---- one execution of a plan (en_exec.c) ---------------------------------- */

/* Everything one execution of a plan holds besides the plan: its context
 * and its memory budget. */
typedef struct erexec_s {
  qctx_t x_q;                   /* what the operators get */
  mem_budget_t x_budget;        /* MaxQueryMem, a child of MaxServerQueryMem (en_qmem.c) */
  arena_t *x_plan_arena;        /* the plan's arena, charged while it runs */
  arena_t *x_out;               /* the output arena (or NULL), charged too */
} erexec_t;

/* The one place an execution is set up: x's context (arena a child of
 * parent, the parameter values, VectorSize, the session's cancel flag,
 * transaction and now()), its memory budget over the context's arena,
 * plan_arena and out, and pl's subqueries reset. Nothing runs yet:
 * op_open is the caller's. */
void er_exec_begin(erexec_t *x, esession_t *s, const splan_t *pl, datum_t *params, int nparams,
                   arena_t *parent, arena_t *plan_arena, arena_t *out);
/* The execution ended (its operators closed): temporary files, the
 * plan's operator arenas and the budget go (en_qmem_detach). No-op when
 * nothing is attached. */
void er_exec_end(erexec_t *x);

/* ---- what the runner carries out ------------------------------------------ */

/* A utility statement the session does not keep itself: EXPLAIN [ANALYZE]
 * (rows to fn), COPY with a server file, VACUUM, CHECKPOINT, DDL. Fills
 * r->ru_tag. On failure the caller fails the statement (es_tx_fail). */
int er_utility(erun_t *r, erows_fn_t fn, void *ctx, err_t *e);
/* Before the session's transaction commits: the deferred constraint
 * checks (runner/en_cons.c); an error means the commit must not happen
 * (the caller rolls back and reports it). */
int er_cons_commit(esession_t *s, err_t *e);
/* Runs r's `SPARQL <update>` statement as one transaction (the session's
 * block, or an implicit one it ends) and passes its one row to fn; on
 * failure the transaction or block is failed already (en_sparql_update.c). */
int en_sparql_update_run(erun_t *r, erows_fn_t fn, void *ctx, err_t *e);
/* Runs a cursor statement (DECLARE, FETCH, MOVE, CLOSE) of r->ru_stmt. */
int en_cursor_run(erun_t *r, erows_fn_t fn, void *ctx, err_t *e);

/* COPY through the copy sub-protocol (en_copy.c): TO STDOUT in one call,
 * FROM STDIN begun, fed, ended or failed. A failure fails the statement
 * (the runner ends or fails the transaction itself). */
int er_copy_out(erun_t *r, ecopy_out_fn_t fn, void *ctx, err_t *e);
int er_copy_in_begin(erun_t *r, int *ncols, int *format, err_t *e);
int er_copy_in_data(erun_t *r, const char *data, size_t len, err_t *e);
int er_copy_in_done(erun_t *r, err_t *e);
void er_copy_in_fail(erun_t *r, const char *reason);

/* ---- the engine and the session's life ------------------------------------ */

/* Registers pgcat's functions with the engine's environment hook; once per
 * process, before any statement binds. */
int en_pgcat_init(err_t *e);
/* The file gate of the RDF loader (rdf_session_path_fn; en_file.c): the
 * session a superuser, path absolute, its real path (into real,
 * PATH_MAX bytes) in DirsAllowed and none of the server's own files.
 * path NULL: only the first check. */
int en_file_check_path(void *session, const char *path, char *real, err_t *e);
/* The runner's per-session state, in arena a (the session's): the
 * database name as the client gave it (else the role's). */
struct en_pgcat_s *en_pgcat_session_open(arena_t *a, const char *database, const char *role);
/* pg_backend_pid() of the session (the BackendKeyData pid). */
void en_pgcat_set_backend_pid(struct en_pgcat_s *p, int32_t pid);
/* The server-wide limit of all executions' memory (MaxServerQueryMem;
 * 0 = none), before the first execution. */
void en_qmem_configure(int64_t server_limit);
int64_t en_qmem_server_limit(void);
/* Warns when DirsAllowed lets SQL into the database's folder. */
void en_file_warn_config(const engine_t *eng, const ini_t *ini);

#endif /* CZ_ENGINE_RUNNER_H */
