/* op_window — window functions over frames (exec_window.h): the ranking
 * functions, lag/lead, first/last/nth_value and every aggregate, over
 * ROWS / RANGE / GROUPS frames with EXCLUDE, as PostgreSQL 15 computes
 * them.
 *
 * Design notes:
 * - The input (sorted by partition, then order keys) is read whole into
 *   a row store at open; every growth step is fallible (53200), so the
 *   window is held to MaxQueryMem like a sort. Rows then go out in input
 *   order with one column per function added.
 * - Entering a partition, one pass finds its end and numbers its peer
 *   groups (ow_grp: the group of each row, ow_gstart: each group's first
 *   row; arrays of the partition's size in ow_parena, reset per
 *   partition). Ranks, cume_dist, GROUPS frames, CURRENT ROW of RANGE and
 *   the exclusions read them in O(1).
 * - A frame is [fs, fe) of row numbers. Both ends only move forward as
 *   the current row does (offsets are constants), so a RANGE offset
 *   bound is found by advancing a pointer (ow_ptr), and an aggregate
 *   slides: rows entering are added, rows leaving removed when the state
 *   can forget them exactly (op_window_agg.h), else the frame is
 *   aggregated afresh; with UNBOUNDED PRECEDING nothing ever leaves;
 *   min/max keep a monotonic queue of rows (deque_value). A
 *   result recomputed for one row is reused by the next while its frame
 *   is the same (peers under RANGE / GROUPS).
 * - RANGE offsets compare the one ORDER BY key with key ± offset without
 *   overflow (128-bit for integers). As in PostgreSQL, NULL keys are
 *   peers: a row with a NULL key has its NULL peers as the offset
 *   bound's rows, and NULL rows never lie within an offset of a value.
 * - EXCLUDE makes the frame up to three ranges (frame_parts).
 * - The cancel flag is checked every XC_INTERRUPT_EVERY rows of work
 *   inside long partitions, not only between batches. */
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"
#include "exec/exec_window.h"
#include "exec/op_window_agg.h"

typedef enum wmode_e {
  WM_NONE,      /* not an aggregate */
  WM_GROW,      /* frame start fixed at the partition's start: only adds */
  WM_SLIDE,     /* adds and removes */
  WM_DEQUE,     /* min/max over a moving frame: a monotonic queue of rows */
  WM_RESCAN     /* aggregates each distinct frame afresh */
} wmode_t;

typedef struct wrun_s {
  wmode_t wr_mode;
  wagg_t wr_agg;
  int64_t wr_lo, wr_hi;         /* rows [lo, hi) are in wr_agg */
  bool wr_have;                 /* wr_cache holds the result for frame wr_cfs..wr_cfe */
  int64_t wr_cfs, wr_cfe, wr_cgs;
  datum_t wr_cache;
  int64_t wr_ntile;             /* ntile's bucket count for the partition; <= 0: NULL */
  int64_t *wr_dq;               /* WM_DEQUE: rows of the frame whose value may still be the
                                 * extreme, values in order from the best (ow_parena) */
  int64_t wr_dqh, wr_dqt;       /* its head and tail */
} wrun_t;

typedef struct op_window_s {
  op_t ow_op;
  xwin_spec_t ow_spec;
  int ow_nfn;
  xwin_fn_t *ow_fns;
  int ow_nin;                   /* input columns */
} op_window_t;

/* Its run state in one execution. */
typedef struct window_run_s {
  opst_t sr_st;
  const op_window_t *sr_p;      /* the plan */
  rstore_t ow_rows;
  arena_t *ow_parena;           /* the partition's arrays (child of os_state) */
  arena_t *ow_text;             /* string_agg texts (child of os_state) */
  int64_t ow_pos;               /* next row to return */
  int64_t ow_ps, ow_pe;         /* the partition of the rows being returned */
  int64_t *ow_grp;              /* peer group of row ps + i */
  int64_t *ow_gstart;           /* first row of group g; [ngroups] = pe */
  int64_t ow_ngroups;
  datum_t ow_off[2];            /* the start and end offsets */
  int64_t ow_ptr[2];            /* RANGE offset search: frame start, end */
  int64_t ow_work;              /* rows of work since the last cancel check */
  wrun_t *ow_run;
} window_run_t;

static int work(window_run_t *w, qctx_t *q, int64_t n, err_t *e)
{
  w->ow_work += n;
  if (w->ow_work < XC_INTERRUPT_EVERY)
    return CZ_OK;
  w->ow_work = 0;
  return op_check_cancel(q, e);
}

/* ---- offsets ------------------------------------------------------------ */

