/* bt_tree.c — tree handles: create, open, close, drop.
 *
 * Design notes: a tree is named by its root page, which never moves; the
 * root records the tree's flags (bh_tree_flags). A handle caches the root
 * number and flags and pins nothing while idle, so handles are cheap and
 * any number may be open on one tree, in any threads.
 */
#include <stdlib.h>

#include "btree/bt_col_int.h"

int bt_create(bpool_t *bp, uint32_t flags, pg_no_t *root, err_t *e)
{
  /* The root's own number is its owner id; it is not known before the
   * allocation, so the root comes from the anonymous owner 0's space and
   * every later page of the tree from the tree's own extents. */
  buf_t *b = bp_fix_new(bp, 0, PG_NONE, e);
  if (!b)
    return err_prefix(e, "bt_create");
  *root = bp_page_no(b);
  bpg_init(bp_page(b), 0, *root, flags);
  bp_set_dirty(bp, b);
  bp_unfix(bp, b);
  return CZ_OK;
}

int bt_open(bpool_t *bp, pg_no_t root, bt_tree_t **out, err_t *e)
{
  buf_t *b = bp_fix(bp, root, BP_SHARED, 0, e);
  if (!b)
    return err_prefix(e, "bt_open %u", (unsigned)root);
  const uint8_t *pg = bp_page(b);
  const pg_head_t *ph = (const pg_head_t *)pg;
  if ((ph->ph_type != PG_T_BTREE_LEAF && ph->ph_type != PG_T_BTREE_INNER) || ph->ph_owner != root) {
    bp_unfix(bp, b);
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "bt_open: page %u is not a B-tree root (type %u, owner %llu)",
                   (unsigned)root, (unsigned)ph->ph_type, (unsigned long long)ph->ph_owner);
  }
  uint32_t flags = bpg_chdr(pg)->bh_tree_flags;
  bp_unfix(bp, b);
  bt_tree_t *t = calloc(1, sizeof *t);
  if (!t)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "bt_open: handle");
  t->t_bp = bp;
  t->t_root = root;
  t->t_flags = flags;
  t->t_unique = (flags & BT_UNIQUE) != 0;
  if (flags & BT_COLUMN) {
    /* The row-layout view through which the column code changes segment
     * entries: same root, same flags, entry calls not redirected. */
    t->t_column = true;
    t->t_seg = calloc(1, sizeof *t->t_seg);
    if (!t->t_seg) {
      free(t);
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "bt_open: handle");
    }
    *t->t_seg = *t;
    t->t_seg->t_column = false;
    t->t_seg->t_seg = NULL;
    /* A non-unique column tree's segment entries are keyed by pairs
     * (bt_col_pair.c): unique. */
    t->t_seg->t_unique = true;
  }
  *out = t;
  return CZ_OK;
}

void bt_close(bt_tree_t *t)
{
  if (t)
    free(t->t_seg);
  free(t);
}

pg_no_t bt_root(const bt_tree_t *t) { return t->t_root; }

/* The root lies in owner 0's space (bt_create); every other page of the
 * tree in extents the tree owns (bt_split.c's bp_fix_new with the root as
 * owner), so storage's count of those plus the root is the tree's size. */
uint64_t bt_pages(const bt_tree_t *t)
{
  return 1 + st_owner_pages(bp_storage(t->t_bp), t->t_root);
}
uint32_t bt_flags(const bt_tree_t *t) { return t->t_flags; }

/* Frees the subtree under page pg (not pg itself): depth first, so a page
 * is freed after its children. Recursion depth is the tree height. */
static int drop_children(bt_tree_t *t, buf_t *b, err_t *e)
{
  const uint8_t *pg = bp_page(b);
  if (bpg_is_leaf(pg))
    return CZ_OK;
  int n = bpg_n(pg);
  for (int c = 0; c <= n; c++) {
    buf_t *cb = bp_fix(t->t_bp, bpg_child(pg, c), BP_EXCL, 0, e);
    if (!cb)
      return CZ_ERR;
    if (drop_children(t, cb, e) != CZ_OK) {
      bp_unfix(t->t_bp, cb);
      return CZ_ERR;
    }
    bp_free_page(t->t_bp, cb);
  }
  return CZ_OK;
}

int bt_drop(bt_tree_t *t, err_t *e)
{
  if (t->t_column && btc_drop_runs(t, e) != CZ_OK) {
    bt_close(t);
    return CZ_ERR;
  }
  buf_t *b = bp_fix(t->t_bp, t->t_root, BP_EXCL, 0, e);
  if (!b) {
    bt_close(t);
    return CZ_ERR;
  }
  if (drop_children(t, b, e) != CZ_OK) {
    bp_unfix(t->t_bp, b);
    bt_close(t);
    return CZ_ERR;
  }
  bp_free_page(t->t_bp, b);
  bt_close(t);
  return CZ_OK;
}
