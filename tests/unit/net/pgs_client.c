/* pgs_client — the test client and its transcripts (see pgs_client.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "pgs_client.h"

void tc_connect(tc_t *c, int port)
{
  memset(c, 0, sizeof *c);
  pgw_buf_init(&c->tc_out);
  c->tc_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  assert_true(c->tc_fd >= 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  assert_int_equal(connect(c->tc_fd, (struct sockaddr *)&sa, sizeof sa), 0);
  struct timeval tv = {.tv_sec = 30};
  setsockopt(c->tc_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  int one = 1;
  setsockopt(c->tc_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void tc_close(tc_t *c)
{
  if (c->tc_ssl)
    SSL_free(c->tc_ssl);
  if (c->tc_ssl_ctx)
    SSL_CTX_free(c->tc_ssl_ctx);
  c->tc_ssl = c->tc_ssl_ctx = NULL;
  if (c->tc_fd >= 0)
    close(c->tc_fd);
  c->tc_fd = -1;
  pgw_buf_free(&c->tc_out);
  free(c->tc_in);
  c->tc_in = NULL;
}

void tc_send_raw(tc_t *c, const void *data, size_t len)
{
  const uint8_t *p = data;
  while (len > 0) {
    ssize_t n = c->tc_ssl ? SSL_write(c->tc_ssl, p, (int)len)
                          : send(c->tc_fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return; /* the server may have closed: the next read says so */
    p += n;
    len -= (size_t)n;
  }
}

void tc_flush(tc_t *c)
{
  assert_int_equal(pgw_buf_status(&c->tc_out, NULL), CZ_OK);
  tc_send_raw(c, c->tc_out.pb_data, c->tc_out.pb_len);
  pgw_buf_reset(&c->tc_out);
}

static bool fill(tc_t *c, size_t need)
{
  while (c->tc_in_len < need) {
    if (c->tc_in_cap < need + 4096) {
      c->tc_in_cap = need + 65536;
      c->tc_in = realloc(c->tc_in, c->tc_in_cap);
      assert_non_null(c->tc_in);
    }
    size_t room = c->tc_in_cap - c->tc_in_len;
    ssize_t n = c->tc_ssl ? SSL_read(c->tc_ssl, c->tc_in + c->tc_in_len, (int)room)
                          : recv(c->tc_fd, c->tc_in + c->tc_in_len, room, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    c->tc_in_len += (size_t)n;
  }
  return true;
}

static uint32_t be32(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

char tc_read(tc_t *c, const uint8_t **body, uint32_t *len)
{
  if (c->tc_taken) {
    memmove(c->tc_in, c->tc_in + c->tc_taken, c->tc_in_len - c->tc_taken);
    c->tc_in_len -= c->tc_taken;
    c->tc_taken = 0;
  }
  if (!fill(c, 5))
    return 0;
  uint32_t l = be32(c->tc_in + 1);
  assert_true(l >= 4);
  if (!fill(c, 1 + (size_t)l))
    return 0;
  *body = c->tc_in + 5;
  *len = l - 4;
  c->tc_taken = 1 + (size_t)l;
  return (char)c->tc_in[0];
}

/* ---- transcripts ---- */

typedef struct tx_s {
  char t_buf[16384];
  size_t t_len;
} tx_t;

static void tx_add(tx_t *t, const char *fmt, ...) CZ_PRINTF(2, 3);
static void tx_add(tx_t *t, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->t_buf + t->t_len, sizeof t->t_buf - t->t_len, fmt, ap);
  va_end(ap);
  if (n > 0)
    t->t_len = CZ_MIN(t->t_len + (size_t)n, sizeof t->t_buf - 1);
}

static void tx_value(tx_t *t, const uint8_t *p, uint32_t n)
{
  bool printable = true;
  for (uint32_t i = 0; i < n; i++)
    if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n') || p[i] > 0x7e || p[i] == '|' ||
        p[i] == ')')
      printable = false;
  if (printable) {
    for (uint32_t i = 0; i < n; i++)
      tx_add(t, "%s", p[i] == '\t' ? "\\t" : p[i] == '\n' ? "\\n" : (char[]){(char)p[i], 0});
    return;
  }
  tx_add(t, "x");
  for (uint32_t i = 0; i < n; i++)
    tx_add(t, "%02x", p[i]);
}

static const char *field(const uint8_t *body, uint32_t len, char code)
{
  const uint8_t *p = body, *end = body + len;
  while (p < end && *p) {
    char f = (char)*p++;
    const char *s = (const char *)p;
    p += strlen(s) + 1;
    if (f == code)
      return s;
  }
  return NULL;
}

/* Appends the token of one message; auth and ParameterStatus only with
 * verbose. */
