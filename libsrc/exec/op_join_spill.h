/* op_join_spill — the partitions of a hash join whose build side passed
 * its memory (the grace hash join; op_join_spill.c has the design). The
 * join operator calls these, so its matching, residual condition and
 * padding are the same in memory and spilled. */
#ifndef CZ_EXEC_OP_JOIN_SPILL_H
#define CZ_EXEC_OP_JOIN_SPILL_H

#include "exec/exec_int.h"

typedef struct hjspill_s hjspill_t;

/* Whether a table being built in arena build (index h) should go to
 * partitions now (checked after each right batch). */
bool hjs_should_spill(const qctx_t *q, arena_t *build, const rhash_t *h);
/* Partitions for a join of left and right on keys lk = rk, allocated in
 * a (the operator's state). */
hjspill_t *hjs_begin(qctx_t *q, arena_t *a, const op_t *left, const op_t *right, int nkeys,
                     const int *lk, const int *rk, err_t *e);
/* A right row (b's row), every row of a right row store, a left row. */
int hjs_put_right(hjspill_t *s, qctx_t *q, const batch_t *b, int row, err_t *e);
int hjs_put_store(hjspill_t *s, qctx_t *q, const rstore_t *rs, err_t *e);
int hjs_put_left(hjspill_t *s, qctx_t *q, const batch_t *b, int row, err_t *e);
/* Both inputs are written: the partitions become the queue to join. */
int hjs_end_input(hjspill_t *s, err_t *e);
/* Builds the next partition's table into rs and rh (arena build, released
 * first); *more false when all are joined. */
int hjs_next_partition(hjspill_t *s, qctx_t *q, arena_t *build, rstore_t *rs, rhash_t *rh,
                       bool *more, err_t *e);
/* The next batch of the current partition's left rows (ob_b NULL at its
 * end); valid until the next call. */
int hjs_next_left(hjspill_t *s, qctx_t *q, obatch_t *out, err_t *e);
/* Closes every file still open (ov_close); NULL is fine. */
void hjs_close(hjspill_t *s);

#endif /* CZ_EXEC_OP_JOIN_SPILL_H */
