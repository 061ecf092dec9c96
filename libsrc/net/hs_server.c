/* hs_server — the HTTP server: listener, libmicrohttpd's daemon, routing,
 * request bodies, error replies, the sessions of requests and the
 * watchdog that enforces MaxQueryExecutionTime.
 *
 * Design notes: libmicrohttpd runs one thread per connection
 * (MHD_USE_THREAD_PER_CONNECTION), so the access handler, the content
 * reader of a streamed response and the completion callback of a request
 * all run on that connection's thread: a request's session is used by one
 * thread, as engine.h requires, and a query may block that thread without
 * holding up anyone else. The watchdog is the only other thread that
 * touches a request, and only to call esession_cancel under sv_mu while
 * the request is on sv_running; a request leaves the list under sv_mu
 * before its session closes. A request's state is freed in the
 * completion callback, which MHD calls once for every request that got a
 * con_cls, whether it ended well, by a client gone away or by a timeout.
 */
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "net/hs_int.h"

/* ---- replies ------------------------------------------------------------ */

enum MHD_Result hs_reply(hs_req_t *r, unsigned status, const char *content_type, const char *body,
                         size_t len)
{
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
  if (!resp)
    return MHD_NO;
  if (content_type)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
  if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->rq_allow ? r->rq_allow : "GET, POST");
  if (status == MHD_HTTP_UNAUTHORIZED)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                            "Basic realm=\"Cadenza SPARQL\", charset=\"UTF-8\"");
  /* with DigestRealm, a 401 offers Digest too (its challenge, with a
   * fresh nonce, is libmicrohttpd's) */
  enum MHD_Result rc = status == MHD_HTTP_UNAUTHORIZED && engine_digest_realm(r->rq_srv->sv_eng)
                           ? hs_digest_queue_401(r, resp)
                           : MHD_queue_response(r->rq_conn, status, resp);
  MHD_destroy_response(resp);
  r->rq_answered = true;
  r->rq_status = status;
  return rc;
}

enum MHD_Result hs_reply_error(hs_req_t *r, unsigned status, const char *fmt, ...)
{
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg - 1, fmt, ap);
  va_end(ap);
  if (n < 0)
    n = 0;
  if ((size_t)n > sizeof msg - 2)
    n = (int)sizeof msg - 2;
  msg[n++] = '\n';
  msg[n] = '\0';
  return hs_reply(r, status, "text/plain; charset=utf-8", msg, (size_t)n);
}

unsigned hs_status_of(const err_t *e)
{
  const char *s = e->er_sqlstate;
  if (err_is(e, SQLSTATE_FEATURE_NOT_SUPPORTED))
    return MHD_HTTP_NOT_IMPLEMENTED;
  if (err_is(e, SQLSTATE_INSUFFICIENT_PRIVILEGE))
    return MHD_HTTP_FORBIDDEN;
  if (err_is(e, SQLSTATE_QUERY_CANCELED) || err_is(e, SQLSTATE_ADMIN_SHUTDOWN))
    return MHD_HTTP_SERVICE_UNAVAILABLE;
  /* syntax and access rules (42), bad data in the request (22: invalid
   * UTF-8, bad parameters), limits of the request itself (54: too deep,
   * too many): the request is at fault */
  if (strncmp(s, "42", 2) == 0 || strncmp(s, "22", 2) == 0 || strncmp(s, "54", 2) == 0)
    return MHD_HTTP_BAD_REQUEST;
  return MHD_HTTP_INTERNAL_SERVER_ERROR;
}

/* ---- sessions and the watchdog ------------------------------------------ */

