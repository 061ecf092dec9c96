/* op_hashagg_par — the final group-by of a parallel plan, run by every
 * thread: the partial groups the threads made are partitioned by their
 * keys' hash, and each partition is merged by one thread.
 *
 * Design notes:
 * - Plan (opt_par.c): `Parallel Merge` has the final HashAggregate as its
 *   first input, over a `Partitions` leaf, and the Gather of the partial
 *   group-bys as its second. At open the Gather is drained
 *   (op_gather_drain): each thread hands every partial row it makes to
 *   one of PM_PARTS_PER_THREAD x threads partitions by the hash of its
 *   group keys (rows_hash, top bits), in row stores of its own (no lock).
 *   Then each thread runs the final HashAggregate in its own context,
 *   its `Partitions` leaf claiming whole partitions (an atomic counter)
 *   and reading every thread's rows of them. A group's partial rows all
 *   lie in one partition, so each group is merged by one thread, whole,
 *   and threads' groups never overlap: the final rows are the single
 *   final group-by's (in another order). Each thread's final rows go to
 *   a row store of its own, which next returns chunk by chunk.
 * - Why not one final table: with many groups (a group-by on a key, TPC-H
 *   Q18's subquery: 1.5 M partial groups that barely overlap) the merge
 *   inserts as many groups as the partials, on one thread, and takes
 *   longer than the partial phase saved.
 * - Memory: the partition stores, the final tables (in the threads'
 *   contexts, freed when the drain ends) and the output stores are all
 *   charged to MaxQueryMem. Under spill_pressure a thread writes its
 *   further partial rows to temporary files, one per partition, read
 *   after its stores; each final group-by spills as usual.
 * - Errors and cancel: as any drained Gather's (the first failure is the
 *   query's; the final group-by checks the cancel flag per batch).
 * - EXPLAIN ANALYZE: the final group-by's and the leaf's figures of every
 *   thread are summed into the session's run states.
 * - Without group keys there is one group: the planner keeps the single
 *   final group-by (it must exist on an empty input).
 */
#include <stdatomic.h>
#include <string.h>

#include "exec/exec_int.h"
#include "exec/spill.h"
#include "thread/thread.h"

#define PM_PARTS_PER_THREAD 8

typedef struct op_pmerge_s {
  op_t pm_op;                   /* o_in: the final group-by, o_in2: the Gather */
  const op_t *pm_leaf;          /* the final group-by's Partitions leaf */
  int pm_ngroup;
} op_pmerge_t;

/* One thread's partial rows of every partition. */
typedef struct pm_src_s {
  arena_t *ps_a;
  rstore_t *ps_rows;            /* per partition */
  spill_t **ps_files;           /* per partition, past the memory (NULL none) */
  bool ps_spilling;
  uint64_t *ps_hash;            /* scratch per batch */
  int *ps_sel;                  /* scratch: rows by partition */
  int *ps_count;                /* per partition: rows of the batch */
  int ps_cap;
} pm_src_t;

/* What every thread shares while draining and merging. */
typedef struct pm_share_s {
  const op_pmerge_t *sh_p;
  int sh_nparts;                /* partitions */
  int sh_nsrc;                  /* threads that produced rows */
  pm_src_t *sh_src;             /* per thread (q_threads entries) */
  _Atomic int sh_next;          /* the next partition to claim */
  rstore_t *sh_out;             /* per thread: its final rows */
  spill_t **sh_out_file;        /* per thread: its final rows past the memory (NULL none),
                                   after those of sh_out */
  arena_t **sh_out_a;
  cz_mutex_t sh_mx;             /* over the figures summed into sh_q */
  qctx_t *sh_q;                 /* the session's context */
} pm_share_t;

typedef struct pmerge_run_s {
  opst_t sr_st;
  arena_t **pm_out_a;           /* per thread: its output store's arena (made once per
                                   execution, released at close) */
  pm_share_t *pm_sh;
  int pm_t;                     /* next: output store */
  int64_t pm_chunk;             /* next: its chunk */
  int64_t pm_off;               /* next: that chunk's next row */
} pmerge_run_t;

/* Rows [*off, *off + vector size) of a stored chunk as out (a selection
 * over the chunk when it holds more: no operator gets more rows than
 * VectorSize at once); true when the chunk has no rows left after them. */
