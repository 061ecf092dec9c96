/* table — rows of SQL tables in B-trees: the order-preserving key
 * encoding, the row codec, insert/update/delete with constraint checks and
 * index maintenance, and vectored scans and lookups with read-committed
 * visibility.
 *
 * Design notes (table/README.md has the formats and invariants):
 * - A table's primary tree maps the encoded primary key (or hidden row id)
 *   to the encoded row (every column). A secondary index's tree maps
 *   (encoded index key columns ‖ encoded primary key) to the encoded
 *   INCLUDE columns; all trees are unique B-trees. Unique secondary
 *   indexes are checked by a prefix probe under a lock on the index value.
 * - Key encoding: memcmp order of encodings = SQL order of values
 *   (datum_cmp), NULL after every value, composite keys by concatenation
 *   (each column's encoding is self-delimiting).
 * - A row's locator (row identity, BYTEA, opaque to callers) is its
 *   encoded primary key followed by an 8-byte hash of the row version the
 *   scan saw: update and delete use it to find the row and to detect a
 *   concurrent committed change (40001) instead of losing it.
 * - Writes go through txn/ (locks, log, undo). Reads take no lock: each
 *   entry is checked with txn_read_version while still latched.
 * - Point operations allocate nothing per row on the heap: keys and rows
 *   are encoded into stack buffers (a row is at most BT_MAX_ROW bytes).
 * - Long string values (over 1000 bytes, or the largest ones of a row that
 *   would not fit) are stored out of line in the table's long-values tree
 *   in chunks, the row holding a reference; scans rebuild them only for
 *   the columns asked for (README "Long values" has limits and rules).
 */
#ifndef CZ_TABLE_H
#define CZ_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "txn/txn.h"
#include "types/types.h"
#include "util/util.h"

#define TBL_LOC_HASH 8               /* bytes of row-version hash after the key */
#define TBL_MAX_LOC (BT_MAX_KEY + TBL_LOC_HASH)

/* ---- key encoding (tb_key.c) ----------------------------------------------- */

/* Appends the order-preserving encoding of d (of type t) at out; returns
 * the bytes it needs (it wrote them only when they fit in cap). */
size_t tbl_key_put(uint8_t *out, size_t cap, ty_t t, const datum_t *d);
/* Encodes n values as a composite key into out (cap bytes); 54000 when the
 * key is longer than cap (BT_MAX_KEY for stored keys). */
int tbl_key_encode(const ty_t *types, const datum_t *vals, int n, uint8_t *out, size_t cap,
                   size_t *len, err_t *e);
/* Decodes n values; strings are copied into a. XX001 on malformed input.
 * *used (may be NULL) gets the bytes consumed. */
int tbl_key_decode(const ty_t *types, int n, const uint8_t *p, size_t len, arena_t *a,
                   datum_t *out, size_t *used, err_t *e);

/* ---- row codec (tb_row.c) ------------------------------------------------- */

/* Encodes the n values of a row (all of a table's columns, in order) into
 * out; 54000 when longer than cap. */
int tbl_row_encode(const ty_t *types, int n, const datum_t *vals, uint8_t *out, size_t cap,
                   size_t *len, err_t *e);
/* Decodes the columns cols[0..ncols) (table column numbers) of an encoded
 * row into out[0..ncols); strings point into p unless a is not NULL (then
 * copied into a). Columns the row does not hold (added after it was
 * written) are NULL. XX001 on malformed input. */
int tbl_row_decode(const ty_t *types, int n, const uint8_t *p, size_t len, const int *cols,
                   int ncols, arena_t *a, datum_t *out, err_t *e);

/* ---- changes (tb_write.c) -------------------------------------------------- */

/* Inserts one row (vals: every column of t, in order; NULL for a column
 * without value — the caller has applied DEFAULTs). 23502 for a NULL in a
 * NOT NULL column ("null value in column \"c\" of relation \"t\" violates
 * not-null constraint"), 23505 for a duplicate primary key or unique index
 * value (naming the constraint). Every secondary index is maintained. */
int tbl_insert_row(txn_t *tx, const cat_table_t *t, const datum_t *vals, err_t *e);
/* Replaces the row loc names by vals (all columns). 40001 when the row was
 * changed or deleted by another transaction after it was read (or while
 * this one waited for its lock); 23502/23505 as insert. A changed primary
 * key moves the row. */
int tbl_update_row(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t loc_len,
                   const datum_t *vals, err_t *e);
