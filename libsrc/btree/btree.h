/* btree — B+trees over buffer pages: variable-length keys and values, row
 * leaves with prefix compression, unique and non-unique trees, cursors for
 * forward and backward range scans, vectored (sorted batch) lookup and a
 * fast path for appending sorted batches, split and merge, and bt_check.
 *
 * Design notes (btree/README.md has the page layout and the latch rules):
 * - Keys are byte strings compared with memcmp, the shorter first on a tie
 *   of the common length. Upper layers encode typed keys order-preservingly.
 * - A tree is named by its root page number, which never changes for the
 *   life of the tree (a root split moves the root's contents into two new
 *   children). The root page records the tree's flags.
 * - Unique tree: at most one entry per key; insert of a present key fails
 *   with 23505. Non-unique tree: entries are ordered and identified by
 *   (key, value); the same (key, value) twice is 23505.
 * - Leaf layout: a page header, a slot array and row bodies; a per-page
 *   common key prefix is stored once (prefix compression). Column trees
 *   (BT_COLUMN) have column leaves: each leaf row is a segment of up to
 *   4096 index rows with one compressed run per column on pages of its own;
 *   the entry calls below serve both layouts.
 * - Concurrency: latch coupling. Readers descend with shared latches,
 *   writers descend optimistically (shared, exclusive at the leaf) and
 *   restart pessimistically (exclusive, releasing safe ancestors) when a
 *   split or merge is needed. Latches are taken top-down and left-to-right;
 *   moving left takes the left sibling with BP_NOWAIT and re-descends on
 *   failure.
 * - Transactions, logging and row locks are not this layer's: txn/ calls
 *   these functions and logs what it did.
 */
#ifndef CZ_BTREE_H
#define CZ_BTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buffer/buffer.h"
#include "column/column.h"
#include "types/types.h"
#include "util/util.h"

#define BT_MAX_KEY 1024      /* bytes; longer keys are 54000 */
#define BT_MAX_ROW 2048      /* key + value bytes; longer rows are 54000 */

/* bt_create flags */
#define BT_UNIQUE 0x1
/* Column layout (README "Column leaves"): leaf rows are segments of up to
 * BTC_SEG_ROWS index rows with one compressed run per column; values are
 * column rows (bt_crow_*). Non-unique column trees order (key, value)
 * pairs as row trees do; a pair is limited to BT_MAX_KEY bytes. */
#define BT_COLUMN 0x2

/* Return values besides CZ_OK and CZ_ERR. */
#define BT_NOT_FOUND 1
#define BT_END 1

typedef struct bt_tree_s bt_tree_t;
typedef struct bt_cursor_s bt_cursor_t;

typedef struct bt_key_s {
  const void *k_data;
  uint32_t k_len;
} bt_key_t;

typedef struct bt_row_s {
  const void *r_key;
  uint32_t r_key_len;
  const void *r_val;
  uint32_t r_val_len;
} bt_row_t;

/* Creates an empty tree; *root is its permanent name. */
int bt_create(bpool_t *bp, uint32_t flags, pg_no_t *root, err_t *e);
/* Opens a handle on an existing tree (reads the flags from the root page).
 * Handles are cheap (no pages pinned while idle); many may be open at once,
 * and several handles on one tree may be used from different threads. */
int bt_open(bpool_t *bp, pg_no_t root, bt_tree_t **out, err_t *e);
void bt_close(bt_tree_t *t);
/* Frees every page of the tree, root included; closes t. */
int bt_drop(bt_tree_t *t, err_t *e);
pg_no_t bt_root(const bt_tree_t *t);
/* Pages the tree occupies now (root, inner pages, leaves): exact through
 * inserts, splits, merges, drops, checkpoints and recovery, read from the
 * storage allocation maps (no page of the tree is read, nothing is kept
 * per insert). README "Size accounting". */
uint64_t bt_pages(const bt_tree_t *t);
uint32_t bt_flags(const bt_tree_t *t);

/* ---- single-row operations -------------------------------------------- */

int bt_insert(bt_tree_t *t, const void *key, size_t key_len,
              const void *val, size_t val_len, err_t *e);
