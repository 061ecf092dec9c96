/* tb_probe — index-prefix probes, vectored: a batch of key prefixes of
 * any index (primary or secondary, unique or not) in, every matching row
 * out, with the prefix each row matched (the executor's index lookup
 * join, exec/op_lookup.c).
 *
 * Design notes (table/README.md, "Reads"):
 * - One scan (tbl_scan_open) serves every batch of an execution: it
 *   started one command, so every probe reads as of it, and its decoding
 *   plan, predicates and cursor are made once. Each distinct prefix
 *   re-aims it (tb_scan_aim: low = high = the prefix, inclusive) and it
 *   fills the output from the row after the last one written
 *   (tb_scan_fill), so rows of many prefixes share one batch and the
 *   primary tree's rows are decoded straight into its vectors as a scan
 *   decodes them.
 * - The prefixes are encoded, sorted and merged first: the index is
 *   walked once per batch in key order (a seek per distinct prefix,
 *   ascending, so the path's pages are hot), and a prefix many outer rows
 *   share is read once.
 * - A secondary index that does not cover the wanted columns collects the
 *   primary keys of a whole output batch (many prefixes) and fetches
 *   them with one tb_fetch (bt_lookup_batch: one sorted walk), then tests
 *   the predicates on the fetched rows.
 */
#include <string.h>

#include "table/tb_int.h"

struct tbl_probe_s {
  const cat_table_t *p_t;
  const cat_index_t *p_ix;
  tbl_scan_t *p_scan;
  int p_nkey;
  int p_ncols;
  int *p_cols;
  const tbl_pred_t *p_preds;
  int p_npred;
  bool p_fetch;                 /* rows fetched from the primary tree by key */
  txn_t *p_tx;
  /* the current batch: distinct prefixes in key order */
  int p_nd;
  bt_key_t *p_keys;
  int *p_at;                    /* per distinct prefix: its first position in sel */
  int p_next;                   /* the prefix being read */
  bool p_aimed;                 /* the scan is aimed at p_keys[p_next] */
};

int tbl_probe_open(txn_t *tx, const cat_table_t *t, int idx, int nkey, const int *cols, int ncols,
                   const tbl_pred_t *preds, int npred, arena_t *a, tbl_probe_t **out, err_t *e)
{
  *out = NULL;
  if (idx < 0 || idx >= t->ct_nindexes)
    return err_set(e, SQLSTATE_INTERNAL, "table %s has no index %d", t->ct_name, idx);
  const cat_index_t *ix = t->ct_indexes[idx];
  if (nkey < 1 || nkey > ix->ci_nkeys)
    return err_set(e, SQLSTATE_INTERNAL, "probe of %d columns of index %s with %d", nkey,
                   ix->ci_name, ix->ci_nkeys);
  if (ncols < 1)
    return err_set(e, SQLSTATE_INTERNAL, "a probe returns at least one column");
  tbl_probe_t *p = arena_zalloc(a, sizeof *p);
  p->p_t = t;
  p->p_ix = ix;
  p->p_nkey = nkey;
  p->p_ncols = ncols;
  p->p_cols = arena_alloc(a, sizeof(int) * (size_t)ncols);
  memcpy(p->p_cols, cols, sizeof(int) * (size_t)ncols);
  p->p_preds = preds;
  p->p_npred = npred;
  p->p_tx = tx;
  if (tbl_scan_open(tx, t, idx, cols, ncols, NULL, NULL, false, a, &p->p_scan, e) != CZ_OK)
    return CZ_ERR;
  p->p_fetch = tb_scan_fetches(p->p_scan);
  /* a fetching scan leaves the predicates to us (tested after the fetch) */
  if (!p->p_fetch && npred > 0 && tbl_scan_filter(p->p_scan, preds, npred, e) != CZ_OK)
    return CZ_ERR;
  *out = p;
  return CZ_OK;
}

