/* op_groupsets — GROUP BY GROUPING SETS (ROLLUP, CUBE): one hash group-by
 * per grouping set over the input read once.
 *
 * Design notes: the input is kept in a row store (os_state, charged to
 * MaxQueryMem like every materialising operator); each set's group-by is
 * an ordinary op_hashagg_new over a Replay leaf that returns the kept
 * rows, so aggregation has one implementation. The sets run one after
 * the other; each output batch shares the group-by's vectors and adds a
 * NULL vector for every key the set does not group by and a constant
 * vector for every GROUPING(…) value. A set with no keys gives its one
 * row even over empty input, as PostgreSQL's () set does. */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/exec_ql.h"

typedef struct op_groupsets_s op_groupsets_t;

typedef struct op_replay_s {
  op_t rp_op;
  op_groupsets_t *rp_src;
} op_replay_t;

typedef struct replay_run_s {
  opst_t rp_st;
  int64_t rp_pos;
} replay_run_t;

struct op_groupsets_s {
  op_t gs_op;
  int gs_nkeys, gs_nsets, gs_nagg, gs_ngrp;
  const int *gs_set_nkeys;
  int *const *gs_set_keys;
  const int32_t *gs_grp;
  op_t **gs_aggs;               /* one group-by per set */
};

/* Read by the Replay leaves below (the same execution). */
typedef struct groupsets_run_s {
  opst_t gs_st;
  rstore_t gs_rows;
  int gs_set;                   /* the set running */
} groupsets_run_t;

static int rp_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  ((replay_run_t *)st)->rp_pos = 0;
  if (!op_state(&((const op_replay_t *)o)->rp_src->gs_op, q))
    return err_set(e, SQLSTATE_INTERNAL, "replay without its grouping sets");
  return CZ_OK;
}

static int rp_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  replay_run_t *r = (replay_run_t *)st;
  const groupsets_run_t *src =
      (const groupsets_run_t *)op_state(&((const op_replay_t *)o)->rp_src->gs_op, q);
  const rstore_t *rs = &src->gs_rows;
  if (r->rp_pos >= rs->rs_n)
    return CZ_OK;
  batch_t *b = op_new_batch(o, st, q, e);
  if (!b)
    return CZ_ERR;
  int n = 0;
  while (n < q->q_vector_size && r->rp_pos < rs->rs_n)
    rs_copy_out(rs, r->rp_pos++, b, n++, 0);
  b->b_n = n;
  out->ob_b = b;
  out->ob_n = n;
  return CZ_OK;
}

static const op_vt_t replay_vt = {
    .ov_name = "Replay",
    .ov_open = rp_open,
    .ov_next = rp_next,
    .ov_run_size = sizeof(replay_run_t),
};

static int gs_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_groupsets_t *gp = (const op_groupsets_t *)o;
  groupsets_run_t *g = (groupsets_run_t *)st;
  const op_t *in = o->o_in;
  rs_init(&g->gs_rows, st->os_state, in->o_ncols, in->o_types);
  g->gs_set = 0;
  if (rs_fill(&g->gs_rows, in, q, st->os_state, e) != CZ_OK)
    return CZ_ERR;
  return op_open(gp->gs_aggs[0], q, e);
}