/* As tbl_update_row, but only the columns set marks are given (vals[c]
 * is not read for the others): the others keep their stored values, and
 * their out-of-line values are neither read nor rewritten (UPDATE docs SET
 * title = ... need not scan the documents). */
int tbl_update_row_cols(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t loc_len,
                        const datum_t *vals, const bool *set, err_t *e);
/* Deletes the row loc names (and its index entries). 40001 as update. */
int tbl_delete_row(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t loc_len, err_t *e);

/* Batch forms for the executor: b holds the table's columns in order (the
 * binder casts values to the column types); sel (NULL = rows 0..n) picks
 * the rows. loc_col is the column of b holding locators (BYTEA). The first
 * failing row stops the call (the statement is then rolled back by the
 * caller). */
int tbl_insert(txn_t *tx, const cat_table_t *t, const batch_t *b, const int *sel, int n, err_t *e);
/* A load's batch (COPY FROM): rows 0..n of b, in any order. A table
 * without secondary indexes gets them encoded first (NOT NULL checked in
 * row order), sorted by key and inserted with one txn_insert_batch
 * (ascending keys past the end take the B-tree's append path); others go
 * row by row as tbl_insert. Errors as tbl_insert. */
int tbl_insert_batch(txn_t *tx, const cat_table_t *t, const batch_t *b, int n, err_t *e);
int tbl_update(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const int *sel,
               int n, err_t *e);
int tbl_delete(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const int *sel,
               int n, err_t *e);
/* tbl_update with only the columns set marks taken from b (the others'
 * vectors are not read and may hold anything): see tbl_update_row_cols. */
int tbl_update_cols(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const bool *set,
                    const int *sel, int n, err_t *e);

/* READ COMMITTED's re-evaluation of a changed row (PostgreSQL's
 * EvalPlanQual). When a row of an update or delete batch was changed or
 * deleted by a transaction that committed after the caller's scan read
 * it (the call waits for a live one first), tx being READ COMMITTED,
 * te_fn is called with the batch row r, under the row's lock: cur NULL
 * when the row is gone (it is skipped), else every column of the row's
 * current version and its locator (both valid during the call only).
 * te_fn either rewrites row r of the batch (every column the call reads,
 * the locator too, from that version; values it keeps must outlive the
 * call) and sets *pass (the row is then changed as rewritten), or leaves
 * *pass false (the row no longer qualifies: skipped). Snapshot levels,
 * and epq NULL, fail such a row with 40001. */
typedef struct tbl_epq_s {
  int (*te_fn)(void *ctx, int r, const datum_t *cur, const uint8_t *loc, size_t loc_len,
               bool *pass, err_t *e);
  void *te_ctx;
} tbl_epq_t;
int tbl_update_epq(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const bool *set,
                   const int *sel, int n, const tbl_epq_t *epq, err_t *e);
int tbl_delete_epq(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const int *sel,
                   int n, const tbl_epq_t *epq, err_t *e);

/* ---- row locks of SELECT … FOR UPDATE / FOR SHARE (tb_lock.c) ---------------- */

#define TBL_LOCK_OK 0       /* locked; the row is the version loc was read from */
#define TBL_LOCK_CHANGED 1  /* locked; another transaction changed it since */
#define TBL_LOCK_GONE 2     /* deleted since (nothing to lock) */
#define TBL_LOCK_BUSY 3     /* nowait: another transaction holds a conflicting lock */

/* The strengths (PostgreSQL's; conflicts as txn_lock_mode_t). */
#define TBL_LOCK_KEY_SHARE 1      /* FOR KEY SHARE */
#define TBL_LOCK_SHARE 2          /* FOR SHARE */
#define TBL_LOCK_NO_KEY_UPDATE 3  /* FOR NO KEY UPDATE */
#define TBL_LOCK_UPDATE 4         /* FOR UPDATE */

/* Locks the row loc names in strength (TBL_LOCK_KEY_SHARE …),
 * waiting for conflicting holders (40P01, 57014, 55P03 after
 * lock_timeout) unless nowait; *st says what became of it (TBL_LOCK_*).
 * TBL_LOCK_CHANGED with cur not NULL: cur[0..ncols) holds the row's
 * current values (strings in a). Under a snapshot a changed or deleted
 * row is 40001. */
int tbl_lock_row(txn_t *tx, const cat_table_t *t, const uint8_t *loc, size_t loc_len, int strength,
                 bool nowait, datum_t *cur, arena_t *a, int *st, err_t *e);

