/* hs_sql — POST /sql: one SQL statement from the query page, its result as
 * JSON ({"columns":[{"name","type"}…], "rows":[[text or null…]…],
 * "truncated":bool, "tag":"SELECT 3"}), so the page can show SQL results
 * and EXPLAIN ANALYZE plans (of SQL and of `SPARQL …` statements).
 *
 * Safety (README "The query page"): SQL can do anything the role may, so
 * this is a login, not an anonymous endpoint. Every request must carry
 * HTTP Basic credentials of a role that may log in (401 otherwise, also
 * when [SPARQL] AllowUpdate = yes), and runs as that role under its
 * privileges, exactly as a psql session with the same password would;
 * `AllowUpdate = no` turns /sql off (403), since SQL may write. The body
 * must be `Content-Type: application/sql`: a cross-site HTML form cannot
 * send that type, and a cross-site script that sets it needs a CORS
 * preflight this server never grants, so a page elsewhere cannot make a
 * browser holding the user's credentials run SQL here. One statement per
 * request (esession_split), run outside any block so it commits or rolls
 * back on its own; COPY is refused. At most max_rows rows (default 1000,
 * at most HS_SQL_MAX_ROWS) are returned, the rest is cut and "truncated"
 * says so: the answer is built whole in memory, unlike /sparql's stream.
 * A reading statement stops at the cut; one that writes runs to its end
 * (sql_reads_only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/hs_int.h"

#define HS_SQL_DEFAULT_ROWS 1000
#define HS_SQL_MAX_ROWS 10000

typedef struct jbuf_s {
  char *jb_p;
  size_t jb_len, jb_cap;
  bool jb_oom;
} jbuf_t;

static char *jb_room(jbuf_t *b, size_t want)
{
  if (b->jb_oom)
    return NULL;
  if (b->jb_len + want > b->jb_cap) {
    size_t cap = b->jb_cap ? b->jb_cap : 4096;
    while (cap < b->jb_len + want)
      cap *= 2;
    char *p = realloc(b->jb_p, cap);
    if (!p) {
      b->jb_oom = true;
      return NULL;
    }
    b->jb_p = p;
    b->jb_cap = cap;
  }
  return b->jb_p + b->jb_len;
}

static void jb_put(jbuf_t *b, const char *s, size_t n)
{
  char *p = jb_room(b, n);
  if (p) {
    memcpy(p, s, n);
    b->jb_len += n;
  }
}

static void jb_lit(jbuf_t *b, const char *s)
{
  jb_put(b, s, strlen(s));
}

/* s as a JSON string (RFC 8259 §7): quote, backslash and control
 * characters escaped; the engine's text is valid UTF-8 and passes as is. */
static void jb_str(jbuf_t *b, const char *s, size_t n)
{
  jb_put(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char esc[2] = {'\\', (char)c};
      jb_put(b, esc, 2);
    } else if (c < 0x20) {
      char esc[8];
      int k = snprintf(esc, sizeof esc, "\\u%04x", c);
      jb_put(b, esc, (size_t)k);
    } else {
      jb_put(b, (const char *)&s[i], 1);
    }
  }
  jb_put(b, "\"", 1);
}

typedef struct sql_sink_s {
  jbuf_t *sk_out;
  int64_t sk_rows;
} sql_sink_t;

static int sql_rows(void *ctx, const batch_t *b, err_t *e)
{
  sql_sink_t *k = ctx;
  char small[256];
  for (int r = 0; r < b->b_n; r++) {
    jb_lit(k->sk_out, k->sk_rows ? ",\n[" : "\n[");
    for (int j = 0; j < b->b_ncols; j++) {
      const vec_t *v = &b->b_cols[j];
      if (j)
        jb_put(k->sk_out, ",", 1);
      if (v->v_null[r]) {
        jb_lit(k->sk_out, "null");
        continue;
      }
      datum_t d;
      vec_get(v, r, &d);
      size_t cap = ty_text_max(v->v_type, &d);
      char *t = cap <= sizeof small ? small : malloc(cap);
      if (!t)
        return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory formatting a value");
      int n = ty_format_text(v->v_type, &d, t, cap);
      if (n >= 0)
        jb_str(k->sk_out, t, (size_t)n);
      if (t != small)
        free(t);
      if (n < 0)
        return err_set(e, SQLSTATE_INTERNAL, "value of column %d could not be formatted", j + 1);
    }
    jb_put(k->sk_out, "]", 1);
    k->sk_rows++;
  }
  if (k->sk_out->jb_oom)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory building the answer");
  return CZ_OK;
}

/* Counts and drops the rows past max_rows of a statement that writes. */
static int sql_drop_rows(void *ctx, const batch_t *b, err_t *e)
{
  (void)e;
  ((sql_sink_t *)ctx)->sk_rows += b->b_n;
  return CZ_OK;
}

/* Whether a statement may be left unfinished at the cut: one that starts
 * with SELECT, VALUES, TABLE or SHOW reads (its functions' side effects
 * aside, as a cursor closed early in PostgreSQL). Anything else that
 * returns rows — INSERT/UPDATE/DELETE … RETURNING, WITH (which may hold
 * such a statement) — is run to its end: the engine produces DML rows as
 * it goes, so a portal dropped at the cut would roll back the rows not yet
 * written, where PostgreSQL's client sees the whole statement done. */
static bool sql_reads_only(const char *t)
{
  static const char *const words[] = {"select", "values", "table", "show"};
  for (;;) {
    while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r' || *t == '(')
      t++;
    if (t[0] == '-' && t[1] == '-') {
      t += strcspn(t, "\n");
      continue;
    }
    if (t[0] == '/' && t[1] == '*') {
      const char *end = strstr(t + 2, "*/");
      if (!end)
        return false;
      t = end + 2;
      continue;
    }
    break;
  }
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    size_t n = strlen(words[i]);
    if (strncasecmp(t, words[i], n) == 0 && !(t[n] == '_' || ((t[n] | 0x20) >= 'a' && (t[n] | 0x20) <= 'z')))
      return true;
  }
  return false;
}

