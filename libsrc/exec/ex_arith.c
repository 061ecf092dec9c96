/* ex_arith — + - * / % and unary minus over integers (with PostgreSQL's
 * overflow errors), floats, NUMERIC and DATE, vectored.
 *
 * Design notes: an operand is a vector or a constant; both are read as
 * base[i * stride] with stride 0 for a constant, so each operator has one
 * loop per physical kind. Integers compute in 64 bits with overflow
 * checks and are then checked against the result type's range (int2,
 * int4), so "integer out of range" (22003) comes from the same place for
 * all. Division and modulo by zero are 22012 for every kind; float
 * overflow and underflow are 22003 as in PostgreSQL's float8pl & co.
 */
#include <math.h>
#include <string.h>

#include "exec/ex_int.h"

static const uint8_t xe_not_null = 0;

static const char *xe_range_msg(ty_id_t id)
{
  switch (id) {
  case TY_INT2: return "smallint out of range";
  case TY_INT4: return "integer out of range";
  case TY_DATE: return "date out of range";
  default: return "bigint out of range";
  }
}

/* Operand access with stride 0 for constants. */
typedef struct xe_ops_s {
  const uint8_t *o_n;
  size_t o_ns;
  const void *o_v;
  size_t o_vs;
} xe_ops_t;

static void xe_ops_of(const xe_arg_t *a, xe_ops_t *o)
{
  if (a->a_const) {
    o->o_n = &xe_not_null;
    o->o_ns = 0;
    o->o_v = &a->a_const->d_i64; /* the union's start: any member */
    o->o_vs = 0;
  } else {
    o->o_n = a->a_vec->v_null;
    o->o_ns = 1;
    o->o_v = a->a_vec->v_data;
    o->o_vs = 1;
  }
}

/* + - * over int64 with stride 0 (constant) or 1 (vector) operands;
 * true when a non-NULL row overflowed. Always inlined so that each call
 * with literal strides becomes its own tight loop. */
static inline __attribute__((always_inline)) bool
xe_i64_asm(xop_t op, const int64_t *av, const uint8_t *an, size_t as, const int64_t *bv,
           const uint8_t *bn, size_t bs, const int *sel, int nsel, uint8_t *dn, int64_t *out)
{
  bool ovf = false;
  switch (op) {
  case XOP_ADD:
    XE_FOR(sel, nsel, i, {
      dn[i] = an[i * as] | bn[i * bs];
      ovf |= __builtin_add_overflow(av[i * as], bv[i * bs], &out[i]) & !dn[i];
    });
    break;
  case XOP_SUB:
    XE_FOR(sel, nsel, i, {
      dn[i] = an[i * as] | bn[i * bs];
      ovf |= __builtin_sub_overflow(av[i * as], bv[i * bs], &out[i]) & !dn[i];
    });
    break;
  default:
    XE_FOR(sel, nsel, i, {
      dn[i] = an[i * as] | bn[i * bs];
      ovf |= __builtin_mul_overflow(av[i * as], bv[i * bs], &out[i]) & !dn[i];
    });
    break;
  }
  return ovf;
}

