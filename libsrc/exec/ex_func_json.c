/* ex_func_json — the json and jsonb functions and the functions behind
 * their operators: to_json[b], json[b]_build_object / _array, typeof,
 * array_length, the field and element accessors (-> ->>), extract_path,
 * strip_nulls, jsonb_pretty, containment (@> <@), existence (?), jsonb's
 * || and -, and the casts of jsonb to numbers and booleans.
 *
 * Design notes: json values are their text as written, jsonb values their
 * canonical text (types/ty_jsonb.c). Builders write json text into a
 * ty_jbuf_t in the batch arena (json's spacing: `{"a" : 1, "b" : 2}` from
 * json_build_object, `[1, 2]` from json_build_array, as PostgreSQL 15);
 * the jsonb builders run the same text through jsonb's input, which sorts
 * keys and canonicalises numbers. Functions that look inside a value
 * parse it (ty_json_parse), which bounds their recursion by the depth
 * limit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exec/ex_int.h"

/* ---- output helpers ---- */

static int xj_take(xctx_t *c, ty_jbuf_t *b, bool jsonb, datum_t *out, err_t *e)
{
  if (b->jb_failed) {
    if (e)
      *e = b->jb_err;
    return CZ_ERR;
  }
  memset(out, 0, sizeof(*out));
  if (jsonb)
    return ty_parse_text(ty_plain(TY_JSONB), b->jb_ptr ? b->jb_ptr : "", b->jb_len, c->xc_arena, out, e);
  out->d_str.s_ptr = b->jb_ptr ? b->jb_ptr : "";
  out->d_str.s_len = (uint32_t)b->jb_len;
  return CZ_OK;
}

static int xj_parse(xctx_t *c, const datum_t *d, bool jsonb, ty_jval_t **v, err_t *e)
{
  return ty_json_parse(d->d_str.s_ptr, d->d_str.s_len, jsonb, c->xc_arena, v, e);
}

/* A tree's value as a json or jsonb datum: json keeps the text as
 * written, jsonb prints the canonical form. */
static int xj_value_out(xctx_t *c, const ty_jval_t *v, bool jsonb, datum_t *out, err_t *e)
{
  memset(out, 0, sizeof(*out));
  if (!jsonb) {
    out->d_str = v->jv_raw;
    return CZ_OK;
  }
  ty_jbuf_t b;
  ty_jbuf_init(&b, c->xc_arena);
  ty_jsonb_print(&b, v);
  return xj_take(c, &b, false, out, e);
}

/* A tree's value as text (->>): strings decoded, null is SQL NULL. */
static int xj_text_out(xctx_t *c, const ty_jval_t *v, bool jsonb, datum_t *out, err_t *e)
{
  if (v->jv_kind == TJ_NULL) {
    out->d_null = true;
    return CZ_OK;
  }
  if (v->jv_kind == TJ_STRING) {
    memset(out, 0, sizeof(*out));
    out->d_str = v->jv_str;
    return CZ_OK;
  }
  return xj_value_out(c, v, jsonb, out, e);
}

/* ---- SQL values to JSON (PostgreSQL's datum_to_json) ---- */

static void xj_add_datum(ty_jbuf_t *b, ty_t t, const datum_t *d, arena_t *a);

/* The bytes of the array element starting at s (quoted or not): what
 * its unescaped text needs at most, so that each element takes its own
 * size, not the rest of the array's. */
static size_t xj_elem_span(const char *s, const char *end)
{
  const char *q = s;
  if (q < end && *q == '"') {
    q++;
    while (q < end && *q != '"')
      q += *q == '\\' ? 2 : 1;
  } else {
    while (q < end && *q != ',' && *q != '}')
      q += *q == '\\' ? 2 : 1;
  }
  return (size_t)(CZ_MIN(q, end) - s);
}

/* An array's text form ({1,2}, {{"a",NULL}}) as a JSON array of its
 * elements' JSON, compact as array_to_json writes it ([1,2]); false when
 * the text is no array (the caller then writes it as a string). */
static bool xj_add_array(ty_jbuf_t *b, ty_t elem, const char **pp, const char *end, arena_t *a, int depth)
{
  const char *s = *pp;
  if (s >= end || *s != '{' || depth > TY_ARRAY_MAXDIM)
    return false;
  s++;
  ty_jbuf_addc(b, '[');
  bool first = true;
  while (s < end && *s != '}') {
    if (!first) {
      if (*s != ',')
        return false;
      s++;
      ty_jbuf_addc(b, ',');
    }
    first = false;
    if (s < end && *s == '{') {
      if (!xj_add_array(b, elem, &s, end, a, depth + 1))
        return false;
      continue;
    }
    char *v = arena_alloc(a, xj_elem_span(s, end) + 1);
    size_t vl = 0;
    bool quoted = s < end && *s == '"';
    if (quoted) {
      s++;
      while (s < end && *s != '"') {
        if (*s == '\\' && s + 1 < end)
          s++;
        v[vl++] = *s++;
      }
      if (s >= end)
        return false;
      s++;
    } else {
      while (s < end && *s != ',' && *s != '}')
        v[vl++] = *s++;
    }
    datum_t d;
    err_t e;
    if (!quoted && vl == 4 && strncasecmp(v, "null", 4) == 0) {
      ty_jbuf_add(b, "null", 4);
    } else if (ty_parse_text(ty_plain(elem.t_id), v, vl, a, &d, &e) == CZ_OK) {
      d.d_null = false;
      xj_add_datum(b, ty_plain(elem.t_id), &d, a);
    } else {
      return false;
    }
  }
  if (s >= end)
    return false;
  ty_jbuf_addc(b, ']');
  *pp = s + 1;
  return true;
}

static void xj_add_datum(ty_jbuf_t *b, ty_t t, const datum_t *d, arena_t *a)
{
  if (d->d_null) {
    ty_jbuf_add(b, "null", 4);
    return;
  }
  if (t.t_id == TY_BOOL) {
    if (d->d_bool)
      ty_jbuf_add(b, "true", 4);
    else
      ty_jbuf_add(b, "false", 5);
    return;
  }
  if (t.t_elem == TY_UNKNOWN && (t.t_id == TY_JSON || t.t_id == TY_JSONB)) {
    ty_jbuf_add(b, d->d_str.s_ptr, d->d_str.s_len);
    return;
  }
  if (t.t_elem != TY_UNKNOWN && t.t_elem < TY_COUNT_) {
    const char *s = d->d_str.s_ptr;
    size_t mark = b->jb_len;
    if (xj_add_array(b, ty_plain(t.t_elem), &s, d->d_str.s_ptr + d->d_str.s_len, a, 1) &&
        s == d->d_str.s_ptr + d->d_str.s_len)
      return;
    b->jb_len = mark; /* not an array's text after all: a string, below */
  }
  size_t cap = ty_text_max(t, d);
  char *txt = arena_try_alloc(a, cap ? cap : 1);
  if (!txt) {
    ty_jbuf_add(b, NULL, (size_t)1 << 31); /* marks the buffer failed */
    return;
  }
  int n = ty_format_text(t, d, txt, cap);
  if (n < 0)
    n = 0;
  if (t.t_elem == TY_UNKNOWN && (t.t_id == TY_INT2 || t.t_id == TY_INT4 || t.t_id == TY_INT8 ||
                                 t.t_id == TY_NUMERIC)) {
    ty_jbuf_add(b, txt, (size_t)n);
    return;
  }
  if (t.t_elem == TY_UNKNOWN && (t.t_id == TY_FLOAT4 || t.t_id == TY_FLOAT8)) {
    if (isfinite(d->d_f64))
      ty_jbuf_add(b, txt, (size_t)n);
    else
      ty_jbuf_add_jstring(b, txt, (size_t)n); /* "NaN", "Infinity" */
    return;
  }
  if (t.t_elem == TY_UNKNOWN &&
      (t.t_id == TY_TIMESTAMP || t.t_id == TY_TIMESTAMPTZ || t.t_id == TY_TIMETZ) && n > 0 &&
      txt[0] != 'i' && txt[0] != '-') {
    /* XML Schema's form, as PostgreSQL's JSON of dates and times:
     * 2020-01-02T03:04:05, offsets written out as +01:00 */
    char *sp = memchr(txt, ' ', (size_t)n);
    if (sp && t.t_id != TY_TIMETZ)
      *sp = 'T';
    if (t.t_id != TY_TIMESTAMP) {
      int k = n - 1;
      while (k > 0 && txt[k] >= '0' && txt[k] <= '9')
        k--;
      if ((txt[k] == '+' || txt[k] == '-') && n - k == 3) {
        char *w = arena_alloc(a, (size_t)n + 3);
        memcpy(w, txt, (size_t)n);
        memcpy(w + n, ":00", 3);
        txt = w;
        n += 3;
      }
    }
  }
  ty_jbuf_add_jstring(b, txt, (size_t)n);
}