static int gs_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_groupsets_t *g = (const op_groupsets_t *)o;
  groupsets_run_t *gr = (groupsets_run_t *)st;
  while (gr->gs_set < g->gs_nsets) {
    int s = gr->gs_set;
    obatch_t hb;
    if (op_next(g->gs_aggs[s], q, &hb, e) != CZ_OK)
      return CZ_ERR;
    if (!hb.ob_b) {
      op_close(g->gs_aggs[s], q);
      if (++gr->gs_set < g->gs_nsets && op_open(g->gs_aggs[gr->gs_set], q, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    if (hb.ob_n == 0)
      continue;
    int cap = hb.ob_b->b_n > 0 ? hb.ob_b->b_n : 1;
    batch_t *b = arena_zalloc(st->os_batch, sizeof(*b));
    b->b_ncols = o->o_ncols;
    b->b_n = hb.ob_b->b_n;
    b->b_cols = arena_zalloc(st->os_batch, sizeof(vec_t) * (size_t)o->o_ncols);
    int nk = g->gs_set_nkeys[s];
    for (int k = 0; k < g->gs_nkeys; k++) {
      int j;
      for (j = 0; j < nk && g->gs_set_keys[s][j] != k; j++)
        ;
      if (j < nk) {
        b->b_cols[k] = hb.ob_b->b_cols[j];
        continue;
      }
      if (vec_init(&b->b_cols[k], st->os_batch, o->o_types[k], cap, e) != CZ_OK)
        return CZ_ERR;
      memset(b->b_cols[k].v_null, 1, (size_t)cap);
    }
    for (int a = 0; a < g->gs_nagg; a++)
      b->b_cols[g->gs_nkeys + a] = hb.ob_b->b_cols[nk + a];
    for (int c = 0; c < g->gs_ngrp; c++) {
      vec_t *v = &b->b_cols[g->gs_nkeys + g->gs_nagg + c];
      if (vec_init(v, st->os_batch, o->o_types[g->gs_nkeys + g->gs_nagg + c], cap, e) != CZ_OK)
        return CZ_ERR;
      datum_t d;
      memset(&d, 0, sizeof(d));
      d.d_i64 = g->gs_grp[s * g->gs_ngrp + c];
      for (int i = 0; i < cap; i++)
        vec_set(v, i, &d);
    }
    out->ob_b = b;
    out->ob_sel = hb.ob_sel;
    out->ob_n = hb.ob_n;
    return CZ_OK;
  }
  return CZ_OK;
}

static void gs_close(const op_t *o, opst_t *st, qctx_t *q)
{
  const op_groupsets_t *g = (const op_groupsets_t *)o;
  (void)st;
  op_close(o->o_in, q);
  for (int s = 0; s < g->gs_nsets; s++)
    op_close(g->gs_aggs[s], q);
}

static char *gs_detail(const op_t *o, arena_t *a)
{
  return arena_sprintf(a, "(%d sets)", ((const op_groupsets_t *)o)->gs_nsets);
}

static const op_vt_t groupsets_vt = {
    .ov_name = "GroupingSets",
    .ov_open = gs_open,
    .ov_next = gs_next,
    .ov_close = gs_close,
    .ov_detail = gs_detail,
    .ov_run_size = sizeof(groupsets_run_t),
};

op_t *op_groupsets_new(arena_t *a, op_t *in, int nkeys, xnode_t **keys, int nsets,
                       const int *set_nkeys, int *const *set_keys, int nagg,
                       const agg_spec_t *aggs, int ngrp, const int32_t *grp)
{
  op_groupsets_t *g = arena_zalloc(a, sizeof(*g));
  int nc = nkeys + nagg + ngrp;
  ty_t *types = arena_alloc(a, sizeof(ty_t) * (size_t)(nc + 1));
  for (int k = 0; k < nkeys; k++)
    types[k] = keys[k]->x_type;
  for (int i = 0; i < nagg; i++)
    types[nkeys + i] = aggs[i].ag_type;
  for (int i = 0; i < ngrp; i++)
    types[nkeys + nagg + i] = ty_plain(TY_INT4);
  op_init(&g->gs_op, &groupsets_vt, a, nc, types, in, NULL);
  g->gs_nkeys = nkeys;
  g->gs_nsets = nsets;
  g->gs_nagg = nagg;
  g->gs_ngrp = ngrp;
  g->gs_set_nkeys = set_nkeys;
  g->gs_set_keys = set_keys;
  g->gs_grp = grp;
  g->gs_aggs = arena_alloc(a, sizeof(op_t *) * (size_t)(nsets + 1));
  for (int s = 0; s < nsets; s++) {
    op_replay_t *r = arena_zalloc(a, sizeof(*r));
    op_init(&r->rp_op, &replay_vt, a, in->o_ncols, in->o_types, NULL, NULL);
    r->rp_src = g;
    xnode_t **sk = arena_alloc(a, sizeof(xnode_t *) * (size_t)(set_nkeys[s] + 1));
    for (int j = 0; j < set_nkeys[s]; j++)
      sk[j] = keys[set_keys[s][j]];
    g->gs_aggs[s] = op_hashagg_new(a, &r->rp_op, set_nkeys[s], sk, nagg, aggs);
  }
  return &g->gs_op;
}
