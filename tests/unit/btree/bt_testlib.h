/* bt_testlib — fixtures shared by the btree unit tests: a database file in
 * the test's temporary directory with a buffer pool over it, keys and
 * values generated from integers (so a model needs no copies), and a
 * check that a tree holds exactly a model's entries.
 */
#ifndef CZ_BT_TESTLIB_H
#define CZ_BT_TESTLIB_H

#include <stdbool.h>
#include <stdint.h>

#include "btree/btree.h"

typedef struct bt_env_s {
  storage_t *be_st;
  bpool_t *be_bp;
} bt_env_t;

/* Opens (creating) the file `name` in the test directory with n_buffers. */
void bt_env_open(bt_env_t *env, const char *name, int n_buffers, bool create);
/* Flushes, checkpoints and closes. */
void bt_env_close(bt_env_t *env);

/* Key of id: 4 bytes big-endian id then (id % 9) filler bytes: keys of
 * varied length, ordered as their ids, sharing leading bytes. */
int bt_tkey(uint32_t id, uint8_t *buf);
/* Value of (id, version): 0..63 bytes derived from both. */
int bt_tval(uint32_t id, uint32_t version, uint8_t *buf);

/* A model of a unique tree over ids [0, n): present and value version. */
typedef struct bt_model_s {
  uint32_t bm_n;
  uint8_t *bm_present;
  uint32_t *bm_version;
  uint64_t bm_count;
} bt_model_t;

void bt_model_init(bt_model_t *m, uint32_t n);
void bt_model_free(bt_model_t *m);
/* Full forward scan and a backward scan equal the model; bt_check passes
 * with the model's count, and bt_pages equals the pages it walked. Fails the test otherwise. */
void bt_model_verify(bt_tree_t *t, const bt_model_t *m, bt_check_t *chk);

#endif /* CZ_BT_TESTLIB_H */
