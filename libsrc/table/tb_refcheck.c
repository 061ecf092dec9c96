/* tb_refcheck — what constraint enforcement needs of the table layer:
 * the vectored probe of a batch of keys into a unique index with the
 * value locks a foreign key check takes (tbl_ref_probe), and rows read
 * back by their locators (tbl_fetch_locs).
 *
 * Design notes (table/README.md, "Constraint probes"): a referencing
 * row's writer locks the referenced value's lock name — the one every
 * inserter, deleter and updater of that value takes (tb_write.c) — and
 * then reads it. Whoever comes second waits for the first to end, then
 * sees its outcome: a child inserted while its parent row is being
 * deleted either waits and finds the parent gone (23503), or makes the
 * deleter wait and is then seen by the deleter's check of referencing
 * rows. No orphan can commit. The check takes KEY SHARE (as PostgreSQL's
 * foreign key checks): it conflicts with the deleter's and key changer's
 * EXCLUSIVE, not with an update of the parent row that keeps its key
 * (NO KEY UPDATE). Keys are locked and probed in key order (fewer
 * deadlocks between two bulk writers), duplicates once. */
#include <stdlib.h>
#include <string.h>

#include "table/tb_int.h"

typedef struct rp_key_s {
  const uint8_t *k_p;
  size_t k_len;
  int k_at;                     /* its place in the caller's keys */
} rp_key_t;

static int rp_cmp(const void *a, const void *b)
{
  const rp_key_t *x = a, *y = b;
  size_t n = x->k_len < y->k_len ? x->k_len : y->k_len;
  int c = memcmp(x->k_p, y->k_p, n);
  if (c)
    return c;
  return x->k_len < y->k_len ? -1 : x->k_len > y->k_len;
}

int tbl_ref_probe(txn_t *tx, const cat_table_t *t, int idx, const datum_t *const *keys, int n,
                  bool lock, bool *found, arena_t *a, err_t *e)
{
  if (idx < 0 || idx >= t->ct_nindexes || !t->ct_indexes[idx]->ci_unique)
    return err_set(e, SQLSTATE_INTERNAL, "referential probe of a non-unique index");
  const cat_index_t *ix = t->ct_indexes[idx];
  int nk = ix->ci_nkeys;
  if (idx == 0 && ix->ci_hidden)
    return err_set(e, SQLSTATE_INTERNAL, "referential probe of a row id");
  txn_note_read(tx, ix->ci_dtree);
  rp_key_t *ks = arena_alloc(a, sizeof *ks * (size_t)(n + 1));
  int m = 0;
  for (int i = 0; i < n; i++) {
    found[i] = false;
    uint8_t buf[BT_MAX_KEY];
    size_t len;
    err_t e2;
    if (tbl_key_encode(ix->ci_key_types, keys[i], nk, buf, sizeof buf, &len, &e2) != CZ_OK)
      continue;  /* longer than any stored key: absent */
    uint8_t *p = arena_alloc(a, len ? len : 1);
    memcpy(p, buf, len);
    ks[m++] = (rp_key_t){p, len, i};
  }
  /* keys often come sorted (a bulk loader's batches): no sort then */
  bool sorted = true;
  for (int i = 1; i < m && sorted; i++)
    sorted = rp_cmp(&ks[i - 1], &ks[i]) <= 0;
  if (!sorted)
    qsort(ks, (size_t)m, sizeof *ks, rp_cmp);
  if (lock) {
    for (int i = 0; i < m; i++)
      if ((i == 0 || rp_cmp(&ks[i - 1], &ks[i]) != 0) &&
          txn_lock_as(tx, ix->ci_tree, ks[i].k_p, ks[i].k_len, TXN_LOCK_KEY_SHARE, e) != CZ_OK)
        return CZ_ERR;
  }
  if (idx == 0) {
    /* one sorted lookup of every distinct key */
    const datum_t **lk = arena_alloc(a, sizeof *lk * (size_t)(m + 1));
    int *at = arena_alloc(a, sizeof *at * (size_t)(m + 1));
    int nl = 0;
    for (int i = 0; i < m; i++) {
      if (i > 0 && rp_cmp(&ks[i - 1], &ks[i]) == 0)
        continue;
      lk[nl] = keys[ks[i].k_at];
      at[nl++] = i;
    }
    int col = t->ct_pk[0];
    ty_t ty = t->ct_cols[col].cc_type;
    batch_t *out = batch_create(a, 1, &ty, nl ? nl : 1, e);
    bool *got = arena_alloc(a, (size_t)(nl + 1));
    if (!out || tbl_lookup(tx, t, lk, nl, &col, 1, false, out, got, a, e) != CZ_OK)
      return CZ_ERR;
    for (int j = 0; j < nl; j++) {
      for (int i = at[j]; i < m && (i == at[j] || rp_cmp(&ks[i - 1], &ks[i]) == 0); i++)
        found[ks[i].k_at] = got[j];
    }
    return CZ_OK;
  }
  bt_cursor_t *cur;
  if (bt_cursor_open(ix->ci_tree, &cur, e) != CZ_OK)
    return CZ_ERR;
  bool f = false;
  for (int i = 0; i < m; i++) {
    if (i == 0 || rp_cmp(&ks[i - 1], &ks[i]) != 0) {
      if (tb_index_find(tx, cur, ix, ks[i].k_p, ks[i].k_len, NULL, NULL, &f, e) != CZ_OK) {
        bt_cursor_close(cur);
        return CZ_ERR;
      }
    }
    found[ks[i].k_at] = f;
  }
  bt_cursor_close(cur);
  return CZ_OK;
}

int tbl_fetch_locs(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const int *sel,
                   int n, const int *cols, int ncols, bool want_loc, batch_t *out, bool *found,
                   arena_t *a, err_t *e)
{
  int npk;
  const ty_t *pt = tb_pk_types(t, &npk);
  const datum_t **keys = arena_alloc(a, sizeof *keys * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    int r = sel ? sel[i] : i;
    datum_t loc;
    vec_get(&b->b_cols[loc_col], r, &loc);
    datum_t *k = arena_alloc(a, sizeof *k * (size_t)npk);
    if (loc.d_null || loc.d_str.s_len < TBL_LOC_HASH)
      return err_set(e, SQLSTATE_INTERNAL, "a row without its locator");
    if (tbl_key_decode(pt, npk, (const uint8_t *)loc.d_str.s_ptr, loc.d_str.s_len - TBL_LOC_HASH, a, k,
                       NULL, e) != CZ_OK)
      return CZ_ERR;
    keys[i] = k;
  }
  return tbl_lookup(tx, t, keys, n, cols, ncols, want_loc, out, found, a, e);
}
