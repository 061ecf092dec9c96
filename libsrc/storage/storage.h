/* storage — the database file(s): 8 KB pages in 2 MB extents, page
 * checksums, page allocation (extent map and free-page bitmaps), optional
 * striping over several files, and the checkpoint image with its atomic root
 * record switch.
 *
 * Design notes (storage/README.md has the full protocol):
 *
 * Pages are named by a logical page number (pg_no_t); B-tree pointers and
 * everything above storage use only logical numbers. The last checkpoint's
 * image on disk is never overwritten before the next checkpoint is complete:
 * a page that belongs to that image and is written again gets a *remap*
 * location (another free page), and reads of it follow the remap. A page
 * allocated since the checkpoint is written in place. Free pages are reused
 * only when free both now and in the checkpoint image. st_checkpoint makes
 * the current state the new image: data synced, allocation maps and the remap
 * list written to fresh pages, the root record switched with one synced write
 * (two slots, the valid one with the higher generation wins), remapped pages
 * copied back home, root record written again without a remap list. Opening a
 * database finishes an interrupted copy-back. After a crash the database is
 * exactly its last checkpoint image; the transaction log (txn/) brings it
 * forward.
 *
 * Thread safety: every function may be called from any thread; storage has
 * its own internal mutex for the maps. Data reads and writes go to disjoint
 * pages (the buffer pool guarantees one frame per page).
 */
#ifndef CZ_STORAGE_H
#define CZ_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define ST_PAGE_SIZE 8192
#define ST_EXTENT_PAGES 256
#define ST_EXTENT_SIZE (ST_PAGE_SIZE * ST_EXTENT_PAGES)
#define ST_MAX_STRIPES 16
#define ST_USER_ROOT_MAX 1024 /* bytes of the upper layers' root data */

typedef uint32_t pg_no_t;
#define PG_NONE ((pg_no_t)0) /* page 0 is the file header: never a data page */

static inline uint32_t pg_extent_of(pg_no_t p) { return p / ST_EXTENT_PAGES; }
static inline pg_no_t pg_extent_first(pg_no_t p) { return p - p % ST_EXTENT_PAGES; }

/* Page types kept in the page header. */
enum {
  PG_T_FREE = 0,
  PG_T_HEADER = 1,
  PG_T_ROOT_RECORD = 2,
  PG_T_META = 3,       /* allocation maps, remap list (storage-internal) */
  PG_T_BTREE_LEAF = 16,
  PG_T_BTREE_INNER = 17,
  PG_T_BTREE_RUN = 18, /* a column tree's compressed run (btree's column leaves) */
  PG_T_TEST = 100      /* pages written by unit tests */
};

/* Every page starts with this header. storage fills ph_checksum and
 * ph_page_no on write and verifies both on read; the layer owning the page
 * sets the rest. */
typedef struct pg_head_s {
  uint64_t ph_checksum; /* hash64 of bytes [8, ST_PAGE_SIZE), seeded with the logical page number */
  uint32_t ph_page_no;  /* logical page number: catches misdirected reads and writes */
  uint16_t ph_type;     /* PG_T_* */
  uint16_t ph_flags;    /* owner-defined */
  uint64_t ph_owner;    /* id of the object owning the page (a B-tree's root page number) */
} pg_head_t;
#define PG_HEAD_SIZE ((int)sizeof(pg_head_t)) /* 24 */

typedef struct storage_s storage_t;

typedef struct st_config_s {
  const char *sc_path;                      /* the database file (stripe 0 when striped) */
  const char *sc_stripes[ST_MAX_STRIPES];   /* [Striping] files; n_stripes 0 = not striped */
  int sc_n_stripes;
  bool sc_create;                           /* create when absent (an existing file is opened) */
  bool sc_sync;                             /* false only in tests: skip fsync */
} st_config_t;

/* Reads [Database] DatabaseFile and [Striping] Stripe1..StripeN from ini.
 * Strings point into ini. */
int st_config_from_ini(const ini_t *ini, st_config_t *cfg, err_t *e);

/* Opens or creates. On open: validates the header, picks the valid root
 * record with the highest generation, loads the allocation maps and
 * finishes an interrupted copy-back. */
