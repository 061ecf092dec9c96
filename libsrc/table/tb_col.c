/* tb_col — the values of a column table's primary tree.
 *
 * Design notes (table/README.md, "Column tables"):
 * - A table created WITH (layout = column) keeps its primary tree as a
 *   column tree (btree/README.md "Column leaves"): the tree's values are
 *   column rows (bt_crow_*), one typed value per table column, which the
 *   tree transposes into compressed runs per column. Keys are the same
 *   order-preserving primary keys as the row layout's.
 * - Writes encode the row's datums as a column row (tb_row_store calls
 *   tb_col_encode): long strings go to the table's long-values tree by
 *   the row layout's rule (tb_long.c) and the column row holds a
 *   reference in their place, so a column table's entry is bounded by
 *   BT_MAX_ROW as a row table's is, with the same value limits.
 * - References and escapes ("marks") are strings in the column runs: a
 *   stored string starting with TB_COL_MARK is either a reference
 *   (TB_COL_MARK 0x00, the value id and length, 8 bytes little-endian
 *   each) or an escaped value (TB_COL_MARK then the value, which itself
 *   starts with TB_COL_MARK: only BYTEA can, UTF-8 text never holds the
 *   byte 0xFF). A string column that can never hold a mark
 *   (tb_col_markable) reads its runs as its values.
 * - The per-row paths written for the row format (locking, rechecks,
 *   lookups, fetches, rebuilds, locators) read a column row transcoded
 *   into the row format (tb_col_row): one parse and one encode per row
 *   read that way. Scans take the vectored path instead (tb_col_scan.c).
 * - A locator's version hash is the hash of that row-format transcoding,
 *   which depends only on the values: the same for a row read by a scan
 *   (values decoded from runs) and by a lock (a column row rebuilt from
 *   the segment).
 */
#include <string.h>

#include "table/tb_int.h"

bool tb_is_column(const cat_table_t *t)
{
  return t->ct_layout == CAT_LAYOUT_COLUMN;
}

static void tb_col_kinds(const cat_table_t *t, ty_phys_t *kinds)
{
  for (int i = 0; i < t->ct_ncols; i++)
    kinds[i] = ty_phys(t->ct_types[i].t_id);
}

bool tb_col_markable(const ty_t *type)
{
  if (ty_phys(type->t_id) != TP_STR)
    return false;
  /* CHAR(n)/VARCHAR(n) of under TB_LONG_MIN bytes (4 per character at
   * most) never go out of line, and text never starts with 0xFF */
  return type->t_id == TY_BYTEA || type->t_len < 0 || (size_t)type->t_len * 4 >= TB_LONG_MIN;
}

static bool tb_col_needs_escape(const datum_t *d)
{
  return !d->d_null && d->d_str.s_len > 0 && (uint8_t)d->d_str.s_ptr[0] == TB_COL_MARK;
}

size_t tb_col_size(const cat_table_t *t, const datum_t *vals, const tb_ref_t *refs)
{
  ty_phys_t kinds[CAT_MAX_COLUMNS + 1];
  tb_col_kinds(t, kinds);
  size_t need = bt_crow_size(kinds, vals, t->ct_ncols);
  if (need == 0)
    return 0;
  for (int i = 0; i < t->ct_ncols; i++) {
    if (kinds[i] != TP_STR || vals[i].d_null)
      continue;
    if (refs && refs[i].lr_on)
      need = need - vals[i].d_str.s_len + TB_COL_REF_LEN;
    else if (tb_col_needs_escape(&vals[i]))
      need++;
  }
  return need;
}

int tb_col_encode(const cat_table_t *t, const datum_t *vals, const tb_ref_t *refs, uint8_t *out,
                  size_t cap, size_t *len, err_t *e)
{
  ty_phys_t kinds[CAT_MAX_COLUMNS + 1];
  tb_col_kinds(t, kinds);
  size_t need = tb_col_size(t, vals, refs);
  if (need == 0)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "a column of %s has no column form",
                   t->ct_name);
  if (need > cap)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "row is too big: size %zu, maximum size %zu", need,
                   cap);
  int n = t->ct_ncols;
  bool marks = false;
  for (int i = 0; i < n && !marks; i++)
    marks = kinds[i] == TP_STR && !vals[i].d_null &&
            ((refs && refs[i].lr_on) || tb_col_needs_escape(&vals[i]));
  if (!marks)
    return bt_crow_build(kinds, vals, n, out, cap, len, e);
  /* References and escapes: the marked strings in a scratch arena (rare:
   * long values, BYTEA values starting with the mark byte) */
  arena_t *a = arena_create(NULL, "tb_col_encode");
  datum_t *mv = arena_alloc(a, sizeof(datum_t) * (size_t)(n ? n : 1));
  memcpy(mv, vals, sizeof(datum_t) * (size_t)n);
  for (int i = 0; i < n; i++) {
    if (kinds[i] != TP_STR || vals[i].d_null)
      continue;
    if (refs && refs[i].lr_on) {
      uint8_t *m = arena_alloc(a, TB_COL_REF_LEN);
      m[0] = TB_COL_MARK;
      m[1] = 0;
      for (int b = 0; b < 8; b++) {
        m[2 + b] = (uint8_t)(refs[i].lr_id >> (8 * b));
        m[10 + b] = (uint8_t)(refs[i].lr_len >> (8 * b));
      }
      mv[i].d_str.s_ptr = (const char *)m;
      mv[i].d_str.s_len = TB_COL_REF_LEN;
    } else if (tb_col_needs_escape(&vals[i])) {
      char *m = arena_alloc(a, (size_t)vals[i].d_str.s_len + 1);
      m[0] = (char)TB_COL_MARK;
      memcpy(m + 1, vals[i].d_str.s_ptr, vals[i].d_str.s_len);
      mv[i].d_str.s_ptr = m;
      mv[i].d_str.s_len = vals[i].d_str.s_len + 1;
    }
  }
  int rc = bt_crow_build(kinds, mv, n, out, cap, len, e);
  arena_destroy(a);
  return rc;
}

