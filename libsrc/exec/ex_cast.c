/* ex_cast — casts between the built-in types with PostgreSQL's semantics:
 * numeric -> integer rounds half away from zero, float -> integer rounds
 * half to even (rint), out of range is 22003 ("integer out of range"),
 * text -> anything goes through the type's input function (22P02 …),
 * anything -> text through its output function (boolean as "true" /
 * "false", CHAR without its trailing blanks), and the target's modifiers
 * apply: 22001 for a too long string unless the cast is explicit, which
 * truncates.
 *
 * Design notes: xcast_datum_ex is the one place that knows every pair;
 * the vectored X_CAST (xe_cast) has tight loops for the frequent numeric
 * pairs and falls back to it per row for the rest.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/ex_int.h"

static const char *xc_int_range_msg(ty_id_t id)
{
  return id == TY_INT2 ? "smallint out of range"
         : id == TY_INT4 ? "integer out of range" : "bigint out of range";
}

static bool xc_int_fits(ty_id_t id, int64_t v)
{
  if (id == TY_INT2)
    return v >= INT16_MIN && v <= INT16_MAX;
  if (id == TY_INT4)
    return v >= INT32_MIN && v <= INT32_MAX;
  return true;
}

static int xc_to_int(ty_t from, const datum_t *in, ty_id_t to, int64_t *out, err_t *e)
{
  switch (ty_phys(from.t_id)) {
  case TP_I64:
    *out = in->d_i64;
    break;
  case TP_BOOL:
    *out = in->d_bool;
    break;
  case TP_F64: {
    double r = rint(in->d_f64);
    /* Exactly representable bounds: -2^63 <= r < 2^63. */
    if (r != r || r < -9223372036854775808.0 || r >= 9223372036854775808.0)
      return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "%s", xc_int_range_msg(to));
    *out = (int64_t)r;
    break;
  }
  case TP_NUM: {
    num_t n;
    if (num_rescale(&in->d_num, 0, &n, NULL) != CZ_OK || n.n_val > INT64_MAX ||
        n.n_val < INT64_MIN)
      return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "%s", xc_int_range_msg(to));
    *out = (int64_t)n.n_val;
    break;
  }
  case TP_STR:
  case TP_IV:
    return err_set(e, SQLSTATE_CANNOT_COERCE, "cannot cast to integer");
  }
  if (!xc_int_fits(to, *out))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "%s", xc_int_range_msg(to));
  return CZ_OK;
}

/* A double to REAL's range and precision: 22003 on overflow/underflow. */
static int xc_to_float4(double v, double *out, err_t *e)
{
  float f = (float)v;
  if (isinf(f) && !isinf(v))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value out of range: overflow");
  if (f == 0 && v != 0)
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value out of range: underflow");
  *out = f;
  return CZ_OK;
}

/* The text form of a value for a cast to a string type. */
static int xc_to_text(ty_t from, const datum_t *in, arena_t *a, str_t *out, err_t *e)
{
  if (from.t_id == TY_BOOL) {
    out->s_ptr = in->d_bool ? "true" : "false";
    out->s_len = in->d_bool ? 4 : 5;
    return CZ_OK;
  }
  if (xt_is_string(from.t_id) || from.t_id == TY_UNKNOWN) {
    *out = in->d_str;
    if (from.t_id == TY_CHAR) /* bpchar -> text drops the padding */
      while (out->s_len > 0 && out->s_ptr[out->s_len - 1] == ' ')
        out->s_len--;
    return CZ_OK;
  }
  size_t cap = ty_text_max(from, in);
  if (cap > XE_MAX_FIELD) /* bytea's hex form doubles it */
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "requested length too large");
  char *p = arena_try_alloc(a, cap ? cap : 1);
  if (!p)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory: the text form of a %zu-byte value does not fit "
                   "the query's memory", cap);
  int n = ty_format_text(from, in, p, cap);
  if (n < 0)
    return err_set(e, SQLSTATE_INTERNAL, "text form larger than its bound");
  out->s_ptr = p;
  out->s_len = (uint32_t)n;
  return CZ_OK;
}

static int xc_no_cast(ty_t from, ty_t to, err_t *e)
{
  arena_t *a = arena_create(NULL, "xcast");
  int rc = err_set(e, SQLSTATE_CANNOT_COERCE, "cannot cast type %s to %s", ty_name(a, from),
                   ty_name(a, to));
  arena_destroy(a);
  return rc;
}

/* The casts among date, timestamp, timestamptz, time, timetz and
 * interval→time/time→interval, in the session's zone (ty_tz_current) as
 * PostgreSQL's: 1 done, 0 not one of these, CZ_ERR. *null set when the
 * result is NULL (the time of an infinite timestamp). */
