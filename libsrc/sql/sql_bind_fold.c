/* sql_bind_fold — constant folding: an immutable expression over
 * constants becomes one constant while binding, so that the planner sees
 * `l_shipdate < date '1995-01-01'` where the text said `l_shipdate <
 * date '1994-01-01' + interval '1' year` (key bounds, predicates pushed
 * into the scan, selectivity from the index or a sample: opt/README.md).
 *
 * Design notes:
 * - Bottom-up as the binder builds nodes: bd_op, function calls, casts,
 *   CASE and IN lists call bd_fold on the node they just made, whose
 *   operands were folded when they were made. So the walk is the
 *   binder's own, never a second pass.
 * - Only immutable nodes fold (PostgreSQL's eval_const_expressions):
 *   operators, casts and exec's built-in functions (xfunc_immutable) over
 *   types whose value and text form depend on nothing but the value. A
 *   timestamptz or timetz anywhere (its arithmetic and casts use the
 *   session's TimeZone), a string read as a date or time ('now',
 *   'today'), the reg* types (catalog lookups), arrays and bytea (whose
 *   text form is a setting) do not fold: such a value is computed per
 *   execution (opt_scan.c's pushed values take the stable ones), so a
 *   prepared statement stays right when the setting changes.
 * - Errors: the value is computed in a scratch arena under a small budget;
 *   any error (division by zero, overflow, a bad cast, a value past
 *   FOLD_MAX_BYTES) leaves the node as it was, so the error is raised when
 *   — and only if — the expression is evaluated at run time, exactly as
 *   without folding. PostgreSQL raises such an error while planning even
 *   when no row would evaluate it (`SELECT 1/0 FROM empty`); Cadenza stays
 *   lazy there (a documented difference: sql/README.md).
 * - The folded constant keeps the node's type with its modifiers and its
 *   position; strings are copied into the statement's arena.
 * - A DATE compared with a TIMESTAMP constant (what `d < date '…' +
 *   interval '…'` binds to: the date cast up) becomes the same comparison
 *   on DATE (bd_fold_date_cmp), which the scan can test and key ranges
 *   can use.
 */
#include <string.h>

#include "sql/sql_bind_int.h"

/* Largest scratch memory one fold may use: a bigger value (repeat('x',
 * 1e8)) stays an expression, computed under the execution's budget. */
#define FOLD_MAX_BYTES (1 << 20)

#define FOLD_USECS_PER_DAY INT64_C(86400000000)
/* PostgreSQL's infinite values (types/types_int.h keeps them private) */
#define FOLD_DATE_NOBEGIN ((int64_t)INT32_MIN)
#define FOLD_DATE_NOEND ((int64_t)INT32_MAX)
#define FOLD_TS_NOBEGIN INT64_MIN
#define FOLD_TS_NOEND INT64_MAX

/* Types whose values and text forms depend on nothing but the value. */
static bool fold_type_ok(ty_t t)
{
  if (t.t_elem != TY_UNKNOWN)
    return false;
  switch (t.t_id) {
  case TY_BOOL:
  case TY_INT2:
  case TY_INT4:
  case TY_INT8:
  case TY_FLOAT4:
  case TY_FLOAT8:
  case TY_NUMERIC:
  case TY_CHAR:
  case TY_VARCHAR:
  case TY_TEXT:
  case TY_DATE:
  case TY_TIMESTAMP:
  case TY_TIME:
  case TY_INTERVAL:
    return true;
  default:
    return false;
  }
}

static bool is_str(ty_id_t t)
{
  return t == TY_CHAR || t == TY_VARCHAR || t == TY_TEXT;
}

/* Whether node n (its operands constants) computes the same value in
 * every session at every time. */
