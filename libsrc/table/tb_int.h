/* tb_int.h — what the table layer's files share: key and row building for
 * a table and its indexes, batch/vector helpers, visibility-checked reads.
 */
#ifndef CZ_TB_INT_H
#define CZ_TB_INT_H

#include <stdatomic.h>

#include "table/table.h"

/* Bytes of the encoded key of n columns of types starting at p (without
 * decoding them); len when malformed. */
size_t tbl_key_skip(const ty_t *types, int n, const uint8_t *p, size_t len);

/* The primary key of a row: the pk columns of vals (or the row id). */
int tb_pk_encode(const cat_table_t *t, const datum_t *vals, int64_t rowid, uint8_t *out,
                 size_t cap, size_t *len, err_t *e);
/* The types of the primary key's columns (the row id: one INT8). */
const ty_t *tb_pk_types(const cat_table_t *t, int *n);
/* A secondary index entry for a row: key = index columns ‖ pk, val = the
 * INCLUDE columns (row codec); *prefix_len = bytes of the index columns;
 * *has_null: an index column is NULL (no uniqueness then), never for a
 * NULLS NOT DISTINCT index (where NULL keys conflict like values). */
int tb_index_entry(const cat_index_t *ix, const datum_t *vals, const uint8_t *pk, size_t pk_len,
                   uint8_t *key, size_t *key_len, size_t *prefix_len, bool *has_null,
                   uint8_t *val, size_t *val_len, err_t *e);
/* Adds the entry of a row to a secondary index (unique check, value lock). */
int tb_index_add(txn_t *tx, const cat_index_t *ix, const datum_t *vals, const uint8_t *pk,
                 size_t pk_len, err_t *e);
/* The first entry of index ix whose index columns are the encoded prefix
 * p (plen bytes) and whose row tx sees now: *found, and its primary key
 * into pk (BT_MAX_KEY bytes; pk NULL: not wanted). Used where a unique
 * value is probed (ON CONFLICT, foreign keys); cur is released. */
int tb_index_find(txn_t *tx, bt_cursor_t *cur, const cat_index_t *ix, const uint8_t *p, size_t plen,
                  uint8_t *pk, size_t *pk_len, bool *found, err_t *e);
/* The column types of a table, cached on the stack by callers. */
void tb_col_types(const cat_table_t *t, ty_t *out);
/* Hash of a stored row value: the version check of a locator. */
uint64_t tb_row_hash(const void *val, size_t len);

/* Whether the index covers the columns (key, include or pk columns). */
bool tb_index_covers(const cat_index_t *ix, const cat_table_t *t, const int *cols, int ncols);
/* Whether decoding a key gives back the value itself: not for NUMERIC
 * (1.0 and 1.00 share a key) nor INTERVAL (1 mon and 30 days do), whose
 * columns a covered index scan must fetch from the row. */
bool tbl_key_exact(ty_t t);

/* ---- reads shared by scans and samples (tb_scan.c) ------------------- */

/* The search key of a bound (NULL, *len 0 when open), in a. */
int tb_bound_encode(const cat_index_t *ix, const tbl_bound_t *b, arena_t *a, uint8_t **out,
                    size_t *len, err_t *e);
/* Fetches the rows of primary keys keys[0..n) (sorted here, in place) into
 * rows 0..n of out as tx sees them at command cmd; found[i] says whether
 * row i exists (the others are all NULL). */
int tb_fetch(const txn_t *tx, uint32_t cmd, const cat_table_t *t, const int *cols, int ncols,
             bool want_loc, bt_key_t *keys, int n, batch_t *out, bool *found, arena_t *a,
             err_t *e);

/* For index-prefix probes (tb_probe.c): a scan re-aimed at the rows whose
 * key starts with key[0..len) (kept by reference), sought at its next
 * fill; tb_scan_fill fills rows n0.. of out up to its capacity (out->b_n
 * the rows now in it). A scan whose index does not cover its columns
 * (tb_scan_fetches) must be given defer: the primary keys of rows n0..
 * go there, the rows are not fetched (the caller fetches a whole batch
 * with one tb_fetch) and its predicates are not tested. */
