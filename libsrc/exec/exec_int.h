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

#include <string.h>

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
  const uint8_t *rs_live;       /* per column: copied in (NULL = all); the others
                                   are stored as NULL (no consumer reads them:
                                   op_prune.c) */
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
bool datum_eq_nulls(ty_id_t id, const datum_t *a, const datum_t *b);

/* A hash index from 64-bit hashes to row numbers of a row store (dense
 * from 0, inserted in any order): an open-addressing table (linear
 * probing, at most half full) with one slot per distinct hash, holding
 * the hash and the last row inserted with it side by side, so a probe reads
 * one cache line (callers prefetch a batch's slots, rh_prefetch); the
 * earlier rows of that hash are chained through rh_next_row, an array by
 * row number. So many rows of one key (a join on a foreign key) make one
 * chain, not a long run of slots every later insert and probe must walk.
 * Rows of one hash come out last inserted first; callers compare keys
 * (distinct keys may share a hash). */
typedef struct rh_ent_s {
  uint64_t re_hash;
  int64_t re_row;               /* the chain's first row + 1, 0 = empty */
} rh_ent_t;

typedef struct rhash_s {
  rh_ent_t *rh_ents;
  int64_t rh_cap;               /* slots, a power of two */
  int64_t rh_used;              /* slots in use: distinct hashes */
  int64_t rh_n;                 /* rows inserted */
  int64_t *rh_next_row;         /* per row: the next row of its chain + 1, 0 = end */
  int64_t rh_next_cap;          /* entries of rh_next_row */
  arena_t *rh_arena;
} rhash_t;

/* A table for about cap_hint rows without doubling (fallible, 53200). */
int rh_init(rhash_t *h, arena_t *a, int64_t cap_hint, err_t *e);
/* Growing the table or the chain array may be refused (53200); the row is
 * then not in it. */
int rh_insert(rhash_t *h, uint64_t hash, int64_t row, err_t *e);
/* Bytes the next `more` inserts may allocate at most (a doubling of the
 * slots, of the chain array): what a spill check must foresee. */
static inline int64_t rh_growth_bytes(const rhash_t *h, int64_t more)
{
  int64_t need = 0;
  if ((h->rh_used + more) * 2 > h->rh_cap)
    need += (int64_t)sizeof(rh_ent_t) * h->rh_cap * 2;
  if (h->rh_n + more > h->rh_next_cap)
    need += (int64_t)sizeof(int64_t) * CZ_MAX(h->rh_next_cap * 2, h->rh_n + more);
  return need;
}
/* A parallel build's insert (op_join_pbuild.c) into a table made for all
 * its rows (no growth): like rh_insert, for a hash whose home slot the
 * caller owns, probing only up to slot hi (excluded). False when the
 * probe would reach hi: nothing is written, the caller inserts the row
 * later with rh_insert. *used counts the slots taken; rh_n and rh_used
 * are the caller's to set. */
static inline bool rh_insert_within(rhash_t *h, uint64_t hash, int64_t row, int64_t hi,
                                    int64_t *used)
{
  int64_t i = (int64_t)(hash & (uint64_t)(h->rh_cap - 1));
  rh_ent_t *t = h->rh_ents;
  while (t[i].re_row && t[i].re_hash != hash)
    if (++i >= hi)
      return false;
  if (!t[i].re_row) {
    t[i].re_hash = hash;
    (*used)++;
  }
  h->rh_next_row[row] = t[i].re_row;
  t[i].re_row = row + 1;
  return true;
}
/* Iteration over the rows with hash `hash`: start with *pos = -1. Returns
 * false when exhausted (and keeps returning false). */
static inline bool rh_next(const rhash_t *h, uint64_t hash, int64_t *pos, int64_t *row)
{
  int64_t r1;
  if (*pos >= 0) {
    r1 = h->rh_next_row[*pos];
  } else if (*pos == -1) {
    int64_t m = h->rh_cap - 1;
    int64_t i = (int64_t)(hash & (uint64_t)m);
    const rh_ent_t *t = h->rh_ents;
    while (t[i].re_row && t[i].re_hash != hash)
      i = (i + 1) & m;
    r1 = t[i].re_row;
  } else
    return false;
  if (!r1) {
    *pos = -2;
    return false;
  }
  *pos = *row = r1 - 1;
  return true;
}
/* Asks for the slot of hash's chain to be brought into the cache. */
static inline void rh_prefetch(const rhash_t *h, uint64_t hash)
{
  __builtin_prefetch(&h->rh_ents[hash & (uint64_t)(h->rh_cap - 1)]);
}

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
/* hash[j] = row_hash(b, sel[j], ncols, cols) for j < nsel (sel NULL: rows
 * 0..nsel-1; cols NULL: the first ncols columns), a column at a time with
 * typed loops. */
/* rows_hash of one NULL cell: the one hash a single integer key's NULL
 * shares with a value (every other single-integer hash is one value). */