/* Creates an index (cat_create_index) and fills it from the table's rows
 * (23505 when a unique index finds duplicates). */
int tbl_create_index(cat_t *c, txn_t *tx, const cat_index_def_t *def, cat_oid_t *oid, err_t *e);

/* ---- bulk builds (tb_rebuild.c) ---------------------------------------------
 * Trees the transaction created, filled in sorted chunks (no row locks,
 * one B-tree pass per chunk). */

/* Fills the empty index ix (created by tx) from the rows of its table tx
 * sees; the caller has closed the index-build gate (cat_index_build_begin).
 * 23505 "could not create unique index" with DETAIL "Key (…)=(…) is
 * duplicated." for a unique index. */
int tbl_build_index(txn_t *tx, const cat_index_t *ix, err_t *e);

/* ALTER TABLE's rewrite into t, the table's new version whose trees are
 * new and empty (cat_alter_table with ad_rewrite): every row given (all of
 * t's columns, in any order) is checked (NOT NULL: 23502 "column \"c\" of
 * relation \"t\" contains null values") and stored (long values into t's
 * new long-values tree); end builds every secondary index and says how
 * many rows went in. A duplicate primary key: 23505 as tbl_build_index.
 * end and abort free rw. */
typedef struct tbl_rewrite_s tbl_rewrite_t;
int tbl_rewrite_begin(txn_t *tx, const cat_table_t *t, tbl_rewrite_t **out, err_t *e);
int tbl_rewrite_row(tbl_rewrite_t *rw, const datum_t *vals, err_t *e);
int tbl_rewrite_end(tbl_rewrite_t *rw, int64_t *rows, err_t *e);
void tbl_rewrite_abort(tbl_rewrite_t *rw);

/* ---- INSERT … ON CONFLICT (tb_conflict.c) ---------------------------------- */

/* What became of a proposed row (tbl_conflict_apply's act[]). */
#define TBL_CF_SKIPPED 0
#define TBL_CF_INSERTED 1
#define TBL_CF_UPDATED 2

/* DO UPDATE's SET and WHERE, evaluated by the caller: for the proposals
 * sel[0..n) (row numbers of b), ex holds at the same row numbers the row
 * each one conflicts with (every column, then its locator); fills those
 * rows of newv (every column: the SET values, the others as in ex) and
 * ok[row] (WHERE holds, or there is none). */
typedef int (*tbl_cf_eval_t)(void *ctx, const batch_t *ex, const batch_t *b, const int *sel,
                             int n, batch_t *newv, bool *ok, err_t *e);

typedef struct tbl_conflict_s tbl_conflict_t;
/* One statement's ON CONFLICT on t, living in a (the statement's): the
 * arbiter is unique index ct_indexes[index] (0 = the primary key), or with
 * index -1 every unique index (DO NOTHING only). eval NULL: DO NOTHING;
 * else DO UPDATE, SET giving the columns set marks (the others keep their
 * stored values, long ones unread). */
int tbl_conflict_open(txn_t *tx, const cat_table_t *t, int index, tbl_cf_eval_t eval, void *ctx,
                      const bool *set, arena_t *a, tbl_conflict_t **out, err_t *e);
/* Proposes rows sel[0..n) of b (every column, in order; sel NULL = 0..n)
 * in order, with read-committed semantics as PostgreSQL's: a row whose
 * arbiter value no row holds is inserted; one whose value a row holds is
 * skipped (DO NOTHING, or WHERE false) or updates that row (the version
 * current once it is locked: no lost update; a concurrent inserter of the
 * value is waited for, never 23505). act[row] says which; *newv (in a,
 * rows aligned with b) holds each inserted or updated row as written.
 * 21000 when a proposal's value is one this statement already inserted
 * or updated (DO UPDATE); 23505 for a conflict on another unique index;
 * 40P01, 57014 from lock waits. One vectored probe per call finds the
 * conflicting rows (README "ON CONFLICT"). */
int tbl_conflict_apply(tbl_conflict_t *c, const batch_t *b, const int *sel, int n, uint8_t *act,
                       batch_t **newv, arena_t *a, err_t *e);

/* ---- scans (tb_scan.c) ------------------------------------------------------ */

/* A bound on a prefix of an index's key columns: n values of the first n
 * key column types (ci_key_types). n = 0 or a NULL bound = open. */
