/* exec/expr.h — bound scalar expressions and their vectored evaluation,
 * and the type rules (operator and function resolution, implicit casts)
 * the binder asks about.
 *
 * Design notes:
 * - The binder (sql/) turns syntax into xnode_t trees whose every node has
 *   a result type; operands already have the types the operator wants (the
 *   binder inserts X_CAST nodes as xop_resolve / xfunc_resolve say).
 * - xeval computes a node for every selected row of an input batch into an
 *   output vector: one call per node per batch, not per row (DESIGN.md
 *   §2.9). NULLs follow SQL's three-valued logic.
 * - Aggregate calls never reach xeval: the group-by operator computes them
 *   and the binder replaces them by X_COL references to its output.
 * - Subqueries (scalar, EXISTS, IN) are X_SUBQ nodes evaluated through a
 *   callback of the query layer, which runs the subplan with the outer
 *   row's values as parameters.
 * - Run-time errors (22012 division by zero, 22003 overflow, 22P02 bad
 *   cast …) stop the evaluation with CZ_ERR and x_pos as the position.
 */
#ifndef CZ_EXEC_EXPR_H
#define CZ_EXEC_EXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "types/types.h"
#include "util/util.h"

typedef enum xkind_e {
  X_CONST,    /* x_const of x_type */
  X_COL,      /* column x_index of the input batch */
  X_PARAM,    /* parameter x_index (0-based) of the statement */
  X_OP,       /* x_op over x_args */
  X_FUNC,     /* x_func over x_args */
  X_CASE,     /* searched form: x_args = cond1, res1, cond2, res2, …[, else];
                 x_has_else; a branch is evaluated only for the rows that
                 reach it */
  X_CAST,     /* x_args[0] to x_type (x_explicit: CAST/::, which truncates
                 strings to a VARCHAR(n)/CHAR(n) instead of 22001) */
  X_IN_LIST,  /* x_args[0] IN (x_args[1..]) (x_not: NOT IN), 3VL */
  X_SUBQ      /* a subquery, see xsubq_fn_t */
} xkind_t;

typedef enum xop_e {
  XOP_AND, XOP_OR, XOP_NOT,
  XOP_EQ, XOP_NE, XOP_LT, XOP_LE, XOP_GT, XOP_GE,
  XOP_IS_DISTINCT, XOP_IS_NOT_DISTINCT,
  XOP_ADD, XOP_SUB, XOP_MUL, XOP_DIV, XOP_MOD, XOP_NEG,
  XOP_CONCAT,
  XOP_LIKE, XOP_NOT_LIKE, XOP_ILIKE, XOP_NOT_ILIKE,
  XOP_IS_NULL, XOP_IS_NOT_NULL,
  XOP_IS_TRUE, XOP_IS_NOT_TRUE, XOP_IS_FALSE, XOP_IS_NOT_FALSE
} xop_t;

typedef struct xfunc_s xfunc_t;     /* a scalar function (exec/ owns the table) */
typedef struct xnode_s xnode_t;

/* Subqueries: the query layer's callback computes the subquery for row
 * `row` of the input batch (whose columns carry the outer references).
 * kind: 0 scalar (more than one row is 21000), 1 EXISTS, 2 IN (the
 * subquery's single column compared with x_args[0]'s value, 3VL). */
typedef int (*xsubq_fn_t)(void *qctx, void *subq, int kind, const batch_t *in, int row,
                          const datum_t *lhs, arena_t *a, datum_t *out, err_t *e);

struct xnode_s {
  xkind_t x_kind;
  ty_t x_type;           /* result type */
  int x_pos;             /* 1-based position in the statement text, 0 none */
  datum_t x_const;       /* X_CONST (strings in the statement's arena) */
  int x_index;           /* X_COL, X_PARAM */
  xop_t x_op;            /* X_OP */
  const xfunc_t *x_func; /* X_FUNC */
  bool x_not;            /* X_IN_LIST: NOT IN; X_SUBQ kind 2: NOT IN */
  bool x_has_else;       /* X_CASE */
  bool x_explicit;       /* X_CAST: written by the user (CAST, ::) */
  int x_subq_kind;       /* X_SUBQ: 0 scalar, 1 EXISTS, 2 IN */
  void *x_subq;          /* X_SUBQ: the query layer's subplan */
  int x_nargs;
  xnode_t **x_args;
};

