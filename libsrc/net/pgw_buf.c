/* pgw_buf — the growable output buffer and the framing of one message.
 *
 * Design notes: a message is built in place: pgw_buf_begin writes the type
 * byte and a length placeholder, the caller appends fields, pgw_buf_end
 * patches the length. Errors are sticky so that a reply of many messages can
 * be written without a check after each field; a failed buffer keeps its
 * first error until pgw_buf_reset. Integers go out in network byte order.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "net/net_int.h"

void pgw_buf_init(pgw_buf_t *b)
{
  memset(b, 0, sizeof *b);
  err_clear(&b->pb_err);
}

void pgw_buf_free(pgw_buf_t *b)
{
  free(b->pb_data);
  pgw_buf_init(b);
}

void pgw_buf_reset(pgw_buf_t *b)
{
  b->pb_len = 0;
  b->pb_msg = 0;
  b->pb_in_msg = false;
  b->pb_failed = false;
  err_clear(&b->pb_err);
}

void pgw_buf_consume(pgw_buf_t *b, size_t n)
{
  if (n >= b->pb_len) {
    b->pb_len = 0;
    return;
  }
  memmove(b->pb_data, b->pb_data + n, b->pb_len - n);
  b->pb_len -= n;
}

int pgw_buf_status(const pgw_buf_t *b, err_t *e)
{
  if (!b->pb_failed)
    return CZ_OK;
  if (e)
    *e = b->pb_err;
  return CZ_ERR;
}

int pgw_buf_fail(pgw_buf_t *b, const char *sqlstate, const char *fmt, ...)
{
  if (!b->pb_failed) { /* the first error is the one worth reporting */
    va_list ap;
    va_start(ap, fmt);
    b->pb_failed = true;
    err_setv(&b->pb_err, sqlstate, fmt, ap);
    va_end(ap);
  }
  return CZ_ERR;
}

static int buf_reserve(pgw_buf_t *b, size_t n)
{
  if (b->pb_failed)
    return CZ_ERR;
  if (n <= b->pb_cap - b->pb_len)
    return CZ_OK;
  /* A message that will be refused at pgw_buf_end anyway is refused now,
   * before it costs a gigabyte of memory. */
  if (b->pb_in_msg && n > (size_t)PGW_MAX_MSG_LEN - (b->pb_len - b->pb_msg))
    return pgw_buf_fail(b, SQLSTATE_PROGRAM_LIMIT, "outgoing message exceeds the protocol limit");
  if (n > SIZE_MAX / 2 - b->pb_len)
    return pgw_buf_fail(b, SQLSTATE_OUT_OF_MEMORY, "out of memory for an outgoing message");
  size_t cap = b->pb_cap ? b->pb_cap : 256;
  while (cap - b->pb_len < n)
    cap *= 2;
  uint8_t *p = realloc(b->pb_data, cap);
  if (!p)
    return pgw_buf_fail(b, SQLSTATE_OUT_OF_MEMORY, "out of memory for an outgoing message");
  b->pb_data = p;
  b->pb_cap = cap;
  return CZ_OK;
}

int pgw_buf_put_bytes(pgw_buf_t *b, const void *p, size_t n)
{
  if (buf_reserve(b, n) != CZ_OK)
    return CZ_ERR;
  if (n)
    memcpy(b->pb_data + b->pb_len, p, n);
  b->pb_len += n;
  return CZ_OK;
}

void pgw_buf_truncate(pgw_buf_t *b, size_t len)
{
  if (len < b->pb_len)
    b->pb_len = len;
  b->pb_msg = 0;
  b->pb_in_msg = false;
  b->pb_failed = false;
  err_clear(&b->pb_err);
}

uint8_t *pgw_buf_room(pgw_buf_t *b, size_t n)
{
  if (buf_reserve(b, n) != CZ_OK)
    return NULL;
  return b->pb_data + b->pb_len;
}

void pgw_buf_advance(pgw_buf_t *b, size_t n)
{
  if (!b->pb_failed)
    b->pb_len += CZ_MIN(n, b->pb_cap - b->pb_len);
}

int pgw_buf_put_byte(pgw_buf_t *b, uint8_t v)
{
  return pgw_buf_put_bytes(b, &v, 1);
}

int pgw_buf_put_int16(pgw_buf_t *b, int16_t v)
{
  uint16_t u = (uint16_t)v;
  uint8_t x[2] = {(uint8_t)(u >> 8), (uint8_t)u};
  return pgw_buf_put_bytes(b, x, 2);
}

int pgw_buf_put_int32(pgw_buf_t *b, int32_t v)
{
  uint32_t u = (uint32_t)v;
  uint8_t x[4] = {(uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u};
  return pgw_buf_put_bytes(b, x, 4);
}

int pgw_buf_put_str(pgw_buf_t *b, const char *s)
{
  return pgw_buf_put_bytes(b, s, strlen(s) + 1);
}

int pgw_buf_begin(pgw_buf_t *b, char type)
{
  if (b->pb_in_msg)
    return pgw_buf_fail(b, SQLSTATE_INTERNAL, "pgw_buf_begin inside an unfinished message");
  if (type && pgw_buf_put_byte(b, (uint8_t)type) != CZ_OK)
    return CZ_ERR;
  b->pb_msg = b->pb_len;
  b->pb_in_msg = true;
  return pgw_buf_put_int32(b, 0);
}

int pgw_buf_end(pgw_buf_t *b)
{
  if (!b->pb_in_msg)
    return pgw_buf_fail(b, SQLSTATE_INTERNAL, "pgw_buf_end without pgw_buf_begin");
  b->pb_in_msg = false;
  if (b->pb_failed)
    return CZ_ERR;
  size_t len = b->pb_len - b->pb_msg;
  if (len > PGW_MAX_MSG_LEN)
    return pgw_buf_fail(b, SQLSTATE_PROGRAM_LIMIT, "outgoing message exceeds the protocol limit");
  uint32_t u = (uint32_t)len;
  uint8_t *p = b->pb_data + b->pb_msg;
  p[0] = (uint8_t)(u >> 24);
  p[1] = (uint8_t)(u >> 16);
  p[2] = (uint8_t)(u >> 8);
  p[3] = (uint8_t)u;
  return CZ_OK;
}

int pgw_buf_check_count(pgw_buf_t *b, int n)
{
  if (n < 0 || n > INT16_MAX)
    return pgw_buf_fail(b, SQLSTATE_PROGRAM_LIMIT, "count %d does not fit the protocol's Int16", n);
  return CZ_OK;
}
