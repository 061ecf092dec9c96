/* op_groupagg — GROUP BY over input whose rows come grouped (each group's
 * rows one after another: a scan in the order of an index that starts
 * with the group keys): a streaming group-by with no hash table. A group
 * ends where the keys change; its row goes out then.
 *
 * Design notes:
 * - The planner (opt_group.c) uses it when op_order says the input comes
 *   sorted by the group keys (in any order of them, constant columns
 *   aside): rows equal as group keys (NULLs equal, NUMERIC 1.0 and 1.00
 *   equal) are equal in the index's key encoding too, so they are
 *   adjacent. Under a Gather each thread runs one, over a scan split so
 *   that no group spans two morsels (op_scan_set_align): every thread's
 *   groups are whole and distinct from the others', and the Gather's
 *   union is the answer — no final group-by.
 * - Per input batch: each row is compared with the one before (the
 *   first with the group still open from the last batch, whose key is
 *   kept here); the rows get group numbers 0.. (0 the open group when
 *   the batch continues it), the aggregates accumulate over the whole
 *   batch (aggv_accum's typed loops, agg_step otherwise), and every group
 *   but the batch's last is complete and goes out. The last stays open:
 *   its state moves to slot 0 and its key is copied (strings into one of
 *   two arenas used in turn: the key of the group returned now must
 *   outlive this call, the one before it no longer).
 * - Memory: one batch's group states; nothing grows with the groups, so
 *   nothing spills. Aggregates that keep text in their state (min / max
 *   of text, string_agg) and DISTINCT ones are not taken
 *   (op_groupagg_ok): the hash group-by runs them.
 * - Output rows point into the input batch (keys) and into this call's
 *   batch arena; both live until the next call.
 */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/op_hashagg_vec.h"

typedef struct op_groupagg_s {
  op_t ga_op;
  int ga_ngroup;
  xnode_t **ga_group;
  int ga_nagg;
  agg_spec_t *ga_aggs;
  int ga_nev;                   /* the evaluated row: keys, then arguments */
  int *ga_ai;                   /* per aggregate: its argument's column there, -1 none */
} op_groupagg_t;

typedef struct groupagg_run_s {
  opst_t sr_st;
  agg_state_t **gr_st;          /* per aggregate: states of the batch's groups */
  int64_t *gr_grp;              /* per row of the batch: its group */
  int *gr_first;                /* per group: its first row */
  int gr_cap;                   /* rows / groups those hold */
  bool gr_open;                 /* a group is open (slot 0, key gr_key) */
  datum_t *gr_key;              /* the open group's key values */
  arena_t *gr_keya[2];          /* their strings, the arenas taken in turn */
  int gr_kcur;                  /* the arena gr_key's strings are in */
  bool gr_eof;                  /* the input has ended */
} groupagg_run_t;

bool op_groupagg_ok(int nagg, const agg_spec_t *aggs)
{
  for (int i = 0; i < nagg; i++) {
    const agg_spec_t *a = &aggs[i];
    if (a->ag_distinct || a->ag_arg2 || a->ag_kind == XAGG_STRING_AGG)
      return false;
    if ((a->ag_kind == XAGG_MIN || a->ag_kind == XAGG_MAX) && a->ag_arg &&
        ty_phys(a->ag_arg->x_type.t_id) == TP_STR)
      return false;
  }
  return true;
}

static int groupagg_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  groupagg_run_t *r = (groupagg_run_t *)st;
  const op_groupagg_t *p = (const op_groupagg_t *)o;
  /* children of os_state, made once: reset with it at every open */
  if (!r->gr_keya[0]) {
    r->gr_keya[0] = arena_create(st->os_state, "GroupAggregate key");
    r->gr_keya[1] = arena_create(st->os_state, "GroupAggregate key");
  }
  r->gr_kcur = 0;
  r->gr_key = arena_zalloc(st->os_state, sizeof(datum_t) * (size_t)(p->ga_ngroup + 1));
  r->gr_st = arena_zalloc(st->os_state, sizeof(agg_state_t *) * (size_t)(p->ga_nagg + 1));
  r->gr_cap = 0;
  r->gr_open = false;
  r->gr_eof = false;
  return op_open(o->o_in, q, e);
}

/* Room for a batch of n rows (and as many groups); the open group's
 * states (slot 0) kept. */
