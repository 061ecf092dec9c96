/* ex_arith_iv — the INTERVAL operators, vectored: interval ± interval,
 * interval * and / float8, unary minus, timestamp ± interval, interval +
 * timestamp and timestamp - timestamp (the binder's xop_interval chose
 * the operand types; dates arrive cast to timestamps).
 *
 * Design notes: the calendar work is types' (ty_iv_*, ty_ts_add_iv,
 * ty_ts_diff), which follow PostgreSQL 15's functions; this file only
 * walks the selected rows and picks the routine from the operand types.
 * An error stops the batch with the node's position, as the other
 * arithmetic does.
 */
#include "exec/ex_int.h"

/* time or timetz plus µs, the day wrapping (time_pl_interval) */
static int xe_time_add(ty_id_t t, int64_t v, int64_t us, int64_t *out)
{
  if (t == TY_TIME) {
    *out = ty_time_add_us(v, us);
  } else {
    int64_t tm;
    int32_t zone;
    ty_timetz_unpack(v, &tm, &zone);
    *out = ty_timetz_pack(ty_time_add_us(tm, us), zone);
  }
  return CZ_OK;
}

/* date + time (a timestamp) and date + timetz (a timestamptz: the time's
 * own offset places it) */
static int xe_date_time(int64_t date, ty_id_t t, int64_t v, int64_t *out, err_t *e)
{
  int64_t ts, tm = v;
  int32_t zone = 0;
  if (t == TY_TIMETZ)
    ty_timetz_unpack(v, &tm, &zone);
  if (!ty_date_to_ts(date, &ts))
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "date out of range for timestamp");
  if (ts == INT64_MAX || ts == INT64_MIN) {
    *out = ts;
    return CZ_OK;
  }
  *out = ts + tm + (int64_t)zone * 1000000;
  if (!ty_ts_in_range(*out))
    return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "timestamp out of range");
  return CZ_OK;
}

static int xe_arith_iv_rows(const xnode_t *x, const xe_arg_t l, const xe_arg_t r, const int *sel,
                            int nsel, vec_t *dst, err_t *e)
{
  bool unary = x->x_op == XOP_NEG;
  ty_id_t lt = x->x_args[0]->x_type.t_id, rt = unary ? lt : x->x_args[1]->x_type.t_id;
  xop_t op = x->x_op;
  XE_FOR(sel, nsel, i, {
    if (xe_arg_null(&l, i) || xe_arg_null(&r, i)) {
      dst->v_null[i] = 1;
      continue;
    }
    datum_t a, b;
    xe_arg_get(&l, i, &a);
    xe_arg_get(&r, i, &b);
    dst->v_null[i] = 0;
    int rc;
    if (unary)
      rc = ty_iv_neg(&a.d_iv, &dst->v_iv[i], e);
    else if (lt == TY_INTERVAL && rt == TY_INTERVAL)
      rc = op == XOP_ADD ? ty_iv_add(&a.d_iv, &b.d_iv, &dst->v_iv[i], e)
                         : ty_iv_sub(&a.d_iv, &b.d_iv, &dst->v_iv[i], e);
    else if (lt == TY_INTERVAL && rt == TY_FLOAT8)
      rc = op == XOP_MUL ? ty_iv_mul(&a.d_iv, b.d_f64, &dst->v_iv[i], e)
                         : ty_iv_div(&a.d_iv, b.d_f64, &dst->v_iv[i], e);
    else if (lt == TY_FLOAT8 && rt == TY_INTERVAL)
      rc = ty_iv_mul(&b.d_iv, a.d_f64, &dst->v_iv[i], e);
    else if (lt == TY_TIMESTAMP && rt == TY_INTERVAL)
      rc = ty_ts_add_iv(a.d_i64, &b.d_iv, op == XOP_SUB ? -1 : 1, &dst->v_i64[i], e);
    else if (lt == TY_INTERVAL && rt == TY_TIMESTAMP)
      rc = ty_ts_add_iv(b.d_i64, &a.d_iv, 1, &dst->v_i64[i], e);
    else if ((lt == TY_TIMESTAMP && rt == TY_TIMESTAMP) ||
             (lt == TY_TIMESTAMPTZ && rt == TY_TIMESTAMPTZ))
      rc = ty_ts_diff(a.d_i64, b.d_i64, &dst->v_iv[i], e);
    else if (lt == TY_TIMESTAMPTZ && rt == TY_INTERVAL)
      rc = ty_tstz_add_iv(a.d_i64, &b.d_iv, op == XOP_SUB ? -1 : 1, ty_tz_current(),
                          &dst->v_i64[i], e);
    else if (lt == TY_INTERVAL && rt == TY_TIMESTAMPTZ)
      rc = ty_tstz_add_iv(b.d_i64, &a.d_iv, 1, ty_tz_current(), &dst->v_i64[i], e);
    else if ((lt == TY_TIME || lt == TY_TIMETZ) && rt == TY_INTERVAL)
      rc = xe_time_add(lt, a.d_i64, op == XOP_SUB ? -b.d_iv.iv_us : b.d_iv.iv_us, &dst->v_i64[i]);
    else if (lt == TY_INTERVAL && (rt == TY_TIME || rt == TY_TIMETZ))
      rc = xe_time_add(rt, b.d_i64, a.d_iv.iv_us, &dst->v_i64[i]);
    else if (lt == TY_TIME && rt == TY_TIME)
      rc = (dst->v_iv[i] = (ty_iv_t){a.d_i64 - b.d_i64, 0, 0}, CZ_OK);
    else if ((lt == TY_DATE && (rt == TY_TIME || rt == TY_TIMETZ)) ||
             (rt == TY_DATE && (lt == TY_TIME || lt == TY_TIMETZ)))
      rc = lt == TY_DATE ? xe_date_time(a.d_i64, rt, b.d_i64, &dst->v_i64[i], e)
                         : xe_date_time(b.d_i64, lt, a.d_i64, &dst->v_i64[i], e);
    else
      rc = err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "operator does not exist for interval");
    if (rc != CZ_OK) {
      if (e)
        e->er_pos = x->x_pos;
      return CZ_ERR;
    }
  });
  return CZ_OK;
}

int xe_arith_iv(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  xe_arg_t l, r;
  if (xe_operand(st, x->x_args[0], sel, nsel, &l, e) != CZ_OK)
    return CZ_ERR;
  if (x->x_op == XOP_NEG)
    r = l;
  else if (xe_operand(st, x->x_args[1], sel, nsel, &r, e) != CZ_OK)
    return CZ_ERR;
  if (l.a_const && r.a_const && nsel > 1) {
    /* Constant operands (date '1998-12-01' - interval '90' day in a
     * WHERE): one value computed once, then filled into every row. */
    int one = sel ? sel[0] : 0;
    if (xe_arith_iv_rows(x, l, r, &one, 1, dst, e) != CZ_OK)
      return CZ_ERR;
    datum_t d;
    vec_get(dst, one, &d);
    xe_fill(dst, &d, sel, nsel);
    return CZ_OK;
  }
  return xe_arith_iv_rows(x, l, r, sel, nsel, dst, e);
}
