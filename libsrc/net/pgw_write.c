/* pgw_write — encoders for the backend messages (server to client).
 *
 * Design notes: one function per message of the PostgreSQL documentation's
 * "Message Formats" section, each a begin/fields/end sequence on a pgw_buf_t.
 * They return the buffer's sticky status, so a caller may check each one or
 * only the last. Counts that the wire carries as Int16 are checked here:
 * a RowDescription of 70,000 columns must fail, not wrap.
 */
#include <stdio.h>
#include <string.h>

#include "net/net_int.h"

/* Authentication request codes ('R'). */
enum { AUTH_OK = 0, AUTH_SASL = 10, AUTH_SASL_CONTINUE = 11, AUTH_SASL_FINAL = 12 };

static int write_empty(pgw_buf_t *b, char type)
{
  pgw_buf_begin(b, type);
  return pgw_buf_end(b);
}

int pgw_write_ssl_answer(pgw_buf_t *b, char answer)
{
  return pgw_buf_put_byte(b, (uint8_t)answer);
}

int pgw_write_auth_ok(pgw_buf_t *b)
{
  pgw_buf_begin(b, 'R');
  pgw_buf_put_int32(b, AUTH_OK);
  return pgw_buf_end(b);
}

int pgw_write_auth_sasl(pgw_buf_t *b, const char *const *mechs)
{
  pgw_buf_begin(b, 'R');
  pgw_buf_put_int32(b, AUTH_SASL);
  for (; *mechs; mechs++)
    pgw_buf_put_str(b, *mechs);
  pgw_buf_put_byte(b, 0);
  return pgw_buf_end(b);
}

static int write_auth_data(pgw_buf_t *b, int32_t code, const void *data, size_t len)
{
  pgw_buf_begin(b, 'R');
  pgw_buf_put_int32(b, code);
  pgw_buf_put_bytes(b, data, len);
  return pgw_buf_end(b);
}

int pgw_write_auth_sasl_continue(pgw_buf_t *b, const void *data, size_t len)
{
  return write_auth_data(b, AUTH_SASL_CONTINUE, data, len);
}

int pgw_write_auth_sasl_final(pgw_buf_t *b, const void *data, size_t len)
{
  return write_auth_data(b, AUTH_SASL_FINAL, data, len);
}

int pgw_write_parameter_status(pgw_buf_t *b, const char *name, const char *value)
{
  pgw_buf_begin(b, 'S');
  pgw_buf_put_str(b, name);
  pgw_buf_put_str(b, value);
  return pgw_buf_end(b);
}

int pgw_write_backend_key(pgw_buf_t *b, int32_t pid, int32_t key)
{
  pgw_buf_begin(b, 'K');
  pgw_buf_put_int32(b, pid);
  pgw_buf_put_int32(b, key);
  return pgw_buf_end(b);
}

int pgw_write_ready(pgw_buf_t *b, pgw_tx_status_t status)
{
  pgw_buf_begin(b, 'Z');
  pgw_buf_put_byte(b, (uint8_t)status);
  return pgw_buf_end(b);
}

int pgw_write_row_description(pgw_buf_t *b, const pgw_field_t *fields, int n)
{
  if (pgw_buf_check_count(b, n) != CZ_OK)
    return CZ_ERR;
  pgw_buf_begin(b, 'T');
  pgw_buf_put_int16(b, (int16_t)n);
  for (int i = 0; i < n; i++) {
    const pgw_field_t *f = &fields[i];
    pgw_buf_put_str(b, f->fd_name);
    pgw_buf_put_int32(b, (int32_t)f->fd_table_oid);
    pgw_buf_put_int16(b, f->fd_attnum);
    pgw_buf_put_int32(b, (int32_t)f->fd_type_oid);
    pgw_buf_put_int16(b, f->fd_typlen);
    pgw_buf_put_int32(b, f->fd_typmod);
    pgw_buf_put_int16(b, f->fd_format);
  }
  return pgw_buf_end(b);
}

int pgw_write_data_row(pgw_buf_t *b, int n, const uint8_t *const *values, const int32_t *lens)
{
  if (pgw_buf_check_count(b, n) != CZ_OK)
    return CZ_ERR;
  pgw_buf_begin(b, 'D');
  pgw_buf_put_int16(b, (int16_t)n);
  for (int i = 0; i < n; i++) {
    /* Any negative length is NULL on the wire as -1: a client reads -1 only. */
    int32_t len = lens[i] < 0 ? -1 : lens[i];
    pgw_buf_put_int32(b, len);
    if (len > 0)
      pgw_buf_put_bytes(b, values[i], (size_t)len);
  }
  return pgw_buf_end(b);
}

