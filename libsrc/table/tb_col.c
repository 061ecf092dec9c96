/* tb_col — the values of a column table's primary tree.
 *
 * Design notes (table/README.md, "Column tables"):
 * - A table created WITH (layout = column) keeps its primary tree as a
 *   column tree (btree/README.md "Column leaves"): the tree's values are
 *   column rows (bt_crow_*), one typed value per table column, which the
 *   tree transposes into compressed runs per column. Keys are the same
 *   order-preserving primary keys as the row layout's.
 * - Writes encode the row's datums as a column row (tb_row_store calls
 *   tb_col_encode): strings stay inline (the column tree's runs hold long
 *   values; no long-values tree), the entry is bounded by the callers'
 *   BT_MAX_ROW buffers.
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

int tb_col_encode(const cat_table_t *t, const datum_t *vals, uint8_t *out, size_t cap, size_t *len,
                  err_t *e)
{
  ty_phys_t kinds[CAT_MAX_COLUMNS + 1];
  tb_col_kinds(t, kinds);
  size_t need = bt_crow_size(kinds, vals, t->ct_ncols);
  if (need == 0)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "a column of %s has no column form",
                   t->ct_name);
  if (need > cap)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "row is too big: size %zu, maximum size %zu", need,
                   cap);
  return bt_crow_build(kinds, vals, t->ct_ncols, out, cap, len, e);
}

int tb_col_decode(const cat_table_t *t, const void *crow, size_t len, datum_t *vals, err_t *e)
{
  ty_phys_t kinds[CAT_MAX_COLUMNS + 1];
  int n = 0;
  if (bt_crow_parse(crow, len, t->ct_ncols, kinds, vals, &n, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < n; i++)
    if (!vals[i].d_null && kinds[i] != ty_phys(t->ct_types[i].t_id))
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column %d of a row of %s has the wrong kind", i,
                     t->ct_name);
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
  datum_t *vals = t->ct_ncols > 64 ? arena_alloc(a, sizeof(datum_t) * (size_t)t->ct_ncols) : stack;
  if (tb_col_decode(t, crow, len, vals, e) != CZ_OK)
    return CZ_ERR;
  size_t need;
  err_t scratch;
  uint8_t none[1];
  tbl_row_encode(t->ct_types, t->ct_ncols, vals, none, 0, &need, &scratch);
  uint8_t *buf = arena_alloc(a, need ? need : 1);
  if (tbl_row_encode(t->ct_types, t->ct_ncols, vals, buf, need, row_len, e) != CZ_OK)
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