/* Evaluation context of one statement execution. */
typedef struct xctx_s {
  arena_t *xc_arena;          /* results' strings; reset per batch by the caller */
  const datum_t *xc_params;   /* bound parameter values */
  const ty_t *xc_param_types;
  int xc_nparams;
  xsubq_fn_t xc_subq;         /* for X_SUBQ */
  void *xc_qctx;              /* its first argument: the execution context the
                                 expression is evaluated in (a subquery's run
                                 state is that execution's, never the plan's) */
  volatile bool *xc_cancel;   /* checked once per batch: 57014 */
  /* Optional (zero when the caller does not know them): */
  int64_t xc_stmt_ts;         /* TIMESTAMP of the statement's start for now(),
                                 current_timestamp; 0 = read the clock */
  void *xc_session;           /* the engine's session, for functions such as
                                 current_user that registered modules add */
  mem_budget_t *xc_budget;    /* the execution's memory budget (NULL = none) */
  int64_t xc_max_mem;         /* its limit, for the error message */
} xctx_t;

/* 57014 when the statement must stop (cancel request or statement_timeout),
 * 53200 when its memory budget is exceeded, else CZ_OK. Long scalar work calls it in
 * every loop whose length depends on data or arguments (ex_interrupt.c).
 * c may be NULL (nothing to check). */
int xc_check_interrupt(const xctx_t *c, err_t *e);
/* The largest string or array a function builds: PostgreSQL's 1 GB field
 * limit (past it, 54000), which also keeps lengths inside str_t's 32 bits. */
#define XE_MAX_FIELD (1u << 30)
/* Bytes or iterations of scalar work between two such checks. */
#define XC_INTERRUPT_EVERY 65536

/* n bytes in c->xc_arena for a value whose size the arguments decide:
 * NULL with 54000 past XE_MAX_FIELD, or with 53200 when it would take the
 * execution past its memory budget or the system refuses; nothing is
 * allocated then. Every function that builds such a value uses it. */
void *xc_alloc(xctx_t *c, size_t n, err_t *e);

/* Evaluates x for rows sel[0..nsel) of in (sel NULL = rows 0..in->b_n),
 * writing the result of row sel[i] at out index sel[i] (so the output
 * lines up with the input). out must have been vec_init'ed with x->x_type
 * and capacity >= in->b_n. */
int xeval(xctx_t *c, const xnode_t *x, const batch_t *in, const int *sel, int nsel,
          vec_t *out, err_t *e);

/* Filters: writes into sel_out the rows of sel (or all) for which the
 * boolean x is TRUE (not FALSE, not NULL); *nout their count. */
int xeval_filter(xctx_t *c, const xnode_t *x, const batch_t *in, const int *sel, int nsel,
                 int *sel_out, int *nout, err_t *e);

/* Evaluates a node that uses no columns (constants, parameters, functions
 * of them): LIMIT values, INSERT … VALUES rows, index lookup keys. */
int xeval_scalar(xctx_t *c, const xnode_t *x, datum_t *out, err_t *e);

/* ---- type rules the binder asks ----------------------------------------- */

/* For a binary (or, with r NULL, unary) operator over operands of types
 * l and r: the type each operand must be cast to and the result type.
 * TY_UNKNOWN operands (untyped literals, parameters of unknown type) take
 * the other side's type, as PostgreSQL does. 42883 when no such operator
 * ("operator does not exist: text + integer"). */
int xop_resolve(xop_t op, ty_t l, const ty_t *r, ty_t *l_to, ty_t *r_to, ty_t *result, err_t *e);

