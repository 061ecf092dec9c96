/* op_mergejoin — the merge join: two inputs that come in ascending order
 * of their join keys (op_order: a table's key order, NULLs last) are
 * read side by side, with no hash table. Inner joins, with a residual
 * condition: the planner merges only the inner join of two tables on
 * their keys (LEFT, SEMI and ANTI would need their padding and verdict
 * rules here).
 *
 * Design notes:
 * - The right rows of one key value (a group) are copied into a row store
 *   as they are reached; each left row is compared with the group and
 *   paired with all of it when the keys are equal. A left key above the
 *   group's reads the right input on to the first key not below it, and
 *   that key's rows become the group. A NULL key pairs with nothing; the
 *   right side ends at its first NULL key (they sort last).
 * - A left row's pairs all go into one output batch, so the output keeps
 *   the left input's order (ov_order). The batch grows for a large
 *   group, and ends before the left input's next batch is fetched (its
 *   rows are read from the left batch).
 * - The groups of one output batch stay in the store (pairs point at
 *   them until the batch is assembled); at the next batch the current
 *   group moves to a second store and the first is emptied.
 * - Keys compare as datum_cmp does, the order the key encoding of the
 *   tables keeps (table/README.md invariant 1); both sides' key columns
 *   have one type (the planner's rule). */
#include <string.h>

#include "exec/exec_int.h"

typedef struct op_mjoin_s {
  op_t mj_op;
  int mj_nkeys;
  int *mj_lk, *mj_rk;
  ty_phys_t *mj_kphys;
  xnode_t *mj_cond;             /* over left then right columns */
} op_mjoin_t;

typedef struct mjoin_run_s {
  opst_t mr_st;
  const op_mjoin_t *mr_p;
  obatch_t mr_left;             /* the current left batch (ob_b NULL: none yet) */
  int mr_li;                    /* its next row (index into the selection) */
  bool mr_left_end;
  obatch_t mr_right;            /* the current right batch */
  int mr_ri;
  bool mr_right_end;            /* no right row with a non-NULL key is left */
  arena_t *mr_ar[2];
  rstore_t mr_rs[2];            /* the groups (right rows) */
  int mr_cur;                   /* the store in use */
  bool mr_gvalid;               /* a group is loaded: rows [mr_g0, mr_g0 + mr_gn) */
  int64_t mr_g0, mr_gn;
  batch_t *mr_out;
  int mr_cap;                   /* pair slots of the arrays below */
  int *mr_left_of;              /* per output row: its left row */
  int64_t *mr_right_of;         /* its group row */
  int *mr_sel;
} mjoin_run_t;

static int cell_cmp(ty_phys_t p, const vec_t *a, int ra, const vec_t *b, int rb)
{
  switch (p) {
  case TP_I64:
    return a->v_i64[ra] < b->v_i64[rb] ? -1 : a->v_i64[ra] > b->v_i64[rb];
  case TP_STR: {
    const str_t *x = &a->v_str[ra], *y = &b->v_str[rb];
    int c = memcmp(x->s_ptr, y->s_ptr, CZ_MIN(x->s_len, y->s_len));
    return c ? c : x->s_len < y->s_len ? -1 : x->s_len > y->s_len;
  }
  default: {
    datum_t x, y;
    vec_get(a, ra, &x);
    vec_get(b, rb, &y);
    return datum_cmp(p, &x, &y);
  }
  }
}

static bool key_null(const batch_t *b, const int *cols, int nk, int row)
{
  for (int k = 0; k < nk; k++)
    if (b->b_cols[cols[k]].v_null[row])
      return true;
  return false;
}

/* Left row lrow's key against the right batch's row rrow. */
static int cmp_left_right(const op_mjoin_t *m, const batch_t *l, int lrow, const batch_t *r, int rrow)
{
  for (int k = 0; k < m->mj_nkeys; k++) {
    int c = cell_cmp(m->mj_kphys[k], &l->b_cols[m->mj_lk[k]], lrow, &r->b_cols[m->mj_rk[k]], rrow);
    if (c)
      return c;
  }
  return 0;
}