static int xf_to_json(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  ty_jbuf_t b;
  ty_jbuf_init(&b, c->xc_arena);
  xj_add_datum(&b, x->x_args[0]->x_type, &a[0], c->xc_arena);
  return xj_take(c, &b, x->x_type.t_id == TY_JSONB, out, e);
}

static int xf_array_to_json(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  ty_t t = x->x_args[0]->x_type;
  if (t.t_elem == TY_UNKNOWN) {
    char *tn = ty_name(c->xc_arena, t);
    return err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "function array_to_json(%s) does not exist", tn);
  }
  return xf_to_json(c, x, a, out, e);
}

static int xj_build_object(xctx_t *c, const xnode_t *x, const datum_t *a, bool jsonb, datum_t *out,
                           err_t *e)
{
  int n = x->x_nargs;
  const char *fn = jsonb ? "jsonb_build_object" : "json_build_object";
  if (n % 2) {
    err_set(e, SQLSTATE_INVALID_PARAMETER, "argument list must have even number of elements");
    return err_hint(e, "The arguments of %s() must consist of alternating keys and values.", fn);
  }
  ty_jbuf_t b;
  ty_jbuf_init(&b, c->xc_arena);
  ty_jbuf_addc(&b, '{');
  for (int i = 0; i < n; i += 2) {
    ty_t kt = x->x_args[i]->x_type;
    if (a[i].d_null) {
      err_set(e, SQLSTATE_NULL_VALUE_NOT_ALLOWED, "argument %d cannot be null", i + 1);
      return err_hint(e, "Object keys should be text.");
    }
    if (kt.t_elem != TY_UNKNOWN || kt.t_id == TY_JSON || kt.t_id == TY_JSONB)
      return err_set(e, SQLSTATE_INVALID_PARAMETER, "key value must be scalar, not array, composite, or json");
    if (i)
      ty_jbuf_add(&b, ", ", 2);
    datum_t k;
    if (xcast_datum(kt, &a[i], ty_plain(TY_TEXT), c->xc_arena, &k, e) != CZ_OK)
      return CZ_ERR;
    ty_jbuf_add_jstring(&b, k.d_str.s_ptr, k.d_str.s_len);
    ty_jbuf_add(&b, " : ", 3);
    xj_add_datum(&b, x->x_args[i + 1]->x_type, &a[i + 1], c->xc_arena);
  }
  ty_jbuf_addc(&b, '}');
  return xj_take(c, &b, jsonb, out, e);
}

static int xf_json_build_object(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_build_object(c, x, a, false, out, e);
}

static int xf_jsonb_build_object(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_build_object(c, x, a, true, out, e);
}

/* _cz_json_row(name, value, …): a row as row_to_json / to_json write it,
 * compact ({"a":1,"b":"x"}); the binder passes a whole-row reference's
 * column names (text constants, never NULL) and values
 * (sql_bind_row_json.c). The jsonb form is that text made canonical. */
static int xf_json_row(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  ty_jbuf_t b;
  ty_jbuf_init(&b, c->xc_arena);
  ty_jbuf_addc(&b, '{');
  for (int i = 0; i + 1 < x->x_nargs; i += 2) {
    datum_t k;  /* the column's name: a text (or untyped) constant */
    if (xcast_datum(x->x_args[i]->x_type, &a[i], ty_plain(TY_TEXT), c->xc_arena, &k, e) != CZ_OK)
      return CZ_ERR;
    if (i)
      ty_jbuf_addc(&b, ',');
    ty_jbuf_add_jstring(&b, k.d_str.s_ptr, k.d_str.s_len);
    ty_jbuf_addc(&b, ':');
    xj_add_datum(&b, x->x_args[i + 1]->x_type, &a[i + 1], c->xc_arena);
  }
  ty_jbuf_addc(&b, '}');
  return xj_take(c, &b, x->x_type.t_id == TY_JSONB, out, e);
}

static int xf_build_array(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  ty_jbuf_t b;
  ty_jbuf_init(&b, c->xc_arena);
  ty_jbuf_addc(&b, '[');
  for (int i = 0; i < x->x_nargs; i++) {
    if (i)
      ty_jbuf_add(&b, ", ", 2);
    xj_add_datum(&b, x->x_args[i]->x_type, &a[i], c->xc_arena);
  }
  ty_jbuf_addc(&b, ']');
  return xj_take(c, &b, x->x_type.t_id == TY_JSONB, out, e);
}

/* ---- looking inside ---- */

static bool xj_is_jsonb(const xnode_t *x)
{
  return x->x_args[0]->x_type.t_id == TY_JSONB;
}

static int xf_typeof(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  ty_jval_t *v;
  if (xj_parse(c, &a[0], xj_is_jsonb(x), &v, e) != CZ_OK)
    return CZ_ERR;
  static const char *const names[] = {"null", "string", "number", "boolean", "array", "object"};
  memset(out, 0, sizeof(*out));
  out->d_str.s_ptr = names[v->jv_kind];
  out->d_str.s_len = (uint32_t)strlen(names[v->jv_kind]);
  return CZ_OK;
}

static int xf_array_length(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  ty_jval_t *v;
  if (xj_parse(c, &a[0], xj_is_jsonb(x), &v, e) != CZ_OK)
    return CZ_ERR;
  if (v->jv_kind == TJ_OBJECT)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "cannot get array length of a non-array");
  if (v->jv_kind != TJ_ARRAY)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "cannot get array length of a scalar");
  memset(out, 0, sizeof(*out));
  out->d_i64 = v->jv_n;
  return CZ_OK;
}

/* The value of key k in object v (json: the last of equal keys), or NULL. */
static const ty_jval_t *xj_field(const ty_jval_t *v, const char *k, size_t kl)
{
  if (v->jv_kind != TJ_OBJECT)
    return NULL;
  for (int i = v->jv_n - 1; i >= 0; i--)
    if (v->jv_keys[i].s_len == kl && memcmp(v->jv_keys[i].s_ptr, k, kl) == 0)
      return v->jv_vals[i];
  return NULL;
}

/* Element i of array v (negative from the end), or NULL. */
static const ty_jval_t *xj_elem(const ty_jval_t *v, int64_t i)
{
  if (v->jv_kind != TJ_ARRAY)
    return NULL;
  if (i < 0)
    i += v->jv_n;
  if (i < 0 || i >= v->jv_n)
    return NULL;
  return v->jv_vals[i];
}

