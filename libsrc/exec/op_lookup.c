/* op_lookup — index nested-loop joins, vectored: INNER, LEFT, and SEMI /
 * ANTI returning the left rows with / without a passing match. No build
 * side is materialised; for each left batch the key values of its rows go
 * to the table in one vectored call (the table layer sorts them and walks
 * the tree once).
 *
 * Two forms:
 * - on a whole primary key (op_lookup_join_new): one match at most per
 *   left row (qt_lookup), joined row i = left row i;
 * - on a prefix of any index, primary or secondary, unique or not
 *   (op_index_join_new, "Index Lookup … Join"): the table returns every
 *   row matching each distinct prefix of the batch (qt_probe_*), with the
 *   prefix it matched; the operator pairs each with every left row of
 *   that prefix (the storage's `same` chains), a pair batch at a time, so
 *   a prefix with many matches spreads over several output batches. The
 *   residual runs on the pairs, vectored; LEFT, SEMI and ANTI mark the
 *   left rows a passing pair reached and, once the left batch's prefixes
 *   are all read, return the batch under a selection (SEMI / ANTI) or pad
 *   the unmatched rows (LEFT). A NULL in a left row's key finds nothing.
 *
 * Run state (lookup_run_t) is per execution: the probe (opened once per
 * open, so every batch reads as of one moment), the left batch being
 * probed, the pairing cursor, and arenas for the batch's keys and the
 * fetched rows, all children of the execution's arena (MaxQueryMem). */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/op_hashagg_vec.h"

typedef struct op_lookup_s {
  op_t ol_op;
  join_kind_t ol_kind;
  int ol_nkeys;
  int *ol_lk;                   /* left key columns */
  void *ol_table;
  const char *ol_name;
  int ol_ncols;                 /* right columns fetched */
  int *ol_cols;
  ty_t *ol_types;
  xnode_t *ol_cond;
  ty_t *ol_pair_types;          /* left then fetched columns (the output's unless SEMI / ANTI) */
  /* the index form (op_index_join_new); ol_index < 0: the primary-key form */
  int ol_index;
  const char *ol_index_name;
  const char **ol_key_names;    /* the index's key columns probed (EXPLAIN) */
  const datum_t *ol_kconst;     /* per key column: its constant where ol_lk[k] < 0 (a
                                 * leading column a local `col = constant` fixes, as
                                 * rdf_quad's P: the probe is then (P, S) per left row,
                                 * not a scan of every quad of P); NULL: none */
  ty_t *ol_ktypes;              /* the constant keys' types */
  /* the aggregate form (op_index_agg_new): per left row, aggregates over
   * its passing pairs, then values over those aggregates */
  int ol_nagg;                  /* 0: a join */
  agg_spec_t *ol_aggs;          /* arguments over the pair row */
  ty_t *ol_agg_types;
  int ol_nval;
  xnode_t **ol_vals;            /* over the row of the ol_nagg results */
} op_lookup_t;

/* Its run state: the joined batch, made once per execution (in its
 * arena: it outlives opens) and reused. */
typedef struct lookup_run_s {
  opst_t lr_st;
  batch_t *lr_out;
  int lr_cap;                   /* rows lr_out holds */
  /* the index form */
  qprobe_t *lr_probe;           /* in lr_probe_a: open from open to close */
  arena_t *lr_probe_a;
  arena_t *lr_keys_a;           /* the left batch's keys: reset per left batch */
  arena_t *lr_rows_a;           /* the probe's current rows: reset per probe batch */
  batch_t *lr_rows;             /* the probe's current rows (fetched columns) */
  int *lr_at;                   /* per row of lr_rows: the first key position it matched */
  obatch_t lr_in;               /* the left batch being probed (ob_b NULL: none) */
  bool lr_in_end;               /* the left input is done */
  int *lr_krow;                 /* per key position: its left row */
  int *lr_same;                 /* per key position: the next equal one, -1 none */
  bool *lr_hit;                 /* per left row of lr_in's batch: a passing pair */
  int lr_nk;
  bool lr_probe_done;           /* every row of the batch's prefixes was read */
  int lr_r;                     /* pairing cursor: row of lr_rows */
  int lr_j;                     /* and key position in its chain (-1: start the row) */
  int *lr_pl, *lr_pr;           /* a pair batch: left row, row of lr_rows */
  /* the aggregate form */
  agg_state_t **lr_ags;         /* per aggregate: a state per left row (lr_keys_a) */
  int64_t *lr_grp;              /* per pair: its left row */
  vec_t *lr_argv;               /* per aggregate: its argument over a pair batch */
  batch_t *lr_aggrow;           /* the aggregates' results of a left batch */
  batch_t *lr_aggout;           /* the left rows and their values */
} lookup_run_t;

/* SEMI / ANTI: the left rows whose match (exists and) passes the residual
 * — or, for ANTI, the others — as the left batch under a selection.
 * pass[i]: joined row i (left row i of the selection) has a partner. */
