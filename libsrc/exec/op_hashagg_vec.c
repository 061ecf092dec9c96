/* op_hashagg_vec — typed, vectored loops of hash aggregation (see the
 * header). Each loop is the row-by-row step of op_hashagg.c specialised
 * to one argument type: a value read straight from its vector, no datum
 * built, no per-row dispatch on the aggregate kind. */
#include <string.h>

#include "exec/op_hashagg_vec.h"

void aggv_hash(const batch_t *b, int ncols, const int *sel, int nsel, uint64_t *hash)
{
  rows_hash(b, ncols, NULL, sel, nsel, hash);
}

/* The loop over the selected rows whose group is known. */
#define AGGV_FOR(...)                                                                              \
  for (int j = 0; j < nsel; j++) {                                                                 \
    int64_t g = grp[j];                                                                            \
    if (g < 0)                                                                                     \
      continue;                                                                                    \
    int r = sel ? sel[j] : j;                                                                      \
    (void)r;                                                                                       \
    __VA_ARGS__                                                                                    \
  }

/* s += x for NUMERIC sums, as agg_step does it: the first value taken as
 * it is (its scale), then num_add — inline while the scales agree and the
 * sum stays within 38 digits, num_add itself otherwise (other scales,
 * overflow: the same 22003). */
static inline int aggv_num_add(agg_state_t *s, const num_t *x, err_t *e)
{
  if (s->as_count++ == 0) {
    s->as_num = *x;
    return CZ_OK;
  }
  __int128 t;
  const __int128 lim = (__int128)10000000000000000000ull * (__int128)10000000000000000000ull;
  if (s->as_num.n_scale == x->n_scale && !__builtin_add_overflow(s->as_num.n_val, x->n_val, &t) &&
      t < lim && t > -lim) {
    s->as_num.n_val = t;
    return CZ_OK;
  }
  return num_add(&s->as_num, x, &s->as_num, e);
}

/* min/max of a plain value: cmp(new, best) as datum_cmp orders them;
 * ties take the later value, as PostgreSQL's smaller/larger do. */
#define AGGV_MINMAX(get, field, cmp)                                                               \
  AGGV_FOR({                                                                                       \
    if (v->v_null[r])                                                                              \
      continue;                                                                                    \
    agg_state_t *s = &st[g];                                                                       \
    if (s->as_count++ > 0) {                                                                       \
      int c = cmp(get, s->as_val.field);                                                           \
      if (is_min ? c > 0 : c < 0)                                                                  \
        continue;                                                                                  \
    }                                                                                              \
    s->as_val.d_null = false;                                                                      \
    s->as_val.field = get;                                                                         \
  })

static inline int aggv_cmp_i64(int64_t a, int64_t b)
{
  return a < b ? -1 : a > b;
}

static inline int aggv_cmp_f64(double x, double y)
{
  if (x != x)
    return y != y ? 0 : 1;
  if (y != y)
    return -1;
  return x < y ? -1 : x > y;
}

static inline int aggv_cmp_num(num_t a, num_t b)
{
  if (a.n_scale == b.n_scale) /* a column's values: one scale */
    return a.n_val < b.n_val ? -1 : a.n_val > b.n_val;
  return num_cmp(&a, &b);
}

int aggv_keep_str(arena_t *a, agg_state_t *st, const str_t *s, err_t *e)
{
  char *buf = (char *)st->as_val.d_str.s_ptr;
  if (s->s_len > st->as_cap) {
    char *n = arena_try_alloc(a, s->s_len);
    if (!n)
      return op_alloc_error(a, e);
    if (st->as_cap)
      arena_free(a, buf, st->as_cap);
    buf = n;
    st->as_cap = s->s_len;
  }
  if (s->s_len)
    memcpy(buf, s->s_ptr, s->s_len);
  st->as_val.d_null = false;
  st->as_val.d_str.s_len = s->s_len;
  st->as_val.d_str.s_ptr = buf;
  return CZ_OK;
}

/* Strings compare bytewise (datum_cmp's C collation). */
static inline int aggv_cmp_str(const str_t *a, const str_t *b)
{
  uint32_t n = CZ_MIN(a->s_len, b->s_len);
  int c = n ? memcmp(a->s_ptr, b->s_ptr, n) : 0;
  if (c)
    return c < 0 ? -1 : 1;
  return a->s_len < b->s_len ? -1 : a->s_len > b->s_len;
}