static int ga_room(const op_groupagg_t *p, groupagg_run_t *r, int n, err_t *e)
{
  if (n + 1 <= r->gr_cap)
    return CZ_OK;
  arena_t *a = r->sr_st.os_state;
  int cap = CZ_MAX(n + 1, 2 * r->gr_cap);
  for (int i = 0; i < p->ga_nagg; i++) {
    agg_state_t *s = arena_try_zalloc(a, sizeof(agg_state_t) * (size_t)cap);
    if (!s)
      return op_alloc_error(a, e);
    if (r->gr_cap)
      s[0] = r->gr_st[i][0];
    r->gr_st[i] = s;
  }
  r->gr_grp = arena_alloc(a, sizeof(int64_t) * (size_t)cap);
  r->gr_first = arena_alloc(a, sizeof(int) * (size_t)cap);
  r->gr_cap = cap;
  return CZ_OK;
}

/* One column of the evaluated row: a plain column reference shares the
 * input's vector, anything else is evaluated (as the hash group-by does). */
static int ga_eval(opst_t *st, xctx_t *xc, const xnode_t *x, const obatch_t *in, vec_t *out,
                   err_t *e)
{
  if (x->x_kind == X_COL && x->x_index >= 0 && x->x_index < in->ob_b->b_ncols &&
      ty_phys(in->ob_b->b_cols[x->x_index].v_type.t_id) == ty_phys(x->x_type.t_id)) {
    *out = in->ob_b->b_cols[x->x_index];
    out->v_type = x->x_type;
    return CZ_OK;
  }
  if (vec_init(out, st->os_batch, x->x_type, in->ob_b->b_n, e) != CZ_OK)
    return CZ_ERR;
  return xeval(xc, x, in->ob_b, in->ob_sel, in->ob_n, out, e);
}

/* Whether row `row` of the evaluated keys equals the open group's key. */
static bool ga_same_open(const groupagg_run_t *r, int ngroup, const batch_t *ev, int row)
{
  for (int k = 0; k < ngroup; k++) {
    const vec_t *v = &ev->b_cols[k];
    const datum_t *o = &r->gr_key[k];
    if (v->v_null[row] || o->d_null) {
      if (!(v->v_null[row] && o->d_null))
        return false;
      continue;
    }
    datum_t d;
    vec_get(v, row, &d);
    if (datum_cmp_t(v->v_type.t_id, &d, o) != 0)
      return false;
  }
  return true;
}

/* The open group's key becomes row `row` of the evaluated keys, its
 * strings copied into the arena not holding the key returned last. */
static int ga_keep_key(groupagg_run_t *r, int ngroup, const batch_t *ev, int row, err_t *e)
{
  int next = 1 - r->gr_kcur;
  arena_t *a = r->gr_keya[next];
  arena_reset(a);
  for (int k = 0; k < ngroup; k++) {
    datum_t d;
    vec_get(&ev->b_cols[k], row, &d);
    if (!d.d_null && ty_phys(ev->b_cols[k].v_type.t_id) == TP_STR && d.d_str.s_len > 0) {
      char *s = arena_try_alloc(a, d.d_str.s_len);
      if (!s)
        return op_alloc_error(a, e);
      memcpy(s, d.d_str.s_ptr, d.d_str.s_len);
      d.d_str.s_ptr = s;
    }
    r->gr_key[k] = d;
  }
  r->gr_kcur = next;
  return CZ_OK;
}

/* Output groups [0, n) of the batch: keys from the open group's copy
 * (group 0 when `carried`) or from the group's first row, then each
 * aggregate's final value. */
static int ga_emit(const op_groupagg_t *p, groupagg_run_t *r, qctx_t *q, const batch_t *ev, int n,
                   bool carried, obatch_t *out, err_t *e)
{
  (void)q;
  opst_t *st = &r->sr_st;
  batch_t *b = batch_create(st->os_batch, p->ga_op.o_ncols, p->ga_op.o_types, n, e);
  if (!b)
    return CZ_ERR;
  for (int k = 0; k < p->ga_ngroup; k++) {
    vec_t *v = &b->b_cols[k];
    int g = 0;
    if (carried)
      vec_set(v, g++, &r->gr_key[k]);
    if (g < n)
      vec_gather(v, g, &ev->b_cols[k], r->gr_first + g, n - g);
  }
  for (int i = 0; i < p->ga_nagg; i++) {
    vec_t *v = &b->b_cols[p->ga_ngroup + i];
    for (int g = 0; g < n; g++) {
      datum_t d;
      if (agg_final(&p->ga_aggs[i], &r->gr_st[i][g], &d, e) != CZ_OK)
        return CZ_ERR;
      vec_set(v, g, &d);
    }
  }
  b->b_n = n;
  out->ob_b = b;
  out->ob_n = n;
  return CZ_OK;
}

