/* bt_sample.c — what the optimizer learns from a tree without reading it:
 * the estimated number of entries in a key range, from where the range's
 * two ends fall on their descents, and entries picked by random descents
 * into the range.
 *
 * Design notes:
 * - Both walks take shared latches with coupling, as bt_descend does, and
 *   touch one page per level: an estimate costs two descents, a sample of
 *   n entries n descents. Nothing is written, so a concurrent split only
 *   makes the figures a little off, never wrong in kind.
 * - Position of a key: at each inner level the child followed is c of
 *   n + 1, at the leaf the slot p of m; the key sits at the fraction
 *   sum(c_l / prod(n_k + 1)) + p / m / prod(n_k + 1) of the tree. The
 *   entries between two keys are the difference of their fractions times
 *   the tree's size, itself estimated from the fanouts on random paths. When
 *   both ends reach the same leaf the count is exact for that leaf.
 * - A random descent picks, at each level, a child uniformly among those
 *   that can hold keys of the range; once it leaves the path of an end,
 *   that end no longer constrains it. Entries in sparse pages are a little
 *   more likely to be picked; the optimizer needs proportions, not an
 *   unbiased sample.
 */
#include "btree/bt_col_int.h"

/* One end of a range on a page: the child (inner) or slot (leaf) where
 * key would go; key NULL is the page's start (lo) or end (hi). */
static int end_on_page(const bt_tree_t *t, const uint8_t *pg, const void *key, size_t len, bool hi)
{
  if (!key)
    return hi ? bpg_n(pg) : 0;
  bt_target_t tg;
  bool eq;
  bt_target_key(&tg, key, len);
  if (!bpg_is_leaf(pg))
    return bpg_search_inner(pg, &tg, 0);
  return bpg_search_leaf(pg, &tg, t->t_unique, 0, false, &eq);
}

typedef struct bt_pos_s {
  double ps_frac;       /* where the key falls, 0..1 */
  pg_no_t ps_leaf;
  int ps_slot;
} bt_pos_t;

static int key_position(bt_tree_t *t, const void *key, size_t len, bool hi, bt_pos_t *out,
                        err_t *e)
{
  bpool_t *bp = t->t_bp;
  buf_t *b = bp_fix(bp, t->t_root, BP_SHARED, 0, e);
  if (!b)
    return CZ_ERR;
  double scale = 1.0, frac = 0.0;
  for (int depth = 0;; depth++) {
    const uint8_t *pg = bp_page(b);
    int at = end_on_page(t, pg, key, len, hi);
    if (bpg_is_leaf(pg) || depth >= BT_MAX_HEIGHT) {
      int m = bpg_n(pg);
      frac += m > 0 ? scale * at / m : 0.0;
      out->ps_frac = frac;
      out->ps_leaf = bp_page_no(b);
      out->ps_slot = at;
      bp_unfix(bp, b);
      return CZ_OK;
    }
    int fan = bpg_n(pg) + 1;
    frac += scale * at / fan;
    scale /= fan;
    buf_t *nb = bp_fix(bp, bpg_child(pg, at), BP_SHARED, 0, e);
    bp_unfix(bp, b);
    if (!nb)
      return CZ_ERR;
    b = nb;
  }
}

static uint64_t next_rand(uint64_t *s);

/* The tree's size as one random path sees it: the product of the fanouts
 * met, times the entries of the leaf reached. The two ends of a range sit
 * on edge pages, often half full after splits, so the size comes from
 * BT_SIZE_DESCENTS random paths instead. */
