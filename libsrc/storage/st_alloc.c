/* st_alloc.c — page allocation: the two allocation bitmaps, the extent
 * owner map, per-owner extent hints and growth of the file by extents.
 *
 * Design notes: a page may be handed out only when it is free both now
 * (st_cur) and in the checkpoint image (st_cpt): a page of the image must
 * keep its contents until the next checkpoint has replaced the image. Each
 * extent records one owner (a B-tree's root page number, say) so that a
 * tree's pages stay together and extent read-ahead reads mostly useful
 * pages. The search for a page goes: the extent of `near` when the owner
 * owns it; the owner's current extent (a direct-mapped cache of
 * owner -> extent, a hint that is checked against the owner map before
 * use); any other extent of the owner with room; the lowest wholly free
 * extent (st_fresh_from skips the wholly used prefix); a new extent at the
 * end of the file. An extent's 256 bits are four words of each bitmap, so
 * every test below is a handful of word operations. All functions here
 * expect st_mtx held, except the public ones which take it.
 */
#include <stdlib.h>
#include <string.h>

#include "storage/storage_int.h"

#define EXT_WORDS (ST_EXTENT_PAGES / 64)

int st_maps_init(storage_t *st, uint64_t n_pages, err_t *e)
{
  uint64_t cap = CZ_MAX(n_pages, (uint64_t)ST_EXTENT_PAGES);

  if (bitmap_init(&st->st_cur, cap, e) != CZ_OK)
    return CZ_ERR;
  if (bitmap_init(&st->st_cpt, cap, e) != CZ_OK)
    return CZ_ERR;
  st->st_owners_cap = cap / ST_EXTENT_PAGES;
  st->st_owners = calloc(st->st_owners_cap, sizeof(uint64_t));
  if (!st->st_owners)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: owner map of %zu extents",
                   st->st_owners_cap);
  st->st_n_pages = n_pages;
  st_maps_reset_hints(st);
  return CZ_OK;
}

void st_maps_free(storage_t *st)
{
  bitmap_free(&st->st_cur);
  bitmap_free(&st->st_cpt);
  free(st->st_owners);
  st->st_owners = NULL;
  st_remap_free(&st->st_remap);
}

void st_maps_reset_hints(storage_t *st)
{
  for (int i = 0; i < ST_N_HINTS; i++)
    st->st_hints[i] = (st_hint_t){0, UINT32_MAX};
  st->st_fresh_from = 0;
}

/* Capacity for n_pages, doubling so that growth extent by extent stays
 * linear overall. */
static int maps_reserve(storage_t *st, uint64_t n_pages, err_t *e)
{
  uint64_t cap;
  uint64_t *owners;
  size_t n_own;

  if (n_pages <= st->st_cur.bm_bits)
    return CZ_OK;
  cap = CZ_MAX(n_pages, 2 * (uint64_t)st->st_cur.bm_bits);
  if (bitmap_resize(&st->st_cur, cap, e) != CZ_OK || bitmap_resize(&st->st_cpt, cap, e) != CZ_OK)
    return CZ_ERR;
  n_own = cap / ST_EXTENT_PAGES;
  owners = realloc(st->st_owners, n_own * sizeof(uint64_t));
  if (!owners)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: owner map of %zu extents", n_own);
  memset(owners + st->st_owners_cap, 0, (n_own - st->st_owners_cap) * sizeof(uint64_t));
  st->st_owners = owners;
  st->st_owners_cap = n_own;
  return CZ_OK;
}

/* First page of extent ext at index >= from that is free in both maps, or
 * -1. */
static int64_t ext_find_free(const storage_t *st, uint32_t ext, uint32_t from)
{
  size_t base = (size_t)ext * EXT_WORDS;

  for (uint32_t w = from / 64; w < EXT_WORDS; w++) {
    uint64_t fr = ~(st->st_cur.bm_words[base + w] | st->st_cpt.bm_words[base + w]);

    if (w == from / 64)
      fr &= ~UINT64_C(0) << (from % 64);
    if (fr)
      return (int64_t)ext * ST_EXTENT_PAGES + w * 64 + __builtin_ctzll(fr);
  }
  return -1;
}

static bool ext_wholly_free(const storage_t *st, uint32_t ext)
{
  size_t base = (size_t)ext * EXT_WORDS;

  for (uint32_t w = 0; w < EXT_WORDS; w++)
    if (st->st_cur.bm_words[base + w] | st->st_cpt.bm_words[base + w])
      return false;
  return true;
}

static st_hint_t *hint_of(storage_t *st, uint64_t owner)
{
  return &st->st_hints[hash64_int(owner) & (ST_N_HINTS - 1)];
}

/* A wholly free extent, taking a new one at the end of the file when there
 * is none. */
static int fresh_extent(storage_t *st, uint32_t *out, err_t *e)
{
  uint32_t n_ext = (uint32_t)(st->st_n_pages / ST_EXTENT_PAGES);

  for (uint32_t x = st->st_fresh_from; x < n_ext; x++)
    if (ext_wholly_free(st, x)) {
      *out = x;
      st->st_fresh_from = x + 1;
      return CZ_OK;
    }
  st->st_fresh_from = n_ext + 1;
  if (n_ext >= ST_MAX_EXTENTS)
    return err_set(e, SQLSTATE_DISK_FULL, "database full: %u extents", n_ext);
  if (maps_reserve(st, st->st_n_pages + ST_EXTENT_PAGES, e) != CZ_OK ||
      st_file_grow(st, n_ext, e) != CZ_OK)
    return CZ_ERR;
  st->st_n_pages += ST_EXTENT_PAGES;
  *out = n_ext;
  return CZ_OK;
}

