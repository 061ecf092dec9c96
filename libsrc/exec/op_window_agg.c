/* op_window_agg — add/remove aggregate states for window frames (see
 * op_window_agg.h for why removal is exact or refused). */
#include <string.h>

#include "exec/op_window_agg.h"

void wagg_init(wagg_t *a, xagg_t kind, ty_phys_t arg, ty_t result, arena_t *arena)
{
  memset(a, 0, sizeof(*a));
  a->wa_kind = kind;
  a->wa_ap = arg;
  a->wa_rp = ty_phys(result.t_id);
  a->wa_arena = arena;
  /* as op_hashagg: sums of floats, and averages of floats, in double */
  a->wa_float = a->wa_rp == TP_F64 || (kind == XAGG_AVG && arg == TP_F64);
}

void wagg_reset(wagg_t *a)
{
  a->wa_count = 0;
  a->wa_i64 = 0;
  a->wa_f64 = 0;
  memset(&a->wa_num, 0, sizeof(a->wa_num));
  memset(&a->wa_iv, 0, sizeof(a->wa_iv));
  a->wa_max_scale = 0;
  a->wa_nmax_scale = 0;
  a->wa_val.d_null = true;
  a->wa_len = 0;
}

bool wagg_can_remove(const wagg_t *a)
{
  switch (a->wa_kind) {
  case XAGG_COUNT_STAR:
  case XAGG_COUNT:
  case XAGG_BOOL_AND:
  case XAGG_BOOL_OR:
  case XAGG_MIN:
  case XAGG_MAX:
    return true;
  case XAGG_SUM:
  case XAGG_AVG:
    return !a->wa_float;
  default:
    return false;
  }
}

/* string_agg: appends (the delimiter and) the value. */
static int wagg_concat(wagg_t *a, qctx_t *q, const datum_t *d, const datum_t *delim, err_t *e)
{
  datum_t sep = {.d_null = true};
  if (delim && a->wa_count > 1)
    sep = *delim;
  size_t add = (size_t)d->d_str.s_len + (sep.d_null ? 0 : sep.d_str.s_len);
  size_t len = a->wa_count > 1 ? a->wa_len : 0;
  if (len + add > XE_MAX_FIELD)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "requested length too large");
  if (len + add > a->wa_cap) {
    size_t cap = CZ_MIN((len + add) * 2 + 16, XE_MAX_FIELD);
    char *n = arena_try_alloc(a->wa_arena, cap);
    if (!n)
      return op_budget_error(q->q_budget, q->q_max_mem, e);
    if (len)
      memcpy(n, a->wa_buf, len);
    if (a->wa_cap)
      arena_free(a->wa_arena, a->wa_buf, a->wa_cap);
    a->wa_buf = n;
    a->wa_cap = (uint32_t)cap;
  }
  if (!sep.d_null && sep.d_str.s_len) {
    memcpy(a->wa_buf + len, sep.d_str.s_ptr, sep.d_str.s_len);
    len += sep.d_str.s_len;
  }
  if (d->d_str.s_len)
    memcpy(a->wa_buf + len, d->d_str.s_ptr, d->d_str.s_len);
  a->wa_len = (uint32_t)(len + d->d_str.s_len);
  return CZ_OK;
}

int wagg_add(wagg_t *a, qctx_t *q, const datum_t *v, const datum_t *delim, err_t *e)
{
  if (a->wa_kind == XAGG_COUNT_STAR) {
    a->wa_count++;
    return CZ_OK;
  }
  if (v->d_null)
    return CZ_OK;
  a->wa_count++;
  switch (a->wa_kind) {
  case XAGG_COUNT:
    return CZ_OK;
  case XAGG_SUM:
  case XAGG_AVG:
    if (a->wa_float) {
      a->wa_f64 += a->wa_ap == TP_F64   ? v->d_f64
                   : a->wa_ap == TP_NUM ? num_to_f64(&v->d_num)
                                        : (double)v->d_i64;
      return CZ_OK;
    }
    if (a->wa_rp == TP_IV)  /* exact: removable too */
      return ty_iv_add(&a->wa_iv, &v->d_iv, &a->wa_iv, e);
    if (a->wa_rp == TP_I64) {
      if (__builtin_add_overflow(a->wa_i64, v->d_i64, &a->wa_i64))
        return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "bigint out of range");
      return CZ_OK;
    } else {
      num_t n;
      if (datum_to_num(a->wa_ap, v, &n, e) != CZ_OK)
        return CZ_ERR;
      if (n.n_scale > a->wa_max_scale || a->wa_count == 1) {
        a->wa_max_scale = n.n_scale;
        a->wa_nmax_scale = 0;
      }
      if (n.n_scale == a->wa_max_scale)
        a->wa_nmax_scale++;
      if (a->wa_count == 1)
        a->wa_num = n;
      else if (num_add(&a->wa_num, &n, &a->wa_num, e) != CZ_OK)
        return CZ_ERR;
      return CZ_OK;
    }
  case XAGG_MIN:
  case XAGG_MAX:
    if (a->wa_count > 1) {
      /* of equal values the later wins, as PostgreSQL's numeric_larger
       * and float8larger (1.5 and 1.50 print differently) */
      int c = datum_cmp(a->wa_ap, v, &a->wa_val);
      if (a->wa_kind == XAGG_MIN ? c > 0 : c < 0)
        return CZ_OK;
    }
    a->wa_val = *v;
    return CZ_OK;
  case XAGG_BOOL_AND:
  case XAGG_BOOL_OR:
    a->wa_i64 += v->d_bool ? 1 : 0;
    return CZ_OK;
  case XAGG_STRING_AGG:
    return wagg_concat(a, q, v, delim, e);
  default:
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "aggregate not supported");
  }
}

