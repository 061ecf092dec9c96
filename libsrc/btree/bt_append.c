/* bt_append.c — batch insert of sorted rows, with the loader's fast path.
 *
 * Design notes: when the rows sort after the tree's last entry, the batch
 * latches the right spine (root to rightmost leaf) exclusively once, fills
 * the rightmost leaf to the brim, allocates the next leaf next to it
 * (bp_fix_new with near = the previous leaf, so a scan reads leaves in
 * physical order) and appends the separator to the parent, which in turn
 * fills up and grows a new right sibling; pages are written whole, never
 * split, so the tree ends up full and bulk-loaded. Other rows go one by
 * one, keeping the exclusively latched leaf while the next row still falls
 * under its upper bound (rows are sorted), and switching to the fast path
 * as soon as a row falls after the tree's last entry.
 */
#include "btree/bt_col_int.h"

/* Rows in batch order: <0 when a sorts before b, 0 when they are the same
 * entry of the tree (same key in a unique tree). */
static int row_cmp(const bt_tree_t *t, const bt_row_t *a, const bt_row_t *b)
{
  int c = bt_keycmp(a->r_key, a->r_key_len, b->r_key, b->r_key_len);
  if (c || t->t_unique)
    return c;
  return bt_keycmp(a->r_val, a->r_val_len, b->r_val, b->r_val_len);
}

static void row_target(const bt_tree_t *t, const bt_row_t *r, bt_target_t *tg)
{
  bt_target_entry(tg, t, r->r_key, r->r_key_len, r->r_val, r->r_val_len);
}

static bpg_ent_t row_ent(const bt_row_t *r)
{
  return bpg_ent_make(r->r_key, r->r_key_len, r->r_val, r->r_val_len, PG_NONE);
}

/* Appends a separator at the end of the page at path index lv, growing a
 * new right sibling (and the root) when the page is full. */
static int append_sep(bt_tree_t *t, bt_path_t *p, int lv, const bpg_ent_t *ent, err_t *e)
{
  buf_t *xb = p->pa_buf[lv];
  if (bpg_insert(bp_page(xb), bpg_n(bp_page(xb)), ent)) {
    bp_set_dirty(t->t_bp, xb);
    return CZ_OK;
  }
  if (lv == 0) {
    if (bt_root_grow(t, p, e) != CZ_OK)
      return CZ_ERR;
    lv = 1;
    xb = p->pa_buf[1];
  }
  uint8_t *xpg = bp_page(xb);
  buf_t *nb = bt_new_page(t, bpg_level(xpg), bp_page_no(xb), e);
  if (!nb)
    return CZ_ERR;
  bt_phdr_t *nh = bpg_hdr(bp_page(nb));
  nh->bh_leftmost = ent->be_child;
  nh->bh_left = bp_page_no(xb);
  bpg_hdr(xpg)->bh_right = bp_page_no(nb);
  bp_set_dirty(t->t_bp, xb);
  bp_unfix(t->t_bp, xb);
  p->pa_buf[lv] = nb;
  bpg_ent_t up = *ent;
  up.be_child = bp_page_no(nb);
  return append_sep(t, p, lv - 1, &up, e);
}

/* How many of rows[0..n) fit in the leaf after its entries. */
static int fill_count(const uint8_t *pg, const bt_row_t *rows, int n)
{
  int ne = bpg_n(pg);
  bpg_ent_t first = ne ? bpg_ent_at(pg, 0) : row_ent(&rows[0]);
  uint32_t p = bpg_ent_klen(&first);
  int64_t s = 0, cnt = ne;
  if (ne) {
    bpg_ent_t last = bpg_ent_at(pg, ne - 1);
    uint32_t i = 0;
    while (i < p && i < bpg_ent_klen(&last) && bpg_ent_kbyte(&first, i) == bpg_ent_kbyte(&last, i))
      i++;
    p = i;
    /* Slots and bodies with whole keys: each entry gives its prefix back. */
    s = bpg_used(pg) - bpg_chdr(pg)->bh_plen + (int64_t)ne * bpg_chdr(pg)->bh_plen;
  }
  int m = 0;
  for (; m < n; m++) {
    const bt_row_t *r = &rows[m];
    uint32_t i = 0, lim = CZ_MIN(p, r->r_key_len);
    const uint8_t *k = r->r_key;
    while (i < lim && bpg_ent_kbyte(&first, i) == k[i])
      i++;
    int64_t s2 = s + 2 + BT_LEAF_BODY + r->r_key_len + r->r_val_len;
    if ((int64_t)i + s2 - (cnt + 1) * (int64_t)i > BT_AREA)
      break;
    p = i;
    s = s2;
    cnt++;
  }
  return m;
}