/* Unique tree: replaces the value of key. Non-unique: not allowed (XX000).
 * BT_NOT_FOUND when absent. When old_val is not NULL the previous value is
 * copied there (up to old_cap bytes, *old_len its full length). */
int bt_update(bt_tree_t *t, const void *key, size_t key_len,
              const void *val, size_t val_len,
              void *old_val, size_t old_cap, size_t *old_len, err_t *e);
/* Unique tree: deletes key (val ignored, may be NULL). Non-unique: deletes
 * the entry (key, val). BT_NOT_FOUND when absent. old_val as bt_update. */
int bt_delete(bt_tree_t *t, const void *key, size_t key_len,
              const void *val, size_t val_len,
              void *old_val, size_t old_cap, size_t *old_len, err_t *e);
/* Copies the value of key (the first entry of key in a non-unique tree)
 * into val (up to val_cap bytes; *val_len gets its full length).
 * BT_NOT_FOUND when absent. */
int bt_lookup(bt_tree_t *t, const void *key, size_t key_len,
              void *val, size_t val_cap, size_t *val_len, err_t *e);

/* ---- vectored operations ---------------------------------------------- */

/* Called once per key of a batch lookup, in key order: found says whether
 * the key exists; val points into a latched page and is valid only during
 * the call. */
typedef void (*bt_lookup_cb_t)(void *ctx, int key_index, bool found,
                               const void *val, size_t val_len);

/* keys must be sorted ascending (duplicates allowed). The batch descends
 * once and walks left to right, reusing the latched path: a key that falls
 * in the current leaf costs one in-page search; otherwise it climbs only as
 * far as the lowest ancestor covering it. */
int bt_lookup_batch(bt_tree_t *t, const bt_key_t *keys, int n,
                    bt_lookup_cb_t cb, void *ctx, err_t *e);

/* Inserts rows sorted ascending by key (by key, value for non-unique).
 * When the rows fall after the tree's last key (the loader's case) the
 * leaves are filled to the brim left to right and separators pushed up
 * without re-descending per row. Otherwise behaves as bt_insert per row but
 * reuses the path. On a unique violation the rows before it stay
 * inserted, *n_done tells how many (n_done may be NULL). */
int bt_insert_batch(bt_tree_t *t, const bt_row_t *rows, int n, int *n_done, err_t *e);

/* ---- cursors ----------------------------------------------------------- */

typedef enum bt_dir_e {
  BT_FORWARD = 0,
  BT_BACKWARD = 1
} bt_dir_t;

int bt_cursor_open(bt_tree_t *t, bt_cursor_t **out, err_t *e);
void bt_cursor_close(bt_cursor_t *c);
/* Positions for a scan. FORWARD: first entry >= key (key NULL = first
 * entry). BACKWARD: last entry <= key (key NULL = last entry). The cursor
 * holds no latch between bt_next calls when `release` behaviour is needed:
 * it keeps one leaf pinned and shared-latched while iterating inside it. */
int bt_seek(bt_cursor_t *c, const void *key, size_t key_len, bt_dir_t dir, err_t *e);
/* The next entry in the seek's direction: CZ_OK with key/val set (pointers
 * valid until the next call on c), BT_END past the end. */
int bt_next(bt_cursor_t *c, const void **key, size_t *key_len,
            const void **val, size_t *val_len, err_t *e);
/* Releases the leaf the cursor holds; the next bt_next re-finds its place
 * by key. Scans that pause (to ship a batch) call it so writers are not
 * blocked. */
void bt_cursor_release(bt_cursor_t *c);

/* A run: the entries of the leaf a forward cursor holds, from its place
 * on, read in one call (a scan decodes a leaf's rows while it is pinned
 * instead of paying a cursor step, a key copy and a bounds check per row).
 * Entry i's key is br_prefix (br_plen bytes, shared by every entry of the
 * leaf) followed by br_sfx[i] (br_slen[i] bytes). Pointers stay valid
 * until the next call on the cursor. */
#define BT_RUN_MAX 256
typedef struct bt_run_s {
  int br_n;
  const uint8_t *br_prefix;
  uint32_t br_plen;
  const uint8_t *br_sfx[BT_RUN_MAX];
  const uint8_t *br_val[BT_RUN_MAX];
  uint16_t br_slen[BT_RUN_MAX];
  uint16_t br_vlen[BT_RUN_MAX];
} bt_run_t;
/* The next up to max (<= BT_RUN_MAX) entries of a forward scan, all from
 * one leaf: CZ_OK with run->br_n >= 1, BT_END past the end. The cursor
 * does not move until bt_run_take. */
