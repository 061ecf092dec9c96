/* opt_window — the operators of one window (lp_window_t, bound by
 * sql/sql_bind_window.c): project (row + keys + arguments) → sort
 * (partition keys, then order keys; none without keys) → window →
 * project (row + results), so each window adds exactly its calls'
 * columns, as the binder laid them out (lw_base + f for call f). */
#include "opt/opt_int.h"

op_t *opt_window_build(lp_ctx_t *b, op_t *in, const lp_window_t *w)
{
  int base = in->o_ncols, nk = w->lw_npart + w->lw_norder;
  xnode_t **cols = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(base + nk + w->lw_nargs + 1));
  for (int c = 0; c < base; c++)
    cols[c] = bd_col(b->lc_b, c, in->o_types[c]);
  for (int i = 0; i < w->lw_npart; i++)
    cols[base + i] = w->lw_part[i];
  for (int i = 0; i < w->lw_norder; i++)
    cols[base + w->lw_npart + i] = w->lw_ord[i];
  int at = base + nk;
  for (int a = 0; a < w->lw_nargs; a++)
    cols[at + a] = w->lw_args[a];
  /* the calls' arguments: indexes into lw_args become input columns */
  xwin_fn_t *fns = arena_alloc(b->lc_a, sizeof(xwin_fn_t) * (size_t)(w->lw_nfn + 1));
  for (int f = 0; f < w->lw_nfn; f++) {
    fns[f] = w->lw_fns[f];
    for (int a = 0; a < 3; a++)
      if (fns[f].wf_args[a] >= 0)
        fns[f].wf_args[a] += at;
  }
  op_t *p = op_project_new(b->lc_a, in, at + w->lw_nargs, cols);
  int *part = arena_alloc(b->lc_a, sizeof(int) * (size_t)(w->lw_npart + 1));
  int *ord = arena_alloc(b->lc_a, sizeof(int) * (size_t)(w->lw_norder + 1));
  if (nk) {
    sort_key_t *keys = arena_zalloc(b->lc_a, sizeof(sort_key_t) * (size_t)nk);
    for (int i = 0; i < nk; i++) {
      keys[i].sk_col = base + i;
      if (i >= w->lw_npart) {
        keys[i].sk_desc = w->lw_desc[i - w->lw_npart];
        keys[i].sk_nulls_first = w->lw_nulls_first[i - w->lw_npart];
      }
    }
    p = op_sort_new(b->lc_a, p, nk, keys);
  }
  for (int i = 0; i < w->lw_npart; i++)
    part[i] = base + i;
  for (int i = 0; i < w->lw_norder; i++)
    ord[i] = base + w->lw_npart + i;
  xwin_spec_t spec = {.ws_npart = w->lw_npart, .ws_part = part, .ws_norder = w->lw_norder,
                      .ws_ord = ord, .ws_desc = w->lw_desc, .ws_nulls_first = w->lw_nulls_first,
                      .ws_unit = w->lw_unit, .ws_start = w->lw_start, .ws_end = w->lw_end,
                      .ws_start_off = w->lw_start_off, .ws_end_off = w->lw_end_off,
                      .ws_exclude = w->lw_exclude};
  p = op_window_new(b->lc_a, p, &spec, w->lw_nfn, fns);
  /* keep the row and the results */
  int win_at = at + w->lw_nargs;
  xnode_t **keep = arena_alloc(b->lc_a, sizeof(xnode_t *) * (size_t)(base + w->lw_nfn + 1));
  for (int c = 0; c < base; c++)
    keep[c] = bd_col(b->lc_b, c, in->o_types[c]);
  for (int f = 0; f < w->lw_nfn; f++)
    keep[base + f] = bd_col(b->lc_b, win_at + f, w->lw_fns[f].wf_type);
  return op_project_new(b->lc_a, p, base + w->lw_nfn, keep);
}
