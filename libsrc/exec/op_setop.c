/* op_setop — UNION, EXCEPT, INTERSECT [ALL].
 * UNION streams the left input, then the right; UNION without ALL is
 * built as DISTINCT over UNION ALL (op_setop_new), the same rows in the
 * same order, so that it spills as DISTINCT does (op_distinct.c). EXCEPT and INTERSECT first count the right input's
 * rows in a row set, then stream the left input: ALL keeps a row as many
 * times as the counts allow (bag semantics), the distinct forms keep each
 * qualifying row once. */
#include "exec/exec_int.h"

typedef struct op_setop_s {
  op_t ot_op;
  setop_kind_t ot_kind;
  bool ot_all;
} op_setop_t;

typedef struct setop_run_s {
  opst_t ot_st;
  rset_t ot_right;              /* EXCEPT/INTERSECT: right rows with counts */
  rset_t ot_seen;               /* distinct forms: rows already returned */
  bool ot_on_right;             /* UNION: reading the right input */
} setop_run_t;

static int setop_open(const op_t *o, opst_t *st, qctx_t *q, err_t *e)
{
  const op_setop_t *sp = (const op_setop_t *)o;
  setop_run_t *s = (setop_run_t *)st;
  s->ot_on_right = false;
  if (rset_init(&s->ot_seen, st->os_state, o->o_ncols, o->o_types, e) != CZ_OK)
    return CZ_ERR;
  if (sp->ot_kind != SETOP_UNION) {
    if (rset_init(&s->ot_right, st->os_state, o->o_ncols, o->o_types, e) != CZ_OK ||
        op_open(o->o_in2, q, e) != CZ_OK)
      return CZ_ERR;
    for (;;) {
      obatch_t in;
      if (op_next(o->o_in2, q, &in, e) != CZ_OK)
        return CZ_ERR;
      if (!in.ob_b)
        break;
      for (int i = 0; i < in.ob_n; i++) {
        bool added;
        int64_t id = rset_add(&s->ot_right, in.ob_b, in.ob_sel ? in.ob_sel[i] : i, &added, e);
        if (id < 0)
          return CZ_ERR;
        s->ot_right.rt_counts[id]++;
      }
      if (op_check_mem(q, st->os_state, e) != CZ_OK)
        return CZ_ERR;
    }
    op_close(o->o_in2, q);
  }
  return op_open(o->o_in, q, e);
}

/* Whether row `row` of b is returned (*keep). CZ_ERR (53200) when
 * remembering it was refused memory. */
static int setop_keep(const op_setop_t *sp, setop_run_t *s, const batch_t *b, int row,
                      bool *keep, err_t *e)
{
  bool added = true;
  if (sp->ot_kind == SETOP_UNION) {
    if (!sp->ot_all && rset_add(&s->ot_seen, b, row, &added, e) < 0)
      return CZ_ERR;
    *keep = added;
    return CZ_OK;
  }
  *keep = false;
  int64_t id = rset_find(&s->ot_right, b, row);
  int64_t *cnt = id >= 0 ? &s->ot_right.rt_counts[id] : NULL;
  if (sp->ot_all) {
    if (sp->ot_kind == SETOP_INTERSECT) {
      if (!cnt || *cnt == 0)
        return CZ_OK;
      (*cnt)--;
      *keep = true;
      return CZ_OK;
    }
    if (cnt && *cnt > 0) {
      (*cnt)--;
      return CZ_OK;
    }
    *keep = true;
    return CZ_OK;
  }
  bool in_right = cnt != NULL;
  if (in_right != (sp->ot_kind == SETOP_INTERSECT))
    return CZ_OK;
  if (rset_add(&s->ot_seen, b, row, &added, e) < 0)
    return CZ_ERR;
  *keep = added;
  return CZ_OK;
}

static int setop_next(const op_t *o, opst_t *st, qctx_t *q, obatch_t *out, err_t *e)
{
  const op_setop_t *sp = (const op_setop_t *)o;
  setop_run_t *s = (setop_run_t *)st;
  for (;;) {
    const op_t *src = s->ot_on_right ? o->o_in2 : o->o_in;
    obatch_t in;
    if (op_next(src, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b) {
      if (sp->ot_kind == SETOP_UNION && !s->ot_on_right) {
        op_close(o->o_in, q);
        s->ot_on_right = true;
        if (op_open(o->o_in2, q, e) != CZ_OK)
          return CZ_ERR;
        continue;
      }
      return CZ_OK;
    }
    if (sp->ot_kind == SETOP_UNION && sp->ot_all) {
      *out = in;
      return CZ_OK;
    }
    int *sel = arena_alloc(st->os_batch, sizeof(int) * (size_t)(in.ob_n + 1));
    int n = 0;
    for (int i = 0; i < in.ob_n; i++) {
      int row = in.ob_sel ? in.ob_sel[i] : i;
      bool keep;
      if (setop_keep(sp, s, in.ob_b, row, &keep, e) != CZ_OK)
        return CZ_ERR;
      if (keep)
        sel[n++] = row;
    }
    if (op_check_mem(q, st->os_state, e) != CZ_OK)
      return CZ_ERR;
    if (n == 0)
      continue;
    out->ob_b = in.ob_b;
    out->ob_sel = sel;
    out->ob_n = n;
    return CZ_OK;
  }
}

static char *setop_detail(const op_t *o, arena_t *a)
{
  const op_setop_t *s = (const op_setop_t *)o;
  static const char *names[] = {"union", "except", "intersect"};
  return arena_sprintf(a, "%s%s", names[s->ot_kind], s->ot_all ? " all" : "");
}

static const op_vt_t setop_vt = {
    .ov_name = "SetOp",
    .ov_open = setop_open,
    .ov_next = setop_next,
    .ov_detail = setop_detail,
    .ov_run_size = sizeof(setop_run_t),
};

op_t *op_setop_new(arena_t *a, op_t *left, op_t *right, setop_kind_t kind, bool all)
{
  op_setop_t *s = arena_zalloc(a, sizeof(*s));
  op_init(&s->ot_op, &setop_vt, a, left->o_ncols, left->o_types, left, right);
  s->ot_kind = kind;
  s->ot_all = all;
  if (kind == SETOP_UNION && !all) {
    s->ot_all = true;
    return op_distinct_new(a, &s->ot_op);
  }
  return &s->ot_op;
}
