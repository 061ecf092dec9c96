/* rdf_id — 64-bit term ids: dictionary ids and inline literal values.
 *
 * Design notes: the layout and what it guarantees are in README.md ("Term
 * ids"); in short, bit 63 set is a number (sign, 8-bit decimal exponent,
 * 15 decimal digits, 4 datatype bits), otherwise bits 62..60 are a tag and
 * bits 59..0 a dictionary number or a boolean/date/dateTime value. A value
 * is inline only if its lexical form is the canonical one, so decoding an
 * id gives back exactly the term that was encoded (RDF term identity is
 * kept: "01"^^xsd:integer and "1"^^xsd:integer stay two terms, the first in
 * the literal dictionary).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf_int.h"

#define RDF_ID_NUM_BIT (UINT64_C(1) << 63)
#define RDF_ID_PAYLOAD_MASK ((UINT64_C(1) << 60) - 1)
#define RDF_NUM_DIGITS 15
#define RDF_NUM_MANT_BITS 50
#define RDF_NUM_EXP_BIAS 128
#define RDF_NUM_SIGN_BIT (UINT64_C(1) << 58)
#define RDF_TZ_BITS 11
#define RDF_TZ_BIAS_MIN 840 /* 14 hours: keeps every instant non-negative */
#define RDF_YEAR_MAX 9999

/* Datatype codes of numbers, in the id's low 4 bits. */
static const rdf_xsd_t rdf_num_types[16] = {
    XSD_INTEGER, XSD_DECIMAL, XSD_DOUBLE, XSD_FLOAT,
    XSD_LONG, XSD_INT, XSD_SHORT, XSD_BYTE,
    XSD_NON_NEGATIVE_INTEGER, XSD_POSITIVE_INTEGER, XSD_NON_POSITIVE_INTEGER,
    XSD_NEGATIVE_INTEGER, XSD_UNSIGNED_LONG, XSD_UNSIGNED_INT, XSD_UNSIGNED_SHORT,
    XSD_UNSIGNED_BYTE,
};

static int rdf_num_code(rdf_xsd_t t)
{
  for (int i = 0; i < 16; i++)
    if (rdf_num_types[i] == t)
      return i;
  return -1;
}

rdf_id_tag_t rdf_id_tag(rdf_id_t id)
{
  if (id & RDF_ID_NUM_BIT)
    return RDF_ID_NUMERIC;
  return (rdf_id_tag_t)(id >> 60);
}

rdf_id_t rdf_id_make_dict(rdf_id_tag_t tag, uint64_t n)
{
  if ((tag != RDF_ID_BNODE && tag != RDF_ID_IRI && tag != RDF_ID_LITDICT) || n == 0 ||
      n > RDF_ID_DICT_MAX)
    return 0;
  return ((uint64_t)tag << 60) | n;
}

uint64_t rdf_id_dict_number(rdf_id_t id)
{
  rdf_id_tag_t t = rdf_id_tag(id);
  return t == RDF_ID_BNODE || t == RDF_ID_IRI || t == RDF_ID_LITDICT ? id & RDF_ID_PAYLOAD_MASK
                                                                      : 0;
}

bool rdf_id_is_inline(rdf_id_t id)
{
  rdf_id_tag_t t = rdf_id_tag(id);
  return t == RDF_ID_NUMERIC || t == RDF_ID_BOOLEAN || t == RDF_ID_DATE || t == RDF_ID_DATETIME;
}

rdf_id_t rdf_id_numeric_key(rdf_id_t id)
{
  return rdf_id_tag(id) == RDF_ID_NUMERIC ? id & ~(rdf_id_t)0xF : id;
}

/* ---- numbers ---- */

/* The key of ±0.d1..dn × 10^(x+1) (value d1.d2..dn × 10^x), digits without
 * leading or trailing zeros; 0 if it does not fit. */
static uint64_t rdf_num_key(bool neg, const char *dg, size_t n, int x, bool *fits)
{
  *fits = false;
  if (n == 0) {
    *fits = true;
    return RDF_NUM_SIGN_BIT; /* zero */
  }
  if (n > RDF_NUM_DIGITS || x < -RDF_NUM_EXP_BIAS || x >= RDF_NUM_EXP_BIAS)
    return 0;
  uint64_t m = 0;
  for (size_t i = 0; i < RDF_NUM_DIGITS; i++)
    m = m * 10 + (i < n ? (uint64_t)(dg[i] - '0') : 0);
  uint64_t mag = ((uint64_t)(x + RDF_NUM_EXP_BIAS) << RDF_NUM_MANT_BITS) | m;
  *fits = true;
  return neg ? (RDF_NUM_SIGN_BIT - 1) - mag : RDF_NUM_SIGN_BIT | mag;
}

/* Strips leading zeros (moving x) and trailing zeros of a digit string. */
static size_t rdf_num_trim(char *dg, size_t n, int *x)
{
  size_t lead = 0;
  while (lead < n && dg[lead] == '0')
    lead++;
  memmove(dg, dg + lead, n - lead);
  n -= lead;
  *x -= (int)lead;
  while (n && dg[n - 1] == '0')
    n--;
  return n;
}

