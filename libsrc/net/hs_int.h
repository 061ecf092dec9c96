/* hs_int — what the HTTP server's files share: the server, one request,
 * the result formats and the form-parameter list. */
#ifndef CZ_HS_INT_H
#define CZ_HS_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>
#include <zlib.h>

#include "engine/engine.h"
#include "net/httpserver.h"
#include "rdf/rdf.h"
#include "thread/thread.h"
#include "util/util.h"

typedef struct hs_req_s hs_req_t;

/* One TCP connection (MHD's socket_context), on sv_conns from its accept
 * to its close. hc_deadline_ns: when the request being received must be
 * whole (headers and body), 0 while one is being answered. */
typedef struct hs_conn_s {
  int hc_fd;
  uint64_t hc_deadline_ns;   /* sv_mu */
  struct hs_conn_s *hc_prev, *hc_next;
} hs_conn_t;

/* The counters /metrics shows (hs_metrics.c): bumped once per request at
 * its completion, relaxed atomics (no lock on the request path). */
#define HS_LAT_BUCKETS 12 /* 11 bounds and +Inf */
typedef struct hs_metrics_s {
  _Atomic uint64_t hm_requests;      /* every request answered */
  _Atomic uint64_t hm_http_errors;   /* of those: 4xx, 5xx or broken off */
  _Atomic uint64_t hm_queries;       /* SPARQL queries on /sparql */
  _Atomic uint64_t hm_updates;       /* SPARQL updates on /sparql */
  _Atomic uint64_t hm_gsp;           /* Graph Store requests */
  _Atomic uint64_t hm_sparql_errors; /* of the three above, those that failed */
  _Atomic uint64_t hm_lat[HS_LAT_BUCKETS]; /* their latencies, per bucket (not cumulative) */
  _Atomic uint64_t hm_lat_sum_ns;
} hs_metrics_t;

/* What a request was, for the counters. */
typedef enum hs_kind_e {
  HS_KIND_NONE = 0, /* pages, /sql, /metrics, errors before routing */
  HS_KIND_QUERY,
  HS_KIND_UPDATE,
  HS_KIND_GSP
} hs_kind_t;

struct hs_server_s {
  engine_t *sv_eng;
  hs_config_t sv_cfg;
  struct MHD_Daemon *sv_mhd;
  int sv_listen_fd;          /* ours until MHD_stop_daemon closes it */
  char sv_addr[300];
  pthread_mutex_t sv_mu;     /* sv_running, sv_stopping */
  pthread_cond_t sv_cond;    /* wakes the watchdog (stop) */
  hs_req_t *sv_running;      /* requests with a session open (the watchdog's list) */
  hs_conn_t *sv_conns;       /* open connections (the watchdog's request deadlines) */
  bool sv_stopping;
  cz_thread_t sv_watchdog;
  bool sv_watchdog_started;
  hs_metrics_t sv_metrics;
  uint8_t sv_nonce_seed[32]; /* Digest nonces (MHD_OPTION_DIGEST_AUTH_RANDOM; outlives the daemon) */
};

/* The formats a response can take (hs_accept.c). */
typedef enum hs_fmt_e {
  HS_FMT_NONE = 0,
  HS_FMT_JSON,  /* application/sparql-results+json */
  HS_FMT_XML,   /* application/sparql-results+xml */
  HS_FMT_CSV,   /* text/csv */
  HS_FMT_TSV,   /* text/tab-separated-values */
  HS_FMT_NT,    /* application/n-triples */
  HS_FMT_TTL,   /* text/turtle */
  HS_FMT_HTML,  /* text/html */
  HS_FMT_JSONLD, /* application/ld+json (expanded form) */
  HS_FMT_COUNT_
} hs_fmt_t;

/* The offer among offers[0..n) the Accept header value prefers (RFC 9110
 * §12.5.1: the most specific matching range gives an offer its q; the
 * highest q wins, ties go to the earlier offer). No header: offers[0].
 * HS_FMT_NONE when every offer has q = 0 (406). */
