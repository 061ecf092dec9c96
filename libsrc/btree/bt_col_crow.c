/* bt_col_crow.c — column rows: the values of a column tree.
 *
 * Design notes: a column row is self-describing (each value carries its
 * physical kind), so log records and undo images, which hold value bytes,
 * replay through the entry API without a schema, and a segment can be
 * rebuilt from rows alone. Layout (little-endian):
 *   u16 ncols | per column: u8 tag (ty_phys_t, | 0x80 when NULL)
 *   then unless NULL: BOOL 1, I64 8, F64 8, NUM 16 + u16 scale,
 *   STR u32 length + bytes.
 */
#include <string.h>

#include "btree/bt_col_int.h"

#define CROW_NULL 0x80

static size_t value_size(ty_phys_t k, const datum_t *d)
{
  if (d->d_null)
    return 1;
  switch (k) {
  case TP_BOOL: return 2;
  case TP_I64:
  case TP_F64: return 9;
  case TP_NUM: return 19;
  case TP_STR: return 5 + (size_t)d->d_str.s_len;
  default: return 0;
  }
}

size_t bt_crow_size(const ty_phys_t *kinds, const datum_t *vals, int n)
{
  size_t sz = 2;
  for (int i = 0; i < n; i++) {
    if (kinds[i] == TP_IV)
      return 0;
    sz += value_size(kinds[i], &vals[i]);
  }
  return sz;
}

int bt_crow_build(const ty_phys_t *kinds, const datum_t *vals, int n, uint8_t *out, size_t cap,
                  size_t *len, err_t *e)
{
  if (n < 0 || n >= BTC_MAX_COLS)
    return err_set(e, SQLSTATE_TOO_MANY_COLUMNS, "column tree: %d value columns (at most %d)", n,
                   BTC_MAX_COLS - 1);
  size_t sz = bt_crow_size(kinds, vals, n);
  if (sz == 0)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "column tree: INTERVAL values have no column form yet");
  if (sz > BTC_MAX_CROW)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "column tree: row of %zu bytes is longer than %d", sz,
                   BTC_MAX_CROW);
  if (sz > cap)
    return err_set(e, SQLSTATE_INTERNAL, "bt_crow_build: %zu bytes into %zu", sz, cap);
  uint8_t *p = out;
  bt_st16(p, (uint16_t)n);
  p += 2;
  for (int i = 0; i < n; i++) {
    const datum_t *d = &vals[i];
    *p++ = (uint8_t)(kinds[i] | (d->d_null ? CROW_NULL : 0));
    if (d->d_null)
      continue;
    switch (kinds[i]) {
    case TP_BOOL: *p++ = d->d_bool ? 1 : 0; break;
    case TP_I64: memcpy(p, &d->d_i64, 8); p += 8; break;
    case TP_F64: memcpy(p, &d->d_f64, 8); p += 8; break;
    case TP_NUM:
      memcpy(p, &d->d_num.n_val, 16);
      bt_st16(p + 16, (uint16_t)d->d_num.n_scale);
      p += 18;
      break;
    case TP_STR:
      bt_st32(p, d->d_str.s_len);
      if (d->d_str.s_len)
        memcpy(p + 4, d->d_str.s_ptr, d->d_str.s_len);
      p += 4 + d->d_str.s_len;
      break;
    default: break;
    }
  }
  *len = (size_t)(p - out);
  return CZ_OK;
}

int bt_crow_parse(const uint8_t *row, size_t len, int max, ty_phys_t *kinds, datum_t *vals, int *n,
                  err_t *e)
{
  if (len < 2)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "column row of %zu bytes", len);
  int nc = bt_ld16(row);
  if (nc > max)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "column row of %d columns (at most %d)", nc, max);
  const uint8_t *p = row + 2, *end = row + len;
  for (int i = 0; i < nc; i++) {
    if (p >= end)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column row ends in column %d", i);
    uint8_t tag = *p++;
    ty_phys_t k = (ty_phys_t)(tag & 0x0F);
    datum_t *d = &vals[i];
    memset(d, 0, sizeof *d);
    if (k > TP_STR || (tag & 0x70))
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column row: column %d has tag %u", i, tag);
    kinds[i] = k;
    if (tag & CROW_NULL) {
      d->d_null = true;
      continue;
    }
    size_t need = k == TP_BOOL ? 1 : k == TP_NUM ? 18 : k == TP_STR ? 4 : 8;
    if ((size_t)(end - p) < need)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "column row ends in column %d", i);
    switch (k) {
    case TP_BOOL: d->d_bool = *p ? 1 : 0; break;
    case TP_I64: memcpy(&d->d_i64, p, 8); break;
    case TP_F64: memcpy(&d->d_f64, p, 8); break;
    case TP_NUM:
      memcpy(&d->d_num.n_val, p, 16);
      d->d_num.n_scale = (int16_t)bt_ld16(p + 16);
      break;
    default: {
      uint32_t sl = bt_ld32(p);
      if ((size_t)(end - p) - 4 < sl)
        return err_set(e, SQLSTATE_DATA_CORRUPTED, "column row: string of column %d runs past the row", i);
      d->d_str.s_ptr = (const char *)p + 4;
      d->d_str.s_len = sl;
      need = 4 + sl;
      break;
    }
    }
    p += need;
  }
  if (p != end)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "column row: %zu bytes after the last column",
                   (size_t)(end - p));
  *n = nc;
  return CZ_OK;
}