int tbl_probe_keys(tbl_probe_t *p, const vec_t *const *keys, const int *sel, int n, int *same,
                   arena_t *a, err_t *e)
{
  p->p_nd = 0;
  p->p_next = 0;
  p->p_aimed = false;
  if (n <= 0)
    return CZ_OK;
  int nk = p->p_nkey;
  const ty_t *kt = p->p_ix->ci_key_types;
  bt_key_t *bk = arena_alloc(a, sizeof *bk * (size_t)n);
  datum_t vals[64];
  datum_t *v = nk <= 64 ? vals : arena_alloc(a, sizeof(datum_t) * (size_t)nk);
  uint8_t buf[BT_MAX_KEY];
  for (int j = 0; j < n; j++) {
    int r = sel ? sel[j] : j;
    for (int c = 0; c < nk; c++)
      vec_get(keys[c], r, &v[c]);
    size_t len;
    if (tbl_key_encode(kt, v, nk, buf, sizeof buf, &len, e) == CZ_OK) {
      uint8_t *k = arena_alloc(a, len ? len : 1);
      memcpy(k, buf, len);
      bk[j].k_data = k;
      bk[j].k_len = (uint32_t)len;
      continue;
    }
    if (!err_is(e, SQLSTATE_PROGRAM_LIMIT))
      return CZ_ERR;
    err_clear(e);
    uint8_t *k;  /* longer than any stored key: matches nothing */
    if (tb_search_key(kt, v, nk, a, &k, &len, e) != CZ_OK)
      return CZ_ERR;
    bk[j].k_data = k;
    bk[j].k_len = (uint32_t)len;
  }
  int *perm = arena_alloc(a, sizeof(int) * (size_t)n);
  tb_sort(bk, perm, n, a);  /* stable: equal prefixes in sel order */
  p->p_keys = arena_alloc(a, sizeof *p->p_keys * (size_t)n);
  p->p_at = arena_alloc(a, sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) {
    bool dup = i > 0 && bk[i].k_len == bk[i - 1].k_len &&
               memcmp(bk[i].k_data, bk[i - 1].k_data, bk[i].k_len) == 0;
    if (same) {
      same[perm[i]] = -1;
      if (dup)
        same[perm[i - 1]] = perm[i];
    }
    if (dup)
      continue;
    p->p_keys[p->p_nd] = bk[i];
    p->p_at[p->p_nd++] = perm[i];
  }
  return CZ_OK;
}

int tbl_probe_next(tbl_probe_t *p, batch_t *out, int *at, arena_t *a, err_t *e)
{
  out->b_n = 0;
  int cap = out->b_ncols > 0 ? out->b_cols[0].v_cap : 0;
  if (out->b_ncols < p->p_ncols || cap <= 0)
    return err_set(e, SQLSTATE_INTERNAL, "probe batch of %d columns, %d wanted", out->b_ncols,
                   p->p_ncols);
  bt_key_t *pks = p->p_fetch ? arena_alloc(a, sizeof *pks * (size_t)cap) : NULL;
  int n = 0;
  /* (a fetched batch whose rows all vanished or failed the predicates
   * goes on with the next prefixes: 0 rows means the end) */
again:
  n = 0;
  tb_scan_hold(p->p_scan, true);
  while (n < cap && p->p_next < p->p_nd) {
    if (!p->p_aimed) {
      tb_scan_aim(p->p_scan, p->p_keys[p->p_next].k_data, p->p_keys[p->p_next].k_len,
                  p->p_next > 0);
      p->p_aimed = true;
    }
    int before = n;
    if (tb_scan_fill(p->p_scan, out, n, pks, a, e) != CZ_OK) {
      tb_scan_hold(p->p_scan, false);
      return CZ_ERR;
    }
    n = out->b_n;
    for (int r = before; r < n; r++)
      at[r] = p->p_at[p->p_next];
    if (tb_scan_ended(p->p_scan)) {
      p->p_next++;
      p->p_aimed = false;
    }
  }
  /* no latch is held while rows are fetched, nor between calls */
  tb_scan_hold(p->p_scan, false);
  if (p->p_fetch && n > 0) {
    bool *found = arena_alloc(a, sizeof(bool) * (size_t)n);
    if (tb_fetch(p->p_tx, tb_scan_cmd(p->p_scan), p->p_t, p->p_cols, p->p_ncols, false, pks, n,
                 out, found, a, e) != CZ_OK)
      return CZ_ERR;
    int w = 0;
    for (int r = 0; r < n; r++) {
      if (!found[r] || (p->p_npred && !tbl_preds_pass(p->p_preds, p->p_npred, out, r)))
        continue;
      if (w != r) {
        tb_scan_rows_move(out, p->p_ncols, r, w);
        at[w] = at[r];
      }
      w++;
    }
    n = w;
    if (n == 0 && p->p_next < p->p_nd)
      goto again;
  }
  out->b_n = n;
  return CZ_OK;
}

void tbl_probe_close(tbl_probe_t *p)
{
  if (p)
    tbl_scan_close(p->p_scan);
}