hs_fmt_t hs_accept_pick(const char *accept, const hs_fmt_t *offers, int n);
const char *hs_fmt_media_type(hs_fmt_t f);
/* Whether an Accept-Encoding header value takes gzip (q > 0, by name or
 * by "*"). */
bool hs_accept_gzip(const char *accept_encoding);
/* The format named by a media type (parameters ignored), or HS_FMT_NONE. */
hs_fmt_t hs_fmt_from_media_type(const char *mt, size_t len);

/* Decoded parameters of a query string or a form body (hs_params.c). */
typedef struct hs_param_s {
  const char *pm_key;
  const char *pm_val;
  size_t pm_len;             /* the value may hold NUL bytes (%00) */
} hs_param_t;

typedef struct hs_params_s {
  hs_param_t *ps_v;
  int ps_n, ps_cap;
} hs_params_t;

/* Adds every key=value of an application/x-www-form-urlencoded text
 * (WHATWG URL §5.1: '+' is a space, %XX a byte), copies in a. */
void hs_params_parse_form(hs_params_t *p, arena_t *a, const char *s, size_t n);
void hs_params_add(hs_params_t *p, arena_t *a, const char *key, const char *val, size_t len);
/* The first value of key, or NULL; *count how many there are. */
const hs_param_t *hs_params_get(const hs_params_t *p, const char *key, int *count);
/* The values of key, in order, as NUL-terminated strings in a. */
const char **hs_params_all(const hs_params_t *p, arena_t *a, const char *key, int *n);

/* One request, from its first header to its completion (MHD's con_cls).
 * Touched only by the connection's thread, except rq_sess, which the
 * watchdog may cancel under sv_mu while rq_listed. */
struct hs_req_s {
  hs_server_t *rq_srv;
  struct MHD_Connection *rq_conn;
  hs_conn_t *rq_tcp;         /* its connection's deadline */
  arena_t *rq_arena;         /* the request: parameters, decoded text */
  arena_t *rq_batch;         /* reset per result batch: decoded terms */
  char *rq_body;             /* the body so far (malloc) */
  size_t rq_body_len, rq_body_cap;
  bool rq_body_too_big;      /* 413 once the body has been read */
  bool rq_answered;          /* a response is queued */
  /* the statement */
  esession_t *rq_sess;
  estmt_t *rq_stmt;
  eportal_t *rq_portal;
  esparql_form_t rq_form;
  hs_fmt_t rq_fmt;
  int rq_ncols;              /* result variables (CONSTRUCT: 3, ASK: 0) */
  int *rq_colmap;            /* variable i is the statement's column rq_colmap[i] */
  rdf_term_t *rq_row;        /* rq_ncols terms */
  rdf_results_t *rq_results; /* SELECT / ASK */
  rdf_writer_t *rq_writer;   /* CONSTRUCT / DESCRIBE */
  bool rq_more;              /* the portal has rows left */
  int64_t rq_rows_left;      /* rows ResultSetMaxRows still allows; -1 = no cap */
  bool rq_cut;               /* the result stopped at ResultSetMaxRows with rows left */
  bool rq_finished;          /* the writer has written its end */
  bool rq_failed;            /* a step failed after the status line went out */
  bool rq_gzip;              /* the body is gzip-compressed (Accept-Encoding) */
  bool rq_z_open;            /* rq_z initialised */
  z_stream rq_z;
  /* output produced (compressed when rq_gzip) but not yet taken by MHD */
  char *rq_out;
  size_t rq_out_len, rq_out_off, rq_out_cap;
  /* for /metrics */
  hs_kind_t rq_kind;
  unsigned rq_status;        /* the status queued (0: none) */
  uint64_t rq_start_ns;      /* when the request was whole */
  bool rq_store_default;     /* the query's default graph is the store's (Graph Store GET) */
  const char *rq_user;       /* the user, when the caller checked the credentials already */
  bool rq_need_auth;         /* an -auth path: credentials required (401 without) */
  bool rq_digest_stale;      /* a Digest response with an old nonce: the 401 says stale=true */
  const char *rq_allow;      /* the Allow header of a 405 (NULL: "GET, POST") */
  /* the watchdog's list (sv_mu) */
  uint64_t rq_deadline_ns;   /* 0 = none */
  bool rq_listed;
  bool rq_timed_out;
  hs_req_t *rq_prev, *rq_next;
};