/* mode: bit 1 a text result (->>), bit 2 an index rather than a key. */
static int xj_get(xctx_t *c, const xnode_t *x, const datum_t *a, int mode, datum_t *out, err_t *e)
{
  bool jb = xj_is_jsonb(x), txt = mode & 1, idx = mode & 2;
  ty_jval_t *v;
  if (xj_parse(c, &a[0], jb, &v, e) != CZ_OK)
    return CZ_ERR;
  const ty_jval_t *r = idx ? xj_elem(v, a[1].d_i64) : xj_field(v, a[1].d_str.s_ptr, a[1].d_str.s_len);
  if (!r) {
    out->d_null = true;
    return CZ_OK;
  }
  return txt ? xj_text_out(c, r, jb, out, e) : xj_value_out(c, r, jb, out, e);
}

static int xf_get_field(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_get(c, x, a, 0, out, e);
}

static int xf_get_field_text(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_get(c, x, a, 1, out, e);
}

static int xf_get_elem(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_get(c, x, a, 2, out, e);
}

static int xf_get_elem_text(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_get(c, x, a, 3, out, e);
}

/* json[b]_extract_path[_text](j, VARIADIC text): keys, or indexes into
 * arrays when the step is an integer. NULL when a step is missing or
 * NULL. */
static int xj_extract_path(xctx_t *c, const xnode_t *x, const datum_t *a, bool txt, datum_t *out,
                           err_t *e)
{
  bool jb = xj_is_jsonb(x);
  if (a[0].d_null) {
    out->d_null = true;
    return CZ_OK;
  }
  ty_jval_t *v;
  if (xj_parse(c, &a[0], jb, &v, e) != CZ_OK)
    return CZ_ERR;
  const ty_jval_t *r = v;
  for (int i = 1; i < x->x_nargs && r; i++) {
    if (a[i].d_null) {
      r = NULL;
      break;
    }
    const char *k = a[i].d_str.s_ptr;
    size_t kl = a[i].d_str.s_len;
    if (r->jv_kind == TJ_ARRAY) {
      char buf[24];
      char *end;
      if (kl == 0 || kl >= sizeof buf) {
        r = NULL;
        break;
      }
      memcpy(buf, k, kl);
      buf[kl] = '\0';
      long long ix = strtoll(buf, &end, 10);
      r = *end ? NULL : xj_elem(r, ix);
    } else {
      r = xj_field(r, k, kl);
    }
  }
  if (!r) {
    out->d_null = true;
    return CZ_OK;
  }
  return txt ? xj_text_out(c, r, jb, out, e) : xj_value_out(c, r, jb, out, e);
}

static int xf_extract_path(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_extract_path(c, x, a, false, out, e);
}

static int xf_extract_path_text(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_extract_path(c, x, a, true, out, e);
}

/* ---- jsonb containment and existence ---- */

static bool xj_scalar_eq(const ty_jval_t *a, const ty_jval_t *b)
{
  return a->jv_kind == b->jv_kind && ty_jsonb_cmp(a, b) == 0;
}

/* PostgreSQL's JsonbDeepContains: every pair of b's object in a's, every
 * element of b's array somewhere in a's. */
static bool xj_contains(const ty_jval_t *a, const ty_jval_t *b)
{
  if (a->jv_kind != b->jv_kind)
    return false;
  if (a->jv_kind == TJ_OBJECT) {
    for (int i = 0; i < b->jv_n; i++) {
      const ty_jval_t *av = xj_field(a, b->jv_keys[i].s_ptr, b->jv_keys[i].s_len);
      const ty_jval_t *bv = b->jv_vals[i];
      if (!av)
        return false;
      if (bv->jv_kind == TJ_OBJECT || bv->jv_kind == TJ_ARRAY) {
        if (!xj_contains(av, bv))
          return false;
      } else if (!xj_scalar_eq(av, bv)) {
        return false;
      }
    }
    return true;
  }
  if (a->jv_kind == TJ_ARRAY) {
    for (int i = 0; i < b->jv_n; i++) {
      const ty_jval_t *bv = b->jv_vals[i];
      bool found = false;
      for (int j = 0; j < a->jv_n && !found; j++) {
        const ty_jval_t *av = a->jv_vals[j];
        if (bv->jv_kind == TJ_OBJECT || bv->jv_kind == TJ_ARRAY)
          found = xj_contains(av, bv);
        else
          found = xj_scalar_eq(av, bv);
      }
      if (!found)
        return false;
    }
    return true;
  }
  return xj_scalar_eq(a, b);
}

static bool xj_top_contains(const ty_jval_t *a, const ty_jval_t *b)
{
  bool ca = a->jv_kind == TJ_ARRAY || a->jv_kind == TJ_OBJECT;
  bool cb = b->jv_kind == TJ_ARRAY || b->jv_kind == TJ_OBJECT;
  if (a->jv_kind == TJ_ARRAY && !cb) {
    /* an array contains a raw scalar that is one of its elements */
    for (int j = 0; j < a->jv_n; j++)
      if (xj_scalar_eq(a->jv_vals[j], b))
        return true;
    return false;
  }
  if (!ca && !cb)
    return xj_scalar_eq(a, b);
  if (ca != cb)
    return false;
  return xj_contains(a, b);
}

static int xj_contains_call(xctx_t *c, const datum_t *a, bool contained, datum_t *out, err_t *e)
{
  ty_jval_t *l, *r;
  if (xj_parse(c, &a[0], true, &l, e) != CZ_OK || xj_parse(c, &a[1], true, &r, e) != CZ_OK)
    return CZ_ERR;
  memset(out, 0, sizeof(*out));
  out->d_bool = contained ? xj_top_contains(r, l) : xj_top_contains(l, r);
  return CZ_OK;
}

static int xf_contains(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return xj_contains_call(c, a, false, out, e);
}

static int xf_contained(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return xj_contains_call(c, a, true, out, e);
}

static int xf_exists(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  ty_jval_t *v;
  if (xj_parse(c, &a[0], true, &v, e) != CZ_OK)
    return CZ_ERR;
  const char *k = a[1].d_str.s_ptr;
  size_t kl = a[1].d_str.s_len;
  bool found = false;
  if (v->jv_kind == TJ_OBJECT) {
    found = xj_field(v, k, kl) != NULL;
  } else if (v->jv_kind == TJ_ARRAY) {
    for (int i = 0; i < v->jv_n && !found; i++)
      found = v->jv_vals[i]->jv_kind == TJ_STRING && v->jv_vals[i]->jv_str.s_len == kl &&
              memcmp(v->jv_vals[i]->jv_str.s_ptr, k, kl) == 0;
  } else if (v->jv_kind == TJ_STRING) {
    found = v->jv_str.s_len == kl && memcmp(v->jv_str.s_ptr, k, kl) == 0;
  }
  memset(out, 0, sizeof(*out));
  out->d_bool = found;
  return CZ_OK;
}

/* ---- jsonb || and - ---- */

static int xf_concat(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  ty_jval_t *l, *r;
  if (xj_parse(c, &a[0], true, &l, e) != CZ_OK || xj_parse(c, &a[1], true, &r, e) != CZ_OK)
    return CZ_ERR;
  ty_jbuf_t b;
  ty_jbuf_init(&b, c->xc_arena);
  if (l->jv_kind == TJ_OBJECT && r->jv_kind == TJ_OBJECT) {
    /* both objects' pairs: jsonb's input keeps the right one of a key */
    ty_jbuf_addc(&b, '{');
    int k = 0;
    for (int s = 0; s < 2; s++) {
      const ty_jval_t *o = s ? r : l;
      for (int i = 0; i < o->jv_n; i++, k++) {
        if (k)
          ty_jbuf_add(&b, ", ", 2);
        ty_jbuf_add_jstring(&b, o->jv_keys[i].s_ptr, o->jv_keys[i].s_len);
        ty_jbuf_add(&b, ": ", 2);
        ty_jsonb_print(&b, o->jv_vals[i]);
      }
    }
    ty_jbuf_addc(&b, '}');
    return xj_take(c, &b, true, out, e);
  }
  /* otherwise an array of both sides' elements (a non-array side is one
   * element) */
  ty_jbuf_addc(&b, '[');
  int k = 0;
  for (int s = 0; s < 2; s++) {
    const ty_jval_t *o = s ? r : l;
    int n = o->jv_kind == TJ_ARRAY ? o->jv_n : 1;
    for (int i = 0; i < n; i++, k++) {
      if (k)
        ty_jbuf_add(&b, ", ", 2);
      ty_jsonb_print(&b, o->jv_kind == TJ_ARRAY ? o->jv_vals[i] : o);
    }
  }
  ty_jbuf_addc(&b, ']');
  return xj_take(c, &b, true, out, e);
}

