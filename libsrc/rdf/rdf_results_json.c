/* rdf_results_json — SPARQL 1.1 Query Results JSON Format (W3C
 * Recommendation, 2013): head.vars, results.bindings, boolean.
 *
 * Design notes: an unbound variable is left out of its row's object, as
 * the format says. Literals carry "xml:lang" or "datatype" (none for
 * xsd:string); the text is UTF-8 with RFC 8259 escapes.
 */
#include <stdio.h>
#include <string.h>

#include "rdf/rdf_int.h"

static int rdf_json_head(rdf_results_t *r)
{
  rdf_out_t *o = r->rs_out;
  rdf_out_puts(o, "{\"head\":{\"vars\":[");
  for (size_t i = 0; i < r->rs_nvars; i++) {
    if (i)
      rdf_out_putc(o, ',');
    rdf_esc_json_string(o, r->rs_vars[i], strlen(r->rs_vars[i]));
  }
  return rdf_out_puts(o, "]},\"results\":{\"bindings\":[");
}

static int rdf_json_row(rdf_results_t *r, const rdf_term_t *v)
{
  rdf_out_t *o = r->rs_out;
  rdf_out_puts(o, r->rs_rows ? ",\n{" : "\n{");
  bool first = true;
  for (size_t i = 0; i < r->rs_nvars; i++) {
    const rdf_term_t *t = &v[i];
    if (t->rt_kind == RDF_NONE)
      continue;
    if (!first)
      rdf_out_putc(o, ',');
    first = false;
    rdf_esc_json_string(o, r->rs_vars[i], strlen(r->rs_vars[i]));
    rdf_out_puts(o, t->rt_kind == RDF_IRI     ? ":{\"type\":\"uri\",\"value\":"
                    : t->rt_kind == RDF_BNODE ? ":{\"type\":\"bnode\",\"value\":"
                                              : ":{\"type\":\"literal\",\"value\":");
    rdf_esc_json_string(o, t->rt_str, t->rt_len);
    if (t->rt_kind == RDF_LITERAL) {
      if (t->rt_lang_len) {
        rdf_out_puts(o, ",\"xml:lang\":");
        rdf_esc_json_string(o, t->rt_lang, t->rt_lang_len);
      } else if (t->rt_dt && rdf_xsd_of(t) != XSD_STRING) {
        rdf_out_puts(o, ",\"datatype\":");
        rdf_esc_json_string(o, t->rt_dt, t->rt_dt_len);
      }
    }
    rdf_out_putc(o, '}');
  }
  return rdf_out_putc(o, '}');
}

static int rdf_json_boolean(rdf_results_t *r, bool value)
{
  return rdf_out_puts(r->rs_out, value ? "{\"head\":{},\"boolean\":true}\n"
                                       : "{\"head\":{},\"boolean\":false}\n");
}

static int rdf_json_finish(rdf_results_t *r)
{
  if (!r->rs_cut_at)
    return rdf_out_puts(r->rs_out, "\n]}}\n");
  /* a cut result says so where any JSON reader sees it (the format has
   * no field for it; readers ignore members they do not know) */
  char tail[80];
  snprintf(tail, sizeof tail, "\n]},\"truncated\":true,\"maxRows\":%llu}\n",
           (unsigned long long)r->rs_cut_at);
  return rdf_out_puts(r->rs_out, tail);
}

const rdf_results_ops_t rdf_results_json_ops = {rdf_json_head, rdf_json_row, rdf_json_boolean,
                                                rdf_json_finish};
