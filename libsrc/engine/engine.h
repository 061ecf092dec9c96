/* engine — the database as the protocol servers see it: one engine per
 * server process (database, catalog, configuration), one session per client
 * connection, prepared statements and portals in a session.
 *
 * Design notes (engine/README.md has the details):
 * - The protocol layer (net/) knows nothing of SQL: it calls these
 *   functions and turns their results into messages. Everything here is
 *   protocol-neutral (the HTTP/SPARQL endpoint will use it too).
 * - A session is used by one thread at a time (the worker serving its
 *   connection); esession_cancel is the only call another thread may make.
 * - Statements follow PostgreSQL's extended-query model: prepare (parse,
 *   bind names, infer parameter types, plan) → bind (parameter values,
 *   result formats) → execute (with a row limit; a portal may be resumed).
 *   The simple query protocol prepares each statement of a text in turn.
 * - Transactions: outside BEGIN … COMMIT every statement commits on its
 *   own. Inside, a failed statement puts the session in the failed state
 *   ('E'): everything but COMMIT/ROLLBACK/ROLLBACK TO is 25P02 until the
 *   block ends or ROLLBACK TO a savepoint recovers it (only the failed
 *   statement is undone).
 * - Results go out in batches through a sink (vectored to the wire).
 * - Errors are err_t values with a SQLSTATE, a message and, for errors in
 *   the statement text, a 1-based character position.
 */
#ifndef CZ_ENGINE_H
#define CZ_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types/types.h"
#include "util/util.h"

typedef struct engine_s engine_t;
typedef struct esession_s esession_t;
typedef struct estmt_s estmt_t;
typedef struct eportal_s eportal_t;

/* ---- the engine -------------------------------------------------------- */

/* Opens the database the ini names (creating it, with the superuser dba
 * whose password is [Parameters] DBAPassword, on first start) and
 * recovers it. Logs a warning while dba's password is the sample's. */
int engine_open(const ini_t *ini, engine_t **out, err_t *e);
/* Waits for sessions to end (the caller closes them first), checkpoints
 * and closes the database. */
int engine_close(engine_t *eng, err_t *e);
int engine_checkpoint(engine_t *eng, err_t *e);

/* A snapshot of the engine's counters, for monitoring (the HTTP
 * server's /metrics): the buffer pool's since start and the sessions
 * open now. Cheap: a lock per buffer-pool shard, no catalog access. */
typedef struct estats_s {
  uint64_t es_buf_hits;          /* page fixes that found the page in memory */
  uint64_t es_buf_misses;        /* pages read one at a time on demand */
  uint64_t es_ra_requests;       /* extent read-aheads issued */
  uint64_t es_ra_pages_read;     /* pages read by read-ahead */
  uint64_t es_ra_pages_used;     /* of those, pages fixed afterwards */
  uint64_t es_pages_written;
  uint64_t es_evictions;
  uint64_t es_dirty_evictions;   /* a dirty victim had to be written first */
  int64_t es_buffers;            /* frames in the pool */
  int64_t es_buffers_used;
  int64_t es_buffers_dirty;
  int64_t es_sessions;           /* open sessions, every port */
} estats_t;
void engine_stats(engine_t *eng, estats_t *out);

/* HTTP Digest (RFC 7616, MD5) for the HTTP server: the realm of
 * [HTTPServer] DigestRealm (NULL = Digest off), and a role's stored
 * HA1 = MD5(role:realm:password), made when its password was set under
 * that realm (CREATE/ALTER ROLE … PASSWORD; a SCRAM verifier cannot give
 * it). Returns 1 when the role does not exist, may not log in or has no
 * HA1 for this realm. */
const char *engine_digest_realm(const engine_t *eng);
int engine_role_digest(engine_t *eng, const char *role, uint8_t ha1[16]);

/* Authentication data of a role: its SCRAM-SHA-256 verifier as stored
 * ("SCRAM-SHA-256$<iter>:<salt>$<stored>:<server>"), copied into a.
 * BT_NOT_FOUND-style: returns 1 when the role does not exist or may not
 * log in (the caller then fakes an exchange and fails it, so that the
 * answer does not reveal which names exist). */
int engine_role_verifier(engine_t *eng, const char *role, arena_t *a,
                         char **verifier, err_t *e);

/* ---- sessions ---------------------------------------------------------- */

