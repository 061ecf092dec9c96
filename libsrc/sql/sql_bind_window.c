/* sql_bind_window — window functions: row_number(), rank() and
 * dense_rank() OVER ([PARTITION BY …] [ORDER BY …]) in a query block's
 * select list or ORDER BY (see sql_bind_ext.h).
 *
 * Each call becomes one window of the block: its PARTITION BY and ORDER BY
 * expressions are bound over the FROM row, the call itself is a
 * placeholder column just after the row (the k-th window at sc_width + k).
 * bd_window_finish then builds, per window, project (row + keys) → sort
 * (partition keys, then order keys) → window → project (row + number),
 * so each window adds exactly its column and the placeholders line up.
 * Aggregates and windows in one block are not supported (0A000): the
 * windows would have to run over the grouped rows.
 */
#include <string.h>

#include "exec/exec_pg.h"
#include "sql/sql_bind_ext.h"

#define SQLSTATE_WINDOWING_ERROR "42P20"

typedef struct bd_win_s {
  xwin_t wn_kind;
  int wn_npart, wn_norder;
  xnode_t **wn_part;            /* over the FROM row */
  xnode_t **wn_ord;
  bool *wn_desc, *wn_nulls_first;
} bd_win_t;

struct bd_winctx_s {
  int wc_n, wc_cap;
  bd_win_t *wc_wins;
};

static int bind_keys(bd_t *b, bd_scope_t *sc, const sql_window_t *w, bd_win_t *out)
{
  out->wn_npart = sql_list_len(w->wi_partition);
  out->wn_norder = sql_list_len(w->wi_order);
  out->wn_part = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(out->wn_npart + 1));
  out->wn_ord = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(out->wn_norder + 1));
  out->wn_desc = arena_zalloc(b->b_a, (size_t)(out->wn_norder + 1));
  out->wn_nulls_first = arena_zalloc(b->b_a, (size_t)(out->wn_norder + 1));
  /* Keys are plain expressions of the row: no aggregates, no windows. */
  bd_aggctx_t *saved_agg = sc->sc_agg;
  const char *saved_forbid = sc->sc_agg_forbid;
  sc->sc_agg = NULL;
  sc->sc_agg_forbid = "window definitions";
  int rc = CZ_OK;
  for (int i = 0; i < out->wn_npart && rc == CZ_OK; i++) {
    rc = bd_expr(b, sc, sql_list_at(w->wi_partition, i), &out->wn_part[i]);
    if (rc == CZ_OK && !(out->wn_part[i] = bd_finish_unknown(b, out->wn_part[i])))
      rc = CZ_ERR;
  }
  for (int i = 0; i < out->wn_norder && rc == CZ_OK; i++) {
    const sql_order_t *o = sql_list_at(w->wi_order, i);
    rc = bd_expr(b, sc, o->or_expr, &out->wn_ord[i]);
    if (rc == CZ_OK && !(out->wn_ord[i] = bd_finish_unknown(b, out->wn_ord[i])))
      rc = CZ_ERR;
    out->wn_desc[i] = o->or_desc;
    out->wn_nulls_first[i] = o->or_nulls == SQL_NULLS_FIRST  ? true
                             : o->or_nulls == SQL_NULLS_LAST ? false
                                                             : o->or_desc;
  }
  sc->sc_agg = saved_agg;
  sc->sc_agg_forbid = saved_forbid;
  return rc;
}

