/* st_io.c — page reads and writes by logical page number: checksums on
 * the way out and in, the remap of checkpoint-image pages, coalescing into
 * few requests.
 *
 * Design notes: the map work (remap lookup, allocating remap targets) is
 * done under st_mtx, the transfers outside it. A page of the checkpoint
 * image (set in st_cpt) is never overwritten before the next checkpoint:
 * its first write since the checkpoint gets a remap target P, free in both
 * maps, and that write and all later ones go to P until the checkpoint
 * copies P back home. The targets of one call are allocated in ascending
 * logical order from the remap extents, so a sorted flush stays one
 * request. A page allocated since the checkpoint is written in place. A
 * read that finds a remapped page corrupt looks the remap up again before
 * reporting it, because a checkpoint finishing meanwhile moves the page
 * back home and frees P.
 */
#include <stdlib.h>
#include <string.h>

#include "storage/storage_int.h"

static pg_no_t phys_of_locked(const storage_t *st, pg_no_t pg)
{
  pg_no_t p = st_remap_get(&st->st_remap, pg);

  return p != PG_NONE ? p : pg;
}

int st_read_page(storage_t *st, pg_no_t pg, void *buf, err_t *e)
{
  pg_no_t phys, again;

  mutex_lock(&st->st_mtx);
  if (pg >= st->st_n_pages) {
    uint64_t n = st->st_n_pages;
    mutex_unlock(&st->st_mtx);
    return err_set(e, SQLSTATE_INTERNAL, "read of page %u: the database has %llu pages", pg,
                   (unsigned long long)n);
  }
  phys = phys_of_locked(st, pg);
  mutex_unlock(&st->st_mtx);
  for (;;) {
    if (st_io_pages(st, phys, 1, buf, false, e) != CZ_OK)
      return err_prefix(e, "page %u", pg);
    if (st_page_verifies(buf, pg) || phys == pg)
      break;
    mutex_lock(&st->st_mtx);
    again = phys_of_locked(st, pg);
    mutex_unlock(&st->st_mtx);
    if (again == phys)
      break;
    phys = again;
  }
  return st_page_check(st, buf, pg, phys, e);
}

static int pio_cmp(const void *a, const void *b)
{
  const st_pio_t *x = a, *y = b;

  return x->pi_phys < y->pi_phys ? -1 : x->pi_phys > y->pi_phys;
}

int st_read_run(storage_t *st, pg_no_t first, int n, void *bufs, bool *ok, err_t *e)
{
  pg_no_t phys[ST_EXTENT_PAGES];
  bool alloc[ST_EXTENT_PAGES];
  st_pio_t moved[ST_EXTENT_PAGES];
  int n_moved = 0, lo = -1, hi = -1;
  uint8_t *b = bufs;

  if (n < 1 || n > ST_EXTENT_PAGES || pg_extent_of(first) != pg_extent_of(first + (pg_no_t)n - 1))
    return err_set(e, SQLSTATE_INTERNAL, "read run of %d pages from %u: not within one extent",
                   n, first);
  mutex_lock(&st->st_mtx);
  if ((uint64_t)first + (uint64_t)n > st->st_n_pages) {
    mutex_unlock(&st->st_mtx);
    return err_set(e, SQLSTATE_INTERNAL, "read run of %d pages from %u: beyond the database",
                   n, first);
  }
  for (int i = 0; i < n; i++) {
    alloc[i] = bitmap_test(&st->st_cur, first + (pg_no_t)i);
    phys[i] = alloc[i] ? phys_of_locked(st, first + (pg_no_t)i) : first + (pg_no_t)i;
  }
  mutex_unlock(&st->st_mtx);

  /* Pages at home: one request spanning the first to the last of them
   * (free pages and remapped ones inside the span are read and ignored). */
  for (int i = 0; i < n; i++) {
    ok[i] = false;
    if (alloc[i] && phys[i] == first + (pg_no_t)i) {
      if (lo < 0)
        lo = i;
      hi = i;
    } else if (alloc[i]) {
      moved[n_moved++] = (st_pio_t){phys[i], b + (size_t)i * ST_PAGE_SIZE};
    }
  }
  if (lo >= 0 &&
      st_io_pages(st, first + (pg_no_t)lo, hi - lo + 1, b + (size_t)lo * ST_PAGE_SIZE, false,
                  e) != CZ_OK)
    return CZ_ERR;
  if (n_moved > 0) {
    qsort(moved, (size_t)n_moved, sizeof moved[0], pio_cmp);
    if (st_io_run(st, moved, n_moved, false, e) != CZ_OK)
      return CZ_ERR;
  }
  for (int i = 0; i < n; i++)
    if (alloc[i]) {
      ok[i] = st_page_verifies(b + (size_t)i * ST_PAGE_SIZE, first + (pg_no_t)i);
      if (!ok[i])
        atomic_fetch_add_explicit(&st->st_checksum_failures, 1, memory_order_relaxed);
    }
  return CZ_OK;
}

