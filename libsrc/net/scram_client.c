/* scram_client — the client side of SCRAM-SHA-256, for tests and for the
 * server's own internal clients (cluster peers, benchmark drivers).
 *
 * Design notes: it sends "n,," (no channel binding), checks that the server
 * nonce extends ours, and keeps the expected ServerSignature so that the
 * server is authenticated too: a server-final that does not match is an
 * error, exactly as libpq treats it.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "net/net_int.h"

#define PROTO SQLSTATE_PROTOCOL_VIOLATION

/* saslname escaping: ',' as "=2C", '=' as "=3D". */
static char *escape_user(arena_t *a, const char *user)
{
  char *out = arena_alloc(a, strlen(user) * 3 + 1), *o = out;
  for (const char *p = user; *p; p++) {
    if (*p == ',' || *p == '=') {
      memcpy(o, *p == ',' ? "=2C" : "=3D", 3);
      o += 3;
    } else
      *o++ = *p;
  }
  *o = '\0';
  return out;
}

int scram_client_init(scram_client_t *c, arena_t *a, const char *user, const char *password,
                      const char *nonce, err_t *e)
{
  memset(c, 0, sizeof *c);
  c->sc_arena = a;
  c->sc_password = arena_strdup(a, password);
  if (!nonce && !(nonce = scram_random_nonce(a, e)))
    return CZ_ERR;
  if (!scram_nonce_valid(nonce, strlen(nonce)))
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "SCRAM nonce must be printable ASCII without ','");
  c->sc_nonce = arena_strdup(a, nonce);
  c->sc_client_first_bare = arena_sprintf(a, "n=%s,r=%s", escape_user(a, user), nonce);
  return CZ_OK;
}

const char *scram_client_first(const scram_client_t *c)
{
  return arena_sprintf(c->sc_arena, "n,,%s", c->sc_client_first_bare);
}

/* server-first = "r=" nonce ",s=" salt ",i=" iterations [extensions]. */
static int parse_server_first(scram_client_t *c, const char *sf, const char **nonce,
                              uint8_t *salt, size_t *salt_len, int *iter, err_t *e)
{
  size_t cn = strlen(c->sc_nonce);
  if (strncmp(sf, "r=", 2) != 0)
    return err_set(e, PROTO, "malformed SCRAM server-first message");
  const char *r = sf + 2, *s = strstr(r, ",s="), *i = s ? strstr(s + 3, ",i=") : NULL;
  if (!i || (size_t)(s - r) <= cn || strncmp(r, c->sc_nonce, cn) != 0)
    return err_set(e, PROTO, "SCRAM server-first message: missing field or foreign nonce");
  *nonce = arena_sprintf(c->sc_arena, "%.*s", (int)(s - r), r);
  size_t slen = (size_t)(i - s - 3);
  uint8_t tmp[SCRAM_MAX_SALT_LEN * 2];
  long n = slen <= sizeof tmp ? scram_b64_decode(s + 3, slen, tmp) : -1;
  if (n <= 0 || n > SCRAM_MAX_SALT_LEN)
    return err_set(e, PROTO, "SCRAM server-first message: bad salt");
  memcpy(salt, tmp, (size_t)n);
  *salt_len = (size_t)n;
  char *end;
  long it = strtol(i + 3, &end, 10);
  if (i[3] < '0' || i[3] > '9' || it < 1 || it > INT_MAX || (*end && *end != ','))
    return err_set(e, PROTO, "SCRAM server-first message: bad iteration count");
  *iter = (int)it;
  return CZ_OK;
}

int scram_client_final(scram_client_t *c, const char *server_first, const char **out, err_t *e)
{
  const char *nonce = NULL;
  uint8_t salt[SCRAM_MAX_SALT_LEN], salted[SCRAM_KEY_LEN], client_key[SCRAM_KEY_LEN],
      stored[SCRAM_KEY_LEN], sig[SCRAM_KEY_LEN], server_key[SCRAM_KEY_LEN];
  size_t salt_len = 0;
  int iter = 0;
  if (parse_server_first(c, server_first, &nonce, salt, &salt_len, &iter, e) != CZ_OK ||
      scram_salted_password(c->sc_password, salt, salt_len, iter, salted, e) != CZ_OK)
    return CZ_ERR;
  const char *without_proof = arena_sprintf(c->sc_arena, "c=biws,r=%s", nonce);
  const char *auth = arena_sprintf(c->sc_arena, "%s,%s,%s", c->sc_client_first_bare,
                                   server_first, without_proof);
  scram_hmac(salted, "Client Key", 10, client_key);
  scram_sha256(client_key, SCRAM_KEY_LEN, stored);
  scram_hmac(stored, auth, strlen(auth), sig);
  for (int k = 0; k < SCRAM_KEY_LEN; k++)
    client_key[k] ^= sig[k]; /* now the ClientProof */
  scram_hmac(salted, "Server Key", 10, server_key);
  scram_hmac(server_key, auth, strlen(auth), c->sc_server_signature);
  *out = arena_sprintf(c->sc_arena, "%s,p=%s", without_proof,
                       scram_b64_arena(c->sc_arena, client_key, SCRAM_KEY_LEN));
  return CZ_OK;
}

int scram_client_check_server_final(const scram_client_t *c, const char *sf, err_t *e)
{
  uint8_t sig[64];
  if (strncmp(sf, "e=", 2) == 0)
    return err_set(e, SQLSTATE_INVALID_PASSWORD, "SCRAM server error: %.200s", sf + 2);
  size_t len = strlen(sf + 2);
  if (strncmp(sf, "v=", 2) != 0 || len > 64 || scram_b64_decode(sf + 2, len, sig) != SCRAM_KEY_LEN)
    return err_set(e, PROTO, "malformed SCRAM server-final message");
  if (CRYPTO_memcmp(sig, c->sc_server_signature, SCRAM_KEY_LEN) != 0)
    return err_set(e, SQLSTATE_INVALID_PASSWORD, "SCRAM server signature does not match");
  return CZ_OK;
}