static bool chunk_slice(batch_t *b, int64_t *off, opst_t *st, const qctx_t *q, obatch_t *out)
{
  int vs = q->q_vector_size > 0 ? q->q_vector_size : RS_CHUNK;
  int from = (int)*off, n = CZ_MIN(b->b_n - from, vs);
  out->ob_b = b;
  out->ob_n = n;
  if (from > 0 || n < b->b_n) {
    int *sel = arena_alloc(st->os_batch, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
      sel[i] = from + i;
    out->ob_sel = sel;
  }
  *off = from + n;
  if (*off < b->b_n)
    return false;
  *off = 0;
  return true;
}

/* ---- the Partitions leaf ------------------------------------------------ */

typedef struct pleaf_run_s {
  opst_t sr_st;
  pm_share_t *pl_sh;
  int pl_part;                  /* partition being read, -1 none */
  int pl_src;                   /* its producer */
  int64_t pl_chunk;             /* next chunk of that producer's store */
  int64_t pl_off;               /* next row of that chunk */
  bool pl_file;                 /* reading that producer's file */
} pleaf_run_t;

static const void *leaf_key(const op_t *leaf)
{
  return &leaf->o_ncols;
}

static int pleaf_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  pleaf_run_t *l = (pleaf_run_t *)st;
  pm_share_t *const *slot = qexec_state(q, leaf_key(o), 0, false, NULL);
  if (!slot || !*slot)
    return err_set(e, SQLSTATE_INTERNAL, "Partitions opened outside a parallel merge");
  l->pl_sh = *slot;
  l->pl_part = -1;
  return CZ_OK;
}

static int pleaf_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  pleaf_run_t *l = (pleaf_run_t *)st;
  pm_share_t *sh = l->pl_sh;
  for (;;) {
    if (l->pl_part < 0) {
      int k = atomic_fetch_add(&sh->sh_next, 1);
      if (k >= sh->sh_nparts)
        return CZ_OK;
      l->pl_part = k;
      l->pl_src = 0;
      l->pl_chunk = 0;
      l->pl_off = 0;
      l->pl_file = false;
    }
    if (l->pl_src >= sh->sh_nsrc) {
      l->pl_part = -1;
      continue;
    }
    pm_src_t *s = &sh->sh_src[l->pl_src];
    const rstore_t *rs = &s->ps_rows[l->pl_part];
    if (!l->pl_file) {
      if (l->pl_chunk < rs->rs_nchunks) {
        if (chunk_slice(rs->rs_chunks[l->pl_chunk], &l->pl_off, st, q, out))
          l->pl_chunk++;
        return CZ_OK;
      }
      l->pl_file = true;
    }
    spill_t *f = s->ps_files ? s->ps_files[l->pl_part] : NULL;
    if (f) {
      batch_t *b = batch_create(st->os_batch, o->o_ncols, o->o_types, q->q_vector_size, e);
      if (!b || spill_get(f, b, st->os_batch, e) != CZ_OK)
        return CZ_ERR;
      if (b->b_n > 0) {
        out->ob_b = b;
        out->ob_n = b->b_n;
        return CZ_OK;
      }
    }
    l->pl_src++;
    l->pl_chunk = 0;
    l->pl_file = false;
  }
}

static void pleaf_close(const op_t *o, opst_t *st, qctx_t *q)
{
  (void)o;
  (void)st;
  (void)q;
}

static char *pleaf_detail(const op_t *o, arena_t *a)
{
  (void)o;
  return arena_strdup(a, "(by group key hash)");
}

static const op_vt_t pleaf_vt = {
    .ov_name = "Partitions",
    .ov_open = pleaf_open,
    .ov_next = pleaf_next,
    .ov_close = pleaf_close,
    .ov_detail = pleaf_detail,
    .ov_run_size = sizeof(pleaf_run_t),
};

/* ---- the drain ------------------------------------------------------------ */