static int eval_offset(window_run_t *w, qctx_t *q, int which, err_t *e)
{
  const xwin_spec_t *s = &w->sr_p->ow_spec;
  xnode_t *x = which == 0 ? s->ws_start_off : s->ws_end_off;
  if (!x)
    return CZ_OK;
  xctx_t xc;
  op_xctx(q, w->sr_st.os_state, &xc);
  datum_t *d = &w->ow_off[which];
  if (xeval_scalar(&xc, x, d, e) != CZ_OK)
    return CZ_ERR;
  const char *what = which == 0 ? "starting" : "ending";
  if (d->d_null)
    return err_set(e, SQLSTATE_NULL_VALUE_NOT_ALLOWED, "frame %s offset must not be null", what);
  ty_phys_t p = ty_phys(x->x_type.t_id);
  bool neg = p == TP_I64   ? d->d_i64 < 0
             : p == TP_F64 ? (d->d_f64 < 0 || d->d_f64 != d->d_f64)
             : p == TP_NUM ? d->d_num.n_val < 0
                           : false;
  if (neg) {
    if (s->ws_unit == XFRAME_RANGE)
      return err_set(e, SQLSTATE_INVALID_PRECEDING_OR_FOLLOWING_SIZE, "invalid preceding or following size in window function");
    return err_set(e, SQLSTATE_INVALID_PRECEDING_OR_FOLLOWING_SIZE, "frame %s offset must not be negative", what);
  }
  return CZ_OK;
}

/* ---- partitions and peer groups ---------------------------------------- */

static bool rows_equal(const window_run_t *w, int64_t a, int64_t b, const int *cols, int n)
{
  for (int k = 0; k < n; k++) {
    datum_t x, y;
    rs_get(&w->ow_rows, a, cols[k], &x);
    rs_get(&w->ow_rows, b, cols[k], &y);
    if (!datum_eq_nulls(w->ow_rows.rs_types[cols[k]].t_id, &x, &y))
      return false;
  }
  return true;
}

/* Finds the partition starting at ps and numbers its peer groups. */
static int enter_partition(window_run_t *w, qctx_t *q, int64_t ps, err_t *e)
{
  const xwin_spec_t *s = &w->sr_p->ow_spec;
  int64_t n = w->ow_rows.rs_n, pe = ps + 1;
  while (pe < n && rows_equal(w, ps, pe, s->ws_part, s->ws_npart)) {
    pe++;
    if (work(w, q, 1, e) != CZ_OK)
      return CZ_ERR;
  }
  arena_reset(w->ow_parena);
  int64_t len = pe - ps;
  w->ow_grp = arena_try_alloc(w->ow_parena, sizeof(int64_t) * (size_t)len);
  w->ow_gstart = arena_try_alloc(w->ow_parena, sizeof(int64_t) * (size_t)(len + 1));
  if (!w->ow_grp || !w->ow_gstart)
    return op_alloc_error(w->ow_parena, e);
  int64_t g = 0;
  w->ow_gstart[0] = ps;
  w->ow_grp[0] = 0;
  for (int64_t r = ps + 1; r < pe; r++) {
    if (!rows_equal(w, r - 1, r, s->ws_ord, s->ws_norder))
      w->ow_gstart[++g] = r;
    w->ow_grp[r - ps] = g;
    if (work(w, q, 1, e) != CZ_OK)
      return CZ_ERR;
  }
  w->ow_ngroups = g + 1;
  w->ow_gstart[g + 1] = pe;
  w->ow_ps = ps;
  w->ow_pe = pe;
  w->ow_ptr[0] = w->ow_ptr[1] = ps;
  for (int k = 0; k < w->sr_p->ow_nfn; k++) {
    wrun_t *r = &w->ow_run[k];
    r->wr_lo = r->wr_hi = ps;
    r->wr_have = false;
    if (r->wr_mode != WM_NONE)
      wagg_reset(&r->wr_agg);
    if (r->wr_mode == WM_DEQUE) {
      r->wr_dqh = r->wr_dqt = 0;
      if (!(r->wr_dq = arena_try_alloc(w->ow_parena, sizeof(int64_t) * (size_t)len)))
        return op_alloc_error(w->ow_parena, e);
    }
    if (w->sr_p->ow_fns[k].wf_kind == XWIN_NTILE) {
      datum_t d;
      rs_get(&w->ow_rows, ps, w->sr_p->ow_fns[k].wf_args[0], &d);
      if (!d.d_null && d.d_i64 <= 0)
        return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_NTILE, "argument of ntile must be greater than zero");
      r->wr_ntile = d.d_null ? 0 : d.d_i64;
    }
  }
  return CZ_OK;
}

