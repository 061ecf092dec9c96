/* op_sort — ORDER BY: materialises the input in a row store, sorts a
 * permutation of row numbers (a stable merge sort, so equal keys keep
 * their input order) and returns the rows in batches.
 * NULLs sort as larger than any value (PostgreSQL's default: last when
 * ascending, first when descending) unless NULLS FIRST/LAST says
 * otherwise; the planner resolves that into sk_nulls_first. */
#include <string.h>

#include "exec/exec_int.h"

typedef struct op_sort_s {
  op_t os_op;
  int os_nkeys;
  sort_key_t *os_keys;
  xnode_t *os_limit_x;          /* top-k: only the first limit+offset rows matter */
  xnode_t *os_offset_x;
  arena_t *os_ar[2];            /* top-k: the rows live in os_ar[os_cur]; a trim
                                   copies the kept ones to the other and
                                   releases this one, so trims do not pile up */
  int os_cur;
  rstore_t os_rows;             /* run-time */
  int64_t *os_perm;
  int64_t os_pos;
} op_sort_t;

static int sort_cmp(const op_sort_t *s, int64_t a, int64_t b)
{
  for (int k = 0; k < s->os_nkeys; k++) {
    const sort_key_t *key = &s->os_keys[k];
    datum_t da, db;
    rs_get(&s->os_rows, a, key->sk_col, &da);
    rs_get(&s->os_rows, b, key->sk_col, &db);
    int c;
    if (da.d_null || db.d_null) {
      if (da.d_null && db.d_null)
        continue;
      c = da.d_null ? 1 : -1;
      if (key->sk_nulls_first)
        c = -c;
      return c;  /* NULL placement is not reversed by DESC */
    }
    c = datum_cmp(ty_phys(s->os_op.o_types[key->sk_col].t_id), &da, &db);
    if (c != 0)
      return key->sk_desc ? -c : c;
  }
  return 0;
}

/* Stable merge sort of row numbers. A sort of millions of rows takes
 * seconds inside one call: every merge of a few thousand rows checks for
 * cancellation (57014). */
static int merge_sort(const op_sort_t *s, qctx_t *q, int64_t *v, int64_t *tmp, int64_t n,
                      err_t *e)
{
  if (n < 2)
    return CZ_OK;
  if (n <= 8) {
    for (int64_t i = 1; i < n; i++) {
      int64_t x = v[i], j = i;
      while (j > 0 && sort_cmp(s, v[j - 1], x) > 0) {
        v[j] = v[j - 1];
        j--;
      }
      v[j] = x;
    }
    return CZ_OK;
  }
  int64_t h = n / 2;
  if (merge_sort(s, q, v, tmp, h, e) != CZ_OK || merge_sort(s, q, v + h, tmp, n - h, e) != CZ_OK)
    return CZ_ERR;
  if (n >= 4096 && op_check_cancel(q, e) != CZ_OK)
    return CZ_ERR;
  int64_t i = 0, j = h, k = 0;
  while (i < h && j < n)
    tmp[k++] = sort_cmp(s, v[j], v[i]) < 0 ? v[j++] : v[i++];
  while (i < h)
    tmp[k++] = v[i++];
  while (j < n)
    tmp[k++] = v[j++];
  memcpy(v, tmp, sizeof(int64_t) * (size_t)n);
  return CZ_OK;
}

/* Rows needed for LIMIT + OFFSET, or -1 (all). */
static int sort_keep(op_sort_t *s, qctx_t *q, int64_t *k, err_t *e)
{
  *k = -1;
  if (!s->os_limit_x)
    return CZ_OK;
  xctx_t xc;
  op_xctx(q, s->os_op.o_state, &xc);
  datum_t l, off = {.d_null = true};
  if (xeval_scalar(&xc, s->os_limit_x, &l, e) != CZ_OK ||
      (s->os_offset_x && xeval_scalar(&xc, s->os_offset_x, &off, e) != CZ_OK))
    return CZ_ERR;
  if (l.d_null || l.d_i64 < 0 || (!off.d_null && off.d_i64 < 0))
    return CZ_OK;  /* no limit, or an error the limit operator reports */
  *k = l.d_i64 + (off.d_null ? 0 : off.d_i64);
  return CZ_OK;
}

/* Top-k: keeps only the k first rows in order (a new row store). */
static int sort_trim(op_sort_t *s, qctx_t *q, int64_t k, err_t *e)
{
  int64_t n = s->os_rows.rs_n;
  arena_t *old = s->os_ar[s->os_cur], *next = s->os_ar[!s->os_cur];
  int64_t *perm = arena_try_alloc(old, sizeof(int64_t) * (size_t)n * 2);
  if (!perm)
    return op_alloc_error(old, e);
  int64_t *tmp = perm + n;
  for (int64_t i = 0; i < n; i++)
    perm[i] = i;
  if (merge_sort(s, q, perm, tmp, n, e) != CZ_OK)
    return CZ_ERR;
  rstore_t kept;
  rs_init(&kept, next, s->os_op.o_ncols, s->os_op.o_types);
  batch_t *row = batch_create(old, s->os_op.o_ncols, s->os_op.o_types, 1, NULL);
  for (int64_t i = 0; i < k && i < n; i++) {
    rs_copy_out(&s->os_rows, perm[i], row, 0, 0);
    if (rs_append_row(&kept, row, 0, e) < 0)
      return CZ_ERR;
  }
  /* The kept rows (strings copied) live in the other arena now. */
  arena_release(old);
  s->os_cur = !s->os_cur;
  s->os_rows = kept;
  return CZ_OK;
}