static int xc_datetime(ty_id_t f, int64_t v, const ty_iv_t *iv, ty_id_t t, datum_t *r, err_t *e)
{
  const ty_tz_t *z = ty_tz_current();
  int64_t local = v;
  switch (f) {
  case TY_DATE:
    if (t != TY_TIMESTAMPTZ)
      return 0;
    if (!ty_date_to_ts(v, &local))
      return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "date out of range for timestamp");
    return ty_local_to_tstz(local, z, &r->d_i64, e) == CZ_OK ? 1 : CZ_ERR;
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
    if (f == TY_TIMESTAMP && t == TY_TIMESTAMPTZ)
      return ty_local_to_tstz(v, z, &r->d_i64, e) == CZ_OK ? 1 : CZ_ERR;
    if (f == TY_TIMESTAMPTZ && ty_tstz_to_local(v, z, &local, e) != CZ_OK)
      return CZ_ERR;
    if (t == TY_TIMESTAMP) {
      r->d_i64 = local;
    } else if (t == TY_DATE) {
      if (local == INT64_MAX || local == INT64_MIN)
        r->d_i64 = local == INT64_MAX ? INT32_MAX : INT32_MIN;
      else
        r->d_i64 = local / TY_USECS_DAY - (local % TY_USECS_DAY < 0);
    } else if (t == TY_TIME || t == TY_TIMETZ) {
      if (local == INT64_MAX || local == INT64_MIN) {
        r->d_null = true;
        return 1;
      }
      int64_t tod = local % TY_USECS_DAY;
      if (tod < 0)
        tod += TY_USECS_DAY;
      r->d_i64 = t == TY_TIME ? tod : ty_timetz_pack(tod, (int32_t)((v - local) / 1000000));
      if (t == TY_TIMETZ && f == TY_TIMESTAMP)
        return 0;
    } else {
      return 0;
    }
    return 1;
  case TY_TIME:
    if (t == TY_TIMETZ) {
      r->d_i64 = ty_time_to_timetz(v, z);
      return 1;
    }
    if (t == TY_INTERVAL) {
      r->d_iv = (ty_iv_t){v, 0, 0};
      return 1;
    }
    return 0;
  case TY_TIMETZ:
    if (t != TY_TIME)
      return 0;
    int32_t zone;
    ty_timetz_unpack(v, &r->d_i64, &zone);
    return 1;
  case TY_INTERVAL:
    if (t != TY_TIME)
      return 0;
    r->d_i64 = iv->iv_us % TY_USECS_DAY;
    if (r->d_i64 < 0)
      r->d_i64 += TY_USECS_DAY;
    return 1;
  default:
    return 0;
  }
}