/* Phase 1: a batch of partial rows made by thread `part`. */
static int pm_batch(void *arg, int part, qctx_t *w, const obatch_t *in, err_t *e)
{
  pm_share_t *sh = arg;
  pm_src_t *s = &sh->sh_src[part];
  int n = in->ob_n, np = sh->sh_nparts;
  if (n > s->ps_cap) {
    s->ps_hash = arena_alloc(s->ps_a, sizeof(uint64_t) * (size_t)n);
    s->ps_sel = arena_alloc(s->ps_a, sizeof(int) * (size_t)n);
    s->ps_cap = n;
  }
  rows_hash(in->ob_b, sh->sh_p->pm_ngroup, NULL, in->ob_sel, n, s->ps_hash);
  if (s->ps_spilling) {
    for (int i = 0; i < n; i++) {
      int k = (int)((s->ps_hash[i] >> 32) % (uint64_t)np);
      const op_t *leaf = sh->sh_p->pm_leaf;
      if (!s->ps_files[k] &&
          !(s->ps_files[k] = spill_open(w, leaf->o_ncols, leaf->o_types, e)))
        return CZ_ERR;
      if (spill_put(s->ps_files[k], in->ob_b, in->ob_sel ? in->ob_sel[i] : i, e) != CZ_OK)
        return CZ_ERR;
    }
    return CZ_OK;
  }
  /* the batch's rows by partition (a counting sort), then each
   * partition's rows appended a column at a time */
  int *cnt = s->ps_count;
  memset(cnt, 0, sizeof(int) * (size_t)(np + 1));
  for (int i = 0; i < n; i++)
    cnt[(s->ps_hash[i] >> 32) % (uint64_t)np + 1]++;
  for (int k = 0; k < np; k++)
    cnt[k + 1] += cnt[k];
  for (int i = 0; i < n; i++) {
    int k = (int)((s->ps_hash[i] >> 32) % (uint64_t)np);
    s->ps_sel[cnt[k]++] = in->ob_sel ? in->ob_sel[i] : i;
  }
  /* cnt[k] is now the end of partition k's rows */
  for (int k = 0, at = 0; k < np; at = cnt[k++])
    if (cnt[k] > at && rs_append_rows(&s->ps_rows[k], in->ob_b, s->ps_sel + at, cnt[k] - at, e) < 0)
      return CZ_ERR;
  if (op_check_mem(w, s->ps_a, e) != CZ_OK)
    return CZ_ERR;
  if (spill_dir() && spill_pressure(w)) {
    s->ps_spilling = true;
    s->ps_files = arena_zalloc(s->ps_a, sizeof(spill_t *) * (size_t)np);
  }
  return CZ_OK;
}

static int pm_mid(void *arg, int nparts, qctx_t *q, err_t *e)
{
  (void)q;
  pm_share_t *sh = arg;
  sh->sh_nsrc = nparts;
  for (int t = 0; t < nparts; t++) {
    pm_src_t *s = &sh->sh_src[t];
    for (int k = 0; s->ps_files && k < sh->sh_nparts; k++)
      if (s->ps_files[k] && spill_rewind(s->ps_files[k], e) != CZ_OK)
        return CZ_ERR;
  }
  return CZ_OK;
}

/* Adds what w measured of o and its inputs to the session's run states. */
static void pm_figures(pm_share_t *sh, const op_t *o, qctx_t *w)
{
  for (; o; o = o->o_in) {
    const opst_t *ws = op_state(o, w);
    if (!ws)
      return;
    size_t size = o->o_vt->ov_run_size ? o->o_vt->ov_run_size : sizeof(opst_t);
    mutex_lock(&sh->sh_mx);
    opst_t *ps = qexec_state(sh->sh_q, o, size, true, NULL);
    ps->os_opened = true;
    ps->os_rows += ws->os_rows;
    ps->os_ns += ws->os_ns;
    ps->os_mem += ws->os_mem;
    mutex_unlock(&sh->sh_mx);
  }
}

/* One batch of thread part's final rows: to its store, or, once the
 * memory is short, to its file. */
static int pm_keep(pm_share_t *sh, int part, qctx_t *w, const obatch_t *ob, err_t *e)
{
  const op_t *o = &sh->sh_p->pm_op;
  spill_t **f = &sh->sh_out_file[part];
  if (!*f && spill_dir() && spill_pressure(w) &&
      !(*f = spill_open(w, o->o_ncols, o->o_types, e)))
    return CZ_ERR;
  if (*f) {
    for (int i = 0; i < ob->ob_n; i++)
      if (spill_put(*f, ob->ob_b, ob->ob_sel ? ob->ob_sel[i] : i, e) != CZ_OK)
        return CZ_ERR;
    return CZ_OK;
  }
  if (rs_append_rows(&sh->sh_out[part], ob->ob_b, ob->ob_sel, ob->ob_n, e) < 0)
    return CZ_ERR;
  return op_check_mem(w, sh->sh_out_a[part], e);
}