/* hs_server.c */
enum MHD_Result hs_reply(hs_req_t *r, unsigned status, const char *content_type, const char *body,
                         size_t len);
enum MHD_Result hs_reply_error(hs_req_t *r, unsigned status, const char *fmt, ...) CZ_PRINTF(3, 4);
/* The HTTP status of an engine error (README.md "Errors"). */
unsigned hs_status_of(const err_t *e);
/* Opens the request's session as user and puts it on the watchdog's list. */
int hs_session_begin(hs_req_t *r, const char *user, err_t *e);
/* Takes it off the list and closes it (and the statement). */
void hs_session_end(hs_req_t *r);

/* hs_auth.c: the Authorization header's text after its scheme word
 * (case-blind, e.g. "Basic"), blanks skipped; NULL when the request has no
 * such header, *other set when it has one of another scheme. */
const char *hs_auth_credentials(hs_req_t *r, const char *scheme, bool *other);

/* hs_auth.c: the request's Basic credentials: 1 (*user, in the request's
 * arena) when they name a role that may log in with that password, 0 when
 * there are none, -1 when they are wrong, malformed or of another scheme
 * (401). */
int hs_auth_basic(hs_req_t *r, const char **user);

/* hs_digest.c: the request's Digest credentials ([HTTPServer]
 * DigestRealm): 1 (*user) when they are right for a role with a Digest
 * hash, 0 when there are none, -1 when wrong (rq_digest_stale when only
 * the nonce was too old). A 401 with the Digest challenge queued. */
int hs_auth_digest(hs_req_t *r, const char **user);
enum MHD_Result hs_digest_queue_401(hs_req_t *r, struct MHD_Response *resp);

/* The user a request runs as: its Basic credentials' role, else the
 * configured User; update says it changes data ([SPARQL] AllowUpdate).
 * NULL when the request was answered (401, 403) — *rc is then the
 * handler's return. */
const char *hs_auth_user(hs_req_t *r, bool update, enum MHD_Result *rc);

/* hs_metrics.c: counts a request at its completion (completed: it ended
 * well); GET /metrics. */
void hs_metrics_record(hs_req_t *r, bool completed);
enum MHD_Result hs_metrics_reply(hs_req_t *r);

/* hs_gsp.c: the SPARQL 1.1 Graph Store HTTP Protocol at HS_GSP_PATH. */
#define HS_GSP_PATH "/sparql-graph-crud"
enum MHD_Result hs_gsp_run(hs_req_t *r, const char *method, const hs_params_t *p);

/* hs_sparql.c: a SPARQL Protocol operation (query or update text). */
enum MHD_Result hs_sparql_run(hs_req_t *r, const char *text, size_t len, bool update,
                              const hs_params_t *p);

/* hs_sql.c: POST /sql, one SQL statement's result as JSON (the page's
 * SQL and plans). */
enum MHD_Result hs_sql_run(hs_req_t *r, const char *text, size_t len, const hs_params_t *p);

/* The query page's static files, embedded at build time (hs_www_gen.c,
 * made by www_embed.sh from libsrc/net/www/). */
typedef struct hs_www_file_s {
  const char *wf_path;   /* "/index.html" */
  const char *wf_type;   /* Content-Type */
  const char *wf_etag;   /* quoted entity tag */
  const unsigned char *wf_data;
  size_t wf_len;
} hs_www_file_t;
extern const hs_www_file_t hs_www_files[];
extern const int hs_www_nfiles;

/* hs_www.c: the file a GET of url serves ("/" and "/sparql" without a
 * query are index.html), or NULL; its answer (200, or 304 for a matching
 * If-None-Match). */
const hs_www_file_t *hs_www_find(const char *url);
enum MHD_Result hs_www_reply(hs_req_t *r, const hs_www_file_t *f);

#endif /* CZ_HS_INT_H */
