/* sql_bind_node — building and comparing bound expression nodes, type
 * coercion, and the binder's error helper. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sql/sql_bind_int.h"

int bd_error(bd_t *b, const char *sqlstate, int pos, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  err_setv(b->b_e, sqlstate, fmt, ap);
  va_end(ap);
  if (b->b_e)
    b->b_e->er_pos = pos;
  return CZ_ERR;
}

void bd_access(bd_t *b, const sp_table_t *t, unsigned priv)
{
  for (int i = 0; i < b->b_naccess; i++)
    if (b->b_access[i].ac_table == t && b->b_access[i].ac_role == b->b_view_owner) {
      b->b_access[i].ac_priv |= priv;
      return;
    }
  if (b->b_naccess == b->b_access_cap) {
    int cap = b->b_access_cap ? b->b_access_cap * 2 : 4;
    sp_access_t *n = arena_alloc(b->b_a, sizeof(*n) * (size_t)cap);
    if (b->b_naccess)
      memcpy(n, b->b_access, sizeof(*n) * (size_t)b->b_naccess);
    b->b_access = n;
    b->b_access_cap = cap;
  }
  b->b_access[b->b_naccess++] = (sp_access_t){.ac_table = t, .ac_priv = priv,
                                              .ac_role = b->b_view_owner};
}

xnode_t *bd_node(bd_t *b, xkind_t kind, ty_t type, int pos)
{
  xnode_t *n = arena_zalloc(b->b_a, sizeof(*n));
  n->x_kind = kind;
  n->x_type = type;
  n->x_pos = pos;
  return n;
}

xnode_t *bd_col(bd_t *b, int index, ty_t type)
{
  xnode_t *n = bd_node(b, X_COL, type, 0);
  n->x_index = index;
  return n;
}

xnode_t *bd_const_null(bd_t *b, ty_t type)
{
  xnode_t *n = bd_node(b, X_CONST, type, 0);
  n->x_const.d_null = true;
  return n;
}

xnode_t *bd_const_i64(bd_t *b, ty_id_t id, int64_t v)
{
  xnode_t *n = bd_node(b, X_CONST, ty_plain(id), 0);
  n->x_const.d_i64 = v;
  return n;
}

/* Whether a value of type a needs no conversion to be of type b: the
 * same type, or b is the same type without constraining modifiers. */
static bool ty_same(ty_t a, ty_t b)
{
  if (a.t_id != b.t_id)
    return false;
  if (b.t_len < 0 && b.t_prec < 0)
    return true;
  return a.t_len == b.t_len && a.t_prec == b.t_prec && a.t_scale == b.t_scale;
}

static xnode_t *bd_wrap_cast(bd_t *b, xnode_t *n, ty_t to)
{
  xnode_t *c = bd_node(b, X_CAST, to, n->x_pos);
  c->x_nargs = 1;
  c->x_args = arena_alloc(b->b_a, sizeof(xnode_t *));
  c->x_args[0] = n;
  return c;
}

static xnode_t *bd_coerce_plain(bd_t *b, xnode_t *n, ty_t to);

xnode_t *bd_coerce(bd_t *b, xnode_t *n, ty_t to)
{
  xnode_t *c = bd_coerce_plain(b, n, to);
  return c && c != n && c->x_kind == X_CAST ? bd_fold(b, c) : c;
}

/* bd_coerce without folding the cast it makes (an explicit cast folds
 * once it is marked so). */
static xnode_t *bd_coerce_plain(bd_t *b, xnode_t *n, ty_t to)
{
  if (!n || ty_same(n->x_type, to) || to.t_id == TY_UNKNOWN)
    return n;
  if (n->x_type.t_id == TY_UNKNOWN) {
    if (n->x_kind == X_CONST) {
      /* A new node, never the old one retyped: the same node may be an
       * operand twice (BETWEEN) and be coerced to another type there. */
      xnode_t *c = bd_node(b, X_CONST, to, n->x_pos);
      if (n->x_const.d_null) {
        c->x_const.d_null = true;
        return c;
      }
      /* PostgreSQL also converts the literal while binding, so the
       * error (22P02 …) points at it. */
      if (ty_parse_text(to, n->x_const.d_str.s_ptr, n->x_const.d_str.s_len, b->b_a, &c->x_const,
                        b->b_e) != CZ_OK) {
        if (b->b_e)
          b->b_e->er_pos = n->x_pos;
        return NULL;
      }
      return c;
    }
    if (n->x_kind == X_PARAM && n->x_index < b->b_nparams) {
      b->b_ptypes[n->x_index] = to;
      n->x_type = to;
      return n;
    }
  }
  return bd_wrap_cast(b, n, to);
}

