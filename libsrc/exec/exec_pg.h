/* exec_pg — operators PostgreSQL clients' catalog queries need beyond core
 * SQL: ARRAY(subquery) as an array's text form, and generate_series in
 * FROM (window functions have their own contract, exec_window.h).
 *
 * Design notes:
 * - Arrays are values of type TEXT in PostgreSQL's one-dimensional text
 *   form ('{a,"b c",NULL}') until types/ has arrays; xarray_text makes
 *   that form (element quoting as PostgreSQL's array output does).
 */
#ifndef CZ_EXEC_PG_H
#define CZ_EXEC_PG_H

#include "exec/exec.h"

/* ---- arrays as text ----------------------------------------------------- */

/* The text form of a one-dimensional array of n elements (NULL elements
 * where nulls[i]), allocated in a: '{}' when n is 0. NULL with 54000 past
 * XE_MAX_FIELD, or 53200 when it does not fit a's memory budget. */
char *xarray_text(arena_t *a, const str_t *elems, const bool *nulls, int n, err_t *e);
/* ARRAY(subquery): one row, one TEXT column: the array of the input's
 * single (TEXT) column's values, in input order. */
op_t *op_array_agg_new(arena_t *a, op_t *in);

/* ---- generate_series ---------------------------------------------------- */

/* Rows start, start+step, … up to stop (down to it when step < 0) of type
 * t (an integer type); the bounds are expressions without columns
 * (parameters and outer references allowed), evaluated per execution.
 * step NULL is 1; a step of 0 is 22023; a NULL bound gives no rows. */
op_t *op_series_new(arena_t *a, ty_t t, xnode_t *start, xnode_t *stop, xnode_t *step);

/* ---- set-returning functions in a select list (op_project_set.c) --------- */

/* For each input row, nsrf integer series side by side (bounds: 3 per
 * series, start, stop and step (NULL = 1), INT8 expressions over the input
 * row): the row repeated as often as the longest series has members, with
 * one INT8 column per series after the input's columns (the member, NULL
 * once that series has ended). A row whose series are all empty gives
 * nothing; a step of 0 is 22023. */
op_t *op_project_set_new(arena_t *a, op_t *in, int nsrf, xnode_t **bounds);

#endif /* CZ_EXEC_PG_H */
