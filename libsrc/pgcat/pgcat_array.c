/* pgcat_array — multi-dimensional arrays in PostgreSQL's text form: the
 * parser every array function uses, the constructor of ARRAY[ARRAY[…], …]
 * and the dimension functions (array_ndims, array_dims, array_length,
 * cardinality), subscripts a[i][j] and the flattened element access that
 * unnest uses.
 *
 * Design notes: arrays stay text ('{{1,2},{3,4}}'), as everywhere in the
 * binder (sql_bind_ext.h); a parse yields the dimensions and the elements
 * in row-major order. As PostgreSQL: sub-arrays must be rectangular
 * (22P02 in text input, 2202E when ARRAY[…] combines sub-arrays of other
 * dimensions), at most 6 dimensions (MAXDIM, 54000), lower bounds 1, and
 * the result of a constructor at most XE_MAX_FIELD bytes (54000). The
 * parse is one pass over the text with a depth counter, no recursion, so
 * a hostile literal cannot exhaust the stack.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "exec/exec_pg.h"
#include "pgcat/pgcat_int.h"


static void pgcat_out_text(xctx_t *c, datum_t *out, const char *s)
{
  (void)c; /* s is already in the statement's arena */
  out->d_null = s == NULL;
  out->d_str.s_ptr = s ? s : "";
  out->d_str.s_len = s ? (uint32_t)strlen(s) : 0;
}

static void pgcat_out_int(datum_t *out, int64_t v)
{
  out->d_null = false;
  out->d_i64 = v;
}

static int pa_malformed(const char *s, size_t len, const char *why, err_t *e)
{
  return err_set(e, SQLSTATE_INVALID_TEXT, "malformed array literal: \"%.*s\"%s%s",
                 (int)CZ_MIN(len, 200), s, why ? ": " : "", why ? why : "");
}

static void pa_push(arena_t *a, pgcat_arr_t *r, char *item, int *cap)
{
  if (r->pa_n == *cap) {
    *cap = *cap ? *cap * 2 : 16;
    char **ni = arena_alloc(a, (size_t)*cap * sizeof *ni);
    if (r->pa_n)
      memcpy(ni, r->pa_items, (size_t)r->pa_n * sizeof *ni);
    r->pa_items = ni;
  }
  r->pa_items[r->pa_n++] = item;
}

