/* op_sort — ORDER BY: materialises the input in a row store, sorts a
 * permutation of row numbers (a stable merge sort, so equal keys keep
 * their input order) and returns the rows in batches.
 * Past the memory it may hold (spill_pressure) the rows so far are sorted
 * and written to a temporary file as a sorted run, and the store starts
 * empty again; at the end of the input the runs are merged, at most
 * os_fanin at a time (passes that merge groups of neighbouring runs into
 * one until few enough are left), the last merge feeding the output.
 * Equal keys take the earlier run first, so the sort stays stable.
 * NULLs sort as larger than any value (PostgreSQL's default: last when
 * ascending, first when descending) unless NULLS FIRST/LAST says
 * otherwise; the planner resolves that into sk_nulls_first. */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/spill.h"

#define SORT_READ_ROWS 256      /* rows a merge reads from a run at a time */

/* One run being merged: its file and the batch of it read last. */
typedef struct sort_src_s {
  spill_t *ss_file;
  batch_t *ss_b;
  arena_t *ss_strs;             /* the batch's strings, reset per read */
  int ss_pos;
} sort_src_t;

typedef struct op_sort_s {
  op_t os_op;
  int os_nkeys;
  sort_key_t *os_keys;
  xnode_t *os_limit_x;          /* top-k: only the first limit+offset rows matter */
  xnode_t *os_offset_x;
} op_sort_t;

/* Its run state in one execution. */
typedef struct sort_run_s {
  opst_t sr_st;
  const op_sort_t *sr_p;        /* the plan */
  arena_t *os_ar[2];            /* top-k: the rows live in os_ar[os_cur]; a trim
                                   copies the kept ones to the other and
                                   releases this one, so trims do not pile up */
  int os_cur;
  rstore_t os_rows;
  int64_t *os_perm;
  int64_t os_pos;
  spill_t **os_runs;            /* sorted runs written so far, in input order */
  int os_nruns, os_cap_runs;
  sort_src_t *os_src;           /* the final merge's runs (os_nsrc), or NULL */
  int os_nsrc;
  int *os_heap;                 /* the final merge's heap of sources */
  int os_nheap;
} sort_run_t;

/* Row ia of ba against row ib of bb by the sort keys. */
static int sort_cmp_rows(const sort_run_t *s, const batch_t *ba, int ia, const batch_t *bb, int ib)
{
  for (int k = 0; k < s->sr_p->os_nkeys; k++) {
    const sort_key_t *key = &s->sr_p->os_keys[k];
    datum_t da, db;
    vec_get(&ba->b_cols[key->sk_col], ia, &da);
    vec_get(&bb->b_cols[key->sk_col], ib, &db);
    int c;
    if (da.d_null || db.d_null) {
      if (da.d_null && db.d_null)
        continue;
      c = da.d_null ? 1 : -1;
      if (key->sk_nulls_first)
        c = -c;
      return c;  /* NULL placement is not reversed by DESC */
    }
    c = datum_cmp(ty_phys(s->sr_p->os_op.o_types[key->sk_col].t_id), &da, &db);
    if (c != 0)
      return key->sk_desc ? -c : c;
  }
  return 0;
}

static int sort_cmp(const sort_run_t *s, int64_t a, int64_t b)
{
  const rstore_t *rs = &s->os_rows;
  return sort_cmp_rows(s, rs->rs_chunks[a / RS_CHUNK], (int)(a % RS_CHUNK),
                       rs->rs_chunks[b / RS_CHUNK], (int)(b % RS_CHUNK));
}

/* Stable merge sort of row numbers. A sort of millions of rows takes
 * seconds inside one call: every merge of a few thousand rows checks for
 * cancellation (57014). */