void tb_scan_aim(tbl_scan_t *s, const uint8_t *key, size_t len, bool above);
/* above: the key is above the range last read (a probe's next prefix):
 * the cursor may move to it within its leaf instead of descending. With
 * hold the scan keeps its leaf between fills (only shared latches; long
 * values and fetches still read with none held) until tb_scan_hold(s,
 * false) releases it. */
void tb_scan_hold(tbl_scan_t *s, bool hold);
int tb_scan_fill(tbl_scan_t *s, batch_t *out, int n0, bt_key_t *defer, arena_t *a, err_t *e);
bool tb_scan_fetches(const tbl_scan_t *s);
/* Whether the scan's range (as last aimed) is read to its end. */
bool tb_scan_ended(const tbl_scan_t *s);
/* The command of its transaction the scan reads as of. */
uint32_t tb_scan_cmd(const tbl_scan_t *s);
/* Sorts keys[0..n) by bytes, stably; perm[i] = original position of
 * sorted key i. */
void tb_sort(bt_key_t *keys, int *perm, int n, arena_t *a);
/* Moves row from of out's first ncols columns to row to. */
void tb_scan_rows_move(batch_t *out, int ncols, int from, int to);
/* The search key of n values of the given types (longer than a stored key
 * can be: no error, it matches nothing), in a. */
int tb_search_key(const ty_t *types, const datum_t *vals, int n, arena_t *a, uint8_t **out,
                  size_t *len, err_t *e);

/* ---- out-of-line (long) values (tb_row.c, tb_long.c) ----------------- */

#define TB_ROW_LONG (1u << 16)     /* header flag: the row holds references */
#define TB_LONG_THRESHOLD 1000     /* longer strings are always stored out of line */
#define TB_LONG_MIN 64             /* shorter strings never are */
#define TB_LONG_CHUNK 1900         /* bytes of value per chunk entry (4 per leaf) */
#define TB_LONG_KEY 12             /* chunk key: value id (8, BE) ‖ chunk number (4, BE) */
#define TB_LONG_MAX ((1u << 30) - 1) /* largest value, as PostgreSQL's 1 GB */

/* A reference to an out-of-line value (lr_on false: the column is inline). */
typedef struct tb_ref_s {
  bool lr_on;
  uint64_t lr_id;
  uint64_t lr_len;
} tb_ref_t;

/* The row codec with references: refs (NULL = none) says which columns
 * are written as references instead of their bytes. */
int tb_row_encode_refs(const ty_t *types, int n, const datum_t *vals, const tb_ref_t *refs,
                       uint8_t *out, size_t cap, size_t *len, err_t *e);
/* Decodes as tbl_row_decode; a reference column gives refs[k] (lr_on)
 * and an empty string in out[k]. refs NULL: a wanted reference is XX000. */
int tb_row_decode_refs(const ty_t *types, int n, const uint8_t *p, size_t len, const int *cols,
                       int ncols, arena_t *a, datum_t *out, tb_ref_t *refs, err_t *e);
bool tb_row_has_refs(const uint8_t *p, size_t len);

/* How a scan decodes rows straight into its batch's vectors (built once
 * per scan by tb_dplan_build, tb_row_vec.c): which stored column goes to
 * which output, how wide each is, which predicates test it; and for rows
 * without a NULL among the walked columns (the common case, every NOT NULL
 * table) a short program of steps: runs of unwanted fixed-width columns
 * skipped in one add, variable ones skipped by their length, wanted ones
 * read straight into their vector row and tested at once. */
typedef struct tb_dstep_s {
  uint8_t ds_op;                /* TB_DS_* */
  uint8_t ds_kind;              /* TB_DK_* (SKIPV, GET) */
  uint16_t ds_w;                /* SKIP: bytes */
  int16_t ds_out;               /* GET: the output */
  int16_t ds_pred;              /* GET: the first predicate on it, -1 none */
  uint32_t ds_slot;             /* GET: bytes of one row of the output vector */
  vec_t *ds_scratch;            /* GET: the values of a run of rows (tb_row_decode_rows) */
} tb_dstep_t;

