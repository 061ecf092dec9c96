/* op_hashagg — GROUP BY with the standard aggregates, by hashing the group
 * keys. Groups are numbered in the order they are first seen; their key
 * values sit in a row store and each aggregate keeps an array of states
 * indexed by group number. DISTINCT aggregates first check a hash set of
 * (group, value) pairs. Without group keys there is exactly one group,
 * which exists even when the input is empty (count(*) = 0).
 *
 * Spilling: each input batch is first evaluated into the "evaluated row"
 * (the group keys, then each aggregate's arguments). When the execution
 * nears its memory limit the table stops taking new groups (oh_full):
 * a row of a group already in memory still goes into it, a row of any
 * other group goes, evaluated, to one of AGG_FANOUT partition files by
 * bits of its key hash. So every group lives either wholly in memory or
 * wholly in one partition, its rows in input order (string_agg's order,
 * DISTINCT sets and NULL keys need nothing special). The groups in memory
 * are returned first; then each partition is aggregated the same way with
 * a fresh table (oh_tab is released), partitioning again with the next
 * bits of the hash when it still does not fit. */
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"
#include "exec/op_hashagg_vec.h"
#include "exec/spill.h"

#define AGG_FANOUT 32           /* partitions per spill (5 bits of the hash) */
#define AGG_MAX_LEVEL 10        /* partitioning levels: 50 bits of the hash */

typedef struct agg_part_s {
  spill_t *ap_file;
  int ap_level;                 /* the level its rows are aggregated at */
} agg_part_t;

typedef struct agg_run_s {
  agg_state_t *ar_states;       /* per group */
  rstore_t ar_seen;             /* DISTINCT: (group, value) pairs */
  rhash_t ar_seen_hash;
  ty_t ar_seen_types[2];
} agg_run_t;

typedef struct op_hashagg_s {
  op_t oh_op;
  int oh_ngroup;
  xnode_t **oh_group;
  int oh_nagg;
  agg_spec_t *oh_aggs;
  const char *oh_mode;          /* EXPLAIN: "partial " / "final " (parallel plans), or "" */
  int oh_nev;                   /* the evaluated row: keys, then arguments */
  ty_t *oh_evtypes;
  int *oh_ai, *oh_ai2;          /* per aggregate: its arguments' columns there, -1 none */
} op_hashagg_t;

/* Its run state in one execution. */
typedef struct hashagg_run_s {
  opst_t sr_st;
  const op_hashagg_t *sr_p;     /* the plan */
  arena_t *oh_tab;              /* groups, hash, states, DISTINCT sets */
  arena_t *oh_rd;               /* a partition batch being read */
  bool oh_full;                 /* no new groups: their rows go to partitions */
  int oh_level;
  spill_t *oh_part[AGG_FANOUT]; /* partitions being written */
  agg_part_t *oh_pending;       /* partitions to aggregate */
  int oh_npending, oh_cap_pending;
  rstore_t oh_groups;
  rhash_t oh_hash;
  agg_run_t *oh_run;
  int64_t oh_cap;               /* states allocated per aggregate */
  int64_t oh_pos;               /* next group to return */
  uint64_t *oh_hbuf;            /* per batch: each row's key hash, */
  int64_t *oh_gbuf;             /* its group (-1: sent to a partition) */
  int oh_bufcap;                /* rows those two hold (os_state) */
  batch_t *oh_out;              /* the output batch, made once per execution */
  int64_t oh_last_groups;       /* groups of the last table in memory (outlives opens) */
} hashagg_run_t;

/* The state arrays grow with the number of groups: fallible (53200), the
 * old array given back once copied. */
static int agg_grow(hashagg_run_t *h, int64_t need, err_t *e)
{
  if (need <= h->oh_cap)
    return CZ_OK;
  int64_t cap = h->oh_cap ? h->oh_cap * 2 : 64;
  while (cap < need)
    cap *= 2;
  arena_t *a = h->oh_tab;
  for (int i = 0; i < h->sr_p->oh_nagg; i++) {
    agg_state_t *n = arena_try_zalloc(a, sizeof(agg_state_t) * (size_t)cap);
    if (!n)
      return op_alloc_error(a, e);
    if (h->oh_cap)
      memcpy(n, h->oh_run[i].ar_states, sizeof(agg_state_t) * (size_t)h->oh_cap);
    arena_free(a, h->oh_run[i].ar_states, sizeof(agg_state_t) * (size_t)h->oh_cap);
    h->oh_run[i].ar_states = n;
  }
  h->oh_cap = cap;
  return CZ_OK;
}

