/* net — the PostgreSQL v3 wire protocol: message framing, an encoder for
 * backend messages, an incremental decoder for frontend messages, and the
 * server side of SCRAM-SHA-256 authentication.
 *
 * Design notes: this layer does no I/O. The server loop reads bytes from a
 * socket into a pgw_decoder_t and writes the bytes of a pgw_buf_t back; so the
 * same code serves blocking and non-blocking sockets, TLS, and tests that
 * feed one byte at a time. Every length on the wire is distrusted: a
 * malformed message is an error (08P01, or 22021 for bad UTF-8), never an
 * overread. See net/README.md for the numbered invariants.
 */
#ifndef CZ_NET_H
#define CZ_NET_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"


/* Protocol version 3.0 and the special request codes of the startup phase. */
#define PGW_PROTOCOL_3_0 196608u /* 3 << 16 */
#define PGW_SSL_REQUEST_CODE 80877103u
#define PGW_GSSENC_REQUEST_CODE 80877104u
#define PGW_CANCEL_REQUEST_CODE 80877102u

/* Limits on declared message lengths (the 4-byte length word included). */
#define PGW_MAX_STARTUP_LEN 10000u          /* PostgreSQL's MAX_STARTUP_PACKET_LENGTH */
#define PGW_MAX_SMALL_MSG_LEN 10000u        /* Sync, Describe, Execute, Close ... */
#define PGW_MAX_AUTH_MSG_LEN 65535u         /* 'p': passwords and SASL tokens */
#define PGW_MAX_MSG_LEN (1u << 30)          /* Query, Parse, Bind, CopyData */

/* ---- UTF-8 ------------------------------------------------------------- */

/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above
 * U+10FFFF. Returns len when s[0..len) is valid, else the offset of the
 * first byte of the first bad sequence. */
size_t pgw_utf8_check(const uint8_t *s, size_t len);
/* Fills e with 22021 naming the bad bytes at s[bad..] and returns CZ_ERR. */
int pgw_utf8_error(err_t *e, const uint8_t *s, size_t len, size_t bad);

/* ---- output buffer ----------------------------------------------------- */

/* A growable byte buffer holding encoded messages until they are sent.
 * Errors are sticky (as in SQLite's StrAccum): once an append fails, later
 * appends do nothing and every writer returns CZ_ERR, so a caller may write
 * a whole reply and check once. A failed buffer's bytes must not be sent. */
typedef struct pgw_buf_s {
  uint8_t *pb_data;
  size_t pb_len;
  size_t pb_cap;
  size_t pb_msg;   /* offset of the message being built, its length patched at end */
  bool pb_in_msg;  /* between pgw_buf_begin and pgw_buf_end */
  bool pb_failed;  /* sticky: pb_err says why */
  err_t pb_err;
} pgw_buf_t;

void pgw_buf_init(pgw_buf_t *b);
void pgw_buf_free(pgw_buf_t *b);
/* Empties the buffer (keeping its memory) and clears a sticky error. */
void pgw_buf_reset(pgw_buf_t *b);
/* Cuts the buffer back to its first len bytes (a mark taken between two
 * messages) and clears the sticky error: drops a reply that failed half
 * way while keeping the complete messages before it. */
void pgw_buf_truncate(pgw_buf_t *b, size_t len);
/* Drops the first n bytes, which the caller has sent. */
void pgw_buf_consume(pgw_buf_t *b, size_t n);
/* CZ_OK, or CZ_ERR with the sticky error copied into e. */
int pgw_buf_status(const pgw_buf_t *b, err_t *e);

/* Framing: begin writes the type byte and a length placeholder; end patches
 * the length and fails (54000) when the message passed PGW_MAX_MSG_LEN.
 * type 0 starts an untyped message (the startup packet). */
int pgw_buf_begin(pgw_buf_t *b, char type);
int pgw_buf_end(pgw_buf_t *b);
int pgw_buf_put_bytes(pgw_buf_t *b, const void *p, size_t n);
int pgw_buf_put_byte(pgw_buf_t *b, uint8_t v);
int pgw_buf_put_int16(pgw_buf_t *b, int16_t v);
int pgw_buf_put_int32(pgw_buf_t *b, int32_t v);
int pgw_buf_put_str(pgw_buf_t *b, const char *s); /* with its NUL */
/* In-place writing (values formatted straight into the buffer): room for n
 * more bytes at the end, or NULL when the buffer failed; then advance by
 * the bytes actually written (at most n). */
uint8_t *pgw_buf_room(pgw_buf_t *b, size_t n);
void pgw_buf_advance(pgw_buf_t *b, size_t n);

