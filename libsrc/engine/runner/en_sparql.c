/* en_sparql — the SPARQL front end of the statement runner: a statement
 * beginning with the keyword SPARQL (as in Virtuoso), from any client and
 * protocol, is a SPARQL query compiled to SQL and run as that SQL.
 *
 * Design notes: the front end parses the SPARQL text (sp_parse), compiles
 * it (sp_compile_sql) and parses the generated SQL with the SQL parser, so
 * that everything after parsing — binding, planning, the extended
 * protocol's Describe, portals, EXPLAIN — is the SQL front end's
 * (en_sql_prepare). `EXPLAIN [ANALYZE] [VERBOSE] SPARQL …` is the EXPLAIN
 * of the generated SQL; `SPARQL DEFINE sql:text …` returns the generated
 * SQL as one row instead of running it. The query is compiled at
 * prepare: its triple patterns' constants are looked up first (one
 * statement) and written into the SQL as ids, so the planner sees them;
 * a term the store does not hold keeps its dictionary query, so a
 * prepared SPARQL statement stays right as data is loaded (ids are never
 * reused while referenced). */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "engine/runner/runner_int.h"
#include "rdf/rdf.h"
#include "sparql/sparql.h"
#include "sql/sql.h"

/* The length of word at t (case-insensitive, then a non-name byte), or 0. */
static size_t word_at(const char *t, size_t len, const char *word)
{
  size_t n = strlen(word);
  if (len < n || strncasecmp(t, word, n) != 0)
    return 0;
  if (len > n && (isalnum((unsigned char)t[n]) || t[n] == '_' || t[n] == ':'))
    return 0;
  return n;
}

static size_t blanks(const char *t, size_t len)
{
  size_t i = 0;
  while (i < len && isspace((unsigned char)t[i]))
    i++;
  return i;
}

/* Where the SPARQL text begins (after the keyword), or 0 when text is no
 * SPARQL statement; *explain_end: the bytes of an EXPLAIN prefix. */
static size_t sparql_start(const char *t, size_t len, size_t *explain_end)
{
  size_t at = 0, w;
  *explain_end = 0;
  if ((w = word_at(t, len, "explain")) > 0) {
    at = w + blanks(t + w, len - w);
    static const char *const opts[] = {"analyze", "verbose"};
    for (size_t i = 0; i < CZ_ARRAY_LEN(opts); i++)
      if ((w = word_at(t + at, len - at, opts[i])) > 0)
        at += w + blanks(t + at + w, len - at - w);
    *explain_end = at;
  }
  if ((w = word_at(t + at, len - at, "sparql")) == 0)
    return 0;
  return at + w;
}

static bool sparql_claims(const char *text, size_t len)
{
  size_t ex;
  return sparql_start(text, len, &ex) > 0;
}

static size_t sparql_extent(const char *text, size_t len)
{
  return sp_statement_extent(text, len);
}

static int chars_in(const char *t, size_t n)
{
  int c = 0;
  for (size_t i = 0; i < n; i++)
    c += ((unsigned char)t[i] & 0xC0) != 0x80;
  return c;
}

/* What sparql_parse hands sparql_prepare for an update: en_sparql_update.c
 * parses the text again when it runs (a prepared statement keeps only its
 * text; parsing is cheap next to the update). */
static const char sparql_update_parsed = 'U';

/* The DEFINEs before a query (Virtuoso's pragmas): `DEFINE sql:text` and
 * `DEFINE input:inference "rule set"`, in any order, each at most once.
 * Returns their bytes; *other: some other DEFINE (or a malformed one).
 * The rule set's name is stored in *inference when a is given. */
static size_t defines_at(arena_t *a, const char *t, size_t len, bool *show_sql, const char **inference,
                         bool *other)
{
  size_t at = 0;
  *other = false;
  *show_sql = false;
  if (inference)
    *inference = NULL;
  bool seen_inference = false;
  for (;;) {
    size_t b = at + blanks(t + at, len - at);
    size_t w = word_at(t + b, len - b, "define");
    if (!w)
      return at;
    size_t o = b + w + blanks(t + b + w, len - b - w), v;
    if (!*show_sql && (v = word_at(t + o, len - o, "sql:text")) > 0) {
      *show_sql = true;
      at = o + v;
      continue;
    }
    if (!seen_inference && (v = word_at(t + o, len - o, "input:inference")) > 0) {
      size_t q = o + v + blanks(t + o + v, len - o - v);
      if (q < len && (t[q] == '"' || t[q] == '\'')) {
        char quote = t[q];
        size_t end = q + 1;
        while (end < len && t[end] != quote && t[end] != '\n')
          end++;
        if (end < len && t[end] == quote && end > q + 1) {
          if (a && inference)
            *inference = arena_sprintf(a, "%.*s", (int)(end - q - 1), t + q + 1);
          seen_inference = true;
          at = end + 1;
          continue;
        }
      }
    }
    *other = true;
    return at;
  }
}

