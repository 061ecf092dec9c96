/* bt_cursor.c — cursors for forward and backward range scans.
 *
 * Design notes: a cursor holds at most one leaf, pinned and shared-latched,
 * while it iterates inside it; it moves right by latching the right
 * sibling before letting go of the current leaf (left to right, rule L4)
 * and left by trying the left sibling with BP_NOWAIT while still holding
 * the current leaf; when that fails it lets go and finds its place again
 * by key (rule L6). The place is always known by key: c_key/c_val hold the
 * last entry returned (or the seek key before the first), and c_incl says
 * whether that key itself is still to be returned. bt_cursor_release drops
 * the leaf; the next bt_next re-seeks from that key, so a paused scan
 * blocks no writer. Forward scans announce the next extent to the buffer
 * pool when they enter a new one (explicit read-ahead), and fix leaves
 * with BP_SCAN so one pass does not flood the hot set.
 */
#include <sched.h>
#include <stdlib.h>

#include "btree/bt_col_int.h"

enum { CUR_UNSET = 0, CUR_ACTIVE = 1, CUR_END = 2 };

/* itc_left's answer when the left sibling was busy: find the place again. */
#define CUR_RESEEK 2

struct bt_cursor_s {
  bt_tree_t *c_tree;
  buf_t *c_buf;             /* the leaf held, or NULL (released, or not positioned) */
  int c_pos;                /* next slot to return in c_buf */
  int c_state;              /* CUR_* */
  bt_dir_t c_dir;
  int8_t c_inf;             /* the bound is -inf / +inf (seek with key NULL, nothing returned) */
  bool c_incl;              /* the bound itself is still to be returned */
  bool c_val_saved;         /* c_val holds the bound's value (non-unique trees) */
  const uint8_t *c_last_val; /* value of the last entry returned, inside c_buf */
  uint32_t c_klen;
  uint32_t c_vlen;
  btc_cur_t *c_col;         /* column tree: the segment reader behind the cursor */
  uint8_t c_key[BT_MAX_KEY + 1];
  uint8_t c_val[BT_MAX_ROW];
};

int bt_cursor_open(bt_tree_t *t, bt_cursor_t **out, err_t *e)
{
  bt_cursor_t *c = malloc(sizeof *c);
  if (!c)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "bt_cursor_open");
  memset(c, 0, offsetof(bt_cursor_t, c_key));
  c->c_tree = t;
  if (t->t_column && btc_cur_open(t, &c->c_col, e) != CZ_OK) { /* bt_col_cursor.c */
    free(c);
    return CZ_ERR;
  }
  *out = c;
  return CZ_OK;
}

/* Lets go of the leaf, keeping the value of the bound for a re-seek. */
static void itc_unhold(bt_cursor_t *c)
{
  if (!c->c_buf)
    return;
  if (!c->c_tree->t_unique && !c->c_val_saved && c->c_last_val) {
    memcpy(c->c_val, c->c_last_val, c->c_vlen);
    c->c_val_saved = true;
  }
  c->c_last_val = NULL;
  bp_unfix(c->c_tree->t_bp, c->c_buf);
  c->c_buf = NULL;
}

void bt_cursor_release(bt_cursor_t *c)
{
  if (c->c_col)
    btc_cur_release(c->c_col);
  itc_unhold(c);
}

void bt_cursor_close(bt_cursor_t *c)
{
  if (!c)
    return;
  itc_unhold(c);
  btc_cur_close(c->c_col);
  free(c);
}

static void itc_bound_target(const bt_cursor_t *c, bt_target_t *tg)
{
  bt_target_key(tg, c->c_key, c->c_klen);
  tg->t_inf = c->c_inf;
  if (!c->c_tree->t_unique && !c->c_incl && !c->c_inf) {
    tg->t_val = c->c_val;
    tg->t_vlen = c->c_vlen;
    tg->t_has_val = true;
  }
}

/* Announces the extent after the one a forward scan just entered. */
static void itc_read_ahead(bt_cursor_t *c, pg_no_t from, pg_no_t to)
{
  if (pg_extent_of(from) == pg_extent_of(to))
    return;
  bpool_t *bp = c->c_tree->t_bp;
  storage_t *st = bp_storage(bp);
  pg_no_t next = pg_extent_first(to) + ST_EXTENT_PAGES;
  bp_prefetch_extent(bp, to);
  if (next < st_n_pages(st) && st_extent_owner(st, next) == c->c_tree->t_root)
    bp_prefetch_extent(bp, next);
}

