/* tb_key — the order-preserving key encoding: memcmp order of encodings
 * equals the SQL order of the values (datum_cmp), NULL after every value.
 *
 * Design notes (table/README.md, "Key encoding", has the byte layout):
 * - Each column is a marker byte (0x01 value, 0x02 NULL) then a
 *   self-delimiting body, so a composite key is the concatenation and a
 *   prefix of the columns is a byte prefix of the key.
 * - Integers: big-endian with the sign bit flipped, in the type's width.
 *   Floats: IEEE bits, all flipped for negatives, the sign flipped for
 *   positives; -0 is 0, every NaN the one NaN, above +Infinity (as
 *   PostgreSQL orders them).
 * - NUMERIC: sign class, then for non-zero values a decimal exponent and
 *   the significant digits as nibbles (digit+1) ended by a 0 nibble; all
 *   complemented for negatives. 1.0 and 1.00 encode alike (as they compare).
 * - Strings and BYTEA: the bytes with 0x00 escaped as 0x00 0xFF, ended by
 *   0x00 0x01.
 */
#include <string.h>

#include "table/tb_int.h"

#define KM_VALUE 0x01
#define KM_NULL 0x02

#define TY_USECS_PER_DAY_KEY INT64_C(86400000000)

#define KN_NEG 0x10
#define KN_ZERO 0x20
#define KN_POS 0x30

/* Writes byte b at out[n] when it fits; returns n + 1. */
static inline size_t kput(uint8_t *out, size_t cap, size_t n, uint8_t b)
{
  if (n < cap)
    out[n] = b;
  return n + 1;
}

static size_t key_put_uint(uint8_t *out, size_t cap, size_t n, uint64_t v, int bytes)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* the whole width fits (the usual case): one store, not a byte loop
   * (key encoding was a tenth of an RDF load's instructions) */
  if (n + (size_t)bytes <= cap) {
    uint64_t be = __builtin_bswap64(v << (64 - 8 * bytes));
    memcpy(out + n, &be, (size_t)bytes);
    return n + (size_t)bytes;
  }
#endif
  for (int i = bytes - 1; i >= 0; i--)
    n = kput(out, cap, n, (uint8_t)(v >> (8 * i)));
  return n;
}

static int key_int_width(ty_id_t id)
{
  switch (id) {
  case TY_INT2:
    return 2;
  case TY_INT4:
  case TY_DATE:
    return 4;
  default:
    return 8;
  }
}

static uint64_t key_f64_bits(double d)
{
  if (d != d)
    d = __builtin_nan("");
  if (d == 0)
    d = 0; /* -0 == 0 */
  uint64_t u;
  memcpy(&u, &d, 8);
  if (d != d)
    u = 0x7ff8000000000000ull;
  return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}

static double key_f64_from_bits(uint64_t u)
{
  u = (u >> 63) ? (u & ~0x8000000000000000ull) : ~u;
  double d;
  memcpy(&d, &u, 8);
  return d;
}

/* Decimal digits of |v| (most significant first); returns the count. */
static int key_num_digits(__int128 v, char digits[40])
{
  unsigned __int128 u = v < 0 ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
  char tmp[40];
  int n = 0;
  while (u) {
    tmp[n++] = (char)(u % 10);
    u /= 10;
  }
  for (int i = 0; i < n; i++)
    digits[i] = tmp[n - 1 - i];
  return n;
}

static size_t key_put_num(uint8_t *out, size_t cap, size_t n, const num_t *x)
{
  if (x->n_val == 0)
    return kput(out, cap, n, KN_ZERO);
  char dg[40];
  int nd = key_num_digits(x->n_val, dg);
  int exp = nd - x->n_scale;
  while (nd > 1 && dg[nd - 1] == 0)
    nd--;
  bool neg = x->n_val < 0;
  uint8_t flip = neg ? 0xff : 0x00;
  n = kput(out, cap, n, neg ? KN_NEG : KN_POS);
  n = kput(out, cap, n, (uint8_t)((exp + 128) ^ flip));
  for (int i = 0; i <= nd; i += 2) {
    uint8_t hi = (uint8_t)(i < nd ? dg[i] + 1 : 0);
    uint8_t lo = (uint8_t)(i + 1 < nd ? dg[i + 1] + 1 : 0);
    n = kput(out, cap, n, (uint8_t)(((hi << 4) | lo) ^ flip));
  }
  return n;
}

static size_t key_put_str(uint8_t *out, size_t cap, size_t n, const str_t *s)
{
  const uint8_t *p = (const uint8_t *)s->s_ptr;
  /* no zero byte to escape and room for all: copy the bytes at once */
  if (n + s->s_len + 2 <= cap && (s->s_len == 0 || !memchr(p, 0, s->s_len))) {
    if (s->s_len)
      memcpy(out + n, p, s->s_len);
    n += s->s_len;
    out[n] = 0x00;
    out[n + 1] = 0x01;
    return n + 2;
  }
  for (uint32_t i = 0; i < s->s_len; i++) {
    n = kput(out, cap, n, p[i]);
    if (p[i] == 0)
      n = kput(out, cap, n, 0xff);
  }
  n = kput(out, cap, n, 0x00);
  return kput(out, cap, n, 0x01);
}

