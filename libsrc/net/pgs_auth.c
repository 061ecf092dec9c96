/* pgs_auth — authentication (SCRAM-SHA-256, or trust when the ini says
 * so) and the start of the session: AuthenticationOk, the session's
 * ParameterStatus messages, BackendKeyData, ReadyForQuery.
 *
 * Design notes: the verifier comes from the catalog (engine_role_verifier).
 * A name that does not exist, may not log in, or whose stored secret does
 * not parse runs the same exchange with a made-up salt and fails with the
 * same 28P01 as a wrong password, so the answers do not tell which names
 * exist (net invariant 11). Every failure is FATAL: one try per connection.
 */
#include <string.h>

#include "net/pgs_int.h"

static pgs_next_t fatal(pgs_conn_t *c, const err_t *e)
{
  pgs_send_error(c, "FATAL", e);
  return PGS_CLOSE;
}

static pgs_next_t auth_failed(pgs_conn_t *c, err_t *e)
{
  log_info("connection %d: authentication of \"%s\" failed: %s", c->c_pid, c->c_user, e->er_msg);
  if (err_is(e, SQLSTATE_INVALID_PASSWORD))
    err_set(e, SQLSTATE_INVALID_PASSWORD, "password authentication failed for user \"%s\"",
            c->c_user);
  return fatal(c, e);
}

/* Authenticated: open the session and tell the client about it. */
static pgs_next_t auth_finish(pgs_conn_t *c)
{
  err_t e;
  esession_t *s;
  pgw_write_auth_ok(&c->c_out);
  if (esession_open(c->c_srv->sv_eng, c->c_user, c->c_database, &s, &e) != CZ_OK)
    return fatal(c, &e);
  /* The session slot is taken only now: an unauthenticated client holds
   * none, and the superuser's reserve is known only once we know who. */
  if (pgs_conn_take_slot(c, esession_is_superuser(s), &e) != CZ_OK) {
    esession_close(s);
    log_info("connection %d: \"%s\" refused: %s", c->c_pid, c->c_user, e.er_msg);
    return fatal(c, &e);
  }
  esession_set_backend_pid(s, c->c_pid); /* pg_backend_pid() is the client's BackendKeyData pid */
  mutex_lock(&c->c_srv->sv_mu);
  c->c_sess = s;
  mutex_unlock(&c->c_srv->sv_mu);
  for (int i = 0; i < c->c_n_params; i++) {
    if (esession_set_param(s, c->c_param_names[i], c->c_param_values[i], &e) != CZ_OK)
      return fatal(c, &e);
  }
  pgs_send_params(c, false);
  pgw_write_backend_key(&c->c_out, c->c_pid, c->c_key);
  c->c_phase = PGS_PH_READY;
  pgs_send_notices(c);
  pgs_send_ready(c);
  log_debug("connection %d: \"%s\" connected", c->c_pid, c->c_user);
  return PGS_GO_ON;
}

pgs_next_t pgs_auth_begin(pgs_conn_t *c)
{
  err_t e;
  if (c->c_srv->sv_cfg.pc_auth == PGS_AUTH_TRUST)
    return auth_finish(c);
  char *verifier = NULL;
  int rc = engine_role_verifier(c->c_srv->sv_eng, c->c_user, c->c_arena, &verifier, &e);
  if (rc == CZ_ERR)
    return fatal(c, &e);
  if (rc != CZ_OK)
    verifier = NULL;
  if (scram_server_init(&c->c_scram, c->c_arena, verifier, &e) != CZ_OK) {
    log_warn("role \"%s\": stored password verifier unusable (%s); login refused", c->c_user,
             e.er_msg);
    if (scram_server_init(&c->c_scram, c->c_arena, NULL, &e) != CZ_OK)
      return fatal(c, &e);
  }
  static const char *const mechs[] = {SCRAM_MECHANISM, NULL};
  pgw_write_auth_sasl(&c->c_out, mechs);
  c->c_phase = PGS_PH_SASL_FIRST;
  return PGS_GO_ON;
}

pgs_next_t pgs_auth_message(pgs_conn_t *c, const pgw_fe_msg_t *m)
{
  err_t e;
  const char *out;
  if (m->fm_kind != PGW_FE_PASSWORD) {
    err_set(&e, SQLSTATE_PROTOCOL_VIOLATION, "expected SASL response, got message type '%c'",
            m->fm_type);
    return fatal(c, &e);
  }
  if (c->c_phase == PGS_PH_SASL_FIRST) {
    const char *mech;
    const uint8_t *data;
    int32_t len;
    if (pgw_parse_sasl_initial(m, &mech, &data, &len, &e) != CZ_OK)
      return fatal(c, &e);
    if (strcmp(mech, SCRAM_MECHANISM) != 0) {
      err_set(&e, SQLSTATE_PROTOCOL_VIOLATION,
              "client selected an invalid SASL authentication mechanism");
      return fatal(c, &e);
    }
    if (len < 0) {
      err_set(&e, SQLSTATE_PROTOCOL_VIOLATION, "SASLInitialResponse without client-first-message");
      return fatal(c, &e);
    }
    if (scram_server_first(&c->c_scram, data, (size_t)len, &out, &e) != CZ_OK)
      return auth_failed(c, &e);
    pgw_write_auth_sasl_continue(&c->c_out, out, strlen(out));
    c->c_phase = PGS_PH_SASL_FINAL;
    return PGS_GO_ON;
  }
  if (scram_server_final(&c->c_scram, m->fm_u.data.data, m->fm_u.data.len, &out, &e) != CZ_OK)
    return auth_failed(c, &e);
  pgw_write_auth_sasl_final(&c->c_out, out, strlen(out));
  return auth_finish(c);
}
