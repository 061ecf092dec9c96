/* sql_logical_ec — equivalence classes of a join block's columns, and the
 * equalities they imply (PostgreSQL's EquivalenceClass, cut down).
 *
 * Design notes (opt/README.md, "Equivalence classes"):
 * - Only conjuncts of the block's WHERE (and inner JOINs' ON) count: a
 *   row that passes all of them has a = b for each `a = b` among them, so
 *   any equality the classes imply holds on it too, and adding that
 *   equality as a conjunct removes no row the others keep. Outer joins
 *   are single relations whose ON stays inside them (lp_outer_t), and a
 *   decorrelated subquery's columns (past fb_width) are never members, so
 *   no equality crosses a nullable side or a semi / anti join.
 * - Members have one type (t_id) and are never CHAR(n): CHAR compares
 *   with trailing blanks dropped, and pairing two CHAR columns of
 *   different lengths goes through casts, which is not a bare column.
 * - A class's value is a node free of columns, subqueries and volatile
 *   functions (a constant, a parameter, an outer reference) of the
 *   class's type: `b = value` is then added for every member without one,
 *   so each relation filters (and keys its scan) on its own.
 * - Implied column equalities: one per pair of relations of a class that
 *   no stated equality of the class joins, between their first members —
 *   for classes spanning at most LP_EC_PAIRS_MAX relations. A class is
 *   connected by its stated equalities already; past that size the
 *   quadratic number of pairs (2016 for a 64-table star on one key) costs
 *   the search more than the direct edges give it.
 */
#include <string.h>

#include "sql/sql_bind_int.h"

#define LP_EC_PAIRS_MAX 16

