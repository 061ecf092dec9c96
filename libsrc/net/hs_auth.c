/* hs_auth — HTTP Basic authentication (RFC 7617) against the catalog's
 * users: the password checked against the role's SCRAM-SHA-256 verifier
 * (the one the SQL port's SCRAM exchange uses), so one CREATE ROLE …
 * PASSWORD serves both ports.
 *
 * Design notes: the password is hashed with the verifier's own salt and
 * iteration count and the StoredKey compared in constant time; a role that
 * does not exist, may not log in or has no password is hashed against a
 * made-up verifier all the same and fails the same way, so neither the
 * answer nor its time tells which names exist (as net/scram.c's mock
 * exchange). Basic sends the password in the clear: on a network that is
 * not trusted, put TLS in front (the HTTP port has none of its own yet). */
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>

#include "net/hs_int.h"

/* Whether password is the one verifier s was made from. */
static bool password_matches(const char *s, const char *password)
{
  scram_verifier_t v, w;
  char again[SCRAM_VERIFIER_MAX];
  err_t e;
  if (scram_parse_verifier(s, &v, &e) != CZ_OK ||
      scram_make_verifier_salt(password, v.sv_salt, v.sv_salt_len, v.sv_iterations, again, &e) !=
          CZ_OK ||
      scram_parse_verifier(again, &w, &e) != CZ_OK)
    return false;
  return CRYPTO_memcmp(v.sv_stored_key, w.sv_stored_key, SCRAM_KEY_LEN) == 0;
}

const char *hs_auth_credentials(hs_req_t *r, const char *scheme, bool *other)
{
  *other = false;
  const char *h = MHD_lookup_connection_value(r->rq_conn, MHD_HEADER_KIND,
                                              MHD_HTTP_HEADER_AUTHORIZATION);
  if (!h)
    return NULL;
  while (*h == ' ')
    h++;
  size_t n = strlen(scheme);
  if (strncasecmp(h, scheme, n) != 0 || h[n] != ' ') {
    *other = true;
    return NULL;
  }
  h += n;
  while (*h == ' ')
    h++;
  return h;
}

int hs_auth_basic(hs_req_t *r, const char **user)
{
  bool other;
  const char *h = hs_auth_credentials(r, "Basic", &other);
  if (!h)
    return other ? -1 : 0; /* Bearer …, or Digest when DigestRealm is not set: not taken */
  size_t n = strcspn(h, " \t");
  if (n == 0 || n > 4096)
    return -1;
  uint8_t *dec = arena_alloc(r->rq_arena, n + 1);
  long dl = scram_b64_decode(h, n, dec);
  if (dl <= 0)
    return -1;
  dec[dl] = '\0';
  char *cred = (char *)dec, *colon = memchr(cred, ':', (size_t)dl);
  if (!colon || colon == cred || memchr(cred, '\0', (size_t)dl))
    return -1;
  *colon = '\0';
  const char *password = colon + 1;
  char *verifier = NULL;
  err_t e;
  int rc = engine_role_verifier(r->rq_srv->sv_eng, cred, r->rq_arena, &verifier, &e);
  if (rc != CZ_OK) {
    /* the same work for a name that does not exist (its answer must not
     * come sooner) */
    char fake[SCRAM_VERIFIER_MAX];
    static const uint8_t salt[SCRAM_SALT_LEN] = {0};
    if (scram_make_verifier_salt("-", salt, sizeof salt, SCRAM_DEFAULT_ITERATIONS, fake, &e) ==
        CZ_OK)
      password_matches(fake, password);
    return -1;
  }
  if (!password_matches(verifier, password))
    return -1;
  *user = cred;
  return 1;
}

const char *hs_auth_user(hs_req_t *r, bool update, enum MHD_Result *rc)
{
  hs_server_t *sv = r->rq_srv;
  const char *user = sv->sv_cfg.hc_user;
  int auth = hs_auth_digest(r, &user);
  if (auth == 0)
    auth = hs_auth_basic(r, &user);
  if (auth < 0) {
    *rc = hs_reply_error(r, MHD_HTTP_UNAUTHORIZED,
                         "28P01: the credentials are wrong (HTTP Basic or Digest with a user's "
                         "password)");
    return NULL;
  }
  if (auth == 0 && r->rq_need_auth) {
    *rc = hs_reply_error(r, MHD_HTTP_UNAUTHORIZED,
                         "this path needs a user: authenticate with HTTP Basic or Digest");
    return NULL;
  }
  if (update && sv->sv_cfg.hc_allow_update == HS_UPDATE_NO) {
    *rc = hs_reply_error(r, MHD_HTTP_FORBIDDEN,
                         "updates are not allowed on this endpoint ([SPARQL] AllowUpdate)");
    return NULL;
  }
  if (update && sv->sv_cfg.hc_allow_update == HS_UPDATE_AUTHENTICATED && auth == 0) {
    *rc = hs_reply_error(r, MHD_HTTP_UNAUTHORIZED,
                         "an update needs a user: authenticate with HTTP Basic or Digest");
    return NULL;
  }
  return user;
}
