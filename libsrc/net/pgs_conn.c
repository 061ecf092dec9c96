/* pgs_conn — one client connection: its life, and the loop that turns each
 * epoll event into decoded messages, replies and the next wait.
 *
 * Design notes: a turn (one event) first finishes what was pending — the
 * TLS handshake, a parked job — then decodes and answers messages until the
 * decoder needs bytes the socket does not have yet, then sends the replies
 * in one write and re-arms the socket. Replies to a pipelined batch
 * (Parse/Bind/Execute/Sync in one packet) therefore leave in one send.
 * A turn ends after PGS_TURN_MESSAGES messages so that a client pipelining
 * without end does not keep its thread from others.
 *
 * States (c_phase):
 *
 *   STARTUP --SSLRequest/'S'--> TLS --handshake--> STARTUP
 *   STARTUP --StartupMessage--> SASL_FIRST --> SASL_FINAL --> READY
 *           (trust: straight to READY)
 *   READY --COPY FROM STDIN--> COPY_IN --CopyDone/CopyFail--> READY
 *   any --Terminate, EOF, decoding error, FATAL--> closed
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/pgs_int.h"

#define ADMIN_SHUTDOWN_MSG "terminating connection due to administrator command"

pgs_conn_t *pgs_conn_create(pgs_server_t *srv, int fd, err_t *e)
{
  pgs_conn_t *c = calloc(1, sizeof *c);
  if (!c) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  c->c_dec = pgw_dec_create();
  if (!c->c_dec) {
    free(c);
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  c->c_srv = srv;
  c->c_fd = fd;
  c->c_phase = PGS_PH_STARTUP;
  c->c_maybe_more = true;
  pgw_buf_init(&c->c_out);
  c->c_arena = arena_create(NULL, "pgs_conn");
  c->c_msg_arena = arena_create(c->c_arena, "pgs_msg");
  c->c_job_arena = arena_create(c->c_arena, "pgs_job");
  uint8_t k[4];
  if (scram_random(k, sizeof k, e) != CZ_OK) {
    pgs_conn_destroy(c);
    return NULL;
  }
  c->c_key = (int32_t)((uint32_t)k[0] << 24 | (uint32_t)k[1] << 16 | (uint32_t)k[2] << 8 | k[3]);
  return c;
}

void pgs_conn_destroy(pgs_conn_t *c)
{
  if (c->c_phase == PGS_PH_COPY_IN && c->c_copy_portal)
    eportal_copy_in_fail(c->c_copy_portal, "connection closed");
  if (c->c_job.jb_portal)
    eportal_free(c->c_job.jb_portal);
  if (c->c_job.jb_st)
    estmt_free(c->c_job.jb_st);
  pgs_extended_free_all(c);
  if (c->c_sess) /* rolls back an open transaction */
    esession_close(c->c_sess);
  if (c->c_ssl)
    SSL_free(c->c_ssl);
  if (c->c_fd >= 0)
    close(c->c_fd);
  pgw_dec_destroy(c->c_dec);
  pgw_buf_free(&c->c_out);
  arena_destroy(c->c_arena);
  free(c);
}

/* The handler's end of a connection: last bytes out (best effort), off
 * epoll and the list, freed. */
static void conn_close(pgs_conn_t *c)
{
  if (c->c_out.pb_len > 0)
    pgs_io_flush(c);
  epoll_ctl(c->c_epfd, EPOLL_CTL_DEL, c->c_fd, NULL);
  pgs_conn_unlist(c); /* from here CancelRequest and shutdown cannot find c */
  pgs_conn_destroy(c);
}

static pgs_next_t fatal(pgs_conn_t *c, const char *sqlstate, const char *msg)
{
  err_t e;
  err_set(&e, sqlstate, "%s", msg);
  pgs_send_error(c, "FATAL", &e);
  return PGS_CLOSE;
}

