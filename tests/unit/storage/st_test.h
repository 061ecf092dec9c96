/* st_test.h — helpers shared by the storage unit tests: a database in the
 * test's temporary directory, pages filled with a recognisable pattern,
 * and raw access to the files behind storage's back (to corrupt them or to
 * see where a page physically landed).
 */
#ifndef CZ_ST_TEST_H
#define CZ_ST_TEST_H

#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cz_test.h"
#include "storage/storage.h"

/* "<tmpdir>/<name>" in one of eight rotating buffers (no free needed). */
static inline const char *stt_path(const char *name)
{
  static char ring[8][512];
  static int next;
  char *p = cz_test_path(name);

  next = (next + 1) % 8;
  snprintf(ring[next], sizeof ring[next], "%s", p);
  free(p);
  return ring[next];
}

/* A page whose bytes after the header all derive from (pg, tag). */
static inline void stt_fill(void *buf, pg_no_t pg, uint32_t tag)
{
  pg_head_t *h = buf;
  uint32_t *w = (uint32_t *)((uint8_t *)buf + PG_HEAD_SIZE);

  memset(buf, 0, ST_PAGE_SIZE);
  h->ph_type = PG_T_TEST;
  h->ph_owner = tag;
  for (size_t i = 0; i < (ST_PAGE_SIZE - PG_HEAD_SIZE) / 4; i++)
    w[i] = (uint32_t)(pg * 2654435761u) ^ tag ^ (uint32_t)i;
}

/* The tag a page was filled with, or UINT32_MAX when it is not such a page. */
static inline uint32_t stt_tag_of(const void *buf, pg_no_t pg)
{
  const pg_head_t *h = buf;
  uint8_t expect[ST_PAGE_SIZE];

  if (h->ph_type != PG_T_TEST)
    return UINT32_MAX;
  stt_fill(expect, pg, (uint32_t)h->ph_owner);
  if (memcmp(expect + PG_HEAD_SIZE, (const uint8_t *)buf + PG_HEAD_SIZE,
             ST_PAGE_SIZE - PG_HEAD_SIZE) != 0)
    return UINT32_MAX;
  return (uint32_t)h->ph_owner;
}

static inline st_config_t stt_config(const char *path)
{
  st_config_t c;

  memset(&c, 0, sizeof c);
  c.sc_path = path;
  c.sc_create = true;
  c.sc_sync = false;
  return c;
}

static inline storage_t *stt_open_cfg(const st_config_t *c)
{
  storage_t *st = NULL;
  err_t e;

  err_clear(&e);
  if (st_open(c, &st, &e) != CZ_OK)
    fail_msg("st_open: %s %s", e.er_sqlstate, e.er_msg);
  return st;
}

static inline storage_t *stt_open(const char *path)
{
  st_config_t c = stt_config(path);

  return stt_open_cfg(&c);
}

static inline pg_no_t stt_alloc(storage_t *st, uint64_t owner, pg_no_t near)
{
  pg_no_t pg = PG_NONE;
  err_t e;

  if (st_alloc_page(st, owner, near, &pg, &e) != CZ_OK)
    fail_msg("st_alloc_page: %s %s", e.er_sqlstate, e.er_msg);
  return pg;
}

static inline void stt_write(storage_t *st, pg_no_t pg, uint32_t tag)
{
  static _Alignas(16) uint8_t buf[ST_PAGE_SIZE];
  void *b = buf;
  err_t e;

  stt_fill(buf, pg, tag);
  if (st_write_pages(st, &pg, &b, 1, &e) != CZ_OK)
    fail_msg("st_write_pages(%u): %s %s", pg, e.er_sqlstate, e.er_msg);
}

/* The tag read back through storage (fails the test on an error). */
static inline uint32_t stt_read_tag(storage_t *st, pg_no_t pg)
{
  uint8_t buf[ST_PAGE_SIZE];
  err_t e;

  if (st_read_page(st, pg, buf, &e) != CZ_OK)
    fail_msg("st_read_page(%u): %s %s", pg, e.er_sqlstate, e.er_msg);
  return stt_tag_of(buf, pg);
}

static inline void stt_checkpoint(storage_t *st, const char *user_root)
{
  err_t e;

  if (st_checkpoint(st, user_root, user_root ? strlen(user_root) + 1 : 0, &e) != CZ_OK)
    fail_msg("st_checkpoint: %s %s", e.er_sqlstate, e.er_msg);
}

static inline void stt_file_io(const char *path, long long off, void *buf, size_t len, bool write)
{
  int fd = open(path, O_RDWR | O_CREAT, 0644);
  ssize_t r;

  assert_true(fd >= 0);
  r = write ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
  assert_int_equal(r, (ssize_t)len);
  close(fd);
}

/* The tag found at page slot `phys` of a single-file database. */
static inline uint32_t stt_file_tag(const char *path, pg_no_t phys, pg_no_t logical)
{
  uint8_t buf[ST_PAGE_SIZE];

  stt_file_io(path, (long long)phys * ST_PAGE_SIZE, buf, sizeof buf, false);
  return stt_tag_of(buf, logical);
}

static inline long long stt_file_size(const char *path)
{
  FILE *f = fopen(path, "rb");
  long long n;

  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fclose(f);
  return n;
}

#endif /* CZ_ST_TEST_H */
