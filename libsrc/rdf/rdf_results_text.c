/* rdf_results_text — SPARQL 1.1 Query Results CSV and TSV Formats (W3C
 * Recommendation, 2013).
 *
 * Design notes: CSV loses the kind of a term (IRIs and literals are bare
 * text, blank nodes "_:label"); a field is quoted, with quotes doubled,
 * when it holds a quote, comma, CR or LF; lines end with CRLF (RFC 4180).
 * TSV keeps terms in their N-Triples/Turtle form ("?var" header, <iri>,
 * "lexical"@lang / "lexical"^^<dt>, _:label), tabs and line breaks inside
 * literals escaped as \t \n \r; lines end with LF. An unbound value is an
 * empty field in both. Neither format defines ASK results: both write the
 * header "_askResult" ("?_askResult" in TSV) and the value.
 */
#include <string.h>

#include "rdf/rdf_int.h"

static void rdf_csv_field(rdf_out_t *o, const char *s, size_t n, const char *prefix)
{
  bool quote = false;
  for (size_t i = 0; i < n && !quote; i++)
    quote = s[i] == '"' || s[i] == ',' || s[i] == '\n' || s[i] == '\r';
  if (!quote) {
    rdf_out_puts(o, prefix);
    rdf_out_put(o, s, n);
    return;
  }
  rdf_out_putc(o, '"');
  rdf_out_puts(o, prefix);
  size_t run = 0;
  for (size_t i = 0; i < n; i++)
    if (s[i] == '"') {
      rdf_out_put(o, s + run, i + 1 - run); /* the quote, then its double */
      run = i;
    }
  rdf_out_put(o, s + run, n - run);
  rdf_out_putc(o, '"');
}

static int rdf_csv_head(rdf_results_t *r)
{
  for (size_t i = 0; i < r->rs_nvars; i++) {
    if (i)
      rdf_out_putc(r->rs_out, ',');
    rdf_csv_field(r->rs_out, r->rs_vars[i], strlen(r->rs_vars[i]), "");
  }
  return rdf_out_put(r->rs_out, "\r\n", 2);
}

static int rdf_csv_row(rdf_results_t *r, const rdf_term_t *v)
{
  for (size_t i = 0; i < r->rs_nvars; i++) {
    if (i)
      rdf_out_putc(r->rs_out, ',');
    if (v[i].rt_kind != RDF_NONE)
      rdf_csv_field(r->rs_out, v[i].rt_str, v[i].rt_len, v[i].rt_kind == RDF_BNODE ? "_:" : "");
  }
  return rdf_out_put(r->rs_out, "\r\n", 2);
}

static int rdf_csv_boolean(rdf_results_t *r, bool value)
{
  return rdf_out_puts(r->rs_out, value ? "_askResult\r\ntrue\r\n" : "_askResult\r\nfalse\r\n");
}

static int rdf_text_finish(rdf_results_t *r)
{
  return rdf_out_status(r->rs_out);
}

static int rdf_tsv_head(rdf_results_t *r)
{
  for (size_t i = 0; i < r->rs_nvars; i++) {
    rdf_out_puts(r->rs_out, i ? "\t?" : "?");
    rdf_out_puts(r->rs_out, r->rs_vars[i]);
  }
  return rdf_out_putc(r->rs_out, '\n');
}

static int rdf_tsv_row(rdf_results_t *r, const rdf_term_t *v)
{
  for (size_t i = 0; i < r->rs_nvars; i++) {
    if (i)
      rdf_out_putc(r->rs_out, '\t');
    rdf_esc_nt_term(r->rs_out, &v[i], true);
  }
  return rdf_out_putc(r->rs_out, '\n');
}

static int rdf_tsv_boolean(rdf_results_t *r, bool value)
{
  return rdf_out_puts(r->rs_out, value ? "?_askResult\ntrue\n" : "?_askResult\nfalse\n");
}

const rdf_results_ops_t rdf_results_csv_ops = {rdf_csv_head, rdf_csv_row, rdf_csv_boolean,
                                               rdf_text_finish};
const rdf_results_ops_t rdf_results_tsv_ops = {rdf_tsv_head, rdf_tsv_row, rdf_tsv_boolean,
                                               rdf_text_finish};
