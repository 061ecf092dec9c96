/* rdf_results_xml — SPARQL Query Results XML Format (Second Edition, W3C
 * Recommendation 2013): <head> with <variable>, <results> with <result>
 * and <binding>, or <boolean>.
 *
 * Design notes: an unbound variable has no <binding> element. Text and
 * attribute values go through rdf_esc_xml_text (see rdf_escape.c for the
 * characters XML 1.0 cannot carry).
 */
#include <stdio.h>
#include <string.h>

#include "rdf/rdf_int.h"

#define RDF_XML_PROLOG \
  "<?xml version=\"1.0\"?>\n<sparql xmlns=\"http://www.w3.org/2005/sparql-results#\">\n"

static int rdf_xml_head(rdf_results_t *r)
{
  rdf_out_t *o = r->rs_out;
  rdf_out_puts(o, RDF_XML_PROLOG "<head>\n");
  for (size_t i = 0; i < r->rs_nvars; i++) {
    rdf_out_puts(o, "  <variable name=\"");
    rdf_esc_xml_text(o, r->rs_vars[i], strlen(r->rs_vars[i]));
    rdf_out_puts(o, "\"/>\n");
  }
  return rdf_out_puts(o, "</head>\n<results>\n");
}

static int rdf_xml_row(rdf_results_t *r, const rdf_term_t *v)
{
  rdf_out_t *o = r->rs_out;
  rdf_out_puts(o, "  <result>\n");
  for (size_t i = 0; i < r->rs_nvars; i++) {
    const rdf_term_t *t = &v[i];
    if (t->rt_kind == RDF_NONE)
      continue;
    rdf_out_puts(o, "    <binding name=\"");
    rdf_esc_xml_text(o, r->rs_vars[i], strlen(r->rs_vars[i]));
    rdf_out_puts(o, "\">");
    const char *close = "</literal>";
    if (t->rt_kind == RDF_IRI) {
      rdf_out_puts(o, "<uri>");
      close = "</uri>";
    } else if (t->rt_kind == RDF_BNODE) {
      rdf_out_puts(o, "<bnode>");
      close = "</bnode>";
    } else if (t->rt_lang_len) {
      rdf_out_puts(o, "<literal xml:lang=\"");
      rdf_esc_xml_text(o, t->rt_lang, t->rt_lang_len);
      rdf_out_puts(o, "\">");
    } else if (t->rt_dt && rdf_xsd_of(t) != XSD_STRING) {
      rdf_out_puts(o, "<literal datatype=\"");
      rdf_esc_xml_text(o, t->rt_dt, t->rt_dt_len);
      rdf_out_puts(o, "\">");
    } else
      rdf_out_puts(o, "<literal>");
    rdf_esc_xml_text(o, t->rt_str, t->rt_len);
    rdf_out_puts(o, close);
    rdf_out_puts(o, "</binding>\n");
  }
  return rdf_out_puts(o, "  </result>\n");
}

static int rdf_xml_boolean(rdf_results_t *r, bool value)
{
  return rdf_out_puts(r->rs_out, value ? RDF_XML_PROLOG "<head/>\n<boolean>true</boolean>\n</sparql>\n"
                                       : RDF_XML_PROLOG "<head/>\n<boolean>false</boolean>\n</sparql>\n");
}

static int rdf_xml_finish(rdf_results_t *r)
{
  if (!r->rs_cut_at)
    return rdf_out_puts(r->rs_out, "</results>\n</sparql>\n");
  /* an element in our own namespace, after the results: readers of the
   * format skip elements they do not know */
  char tail[160];
  snprintf(tail, sizeof tail,
           "</results>\n<cz:truncated xmlns:cz=\"urn:cadenza:results\" maxRows=\"%llu\"/>\n"
           "</sparql>\n",
           (unsigned long long)r->rs_cut_at);
  return rdf_out_puts(r->rs_out, tail);
}

const rdf_results_ops_t rdf_results_xml_ops = {rdf_xml_head, rdf_xml_row, rdf_xml_boolean,
                                               rdf_xml_finish};
