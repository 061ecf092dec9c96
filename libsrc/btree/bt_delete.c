/* bt_delete.c — delete, merge of underfull pages, root collapse.
 *
 * Design notes: a delete that leaves its leaf at least a quarter full (or
 * hits the root leaf) is done under the optimistic latches. Otherwise the
 * pessimistic path keeps every ancestor that could itself fall under a
 * quarter by losing one separator, deletes, and merges upward: the
 * underfull page is let go and the pair (it and a sibling under the same
 * parent) is latched again left to right under the exclusive parent latch
 * (rule L5), merged into the left page when the two fit in one, the right
 * page freed and its separator removed. Pairs that do not fit are left as
 * they are: pages are only ever empty transiently, so no redistribution is
 * needed and a separator is never replaced by a longer one. The root
 * collapses when it is left with one child: the child's contents are
 * copied into the root page (the root keeps its number and flags).
 */
#include "btree/bt_col_int.h"

static bool delete_safe_inner(const uint8_t *pg)
{
  return bpg_used(pg) - BT_MAX_SEP >= BT_MERGE_THRESHOLD;
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

/* Merges child lc + 1 of the exclusively latched parent into child lc when
 * one of them is underfull and both fit in one page. */
static int merge_pair(bt_tree_t *t, buf_t *parent, int lc, bool *merged, err_t *e)
{
  bpool_t *bp = t->t_bp;
  uint8_t *ppg = bp_page(parent);
  bpg_ent_t ents[BPG_MAX_ENTS];
  *merged = false;
  buf_t *lb = bp_fix(bp, bpg_child(ppg, lc), BP_EXCL, 0, e);
  if (!lb)
    return CZ_ERR;
  buf_t *rb = bp_fix(bp, bpg_child(ppg, lc + 1), BP_EXCL, 0, e);
  if (!rb) {
    bp_unfix(bp, lb);
    return CZ_ERR;
  }
  uint8_t *lpg = bp_page(lb), *rpg = bp_page(rb);
  bool leaf = bpg_is_leaf(lpg);
  int nl = bpg_n(lpg), nr = bpg_n(rpg);
  if ((bpg_used(lpg) >= BT_MERGE_THRESHOLD && bpg_used(rpg) >= BT_MERGE_THRESHOLD) ||
      nl + nr + 1 > BPG_MAX_ENTS) {
    bp_unfix(bp, rb);
    bp_unfix(bp, lb);
    return CZ_OK;
  }
  int n = bpg_ents(lpg, ents);
  if (!leaf) {
    /* The parent's separator comes down in front of the right page's
     * leftmost child. */
    ents[n] = bpg_ent_at(ppg, lc);
    ents[n++].be_child = bpg_chdr(rpg)->bh_leftmost;
  }
  n += bpg_ents(rpg, ents + n);
  if (bpg_build_size(ents, n, leaf) > BT_AREA) {
    bp_unfix(bp, rb);
    bp_unfix(bp, lb);
    return CZ_OK;
  }
  bpg_rebuild(lpg, ents, n);
  pg_no_t rr = bpg_chdr(rpg)->bh_right;
  bpg_hdr(lpg)->bh_right = rr;
  if (rr != PG_NONE) {
    buf_t *rrb = bp_fix(bp, rr, BP_EXCL, 0, e);
    if (!rrb) {
      /* The merged page is consistent on its own; put the link back so the
       * chain stays whole and keep both pages. */
      bpg_hdr(lpg)->bh_right = bp_page_no(rb);
      bp_unfix(bp, rb);
      bp_unfix(bp, lb);
      return CZ_ERR;
    }
    bpg_hdr(bp_page(rrb))->bh_left = bp_page_no(lb);
    bp_set_dirty(bp, rrb);
    bp_unfix(bp, rrb);
  }
  bpg_delete(ppg, lc);
  bp_set_dirty(bp, parent);
  bp_set_dirty(bp, lb);
  bp_unfix(bp, lb);
  bp_free_page(bp, rb);
  *merged = true;
  return CZ_OK;
}

/* Root with no separator left: copy its only child into it, repeatedly. */
static int collapse_root(bt_tree_t *t, bt_path_t *p, err_t *e)
{
  bpool_t *bp = t->t_bp;
  buf_t *root = p->pa_buf[0];
  uint8_t *rpg = bp_page(root);
  while (!bpg_is_leaf(rpg) && bpg_n(rpg) == 0) {
    pg_no_t cno = bpg_chdr(rpg)->bh_leftmost;
    buf_t *cb = NULL;
    if (p->pa_n > 1 && p->pa_buf[1] && bp_page_no(p->pa_buf[1]) == cno) {
      cb = p->pa_buf[1];
      p->pa_buf[1] = NULL;
    } else if (!(cb = bp_fix(bp, cno, BP_EXCL, 0, e))) {
      return CZ_ERR;
    }
    uint8_t *cpg = bp_page(cb);
    bpg_init(rpg, bpg_level(cpg), t->t_root, t->t_flags);
    memcpy(rpg + BT_HDR_END, cpg + BT_HDR_END, ST_PAGE_SIZE - BT_HDR_END);
    bt_phdr_t *rh = bpg_hdr(rpg);
    const bt_phdr_t *ch = bpg_chdr(cpg);
    rh->bh_n = ch->bh_n;
    rh->bh_upper = ch->bh_upper;
    rh->bh_plen = ch->bh_plen;
    rh->bh_frag = ch->bh_frag;
    rh->bh_leftmost = ch->bh_leftmost;
    bp_set_dirty(bp, root);
    bp_free_page(bp, cb);
  }
  return CZ_OK;
}

/* After a delete at path index lv: merge upward while pages are underfull
 * and their parents are latched. */
static int rebalance(bt_tree_t *t, bt_path_t *p, int lv, err_t *e)
{
  while (lv > p->pa_top) {
    const uint8_t *pg = bp_page(p->pa_buf[lv]);
    if (bpg_used(pg) >= BT_MERGE_THRESHOLD)
      break;
    buf_t *parent = p->pa_buf[lv - 1];
    int c = p->pa_child[lv - 1], nc = bpg_n(bp_page(parent)) + 1;
    if (nc == 1)
      break;
    /* Let go of the page so the pair is latched left to right (rule L5);
     * the parent's exclusive latch keeps the pair's structure. */
    bp_unfix(t->t_bp, p->pa_buf[lv]);
    p->pa_buf[lv] = NULL;
    bool merged;
    if (merge_pair(t, parent, c < nc - 1 ? c : c - 1, &merged, e) != CZ_OK)
      return CZ_ERR;
    if (!merged)
      break;
    lv--;
  }
  if (p->pa_top == 0)
    return collapse_root(t, p, e);
  return CZ_OK;
}

typedef struct delete_ctx_s {
  bt_tree_t *dc_tree;
  const bt_target_t *dc_target;
} delete_ctx_t;

/* A leaf is safe when the entry is absent or its removal leaves the leaf
 * above the merge threshold; an inner page when losing a separator cannot
 * make it merge. */
static bool delete_safe(const uint8_t *pg, void *ctx)
{
  const delete_ctx_t *dc = ctx;
  bool eq;
  if (!bpg_is_leaf(pg))
    return delete_safe_inner(pg);
  int pos = bpg_search_leaf(pg, dc->dc_target, dc->dc_tree->t_unique, 0, false, &eq);
  return !eq || bpg_used(pg) - bpg_ent_size(pg, pos) >= BT_MERGE_THRESHOLD;
}

static int delete_pessimistic(bt_tree_t *t, const bt_target_t *tg,
                              void *old_val, size_t old_cap, size_t *old_len, err_t *e)
{
  bt_path_t p;
  bool eq;
  delete_ctx_t dc = { t, tg };
  if (bt_descend_excl(t, tg, delete_safe, &dc, &p, e) != CZ_OK)
    return CZ_ERR;
  buf_t *b = p.pa_buf[p.pa_n - 1];
  uint8_t *pg = bp_page(b);
  int pos = bpg_search_leaf(pg, tg, t->t_unique, 0, false, &eq);
  if (!eq) {
    bt_path_release(t, &p);
    return BT_NOT_FOUND;
  }
  copy_old(pg, pos, old_val, old_cap, old_len);
  bpg_delete(pg, pos);
  bp_set_dirty(t->t_bp, b);
  int rc = rebalance(t, &p, p.pa_n - 1, e);
  bt_path_release(t, &p);
  return rc;
}

int bt_delete(bt_tree_t *t, const void *key, size_t key_len,
              const void *val, size_t val_len,
              void *old_val, size_t old_cap, size_t *old_len, err_t *e)
{
  if (t->t_column) /* README "Column leaves" */
    return btc_delete(t, key, key_len, val, val_len, old_val, old_cap, old_len, e);
  bt_target_t tg;
  bool eq;
  if (key_len > BT_MAX_KEY || (!t->t_unique && key_len + val_len > BT_MAX_ROW))
    return BT_NOT_FOUND;
  bt_target_entry(&tg, t, key, key_len, val, val_len);
  buf_t *b = bt_descend(t, &tg, BP_EXCL, 0, NULL, e);
  if (!b)
    return CZ_ERR;
  uint8_t *pg = bp_page(b);
  int pos = bpg_search_leaf(pg, &tg, t->t_unique, 0, false, &eq);
  if (!eq) {
    bp_unfix(t->t_bp, b);
    return BT_NOT_FOUND;
  }
  if (bp_page_no(b) == t->t_root || bpg_used(pg) - bpg_ent_size(pg, pos) >= BT_MERGE_THRESHOLD) {
    copy_old(pg, pos, old_val, old_cap, old_len);
    bpg_delete(pg, pos);
    bp_set_dirty(t->t_bp, b);
    bp_unfix(t->t_bp, b);
    return CZ_OK;
  }
  bp_unfix(t->t_bp, b);
  return delete_pessimistic(t, &tg, old_val, old_cap, old_len, e);
}
