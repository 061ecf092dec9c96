/* ex_logic — three-valued logic (AND, OR, NOT, IS [NOT] NULL/TRUE/FALSE)
 * and the lazily evaluated forms CASE and COALESCE.
 *
 * Design notes: AND evaluates its right side only for the rows where the
 * left side is not FALSE, OR only where it is not TRUE; CASE evaluates a
 * branch only for the rows whose condition chose it and COALESCE an
 * argument only for the rows still NULL. So `CASE WHEN b <> 0 THEN a / b
 * END` never divides by zero, and the work done shrinks with the
 * selection. Every branch writes straight into the node's result vector.
 */
#include <string.h>

#include "exec/ex_int.h"

static int xe_and_or(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  bool is_and = x->x_op == XOP_AND;
  vec_t *l, *r;
  if (xe_node(st, x->x_args[0], sel, nsel, NULL, &l, e) != CZ_OK)
    return CZ_ERR;
  /* The deciding value: FALSE decides AND, TRUE decides OR. */
  uint8_t decide = is_and ? 0 : 1;
  int open = 0;
  if (xe_safe(x->x_args[1]))
    XE_FOR(sel, nsel, i, { open += l->v_null[i] | (l->v_bool[i] != decide); });
  if (xe_safe(x->x_args[1]) && open * 4 >= nsel * 3) {
    /* The right side cannot fail and most rows need it: evaluate it
     * everywhere and combine without branches, cheaper than tracking
     * which rows need it. When the left side decides most rows (TPC-H
     * Q19's `p_brand = …` in each branch of an OR of ANDs keeps 1 row in
     * 25) the right side runs only on the others, below. */
    if (xe_node(st, x->x_args[1], sel, nsel, NULL, &r, e) != CZ_OK)
      return CZ_ERR;
    const uint8_t *ln = l->v_null, *lv = l->v_bool, *rn = r->v_null, *rv = r->v_bool;
    uint8_t *dn = dst->v_null, *db = dst->v_bool;
    if (is_and)
      XE_FOR(sel, nsel, i, {
        uint8_t lf = (uint8_t)((!ln[i]) & (!lv[i])), rf = (uint8_t)((!rn[i]) & (!rv[i]));
        dn[i] = (uint8_t)((!(lf | rf)) & (ln[i] | rn[i]));
        db[i] = (uint8_t)((!(lf | rf)) & (!(ln[i] | rn[i])));
      });
    else
      XE_FOR(sel, nsel, i, {
        uint8_t lt = (uint8_t)((!ln[i]) & (lv[i] != 0)), rt = (uint8_t)((!rn[i]) & (rv[i] != 0));
        dn[i] = (uint8_t)((!(lt | rt)) & (ln[i] | rn[i]));
        db[i] = (uint8_t)(lt | rt);
      });
    return CZ_OK;
  }
  int *need = xe_sel_alloc(st), nneed = 0;
  XE_FOR(sel, nsel, i, {
    if (!l->v_null[i] && l->v_bool[i] == decide) {
      dst->v_null[i] = 0;
      dst->v_bool[i] = decide;
    } else {
      need[nneed++] = i;
    }
  });
  if (nneed == 0)
    return CZ_OK;
  if (xe_node(st, x->x_args[1], need, nneed, NULL, &r, e) != CZ_OK)
    return CZ_ERR;
  for (int k = 0; k < nneed; k++) {
    int i = need[k];
    if (!r->v_null[i] && r->v_bool[i] == decide) {
      dst->v_null[i] = 0;
      dst->v_bool[i] = decide;
    } else if (l->v_null[i] || r->v_null[i]) {
      dst->v_null[i] = 1;
    } else {
      dst->v_null[i] = 0;
      dst->v_bool[i] = !decide;
    }
  }
  return CZ_OK;
}

int xe_logic(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  if (x->x_op == XOP_AND || x->x_op == XOP_OR)
    return xe_and_or(st, x, sel, nsel, dst, e);
  vec_t *v;
  if (xe_node(st, x->x_args[0], sel, nsel, NULL, &v, e) != CZ_OK)
    return CZ_ERR;
  const uint8_t *vn = v->v_null;
  uint8_t *dn = dst->v_null, *db = dst->v_bool;
  switch (x->x_op) {
  case XOP_NOT: {
    const uint8_t *vb = v->v_bool;
    XE_FOR(sel, nsel, i, { dn[i] = vn[i]; db[i] = !vb[i]; });
    return CZ_OK;
  }
  case XOP_IS_NULL:
    XE_FOR(sel, nsel, i, { dn[i] = 0; db[i] = vn[i] != 0; });
    return CZ_OK;
  case XOP_IS_NOT_NULL:
    XE_FOR(sel, nsel, i, { dn[i] = 0; db[i] = vn[i] == 0; });
    return CZ_OK;
  default:
    break;
  }
  const uint8_t *vb = v->v_bool;
  switch (x->x_op) {
  case XOP_IS_TRUE:
    XE_FOR(sel, nsel, i, { dn[i] = 0; db[i] = !vn[i] && vb[i]; });
    break;
  case XOP_IS_NOT_TRUE:
    XE_FOR(sel, nsel, i, { dn[i] = 0; db[i] = vn[i] || !vb[i]; });
    break;
  case XOP_IS_FALSE:
    XE_FOR(sel, nsel, i, { dn[i] = 0; db[i] = !vn[i] && !vb[i]; });
    break;
  case XOP_IS_NOT_FALSE:
    XE_FOR(sel, nsel, i, { dn[i] = 0; db[i] = vn[i] || vb[i]; });
    break;
  default:
    return xe_error(x, e, SQLSTATE_INTERNAL, "not a logical operator");
  }
  return CZ_OK;
}

int xe_case(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  int npairs = (x->x_nargs - (x->x_has_else ? 1 : 0)) / 2;
  const int *rem = sel;
  int nrem = nsel;
  for (int k = 0; k < npairs && nrem > 0; k++) {
    vec_t *cond, *res;
    if (xe_node(st, x->x_args[2 * k], rem, nrem, NULL, &cond, e) != CZ_OK)
      return CZ_ERR;
    int *yes = xe_sel_alloc(st), *no = xe_sel_alloc(st), nno;
    int nyes = xe_split(cond, rem, nrem, yes, no, &nno);
    if (nyes > 0 && xe_node(st, x->x_args[2 * k + 1], yes, nyes, dst, &res, e) != CZ_OK)
      return CZ_ERR;
    rem = no;
    nrem = nno;
  }
  if (nrem == 0)
    return CZ_OK;
  if (x->x_has_else) {
    vec_t *res;
    return xe_node(st, x->x_args[x->x_nargs - 1], rem, nrem, dst, &res, e);
  }
  XE_FOR(rem, nrem, i, { dst->v_null[i] = 1; });
  return CZ_OK;
}

int xe_coalesce(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  const int *rem = sel;
  int nrem = nsel;
  for (int k = 0; k < x->x_nargs && nrem > 0; k++) {
    vec_t *res;
    if (xe_node(st, x->x_args[k], rem, nrem, dst, &res, e) != CZ_OK)
      return CZ_ERR;
    if (k == x->x_nargs - 1)
      break;
    int *still = xe_sel_alloc(st), n = 0;
    XE_FOR(rem, nrem, i, {
      still[n] = i;
      n += dst->v_null[i] != 0;
    });
    rem = still;
    nrem = n;
  }
  if (x->x_nargs == 0)
    XE_FOR(sel, nsel, i, { dst->v_null[i] = 1; });
  return CZ_OK;
}
