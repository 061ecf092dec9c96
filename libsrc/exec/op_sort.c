/* op_sort — ORDER BY: materialises the input in a row store, sorts its
 * row numbers (a stable merge sort of entries carrying the first key as an
 * order-preserving integer, "sorting rows held" below; equal keys keep
 * their input order) and returns the rows in batches.
 * Past the memory it may hold (spill_pressure) the rows so far are sorted
 * and written to a temporary file as a sorted run, and the store starts
 * empty again; at the end of the input the runs are merged, at most
 * os_fanin at a time (passes that merge groups of neighbouring runs into
 * one until few enough are left), the last merge feeding the output
 * (with the rows still held, sorted, as the last run).
 * Equal keys take the earlier run first, so the sort stays stable.
 * NULLs sort as larger than any value (PostgreSQL's default: last when
 * ascending, first when descending) unless NULLS FIRST/LAST says
 * otherwise; the planner resolves that into sk_nulls_first.
 *
 * Parallel Sort (op_sort_par_new, over a Gather): the Gather is drained
 * (op_gather_drain); every participant keeps the rows it produces in a
 * sorter of its own (its own arenas, its own top-k trims and spilled
 * runs, no lock), then all sort their rows at once, each on its thread;
 * the output merges every participant's sorted rows and runs. Rows come
 * from the participants in no fixed order, so equal keys have no fixed
 * order either (as PostgreSQL's Gather Merge). */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/spill.h"

#define SORT_READ_ROWS 256      /* rows a merge reads from a run at a time */
#define SORT_ARENA_STEP (1 << 20) /* the most an arena grows by at once (its largest chunk) */

/* One source of the final merge: a run on disk (ss_file, the batch of it
 * read last) or a sorter's rows sorted in memory (ss_rows in ss_perm's
 * order). */
typedef struct sort_src_s {
  spill_t *ss_file;
  batch_t *ss_b;
  arena_t *ss_strs;             /* the batch's strings, reset per read */
  int ss_pos;
  const rstore_t *ss_rows;      /* NULL: a file */
  const int64_t *ss_perm;
  int64_t ss_i, ss_n;
} sort_src_t;

typedef struct op_sort_s {
  op_t os_op;
  int os_nkeys;
  sort_key_t *os_keys;
  xnode_t *os_limit_x;          /* top-k: only the first limit+offset rows matter */
  xnode_t *os_offset_x;
  bool os_parallel;             /* o_in is a Gather, drained */
} op_sort_t;

/* Rows being sorted by one thread: the serial sort's, or one
 * participant's of a parallel sort. */
typedef struct sorter_s {
  arena_t *so_ar[2];            /* top-k: the rows live in so_ar[so_cur]; a trim
                                   copies the kept ones to the other and
                                   releases this one, so trims do not pile up */
  int so_cur;
  rstore_t so_rows;
  int64_t *so_perm;             /* after sorter_sort: so_rows in order */
  arena_t *so_meta;             /* so_runs' array */
  spill_t **so_runs;            /* sorted runs written so far, in input order */
  int so_nruns, so_cap_runs;
  int so_share;                 /* sorters that may sort at once (a Parallel Sort's
                                   threads): each keeps room for all of them */
} sorter_t;

/* Its run state in one execution. */
typedef struct sort_run_s {
  opst_t sr_st;
  const op_sort_t *sr_p;        /* the plan */
  sorter_t sr_one;              /* the serial sort's rows */
  sorter_t **sr_parts;          /* parallel: one per thread (in the execution's arena) */
  int sr_nparts;                /* parallel: participants that ran */
  int64_t sr_pos;               /* sr_one's next row when nothing is merged */
  spill_t **os_runs;            /* the final merge's runs (every sorter's) */
  int os_nruns;
  sort_src_t *os_src;           /* the final merge's sources (os_nsrc), or NULL */
  int os_nsrc;
  int *os_heap;                 /* the final merge's heap of sources */
  int os_nheap;
} sort_run_t;