int hs_session_begin(hs_req_t *r, const char *user, err_t *e)
{
  hs_server_t *sv = r->rq_srv;
  if (esession_open(sv->sv_eng, user, "cadenza", &r->rq_sess, e) != CZ_OK)
    return CZ_ERR;
  esession_use(r->rq_sess);
  pthread_mutex_lock(&sv->sv_mu);
  if (sv->sv_stopping) {
    pthread_mutex_unlock(&sv->sv_mu);
    esession_close(r->rq_sess);
    r->rq_sess = NULL;
    return err_set(e, SQLSTATE_ADMIN_SHUTDOWN, "the server is shutting down");
  }
  if (sv->sv_cfg.hc_query_timeout_s > 0)
    r->rq_deadline_ns = time_now_ns() + (uint64_t)sv->sv_cfg.hc_query_timeout_s * 1000000000ull;
  r->rq_next = sv->sv_running;
  r->rq_prev = NULL;
  if (sv->sv_running)
    sv->sv_running->rq_prev = r;
  sv->sv_running = r;
  r->rq_listed = true;
  pthread_cond_signal(&sv->sv_cond);
  pthread_mutex_unlock(&sv->sv_mu);
  return CZ_OK;
}

void hs_session_end(hs_req_t *r)
{
  hs_server_t *sv = r->rq_srv;
  if (r->rq_listed) {
    pthread_mutex_lock(&sv->sv_mu);
    if (r->rq_prev)
      r->rq_prev->rq_next = r->rq_next;
    else
      sv->sv_running = r->rq_next;
    if (r->rq_next)
      r->rq_next->rq_prev = r->rq_prev;
    r->rq_listed = false;
    pthread_mutex_unlock(&sv->sv_mu);
  }
  if (r->rq_results) {
    rdf_results_finish(r->rq_results); /* frees; its output goes nowhere now */
    r->rq_results = NULL;
  }
  if (r->rq_writer) {
    rdf_writer_finish(r->rq_writer);
    r->rq_writer = NULL;
  }
  if (r->rq_portal)
    eportal_free(r->rq_portal);
  if (r->rq_stmt)
    estmt_free(r->rq_stmt);
  if (r->rq_sess)
    esession_close(r->rq_sess);
  r->rq_portal = NULL;
  r->rq_stmt = NULL;
  r->rq_sess = NULL;
}

/* Cancels the queries past their deadline, again at every tick while
 * they run: the engine clears a cancel when a statement (re)starts. Shuts
 * down the socket of a connection whose request is not whole by its
 * deadline (a slow client holds a thread); its thread then sees the end
 * of the stream and closes it (the socket stays open until then, so the
 * descriptor cannot have been reused: it leaves sv_conns under sv_mu
 * before it is closed). */
static void *hs_watchdog(void *arg)
{
  hs_server_t *sv = arg;
  pthread_mutex_lock(&sv->sv_mu);
  while (!sv->sv_stopping) {
    uint64_t now = time_now_ns();
    for (hs_req_t *r = sv->sv_running; r; r = r->rq_next)
      if (r->rq_deadline_ns && now >= r->rq_deadline_ns) {
        r->rq_timed_out = true;
        esession_cancel(r->rq_sess);
      }
    for (hs_conn_t *c = sv->sv_conns; c; c = c->hc_next)
      if (c->hc_deadline_ns && now >= c->hc_deadline_ns) {
        c->hc_deadline_ns = 0;
        shutdown(c->hc_fd, SHUT_RDWR);
      }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100 * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    if (sv->sv_running || sv->sv_conns)
      pthread_cond_timedwait(&sv->sv_cond, &sv->sv_mu, &ts);
    else
      pthread_cond_wait(&sv->sv_cond, &sv->sv_mu);
  }
  pthread_mutex_unlock(&sv->sv_mu);
  return NULL;
}

static void hs_conn_deadline(hs_server_t *sv, hs_conn_t *c, bool arm)
{
  if (!c)
    return;
  pthread_mutex_lock(&sv->sv_mu);
  c->hc_deadline_ns =
      arm ? time_now_ns() + (uint64_t)sv->sv_cfg.hc_request_timeout_s * 1000000000ull : 0;
  pthread_mutex_unlock(&sv->sv_mu);
}