static int merge_sort(const sort_run_t *s, qctx_t *q, int64_t *v, int64_t *tmp, int64_t n,
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
static int sort_keep(sort_run_t *s, qctx_t *q, int64_t *k, err_t *e)
{
  *k = -1;
  if (!s->sr_p->os_limit_x)
    return CZ_OK;
  xctx_t xc;
  op_xctx(q, s->sr_st.os_state, &xc);
  datum_t l, off = {.d_null = true};
  if (xeval_scalar(&xc, s->sr_p->os_limit_x, &l, e) != CZ_OK ||
      (s->sr_p->os_offset_x && xeval_scalar(&xc, s->sr_p->os_offset_x, &off, e) != CZ_OK))
    return CZ_ERR;
  if (l.d_null || l.d_i64 < 0 || (!off.d_null && off.d_i64 < 0))
    return CZ_OK;  /* no limit, or an error the limit operator reports */
  *k = l.d_i64 + (off.d_null ? 0 : off.d_i64);
  return CZ_OK;
}

/* Top-k: keeps only the k first rows in order (a new row store). */
static int sort_trim(sort_run_t *s, qctx_t *q, int64_t k, err_t *e)
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
  rs_init(&kept, next, s->sr_p->os_op.o_ncols, s->sr_p->os_op.o_types);
  batch_t *row = batch_create(old, s->sr_p->os_op.o_ncols, s->sr_p->os_op.o_types, 1, NULL);
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

/* ---- spilling ----------------------------------------------------------- */

/* Whether the rows held should go to a run now: the execution is near its
 * memory limit, or sorting them (16 bytes a row for the permutation and
 * its merge buffer) would pass it. A store holding little of the memory
 * does not spill: its runs would be tiny and many. */
static bool sort_should_spill(const sort_run_t *s, const qctx_t *q)
{
  int64_t lim = spill_mem_limit(q);
  if (lim <= 0 || !spill_dir() || s->os_rows.rs_n < RS_CHUNK)
    return false;
  if ((int64_t)arena_bytes_used(s->os_ar[s->os_cur]) < lim / 16)
    return false;
  if (spill_pressure(q))
    return true;
  return mem_budget_room(q->q_budget) < 16 * s->os_rows.rs_n + lim / 8;
}

static int sort_add_run(sort_run_t *s, spill_t *f, err_t *e)
{
  (void)e;
  if (s->os_nruns == s->os_cap_runs) {
    int cap = s->os_cap_runs ? s->os_cap_runs * 2 : 16;
    spill_t **n = arena_alloc(s->sr_st.os_state, sizeof(spill_t *) * (size_t)cap);
    if (s->os_nruns)
      memcpy(n, s->os_runs, sizeof(spill_t *) * (size_t)s->os_nruns);
    s->os_runs = n;
    s->os_cap_runs = cap;
  }
  s->os_runs[s->os_nruns++] = f;
  return CZ_OK;
}

/* Sorts the rows held, writes them to a new run and empties the store. */
static int sort_spill_run(sort_run_t *s, qctx_t *q, err_t *e)
{
  int64_t n = s->os_rows.rs_n;
  arena_t *cur = s->os_ar[s->os_cur];
  int64_t *perm = arena_try_alloc(cur, sizeof(int64_t) * (size_t)(n ? n : 1) * 2);
  if (!perm)
    return op_alloc_error(cur, e);
  for (int64_t i = 0; i < n; i++)
    perm[i] = i;
  if (merge_sort(s, q, perm, perm + n, n, e) != CZ_OK)
    return CZ_ERR;
  spill_t *f = spill_open(q, s->sr_p->os_op.o_ncols, s->sr_p->os_op.o_types, e);
  if (!f)
    return CZ_ERR;
  if (sort_add_run(s, f, e) != CZ_OK)
    return CZ_ERR;
  const rstore_t *rs = &s->os_rows;
  for (int64_t i = 0; i < n; i++) {
    if ((i & 4095) == 4095 && op_check_cancel(q, e) != CZ_OK)
      return CZ_ERR;
    if (spill_put(f, rs->rs_chunks[perm[i] / RS_CHUNK], (int)(perm[i] % RS_CHUNK), e) != CZ_OK)
      return CZ_ERR;
  }
  /* Written out: the file's buffer goes back until the merge reads it. */
  if (spill_rewind(f, e) != CZ_OK)
    return CZ_ERR;
  arena_release(cur);
  rs_init(&s->os_rows, cur, s->sr_p->os_op.o_ncols, s->sr_p->os_op.o_types);
  return CZ_OK;
}

/* Runs merged at once: each takes a file buffer and a batch of
 * SORT_READ_ROWS rows; half of the memory limit goes to them. */
static int sort_fanin(const sort_run_t *s, const qctx_t *q)
{
  int64_t lim = spill_mem_limit(q);
  int64_t per = 16 * 1024 + (int64_t)SORT_READ_ROWS * (s->sr_p->os_op.o_ncols + 1) * 48 + 32 * 1024;
  int64_t f = lim > 0 ? lim / 2 / per : 64;
  return (int)CZ_MAX(2, CZ_MIN(f, 64));
}

static int src_fill(sort_src_t *src, err_t *e)
{
  arena_reset(src->ss_strs);
  src->ss_pos = 0;
  return spill_get(src->ss_file, src->ss_b, src->ss_strs, e);
}

/* Sources for runs[0..n): rewound, first batches read. */
static sort_src_t *sort_sources(sort_run_t *s, spill_t **runs, int n, err_t *e)
{
  const op_t *o = &s->sr_p->os_op;
  opst_t *st = &s->sr_st;
  sort_src_t *src = arena_alloc(st->os_state, sizeof(sort_src_t) * (size_t)n);
  for (int i = 0; i < n; i++) {
    src[i].ss_file = runs[i];
    src[i].ss_strs = arena_create(st->os_state, "Sort merge");
    src[i].ss_b = batch_create(st->os_state, o->o_ncols, o->o_types, SORT_READ_ROWS, e);
    if (!src[i].ss_b || spill_rewind(runs[i], e) != CZ_OK || src_fill(&src[i], e) != CZ_OK)
      return NULL;
  }
  return src;
}

/* The merge's heap: indexes of the sources not exhausted, ordered by
 * their current rows, the earlier run first among equals (stability). */
static bool heap_less(const sort_run_t *s, const sort_src_t *src, int a, int b)
{
  int c = sort_cmp_rows(s, src[a].ss_b, src[a].ss_pos, src[b].ss_b, src[b].ss_pos);
  return c < 0 || (c == 0 && a < b);
}

static void heap_down(const sort_run_t *s, const sort_src_t *src, int *heap, int nh, int i)
{
  for (;;) {
    int l = 2 * i + 1, m = i;
    if (l < nh && heap_less(s, src, heap[l], heap[m]))
      m = l;
    if (l + 1 < nh && heap_less(s, src, heap[l + 1], heap[m]))
      m = l + 1;
    if (m == i)
      return;
    int t = heap[i];
    heap[i] = heap[m];
    heap[m] = t;
    i = m;
  }
}

/* A heap over src[0..n) in heap (capacity n); returns its size. */
static int heap_build(const sort_run_t *s, const sort_src_t *src, int n, int *heap)
{
  int nh = 0;
  for (int i = 0; i < n; i++)
    if (src[i].ss_pos < src[i].ss_b->b_n)
      heap[nh++] = i;
  for (int i = nh / 2 - 1; i >= 0; i--)
    heap_down(s, src, heap, nh, i);
  return nh;
}

/* The source holding the smallest row, or -1 when all are exhausted. */
static int sort_pick(const int *heap, int nh)
{
  return nh > 0 ? heap[0] : -1;
}

/* Moves the top source to its next row (reading its next batch when this
 * one is used up) and restores the heap. */
static int sort_advance(const sort_run_t *s, sort_src_t *src, int *heap, int *nh, err_t *e)
{
  sort_src_t *top = &src[heap[0]];
  if (++top->ss_pos >= top->ss_b->b_n && top->ss_b->b_n > 0 && src_fill(top, e) != CZ_OK)
    return CZ_ERR;
  if (top->ss_pos >= top->ss_b->b_n)
    heap[0] = heap[--*nh];
  heap_down(s, src, heap, *nh, 0);
  return CZ_OK;
}

static void sort_sources_done(sort_src_t *src, int n)
{
  for (int i = 0; i < n; i++) {
    spill_close(src[i].ss_file);
    src[i].ss_file = NULL;
    arena_destroy(src[i].ss_strs);
  }
}

/* Merges runs[0..n) into one new run. */
static int sort_merge_runs(sort_run_t *s, qctx_t *q, spill_t **runs, int n, spill_t **out,
                           err_t *e)
{
  sort_src_t *src = sort_sources(s, runs, n, e);
  if (!src)
    return CZ_ERR;
  int *heap = arena_alloc(s->sr_st.os_state, sizeof(int) * (size_t)n);
  int nh = heap_build(s, src, n, heap);
  spill_t *f = spill_open(q, s->sr_p->os_op.o_ncols, s->sr_p->os_op.o_types, e);
  if (!f)
    return CZ_ERR;
  *out = f;
  for (int64_t k = 0;; k++) {
    if ((k & 4095) == 4095 && op_check_cancel(q, e) != CZ_OK)
      return CZ_ERR;
    int i = sort_pick(heap, nh);
    if (i < 0)
      break;
    if (spill_put(f, src[i].ss_b, src[i].ss_pos, e) != CZ_OK ||
        sort_advance(s, src, heap, &nh, e) != CZ_OK)
      return CZ_ERR;
  }
  sort_sources_done(src, n);
  if (spill_rewind(f, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < n; i++)
    runs[i] = NULL;
  return CZ_OK;
}

/* The input has ended with runs on disk: the rows still held become the
 * last run; passes merge neighbouring groups of runs until at most the
 * fan-in are left; those feed sort_next. */
static int sort_finish_runs(sort_run_t *s, qctx_t *q, err_t *e)
{
  if (s->os_rows.rs_n > 0 && sort_spill_run(s, q, e) != CZ_OK)
    return CZ_ERR;
  int fan = sort_fanin(s, q);
  while (s->os_nruns > fan) {
    int m = 0;
    for (int g = 0; g < s->os_nruns; g += fan) {
      int n = CZ_MIN(fan, s->os_nruns - g);
      spill_t *merged = s->os_runs[g];
      if (n > 1 && sort_merge_runs(s, q, s->os_runs + g, n, &merged, e) != CZ_OK) {
        s->os_runs[g] = merged;  /* closed with the rest by sort_close */
        return CZ_ERR;
      }
      s->os_runs[m++] = merged;
    }
    for (int i = m; i < s->os_nruns; i++)
      s->os_runs[i] = NULL;
    s->os_nruns = m;
  }
  s->os_src = sort_sources(s, s->os_runs, s->os_nruns, e);
  if (!s->os_src)
    return CZ_ERR;
  s->os_nsrc = s->os_nruns;
  s->os_heap = arena_alloc(s->sr_st.os_state, sizeof(int) * (size_t)s->os_nsrc);
  s->os_nheap = heap_build(s, s->os_src, s->os_nsrc, s->os_heap);
  return CZ_OK;
}

/* sort_next over the final merge: rows copied (strings too) into the
 * output batch, as a source's strings go at its next read. */
static int sort_next_merged(sort_run_t *s, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_t *o = &s->sr_p->os_op;
  opst_t *st = &s->sr_st;
  batch_t *b = NULL;
  int n = 0;
  while (n < q->q_vector_size) {
    int i = sort_pick(s->os_heap, s->os_nheap);
    if (i < 0)
      break;
    if (!b && !(b = op_new_batch(o, st, q, e)))
      return CZ_ERR;
    sort_src_t *src = &s->os_src[i];
    for (int c = 0; c < o->o_ncols; c++) {
      datum_t d, d2;
      vec_get(&src->ss_b->b_cols[c], src->ss_pos, &d);
      if (datum_copy(ty_phys(o->o_types[c].t_id), &d, st->os_batch, &d2, e) != CZ_OK)
        return CZ_ERR;
      vec_set(&b->b_cols[c], n, &d2);
    }
    n++;
    if (sort_advance(s, s->os_src, s->os_heap, &s->os_nheap, e) != CZ_OK)
      return CZ_ERR;
  }
  if (!b)
    return CZ_OK;
  b->b_n = n;
  out->ob_b = b;
  out->ob_n = n;
  return CZ_OK;
}

/* Closes every run file the sort still holds (ov_close, and before a new
 * execution forgets them). */
static void sort_drop_runs(sort_run_t *s)
{
  /* The final merge's sources are os_runs[0..os_nsrc): closed once, here. */
  for (int i = 0; i < s->os_nruns; i++) {
    spill_close(s->os_runs[i]);
    s->os_runs[i] = NULL;
  }
  for (int i = 0; i < s->os_nsrc; i++) {
    s->os_src[i].ss_file = NULL;
    arena_destroy(s->os_src[i].ss_strs);
  }
  s->os_nruns = 0;
  s->os_nsrc = 0;
  s->os_src = NULL;
}

static int sort_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  sort_run_t *s = (sort_run_t *)st;
  s->sr_p = (const op_sort_t *)o;
  if (!s->os_ar[0]) {
    /* Children of os_state: reset with it at every open. */
    s->os_ar[0] = arena_create(st->os_state, "Sort rows");
    s->os_ar[1] = arena_create(st->os_state, "Sort rows");
  }
  s->os_cur = 0;
  rs_init(&s->os_rows, s->os_ar[0], o->o_ncols, o->o_types);
  s->os_pos = 0;
  s->os_perm = NULL;
  /* Files of an earlier execution were closed by its end (spill_end):
   * forgotten here, never touched. */
  s->os_runs = NULL;
  s->os_nruns = s->os_cap_runs = 0;
  s->os_src = NULL;
  s->os_nsrc = 0;
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
    if (sort_should_spill(s, q) && sort_spill_run(s, q, e) != CZ_OK)
      return CZ_ERR;
    if (op_check_mem(q, st->os_state, e) != CZ_OK)
      return CZ_ERR;
  }
  op_close(o->o_in, q);
  if (s->os_nruns > 0)
    return sort_finish_runs(s, q, e);
  int64_t n = s->os_rows.rs_n;
  /* The permutation and its merge buffer grow with the input: fallible;
   * the buffer goes back once the rows are in order. */
  s->os_perm = arena_try_alloc(st->os_state, sizeof(int64_t) * (size_t)(n ? n : 1));
  int64_t *tmp = s->os_perm ? arena_try_alloc(st->os_state, sizeof(int64_t) * (size_t)(n ? n : 1))
                            : NULL;
  if (!tmp)
    return op_alloc_error(st->os_state, e);
  for (int64_t i = 0; i < n; i++)
    s->os_perm[i] = i;
  if (merge_sort(s, q, s->os_perm, tmp, n, e) != CZ_OK)
    return CZ_ERR;
  arena_free(st->os_state, tmp, sizeof(int64_t) * (size_t)(n ? n : 1));
  return CZ_OK;
}

