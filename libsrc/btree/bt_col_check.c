/* bt_col_check.c — bt_check for column trees: the B-tree invariants over
 * the segment entries, then the column-leaf invariants C-I1..C-I4 of
 * README.md over every segment.
 *
 * Design notes: the structure is checked by the row-layout check on the
 * segment-entry view (it expects COL leaves and ROW inner pages from the
 * tree's flags). Segments are then read in key order through a cursor on
 * that view, each run loaded while the cursor holds its leaf (rule C3), so
 * the check may run beside writers, though only a quiet tree gives exact
 * counts. Every run is decoded whole, so a damaged codec body is found too.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "btree/bt_col_int.h"

static int seg_fail(bt_tree_t *t, err_t *e, uint64_t seg, const char *fmt, ...) CZ_PRINTF(4, 5);

static int seg_fail(bt_tree_t *t, err_t *e, uint64_t seg, const char *fmt, ...)
{
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "bt_check: column tree %u, segment %llu: %s", (unsigned)t->t_root,
                 (unsigned long long)seg, msg);
}

/* One segment: runs, their headers, decoded keys. Sets *last to its last
 * key (in keep). */
static int check_seg(bt_tree_t *t, uint64_t segno, const uint8_t *ek, size_t eklen, const uint8_t *dv, size_t dl,
                     bool first, const uint8_t *prev, uint32_t prev_len, arena_t *a, uint8_t *keep,
                     uint32_t *keep_len, bt_check_t *out, err_t *e)
{
  btc_desc_t d;
  if (btc_desc_parse(dv, dl, &d, e) != CZ_OK)
    return err_prefix(e, "bt_check: column tree %u, segment %llu", (unsigned)t->t_root, (unsigned long long)segno);
  vec_t keys;
  memset(&keys, 0, sizeof keys);
  for (int c = 0; c < d.sd_ncols; c++) {
    uint8_t *buf;
    ce_info_t ci;
    if (btc_run_load(t, &d.sd_ref[c], a, &buf, &out->bc_run_pages, e) != CZ_OK ||
        ce_info(buf, d.sd_ref[c].cr_len, &ci, e) != CZ_OK)
      return err_prefix(e, "bt_check: column tree %u, segment %llu, column %d", (unsigned)t->t_root,
                        (unsigned long long)segno, c);
    if (ci.ci_n != d.sd_rows || ci.ci_phys != d.sd_ref[c].cr_kind || ci.ci_len != d.sd_ref[c].cr_len)
      return seg_fail(t, e, segno, "column %d's run holds %u rows of kind %d in %zu bytes, the segment says %u of %d in %u",
                      c, ci.ci_n, (int)ci.ci_phys, ci.ci_len, d.sd_rows, (int)d.sd_ref[c].cr_kind,
                      d.sd_ref[c].cr_len);
    if (c == 0 && ci.ci_nnull != 0)
      return seg_fail(t, e, segno, "%u NULL keys", ci.ci_nnull);
    vec_t v;
    if (vec_init(&v, a, btc_kind_type(d.sd_ref[c].cr_kind), (int)d.sd_rows, e) != CZ_OK ||
        ce_decode(buf, d.sd_ref[c].cr_len, &v, 0, a, e) != CZ_OK)
      return err_prefix(e, "bt_check: column tree %u, segment %llu, column %d", (unsigned)t->t_root,
                        (unsigned long long)segno, c);
    if (c == 0)
      keys = v;
  }
  for (uint32_t r = 0; r < d.sd_rows; r++) {
    const uint8_t *k = (const uint8_t *)keys.v_str[r].s_ptr;
    uint32_t kl = keys.v_str[r].s_len;
    if (kl > BT_MAX_KEY)
      return seg_fail(t, e, segno, "row %u: key of %u bytes", r, kl);
    if (r > 0 && bt_keycmp((const uint8_t *)keys.v_str[r - 1].s_ptr, keys.v_str[r - 1].s_len, k, kl) >= 0)
      return seg_fail(t, e, segno, "row %u: keys not strictly ascending", r);
  }
  const str_t *k0 = &keys.v_str[0], *kn = &keys.v_str[d.sd_rows - 1];
  if (!first && bt_keycmp((const uint8_t *)k0->s_ptr, k0->s_len, ek, eklen) < 0)
    return seg_fail(t, e, segno, "first row below the segment entry's key");
  if (prev && bt_keycmp(prev, prev_len, (const uint8_t *)k0->s_ptr, k0->s_len) >= 0)
    return seg_fail(t, e, segno, "first row not above the previous segment's last");
  if (prev && bt_keycmp(prev, prev_len, ek, eklen) >= 0)
    return seg_fail(t, e, segno, "previous segment's last row not below this entry's key");
  if (kn->s_len)
    memcpy(keep, kn->s_ptr, kn->s_len);
  *keep_len = kn->s_len;
  out->bc_entries += d.sd_rows;
  out->bc_segments++;
  return CZ_OK;
}

int btc_check(bt_tree_t *t, bt_check_t *out, err_t *e)
{
  bt_check_t local;
  if (!out)
    out = &local;
  if (bt_check(t->t_seg, out, e) != CZ_OK)
    return CZ_ERR;
  out->bc_entries = 0;
  out->bc_segments = 0;
  out->bc_run_pages = 0;
  arena_t *a = arena_create(NULL, "btc_check");
  uint8_t *prev = a ? arena_try_alloc(a, 2 * BT_MAX_KEY) : NULL;
  bt_cursor_t *c = NULL;
  if (!prev) {
    if (a)
      arena_destroy(a);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "bt_check: column tree");
  }
  uint8_t *cur = prev + BT_MAX_KEY;
  uint32_t prev_len = 0, cur_len = 0;
  bool have_prev = false;
  arena_t *sa = arena_create(a, "btc_check_seg");
  int rc = sa ? bt_cursor_open(t->t_seg, &c, e) : err_set(e, SQLSTATE_OUT_OF_MEMORY, "bt_check");
  if (rc == CZ_OK)
    rc = bt_seek(c, NULL, 0, BT_FORWARD, e);
  for (uint64_t segno = 0; rc == CZ_OK; segno++) {
    const void *k, *v;
    size_t kl, vl;
    rc = bt_next(c, &k, &kl, &v, &vl, e);
    if (rc != CZ_OK)
      break;
    arena_reset(sa);
    rc = check_seg(t, segno, k, kl, v, vl, segno == 0, have_prev ? prev : NULL, prev_len, sa, cur, &cur_len,
                   out, e);
    uint8_t *x = prev;
    prev = cur;
    cur = x;
    prev_len = cur_len;
    have_prev = true;
  }
  if (c)
    bt_cursor_close(c);
  arena_destroy(a);
  if (rc != BT_END)
    return CZ_ERR;
  /* invariant 10 (README "Size accounting"): the segment tree's pages and
   * the run pages are every page the tree owns */
  uint64_t reached = out->bc_leaves + out->bc_inner + out->bc_run_pages, owned = bt_pages(t);
  if (owned != reached)
    return err_set(e, SQLSTATE_DATA_CORRUPTED,
                   "bt_check: column tree %u owns %llu pages, %llu are reached from the root",
                   (unsigned)t->t_root, (unsigned long long)owned, (unsigned long long)reached);
  return CZ_OK;
}
