/* ex_cmp — comparisons (= <> < <= > >=, IS [NOT] DISTINCT FROM) and
 * IN lists, vectored.
 *
 * Design notes: both operands already have one type (the binder cast
 * them, xop_resolve). int64 and double operands have tight loops per
 * operator for vector/vector and vector/constant (a constant on the left
 * flips the operator); the other physical kinds compare through
 * datum_cmp. Doubles order as PostgreSQL's do: NaN equals NaN and is
 * larger than any number.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/ex_int.h"

static xop_t xe_flip(xop_t op)
{
  switch (op) {
  case XOP_LT: return XOP_GT;
  case XOP_LE: return XOP_GE;
  case XOP_GT: return XOP_LT;
  case XOP_GE: return XOP_LE;
  default: return op;
  }
}

static inline bool xe_cmp_true(xop_t op, int c)
{
  switch (op) {
  case XOP_EQ: return c == 0;
  case XOP_NE: return c != 0;
  case XOP_LT: return c < 0;
  case XOP_LE: return c <= 0;
  case XOP_GT: return c > 0;
  default: return c >= 0;
  }
}

/* v OP constant for int64. */
#define XE_I64_VC(OP)                                                       \
  XE_FOR(sel, nsel, i, { dn[i] = vn[i]; db[i] = vv[i] OP k; })
#define XE_I64_VV(OP)                                                       \
  XE_FOR(sel, nsel, i, { dn[i] = vn[i] | wn[i]; db[i] = vv[i] OP wv[i]; })

static void xe_cmp_i64(xop_t op, const vec_t *v, const xe_arg_t *w, const int *sel, int nsel,
                       vec_t *dst)
{
  const uint8_t *vn = v->v_null;
  const int64_t *vv = v->v_i64;
  uint8_t *dn = dst->v_null, *db = dst->v_bool;
  if (w->a_const) {
    int64_t k = w->a_const->d_i64;
    switch (op) {
    case XOP_EQ: XE_I64_VC(==); break;
    case XOP_NE: XE_I64_VC(!=); break;
    case XOP_LT: XE_I64_VC(<); break;
    case XOP_LE: XE_I64_VC(<=); break;
    case XOP_GT: XE_I64_VC(>); break;
    default: XE_I64_VC(>=); break;
    }
    return;
  }
  const uint8_t *wn = w->a_vec->v_null;
  const int64_t *wv = w->a_vec->v_i64;
  switch (op) {
  case XOP_EQ: XE_I64_VV(==); break;
  case XOP_NE: XE_I64_VV(!=); break;
  case XOP_LT: XE_I64_VV(<); break;
  case XOP_LE: XE_I64_VV(<=); break;
  case XOP_GT: XE_I64_VV(>); break;
  default: XE_I64_VV(>=); break;
  }
}

/* PostgreSQL's float order with NaN largest and equal to itself, written
 * as branch-free expressions so the loops stay tight. */
#define XE_F_EQ(a, b) ((a) == (b) || ((a) != (a) && (b) != (b)))
#define XE_F_LT(a, b) ((a) < (b) || ((b) != (b) && (a) == (a)))
#define XE_F_LE(a, b) ((a) <= (b) || (b) != (b))
#define XE_F_VC(EXPR) XE_FOR(sel, nsel, i, { double a = vv[i]; dn[i] = vn[i]; db[i] = (EXPR); })
#define XE_F_VV(EXPR)                                                      \
  XE_FOR(sel, nsel, i, {                                                   \
    double a = vv[i], b = wv[i];                                           \
    dn[i] = vn[i] | wn[i];                                                 \
    db[i] = (EXPR);                                                        \
  })

static void xe_cmp_f64(xop_t op, const vec_t *v, const xe_arg_t *w, const int *sel, int nsel,
                       vec_t *dst)
{
  const uint8_t *vn = v->v_null;
  const double *vv = v->v_f64;
  uint8_t *dn = dst->v_null, *db = dst->v_bool;
  if (w->a_const) {
    double b = w->a_const->d_f64;
    switch (op) {
    case XOP_EQ: XE_F_VC(XE_F_EQ(a, b)); break;
    case XOP_NE: XE_F_VC(!XE_F_EQ(a, b)); break;
    case XOP_LT: XE_F_VC(XE_F_LT(a, b)); break;
    case XOP_LE: XE_F_VC(XE_F_LE(a, b)); break;
    case XOP_GT: XE_F_VC(XE_F_LT(b, a)); break;
    default: XE_F_VC(XE_F_LE(b, a)); break;
    }
    return;
  }
  const uint8_t *wn = w->a_vec->v_null;
  const double *wv = w->a_vec->v_f64;
  switch (op) {
  case XOP_EQ: XE_F_VV(XE_F_EQ(a, b)); break;
  case XOP_NE: XE_F_VV(!XE_F_EQ(a, b)); break;
  case XOP_LT: XE_F_VV(XE_F_LT(a, b)); break;
  case XOP_LE: XE_F_VV(XE_F_LE(a, b)); break;
  case XOP_GT: XE_F_VV(XE_F_LT(b, a)); break;
  default: XE_F_VV(XE_F_LE(b, a)); break;
  }
}