static void hs_conn_notify(void *cls, struct MHD_Connection *conn, void **ctx,
                           enum MHD_ConnectionNotificationCode toe)
{
  hs_server_t *sv = cls;
  if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    hs_conn_t *c = calloc(1, sizeof *c);
    if (!c || !ci) {
      free(c);
      return;
    }
    c->hc_fd = ci->connect_fd;
    pthread_mutex_lock(&sv->sv_mu);
    c->hc_deadline_ns = time_now_ns() + (uint64_t)sv->sv_cfg.hc_request_timeout_s * 1000000000ull;
    c->hc_next = sv->sv_conns;
    if (sv->sv_conns)
      sv->sv_conns->hc_prev = c;
    sv->sv_conns = c;
    pthread_cond_signal(&sv->sv_cond);
    pthread_mutex_unlock(&sv->sv_mu);
    *ctx = c;
    return;
  }
  hs_conn_t *c = *ctx;
  if (!c)
    return;
  pthread_mutex_lock(&sv->sv_mu);
  if (c->hc_prev)
    c->hc_prev->hc_next = c->hc_next;
  else
    sv->sv_conns = c->hc_next;
  if (c->hc_next)
    c->hc_next->hc_prev = c->hc_prev;
  pthread_mutex_unlock(&sv->sv_mu);
  free(c);
  *ctx = NULL;
}

/* ---- requests ----------------------------------------------------------- */

typedef struct hs_args_s {
  hs_req_t *ha_req;
  hs_params_t *ha_params;
} hs_args_t;

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   size_t key_size, const char *value, size_t value_size)
{
  (void)kind;
  (void)key_size;
  hs_args_t *a = cls;
  hs_params_add(a->ha_params, a->ha_req->rq_arena, key, value ? value : "",
                value ? value_size : 0);
  return MHD_YES;
}

