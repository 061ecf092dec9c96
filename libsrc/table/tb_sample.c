/* tb_sample — estimates for the optimizer: how many rows of a table fall
 * in a key range of one of its indexes, and a sample of those rows.
 *
 * Design notes:
 * - Counts come from the index's tree (bt_estimate: where the two ends of
 *   the range fall), so they cost two descents whatever the table's size;
 *   uncommitted and deleted-but-not-purged entries count as rows. Good
 *   enough for choosing plans, never used for answers.
 * - A sample is entries picked by random descents into the range
 *   (bt_sample), turned into primary keys and fetched as tx sees them
 *   (tb_fetch), so every value is one a query could read. A secondary
 *   index entry is its key columns followed by the primary key.
 * - A bound's key is a prefix of the index key: an inclusive high bound or
 *   an exclusive low one must reach past every key that starts with it,
 *   so it is padded with 0xFF bytes (no column encoding of this size is
 *   all 0xFF; an estimate may be off by the keys that are).
 */
#include <string.h>

#include "table/tb_int.h"

#define TB_PAST_PREFIX 16  /* 0xFF bytes that put a bound after its prefix's keys */

static int range_keys(const cat_index_t *ix, const tbl_bound_t *low, const tbl_bound_t *high,
                      arena_t *a, uint8_t **lo, size_t *lo_len, uint8_t **hi, size_t *hi_len,
                      err_t *e)
{
  const tbl_bound_t *ends[2] = {low, high};
  uint8_t **keys[2] = {lo, hi};
  size_t *lens[2] = {lo_len, hi_len};
  for (int i = 0; i < 2; i++) {
    uint8_t *k;
    size_t kl;
    if (tb_bound_encode(ix, ends[i], a, &k, &kl, e) != CZ_OK)
      return CZ_ERR;
    bool past = k && (i == 0 ? !ends[i]->tb_incl : ends[i]->tb_incl);
    if (past) {
      uint8_t *p = arena_alloc(a, kl + TB_PAST_PREFIX);
      memcpy(p, k, kl);
      memset(p + kl, 0xFF, TB_PAST_PREFIX);
      k = p;
      kl += TB_PAST_PREFIX;
    }
    *keys[i] = k;
    *lens[i] = kl;
  }
  return CZ_OK;
}

/* A column tree counts segments, not rows, and has no estimate of its
 * own yet (btree/README.md "Column leaves: state"): the catalog's row
 * count for the whole table, one row for a whole primary key fixed, and
 * PostgreSQL's default range selectivity (1/3) for other ranges. */
static double col_estimate(const cat_table_t *t, const tbl_bound_t *low, const tbl_bound_t *high,
                           arena_t *a)
{
  cat_tabstats_t ts;
  cat_stats_get(t, a, &ts);
  bool lo = low && low->tb_n > 0, hi = high && high->tb_n > 0;
  if (!lo && !hi)
    return ts.ts_rows;
  if (lo && hi && t->ct_npk > 0 && low->tb_n == t->ct_npk && high->tb_n == t->ct_npk &&
      low->tb_incl && high->tb_incl)
    return ts.ts_rows < 1 ? ts.ts_rows : 1;
  return ts.ts_rows / 3;
}

int tbl_estimate(const cat_table_t *t, int idx, const tbl_bound_t *low, const tbl_bound_t *high,
                 arena_t *a, double *rows, err_t *e)
{
  if (idx < 0 || idx >= t->ct_nindexes)
    return err_set(e, SQLSTATE_INTERNAL, "table %s has no index %d", t->ct_name, idx);
  if (idx == 0 && t->ct_indexes[idx]->ci_layout == CAT_LAYOUT_COLUMN) {
    *rows = col_estimate(t, low, high, a);
    return CZ_OK;
  }
  uint8_t *lo, *hi;
  size_t lo_len, hi_len;
  if (range_keys(t->ct_indexes[idx], low, high, a, &lo, &lo_len, &hi, &hi_len, e) != CZ_OK)
    return CZ_ERR;
  return bt_estimate(t->ct_indexes[idx]->ci_tree, lo, lo_len, hi, hi_len, rows, e);
}

/* A column tree has no random descent (bt_sample) yet: its sample is
 * read with the column scan. The range is cut into up to COL_SAMPLE_PIECES
 * pieces of similar segment counts (bt_divide, upper pages only); from
 * each, every stride-th row of its first n / pieces * stride rows
 * (stride from the catalog's row count, so a small table is sampled
 * across its whole range, a large one in clusters spread over it), the
 * seed choosing the first. Only the columns wanted are decoded. */
#define COL_SAMPLE_PIECES 32
#define COL_SAMPLE_STRIDE_MAX 16