static enum MHD_Result sql_error(hs_req_t *r, const err_t *e, jbuf_t *b)
{
  free(b->jb_p);
  unsigned status = hs_status_of(e);
  hs_session_end(r);
  return hs_reply_error(r, status, "%s: %s", e->er_sqlstate, e->er_msg);
}

enum MHD_Result hs_sql_run(hs_req_t *r, const char *text, size_t len, const hs_params_t *p)
{
  hs_server_t *sv = r->rq_srv;
  const char *user = NULL;
  int auth = hs_auth_digest(r, &user);
  if (auth == 0)
    auth = hs_auth_basic(r, &user);
  if (auth < 0)
    return hs_reply_error(r, MHD_HTTP_UNAUTHORIZED,
                          "28P01: the credentials are wrong (HTTP Basic or Digest with a user's "
                          "password)");
  if (sv->sv_cfg.hc_allow_update == HS_UPDATE_NO)
    return hs_reply_error(r, MHD_HTTP_FORBIDDEN,
                          "/sql is off on this server ([SPARQL] AllowUpdate = no)");
  if (auth == 0)
    return hs_reply_error(r, MHD_HTTP_UNAUTHORIZED,
                          "/sql needs a user: authenticate with HTTP Basic");
  if (memchr(text, '\0', len))
    return hs_reply_error(r, MHD_HTTP_BAD_REQUEST, "the statement text holds a NUL byte");
  int64_t max_rows = HS_SQL_DEFAULT_ROWS;
  const hs_param_t *mr = hs_params_get(p, "max_rows", NULL);
  if (mr) {
    char *end;
    long long v = strtoll(mr->pm_val, &end, 10);
    if (end == mr->pm_val || *end || v < 1 || v > HS_SQL_MAX_ROWS)
      return hs_reply_error(r, MHD_HTTP_BAD_REQUEST, "max_rows must be an integer from 1 to %d",
                            HS_SQL_MAX_ROWS);
    max_rows = v;
  }
  err_t e;
  err_clear(&e);
  jbuf_t out = {0};
  if (hs_session_begin(r, user, &e) != CZ_OK)
    return sql_error(r, &e, &out);
  etext_t *stmts;
  int n;
  if (esession_split(r->rq_sess, text, len, r->rq_arena, &stmts, &n, &e) != CZ_OK)
    return sql_error(r, &e, &out);
  if (n != 1) {
    hs_session_end(r);
    return hs_reply_error(r, MHD_HTTP_BAD_REQUEST,
                          "42601: /sql runs exactly one statement (%d given)", n);
  }
  char *one = arena_alloc(r->rq_arena, stmts[0].et_len + 1);
  memcpy(one, text + stmts[0].et_off, stmts[0].et_len);
  one[stmts[0].et_len] = '\0';
  if (estmt_prepare_parsed(r->rq_sess, one, &stmts[0], &r->rq_stmt, &e) != CZ_OK)
    return sql_error(r, &e, &out);
  estmt_kind_t kind = estmt_kind(r->rq_stmt);
  if (kind == ESTMT_COPY_IN || kind == ESTMT_COPY_OUT) {
    err_set(&e, SQLSTATE_FEATURE_NOT_SUPPORTED, "COPY is not available through /sql");
    return sql_error(r, &e, &out);
  }
  if (eportal_bind(r->rq_stmt, NULL, 0, &r->rq_portal, &e) != CZ_OK)
    return sql_error(r, &e, &out);
  const ecol_t *cols;
  int ncols;
  estmt_columns(r->rq_stmt, &cols, &ncols);
  jb_lit(&out, "{\"columns\":[");
  for (int i = 0; i < ncols; i++) {
    if (i)
      jb_put(&out, ",", 1);
    jb_lit(&out, "{\"name\":");
    jb_str(&out, cols[i].ec_name, strlen(cols[i].ec_name));
    jb_lit(&out, ",\"type\":");
    char *tn = ty_name(r->rq_arena, cols[i].ec_type);
    jb_str(&out, tn, strlen(tn));
    jb_put(&out, "}", 1);
  }
  jb_lit(&out, "],\"rows\":[");
  sql_sink_t k = {.sk_out = &out};
  bool suspended = false;
  if (eportal_execute(r->rq_portal, max_rows, sql_rows, &k, &suspended, &e) != CZ_OK)
    return sql_error(r, &e, &out);
  if (suspended && !sql_reads_only(one)) {
    if (eportal_execute(r->rq_portal, 0, sql_drop_rows, &k, &suspended, &e) != CZ_OK)
      return sql_error(r, &e, &out);
    suspended = true; /* rows were dropped */
  }
  const char *tag = eportal_tag(r->rq_portal);
  jb_lit(&out, "],\n\"truncated\":");
  jb_lit(&out, suspended ? "true" : "false");
  jb_lit(&out, ",\"tag\":");
  jb_str(&out, tag ? tag : "", tag ? strlen(tag) : 0);
  jb_lit(&out, "}\n");
  /* a suspended portal's statement ends (and commits) with the session */
  hs_session_end(r);
  if (out.jb_oom) {
    free(out.jb_p);
    return hs_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "53200: out of memory building the answer");
  }
  enum MHD_Result rc = hs_reply(r, MHD_HTTP_OK, "application/json; charset=utf-8", out.jb_p, out.jb_len);
  free(out.jb_p);
  return rc;
}
