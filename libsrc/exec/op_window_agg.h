/* op_window_agg — aggregate states the window operator slides over a
 * frame: values are added at the frame's end and, where the aggregate
 * allows it exactly, removed at its start (PostgreSQL's moving-aggregate
 * "inverse transitions"), so a sliding frame costs O(1) per row.
 *
 * Design notes:
 * - The semantics (result types, integer overflow 22003, numeric sums,
 *   string_agg's delimiters and its 54000/53200 limits) are those of
 *   op_hashagg.c's states; this file keeps its own copy so that the
 *   group-by operator (being changed for spilling) is not touched, and
 *   adds removal. The lead may fold both onto this one later.
 * - Removal is exact or refused (wagg_remove sets *ok false) and the
 *   caller recomputes the frame: float sums (rounding would differ from
 *   a fresh sum, as PostgreSQL also refuses), string_agg, min/max when
 *   the value leaving is the current extreme, and a numeric value of the
 *   largest scale in the frame when it is the last of that scale (the
 *   sum's display scale is the largest input scale, as PostgreSQL's).
 * - min/max keep the datum itself: its string lives in the window's row
 *   store, which outlives the state. */
#ifndef CZ_EXEC_OP_WINDOW_AGG_H
#define CZ_EXEC_OP_WINDOW_AGG_H

#include "exec/exec_int.h"

typedef struct wagg_s {
  xagg_t wa_kind;
  ty_phys_t wa_ap;              /* the argument's physical type */
  ty_phys_t wa_rp;              /* the result's */
  bool wa_float;                /* sum/avg accumulate in double */
  arena_t *wa_arena;            /* string_agg's text */
  int64_t wa_count;             /* non-NULL inputs (rows for count(*)) */
  int64_t wa_i64;               /* integer sums; bool_and/bool_or: TRUE inputs */
  double wa_f64;                /* float sums */
  num_t wa_num;                 /* exact sums */
  ty_iv_t wa_iv;                /* interval sums (avg divides at the end) */
  int wa_max_scale;             /* numeric: the largest scale added */
  int64_t wa_nmax_scale;        /* numeric: inputs of that scale in the state */
  datum_t wa_val;               /* min/max: the best value so far */
  char *wa_buf;                 /* string_agg: the text so far */
  uint32_t wa_len, wa_cap;
} wagg_t;

void wagg_init(wagg_t *a, xagg_t kind, ty_phys_t arg, ty_t result, arena_t *arena);
/* Empties the state (string_agg keeps its buffer). */
void wagg_reset(wagg_t *a);
/* Adds one input (v NULL for count(*)); delim: string_agg's delimiter of
 * this input. */
int wagg_add(wagg_t *a, qctx_t *q, const datum_t *v, const datum_t *delim, err_t *e);
/* Removes an input added before; *ok false when the state cannot forget
 * it exactly (then the state is undefined: reset and add again). */
int wagg_remove(wagg_t *a, const datum_t *v, bool *ok, err_t *e);
/* Whether wagg_remove can ever succeed for this aggregate. */
bool wagg_can_remove(const wagg_t *a);
/* The result (string_agg's text points into the state: copy it). */
int wagg_final(const wagg_t *a, datum_t *out, err_t *e);

#endif /* CZ_EXEC_OP_WINDOW_AGG_H */
