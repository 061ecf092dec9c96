/* st_page.c — page checksums: every page carries hash64 of its bytes
 * [8, ST_PAGE_SIZE) seeded with its logical page number, and that number.
 *
 * Design notes: seeding with the page number means a page written to or
 * read from the wrong place fails even when its bytes are intact; the
 * explicit ph_page_no lets the error say which page was found instead. A
 * remapped page keeps its logical number and checksum, so it verifies
 * wherever it physically lies. A page of zeros never verifies, so a page
 * allocated but never written reads as corrupt rather than as empty.
 */
#include <stdio.h>
#include <string.h>

#include "storage/storage_int.h"

static uint64_t page_sum(const void *buf, pg_no_t pg)
{
  return hash64((const uint8_t *)buf + 8, ST_PAGE_SIZE - 8, pg);
}

void st_page_seal(void *buf, pg_no_t pg)
{
  pg_head_t *h = buf;

  h->ph_page_no = pg;
  h->ph_checksum = page_sum(buf, pg);
}

bool st_page_verifies(const void *buf, pg_no_t pg)
{
  const pg_head_t *h = buf;

  return h->ph_page_no == pg && h->ph_checksum == page_sum(buf, pg);
}

int st_page_check(storage_t *st, const void *buf, pg_no_t pg, uint64_t phys, err_t *e)
{
  const pg_head_t *h = buf;
  char where[64] = "";

  if (st_page_verifies(buf, pg))
    return CZ_OK;
  atomic_fetch_add_explicit(&st->st_checksum_failures, 1, memory_order_relaxed);
  if (phys != pg)
    snprintf(where, sizeof where, " (read from its remap location %llu)",
             (unsigned long long)phys);
  if (h->ph_page_no != pg)
    return err_set(e, SQLSTATE_DATA_CORRUPTED,
                   "page %u: page number mismatch, found page %u%s", pg, h->ph_page_no, where);
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "page %u: checksum mismatch%s", pg, where);
}
