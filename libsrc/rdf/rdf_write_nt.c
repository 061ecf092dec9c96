/* rdf_write_nt — the RDF writer object, and the line formats N-Triples and
 * N-Quads (one statement per line, canonical escapes).
 *
 * Design notes: the writer object is shared by every RDF syntax; Turtle
 * and TriG hand their quads to rdf_write_ttl.c. Nothing is kept between
 * quads in the line formats, so a writer can stream any number of them.
 */
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf_int.h"

rdf_writer_t *rdf_writer_new(rdf_syntax_t syntax, rdf_sink_fn fn, void *ctx,
                             const char *const *prefixes)
{
  if (syntax < RDF_SYNTAX_NTRIPLES || syntax > RDF_SYNTAX_JSONLD)
    return NULL;
  rdf_writer_t *w = calloc(1, sizeof(*w));
  if (!w)
    return NULL;
  w->rw_syntax = syntax;
  w->rw_out = rdf_out_new(fn, ctx);
  size_t n = 0;
  while (prefixes && prefixes[2 * n])
    n++;
  w->rw_pfx = calloc(n + 1, sizeof(char *));
  w->rw_ns = calloc(n + 1, sizeof(char *));
  if (!w->rw_out || !w->rw_pfx || !w->rw_ns) {
    rdf_out_free(w->rw_out);
    free(w->rw_pfx);
    free(w->rw_ns);
    free(w);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    w->rw_pfx[i] = strdup(prefixes[2 * i]);
    w->rw_ns[i] = strdup(prefixes[2 * i + 1]);
    if (!w->rw_pfx[i] || !w->rw_ns[i])
      w->rw_status = -1;
  }
  w->rw_npfx = n;
  return w;
}

int rdf_writer_quad(rdf_writer_t *w, const rdf_quad_t *q)
{
  if (w->rw_status)
    return w->rw_status;
  if (w->rw_syntax == RDF_SYNTAX_TURTLE || w->rw_syntax == RDF_SYNTAX_TRIG)
    return rdf_ttl_quad(w, q);
  if (w->rw_syntax == RDF_SYNTAX_JSONLD)
    return rdf_jsonld_quad(w, q);
  rdf_out_t *o = w->rw_out;
  rdf_esc_nt_term(o, &q->rq_s, false);
  rdf_out_putc(o, ' ');
  rdf_esc_nt_term(o, &q->rq_p, false);
  rdf_out_putc(o, ' ');
  rdf_esc_nt_term(o, &q->rq_o, false);
  if (w->rw_syntax == RDF_SYNTAX_NQUADS && q->rq_g.rt_kind != RDF_NONE) {
    rdf_out_putc(o, ' ');
    rdf_esc_nt_term(o, &q->rq_g, false);
  }
  return w->rw_status = rdf_out_put(o, " .\n", 3);
}

int rdf_writer_flush(rdf_writer_t *w)
{
  return w->rw_status ? w->rw_status : rdf_out_flush(w->rw_out);
}

int rdf_writer_finish(rdf_writer_t *w)
{
  if (!w)
    return 0;
  if (!w->rw_status && (w->rw_syntax == RDF_SYNTAX_TURTLE || w->rw_syntax == RDF_SYNTAX_TRIG))
    w->rw_status = rdf_ttl_finish(w);
  else if (!w->rw_status && w->rw_syntax == RDF_SYNTAX_JSONLD)
    w->rw_status = rdf_jsonld_finish(w);
  int st = rdf_out_free(w->rw_out);
  if (!w->rw_status)
    w->rw_status = st;
  for (size_t i = 0; i < w->rw_npfx; i++) {
    free(w->rw_pfx[i]);
    free(w->rw_ns[i]);
  }
  free(w->rw_pfx);
  free(w->rw_ns);
  rdf_held_free(&w->rw_g);
  rdf_held_free(&w->rw_s);
  rdf_held_free(&w->rw_p);
  st = w->rw_status;
  free(w);
  return st;
}
