/* hs_sparql — one SPARQL 1.1 Protocol operation: a query or an update,
 * prepared through the engine's one SPARQL entry (esparql_prepare), run as
 * a portal in steps of HS_STEP_ROWS rows, each step's rows written by the
 * results writer of the negotiated format into the output buffer that
 * libmicrohttpd's content reader drains.
 *
 * Design notes: the first step runs before the response is created, so
 * compile errors and the errors of the first rows (a timeout, a bad
 * privilege, memory) get their HTTP status and a message; a result that
 * fits in that step goes out with a Content-Length. Longer results are
 * sent chunked, one step at a time as the client takes them, so no result
 * is ever held whole and there is no cap on its size. An error after the
 * status line has gone out can only break the stream: the response ends
 * without its last chunk, which clients see as a failed transfer (and it
 * is logged), never as a complete short answer. The engine hands over each
 * term in N-Triples form (engine.h); rdf_term_from_nt turns it back into a
 * term for the writers. With Accept-Encoding: gzip the output buffer gets
 * the deflated bytes, flushed (Z_SYNC_FLUSH) at the end of every step so
 * that what a step produced reaches the client at once. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/hs_int.h"

#define HS_STEP_ROWS 2048

/* Room for at least want more bytes in the output buffer. */
static int hs_out_room(hs_req_t *r, size_t want)
{
  if (r->rq_out_len + want <= r->rq_out_cap)
    return 0;
  size_t cap = CZ_MAX(r->rq_out_cap * 2, r->rq_out_len + want + 64 * 1024);
  char *b = realloc(r->rq_out, cap);
  if (!b)
    return -1;
  r->rq_out = b;
  r->rq_out_cap = cap;
  return 0;
}

/* Compresses len bytes (none with a flush) into the output buffer. */
static int hs_deflate(hs_req_t *r, const char *buf, size_t len, int flush)
{
  z_stream *z = &r->rq_z;
  z->next_in = (Bytef *)buf;
  z->avail_in = (uInt)len;
  do {
    if (hs_out_room(r, 16 * 1024) != 0)
      return -1;
    z->next_out = (Bytef *)r->rq_out + r->rq_out_len;
    z->avail_out = (uInt)(r->rq_out_cap - r->rq_out_len);
    size_t before = z->avail_out;
    int zr = deflate(z, flush);
    if (zr == Z_STREAM_ERROR)
      return -1;
    r->rq_out_len += before - z->avail_out;
    if (zr == Z_STREAM_END)
      break;
  } while (z->avail_in > 0 || z->avail_out == 0);
  return 0;
}

static int hs_sink(void *ctx, const char *buf, size_t len)
{
  hs_req_t *r = ctx;
  if (r->rq_gzip)
    return hs_deflate(r, buf, len, Z_NO_FLUSH);
  if (hs_out_room(r, len) != 0)
    return -1;
  memcpy(r->rq_out + r->rq_out_len, buf, len);
  r->rq_out_len += len;
  return 0;
}

static int term_at(hs_req_t *r, const vec_t *v, int i, rdf_term_t *t, err_t *e)
{
  if (v->v_null[i]) {
    memset(t, 0, sizeof *t);
    return CZ_OK;
  }
  const str_t *s = &v->v_str[i];
  if (rdf_term_from_nt(r->rq_batch, s->s_ptr, s->s_len, t, e) == CZ_OK)
    return CZ_OK;
  /* the engine's value, not the client's request: a 500, not a 400 */
  char msg[sizeof e->er_msg];
  snprintf(msg, sizeof msg, "%s", e->er_msg);
  return err_set(e, SQLSTATE_INTERNAL, "a result value is no RDF term (a compiler bug): %s", msg);
}