int pgcat_arr_parse(arena_t *a, const char *s, size_t len, pgcat_arr_t *r, err_t *e)
{
  memset(r, 0, sizeof(*r));
  int count[PGCAT_ARRAY_MAXDIM + 1] = {0}, cap = 0, depth = 0, leaf = 0;
  bool dim_set[PGCAT_ARRAY_MAXDIM] = {false};
  size_t i = 0;
  while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
    i++;
  if (i >= len || s[i] != '{')
    return pa_malformed(s, len, "the value must start with \"{\"", e);
  char *buf = arena_alloc(a, len + 1);
  bool expect_elem = true; /* after '{' or ',': an element or sub-array */
  while (i < len) {
    char ch = s[i];
    if (ch == ' ' || ch == '\t' || ch == '\n') {
      i++;
      continue;
    }
    if (ch == '{') {
      if (!expect_elem || (leaf && depth >= leaf))
        return pa_malformed(s, len, "unexpected \"{\"", e);
      if (depth >= PGCAT_ARRAY_MAXDIM)
        return err_set(e, SQLSTATE_PROGRAM_LIMIT,
                       "number of array dimensions (%d) exceeds the maximum allowed (%d)",
                       depth + 1, PGCAT_ARRAY_MAXDIM);
      count[depth++] = 0;
      i++;
      expect_elem = true;
      continue;
    }
    if (ch == '}') {
      if (expect_elem && count[depth - 1] > 0)
        return pa_malformed(s, len, "unexpected \"}\"", e);
      int d = depth - 1, n = count[d];
      if (n > 0 || leaf) {
        if (!dim_set[d]) {
          r->pa_dims[d] = n;
          dim_set[d] = true;
        } else if (r->pa_dims[d] != n) {
          return pa_malformed(s, len, "multidimensional arrays must have sub-arrays with "
                              "matching dimensions", e);
        }
      }
      depth--;
      i++;
      if (depth > 0)
        count[depth - 1]++;
      expect_elem = false;
      if (depth == 0)
        break;
      continue;
    }
    if (ch == ',') {
      if (expect_elem)
        return pa_malformed(s, len, "unexpected \",\"", e);
      expect_elem = true;
      i++;
      continue;
    }
    /* a scalar element: only at the leaf depth */
    if (!expect_elem)
      return pa_malformed(s, len, "unexpected character", e);
    if (leaf == 0)
      leaf = depth;
    else if (depth != leaf)
      return pa_malformed(s, len, "multidimensional arrays must have sub-arrays with "
                          "matching dimensions", e);
    size_t bl = 0;
    bool quoted = false;
    if (ch == '"') {
      quoted = true;
      for (i++; i < len && s[i] != '"'; i++) {
        if (s[i] == '\\' && i + 1 < len)
          i++;
        buf[bl++] = s[i];
      }
      if (i >= len)
        return pa_malformed(s, len, "unterminated quoted element", e);
      i++;
    } else {
      for (; i < len && s[i] != ',' && s[i] != '}' && s[i] != '{' && s[i] != '"'; i++) {
        if (s[i] == '\\' && i + 1 < len)
          i++;
        buf[bl++] = s[i];
      }
      while (bl && (buf[bl - 1] == ' ' || buf[bl - 1] == '\t' || buf[bl - 1] == '\n'))
        bl--;
    }
    char *item = arena_alloc(a, bl + 1);
    memcpy(item, buf, bl);
    item[bl] = 0;
    pa_push(a, r, !quoted && strcasecmp(item, "null") == 0 ? NULL : item, &cap);
    count[depth - 1]++;
    expect_elem = false;
  }
  if (depth != 0)
    return pa_malformed(s, len, "unexpected end of input", e);
  for (; i < len; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n')
      return pa_malformed(s, len, "junk after closing right brace", e);
  /* '{}' and '{{},{}}' are the empty array */
  r->pa_ndim = r->pa_n == 0 ? 0 : leaf;
  return CZ_OK;
}

static bool pa_needs_quotes(const char *v)
{
  if (!*v || strcasecmp(v, "null") == 0)
    return true;
  for (const char *p = v; *p; p++)
    if (strchr("{},\"\\ \t\n\r\f\v", *p))
      return true;
  return false;
}

/* Canonical text of r (PostgreSQL's array_out); NULL with 54000 past
 * XE_MAX_FIELD bytes. */
char *pgcat_arr_text(arena_t *a, const pgcat_arr_t *r, err_t *e)
{
  if (r->pa_ndim == 0)
    return arena_strdup(a, "{}");
  size_t len = 1, total = 1;
  for (int k = 0; k < r->pa_ndim; k++)
    total *= (size_t)r->pa_dims[k];
  /* braces: one pair per sub-array of every level; commas at most one per item */
  size_t groups = 0, g = 1;
  for (int k = 0; k < r->pa_ndim; k++) {
    groups += g;
    g *= (size_t)r->pa_dims[k];
  }
  len += 2 * groups + total;
  for (int i = 0; i < r->pa_n; i++) {
    const char *v = r->pa_items[i];
    len += v ? 2 * strlen(v) + 2 : 4;
    if (len > XE_MAX_FIELD) {
      err_set(e, SQLSTATE_PROGRAM_LIMIT, "array size exceeds the maximum allowed (%u bytes)",
              XE_MAX_FIELD);
      return NULL;
    }
  }
  char *out = arena_alloc(a, len + 1), *p = out;
  int idx[PGCAT_ARRAY_MAXDIM] = {0};
  for (int k = 0; k < r->pa_ndim; k++)
    *p++ = '{';
  for (int i = 0; i < r->pa_n; i++) {
    const char *v = r->pa_items[i];
    if (!v) {
      memcpy(p, "NULL", 4);
      p += 4;
    } else if (pa_needs_quotes(v)) {
      *p++ = '"';
      for (const char *q = v; *q; q++) {
        if (*q == '"' || *q == '\\')
          *p++ = '\\';
        *p++ = *q;
      }
      *p++ = '"';
    } else {
      size_t l = strlen(v);
      memcpy(p, v, l);
      p += l;
    }
    /* advance the odometer: close the levels that end here */
    int k = r->pa_ndim - 1, closed = 0;
    while (k >= 0 && ++idx[k] == r->pa_dims[k]) {
      idx[k--] = 0;
      *p++ = '}';
      closed++;
    }
    if (k >= 0) {
      *p++ = ',';
      for (int j = 0; j < closed; j++)
        *p++ = '{';
    }
  }
  *p = 0;
  return out;
}

/* Argument k as an array; 22P02/54000 when it is not one. */
static int pa_arg(xctx_t *c, const datum_t *a, int k, pgcat_arr_t *r, err_t *e)
{
  return pgcat_arr_parse(c->xc_arena, a[k].d_str.s_ptr, a[k].d_str.s_len, r, e);
}

/* ARRAY[sub, sub, …] whose elements are arrays: one more dimension. NULL
 * and empty sub-arrays are skipped when all are (the result is empty) and
 * are an error otherwise, as PostgreSQL's ExecEvalArrayExpr. */
static int pa_stack_out(xctx_t *c, const pgcat_arr_t *subs, int n, datum_t *out, err_t *e);

static int pf_array_make_md(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  int n = x->x_nargs, nonempty = 0, empty = 0;
  pgcat_arr_t *subs = arena_alloc(c->xc_arena, sizeof(pgcat_arr_t) * (size_t)(n + 1));
  for (int k = 0; k < n; k++) {
    if (xc_check_interrupt(c, e) != CZ_OK)
      return CZ_ERR;
    if (a[k].d_null) {
      subs[k].pa_ndim = -1;
      empty++;
      continue;
    }
    if (pa_arg(c, a, k, &subs[k], e) != CZ_OK)
      return CZ_ERR;
    if (subs[k].pa_ndim == 0) {
      empty++;
      continue;
    }
    const pgcat_arr_t *f = NULL;
    for (int j = 0; j < k && !f; j++)
      if (subs[j].pa_ndim > 0)
        f = &subs[j];
    if (f && (f->pa_ndim != subs[k].pa_ndim ||
              memcmp(f->pa_dims, subs[k].pa_dims, sizeof(int) * (size_t)f->pa_ndim) != 0))
      return err_set(e, SQLSTATE_ARRAY_SUBSCRIPT, "multidimensional arrays must have array "
                     "expressions with matching dimensions");
    nonempty++;
  }
  if (nonempty == 0) {
    pgcat_out_text(c, out, arena_strdup(c->xc_arena, "{}"));
    return CZ_OK;
  }
  if (empty > 0)
    return err_set(e, SQLSTATE_ARRAY_SUBSCRIPT, "multidimensional arrays must have array "
                   "expressions with matching dimensions");
  return pa_stack_out(c, subs, n, out, e);
}

/* ARRAY(subquery) whose rows are arrays: arr holds their text forms (as
 * op_array_agg collects them); one more dimension, with PostgreSQL's
 * rules for accumulating arrays (no NULL, no empty, equal shapes). */
static int pf_array_stack(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  pgcat_arr_t rows;
  if (pa_arg(c, a, 0, &rows, e) != CZ_OK)
    return CZ_ERR;
  if (rows.pa_n == 0) {
    pgcat_out_text(c, out, arena_strdup(c->xc_arena, "{}"));
    return CZ_OK;
  }
  if (rows.pa_ndim != 1)
    return err_set(e, SQLSTATE_ARRAY_SUBSCRIPT, "cannot accumulate arrays of different dimensionality");
  int n = rows.pa_n;
  pgcat_arr_t *subs = arena_alloc(c->xc_arena, sizeof(pgcat_arr_t) * (size_t)n);
  for (int k = 0; k < n; k++) {
    if (xc_check_interrupt(c, e) != CZ_OK)
      return CZ_ERR;
    if (!rows.pa_items[k])
      return err_set(e, SQLSTATE_NULL_VALUE_NOT_ALLOWED, "cannot accumulate null arrays");
    if (pgcat_arr_parse(c->xc_arena, rows.pa_items[k], strlen(rows.pa_items[k]), &subs[k], e) !=
        CZ_OK)
      return CZ_ERR;
    if (subs[k].pa_ndim == 0)
      return err_set(e, SQLSTATE_ARRAY_SUBSCRIPT, "cannot accumulate empty arrays");
    if (subs[k].pa_ndim != subs[0].pa_ndim ||
        memcmp(subs[k].pa_dims, subs[0].pa_dims, sizeof(int) * (size_t)subs[0].pa_ndim) != 0)
      return err_set(e, SQLSTATE_ARRAY_SUBSCRIPT,
                     "cannot accumulate arrays of different dimensionality");
  }
  return pa_stack_out(c, subs, n, out, e);
}

/* subs[0..n) (non-empty, all of one shape) as one array with one more
 * dimension. */
static int pa_stack_out(xctx_t *c, const pgcat_arr_t *subs, int n, datum_t *out, err_t *e)
{
  pgcat_arr_t r = {0};
  r.pa_ndim = subs[0].pa_ndim + 1;
  if (r.pa_ndim > PGCAT_ARRAY_MAXDIM)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT,
                   "number of array dimensions (%d) exceeds the maximum allowed (%d)", r.pa_ndim,
                   PGCAT_ARRAY_MAXDIM);
  r.pa_dims[0] = n;
  memcpy(r.pa_dims + 1, subs[0].pa_dims, sizeof(int) * (size_t)subs[0].pa_ndim);
  int64_t total = (int64_t)n * subs[0].pa_n;
  if (total > INT32_MAX / 2)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "array size exceeds the maximum allowed");
  r.pa_n = (int)total;
  r.pa_items = arena_alloc(c->xc_arena, sizeof(char *) * (size_t)(total + 1));
  for (int k = 0; k < n; k++)
    memcpy(r.pa_items + (size_t)k * (size_t)subs[0].pa_n, subs[k].pa_items,
           sizeof(char *) * (size_t)subs[0].pa_n);
  char *s = pgcat_arr_text(c->xc_arena, &r, e);
  if (!s)
    return CZ_ERR;
  pgcat_out_text(c, out, s);
  return CZ_OK;
}

