/* cat_test.h — fixture of the catalog and table unit tests: a database in
 * the test's temporary folder with a bootstrapped catalog.
 */
#ifndef CZ_CAT_TEST_H
#define CZ_CAT_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "catalog/catalog.h"
#include "cz_test.h"
#include "table/table.h"

#define CT_OK(call)                                                 \
  do {                                                              \
    err_t e_;                                                       \
    err_clear(&e_);                                                 \
    int rc_ = (call);                                               \
    if (rc_ != CZ_OK)                                               \
      fail_msg("%s -> %d: %s %s", #call, rc_, e_.er_sqlstate, e_.er_msg); \
  } while (0)

/* call must fail with the SQLSTATE state. */
#define CT_FAILS(state, call)                                       \
  do {                                                              \
    err_t e_;                                                       \
    err_clear(&e_);                                                 \
    int rc_ = (call);                                               \
    if (rc_ == CZ_OK)                                               \
      fail_msg("%s succeeded, expected %s", #call, state);          \
    if (!err_is(&e_, state))                                        \
      fail_msg("%s -> %s %s, expected %s", #call, e_.er_sqlstate, e_.er_msg, state); \
  } while (0)

typedef struct ct_env_s {
  char *ce_db_path, *ce_wal_path;
  db_config_t ce_cfg;
  db_t *ce_db;
  cat_t *ce_cat;
} ct_env_t;

static inline void ct_open_only(ct_env_t *t)
{
  CT_OK(db_open(&t->ce_cfg, &t->ce_db, &e_));
  int rc;
  err_t e;
  rc = cat_open(t->ce_db, &t->ce_cat, &e);
  if (rc != CZ_OK)
    fail_msg("cat_open -> %d: %s", rc, e.er_msg);
}

static inline void ct_init(ct_env_t *t, const char *name)
{
  char buf[256];
  memset(t, 0, sizeof *t);
  snprintf(buf, sizeof buf, "%s.db", name);
  t->ce_db_path = cz_test_path(buf);
  snprintf(buf, sizeof buf, "%s.trx", name);
  t->ce_wal_path = cz_test_path(buf);
  unlink(t->ce_db_path);
  unlink(t->ce_wal_path);
  t->ce_cfg.dc_storage.sc_path = t->ce_db_path;
  t->ce_cfg.dc_storage.sc_create = true;
  t->ce_cfg.dc_storage.sc_sync = false;
  bp_config_default(&t->ce_cfg.dc_pool);
  t->ce_cfg.dc_pool.bc_n_buffers = 512;
  t->ce_cfg.dc_pool.bc_max_dirty = 400;
  t->ce_cfg.dc_pool.bc_bg_writer = false;
  t->ce_cfg.dc_pool.bc_read_ahead = false;
  t->ce_cfg.dc_wal_path = t->ce_wal_path;
  t->ce_cfg.dc_sync = false;
  CT_OK(db_open(&t->ce_cfg, &t->ce_db, &e_));
  err_t e;
  assert_int_equal(cat_open(t->ce_db, &t->ce_cat, &e), 1);
  CT_OK(cat_bootstrap(t->ce_db, "dba", "SCRAM-SHA-256$4096:c2FsdA==$AAAA:BBBB", &e_));
  CT_OK(cat_open(t->ce_db, &t->ce_cat, &e_));
}

/* Closes catalog and database; checkpoint false = as after a crash. */
static inline void ct_close(ct_env_t *t, bool checkpoint)
{
  cat_close(t->ce_cat);
  t->ce_cat = NULL;
  CT_OK(db_close(t->ce_db, checkpoint, &e_));
  t->ce_db = NULL;
}

static inline void ct_fini(ct_env_t *t)
{
  if (t->ce_db)
    ct_close(t, true);
  unlink(t->ce_db_path);
  unlink(t->ce_wal_path);
  free(t->ce_db_path);
  free(t->ce_wal_path);
}

static inline txn_t *ct_begin(ct_env_t *t)
{
  err_t e;
  txn_t *tx = txn_begin(t->ce_db, 0, &e);
  if (!tx)
    fail_msg("txn_begin: %s", e.er_msg);
  return tx;
}

static inline cat_column_def_t ct_col(const char *name, ty_id_t id, bool not_null)
{
  cat_column_def_t c = { .cd_name = name, .cd_type = ty_plain(id), .cd_not_null = not_null };
  return c;
}

#endif /* CZ_CAT_TEST_H */
