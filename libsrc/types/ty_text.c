/* ty_text — the text form of every type: parsing what clients send and
 * formatting what PostgreSQL would send, dispatching to the per-type files
 * (ty_num_text.c, ty_float.c, ty_date.c, ty_bytea.c, ty_str.c). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "types/types_int.h"

int ty_i64_format(int64_t v, char *out)
{
  /* Digits backwards into a local buffer, two at a time: sprintf is
   * several times slower and integers are the commonest output. */
  static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                              "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                              "8081828384858687888990919293949596979899";
  char tmp[24];
  int p = 24;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  while (u >= 100) {
    unsigned d = (unsigned)(u % 100);
    u /= 100;
    tmp[--p] = pairs[2 * d + 1];
    tmp[--p] = pairs[2 * d];
  }
  if (u >= 10) {
    tmp[--p] = pairs[2 * u + 1];
    tmp[--p] = pairs[2 * u];
  } else {
    tmp[--p] = (char)('0' + u);
  }
  if (v < 0)
    tmp[--p] = '-';
  int n = 24 - p;
  memcpy(out, tmp + p, (size_t)n);
  out[n] = '\0';
  return n;
}

static const char *ty_int_name(ty_id_t id)
{
  return id == TY_INT2 ? "smallint" : id == TY_INT4 ? "integer" : "bigint";
}

/* PostgreSQL's pg_strtoint16/32/64: blanks around, a sign, digits. */
static int ty_int_parse(ty_id_t id, const char *s, size_t len, int64_t *out, err_t *e)
{
  size_t i = 0, end = len;
  while (i < end && isspace((unsigned char)s[i]))
    i++;
  while (end > i && isspace((unsigned char)s[end - 1]))
    end--;
  bool neg = false;
  if (i < end && (s[i] == '+' || s[i] == '-'))
    neg = s[i++] == '-';
  if (i == end)
    goto bad;
  /* Accumulate negatively so INT64_MIN parses without overflow. */
  int64_t v = 0;
  bool range = false;
  for (; i < end; i++) {
    if (!isdigit((unsigned char)s[i]))
      goto bad;
    int dgt = s[i] - '0';
    if (v < (INT64_MIN + dgt) / 10)
      range = true;
    else
      v = v * 10 - dgt;
  }
  if (!neg) {
    if (v == INT64_MIN)
      range = true;
    v = -v;
  }
  int64_t lo = id == TY_INT2 ? INT16_MIN : id == TY_INT4 ? INT32_MIN : INT64_MIN;
  int64_t hi = id == TY_INT2 ? INT16_MAX : id == TY_INT4 ? INT32_MAX : INT64_MAX;
  if (range || v < lo || v > hi)
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "value \"%.*s\" is out of range for type %s",
                   (int)CZ_MIN(len, 200), s, ty_int_name(id));
  *out = v;
  return CZ_OK;
bad:
  return err_set(e, SQLSTATE_INVALID_TEXT, "invalid input syntax for type %s: \"%.*s\"",
                 ty_int_name(id), (int)CZ_MIN(len, 200), s);
}

/* PostgreSQL's boolin: any unambiguous prefix of true/false/yes/no, on/off
 * (at least "on"/"of"), 1/0, in any case, blanks around. */
static int ty_bool_parse(const char *s, size_t len, uint8_t *out, err_t *e)
{
  size_t i = 0, end = len;
  while (i < end && isspace((unsigned char)s[i]))
    i++;
  while (end > i && isspace((unsigned char)s[end - 1]))
    end--;
  const char *w = s + i;
  size_t n = end - i;
  if (n > 0) {
    switch (tolower((unsigned char)w[0])) {
    case 't':
      if (strncasecmp(w, "true", n) == 0 && n <= 4) { *out = 1; return CZ_OK; }
      break;
    case 'f':
      if (strncasecmp(w, "false", n) == 0 && n <= 5) { *out = 0; return CZ_OK; }
      break;
    case 'y':
      if (strncasecmp(w, "yes", n) == 0 && n <= 3) { *out = 1; return CZ_OK; }
      break;
    case 'n':
      if (strncasecmp(w, "no", n) == 0 && n <= 2) { *out = 0; return CZ_OK; }
      break;
    case 'o':
      if (n >= 2 && strncasecmp(w, "on", n) == 0 && n <= 2) { *out = 1; return CZ_OK; }
      if (n >= 2 && strncasecmp(w, "off", n) == 0 && n <= 3) { *out = 0; return CZ_OK; }
      break;
    case '1':
      if (n == 1) { *out = 1; return CZ_OK; }
      break;
    case '0':
      if (n == 1) { *out = 0; return CZ_OK; }
      break;
    default:
      break;
    }
  }
  return err_set(e, SQLSTATE_INVALID_TEXT, "invalid input syntax for type boolean: \"%.*s\"",
                 (int)CZ_MIN(len, 200), s);
}