static int pf_array_ndims(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  pgcat_arr_t r;
  if (pa_arg(c, a, 0, &r, e) != CZ_OK)
    return CZ_ERR;
  if (r.pa_ndim == 0)
    out->d_null = true;
  else
    pgcat_out_int(out, r.pa_ndim);
  return CZ_OK;
}

static int pf_array_dims(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  pgcat_arr_t r;
  if (pa_arg(c, a, 0, &r, e) != CZ_OK)
    return CZ_ERR;
  if (r.pa_ndim == 0) {
    out->d_null = true;
    return CZ_OK;
  }
  char buf[PGCAT_ARRAY_MAXDIM * 24 + 1];
  size_t o = 0;
  for (int k = 0; k < r.pa_ndim; k++)
    o += (size_t)snprintf(buf + o, sizeof(buf) - o, "[1:%d]", r.pa_dims[k]);
  pgcat_out_text(c, out, arena_strdup(c->xc_arena, buf));
  return CZ_OK;
}

static int pf_array_length(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  pgcat_arr_t r;
  if (pa_arg(c, a, 0, &r, e) != CZ_OK)
    return CZ_ERR;
  int64_t d = a[1].d_i64;
  if (d < 1 || d > r.pa_ndim)
    out->d_null = true;
  else
    pgcat_out_int(out, r.pa_dims[d - 1]);
  return CZ_OK;
}