const char *en_sparql_inference(arena_t *a, const char *text, size_t len)
{
  size_t explain_end, at = sparql_start(text, len, &explain_end);
  at += blanks(text + at, len - at);
  bool other, show_sql;
  const char *inference;
  defines_at(a, text + at, len - at, &show_sql, &inference, &other);
  return inference;
}

size_t en_sparql_text_start(const char *text, size_t len)
{
  size_t explain_end, at = sparql_start(text, len, &explain_end);
  at += blanks(text + at, len - at);
  bool other, show_sql;
  return at + defines_at(NULL, text + at, len - at, &show_sql, NULL, &other);
}

/* What sparql_parse hands sparql_prepare for a query: it is compiled at
 * prepare, where the session can look its constants up. */
typedef struct sq_query_s {
  sp_request_t *sq_rq;
  bool sq_show_sql;          /* DEFINE sql:text */
  size_t sq_explain_end;     /* bytes of `EXPLAIN …` before SPARQL, 0 for none */
  const char *sq_text;
  uint64_t sq_parse_ns;      /* the SPARQL parse's time (EXPLAIN ANALYZE) */
} sq_query_t;

static int sparql_parse(arena_t *a, const char *text, size_t len, void **parsed, err_t *e)
{
  uint64_t t0 = time_now_ns();
  size_t explain_end, at = sparql_start(text, len, &explain_end);
  at += blanks(text + at, len - at);
  bool other, show_sql;
  const char *inference;
  size_t d = defines_at(a, text + at, len - at, &show_sql, &inference, &other);
  if (other)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "SPARQL feature DEFINE other than sql:text and input:inference \"rule set\" is not "
                   "supported yet");
  at += d;
  sp_request_t *rq = sp_parse(a, text + at, len - at, NULL, SP_PARSE_ANY, e);
  if (!rq) {
    if (e->er_pos > 0)
      e->er_pos += chars_in(text, at);
    return CZ_ERR;
  }
  rq->rq_inference = inference;
  if (rq->rq_update) {
    if (show_sql || explain_end)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "SPARQL feature %s of an update is not supported",
                     show_sql ? "DEFINE sql:text" : "EXPLAIN");
    *parsed = (void *)&sparql_update_parsed;  /* run by en_sparql_update.c */
    return CZ_OK;
  }
  sq_query_t *q = arena_alloc(a, sizeof(*q));
  *q = (sq_query_t){.sq_rq = rq, .sq_show_sql = show_sql, .sq_explain_end = explain_end, .sq_text = text,
                    .sq_parse_ns = time_now_ns() - t0};
  *parsed = q;
  return CZ_OK;
}

/* A query's constants and their ids: gathered by a first compile
 * (sq_collect), looked up in one statement, answered in the second
 * (sq_known). */
typedef struct sq_ids_s {
  arena_t *si_a;
  const sp_term_t **si_terms;
  int64_t *si_ids;
  size_t si_n, si_cap;
} sq_ids_t;

static bool sq_same(const char *a, const char *b)
{
  return a == b || (a && b && strcmp(a, b) == 0);
}

static bool sq_find(const sq_ids_t *x, const sp_term_t *t, size_t *at)
{
  for (size_t i = 0; i < x->si_n; i++) {
    const sp_term_t *u = x->si_terms[i];
    if (u->tm_kind == t->tm_kind && strcmp(u->tm_str, t->tm_str) == 0 && sq_same(u->tm_dt, t->tm_dt) &&
        sq_same(u->tm_lang, t->tm_lang)) {
      *at = i;
      return true;
    }
  }
  return false;
}

static bool sq_collect(void *ctx, const sp_term_t *t, int64_t *id)
{
  sq_ids_t *x = ctx;
  size_t at;
  (void)id;
  /* Longer terms are not looked up (the dictionary queries take short
   * keys only): their dictionary query stays in the SQL. */
  if (strlen(t->tm_str) > EN_SPARQL_LOOKUP_MAX || (t->tm_dt && strlen(t->tm_dt) > EN_SPARQL_LOOKUP_MAX) ||
      sq_find(x, t, &at))
    return false;
  if (x->si_n == x->si_cap) {
    size_t cap = x->si_cap ? x->si_cap * 2 : 16;
    const sp_term_t **g = arena_alloc(x->si_a, sizeof(*g) * cap);
    if (x->si_n)
      memcpy(g, x->si_terms, sizeof(*g) * x->si_n);
    x->si_terms = g;
    x->si_cap = cap;
  }
  x->si_terms[x->si_n++] = t;
  return false;
}

