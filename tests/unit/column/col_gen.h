/* col_gen — value generators shared by the column codec tests: every
 * physical kind, distributions from random to adversarial, NULL patterns,
 * and a reference predicate evaluated on plain datums. */
#ifndef CZ_COL_GEN_H
#define CZ_COL_GEN_H

#include <math.h>
#include <string.h>

#include "column/column.h"

static uint64_t cg_state;
static inline uint64_t cg_rand(void)
{
  uint64_t z = (cg_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static inline uint64_t cg_below(uint64_t n) { return n ? cg_rand() % n : 0; }

enum { CG_RANDOM, CG_SORTED, CG_CONST, CG_LOWCARD, CG_ALLNULL, CG_ALTNULL, CG_EXTREME, CG_RUNS, CG_ADVERSE,
       CG_DIST_COUNT };
static const char *const cg_dist_names[] = {"random", "sorted", "constant", "lowcard", "allnull",
                                            "altnull", "extreme", "runs", "adverse"};
static const ty_id_t cg_kinds[] = {TY_INT8, TY_BOOL, TY_FLOAT8, TY_NUMERIC, TY_TEXT};

static inline void cg_str(arena_t *a, uint64_t x, int mode, str_t *out)
{
  /* mode 0: short words from a small alphabet, 1: long strings with a
   * shared prefix, 2: raw bytes (invalid UTF-8, NULs) of random length */
  if (mode == 0) {
    static const char *w[] = {"", "a", "ab", "abc", "b", "ba", "zz", "hello", "help", "helm"};
    const char *s = w[x % 10];
    out->s_ptr = s;
    out->s_len = (uint32_t)strlen(s);
    return;
  }
  uint32_t len = mode == 1 ? 60 + (uint32_t)(x % 300) : (uint32_t)(x % 40);
  char *p = arena_alloc(a, len + 1);
  for (uint32_t i = 0; i < len; i++)
    p[i] = mode == 1 ? (char)(i < 50 ? 'p' : 'a' + (x >> (i % 50)) % 26) : (char)cg_rand();
  out->s_ptr = p;
  out->s_len = len;
}

static inline void cg_value(ty_phys_t ph, int dist, int i, int n, arena_t *a, datum_t *d)
{
  uint64_t r = cg_rand();
  memset(d, 0, sizeof(*d));
  int64_t x;
  switch (dist) {
  case CG_SORTED: x = (int64_t)i * 3 + (int64_t)(r % 3); break;
  case CG_CONST: x = 42; break;
  case CG_LOWCARD: x = (int64_t)(r % 5) * 1000 - 2000; break;
  case CG_RUNS: x = (i / (1 + (int)(r % 2) + 7)) % 4 * 17; break;
  case CG_EXTREME: {
    static const int64_t ex[] = {INT64_MIN, INT64_MAX, 0, -1, 1, INT64_MIN + 1, INT64_MAX - 1};
    x = ex[r % 7];
    break;
  }
  case CG_ADVERSE: x = (i & 1) ? INT64_MAX : INT64_MIN; break;
  default: x = (int64_t)(r >> (r % 64)); if (r & 1) x = -x; break;
  }
  (void)n;
  switch (ph) {
  case TP_BOOL: d->d_bool = dist == CG_CONST ? 1 : (uint8_t)((dist == CG_SORTED ? i > n / 2 : x) & 1); break;
  case TP_I64: d->d_i64 = x; break;
  case TP_IV: break; /* the codecs take no interval (ce_stats_build refuses it) */
  case TP_F64:
    if (dist == CG_EXTREME || dist == CG_ADVERSE) {
      static const double fx[] = {0.0, -0.0, INFINITY, -INFINITY, 1e308, -1e-308, 5e-324};
      d->d_f64 = (r % 8) == 7 ? nan("") : fx[r % 7];
    } else {
      d->d_f64 = dist == CG_RANDOM ? (double)x / 7.0 : (double)x * 0.5;
    }
    break;
  case TP_NUM:
    if (dist == CG_EXTREME || dist == CG_ADVERSE) {
      __int128 big = (__int128)INT64_MAX * INT64_MAX;
      d->d_num.n_val = (r & 1) ? big : -big;
      d->d_num.n_scale = (int16_t)(r % 39);
    } else {
      d->d_num.n_val = x;
      d->d_num.n_scale = (int16_t)(dist == CG_RANDOM ? r % 5 : 2);
    }
    break;
  case TP_STR:
    if (dist == CG_SORTED) {
      char *p = arena_alloc(a, 32);
      int len = snprintf(p, 32, "key-%08d", i * 3);
      d->d_str.s_ptr = p;
      d->d_str.s_len = (uint32_t)len;
    } else if (dist == CG_EXTREME || dist == CG_ADVERSE) {
      cg_str(a, r, 1 + (int)(r % 2), &d->d_str);
    } else {
      cg_str(a, (uint64_t)(x < 0 ? -(x + 1) : x), 0, &d->d_str);
    }
    break;
  }
}

/* Fills v[0, n) with dist; NULLs by dist (allnull, altnull) or ~1 in 9 for
 * the random distribution. */
static inline void cg_fill(vec_t *v, int n, int dist, arena_t *a)
{
  ty_phys_t ph = ty_phys(v->v_type.t_id);
  for (int i = 0; i < n; i++) {
    datum_t d;
    cg_value(ph, dist, i, n, a, &d);
    d.d_null = dist == CG_ALLNULL || (dist == CG_ALTNULL && (i & 1)) || (dist == CG_RANDOM && cg_below(9) == 0);
    vec_set(v, i, &d);
    v->v_null[i] = d.d_null;
  }
}

/* Bit-identical equality of two non-NULL datums. */
static inline bool cg_same(ty_phys_t ph, const datum_t *a, const datum_t *b)
{
  switch (ph) {
  case TP_BOOL: return a->d_bool == b->d_bool;
  case TP_I64: return a->d_i64 == b->d_i64;
  case TP_F64: return memcmp(&a->d_f64, &b->d_f64, 8) == 0;
  case TP_NUM: return a->d_num.n_val == b->d_num.n_val && a->d_num.n_scale == b->d_num.n_scale;
  case TP_IV: return memcmp(&a->d_iv, &b->d_iv, sizeof a->d_iv) == 0;
  case TP_STR:
    return a->d_str.s_len == b->d_str.s_len &&
           (!a->d_str.s_len || memcmp(a->d_str.s_ptr, b->d_str.s_ptr, a->d_str.s_len) == 0);
  }
  return false;
}

/* The predicate on one datum, written from SQL's definition. */
static inline bool cg_ref_match(ty_phys_t ph, const ce_pred_t *p, const datum_t *d)
{
  if (p->p_op == CE_IS_NULL)
    return d->d_null;
  if (p->p_op == CE_NOT_NULL)
    return !d->d_null;
  if (d->d_null)
    return false;
  if (p->p_op == CE_IN) {
    for (int i = 0; i < p->p_nin; i++)
      if (!p->p_in[i].d_null && datum_cmp(ph, d, &p->p_in[i]) == 0)
        return true;
    return false;
  }
  if (p->p_val.d_null)
    return false;
  int c = datum_cmp(ph, d, &p->p_val);
  switch (p->p_op) {
  case CE_EQ: return c == 0;
  case CE_NE: return c != 0;
  case CE_LT: return c < 0;
  case CE_LE: return c <= 0;
  case CE_GT: return c > 0;
  case CE_GE: return c >= 0;
  case CE_RANGE: {
    if (p->p_hi.d_null || c < 0 || (c == 0 && !p->p_lo_incl))
      return false;
    int h = datum_cmp(ph, d, &p->p_hi);
    return h < 0 || (h == 0 && p->p_hi_incl);
  }
  default: return false;
  }
}

#endif /* CZ_COL_GEN_H */