typedef struct tbl_bound_s {
  int tb_n;
  const datum_t *tb_vals;
  bool tb_incl;
} tbl_bound_t;

typedef struct tbl_scan_s tbl_scan_t;

/* Opens a forward scan of index idx of t (0 = the primary tree) returning
 * columns cols[0..ncols) (table column numbers; any column: an index that
 * does not cover them fetches the rows from the primary tree by key, a
 * batch at a time) and, when want_loc, each row's locator as a last BYTEA
 * column. tx may be NULL (committed rows only). The scan lives in a. */
int tbl_scan_open(txn_t *tx, const cat_table_t *t, int idx, const int *cols, int ncols,
                  const tbl_bound_t *low, const tbl_bound_t *high, bool want_loc, arena_t *a,
                  tbl_scan_t **out, err_t *e);
/* Makes an open scan (before its first tbl_scan_next; not a morsel
 * scan) read its range from the high end down: rows in descending key
 * order, NULLs (which sort last) first — ORDER BY … DESC. Entry at a
 * time: a backward scan is for the first rows of a LIMIT, not for
 * reading a table. */
void tbl_scan_backward(tbl_scan_t *s);
/* A simple predicate on one column a scan returns, tested on the stored
 * value as it is decoded, before the row's other columns are: a row is
 * returned only when every predicate of its scan is true (so a NULL never
 * passes a comparison). Values have the physical kind of the column's
 * type; strings compare bytewise, NUMERIC by value whatever the scales,
 * doubles with NaN equal to itself and above every number (the
 * executor's order). */
typedef enum tbl_pred_op_e {
  TBP_EQ, TBP_NE, TBP_LT, TBP_LE, TBP_GT, TBP_GE,
  TBP_IN,                       /* equal to one of tp_vals */
  TBP_NOT_IN,                   /* non-NULL and equal to none of tp_vals */
  TBP_NULL, TBP_NOT_NULL
} tbl_pred_op_t;

typedef struct tbl_pred_s {
  int tp_out;                   /* the scan's column (index into cols) tested */
  tbl_pred_op_t tp_op;
  bool tp_rtrim;                /* strings: the stored value's trailing blanks
                                   do not count (CHAR(n) as bpchar) */
  int tp_nvals;                 /* 1 for comparisons, 0 for the NULL tests */
  const datum_t *tp_vals;       /* non-NULL values (the caller drops NULL
                                   list items and empties a scan whose
                                   comparison value is NULL) */
} tbl_pred_t;

/* Restricts an open scan (before its first tbl_scan_next) to the rows
 * passing every one of preds[0..n) (kept by reference: they must live as
 * long as the scan). */
int tbl_scan_filter(tbl_scan_t *s, const tbl_pred_t *preds, int n, err_t *e);
/* Whether row r of b passes every predicate (tp_out indexes b's columns). */
bool tbl_preds_pass(const tbl_pred_t *preds, int n, const batch_t *b, int r);
/* Fills out (ncols (+1) columns of the right types, created by the caller
 * with capacity cap) with up to cap rows; out->b_n = 0 at the end. Strings
 * are copied into a (the batch's arena). Holds no latch on return. */
int tbl_scan_next(tbl_scan_t *s, batch_t *out, arena_t *a, err_t *e);
/* As tbl_scan_next, but may return no rows before the end (a filtered
 * scan that examined many rows and kept none): *done says the end. */
int tbl_scan_step(tbl_scan_t *s, batch_t *out, arena_t *a, bool *done, err_t *e);
void tbl_scan_close(tbl_scan_t *s);

/* Point lookups by full primary key, vectored: keys[i] holds the t->ct_npk
 * key values of row i (the row id as one INT8 for tables without primary
 * key). Fills row i of out with the columns cols (then the locator when
 * want_loc) of the row keys[i] names, and found[i]; rows not found are
 * all NULL. out must have capacity n; out->b_n = n. Keys need not be
 * sorted (they are sorted internally for bt_lookup_batch). */
int tbl_lookup(txn_t *tx, const cat_table_t *t, const datum_t *const *keys, int n,
               const int *cols, int ncols, bool want_loc, batch_t *out, bool *found,
               arena_t *a, err_t *e);

/* ---- constraint probes (tb_refcheck.c) ------------------------------------ */