/* One input batch: rows to groups, aggregates accumulated, the complete
 * groups out (out->ob_b NULL when the batch only continued the open
 * group). */
static int ga_batch(const op_groupagg_t *p, groupagg_run_t *r, qctx_t *q, const obatch_t *in,
                    obatch_t *out, err_t *e)
{
  opst_t *st = &r->sr_st;
  xctx_t xc;
  op_xctx(q, st->os_batch, &xc);
  int n = in->ob_n;
  const int *sel = in->ob_sel;
  batch_t ev = {.b_n = in->ob_b->b_n, .b_ncols = p->ga_nev};
  ev.b_cols = arena_alloc(st->os_batch, sizeof(vec_t) * (size_t)(p->ga_nev + 1));
  for (int k = 0; k < p->ga_ngroup; k++)
    if (ga_eval(st, &xc, p->ga_group[k], in, &ev.b_cols[k], e) != CZ_OK)
      return CZ_ERR;
  for (int i = 0; i < p->ga_nagg; i++)
    if (p->ga_ai[i] >= 0 &&
        ga_eval(st, &xc, p->ga_aggs[i].ag_arg, in, &ev.b_cols[p->ga_ai[i]], e) != CZ_OK)
      return CZ_ERR;
  if (ga_room(p, r, n, e) != CZ_OK)
    return CZ_ERR;
  ty_phys_t kp[p->ga_ngroup];
  for (int k = 0; k < p->ga_ngroup; k++)
    kp[k] = ty_phys(ev.b_cols[k].v_type.t_id);
  bool carried = r->gr_open;
  int cur = carried ? 0 : -1;
  for (int j = 0, prev = -1; j < n; j++) {
    int row = sel ? sel[j] : j;
    bool same;
    if (prev < 0)
      same = carried && ga_same_open(r, p->ga_ngroup, &ev, row);
    else {
      same = true;
      for (int k = 0; k < p->ga_ngroup && same; k++)
        same = vec_cell_eq(kp[k], &ev.b_cols[k], row, &ev.b_cols[k], prev);
    }
    if (!same) {
      cur++;
      r->gr_first[cur] = row;
      for (int i = 0; i < p->ga_nagg; i++)
        memset(&r->gr_st[i][cur], 0, sizeof(agg_state_t));
    }
    r->gr_grp[j] = cur;
    prev = row;
  }
  for (int i = 0; i < p->ga_nagg; i++) {
    const agg_spec_t *ag = &p->ga_aggs[i];
    const vec_t *v = p->ga_ai[i] >= 0 ? &ev.b_cols[p->ga_ai[i]] : NULL;
    int rc = aggv_accum(ag, r->gr_st[i], r->gr_grp, v, sel, n, st->os_state, e);
    if (rc < 0)
      return CZ_ERR;
    for (int j = 0; rc == 0 && j < n; j++)
      if (agg_step(st->os_state, q, ag, &r->gr_st[i][r->gr_grp[j]], v, NULL, sel ? sel[j] : j,
                   e) != CZ_OK)
        return CZ_ERR;
  }
  /* groups 0 .. cur - 1 are complete, cur stays open */
  out->ob_b = NULL;
  if (cur > 0 && ga_emit(p, r, q, &ev, cur, carried, out, e) != CZ_OK)
    return CZ_ERR;
  if (cur > 0 || !carried) {
    for (int i = 0; i < p->ga_nagg; i++)
      r->gr_st[i][0] = r->gr_st[i][cur];
    if (ga_keep_key(r, p->ga_ngroup, &ev, r->gr_first[cur], e) != CZ_OK)
      return CZ_ERR;
  }
  r->gr_open = true;
  return CZ_OK;
}

static int groupagg_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_groupagg_t *p = (const op_groupagg_t *)o;
  groupagg_run_t *r = (groupagg_run_t *)st;
  memset(out, 0, sizeof(*out));
  while (!r->gr_eof) {
    arena_reset(st->os_batch);
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b) {
      r->gr_eof = true;
      break;
    }
    if (in.ob_n <= 0)
      continue;
    if (ga_batch(p, r, q, &in, out, e) != CZ_OK)
      return CZ_ERR;
    if (out->ob_b)
      return CZ_OK;
  }
  if (!r->gr_open)
    return CZ_OK;
  /* the input ended: the open group is complete */
  r->gr_open = false;
  arena_reset(st->os_batch);
  batch_t none = {.b_n = 0, .b_ncols = 0};
  return ga_emit(p, r, q, &none, 1, true, out, e);
}