int pgw_write_command_complete(pgw_buf_t *b, const char *tag)
{
  pgw_buf_begin(b, 'C');
  pgw_buf_put_str(b, tag);
  return pgw_buf_end(b);
}

int pgw_write_empty_query(pgw_buf_t *b) { return write_empty(b, 'I'); }

static int write_report(pgw_buf_t *b, char type, const char *severity, const err_t *e)
{
  pgw_buf_begin(b, type);
  pgw_buf_put_byte(b, 'S');
  pgw_buf_put_str(b, severity);
  pgw_buf_put_byte(b, 'V'); /* the untranslated severity, for drivers (9.6+) */
  pgw_buf_put_str(b, severity);
  pgw_buf_put_byte(b, 'C');
  pgw_buf_put_str(b, e->er_sqlstate);
  pgw_buf_put_byte(b, 'M');
  pgw_buf_put_str(b, e->er_msg);
  if (e->er_detail[0]) {
    pgw_buf_put_byte(b, 'D');
    pgw_buf_put_str(b, e->er_detail);
  }
  if (e->er_hint[0]) {
    pgw_buf_put_byte(b, 'H');
    pgw_buf_put_str(b, e->er_hint);
  }
  if (e->er_pos > 0) {
    char pos[16];
    snprintf(pos, sizeof pos, "%d", e->er_pos);
    pgw_buf_put_byte(b, 'P');
    pgw_buf_put_str(b, pos);
  }
  pgw_buf_put_byte(b, 0);
  return pgw_buf_end(b);
}

int pgw_write_error(pgw_buf_t *b, const char *severity, const err_t *e)
{
  return write_report(b, 'E', severity, e);
}

int pgw_write_notice(pgw_buf_t *b, const char *severity, const err_t *e)
{
  return write_report(b, 'N', severity, e);
}

int pgw_write_negotiate_version(pgw_buf_t *b, int32_t minor, const char *const *unknown,
                                int n_unknown)
{
  pgw_buf_begin(b, 'v');
  pgw_buf_put_int32(b, minor);
  pgw_buf_put_int32(b, n_unknown);
  for (int i = 0; i < n_unknown; i++)
    pgw_buf_put_str(b, unknown[i]);
  return pgw_buf_end(b);
}

int pgw_write_parse_complete(pgw_buf_t *b) { return write_empty(b, '1'); }
int pgw_write_bind_complete(pgw_buf_t *b) { return write_empty(b, '2'); }
int pgw_write_close_complete(pgw_buf_t *b) { return write_empty(b, '3'); }
int pgw_write_no_data(pgw_buf_t *b) { return write_empty(b, 'n'); }
int pgw_write_portal_suspended(pgw_buf_t *b) { return write_empty(b, 's'); }
int pgw_write_copy_done(pgw_buf_t *b) { return write_empty(b, 'c'); }

int pgw_write_parameter_description(pgw_buf_t *b, const uint32_t *oids, int n)
{
  if (pgw_buf_check_count(b, n) != CZ_OK)
    return CZ_ERR;
  pgw_buf_begin(b, 't');
  pgw_buf_put_int16(b, (int16_t)n);
  for (int i = 0; i < n; i++)
    pgw_buf_put_int32(b, (int32_t)oids[i]);
  return pgw_buf_end(b);
}

static int write_copy_response(pgw_buf_t *b, char type, int8_t format, const int16_t *formats,
                               int ncols)
{
  if (pgw_buf_check_count(b, ncols) != CZ_OK)
    return CZ_ERR;
  pgw_buf_begin(b, type);
  pgw_buf_put_byte(b, (uint8_t)format);
  pgw_buf_put_int16(b, (int16_t)ncols);
  for (int i = 0; i < ncols; i++)
    pgw_buf_put_int16(b, formats[i]);
  return pgw_buf_end(b);
}

int pgw_write_copy_in_response(pgw_buf_t *b, int8_t format, const int16_t *formats, int ncols)
{
  return write_copy_response(b, 'G', format, formats, ncols);
}

int pgw_write_copy_out_response(pgw_buf_t *b, int8_t format, const int16_t *formats, int ncols)
{
  return write_copy_response(b, 'H', format, formats, ncols);
}

int pgw_write_copy_data(pgw_buf_t *b, const void *data, size_t len)
{
  pgw_buf_begin(b, 'd');
  pgw_buf_put_bytes(b, data, len);
  return pgw_buf_end(b);
}
