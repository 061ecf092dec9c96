/* pgs_listen — the listener, the threads that serve connections, the
 * connection list, deadlines, and shutdown.
 *
 * Design notes: leader/follower. ServerThreads threads block in
 * epoll_wait(…, 1, …) on the epoll set of authenticated connections, all
 * armed EPOLLONESHOT: an event goes to exactly one thread and the fd stays
 * disarmed until that thread re-arms it, so a connection is never handled
 * by two threads at once and needs no lock of its own. A request costs one
 * wake-up (no hand-off queue). A thread never blocks on a client (all
 * sockets are non-blocking), so a slow or hostile client costs a buffer and
 * a file descriptor, not a thread.
 *
 * The listener and connections still in startup (TLS handshake, SCRAM,
 * CancelRequest) live in a second set served by PGS_STARTUP_THREADS
 * threads of their own; a connection moves to the session set when it is
 * authenticated (pgs_io_arm). So even when every session thread runs a
 * long statement, new clients are accepted and CancelRequests answered.
 *
 * Unauthenticated connections wait in a bounded queue, oldest first
 * (MaxStartupConnections): a new connection at a full queue drops the
 * oldest that has not sent its StartupMessage, so idle sockets cannot
 * lock anyone out. A session slot (MaxClientConnections, less the
 * superuser reserve for others) is taken only after authentication.
 *
 * The housekeeping thread enforces StartupTimeout and
 * AuthenticationTimeout: it only shutdown(2)s an expired socket, which
 * wakes whichever thread gets the event to free it; connections are freed
 * by their handler only.
 *
 * Shutdown: stop accepting, cancel running statements and shut the read
 * side of every socket (each handler then sends 57P01 and closes); after 5
 * seconds shut both sides of what is left; when no connection remains the
 * eventfd wakes every thread to exit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/pgs_int.h"

static int listen_on(pgs_server_t *s, err_t *e)
{
  const pgs_config_t *cfg = &s->sv_cfg;
  char port[16];
  snprintf(port, sizeof port, "%d", cfg->pc_port);
  struct addrinfo hints = {0}, *res = NULL;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  const char *host = cfg->pc_listen;
  if (strcmp(host, "*") == 0 || host[0] == 0)
    host = NULL; /* every interface */
  int rc = getaddrinfo(host, port, &hints, &res);
  if (rc != 0)
    return err_set(e, SQLSTATE_CONFIG, "ListenAddress %s: %s", cfg->pc_listen, gai_strerror(rc));
  int fd = -1, err = 0;
  for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 1024) == 0)
      break;
    err = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0)
    return err_set(e, SQLSTATE_IO_ERROR, "could not listen on %s:%d: %s", cfg->pc_listen,
                   cfg->pc_port, strerror(err));
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  char host_txt[INET6_ADDRSTRLEN] = "?";
  if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
    if (ss.ss_family == AF_INET) {
      struct sockaddr_in *in = (struct sockaddr_in *)&ss;
      inet_ntop(AF_INET, &in->sin_addr, host_txt, sizeof host_txt);
      s->sv_port = ntohs(in->sin_port);
    } else if (ss.ss_family == AF_INET6) {
      struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
      inet_ntop(AF_INET6, &in6->sin6_addr, host_txt, sizeof host_txt);
      s->sv_port = ntohs(in6->sin6_port);
    }
  }
  snprintf(s->sv_addr, sizeof s->sv_addr, ss.ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d",
           host_txt, s->sv_port);
  s->sv_listen_fd = fd;
  return CZ_OK;
}

static void list_add(pgs_server_t *s, pgs_conn_t *c)
{
  c->c_prev = NULL;
  c->c_next = s->sv_conns;
  if (s->sv_conns)
    s->sv_conns->c_prev = c;
  s->sv_conns = c;
  s->sv_n_conns++;
}

/* The startup queue (sv_mu): unauthenticated connections, oldest first. */
static void startup_push(pgs_server_t *s, pgs_conn_t *c)
{
  c->c_snext = NULL;
  c->c_sprev = s->sv_startup_tail;
  if (s->sv_startup_tail)
    s->sv_startup_tail->c_snext = c;
  else
    s->sv_startup_head = c;
  s->sv_startup_tail = c;
  c->c_in_startup = true;
  s->sv_n_startup++;
}

