/* tb_split — scans cut into key ranges for parallel workers: the split of
 * an index range into about n contiguous, disjoint ranges, and the morsel
 * dispenser from which concurrent scans take those ranges one at a time.
 *
 * Design notes (table/README.md, "Parallel scans"):
 * - The cuts come from the index tree's upper levels (bt_divide), so a
 *   split reads no leaf and costs about n page visits. They are byte
 *   strings of the index's key order (separators, often shorter than a
 *   whole key), never datums: piece i is the rows of the scan's range
 *   whose key k has cut[i-1] <= k < cut[i] (memcmp order, the shorter
 *   first on a tie), the first piece open below and the last open above.
 *   Whatever the cuts, such pieces are disjoint and together hold exactly
 *   the range's rows.
 * - The range's bounds are prefix bounds (tbl_bound_t); the tree is asked
 *   for cuts strictly inside the bytes that can hold qualifying keys: an
 *   inclusive high bound (or an exclusive low one) covers every key
 *   starting with its bytes, so the prefix's successor is the byte limit
 *   there. A prefix range over many pages (a = 5 on index (a, b)) is cut
 *   like any other.
 * - Aligned splits (align > 0, for a streaming group-by per thread) cut
 *   each cut back to the bytes of its first align key columns
 *   (tbl_key_skip: the encoding is self-delimiting), so the keys that
 *   agree on those columns share a piece: fewer, less even pieces when
 *   a group spans many pages, never a group in two.
 * - The dispenser is a counter over the pieces, taken with one atomic
 *   increment: no lock, pieces go out in key order, each exactly once, a
 *   fast worker simply takes more. It fixes the transaction command every
 *   scan on it reads as of (taken once, on the session's thread), so the
 *   workers together read what one scan would.
 */
#include <string.h>

#include "table/tb_int.h"

/* The smallest byte string above every string that starts with p[0..len):
 * p with its trailing 0xFF bytes dropped and the last byte raised; none
 * (*out NULL) when p is all 0xFF. */
static void tb_prefix_successor(const uint8_t *p, size_t len, arena_t *a, uint8_t **out,
                                size_t *out_len)
{
  while (len > 0 && p[len - 1] == 0xFF)
    len--;
  *out = NULL;
  *out_len = 0;
  if (len == 0)
    return;
  uint8_t *s = arena_alloc(a, len);
  memcpy(s, p, len);
  s[len - 1]++;
  *out = s;
  *out_len = len;
}

/* Byte order, the shorter first on a tie (the trees' order). */
static int tb_cut_cmp(const uint8_t *x, size_t xl, const uint8_t *y, size_t yl)
{
  int c = memcmp(x, y, CZ_MIN(xl, yl));
  return c ? c : (xl > yl) - (xl < yl);
}

/* Moves every cut down to the start of its group of keys that agree on
 * the index's first align key columns: a cut holding those columns whole
 * is cut back to their bytes (keys starting with them all sort at or
 * above it), a shorter one already falls between groups (a key's side of
 * it is decided within those columns' bytes). Cuts are only lowered, so
 * they stay ascending; the ones that meet (or fall to the range's low
 * end) are dropped, merging their ranges. */
static void tb_split_align(tbl_split_t *sp, int align, const uint8_t *blo, size_t blo_len)
{
  const cat_index_t *ix = sp->sp_t->ct_indexes[sp->sp_idx];
  if (ix->ci_nkeys == 0) {
    sp->sp_n = 1; /* no key columns to align to (the row id): one range */
    return;
  }
  align = CZ_MIN(align, ix->ci_nkeys);
  int kept = 0;
  for (int i = 0; i < sp->sp_n - 1; i++) {
    bt_key_t c = sp->sp_cuts[i];
    size_t len = tbl_key_skip(ix->ci_key_types, align, c.k_data, c.k_len);
    if (len < c.k_len)
      c.k_len = (uint32_t)len;
    if (blo && tb_cut_cmp(c.k_data, c.k_len, blo, blo_len) <= 0)
      continue;
    if (kept > 0 && tb_cut_cmp(c.k_data, c.k_len, sp->sp_cuts[kept - 1].k_data,
                               sp->sp_cuts[kept - 1].k_len) <= 0)
      continue;
    sp->sp_cuts[kept++] = c;
  }
  sp->sp_n = kept + 1;
}

