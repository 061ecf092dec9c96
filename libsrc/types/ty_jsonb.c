/* ty_jsonb — jsonb's canonical form and order: the text jsonb_out prints
 * (`{"a": 1, "b": [1, 2]}`), its key order (shorter keys first, then
 * bytewise; the last of equal keys kept), PostgreSQL's btree order of
 * jsonb values, escape_json, and the arena buffer JSON text is built in.
 *
 * Design notes: a jsonb value is held as its canonical text (TP_STR), so
 * storage, hashing, the wire and equality of equal documents need nothing
 * new; routines that look inside parse it again (ty_json.c), which also
 * bounds every recursion here by TY_JSON_MAX_DEPTH.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/types_int.h"

#define TY_JBUF_MAX (1u << 30) /* PostgreSQL's 1 GB field limit */

void ty_jbuf_init(ty_jbuf_t *b, arena_t *a)
{
  memset(b, 0, sizeof(*b));
  b->jb_arena = a;
}

static bool ty_jbuf_grow(ty_jbuf_t *b, size_t more)
{
  if (b->jb_failed)
    return false;
  size_t need = b->jb_len + more;
  if (need <= b->jb_cap)
    return true;
  if (need > TY_JBUF_MAX) {
    b->jb_failed = true;
    err_set(&b->jb_err, SQLSTATE_PROGRAM_LIMIT, "total size of jsonb array elements exceeds the maximum of %u bytes",
            TY_JBUF_MAX - 1);
    return false;
  }
  size_t cap = b->jb_cap ? b->jb_cap * 2 : 64;
  while (cap < need)
    cap *= 2;
  if (cap > TY_JBUF_MAX)
    cap = TY_JBUF_MAX;
  char *p = arena_try_alloc(b->jb_arena, cap);
  if (!p) {
    b->jb_failed = true;
    err_set(&b->jb_err, SQLSTATE_OUT_OF_MEMORY, "out of memory");
    err_detail(&b->jb_err, "Failed on request of size %zu.", cap);
    return false;
  }
  if (b->jb_len)
    memcpy(p, b->jb_ptr, b->jb_len);
  if (b->jb_cap)
    arena_free(b->jb_arena, b->jb_ptr, b->jb_cap);
  b->jb_ptr = p;
  b->jb_cap = cap;
  return true;
}

void ty_jbuf_add(ty_jbuf_t *b, const char *s, size_t n)
{
  if (!ty_jbuf_grow(b, n))
    return;
  if (n)
    memcpy(b->jb_ptr + b->jb_len, s, n);
  b->jb_len += n;
}

void ty_jbuf_addc(ty_jbuf_t *b, char c)
{
  if (!ty_jbuf_grow(b, 1))
    return;
  b->jb_ptr[b->jb_len++] = c;
}

void ty_jbuf_add_jstring(ty_jbuf_t *b, const char *s, size_t n)
{
  ty_jbuf_addc(b, '"');
  size_t run = 0; /* bytes copied as they are, in one go */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *esc = NULL;
    char u[8];
    switch (c) {
    case '"': esc = "\\\""; break;
    case '\\': esc = "\\\\"; break;
    case '\b': esc = "\\b"; break;
    case '\f': esc = "\\f"; break;
    case '\n': esc = "\\n"; break;
    case '\r': esc = "\\r"; break;
    case '\t': esc = "\\t"; break;
    default:
      if (c < 0x20) {
        snprintf(u, sizeof u, "\\u%04x", c);
        esc = u;
      }
    }
    if (!esc)
      continue;
    ty_jbuf_add(b, s + run, i - run);
    ty_jbuf_add(b, esc, strlen(esc));
    run = i + 1;
  }
  ty_jbuf_add(b, s + run, n - run);
  ty_jbuf_addc(b, '"');
}

