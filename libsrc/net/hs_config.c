/* hs_config — the HTTP server's keys: [HTTPServer] and [SPARQL] of
 * cadenza.ini (README.md "The HTTP server", "Configuration"). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/hs_int.h"

static void hs_config_defaults(hs_config_t *c)
{
  memset(c, 0, sizeof *c);
  c->hc_port = -1; /* no ServerPort: no HTTP server (several servers share test machines) */
  strcpy(c->hc_user, "dba");
  c->hc_max_conns = 100;
  c->hc_timeout_s = 30;
  c->hc_request_timeout_s = 30;
  c->hc_max_header = 64 * 1024;
  c->hc_max_body = 16 * 1024 * 1024;
  /* updates only from users who say who they are (issue 10) */
  c->hc_allow_update = HS_UPDATE_AUTHENTICATED;
}

static int get_int(const ini_t *ini, const char *sec, const char *key, int lo, int hi, int *out,
                   err_t *e)
{
  int64_t v;
  if (ini_get_int(ini, sec, key, *out, &v, e) != CZ_OK)
    return CZ_ERR;
  if (v < lo || v > hi)
    return err_set(e, SQLSTATE_CONFIG, "[%s] %s = %lld: must be %d to %d", sec, key,
                   (long long)v, lo, hi);
  *out = (int)v;
  return CZ_OK;
}

static int get_size(const ini_t *ini, const char *key, size_t lo, size_t hi, size_t *out,
                    err_t *e)
{
  int64_t v;
  if (ini_get_size(ini, "HTTPServer", key, (int64_t)*out, &v, e) != CZ_OK)
    return CZ_ERR;
  if (v < (int64_t)lo || v > (int64_t)hi)
    return err_set(e, SQLSTATE_CONFIG, "[HTTPServer] %s = %lld: must be %zu to %zu", key,
                   (long long)v, lo, hi);
  *out = (size_t)v;
  return CZ_OK;
}

/* ServerPort is a port or address:port (as Virtuoso's). */
static int get_port(const ini_t *ini, hs_config_t *c, err_t *e)
{
  const char *v = ini_get(ini, "HTTPServer", "ServerPort");
  if (!v || !*v)
    return CZ_OK;
  const char *colon = strrchr(v, ':');
  const char *port = colon ? colon + 1 : v;
  if (colon) {
    size_t n = (size_t)(colon - v);
    if (n >= sizeof c->hc_listen)
      return err_set(e, SQLSTATE_CONFIG, "[HTTPServer] ServerPort = %s: address too long", v);
    memcpy(c->hc_listen, v, n);
    c->hc_listen[n] = '\0';
  }
  char *end;
  long p = strtol(port, &end, 10);
  if (!*port || *end || p < 0 || p > 65535)
    return err_set(e, SQLSTATE_CONFIG,
                   "[HTTPServer] ServerPort = %s: must be a port (0 to 65535) or address:port", v);
  c->hc_port = (int)p;
  return CZ_OK;
}

int hs_config_load(const ini_t *ini, hs_config_t *c, err_t *e)
{
  hs_config_defaults(c);
  const char *addr = ini_get(ini, "HTTPServer", "ListenAddress");
  if (!addr)
    addr = ini_get(ini, "Parameters", "ListenAddress");
  if (addr && strlen(addr) < sizeof c->hc_listen)
    strcpy(c->hc_listen, addr);
  const char *user = ini_get(ini, "HTTPServer", "User");
  if (user) {
    if (!*user || strlen(user) >= sizeof c->hc_user)
      return err_set(e, SQLSTATE_CONFIG, "[HTTPServer] User: a role name is needed");
    strcpy(c->hc_user, user);
  }
  if (get_port(ini, c, e) != CZ_OK ||
      get_int(ini, "HTTPServer", "MaxClientConnections", 1, 10000, &c->hc_max_conns, e) != CZ_OK ||
      get_int(ini, "HTTPServer", "ConnectionTimeout", 1, 3600, &c->hc_timeout_s, e) != CZ_OK ||
      get_int(ini, "HTTPServer", "RequestTimeout", 1, 3600, &c->hc_request_timeout_s, e) != CZ_OK ||
      get_size(ini, "MaxHeaderSize", 4096, 16 * 1024 * 1024, &c->hc_max_header, e) != CZ_OK ||
      get_size(ini, "MaxBodySize", 1024, (size_t)1 << 30, &c->hc_max_body, e) != CZ_OK ||
      get_int(ini, "SPARQL", "MaxQueryExecutionTime", 0, 1000000, &c->hc_query_timeout_s, e) !=
          CZ_OK)
    return CZ_ERR;
  int64_t mr;
  if (ini_get_int(ini, "SPARQL", "ResultSetMaxRows", 0, &mr, e) != CZ_OK)
    return CZ_ERR;
  if (mr < 0)
    return err_set(e, SQLSTATE_CONFIG,
                   "[SPARQL] ResultSetMaxRows = %lld: must be 0 (no cap) or more",
                   (long long)mr);
  c->hc_max_rows = mr;
  const char *dg = ini_get(ini, "SPARQL", "DefaultGraph");
  if (dg && strcasecmp(dg, "union") != 0 && strcasecmp(dg, "store") != 0)
    return err_set(e, SQLSTATE_CONFIG, "[SPARQL] DefaultGraph = %s: must be union or store", dg);
  c->hc_store_default = dg && strcasecmp(dg, "store") == 0;
  const char *upd = ini_get(ini, "SPARQL", "AllowUpdate");
  if (upd) {
    if (!strcasecmp(upd, "no") || !strcasecmp(upd, "false") || !strcasecmp(upd, "off") ||
        !strcmp(upd, "0"))
      c->hc_allow_update = HS_UPDATE_NO;
    else if (!strcasecmp(upd, "authenticated"))
      c->hc_allow_update = HS_UPDATE_AUTHENTICATED;
    else if (!strcasecmp(upd, "yes") || !strcasecmp(upd, "true") || !strcasecmp(upd, "on") ||
             !strcmp(upd, "1"))
      c->hc_allow_update = HS_UPDATE_YES;
    else
      return err_set(e, SQLSTATE_CONFIG,
                     "[SPARQL] AllowUpdate = %s: must be no, authenticated or yes", upd);
  }
  return CZ_OK;
}