size_t tbl_key_put(uint8_t *out, size_t cap, ty_t t, const datum_t *d)
{
  if (d->d_null)
    return kput(out, cap, 0, KM_NULL);
  size_t n = kput(out, cap, 0, KM_VALUE);
  switch (ty_phys(t.t_id)) {
  case TP_BOOL:
    return kput(out, cap, n, d->d_bool ? 1 : 0);
  case TP_I64: {
    int w = key_int_width(t.t_id);
    uint64_t v = (uint64_t)d->d_i64;
    v ^= (uint64_t)1 << (8 * w - 1);
    return key_put_uint(out, cap, n, v, w);
  }
  case TP_F64:
    return key_put_uint(out, cap, n, key_f64_bits(d->d_f64), 8);
  case TP_NUM:
    return key_put_num(out, cap, n, &d->d_num);
  case TP_IV: {
    /* the justified length (what orders and equates intervals), 128-bit
     * big-endian with the sign flipped; the parts are not kept */
    unsigned __int128 v = (unsigned __int128)ty_iv_span(&d->d_iv) ^ ((unsigned __int128)1 << 127);
    n = key_put_uint(out, cap, n, (uint64_t)(v >> 64), 8);
    return key_put_uint(out, cap, n, (uint64_t)v, 8);
  }
  case TP_STR:
    return key_put_str(out, cap, n, &d->d_str);
  }
  return n;
}

int tbl_key_encode(const ty_t *types, const datum_t *vals, int n, uint8_t *out, size_t cap,
                   size_t *len, err_t *e)
{
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    size_t w = tbl_key_put(off < cap ? out + off : out, off < cap ? cap - off : 0, types[i], &vals[i]);
    off += w;
  }
  *len = off;
  if (off > cap)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "index row requires %zu bytes, maximum size is %zu",
                   off, cap);
  return CZ_OK;
}

bool tbl_key_exact(ty_t t)
{
  ty_phys_t p = ty_phys(t.t_id);
  return p != TP_NUM && p != TP_IV;
}

/* ---- decoding ---------------------------------------------------------- */

static int key_bad(err_t *e)
{
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed key encoding");
}

static int key_get_num(const uint8_t *p, size_t len, size_t *off, num_t *out, err_t *e)
{
  size_t o = *off;
  if (o >= len)
    return key_bad(e);
  uint8_t cls = p[o++];
  if (cls == KN_ZERO) {
    out->n_val = 0;
    out->n_scale = 0;
    *off = o;
    return CZ_OK;
  }
  if (cls != KN_NEG && cls != KN_POS)
    return key_bad(e);
  uint8_t flip = cls == KN_NEG ? 0xff : 0;
  if (o >= len)
    return key_bad(e);
  int exp = (int)(uint8_t)(p[o++] ^ flip) - 128;
  __int128 v = 0;
  int nd = 0;
  for (;;) {
    if (o >= len)
      return key_bad(e);
    uint8_t b = p[o++] ^ flip;
    uint8_t nib[2] = { (uint8_t)(b >> 4), (uint8_t)(b & 0xf) };
    bool end = false;
    for (int k = 0; k < 2 && !end; k++) {
      if (nib[k] == 0) {
        end = true;
        break;
      }
      if (nib[k] > 10 || nd >= NUM_MAX_DIGITS + 1)
        return key_bad(e);
      v = v * 10 + (nib[k] - 1);
      nd++;
    }
    if (end)
      break;
  }
  /* value = 0.d1..dn * 10^exp = v * 10^(exp - nd) */
  int scale = nd - exp;
  while (scale < 0) {
    v *= 10;
    scale++;
  }
  out->n_val = cls == KN_NEG ? -v : v;
  out->n_scale = (int16_t)scale;
  *off = o;
  return CZ_OK;
}

/* An interval back from its length, justified (months of 30 days, days of
 * 24 h, signs alike): `1 mon` and `30 days` share a key, so the key alone
 * cannot tell which was stored. Past int32 months (only the largest
 * values) the rest stays in days, then in µs, which always holds it. */
