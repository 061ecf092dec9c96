/* ty_vec — column vectors and batches: allocation in an arena and access
 * to one row as a datum. */
#include <string.h>

#include "types/types_int.h"

size_t ty_phys_size(ty_phys_t p)
{
  switch (p) {
  case TP_BOOL:
    return sizeof(uint8_t);
  case TP_I64:
    return sizeof(int64_t);
  case TP_F64:
    return sizeof(double);
  case TP_NUM:
    return sizeof(num_t);
  case TP_IV:
    return sizeof(ty_iv_t);
  case TP_STR:
    break;
  }
  return sizeof(str_t);
}

int vec_init(vec_t *v, arena_t *a, ty_t type, int cap, err_t *e)
{
  if (cap < 0)
    return err_set(e, SQLSTATE_INTERNAL, "vector capacity %d is negative", cap);
  size_t n = cap > 0 ? (size_t)cap : 1;
  v->v_type = type;
  v->v_cap = cap;
  v->v_null = arena_zalloc(a, n);
  /* Zeroed so a row never written reads as 0 / empty, not garbage. */
  v->v_data = arena_zalloc(a, n * ty_phys_size(ty_phys(type.t_id)));
  return CZ_OK;
}

batch_t *batch_create(arena_t *a, int ncols, const ty_t *types, int cap, err_t *e)
{
  batch_t *b = arena_zalloc(a, sizeof(*b));
  b->b_n = 0;
  b->b_ncols = ncols;
  b->b_cols = arena_zalloc(a, sizeof(vec_t) * (size_t)(ncols > 0 ? ncols : 1));
  for (int i = 0; i < ncols; i++)
    if (vec_init(&b->b_cols[i], a, types[i], cap, e) != CZ_OK)
      return NULL;
  return b;
}

void vec_get(const vec_t *v, int i, datum_t *out)
{
  memset(out, 0, sizeof(*out));
  if (v->v_null[i]) {
    out->d_null = true;
    return;
  }
  switch (ty_phys(v->v_type.t_id)) {
  case TP_BOOL:
    out->d_bool = v->v_bool[i];
    break;
  case TP_I64:
    out->d_i64 = v->v_i64[i];
    break;
  case TP_F64:
    out->d_f64 = v->v_f64[i];
    break;
  case TP_NUM:
    out->d_num = v->v_num[i];
    break;
  case TP_IV:
    out->d_iv = v->v_iv[i];
    break;
  case TP_STR:
    out->d_str = v->v_str[i];
    break;
  }
}

void vec_set(vec_t *v, int i, const datum_t *d)
{
  if (d->d_null) {
    v->v_null[i] = 1;
    return;
  }
  v->v_null[i] = 0;
  switch (ty_phys(v->v_type.t_id)) {
  case TP_BOOL:
    v->v_bool[i] = d->d_bool;
    break;
  case TP_I64:
    v->v_i64[i] = d->d_i64;
    break;
  case TP_F64:
    v->v_f64[i] = d->d_f64;
    break;
  case TP_NUM:
    v->v_num[i] = d->d_num;
    break;
  case TP_IV:
    v->v_iv[i] = d->d_iv;
    break;
  case TP_STR:
    v->v_str[i] = d->d_str;
    break;
  }
}