static enum MHD_Result route(hs_req_t *r, const char *url, const char *method)
{
  bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0;
  bool post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
  bool root = strcmp(url, "/") == 0;
  bool sql = strcmp(url, "/sql") == 0;
  bool head = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
  if (strcmp(url, "/metrics") == 0) {
    r->rq_allow = "GET, HEAD";
    if (!get && !head)
      return hs_reply_error(r, MHD_HTTP_METHOD_NOT_ALLOWED, "%s is not allowed on %s: use GET",
                            method, url);
    return hs_metrics_reply(r);
  }
  /* Virtuoso's -auth paths: the same, but credentials are required (a
   * Digest client sends them only when challenged, and an open query is
   * never challenged) */
  if (strcmp(url, "/sparql-auth") == 0 || strcmp(url, HS_GSP_PATH "-auth") == 0) {
    r->rq_need_auth = true;
    url = strcmp(url, "/sparql-auth") == 0 ? "/sparql" : HS_GSP_PATH;
  }
  if (strcmp(url, HS_GSP_PATH) == 0) {
    if (r->rq_body_too_big)
      return hs_reply_error(r, MHD_HTTP_CONTENT_TOO_LARGE,
                            "the request body is larger than MaxBodySize (%zu bytes)",
                            r->rq_srv->sv_cfg.hc_max_body);
    hs_params_t params = {0};
    hs_args_t args = {r, &params};
    MHD_get_connection_values_n(r->rq_conn, MHD_GET_ARGUMENT_KIND, collect_arg, &args);
    return hs_gsp_run(r, method, &params);
  }
  if (!root && !sql && strcmp(url, "/sparql") != 0) {
    /* the query page's script, style and licence files */
    const hs_www_file_t *f = hs_www_find(url);
    if (!f)
      return hs_reply_error(r, MHD_HTTP_NOT_FOUND,
                            "%s: no such resource (the SPARQL endpoint is /sparql)", url);
    if (!get)
      return hs_reply_error(r, MHD_HTTP_METHOD_NOT_ALLOWED, "%s is not allowed on %s: use GET",
                            method, url);
    return hs_www_reply(r, f);
  }
  if (sql && !post)
    return hs_reply_error(r, MHD_HTTP_METHOD_NOT_ALLOWED, "%s is not allowed on /sql: use POST",
                          method);
  if (!get && !post)
    return hs_reply_error(r, MHD_HTTP_METHOD_NOT_ALLOWED, "%s is not allowed on %s: use GET or POST",
                          method, url);
  if (r->rq_body_too_big)
    return hs_reply_error(r, MHD_HTTP_CONTENT_TOO_LARGE,
                          "the request body is larger than MaxBodySize (%zu bytes)",
                          r->rq_srv->sv_cfg.hc_max_body);
  hs_params_t params = {0};
  /* MHD_get_connection_values_n gives each occurrence of a key with its
   * length (a value may hold %00); collect_arg appends them to params. */
  hs_args_t args = {r, &params};
  MHD_get_connection_values_n(r->rq_conn, MHD_GET_ARGUMENT_KIND, collect_arg, &args);
  const char *text = NULL;
  size_t len = 0;
  bool update = false;
  if (post) {
    const char *ct = MHD_lookup_connection_value(r->rq_conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_TYPE);
    size_t ctl = ct ? strcspn(ct, ";") : 0;
    while (ctl && (ct[ctl - 1] == ' ' || ct[ctl - 1] == '\t'))
      ctl--;
#define CT_IS(lit) (ctl == sizeof(lit) - 1 && strncasecmp(ct, lit, ctl) == 0)
    if (sql) {
      if (!ct || !CT_IS("application/sql"))
        return hs_reply_error(r, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
                              "Content-Type %s is not supported on /sql: send the statement as "
                              "application/sql",
                              ct ? ct : "(none)");
      return hs_sql_run(r, r->rq_body ? r->rq_body : "", r->rq_body_len, &params);
    }
    if (ct && CT_IS("application/x-www-form-urlencoded")) {
      hs_params_parse_form(&params, r->rq_arena, r->rq_body ? r->rq_body : "", r->rq_body_len);
    } else if (ct && (CT_IS("application/sparql-query") || CT_IS("application/sparql-update"))) {
      update = CT_IS("application/sparql-update");
      if (hs_params_get(&params, "query", NULL) || hs_params_get(&params, "update", NULL))
        return hs_reply_error(r, MHD_HTTP_BAD_REQUEST,
                              "a request whose body is the %s may not have a query or update "
                              "parameter too",
                              update ? "update" : "query");
      text = r->rq_body ? r->rq_body : "";
      len = r->rq_body_len;
    } else {
      return hs_reply_error(
          r, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
          "Content-Type %s is not supported: send application/x-www-form-urlencoded, "
          "application/sparql-query or application/sparql-update",
          ct ? ct : "(none)");
    }
#undef CT_IS
  }
  if (!text) {
    int nq, nu;
    const hs_param_t *q = hs_params_get(&params, "query", &nq);
    const hs_param_t *u = hs_params_get(&params, "update", &nu);
    if (nq + nu > 1)
      return hs_reply_error(r, MHD_HTTP_BAD_REQUEST,
                            "a request carries exactly one query or one update (%d given)", nq + nu);
    if (u && get)
      return hs_reply_error(r, MHD_HTTP_BAD_REQUEST,
                            "an update must be sent with POST (SPARQL 1.1 Protocol §2.2)");
    if (!q && !u) {
      if (get)
        return hs_www_reply(r, hs_www_find("/"));
      return hs_reply_error(r, MHD_HTTP_BAD_REQUEST,
                            "no query or update parameter in the request");
    }
    update = u != NULL;
    text = update ? u->pm_val : q->pm_val;
    len = update ? u->pm_len : q->pm_len;
  }
  return hs_sparql_run(r, text, len, update, &params);
}

