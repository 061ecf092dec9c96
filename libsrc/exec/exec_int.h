/* exec_int — what the operators share: construction, the row store that
 * materialising operators (sort, hash join, group-by, nested loop) keep
 * rows in, and a hash index over a row store.
 *
 * Design notes: a row store keeps rows column-wise in chunks of
 * RS_CHUNK rows (batches), with string bytes copied into the store's
 * arena, so rows outlive the input batches they came from. Row r is at
 * chunk r / RS_CHUNK, index r % RS_CHUNK.
 */
#ifndef CZ_EXEC_INT_H
#define CZ_EXEC_INT_H

#include "exec/exec.h"

#define RS_CHUNK 1024

/* The run state every operator has in each execution it runs in; an
 * operator's own run struct starts with it (ov_run_size bytes). */
struct opst_s {
  arena_t *os_state;            /* reset at open: hash tables, buffers, cursors */
  arena_t *os_batch;            /* the current output batch, reset per next */
  int64_t os_rows;              /* rows produced (EXPLAIN ANALYZE) */
  uint64_t os_ns;               /* time in open and next, inputs included */
  int64_t os_mem;               /* most state memory seen (after open, at the end) */
  bool os_opened;               /* opened at least once in this execution */
  const char *os_note;          /* EXPLAIN ANALYZE text of this run (a Gather: the
                                   workers launched), in the execution's arena; NULL none */
};

/* The run state of plan object key (an operator, an xsubq_t, an
 * expression node) in q's execution: the one made before, or, when make
 * is true, a new one of size bytes (zeroed, in the execution's arena);
 * NULL when there is none and make is false. *fresh (may be NULL) tells
 * whether it was made now. Keyed by the plan object's address: plans are
 * immutable and outlive their executions, so an address names one thing
 * for an execution's whole life. */
void *qexec_state(qctx_t *q, const void *key, size_t size, bool make, bool *fresh);
/* The execution's arena for run states (a child of the root q_arena). */
arena_t *qexec_arena(qctx_t *q);
/* o's run state in q's execution, or NULL when o was never opened in it. */
opst_t *op_state(const op_t *o, const qctx_t *q);
/* ov_pass_col of joins that keep their left rows' columns first (every
 * output row of one left row): col itself when it is a left column. */
int op_pass_left_col(const op_t *o, int col);
/* The subplan context of s in outer's execution, NULL when s was never
 * bound or evaluated in it. */
qctx_t *xsubq_ctx(qctx_t *outer, const xsubq_t *s);

typedef struct rstore_s {
  arena_t *rs_arena;
  int rs_ncols;
  const ty_t *rs_types;
  int64_t rs_n;                 /* rows stored */
  int rs_nchunks;
  int rs_cap_chunks;
  batch_t **rs_chunks;
} rstore_t;

void rs_init(rstore_t *rs, arena_t *a, int ncols, const ty_t *types);
/* Appends row `row` of b (its first rs_ncols columns); returns its number. */
/* Appending can be refused (MaxQueryMem, or the system): -1 / CZ_ERR with
 * 53200 in e, the store holding only whole rows appended before. */
int64_t rs_append_row(rstore_t *rs, const batch_t *b, int row, err_t *e);
/* Appends one row given as rs_ncols datums (strings copied). */
int64_t rs_append_datums(rstore_t *rs, const datum_t *vals, err_t *e);
/* Appends every selected row of ob. */
int rs_append(rstore_t *rs, const obatch_t *ob, err_t *e);
/* Opens in, appends all its rows to rs (the memory of `state` checked
 * against MaxQueryMem after each batch) and closes it: the operators that
 * hold their whole input (buffer, window, grouping sets). */
int rs_fill(rstore_t *rs, const op_t *in, qctx_t *q, arena_t *state, err_t *e);
static inline vec_t *rs_col(const rstore_t *rs, int64_t r, int c, int *idx)
{
  *idx = (int)(r % RS_CHUNK);
  return &rs->rs_chunks[r / RS_CHUNK]->b_cols[c];
}
void rs_get(const rstore_t *rs, int64_t r, int c, datum_t *out);
/* Copies stored row r into row `row` of out starting at column c0. */
void rs_copy_out(const rstore_t *rs, int64_t r, batch_t *out, int row, int c0);

/* Copies d's string bytes into a (other kinds are plain values); the copy
 * is fallible (53200), as its size is the data's. */
int datum_copy(ty_phys_t p, const datum_t *in, arena_t *a, datum_t *out, err_t *e);
/* A sum's or average's input as NUMERIC: integers exactly, floats to 16
 * digits (hash aggregation and window aggregates alike). */
