/* hs_metrics — GET /metrics: the server's counters in the Prometheus text
 * exposition format (version 0.0.4): the HTTP server's requests, SPARQL
 * queries and updates, their errors and a latency histogram, and the
 * engine's buffer pool (hits, misses, read-ahead, dirty pages) and open
 * sessions.
 *
 * Design notes: the HTTP counters are atomics bumped once per request at
 * its completion (hs_metrics_record), so counting costs a few relaxed
 * increments and no lock; a scrape reads them without stopping anyone,
 * so one scrape may see a request counted and its latency not yet (each
 * counter is exact, their sums agree once the request is done). The
 * histogram keeps a count per bucket and turns them into Prometheus's
 * cumulative "le" buckets when written. The engine's figures come from
 * engine_stats (a lock per buffer-pool shard). The endpoint needs no
 * credentials, as scrapers expect: it shows counts, never query text or
 * names. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/hs_int.h"

/* Upper bounds of the latency buckets, seconds (Prometheus's defaults);
 * the last bucket, +Inf, is implicit. */
static const double hs_lat_bounds[HS_LAT_BUCKETS - 1] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                         0.5,   1,    2.5,   5,    10};

void hs_metrics_record(hs_req_t *r, bool completed)
{
  hs_metrics_t *m = &r->rq_srv->sv_metrics;
  atomic_fetch_add_explicit(&m->hm_requests, 1, memory_order_relaxed);
  bool failed = !completed || r->rq_failed || r->rq_status >= 400 || r->rq_status == 0;
  if (failed)
    atomic_fetch_add_explicit(&m->hm_http_errors, 1, memory_order_relaxed);
  if (r->rq_kind == HS_KIND_NONE || !r->rq_start_ns)
    return;
  _Atomic uint64_t *count = r->rq_kind == HS_KIND_QUERY    ? &m->hm_queries
                            : r->rq_kind == HS_KIND_UPDATE ? &m->hm_updates
                                                           : &m->hm_gsp;
  atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
  if (failed)
    atomic_fetch_add_explicit(&m->hm_sparql_errors, 1, memory_order_relaxed);
  uint64_t ns = time_now_ns() - r->rq_start_ns;
  double s = (double)ns / 1e9;
  int b = 0;
  while (b < HS_LAT_BUCKETS - 1 && s > hs_lat_bounds[b])
    b++;
  atomic_fetch_add_explicit(&m->hm_lat[b], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&m->hm_lat_sum_ns, ns, memory_order_relaxed);
}

typedef struct hs_text_s {
  char *t_buf;
  size_t t_len, t_cap;
  bool t_failed;
} hs_text_t;

static void put(hs_text_t *t, const char *fmt, ...) CZ_PRINTF(2, 3);
static void put(hs_text_t *t, const char *fmt, ...)
{
  if (t->t_failed)
    return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->t_buf + t->t_len, t->t_cap - t->t_len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      t->t_failed = true;
      return;
    }
    if ((size_t)n < t->t_cap - t->t_len) {
      t->t_len += (size_t)n;
      return;
    }
    size_t cap = t->t_cap * 2 + (size_t)n + 1;
    char *b = realloc(t->t_buf, cap);
    if (!b) {
      t->t_failed = true;
      return;
    }
    t->t_buf = b;
    t->t_cap = cap;
  }
}

static void counter(hs_text_t *t, const char *name, const char *help, uint64_t v)
{
  put(t, "# HELP %s %s\n# TYPE %s counter\n%s %" PRIu64 "\n", name, help, name, name, v);
}

static void gauge(hs_text_t *t, const char *name, const char *help, int64_t v)
{
  put(t, "# HELP %s %s\n# TYPE %s gauge\n%s %" PRId64 "\n", name, help, name, name, v);
}

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)

