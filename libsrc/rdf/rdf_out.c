/* rdf_out — the buffered output every writer of this module hands its text
 * to, flushed to a caller's sink in pieces.
 *
 * Design notes: writers stream (the HTTP server sends a result while the
 * query runs), so output never grows past one buffer: a piece that does
 * not fit flushes what is there first, and a piece larger than the buffer
 * goes to the sink directly. The first non-zero status of the sink sticks:
 * every later call returns it and writes nothing more.
 */
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf_int.h"

#define RDF_OUT_CAP 16384

struct rdf_out_s {
  rdf_sink_fn ro_fn;
  void *ro_ctx;
  int ro_status; /* first sink error, 0 while all is well */
  size_t ro_len;
  char ro_buf[RDF_OUT_CAP];
};

rdf_out_t *rdf_out_new(rdf_sink_fn fn, void *ctx)
{
  rdf_out_t *o = malloc(sizeof(*o));
  if (!o)
    return NULL;
  o->ro_fn = fn;
  o->ro_ctx = ctx;
  o->ro_status = 0;
  o->ro_len = 0;
  return o;
}

int rdf_out_flush(rdf_out_t *o)
{
  if (o->ro_status == 0 && o->ro_len)
    o->ro_status = o->ro_fn(o->ro_ctx, o->ro_buf, o->ro_len);
  o->ro_len = 0;
  return o->ro_status;
}

int rdf_out_status(const rdf_out_t *o)
{
  return o->ro_status;
}

int rdf_out_free(rdf_out_t *o)
{
  if (!o)
    return 0;
  int st = rdf_out_flush(o);
  free(o);
  return st;
}

int rdf_out_put(rdf_out_t *o, const char *s, size_t n)
{
  if (o->ro_status)
    return o->ro_status;
  if (o->ro_len + n > RDF_OUT_CAP && rdf_out_flush(o))
    return o->ro_status;
  if (n > RDF_OUT_CAP) {
    o->ro_status = o->ro_fn(o->ro_ctx, s, n);
    return o->ro_status;
  }
  memcpy(o->ro_buf + o->ro_len, s, n);
  o->ro_len += n;
  return 0;
}

int rdf_out_puts(rdf_out_t *o, const char *s)
{
  return rdf_out_put(o, s, strlen(s));
}

int rdf_out_putc(rdf_out_t *o, char c)
{
  if (o->ro_status)
    return o->ro_status;
  if (o->ro_len == RDF_OUT_CAP && rdf_out_flush(o))
    return o->ro_status;
  o->ro_buf[o->ro_len++] = c;
  return 0;
}
