/* ce_stats — one pass of analysis over the values to encode, from which
 * every codec computes its exact size: filled values, min/max, runs, the
 * dictionary, integer deltas and string prefix sizes.
 *
 * Design notes: NULL slots take the previous non-NULL value so that runs
 * and sorted sequences are not broken by NULLs; values are grouped by bit
 * identity (-0.0 and 0.0, NUMERIC 1.0 and 1.00 are different entries) so
 * that a round trip gives back exactly the bits that went in.
 */
#include "column/column_int.h"
#include "column/ce_varint.h"

bool ce_phys_is_int(ty_phys_t p)
{
  return p == TP_I64 || p == TP_BOOL;
}

static bool same_value(const ce_stats_t *st, uint32_t a, uint32_t b)
{
  switch (st->st_phys) {
  case TP_BOOL:
  case TP_I64:
    return st->st_i64[a] == st->st_i64[b];
  case TP_F64:
    return memcmp(&st->st_f64[a], &st->st_f64[b], 8) == 0;
  case TP_NUM:
    return st->st_num[a].n_val == st->st_num[b].n_val && st->st_num[a].n_scale == st->st_num[b].n_scale;
  case TP_STR:
    return st->st_str[a].s_len == st->st_str[b].s_len &&
           (st->st_str[a].s_len == 0 || memcmp(st->st_str[a].s_ptr, st->st_str[b].s_ptr, st->st_str[a].s_len) == 0);
  case TP_IV: break; /* refused by ce_stats_build */
  }
  return false;
}

static uint64_t value_hash(const ce_stats_t *st, uint32_t i)
{
  switch (st->st_phys) {
  case TP_BOOL:
  case TP_I64:
    return hash64_int((uint64_t)st->st_i64[i]);
  case TP_F64: {
    uint64_t b;
    memcpy(&b, &st->st_f64[i], 8);
    return hash64_int(b);
  }
  case TP_NUM: {
    unsigned __int128 v = (unsigned __int128)st->st_num[i].n_val;
    return hash64_int((uint64_t)v ^ hash64_int((uint64_t)(v >> 64) + (uint64_t)st->st_num[i].n_scale));
  }
  case TP_STR:
    return hash64(st->st_str[i].s_ptr, st->st_str[i].s_len, 7);
  case TP_IV: break;
  }
  return 0;
}

static void fill_values(ce_stats_t *st, const vec_t *v, int start, arena_t *a)
{
  uint32_t n = st->st_n, first = 0;
  const uint8_t *nl = v->v_null + start;
  while (first < n && nl[first])
    first++;
  switch (st->st_phys) {
  case TP_BOOL:
  case TP_I64: {
    int64_t *o = st->st_i64 = arena_alloc(a, sizeof(int64_t) * (n ? n : 1));
    int64_t prev = 0;
    if (first < n)
      prev = st->st_phys == TP_I64 ? v->v_i64[start + (int)first] : (v->v_bool[start + (int)first] & 1);
    for (uint32_t i = 0; i < n; i++) {
      if (!nl[i])
        prev = st->st_phys == TP_I64 ? v->v_i64[start + (int)i] : (v->v_bool[start + (int)i] & 1);
      o[i] = prev;
    }
    break;
  }
  case TP_F64: {
    double *o = st->st_f64 = arena_alloc(a, sizeof(double) * (n ? n : 1));
    double prev = first < n ? v->v_f64[start + (int)first] : 0;
    for (uint32_t i = 0; i < n; i++) {
      if (!nl[i])
        prev = v->v_f64[start + (int)i];
      o[i] = prev;
    }
    break;
  }
  case TP_NUM: {
    num_t *o = st->st_num = arena_alloc(a, sizeof(num_t) * (n ? n : 1));
    num_t prev = {0, 0};
    if (first < n)
      prev = v->v_num[start + (int)first];
    for (uint32_t i = 0; i < n; i++) {
      if (!nl[i])
        prev = v->v_num[start + (int)i];
      o[i] = prev;
    }
    break;
  }
  case TP_STR: {
    str_t *o = st->st_str = arena_alloc(a, sizeof(str_t) * (n ? n : 1));
    str_t prev = {"", 0};
    if (first < n)
      prev = v->v_str[start + (int)first];
    for (uint32_t i = 0; i < n; i++) {
      if (!nl[i])
        prev = v->v_str[start + (int)i];
      o[i] = prev;
    }
    break;
  }
  case TP_IV: break;
  }
}

static void get_datum(const ce_stats_t *st, uint32_t i, datum_t *d)
{
  memset(d, 0, sizeof(*d));
  switch (st->st_phys) {
  case TP_BOOL: d->d_bool = (uint8_t)st->st_i64[i]; break;
  case TP_I64: d->d_i64 = st->st_i64[i]; break;
  case TP_F64: d->d_f64 = st->st_f64[i]; break;
  case TP_NUM: d->d_num = st->st_num[i]; break;
  case TP_STR: d->d_str = st->st_str[i]; break;
  case TP_IV: break;
  }
}