xnode_t *bd_cast(bd_t *b, xnode_t *n, ty_t to, int pos)
{
  if (n->x_type.t_id != TY_UNKNOWN && !ty_same(n->x_type, to) &&
      !xcast_allowed(n->x_type, to, true)) {
    bd_error(b, SQLSTATE_CANNOT_COERCE, pos, "cannot cast type %s to %s",
             ty_name(b->b_a, n->x_type), ty_name(b->b_a, to));
    return NULL;
  }
  if (n->x_kind == X_CONST && n->x_type.t_id == TY_UNKNOWN && !n->x_const.d_null &&
      (to.t_len >= 0 || to.t_prec >= 0)) {
    /* 'abcd'::varchar(3) truncates: the literal is read as the plain type,
     * then cast with explicit-cast semantics to the modifiers. */
    ty_t plain = ty_plain(to.t_id);
    xnode_t *c = bd_node(b, X_CONST, to, n->x_pos);
    datum_t d;
    if (ty_parse_text(plain, n->x_const.d_str.s_ptr, n->x_const.d_str.s_len, b->b_a, &d,
                      b->b_e) != CZ_OK ||
        xcast_datum_ex(plain, &d, to, true, b->b_a, &c->x_const, b->b_e) != CZ_OK) {
      if (b->b_e)
        b->b_e->er_pos = n->x_pos;
      return NULL;
    }
    return c;
  }
  xnode_t *c = bd_coerce_plain(b, n, to);
  if (!c)
    return NULL;
  /* An explicit cast of a value of the same type with other modifiers
   * still checks them (varchar(3) of a longer text). */
  if (c == n && n->x_kind != X_CONST && n->x_kind != X_PARAM && !ty_same(n->x_type, to))
    c = bd_wrap_cast(b, n, to);
  if (c->x_kind == X_CAST && c != n)
    c->x_explicit = true;  /* CAST truncates to VARCHAR(n) where assignment fails */
  return c->x_kind == X_CAST ? bd_fold(b, c) : c;
}

xnode_t *bd_finish_unknown(bd_t *b, xnode_t *n)
{
  if (n->x_type.t_id == TY_UNKNOWN)
    return bd_coerce(b, n, ty_plain(TY_TEXT));
  return n;
}

bool bd_node_equal(const xnode_t *x, const xnode_t *y)
{
  if (x == y)
    return true;
  if (!x || !y || x->x_kind != y->x_kind || x->x_type.t_id != y->x_type.t_id ||
      x->x_nargs != y->x_nargs)
    return false;
  switch (x->x_kind) {
  case X_CONST:
    if (x->x_const.d_null || y->x_const.d_null)
      return x->x_const.d_null && y->x_const.d_null;
    if (x->x_type.t_id == TY_UNKNOWN)
      return x->x_const.d_str.s_len == y->x_const.d_str.s_len &&
             memcmp(x->x_const.d_str.s_ptr, y->x_const.d_str.s_ptr, x->x_const.d_str.s_len) == 0;
    return datum_cmp(ty_phys(x->x_type.t_id), &x->x_const, &y->x_const) == 0;
  case X_COL:
  case X_PARAM:
    return x->x_index == y->x_index;
  case X_OP:
    if (x->x_op != y->x_op)
      return false;
    break;
  case X_FUNC:
    if (x->x_func != y->x_func)
      return false;
    break;
  case X_CASE:
    if (x->x_has_else != y->x_has_else)
      return false;
    break;
  case X_IN_LIST:
    if (x->x_not != y->x_not)
      return false;
    break;
  case X_CAST:
    break;
  case X_SUBQ:
    return false;  /* two subqueries are never the same expression */
  }
  for (int i = 0; i < x->x_nargs; i++)
    if (!bd_node_equal(x->x_args[i], y->x_args[i]))
      return false;
  return true;
}