/* ---- frames ------------------------------------------------------------- */

/* The sign of key(j) - bound, where bound is the current row's key c
 * moved by the offset towards `follow` in the sort order. */
static int range_cmp(const window_run_t *w, const datum_t *v, const datum_t *c, bool follow,
                     const datum_t *off, int *out, err_t *e)
{
  int col = w->sr_p->ow_spec.ws_ord[0];
  ty_phys_t p = ty_phys(w->ow_rows.rs_types[col].t_id);
  bool add = follow != w->sr_p->ow_spec.ws_desc[0];  /* DESC: following means smaller */
  ty_id_t key = w->ow_rows.rs_types[col].t_id;
  if (key == TY_DATE || key == TY_TIMESTAMP) {
    /* PostgreSQL's in_range for dates and timestamps: the key as a
     * timestamp moved by the interval; a bound past the timestamp range
     * lies beyond every row */
    int64_t x = v->d_i64, cv = c->d_i64, b;
    if (key == TY_DATE && (!ty_date_to_ts(x, &x) || !ty_date_to_ts(cv, &cv)))
      return err_set(e, SQLSTATE_DATETIME_FIELD_OVERFLOW, "date out of range for timestamp");
    err_t ignored;
    if (ty_ts_add_iv(cv, &off->d_iv, add ? 1 : -1, &b, &ignored) != CZ_OK) {
      *out = add ? -1 : 1;
      return CZ_OK;
    }
    *out = x < b ? -1 : x > b;
    return CZ_OK;
  }
  switch (p) {
  case TP_IV: {
    ty_iv_t b;
    err_t ignored;
    if ((add ? ty_iv_add(&c->d_iv, &off->d_iv, &b, &ignored)
             : ty_iv_sub(&c->d_iv, &off->d_iv, &b, &ignored)) != CZ_OK) {
      *out = add ? -1 : 1;
      return CZ_OK;
    }
    __int128 xs = ty_iv_span(&v->d_iv), bs = ty_iv_span(&b);
    *out = xs < bs ? -1 : xs > bs;
    return CZ_OK;
  }
  case TP_I64: {
    __int128 b = (__int128)c->d_i64 + (add ? (__int128)off->d_i64 : -(__int128)off->d_i64);
    __int128 x = v->d_i64;
    *out = x < b ? -1 : x > b;
    return CZ_OK;
  }
  case TP_F64: {
    /* PostgreSQL's in_range for floats: NaN sorts above every number and
     * equals NaN; infinity moved by an infinite offset towards the other
     * infinity (a NaN sum) takes in every row */
    double x = v->d_f64, cv = c->d_f64, o = off->d_f64;
    if (isnan(x) || isnan(cv)) {
      *out = isnan(x) && isnan(cv) ? 0 : isnan(x) ? 1 : -1;
      return CZ_OK;
    }
    if (isinf(o) && isinf(cv) && (add ? cv < 0 : cv > 0)) {
      *out = 0;
      return CZ_OK;
    }
    double b = add ? cv + o : cv - o;
    *out = x < b ? -1 : x > b;
    return CZ_OK;
  }
  case TP_NUM: {
    num_t b;
    if ((add ? num_add(&c->d_num, &off->d_num, &b, e) : num_sub(&c->d_num, &off->d_num, &b, e)) !=
        CZ_OK)
      return CZ_ERR;
    *out = num_cmp(&v->d_num, &b);
    return CZ_OK;
  }
  default:
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "RANGE with offset is not supported for this type");
  }
}

/* RANGE offset bound: which 0 start (the first row not before the
 * bound), 1 end (the first row after it). */
static int range_bound(window_run_t *w, qctx_t *q, int which, bool follow, int64_t r,
                       int64_t *out, err_t *e)
{
  int col = w->sr_p->ow_spec.ws_ord[0];
  bool desc = w->sr_p->ow_spec.ws_desc[0], nf = w->sr_p->ow_spec.ws_nulls_first[0];
  datum_t c;
  rs_get(&w->ow_rows, r, col, &c);
  int64_t g = w->ow_grp[r - w->ow_ps];
  if (c.d_null) {
    *out = which == 0 ? w->ow_gstart[g] : w->ow_gstart[g + 1];
    return CZ_OK;
  }
  int64_t j = CZ_MAX(w->ow_ptr[which], w->ow_ps);
  for (; j < w->ow_pe; j++) {
    datum_t v;
    rs_get(&w->ow_rows, j, col, &v);
    bool stop;
    if (v.d_null)
      stop = !nf;  /* NULLs last lie beyond every bound; NULLs first, before */
    else {
      int cmp = 0;
      if (range_cmp(w, &v, &c, follow, &w->ow_off[which], &cmp, e) != CZ_OK)
        return CZ_ERR;
      if (desc)
        cmp = -cmp;
      stop = which == 0 ? cmp >= 0 : cmp > 0;
    }
    if (stop)
      break;
    if (work(w, q, 1, e) != CZ_OK)
      return CZ_ERR;
  }
  w->ow_ptr[which] = j;
  *out = j;
  return CZ_OK;
}

