/* bt_search.c — descent from the root to a leaf with latch coupling, and
 * the single-key lookup.
 *
 * Design notes: a reader latches the child shared, then lets go of the
 * parent (README.md rule L1); an optimistic writer does the same but takes
 * the leaf exclusively (rule L2). The root page number is fixed, but the
 * root may grow from a leaf into an inner page between our look at it and
 * our exclusive latch: the descent checks the level after latching and
 * starts over when it changed.
 */
#include "btree/bt_col_int.h"

void bt_target_key(bt_target_t *t, const void *key, size_t klen)
{
  t->t_key = key;
  t->t_klen = (uint32_t)klen;
  t->t_val = NULL;
  t->t_vlen = 0;
  t->t_has_val = false;
  t->t_inf = 0;
}

void bt_target_entry(bt_target_t *t, const bt_tree_t *tree, const void *key, size_t klen,
                     const void *val, size_t vlen)
{
  bt_target_key(t, key, klen);
  if (!tree->t_unique) {
    t->t_val = val;
    t->t_vlen = (uint32_t)vlen;
    t->t_has_val = true;
  }
}

int bt_check_limits(size_t klen, size_t vlen, err_t *e)
{
  if (klen > BT_MAX_KEY)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "btree: key of %zu bytes is longer than %d", klen, BT_MAX_KEY);
  if (klen + vlen > BT_MAX_ROW)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "btree: row of %zu bytes is longer than %d",
                   klen + vlen, BT_MAX_ROW);
  return CZ_OK;
}

/* A page reached by the descent must be a page of this tree at the level
 * the parent promised; anything else is a corrupt tree, not a crash. */
static int check_reached(bt_tree_t *t, buf_t *b, int level, err_t *e)
{
  const uint8_t *pg = bp_page(b);
  const pg_head_t *ph = (const pg_head_t *)pg;
  if (CZ_LIKELY(ph->ph_owner == t->t_root && (level < 0 || bpg_level(pg) == level) &&
                (ph->ph_type == PG_T_BTREE_LEAF || ph->ph_type == PG_T_BTREE_INNER)))
    return CZ_OK;
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "btree %u: page %u reached at level %d is not of the tree "
                 "(type %u, owner %llu, level %d)", (unsigned)t->t_root, (unsigned)bp_page_no(b), level,
                 (unsigned)ph->ph_type, (unsigned long long)ph->ph_owner, bpg_level(pg));
}

bool bt_below_bound(const bt_bound_t *b, const bt_target_t *t)
{
  if (b->bd_inf)
    return true;
  if (t->t_inf)
    return t->t_inf < 0;
  int c = bt_keycmp(t->t_key, t->t_klen, b->bd_buf, b->bd_klen);
  if (c)
    return c < 0;
  if (b->bd_vlen == BT_NOVAL || !t->t_has_val)
    return b->bd_vlen != BT_NOVAL && !t->t_has_val;
  return bt_keycmp(t->t_val, t->t_vlen, b->bd_buf + b->bd_klen, b->bd_vlen) < 0;
}

void bt_bound_from_sep(bt_bound_t *hi, const uint8_t *pg, int i)
{
  int vl;
  hi->bd_inf = false;
  hi->bd_klen = (uint32_t)bpg_key_copy(pg, i, hi->bd_buf);
  const uint8_t *v = bpg_val(pg, i, &vl);
  hi->bd_vlen = (uint32_t)vl;
  if (vl != BT_NOVAL)
    memcpy(hi->bd_buf + hi->bd_klen, v, (size_t)vl);
}

buf_t *bt_descend(bt_tree_t *t, const bt_target_t *tg, bp_latch_t leaf_mode, int leaf_flags,
                  bt_bound_t *hi, err_t *e)
{
  bpool_t *bp = t->t_bp;
  for (;;) {
    if (hi)
      hi->bd_inf = true;
    buf_t *b = bp_fix(bp, t->t_root, BP_SHARED, 0, e);
    if (!b)
      return NULL;
    if (check_reached(t, b, -1, e) != CZ_OK) {
      bp_unfix(bp, b);
      return NULL;
    }
    if (bpg_is_leaf(bp_page(b))) {
      if (leaf_mode == BP_SHARED)
        return b;
      bp_unfix(bp, b);
      b = bp_fix(bp, t->t_root, BP_EXCL, leaf_flags, e);
      if (!b)
        return NULL;
      if (bpg_is_leaf(bp_page(b)))
        return b;
      bp_unfix(bp, b); /* the root grew meanwhile */
      continue;
    }
    for (;;) {
      const uint8_t *pg = bp_page(b);
      int level = bpg_level(pg);
      int c = bpg_search_inner(pg, tg, 0);
      pg_no_t child = bpg_child(pg, c);
      if (hi && c < bpg_n(pg))
        bt_bound_from_sep(hi, pg, c);
      buf_t *nb = level == 1 ? bp_fix(bp, child, leaf_mode, leaf_flags, e)
                             : bp_fix(bp, child, BP_SHARED, 0, e);
      bp_unfix(bp, b);
      if (!nb)
        return NULL;
      if (check_reached(t, nb, level - 1, e) != CZ_OK) {
        bp_unfix(bp, nb);
        return NULL;
      }
      if (level == 1)
        return nb;
      b = nb;
    }
  }
}

