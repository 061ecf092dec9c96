/* rdf_term — constructors and equality of RDF terms and quads.
 *
 * Design notes: terms are views; these helpers never copy. Equality is RDF
 * 1.1 term equality (same kind and same strings), with the two spellings
 * of a simple literal (no datatype, or xsd:string written out) taken as one
 * and language tags compared case-insensitively (BCP 47 tags are
 * case-insensitive; RDF 1.1 section 3.3).
 */
#include <string.h>
#include <strings.h>

#include "rdf/rdf_int.h"

rdf_term_t rdf_iri(const char *iri)
{
  rdf_term_t t = {.rt_kind = RDF_IRI, .rt_str = iri, .rt_len = strlen(iri)};
  return t;
}

rdf_term_t rdf_bnode(const char *label)
{
  rdf_term_t t = {.rt_kind = RDF_BNODE, .rt_str = label, .rt_len = strlen(label)};
  return t;
}

rdf_term_t rdf_literal(const char *lex, const char *dt, const char *lang)
{
  rdf_term_t t = {.rt_kind = RDF_LITERAL, .rt_str = lex, .rt_len = strlen(lex)};
  if (lang && *lang) {
    t.rt_lang = lang;
    t.rt_lang_len = strlen(lang);
  } else if (dt) {
    t.rt_dt = dt;
    t.rt_dt_len = strlen(dt);
  }
  return t;
}

static bool rdf_str_eq(const char *a, size_t al, const char *b, size_t bl)
{
  return al == bl && (al == 0 || memcmp(a, b, al) == 0);
}

/* A literal's datatype as compared: none for xsd:string. */
static void rdf_dt_norm(const rdf_term_t *t, const char **dt, size_t *len)
{
  *dt = t->rt_dt;
  *len = t->rt_dt ? t->rt_dt_len : 0;
  if (*dt && rdf_str_eq(*dt, *len, RDF_XSD_STRING, sizeof(RDF_XSD_STRING) - 1)) {
    *dt = NULL;
    *len = 0;
  }
}

bool rdf_term_equal(const rdf_term_t *a, const rdf_term_t *b)
{
  if (a->rt_kind != b->rt_kind)
    return false;
  if (a->rt_kind == RDF_NONE)
    return true;
  if (!rdf_str_eq(a->rt_str, a->rt_len, b->rt_str, b->rt_len))
    return false;
  if (a->rt_kind != RDF_LITERAL)
    return true;
  if (a->rt_lang_len != b->rt_lang_len ||
      (a->rt_lang_len && strncasecmp(a->rt_lang, b->rt_lang, a->rt_lang_len) != 0))
    return false;
  if (a->rt_lang_len)
    return true;
  const char *da, *db;
  size_t la, lb;
  rdf_dt_norm(a, &da, &la);
  rdf_dt_norm(b, &db, &lb);
  return rdf_str_eq(da ? da : "", la, db ? db : "", lb);
}

bool rdf_quad_equal(const rdf_quad_t *a, const rdf_quad_t *b)
{
  return rdf_term_equal(&a->rq_s, &b->rq_s) && rdf_term_equal(&a->rq_p, &b->rq_p) &&
         rdf_term_equal(&a->rq_o, &b->rq_o) && rdf_term_equal(&a->rq_g, &b->rq_g);
}
