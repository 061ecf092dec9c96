/* scram_verifier — the stored SCRAM-SHA-256 secret: building it from a
 * password and reading it back, in PostgreSQL's text form
 *   SCRAM-SHA-256$<iterations>:<salt b64>$<StoredKey b64>:<ServerKey b64>
 * so that secrets can move between PostgreSQL's pg_authid and ours.
 *
 * Design notes: the password is used as its bytes. PostgreSQL first applies
 * SASLprep (RFC 4013) and falls back to the raw bytes when that fails; both
 * agree for ASCII passwords and for any password already in NFKC form.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define PREFIX SCRAM_MECHANISM "$"

int scram_make_verifier_salt(const char *password, const uint8_t *salt, size_t salt_len,
                             int iterations, char *out, err_t *e)
{
  uint8_t salted[SCRAM_KEY_LEN], client_key[SCRAM_KEY_LEN], stored[SCRAM_KEY_LEN],
      server[SCRAM_KEY_LEN];
  char salt64[(SCRAM_MAX_SALT_LEN + 2) / 3 * 4 + 1], stored64[45], server64[45];
  if (salt_len == 0 || salt_len > SCRAM_MAX_SALT_LEN)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "SCRAM salt of %zu bytes", salt_len);
  if (scram_salted_password(password, salt, salt_len, iterations, salted, e) != CZ_OK)
    return CZ_ERR;
  scram_hmac(salted, "Client Key", 10, client_key);
  scram_sha256(client_key, SCRAM_KEY_LEN, stored);
  scram_hmac(salted, "Server Key", 10, server);
  scram_b64_encode(salt, salt_len, salt64);
  scram_b64_encode(stored, SCRAM_KEY_LEN, stored64);
  scram_b64_encode(server, SCRAM_KEY_LEN, server64);
  snprintf(out, SCRAM_VERIFIER_MAX, PREFIX "%d:%s$%s:%s", iterations, salt64, stored64, server64);
  return CZ_OK;
}

int scram_make_verifier(const char *password, int iterations, char *out, err_t *e)
{
  uint8_t salt[SCRAM_SALT_LEN];
  if (scram_random(salt, sizeof salt, e) != CZ_OK)
    return CZ_ERR;
  return scram_make_verifier_salt(password, salt, sizeof salt, iterations, out, e);
}

/* Decodes the base64 text s[0..len) into 1 to max bytes: their count, or
 * -1. */
static long decode_field(const char *s, size_t len, uint8_t *out, size_t max)
{
  uint8_t tmp[SCRAM_MAX_SALT_LEN * 2];
  if (len == 0 || len > sizeof tmp)
    return -1;
  long n = scram_b64_decode(s, len, tmp);
  if (n <= 0 || (size_t)n > max)
    return -1;
  memcpy(out, tmp, (size_t)n);
  return n;
}

int scram_parse_verifier(const char *s, scram_verifier_t *v, err_t *e)
{
  const char *bad = "malformed SCRAM secret";
  if (strncmp(s, PREFIX, strlen(PREFIX)) != 0)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "%s: not " SCRAM_MECHANISM, bad);
  const char *p = s + strlen(PREFIX);
  const char *colon1 = strchr(p, ':');
  const char *dollar = colon1 ? strchr(colon1, '$') : NULL;
  const char *colon2 = dollar ? strchr(dollar, ':') : NULL;
  if (!colon2)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "%s: missing a field", bad);
  char *end;
  long iter = strtol(p, &end, 10);
  if (p[0] < '0' || p[0] > '9' || end != colon1 || iter < 1 || iter > INT_MAX)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "%s: bad iteration count", bad);
  v->sv_iterations = (int)iter;
  long n = decode_field(colon1 + 1, (size_t)(dollar - colon1 - 1), v->sv_salt, SCRAM_MAX_SALT_LEN);
  if (n < 0)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "%s: bad salt", bad);
  v->sv_salt_len = (size_t)n;
  if (decode_field(dollar + 1, (size_t)(colon2 - dollar - 1), v->sv_stored_key, SCRAM_KEY_LEN) !=
          SCRAM_KEY_LEN ||
      decode_field(colon2 + 1, strlen(colon2 + 1), v->sv_server_key, SCRAM_KEY_LEN) != SCRAM_KEY_LEN)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "%s: bad key", bad);
  return CZ_OK;
}
