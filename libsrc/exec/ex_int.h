/* ex_int.h — what the expression files (ex_*.c) share: the evaluation
 * state of one xeval call, loops over a selection, temporary vectors, the
 * per-node evaluators and the error helpers.
 *
 * Design notes: every node is evaluated by one call that loops over the
 * selected rows (XE_FOR), so the per-row work is a tight loop per physical
 * type; dispatch over the tree happens once per node per batch. A node's
 * result is a vec_t: either one of the input batch's own columns (X_COL,
 * no copy) or a vector allocated in the per-batch arena.
 */
#ifndef CZ_EX_INT_H
#define CZ_EX_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/expr.h"
#include "types/types.h"
#include "util/util.h"



/* One xeval call: the context, the input batch and its row count. */
typedef struct xe_s {
  xctx_t *xe_c;
  const batch_t *xe_in;
  int xe_n;            /* rows of the input (capacity of temporaries) */
} xe_t;

/* Loops the body (the last argument, which may contain commas) over the
 * selected rows with i the row index; sel NULL means rows 0..nsel-1 (the
 * whole batch). `continue` skips to the next row. */
#define XE_FOR(sel, nsel, i, ...)                                    \
  do {                                                               \
    if (sel) {                                                       \
      for (int xe_k_ = 0; xe_k_ < (nsel); xe_k_++) {                 \
        int i = (sel)[xe_k_];                                        \
        __VA_ARGS__                                                  \
      }                                                              \
    } else {                                                         \
      for (int i = 0; i < (nsel); i++) {                             \
        __VA_ARGS__                                                  \
      }                                                              \
    }                                                                \
  } while (0)

/* An operand of a vectored kernel: a vector, or one value for every row
 * (constants and parameters need no vector filled). */
typedef struct xe_arg_s {
  vec_t *a_vec;            /* NULL when a_const is set */
  const datum_t *a_const;
} xe_arg_t;

/* The value of an X_CAST whose argument is a constant or parameter. */
int xe_const_cast(xe_t *st, const xnode_t *x, datum_t *out, err_t *e);
/* Evaluates x as an operand. */
int xe_operand(xe_t *st, const xnode_t *x, const int *sel, int nsel, xe_arg_t *out, err_t *e);
static inline bool xe_arg_null(const xe_arg_t *a, int i)
{
  return a->a_const ? a->a_const->d_null : a->a_vec->v_null[i] != 0;
}
static inline void xe_arg_get(const xe_arg_t *a, int i, datum_t *out)
{
  if (a->a_const)
    *out = *a->a_const;
  else
    vec_get(a->a_vec, i, out);
}

/* Whether evaluating x can raise no error (columns, constants,
 * comparisons and logic over them): such a node may be evaluated for rows
 * that do not need it, which lets AND/OR skip their lazy bookkeeping. */
bool xe_safe(const xnode_t *x);
/* A temporary vector of type t for this batch (not zeroed). */
vec_t *xe_temp(xe_t *st, ty_t t);
/* Evaluates x for the selected rows. When dst is not NULL the result is
 * written into dst at the selected rows and *res = dst; otherwise *res may
 * be an input column or a temporary. */
int xe_node(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, vec_t **res,
            err_t *e);
/* Splits the selected rows by the boolean v: those where v is TRUE go to
 * yes (their count is returned), the others (FALSE or NULL) to no (count
 * in *nno) when no is not NULL. */
int xe_split(const vec_t *v, const int *sel, int nsel, int *yes, int *no, int *nno);
/* A selection array of the batch's size from the per-batch arena. */
int *xe_sel_alloc(xe_t *st);
/* Copies the selected rows of src into dst. */
void xe_copy_rows(vec_t *dst, const vec_t *src, const int *sel, int nsel);
/* Fills the selected rows of dst with d. */
void xe_fill(vec_t *dst, const datum_t *d, const int *sel, int nsel);

int xe_error(const xnode_t *x, err_t *e, const char *sqlstate, const char *fmt, ...)
    CZ_PRINTF(4, 5);