static int xj_delete(xctx_t *c, const datum_t *a, bool idx, datum_t *out, err_t *e)
{
  ty_jval_t *v;
  if (xj_parse(c, &a[0], true, &v, e) != CZ_OK)
    return CZ_ERR;
  if (v->jv_kind != TJ_OBJECT && v->jv_kind != TJ_ARRAY)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "cannot delete from scalar");
  if (idx && v->jv_kind == TJ_OBJECT)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "cannot delete from object using integer index");
  int64_t at = idx ? a[1].d_i64 : -1;
  if (idx && at < 0)
    at += v->jv_n;
  int m = 0;
  for (int i = 0; i < v->jv_n; i++) {
    bool drop;
    if (idx)
      drop = i == at;
    else if (v->jv_kind == TJ_OBJECT)
      drop = v->jv_keys[i].s_len == a[1].d_str.s_len &&
             memcmp(v->jv_keys[i].s_ptr, a[1].d_str.s_ptr, a[1].d_str.s_len) == 0;
    else
      drop = v->jv_vals[i]->jv_kind == TJ_STRING && v->jv_vals[i]->jv_str.s_len == a[1].d_str.s_len &&
             memcmp(v->jv_vals[i]->jv_str.s_ptr, a[1].d_str.s_ptr, a[1].d_str.s_len) == 0;
    if (drop)
      continue;
    if (v->jv_keys)
      v->jv_keys[m] = v->jv_keys[i];
    v->jv_vals[m++] = v->jv_vals[i];
  }
  v->jv_n = m;
  return xj_value_out(c, v, true, out, e);
}

static int xf_delete_key(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return xj_delete(c, a, false, out, e);
}

static int xf_delete_index(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return xj_delete(c, a, true, out, e);
}

/* ---- strip_nulls, pretty ---- */

static void xj_strip(ty_jval_t *v)
{
  if (v->jv_kind != TJ_OBJECT && v->jv_kind != TJ_ARRAY)
    return;
  int m = 0;
  for (int i = 0; i < v->jv_n; i++) {
    xj_strip(v->jv_vals[i]);
    if (v->jv_kind == TJ_OBJECT && v->jv_vals[i]->jv_kind == TJ_NULL)
      continue;
    if (v->jv_keys)
      v->jv_keys[m] = v->jv_keys[i];
    v->jv_vals[m++] = v->jv_vals[i];
  }
  v->jv_n = m;
}

/* json_strip_nulls keeps json's compact spacing: `{"a":1,"b":[null]}`. */
static void xj_print_compact(ty_jbuf_t *b, const ty_jval_t *v)
{
  if (v->jv_kind == TJ_OBJECT || v->jv_kind == TJ_ARRAY) {
    bool obj = v->jv_kind == TJ_OBJECT;
    ty_jbuf_addc(b, obj ? '{' : '[');
    for (int i = 0; i < v->jv_n; i++) {
      if (i)
        ty_jbuf_addc(b, ',');
      if (obj) {
        ty_jbuf_add_jstring(b, v->jv_keys[i].s_ptr, v->jv_keys[i].s_len);
        ty_jbuf_addc(b, ':');
      }
      xj_print_compact(b, v->jv_vals[i]);
    }
    ty_jbuf_addc(b, obj ? '}' : ']');
    return;
  }
  ty_jbuf_add(b, v->jv_raw.s_ptr, v->jv_raw.s_len);
}

static int xf_strip_nulls(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  bool jb = xj_is_jsonb(x);
  ty_jval_t *v;
  if (xj_parse(c, &a[0], jb, &v, e) != CZ_OK)
    return CZ_ERR;
  xj_strip(v);
  if (jb)
    return xj_value_out(c, v, true, out, e);
  ty_jbuf_t b;
  ty_jbuf_init(&b, c->xc_arena);
  xj_print_compact(&b, v);
  return xj_take(c, &b, false, out, e);
}

static void xj_indent(ty_jbuf_t *b, int level)
{
  ty_jbuf_addc(b, '\n');
  for (int i = 0; i < level; i++)
    ty_jbuf_add(b, "    ", 4);
}

static void xj_pretty(ty_jbuf_t *b, const ty_jval_t *v, int level)
{
  if (v->jv_kind != TJ_OBJECT && v->jv_kind != TJ_ARRAY) {
    ty_jsonb_print(b, v);
    return;
  }
  bool obj = v->jv_kind == TJ_OBJECT;
  if (v->jv_n == 0) { /* jsonb_pretty's empty container: `{` newline `}` at its level */
    ty_jbuf_addc(b, obj ? '{' : '[');
    xj_indent(b, level);
    ty_jbuf_addc(b, obj ? '}' : ']');
    return;
  }
  ty_jbuf_addc(b, obj ? '{' : '[');
  for (int i = 0; i < v->jv_n; i++) {
    if (i)
      ty_jbuf_addc(b, ',');
    xj_indent(b, level + 1);
    if (obj) {
      ty_jbuf_add_jstring(b, v->jv_keys[i].s_ptr, v->jv_keys[i].s_len);
      ty_jbuf_add(b, ": ", 2);
    }
    xj_pretty(b, v->jv_vals[i], level + 1);
  }
  xj_indent(b, level);
  ty_jbuf_addc(b, obj ? '}' : ']');
}

static int xf_jsonb_pretty(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  ty_jval_t *v;
  if (xj_parse(c, &a[0], true, &v, e) != CZ_OK)
    return CZ_ERR;
  ty_jbuf_t b;
  ty_jbuf_init(&b, c->xc_arena);
  xj_pretty(&b, v, 0);
  return xj_take(c, &b, false, out, e);
}

/* ---- jsonb to numbers and booleans (casts) ---- */

int xj_jsonb_to_scalar(str_t s, ty_t to, arena_t *a, datum_t *out, err_t *e)
{
  arena_t *tmp = arena_create(a, "jsonb cast");
  ty_jval_t *v;
  int rc = ty_json_parse(s.s_ptr, s.s_len, true, tmp, &v, e);
  if (rc == CZ_OK) {
    bool want_bool = to.t_id == TY_BOOL;
    static const char *const kinds[] = {"null", "string", "numeric", "boolean", "array", "object"};
    if ((want_bool && v->jv_kind != TJ_BOOL) || (!want_bool && v->jv_kind != TJ_NUMBER)) {
      char *tn = ty_name(tmp, ty_plain(to.t_id));
      rc = err_set(e, SQLSTATE_INVALID_PARAMETER, "cannot cast jsonb %s to type %s", kinds[v->jv_kind], tn);
    } else if (want_bool) {
      memset(out, 0, sizeof(*out));
      out->d_bool = v->jv_bool;
    } else {
      ty_t via = to.t_id == TY_FLOAT4 || to.t_id == TY_FLOAT8 ? to : ty_plain(TY_NUMERIC);
      datum_t n;
      rc = ty_parse_text(via, v->jv_str.s_ptr, v->jv_str.s_len, a, &n, e);
      if (rc == CZ_OK)
        rc = via.t_id == to.t_id ? (*out = n, CZ_OK) : xcast_datum_ex(via, &n, to, true, a, out, e);
    }
  }
  arena_destroy(tmp);
  return rc;
}