void ty_jsonb_print(ty_jbuf_t *b, const ty_jval_t *v)
{
  switch (v->jv_kind) {
  case TJ_NULL:
    ty_jbuf_add(b, "null", 4);
    return;
  case TJ_BOOL:
    if (v->jv_bool)
      ty_jbuf_add(b, "true", 4);
    else
      ty_jbuf_add(b, "false", 5);
    return;
  case TJ_NUMBER:
    ty_jbuf_add(b, v->jv_str.s_ptr, v->jv_str.s_len);
    return;
  case TJ_STRING:
    ty_jbuf_add_jstring(b, v->jv_str.s_ptr, v->jv_str.s_len);
    return;
  case TJ_ARRAY:
    ty_jbuf_addc(b, '[');
    for (int i = 0; i < v->jv_n; i++) {
      if (i)
        ty_jbuf_add(b, ", ", 2);
      ty_jsonb_print(b, v->jv_vals[i]);
    }
    ty_jbuf_addc(b, ']');
    return;
  case TJ_OBJECT:
    ty_jbuf_addc(b, '{');
    for (int i = 0; i < v->jv_n; i++) {
      if (i)
        ty_jbuf_add(b, ", ", 2);
      ty_jbuf_add_jstring(b, v->jv_keys[i].s_ptr, v->jv_keys[i].s_len);
      ty_jbuf_add(b, ": ", 2);
      ty_jsonb_print(b, v->jv_vals[i]);
    }
    ty_jbuf_addc(b, '}');
    return;
  }
}

int ty_jsonb_key_cmp(const str_t *a, const str_t *b)
{
  if (a->s_len != b->s_len)
    return a->s_len < b->s_len ? -1 : 1;
  int c = a->s_len ? memcmp(a->s_ptr, b->s_ptr, a->s_len) : 0;
  return c < 0 ? -1 : c > 0;
}

typedef struct {
  str_t sk_key;
  ty_jval_t *sk_val;
  int sk_pos; /* written order: the later of equal keys wins */
} ty_jsort_t;

static int ty_jsort_cmp(const void *x, const void *y)
{
  const ty_jsort_t *a = x, *b = y;
  int c = ty_jsonb_key_cmp(&a->sk_key, &b->sk_key);
  if (c)
    return c;
  return a->sk_pos < b->sk_pos ? -1 : a->sk_pos > b->sk_pos;
}

void ty_jsonb_sort_keys(ty_jval_t *obj)
{
  int n = obj->jv_n;
  if (n < 2)
    return;
  bool sorted = true;
  for (int i = 1; i < n && sorted; i++)
    sorted = ty_jsonb_key_cmp(&obj->jv_keys[i - 1], &obj->jv_keys[i]) < 0;
  if (sorted)
    return;
  ty_jsort_t stack[64];
  ty_jsort_t *s = n <= 64 ? stack : malloc(sizeof(*s) * (size_t)n);
  if (!s)
    abort(); /* as arena_alloc does when the system has no memory */
  for (int i = 0; i < n; i++)
    s[i] = (ty_jsort_t){obj->jv_keys[i], obj->jv_vals[i], i};
  qsort(s, (size_t)n, sizeof(*s), ty_jsort_cmp);
  int m = 0;
  for (int i = 0; i < n; i++) {
    if (i + 1 < n && ty_jsonb_key_cmp(&s[i].sk_key, &s[i + 1].sk_key) == 0)
      continue; /* a later pair has this key */
    obj->jv_keys[m] = s[i].sk_key;
    obj->jv_vals[m] = s[i].sk_val;
    m++;
  }
  obj->jv_n = m;
  if (s != stack)
    free(s);
}

/* Canonical numbers: sign, then digits before the point, then after. */
int ty_json_number_cmp(const str_t *a, const str_t *b)
{
  const char *pa = a->s_ptr, *pb = b->s_ptr;
  size_t la = a->s_len, lb = b->s_len;
  bool na = la && pa[0] == '-', nb = lb && pb[0] == '-';
  if (na != nb)
    return na ? -1 : 1;
  int sign = na ? -1 : 1;
  if (na) {
    pa++, la--;
    pb++, lb--;
  }
  const char *da = memchr(pa, '.', la), *db = memchr(pb, '.', lb);
  size_t ia = da ? (size_t)(da - pa) : la, ib = db ? (size_t)(db - pb) : lb;
  /* canonical integer parts have no leading zeros (but "0") */
  bool za = ia == 1 && pa[0] == '0', zb = ib == 1 && pb[0] == '0';
  if (za)
    ia = 0;
  if (zb)
    ib = 0;
  if (ia != ib)
    return ia < ib ? -sign : sign;
  int c = ia ? memcmp(za ? "" : pa, zb ? "" : pb, ia) : 0;
  if (c)
    return c < 0 ? -sign : sign;
  const char *fa = da ? da + 1 : "", *fb = db ? db + 1 : "";
  size_t fla = da ? la - (size_t)(da - pa) - 1 : 0, flb = db ? lb - (size_t)(db - pb) - 1 : 0;
  size_t n = CZ_MAX(fla, flb);
  for (size_t i = 0; i < n; i++) {
    char x = i < fla ? fa[i] : '0', y = i < flb ? fb[i] : '0';
    if (x != y)
      return x < y ? -sign : sign;
  }
  return 0;
}

