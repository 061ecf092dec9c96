/* session_int — the session's private structures: sessions with their
 * run-time parameters and transaction state, open cursors, named prepared
 * statements and portals. Only session files include it; the session
 * reaches the statement runner through runner/runner.h and gives it
 * session.h (engine/README.md: the boundary).
 *
 * Design notes:
 * - A portal owns an arena with its parameter values and the run-time
 *   context. It uses the statement's plan unless another portal is
 *   running it, in which case it plans a private copy.
 * - Transactions: se_tx is the open transaction (a BEGIN block, or the
 *   implicit one of a running statement). SELECTs outside a block run
 *   without a transaction (committed data only), which keeps point
 *   selects cheap; anything that writes runs in one.
 */
#ifndef CZ_ENGINE_SESSION_INT_H
#define CZ_ENGINE_SESSION_INT_H

/* The boundary (README.md): no file is of both parts. */
#ifdef CZ_ENGINE_RUNNER_INT_H
#error "a file includes both engine/session/session_int.h and engine/runner/runner_int.h"
#endif

#include "engine/runner/runner.h"
#include "engine/session/session.h"

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
  err_t en_notice;               /* SQLSTATE, message, DETAIL, HINT */
  struct enotice_s *en_next;
} enotice_t;

/* An open cursor: a portal of its own statement, until CLOSE or the end
 * of the transaction block (en_cursors.c). */
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
  char *se_temp_schema;         /* "pg_temp_<n>" once a temporary view was made (the
                                   schema itself may be rolled back: look it up) */
  bool se_superuser;
  char se_status;               /* 'I', 'T', 'E' */
  txn_t *se_tx;                 /* open transaction or NULL */
  bool se_block;                /* inside BEGIN … COMMIT */
  bool se_multi;                /* inside esession_begin_implicit … end_implicit */
  int se_iso;                   /* the next (or this block's) transaction's level, as the
                                 * transaction_isolation GUC says: 0 read uncommitted,
                                 * 1 read committed, 2 repeatable read, 3 serializable */
  ecursor_t *se_cursors;        /* open cursors (in se_arena) */
  cat_snapshot_t *se_snap;      /* what the session sees now */
  eguc_t *se_gucs;
  enotice_t *se_notices, *se_notices_tail;
  arena_t *se_notice_arena;
  volatile bool se_cancel;
  volatile int64_t se_lock_timeout_ms; /* lock_timeout (its GUC as a number): the
                                          transaction's lock waits read it */
  struct en_pgcat_s *se_pgcat;  /* the runner's per-session state (runner/en_pgcat.c) */
  char *se_database;            /* the database name the client asked for */
  struct en_cons_s *se_cons;    /* the runner's constraint state (runner/en_cons.c) */
  struct en_sp_s *se_sp;        /* savepoints and the statement mark (en_savepoint.c) */
  const ty_tz_t *se_tz;         /* the TimeZone setting, resolved (NULL = UTC): put in
                                 * force on the thread serving the session by
                                 * esession_use and by SET (types' ty_tz_use) */
  int se_exec_depth;            /* EXECUTEs running inside one another (en_prepared.c) */
  struct eprep_s *se_prepared[EN_PREP_BUCKETS]; /* named prepared statements (en_prepared.c):
                                 * SQL PREPARE's and the protocol's, one namespace */
};

typedef enum eport_state_e { EP_NEW, EP_RUNNING, EP_DONE } eport_state_t;

struct eportal_s {
  erun_t po_run;                /* statement, arena, values, tag, COPY state: what the
                                 * runner sees of the portal */
  eport_state_t po_state;
  splan_t *po_plan;             /* the plan being run */
  bool po_own_plan;             /* planned for this portal (not the statement's) */
  arena_t *po_plan_arena;
  cat_snapshot_t *po_snap;      /* the snapshot po_plan uses (own plans) */
  erexec_t po_x;                /* the running execution (er_exec_begin) */
  bool po_implicit;             /* runs in an implicit transaction it must end */
  obatch_t po_pending;          /* rows of the last batch not yet sent */
  int po_pending_off;
  int64_t po_rows;
  arena_t *po_out;              /* compacted batches for the sink, reset per batch */
  struct eportal_s *po_inner;   /* EXECUTE: the portal of the prepared statement it runs */
};

/* ---- en_session.c ---------------------------------------------------------- */

const char *en_guc_get(esession_t *s, const char *name);
/* Stores a parameter's value as it is (no checks, not reported). */
void en_guc_put_value(esession_t *s, const char *name, const char *value);
int en_guc_set(esession_t *s, const char *name, const char *value, bool from_client, err_t *e);
/* The case PostgreSQL writes a parameter's name in (ParameterStatus,
 * pg_db_role_setting): "TimeZone", "DateStyle", …; others as given. */
const char *en_guc_display(const char *name);
/* ---- en_role_setting.c ------------------------------------------------------ */

/* The settings of ALTER DATABASE / ROLE … SET applied to a new session in
 * PostgreSQL's order of precedence: every role everywhere, the database,
 * the role, the role in the database (the startup packet's come after). */
void en_apply_role_settings(esession_t *s);

/* ---- en_txn.c ------------------------------------------------------------ */

int en_tx_control(esession_t *s, const sql_stmt_t *st, char *tag, size_t tagcap, err_t *e);
/* SET transaction_isolation / default_transaction_isolation: checked,
 * normalized to PostgreSQL's names; 25001 after the first query. */
int en_iso_guc_set(esession_t *s, const char *name, const char *value, err_t *e);
/* Whether statements that only read also need a transaction: the level
 * is above read committed (a snapshot, conflict tracking). */
bool es_tx_always(esession_t *s);

/* ---- en_cursors.c: the open cursors --------------------------------------- */

/* Closes every cursor (the end of the transaction, the session). */
void en_cursor_close_all(esession_t *s);

/* ---- en_portal.c ------------------------------------------------------------ */

/* A portal of st with parameter values already converted (copied). */
int en_portal_bind_values(estmt_t *st, const datum_t *vals, int n, eportal_t **out, err_t *e);

/* ---- en_prepared.c: PREPARE / EXECUTE / DEALLOCATE ---------------------- */

int en_prepare_run(eportal_t *p, err_t *e);
int en_deallocate_run(eportal_t *p, err_t *e);
/* Runs (or resumes) an EXECUTE portal through its inner portal. */
int en_execute_run(eportal_t *p, int64_t max_rows, erows_fn_t fn, void *ctx, bool *suspended,
                   err_t *e);
/* Drops every named prepared statement (DEALLOCATE ALL, session end). */
void en_prepared_free_all(esession_t *s);

/* ---- en_set.c -------------------------------------------------------------- */

int en_set(esession_t *s, const sql_stmt_t *st, char *tag, size_t tagcap, err_t *e);
/* The text SET stores for sv's values (not DEFAULT), in a. */
char *en_set_value_text(arena_t *a, const sql_set_t *sv);
/* SHOW name: the value as one row. */
int en_show(esession_t *s, const sql_set_t *sv, erows_fn_t fn, void *ctx, err_t *e);

#include "engine/session/en_savepoint.h"

#endif /* CZ_ENGINE_SESSION_INT_H */
