/* bt_split.c — page splits and root growth.
 *
 * Design notes: a split runs with the page and every ancestor that may
 * have to take a separator latched exclusively (the pessimistic path of
 * bt_insert.c). The page keeps the left part, a new page (allocated near
 * it, so leaves stay physically in key order) takes the right part, the
 * right sibling's back link is updated (latched after the page: left to
 * right, rule L4) and the separator goes up.
 *
 * Where a page splits: by bytes in the middle, except where the inserts
 * that follow are known to go on at the insertion point. An insert past
 * the last entry of the rightmost page keeps the whole old page on the
 * left (ascending inserts). A leaf split inside a run of sorted inserts
 * (bt_insert_batch, when the batch's next row goes right after this one
 * in the same leaf) cuts right after the new entry: the run goes on
 * appending to the left page until it is full, then the next split puts
 * the run's row alone on a new page that the run fills in turn. A batch
 * that adds new keys at the end of a key range inside the tree (a
 * loader's ascending ids under each predicate) so leaves full pages
 * behind it; a split in the middle would leave each of them half full. The root never moves: to
 * split it, its contents first move into a new child (bt_root_grow) and
 * the root becomes an inner page one level higher with that one child.
 */
#include "btree/btree_int.h"

buf_t *bt_new_page(bt_tree_t *t, int level, pg_no_t near, err_t *e)
{
  buf_t *b = bp_fix_new(t->t_bp, t->t_root, near, e);
  if (!b)
    return NULL;
  bpg_init(bp_page(b), level, t->t_root, 0);
  if ((t->t_flags & BT_COLUMN) && level == 0)
    bpg_hdr(bp_page(b))->bh_layout = BT_LAYOUT_COL;
  return b;
}

int bt_root_grow(bt_tree_t *t, bt_path_t *p, err_t *e)
{
  buf_t *rb = p->pa_buf[0];
  uint8_t *rpg = bp_page(rb);
  int level = bpg_level(rpg);
  if (p->pa_n >= BT_MAX_HEIGHT)
    return err_set(e, SQLSTATE_INTERNAL, "btree %u: height limit %d", (unsigned)t->t_root, BT_MAX_HEIGHT);
  buf_t *ab = bt_new_page(t, level, t->t_root, e);
  if (!ab)
    return CZ_ERR;
  uint8_t *apg = bp_page(ab);
  memcpy(apg + PG_HEAD_SIZE, rpg + PG_HEAD_SIZE, ST_PAGE_SIZE - PG_HEAD_SIZE);
  bpg_hdr(apg)->bh_tree_flags = 0;
  bpg_init(rpg, level + 1, t->t_root, t->t_flags);
  bpg_hdr(rpg)->bh_leftmost = bp_page_no(ab);
  bp_set_dirty(t->t_bp, rb);
  bp_set_dirty(t->t_bp, ab);
  /* The new child takes the root's place in the path, one level down. */
  for (int i = p->pa_n; i > 1; i--) {
    p->pa_buf[i] = p->pa_buf[i - 1];
    p->pa_child[i] = p->pa_child[i - 1];
  }
  p->pa_buf[1] = ab;
  p->pa_child[1] = p->pa_child[0];
  p->pa_child[0] = 0;
  p->pa_n++;
  return CZ_OK;
}

/* Splits the full page at path index lv around the new entry. */
static int split_page(bt_tree_t *t, bt_path_t *p, int lv, int pos, const bpg_ent_t *ent, bool run, err_t *e)
{
  bpg_ent_t ents[BPG_MAX_ENTS + 1];
  uint8_t sep[BT_MAX_ROW];
  uint32_t sep_klen, sep_vlen;
  buf_t *xb = p->pa_buf[lv];
  uint8_t *pg = bp_page(xb);
  bt_phdr_t *h = bpg_hdr(pg);
  int n = bpg_ents(pg, ents);

  memmove(&ents[pos + 1], &ents[pos], sizeof(bpg_ent_t) * (size_t)(n - pos));
  ents[pos] = *ent;
  /* ents has n + 1 entries, ent at pos; k = n leaves it alone on the
   * right (or, inner, as the separator), k = pos + 1 keeps it last on the
   * left. */
  int at = BPG_SPLIT_BYTES;
  if (pos == n && h->bh_right == PG_NONE)
    at = n;
  else if (run && h->bh_level == 0)
    at = CZ_MIN(pos + 1, n);
  buf_t *rb = bt_new_page(t, h->bh_level, bp_page_no(xb), e);
  if (!rb)
    return CZ_ERR;
  uint8_t *rpg = bp_page(rb);
  pg_no_t old_right = h->bh_right;
  bpg_hdr(rpg)->bh_left = bp_page_no(xb);
  bpg_hdr(rpg)->bh_right = old_right;
  bpg_split(pg, rpg, ents, n + 1, at, t->t_unique, sep, &sep_klen, &sep_vlen);
  h->bh_right = bp_page_no(rb);
  pg_no_t rno = bp_page_no(rb);
  bp_set_dirty(t->t_bp, xb);
  bp_unfix(t->t_bp, rb);
  if (old_right != PG_NONE) {
    buf_t *ob = bp_fix(t->t_bp, old_right, BP_EXCL, 0, e);
    if (!ob)
      return CZ_ERR;
    bpg_hdr(bp_page(ob))->bh_left = rno;
    bp_set_dirty(t->t_bp, ob);
    bp_unfix(t->t_bp, ob);
  }
  bpg_ent_t up = bpg_ent_make(sep, sep_klen, sep + sep_klen, sep_vlen, rno);
  /* The new page is child pa_child + 1 of the parent: its separator goes
   * at separator index pa_child. */
  return bt_insert_split(t, p, lv - 1, p->pa_child[lv - 1], &up, false, e);
}

int bt_insert_split(bt_tree_t *t, bt_path_t *p, int lv, int pos, const bpg_ent_t *ent, bool run, err_t *e)
{
  buf_t *b = p->pa_buf[lv];
  if (bpg_insert(bp_page(b), pos, ent)) {
    bp_set_dirty(t->t_bp, b);
    return CZ_OK;
  }
  if (lv == 0) {
    /* Only the root has no latched parent when it must split: a page whose
     * parent was let go was safe (rule L3). */
    if (bp_page_no(b) != t->t_root || p->pa_top != 0)
      return err_set(e, SQLSTATE_INTERNAL, "btree %u: split of page %u without its parent",
                     (unsigned)t->t_root, (unsigned)bp_page_no(b));
    if (bt_root_grow(t, p, e) != CZ_OK)
      return CZ_ERR;
    lv = 1;
  } else if (lv == p->pa_top) {
    return err_set(e, SQLSTATE_INTERNAL, "btree %u: split of page %u without its parent",
                   (unsigned)t->t_root, (unsigned)bp_page_no(b));
  }
  return split_page(t, p, lv, pos, ent, run, e);
}
