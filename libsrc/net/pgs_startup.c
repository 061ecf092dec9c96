/* pgs_startup — the startup phase: SSLRequest, GSSENCRequest,
 * CancelRequest and the StartupMessage with its parameters.
 *
 * Design notes: the parameters are copied into the connection's arena and
 * applied to the session once authentication has opened it (PostgreSQL
 * applies them as the backend starts, too). "options" holds command-line
 * style settings ("-c name=value", "--name=value"), split here into more
 * parameters. A protocol minor version above 0, or protocol options
 * ("_pq_.*"), get NegotiateProtocolVersion: we speak 3.0 and know no
 * protocol option.
 */
#include <string.h>

#include "net/pgs_int.h"

static pgs_next_t fatal(pgs_conn_t *c, const err_t *e)
{
  pgs_send_error(c, "FATAL", e);
  return PGS_CLOSE;
}

typedef struct plist_s {
  int pl_n, pl_cap;
  const char **pl_names, **pl_values;
} plist_t;

static void plist_add(pgs_conn_t *c, plist_t *l, const char *name, const char *value)
{
  if (l->pl_n == l->pl_cap) {
    int cap = l->pl_cap ? 2 * l->pl_cap : 8;
    const char **nn = arena_alloc(c->c_arena, (size_t)cap * sizeof *nn);
    const char **nv = arena_alloc(c->c_arena, (size_t)cap * sizeof *nv);
    if (l->pl_n) {
      memcpy(nn, l->pl_names, (size_t)l->pl_n * sizeof *nn);
      memcpy(nv, l->pl_values, (size_t)l->pl_n * sizeof *nv);
    }
    l->pl_names = nn;
    l->pl_values = nv;
    l->pl_cap = cap;
  }
  l->pl_names[l->pl_n] = arena_strdup(c->c_arena, name);
  l->pl_values[l->pl_n] = arena_strdup(c->c_arena, value);
  l->pl_n++;
}

/* Splits the "options" parameter as PostgreSQL's pg_split_opts does
 * (blanks separate words, a backslash takes the next character literally)
 * and turns "-c name=value" and "--name=value" into parameters. */
static int split_options(pgs_conn_t *c, plist_t *l, const char *opts, err_t *e)
{
  size_t len = strlen(opts);
  char *word = arena_alloc(c->c_arena, len + 1);
  bool want_c_arg = false;
  const char *p = opts;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
      p++;
    if (!*p)
      break;
    size_t n = 0;
    while (*p && !(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
      if (*p == '\\' && p[1])
        p++;
      word[n++] = *p++;
    }
    word[n] = 0;
    const char *setting = NULL;
    if (want_c_arg) {
      setting = word;
      want_c_arg = false;
    } else if (strcmp(word, "-c") == 0) {
      want_c_arg = true;
      continue;
    } else if (strncmp(word, "-c", 2) == 0) {
      setting = word + 2;
    } else if (strncmp(word, "--", 2) == 0) {
      setting = word + 2;
      for (char *q = word + 2; *q && *q != '='; q++)
        if (*q == '-')
          *q = '_';
    } else {
      return err_set(e, SQLSTATE_INVALID_PARAMETER,
                     "invalid command-line argument for server process: %s", word);
    }
    const char *eq = strchr(setting, '=');
    if (!eq || eq == setting)
      return err_set(e, SQLSTATE_INVALID_PARAMETER, "invalid option in \"options\": %s", setting);
    char *name = arena_alloc(c->c_arena, (size_t)(eq - setting) + 1);
    memcpy(name, setting, (size_t)(eq - setting));
    name[eq - setting] = 0;
    plist_add(c, l, name, eq + 1);
  }
  if (want_c_arg)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "\"-c\" without a setting in \"options\"");
  return CZ_OK;
}

