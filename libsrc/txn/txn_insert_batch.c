/* txn_insert_batch — sorted rows into a locking unique tree in three
 * passes: lock every key, learn their pre-images in one batch lookup,
 * insert the absent ones in one bt_insert_batch.
 *
 * Design notes (txn/README.md, "Row locks and read committed"):
 * - Row by row (txn_locked_insert) each key cost a lock, a descent to
 *   learn whether it existed (its pre-image) and a second descent to
 *   insert it. A COPY or multi-row INSERT hands sorted rows: once their
 *   locks are held nobody else can create or remove those keys (every
 *   writer locks the key first), so their existence found by one
 *   bt_lookup_batch (one descent, then a walk) stays true until the
 *   insert, and bt_insert_batch appends rows that fall after the tree's
 *   last key without descending per row (bt_append.c).
 * - Readers: between the lock and txn_lock_note_absent a reader meeting
 *   the lock finds no pre-image and reads the tree, which does not hold
 *   the new entry yet; the pre-image (absent) and the owner's stamp are in
 *   place before bt_insert_batch makes the entries visible, as in
 *   txn_locked_insert.
 * - Anything but a fresh key of a unique tree goes row by row through txn_locked_insert
 *   with the lock already held: a key the owner deleted or changed before
 *   (revive, or its pre-image already known), a dead entry kept for older
 *   snapshots in the tree (dt_ndead, checked after the locks so none for
 *   these keys can appear later), the same key twice in the rows.
 * - An existing key ends the call like txn_locked_insert's 23505, the rows
 *   before it inserted (*n_done), the key itself untouched (its lock has
 *   no pre-image: it changed nothing).
 * - Rows go in chunks of TXN_INS_CHUNK: the chunk's lock pointers and
 *   lookup results live on the stack.
 */
#include <string.h>

#include "txn/txn_int.h"

#define TXN_INS_CHUNK 256        /* rows locked, looked up and inserted together */
#define TXN_INS_PREFETCH 16      /* rows: the lock-table prefetch distance */

typedef struct ins_found_s {
  bool *if_found;
  int if_first;                  /* the first existing key's index (n: none) */
} ins_found_t;

static void ins_found_cb(void *ctx, int i, bool found, const void *val, size_t val_len)
{
  (void)val, (void)val_len;
  ins_found_t *f = ctx;
  f->if_found[i] = found;
  if (found && i < f->if_first)
    f->if_first = i;
}

static bool same_key(const bt_row_t *a, const bt_row_t *b)
{
  return a->r_key_len == b->r_key_len && memcmp(a->r_key, b->r_key, a->r_key_len) == 0;
}

/* Locks rows[0..m); *fresh false when one of them is not a fresh key for
 * the batch path. The keys scatter over the lock table: their hashes are
 * computed first and each chain slot is prefetched TXN_INS_PREFETCH rows
 * ahead, so the misses overlap instead of coming one after the other
 * (the chains are at most half full: most fresh keys find an empty slot,
 * so the slot is all there is to fetch). */
static int ins_lock_rows(txn_t *tx, db_tree_t *dt, const bt_row_t *r, int m, txn_lock_t **lk,
                         bool *fresh, err_t *e)
{
  uint64_t h[TXN_INS_CHUNK];
  for (int i = 0; i < m; i++)
    h[i] = txn_lock_hash(dt, r[i].r_key, r[i].r_key_len);
  for (int i = 0; i < m && i < TXN_INS_PREFETCH; i++)
    txn_lock_prefetch_slot(tx, h[i]);
  *fresh = true;
  for (int i = 0; i < m; i++) {
    if (i + TXN_INS_PREFETCH < m)
      txn_lock_prefetch_slot(tx, h[i + TXN_INS_PREFETCH]);
    if (txn_lock_acquire_hashed(tx, dt, r[i].r_key, r[i].r_key_len, h[i], &lk[i], e) != CZ_OK)
      return CZ_ERR;
    if (lk[i]->lk_deleted || lk[i]->lk_pre_state != TXN_PRE_NONE || lk[i]->lk_cmd != 0 ||
        (i > 0 && same_key(&r[i - 1], &r[i])))
      *fresh = false;
  }
  return CZ_OK;
}

/* One chunk: locked, looked up, inserted; *done rows inserted. */
static int ins_chunk(txn_t *tx, db_tree_t *dt, const bt_row_t *r, int m, int *done, err_t *e)
{
  txn_lock_t *lk[TXN_INS_CHUNK];
  bool found[TXN_INS_CHUNK];
  bool fresh;
  *done = 0;
  if (ins_lock_rows(tx, dt, r, m, lk, &fresh, e) != CZ_OK)
    return CZ_ERR;
  if (!fresh || !(dt->dt_flags & BT_UNIQUE) || atomic_load(&dt->dt_ndead) > 0) {
    for (int i = 0; i < m; i++) {
      if (txn_locked_insert(tx, dt, r[i].r_key, r[i].r_key_len, r[i].r_val, r[i].r_val_len, e) !=
          CZ_OK)
        return CZ_ERR;
      *done = i + 1;
    }
    return CZ_OK;
  }
  bt_key_t keys[TXN_INS_CHUNK];
  for (int i = 0; i < m; i++)
    keys[i] = (bt_key_t){ r[i].r_key, r[i].r_key_len };
  ins_found_t f = { found, m };
  if (bt_lookup_batch(dt->dt_bt, keys, m, ins_found_cb, &f, e) != CZ_OK)
    return CZ_ERR;
  int absent = f.if_first;
  for (int i = 0; i < absent; i++)
    txn_lock_note_absent(tx, lk[i]);
  int n_in = 0;
  int rc = absent ? bt_insert_batch(dt->dt_bt, r, absent, &n_in, e) : CZ_OK;
  if (rc == CZ_OK)
    n_in = absent;
  for (int i = 0; i < n_in; i++)
    txn_add_op(tx, TXN_OP_INSERT, dt, r[i].r_key, r[i].r_key_len, r[i].r_val, r[i].r_val_len,
               NULL, 0);
  *done = n_in;
  if (rc != CZ_OK)
    return rc;
  if (absent < m)
    return err_set(e, SQLSTATE_UNIQUE_VIOLATION, "duplicate key");
  return CZ_OK;
}

int txn_locked_insert_batch(txn_t *tx, db_tree_t *dt, const bt_row_t *rows, int n, int *n_done,
                            err_t *e)
{
  *n_done = 0;
  for (int base = 0; base < n; base += TXN_INS_CHUNK) {
    int m = CZ_MIN(TXN_INS_CHUNK, n - base), done = 0;
    int rc = ins_chunk(tx, dt, rows + base, m, &done, e);
    *n_done += done;
    if (rc != CZ_OK)
      return rc;
  }
  return CZ_OK;
}