int st_open(const st_config_t *cfg, storage_t **out, err_t *e);
void st_close(storage_t *st);
bool st_was_created(const storage_t *st); /* true when st_open made a new database */

/* ---- page I/O ---------------------------------------------------------- */

/* Reads one page into buf (ST_PAGE_SIZE bytes, any alignment), following the
 * remap. Verifies checksum and page number: XX001 on mismatch, naming the
 * page. */
int st_read_page(storage_t *st, pg_no_t pg, void *buf, err_t *e);

/* Reads n consecutive logical pages starting at first (all in one extent)
 * with as few requests as the physical layout allows (one when nothing is
 * remapped). ok[i] is set true for each page that is allocated and verifies;
 * unallocated pages are skipped, a page failing verification is reported
 * false and not an error (read-ahead must not fail a query: the later
 * explicit read reports it). */
int st_read_run(storage_t *st, pg_no_t first, int n, void *bufs, bool *ok, err_t *e);

/* Writes n pages (bufs[i] is page pages[i]); sets each page's checksum and
 * page number in the buffer itself. Pages of the checkpoint image go to
 * their remap location. Physically contiguous pages are written with one
 * pwritev. The pages need not be sorted. */
int st_write_pages(storage_t *st, const pg_no_t *pages, void *const *bufs, int n, err_t *e);

/* fsync of every data file. */
int st_sync(storage_t *st, err_t *e);
/* Asks the kernel to drop its cached copy of the data files
 * (posix_fadvise DONTNEED after a sync), so a benchmark's "cold" scan reads
 * the disk rather than the OS page cache. */
int st_drop_os_cache(storage_t *st, err_t *e);

/* ---- allocation -------------------------------------------------------- */

/* Allocates a page for owner. Pages of one owner are kept together: the
 * page comes from the owner's current extent when it has room (near the
 * page `near` when given), else from a fresh extent that is then the
 * owner's. The file grows by whole extents. XX000/53100 on failure. */
int st_alloc_page(storage_t *st, uint64_t owner, pg_no_t near, pg_no_t *out, err_t *e);
/* Marks a page free (reusable once it is also free in the checkpoint
 * image, i.e. after the next checkpoint if it belongs to the image). */
void st_free_page(storage_t *st, pg_no_t pg);
bool st_page_is_allocated(storage_t *st, pg_no_t pg);
/* The owner recorded for the extent holding pg (0 = none). */
uint64_t st_extent_owner(storage_t *st, pg_no_t pg);
/* Pages allocated now (st_cur) in the extents owned by owner: exact at
 * any instant (no page of another owner lies in them; remap targets live
 * in extents of their own, so the count does not depend on when the last
 * checkpoint was). One pass over the owner map under the map mutex. */
uint64_t st_owner_pages(storage_t *st, uint64_t owner);
/* Number of logical pages the database spans (the file size in pages). */
pg_no_t st_n_pages(storage_t *st);

/* ---- checkpoint -------------------------------------------------------- */

/* The caller (txn/) guarantees: no page changes during the call and every
 * dirty buffer was written with st_write_pages. user_root (up to
 * ST_USER_ROOT_MAX bytes) is stored in the root record: the upper layers
 * keep their directory root and log generation there. */
int st_checkpoint(storage_t *st, const void *user_root, size_t len, err_t *e);
/* The user root of the image opened or last checkpointed; *len 0 for a new
 * database. Valid until the next st_checkpoint. */
const void *st_user_root(storage_t *st, size_t *len);
uint64_t st_generation(storage_t *st); /* checkpoint generation */

/* ---- statistics -------------------------------------------------------- */

typedef struct st_stats_s {
  uint64_t ss_reads;        /* read requests (a run counts once) */
  uint64_t ss_pages_read;
  uint64_t ss_writes;       /* write requests */
  uint64_t ss_pages_written;
  uint64_t ss_remapped;     /* pages currently remapped */
  uint64_t ss_pages_allocated;
  uint64_t ss_checksum_failures;
} st_stats_t;

void st_get_stats(storage_t *st, st_stats_t *out);

#endif /* CZ_STORAGE_H */