static void startup_remove(pgs_server_t *s, pgs_conn_t *c)
{
  if (!c->c_in_startup)
    return;
  if (c->c_sprev)
    c->c_sprev->c_snext = c->c_snext;
  else
    s->sv_startup_head = c->c_snext;
  if (c->c_snext)
    c->c_snext->c_sprev = c->c_sprev;
  else
    s->sv_startup_tail = c->c_sprev;
  c->c_sprev = c->c_snext = NULL;
  c->c_in_startup = false;
  s->sv_n_startup--;
}

/* The startup queue is full: drop the oldest connection that has not sent
 * its StartupMessage yet (idle or hostile ones), else the oldest one still
 * authenticating, so that a new client always gets in. The victim leaves
 * the queue now; its handler sees EOF and frees it. (sv_mu) */
static void startup_evict(pgs_server_t *s)
{
  pgs_conn_t *v = s->sv_startup_head;
  for (pgs_conn_t *c = v; c; c = c->c_snext)
    if (!c->c_authing) {
      v = c;
      break;
    }
  if (!v)
    return;
  startup_remove(s, v);
  v->c_deadline_ns = 0;
  log_info("connection %d from %s: dropped unauthenticated after %.1f s "
           "(MaxStartupConnections = %d reached)", v->c_pid, v->c_peer,
           (double)(time_now_ns() - v->c_accept_ns) / 1e9, s->sv_max_startup);
  shutdown(v->c_fd, SHUT_RDWR);
}

void pgs_conn_startup_done(pgs_conn_t *c)
{
  pgs_server_t *s = c->c_srv;
  mutex_lock(&s->sv_mu);
  c->c_authing = true;
  if (c->c_deadline_ns)
    c->c_deadline_ns = c->c_accept_ns + (uint64_t)s->sv_cfg.pc_auth_timeout_s * 1000000000ull;
  mutex_unlock(&s->sv_mu);
}

int pgs_conn_take_slot(pgs_conn_t *c, bool superuser, err_t *e)
{
  pgs_server_t *s = c->c_srv;
  const pgs_config_t *cfg = &s->sv_cfg;
  int rc = CZ_OK;
  mutex_lock(&s->sv_mu);
  if (s->sv_n_sessions >= cfg->pc_max_conns)
    rc = err_set(e, SQLSTATE_TOO_MANY_CONNECTIONS, "sorry, too many clients already");
  else if (!superuser && s->sv_n_sessions >= cfg->pc_max_conns - cfg->pc_su_reserved)
    rc = err_set(e, SQLSTATE_TOO_MANY_CONNECTIONS,
                 "remaining connection slots are reserved for non-replication superuser "
                 "connections");
  if (rc == CZ_OK) {
    s->sv_n_sessions++;
    c->c_has_slot = true;
    startup_remove(s, c);
    c->c_deadline_ns = 0;
  }
  mutex_unlock(&s->sv_mu);
  return rc;
}

void pgs_conn_unlist(pgs_conn_t *c)
{
  pgs_server_t *s = c->c_srv;
  mutex_lock(&s->sv_mu);
  startup_remove(s, c);
  if (c->c_has_slot) {
    c->c_has_slot = false;
    s->sv_n_sessions--;
  }
  if (c->c_prev)
    c->c_prev->c_next = c->c_next;
  else
    s->sv_conns = c->c_next;
  if (c->c_next)
    c->c_next->c_prev = c->c_prev;
  c->c_prev = c->c_next = NULL;
  s->sv_n_conns--;
  cond_broadcast(&s->sv_cv);
  mutex_unlock(&s->sv_mu);
}

/* The client's address as text, and whether it is a loopback one. */
static void peer_describe(const struct sockaddr_storage *ss, char *out, size_t cap, bool *local)
{
  *local = false;
  snprintf(out, cap, "?");
  if (ss->ss_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
    inet_ntop(AF_INET, &in->sin_addr, out, (socklen_t)cap);
    *local = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  } else if (ss->ss_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
    inet_ntop(AF_INET6, &in6->sin6_addr, out, (socklen_t)cap);
    const uint8_t *a = in6->sin6_addr.s6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
      *local = true;
    else if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
      *local = a[12] == 127;
  } else if (ss->ss_family == AF_UNIX) {
    snprintf(out, cap, "[local]");
    *local = true;
  }
}

static void rearm_listener(pgs_server_t *s)
{
  struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = &s->sv_listen_tag};
  if (!atomic_load(&s->sv_stopping))
    epoll_ctl(s->sv_epfd_startup, EPOLL_CTL_MOD, s->sv_listen_fd, &ev);
}