/* The common type of CASE branches, COALESCE arguments, IN lists, UNION
 * columns (PostgreSQL's "UNION/CASE types resolution"); 42804 when none. */
int xtype_common(const ty_t *types, int n, ty_t *out, err_t *e);

/* Whether a value of type from may be cast to to (explicitly when
 * explicit, else by assignment: INSERT/UPDATE of a column, which also
 * allows numeric narrowing such as numeric -> integer and anything ->
 * text). */
bool xcast_allowed(ty_t from, ty_t to, bool explicit_cast);
/* Whether the cast may be applied silently inside an expression (int4 ->
 * int8 -> numeric -> float8, varchar -> text, date -> timestamp): what
 * operator and function resolution use. */
bool xcast_implicit(ty_t from, ty_t to);

/* Looks a scalar function up by (lower-case) name and argument types:
 * sets *f, the type each argument must be cast to (arg_to, n entries) and
 * the result type. 42883 when unknown ("function foo(integer) does not
 * exist"). Aggregates are not here (xagg_resolve). */
int xfunc_resolve(const char *name, const ty_t *args, int n, const xfunc_t **f,
                  ty_t *arg_to, ty_t *result, err_t *e);

/* Aggregates: count, sum, avg, min, max, bool_and, bool_or, string_agg …
 * Resolves the result type and the argument type for the group-by
 * operator. 42883 when unknown. */
typedef enum xagg_e {
  XAGG_COUNT_STAR, XAGG_COUNT, XAGG_SUM, XAGG_AVG, XAGG_MIN, XAGG_MAX,
  XAGG_BOOL_AND, XAGG_BOOL_OR, XAGG_STRING_AGG
} xagg_t;
bool xagg_is_aggregate(const char *name);
int xagg_resolve(const char *name, bool star, const ty_t *args, int n, xagg_t *agg,
                 ty_t *arg_to, ty_t *result, err_t *e);

/* Casts one value (the scalar form of X_CAST), e.g. for INSERT of a
 * literal into a column: checks the target's modifiers (22001 string too
 * long, 22003 out of range). */
int xcast_datum(ty_t from, const datum_t *in, ty_t to, arena_t *a, datum_t *out, err_t *e);
/* The same with explicit-cast semantics when explicit_cast (strings are
 * truncated to VARCHAR(n)/CHAR(n) silently, as PostgreSQL's CAST does). */
int xcast_datum_ex(ty_t from, const datum_t *in, ty_t to, bool explicit_cast, arena_t *a,
                   datum_t *out, err_t *e);

/* ---- scalar function registry -------------------------------------------
 *
 * Functions are rows of static tables registered by name. The built-in
 * families (ex_func_math.c, ex_func_string.c, ex_func_time.c,
 * ex_func_misc.c) register themselves on first use; other modules (e.g.
 * pg_catalog's format_type, version(), current_user) call xfunc_register
 * at server start with their own static table:
 *
 *   static int my_version(xctx_t *c, const xnode_t *x, const datum_t *args,
 *                         datum_t *out, err_t *e) { ... }
 *   static const xfunc_def_t my_funcs[] = {
 *     {.fd_name = "version", .fd_nargs = 0, .fd_result = TY_TEXT,
 *      .fd_row = my_version},
 *     {.fd_name = "format_type", .fd_nargs = 2, .fd_args = {TY_INT8, TY_INT4},
 *      .fd_result = TY_TEXT, .fd_row = my_format_type},   // not XF_STRICT
 *   };
 *   xfunc_register(my_funcs, 2, &e);
 *
 * Resolution (xfunc_resolve) follows PostgreSQL's rules in short: among
 * the definitions with the name and a fitting argument count, those whose
 * every argument is the same type or implicitly castable (an untyped
 * literal fits anything) qualify; the most exact matches win, then the
 * most conversions to a preferred type (float8, text); ties go to the
 * earlier registration. x_func then points at the winning definition.
 *
 * Evaluation: fd_row is called once per selected row with the argument
 * values already computed (vectored per argument node), writing *out
 * (strings allocated in c->xc_arena). With XF_STRICT the function never
 * sees a NULL argument (the row's result is NULL). fd_vec, when set,
 * replaces the per-row loop: it receives the argument vectors and the
 * selection and fills out itself. */

