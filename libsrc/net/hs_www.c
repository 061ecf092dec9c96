/* hs_www — the query page's static files (libsrc/net/www/: index.html,
 * the page's script and style, the CodeMirror bundle and its licence),
 * compiled into the binary by www_embed.sh (hs_www_gen.c), so the server
 * needs no files at run time and the page makes no request beyond this
 * server. Each answer carries its content type, an ETag (the file's CRC
 * and length, fixed at build time) and `Cache-Control: no-cache`: a
 * browser keeps the files but asks again each time, and a matching
 * If-None-Match gets 304 with no body, so a new build is never hidden by
 * a stale cache. */
#include <string.h>

#include "net/hs_int.h"

const hs_www_file_t *hs_www_find(const char *url)
{
  if (strcmp(url, "/") == 0 || strcmp(url, "/sparql") == 0)
    url = "/index.html";
  for (int i = 0; i < hs_www_nfiles; i++)
    if (strcmp(hs_www_files[i].wf_path, url) == 0)
      return &hs_www_files[i];
  return NULL;
}

/* Whether an If-None-Match value (a list of entity tags, or "*") names
 * etag (RFC 9110 §13.1.2, weak comparison: a W/ prefix is ignored). */
static bool etag_listed(const char *inm, const char *etag)
{
  size_t el = strlen(etag);
  const char *s = inm;
  while (*s) {
    while (*s == ' ' || *s == '\t' || *s == ',')
      s++;
    if (*s == '*')
      return true;
    if (strncmp(s, "W/", 2) == 0)
      s += 2;
    if (strncmp(s, etag, el) == 0 && (s[el] == '\0' || s[el] == ',' || s[el] == ' '))
      return true;
    while (*s && *s != ',')
      s++;
  }
  return false;
}

enum MHD_Result hs_www_reply(hs_req_t *r, const hs_www_file_t *f)
{
  const char *inm = MHD_lookup_connection_value(r->rq_conn, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_IF_NONE_MATCH);
  bool fresh = inm && etag_listed(inm, f->wf_etag);
  struct MHD_Response *resp = MHD_create_response_from_buffer(
      fresh ? 0 : f->wf_len, fresh ? (void *)"" : (void *)f->wf_data, MHD_RESPMEM_PERSISTENT);
  if (!resp)
    return MHD_NO;
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, f->wf_type);
  MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, f->wf_etag);
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
  MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
  enum MHD_Result rc =
      MHD_queue_response(r->rq_conn, fresh ? MHD_HTTP_NOT_MODIFIED : MHD_HTTP_OK, resp);
  MHD_destroy_response(resp);
  r->rq_answered = true;
  r->rq_status = fresh ? MHD_HTTP_NOT_MODIFIED : MHD_HTTP_OK;
  return rc;
}
