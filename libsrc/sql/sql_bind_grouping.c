/* sql_bind_grouping — GROUP BY GROUPING SETS, ROLLUP, CUBE and the
 * GROUPING(…) function.
 *
 * Design notes (PostgreSQL's parse_agg.c expand_grouping_sets): every
 * GROUP BY item stands for a list of sets — an expression for one set of
 * itself, () for the empty set, (a, b) for one set of both, ROLLUP (e1 …
 * en) for the n + 1 prefixes, longest first, CUBE for all 2^n subsets,
 * GROUPING SETS for the concatenation of its members' lists — and the
 * items of GROUP BY combine by cross product (GROUP BY a, ROLLUP (b) is
 * (a, b), (a)). Duplicate sets are kept, as PostgreSQL keeps them. Key
 * expressions are bound once each (structurally equal ones shared); the
 * plan is the grouping-sets operator (exec/op_groupsets.c), whose output
 * is the keys (NULL where a set does not group by them), the aggregates
 * and one column per GROUPING call, so bd_agg_rewrite maps expressions
 * above it as for a plain group-by. GROUPING(a, b) is a bit mask, a's
 * bit the highest, a bit set when its argument is not grouped by the
 * row's set; its value is known per set at plan time. */
#include <string.h>

#include "exec/exec_ql.h"
#include "sql/sql_bind_int.h"

#define GSETS_MAX 4096          /* PostgreSQL's limit on the sets of one GROUP BY */

/* A list of sets while expanding. */
typedef struct gsl_s {
  int gl_n, gl_cap;
  int *gl_len;
  int **gl_keys;
} gsl_t;

static int gsl_add(bd_t *b, gsl_t *l, const int *keys, int n, int pos)
{
  if (l->gl_n >= GSETS_MAX)
    return bd_error(b, SQLSTATE_PROGRAM_LIMIT, pos, "too many grouping sets present (maximum %d)",
                    GSETS_MAX);
  if (l->gl_n == l->gl_cap) {
    int cap = l->gl_cap ? l->gl_cap * 2 : 8;
    int *nl = arena_alloc(b->b_a, sizeof(int) * (size_t)cap);
    int **nk = arena_alloc(b->b_a, sizeof(int *) * (size_t)cap);
    if (l->gl_n) {
      memcpy(nl, l->gl_len, sizeof(int) * (size_t)l->gl_n);
      memcpy(nk, l->gl_keys, sizeof(int *) * (size_t)l->gl_n);
    }
    l->gl_len = nl;
    l->gl_keys = nk;
    l->gl_cap = cap;
  }
  int *k = arena_alloc(b->b_a, sizeof(int) * (size_t)(n + 1));
  int m = 0;
  for (int i = 0; i < n; i++) {
    bool dup = false;
    for (int j = 0; j < m && !dup; j++)
      dup = k[j] == keys[i];
    if (!dup)
      k[m++] = keys[i];
  }
  l->gl_len[l->gl_n] = m;
  l->gl_keys[l->gl_n++] = k;
  return CZ_OK;
}

bool bd_group_has_sets(const sql_list_t *group)
{
  for (int i = 0; i < sql_list_len(group); i++)
    if (((const sql_expr_t *)sql_list_at(group, i))->ex_kind == SQL_E_GROUPING_SET)
      return true;
  return false;
}

/* The key index of expression x (bound once; equal ones shared). */
static int gs_key(bd_t *b, bd_scope_t *sc, const sql_select_t *s, const sql_expr_t *x,
                  bd_gsets_t *gs, int *out)
{
  xnode_t *n;
  if (bd_group_item(b, sc, s, x, &n) != CZ_OK || !(n = bd_finish_unknown(b, n)))
    return CZ_ERR;
  for (int k = 0; k < gs->gs_nkeys; k++)
    if (bd_node_equal(gs->gs_keys[k], n)) {
      *out = k;
      return CZ_OK;
    }
  if (gs->gs_nkeys == gs->gs_kcap) {
    int cap = gs->gs_kcap ? gs->gs_kcap * 2 : 8;
    xnode_t **nk = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)cap);
    if (gs->gs_nkeys)
      memcpy(nk, gs->gs_keys, sizeof(xnode_t *) * (size_t)gs->gs_nkeys);
    gs->gs_keys = nk;
    gs->gs_kcap = cap;
  }
  gs->gs_keys[gs->gs_nkeys] = n;
  *out = gs->gs_nkeys++;
  return CZ_OK;
}