/* Batch row `row` (key columns cols) against the group's first row. */
static int cmp_group(const mjoin_run_t *j, const batch_t *b, const int *cols, int row)
{
  const op_mjoin_t *m = j->mr_p;
  for (int k = 0; k < m->mj_nkeys; k++) {
    int idx;
    const vec_t *g = rs_col(&j->mr_rs[j->mr_cur], j->mr_g0, m->mj_rk[k], &idx);
    int c = cell_cmp(m->mj_kphys[k], &b->b_cols[cols[k]], row, g, idx);
    if (c)
      return c;
  }
  return 0;
}

static int right_fetch(mjoin_run_t *j, const op_t *o, qctx_t *q, err_t *e)
{
  j->mr_ri = 0;
  if (op_next(o->o_in2, q, &j->mr_right, e) != CZ_OK)
    return CZ_ERR;
  if (!j->mr_right.ob_b)
    j->mr_right_end = true;
  return CZ_OK;
}

/* The right input's current row, fetching on; -1 at its end (or at its
 * first NULL key). */
static int right_row(mjoin_run_t *j, const op_t *o, qctx_t *q, err_t *e)
{
  while (!j->mr_right_end && (!j->mr_right.ob_b || j->mr_ri >= j->mr_right.ob_n))
    if (right_fetch(j, o, q, e) != CZ_OK)
      return -2;
  if (j->mr_right_end)
    return -1;
  int r = j->mr_right.ob_sel ? j->mr_right.ob_sel[j->mr_ri] : j->mr_ri;
  if (key_null(j->mr_right.ob_b, j->mr_p->mj_rk, j->mr_p->mj_nkeys, r)) {
    j->mr_right_end = true;
    return -1;
  }
  return r;
}

/* Reads the right input on to the first key not below left row lrow's
 * and makes that key's rows the group (none at the right input's end). */
static int load_group(mjoin_run_t *j, const op_t *o, qctx_t *q, const batch_t *lb, int lrow, err_t *e)
{
  const op_mjoin_t *m = j->mr_p;
  j->mr_gvalid = false;
  int r;
  while ((r = right_row(j, o, q, e)) >= 0 && cmp_left_right(m, lb, lrow, j->mr_right.ob_b, r) > 0)
    j->mr_ri++;
  if (r == -2)
    return CZ_ERR;
  if (r < 0)
    return CZ_OK;
  rstore_t *rs = &j->mr_rs[j->mr_cur];
  j->mr_g0 = rs->rs_n;
  j->mr_gn = 0;
  if (rs_append_row(rs, j->mr_right.ob_b, r, e) < 0)
    return CZ_ERR;
  j->mr_gn = 1;
  j->mr_gvalid = true;
  j->mr_ri++;
  while ((r = right_row(j, o, q, e)) >= 0 && cmp_group(j, j->mr_right.ob_b, m->mj_rk, r) == 0) {
    if (rs_append_row(rs, j->mr_right.ob_b, r, e) < 0)
      return CZ_ERR;
    j->mr_gn++;
    j->mr_ri++;
  }
  return r == -2 ? CZ_ERR : CZ_OK;
}

/* Whether left row lrow has a partner group; *found set. */
static int find_group(mjoin_run_t *j, const op_t *o, qctx_t *q, int lrow, bool *found, err_t *e)
{
  const op_mjoin_t *m = j->mr_p;
  const batch_t *lb = j->mr_left.ob_b;
  *found = false;
  if (key_null(lb, m->mj_lk, m->mj_nkeys, lrow))
    return CZ_OK;
  if (j->mr_gvalid) {
    int c = cmp_group(j, lb, m->mj_lk, lrow);
    if (c <= 0) {
      *found = c == 0;
      return CZ_OK;
    }
  }
  if (load_group(j, o, q, lb, lrow, e) != CZ_OK)
    return CZ_ERR;
  *found = j->mr_gvalid && cmp_group(j, lb, m->mj_lk, lrow) == 0;
  return CZ_OK;
}

/* A new output batch: the current group moves to the other store, the
 * groups before it are dropped. */