static int col_sample(txn_t *tx, const cat_table_t *t, const uint8_t *lo, size_t lo_len,
                      const uint8_t *hi, size_t hi_len, int n, uint64_t seed, const int *cols,
                      int ncols, batch_t *out, arena_t *a, err_t *e)
{
  const cat_index_t *ix = t->ct_indexes[0];
  bt_key_t *cuts = NULL;
  int ncuts = 0;
  if (bt_divide(ix->ci_tree, lo, lo_len, hi, hi_len, CZ_MIN(n, COL_SAMPLE_PIECES), a, &cuts, &ncuts,
                e) != CZ_OK)
    return CZ_ERR;
  int pieces = ncuts + 1;
  cat_tabstats_t ts;
  cat_stats_get(t, a, &ts);
  double per = ts.ts_rows / (double)pieces;       /* rows of a piece, roughly */
  int quota = (n + pieces - 1) / pieces;
  int stride = (int)CZ_MIN((double)COL_SAMPLE_STRIDE_MAX, CZ_MAX(1.0, per / quota));
  int cap = quota * stride;
  ty_t *types = arena_alloc(a, sizeof(ty_t) * (size_t)(ncols ? ncols : 1));
  for (int c = 0; c < ncols; c++)
    types[c] = out->b_cols[c].v_type;
  batch_t *buf = batch_create(a, ncols, types, cap, e);
  tb_colscan_t *cs;
  if (!buf || tb_colscan_new(tx, tx ? txn_command_next(tx) : 0, t, cols, ncols, false, NULL, 0, cap,
                             a, &cs, e) != CZ_OK)
    return CZ_ERR;
  int w = 0;
  for (int p = 0; p < pieces && w < n; p++) {
    bt_key_t from = {p == 0 ? lo : cuts[p - 1].k_data, p == 0 ? (uint32_t)lo_len : cuts[p - 1].k_len};
    bt_key_t until = {p == pieces - 1 ? hi : cuts[p].k_data,
                      p == pieces - 1 ? (uint32_t)hi_len : cuts[p].k_len};
    int got = 0;
    bool ended;
    if (tb_colscan_range(cs, NULL, 0, true, NULL, 0, true, from.k_data ? &from : NULL,
                         until.k_data ? &until : NULL, e) != CZ_OK ||
        tb_colscan_fill(cs, buf, &got, cap, a, &ended, e) != CZ_OK) {
      tb_colscan_close(cs);
      return CZ_ERR;
    }
    tb_colscan_close(cs);
    for (int r = (int)((seed + (uint64_t)p) % (uint64_t)stride); r < got && w < n; r += stride) {
      for (int c = 0; c < ncols; c++) {
        datum_t d;
        vec_get(&buf->b_cols[c], r, &d);
        if (!d.d_null && ty_phys(types[c].t_id) == TP_STR) {
          char *s = arena_alloc(a, d.d_str.s_len ? d.d_str.s_len : 1);
          memcpy(s, d.d_str.s_ptr, d.d_str.s_len);
          d.d_str.s_ptr = s;
        }
        vec_set(&out->b_cols[c], w, &d);
      }
      w++;
    }
  }
  out->b_n = w;
  return CZ_OK;
}

typedef struct tb_pick_s {
  const cat_index_t *pk_ix;
  arena_t *pk_a;
  bt_key_t *pk_keys;
  int pk_n, pk_cap;
} tb_pick_t;

static void pick_cb(void *ctx, const void *key, size_t key_len, const void *val, size_t val_len)
{
  (void)val;
  (void)val_len;
  tb_pick_t *p = ctx;
  if (p->pk_n >= p->pk_cap)
    return;
  size_t pre = p->pk_ix->ci_no == 0
                   ? 0
                   : tbl_key_skip(p->pk_ix->ci_key_types, p->pk_ix->ci_nkeys, key, key_len);
  if (pre >= key_len)
    return;
  uint8_t *k = arena_alloc(p->pk_a, key_len - pre);
  memcpy(k, (const uint8_t *)key + pre, key_len - pre);
  p->pk_keys[p->pk_n].k_data = k;
  p->pk_keys[p->pk_n].k_len = (uint32_t)(key_len - pre);
  p->pk_n++;
}

int tbl_sample(txn_t *tx, const cat_table_t *t, int idx, const tbl_bound_t *low,
               const tbl_bound_t *high, int n, uint64_t seed, const int *cols, int ncols,
               batch_t *out, arena_t *a, err_t *e)
{
  out->b_n = 0;
  if (idx < 0 || idx >= t->ct_nindexes)
    return err_set(e, SQLSTATE_INTERNAL, "table %s has no index %d", t->ct_name, idx);
  int cap = out->b_ncols > 0 ? out->b_cols[0].v_cap : 0;
  if (n > cap)
    n = cap;
  if (n <= 0)
    return CZ_OK;
  const cat_index_t *ix = t->ct_indexes[idx];
  uint8_t *lo, *hi;
  size_t lo_len, hi_len;
  if (range_keys(ix, low, high, a, &lo, &lo_len, &hi, &hi_len, e) != CZ_OK)
    return CZ_ERR;
  if (idx == 0 && ix->ci_layout == CAT_LAYOUT_COLUMN)
    return col_sample(tx, t, lo, lo_len, hi, hi_len, n, seed, cols, ncols, out, a, e);
  tb_pick_t p = {.pk_ix = ix, .pk_a = a, .pk_cap = n,
                 .pk_keys = arena_alloc(a, sizeof(bt_key_t) * (size_t)n)};
  if (bt_sample(ix->ci_tree, lo, lo_len, hi, hi_len, n, seed, pick_cb, &p, e) != CZ_OK)
    return CZ_ERR;
  bool *found = arena_alloc(a, (size_t)p.pk_n + 1);
  if (tb_fetch(tx, tx ? txn_command_next(tx) : 0, t, cols, ncols, false, p.pk_keys, p.pk_n, out,
               found, a, e) != CZ_OK)
    return CZ_ERR;
  int w = 0;
  for (int r = 0; r < p.pk_n; r++) {
    if (!found[r])
      continue;
    if (w != r)
      for (int c = 0; c < ncols; c++) {
        datum_t d;
        vec_get(&out->b_cols[c], r, &d);
        vec_set(&out->b_cols[c], w, &d);
      }
    w++;
  }
  out->b_n = w;
  return CZ_OK;
}