static int key_get_iv(const uint8_t *p, size_t len, ty_iv_t *out)
{
  if (len < 16)
    return CZ_ERR;
  unsigned __int128 u = 0;
  for (int k = 0; k < 16; k++)
    u = (u << 8) | p[k];
  __int128 span = (__int128)(u ^ ((unsigned __int128)1 << 127));
  const __int128 day = TY_USECS_PER_DAY_KEY, month = day * 30;
  __int128 months = span / month;
  months = months > INT32_MAX ? INT32_MAX : months < INT32_MIN ? INT32_MIN : months;
  __int128 rest = span - months * month, days = rest / day;
  days = days > INT32_MAX ? INT32_MAX : days < INT32_MIN ? INT32_MIN : days;
  rest -= days * day;
  if (rest > INT64_MAX || rest < INT64_MIN)
    return CZ_ERR;
  out->iv_months = (int32_t)months;
  out->iv_days = (int32_t)days;
  out->iv_us = (int64_t)rest;
  return CZ_OK;
}

static int key_get_str(const uint8_t *p, size_t len, size_t *off, arena_t *a, str_t *out, err_t *e)
{
  size_t o = *off, n = 0;
  /* First pass: the decoded length and the end. */
  size_t i = o;
  for (;;) {
    if (i >= len)
      return key_bad(e);
    if (p[i] == 0) {
      if (i + 1 >= len)
        return key_bad(e);
      if (p[i + 1] == 0x01)
        break;
      if (p[i + 1] != 0xff)
        return key_bad(e);
      i += 2;
    } else {
      i++;
    }
    n++;
  }
  char *s = n ? arena_alloc(a, n) : NULL;
  size_t k = 0;
  for (size_t j = o; j < i;) {
    s[k++] = (char)p[j];
    j += p[j] == 0 ? 2 : 1;
  }
  out->s_ptr = s ? s : "";
  out->s_len = (uint32_t)n;
  *off = i + 2;
  return CZ_OK;
}

int tbl_key_decode(const ty_t *types, int n, const uint8_t *p, size_t len, arena_t *a,
                   datum_t *out, size_t *used, err_t *e)
{
  size_t o = 0;
  for (int i = 0; i < n; i++) {
    datum_t *d = &out[i];
    memset(d, 0, sizeof *d);
    if (o >= len)
      return key_bad(e);
    uint8_t m = p[o++];
    if (m == KM_NULL) {
      d->d_null = true;
      continue;
    }
    if (m != KM_VALUE)
      return key_bad(e);
    switch (ty_phys(types[i].t_id)) {
    case TP_BOOL:
      if (o >= len)
        return key_bad(e);
      d->d_bool = p[o++];
      break;
    case TP_I64: {
      int w = key_int_width(types[i].t_id);
      if (o + (size_t)w > len)
        return key_bad(e);
      uint64_t v = 0;
      for (int k = 0; k < w; k++)
        v = (v << 8) | p[o + k];
      o += (size_t)w;
      v ^= (uint64_t)1 << (8 * w - 1);
      /* sign-extend from the width */
      if (w < 8 && (v >> (8 * w - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * w);
      d->d_i64 = (int64_t)v;
      break;
    }
    case TP_F64: {
      if (o + 8 > len)
        return key_bad(e);
      uint64_t v = 0;
      for (int k = 0; k < 8; k++)
        v = (v << 8) | p[o + k];
      o += 8;
      d->d_f64 = key_f64_from_bits(v);
      break;
    }
    case TP_NUM:
      if (key_get_num(p, len, &o, &d->d_num, e) != CZ_OK)
        return CZ_ERR;
      break;
    case TP_IV:
      if (key_get_iv(p + o, len - o, &d->d_iv) != CZ_OK)
        return key_bad(e);
      o += 16;
      break;
    case TP_STR:
      if (key_get_str(p, len, &o, a, &d->d_str, e) != CZ_OK)
        return CZ_ERR;
      break;
    }
  }
  if (used)
    *used = o;
  return CZ_OK;
}

size_t tbl_key_skip(const ty_t *types, int n, const uint8_t *p, size_t len)
{
  size_t o = 0;
  for (int i = 0; i < n && o < len; i++) {
    uint8_t m = p[o++];
    if (m == KM_NULL)
      continue;
    switch (ty_phys(types[i].t_id)) {
    case TP_BOOL:
      o += 1;
      break;
    case TP_I64:
      o += (size_t)key_int_width(types[i].t_id);
      break;
    case TP_F64:
      o += 8;
      break;
    case TP_IV:
      o += 16;
      break;
    case TP_NUM:
      if (o < len && p[o] == KN_ZERO) {
        o++;
        break;
      }
      {
        uint8_t flip = (o < len && p[o] == KN_NEG) ? 0xff : 0;
        o += 2;
        while (o < len) {
          uint8_t b = p[o++] ^ flip;
          if ((b >> 4) == 0 || (b & 0xf) == 0)
            break;
        }
      }
      break;
    case TP_STR:
      while (o + 1 < len && !(p[o] == 0 && p[o + 1] == 0x01))
        o += p[o] == 0 ? 2 : 1;
      o += 2;
      break;
    }
  }
  return CZ_MIN(o, len);
}