static int ty_jsonb_rank(const ty_jval_t *v)
{
  /* PostgreSQL's order of kinds: null < string < number < boolean < array < object */
  switch (v->jv_kind) {
  case TJ_NULL: return 0;
  case TJ_STRING: return 1;
  case TJ_NUMBER: return 2;
  case TJ_BOOL: return 3;
  case TJ_ARRAY: return 4;
  case TJ_OBJECT: return 5;
  }
  return 0;
}

static int ty_jsonb_scalar_cmp(const ty_jval_t *a, const ty_jval_t *b)
{
  switch (a->jv_kind) {
  case TJ_NULL:
    return 0;
  case TJ_BOOL:
    return (int)a->jv_bool - (int)b->jv_bool;
  case TJ_NUMBER:
    return ty_json_number_cmp(&a->jv_str, &b->jv_str);
  case TJ_STRING: {
    /* the database collation: C, bytewise, then the shorter first */
    uint32_t n = CZ_MIN(a->jv_str.s_len, b->jv_str.s_len);
    int c = n ? memcmp(a->jv_str.s_ptr, b->jv_str.s_ptr, n) : 0;
    if (c)
      return c < 0 ? -1 : 1;
    return a->jv_str.s_len < b->jv_str.s_len ? -1 : a->jv_str.s_len > b->jv_str.s_len;
  }
  default:
    return 0;
  }
}

int ty_jsonb_cmp(const ty_jval_t *a, const ty_jval_t *b)
{
  bool ca = a->jv_kind == TJ_ARRAY || a->jv_kind == TJ_OBJECT;
  bool cb = b->jv_kind == TJ_ARRAY || b->jv_kind == TJ_OBJECT;
  if (!ca && !cb) {
    if (a->jv_kind != b->jv_kind)
      return ty_jsonb_rank(a) < ty_jsonb_rank(b) ? -1 : 1;
    int c = ty_jsonb_scalar_cmp(a, b);
    return c < 0 ? -1 : c > 0;
  }
  /* a top-level scalar is a one-element raw array: it sorts before any
   * array of one element (PostgreSQL: rawScalar arrays compare first) */
  if (!ca || !cb) {
    ty_jkind_t ka = ca ? a->jv_kind : TJ_ARRAY, kb = cb ? b->jv_kind : TJ_ARRAY;
    if (ka != kb)
      return ka == TJ_OBJECT ? 1 : -1;
    if (ka == TJ_ARRAY) {
      int na = ca ? a->jv_n : 1, nb = cb ? b->jv_n : 1;
      if (na != nb)
        return na < nb ? -1 : 1;
      return ca ? 1 : -1; /* raw scalar first */
    }
  }
  if (a->jv_kind != b->jv_kind)
    return a->jv_kind == TJ_OBJECT ? 1 : -1;
  if (a->jv_n != b->jv_n)
    return a->jv_n < b->jv_n ? -1 : 1;
  for (int i = 0; i < a->jv_n; i++) {
    if (a->jv_kind == TJ_OBJECT) {
      /* keys compare as strings do (PostgreSQL's compareJsonbScalarValue) */
      ty_jval_t ka = {.jv_kind = TJ_STRING, .jv_str = a->jv_keys[i]};
      ty_jval_t kb = {.jv_kind = TJ_STRING, .jv_str = b->jv_keys[i]};
      int c = ty_jsonb_scalar_cmp(&ka, &kb);
      if (c)
        return c < 0 ? -1 : 1;
    }
    const ty_jval_t *x = a->jv_vals[i], *y = b->jv_vals[i];
    int c;
    bool cx = x->jv_kind == TJ_ARRAY || x->jv_kind == TJ_OBJECT;
    bool cy = y->jv_kind == TJ_ARRAY || y->jv_kind == TJ_OBJECT;
    if (cx || cy || x->jv_kind != y->jv_kind) {
      if (x->jv_kind != y->jv_kind)
        return ty_jsonb_rank(x) < ty_jsonb_rank(y) ? -1 : 1;
      c = ty_jsonb_cmp(x, y);
    } else {
      c = ty_jsonb_scalar_cmp(x, y);
    }
    if (c)
      return c < 0 ? -1 : 1;
  }
  return 0;
}