static void accept_some(pgs_server_t *s)
{
  for (int i = 0; i < 64; i++) {
    struct sockaddr_storage peer;
    socklen_t peer_len = sizeof peer;
    int fd = accept4(s->sv_listen_fd, (struct sockaddr *)&peer, &peer_len,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        /* Out of descriptors: back off a little instead of spinning on a
         * listener that stays readable. */
        log_warn("accept: %s", strerror(errno));
        time_sleep_us(100 * 1000);
      }
      break;
    }
    if (atomic_load(&s->sv_stopping)) {
      close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    err_t e;
    pgs_conn_t *c = pgs_conn_create(s, fd, &e);
    if (!c) {
      log_warn("connection refused: %s", e.er_msg);
      close(fd);
      continue;
    }
    peer_describe(&peer, c->c_peer, sizeof c->c_peer, &c->c_peer_local);
    c->c_accept_ns = time_now_ns();
    mutex_lock(&s->sv_mu);
    /* No session slot yet (that comes after authentication): a place in
     * the bounded startup queue, with a short deadline for the
     * StartupMessage. A full queue makes room rather than refusing. */
    while (s->sv_n_startup >= s->sv_max_startup && s->sv_startup_head)
      startup_evict(s);
    c->c_pid = ++s->sv_next_pid;
    c->c_deadline_ns = c->c_accept_ns + (uint64_t)s->sv_cfg.pc_startup_timeout_s * 1000000000ull;
    list_add(s, c);
    startup_push(s, c);
    mutex_unlock(&s->sv_mu);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = c};
    c->c_epfd = s->sv_epfd_startup;
    if (epoll_ctl(c->c_epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
      log_warn("epoll_ctl: %s", strerror(errno));
      pgs_conn_unlist(c);
      pgs_conn_destroy(c);
    }
  }
  rearm_listener(s);
}

static void serve(pgs_server_t *s, int epfd)
{
  for (;;) {
    struct epoll_event ev;
    int n = epoll_wait(epfd, &ev, 1, -1);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      log_error("epoll_wait: %s", strerror(errno));
      break;
    }
    if (n == 0)
      continue;
    if (ev.data.ptr == &s->sv_wake_tag) {
      if (atomic_load(&s->sv_exit))
        break;
      continue;
    }
    if (ev.data.ptr == &s->sv_listen_tag) {
      accept_some(s);
      continue;
    }
    pgs_conn_event(ev.data.ptr, ev.events);
  }
}

static void *serve_sessions(void *arg);

/* A session thread is about to wait for another session (a row lock held
 * by a transaction whose COMMIT has not arrived) or for the disk (a commit
 * waiting for its log record to be durable). Keep ServerThreads threads
 * runnable by starting one more, or the sessions that would release the
 * locks could never run, and the committers that could share the next log
 * flush would queue behind it instead. The pool only grows, and never past
 * one thread per connection beyond ServerThreads. Every commit comes here,
 * so the common case (enough threads runnable) takes no mutex. */
static void session_thread_blocks(void *ctx, bool blocking)
{
  pgs_server_t *s = ctx;
  if (!blocking) {
    atomic_fetch_sub(&s->sv_blocked, 1);
    return;
  }
  int blocked = atomic_fetch_add(&s->sv_blocked, 1) + 1;
  int n = atomic_load(&s->sv_n_threads);
  if (n - blocked >= s->sv_cfg.pc_threads || n >= s->sv_max_threads)
    return;
  mutex_lock(&s->sv_mu);
  if (!atomic_load(&s->sv_exit) && s->sv_n_threads - blocked < s->sv_cfg.pc_threads &&
      s->sv_n_threads < s->sv_max_threads) {
    err_t e;
    if (thread_start(&s->sv_threads[s->sv_n_threads], serve_sessions, s, &e) == CZ_OK) {
      atomic_fetch_add(&s->sv_n_threads, 1);
      log_info("session threads: %d (%d waiting for other sessions or the log)", atomic_load(&s->sv_n_threads),
               blocked);
    } else {
      log_warn("cannot add a session thread: %s", e.er_msg);
    }
  }
  mutex_unlock(&s->sv_mu);
}

static void *serve_sessions(void *arg)
{
  pgs_server_t *s = arg;
  thread_set_name("cz-pgwire");
  thread_set_block_handler(session_thread_blocks, s);
  serve(s, s->sv_epfd);
  return NULL;
}

static void *serve_startup(void *arg)
{
  pgs_server_t *s = arg;
  thread_set_name("cz-pgw-startup");
  serve(s, s->sv_epfd_startup);
  return NULL;
}