static int hs_rows(void *ctx, const batch_t *b, err_t *e)
{
  hs_req_t *r = ctx;
  arena_reset(r->rq_batch);
  if (r->rq_rows_left > 0)
    r->rq_rows_left -= CZ_MIN(r->rq_rows_left, (int64_t)b->b_n);
  if (r->rq_form == ESPARQL_ASK) {
    if (b->b_n > 0 && rdf_results_boolean(r->rq_results, b->b_cols[0].v_bool[0] != 0) != 0)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "writing the result failed");
    return CZ_OK;
  }
  for (int i = 0; i < b->b_n; i++) {
    for (int c = 0; c < r->rq_ncols; c++)
      if (term_at(r, &b->b_cols[r->rq_colmap[c]], i, &r->rq_row[c], e) != CZ_OK)
        return CZ_ERR;
    int rc;
    if (r->rq_writer) {
      rdf_quad_t q = {.rq_s = r->rq_row[0], .rq_p = r->rq_row[1], .rq_o = r->rq_row[2]};
      if (q.rq_s.rt_kind == RDF_NONE || q.rq_p.rt_kind == RDF_NONE || q.rq_o.rt_kind == RDF_NONE)
        continue; /* a template triple with an unbound variable makes no triple */
      rc = rdf_writer_quad(r->rq_writer, &q);
    } else {
      rc = rdf_results_row(r->rq_results, r->rq_row);
    }
    if (rc != 0)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "writing the result failed");
  }
  return CZ_OK;
}

/* Runs the next step; at the end writes the format's closing part. */
static int count_rows(void *ctx, const batch_t *b, err_t *e)
{
  (void)e;
  *(int64_t *)ctx += b->b_n;
  return CZ_OK;
}

static int hs_step(hs_req_t *r, err_t *e)
{
  bool suspended = false;
  int64_t want = HS_STEP_ROWS;
  if (r->rq_rows_left >= 0)
    want = CZ_MIN(want, r->rq_rows_left);
  int xrc;
  if (want > 0) {
    xrc = eportal_execute(r->rq_portal, want, hs_rows, r, &suspended, e);
  } else {
    /* ResultSetMaxRows reached: the result is cut only if a row is left
     * (a portal that stops at its limit is suspended even when nothing
     * follows) */
    int64_t more = 0;
    xrc = eportal_execute(r->rq_portal, 1, count_rows, &more, &suspended, e);
    r->rq_cut = more > 0;
    suspended = false;
  }
  if (xrc != CZ_OK) {
    if (r->rq_timed_out && err_is(e, SQLSTATE_QUERY_CANCELED))
      err_set(e, SQLSTATE_QUERY_CANCELED,
              "the query ran longer than MaxQueryExecutionTime (%d s) and was stopped",
              r->rq_srv->sv_cfg.hc_query_timeout_s);
    return CZ_ERR;
  }
  r->rq_more = suspended;
  if (!suspended) {
    int rc = 0;
    if (r->rq_results && r->rq_cut)
      rdf_results_truncated(r->rq_results, (uint64_t)r->rq_srv->sv_cfg.hc_max_rows);
    if (r->rq_results) {
      rc = rdf_results_finish(r->rq_results);
      r->rq_results = NULL;
    } else if (r->rq_writer) {
      rc = rdf_writer_finish(r->rq_writer);
      r->rq_writer = NULL;
    }
    r->rq_finished = true;
    if (rc == 0 && r->rq_gzip)
      rc = hs_deflate(r, NULL, 0, Z_FINISH);
    if (rc != 0)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "writing the result failed");
  } else if ((r->rq_results ? rdf_results_flush(r->rq_results)
                             : rdf_writer_flush(r->rq_writer)) != 0 ||
             (r->rq_gzip && hs_deflate(r, NULL, 0, Z_SYNC_FLUSH) != 0)) {
    /* a step's rows go out whole, compressed or not */
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "writing the result failed");
  }
  return CZ_OK;
}

/* MHD's content reader: hands out what the last step wrote, running the
 * next step when it is all gone. */