static void lookup_semi_out(const op_lookup_t *l, const obatch_t *in, const bool *pass,
                            arena_t *a, obatch_t *out)
{
  int *sel = arena_alloc(a, sizeof(int) * (size_t)(in->ob_n + 1));
  int n = 0;
  bool anti = l->ol_kind == JOIN_ANTI;
  for (int i = 0; i < in->ob_n; i++)
    if (pass[i] != anti)
      sel[n++] = in->ob_sel ? in->ob_sel[i] : i;
  out->ob_b = n ? in->ob_b : NULL;
  out->ob_sel = sel;
  out->ob_n = n;
}

static int lookup_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_lookup_t *l = (const op_lookup_t *)o;
  const qtable_ops_t *ops = ((const qtable_t *)l->ol_table)->qt_ops;
  lookup_run_t *lr = (lookup_run_t *)st;
  if (l->ol_index < 0) {
    if (!ops->qt_lookup)
      return err_set(e, SQLSTATE_INTERNAL, "no key lookups in this context");
    return op_open(o->o_in, q, e);
  }
  if (!ops->qt_probe_open)
    return err_set(e, SQLSTATE_INTERNAL, "no index probes in this context");
  /* the probe lives in an arena of its own, not os_state (which an open
   * resets): re-opened without a close, the last one is let go first */
  if (lr->lr_probe)
    ops->qt_probe_close(q, lr->lr_probe);
  lr->lr_probe = NULL;
  lr->lr_in.ob_b = NULL;
  lr->lr_in_end = false;
  if (!lr->lr_keys_a) {
    arena_t *xa = qexec_arena(q);
    lr->lr_keys_a = arena_create_scratch(xa, "Index Lookup keys");
    lr->lr_rows_a = arena_create_scratch(xa, "Index Lookup rows");
    lr->lr_probe_a = arena_create_scratch(xa, "Index Lookup probe");
  }
  arena_reset(lr->lr_probe_a);
  if (op_open(o->o_in, q, e) != CZ_OK)
    return CZ_ERR;
  return ops->qt_probe_open(q, l->ol_table, l->ol_index, l->ol_nkeys, l->ol_cols, l->ol_ncols,
                            NULL, 0, lr->lr_probe_a, &lr->lr_probe, e);
}

static void lookup_close(const op_t *o, opst_t *st, qctx_t *q)
{
  const op_lookup_t *l = (const op_lookup_t *)o;
  lookup_run_t *lr = (lookup_run_t *)st;
  if (lr->lr_probe) {
    ((const qtable_t *)l->ol_table)->qt_ops->qt_probe_close(q, lr->lr_probe);
    lr->lr_probe = NULL;
  }
  op_close(o->o_in, q);
}

static int index_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e);

