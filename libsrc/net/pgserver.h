/* pgserver — the PostgreSQL wire-protocol server: a listener, a bounded set
 * of worker threads serving every client connection, and the protocol state
 * machine (startup, TLS, SCRAM, simple and extended query, COPY, cancel)
 * on top of net.h's codec and engine.h's sessions.
 *
 * Design notes (net/README.md, "The server", has the details):
 * - Leader/follower: ServerThreads session threads wait in epoll_wait on
 *   the authenticated connections, two startup threads on the listener and
 *   the connections still authenticating (so accept, TLS, SCRAM and
 *   CancelRequest work while every session thread runs SQL). Every socket
 *   is non-blocking and armed one-shot, so exactly one thread at a time
 *   handles a connection, and a thread never waits on a client: partial
 *   messages stay buffered in the connection's decoder, output the client
 *   does not read stays in its output buffer and the connection is parked
 *   until the socket is writable again.
 * - One reply per batch of pipelined messages: output is sent when a whole
 *   Query/Sync has been answered, on Flush, when the buffer passes 64 KB, or
 *   when no complete message is left to process.
 * - Startup and authentication must finish within AuthenticationTimeout
 *   (the StartupMessage within StartupTimeout); at most
 *   MaxStartupConnections wait unauthenticated (a new one drops the
 *   oldest). A session slot is taken after authentication: beyond
 *   MaxClientConnections (less SuperuserReservedConnections for
 *   non-superusers) a client gets 53300 and is closed.
 */
#ifndef CZ_PGSERVER_H
#define CZ_PGSERVER_H

#include <stdbool.h>

#include "engine/engine.h"
#include "net/net.h"
#include "util/util.h"


typedef enum pgs_auth_e {
  PGS_AUTH_SCRAM = 0, /* SCRAM-SHA-256 against the catalog's verifiers */
  PGS_AUTH_TRUST      /* no password asked: local tests only */
} pgs_auth_t;

/* RequireSSL: which clients must use TLS (PostgreSQL: hostssl lines). */
typedef enum pgs_require_ssl_e {
  PGS_SSL_OPTIONAL = 0, /* no: TLS when the client asks */
  PGS_SSL_ALL,          /* yes: every client */
  PGS_SSL_REMOTE        /* remote: every client not on a loopback address */
} pgs_require_ssl_t;

/* The server's settings, from [Parameters] of the ini (pgs_config_load) or
 * filled in by a test. */
typedef struct pgs_config_s {
  char pc_listen[256];      /* ListenAddress: a host name or numeric address */
  int pc_port;              /* ServerPort; 0 = any free port (tests) */
  int pc_threads;           /* ServerThreads: threads serving connections */
  int pc_max_conns;         /* MaxClientConnections: authenticated sessions */
  int pc_su_reserved;       /* SuperuserReservedConnections: of those, kept for superusers */
  int pc_max_startup;       /* MaxStartupConnections: not yet authenticated; 0 = pc_max_conns */
  int pc_startup_timeout_s; /* StartupTimeout: connect to StartupMessage (TLS included) */
  pgs_auth_t pc_auth;       /* Authentication */
  int pc_auth_timeout_s;    /* AuthenticationTimeout: startup + auth deadline */
  char pc_ssl_cert[1024];   /* SSLCertificate (PEM chain); "" = no TLS */
  char pc_ssl_key[1024];    /* SSLPrivateKey (PEM) */
  pgs_require_ssl_t pc_require_ssl; /* RequireSSL: refuse plaintext clients */
} pgs_config_t;

/* Defaults, then the [Parameters] keys ServerPort, ListenAddress,
 * ServerThreads, MaxClientConnections, SuperuserReservedConnections,
 * MaxStartupConnections, StartupTimeout, Authentication,
 * AuthenticationTimeout, SSLCertificate, SSLPrivateKey, RequireSSL.
 * F0000 on a bad value (RequireSSL without a certificate included). */
void pgs_config_defaults(pgs_config_t *c);
int pgs_config_load(const ini_t *ini, pgs_config_t *c, err_t *e);
/* The checks between keys that pgs_server_start repeats for configurations
 * filled in by code (RequireSSL needs a certificate). */
int pgs_config_check(const pgs_config_t *c, err_t *e);

typedef struct pgs_server_s pgs_server_t;

/* Binds and listens, then starts the threads. eng must outlive the server.
 * With TLS configured, SIGPIPE is set to ignored when it was at its default
 * (OpenSSL's writes would raise it when a client goes away). */
int pgs_server_start(engine_t *eng, const pgs_config_t *cfg, pgs_server_t **out, err_t *e);
/* The port actually bound (useful with pc_port 0) and "host:port". */
int pgs_server_port(const pgs_server_t *s);
const char *pgs_server_address(const pgs_server_t *s);
/* Connections open now (authenticated or not). */
int pgs_server_n_conns(pgs_server_t *s);
/* Stops accepting, cancels running statements, tells every client
 * (57P01), closes the sessions (rolling back open transactions), joins the
 * threads and frees s. The engine stays open. */
void pgs_server_stop(pgs_server_t *s);

#endif /* CZ_PGSERVER_H */