static bool sq_known(void *ctx, const sp_term_t *t, int64_t *id)
{
  sq_ids_t *x = ctx;
  size_t at;
  if (!sq_find(x, t, &at) || x->si_ids[at] == 0)
    return false;
  *id = x->si_ids[at];
  return true;
}

/* The SQL of rq with its constants' ids looked up in session s (a
 * transaction of its own when none is open), in a. */
static char *sparql_compile(esession_t *s, arena_t *a, const sp_request_t *rq, err_t *e)
{
  sq_ids_t x = {.si_a = a};
  if (!sp_compile_sql_ids(a, rq, sq_collect, &x, e))
    return NULL;
  if (x.si_n == 0)
    return sp_compile_sql(a, rq, e);
  x.si_ids = arena_zalloc(a, sizeof(int64_t) * x.si_n);
  bool implicit = false;
  if (es_tx_ensure(s, &implicit, e) != CZ_OK)
    return NULL;
  int rc = en_sparql_term_ids(s, a, x.si_terms, x.si_n, x.si_ids, e);
  if (implicit && es_tx_end_implicit(s, rc == CZ_OK, rc == CZ_OK ? e : NULL) != CZ_OK)
    rc = CZ_ERR;
  if (rc != CZ_OK)
    return NULL;
  if (rq->rq_inference) {
    /* A rule set is an ontology graph's name: one the store has never
     * seen is an error, not a silent answer without inference. */
    sp_term_t g = {.tm_kind = SP_T_IRI, .tm_str = rq->rq_inference};
    size_t at;
    if (!sq_find(&x, &g, &at) || x.si_ids[at] == 0)
      return err_set(e, SQLSTATE_UNDEFINED_OBJECT,
                     "inference rule set \"%s\" does not exist (no graph of that name)", rq->rq_inference),
             NULL;
    /* The ontology's triples: the compiler leaves out the rules they
     * cannot fire (a property not transitive, a class no intersection
     * defines), which SQL would otherwise evaluate in full, and writes
     * the closures as constants. Read through the graph's subjects
     * (rdf_quad_gs) and their predicates (rdf_quad_sp), projections
     * holding every quad's pairs, each confirmed in rdf_quad: index
     * lookups, where `WHERE g = …` alone scans every quad of the store
     * (no index leads with g) — a quarter second on LUBM(10). */
    sp_request_t *r = (sp_request_t *)rq;
    int64_t *rows;
    size_t n;
    implicit = false;
    if (es_tx_ensure(s, &implicit, e) != CZ_OK)
      return NULL;
    rc = en_sparql_id_rows(s, a,
                           arena_sprintf(a,
                                         "SELECT q.s, q.p, q.o FROM " RDF_SCHEMA ".rdf_quad_gs gs JOIN " RDF_SCHEMA
                                         ".rdf_quad_sp sp ON sp.s = gs.s JOIN " RDF_SCHEMA
                                         ".rdf_quad q ON q.p = sp.p AND q.s = sp.s AND q.g = gs.g WHERE gs.g = %" PRId64,
                                         x.si_ids[at]),
                           &rows, &n, e);
    if (implicit && es_tx_end_implicit(s, rc == CZ_OK, rc == CZ_OK ? e : NULL) != CZ_OK)
      rc = CZ_ERR;
    if (rc != CZ_OK)
      return NULL;
    r->rq_tbox = rows ? rows : arena_zalloc(a, sizeof(int64_t));
    r->rq_tbox_n = n;
  }
  return sp_compile_sql_ids(a, rq, sq_known, &x, e);
}