static int restart_stores(mjoin_run_t *j, const op_t *o, err_t *e)
{
  rstore_t *from = &j->mr_rs[j->mr_cur];
  if (j->mr_gvalid ? j->mr_g0 == 0 && from->rs_n == j->mr_gn : from->rs_n == 0)
    return CZ_OK;  /* nothing to drop */
  int to = 1 - j->mr_cur;
  arena_reset(j->mr_ar[to]);
  rs_init(&j->mr_rs[to], j->mr_ar[to], o->o_in2->o_ncols, o->o_in2->o_types);
  if (j->mr_gvalid) {
    batch_t *tmp = batch_create(j->mr_st.os_batch, o->o_in2->o_ncols, o->o_in2->o_types,
                                (int)j->mr_gn, e);
    if (!tmp)
      return CZ_ERR;
    int64_t *rows = arena_alloc(j->mr_st.os_batch, sizeof(int64_t) * (size_t)j->mr_gn);
    for (int64_t i = 0; i < j->mr_gn; i++)
      rows[i] = j->mr_g0 + i;
    for (int c = 0; c < o->o_in2->o_ncols; c++)
      rs_gather(from, c, rows, (int)j->mr_gn, &tmp->b_cols[c], 0);
    tmp->b_n = (int)j->mr_gn;
    if (rs_append_rows(&j->mr_rs[to], tmp, NULL, (int)j->mr_gn, e) < 0)
      return CZ_ERR;
    j->mr_g0 = 0;
  }
  j->mr_cur = to;
  return CZ_OK;
}

static int mj_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  mjoin_run_t *j = (mjoin_run_t *)st;
  j->mr_p = (const op_mjoin_t *)o;
  if (!j->mr_ar[0]) {
    /* children of os_state: reset with it at every open */
    j->mr_ar[0] = arena_create(st->os_state, "MergeJoin group");
    j->mr_ar[1] = arena_create(st->os_state, "MergeJoin group");
  }
  for (int i = 0; i < 2; i++)
    rs_init(&j->mr_rs[i], j->mr_ar[i], o->o_in2->o_ncols, o->o_in2->o_types);
  j->mr_cur = 0;
  j->mr_gvalid = false;
  j->mr_left.ob_b = j->mr_right.ob_b = NULL;
  j->mr_left.ob_n = j->mr_right.ob_n = 0;
  j->mr_li = j->mr_ri = 0;
  j->mr_left_end = j->mr_right_end = false;
  j->mr_cap = 0;
  if (op_open(o->o_in, q, e) != CZ_OK)
    return CZ_ERR;
  return op_open(o->o_in2, q, e);
}

static int left_fetch(mjoin_run_t *j, const op_t *o, qctx_t *q, err_t *e)
{
  j->mr_li = 0;
  if (op_next(o->o_in, q, &j->mr_left, e) != CZ_OK)
    return CZ_ERR;
  if (!j->mr_left.ob_b)
    j->mr_left_end = true;
  return CZ_OK;
}

/* Room for `need` output rows in the pair arrays, the ones filled kept. */
static int grow(mjoin_run_t *j, int need, err_t *e)
{
  if (need <= j->mr_cap)
    return CZ_OK;
  int cap = CZ_MAX(need, 2 * j->mr_cap);
  arena_t *a = j->mr_st.os_state;
  int *left_of = arena_try_alloc(a, sizeof(int) * (size_t)cap);
  int64_t *right_of = arena_try_alloc(a, sizeof(int64_t) * (size_t)cap);
  int *sel = arena_try_alloc(a, sizeof(int) * (size_t)cap);
  if (!left_of || !right_of || !sel)
    return op_alloc_error(a, e);
  if (j->mr_cap) {
    memcpy(left_of, j->mr_left_of, sizeof(int) * (size_t)j->mr_cap);
    memcpy(right_of, j->mr_right_of, sizeof(int64_t) * (size_t)j->mr_cap);
  }
  j->mr_left_of = left_of;
  j->mr_right_of = right_of;
  j->mr_sel = sel;
  j->mr_cap = cap;
  return CZ_OK;
}