/* Phase 2: thread `part` runs the final group-by over the partitions it
 * claims, its rows kept for next (pm_keep); its table's memory goes
 * back as soon as its rows are out. */
static int pm_part(void *arg, int part, int nparts, qctx_t *w, err_t *e)
{
  (void)nparts;
  pm_share_t *sh = arg;
  const op_t *fin = sh->sh_p->pm_op.o_in;
  pm_share_t **slot = qexec_state(w, leaf_key(sh->sh_p->pm_leaf), sizeof(pm_share_t *), true, NULL);
  *slot = sh;
  int rc = op_open(fin, w, e);
  while (rc == CZ_OK) {
    obatch_t ob;
    if ((rc = op_next(fin, w, &ob, e)) != CZ_OK || !ob.ob_b)
      break;
    rc = pm_keep(sh, part, w, &ob, e);
  }
  op_close(fin, w);
  pm_figures(sh, fin, w);
  for (const op_t *s = fin; s; s = s->o_in) {
    opst_t *fs = op_state(s, w);
    if (fs)
      arena_release(fs->os_state);
  }
  if (rc == CZ_OK && sh->sh_out_file[part])
    rc = spill_rewind(sh->sh_out_file[part], e);
  return rc;
}

static void pm_end(pm_share_t *sh)
{
  if (!sh)
    return;
  for (int t = 0; t < sh->sh_nsrc; t++) {
    pm_src_t *s = &sh->sh_src[t];
    for (int k = 0; s->ps_files && k < sh->sh_nparts; k++) {
      spill_close(s->ps_files[k]);
      s->ps_files[k] = NULL;
    }
  }
  mutex_destroy(&sh->sh_mx);
}

/* The output files (at close, a re-open, or the end of the rows). */
static void pm_end_out(pm_share_t *sh, int threads)
{
  for (int t = 0; sh && t < threads; t++) {
    spill_close(sh->sh_out_file[t]);
    sh->sh_out_file[t] = NULL;
  }
}

/* ---- the operator ------------------------------------------------------- */

static int pmerge_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_pmerge_t *p = (const op_pmerge_t *)o;
  pmerge_run_t *r = (pmerge_run_t *)st;
  int threads = CZ_MAX(q->q_threads, 1);
  arena_t *a = st->os_state;
  pm_share_t *sh = arena_zalloc(a, sizeof(*sh));
  sh->sh_p = p;
  sh->sh_q = q;
  sh->sh_nparts = PM_PARTS_PER_THREAD * threads;
  sh->sh_src = arena_zalloc(a, sizeof(pm_src_t) * (size_t)threads);
  sh->sh_out = arena_zalloc(a, sizeof(rstore_t) * (size_t)threads);
  sh->sh_out_file = arena_zalloc(a, sizeof(spill_t *) * (size_t)threads);
  if (!r->pm_out_a) {
    r->pm_out_a = arena_zalloc(qexec_arena(q), sizeof(arena_t *) * (size_t)threads);
    for (int t = 0; t < threads; t++)
      r->pm_out_a[t] = arena_create(qexec_arena(q), "Parallel Merge rows");
  }
  for (int t = 0; t < threads; t++)
    arena_release(r->pm_out_a[t]);
  sh->sh_out_a = r->pm_out_a;
  atomic_init(&sh->sh_next, 0);
  const op_t *leaf = p->pm_leaf;
  for (int t = 0; t < threads; t++) {
    pm_src_t *s = &sh->sh_src[t];
    s->ps_a = arena_create(a, "Parallel Merge partitions");
    s->ps_rows = arena_zalloc(s->ps_a, sizeof(rstore_t) * (size_t)sh->sh_nparts);
    s->ps_count = arena_zalloc(s->ps_a, sizeof(int) * (size_t)(sh->sh_nparts + 1));
    for (int k = 0; k < sh->sh_nparts; k++)
      rs_init(&s->ps_rows[k], s->ps_a, leaf->o_ncols, leaf->o_types);
    rs_init(&sh->sh_out[t], sh->sh_out_a[t], o->o_ncols, o->o_types);
  }
  mutex_init(&sh->sh_mx);
  /* fresh figures of the final group-by per open */
  for (const op_t *s = o->o_in; s; s = s->o_in) {
    opst_t *ps = op_state(s, q);
    if (ps)
      ps->os_rows = ps->os_ns = 0, ps->os_mem = 0;
  }
  r->pm_sh = sh;
  r->pm_t = 0;
  r->pm_chunk = 0;
  r->pm_off = 0;
  gdrain_t d = {.gd_batch = pm_batch, .gd_mid = pm_mid, .gd_part = pm_part, .gd_arg = sh};
  int rc = op_gather_drain(o->o_in2, q, &d, e);
  if (rc != CZ_OK)
    pm_end_out(sh, threads);
  /* the files were read (or the query failed): gone either way */
  pm_end(sh);
  /* the partial rows are merged: their memory goes back */
  for (int t = 0; t < threads; t++) {
    arena_destroy(sh->sh_src[t].ps_a);
    sh->sh_src[t].ps_a = NULL;
  }
  return rc;
}

