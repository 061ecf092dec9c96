/* tb_write — insert, update and delete of rows with NOT NULL and unique
 * checks and the maintenance of every secondary index.
 *
 * Design notes (table/README.md, "Changes"):
 * - The primary tree's key is locked by txn_insert/txn_update/txn_delete
 *   (row lock). Update and delete first read the row under its lock
 *   (txn_lock_read) and compare its hash with the locator's: a row changed
 *   since the caller's scan read it is 40001, never a lost update — except
 *   in READ COMMITTED with a recheck (tbl_epq_t, PostgreSQL's
 *   EvalPlanQual): the caller is shown the row's current version (held
 *   under the lock now, so it cannot change again) and either rewrites its
 *   batch row from it (the change is then redone against that version) or
 *   drops the row; a row deleted meanwhile is dropped.
 * - A unique secondary index value is locked as a name in the index tree
 *   (the encoded index columns) by everyone inserting or deleting that
 *   value, then probed: a concurrent inserter of the same value waits for
 *   the first one's outcome instead of both succeeding.
 * - A failed call leaves the rows before it changed: the caller rolls the
 *   transaction back (statements are not savepoints).
 * - No heap allocation per row: keys and values are built on the stack;
 *   the old row is decoded in place.
 */
#include <stdlib.h>
#include <string.h>

#include "table/tb_int.h"

#define TB_STACK_COLS 64

/* Hands txn/ the catalog's (handle, tree) pairs: no directory lookups. */
static void tb_note_trees(txn_t *tx, const cat_table_t *t)
{
  for (int i = 0; i < t->ct_nindexes; i++)
    txn_note_tree(tx, t->ct_indexes[i]->ci_tree, t->ct_indexes[i]->ci_dtree);
  if (t->ct_long_tree)
    txn_note_tree(tx, t->ct_long_tree, t->ct_long_dtree);
}

/* The columns some secondary index holds (key or INCLUDE): the only ones
 * whose old values an update or delete must know. */
static void tb_index_cols(const cat_table_t *t, bool *need)
{
  memset(need, 0, sizeof *need * (size_t)t->ct_ncols);
  for (int i = 1; i < t->ct_nindexes; i++) {
    const cat_index_t *ix = t->ct_indexes[i];
    for (int k = 0; k < ix->ci_nkeys; k++)
      need[ix->ci_keys[k]] = true;
    for (int k = 0; k < ix->ci_ninclude; k++)
      need[ix->ci_include[k]] = true;
  }
}

static int tb_not_null(const cat_table_t *t, const datum_t *vals, err_t *e)
{
  for (int i = 0; i < t->ct_ncols; i++)
    if (vals[i].d_null && t->ct_cols[i].cc_not_null)
      return err_set(e, SQLSTATE_NOT_NULL_VIOLATION,
                     "null value in column \"%s\" of relation \"%s\" violates not-null constraint",
                     t->ct_cols[i].cc_name, t->ct_name);
  return CZ_OK;
}

static int tb_dup(const cat_index_t *ix, err_t *e)
{
  return err_set(e, SQLSTATE_UNIQUE_VIOLATION,
                 "duplicate key value violates unique constraint \"%s\"", ix->ci_name);
}

static int tb_serialization(err_t *e)
{
  return err_set(e, SQLSTATE_SERIALIZATION, "could not serialize access due to concurrent update");
}

/* Is there an entry with this prefix that tx sees (other than skip_key)? */
static int tb_unique_probe(txn_t *tx, const cat_index_t *ix, const uint8_t *prefix, size_t plen,
                           bool *dup, err_t *e)
{
  *dup = false;
  bt_cursor_t *c;
  if (bt_cursor_open(ix->ci_tree, &c, e) != CZ_OK)
    return CZ_ERR;
  int rc = bt_seek(c, prefix, plen, BT_FORWARD, e);
  while (rc == CZ_OK) {
    const void *k, *v;
    size_t kl, vl;
    rc = bt_next(c, &k, &kl, &v, &vl, e);
    if (rc != CZ_OK)
      break;
    if (kl < plen || memcmp(k, prefix, plen) != 0)
      break;
    if (txn_read_version(tx, ix->ci_dtree, k, kl, txn_arena(tx), &v, &vl) != TXN_VIS_ABSENT) {
      *dup = true;
      break;
    }
  }
  bt_cursor_close(c);
  return rc == CZ_ERR ? CZ_ERR : CZ_OK;
}

