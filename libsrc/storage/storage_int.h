/* storage_int.h — structures shared by the files of the storage module.
 *
 * Design notes: one storage_t per open database. st_mtx guards the maps
 * (both allocation bitmaps, the extent owner map, the owner hints, the remap
 * table and the page count); it is held only for map work, never across
 * data I/O, except that file growth (fallocate) happens under it. st_ckpt_mtx
 * serialises checkpoints and guards the image description (generation, root
 * slot, meta page list, user root). Statistics are relaxed atomics. The
 * on-disk structures below are written in the host's byte order
 * (little-endian hosts only; checked at compile time). README.md has the
 * numbered invariants and the recovery protocol.
 */
#ifndef CZ_STORAGE_INT_H
#define CZ_STORAGE_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "storage/storage.h"
#include "thread/thread.h"
#include "util/util.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "storage writes host-order integers: little-endian hosts only"
#endif

#define ST_FORMAT_VERSION 1
#define ST_MAGIC "CADENZA" /* with its NUL: 8 bytes */

/* Fixed pages of extent 0. */
#define ST_PG_HEADER 0
#define ST_PG_ROOT_A 1
#define ST_PG_ROOT_B 2
#define ST_FIRST_DATA_PAGE 3

/* Owner of the extents holding remap targets: they are empty again after
 * every checkpoint, so keeping them apart keeps the owners' extents dense. */
#define ST_OWNER_REMAP UINT64_MAX
/* Owner 0 is "no owner": meta pages and unowned pages share its extents. */
#define ST_OWNER_NONE 0

/* Page numbers stay below 2^32: at most 2^24 - 1 extents. */
#define ST_MAX_EXTENTS ((UINT32_C(1) << 24) - 1)

#define ST_N_HINTS 256 /* owner -> current extent cache, direct-mapped */

/* ---- on-disk records --------------------------------------------------- */

/* Page 0 of stripe 0. */
typedef struct st_file_head_s {
  pg_head_t fh_head;
  char fh_magic[8];        /* ST_MAGIC */
  uint32_t fh_version;     /* ST_FORMAT_VERSION */
  uint32_t fh_page_size;   /* ST_PAGE_SIZE */
  uint32_t fh_extent_pages;/* ST_EXTENT_PAGES */
  uint32_t fh_n_stripes;   /* fixed at creation */
  uint64_t fh_created_ms;  /* wall clock at creation */
} st_file_head_t;

#define ST_ROOT_MAGIC "CZROOT\0" /* with the implicit NUL: 8 bytes */

/* Pages 1 and 2: the two root record slots. The valid one (checksum, page
 * number, magic) with the higher generation names the image. */
typedef struct st_root_rec_s {
  pg_head_t rr_head;
  char rr_magic[8];
  uint64_t rr_generation;
  uint64_t rr_n_pages;     /* logical pages of the image */
  uint64_t rr_meta_bytes;  /* length of the meta stream */
  uint64_t rr_n_pending;   /* remap pairs still to copy back; 0 = none */
  uint32_t rr_meta_first;  /* first page of the meta chain */
  uint32_t rr_meta_n;      /* pages in the meta chain */
  uint32_t rr_user_len;
  uint32_t rr_pad;
  uint8_t rr_user[ST_USER_ROOT_MAX];
} st_root_rec_t;

/* Each meta page: a link and a payload length after the page header. */
typedef struct st_meta_head_s {
  pg_head_t mh_head;
  uint32_t mh_next; /* next page of the chain, PG_NONE at its end */
  uint32_t mh_len;  /* payload bytes used in this page */
} st_meta_head_t;
#define ST_META_PAYLOAD (ST_PAGE_SIZE - (int)sizeof(st_meta_head_t))

/* ---- in memory --------------------------------------------------------- */

typedef struct st_file_s {
  int sf_fd;
  char *sf_path;
} st_file_t;

/* Remap table: logical page -> remap location, open addressing with linear
 * probing; an entry is (L << 32 | P) and 0 is empty (L is never page 0). */
typedef struct st_remap_s {
  uint64_t *rm_tab;
  uint32_t rm_cap; /* power of two, 0 before first use */
  uint32_t rm_count;
} st_remap_t;

typedef struct st_hint_s {
  uint64_t oh_owner;
  uint32_t oh_extent; /* UINT32_MAX = empty */
} st_hint_t;

/* One page of a physical transfer: runs of these, sorted by st_io_run's
 * caller, become preadv/pwritev requests. */
typedef struct st_pio_s {
  uint64_t pi_phys; /* physical page number */
  void *pi_buf;
} st_pio_t;

/* A (logical, physical) remap pair as stored in the meta stream. */
typedef struct st_pair_s {
  uint32_t pr_log;
  uint32_t pr_phys;
} st_pair_t;

struct storage_s {
  arena_t *st_arena;        /* the struct itself and the paths */
  st_file_t st_files[ST_MAX_STRIPES];
  int st_n_files;           /* stripes; 1 when not striped */
  bool st_do_sync;          /* false in tests: fsync skipped */
  bool st_created;
  bool st_locked;           /* holds the flock on every stripe file */

  cz_mutex_t st_mtx;        /* guards the maps below (see file notes) */
  uint64_t st_n_pages;      /* multiple of ST_EXTENT_PAGES */
  bitmap_t st_cur;          /* allocated now (remap targets and meta pages included) */
  bitmap_t st_cpt;          /* allocated in the checkpoint image */
  uint64_t *st_owners;      /* owner per extent */
  size_t st_owners_cap;
  uint64_t st_n_alloc;      /* bits set in st_cur */
  uint32_t st_fresh_from;   /* no wholly free extent below this one */
  st_hint_t st_hints[ST_N_HINTS];
  st_remap_t st_remap;

