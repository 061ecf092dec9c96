/* bp_test.h — shared fixture of the buffer pool unit tests: a fresh
 * database in the test's temporary folder, a pool over it, and page
 * contents that say which page and which version they are.
 */
#ifndef CZ_BP_TEST_H
#define CZ_BP_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buffer/buffer.h"
#include "cz_test.h"
#include "storage/storage.h"

typedef struct bpt_s {
  storage_t *t_st;
  bpool_t *t_bp;
  char *t_path; /* malloc'd by cz_test_path */
} bpt_t;

#define BPT_OK(call, e)                                     \
  do {                                                      \
    if ((call) != CZ_OK)                                    \
      fail_msg("%s: %s %s", #call, (e)->er_sqlstate, (e)->er_msg); \
  } while (0)

/* A pool config for tests: no background threads unless a test asks. */
static inline bp_config_t bpt_config(int n_buffers)
{
  bp_config_t cfg;
  bp_config_default(&cfg);
  cfg.bc_n_buffers = n_buffers;
  cfg.bc_max_dirty = n_buffers;
  cfg.bc_read_ahead = false;
  cfg.bc_bg_writer = false;
  return cfg;
}

static inline void bpt_open(bpt_t *t, const char *name, const bp_config_t *cfg)
{
  st_config_t sc;
  err_t e;

  memset(&sc, 0, sizeof(sc));
  t->t_path = cz_test_path(name);
  unlink(t->t_path);
  sc.sc_path = t->t_path;
  sc.sc_create = true;
  sc.sc_sync = false;
  BPT_OK(st_open(&sc, &t->t_st, &e), &e);
  BPT_OK(bp_create(t->t_st, cfg, &t->t_bp, &e), &e);
}

static inline void bpt_close(bpt_t *t)
{
  bp_destroy(t->t_bp);
  st_close(t->t_st);
  unlink(t->t_path);
  free(t->t_path);
}

static inline uint32_t bpt_word(pg_no_t pg, uint32_t ver, uint32_t i)
{
  return (uint32_t)hash64_int(((uint64_t)pg << 40) ^ ((uint64_t)ver << 20) ^ i);
}

/* Page body: a header naming the page as a test page, then words that
 * depend on (page, version, position). */
static inline void bpt_fill(uint8_t *p, pg_no_t pg, uint32_t ver)
{
  pg_head_t *h = (pg_head_t *)p;
  h->ph_type = PG_T_TEST;
  h->ph_owner = ver;
  for (uint32_t i = PG_HEAD_SIZE; i + 4 <= ST_PAGE_SIZE; i += 4) {
    uint32_t w = bpt_word(pg, ver, i);
    memcpy(p + i, &w, 4);
  }
}

static inline bool bpt_check(const uint8_t *p, pg_no_t pg, uint32_t ver)
{
  for (uint32_t i = PG_HEAD_SIZE; i + 4 <= ST_PAGE_SIZE; i += 4) {
    uint32_t w;
    memcpy(&w, p + i, 4);
    if (w != bpt_word(pg, ver, i))
      return false;
  }
  return true;
}

/* Creates n pages of owner filled as version 0 and unfixes them. */
static inline void bpt_make_pages(bpt_t *t, uint64_t owner, int n, pg_no_t *out)
{
  err_t e;
  pg_no_t near = PG_NONE;
  for (int i = 0; i < n; i++) {
    buf_t *b = bp_fix_new(t->t_bp, owner, near, &e);
    if (!b)
      fail_msg("bp_fix_new: %s %s", e.er_sqlstate, e.er_msg);
    out[i] = bp_page_no(b);
    near = out[i];
    bpt_fill(bp_page(b), out[i], 0);
    bp_unfix(t->t_bp, b);
  }
}

/* Fixes pg and checks it holds version ver. */
static inline void bpt_expect(bpt_t *t, pg_no_t pg, uint32_t ver, int flags)
{
  err_t e;
  buf_t *b = bp_fix(t->t_bp, pg, BP_SHARED, flags, &e);
  if (!b)
    fail_msg("bp_fix %u: %s %s", (unsigned)pg, e.er_sqlstate, e.er_msg);
  assert_int_equal(bp_page_no(b), pg);
  if (!bpt_check(bp_page(b), pg, ver))
    fail_msg("page %u does not hold version %u", (unsigned)pg, (unsigned)ver);
  bp_unfix(t->t_bp, b);
}

/* Writes everything and empties the pool: the next fixes read the disk. */
static inline void bpt_cold(bpt_t *t)
{
  err_t e;
  BPT_OK(bp_flush_all(t->t_bp, &e), &e);
  bp_drop_clean(t->t_bp);
}

static inline bp_stats_t bpt_stats(bpt_t *t)
{
  bp_stats_t s;
  bp_get_stats(t->t_bp, &s);
  return s;
}

static inline st_stats_t bpt_st_stats(bpt_t *t)
{
  st_stats_t s;
  st_get_stats(t->t_st, &s);
  return s;
}

#endif /* CZ_BP_TEST_H */