static int pf_cardinality(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  pgcat_arr_t r;
  if (pa_arg(c, a, 0, &r, e) != CZ_OK)
    return CZ_ERR;
  pgcat_out_int(out, r.pa_n);
  return CZ_OK;
}

/* a[i][j]…: the element, NULL when a subscript is NULL or out of range or
 * the number of subscripts is not the array's dimension count. */
static int pf_array_element_md(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                               err_t *e)
{
  int nsub = x->x_nargs - 1;
  if (a[0].d_null) {
    out->d_null = true;
    return CZ_OK;
  }
  pgcat_arr_t r;
  if (pa_arg(c, a, 0, &r, e) != CZ_OK)
    return CZ_ERR;
  if (nsub != r.pa_ndim) {
    out->d_null = true;
    return CZ_OK;
  }
  int64_t off = 0;
  for (int k = 0; k < nsub; k++) {
    if (a[k + 1].d_null || a[k + 1].d_i64 < 1 || a[k + 1].d_i64 > r.pa_dims[k]) {
      out->d_null = true;
      return CZ_OK;
    }
    off = off * r.pa_dims[k] + (a[k + 1].d_i64 - 1);
  }
  pgcat_out_text(c, out, r.pa_items[off]);
  return CZ_OK;
}

/* text::sometype[]: a literal '{…}' is checked (rectangular, at most 6
 * dimensions: 22P02 / 54000 as PostgreSQL's array_in) and put in its
 * canonical form; the vector form of int2vector / oidvector ('1 2')
 * passes as it is. */