int bt_descend_excl(bt_tree_t *t, const bt_target_t *tg, bt_safe_fn_t safe, void *ctx,
                    bt_path_t *p, err_t *e)
{
  p->pa_top = 0;
  p->pa_n = 0;
  buf_t *b = bp_fix(t->t_bp, t->t_root, BP_EXCL, 0, e);
  if (!b)
    return CZ_ERR;
  p->pa_buf[p->pa_n++] = b;
  while (!bpg_is_leaf(bp_page(b))) {
    const uint8_t *pg = bp_page(b);
    int c = tg ? bpg_search_inner(pg, tg, 0) : bpg_n(pg);
    p->pa_child[p->pa_n - 1] = c;
    if (p->pa_n >= BT_MAX_HEIGHT) {
      bt_path_release(t, p);
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "btree %u: deeper than %d",
                     (unsigned)t->t_root, BT_MAX_HEIGHT);
    }
    b = bp_fix(t->t_bp, bpg_child(pg, c), BP_EXCL, 0, e);
    if (!b) {
      bt_path_release(t, p);
      return CZ_ERR;
    }
    p->pa_buf[p->pa_n++] = b;
    if (safe && safe(bp_page(b), ctx)) {
      /* this page absorbs the change: its ancestors will not be touched */
      for (int i = p->pa_top; i < p->pa_n - 1; i++) {
        bp_unfix(t->t_bp, p->pa_buf[i]);
        p->pa_buf[i] = NULL;
      }
      p->pa_top = p->pa_n - 1;
    }
  }
  return CZ_OK;
}

void bt_path_release(bt_tree_t *t, bt_path_t *p)
{
  for (int i = p->pa_n - 1; i >= p->pa_top; i--) {
    if (p->pa_buf[i])
      bp_unfix(t->t_bp, p->pa_buf[i]);
    p->pa_buf[i] = NULL;
  }
  p->pa_n = 0;
  p->pa_top = 0;
}

/* Copies a value to the caller's buffer as bt_lookup promises. */
static void copy_val(const uint8_t *v, int vl, void *val, size_t cap, size_t *len)
{
  if (val && cap)
    memcpy(val, v, CZ_MIN((size_t)vl, cap));
  if (len)
    *len = (size_t)vl;
}

int bt_lookup(bt_tree_t *t, const void *key, size_t key_len,
              void *val, size_t val_cap, size_t *val_len, err_t *e)
{
  if (t->t_column) /* README "Column leaves" */
    return btc_lookup(t, key, key_len, val, val_cap, val_len, e);
  bt_target_t tg;
  bool eq;
  if (key_len > BT_MAX_KEY)
    return BT_NOT_FOUND;
  bt_target_key(&tg, key, key_len);
  buf_t *b = bt_descend(t, &tg, BP_SHARED, 0, NULL, e);
  if (!b)
    return CZ_ERR;
  const uint8_t *pg = bp_page(b);
  int pos = bpg_search_leaf(pg, &tg, t->t_unique, 0, false, &eq);
  if (!t->t_unique && pos == bpg_n(pg) && bpg_chdr(pg)->bh_right != PG_NONE) {
    /* The first entry of key may open the next leaf (the separator before
     * it carries a value part). Left to right: no deadlock (rule L4). */
    buf_t *r = bp_fix(t->t_bp, bpg_chdr(pg)->bh_right, BP_SHARED, 0, e);
    bp_unfix(t->t_bp, b);
    if (!r)
      return CZ_ERR;
    b = r;
    pg = bp_page(b);
    pos = bpg_search_leaf(pg, &tg, false, 0, false, &eq);
  }
  if (eq) {
    int vl;
    const uint8_t *v = bpg_val(pg, pos, &vl);
    copy_val(v, vl, val, val_cap, val_len);
  }
  bp_unfix(t->t_bp, b);
  return eq ? CZ_OK : BT_NOT_FOUND;
}
