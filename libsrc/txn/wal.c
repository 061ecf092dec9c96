/* wal — the transaction log file: format, group commit, reading back,
 * restart with a new generation.
 *
 * Design notes (the format and the group-commit protocol are described in
 * wal.h and txn/README.md):
 * - w_mx guards the buffers, the offsets and the leader flag. The leader
 *   does its pwrite and fdatasync without holding it, so later committers
 *   keep filling w_buf while a group is on its way to disk.
 * - Offsets are file offsets: w_end is where the next appended record goes,
 *   w_written is where the next group goes, w_durable the end of what is
 *   on disk (synced); they differ only after a streamed record was
 *   written (wal_append_stream), until the next commit group syncs.
 *   Records are written with pwrite at their own offsets, never O_APPEND,
 *   so a restart's truncation cannot be confused with a late write.
 * - Reading maps the file: recovery is sequential and the file is not
 *   written while it is read.
 */
#include "txn/wal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "thread/thread.h"

#define WAL_MAGIC "CZTRXLOG"
#define WAL_VERSION 1

struct wal_s {
  int w_fd;
  char *w_path;
  bool w_sync;             /* fdatasync after each group write */
  bool w_created;          /* this open created the file (wal_close_discard) */
  uint64_t w_generation;   /* 0 until the first restart: appends refused */
  cz_mutex_t w_mx;
  cz_cond_t w_cond;        /* a group became durable, or the log failed */
  uint8_t *w_buf;          /* records appended, not yet taken by a leader */
  size_t w_buf_len, w_buf_cap;
  uint8_t *w_spare;        /* the other buffer: free whenever no leader writes */
  size_t w_spare_cap;
  uint64_t w_end;          /* file offset after the last appended record */
  uint64_t w_written;      /* file offset up to which groups were written (the next group
                              goes here); ahead of w_durable after a streamed record's
                              write, which does not sync (wal_append_stream) */
  uint64_t w_durable;      /* file offset up to which the log is on disk (synced) */
  bool w_writing;          /* a leader is writing a group */
  uint64_t w_alloc_end;    /* the file is written (records or zeros) up to here: the leader's */
  bool w_failed;           /* sticky: see wal.h */
  err_t w_err;             /* why it failed */
  wal_stats_t w_stats;
};

/* The log is preallocated: zeros are written ahead of the records, in
 * chunks that grow with the log (WAL_PREALLOC_MIN doubling up to
 * WAL_PREALLOC_MAX), so that a group's fdatasync overwrites blocks the file
 * already has and need not commit a new file size (on ext4 and XFS, a
 * journal commit per sync, about as dear as the data write). PostgreSQL
 * zero-fills its WAL segments for the same reason. The zeros are harmless
 * to readers: a length field of 0 ends the log like a torn record. */
#define WAL_PREALLOC_MIN ((uint64_t)1 << 20)
#define WAL_PREALLOC_MAX ((uint64_t)16 << 20)

