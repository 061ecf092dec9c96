/* exec_window — the window operator's contract: window functions over
 * frames (PostgreSQL 15's ROWS / RANGE / GROUPS, EXCLUDE) of input that
 * arrives sorted by the partition keys, then the ORDER BY keys.
 *
 * Design notes: every argument, key and frame offset is a column of the
 * input or an expression without columns, so the operator never
 * evaluates expressions per row: the binder projects arguments and keys
 * into columns below the sort (sql_bind_window.c). Several functions
 * over one window share one operator (one sort, one pass). */
#ifndef CZ_EXEC_WINDOW_H
#define CZ_EXEC_WINDOW_H

#include "exec/exec.h"

typedef enum xwin_e {
  XWIN_ROW_NUMBER,
  XWIN_RANK,
  XWIN_DENSE_RANK,
  XWIN_PERCENT_RANK,
  XWIN_CUME_DIST,
  XWIN_NTILE,        /* arg 0: the number of buckets (INT4), read at a partition's first row */
  XWIN_LAG,          /* arg 0 value, arg 1 offset (INT4 or -1 for 1), arg 2 default (-1: NULL) */
  XWIN_LEAD,
  XWIN_FIRST_VALUE,  /* arg 0 value; over the frame */
  XWIN_LAST_VALUE,
  XWIN_NTH_VALUE,    /* arg 0 value, arg 1 n (INT4, per row) */
  XWIN_AGG           /* an aggregate over the frame: wf_agg; arg 0 (none for count(*)),
                      * arg 1 string_agg's delimiter */
} xwin_t;

/* Frame units and bounds (the values of sql.h's sql_frame_t, sql_bound_t,
 * sql_exclude_t, which exec cannot include). */
typedef enum xframe_e { XFRAME_ROWS = 1, XFRAME_RANGE, XFRAME_GROUPS } xframe_t;
typedef enum xbound_e {
  XBOUND_UNBOUNDED_PRECEDING = 0,
  XBOUND_PRECEDING,
  XBOUND_CURRENT,
  XBOUND_FOLLOWING,
  XBOUND_UNBOUNDED_FOLLOWING
} xbound_t;
typedef enum xexclude_e {
  XEXCLUDE_NONE = 0,
  XEXCLUDE_CURRENT,
  XEXCLUDE_GROUP,
  XEXCLUDE_TIES
} xexclude_t;

typedef struct xwin_fn_s {
  xwin_t wf_kind;
  xagg_t wf_agg;       /* XWIN_AGG */
  int wf_args[3];      /* input columns of the arguments; -1 when absent */
  ty_t wf_type;        /* result type */
} xwin_fn_t;

typedef struct xwin_spec_s {
  int ws_npart;
  const int *ws_part;          /* input columns of PARTITION BY */
  int ws_norder;
  const int *ws_ord;           /* input columns of ORDER BY */
  const bool *ws_desc;         /* per ORDER BY column */
  const bool *ws_nulls_first;
  xframe_t ws_unit;            /* the default frame is RANGE UNBOUNDED PRECEDING .. CURRENT ROW */
  xbound_t ws_start, ws_end;
  /* The offsets of n PRECEDING / n FOLLOWING: expressions without
   * columns, evaluated once per execution. ROWS and GROUPS take a BIGINT;
   * RANGE one of the ORDER BY column's type (integers: BIGINT, floats:
   * DOUBLE, NUMERIC: NUMERIC). */
  xnode_t *ws_start_off, *ws_end_off;
  xexclude_t ws_exclude;
} xwin_spec_t;

/* Output: the input's columns, then one column per function (fns[k]'s
 * result at input width + k). The input is sorted by the partition
 * columns, then the ORDER BY columns (peers: equal in all of them).
 * Errors at open: a NULL offset 22004, a negative one 22013. */
op_t *op_window_new(arena_t *a, op_t *in, const xwin_spec_t *spec, int nfn, const xwin_fn_t *fns);

#endif /* CZ_EXEC_WINDOW_H */