/* Pseudo types for fd_args: */
#define XFA_ANY (-1)     /* any type, passed as it is (unknown -> text) */
#define XFA_ANYNUM (-2)  /* any number type, passed as it is (unknown -> numeric) */
#define XFA_COMMON (-3)  /* all XFA_COMMON arguments are cast to their common type */
#define XFA_ANYSTR (-4)  /* char/varchar/text passed as they are (others -> text) */
/* Pseudo types for fd_result: */
#define XFR_ARG0 (-1)    /* the (cast) type of the first argument */
#define XFR_COMMON (-2)  /* the common type of the XFA_COMMON arguments */

#define XF_STRICT 1u     /* NULL in any argument gives NULL, fd_row not called */
#define XF_VOLATILE 2u   /* not constant for constant arguments (random, now) */
#define XF_VARIADIC 4u   /* fd_args[fd_nargs-1] may appear any number of times,
                            zero included: n >= fd_nargs - 1 */
#define XF_STABLE 8u     /* with XF_VOLATILE: one value for the whole statement
                            execution (now, current_date: xc_stmt_ts), so it may
                            be computed once per execution (a scan's pushed
                            value, a plan-time estimate), never folded into
                            the plan */

#define XF_MAX_ARGS 8

typedef int (*xfunc_row_fn)(xctx_t *c, const xnode_t *x, const datum_t *args, datum_t *out,
                            err_t *e);
typedef int (*xfunc_vec_fn)(xctx_t *c, const xnode_t *x, vec_t *const *args, const int *sel,
                            int nsel, vec_t *out, err_t *e);
/* Optional: computes the result type from the argument types (after
 * casting) when fd_result cannot say it. */
typedef int (*xfunc_type_fn)(const ty_t *args, int n, ty_t *result, err_t *e);

struct xfunc_s {
  const char *fd_name;        /* lower case */
  int fd_nargs;               /* argument count (see XF_VARIADIC) */
  int fd_args[XF_MAX_ARGS];   /* ty_id_t or XFA_* */
  int fd_result;              /* ty_id_t or XFR_* */
  unsigned fd_flags;          /* XF_* */
  xfunc_row_fn fd_row;
  xfunc_vec_fn fd_vec;        /* optional; used instead of fd_row */
  xfunc_type_fn fd_type;      /* optional; overrides fd_result */
  int fd_special;             /* 0; exec's own lazily evaluated forms (coalesce) */
};
typedef struct xfunc_s xfunc_def_t;

/* Registers n definitions (which must stay valid for the process's life:
 * static tables). Thread-safe; a name may be registered several times
 * with different arguments (overloads). 42723 when the same name and
 * argument list is already registered. */
int xfunc_register(const xfunc_def_t *defs, int n, err_t *e);
/* Whether f gives the same result for the same arguments whatever the
 * session, the time and the catalog (PostgreSQL's IMMUTABLE), so the
 * binder may fold a call over constants into a constant: exec's own
 * built-in families only (a registered module's functions read the
 * catalog or the session), never XF_VOLATILE. A zoned argument or result
 * (timestamptz, timetz) depends on the session's TimeZone: the caller
 * checks the types it passes. */
bool xfunc_immutable(const xfunc_t *f);
/* Whether any function of this name is registered (for "function does not
 * exist" versus "no function matches the arguments"). */
bool xfunc_exists(const char *name);
/* The registry in registration order (built-ins first), for catalogs that
 * list every function (pg_proc): definitions are only ever appended, so
 * an index names the same definition for the life of the process. */
int xfunc_count(void);
const xfunc_def_t *xfunc_at(int i);

#endif /* CZ_EXEC_EXPR_H */