/* ---- paths: text[] arguments (#> #>> #- ?| ?& jsonb_set jsonb_insert) ---- */

/* The elements of a one-dimensional text[] in its text form ({a,"b c",NULL}):
 * strings in c's arena, a NULL element as a NULL s_ptr. */
static int xj_text_array(xctx_t *c, const datum_t *d, str_t **out, int *n, err_t *e)
{
  const char *s = d->d_str.s_ptr, *end = s + d->d_str.s_len;
  *n = 0;
  *out = NULL;
  while (s < end && (*s == ' ' || *s == '\t' || *s == '\n'))
    s++;
  if (s >= end || *s != '{')
    goto bad;
  s++;
  int cap = 0;
  for (;;) {
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\n'))
      s++;
    if (s < end && *s == '}' && *n == 0) {
      s++;
      break;
    }
    if (s >= end || *s == '{')
      goto bad;
    char *v = arena_alloc(c->xc_arena, xj_elem_span(s, end) + 1);
    size_t vl = 0;
    bool quoted = *s == '"', null = false;
    if (quoted) {
      s++;
      while (s < end && *s != '"') {
        if (*s == '\\' && s + 1 < end)
          s++;
        v[vl++] = *s++;
      }
      if (s >= end)
        goto bad;
      s++;
    } else {
      while (s < end && *s != ',' && *s != '}') {
        if (*s == '\\' && s + 1 < end)
          s++;
        v[vl++] = *s++;
      }
      while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t' || v[vl - 1] == '\n'))
        vl--;
      null = vl == 4 && strncasecmp(v, "null", 4) == 0;
    }
    if (*n == cap) {
      cap = cap ? cap * 2 : 8;
      str_t *nv = arena_alloc(c->xc_arena, sizeof(*nv) * (size_t)cap);
      if (*n)
        memcpy(nv, *out, sizeof(*nv) * (size_t)*n);
      *out = nv;
    }
    (*out)[(*n)++] = (str_t){null ? NULL : v, (uint32_t)vl};
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\n'))
      s++;
    if (s < end && *s == ',') {
      s++;
      continue;
    }
    if (s < end && *s == '}') {
      s++;
      break;
    }
    goto bad;
  }
  while (s < end && (*s == ' ' || *s == '\t' || *s == '\n'))
    s++;
  if (s == end)
    return CZ_OK;
bad:
  err_set(e, SQLSTATE_INVALID_TEXT, "malformed array literal: \"%.*s\"", (int)CZ_MIN(d->d_str.s_len, 200),
          d->d_str.s_ptr);
  return CZ_ERR;
}

/* A path step as an array index: false when it is not an integer. */
static bool xj_index(const str_t *k, int64_t *out)
{
  char buf[24], *end;
  if (!k->s_ptr || k->s_len == 0 || k->s_len >= sizeof buf)
    return false;
  memcpy(buf, k->s_ptr, k->s_len);
  buf[k->s_len] = '\0';
  long long v = strtoll(buf, &end, 10);
  if (*end)
    return false;
  *out = v;
  return true;
}

/* #> and #>> (and their functions): the value at the path, NULL when a
 * step is missing, NULL or no index of an array. */
static int xj_path_get(xctx_t *c, const xnode_t *x, const datum_t *a, bool txt, datum_t *out, err_t *e)
{
  bool jb = xj_is_jsonb(x);
  ty_jval_t *v;
  str_t *p;
  int n;
  if (xj_text_array(c, &a[1], &p, &n, e) != CZ_OK || xj_parse(c, &a[0], jb, &v, e) != CZ_OK)
    return CZ_ERR;
  const ty_jval_t *r = v;
  for (int i = 0; i < n && r; i++) {
    int64_t ix;
    if (!p[i].s_ptr)
      r = NULL;
    else if (r->jv_kind == TJ_OBJECT)
      r = xj_field(r, p[i].s_ptr, p[i].s_len);
    else if (r->jv_kind == TJ_ARRAY)
      r = xj_index(&p[i], &ix) ? xj_elem(r, ix) : NULL;
    else
      r = NULL;
  }
  if (!r) {
    out->d_null = true;
    return CZ_OK;
  }
  return txt ? xj_text_out(c, r, jb, out, e) : xj_value_out(c, r, jb, out, e);
}

static int xf_path_get(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_path_get(c, x, a, false, out, e);
}

static int xf_path_get_text(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_path_get(c, x, a, true, out, e);
}

/* ?| and ?&: any / all of the array's (non-NULL) strings exist as keys. */
static int xj_exists_many(xctx_t *c, const datum_t *a, bool all, datum_t *out, err_t *e)
{
  ty_jval_t *v;
  str_t *p;
  int n;
  if (xj_text_array(c, &a[1], &p, &n, e) != CZ_OK || xj_parse(c, &a[0], true, &v, e) != CZ_OK)
    return CZ_ERR;
  bool res = all;
  for (int i = 0; i < n; i++) {
    if (!p[i].s_ptr)
      continue;
    datum_t args[2] = {a[0], {.d_str = p[i]}}, one;
    ty_jval_t *keep = v;
    bool found;
    if (v->jv_kind == TJ_OBJECT) {
      found = xj_field(keep, p[i].s_ptr, p[i].s_len) != NULL;
    } else {
      if (xf_exists(c, NULL, args, &one, e) != CZ_OK)
        return CZ_ERR;
      found = one.d_bool;
    }
    if (all && !found)
      res = false;
    if (!all && found)
      res = true;
  }
  memset(out, 0, sizeof(*out));
  out->d_bool = res;
  return CZ_OK;
}

static int xf_exists_any(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return xj_exists_many(c, a, false, out, e);
}

static int xf_exists_all(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return xj_exists_many(c, a, true, out, e);
}

/* jsonb - text[]: each key (or string element) removed. */
static int xf_delete_keys(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  str_t *p;
  int n;
  if (xj_text_array(c, &a[1], &p, &n, e) != CZ_OK)
    return CZ_ERR;
  datum_t cur = a[0];
  for (int i = 0; i < n; i++) {
    if (!p[i].s_ptr)
      continue;
    datum_t args[2] = {cur, {.d_str = p[i]}};
    if (xj_delete(c, args, false, &cur, e) != CZ_OK)
      return CZ_ERR;
  }
  if (n == 0 && xj_delete(c, (datum_t[2]){a[0], {.d_str = {"", 0}}}, false, &cur, e) != CZ_OK)
    return CZ_ERR; /* a scalar is refused even with no keys, as PostgreSQL */
  *out = cur;
  return CZ_OK;
}

/* The operations at a path's last step (PostgreSQL's setPath). */
typedef enum { XJ_SET, XJ_INSERT_BEFORE, XJ_INSERT_AFTER, XJ_DELETE } xj_pathop_t;

static void xj_arr_insert(arena_t *ar, ty_jval_t *v, int at, ty_jval_t *item)
{
  ty_jval_t **nv = arena_alloc(ar, sizeof(*nv) * (size_t)(v->jv_n + 1));
  if (at > 0)
    memcpy(nv, v->jv_vals, sizeof(*nv) * (size_t)at);
  nv[at] = item;
  if (v->jv_n > at)
    memcpy(nv + at + 1, v->jv_vals + at, sizeof(*nv) * (size_t)(v->jv_n - at));
  v->jv_vals = nv;
  v->jv_n++;
}

