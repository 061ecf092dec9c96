/* pgs_int — what the files of the wire-protocol server share: the server,
 * a client connection, its prepared statements and portals, and the
 * resumable job a connection runs when its output backs up.
 *
 * Design notes: a connection is handled by one thread at a time, the one
 * whose epoll_wait returned its (one-shot) event; so nothing in pgs_conn_t
 * is locked except what other threads read: the connection list, the
 * deadline and the session pointer (for CancelRequest), which are guarded
 * by the server's mutex. Only the handling thread frees a connection: other
 * threads (timeouts, shutdown) only shutdown(2) its socket, which wakes the
 * handler with EOF. See net/README.md, "The server".
 */
#ifndef CZ_PGS_INT_H
#define CZ_PGS_INT_H

#include <stdatomic.h>

#include <openssl/ssl.h>

#include "net/net_int.h"
#include "net/pgserver.h"
#include "thread/thread.h"

/* Output is sent once this much has collected, even mid-reply; a row
 * stream stops (parks) while more than this is waiting for the client. */
#define PGS_OUT_HIGH_WATER (64u * 1024u)
/* Rows one internal step of a result stream produces before the output is
 * checked (client row limits are honoured exactly on top of this). */
#define PGS_CHUNK_ROWS 4096
/* Messages one turn may process before the connection goes back to epoll
 * (fairness between pipelining clients). */
#define PGS_TURN_MESSAGES 256
#define PGS_TURN_COPY_BYTES 16384 /* CopyData bytes that count as one message of a turn (pgs_conn.c) */
/* How long COPY TO STDOUT waits for a client that does not read (it
 * cannot park: the engine produces COPY data in one call). */
#define PGS_COPY_OUT_STALL_MS (300 * 1000)
/* An idle connection keeps at most this much output (and receive) buffer. */
#define PGS_IDLE_OUT_CAP (256u * 1024u)
#define PGS_NAME_BUCKETS 32
/* Threads that accept and serve connections until they are authenticated
 * (TLS, SCRAM, CancelRequest): never busy with SQL, so a server whose
 * ServerThreads all run long statements still accepts, authenticates and
 * cancels. */
#define PGS_STARTUP_THREADS 2

typedef struct pgs_conn_s pgs_conn_t;

/* ---- prepared statements and portals (pgs_extended.c) ---- */

/* Named statements live in the engine's session (esession_prepared_*:
 * one namespace with SQL PREPARE, as in PostgreSQL); only the unnamed one
 * is kept here. */

typedef struct pgs_portal_s {
  struct pgs_portal_s *pp_next;
  char *pp_name;
  bool pp_bound;              /* a Bind filled it (the unnamed struct is reused) */
  const estmt_t *pp_st;       /* its statement, NULL for the empty query; alive while
                               * pp_portal is (the engine portal holds a reference, so
                               * Close 'S' or DEALLOCATE may come first) */
  eportal_t *pp_portal;       /* NULL for the empty query */
  int pp_ncols;               /* -1: the statement returns no rows */
  int16_t *pp_formats;        /* pp_ncols result formats (0 text, 1 binary) */
  int pp_formats_cap;
  bool pp_done;               /* ran to completion */
} pgs_portal_t;

/* ---- the resumable job ---- */

typedef enum pgs_job_kind_e {
  PGS_JOB_NONE = 0,
  PGS_JOB_SIMPLE,  /* a Query message: statements jb_i..jb_n-1 still to run */
  PGS_JOB_EXECUTE  /* an Execute message streaming rows of jb_pp */
} pgs_job_kind_t;

typedef struct pgs_job_s {
  pgs_job_kind_t jb_kind;
  /* simple query: the text (in the decoder, or copied to c_job_arena while
   * COPY FROM STDIN reads further messages), its statements, the current
   * one and its portal */
  const char *jb_text;
  size_t jb_len;
  etext_t *jb_stmts;
  int jb_n;
  int jb_i;
  bool jb_implicit;           /* esession_begin_implicit was called for the text */
  estmt_t *jb_st;
  eportal_t *jb_portal;
  /* execute */
  pgs_portal_t *jb_pp;
  bool jb_limited;            /* the client gave a row limit */
  int64_t jb_left;            /* rows still to send under that limit */
} pgs_job_t;