/* Step kinds: skips, then reads specialised for the common kinds. */
enum { TB_DS_SKIP, TB_DS_SKIPNUM, TB_DS_SKIPSTR, TB_DS_SKIPV, TB_DS_GET_I32, TB_DS_GET_I64,
       TB_DS_GET_NUM, TB_DS_GET_STR, TB_DS_GET };

/* A predicate prepared for its column: integers compared as int64,
 * NUMERIC as scaled integers when the stored scale is cp_scale (the
 * column's declared one, the constant rescaled to it once), anything else
 * by tb_pred_test. */
typedef struct tb_cpred_s {
  uint8_t cp_fast;              /* TB_CP_* */
  uint8_t cp_op;                /* tbl_pred_op_t */
  uint8_t cp_mask;              /* INT, NUM: bit c + 1 set when a comparison
                                   answering c (-1, 0, 1) passes */
  int16_t cp_scale;             /* NUM */
  __int128 cp_val;              /* INT, NUM: the constant */
} tb_cpred_t;

enum { TB_CP_GEN, TB_CP_INT, TB_CP_NUM };

typedef struct tb_dplan_s {
  int dp_ntab;                  /* the table's columns (types) */
  int dp_upto;                  /* columns walked: the last one wanted + 1 */
  int dp_nout;                  /* outputs (the scan's columns) */
  const ty_t *dp_types;         /* the table's column types */
  uint8_t *dp_kind;             /* [upto] TB_DK_* of each column */
  uint8_t *dp_width;            /* [upto] its bytes when fixed, else 0 */
  int16_t *dp_out;              /* [upto] the first output of the column, -1 none */
  int16_t *dp_pred;             /* [upto] the first predicate on it, -1 none */
  int16_t *dp_pnext;            /* [npred] the next predicate on the same column */
  int16_t *dp_first;            /* [nout] the output that decodes the same column
                                   (itself when first; -1: column out of range) */
  int dp_nstr;
  int16_t *dp_strs;             /* [nstr] outputs decoding a string column */
  int dp_npred;
  const tbl_pred_t *dp_preds;   /* tp_out already mapped to the first output */
  tb_cpred_t *dp_cpred;         /* [npred] */
  int dp_nsteps;
  tb_dstep_t *dp_steps;         /* the no-NULL program */
  int dp_bm_full;               /* NULL bitmap bytes wholly among the walked columns */
  uint8_t dp_bm_mask;           /* the walked columns' bits of the next byte */
  bool dp_repeats;              /* some output repeats another's column */
  bool dp_outside;              /* some output is no column of the table (always NULL) */
} tb_dplan_t;

enum { TB_DK_BOOL, TB_DK_I16, TB_DK_I32, TB_DK_I64, TB_DK_F32, TB_DK_F64, TB_DK_NUM, TB_DK_IV, TB_DK_STR };

/* Whether row r of v (not NULL unless the test is TBP_NULL/TBP_NOT_NULL)
 * passes predicate pr (tb_pred.c). */
bool tb_pred_test(const tbl_pred_t *pr, const vec_t *v, int r);

/* The plan to decode columns cols[0..ncols) of rows of a table of n
 * columns of types, testing preds (tp_out indexes cols), in a. */
int tb_dplan_build(const ty_t *types, int n, const int *cols, int ncols, const tbl_pred_t *preds,
                   int npred, arena_t *a, tb_dplan_t **out, err_t *e);
/* Decodes a stored row into row r of out's first dp_nout vectors, without
 * datums: fixed-width values in place, strings copied into a (one block
 * per row) once the row passed. *pass false: a predicate rejected the row
 * (the row's slots hold garbage, nothing was allocated). A wanted
 * out-of-line value sets refs[k] (k: the first output of the column; the
 * vector gets an empty string) and *nrefs counts them: its predicates
 * are not tested (the caller tests the row again once the value is read,
 * tbl_preds_pass). */
int tb_row_decode_vec(const tb_dplan_t *dp, const uint8_t *p, size_t len, batch_t *out, int r,
                      arena_t *a, tb_ref_t *refs, int *nrefs, bool *pass, err_t *e);
