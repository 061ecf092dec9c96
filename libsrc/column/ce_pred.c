/* ce_pred — predicates compiled for codecs: integer kinds become a sorted
 * list of disjoint closed intervals (one unsigned compare per value for a
 * comparison or range, a binary search for IN lists), other kinds are
 * tested against the constants with datum_cmp's order. Also the min/max
 * test that skips whole segments.
 */
#include <stdlib.h>

#include "column/column_int.h"

static int64_t ival(ty_phys_t p, const datum_t *d)
{
  return p == TP_BOOL ? (int64_t)(d->d_bool & 1) : d->d_i64;
}

static int cmp_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static void one(ce_cpred_t *cp, int64_t lo, int64_t hi)
{
  if (lo > hi) {
    cp->cp_none = true;
    return;
  }
  cp->cp_lo1[cp->cp_nint] = lo;
  cp->cp_hi1[cp->cp_nint] = hi;
  cp->cp_nint++;
}

int ce_pred_compile(ce_cpred_t *cp, const ce_pred_t *p, ty_phys_t phys, arena_t *a, err_t *e)
{
  memset(cp, 0, sizeof(*cp));
  cp->cp_pred = p;
  cp->cp_phys = phys;
  cp->cp_lo = cp->cp_lo1;
  cp->cp_hi = cp->cp_hi1;
  switch (p->p_op) {
  case CE_IS_NULL:
  case CE_NOT_NULL:
    return CZ_OK;
  case CE_RANGE:
    if (p->p_hi.d_null)
      cp->cp_none = true;
    /* fall through */
  case CE_EQ: case CE_NE: case CE_LT: case CE_LE: case CE_GT: case CE_GE:
    if (p->p_val.d_null)
      cp->cp_none = true;
    break;
  case CE_IN: {
    int k = 0;
    for (int i = 0; i < p->p_nin; i++)
      k += !p->p_in[i].d_null;
    if (k == 0)
      cp->cp_none = true;
    break;
  }
  default:
    return err_set(e, SQLSTATE_INTERNAL, "column: unknown predicate operator %d", (int)p->p_op);
  }
  if (cp->cp_none || !ce_phys_is_int(phys))
    return CZ_OK;
  int64_t c = ival(phys, &p->p_val);
  switch (p->p_op) {
  case CE_EQ: one(cp, c, c); break;
  case CE_NE:
    if (c > INT64_MIN)
      one(cp, INT64_MIN, c - 1);
    if (c < INT64_MAX)
      one(cp, c + 1, INT64_MAX);
    cp->cp_none = cp->cp_nint == 0;
    break;
  case CE_LT:
    if (c == INT64_MIN)
      cp->cp_none = true;
    else
      one(cp, INT64_MIN, c - 1);
    break;
  case CE_LE: one(cp, INT64_MIN, c); break;
  case CE_GT:
    if (c == INT64_MAX)
      cp->cp_none = true;
    else
      one(cp, c + 1, INT64_MAX);
    break;
  case CE_GE: one(cp, c, INT64_MAX); break;
  case CE_RANGE: {
    int64_t hi = ival(phys, &p->p_hi);
    if ((!p->p_lo_incl && c == INT64_MAX) || (!p->p_hi_incl && hi == INT64_MIN)) {
      cp->cp_none = true;
      break;
    }
    one(cp, p->p_lo_incl ? c : c + 1, p->p_hi_incl ? hi : hi - 1);
    break;
  }
  case CE_IN: {
    int64_t *v = arena_alloc(a, sizeof(int64_t) * (size_t)p->p_nin);
    uint32_t k = 0;
    for (int i = 0; i < p->p_nin; i++)
      if (!p->p_in[i].d_null)
        v[k++] = ival(phys, &p->p_in[i]);
    qsort(v, k, sizeof(int64_t), cmp_i64);
    uint32_t u = 0;
    for (uint32_t i = 0; i < k; i++)
      if (u == 0 || v[u - 1] != v[i])
        v[u++] = v[i];
    cp->cp_lo = cp->cp_hi = v;
    cp->cp_nint = u;
    break;
  }
  default:
    break;
  }
  return CZ_OK;
}

static bool range_test(ty_phys_t ph, const ce_pred_t *p, const datum_t *d)
{
  int c = datum_cmp(ph, d, &p->p_val);
  if (c < 0 || (c == 0 && !p->p_lo_incl))
    return false;
  c = datum_cmp(ph, d, &p->p_hi);
  return c < 0 || (c == 0 && p->p_hi_incl);
}