/* Starts a session for an authenticated role. database is what the client
 * asked for: any name is accepted (one server serves one database). */
int esession_open(engine_t *eng, const char *role, const char *database,
                  esession_t **out, err_t *e);
void esession_close(esession_t *s);

/* Transaction status for ReadyForQuery: 'I' idle, 'T' in a block, 'E' in a
 * failed block. */
char esession_tx_status(const esession_t *s);

/* Run-time parameters the server reports to the client (ParameterStatus)
 * at startup and whenever SET changes one: server_version,
 * server_encoding, client_encoding, DateStyle, IntervalStyle, TimeZone,
 * integer_datetimes, standard_conforming_strings, is_superuser,
 * session_authorization, application_name. Calls fn for each; with
 * only_changed, only for those changed since the last call. */
typedef void (*eparam_fn_t)(void *ctx, const char *name, const char *value);
void esession_report_params(esession_t *s, bool only_changed, eparam_fn_t fn, void *ctx);
/* Sets a parameter from the startup packet (application_name,
 * client_encoding, DateStyle, …). Unknown names are ignored, as
 * PostgreSQL ignores unknown GUCs of extensions; bad values are 22023. */
int esession_set_param(esession_t *s, const char *name, const char *value, err_t *e);

/* The id the protocol server gave the client in BackendKeyData (what
 * pg_backend_pid() returns; the engine numbers sessions itself until
 * told). Call it right after esession_open. */
void esession_set_backend_pid(esession_t *s, int32_t pid);

/* Whether the session's role is a superuser (the protocol server keeps
 * SuperuserReservedConnections slots for them). */
bool esession_is_superuser(const esession_t *s);

/* A SPARQL 1.1 Update request (text without the SPARQL keyword; base: the
 * base IRI, NULL none) as one transaction of s — or inside its open block
 * — with the SPARQL Protocol's using-graph-uri / using-named-graph-uri
 * (42601 with an operation that has WITH or USING). *inserted / *deleted: the
 * quads the request added and removed. Errors leave the store unchanged
 * (the block, if any, failed). libsrc/sparql README "SPARQL Update". */
int esession_sparql_update(esession_t *s, const char *text, size_t len, const char *base,
                           const char *const *using_graphs, int nusing,
                           const char *const *using_named, int nnamed, int64_t *inserted,
                           int64_t *deleted, err_t *e);

/* An error the protocol layer raised outside any statement (a message
 * whose text is not valid UTF-8): an open transaction block fails as if a
 * statement had failed ('E'), nothing it did so far being undone; outside
 * a block an open implicit transaction is rolled back. */
void esession_fail(esession_t *s);

/* Threads a query of this session may use, its own included: its
 * max_parallel_workers_per_gather + 1 (PostgreSQL's name; the default
 * is [Parameters] ThreadsPerQuery - 1). */
int esession_threads(esession_t *s);

/* The statement_timeout setting in milliseconds (0 = none). SET checks
 * the value (22023); the protocol server enforces it by a timer that calls
 * esession_cancel, as PostgreSQL's statement timeout. */
int64_t esession_statement_timeout_ms(esession_t *s);

/* Puts the session's TimeZone in force on the calling thread (text forms
 * and casts of timestamptz read it there): the protocol server calls it
 * whenever a thread takes up the session's work. */
void esession_use(esession_t *s);

/* Asks the statement running in s to stop: it fails with 57014 at its next
 * batch boundary. Safe from any thread while s is open. */
void esession_cancel(esession_t *s);

/* Notices (warnings) raised by the last call, e.g. "there is no
 * transaction in progress": fn is called for each (its SQLSTATE, message,
 * DETAIL and HINT in an err_t) and they are cleared. */
typedef void (*enotice_fn_t)(void *ctx, const char *severity, const err_t *notice);
void esession_drain_notices(esession_t *s, enotice_fn_t fn, void *ctx);

/* ---- statements -------------------------------------------------------- */

/* Splits text into statements (for the simple query protocol) and parses
 * each once with the parser of its language (en_frontend.c): each
 * statement's (offset, length) in text and its parsed form, in *stmts
 * allocated in a, which must outlive the statements prepared from them
 * (estmt_prepare_parsed). Parse errors are reported here (42601 with the
 * position in text) before anything runs, and fail the session's open
 * transaction block, as a failing statement does. A text with no
 * statement gives n = 0 (EmptyQueryResponse). */
