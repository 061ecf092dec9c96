/* bp_pool.c — the buffer pool's life: configuration, creation, teardown and
 * statistics.
 *
 * Design notes: all page memory is one 4096-aligned allocation (direct I/O
 * friendly, one mapping for the kernel); frames are calloc'ed, which makes
 * every latch unlatched and every frame free. Hits and misses are counted
 * per shard under the shard mutex and summed on demand; the rarer events
 * are global atomics.
 */
#include <stdlib.h>
#include <string.h>

#include "buffer/buffer_int.h"

#define BP_MIN_BUFFERS 8

void bp_config_default(bp_config_t *cfg)
{
  cfg->bc_n_buffers = 10000;
  cfg->bc_max_dirty = 7500;
  cfg->bc_read_ahead = true;
  cfg->bc_ra_threshold = 2;
  cfg->bc_ra_window_ms = 1000;
  cfg->bc_bg_writer = true;
}

int bp_config_from_ini(const ini_t *ini, bp_config_t *cfg, err_t *e)
{
  int64_t n, max_dirty;

  bp_config_default(cfg);
  if (!ini)
    return CZ_OK;
  if (ini_get_int(ini, "Parameters", "NumberOfBuffers", cfg->bc_n_buffers, &n, e) != CZ_OK)
    return CZ_ERR;
  if (n < BP_MIN_BUFFERS || n > INT32_MAX / 2)
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] NumberOfBuffers = %lld: must be %d to %d",
                   (long long)n, BP_MIN_BUFFERS, INT32_MAX / 2);
  if (ini_get_int(ini, "Parameters", "MaxDirtyBuffers", n * 3 / 4, &max_dirty, e) != CZ_OK)
    return CZ_ERR;
  if (max_dirty < 1 || max_dirty > n)
    return err_set(e, SQLSTATE_CONFIG,
                   "[Parameters] MaxDirtyBuffers = %lld: must be 1 to NumberOfBuffers (%lld)",
                   (long long)max_dirty, (long long)n);
  if (ini_get_bool(ini, "Parameters", "ReadAhead", true, &cfg->bc_read_ahead, e) != CZ_OK)
    return CZ_ERR;
  cfg->bc_n_buffers = (int)n;
  cfg->bc_max_dirty = (int)max_dirty;
  return CZ_OK;
}

static int bp_check_config(const bp_config_t *cfg, err_t *e)
{
  if (cfg->bc_n_buffers < BP_MIN_BUFFERS || cfg->bc_n_buffers > INT32_MAX / 2)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "buffer pool: %d buffers (at least %d)",
                   cfg->bc_n_buffers, BP_MIN_BUFFERS);
  if (cfg->bc_max_dirty < 1)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "buffer pool: max dirty %d", cfg->bc_max_dirty);
  if (cfg->bc_ra_threshold < 1 || cfg->bc_ra_window_ms < 0)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "buffer pool: read-ahead threshold %d, window %d ms",
                   cfg->bc_ra_threshold, cfg->bc_ra_window_ms);
  return CZ_OK;
}

int bp_create(storage_t *st, const bp_config_t *cfg, bpool_t **out, err_t *e)
{
  bpool_t *bp;
  int n = cfg->bc_n_buffers;

  *out = NULL;
  if (bp_check_config(cfg, e) != CZ_OK)
    return CZ_ERR;
  bp = aligned_alloc(64, (sizeof(*bp) + 63) & ~(size_t)63);
  if (!bp)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "buffer pool");
  memset(bp, 0, sizeof(*bp));
  bp->bp_st = st;
  bp->bp_cfg = *cfg;
  bp->bp_n = n;
  bp->bp_protected_max = n - n / 4;
  bp->bp_frames = calloc((size_t)n, sizeof(buf_t));
  bp->bp_mem = aligned_alloc(4096, (size_t)n * ST_PAGE_SIZE);
  bp->bp_ghosts = calloc((size_t)n, sizeof(pg_no_t));
  if (!bp->bp_frames || !bp->bp_mem || !bp->bp_ghosts) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "buffer pool: %d buffers of %d bytes", n, ST_PAGE_SIZE);
    goto fail;
  }
  for (int i = 0; i < n; i++) {
    buf_t *b = &bp->bp_frames[i];
    b->bf_index = i;
    b->bf_hnext = -1;
    b->bf_data = bp->bp_mem + (size_t)i * ST_PAGE_SIZE;
    rwl_init(&b->bf_latch);
  }
  if (bp_table_init(bp, e) != CZ_OK)
    goto fail;
  if (bp_ra_start(bp, e) != CZ_OK) {
    bp_table_free(bp);
    goto fail;
  }
  if (bp_writer_start(bp, e) != CZ_OK) {
    bp_ra_stop(bp);
    bp_table_free(bp);
    goto fail;
  }
  *out = bp;
  return CZ_OK;
fail:
  free(bp->bp_ghosts);
  free(bp->bp_mem);
  free(bp->bp_frames);
  free(bp);
  return CZ_ERR;
}

void bp_destroy(bpool_t *bp)
{
  if (!bp)
    return;
  bp_ra_stop(bp);
  bp_writer_stop(bp);
  bp_table_free(bp);
  free(bp->bp_ghosts);
  free(bp->bp_mem);
  free(bp->bp_frames);
  free(bp);
}

storage_t *bp_storage(bpool_t *bp)
{
  return bp->bp_st;
}

void bp_get_stats(bpool_t *bp, bp_stats_t *out)
{
  memset(out, 0, sizeof(*out));
  for (int i = 0; i < BP_N_SHARDS; i++) {
    bp_shard_t *sh = &bp->bp_shards[i];
    mutex_lock(&sh->sh_mutex);
    out->bs_hits += sh->sh_hits;
    out->bs_misses += sh->sh_misses;
    mutex_unlock(&sh->sh_mutex);
  }
  out->bs_ra_requests = atomic_load(&bp->bp_ra_requests);
  out->bs_ra_pages_read = atomic_load(&bp->bp_ra_pages_read);
  out->bs_ra_pages_used = atomic_load(&bp->bp_ra_pages_used);
  out->bs_pages_written = atomic_load(&bp->bp_pages_written);
  out->bs_evictions = atomic_load(&bp->bp_evictions);
  out->bs_dirty_evictions = atomic_load(&bp->bp_dirty_evictions);
  out->bs_n_buffers = bp->bp_n;
  out->bs_n_dirty = atomic_load(&bp->bp_n_dirty);
  out->bs_n_used = atomic_load(&bp->bp_n_used);
}

void bp_reset_stats(bpool_t *bp)
{
  for (int i = 0; i < BP_N_SHARDS; i++) {
    bp_shard_t *sh = &bp->bp_shards[i];
    mutex_lock(&sh->sh_mutex);
    sh->sh_hits = 0;
    sh->sh_misses = 0;
    mutex_unlock(&sh->sh_mutex);
  }
  atomic_store(&bp->bp_ra_requests, 0);
  atomic_store(&bp->bp_ra_pages_read, 0);
  atomic_store(&bp->bp_ra_pages_used, 0);
  atomic_store(&bp->bp_pages_written, 0);
  atomic_store(&bp->bp_evictions, 0);
  atomic_store(&bp->bp_dirty_evictions, 0);
}