  cz_mutex_t st_ckpt_mtx;   /* one checkpoint at a time; guards the image fields */
  uint64_t st_generation;
  int st_root_slot;         /* ST_PG_ROOT_A or _B: holds the winning record */
  pg_no_t *st_meta;         /* the image's meta pages (malloc) */
  uint32_t st_n_meta;
  uint8_t st_user_root[ST_USER_ROOT_MAX];
  size_t st_user_len;
  _Atomic bool st_broken;   /* a checkpoint failed past its commit point */

  _Atomic uint64_t st_reads;
  _Atomic uint64_t st_pages_read;
  _Atomic uint64_t st_writes;
  _Atomic uint64_t st_pages_written;
  _Atomic uint64_t st_checksum_failures;
};

/* ---- st_page.c: checksums --------------------------------------------- */

void st_page_seal(void *buf, pg_no_t pg);
bool st_page_verifies(const void *buf, pg_no_t pg);
/* XX001 naming the page (and where it was read) when buf is not page pg;
 * counts the failure. */
int st_page_check(storage_t *st, const void *buf, pg_no_t pg, uint64_t phys, err_t *e);

/* ---- st_file.c: files, placement, transfers ---------------------------- */

int st_files_open(storage_t *st, const st_config_t *cfg, bool *created, err_t *e);
void st_files_close(storage_t *st);
void st_locate(const storage_t *st, uint64_t phys, int *file, int64_t *off);
/* Size the files must have so that page number n_pages - 1 exists. */
int st_files_check_size(storage_t *st, uint64_t n_pages, err_t *e);
/* Makes room for extent ext in its stripe file. */
int st_file_grow(storage_t *st, uint32_t ext, err_t *e);
/* v sorted by pi_phys; physically contiguous pages go in one request. */
int st_io_run(storage_t *st, st_pio_t *v, int n, bool write, err_t *e);
int st_io_pages(storage_t *st, uint64_t phys, int n, void *buf, bool write, err_t *e);
int st_files_sync(storage_t *st, err_t *e);
/* fsync of the directories holding the files: makes new files' names
 * durable (creation). */
int st_files_sync_dirs(storage_t *st, err_t *e);
void st_stat_io(storage_t *st, bool write, int pages);

/* ---- st_alloc.c: bitmaps, extent owners -------------------------------- */

int st_maps_init(storage_t *st, uint64_t n_pages, err_t *e);
void st_maps_free(storage_t *st);
/* The following expect st_mtx held. */
int st_alloc_locked(storage_t *st, uint64_t owner, pg_no_t near, pg_no_t *out, err_t *e);
void st_free_locked(storage_t *st, pg_no_t pg);
/* Clears one page in st_cur, nothing more (undoing a remap target). */
void st_release_locked(storage_t *st, pg_no_t pg);
void st_maps_reset_hints(storage_t *st);

/* ---- st_remap.c -------------------------------------------------------- */

void st_remap_free(st_remap_t *rm);
/* P for L, or PG_NONE. */
pg_no_t st_remap_get(const st_remap_t *rm, pg_no_t log);
int st_remap_put(st_remap_t *rm, pg_no_t log, pg_no_t phys, err_t *e);
/* Removes L; returns its P or PG_NONE. */
pg_no_t st_remap_del(st_remap_t *rm, pg_no_t log);
/* All pairs sorted by logical page (malloc; *n may be 0 with NULL). */
int st_remap_pairs(const st_remap_t *rm, st_pair_t **out, uint32_t *n, err_t *e);
void st_remap_clear(st_remap_t *rm);

/* ---- st_meta.c: the meta stream ---------------------------------------- */

/* Bytes of the meta stream for n_pages and n_pairs. */
uint64_t st_meta_size(uint64_t n_pages, uint64_t n_pairs);
/* Writes the stream (img bitmap, owners, pairs) into the chain pages. */
int st_meta_write(storage_t *st, const pg_no_t *pages, uint32_t n_meta, uint64_t n_pages,
                  const bitmap_t *img, const uint64_t *owners,
                  const st_pair_t *pairs, uint32_t n_pairs, err_t *e);
/* Reads the chain named by rr into a bitmap, an owner array (malloc) and a
 * pair array (malloc); *meta gets the chain's pages (malloc). */
int st_meta_read(storage_t *st, const st_root_rec_t *rr, bitmap_t *img, uint64_t **owners,
                 st_pair_t **pairs, uint32_t *n_pairs, pg_no_t **meta, err_t *e);

/* ---- st_checkpoint.c --------------------------------------------------- */

/* Reads both slots and picks the winner: XX001 when neither is valid. */
int st_root_load(storage_t *st, st_root_rec_t *rr, int *slot, err_t *e);
int st_copy_back(storage_t *st, const st_pair_t *pairs, uint32_t n, err_t *e);
int st_root_write(storage_t *st, int slot, const st_root_rec_t *rr, err_t *e);
/* The whole checkpoint with st_ckpt_mtx held (st_open uses it to write the
 * first image of a new database). */
int st_checkpoint_locked(storage_t *st, const void *user_root, size_t len, err_t *e);
/* Step (d) for a record found pending at open: copies back, then writes
 * the record again (generation + 1) into the other slot; updates rr, slot. */
int st_finish_open_copy_back(storage_t *st, st_root_rec_t *rr, int *slot,
                             const st_pair_t *pairs, err_t *e);
/* The crash points of the recovery tests: _exit(77) when CZ_FAILPOINT names
 * this point. */
void st_failpoint(const char *name);

#endif /* CZ_STORAGE_INT_H */
