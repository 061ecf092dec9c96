/* bt_col_int.h — the column leaves' private structures, shared by the
 * bt_col_*.c files only (README.md, "Column leaves").
 *
 * Design notes:
 * - A segment is handled in two forms: encoded (a descriptor naming one run
 *   per column, inline or on run pages) and decoded for a rewrite (btc_rows_t:
 *   each index row as its key and its column row, in an arena). Writers go
 *   decoded -> changed -> encoded (copy-on-write); readers load the runs they
 *   need into their arena and decode from there.
 * - Every function that reads a run validates the chain (page type, owner,
 *   byte counts) and the run's header against the descriptor: a damaged
 *   tree gives XX001, never a crash.
 */
#ifndef CZ_BT_COL_INT_H
#define CZ_BT_COL_INT_H

#include "btree/btree_int.h"

#define BTC_SEG_ROWS 4096          /* most index rows in one segment */
#define BTC_MERGE_ROWS (BTC_SEG_ROWS / 4) /* a smaller segment merges with a neighbour */
#define BTC_INLINE 64              /* runs up to this many bytes stay in the descriptor */
#define BTC_DESC_VERSION 1
#define BTC_DESC_HEAD 8            /* version, flags, ncols, rows */
#define BTC_COL_HEAD 8             /* place, kind, 0, run bytes */
#define BTC_RUN_HEAD (PG_HEAD_SIZE + 8) /* next page, bytes here */
#define BTC_RUN_DATA (ST_PAGE_SIZE - BTC_RUN_HEAD)

enum { BTC_INLINE_RUN = 0, BTC_PAGED_RUN = 1 };

/* One column's run as the descriptor names it. */
typedef struct btc_ref_s {
  uint8_t cr_place;         /* BTC_INLINE_RUN or BTC_PAGED_RUN */
  ty_phys_t cr_kind;
  uint32_t cr_len;          /* run bytes */
  const uint8_t *cr_inline; /* inline: the bytes (inside the descriptor) */
  pg_no_t cr_page;          /* paged: first run page */
} btc_ref_t;

/* A parsed descriptor; refs point into the descriptor's bytes. */
typedef struct btc_desc_s {
  uint32_t sd_rows;
  int sd_ncols;             /* key column included */
  btc_ref_t sd_ref[BTC_MAX_COLS];
} btc_desc_t;

/* A segment decoded for a rewrite: row i is (key, column row), sorted by
 * key. Pointers live in the arena the rows were built in. */
typedef struct btc_rows_s {
  int rs_n;
  int rs_cap;
  const uint8_t **rs_key;
  uint32_t *rs_klen;
  const uint8_t **rs_val;
  uint32_t *rs_vlen;
} btc_rows_t;

/* bt_col_seg.c */
int btc_desc_parse(const uint8_t *d, size_t len, btc_desc_t *out, err_t *e);
/* Copies the run of ref into a (validating the chain; *pages counts pages
 * read when not NULL). */
int btc_run_load(bt_tree_t *t, const btc_ref_t *ref, arena_t *a, uint8_t **buf, uint64_t *pages,
                 err_t *e);
/* Frees the run pages of every paged column of d. */
int btc_desc_free_runs(bt_tree_t *t, const btc_desc_t *d, err_t *e);
/* Encodes rows [from, to) of rs as one segment: runs written to new pages,
 * the descriptor (allocated in a) to *desc. entry_klen is the length of
 * the key its entry will have (the descriptor must fit beside it). */
int btc_seg_encode(bt_tree_t *t, const btc_rows_t *rs, int from, int to, uint32_t entry_klen,
                   arena_t *a, uint8_t **desc, size_t *desc_len, err_t *e);
/* Decodes a whole segment into rs (appending), column rows rebuilt. */
int btc_seg_decode(bt_tree_t *t, const btc_desc_t *d, arena_t *a, btc_rows_t *rs, err_t *e);
void btc_rows_init(btc_rows_t *rs);
int btc_rows_reserve(btc_rows_t *rs, arena_t *a, int n, err_t *e);
/* The vector type used for a physical kind (the codecs key on the kind). */
ty_t btc_kind_type(ty_phys_t k);

/* bt_col_pair.c: non-unique trees' (key, value) pairs as unique keys */
/* The pair's bytes into out (BT_MAX_KEY bytes); 54000 when longer. */
int btc_pair_make(const void *key, size_t klen, const void *val, size_t vlen, uint8_t *out, uint32_t *len,
                  err_t *e);
/* The lowest pair of key (no value) into out (BT_MAX_KEY + 2 bytes); its length. */
uint32_t btc_pair_bound(const void *key, size_t klen, uint8_t *out);
/* The key (into key, BT_MAX_KEY bytes) and value (pointing into pair) of
 * a pair; CZ_ERR when the bytes are not one. */
int btc_pair_split(const uint8_t *pair, size_t len, uint8_t *key, uint32_t *klen, const uint8_t **val,
                   uint32_t *vlen);