int tbl_scan_split(const cat_table_t *t, int idx, const tbl_bound_t *low, const tbl_bound_t *high,
                   int n, int align, arena_t *a, tbl_split_t **out, err_t *e)
{
  *out = NULL;
  if (idx < 0 || idx >= t->ct_nindexes)
    return err_set(e, SQLSTATE_INTERNAL, "table %s has no index %d", t->ct_name, idx);
  if (n < 1 || n > TBL_MAX_SPLIT)
    return err_set(e, SQLSTATE_INTERNAL, "a scan split into %d ranges (1 to %d)", n, TBL_MAX_SPLIT);
  tbl_split_t *sp = arena_zalloc(a, sizeof *sp);
  sp->sp_t = t;
  sp->sp_idx = idx;
  const cat_index_t *ix = t->ct_indexes[idx];
  if (tb_bound_encode(ix, low, a, &sp->sp_low, &sp->sp_low_len, e) != CZ_OK ||
      tb_bound_encode(ix, high, a, &sp->sp_high, &sp->sp_high_len, e) != CZ_OK)
    return CZ_ERR;
  sp->sp_low_incl = !low || low->tb_incl || low->tb_n == 0;
  sp->sp_high_incl = !high || high->tb_incl;
  /* the bytes qualifying keys can have: [blo, bhi) */
  uint8_t *blo = sp->sp_low, *bhi = sp->sp_high;
  size_t blo_len = sp->sp_low_len, bhi_len = sp->sp_high_len;
  if (blo && !sp->sp_low_incl) {
    tb_prefix_successor(sp->sp_low, sp->sp_low_len, a, &blo, &blo_len);
    if (!blo) {
      sp->sp_n = 1;  /* nothing sorts after every key with that prefix */
      *out = sp;
      return CZ_OK;
    }
  }
  if (bhi && sp->sp_high_incl)
    tb_prefix_successor(sp->sp_high, sp->sp_high_len, a, &bhi, &bhi_len);
  int ncuts;
  if (bt_divide(ix->ci_tree, blo, blo_len, bhi, bhi_len, n, a, &sp->sp_cuts, &ncuts, e) != CZ_OK)
    return CZ_ERR;
  sp->sp_n = ncuts + 1;
  if (align > 0)
    tb_split_align(sp, align, blo, blo_len);
  *out = sp;
  return CZ_OK;
}

int tbl_split_count(const tbl_split_t *sp)
{
  return sp->sp_n;
}

int tbl_morsels_new(txn_t *tx, const tbl_split_t *sp, arena_t *a, tbl_morsels_t **out, err_t *e)
{
  (void)e;
  tbl_morsels_t *m = arena_zalloc(a, sizeof *m);
  m->m_split = sp;
  m->m_tx = tx;
  /* as tbl_scan_open: what tx writes from now on stays out of the scans */
  m->m_cmd = tx ? txn_command_next(tx) : 0;
  txn_note_read(tx, sp->sp_t->ct_indexes[sp->sp_idx]->ci_dtree);
  if (sp->sp_idx > 0)
    txn_note_read(tx, sp->sp_t->ct_indexes[0]->ci_dtree);
  atomic_init(&m->m_next, 0);
  *out = m;
  return CZ_OK;
}

int tb_morsel_take(tbl_morsels_t *m, int *piece, const uint8_t **from, size_t *from_len,
                   const bt_key_t **end)
{
  const tbl_split_t *sp = m->m_split;
  /* relaxed: the split is immutable and published before any scan opens */
  int i = atomic_fetch_add_explicit(&m->m_next, 1, memory_order_relaxed);
  if (i >= sp->sp_n)
    return 1;
  *piece = i;
  if (i == 0) {
    *from = sp->sp_low;
    *from_len = sp->sp_low_len;
  } else {
    *from = sp->sp_cuts[i - 1].k_data;
    *from_len = sp->sp_cuts[i - 1].k_len;
  }
  *end = i < sp->sp_n - 1 ? &sp->sp_cuts[i] : NULL;
  return CZ_OK;
}

int tbl_morsels_taken(const tbl_morsels_t *m)
{
  int i = atomic_load(&((tbl_morsels_t *)m)->m_next);
  return i < m->m_split->sp_n ? i : m->m_split->sp_n;
}