static int xj_path_apply(xctx_t *c, ty_jval_t *v, const str_t *p, int n, int level, xj_pathop_t op,
                         bool create, ty_jval_t *item, err_t *e)
{
  const str_t *k = &p[level];
  bool last = level == n - 1;
  if (v->jv_kind == TJ_OBJECT) {
    ty_jval_t *f = (ty_jval_t *)xj_field(v, k->s_ptr, k->s_len);
    if (!last)
      return f ? xj_path_apply(c, f, p, n, level + 1, op, create, item, e) : CZ_OK;
    if (op == XJ_DELETE) {
      int m = 0;
      for (int i = 0; i < v->jv_n; i++)
        if (!(v->jv_keys[i].s_len == k->s_len && memcmp(v->jv_keys[i].s_ptr, k->s_ptr, k->s_len) == 0)) {
          v->jv_keys[m] = v->jv_keys[i];
          v->jv_vals[m++] = v->jv_vals[i];
        }
      v->jv_n = m;
      return CZ_OK;
    }
    if (f && op != XJ_SET) {
      err_set(e, SQLSTATE_INVALID_PARAMETER, "cannot replace existing key");
      return err_hint(e, "Try using the function jsonb_set to replace key value.");
    }
    if (f) {
      for (int i = 0; i < v->jv_n; i++)
        if (v->jv_vals[i] == f)
          v->jv_vals[i] = item;
      return CZ_OK;
    }
    if (op == XJ_SET && !create)
      return CZ_OK;
    ty_jval_t **nv = arena_alloc(c->xc_arena, sizeof(*nv) * (size_t)(v->jv_n + 1));
    str_t *nk = arena_alloc(c->xc_arena, sizeof(*nk) * (size_t)(v->jv_n + 1));
    if (v->jv_n) {
      memcpy(nv, v->jv_vals, sizeof(*nv) * (size_t)v->jv_n);
      memcpy(nk, v->jv_keys, sizeof(*nk) * (size_t)v->jv_n);
    }
    nv[v->jv_n] = item;
    nk[v->jv_n] = *k;
    v->jv_vals = nv;
    v->jv_keys = nk;
    v->jv_n++;
    ty_jsonb_sort_keys(v);
    return CZ_OK;
  }
  if (v->jv_kind == TJ_ARRAY) {
    int64_t ix;
    if (!xj_index(k, &ix)) {
      if (!last && op != XJ_DELETE)
        return CZ_OK;
      return err_set(e, SQLSTATE_INVALID_TEXT, "path element at position %d is not an integer: \"%.*s\"",
                     level + 1, (int)CZ_MIN(k->s_len, 200), k->s_ptr);
    }
    int64_t nel = v->jv_n;
    bool before_start = false;
    if (ix < 0) {
      if (-ix > nel)
        before_start = true;
      else
        ix += nel;
    }
    if (!last) {
      if (before_start || ix >= nel)
        return CZ_OK;
      return xj_path_apply(c, v->jv_vals[ix], p, n, level + 1, op, create, item, e);
    }
    if (op == XJ_DELETE) {
      if (before_start || ix >= nel)
        return CZ_OK;
      memmove(v->jv_vals + ix, v->jv_vals + ix + 1, sizeof(*v->jv_vals) * (size_t)(nel - ix - 1));
      v->jv_n--;
      return CZ_OK;
    }
    if (op == XJ_SET && !before_start && ix < nel) {
      v->jv_vals[ix] = item;
      return CZ_OK;
    }
    if (op == XJ_SET && !create)
      return CZ_OK;
    int at = before_start ? 0 : ix >= nel ? (int)nel : (int)ix + (op == XJ_INSERT_AFTER);
    xj_arr_insert(c->xc_arena, v, at, item);
    return CZ_OK;
  }
  return CZ_OK; /* a scalar below the top: the path leads nowhere */
}

static int xj_path_op(xctx_t *c, const datum_t *a, int path_arg, xj_pathop_t op, bool create,
                      const datum_t *newval, datum_t *out, err_t *e)
{
  str_t *p;
  int n;
  ty_jval_t *v, *item = NULL;
  if (xj_text_array(c, &a[path_arg], &p, &n, e) != CZ_OK || xj_parse(c, &a[0], true, &v, e) != CZ_OK)
    return CZ_ERR;
  if (newval && xj_parse(c, newval, true, &item, e) != CZ_OK)
    return CZ_ERR;
  if (v->jv_kind != TJ_OBJECT && v->jv_kind != TJ_ARRAY)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, op == XJ_DELETE ? "cannot delete path in scalar"
                                                                  : "cannot set path in scalar");
  for (int i = 0; i < n; i++)
    if (!p[i].s_ptr)
      return err_set(e, SQLSTATE_NULL_VALUE_NOT_ALLOWED, "path element at position %d is null", i + 1);
  if (n > 0 && xj_path_apply(c, v, p, n, 0, op, create, item, e) != CZ_OK)
    return CZ_ERR;
  return xj_value_out(c, v, true, out, e);
}

static int xf_delete_path(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return xj_path_op(c, a, 1, XJ_DELETE, false, NULL, out, e);
}

static int xf_jsonb_set(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  bool create = x->x_nargs < 4 || a[3].d_bool;
  return xj_path_op(c, a, 1, XJ_SET, create, &a[2], out, e);
}

static int xf_jsonb_insert(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  bool after = x->x_nargs >= 4 && a[3].d_bool;
  return xj_path_op(c, a, 1, after ? XJ_INSERT_AFTER : XJ_INSERT_BEFORE, true, &a[2], out, e);
}

/* ---- the set-returning functions' helpers (sql/sql_bind_json_srf.c) ---- */

/* The last document the helpers parsed on this thread, kept so that a
 * series over a document's items parses it once, not once per item: its
 * own copy of the text and the tree, in a thread-owned arena reset when
 * another document comes. */
static __thread struct {
  arena_t *sc_arena;
  char *sc_text;
  size_t sc_len;
  bool sc_jsonb;
  bool sc_valid;
  ty_jval_t *sc_tree;
} xj_srf_cache;

static int xj_srf_doc(const xnode_t *x, const datum_t *d, ty_jval_t **v, err_t *e)
{
  bool jb = xj_is_jsonb(x);
  size_t len = d->d_str.s_len;
  if (xj_srf_cache.sc_valid && xj_srf_cache.sc_jsonb == jb && xj_srf_cache.sc_len == len &&
      (len == 0 || memcmp(xj_srf_cache.sc_text, d->d_str.s_ptr, len) == 0)) {
    *v = xj_srf_cache.sc_tree;
    return CZ_OK;
  }
  if (!xj_srf_cache.sc_arena)
    xj_srf_cache.sc_arena = arena_create(NULL, "json srf document");
  else
    arena_reset(xj_srf_cache.sc_arena);
  xj_srf_cache.sc_valid = false;
  char *t = arena_try_alloc(xj_srf_cache.sc_arena, len ? len : 1);
  if (!t)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  if (len)
    memcpy(t, d->d_str.s_ptr, len);
  if (ty_json_parse(t, len, jb, xj_srf_cache.sc_arena, v, e) != CZ_OK)
    return CZ_ERR;
  xj_srf_cache.sc_text = t;
  xj_srf_cache.sc_len = len;
  xj_srf_cache.sc_jsonb = jb;
  xj_srf_cache.sc_tree = *v;
  xj_srf_cache.sc_valid = true;
  return CZ_OK;
}

/* _cz_json_srf_count(doc, function name): the items the function yields,
 * or its error for the wrong kind of document. */
static int xf_srf_count(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  ty_jval_t *v;
  if (xj_srf_doc(x, &a[0], &v, e) != CZ_OK)
    return CZ_ERR;
  char fn[40];
  snprintf(fn, sizeof fn, "%.*s", (int)CZ_MIN(a[1].d_str.s_len, 39), a[1].d_str.s_ptr);
  bool jb = xj_is_jsonb(x), arr = v->jv_kind == TJ_ARRAY, obj = v->jv_kind == TJ_OBJECT;
  const char *why = NULL;
  char msg[96];
  if (strstr(fn, "array_elements")) {
    if (!arr) {
      if (jb)
        why = obj ? "cannot extract elements from an object" : "cannot extract elements from a scalar";
      else
        why = (snprintf(msg, sizeof msg, "cannot call %s on %s", fn, obj ? "a non-array" : "a scalar"), msg);
    }
  } else if (strstr(fn, "_each")) {
    if (!obj) {
      if (jb)
        why = (snprintf(msg, sizeof msg, "cannot call %s on a non-object", fn), msg);
      else
        why = arr ? "cannot deconstruct an array as an object" : "cannot deconstruct a scalar";
    }
  } else if (!obj) {
    why = (snprintf(msg, sizeof msg, "cannot call %s on %s", fn, arr ? "an array" : "a scalar"), msg);
  }
  if (why)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "%s", why);
  memset(out, 0, sizeof(*out));
  out->d_i64 = v->jv_n;
  return CZ_OK;
}

