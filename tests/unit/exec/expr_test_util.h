/* expr_test_util.h — node builders and evaluation helpers shared by the
 * expression unit tests (what the binder would build). */
#ifndef CZ_EXPR_TEST_UTIL_H
#define CZ_EXPR_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

#include "exec/expr.h"

static arena_t *tx_arena;

static inline xnode_t *tx_node(xkind_t k, ty_t t)
{
  xnode_t *x = arena_zalloc(tx_arena, sizeof(*x));
  x->x_kind = k;
  x->x_type = t;
  return x;
}

static inline xnode_t *tx_i(ty_id_t id, int64_t v)
{
  xnode_t *x = tx_node(X_CONST, ty_plain(id));
  x->x_const.d_i64 = v;
  return x;
}

static inline xnode_t *tx_null(ty_id_t id)
{
  xnode_t *x = tx_node(X_CONST, ty_plain(id));
  x->x_const.d_null = true;
  return x;
}

static inline xnode_t *tx_b(int v) /* -1 = NULL */
{
  xnode_t *x = tx_node(X_CONST, ty_plain(TY_BOOL));
  if (v < 0)
    x->x_const.d_null = true;
  else
    x->x_const.d_bool = (uint8_t)v;
  return x;
}

static inline xnode_t *tx_f(double v)
{
  xnode_t *x = tx_node(X_CONST, ty_plain(TY_FLOAT8));
  x->x_const.d_f64 = v;
  return x;
}

/* A constant of type t from its text form. */
static inline xnode_t *tx_t(ty_t t, const char *s)
{
  xnode_t *x = tx_node(X_CONST, t);
  err_t e;
  if (ty_parse_text(t, s, strlen(s), tx_arena, &x->x_const, &e) != CZ_OK) {
    fprintf(stderr, "bad constant %s: %s\n", s, e.er_msg);
    return NULL;
  }
  return x;
}

static inline xnode_t *tx_s(const char *s)
{
  return tx_t(ty_plain(TY_TEXT), s);
}

static inline xnode_t *tx_col(int idx, ty_t t)
{
  xnode_t *x = tx_node(X_COL, t);
  x->x_index = idx;
  return x;
}

static inline xnode_t *tx_args(xnode_t *x, int n, xnode_t **args)
{
  x->x_nargs = n;
  x->x_args = arena_alloc(tx_arena, sizeof(xnode_t *) * (size_t)(n > 0 ? n : 1));
  for (int i = 0; i < n; i++)
    x->x_args[i] = args[i];
  return x;
}

/* An operator node with the binder's casts, as xop_resolve says. */
static inline xnode_t *tx_cast(xnode_t *a, ty_t to, bool explicit_cast);

static inline xnode_t *tx_op(xop_t op, xnode_t *l, xnode_t *r)
{
  ty_t lt, rt, res;
  err_t e;
  if (xop_resolve(op, l->x_type, r ? &r->x_type : NULL, &lt, &rt, &res, &e) != CZ_OK) {
    fprintf(stderr, "xop_resolve: %s\n", e.er_msg);
    return NULL;
  }
  xnode_t *x = tx_node(X_OP, res);
  x->x_op = op;
  xnode_t *args[2] = {tx_cast(l, lt, false), r ? tx_cast(r, rt, false) : NULL};
  return tx_args(x, r ? 2 : 1, args);
}

static inline xnode_t *tx_cast(xnode_t *a, ty_t to, bool explicit_cast)
{
  if (a->x_type.t_id == to.t_id && a->x_type.t_len == to.t_len &&
      a->x_type.t_prec == to.t_prec && a->x_type.t_scale == to.t_scale && !explicit_cast)
    return a;
  xnode_t *x = tx_node(X_CAST, to);
  x->x_explicit = explicit_cast;
  return tx_args(x, 1, &a);
}

/* A function call resolved and cast as the binder would. */
static inline xnode_t *tx_fn(const char *name, int n, xnode_t **args)
{
  ty_t in[16] = {{0}}, to[16], res;
  const xfunc_t *f;
  err_t e;
  for (int i = 0; i < n; i++)
    in[i] = args[i]->x_type;
  if (xfunc_resolve(name, in, n, &f, to, &res, &e) != CZ_OK) {
    fprintf(stderr, "xfunc_resolve: %s\n", e.er_msg);
    return NULL;
  }
  xnode_t *x = tx_node(X_FUNC, res);
  x->x_func = f;
  xnode_t *cast[16];
  for (int i = 0; i < n; i++)
    cast[i] = tx_cast(args[i], to[i], false);
  return tx_args(x, n, cast);
}

static inline xctx_t tx_ctx(void)
{
  xctx_t c;
  memset(&c, 0, sizeof(c));
  c.xc_arena = tx_arena;
  return c;
}

/* The text form of a scalar evaluation, "NULL", or "ERR <sqlstate>". */
static inline const char *tx_eval_text(const xnode_t *x)
{
  static char buf[8][256];
  static int k;
  char *out = buf[k++ % 8];
  if (!x)
    return "BUILD FAILED";
  xctx_t c = tx_ctx();
  datum_t d;
  err_t e;
  if (xeval_scalar(&c, x, &d, &e) != CZ_OK) {
    snprintf(out, 256, "ERR %s", e.er_sqlstate);
    return out;
  }
  if (d.d_null)
    return "NULL";
  int n = ty_format_text(x->x_type, &d, out, 255);
  if (n < 0)
    return "TOO LONG";
  out[n] = '\0';
  return out;
}

#endif /* CZ_EXPR_TEST_UTIL_H */
