/* wal — the write-ahead log file of txn/: its format, appending with group
 * commit, reading back to the first torn record, and restarting with a new
 * generation. Private to txn/ (txn_int.h includes it); the unit tests use it
 * directly because the log is a concept of its own.
 *
 * Format (txn/README.md, "Log format"): a 32-byte header
 *   magic "CZTRXLOG" | u32 version | u32 0 | u64 generation | u64 hash64 of
 *   the first 24 bytes (seed 0)
 * then records
 *   u32 length | u32 checksum | payload (length bytes)
 * with checksum = low 32 bits of hash64(payload, seed = hash64(length field,
 * seed = generation)): the length field and the payload, seeded with the
 * generation, so a record left over from an older generation never checks.
 * All integers little-endian.
 *
 * Design notes:
 * - Group commit: wal_append_and_wait copies the record into a shared buffer
 *   under w_mx and gets its end offset. A waiter whose record is not yet
 *   durable and finds no write in progress becomes the leader: it takes the
 *   whole buffer, writes it with one pwrite and one fdatasync outside the
 *   mutex, advances w_durable and broadcasts. Committers arriving meanwhile
 *   fill the other buffer and are served by the next leader.
 * - A failed write, sync or restart leaves the file in an unknown state, so
 *   the log becomes failed for good: every later append fails (58030) until
 *   the database is reopened, which recovers from image + log.
 */
#ifndef CZ_TXN_WAL_H
#define CZ_TXN_WAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define WAL_HEADER_SIZE 32
#define WAL_REC_HEAD 8                      /* length + checksum */
#define WAL_MAX_RECORD ((size_t)1 << 30)     /* payload bytes; larger commits are 54000 */

typedef struct wal_s wal_t;

typedef struct wal_stats_s {
  uint64_t ws_appends;  /* records made durable */
  uint64_t ws_writes;   /* group writes (each one pwrite + one fdatasync) */
  uint64_t ws_bytes;    /* bytes written, headers included */
  uint64_t ws_streamed; /* records appended without waiting (wal_append_stream) */
} wal_stats_t;

/* Opens (creating when absent) the log file without reading or changing
 * it; appends are refused until the first wal_restart names a generation. */
int wal_open(const char *path, bool sync, wal_t **out, err_t *e);
void wal_close(wal_t *w);
/* wal_close for an open that went no further (the database could not be
 * opened): a file this open created and nothing wrote is removed again,
 * so that a refused start leaves no stray log behind. */
void wal_close_discard(wal_t *w);

/* Truncates the log to a fresh header naming generation and syncs it. The
 * caller guarantees no append is in progress (the checkpoint gate). */
int wal_restart(wal_t *w, uint64_t generation, err_t *e);
uint64_t wal_generation(const wal_t *w);

/* Appends one record (len bytes, 1..WAL_MAX_RECORD) and returns once it is
 * durable (written and, with sync, fdatasync'ed). */
int wal_append_and_wait(wal_t *w, const void *payload, size_t len, err_t *e);

/* Appends one record (a large transaction's continuation record) and
 * returns once it is written, without syncing: it becomes durable with the
 * next record that wal_append_and_wait makes durable (its committer's
 * commit record), since records are written and synced in log order. */
int wal_append_stream(wal_t *w, const void *payload, size_t len, err_t *e);

/* Makes the log failed (as after a write error): later appends fail. Used
 * when the database state no longer matches image + log. */
void wal_set_failed(wal_t *w, const char *why);

void wal_get_stats(wal_t *w, wal_stats_t *out);

/* ---- reading ----------------------------------------------------------- */

/* What wal_read_all found. */
typedef struct wal_read_info_s {
  bool wr_header_ok;      /* the file exists and has a valid header */
  uint64_t wr_generation; /* the header's generation (when header_ok) */
  bool wr_stale;          /* header_ok but another generation: ignored */
  uint64_t wr_records;    /* complete records passed to the callback */
  uint64_t wr_valid_end;  /* file offset after the last complete record */
  uint64_t wr_file_size;
} wal_read_info_t;

/* Called per complete record in log order; payload valid during the call.
 * A CZ_ERR return stops the reading and is returned. */
typedef int (*wal_record_fn_t)(void *ctx, const uint8_t *payload, size_t len, err_t *e);

/* Reads the log at path when its header names generation: every record up
 * to the first one that is truncated or fails its checksum (a torn tail,
 * which ends the log). A missing file, an invalid header or another
 * generation mean "nothing to replay" and are not errors. */
int wal_read_all(const char *path, uint64_t generation, wal_record_fn_t fn, void *ctx,
                 wal_read_info_t *info, err_t *e);

/* ---- format helpers (also for tests) ----------------------------------- */

/* Little-endian integers, for the log and the other on-disk formats of txn/. */
static inline void wal_put_u32(uint8_t *p, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static inline void wal_put_u64(uint8_t *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint32_t wal_get_u32(const uint8_t *p)
{
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}
static inline uint64_t wal_get_u64(const uint8_t *p)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

void wal_header_encode(uint8_t out[WAL_HEADER_SIZE], uint64_t generation);
/* Fills out[0..WAL_REC_HEAD) for a payload of len bytes. */
void wal_record_head(uint8_t out[WAL_REC_HEAD], uint64_t generation, const void *payload, size_t len);

#endif /* CZ_TXN_WAL_H */
