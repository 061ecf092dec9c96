/* opt_prune — a derived table generated for the columns its block reads.
 *
 * Design notes (opt/README.md, "Derived tables"):
 * - A derived table's select list is bound whole, so its join block marks
 *   every column a target reads as used (fb_used) and its scans decode
 *   them: `SELECT a FROM (SELECT * FROM lineitem) s`, or a WITH query
 *   named so, would read sixteen columns for one. When the enclosing
 *   block reads only some of the derived table's columns, the targets of
 *   the others become NULL of their type, and the columns only they read
 *   are no longer used, so the derived block's scans skip them.
 * - Only where a target's value changes nothing but itself: a block
 *   without grouping, windows, set-returning functions, DISTINCT [ON] or
 *   row locking. A target ORDER BY sorts on stays; so does one with a
 *   volatile function or a subquery (PostgreSQL keeps such outputs too,
 *   for their side effects). A column stays used when a conjunct, a kept
 *   target (hidden ones too) or the order wished of the block reads it.
 * - The node, its upper part and its join block are copied, never
 *   changed: the binder's tree stays as bound.
 */
#include <string.h>

#include "opt/opt_int.h"

typedef struct cols_s {
  bool *cc_read;
  int cc_width;
} cols_t;

static void mark_col(void *ctx, xnode_t *col)
{
  cols_t *m = ctx;
  if (col->x_index >= 0 && col->x_index < m->cc_width)
    m->cc_read[col->x_index] = true;
}

/* Whether x has a volatile function or a subquery somewhere. */
static bool has_effects(const xnode_t *x)
{
  if (x->x_kind == X_SUBQ || (x->x_kind == X_FUNC && (x->x_func->fd_flags & XF_VOLATILE)))
    return true;
  for (int i = 0; i < x->x_nargs; i++)
    if (has_effects(x->x_args[i]))
      return true;
  return false;
}

const lp_node_t *opt_prune_derived(lp_ctx_t *b, const lp_node_t *n, const bool *need)
{
  if (n->ln_kind != LN_SELECT)
    return n;
  const lp_upper_t *u = n->ln_upper;
  const lp_block_t *fb = u->lu_from;
  if (u->lu_grouped || u->lu_nwin || u->lu_nsrf || u->lu_distinct || u->lu_ndon || u->lu_lock ||
      !fb->fb_used)
    return n;
  int nt = u->lu_ntarget;
  bool *keep = arena_alloc(b->lc_a, (size_t)nt + 1);
  int dropped = 0;
  for (int t = 0; t < nt; t++) {
    keep[t] = t >= u->lu_nvis || need[t] || has_effects(u->lu_targets[t]);
    dropped += !keep[t];
  }
  for (int k = 0; k < u->lu_nord; k++)
    if (!keep[u->lu_keys[k].sk_col]) {
      keep[u->lu_keys[k].sk_col] = true;
      dropped--;
    }
  if (!dropped)
    return n;
  /* the block's row columns read by what stays, and by what goes */
  int w = fb->fb_width;
  cols_t kept = {arena_zalloc(b->lc_a, (size_t)w + 1), w};
  cols_t gone = {arena_zalloc(b->lc_a, (size_t)w + 1), w};
  for (int i = 0; i < fb->fb_nconj; i++)
    bd_node_cols(fb->fb_conj[i], mark_col, &kept);
  for (int k = 0; k < fb->fb_nord; k++)
    if (fb->fb_order[k].sk_col >= 0 && fb->fb_order[k].sk_col < w)
      kept.cc_read[fb->fb_order[k].sk_col] = true;
  xnode_t **targets = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(nt + 1));
  for (int t = 0; t < nt; t++) {
    bd_node_cols(u->lu_targets[t], mark_col, keep[t] ? &kept : &gone);
    targets[t] = keep[t] ? u->lu_targets[t] : bd_const_null(b->lc_b, u->lu_targets[t]->x_type);
  }
  bool *used = arena_alloc(b->lc_a, (size_t)fb->fb_used_cap + 1);
  memcpy(used, fb->fb_used, (size_t)fb->fb_used_cap);
  for (int c = 0; c < fb->fb_used_cap && c < w; c++)
    if (gone.cc_read[c] && !kept.cc_read[c])
      used[c] = false;
  lp_block_t *nfb = arena_alloc(b->lc_a, sizeof(*nfb));
  *nfb = *fb;
  nfb->fb_used = used;
  lp_upper_t *nu = arena_alloc(b->lc_a, sizeof(*nu));
  *nu = *u;
  nu->lu_from = nfb;
  nu->lu_targets = targets;
  lp_node_t *nn = arena_alloc(b->lc_a, sizeof(*nn));
  *nn = *n;
  nn->ln_upper = nu;
  return nn;
}