static int wal_write_at(int fd, const uint8_t *p, size_t n, uint64_t off, const char *path, err_t *e)
{
  while (n > 0) {
    ssize_t w = pwrite(fd, p, n, (off_t)off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return err_set(e, SQLSTATE_IO_ERROR, "write %s: %s", path, strerror(errno));
    p += w;
    n -= (size_t)w;
    off += (uint64_t)w;
  }
  return CZ_OK;
}

/* A new file's directory entry must be durable too, or the log could vanish
 * with the records in it. */
static int wal_sync_dir(const char *path, err_t *e)
{
  char dir[4096];
  const char *slash = strrchr(path, '/');
  if (!slash)
    strcpy(dir, ".");
  else if (slash == path)
    strcpy(dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0)
    return err_set(e, SQLSTATE_IO_ERROR, "open directory %s: %s", dir, strerror(errno));
  int rc = fsync(fd);
  int saved = errno;
  close(fd);
  if (rc != 0)
    return err_set(e, SQLSTATE_IO_ERROR, "fsync directory %s: %s", dir, strerror(saved));
  return CZ_OK;
}

int wal_open(const char *path, bool sync, wal_t **out, err_t *e)
{
  *out = NULL;
  bool existed = access(path, F_OK) == 0;
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return err_set(e, SQLSTATE_IO_ERROR, "open log %s: %s", path, strerror(errno));
  /* Before anything is read or written: a second server with another
   * database but this log must not append to it nor truncate it. */
  if (flk_lock_exclusive(fd, path, "transaction log", e) != CZ_OK) {
    close(fd);
    return CZ_ERR;
  }
  if (!existed && sync && wal_sync_dir(path, e) != CZ_OK) {
    close(fd);
    return CZ_ERR;
  }
  wal_t *w = calloc(1, sizeof *w);
  char *p = strdup(path);
  if (!w || !p) {
    free(w);
    free(p);
    close(fd);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory opening log %s", path);
  }
  w->w_fd = fd;
  w->w_path = p;
  w->w_created = !existed;
  fg_protect_fd(fd, path, "the transaction log");
  w->w_sync = sync;
  mutex_init(&w->w_mx);
  cond_init(&w->w_cond);
  *out = w;
  return CZ_OK;
}

void wal_close(wal_t *w)
{
  if (!w)
    return;
  /* No commit runs now: cut the preallocated zeros, so that a closed log
   * ends with its last record (as a crashed one need not). */
  if (!w->w_failed && w->w_generation != 0 && w->w_alloc_end > w->w_end && ftruncate(w->w_fd, (off_t)w->w_end) != 0)
    log_warn("truncate log %s: %s", w->w_path, strerror(errno));
  fg_release_fd(w->w_fd);
  close(w->w_fd);
  mutex_destroy(&w->w_mx);
  cond_destroy(&w->w_cond);
  free(w->w_buf);
  free(w->w_spare);
  free(w->w_path);
  free(w);
}

void wal_close_discard(wal_t *w)
{
  if (!w)
    return;
  struct stat sb;
  bool empty = fstat(w->w_fd, &sb) == 0 && sb.st_size == 0;
  char *path = w->w_created && empty ? strdup(w->w_path) : NULL;
  wal_close(w);
  if (path)
    unlink(path);
  free(path);
}

void wal_header_encode(uint8_t out[WAL_HEADER_SIZE], uint64_t generation)
{
  memcpy(out, WAL_MAGIC, 8);
  wal_put_u32(out + 8, WAL_VERSION);
  wal_put_u32(out + 12, 0);
  wal_put_u64(out + 16, generation);
  wal_put_u64(out + 24, hash64(out, 24, 0));
}

static bool wal_header_decode(const uint8_t *p, size_t avail, uint64_t *generation)
{
  if (avail < WAL_HEADER_SIZE || memcmp(p, WAL_MAGIC, 8) != 0)
    return false;
  if (wal_get_u64(p + 24) != hash64(p, 24, 0) || wal_get_u32(p + 8) != WAL_VERSION)
    return false;
  *generation = wal_get_u64(p + 16);
  return true;
}

static uint32_t wal_checksum(uint64_t generation, const uint8_t len_field[4], const void *payload, size_t len)
{
  return (uint32_t)hash64(payload, len, hash64(len_field, 4, generation));
}

void wal_record_head(uint8_t out[WAL_REC_HEAD], uint64_t generation, const void *payload, size_t len)
{
  wal_put_u32(out, (uint32_t)len);
  wal_put_u32(out + 4, wal_checksum(generation, out, payload, len));
}

static void wal_fail_locked(wal_t *w, const err_t *why)
{
  if (!w->w_failed) {
    w->w_failed = true;
    w->w_err = *why;
    log_error("transaction log %s failed, commits refused until restart: %s", w->w_path, why->er_msg);
  }
  /* Records still buffered will never be written: their committers see
   * w_failed. */
  w->w_buf_len = 0;
  cond_broadcast(&w->w_cond);
}

void wal_set_failed(wal_t *w, const char *why)
{
  err_t e;
  err_set(&e, SQLSTATE_INTERNAL, "%s", why);
  mutex_lock(&w->w_mx);
  wal_fail_locked(w, &e);
  mutex_unlock(&w->w_mx);
}

int wal_restart(wal_t *w, uint64_t generation, err_t *e)
{
  uint8_t head[WAL_HEADER_SIZE];
  wal_header_encode(head, generation);
  mutex_lock(&w->w_mx);
  if (w->w_writing || w->w_buf_len != 0) {
    mutex_unlock(&w->w_mx);
    return err_set(e, SQLSTATE_INTERNAL, "log restart while a commit is in progress");
  }
  /* Truncate first: if the header write then lands but the truncation is
   * lost in a crash, the old records are seeded with the old generation and
   * fail their checksums under the new header. */
  int rc = CZ_OK;
  if (ftruncate(w->w_fd, 0) != 0)
    rc = err_set(e, SQLSTATE_IO_ERROR, "truncate log %s: %s", w->w_path, strerror(errno));
  if (rc == CZ_OK)
    rc = wal_write_at(w->w_fd, head, sizeof head, 0, w->w_path, e);
  if (rc == CZ_OK && w->w_sync && fsync(w->w_fd) != 0)
    rc = err_set(e, SQLSTATE_IO_ERROR, "fsync log %s: %s", w->w_path, strerror(errno));
  if (rc != CZ_OK) {
    wal_fail_locked(w, e);
  } else {
    w->w_generation = generation;
    w->w_end = w->w_written = w->w_durable = w->w_alloc_end = WAL_HEADER_SIZE;
  }
  mutex_unlock(&w->w_mx);
  return rc;
}

uint64_t wal_generation(const wal_t *w)
{
  return w->w_generation;
}

static int wal_buf_reserve(uint8_t **buf, size_t *cap, size_t need, err_t *e)
{
  if (need <= *cap)
    return CZ_OK;
  size_t n = *cap ? *cap : 64 * 1024;
  while (n < need)
    n *= 2;
  uint8_t *p = realloc(*buf, n);
  if (!p)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory in the log buffer (%zu bytes)", n);
  *buf = p;
  *cap = n;
  return CZ_OK;
}

/* Zeros from the end of the group just written (end) to the next chunk
 * boundary; the caller's fdatasync makes them and the new size durable
 * (only this one sync pays for the size change). Written by the leader
 * without w_mx (w_alloc_end is the leader's). Only a log that syncs
 * preallocates: without sync the point is moot. */
static int wal_preallocate(wal_t *w, uint64_t end, err_t *e)
{
  static const uint8_t zeros[64 * 1024];
  uint64_t chunk = w->w_alloc_end < WAL_PREALLOC_MIN ? WAL_PREALLOC_MIN : w->w_alloc_end;
  if (chunk > WAL_PREALLOC_MAX)
    chunk = WAL_PREALLOC_MAX;
  uint64_t to = (end + chunk + sizeof zeros - 1) / sizeof zeros * sizeof zeros;
  for (uint64_t at = end; at < to;) {
    size_t n = (size_t)CZ_MIN((uint64_t)sizeof zeros - at % sizeof zeros, to - at);
    if (wal_write_at(w->w_fd, zeros, n, at, w->w_path, e) != CZ_OK)
      return CZ_ERR;
    at += n;
  }
  w->w_alloc_end = to;
  return CZ_OK;
}

/* The leader's turn: called with w_mx held and w_buf non-empty, or a big
 * record of the leader's own (big, big_len: payload; big_head: its framing)
 * to write after the buffered ones, straight from the caller's memory, or
 * nothing but written bytes to sync; returns with w_mx held, the group
 * written (and, for a commit group, durable) or the log failed. A group
 * that is not a commit's (a streamed record: wal_append_stream) is not
 * synced and w_durable stays: the next commit group's fdatasync covers
 * these bytes too, as every byte before it. */
static void wal_write_group(wal_t *w, const uint8_t *big_head, const void *big, size_t big_len,
                            bool commit)
{
  uint8_t *buf = w->w_buf;
  size_t len = w->w_buf_len, cap = w->w_buf_cap;
  uint64_t off = w->w_written;
  size_t total = len + (big ? WAL_REC_HEAD + big_len : 0);
  bool sync = commit && w->w_sync;
  w->w_buf = w->w_spare;
  w->w_buf_cap = w->w_spare_cap;
  w->w_buf_len = 0;
  w->w_writing = true;
  mutex_unlock(&w->w_mx);

  err_t e;
  err_clear(&e);
  int rc = wal_write_at(w->w_fd, buf, len, off, w->w_path, &e);
  if (rc == CZ_OK && big)
    rc = wal_write_at(w->w_fd, big_head, WAL_REC_HEAD, off + len, w->w_path, &e);
  if (rc == CZ_OK && big)
    rc = wal_write_at(w->w_fd, big, big_len, off + len + WAL_REC_HEAD, w->w_path, &e);
  if (rc == CZ_OK && sync && off + total > w->w_alloc_end)
    rc = wal_preallocate(w, off + total, &e);
  if (rc == CZ_OK && sync && fdatasync(w->w_fd) != 0)
    rc = err_set(&e, SQLSTATE_IO_ERROR, "fdatasync log %s: %s", w->w_path, strerror(errno));

  mutex_lock(&w->w_mx);
  w->w_spare = buf;
  w->w_spare_cap = cap;
  w->w_writing = false;
  if (rc != CZ_OK) {
    wal_fail_locked(w, &e);
    return;
  }
  w->w_written = off + total;
  if (commit) {
    w->w_durable = w->w_written;
    w->w_stats.ws_writes++;
  }
  w->w_stats.ws_bytes += total;
  cond_broadcast(&w->w_cond);
}

/* A record this big (a bulk load's commit) is not copied into the shared
 * buffer: its committer waits for the running group, then leads the next
 * one with its record written from its own memory. The copy, and a shared
 * buffer grown to the size of the largest commit ever (kept for good),
 * would cost more than the wait. */
#define WAL_DIRECT_MIN ((size_t)256 * 1024)

static int wal_refused(wal_t *w, err_t *e)
{
  return w->w_failed ? err_set(e, SQLSTATE_IO_ERROR, "transaction log failed: %s", w->w_err.er_msg)
                     : err_set(e, SQLSTATE_INTERNAL, "append to a log that was never restarted");
}

int wal_append_and_wait(wal_t *w, const void *payload, size_t len, err_t *e)
{
  if (len == 0 || len > WAL_MAX_RECORD)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "log record of %zu bytes (at most %zu)", len, WAL_MAX_RECORD);
  mutex_lock(&w->w_mx);
  if (w->w_failed || w->w_generation == 0) {
    int rc = wal_refused(w, e);
    mutex_unlock(&w->w_mx);
    return rc;
  }
  uint64_t my_end;
  if (len >= WAL_DIRECT_MIN) {
    while (w->w_writing && !w->w_failed)
      cond_wait(&w->w_cond, &w->w_mx);
    if (w->w_failed) {
      int rc = wal_refused(w, e);
      mutex_unlock(&w->w_mx);
      return rc;
    }
    /* Leader now: the buffered records go first, then this one. */
    uint8_t head[WAL_REC_HEAD];
    wal_record_head(head, w->w_generation, payload, len);
    w->w_end += WAL_REC_HEAD + len;
    my_end = w->w_end;
    wal_write_group(w, head, payload, len, true);
  } else {
    if (wal_buf_reserve(&w->w_buf, &w->w_buf_cap, w->w_buf_len + WAL_REC_HEAD + len, e) != CZ_OK) {
      mutex_unlock(&w->w_mx);
      return CZ_ERR;
    }
    uint8_t *rec = w->w_buf + w->w_buf_len;
    wal_record_head(rec, w->w_generation, payload, len);
    memcpy(rec + WAL_REC_HEAD, payload, len);
    w->w_buf_len += WAL_REC_HEAD + len;
    w->w_end += WAL_REC_HEAD + len;
    my_end = w->w_end;
  }

  while (w->w_durable < my_end && !w->w_failed) {
    if (!w->w_writing)
      wal_write_group(w, NULL, NULL, 0, true);
    else
      cond_wait(&w->w_cond, &w->w_mx);
  }
  int rc = CZ_OK;
  if (w->w_durable >= my_end)
    w->w_stats.ws_appends++;
  else
    rc = err_set(e, SQLSTATE_IO_ERROR, "transaction log failed: %s", w->w_err.er_msg);
  mutex_unlock(&w->w_mx);
  return rc;
}

