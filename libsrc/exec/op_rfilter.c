/* op_rfilter — runtime filters: a hash join's build keys, as a Bloom
 * filter, tested by the scan whose rows reach the join's probe side, so
 * that rows which cannot find a partner are dropped as soon as they are
 * read instead of travelling through every operator up to the join.
 *
 * Design notes:
 * - Planned when a hash join is made (op_hashjoin_new → rf_attach): the
 *   probe side is followed down through operators that pass rows through
 *   unchanged or drop them independently of each other (ov_pass_col:
 *   filters, projections of plain columns, the preserved side of joins),
 *   keeping track of where the key columns come from; a scan reached
 *   that way gets a target (the join and the scan's key columns). An
 *   operator whose output for one row depends on other rows (LIMIT,
 *   aggregation, DISTINCT, sort, Gather) ends the walk.
 * - Only INNER and SEMI hash joins filter: both drop a probe row without
 *   a partner, so dropping it earlier changes no answer; a NULL key
 *   never has a partner either.
 * - The filter is built when the join's build ends (op_join.c), from the
 *   hashes of its hash table (the same row_hash the probe computes), in
 *   the join's run state. The scan finds it through the join's run state
 *   in its own execution context at each batch: a join not opened in
 *   that context (a Gather worker, a plan alternative the planner threw
 *   away) has none, and nothing is filtered. A build that spilled makes
 *   no filter (its rows are not all in memory).
 * - The scan stops testing, for the rest of its run, when the filters
 *   kept nearly every row of the first few thousand (RF_USELESS): the
 *   test then costs more than it saves.
 * - A blocked Bloom filter: one 64-bit word per key, three bits in it,
 *   about 16 bits a key (under 1 % false positives); a build of more
 *   than RF_MAX_KEYS rows gets none (its filter would not stay in cache).
 */
#include <string.h>

#include "exec/op_join_int.h"
#include "exec/op_rfilter.h"

#define RF_MAX_KEYS (16 * 1024 * 1024)

struct rf_bloom_s {
  uint64_t *rb_words;
  uint64_t rb_mask;             /* words - 1 (a power of two) */
};

static inline uint64_t rf_bits(uint64_t h)
{
  return (1ull << (h & 63)) | (1ull << ((h >> 6) & 63)) | (1ull << ((h >> 12) & 63));
}

static inline uint64_t rf_word(const rf_bloom_t *b, uint64_t h)
{
  return (h >> 32) & b->rb_mask;
}

rf_bloom_t *rf_bloom_build(arena_t *a, const rhash_t *h)
{
  /* one entry per distinct hash: those are the keys to remember */
  if (h->rh_used <= 0 || h->rh_used > RF_MAX_KEYS)
    return NULL;
  uint64_t words = 1;
  while (words * 4 < (uint64_t)h->rh_used)
    words *= 2;
  rf_bloom_t *b = arena_try_alloc(a, sizeof(*b));
  uint64_t *w = arena_try_alloc(a, sizeof(uint64_t) * words);
  if (!b || !w)
    return NULL;  /* no filter: the join works without one */
  memset(w, 0, sizeof(uint64_t) * words);
  b->rb_words = w;
  b->rb_mask = words - 1;
  for (int64_t i = 0; i < h->rh_cap; i++)
    if (h->rh_ents[i].re_row) {
      uint64_t x = h->rh_ents[i].re_hash;
      w[rf_word(b, x)] |= rf_bits(x);
    }
  return b;
}

static inline bool rf_maybe(const rf_bloom_t *b, uint64_t h)
{
  uint64_t m = rf_bits(h);
  return (b->rb_words[rf_word(b, h)] & m) == m;
}

/* ---- planning ------------------------------------------------------------ */

void rf_attach(arena_t *a, op_t *join, join_kind_t kind, int nkeys, const int *lk)
{
  if (kind != JOIN_INNER && kind != JOIN_SEMI)
    return;
  int *cols = arena_alloc(a, sizeof(int) * (size_t)nkeys);
  memcpy(cols, lk, sizeof(int) * (size_t)nkeys);
  op_t *o = join->o_in;
  for (int depth = 0; o && depth < 64; depth++) {
    if (op_is_scan(o)) {
      rf_target_t *t = arena_zalloc(a, sizeof(*t));
      t->rt_join = join;
      t->rt_ncols = nkeys;
      t->rt_cols = cols;
      op_scan_add_rf(o, t);
      return;
    }
    if (!o->o_vt->ov_pass_col)
      return;
    for (int k = 0; k < nkeys; k++)
      if ((cols[k] = o->o_vt->ov_pass_col(o, cols[k])) < 0)
        return;
    o = o->o_in;
  }
}

/* ---- running ------------------------------------------------------------- */

int rf_filter(const rf_target_t *t, qctx_t *q, const batch_t *b, int n, int *sel, arena_t *a)
{
  int kept = n;
  uint64_t *h = NULL;
  for (; t && kept > 0; t = t->rt_next) {
    const rf_bloom_t *bloom = op_join_rf(t->rt_join, q);
    if (!bloom)
      continue;
    if (!h)
      h = arena_alloc(a, sizeof(uint64_t) * (size_t)n);
    rows_hash(b, t->rt_ncols, t->rt_cols, sel, kept, h);
    int out = 0;
    for (int i = 0; i < kept; i++) {
      int row = sel[i];
      bool null = false;
      for (int k = 0; k < t->rt_ncols; k++)
        null |= b->b_cols[t->rt_cols[k]].v_null[row] != 0;
      if (!null && rf_maybe(bloom, h[i]))
        sel[out++] = row;
    }
    kept = out;
  }
  return kept;
}

char *rf_detail(const rf_target_t *t, arena_t *a)
{
  char *s = NULL;
  for (; t; t = t->rt_next) {
    char *keys = NULL;
    for (int k = 0; k < t->rt_ncols; k++)
      keys = arena_sprintf(a, "%s%s$%d", keys ? keys : "", keys ? ", " : "", t->rt_cols[k] + 1);
    s = arena_sprintf(a, "%s%sruntime filter on %s", s ? s : "", s ? "; " : "", keys);
  }
  return s;
}
