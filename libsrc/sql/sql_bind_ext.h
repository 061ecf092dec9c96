/* sql_bind_ext — binding the PostgreSQL forms that clients' catalog
 * queries use beyond core SQL: arrays (held as their text form), casts to
 * the reg* types, window functions, generate_series and unnest in FROM.
 *
 * Design notes:
 * - Arrays: types/ has no array type, so an array is a TEXT value in
 *   PostgreSQL's text form ('{1,2}'; pg_catalog's int2vector/oidvector as
 *   '1 2'), which is also how pgcat's catalog columns hold them. x[i] is
 *   array_element(x, i) cast to the element type. Whether a value is an
 *   array, and of what, is its type's t_elem (types.h), set where arrays
 *   are made and carried like any type through subqueries, set
 *   operations and WITH (sql_bind_array.c); int2vector/oidvector catalog
 *   columns are subscripted but are not arrays; x = ANY (arr) is
 *   array_any_eq(arr, x::text) with three-valued logic; ARRAY(subquery) a
 *   scalar subquery whose plan collects the rows (exec_pg.h).
 * - reg* casts: text to regclass/regtype/regnamespace/regrole is the OID
 *   (regclassin(text) …, 42P01 when there is no such object); an OID to a
 *   reg type is its name as text (regclassout(oid) …), which is what a
 *   client displays; both resolved at run time in the session's catalog.
 * - generate_series(…) and unnest(array) in FROM (sql_bind_srf.c).
 * - Window functions (row_number, rank, dense_rank) are collected per
 *   query block like aggregates: the call binds to a placeholder column
 *   after the FROM row (sc_width + k); bd_window_logical describes the
 *   windows (lp_window_t) and sets each placeholder's column, and the
 *   generator (opt/opt_window.c) puts a sort and a window operator under
 *   the block's projection to produce it.
 */
#ifndef CZ_SQL_BIND_EXT_H
#define CZ_SQL_BIND_EXT_H

#include "sql/sql_bind_int.h"

/* ---- arrays (sql_bind_array.c) ----------------------------------------- */