/* Most rows tb_row_decode_rows takes in one call. */
#define TB_RUN_ROWS 256
/* Decodes the rows vals[0..n) (lens their lengths; n <= TB_RUN_ROWS),
 * one step of the plan over all of them at a time, into rows r0.. of out,
 * keeping those that pass the predicates, at most room of them. It stops
 * before the first row the step program cannot take (a NULL among the
 * walked columns, an out-of-line value, a short row). *consumed: the rows
 * read (the rows after the room-th passing one are not), *produced: the
 * rows written. Strings are copied into a. */
int tb_row_decode_rows(const tb_dplan_t *dp, const uint8_t *const *vals, const uint16_t *lens,
                       int n, batch_t *out, int r0, int room, arena_t *a, int *consumed,
                       int *produced, err_t *e);
/* Counts a row read again (tbl_stats_t.ts_long_rereads). */
void tb_long_note_reread(void);
/* A scan stops filling a batch once its long values reach this many
 * bytes (at least one row per batch): a batch of 1024 rows of 5 MB
 * documents would otherwise hold 5 GB. */
#define TB_BATCH_LONG_BYTES (32u << 20)
/* Reads row r of out again by its primary key pk, as it is now, with the
 * long values of cols (a value whose chunks a committed deleter removed
 * after the caller read the row); *found false when the row is gone.
 * want_loc: its locator into column ncols. */
int tb_reread(const txn_t *tx, uint32_t cmd, const cat_table_t *t, const int *cols, int ncols,
              bool want_loc, const uint8_t *pk, size_t pk_len, batch_t *out, int r, bool *found,
              arena_t *a, err_t *e);

/* Encodes the row vals of t for storage into out (cap bytes): strings
 * longer than TB_LONG_THRESHOLD, then the largest others while the row
 * does not fit, go to the long-values tree through tx. old (NULL for an
 * insert) is the stored row being replaced: an unchanged long value keeps
 * its reference, the chunks of the others are deleted. set (NULL = all):
 * the columns vals gives; an unset column that old holds out of line keeps
 * its reference untouched (vals[i] is then not read). */
int tb_row_store(txn_t *tx, const cat_table_t *t, const datum_t *vals, const bool *set,
                 const uint8_t *old, size_t old_len, uint8_t *out, size_t cap, size_t *len, err_t *e);
/* Deletes the chunks of every reference of a stored row (row deletion). */
int tb_row_drop_longs(txn_t *tx, const cat_table_t *t, const uint8_t *row, size_t len, err_t *e);
/* Reads the value r names as tx sees it at command cmd (txn_read_version_at)
 * into a. *missing: a chunk is not there (its deleter committed after the
 * caller read the row: read the row again). */
int tb_long_fetch(const txn_t *tx, uint32_t cmd, const cat_table_t *t, const tb_ref_t *r,
                  arena_t *a, str_t *out, bool *missing, err_t *e);
/* Decodes every column of a stored row as tx sees it now (writers, under
 * the row lock), fetching the long values of the columns need marks (NULL
 * = all) into *tmp (an arena created on demand; the caller destroys it). */
int tb_row_decode_full(txn_t *tx, const cat_table_t *t, const uint8_t *p, size_t len,
                       const bool *need, datum_t *out, arena_t **tmp, err_t *e);

/* ---- column tables (tb_col.c, tb_col_scan.c) ---------------------------- */

/* Whether t's primary tree is a column tree (WITH (layout = column)). */
bool tb_is_column(const cat_table_t *t);
#define TB_COL_MARK 0xFF     /* first byte of a marked string in a column run (tb_col.c) */
#define TB_COL_REF_LEN 18    /* a reference's mark: TB_COL_MARK 0x00 id(8) length(8) */
/* Whether a column of this type can hold marks (references, escapes). */
bool tb_col_markable(const ty_t *type);
/* The column row of a row's values (every column of t); refs (NULL =
 * none) as tb_row_encode_refs's: those columns hold references. */
int tb_col_encode(const cat_table_t *t, const datum_t *vals, const tb_ref_t *refs, uint8_t *out,
                  size_t cap, size_t *len, err_t *e);
/* Bytes tb_col_encode writes (0: a kind without a column form). */
size_t tb_col_size(const cat_table_t *t, const datum_t *vals, const tb_ref_t *refs);
/* A stored string s of a markable column as its value: an escape
 * removed, a reference into *ref (s then empty). */