int st_alloc_locked(storage_t *st, uint64_t owner, pg_no_t near, pg_no_t *out, err_t *e)
{
  uint32_t n_ext = (uint32_t)(st->st_n_pages / ST_EXTENT_PAGES);
  st_hint_t *h = hint_of(st, owner);
  int64_t p = -1;

  if (near != PG_NONE && near < st->st_n_pages && st->st_owners[pg_extent_of(near)] == owner) {
    p = ext_find_free(st, pg_extent_of(near), near % ST_EXTENT_PAGES);
    if (p < 0)
      p = ext_find_free(st, pg_extent_of(near), 0);
  }
  if (p < 0 && h->oh_owner == owner && h->oh_extent < n_ext &&
      st->st_owners[h->oh_extent] == owner)
    p = ext_find_free(st, h->oh_extent, 0);
  for (uint32_t x = 0; p < 0 && x < n_ext; x++)
    if (st->st_owners[x] == owner)
      p = ext_find_free(st, x, 0);
  if (p < 0) {
    uint32_t x = 0;

    if (fresh_extent(st, &x, e) != CZ_OK)
      return CZ_ERR;
    st->st_owners[x] = owner;
    p = ext_find_free(st, x, 0);
  }
  h->oh_owner = owner;
  h->oh_extent = pg_extent_of((pg_no_t)p);
  bitmap_set(&st->st_cur, (size_t)p);
  st->st_n_alloc++;
  *out = (pg_no_t)p;
  return CZ_OK;
}

void st_release_locked(storage_t *st, pg_no_t pg)
{
  if (!bitmap_test(&st->st_cur, pg))
    return;
  bitmap_clear(&st->st_cur, pg);
  st->st_n_alloc--;
  if (pg_extent_of(pg) < st->st_fresh_from && ext_wholly_free(st, pg_extent_of(pg)))
    st->st_fresh_from = pg_extent_of(pg);
}

void st_free_locked(storage_t *st, pg_no_t pg)
{
  pg_no_t phys;

  if (pg < ST_FIRST_DATA_PAGE || pg >= st->st_n_pages || !bitmap_test(&st->st_cur, pg)) {
    log_warn("storage: freeing page %u, which is not an allocated data page", pg);
    return;
  }
  st_release_locked(st, pg);
  phys = st_remap_del(&st->st_remap, pg);
  if (phys != PG_NONE)
    st_release_locked(st, phys);
}

/* ---- public ------------------------------------------------------------ */

int st_alloc_page(storage_t *st, uint64_t owner, pg_no_t near, pg_no_t *out, err_t *e)
{
  int rc;

  if (owner == ST_OWNER_REMAP)
    return err_set(e, SQLSTATE_INTERNAL, "storage: owner %llu is reserved",
                   (unsigned long long)owner);
  mutex_lock(&st->st_mtx);
  rc = st_alloc_locked(st, owner, near, out, e);
  mutex_unlock(&st->st_mtx);
  return rc;
}

void st_free_page(storage_t *st, pg_no_t pg)
{
  mutex_lock(&st->st_mtx);
  st_free_locked(st, pg);
  mutex_unlock(&st->st_mtx);
}

bool st_page_is_allocated(storage_t *st, pg_no_t pg)
{
  bool r;

  mutex_lock(&st->st_mtx);
  r = pg < st->st_n_pages && bitmap_test(&st->st_cur, pg);
  mutex_unlock(&st->st_mtx);
  return r;
}

uint64_t st_extent_owner(storage_t *st, pg_no_t pg)
{
  uint64_t r = 0;

  mutex_lock(&st->st_mtx);
  if (pg < st->st_n_pages)
    r = st->st_owners[pg_extent_of(pg)];
  mutex_unlock(&st->st_mtx);
  return r;
}

/* Why a count and not a counter: the owner map and st_cur are already
 * exact after every allocation and free, after a checkpoint and after
 * recovery (they are the image's maps, then replay's own allocations), and
 * an owner's pages lie only in its extents. Counting costs one pass over
 * the owner map (8 bytes per 2 MB extent) and four popcounts per owned
 * extent, and nothing at all on the write path. */
uint64_t st_owner_pages(storage_t *st, uint64_t owner)
{
  uint64_t n = 0;

  mutex_lock(&st->st_mtx);
  uint32_t n_ext = (uint32_t)(st->st_n_pages / ST_EXTENT_PAGES);
  for (uint32_t x = 0; x < n_ext; x++) {
    if (st->st_owners[x] != owner)
      continue;
    size_t base = (size_t)x * EXT_WORDS;
    for (uint32_t w = 0; w < EXT_WORDS; w++)
      n += (uint64_t)__builtin_popcountll(st->st_cur.bm_words[base + w]);
  }
  mutex_unlock(&st->st_mtx);
  return n;
}

pg_no_t st_n_pages(storage_t *st)
{
  pg_no_t r;

  mutex_lock(&st->st_mtx);
  r = (pg_no_t)st->st_n_pages;
  mutex_unlock(&st->st_mtx);
  return r;
}
