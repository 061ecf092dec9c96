/* pgw_write_fe — encoders for the frontend messages (client to server).
 *
 * Design notes: the server never sends these; they exist so that tests, and
 * later the cluster's and benchmarks' internal clients, speak the protocol
 * through the same framing code the decoder is checked against. Int16 counts
 * are range-checked as in pgw_write.c.
 */
#include <string.h>

#include "net/net_int.h"

int pgw_write_startup(pgw_buf_t *b, uint32_t version, const char *const *names,
                      const char *const *values, int n)
{
  pgw_buf_begin(b, 0);
  pgw_buf_put_int32(b, (int32_t)version);
  for (int i = 0; i < n; i++) {
    pgw_buf_put_str(b, names[i]);
    pgw_buf_put_str(b, values[i]);
  }
  pgw_buf_put_byte(b, 0);
  return pgw_buf_end(b);
}

int pgw_write_request_code(pgw_buf_t *b, uint32_t code)
{
  pgw_buf_begin(b, 0);
  pgw_buf_put_int32(b, (int32_t)code);
  return pgw_buf_end(b);
}

int pgw_write_cancel(pgw_buf_t *b, int32_t pid, int32_t key)
{
  pgw_buf_begin(b, 0);
  pgw_buf_put_int32(b, (int32_t)PGW_CANCEL_REQUEST_CODE);
  pgw_buf_put_int32(b, pid);
  pgw_buf_put_int32(b, key);
  return pgw_buf_end(b);
}

static int write_one_str(pgw_buf_t *b, char type, const char *s)
{
  pgw_buf_begin(b, type);
  pgw_buf_put_str(b, s);
  return pgw_buf_end(b);
}

int pgw_write_query(pgw_buf_t *b, const char *sql) { return write_one_str(b, 'Q', sql); }
int pgw_write_password(pgw_buf_t *b, const char *pw) { return write_one_str(b, 'p', pw); }
int pgw_write_copy_fail(pgw_buf_t *b, const char *msg) { return write_one_str(b, 'f', msg); }

int pgw_write_parse(pgw_buf_t *b, const char *stmt, const char *query, const uint32_t *types,
                    int n_types)
{
  if (pgw_buf_check_count(b, n_types) != CZ_OK)
    return CZ_ERR;
  pgw_buf_begin(b, 'P');
  pgw_buf_put_str(b, stmt);
  pgw_buf_put_str(b, query);
  pgw_buf_put_int16(b, (int16_t)n_types);
  for (int i = 0; i < n_types; i++)
    pgw_buf_put_int32(b, (int32_t)types[i]);
  return pgw_buf_end(b);
}

int pgw_write_bind(pgw_buf_t *b, const pgw_bind_t *bi)
{
  if (pgw_buf_check_count(b, bi->bi_n_formats) != CZ_OK || pgw_buf_check_count(b, bi->bi_n_params) != CZ_OK ||
      pgw_buf_check_count(b, bi->bi_n_result_formats) != CZ_OK)
    return CZ_ERR;
  pgw_buf_begin(b, 'B');
  pgw_buf_put_str(b, bi->bi_portal);
  pgw_buf_put_str(b, bi->bi_stmt);
  pgw_buf_put_int16(b, (int16_t)bi->bi_n_formats);
  for (int i = 0; i < bi->bi_n_formats; i++)
    pgw_buf_put_int16(b, bi->bi_formats[i]);
  pgw_buf_put_int16(b, (int16_t)bi->bi_n_params);
  for (int i = 0; i < bi->bi_n_params; i++) {
    int32_t len = bi->bi_lens[i] < 0 ? -1 : bi->bi_lens[i];
    pgw_buf_put_int32(b, len);
    if (len > 0)
      pgw_buf_put_bytes(b, bi->bi_values[i], (size_t)len);
  }
  pgw_buf_put_int16(b, (int16_t)bi->bi_n_result_formats);
  for (int i = 0; i < bi->bi_n_result_formats; i++)
    pgw_buf_put_int16(b, bi->bi_result_formats[i]);
  return pgw_buf_end(b);
}

static int write_target(pgw_buf_t *b, char type, char what, const char *name)
{
  pgw_buf_begin(b, type);
  pgw_buf_put_byte(b, (uint8_t)what);
  pgw_buf_put_str(b, name);
  return pgw_buf_end(b);
}

int pgw_write_describe(pgw_buf_t *b, char what, const char *name)
{
  return write_target(b, 'D', what, name);
}

int pgw_write_close(pgw_buf_t *b, char what, const char *name)
{
  return write_target(b, 'C', what, name);
}

int pgw_write_execute(pgw_buf_t *b, const char *portal, int32_t max_rows)
{
  pgw_buf_begin(b, 'E');
  pgw_buf_put_str(b, portal);
  pgw_buf_put_int32(b, max_rows);
  return pgw_buf_end(b);
}

static int write_empty(pgw_buf_t *b, char type)
{
  pgw_buf_begin(b, type);
  return pgw_buf_end(b);
}

int pgw_write_sync(pgw_buf_t *b) { return write_empty(b, 'S'); }
int pgw_write_flush(pgw_buf_t *b) { return write_empty(b, 'H'); }
int pgw_write_terminate(pgw_buf_t *b) { return write_empty(b, 'X'); }

int pgw_write_sasl_initial(pgw_buf_t *b, const char *mech, const void *data, int32_t len)
{
  pgw_buf_begin(b, 'p');
  pgw_buf_put_str(b, mech);
  pgw_buf_put_int32(b, len < 0 ? -1 : len);
  if (len > 0)
    pgw_buf_put_bytes(b, data, (size_t)len);
  return pgw_buf_end(b);
}

int pgw_write_sasl_response(pgw_buf_t *b, const void *data, size_t len)
{
  pgw_buf_begin(b, 'p');
  pgw_buf_put_bytes(b, data, len);
  return pgw_buf_end(b);
}
