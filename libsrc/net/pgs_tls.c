/* pgs_tls — TLS through OpenSSL for clients that send SSLRequest, when
 * [Parameters] SSLCertificate and SSLPrivateKey are configured.
 *
 * Design notes: the handshake runs on the non-blocking socket one step per
 * event (SSL_do_handshake answers WANT_READ/WANT_WRITE). TLS 1.2 is the
 * floor, as in PostgreSQL 14+. Partial writes and a moving write buffer are
 * allowed because the output buffer grows and slides between retries.
 */
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "net/pgs_int.h"

static int tls_err(err_t *e, const char *what)
{
  char buf[256];
  unsigned long code = ERR_get_error();
  ERR_error_string_n(code, buf, sizeof buf);
  ERR_clear_error();
  return err_set(e, SQLSTATE_CONFIG, "%s: %s", what, code ? buf : "unknown TLS error");
}

int pgs_tls_ctx_create(const pgs_config_t *cfg, SSL_CTX **out, err_t *e)
{
  SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx)
    return tls_err(e, "SSL_CTX_new");
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (SSL_CTX_use_certificate_chain_file(ctx, cfg->pc_ssl_cert) != 1) {
    tls_err(e, "SSLCertificate");
    err_prefix(e, "%s", cfg->pc_ssl_cert);
    SSL_CTX_free(ctx);
    return CZ_ERR;
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, cfg->pc_ssl_key, SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1) {
    tls_err(e, "SSLPrivateKey");
    err_prefix(e, "%s", cfg->pc_ssl_key);
    SSL_CTX_free(ctx);
    return CZ_ERR;
  }
  /* The key is a secret and the certificate the server's identity: no SQL
   * function may read or replace them (util/fileguard.c). */
  fg_protect_path(cfg->pc_ssl_cert, "the server's TLS certificate");
  fg_protect_path(cfg->pc_ssl_key, "the server's TLS private key");
  *out = ctx;
  return CZ_OK;
}

void pgs_tls_ctx_free(SSL_CTX *ctx)
{
  if (ctx)
    SSL_CTX_free(ctx);
}

int pgs_tls_begin(pgs_conn_t *c, err_t *e)
{
  c->c_ssl = SSL_new(c->c_srv->sv_tls);
  if (!c->c_ssl)
    return tls_err(e, "SSL_new");
  if (SSL_set_fd(c->c_ssl, c->c_fd) != 1)
    return tls_err(e, "SSL_set_fd");
  SSL_set_accept_state(c->c_ssl);
  return CZ_OK;
}

pgs_io_t pgs_tls_handshake(pgs_conn_t *c)
{
  ERR_clear_error();
  int rc = SSL_do_handshake(c->c_ssl);
  if (rc == 1)
    return PGS_IO_OK;
  switch (SSL_get_error(c->c_ssl, rc)) {
  case SSL_ERROR_WANT_READ:
    c->c_io_want_write = false;
    return PGS_IO_AGAIN;
  case SSL_ERROR_WANT_WRITE:
    c->c_io_want_write = true;
    return PGS_IO_AGAIN;
  default: {
    char buf[256];
    unsigned long code = ERR_get_error();
    ERR_error_string_n(code, buf, sizeof buf);
    ERR_clear_error();
    log_info("connection %d: TLS handshake failed: %s", c->c_pid, code ? buf : "connection closed");
    return PGS_IO_EOF;
  }
  }
}
