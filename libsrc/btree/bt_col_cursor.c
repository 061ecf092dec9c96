/* bt_col_cursor.c — bt_seek / bt_next on column trees: the generic
 * cursor's contract (key, column row) over segments, forward only.
 *
 * Design notes: the cursor decodes one segment whole (btc_seg_load, under
 * the rules of bt_col_scan.c: located by key, runs copied under the leaf's
 * latch, rows clipped at the next entry's key) and hands out its rows
 * rebuilt as column rows; it then resumes at the next entry's key.
 * - Like a row cursor it keeps the segment's leaf pinned and shared-latched
 *   between bt_next calls, so the caller checks each row's visibility
 *   under the latch the row was read with (txn's rule L3): an undo that
 *   swaps the segment waits until the cursor moves on or is released.
 *   The latch goes before the next segment is located (a descent from the
 *   root must not wait while a leaf is held).
 * - bt_cursor_release lets the leaf go; the next bt_next finds the segment
 *   again by the last key returned, as a row cursor re-seeks.
 * Scans that want vectors use bt_col_scan_*, which decodes only needed
 * columns.
 */
#include <stdlib.h>
#include <string.h>

#include "btree/bt_col_int.h"

struct btc_cur_s {
  bt_tree_t *cc_tree;
  arena_t *cc_arena;      /* the current segment */
  arena_t *cc_row;        /* the row handed out last */
  look_seg_t *cc_seg;
  buf_t *cc_hold;         /* the segment's leaf, shared-latched; NULL when released */
  int cc_r, cc_end;       /* next row, end of the clipped rows */
  bool cc_active, cc_last;/* positioned; the segment is the last to visit */
  int cc_first;           /* first row of the segment handed out */
  bool cc_rexcl;          /* resume after cc_rkey (else at it) */
  bool cc_reload;         /* released inside a segment: find it again by cc_rkey */
  uint32_t cc_klen;       /* next segment's key (the next entry's) */
  uint8_t cc_key[BT_MAX_KEY + 1];
  uint8_t cc_okey[BT_MAX_KEY];/* non-unique tree: the key of the pair handed out */
  uint32_t cc_rklen;      /* after a release: resume after this key */
  uint8_t cc_rkey[BT_MAX_KEY + 1];
};

int btc_cur_open(bt_tree_t *t, btc_cur_t **out, err_t *e)
{
  btc_cur_t *c = calloc(1, sizeof *c);
  if (!c || !(c->cc_arena = arena_create(NULL, "btc_cur")) || !(c->cc_row = arena_create(NULL, "btc_cur_row"))) {
    if (c && c->cc_arena)
      arena_destroy(c->cc_arena);
    free(c);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "bt_cursor_open: column tree");
  }
  c->cc_tree = t;
  *out = c;
  return CZ_OK;
}

static void cur_unhold(btc_cur_t *c)
{
  if (c->cc_hold) {
    bp_unfix(c->cc_tree->t_bp, c->cc_hold);
    c->cc_hold = NULL;
  }
}

void btc_cur_release(btc_cur_t *c)
{
  if (!c || !c->cc_hold)
    return;
  cur_unhold(c);
  if (c->cc_r < c->cc_end) {
    /* Rows of this segment are still to come: find them again after the
     * last row returned (as a row cursor does), or at the first. */
    const str_t *ks = c->cc_seg->ls_vec[0].v_str;
    c->cc_rexcl = c->cc_r > c->cc_first;
    const str_t *from = &ks[c->cc_rexcl ? c->cc_r - 1 : c->cc_r];
    memcpy(c->cc_rkey, from->s_ptr, from->s_len);
    c->cc_rklen = from->s_len;
    c->cc_reload = true;
  }
}

void btc_cur_close(btc_cur_t *c)
{
  if (!c)
    return;
  cur_unhold(c);
  arena_destroy(c->cc_arena);
  arena_destroy(c->cc_row);
  free(c);
}

/* Loads the segment holding key (NULL: the first); its rows from key on,
 * below the next entry. */
