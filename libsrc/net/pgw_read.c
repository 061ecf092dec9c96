/* pgw_read — the incremental decoder: frames frontend messages out of bytes
 * as they arrive.
 *
 * Design notes: bytes collect in one growable receive buffer; pgw_dec_next
 * looks at the undecoded front of it and either returns one whole message,
 * asks for more, or fails. A length word is judged as soon as it arrives,
 * before the body: a type byte we do not know, a length below 4 or above the
 * type's limit fails at once, so a hostile peer cannot make us buffer a
 * gigabyte for a Sync. Decoding never depends on how the bytes were split
 * across reads.
 *
 * Phases:
 *
 *   STARTUP --StartupMessage--> TYPED --Terminate--> CLOSED
 *      |  ^                                    any error from any phase
 *      |  +--SSLRequest/GSSENCRequest              --> FAILED (sticky)
 *      +--CancelRequest--> CLOSED
 *
 * After SSLRequest or GSSENCRequest no byte may already be waiting: the
 * client must wait for the one-byte answer, and bytes sent before a TLS
 * handshake would otherwise be taken as if they had come through it
 * (PostgreSQL's CVE-2021-23214).
 */
#include <stdlib.h>
#include <string.h>

#include "net/net_int.h"

typedef enum pd_phase_e { PD_STARTUP, PD_TYPED, PD_CLOSED, PD_FAILED } pd_phase_t;

struct pgw_decoder_s {
  uint8_t *pd_buf;
  size_t pd_cap;
  size_t pd_start;    /* first byte not yet decoded */
  size_t pd_end;      /* one past the last byte received */
  pd_phase_t pd_phase;
  err_t pd_err;       /* the error that put us in PD_FAILED */
  arena_t *pd_arena;  /* arrays of the last message; reset by each pgw_dec_next */
};

pgw_decoder_t *pgw_dec_create(void)
{
  pgw_decoder_t *d = calloc(1, sizeof *d);
  if (!d)
    return NULL;
  d->pd_arena = arena_create(NULL, "pgw_decoder");
  d->pd_phase = PD_STARTUP;
  err_clear(&d->pd_err);
  return d;
}

void pgw_dec_destroy(pgw_decoder_t *d)
{
  if (!d)
    return;
  arena_destroy(d->pd_arena);
  free(d->pd_buf);
  free(d);
}

size_t pgw_dec_pending(const pgw_decoder_t *d) { return d->pd_end - d->pd_start; }

bool pgw_dec_in_startup(const pgw_decoder_t *d) { return d->pd_phase == PD_STARTUP; }

int pgw_dec_reserve(pgw_decoder_t *d, size_t want, uint8_t **p, size_t *avail, err_t *e)
{
  if (want == 0)
    want = 1;
  if (d->pd_cap - d->pd_end < want && d->pd_start > 0) {
    /* Slide the undecoded bytes to the front; this is what invalidates the
     * last decoded message. */
    memmove(d->pd_buf, d->pd_buf + d->pd_start, d->pd_end - d->pd_start);
    d->pd_end -= d->pd_start;
    d->pd_start = 0;
  }
  if (d->pd_cap - d->pd_end < want) {
    if (want > SIZE_MAX / 4 - d->pd_end)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "receive buffer request of %zu bytes", want);
    size_t cap = d->pd_cap ? d->pd_cap : 8192;
    while (cap - d->pd_end < want)
      cap *= 2;
    uint8_t *nb = realloc(d->pd_buf, cap);
    if (!nb)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for a %zu-byte receive buffer", cap);
    d->pd_buf = nb;
    d->pd_cap = cap;
  }
  *p = d->pd_buf + d->pd_end;
  *avail = d->pd_cap - d->pd_end;
  return CZ_OK;
}

void pgw_dec_trim(pgw_decoder_t *d, size_t keep)
{
  if (d->pd_start != d->pd_end || d->pd_cap <= keep)
    return;
  free(d->pd_buf);
  d->pd_buf = NULL;
  d->pd_cap = d->pd_start = d->pd_end = 0;
}

void pgw_dec_commit(pgw_decoder_t *d, size_t n)
{
  d->pd_end += CZ_MIN(n, d->pd_cap - d->pd_end);
}

int pgw_dec_feed(pgw_decoder_t *d, const void *data, size_t len, err_t *e)
{
  uint8_t *p;
  size_t avail;
  if (len == 0)
    return CZ_OK;
  if (pgw_dec_reserve(d, len, &p, &avail, e) != CZ_OK)
    return CZ_ERR;
  memcpy(p, data, len);
  pgw_dec_commit(d, len);
  return CZ_OK;
}

