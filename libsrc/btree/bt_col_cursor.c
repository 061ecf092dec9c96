/* bt_col_cursor.c — bt_seek / bt_next on column trees: the generic
 * cursor's contract (key, column row) over segments, both directions.
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
 * - Backward: rows from the top of the segment down; then the segment of
 *   the entry before this one's (found by a backward cursor over the
 *   segment entries, rule L6), its rows below this entry's key.
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
  bt_dir_t cc_dir;
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
  bool back = c->cc_dir == BT_BACKWARD;
  if (back ? c->cc_r > c->cc_end : c->cc_r < c->cc_end) {
    /* Rows of this segment are still to come: find them again after the
     * last row returned (as a row cursor does), or at the first. */
    const str_t *ks = c->cc_seg->ls_vec[0].v_str;
    c->cc_rexcl = back ? c->cc_r < c->cc_first : c->cc_r > c->cc_first;
    const str_t *from = &ks[c->cc_rexcl ? (back ? c->cc_r + 1 : c->cc_r - 1) : c->cc_r];
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

/* Backward: loads the segment of at (NULL: the last) and hands out, from
 * the top down, its rows below the next entry and at or below bound
 * (below it when excl; NULL: no bound). cc_r counts down to cc_end. */
static int cur_load_back(btc_cur_t *c, const uint8_t *at, size_t alen, const uint8_t *bound, size_t blen,
                         bool excl, err_t *e)
{
  uint8_t from[BT_MAX_KEY + 2], bnd[BT_MAX_KEY + 2];
  if (!at) { /* above every stored key (none is longer than BT_MAX_KEY) */
    memset(from, 0xFF, BT_MAX_KEY + 1);
    alen = BT_MAX_KEY + 1;
  } else {
    memcpy(from, at, alen);
  }
  if (bound) {
    memcpy(bnd, bound, blen);
    bound = bnd;
  }
  cur_unhold(c);
  c->cc_reload = false;
  arena_reset(c->cc_arena);
  c->cc_seg = arena_try_zalloc(c->cc_arena, sizeof *c->cc_seg);
  if (!c->cc_seg)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "bt_next: column tree");
  if (btc_seg_load(c->cc_tree, from, alen, c->cc_arena, c->cc_seg, &c->cc_hold, e) != CZ_OK)
    return CZ_ERR;
  const look_seg_t *s = c->cc_seg;
  c->cc_r = c->cc_end = c->cc_first = -1;
  c->cc_last = true;
  if (!s->ls_pos.sp_found)
    return CZ_OK;
  const str_t *ks = s->ls_vec[0].v_str;
  int top = (int)s->ls_desc.sd_rows;
  while (top > 0 && bound &&
         bt_keycmp((const uint8_t *)ks[top - 1].s_ptr, ks[top - 1].s_len, bound, blen) >= (excl ? 0 : 1))
    top--;
  while (top > 0 && s->ls_pos.sp_has_next &&
         bt_keycmp((const uint8_t *)ks[top - 1].s_ptr, ks[top - 1].s_len, s->ls_pos.sp_next, s->ls_pos.sp_nlen) >= 0)
    top--;
  c->cc_r = c->cc_first = top - 1;
  c->cc_last = s->ls_pos.sp_first;
  /* The previous segment's rows are those below this entry. */
  memcpy(c->cc_key, s->ls_pos.sp_key, s->ls_pos.sp_klen);
  c->cc_klen = s->ls_pos.sp_klen;
  return CZ_OK;
}

/* Backward: the segment before the one whose entry is cc_key, its rows
 * below cc_key. The entry before is found by a backward cursor on the
 * segment entries (rule L6 for the move left). */