bool bd_node_has_subq(const xnode_t *x)
{
  if (!x)
    return false;
  if (x->x_kind == X_SUBQ)
    return true;
  for (int i = 0; i < x->x_nargs; i++)
    if (bd_node_has_subq(x->x_args[i]))
      return true;
  return false;
}

void bd_node_cols(xnode_t *x, void (*fn)(void *ctx, xnode_t *col), void *ctx)
{
  if (!x)
    return;
  if (x->x_kind == X_COL)
    fn(ctx, x);
  if (x->x_kind == X_SUBQ) {
    xsubq_t *s = x->x_subq;
    for (int i = 0; i < s->xs_ncorr; i++)
      bd_node_cols(s->xs_corr[i], fn, ctx);
  }
  for (int i = 0; i < x->x_nargs; i++)
    bd_node_cols(x->x_args[i], fn, ctx);
}

xnode_t *bd_node_remap(bd_t *b, const xnode_t *x, const int *map)
{
  /* a parameter is shared, not copied: bd_finish renumbers a subquery's
   * correlation parameters in place (b_fix), which a copy would miss */
  if (x->x_kind == X_PARAM)
    return (xnode_t *)x;
  xnode_t *n = arena_alloc(b->b_a, sizeof(*n));
  *n = *x;
  if (x->x_kind == X_COL)
    n->x_index = map[x->x_index];
  if (x->x_nargs) {
    n->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)x->x_nargs);
    for (int i = 0; i < x->x_nargs; i++)
      n->x_args[i] = bd_node_remap(b, x->x_args[i], map);
  }
  return n;
}

bd_scope_t *bd_scope_new(bd_t *b)
{
  return arena_zalloc(b->b_a, sizeof(bd_scope_t));
}

bd_scope_t *bd_scope_copy(bd_t *b, const bd_scope_t *sc)
{
  bd_scope_t *n = arena_alloc(b->b_a, sizeof(*n));
  *n = *sc;
  return n;
}

void bd_scope_use(bd_t *b, bd_scope_t *sc, int index)
{
  if (index < 0)
    return;
  if (index >= sc->sc_used_cap) {
    int cap = sc->sc_used_cap ? sc->sc_used_cap : 16;
    while (cap <= index)
      cap *= 2;
    bool *n = arena_zalloc(b->b_a, (size_t)cap);
    if (sc->sc_used_cap)
      memcpy(n, sc->sc_used, (size_t)sc->sc_used_cap);
    sc->sc_used = n;
    sc->sc_used_cap = cap;
  }
  sc->sc_used[index] = true;
  bd_ref_use(b, sc, index);
}

void bd_conjuncts(bd_t *b, xnode_t *x, xnode_t ***list, int *n, int *cap)
{
  if (!x)
    return;
  if (x->x_kind == X_OP && x->x_op == XOP_AND) {
    bd_conjuncts(b, x->x_args[0], list, n, cap);
    bd_conjuncts(b, x->x_args[1], list, n, cap);
    return;
  }
  if (*n == *cap) {
    int c = *cap ? *cap * 2 : 8;
    xnode_t **nl = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)c);
    if (*n)
      memcpy(nl, *list, sizeof(xnode_t *) * (size_t)*n);
    *list = nl;
    *cap = c;
  }
  (*list)[(*n)++] = x;
}

xnode_t *bd_and_all(bd_t *b, xnode_t **conj, int n)
{
  xnode_t *acc = NULL;
  for (int i = 0; i < n; i++) {
    if (!conj[i])
      continue;
    if (!acc) {
      acc = conj[i];
      continue;
    }
    xnode_t *a = bd_node(b, X_OP, ty_plain(TY_BOOL), conj[i]->x_pos);
    a->x_op = XOP_AND;
    a->x_nargs = 2;
    a->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * 2);
    a->x_args[0] = acc;
    a->x_args[1] = conj[i];
    acc = a;
  }
  return acc;
}
