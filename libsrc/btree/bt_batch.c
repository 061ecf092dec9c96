/* bt_batch.c — vectored lookup of a sorted batch of keys.
 *
 * Design notes: the batch keeps its whole path latched (shared, rule L1
 * with the parents kept): for each level the page, the child number last
 * followed (the next search there starts from it, keys being sorted) and
 * the page's upper bound, a reference to a separator in a page above that
 * is itself latched. A key below the leaf's bound stays in that leaf;
 * otherwise the batch lets go of the pages whose bound the key passed and
 * descends again from the lowest ancestor that covers it. No inner page is
 * fixed per key. Every BT_BATCH_RELEASE keys the path is let go, so that a
 * pessimistic writer waiting for the root gets its turn.
 *
 * Unique trees go further: keys are taken in groups of BT_BATCH_GROUP; the
 * group first finds (and latches, left to right, rule L4) the leaf of
 * every key, then searches all of them at once with interleaved probes
 * (bpg_search_leaf_many), so the cache misses of the leaf searches overlap
 * instead of adding up. That is where most of a lookup's time goes once
 * no descent is paid per key. Non-unique trees, whose first entry of a key
 * may open the next leaf, take the keys one at a time on the same path.
 */
#include "btree/bt_col_int.h"

#define BT_BATCH_RELEASE 1000
#define BT_BATCH_GROUP 16
#define BT_BATCH_PREFETCH 1024 /* bytes of each leaf asked for before its search */

typedef struct bt_bpath_s {
  buf_t *bb_buf[BT_MAX_HEIGHT];
  int bb_from[BT_MAX_HEIGHT];             /* child number (inner) or slot (leaf) to search from */
  const uint8_t *bb_hi_pg[BT_MAX_HEIGHT]; /* upper bound: separator bb_hi_i of this page; NULL = +inf */
  int bb_hi_i[BT_MAX_HEIGHT];
  int bb_n;                               /* latched levels; bb_n - 1 is the leaf when complete */
} bt_bpath_t;

static void bpath_release(bt_tree_t *t, bt_bpath_t *p, int keep)
{
  while (p->bb_n > keep) {
    p->bb_n--;
    bp_unfix(t->t_bp, p->bb_buf[p->bb_n]);
  }
}

/* Starts an empty path at the root, shared-latched and unbounded. */
static int bpath_start(bt_tree_t *t, bt_bpath_t *p, err_t *e)
{
  buf_t *b = bp_fix(t->t_bp, t->t_root, BP_SHARED, 0, e);
  if (!b)
    return CZ_ERR;
  p->bb_buf[0] = b;
  p->bb_from[0] = 0;
  p->bb_hi_pg[0] = NULL;
  p->bb_n = 1;
  return CZ_OK;
}

/* Descends from the deepest latched page to the leaf for tg. */
static int bpath_descend(bt_tree_t *t, bt_bpath_t *p, const bt_target_t *tg, err_t *e)
{
  if (p->bb_n == 0 && bpath_start(t, p, e) != CZ_OK)
    return CZ_ERR;
  for (;;) {
    int d = p->bb_n - 1;
    const uint8_t *pg = bp_page(p->bb_buf[d]);
    if (bpg_is_leaf(pg))
      return CZ_OK;
    if (d + 1 >= BT_MAX_HEIGHT)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "btree %u: deeper than %d", (unsigned)t->t_root, BT_MAX_HEIGHT);
    int c = bpg_search_inner(pg, tg, p->bb_from[d]);
    p->bb_from[d] = c;
    buf_t *b = bp_fix(t->t_bp, bpg_child(pg, c), BP_SHARED, 0, e);
    if (!b)
      return CZ_ERR;
    if (bpg_level(bp_page(b)) != bpg_level(pg) - 1) {
      bp_unfix(t->t_bp, b);
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "btree %u: page %u has level %d under level %d",
                     (unsigned)t->t_root, (unsigned)bpg_child(pg, c), bpg_level(bp_page(b)), bpg_level(pg));
    }
    p->bb_buf[d + 1] = b;
    p->bb_from[d + 1] = 0;
    if (c < bpg_n(pg)) {
      p->bb_hi_pg[d + 1] = pg;
      p->bb_hi_i[d + 1] = c;
    } else {
      p->bb_hi_pg[d + 1] = p->bb_hi_pg[d];
      p->bb_hi_i[d + 1] = p->bb_hi_i[d];
    }
    p->bb_n = d + 2;
  }
}

static inline bool below_hi(const bt_bpath_t *p, int d, const bt_target_t *tg)
{
  return p->bb_hi_pg[d] == NULL || bpg_cmp_sep(p->bb_hi_pg[d], p->bb_hi_i[d], tg) < 0;
}

/* Non-unique tree, key not found before the leaf's end: its first entry
 * may open the right sibling (latched left to right, rule L4). */
