/* op_project — computes output columns from input columns. A plain column
 * reference shares the input's vector instead of copying it; a constant
 * column (the planner's NULL placeholders for columns nobody reads, a
 * literal in the select list) is one vector filled once per execution
 * and shared by every batch (consumers never write into their input);
 * the selection vector passes through (xeval writes row sel[i] at
 * sel[i]). */
#include "exec/exec_int.h"

typedef struct op_project_s {
  op_t op_op;
  xnode_t **op_exprs;
} op_project_t;

/* Its run state: the constant columns' vectors (in os_state), by column,
 * and the computed columns' vectors, made once and refilled per batch. */
typedef struct project_run_s {
  opst_t pr_st;
  vec_t *pr_const;              /* o_ncols entries; v_cap 0 = not made yet */
  vec_t *pr_out;                /* o_ncols entries: computed columns' vectors */
  int pr_cap;                   /* rows each pr_out vector holds */
} project_run_t;

static int project_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  project_run_t *r = (project_run_t *)st;
  r->pr_const = arena_zalloc(st->os_state, sizeof(vec_t) * (size_t)(o->o_ncols ? o->o_ncols : 1));
  r->pr_out = arena_zalloc(st->os_state, sizeof(vec_t) * (size_t)(o->o_ncols ? o->o_ncols : 1));
  r->pr_cap = 0;
  return op_open(o->o_in, q, e);
}

/* The computed columns' vectors for batches of n rows, (re)made when a
 * batch is larger than they are. Not zeroed: xeval writes the selected
 * rows, the only ones a consumer reads (as the evaluator's temporaries). */
static void project_out_vecs(const op_project_t *p, project_run_t *r, int n)
{
  if (n <= r->pr_cap)
    return;
  int cap = CZ_MAX(n, 64);
  for (int c = 0; c < p->op_op.o_ncols; c++) {
    const xnode_t *x = p->op_exprs[c];
    if (x->x_kind == X_COL || x->x_kind == X_CONST)
      continue;
    vec_t *v = &r->pr_out[c];
    v->v_type = x->x_type;
    v->v_cap = cap;
    v->v_null = arena_alloc(r->pr_st.os_state, (size_t)cap);
    v->v_data = arena_alloc(r->pr_st.os_state,
                            (size_t)cap * ty_phys_size(ty_phys(x->x_type.t_id)));
  }
  r->pr_cap = cap;
}

/* Column c, the constant x, for n rows: the shared vector, (re)made when
 * a batch is larger than it. Every row holds the value, so any selection
 * reads it. */
static int project_const(project_run_t *r, int c, const xnode_t *x, int n, err_t *e)
{
  vec_t *v = &r->pr_const[c];
  if (v->v_cap >= n)
    return CZ_OK;
  if (vec_init(v, r->pr_st.os_state, x->x_type, n, e) != CZ_OK) {
    v->v_cap = 0;
    return CZ_ERR;
  }
  for (int i = 0; i < n; i++)
    vec_set(v, i, &x->x_const);
  return CZ_OK;
}

static int project_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_project_t *p = (const op_project_t *)o;
  obatch_t in;
  if (op_next(o->o_in, q, &in, e) != CZ_OK)
    return CZ_ERR;
  if (!in.ob_b)
    return CZ_OK;
  xctx_t xc;
  op_xctx(q, st->os_batch, &xc);
  batch_t *b = arena_alloc(st->os_batch, sizeof(batch_t));
  b->b_ncols = o->o_ncols;
  b->b_n = in.ob_b->b_n;
  b->b_cols = arena_alloc(st->os_batch, sizeof(vec_t) * (size_t)(o->o_ncols ? o->o_ncols : 1));
  int cap = in.ob_b->b_n > 0 ? in.ob_b->b_n : 1;
  for (int c = 0; c < o->o_ncols; c++) {
    const xnode_t *x = p->op_exprs[c];
    if (x->x_kind == X_COL) {
      b->b_cols[c] = in.ob_b->b_cols[x->x_index];
      b->b_cols[c].v_type = x->x_type;
      continue;
    }
    if (x->x_kind == X_CONST) {
      if (project_const((project_run_t *)st, c, x, cap, e) != CZ_OK)
        return CZ_ERR;
      b->b_cols[c] = ((project_run_t *)st)->pr_const[c];
      continue;
    }
    project_out_vecs(p, (project_run_t *)st, cap);
    b->b_cols[c] = ((project_run_t *)st)->pr_out[c];
    if (in.ob_n > 0 &&
        xeval(&xc, x, in.ob_b, in.ob_sel, in.ob_n, &b->b_cols[c], e) != CZ_OK)
      return CZ_ERR;
  }
  out->ob_b = b;
  out->ob_sel = in.ob_sel;
  out->ob_n = in.ob_n;
  return CZ_OK;
}

static int project_pass_col(const op_t *o, int col)
{
  const xnode_t *x = ((const op_project_t *)o)->op_exprs[col];
  return x->x_kind == X_COL ? x->x_index : -1;
}

static const op_vt_t project_vt = {
    .ov_name = "Project",
    .ov_open = project_open,
    .ov_next = project_next,
    .ov_run_size = sizeof(project_run_t),
    .ov_pass_col = project_pass_col,
    .ov_order = op_order_pass,
};

op_t *op_project_new(arena_t *a, op_t *in, int n, xnode_t **exprs)
{
  op_project_t *p = arena_zalloc(a, sizeof(*p));
  ty_t types[n > 0 ? n : 1];
  for (int i = 0; i < n; i++)
    types[i] = exprs[i]->x_type;
  op_init(&p->op_op, &project_vt, a, n, types, in, NULL);
  p->op_exprs = exprs;
  return &p->op_op;
}

xnode_t **op_project_exprs(const op_t *o)
{
  return o->o_vt == &project_vt ? ((const op_project_t *)o)->op_exprs : NULL;
}
