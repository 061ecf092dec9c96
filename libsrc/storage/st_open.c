/* st_open.c — opening, creating and closing a database, the header page,
 * and statistics.
 *
 * Design notes: creating writes the header (page 0) and then runs an
 * ordinary checkpoint, so a new database is at once a valid image
 * (generation 1 in slot A; slot B is zeros, hence invalid). Opening checks
 * the header against the configuration (stripe count), picks the winning
 * root record, loads the image's maps from its meta chain and, when the
 * record still has a pending remap list, finishes the copy-back before
 * anything else can touch the pages. After open, cur = cpt = the image's
 * allocation and the remap table is empty.
 */
#include <stdlib.h>
#include <string.h>

#include "storage/storage_int.h"

static int write_header(storage_t *st, err_t *e)
{
  union {
    st_file_head_t fh;
    uint8_t b[ST_PAGE_SIZE];
  } page;

  memset(&page, 0, sizeof page);
  page.fh.fh_head.ph_type = PG_T_HEADER;
  memcpy(page.fh.fh_magic, ST_MAGIC, sizeof page.fh.fh_magic);
  page.fh.fh_version = ST_FORMAT_VERSION;
  page.fh.fh_page_size = ST_PAGE_SIZE;
  page.fh.fh_extent_pages = ST_EXTENT_PAGES;
  page.fh.fh_n_stripes = (uint32_t)st->st_n_files;
  page.fh.fh_created_ms = time_wall_ms();
  st_page_seal(&page, ST_PG_HEADER);
  return st_io_pages(st, ST_PG_HEADER, 1, &page, true, e);
}

static int check_header(storage_t *st, err_t *e)
{
  union {
    st_file_head_t fh;
    uint8_t b[ST_PAGE_SIZE];
  } page;
  const char *path = st->st_files[0].sf_path;

  if (st_io_pages(st, ST_PG_HEADER, 1, &page, false, e) != CZ_OK)
    return CZ_ERR;
  if (memcmp(page.fh.fh_magic, ST_MAGIC, sizeof page.fh.fh_magic) != 0)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "%s: not a Cadenza database", path);
  if (st_page_check(st, &page, ST_PG_HEADER, ST_PG_HEADER, e) != CZ_OK)
    return err_prefix(e, "%s: header", path);
  if (page.fh.fh_version != ST_FORMAT_VERSION || page.fh.fh_page_size != ST_PAGE_SIZE ||
      page.fh.fh_extent_pages != ST_EXTENT_PAGES)
    return err_set(e, SQLSTATE_DATA_CORRUPTED,
                   "%s: format %u with %u-byte pages and %u-page extents; this build reads "
                   "format %d, %d, %d",
                   path, page.fh.fh_version, page.fh.fh_page_size, page.fh.fh_extent_pages,
                   ST_FORMAT_VERSION, ST_PAGE_SIZE, ST_EXTENT_PAGES);
  if (page.fh.fh_n_stripes != (uint32_t)st->st_n_files)
    return err_set(e, SQLSTATE_CONFIG,
                   "%s: the database has %u stripe file(s), the configuration names %d", path,
                   page.fh.fh_n_stripes, st->st_n_files);
  return CZ_OK;
}

static int create_db(storage_t *st, err_t *e)
{
  if (st_maps_init(st, ST_EXTENT_PAGES, e) != CZ_OK || st_file_grow(st, 0, e) != CZ_OK)
    return CZ_ERR;
  for (pg_no_t p = 0; p < ST_FIRST_DATA_PAGE; p++)
    bitmap_set(&st->st_cur, p);
  st->st_n_alloc = ST_FIRST_DATA_PAGE;
  st->st_root_slot = ST_PG_ROOT_B; /* so that generation 1 goes to slot A */
  if (write_header(st, e) != CZ_OK || st_checkpoint_locked(st, NULL, 0, e) != CZ_OK)
    return CZ_ERR;
  return st_files_sync_dirs(st, e);
}

static int check_pairs(const st_pair_t *pairs, uint32_t n, uint64_t n_pages, err_t *e)
{
  for (uint32_t i = 0; i < n; i++)
    if (pairs[i].pr_log < ST_FIRST_DATA_PAGE || pairs[i].pr_log >= n_pages ||
        pairs[i].pr_phys < ST_FIRST_DATA_PAGE || pairs[i].pr_phys >= n_pages)
      return err_set(e, SQLSTATE_DATA_CORRUPTED,
                     "checkpoint meta data: remap pair (%u, %u) outside the database",
                     pairs[i].pr_log, pairs[i].pr_phys);
  return CZ_OK;
}