/* The keys of one member of ROLLUP / CUBE: an expression or (a, b). */
static int gs_member(bd_t *b, bd_scope_t *sc, const sql_select_t *s, const sql_expr_t *x,
                     bd_gsets_t *gs, int *keys, int *n)
{
  *n = 0;
  if (x->ex_kind != SQL_E_GROUPING_SET)
    return gs_key(b, sc, s, x, gs, &keys[(*n)++]);
  if (x->ex_int != SQL_GSET_ROW)
    return bd_error(b, SQLSTATE_SYNTAX_ERROR, x->ex_pos,
                    "syntax error: only expressions and lists of them may be in ROLLUP or CUBE");
  for (int i = 0; i < sql_list_len(x->ex_list); i++)
    if (gs_key(b, sc, s, sql_list_at(x->ex_list, i), gs, &keys[(*n)++]) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

static int member_width(const sql_expr_t *x)
{
  return x->ex_kind == SQL_E_GROUPING_SET ? sql_list_len(x->ex_list) + 1 : 1;
}

/* The list of sets an item stands for. */
static int gs_item(bd_t *b, bd_scope_t *sc, const sql_select_t *s, const sql_expr_t *x,
                   bd_gsets_t *gs, gsl_t *out)
{
  memset(out, 0, sizeof(*out));
  if (x->ex_kind != SQL_E_GROUPING_SET) {
    int k;
    if (gs_key(b, sc, s, x, gs, &k) != CZ_OK)
      return CZ_ERR;
    return gsl_add(b, out, &k, 1, x->ex_pos);
  }
  int nm = sql_list_len(x->ex_list);
  switch ((sql_gset_kind_t)x->ex_int) {
  case SQL_GSET_EMPTY:
    return gsl_add(b, out, NULL, 0, x->ex_pos);
  case SQL_GSET_ROW: {
    int *keys = arena_alloc(b->b_a, sizeof(int) * (size_t)(nm + 1)), n;
    if (gs_member(b, sc, s, x, gs, keys, &n) != CZ_OK)
      return CZ_ERR;
    return gsl_add(b, out, keys, n, x->ex_pos);
  }
  case SQL_GSET_ROLLUP:
  case SQL_GSET_CUBE: {
    if (x->ex_int == SQL_GSET_CUBE && nm > 12)
      return bd_error(b, SQLSTATE_TOO_MANY_COLUMNS, x->ex_pos, "CUBE is limited to 12 elements");
    int width = 0;
    for (int i = 0; i < nm; i++)
      width += member_width(sql_list_at(x->ex_list, i));
    int **mk = arena_alloc(b->b_a, sizeof(int *) * (size_t)(nm + 1));
    int *mn = arena_alloc(b->b_a, sizeof(int) * (size_t)(nm + 1));
    for (int i = 0; i < nm; i++) {
      const sql_expr_t *m = sql_list_at(x->ex_list, i);
      mk[i] = arena_alloc(b->b_a, sizeof(int) * (size_t)(member_width(m) + 1));
      if (gs_member(b, sc, s, m, gs, mk[i], &mn[i]) != CZ_OK)
        return CZ_ERR;
    }
    int *keys = arena_alloc(b->b_a, sizeof(int) * (size_t)(width + 1));
    if (x->ex_int == SQL_GSET_ROLLUP) {
      for (int len = nm; len >= 0; len--) {
        int n = 0;
        for (int i = 0; i < len; i++)
          for (int j = 0; j < mn[i]; j++)
            keys[n++] = mk[i][j];
        if (gsl_add(b, out, keys, n, x->ex_pos) != CZ_OK)
          return CZ_ERR;
      }
      return CZ_OK;
    }
    /* CUBE: every subset, the whole first (PostgreSQL's order: by the
     * members left out, as a binary count) */
    for (unsigned mask = 0; mask < (1u << nm); mask++) {
      int n = 0;
      for (int i = 0; i < nm; i++)
        if (!(mask & (1u << (nm - 1 - i))))
          for (int j = 0; j < mn[i]; j++)
            keys[n++] = mk[i][j];
      if (gsl_add(b, out, keys, n, x->ex_pos) != CZ_OK)
        return CZ_ERR;
    }
    return CZ_OK;
  }
  case SQL_GSET_SETS:
    for (int i = 0; i < nm; i++) {
      gsl_t sub;
      if (gs_item(b, sc, s, sql_list_at(x->ex_list, i), gs, &sub) != CZ_OK)
        return CZ_ERR;
      for (int j = 0; j < sub.gl_n; j++)
        if (gsl_add(b, out, sub.gl_keys[j], sub.gl_len[j], x->ex_pos) != CZ_OK)
          return CZ_ERR;
    }
    return CZ_OK;
  }
  return bd_error(b, SQLSTATE_INTERNAL, x->ex_pos, "bad grouping set");
}

int bd_group_sets(bd_t *b, bd_scope_t *sc, const sql_select_t *s, bd_gsets_t *out)
{
  memset(out, 0, sizeof(*out));
  gsl_t acc;
  memset(&acc, 0, sizeof(acc));
  if (gsl_add(b, &acc, NULL, 0, 0) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < sql_list_len(s->se_group); i++) {
    const sql_expr_t *x = sql_list_at(s->se_group, i);
    gsl_t item, next;
    if (gs_item(b, sc, s, x, out, &item) != CZ_OK)
      return CZ_ERR;
    memset(&next, 0, sizeof(next));
    for (int a = 0; a < acc.gl_n; a++)
      for (int j = 0; j < item.gl_n; j++) {
        int n = acc.gl_len[a] + item.gl_len[j];
        int *keys = arena_alloc(b->b_a, sizeof(int) * (size_t)(n + 1));
        memcpy(keys, acc.gl_keys[a], sizeof(int) * (size_t)acc.gl_len[a]);
        memcpy(keys + acc.gl_len[a], item.gl_keys[j], sizeof(int) * (size_t)item.gl_len[j]);
        if (gsl_add(b, &next, keys, n, x->ex_pos) != CZ_OK)
          return CZ_ERR;
      }
    acc = next;
  }
  out->gs_nsets = acc.gl_n;
  out->gs_set_n = acc.gl_len;
  out->gs_sets = acc.gl_keys;
  return CZ_OK;
}

void bd_group_one_set(bd_t *b, int ngroup, xnode_t **group, bd_gsets_t *out)
{
  memset(out, 0, sizeof(*out));
  out->gs_nkeys = ngroup;
  out->gs_keys = group;
  out->gs_nsets = 1;
  out->gs_set_n = arena_alloc(b->b_a, sizeof(int));
  out->gs_set_n[0] = ngroup;
  out->gs_sets = arena_alloc(b->b_a, sizeof(int *));
  out->gs_sets[0] = arena_alloc(b->b_a, sizeof(int) * (size_t)(ngroup + 1));
  for (int k = 0; k < ngroup; k++)
    out->gs_sets[0][k] = k;
}

int bd_grouping_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  bd_aggctx_t *ag = sc->sc_agg;
  if (!ag)
    return bd_error(b, SQLSTATE_GROUPING_ERROR, x->ex_pos,
                    "grouping operations are not allowed in %s",
                    sc->sc_agg_forbid ? sc->sc_agg_forbid : "this context");
  if (ag->ag_in_agg)
    return bd_error(b, SQLSTATE_GROUPING_ERROR, x->ex_pos,
                    "aggregate function calls cannot contain grouping operations");
  int n = sql_list_len(x->ex_list);
  if (n == 0 || x->ex_star || x->ex_distinct)
    return bd_error(b, SQLSTATE_SYNTAX_ERROR, x->ex_pos, "syntax error at or near \")\"");
  if (n > 31)
    return bd_error(b, SQLSTATE_TOO_MANY_COLUMNS, x->ex_pos, "GROUPING must have fewer than 32 arguments");
  xnode_t **args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)n);
  ag->ag_in_agg = true;  /* no aggregates inside */
  for (int i = 0; i < n; i++)
    if (bd_expr(b, sc, sql_list_at(x->ex_list, i), &args[i]) != CZ_OK ||
        !(args[i] = bd_finish_unknown(b, args[i]))) {
      ag->ag_in_agg = false;
      return CZ_ERR;
    }
  ag->ag_in_agg = false;
  if (ag->ag_ngrp == ag->ag_grp_cap) {
    int cap = ag->ag_grp_cap ? ag->ag_grp_cap * 2 : 4;
    xnode_t **nh = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)cap);
    int *nn = arena_alloc(b->b_a, sizeof(int) * (size_t)cap);
    xnode_t ***na = arena_alloc(b->b_a, sizeof(xnode_t **) * (size_t)cap);
    if (ag->ag_ngrp) {
      memcpy(nh, ag->ag_grp_holders, sizeof(xnode_t *) * (size_t)ag->ag_ngrp);
      memcpy(nn, ag->ag_grp_nargs, sizeof(int) * (size_t)ag->ag_ngrp);
      memcpy(na, ag->ag_grp_args, sizeof(xnode_t **) * (size_t)ag->ag_ngrp);
    }
    ag->ag_grp_holders = nh;
    ag->ag_grp_nargs = nn;
    ag->ag_grp_args = na;
    ag->ag_grp_cap = cap;
  }
  xnode_t *h = bd_col(b, -1, ty_plain(TY_INT4));  /* placeholder, set by the rewrite */
  h->x_pos = x->ex_pos;
  ag->ag_grp_holders[ag->ag_ngrp] = h;
  ag->ag_grp_nargs[ag->ag_ngrp] = n;
  ag->ag_grp_args[ag->ag_ngrp++] = args;
  *out = h;
  return CZ_OK;
}

