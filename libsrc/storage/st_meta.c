/* st_meta.c — the meta stream: the checkpoint image's allocation bitmap,
 * extent owner map and remap list, written as one byte stream over a chain
 * of PG_T_META pages that the root record names.
 *
 * Design notes: stream layout (host-order integers): u64 magic, u64 number
 * of pages N, N/64 bitmap words, N/256 owners (u64), u64 number of remap
 * pairs, the pairs (u32 logical, u32 physical) sorted by logical page. Every
 * page but the last is full, so the chain length follows from the stream
 * length, which lets the checkpoint allocate the chain before writing it.
 * Each meta page is checksummed like any page and names the next one; the
 * root record carries the first page, the page count and the byte count,
 * and the reader checks all three. Pages are written in batches of
 * META_BATCH with coalesced requests (they are mostly contiguous), and read
 * back one at a time, which only opening the database does.
 */
#include <stdlib.h>
#include <string.h>

#include "storage/storage_int.h"

#define META_MAGIC UINT64_C(0x31304154454d5a43) /* "CZMETA01" */
#define META_BATCH 64

uint64_t st_meta_size(uint64_t n_pages, uint64_t n_pairs)
{
  return 8 + 8 + n_pages / 8 + n_pages / ST_EXTENT_PAGES * 8 + 8 + n_pairs * sizeof(st_pair_t);
}

/* ---- writer ------------------------------------------------------------ */

typedef struct meta_w_s {
  storage_t *mw_st;
  const pg_no_t *mw_pages;
  uint32_t mw_n;          /* pages in the chain */
  uint32_t mw_i;          /* chain index of the page being filled */
  uint32_t mw_off;        /* payload bytes used in that page */
  int mw_batched;         /* finished pages waiting in mw_buf */
  uint8_t *mw_buf;        /* META_BATCH pages */
  st_pio_t mw_pio[META_BATCH];
} meta_w_t;

static int pio_cmp(const void *a, const void *b)
{
  const st_pio_t *x = a, *y = b;

  return x->pi_phys < y->pi_phys ? -1 : x->pi_phys > y->pi_phys;
}

static uint8_t *mw_page(meta_w_t *w)
{
  return w->mw_buf + (size_t)w->mw_batched * ST_PAGE_SIZE;
}

static int mw_flush(meta_w_t *w, err_t *e)
{
  int n = w->mw_batched;

  w->mw_batched = 0;
  for (int k = 0; k < n; k++)
    w->mw_pio[k].pi_buf = w->mw_buf + (size_t)k * ST_PAGE_SIZE;
  qsort(w->mw_pio, (size_t)n, sizeof(st_pio_t), pio_cmp);
  return st_io_run(w->mw_st, w->mw_pio, n, true, e);
}

/* Seals the page being filled and moves on to the next one. */
static int mw_end_page(meta_w_t *w, err_t *e)
{
  uint8_t *page = mw_page(w);
  st_meta_head_t *mh = (st_meta_head_t *)page;
  pg_no_t pg = w->mw_pages[w->mw_i];

  mh->mh_head.ph_type = PG_T_META;
  mh->mh_head.ph_flags = 0;
  mh->mh_head.ph_owner = ST_OWNER_NONE;
  mh->mh_next = w->mw_i + 1 < w->mw_n ? w->mw_pages[w->mw_i + 1] : PG_NONE;
  mh->mh_len = w->mw_off;
  st_page_seal(page, pg);
  w->mw_pio[w->mw_batched].pi_phys = pg;
  w->mw_batched++;
  w->mw_i++;
  w->mw_off = 0;
  if (w->mw_batched == META_BATCH)
    return mw_flush(w, e);
  return CZ_OK;
}