static int aggv_sum(const agg_spec_t *ag, agg_state_t *st, const int64_t *grp, const vec_t *v,
                    const int *sel, int nsel, err_t *e)
{
  ty_phys_t ap = ty_phys(v->v_type.t_id);
  ty_phys_t rp = ty_phys(ag->ag_type.t_id);
  if (rp == TP_IV)
    return 0;
  if (rp == TP_F64 || (ag->ag_kind == XAGG_AVG && ap == TP_F64)) {
    if (ap == TP_F64)
      AGGV_FOR({
        if (!v->v_null[r]) {
          st[g].as_count++;
          st[g].as_f64 += v->v_f64[r];
        }
      })
    else if (ap == TP_I64)
      AGGV_FOR({
        if (!v->v_null[r]) {
          st[g].as_count++;
          st[g].as_f64 += (double)v->v_i64[r];
        }
      })
    else if (ap == TP_NUM)
      AGGV_FOR({
        if (!v->v_null[r]) {
          st[g].as_count++;
          st[g].as_f64 += num_to_f64(&v->v_num[r]);
        }
      })
    else
      return 0;
    return 1;
  }
  if (rp == TP_I64) {
    if (ap != TP_I64)
      return 0;
    AGGV_FOR({
      if (v->v_null[r])
        continue;
      st[g].as_count++;
      if (__builtin_add_overflow(st[g].as_i64, v->v_i64[r], &st[g].as_i64))
        return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "bigint out of range"), -1;
    })
    return 1;
  }
  if (rp != TP_NUM)
    return 0;
  if (ap == TP_NUM) {
    AGGV_FOR({
      if (!v->v_null[r] && aggv_num_add(&st[g], &v->v_num[r], e) != CZ_OK)
        return -1;
    })
    return 1;
  }
  if (ap == TP_I64) {
    AGGV_FOR({
      if (v->v_null[r])
        continue;
      num_t x = {.n_val = v->v_i64[r], .n_scale = 0};
      if (aggv_num_add(&st[g], &x, e) != CZ_OK)
        return -1;
    })
    return 1;
  }
  return 0;
}

int aggv_accum(const agg_spec_t *ag, agg_state_t *st, const int64_t *grp, const vec_t *v,
               const int *sel, int nsel, arena_t *a, err_t *e)
{
  if (ag->ag_distinct)
    return 0;
  if (ag->ag_kind == XAGG_COUNT_STAR) {
    AGGV_FOR({ st[g].as_count++; })
    return 1;
  }
  if (!v)
    return 0;
  switch (ag->ag_kind) {
  case XAGG_COUNT:
    AGGV_FOR({ st[g].as_count += !v->v_null[r]; })
    return 1;
  case XAGG_SUM:
  case XAGG_AVG:
    return aggv_sum(ag, st, grp, v, sel, nsel, e);
  case XAGG_MIN:
  case XAGG_MAX: {
    bool is_min = ag->ag_kind == XAGG_MIN;
    switch (ty_phys(v->v_type.t_id)) {
    case TP_I64:
      AGGV_MINMAX(v->v_i64[r], d_i64, aggv_cmp_i64);
      return 1;
    case TP_F64:
      AGGV_MINMAX(v->v_f64[r], d_f64, aggv_cmp_f64);
      return 1;
    case TP_NUM:
      AGGV_MINMAX(v->v_num[r], d_num, aggv_cmp_num);
      return 1;
    case TP_STR:
      AGGV_FOR({
        if (v->v_null[r])
          continue;
        agg_state_t *s = &st[g];
        if (s->as_count++ > 0) {
          int c = aggv_cmp_str(&v->v_str[r], &s->as_val.d_str);
          if (is_min ? c > 0 : c < 0)
            continue;
        }
        if (aggv_keep_str(a, s, &v->v_str[r], e) != CZ_OK)
          return -1;
      })
      return 1;
    default:
      return 0; /* intervals and booleans are rare */
    }
  }
  default:
    return 0;
  }
}
