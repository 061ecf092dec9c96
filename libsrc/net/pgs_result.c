/* pgs_result — the replies both query protocols share: RowDescription, the
 * row stream (DataRow), errors, notices, ParameterStatus, ReadyForQuery.
 *
 * Design notes: rows are formatted straight into the output buffer (room
 * for the value's largest form is reserved, the value written in place,
 * its length patched): no copy and no allocation per value. A result is
 * run in steps of PGS_CHUNK_ROWS rows; between steps, output above
 * PGS_OUT_HIGH_WATER is sent, and if the client does not take it the
 * stream parks (PGS_ROWS_PARKED) and the connection waits for writability
 * without holding its thread.
 */
#include <string.h>

#include "net/pgs_int.h"

int pgs_chars_before(const char *text, size_t off)
{
  int n = 0;
  for (size_t i = 0; i < off; i++)
    if (((uint8_t)text[i] & 0xC0) != 0x80)
      n++;
  return n;
}

void pgs_maybe_flush(pgs_conn_t *c)
{
  /* EOF or a failed buffer surface at the connection's next flush. */
  (void)pgs_io_flush(c);
}

static void notice_cb(void *ctx, const char *severity, const err_t *notice)
{
  pgs_conn_t *c = ctx;
  pgw_write_notice(&c->c_out, severity, notice);
}

void pgs_send_notices(pgs_conn_t *c)
{
  if (c->c_sess)
    esession_drain_notices(c->c_sess, notice_cb, c);
}

void pgs_send_error(pgs_conn_t *c, const char *severity, const err_t *e)
{
  err_t worded;
  if (atomic_load(&c->c_stmt_timed_out)) {
    worded = *e;
    pgs_timeout_word(c, &worded);
    e = &worded;
  }
  pgs_send_notices(c);
  /* An error while a reply was half built (the buffer failed) must not
   * cost the messages before it; the failed part is dropped. */
  if (pgw_buf_status(&c->c_out, NULL) != CZ_OK)
    pgw_buf_truncate(&c->c_out, c->c_out.pb_in_msg ? c->c_out.pb_msg - 1 : c->c_out.pb_len);
  pgw_write_error(&c->c_out, severity, e);
}

static void param_cb(void *ctx, const char *name, const char *value)
{
  pgs_conn_t *c = ctx;
  pgw_write_parameter_status(&c->c_out, name, value);
}

void pgs_send_params(pgs_conn_t *c, bool only_changed)
{
  if (c->c_sess)
    esession_report_params(c->c_sess, only_changed, param_cb, c);
}

void pgs_send_ready(pgs_conn_t *c)
{
  pgs_timeout_stop(c); /* nothing runs between ReadyForQuery and the next message */
  pgw_write_ready(&c->c_out, (pgw_tx_status_t)esession_tx_status(c->c_sess));
}

void pgs_send_row_description(pgs_conn_t *c, const estmt_t *st, const int16_t *formats)
{
  const ecol_t *cols;
  int n;
  estmt_columns(st, &cols, &n);
  if (n < 0) {
    pgw_write_no_data(&c->c_out);
    return;
  }
  pgw_field_t *f = arena_alloc(c->c_msg_arena, (size_t)(n ? n : 1) * sizeof *f);
  for (int i = 0; i < n; i++) {
    f[i].fd_name = cols[i].ec_name;
    f[i].fd_table_oid = cols[i].ec_table_oid;
    f[i].fd_attnum = cols[i].ec_attnum;
    /* arrays are text (types.h), described as arrays (binary: array_send's form) */
    f[i].fd_type_oid = ty_pg_array_oid(cols[i].ec_type);
    f[i].fd_typlen = ty_pg_typlen(cols[i].ec_type);
    f[i].fd_typmod = ty_pg_typmod(cols[i].ec_type);
    f[i].fd_format = formats ? formats[i] : 0;
  }
  pgw_write_row_description(&c->c_out, f, n);
}

typedef struct sink_s {
  pgs_conn_t *sk_conn;
  const int16_t *sk_formats; /* NULL: all text */
  int64_t sk_rows;
} sink_t;

static inline void put_be32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* One DataRow per row of b, each value in its column's format. */
static int sink_rows(void *ctx, const batch_t *b, err_t *e)
{
  sink_t *k = ctx;
  pgw_buf_t *out = &k->sk_conn->c_out;
  int nc = b->b_ncols;
  for (int r = 0; r < b->b_n; r++) {
    size_t mark = out->pb_len;
    pgw_buf_begin(out, 'D');
    pgw_buf_put_int16(out, (int16_t)nc);
    for (int j = 0; j < nc; j++) {
      const vec_t *v = &b->b_cols[j];
      if (v->v_null[r]) {
        pgw_buf_put_int32(out, -1);
        continue;
      }
      datum_t d;
      vec_get(v, r, &d);
      bool bin = k->sk_formats && k->sk_formats[j] == 1;
      size_t cap = bin ? ty_binary_max(v->v_type, &d) : ty_text_max(v->v_type, &d);
      uint8_t *p = pgw_buf_room(out, 4 + cap);
      if (!p)
        break;
      int n = bin ? ty_format_binary(v->v_type, &d, p + 4, cap)
                  : ty_format_text(v->v_type, &d, (char *)p + 4, cap);
      if (n < 0) {
        pgw_buf_truncate(out, mark);
        return err_set(e, SQLSTATE_INTERNAL, "value of column %d could not be formatted", j + 1);
      }
      put_be32(p, (uint32_t)n);
      pgw_buf_advance(out, 4 + (size_t)n);
    }
    pgw_buf_end(out);
    if (pgw_buf_status(out, e) != CZ_OK) {
      pgw_buf_truncate(out, mark);
      return CZ_ERR;
    }
  }
  k->sk_rows += b->b_n;
  return CZ_OK;
}

int pgs_pump_rows(pgs_conn_t *c, eportal_t *p, const int16_t *formats, bool limited,
                  int64_t *left, int *outcome, err_t *e)
{
  sink_t k = {.sk_conn = c, .sk_formats = formats};
  for (;;) {
    int64_t want = PGS_CHUNK_ROWS;
    if (limited && *left < want)
      want = *left;
    bool suspended = false;
    k.sk_rows = 0;
    if (eportal_execute(p, want, sink_rows, &k, &suspended, e) != CZ_OK)
      return CZ_ERR;
    if (limited)
      *left -= k.sk_rows;
    if (!suspended) {
      *outcome = PGS_ROWS_DONE;
      return CZ_OK;
    }
    if (limited && *left <= 0) {
      *outcome = PGS_ROWS_SUSPENDED;
      return CZ_OK;
    }
    if (c->c_out.pb_len >= PGS_OUT_HIGH_WATER) {
      pgs_maybe_flush(c);
      if (c->c_out.pb_len >= PGS_OUT_HIGH_WATER) {
        *outcome = PGS_ROWS_PARKED;
        return CZ_OK;
      }
    }
  }
}
