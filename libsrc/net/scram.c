/* scram — the server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as
 * PostgreSQL speaks it inside AuthenticationSASL messages.
 *
 * Design notes: a two-step state machine,
 *
 *   WAIT_CLIENT_FIRST --client-first ok--> WAIT_CLIENT_FINAL --proof ok--> DONE
 *          |                                      |
 *          +-------- any error ------> FAILED <---+
 *
 * FAILED is final: a client gets one try per exchange. Like PostgreSQL we
 * ignore the user name in client-first (the startup packet's user is the one
 * authenticated), offer no channel binding (so "y" is accepted and "p=" is
 * refused), and refuse authzid and mandatory extensions. Unknown users run a
 * mock exchange that fails exactly like a wrong password. Proofs are compared
 * in constant time.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "net/net_int.h"

#define PROTO SQLSTATE_PROTOCOL_VIOLATION

static int scram_fail(scram_server_t *s, err_t *e, const char *sqlstate, const char *what)
{
  s->ss_state = SCRAM_FAILED;
  return err_set(e, sqlstate, "%s", what);
}

int scram_server_init(scram_server_t *s, arena_t *a, const char *verifier, err_t *e)
{
  memset(s, 0, sizeof *s);
  s->ss_arena = a;
  s->ss_state = SCRAM_FAILED;
  if (verifier) {
    if (scram_parse_verifier(verifier, &s->ss_ver, e) != CZ_OK)
      return CZ_ERR;
  } else {
    /* A made-up secret: the client sees a normal salt and iteration count,
     * and no proof can match because ss_mock rejects it regardless. */
    s->ss_mock = true;
    s->ss_ver.sv_iterations = SCRAM_DEFAULT_ITERATIONS;
    s->ss_ver.sv_salt_len = SCRAM_SALT_LEN;
    if (scram_random(s->ss_ver.sv_salt, SCRAM_SALT_LEN, e) != CZ_OK ||
        scram_random(s->ss_ver.sv_stored_key, SCRAM_KEY_LEN, e) != CZ_OK ||
        scram_random(s->ss_ver.sv_server_key, SCRAM_KEY_LEN, e) != CZ_OK)
      return CZ_ERR;
  }
  s->ss_state = SCRAM_WAIT_CLIENT_FIRST;
  return CZ_OK;
}

int scram_server_set_nonce(scram_server_t *s, const char *nonce, err_t *e)
{
  if (!scram_nonce_valid(nonce, strlen(nonce)))
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "SCRAM nonce must be printable ASCII without ','");
  s->ss_nonce_suffix = arena_strdup(s->ss_arena, nonce);
  return CZ_OK;
}

/* SCRAM messages are text: an arena copy with a NUL, refused when it holds
 * a NUL or invalid UTF-8 (the user name may be UTF-8; all else is ASCII). */
static const char *message_text(scram_server_t *s, const uint8_t *in, size_t len, err_t *e)
{
  if (!in || len == 0 || memchr(in, 0, len) || pgw_utf8_check(in, len) != len) {
    scram_fail(s, e, PROTO, "malformed SCRAM message (empty, or not UTF-8 text)");
    return NULL;
  }
  char *t = arena_alloc(s->ss_arena, len + 1);
  memcpy(t, in, len);
  t[len] = '\0';
  return t;
}

/* Reads "<attr>=<value>" at *p, the value running to the next ',' or the
 * end; leaves *p on that ',' or NUL. */
static bool read_attr(const char **p, char attr, const char **val, size_t *len)
{
  const char *q = *p;
  if (q[0] != attr || q[1] != '=')
    return false;
  *val = q + 2;
  *len = strcspn(*val, ",");
  *p = *val + *len;
  return true;
}

/* saslname: '=' only as "=2C" or "=3D" (RFC 5802 §5.1). */
static bool saslname_valid(const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++)
    if (s[i] == '=' && (i + 2 >= len || !((s[i + 1] == '2' && s[i + 2] == 'C') ||
                                           (s[i + 1] == '3' && s[i + 2] == 'D'))))
      return false;
  return true;
}

/* gs2-header = gs2-cbind-flag "," [authzid] "," — always 3 bytes here,
 * since we accept neither "p=" nor an authzid. */
static int check_gs2_header(scram_server_t *s, const char *t, err_t *e)
{
  if (t[0] == 'p')
    return scram_fail(s, e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                      "SCRAM channel binding is not supported (no -PLUS mechanism offered)");
  if ((t[0] != 'n' && t[0] != 'y') || t[1] != ',')
    return scram_fail(s, e, PROTO, "malformed SCRAM message (bad channel binding flag)");
  if (t[2] == 'a' && t[3] == '=')
    return scram_fail(s, e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                      "SCRAM authorization identity is not supported");
  if (t[2] != ',')
    return scram_fail(s, e, PROTO, "malformed SCRAM message (bad gs2 header)");
  return CZ_OK;
}