int tb_index_add(txn_t *tx, const cat_index_t *ix, const datum_t *vals, const uint8_t *pk,
                           size_t pk_len, err_t *e)
{
  uint8_t key[BT_MAX_KEY], val[BT_MAX_ROW];
  size_t kl, pl, vl;
  bool has_null;
  if (tb_index_entry(ix, vals, pk, pk_len, key, &kl, &pl, &has_null, val, &vl, e) != CZ_OK)
    return CZ_ERR;
  if (ix->ci_unique && !has_null) {
    bool dup;
    if (txn_lock(tx, ix->ci_tree, key, pl, NULL, NULL, e) != CZ_OK ||
        tb_unique_probe(tx, ix, key, pl, &dup, e) != CZ_OK)
      return CZ_ERR;
    if (dup)
      return tb_dup(ix, e);
  }
  int rc = txn_insert(tx, ix->ci_tree, key, kl, val, vl, e);
  if (rc != CZ_OK && err_is(e, SQLSTATE_UNIQUE_VIOLATION))
    return tb_dup(ix, e);
  return rc;
}

static int tb_index_delete(txn_t *tx, const cat_index_t *ix, const datum_t *vals, const uint8_t *pk,
                           size_t pk_len, err_t *e)
{
  uint8_t key[BT_MAX_KEY], val[BT_MAX_ROW];
  size_t kl, pl, vl;
  bool has_null;
  if (tb_index_entry(ix, vals, pk, pk_len, key, &kl, &pl, &has_null, val, &vl, e) != CZ_OK)
    return CZ_ERR;
  if (ix->ci_unique && !has_null && txn_lock(tx, ix->ci_tree, key, pl, NULL, NULL, e) != CZ_OK)
    return CZ_ERR;
  int rc = txn_delete(tx, ix->ci_tree, key, kl, NULL, 0, e);
  if (rc == BT_NOT_FOUND)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "index %s lacks the entry of a row", ix->ci_name);
  return rc;
}

/* Old and new entry of one index for an update. */
static int tb_index_update(txn_t *tx, const cat_index_t *ix, const datum_t *oldv, const uint8_t *opk,
                           size_t opk_len, const datum_t *newv, const uint8_t *npk, size_t npk_len,
                           err_t *e)
{
  uint8_t ok[BT_MAX_KEY], ov[BT_MAX_ROW], nk[BT_MAX_KEY], nv[BT_MAX_ROW];
  size_t okl, opl, ovl, nkl, npl, nvl;
  bool on, nn;
  if (tb_index_entry(ix, oldv, opk, opk_len, ok, &okl, &opl, &on, ov, &ovl, e) != CZ_OK ||
      tb_index_entry(ix, newv, npk, npk_len, nk, &nkl, &npl, &nn, nv, &nvl, e) != CZ_OK)
    return CZ_ERR;
  if (okl == nkl && memcmp(ok, nk, okl) == 0) {
    if (ovl == nvl && memcmp(ov, nv, ovl) == 0)
      return CZ_OK;
    int rc = txn_update(tx, ix->ci_tree, nk, nkl, nv, nvl, e);
    return rc == BT_NOT_FOUND ? err_set(e, SQLSTATE_DATA_CORRUPTED, "index %s lacks an entry", ix->ci_name)
                              : rc;
  }
  if (tb_index_delete(tx, ix, oldv, opk, opk_len, e) != CZ_OK)
    return CZ_ERR;
  return tb_index_add(tx, ix, newv, npk, npk_len, e);
}

