/* st_checkpoint.c — the root record and the checkpoint: making the current
 * state the new checkpoint image with one synced root record write.
 *
 * Design notes (README.md, "Checkpoint protocol", has the full argument):
 *  (a) fsync the data files: every page written so far is durable;
 *  (b) allocate fresh meta pages (free in both maps, so the old image's
 *      meta pages are untouched), write the new image's allocation
 *      (cur - remap targets - old meta pages), the owner map and the remap
 *      list into them, fsync;
 *  (c) write the root record, generation + 1, remap list pending, into the
 *      slot that does not hold the current image, fsync: the commit point;
 *  (d) copy back: each remapped page is copied from its remap location P to
 *      its home L, fsync, and the root record is written again (generation
 *      + 2, no pending list) into the other slot, fsync;
 *  (e) in memory: cur = cpt = the new image's allocation, remap empty.
 * The winning root record is never overwritten, so a torn root write leaves
 * the previous one in force. A failure before (c) leaves the old image and
 * undoes the meta allocation; a failure after it marks the storage broken
 * (it must be reopened, which finishes the copy-back). Failpoints (env var
 * CZ_FAILPOINT) end the process at each step for the recovery tests.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage/storage_int.h"

#define CB_BATCH 64 /* pages copied back per read/write round */
#define ST_TORN_BYTES 48 /* storage_torn_root: page header, magic, generation, 8 more */

void st_failpoint(const char *name)
{
  const char *fp = getenv("CZ_FAILPOINT");

  if (fp && strcmp(fp, name) == 0)
    _exit(77);
}

static int other_slot(int slot)
{
  return slot == ST_PG_ROOT_A ? ST_PG_ROOT_B : ST_PG_ROOT_A;
}

static bool root_valid(const st_root_rec_t *rr, pg_no_t slot)
{
  return st_page_verifies(rr, slot) && rr->rr_head.ph_type == PG_T_ROOT_RECORD &&
         memcmp(rr->rr_magic, ST_ROOT_MAGIC, sizeof rr->rr_magic) == 0 &&
         rr->rr_user_len <= ST_USER_ROOT_MAX && rr->rr_meta_n > 0;
}

int st_root_load(storage_t *st, st_root_rec_t *rr, int *slot, err_t *e)
{
  union {
    st_root_rec_t rr;
    uint8_t b[ST_PAGE_SIZE];
  } *pages = malloc(2 * ST_PAGE_SIZE);
  bool va, vb;

  if (!pages)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: root record buffer");
  if (st_io_pages(st, ST_PG_ROOT_A, 2, pages, false, e) != CZ_OK) {
    free(pages);
    return CZ_ERR;
  }
  va = root_valid(&pages[0].rr, ST_PG_ROOT_A);
  vb = root_valid(&pages[1].rr, ST_PG_ROOT_B);
  if (!va && !vb) {
    free(pages);
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "%s: no valid root record (pages 1 and 2)",
                   st->st_files[0].sf_path);
  }
  *slot = va && (!vb || pages[0].rr.rr_generation > pages[1].rr.rr_generation) ? ST_PG_ROOT_A
                                                                                  : ST_PG_ROOT_B;
  *rr = pages[*slot == ST_PG_ROOT_A ? 0 : 1].rr;
  free(pages);
  return CZ_OK;
}

int st_root_write(storage_t *st, int slot, const st_root_rec_t *rr, err_t *e)
{
  union {
    st_root_rec_t rr;
    uint8_t b[ST_PAGE_SIZE];
  } page;
  const char *fp = getenv("CZ_FAILPOINT");

  memset(&page, 0, sizeof page);
  page.rr = *rr;
  st_page_seal(&page, (pg_no_t)slot);
  if (fp && strcmp(fp, "storage_torn_root") == 0) {
    /* A torn write: only the start of the record lands (new checksum and
     * generation over the old record's remaining fields). */
    int f;
    int64_t off;

    st_locate(st, (uint64_t)slot, &f, &off);
    if (pwrite(st->st_files[f].sf_fd, &page, ST_TORN_BYTES, off) != ST_TORN_BYTES)
      _exit(78);
    _exit(77);
  }
  if (st_io_pages(st, (uint64_t)slot, 1, &page, true, e) != CZ_OK)
    return CZ_ERR;
  return st_files_sync(st, e);
}

static int pio_cmp(const void *a, const void *b)
{
  const st_pio_t *x = a, *y = b;

  return x->pi_phys < y->pi_phys ? -1 : x->pi_phys > y->pi_phys;
}