static pgs_next_t dispatch(pgs_conn_t *c, const pgw_fe_msg_t *m)
{
  switch (c->c_phase) {
  case PGS_PH_STARTUP:
    return pgs_startup_message(c, m);
  case PGS_PH_SASL_FIRST:
  case PGS_PH_SASL_FINAL:
    return pgs_auth_message(c, m);
  case PGS_PH_COPY_IN:
    return pgs_copy_message(c, m);
  case PGS_PH_READY:
    break;
  case PGS_PH_TLS:
    return fatal(c, SQLSTATE_PROTOCOL_VIOLATION, "message during the TLS handshake");
  }
  switch (m->fm_kind) {
  case PGW_FE_TERMINATE:
    return PGS_CLOSE;
  case PGW_FE_QUERY:
    /* PostgreSQL skips everything but Sync after an extended-query error,
     * simple queries included. */
    return c->c_ignore_till_sync ? PGS_GO_ON : pgs_simple_query(c, m);
  case PGW_FE_COPY_DATA:
  case PGW_FE_COPY_DONE:
  case PGW_FE_COPY_FAIL:
    /* A COPY that failed leaves the client still sending its data: the
     * protocol says to drop it quietly. */
    return PGS_GO_ON;
  case PGW_FE_PARSE:
  case PGW_FE_BIND:
  case PGW_FE_DESCRIBE:
  case PGW_FE_EXECUTE:
  case PGW_FE_SYNC:
  case PGW_FE_FLUSH:
  case PGW_FE_CLOSE:
    return pgs_extended_message(c, m);
  default:
    return fatal(c, SQLSTATE_PROTOCOL_VIOLATION, "unexpected message for an open session");
  }
}

/* A well-framed message whose text is not valid UTF-8 (22021): the
 * session goes on, as in PostgreSQL, where the error is raised while the
 * message is read. Before the session is open it stays FATAL. */
static pgs_next_t invalid_text(pgs_conn_t *c, const pgw_fe_msg_t *m, err_t *e)
{
  if (c->c_phase == PGS_PH_COPY_IN) {
    /* CopyFail's message: the COPY fails with it (CopyData is bytes,
     * checked in pgs_copy.c). */
    return pgs_copy_invalid(c, e);
  }
  if (c->c_phase != PGS_PH_READY) {
    pgs_send_error(c, "FATAL", e);
    return PGS_CLOSE;
  }
  switch (m->fm_kind) {
  case PGW_FE_QUERY:
    if (c->c_ignore_till_sync)
      return PGS_GO_ON; /* skipped unread, as every message up to Sync */
    pgs_send_error(c, "ERROR", e);
    esession_fail(c->c_sess);
    pgs_extended_end_implicit(c, false);
    pgs_send_notices(c);
    pgs_send_ready(c);
    return PGS_GO_ON;
  case PGW_FE_PARSE:
  case PGW_FE_BIND:
  case PGW_FE_DESCRIBE:
  case PGW_FE_EXECUTE:
  case PGW_FE_CLOSE:
    if (c->c_ignore_till_sync)
      return PGS_GO_ON;
    pgs_send_error(c, "ERROR", e);
    esession_fail(c->c_sess);
    c->c_ignore_till_sync = true; /* Sync ends the error (and rolls back) */
    return PGS_GO_ON;
  default: /* CopyFail outside COPY: dropped like the other COPY messages */
    return PGS_GO_ON;
  }
}

/* Decodes and answers messages until input runs out (GO_ON), output backs
 * up or the turn's budget is spent (PARK), or the connection must end. */
