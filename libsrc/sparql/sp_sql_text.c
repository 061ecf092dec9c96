/* sp_sql_text — the pieces of SQL text the SPARQL compiler writes: quoted
 * literals and identifiers, and the SQL expression of an RDF term constant
 * (its 64-bit id), as a value or as a query to join.
 *
 * Design notes: a constant becomes its id in the generated SQL. Inline
 * literals (numbers, booleans, dates in canonical form, libsrc/rdf
 * README "Term ids") are encoded here, at compile time, with no table
 * read. IRIs and dictionary literals become a query over the
 * dictionaries (the IRI split as rdf_dict.c splits it: after the last
 * '#', '/' or ':' within the first 800 bytes). Triple patterns join that
 * query as a derived table (the planner then looks the term up through
 * the dictionary's index and the quads through theirs; an unknown term
 * gives no row, so the pattern has none, as SPARQL wants); expressions use
 * it as a scalar subquery, 0 (no term) when unknown. Either way a prepared
 * statement stays right when the term is loaded later (no id baked into
 * the plan). */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "rdf/rdf.h"
#include "sparql/sparql_int.h"

#define SQ_KEY_SHORT 800   /* rdf_dict.c's RD_KEY_SHORT: longer values use a hashed key */

char *sp_sql_quote(arena_t *a, const char *s)
{
  size_t n = strlen(s), q = 0;
  for (size_t i = 0; i < n; i++)
    q += s[i] == '\'';
  char *out = arena_alloc(a, n + q + 3), *o = out;
  *o++ = '\'';
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\'')
      *o++ = '\'';
    *o++ = s[i];
  }
  *o++ = '\'';
  *o = '\0';
  return out;
}

char *sp_sql_ident(arena_t *a, const char *name)
{
  size_t n = strlen(name), q = 0;
  for (size_t i = 0; i < n; i++)
    q += name[i] == '"';
  char *out = arena_alloc(a, n + q + 3), *o = out;
  *o++ = '"';
  for (size_t i = 0; i < n; i++) {
    if (name[i] == '"')
      *o++ = '"';
    *o++ = name[i];
  }
  *o++ = '"';
  *o = '\0';
  return out;
}

static size_t sq_ns_end(const char *s, size_t n)
{
  size_t lim = n < SQ_KEY_SHORT ? n : SQ_KEY_SHORT;
  for (size_t i = lim; i > 0; i--)
    if (s[i - 1] == '#' || s[i - 1] == '/' || s[i - 1] == ':')
      return i;
  return 0;
}

/* The one-row (or, for an unknown IRI, empty) query "SELECT id". */
static char *sq_iri_query(arena_t *a, const char *iri, err_t *e)
{
  size_t n = strlen(iri), ns = sq_ns_end(iri, n);
  if (n - ns > SQ_KEY_SHORT) {
    err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
            "SPARQL feature IRI constants with a local part over %d bytes is not supported yet",
            SQ_KEY_SHORT);
    return NULL;
  }
  char *nsq = arena_sprintf(a, "%.*s", (int)ns, iri);
  return arena_sprintf(a,
                       "SELECT i.id FROM " RDF_SCHEMA ".rdf_prefix x JOIN " RDF_SCHEMA ".rdf_iri i ON i.prefix = x.id"
                       " WHERE x.ns = %s AND i.local = %s",
                       sp_sql_quote(a, nsq), sp_sql_quote(a, iri + ns));
}

char *sp_sql_term_query(arena_t *a, const sp_term_t *t, char **inline_id, err_t *e)
{
  *inline_id = NULL;
  if (t->tm_kind == SP_T_IRI)
    return sq_iri_query(a, t->tm_str, e);
  if (t->tm_kind != SP_T_LIT) {
    err_set(e, SQLSTATE_INTERNAL, "SPARQL compiler: a variable where a constant was expected");
    return NULL;
  }
  const char *dt = t->tm_dt;
  if (dt && strcmp(dt, RDF_XSD_STRING) == 0)
    dt = NULL;
  rdf_term_t lit = rdf_literal(t->tm_str, dt, t->tm_lang);
  rdf_id_t id = rdf_id_encode_literal(&lit);
  if (id) {
    *inline_id = arena_sprintf(a, "(%" PRId64 ")", (int64_t)id);
    return NULL;
  }
  if (strlen(t->tm_str) > SQ_KEY_SHORT) {
    err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
            "SPARQL feature literal constants over %d bytes is not supported yet", SQ_KEY_SHORT);
    return NULL;
  }
  /* The literal dictionary's key: (dt, lang, lex); dt 0 for xsd:string and
   * language-tagged strings. */
  /* the store keeps language tags lower-cased (libsrc/rdf "Tables") */
  char *lc = arena_strdup(a, t->tm_lang ? t->tm_lang : "");
  for (char *p = lc; *p; p++)
    *p = (char)tolower((unsigned char)*p);
  char *lang = sp_sql_quote(a, lc), *lex = sp_sql_quote(a, t->tm_str);
  if (!dt || t->tm_lang)
    return arena_sprintf(a, "SELECT l.id FROM " RDF_SCHEMA ".rdf_literal l WHERE l.dt = 0 AND l.lang = %s"
                            " AND l.lex = %s", lang, lex);
  char *dq = sq_iri_query(a, dt, e);
  if (!dq)
    return NULL;
  return arena_sprintf(a, "SELECT l.id FROM (%s) d JOIN " RDF_SCHEMA ".rdf_literal l ON l.dt = d.id"
                          " WHERE l.lang = %s AND l.lex = %s", dq, lang, lex);
}

char *sp_sql_term_id(arena_t *a, const sp_term_t *t, err_t *e)
{
  char *inl, *q = sp_sql_term_query(a, t, &inl, e);
  if (inl)
    return inl;
  /* 0 is no term: equal to no id, unequal to all. */
  return q ? arena_sprintf(a, "COALESCE((%s), 0)", q) : NULL;
}