static ssize_t hs_read(void *cls, uint64_t pos, char *buf, size_t max)
{
  (void)pos;
  hs_req_t *r = cls;
  while (r->rq_out_off == r->rq_out_len) {
    r->rq_out_off = r->rq_out_len = 0;
    if (r->rq_finished || r->rq_failed) {
      hs_session_end(r); /* the session is not held while the connection idles */
      return r->rq_failed ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
    }
    err_t e;
    err_clear(&e);
    if (hs_step(r, &e) != CZ_OK) {
      log_warn("http: a streamed SPARQL result broke off: %s (%s)", e.er_msg, e.er_sqlstate);
      r->rq_failed = true;
      r->rq_out_len = 0; /* half a row must not go out as if it were whole */
    }
  }
  size_t n = CZ_MIN(max, r->rq_out_len - r->rq_out_off);
  memcpy(buf, r->rq_out + r->rq_out_off, n);
  r->rq_out_off += n;
  return (ssize_t)n;
}

static enum MHD_Result hs_reply_engine_error(hs_req_t *r, const err_t *e)
{
  unsigned status = hs_status_of(e);
  hs_session_end(r);
  return hs_reply_error(r, status, "%s: %s", e->er_sqlstate, e->er_msg);
}

static const char *form_name(esparql_form_t f)
{
  static const char *const names[] = {"SELECT", "ASK", "CONSTRUCT", "DESCRIBE"};
  return names[f];
}

static const char *content_type(hs_fmt_t f)
{
  switch (f) {
  case HS_FMT_CSV:
    return "text/csv; charset=utf-8";
  case HS_FMT_TSV:
    return "text/tab-separated-values; charset=utf-8";
  case HS_FMT_TTL:
    return "text/turtle; charset=utf-8";
  default:
    return hs_fmt_media_type(f);
  }
}

/* An update request: one transaction through the engine's update entry;
 * the answer says how many quads it added and removed, or is the error. */
static enum MHD_Result hs_run_update(hs_req_t *r, const char *text, size_t len, const char *base,
                                     const char **dg, int nd, const char **ng, int nn)
{
  err_t e;
  err_clear(&e);
  int64_t ins = 0, del = 0;
  if (esession_sparql_update(r->rq_sess, text, len, base, dg, nd, ng, nn, &ins, &del, &e) != CZ_OK)
    return hs_reply_engine_error(r, &e);
  char msg[128];
  int n = snprintf(msg, sizeof msg, "update done: %" PRId64 " quads inserted, %" PRId64 " deleted\n",
                   ins, del);
  hs_session_end(r);
  return hs_reply(r, MHD_HTTP_OK, "text/plain; charset=utf-8", msg,
                  (size_t)CZ_MIN(n, (int)sizeof msg - 1));
}

/* Sets up the writer of the negotiated format for the statement's rows.
 * The variables are the text columns; a column whose name begins with '?'
 * (no SPARQL variable can) is the compiler's own — the "?unit" of a
 * query without variables — and not part of the result. */