static rdf_id_t rdf_id_encode_number(rdf_xsd_t t, const rdf_xsd_val_t *v, const char *canon)
{
  char dg[64];
  size_t n = 0;
  int x = 0;
  bool neg = false;
  if (t == XSD_DOUBLE || t == XSD_FLOAT) {
    /* -0, NaN and the infinities have no place in the value order. */
    if (!isfinite(v->xv_dbl) || (v->xv_dbl == 0 && signbit(v->xv_dbl)))
      return 0;
    if (v->xv_dbl != 0) {
      /* A float's key is the double-shortest digits of its exact value, so
       * the comparison with other numbers stays exact (README.md). */
      rdf_xsd_shortest(v->xv_dbl, false, dg, &x);
      n = strlen(dg);
      neg = v->xv_dbl < 0;
    }
  } else {
    const char *p = canon;
    if (*p == '-') {
      neg = true;
      p++;
    }
    size_t ip = 0;
    for (; *p && *p != '.'; p++) {
      if (n == sizeof(dg))
        return 0;
      dg[n++] = *p;
      ip++;
    }
    if (*p == '.') {
      for (p++; *p; p++) {
        if (n == sizeof(dg))
          return 0;
        dg[n++] = *p;
      }
    }
    x = (int)ip - 1;
    n = rdf_num_trim(dg, n, &x);
  }
  bool fits;
  uint64_t key = rdf_num_key(neg, dg, n, x, &fits);
  if (!fits)
    return 0;
  return RDF_ID_NUM_BIT | (key << 4) | (uint64_t)rdf_num_code(t);
}

/* Digits and exponent of a numeric key; false if malformed. */
static bool rdf_num_unkey(uint64_t key, bool *neg, char *dg, size_t *n, int *x)
{
  *neg = !(key & RDF_NUM_SIGN_BIT);
  if (key == RDF_NUM_SIGN_BIT) {
    *n = 0;
    *x = 0;
    return true;
  }
  uint64_t mag = *neg ? (RDF_NUM_SIGN_BIT - 1) - key : key & (RDF_NUM_SIGN_BIT - 1);
  uint64_t m = mag & ((UINT64_C(1) << RDF_NUM_MANT_BITS) - 1);
  *x = (int)(mag >> RDF_NUM_MANT_BITS) - RDF_NUM_EXP_BIAS;
  if (m < UINT64_C(100000000000000) || m > UINT64_C(999999999999999))
    return false;
  snprintf(dg, 16, "%015llu", (unsigned long long)m);
  size_t k = RDF_NUM_DIGITS;
  while (k > 1 && dg[k - 1] == '0')
    k--;
  dg[k] = '\0';
  *n = k;
  return true;
}

static int rdf_id_decode_number(rdf_id_t id, char *buf, size_t cap, rdf_xsd_t *t)
{
  *t = rdf_num_types[id & 0xF];
  bool neg;
  char dg[20];
  size_t n;
  int x;
  if (!rdf_num_unkey((id & ~RDF_ID_NUM_BIT) >> 4, &neg, dg, &n, &x))
    return -1;
  char b[320];
  size_t o = 0;
  if (*t == XSD_DOUBLE || *t == XSD_FLOAT) {
    double d = 0;
    if (n) {
      snprintf(b, sizeof(b), "%s%c.%se%d", neg ? "-" : "", dg[0], dg + 1, x);
      d = strtod(b, NULL);
    }
    rdf_xsd_val_t v = {.xv_type = *t, .xv_dbl = *t == XSD_FLOAT ? (double)(float)d : d};
    return rdf_xsd_canonical(&v, NULL, 0, buf, cap);
  }
  if (neg)
    b[o++] = '-';
  if (rdf_xsd_is_integer(*t)) {
    if (n == 0)
      b[o++] = '0';
    else {
      if (x < (int)n - 1)
        return -1; /* an integer type with a fraction */
      for (int i = 0; i <= x; i++)
        b[o++] = i < (int)n ? dg[i] : '0';
    }
  } else { /* decimal */
    if (x < 0) {
      b[o++] = '0';
      b[o++] = '.';
      for (int i = -1; i > x; i--)
        b[o++] = '0';
      memcpy(b + o, dg, n);
      o += n;
      if (n == 0)
        b[o++] = '0';
    } else {
      for (int i = 0; i <= x; i++)
        b[o++] = i < (int)n ? dg[i] : '0';
      b[o++] = '.';
      if ((int)n > x + 1) {
        memcpy(b + o, dg + x + 1, n - (size_t)x - 1);
        o += n - (size_t)x - 1;
      } else
        b[o++] = '0';
    }
  }
  if (o + 1 > cap)
    return -1;
  memcpy(buf, b, o);
  buf[o] = '\0';
  return (int)o;
}

/* ---- dates ---- */

static uint64_t rdf_tz_code(const rdf_xsd_val_t *v)
{
  return v->xv_has_tz ? (uint64_t)(v->xv_tz_min + RDF_TZ_BIAS_MIN + 1) : 0;
}

