/* bt_divide.c — cutting a key range into pieces of about equal size for
 * parallel scans, from the separators of the tree's upper levels: no leaf
 * is read.
 *
 * Design notes:
 * - The separators of one level cut the tree into subtrees of that level,
 *   which hold about the same number of entries (the fanouts below them
 *   vary little). The walk goes level by level from the root: at each
 *   level it collects every separator strictly inside (lo, hi), together
 *   with those of the levels above (the borders between the pages of this
 *   level), and stops at the first level that gives at least n - 1 cuts,
 *   or at the level above the leaves. The wanted n - 1 are then picked
 *   evenly from that level's list.
 * - The pages of a level that meet the range are the one where lo falls
 *   and one starting at each cut already known; each is reached by its own
 *   descent with latch coupling (readers' rule L1), so no page number is
 *   ever followed after its parent's latch is gone. A page yields only the
 *   separators between its start cut and the next known cut: the list
 *   stays strictly ascending whatever splits and merges happen meanwhile.
 *   A concurrent change can only make the pieces less even, never wrong:
 *   any ascending keys cut a range into disjoint pieces covering it.
 * - Cost: at level L, (cuts so far + 1) descents; a page gives at most
 *   about twice its share of the n - 1 cuts (spread evenly over its
 *   separators in range), so asking for n pieces reads O(n) upper pages
 *   and keeps O(n) keys however wide the pages are.
 */
#include "btree/bt_col_int.h"

/* The page of level `level` on key's path (key NULL: the leftmost path),
 * shared-latched; a tree lower than `level` (a root collapse meanwhile)
 * gives the lowest page reached. */
static buf_t *dv_page_at(bt_tree_t *t, const void *key, size_t len, int level, err_t *e)
{
  bpool_t *bp = t->t_bp;
  buf_t *b = bp_fix(bp, t->t_root, BP_SHARED, 0, e);
  for (int depth = 0; b; depth++) {
    const uint8_t *pg = bp_page(b);
    if (bpg_level(pg) <= level || depth >= BT_MAX_HEIGHT)
      return b;
    int c = 0;
    if (key) {
      bt_target_t tg;
      bt_target_key(&tg, key, len);
      c = bpg_search_inner(pg, &tg, 0);
    }
    buf_t *nb = bp_fix(bp, bpg_child(pg, c), BP_SHARED, 0, e);
    bp_unfix(bp, b);
    b = nb;
  }
  return NULL;
}

typedef struct dv_list_s {
  bt_key_t *dl_v;
  int dl_n, dl_cap;
} dv_list_t;

static void dv_push(dv_list_t *l, arena_t *a, const void *k, size_t len, bool copy)
{
  if (l->dl_n == l->dl_cap) {
    int cap = l->dl_cap ? 2 * l->dl_cap : 64;
    bt_key_t *v = arena_alloc(a, sizeof *v * (size_t)cap);
    if (l->dl_n)
      memcpy(v, l->dl_v, sizeof *v * (size_t)l->dl_n);
    l->dl_v = v;
    l->dl_cap = cap;
  }
  if (copy) {
    void *c = arena_alloc(a, len ? len : 1);
    memcpy(c, k, len);
    k = c;
  }
  l->dl_v[l->dl_n++] = (bt_key_t){k, (uint32_t)len};
}

/* The separators of the level-`level` page starting at `from` that lie
 * strictly between from and to (NULL: open), appended to out: all of
 * them, or `per` spread evenly over them when there are more (the list
 * stays about 2n long however wide the pages are). */
static int dv_page_cuts(bt_tree_t *t, const bt_key_t *from, const bt_key_t *to, int level, int per,
                        dv_list_t *out, arena_t *a, err_t *e)
{
  buf_t *b = dv_page_at(t, from ? from->k_data : NULL, from ? from->k_len : 0, level, e);
  if (!b)
    return CZ_ERR;
  const uint8_t *pg = bp_page(b);
  if (bpg_level(pg) == level && !bpg_is_leaf(pg)) {
    uint8_t key[BT_MAX_KEY];
    int first = bpg_n(pg), end = bpg_n(pg);
    for (int i = 0; i < bpg_n(pg); i++) {
      int kl = bpg_key_copy(pg, i, key);
      if (from && bt_keycmp(key, (size_t)kl, from->k_data, from->k_len) <= 0)
        continue;
      if (first == bpg_n(pg))
        first = i;
      if (to && bt_keycmp(key, (size_t)kl, to->k_data, to->k_len) >= 0) {
        end = i;
        break;
      }
    }
    int c = end > first ? end - first : 0, take = c < per ? c : per;
    for (int j = 0; j < take; j++) {
      /* j-th of take spread over c: strictly increasing as take <= c */
      int i = first + (take == c ? j : (int)(((int64_t)(j + 1) * c) / (take + 1)));
      int kl = bpg_key_copy(pg, i, key);
      dv_push(out, a, key, (size_t)kl, true);
    }
  }
  bp_unfix(t->t_bp, b);
  return CZ_OK;
}