int ty_parse_text(ty_t t, const char *s, size_t len, arena_t *a, datum_t *out, err_t *e)
{
  memset(out, 0, sizeof(*out));
  switch (t.t_id) {
  case TY_BOOL:
    return ty_bool_parse(s, len, &out->d_bool, e);
  case TY_INT2:
  case TY_INT4:
  case TY_INT8:
    return ty_int_parse(t.t_id, s, len, &out->d_i64, e);
  case TY_FLOAT4:
  case TY_FLOAT8:
    return ty_f64_parse(s, len, t.t_id == TY_FLOAT4, &out->d_f64, e);
  case TY_NUMERIC:
    if (ty_num_parse(s, len, &out->d_num, e) != CZ_OK)
      return CZ_ERR;
    return ty_num_apply_typmod(&out->d_num, t.t_prec, t.t_scale, &out->d_num, e);
  case TY_DATE:
    return ty_date_parse(s, len, &out->d_i64, e);
  case TY_TIMESTAMP:
    if (ty_ts_parse(s, len, &out->d_i64, e) != CZ_OK)
      return CZ_ERR;
    if (t.t_prec >= 0 && t.t_prec < 6)
      out->d_i64 = ty_ts_round(out->d_i64, t.t_prec);
    return CZ_OK;
  case TY_INTERVAL:
    return ty_iv_parse(t, s, len, &out->d_iv, e);
  case TY_TIMESTAMPTZ:
    if (ty_tstz_parse(s, len, &out->d_i64, e) != CZ_OK)
      return CZ_ERR;
    if (t.t_prec >= 0 && t.t_prec < 6)
      out->d_i64 = ty_ts_round(out->d_i64, t.t_prec);
    return CZ_OK;
  case TY_TIME:
    if (ty_time_parse(s, len, &out->d_i64, e) != CZ_OK)
      return CZ_ERR;
    out->d_i64 = ty_time_round(out->d_i64, t.t_prec);
    return CZ_OK;
  case TY_TIMETZ:
    if (ty_timetz_parse(s, len, &out->d_i64, e) != CZ_OK)
      return CZ_ERR;
    return ty_apply_mods(t, out, false, a, e);
  case TY_BYTEA:
    return ty_bytea_parse(s, len, a, &out->d_str, e);
  case TY_JSON:
  case TY_JSONB:
    return ty_json_input(t.t_id == TY_JSONB, s, len, a, &out->d_str, e);
  case TY_CHAR:
  case TY_VARCHAR:
  case TY_TEXT:
  case TY_UNKNOWN:
  case TY_COUNT_: {
    char *p = arena_alloc(a, len ? len : 1);
    memcpy(p, s, len);
    str_t in = {p, (uint32_t)len};
    return ty_str_apply_len(t, in, false, a, &out->d_str, e);
  }
  }
  return CZ_OK;
}

size_t ty_text_max(ty_t t, const datum_t *d)
{
  if (d->d_null)
    return 0;
  switch (t.t_id) {
  case TY_BOOL:
    return 1;
  case TY_INT2:
  case TY_INT4:
  case TY_INT8:
    return 20;
  case TY_FLOAT4:
  case TY_FLOAT8:
    return 32;
  case TY_NUMERIC:
    return TY_NUM_TEXT_MAX;
  case TY_DATE:
    return 32;
  case TY_TIMESTAMP:
    return 48;
  case TY_TIMESTAMPTZ:
  case TY_TIMETZ:
    return 64;
  case TY_TIME:
    return 32;
  case TY_INTERVAL:
    return TY_IV_TEXT_MAX;
  case TY_BYTEA:
    return 2 + 2 * (size_t)d->d_str.s_len;
  default:
    return d->d_str.s_len;
  }
}

