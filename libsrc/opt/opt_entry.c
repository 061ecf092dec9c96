/* opt_entry — the optimizer's entry points as the binder sees them
 * (sql_opt_t, sql/sql_logical.h). */
#include "opt/opt_card.h"

static const sql_opt_t entry = {
  .so_block = opt_block_plan,
  .so_block_rows = opt_block_rows,
  .so_group_rows = opt_group_rows,
  .so_having_rows = opt_having_rows,
  .so_par_workers = opt_par_workers,
  .so_par_gather = opt_par_gather,
  .so_par_builds = opt_par_builds,
  .so_par_agg = opt_par_agg,
  .so_par_safe = opt_par_safe,
  .so_par_sort = opt_par_sort,
  .so_agg_ordered = opt_agg_ordered,
  .so_agg_having = opt_agg_having,
  .so_outer = opt_outer_build,
  .so_scan = opt_scan_cols,
};

const sql_opt_t *opt_entry(void)
{
  return &entry;
}