static int sort_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  sort_run_t *s = (sort_run_t *)st;
  s->sr_p = (const op_sort_t *)o;
  if (s->os_src)
    return sort_next_merged(s, q, out, e);
  if (s->os_pos >= s->os_rows.rs_n)
    return CZ_OK;
  batch_t *b = op_new_batch(o, st, q, e);
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

static void sort_close(const op_t *o, opst_t *st, qctx_t *q)
{
  sort_drop_runs((sort_run_t *)st);
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

/* Its keys, as far as they fit an op_order_t. */
static void sort_order(const op_t *o, op_order_t *out)
{
  const op_sort_t *s = (const op_sort_t *)o;
  out->oo_nconst = 0;
  out->oo_unique = false;
  out->oo_n = s->os_nkeys < OP_ORDER_MAX ? s->os_nkeys : OP_ORDER_MAX;
  memcpy(out->oo_keys, s->os_keys, sizeof(sort_key_t) * (size_t)out->oo_n);
}

static const op_vt_t sort_vt = {
    .ov_name = "Sort",
    .ov_open = sort_open,
    .ov_next = sort_next,
    .ov_close = sort_close,
    .ov_detail = sort_detail,
    .ov_run_size = sizeof(sort_run_t),
    .ov_order = sort_order,
};

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
  s->os_nkeys = nkeys;
  s->os_keys = arena_alloc(a, sizeof(sort_key_t) * (size_t)(nkeys ? nkeys : 1));
  memcpy(s->os_keys, keys, sizeof(sort_key_t) * (size_t)nkeys);
  return &s->os_op;
}