int xcast_datum_ex(ty_t from, const datum_t *in, ty_t to, bool explicit_cast, arena_t *a,
                   datum_t *out, err_t *e)
{
  if (in->d_null) {
    memset(out, 0, sizeof(*out));
    out->d_null = true;
    return CZ_OK;
  }
  datum_t r;
  memset(&r, 0, sizeof(r));
  ty_id_t f = from.t_id, t = to.t_id;
  int rc;
  if (t == TY_UNKNOWN || f == t) {
    r = *in;
    if (f == TY_CHAR && t == TY_CHAR && to.t_len >= 0) {
      /* Re-padding to another length: drop the old padding first. */
      while (r.d_str.s_len > 0 && r.d_str.s_ptr[r.d_str.s_len - 1] == ' ')
        r.d_str.s_len--;
    }
  } else if (xt_is_string(t)) {
    if (xc_to_text(from, in, a, &r.d_str, e) != CZ_OK)
      return CZ_ERR;
  } else if (f == TY_JSONB && t == TY_JSON) {
    r = *in; /* jsonb's text is json */
  } else if (f == TY_JSON && t == TY_JSONB) {
    if (ty_parse_text(to, in->d_str.s_ptr, in->d_str.s_len, a, &r, e) != CZ_OK)
      return CZ_ERR;
  } else if (f == TY_JSONB) {
    if (xj_jsonb_to_scalar(in->d_str, to, a, &r, e) != CZ_OK) /* ex_func_json.c */
      return CZ_ERR;
  } else if (xt_is_string(f) || f == TY_UNKNOWN) {
    /* Through the input function; modifiers are checked below, with the
     * cast's own truncation rule. */
    /* an interval's fields decide what a bare number is ('90'::interval minute) */
    if (ty_parse_text(t == TY_INTERVAL ? to : ty_plain(t), in->d_str.s_ptr, in->d_str.s_len, a, &r,
                      e) != CZ_OK)
      return CZ_ERR;
  } else if (xt_is_int(t)) {
    if ((f == TY_BOOL && t != TY_INT4) || (!xt_is_number(f) && f != TY_BOOL))
      return xc_no_cast(from, to, e);
    if (xc_to_int(from, in, t, &r.d_i64, e) != CZ_OK)
      return CZ_ERR;
  } else if (t == TY_FLOAT8 || t == TY_FLOAT4) {
    double v;
    if (f == TY_FLOAT8 || f == TY_FLOAT4)
      v = in->d_f64;
    else if (xt_is_int(f))
      v = (double)in->d_i64;
    else if (f == TY_NUMERIC)
      v = num_to_f64(&in->d_num);
    else
      return xc_no_cast(from, to, e);
    if (t == TY_FLOAT4 && xt_is_int(f)) {
      r.d_f64 = (float)in->d_i64; /* one rounding, as PostgreSQL's i8tof */
    } else if (t == TY_FLOAT4 && f == TY_NUMERIC) {
      /* Through the text form straight to float: rounding via double
       * first could differ in the last place. */
      char buf[64];
      datum_t tmp = *in;
      int n = ty_format_text(from, &tmp, buf, sizeof(buf) - 1);
      buf[n < 0 ? 0 : n] = '\0';
      float fv = strtof(buf, NULL);
      if (isinf(fv))
        return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value out of range: overflow");
      if (fv == 0 && in->d_num.n_val != 0)
        return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value out of range: underflow");
      r.d_f64 = fv;
    } else if (t == TY_FLOAT4) {
      if (xc_to_float4(v, &r.d_f64, e) != CZ_OK)
        return CZ_ERR;
    } else {
      r.d_f64 = v;
    }
  } else if (t == TY_NUMERIC) {
    if (xt_is_int(f)) {
      num_from_i64(in->d_i64, &r.d_num);
    } else if (f == TY_FLOAT8) {
      if (num_from_f64(in->d_f64, -1, &r.d_num, e) != CZ_OK)
        return CZ_ERR;
    } else if (f == TY_FLOAT4) {
      /* PostgreSQL converts REAL through FLT_DIG (6) significant digits. */
      char buf[48];
      if (in->d_f64 != in->d_f64 || isinf(in->d_f64))
        return num_from_f64(in->d_f64, -1, &r.d_num, e);
      int n = snprintf(buf, sizeof(buf), "%.6g", in->d_f64);
      if (ty_parse_text(ty_plain(TY_NUMERIC), buf, (size_t)n, a, &r, e) != CZ_OK)
        return CZ_ERR;
    } else {
      return xc_no_cast(from, to, e);
    }
  } else if (t == TY_BOOL) {
    if (f != TY_INT4 && !xt_is_int(f))
      return xc_no_cast(from, to, e);
    r.d_bool = in->d_i64 != 0;
  } else if ((rc = xc_datetime(f, in->d_i64, &in->d_iv, t, &r, e)) != 0) {
    if (rc == CZ_ERR)
      return CZ_ERR;
    if (r.d_null) {
      *out = r;
      return CZ_OK;
    }
  } else if (t == TY_TIMESTAMP && f == TY_DATE) {
    if (!ty_date_to_ts(in->d_i64, &r.d_i64))
      return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "date out of range for timestamp");
  } else if (t == TY_DATE && f == TY_TIMESTAMP) {
    int64_t us = in->d_i64;
    if (us == INT64_MAX)
      r.d_i64 = INT32_MAX;
    else if (us == INT64_MIN)
      r.d_i64 = INT32_MIN;
    else
      r.d_i64 = us / INT64_C(86400000000) - (us % INT64_C(86400000000) < 0);
  } else if (t == TY_BYTEA && (xt_is_string(f) || f == TY_UNKNOWN)) {
    if (ty_parse_text(to, in->d_str.s_ptr, in->d_str.s_len, a, &r, e) != CZ_OK)
      return CZ_ERR;
  } else {
    return xc_no_cast(from, to, e);
  }
  r.d_null = false;
  if (ty_apply_mods(to, &r, explicit_cast, a, e) != CZ_OK)
    return CZ_ERR;
  *out = r;
  return CZ_OK;
}

int xcast_datum(ty_t from, const datum_t *in, ty_t to, arena_t *a, datum_t *out, err_t *e)
{
  return xcast_datum_ex(from, in, to, false, a, out, e);
}

/* ---- vectored X_CAST ------------------------------------------------------- */