int bt_next_run(bt_cursor_t *c, int max, bt_run_t *run, err_t *e);
/* The caller used the first k (0..br_n) entries of the run: the cursor
 * steps past them, as k bt_next calls would have (a release then re-seeks
 * after the last one taken). */
void bt_run_take(bt_cursor_t *c, const bt_run_t *run, int k);
/* Entry i's whole key into buf (BT_MAX_KEY bytes); its length. */
size_t bt_run_key(const bt_run_t *run, int i, uint8_t *buf);

/* ---- estimates for the optimizer (bt_sample.c) -------------------------- */

/* Estimated number of entries with lo <= key < hi (NULL: open end), from
 * where the two keys fall on their descents: two descents, no scan. Exact
 * when both ends fall on one leaf. */
int bt_estimate(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len,
                double *out, err_t *e);
/* Called under the leaf's latch with one sampled entry (pointers valid
 * only during the call). */
typedef void (*bt_sample_cb_t)(void *ctx, const void *key, size_t key_len, const void *val,
                               size_t val_len);
/* Up to n entries of [lo, hi), each from a random descent (the same seed
 * gives the same picks on the same tree); a descent that finds no entry
 * of the range calls nothing. */
int bt_sample(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len, int n,
              uint64_t seed, bt_sample_cb_t cb, void *ctx, err_t *e);

/* ---- dividing a range for parallel scans (bt_divide.c) ------------------ */

/* Up to n - 1 keys strictly between lo and hi (NULL: open ends),
 * ascending, that cut the range into about n pieces of similar entry
 * counts (*nkeys + 1 pieces: [lo, k0), [k0, k1) … [k_last, hi)): the
 * separators of the highest level of the tree that has enough of them, or
 * of the level above the leaves (fewer cuts: a tree of one leaf gives
 * none). Reads upper pages only (about n of them); keys live in a. A
 * concurrent change of the tree makes the pieces less even, never
 * overlapping. Unique trees cut between entries; a non-unique tree's
 * cuts are key prefixes (entries of one key may share a piece). */
int bt_divide(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len, int n,
              arena_t *a, bt_key_t **keys, int *nkeys, err_t *e);

/* ---- column trees (bt_col_*.c; README "Column leaves") ----------------- */

/* A column tree's values are column rows: a self-describing tuple of typed
 * values (README has the bytes). The entry calls above (bt_insert,
 * bt_update, bt_delete, bt_lookup, bt_lookup_batch, bt_insert_batch,
 * bt_check, bt_drop) take and give column rows on a column tree. */
#define BTC_MAX_CROW 65536  /* bytes of one column row */
#define BTC_MAX_COLS 80     /* value columns + the key column */
/* Bytes bt_crow_build writes for these values, or 0 when a kind has no
 * column form (INTERVAL). */
size_t bt_crow_size(const ty_phys_t *kinds, const datum_t *vals, int n);
/* Writes the column row of vals (kinds[i] for each, NULLs as d_null) into
 * out (bt_crow_size bytes); 0A000 for a kind without a column form,
 * 54000 past BTC_MAX_CROW. */
int bt_crow_build(const ty_phys_t *kinds, const datum_t *vals, int n, uint8_t *out, size_t cap,
                  size_t *len, err_t *e);
/* Parses a column row: *n columns (at most max) into kinds and vals
 * (strings point into row). XX001 when the bytes are not a column row. */
int bt_crow_parse(const uint8_t *row, size_t len, int max, ty_phys_t *kinds, datum_t *vals, int *n,
                  err_t *e);

/* A predicate pushed into a column scan: column cp_col (0 = the keys, as
 * strings; 1.. the value columns) against constants of its kind. */
typedef struct bt_col_pred_s {
  int cp_col;
  ce_pred_t cp_pred;
} bt_col_pred_t;