static int lookup_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_lookup_t *l = (const op_lookup_t *)o;
  if (l->ol_index >= 0)
    return index_next(o, st, q, out, e);
  int nleft = o->o_in->o_ncols;
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      return CZ_OK;
    if (in.ob_n == 0)
      continue;
    const batch_t *lb = in.ob_b;
    /* keys of the selected rows without a NULL key part */
    const datum_t **keys = arena_alloc(st->os_batch, sizeof(datum_t *) * (size_t)in.ob_n);
    int *key_row = arena_alloc(st->os_batch, sizeof(int) * (size_t)in.ob_n);
    int nk = 0;
    for (int i = 0; i < in.ob_n; i++) {
      int row = in.ob_sel ? in.ob_sel[i] : i;
      datum_t *k = arena_alloc(st->os_batch, sizeof(datum_t) * (size_t)l->ol_nkeys);
      bool null = false;
      for (int c = 0; c < l->ol_nkeys; c++) {
        vec_get(&lb->b_cols[l->ol_lk[c]], row, &k[c]);
        null |= k[c].d_null;
      }
      if (null)
        continue;
      keys[nk] = k;
      key_row[nk++] = row;
    }
    batch_t *rb = batch_create(st->os_batch, l->ol_ncols, l->ol_types, nk > 0 ? nk : 1, e);
    bool *found = arena_zalloc(st->os_batch, (size_t)(nk + 1));
    if (!rb)
      return CZ_ERR;
    if (nk > 0 && ((const qtable_t *)l->ol_table)->qt_ops->qt_lookup(q, l->ol_table, keys, nk, l->ol_cols, l->ol_ncols, rb,
                                       found, st->os_batch, e) != CZ_OK)
      return CZ_ERR;
    /* joined rows: one per selected left row (LEFT, SEMI, ANTI) or per
     * match (INNER), assembled a column at a time */
    bool every = l->ol_kind != JOIN_INNER;
    lookup_run_t *lr = (lookup_run_t *)st;
    if (!lr->lr_out || lr->lr_cap < in.ob_n) {
      lr->lr_cap = CZ_MAX(in.ob_n, q->q_vector_size);
      lr->lr_out = batch_create(qexec_arena(q), nleft + l->ol_ncols, l->ol_pair_types, lr->lr_cap, e);
      if (!lr->lr_out)
        return CZ_ERR;
    }
    batch_t *b = lr->lr_out;
    bool *matched = arena_alloc(st->os_batch, (size_t)in.ob_n + 1);
    int *lrow_of = arena_alloc(st->os_batch, sizeof(int) * (size_t)in.ob_n + 1);
    int *rrow_of = arena_alloc(st->os_batch, sizeof(int) * (size_t)in.ob_n + 1);
    int n = 0, k = 0;
    for (int i = 0; i < in.ob_n; i++) {
      int row = in.ob_sel ? in.ob_sel[i] : i;
      bool hit = false;
      int r = -1;
      if (k < nk && key_row[k] == row) {
        hit = found[k];
        r = k++;
      }
      if (!hit && !every)
        continue;
      lrow_of[n] = row;
      rrow_of[n] = hit ? r : 0;  /* any row: a miss is made NULL below */
      matched[n++] = hit;
    }
    /* SEMI / ANTI without a residual read only `matched` */
    bool need_rows = l->ol_cond || !(l->ol_kind == JOIN_SEMI || l->ol_kind == JOIN_ANTI);
    for (int c = 0; c < nleft && need_rows; c++)
      vec_gather(&b->b_cols[c], 0, &lb->b_cols[c], lrow_of, n);
    for (int c = 0; c < l->ol_ncols && need_rows; c++) {
      vec_t *v = &b->b_cols[nleft + c];
      vec_gather(v, 0, &rb->b_cols[c], rrow_of, n);
      for (int i = 0; i < n; i++)
        v->v_null[i] |= !matched[i];
    }
    b->b_n = n;
    if (n == 0)
      continue;
    bool semi = l->ol_kind == JOIN_SEMI || l->ol_kind == JOIN_ANTI;
    int *sel = arena_alloc(st->os_batch, sizeof(int) * (size_t)n);
    int ns = n;
    for (int i = 0; i < n; i++)
      sel[i] = i;
    if (l->ol_cond) {
      /* the residual applies to matches; a LEFT join pads those it rejects */
      int *cand = arena_alloc(st->os_batch, sizeof(int) * (size_t)n);
      int nc = 0;
      for (int i = 0; i < n; i++)
        if (matched[i])
          cand[nc++] = i;
      int *pass = arena_alloc(st->os_batch, sizeof(int) * (size_t)(nc + 1));
      int np = 0;
      xctx_t xc;
      op_xctx(q, st->os_batch, &xc);
      if (nc > 0 && xeval_filter(&xc, l->ol_cond, b, cand, nc, pass, &np, e) != CZ_OK)
        return CZ_ERR;
      if (semi) {
        memset(matched, 0, (size_t)n);
        for (int p = 0; p < np; p++)
          matched[pass[p]] = true;
      } else if (l->ol_kind == JOIN_LEFT) {
        for (int i = 0, p = 0; i < nc; i++) {
          if (p < np && pass[p] == cand[i]) {
            p++;
            continue;
          }
          for (int c = 0; c < l->ol_ncols; c++)
            b->b_cols[nleft + c].v_null[cand[i]] = 1;
        }
      } else {
        sel = pass;
        ns = np;
      }
    }
    if (semi) {
      lookup_semi_out(l, &in, matched, st->os_batch, out);
      if (!out->ob_b)
        continue;
      return CZ_OK;
    }
    if (ns == 0)
      continue;
    out->ob_b = b;
    out->ob_sel = ns == n ? NULL : sel;
    out->ob_n = ns;
    return CZ_OK;
  }
}

/* ---- the index form ------------------------------------------------------ */

/* The scratch of one execution, made at the first batch and kept: the
 * pair batch (left then fetched columns), the probe's row batch, and
 * per-row arrays of cap rows. */