int bd_groupsets_logical(bd_t *b, const bd_gsets_t *gs, const bd_aggctx_t *ag,
                         const lp_gsets_t **out)
{
  int ng = ag->ag_ngrp;
  int32_t *grp = arena_zalloc(b->b_a, sizeof(int32_t) * (size_t)(gs->gs_nsets * ng + 1));
  for (int g = 0; g < ng; g++) {
    int n = ag->ag_grp_nargs[g];
    for (int i = 0; i < n; i++) {
      int k;
      for (k = 0; k < gs->gs_nkeys && !bd_node_equal(gs->gs_keys[k], ag->ag_grp_args[g][i]); k++)
        ;
      if (k == gs->gs_nkeys)
        return bd_error(b, SQLSTATE_GROUPING_ERROR, ag->ag_grp_args[g][i]->x_pos,
                        "arguments to GROUPING must be grouping expressions of the associated "
                        "query level");
      for (int s = 0; s < gs->gs_nsets; s++) {
        bool in_set = false;
        for (int j = 0; j < gs->gs_set_n[s] && !in_set; j++)
          in_set = gs->gs_sets[s][j] == k;
        if (!in_set)
          grp[s * ng + g] |= (int32_t)(1u << (n - 1 - i));
      }
    }
  }
  lp_gsets_t *l = arena_zalloc(b->b_a, sizeof(*l));
  *l = (lp_gsets_t){.lg_nsets = gs->gs_nsets, .lg_set_n = gs->gs_set_n, .lg_sets = gs->gs_sets,
                    .lg_ngrp = ng, .lg_grp = grp};
  *out = l;
  return CZ_OK;
}
