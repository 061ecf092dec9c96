/* pgs_config — the server's keys in [Parameters] of cadenza.ini. */
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "net/pgs_int.h"

void pgs_config_defaults(pgs_config_t *c)
{
  memset(c, 0, sizeof *c);
  /* PostgreSQL also listens on the loopback interface only until told
   * otherwise: a fresh server is not reachable from the network. */
  strcpy(c->pc_listen, "127.0.0.1");
  c->pc_port = 5480;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  c->pc_threads = (int)CZ_MAX(4, CZ_MIN(2 * (ncpu > 0 ? ncpu : 1), 64));
  c->pc_max_conns = 100; /* PostgreSQL's max_connections */
  c->pc_auth = PGS_AUTH_SCRAM;
  c->pc_auth_timeout_s = 60; /* PostgreSQL's authentication_timeout */
  c->pc_su_reserved = 3;     /* PostgreSQL's superuser_reserved_connections */
  c->pc_max_startup = 0;     /* as many as MaxClientConnections */
  /* A client sends its StartupMessage right after connecting (and its TLS
   * handshake): one that does not is idle or hostile, and holds a place
   * other clients need. */
  c->pc_startup_timeout_s = 10;
}

static int get_str(const ini_t *ini, const char *key, char *out, size_t cap, err_t *e)
{
  const char *v = ini_get(ini, "Parameters", key);
  if (!v)
    return CZ_OK;
  if (strlen(v) >= cap)
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] %s: value too long", key);
  strcpy(out, v);
  return CZ_OK;
}

static int get_int(const ini_t *ini, const char *key, int lo, int hi, int *out, err_t *e)
{
  int64_t v;
  if (ini_get_int(ini, "Parameters", key, *out, &v, e) != CZ_OK)
    return CZ_ERR;
  if (v < lo || v > hi)
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] %s = %lld: must be %d to %d", key,
                   (long long)v, lo, hi);
  *out = (int)v;
  return CZ_OK;
}

int pgs_config_load(const ini_t *ini, pgs_config_t *c, err_t *e)
{
  pgs_config_defaults(c);
  if (get_str(ini, "ListenAddress", c->pc_listen, sizeof c->pc_listen, e) != CZ_OK ||
      get_int(ini, "ServerPort", 0, 65535, &c->pc_port, e) != CZ_OK ||
      get_int(ini, "ServerThreads", 1, 1024, &c->pc_threads, e) != CZ_OK ||
      get_int(ini, "MaxClientConnections", 1, 100000, &c->pc_max_conns, e) != CZ_OK ||
      get_int(ini, "AuthenticationTimeout", 1, 600, &c->pc_auth_timeout_s, e) != CZ_OK ||
      get_int(ini, "SuperuserReservedConnections", 0, 100000, &c->pc_su_reserved, e) != CZ_OK ||
      get_int(ini, "MaxStartupConnections", 0, 100000, &c->pc_max_startup, e) != CZ_OK ||
      get_int(ini, "StartupTimeout", 1, 600, &c->pc_startup_timeout_s, e) != CZ_OK ||
      get_str(ini, "SSLCertificate", c->pc_ssl_cert, sizeof c->pc_ssl_cert, e) != CZ_OK ||
      get_str(ini, "SSLPrivateKey", c->pc_ssl_key, sizeof c->pc_ssl_key, e) != CZ_OK)
    return CZ_ERR;
  const char *auth = ini_get(ini, "Parameters", "Authentication");
  if (auth) {
    if (strcasecmp(auth, "scram-sha-256") == 0)
      c->pc_auth = PGS_AUTH_SCRAM;
    else if (strcasecmp(auth, "trust") == 0)
      c->pc_auth = PGS_AUTH_TRUST;
    else
      return err_set(e, SQLSTATE_CONFIG,
                     "[Parameters] Authentication = %s: must be scram-sha-256 or trust", auth);
  }
  /* The default reserve shrinks for a tiny MaxClientConnections; one
   * given explicitly must leave a slot for others, as PostgreSQL's. */
  if (!ini_get(ini, "Parameters", "SuperuserReservedConnections"))
    c->pc_su_reserved = CZ_MIN(c->pc_su_reserved, c->pc_max_conns - 1);
  if (c->pc_su_reserved >= c->pc_max_conns)
    return err_set(e, SQLSTATE_CONFIG,
                   "[Parameters] SuperuserReservedConnections = %d must be less than "
                   "MaxClientConnections = %d", c->pc_su_reserved, c->pc_max_conns);
  const char *req = ini_get(ini, "Parameters", "RequireSSL");
  if (req) {
    if (strcasecmp(req, "no") == 0 || strcasecmp(req, "off") == 0 || strcmp(req, "0") == 0)
      c->pc_require_ssl = PGS_SSL_OPTIONAL;
    else if (strcasecmp(req, "yes") == 0 || strcasecmp(req, "on") == 0 ||
             strcasecmp(req, "all") == 0 || strcmp(req, "1") == 0)
      c->pc_require_ssl = PGS_SSL_ALL;
    else if (strcasecmp(req, "remote") == 0)
      c->pc_require_ssl = PGS_SSL_REMOTE;
    else
      return err_set(e, SQLSTATE_CONFIG,
                     "[Parameters] RequireSSL = %s: must be no, yes or remote", req);
  }
  if ((c->pc_ssl_cert[0] != 0) != (c->pc_ssl_key[0] != 0))
    return err_set(e, SQLSTATE_CONFIG,
                   "[Parameters] SSLCertificate and SSLPrivateKey go together: "
                   "give both or neither");
  return pgs_config_check(c, e);
}

int pgs_config_check(const pgs_config_t *c, err_t *e)
{
  if (c->pc_require_ssl != PGS_SSL_OPTIONAL && !c->pc_ssl_cert[0])
    return err_set(e, SQLSTATE_CONFIG,
                   "[Parameters] RequireSSL = %s but no SSLCertificate and SSLPrivateKey are "
                   "configured: clients could not connect at all",
                   c->pc_require_ssl == PGS_SSL_ALL ? "yes" : "remote");
  return CZ_OK;
}