static int uf_find(int *parent, int x)
{
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

/* `a = b` of two of the block's columns of one type, not CHAR(n). */
static bool col_col(const lp_block_t *fb, const xnode_t *x, int *a, int *b)
{
  if (x->x_kind != X_OP || x->x_op != XOP_EQ || x->x_nargs != 2)
    return false;
  const xnode_t *l = x->x_args[0], *r = x->x_args[1];
  if (l->x_kind != X_COL || r->x_kind != X_COL || l->x_type.t_id != r->x_type.t_id ||
      l->x_type.t_id == TY_CHAR || l->x_index >= fb->fb_width || r->x_index >= fb->fb_width ||
      l->x_index == r->x_index)
    return false;
  *a = l->x_index;
  *b = r->x_index;
  return true;
}

static bool value_like(const xnode_t *x)
{
  if (x->x_kind == X_COL || x->x_kind == X_SUBQ)
    return false;
  if (x->x_kind == X_FUNC && (x->x_func->fd_flags & XF_VOLATILE))
    return false;
  if (x->x_kind == X_CONST && x->x_const.d_null)
    return false;
  for (int i = 0; i < x->x_nargs; i++)
    if (!value_like(x->x_args[i]))
      return false;
  return true;
}

/* `col = value` (either order) of a block column: its column and value. */
static bool col_value(const lp_block_t *fb, const xnode_t *x, int *col, xnode_t **val)
{
  if (x->x_kind != X_OP || x->x_op != XOP_EQ || x->x_nargs != 2)
    return false;
  for (int k = 0; k < 2; k++) {
    const xnode_t *c = x->x_args[k];
    xnode_t *v = x->x_args[1 - k];
    if (c->x_kind == X_COL && c->x_index < fb->fb_width && c->x_type.t_id != TY_CHAR &&
        v->x_type.t_id == c->x_type.t_id && value_like(v)) {
      *col = c->x_index;
      *val = v;
      return true;
    }
  }
  return false;
}

static void add_conj(lp_ctx_t *c, lp_block_t *fb, xnode_t *x, int ec)
{
  if (fb->fb_nconj == fb->fb_cap) {
    int cap = fb->fb_cap ? fb->fb_cap * 2 : 8;
    xnode_t **nl = arena_alloc(c->lc_a, sizeof(xnode_t *) * (size_t)cap);
    int *ne = arena_alloc(c->lc_a, sizeof(int) * (size_t)cap);
    if (fb->fb_nconj) {
      memcpy(nl, fb->fb_conj, sizeof(xnode_t *) * (size_t)fb->fb_nconj);
      memcpy(ne, fb->fb_conj_ec, sizeof(int) * (size_t)fb->fb_nconj);
    }
    fb->fb_conj = nl;
    fb->fb_conj_ec = ne;
    fb->fb_cap = cap;
  }
  fb->fb_conj_ec[fb->fb_nconj] = ec;
  fb->fb_conj[fb->fb_nconj++] = x;
  fb->fb_nderived++;
}

int lp_eclasses(lp_ctx_t *c, lp_block_t *fb)
{
  arena_t *a = c->lc_a;
  int w = fb->fb_width, n0 = fb->fb_nconj;
  fb->fb_nec = 0;
  fb->fb_ec = NULL;
  fb->fb_nderived = 0;
  /* fb_conj_ec parallel to fb_conj (same capacity, so add_conj grows
   * both); a capacity nobody kept is taken as full */
  if (fb->fb_cap < n0)
    fb->fb_cap = n0;
  fb->fb_conj_ec = arena_alloc(a, sizeof(int) * (size_t)(fb->fb_cap + 1));
  for (int i = 0; i < n0; i++)
    fb->fb_conj_ec[i] = -1;
  bool some = false;
  for (int i = 0; i < n0 && !some; i++) {
    int x, y;
    some = col_col(fb, fb->fb_conj[i], &x, &y);
  }
  if (w <= 0 || !some)
    return CZ_OK;  /* the one-table OLTP path allocates nothing more */
  int *parent = arena_alloc(a, sizeof(int) * (size_t)w);
  ty_t *type = arena_alloc(a, sizeof(ty_t) * (size_t)w);
  int *rel = arena_alloc(a, sizeof(int) * (size_t)w);  /* column -> relation */
  for (int i = 0; i < w; i++) {
    parent[i] = i;
    rel[i] = -1;
  }
  for (int u = 0; u < fb->fb_nunits; u++)
    for (int k = 0; k < fb->fb_units[u].un_width; k++) {
      int col = fb->fb_units[u].un_base + k;
      if (col < w)
        rel[col] = u;
    }
  bool any = false;
  for (int i = 0; i < n0; i++) {
    int x, y;
    if (!col_col(fb, fb->fb_conj[i], &x, &y))
      continue;
    type[x] = type[y] = fb->fb_conj[i]->x_args[0]->x_type;
    int rx = uf_find(parent, x), ry = uf_find(parent, y);
    if (rx != ry)
      parent[rx < ry ? ry : rx] = rx < ry ? rx : ry;
    any = true;
  }
  if (!any)
    return CZ_OK;
  /* classes: roots with a member besides themselves, members ascending */
  int *ec_of = arena_alloc(a, sizeof(int) * (size_t)w);
  int *size = arena_zalloc(a, sizeof(int) * (size_t)w);
  for (int i = 0; i < w; i++)
    size[uf_find(parent, i)]++;
  int nec = 0;
  for (int i = 0; i < w; i++)
    ec_of[i] = -1;
  for (int i = 0; i < w; i++)
    if (uf_find(parent, i) == i && size[i] > 1)
      ec_of[i] = nec++;
  lp_eclass_t *ec = arena_zalloc(a, sizeof(lp_eclass_t) * (size_t)nec);
  for (int i = 0; i < w; i++) {
    int r = uf_find(parent, i);
    if (ec_of[r] < 0)
      continue;
    lp_eclass_t *e = &ec[ec_of[r]];
    if (!e->ec_cols)
      e->ec_cols = arena_alloc(a, sizeof(int) * (size_t)size[r]);
    e->ec_cols[e->ec_n++] = i;
    e->ec_type = type[i];
    ec_of[i] = ec_of[r];
  }
  fb->fb_nec = nec;
  fb->fb_ec = ec;
  /* values, and the columns that are already equated to one */
  bool *has_value = arena_zalloc(a, (size_t)w);
  for (int i = 0; i < n0; i++) {
    int col, x, y;
    xnode_t *v;
    if (col_col(fb, fb->fb_conj[i], &x, &y)) {
      fb->fb_conj_ec[i] = ec_of[x];
      continue;
    }
    if (!col_value(fb, fb->fb_conj[i], &col, &v) || ec_of[col] < 0)
      continue;
    has_value[col] = true;
    if (!ec[ec_of[col]].ec_const)
      ec[ec_of[col]].ec_const = v;
  }
  /* the relations each class spans, and which pairs of them a stated
   * equality of the class already joins */
  int nu = fb->fb_nunits;
  int *slot = arena_alloc(a, sizeof(int) * (size_t)(nu + 1));
  int *first = arena_alloc(a, sizeof(int) * (size_t)(nu + 1));
  for (int e = 0; e < nec; e++) {
    lp_eclass_t *cl = &ec[e];
    for (int u = 0; u < nu; u++)
      slot[u] = -1;
    int nr = 0;
    for (int k = 0; k < cl->ec_n; k++) {
      int u = rel[cl->ec_cols[k]];
      if (u >= 0 && slot[u] < 0) {
        first[nr] = cl->ec_cols[k];
        slot[u] = nr++;
      }
    }
    bool *joined = arena_zalloc(a, (size_t)nr * (size_t)nr + 1);
    for (int i = 0; i < n0; i++) {
      int x, y;
      if (fb->fb_conj_ec[i] != e || !col_col(fb, fb->fb_conj[i], &x, &y) || rel[x] < 0 ||
          rel[y] < 0)
        continue;
      int sx = slot[rel[x]], sy = slot[rel[y]];
      joined[sx * nr + sy] = joined[sy * nr + sx] = true;
    }
    for (int p = 0; p < nr && nr <= LP_EC_PAIRS_MAX; p++)
      for (int q = p + 1; q < nr; q++) {
        if (joined[p * nr + q])
          continue;
        xnode_t *eq;
        if (bd_op(c->lc_b, XOP_EQ, bd_col(c->lc_b, first[p], cl->ec_type),
                  bd_col(c->lc_b, first[q], cl->ec_type), 0, &eq) != CZ_OK)
          return CZ_ERR;
        add_conj(c, fb, eq, e);
      }
    if (!cl->ec_const)
      continue;
    for (int k = 0; k < cl->ec_n; k++) {
      int col = cl->ec_cols[k];
      if (has_value[col])
        continue;
      xnode_t *eq;
      if (bd_op(c->lc_b, XOP_EQ, bd_col(c->lc_b, col, cl->ec_type), cl->ec_const, 0, &eq) !=
          CZ_OK)
        return CZ_ERR;
      add_conj(c, fb, eq, -1);
    }
  }
  return CZ_OK;
}
