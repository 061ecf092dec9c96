/* pgs_client — a blocking PostgreSQL protocol client for the server tests,
 * built on net's frontend encoders and SCRAM client, and a transcript of
 * what the server answers: one short token per backend message, so that a
 * test states a whole exchange as one string, e.g.
 *
 *   "T(?column?:23) D(1) C(SELECT 1) Z(I)"
 *
 * Tokens: T(name:oid,…) RowDescription, D(v|v|NULL) DataRow (bytes that
 * are not printable ASCII as xHEX), C(tag), E(sqlstate) or E(sqlstate@pos)
 * ErrorResponse, N(sqlstate) NoticeResponse, S(name=value)
 * ParameterStatus, Z(status) ReadyForQuery, I EmptyQueryResponse,
 * 1 ParseComplete, 2 BindComplete, 3 CloseComplete, n NoData,
 * t(oid,…) ParameterDescription, s PortalSuspended, G(ncols) CopyIn,
 * H(ncols) CopyOut, d(data) CopyData, c CopyDone, K BackendKeyData,
 * R(code) Authentication, EOF when the server closed the connection.
 */
#ifndef CZ_PGS_CLIENT_H
#define CZ_PGS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/net.h"

typedef struct tc_s {
  int tc_fd;
  pgw_buf_t tc_out;        /* messages to send */
  uint8_t *tc_in;          /* received, not yet taken */
  size_t tc_in_len, tc_in_cap;
  size_t tc_taken;         /* bytes of the message tc_read handed out last */
  int32_t tc_pid, tc_key;  /* BackendKeyData */
  char tc_last_msg[512];   /* M of the last ErrorResponse */
  void *tc_ssl;            /* SSL *: TLS after tc_start_tls */
  void *tc_ssl_ctx;
} tc_t;

/* Connects to 127.0.0.1:port (reads time out after 30 s). */
void tc_connect(tc_t *c, int port);
void tc_close(tc_t *c);
/* Sends everything written to tc_out. */
void tc_flush(tc_t *c);
/* Sends raw bytes. */
void tc_send_raw(tc_t *c, const void *data, size_t len);

/* Next backend message: its type (0 at EOF or timeout), body in *body
 * (valid until the next call) and *len. */
char tc_read(tc_t *c, const uint8_t **body, uint32_t *len);

/* Reads messages until one whose type is in `until` (included; "" = only
 * EOF) or EOF; returns their transcript (static buffer, overwritten by the
 * next call). */
const char *tc_until(tc_t *c, const char *until);

/* Startup (user, database "db", extra name/value pairs) and SCRAM with
 * password (NULL: expect no password request, trust). Returns the
 * transcript up to ReadyForQuery or the error, e.g. "Z(I)" or
 * "E(28P01) EOF": authentication messages and ParameterStatus are left
 * out, so that success reads the same whatever parameters the engine
 * reports. */
const char *tc_login(tc_t *c, int port, const char *user, const char *password);

/* On a connected client: SSLRequest; when the server answers 'S', the TLS
 * handshake (no certificate check: tests). Returns the answer byte. */
char tc_start_tls(tc_t *c);
/* tc_login's startup and authentication on an already connected (maybe
 * TLS) client. */
const char *tc_auth(tc_t *c, const char *user, const char *password);

/* Sends a Query and returns the transcript up to ReadyForQuery. */
const char *tc_query(tc_t *c, const char *sql);

#endif /* CZ_PGS_CLIENT_H */