int st_copy_back(storage_t *st, const st_pair_t *pairs, uint32_t n, err_t *e)
{
  uint8_t *buf = malloc((size_t)CB_BATCH * ST_PAGE_SIZE);
  st_pio_t pio[CB_BATCH];
  int rc = CZ_OK;

  if (!buf)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: copy-back buffer");
  for (uint32_t i = 0; i < n && rc == CZ_OK; i += CB_BATCH) {
    int k = (int)CZ_MIN((uint32_t)CB_BATCH, n - i);

    for (int j = 0; j < k; j++)
      pio[j] = (st_pio_t){pairs[i + j].pr_phys, buf + (size_t)j * ST_PAGE_SIZE};
    qsort(pio, (size_t)k, sizeof pio[0], pio_cmp);
    rc = st_io_run(st, pio, k, false, e);
    /* pairs are sorted by home page, so the writes go out ascending. */
    for (int j = 0; j < k && rc == CZ_OK; j++) {
      pio[j] = (st_pio_t){pairs[i + j].pr_log, buf + (size_t)j * ST_PAGE_SIZE};
      rc = st_page_check(st, pio[j].pi_buf, pairs[i + j].pr_log, pairs[i + j].pr_phys, e);
    }
    if (rc == CZ_OK)
      rc = st_io_run(st, pio, k, true, e);
    if (rc == CZ_OK)
      st_failpoint("storage_during_copyback");
  }
  free(buf);
  return rc;
}

/* Step (d) from a committed root record rr in slot *slot: copies back, then
 * writes the record again without a pending list into the other slot. */
static int finish_copy_back(storage_t *st, st_root_rec_t *rr, int *slot, const st_pair_t *pairs,
                            err_t *e)
{
  if (st_copy_back(st, pairs, (uint32_t)rr->rr_n_pending, e) != CZ_OK ||
      st_files_sync(st, e) != CZ_OK)
    return CZ_ERR;
  st_failpoint("storage_after_copyback");
  rr->rr_generation++;
  rr->rr_n_pending = 0;
  *slot = other_slot(*slot);
  return st_root_write(st, *slot, rr, e);
}

int st_finish_open_copy_back(storage_t *st, st_root_rec_t *rr, int *slot,
                             const st_pair_t *pairs, err_t *e)
{
  if (finish_copy_back(st, rr, slot, pairs, e) != CZ_OK)
    return err_prefix(e, "finishing the copy-back of checkpoint %llu",
                      (unsigned long long)(rr->rr_generation));
  return CZ_OK;
}

static int broken(storage_t *st, err_t *e)
{
  atomic_store(&st->st_broken, true);
  return err_prefix(e, "checkpoint failed; the database must be reopened");
}

/* Step (b), map part, under st_mtx: the meta chain is allocated and the new
 * image's allocation and owner map computed. */
static int plan_image(storage_t *st, const st_pair_t *pairs, uint32_t n_pairs, pg_no_t **meta,
                      uint32_t *n_meta, uint64_t *n_pages, bitmap_t *img, uint64_t **owners,
                      err_t *e)
{
  uint32_t cap = 0;

  *meta = NULL;
  *n_meta = 0;
  *owners = NULL;
  /* Allocating may grow the file, which lengthens the stream: loop until
   * the chain is long enough for the final page count. */
  for (;;) {
    uint64_t need = (st_meta_size(st->st_n_pages, n_pairs) + ST_META_PAYLOAD - 1) / ST_META_PAYLOAD;
    pg_no_t pg;

    if (*n_meta >= need)
      break;
    if (*n_meta == cap) {
      pg_no_t *m = realloc(*meta, (cap = cap ? 2 * cap : 16) * sizeof(pg_no_t));
      if (!m) {
        err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: meta page list");
        goto fail;
      }
      *meta = m;
    }
    if (st_alloc_locked(st, ST_OWNER_NONE, *n_meta ? (*meta)[*n_meta - 1] + 1 : PG_NONE, &pg,
                        e) != CZ_OK)
      goto fail;
    (*meta)[(*n_meta)++] = pg;
  }
  *n_pages = st->st_n_pages;
  if (bitmap_init(img, *n_pages, e) != CZ_OK)
    goto fail;
  memcpy(img->bm_words, st->st_cur.bm_words, *n_pages / 8);
  for (uint32_t i = 0; i < n_pairs; i++)
    bitmap_clear(img, pairs[i].pr_phys);
  for (uint32_t i = 0; i < st->st_n_meta; i++)
    bitmap_clear(img, st->st_meta[i]);
  *owners = malloc(*n_pages / ST_EXTENT_PAGES * sizeof(uint64_t));
  if (!*owners) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: owner map copy");
    goto fail;
  }
  memcpy(*owners, st->st_owners, *n_pages / ST_EXTENT_PAGES * sizeof(uint64_t));
  return CZ_OK;

fail:
  for (uint32_t i = 0; i < *n_meta; i++)
    st_free_locked(st, (*meta)[i]);
  free(*meta);
  *meta = NULL;
  *n_meta = 0;
  bitmap_free(img);
  return CZ_ERR;
}

/* Step (e), under st_mtx. cur loses the remap targets and the old meta
 * pages rather than being replaced by the image, so that a page allocated
 * or freed meanwhile (allowed; only writes are not) keeps its state. */
