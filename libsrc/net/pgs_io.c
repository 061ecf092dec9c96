/* pgs_io — bytes in and out of a connection's socket, plain or TLS, never
 * blocking (except pgs_io_flush_wait, for COPY TO STDOUT).
 *
 * Design notes: reads go straight into the decoder's receive buffer
 * (pgw_dec_reserve/commit), writes straight from the output buffer. A read
 * that did not fill its room means the socket is drained, so the caller
 * re-arms epoll instead of paying for a read that would say EAGAIN
 * (c_maybe_more). With TLS a read may need the socket writable and a write
 * readable (renegotiation, key update): c_io_want_write records which way
 * to wait.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <openssl/err.h>

#include "net/pgs_int.h"

#define PGS_READ_ROOM 16384

static pgs_io_t tls_error(pgs_conn_t *c, int rc)
{
  switch (SSL_get_error(c->c_ssl, rc)) {
  case SSL_ERROR_WANT_READ:
    c->c_io_want_write = false;
    return PGS_IO_AGAIN;
  case SSL_ERROR_WANT_WRITE:
    c->c_io_want_write = true;
    return PGS_IO_AGAIN;
  default:
    ERR_clear_error();
    return PGS_IO_EOF;
  }
}

pgs_io_t pgs_io_read(pgs_conn_t *c)
{
  uint8_t *p;
  size_t avail;
  err_t e;
  if (pgw_dec_reserve(c->c_dec, PGS_READ_ROOM, &p, &avail, &e) != CZ_OK) {
    log_warn("connection %d: %s", c->c_pid, e.er_msg);
    return PGS_IO_EOF;
  }
  size_t want = CZ_MIN(avail, (size_t)INT_MAX);
  if (c->c_ssl) {
    ERR_clear_error();
    int n = SSL_read(c->c_ssl, p, (int)want);
    if (n <= 0)
      return tls_error(c, n);
    pgw_dec_commit(c->c_dec, (size_t)n);
    c->c_io_want_write = false;
    c->c_maybe_more = (size_t)n == want || SSL_pending(c->c_ssl) > 0;
    return PGS_IO_OK;
  }
  for (;;) {
    ssize_t n = recv(c->c_fd, p, want, 0);
    if (n > 0) {
      pgw_dec_commit(c->c_dec, (size_t)n);
      c->c_io_want_write = false;
      c->c_maybe_more = (size_t)n == want;
      return PGS_IO_OK;
    }
    if (n == 0)
      return PGS_IO_EOF;
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      c->c_io_want_write = false;
      return PGS_IO_AGAIN;
    }
    return PGS_IO_EOF;
  }
}

pgs_io_t pgs_io_flush(pgs_conn_t *c)
{
  pgw_buf_t *b = &c->c_out;
  if (pgw_buf_status(b, NULL) != CZ_OK) {
    /* A failed buffer's bytes must not go out (net invariant 10); the
     * framing of the reply is lost, so the connection ends. */
    log_warn("connection %d: reply could not be built: %s", c->c_pid, b->pb_err.er_msg);
    pgw_buf_reset(b);
    return PGS_IO_EOF;
  }
  while (b->pb_len > 0) {
    size_t len = CZ_MIN(b->pb_len, (size_t)INT_MAX);
    if (c->c_ssl) {
      ERR_clear_error();
      int n = SSL_write(c->c_ssl, b->pb_data, (int)len);
      if (n <= 0)
        return tls_error(c, n);
      pgw_buf_consume(b, (size_t)n);
      continue;
    }
    ssize_t n = send(c->c_fd, b->pb_data, len, MSG_NOSIGNAL);
    if (n > 0) {
      pgw_buf_consume(b, (size_t)n);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      c->c_io_want_write = true;
      return PGS_IO_AGAIN;
    }
    return PGS_IO_EOF;
  }
  return PGS_IO_OK;
}

int pgs_io_flush_wait(pgs_conn_t *c, int timeout_ms, err_t *e)
{
  uint64_t end = time_now_ns() + (uint64_t)timeout_ms * 1000000ull;
  for (;;) {
    pgs_io_t r = pgs_io_flush(c);
    if (r == PGS_IO_OK)
      return CZ_OK;
    if (r == PGS_IO_EOF)
      return err_set(e, SQLSTATE_CONNECTION_FAILURE, "connection to client lost");
    uint64_t now = time_now_ns();
    if (now >= end)
      return err_set(e, SQLSTATE_CONNECTION_FAILURE, "client did not read its data for %d s", timeout_ms / 1000);
    struct pollfd pfd = {.fd = c->c_fd, .events = c->c_io_want_write ? POLLOUT : POLLIN};
    /* Waiting on a client that does not read: say so, so that the pool
     * starts another session thread (pgs_listen.c) and a few such clients
     * cannot leave the server without a thread to serve anyone. */
    thread_block_begin();
    int n = poll(&pfd, 1, (int)((end - now) / 1000000ull) + 1);
    thread_block_end();
    if (n < 0 && errno != EINTR)
      return err_set(e, SQLSTATE_CONNECTION_FAILURE, "poll: %s", strerror(errno));
  }
}

void pgs_io_arm(pgs_conn_t *c, bool want_write)
{
  struct epoll_event ev = {.events = EPOLLONESHOT | (want_write ? EPOLLOUT : EPOLLIN),
                           .data.ptr = c};
  int sessions = c->c_srv->sv_epfd;
  if (c->c_epfd != sessions && (c->c_phase == PGS_PH_READY || c->c_phase == PGS_PH_COPY_IN)) {
    /* Authenticated: from the startup threads to the session threads. c is
     * disarmed (we hold its event), so no thread can see it in between. */
    epoll_ctl(c->c_epfd, EPOLL_CTL_DEL, c->c_fd, NULL);
    c->c_epfd = sessions;
    if (epoll_ctl(sessions, EPOLL_CTL_ADD, c->c_fd, &ev) != 0)
      log_error("connection %d: epoll_ctl: %s", c->c_pid, strerror(errno));
    return;
  }
  if (epoll_ctl(c->c_epfd, EPOLL_CTL_MOD, c->c_fd, &ev) != 0)
    log_error("connection %d: epoll_ctl: %s", c->c_pid, strerror(errno));
}