/* For each of the n keys (keys[i]: the values of unique index idx's key
 * columns, in index order, of its ci_key_types, none NULL) whether a row
 * tx sees holds that value (idx 0: the primary key; not a row id). With
 * lock, the value's lock name — the one its inserters, deleters and
 * updaters take — is locked first, so the answer holds until tx ends
 * (README "Constraint probes"). Vectored: the keys are encoded and
 * sorted; one sorted tbl_lookup for the primary key, one cursor moving
 * forward for a secondary index. 40P01 / 57014 from lock waits. */
int tbl_ref_probe(txn_t *tx, const cat_table_t *t, int idx, const datum_t *const *keys, int n,
                  bool lock, bool *found, arena_t *a, err_t *e);
/* The rows named by the locators in column loc_col of rows sel[0..n) of
 * b (sel NULL: 0..n), as tbl_lookup reads them (row i of out for the i-th
 * of them; found[i] false when it is gone). */
int tbl_fetch_locs(txn_t *tx, const cat_table_t *t, const batch_t *b, int loc_col, const int *sel,
                   int n, const int *cols, int ncols, bool want_loc, batch_t *out, bool *found,
                   arena_t *a, err_t *e);
/* Index-prefix probes, vectored (tb_probe.c): the rows of index idx of t
 * (0 = the primary tree; unique or not) whose first nkey key columns
 * equal a batch of given prefixes, for an index join. tbl_probe_open
 * (once: it starts a command of tx, as a scan does, and every batch reads
 * as of it) says which columns come back (table column numbers; any
 * column: an index that does not cover them fetches the rows of each
 * output batch from the primary tree with one bt_lookup_batch) and the
 * predicates they must pass (tbl_scan_filter's, tp_out indexing cols;
 * kept by reference). tbl_probe_keys starts a batch: the prefixes are
 * rows sel[0..n) (sel NULL: 0..n-1) of the vectors keys[0..nkey) (values
 * of the index's key column types; rows with a NULL in their prefix must
 * not be given: NULL equals nothing); they are encoded, sorted and the
 * equal ones merged (same[j], when same is not NULL: the position after j
 * in sel holding an equal prefix, -1 none), so the index is walked once
 * in key order, a seek per distinct prefix. tbl_probe_next fills out
 * (ncols columns, capacity from its vectors) with the next matching rows
 * as tx sees them, each distinct prefix's rows once: at[i] is the
 * position in sel of the first prefix row i matched; out->b_n = 0 when
 * the batch is done. Strings are copied into a. Holds no latch on
 * return. */
typedef struct tbl_probe_s tbl_probe_t;
int tbl_probe_open(txn_t *tx, const cat_table_t *t, int idx, int nkey, const int *cols, int ncols,
                   const tbl_pred_t *preds, int npred, arena_t *a, tbl_probe_t **out, err_t *e);
int tbl_probe_keys(tbl_probe_t *p, const vec_t *const *keys, const int *sel, int n, int *same,
                   arena_t *a, err_t *e);
int tbl_probe_next(tbl_probe_t *p, batch_t *out, int *at, arena_t *a, err_t *e);
void tbl_probe_close(tbl_probe_t *p);

/* A scan that is a point lookup (tb_point.c): tbl_point_open returns 1
 * (nothing opened) unless index idx is the primary tree and low and high
 * are equal and inclusive on every primary key column; then *out reads
 * that one row (or none) with one tbl_lookup: tbl_point_next fills out
 * (as tbl_scan_next: the columns cols, then the locator when want_loc)
 * with it the first time and with 0 rows after. Nothing to close. */
typedef struct tbl_point_s tbl_point_t;
int tbl_point_open(txn_t *tx, const cat_table_t *t, int idx, const int *cols, int ncols,
                   const tbl_bound_t *low, const tbl_bound_t *high, bool want_loc, arena_t *a,
                   tbl_point_t **out, err_t *e);
int tbl_point_next(tbl_point_t *p, batch_t *out, arena_t *a, err_t *e);

/* ---- parallel scans: key ranges and morsels (tb_split.c) -------------------
 * A scan cut into contiguous key ranges that several threads read at once
 * inside one transaction (README "Parallel scans" says what a worker may
 * do). */
#define TBL_MAX_SPLIT 4096           /* most ranges one split may ask for */
typedef struct tbl_split_s tbl_split_t;
typedef struct tbl_morsels_s tbl_morsels_t;

