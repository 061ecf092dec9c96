/* op_modify — INSERT, UPDATE and DELETE: drain the input and hand each
 * batch to the storage hooks; they return no rows, only a count (for the
 * command tag), except under RETURNING, where each changed batch is
 * passed on (the binder projects the RETURNING list over it). One file because the three differ only in the hook.
 *
 * Design notes: READ COMMITTED's re-evaluation (op_dml_set_recheck,
 * PostgreSQL's EvalPlanQual) is a callback the storage makes only for a
 * row another transaction changed after the scan read it, under that
 * row's lock: the block row is rebuilt from the current version (the
 * other tables' columns of a join kept as the input row has them), the
 * WHERE and join conditions tested again, and the batch row rewritten in place (new values,
 * row identity) or marked skipped (left out of the count and RETURNING).
 * Rows nobody changed cost nothing more. */
#include <string.h>

#include "exec/exec_int.h"

typedef enum modify_kind_e { MOD_INSERT, MOD_UPDATE, MOD_DELETE } modify_kind_t;

typedef struct op_modify_s {
  op_t om_op;
  modify_kind_t om_kind;
  void *om_table;
  const char *om_name;
  int om_rid;                   /* DELETE: row identity column */
  const bool *om_set;           /* UPDATE: the columns set (NULL = all) */
  bool om_returning;            /* return the changed batches (RETURNING) */
  bool om_conflict;             /* INSERT … ON CONFLICT */
  int om_conflict_index;        /* its unique index; -1 = all */
  bool om_do_update;            /* DO UPDATE (else DO NOTHING) */
  int om_nc;                    /* DO UPDATE: the table's columns */
  const bool *om_cf_set;        /* DO UPDATE: the columns SET gives */
  xnode_t **om_cf_x;            /* their values, over [existing, locator, excluded] */
  xnode_t *om_cf_where;         /* DO UPDATE … WHERE, or NULL */
  bool om_joined;               /* UPDATE … FROM / DELETE … USING: a row may come
                                   several times (joined to several rows) */
  int om_loc;                   /* then: the locator column */
  int om_nwrite;                /* UPDATE … FROM: the columns the hook sees (the
                                   table's and the locator); the others are for
                                   RETURNING. 0 = all */
  const oplock_recheck_t *om_rk; /* READ COMMITTED recheck; NULL = 40001 */
} op_modify_t;

typedef struct modify_run_s {
  opst_t om_st;
  const op_modify_t *om_plan;   /* for the DO UPDATE evaluation callback */
  qconflict_t *om_cf;           /* the storage's statement state */
  qctx_t *om_q;                 /* the execution (for the evaluation) */
  int64_t om_count;             /* rows changed */
  rset_t om_seen;               /* (om_joined): locators changed so far */
  batch_t *om_in;               /* the batch the hook is changing (recheck) */
  bool *om_skip;                /* its rows the recheck dropped; NULL = none yet */
} modify_run_t;

/* The recheck (qepq_t): row `row` of the batch being written, changed by
 * another transaction; cur its current version (NULL: deleted). */