static int64_t sat_add(int64_t a, int64_t b, int64_t hi)
{
  return b >= hi - a ? hi : a + b;
}

static int64_t sat_sub(int64_t a, int64_t b, int64_t lo)
{
  return b >= a - lo ? lo : a - b;
}

/* The frame [fs, fe) of row r (before exclusion). */
static int frame_of(window_run_t *w, qctx_t *q, int64_t r, int64_t *fs, int64_t *fe, err_t *e)
{
  const xwin_spec_t *s = &w->sr_p->ow_spec;
  int64_t ps = w->ow_ps, pe = w->ow_pe;
  int64_t g = w->ow_grp[r - ps], ng = w->ow_ngroups;
  int64_t a = ps, b = pe;
  int64_t o0 = w->ow_off[0].d_i64, o1 = w->ow_off[1].d_i64;
  switch (s->ws_start) {
  case XBOUND_UNBOUNDED_PRECEDING: a = ps; break;
  case XBOUND_CURRENT: a = s->ws_unit == XFRAME_ROWS ? r : w->ow_gstart[g]; break;
  case XBOUND_PRECEDING:
  case XBOUND_FOLLOWING: {
    bool fol = s->ws_start == XBOUND_FOLLOWING;
    if (s->ws_unit == XFRAME_ROWS)
      a = fol ? sat_add(r, o0, pe) : sat_sub(r, o0, ps);
    else if (s->ws_unit == XFRAME_GROUPS)
      a = w->ow_gstart[fol ? sat_add(g, o0, ng) : sat_sub(g, o0, 0)];
    else if (range_bound(w, q, 0, fol, r, &a, e) != CZ_OK)
      return CZ_ERR;
    break;
  }
  default: a = pe; break;
  }
  switch (s->ws_end) {
  case XBOUND_UNBOUNDED_FOLLOWING: b = pe; break;
  case XBOUND_CURRENT: b = s->ws_unit == XFRAME_ROWS ? r + 1 : w->ow_gstart[g + 1]; break;
  case XBOUND_PRECEDING:
  case XBOUND_FOLLOWING: {
    bool fol = s->ws_end == XBOUND_FOLLOWING;
    if (s->ws_unit == XFRAME_ROWS)
      b = fol ? sat_add(r + 1, o1, pe) : (o1 > r - ps ? ps : r - o1 + 1);
    else if (s->ws_unit == XFRAME_GROUPS)
      b = fol ? w->ow_gstart[sat_add(g + 1, o1, ng)] : (o1 > g ? ps : w->ow_gstart[g - o1 + 1]);
    else if (range_bound(w, q, 1, fol, r, &b, e) != CZ_OK)
      return CZ_ERR;
    break;
  }
  default: b = ps; break;
  }
  a = CZ_MIN(CZ_MAX(a, ps), pe);
  b = CZ_MIN(CZ_MAX(b, a), pe);
  *fs = a;
  *fe = b;
  return CZ_OK;
}

/* The frame of row r after EXCLUDE: up to three ranges, in order. */
static int frame_parts(const window_run_t *w, int64_t r, int64_t fs, int64_t fe, int64_t lo[3],
                       int64_t hi[3])
{
  int64_t g = w->ow_grp[r - w->ow_ps];
  int64_t gs = w->ow_gstart[g], ge = w->ow_gstart[g + 1];
  int64_t cand[3][2];
  int nc = 0;
  switch (w->sr_p->ow_spec.ws_exclude) {
  case XEXCLUDE_NONE:
    cand[nc][0] = fs, cand[nc++][1] = fe;
    break;
  case XEXCLUDE_CURRENT:
    cand[nc][0] = fs, cand[nc++][1] = CZ_MIN(fe, r);
    cand[nc][0] = CZ_MAX(fs, r + 1), cand[nc++][1] = fe;
    break;
  case XEXCLUDE_GROUP:
    cand[nc][0] = fs, cand[nc++][1] = CZ_MIN(fe, gs);
    cand[nc][0] = CZ_MAX(fs, ge), cand[nc++][1] = fe;
    break;
  case XEXCLUDE_TIES:
    cand[nc][0] = fs, cand[nc++][1] = CZ_MIN(fe, gs);
    cand[nc][0] = CZ_MAX(fs, r), cand[nc++][1] = CZ_MIN(fe, r + 1);
    cand[nc][0] = CZ_MAX(fs, ge), cand[nc++][1] = fe;
    break;
  }
  int n = 0;
  for (int i = 0; i < nc; i++)
    if (cand[i][0] < cand[i][1]) {
      lo[n] = cand[i][0];
      hi[n++] = cand[i][1];
    }
  return n;
}