static int pf_array_in(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  str_t s = a[0].d_str;
  size_t i = 0;
  while (i < s.s_len && (s.s_ptr[i] == ' ' || s.s_ptr[i] == '\t' || s.s_ptr[i] == '\n'))
    i++;
  if (i == s.s_len || s.s_ptr[i] != '{') {
    *out = a[0];
    return CZ_OK;
  }
  pgcat_arr_t r;
  if (pa_arg(c, a, 0, &r, e) != CZ_OK)
    return CZ_ERR;
  char *t = pgcat_arr_text(c->xc_arena, &r, e);
  if (!t)
    return CZ_ERR;
  pgcat_out_text(c, out, t);
  return CZ_OK;
}

#define TX TY_TEXT
#define I4 TY_INT4
#define S XF_STRICT

/* array_agg as the binder runs it (sql_bind_agg_order.c): string_agg of
 * each value's element text, _cz_array_elem (NULL is the element NULL,
 * quoted as array_out quotes), joined by commas, then _cz_array_wrap
 * puts the braces around (NULL for no rows, as array_agg). */
static int pf_array_elem(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  if (a[0].d_null) {
    out->d_null = false;
    out->d_str.s_ptr = "NULL";
    out->d_str.s_len = 4;
    return CZ_OK;
  }
  bool null = false;
  char *t = xarray_text(c->xc_arena, &a[0].d_str, &null, 1, e); /* '{elem}' */
  if (!t)
    return CZ_ERR;
  size_t n = strlen(t);
  out->d_null = false;
  out->d_str.s_ptr = t + 1;
  out->d_str.s_len = (uint32_t)(n - 2);
  return CZ_OK;
}

/* A boolean element: array_out writes t / f (the cast to text: true / false). */
static int pf_array_elem_bool(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  (void)c, (void)x, (void)e;
  out->d_null = false;
  out->d_str.s_ptr = a[0].d_null ? "NULL" : a[0].d_bool ? "t" : "f";
  out->d_str.s_len = a[0].d_null ? 4 : 1;
  return CZ_OK;
}

static int pf_array_wrap(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  size_t n = a[0].d_str.s_len;
  char *t = xc_alloc(c, n + 3, e);
  if (!t)
    return CZ_ERR;
  t[0] = '{';
  memcpy(t + 1, a[0].d_str.s_ptr, n);
  t[n + 1] = '}';
  t[n + 2] = '\0';
  out->d_null = false;
  out->d_str.s_ptr = t;
  out->d_str.s_len = (uint32_t)(n + 2);
  return CZ_OK;
}

const xfunc_def_t pgcat_array_funcs[] = {
  {.fd_name = "_cz_array_elem", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX,
   .fd_row = pf_array_elem},
  {.fd_name = "_cz_array_elem_bool", .fd_nargs = 1, .fd_args = {TY_BOOL}, .fd_result = TX,
   .fd_row = pf_array_elem_bool},
  {.fd_name = "_cz_array_wrap", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX,
   .fd_flags = XF_STRICT, .fd_row = pf_array_wrap},
  {.fd_name = "array_stack", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX,
   .fd_flags = XF_STRICT, .fd_row = pf_array_stack},
  {.fd_name = "array_make_md", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX,
   .fd_flags = XF_VARIADIC, .fd_row = pf_array_make_md},
  {.fd_name = "array_element_md", .fd_nargs = 2, .fd_args = {TX, I4}, .fd_result = TX,
   .fd_flags = XF_VARIADIC, .fd_row = pf_array_element_md},
  {.fd_name = "array_in", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_array_in},
  {.fd_name = "array_ndims", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I4, .fd_flags = S,
   .fd_row = pf_array_ndims},
  {.fd_name = "array_dims", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX, .fd_flags = S,
   .fd_row = pf_array_dims},
  {.fd_name = "array_length", .fd_nargs = 2, .fd_args = {TX, I4}, .fd_result = I4,
   .fd_flags = S, .fd_row = pf_array_length},
  {.fd_name = "cardinality", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I4, .fd_flags = S,
   .fd_row = pf_cardinality},
};
const int pgcat_array_nfuncs = (int)CZ_ARRAY_LEN(pgcat_array_funcs);