#define BT_SIZE_DESCENTS 16
static int random_size(bt_tree_t *t, uint64_t *seed, double *out, err_t *e)
{
  bpool_t *bp = t->t_bp;
  buf_t *b = bp_fix(bp, t->t_root, BP_SHARED, 0, e);
  if (!b)
    return CZ_ERR;
  double size = 1;
  for (int depth = 0;; depth++) {
    const uint8_t *pg = bp_page(b);
    if (bpg_is_leaf(pg) || depth >= BT_MAX_HEIGHT) {
      *out = size * bpg_n(pg);
      bp_unfix(bp, b);
      return CZ_OK;
    }
    int fan = bpg_n(pg) + 1;
    size *= fan;
    int c = (int)(next_rand(seed) % (uint64_t)fan);
    buf_t *nb = bp_fix(bp, bpg_child(pg, c), BP_SHARED, 0, e);
    bp_unfix(bp, b);
    if (!nb)
      return CZ_ERR;
    b = nb;
  }
}

int bt_estimate(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len,
                double *out, err_t *e)
{
  if (t->t_column) /* rows, not segment entries (bt_col_stats.c) */
    return btc_estimate(t, lo, lo_len, hi, hi_len, out, e);
  bt_pos_t a, z;
  *out = 0;
  if (key_position(t, lo, lo_len, false, &a, e) != CZ_OK ||
      key_position(t, hi, hi_len, true, &z, e) != CZ_OK)
    return CZ_ERR;
  if (a.ps_leaf == z.ps_leaf) {
    *out = z.ps_slot > a.ps_slot ? z.ps_slot - a.ps_slot : 0;
    return CZ_OK;
  }
  double size = 0;
  uint64_t seed = (uint64_t)t->t_root * 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < BT_SIZE_DESCENTS; i++) {
    double one;
    if (random_size(t, &seed, &one, e) != CZ_OK)
      return CZ_ERR;
    size += one;
  }
  double n = (z.ps_frac - a.ps_frac) * size / BT_SIZE_DESCENTS;
  *out = n > 0 ? n : 0;
  return CZ_OK;
}

/* xorshift: cheap, and the same seed gives the same sample (tests). */
static uint64_t next_rand(uint64_t *s)
{
  uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = x;
  return x;
}

static int random_descent(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi,
                          size_t hi_len, uint64_t *seed, bt_sample_cb_t cb, void *ctx, err_t *e)
{
  bpool_t *bp = t->t_bp;
  buf_t *b = bp_fix(bp, t->t_root, BP_SHARED, 0, e);
  if (!b)
    return CZ_ERR;
  for (int depth = 0;; depth++) {
    const uint8_t *pg = bp_page(b);
    int from = end_on_page(t, pg, lo, lo_len, false);
    int to = end_on_page(t, pg, hi, hi_len, true);
    if (bpg_is_leaf(pg) || depth >= BT_MAX_HEIGHT) {
      if (to > from) {
        int i = from + (int)(next_rand(seed) % (uint64_t)(to - from));
        uint8_t key[BT_MAX_KEY];
        int kl = bpg_key_copy(pg, i, key), vl;
        const uint8_t *v = bpg_val(pg, i, &vl);
        cb(ctx, key, (size_t)kl, v, vl == BT_NOVAL ? 0 : (size_t)vl);
      }
      bp_unfix(bp, b);
      return CZ_OK;
    }
    if (to < from)
      to = from;
    int c = from + (int)(next_rand(seed) % (uint64_t)(to - from + 1));
    if (c != from)
      lo = NULL;
    if (c != to)
      hi = NULL;
    buf_t *nb = bp_fix(bp, bpg_child(pg, c), BP_SHARED, 0, e);
    bp_unfix(bp, b);
    if (!nb)
      return CZ_ERR;
    b = nb;
  }
}

int bt_sample(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len, int n,
              uint64_t seed, bt_sample_cb_t cb, void *ctx, err_t *e)
{
  if (t->t_column) /* rows, not segment entries (bt_col_stats.c) */
    return btc_sample(t, lo, lo_len, hi, hi_len, n, seed, cb, ctx, e);
  for (int i = 0; i < n; i++)
    if (random_descent(t, lo, lo_len, hi, hi_len, &seed, cb, ctx, e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}