static int peek_right(bt_tree_t *t, const uint8_t *pg, const bt_target_t *tg, bt_lookup_cb_t cb,
                      void *ctx, int i, err_t *e)
{
  bool eq;
  buf_t *r = bp_fix(t->t_bp, bpg_chdr(pg)->bh_right, BP_SHARED, 0, e);
  if (!r)
    return CZ_ERR;
  const uint8_t *rpg = bp_page(r);
  int pos = bpg_search_leaf(rpg, tg, false, 0, false, &eq);
  if (eq && pos == 0) {
    int vl;
    const uint8_t *v = bpg_val(rpg, 0, &vl);
    cb(ctx, i, true, v, (size_t)vl);
  } else {
    cb(ctx, i, false, NULL, 0);
  }
  bp_unfix(t->t_bp, r);
  return CZ_OK;
}

static int lookup_one_by_one(bt_tree_t *t, const bt_key_t *keys, int n,
                             bt_lookup_cb_t cb, void *ctx, err_t *e)
{
  bt_bpath_t p;
  bt_target_t tg;
  bool eq;
  p.bb_n = 0;
  for (int i = 0; i < n; i++) {
    const bt_key_t *k = &keys[i];
    if (k->k_len > BT_MAX_KEY) {
      cb(ctx, i, false, NULL, 0);
      continue;
    }
    bt_target_key(&tg, k->k_data, k->k_len);
    if (i % BT_BATCH_RELEASE == 0)
      bpath_release(t, &p, 0);
    /* Climb to the lowest page whose range still covers the key. */
    while (p.bb_n > 1 && !below_hi(&p, p.bb_n - 1, &tg))
      bpath_release(t, &p, p.bb_n - 1);
    if (bpath_descend(t, &p, &tg, e) != CZ_OK) {
      bpath_release(t, &p, 0);
      return CZ_ERR;
    }
    int d = p.bb_n - 1;
    const uint8_t *pg = bp_page(p.bb_buf[d]);
    int pos = bpg_search_leaf(pg, &tg, t->t_unique, p.bb_from[d], false, &eq);
    p.bb_from[d] = pos;
    if (eq) {
      int vl;
      const uint8_t *v = bpg_val(pg, pos, &vl);
      cb(ctx, i, true, v, (size_t)vl);
    } else if (!t->t_unique && pos == bpg_n(pg) && bpg_chdr(pg)->bh_right != PG_NONE) {
      if (peek_right(t, pg, &tg, cb, ctx, i, e) != CZ_OK) {
        bpath_release(t, &p, 0);
        return CZ_ERR;
      }
    } else {
      cb(ctx, i, false, NULL, 0);
    }
  }
  bpath_release(t, &p, 0);
  return CZ_OK;
}

/* The group's leaves: latched left to right, the last one carried over to
 * the next group. */
typedef struct bt_group_s {
  buf_t *gr_leaf[BT_BATCH_GROUP + 1];
  int gr_n;
  const uint8_t *gr_hi_pg; /* upper bound of the last leaf (separator in a latched page), NULL = +inf */
  int gr_hi_i;
} bt_group_t;

static void group_release(bt_tree_t *t, bt_group_t *g, bool keep_last)
{
  int keep = keep_last && g->gr_n > 0 ? 1 : 0;
  for (int i = 0; i < g->gr_n - keep; i++)
    bp_unfix(t->t_bp, g->gr_leaf[i]);
  if (keep)
    g->gr_leaf[0] = g->gr_leaf[g->gr_n - 1];
  g->gr_n = keep;
}

/* Latches the leaf for tg, climbing the inner path as far as needed. */
static int group_find_leaf(bt_tree_t *t, bt_bpath_t *p, bt_group_t *g, const bt_target_t *tg, err_t *e)
{
  if (g->gr_n > 0 && (g->gr_hi_pg == NULL || bpg_cmp_sep(g->gr_hi_pg, g->gr_hi_i, tg) < 0))
    return CZ_OK;
  while (p->bb_n > 1 && !below_hi(p, p->bb_n - 1, tg))
    bpath_release(t, p, p->bb_n - 1);
  if (p->bb_n == 0) {
    if (bpath_start(t, p, e) != CZ_OK)
      return CZ_ERR;
    if (bpg_is_leaf(bp_page(p->bb_buf[0]))) {
      /* A one-page tree: the root is the only leaf, unbounded. */
      g->gr_leaf[g->gr_n++] = p->bb_buf[0];
      g->gr_hi_pg = NULL;
      p->bb_n = 0;
      return CZ_OK;
    }
  }
  for (;;) {
    int d = p->bb_n - 1;
    const uint8_t *pg = bp_page(p->bb_buf[d]);
    int c = bpg_search_inner(pg, tg, p->bb_from[d]);
    p->bb_from[d] = c;
    const uint8_t *hpg = c < bpg_n(pg) ? pg : p->bb_hi_pg[d];
    int hi = c < bpg_n(pg) ? c : p->bb_hi_i[d];
    pg_no_t child = bpg_child(pg, c);
    buf_t *b = bp_fix(t->t_bp, child, BP_SHARED, 0, e);
    if (!b)
      return CZ_ERR;
    if (bpg_level(pg) == 1) {
      g->gr_leaf[g->gr_n++] = b;
      g->gr_hi_pg = hpg;
      g->gr_hi_i = hi;
      return CZ_OK;
    }
    if (bpg_level(bp_page(b)) != bpg_level(pg) - 1 || d + 1 >= BT_MAX_HEIGHT) {
      bp_unfix(t->t_bp, b);
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "btree %u: page %u has level %d under level %d",
                     (unsigned)t->t_root, (unsigned)child, bpg_level(bp_page(b)), bpg_level(pg));
    }
    p->bb_buf[d + 1] = b;
    p->bb_from[d + 1] = 0;
    p->bb_hi_pg[d + 1] = hpg;
    p->bb_hi_i[d + 1] = hi;
    p->bb_n = d + 2;
  }
}