int bd_window_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  static const struct {
    const char *name;
    xwin_t kind;
  } fns[] = {{"row_number", XWIN_ROW_NUMBER}, {"rank", XWIN_RANK}, {"dense_rank", XWIN_DENSE_RANK}};
  int f = -1;
  for (int i = 0; i < (int)CZ_ARRAY_LEN(fns); i++)
    if (strcmp(x->ex_name, fns[i].name) == 0)
      f = i;
  if (f < 0)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "window function %s is not supported (only row_number, rank, dense_rank)",
                    x->ex_name);
  if (sql_list_len(x->ex_list) || x->ex_star || x->ex_distinct)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, x->ex_pos,
                    "function %s() takes no arguments", x->ex_name);
  if (sc->sc_agg_forbid)
    return bd_error(b, SQLSTATE_WINDOWING_ERROR, x->ex_pos,
                    "window functions are not allowed in %s", sc->sc_agg_forbid);
  /* The select list and ORDER BY of a SELECT block are the places with an
   * aggregate context; anywhere else there is no block to add windows to. */
  if (!sc->sc_agg || sc->sc_agg->ag_in_agg)
    return bd_error(b, SQLSTATE_WINDOWING_ERROR, x->ex_pos,
                    "window functions are not allowed here");
  bd_winctx_t *wc = sc->sc_win;
  if (!wc)
    wc = sc->sc_win = arena_zalloc(b->b_a, sizeof(*wc));
  if (wc->wc_n == wc->wc_cap) {
    int cap = wc->wc_cap ? wc->wc_cap * 2 : 4;
    bd_win_t *n = arena_zalloc(b->b_a, sizeof(bd_win_t) * (size_t)cap);
    if (wc->wc_n)
      memcpy(n, wc->wc_wins, sizeof(bd_win_t) * (size_t)wc->wc_n);
    wc->wc_wins = n;
    wc->wc_cap = cap;
  }
  bd_win_t *w = &wc->wc_wins[wc->wc_n];
  memset(w, 0, sizeof(*w));
  w->wn_kind = fns[f].kind;
  if (bind_keys(b, sc, x->ex_over, w) != CZ_OK)
    return CZ_ERR;
  xnode_t *ph = bd_col(b, sc->sc_width + wc->wc_n, ty_plain(TY_INT8));
  ph->x_pos = x->ex_pos;
  wc->wc_n++;
  *out = ph;
  return CZ_OK;
}

int bd_window_finish(bd_t *b, bd_scope_t *sc, bool grouped, op_t **plan)
{
  bd_winctx_t *wc = sc->sc_win;
  if (!wc || wc->wc_n == 0)
    return CZ_OK;
  if (grouped)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, 0,
                    "window functions together with aggregates or GROUP BY are not supported");
  if ((*plan)->o_ncols != sc->sc_width) {
    /* SELECT without FROM reads one dummy column the block's row lacks */
    xnode_t **row = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(sc->sc_width + 1));
    for (int c = 0; c < sc->sc_width; c++)
      row[c] = bd_col(b, c, (*plan)->o_types[c]);
    *plan = op_project_new(b->b_a, *plan, sc->sc_width, row);
  }
  for (int k = 0; k < wc->wc_n; k++) {
    const bd_win_t *w = &wc->wc_wins[k];
    op_t *in = *plan;
    int base = in->o_ncols, nk = w->wn_npart + w->wn_norder;
    if (nk == 0) {
      *plan = op_window_new(b->b_a, in, w->wn_kind, 0, NULL, 0, NULL);
      continue;
    }
    xnode_t **cols = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(base + nk));
    for (int c = 0; c < base; c++)
      cols[c] = bd_col(b, c, in->o_types[c]);
    for (int i = 0; i < w->wn_npart; i++)
      cols[base + i] = w->wn_part[i];
    for (int i = 0; i < w->wn_norder; i++)
      cols[base + w->wn_npart + i] = w->wn_ord[i];
    op_t *p = op_project_new(b->b_a, in, base + nk, cols);
    sort_key_t *keys = arena_zalloc(b->b_a, sizeof(sort_key_t) * (size_t)nk);
    int *part = arena_alloc(b->b_a, sizeof(int) * (size_t)(w->wn_npart + 1));
    int *ord = arena_alloc(b->b_a, sizeof(int) * (size_t)(w->wn_norder + 1));
    for (int i = 0; i < nk; i++) {
      keys[i].sk_col = base + i;
      if (i < w->wn_npart)
        part[i] = base + i;
      else {
        int o = i - w->wn_npart;
        ord[o] = base + i;
        keys[i].sk_desc = w->wn_desc[o];
        keys[i].sk_nulls_first = w->wn_nulls_first[o];
      }
    }
    p = op_sort_new(b->b_a, p, nk, keys);
    p = op_window_new(b->b_a, p, w->wn_kind, w->wn_npart, part, w->wn_norder, ord);
    xnode_t **keep = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(base + 1));
    for (int c = 0; c < base; c++)
      keep[c] = bd_col(b, c, in->o_types[c]);
    keep[base] = bd_col(b, base + nk, ty_plain(TY_INT8));
    *plan = op_project_new(b->b_a, p, base + 1, keep);
  }
  return CZ_OK;
}