/* Whether (group, value) was seen before by a DISTINCT aggregate (*seen);
 * records it. CZ_ERR (53200) when recording was refused memory. */
static int agg_seen(agg_run_t *r, int64_t g, const vec_t *v, int row, bool *seen, err_t *e)
{
  datum_t d;
  vec_get(v, row, &d);
  ty_id_t vt = v->v_type.t_id;
  uint64_t hash = hash64_int((uint64_t)g ^ datum_hash_t(vt, &d));
  int64_t pos = -1, cand;
  while (rh_next(&r->ar_seen_hash, hash, &pos, &cand)) {
    datum_t cg, cv;
    rs_get(&r->ar_seen, cand, 0, &cg);
    rs_get(&r->ar_seen, cand, 1, &cv);
    if (cg.d_i64 == g && datum_cmp_t(vt, &cv, &d) == 0) {
      *seen = true;
      return CZ_OK;
    }
  }
  *seen = false;
  datum_t vals[2] = {{.d_null = false, .d_i64 = g}, d};
  int64_t id = rs_append_datums(&r->ar_seen, vals, e);
  if (id < 0)
    return CZ_ERR;
  return rh_insert(&r->ar_seen_hash, hash, id, e);
}

/* min/max keep a copy of the best value so far (text: aggv_keep_str). */
static int agg_keep(arena_t *a, agg_state_t *st, ty_phys_t p, const datum_t *d, err_t *e)
{
  if (p != TP_STR) {
    st->as_val = *d;
    return CZ_OK;
  }
  return aggv_keep_str(a, st, &d->d_str, e);
}

/* string_agg: appends (delimiter and) value to the group's text. The
 * text is one value: past XE_MAX_FIELD 54000, and its growth is a
 * fallible allocation (53200 past the query's budget). */
static int agg_concat(arena_t *a, qctx_t *q, agg_state_t *st, const datum_t *d,
                      const vec_t *delim, int row, err_t *e)
{
  datum_t sep = {.d_null = true};
  if (delim && st->as_count > 1)
    vec_get(delim, row, &sep);
  size_t add = (size_t)d->d_str.s_len + (sep.d_null ? 0 : sep.d_str.s_len);
  size_t len = st->as_count > 1 ? st->as_val.d_str.s_len : 0;
  if (len + add > XE_MAX_FIELD)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "requested length too large");
  if (len + add > st->as_cap) {
    size_t cap = CZ_MIN((len + add) * 2 + 16, XE_MAX_FIELD);
    char *n = arena_try_alloc(a, cap);
    if (!n)
      return op_budget_error(q->q_budget, q->q_max_mem, e);
    if (len)
      memcpy(n, st->as_val.d_str.s_ptr, len);
    if (st->as_cap)
      arena_free(a, (char *)st->as_val.d_str.s_ptr, st->as_cap);
    st->as_val.d_str.s_ptr = n;
    st->as_cap = (uint32_t)cap;
  }
  char *p = (char *)st->as_val.d_str.s_ptr;
  /* Empty pieces are skipped: p is still NULL while the text is empty. */
  if (!sep.d_null && sep.d_str.s_len) {
    memcpy(p + len, sep.d_str.s_ptr, sep.d_str.s_len);
    len += sep.d_str.s_len;
  }
  if (d->d_str.s_len)
    memcpy(p + len, d->d_str.s_ptr, d->d_str.s_len);
  st->as_val.d_str.s_len = (uint32_t)(len + d->d_str.s_len);
  return CZ_OK;
}

