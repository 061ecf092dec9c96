/* tb_pred — the simple predicates a scan tests on decoded values
 * (tbl_pred_t): comparisons with constants, IN lists, NULL tests.
 *
 * Design notes: the order is the executor's (exec/ex_cmp.c) so that a
 * predicate pushed into a scan answers as the filter it replaces: integers
 * and dates as int64, doubles with NaN equal to itself and above every
 * number, strings bytewise (the C collation, CHAR(n) padding included as
 * stored), NUMERIC by value (datum_cmp) whatever the scales.
 */
#include <string.h>

#include "table/tb_int.h"

static inline int pred_cmp_str(str_t a, str_t b)
{
  uint32_t n = a.s_len < b.s_len ? a.s_len : b.s_len;
  int c = n ? memcmp(a.s_ptr, b.s_ptr, n) : 0;
  if (c)
    return c;
  return a.s_len < b.s_len ? -1 : a.s_len > b.s_len;
}

static inline int pred_cmp_f64(double a, double b)
{
  bool an = a != a, bn = b != b;
  if (an || bn)
    return an == bn ? 0 : an ? 1 : -1;
  return a < b ? -1 : a > b;
}

/* NUMERIC values of a column mostly share one scale: compared as
 * integers once the one of smaller scale is scaled up (when that cannot
 * overflow), else by datum_cmp. */
static int pred_cmp_num(const num_t *a, const num_t *b)
{
  static const int64_t pow10[19] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                    100000000, 1000000000, 10000000000, 100000000000,
                                    1000000000000, 10000000000000, 100000000000000,
                                    1000000000000000, 10000000000000000,
                                    100000000000000000, 1000000000000000000};
  __int128 x = a->n_val, y = b->n_val;
  int d = a->n_scale - b->n_scale;
  if (d > 0 && d <= 18 && !__builtin_mul_overflow(y, (__int128)pow10[d], &y))
    d = 0;
  else if (d < 0 && d >= -18 && !__builtin_mul_overflow(x, (__int128)pow10[-d], &x))
    d = 0;
  if (d == 0)
    return x < y ? -1 : x > y;
  datum_t da = {.d_num = *a}, db = {.d_num = *b};
  return datum_cmp(TP_NUM, &da, &db);
}

/* Three-way comparison of row r of v with d. */
static inline int pred_cmp(ty_phys_t p, const vec_t *v, int r, const datum_t *d)
{
  switch (p) {
  case TP_I64:
    return v->v_i64[r] < d->d_i64 ? -1 : v->v_i64[r] > d->d_i64;
  case TP_F64:
    return pred_cmp_f64(v->v_f64[r], d->d_f64);
  case TP_STR:
    return pred_cmp_str(v->v_str[r], d->d_str);
  case TP_BOOL:
    return (int)(v->v_bool[r] != 0) - (int)(d->d_bool != 0);
  case TP_NUM:
    return pred_cmp_num(&v->v_num[r], &d->d_num);
  default: {
    datum_t x;
    vec_get(v, r, &x);
    return datum_cmp(p, &x, d);
  }
  }
}

/* Row r of a string vector, without trailing blanks when rtrim. */
static inline str_t pred_str(const vec_t *v, int r, bool rtrim)
{
  str_t s = v->v_str[r];
  if (rtrim)
    while (s.s_len > 0 && s.s_ptr[s.s_len - 1] == ' ')
      s.s_len--;
  return s;
}

static bool pred_in(ty_phys_t p, const vec_t *v, int r, const tbl_pred_t *pr)
{
  if (p == TP_STR) {
    str_t s = pred_str(v, r, pr->tp_rtrim);
    for (int i = 0; i < pr->tp_nvals; i++) {
      str_t b = pr->tp_vals[i].d_str;
      if (b.s_len == s.s_len && (s.s_len == 0 || memcmp(s.s_ptr, b.s_ptr, s.s_len) == 0))
        return true;
    }
    return false;
  }
  for (int i = 0; i < pr->tp_nvals; i++)
    if (pred_cmp(p, v, r, &pr->tp_vals[i]) == 0)
      return true;
  return false;
}

bool tb_pred_test(const tbl_pred_t *pr, const vec_t *v, int r)
{
  if (pr->tp_op == TBP_NULL)
    return v->v_null[r] != 0;
  if (v->v_null[r])
    return false;
  if (pr->tp_op == TBP_NOT_NULL)
    return true;
  ty_phys_t p = ty_phys(v->v_type.t_id);
  switch (pr->tp_op) {
  case TBP_IN:
    return pred_in(p, v, r, pr);
  case TBP_NOT_IN:
    return !pred_in(p, v, r, pr);
  default:
    break;
  }
  int c = p == TP_STR ? pred_cmp_str(pred_str(v, r, pr->tp_rtrim), pr->tp_vals[0].d_str)
                      : pred_cmp(p, v, r, &pr->tp_vals[0]);
  switch (pr->tp_op) {
  case TBP_EQ: return c == 0;
  case TBP_NE: return c != 0;
  case TBP_LT: return c < 0;
  case TBP_LE: return c <= 0;
  case TBP_GT: return c > 0;
  default: return c >= 0;
  }
}

bool tbl_preds_pass(const tbl_pred_t *preds, int n, const batch_t *b, int r)
{
  for (int j = 0; j < n; j++)
    if (!tb_pred_test(&preds[j], &b->b_cols[preds[j].tp_out], r))
      return false;
  return true;
}
