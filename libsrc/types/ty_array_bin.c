/* ty_array_bin — an array's binary wire form (PostgreSQL's array_send)
 * from its text form: arrays are TEXT values in PostgreSQL's text form
 * with t_elem the element type (types.h), and a text-format result
 * describes them by their array type OID (ty_pg_array_oid), so a client
 * that then asks for binary results (pgJDBC does for int4[], text[] …
 * once a statement is prepared) must get array_send's layout: ndim,
 * has-null flag, element OID, (length, lower bound 1) per dimension, then
 * each element as length and its own binary form (-1 for NULL).
 *
 * The text form parsed here is the one this server writes (array_out's:
 * braces, commas, double quotes with backslash escapes, NULL); a value
 * it cannot read gives -1 (the caller's "does not fit"), never a wrong
 * layout.
 */
#include <string.h>

#include "types/types.h"
#include "util/util.h"

#define TY_ARR_MAXDIM 6

static void put32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

size_t ty_array_binary_max(const datum_t *d)
{
  /* header, and per element at most 4 + 16 bytes (an interval) against at
   * least 2 bytes of text ("1,"); text elements are never longer than
   * their text */
  return 12 + 8 * TY_ARR_MAXDIM + 12 * ((size_t)d->d_str.s_len + 2);
}

/* One element's text (unquoted into buf) at s[*i]; *null for NULL. */
static int elem_text(const char *s, size_t len, size_t *i, char *buf, size_t *n, bool *null)
{
  size_t k = *i;
  *n = 0;
  *null = false;
  if (k < len && s[k] == '"') {
    k++;
    while (k < len && s[k] != '"') {
      if (s[k] == '\\' && k + 1 < len)
        k++;
      buf[(*n)++] = s[k++];
    }
    if (k >= len)
      return -1;
    *i = k + 1;
    return 0;
  }
  while (k < len && s[k] != ',' && s[k] != '}') {
    if (s[k] == '\\' && k + 1 < len)
      k++;
    buf[(*n)++] = s[k++];
  }
  *null = *n == 4 && (buf[0] | 32) == 'n' && (buf[1] | 32) == 'u' && (buf[2] | 32) == 'l' &&
          (buf[3] | 32) == 'l' && s[*i] != '"';
  *i = k;
  return 0;
}

static int array_format(ty_t t, const datum_t *d, uint8_t *out, size_t cap, arena_t *a);

int ty_array_format_binary(ty_t t, const datum_t *d, uint8_t *out, size_t cap)
{
  arena_t *a = arena_create(NULL, "array_send");  /* elements' values, freed here */
  if (!a)
    return -1;
  int n = array_format(t, d, out, cap, a);
  arena_destroy(a);
  return n;
}

static int array_format(ty_t t, const datum_t *d, uint8_t *out, size_t cap, arena_t *a)
{
  const char *s = d->d_str.s_ptr;
  size_t len = d->d_str.s_len;
  ty_t et = ty_plain(t.t_elem);
  if (len < 2 || s[0] != '{')
    return -1;
  /* dimensions: the first element's depth, the lengths counted on the way */
  int ndim = 0, dims[TY_ARR_MAXDIM] = {0}, depth = 0, nelem = 0;
  bool any_null = false;
  char *buf = arena_alloc(a, len + 1);
  size_t hdr;
  /* pass 1 finds the shape, pass 2 writes the elements after the header */
  for (int pass = 0; pass < 2; pass++) {
    size_t o = 0, i = 0;
    if (pass == 1) {
      hdr = 12 + 8 * (size_t)ndim;
      if (cap < hdr)
        return -1;
      put32(out, (uint32_t)ndim);
      put32(out + 4, any_null ? 1u : 0u);
      put32(out + 8, ty_pg_oid(et));
      for (int k = 0; k < ndim; k++) {
        put32(out + 12 + 8 * k, (uint32_t)dims[k]);
        put32(out + 16 + 8 * k, 1u);
      }
      o = hdr;
    }
    int counts[TY_ARR_MAXDIM] = {0};
    depth = 0;
    while (i < len) {
      char c = s[i];
      if (c == '{') {
        if (depth >= TY_ARR_MAXDIM)
          return -1;
        if (pass == 0 && depth >= ndim)
          ndim = depth + 1;
        counts[depth] = 0;
        depth++;
        i++;
        continue;
      }
      if (c == '}') {
        depth--;
        if (depth < 0)
          return -1;
        if (pass == 0 && counts[depth] > dims[depth])
          dims[depth] = counts[depth];
        if (depth > 0)
          counts[depth - 1]++;
        i++;
        continue;
      }
      if (c == ',' || c == ' ') {
        i++;
        continue;
      }
      /* an element at the innermost level */
      size_t n;
      bool null;
      if (elem_text(s, len, &i, buf, &n, &null) != 0)
        return -1;
      counts[depth - 1]++;
      if (pass == 0) {
        nelem++;
        any_null |= null;
        continue;
      }
      if (o + 4 > cap)
        return -1;
      if (null) {
        put32(out + o, 0xffffffffu);
        o += 4;
        continue;
      }
      datum_t v;
      err_t e;
      if (ty_parse_text(et, buf, n, a, &v, &e) != CZ_OK)
        return -1;
      size_t need = ty_binary_max(et, &v);
      if (o + 4 + need > cap)
        return -1;
      int w = ty_format_binary(et, &v, out + o + 4, cap - o - 4);
      if (w < 0)
        return -1;
      put32(out + o, (uint32_t)w);
      o += 4 + (size_t)w;
    }
    if (pass == 1)
      return (int)o;
    if (nelem == 0)
      ndim = 0;
  }
  return -1;
}