int agg_step(arena_t *a, qctx_t *q, const agg_spec_t *ag, agg_state_t *st, const vec_t *v,
             const vec_t *v2, int row, err_t *e)
{
  if (ag->ag_kind == XAGG_COUNT_STAR) {
    st->as_count++;
    return CZ_OK;
  }
  datum_t d;
  vec_get(v, row, &d);
  if (d.d_null)
    return CZ_OK;
  ty_phys_t ap = ty_phys(v->v_type.t_id);
  ty_phys_t rp = ty_phys(ag->ag_type.t_id);
  st->as_count++;
  switch (ag->ag_kind) {
  case XAGG_COUNT:
    return CZ_OK;
  case XAGG_SUM:
  case XAGG_AVG:
    if (rp == TP_IV) { /* interval: the running sum; avg divides at the end */
      if (st->as_count == 1) {
        st->as_val = d;
        return CZ_OK;
      }
      return ty_iv_add(&st->as_val.d_iv, &d.d_iv, &st->as_val.d_iv, e);
    }
    if (rp == TP_F64 || (ag->ag_kind == XAGG_AVG && ap == TP_F64)) {
      st->as_f64 += ap == TP_F64 ? d.d_f64 : ap == TP_NUM ? num_to_f64(&d.d_num) : (double)d.d_i64;
      return CZ_OK;
    }
    if (rp == TP_I64) {
      if (__builtin_add_overflow(st->as_i64, d.d_i64, &st->as_i64))
        return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "bigint out of range");
      return CZ_OK;
    } else {
      num_t n;
      if (datum_to_num(ap, &d, &n, e) != CZ_OK)
        return CZ_ERR;
      if (st->as_count == 1)
        st->as_num = n;
      else if (num_add(&st->as_num, &n, &st->as_num, e) != CZ_OK)
        return CZ_ERR;
      return CZ_OK;
    }
  case XAGG_MIN:
  case XAGG_MAX: {
    if (st->as_count > 1) {
      int c = datum_cmp(ap, &d, &st->as_val);
      if (ag->ag_kind == XAGG_MIN ? c > 0 : c < 0) /* ties take the later value, as
                                                     * PostgreSQL's smaller/larger do */
        return CZ_OK;
    }
    return agg_keep(a, st, ap, &d, e);
  }
  case XAGG_BOOL_AND:
    st->as_val.d_bool = st->as_count == 1 ? d.d_bool : (st->as_val.d_bool && d.d_bool);
    return CZ_OK;
  case XAGG_BOOL_OR:
    st->as_val.d_bool = st->as_count == 1 ? d.d_bool : (st->as_val.d_bool || d.d_bool);
    return CZ_OK;
  case XAGG_STRING_AGG:
    return agg_concat(a, q, st, &d, v2, row, e);
  default:
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "aggregate not supported");
  }
}

int agg_final(const agg_spec_t *ag, const agg_state_t *st, datum_t *out, err_t *e)
{
  memset(out, 0, sizeof(*out));
  ty_phys_t rp = ty_phys(ag->ag_type.t_id);
  if (ag->ag_kind == XAGG_COUNT || ag->ag_kind == XAGG_COUNT_STAR) {
    out->d_i64 = st->as_count;
    return CZ_OK;
  }
  if (st->as_count == 0) {
    out->d_null = true;
    return CZ_OK;
  }
  if (rp == TP_IV && (ag->ag_kind == XAGG_SUM || ag->ag_kind == XAGG_AVG)) {
    /* interval_avg: the sum divided as interval / float8 does */
    if (ag->ag_kind == XAGG_SUM) {
      out->d_iv = st->as_val.d_iv;
      return CZ_OK;
    }
    return ty_iv_div(&st->as_val.d_iv, (double)st->as_count, &out->d_iv, e);
  }
  switch (ag->ag_kind) {
  case XAGG_SUM:
    if (rp == TP_F64)
      out->d_f64 = st->as_f64;
    else if (rp == TP_I64)
      out->d_i64 = st->as_i64;
    else
      out->d_num = st->as_num;
    return CZ_OK;
  case XAGG_AVG:
    if (rp == TP_F64) {
      out->d_f64 = st->as_f64 / (double)st->as_count;
      return CZ_OK;
    } else {
      num_t cnt;
      num_from_i64(st->as_count, &cnt);
      return num_div(&st->as_num, &cnt, &out->d_num, e);
    }
  default:
    *out = st->as_val;
    out->d_null = false;
    return CZ_OK;
  }
}

/* Writes evaluated row `row` of ev to its partition at the current level. */
static int agg_to_partition(hashagg_run_t *h, qctx_t *q, const batch_t *ev, int row, uint64_t hash,
                            err_t *e)
{
  int p = (int)((hash >> (64 - 5 * (h->oh_level + 1))) & (AGG_FANOUT - 1));
  if (!h->oh_part[p] && !(h->oh_part[p] = spill_open(q, h->sr_p->oh_nev, h->sr_p->oh_evtypes, e)))
    return CZ_ERR;
  return spill_put(h->oh_part[p], ev, row, e);
}

/* Whether a new group would take the table past what the execution may
 * still hold: the doubling of the state arrays or of the hash table, or a
 * new chunk of group keys, are single large steps that a check after each
 * batch does not foresee. Only when the table can spill instead. */