int wal_append_stream(wal_t *w, const void *payload, size_t len, err_t *e)
{
  if (len == 0 || len > WAL_MAX_RECORD)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "log record of %zu bytes (at most %zu)", len, WAL_MAX_RECORD);
  mutex_lock(&w->w_mx);
  while (w->w_writing && !w->w_failed)
    cond_wait(&w->w_cond, &w->w_mx);
  if (w->w_failed || w->w_generation == 0) {
    int rc = wal_refused(w, e);
    mutex_unlock(&w->w_mx);
    return rc;
  }
  /* Leader for one unsynced group: the buffered records, then this one
   * from the caller's memory. Their committers, woken by the broadcast,
   * find their records written but not durable and one of them leads a
   * group that only syncs. */
  uint8_t head[WAL_REC_HEAD];
  wal_record_head(head, w->w_generation, payload, len);
  w->w_end += WAL_REC_HEAD + len;
  wal_write_group(w, head, payload, len, false);
  int rc = CZ_OK;
  if (w->w_failed)
    rc = err_set(e, SQLSTATE_IO_ERROR, "transaction log failed: %s", w->w_err.er_msg);
  else
    w->w_stats.ws_streamed++;
  mutex_unlock(&w->w_mx);
  return rc;
}

void wal_get_stats(wal_t *w, wal_stats_t *out)
{
  mutex_lock(&w->w_mx);
  *out = w->w_stats;
  mutex_unlock(&w->w_mx);
}

