/* op_hashagg_vec — the typed, vectored inner loops of hash aggregation:
 * group-key hashes a column vector at a time, key equality without datum
 * round trips, and the accumulation of one aggregate over a whole batch
 * (count, sum, avg on int64, double and NUMERIC; min, max on those and
 * text) into the
 * per-group states. op_hashagg.c owns the table, the spilling and the
 * aggregates without a typed loop (string_agg, bool_and/or, intervals,
 * DISTINCT), which it steps row by row as before.
 *
 * Results are exactly those of the row-by-row step: the same NULL rules,
 * the same 22003 on bigint or NUMERIC overflow, the same NUMERIC scales
 * (the first value's scale, then num_add's). */
#ifndef CZ_EXEC_OP_HASHAGG_VEC_H
#define CZ_EXEC_OP_HASHAGG_VEC_H

#include "exec/exec_int.h"

/* One aggregate's state for one group. */
typedef struct agg_state_s {
  int64_t as_count;             /* non-NULL inputs (rows for count(*)) */
  int64_t as_i64;               /* integer sums */
  double as_f64;                /* float sums */
  num_t as_num;                 /* exact sums */
  datum_t as_val;               /* min/max/bool value; string_agg's text */
  uint32_t as_cap;              /* string_agg, min/max of text: bytes owned at as_val */
} agg_state_t;

/* hash[j] for the rows sel[j] (j < nsel; sel NULL = rows 0..nsel-1) of
 * the first ncols columns of b: the value row_hash gives, computed a
 * column at a time. */
void aggv_hash(const batch_t *b, int ncols, const int *sel, int nsel, uint64_t *hash);

/* Whether row ra of a and row rb of b (one physical type p) are equal,
 * NULLs equal to each other (datum_eq_nulls). */
static inline bool aggv_eq(ty_phys_t p, const vec_t *a, int ra, const vec_t *b, int rb)
{
  return vec_cell_eq(p, a, ra, b, rb);
}

/* Accumulates aggregate ag over the rows sel[j] of v (its argument; NULL
 * for count(*)) into st[grp[j]], skipping j whose grp[j] < 0; text kept
 * by min/max is copied into a. Returns 1
 * when done, 0 when ag has no typed loop here (the caller steps it row by
 * row; nothing was changed), -1 with e set on an error (22003): the rows
 * before the failing one are in the states, as with the row-by-row step. */
int aggv_accum(const agg_spec_t *ag, agg_state_t *st, const int64_t *grp, const vec_t *v,
               const int *sel, int nsel, arena_t *a, err_t *e);

/* The result of aggregate ag from its state (op_hashagg.c; the index
 * lookup aggregate too): count 0 and NULL for the others over no rows. */
int agg_final(const agg_spec_t *ag, const agg_state_t *st, datum_t *out, err_t *e);

/* min/max of text: st keeps a copy of the best string in a buffer of its
 * own in a (as_cap bytes), reused while the new value fits and replaced,
 * the old one given back, when it does not — so a run of ever larger
 * values holds one copy, not all of them. The copy is fallible (53200). */
int aggv_keep_str(arena_t *a, agg_state_t *st, const str_t *s, err_t *e);

/* One input row's step of aggregate ag into st (row `row` of v, its
 * argument, NULL for count(*); v2 string_agg's delimiter): the
 * row-by-row form of every aggregate, for those aggv_accum has no loop
 * for; text kept (min/max, string_agg) is allocated in a. */
int agg_step(arena_t *a, qctx_t *q, const agg_spec_t *ag, agg_state_t *st, const vec_t *v,
             const vec_t *v2, int row, err_t *e);
/* The value of aggregate ag for a group whose state is st (avg divides
 * here; NULL when no non-NULL input, 0 for counts). */
int agg_final(const agg_spec_t *ag, const agg_state_t *st, datum_t *out, err_t *e);

#endif