static int modify_epq(void *ctx, int row, const datum_t *cur, const uint8_t *rid, size_t rid_len,
                      bool *pass, err_t *e)
{
  modify_run_t *r = ctx;
  const oplock_recheck_t *rk = r->om_plan->om_rk;
  arena_t *a = r->om_st.os_batch;
  batch_t *in = r->om_in;
  *pass = false;
  if (!r->om_skip && !(r->om_skip = arena_zalloc(a, (size_t)in->b_n + 1)))
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  r->om_skip[row] = true;
  if (!cur)
    return CZ_OK;
  batch_t *blk = batch_create(a, rk->rk_width, rk->rk_types, 1, e);
  if (!blk)
    return CZ_ERR;
  blk->b_n = 1;
  for (int c = 0; c < rk->rk_width; c++) {
    int k = c - rk->rk_base;
    datum_t d = {.d_null = true};
    if (k >= 0 && k < rk->rk_ncols)
      d = cur[k];
    else if (c < in->b_ncols)
      vec_get(&in->b_cols[c], row, &d);  /* a joined row: held fixed, as PostgreSQL does */
    if (k == rk->rk_ncols) {
      d.d_null = false;
      d.d_str = (str_t){NULL, (uint32_t)rid_len};
      d.d_str.s_ptr = (const char *)rid;
    }
    /* the storage's values live during the call only: strings copied */
    if (!d.d_null && ty_phys(rk->rk_types[c].t_id) == TP_STR && d.d_str.s_len) {
      char *p = arena_alloc(a, d.d_str.s_len);
      memcpy(p, d.d_str.s_ptr, d.d_str.s_len);
      d.d_str.s_ptr = p;
    }
    vec_set(&blk->b_cols[c], 0, &d);
  }
  xctx_t xc;
  op_xctx(r->om_q, a, &xc);
  if (rk->rk_filter) {
    int sel[1], n = 0;
    if (xeval_filter(&xc, rk->rk_filter, blk, NULL, 1, sel, &n, e) != CZ_OK)
      return CZ_ERR;
    if (n == 0)
      return CZ_OK;
  }
  for (int c = 0; c < in->b_ncols; c++) {
    vec_t v;
    datum_t d;
    if (vec_init(&v, a, rk->rk_out[c]->x_type, 1, e) != CZ_OK ||
        xeval(&xc, rk->rk_out[c], blk, NULL, 1, &v, e) != CZ_OK)
      return CZ_ERR;
    vec_get(&v, 0, &d);
    vec_set(&in->b_cols[c], row, &d);
  }
  r->om_skip[row] = false;
  *pass = true;
  return CZ_OK;
}

/* Leaves out of *in the rows the recheck dropped. */
static void modify_drop_skipped(modify_run_t *r, obatch_t *in)
{
  int *kept = arena_alloc(r->om_st.os_batch, sizeof(int) * (size_t)(in->ob_n + 1));
  int n = 0;
  for (int j = 0; j < in->ob_n; j++) {
    int row = in->ob_sel ? in->ob_sel[j] : j;
    if (!r->om_skip[row])
      kept[n++] = row;
  }
  in->ob_sel = kept;
  in->ob_n = n;
}

/* DO UPDATE's SET and WHERE for the proposals sel of b (qcf_eval_t):
 * evaluated, vectored, over [ex's columns and locator, b's columns]. */