/* What a message handler tells the connection loop. */
typedef enum pgs_next_e {
  PGS_GO_ON = 0,   /* next message */
  PGS_PARK,        /* output backed up: resume the job when writable */
  PGS_CLOSE        /* send what is buffered, then close */
} pgs_next_t;

typedef enum pgs_phase_e {
  PGS_PH_STARTUP = 0, /* before StartupMessage (SSL/GSS negotiation too) */
  PGS_PH_TLS,         /* TLS handshake running */
  PGS_PH_SASL_FIRST,  /* AuthenticationSASL sent */
  PGS_PH_SASL_FINAL,  /* AuthenticationSASLContinue sent */
  PGS_PH_READY,       /* authenticated, session open */
  PGS_PH_COPY_IN      /* CopyInResponse sent */
} pgs_phase_t;

struct pgs_conn_s {
  pgs_server_t *c_srv;
  pgs_conn_t *c_prev, *c_next; /* the server's list; sv_mu */
  int c_fd;
  int c_epfd;                  /* the epoll set c is in: startup or sessions */
  SSL *c_ssl;                  /* NULL: plain TCP */
  bool c_io_want_write;        /* TLS: the last read/write needs writability */
  bool c_maybe_more;           /* the last read filled its room: read again */
  pgs_phase_t c_phase;
  pgs_conn_t *c_sprev, *c_snext; /* the unauthenticated queue, oldest first; sv_mu */
  bool c_in_startup;           /* in that queue (counted in sv_n_startup); sv_mu */
  bool c_authing;              /* StartupMessage received: AuthenticationTimeout; sv_mu */
  bool c_has_slot;             /* authenticated: counted in sv_n_sessions; sv_mu */
  uint64_t c_accept_ns;        /* when the connection was accepted */
  char c_peer[64];             /* the client's address, for messages */
  bool c_peer_local;           /* on a loopback address (RequireSSL = remote) */
  bool c_ignore_till_sync;     /* extended query error: skip to Sync */
  bool c_ext_implicit;         /* extended messages since Sync run in one implicit transaction */
  uint64_t c_deadline_ns;      /* startup must end by then; 0 = none; sv_mu */
  uint64_t c_stmt_deadline_ns; /* statement_timeout: cancel then; 0 = none; written by
                                * the handler under sv_mu, read by the housekeeper */
  atomic_bool c_stmt_timed_out; /* the housekeeper cancelled for statement_timeout */
  int32_t c_pid;               /* BackendKeyData */
  int32_t c_key;
  pgw_decoder_t *c_dec;
  pgw_buf_t c_out;
  arena_t *c_arena;            /* connection lifetime */
  arena_t *c_msg_arena;        /* reset for each message */
  arena_t *c_job_arena;        /* a simple query's text kept across COPY IN */
  /* startup */
  const char *c_user;
  const char *c_database;
  int c_n_params;              /* other startup parameters, applied to the session */
  const char **c_param_names;
  const char **c_param_values;
  scram_server_t c_scram;
  /* the session; sv_mu guards the pointer (CancelRequest reads it) */
  esession_t *c_sess;
  /* extended query */
  pgs_portal_t *c_portals[PGS_NAME_BUCKETS];
  bool c_has_unnamed_stmt;     /* a Parse made the unnamed statement */
  estmt_t *c_unnamed_st;       /* it (NULL: the empty query) */
  pgs_portal_t *c_unnamed_portal;
  /* the running job and COPY FROM STDIN */
  pgs_job_t c_job;
  eportal_t *c_copy_portal;    /* PGS_PH_COPY_IN: where CopyData goes */
  bool c_copy_extended;        /* it came from Execute (else from c_job) */
  bool c_copy_binary;          /* FORMAT binary: the data is not checked as UTF-8 */
  pgs_portal_t *c_copy_pp;     /* the extended portal, for its tag */
  uint8_t c_copy_tail[4];      /* a UTF-8 sequence split across CopyData messages */
  int c_copy_tail_len;
};