/* ---- backend messages (server to client) ------------------------------- */

typedef enum pgw_tx_status_e {
  PGW_TX_IDLE = 'I',
  PGW_TX_IN_BLOCK = 'T',
  PGW_TX_FAILED = 'E'
} pgw_tx_status_t;

/* One column of a RowDescription. */
typedef struct pgw_field_s {
  const char *fd_name;
  uint32_t fd_table_oid; /* 0 when the column is not a plain table column */
  int16_t fd_attnum;     /* 0 likewise */
  uint32_t fd_type_oid;
  int16_t fd_typlen;     /* -1 varlena, -2 C string */
  int32_t fd_typmod;     /* -1 when none */
  int16_t fd_format;     /* 0 text, 1 binary */
} pgw_field_t;

/* The single byte answering SSLRequest or GSSENCRequest: 'S'/'G' or 'N'. */
int pgw_write_ssl_answer(pgw_buf_t *b, char answer);
int pgw_write_auth_ok(pgw_buf_t *b);
/* mechs: NULL-terminated list, e.g. {"SCRAM-SHA-256", NULL}. */
int pgw_write_auth_sasl(pgw_buf_t *b, const char *const *mechs);
int pgw_write_auth_sasl_continue(pgw_buf_t *b, const void *data, size_t len);
int pgw_write_auth_sasl_final(pgw_buf_t *b, const void *data, size_t len);
int pgw_write_parameter_status(pgw_buf_t *b, const char *name, const char *value);
int pgw_write_backend_key(pgw_buf_t *b, int32_t pid, int32_t key);
/* NegotiateProtocolVersion: the newest minor version we speak and the
 * protocol options ("_pq_.*") of the startup packet we did not recognise. */
int pgw_write_negotiate_version(pgw_buf_t *b, int32_t minor, const char *const *unknown,
                                int n_unknown);
int pgw_write_ready(pgw_buf_t *b, pgw_tx_status_t status);
int pgw_write_row_description(pgw_buf_t *b, const pgw_field_t *fields, int n);
/* values[i] with lens[i] bytes; lens[i] == -1 sends SQL NULL. */
int pgw_write_data_row(pgw_buf_t *b, int n, const uint8_t *const *values,
                       const int32_t *lens);
int pgw_write_command_complete(pgw_buf_t *b, const char *tag);
int pgw_write_empty_query(pgw_buf_t *b);
/* severity: "ERROR", "FATAL", "PANIC" (errors), "WARNING", "NOTICE", "INFO"
 * ... (notices). Sends S and V (severity), C (SQLSTATE), M, and P when
 * e->er_pos > 0. */
int pgw_write_error(pgw_buf_t *b, const char *severity, const err_t *e);
int pgw_write_notice(pgw_buf_t *b, const char *severity, const err_t *e);
int pgw_write_parse_complete(pgw_buf_t *b);
int pgw_write_bind_complete(pgw_buf_t *b);
int pgw_write_close_complete(pgw_buf_t *b);
int pgw_write_no_data(pgw_buf_t *b);
int pgw_write_parameter_description(pgw_buf_t *b, const uint32_t *oids, int n);
int pgw_write_portal_suspended(pgw_buf_t *b);
/* format: overall 0 text / 1 binary; formats[ncols] per column. */
int pgw_write_copy_in_response(pgw_buf_t *b, int8_t format, const int16_t *formats,
                               int ncols);
int pgw_write_copy_out_response(pgw_buf_t *b, int8_t format, const int16_t *formats,
                                int ncols);
int pgw_write_copy_data(pgw_buf_t *b, const void *data, size_t len);
int pgw_write_copy_done(pgw_buf_t *b);

/* ---- frontend messages (client to server) ------------------------------ */

typedef enum pgw_fe_kind_e {
  PGW_FE_STARTUP = 1,
  PGW_FE_SSL_REQUEST,
  PGW_FE_GSSENC_REQUEST,
  PGW_FE_CANCEL,
  PGW_FE_QUERY,       /* 'Q' */
  PGW_FE_PARSE,       /* 'P' */
  PGW_FE_BIND,        /* 'B' */
  PGW_FE_DESCRIBE,    /* 'D' */
  PGW_FE_EXECUTE,     /* 'E' */
  PGW_FE_SYNC,        /* 'S' */
  PGW_FE_FLUSH,       /* 'H' */
  PGW_FE_CLOSE,       /* 'C' */
  PGW_FE_TERMINATE,   /* 'X' */
  PGW_FE_PASSWORD,    /* 'p': PasswordMessage, SASLInitialResponse, SASLResponse */
  PGW_FE_COPY_DATA,   /* 'd' */
  PGW_FE_COPY_DONE,   /* 'c' */
  PGW_FE_COPY_FAIL    /* 'f' */
} pgw_fe_kind_t;

