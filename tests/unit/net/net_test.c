/* net_test — shared helpers of the net unit tests; see net_test.h. */
#include <stdlib.h>
#include <string.h>

#include "net_test.h"

static void put_bytes(FILE *out, const uint8_t *p, int32_t len)
{
  if (len < 0) {
    fputs("NULL", out);
    return;
  }
  fputc('[', out);
  for (int32_t i = 0; i < len; i++)
    fprintf(out, "%02x", p[i]);
  fputc(']', out);
}

static void put_formats(FILE *out, const int16_t *f, int n)
{
  fprintf(out, " %d:", n);
  for (int i = 0; i < n; i++)
    fprintf(out, "%d,", f[i]);
}

void nt_describe(const pgw_fe_msg_t *m, FILE *out)
{
  const pgw_bind_t *bi = &m->fm_u.bind;
  fprintf(out, "kind=%d type=%d len=%u", m->fm_kind, m->fm_type, m->fm_len);
  switch (m->fm_kind) {
  case PGW_FE_STARTUP:
    fprintf(out, " v=%08x", m->fm_u.startup.su_version);
    for (int i = 0; i < m->fm_u.startup.su_n_params; i++)
      fprintf(out, " '%s'='%s'", m->fm_u.startup.su_names[i], m->fm_u.startup.su_values[i]);
    break;
  case PGW_FE_CANCEL:
    fprintf(out, " pid=%d key=%d", m->fm_u.cancel.pid, m->fm_u.cancel.key);
    break;
  case PGW_FE_QUERY:
    fprintf(out, " '%s'", m->fm_u.query.sql);
    break;
  case PGW_FE_PARSE:
    fprintf(out, " '%s' '%s' %d:", m->fm_u.parse.pa_stmt, m->fm_u.parse.pa_query,
            m->fm_u.parse.pa_n_types);
    for (int i = 0; i < m->fm_u.parse.pa_n_types; i++)
      fprintf(out, "%u,", m->fm_u.parse.pa_types[i]);
    break;
  case PGW_FE_BIND:
    fprintf(out, " '%s' '%s'", bi->bi_portal, bi->bi_stmt);
    put_formats(out, bi->bi_formats, bi->bi_n_formats);
    fprintf(out, " %d:", bi->bi_n_params);
    for (int i = 0; i < bi->bi_n_params; i++)
      put_bytes(out, bi->bi_values[i], bi->bi_lens[i]);
    put_formats(out, bi->bi_result_formats, bi->bi_n_result_formats);
    break;
  case PGW_FE_DESCRIBE:
  case PGW_FE_CLOSE:
    fprintf(out, " %c '%s'", m->fm_u.target.what, m->fm_u.target.name);
    break;
  case PGW_FE_EXECUTE:
    fprintf(out, " '%s' %d", m->fm_u.execute.portal, m->fm_u.execute.max_rows);
    break;
  case PGW_FE_PASSWORD:
  case PGW_FE_COPY_DATA:
    fputc(' ', out);
    put_bytes(out, m->fm_u.data.data, (int32_t)m->fm_u.data.len);
    break;
  case PGW_FE_COPY_FAIL:
    fprintf(out, " '%s'", m->fm_u.copy_fail.message);
    break;
  default:
    break;
  }
  fputc('\n', out);
}

char *nt_decode_stream(const uint8_t *data, size_t len, size_t (*chunk)(void *ctx), void *ctx)
{
  char *text = NULL;
  size_t text_len = 0;
  FILE *out = open_memstream(&text, &text_len);
  pgw_decoder_t *d = pgw_dec_create();
  pgw_fe_msg_t m;
  err_t e;
  size_t off = 0;
  int rc = PGW_NEED_MORE;
  for (;;) {
    size_t n = chunk ? chunk(ctx) : 0;
    if (n == 0 || n > len - off)
      n = len - off;
    if (pgw_dec_feed(d, data + off, n, &e) != CZ_OK)
      break;
    off += n;
    while ((rc = pgw_dec_next(d, &m, &e)) == PGW_MSG || rc == PGW_MSG_INVALID) {
      if (rc == PGW_MSG_INVALID) /* skipped, the decoder goes on */
        fprintf(out, "INVALID %c %s %s\n", m.fm_type, e.er_sqlstate, e.er_msg);
      else
        nt_describe(&m, out);
    }
    if (rc == CZ_ERR || off == len)
      break;
  }
  if (rc == CZ_ERR)
    fprintf(out, "ERROR %s %s\n", e.er_sqlstate, e.er_msg);
  else
    fprintf(out, "NEED_MORE %zu\n", pgw_dec_pending(d));
  pgw_dec_destroy(d);
  fclose(out);
  return text;
}
