/* httpserver — the HTTP server: the SPARQL 1.1 Protocol at /sparql and a
 * query page for browsers, over engine.h's sessions, on libmicrohttpd.
 *
 * Design notes (net/README.md, "The HTTP server", has the details):
 * - libmicrohttpd parses HTTP (request line, headers, chunked bodies,
 *   keep-alive) and answers what cannot be parsed (400, 431); this module
 *   routes requests, reads the protocol's parameters, negotiates the
 *   result format and streams results: the first step of a query runs
 *   before the status line is chosen (so compile errors and early run-time
 *   errors get their status), later steps run as the client takes the
 *   chunked body.
 * - One thread per connection (at most MaxClientConnections), each request
 *   a session of the configured User — or of the user its HTTP Basic
 *   credentials name — opened and closed with the request.
 * - A watchdog cancels a query past MaxQueryExecutionTime and closes a
 *   connection whose request is not whole RequestTimeout seconds after it
 *   began (slow clients); stopping the server cancels every running query
 *   first.
 */
#ifndef CZ_HTTPSERVER_H
#define CZ_HTTPSERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "util/util.h"

/* [SPARQL] AllowUpdate: who may run SPARQL Update over HTTP. */
typedef enum hs_update_e {
  HS_UPDATE_NO = 0,          /* nobody: 403 */
  HS_UPDATE_AUTHENTICATED,   /* a user who gave HTTP Basic credentials (401 without) */
  HS_UPDATE_YES              /* anyone, as User without credentials */
} hs_update_t;

/* The settings, from [HTTPServer] and [SPARQL] (hs_config_load) or filled
 * in by a test. */
typedef struct hs_config_s {
  char hc_listen[256];        /* ListenAddress: numeric address; "" = as [Parameters] */
  int hc_port;                /* ServerPort; -1 = no HTTP server */
  char hc_user[128];          /* User: the role every request's session runs as */
  int hc_max_conns;           /* MaxClientConnections: connections (one thread each) */
  int hc_timeout_s;           /* ConnectionTimeout: seconds without a byte either way */
  int hc_request_timeout_s;   /* RequestTimeout: connect (or last answer) to a whole request */
  size_t hc_max_header;       /* MaxHeaderSize: request line and headers */
  size_t hc_max_body;         /* MaxBodySize: a request body (413 past it) */
  int hc_query_timeout_s;     /* [SPARQL] MaxQueryExecutionTime; 0 = none */
  hs_update_t hc_allow_update; /* [SPARQL] AllowUpdate */
  bool hc_store_default;       /* [SPARQL] DefaultGraph = store (else union) */
  int64_t hc_max_rows;         /* [SPARQL] ResultSetMaxRows: rows (triples) of a result; 0 = no cap */
} hs_config_t;

/* Reads the keys (README.md "Configuration"); a bad value is 22023. */
int hs_config_load(const ini_t *ini, hs_config_t *cfg, err_t *e);

typedef struct hs_server_s hs_server_t;

/* Starts listening (cfg->hc_port 0 = any free port). Checks that the
 * User can open a session. */
int hs_server_start(engine_t *eng, const hs_config_t *cfg, hs_server_t **out, err_t *e);
/* "address:port" it listens on. */
const char *hs_server_address(const hs_server_t *srv);
/* Cancels running queries, closes every connection, frees. */
void hs_server_stop(hs_server_t *srv);

#endif /* CZ_HTTPSERVER_H */