static int index_scratch(const op_lookup_t *l, lookup_run_t *lr, qctx_t *q, int nleft, err_t *e)
{
  int cap = CZ_MAX(q->q_vector_size, 1);
  if (lr->lr_out && lr->lr_cap >= cap)
    return CZ_OK;
  arena_t *xa = qexec_arena(q);
  lr->lr_cap = cap;
  lr->lr_out = batch_create(xa, nleft + l->ol_ncols, l->ol_pair_types, cap, e);
  lr->lr_rows = batch_create(xa, l->ol_ncols, l->ol_types, cap, e);
  if (!lr->lr_out || !lr->lr_rows)
    return CZ_ERR;
  lr->lr_rows->b_n = 0;
  lr->lr_at = arena_alloc(xa, sizeof(int) * (size_t)cap);
  lr->lr_pl = arena_alloc(xa, sizeof(int) * (size_t)cap);
  lr->lr_pr = arena_alloc(xa, sizeof(int) * (size_t)cap);
  if (l->ol_nagg == 0)
    return CZ_OK;
  lr->lr_ags = arena_zalloc(xa, sizeof(agg_state_t *) * (size_t)l->ol_nagg);
  lr->lr_grp = arena_alloc(xa, sizeof(int64_t) * (size_t)cap);
  lr->lr_argv = arena_zalloc(xa, sizeof(vec_t) * (size_t)l->ol_nagg);
  for (int i = 0; i < l->ol_nagg; i++) {
    const xnode_t *x = l->ol_aggs[i].ag_arg;
    if (x && x->x_kind != X_COL && vec_init(&lr->lr_argv[i], xa, x->x_type, cap, e) != CZ_OK)
      return CZ_ERR;
  }
  ty_t *ot = arena_alloc(xa, sizeof(ty_t) * (size_t)(nleft + l->ol_nval));
  memcpy(ot, l->ol_op.o_types, sizeof(ty_t) * (size_t)(nleft + l->ol_nval));
  lr->lr_aggrow = batch_create(xa, l->ol_nagg, l->ol_agg_types, cap, e);
  lr->lr_aggout = batch_create(xa, nleft + l->ol_nval, ot, cap, e);
  return lr->lr_aggrow && lr->lr_aggout ? CZ_OK : CZ_ERR;
}

/* A new left batch: its rows without a NULL key part become the probe's
 * prefixes. */
static int index_start(const op_lookup_t *l, lookup_run_t *lr, qctx_t *q, const obatch_t *in,
                       err_t *e)
{
  arena_t *ka = lr->lr_keys_a;
  arena_reset(ka);
  const batch_t *lb = in->ob_b;
  lr->lr_in = *in;
  lr->lr_krow = arena_alloc(ka, sizeof(int) * (size_t)(in->ob_n + 1));
  lr->lr_same = arena_alloc(ka, sizeof(int) * (size_t)(in->ob_n + 1));
  lr->lr_hit = arena_zalloc(ka, (size_t)lb->b_n + 1);
  for (int i = 0; i < l->ol_nagg; i++)
    lr->lr_ags[i] = arena_zalloc(ka, sizeof(agg_state_t) * (size_t)(lb->b_n + 1));
  int nk = 0;
  for (int i = 0; i < in->ob_n; i++) {
    int row = in->ob_sel ? in->ob_sel[i] : i;
    bool null = false;
    for (int c = 0; c < l->ol_nkeys && !null; c++)
      null = l->ol_lk[c] >= 0 && lb->b_cols[l->ol_lk[c]].v_null[row];
    if (!null)
      lr->lr_krow[nk++] = row;
  }
  lr->lr_nk = nk;
  lr->lr_rows->b_n = 0;
  lr->lr_r = 0;
  lr->lr_j = -1;
  lr->lr_probe_done = nk == 0;
  if (nk == 0)
    return CZ_OK;
  const vec_t **kv = arena_alloc(ka, sizeof(vec_t *) * (size_t)l->ol_nkeys);
  for (int c = 0; c < l->ol_nkeys; c++) {
    if (l->ol_lk[c] >= 0) {
      kv[c] = &lb->b_cols[l->ol_lk[c]];
      continue;
    }
    /* a constant key part: the same value at every probed row */
    vec_t *v = arena_alloc(ka, sizeof(*v));
    if (vec_init(v, ka, l->ol_ktypes[c], lb->b_n, e) != CZ_OK)
      return CZ_ERR;
    for (int i = 0; i < nk; i++)
      vec_set(v, lr->lr_krow[i], &l->ol_kconst[c]);
    kv[c] = v;
  }
  return ((const qtable_t *)l->ol_table)->qt_ops->qt_probe_keys(q, lr->lr_probe, kv, lr->lr_krow, nk,
                                                                lr->lr_same, ka, e);
}

/* The next pairs (left row, fetched row) of the left batch's prefixes, up
 * to the batch capacity and never across two probe batches (the pairs
 * point into the current one): *np of them in lr_pl / lr_pr. SEMI / ANTI
 * without a residual only mark the left rows a match reached. */
static int index_pairs(const op_lookup_t *l, lookup_run_t *lr, qctx_t *q, int *np, err_t *e)
{
  bool mark_only = !l->ol_cond && (l->ol_kind == JOIN_SEMI || l->ol_kind == JOIN_ANTI);
  int n = 0;
  while (n < lr->lr_cap) {
    if (lr->lr_r >= lr->lr_rows->b_n) {
      if (n > 0 || lr->lr_probe_done)
        break;
      arena_reset(lr->lr_rows_a);
      if (((const qtable_t *)l->ol_table)->qt_ops->qt_probe_next(q, lr->lr_probe, lr->lr_rows, lr->lr_at,
                                                                 lr->lr_rows_a, e) != CZ_OK)
        return CZ_ERR;
      lr->lr_r = 0;
      lr->lr_j = -1;
      if (lr->lr_rows->b_n == 0)
        lr->lr_probe_done = true;
      continue;
    }
    if (mark_only) {
      for (int j = lr->lr_at[lr->lr_r]; j >= 0; j = lr->lr_same[j])
        lr->lr_hit[lr->lr_krow[j]] = true;
      lr->lr_r++;
      continue;
    }
    int j = lr->lr_j < 0 ? lr->lr_at[lr->lr_r] : lr->lr_j;
    lr->lr_pl[n] = lr->lr_krow[j];
    lr->lr_pr[n++] = lr->lr_r;
    lr->lr_j = lr->lr_same[j];
    if (lr->lr_j < 0)
      lr->lr_r++;
  }
  *np = n;
  return CZ_OK;
}