/* Walks the records of a mapped log; stops at the first torn one. */
static int wal_scan(const uint8_t *p, size_t size, uint64_t generation, wal_record_fn_t fn, void *ctx,
                    wal_read_info_t *info, err_t *e)
{
  size_t off = WAL_HEADER_SIZE;
  while (size - off >= WAL_REC_HEAD) {
    uint32_t len = wal_get_u32(p + off);
    uint32_t sum = wal_get_u32(p + off + 4);
    if (len == 0 || len > WAL_MAX_RECORD || len > size - off - WAL_REC_HEAD)
      break;
    const uint8_t *payload = p + off + WAL_REC_HEAD;
    if (sum != wal_checksum(generation, p + off, payload, len))
      break;
    if (fn(ctx, payload, len, e) != CZ_OK)
      return CZ_ERR;
    off += WAL_REC_HEAD + len;
    info->wr_records++;
    info->wr_valid_end = off;
  }
  return CZ_OK;
}

int wal_read_all(const char *path, uint64_t generation, wal_record_fn_t fn, void *ctx,
                 wal_read_info_t *info, err_t *e)
{
  memset(info, 0, sizeof *info);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return CZ_OK;
    return err_set(e, SQLSTATE_IO_ERROR, "open log %s: %s", path, strerror(errno));
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int saved = errno;
    close(fd);
    return err_set(e, SQLSTATE_IO_ERROR, "stat log %s: %s", path, strerror(saved));
  }
  info->wr_file_size = (uint64_t)sb.st_size;
  if (sb.st_size < WAL_HEADER_SIZE) {
    close(fd);
    return CZ_OK;
  }
  size_t size = (size_t)sb.st_size;
  const uint8_t *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int saved = errno;
  close(fd);
  if (p == MAP_FAILED)
    return err_set(e, SQLSTATE_IO_ERROR, "map log %s: %s", path, strerror(saved));
  int rc = CZ_OK;
  info->wr_header_ok = wal_header_decode(p, size, &info->wr_generation);
  if (info->wr_header_ok && info->wr_generation != generation) {
    info->wr_stale = true;
  } else if (info->wr_header_ok) {
    info->wr_valid_end = WAL_HEADER_SIZE;
    rc = wal_scan(p, size, generation, fn, ctx, info, e);
  }
  munmap((void *)p, size);
  return rc;
}
