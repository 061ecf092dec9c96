/* ty_binary — PostgreSQL's binary send/receive formats: big-endian
 * integers and IEEE floats, one byte for bool, raw bytes for strings,
 * int32 days for DATE and int64 microseconds for TIMESTAMP (both from
 * 2000-01-01, so unchanged), and NUMERIC as base-10000 digits:
 * int16 ndigits, int16 weight, uint16 sign, uint16 dscale, ndigits uint16.
 */
#include <string.h>

#include "types/ty_wide.h"
#include "types/types_int.h"

#define TY_NUM_POS 0x0000
#define TY_NUM_NEG 0x4000

static uint64_t ty_get_be(const uint8_t *b, int n)
{
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v = v << 8 | b[i];
  return v;
}

static void ty_put_be(uint8_t *b, uint64_t v, int n)
{
  for (int i = n - 1; i >= 0; i--, v >>= 8)
    b[i] = (uint8_t)v;
}

static int ty_bin_bad(ty_t t, err_t *e)
{
  return err_set(e, SQLSTATE_INVALID_BINARY_REPRESENTATION, "incorrect binary data format for type %s",
                 t.t_id == TY_NUMERIC ? "numeric" : "value");
}

static int ty_num_recv(const uint8_t *b, size_t len, num_t *out, err_t *e)
{
  if (len < 8)
    return err_set(e, SQLSTATE_INVALID_BINARY_REPRESENTATION, "insufficient data left in message");
  int ndig = (int16_t)ty_get_be(b, 2);
  int weight = (int16_t)ty_get_be(b + 2, 2);
  unsigned sign = (unsigned)ty_get_be(b + 4, 2);
  int dscale = (int)ty_get_be(b + 6, 2);
  if (ndig < 0 || len != 8 + 2 * (size_t)ndig)
    return err_set(e, SQLSTATE_INVALID_BINARY_REPRESENTATION, "invalid length in external \"numeric\" value");
  if (sign != TY_NUM_POS && sign != TY_NUM_NEG) {
    if (sign == 0xC000 || sign == 0xD000 || sign == 0xF000)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "numeric NaN and Infinity are not supported");
    return err_set(e, SQLSTATE_INVALID_BINARY_REPRESENTATION, "invalid sign in external \"numeric\" value");
  }
  if (dscale > 0x3FFF)
    return err_set(e, SQLSTATE_INVALID_BINARY_REPRESENTATION, "invalid scale in external \"numeric\" value");
  /* Digits below the scale are truncated away, as numeric_recv does; a
   * scale beyond 38 is cut to 38 the same way. */
  int scale = CZ_MIN(dscale, NUM_MAX_DIGITS);
  u256_t m = u256_from(0);
  for (int i = 0; i < ndig; i++) {
    unsigned d = (unsigned)ty_get_be(b + 8 + 2 * i, 2);
    if (d >= 10000)
      return err_set(e, SQLSTATE_INVALID_BINARY_REPRESENTATION, "invalid digit in external \"numeric\" value");
    /* Digit i is worth d * 10^(4*(weight-i)); at our scale 10^(p). */
    int p = 4 * (weight - i) + scale;
    if (p <= -4)
      break;
    u128_t part;
    if (p < 0) {
      part = d / (unsigned)ty_pow10_u128(-p);
      p = 0;
    } else {
      part = d;
    }
    if (p > 38 && part != 0)
      return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value overflows numeric format");
    if (part == 0)
      continue;
    m = u256_add(m, u256_mul128(part, ty_pow10_u128(p)));
    if (u256_cmp(m, u256_from(ty_pow10_u128(NUM_MAX_DIGITS))) >= 0)
      return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value overflows numeric format");
  }
  out->n_val = sign == TY_NUM_NEG ? -(__int128)m.w_lo : (__int128)m.w_lo;
  out->n_scale = (int16_t)scale;
  return CZ_OK;
}