enum MHD_Result hs_metrics_reply(hs_req_t *r)
{
  hs_metrics_t *m = &r->rq_srv->sv_metrics;
  hs_text_t t = {.t_buf = malloc(8192), .t_cap = 8192};
  if (!t.t_buf)
    return MHD_NO;
  t.t_buf[0] = '\0';
  counter(&t, "cadenza_http_requests_total", "HTTP requests answered (every path).",
          LOAD(m->hm_requests));
  counter(&t, "cadenza_http_errors_total",
          "HTTP requests answered with a 4xx or 5xx status, or whose answer broke off.",
          LOAD(m->hm_http_errors));
  counter(&t, "cadenza_sparql_queries_total", "SPARQL queries over HTTP (/sparql).",
          LOAD(m->hm_queries));
  counter(&t, "cadenza_sparql_updates_total", "SPARQL updates over HTTP (/sparql).",
          LOAD(m->hm_updates));
  counter(&t, "cadenza_sparql_graph_store_requests_total",
          "Graph Store Protocol requests (/sparql-graph-crud).", LOAD(m->hm_gsp));
  counter(&t, "cadenza_sparql_errors_total",
          "SPARQL queries, updates and Graph Store requests that failed (4xx, 5xx, broken "
          "stream).",
          LOAD(m->hm_sparql_errors));
  const char *h = "cadenza_sparql_request_duration_seconds";
  put(&t,
      "# HELP %s Time from a whole SPARQL or Graph Store request to its last byte handed to "
      "the client.\n# TYPE %s histogram\n",
      h, h);
  uint64_t cum = 0;
  for (int b = 0; b < HS_LAT_BUCKETS; b++) {
    cum += LOAD(m->hm_lat[b]);
    if (b < HS_LAT_BUCKETS - 1)
      put(&t, "%s_bucket{le=\"%g\"} %" PRIu64 "\n", h, hs_lat_bounds[b], cum);
    else
      put(&t, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n", h, cum);
  }
  put(&t, "%s_sum %.6f\n%s_count %" PRIu64 "\n", h, (double)LOAD(m->hm_lat_sum_ns) / 1e9, h, cum);
  estats_t es;
  engine_stats(r->rq_srv->sv_eng, &es);
  counter(&t, "cadenza_buffer_hits_total", "Page fixes that found the page in the buffer pool.",
          es.es_buf_hits);
  counter(&t, "cadenza_buffer_misses_total", "Pages read from disk one at a time on demand.",
          es.es_buf_misses);
  counter(&t, "cadenza_buffer_readahead_requests_total", "Extent read-aheads issued.",
          es.es_ra_requests);
  counter(&t, "cadenza_buffer_readahead_pages_read_total", "Pages read by read-ahead.",
          es.es_ra_pages_read);
  counter(&t, "cadenza_buffer_readahead_pages_used_total",
          "Pages read by read-ahead that were used afterwards.", es.es_ra_pages_used);
  counter(&t, "cadenza_buffer_pages_written_total", "Pages written from the buffer pool.",
          es.es_pages_written);
  counter(&t, "cadenza_buffer_evictions_total", "Pages evicted from the buffer pool.",
          es.es_evictions);
  counter(&t, "cadenza_buffer_dirty_evictions_total",
          "Evictions that had to write a dirty page first.", es.es_dirty_evictions);
  gauge(&t, "cadenza_buffers", "Frames in the buffer pool.", es.es_buffers);
  gauge(&t, "cadenza_buffers_used", "Frames holding a page.", es.es_buffers_used);
  gauge(&t, "cadenza_buffers_dirty", "Frames holding a page changed since it was written.",
        es.es_buffers_dirty);
  gauge(&t, "cadenza_sessions", "Open sessions (SQL connections and HTTP requests running).",
        es.es_sessions);
  if (t.t_failed) {
    free(t.t_buf);
    return hs_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "53200: out of memory");
  }
  enum MHD_Result rc = hs_reply(r, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
                                t.t_buf, t.t_len);
  free(t.t_buf);
  return rc;
}