int wagg_remove(wagg_t *a, const datum_t *v, bool *ok, err_t *e)
{
  *ok = true;
  if (a->wa_kind == XAGG_COUNT_STAR) {
    a->wa_count--;
    return CZ_OK;
  }
  if (v->d_null)
    return CZ_OK;
  if (!wagg_can_remove(a)) {
    *ok = false;
    return CZ_OK;
  }
  a->wa_count--;
  switch (a->wa_kind) {
  case XAGG_SUM:
  case XAGG_AVG:
    if (a->wa_count == 0) {
      wagg_reset(a);
      return CZ_OK;
    }
    if (a->wa_rp == TP_IV)
      return ty_iv_sub(&a->wa_iv, &v->d_iv, &a->wa_iv, e);
    if (a->wa_rp == TP_I64) {
      if (__builtin_sub_overflow(a->wa_i64, v->d_i64, &a->wa_i64))
        return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "bigint out of range");
      return CZ_OK;
    } else {
      num_t n;
      if (datum_to_num(a->wa_ap, v, &n, e) != CZ_OK)
        return CZ_ERR;
      if (n.n_scale == a->wa_max_scale && --a->wa_nmax_scale == 0) {
        *ok = false;  /* the display scale may shrink: recompute */
        return CZ_OK;
      }
      return num_sub(&a->wa_num, &n, &a->wa_num, e);
    }
  case XAGG_MIN:
  case XAGG_MAX:
    if (a->wa_count == 0)
      wagg_reset(a);
    else if (datum_cmp(a->wa_ap, v, &a->wa_val) == 0)
      *ok = false;  /* the extreme leaves: only a rescan knows the next */
    return CZ_OK;
  case XAGG_BOOL_AND:
  case XAGG_BOOL_OR:
    a->wa_i64 -= v->d_bool ? 1 : 0;
    return CZ_OK;
  default:
    return CZ_OK;  /* count */
  }
}

int wagg_final(const wagg_t *a, datum_t *out, err_t *e)
{
  memset(out, 0, sizeof(*out));
  if (a->wa_kind == XAGG_COUNT || a->wa_kind == XAGG_COUNT_STAR) {
    out->d_i64 = a->wa_count;
    return CZ_OK;
  }
  if (a->wa_count == 0) {
    out->d_null = true;
    return CZ_OK;
  }
  switch (a->wa_kind) {
  case XAGG_SUM:
    if (a->wa_rp == TP_IV)
      out->d_iv = a->wa_iv;
    else if (a->wa_rp == TP_F64)
      out->d_f64 = a->wa_f64;
    else if (a->wa_rp == TP_I64)
      out->d_i64 = a->wa_i64;
    else
      out->d_num = a->wa_num;
    return CZ_OK;
  case XAGG_AVG:
    if (a->wa_rp == TP_IV)  /* interval_avg: the sum divided as interval / float8 */
      return ty_iv_div(&a->wa_iv, (double)a->wa_count, &out->d_iv, e);
    if (a->wa_rp == TP_F64) {
      out->d_f64 = a->wa_f64 / (double)a->wa_count;
      return CZ_OK;
    } else {
      num_t cnt;
      num_from_i64(a->wa_count, &cnt);
      return num_div(&a->wa_num, &cnt, &out->d_num, e);
    }
  case XAGG_BOOL_AND:
    out->d_bool = a->wa_i64 == a->wa_count;
    return CZ_OK;
  case XAGG_BOOL_OR:
    out->d_bool = a->wa_i64 > 0;
    return CZ_OK;
  case XAGG_STRING_AGG:
    out->d_str.s_ptr = a->wa_buf;
    out->d_str.s_len = a->wa_len;
    return CZ_OK;
  default:
    *out = a->wa_val;
    out->d_null = false;
    return CZ_OK;
  }
}
