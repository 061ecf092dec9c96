/* rdf_results — SPARQL query results writers: the object and the order of
 * calls (head, rows, finish; or boolean, finish), over one format's
 * functions (rdf_results_json.c, rdf_results_xml.c, rdf_results_text.c).
 *
 * Design notes: a result is written row by row into an rdf_out_t that
 * flushes to the caller's sink every 16 KB, so the HTTP server can stream
 * a result of any size. Calls out of order are a programming error and
 * return -1 without writing.
 */
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf_int.h"

rdf_results_t *rdf_results_new(rdf_results_fmt_t fmt, rdf_sink_fn fn, void *ctx)
{
  const rdf_results_ops_t *ops = fmt == RDF_RESULTS_JSON  ? &rdf_results_json_ops
                                 : fmt == RDF_RESULTS_XML ? &rdf_results_xml_ops
                                 : fmt == RDF_RESULTS_CSV ? &rdf_results_csv_ops
                                 : fmt == RDF_RESULTS_TSV ? &rdf_results_tsv_ops
                                                          : NULL;
  if (!ops)
    return NULL;
  rdf_results_t *r = calloc(1, sizeof(*r));
  if (!r)
    return NULL;
  r->rs_fmt = fmt;
  r->rs_ops = ops;
  r->rs_out = rdf_out_new(fn, ctx);
  if (!r->rs_out) {
    free(r);
    return NULL;
  }
  return r;
}

const char *rdf_results_media_type(rdf_results_fmt_t fmt)
{
  switch (fmt) {
  case RDF_RESULTS_JSON: return "application/sparql-results+json";
  case RDF_RESULTS_XML: return "application/sparql-results+xml";
  case RDF_RESULTS_CSV: return "text/csv; charset=utf-8";
  case RDF_RESULTS_TSV: return "text/tab-separated-values; charset=utf-8";
  }
  return NULL;
}

int rdf_results_head(rdf_results_t *r, const char *const *vars, size_t nvars)
{
  if (r->rs_state != 0)
    return -1;
  r->rs_vars = calloc(nvars + 1, sizeof(char *));
  if (!r->rs_vars)
    return -1;
  for (size_t i = 0; i < nvars; i++)
    if (!(r->rs_vars[i] = strdup(vars[i])))
      return -1;
  r->rs_nvars = nvars;
  r->rs_state = 1;
  return r->rs_ops->rf_head(r);
}

int rdf_results_row(rdf_results_t *r, const rdf_term_t *values)
{
  if (r->rs_state != 1)
    return -1;
  int st = r->rs_ops->rf_row(r, values);
  r->rs_rows++;
  return st;
}

int rdf_results_boolean(rdf_results_t *r, bool value)
{
  if (r->rs_state != 0)
    return -1;
  r->rs_state = 2;
  return r->rs_ops->rf_boolean(r, value);
}

void rdf_results_truncated(rdf_results_t *r, uint64_t max_rows)
{
  r->rs_cut_at = max_rows ? max_rows : 1;
}

int rdf_results_flush(rdf_results_t *r)
{
  return rdf_out_flush(r->rs_out);
}

int rdf_results_finish(rdf_results_t *r)
{
  if (!r)
    return 0;
  int st = 0;
  if (r->rs_state == 1)
    st = r->rs_ops->rf_finish(r);
  else if (r->rs_state == 0)
    st = -1;
  int fst = rdf_out_free(r->rs_out);
  for (size_t i = 0; r->rs_vars && i < r->rs_nvars; i++)
    free(r->rs_vars[i]);
  free(r->rs_vars);
  free(r);
  return st ? st : fst;
}