struct pgs_server_s {
  engine_t *sv_eng;
  pgs_config_t sv_cfg;
  int sv_listen_fd;
  int sv_epfd;                 /* authenticated connections */
  int sv_epfd_startup;         /* the listener and connections in startup */
  int sv_wake_fd;              /* eventfd: wakes every thread to exit */
  int sv_listen_tag;           /* &sv_listen_tag / &sv_wake_tag mark the two */
  int sv_wake_tag;             /* non-connection fds in epoll data */
  SSL_CTX *sv_tls;             /* NULL: SSLRequest answered 'N' */
  char sv_addr[300];
  int sv_port;
  cz_thread_t *sv_threads;     /* sv_max_threads slots */
  atomic_int sv_n_threads;     /* started; grows while sessions wait (changed under sv_mu, read
                                * without it by session_thread_blocks' first look) */
  int sv_max_threads;          /* ServerThreads + MaxClientConnections */
  atomic_int sv_blocked;       /* session threads waiting for another session */
  cz_thread_t sv_start_threads[PGS_STARTUP_THREADS];
  int sv_n_start_threads;
  cz_thread_t sv_house;        /* deadlines */
  cz_mutex_t sv_mu;
  cz_cond_t sv_cv;             /* a connection ended; the housekeeper's sleep */
  pgs_conn_t *sv_conns;        /* every open connection; sv_mu */
  int sv_n_conns;              /* sv_mu */
  int sv_n_sessions;           /* connections holding a session slot; sv_mu */
  int sv_n_startup;            /* connections in the startup queue; sv_mu */
  int sv_max_startup;          /* MaxStartupConnections resolved */
  pgs_conn_t *sv_startup_head; /* the startup queue: oldest first; sv_mu */
  pgs_conn_t *sv_startup_tail;
  int32_t sv_next_pid;         /* sv_mu */
  atomic_bool sv_stopping;     /* no new connections; clients are told 57P01 */
  atomic_bool sv_exit;         /* threads leave their loop */
};

/* ---- pgs_listen.c ---- */
void pgs_conn_unlist(pgs_conn_t *c);
/* The StartupMessage arrived: AuthenticationTimeout replaces StartupTimeout. */
void pgs_conn_startup_done(pgs_conn_t *c);
/* Authenticated: takes a session slot (CZ_OK) or fails with 53300 when
 * none is left for this role (superusers may use the reserved ones). */
int pgs_conn_take_slot(pgs_conn_t *c, bool superuser, err_t *e);

/* ---- pgs_conn.c ---- */
pgs_conn_t *pgs_conn_create(pgs_server_t *srv, int fd, err_t *e);
/* Handles one epoll event of c; c may be freed on return. */
void pgs_conn_event(pgs_conn_t *c, uint32_t events);
/* Frees c (the caller holds it, unlisted or not). */
void pgs_conn_destroy(pgs_conn_t *c);

/* ---- pgs_io.c ---- */
typedef enum pgs_io_e { PGS_IO_OK = 0, PGS_IO_AGAIN, PGS_IO_EOF } pgs_io_t;
/* Reads what is there into the decoder. */
pgs_io_t pgs_io_read(pgs_conn_t *c);
/* Sends the output buffer; PGS_IO_AGAIN when some is left. */
pgs_io_t pgs_io_flush(pgs_conn_t *c);
/* Sends all of it, waiting up to timeout_ms for the client. */
int pgs_io_flush_wait(pgs_conn_t *c, int timeout_ms, err_t *e);
/* Re-arms c's one-shot event: readable, or writable when want_write. */
void pgs_io_arm(pgs_conn_t *c, bool want_write);

/* ---- pgs_tls.c ---- */
int pgs_tls_ctx_create(const pgs_config_t *cfg, SSL_CTX **out, err_t *e);
void pgs_tls_ctx_free(SSL_CTX *ctx);
int pgs_tls_begin(pgs_conn_t *c, err_t *e);
/* One step of the handshake: PGS_IO_OK when done, AGAIN (c_io_want_write
 * says which way), EOF when it failed. */
pgs_io_t pgs_tls_handshake(pgs_conn_t *c);

/* ---- pgs_startup.c ---- */
pgs_next_t pgs_startup_message(pgs_conn_t *c, const pgw_fe_msg_t *m);

/* ---- pgs_auth.c ---- */
pgs_next_t pgs_auth_begin(pgs_conn_t *c);
pgs_next_t pgs_auth_message(pgs_conn_t *c, const pgw_fe_msg_t *m);