static const ty_jval_t *xj_srf_item(const xnode_t *x, const datum_t *a, ty_jval_t **doc, err_t *e)
{
  if (xj_srf_doc(x, &a[0], doc, e) != CZ_OK)
    return NULL;
  int64_t i = a[1].d_i64;
  if (i < 0 || i >= (*doc)->jv_n) {
    err_set(e, SQLSTATE_INVALID_PARAMETER, "item %lld of a document of %d", (long long)i, (*doc)->jv_n);
    return NULL;
  }
  return (*doc)->jv_vals[i];
}

static int xf_srf_key(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  ty_jval_t *doc;
  if (!xj_srf_item(x, a, &doc, e))
    return CZ_ERR;
  if (doc->jv_kind != TJ_OBJECT)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "the document is no object");
  str_t k = doc->jv_keys[a[1].d_i64];
  char *p = arena_alloc(c->xc_arena, k.s_len ? k.s_len : 1); /* the cache outlives no batch */
  memcpy(p, k.s_ptr, k.s_len);
  memset(out, 0, sizeof(*out));
  out->d_str.s_ptr = p;
  out->d_str.s_len = k.s_len;
  return CZ_OK;
}

static int xj_srf_value(xctx_t *c, const xnode_t *x, const datum_t *a, bool txt, datum_t *out, err_t *e)
{
  ty_jval_t *doc;
  const ty_jval_t *v = xj_srf_item(x, a, &doc, e);
  if (!v)
    return CZ_ERR;
  datum_t r;
  if ((txt ? xj_text_out(c, v, xj_is_jsonb(x), &r, e) : xj_value_out(c, v, xj_is_jsonb(x), &r, e)) != CZ_OK)
    return CZ_ERR;
  if (!r.d_null) { /* copied out of the thread's cache into the batch */
    char *p = arena_alloc(c->xc_arena, r.d_str.s_len ? r.d_str.s_len : 1);
    memcpy(p, r.d_str.s_ptr, r.d_str.s_len);
    r.d_str.s_ptr = p;
  }
  *out = r;
  return CZ_OK;
}

static int xf_srf_value(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_srf_value(c, x, a, false, out, e);
}

static int xf_srf_value_text(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_srf_value(c, x, a, true, out, e);
}

/* ---- the aggregates' helpers (sql/sql_bind_json_agg.c) ---- */

static int xf_json_or_null(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c, (void)x, (void)e;
  memset(out, 0, sizeof(*out));
  if (a[0].d_null) {
    out->d_str.s_ptr = "null";
    out->d_str.s_len = 4;
  } else {
    out->d_str = a[0].d_str;
  }
  return CZ_OK;
}

static int xf_json_pair(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  if (a[0].d_null)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "field name must not be null");
  ty_jbuf_t b;
  ty_jbuf_init(&b, c->xc_arena);
  ty_jbuf_add_jstring(&b, a[0].d_str.s_ptr, a[0].d_str.s_len);
  ty_jbuf_add(&b, " : ", 3);
  if (a[1].d_null)
    ty_jbuf_add(&b, "null", 4);
  else
    ty_jbuf_add(&b, a[1].d_str.s_ptr, a[1].d_str.s_len);
  return xj_take(c, &b, false, out, e);
}

/* The joined items in brackets, checked as JSON (the helpers are callable
 * by name, so their argument may be anything) or read as jsonb. */
static int xj_wrap(xctx_t *c, const datum_t *a, const char *open, const char *close, bool jsonb,
                   datum_t *out, err_t *e)
{
  ty_jbuf_t b;
  ty_jbuf_init(&b, c->xc_arena);
  ty_jbuf_add(&b, open, strlen(open));
  ty_jbuf_add(&b, a[0].d_str.s_ptr, a[0].d_str.s_len);
  ty_jbuf_add(&b, close, strlen(close));
  if (!jsonb && !b.jb_failed && ty_json_validate(b.jb_ptr, b.jb_len, e) != CZ_OK)
    return CZ_ERR;
  return xj_take(c, &b, jsonb, out, e);
}

static int xf_json_wrap_array(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_wrap(c, a, "[", "]", x->x_type.t_id == TY_JSONB, out, e);
}

static int xf_json_wrap_object(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return xj_wrap(c, a, "{ ", " }", x->x_type.t_id == TY_JSONB, out, e);
}

/* ---- the table ---- */

#define J TY_JSON
#define JB TY_JSONB
#define T TY_TEXT
#define I4 TY_INT4
#define S XF_STRICT
#define ANY XFA_ANY