/* bt_col_write.c */
int btc_insert(bt_tree_t *t, const void *key, size_t klen, const void *val, size_t vlen, err_t *e);
int btc_update(bt_tree_t *t, const void *key, size_t klen, const void *val, size_t vlen, void *old_val,
               size_t old_cap, size_t *old_len, err_t *e);
int btc_delete(bt_tree_t *t, const void *key, size_t klen, const void *val, size_t vlen, void *old_val,
               size_t old_cap, size_t *old_len, err_t *e);
int btc_insert_batch(bt_tree_t *t, const bt_row_t *rows, int n, int *n_done, err_t *e);
int btc_drop_runs(bt_tree_t *t, err_t *e);

/* bt_col_scan.c */
int btc_lookup(bt_tree_t *t, const void *key, size_t klen, void *val, size_t cap, size_t *vlen,
               err_t *e);
int btc_lookup_batch(bt_tree_t *t, const bt_key_t *keys, int n, bt_lookup_cb_t cb, void *ctx,
                     err_t *e);
/* The segment for key (the entry with the greatest key <= key, else the
 * first): its entry key, descriptor and the key of the next entry, copied
 * into a, read under one latch hold. *found false for an empty tree. */
typedef struct btc_pos_s {
  bool sp_found;
  uint8_t *sp_key;          /* entry key */
  uint32_t sp_klen;
  uint8_t *sp_desc;
  size_t sp_dlen;
  bool sp_has_next;
  uint8_t *sp_next;         /* next entry's key: rows of this segment are below it */
  uint32_t sp_nlen;
  bool sp_first;            /* no entry before this one */
} btc_pos_t;
/* Finds the segment of key (NULL: the first) and, while its leaf is still
 * latched (C3), reads the next entry's key and loads the runs of columns
 * want[0..nwant) (NULL: all) into runs[] (NULL where not wanted or
 * absent). hold (may be NULL): the leaf stays pinned and shared-latched
 * in *hold (NULL when nothing was found), so that the caller checks its
 * rows' visibility under the latch they were read with (txn's rule L3:
 * the undo that swaps the segment waits for it); the caller lets go with
 * bp_unfix before it descends again (latch order). */
int btc_locate(bt_tree_t *t, const void *key, size_t klen, arena_t *a, btc_pos_t *pos,
               btc_desc_t *d, const bool *want, uint8_t **runs, uint64_t *pages, buf_t **hold,
               err_t *e);

/* A segment decoded whole (generic cursors) or by its keys only
 * (lookups, ls_keys_only): its position and one vector per decoded column
 * (column 0 the keys); a lookup's rows are fetched from the runs. */
typedef struct look_seg_s {
  btc_pos_t ls_pos;
  btc_desc_t ls_desc;
  vec_t ls_vec[BTC_MAX_COLS];
  bool ls_keys_only;          /* only ls_vec[0] decoded: rows come from ls_runs */
  uint8_t *ls_runs[BTC_MAX_COLS];
} look_seg_t;
/* Locates the segment of key (NULL: the first) and decodes it into s;
 * hold as btc_locate's. */
int btc_seg_load(bt_tree_t *t, const void *key, size_t klen, arena_t *a, look_seg_t *s, buf_t **hold,
                 err_t *e);
/* btc_seg_load decoding the key column only (point and vectored lookups:
 * a key is found by binary search and its row fetched value by value
 * from the runs, so a lookup into a segment costs one key decode, not
 * one decode of every column). */
int btc_seg_load_keys(bt_tree_t *t, const void *key, size_t klen, arena_t *a, look_seg_t *s, buf_t **hold,
                      err_t *e);
/* Row r of s as a column row, allocated in a. */
int btc_seg_row(const look_seg_t *s, int r, arena_t *a, uint8_t **row, size_t *len, err_t *e);

/* bt_col_cursor.c: bt_seek / bt_next on column trees */
typedef struct btc_cur_s btc_cur_t;
int btc_cur_open(bt_tree_t *t, btc_cur_t **out, err_t *e);
void btc_cur_close(btc_cur_t *c);
/* Lets the held leaf go (bt_cursor_release). */
void btc_cur_release(btc_cur_t *c);
int btc_cur_seek(btc_cur_t *c, const void *key, size_t klen, bt_dir_t dir, err_t *e);
int btc_cur_next(btc_cur_t *c, const void **key, size_t *klen, const void **val, size_t *vlen, err_t *e);

/* bt_col_stats.c: bt_estimate and bt_sample on column trees */
int btc_estimate(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len, double *out,
                 err_t *e);
int btc_sample(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len, int n,
               uint64_t seed, bt_sample_cb_t cb, void *ctx, err_t *e);

/* bt_col_check.c */
int btc_check(bt_tree_t *t, bt_check_t *out, err_t *e);

#endif /* CZ_BT_COL_INT_H */