static int ty_num_send(const num_t *n, uint8_t *out)
{
  unsigned __int128 m = n->n_val < 0 ? (unsigned __int128)0 - (unsigned __int128)n->n_val
                                     : (unsigned __int128)n->n_val;
  int scale = n->n_scale;
  /* Decimal digits laid out so the point falls on a group boundary: the
   * integer part left-padded and the fraction right-padded to groups of 4. */
  char dig[48];
  int nd = ty_u128_to_dec(m, dig);
  int nint = nd > scale ? nd - scale : 0;
  int intgroups = (nint + 3) / 4, fracgroups = (scale + 3) / 4;
  int total = intgroups + fracgroups;
  char lay[24 * 4];
  int l = 0;
  for (int k = nint; k < intgroups * 4; k++)
    lay[l++] = '0';
  memcpy(lay + l, dig, (size_t)nint);
  l += nint;
  for (int k = nd - nint; k < scale; k++) /* fraction's leading zeros */
    lay[l++] = '0';
  memcpy(lay + l, dig + nint, (size_t)(nd - nint));
  l += nd - nint;
  while (l < total * 4)
    lay[l++] = '0';
  uint16_t groups[24];
  for (int g = 0; g < total; g++)
    groups[g] = (uint16_t)((lay[4 * g] - '0') * 1000 + (lay[4 * g + 1] - '0') * 100 +
                           (lay[4 * g + 2] - '0') * 10 + (lay[4 * g + 3] - '0'));
  int first = 0, last = total;
  while (first < last && groups[first] == 0)
    first++;
  while (last > first && groups[last - 1] == 0)
    last--;
  int ndig = last - first;
  int weight = ndig ? intgroups - 1 - first : 0;
  ty_put_be(out, (uint64_t)ndig, 2);
  ty_put_be(out + 2, (uint64_t)(uint16_t)weight, 2);
  ty_put_be(out + 4, n->n_val < 0 ? TY_NUM_NEG : TY_NUM_POS, 2);
  ty_put_be(out + 6, (uint64_t)scale, 2);
  for (int g = 0; g < ndig; g++)
    ty_put_be(out + 8 + 2 * g, groups[first + g], 2);
  return 8 + 2 * ndig;
}

int ty_parse_binary(ty_t t, const uint8_t *b, size_t len, arena_t *a, datum_t *out, err_t *e)
{
  memset(out, 0, sizeof(*out));
  switch (t.t_id) {
  case TY_BOOL:
    if (len != 1)
      return ty_bin_bad(t, e);
    out->d_bool = b[0] != 0;
    return CZ_OK;
  case TY_INT2:
    if (len != 2)
      return ty_bin_bad(t, e);
    out->d_i64 = (int16_t)ty_get_be(b, 2);
    return CZ_OK;
  case TY_INT4:
  case TY_DATE:
    if (len != 4)
      return ty_bin_bad(t, e);
    out->d_i64 = (int32_t)ty_get_be(b, 4);
    return CZ_OK;
  case TY_INT8:
  case TY_TIMESTAMP:
    if (len != 8)
      return ty_bin_bad(t, e);
    out->d_i64 = (int64_t)ty_get_be(b, 8);
    return CZ_OK;
  case TY_TIMESTAMPTZ: /* timestamptz_recv: int64 µs since 2000-01-01 UTC */
    if (len != 8)
      return ty_bin_bad(t, e);
    out->d_i64 = (int64_t)ty_get_be(b, 8);
    if (out->d_i64 != INT64_MIN && out->d_i64 != INT64_MAX && !ty_ts_in_range(out->d_i64))
      return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "timestamp out of range");
    return ty_apply_mods(t, out, false, a, e);
  case TY_TIME: /* time_recv: int64 µs since midnight */
  case TY_TIMETZ: { /* timetz_recv: that, then int32 zone in seconds west */
    if (len != (t.t_id == TY_TIME ? 8u : 12u))
      return ty_bin_bad(t, e);
    int64_t us = (int64_t)ty_get_be(b, 8);
    if (us < 0 || us > TY_USECS_PER_DAY)
      return err_set(e, SQLSTATE_INVALID_BINARY_REPRESENTATION, "time out of range");
    if (t.t_id == TY_TIME) {
      out->d_i64 = us;
    } else {
      int32_t zone = (int32_t)ty_get_be(b + 8, 4);
      if (zone < -TY_TIMETZ_MAX_ZONE || zone > TY_TIMETZ_MAX_ZONE)
        return err_set(e, SQLSTATE_INVALID_BINARY_REPRESENTATION, "time zone displacement out of range");
      out->d_i64 = ty_timetz_pack(us, zone);
    }
    return ty_apply_mods(t, out, false, a, e);
  }
  case TY_FLOAT4: {
    if (len != 4)
      return ty_bin_bad(t, e);
    uint32_t bits = (uint32_t)ty_get_be(b, 4);
    float f;
    memcpy(&f, &bits, 4);
    out->d_f64 = f;
    return CZ_OK;
  }
  case TY_FLOAT8: {
    if (len != 8)
      return ty_bin_bad(t, e);
    uint64_t bits = ty_get_be(b, 8);
    memcpy(&out->d_f64, &bits, 8);
    return CZ_OK;
  }
  case TY_INTERVAL:
    /* interval_recv: int64 µs, int32 days, int32 months */
    if (len != 16)
      return ty_bin_bad(t, e);
    out->d_iv.iv_us = (int64_t)ty_get_be(b, 8);
    out->d_iv.iv_days = (int32_t)ty_get_be(b + 8, 4);
    out->d_iv.iv_months = (int32_t)ty_get_be(b + 12, 4);
    ty_iv_apply_typmod(t, &out->d_iv);
    return CZ_OK;
  case TY_NUMERIC:
    if (ty_num_recv(b, len, &out->d_num, e) != CZ_OK)
      return CZ_ERR;
    return ty_num_apply_typmod(&out->d_num, t.t_prec, t.t_scale, &out->d_num, e);
  case TY_JSON:
    return ty_json_input(false, (const char *)b, len, a, &out->d_str, e);
  case TY_JSONB:
    /* jsonb_recv: a version byte (1), then the text */
    if (len < 1 || b[0] != 1)
      return err_set(e, SQLSTATE_INVALID_BINARY_REPRESENTATION, "unsupported jsonb version number %d",
                     len ? b[0] : 0);
    return ty_json_input(true, (const char *)b + 1, len - 1, a, &out->d_str, e);
  default: {
    char *p = arena_alloc(a, len ? len : 1);
    if (len)
      memcpy(p, b, len);
    str_t s = {p, (uint32_t)len};
    return ty_str_apply_len(t, s, false, a, &out->d_str, e);
  }
  }
}