/* Rewrites the leaf with its entries followed by rows[0..m). */
static void fill_leaf(uint8_t *pg, const bt_row_t *rows, int m)
{
  _Alignas(8) uint8_t scratch[ST_PAGE_SIZE];
  bpg_ent_t ents[BPG_MAX_ENTS];
  int ne = bpg_n(pg);
  if (ne) {
    memcpy(scratch, pg, ST_PAGE_SIZE);
    bpg_ents(scratch, ents);
  }
  for (int i = 0; i < m; i++)
    ents[ne + i] = row_ent(&rows[i]);
  bpg_build(pg, ents, ne + m);
}

/* The loader's path: returns in *done how many rows were appended (0 when
 * rows[0] does not sort after the tree's last entry). */
static int append_rows(bt_tree_t *t, const bt_row_t *rows, int n, int *done, err_t *e)
{
  bt_path_t p;
  bt_target_t tg;
  int rc = CZ_OK;
  *done = 0;
  if (bt_descend_excl(t, NULL, NULL, NULL, &p, e) != CZ_OK)
    return CZ_ERR;
  buf_t *b = p.pa_buf[p.pa_n - 1];
  const uint8_t *lpg = bp_page(b);
  row_target(t, &rows[0], &tg);
  if (bpg_n(lpg) > 0 && bpg_cmp_leaf(lpg, bpg_n(lpg) - 1, &tg, t->t_unique) <= 0) {
    bt_path_release(t, &p);
    return CZ_OK;
  }
  int j = 0;
  while (j < n) {
    buf_t *lb = p.pa_buf[p.pa_n - 1];
    uint8_t *pg = bp_page(lb);
    int m = fill_count(pg, rows + j, n - j);
    if (m > 0) {
      fill_leaf(pg, rows + j, m);
      bp_set_dirty(t->t_bp, lb);
      j += m;
      continue;
    }
    /* The leaf is full: the next one goes right of it. */
    if (p.pa_n == 1) {
      if ((rc = bt_root_grow(t, &p, e)) != CZ_OK)
        break;
      lb = p.pa_buf[1];
      pg = bp_page(lb);
    }
    uint8_t sep[BT_MAX_ROW];
    uint32_t sk, sv;
    bpg_ent_t l = bpg_ent_at(pg, bpg_n(pg) - 1), r = row_ent(&rows[j]);
    bpg_sep_make(&l, &r, t->t_unique, sep, &sk, &sv);
    buf_t *nb = bt_new_page(t, 0, bp_page_no(lb), e);
    if (!nb) {
      rc = CZ_ERR;
      break;
    }
    bpg_hdr(bp_page(nb))->bh_left = bp_page_no(lb);
    bpg_hdr(pg)->bh_right = bp_page_no(nb);
    bp_set_dirty(t->t_bp, lb);
    bp_unfix(t->t_bp, lb);
    p.pa_buf[p.pa_n - 1] = nb;
    bpg_ent_t up = bpg_ent_make(sep, sk, sep + sk, sv, bp_page_no(nb));
    if ((rc = append_sep(t, &p, p.pa_n - 2, &up, e)) != CZ_OK)
      break;
  }
  bt_path_release(t, &p);
  *done = j;
  return rc;
}

/* Does the next row go right after the one to be inserted at pos, in the
 * same leaf (below its bound hi and before the entry now at pos)? Then
 * the leaf's split is inside a run (bt_split.c). */