/* Cuts the scan of index idx of t between low and high (as tbl_scan_open
 * takes them; NULL = open) into about n (1..TBL_MAX_SPLIT) contiguous,
 * disjoint key ranges that together hold exactly the scan's rows,
 * balanced by the index tree's upper-level separators (bt_divide: no leaf
 * is read, no row counted). Fewer ranges when the range spans few pages:
 * one for a table of one leaf page, an empty table or an empty range.
 * align > 0: no range boundary falls between two keys that agree on the
 * index's first align key columns (the rows of one group of a group-by
 * on them lie in one range; a streaming group-by per thread then sees
 * whole groups); 0: cuts anywhere. Needs no transaction (it reads the
 * tree's shape). Lives in a. */
int tbl_scan_split(const cat_table_t *t, int idx, const tbl_bound_t *low, const tbl_bound_t *high,
                   int n, int align, arena_t *a, tbl_split_t **out, err_t *e);
/* The number of ranges of a split (>= 1). */
int tbl_split_count(const tbl_split_t *sp);
/* A morsel dispenser over sp's ranges: scans opened on it
 * (tbl_scan_open_morsels, from any thread) take the ranges one at a time
 * in key order, each range going to exactly one scan, the next free one
 * to whichever scan finishes first. Every scan on it reads as tx sees the
 * rows at one command, started here (as tbl_scan_open starts one): call
 * it on the transaction's own thread. Lives in a, which must outlive the
 * scans. */
int tbl_morsels_new(txn_t *tx, const tbl_split_t *sp, arena_t *a, tbl_morsels_t **out, err_t *e);
/* How many ranges were handed out so far (tests, EXPLAIN ANALYZE). */
int tbl_morsels_taken(const tbl_morsels_t *m);
/* Opens a scan (in a, the calling thread's arena) that reads morsels of
 * m: as a tbl_scan_open of m's index and range returning cols (and the
 * locator when want_loc), tbl_scan_filter applies; each tbl_scan_next
 * fills its batch from one morsel, in key order, taking the next morsel
 * when its own is done; 0 rows = no morsel left. tbl_scan_close as any
 * scan. */
int tbl_scan_open_morsels(tbl_morsels_t *m, const int *cols, int ncols, bool want_loc, arena_t *a,
                          tbl_scan_t **out, err_t *e);
/* The morsel (range number) the last batch of a morsel scan came from;
 * -1 before the first, and always for a plain scan. */
int tbl_scan_morsel(const tbl_scan_t *s);

/* ---- out-of-line values (tb_long.c) ------------------------------------------
 * A string value longer than 1000 bytes, or the largest ones of a row that
 * would not fit in BT_MAX_ROW, is stored in the table's long-values tree
 * (chunks) and the row holds a reference; reads rebuild it only for the
 * columns a scan asks for. Process-wide counters (tests, statistics). */
typedef struct tbl_stats_s {
  uint64_t ts_long_stored;     /* values written out of line */
  uint64_t ts_long_fetched;    /* values rebuilt from chunks */
  uint64_t ts_long_chunks;     /* chunk entries read */
  uint64_t ts_long_rereads;    /* rows read again: their old chunks went at a commit */
} tbl_stats_t;
void tbl_get_stats(tbl_stats_t *out);

/* ---- estimates for the optimizer (tb_sample.c) ---------------------------- */

/* Estimated rows of t whose index idx key lies between low and high (NULL
 * or 0 columns: open), from the tree's shape alone (two descents). */
int tbl_estimate(const cat_table_t *t, int idx, const tbl_bound_t *low, const tbl_bound_t *high,
                 arena_t *a, double *rows, err_t *e);
/* Up to n rows of that range picked at random (seeded), as tx sees them
 * (tx NULL: committed rows), columns cols into out (created by the caller
 * with capacity >= n); out->b_n rows come back, fewer for small ranges,
 * and a row may come twice. */
int tbl_sample(txn_t *tx, const cat_table_t *t, int idx, const tbl_bound_t *low,
               const tbl_bound_t *high, int n, uint64_t seed, const int *cols, int ncols,
               batch_t *out, arena_t *a, err_t *e);

/* ANALYZE (tb_analyze.c): reads every row tx sees and replaces t's
 * statistics (catalog.h, cat_stats_*) with ones built from them; 57014
 * when *cancel becomes true (cancel may be NULL). */
int tbl_analyze(txn_t *tx, const cat_table_t *t, volatile bool *cancel, err_t *e);

/* Number of rows visible to tx (tests, small tables). */
int tbl_count(txn_t *tx, const cat_table_t *t, int64_t *out, err_t *e);

#endif /* CZ_TABLE_H */