static void groupagg_close(const op_t *o, opst_t *st, qctx_t *q)
{
  (void)st;
  op_close(o->o_in, q);
}

static char *groupagg_detail(const op_t *o, arena_t *a)
{
  const op_groupagg_t *p = (const op_groupagg_t *)o;
  return arena_sprintf(a, "%d keys, %d aggregates, input in key order", p->ga_ngroup, p->ga_nagg);
}

/* The groups come out in their input's order: the input's sorted keys
 * that are group keys (up to the first that is not) are the output's, and
 * the output holds one row per group. */
static void groupagg_order(const op_t *o, op_order_t *out)
{
  const op_groupagg_t *p = (const op_groupagg_t *)o;
  op_order_t in;
  op_order(o->o_in, &in);
  out->oo_n = out->oo_nconst = 0;
  out->oo_unique = false;
  int nvar = 0;                 /* group keys not constant */
  for (int k = 0; k < p->ga_ngroup; k++) {
    const xnode_t *x = p->ga_group[k];
    bool fixed = false;
    for (int c = 0; x->x_kind == X_COL && c < in.oo_nconst && !fixed; c++)
      fixed = in.oo_const[c] == x->x_index;
    if (fixed && out->oo_nconst < OP_ORDER_MAX)
      out->oo_const[out->oo_nconst++] = k;
    nvar += !fixed;
  }
  for (int i = 0; i < in.oo_n; i++) {
    int at = -1;
    for (int k = 0; k < p->ga_ngroup && at < 0; k++)
      if (p->ga_group[k]->x_kind == X_COL && p->ga_group[k]->x_index == in.oo_keys[i].sk_col)
        at = k;
    if (at < 0)
      break;
    out->oo_keys[out->oo_n] = in.oo_keys[i];
    out->oo_keys[out->oo_n++].sk_col = at;
  }
  /* distinct groups: unique on all their keys, or on the input's unique
   * order when all of it is kept */
  out->oo_unique = out->oo_n == nvar || (in.oo_unique && out->oo_n == in.oo_n);
}

static const op_vt_t groupagg_vt = {"GroupAggregate", groupagg_open, groupagg_next,
                                    groupagg_close, groupagg_detail, sizeof(groupagg_run_t),
                                    NULL, groupagg_order};

bool op_is_groupagg(const op_t *o)
{
  return o && o->o_vt == &groupagg_vt;
}

op_t *op_groupagg_new(arena_t *a, op_t *in, int ngroup, xnode_t **group, int nagg,
                      const agg_spec_t *aggs)
{
  if (ngroup <= 0 || !op_groupagg_ok(nagg, aggs))
    return NULL;
  op_groupagg_t *p = arena_zalloc(a, sizeof(*p));
  ty_t types[ngroup + nagg];
  for (int k = 0; k < ngroup; k++)
    types[k] = group[k]->x_type;
  for (int i = 0; i < nagg; i++)
    types[ngroup + i] = aggs[i].ag_type;
  op_init(&p->ga_op, &groupagg_vt, a, ngroup + nagg, types, in, NULL);
  p->ga_ngroup = ngroup;
  p->ga_group = group;
  p->ga_nagg = nagg;
  p->ga_aggs = arena_alloc(a, sizeof(agg_spec_t) * (size_t)(nagg + 1));
  if (nagg)
    memcpy(p->ga_aggs, aggs, sizeof(agg_spec_t) * (size_t)nagg);
  p->ga_ai = arena_alloc(a, sizeof(int) * (size_t)(nagg + 1));
  int nev = ngroup;
  for (int i = 0; i < nagg; i++)
    p->ga_ai[i] = aggs[i].ag_arg ? nev++ : -1;
  p->ga_nev = nev;
  p->ga_op.o_est_rows = in->o_est_rows;
  return &p->ga_op;
}

int op_groupagg_inputs(const op_t *o, const xnode_t **x)
{
  if (!op_is_groupagg(o))
    return -1;
  const op_groupagg_t *p = (const op_groupagg_t *)o;
  int n = 0;
  for (int k = 0; k < p->ga_ngroup; k++, n++)
    if (x)
      x[n] = p->ga_group[k];
  for (int i = 0; i < p->ga_nagg; i++)
    if (p->ga_aggs[i].ag_arg) {
      if (x)
        x[n] = p->ga_aggs[i].ag_arg;
      n++;
    }
  return n;
}
