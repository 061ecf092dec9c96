/* ex_func_string — string functions: length, char_length, octet_length,
 * lower, upper, substr/substring, position/strpos, left, right, replace,
 * btrim/ltrim/rtrim/trim, lpad, rpad, concat, concat_ws, repeat, reverse,
 * md5, ascii, chr, split_part, starts_with, initcap.
 *
 * Design notes: positions and lengths count UTF-8 characters, as
 * PostgreSQL does in a UTF-8 database; case mapping is Unicode's (the
 * C.UTF-8 ctype, xe_case_map). Results are allocated in the per-batch
 * arena.
 */
#include <openssl/evp.h>
#include <string.h>

#include "exec/ex_int.h"

#define XF_UNUSED(c, x) ((void)(c), (void)(x))

static inline bool xf_is_lead(unsigned char c)
{
  return (c & 0xC0) != 0x80;
}

static size_t xf_chars(str_t s)
{
  size_t n = 0;
  for (uint32_t i = 0; i < s.s_len; i++)
    n += xf_is_lead((unsigned char)s.s_ptr[i]);
  return n;
}

/* Byte offset of character k (0-based) of s, or s_len when past the end. */
static size_t xf_char_off(str_t s, size_t k)
{
  size_t chars = 0;
  for (uint32_t i = 0; i < s.s_len; i++) {
    if (xf_is_lead((unsigned char)s.s_ptr[i])) {
      if (chars == k)
        return i;
      chars++;
    }
  }
  return s.s_len;
}

static void xf_set_str(datum_t *out, const char *p, size_t n)
{
  out->d_null = false;
  out->d_str.s_ptr = p;
  out->d_str.s_len = (uint32_t)n;
}

static int xf_length(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  XF_UNUSED(c, e);
  str_t s = a[0].d_str;
  if (x->x_args[0]->x_type.t_id == TY_BYTEA) {
    out->d_i64 = s.s_len;
    return CZ_OK;
  }
  if (x->x_args[0]->x_type.t_id == TY_CHAR) /* bpchar length ignores the padding */
    while (s.s_len > 0 && s.s_ptr[s.s_len - 1] == ' ')
      s.s_len--;
  out->d_i64 = (int64_t)xf_chars(s);
  return CZ_OK;
}

static int xf_octet_length(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  XF_UNUSED(c, x);
  (void)e;
  out->d_i64 = a[0].d_str.s_len;
  return CZ_OK;
}

static int xf_case(xctx_t *c, const datum_t *a, datum_t *out, xe_case_t how, err_t *e)
{
  str_t s = a[0].d_str;
  char *p = xc_alloc(c, 2 * (size_t)s.s_len + 1, e);
  if (!p)
    return CZ_ERR;
  size_t n = xe_case_map(s.s_ptr, s.s_len, p, how);
  xf_set_str(out, p, n);
  return CZ_OK;
}

static int xf_lower(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return xf_case(c, a, out, XE_LOWER, e);
}

static int xf_upper(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return xf_case(c, a, out, XE_UPPER, e);
}

static int xf_initcap(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return xf_case(c, a, out, XE_INITCAP, e);
}

/* substring(s, from[, count]): characters from..from+count-1 (1-based)
 * clipped to the string; a negative count is 22011. */
static int xf_substr(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  str_t s = a[0].d_str;
  int64_t from = a[1].d_i64, end;
  if (x->x_nargs > 2) {
    if (a[2].d_i64 < 0)
      return err_set(e, SQLSTATE_SUBSTRING_ERROR, "negative substring length not allowed");
    if (__builtin_add_overflow(from, a[2].d_i64, &end))
      end = INT64_MAX;
  } else {
    end = INT64_MAX;
  }
  if (from < 1)
    from = 1;
  if (end <= from) {
    xf_set_str(out, s.s_ptr, 0);
    return CZ_OK;
  }
  size_t b0 = xf_char_off(s, (size_t)(from - 1));
  size_t b1 = end == INT64_MAX ? s.s_len : xf_char_off(s, (size_t)(end - 1));
  if (b1 < b0)
    b1 = b0;
  xf_set_str(out, s.s_ptr + b0, b1 - b0);
  return CZ_OK;
}

