/* session.h — what the session gives the statement runner: the small,
 * declared interface through which a runner file reaches a session
 * (runner files see esession_t as an incomplete type). Implemented in
 * session/; see engine/README.md for the boundary.
 *
 * Design notes: the runner asks, the session decides. The runner reads the
 * session's identity, snapshot, transaction and cancel flag, asks for a
 * transaction when a statement writes and reports how it ended; the
 * transaction rules (implicit transactions, failed blocks, savepoint
 * marks) stay in the session. Settings reach the runner only as name and
 * value pairs (pg_settings); open cursors only by name.
 */
#ifndef CZ_ENGINE_SESSION_H
#define CZ_ENGINE_SESSION_H

#include "engine/engine_int.h"
#include "sql/sql.h"

struct en_pgcat_s;

/* ---- identity and what the session sees --------------------------------- */

engine_t *es_engine(const esession_t *s);
cat_oid_t es_role_oid(const esession_t *s);
/* The session's temporary schema's name ("pg_temp_<n>", unique in the
 * server's life); NULL when it has none and make is false. */
const char *es_temp_schema(esession_t *s, bool make);
/* The login role's name (the session's arena). */
const char *es_role(const esession_t *s);
/* The session's catalog snapshot: what its transaction sees. */
cat_snapshot_t *es_snapshot(const esession_t *s);
/* Refreshes the snapshot for the current transaction (one atomic load
 * when nothing changed). */
void es_refresh_snapshot(esession_t *s);
/* The open transaction, NULL outside one. */
txn_t *es_txn(const esession_t *s);
/* The flag esession_cancel sets: executions poll it (q_cancel). */
volatile bool *es_cancel_flag(esession_t *s);
/* The runner's per-session state (en_pgcat.c), made by
 * en_pgcat_session_open when the session opened. */
struct en_pgcat_s *es_pgcat(esession_t *s);
/* The runner's constraint state of the session (runner/en_cons.c), made
 * there at first use; the session's arena for it. */
struct en_cons_s **es_cons_slot(esession_t *s);
arena_t *es_arena(esession_t *s);
/* The value of run-time setting name (lower case); NULL when unset. */
const char *es_setting(esession_t *s, const char *name);
/* SET name = value from inside a statement (set_config); the checks and
 * SQLSTATEs of SET. */
int es_set_setting(esession_t *s, const char *name, const char *value, err_t *e);
/* ALTER ROLE … [IN DATABASE …] SET | RESET, ALTER DATABASE … SET | RESET
 * in the session's transaction (en_role_setting.c). */
int es_alter_setting(esession_t *s, const sql_alter_setting_t *sa, err_t *e);
/* Calls fn for every run-time setting, newest first. */
void es_settings_each(esession_t *s, void (*fn)(void *ctx, const char *name, const char *value),
                      void *ctx);
/* A notice (severity "NOTICE", "WARNING") the protocol drains after the
 * statement. es_notice_err queues one built with err_set / err_detail /
 * err_hint (a notice with a DETAIL or HINT). */
void es_notice(esession_t *s, const char *severity, const char *sqlstate, const char *fmt, ...)
    CZ_PRINTF(4, 5);
void es_notice_err(esession_t *s, const char *severity, const err_t *notice);

/* ---- transactions -------------------------------------------------------- */

/* 25P02 in a failed block unless ast ends the block (ast NULL: a statement
 * the parser does not read, never one that ends it); otherwise marks the
 * start of a statement phase (a failure undoes what follows only). */
int es_check_not_failed(esession_t *s, const sql_stmt_t *ast, err_t *e);
/* Makes sure a transaction is open; *implicit says it was begun here and
 * the caller ends it (es_tx_end_implicit). */
int es_tx_ensure(esession_t *s, bool *implicit, err_t *e);
/* Ends an implicit transaction: commit when ok, else roll back. */
int es_tx_end_implicit(esession_t *s, bool ok, err_t *e);
/* A statement failed: an implicit transaction is rolled back, a block
 * goes to 'E' (only the failed statement undone). */
void es_tx_fail(esession_t *s);
/* Inside BEGIN … COMMIT. */
bool es_in_block(const esession_t *s);

/* ---- what only the session keeps ----------------------------------------- */

/* Describes an EXECUTE statement at prepare time from the session's named
 * prepared statements: the target's rows, the EXECUTE's own parameters
 * ($n in its arguments). 26000 for an unknown name. */
int es_execute_describe(estmt_t *st, err_t *e);
/* Opens cursor name over the query statement with parameter values
 * (copied): 42P03 when the name is in use. */
int es_cursor_open(esession_t *s, const char *name, estmt_t *query, const datum_t *vals, int n,
                   err_t *e);
/* The portal of open cursor name, NULL when there is none. */
eportal_t *es_cursor_portal(esession_t *s, const char *name);
/* Closes cursor name (NULL: all); false when there is no such cursor. */
bool es_cursor_close(esession_t *s, const char *name);

#endif /* CZ_ENGINE_SESSION_H */