/* Gives every page of the image among pages[] a remap target (ascending,
 * so they come out contiguous). Under st_mtx; all or nothing. */
static int remap_targets_locked(storage_t *st, const pg_no_t *pages, int n, pg_no_t *phys,
                                err_t *e)
{
  pg_no_t *need = malloc((size_t)n * sizeof(pg_no_t));
  int n_need = 0, done = 0;
  pg_no_t prev = PG_NONE;

  if (!need)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: remap list of %d pages", n);
  for (int i = 0; i < n; i++) {
    phys[i] = pages[i];
    if (bitmap_test(&st->st_cpt, pages[i])) {
      pg_no_t p = st_remap_get(&st->st_remap, pages[i]);
      if (p != PG_NONE)
        phys[i] = p;
      else
        need[n_need++] = pages[i];
    }
  }
  for (int i = 1; i < n_need; i++) /* insertion sort: flushes arrive nearly sorted */
    for (int j = i; j > 0 && need[j - 1] > need[j]; j--) {
      pg_no_t t = need[j];
      need[j] = need[j - 1];
      need[j - 1] = t;
    }
  for (; done < n_need; done++) {
    pg_no_t p;

    if (done > 0 && need[done] == need[done - 1])
      continue;
    if (st_alloc_locked(st, ST_OWNER_REMAP, prev != PG_NONE ? prev + 1 : PG_NONE, &p, e) != CZ_OK)
      break;
    if (st_remap_put(&st->st_remap, need[done], p, e) != CZ_OK) {
      st_release_locked(st, p);
      break;
    }
    prev = p;
  }
  if (done < n_need) {
    for (int k = 0; k < done; k++) {
      pg_no_t p = st_remap_del(&st->st_remap, need[k]);
      if (p != PG_NONE)
        st_release_locked(st, p);
    }
    free(need);
    return CZ_ERR;
  }
  for (int i = 0; i < n; i++)
    if (phys[i] == pages[i] && bitmap_test(&st->st_cpt, pages[i]))
      phys[i] = st_remap_get(&st->st_remap, pages[i]);
  free(need);
  return CZ_OK;
}

int st_write_pages(storage_t *st, const pg_no_t *pages, void *const *bufs, int n, err_t *e)
{
  st_pio_t *pio;
  pg_no_t *phys;
  int rc = CZ_OK;

  if (n <= 0)
    return CZ_OK;
  if (atomic_load(&st->st_broken))
    return err_set(e, SQLSTATE_IO_ERROR,
                   "write: an earlier checkpoint failed; the database must be reopened");
  pio = malloc((size_t)n * (sizeof *pio + sizeof *phys));
  if (!pio)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: write of %d pages", n);
  phys = (pg_no_t *)(pio + n);
  for (int i = 0; i < n; i++)
    st_page_seal(bufs[i], pages[i]);

  mutex_lock(&st->st_mtx);
  for (int i = 0; i < n && rc == CZ_OK; i++)
    if (pages[i] < ST_FIRST_DATA_PAGE || pages[i] >= st->st_n_pages ||
        !bitmap_test(&st->st_cur, pages[i]))
      rc = err_set(e, SQLSTATE_INTERNAL, "write of page %u, which is not an allocated data page",
                   pages[i]);
  if (rc == CZ_OK)
    rc = remap_targets_locked(st, pages, n, phys, e);
  mutex_unlock(&st->st_mtx);

  if (rc == CZ_OK) {
    for (int i = 0; i < n; i++)
      pio[i] = (st_pio_t){phys[i], bufs[i]};
    qsort(pio, (size_t)n, sizeof *pio, pio_cmp);
    for (int i = 1; i < n && rc == CZ_OK; i++)
      if (pio[i].pi_phys == pio[i - 1].pi_phys)
        rc = err_set(e, SQLSTATE_INTERNAL, "write of %d pages: a page appears twice", n);
    if (rc == CZ_OK)
      rc = st_io_run(st, pio, n, true, e);
  }
  free(pio);
  return rc;
}