/* Forward: steps right until c_pos is inside a leaf. */
static int itc_right(bt_cursor_t *c, err_t *e)
{
  bpool_t *bp = c->c_tree->t_bp;
  while (c->c_pos >= bpg_n(bp_page(c->c_buf))) {
    pg_no_t r = bpg_chdr(bp_page(c->c_buf))->bh_right;
    if (r == PG_NONE) {
      itc_unhold(c);
      c->c_state = CUR_END;
      return BT_END;
    }
    buf_t *nb = bp_fix(bp, r, BP_SHARED, BP_SCAN, e);
    if (!nb)
      return CZ_ERR;
    pg_no_t from = bp_page_no(c->c_buf);
    itc_unhold(c);
    c->c_buf = nb;
    c->c_pos = 0;
    itc_read_ahead(c, from, r);
  }
  return CZ_OK;
}

/* Backward: steps left until c_pos is inside a leaf. */
static int itc_left(bt_cursor_t *c, err_t *e)
{
  bpool_t *bp = c->c_tree->t_bp;
  while (c->c_pos < 0) {
    pg_no_t l = bpg_chdr(bp_page(c->c_buf))->bh_left;
    if (l == PG_NONE) {
      itc_unhold(c);
      c->c_state = CUR_END;
      return BT_END;
    }
    /* Right to left against the latch order: only try (rule L6). */
    buf_t *nb = bp_fix(bp, l, BP_SHARED, BP_NOWAIT | BP_SCAN, e);
    if (!nb) {
      if (e && strcmp(e->er_sqlstate, SQLSTATE_SUCCESSFUL_COMPLETION) != 0)
        return CZ_ERR;
      itc_unhold(c);
      sched_yield();
      return CUR_RESEEK;
    }
    itc_unhold(c);
    c->c_buf = nb;
    c->c_pos = bpg_n(bp_page(nb)) - 1;
  }
  return CZ_OK;
}

/* Finds the place of the bound again: the first entry after it (or at it,
 * c_incl) forward, the last before it (or at it) backward. */
static int itc_seek_once(bt_cursor_t *c, err_t *e)
{
  bt_target_t tg;
  bool eq;
  itc_bound_target(c, &tg);
  c->c_buf = bt_descend(c->c_tree, &tg, BP_SHARED, BP_SCAN, NULL, e);
  if (!c->c_buf)
    return CZ_ERR;
  const uint8_t *pg = bp_page(c->c_buf);
  bool unique = c->c_tree->t_unique;
  if (c->c_dir == BT_FORWARD) {
    c->c_pos = bpg_search_leaf(pg, &tg, unique, 0, !c->c_incl, &eq);
    return itc_right(c, e);
  }
  /* Backward from a key-only bound in a non-unique tree, inclusive: every
   * entry of the key sorts after (key, -inf), so search past them. */
  if (c->c_incl && !unique && !tg.t_inf) {
    tg.t_has_val = false;
    c->c_pos = bpg_search_leaf(pg, &tg, true, 0, true, &eq) - 1;
    if (c->c_pos == bpg_n(pg) - 1 && bpg_chdr(pg)->bh_right != PG_NONE) {
      /* Entries of the key may continue in the next leaves: the descent
       * found the first leaf of the key; walk right to the last one. */
      for (;;) {
        pg_no_t r = bpg_chdr(bp_page(c->c_buf))->bh_right;
        if (r == PG_NONE)
          break;
        buf_t *nb = bp_fix(c->c_tree->t_bp, r, BP_SHARED, BP_SCAN, e);
        if (!nb)
          return CZ_ERR;
        int p = bpg_search_leaf(bp_page(nb), &tg, true, 0, true, &eq) - 1;
        if (p < 0) {
          bp_unfix(c->c_tree->t_bp, nb);
          break;
        }
        itc_unhold(c);
        c->c_buf = nb;
        c->c_pos = p;
        if (p < bpg_n(bp_page(nb)) - 1)
          break;
      }
    }
  } else {
    c->c_pos = bpg_search_leaf(pg, &tg, unique, 0, c->c_incl, &eq) - 1;
  }
  return itc_left(c, e);
}

static int itc_seek_bound(bt_cursor_t *c, err_t *e)
{
  int rc;
  while ((rc = itc_seek_once(c, e)) == CUR_RESEEK)
    ;
  return rc;
}

int bt_seek(bt_cursor_t *c, const void *key, size_t key_len, bt_dir_t dir, err_t *e)
{
  if (c->c_col)
    return btc_cur_seek(c->c_col, key, key_len, dir, e);
  itc_unhold(c);
  c->c_dir = dir;
  c->c_incl = true;
  c->c_val_saved = false;
  c->c_inf = key ? 0 : (dir == BT_FORWARD ? -1 : 1);
  /* No stored key is longer than BT_MAX_KEY, so a longer seek key sorts
   * against every stored key as its first BT_MAX_KEY + 1 bytes do. */
  if (key_len > BT_MAX_KEY + 1)
    key_len = BT_MAX_KEY + 1;
  c->c_klen = key ? (uint32_t)key_len : 0;
  if (key && key_len)
    memcpy(c->c_key, key, key_len);
  c->c_vlen = 0;
  c->c_state = CUR_ACTIVE;
  int rc = itc_seek_bound(c, e);
  if (rc == BT_END)
    return CZ_OK; /* an empty range: bt_next says BT_END */
  return rc;
}