static int modify_cf_eval(void *ctx, const batch_t *ex, const batch_t *b, const int *sel, int n,
                          batch_t *newv, bool *ok, err_t *e)
{
  modify_run_t *r = ctx;
  const op_modify_t *m = r->om_plan;
  arena_t *a = r->om_st.os_batch;
  int nc = m->om_nc;
  batch_t row = {.b_n = b->b_n, .b_ncols = 2 * nc + 1};
  row.b_cols = arena_alloc(a, sizeof(vec_t) * (size_t)(2 * nc + 1));
  memcpy(row.b_cols, ex->b_cols, sizeof(vec_t) * (size_t)(nc + 1));
  memcpy(row.b_cols + nc + 1, b->b_cols, sizeof(vec_t) * (size_t)nc);
  xctx_t xc;
  op_xctx(r->om_q, a, &xc);
  const int *pass = sel;
  int np = n;
  if (m->om_cf_where) {
    int *kept = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
    if (xeval_filter(&xc, m->om_cf_where, &row, sel, n, kept, &np, e) != CZ_OK)
      return CZ_ERR;
    pass = kept;
  }
  for (int i = 0; i < n; i++)
    ok[sel[i]] = false;
  for (int i = 0; i < np; i++)
    ok[pass[i]] = true;
  for (int c = 0; c < nc; c++) {
    if (m->om_cf_set[c]) {
      if (xeval(&xc, m->om_cf_x[c], &row, pass, np, &newv->b_cols[c], e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    for (int i = 0; i < np; i++) {
      datum_t d;
      vec_get(&ex->b_cols[c], pass[i], &d);
      vec_set(&newv->b_cols[c], pass[i], &d);
    }
  }
  return CZ_OK;
}

static int modify_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_modify_t *m = (const op_modify_t *)o;
  modify_run_t *r = (modify_run_t *)st;
  r->om_plan = m;
  r->om_count = 0;
  r->om_cf = NULL;
  if (m->om_joined) {
    ty_t *t = arena_alloc(st->os_state, sizeof *t);  /* the set keeps the pointer */
    *t = ty_plain(TY_BYTEA);
    if (rset_init(&r->om_seen, st->os_state, 1, t, e) != CZ_OK)
      return CZ_ERR;
  }
  r->om_q = q;
  if (m->om_conflict) {
    const qtable_ops_t *ops = ((const qtable_t *)m->om_table)->qt_ops;
    if (!ops->qt_conflict_open)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "ON CONFLICT is not supported for this table");
    if (ops->qt_conflict_open(q, m->om_table, m->om_conflict_index,
                              m->om_do_update ? modify_cf_eval : NULL, r, m->om_cf_set,
                              st->os_state, &r->om_cf, e) != CZ_OK)
      return CZ_ERR;
  }
  return op_open(o->o_in, q, e);
}

/* A target row joined to several rows is changed once, with the first of
 * them (PostgreSQL changes it once too, with an arbitrary one): keeps in
 * *in only the rows whose locator is new. */
static int modify_first_only(const op_modify_t *m, modify_run_t *r, obatch_t *in, err_t *e)
{
  batch_t loc = {.b_n = in->ob_b->b_n, .b_ncols = 1, .b_cols = &in->ob_b->b_cols[m->om_loc]};
  int *kept = arena_alloc(r->om_st.os_batch, sizeof(int) * (size_t)(in->ob_n + 1));
  int n = 0;
  for (int j = 0; j < in->ob_n; j++) {
    int row = in->ob_sel ? in->ob_sel[j] : j;
    bool added;
    if (rset_add(&r->om_seen, &loc, row, &added, e) < 0)
      return CZ_ERR;
    if (added)
      kept[n++] = row;
  }
  in->ob_sel = kept;
  in->ob_n = n;
  return CZ_OK;
}

static int modify_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_modify_t *m = (const op_modify_t *)o;
  modify_run_t *mr = (modify_run_t *)st;
  const qtable_ops_t *ops = ((const qtable_t *)m->om_table)->qt_ops;
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      return ops->qt_modify_end ? ops->qt_modify_end(q, m->om_table, e) : CZ_OK;
    if (m->om_joined && modify_first_only(m, mr, &in, e) != CZ_OK)
      return CZ_ERR;
    if (in.ob_n == 0)
      continue;
    int rc;
    qepq_t epq = {modify_epq, mr};
    mr->om_in = in.ob_b;
    mr->om_skip = NULL;
    switch (m->om_kind) {
    case MOD_INSERT:
      if (m->om_conflict) {
        uint8_t *act = arena_alloc(st->os_batch, (size_t)in.ob_b->b_n + 1);
        int *kept = arena_alloc(st->os_batch, sizeof(int) * (size_t)(in.ob_n + 1));
        int nkept = 0;
        batch_t *written;
        rc = ops->qt_conflict_apply(q, mr->om_cf, in.ob_b, in.ob_sel, in.ob_n, act, &written,
                                          st->os_batch, e);
        for (int j = 0; rc == CZ_OK && j < in.ob_n; j++) {
          int r = in.ob_sel ? in.ob_sel[j] : j;
          if (act[r] != QCF_SKIPPED)
            kept[nkept++] = r;
        }
        /* only the rows inserted or updated count and are returned, as written */
        if (rc == CZ_OK)
          in.ob_b = written;
        in.ob_sel = kept;
        in.ob_n = nkept;
      } else
        rc = ops->qt_insert(q, m->om_table, in.ob_b, in.ob_sel, in.ob_n, e);
      break;
    case MOD_UPDATE: {
      batch_t view = *in.ob_b;  /* the table's columns and the locator */
      if (m->om_nwrite > 0)
        view.b_ncols = m->om_nwrite;
      rc = ops->qt_update(q, m->om_table, &view, m->om_set, in.ob_sel, in.ob_n,
                          m->om_rk ? &epq : NULL, e);
      break;
    }
    default:
      rc = ops->qt_delete(q, m->om_table, in.ob_b, m->om_rid, in.ob_sel, in.ob_n,
                          m->om_rk ? &epq : NULL, e);
      break;
    }
    if (rc != CZ_OK)
      return CZ_ERR;
    if (mr->om_skip)
      modify_drop_skipped(mr, &in);
    mr->om_count += in.ob_n;
    if (m->om_returning && in.ob_n > 0) {
      *out = in;  /* valid until the next call, like the input's batch */
      return CZ_OK;
    }
  }
}