static int mj_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  mjoin_run_t *j = (mjoin_run_t *)st;
  j->mr_p = (const op_mjoin_t *)o;
  out->ob_b = NULL;
  int vs = q->q_vector_size;
  int nleft = o->o_in->o_ncols, nright = o->o_in2->o_ncols;
  for (;;) {
    if (j->mr_left_end)
      return CZ_OK;
    if (!j->mr_left.ob_b || j->mr_li >= j->mr_left.ob_n) {
      if (left_fetch(j, o, q, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    if (restart_stores(j, o, e) != CZ_OK || grow(j, vs, e) != CZ_OK)
      return CZ_ERR;
    /* each left row's pairs, for as many rows of the left batch as fit */
    int n = 0;
    const obatch_t *l = &j->mr_left;
    while (n < vs && j->mr_li < l->ob_n) {
      int row = l->ob_sel ? l->ob_sel[j->mr_li] : j->mr_li;
      bool found;
      if (find_group(j, o, q, row, &found, e) != CZ_OK)
        return CZ_ERR;
      j->mr_li++;
      if (!found)
        continue;
      if (grow(j, n + (int)j->mr_gn, e) != CZ_OK)
        return CZ_ERR;
      for (int64_t k = 0; k < j->mr_gn; k++) {
        j->mr_left_of[n] = row;
        j->mr_right_of[n++] = j->mr_g0 + k;
      }
    }
    if (n == 0)
      continue;
    batch_t *b = op_keep_batch(o, q, &j->mr_out, n, e);
    if (!b)
      return CZ_ERR;
    for (int c = 0; c < nleft; c++)
      vec_gather(&b->b_cols[c], 0, &l->ob_b->b_cols[c], j->mr_left_of, n);
    for (int c = 0; c < nright; c++)
      rs_gather(&j->mr_rs[j->mr_cur], c, j->mr_right_of, n, &b->b_cols[nleft + c], 0);
    b->b_n = n;
    int ns = n;
    if (j->mr_p->mj_cond) {
      xctx_t xc;
      op_xctx(q, st->os_batch, &xc);
      if (xeval_filter(&xc, j->mr_p->mj_cond, b, NULL, n, j->mr_sel, &ns, e) != CZ_OK)
        return CZ_ERR;
    } else {
      for (int i = 0; i < n; i++)
        j->mr_sel[i] = i;
    }
    if (ns == 0)
      continue;
    out->ob_b = b;
    out->ob_sel = j->mr_sel;
    out->ob_n = ns;
    return CZ_OK;
  }
}

static void mj_close(const op_t *o, opst_t *st, qctx_t *q)
{
  (void)st;
  op_close(o->o_in, q);
  op_close(o->o_in2, q);
}

static char *mj_detail(const op_t *o, arena_t *a)
{
  const op_mjoin_t *m = (const op_mjoin_t *)o;
  char *t = arena_strdup(a, "inner");
  for (int k = 0; k < m->mj_nkeys; k++)
    t = arena_sprintf(a, "%s%s $%d = $%d", t, k ? " and" : " on", m->mj_lk[k] + 1,
                      o->o_in->o_ncols + m->mj_rk[k] + 1);
  if (m->mj_cond)
    t = arena_sprintf(a, "%s filter", t);
  return t;
}

static const op_vt_t mjoin_vt = {
    .ov_name = "MergeJoin",
    .ov_open = mj_open,
    .ov_next = mj_next,
    .ov_close = mj_close,
    .ov_detail = mj_detail,
    .ov_run_size = sizeof(mjoin_run_t),
    .ov_pass_col = op_pass_left_col,
    .ov_order = op_order_pass,
};

op_t *op_mergejoin_new(arena_t *a, op_t *left, op_t *right, int nkeys, const int *lk,
                       const int *rk, xnode_t *cond)
{
  op_mjoin_t *m = arena_zalloc(a, sizeof(*m));
  int n = left->o_ncols + right->o_ncols;
  ty_t types[n > 0 ? n : 1];
  memcpy(types, left->o_types, sizeof(ty_t) * (size_t)left->o_ncols);
  memcpy(types + left->o_ncols, right->o_types, sizeof(ty_t) * (size_t)right->o_ncols);
  op_init(&m->mj_op, &mjoin_vt, a, n, types, left, right);
  m->mj_nkeys = nkeys;
  m->mj_lk = arena_alloc(a, sizeof(int) * (size_t)nkeys);
  m->mj_rk = arena_alloc(a, sizeof(int) * (size_t)nkeys);
  m->mj_kphys = arena_alloc(a, sizeof(ty_phys_t) * (size_t)nkeys);
  memcpy(m->mj_lk, lk, sizeof(int) * (size_t)nkeys);
  memcpy(m->mj_rk, rk, sizeof(int) * (size_t)nkeys);
  for (int k = 0; k < nkeys; k++)
    m->mj_kphys[k] = ty_phys(left->o_types[lk[k]].t_id);
  m->mj_cond = cond;
  return &m->mj_op;
}
