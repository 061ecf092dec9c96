/* bt_check.c — verification of every invariant of README.md over a tree.
 *
 * Design notes: a depth-first walk that keeps its path shared-latched
 * (top-down, rule L1), carries each page's key range down from the
 * separators above it, and remembers per level the last page seen, so the
 * sibling chain is checked against the order the walk meets the pages in.
 * The first violation ends the walk with XX001 naming the page.
 */
#include <stdio.h>

#include "btree/bt_col_int.h"

typedef struct chk_s {
  bt_tree_t *ck_tree;
  bt_check_t *ck_out;
  int ck_height;                       /* root level + 1 */
  pg_no_t ck_prev[BT_MAX_HEIGHT];      /* last page met at each level */
  pg_no_t ck_prev_right[BT_MAX_HEIGHT];/* its right link */
} chk_t;

static int chk_fail(chk_t *c, err_t *e, pg_no_t pg, const char *fmt, ...) CZ_PRINTF(4, 5);

static int chk_fail(chk_t *c, err_t *e, pg_no_t pg, const char *fmt, ...)
{
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "bt_check: tree %u, page %u: %s",
                 (unsigned)c->ck_tree->t_root, (unsigned)pg, msg);
}

/* Slots, bodies and free space add up; no body leaves the page. */
static int chk_layout(chk_t *c, const uint8_t *pg, pg_no_t no, err_t *e)
{
  const bt_phdr_t *h = bpg_chdr(pg);
  int n = h->bh_n;
  int want = (c->ck_tree->t_flags & BT_COLUMN) && bpg_is_leaf(pg) ? BT_LAYOUT_COL : BT_LAYOUT_ROW;
  if (h->bh_layout != want)
    return chk_fail(c, e, no, "layout %d, expected %d", h->bh_layout, want);
  if (h->bh_plen > BT_MAX_KEY || (n == 0 && h->bh_plen != 0))
    return chk_fail(c, e, no, "prefix length %d with %d entries", h->bh_plen, n);
  if (bpg_lower(pg) > h->bh_upper || h->bh_upper > ST_PAGE_SIZE)
    return chk_fail(c, e, no, "slot array end %d beyond body start %d", bpg_lower(pg), h->bh_upper);
  int bodies = 0;
  for (int i = 0; i < n; i++) {
    int off = bt_ld16(bpg_cslots(pg) + 2 * i);
    int min_body = bpg_is_leaf(pg) ? BT_LEAF_BODY : BT_INNER_BODY;
    if (off < h->bh_upper || off + min_body > ST_PAGE_SIZE)
      return chk_fail(c, e, no, "slot %d offset %d outside [%d, %d)", i, off, h->bh_upper, ST_PAGE_SIZE);
    int sz = bpg_ent_size(pg, i) - 2;
    if (off + sz > ST_PAGE_SIZE)
      return chk_fail(c, e, no, "slot %d body of %d bytes runs past the page", i, sz);
    int vl;
    bpg_val(pg, i, &vl);
    if (bpg_is_leaf(pg) ? vl == BT_NOVAL : (vl != BT_NOVAL && c->ck_tree->t_unique))
      return chk_fail(c, e, no, "slot %d value length %d", i, vl);
    bodies += sz;
  }
  if (bodies + h->bh_frag != ST_PAGE_SIZE - h->bh_upper)
    return chk_fail(c, e, no, "bodies %d + fragments %d != body area %d", bodies, h->bh_frag,
                    ST_PAGE_SIZE - h->bh_upper);
  return CZ_OK;
}

/* Entry i of a page as a target (separators: value part or -inf). */
static void ent_target(const uint8_t *pg, int i, bool unique, uint8_t *kbuf, bt_target_t *t)
{
  int kl = bpg_key_copy(pg, i, kbuf), vl;
  const uint8_t *v = bpg_val(pg, i, &vl);
  bt_target_key(t, kbuf, (size_t)kl);
  if (bpg_is_leaf(pg) ? !unique : vl != BT_NOVAL) {
    t->t_val = v;
    t->t_vlen = (uint32_t)vl;
    t->t_has_val = true;
  }
}

/* Full order of two targets; no value is -inf. */
static int target_cmp(const bt_target_t *a, const bt_target_t *b)
{
  int c = bt_keycmp(a->t_key, a->t_klen, b->t_key, b->t_klen);
  if (c || (!a->t_has_val && !b->t_has_val))
    return c;
  if (!a->t_has_val || !b->t_has_val)
    return a->t_has_val ? 1 : -1;
  return bt_keycmp(a->t_val, a->t_vlen, b->t_val, b->t_vlen);
}

/* Entries strictly ascending and inside [lo, hi). */
static int chk_order(chk_t *c, const uint8_t *pg, pg_no_t no, const bt_bound_t *lo,
                     const bt_bound_t *hi, err_t *e)
{
  uint8_t kbuf[2][BT_MAX_ROW];
  bt_target_t tg[2];
  int n = bpg_n(pg);
  bool unique = c->ck_tree->t_unique;
  for (int i = 0; i < n; i++) {
    bt_target_t *cur = &tg[i & 1], *prev = &tg[(i + 1) & 1];
    ent_target(pg, i, unique, kbuf[i & 1], cur);
    if (!bt_below_bound(hi, cur))
      return chk_fail(c, e, no, "entry %d not below the upper bound from the parent", i);
    if (lo && bt_below_bound(lo, cur))
      return chk_fail(c, e, no, "entry %d below the lower bound from the parent", i);
    if (i > 0 && target_cmp(prev, cur) >= 0)
      return chk_fail(c, e, no, "entry %d does not sort after entry %d", i, i - 1);
  }
  return CZ_OK;
}