static int xe_arith_i64(const xnode_t *x, const xe_ops_t *l, const xe_ops_t *r, const int *sel,
                        int nsel, vec_t *dst, err_t *e)
{
  ty_id_t rt = x->x_type.t_id;
  int64_t lo = rt == TY_INT2 ? INT16_MIN : rt == TY_INT4 ? INT32_MIN : INT64_MIN;
  int64_t hi = rt == TY_INT2 ? INT16_MAX : rt == TY_INT4 ? INT32_MAX : INT64_MAX;
  if (rt == TY_DATE) { /* PostgreSQL's date range: 4714-11-24 BC .. 5874897-12-31 */
    lo = -2451545;
    hi = 2147483494 - 1 - 2451545; /* PostgreSQL's DATE_END_JULIAN is exclusive */
  }
  const int64_t *av = l->o_v, *bv = r->o_v;
  const uint8_t *an = l->o_n, *bn = r->o_n;
  size_t as = l->o_vs, bs = r->o_vs;
  uint8_t *dn = dst->v_null;
  int64_t *out = dst->v_i64;
  bool ovf = false;
  switch (x->x_op) {
  case XOP_ADD:
  case XOP_SUB:
  case XOP_MUL:
    /* Literal strides let the compiler specialise each loop. */
    if (as && bs)
      ovf = xe_i64_asm(x->x_op, av, an, 1, bv, bn, 1, sel, nsel, dn, out);
    else if (as)
      ovf = xe_i64_asm(x->x_op, av, an, 1, bv, bn, 0, sel, nsel, dn, out);
    else if (bs)
      ovf = xe_i64_asm(x->x_op, av, an, 0, bv, bn, 1, sel, nsel, dn, out);
    else
      ovf = xe_i64_asm(x->x_op, av, an, 0, bv, bn, 0, sel, nsel, dn, out);
    break;
  case XOP_DIV:
  case XOP_MOD:
    XE_FOR(sel, nsel, i, {
      dn[i] = an[i * as] | bn[i * bs];
      if (dn[i])
        continue;
      int64_t a = av[i * as], b = bv[i * bs];
      if (b == 0)
        return xe_error(x, e, SQLSTATE_DIVISION_BY_ZERO, "division by zero");
      if (b == -1) { /* INT64_MIN / -1 traps in C */
        if (x->x_op == XOP_MOD)
          out[i] = 0;
        else
          ovf |= __builtin_sub_overflow((int64_t)0, a, &out[i]);
      } else {
        out[i] = x->x_op == XOP_DIV ? a / b : a % b;
      }
    });
    break;
  case XOP_NEG:
    XE_FOR(sel, nsel, i, {
      dn[i] = an[i * as];
      ovf |= __builtin_sub_overflow((int64_t)0, av[i * as], &out[i]) & !dn[i];
    });
    break;
  default:
    return xe_error(x, e, SQLSTATE_INTERNAL, "not an arithmetic operator");
  }
  if (ovf)
    return xe_error(x, e, rt == TY_DATE ? SQLSTATE_DATETIME_FIELD_OVERFLOW : SQLSTATE_NUMERIC_OUT_OF_RANGE,
                    "%s", xe_range_msg(rt));
  if (rt == TY_DATE || (x->x_op == XOP_SUB && x->x_args[0]->x_type.t_id == TY_DATE)) {
    /* An infinite date plus or minus days stays infinite (PostgreSQL's
     * date_pli); the days between an infinite date and another are an
     * error, not the distance to the sentinel. */
    bool left = x->x_args[0]->x_type.t_id == TY_DATE;
    bool both = left && x->x_nargs > 1 && x->x_args[1]->x_type.t_id == TY_DATE;
    XE_FOR(sel, nsel, i, {
      if (dn[i])
        continue;
      int64_t d = left ? av[i * as] : bv[i * bs];
      bool inf = d >= INT32_MAX || d <= INT32_MIN;
      if (both) {
        int64_t d2 = bv[i * bs];
        if (inf || d2 >= INT32_MAX || d2 <= INT32_MIN)
          return xe_error(x, e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "cannot subtract infinite dates");
      } else if (inf) {
        out[i] = d;
      }
    });
  }
  if (rt != TY_INT8) {
    XE_FOR(sel, nsel, i, {
      if (rt == TY_DATE && !dn[i] && (out[i] == INT32_MAX || out[i] == INT32_MIN))
        continue;
      if (!dn[i] && (out[i] < lo || out[i] > hi))
        return xe_error(x, e,
                        rt == TY_DATE ? SQLSTATE_DATETIME_FIELD_OVERFLOW : SQLSTATE_NUMERIC_OUT_OF_RANGE, "%s",
                        xe_range_msg(rt));
    });
  }
  return CZ_OK;
}