size_t ty_binary_max(ty_t t, const datum_t *d)
{
  if (d->d_null)
    return 0;
  if (t.t_id == TY_TEXT && t.t_elem != TY_UNKNOWN)
    return ty_array_binary_max(d);  /* ty_array_bin.c */
  switch (t.t_id) {
  case TY_BOOL:
    return 1;
  case TY_INT2:
    return 2;
  case TY_INT4:
  case TY_DATE:
  case TY_FLOAT4:
    return 4;
  case TY_INT8:
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
  case TY_TIME:
  case TY_FLOAT8:
    return 8;
  case TY_TIMETZ:
    return 12;
  case TY_NUMERIC:
    return 8 + 2 * 24;
  case TY_INTERVAL:
    return 16;
  case TY_JSONB:
    return 1 + (size_t)d->d_str.s_len;
  default:
    return d->d_str.s_len;
  }
}

int ty_format_binary(ty_t t, const datum_t *d, uint8_t *out, size_t cap)
{
  size_t need = ty_binary_max(t, d);
  if (d->d_null)
    return 0;
  if (t.t_id == TY_TEXT && t.t_elem != TY_UNKNOWN)
    return ty_array_format_binary(t, d, out, cap);  /* ty_array_bin.c */
  if (t.t_id == TY_NUMERIC) {
    uint8_t tmp[8 + 2 * 24];
    int n = ty_num_send(&d->d_num, tmp);
    if ((size_t)n > cap)
      return -1;
    memcpy(out, tmp, (size_t)n);
    return n;
  }
  if (cap < need)
    return -1;
  switch (t.t_id) {
  case TY_BOOL:
    out[0] = d->d_bool ? 1 : 0;
    break;
  case TY_INT2:
  case TY_INT4:
  case TY_INT8:
  case TY_DATE:
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
  case TY_TIME:
    ty_put_be(out, (uint64_t)d->d_i64, (int)need);
    break;
  case TY_TIMETZ: {
    int64_t us;
    int32_t zone;
    ty_timetz_unpack(d->d_i64, &us, &zone);
    ty_put_be(out, (uint64_t)us, 8);
    ty_put_be(out + 8, (uint32_t)zone, 4);
    break;
  }
  case TY_FLOAT4: {
    float f = (float)d->d_f64;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    ty_put_be(out, bits, 4);
    break;
  }
  case TY_FLOAT8: {
    uint64_t bits;
    memcpy(&bits, &d->d_f64, 8);
    ty_put_be(out, bits, 8);
    break;
  }
  case TY_INTERVAL:
    ty_put_be(out, (uint64_t)d->d_iv.iv_us, 8);
    ty_put_be(out + 8, (uint32_t)d->d_iv.iv_days, 4);
    ty_put_be(out + 12, (uint32_t)d->d_iv.iv_months, 4);
    break;
  case TY_JSONB:
    out[0] = 1; /* jsonb_send's version */
    if (need > 1)
      memcpy(out + 1, d->d_str.s_ptr, need - 1);
    break;
  default:
    if (need)
      memcpy(out, d->d_str.s_ptr, need);
    break;
  }
  return (int)need;
}
