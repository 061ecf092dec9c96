/* tb_analyze — ANALYZE of one table: every row the transaction sees is
 * read once and the catalog's statistics of the table are replaced by
 * ones built from them (catalog/README.md, "Statistics").
 *
 * Design notes: one scan of the primary tree with every column, a batch
 * at a time; each batch's memory is released before the next (long
 * values included), so ANALYZE runs in constant memory whatever the
 * table's size. The sketches kept as data changes make ANALYZE optional;
 * it corrects what they drift on (deletes, rolled-back writes, tables
 * older than the statistics file). Cancel is checked between batches.
 */
#include "table/tb_int.h"

#define TB_ANALYZE_BATCH 1024

int tbl_analyze(txn_t *tx, const cat_table_t *t, volatile bool *cancel, err_t *e)
{
  arena_t *a = arena_create(NULL, "tbl_analyze");
  arena_t *step = arena_create(a, "tbl_analyze batch");
  int *cols = arena_alloc(a, sizeof(int) * (size_t)(t->ct_ncols + 1));
  for (int c = 0; c < t->ct_ncols; c++)
    cols[c] = c;
  cat_stats_build_t *sb = cat_stats_build_begin(t);
  int64_t rows = 0;
  tbl_scan_t *s = NULL;
  batch_t *b = batch_create(a, t->ct_ncols, t->ct_types, TB_ANALYZE_BATCH, e);
  int rc = b ? tbl_scan_open(tx, t, 0, cols, t->ct_ncols, NULL, NULL, false, a, &s, e) : CZ_ERR;
  while (rc == CZ_OK) {
    if (cancel && *cancel) {
      rc = err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
      break;
    }
    arena_reset(step);
    bool done = false;
    rc = tbl_scan_step(s, b, step, &done, e);
    if (rc != CZ_OK)
      break;
    cat_stats_build_rows(sb, b, NULL, b->b_n);
    rows += b->b_n;
    if (done)
      break;
  }
  if (s)
    tbl_scan_close(s);
  if (rc == CZ_OK)
    cat_stats_build_end(t, sb, rows);
  else
    cat_stats_build_abort(sb);
  arena_destroy(a);
  return rc;
}
