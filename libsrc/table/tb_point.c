/* tb_point — a scan that is a point lookup: equal, inclusive bounds on
 * every column of the primary key name at most one row, fetched with one
 * tbl_lookup (a descent, no cursor left open) instead of a range scan.
 * The caller (the engine's scan hook) offers every scan here first and
 * opens a range scan when this declines. */
#include <string.h>

#include "table/tb_int.h"

struct tbl_point_s {
  txn_t *pt_tx;
  const cat_table_t *pt_t;
  const int *pt_cols;
  int pt_ncols;
  bool pt_loc;
  const datum_t *pt_key;        /* the primary key's values */
  bool pt_done;
};

/* Whether low and high bound every primary key column to one value. */
static bool tb_is_point(const cat_table_t *t, int idx, const tbl_bound_t *low,
                        const tbl_bound_t *high)
{
  if (idx != 0 || t->ct_npk == 0 || !low || !high || low->tb_n != t->ct_npk ||
      high->tb_n != t->ct_npk || !low->tb_incl || !high->tb_incl)
    return false;
  if (low->tb_vals == high->tb_vals)
    return true;
  const ty_t *types = t->ct_indexes[0]->ci_key_types;
  for (int k = 0; k < t->ct_npk; k++) {
    const datum_t *a = &low->tb_vals[k], *b = &high->tb_vals[k];
    if (a->d_null != b->d_null ||
        (!a->d_null && datum_cmp(ty_phys(types[k].t_id), a, b) != 0))
      return false;
  }
  return true;
}

int tbl_point_open(txn_t *tx, const cat_table_t *t, int idx, const int *cols, int ncols,
                   const tbl_bound_t *low, const tbl_bound_t *high, bool want_loc, arena_t *a,
                   tbl_point_t **out, err_t *e)
{
  (void)e;
  if (!tb_is_point(t, idx, low, high))
    return 1;
  tbl_point_t *p = arena_zalloc(a, sizeof *p);
  p->pt_tx = tx;
  p->pt_t = t;
  p->pt_cols = cols;
  p->pt_ncols = ncols;
  p->pt_loc = want_loc;
  p->pt_key = low->tb_vals;
  *out = p;
  return CZ_OK;
}

int tbl_point_next(tbl_point_t *p, batch_t *out, arena_t *a, err_t *e)
{
  out->b_n = 0;
  if (p->pt_done)
    return CZ_OK;
  p->pt_done = true;
  bool found = false;
  const datum_t *keys[1] = {p->pt_key};
  if (tbl_lookup(p->pt_tx, p->pt_t, keys, 1, p->pt_cols, p->pt_ncols, p->pt_loc, out, &found, a,
                 e) != CZ_OK)
    return CZ_ERR;
  out->b_n = found ? 1 : 0;
  return CZ_OK;
}