/* Character position (1-based) of needle in hay, 0 when absent. */
static int64_t xf_find(str_t hay, str_t needle)
{
  if (needle.s_len == 0)
    return 1;
  if (needle.s_len > hay.s_len)
    return 0;
  const char *p = memmem(hay.s_ptr, hay.s_len, needle.s_ptr, needle.s_len);
  if (!p)
    return 0;
  str_t prefix = {hay.s_ptr, (uint32_t)(p - hay.s_ptr)};
  return (int64_t)xf_chars(prefix) + 1;
}

/* strpos(string, substring); position(string, substring) is the same
 * function (PostgreSQL's grammar turns POSITION(a IN b) into
 * position(b, a)). */
static int xf_strpos(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  XF_UNUSED(c, x);
  (void)e;
  out->d_i64 = xf_find(a[0].d_str, a[1].d_str);
  return CZ_OK;
}

static int xf_left_right(const datum_t *a, datum_t *out, bool left)
{
  str_t s = a[0].d_str;
  int64_t n = a[1].d_i64, len = (int64_t)xf_chars(s);
  int64_t keep = n >= 0 ? (n < len ? n : len) : (len + n > 0 ? len + n : 0);
  if (left) {
    xf_set_str(out, s.s_ptr, xf_char_off(s, (size_t)keep));
  } else {
    size_t off = xf_char_off(s, (size_t)(len - keep));
    xf_set_str(out, s.s_ptr + off, s.s_len - off);
  }
  return CZ_OK;
}

static int xf_left(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  XF_UNUSED(c, x);
  (void)e;
  return xf_left_right(a, out, true);
}

static int xf_right(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  XF_UNUSED(c, x);
  (void)e;
  return xf_left_right(a, out, false);
}

static int xf_replace(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  (void)e;
  str_t s = a[0].d_str, from = a[1].d_str, to = a[2].d_str;
  if (from.s_len == 0) {
    *out = a[0];
    return CZ_OK;
  }
  size_t count = 0;
  for (const char *p = s.s_ptr, *end = s.s_ptr + s.s_len;
       (p = memmem(p, (size_t)(end - p), from.s_ptr, from.s_len)) != NULL; p += from.s_len)
    count++;
  if (to.s_len > from.s_len && count > (XE_MAX_FIELD - s.s_len) / (to.s_len - from.s_len))
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "requested length too large");
  size_t n = s.s_len + count * to.s_len - count * from.s_len;
  char *o = xf_alloc_str(c, out, n, e);
  if (!o)
    return CZ_ERR;
  const char *p = s.s_ptr, *end = s.s_ptr + s.s_len;
  while (p < end) {
    const char *hit = memmem(p, (size_t)(end - p), from.s_ptr, from.s_len);
    size_t chunk = hit ? (size_t)(hit - p) : (size_t)(end - p);
    memcpy(o, p, chunk);
    o += chunk;
    if (!hit)
      break;
    memcpy(o, to.s_ptr, to.s_len);
    o += to.s_len;
    p = hit + from.s_len;
  }
  return CZ_OK;
}

/* Whether the character at s[i..] (n bytes) is one of set's characters. */
static bool xf_in_set(const char *ch, size_t n, str_t set)
{
  for (uint32_t j = 0; j < set.s_len;) {
    size_t m = 1;
    while (j + m < set.s_len && !xf_is_lead((unsigned char)set.s_ptr[j + m]))
      m++;
    if (m == n && memcmp(ch, set.s_ptr + j, n) == 0)
      return true;
    j += (uint32_t)m;
  }
  return false;
}

static size_t xf_next_char(str_t s, size_t i)
{
  size_t k = i + 1;
  while (k < s.s_len && !xf_is_lead((unsigned char)s.s_ptr[k]))
    k++;
  return k;
}

static size_t xf_prev_char(str_t s, size_t end)
{
  size_t k = end - 1;
  while (k > 0 && !xf_is_lead((unsigned char)s.s_ptr[k]))
    k--;
  return k;
}