static rdf_id_t rdf_id_encode_date(const rdf_xsd_val_t *v)
{
  int64_t y;
  int m, d;
  rdf_xsd_civil(v->xv_days, &y, &m, &d);
  if (y < 1 || y > RDF_YEAR_MAX || v->xv_frac_digits)
    return 0;
  uint64_t key;
  if (v->xv_type == XSD_DATE) {
    int64_t min = v->xv_days * 1440 - v->xv_tz_min + RDF_TZ_BIAS_MIN;
    key = ((uint64_t)min << RDF_TZ_BITS) | rdf_tz_code(v);
    return ((uint64_t)RDF_ID_DATE << 60) | key;
  }
  int64_t ms = v->xv_days * 86400000 + v->xv_ms - (int64_t)(v->xv_tz_min - RDF_TZ_BIAS_MIN) * 60000;
  key = ((uint64_t)ms << RDF_TZ_BITS) | rdf_tz_code(v);
  return ((uint64_t)RDF_ID_DATETIME << 60) | key;
}

static int rdf_id_decode_date(rdf_id_t id, rdf_xsd_t t, char *buf, size_t cap)
{
  uint64_t p = id & RDF_ID_PAYLOAD_MASK;
  uint64_t tz = p & ((1u << RDF_TZ_BITS) - 1);
  int64_t inst = (int64_t)(p >> RDF_TZ_BITS);
  if (tz > 2 * RDF_TZ_BIAS_MIN + 1)
    return -1;
  rdf_xsd_val_t v = {.xv_type = t, .xv_has_tz = tz != 0};
  v.xv_tz_min = tz ? (int)tz - RDF_TZ_BIAS_MIN - 1 : 0;
  if (t == XSD_DATE) {
    int64_t local = inst - RDF_TZ_BIAS_MIN + v.xv_tz_min;
    if (local % 1440)
      return -1;
    v.xv_days = local / 1440;
  } else {
    int64_t local = inst + (int64_t)(v.xv_tz_min - RDF_TZ_BIAS_MIN) * 60000;
    v.xv_days = local / 86400000;
    v.xv_ms = local % 86400000;
  }
  return rdf_xsd_date_text(&v, buf, cap);
}

/* ---- entry points ---- */

rdf_id_t rdf_id_encode_literal(const rdf_term_t *lit)
{
  if (lit->rt_kind != RDF_LITERAL || lit->rt_lang_len)
    return 0;
  rdf_xsd_t t = rdf_xsd_of(lit);
  if (t != XSD_BOOLEAN && t != XSD_DATE && t != XSD_DATETIME && !rdf_xsd_is_numeric(t))
    return 0;
  if (lit->rt_len > 64)
    return 0; /* no canonical form that fits is this long */
  rdf_xsd_val_t v;
  char canon[80];
  if (rdf_xsd_parse(t, lit->rt_str, lit->rt_len, &v, NULL) != CZ_OK)
    return 0;
  int cl = rdf_xsd_canonical(&v, lit->rt_str, lit->rt_len, canon, sizeof(canon));
  if (cl < 0 || (size_t)cl != lit->rt_len || memcmp(canon, lit->rt_str, lit->rt_len) != 0)
    return 0;
  switch (t) {
  case XSD_BOOLEAN:
    return ((uint64_t)RDF_ID_BOOLEAN << 60) | (v.xv_bool ? 1 : 0);
  case XSD_DATE:
  case XSD_DATETIME:
    return rdf_id_encode_date(&v);
  default:
    return rdf_id_encode_number(t, &v, canon);
  }
}

int rdf_id_decode_literal(rdf_id_t id, char *buf, size_t cap, rdf_term_t *out, err_t *e)
{
  rdf_xsd_t t;
  int n = -1;
  switch (rdf_id_tag(id)) {
  case RDF_ID_BOOLEAN:
    t = XSD_BOOLEAN;
    if ((id & RDF_ID_PAYLOAD_MASK) <= 1)
      n = snprintf(buf, cap, "%s", (id & 1) ? "true" : "false");
    break;
  case RDF_ID_DATE:
    t = XSD_DATE;
    n = rdf_id_decode_date(id, t, buf, cap);
    break;
  case RDF_ID_DATETIME:
    t = XSD_DATETIME;
    n = rdf_id_decode_date(id, t, buf, cap);
    break;
  case RDF_ID_NUMERIC:
    n = rdf_id_decode_number(id, buf, cap, &t);
    break;
  default:
    return err_set(e, SQLSTATE_INVALID_TEXT, "term id %llx is not an inline value",
                   (unsigned long long)id);
  }
  if (n < 0 || (size_t)n >= cap)
    return err_set(e, SQLSTATE_INVALID_TEXT, "malformed inline term id %llx",
                   (unsigned long long)id);
  memset(out, 0, sizeof(*out));
  out->rt_kind = RDF_LITERAL;
  out->rt_str = buf;
  out->rt_len = (size_t)n;
  out->rt_dt = rdf_xsd_iri(t);
  out->rt_dt_len = strlen(out->rt_dt);
  return CZ_OK;
}