/* ---- aggregates over the frame ----------------------------------------- */

static void agg_input(const window_run_t *w, const xwin_fn_t *f, int64_t row, datum_t *v,
                      datum_t *delim)
{
  v->d_null = false;
  delim->d_null = true;
  if (f->wf_args[0] >= 0)
    rs_get(&w->ow_rows, row, f->wf_args[0], v);
  if (f->wf_args[1] >= 0)
    rs_get(&w->ow_rows, row, f->wf_args[1], delim);
}

static int agg_add_range(window_run_t *w, qctx_t *q, const xwin_fn_t *f, wagg_t *a, int64_t lo,
                         int64_t hi, err_t *e)
{
  for (int64_t j = lo; j < hi; j++) {
    datum_t v, d;
    agg_input(w, f, j, &v, &d);
    if (wagg_add(a, q, &v, &d, e) != CZ_OK)
      return CZ_ERR;
  }
  return work(w, q, hi - lo, e);
}

/* Removes rows [lo, hi); *ok false when the state refused one. */
static int agg_remove_range(window_run_t *w, qctx_t *q, const xwin_fn_t *f, wagg_t *a, int64_t lo,
                            int64_t hi, bool *ok, err_t *e)
{
  *ok = true;
  for (int64_t j = lo; j < hi && *ok; j++) {
    datum_t v, d;
    agg_input(w, f, j, &v, &d);
    if (wagg_remove(a, &v, ok, e) != CZ_OK)
      return CZ_ERR;
  }
  return work(w, q, hi - lo, e);
}

/* min/max over a frame that moves forward: rows enter at the tail after
 * dropping the rows they beat (which can never be the extreme again),
 * rows leave at the head; each row enters and leaves once, so a sliding
 * min/max costs O(1) per row however large the frame (PostgreSQL
 * rescans the frame). */
static int deque_value(window_run_t *w, qctx_t *q, const xwin_fn_t *f, wrun_t *run, int64_t fs,
                       int64_t fe, datum_t *out, err_t *e)
{
  int col = f->wf_args[0];
  ty_phys_t p = ty_phys(w->ow_rows.rs_types[col].t_id);
  bool is_max = f->wf_agg == XAGG_MAX;
  if (fs >= run->wr_hi || fs < run->wr_lo) {
    run->wr_dqh = run->wr_dqt = 0;
    run->wr_lo = run->wr_hi = fs;
  }
  for (int64_t j = run->wr_hi; j < fe; j++) {
    datum_t v;
    rs_get(&w->ow_rows, j, col, &v);
    if (v.d_null)
      continue;
    while (run->wr_dqt > run->wr_dqh) {
      datum_t t;
      rs_get(&w->ow_rows, run->wr_dq[run->wr_dqt - 1], col, &t);
      int c = datum_cmp(p, &t, &v);
      if (is_max ? c > 0 : c < 0)
        break;
      run->wr_dqt--;
    }
    /* the queue holds at most the partition's rows: indexes from 0 again
     * once it is empty at the front */
    if (run->wr_dqh == run->wr_dqt)
      run->wr_dqh = run->wr_dqt = 0;
    run->wr_dq[run->wr_dqt++] = j;
  }
  if (fe > run->wr_hi) {
    if (work(w, q, fe - run->wr_hi, e) != CZ_OK)
      return CZ_ERR;
    run->wr_hi = fe;
  }
  while (run->wr_dqh < run->wr_dqt && run->wr_dq[run->wr_dqh] < fs)
    run->wr_dqh++;
  run->wr_lo = fs;
  if (run->wr_dqh == run->wr_dqt)
    out->d_null = true;
  else
    rs_get(&w->ow_rows, run->wr_dq[run->wr_dqh], col, out);
  return CZ_OK;
}