static inline int xe_str_cmp(str_t a, str_t b)
{
  uint32_t n = a.s_len < b.s_len ? a.s_len : b.s_len;
  int c = n ? memcmp(a.s_ptr, b.s_ptr, n) : 0;
  if (c)
    return c;
  return a.s_len < b.s_len ? -1 : a.s_len > b.s_len;
}

/* Strings: equality tests the lengths before the bytes; order is
 * bytewise (the C collation). */
static void xe_cmp_str(xop_t op, const vec_t *v, const xe_arg_t *w, const int *sel, int nsel,
                       vec_t *dst)
{
  const uint8_t *vn = v->v_null;
  const str_t *vv = v->v_str;
  uint8_t *dn = dst->v_null, *db = dst->v_bool;
  const uint8_t *wn = w->a_const ? NULL : w->a_vec->v_null;
  bool eq = op == XOP_EQ || op == XOP_NE;
  XE_FOR(sel, nsel, i, {
    dn[i] = vn[i] | (wn ? wn[i] : 0);
    if (dn[i])
      continue; /* the value under a NULL may be garbage: never read it */
    str_t b = w->a_const ? w->a_const->d_str : w->a_vec->v_str[i];
    if (eq) {
      bool same = vv[i].s_len == b.s_len && (b.s_len == 0 || memcmp(vv[i].s_ptr, b.s_ptr, b.s_len) == 0);
      db[i] = same == (op == XOP_EQ);
    } else {
      db[i] = xe_cmp_true(op, xe_str_cmp(vv[i], b));
    }
  });
}

static void xe_cmp_generic(ty_id_t id, xop_t op, const vec_t *v, const xe_arg_t *w,
                           const int *sel, int nsel, vec_t *dst)
{
  XE_FOR(sel, nsel, i, {
    if (v->v_null[i] || xe_arg_null(w, i)) {
      dst->v_null[i] = 1;
      continue;
    }
    datum_t a, b;
    vec_get(v, i, &a);
    xe_arg_get(w, i, &b);
    dst->v_null[i] = 0;
    dst->v_bool[i] = xe_cmp_true(op, datum_cmp_t(id, &a, &b));
  });
}

static void xe_distinct(ty_id_t id, bool distinct, const xe_arg_t *l, const xe_arg_t *r,
                        const int *sel, int nsel, vec_t *dst)
{
  XE_FOR(sel, nsel, i, {
    bool ln = xe_arg_null(l, i), rn = xe_arg_null(r, i);
    bool differ;
    if (ln || rn) {
      differ = ln != rn;
    } else {
      datum_t a, b;
      xe_arg_get(l, i, &a);
      xe_arg_get(r, i, &b);
      differ = datum_cmp_t(id, &a, &b) != 0;
    }
    dst->v_null[i] = 0;
    dst->v_bool[i] = distinct ? differ : !differ;
  });
}

int xe_compare(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  xe_arg_t l, r;
  if (xe_operand(st, x->x_args[0], sel, nsel, &l, e) != CZ_OK ||
      xe_operand(st, x->x_args[1], sel, nsel, &r, e) != CZ_OK)
    return CZ_ERR;
  ty_id_t id = x->x_args[0]->x_type.t_id;  /* jsonb: its own order (datum_cmp_t) */
  ty_phys_t p = ty_phys(id);
  if (x->x_op == XOP_IS_DISTINCT || x->x_op == XOP_IS_NOT_DISTINCT) {
    xe_distinct(id, x->x_op == XOP_IS_DISTINCT, &l, &r, sel, nsel, dst);
    return CZ_OK;
  }
  xop_t op = x->x_op;
  if (l.a_const && r.a_const) {
    datum_t res = {0};
    if (l.a_const->d_null || r.a_const->d_null)
      res.d_null = true;
    else
      res.d_bool = xe_cmp_true(op, datum_cmp_t(id, l.a_const, r.a_const));
    xe_fill(dst, &res, sel, nsel);
    return CZ_OK;
  }
  if (l.a_const) { /* constant OP vector == vector FLIP(OP) constant */
    xe_arg_t t = l;
    l = r;
    r = t;
    op = xe_flip(op);
  }
  if (r.a_const && r.a_const->d_null) {
    XE_FOR(sel, nsel, i, { dst->v_null[i] = 1; });
    return CZ_OK;
  }
  if (p == TP_I64)
    xe_cmp_i64(op, l.a_vec, &r, sel, nsel, dst);
  else if (p == TP_F64)
    xe_cmp_f64(op, l.a_vec, &r, sel, nsel, dst);
  else if (p == TP_STR && id != TY_JSONB)
    xe_cmp_str(op, l.a_vec, &r, sel, nsel, dst);
  else
    xe_cmp_generic(id, op, l.a_vec, &r, sel, nsel, dst);
  return CZ_OK;
}