static int pmerge_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  pmerge_run_t *r = (pmerge_run_t *)st;
  pm_share_t *sh = r->pm_sh;
  while (sh && r->pm_t < sh->sh_nsrc) {
    const rstore_t *rs = &sh->sh_out[r->pm_t];
    if (r->pm_chunk < rs->rs_nchunks) {
      if (chunk_slice(rs->rs_chunks[r->pm_chunk], &r->pm_off, st, q, out))
        r->pm_chunk++;
      return CZ_OK;
    }
    spill_t *f = sh->sh_out_file[r->pm_t];
    if (f) {
      batch_t *b = batch_create(st->os_batch, o->o_ncols, o->o_types, q->q_vector_size, e);
      if (!b || spill_get(f, b, st->os_batch, e) != CZ_OK)
        return CZ_ERR;
      if (b->b_n > 0) {
        out->ob_b = b;
        out->ob_n = b->b_n;
        return CZ_OK;
      }
      spill_close(f);
      sh->sh_out_file[r->pm_t] = NULL;
    }
    r->pm_t++;
    r->pm_chunk = 0;
  }
  return CZ_OK;
}

static void pmerge_close(const op_t *o, opst_t *st, qctx_t *q)
{
  (void)o;
  pmerge_run_t *r = (pmerge_run_t *)st;
  /* the rows returned are no longer read: their memory goes back */
  for (int t = 0; r->pm_out_a && t < CZ_MAX(q->q_threads, 1); t++)
    arena_release(r->pm_out_a[t]);
  pm_end_out(r->pm_sh, CZ_MAX(q->q_threads, 1));
  r->pm_sh = NULL;
}

static char *pmerge_detail(const op_t *o, arena_t *a)
{
  (void)o;
  return arena_sprintf(a, "(partitions=%d per thread)", PM_PARTS_PER_THREAD);
}

static const op_vt_t pmerge_vt = {
    .ov_name = "Parallel Merge",
    .ov_open = pmerge_open,
    .ov_next = pmerge_next,
    .ov_close = pmerge_close,
    .ov_detail = pmerge_detail,
    .ov_run_size = sizeof(pmerge_run_t),
};

op_t *op_pmerge_leaf_new(arena_t *a, const op_t *partial)
{
  op_t *l = arena_zalloc(a, sizeof(op_t));
  op_init(l, &pleaf_vt, a, partial->o_ncols, partial->o_types, NULL, NULL);
  return l;
}

op_t *op_pmerge_new(arena_t *a, op_t *gather, op_t *final, const op_t *leaf, int ngroup)
{
  if (!op_is_gather(gather) || ngroup <= 0)
    return NULL;
  op_pmerge_t *p = arena_zalloc(a, sizeof(*p));
  op_init(&p->pm_op, &pmerge_vt, a, final->o_ncols, final->o_types, final, gather);
  p->pm_leaf = leaf;
  p->pm_ngroup = ngroup;
  p->pm_op.o_est_rows = final->o_est_rows;
  p->pm_op.o_est_cost = final->o_est_cost;
  return &p->pm_op;
}
