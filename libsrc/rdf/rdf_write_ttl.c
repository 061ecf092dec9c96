/* rdf_write_ttl — Turtle and TriG output: prefixes, statements grouped by
 * subject (";") and by predicate (","), TriG graph blocks.
 *
 * Design notes: grouping is over consecutive quads only, so the writer
 * streams with constant memory; a caller that sorts by graph and subject
 * gets the most compact text. The open graph, subject and predicate are
 * copied (rdf_held_t), because the caller's quads are views that change
 * after the call. An IRI is abbreviated to prefix:local only when the
 * local part is plain (letters, digits, '_' and '-', not starting with
 * '-'), so every output is valid Turtle without PN_LOCAL escapes.
 * Literals are always quoted with N-Triples escapes except integers and
 * booleans in their plain forms.
 */
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf_int.h"

#define RDF_TYPE RDF_NS_RDF "type"

int rdf_held_set(rdf_held_t *h, const rdf_term_t *t)
{
  size_t need = t->rt_len + (t->rt_dt ? t->rt_dt_len : 0) + t->rt_lang_len + 1;
  if (need > h->rh_cap) {
    char *nb = realloc(h->rh_buf, need * 2);
    if (!nb)
      return -1;
    h->rh_buf = nb;
    h->rh_cap = need * 2;
  }
  char *p = h->rh_buf;
  h->rh_t = *t;
  if (t->rt_len)
    memcpy(p, t->rt_str, t->rt_len);
  h->rh_t.rt_str = p;
  p += t->rt_len;
  if (t->rt_dt) {
    memcpy(p, t->rt_dt, t->rt_dt_len);
    h->rh_t.rt_dt = p;
    p += t->rt_dt_len;
  }
  if (t->rt_lang_len) {
    memcpy(p, t->rt_lang, t->rt_lang_len);
    h->rh_t.rt_lang = p;
  }
  return 0;
}

void rdf_held_free(rdf_held_t *h)
{
  free(h->rh_buf);
  memset(h, 0, sizeof(*h));
}

static bool rdf_ttl_local_ok(const char *s, size_t n)
{
  if (n && (s[0] == '-'))
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '-'))
      return false;
  }
  return true;
}

static void rdf_ttl_iri(rdf_writer_t *w, const char *s, size_t n)
{
  size_t best = 0, best_len = 0;
  bool found = false;
  for (size_t i = 0; i < w->rw_npfx; i++) {
    size_t nl = strlen(w->rw_ns[i]);
    if (nl <= n && nl >= best_len && memcmp(s, w->rw_ns[i], nl) == 0 &&
        rdf_ttl_local_ok(s + nl, n - nl)) {
      best = i;
      best_len = nl;
      found = true;
    }
  }
  if (found) {
    rdf_out_puts(w->rw_out, w->rw_pfx[best]);
    rdf_out_putc(w->rw_out, ':');
    rdf_out_put(w->rw_out, s + best_len, n - best_len);
    return;
  }
  rdf_out_putc(w->rw_out, '<');
  rdf_esc_nt_iri(w->rw_out, s, n);
  rdf_out_putc(w->rw_out, '>');
}