static int dv_divide(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len, int n,
                     arena_t *a, bt_key_t **keys, int *nkeys, err_t *e)
{
  *keys = NULL;
  *nkeys = 0;
  if (n <= 1)
    return CZ_OK;
  if (lo && hi && bt_keycmp(lo, lo_len, hi, hi_len) >= 0)
    return CZ_OK;  /* an empty range is one (empty) piece */
  buf_t *rb = bp_fix(t->t_bp, t->t_root, BP_SHARED, 0, e);
  if (!rb)
    return CZ_ERR;
  int top = bpg_level(bp_page(rb));
  bp_unfix(t->t_bp, rb);
  bt_key_t lok = {lo, (uint32_t)lo_len}, hik = {hi, (uint32_t)hi_len};
  const bt_key_t *lop = lo ? &lok : NULL, *hip = hi ? &hik : NULL;
  dv_list_t cur = {NULL, 0, 0};
  for (int level = top; level >= 1 && cur.dl_n < n - 1; level--) {
    dv_list_t next = {NULL, 0, 0};
    /* each of the cur.dl_n + 1 pages of this level gives at most twice
     * its share of the n - 1 cuts wanted */
    int per = 2 * ((n - 1 + cur.dl_n) / (cur.dl_n + 1)) + 1;
    for (int j = 0; j <= cur.dl_n; j++) {
      const bt_key_t *from = j == 0 ? lop : &cur.dl_v[j - 1];
      const bt_key_t *to = j < cur.dl_n ? &cur.dl_v[j] : hip;
      if (j > 0)
        dv_push(&next, a, from->k_data, from->k_len, false);
      if (dv_page_cuts(t, from, to, level, per, &next, a, e) != CZ_OK)
        return CZ_ERR;
    }
    cur = next;
  }
  int m = cur.dl_n;
  if (m <= n - 1) {
    *keys = cur.dl_v;
    *nkeys = m;
    return CZ_OK;
  }
  /* n - 1 of the m cuts, evenly: cut i is number (i (m + 1) / n) - 1,
   * strictly increasing since (m + 1) / n >= 1 */
  bt_key_t *pick = arena_alloc(a, sizeof *pick * (size_t)(n - 1));
  for (int i = 1; i < n; i++)
    pick[i - 1] = cur.dl_v[(int)(((int64_t)i * (m + 1)) / n) - 1];
  *keys = pick;
  *nkeys = n - 1;
  return CZ_OK;
}

/* A non-unique column tree's separators are prefixes of (key, value)
 * pairs (bt_col_pair.c): each cut becomes the key part it holds (a pair
 * cut inside its key gives that key prefix), duplicates and cuts outside
 * (lo, hi) dropped. */
static int dv_divide_pairs(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len, int n,
                           arena_t *a, bt_key_t **keys, int *nkeys, err_t *e)
{
  uint8_t lob[BT_MAX_KEY + 2], hib[BT_MAX_KEY + 2];
  uint32_t lbl = lo ? btc_pair_bound(lo, lo_len, lob) : 0, hbl = hi ? btc_pair_bound(hi, hi_len, hib) : 0;
  bt_key_t *pk;
  int np;
  if (dv_divide(t, lo ? lob : NULL, lbl, hi ? hib : NULL, hbl, n, a, &pk, &np, e) != CZ_OK)
    return CZ_ERR;
  int m = 0;
  for (int i = 0; i < np; i++) {
    const uint8_t *c = pk[i].k_data;
    uint8_t *k = arena_alloc(a, pk[i].k_len + 1);
    uint32_t kl = 0;
    for (uint32_t j = 0; j < pk[i].k_len; j++) {
      if (c[j] != 0) {
        k[kl++] = c[j];
        continue;
      }
      if (j + 1 >= pk[i].k_len || c[j + 1] != 0xFF)
        break; /* the terminator, or a cut inside an escape */
      k[kl++] = 0;
      j++;
    }
    if ((lo && bt_keycmp(k, kl, lo, lo_len) <= 0) || (hi && bt_keycmp(k, kl, hi, hi_len) >= 0) ||
        (m > 0 && bt_keycmp(k, kl, pk[m - 1].k_data, pk[m - 1].k_len) <= 0))
      continue;
    pk[m].k_data = k;
    pk[m].k_len = kl;
    m++;
  }
  *keys = m ? pk : NULL;
  *nkeys = m;
  return CZ_OK;
}

int bt_divide(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len, int n,
              arena_t *a, bt_key_t **keys, int *nkeys, err_t *e)
{
  if (t->t_column && !t->t_unique)
    return dv_divide_pairs(t, lo, lo_len, hi, hi_len, n, a, keys, nkeys, e);
  return dv_divide(t, lo, lo_len, hi, hi_len, n, a, keys, nkeys, e);
}
