/* hs_gsp — the SPARQL 1.1 Graph Store HTTP Protocol (W3C Recommendation,
 * 2013) at HS_GSP_PATH with indirect graph identification: `?graph=IRI`
 * names a graph, `?default` the store's default graph (g = 0).
 *
 * | method | does | answer |
 * | GET, HEAD | the graph's triples, negotiated like a CONSTRUCT | 200; 404 for a named graph without triples |
 * | PUT | replaces the graph with the body's triples | 201 if it was empty, else 204 |
 * | POST | adds the body's triples | 201 if it was empty, else 204 |
 * | DELETE | removes the graph | 204; 404 for a named graph without triples |
 *
 * Design notes: every operation goes through the SPARQL entries the
 * endpoint uses, so it has their rules and needs nothing of its own in
 * the engine: GET is `CONSTRUCT` over the graph (hs_sparql_run: the same
 * streaming, formats, gzip, ResultSetMaxRows), PUT is `DROP SILENT GRAPH
 * <g> ; INSERT DATA { GRAPH <g> { … } }`, POST the INSERT DATA alone,
 * DELETE the DROP — one update request, so one transaction
 * (esession_sparql_update), under the same privilege checks and the same
 * [SPARQL] AllowUpdate rule as SPARQL Update over HTTP. The body (Turtle
 * or N-Triples, at most MaxBodySize) is parsed by the RDF reader and
 * written back as N-Triples into the update text, so a malformed body is
 * a 400 naming its line before anything is changed, and every term in the
 * update is in the one form the update parser reads unambiguously (blank
 * nodes stay distinct per request, as INSERT DATA makes them fresh). The
 * store keeps no record of empty graphs (CLEAR and DROP are the same
 * there), so "the graph exists" means it has a triple. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/hs_int.h"

/* A growable text (the update). */
typedef struct gsp_text_s {
  char *gt_buf;
  size_t gt_len, gt_cap;
} gsp_text_t;

static int text_put(void *ctx, const char *buf, size_t len)
{
  gsp_text_t *t = ctx;
  if (t->gt_len + len + 1 > t->gt_cap) {
    size_t cap = CZ_MAX(t->gt_cap * 2, t->gt_len + len + 4096);
    char *b = realloc(t->gt_buf, cap);
    if (!b)
      return -1;
    t->gt_buf = b;
    t->gt_cap = cap;
  }
  memcpy(t->gt_buf + t->gt_len, buf, len);
  t->gt_len += len;
  t->gt_buf[t->gt_len] = '\0';
  return 0;
}

static int text_puts(gsp_text_t *t, const char *s)
{
  return text_put(t, s, strlen(s));
}

/* An IRI the update text can carry between < and > as it is: absolute
 * (a scheme), none of the characters IRIREF excludes. */
static bool iri_ok(const char *s, size_t n)
{
  if (n == 0 || n > 4096)
    return false;
  size_t i = 0;
  if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
    return false;
  while (i < n && s[i] != ':') {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '+' || c == '-' || c == '.'))
      return false;
    i++;
  }
  if (i == n)
    return false;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c <= 0x20 || strchr("<>\"{}|^`\\", c))
      return false;
  }
  return true;
}

typedef struct gsp_body_s {
  rdf_writer_t *gb_w;
} gsp_body_t;

static int body_quads(void *ctx, const rdf_quad_t *q, size_t n, err_t *e)
{
  gsp_body_t *b = ctx;
  for (size_t i = 0; i < n; i++)
    if (rdf_writer_quad(b->gb_w, &q[i]) != 0)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  return CZ_OK;
}

/* The body's triples as N-Triples lines appended to t; 415 or 400 when
 * the body is not Turtle or N-Triples or does not parse. */
static int body_to_nt(hs_req_t *r, const char *base, gsp_text_t *t, unsigned *status, err_t *e)
{
  const char *ct = MHD_lookup_connection_value(r->rq_conn, MHD_HEADER_KIND,
                                               MHD_HTTP_HEADER_CONTENT_TYPE);
  hs_fmt_t f = ct ? hs_fmt_from_media_type(ct, strlen(ct)) : HS_FMT_NONE;
  if (f != HS_FMT_TTL && f != HS_FMT_NT) {
    *status = MHD_HTTP_UNSUPPORTED_MEDIA_TYPE;
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "Content-Type %s is not supported: send text/turtle or application/n-triples",
                   ct ? ct : "(none)");
  }
  gsp_body_t b = {.gb_w = rdf_writer_new(RDF_SYNTAX_NTRIPLES, text_put, t, NULL)};
  if (!b.gb_w) {
    *status = MHD_HTTP_INTERNAL_SERVER_ERROR;
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  }
  rdf_read_opts_t o = {.ro_syntax = f == HS_FMT_NT ? RDF_SYNTAX_NTRIPLES : RDF_SYNTAX_TURTLE,
                       .ro_base = base, .ro_fn = body_quads, .ro_ctx = &b};
  int rc = rdf_read_mem("request body", r->rq_body ? r->rq_body : "", r->rq_body_len, &o, e);
  int wrc = rdf_writer_finish(b.gb_w);
  if (rc != CZ_OK) {
    *status = err_is(e, SQLSTATE_OUT_OF_MEMORY) ? MHD_HTTP_INTERNAL_SERVER_ERROR
                                                 : MHD_HTTP_BAD_REQUEST;
    return CZ_ERR;
  }
  if (wrc != 0) {
    *status = MHD_HTTP_INTERNAL_SERVER_ERROR;
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  }
  return CZ_OK;
}

static int ask_rows(void *ctx, const batch_t *b, err_t *e)
{
  (void)e;
  if (b->b_n > 0)
    *(bool *)ctx = b->b_cols[0].v_bool[0] != 0;
  return CZ_OK;
}