/* Shuts down expired sockets once a second (their handlers see EOF) and
 * cancels statements past their statement_timeout (pgs_timeout.c). */
static void *house_main(void *arg)
{
  pgs_server_t *s = arg;
  thread_set_name("cz-pgw-house");
  mutex_lock(&s->sv_mu);
  while (!atomic_load(&s->sv_exit)) {
    uint64_t now = time_now_ns();
    for (pgs_conn_t *c = s->sv_conns; c; c = c->c_next) {
      if (c->c_deadline_ns && now >= c->c_deadline_ns) {
        c->c_deadline_ns = 0;
        log_info("connection %d from %s: %s took longer than %d s; closed", c->c_pid,
                 c->c_peer, c->c_authing ? "authentication" : "the startup packet",
                 c->c_authing ? s->sv_cfg.pc_auth_timeout_s : s->sv_cfg.pc_startup_timeout_s);
        shutdown(c->c_fd, SHUT_RDWR);
      }
    }
    uint64_t wake = pgs_timeout_expire(s, now, now + 1000 * 1000 * 1000ull);
    uint64_t us = wake > now ? (wake - now + 999) / 1000 : 1;
    cond_timedwait(&s->sv_cv, &s->sv_mu, us);
  }
  mutex_unlock(&s->sv_mu);
  return NULL;
}

static void server_free(pgs_server_t *s)
{
  if (s->sv_listen_fd >= 0)
    close(s->sv_listen_fd);
  if (s->sv_epfd >= 0)
    close(s->sv_epfd);
  if (s->sv_epfd_startup >= 0)
    close(s->sv_epfd_startup);
  if (s->sv_wake_fd >= 0)
    close(s->sv_wake_fd);
  pgs_tls_ctx_free(s->sv_tls);
  cond_destroy(&s->sv_cv);
  mutex_destroy(&s->sv_mu);
  free(s->sv_threads);
  free(s);
}

int pgs_server_start(engine_t *eng, const pgs_config_t *cfg, pgs_server_t **out, err_t *e)
{
  pgs_server_t *s = calloc(1, sizeof *s);
  if (!s)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  s->sv_eng = eng;
  s->sv_cfg = *cfg;
  s->sv_max_startup = cfg->pc_max_startup > 0 ? cfg->pc_max_startup : cfg->pc_max_conns;
  /* a configuration filled in by code: the reserve leaves one slot */
  s->sv_cfg.pc_su_reserved = CZ_MAX(0, CZ_MIN(cfg->pc_su_reserved, cfg->pc_max_conns - 1));
  if (pgs_config_check(cfg, e) != CZ_OK) {
    free(s);
    return CZ_ERR;
  }
  s->sv_listen_fd = s->sv_epfd = s->sv_epfd_startup = s->sv_wake_fd = -1;
  mutex_init(&s->sv_mu);
  cond_init(&s->sv_cv);
  atomic_init(&s->sv_stopping, false);
  atomic_init(&s->sv_exit, false);
  /* BackendKeyData pids: distinct per server run, so that a CancelRequest
   * meant for an earlier run hits nothing. */
  uint8_t r[2];
  s->sv_next_pid = 1000;
  if (scram_random(r, sizeof r, NULL) == CZ_OK)
    s->sv_next_pid += (r[0] << 8 | r[1]) * 16;
  if (cfg->pc_ssl_cert[0]) {
    if (pgs_tls_ctx_create(cfg, &s->sv_tls, e) != CZ_OK)
      goto fail;
    /* OpenSSL writes with write(2), which raises SIGPIPE when a client has
     * gone (plain sockets use MSG_NOSIGNAL): a server must not die of it. */
    struct sigaction sa;
    if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL)
      signal(SIGPIPE, SIG_IGN);
  }
  if (listen_on(s, e) != CZ_OK)
    goto fail;
  s->sv_epfd = epoll_create1(EPOLL_CLOEXEC);
  s->sv_epfd_startup = epoll_create1(EPOLL_CLOEXEC);
  s->sv_wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (s->sv_epfd < 0 || s->sv_epfd_startup < 0 || s->sv_wake_fd < 0) {
    err_set(e, SQLSTATE_IO_ERROR, "epoll: %s", strerror(errno));
    goto fail;
  }
  struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = &s->sv_listen_tag};
  struct epoll_event wev = {.events = EPOLLIN, .data.ptr = &s->sv_wake_tag};
  if (epoll_ctl(s->sv_epfd_startup, EPOLL_CTL_ADD, s->sv_listen_fd, &ev) != 0 ||
      epoll_ctl(s->sv_epfd_startup, EPOLL_CTL_ADD, s->sv_wake_fd, &wev) != 0 ||
      epoll_ctl(s->sv_epfd, EPOLL_CTL_ADD, s->sv_wake_fd, &wev) != 0) {
    err_set(e, SQLSTATE_IO_ERROR, "epoll_ctl: %s", strerror(errno));
    goto fail;
  }
  s->sv_max_threads = cfg->pc_threads + cfg->pc_max_conns;
  atomic_init(&s->sv_blocked, 0);
  atomic_init(&s->sv_n_threads, 0);
  s->sv_threads = calloc((size_t)s->sv_max_threads, sizeof *s->sv_threads);
  if (!s->sv_threads) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
    goto fail;
  }
  for (int i = 0; i < cfg->pc_threads; i++) {
    if (thread_start(&s->sv_threads[i], serve_sessions, s, e) != CZ_OK)
      goto fail_threads;
    atomic_fetch_add(&s->sv_n_threads, 1);
  }
  for (int i = 0; i < PGS_STARTUP_THREADS; i++) {
    if (thread_start(&s->sv_start_threads[i], serve_startup, s, e) != CZ_OK)
      goto fail_threads;
    s->sv_n_start_threads++;
  }
  if (thread_start(&s->sv_house, house_main, s, e) != CZ_OK)
    goto fail_threads;
  *out = s;
  return CZ_OK;

