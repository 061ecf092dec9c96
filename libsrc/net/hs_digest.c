/* hs_digest — HTTP Digest authentication (RFC 7616, algorithm MD5, qop
 * auth) against the catalog's users, beside Basic (hs_auth.c).
 *
 * Design notes: Digest never sends the password, so the server must hold
 * something it can check a response against: HA1 = MD5(user:realm:
 * password). A SCRAM verifier (what the catalog keeps for the SQL port)
 * cannot give it, and PostgreSQL's md5 password (MD5 of password+user) is
 * not it either. So the engine makes HA1 when a password is set while
 * [HTTPServer] DigestRealm is configured (CREATE/ALTER ROLE … PASSWORD,
 * en_ddl.c) and keeps it with the role; a role whose password was set
 * before, or under another realm, cannot use Digest until its password is
 * set again (it can still use Basic). libmicrohttpd does the protocol:
 * the challenge with a fresh nonce (made from the server's random seed,
 * MHD_OPTION_DIGEST_AUTH_RANDOM), the parsing of the Authorization
 * header, the nonce-count replay check and the response hash compared
 * with the HA1 given (MHD_digest_auth_check_digest2). A user that does not
 * exist, may not log in or has no HA1 is checked against a made-up HA1,
 * so that the answer is the same 401. MD5 Digest is weak against an
 * eavesdropper with a dictionary; as with Basic, put TLS in front on an
 * untrusted network. */
#include <string.h>

#include "net/hs_int.h"

#define HS_NONCE_TIMEOUT_S 300

int hs_auth_digest(hs_req_t *r, const char **user)
{
  const char *realm = engine_digest_realm(r->rq_srv->sv_eng);
  bool other;
  if (!hs_auth_credentials(r, "Digest", &other))
    return 0; /* none, or another scheme (Basic's own check) */
  if (!realm)
    return -1; /* Digest is not configured: not taken */
  char *name = MHD_digest_auth_get_username(r->rq_conn);
  if (!name)
    return -1;
  uint8_t ha1[16];
  bool known = strlen(name) < 1024 && engine_role_digest(r->rq_srv->sv_eng, name, ha1) == CZ_OK;
  if (!known)
    memset(ha1, 0x5a, sizeof ha1); /* the same work, and no match */
  int rc = MHD_digest_auth_check_digest2(r->rq_conn, realm, name, ha1, sizeof ha1,
                                         HS_NONCE_TIMEOUT_S, MHD_DIGEST_ALG_MD5);
  if (rc == MHD_YES && known) {
    *user = arena_strdup(r->rq_arena, name);
    MHD_free(name);
    return 1;
  }
  MHD_free(name);
  if (rc == MHD_INVALID_NONCE)
    r->rq_digest_stale = true;
  return -1;
}

enum MHD_Result hs_digest_queue_401(hs_req_t *r, struct MHD_Response *resp)
{
  const char *realm = engine_digest_realm(r->rq_srv->sv_eng);
  /* the opaque value is echoed by clients and means nothing here */
  return MHD_queue_auth_fail_response2(r->rq_conn, realm, "cadenza", resp,
                                       r->rq_digest_stale ? MHD_YES : MHD_NO, MHD_DIGEST_ALG_MD5);
}