/* The left batch is done: SEMI / ANTI return it under a selection, LEFT
 * its rows without a passing pair padded with NULLs (in b). */
static void index_finish(const op_lookup_t *l, lookup_run_t *lr, arena_t *a, obatch_t *out)
{
  const obatch_t *in = &lr->lr_in;
  int nleft = l->ol_op.o_in->o_ncols;
  int *sel = arena_alloc(a, sizeof(int) * (size_t)(in->ob_n + 1));
  int n = 0;
  bool want = l->ol_kind == JOIN_SEMI;
  for (int i = 0; i < in->ob_n; i++) {
    int row = in->ob_sel ? in->ob_sel[i] : i;
    if (lr->lr_hit[row] == want)
      sel[n++] = row;
  }
  if (n == 0)
    return;
  if (l->ol_kind != JOIN_LEFT) {
    out->ob_b = in->ob_b;
    out->ob_sel = sel;
    out->ob_n = n;
    return;
  }
  batch_t *b = lr->lr_out;
  for (int c = 0; c < nleft; c++)
    vec_gather(&b->b_cols[c], 0, &in->ob_b->b_cols[c], sel, n);
  for (int c = 0; c < l->ol_ncols; c++)
    memset(b->b_cols[nleft + c].v_null, 1, (size_t)n);
  b->b_n = n;
  out->ob_b = b;
  out->ob_sel = NULL;
  out->ob_n = n;
}

/* The aggregate form: the passing pairs sel[0..nsel) of pair batch b
 * (sel NULL: all) go into their left rows' states. */
static int agg_pairs(const op_lookup_t *l, lookup_run_t *lr, qctx_t *q, opst_t *st, const batch_t *b,
                     const int *sel, int nsel, err_t *e)
{
  if (nsel == 0)
    return CZ_OK;
  for (int j = 0; j < nsel; j++)
    lr->lr_grp[j] = lr->lr_pl[sel ? sel[j] : j];
  xctx_t xc;
  op_xctx(q, st->os_batch, &xc);
  for (int i = 0; i < l->ol_nagg; i++) {
    const agg_spec_t *ag = &l->ol_aggs[i];
    const vec_t *v = NULL;
    if (ag->ag_arg && ag->ag_arg->x_kind == X_COL)
      v = &b->b_cols[ag->ag_arg->x_index];
    else if (ag->ag_arg) {
      if (xeval(&xc, ag->ag_arg, b, sel, nsel, &lr->lr_argv[i], e) != CZ_OK)
        return CZ_ERR;
      v = &lr->lr_argv[i];
    }
    int rc = aggv_accum(ag, lr->lr_ags[i], lr->lr_grp, v, sel, nsel, lr->lr_keys_a, e);
    if (rc < 0)
      return CZ_ERR;
    if (rc == 0)
      return err_set(e, SQLSTATE_INTERNAL, "index lookup aggregate: no typed loop");
  }
  return CZ_OK;
}

/* The aggregate form, the left batch done: every left row (a row
 * without a passing pair has the aggregates of no rows: count 0, the
 * others NULL) with its values. */
static int agg_finish(const op_lookup_t *l, lookup_run_t *lr, qctx_t *q, opst_t *st, obatch_t *out,
                      err_t *e)
{
  const obatch_t *in = &lr->lr_in;
  int nleft = l->ol_op.o_in->o_ncols, n = in->ob_n;
  int *rows = arena_alloc(st->os_batch, sizeof(int) * (size_t)(n + 1));
  if (n > lr->lr_aggrow->b_cols[0].v_cap) {
    /* a left batch larger than the vector size: batches that hold it */
    arena_t *xa = qexec_arena(q);
    lr->lr_aggrow = batch_create(xa, l->ol_nagg, l->ol_agg_types, n, e);
    lr->lr_aggout = batch_create(xa, l->ol_op.o_ncols, l->ol_op.o_types, n, e);
    if (!lr->lr_aggrow || !lr->lr_aggout)
      return CZ_ERR;
  }
  batch_t *ab = lr->lr_aggrow;
  for (int i = 0; i < n; i++) {
    int row = rows[i] = in->ob_sel ? in->ob_sel[i] : i;
    for (int a = 0; a < l->ol_nagg; a++) {
      datum_t d;
      if (agg_final(&l->ol_aggs[a], &lr->lr_ags[a][row], &d, e) != CZ_OK)
        return CZ_ERR;
      vec_set(&ab->b_cols[a], i, &d);
    }
  }
  ab->b_n = n;
  batch_t *ob = lr->lr_aggout;
  for (int c = 0; c < nleft; c++)
    vec_gather(&ob->b_cols[c], 0, &in->ob_b->b_cols[c], rows, n);
  xctx_t xc;
  op_xctx(q, st->os_batch, &xc);
  for (int v = 0; v < l->ol_nval; v++)
    if (xeval(&xc, l->ol_vals[v], ab, NULL, n, &ob->b_cols[nleft + v], e) != CZ_OK)
      return CZ_ERR;
  ob->b_n = n;
  out->ob_b = ob;
  out->ob_sel = NULL;
  out->ob_n = n;
  return CZ_OK;
}