static bool agg_growth_refused(const hashagg_run_t *h, const qctx_t *q)
{
  int64_t n = h->oh_groups.rs_n;
  int64_t need = 0;
  if (n + 1 > h->oh_cap)
    need += (int64_t)h->sr_p->oh_nagg * (int64_t)sizeof(agg_state_t) * h->oh_cap * 2;
  need += rh_growth_bytes(&h->oh_hash, 1);
  if (n % RS_CHUNK == 0)
    need += (int64_t)RS_CHUNK * (h->sr_p->oh_ngroup + 1) * 24;
  if (need == 0 || h->sr_p->oh_ngroup == 0 || h->oh_level >= AGG_MAX_LEVEL || !spill_dir())
    return false;
  int64_t lim = spill_mem_limit(q);
  return lim > 0 && need > mem_budget_room(q->q_budget) - lim / 8;
}

/* The group of row `row` of ev with key hash `hash`: found in the table,
 * or added, or -1 when the row went to a partition (the table is full). */
static int64_t agg_group(hashagg_run_t *h, qctx_t *q, const batch_t *ev, const ty_phys_t *kp,
                         int row, uint64_t hash, err_t *e)
{
  int nk = h->sr_p->oh_ngroup;
  int64_t pos = -1, cand;
  /* One integer key: its hash is a bijection of the value (rows_hash
   * mixes it with invertible steps), so an equal hash is an equal key and
   * the stored key need not be read — except the one hash a NULL key
   * shares with some value. */
  bool by_hash = nk == 1 && kp[0] == TP_I64 && hash != rows_hash_null1();
  while (rh_next(&h->oh_hash, hash, &pos, &cand)) {
    if (by_hash)
      return cand;
    int idx;
    bool eq = true;
    for (int k = 0; k < nk && eq; k++) {
      const vec_t *gv = rs_col(&h->oh_groups, cand, k, &idx);
      eq = aggv_eq(kp[k], &ev->b_cols[k], row, gv, idx);
    }
    if (eq)
      return cand;
  }
  if (!h->oh_full && agg_growth_refused(h, q))
    h->oh_full = true;
  if (h->oh_full)
    return agg_to_partition(h, q, ev, row, hash, e) == CZ_OK ? -1 : -2;
  int64_t g = rs_append_row(&h->oh_groups, ev, row, e);
  if (g < 0 || rh_insert(&h->oh_hash, hash, g, e) != CZ_OK || agg_grow(h, g + 1, e) != CZ_OK)
    return -2;
  return g;
}

/* Aggregates the selected evaluated rows of ev (keys, then arguments):
 * first every row's group (key hashes a column at a time), then each
 * aggregate over the whole batch — a typed loop where op_hashagg_vec.c
 * has one, row by row otherwise. Each group still sees its rows in input
 * order, per aggregate, which is all string_agg and DISTINCT need. */
static int agg_accum(hashagg_run_t *h, qctx_t *q, const batch_t *ev, const int *sel, int nsel,
                     err_t *e)
{
  if (nsel <= 0)
    return CZ_OK;
  if (nsel > h->oh_bufcap) {
    h->oh_hbuf = arena_alloc(h->sr_st.os_state, sizeof(uint64_t) * (size_t)nsel);
    h->oh_gbuf = arena_alloc(h->sr_st.os_state, sizeof(int64_t) * (size_t)nsel);
    h->oh_bufcap = nsel;
  }
  int64_t *grp = h->oh_gbuf;
  if (h->sr_p->oh_ngroup > 0) {
    ty_phys_t kp[h->sr_p->oh_ngroup];
    for (int k = 0; k < h->sr_p->oh_ngroup; k++)
      kp[k] = ty_phys(ev->b_cols[k].v_type.t_id);
    aggv_hash(ev, h->sr_p->oh_ngroup, sel, nsel, h->oh_hbuf);
    for (int j = 0; j < nsel && j < 8; j++)
      rh_prefetch(&h->oh_hash, h->oh_hbuf[j]);
    for (int j = 0; j < nsel; j++) {
      /* the slot of a row a few ahead: in the cache when its turn comes */
      if (j + 8 < nsel)
        rh_prefetch(&h->oh_hash, h->oh_hbuf[j + 8]);
      grp[j] = agg_group(h, q, ev, kp, sel ? sel[j] : j, h->oh_hbuf[j], e);
      if (grp[j] < -1)
        return CZ_ERR;
    }
  } else
    memset(grp, 0, sizeof(int64_t) * (size_t)nsel);
  for (int i = 0; i < h->sr_p->oh_nagg; i++) {
    const agg_spec_t *ag = &h->sr_p->oh_aggs[i];
    const vec_t *v = h->sr_p->oh_ai[i] >= 0 ? &ev->b_cols[h->sr_p->oh_ai[i]] : NULL;
    const vec_t *v2 = h->sr_p->oh_ai2[i] >= 0 ? &ev->b_cols[h->sr_p->oh_ai2[i]] : NULL;
    agg_state_t *states = h->oh_run[i].ar_states;
    int rc = aggv_accum(ag, states, grp, v, sel, nsel, h->oh_tab, e);
    if (rc < 0)
      return CZ_ERR;
    if (rc > 0)
      continue;
    for (int j = 0; j < nsel; j++) {
      int64_t g = grp[j];
      int row = sel ? sel[j] : j;
      if (g < 0)
        continue;
      if (ag->ag_distinct && v) {
        bool seen = false;
        if (v->v_null[row])
          continue;
        if (agg_seen(&h->oh_run[i], g, v, row, &seen, e) != CZ_OK)
          return CZ_ERR;
        if (seen)
          continue;
      }
      if (agg_step(h->oh_tab, q, ag, &states[g], v, v2, row, e) != CZ_OK)
        return CZ_ERR;
    }
  }
  return CZ_OK;
}