/* ---- pgs_cancel.c ---- */
void pgs_cancel_request(pgs_server_t *srv, int32_t pid, int32_t key);

/* ---- pgs_result.c: replies shared by the query paths ---- */
/* ErrorResponse (after the pending notices), severity ERROR or FATAL. */
void pgs_send_error(pgs_conn_t *c, const char *severity, const err_t *e);
void pgs_send_notices(pgs_conn_t *c);
/* ParameterStatus for what changed (only_changed) or everything. */
void pgs_send_params(pgs_conn_t *c, bool only_changed);
void pgs_send_ready(pgs_conn_t *c);
/* RowDescription of st's columns with formats (NULL = all text). */
void pgs_send_row_description(pgs_conn_t *c, const estmt_t *st, const int16_t *formats);
/* Runs p, sending DataRows in formats (NULL = text): *left rows when
 * limited, else all. Returns CZ_ERR (e), or CZ_OK with *outcome one of
 * PGS_ROWS_DONE (CommandComplete due), PGS_ROWS_SUSPENDED (the limit was
 * reached, rows remain), PGS_ROWS_PARKED (output backed up: call again). */
enum { PGS_ROWS_DONE = 0, PGS_ROWS_SUSPENDED, PGS_ROWS_PARKED };
int pgs_pump_rows(pgs_conn_t *c, eportal_t *p, const int16_t *formats, bool limited,
                  int64_t *left, int *outcome, err_t *e);
/* Output nearly full: try to send some now (never waits). */
void pgs_maybe_flush(pgs_conn_t *c);

/* ---- pgs_simple.c ---- */
pgs_next_t pgs_simple_query(pgs_conn_t *c, const pgw_fe_msg_t *m);
pgs_next_t pgs_simple_resume(pgs_conn_t *c);
/* COPY FROM STDIN of statement jb_i ended (ok or not): go on or finish. */
void pgs_simple_copy_ended(pgs_conn_t *c, bool failed);

/* ---- pgs_extended.c ---- */
pgs_next_t pgs_extended_message(pgs_conn_t *c, const pgw_fe_msg_t *m);
pgs_next_t pgs_execute_resume(pgs_conn_t *c);
/* Drops every statement and portal (connection end). */
void pgs_extended_free_all(pgs_conn_t *c);
/* Drops the portals (end of a transaction). */
void pgs_extended_free_portals(pgs_conn_t *c);
/* statement_timeout (pgs_timeout.c): the handler arms the timer when a
 * statement starts and disarms it when it ends; the housekeeper cancels
 * a statement past its deadline (pgs_timeout_expire, under sv_mu) and
 * pgs_send_error then words its 57014 as PostgreSQL does. */
void pgs_timeout_start(pgs_conn_t *c);
void pgs_timeout_stop(pgs_conn_t *c);
uint64_t pgs_timeout_expire(pgs_server_t *s, uint64_t now, uint64_t wake);
void pgs_timeout_word(pgs_conn_t *c, err_t *e);
/* Ends the implicit transaction of the extended messages since the last
 * Sync, if one is open: commits (ok) or rolls back; a commit error is sent
 * as ErrorResponse. */
void pgs_extended_end_implicit(pgs_conn_t *c, bool ok);

/* ---- pgs_copy.c ---- */
/* Starts COPY for p (from Execute when pp != NULL, else from the simple
 * job): COPY TO STDOUT runs to its end; COPY FROM STDIN enters
 * PGS_PH_COPY_IN. *copy_in tells which. */
int pgs_copy_start(pgs_conn_t *c, const estmt_t *st, eportal_t *p, pgs_portal_t *pp,
                   bool *copy_in, err_t *e);
pgs_next_t pgs_copy_message(pgs_conn_t *c, const pgw_fe_msg_t *m);
/* A CopyFail whose text is not valid UTF-8: the COPY fails with e. */
pgs_next_t pgs_copy_invalid(pgs_conn_t *c, const err_t *e);

/* ---- helpers ---- */
/* Characters (UTF-8) in text[0..off): turns a statement's error position
 * into one in the whole message text. */
int pgs_chars_before(const char *text, size_t off);

#endif /* CZ_PGS_INT_H */