fail_threads:
  atomic_store(&s->sv_exit, true);
  uint64_t one = 1;
  if (write(s->sv_wake_fd, &one, sizeof one) < 0)
    log_warn("eventfd write: %s", strerror(errno));
  for (int i = 0; i < s->sv_n_threads; i++)
    thread_join(&s->sv_threads[i]);
  for (int i = 0; i < s->sv_n_start_threads; i++)
    thread_join(&s->sv_start_threads[i]);
fail:
  server_free(s);
  return CZ_ERR;
}

int pgs_server_port(const pgs_server_t *s) { return s->sv_port; }
const char *pgs_server_address(const pgs_server_t *s) { return s->sv_addr; }

int pgs_server_n_conns(pgs_server_t *s)
{
  mutex_lock(&s->sv_mu);
  int n = s->sv_n_conns;
  mutex_unlock(&s->sv_mu);
  return n;
}

/* Shuts how of every listed socket; with cancel, also asks each session's
 * running statement to stop. Caller holds sv_mu. */
static void shut_all(pgs_server_t *s, int how, bool cancel)
{
  for (pgs_conn_t *c = s->sv_conns; c; c = c->c_next) {
    if (cancel && c->c_sess)
      esession_cancel(c->c_sess);
    shutdown(c->c_fd, how);
  }
}

void pgs_server_stop(pgs_server_t *s)
{
  if (!s)
    return;
  atomic_store(&s->sv_stopping, true);
  epoll_ctl(s->sv_epfd_startup, EPOLL_CTL_DEL, s->sv_listen_fd, NULL);
  mutex_lock(&s->sv_mu);
  uint64_t soft_end = time_now_ns() + 5000000000ull;
  /* Repeated each second: a connection accepted while stopping began may
   * have been listed after the first pass. */
  while (s->sv_n_conns > 0 && time_now_ns() < soft_end) {
    shut_all(s, SHUT_RD, true);
    cond_timedwait(&s->sv_cv, &s->sv_mu, 1000 * 1000);
  }
  while (s->sv_n_conns > 0) {
    shut_all(s, SHUT_RDWR, true);
    cond_timedwait(&s->sv_cv, &s->sv_mu, 1000 * 1000);
  }
  atomic_store(&s->sv_exit, true);
  cond_broadcast(&s->sv_cv);
  mutex_unlock(&s->sv_mu);
  uint64_t one = 1;
  if (write(s->sv_wake_fd, &one, sizeof one) < 0)
    log_warn("eventfd write: %s", strerror(errno));
  /* sv_exit is set under sv_mu, so no thread is added after this read. */
  mutex_lock(&s->sv_mu);
  int n_threads = s->sv_n_threads;
  mutex_unlock(&s->sv_mu);
  for (int i = 0; i < n_threads; i++)
    thread_join(&s->sv_threads[i]);
  for (int i = 0; i < s->sv_n_start_threads; i++)
    thread_join(&s->sv_start_threads[i]);
  thread_join(&s->sv_house);
  server_free(s);
}