static int xf_trim_impl(const xnode_t *x, const datum_t *a, datum_t *out, bool lead, bool trail)
{
  str_t s = a[0].d_str;
  str_t set = x->x_nargs > 1 ? a[1].d_str : (str_t){" ", 1};
  size_t b = 0, end = s.s_len;
  if (lead)
    while (b < end) {
      size_t k = xf_next_char(s, b);
      if (!xf_in_set(s.s_ptr + b, k - b, set))
        break;
      b = k;
    }
  if (trail)
    while (end > b) {
      size_t k = xf_prev_char(s, end);
      if (!xf_in_set(s.s_ptr + k, end - k, set))
        break;
      end = k;
    }
  xf_set_str(out, s.s_ptr + b, end - b);
  return CZ_OK;
}

static int xf_btrim(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)e;
  return xf_trim_impl(x, a, out, true, true);
}

static int xf_ltrim(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)e;
  return xf_trim_impl(x, a, out, true, false);
}

static int xf_rtrim(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)e;
  return xf_trim_impl(x, a, out, false, true);
}


/* Fills dst[0..total) with copies of unit[0..ulen) (total a multiple of
 * ulen, or cut short in the last copy) by doubling what is already
 * written: log(total/ulen) memcpy calls rather than one per copy, with an
 * interrupt check between the big ones. */