static int tb_insert_row(txn_t *tx, const cat_table_t *t, const datum_t *vals, err_t *e)
{
  tb_note_trees(tx, t);
  if (tb_not_null(t, vals, e) != CZ_OK)
    return CZ_ERR;
  int64_t rowid = 0;
  if (t->ct_npk == 0 && cat_next_rowid(t, &rowid, e) != CZ_OK)
    return CZ_ERR;
  uint8_t key[BT_MAX_KEY], row[BT_MAX_ROW];
  size_t kl, rl;
  if (tb_pk_encode(t, vals, rowid, key, sizeof key, &kl, e) != CZ_OK ||
      tb_row_store(tx, t, vals, NULL, NULL, 0, row, BT_MAX_ROW - kl, &rl, e) != CZ_OK)
    return CZ_ERR;
  const cat_index_t *pix = t->ct_indexes[0];
  int rc = txn_insert(tx, pix->ci_tree, key, kl, row, rl, e);
  if (rc != CZ_OK)
    return err_is(e, SQLSTATE_UNIQUE_VIOLATION) ? tb_dup(pix, e) : CZ_ERR;
  for (int i = 1; i < t->ct_nindexes; i++)
    if (tb_index_add(tx, t->ct_indexes[i], vals, key, kl, e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

static int tb_insert_row_gated(txn_t *tx, const cat_table_t *t, const datum_t *vals, err_t *e)
{
  if (cat_table_write_begin(t, tx, e) != CZ_OK)
    return CZ_ERR;
  int rc = tb_insert_row(tx, t, vals, e);
  cat_table_write_end(t);
  return rc;
}

int tbl_insert_row(txn_t *tx, const cat_table_t *t, const datum_t *vals, err_t *e)
{
  if (tb_insert_row_gated(tx, t, vals, e) != CZ_OK)
    return CZ_ERR;
  cat_stats_note_row(t, vals, NULL);
  cat_stats_count(tx, t, 1);
  return CZ_OK;
}

/* tb_locate's outcomes besides CZ_OK / CZ_ERR under a recheck: the
 * caller rewrote its batch row from the current version (redo the row
 * from the batch, without a recheck: the row is locked now), or the row
 * no longer qualifies or is gone (skip it). */
#define TB_EPQ_REDO 101
#define TB_EPQ_SKIP 102

/* A row changed or deleted by a transaction that committed after the
 * caller's scan read it, now locked by tx: shown to the recheck (cur NULL
 * when deleted; else every column and the locator of this version). */
static int tb_epq(txn_t *tx, const cat_table_t *t, const uint8_t *pk, size_t pk_len,
                  const uint8_t *row, size_t row_len, const tbl_epq_t *epq, int r, err_t *e)
{
  bool pass = false;
  if (!row) {
    if (epq->te_fn(epq->te_ctx, r, NULL, NULL, 0, &pass, e) != CZ_OK)
      return CZ_ERR;
    return TB_EPQ_SKIP;
  }
  datum_t stack[TB_STACK_COLS];
  datum_t *cur = t->ct_ncols > TB_STACK_COLS
                     ? arena_alloc(txn_arena(tx), sizeof(datum_t) * (size_t)t->ct_ncols)
                     : stack;
  uint8_t loc[TBL_MAX_LOC];
  if (pk_len + TBL_LOC_HASH > sizeof loc)
    return err_set(e, SQLSTATE_INTERNAL, "row locator too long");
  memcpy(loc, pk, pk_len);
  uint64_t h = tb_row_hash(row, row_len);
  for (int i = 0; i < TBL_LOC_HASH; i++)
    loc[pk_len + (size_t)i] = (uint8_t)(h >> (8 * i));
  arena_t *tmp = NULL;
  int rc = tb_row_decode_full(tx, t, row, row_len, NULL, cur, &tmp, e);
  if (rc == CZ_OK)
    rc = epq->te_fn(epq->te_ctx, r, cur, loc, pk_len + TBL_LOC_HASH, &pass, e);
  arena_destroy(tmp);
  if (rc != CZ_OK)
    return CZ_ERR;
  return pass ? TB_EPQ_REDO : TB_EPQ_SKIP;
}

/* Reads the row loc names under its lock (mode: NO_KEY_UPDATE for an
 * update, whose key change takes EXCLUSIVE when it deletes the old key;
 * EXCLUSIVE for a delete) and checks its version (epq: see TB_EPQ_*;
 * NULL: a changed row is 40001). */
static int tb_locate(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t loc_len,
                     txn_lock_mode_t mode, uint8_t *old, size_t *old_len, size_t *pk_len,
                     const tbl_epq_t *epq, int r, err_t *e)
{
  if (loc_len <= TBL_LOC_HASH || loc_len > TBL_MAX_LOC)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "malformed row locator");
  *pk_len = loc_len - TBL_LOC_HASH;
  uint64_t want = 0;
  for (int i = 0; i < TBL_LOC_HASH; i++)
    want |= (uint64_t)loc[*pk_len + (size_t)i] << (8 * i);
  bool found, changed;
  if (txn_lock_read_as(tx, t->ct_indexes[0]->ci_tree, loc, *pk_len, mode, old, BT_MAX_ROW, old_len,
                       &found, &changed, e) != CZ_OK)
    return CZ_ERR;
  if (found && *old_len <= BT_MAX_ROW && tb_is_column(t) &&
      tb_col_row_inplace(t, old, BT_MAX_ROW, old_len, e) != CZ_OK)
    return CZ_ERR;
  if (!changed && found && *old_len <= BT_MAX_ROW && tb_row_hash(old, *old_len) == want)
    return CZ_OK;
  /* Changed since the scan. Snapshot levels keep "first updater wins". */
  if (!epq || *old_len > BT_MAX_ROW || txn_isolation(tx) != TXN_ISO_READ_COMMITTED)
    return tb_serialization(e);
  return tb_epq(tx, t, loc, *pk_len, found ? old : NULL, *old_len, epq, r, e);
}

static int tb_update_apply(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t opk_len,
                           const uint8_t *old, size_t old_len, const datum_t *ov,
                           const datum_t *vals, const bool *set, err_t *e);

/* Update with every column given (set NULL) or only the set ones: the
 * others then keep their stored values (decoded from the old row; long
 * ones keep their reference and are neither read nor rewritten, unless an
 * index or the primary key needs their value). */
static int tb_update_row_gated(txn_t *tx, const cat_table_t *t, const uint8_t *loc,
                               size_t loc_len, const datum_t *vals, const bool *set,
                               const tbl_epq_t *epq, int r, err_t *e)
{
  uint8_t old[BT_MAX_ROW];
  size_t old_len, opk_len;
  tb_note_trees(tx, t);
  int lrc = tb_locate(tx, t, loc, loc_len, TXN_LOCK_NO_KEY_UPDATE, old, &old_len, &opk_len, epq,
                      r, e);
  if (lrc != CZ_OK)
    return lrc;
  /* The old values the indexes hold are decoded (long ones fetched)
   * before tb_row_store deletes replaced chunks. */
  int n = t->ct_ncols;
  datum_t stack_old[TB_STACK_COLS], stack_new[TB_STACK_COLS];
  bool stack_need[TB_STACK_COLS];
  datum_t *ov = stack_old, *nv = stack_new;
  bool *need = stack_need;
  if (n > TB_STACK_COLS) {
    ov = arena_alloc(txn_arena(tx), sizeof *ov * (size_t)n);
    nv = arena_alloc(txn_arena(tx), sizeof *nv * (size_t)n);
    need = arena_alloc(txn_arena(tx), sizeof *need * (size_t)n);
  }
  arena_t *tmp = NULL;
  int rc = CZ_OK;
  if (t->ct_nindexes > 1 || set) {
    tb_index_cols(t, need);
    for (int i = 0; set && i < t->ct_npk; i++)
      need[t->ct_pk[i]] = true;
    rc = tb_row_decode_full(tx, t, old, old_len, need, ov, &tmp, e);
  }
  if (rc == CZ_OK && set) {
    for (int i = 0; i < n; i++)
      nv[i] = set[i] ? vals[i] : ov[i];
    vals = nv;
  }
  if (rc == CZ_OK)
    rc = tb_not_null(t, vals, e);
  if (rc == CZ_OK)
    rc = tb_update_apply(tx, t, loc, opk_len, old, old_len, ov, vals, set, e);
  arena_destroy(tmp);
  return rc;
}

static int tb_update_row(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t loc_len,
                         const datum_t *vals, const bool *set, const tbl_epq_t *epq, int r,
                         err_t *e)
{
  if (cat_table_write_begin(t, tx, e) != CZ_OK)
    return CZ_ERR;
  int rc = tb_update_row_gated(tx, t, loc, loc_len, vals, set, epq, r, e);
  cat_table_write_end(t);
  return rc;
}

int tbl_update_row(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t loc_len,
                   const datum_t *vals, err_t *e)
{
  return tbl_update_row_cols(tx, t, loc, loc_len, vals, NULL, e);
}

int tbl_update_row_cols(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t loc_len,
                        const datum_t *vals, const bool *set, err_t *e)
{
  if (tb_update_row(tx, t, loc, loc_len, vals, set, NULL, 0, e) != CZ_OK)
    return CZ_ERR;
  cat_stats_note_row(t, vals, set);
  return CZ_OK;
}

static int tb_update_apply(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t opk_len,
                           const uint8_t *old, size_t old_len, const datum_t *ov,
                           const datum_t *vals, const bool *set, err_t *e)
{
  const cat_index_t *pix = t->ct_indexes[0];
  uint8_t npk[BT_MAX_KEY];
  size_t npk_len;
  if (t->ct_npk == 0) {
    memcpy(npk, loc, opk_len);
    npk_len = opk_len;
  } else if (tb_pk_encode(t, vals, 0, npk, sizeof npk, &npk_len, e) != CZ_OK) {
    return CZ_ERR;
  }
  uint8_t row[BT_MAX_ROW];
  size_t rl;
  if (tb_row_store(tx, t, vals, set, old, old_len, row, BT_MAX_ROW - npk_len, &rl, e) != CZ_OK)
    return CZ_ERR;
  int rc;
  if (npk_len == opk_len && memcmp(npk, loc, opk_len) == 0) {
    rc = txn_update(tx, pix->ci_tree, npk, npk_len, row, rl, e);
    if (rc == BT_NOT_FOUND)
      return tb_serialization(e);
  } else {
    rc = txn_delete(tx, pix->ci_tree, loc, opk_len, NULL, 0, e);
    if (rc == BT_NOT_FOUND)
      return tb_serialization(e);
    if (rc == CZ_OK) {
      rc = txn_insert(tx, pix->ci_tree, npk, npk_len, row, rl, e);
      if (rc != CZ_OK && err_is(e, SQLSTATE_UNIQUE_VIOLATION))
        return tb_dup(pix, e);
    }
  }
  if (rc != CZ_OK)
    return CZ_ERR;
  for (int i = 1; i < t->ct_nindexes; i++)
    if (tb_index_update(tx, t->ct_indexes[i], ov, loc, opk_len, vals, npk, npk_len, e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

static int tb_delete_row(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t loc_len,
                         const tbl_epq_t *epq, int r, err_t *e)
{
  uint8_t old[BT_MAX_ROW];
  size_t old_len, pk_len;
  tb_note_trees(tx, t);
  int lrc = tb_locate(tx, t, loc, loc_len, TXN_LOCK_EXCLUSIVE, old, &old_len, &pk_len, epq, r, e);
  if (lrc != CZ_OK)
    return lrc;
  if (t->ct_nindexes > 1) {
    datum_t stack_old[TB_STACK_COLS];
    bool stack_need[TB_STACK_COLS];
    datum_t *ov = stack_old;
    bool *need = stack_need;
    if (t->ct_ncols > TB_STACK_COLS) {
      ov = arena_alloc(txn_arena(tx), sizeof *ov * (size_t)t->ct_ncols);
      need = arena_alloc(txn_arena(tx), sizeof *need * (size_t)t->ct_ncols);
    }
    tb_index_cols(t, need);
    arena_t *tmp = NULL;
    int rc = tb_row_decode_full(tx, t, old, old_len, need, ov, &tmp, e);
    for (int i = 1; i < t->ct_nindexes && rc == CZ_OK; i++)
      rc = tb_index_delete(tx, t->ct_indexes[i], ov, loc, pk_len, e);
    arena_destroy(tmp);
    if (rc != CZ_OK)
      return CZ_ERR;
  }
  if (tb_row_drop_longs(tx, t, old, old_len, e) != CZ_OK)
    return CZ_ERR;
  int rc = txn_delete(tx, t->ct_indexes[0]->ci_tree, loc, pk_len, NULL, 0, e);
  if (rc == BT_NOT_FOUND)
    return tb_serialization(e);
  return rc;
}

static int tb_delete_row_gated(txn_t *tx, const cat_table_t *t, const uint8_t *loc,
                               size_t loc_len, const tbl_epq_t *epq, int r, err_t *e)
{
  if (cat_table_write_begin(t, tx, e) != CZ_OK)
    return CZ_ERR;
  int rc = tb_delete_row(tx, t, loc, loc_len, epq, r, e);
  cat_table_write_end(t);
  return rc;
}

int tbl_delete_row(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t loc_len, err_t *e)
{
  if (tb_delete_row_gated(tx, t, loc, loc_len, NULL, 0, e) != CZ_OK)
    return CZ_ERR;
  cat_stats_count(tx, t, -1);
  return CZ_OK;
}

/* ---- batch forms ------------------------------------------------------- */

static datum_t *tb_row_buf(txn_t *tx, const cat_table_t *t, datum_t *stack)
{
  return t->ct_ncols > TB_STACK_COLS ? arena_alloc(txn_arena(tx), sizeof(datum_t) * (size_t)t->ct_ncols)
                                     : stack;
}

static void tb_batch_row(const cat_table_t *t, const batch_t *b, int r, datum_t *vals)
{
  for (int c = 0; c < t->ct_ncols; c++)
    vec_get(&b->b_cols[c], r, &vals[c]);
}

static int tb_check_batch(const cat_table_t *t, const batch_t *b, int extra, err_t *e)
{
  if (b->b_ncols < t->ct_ncols + extra)
    return err_set(e, SQLSTATE_INTERNAL, "batch for %s has %d columns, the table %d", t->ct_name,
                   b->b_ncols, t->ct_ncols);
  return CZ_OK;
}

static int tb_row_cmp(const void *a, const void *b)
{
  const bt_row_t *x = a, *y = b;
  uint32_t m = CZ_MIN(x->r_key_len, y->r_key_len);
  int c = memcmp(x->r_key, y->r_key, m);
  if (c)
    return c;
  return x->r_key_len < y->r_key_len ? -1 : x->r_key_len > y->r_key_len;
}

/* One secondary index's entries for the batch rows just inserted (pks[i]
 * the primary key of batch row i). A unique index goes row by row (each
 * value locked and probed: tb_index_add). A non-unique one is neither
 * locked nor probed (its keys end with the primary key, so they are
 * distinct), so its entries are encoded, sorted and handed to
 * txn_insert_batch in one call: one descent per leaf instead of per row. */
static int tb_index_add_batch(txn_t *tx, const cat_table_t *t, const cat_index_t *ix,
                              const batch_t *b, const int *sel, int n, datum_t *vals,
                              const bt_key_t *pks, arena_t *a, err_t *e)
{
  if (ix->ci_unique) {
    for (int i = 0; i < n; i++) {
      tb_batch_row(t, b, sel ? sel[i] : i, vals);
      if (tb_index_add(tx, ix, vals, pks[i].k_data, pks[i].k_len, e) != CZ_OK)
        return CZ_ERR;
    }
    return CZ_OK;
  }
  bt_row_t *ents = arena_alloc(a, sizeof *ents * (size_t)n);
  bool sorted = true;
  for (int i = 0; i < n; i++) {
    uint8_t key[BT_MAX_KEY], val[BT_MAX_ROW];
    size_t kl, pl, vl;
    bool has_null;
    tb_batch_row(t, b, sel ? sel[i] : i, vals);
    if (tb_index_entry(ix, vals, pks[i].k_data, pks[i].k_len, key, &kl, &pl, &has_null, val, &vl,
                       e) != CZ_OK)
      return CZ_ERR;
    uint8_t *p = arena_alloc(a, kl + vl + 1);
    memcpy(p, key, kl);
    memcpy(p + kl, val, vl);
    ents[i] = (bt_row_t){ p, (uint32_t)kl, p + kl, (uint32_t)vl };
    if (i > 0 && tb_row_cmp(&ents[i - 1], &ents[i]) >= 0)
      sorted = false;
  }
  if (!sorted)
    qsort(ents, (size_t)n, sizeof *ents, tb_row_cmp);
  return txn_insert_batch(tx, ix->ci_tree, ents, n, e);
}

/* Bulk load of a table without unique secondary indexes: encode the
 * batch, sort it by key (row ids already ascend) and hand it to
 * bt_insert_batch, whose append path fills leaves without descending per
 * row; then each secondary index's entries, sorted, the same way
 * (tb_index_add_batch). A column table takes this path for every batch of
 * an INSERT too (a column tree re-encodes each affected segment once per
 * batch instead of once per row). */
static int tb_insert_bulk_gated(txn_t *tx, const cat_table_t *t, const batch_t *b,
                                const int *sel, int n, datum_t *vals, err_t *e)
{
  arena_t *a = arena_create(NULL, "tbl_bulk");
  bt_row_t *rows = arena_alloc(a, sizeof *rows * (size_t)n);
  bt_key_t *pks = arena_alloc(a, sizeof *pks * (size_t)n);  /* by batch row */
  bool sorted = true;
  int rc = CZ_OK;
  for (int i = 0; i < n && rc == CZ_OK; i++) {
    tb_batch_row(t, b, sel ? sel[i] : i, vals);
    int64_t rowid = 0;
    uint8_t key[BT_MAX_KEY], row[BT_MAX_ROW];
    size_t kl, rl;
    rc = tb_not_null(t, vals, e);
    if (rc == CZ_OK && t->ct_npk == 0)
      rc = cat_next_rowid(t, &rowid, e);
    if (rc == CZ_OK)
      rc = tb_pk_encode(t, vals, rowid, key, sizeof key, &kl, e);
    if (rc == CZ_OK)
      rc = tb_row_store(tx, t, vals, NULL, NULL, 0, row, BT_MAX_ROW - kl, &rl, e);
    if (rc != CZ_OK)
      break;
    uint8_t *p = arena_alloc(a, kl + rl);
    memcpy(p, key, kl);
    memcpy(p + kl, row, rl);
    rows[i] = (bt_row_t){ p, (uint32_t)kl, p + kl, (uint32_t)rl };
    pks[i] = (bt_key_t){ p, (uint32_t)kl };
    if (i > 0 && tb_row_cmp(&rows[i - 1], &rows[i]) >= 0)
      sorted = false;
  }
  if (rc == CZ_OK) {
    if (!sorted)
      qsort(rows, (size_t)n, sizeof *rows, tb_row_cmp);
    rc = txn_insert_batch(tx, t->ct_indexes[0]->ci_tree, rows, n, e);
    if (rc != CZ_OK && err_is(e, SQLSTATE_UNIQUE_VIOLATION))
      rc = tb_dup(t->ct_indexes[0], e);
  }
  for (int k = 1; k < t->ct_nindexes && rc == CZ_OK; k++)
    rc = tb_index_add_batch(tx, t, t->ct_indexes[k], b, sel, n, vals, pks, a, e);
  arena_destroy(a);
  return rc;
}

static int tb_insert_bulk(txn_t *tx, const cat_table_t *t, const batch_t *b, const int *sel, int n,
                          datum_t *vals, err_t *e)
{
  if (cat_table_write_begin(t, tx, e) != CZ_OK)
    return CZ_ERR;
  int rc = tb_insert_bulk_gated(tx, t, b, sel, n, vals, e);
  cat_table_write_end(t);
  if (rc == CZ_OK) {
    cat_stats_note_batch(t, b, sel, n, NULL);
    cat_stats_count(tx, t, n);
  }
  return rc;
}

int tbl_insert(txn_t *tx, const cat_table_t *t, const batch_t *b, const int *sel, int n, err_t *e)
{
  if (tb_check_batch(t, b, 0, e) != CZ_OK)
    return CZ_ERR;
  if (n > 1 && ((txn_is_bulk(tx) && t->ct_nindexes == 1) || tb_is_column(t))) {
    tb_note_trees(tx, t);
    datum_t stack[TB_STACK_COLS];
    return tb_insert_bulk(tx, t, b, sel, n, tb_row_buf(tx, t, stack), e);
  }
  datum_t stack[TB_STACK_COLS];
  datum_t *vals = tb_row_buf(tx, t, stack);
  int done = 0, rc = CZ_OK;
  for (; done < n && rc == CZ_OK; done++) {
    tb_batch_row(t, b, sel ? sel[done] : done, vals);
    rc = tb_insert_row_gated(tx, t, vals, e);
  }
  if (rc != CZ_OK)
    done--;
  /* statistics once per batch: what was written, even before a failure
   * (the transaction's end decides whether the count stays) */
  cat_stats_note_batch(t, b, sel, done, NULL);
  cat_stats_count(tx, t, done);
  return rc;
}

/* A unique secondary index keeps a batch on the row-at-a-time path:
 * its per-row lock and probe decide which row of the batch a duplicate
 * is reported for, as for single-row inserts. */
static bool tb_has_unique_secondary(const cat_table_t *t)
{
  for (int i = 1; i < t->ct_nindexes; i++)
    if (t->ct_indexes[i]->ci_unique)
      return true;
  return false;
}

int tbl_insert_batch(txn_t *tx, const cat_table_t *t, const batch_t *b, int n, err_t *e)
{
  if (tb_check_batch(t, b, 0, e) != CZ_OK)
    return CZ_ERR;
  if ((tb_has_unique_secondary(t) && !tb_is_column(t)) || n < 2)
    return tbl_insert(tx, t, b, NULL, n, e);
  /* Primary tree only: one sorted txn_insert_batch (locked per key by
   * txn/ outside bulk mode, so readers still skip the new rows until the
   * commit and a duplicate is still 23505). */
  tb_note_trees(tx, t);
  datum_t stack[TB_STACK_COLS];
  return tb_insert_bulk(tx, t, b, NULL, n, tb_row_buf(tx, t, stack), e);
}

static int tb_loc_of(const batch_t *b, int loc_col, int r, str_t *out, err_t *e)
{
  const vec_t *v = &b->b_cols[loc_col];
  if (v->v_null[r] || ty_phys(v->v_type.t_id) != TP_STR)
    return err_set(e, SQLSTATE_INTERNAL, "row locator missing");
  *out = v->v_str[r];
  return CZ_OK;
}

int tbl_update_cols(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const bool *set,
                    const int *sel, int n, err_t *e)
{
  return tbl_update_epq(tx, t, b, loc_col, set, sel, n, NULL, e);
}

int tbl_update_epq(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const bool *set,
                   const int *sel, int n, const tbl_epq_t *epq, err_t *e)
{
  if (tb_check_batch(t, b, 0, e) != CZ_OK || loc_col >= b->b_ncols)
    return err_set(e, SQLSTATE_INTERNAL, "update batch of %s malformed", t->ct_name);
  datum_t stack[TB_STACK_COLS];
  datum_t *vals = tb_row_buf(tx, t, stack);
  int done = 0, rc = CZ_OK;
  for (; done < n; done++) {
    int r = sel ? sel[done] : done;
    str_t loc;
    /* a recheck rewrote row r: once more from the batch, without one */
    for (const tbl_epq_t *x = epq;; x = NULL) {
      tb_batch_row(t, b, r, vals);
      if ((rc = tb_loc_of(b, loc_col, r, &loc, e)) != CZ_OK)
        break;
      rc = tb_update_row(tx, t, (const uint8_t *)loc.s_ptr, loc.s_len, vals, set, x, r, e);
      if (rc != TB_EPQ_REDO)
        break;
    }
    if (rc == TB_EPQ_SKIP)
      rc = CZ_OK;
    else if (rc != CZ_OK)
      break;
  }
  cat_stats_note_batch(t, b, sel, done, set);
  return rc;
}

int tbl_update(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const int *sel,
               int n, err_t *e)
{
  return tbl_update_cols(tx, t, b, loc_col, NULL, sel, n, e);
}

int tbl_delete(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const int *sel,
               int n, err_t *e)
{
  return tbl_delete_epq(tx, t, b, loc_col, sel, n, NULL, e);
}

int tbl_delete_epq(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const int *sel,
                   int n, const tbl_epq_t *epq, err_t *e)
{
  if (loc_col < 0 || loc_col >= b->b_ncols)
    return err_set(e, SQLSTATE_INTERNAL, "delete batch of %s malformed", t->ct_name);
  int done = 0, gone = 0, rc = CZ_OK;
  for (; done < n; done++) {
    int r = sel ? sel[done] : done;
    str_t loc;
    for (const tbl_epq_t *x = epq;; x = NULL) {
      if ((rc = tb_loc_of(b, loc_col, r, &loc, e)) != CZ_OK)
        break;
      rc = tb_delete_row_gated(tx, t, (const uint8_t *)loc.s_ptr, loc.s_len, x, r, e);
      if (rc != TB_EPQ_REDO)
        break;
    }
    if (rc == TB_EPQ_SKIP) {
      rc = CZ_OK;
      gone++;
    } else if (rc != CZ_OK) {
      break;
    }
  }
  cat_stats_count(tx, t, -(done - gone));
  return rc;
}