static uint32_t get_be32(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int dec_fail(pgw_decoder_t *d, const err_t *e)
{
  d->pd_phase = PD_FAILED;
  d->pd_err = *e;
  return CZ_ERR;
}

/* Largest declared length (length word included) for each typed message,
 * 0 for a type we do not accept. */
static uint32_t typed_limit(uint8_t type)
{
  switch (type) {
  case 'Q': case 'P': case 'B': case 'd': return PGW_MAX_MSG_LEN;
  case 'p': return PGW_MAX_AUTH_MSG_LEN;
  case 'D': case 'E': case 'C': case 'f': return PGW_MAX_SMALL_MSG_LEN;
  case 'S': case 'H': case 'X': case 'c': return 4; /* no body */
  default: return 0;
  }
}

static int next_startup(pgw_decoder_t *d, const uint8_t *p, size_t have, pgw_fe_msg_t *m, err_t *e)
{
  if (have < 4)
    return PGW_NEED_MORE;
  uint32_t len = get_be32(p);
  if (len < 8 || len > PGW_MAX_STARTUP_LEN)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION, "invalid length of startup packet: %u", len);
  if (have < len)
    return PGW_NEED_MORE;
  if (pgw_parse_startup(p + 4, len - 4, d->pd_arena, m, e) != CZ_OK)
    return CZ_ERR;
  d->pd_start += len;
  switch (m->fm_kind) {
  case PGW_FE_STARTUP:
    d->pd_phase = PD_TYPED;
    break;
  case PGW_FE_CANCEL:
    d->pd_phase = PD_CLOSED;
    break;
  default: /* SSLRequest, GSSENCRequest */
    if (pgw_dec_pending(d) > 0)
      return err_set(e, SQLSTATE_PROTOCOL_VIOLATION,
                     "received unencrypted data after SSL or GSSAPI encryption request");
  }
  return PGW_MSG;
}

static int next_typed(pgw_decoder_t *d, const uint8_t *p, size_t have, pgw_fe_msg_t *m, err_t *e)
{
  if (have < 1)
    return PGW_NEED_MORE;
  uint32_t limit = typed_limit(p[0]);
  if (limit == 0)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION, "invalid frontend message type %d", p[0]);
  if (have < 5)
    return PGW_NEED_MORE;
  uint32_t len = get_be32(p + 1);
  if (len < 4)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION, "invalid message length %u (type '%c')", len, p[0]);
  if (len > limit)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION,
                   "message of type '%c' declares %u bytes, more than its limit of %u", p[0], len,
                   limit);
  if (have - 1 < len)
    return PGW_NEED_MORE;
  if (pgw_parse_typed((char)p[0], p + 5, len - 4, d->pd_arena, m, e) != CZ_OK) {
    if (!err_is(e, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE))
      return CZ_ERR;
    /* The length word framed it: skip the message, keep the framing. */
    pgw_fe_kind_t kind = m->fm_kind;
    memset(m, 0, sizeof *m);
    m->fm_kind = kind;
    m->fm_type = (char)p[0];
    d->pd_start += (size_t)len + 1;
    return PGW_MSG_INVALID;
  }
  d->pd_start += (size_t)len + 1;
  if (m->fm_kind == PGW_FE_TERMINATE)
    d->pd_phase = PD_CLOSED;
  return PGW_MSG;
}

int pgw_dec_next(pgw_decoder_t *d, pgw_fe_msg_t *m, err_t *e)
{
  err_t local;
  if (!e)
    e = &local;
  if (d->pd_phase == PD_FAILED) {
    *e = d->pd_err;
    return CZ_ERR;
  }
  arena_reset(d->pd_arena);
  size_t have = pgw_dec_pending(d);
  const uint8_t *p = have ? d->pd_buf + d->pd_start : NULL;
  int rc;
  switch (d->pd_phase) {
  case PD_STARTUP:
    rc = next_startup(d, p, have, m, e);
    break;
  case PD_TYPED:
    rc = next_typed(d, p, have, m, e);
    break;
  default: /* PD_CLOSED */
    if (have == 0)
      return PGW_NEED_MORE;
    rc = err_set(e, SQLSTATE_PROTOCOL_VIOLATION, "data received after Terminate or CancelRequest");
  }
  if (rc == CZ_ERR)
    return dec_fail(d, e);
  if (d->pd_start == d->pd_end && rc == PGW_NEED_MORE) /* cheap reset when all is consumed */
    d->pd_start = d->pd_end = 0;
  return rc;
}
