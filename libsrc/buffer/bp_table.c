/* bp_table.c — the page table: page number -> frame, in BP_N_SHARDS shards.
 *
 * Design notes: each shard is a mutex and a chained hash whose links live
 * in the frames themselves (bf_hnext), so the table never allocates after
 * bp_create and can never be full. The shard is picked by the low bits of
 * hash64_int(page), the bucket by the high bits. The shard mutex also
 * guards the VALID and IO flags of the frames it maps and is what makes a
 * pin taken by lookup safe against eviction (README.md, rules 1-3).
 */
#include <stdlib.h>

#include "buffer/buffer_int.h"

int bp_table_init(bpool_t *bp, err_t *e)
{
  uint32_t per_shard = (uint32_t)(bp->bp_n / BP_N_SHARDS) + 1;
  uint32_t n_buckets = 1;

  while (n_buckets < per_shard)
    n_buckets <<= 1;
  for (int i = 0; i < BP_N_SHARDS; i++) {
    bp_shard_t *sh = &bp->bp_shards[i];
    sh->sh_heads = malloc(n_buckets * sizeof(int32_t));
    if (!sh->sh_heads) {
      bp_table_free(bp);
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "buffer pool: page table");
    }
    for (uint32_t j = 0; j < n_buckets; j++)
      sh->sh_heads[j] = -1;
    sh->sh_mask = n_buckets - 1;
    mutex_init(&sh->sh_mutex);
    cond_init(&sh->sh_io_done);
  }
  return CZ_OK;
}

void bp_table_free(bpool_t *bp)
{
  for (int i = 0; i < BP_N_SHARDS; i++) {
    bp_shard_t *sh = &bp->bp_shards[i];
    if (!sh->sh_heads)
      continue;
    free(sh->sh_heads);
    sh->sh_heads = NULL;
    mutex_destroy(&sh->sh_mutex);
    cond_destroy(&sh->sh_io_done);
  }
}

static inline int32_t *bp_bucket(bp_shard_t *sh, uint64_t hash)
{
  return &sh->sh_heads[(hash >> 32) & sh->sh_mask];
}

buf_t *bp_table_find(bpool_t *bp, bp_shard_t *sh, uint64_t hash, pg_no_t pg)
{
  for (int32_t i = *bp_bucket(sh, hash); i >= 0; i = bp->bp_frames[i].bf_hnext) {
    buf_t *b = &bp->bp_frames[i];
    if (atomic_load_explicit(&b->bf_page, memory_order_relaxed) == pg)
      return b;
  }
  return NULL;
}

void bp_table_insert(bpool_t *bp, bp_shard_t *sh, uint64_t hash, buf_t *b)
{
  int32_t *head = bp_bucket(sh, hash);
  b->bf_hnext = *head;
  *head = b->bf_index;
  atomic_fetch_add(&bp->bp_n_used, 1);
}

void bp_table_remove(bpool_t *bp, bp_shard_t *sh, uint64_t hash, buf_t *b)
{
  int32_t *link = bp_bucket(sh, hash);
  while (*link >= 0) {
    if (*link == b->bf_index) {
      *link = b->bf_hnext;
      b->bf_hnext = -1;
      atomic_fetch_sub(&bp->bp_n_used, 1);
      return;
    }
    link = &bp->bp_frames[*link].bf_hnext;
  }
}

bool bp_pin_frame(bpool_t *bp, buf_t *b, pg_no_t *pg_out)
{
  pg_no_t pg = atomic_load(&b->bf_page);
  uint64_t hash;
  bp_shard_t *sh;
  bool ok = false;

  if (pg == PG_NONE)
    return false;
  sh = bp_shard_of(bp, pg, &hash);
  mutex_lock(&sh->sh_mutex);
  /* The frame keeps pg while we hold this shard's mutex, but it may have
   * changed page (or been emptied) since the unlocked load above. */
  if (bp_table_find(bp, sh, hash, pg) == b &&
      (atomic_load(&b->bf_flags) & (BF_VALID | BF_IO)) == BF_VALID) {
    atomic_fetch_add(&b->bf_pins, 1);
    ok = true;
  }
  mutex_unlock(&sh->sh_mutex);
  *pg_out = pg;
  return ok;
}