typedef struct pgw_startup_s {
  uint32_t su_version;   /* major << 16 | minor; major is always 3 */
  int su_n_params;
  const char **su_names; /* "user" is always among them */
  const char **su_values;
} pgw_startup_t;

typedef struct pgw_parse_s {
  const char *pa_stmt;    /* "" = the unnamed statement */
  const char *pa_query;
  int pa_n_types;
  const uint32_t *pa_types; /* 0 = let the server infer */
} pgw_parse_t;

typedef struct pgw_bind_s {
  const char *bi_portal;
  const char *bi_stmt;
  int bi_n_formats;          /* 0, 1 (applies to all) or bi_n_params */
  const int16_t *bi_formats; /* each 0 or 1 */
  int bi_n_params;
  const uint8_t *const *bi_values; /* NULL where bi_lens[i] == -1 */
  const int32_t *bi_lens;
  int bi_n_result_formats;
  const int16_t *bi_result_formats; /* each 0 or 1 */
} pgw_bind_t;

/* A decoded frontend message. Strings are NUL-terminated, valid UTF-8 and
 * point into the decoder's receive buffer; arrays live in the decoder's
 * arena. Both stay valid until the next pgw_dec_* call on that decoder. */
typedef struct pgw_fe_msg_s {
  pgw_fe_kind_t fm_kind;
  char fm_type;            /* the wire type byte; 0 in the startup phase */
  const uint8_t *fm_body;  /* the bytes after the length word */
  uint32_t fm_len;         /* their count */
  union {
    pgw_startup_t startup;
    struct { int32_t pid; int32_t key; } cancel;
    struct { const char *sql; } query;
    pgw_parse_t parse;
    pgw_bind_t bind;
    struct { char what; const char *name; } target; /* Describe, Close: 'S' or 'P' */
    struct { const char *portal; int32_t max_rows; } execute; /* 0 = all */
    struct { const uint8_t *data; uint32_t len; } data; /* 'p' and 'd': raw body */
    struct { const char *message; } copy_fail;
  } fm_u;
} pgw_fe_msg_t;

typedef struct pgw_decoder_s pgw_decoder_t;

/* Results of pgw_dec_next besides CZ_ERR. */
#define PGW_NEED_MORE 0
#define PGW_MSG 1
/* A whole typed message was framed but one of its strings is not valid
 * UTF-8 (22021 in e): the message is consumed and the decoder stays usable
 * (framing is intact), so the server answers ERROR and goes on, as
 * PostgreSQL does. m has fm_kind and fm_type only. */
#define PGW_MSG_INVALID 2

pgw_decoder_t *pgw_dec_create(void);
void pgw_dec_destroy(pgw_decoder_t *d);
/* Appends received bytes (copying them). CZ_ERR (53200) only when memory
 * runs out. */
int pgw_dec_feed(pgw_decoder_t *d, const void *data, size_t len, err_t *e);
/* Zero-copy receive: room for at least want bytes, written by the caller
 * (e.g. recv()) and then committed. */
int pgw_dec_reserve(pgw_decoder_t *d, size_t want, uint8_t **p, size_t *avail, err_t *e);
void pgw_dec_commit(pgw_decoder_t *d, size_t n);
/* Decodes the next whole message: PGW_MSG (m filled), PGW_NEED_MORE,
 * PGW_MSG_INVALID (bad UTF-8 in a typed message: not final), or CZ_ERR.
 * An error is final: framing is lost, so every later call returns the
 * same error and the server should send it and close. */
int pgw_dec_next(pgw_decoder_t *d, pgw_fe_msg_t *m, err_t *e);
/* Gives the receive buffer back when it holds nothing undecoded and has
 * grown past keep bytes (an idle connection after a big message). Like
 * pgw_dec_reserve it invalidates the last decoded message. */
void pgw_dec_trim(pgw_decoder_t *d, size_t keep);
/* Bytes received but not yet decoded. */
size_t pgw_dec_pending(const pgw_decoder_t *d);
/* True until a StartupMessage has been decoded. */
bool pgw_dec_in_startup(const pgw_decoder_t *d);

/* 'p' bodies depend on the authentication step, which only the server
 * knows; these read them. The results point into m. */
int pgw_parse_password(const pgw_fe_msg_t *m, const char **password, err_t *e);
int pgw_parse_sasl_initial(const pgw_fe_msg_t *m, const char **mech,
                           const uint8_t **data, int32_t *len, err_t *e);