/* After a batch: whether to stop taking new groups. Only with group keys
 * (one group never needs it), a table that holds a fair share of the
 * memory, and hash bits left to partition by. */
static void agg_check_spill(hashagg_run_t *h, qctx_t *q)
{
  if (h->oh_full || h->sr_p->oh_ngroup == 0 || h->oh_level >= AGG_MAX_LEVEL || !spill_dir())
    return;
  int64_t lim = spill_mem_limit(q);
  if (lim <= 0 || (int64_t)arena_bytes_used(h->oh_tab) < lim / 16)
    return;
  /* The groups kept in memory go on taking their rows after the table is
   * full: string_agg's text and DISTINCT sets still grow then, so with
   * those the table stops at half of the memory rather than three
   * quarters. */
  bool grows = false;
  for (int i = 0; i < h->sr_p->oh_nagg; i++)
    grows |= h->sr_p->oh_aggs[i].ag_distinct || h->sr_p->oh_aggs[i].ag_kind == XAGG_STRING_AGG;
  if (spill_pressure(q) || (grows && mem_budget_room(q->q_budget) < lim / 2))
    h->oh_full = true;
}

/* One column of the evaluated row: a plain column reference shares the
 * input's vector (as a projection does: the batch lives until the next
 * op_next of the input, and the evaluated row is used before that);
 * anything else is evaluated into a vector of its own. */
static int agg_eval(opst_t *st, xctx_t *xc, const xnode_t *x, const obatch_t *in, int cap,
                    vec_t *out, err_t *e)
{
  if (x->x_kind == X_COL && x->x_index >= 0 && x->x_index < in->ob_b->b_ncols &&
      ty_phys(in->ob_b->b_cols[x->x_index].v_type.t_id) == ty_phys(x->x_type.t_id)) {
    *out = in->ob_b->b_cols[x->x_index];
    out->v_type = x->x_type;
    return CZ_OK;
  }
  if (vec_init(out, st->os_batch, x->x_type, cap, e) != CZ_OK)
    return CZ_ERR;
  return xeval(xc, x, in->ob_b, in->ob_sel, in->ob_n, out, e);
}

static int hashagg_consume(hashagg_run_t *h, qctx_t *q, const obatch_t *in, err_t *e)
{
  opst_t *st = &h->sr_st;
  xctx_t xc;
  op_xctx(q, st->os_batch, &xc);
  int cap = in->ob_b->b_n;
  /* Evaluate keys and arguments for the whole batch first (vectored). */
  batch_t ev = {.b_n = cap, .b_ncols = h->sr_p->oh_nev, .b_cols = NULL};
  ev.b_cols = arena_alloc(st->os_batch, sizeof(vec_t) * (size_t)(h->sr_p->oh_nev + 1));
  for (int k = 0; k < h->sr_p->oh_ngroup; k++)
    if (agg_eval(st, &xc, h->sr_p->oh_group[k], in, cap, &ev.b_cols[k], e) != CZ_OK)
      return CZ_ERR;
  for (int i = 0; i < h->sr_p->oh_nagg; i++) {
    xnode_t *x = h->sr_p->oh_aggs[i].ag_arg, *x2 = h->sr_p->oh_aggs[i].ag_arg2;
    if (!x)
      continue;
    if (agg_eval(st, &xc, x, in, cap, &ev.b_cols[h->sr_p->oh_ai[i]], e) != CZ_OK ||
        (x2 && agg_eval(st, &xc, x2, in, cap, &ev.b_cols[h->sr_p->oh_ai2[i]], e) != CZ_OK))
      return CZ_ERR;
  }
  if (agg_accum(h, q, &ev, in->ob_sel, in->ob_n, e) != CZ_OK)
    return CZ_ERR;
  agg_check_spill(h, q);
  return op_check_mem(q, st->os_state, e);
}