static bool xc_has_mods(ty_t t)
{
  return ((t.t_id == TY_CHAR || t.t_id == TY_VARCHAR) && t.t_len >= 0) ||
         (t.t_id == TY_NUMERIC && t.t_prec >= 0) ||
         ((t.t_id == TY_TIMESTAMP || xt_is_zoned(t.t_id)) && t.t_prec >= 0);
}

int xe_cast(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  const xnode_t *arg = x->x_args[0];
  vec_t *src;
  if (arg->x_kind == X_CONST || arg->x_kind == X_PARAM) {
    datum_t d;
    if (xe_const_cast(st, x, &d, e) != CZ_OK)
      return CZ_ERR;
    xe_fill(dst, &d, sel, nsel);
    return CZ_OK;
  }
  if (xe_node(st, arg, sel, nsel, NULL, &src, e) != CZ_OK)
    return CZ_ERR;
  ty_t from = arg->x_type, to = x->x_type;
  ty_id_t f = from.t_id, t = to.t_id;
  const uint8_t *sn = src->v_null;
  uint8_t *dn = dst->v_null;
  if (xt_is_int(f) && xt_is_int(t)) {
    bool check = xt_num_rank(t) < xt_num_rank(f);
    XE_FOR(sel, nsel, i, {
      dn[i] = sn[i];
      int64_t v = src->v_i64[i];
      if (check && !sn[i] && !xc_int_fits(t, v))
        return xe_error(x, e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "%s", xc_int_range_msg(t));
      dst->v_i64[i] = v;
    });
    return CZ_OK;
  }
  if (xt_is_int(f) && t == TY_FLOAT8) {
    XE_FOR(sel, nsel, i, {
      dn[i] = sn[i];
      dst->v_f64[i] = (double)src->v_i64[i];
    });
    return CZ_OK;
  }
  if (f == TY_FLOAT4 && t == TY_FLOAT8) {
    XE_FOR(sel, nsel, i, {
      dn[i] = sn[i];
      dst->v_f64[i] = src->v_f64[i];
    });
    return CZ_OK;
  }
  if (xt_is_int(f) && t == TY_NUMERIC && !xc_has_mods(to)) {
    XE_FOR(sel, nsel, i, {
      dn[i] = sn[i];
      dst->v_num[i].n_val = src->v_i64[i];
      dst->v_num[i].n_scale = 0;
    });
    return CZ_OK;
  }
  if (f == TY_DATE && t == TY_TIMESTAMP && !xc_has_mods(to)) {
    /* date compared with a timestamp (l_shipdate <= date - interval) */
    XE_FOR(sel, nsel, i, {
      dn[i] = sn[i];
      if (!sn[i] && !ty_date_to_ts(src->v_i64[i], &dst->v_i64[i]))
        return xe_error(x, e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "date out of range for timestamp");
    });
    return CZ_OK;
  }
  if (f == t && from.t_len == to.t_len && from.t_prec == to.t_prec &&
      from.t_scale == to.t_scale && from.t_elem == to.t_elem && !x->x_explicit) {
    /* The very type (char(25) to char(25), numeric(15,2) to itself): the
     * values already have its length, padding and scale. */
    xe_copy_rows(dst, src, sel, nsel);
    return CZ_OK;
  }
  if (xt_is_string(f) && xt_is_string(t) && !xc_has_mods(to) && !(f == TY_CHAR && t == TY_CHAR)) {
    /* a string to text, varchar or char without a length (a CHAR(n)
     * column compared with a literal or a text: TPC-H Q19's p_brand,
     * p_container, l_shipmode): the same bytes, CHAR's padding dropped
     * as xc_to_text does; the result points into the source */
    bool trim = f == TY_CHAR;
    XE_FOR(sel, nsel, i, {
      dn[i] = sn[i];
      str_t v = src->v_str[i];
      if (trim && !sn[i])
        while (v.s_len > 0 && v.s_ptr[v.s_len - 1] == ' ')
          v.s_len--;
      dst->v_str[i] = v;
    });
    return CZ_OK;
  }
  if (f == t && !xc_has_mods(to) && f != TY_CHAR) {
    XE_FOR(sel, nsel, i, {
      datum_t d;
      vec_get(src, i, &d);
      vec_set(dst, i, &d);
    });
    return CZ_OK;
  }
  arena_t *a = st->xe_c->xc_arena;
  XE_FOR(sel, nsel, i, {
    datum_t d, r;
    vec_get(src, i, &d);
    if (xcast_datum_ex(from, &d, to, x->x_explicit, a, &r, e) != CZ_OK) {
      if (e && e->er_pos == 0)
        e->er_pos = x->x_pos;
      return CZ_ERR;
    }
    vec_set(dst, i, &r);
  });
  return CZ_OK;
}