static int chk_page(chk_t *c, pg_no_t no, int level, const bt_bound_t *lo, const bt_bound_t *hi, err_t *e)
{
  bt_tree_t *t = c->ck_tree;
  buf_t *b = bp_fix(t->t_bp, no, BP_SHARED, 0, e);
  if (!b)
    return err_prefix(e, "bt_check: tree %u, page %u", (unsigned)t->t_root, (unsigned)no);
  const uint8_t *pg = bp_page(b);
  const pg_head_t *ph = (const pg_head_t *)pg;
  const bt_phdr_t *h = bpg_chdr(pg);
  int rc = CZ_OK;
  bool root = no == t->t_root;
  if (root) {
    level = h->bh_level;
    c->ck_height = level + 1;
    if (level >= BT_MAX_HEIGHT)
      rc = chk_fail(c, e, no, "root level %d", level);
    else if (h->bh_tree_flags != t->t_flags)
      rc = chk_fail(c, e, no, "root flags %u, handle has %u", h->bh_tree_flags, t->t_flags);
  }
  if (rc == CZ_OK && ph->ph_type != (h->bh_level == 0 ? PG_T_BTREE_LEAF : PG_T_BTREE_INNER))
    rc = chk_fail(c, e, no, "page type %u at level %d", ph->ph_type, h->bh_level);
  if (rc == CZ_OK && ph->ph_owner != t->t_root)
    rc = chk_fail(c, e, no, "owner %llu", (unsigned long long)ph->ph_owner);
  if (rc == CZ_OK && h->bh_level != level)
    rc = chk_fail(c, e, no, "level %d, expected %d (leaves at different depths)", h->bh_level, level);
  if (rc == CZ_OK && !root && h->bh_level == 0 && h->bh_n == 0)
    rc = chk_fail(c, e, no, "empty non-root leaf");
  if (rc == CZ_OK)
    rc = chk_layout(c, pg, no, e);
  if (rc == CZ_OK)
    rc = chk_order(c, pg, no, lo, hi, e);
  if (rc == CZ_OK && h->bh_left != c->ck_prev[level])
    rc = chk_fail(c, e, no, "left link %u, the page before it at level %d is %u", h->bh_left, level,
                  c->ck_prev[level]);
  if (rc == CZ_OK && c->ck_prev[level] != PG_NONE && c->ck_prev_right[level] != no)
    rc = chk_fail(c, e, c->ck_prev[level], "right link %u, the next page at level %d is %u",
                  c->ck_prev_right[level], level, no);
  if (rc != CZ_OK) {
    bp_unfix(t->t_bp, b);
    return rc;
  }
  c->ck_prev[level] = no;
  c->ck_prev_right[level] = h->bh_right;
  if (level == 0) {
    c->ck_out->bc_leaves++;
    c->ck_out->bc_entries += h->bh_n;
    c->ck_out->bc_bytes_used += (uint64_t)bpg_used(pg);
  } else {
    bt_bound_t clo, chi;
    c->ck_out->bc_inner++;
    for (int i = 0; i <= h->bh_n && rc == CZ_OK; i++) {
      if (i > 0)
        bt_bound_from_sep(&clo, pg, i - 1);
      if (i < h->bh_n)
        bt_bound_from_sep(&chi, pg, i);
      rc = chk_page(c, bpg_child(pg, i), level - 1, i > 0 ? &clo : lo, i < h->bh_n ? &chi : hi, e);
    }
  }
  bp_unfix(t->t_bp, b);
  return rc;
}

int bt_check(bt_tree_t *t, bt_check_t *out, err_t *e)
{
  if (t->t_column) /* README "Column leaves" */
    return btc_check(t, out, e);
  chk_t c;
  bt_check_t local;
  bt_bound_t top;
  memset(&c, 0, sizeof c);
  c.ck_tree = t;
  c.ck_out = out ? out : &local;
  memset(c.ck_out, 0, sizeof *c.ck_out);
  top.bd_inf = true;
  int rc = chk_page(&c, t->t_root, 0, NULL, &top, e);
  if (rc != CZ_OK)
    return rc;
  for (int l = 0; l < c.ck_height; l++)
    if (c.ck_prev_right[l] != PG_NONE)
      return chk_fail(&c, e, c.ck_prev[l], "last page of level %d has right link %u", l, c.ck_prev_right[l]);
  c.ck_out->bc_height = c.ck_height;
  /* Invariant 10: the size storage reports is the pages reached (a
   * column tree's segment tree: with its run pages, btc_check). */
  uint64_t reached = c.ck_out->bc_leaves + c.ck_out->bc_inner, owned = bt_pages(t);
  if (!(t->t_flags & BT_COLUMN) && owned != reached)
    return chk_fail(&c, e, t->t_root, "the tree owns %llu pages, %llu are reached from the root",
                    (unsigned long long)owned, (unsigned long long)reached);
  return CZ_OK;
}