static bool next_in_run(const bt_tree_t *t, const uint8_t *pg, int pos, const bt_bound_t *hi,
                        const bt_row_t *next)
{
  bt_target_t tg;
  row_target(t, next, &tg);
  if (!bt_below_bound(hi, &tg))
    return false;
  return pos == bpg_n(pg) || bpg_cmp_leaf(pg, pos, &tg, t->t_unique) < 0;
}

/* Row by row, keeping the leaf while rows fall under its bound; stops
 * (*done rows inserted, at least one) before a row that goes after the
 * tree's last entry. */
static int insert_rows(bt_tree_t *t, const bt_row_t *rows, int n, int *done, err_t *e)
{
  bt_bound_t hi;
  bt_target_t tg;
  buf_t *lb = NULL;
  bool eq;
  int rc = CZ_OK, j;
  for (j = 0; j < n; j++) {
    const bt_row_t *r = &rows[j];
    row_target(t, r, &tg);
    bpg_ent_t ent = row_ent(r);
    if (lb && !bt_below_bound(&hi, &tg)) {
      bp_unfix(t->t_bp, lb);
      lb = NULL;
    }
    if (!lb && !(lb = bt_descend(t, &tg, BP_EXCL, 0, &hi, e))) {
      rc = CZ_ERR;
      break;
    }
    uint8_t *pg = bp_page(lb);
    int pos = bpg_search_leaf(pg, &tg, t->t_unique, 0, false, &eq);
    if (eq) {
      rc = err_set(e, SQLSTATE_UNIQUE_VIOLATION, "btree %u: duplicate key (batch row %d)", (unsigned)t->t_root, j);
      break;
    }
    if (j > 0 && hi.bd_inf && pos == bpg_n(pg))
      break; /* after the last entry: the fast path takes the rest */
    if (bpg_insert(pg, pos, &ent)) {
      bp_set_dirty(t->t_bp, lb);
      continue;
    }
    bool run = j + 1 < n && next_in_run(t, pg, pos, &hi, &rows[j + 1]);
    bp_unfix(t->t_bp, lb);
    lb = NULL;
    if ((rc = bt_insert_pessimistic(t, &tg, &ent, run, false, NULL, 0, NULL, e)) != CZ_OK)
      break;
  }
  if (lb)
    bp_unfix(t->t_bp, lb);
  *done = j;
  return rc;
}

int bt_insert_batch(bt_tree_t *t, const bt_row_t *rows, int n, int *n_done, err_t *e)
{
  if (t->t_column) /* README "Column leaves" */
    return btc_insert_batch(t, rows, n, n_done, e);
  int valid = n, rc = CZ_OK, done = 0, order = -1;
  /* Check the whole batch first: the fast path relies on the order. The
   * rows before a bad one are inserted, as for a unique violation. */
  for (int i = 0; i < n && valid == n; i++) {
    order = i > 0 ? row_cmp(t, &rows[i - 1], &rows[i]) : -1;
    if (order >= 0 || rows[i].r_key_len > BT_MAX_KEY || rows[i].r_key_len + rows[i].r_val_len > BT_MAX_ROW)
      valid = i;
  }
  while (done < valid) {
    int k;
    if ((rc = append_rows(t, rows + done, valid - done, &k, e)) != CZ_OK) {
      done += k;
      break;
    }
    done += k;
    if (done == valid)
      break;
    rc = insert_rows(t, rows + done, valid - done, &k, e);
    done += k;
    if (rc != CZ_OK)
      break;
  }
  if (n_done)
    *n_done = done;
  if (rc != CZ_OK || valid == n)
    return rc;
  if (order == 0)
    return err_set(e, SQLSTATE_UNIQUE_VIOLATION, "btree %u: duplicate key (batch row %d)", (unsigned)t->t_root, valid);
  if (order > 0)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "bt_insert_batch: row %d sorts before row %d", valid, valid - 1);
  return bt_check_limits(rows[valid].r_key_len, rows[valid].r_val_len, e);
}