int tb_col_unmark(const cat_table_t *t, str_t *s, tb_ref_t *ref, err_t *e);
/* Every column of t from a column row (columns it lacks read as NULL);
 * strings point into crow, references in refs (ct_ncols). */
int tb_col_decode(const cat_table_t *t, const void *crow, size_t len, datum_t *vals,
                  tb_ref_t *refs, err_t *e);
/* A column row transcoded into the row format (in a), for the per-row
 * paths; tb_col_row_inplace replaces buf's len bytes (cap the room). */
int tb_col_row(const cat_table_t *t, const void *crow, size_t len, arena_t *a, const void **row,
               size_t *row_len, err_t *e);
int tb_col_row_inplace(const cat_table_t *t, uint8_t *buf, size_t cap, size_t *len, err_t *e);

/* Forward scans of a column table's primary tree (tb_col_scan.c).
 * tb_colscan_new makes the state once per table scan (in a: buffers for
 * batches of up to cap rows); tb_colscan_range starts reading a range —
 * the table scan's bounds (prefixes, as tbl_scan_open's), narrowed to
 * [from, until) when given (a morsel) — again at every re-aim, reusing
 * the state; tb_colscan_fill appends rows to out from *np up to cap
 * (*ended at the range's end); locators go to column ncols when
 * want_loc; tb_colscan_close ends the range being read. */
typedef struct tb_colscan_s tb_colscan_t;
int tb_colscan_new(txn_t *tx, uint32_t cmd, const cat_table_t *t, const int *cols, int ncols,
                   bool want_loc, const tbl_pred_t *preds, int npred, int cap, arena_t *a,
                   tb_colscan_t **out, err_t *e);
int tb_colscan_range(tb_colscan_t *c, const uint8_t *low, size_t low_len, bool low_incl,
                     const uint8_t *high, size_t high_len, bool high_incl, const bt_key_t *from,
                     const bt_key_t *until, err_t *e);
int tb_colscan_fill(tb_colscan_t *c, batch_t *out, int *np, int cap, arena_t *a, bool *ended,
                    err_t *e);
void tb_colscan_close(tb_colscan_t *c);
/* tb_colscan_end: the range is read (the next range re-aims the same
 * column scan); tb_colscan_hold: keep the current segment's leaf latched
 * between fills and ranges (a probe batch: bt_col_scan_hold), false lets
 * it go. */
void tb_colscan_end(tb_colscan_t *c);
void tb_colscan_hold(tb_colscan_t *c, bool hold);

/* ---- parallel scans (tb_split.c) -------------------------------------- */

/* A scan's range cut into sp_n pieces: piece i holds the range's keys k
 * with cut[i-1] <= k < cut[i] (byte order; the first and last pieces
 * open at the cut side). Immutable once made. */
struct tbl_split_s {
  const cat_table_t *sp_t;
  int sp_idx;                   /* the index scanned */
  uint8_t *sp_low;              /* the range's bounds, encoded as tbl_scan_open's */
  size_t sp_low_len;
  bool sp_low_incl;
  uint8_t *sp_high;             /* NULL = open */
  size_t sp_high_len;
  bool sp_high_incl;
  int sp_n;                     /* pieces, >= 1 */
  bt_key_t *sp_cuts;            /* [sp_n - 1] ascending, strictly inside the range's bytes */
};

/* The dispenser: pieces go out in order, each once (m_next). */
struct tbl_morsels_s {
  const tbl_split_t *m_split;
  txn_t *m_tx;                  /* the transaction every scan on it reads in */
  uint32_t m_cmd;               /* ... as of this command (one for all workers) */
  _Atomic int m_next;           /* the next piece to hand out */
};

/* Takes the next piece of m for a scan: its number, where to seek (the
 * range's low bound for piece 0; NULL = the start) and its exclusive end
 * (NULL: the range's high bound ends it). 1 when every piece is taken.
 * Thread-safe. */
int tb_morsel_take(tbl_morsels_t *m, int *piece, const uint8_t **from, size_t *from_len,
                   const bt_key_t **end);

#endif /* CZ_TB_INT_H */
