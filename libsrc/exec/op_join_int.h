/* op_join_int — what the join operator's files share (op_join.c: the
 * build, inner / left / right / full pairing; op_join_kinds.c: semi and
 * anti joins, the unmatched build rows of right and full joins).
 *
 * Design notes: one operator plan and one run state for every kind, so that the build of
 * the right input (materialised, hashed on the keys for a hash join) and
 * the candidate enumeration (join_match) are written once. */
#ifndef CZ_EXEC_OP_JOIN_INT_H
#define CZ_EXEC_OP_JOIN_INT_H

#include "exec/exec_int.h"

typedef struct op_join_s {
  op_t oj_op;
  join_kind_t oj_kind;
  xnode_t *oj_cond;             /* residual condition, NULL = true */
  int oj_nkeys;                 /* hash join: key pairs; 0 = nested loop */
  int *oj_lk;
  int *oj_rk;
  bool oj_null_aware;           /* anti join of NOT IN (JOIN_ANTI only) */
  ty_t *oj_pair_types;          /* left then right columns (SEMI / ANTI residual) */
  /* Set by op_prune.c once the whole plan is built, NULL = all: */
  uint8_t *oj_live;             /* per output column: filled (the others are NULL:
                                   no consumer reads them) */
  uint8_t *oj_rlive;            /* per right input column: kept in the build */
} op_join_t;

/* The join plan o is, or NULL when it is another operator. */
op_join_t *op_join_of(op_t *o);

/* Its run state in one execution (both files). */
typedef struct join_run_s {
  opst_t sr_st;
  const op_join_t *sr_p;        /* the plan */
  rstore_t oj_right;
  rhash_t oj_hash;
  int64_t oj_build_n;           /* right rows read (NULL keys too) */
  bool oj_build_null;           /* a right row had a NULL key */
  uint8_t *oj_rmatched;         /* right / full: per stored right row, a pair survived */
  int64_t oj_rscan;             /* right / full: next stored row for the unmatched pass */
  obatch_t oj_left;             /* current left batch */
  bool oj_left_end;
  int oj_li;                    /* position in oj_left's selection */
  bool oj_in_row;               /* candidates of left row oj_li being enumerated */
  int64_t oj_rpos;              /* nested loop: next right row; hash: chain position */
  uint64_t oj_hv;               /* hash join: the left row's key hash */
  bool oj_null_key;             /* hash join: a left key is NULL: no match */
  uint8_t *oj_matched;          /* per left row of oj_left: a pair survived */
  int oj_matched_cap;
  arena_t *oj_build;            /* the right rows and their hash index */
  struct hjspill_s *oj_spill;   /* hash join past its memory: the partitions
                                   (op_join_spill.c) */
  struct rf_bloom_s *oj_rf;     /* the build's runtime filter (op_rfilter.c), NULL none */
  bool oj_part_tail;            /* spilled right / full: the partition's left rows ended,
                                   its unmatched right rows are being emitted */
  int64_t oj_last_build;        /* rows the last build hashed: the next open's table size
                                   (outlives opens; 0 before the first) */
  /* Made once (the batches per execution, in its arena; the arrays per
   * open, in os_state) and reused by every next, so the steady state
   * allocates nothing: */
  batch_t *oj_out;              /* the output batch (inner / left / right / full) */
  batch_t *oj_pairs;            /* semi / anti with a residual: the pairs it reads */
  int oj_scratch_cap;           /* entries of the four arrays below */
  int *oj_left_of;              /* per output pair: its left row */
  int64_t *oj_right_of;         /* per output pair: its stored right row */
  int *oj_done;                 /* left rows whose candidates ended */
  int *oj_sel;                  /* the selection returned */
  int oj_lcap;                  /* entries of oj_lhash / oj_lnull */
  uint64_t *oj_lhash;           /* per position of oj_left's selection: its key hash */
  uint8_t *oj_lnull;            /* per position: a key is NULL */
  ty_phys_t *oj_kphys;          /* per key: its physical kind */
  bool oj_int_key;              /* one integer key on both sides: equal hashes are
                                   equal keys (join_match) */
  int *oj_pcols;                /* semi / anti: the pair columns the residual reads */
  int oj_npcols;                /* -1: all of them (a subquery may read any) */
} join_run_t;

/* Whether the kind keeps right rows without a partner (RIGHT, FULL). */
static inline bool join_keeps_right(join_kind_t k)
{
  return k == JOIN_RIGHT || k == JOIN_FULL;
}

/* Whether the output holds only the left columns (SEMI, ANTI). */
static inline bool join_left_only(join_kind_t k)
{
  return k == JOIN_SEMI || k == JOIN_ANTI;
}

/* op_join.c */
/* The build: an empty store (and hash index) in j->oj_build, then the
 * right input read into it (see op_join.c). */
int join_build_init(join_run_t *j, qctx_t *q, err_t *e);
int join_build(join_run_t *j, qctx_t *q, bool may_spill, bool *full, err_t *e);
int64_t join_match(join_run_t *j, int lrow);
/* Starts enumerating the candidates of left row lrow, the one at position
 * oj_li of oj_left's selection (its key hash was computed with the batch). */
void join_start_row(join_run_t *j, int lrow);
void join_copy_left(const batch_t *l, int lrow, batch_t *out, int row);
int join_fetch_left(join_run_t *j, qctx_t *q, err_t *e);
/* The pair / done / selection arrays for at least n entries (os_state). */
void join_scratch(join_run_t *j, int n);

/* op_join_kinds.c */
/* SEMI / ANTI: the left rows with (without) a partner, as the left
 * batch under a selection. */
int join_next_semi(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e);
/* RIGHT / FULL after the left input ended: the stored right rows no pair
 * matched, padded with NULLs on the left (out->ob_b NULL at the end). */
int join_next_unmatched(join_run_t *j, qctx_t *q, obatch_t *out, err_t *e);

/* op_join_pbuild.c */
/* A shared build made by every thread of its build side's Gather (the
 * right input, not opened): the store and the table of j filled, the
 * runtime filter made; *full (nothing usable kept) when the table would
 * pass what a join's table may hold. */
int join_pbuild(join_run_t *j, qctx_t *q, bool *full, err_t *e);

/* op_join_share.c */
/* When q is a Gather participant's context told to share this join's
 * build (op_join_share_use): j takes the shared table (read-only) and
 * true is returned; false otherwise. */
bool join_share_adopt(join_run_t *j, qctx_t *q);

#endif /* CZ_EXEC_OP_JOIN_INT_H */
