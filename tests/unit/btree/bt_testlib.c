/* bt_testlib — fixtures shared by the btree unit tests (see the header). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bt_testlib.h"
#include "cz_test.h"

void bt_env_open(bt_env_t *env, const char *name, int n_buffers, bool create)
{
  err_t e;
  err_clear(&e);
  char *path = cz_test_path(name);
  st_config_t sc;
  memset(&sc, 0, sizeof sc);
  sc.sc_path = path;
  sc.sc_create = create;
  sc.sc_sync = false;
  if (st_open(&sc, &env->be_st, &e) != CZ_OK)
    fail_msg("st_open %s: %s %s", path, e.er_sqlstate, e.er_msg);
  free(path);
  bp_config_t bc;
  bp_config_default(&bc);
  bc.bc_n_buffers = n_buffers;
  bc.bc_max_dirty = n_buffers * 3 / 4 > 0 ? n_buffers * 3 / 4 : 1;
  if (bp_create(env->be_st, &bc, &env->be_bp, &e) != CZ_OK)
    fail_msg("bp_create: %s %s", e.er_sqlstate, e.er_msg);
}

void bt_env_close(bt_env_t *env)
{
  err_t e;
  err_clear(&e);
  if (bp_flush_all(env->be_bp, &e) != CZ_OK)
    fail_msg("bp_flush_all: %s %s", e.er_sqlstate, e.er_msg);
  if (st_checkpoint(env->be_st, NULL, 0, &e) != CZ_OK)
    fail_msg("st_checkpoint: %s %s", e.er_sqlstate, e.er_msg);
  bp_destroy(env->be_bp);
  st_close(env->be_st);
}

int bt_tkey(uint32_t id, uint8_t *buf)
{
  buf[0] = (uint8_t)(id >> 24);
  buf[1] = (uint8_t)(id >> 16);
  buf[2] = (uint8_t)(id >> 8);
  buf[3] = (uint8_t)id;
  int n = (int)(id % 9);
  for (int i = 0; i < n; i++)
    buf[4 + i] = (uint8_t)('a' + i);
  return 4 + n;
}

int bt_tval(uint32_t id, uint32_t version, uint8_t *buf)
{
  uint64_t h = hash64_int(((uint64_t)id << 32) | version);
  int n = (int)(h % 64);
  for (int i = 0; i < n; i++)
    buf[i] = (uint8_t)(h >> (8 * (i % 8))) ^ (uint8_t)i;
  return n;
}

void bt_model_init(bt_model_t *m, uint32_t n)
{
  m->bm_n = n;
  m->bm_present = calloc(n, 1);
  m->bm_version = calloc(n, sizeof(uint32_t));
  m->bm_count = 0;
  assert_non_null(m->bm_present);
  assert_non_null(m->bm_version);
}

void bt_model_free(bt_model_t *m)
{
  free(m->bm_present);
  free(m->bm_version);
}

static void verify_dir(bt_tree_t *t, const bt_model_t *m, bt_dir_t dir)
{
  err_t e;
  err_clear(&e);
  bt_cursor_t *c;
  assert_int_equal(bt_cursor_open(t, &c, &e), CZ_OK);
  assert_int_equal(bt_seek(c, NULL, 0, dir, &e), CZ_OK);
  int64_t id = dir == BT_FORWARD ? -1 : (int64_t)m->bm_n;
  uint64_t seen = 0;
  const void *k, *v;
  size_t kl, vl;
  uint8_t kb[64], vb[64];
  int rc;
  while ((rc = bt_next(c, &k, &kl, &v, &vl, &e)) == CZ_OK) {
    /* The next present id in the scan's direction. */
    do
      id += dir == BT_FORWARD ? 1 : -1;
    while (id >= 0 && id < (int64_t)m->bm_n && !m->bm_present[id]);
    if (id < 0 || id >= (int64_t)m->bm_n)
      fail_msg("scan returned an entry past the model's last (%zu-byte key)", kl);
    int ekl = bt_tkey((uint32_t)id, kb);
    if ((size_t)ekl != kl || memcmp(kb, k, kl) != 0)
      fail_msg("scan: expected id %lld", (long long)id);
    int evl = bt_tval((uint32_t)id, m->bm_version[id], vb);
    if ((size_t)evl != vl || memcmp(vb, v, vl) != 0)
      fail_msg("scan: wrong value for id %lld", (long long)id);
    seen++;
  }
  if (rc != BT_END)
    fail_msg("bt_next: %s %s", e.er_sqlstate, e.er_msg);
  assert_int_equal(seen, m->bm_count);
  bt_cursor_close(c);
}

void bt_model_verify(bt_tree_t *t, const bt_model_t *m, bt_check_t *chk)
{
  err_t e;
  err_clear(&e);
  bt_check_t local;
  if (!chk)
    chk = &local;
  if (bt_check(t, chk, &e) != CZ_OK)
    fail_msg("bt_check: %s %s", e.er_sqlstate, e.er_msg);
  assert_int_equal(chk->bc_entries, m->bm_count);
  /* The size storage reports is exactly the pages the walk found. */
  assert_int_equal(bt_pages(t), chk->bc_leaves + chk->bc_inner);
  verify_dir(t, m, BT_FORWARD);
  verify_dir(t, m, BT_BACKWARD);
}
