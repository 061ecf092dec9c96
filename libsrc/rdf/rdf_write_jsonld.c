/* rdf_write_jsonld — JSON-LD 1.1 (W3C Recommendation, 2020) in expanded
 * document form, for graph results over HTTP (CONSTRUCT, DESCRIBE).
 *
 * Design notes: expanded form needs no context, so any JSON-LD processor
 * reads it as it is (to RDF, compacted with its own context, framed),
 * and it can be written as a stream: a top-level array of node objects,
 * one per run of consecutive triples with the same subject, keys the
 * predicates' full IRIs, values arrays of {"@id"} or {"@value"} objects.
 * A subject that comes back later gets a second node object with the same
 * "@id": the JSON-LD algorithms merge node objects by "@id" (expansion
 * keeps them, flattening and toRdf merge them), so nothing is held but
 * the open subject and predicate. rdf:type is written as a predicate like
 * any other ({"@id"} values): expanded form allows it and toRdf gives the
 * same triple as "@type". Blank nodes are "_:label". Literals carry
 * "@language" or "@type" (none for xsd:string, as in the results JSON).
 * The graph of a quad is not written (a triple format, as N-Triples).
 */
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf_int.h"

static void jsonld_id(rdf_out_t *o, const rdf_term_t *t)
{
  if (t->rt_kind == RDF_BNODE) {
    /* "_:" and the label, one JSON string */
    char *buf = malloc(t->rt_len + 2);
    if (!buf) {
      rdf_out_puts(o, "\"_:\"");
      return;
    }
    memcpy(buf, "_:", 2);
    memcpy(buf + 2, t->rt_str, t->rt_len);
    rdf_esc_json_string(o, buf, t->rt_len + 2);
    free(buf);
    return;
  }
  rdf_esc_json_string(o, t->rt_str, t->rt_len);
}

static void jsonld_object(rdf_out_t *o, const rdf_term_t *t)
{
  if (t->rt_kind != RDF_LITERAL) {
    rdf_out_puts(o, "{\"@id\":");
    jsonld_id(o, t);
    rdf_out_putc(o, '}');
    return;
  }
  rdf_out_puts(o, "{\"@value\":");
  rdf_esc_json_string(o, t->rt_str, t->rt_len);
  if (t->rt_lang_len) {
    rdf_out_puts(o, ",\"@language\":");
    rdf_esc_json_string(o, t->rt_lang, t->rt_lang_len);
  } else if (t->rt_dt && rdf_xsd_of(t) != XSD_STRING) {
    rdf_out_puts(o, ",\"@type\":");
    rdf_esc_json_string(o, t->rt_dt, t->rt_dt_len);
  }
  rdf_out_putc(o, '}');
}

int rdf_jsonld_quad(rdf_writer_t *w, const rdf_quad_t *q)
{
  rdf_out_t *o = w->rw_out;
  if (!w->rw_started) {
    rdf_out_putc(o, '[');
    w->rw_started = true;
  }
  if (w->rw_in_stmt && rdf_term_equal(&w->rw_s.rh_t, &q->rq_s)) {
    if (rdf_term_equal(&w->rw_p.rh_t, &q->rq_p)) {
      rdf_out_putc(o, ',');
      jsonld_object(o, &q->rq_o);
      return w->rw_status = rdf_out_status(o);
    }
    rdf_out_puts(o, "],\n  ");
  } else {
    rdf_out_puts(o, w->rw_in_stmt ? "]},\n{\"@id\":" : "\n{\"@id\":");
    jsonld_id(o, &q->rq_s);
    rdf_out_puts(o, ",\n  ");
    if (rdf_held_set(&w->rw_s, &q->rq_s))
      return w->rw_status = -1;
    w->rw_in_stmt = true;
  }
  rdf_esc_json_string(o, q->rq_p.rt_str, q->rq_p.rt_len);
  rdf_out_puts(o, ":[");
  if (rdf_held_set(&w->rw_p, &q->rq_p))
    return w->rw_status = -1;
  jsonld_object(o, &q->rq_o);
  return w->rw_status = rdf_out_status(o);
}

int rdf_jsonld_finish(rdf_writer_t *w)
{
  rdf_out_t *o = w->rw_out;
  if (!w->rw_started)
    return rdf_out_puts(o, "[]\n");
  return rdf_out_puts(o, w->rw_in_stmt ? "]}\n]\n" : "\n]\n");
}