static void adopt_image(storage_t *st, const bitmap_t *img, uint64_t n_pages,
                        const st_pair_t *pairs, uint32_t n_pairs)
{
  for (uint32_t i = 0; i < n_pairs; i++)
    if (st_remap_get(&st->st_remap, pairs[i].pr_log) == pairs[i].pr_phys)
      st_release_locked(st, pairs[i].pr_phys); /* else freed with its page meanwhile */
  for (uint32_t i = 0; i < st->st_n_meta; i++)
    st_release_locked(st, st->st_meta[i]);
  memcpy(st->st_cpt.bm_words, img->bm_words, n_pages / 8);
  st_remap_clear(&st->st_remap);
  st->st_fresh_from = 0;
}

int st_checkpoint_locked(storage_t *st, const void *user_root, size_t len, err_t *e)
{
  st_pair_t *pairs = NULL;
  uint32_t n_pairs = 0, n_meta = 0;
  pg_no_t *meta = NULL;
  uint64_t n_pages = 0, *owners = NULL;
  bitmap_t img = {0};
  st_root_rec_t rr;
  int slot, rc;

  if (st_files_sync(st, e) != CZ_OK)
    return broken(st, e);
  st_failpoint("storage_after_data_sync");

  mutex_lock(&st->st_mtx);
  rc = st_remap_pairs(&st->st_remap, &pairs, &n_pairs, e);
  if (rc == CZ_OK)
    rc = plan_image(st, pairs, n_pairs, &meta, &n_meta, &n_pages, &img, &owners, e);
  mutex_unlock(&st->st_mtx);
  if (rc != CZ_OK) {
    free(pairs);
    return CZ_ERR;
  }
  rc = st_meta_write(st, meta, n_meta, n_pages, &img, owners, pairs, n_pairs, e);
  free(owners);
  if (rc == CZ_OK && (rc = st_files_sync(st, e)) != CZ_OK)
    atomic_store(&st->st_broken, true);
  if (rc != CZ_OK) {
    mutex_lock(&st->st_mtx);
    for (uint32_t i = 0; i < n_meta; i++)
      st_free_locked(st, meta[i]);
    mutex_unlock(&st->st_mtx);
    free(meta);
    free(pairs);
    bitmap_free(&img);
    return err_prefix(e, "checkpoint");
  }
  st_failpoint("storage_after_meta");

  memset(&rr, 0, sizeof rr);
  rr.rr_head.ph_type = PG_T_ROOT_RECORD;
  memcpy(rr.rr_magic, ST_ROOT_MAGIC, sizeof ST_ROOT_MAGIC);
  rr.rr_generation = st->st_generation + 1;
  rr.rr_n_pages = n_pages;
  rr.rr_meta_bytes = st_meta_size(n_pages, n_pairs);
  rr.rr_n_pending = n_pairs;
  rr.rr_meta_first = meta[0];
  rr.rr_meta_n = n_meta;
  rr.rr_user_len = (uint32_t)len;
  if (len)
    memcpy(rr.rr_user, user_root, len);
  slot = other_slot(st->st_root_slot);
  rc = st_root_write(st, slot, &rr, e);
  if (rc == CZ_OK) {
    st_failpoint("storage_after_root");
    if (n_pairs > 0)
      rc = finish_copy_back(st, &rr, &slot, pairs, e);
  }
  if (rc != CZ_OK) {
    free(pairs);
    free(meta);
    bitmap_free(&img);
    return broken(st, e);
  }

  mutex_lock(&st->st_mtx);
  adopt_image(st, &img, n_pages, pairs, n_pairs);
  mutex_unlock(&st->st_mtx);
  free(pairs);
  bitmap_free(&img);
  free(st->st_meta);
  st->st_meta = meta;
  st->st_n_meta = n_meta;
  st->st_generation = rr.rr_generation;
  st->st_root_slot = slot;
  memcpy(st->st_user_root, rr.rr_user, len);
  st->st_user_len = len;
  return CZ_OK;
}

int st_checkpoint(storage_t *st, const void *user_root, size_t len, err_t *e)
{
  int rc;

  if (len > ST_USER_ROOT_MAX)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "checkpoint: user root of %zu bytes, at most %d",
                   len, ST_USER_ROOT_MAX);
  if (atomic_load(&st->st_broken))
    return err_set(e, SQLSTATE_IO_ERROR,
                   "checkpoint: an earlier checkpoint failed; the database must be reopened");
  mutex_lock(&st->st_ckpt_mtx);
  rc = st_checkpoint_locked(st, user_root, len, e);
  mutex_unlock(&st->st_ckpt_mtx);
  return rc;
}

const void *st_user_root(storage_t *st, size_t *len)
{
  *len = st->st_user_len;
  return st->st_user_root;
}

uint64_t st_generation(storage_t *st)
{
  return st->st_generation;
}
