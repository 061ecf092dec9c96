/* pgs_copy — the COPY sub-protocol: COPY … TO STDOUT (CopyOutResponse,
 * CopyData…, CopyDone) and COPY … FROM STDIN (CopyInResponse, then the
 * client's CopyData… and CopyDone or CopyFail), from either query protocol.
 *
 * Design notes: COPY FROM STDIN is a connection phase (PGS_PH_COPY_IN):
 * each CopyData goes to the engine as it is decoded, whatever its line
 * boundaries, so a bulk load streams through a bounded buffer. When it
 * ends, the simple-query job goes on with its next statement, or (from
 * Execute) the client's Sync follows. Any failure rolls the copy back
 * (eportal_copy_in_fail); data the client still sends is then dropped
 * (READY ignores CopyData/CopyDone/CopyFail; the extended protocol skips
 * to Sync). COPY TO STDOUT is produced by the engine in one call, so it
 * cannot park: it waits for a slow reader, at most PGS_COPY_OUT_STALL_MS
 * without progress.
 */
#include <string.h>

#include "net/pgs_int.h"

static int copy_out_cb(void *ctx, const char *data, size_t len, err_t *e)
{
  pgs_conn_t *c = ctx;
  if (pgw_write_copy_data(&c->c_out, data, len) != CZ_OK)
    return pgw_buf_status(&c->c_out, e);
  if (c->c_out.pb_len >= PGS_OUT_HIGH_WATER)
    return pgs_io_flush_wait(c, PGS_COPY_OUT_STALL_MS, e);
  return CZ_OK;
}

/* Every column's format code: 0 text (and CSV), 1 binary. */
static int16_t *col_formats(pgs_conn_t *c, int n, int16_t format)
{
  int16_t *f = arena_zalloc(c->c_msg_arena, (size_t)(n > 0 ? n : 1) * sizeof *f);
  for (int i = 0; i < n; i++)
    f[i] = format;
  return f;
}

int pgs_copy_start(pgs_conn_t *c, const estmt_t *st, eportal_t *p, pgs_portal_t *pp,
                   bool *copy_in, err_t *e)
{
  if (estmt_kind(st) == ESTMT_COPY_OUT) {
    *copy_in = false;
    const ecol_t *cols;
    int n;
    estmt_columns(st, &cols, &n);
    if (n < 0)
      n = 0;
    /* Text and CSV are both the textual COPY format (0) on the wire. */
    int16_t fmt = estmt_copy_binary(st) ? 1 : 0;
    pgw_write_copy_out_response(&c->c_out, (int8_t)fmt, col_formats(c, n, fmt), n);
    if (eportal_copy_out(p, copy_out_cb, c, e) != CZ_OK)
      return CZ_ERR;
    pgw_write_copy_done(&c->c_out);
    pgs_send_notices(c);
    pgw_write_command_complete(&c->c_out, eportal_tag(p));
    if (pp)
      pp->pp_done = true;
    return CZ_OK;
  }
  int ncols = 0, format = 0;
  if (eportal_copy_in_begin(p, &ncols, &format, e) != CZ_OK)
    return CZ_ERR;
  pgw_write_copy_in_response(&c->c_out, (int8_t)format, col_formats(c, ncols, (int16_t)format),
                             ncols);
  c->c_copy_binary = format == 1;
  c->c_phase = PGS_PH_COPY_IN;
  c->c_copy_tail_len = 0;
  c->c_copy_portal = p;
  c->c_copy_extended = pp != NULL;
  c->c_copy_pp = pp;
  *copy_in = true;
  return CZ_OK;
}

/* Length a UTF-8 lead byte announces (1 for bytes that cannot lead). */
static size_t lead_len(uint8_t b)
{
  return b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 1;
}

/* Whether s[0..n) (n shorter than its lead announces) can still become a
 * valid sequence: completed with the smallest allowed bytes, it must be. */
static bool utf8_prefix_ok(const uint8_t *s, size_t n)
{
  size_t want = lead_len(s[0]);
  if (want == 1 || n >= want)
    return false;
  uint8_t t[4];
  memcpy(t, s, n);
  for (size_t i = n; i < want; i++)
    t[i] = i == 1 && s[0] == 0xE0 ? 0xA0 : i == 1 && s[0] == 0xF0 ? 0x90 : 0x80;
  return pgw_utf8_check(t, want) == want;
}

/* COPY FROM STDIN data is client-encoding text (only the text and CSV
 * formats exist), checked here at the protocol boundary as every other
 * text: a sequence split across CopyData messages waits in c_copy_tail. */