bool ce_pred_test_slow(const ce_cpred_t *cp, const datum_t *d)
{
  const ce_pred_t *p = cp->cp_pred;
  ty_phys_t ph = cp->cp_phys;
  switch (p->p_op) {
  case CE_EQ: return datum_cmp(ph, d, &p->p_val) == 0;
  case CE_NE: return datum_cmp(ph, d, &p->p_val) != 0;
  case CE_LT: return datum_cmp(ph, d, &p->p_val) < 0;
  case CE_LE: return datum_cmp(ph, d, &p->p_val) <= 0;
  case CE_GT: return datum_cmp(ph, d, &p->p_val) > 0;
  case CE_GE: return datum_cmp(ph, d, &p->p_val) >= 0;
  case CE_RANGE: return range_test(ph, p, d);
  case CE_IN:
    for (int i = 0; i < p->p_nin; i++)
      if (!p->p_in[i].d_null && datum_cmp(ph, d, &p->p_in[i]) == 0)
        return true;
    return false;
  default:
    return false;
  }
}

bool ce_pred_match(const ce_pred_t *p, ty_phys_t phys, const datum_t *d)
{
  if (p->p_op == CE_IS_NULL)
    return d->d_null;
  if (p->p_op == CE_NOT_NULL)
    return !d->d_null;
  if (d->d_null)
    return false; /* a NULL row never matches a comparison */
  if (p->p_op != CE_IN && (p->p_val.d_null || (p->p_op == CE_RANGE && p->p_hi.d_null)))
    return false; /* a NULL constant matches nothing */
  ce_cpred_t cp;
  memset(&cp, 0, sizeof cp);
  cp.cp_pred = p;
  cp.cp_phys = phys;
  return ce_pred_test_slow(&cp, d);
}

/* Could a value in [min, max] (either end possibly unknown) match? */
static bool interval_may(ty_phys_t ph, const ce_info_t *in, const datum_t *lo, bool lo_incl,
                         const datum_t *hi, bool hi_incl)
{
  if (lo && in->ci_has_max) {
    int c = datum_cmp(ph, &in->ci_max, lo);
    if (c < 0 || (c == 0 && !lo_incl))
      return false;
  }
  if (hi && in->ci_has_min) {
    int c = datum_cmp(ph, &in->ci_min, hi);
    if (c > 0 || (c == 0 && !hi_incl))
      return false;
  }
  return true;
}

bool ce_may_match(const ce_info_t *in, const ce_pred_t *p)
{
  ty_phys_t ph = in->ci_phys;
  if (p->p_op == CE_IS_NULL)
    return in->ci_nnull > 0;
  if (in->ci_nnull == in->ci_n)
    return false;
  switch (p->p_op) {
  case CE_NOT_NULL: return true;
  case CE_EQ: return !p->p_val.d_null && interval_may(ph, in, &p->p_val, true, &p->p_val, true);
  case CE_LT: return !p->p_val.d_null && interval_may(ph, in, NULL, false, &p->p_val, false);
  case CE_LE: return !p->p_val.d_null && interval_may(ph, in, NULL, false, &p->p_val, true);
  case CE_GT: return !p->p_val.d_null && interval_may(ph, in, &p->p_val, false, NULL, false);
  case CE_GE: return !p->p_val.d_null && interval_may(ph, in, &p->p_val, true, NULL, false);
  case CE_RANGE:
    return !p->p_val.d_null && !p->p_hi.d_null &&
           interval_may(ph, in, &p->p_val, p->p_lo_incl, &p->p_hi, p->p_hi_incl);
  case CE_NE:
    /* Only a segment holding nothing but the constant is excluded; a cut
     * string min is a prefix, so exact only when max is known and equal. */
    if (p->p_val.d_null)
      return false;
    return !(in->ci_has_min && in->ci_has_max && datum_cmp(ph, &in->ci_min, &p->p_val) == 0 &&
             datum_cmp(ph, &in->ci_max, &p->p_val) == 0);
  case CE_IN:
    for (int i = 0; i < p->p_nin; i++)
      if (!p->p_in[i].d_null && interval_may(ph, in, &p->p_in[i], true, &p->p_in[i], true))
        return true;
    return false;
  default:
    return true;
  }
}

int ce_filter_decoded_i64(ce_cursor_t *c, ce_read_i64_fn read_i64, const ce_cpred_t *cp,
                          uint32_t *sel, uint32_t *nout, err_t *e)
{
  int64_t tmp[CE_BLK];
  uint32_t k = 0;
  for (uint32_t base = 0; base < c->c_n; base += CE_BLK) {
    uint32_t m = CZ_MIN(c->c_n - base, CE_BLK);
    if (read_i64(c, m, tmp, e) != CZ_OK)
      return CZ_ERR;
    if (c->c_phys == TP_BOOL)
      for (uint32_t i = 0; i < m; i++)
        tmp[i] &= 1;
    for (uint32_t i = 0; i < m; i++) {
      sel[k] = base + i;
      k += ce_ipred_match(cp, tmp[i]);
    }
  }
  *nout = k;
  return CZ_OK;
}
