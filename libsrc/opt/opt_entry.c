/* opt_entry — the optimizer's entry points as the binder sees them
 * (sql_opt_t, sql/sql_logical.h). */
#include "opt/opt_card.h"

static const sql_opt_t entry = {
  .so_block = opt_block_plan,
  .so_query = opt_gen_query,
  .so_dml = opt_gen_dml,
  .so_subq = opt_gen_subq,
};

const sql_opt_t *opt_entry(void)
{
  return &entry;
}