static int mw_put(meta_w_t *w, const void *src, size_t len, err_t *e)
{
  const uint8_t *s = src;

  while (len > 0) {
    size_t k;

    if (w->mw_off == ST_META_PAYLOAD && mw_end_page(w, e) != CZ_OK)
      return CZ_ERR;
    if (w->mw_i >= w->mw_n)
      return err_set(e, SQLSTATE_INTERNAL, "storage: meta stream longer than its %u pages",
                     w->mw_n);
    if (w->mw_off == 0)
      memset(mw_page(w), 0, ST_PAGE_SIZE);
    k = CZ_MIN(len, (size_t)(ST_META_PAYLOAD - w->mw_off));
    memcpy(mw_page(w) + sizeof(st_meta_head_t) + w->mw_off, s, k);
    w->mw_off += (uint32_t)k;
    s += k;
    len -= k;
  }
  return CZ_OK;
}

static int mw_put_u64(meta_w_t *w, uint64_t v, err_t *e)
{
  return mw_put(w, &v, sizeof v, e);
}

int st_meta_write(storage_t *st, const pg_no_t *pages, uint32_t n_meta, uint64_t n_pages,
                  const bitmap_t *img, const uint64_t *owners,
                  const st_pair_t *pairs, uint32_t n_pairs, err_t *e)
{
  meta_w_t w = {.mw_st = st, .mw_pages = pages, .mw_n = n_meta};
  int rc = CZ_ERR;

  w.mw_buf = malloc((size_t)META_BATCH * ST_PAGE_SIZE);
  if (!w.mw_buf)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: meta page buffer");
  if (mw_put_u64(&w, META_MAGIC, e) == CZ_OK && mw_put_u64(&w, n_pages, e) == CZ_OK &&
      mw_put(&w, img->bm_words, n_pages / 8, e) == CZ_OK &&
      mw_put(&w, owners, n_pages / ST_EXTENT_PAGES * sizeof(uint64_t), e) == CZ_OK &&
      mw_put_u64(&w, n_pairs, e) == CZ_OK &&
      mw_put(&w, pairs, (size_t)n_pairs * sizeof(st_pair_t), e) == CZ_OK &&
      mw_end_page(&w, e) == CZ_OK) {
    if (w.mw_i != n_meta)
      err_set(e, SQLSTATE_INTERNAL, "storage: meta stream filled %u of its %u pages", w.mw_i,
              n_meta);
    else
      rc = mw_flush(&w, e);
  }
  free(w.mw_buf);
  return rc;
}

/* ---- reader ------------------------------------------------------------ */

typedef struct meta_r_s {
  storage_t *mr_st;
  const st_root_rec_t *mr_rr;
  pg_no_t *mr_pages;      /* the chain as read */
  uint32_t mr_n;          /* pages read */
  pg_no_t mr_next;        /* next page of the chain */
  uint32_t mr_off;        /* payload bytes consumed of the current page */
  uint32_t mr_len;        /* payload bytes in the current page */
  uint64_t mr_total;      /* payload bytes read */
  uint8_t mr_page[ST_PAGE_SIZE];
} meta_r_t;

static int mr_next_page(meta_r_t *r, err_t *e)
{
  const st_meta_head_t *mh = (const st_meta_head_t *)r->mr_page;
  pg_no_t pg = r->mr_next;

  if (pg == PG_NONE || r->mr_n >= r->mr_rr->rr_meta_n || pg >= r->mr_rr->rr_n_pages)
    return err_set(e, SQLSTATE_DATA_CORRUPTED,
                   "checkpoint meta data: chain broken after %u of %u pages", r->mr_n,
                   r->mr_rr->rr_meta_n);
  if (st_io_pages(r->mr_st, pg, 1, r->mr_page, false, e) != CZ_OK ||
      st_page_check(r->mr_st, r->mr_page, pg, pg, e) != CZ_OK)
    return CZ_ERR;
  if (mh->mh_head.ph_type != PG_T_META || mh->mh_len > ST_META_PAYLOAD)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "page %u: not a valid meta page", pg);
  r->mr_pages[r->mr_n++] = pg;
  r->mr_next = mh->mh_next;
  r->mr_off = 0;
  r->mr_len = mh->mh_len;
  r->mr_total += mh->mh_len;
  return CZ_OK;
}