/* Long lists of constants: sorted once per batch, then a binary search
 * per row instead of a scan. */
#define XE_IN_SORTED_MIN 8

static int xe_i64_order(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int xe_str_order(const void *a, const void *b)
{
  return xe_str_cmp(*(const str_t *)a, *(const str_t *)b);
}

static int xe_in_sorted(xe_t *st, const xnode_t *x, ty_phys_t p, const xe_arg_t *lhs,
                        const xe_arg_t *items, int nitems, const int *sel, int nsel, vec_t *dst)
{
  size_t width = p == TP_I64 ? sizeof(int64_t) : sizeof(str_t);
  char *vals = arena_alloc(st->xe_c->xc_arena, width * (size_t)nitems);
  int n = 0;
  bool saw_null = false;
  for (int k = 0; k < nitems; k++) {
    const datum_t *d = items[k].a_const;
    if (d->d_null) {
      saw_null = true;
      continue;
    }
    if (p == TP_I64)
      ((int64_t *)vals)[n++] = d->d_i64;
    else
      ((str_t *)vals)[n++] = d->d_str;
  }
  qsort(vals, (size_t)n, width, p == TP_I64 ? xe_i64_order : xe_str_order);
  const vec_t *v = lhs->a_vec;
  XE_FOR(sel, nsel, i, {
    if (v->v_null[i]) {
      dst->v_null[i] = 1;
      continue;
    }
    bool found = p == TP_I64 ? bsearch(&v->v_i64[i], vals, (size_t)n, width, xe_i64_order) != NULL
                             : bsearch(&v->v_str[i], vals, (size_t)n, width, xe_str_order) != NULL;
    if (!found && saw_null) {
      dst->v_null[i] = 1;
    } else {
      dst->v_null[i] = 0;
      dst->v_bool[i] = found != x->x_not;
    }
  });
  return CZ_OK;
}

int xe_in_list(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  int nitems = x->x_nargs - 1;
  xe_arg_t lhs;
  xe_arg_t *items = arena_alloc(st->xe_c->xc_arena, sizeof(xe_arg_t) * (size_t)(nitems + 1));
  if (xe_operand(st, x->x_args[0], sel, nsel, &lhs, e) != CZ_OK)
    return CZ_ERR;
  for (int k = 0; k < nitems; k++)
    if (xe_operand(st, x->x_args[k + 1], sel, nsel, &items[k], e) != CZ_OK)
      return CZ_ERR;
  ty_id_t id = x->x_args[0]->x_type.t_id;
  ty_phys_t p = ty_phys(id);
  if (nitems >= XE_IN_SORTED_MIN && (p == TP_I64 || (p == TP_STR && id != TY_JSONB)) &&
      lhs.a_vec) {
    bool all_const = true;
    for (int k = 0; k < nitems && all_const; k++)
      all_const = items[k].a_const != NULL;
    if (all_const)
      return xe_in_sorted(st, x, p, &lhs, items, nitems, sel, nsel, dst);
  }
  XE_FOR(sel, nsel, i, {
    if (xe_arg_null(&lhs, i)) {
      dst->v_null[i] = 1;
      continue;
    }
    datum_t a, b;
    xe_arg_get(&lhs, i, &a);
    bool found = false, saw_null = false;
    for (int k = 0; k < nitems && !found; k++) {
      if (xe_arg_null(&items[k], i)) {
        saw_null = true;
        continue;
      }
      if (p == TP_I64)
        found = a.d_i64 == (items[k].a_const ? items[k].a_const->d_i64 : items[k].a_vec->v_i64[i]);
      else {
        xe_arg_get(&items[k], i, &b);
        found = datum_cmp_t(id, &a, &b) == 0;
      }
    }
    if (found) {
      dst->v_null[i] = 0;
      dst->v_bool[i] = !x->x_not;
    } else if (saw_null) {
      dst->v_null[i] = 1;
    } else {
      dst->v_null[i] = 0;
      dst->v_bool[i] = x->x_not;
    }
  });
  return CZ_OK;
}