/* ARRAY[…], ARRAY(subquery) and x[i]. */
int bd_array_expr(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* (SELECT array_agg(e ORDER BY k) FROM …) as ARRAY(…); 1 when x is not that shape. */
int bd_array_agg_subq(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* x op ANY/ALL (array): the forms with an array operand (no subquery). */
int bd_array_any(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* The type of an array of elem (held as text, t_elem = elem). */
ty_t bd_array_of(ty_id_t elem);
/* The element type of the array expression x, bound as n: its t_elem, an
 * int2vector/oidvector catalog column's element, else text. */
ty_t bd_array_elem_of(const bd_scope_t *sc, const sql_expr_t *x, const xnode_t *n);

/* ---- casts to reg* and array types (sql_bind_reg.c) --------------------- */

/* CAST(x AS t) when t is a reg* or array type: CZ_OK with *out, CZ_ERR,
 * or 1 when x is an ordinary cast the caller binds. */
int bd_cast_ext(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* A select-list item of the statement's outermost SELECT: when x casts a
 * string to regclass, regtype, regnamespace or regrole, *n (its OID)
 * becomes the object's name, as PostgreSQL displays reg* values. */
int bd_reg_display(bd_t *b, const sql_expr_t *x, xnode_t **n);

/* ---- window functions (sql_bind_window.c) ------------------------------- */

/* The block's WINDOW clause (of sql_window_t; 42P20 for a name defined
 * twice): before its select list is bound. */
int bd_window_begin(bd_t *b, bd_scope_t *sc, const sql_list_t *defs);
/* Refuses window calls while binding `where` (HAVING: 42P20); NULL
 * allows them again. */
/* Whether the block has window function calls (not only WINDOW definitions). */
bool bd_window_any(const bd_scope_t *sc);
void bd_window_forbid(bd_scope_t *sc, const char *where);
/* f(…) OVER (…): a placeholder for the block's window column. */
int bd_window_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* Whether x is a window call's placeholder (the GROUP BY rewrite keeps it). */
bool bd_window_is_holder(const xnode_t *x);
/* Whether name is a window function that is not also an aggregate
 * (row_number …): such a call needs OVER (42809). */
bool bd_window_only(const char *name);
/* A grouped block's GROUP BY, for rewriting window keys and arguments
 * over the group-by's output. */
typedef struct bd_wgroup_s {
  bd_aggctx_t *wg_agg;
  int wg_ngroup;
  xnode_t **wg_group;
} bd_wgroup_t;
/* The windows of the block, in order, over an input of base columns: the
 * block's row, or with grouped the group-by's output (keys, aggregates,
 * GROUPING calls), whose keys and arguments are then rewritten over it.
 * Each placeholder reads its result column (each window adds its calls'
 * columns after those of its input). *nwin 0: none. */
int bd_window_logical(bd_t *b, bd_scope_t *sc, const bd_wgroup_t *grouped, int base, int *nwin,
                      const lp_window_t **out);

/* ---- set-returning functions in FROM (sql_bind_srf.c) ------------------- */

/* FROM generate_series(…) or unnest(array) [AS] alias[(col)]: the range
 * entry in sc and its logical node (LN_FUNC, sql_logical.h). */
int bd_from_func(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, lp_node_t **out);
/* The logical node of a function in FROM: a series lo .. hi [by step]
 * of type t, each number made into the row's ncols columns by row[] (NULL:
 * the number itself, one column); sql_bind_json_srf.c makes its own. */
lp_node_t *bd_func_node(bd_t *b, ty_t t, xnode_t *lo, xnode_t *hi, xnode_t *step, int ncols,
                        xnode_t **row);

/* transitive(edges, start, stop [, min [, roots]]) in FROM (sql_bind_transitive.c):
 * the Transitive Closure operator over the edges query (exec_ql.h). */
bool bd_transitive_is(const sql_expr_t *f);
int bd_transitive(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, lp_node_t **out);

/* ---- set-returning functions in a select list (sql_bind_srf_list.c) ------ */

/* Whether the call x is one (unnest, generate_series, generate_subscripts,
 * information_schema._pg_expandarray). */
bool bd_srf_name(const sql_expr_t *x);
/* jsonb_path_query(…) as jsonb_array_elements(jsonb_path_query_array(…));
 * x itself for any other expression (sql_bind_json_srf.c). */
const sql_expr_t *bd_jsonpath_query_expr(bd_t *b, const sql_expr_t *x);
/* The call x: a placeholder of its value (0A000 where not allowed). */
int bd_srf_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* Allows them in the block of sc (its select list and ORDER BY), from now. */
void bd_srf_begin(bd_t *b, bd_scope_t *sc);
/* Refuses them while binding `where` ("HAVING", "CASE"); NULL allows them
 * again. Returns the refusal it replaces, for the caller to put back. */
const char *bd_srf_forbid(bd_scope_t *sc, const char *where);
bool bd_srf_any(const bd_scope_t *sc);
/* Whether x is a placeholder (the GROUP BY rewrite keeps it). */
bool bd_srf_is_holder(const xnode_t *x);
/* The ProjectSet of the block (lp_upper_t lu_nsrf, lu_srf_bounds: the
 * generator builds it) over a row of base columns — the last window's,
 * else the group-by's output (grouped: its keys and aggregates), else the
 * block's row — whose counters are columns base, base + 1, …; the
 * placeholders become the values. Before the targets' final types. */
int bd_srf_logical(bd_t *b, bd_scope_t *sc, const bd_wgroup_t *grouped, int base, int *n,
                   xnode_t ***bounds);

/* ---- composite values (sql_bind_record.c) -------------------------------- */

typedef struct bd_srfctx_s bd_srfctx_t;
/* The type of a record of n fields (TEXT naming the shape in t_scale). */
ty_t bd_record_type(bd_t *b, int n, const char *const *names, const ty_t *types);
/* (x->ex_left).x->ex_name. */
int bd_field(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* (x->ex_left).* in a select list: its fields and their names. */
int bd_field_star(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, int *n, xnode_t ***outs,
                  const char ***names);

/* ---- the integers' bit operators (sql_bind_bits.c) ------------------------ */

bool bd_bitop_is(sql_op_t op);
/* l op r (r NULL for ~ l), both bound: the int2and … int8shr call. */
int bd_bitop(bd_t *b, sql_op_t op, xnode_t *l, xnode_t *r, int pos, xnode_t **out);

/* ---- the json and jsonb operators (sql_bind_json.c) ------------------------ */

bool bd_jsonop_is(sql_op_t op);
/* l op r for -> ->> #> #>> @> <@ ? ?| ?& #-: the call PostgreSQL's operator
 * stands for (42883 when the operand types have none). */
int bd_jsonop(bd_t *b, sql_op_t op, xnode_t *l, xnode_t *r, int pos, xnode_t **out);
/* Whether l || r or l - r is jsonb's operator (jsonb_concat, jsonb_delete). */
bool bd_jsonb_arith(sql_op_t op, const xnode_t *l, const xnode_t *r);
int bd_jsonb_arith_op(bd_t *b, sql_op_t op, xnode_t *l, xnode_t *r, int pos, xnode_t **out);

/* ---- json_agg, jsonb_agg, json[b]_object_agg (sql_bind_json_agg.c) ---- */

bool bd_json_agg_is(const char *name);
int bd_json_agg_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);
/* row_to_json(t), to_json(t), to_jsonb(t) of a FROM item t's whole row
 * (sql_bind_row_json.c); 1 when x is no such call. */
int bd_row_json_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);

/* ---- json[b]_each, _array_elements, _object_keys in FROM (sql_bind_json_srf.c) ---- */

bool bd_json_srf_is(const char *name);
int bd_json_srf(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, lp_node_t **out);

/* ---- shared ------------------------------------------------------------- */

/* Calls the registered function name over bound args (cast as it wants). */
int bd_ext_call(bd_t *b, const char *name, xnode_t **args, int n, int pos, xnode_t **out);

#endif /* CZ_SQL_BIND_EXT_H */