static int mr_get(meta_r_t *r, void *dst, size_t len, err_t *e)
{
  uint8_t *d = dst;

  while (len > 0) {
    size_t k;

    if (r->mr_off == r->mr_len && mr_next_page(r, e) != CZ_OK)
      return CZ_ERR;
    k = CZ_MIN(len, (size_t)(r->mr_len - r->mr_off));
    memcpy(d, r->mr_page + sizeof(st_meta_head_t) + r->mr_off, k);
    r->mr_off += (uint32_t)k;
    d += k;
    len -= k;
  }
  return CZ_OK;
}

static int mr_get_u64(meta_r_t *r, uint64_t *v, err_t *e)
{
  return mr_get(r, v, sizeof *v, e);
}

static int mr_fail(const meta_r_t *r, const char *what, err_t *e)
{
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "checkpoint meta data (first page %u): %s",
                 r->mr_rr->rr_meta_first, what);
}

int st_meta_read(storage_t *st, const st_root_rec_t *rr, bitmap_t *img, uint64_t **owners,
                 st_pair_t **pairs, uint32_t *n_pairs, pg_no_t **meta, err_t *e)
{
  meta_r_t *r = calloc(1, sizeof *r);
  uint64_t magic, n_pages, np;
  uint64_t n_ext = rr->rr_n_pages / ST_EXTENT_PAGES;

  *owners = NULL;
  *pairs = NULL;
  *meta = NULL;
  memset(img, 0, sizeof *img);
  if (!r)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: meta reader");
  r->mr_st = st;
  r->mr_rr = rr;
  r->mr_next = rr->rr_meta_first;
  r->mr_pages = malloc(CZ_MAX(rr->rr_meta_n, 1u) * sizeof(pg_no_t));
  *meta = r->mr_pages;
  if (!r->mr_pages) {
    free(r);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: meta page list");
  }
  if (rr->rr_n_pages == 0 || rr->rr_n_pages % ST_EXTENT_PAGES != 0 || n_ext > ST_MAX_EXTENTS) {
    mr_fail(r, "bad page count", e);
    goto fail;
  }
  if (mr_get_u64(r, &magic, e) != CZ_OK || mr_get_u64(r, &n_pages, e) != CZ_OK)
    goto fail;
  if (magic != META_MAGIC || n_pages != rr->rr_n_pages) {
    mr_fail(r, "bad magic or page count", e);
    goto fail;
  }
  *owners = malloc(n_ext * sizeof(uint64_t));
  if (!*owners) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: owner map of %llu extents",
            (unsigned long long)n_ext);
    goto fail;
  }
  if (bitmap_init(img, n_pages, e) != CZ_OK || mr_get(r, img->bm_words, n_pages / 8, e) != CZ_OK ||
      mr_get(r, *owners, n_ext * sizeof(uint64_t), e) != CZ_OK || mr_get_u64(r, &np, e) != CZ_OK)
    goto fail;
  if (st_meta_size(n_pages, np) != rr->rr_meta_bytes || np > UINT32_MAX ||
      rr->rr_n_pending > np) {
    mr_fail(r, "bad remap list length", e);
    goto fail;
  }
  *n_pairs = (uint32_t)np;
  if (np > 0) {
    *pairs = malloc(np * sizeof(st_pair_t));
    if (!*pairs) {
      err_set(e, SQLSTATE_OUT_OF_MEMORY, "storage: remap list of %llu pairs",
              (unsigned long long)np);
      goto fail;
    }
    if (mr_get(r, *pairs, np * sizeof(st_pair_t), e) != CZ_OK)
      goto fail;
  }
  if (r->mr_n != rr->rr_meta_n || r->mr_next != PG_NONE || r->mr_off != r->mr_len ||
      r->mr_total != rr->rr_meta_bytes) {
    mr_fail(r, "chain length does not match the root record", e);
    goto fail;
  }
  free(r);
  return CZ_OK;

fail:
  bitmap_free(img);
  free(*owners);
  free(*pairs);
  free(*meta);
  *owners = NULL;
  *pairs = NULL;
  *meta = NULL;
  free(r);
  return CZ_ERR;
}