static void tx_message(tc_t *c, tx_t *t, char type, const uint8_t *b, uint32_t len, bool verbose)
{
  const char *sep = t->t_len ? " " : "";
  switch (type) {
  case 'T': {
    int n = b[0] << 8 | b[1];
    const uint8_t *p = b + 2;
    tx_add(t, "%sT(", sep);
    for (int i = 0; i < n; i++) {
      const char *name = (const char *)p;
      p += strlen(name) + 1;
      uint32_t oid = be32(p + 6);
      int fmt = p[16] << 8 | p[17];
      tx_add(t, "%s%s:%u%s", i ? "," : "", name, oid, fmt ? "b" : "");
      p += 18;
    }
    tx_add(t, ")");
    break;
  }
  case 'D': {
    int n = b[0] << 8 | b[1];
    const uint8_t *p = b + 2;
    tx_add(t, "%sD(", sep);
    for (int i = 0; i < n; i++) {
      int32_t l = (int32_t)be32(p);
      p += 4;
      if (i)
        tx_add(t, "|");
      if (l < 0) {
        tx_add(t, "NULL");
      } else {
        tx_value(t, p, (uint32_t)l);
        p += l;
      }
    }
    tx_add(t, ")");
    break;
  }
  case 'C':
    tx_add(t, "%sC(%s)", sep, (const char *)b);
    break;
  case 'E':
  case 'N': {
    const char *code = field(b, len, 'C'), *pos = field(b, len, 'P'), *m = field(b, len, 'M');
    if (type == 'E' && m)
      snprintf(c->tc_last_msg, sizeof c->tc_last_msg, "%s", m);
    tx_add(t, "%s%c(%s%s%s)", sep, type, code ? code : "?", pos ? "@" : "", pos ? pos : "");
    break;
  }
  case 'S':
    if (verbose)
      tx_add(t, "%sS(%s=%s)", sep, (const char *)b, (const char *)b + strlen((const char *)b) + 1);
    break;
  case 'Z':
    tx_add(t, "%sZ(%c)", sep, b[0]);
    break;
  case 'K':
    c->tc_pid = (int32_t)be32(b);
    c->tc_key = (int32_t)be32(b + 4);
    if (verbose)
      tx_add(t, "%sK", sep);
    break;
  case 'R':
    if (verbose)
      tx_add(t, "%sR(%u)", sep, be32(b));
    break;
  case 't': {
    int n = b[0] << 8 | b[1];
    tx_add(t, "%st(", sep);
    for (int i = 0; i < n; i++)
      tx_add(t, "%s%u", i ? "," : "", be32(b + 2 + 4 * i));
    tx_add(t, ")");
    break;
  }
  case 'G':
  case 'H':
    tx_add(t, "%s%c(%d)", sep, type, b[1] << 8 | b[2]);
    break;
  case 'd':
    tx_add(t, "%sd(", sep);
    tx_value(t, b, len);
    tx_add(t, ")");
    break;
  default:
    tx_add(t, "%s%c", sep, type);
  }
}

static tx_t tx;

const char *tc_until(tc_t *c, const char *until)
{
  tx.t_len = 0;
  tx.t_buf[0] = 0;
  for (;;) {
    const uint8_t *b;
    uint32_t len;
    char type = tc_read(c, &b, &len);
    if (!type) {
      tx_add(&tx, "%sEOF", tx.t_len ? " " : "");
      break;
    }
    tx_message(c, &tx, type, b, len, true);
    if (strchr(until, type))
      break;
  }
  return tx.t_buf;
}

const char *tc_query(tc_t *c, const char *sql)
{
  pgw_write_query(&c->tc_out, sql);
  tc_flush(c);
  return tc_until(c, "Z");
}

char tc_start_tls(tc_t *c)
{
  pgw_write_request_code(&c->tc_out, PGW_SSL_REQUEST_CODE);
  tc_flush(c);
  char answer = 0;
  if (recv(c->tc_fd, &answer, 1, 0) != 1 || answer != 'S')
    return answer;
  SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
  assert_non_null(ctx);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
  SSL *ssl = SSL_new(ctx);
  assert_non_null(ssl);
  SSL_set_fd(ssl, c->tc_fd);
  assert_int_equal(SSL_connect(ssl), 1);
  c->tc_ssl = ssl;
  c->tc_ssl_ctx = ctx;
  return answer;
}

const char *tc_login(tc_t *c, int port, const char *user, const char *password)
{
  tc_connect(c, port);
  return tc_auth(c, user, password);
}

const char *tc_auth(tc_t *c, const char *user, const char *password)
{
  const char *names[] = {"user", "database", "application_name"};
  const char *values[] = {user, "db", "pgs-test"};
  pgw_write_startup(&c->tc_out, PGW_PROTOCOL_3_0, names, values, 3);
  tc_flush(c);
  arena_t *a = arena_create(NULL, "tc_login");
  scram_client_t sc;
  err_t e;
  tx.t_len = 0;
  tx.t_buf[0] = 0;
  for (;;) {
    const uint8_t *b;
    uint32_t len;
    char type = tc_read(c, &b, &len);
    if (!type) {
      tx_add(&tx, "%sEOF", tx.t_len ? " " : "");
      break;
    }
    if (type == 'R') {
      uint32_t code = be32(b);
      if (code == 10) { /* AuthenticationSASL */
        assert_non_null(password);
        assert_int_equal(scram_client_init(&sc, a, user, password, NULL, &e), CZ_OK);
        const char *first = scram_client_first(&sc);
        pgw_write_sasl_initial(&c->tc_out, SCRAM_MECHANISM, first, (int32_t)strlen(first));
        tc_flush(c);
      } else if (code == 11) { /* SASLContinue */
        char *server_first = arena_alloc(a, len - 4 + 1);
        memcpy(server_first, b + 4, len - 4);
        server_first[len - 4] = 0;
        const char *final;
        assert_int_equal(scram_client_final(&sc, server_first, &final, &e), CZ_OK);
        pgw_write_sasl_response(&c->tc_out, final, strlen(final));
        tc_flush(c);
      } else if (code == 12) { /* SASLFinal: the server proves it knows the secret too */
        char *server_final = arena_alloc(a, len - 4 + 1);
        memcpy(server_final, b + 4, len - 4);
        server_final[len - 4] = 0;
        assert_int_equal(scram_client_check_server_final(&sc, server_final, &e), CZ_OK);
      } else {
        assert_int_equal(code, 0); /* AuthenticationOk */
      }
      continue;
    }
    tx_message(c, &tx, type, b, len, false);
    if (type == 'Z')
      break;
  }
  arena_destroy(a);
  return tx.t_buf;
}
