/* op_array — arrays in PostgreSQL's text form: building '{a,"b c",NULL}'
 * from elements, and ARRAY(subquery), which collects a single-column
 * subquery's rows into one such value.
 *
 * Design notes: an element is written bare unless PostgreSQL's array
 * output would quote it: empty, the word NULL (any case), or containing
 * braces, commas, double quotes, backslashes or white space; inside quotes
 * " and \ are escaped with a backslash. The aggregation reads its whole
 * input at the first next and returns exactly one row (an empty input is
 * '{}'), as a scalar subquery must. */
#include <string.h>
#include <strings.h>

#include "exec/exec_int.h"
#include "exec/exec_pg.h"

static bool elem_needs_quotes(const str_t *s)
{
  if (s->s_len == 0 || (s->s_len == 4 && strncasecmp(s->s_ptr, "null", 4) == 0))
    return true;
  for (uint32_t i = 0; i < s->s_len; i++) {
    char c = s->s_ptr[i];
    if (c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || c == ' ' || c == '\t' ||
        c == '\n' || c == '\r' || c == '\v' || c == '\f')
      return true;
  }
  return false;
}

/* Bytes the element takes in the text form. */
static size_t elem_len(const str_t *s, bool null)
{
  if (null)
    return 4;
  if (!elem_needs_quotes(s))
    return s->s_len;
  size_t n = 2 + s->s_len;
  for (uint32_t i = 0; i < s->s_len; i++)
    n += s->s_ptr[i] == '"' || s->s_ptr[i] == '\\';
  return n;
}

static char *elem_put(char *p, const str_t *s, bool null)
{
  if (null) {
    memcpy(p, "NULL", 4);
    return p + 4;
  }
  if (!elem_needs_quotes(s)) {
    memcpy(p, s->s_ptr, s->s_len);
    return p + s->s_len;
  }
  *p++ = '"';
  for (uint32_t i = 0; i < s->s_len; i++) {
    if (s->s_ptr[i] == '"' || s->s_ptr[i] == '\\')
      *p++ = '\\';
    *p++ = s->s_ptr[i];
  }
  *p++ = '"';
  return p;
}

char *xarray_text(arena_t *a, const str_t *elems, const bool *nulls, int n, err_t *e)
{
  size_t len = 2 + (n > 1 ? (size_t)(n - 1) : 0);
  for (int i = 0; i < n; i++)
    len += elem_len(&elems[i], nulls && nulls[i]);
  if (len >= XE_MAX_FIELD) {
    err_set(e, SQLSTATE_PROGRAM_LIMIT, "requested length too large");
    return NULL;
  }
  char *out = arena_try_alloc(a, len + 1);
  if (!out) {
    op_budget_error(arena_budget(a), 0, e);
    return NULL;
  }
  char *p = out;
  *p++ = '{';
  for (int i = 0; i < n; i++) {
    if (i)
      *p++ = ',';
    p = elem_put(p, &elems[i], nulls && nulls[i]);
  }
  *p++ = '}';
  *p = 0;
  return out;
}

/* ---- ARRAY(subquery) -------------------------------------------------------- */

typedef struct op_array_agg_s {
  op_t oa_op;
} op_array_agg_t;

typedef struct array_agg_run_s {
  opst_t oa_st;
  bool oa_done;                 /* the row was returned */
} array_agg_run_t;

static int array_agg_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  ((array_agg_run_t *)st)->oa_done = false;
  return op_open(o->o_in, q, e);
}

static int array_agg_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  array_agg_run_t *g = (array_agg_run_t *)st;
  if (g->oa_done)
    return CZ_OK;
  g->oa_done = true;
  int n = 0, cap = 16;
  size_t bytes = 2; /* the text form's length so far: PostgreSQL's 1 GB bound */
  arena_t *a = st->os_state;
  /* The element and null arrays (one block) double with the input, and
   * each element is a copy: all fallible, 53200 past MaxQueryMem. */
  str_t *elems = arena_try_alloc(a, (sizeof(str_t) + 1) * (size_t)cap);
  if (!elems)
    return op_alloc_error(a, e);
  bool *nulls = (bool *)(elems + cap);
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      break;
    const vec_t *v = &in.ob_b->b_cols[0];
    for (int i = 0; i < in.ob_n; i++) {
      int r = in.ob_sel ? in.ob_sel[i] : i;
      if (n == cap) {
        cap *= 2;
        str_t *ne = arena_try_alloc(a, (sizeof(str_t) + 1) * (size_t)cap);
        if (!ne)
          return op_alloc_error(a, e);
        bool *nn = (bool *)(ne + cap);
        memcpy(ne, elems, sizeof(str_t) * (size_t)n);
        memcpy(nn, nulls, (size_t)n);
        arena_free(a, elems, (sizeof(str_t) + 1) * (size_t)(cap / 2));
        elems = ne;
        nulls = nn;
      }
      datum_t d;
      vec_get(v, r, &d);
      nulls[n] = d.d_null;
      if (!d.d_null && datum_copy(TP_STR, &d, a, &d, e) != CZ_OK)  /* the input batch goes away */
        return CZ_ERR;
      elems[n++] = d.d_null ? (str_t){"", 0} : d.d_str;
      bytes += elem_len(&elems[n - 1], nulls[n - 1]) + 1;
      if (bytes > XE_MAX_FIELD || n == INT32_MAX / 2)
        return err_set(e, SQLSTATE_PROGRAM_LIMIT, "array size exceeds the maximum allowed (%u bytes)",
                       XE_MAX_FIELD);
    }
    if (op_check_mem(q, st->os_state, e) != CZ_OK)
      return CZ_ERR;
  }
  batch_t *b = batch_create(st->os_batch, 1, o->o_types, 1, e);
  if (!b)
    return CZ_ERR;
  char *text = xarray_text(st->os_batch, elems, nulls, n, e);
  if (!text)
    return CZ_ERR;
  datum_t d = {.d_null = false};
  d.d_str.s_ptr = text;
  d.d_str.s_len = (uint32_t)strlen(text);
  vec_set(&b->b_cols[0], 0, &d);
  b->b_n = 1;
  out->ob_b = b;
  out->ob_n = 1;
  return CZ_OK;
}

static const op_vt_t array_agg_vt = {
    .ov_name = "ArrayAgg",
    .ov_open = array_agg_open,
    .ov_next = array_agg_next,
    .ov_run_size = sizeof(array_agg_run_t),
};

op_t *op_array_agg_new(arena_t *a, op_t *in)
{
  op_array_agg_t *g = arena_zalloc(a, sizeof(*g));
  ty_t t = ty_plain(TY_TEXT);
  op_init(&g->oa_op, &array_agg_vt, a, 1, &t, in, NULL);
  return &g->oa_op;
}