static pgs_next_t conn_work(pgs_conn_t *c)
{
  if (atomic_load(&c->c_srv->sv_stopping)) {
    if (c->c_phase == PGS_PH_READY || c->c_phase == PGS_PH_COPY_IN)
      return fatal(c, SQLSTATE_ADMIN_SHUTDOWN, ADMIN_SHUTDOWN_MSG);
    return PGS_CLOSE;
  }
  int budget = PGS_TURN_MESSAGES;
  size_t copy_bytes = 0;
  for (;;) {
    if (c->c_phase == PGS_PH_TLS) {
      pgs_io_t r = pgs_tls_handshake(c);
      if (r == PGS_IO_EOF)
        return PGS_CLOSE;
      if (r == PGS_IO_AGAIN)
        return PGS_GO_ON;
      c->c_phase = PGS_PH_STARTUP;
      c->c_maybe_more = true;
    }
    if (c->c_job.jb_kind != PGS_JOB_NONE && c->c_phase != PGS_PH_COPY_IN) {
      pgs_next_t nx = c->c_job.jb_kind == PGS_JOB_SIMPLE ? pgs_simple_resume(c)
                                                          : pgs_execute_resume(c);
      if (nx != PGS_GO_ON)
        return nx;
    }
    pgw_fe_msg_t m;
    err_t e;
    int rc = pgw_dec_next(c->c_dec, &m, &e);
    if (rc == PGW_MSG) {
      arena_reset(c->c_msg_arena);
      pgs_next_t nx = dispatch(c, &m);
      if (nx != PGS_GO_ON)
        return nx;
      if (c->c_phase == PGS_PH_READY && c->c_epfd != c->c_srv->sv_epfd)
        return PGS_PARK; /* authenticated: SQL runs on the session threads */
      if (c->c_out.pb_len >= PGS_OUT_HIGH_WATER)
        pgs_maybe_flush(c);
      /* A CopyData costs the budget by its size, not as a message: psql
       * sends one per line, so 256 of them were a few KB, and a COPY of
       * a million lines went through 4,000 turns, each a hand-off to
       * whichever session thread epoll woke next (a scheduler wait on a
       * busy machine). PGS_TURN_COPY_BYTES of data is about as much work
       * as 256 statements. */
      if (m.fm_kind == PGW_FE_COPY_DATA) {
        copy_bytes += m.fm_len;
        if (copy_bytes < PGS_TURN_COPY_BYTES)
          continue;
        copy_bytes = 0;
      }
      if (--budget == 0)
        return PGS_PARK;
      continue;
    }
    if (rc == PGW_MSG_INVALID) {
      arena_reset(c->c_msg_arena);
      pgs_next_t nx = invalid_text(c, &m, &e);
      if (nx != PGS_GO_ON)
        return nx;
      if (--budget == 0)
        return PGS_PARK;
      continue;
    }
    if (rc == CZ_ERR) {
      /* Framing is lost (net invariant 8): say why and close. */
      log_info("connection %d: %s (%s)", c->c_pid, e.er_msg, e.er_sqlstate);
      pgs_send_error(c, "FATAL", &e);
      return PGS_CLOSE;
    }
    if (!c->c_maybe_more)
      return PGS_GO_ON;
    pgs_io_t r = pgs_io_read(c);
    if (r == PGS_IO_AGAIN)
      return PGS_GO_ON;
    if (r == PGS_IO_EOF) {
      if (atomic_load(&c->c_srv->sv_stopping) &&
          (c->c_phase == PGS_PH_READY || c->c_phase == PGS_PH_COPY_IN))
        return fatal(c, SQLSTATE_ADMIN_SHUTDOWN, ADMIN_SHUTDOWN_MSG);
      return PGS_CLOSE;
    }
  }
}

void pgs_conn_event(pgs_conn_t *c, uint32_t events)
{
  (void)events; /* errors and hang-ups show up as EOF on the next read or write */
  c->c_maybe_more = true;
  if (c->c_sess) /* this thread now works for the session: its TimeZone */
    esession_use(c->c_sess);
  for (int round = 0;; round++) {
    pgs_next_t nx = conn_work(c);
    if (nx == PGS_CLOSE) {
      conn_close(c);
      return;
    }
    pgs_io_t r = pgs_io_flush(c);
    if (r == PGS_IO_EOF) {
      conn_close(c);
      return;
    }
    if (r == PGS_IO_AGAIN) {
      pgs_io_arm(c, c->c_io_want_write);
      return;
    }
    if (nx == PGS_PARK) {
      /* The output is gone: a parked job may go on at once; a spent turn
       * goes back to epoll (writable fires at once) behind the others. */
      if (c->c_job.jb_kind != PGS_JOB_NONE && round < 16)
        continue;
      pgs_io_arm(c, true);
      return;
    }
    /* Idle: a buffer grown by a big result goes back to the allocator
     * instead of staying with a connection that may sleep for hours. */
    if (c->c_out.pb_cap > PGS_IDLE_OUT_CAP)
      pgw_buf_free(&c->c_out);
    pgw_dec_trim(c->c_dec, PGS_IDLE_OUT_CAP);
    pgs_io_arm(c, c->c_io_want_write);
    return;
  }
}