static int sort_open(op_t *o, qctx_t *q, err_t *e)
{
  op_sort_t *s = (op_sort_t *)o;
  s->os_cur = 0;
  rs_init(&s->os_rows, s->os_ar[0], o->o_ncols, o->o_types);
  s->os_pos = 0;
  s->os_perm = NULL;
  int64_t k;
  if (sort_keep(s, q, &k, e) != CZ_OK || op_open(o->o_in, q, e) != CZ_OK)
    return CZ_ERR;
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      break;
    if (rs_append(&s->os_rows, &in, e) != CZ_OK)
      return CZ_ERR;
    if (k >= 0 && s->os_rows.rs_n >= CZ_MAX(2 * k, 4 * RS_CHUNK))
      if (sort_trim(s, q, k, e) != CZ_OK)
        return CZ_ERR;
    if (op_check_mem(q, o->o_state, e) != CZ_OK)
      return CZ_ERR;
  }
  op_close(o->o_in, q);
  int64_t n = s->os_rows.rs_n;
  /* The permutation and its merge buffer grow with the input: fallible;
   * the buffer goes back once the rows are in order. */
  s->os_perm = arena_try_alloc(o->o_state, sizeof(int64_t) * (size_t)(n ? n : 1));
  int64_t *tmp = s->os_perm ? arena_try_alloc(o->o_state, sizeof(int64_t) * (size_t)(n ? n : 1))
                            : NULL;
  if (!tmp)
    return op_alloc_error(o->o_state, e);
  for (int64_t i = 0; i < n; i++)
    s->os_perm[i] = i;
  if (merge_sort(s, q, s->os_perm, tmp, n, e) != CZ_OK)
    return CZ_ERR;
  arena_free(o->o_state, tmp, sizeof(int64_t) * (size_t)(n ? n : 1));
  return CZ_OK;
}

static int sort_next(op_t *o, qctx_t *q, obatch_t *out, err_t *e)
{
  op_sort_t *s = (op_sort_t *)o;
  if (s->os_pos >= s->os_rows.rs_n)
    return CZ_OK;
  batch_t *b = op_new_batch(o, q, e);
  if (!b)
    return CZ_ERR;
  int n = 0;
  while (s->os_pos < s->os_rows.rs_n && n < q->q_vector_size)
    rs_copy_out(&s->os_rows, s->os_perm[s->os_pos++], b, n++, 0);
  b->b_n = n;
  out->ob_b = b;
  out->ob_n = n;
  return CZ_OK;
}

static void sort_close(op_t *o, qctx_t *q)
{
  op_close(o->o_in, q);
}

static char *sort_detail(const op_t *o, arena_t *a)
{
  const op_sort_t *s = (const op_sort_t *)o;
  char *t = arena_strdup(a, "keys:");
  for (int k = 0; k < s->os_nkeys; k++)
    t = arena_sprintf(a, "%s $%d%s%s", t, s->os_keys[k].sk_col + 1,
                      s->os_keys[k].sk_desc ? " desc" : "",
                      s->os_keys[k].sk_nulls_first != s->os_keys[k].sk_desc
                          ? (s->os_keys[k].sk_nulls_first ? " nulls first" : " nulls last")
                          : "");
  return t;
}

static const op_vt_t sort_vt = {"Sort", sort_open, sort_next, sort_close, sort_detail};

void op_sort_set_limit(op_t *o, xnode_t *limit, xnode_t *offset)
{
  op_sort_t *s = (op_sort_t *)o;
  s->os_limit_x = limit;
  s->os_offset_x = offset;
}

op_t *op_sort_new(arena_t *a, op_t *in, int nkeys, const sort_key_t *keys)
{
  op_sort_t *s = arena_zalloc(a, sizeof(*s));
  op_init(&s->os_op, &sort_vt, a, in->o_ncols, in->o_types, in, NULL);
  /* Children of o_state: reset and released with it. */
  s->os_ar[0] = arena_create(s->os_op.o_state, "Sort rows");
  s->os_ar[1] = arena_create(s->os_op.o_state, "Sort rows");
  s->os_nkeys = nkeys;
  s->os_keys = arena_alloc(a, sizeof(sort_key_t) * (size_t)(nkeys ? nkeys : 1));
  memcpy(s->os_keys, keys, sizeof(sort_key_t) * (size_t)nkeys);
  return &s->os_op;
}