static pgs_next_t startup(pgs_conn_t *c, const pgw_startup_t *su)
{
  err_t e;
  plist_t l = {0};
  const char *unknown[64];
  int n_unknown = 0;
  for (int i = 0; i < su->su_n_params; i++) {
    const char *name = su->su_names[i], *value = su->su_values[i];
    if (strcmp(name, "user") == 0) {
      c->c_user = arena_strdup(c->c_arena, value);
    } else if (strcmp(name, "database") == 0) {
      c->c_database = arena_strdup(c->c_arena, value);
    } else if (strcmp(name, "options") == 0) {
      if (split_options(c, &l, value, &e) != CZ_OK)
        return fatal(c, &e);
    } else if (strncmp(name, "_pq_.", 5) == 0) {
      if (n_unknown < (int)CZ_ARRAY_LEN(unknown))
        unknown[n_unknown++] = name;
    } else if (strcmp(name, "replication") == 0) {
      if (strcmp(value, "false") != 0 && strcmp(value, "0") != 0 && strcmp(value, "off") != 0 &&
          strcmp(value, "no") != 0) {
        err_set(&e, SQLSTATE_FEATURE_NOT_SUPPORTED, "replication connections are not supported");
        return fatal(c, &e);
      }
    } else {
      plist_add(c, &l, name, value);
    }
  }
  if ((su->su_version & 0xffffu) > 0 || n_unknown > 0)
    pgw_write_negotiate_version(&c->c_out, 0, unknown, n_unknown);
  if (!c->c_user || !c->c_user[0]) {
    err_set(&e, SQLSTATE_INVALID_AUTHORIZATION,
            "no PostgreSQL user name specified in startup packet");
    return fatal(c, &e);
  }
  if (!c->c_database || !c->c_database[0])
    c->c_database = c->c_user; /* PostgreSQL's default */
  pgs_require_ssl_t req = c->c_srv->sv_cfg.pc_require_ssl;
  if (!c->c_ssl && (req == PGS_SSL_ALL || (req == PGS_SSL_REMOTE && !c->c_peer_local))) {
    /* PostgreSQL's words when no hostssl line admits a plaintext client */
    err_set(&e, SQLSTATE_INVALID_AUTHORIZATION,
            "no pg_hba.conf entry for host \"%s\", user \"%s\", database \"%s\", "
            "no encryption (the server requires SSL: RequireSSL = %s)",
            c->c_peer, c->c_user, c->c_database, req == PGS_SSL_ALL ? "yes" : "remote");
    log_info("connection %d: %s", c->c_pid, e.er_msg);
    return fatal(c, &e);
  }
  pgs_conn_startup_done(c);
  c->c_n_params = l.pl_n;
  c->c_param_names = l.pl_names;
  c->c_param_values = l.pl_values;
  return pgs_auth_begin(c);
}

pgs_next_t pgs_startup_message(pgs_conn_t *c, const pgw_fe_msg_t *m)
{
  err_t e;
  switch (m->fm_kind) {
  case PGW_FE_SSL_REQUEST:
    if (c->c_ssl) {
      err_set(&e, SQLSTATE_PROTOCOL_VIOLATION, "SSLRequest on an encrypted connection");
      return fatal(c, &e);
    }
    if (!c->c_srv->sv_tls) {
      pgw_write_ssl_answer(&c->c_out, 'N');
      return PGS_GO_ON;
    }
    /* 'S' must reach the client before the first handshake byte is read;
     * a fresh socket always takes one byte. */
    pgw_write_ssl_answer(&c->c_out, 'S');
    if (pgs_io_flush(c) != PGS_IO_OK || pgs_tls_begin(c, &e) != CZ_OK)
      return PGS_CLOSE;
    c->c_phase = PGS_PH_TLS;
    return PGS_GO_ON;
  case PGW_FE_GSSENC_REQUEST:
    pgw_write_ssl_answer(&c->c_out, 'N');
    return PGS_GO_ON;
  case PGW_FE_CANCEL:
    /* No reply: the requester closes, and a wrong key must not be told. */
    pgs_cancel_request(c->c_srv, m->fm_u.cancel.pid, m->fm_u.cancel.key);
    return PGS_CLOSE;
  case PGW_FE_STARTUP:
    return startup(c, &m->fm_u.startup);
  default:
    err_set(&e, SQLSTATE_PROTOCOL_VIOLATION, "unexpected message in the startup phase");
    return fatal(c, &e);
  }
}