static enum MHD_Result hs_access(void *cls, struct MHD_Connection *conn, const char *url,
                                 const char *method, const char *version, const char *upload,
                                 size_t *upload_size, void **con_cls)
{
  hs_server_t *sv = cls;
  hs_req_t *r = *con_cls;
  if (!r) {
    r = calloc(1, sizeof *r);
    if (!r)
      return MHD_NO;
    r->rq_srv = sv;
    r->rq_conn = conn;
    r->rq_arena = arena_create(NULL, "http request");
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    r->rq_tcp = ci ? ci->socket_context : NULL;
    *con_cls = r;
    const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl && strtoull(cl, NULL, 10) > sv->sv_cfg.hc_max_body) {
      r->rq_body_too_big = true;
      return hs_reply_error(r, MHD_HTTP_CONTENT_TOO_LARGE,
                            "the request body is larger than MaxBodySize (%zu bytes)",
                            sv->sv_cfg.hc_max_body);
    }
    return MHD_YES;
  }
  if (*upload_size) {
    size_t n = *upload_size;
    *upload_size = 0;
    if (r->rq_answered)
      return MHD_YES;
    /* A chunked body that outgrows MaxBodySize: libmicrohttpd takes no
     * response in the middle of a body, so the rest is read and dropped
     * and 413 answered at its end — unless it goes on past four times the
     * limit, when the connection is closed without more ado. */
    if (r->rq_body_too_big || r->rq_body_len + n > sv->sv_cfg.hc_max_body) {
      r->rq_body_too_big = true;
      free(r->rq_body);
      r->rq_body = NULL;
      r->rq_body_cap = 0;
      r->rq_body_len += n;
      return r->rq_body_len > 4 * sv->sv_cfg.hc_max_body ? MHD_NO : MHD_YES;
    }
    if (r->rq_body_len + n + 1 > r->rq_body_cap) {
      size_t cap = CZ_MAX(r->rq_body_cap * 2, r->rq_body_len + n + 1);
      char *b = realloc(r->rq_body, cap);
      if (!b)
        return MHD_NO;
      r->rq_body = b;
      r->rq_body_cap = cap;
    }
    memcpy(r->rq_body + r->rq_body_len, upload, n);
    r->rq_body_len += n;
    r->rq_body[r->rq_body_len] = '\0';
    return MHD_YES;
  }
  hs_conn_deadline(sv, r->rq_tcp, false); /* the request is whole */
  if (!r->rq_start_ns)
    r->rq_start_ns = time_now_ns();
  if (r->rq_answered)
    return MHD_YES;
  /* RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400
   * (libmicrohttpd lets it through). */
  if (strcmp(version, MHD_HTTP_VERSION_1_1) == 0 &&
      !MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST))
    return hs_reply_error(r, MHD_HTTP_BAD_REQUEST, "an HTTP/1.1 request needs a Host header");
  return route(r, url, method);
}

static void hs_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode why)
{
  (void)cls;
  (void)conn;
  hs_req_t *r = *con_cls;
  if (!r)
    return;
  hs_conn_deadline(r->rq_srv, r->rq_tcp, true); /* the next request's clock */
  hs_metrics_record(r, why == MHD_REQUEST_TERMINATED_COMPLETED_OK);
  if (why != MHD_REQUEST_TERMINATED_COMPLETED_OK && r->rq_sess)
    log_info("http: a request ended early (code %d): its query stops", (int)why);
  hs_session_end(r);
  if (r->rq_z_open)
    deflateEnd(&r->rq_z);
  free(r->rq_body);
  free(r->rq_out);
  if (r->rq_batch)
    arena_destroy(r->rq_batch);
  arena_destroy(r->rq_arena);
  free(r);
  *con_cls = NULL;
}

static void hs_mhd_log(void *cls, const char *fmt, va_list ap)
{
  (void)cls;
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  size_t n = strlen(msg);
  while (n && msg[n - 1] == '\n')
    msg[--n] = '\0';
  log_write(LOG_DEBUG, "http: %s", msg);
}

/* ---- start and stop ----------------------------------------------------- */

static int hs_listen(hs_server_t *sv, err_t *e)
{
  const hs_config_t *c = &sv->sv_cfg;
  const char *host = c->hc_listen[0] && strcmp(c->hc_listen, "*") != 0 ? c->hc_listen : NULL;
  char port[16];
  snprintf(port, sizeof port, "%d", c->hc_port);
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
  struct addrinfo *res;
  int gai = getaddrinfo(host, port, &hints, &res);
  if (gai != 0)
    return err_set(e, SQLSTATE_CONFIG, "[HTTPServer] address %s: %s", host ? host : "*",
                   gai_strerror(gai));
  int fd = -1, saved = 0;
  for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      saved = errno;
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 128) == 0)
      break;
    saved = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0)
    return err_set(e, SQLSTATE_IO_ERROR, "HTTP server: cannot listen on %s:%d: %s",
                   host ? host : "*", c->hc_port, strerror(saved));
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  char h[256] = "?", s[16] = "?";
  if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
    getnameinfo((struct sockaddr *)&ss, sl, h, sizeof h, s, sizeof s,
                NI_NUMERICHOST | NI_NUMERICSERV);
  snprintf(sv->sv_addr, sizeof sv->sv_addr, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, s);
  sv->sv_listen_fd = fd;
  return CZ_OK;
}