/* Whether the named graph g has a triple, in a session of user of its
 * own (closed before the operation's). */
static int graph_exists(hs_req_t *r, const char *user, const char *g, bool *out, err_t *e)
{
  *out = false;
  const char *q = arena_sprintf(r->rq_arena, "ASK { GRAPH <%s> { ?s ?p ?o } }", g);
  esparql_request_t req = {.sr_text = q, .sr_len = strlen(q)};
  esparql_form_t form;
  bool suspended = false;
  int rc = hs_session_begin(r, user, e);
  if (rc == CZ_OK)
    rc = esparql_prepare(r->rq_sess, &req, &r->rq_stmt, &form, e);
  if (rc == CZ_OK)
    rc = eportal_bind(r->rq_stmt, NULL, 0, &r->rq_portal, e);
  if (rc == CZ_OK)
    rc = eportal_execute(r->rq_portal, 0, ask_rows, out, &suspended, e);
  hs_session_end(r);
  return rc;
}

static enum MHD_Result engine_error(hs_req_t *r, const err_t *e)
{
  return hs_reply_error(r, hs_status_of(e), "%s: %s", e->er_sqlstate, e->er_msg);
}

enum MHD_Result hs_gsp_run(hs_req_t *r, const char *method, const hs_params_t *p)
{
  r->rq_kind = HS_KIND_GSP;
  r->rq_allow = "GET, HEAD, PUT, POST, DELETE";
  bool get = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
  bool put = !strcmp(method, MHD_HTTP_METHOD_PUT);
  bool post = !strcmp(method, MHD_HTTP_METHOD_POST);
  bool del = !strcmp(method, MHD_HTTP_METHOD_DELETE);
  if (!get && !put && !post && !del)
    return hs_reply_error(r, MHD_HTTP_METHOD_NOT_ALLOWED,
                          "%s is not allowed on %s: use GET, HEAD, PUT, POST or DELETE", method,
                          HS_GSP_PATH);
  int ng = 0, nd = 0;
  const hs_param_t *gp = hs_params_get(p, "graph", &ng);
  hs_params_get(p, "default", &nd);
  if (ng + nd != 1)
    return hs_reply_error(r, MHD_HTTP_BAD_REQUEST,
                          "name exactly one graph: ?graph=IRI or ?default (Graph Store "
                          "Protocol §4.2; %d given)",
                          ng + nd);
  const char *g = NULL;
  if (gp) {
    if (!iri_ok(gp->pm_val, gp->pm_len) || memchr(gp->pm_val, '\0', gp->pm_len))
      return hs_reply_error(r, MHD_HTTP_BAD_REQUEST,
                            "graph=%.200s: not an absolute IRI", gp->pm_val);
    g = gp->pm_val;
  }
  enum MHD_Result arc;
  const char *user = hs_auth_user(r, !get, &arc);
  if (!user)
    return arc;
  err_t e;
  err_clear(&e);
  bool existed = true;
  if (g && (get || put || post || del) && graph_exists(r, user, g, &existed, &e) != CZ_OK)
    return engine_error(r, &e);
  if (get) {
    if (!existed)
      return hs_reply_error(r, MHD_HTTP_NOT_FOUND, "graph <%s> has no triples", g);
    r->rq_user = user;
    r->rq_store_default = g == NULL;
    const char *q = g ? arena_sprintf(r->rq_arena,
                                      "CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <%s> { ?s ?p ?o } }", g)
                      : "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }";
    static const hs_params_t none = {0};
    return hs_sparql_run(r, q, strlen(q), false, &none);
  }
  if (del && !existed)
    return hs_reply_error(r, MHD_HTTP_NOT_FOUND, "graph <%s> has no triples", g);
  gsp_text_t t = {0};
  const char *gref = g ? arena_sprintf(r->rq_arena, "GRAPH <%s>", g) : "DEFAULT";
  int rc = 0;
  if (put || del)
    rc |= text_puts(&t, "DROP SILENT ") | text_puts(&t, gref) | text_puts(&t, " ;\n");
  if (put || post) {
    rc |= text_puts(&t, "INSERT DATA {\n");
    if (g)
      rc |= text_puts(&t, gref) | text_puts(&t, " {\n");
    if (rc != 0) {
      free(t.gt_buf);
      return hs_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "53200: out of memory");
    }
    const char *host = MHD_lookup_connection_value(r->rq_conn, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_HOST);
    const char *base =
        g ? g : arena_sprintf(r->rq_arena, "http://%s%s", host ? host : r->rq_srv->sv_addr,
                              HS_GSP_PATH);
    unsigned status = 0;
    if (body_to_nt(r, base, &t, &status, &e) != CZ_OK) {
      free(t.gt_buf);
      return hs_reply_error(r, status, "%s: %s", e.er_sqlstate, e.er_msg);
    }
    rc |= text_puts(&t, g ? "}\n}\n" : "}\n");
  }
  if (rc != 0) {
    free(t.gt_buf);
    return hs_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "53200: out of memory");
  }
  int64_t ins = 0, delq = 0;
  int urc = hs_session_begin(r, user, &e);
  if (urc == CZ_OK)
    urc = esession_sparql_update(r->rq_sess, t.gt_buf, t.gt_len, g, NULL, 0, NULL, 0, &ins, &delq,
                                 &e);
  hs_session_end(r);
  free(t.gt_buf);
  if (urc != CZ_OK)
    return engine_error(r, &e);
  return hs_reply(r, (put || post) && !existed ? MHD_HTTP_CREATED : MHD_HTTP_NO_CONTENT, NULL, "",
                  0);
}