static int index_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_lookup_t *l = (const op_lookup_t *)o;
  lookup_run_t *lr = (lookup_run_t *)st;
  int nleft = o->o_in->o_ncols;
  if (index_scratch(l, lr, q, nleft, e) != CZ_OK)
    return CZ_ERR;
  for (;;) {
    if (!lr->lr_in.ob_b) {
      if (lr->lr_in_end)
        return CZ_OK;
      obatch_t in;
      if (op_next(o->o_in, q, &in, e) != CZ_OK)
        return CZ_ERR;
      if (!in.ob_b) {
        lr->lr_in_end = true;
        return CZ_OK;
      }
      if (in.ob_n == 0)
        continue;
      if (index_start(l, lr, q, &in, e) != CZ_OK)
        return CZ_ERR;
    }
    if (op_check_cancel(q, e) != CZ_OK)
      return CZ_ERR;
    int np;
    if (index_pairs(l, lr, q, &np, e) != CZ_OK)
      return CZ_ERR;
    if (np == 0) {
      /* every prefix of the left batch read */
      if (l->ol_nagg > 0) {
        if (agg_finish(l, lr, q, st, out, e) != CZ_OK)
          return CZ_ERR;
      } else if (l->ol_kind != JOIN_INNER)
        index_finish(l, lr, st->os_batch, out);
      lr->lr_in.ob_b = NULL;
      if (out->ob_b)
        return CZ_OK;
      continue;
    }
    batch_t *b = lr->lr_out;
    for (int c = 0; c < nleft; c++)
      vec_gather(&b->b_cols[c], 0, &lr->lr_in.ob_b->b_cols[c], lr->lr_pl, np);
    for (int c = 0; c < l->ol_ncols; c++)
      vec_gather(&b->b_cols[nleft + c], 0, &lr->lr_rows->b_cols[c], lr->lr_pr, np);
    b->b_n = np;
    int *pass = NULL;
    int npass = np;
    if (l->ol_cond) {
      pass = arena_alloc(st->os_batch, sizeof(int) * (size_t)np);
      xctx_t xc;
      op_xctx(q, st->os_batch, &xc);
      if (xeval_filter(&xc, l->ol_cond, b, NULL, np, pass, &npass, e) != CZ_OK)
        return CZ_ERR;
    }
    if (l->ol_nagg > 0) {
      if (agg_pairs(l, lr, q, st, b, npass == np ? NULL : pass, npass, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    if (l->ol_kind != JOIN_INNER)
      for (int p = 0; p < npass; p++)
        lr->lr_hit[lr->lr_pl[pass ? pass[p] : p]] = true;
    if (npass == 0 || l->ol_kind == JOIN_SEMI || l->ol_kind == JOIN_ANTI)
      continue;
    out->ob_b = b;
    out->ob_sel = npass == np ? NULL : pass;
    out->ob_n = npass;
    return CZ_OK;
  }
}

static char *index_detail(const op_t *o, arena_t *a)
{
  const op_lookup_t *l = (const op_lookup_t *)o;
  char *t = arena_sprintf(a, "%s using %s (", l->ol_name, l->ol_index_name);
  for (int k = 0; k < l->ol_nkeys; k++) {
    if (l->ol_lk[k] < 0 && ty_phys(l->ol_ktypes[k].t_id) == TP_I64)
      t = arena_sprintf(a, "%s%s%s = %lld", t, k ? ", " : "", l->ol_key_names[k],
                        (long long)l->ol_kconst[k].d_i64);
    else if (l->ol_lk[k] < 0)
      t = arena_sprintf(a, "%s%s%s = constant", t, k ? ", " : "", l->ol_key_names[k]);
    else
      t = arena_sprintf(a, "%s%s%s = $%d", t, k ? ", " : "", l->ol_key_names[k], l->ol_lk[k] + 1);
  }
  t = arena_sprintf(a, "%s)", t);
  return l->ol_cond ? arena_sprintf(a, "%s filter", t) : t;
}

/* Every kind passes its left rows' columns; no order is kept (a batch's
 * keys are probed sorted). */
static const op_vt_t index_vt = {
    .ov_name = "Index Lookup Join",
    .ov_open = lookup_open,
    .ov_next = lookup_next,
    .ov_close = lookup_close,
    .ov_detail = index_detail,
    .ov_run_size = sizeof(lookup_run_t),
    .ov_pass_col = op_pass_left_col,
};
static const op_vt_t index_left_vt = {
    .ov_name = "Index Lookup Left Join",
    .ov_open = lookup_open,
    .ov_next = lookup_next,
    .ov_close = lookup_close,
    .ov_detail = index_detail,
    .ov_run_size = sizeof(lookup_run_t),
    .ov_pass_col = op_pass_left_col,
};
static const op_vt_t index_semi_vt = {
    .ov_name = "Index Lookup Semi Join",
    .ov_open = lookup_open,
    .ov_next = lookup_next,
    .ov_close = lookup_close,
    .ov_detail = index_detail,
    .ov_run_size = sizeof(lookup_run_t),
    .ov_pass_col = op_pass_left_col,
};
static const op_vt_t index_anti_vt = {
    .ov_name = "Index Lookup Anti Join",
    .ov_open = lookup_open,
    .ov_next = lookup_next,
    .ov_close = lookup_close,
    .ov_detail = index_detail,
    .ov_run_size = sizeof(lookup_run_t),
    .ov_pass_col = op_pass_left_col,
};

op_t *op_index_join_new(arena_t *a, op_t *left, join_kind_t kind, void *table, const char *name,
                        int index, const char *index_name, int nkeys, const int *lk,
                        const char *const *key_names, int ncols, const int *cols,
                        const ty_t *types, xnode_t *cond)
{
  op_t *o = op_lookup_join_new(a, left, kind, nkeys, lk, table, name, ncols, cols, types, cond);
  op_lookup_t *l = (op_lookup_t *)o;
  o->o_vt = kind == JOIN_SEMI ? &index_semi_vt
            : kind == JOIN_ANTI ? &index_anti_vt
            : kind == JOIN_LEFT ? &index_left_vt
                                : &index_vt;
  l->ol_index = index;
  l->ol_index_name = index_name;
  l->ol_key_names = arena_alloc(a, sizeof(char *) * (size_t)nkeys);
  for (int k = 0; k < nkeys; k++)
    l->ol_key_names[k] = key_names[k];
  return o;
}

void op_index_join_set_consts(op_t *o, arena_t *a, const datum_t *consts, const ty_t *types)
{
  op_lookup_t *l = (op_lookup_t *)o;
  datum_t *kc = arena_zalloc(a, sizeof(datum_t) * (size_t)(l->ol_nkeys + 1));
  ty_t *kt = arena_zalloc(a, sizeof(ty_t) * (size_t)(l->ol_nkeys + 1));
  for (int k = 0; k < l->ol_nkeys; k++)
    if (l->ol_lk[k] < 0) {
      kc[k] = consts[k];
      kt[k] = types[k];
    }
  l->ol_kconst = kc;
  l->ol_ktypes = kt;
}

static char *index_agg_detail(const op_t *o, arena_t *a)
{
  const op_lookup_t *l = (const op_lookup_t *)o;
  return arena_sprintf(a, "%s, %d aggregate%s per left row", index_detail(o, a), l->ol_nagg,
                       l->ol_nagg == 1 ? "" : "s");
}

/* Every left row comes out once, with its values, in the left's order. */
static const op_vt_t index_agg_vt = {"Index Lookup Aggregate", lookup_open,      lookup_next,
                                     lookup_close,             index_agg_detail, sizeof(lookup_run_t),
                                     op_pass_left_col,         op_order_pass};

op_t *op_index_agg_new(arena_t *a, op_t *left, void *table, const char *name, int index,
                       const char *index_name, int nkeys, const int *lk, const char *const *key_names,
                       int ncols, const int *cols, const ty_t *types, xnode_t *cond, int nagg,
                       const agg_spec_t *aggs, int nval, xnode_t **vals)
{
  op_t *o = op_index_join_new(a, left, JOIN_LEFT, table, name, index, index_name, nkeys, lk,
                              key_names, ncols, cols, types, cond);
  op_lookup_t *l = (op_lookup_t *)o;
  int nleft = left->o_ncols;
  ty_t *ot = arena_alloc(a, sizeof(ty_t) * (size_t)(nleft + nval + 1));
  memcpy(ot, left->o_types, sizeof(ty_t) * (size_t)nleft);
  for (int v = 0; v < nval; v++)
    ot[nleft + v] = vals[v]->x_type;
  op_init(o, &index_agg_vt, a, nleft + nval, ot, left, NULL);
  l->ol_nagg = nagg;
  l->ol_aggs = arena_alloc(a, sizeof(agg_spec_t) * (size_t)(nagg + 1));
  memcpy(l->ol_aggs, aggs, sizeof(agg_spec_t) * (size_t)nagg);
  l->ol_agg_types = arena_alloc(a, sizeof(ty_t) * (size_t)(nagg + 1));
  for (int i = 0; i < nagg; i++)
    l->ol_agg_types[i] = aggs[i].ag_type;
  l->ol_nval = nval;
  l->ol_vals = arena_alloc(a, sizeof(xnode_t *) * (size_t)(nval + 1));
  memcpy(l->ol_vals, vals, sizeof(xnode_t *) * (size_t)nval);
  return o;
}

bool op_index_agg_supports(const agg_spec_t *ag)
{
  /* the typed loops' own answer, asked with no rows */
  vec_t v;
  memset(&v, 0, sizeof(v));
  if (ag->ag_arg)
    v.v_type = ag->ag_arg->x_type;
  err_t e;
  err_clear(&e);
  return aggv_accum(ag, NULL, NULL, ag->ag_arg ? &v : NULL, NULL, 0, NULL, &e) == 1;
}

bool op_is_index_join(const op_t *o)
{
  return o->o_vt == &index_vt || o->o_vt == &index_left_vt || o->o_vt == &index_semi_vt ||
         o->o_vt == &index_anti_vt || o->o_vt == &index_agg_vt;
}

static char *lookup_detail(const op_t *o, arena_t *a)
{
  const op_lookup_t *l = (const op_lookup_t *)o;
  static const char *const kinds[] = {"inner", "left", "right", "full", "semi", "anti"};
  char *t = arena_sprintf(a, "%s %s on", kinds[l->ol_kind], l->ol_name);
  for (int k = 0; k < l->ol_nkeys; k++)
    t = arena_sprintf(a, "%s%s $%d", t, k ? "," : "", l->ol_lk[k] + 1);
  return l->ol_cond ? arena_sprintf(a, "%s filter", t) : t;
}

/* Every kind (inner, left, semi, anti) passes its left rows' columns. */
static const op_vt_t lookup_vt = {
    .ov_name = "LookupJoin",
    .ov_open = lookup_open,
    .ov_next = lookup_next,
    .ov_detail = lookup_detail,
    .ov_run_size = sizeof(lookup_run_t),
    .ov_pass_col = op_pass_left_col,
    .ov_order = op_order_pass,
};
static const op_vt_t lookup_semi_vt = {
    .ov_name = "LookupSemiJoin",
    .ov_open = lookup_open,
    .ov_next = lookup_next,
    .ov_detail = lookup_detail,
    .ov_run_size = sizeof(lookup_run_t),
    .ov_pass_col = op_pass_left_col,
    .ov_order = op_order_pass,
};
static const op_vt_t lookup_anti_vt = {
    .ov_name = "LookupAntiJoin",
    .ov_open = lookup_open,
    .ov_next = lookup_next,
    .ov_detail = lookup_detail,
    .ov_run_size = sizeof(lookup_run_t),
    .ov_pass_col = op_pass_left_col,
    .ov_order = op_order_pass,
};

op_t *op_lookup_join_new(arena_t *a, op_t *left, join_kind_t kind, int nkeys, const int *lk,
                         void *table, const char *name, int ncols, const int *cols,
                         const ty_t *types, xnode_t *cond)
{
  op_lookup_t *l = arena_zalloc(a, sizeof(*l));
  int n = left->o_ncols + ncols;
  ty_t *all = arena_alloc(a, sizeof(ty_t) * (size_t)(n + 1));
  memcpy(all, left->o_types, sizeof(ty_t) * (size_t)left->o_ncols);
  memcpy(all + left->o_ncols, types, sizeof(ty_t) * (size_t)ncols);
  bool semi = kind == JOIN_SEMI || kind == JOIN_ANTI;
  const op_vt_t *vt = kind == JOIN_SEMI ? &lookup_semi_vt : kind == JOIN_ANTI ? &lookup_anti_vt : &lookup_vt;
  op_init(&l->ol_op, vt, a, semi ? left->o_ncols : n, all, left, NULL);
  l->ol_pair_types = all;
  l->ol_kind = kind;
  l->ol_nkeys = nkeys;
  l->ol_lk = arena_alloc(a, sizeof(int) * (size_t)nkeys);
  memcpy(l->ol_lk, lk, sizeof(int) * (size_t)nkeys);
  l->ol_table = table;
  l->ol_name = name;
  l->ol_ncols = ncols;
  l->ol_cols = arena_alloc(a, sizeof(int) * (size_t)(ncols + 1));
  memcpy(l->ol_cols, cols, sizeof(int) * (size_t)ncols);
  l->ol_types = arena_alloc(a, sizeof(ty_t) * (size_t)(ncols + 1));
  memcpy(l->ol_types, types, sizeof(ty_t) * (size_t)ncols);
  l->ol_cond = cond;
  l->ol_index = -1;
  return &l->ol_op;
}