int hs_server_start(engine_t *eng, const hs_config_t *cfg, hs_server_t **out, err_t *e)
{
  /* The User must exist and may log in: find out now, not at the first
   * request. */
  esession_t *probe;
  if (esession_open(eng, cfg->hc_user, "cadenza", &probe, e) != CZ_OK)
    return err_prefix(e, "[HTTPServer] User %s", cfg->hc_user);
  esession_close(probe);
  hs_server_t *sv = calloc(1, sizeof *sv);
  if (!sv)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  sv->sv_eng = eng;
  sv->sv_cfg = *cfg;
  sv->sv_listen_fd = -1;
  if (RAND_bytes(sv->sv_nonce_seed, sizeof sv->sv_nonce_seed) != 1) {
    free(sv);
    return err_set(e, SQLSTATE_INTERNAL, "HTTP server: no random bytes for Digest nonces");
  }
  pthread_mutex_init(&sv->sv_mu, NULL);
  pthread_cond_init(&sv->sv_cond, NULL);
  if (hs_listen(sv, e) != CZ_OK)
    goto fail;
  if (thread_start(&sv->sv_watchdog, hs_watchdog, sv, e) != CZ_OK)
    goto fail;
  sv->sv_watchdog_started = true;
  sv->sv_mhd = MHD_start_daemon(
      MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
          MHD_USE_ITC | MHD_USE_ERROR_LOG,
      0, NULL, NULL, hs_access, sv, MHD_OPTION_LISTEN_SOCKET, sv->sv_listen_fd,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->hc_max_conns, MHD_OPTION_CONNECTION_TIMEOUT,
      (unsigned)cfg->hc_timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT, cfg->hc_max_header,
      MHD_OPTION_NOTIFY_COMPLETED, hs_completed, sv, MHD_OPTION_NOTIFY_CONNECTION,
      hs_conn_notify, sv, MHD_OPTION_EXTERNAL_LOGGER, hs_mhd_log, sv,
      MHD_OPTION_DIGEST_AUTH_RANDOM, sizeof sv->sv_nonce_seed, sv->sv_nonce_seed,
      MHD_OPTION_NONCE_NC_SIZE, (unsigned)(4 * cfg->hc_max_conns), MHD_OPTION_END);
  if (!sv->sv_mhd) {
    err_set(e, SQLSTATE_IO_ERROR, "HTTP server: libmicrohttpd did not start");
    goto fail;
  }
  *out = sv;
  return CZ_OK;
fail:
  hs_server_stop(sv);
  return CZ_ERR;
}

const char *hs_server_address(const hs_server_t *sv)
{
  return sv->sv_addr;
}

void hs_server_stop(hs_server_t *sv)
{
  if (!sv)
    return;
  /* No new connections; the listening socket is then ours to close. */
  if (sv->sv_mhd)
    sv->sv_listen_fd = (int)MHD_quiesce_daemon(sv->sv_mhd);
  pthread_mutex_lock(&sv->sv_mu);
  sv->sv_stopping = true;
  for (hs_req_t *r = sv->sv_running; r; r = r->rq_next)
    esession_cancel(r->rq_sess);
  pthread_cond_broadcast(&sv->sv_cond);
  pthread_mutex_unlock(&sv->sv_mu);
  if (sv->sv_mhd)
    MHD_stop_daemon(sv->sv_mhd); /* waits for the connection threads */
  if (sv->sv_listen_fd >= 0)
    close(sv->sv_listen_fd);
  if (sv->sv_watchdog_started)
    thread_join(&sv->sv_watchdog);
  pthread_mutex_destroy(&sv->sv_mu);
  pthread_cond_destroy(&sv->sv_cond);
  free(sv);
}