/* Groups to size a fresh table for: the last table's in this execution
 * (a group-by re-opened per outer row sees much the same), else the
 * planner's estimate — so that the first doublings are skipped — but at
 * most 2^16 groups and what a sixteenth of the memory limit holds: the
 * estimate of a group-by's rows is often its input's (far too many), and
 * a table is cheap to double while it is small. */
static int64_t agg_size_hint(const hashagg_run_t *h, const qctx_t *q)
{
  const op_t *o = &h->sr_p->oh_op;
  if (h->sr_p->oh_ngroup == 0)
    return 1;
  int64_t hint = h->oh_last_groups > 0 ? h->oh_last_groups
                 : o->o_est_rows > 0    ? (int64_t)o->o_est_rows
                                        : 64;
  int64_t lim = spill_mem_limit(q);
  int64_t per = 32 + (int64_t)sizeof(agg_state_t) * h->sr_p->oh_nagg;
  int64_t most = CZ_MIN(lim > 0 ? lim / 16 : (int64_t)64 << 20,
                        mem_budget_room(q->q_budget) / 16) / per;
  return CZ_MAX(CZ_MIN(CZ_MIN(hint, most), (int64_t)1 << 16), 1);
}

/* A fresh table (the previous one's memory given back). */
static int agg_table_init(hashagg_run_t *h, qctx_t *q, bool presize, err_t *e)
{
  /* a spilled partition starts small: memory is short then */
  int64_t hint = presize ? agg_size_hint(h, q) : 64;
  arena_release(h->oh_tab);
  ty_t *kt = arena_alloc(h->oh_tab, sizeof(ty_t) * (size_t)(h->sr_p->oh_ngroup + 1));
  memcpy(kt, h->sr_p->oh_evtypes, sizeof(ty_t) * (size_t)h->sr_p->oh_ngroup);
  rs_init(&h->oh_groups, h->oh_tab, h->sr_p->oh_ngroup, kt);
  if (rh_init(&h->oh_hash, h->oh_tab, hint, e) != CZ_OK)
    return CZ_ERR;
  h->oh_run = arena_zalloc(h->oh_tab, sizeof(agg_run_t) * (size_t)(h->sr_p->oh_nagg + 1));
  h->oh_cap = 0;
  h->oh_pos = 0;
  h->oh_full = false;
  for (int i = 0; i < h->sr_p->oh_nagg; i++) {
    agg_run_t *r = &h->oh_run[i];
    if (h->sr_p->oh_aggs[i].ag_distinct && h->sr_p->oh_aggs[i].ag_arg) {
      r->ar_seen_types[0] = ty_plain(TY_INT8);
      r->ar_seen_types[1] = h->sr_p->oh_aggs[i].ag_arg->x_type;
      rs_init(&r->ar_seen, h->oh_tab, 2, r->ar_seen_types);
      if (rh_init(&r->ar_seen_hash, h->oh_tab, 64, e) != CZ_OK)
        return CZ_ERR;
    }
  }
  return agg_grow(h, hint, e);
}

/* The partitions written at this level join the queue (their rows are
 * aggregated at the next level). */