static bool fold_node_ok(const xnode_t *n)
{
  if (!fold_type_ok(n->x_type))
    return false;
  for (int i = 0; i < n->x_nargs; i++) {
    const xnode_t *a = n->x_args[i];
    if (a->x_kind != X_CONST || !fold_type_ok(a->x_type))
      return false;
  }
  switch (n->x_kind) {
  case X_OP:
  case X_CASE:
  case X_IN_LIST:
    return true;
  case X_CAST: {
    /* 'now', 'today', 'allballs' …: reading a string as a date or time
     * is PostgreSQL's stable date_in, not folded either */
    ty_id_t from = n->x_args[0]->x_type.t_id, to = n->x_type.t_id;
    return !(is_str(from) && (to == TY_DATE || to == TY_TIMESTAMP || to == TY_TIME));
  }
  case X_FUNC:
    return xfunc_immutable(n->x_func);
  default:
    return false;
  }
}

/* Computes n (its operands constants) into *out in the statement's
 * arena; false on any error. */
static bool fold_eval(bd_t *b, const xnode_t *n, datum_t *out)
{
  arena_t *scratch = arena_create(b->b_a, "fold");
  mem_budget_t budget;
  mem_budget_init(&budget, FOLD_MAX_BYTES);
  arena_set_budget(scratch, &budget);
  xctx_t xc;
  memset(&xc, 0, sizeof xc);
  xc.xc_arena = scratch;
  xc.xc_budget = &budget;
  xc.xc_max_mem = FOLD_MAX_BYTES;
  err_t e;
  memset(&e, 0, sizeof e);
  bool ok = xeval_scalar(&xc, n, out, &e) == CZ_OK && !mem_budget_exceeded(&budget);
  if (ok && !out->d_null && ty_phys(n->x_type.t_id) == TP_STR) {
    char *s = arena_alloc(b->b_a, out->d_str.s_len + 1);
    if (out->d_str.s_len)
      memcpy(s, out->d_str.s_ptr, out->d_str.s_len);
    s[out->d_str.s_len] = 0;
    out->d_str.s_ptr = s;
  }
  arena_set_budget(scratch, NULL);
  arena_destroy(scratch);
  return ok;
}

/* ---- DATE against a TIMESTAMP constant --------------------------------- */

static bool is_cmp(xop_t op)
{
  return op == XOP_EQ || op == XOP_NE || op == XOP_LT || op == XOP_LE || op == XOP_GT ||
         op == XOP_GE;
}

/* x as a DATE expression cast up to TIMESTAMP: the DATE operand, else NULL. */
static xnode_t *date_cast_arg(const xnode_t *x)
{
  if (x->x_kind == X_CAST && x->x_type.t_id == TY_TIMESTAMP &&
      x->x_args[0]->x_type.t_id == TY_DATE)
    return x->x_args[0];
  return NULL;
}

/* The days of timestamp ts rounded down (*lo) and up (*hi); the
 * infinities map to DATE's. Returns whether ts is a midnight (lo == hi). */
static bool ts_days(int64_t ts, int64_t *lo, int64_t *hi)
{
  if (ts == FOLD_TS_NOEND || ts == FOLD_TS_NOBEGIN) {
    *lo = *hi = ts == FOLD_TS_NOEND ? FOLD_DATE_NOEND : FOLD_DATE_NOBEGIN;
    return true;
  }
  int64_t q = ts / FOLD_USECS_PER_DAY, r = ts % FOLD_USECS_PER_DAY;
  if (r < 0) {
    q--;
    r += FOLD_USECS_PER_DAY;
  }
  *lo = q;
  *hi = r ? q + 1 : q;
  return r == 0;
}

static xnode_t *date_const(bd_t *b, int64_t days, int pos)
{
  xnode_t *c = bd_node(b, X_CONST, ty_plain(TY_DATE), pos);
  c->x_const.d_i64 = days;
  return c;
}