typedef struct etext_s {
  size_t et_off;
  size_t et_len;
  const struct efront_s *et_front;  /* the statement's front end */
  void *et_parsed;                  /* its parsed form (the front end's), in a */
} etext_t;
int esession_split(esession_t *s, const char *text, size_t len, arena_t *a,
                   etext_t **stmts, int *n, err_t *e);

/* The statements of one simple-protocol Query run as one implicit
 * transaction, as in PostgreSQL: between esession_begin_implicit and
 * esession_end_implicit a statement outside a block does not commit on
 * its own; the first failure rolls back everything the text did so far
 * (outside a block), and end_implicit commits what is left open (ok) or
 * rolls it back (!ok). BEGIN inside the text turns the open implicit
 * transaction into a block (its earlier statements included) and
 * COMMIT / ROLLBACK end it; the statements after that start a new
 * implicit one. end_implicit returns the commit's error, if any. */
void esession_begin_implicit(esession_t *s);
/* The statement of the open SQL cursor (DECLARE) named name, for the
 * protocol's Describe of a portal of that name; NULL when none. */
const estmt_t *esession_cursor_stmt(esession_t *s, const char *name);
int esession_end_implicit(esession_t *s, bool ok, err_t *e);

/* Prepares one statement. param_types[i] are the client's type OIDs for
 * $1.. (0 = infer); nparams may be less than the statement uses. The
 * statement lives until estmt_free (it belongs to the session). A
 * statement whose plan depends on the catalog is re-planned transparently
 * when the catalog changes. */
int estmt_prepare(esession_t *s, const char *text, size_t len,
                  const uint32_t *param_types, int nparams,
                  estmt_t **out, err_t *e);
/* As estmt_prepare for a statement esession_split cut and parsed: text is
 * the statement's own text (t's et_len bytes), and it is not parsed again. */
int estmt_prepare_parsed(esession_t *s, const char *text, const etext_t *t, estmt_t **out,
                         err_t *e);
void estmt_free(estmt_t *st);

int estmt_nparams(const estmt_t *st);
/* Inferred (or given) type of parameter i (0-based). */
ty_t estmt_param_type(const estmt_t *st, int i);

/* One result column, for RowDescription. Names are valid while st lives. */
typedef struct ecol_s {
  const char *ec_name;
  ty_t ec_type;
  uint32_t ec_table_oid;  /* table the column comes from, 0 = computed */
  int16_t ec_attnum;      /* its column number there (1-based), 0 = computed */
} ecol_t;

/* Result columns; *ncols = -1 when the statement returns no rows (INSERT
 * without RETURNING, DDL …: NoData). */
void estmt_columns(const estmt_t *st, const ecol_t **cols, int *ncols);

/* What a statement is, for the protocol: COPY needs the copy
 * sub-protocol. */
typedef enum estmt_kind_e {
  ESTMT_QUERY,      /* returns rows */
  ESTMT_COMMAND,    /* returns a command tag only */
  ESTMT_COPY_IN,    /* COPY … FROM STDIN */
  ESTMT_COPY_OUT    /* COPY … TO STDOUT */
} estmt_kind_t;
estmt_kind_t estmt_kind(const estmt_t *st);

/* ---- SPARQL requests ---------------------------------------------------
 *
 * The one entry a protocol front end (the HTTP endpoint) uses for a SPARQL
 * 1.1 Protocol query: the text is parsed as a query, the protocol's
 * dataset (default-graph-uri / named-graph-uri) replaces the query's own
 * (SPARQL 1.1 Protocol §2.1.4), and it is compiled by the same compiler as
 * a `SPARQL …` statement inside SQL. The statement is then bound and run
 * like any other (eportal_bind, eportal_execute): a SELECT returns one
 * text column per variable, each value an RDF term in N-Triples form
 * (NULL = unbound); ASK one boolean column; CONSTRUCT and DESCRIBE the
 * triples as three such columns (subject, predicate, object). What the
 * compiler does not cover yet is 0A000, a syntax error 42601 with line and
 * column in the message. An update request goes to esession_sparql_update
 * (above). */
typedef enum esparql_form_e {
  ESPARQL_SELECT,
  ESPARQL_ASK,
  ESPARQL_CONSTRUCT,
  ESPARQL_DESCRIBE
} esparql_form_t;