/* The group's leaves are leaves of this tree. Their header and slot array
 * (the first BT_BATCH_PREFETCH bytes cover them for short keys) are asked
 * for in one burst first, after all the fixes of the group: the fixes'
 * locked instructions would otherwise wait for each prefetch in turn. */
static int group_check(bt_tree_t *t, const bt_group_t *g, err_t *e)
{
  for (int i = 0; i < g->gr_n; i++) {
    const uint8_t *pg = bp_page(g->gr_leaf[i]);
    for (int off = 0; off < BT_BATCH_PREFETCH; off += 64)
      __builtin_prefetch(pg + off);
  }
  for (int i = 0; i < g->gr_n; i++) {
    const uint8_t *pg = bp_page(g->gr_leaf[i]);
    if (CZ_UNLIKELY(!bpg_is_leaf(pg) || ((const pg_head_t *)pg)->ph_owner != t->t_root))
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "btree %u: page %u reached as a leaf has level %d, owner %llu",
                     (unsigned)t->t_root, (unsigned)bp_page_no(g->gr_leaf[i]), bpg_level(pg),
                     (unsigned long long)((const pg_head_t *)pg)->ph_owner);
  }
  return CZ_OK;
}

static int lookup_grouped(bt_tree_t *t, const bt_key_t *keys, int n,
                          bt_lookup_cb_t cb, void *ctx, err_t *e)
{
  bt_bpath_t p;
  bt_group_t g;
  const uint8_t *kpg[BT_BATCH_GROUP];
  bt_target_t tgs[BT_BATCH_GROUP];
  int pos[BT_BATCH_GROUP];
  bool eq[BT_BATCH_GROUP];
  int since = 0, rc = CZ_OK;
  p.bb_n = 0;
  g.gr_n = 0;
  for (int i = 0; i < n && rc == CZ_OK;) {
    int gn = CZ_MIN(BT_BATCH_GROUP, n - i);
    for (int j = 0; j < gn; j++) {
      const bt_key_t *k = &keys[i + j];
      kpg[j] = NULL;
      if (k->k_len > BT_MAX_KEY)
        continue;
      bt_target_key(&tgs[j], k->k_data, k->k_len);
      if ((rc = group_find_leaf(t, &p, &g, &tgs[j], e)) != CZ_OK)
        break;
      kpg[j] = bp_page(g.gr_leaf[g.gr_n - 1]);
    }
    if (rc != CZ_OK || (rc = group_check(t, &g, e)) != CZ_OK)
      break;
    bpg_search_leaf_many(kpg, tgs, gn, true, pos, eq);
    for (int j = 0; j < gn; j++) {
      if (eq[j]) {
        int vl;
        const uint8_t *v = bpg_val(kpg[j], pos[j], &vl);
        cb(ctx, i + j, true, v, (size_t)vl);
      } else {
        cb(ctx, i + j, false, NULL, 0);
      }
    }
    i += gn;
    since += gn;
    if (since >= BT_BATCH_RELEASE) {
      group_release(t, &g, false);
      bpath_release(t, &p, 0);
      since = 0;
    } else {
      group_release(t, &g, true);
    }
  }
  group_release(t, &g, false);
  bpath_release(t, &p, 0);
  return rc;
}

int bt_lookup_batch(bt_tree_t *t, const bt_key_t *keys, int n,
                    bt_lookup_cb_t cb, void *ctx, err_t *e)
{
  if (t->t_column) /* README "Column leaves" */
    return btc_lookup_batch(t, keys, n, cb, ctx, e);
  /* The walk relies on the order: check it before any callback. */
  for (int i = 1; i < n; i++)
    if (bt_keycmp(keys[i - 1].k_data, keys[i - 1].k_len, keys[i].k_data, keys[i].k_len) > 0)
      return err_set(e, SQLSTATE_INVALID_PARAMETER, "bt_lookup_batch: key %d sorts before key %d", i, i - 1);
  if (t->t_unique)
    return lookup_grouped(t, keys, n, cb, ctx, e);
  return lookup_one_by_one(t, keys, n, cb, ctx, e);
}