/* `d op ts` (d a DATE cast to TIMESTAMP, ts a constant) as `d op' day`:
 * d < ts is d < ceil(ts), d <= ts is d <= floor(ts), d > ts is d >
 * floor(ts), d >= ts is d >= ceil(ts), = and <> only at a midnight.
 * Exact for every date inside TIMESTAMP's range (and the infinities);
 * a date past it (year 294277 on) compares instead of raising 22008, as
 * PostgreSQL 16's cross-type operators do. */
static xnode_t *bd_fold_date_cmp(bd_t *b, xnode_t *n)
{
  for (int side = 0; side < 2; side++) {
    xnode_t *d = date_cast_arg(n->x_args[side]), *c = n->x_args[1 - side];
    if (!d || c->x_kind != X_CONST || c->x_type.t_id != TY_TIMESTAMP || c->x_const.d_null)
      continue;
    xop_t op = n->x_op;
    if (side == 1)  /* ts op d: as seen from d */
      op = op == XOP_LT ? XOP_GT : op == XOP_LE ? XOP_GE : op == XOP_GT ? XOP_LT
         : op == XOP_GE ? XOP_LE : op;
    int64_t lo, hi;
    bool midnight = ts_days(c->x_const.d_i64, &lo, &hi);
    int64_t day = op == XOP_LT || op == XOP_GE ? hi : lo;
    if ((op == XOP_EQ || op == XOP_NE) && !midnight)
      return n;
    xnode_t *r = bd_node(b, X_OP, n->x_type, n->x_pos);
    r->x_op = op;
    r->x_nargs = 2;
    r->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * 2);
    r->x_args[0] = d;
    r->x_args[1] = date_const(b, day, c->x_pos);
    return r;
  }
  return n;
}

/* d IN (ts, …) with every item a midnight (or NULL): d IN (day, …). */
static xnode_t *bd_fold_date_in(bd_t *b, xnode_t *n)
{
  xnode_t *d = date_cast_arg(n->x_args[0]);
  if (!d)
    return n;
  for (int i = 1; i < n->x_nargs; i++) {
    const xnode_t *c = n->x_args[i];
    int64_t lo, hi;
    if (c->x_kind != X_CONST || c->x_type.t_id != TY_TIMESTAMP ||
        (!c->x_const.d_null && !ts_days(c->x_const.d_i64, &lo, &hi)))
      return n;
  }
  xnode_t *r = bd_node(b, X_IN_LIST, n->x_type, n->x_pos);
  r->x_not = n->x_not;
  r->x_nargs = n->x_nargs;
  r->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)n->x_nargs);
  r->x_args[0] = d;
  for (int i = 1; i < n->x_nargs; i++) {
    const xnode_t *c = n->x_args[i];
    int64_t lo, hi;
    if (c->x_const.d_null) {
      r->x_args[i] = bd_const_null(b, ty_plain(TY_DATE));
      continue;
    }
    ts_days(c->x_const.d_i64, &lo, &hi);
    r->x_args[i] = date_const(b, lo, c->x_pos);
  }
  return r;
}

bool bd_foldable(const xnode_t *n)
{
  switch (n->x_kind) {
  case X_OP:
  case X_CAST:
  case X_FUNC:
  case X_CASE:
  case X_IN_LIST:
    return fold_node_ok(n);
  default:
    return false;
  }
}

xnode_t *bd_fold(bd_t *b, xnode_t *n)
{
  if (!n || n->x_kind == X_CONST || n->x_kind == X_COL || n->x_kind == X_PARAM ||
      n->x_kind == X_SUBQ)
    return n;
  if (n->x_kind == X_OP && n->x_nargs == 2 && is_cmp(n->x_op))
    n = bd_fold_date_cmp(b, n);
  else if (n->x_kind == X_IN_LIST)
    n = bd_fold_date_in(b, n);
  if (!fold_node_ok(n))
    return n;
  datum_t v;
  if (!fold_eval(b, n, &v))
    return n;
  xnode_t *c = bd_node(b, X_CONST, n->x_type, n->x_pos);
  c->x_const = v;
  return c;
}