static inline int datum_to_num(ty_phys_t p, const datum_t *d, num_t *out, err_t *e)
{
  if (p == TP_NUM) {
    *out = d->d_num;
    return CZ_OK;
  }
  if (p == TP_F64)
    return num_from_f64(d->d_f64, 16, out, e);
  return num_from_i64(d->d_i64, out);
}

/* Equality that treats two NULLs as equal (grouping, DISTINCT). */
bool datum_eq_nulls(ty_phys_t p, const datum_t *a, const datum_t *b);

/* An open-addressing hash index from a 64-bit hash to row numbers of a row
 * store; chains of equal hashes are walked by the caller. */
typedef struct rhash_s {
  int64_t *rh_slots;            /* row number + 1, 0 = empty */
  uint64_t *rh_hashes;
  int64_t rh_cap;               /* power of two */
  int64_t rh_n;
  arena_t *rh_arena;
} rhash_t;

int rh_init(rhash_t *h, arena_t *a, int64_t cap_hint, err_t *e);
/* Doubling the table may be refused (53200); the row is then not in it. */
int rh_insert(rhash_t *h, uint64_t hash, int64_t row, err_t *e);
/* Iteration over the rows with hash `hash`: start with *pos = -1. Returns
 * false when exhausted. */
bool rh_next(const rhash_t *h, uint64_t hash, int64_t *pos, int64_t *row);

/* A set of distinct rows (NULLs equal) with a counter per row: DISTINCT,
 * UNION, EXCEPT, INTERSECT. */
typedef struct rset_s {
  rstore_t rt_rows;
  rhash_t rt_hash;
  int64_t *rt_counts;
  int64_t rt_cap;
} rset_t;

int rset_init(rset_t *s, arena_t *a, int ncols, const ty_t *types, err_t *e);
/* The id of row `row` of b (first ncols columns), or -1 when absent. */
int64_t rset_find(const rset_t *s, const batch_t *b, int row);
/* Finds or adds; *added tells which. -1 (53200 in e) when adding was
 * refused memory. */
int64_t rset_add(rset_t *s, const batch_t *b, int row, bool *added, err_t *e);

/* Hash of row `row` over columns cols of b (NULLs hash to a constant). */
uint64_t row_hash(const batch_t *b, int row, int ncols, const int *cols);

/* Parallel scans (op_scan.c, for op_gather.c). A scan is splittable when
 * its storage splits scans and it is neither a point lookup nor one that
 * returns row identities. op_scan_morsels (session thread) evaluates its
 * bounds in q and makes the shared dispenser over about n ranges (in a);
 * op_scan_use_morsels makes the scan read from it when opened in the
 * participant context w. */
typedef struct scan_par_s scan_par_t;
bool op_scan_splittable(const op_t *o);
int op_scan_morsels(const op_t *o, qctx_t *q, arena_t *a, int n, scan_par_t **out, err_t *e);
void op_scan_use_morsels(const op_t *o, qctx_t *w, scan_par_t *p);

/* Shared join builds (op_join_share.c, for op_gather.c): a hash or
 * nested-loop join of a kind that never marks its build rows (not RIGHT /
 * FULL) can have its build made once, in the Gather's context q
 * (op_join_share_build; *out NULL when the table would have to spill:
 * then nothing is kept and the right input is closed), and each
 * participant context w told to use it (op_join_share_use) probes that
 * one table. op_join_share_end frees a build. */
typedef struct jshare_s jshare_t;
int op_join_share_build(const op_t *o, qctx_t *q, arena_t *a, jshare_t **out, err_t *e);
void op_join_share_use(const op_t *o, qctx_t *w, const jshare_t *s);
void op_join_share_end(jshare_t *s);

/* Operator plumbing. */
void op_init(op_t *o, const op_vt_t *vt, arena_t *a, int ncols, const ty_t *types,
             op_t *in, op_t *in2);
/* A fresh output batch of o's types with the query's vector size, in
 * st->os_batch. */
batch_t *op_new_batch(const op_t *o, opst_t *st, const qctx_t *q, err_t *e);
/* Memory check against MaxQueryMem (53200). */
int op_check_mem(qctx_t *q, arena_t *a, err_t *e);
/* The 53200 of an arena_try_alloc on a that returned NULL: MaxQueryMem
 * (a's budget) or the system refused. Always CZ_ERR. */
int op_alloc_error(const arena_t *a, err_t *e);

#endif /* CZ_EXEC_INT_H */
