/* bt_insert.c — single-row insert and update.
 *
 * Design notes: the optimistic path descends with shared latches and takes
 * only the leaf exclusively (rule L2); when the row does not fit it lets go
 * of everything and runs the pessimistic path: exclusive latches from the
 * root down, letting go of the ancestors of every page that can take one
 * more separator (or, for the leaf, this row) without splitting (rule L3).
 * Whatever stays latched is exactly what a split may have to change.
 */
#include "btree/bt_col_int.h"

/* Can this page absorb the change of an insert without splitting? */
static bool insert_safe(const uint8_t *pg, const bpg_ent_t *ent)
{
  if (bpg_is_leaf(pg))
    return bpg_insert_need(pg, ent) <= bpg_free(pg);
  /* Any separator (at most BT_MAX_SEP), even one that drops the prefix. */
  return bpg_free(pg) - bpg_n(pg) * bpg_chdr(pg)->bh_plen >= BT_MAX_SEP;
}

static void copy_old(const uint8_t *pg, int pos, void *old_val, size_t old_cap, size_t *old_len)
{
  int vl;
  const uint8_t *v = bpg_val(pg, pos, &vl);
  if (old_val && old_cap)
    memcpy(old_val, v, CZ_MIN((size_t)vl, old_cap));
  if (old_len)
    *old_len = (size_t)vl;
}

static bool insert_safe_fn(const uint8_t *pg, void *ent)
{
  return insert_safe(pg, ent);
}

int bt_insert_pessimistic(bt_tree_t *t, const bt_target_t *tg, const bpg_ent_t *ent, bool run,
                          bool replace, void *old_val, size_t old_cap, size_t *old_len, err_t *e)
{
  bt_path_t p;
  bool eq;
  if (bt_descend_excl(t, tg, insert_safe_fn, (void *)ent, &p, e) != CZ_OK)
    return CZ_ERR;
  buf_t *b = p.pa_buf[p.pa_n - 1];
  uint8_t *pg = bp_page(b);
  int pos = bpg_search_leaf(pg, tg, t->t_unique, 0, false, &eq);
  int rc = CZ_OK;
  if (replace) {
    if (!eq) {
      bt_path_release(t, &p);
      return BT_NOT_FOUND;
    }
    copy_old(pg, pos, old_val, old_cap, old_len);
    bpg_delete(pg, pos);
    bp_set_dirty(t->t_bp, b);
  } else if (eq && (t->t_unique || tg->t_has_val)) {
    bt_path_release(t, &p);
    return err_set(e, SQLSTATE_UNIQUE_VIOLATION, "btree %u: duplicate key", (unsigned)t->t_root);
  }
  rc = bt_insert_split(t, &p, p.pa_n - 1, pos, ent, run, e);
  bt_path_release(t, &p);
  return rc;
}

int bt_insert(bt_tree_t *t, const void *key, size_t key_len,
              const void *val, size_t val_len, err_t *e)
{
  if (t->t_column) /* README "Column leaves" */
    return btc_insert(t, key, key_len, val, val_len, e);
  bt_target_t tg;
  bool eq;
  if (bt_check_limits(key_len, val_len, e) != CZ_OK)
    return CZ_ERR;
  bt_target_entry(&tg, t, key, key_len, val, val_len);
  bpg_ent_t ent = bpg_ent_make(key, (uint32_t)key_len, val, (uint32_t)val_len, PG_NONE);
  buf_t *b = bt_descend(t, &tg, BP_EXCL, 0, NULL, e);
  if (!b)
    return CZ_ERR;
  uint8_t *pg = bp_page(b);
  int pos = bpg_search_leaf(pg, &tg, t->t_unique, 0, false, &eq);
  if (eq) {
    bp_unfix(t->t_bp, b);
    return err_set(e, SQLSTATE_UNIQUE_VIOLATION, "btree %u: duplicate key", (unsigned)t->t_root);
  }
  if (bpg_insert(pg, pos, &ent)) {
    bp_set_dirty(t->t_bp, b);
    bp_unfix(t->t_bp, b);
    return CZ_OK;
  }
  bp_unfix(t->t_bp, b);
  return bt_insert_pessimistic(t, &tg, &ent, false, false, NULL, 0, NULL, e);
}

int bt_update(bt_tree_t *t, const void *key, size_t key_len,
              const void *val, size_t val_len,
              void *old_val, size_t old_cap, size_t *old_len, err_t *e)
{
  if (t->t_column) /* README "Column leaves" */
    return btc_update(t, key, key_len, val, val_len, old_val, old_cap, old_len, e);
  bt_target_t tg;
  bool eq;
  if (!t->t_unique)
    return err_set(e, SQLSTATE_INTERNAL, "bt_update: tree %u is not unique", (unsigned)t->t_root);
  if (key_len > BT_MAX_KEY)
    return BT_NOT_FOUND;
  if (bt_check_limits(key_len, val_len, e) != CZ_OK)
    return CZ_ERR;
  bt_target_key(&tg, key, key_len);
  bpg_ent_t ent = bpg_ent_make(key, (uint32_t)key_len, val, (uint32_t)val_len, PG_NONE);
  buf_t *b = bt_descend(t, &tg, BP_EXCL, 0, NULL, e);
  if (!b)
    return CZ_ERR;
  uint8_t *pg = bp_page(b);
  int pos = bpg_search_leaf(pg, &tg, true, 0, false, &eq);
  if (!eq) {
    bp_unfix(t->t_bp, b);
    return BT_NOT_FOUND;
  }
  /* The key is the page's own, so it shares the prefix: the new row needs
   * its slot and body, the old one gives its own back. */
  if (bpg_insert_need(pg, &ent) <= bpg_free(pg) + bpg_ent_size(pg, pos)) {
    copy_old(pg, pos, old_val, old_cap, old_len);
    bpg_delete(pg, pos);
    bool ok = bpg_insert(pg, pos, &ent);
    bp_set_dirty(t->t_bp, b);
    bp_unfix(t->t_bp, b);
    return ok ? CZ_OK : err_set(e, SQLSTATE_INTERNAL, "bt_update: row did not fit after check");
  }
  bp_unfix(t->t_bp, b);
  return bt_insert_pessimistic(t, &tg, &ent, false, true, old_val, old_cap, old_len, e);
}