int tb_col_unmark(const cat_table_t *t, str_t *s, tb_ref_t *ref, err_t *e)
{
  ref->lr_on = false;
  if (s->s_len == 0 || (uint8_t)s->s_ptr[0] != TB_COL_MARK)
    return CZ_OK;
  const uint8_t *p = (const uint8_t *)s->s_ptr;
  if (s->s_len >= 2 && p[1] == TB_COL_MARK) {
    s->s_ptr++;
    s->s_len--;
    return CZ_OK;
  }
  if (s->s_len != TB_COL_REF_LEN || p[1] != 0)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "a string of %s has a malformed mark", t->ct_name);
  ref->lr_on = true;
  ref->lr_id = 0;
  ref->lr_len = 0;
  for (int b = 7; b >= 0; b--) {
    ref->lr_id = ref->lr_id << 8 | p[2 + b];
    ref->lr_len = ref->lr_len << 8 | p[10 + b];
  }
  s->s_len = 0;
  return CZ_OK;
}

int tb_col_decode(const cat_table_t *t, const void *crow, size_t len, datum_t *vals,
                  tb_ref_t *refs, err_t *e)
{
  ty_phys_t kinds[CAT_MAX_COLUMNS + 1];
  int n = 0;
  if (bt_crow_parse(crow, len, t->ct_ncols, kinds, vals, &n, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < n; i++)
    if (!vals[i].d_null && kinds[i] != ty_phys(t->ct_types[i].t_id))
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column %d of a row of %s has the wrong kind", i,
                     t->ct_name);
  for (int i = 0; i < t->ct_ncols; i++) {
    refs[i].lr_on = false;
    if (i < n && kinds[i] == TP_STR && !vals[i].d_null &&
        tb_col_unmark(t, &vals[i].d_str, &refs[i], e) != CZ_OK)
      return CZ_ERR;
  }
  /* columns added after the row was written */
  for (int i = n; i < t->ct_ncols; i++) {
    memset(&vals[i], 0, sizeof vals[i]);
    vals[i].d_null = true;
  }
  return CZ_OK;
}

int tb_col_row(const cat_table_t *t, const void *crow, size_t len, arena_t *a, const void **row,
               size_t *row_len, err_t *e)
{
  datum_t stack[64];
  tb_ref_t stack_refs[64];
  datum_t *vals = t->ct_ncols > 64 ? arena_alloc(a, sizeof(datum_t) * (size_t)t->ct_ncols) : stack;
  tb_ref_t *refs =
      t->ct_ncols > 64 ? arena_alloc(a, sizeof(tb_ref_t) * (size_t)t->ct_ncols) : stack_refs;
  if (tb_col_decode(t, crow, len, vals, refs, e) != CZ_OK)
    return CZ_ERR;
  /* references stay references in the row format (tb_row.c), so the
   * per-row paths fetch, keep and delete long values as for row tables */
  size_t need;
  err_t scratch;
  uint8_t none[1];
  tb_row_encode_refs(t->ct_types, t->ct_ncols, vals, refs, none, 0, &need, &scratch);
  uint8_t *buf = arena_alloc(a, need ? need : 1);
  if (tb_row_encode_refs(t->ct_types, t->ct_ncols, vals, refs, buf, need, row_len, e) != CZ_OK)
    return CZ_ERR;
  *row = buf;
  return CZ_OK;
}

int tb_col_row_inplace(const cat_table_t *t, uint8_t *buf, size_t cap, size_t *len, err_t *e)
{
  arena_t *a = arena_create(NULL, "tb_col_row_inplace");
  const void *row;
  size_t rl;
  int rc = tb_col_row(t, buf, *len, a, &row, &rl, e);
  if (rc == CZ_OK && rl > cap)
    rc = err_set(e, SQLSTATE_PROGRAM_LIMIT, "row of %s is too big: size %zu", t->ct_name, rl);
  if (rc == CZ_OK) {
    memcpy(buf, row, rl);
    *len = rl;
  }
  arena_destroy(a);
  return rc;
}