static bool rdf_ttl_plain_integer(const char *s, size_t n)
{
  size_t i = (n && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (i == n)
    return false;
  for (; i < n; i++)
    if (s[i] < '0' || s[i] > '9')
      return false;
  return true;
}

static void rdf_ttl_term(rdf_writer_t *w, const rdf_term_t *t)
{
  rdf_out_t *o = w->rw_out;
  switch (t->rt_kind) {
  case RDF_IRI:
    rdf_ttl_iri(w, t->rt_str, t->rt_len);
    return;
  case RDF_BNODE:
    rdf_esc_bnode(o, t->rt_str, t->rt_len);
    return;
  case RDF_LITERAL: {
    rdf_xsd_t x = rdf_xsd_of(t);
    if ((x == XSD_INTEGER && rdf_ttl_plain_integer(t->rt_str, t->rt_len)) ||
        (x == XSD_BOOLEAN && ((t->rt_len == 4 && memcmp(t->rt_str, "true", 4) == 0) ||
                              (t->rt_len == 5 && memcmp(t->rt_str, "false", 5) == 0)))) {
      rdf_out_put(o, t->rt_str, t->rt_len);
      return;
    }
    rdf_out_putc(o, '"');
    rdf_esc_nt_string(o, t->rt_str, t->rt_len, false);
    rdf_out_putc(o, '"');
    if (t->rt_lang_len) {
      rdf_out_putc(o, '@');
      rdf_out_put(o, t->rt_lang, t->rt_lang_len);
    } else if (t->rt_dt && x != XSD_STRING) {
      rdf_out_put(o, "^^", 2);
      rdf_ttl_iri(w, t->rt_dt, t->rt_dt_len);
    }
    return;
  }
  default:
    return;
  }
}

static void rdf_ttl_prefixes(rdf_writer_t *w)
{
  for (size_t i = 0; i < w->rw_npfx; i++) {
    rdf_out_puts(w->rw_out, "@prefix ");
    rdf_out_puts(w->rw_out, w->rw_pfx[i]);
    rdf_out_puts(w->rw_out, ": <");
    rdf_esc_nt_iri(w->rw_out, w->rw_ns[i], strlen(w->rw_ns[i]));
    rdf_out_puts(w->rw_out, "> .\n");
  }
  if (w->rw_npfx)
    rdf_out_putc(w->rw_out, '\n');
  w->rw_started = true;
}

static const char *rdf_ttl_indent(const rdf_writer_t *w)
{
  return w->rw_in_graph ? "  " : "";
}

/* Ends the open subject, and the open graph block when graph_too. */
static void rdf_ttl_close(rdf_writer_t *w, bool graph_too)
{
  if (w->rw_in_stmt) {
    rdf_out_puts(w->rw_out, " .\n");
    w->rw_in_stmt = false;
  }
  if (graph_too && w->rw_in_graph) {
    rdf_out_puts(w->rw_out, "}\n");
    w->rw_in_graph = false;
  }
}

int rdf_ttl_quad(rdf_writer_t *w, const rdf_quad_t *q)
{
  if (!w->rw_started)
    rdf_ttl_prefixes(w);
  bool trig = w->rw_syntax == RDF_SYNTAX_TRIG;
  rdf_term_t none = {0};
  const rdf_term_t *g = trig ? &q->rq_g : &none;
  bool same_g = w->rw_started && rdf_term_equal(&w->rw_g.rh_t, g) &&
                (w->rw_in_stmt || w->rw_in_graph || g->rt_kind == RDF_NONE);
  if (!same_g || !w->rw_in_stmt || !rdf_term_equal(&w->rw_s.rh_t, &q->rq_s)) {
    rdf_ttl_close(w, !same_g);
    if (!same_g) {
      if (rdf_held_set(&w->rw_g, g))
        return w->rw_status = -1;
      if (g->rt_kind != RDF_NONE) {
        rdf_ttl_term(w, g);
        rdf_out_puts(w->rw_out, " {\n");
        w->rw_in_graph = true;
      }
    }
    rdf_out_puts(w->rw_out, rdf_ttl_indent(w));
    rdf_ttl_term(w, &q->rq_s);
    rdf_out_putc(w->rw_out, ' ');
    if (rdf_held_set(&w->rw_s, &q->rq_s))
      return w->rw_status = -1;
    w->rw_p.rh_t.rt_kind = RDF_NONE;
    w->rw_in_stmt = true;
  } else if (rdf_term_equal(&w->rw_p.rh_t, &q->rq_p)) {
    rdf_out_puts(w->rw_out, " , ");
    rdf_ttl_term(w, &q->rq_o);
    return w->rw_status = rdf_out_status(w->rw_out);
  } else {
    rdf_out_puts(w->rw_out, " ;\n");
    rdf_out_puts(w->rw_out, rdf_ttl_indent(w));
    rdf_out_puts(w->rw_out, "    ");
  }
  if (q->rq_p.rt_kind == RDF_IRI && q->rq_p.rt_len == sizeof(RDF_TYPE) - 1 &&
      memcmp(q->rq_p.rt_str, RDF_TYPE, q->rq_p.rt_len) == 0)
    rdf_out_putc(w->rw_out, 'a');
  else
    rdf_ttl_term(w, &q->rq_p);
  if (rdf_held_set(&w->rw_p, &q->rq_p))
    return w->rw_status = -1;
  rdf_out_putc(w->rw_out, ' ');
  rdf_ttl_term(w, &q->rq_o);
  return w->rw_status = rdf_out_status(w->rw_out);
}

int rdf_ttl_finish(rdf_writer_t *w)
{
  if (!w->rw_started)
    rdf_ttl_prefixes(w);
  rdf_ttl_close(w, true);
  return rdf_out_status(w->rw_out);
}