static void build_dict(ce_stats_t *st, arena_t *a)
{
  uint32_t n = st->st_n, cap = 16;
  while (cap < 2 * CZ_MIN(n, CE_DICT_MAX + 1))
    cap *= 2;
  uint32_t *slot = arena_alloc(a, sizeof(uint32_t) * cap);
  memset(slot, 0xff, sizeof(uint32_t) * cap);
  st->st_codes = arena_alloc(a, sizeof(uint32_t) * (n ? n : 1));
  st->st_dict_row = arena_alloc(a, sizeof(uint32_t) * (CZ_MIN(n, CE_DICT_MAX) + 1));
  uint32_t nd = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (i > 0 && same_value(st, i, i - 1)) {
      st->st_codes[i] = st->st_codes[i - 1];
      continue;
    }
    uint32_t h = (uint32_t)value_hash(st, i) & (cap - 1);
    while (slot[h] != UINT32_MAX && !same_value(st, st->st_dict_row[slot[h]], i))
      h = (h + 1) & (cap - 1);
    if (slot[h] == UINT32_MAX) {
      if (nd == CE_DICT_MAX) {
        st->st_ndict = 0;
        return;
      }
      st->st_dict_row[nd] = i;
      slot[h] = nd++;
    }
    st->st_codes[i] = slot[h];
  }
  st->st_ndict = nd;
}

int ce_stats_build(ce_stats_t *st, const vec_t *v, int start, int n, arena_t *a, err_t *e)
{
  memset(st, 0, sizeof(*st));
  if (n < 0 || (uint32_t)n > CE_MAX_ROWS || start < 0)
    return err_set(e, SQLSTATE_INTERNAL, "column: cannot encode %d rows from %d", n, start);
  st->st_phys = ty_phys(v->v_type.t_id);
  if (st->st_phys == TP_IV) /* no codec holds INTERVAL's three parts yet */
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "column: type interval cannot be column-encoded yet");
  st->st_n = (uint32_t)n;
  st->st_nulls = v->v_null + start;
  fill_values(st, v, start, a);
  bool have = false;
  for (uint32_t i = 0; i < st->st_n; i++) {
    if (v->v_null[start + (int)i]) {
      st->st_nnull++;
      continue;
    }
    if (st->st_phys == TP_I64 && have) { /* the common case without a call */
      int64_t x = st->st_i64[i];
      if (x < st->st_min.d_i64)
        st->st_min.d_i64 = x;
      else if (x > st->st_max.d_i64)
        st->st_max.d_i64 = x;
      continue;
    }
    datum_t d;
    get_datum(st, i, &d);
    if (!have) {
      st->st_min = st->st_max = d;
      have = true;
    } else if (datum_cmp(st->st_phys, &d, &st->st_min) < 0) {
      st->st_min = d;
    } else if (datum_cmp(st->st_phys, &d, &st->st_max) > 0) {
      st->st_max = d;
    }
  }
  st->st_min.d_null = st->st_max.d_null = !have;
  for (uint32_t i = 0; i < st->st_n; i++)
    if (i == 0 || !same_value(st, i, i - 1))
      st->st_nruns++;
  build_dict(st, a);
  if (ce_phys_is_int(st->st_phys) && st->st_n > 0) {
    const int64_t *x = st->st_i64;
    st->st_imin = st->st_imax = x[0];
    st->st_sorted = true;
    st->st_dmin = UINT64_MAX;
    st->st_dmax = 0;
    uint64_t prevd = 0;
    for (uint32_t i = 1; i < st->st_n; i++) {
      if (x[i] < st->st_imin)
        st->st_imin = x[i];
      if (x[i] > st->st_imax)
        st->st_imax = x[i];
      if (x[i] < x[i - 1])
        st->st_sorted = false;
      uint64_t d = (uint64_t)x[i] - (uint64_t)x[i - 1];
      if (d < st->st_dmin)
        st->st_dmin = d;
      if (d > st->st_dmax)
        st->st_dmax = d;
      if (i == 1 || d != prevd)
        st->st_delta_runs++;
      prevd = d;
    }
    if (st->st_n == 1)
      st->st_dmin = 0;
  }
  if (st->st_phys == TP_STR) {
    const str_t *s = st->st_str;
    for (uint32_t i = 0; i < st->st_n; i++) {
      uint32_t len = s[i].s_len, shared = 0;
      st->st_str_bytes += len;
      if (len > st->st_max_len)
        st->st_max_len = len;
      if (i % CE_PREFIX_RESTART) {
        uint32_t m = CZ_MIN(len, s[i - 1].s_len);
        while (shared < m && s[i].s_ptr[shared] == s[i - 1].s_ptr[shared])
          shared++;
      }
      st->st_prefix_bytes += ce_varint_size(shared) + ce_varint_size(len - shared) + (len - shared);
    }
  }
  return CZ_OK;
}