int ty_format_text(ty_t t, const datum_t *d, char *out, size_t cap)
{
  size_t need = ty_text_max(t, d);
  if (d->d_null)
    return 0;
  /* The fixed-size forms are formatted into a local buffer first so that
   * the bound is exact for the caller and sprintf's NUL never overflows. */
  char tmp[64];
  int n;
  switch (t.t_id) {
  case TY_BOOL:
    if (cap < 1)
      return -1;
    out[0] = d->d_bool ? 't' : 'f';
    return 1;
  case TY_INT2:
  case TY_INT4:
  case TY_INT8:
    n = ty_i64_format(d->d_i64, tmp);
    break;
  case TY_FLOAT4:
    n = ty_f32_format((float)d->d_f64, tmp);
    break;
  case TY_FLOAT8:
    n = ty_f64_format(d->d_f64, tmp);
    break;
  case TY_NUMERIC:
    n = ty_num_format(&d->d_num, tmp);
    break;
  case TY_DATE:
    n = ty_date_format(d->d_i64, tmp);
    break;
  case TY_TIMESTAMP:
    n = ty_ts_format(d->d_i64, tmp);
    break;
  case TY_TIMESTAMPTZ:
    n = ty_tstz_format(d->d_i64, tmp);
    break;
  case TY_TIME:
    n = ty_time_format(d->d_i64, tmp);
    break;
  case TY_TIMETZ:
    n = ty_timetz_format(d->d_i64, tmp);
    break;
  case TY_INTERVAL: {
    char iv[TY_IV_TEXT_MAX];
    n = ty_iv_format(&d->d_iv, iv);
    if ((size_t)n > cap)
      return -1;
    memcpy(out, iv, (size_t)n);
    return n;
  }
  case TY_BYTEA: {
    static const char hex[] = "0123456789abcdef";
    if (cap < need)
      return -1;
    const unsigned char *p = (const unsigned char *)d->d_str.s_ptr;
    out[0] = '\\';
    out[1] = 'x';
    for (uint32_t i = 0; i < d->d_str.s_len; i++) {
      out[2 + 2 * i] = hex[p[i] >> 4];
      out[3 + 2 * i] = hex[p[i] & 15];
    }
    return (int)need;
  }
  default:
    if (cap < need)
      return -1;
    if (need)
      memcpy(out, d->d_str.s_ptr, need);
    return (int)need;
  }
  if ((size_t)n > cap)
    return -1;
  memcpy(out, tmp, (size_t)n);
  return n;
}

int ty_apply_mods(ty_t t, datum_t *d, bool truncate, arena_t *a, err_t *e)
{
  if (d->d_null)
    return CZ_OK;
  switch (t.t_id) {
  case TY_CHAR:
  case TY_VARCHAR:
    return ty_str_apply_len(t, d->d_str, truncate, a, &d->d_str, e);
  case TY_NUMERIC:
    return ty_num_apply_typmod(&d->d_num, t.t_prec, t.t_scale, &d->d_num, e);
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
    if (t.t_prec >= 0 && t.t_prec < 6)
      d->d_i64 = ty_ts_round(d->d_i64, t.t_prec);
    return CZ_OK;
  case TY_TIME:
    d->d_i64 = ty_time_round(d->d_i64, t.t_prec);
    return CZ_OK;
  case TY_TIMETZ:
    if (t.t_prec >= 0 && t.t_prec < 6) {
      int64_t tm;
      int32_t zone;
      ty_timetz_unpack(d->d_i64, &tm, &zone);
      d->d_i64 = ty_timetz_pack(ty_time_round(tm, t.t_prec), zone);
    }
    return CZ_OK;
  case TY_INTERVAL:
    ty_iv_apply_typmod(t, &d->d_iv);
    return CZ_OK;
  default:
    return CZ_OK;
  }
}