static int open_db(storage_t *st, err_t *e)
{
  st_root_rec_t rr;
  int slot, rc;
  bitmap_t img;
  uint64_t *owners;
  st_pair_t *pairs;
  uint32_t n_pairs;
  pg_no_t *meta;

  if (check_header(st, e) != CZ_OK || st_root_load(st, &rr, &slot, e) != CZ_OK ||
      st_meta_read(st, &rr, &img, &owners, &pairs, &n_pairs, &meta, e) != CZ_OK)
    return CZ_ERR;
  rc = st_files_check_size(st, rr.rr_n_pages, e);
  if (rc == CZ_OK)
    rc = check_pairs(pairs, n_pairs, rr.rr_n_pages, e);
  if (rc == CZ_OK)
    rc = st_maps_init(st, rr.rr_n_pages, e);
  if (rc == CZ_OK) {
    memcpy(st->st_cur.bm_words, img.bm_words, rr.rr_n_pages / 8);
    memcpy(st->st_cpt.bm_words, img.bm_words, rr.rr_n_pages / 8);
    memcpy(st->st_owners, owners, rr.rr_n_pages / ST_EXTENT_PAGES * sizeof(uint64_t));
    st->st_n_alloc = bitmap_count(&img, 0, rr.rr_n_pages);
    st->st_meta = meta;
    st->st_n_meta = rr.rr_meta_n;
    meta = NULL;
    if (rr.rr_n_pending > 0)
      rc = st_finish_open_copy_back(st, &rr, &slot, pairs, e);
  }
  if (rc == CZ_OK) {
    st->st_generation = rr.rr_generation;
    st->st_root_slot = slot;
    st->st_user_len = rr.rr_user_len;
    memcpy(st->st_user_root, rr.rr_user, rr.rr_user_len);
  }
  bitmap_free(&img);
  free(owners);
  free(pairs);
  free(meta);
  return rc;
}

int st_open(const st_config_t *cfg, storage_t **out, err_t *e)
{
  arena_t *a = arena_create(NULL, "storage");
  storage_t *st = arena_zalloc(a, sizeof *st);
  bool created = false;
  int rc;

  *out = NULL;
  st->st_arena = a;
  st->st_do_sync = cfg->sc_sync;
  st->st_root_slot = ST_PG_ROOT_A;
  mutex_init(&st->st_mtx);
  mutex_init(&st->st_ckpt_mtx);
  rc = st_files_open(st, cfg, &created, e);
  if (rc == CZ_OK) {
    st->st_created = created;
    rc = created ? create_db(st, e) : open_db(st, e);
  }
  if (rc != CZ_OK) {
    err_prefix(e, "opening database %s",
               cfg->sc_n_stripes > 0 && cfg->sc_stripes[0] ? cfg->sc_stripes[0]
                                                             : cfg->sc_path ? cfg->sc_path : "");
    st_close(st);
    return CZ_ERR;
  }
  *out = st;
  return CZ_OK;
}

void st_close(storage_t *st)
{
  if (!st)
    return;
  st_files_close(st);
  st_maps_free(st);
  free(st->st_meta);
  mutex_destroy(&st->st_mtx);
  mutex_destroy(&st->st_ckpt_mtx);
  arena_destroy(st->st_arena);
}

bool st_was_created(const storage_t *st)
{
  return st->st_created;
}

void st_get_stats(storage_t *st, st_stats_t *out)
{
  out->ss_reads = atomic_load_explicit(&st->st_reads, memory_order_relaxed);
  out->ss_pages_read = atomic_load_explicit(&st->st_pages_read, memory_order_relaxed);
  out->ss_writes = atomic_load_explicit(&st->st_writes, memory_order_relaxed);
  out->ss_pages_written = atomic_load_explicit(&st->st_pages_written, memory_order_relaxed);
  out->ss_checksum_failures =
      atomic_load_explicit(&st->st_checksum_failures, memory_order_relaxed);
  mutex_lock(&st->st_mtx);
  out->ss_remapped = st->st_remap.rm_count;
  out->ss_pages_allocated = st->st_n_alloc;
  mutex_unlock(&st->st_mtx);
}