static int xe_float_check(const xnode_t *x, bool f4, double a, double b, double *r, err_t *e)
{
  double v = *r;
  if (f4)
    v = (float)v;
  if (isinf(v) && !isinf(a) && !isinf(b))
    return xe_error(x, e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value out of range: overflow");
  if (v == 0 && *r != 0)
    return xe_error(x, e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value out of range: underflow");
  if (v == 0 && x->x_op == XOP_MUL && a != 0 && b != 0)
    return xe_error(x, e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value out of range: underflow");
  *r = v;
  return CZ_OK;
}

static int xe_arith_f64(const xnode_t *x, const xe_ops_t *l, const xe_ops_t *r, const int *sel,
                        int nsel, vec_t *dst, err_t *e)
{
  bool f4 = x->x_type.t_id == TY_FLOAT4;
  const double *av = l->o_v, *bv = r->o_v;
  const uint8_t *an = l->o_n, *bn = r->o_n;
  size_t as = l->o_vs, bs = r->o_vs;
  uint8_t *dn = dst->v_null;
  double *out = dst->v_f64;
  xop_t op = x->x_op;
  /* The plain loops first; range checks follow only where a result is
   * not finite or is zero, which is rare. */
  switch (op) {
  case XOP_ADD:
    XE_FOR(sel, nsel, i, { dn[i] = an[i * as] | bn[i * bs]; out[i] = av[i * as] + bv[i * bs]; });
    break;
  case XOP_SUB:
    XE_FOR(sel, nsel, i, { dn[i] = an[i * as] | bn[i * bs]; out[i] = av[i * as] - bv[i * bs]; });
    break;
  case XOP_MUL:
    XE_FOR(sel, nsel, i, { dn[i] = an[i * as] | bn[i * bs]; out[i] = av[i * as] * bv[i * bs]; });
    break;
  case XOP_DIV:
    XE_FOR(sel, nsel, i, {
      dn[i] = an[i * as] | bn[i * bs];
      if (!dn[i] && bv[i * bs] == 0)
        return xe_error(x, e, SQLSTATE_DIVISION_BY_ZERO, "division by zero");
      out[i] = dn[i] ? 0 : av[i * as] / bv[i * bs];
    });
    break;
  case XOP_NEG:
    XE_FOR(sel, nsel, i, { dn[i] = an[i * as]; out[i] = -av[i * as]; });
    return CZ_OK;
  default:
    return xe_error(x, e, SQLSTATE_UNDEFINED_FUNCTION, "operator does not exist for floats");
  }
  XE_FOR(sel, nsel, i, {
    if (!dn[i] && (f4 || !isfinite(out[i]) || out[i] == 0)) {
      double a = av[i * as], b = bv[i * bs];
      if (xe_float_check(x, f4, a, b, &out[i], e) != CZ_OK)
        return CZ_ERR;
    }
  });
  return CZ_OK;
}

static const int64_t xe_pow10[19] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                     100000000, 1000000000, 10000000000, 100000000000,
                                     1000000000000, 10000000000000, 100000000000000,
                                     1000000000000000, 10000000000000000,
                                     100000000000000000, 1000000000000000000};

/* a + b, a - b, a * b inline for the common NUMERICs: both within 64 bits
 * (and scales at most 18 apart for + and -). Then the aligned operands
 * stay below 2^123 and the result below 2^124 < 10^38: exact, no overflow
 * possible, the very value and scale num_add / num_sub / num_mul give.
 * false: the library routine decides (wide values, overflow, 22003). */
static inline bool xe_num_fast(xop_t op, const num_t *a, const num_t *b, num_t *out)
{
  if (a->n_val > INT64_MAX || a->n_val < INT64_MIN || b->n_val > INT64_MAX ||
      b->n_val < INT64_MIN)
    return false;
  if (op == XOP_MUL) {
    if (a->n_scale + b->n_scale > NUM_MAX_DIGITS)
      return false;
    out->n_val = a->n_val * b->n_val;
    out->n_scale = (int16_t)(a->n_scale + b->n_scale);
    return true;
  }
  int d = a->n_scale - b->n_scale;
  if (d > 18 || d < -18)
    return false;
  __int128 va = a->n_val, vb = b->n_val;
  if (d < 0)
    va *= xe_pow10[-d];
  else if (d > 0)
    vb *= xe_pow10[d];
  out->n_val = op == XOP_ADD ? va + vb : va - vb;
  out->n_scale = d < 0 ? b->n_scale : a->n_scale;
  return true;
}

/* + - * over NUMERICs with literal op and strides (0: a constant, 1: a
 * vector), so each combination is its own loop with xe_num_fast inline;
 * the rows it declines go to num_add / num_sub / num_mul. */
static inline __attribute__((always_inline)) int
xe_num_asm(xop_t op, const num_t *av, const uint8_t *an, size_t as, const num_t *bv,
           const uint8_t *bn, size_t bs, const int *sel, int nsel, uint8_t *dn, num_t *out,
           err_t *e)
{
  XE_FOR(sel, nsel, i, {
    dn[i] = an[i * as] | bn[i * bs];
    if (dn[i])
      continue;
    const num_t *a = &av[i * as], *b = &bv[i * bs];
    if (CZ_LIKELY(xe_num_fast(op, a, b, &out[i])))
      continue;
    int rc = op == XOP_ADD   ? num_add(a, b, &out[i], e)
             : op == XOP_SUB ? num_sub(a, b, &out[i], e)
                             : num_mul(a, b, &out[i], e);
    if (rc != CZ_OK)
      return rc;
  });
  return CZ_OK;
}

#define XE_NUM_STRIDES(OP)                                                                          (as && bs ? xe_num_asm(OP, av, an, 1, bv, bn, 1, sel, nsel, dn, out, e)                             : as     ? xe_num_asm(OP, av, an, 1, bv, bn, 0, sel, nsel, dn, out, e)                             : bs     ? xe_num_asm(OP, av, an, 0, bv, bn, 1, sel, nsel, dn, out, e)                                      : xe_num_asm(OP, av, an, 0, bv, bn, 0, sel, nsel, dn, out, e))

static int xe_arith_num(const xnode_t *x, const xe_ops_t *l, const xe_ops_t *r, const int *sel,
                        int nsel, vec_t *dst, err_t *e)
{
  const num_t *av = l->o_v, *bv = r->o_v;
  const uint8_t *an = l->o_n, *bn = r->o_n;
  size_t as = l->o_vs, bs = r->o_vs;
  uint8_t *dn = dst->v_null;
  num_t *out = dst->v_num;
  xop_t op = x->x_op;
  if (op == XOP_ADD || op == XOP_SUB || op == XOP_MUL) {
    int rc = op == XOP_ADD   ? XE_NUM_STRIDES(XOP_ADD)
             : op == XOP_SUB ? XE_NUM_STRIDES(XOP_SUB)
                             : XE_NUM_STRIDES(XOP_MUL);
    if (rc != CZ_OK && e)
      e->er_pos = x->x_pos;
    return rc;
  }
  XE_FOR(sel, nsel, i, {
    dn[i] = an[i * as] | (op == XOP_NEG ? 0 : bn[i * bs]);
    if (dn[i])
      continue;
    const num_t *a = &av[i * as], *b = &bv[i * bs];
    if ((op == XOP_ADD || op == XOP_SUB || op == XOP_MUL) && xe_num_fast(op, a, b, &out[i]))
      continue;
    int rc;
    switch (op) {
    case XOP_ADD: rc = num_add(a, b, &out[i], e); break;
    case XOP_SUB: rc = num_sub(a, b, &out[i], e); break;
    case XOP_MUL: rc = num_mul(a, b, &out[i], e); break;
    case XOP_DIV: rc = num_div(a, b, &out[i], e); break;
    case XOP_MOD: rc = num_mod(a, b, &out[i], e); break;
    default:
      out[i].n_val = -a->n_val;
      out[i].n_scale = a->n_scale;
      rc = CZ_OK;
      break;
    }
    if (rc != CZ_OK) {
      if (e)
        e->er_pos = x->x_pos;
      return CZ_ERR;
    }
  });
  return CZ_OK;
}

int xe_arith(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  ty_id_t l0 = x->x_args[0]->x_type.t_id, r0 = x->x_nargs > 1 ? x->x_args[1]->x_type.t_id : l0;
  if (x->x_type.t_id == TY_INTERVAL || l0 == TY_INTERVAL || r0 == TY_INTERVAL ||
      xt_is_zoned(l0) || xt_is_zoned(r0)) /* the date/time operators live there too */
    return xe_arith_iv(st, x, sel, nsel, dst, e);
  xe_arg_t l, r;
  if (xe_operand(st, x->x_args[0], sel, nsel, &l, e) != CZ_OK)
    return CZ_ERR;
  if (x->x_op == XOP_NEG) {
    r = l;
  } else if (xe_operand(st, x->x_args[1], sel, nsel, &r, e) != CZ_OK) {
    return CZ_ERR;
  }
  if ((l.a_const && l.a_const->d_null) || (r.a_const && r.a_const->d_null)) {
    XE_FOR(sel, nsel, i, { dst->v_null[i] = 1; });
    return CZ_OK;
  }
  xe_ops_t lo, ro;
  xe_ops_of(&l, &lo);
  xe_ops_of(&r, &ro);
  /* The operands' kind decides (date - date is int4 from two dates). */
  switch (ty_phys(x->x_args[0]->x_type.t_id)) {
  case TP_I64:
    return xe_arith_i64(x, &lo, &ro, sel, nsel, dst, e);
  case TP_F64:
    return xe_arith_f64(x, &lo, &ro, sel, nsel, dst, e);
  case TP_NUM:
    return xe_arith_num(x, &lo, &ro, sel, nsel, dst, e);
  default:
    return xe_error(x, e, SQLSTATE_UNDEFINED_FUNCTION, "operator does not exist for this type");
  }
}