static int xf_fill_repeat(xctx_t *c, char *dst, size_t total, const char *unit, size_t ulen,
                          err_t *e)
{
  if (total == 0 || ulen == 0)
    return CZ_OK;
  size_t done = CZ_MIN(ulen, total);
  memcpy(dst, unit, done);
  while (done < total) {
    size_t k = CZ_MIN(done, total - done);
    memcpy(dst + done, dst, k);
    done += k;
    if (k >= XC_INTERRUPT_EVERY && xc_check_interrupt(c, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

static int xf_pad(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, bool left,
                  err_t *e)
{
  str_t s = a[0].d_str, fill = x->x_nargs > 2 ? a[2].d_str : (str_t){" ", 1};
  int64_t want = a[1].d_i64;
  if (want <= 0) {
    xf_set_str(out, s.s_ptr, 0);
    return CZ_OK;
  }
  size_t len = xf_chars(s);
  if ((size_t)want <= len || fill.s_len == 0) {
    /* Too long (or nothing to pad with): cut to the length. */
    xf_set_str(out, s.s_ptr, xf_char_off(s, (size_t)CZ_MIN((size_t)want, len)));
    return CZ_OK;
  }
  size_t pad = (size_t)want - len, fill_chars = xf_chars(fill);
  /* Bytes of the padding: whole copies of fill plus a prefix of it. */
  size_t whole = pad / fill_chars, rest = pad % fill_chars;
  size_t rest_bytes = xf_char_off(fill, rest);
  size_t pad_bytes = whole * fill.s_len + rest_bytes;
  if (pad_bytes + s.s_len > XE_MAX_FIELD)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "requested length too large");
  char *o = xf_alloc_str(c, out, pad_bytes + s.s_len, e);
  if (!o)
    return CZ_ERR;
  char *p = left ? o : o + s.s_len;
  if (xf_fill_repeat(c, p, whole * fill.s_len, fill.s_ptr, fill.s_len, e) != CZ_OK)
    return CZ_ERR;
  p += whole * fill.s_len;
  memcpy(p, fill.s_ptr, rest_bytes);
  memcpy(left ? o + pad_bytes : o, s.s_ptr, s.s_len);
  return CZ_OK;
}

static int xf_lpad(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xf_pad(c, x, a, out, true, e);
}

static int xf_rpad(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xf_pad(c, x, a, out, false, e);
}

/* The text form of any value as concat prints it (the output function:
 * booleans as t/f). */
static int xf_text_of(xctx_t *c, ty_t t, const datum_t *d, str_t *out, err_t *e)
{
  if (ty_phys(t.t_id) == TP_STR && t.t_id != TY_BYTEA) {
    *out = d->d_str;
    return CZ_OK;
  }
  size_t cap = ty_text_max(t, d);
  char *p = xc_alloc(c, cap ? cap : 1, e);
  if (!p)
    return CZ_ERR;
  int n = ty_format_text(t, d, p, cap);
  if (n < 0)
    return err_set(e, SQLSTATE_INTERNAL, "text form larger than its bound");
  out->s_ptr = p;
  out->s_len = (uint32_t)n;
  return CZ_OK;
}

static int xf_concat_impl(xctx_t *c, const xnode_t *x, const datum_t *a, int first,
                          const str_t *sep, datum_t *out, err_t *e)
{
  int n = x->x_nargs;
  str_t *parts = arena_alloc(c->xc_arena, sizeof(str_t) * (size_t)(n + 1));
  size_t total = 0;
  int np = 0;
  for (int k = first; k < n; k++) {
    if (a[k].d_null)
      continue;
    if (xf_text_of(c, x->x_args[k]->x_type, &a[k], &parts[np], e) != CZ_OK)
      return CZ_ERR;
    total += parts[np].s_len + (sep && np > 0 ? sep->s_len : 0);
    np++;
  }
  if (total > XE_MAX_FIELD)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "requested length too large");
  char *o = xf_alloc_str(c, out, total, e);
  if (!o)
    return CZ_ERR;
  for (int k = 0; k < np; k++) {
    if (sep && k > 0) {
      memcpy(o, sep->s_ptr, sep->s_len);
      o += sep->s_len;
    }
    memcpy(o, parts[k].s_ptr, parts[k].s_len);
    o += parts[k].s_len;
  }
  return CZ_OK;
}

static int xf_concat(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xf_concat_impl(c, x, a, 0, NULL, out, e);
}

static int xf_concat_ws(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  if (a[0].d_null) {
    out->d_null = true;
    return CZ_OK;
  }
  return xf_concat_impl(c, x, a, 1, &a[0].d_str, out, e);
}

static int xf_repeat(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  str_t s = a[0].d_str;
  int64_t n = a[1].d_i64 < 0 ? 0 : a[1].d_i64;
  if (s.s_len && (uint64_t)n > XE_MAX_FIELD / s.s_len)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "requested length too large");
  char *o = xf_alloc_str(c, out, (size_t)n * s.s_len, e);
  if (!o)
    return CZ_ERR;
  return xf_fill_repeat(c, o, (size_t)n * s.s_len, s.s_ptr, s.s_len, e);
}

static int xf_reverse(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  (void)e;
  str_t s = a[0].d_str;
  char *o = xf_alloc_str(c, out, s.s_len, e);
  if (!o)
    return CZ_ERR;
  size_t w = s.s_len;
  for (size_t i = 0; i < s.s_len;) {
    size_t k = xf_next_char(s, i);
    w -= k - i;
    memcpy(o + w, s.s_ptr + i, k - i);
    i = k;
  }
  return CZ_OK;
}

static int xf_md5(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  unsigned char dig[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(a[0].d_str.s_ptr, a[0].d_str.s_len, dig, &n, EVP_md5(), NULL) != 1 || n != 16)
    return err_set(e, SQLSTATE_INTERNAL, "could not compute MD5 hash");
  static const char hex[] = "0123456789abcdef";
  char *o = xf_alloc_str(c, out, 32, e);
  if (!o)
    return CZ_ERR;
  for (int i = 0; i < 16; i++) {
    o[2 * i] = hex[dig[i] >> 4];
    o[2 * i + 1] = hex[dig[i] & 15];
  }
  return CZ_OK;
}

static int xf_ascii(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  XF_UNUSED(c, x);
  (void)e;
  str_t s = a[0].d_str;
  if (s.s_len == 0) {
    out->d_i64 = 0;
    return CZ_OK;
  }
  const unsigned char *p = (const unsigned char *)s.s_ptr;
  uint32_t cp = p[0];
  size_t n = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;
  if (n > 1 && n <= s.s_len) {
    cp &= 0xFF >> (n + 1);
    for (size_t i = 1; i < n; i++)
      cp = cp << 6 | (p[i] & 0x3F);
  }
  out->d_i64 = cp;
  return CZ_OK;
}

static int xf_chr(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  int64_t cp = a[0].d_i64;
  if (cp == 0)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "null character not permitted");
  if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "requested character too large for encoding: %lld", (long long)cp);
  char buf[4];
  size_t n;
  if (cp < 0x80) {
    buf[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    buf[0] = (char)(0xC0 | (cp >> 6));
    buf[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    buf[0] = (char)(0xE0 | (cp >> 12));
    buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    buf[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    buf[0] = (char)(0xF0 | (cp >> 18));
    buf[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    buf[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    buf[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  char *o = xf_alloc_str(c, out, n, e);
  if (!o)
    return CZ_ERR;
  memcpy(o, buf, n);
  return CZ_OK;
}

static int xf_split_part(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  XF_UNUSED(c, x);
  str_t s = a[0].d_str, d = a[1].d_str;
  int64_t field = a[2].d_i64;
  if (field == 0)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "field position must not be zero");
  if (d.s_len == 0) { /* the whole string is field 1 (or -1) */
    bool one = field == 1 || field == -1;
    xf_set_str(out, s.s_ptr, one ? s.s_len : 0);
    return CZ_OK;
  }
  /* Field boundaries left to right; negative fields count from the end. */
  int64_t nfields = 1;
  for (const char *p = s.s_ptr, *end = s.s_ptr + s.s_len;
       (p = memmem(p, (size_t)(end - p), d.s_ptr, d.s_len)) != NULL; p += d.s_len)
    nfields++;
  if (field < 0)
    field = nfields + field + 1;
  if (field < 1 || field > nfields) {
    xf_set_str(out, s.s_ptr, 0);
    return CZ_OK;
  }
  const char *start = s.s_ptr, *end = s.s_ptr + s.s_len;
  for (int64_t k = 1; k < field; k++)
    start = (const char *)memmem(start, (size_t)(end - start), d.s_ptr, d.s_len) + d.s_len;
  const char *stop = memmem(start, (size_t)(end - start), d.s_ptr, d.s_len);
  xf_set_str(out, start, (size_t)((stop ? stop : end) - start));
  return CZ_OK;
}

static int xf_starts_with(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  XF_UNUSED(c, x);
  (void)e;
  str_t s = a[0].d_str, p = a[1].d_str;
  out->d_bool = p.s_len <= s.s_len && memcmp(s.s_ptr, p.s_ptr, p.s_len) == 0;
  return CZ_OK;
}

#define T TY_TEXT
#define I4 TY_INT4
#define S XF_STRICT

const xfunc_def_t xfunc_string_defs[] = {
  {.fd_name = "length", .fd_nargs = 1, .fd_args = {XFA_ANYSTR}, .fd_result = I4, .fd_flags = S, .fd_row = xf_length},
  {.fd_name = "length", .fd_nargs = 1, .fd_args = {TY_BYTEA}, .fd_result = I4, .fd_flags = S, .fd_row = xf_length},
  {.fd_name = "char_length", .fd_nargs = 1, .fd_args = {XFA_ANYSTR}, .fd_result = I4, .fd_flags = S, .fd_row = xf_length},
  {.fd_name = "character_length", .fd_nargs = 1, .fd_args = {XFA_ANYSTR}, .fd_result = I4, .fd_flags = S, .fd_row = xf_length},
  {.fd_name = "octet_length", .fd_nargs = 1, .fd_args = {XFA_ANYSTR}, .fd_result = I4, .fd_flags = S, .fd_row = xf_octet_length},
  {.fd_name = "octet_length", .fd_nargs = 1, .fd_args = {TY_BYTEA}, .fd_result = I4, .fd_flags = S, .fd_row = xf_octet_length},
  {.fd_name = "lower", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = S, .fd_row = xf_lower},
  {.fd_name = "upper", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = S, .fd_row = xf_upper},
  {.fd_name = "initcap", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = S, .fd_row = xf_initcap},
  {.fd_name = "substr", .fd_nargs = 2, .fd_args = {T, I4}, .fd_result = T, .fd_flags = S, .fd_row = xf_substr},
  {.fd_name = "substr", .fd_nargs = 3, .fd_args = {T, I4, I4}, .fd_result = T, .fd_flags = S, .fd_row = xf_substr},
  {.fd_name = "substring", .fd_nargs = 2, .fd_args = {T, I4}, .fd_result = T, .fd_flags = S, .fd_row = xf_substr},
  {.fd_name = "substring", .fd_nargs = 3, .fd_args = {T, I4, I4}, .fd_result = T, .fd_flags = S, .fd_row = xf_substr},
  {.fd_name = "strpos", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = I4, .fd_flags = S, .fd_row = xf_strpos},
  {.fd_name = "position", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = I4, .fd_flags = S, .fd_row = xf_strpos},
  {.fd_name = "left", .fd_nargs = 2, .fd_args = {T, I4}, .fd_result = T, .fd_flags = S, .fd_row = xf_left},
  {.fd_name = "right", .fd_nargs = 2, .fd_args = {T, I4}, .fd_result = T, .fd_flags = S, .fd_row = xf_right},
  {.fd_name = "replace", .fd_nargs = 3, .fd_args = {T, T, T}, .fd_result = T, .fd_flags = S, .fd_row = xf_replace},
  {.fd_name = "btrim", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = S, .fd_row = xf_btrim},
  {.fd_name = "btrim", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = S, .fd_row = xf_btrim},
  {.fd_name = "trim", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = S, .fd_row = xf_btrim},
  {.fd_name = "trim", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = S, .fd_row = xf_btrim},
  {.fd_name = "ltrim", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = S, .fd_row = xf_ltrim},
  {.fd_name = "ltrim", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = S, .fd_row = xf_ltrim},
  {.fd_name = "rtrim", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = S, .fd_row = xf_rtrim},
  {.fd_name = "rtrim", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = T, .fd_flags = S, .fd_row = xf_rtrim},
  {.fd_name = "lpad", .fd_nargs = 2, .fd_args = {T, I4}, .fd_result = T, .fd_flags = S, .fd_row = xf_lpad},
  {.fd_name = "lpad", .fd_nargs = 3, .fd_args = {T, I4, T}, .fd_result = T, .fd_flags = S, .fd_row = xf_lpad},
  {.fd_name = "rpad", .fd_nargs = 2, .fd_args = {T, I4}, .fd_result = T, .fd_flags = S, .fd_row = xf_rpad},
  {.fd_name = "rpad", .fd_nargs = 3, .fd_args = {T, I4, T}, .fd_result = T, .fd_flags = S, .fd_row = xf_rpad},
  {.fd_name = "concat", .fd_nargs = 2, .fd_args = {XFA_ANY, XFA_ANY}, .fd_result = T, .fd_flags = XF_VARIADIC, .fd_row = xf_concat},
  {.fd_name = "concat_ws", .fd_nargs = 3, .fd_args = {T, XFA_ANY, XFA_ANY}, .fd_result = T, .fd_flags = XF_VARIADIC, .fd_row = xf_concat_ws},
  {.fd_name = "repeat", .fd_nargs = 2, .fd_args = {T, I4}, .fd_result = T, .fd_flags = S, .fd_row = xf_repeat},
  {.fd_name = "reverse", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = S, .fd_row = xf_reverse},
  {.fd_name = "md5", .fd_nargs = 1, .fd_args = {T}, .fd_result = T, .fd_flags = S, .fd_row = xf_md5},
  {.fd_name = "md5", .fd_nargs = 1, .fd_args = {TY_BYTEA}, .fd_result = T, .fd_flags = S, .fd_row = xf_md5},
  {.fd_name = "ascii", .fd_nargs = 1, .fd_args = {T}, .fd_result = I4, .fd_flags = S, .fd_row = xf_ascii},
  {.fd_name = "chr", .fd_nargs = 1, .fd_args = {I4}, .fd_result = T, .fd_flags = S, .fd_row = xf_chr},
  {.fd_name = "split_part", .fd_nargs = 3, .fd_args = {T, T, I4}, .fd_result = T, .fd_flags = S, .fd_row = xf_split_part},
  {.fd_name = "starts_with", .fd_nargs = 2, .fd_args = {T, T}, .fd_result = TY_BOOL, .fd_flags = S, .fd_row = xf_starts_with},
};
const int xfunc_string_ndefs = (int)CZ_ARRAY_LEN(xfunc_string_defs);
