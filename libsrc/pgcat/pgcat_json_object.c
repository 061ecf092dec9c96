/* pgcat_json_object — json_object / jsonb_object from text arrays:
 * json_object('{a,1,b,2}'), json_object('{{a,1},{b,2}}') and
 * json_object(keys, values), PostgreSQL 15's json_object and
 * json_object_two_arg.
 *
 * Design notes: here rather than in exec/ex_func_json.c because an array
 * is its text form and pgcat_arr_parse (pgcat_array.c) reads it. Values
 * are JSON strings (or null), keys must not be NULL (22004); the shapes
 * PostgreSQL refuses are 2202E with its messages. json keeps its
 * `{"a" : "1"}` spacing and every pair; jsonb is the same text read by
 * jsonb's input (keys sorted, the last duplicate kept).
 */
#include <string.h>

#include "pgcat/pgcat_int.h"

/* The object of n pairs keys[i]: vals[i] (a NULL value is null). */
static int jo_out(xctx_t *c, char *const *keys, char *const *vals, int n, bool jsonb, datum_t *out,
                  err_t *e)
{
  ty_jbuf_t b;
  ty_jbuf_init(&b, c->xc_arena);
  ty_jbuf_addc(&b, '{');
  for (int i = 0; i < n; i++) {
    if (!keys[i])
      return err_set(e, SQLSTATE_NULL_VALUE_NOT_ALLOWED, "null value not allowed for object key");
    if (i)
      ty_jbuf_add(&b, ", ", 2);
    ty_jbuf_add_jstring(&b, keys[i], strlen(keys[i]));
    ty_jbuf_add(&b, " : ", 3);
    if (vals[i])
      ty_jbuf_add_jstring(&b, vals[i], strlen(vals[i]));
    else
      ty_jbuf_add(&b, "null", 4);
  }
  ty_jbuf_addc(&b, '}');
  if (b.jb_failed) {
    *e = b.jb_err;
    return CZ_ERR;
  }
  if (jsonb)
    return ty_parse_text(ty_plain(TY_JSONB), b.jb_ptr, b.jb_len, c->xc_arena, out, e);
  memset(out, 0, sizeof(*out));
  out->d_str.s_ptr = b.jb_ptr;
  out->d_str.s_len = (uint32_t)b.jb_len;
  return CZ_OK;
}

static int jo_arg(xctx_t *c, const datum_t *d, pgcat_arr_t *r, err_t *e)
{
  return pgcat_arr_parse(c->xc_arena, d->d_str.s_ptr, d->d_str.s_len, r, e);
}

/* json_object(text[]): alternate keys and values, or pairs as rows. */
static int jo_one(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  pgcat_arr_t r;
  if (jo_arg(c, &a[0], &r, e) != CZ_OK)
    return CZ_ERR;
  bool jsonb = x->x_type.t_id == TY_JSONB;
  if (r.pa_ndim == 1 && r.pa_n % 2 != 0)
    return err_set(e, SQLSTATE_ARRAY_SUBSCRIPT, "array must have even number of elements");
  if (r.pa_ndim == 2 && r.pa_dims[1] != 2)
    return err_set(e, SQLSTATE_ARRAY_SUBSCRIPT, "array must have two columns");
  if (r.pa_ndim > 2)
    return err_set(e, SQLSTATE_ARRAY_SUBSCRIPT, "wrong number of array subscripts");
  int n = r.pa_n / 2;
  char **keys = arena_alloc(c->xc_arena, sizeof(char *) * (size_t)(n + 1));
  char **vals = arena_alloc(c->xc_arena, sizeof(char *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    keys[i] = r.pa_items[2 * i];
    vals[i] = r.pa_items[2 * i + 1];
  }
  return jo_out(c, keys, vals, n, jsonb, out, e);
}

/* json_object(keys text[], values text[]). */
static int jo_two(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  pgcat_arr_t k, v;
  if (jo_arg(c, &a[0], &k, e) != CZ_OK || jo_arg(c, &a[1], &v, e) != CZ_OK)
    return CZ_ERR;
  if (k.pa_ndim > 1 || v.pa_ndim > 1)
    return err_set(e, SQLSTATE_ARRAY_SUBSCRIPT, "wrong number of array subscripts");
  if (k.pa_n != v.pa_n)
    return err_set(e, SQLSTATE_ARRAY_SUBSCRIPT, "mismatched array dimensions");
  return jo_out(c, k.pa_items, v.pa_items, k.pa_n, x->x_type.t_id == TY_JSONB, out, e);
}

#define TX TY_TEXT

const xfunc_def_t pgcat_json_object_funcs[] = {
  {.fd_name = "json_object", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TY_JSON,
   .fd_flags = XF_STRICT, .fd_row = jo_one},
  {.fd_name = "jsonb_object", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TY_JSONB,
   .fd_flags = XF_STRICT, .fd_row = jo_one},
  {.fd_name = "json_object", .fd_nargs = 2, .fd_args = {TX, TX}, .fd_result = TY_JSON,
   .fd_flags = XF_STRICT, .fd_row = jo_two},
  {.fd_name = "jsonb_object", .fd_nargs = 2, .fd_args = {TX, TX}, .fd_result = TY_JSONB,
   .fd_flags = XF_STRICT, .fd_row = jo_two},
};
const int pgcat_json_object_nfuncs = (int)CZ_ARRAY_LEN(pgcat_json_object_funcs);