const xfunc_def_t xfunc_json_defs[] = {
  {.fd_name = "to_json", .fd_nargs = 1, .fd_args = {ANY}, .fd_result = J, .fd_flags = S, .fd_row = xf_to_json},
  {.fd_name = "to_jsonb", .fd_nargs = 1, .fd_args = {ANY}, .fd_result = JB, .fd_flags = S, .fd_row = xf_to_json},
  {.fd_name = "array_to_json", .fd_nargs = 1, .fd_args = {ANY}, .fd_result = J, .fd_flags = S,
   .fd_row = xf_array_to_json},
  {.fd_name = "json_build_object", .fd_nargs = 1, .fd_args = {ANY}, .fd_result = J,
   .fd_flags = XF_VARIADIC, .fd_row = xf_json_build_object},
  {.fd_name = "jsonb_build_object", .fd_nargs = 1, .fd_args = {ANY}, .fd_result = JB,
   .fd_flags = XF_VARIADIC, .fd_row = xf_jsonb_build_object},
  {.fd_name = "_cz_json_row", .fd_nargs = 1, .fd_args = {ANY}, .fd_result = J,
   .fd_flags = XF_VARIADIC, .fd_row = xf_json_row},
  {.fd_name = "_cz_jsonb_row", .fd_nargs = 1, .fd_args = {ANY}, .fd_result = JB,
   .fd_flags = XF_VARIADIC, .fd_row = xf_json_row},
  {.fd_name = "json_build_array", .fd_nargs = 1, .fd_args = {ANY}, .fd_result = J,
   .fd_flags = XF_VARIADIC, .fd_row = xf_build_array},
  {.fd_name = "jsonb_build_array", .fd_nargs = 1, .fd_args = {ANY}, .fd_result = JB,
   .fd_flags = XF_VARIADIC, .fd_row = xf_build_array},
  {.fd_name = "json_typeof", .fd_nargs = 1, .fd_args = {J}, .fd_result = T, .fd_flags = S, .fd_row = xf_typeof},
  {.fd_name = "jsonb_typeof", .fd_nargs = 1, .fd_args = {JB}, .fd_result = T, .fd_flags = S, .fd_row = xf_typeof},
  {.fd_name = "json_array_length", .fd_nargs = 1, .fd_args = {J}, .fd_result = I4, .fd_flags = S,
   .fd_row = xf_array_length},
  {.fd_name = "jsonb_array_length", .fd_nargs = 1, .fd_args = {JB}, .fd_result = I4, .fd_flags = S,
   .fd_row = xf_array_length},
  {.fd_name = "json_object_field", .fd_nargs = 2, .fd_args = {J, T}, .fd_result = J, .fd_flags = S, .fd_row = xf_get_field},
  {.fd_name = "jsonb_object_field", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = JB, .fd_flags = S, .fd_row = xf_get_field},
  {.fd_name = "json_object_field_text", .fd_nargs = 2, .fd_args = {J, T}, .fd_result = T, .fd_flags = S,
   .fd_row = xf_get_field_text},
  {.fd_name = "jsonb_object_field_text", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = T, .fd_flags = S,
   .fd_row = xf_get_field_text},
  {.fd_name = "json_array_element", .fd_nargs = 2, .fd_args = {J, I4}, .fd_result = J, .fd_flags = S,
   .fd_row = xf_get_elem},
  {.fd_name = "jsonb_array_element", .fd_nargs = 2, .fd_args = {JB, I4}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_get_elem},
  {.fd_name = "json_array_element_text", .fd_nargs = 2, .fd_args = {J, I4}, .fd_result = T, .fd_flags = S,
   .fd_row = xf_get_elem_text},
  {.fd_name = "jsonb_array_element_text", .fd_nargs = 2, .fd_args = {JB, I4}, .fd_result = T, .fd_flags = S,
   .fd_row = xf_get_elem_text},
  {.fd_name = "json_extract_path", .fd_nargs = 2, .fd_args = {J, T}, .fd_result = J, .fd_flags = XF_VARIADIC,
   .fd_row = xf_extract_path},
  {.fd_name = "jsonb_extract_path", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = JB, .fd_flags = XF_VARIADIC,
   .fd_row = xf_extract_path},
  {.fd_name = "json_extract_path_text", .fd_nargs = 2, .fd_args = {J, T}, .fd_result = T,
   .fd_flags = XF_VARIADIC, .fd_row = xf_extract_path_text},
  {.fd_name = "jsonb_extract_path_text", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = T,
   .fd_flags = XF_VARIADIC, .fd_row = xf_extract_path_text},
  {.fd_name = "jsonb_contains", .fd_nargs = 2, .fd_args = {JB, JB}, .fd_result = TY_BOOL, .fd_flags = S,
   .fd_row = xf_contains},
  {.fd_name = "jsonb_contained", .fd_nargs = 2, .fd_args = {JB, JB}, .fd_result = TY_BOOL, .fd_flags = S,
   .fd_row = xf_contained},
  {.fd_name = "jsonb_exists", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = TY_BOOL, .fd_flags = S,
   .fd_row = xf_exists},
  {.fd_name = "jsonb_concat", .fd_nargs = 2, .fd_args = {JB, JB}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_concat},
  {.fd_name = "jsonb_delete", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_delete_key},
  {.fd_name = "jsonb_delete", .fd_nargs = 2, .fd_args = {JB, I4}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_delete_index},
  {.fd_name = "json_strip_nulls", .fd_nargs = 1, .fd_args = {J}, .fd_result = J, .fd_flags = S,
   .fd_row = xf_strip_nulls},
  {.fd_name = "jsonb_strip_nulls", .fd_nargs = 1, .fd_args = {JB}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_strip_nulls},
  {.fd_name = "_cz_json_path", .fd_nargs = 2, .fd_args = {J, T}, .fd_result = J, .fd_flags = S,
   .fd_row = xf_path_get},
  {.fd_name = "_cz_jsonb_path", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_path_get},
  {.fd_name = "_cz_json_path_text", .fd_nargs = 2, .fd_args = {J, T}, .fd_result = T, .fd_flags = S,
   .fd_row = xf_path_get_text},
  {.fd_name = "_cz_jsonb_path_text", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = T, .fd_flags = S,
   .fd_row = xf_path_get_text},
  {.fd_name = "jsonb_exists_any", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = TY_BOOL, .fd_flags = S,
   .fd_row = xf_exists_any},
  {.fd_name = "jsonb_exists_all", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = TY_BOOL, .fd_flags = S,
   .fd_row = xf_exists_all},
  {.fd_name = "_cz_jsonb_delete_keys", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_delete_keys},
  {.fd_name = "jsonb_delete_path", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_delete_path},
  {.fd_name = "jsonb_set", .fd_nargs = 3, .fd_args = {JB, T, JB}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_jsonb_set},
  {.fd_name = "jsonb_set", .fd_nargs = 4, .fd_args = {JB, T, JB, TY_BOOL}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_jsonb_set},
  {.fd_name = "jsonb_insert", .fd_nargs = 3, .fd_args = {JB, T, JB}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_jsonb_insert},
  {.fd_name = "jsonb_insert", .fd_nargs = 4, .fd_args = {JB, T, JB, TY_BOOL}, .fd_result = JB,
   .fd_flags = S, .fd_row = xf_jsonb_insert},
  {.fd_name = "jsonb_pretty", .fd_nargs = 1, .fd_args = {JB}, .fd_result = T, .fd_flags = S,
   .fd_row = xf_jsonb_pretty},
};
const xfunc_def_t xfunc_json_agg_defs[] = {
  {.fd_name = "_cz_json_or_null", .fd_nargs = 1, .fd_args = {J}, .fd_result = T, .fd_row = xf_json_or_null},
  {.fd_name = "_cz_json_pair", .fd_nargs = 2, .fd_args = {T, J}, .fd_result = T, .fd_row = xf_json_pair},
  {.fd_name = "_cz_json_wrap_array", .fd_nargs = 1, .fd_args = {T}, .fd_result = J, .fd_flags = S,
   .fd_row = xf_json_wrap_array},
  {.fd_name = "_cz_jsonb_wrap_array", .fd_nargs = 1, .fd_args = {T}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_json_wrap_array},
  {.fd_name = "_cz_json_wrap_object", .fd_nargs = 1, .fd_args = {T}, .fd_result = J, .fd_flags = S,
   .fd_row = xf_json_wrap_object},
  {.fd_name = "_cz_jsonb_wrap_object", .fd_nargs = 1, .fd_args = {T}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_json_wrap_object},
};
const xfunc_def_t xfunc_json_srf_defs[] = {
  {.fd_name = "_cz_json_srf_count", .fd_nargs = 2, .fd_args = {J, T}, .fd_result = I4, .fd_flags = S,
   .fd_row = xf_srf_count},
  {.fd_name = "_cz_json_srf_count", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = I4, .fd_flags = S,
   .fd_row = xf_srf_count},
  {.fd_name = "_cz_json_srf_key", .fd_nargs = 2, .fd_args = {J, I4}, .fd_result = T, .fd_flags = S,
   .fd_row = xf_srf_key},
  {.fd_name = "_cz_json_srf_key", .fd_nargs = 2, .fd_args = {JB, I4}, .fd_result = T, .fd_flags = S,
   .fd_row = xf_srf_key},
  {.fd_name = "_cz_json_srf_value", .fd_nargs = 2, .fd_args = {J, I4}, .fd_result = J, .fd_flags = S,
   .fd_row = xf_srf_value},
  {.fd_name = "_cz_json_srf_value", .fd_nargs = 2, .fd_args = {JB, I4}, .fd_result = JB, .fd_flags = S,
   .fd_row = xf_srf_value},
  {.fd_name = "_cz_json_srf_value_text", .fd_nargs = 2, .fd_args = {J, I4}, .fd_result = T, .fd_flags = S,
   .fd_row = xf_srf_value_text},
  {.fd_name = "_cz_json_srf_value_text", .fd_nargs = 2, .fd_args = {JB, I4}, .fd_result = T,
   .fd_flags = S, .fd_row = xf_srf_value_text},
};
const int xfunc_json_srf_ndefs = (int)CZ_ARRAY_LEN(xfunc_json_srf_defs);
const int xfunc_json_agg_ndefs = (int)CZ_ARRAY_LEN(xfunc_json_agg_defs);
const int xfunc_json_ndefs = (int)CZ_ARRAY_LEN(xfunc_json_defs);