/* Row ia of ba against row ib of bb by the sort keys from key `from` on. */
static int sort_cmp_rows(const op_sort_t *p, int from, const batch_t *ba, int ia, const batch_t *bb,
                         int ib)
{
  for (int k = from; k < p->os_nkeys; k++) {
    const sort_key_t *key = &p->os_keys[k];
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
    c = datum_cmp_t(p->os_op.o_types[key->sk_col].t_id, &da, &db);
    if (c != 0)
      return key->sk_desc ? -c : c;
  }
  return 0;
}

/* ---- sorting rows held ----------------------------------------------------
 * Rows are sorted as 16-byte entries: the first sort key as an unsigned
 * integer whose order is the key's (sort_prefix) and the row number.
 * Entries of different integers are ordered without touching the rows;
 * equal ones are compared by the keys themselves (from the second key
 * when the integer is exact: equal integers are equal first keys). */

typedef struct sort_ent_s {
  uint64_t se_key;
  int64_t se_row;
} sort_ent_t;

typedef struct sort_by_s {
  const op_sort_t *sb_p;
  const rstore_t *sb_rows;
  int sb_from;                  /* the first key compared when integers tie */
} sort_by_t;

static inline int ent_cmp(const sort_by_t *by, const sort_ent_t *a, const sort_ent_t *b)
{
  if (a->se_key != b->se_key)
    return a->se_key < b->se_key ? -1 : 1;
  if (by->sb_from >= by->sb_p->os_nkeys)
    return 0;
  const rstore_t *rs = by->sb_rows;
  return sort_cmp_rows(by->sb_p, by->sb_from, rs->rs_chunks[a->se_row / RS_CHUNK],
                       (int)(a->se_row % RS_CHUNK), rs->rs_chunks[b->se_row / RS_CHUNK],
                       (int)(b->se_row % RS_CHUNK));
}

/* Stable merge sort of entries. A sort of millions of rows takes a while
 * inside one call: every merge of a few thousand rows checks for
 * cancellation (57014). */
