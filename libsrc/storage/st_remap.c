/* st_remap.c — the remap table: where a page of the checkpoint image that
 * was written again since the checkpoint lies now.
 *
 * Design notes: logical page L -> remap location P, an open-addressing table
 * with linear probing and backward-shift deletion (no tombstones, so lookups
 * stay short however many pages come and go). It grows at half load. The
 * table is emptied by every checkpoint, so it holds at most the pages
 * written in one checkpoint interval. Callers hold st_mtx.
 */
#include <stdlib.h>
#include <string.h>

#include "storage/storage_int.h"

#define RM_KEY(x) ((uint32_t)((x) >> 32))
#define RM_VAL(x) ((uint32_t)(x))

static uint32_t rm_home(const st_remap_t *rm, pg_no_t log)
{
  return (uint32_t)hash64_int(log) & (rm->rm_cap - 1);
}

void st_remap_free(st_remap_t *rm)
{
  free(rm->rm_tab);
  memset(rm, 0, sizeof *rm);
}

pg_no_t st_remap_get(const st_remap_t *rm, pg_no_t log)
{
  if (rm->rm_count == 0)
    return PG_NONE;
  for (uint32_t i = rm_home(rm, log);; i = (i + 1) & (rm->rm_cap - 1)) {
    uint64_t x = rm->rm_tab[i];

    if (x == 0)
      return PG_NONE;
    if (RM_KEY(x) == log)
      return RM_VAL(x);
  }
}

static void rm_insert(st_remap_t *rm, uint64_t x)
{
  uint32_t i = rm_home(rm, RM_KEY(x));

  while (rm->rm_tab[i] != 0 && RM_KEY(rm->rm_tab[i]) != RM_KEY(x))
    i = (i + 1) & (rm->rm_cap - 1);
  if (rm->rm_tab[i] == 0)
    rm->rm_count++;
  rm->rm_tab[i] = x;
}

static int rm_grow(st_remap_t *rm, err_t *e)
{
  st_remap_t big = {.rm_cap = rm->rm_cap ? rm->rm_cap * 2 : 1024};

  big.rm_tab = calloc(big.rm_cap, sizeof(uint64_t));
  if (!big.rm_tab)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: remap table of %u entries", big.rm_cap);
  for (uint32_t i = 0; i < rm->rm_cap; i++)
    if (rm->rm_tab[i])
      rm_insert(&big, rm->rm_tab[i]);
  free(rm->rm_tab);
  *rm = big;
  return CZ_OK;
}

int st_remap_put(st_remap_t *rm, pg_no_t log, pg_no_t phys, err_t *e)
{
  if ((uint64_t)(rm->rm_count + 1) * 2 > rm->rm_cap && rm_grow(rm, e) != CZ_OK)
    return CZ_ERR;
  rm_insert(rm, (uint64_t)log << 32 | phys);
  return CZ_OK;
}

pg_no_t st_remap_del(st_remap_t *rm, pg_no_t log)
{
  uint32_t mask = rm->rm_cap - 1;
  uint32_t i;
  pg_no_t phys;

  if (rm->rm_count == 0)
    return PG_NONE;
  for (i = rm_home(rm, log);; i = (i + 1) & mask) {
    if (rm->rm_tab[i] == 0)
      return PG_NONE;
    if (RM_KEY(rm->rm_tab[i]) == log)
      break;
  }
  phys = RM_VAL(rm->rm_tab[i]);
  /* Backward shift: pull later members of the probe run into the hole
   * when the hole lies between their home and their slot. */
  for (uint32_t j = (i + 1) & mask; rm->rm_tab[j] != 0; j = (j + 1) & mask) {
    uint32_t home = rm_home(rm, RM_KEY(rm->rm_tab[j]));

    if (((j - home) & mask) >= ((j - i) & mask)) {
      rm->rm_tab[i] = rm->rm_tab[j];
      i = j;
    }
  }
  rm->rm_tab[i] = 0;
  rm->rm_count--;
  return phys;
}

static int pair_cmp(const void *a, const void *b)
{
  const st_pair_t *x = a, *y = b;

  return x->pr_log < y->pr_log ? -1 : x->pr_log > y->pr_log;
}

int st_remap_pairs(const st_remap_t *rm, st_pair_t **out, uint32_t *n, err_t *e)
{
  st_pair_t *v = NULL;
  uint32_t k = 0;

  if (rm->rm_count > 0) {
    v = malloc(rm->rm_count * sizeof *v);
    if (!v)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: remap list of %u pairs", rm->rm_count);
    for (uint32_t i = 0; i < rm->rm_cap; i++)
      if (rm->rm_tab[i])
        v[k++] = (st_pair_t){RM_KEY(rm->rm_tab[i]), RM_VAL(rm->rm_tab[i])};
    qsort(v, k, sizeof *v, pair_cmp);
  }
  *out = v;
  *n = k;
  return CZ_OK;
}

void st_remap_clear(st_remap_t *rm)
{
  if (rm->rm_tab)
    memset(rm->rm_tab, 0, rm->rm_cap * sizeof(uint64_t));
  rm->rm_count = 0;
}