static int agg_value(window_run_t *w, qctx_t *q, int k, int64_t r, int64_t fs, int64_t fe,
                     datum_t *out, err_t *e)
{
  const xwin_fn_t *f = &w->sr_p->ow_fns[k];
  wrun_t *run = &w->ow_run[k];
  wagg_t *a = &run->wr_agg;
  xexclude_t ex = w->sr_p->ow_spec.ws_exclude;
  int64_t gs = w->ow_gstart[w->ow_grp[r - w->ow_ps]];
  if (run->wr_mode == WM_RESCAN) {
    /* the same frame (and, for EXCLUDE GROUP, the same group) as the last row */
    if (run->wr_have && run->wr_cfs == fs && run->wr_cfe == fe &&
        (ex == XEXCLUDE_NONE || (ex == XEXCLUDE_GROUP && run->wr_cgs == gs))) {
      *out = run->wr_cache;
      return CZ_OK;
    }
    int64_t lo[3], hi[3];
    int np = frame_parts(w, r, fs, fe, lo, hi);
    wagg_reset(a);
    for (int i = 0; i < np; i++)
      if (agg_add_range(w, q, f, a, lo[i], hi[i], e) != CZ_OK)
        return CZ_ERR;
    if (wagg_final(a, out, e) != CZ_OK)
      return CZ_ERR;
    run->wr_have = ex == XEXCLUDE_NONE || ex == XEXCLUDE_GROUP;
    run->wr_cfs = fs;
    run->wr_cfe = fe;
    run->wr_cgs = gs;
    run->wr_cache = *out;
    return CZ_OK;
  }
  if (run->wr_mode == WM_DEQUE)
    return deque_value(w, q, f, run, fs, fe, out, e);
  /* WM_GROW / WM_SLIDE: bring the state from [lo, hi) to [fs, fe) */
  bool ok = true;
  if (fs >= run->wr_hi || fs < run->wr_lo) {
    wagg_reset(a);
    run->wr_lo = run->wr_hi = fs;
  }
  if (agg_add_range(w, q, f, a, run->wr_hi, fe, e) != CZ_OK)
    return CZ_ERR;
  run->wr_hi = CZ_MAX(run->wr_hi, fe);
  if (run->wr_lo < fs) {
    if (agg_remove_range(w, q, f, a, run->wr_lo, fs, &ok, e) != CZ_OK)
      return CZ_ERR;
    run->wr_lo = fs;
    if (!ok) {
      wagg_reset(a);
      if (agg_add_range(w, q, f, a, fs, fe, e) != CZ_OK)
        return CZ_ERR;
    }
  }
  if (ex == XEXCLUDE_NONE)
    return wagg_final(a, out, e);
  /* EXCLUDE: the frame's state less the excluded rows inside it */
  int64_t lo[3], hi[3];
  int np = frame_parts(w, r, fs, fe, lo, hi);
  wagg_t t = *a;
  int64_t at = fs;
  for (int i = 0; i <= np && ok; i++) {
    int64_t until = i < np ? lo[i] : fe;
    if (agg_remove_range(w, q, f, &t, at, until, &ok, e) != CZ_OK)
      return CZ_ERR;
    if (i < np)
      at = hi[i];
  }
  if (!ok) {
    wagg_reset(&t);
    for (int i = 0; i < np; i++)
      if (agg_add_range(w, q, f, &t, lo[i], hi[i], e) != CZ_OK)
        return CZ_ERR;
  }
  return wagg_final(&t, out, e);
}

/* ---- one function at one row -------------------------------------------- */