int ty_json_input(bool jsonb, const char *s, size_t len, arena_t *a, str_t *out, err_t *e)
{
  if (!jsonb) {
    if (ty_json_validate(s, len, e) != CZ_OK)
      return CZ_ERR;
    char *p = arena_alloc(a, len ? len : 1);
    if (len)
      memcpy(p, s, len);
    out->s_ptr = p;
    out->s_len = (uint32_t)len;
    return CZ_OK;
  }
  /* the tree is scratch: only the canonical text is kept */
  arena_t *tmp = arena_create(a, "jsonb input");
  ty_jval_t *v;
  if (ty_json_parse(s, len, true, tmp, &v, e) != CZ_OK) {
    arena_destroy(tmp);
    return CZ_ERR;
  }
  ty_jbuf_t b;
  ty_jbuf_init(&b, tmp);
  ty_jsonb_print(&b, v);
  if (b.jb_failed) {
    if (e)
      *e = b.jb_err;
    arena_destroy(tmp);
    return CZ_ERR;
  }
  char *p = arena_alloc(a, b.jb_len ? b.jb_len : 1);
  memcpy(p, b.jb_ptr, b.jb_len);
  out->s_ptr = p;
  out->s_len = (uint32_t)b.jb_len;
  arena_destroy(tmp);
  return CZ_OK;
}

/* ---- the order and hash of stored jsonb text ---------------------------- */

int ty_jsonb_text_cmp(const str_t *a, const str_t *b)
{
  if (a->s_len == b->s_len && (a->s_len == 0 || memcmp(a->s_ptr, b->s_ptr, a->s_len) == 0))
    return 0;
  arena_t *ar = arena_create(NULL, "jsonb cmp");
  ty_jval_t *x, *y;
  err_t e;
  int c;
  if (ar && ty_json_parse(a->s_ptr, a->s_len, true, ar, &x, &e) == CZ_OK &&
      ty_json_parse(b->s_ptr, b->s_len, true, ar, &y, &e) == CZ_OK) {
    c = ty_jsonb_cmp(x, y);
  } else {
    /* not a stored jsonb (never, but no crash): bytewise */
    uint32_t n = CZ_MIN(a->s_len, b->s_len);
    c = n ? memcmp(a->s_ptr, b->s_ptr, n) : 0;
    if (!c)
      c = a->s_len < b->s_len ? -1 : a->s_len > b->s_len;
  }
  if (ar)
    arena_destroy(ar);
  return c < 0 ? -1 : c > 0;
}

uint64_t ty_jsonb_text_hash(const str_t *s)
{
  /* the canonical text with each number's fraction stripped of trailing
   * zeros (1.50 and 1.5 are equal jsonb values; nothing else that is
   * equal prints differently in the canonical form) */
  const char *p = s->s_ptr;
  size_t n = s->s_len;
  char stack[256] = {0};
  char *buf = n <= sizeof stack ? stack : malloc(n);
  if (!buf)
    return hash64(p, n, 0);
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    char c = p[i];
    if (c == '"') {  /* a string: copied whole, escapes included */
      buf[o++] = p[i++];
      while (i < n && p[i] != '"') {
        if (p[i] == '\\' && i + 1 < n)
          buf[o++] = p[i++];
        buf[o++] = p[i++];
      }
      if (i < n)
        buf[o++] = p[i++];
      continue;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i, dot = 0;
      while (j < n && (p[j] == '-' || p[j] == '.' || (p[j] >= '0' && p[j] <= '9'))) {
        if (p[j] == '.')
          dot = j;
        j++;
      }
      size_t end = j;
      if (dot) {
        while (end > dot + 1 && p[end - 1] == '0')
          end--;
        if (end == dot + 1)
          end = dot;
      }
      if (end - i == 2 && p[i] == '-' && p[i + 1] == '0')
        i++;  /* -0.0 is 0 */
      memcpy(buf + o, p + i, end - i);
      o += end - i;
      i = j;
      continue;
    }
    buf[o++] = p[i++];
  }
  uint64_t h = hash64(buf, o, 0);
  if (buf != stack)
    free(buf);
  return h;
}