typedef struct esparql_request_s {
  const char *sr_text;               /* the query or update, UTF-8 */
  size_t sr_len;
  const char *sr_base;               /* base IRI (NULL = none) */
  const char *const *sr_default;     /* default-graph-uri */
  int sr_ndefault;
  const char *const *sr_named;       /* named-graph-uri */
  bool sr_store_default;             /* without a dataset, the default graph is the store's
                                        own (g = 0), not the union of all graphs */
  int sr_nnamed;
} esparql_request_t;

/* Prepares r as a statement of s (*form says what it is, also when the
 * compiler then refuses it with 0A000). */
int esparql_prepare(esession_t *s, const esparql_request_t *r, estmt_t **out,
                    esparql_form_t *form, err_t *e);

/* ---- named prepared statements -------------------------------------------
 *
 * One namespace per session for SQL PREPARE and the protocol's named
 * statements, as in PostgreSQL: EXECUTE and Bind find either, DEALLOCATE
 * [ALL] and Close remove either. The protocol's unnamed statement is not
 * here (the protocol server keeps it). */

/* Registers st (NULL: the empty query) under name and takes over its
 * owner reference; 42P05 when the name is taken (st is then the
 * caller's still). */
int esession_prepared_add(esession_t *s, const char *name, estmt_t *st, err_t *e);
/* Whether name exists; *st its statement (NULL for the empty query). */
bool esession_prepared_find(esession_t *s, const char *name, estmt_t **st);
/* Removes name (its statement goes once no portal runs it); false when
 * there is none. */
bool esession_prepared_remove(esession_t *s, const char *name);

/* ---- portals ----------------------------------------------------------- */

/* A parameter value as it came over the wire. */
typedef struct eparam_s {
  const uint8_t *ep_data;  /* NULL = SQL NULL */
  uint32_t ep_len;
  int16_t ep_format;       /* 0 text, 1 binary */
} eparam_t;

/* Binds parameter values to st: the portal holds a private copy of what it
 * needs. Errors: 08P01 wrong parameter count, 22P02/22P03 bad values. */
int eportal_bind(estmt_t *st, const eparam_t *params, int nparams,
                 eportal_t **out, err_t *e);
void eportal_free(eportal_t *p);

/* Receives result rows, one batch at a time (b->b_n rows, one vector per
 * result column). Returns CZ_OK to go on or CZ_ERR (e filled) to stop, e.g.
 * when the client went away. */
typedef int (*erows_fn_t)(void *ctx, const batch_t *b, err_t *e);

/* Runs the portal until max_rows rows have been passed to fn (0 = all) or
 * the statement ends. *suspended is true when rows remain (PortalSuspended);
 * executing the portal again continues from there. The first call of a
 * statement outside a transaction block commits it when it ends. */
int eportal_execute(eportal_t *p, int64_t max_rows, erows_fn_t fn, void *ctx,
                    bool *suspended, err_t *e);
/* The command tag of the completed statement: "SELECT 3", "INSERT 0 1",
 * "UPDATE 2", "CREATE TABLE", "BEGIN", … Valid while p lives. */
const char *eportal_tag(const eportal_t *p);

/* ---- COPY -------------------------------------------------------------- */

/* For ESTMT_COPY_OUT: eportal_execute passes no batches; instead this
 * produces the data, one chunk (whole lines, in the statement's format)
 * at a time. */
typedef int (*ecopy_out_fn_t)(void *ctx, const char *data, size_t len, err_t *e);
int eportal_copy_out(eportal_t *p, ecopy_out_fn_t fn, void *ctx, err_t *e);

/* Whether a COPY statement moves PostgreSQL's binary format (FORMAT
 * binary): the copy responses then say format 1 for every column, and the
 * data is bytes, not text. */
bool estmt_copy_binary(const estmt_t *st);

/* For ESTMT_COPY_IN: the number of columns and the wire format (0 text
 * or CSV, 1 binary) for CopyInResponse, then any number of data chunks
 * (record boundaries may fall anywhere), then done (or fail, which rolls
 * back what was copied). */
int eportal_copy_in_begin(eportal_t *p, int *ncols, int *format, err_t *e);
int eportal_copy_in_data(eportal_t *p, const char *data, size_t len, err_t *e);
int eportal_copy_in_done(eportal_t *p, err_t *e);
void eportal_copy_in_fail(eportal_t *p, const char *reason);

#endif /* CZ_ENGINE_H */
