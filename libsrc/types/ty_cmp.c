/* ty_cmp — ordering and hashing of datums by physical kind. Floats order
 * as PostgreSQL's do (NaN equals NaN and sorts above every other value;
 * -0 equals 0); NUMERIC compares by value whatever the scales and hashes
 * its normalised form, so 1.0 and 1.00 meet in a hash join. jsonb orders
 * by its own rules (datum_cmp_t, ty_jsonb.c). */
#include <string.h>

#include "types/types_int.h"

int datum_cmp(ty_phys_t p, const datum_t *a, const datum_t *b)
{
  switch (p) {
  case TP_BOOL:
    return (int)a->d_bool - (int)b->d_bool;
  case TP_I64:
    return a->d_i64 < b->d_i64 ? -1 : a->d_i64 > b->d_i64;
  case TP_F64: {
    double x = a->d_f64, y = b->d_f64;
    if (x != x)
      return y != y ? 0 : 1;
    if (y != y)
      return -1;
    return x < y ? -1 : x > y;
  }
  case TP_NUM:
    return num_cmp(&a->d_num, &b->d_num);
  case TP_IV: {
    __int128 x = ty_iv_span(&a->d_iv), y = ty_iv_span(&b->d_iv);
    return x < y ? -1 : x > y;
  }
  case TP_STR: {
    uint32_t n = CZ_MIN(a->d_str.s_len, b->d_str.s_len);
    int c = n ? memcmp(a->d_str.s_ptr, b->d_str.s_ptr, n) : 0;
    if (c)
      return c < 0 ? -1 : 1;
    return a->d_str.s_len < b->d_str.s_len ? -1 : a->d_str.s_len > b->d_str.s_len;
  }
  }
  return 0;
}

uint64_t datum_hash(ty_phys_t p, const datum_t *d)
{
  switch (p) {
  case TP_BOOL:
    return hash64_int(d->d_bool);
  case TP_I64:
    return hash64_int((uint64_t)d->d_i64);
  case TP_F64: {
    double x = d->d_f64;
    uint64_t bits;
    if (x == 0)
      x = 0; /* -0 and 0 are equal */
    if (x != x)
      bits = 0x7ff8000000000000ull; /* every NaN is equal */
    else
      memcpy(&bits, &x, sizeof(bits));
    return hash64_int(bits);
  }
  case TP_NUM: {
    __int128 v = d->d_num.n_val;
    int scale = d->d_num.n_scale;
    while (scale > 0 && v % 10 == 0) {
      v /= 10;
      scale--;
    }
    uint64_t lo = (uint64_t)v, hi = (uint64_t)((unsigned __int128)v >> 64);
    return hash64_int(lo ^ hash64_int(hi ^ (uint64_t)scale * 0x9e3779b97f4a7c15ull));
  }
  case TP_STR:
    return hash64(d->d_str.s_ptr, d->d_str.s_len, 0);
  case TP_IV: {
    /* the justified length, so 1 mon and 30 days meet (interval_hash) */
    unsigned __int128 v = (unsigned __int128)ty_iv_span(&d->d_iv);
    return hash64_int((uint64_t)v ^ hash64_int((uint64_t)(v >> 64)));
  }
  }
  return 0;
}

int datum_cmp_t(ty_id_t id, const datum_t *a, const datum_t *b)
{
  if (id == TY_JSONB)
    return ty_jsonb_text_cmp(&a->d_str, &b->d_str);
  return datum_cmp(ty_phys(id), a, b);
}

uint64_t datum_hash_t(ty_id_t id, const datum_t *d)
{
  if (id == TY_JSONB)
    return ty_jsonb_text_hash(&d->d_str);
  return datum_hash(ty_phys(id), d);
}