uint64_t rows_hash_null1(void);
void rows_hash(const batch_t *b, int ncols, const int *cols, const int *sel, int nsel,
               uint64_t *hash);
/* hash64_int (util), inline for the typed loops: the same values. Every
 * step is invertible, so the hash of one non-NULL integer column is a
 * bijection of its value: the hash join (join_match) and the group-by
 * (agg_group, but for the NULL key's hash) skip comparing such keys;
 * keep it so. */
static inline uint64_t rh_mix(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Whether row ra of a and row rb of b (one physical type p) are equal,
 * NULLs equal to each other (datum_eq_nulls), read straight from the
 * vectors for the common kinds. */
static inline bool vec_cell_eq(ty_phys_t p, const vec_t *a, int ra, const vec_t *b, int rb)
{
  if (a->v_null[ra] || b->v_null[rb])
    return a->v_null[ra] && b->v_null[rb];
  switch (p) {
  case TP_BOOL:
    return a->v_bool[ra] == b->v_bool[rb];
  case TP_I64:
    return a->v_i64[ra] == b->v_i64[rb];
  case TP_STR: {
    const str_t *x = &a->v_str[ra], *y = &b->v_str[rb];
    if (x->s_len == y->s_len && (!x->s_len || memcmp(x->s_ptr, y->s_ptr, x->s_len) == 0))
      return true;
    /* jsonb: equal values may print apart (1.5, 1.50) */
    return a->v_type.t_id == TY_JSONB && ty_jsonb_text_cmp(x, y) == 0;
  }
  default: {
    datum_t x, y;
    vec_get(a, ra, &x);
    vec_get(b, rb, &y);
    return datum_cmp(p, &x, &y) == 0;
  }
  }
}

/* Column-wise copies (typed by the width of a value, no datums):
 * out[at + i] = in[idx[i]] (idx NULL: in[i]) for i < n, null flags too.
 * Strings are not copied (the pointers are). */
void vec_gather(vec_t *out, int at, const vec_t *in, const int *idx, int n);
/* The strings of rows [at, at + n) of v (a string vector) copied into one
 * block of a and pointed at there (fallible: 53200). */
int vec_copy_strings(arena_t *a, vec_t *v, int at, int n, err_t *e);
/* out[at + i] = column c of stored row rows[i], for i < n. */
void rs_gather(const rstore_t *rs, int c, const int64_t *rows, int n, vec_t *out, int at);
/* Appends the rows sel[0..n) of b (sel NULL: 0..n-1; its first rs_ncols
 * columns) a column at a time, strings copied into the store; returns the
 * first one's number, or -1 (53200) with only whole rows of earlier calls
 * certain to be in the store. */
int64_t rs_append_rows(rstore_t *rs, const batch_t *b, const int *sel, int n, err_t *e);

/* The operator's output batch in this execution: made at the first call
 * (in the execution's arena, so it outlives opens: *slot lives in the run
 * struct, zeroed only when the run state is made) and reused by every
 * later next, open or not: cap rows of o's types. Rows are overwritten,
 * never cleared, so whoever fills it writes each cell's null flag. */
batch_t *op_keep_batch(const op_t *o, qctx_t *q, batch_t **slot, int cap, err_t *e);

/* For the plan passes (op_prune.c): a projection's expressions (o_ncols,
 * which the pass may replace), a filter's condition; NULL when o is
 * another operator. */
xnode_t **op_project_exprs(const op_t *o);
const xnode_t *op_filter_cond(const op_t *o);
/* A group-by's expressions over its input (keys, then the aggregates'
 * arguments) into x when not NULL; how many; -1 when o is another
 * operator. */
int op_hashagg_inputs(const op_t *o, const xnode_t **x);
/* The same of a streaming group-by (op_groupagg.c); -1 for another. */
int op_groupagg_inputs(const op_t *o, const xnode_t **x);

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

/* A Gather drained (op_gather_drain, for a parallel build): instead of
 * returning rows, each participant hands every batch its share of the
 * subtree returns to gd_batch on its own thread (part: its rank, 0 the
 * session's, below the participants that run, at most q_threads); a
 * return of 1 stops every participant's reading without an error
 * (gd_halted is then set and the phases below do not run). When every
 * input has ended, gd_mid runs once on the session's thread (nparts: the
 * participants that ran), then gd_part on every participant at once
 * (each must check the cancel flag of its context, w, as it goes). The
 * first failure stops all and is the call's error. */
typedef struct gdrain_s {
  int (*gd_batch)(void *arg, int part, qctx_t *w, const obatch_t *b, err_t *e);
  int (*gd_mid)(void *arg, int nparts, qctx_t *q, err_t *e);
  int (*gd_part)(void *arg, int part, int nparts, qctx_t *w, err_t *e);
  void *gd_arg;
  bool gd_halted;               /* out: a gd_batch asked to stop */
} gdrain_t;
int op_gather_drain(const op_t *o, qctx_t *q, gdrain_t *d, err_t *e);

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