static int fn_value(window_run_t *w, qctx_t *q, int k, int64_t r, datum_t *out, err_t *e)
{
  const xwin_fn_t *f = &w->sr_p->ow_fns[k];
  int64_t ps = w->ow_ps, n = w->ow_pe - ps, i = r - ps;
  int64_t g = w->ow_grp[i];
  int64_t rank = w->ow_gstart[g] - ps + 1;
  memset(out, 0, sizeof(*out));
  switch (f->wf_kind) {
  case XWIN_ROW_NUMBER: out->d_i64 = i + 1; return CZ_OK;
  case XWIN_RANK: out->d_i64 = rank; return CZ_OK;
  case XWIN_DENSE_RANK: out->d_i64 = g + 1; return CZ_OK;
  case XWIN_PERCENT_RANK: out->d_f64 = n > 1 ? (double)(rank - 1) / (double)(n - 1) : 0; return CZ_OK;
  case XWIN_CUME_DIST: out->d_f64 = (double)(w->ow_gstart[g + 1] - ps) / (double)n; return CZ_OK;
  case XWIN_NTILE: {
    int64_t nt = w->ow_run[k].wr_ntile;
    if (nt <= 0) {
      out->d_null = true;
      return CZ_OK;
    }
    /* PostgreSQL's: the first n % nt buckets hold one row more */
    int64_t per = n / nt, extra = n % nt, big = extra * (per + 1);
    out->d_i64 = i < big ? i / (per + 1) + 1 : (i - big) / (per ? per : 1) + extra + 1;
    return CZ_OK;
  }
  case XWIN_LAG:
  case XWIN_LEAD: {
    int64_t off = 1;
    if (f->wf_args[1] >= 0) {
      datum_t d;
      rs_get(&w->ow_rows, r, f->wf_args[1], &d);
      if (d.d_null) {
        out->d_null = true;
        return CZ_OK;
      }
      off = d.d_i64;
    }
    int64_t t = f->wf_kind == XWIN_LAG ? r - off : r + off;
    if (t >= ps && t < w->ow_pe)
      rs_get(&w->ow_rows, t, f->wf_args[0], out);
    else if (f->wf_args[2] >= 0)
      rs_get(&w->ow_rows, r, f->wf_args[2], out);
    else
      out->d_null = true;
    return CZ_OK;
  }
  default:
    break;
  }
  int64_t fs, fe;
  if (frame_of(w, q, r, &fs, &fe, e) != CZ_OK)
    return CZ_ERR;
  if (f->wf_kind == XWIN_AGG)
    return agg_value(w, q, k, r, fs, fe, out, e);
  int64_t lo[3], hi[3];
  int np = frame_parts(w, r, fs, fe, lo, hi);
  int64_t at = -1;
  if (f->wf_kind == XWIN_FIRST_VALUE)
    at = np ? lo[0] : -1;
  else if (f->wf_kind == XWIN_LAST_VALUE)
    at = np ? hi[np - 1] - 1 : -1;
  else {
    datum_t d;
    rs_get(&w->ow_rows, r, f->wf_args[1], &d);
    if (d.d_null) {
      out->d_null = true;
      return CZ_OK;
    }
    if (d.d_i64 <= 0)
      return err_set(e, SQLSTATE_INVALID_ARGUMENT_FOR_NTH_VALUE, "argument of nth_value must be greater than zero");
    int64_t nth = d.d_i64 - 1;
    for (int p = 0; p < np && at < 0; p++) {
      if (nth < hi[p] - lo[p])
        at = lo[p] + nth;
      else
        nth -= hi[p] - lo[p];
    }
  }
  if (at < 0)
    out->d_null = true;
  else
    rs_get(&w->ow_rows, at, f->wf_args[0], out);
  return CZ_OK;
}

/* ---- the operator -------------------------------------------------------- */

static int window_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  window_run_t *w = (window_run_t *)st;
  w->sr_p = (const op_window_t *)o;
  rs_init(&w->ow_rows, st->os_state, w->sr_p->ow_nin, o->o_in->o_types);
  if (!w->ow_parena) {  /* children of os_state: reset with it at every open */
    w->ow_parena = arena_create(st->os_state, "Window partition");
    w->ow_text = arena_create(st->os_state, "Window texts");
  }
  w->ow_pos = 0;
  w->ow_ps = w->ow_pe = 0;
  w->ow_work = 0;
  memset(w->ow_off, 0, sizeof(w->ow_off));
  if (eval_offset(w, q, 0, e) != CZ_OK || eval_offset(w, q, 1, e) != CZ_OK)
    return CZ_ERR;
  w->ow_run = arena_zalloc(st->os_state, sizeof(wrun_t) * (size_t)w->sr_p->ow_nfn);
  const xwin_spec_t *s = &w->sr_p->ow_spec;
  for (int k = 0; k < w->sr_p->ow_nfn; k++) {
    const xwin_fn_t *f = &w->sr_p->ow_fns[k];
    wrun_t *r = &w->ow_run[k];
    if (f->wf_kind != XWIN_AGG)
      continue;
    ty_phys_t ap = f->wf_args[0] >= 0 ? ty_phys(o->o_in->o_types[f->wf_args[0]].t_id) : TP_I64;
    wagg_init(&r->wr_agg, f->wf_agg, ap, f->wf_type, w->ow_text);
    wagg_reset(&r->wr_agg);
    if (s->ws_start == XBOUND_UNBOUNDED_PRECEDING && s->ws_exclude == XEXCLUDE_NONE)
      r->wr_mode = WM_GROW;
    else if ((f->wf_agg == XAGG_MIN || f->wf_agg == XAGG_MAX) && s->ws_exclude == XEXCLUDE_NONE)
      r->wr_mode = WM_DEQUE;
    else
      r->wr_mode = wagg_can_remove(&r->wr_agg) ? WM_SLIDE : WM_RESCAN;
  }
  return rs_fill(&w->ow_rows, o->o_in, q, st->os_state, e);
}