int scram_server_first(scram_server_t *s, const uint8_t *in, size_t len, const char **out,
                       err_t *e)
{
  if (s->ss_state != SCRAM_WAIT_CLIENT_FIRST)
    return scram_fail(s, e, PROTO, "SCRAM client-first message out of order");
  const char *t = message_text(s, in, len, e);
  if (!t || check_gs2_header(s, t, e) != CZ_OK)
    return CZ_ERR;
  s->ss_gs2_header = arena_sprintf(s->ss_arena, "%.3s", t);
  s->ss_client_first_bare = t + 3;
  const char *p = s->ss_client_first_bare, *user, *cnonce;
  size_t ulen, nlen;
  if (p[0] == 'm' && p[1] == '=')
    return scram_fail(s, e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                      "SCRAM mandatory extensions are not supported");
  if (!read_attr(&p, 'n', &user, &ulen) || !saslname_valid(user, ulen) || *p++ != ',' ||
      !read_attr(&p, 'r', &cnonce, &nlen) || !scram_nonce_valid(cnonce, nlen))
    return scram_fail(s, e, PROTO, "malformed SCRAM client-first message (user name or nonce)");
  /* Optional extensions after the nonce are allowed and ignored (§5.1). */
  if (*p && p[0] == ',' && !(p[1] >= 'a' && p[1] <= 'z' && p[2] == '='))
    return scram_fail(s, e, PROTO, "malformed SCRAM client-first message (trailing data)");
  if (!s->ss_nonce_suffix && !(s->ss_nonce_suffix = scram_random_nonce(s->ss_arena, e)))
    return scram_fail(s, e, SQLSTATE_INTERNAL, "could not generate a SCRAM nonce");
  s->ss_nonce = arena_sprintf(s->ss_arena, "%.*s%s", (int)nlen, cnonce, s->ss_nonce_suffix);
  s->ss_server_first =
      arena_sprintf(s->ss_arena, "r=%s,s=%s,i=%d", s->ss_nonce,
                    scram_b64_arena(s->ss_arena, s->ss_ver.sv_salt, s->ss_ver.sv_salt_len),
                    s->ss_ver.sv_iterations);
  s->ss_state = SCRAM_WAIT_CLIENT_FINAL;
  *out = s->ss_server_first;
  return CZ_OK;
}

/* Splits client-final into the checked channel binding and nonce, the part
 * without the proof (for AuthMessage) and the decoded proof. */
static int parse_client_final(scram_server_t *s, const char *t, size_t *without_proof,
                              uint8_t proof[SCRAM_KEY_LEN], err_t *e)
{
  const char *p = t, *cb, *nonce, *pv = NULL;
  size_t cblen, nlen, pvlen = 0;
  if (!read_attr(&p, 'c', &cb, &cblen) || *p++ != ',' || !read_attr(&p, 'r', &nonce, &nlen))
    return scram_fail(s, e, PROTO, "malformed SCRAM client-final message");
  const char *expect_cb = scram_b64_arena(s->ss_arena, (const uint8_t *)s->ss_gs2_header,
                                          strlen(s->ss_gs2_header));
  if (cblen != strlen(expect_cb) || memcmp(cb, expect_cb, cblen) != 0)
    return scram_fail(s, e, PROTO, "SCRAM channel binding check failed");
  if (nlen != strlen(s->ss_nonce) || memcmp(nonce, s->ss_nonce, nlen) != 0)
    return scram_fail(s, e, PROTO, "SCRAM nonce does not match");
  while (*p == ',') { /* extensions, then the proof, which must come last */
    const char *comma = p++;
    if (read_attr(&p, 'p', &pv, &pvlen)) {
      *without_proof = (size_t)(comma - t);
      break;
    }
    if (!(p[0] >= 'a' && p[0] <= 'z' && p[1] == '='))
      break;
    p += strcspn(p, ",");
  }
  if (!pv || *p != '\0')
    return scram_fail(s, e, PROTO, "malformed SCRAM client-final message (proof)");
  uint8_t tmp[64];
  if (pvlen > 64 || scram_b64_decode(pv, pvlen, tmp) != SCRAM_KEY_LEN)
    return scram_fail(s, e, PROTO, "malformed SCRAM proof");
  memcpy(proof, tmp, SCRAM_KEY_LEN);
  return CZ_OK;
}

int scram_server_final(scram_server_t *s, const uint8_t *in, size_t len, const char **out,
                       err_t *e)
{
  uint8_t proof[SCRAM_KEY_LEN], sig[SCRAM_KEY_LEN], key[SCRAM_KEY_LEN], stored[SCRAM_KEY_LEN];
  size_t without_proof = 0;
  if (s->ss_state != SCRAM_WAIT_CLIENT_FINAL)
    return scram_fail(s, e, PROTO, "SCRAM client-final message out of order");
  const char *t = message_text(s, in, len, e);
  if (!t || parse_client_final(s, t, &without_proof, proof, e) != CZ_OK)
    return CZ_ERR;
  const char *auth = arena_sprintf(s->ss_arena, "%s,%s,%.*s", s->ss_client_first_bare,
                                   s->ss_server_first, (int)without_proof, t);
  /* ClientKey = ClientProof XOR HMAC(StoredKey, AuthMessage); it is right
   * when its hash is StoredKey. */
  scram_hmac(s->ss_ver.sv_stored_key, auth, strlen(auth), sig);
  for (int i = 0; i < SCRAM_KEY_LEN; i++)
    key[i] = proof[i] ^ sig[i];
  scram_sha256(key, SCRAM_KEY_LEN, stored);
  if (CRYPTO_memcmp(stored, s->ss_ver.sv_stored_key, SCRAM_KEY_LEN) != 0 || s->ss_mock)
    return scram_fail(s, e, SQLSTATE_INVALID_PASSWORD, "password authentication failed");
  scram_hmac(s->ss_ver.sv_server_key, auth, strlen(auth), sig);
  *out = arena_sprintf(s->ss_arena, "v=%s", scram_b64_arena(s->ss_arena, sig, SCRAM_KEY_LEN));
  s->ss_state = SCRAM_DONE;
  return CZ_OK;
}