static int copy_check_utf8(pgs_conn_t *c, const uint8_t *p, size_t len, err_t *e)
{
  if (c->c_copy_tail_len > 0) {
    size_t want = lead_len(c->c_copy_tail[0]);
    size_t take = CZ_MIN(want - (size_t)c->c_copy_tail_len, len);
    memcpy(c->c_copy_tail + c->c_copy_tail_len, p, take);
    c->c_copy_tail_len += (int)take;
    p += take;
    len -= take;
    size_t have = (size_t)c->c_copy_tail_len;
    if (have < want) {
      if (!utf8_prefix_ok(c->c_copy_tail, have))
        return pgw_utf8_error(e, c->c_copy_tail, have, 0);
      return CZ_OK;
    }
    if (pgw_utf8_check(c->c_copy_tail, want) != want)
      return pgw_utf8_error(e, c->c_copy_tail, want, 0);
    c->c_copy_tail_len = 0;
  }
  size_t bad = pgw_utf8_check(p, len);
  if (bad == len)
    return CZ_OK;
  if (utf8_prefix_ok(p + bad, len - bad)) {
    memcpy(c->c_copy_tail, p + bad, len - bad);
    c->c_copy_tail_len = (int)(len - bad);
    return CZ_OK;
  }
  return pgw_utf8_error(e, p, len, bad);
}

static pgs_next_t copy_end(pgs_conn_t *c, const err_t *failure)
{
  c->c_phase = PGS_PH_READY;
  c->c_copy_portal = NULL;
  if (failure)
    pgs_send_error(c, "ERROR", failure);
  if (c->c_copy_extended) {
    if (failure) {
      c->c_ignore_till_sync = true;
    } else {
      c->c_copy_pp->pp_done = true;
      pgs_send_notices(c);
    }
    c->c_copy_pp = NULL;
  } else {
    pgs_simple_copy_ended(c, failure != NULL);
  }
  return PGS_GO_ON;
}

pgs_next_t pgs_copy_message(pgs_conn_t *c, const pgw_fe_msg_t *m)
{
  err_t e;
  eportal_t *p = c->c_copy_portal;
  switch (m->fm_kind) {
  case PGW_FE_COPY_DATA:
    /* binary data is no text: its text fields are checked as they are read */
    if ((!c->c_copy_binary && copy_check_utf8(c, m->fm_u.data.data, m->fm_u.data.len, &e) != CZ_OK) ||
        eportal_copy_in_data(p, (const char *)m->fm_u.data.data, m->fm_u.data.len, &e) != CZ_OK) {
      eportal_copy_in_fail(p, e.er_msg);
      return copy_end(c, &e);
    }
    return PGS_GO_ON;
  case PGW_FE_COPY_DONE:
    if (c->c_copy_tail_len > 0) { /* the data ended inside a sequence */
      pgw_utf8_error(&e, c->c_copy_tail, (size_t)c->c_copy_tail_len, 0);
      eportal_copy_in_fail(p, e.er_msg);
      return copy_end(c, &e);
    }
    if (eportal_copy_in_done(p, &e) != CZ_OK)
      return copy_end(c, &e);
    pgs_send_notices(c);
    pgw_write_command_complete(&c->c_out, eportal_tag(p));
    return copy_end(c, NULL);
  case PGW_FE_COPY_FAIL:
    eportal_copy_in_fail(p, m->fm_u.copy_fail.message);
    err_set(&e, SQLSTATE_QUERY_CANCELED, "COPY from stdin failed: %s", m->fm_u.copy_fail.message);
    return copy_end(c, &e);
  case PGW_FE_FLUSH:
  case PGW_FE_SYNC:
    /* The protocol has the server ignore these during COPY FROM STDIN. */
    return PGS_GO_ON;
  case PGW_FE_TERMINATE:
    return PGS_CLOSE; /* pgs_conn_destroy fails the copy */
  default:
    eportal_copy_in_fail(p, "unexpected message");
    err_set(&e, SQLSTATE_PROTOCOL_VIOLATION,
            "unexpected message type 0x%02X during COPY from stdin",
            (unsigned)(uint8_t)m->fm_type);
    return copy_end(c, &e);
  }
}

pgs_next_t pgs_copy_invalid(pgs_conn_t *c, const err_t *e)
{
  eportal_copy_in_fail(c->c_copy_portal, e->er_msg);
  return copy_end(c, e);
}