static int hs_writer_begin(hs_req_t *r, err_t *e)
{
  const ecol_t *cols;
  int n;
  estmt_columns(r->rq_stmt, &cols, &n);
  bool graph = r->rq_form == ESPARQL_CONSTRUCT || r->rq_form == ESPARQL_DESCRIBE;
  r->rq_colmap = arena_alloc(r->rq_arena, (size_t)CZ_MAX(n, 1) * sizeof *r->rq_colmap);
  const char **vars = arena_alloc(r->rq_arena, (size_t)CZ_MAX(n, 1) * sizeof *vars);
  r->rq_ncols = 0;
  if (r->rq_form == ESPARQL_ASK) {
    if (n != 1 || ty_phys(cols[0].ec_type.t_id) != TP_BOOL)
      return err_set(e, SQLSTATE_INTERNAL, "an ASK compiled to something else than one boolean");
  } else {
    for (int i = 0; i < n && (!graph || r->rq_ncols < 3); i++) {
      if (!graph && cols[i].ec_name[0] == '?')
        continue;
      if (ty_phys(cols[i].ec_type.t_id) != TP_STR)
        return err_set(e, SQLSTATE_INTERNAL,
                       "the compiled query's column %s holds no RDF terms (a compiler bug)",
                       cols[i].ec_name);
      vars[r->rq_ncols] = cols[i].ec_name;
      r->rq_colmap[r->rq_ncols++] = i;
    }
    if (graph && r->rq_ncols < 3)
      return err_set(e, SQLSTATE_INTERNAL, "a %s compiled to %d columns, not 3",
                     form_name(r->rq_form), n);
  }
  const char *ae = MHD_lookup_connection_value(r->rq_conn, MHD_HEADER_KIND,
                                               MHD_HTTP_HEADER_ACCEPT_ENCODING);
  if (hs_accept_gzip(ae)) {
    /* windowBits 15 + 16: a gzip wrapper, not zlib's */
    if (deflateInit2(&r->rq_z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
    r->rq_z_open = true;
    r->rq_gzip = true;
  }
  if (graph) {
    r->rq_writer = rdf_writer_new(r->rq_fmt == HS_FMT_NT       ? RDF_SYNTAX_NTRIPLES
                                  : r->rq_fmt == HS_FMT_JSONLD ? RDF_SYNTAX_JSONLD
                                                               : RDF_SYNTAX_TURTLE,
                                  hs_sink, r, NULL);
  } else {
    static const rdf_results_fmt_t fmts[HS_FMT_COUNT_] = {
        [HS_FMT_JSON] = RDF_RESULTS_JSON, [HS_FMT_XML] = RDF_RESULTS_XML,
        [HS_FMT_CSV] = RDF_RESULTS_CSV, [HS_FMT_TSV] = RDF_RESULTS_TSV};
    r->rq_results = rdf_results_new(fmts[r->rq_fmt], hs_sink, r);
    if (r->rq_results && r->rq_form == ESPARQL_SELECT &&
        rdf_results_head(r->rq_results, vars, (size_t)r->rq_ncols) != 0)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "writing the result failed");
  }
  if (!r->rq_writer && !r->rq_results)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  r->rq_row = arena_alloc(r->rq_arena, (size_t)CZ_MAX(r->rq_ncols, 1) * sizeof *r->rq_row);
  r->rq_batch = arena_create(NULL, "http result batch");
  return CZ_OK;
}

enum MHD_Result hs_sparql_run(hs_req_t *r, const char *text, size_t len, bool update,
                              const hs_params_t *p)
{
  hs_server_t *sv = r->rq_srv;
  if (r->rq_kind == HS_KIND_NONE)
    r->rq_kind = update ? HS_KIND_UPDATE : HS_KIND_QUERY;
  enum MHD_Result arc;
  const char *user = r->rq_user ? r->rq_user : hs_auth_user(r, update, &arc);
  if (!user)
    return arc;
  if (memchr(text, '\0', len))
    return hs_reply_error(r, MHD_HTTP_BAD_REQUEST, "the %s text holds a NUL byte",
                          update ? "update" : "query");
  int nd, nn;
  const char **dg = hs_params_all(p, r->rq_arena, update ? "using-graph-uri" : "default-graph-uri",
                                  &nd);
  const char **ng = hs_params_all(
      p, r->rq_arena, update ? "using-named-graph-uri" : "named-graph-uri", &nn);
  err_t e;
  err_clear(&e);
  if (hs_session_begin(r, user, &e) != CZ_OK)
    return hs_reply_engine_error(r, &e);
  /* The base of relative IRIs is the request's own IRI, as Jena and
   * Oxigraph take it (the Protocol names none). */
  const char *host = MHD_lookup_connection_value(r->rq_conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_HOST);
  const char *base = arena_sprintf(r->rq_arena, "http://%s/sparql", host ? host : sv->sv_addr);
  if (update)
    return hs_run_update(r, text, len, base, dg, nd, ng, nn);
  esparql_request_t req = {.sr_text = text, .sr_len = len, .sr_base = base,
                           .sr_default = dg, .sr_ndefault = nd, .sr_named = ng, .sr_nnamed = nn,
                           .sr_store_default = sv->sv_cfg.hc_store_default || r->rq_store_default};
  if (esparql_prepare(r->rq_sess, &req, &r->rq_stmt, &r->rq_form, &e) != CZ_OK)
    return hs_reply_engine_error(r, &e);
  static const hs_fmt_t solutions[] = {HS_FMT_JSON, HS_FMT_XML, HS_FMT_CSV, HS_FMT_TSV};
  static const hs_fmt_t graphs[] = {HS_FMT_TTL, HS_FMT_NT, HS_FMT_JSONLD};
  bool graph = r->rq_form == ESPARQL_CONSTRUCT || r->rq_form == ESPARQL_DESCRIBE;
  const char *accept = MHD_lookup_connection_value(r->rq_conn, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_ACCEPT);
  r->rq_fmt = graph ? hs_accept_pick(accept, graphs, (int)CZ_ARRAY_LEN(graphs))
                    : hs_accept_pick(accept, solutions, (int)CZ_ARRAY_LEN(solutions));
  if (r->rq_fmt == HS_FMT_NONE) {
    hs_session_end(r);
    return hs_reply_error(r, MHD_HTTP_NOT_ACCEPTABLE,
                          "no format the Accept header allows (%s) can carry a %s result: "
                          "the server offers %s",
                          accept, form_name(r->rq_form),
                          graph ? "text/turtle, application/n-triples, application/ld+json"
                                : "application/sparql-results+json, "
                                  "application/sparql-results+xml, text/csv, "
                                  "text/tab-separated-values");
  }
  if (eportal_bind(r->rq_stmt, NULL, 0, &r->rq_portal, &e) != CZ_OK)
    return hs_reply_engine_error(r, &e);
  r->rq_rows_left = sv->sv_cfg.hc_max_rows > 0 && r->rq_form != ESPARQL_ASK
                        ? sv->sv_cfg.hc_max_rows
                        : -1;
  if (hs_writer_begin(r, &e) != CZ_OK || hs_step(r, &e) != CZ_OK) {
    r->rq_out_len = 0;
    return hs_reply_engine_error(r, &e);
  }
  /* Under ResultSetMaxRows the (bounded) result is made whole before the
   * status line, so that the header can say whether it was cut. */
  while (r->rq_rows_left >= 0 && !r->rq_finished)
    if (hs_step(r, &e) != CZ_OK) {
      r->rq_out_len = 0;
      return hs_reply_engine_error(r, &e);
    }
  struct MHD_Response *resp;
  if (r->rq_finished) {
    hs_session_end(r);
    resp = MHD_create_response_from_buffer(r->rq_out_len, r->rq_out, MHD_RESPMEM_MUST_COPY);
  } else {
    resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, hs_read, r, NULL);
  }
  if (!resp) {
    hs_session_end(r);
    return MHD_NO;
  }
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type(r->rq_fmt));
  MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
  if (r->rq_gzip)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
  if (r->rq_cut) {
    char cap[24];
    snprintf(cap, sizeof cap, "%" PRId64, sv->sv_cfg.hc_max_rows);
    MHD_add_response_header(resp, "X-SPARQL-MaxRows", cap);
  }
  enum MHD_Result rc = MHD_queue_response(r->rq_conn, MHD_HTTP_OK, resp);
  MHD_destroy_response(resp);
  r->rq_answered = true;
  r->rq_status = MHD_HTTP_OK;
  return rc;
}