int bt_next(bt_cursor_t *c, const void **key, size_t *key_len,
            const void **val, size_t *val_len, err_t *e)
{
  if (c->c_col)
    return btc_cur_next(c->c_col, key, key_len, val, val_len, e);
  if (c->c_state == CUR_END)
    return BT_END;
  if (c->c_state == CUR_UNSET)
    return err_set(e, SQLSTATE_INTERNAL, "bt_next: cursor not positioned (bt_seek first)");
  int rc;
  if (!c->c_buf)
    rc = itc_seek_bound(c, e);
  else if (c->c_dir == BT_FORWARD)
    rc = itc_right(c, e);
  else if ((rc = itc_left(c, e)) == CUR_RESEEK)
    rc = itc_seek_bound(c, e);
  if (rc != CZ_OK)
    return rc;
  const uint8_t *pg = bp_page(c->c_buf);
  int vl;
  const uint8_t *v = bpg_val(pg, c->c_pos, &vl);
  c->c_klen = (uint32_t)bpg_key_copy(pg, c->c_pos, c->c_key);
  c->c_vlen = (uint32_t)vl;
  c->c_last_val = v;
  c->c_val_saved = false;
  c->c_incl = false;
  c->c_inf = 0;
  *key = c->c_key;
  *key_len = c->c_klen;
  *val = v;
  *val_len = (size_t)vl;
  /* Step past the entry now; leaving the leaf waits for the next call, so
   * the value returned stays valid until then. */
  if (c->c_dir == BT_FORWARD)
    c->c_pos++;
  else
    c->c_pos--;
  return CZ_OK;
}

int bt_next_run(bt_cursor_t *c, int max, bt_run_t *run, err_t *e)
{
  run->br_n = 0;
  if (c->c_col) /* column trees: bt_col_scan_* */
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "bt_next_run: not built for column trees");
  if (c->c_state == CUR_END)
    return BT_END;
  if (c->c_state == CUR_UNSET || c->c_dir != BT_FORWARD)
    return err_set(e, SQLSTATE_INTERNAL, "bt_next_run: cursor not positioned forward");
  int rc = c->c_buf ? itc_right(c, e) : itc_seek_bound(c, e);
  if (rc != CZ_OK)
    return rc;
  const uint8_t *pg = bp_page(c->c_buf);
  int n = bpg_n(pg) - c->c_pos;
  if (max > BT_RUN_MAX)
    max = BT_RUN_MAX;
  if (n > max)
    n = max;
  if (c->c_pos == 0) {
    /* A leaf just entered is usually cold: ask for all of its lines at
     * once (bodies grow down from the page's end) so that the misses
     * overlap instead of stalling the decode one row at a time. */
    for (int off = bpg_chdr(pg)->bh_upper & ~63; off < ST_PAGE_SIZE; off += 64)
      __builtin_prefetch(pg + off);
    /* and the next leaf, which has this whole leaf's decoding to arrive */
    pg_no_t r = bpg_chdr(pg)->bh_right;
    if (r != PG_NONE)
      bp_prefetch_memory(c->c_tree->t_bp, r);
  }
  run->br_prefix = bpg_prefix(pg);
  run->br_plen = bpg_chdr(pg)->bh_plen;
  /* Leaf bodies: u16 suffix length, u16 value length, suffix, value. */
  const uint8_t *slots = bpg_cslots(pg) + 2 * c->c_pos;
  for (int i = 0; i < n; i++) {
    const uint8_t *b = pg + bt_ld16(slots + 2 * i);
    uint16_t sl = bt_ld16(b);
    run->br_slen[i] = sl;
    run->br_vlen[i] = bt_ld16(b + 2);
    run->br_sfx[i] = b + 4;
    run->br_val[i] = b + 4 + sl;
  }
  run->br_n = n;
  return CZ_OK;
}

void bt_run_take(bt_cursor_t *c, const bt_run_t *run, int k)
{
  if (k <= 0)
    return;
  /* The place is known by key: the last entry taken, as bt_next leaves it. */
  c->c_klen = (uint32_t)bt_run_key(run, k - 1, c->c_key);
  c->c_vlen = run->br_vlen[k - 1];
  c->c_last_val = run->br_val[k - 1];
  c->c_val_saved = false;
  c->c_incl = false;
  c->c_inf = 0;
  c->c_pos += k;
}

size_t bt_run_key(const bt_run_t *run, int i, uint8_t *buf)
{
  memcpy(buf, run->br_prefix, run->br_plen);
  memcpy(buf + run->br_plen, run->br_sfx[i], run->br_slen[i]);
  return run->br_plen + (size_t)run->br_slen[i];
}
