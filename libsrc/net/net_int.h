/* net_int — what the files of the net module share: a bounds-checked reader
 * over a message body and the SCRAM primitives.
 *
 * Design notes: every read of a frontend message goes through pgw_rd_t, whose
 * only way to advance is a checked one; so a bad count or a missing NUL can
 * at worst produce an error, never a read past the body.
 */
#ifndef CZ_NET_INT_H
#define CZ_NET_INT_H

#include "net/net.h"

typedef struct pgw_rd_s {
  const uint8_t *rd_p;
  const uint8_t *rd_end;
  const char *rd_what; /* message name, for error text */
} pgw_rd_t;

/* Makes b's sticky error (first one wins) and returns CZ_ERR. */
int pgw_buf_fail(pgw_buf_t *b, const char *sqlstate, const char *fmt, ...) CZ_PRINTF(3, 4);
/* Counts go out as Int16: n outside 0..32767 fails b (54000) rather than
 * wrapping. */
int pgw_buf_check_count(pgw_buf_t *b, int n);

void pgw_rd_init(pgw_rd_t *r, const uint8_t *p, size_t len, const char *what);
int pgw_rd_byte(pgw_rd_t *r, uint8_t *v, err_t *e);
int pgw_rd_int16(pgw_rd_t *r, int16_t *v, err_t *e);
int pgw_rd_int32(pgw_rd_t *r, int32_t *v, err_t *e);
/* A NUL-terminated, valid UTF-8 string inside the body. */
int pgw_rd_str(pgw_rd_t *r, const char **s, err_t *e);
/* n raw bytes (n >= 0). */
int pgw_rd_bytes(pgw_rd_t *r, size_t n, const uint8_t **p, err_t *e);
/* A count read from the wire, checked against what the rest of the body can
 * hold at min_each bytes per item, so that arrays are never sized from an
 * unchecked number. */
int pgw_rd_count(pgw_rd_t *r, size_t min_each, int *n, err_t *e);
/* CZ_ERR when bytes remain after the last field. */
int pgw_rd_finish(const pgw_rd_t *r, err_t *e);
static inline size_t pgw_rd_left(const pgw_rd_t *r) { return (size_t)(r->rd_end - r->rd_p); }

/* Decodes the body of one typed message (type already known valid). */
int pgw_parse_typed(char type, const uint8_t *body, uint32_t len, arena_t *a,
                    pgw_fe_msg_t *m, err_t *e);
/* Decodes an untyped startup-phase packet. */
int pgw_parse_startup(const uint8_t *body, uint32_t len, arena_t *a, pgw_fe_msg_t *m,
                      err_t *e);


#endif /* CZ_NET_INT_H */