static int window_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  window_run_t *w = (window_run_t *)st;
  w->sr_p = (const op_window_t *)o;
  if (w->ow_pos >= w->ow_rows.rs_n)
    return CZ_OK;
  batch_t *b = op_new_batch(o, st, q, e);
  if (!b)
    return CZ_ERR;
  int n = 0;
  while (w->ow_pos < w->ow_rows.rs_n && n < q->q_vector_size) {
    int64_t r = w->ow_pos++;
    if (r >= w->ow_pe && enter_partition(w, q, r, e) != CZ_OK)
      return CZ_ERR;
    rs_copy_out(&w->ow_rows, r, b, n, 0);
    for (int k = 0; k < w->sr_p->ow_nfn; k++) {
      datum_t d;
      if (fn_value(w, q, k, r, &d, e) != CZ_OK)
        return CZ_ERR;
      /* string_agg's text is rewritten for the next row: the batch keeps a copy */
      const xwin_fn_t *fk = &w->sr_p->ow_fns[k];
      if (!d.d_null && fk->wf_kind == XWIN_AGG && fk->wf_agg == XAGG_STRING_AGG &&
          datum_copy(TP_STR, &d, st->os_batch, &d, e) != CZ_OK)
        return CZ_ERR;
      vec_set(&b->b_cols[w->sr_p->ow_nin + k], n, &d);
    }
    n++;
  }
  b->b_n = n;
  out->ob_b = b;
  out->ob_sel = NULL;
  out->ob_n = n;
  return op_check_mem(q, st->os_state, e);
}

static void window_close(const op_t *o, opst_t *st, qctx_t *q)
{
  (void)st;
  op_close(o->o_in, q);
}

static char *window_detail(const op_t *o, arena_t *a)
{
  static const char *units[] = {"range", "rows", "range", "groups"};
  const op_window_t *w = (const op_window_t *)o;
  return arena_sprintf(a, "%d function%s over %d partition key%s, %d order key%s, %s frame",
                       w->ow_nfn, w->ow_nfn == 1 ? "" : "s", w->ow_spec.ws_npart,
                       w->ow_spec.ws_npart == 1 ? "" : "s", w->ow_spec.ws_norder,
                       w->ow_spec.ws_norder == 1 ? "" : "s", units[w->ow_spec.ws_unit & 3]);
}

static const op_vt_t window_vt = {
    .ov_name = "WindowAgg",
    .ov_open = window_open,
    .ov_next = window_next,
    .ov_close = window_close,
    .ov_detail = window_detail,
    .ov_run_size = sizeof(window_run_t),
};

static int *copy_ints(arena_t *a, const int *v, int n)
{
  int *c = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  if (n)
    memcpy(c, v, sizeof(int) * (size_t)n);
  return c;
}

static bool *copy_bools(arena_t *a, const bool *v, int n)
{
  bool *c = arena_zalloc(a, sizeof(bool) * (size_t)(n + 1));
  if (n && v)
    memcpy(c, v, sizeof(bool) * (size_t)n);
  return c;
}

op_t *op_window_new(arena_t *a, op_t *in, const xwin_spec_t *spec, int nfn, const xwin_fn_t *fns)
{
  op_window_t *w = arena_zalloc(a, sizeof(*w));
  int n = in->o_ncols + nfn;
  ty_t types[n > 0 ? n : 1];
  memcpy(types, in->o_types, sizeof(ty_t) * (size_t)in->o_ncols);
  for (int k = 0; k < nfn; k++)
    types[in->o_ncols + k] = fns[k].wf_type;
  op_init(&w->ow_op, &window_vt, a, n, types, in, NULL);
  w->ow_nin = in->o_ncols;
  w->ow_spec = *spec;
  w->ow_spec.ws_part = copy_ints(a, spec->ws_part, spec->ws_npart);
  w->ow_spec.ws_ord = copy_ints(a, spec->ws_ord, spec->ws_norder);
  w->ow_spec.ws_desc = copy_bools(a, spec->ws_desc, spec->ws_norder);
  w->ow_spec.ws_nulls_first = copy_bools(a, spec->ws_nulls_first, spec->ws_norder);
  if (!w->ow_spec.ws_unit)
    w->ow_spec.ws_unit = XFRAME_RANGE;
  w->ow_nfn = nfn;
  w->ow_fns = arena_alloc(a, sizeof(xwin_fn_t) * (size_t)(nfn + 1));
  if (nfn)
    memcpy(w->ow_fns, fns, sizeof(xwin_fn_t) * (size_t)nfn);
  return &w->ow_op;
}