static char *modify_detail(const op_t *o, arena_t *a)
{
  const op_modify_t *m = (const op_modify_t *)o;
  if (m->om_conflict)
    return arena_sprintf(a, "%s  on conflict do %s", m->om_name,
                         m->om_do_update ? "update" : "nothing");
  return arena_strdup(a, m->om_name);
}

static const op_vt_t insert_vt = {
    .ov_name = "Insert",
    .ov_open = modify_open,
    .ov_next = modify_next,
    .ov_detail = modify_detail,
    .ov_run_size = sizeof(modify_run_t),
};
static const op_vt_t update_vt = {
    .ov_name = "Update",
    .ov_open = modify_open,
    .ov_next = modify_next,
    .ov_detail = modify_detail,
    .ov_run_size = sizeof(modify_run_t),
};
static const op_vt_t delete_vt = {
    .ov_name = "Delete",
    .ov_open = modify_open,
    .ov_next = modify_next,
    .ov_detail = modify_detail,
    .ov_run_size = sizeof(modify_run_t),
};

static op_t *modify_new(arena_t *a, const op_vt_t *vt, modify_kind_t kind, op_t *in,
                        void *table, const char *name, int rid)
{
  op_modify_t *m = arena_zalloc(a, sizeof(*m));
  op_init(&m->om_op, vt, a, 0, NULL, in, NULL);
  m->om_kind = kind;
  m->om_table = table;
  m->om_name = name;
  m->om_rid = rid;
  return &m->om_op;
}

op_t *op_insert_new(arena_t *a, op_t *in, void *table, const char *name)
{
  return modify_new(a, &insert_vt, MOD_INSERT, in, table, name, -1);
}

op_t *op_update_new(arena_t *a, op_t *in, void *table, const char *name, const bool *set)
{
  op_t *o = modify_new(a, &update_vt, MOD_UPDATE, in, table, name, -1);
  ((op_modify_t *)o)->om_set = set;
  return o;
}

op_t *op_delete_new(arena_t *a, op_t *in, void *table, const char *name, int rid)
{
  return modify_new(a, &delete_vt, MOD_DELETE, in, table, name, rid);
}

void op_insert_skip_conflicts(op_t *o, int index)
{
  op_modify_t *m = (op_modify_t *)o;
  m->om_conflict = true;
  m->om_conflict_index = index;
}

void op_insert_do_update(op_t *o, int index, int nc, const bool *set, xnode_t **set_x,
                         xnode_t *where)
{
  op_modify_t *m = (op_modify_t *)o;
  m->om_conflict = true;
  m->om_conflict_index = index;
  m->om_do_update = true;
  m->om_nc = nc;
  m->om_cf_set = set;
  m->om_cf_x = set_x;
  m->om_cf_where = where;
}

void op_dml_set_joined(op_t *o, int loc, int nwrite)
{
  op_modify_t *m = (op_modify_t *)o;
  m->om_joined = true;
  m->om_loc = loc;
  m->om_nwrite = nwrite;
}

void op_dml_set_recheck(op_t *o, const oplock_recheck_t *rk)
{
  ((op_modify_t *)o)->om_rk = rk;
}

void op_dml_set_returning(op_t *o)
{
  op_modify_t *m = (op_modify_t *)o;
  m->om_returning = true;
  o->o_ncols = o->o_in->o_ncols;
  o->o_types = o->o_in->o_types;
}

int64_t op_dml_count(const op_t *o, const qctx_t *q)
{
  const modify_run_t *r = (const modify_run_t *)op_state(o, q);
  return r ? r->om_count : 0;
}
