/* opt_or — conditions implied by an OR, so that joins and scans can
 * use them (TPC-H Q19's join key is written inside each branch of an OR).
 *
 * For a WHERE conjunct `(A and B and X) or (A and C and Y)`:
 * - a conjunct present in every branch (A) is implied by the whole: it is
 *   added as a conjunct of its own, where it may become a join key;
 * - for each FROM unit whose columns every branch restricts by conjuncts
 *   of its own (B on one side, C on the other), `B or C` is implied too
 *   and is added as a condition of that unit alone, so its scan keeps
 *   only rows that can satisfy some branch.
 * The OR itself stays: the added conjuncts only narrow what reaches it,
 * so the answer cannot change. Branches are compared structurally
 * (bd_node_equal). Nothing is added for an OR holding a subquery or a
 * volatile function, whose evaluation count must not change.
 */
#include <string.h>

#include "opt/opt_int.h"
#include "opt/opt_card.h"

#define OR_MAX_BRANCHES 64

typedef struct or_list_s {
  int ol_n, ol_cap;
  xnode_t **ol_x;
} or_list_t;

static void list_add(lp_ctx_t *b, or_list_t *l, xnode_t *x)
{
  if (l->ol_n == l->ol_cap) {
    int cap = l->ol_cap ? l->ol_cap * 2 : 8;
    xnode_t **n = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)cap);
    if (l->ol_n)
      memcpy(n, l->ol_x, sizeof(xnode_t *) * (size_t)l->ol_n);
    l->ol_x = n;
    l->ol_cap = cap;
  }
  l->ol_x[l->ol_n++] = x;
}

static void branches(xnode_t *x, xnode_t **out, int *n)
{
  if (x->x_kind == X_OP && x->x_op == XOP_OR) {
    branches(x->x_args[0], out, n);
    branches(x->x_args[1], out, n);
    return;
  }
  if (*n < OR_MAX_BRANCHES)
    out[*n] = x;
  (*n)++;
}

static bool safe(const xnode_t *x)
{
  if (x->x_kind == X_SUBQ || (x->x_kind == X_FUNC && (x->x_func->fd_flags & XF_VOLATILE)))
    return false;
  for (int i = 0; i < x->x_nargs; i++)
    if (!safe(x->x_args[i]))
      return false;
  return true;
}

static bool in_list(xnode_t **list, int n, const xnode_t *x)
{
  for (int i = 0; i < n; i++)
    if (bd_node_equal(list[i], x))
      return true;
  return false;
}

/* The one unit x reads, or -1 (none or several). */
static int only_unit(const xnode_t *x, const int *unit_of, int nu, bool *seen)
{
  memset(seen, 0, (size_t)nu);
  opt_conj_units(x, unit_of, seen);
  int u = -1;
  for (int i = 0; i < nu; i++)
    if (seen[i]) {
      if (u >= 0)
        return -1;
      u = i;
    }
  return u;
}

static void factor_one(lp_ctx_t *b, xnode_t *or, const int *unit_of, int nu, or_list_t *out)
{
  xnode_t *br[OR_MAX_BRANCHES];
  int nb = 0;
  branches(or, br, &nb);
  if (nb < 2 || nb > OR_MAX_BRANCHES || !safe(or))
    return;
  xnode_t ***conj = arena_alloc(b->lc_a, sizeof(xnode_t **) * (size_t)nb);
  int *nc = arena_zalloc(b->lc_a, sizeof(int) * (size_t)nb);
  for (int i = 0; i < nb; i++) {
    int cap = 0;
    conj[i] = NULL;
    bd_conjuncts(b->lc_b, br[i], &conj[i], &nc[i], &cap);
  }
  /* conjuncts common to every branch */
  for (int k = 0; k < nc[0]; k++) {
    bool everywhere = true;
    for (int i = 1; i < nb && everywhere; i++)
      everywhere = in_list(conj[i], nc[i], conj[0][k]);
    if (everywhere && !in_list(out->ol_x, out->ol_n, conj[0][k]))
      list_add(b, out, conj[0][k]);
  }
  /* per unit: the OR of each branch's own conditions on it */
  bool *seen = arena_alloc(b->lc_a, (size_t)nu + 1);
  for (int u = 0; u < nu; u++) {
    xnode_t *acc = NULL;
    bool all = true;
    for (int i = 0; i < nb && all; i++) {
      xnode_t **mine = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(nc[i] + 1));
      int nm = 0;
      for (int k = 0; k < nc[i]; k++)
        if (only_unit(conj[i][k], unit_of, nu, seen) == u)
          mine[nm++] = conj[i][k];
      xnode_t *part = bd_and_all(b->lc_b, mine, nm);
      if (!part) {
        all = false;
        break;
      }
      if (!acc)
        acc = part;
      else if (bd_op(b->lc_b, XOP_OR, acc, part, or->x_pos, &acc) != CZ_OK)
        all = false;
    }
    if (all && acc && !bd_node_equal(acc, or))
      list_add(b, out, acc);
    err_clear(b->lc_e);
  }
}

void opt_or_factor(lp_ctx_t *b, lp_block_t *fb, const int *unit_of)
{
  or_list_t out = {0};
  for (int i = 0; i < fb->fb_nconj; i++)
    list_add(b, &out, fb->fb_conj[i]);
  for (int i = 0; i < fb->fb_nconj; i++) {
    xnode_t *x = fb->fb_conj[i];
    if (x->x_kind == X_OP && x->x_op == XOP_OR)
      factor_one(b, x, unit_of, fb->fb_nunits, &out);
  }
  fb->fb_conj = out.ol_x;
  fb->fb_nconj = out.ol_n;
  fb->fb_cap = out.ol_cap;  /* lp_eclasses appends to the list */
}