/* ---- frontend encoders (the client side: tests and drivers) ------------ */

/* names/values: n pairs. */
int pgw_write_startup(pgw_buf_t *b, uint32_t version, const char *const *names,
                      const char *const *values, int n);
int pgw_write_request_code(pgw_buf_t *b, uint32_t code); /* SSL, GSSENC */
int pgw_write_cancel(pgw_buf_t *b, int32_t pid, int32_t key);
int pgw_write_query(pgw_buf_t *b, const char *sql);
int pgw_write_parse(pgw_buf_t *b, const char *stmt, const char *query,
                    const uint32_t *types, int n_types);
int pgw_write_bind(pgw_buf_t *b, const pgw_bind_t *bind);
int pgw_write_describe(pgw_buf_t *b, char what, const char *name);
int pgw_write_execute(pgw_buf_t *b, const char *portal, int32_t max_rows);
int pgw_write_sync(pgw_buf_t *b);
int pgw_write_flush(pgw_buf_t *b);
int pgw_write_close(pgw_buf_t *b, char what, const char *name);
int pgw_write_terminate(pgw_buf_t *b);
int pgw_write_password(pgw_buf_t *b, const char *password);
/* len -1 sends no data (the client-first message is then absent). */
int pgw_write_sasl_initial(pgw_buf_t *b, const char *mech, const void *data, int32_t len);
int pgw_write_sasl_response(pgw_buf_t *b, const void *data, size_t len);
int pgw_write_copy_fail(pgw_buf_t *b, const char *message);
/* CopyData and CopyDone are pgw_write_copy_data/_done above: same bytes. */

/* ---- SCRAM-SHA-256 (RFC 5802, RFC 7677) -------------------------------- */

/* The verifier format, its parsing and the primitives are util's
 * (util.h: password verifiers), shared with the catalog. */


typedef enum scram_state_e {
  SCRAM_WAIT_CLIENT_FIRST = 0,
  SCRAM_WAIT_CLIENT_FINAL,
  SCRAM_DONE,   /* authenticated */
  SCRAM_FAILED  /* any error; the exchange cannot continue */
} scram_state_t;

/* One server-side exchange. All strings it makes come from its arena (the
 * session's), so there is nothing to free. */
typedef struct scram_server_s {
  scram_state_t ss_state;
  arena_t *ss_arena;
  scram_verifier_t ss_ver;
  bool ss_mock;             /* no such user: run the exchange, then fail (no user enumeration) */
  const char *ss_nonce_suffix; /* the server's half of the nonce; random unless set */
  const char *ss_gs2_header;   /* "n,," or "y,,", echoed back in c= */
  const char *ss_client_first_bare;
  const char *ss_server_first;
  const char *ss_nonce;        /* client nonce + server nonce */
} scram_server_t;

/* verifier NULL: the user does not exist or has no SCRAM secret; the
 * exchange runs with a made-up salt and fails at the proof, like a wrong
 * password, so a client cannot tell the cases apart. */
int scram_server_init(scram_server_t *s, arena_t *a, const char *verifier, err_t *e);
/* Fixes the server nonce (printable ASCII, no ','), for test vectors. */
int scram_server_set_nonce(scram_server_t *s, const char *nonce, err_t *e);
/* client-first-message in, server-first-message out (NUL-terminated). */
int scram_server_first(scram_server_t *s, const uint8_t *in, size_t len,
                       const char **out, err_t *e);
/* client-final-message in; on a correct proof server-final-message out and
 * state SCRAM_DONE; a wrong proof is 28P01. */
int scram_server_final(scram_server_t *s, const uint8_t *in, size_t len,
                       const char **out, err_t *e);

/* The client side, for tests and internal drivers. */
typedef struct scram_client_s {
  arena_t *sc_arena;
  const char *sc_password;
  const char *sc_nonce;           /* client nonce */
  const char *sc_client_first_bare;
  uint8_t sc_server_signature[SCRAM_KEY_LEN]; /* expected in server-final */
} scram_client_t;

/* nonce NULL: a random one. */
int scram_client_init(scram_client_t *c, arena_t *a, const char *user,
                      const char *password, const char *nonce, err_t *e);
const char *scram_client_first(const scram_client_t *c); /* "n,,n=user,r=nonce" */
int scram_client_final(scram_client_t *c, const char *server_first, const char **out,
                       err_t *e);
int scram_client_check_server_final(const scram_client_t *c, const char *server_final,
                                    err_t *e);

#endif /* CZ_NET_H */