static int merge_sort(const sort_by_t *by, qctx_t *q, sort_ent_t *v, sort_ent_t *tmp, int64_t n,
                      err_t *e)
{
  if (n < 2)
    return CZ_OK;
  if (n <= 16) {
    for (int64_t i = 1; i < n; i++) {
      sort_ent_t x = v[i];
      int64_t j = i;
      while (j > 0 && ent_cmp(by, &v[j - 1], &x) > 0) {
        v[j] = v[j - 1];
        j--;
      }
      v[j] = x;
    }
    return CZ_OK;
  }
  int64_t h = n / 2;
  if (merge_sort(by, q, v, tmp, h, e) != CZ_OK || merge_sort(by, q, v + h, tmp, n - h, e) != CZ_OK)
    return CZ_ERR;
  if (n >= 4096 && op_check_cancel(q, e) != CZ_OK)
    return CZ_ERR;
  if (ent_cmp(by, &v[h - 1], &v[h]) <= 0)
    return CZ_OK;  /* already in order (sorted or nearly sorted input) */
  int64_t i = 0, j = h, k = 0;
  while (i < h && j < n)
    tmp[k++] = ent_cmp(by, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
  while (i < h)
    tmp[k++] = v[i++];
  while (j < n)
    tmp[k++] = v[j++];
  memcpy(v, tmp, sizeof(sort_ent_t) * (size_t)n);
  return CZ_OK;
}

/* A float's bits as an unsigned integer of the same order (datum_cmp's:
 * -0 equals 0, NaN above everything and equal to itself). */
static uint64_t f64_prefix(double x)
{
  if (x != x)
    return UINT64_MAX - 1;  /* NaN, below the NULLs-last mark */
  if (x == 0)
    x = 0.0;
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return (u & (1ULL << 63)) ? ~u : u | (1ULL << 63);
}

/* A numeric scale every value of column col in rs can be brought to
 * within 64 bits (the largest scale among them), or -1. */
static int num_common_scale(const rstore_t *rs, int col)
{
  int scale = 0;
  for (int c = 0; c < rs->rs_nchunks; c++) {
    const vec_t *v = &rs->rs_chunks[c]->b_cols[col];
    for (int i = 0; i < rs->rs_chunks[c]->b_n; i++)
      if (!v->v_null[i] && v->v_num[i].n_scale > scale)
        scale = v->v_num[i].n_scale;
  }
  return scale <= 18 ? scale : -1;
}

/* Fills ent[0..rs_n) with each row's number and first key as an integer
 * of the key's order; *exact says equal integers are equal keys. False
 * when the key has no such form here (intervals; numerics that do not fit
 * 64 bits at one scale): then every key is 0, and rows are compared. */
static bool sort_prefixes(const op_sort_t *p, const rstore_t *rs, sort_ent_t *ent, bool *exact)
{
  const sort_key_t *key = &p->os_keys[0];
  ty_phys_t ph = ty_phys(p->os_op.o_types[key->sk_col].t_id);
  int scale = ph == TP_NUM ? num_common_scale(rs, key->sk_col) : 0;
  /* jsonb's order is not its text's: no prefix, rows compared */
  bool usable = ph != TP_IV && scale >= 0 && p->os_op.o_types[key->sk_col].t_id != TY_JSONB;
  bool nulls = false, fits = true;
  *exact = ph != TP_STR;
  uint64_t null_key = key->sk_nulls_first ? 0 : UINT64_MAX;
  int64_t r = 0;
  for (int c = 0; c < rs->rs_nchunks; c++) {
    const batch_t *b = rs->rs_chunks[c];
    const vec_t *v = &b->b_cols[key->sk_col];
    for (int i = 0; i < b->b_n; i++, r++) {
      ent[r].se_row = r;
      uint64_t k = 0;
      if (!usable) {
        ent[r].se_key = 0;
        continue;
      }
      if (v->v_null[i]) {
        nulls = true;
        ent[r].se_key = null_key;
        continue;
      }
      switch (ph) {
      case TP_BOOL:
        k = v->v_bool[i] != 0;
        break;
      case TP_I64:
        k = (uint64_t)v->v_i64[i] ^ (1ULL << 63);
        break;
      case TP_F64:
        k = f64_prefix(v->v_f64[i]);
        break;
      case TP_NUM: {
        const num_t *n = &v->v_num[i];
        __int128 x = n->n_val;
        for (int s = n->n_scale; s < scale && fits; s++) {
          x *= 10;
          fits = x < ((__int128)1 << 62) && x > -((__int128)1 << 62);
        }
        fits = fits && x <= INT64_MAX && x >= INT64_MIN;
        k = (uint64_t)(int64_t)x ^ (1ULL << 63);
        break;
      }
      case TP_STR: {
        /* the first 8 bytes, big-endian, zero-padded: memcmp's order */
        const str_t *sv = &v->v_str[i];
        uint32_t m = sv->s_len < 8 ? sv->s_len : 8;
        for (uint32_t j = 0; j < 8; j++)
          k = k << 8 | (j < m ? (uint8_t)sv->s_ptr[j] : 0);
        break;
      }
      default:
        break;
      }
      /* a value whose integer is a NULL's (an end) ties with it and
       * is compared: never misordered */
      if (key->sk_desc)
        k = ~k;
      ent[r].se_key = k;
    }
  }
  if (!usable || !fits) {
    for (int64_t i = 0; i < r; i++)
      ent[i].se_key = 0;
    *exact = false;
    return false;
  }
  if (nulls)
    *exact = false;
  return true;
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

/* ---- a sorter ------------------------------------------------------------- */

/* An empty sorter; its arenas are made once (children of parent, reset
 * with it) and released here. */
static void sorter_init(sorter_t *so, const op_sort_t *p, arena_t *parent, int share)
{
  so->so_share = share;
  if (!so->so_ar[0]) {
    so->so_ar[0] = arena_create(parent, "Sort rows");
    so->so_ar[1] = arena_create(parent, "Sort rows");
    so->so_meta = arena_create(parent, "Sort runs");
  }
  arena_release(so->so_ar[0]);
  arena_release(so->so_ar[1]);
  arena_release(so->so_meta);
  so->so_cur = 0;
  rs_init(&so->so_rows, so->so_ar[0], p->os_op.o_ncols, p->os_op.o_types);
  so->so_perm = NULL;
  /* Files of an earlier execution were closed by its end (spill_end):
   * forgotten here, never touched. */
  so->so_runs = NULL;
  so->so_nruns = so->so_cap_runs = 0;
}

/* The rows held, in order (so_perm): fallible; the entries and their
 * merge buffer go back once the rows are. */
static int sorter_sort(const op_sort_t *p, sorter_t *so, qctx_t *q, err_t *e)
{
  int64_t n = so->so_rows.rs_n;
  arena_t *a = so->so_ar[so->so_cur];
  size_t bytes = sizeof(sort_ent_t) * (size_t)(n ? n : 1);
  sort_ent_t *ent = arena_try_alloc(a, bytes);
  sort_ent_t *tmp = ent ? arena_try_alloc(a, bytes) : NULL;
  if (!tmp)
    return op_alloc_error(a, e);
  bool exact;
  sort_by_t by = {.sb_p = p, .sb_rows = &so->so_rows, .sb_from = 0};
  if (sort_prefixes(p, &so->so_rows, ent, &exact) && exact)
    by.sb_from = 1;
  if (merge_sort(&by, q, ent, tmp, n, e) != CZ_OK)
    return CZ_ERR;
  arena_free(a, tmp, bytes);
  /* the permutation takes the entries' place: row i's number is written at
   * byte 8i, never past entry i (at byte 16i), which is read first */
  so->so_perm = (int64_t *)ent;
  for (int64_t i = 0; i < n; i++)
    so->so_perm[i] = ent[i].se_row;
  return CZ_OK;
}

/* Top-k: keeps only the k first rows in order (a new row store). */
static int sorter_trim(const op_sort_t *p, sorter_t *so, qctx_t *q, int64_t k, err_t *e)
{
  arena_t *old = so->so_ar[so->so_cur], *next = so->so_ar[!so->so_cur];
  if (sorter_sort(p, so, q, e) != CZ_OK)
    return CZ_ERR;
  rstore_t kept;
  rs_init(&kept, next, p->os_op.o_ncols, p->os_op.o_types);
  batch_t *row = batch_create(old, p->os_op.o_ncols, p->os_op.o_types, 1, NULL);
  for (int64_t i = 0; i < k && i < so->so_rows.rs_n; i++) {
    rs_copy_out(&so->so_rows, so->so_perm[i], row, 0, 0);
    if (rs_append_row(&kept, row, 0, e) < 0)
      return CZ_ERR;
  }
  /* The kept rows (strings copied) live in the other arena now. */
  arena_release(old);
  so->so_cur = !so->so_cur;
  so->so_rows = kept;
  so->so_perm = NULL;
  return CZ_OK;
}

/* Whether the rows held should go to a run now: the execution is near its
 * memory limit, or sorting them (32 bytes a row for the entries and their
 * merge buffer; so_share sorters may sort at once) would pass it, with a
 * margin for what the next batch adds (an eighth of the limit and an
 * arena's largest chunk). A store holding little of the memory does not
 * spill: its runs would be tiny and many. */
static bool sorter_should_spill(const sorter_t *so, const qctx_t *q)
{
  int64_t lim = spill_mem_limit(q);
  if (lim <= 0 || !spill_dir() || so->so_rows.rs_n < RS_CHUNK)
    return false;
  if ((int64_t)arena_bytes_used(so->so_ar[so->so_cur]) < lim / 16 / so->so_share)
    return false;
  if (spill_pressure(q))
    return true;
  return mem_budget_room(q->q_budget) <
         32 * so->so_rows.rs_n * so->so_share + lim / 8 + SORT_ARENA_STEP;
}

static void sorter_add_run(sorter_t *so, spill_t *f)
{
  if (so->so_nruns == so->so_cap_runs) {
    int cap = so->so_cap_runs ? so->so_cap_runs * 2 : 16;
    spill_t **n = arena_alloc(so->so_meta, sizeof(spill_t *) * (size_t)cap);
    if (so->so_nruns)
      memcpy(n, so->so_runs, sizeof(spill_t *) * (size_t)so->so_nruns);
    so->so_runs = n;
    so->so_cap_runs = cap;
  }
  so->so_runs[so->so_nruns++] = f;
}

/* Writes the rows held, sorted (so_perm), to a new run and empties the
 * store. */
static int sorter_write_run(const op_sort_t *p, sorter_t *so, qctx_t *q, err_t *e)
{
  spill_t *f = spill_open(q, p->os_op.o_ncols, p->os_op.o_types, e);
  if (!f)
    return CZ_ERR;
  sorter_add_run(so, f);
  const rstore_t *rs = &so->so_rows;
  for (int64_t i = 0; i < rs->rs_n; i++) {
    if ((i & 4095) == 4095 && op_check_cancel(q, e) != CZ_OK)
      return CZ_ERR;
    int64_t r = so->so_perm[i];
    if (spill_put(f, rs->rs_chunks[r / RS_CHUNK], (int)(r % RS_CHUNK), e) != CZ_OK)
      return CZ_ERR;
  }
  /* Written out: the file's buffer goes back until the merge reads it. */
  if (spill_rewind(f, e) != CZ_OK)
    return CZ_ERR;
  arena_t *cur = so->so_ar[so->so_cur];
  arena_release(cur);
  rs_init(&so->so_rows, cur, p->os_op.o_ncols, p->os_op.o_types);
  so->so_perm = NULL;
  return CZ_OK;
}

/* Sorts the rows held, writes them to a new run and empties the store. */
static int sorter_spill(const op_sort_t *p, sorter_t *so, qctx_t *q, err_t *e)
{
  if (sorter_sort(p, so, q, e) != CZ_OK)
    return CZ_ERR;
  return sorter_write_run(p, so, q, e);
}

/* One batch of input into so: stored, trimmed to the first k rows (k >=
 * 0: top-k), spilled under memory pressure. */
static int sorter_add(const op_sort_t *p, sorter_t *so, qctx_t *q, const obatch_t *in, int64_t k,
                      err_t *e)
{
  if (rs_append(&so->so_rows, in, e) != CZ_OK)
    return CZ_ERR;
  if (k >= 0 && so->so_rows.rs_n >= CZ_MAX(2 * k, 4 * RS_CHUNK) &&
      sorter_trim(p, so, q, k, e) != CZ_OK)
    return CZ_ERR;
  if (sorter_should_spill(so, q) && sorter_spill(p, so, q, e) != CZ_OK)
    return CZ_ERR;
  return op_check_mem(q, so->so_ar[so->so_cur], e);
}

/* ---- the final merge ------------------------------------------------------ */

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

/* The source's current row (false when it is exhausted). */
static bool src_row(const sort_src_t *src, const batch_t **b, int *i)
{
  if (src->ss_rows) {
    if (src->ss_i >= src->ss_n)
      return false;
    int64_t r = src->ss_perm[src->ss_i];
    *b = src->ss_rows->rs_chunks[r / RS_CHUNK];
    *i = (int)(r % RS_CHUNK);
    return true;
  }
  *b = src->ss_b;
  *i = src->ss_pos;
  return src->ss_pos < src->ss_b->b_n;
}

/* Sources for runs[0..nruns) (rewound, first batches read), then for the
 * sorters mem[0..nmem) whose rows are sorted in memory. */
static sort_src_t *sort_sources(sort_run_t *s, spill_t **runs, int nruns, sorter_t *const *mem,
                                int nmem, err_t *e)
{
  const op_t *o = &s->sr_p->os_op;
  opst_t *st = &s->sr_st;
  sort_src_t *src = arena_zalloc(st->os_state, sizeof(sort_src_t) * (size_t)(nruns + nmem + 1));
  for (int i = 0; i < nruns; i++) {
    src[i].ss_file = runs[i];
    src[i].ss_strs = arena_create(st->os_state, "Sort merge");
    src[i].ss_b = batch_create(st->os_state, o->o_ncols, o->o_types, SORT_READ_ROWS, e);
    if (!src[i].ss_b || spill_rewind(runs[i], e) != CZ_OK || src_fill(&src[i], e) != CZ_OK)
      return NULL;
  }
  for (int i = 0; i < nmem; i++) {
    sort_src_t *m = &src[nruns + i];
    m->ss_rows = &mem[i]->so_rows;
    m->ss_perm = mem[i]->so_perm;
    m->ss_n = mem[i]->so_rows.rs_n;
  }
  return src;
}

/* The merge's heap: indexes of the sources not exhausted, ordered by
 * their current rows, the earlier source first among equals (stability:
 * runs in input order, the rows held last). */
static bool heap_less(const sort_run_t *s, const sort_src_t *src, int a, int b)
{
  const batch_t *ba, *bb;
  int ia, ib;
  src_row(&src[a], &ba, &ia);
  src_row(&src[b], &bb, &ib);
  int c = sort_cmp_rows(s->sr_p, 0, ba, ia, bb, ib);
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
  for (int i = 0; i < n; i++) {
    const batch_t *b;
    int r;
    if (src_row(&src[i], &b, &r))
      heap[nh++] = i;
  }
  for (int i = nh / 2 - 1; i >= 0; i--)
    heap_down(s, src, heap, nh, i);
  return nh;
}

/* Moves the top source to its next row (reading its next batch when this
 * one is used up) and restores the heap. */
static int sort_advance(const sort_run_t *s, sort_src_t *src, int *heap, int *nh, err_t *e)
{
  sort_src_t *top = &src[heap[0]];
  if (top->ss_rows)
    top->ss_i++;
  else if (++top->ss_pos >= top->ss_b->b_n && top->ss_b->b_n > 0 && src_fill(top, e) != CZ_OK)
    return CZ_ERR;
  const batch_t *b;
  int r;
  if (!src_row(top, &b, &r))
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
  sort_src_t *src = sort_sources(s, runs, n, NULL, 0, e);
  if (!src)
    return CZ_ERR;
  int *heap = arena_alloc(s->sr_st.os_state, sizeof(int) * (size_t)n);
  int nh = heap_build(s, src, n, heap);
  spill_t *f = spill_open(q, s->sr_p->os_op.o_ncols, s->sr_p->os_op.o_types, e);
  if (!f)
    return CZ_ERR;
  *out = f;
  for (int64_t k = 0; nh > 0; k++) {
    if ((k & 4095) == 4095 && op_check_cancel(q, e) != CZ_OK)
      return CZ_ERR;
    sort_src_t *top = &src[heap[0]];
    if (spill_put(f, top->ss_b, top->ss_pos, e) != CZ_OK ||
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

/* Every sorter's input has ended and its rows held are sorted. When any
 * sorter spilled, the rows still held become each sorter's last run (the
 * final merge's file buffers take half of the memory: the rows cannot
 * stay beside them). Every run joins the execution's list (os_runs,
 * sorter by sorter, each in input order); passes merge neighbouring groups
 * of runs until at most the fan-in are left; those and the rows still in
 * memory feed sort_next. */
static int sort_finish(sort_run_t *s, qctx_t *q, sorter_t *const *parts, int nparts, err_t *e)
{
  bool spilled = false;
  for (int t = 0; t < nparts; t++)
    spilled |= parts[t]->so_nruns > 0;
  for (int t = 0; spilled && t < nparts; t++)
    if (parts[t]->so_rows.rs_n > 0 && sorter_write_run(s->sr_p, parts[t], q, e) != CZ_OK)
      return CZ_ERR;
  int total = 0;
  for (int t = 0; t < nparts; t++)
    total += parts[t]->so_nruns;
  s->os_runs = arena_alloc(s->sr_st.os_state, sizeof(spill_t *) * (size_t)(total + 1));
  s->os_nruns = 0;
  for (int t = 0; t < nparts; t++) {
    for (int i = 0; i < parts[t]->so_nruns; i++) {
      s->os_runs[s->os_nruns++] = parts[t]->so_runs[i];
      parts[t]->so_runs[i] = NULL;  /* os_runs closes it now */
    }
    parts[t]->so_nruns = 0;
  }
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
  s->os_src = sort_sources(s, s->os_runs, s->os_nruns, parts, nparts, e);
  if (!s->os_src)
    return CZ_ERR;
  s->os_nsrc = s->os_nruns + nparts;
  s->os_heap = arena_alloc(s->sr_st.os_state, sizeof(int) * (size_t)s->os_nsrc);
  s->os_nheap = heap_build(s, s->os_src, s->os_nsrc, s->os_heap);
  return CZ_OK;
}

/* sort_next over the final merge: rows copied (strings too) into the
 * output batch, as a file source's strings go at its next read. */
static int sort_next_merged(sort_run_t *s, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_t *o = &s->sr_p->os_op;
  opst_t *st = &s->sr_st;
  batch_t *b = NULL;
  int n = 0;
  while (n < q->q_vector_size && s->os_nheap > 0) {
    if (!b && !(b = op_new_batch(o, st, q, e)))
      return CZ_ERR;
    const batch_t *from;
    int r;
    src_row(&s->os_src[s->os_heap[0]], &from, &r);
    for (int c = 0; c < o->o_ncols; c++) {
      datum_t d, d2;
      vec_get(&from->b_cols[c], r, &d);
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
  /* The final merge's file sources are os_runs[0..os_nruns): closed once, here. */
  for (int i = 0; i < s->os_nruns; i++) {
    spill_close(s->os_runs[i]);
    s->os_runs[i] = NULL;
  }
  for (int i = 0; i < s->os_nsrc; i++) {
    s->os_src[i].ss_file = NULL;
    arena_destroy(s->os_src[i].ss_strs);
  }
  sorter_t *one = &s->sr_one;
  sorter_t *const *parts = s->sr_parts ? s->sr_parts : &one;
  for (int t = 0; t < (s->sr_parts ? s->sr_nparts : 1); t++) {
    for (int i = 0; i < parts[t]->so_nruns; i++)
      spill_close(parts[t]->so_runs[i]);
    parts[t]->so_nruns = 0;
  }
  s->os_nruns = 0;
  s->os_nsrc = 0;
  s->os_src = NULL;
}

/* ---- the operator --------------------------------------------------------- */

static void sort_reset(sort_run_t *s, const op_t *o)
{
  s->sr_p = (const op_sort_t *)o;
  s->sr_pos = 0;
  s->os_runs = NULL;
  s->os_nruns = 0;
  s->os_src = NULL;
  s->os_nsrc = 0;
  s->os_nheap = 0;
}

static int sort_open_serial(const op_t *o, sort_run_t *s, qctx_t *q, int64_t k, err_t *e)
{
  const op_sort_t *p = s->sr_p;
  sorter_t *so = &s->sr_one;
  sorter_init(so, p, s->sr_st.os_state, 1);
  if (op_open(o->o_in, q, e) != CZ_OK)
    return CZ_ERR;
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      break;
    if (sorter_add(p, so, q, &in, k, e) != CZ_OK)
      return CZ_ERR;
  }
  op_close(o->o_in, q);
  if (sorter_sort(p, so, q, e) != CZ_OK)
    return CZ_ERR;
  return so->so_nruns > 0 ? sort_finish(s, q, &so, 1, e) : CZ_OK;
}

/* A parallel sort's drain (op_gather_drain). */
typedef struct psort_s {
  const op_sort_t *ps_p;
  sorter_t **ps_parts;
  int64_t ps_k;
  int ps_nparts;
} psort_t;

static int psort_batch(void *arg, int part, qctx_t *w, const obatch_t *in, err_t *e)
{
  psort_t *ps = arg;
  return sorter_add(ps->ps_p, ps->ps_parts[part], w, in, ps->ps_k, e);
}

static int psort_mid(void *arg, int nparts, qctx_t *q, err_t *e)
{
  (void)q;
  (void)e;
  ((psort_t *)arg)->ps_nparts = nparts;
  return CZ_OK;
}

/* Each participant sorts its own rows, on its own thread. */
static int psort_part(void *arg, int part, int nparts, qctx_t *w, err_t *e)
{
  (void)nparts;
  psort_t *ps = arg;
  return sorter_sort(ps->ps_p, ps->ps_parts[part], w, e);
}

static int sort_open_parallel(const op_t *o, sort_run_t *s, qctx_t *q, int64_t k, err_t *e)
{
  int threads = CZ_MAX(q->q_threads, 1);
  if (!s->sr_parts) {
    /* made once per execution: each sorter's arenas are reset with os_state */
    s->sr_parts = arena_zalloc(qexec_arena(q), sizeof(sorter_t *) * (size_t)threads);
    for (int t = 0; t < threads; t++)
      s->sr_parts[t] = arena_zalloc(qexec_arena(q), sizeof(sorter_t));
  }
  for (int t = 0; t < threads; t++)
    sorter_init(s->sr_parts[t], s->sr_p, s->sr_st.os_state, threads);
  s->sr_nparts = 0;
  psort_t ps = {.ps_p = s->sr_p, .ps_parts = s->sr_parts, .ps_k = k};
  gdrain_t d = {.gd_batch = psort_batch, .gd_mid = psort_mid, .gd_part = psort_part, .gd_arg = &ps};
  int rc = op_gather_drain(o->o_in, q, &d, e);
  s->sr_nparts = ps.ps_nparts ? ps.ps_nparts : threads;
  if (rc != CZ_OK)
    return CZ_ERR;
  return sort_finish(s, q, s->sr_parts, ps.ps_nparts, e);
}

static int sort_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  sort_run_t *s = (sort_run_t *)st;
  sort_reset(s, o);
  int64_t k;
  if (sort_keep(s, q, &k, e) != CZ_OK)
    return CZ_ERR;
  if (s->sr_p->os_parallel)
    return sort_open_parallel(o, s, q, k, e);
  return sort_open_serial(o, s, q, k, e);
}

static int sort_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  sort_run_t *s = (sort_run_t *)st;
  s->sr_p = (const op_sort_t *)o;
  if (s->os_src)
    return sort_next_merged(s, q, out, e);
  const sorter_t *so = &s->sr_one;
  if (s->sr_pos >= so->so_rows.rs_n)
    return CZ_OK;
  batch_t *b = op_new_batch(o, st, q, e);
  if (!b)
    return CZ_ERR;
  int n = (int)CZ_MIN((int64_t)q->q_vector_size, so->so_rows.rs_n - s->sr_pos);
  for (int c = 0; c < o->o_ncols; c++)
    rs_gather(&so->so_rows, c, so->so_perm + s->sr_pos, n, &b->b_cols[c], 0);
  s->sr_pos += n;
  b->b_n = n;
  out->ob_b = b;
  out->ob_n = n;
  return CZ_OK;
}

static void sort_close(const op_t *o, opst_t *st, qctx_t *q)
{
  sort_drop_runs((sort_run_t *)st);
  /* a drained Gather was closed by its drain */
  if (!((const op_sort_t *)o)->os_parallel)
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

static const op_vt_t sort_par_vt = {
    .ov_name = "Parallel Sort",
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

static op_t *sort_new(arena_t *a, const op_vt_t *vt, op_t *in, int nkeys, const sort_key_t *keys)
{
  op_sort_t *s = arena_zalloc(a, sizeof(*s));
  op_init(&s->os_op, vt, a, in->o_ncols, in->o_types, in, NULL);
  s->os_nkeys = nkeys;
  s->os_keys = arena_alloc(a, sizeof(sort_key_t) * (size_t)(nkeys ? nkeys : 1));
  memcpy(s->os_keys, keys, sizeof(sort_key_t) * (size_t)nkeys);
  s->os_parallel = vt == &sort_par_vt;
  return &s->os_op;
}

op_t *op_sort_new(arena_t *a, op_t *in, int nkeys, const sort_key_t *keys)
{
  return sort_new(a, &sort_vt, in, nkeys, keys);
}

op_t *op_sort_par_new(arena_t *a, op_t *gather, int nkeys, const sort_key_t *keys)
{
  if (!op_is_gather(gather))
    return NULL;
  return sort_new(a, &sort_par_vt, gather, nkeys, keys);
}
