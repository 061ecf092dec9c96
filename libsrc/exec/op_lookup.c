/* op_lookup — index nested-loop join on a whole primary key (INNER,
 * LEFT, and SEMI / ANTI returning the left rows with / without a
 * passing match): for each
 * left batch, the key values of its rows are looked up in the table in
 * one vectored call (the table layer sorts them and walks the tree
 * once), and each left row is joined with its match (at most one: the
 * key is unique). No build side is materialised. */
#include <string.h>

#include "exec/exec_int.h"

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
} op_lookup_t;

/* Its run state: the joined batch, made once per execution (in its
 * arena: it outlives opens) and reused. */
typedef struct lookup_run_s {
  opst_t lr_st;
  batch_t *lr_out;
  int lr_cap;                   /* rows lr_out holds */
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
  (void)st;
  if (!((const qtable_t *)l->ol_table)->qt_ops->qt_lookup)
    return err_set(e, SQLSTATE_INTERNAL, "no key lookups in this context");
  return op_open(o->o_in, q, e);
}

static int lookup_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_lookup_t *l = (const op_lookup_t *)o;
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
static const op_vt_t lookup_vt = {"LookupJoin",         lookup_open,      lookup_next,
                                  NULL,                 lookup_detail,    sizeof(lookup_run_t),
                                  op_pass_left_col, op_order_pass};
static const op_vt_t lookup_semi_vt = {"LookupSemiJoin",     lookup_open,   lookup_next,
                                       NULL,                 lookup_detail, sizeof(lookup_run_t),
                                       op_pass_left_col, op_order_pass};
static const op_vt_t lookup_anti_vt = {"LookupAntiJoin",     lookup_open,   lookup_next,
                                       NULL,                 lookup_detail, sizeof(lookup_run_t),
                                       op_pass_left_col, op_order_pass};

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
  return &l->ol_op;
}