static int cur_load(btc_cur_t *c, const uint8_t *key, size_t klen, bool excl, err_t *e)
{
  uint8_t from[BT_MAX_KEY + 1];
  if (key) {
    memcpy(from, key, klen); /* key may be cc_key, rewritten below */
    key = from;
  }
  cur_unhold(c);
  c->cc_reload = false;
  arena_reset(c->cc_arena);
  c->cc_seg = arena_try_zalloc(c->cc_arena, sizeof *c->cc_seg);
  if (!c->cc_seg)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "bt_next: column tree");
  if (btc_seg_load(c->cc_tree, key, klen, c->cc_arena, c->cc_seg, &c->cc_hold, e) != CZ_OK)
    return CZ_ERR;
  const look_seg_t *s = c->cc_seg;
  c->cc_r = c->cc_end = 0;
  c->cc_last = true;
  if (!s->ls_pos.sp_found)
    return CZ_OK;
  const str_t *ks = s->ls_vec[0].v_str;
  int n = (int)s->ls_desc.sd_rows, r = 0, end = n;
  while (key && r < n && bt_keycmp((const uint8_t *)ks[r].s_ptr, ks[r].s_len, key, klen) < (excl ? 1 : 0))
    r++;
  if (s->ls_pos.sp_has_next) {
    while (end > r && bt_keycmp((const uint8_t *)ks[end - 1].s_ptr, ks[end - 1].s_len, s->ls_pos.sp_next,
                                s->ls_pos.sp_nlen) >= 0)
      end--;
    memcpy(c->cc_key, s->ls_pos.sp_next, s->ls_pos.sp_nlen);
    c->cc_klen = s->ls_pos.sp_nlen;
    c->cc_last = false;
  }
  c->cc_r = c->cc_first = r;
  c->cc_end = end;
  return CZ_OK;
}

int btc_cur_seek(btc_cur_t *c, const void *key, size_t klen, bt_dir_t dir, err_t *e)
{
  if (dir != BT_FORWARD)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "bt_seek: backward scans of column trees are not built yet");
  /* As bt_seek: a longer key sorts as its first BT_MAX_KEY + 1 bytes do. */
  if (klen > BT_MAX_KEY + 1)
    klen = BT_MAX_KEY + 1;
  c->cc_active = true;
  uint8_t b[BT_MAX_KEY + 2];
  if (key && !c->cc_tree->t_unique) { /* the first pair of key (bt_col_pair.c) */
    klen = btc_pair_bound(key, klen, b);
    key = b;
  }
  return cur_load(c, key, klen, false, e);
}

int btc_cur_next(btc_cur_t *c, const void **key, size_t *klen, const void **val, size_t *vlen, err_t *e)
{
  if (!c->cc_active)
    return err_set(e, SQLSTATE_INTERNAL, "bt_next: cursor not positioned");
  /* Released inside a segment: the next row to hand out is the first at
   * or after the one that was next (a release keeps no latch, so the
   * segment is located and decoded again). */
  if (c->cc_reload && cur_load(c, c->cc_rkey, c->cc_rklen, c->cc_rexcl, e) != CZ_OK)
    return CZ_ERR;
  while (c->cc_r >= c->cc_end) {
    cur_unhold(c);
    if (c->cc_last)
      return BT_END;
    if (cur_load(c, c->cc_key, c->cc_klen, false, e) != CZ_OK)
      return CZ_ERR;
  }
  const look_seg_t *s = c->cc_seg;
  int r = c->cc_r++;
  uint8_t *row;
  size_t len;
  arena_reset(c->cc_row);
  if (btc_seg_row(s, r, c->cc_row, &row, &len, e) != CZ_OK)
    return CZ_ERR;
  *key = s->ls_vec[0].v_str[r].s_ptr;
  *klen = s->ls_vec[0].v_str[r].s_len;
  if (!c->cc_tree->t_unique) { /* the pair's key (bt_col_pair.c) */
    const uint8_t *pv;
    uint32_t kl, pvl;
    if (btc_pair_split(*key, *klen, c->cc_okey, &kl, &pv, &pvl) != CZ_OK)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: a row's key is not a (key, value) pair",
                     (unsigned)c->cc_tree->t_root);
    *key = c->cc_okey;
    *klen = kl;
  }
  *val = row;
  *vlen = len;
  return CZ_OK;
}