static int agg_queue_parts(hashagg_run_t *h, err_t *e)
{
  for (int p = 0; p < AGG_FANOUT; p++) {
    spill_t *f = h->oh_part[p];
    if (!f)
      continue;
    h->oh_part[p] = NULL;
    if (h->oh_npending == h->oh_cap_pending) {
      int cap = h->oh_cap_pending ? h->oh_cap_pending * 2 : AGG_FANOUT;
      agg_part_t *n = arena_alloc(h->sr_st.os_state, sizeof(agg_part_t) * (size_t)cap);
      if (h->oh_npending)
        memcpy(n, h->oh_pending, sizeof(agg_part_t) * (size_t)h->oh_npending);
      h->oh_pending = n;
      h->oh_cap_pending = cap;
    }
    h->oh_pending[h->oh_npending++] = (agg_part_t){f, h->oh_level + 1};
    if (spill_rewind(f, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* Aggregates the next queued partition into a fresh table. */
static int agg_next_partition(hashagg_run_t *h, qctx_t *q, err_t *e)
{
  agg_part_t part = h->oh_pending[--h->oh_npending];
  if (agg_table_init(h, q, false, e) != CZ_OK) {
    spill_close(part.ap_file);
    return CZ_ERR;
  }
  h->oh_level = part.ap_level;
  int rc = CZ_OK;
  for (;;) {
    arena_reset(h->oh_rd);
    batch_t *b = batch_create(h->oh_rd, h->sr_p->oh_nev, h->sr_p->oh_evtypes, q->q_vector_size, e);
    if (!b || spill_get(part.ap_file, b, h->oh_rd, e) != CZ_OK) {
      rc = CZ_ERR;
      break;
    }
    if (b->b_n == 0)
      break;
    if (op_check_cancel(q, e) != CZ_OK || agg_accum(h, q, b, NULL, b->b_n, e) != CZ_OK ||
        op_check_mem(q, h->sr_st.os_state, e) != CZ_OK) {
      rc = CZ_ERR;
      break;
    }
    agg_check_spill(h, q);
  }
  spill_close(part.ap_file);
  arena_reset(h->oh_rd);
  if (rc != CZ_OK)
    return CZ_ERR;
  return agg_queue_parts(h, e);
}

static void agg_drop_parts(hashagg_run_t *h)
{
  for (int p = 0; p < AGG_FANOUT; p++) {
    spill_close(h->oh_part[p]);
    h->oh_part[p] = NULL;
  }
  for (int i = 0; i < h->oh_npending; i++)
    spill_close(h->oh_pending[i].ap_file);
  h->oh_npending = 0;
}

static int hashagg_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  hashagg_run_t *h = (hashagg_run_t *)st;
  h->sr_p = (const op_hashagg_t *)o;
  if (!h->oh_tab) {
    /* Children of os_state: reset with it at every open. */
    h->oh_tab = arena_create(st->os_state, "HashAggregate groups");
    h->oh_rd = arena_create(st->os_state, "HashAggregate partition");
  }
  /* Files of an earlier execution were closed by its end (spill_end):
   * forgotten here, never touched. */
  memset(h->oh_part, 0, sizeof(h->oh_part));
  h->oh_pending = NULL;
  h->oh_npending = h->oh_cap_pending = 0;
  h->oh_level = 0;
  h->oh_bufcap = 0; /* the buffers went with os_state's reset */
  if (agg_table_init(h, q, true, e) != CZ_OK)
    return CZ_ERR;
  if (op_open(o->o_in, q, e) != CZ_OK)
    return CZ_ERR;
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      break;
    if (in.ob_n > 0) {
      arena_reset(st->os_batch);
      if (hashagg_consume(h, q, &in, e) != CZ_OK)
        return CZ_ERR;
    }
  }
  op_close(o->o_in, q);
  h->oh_last_groups = h->oh_groups.rs_n;
  return agg_queue_parts(h, e);
}

static int hashagg_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  hashagg_run_t *h = (hashagg_run_t *)st;
  h->sr_p = (const op_hashagg_t *)o;
  int64_t ngroups = h->sr_p->oh_ngroup > 0 ? h->oh_groups.rs_n : 1;
  while (h->oh_pos >= ngroups) {
    if (h->oh_npending == 0)
      return CZ_OK;
    if (agg_next_partition(h, q, e) != CZ_OK)
      return CZ_ERR;
    ngroups = h->oh_groups.rs_n;
  }
  batch_t *b = op_keep_batch(o, q, &h->oh_out, q->q_vector_size, e);
  if (!b)
    return CZ_ERR;
  int n = (int)CZ_MIN(ngroups - h->oh_pos, (int64_t)q->q_vector_size);
  int64_t g0 = h->oh_pos;
  h->oh_pos += n;
  if (h->sr_p->oh_ngroup > 0) {
    /* the keys a column at a time: groups g0 .. g0 + n - 1 */
    int64_t *rows = arena_alloc(st->os_batch, sizeof(int64_t) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
      rows[i] = g0 + i;
    for (int k = 0; k < h->sr_p->oh_ngroup; k++)
      rs_gather(&h->oh_groups, k, rows, n, &b->b_cols[k], 0);
  }
  for (int i = 0; i < h->sr_p->oh_nagg; i++) {
    const agg_spec_t *ag = &h->sr_p->oh_aggs[i];
    const agg_state_t *states = h->oh_run[i].ar_states + g0;
    vec_t *v = &b->b_cols[h->sr_p->oh_ngroup + i];
    for (int r = 0; r < n; r++) {
      datum_t d;
      if (agg_final(ag, &states[r], &d, e) != CZ_OK)
        return CZ_ERR;
      vec_set(v, r, &d);
    }
  }
  b->b_n = n;
  out->ob_b = b;
  out->ob_n = n;
  return CZ_OK;
}

static void hashagg_close(const op_t *o, opst_t *st, qctx_t *q)
{
  agg_drop_parts((hashagg_run_t *)st);
  op_close(o->o_in, q);
}

static char *hashagg_detail(const op_t *o, arena_t *a)
{
  const op_hashagg_t *h = (const op_hashagg_t *)o;
  return arena_sprintf(a, "%s%d keys, %d aggregates", h->oh_mode ? h->oh_mode : "",
                       h->oh_ngroup, h->oh_nagg);
}

void op_hashagg_set_mode(op_t *o, const char *mode)
{
  ((op_hashagg_t *)o)->oh_mode = mode;
}

static const op_vt_t hashagg_vt = {
    .ov_name = "HashAggregate",
    .ov_open = hashagg_open,
    .ov_next = hashagg_next,
    .ov_close = hashagg_close,
    .ov_detail = hashagg_detail,
    .ov_run_size = sizeof(hashagg_run_t),
};

op_t *op_hashagg_new(arena_t *a, op_t *in, int ngroup, xnode_t **group, int nagg,
                     const agg_spec_t *aggs)
{
  op_hashagg_t *h = arena_zalloc(a, sizeof(*h));
  int n = ngroup + nagg;
  ty_t types[n > 0 ? n : 1];
  for (int k = 0; k < ngroup; k++)
    types[k] = group[k]->x_type;
  for (int i = 0; i < nagg; i++)
    types[ngroup + i] = aggs[i].ag_type;
  op_init(&h->oh_op, &hashagg_vt, a, n, types, in, NULL);
  h->oh_ngroup = ngroup;
  h->oh_group = group;
  h->oh_nagg = nagg;
  h->oh_aggs = arena_alloc(a, sizeof(agg_spec_t) * (size_t)(nagg ? nagg : 1));
  if (nagg)
    memcpy(h->oh_aggs, aggs, sizeof(agg_spec_t) * (size_t)nagg);
  /* The evaluated row: the keys, then each aggregate's arguments. */
  h->oh_ai = arena_alloc(a, sizeof(int) * (size_t)(nagg + 1));
  h->oh_ai2 = arena_alloc(a, sizeof(int) * (size_t)(nagg + 1));
  h->oh_evtypes = arena_alloc(a, sizeof(ty_t) * (size_t)(ngroup + 2 * nagg + 1));
  int nev = 0;
  for (int k = 0; k < ngroup; k++)
    h->oh_evtypes[nev++] = group[k]->x_type;
  for (int i = 0; i < nagg; i++) {
    h->oh_ai[i] = h->oh_ai2[i] = -1;
    if (aggs[i].ag_arg) {
      h->oh_ai[i] = nev;
      h->oh_evtypes[nev++] = aggs[i].ag_arg->x_type;
      if (aggs[i].ag_arg2) {
        h->oh_ai2[i] = nev;
        h->oh_evtypes[nev++] = aggs[i].ag_arg2->x_type;
      }
    }
  }
  h->oh_nev = nev;
  return &h->oh_op;
}

int op_hashagg_inputs(const op_t *o, const xnode_t **x)
{
  if (o->o_vt != &hashagg_vt)
    return op_groupagg_inputs(o, x);
  const op_hashagg_t *h = (const op_hashagg_t *)o;
  int n = 0;
  for (int k = 0; k < h->oh_ngroup; k++, n++)
    if (x)
      x[n] = h->oh_group[k];
  for (int i = 0; i < h->oh_nagg; i++) {
    if (h->oh_aggs[i].ag_arg && x)
      x[n] = h->oh_aggs[i].ag_arg;
    n += h->oh_aggs[i].ag_arg != NULL;
    if (h->oh_aggs[i].ag_arg2 && x)
      x[n] = h->oh_aggs[i].ag_arg2;
    n += h->oh_aggs[i].ag_arg2 != NULL;
  }
  return n;
}