static int sparql_prepare(estmt_t *st, void *parsed, const uint32_t *ptypes, int nparams, err_t *e)
{
  if (parsed == &sparql_update_parsed)
    return en_sparql_update_prepare(st, e);
  const sq_query_t *q = parsed;
  if (es_check_not_failed(st->st_sess, NULL, e) != CZ_OK)
    return CZ_ERR;
  arena_t *a = st->st_arena;
  uint64_t t0 = time_now_ns();
  char *sql = sparql_compile(st->st_sess, a, q->sq_rq, e);
  if (!sql)
    return CZ_ERR;
  if (q->sq_show_sql) {
    size_t n = strlen(sql), nq = 0;
    for (size_t i = 0; i < n; i++)
      nq += sql[i] == '\'';
    char *lit = arena_alloc(a, n + nq + 3), *o = lit;
    *o++ = '\'';
    for (size_t i = 0; i < n; i++) {
      if (sql[i] == '\'')
        *o++ = '\'';
      *o++ = sql[i];
    }
    *o++ = '\'';
    *o = '\0';
    sql = arena_sprintf(a, "SELECT %s AS sql", lit);
  }
  if (q->sq_explain_end)
    sql = arena_sprintf(a, "%.*s %s", (int)q->sq_explain_end, q->sq_text, sql);
  sql_stmt_list_t *l;
  if (sql_parse(a, sql, strlen(sql), &l, e) != CZ_OK) {
    e->er_pos = 0;
    return err_prefix(e, "the SQL compiled from SPARQL does not parse (a compiler bug)");
  }
  st->st_front_ns = q->sq_parse_ns + (time_now_ns() - t0);
  return en_sql_prepare(st, l->sl_n ? l->sl_stmts[0] : NULL, ptypes, nparams, e);
}

const efront_t en_sparql_front = {"sparql", sparql_claims, sparql_extent, sparql_parse,
                                  sparql_prepare};

/* ---- the protocol entry (engine.h esparql_prepare) ---------------------- */

static sp_list_t *dataset_list(arena_t *a, const esparql_request_t *r, sp_gref_kind_t dflt,
                               sp_gref_kind_t named)
{
  sp_list_t *l = sp_list_new(a);
  for (int pass = 0; pass < 2; pass++) {
    const char *const *iris = pass ? r->sr_named : r->sr_default;
    int n = pass ? r->sr_nnamed : r->sr_ndefault;
    for (int i = 0; i < n; i++) {
      sp_gref_t *g = arena_zalloc(a, sizeof(*g));
      g->gr_kind = pass ? named : dflt;
      g->gr_iri = arena_strdup(a, iris[i]);
      sp_list_append(a, l, g);
    }
  }
  return l;
}

/* The protocol's dataset replaces the query's own (SPARQL 1.1 Protocol
 * §2.1.4). Updates take theirs through esession_sparql_update. */
static void apply_protocol_dataset(arena_t *a, sp_request_t *rq, const esparql_request_t *r)
{
  if (r->sr_ndefault + r->sr_nnamed > 0)
    rq->rq_query->qu_from = dataset_list(a, r, SP_GR_IRI, SP_GR_NAMED);
}

int esparql_prepare(esession_t *s, const esparql_request_t *r, estmt_t **out,
                    esparql_form_t *form, err_t *e)
{
  arena_t *a = arena_create(NULL, "sparql request");
  int rc = CZ_ERR;
  *form = ESPARQL_SELECT;
  /* DEFINE input:inference works over HTTP too (sql:text is for SQL
   * clients: the endpoint's answer is a result set of the query) */
  bool other, show_sql;
  const char *inference;
  size_t d = defines_at(a, r->sr_text, r->sr_len, &show_sql, &inference, &other);
  if (other || show_sql) {
    err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
            "SPARQL feature DEFINE other than input:inference \"rule set\" is not supported yet");
    goto out;
  }
  sp_request_t *rq = sp_parse(a, r->sr_text + d, r->sr_len - d, r->sr_base, SP_PARSE_QUERY, e);
  if (!rq) {
    if (e->er_pos > 0)
      e->er_pos += chars_in(r->sr_text, d);
    goto out;
  }
  rq->rq_inference = inference;
  static const esparql_form_t forms[] = {[SP_Q_SELECT] = ESPARQL_SELECT,
                                         [SP_Q_CONSTRUCT] = ESPARQL_CONSTRUCT,
                                         [SP_Q_DESCRIBE] = ESPARQL_DESCRIBE,
                                         [SP_Q_ASK] = ESPARQL_ASK};
  *form = forms[rq->rq_query->qu_kind];
  apply_protocol_dataset(a, rq, r);
  rq->rq_store_default = r->sr_store_default;
  char *sql = sparql_compile(s, a, rq, e);
  if (!sql)
    goto out;
  rc = estmt_prepare(s, sql, strlen(sql), NULL, 0, out, e);
  if (rc != CZ_OK && err_is(e, SQLSTATE_SYNTAX_ERROR)) {
    e->er_pos = 0;
    err_prefix(e, "the SQL compiled from SPARQL failed (a compiler bug)");
  }
out:
  arena_destroy(a);
  return rc;
}