static int cur_prev_seg(btc_cur_t *c, err_t *e)
{
  cur_unhold(c);
  bt_cursor_t *sc;
  if (bt_cursor_open(c->cc_tree->t_seg, &sc, e) != CZ_OK)
    return CZ_ERR;
  uint8_t ek[BT_MAX_KEY + 1], pk[BT_MAX_KEY + 1];
  uint32_t eklen = c->cc_klen, pklen = 0;
  memcpy(ek, c->cc_key, eklen);
  const void *k, *v;
  size_t kl, vl;
  bool found = false;
  int rc = bt_seek(sc, ek, eklen, BT_BACKWARD, e);
  while (rc == CZ_OK && (rc = bt_next(sc, &k, &kl, &v, &vl, e)) == CZ_OK) {
    if (bt_keycmp(k, kl, ek, eklen) < 0) {
      memcpy(pk, k, kl);
      pklen = (uint32_t)kl;
      found = true;
      break;
    }
  }
  bt_cursor_close(sc);
  if (rc == CZ_ERR)
    return CZ_ERR;
  if (!found) { /* nothing before: done */
    c->cc_r = c->cc_end = -1;
    c->cc_last = true;
    return CZ_OK;
  }
  /* A split meanwhile may have put entries between the one found and
   * ek: the rows just below ek are then the last of those segments'. */
  for (int tries = 0;; tries++) {
    if (cur_load_back(c, pk, pklen, ek, eklen, true, e) != CZ_OK)
      return CZ_ERR;
    const btc_pos_t *p = &c->cc_seg->ls_pos;
    if (!p->sp_found || !p->sp_has_next || bt_keycmp(p->sp_next, p->sp_nlen, ek, eklen) >= 0)
      return CZ_OK;
    if (tries > 1000)
      return err_set(e, SQLSTATE_INTERNAL, "column tree %u: no stable segment before a key",
                     (unsigned)c->cc_tree->t_root);
    memcpy(pk, p->sp_next, p->sp_nlen);
    pklen = p->sp_nlen;
  }
}

int btc_cur_seek(btc_cur_t *c, const void *key, size_t klen, bt_dir_t dir, err_t *e)
{
  /* As bt_seek: a longer key sorts as its first BT_MAX_KEY + 1 bytes do. */
  if (klen > BT_MAX_KEY + 1)
    klen = BT_MAX_KEY + 1;
  c->cc_active = true;
  c->cc_dir = dir;
  uint8_t b[BT_MAX_KEY + 2];
  if (key && !c->cc_tree->t_unique) {
    /* Forward: the first pair of key; backward: below the first pair of
     * any greater key (bt_col_pair.c: the terminator 0x00 0x01 becomes
     * 0x00 0x02, above every value of key). */
    klen = btc_pair_bound(key, klen, b);
    if (dir == BT_BACKWARD && klen >= 2 && b[klen - 2] == 0 && b[klen - 1] == 1) {
      b[klen - 1] = 2;
      key = b;
      return cur_load_back(c, key, klen, key, klen, true, e);
    }
    key = b;
  }
  if (dir == BT_BACKWARD)
    return cur_load_back(c, key, klen, key, klen, false, e);
  return cur_load(c, key, klen, false, e);
}

int btc_cur_next(btc_cur_t *c, const void **key, size_t *klen, const void **val, size_t *vlen, err_t *e)
{
  if (!c->cc_active)
    return err_set(e, SQLSTATE_INTERNAL, "bt_next: cursor not positioned");
  /* Released inside a segment: the next row to hand out is the first at
   * or after the one that was next (a release keeps no latch, so the
   * segment is located and decoded again). */
  bool back = c->cc_dir == BT_BACKWARD;
  if (c->cc_reload && (back ? cur_load_back(c, c->cc_rkey, c->cc_rklen, c->cc_rkey, c->cc_rklen, c->cc_rexcl, e)
                            : cur_load(c, c->cc_rkey, c->cc_rklen, c->cc_rexcl, e)) != CZ_OK)
    return CZ_ERR;
  while (back ? c->cc_r <= c->cc_end : c->cc_r >= c->cc_end) {
    cur_unhold(c);
    if (c->cc_last)
      return BT_END;
    if ((back ? cur_prev_seg(c, e) : cur_load(c, c->cc_key, c->cc_klen, false, e)) != CZ_OK)
      return CZ_ERR;
  }
  const look_seg_t *s = c->cc_seg;
  int r = back ? c->cc_r-- : c->cc_r++;
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