typedef struct bt_col_scan_s bt_col_scan_t;
/* A forward scan of [lo, hi) (NULL: open ends) of a column tree that
 * reads and decodes only columns cols[0 .. ncols) (0 = the key bytes as a
 * string column) and evaluates preds on the compressed runs; segments
 * whose min/max rule a predicate out are skipped without reading their
 * other columns. The arrays are copied. */
int bt_col_scan_open(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len,
                     const int *cols, int ncols, const bt_col_pred_t *preds, int npreds,
                     bt_col_scan_t **out, err_t *e);
/* The next matching rows, at most max and all from one segment, into
 * out[0 .. ncols) (vectors of the columns' kinds with room for max; a
 * column a segment lacks reads as NULL): CZ_OK with *n >= 1, BT_END when
 * done. Strings point into the scan's memory and stay valid until the
 * next call. No latch is held between calls (unless bt_col_scan_hold). */
int bt_col_scan_next(bt_col_scan_t *s, vec_t *out, int max, int *n, err_t *e);
void bt_col_scan_close(bt_col_scan_t *s);
/* Points the scan at a new range [lo, hi) (as bt_col_scan_open's; the
 * columns, predicates and visibility stay): the vectored probes of a
 * sorted batch of keys re-aim one scan per key. */
int bt_col_scan_reaim(bt_col_scan_t *s, const void *lo, size_t lo_len, const void *hi, size_t hi_len,
                      err_t *e);
/* hold true: the current segment's leaf stays shared-latched between
 * calls, and a re-aimed range that starts inside that segment reads it
 * again with no descent, no copy of its runs and no new decode of its
 * keys (a sorted probe batch pays one locate per segment, not per key).
 * The caller must not wait for another latch, or for a row lock, while
 * holding; hold false lets the leaf go (before returning to the
 * executor: no latch is held across batches). */
void bt_col_scan_hold(bt_col_scan_t *s, bool hold);

/* Visibility of a column scan's rows (txn/README.md rule L3: a reader
 * checks an entry under the leaf latch it read it with). Both calls run
 * while the segment's leaf is shared-latched, before predicates and
 * min/max skipping, so an undo that would swap the segment back and
 * release its lock waits for them. */
typedef enum bt_vis_e {
  BT_VIS_KEEP = 0,   /* the row as stored */
  BT_VIS_SKIP,       /* not visible: left out */
  BT_VIS_REPLACE     /* *val (a column row) is what the reader sees instead */
} bt_vis_t;
typedef struct bt_col_vis_s {
  /* Every row visible as stored (no per-row calls for this segment);
   * NULL: ask cv_row for every row. */
  bool (*cv_plain)(void *ctx);
  /* One row in the scan's range; a replacement lives in a (the scan's
   * memory for this segment) or anywhere that outlives the next call. */
  bt_vis_t (*cv_row)(void *ctx, const void *key, size_t key_len, arena_t *a, const void **val,
                     size_t *val_len);
  void *cv_ctx;
} bt_col_vis_t;
/* Sets the scan's visibility (copied; NULL: every row as stored) before
 * its first bt_col_scan_next. */
void bt_col_scan_set_vis(bt_col_scan_t *s, const bt_col_vis_t *vis);
/* Segments read and skipped so far (tests and EXPLAIN ANALYZE). */
void bt_col_scan_stats(const bt_col_scan_t *s, uint64_t *read, uint64_t *skipped);

/* ---- verification and statistics -------------------------------------- */

typedef struct bt_check_s {
  uint64_t bc_entries;
  uint64_t bc_leaves;
  uint64_t bc_inner;
  int bc_height;
  uint64_t bc_bytes_used;   /* of leaf pages */
  uint64_t bc_segments;     /* column trees: segment entries (bc_entries counts rows) */
  uint64_t bc_run_pages;    /* column trees: pages holding compressed runs */
} bt_check_t;

/* Verifies every invariant of btree/README.md over the whole tree: page
 * types and owner, key order within and across pages, separator bounds,
 * sibling links both ways, uniform leaf depth, slot and prefix consistency,
 * fill (no empty non-root page), counts. XX001 with the first violation
 * (page number and what is wrong). Takes shared latches; run it when the
 * tree is quiet for an exact answer. */
int bt_check(bt_tree_t *t, bt_check_t *out, err_t *e);

#endif /* CZ_BTREE_H */