/* Per-kind evaluators (dst as in xe_node; never NULL here: xe_node
 * supplies a temporary). */
int xe_logic(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e);
int xe_case(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e);
int xe_coalesce(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e);
int xe_compare(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e);
int xe_in_list(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e);
int xe_arith(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e);
/* The INTERVAL operators (ex_arith_iv.c); xe_arith hands them over. */
int xe_arith_iv(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e);
int xe_strop(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e);
int xe_cast(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e);
int xe_func(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e);

/* ---- type helpers (ex_type.c) ------------------------------------------- */

bool xt_is_int(ty_id_t id);
bool xt_is_number(ty_id_t id);
bool xt_is_string(ty_id_t id);   /* char, varchar, text (not bytea) */
bool xt_is_zoned(ty_id_t id);    /* timestamptz, time, timetz: their operators are ex_arith_iv's */
/* Position in int2 < int4 < int8 < numeric < float4 < float8, -1 else. */
int xt_num_rank(ty_id_t id);
/* Type of t without its modifiers when they differ from u's. */
ty_t xt_merge_mods(ty_t t, ty_t u);

/* ---- LIKE and case mapping (ex_strop.c) ---------------------------------- */

typedef enum xe_case_e { XE_LOWER, XE_UPPER, XE_INITCAP } xe_case_t;
/* Maps the case of UTF-8 text as PostgreSQL does under the C.UTF-8 ctype
 * (Unicode simple case mapping; only ASCII when that locale is missing).
 * out must hold 2 * len bytes; returns the bytes written. */
size_t xe_case_map(const char *s, size_t len, char *out, xe_case_t how);

/* SQL LIKE with % and _ (one UTF-8 character) and backslash escape;
 * icase folds ASCII letters (callers lower-case non-ASCII text first).
 * 22025 when the match reaches an escape at the pattern's end. */
int xe_like_match(const char *s, size_t slen, const char *p, size_t plen, bool icase, bool *match,
                  err_t *e);

/* ---- functions (ex_func.c) ---------------------------------------------- */

/* Registers the built-in families once (thread-safe). */
void xfunc_builtins_init(void);
extern const xfunc_def_t xfunc_math_defs[];
extern const int xfunc_math_ndefs;
extern const xfunc_def_t xfunc_string_defs[];
extern const int xfunc_string_ndefs;
extern const xfunc_def_t xfunc_time_defs[];
extern const int xfunc_time_ndefs;
extern const xfunc_def_t xfunc_interval_defs[];
extern const int xfunc_interval_ndefs;
extern const xfunc_def_t xfunc_misc_defs[];
extern const int xfunc_misc_ndefs;
extern const xfunc_def_t xfunc_json_defs[];  /* ex_func_json.c */
extern const int xfunc_json_ndefs;
extern const xfunc_def_t xfunc_jsonpath_defs[];  /* ex_jsonpath.c */
extern const int xfunc_jsonpath_ndefs;
extern const xfunc_def_t xfunc_json_agg_defs[];  /* json_agg's helpers */
extern const int xfunc_json_agg_ndefs;
extern const xfunc_def_t xfunc_json_srf_defs[];  /* json_each's helpers */
extern const int xfunc_json_srf_ndefs;
/* jsonb cast to a number type or boolean (jsonb_numeric, jsonb_bool …):
 * 22023 "cannot cast jsonb string to type integer" for another kind. */
int xj_jsonb_to_scalar(str_t s, ty_t to, arena_t *a, datum_t *out, err_t *e);

#define XFS_COALESCE 1  /* fd_special: lazily evaluated by xe_coalesce */

/* Helpers for function bodies: a string result of n bytes in the arena. */
/* Fallible (xc_alloc): NULL with the error in e. */
char *xf_alloc_str(xctx_t *c, datum_t *out, size_t n, err_t *e);
/* The 53200 error for c's budget. */
int xc_budget_error(const xctx_t *c, err_t *e);
/* Current statement time (xc_stmt_ts or the clock) as TIMESTAMP µs. */
int64_t xf_now(const xctx_t *c);

#endif /* CZ_EX_INT_H */
