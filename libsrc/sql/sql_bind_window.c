/* sql_bind_window — window functions in a query block's select list or
 * ORDER BY: f(…) OVER (…), OVER w and the WINDOW clause (see
 * sql_bind_ext.h).
 *
 * Design notes:
 * - Each call becomes a placeholder column (a X_COL node marked with
 *   bd_win_holder_mark, so that the GROUP BY rewrite passes it through);
 *   bd_window_logical sets its index once the windows are laid out.
 * - A call's window is resolved against the WINDOW clause (PostgreSQL's
 *   rules: OVER w takes w whole; OVER (w …) takes w's PARTITION BY and
 *   ORDER BY, may add an ORDER BY, and refuses a w with a frame) and
 *   compared with the windows already seen: calls over equal windows
 *   (same keys, frame and offsets) share one sort and one operator.
 * - Keys and arguments are bound over the block's row with aggregates
 *   allowed: in a grouped block they are rewritten over the group-by's
 *   output, and the windows run after GROUP BY and HAVING.
 * - bd_window_logical hands the generator one lp_window_t per window
 *   (sql_logical.h); opt/opt_window.c builds project (row + keys +
 *   arguments) → sort (partition keys, then order keys) → window →
 *   project (row + results): each window adds exactly its calls'
 *   columns, which is what the placeholders are set to read. */
#include <string.h>

#include "exec/exec_window.h"
#include "sql/sql_bind_ext.h"


/* The mark of a window placeholder: its x_subq (unused by X_COL). */
static const char bd_win_holder_mark = 0;

typedef struct bd_win_s {
  int wn_npart, wn_norder;
  xnode_t **wn_part;            /* over the block's row */
  xnode_t **wn_ord;
  bool *wn_desc, *wn_nulls_first;
  xframe_t wn_unit;
  xbound_t wn_start, wn_end;
  xnode_t *wn_start_off, *wn_end_off;
  xexclude_t wn_exclude;
} bd_win_t;

typedef struct bd_wcall_s {
  xwin_fn_t wc_fn;              /* wf_args set by bd_window_logical */
  int wc_nargs;
  xnode_t *wc_argx[3];          /* over the block's row */
  int wc_win;                   /* its window in wc_wins */
  xnode_t *wc_holder;
} bd_wcall_t;

struct bd_winctx_s {
  const sql_list_t *wx_defs;    /* the WINDOW clause (of sql_window_t) */
  const char *wx_forbid;        /* where calls are refused now ("HAVING"); NULL: allowed */
  const char *wx_binding;       /* binding a window's keys or a call's arguments: the
                                 * error for a window call there; NULL otherwise */
  int wx_nwin, wx_capwin;
  bd_win_t *wx_wins;
  int wx_ncall, wx_capcall;
  bd_wcall_t *wx_calls;
};

static bd_winctx_t *winctx(bd_t *b, bd_scope_t *sc)
{
  if (!sc->sc_win)
    sc->sc_win = arena_zalloc(b->b_a, sizeof(bd_winctx_t));
  return sc->sc_win;
}

int bd_window_begin(bd_t *b, bd_scope_t *sc, const sql_list_t *defs)
{
  for (int i = 0; i < sql_list_len(defs); i++) {
    const sql_window_t *d = sql_list_at(defs, i);
    for (int j = 0; j < i; j++)
      if (strcmp(((const sql_window_t *)sql_list_at(defs, j))->wi_name, d->wi_name) == 0)
        return bd_error(b, SQLSTATE_WINDOWING_ERROR, d->wi_pos, "window \"%s\" is already defined",
                        d->wi_name);
  }
  winctx(b, sc)->wx_defs = defs;
  return CZ_OK;
}

bool bd_window_any(const bd_scope_t *sc)
{
  return sc->sc_win && sc->sc_win->wx_ncall > 0;
}

void bd_window_forbid(bd_scope_t *sc, const char *where)
{
  if (sc->sc_win)
    sc->sc_win->wx_forbid = where;
}

bool bd_window_is_holder(const xnode_t *x)
{
  return x->x_kind == X_COL && x->x_subq == &bd_win_holder_mark;
}

/* ---- resolving a window against the WINDOW clause ---------------------- */

/* The window w stands for: its definition, with the definitions it
 * copies (only earlier ones, as PostgreSQL) folded in. */
static int resolve(bd_t *b, const bd_winctx_t *wx, const sql_window_t *w, int ndefs,
                   sql_window_t *out)
{
  *out = *w;
  if (!w->wi_ref)
    return CZ_OK;
  int n = CZ_MIN(ndefs, sql_list_len(wx ? wx->wx_defs : NULL));
  int found = -1;
  for (int i = 0; i < n && found < 0; i++)
    if (strcmp(((const sql_window_t *)sql_list_at(wx->wx_defs, i))->wi_name, w->wi_ref) == 0)
      found = i;
  if (found < 0)
    return bd_error(b, SQLSTATE_UNDEFINED_OBJECT, w->wi_pos, "window \"%s\" does not exist", w->wi_ref);
  sql_window_t base;
  if (resolve(b, wx, sql_list_at(wx->wx_defs, found), found, &base) != CZ_OK)
    return CZ_ERR;
  if (w->wi_bare_ref) {
    *out = base;
    return CZ_OK;
  }
  if (w->wi_partition)
    return bd_error(b, SQLSTATE_WINDOWING_ERROR, w->wi_pos,
                    "cannot override PARTITION BY clause of window \"%s\"", w->wi_ref);
  if (w->wi_order && base.wi_order)
    return bd_error(b, SQLSTATE_WINDOWING_ERROR, w->wi_pos,
                    "cannot override ORDER BY clause of window \"%s\"", w->wi_ref);
  if (base.wi_frame != SQL_FRAME_DEFAULT)
    return bd_error(b, SQLSTATE_WINDOWING_ERROR, w->wi_pos,
                    "cannot copy window \"%s\" because it has a frame clause", w->wi_ref);
  out->wi_partition = base.wi_partition;
  if (!w->wi_order)
    out->wi_order = base.wi_order;
  return CZ_OK;
}

/* ---- binding a window ---------------------------------------------------- */

static bool has_column(const xnode_t *x)
{
  if (x->x_kind == X_COL)
    return true;
  for (int i = 0; i < x->x_nargs; i++)
    if (has_column(x->x_args[i]))
      return true;
  return false;
}

static int bind_offset(bd_t *b, bd_scope_t *sc, const sql_window_t *w, const bd_win_t *out,
                       const sql_expr_t *x, xnode_t **res)
{
  static const char *units[] = {"RANGE", "ROWS", "RANGE", "GROUPS"};
  xnode_t *n;
  if (bd_expr(b, sc, x, &n) != CZ_OK)
    return CZ_ERR;
  if (has_column(n))
    return bd_error(b, SQLSTATE_INVALID_COLUMN_REF, x->ex_pos, "argument of %s must not contain variables",
                    units[w->wi_frame]);
  ty_t to = ty_plain(TY_INT8);
  if (w->wi_frame == SQL_FRAME_RANGE) {
    if (out->wn_norder != 1)
      return bd_error(b, SQLSTATE_WINDOWING_ERROR, x->ex_pos,
                      "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
    ty_t k = out->wn_ord[0]->x_type;
    ty_id_t o = n->x_type.t_id;
    bool int_off = o == TY_INT2 || o == TY_INT4 || o == TY_INT8 || o == TY_UNKNOWN;
    bool ok;
    switch (k.t_id) {
    case TY_INT2: case TY_INT4: case TY_INT8: ok = int_off; break;
    case TY_FLOAT4: case TY_FLOAT8:
      ok = int_off || o == TY_FLOAT4 || o == TY_FLOAT8 || o == TY_NUMERIC;
      to = ty_plain(TY_FLOAT8);
      break;
    case TY_NUMERIC: ok = int_off || o == TY_NUMERIC; to = ty_plain(TY_NUMERIC); break;
    case TY_DATE: case TY_TIMESTAMP: case TY_INTERVAL:  /* moved by an interval */
      ok = o == TY_INTERVAL || o == TY_UNKNOWN;
      to = ty_plain(TY_INTERVAL);
      break;
    default:
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                      "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s",
                      ty_name(b->b_a, k));
    }
    if (!ok)
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                      "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s "
                      "and offset type %s",
                      ty_name(b->b_a, k), ty_name(b->b_a, n->x_type));
  } else if (n->x_type.t_id != TY_UNKNOWN && n->x_type.t_id != TY_INT2 &&
             n->x_type.t_id != TY_INT4 && n->x_type.t_id != TY_INT8)
    return bd_error(b, SQLSTATE_DATATYPE_MISMATCH, x->ex_pos, "argument of %s must be type bigint, not type %s",
                    units[w->wi_frame], ty_name(b->b_a, n->x_type));
  if (!(n = bd_coerce(b, n, to)) || !(n = bd_finish_unknown(b, n)))
    return CZ_ERR;
  *res = n;
  return CZ_OK;
}

static int check_frame(bd_t *b, const sql_window_t *w)
{
  if (w->wi_frame == SQL_FRAME_DEFAULT)
    return CZ_OK;
  const char *msg = NULL;
  int pos = w->wi_start_pos;
  if (w->wi_start == SQL_BOUND_UNBOUNDED_FOLLOWING)
    msg = "frame start cannot be UNBOUNDED FOLLOWING";
  else if (w->wi_end == SQL_BOUND_UNBOUNDED_PRECEDING)
    msg = "frame end cannot be UNBOUNDED PRECEDING", pos = w->wi_end_pos;
  else if (w->wi_start == SQL_BOUND_CURRENT && w->wi_end == SQL_BOUND_PRECEDING)
    msg = "frame starting from current row cannot have preceding rows", pos = w->wi_end_pos;
  else if (w->wi_start == SQL_BOUND_FOLLOWING &&
           (w->wi_end == SQL_BOUND_PRECEDING || w->wi_end == SQL_BOUND_CURRENT))
    msg = "frame starting from following row cannot have preceding rows", pos = w->wi_end_pos;
  if (msg)
    return bd_error(b, SQLSTATE_WINDOWING_ERROR, pos ? pos : w->wi_pos, "%s", msg);
  return CZ_OK;
}

static int bind_window(bd_t *b, bd_scope_t *sc, const sql_window_t *w, bd_win_t *out)
{
  memset(out, 0, sizeof(*out));
  if (check_frame(b, w) != CZ_OK)
    return CZ_ERR;
  out->wn_npart = sql_list_len(w->wi_partition);
  out->wn_norder = sql_list_len(w->wi_order);
  out->wn_part = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(out->wn_npart + 1));
  out->wn_ord = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(out->wn_norder + 1));
  out->wn_desc = arena_zalloc(b->b_a, (size_t)(out->wn_norder + 1));
  out->wn_nulls_first = arena_zalloc(b->b_a, (size_t)(out->wn_norder + 1));
  for (int i = 0; i < out->wn_npart; i++)
    if (bd_expr(b, sc, sql_list_at(w->wi_partition, i), &out->wn_part[i]) != CZ_OK ||
        !(out->wn_part[i] = bd_finish_unknown(b, out->wn_part[i])))
      return CZ_ERR;
  for (int i = 0; i < out->wn_norder; i++) {
    const sql_order_t *o = sql_list_at(w->wi_order, i);
    if (bd_expr(b, sc, o->or_expr, &out->wn_ord[i]) != CZ_OK ||
        !(out->wn_ord[i] = bd_finish_unknown(b, out->wn_ord[i])))
      return CZ_ERR;
    out->wn_desc[i] = o->or_desc;
    out->wn_nulls_first[i] = o->or_nulls == SQL_NULLS_FIRST  ? true
                             : o->or_nulls == SQL_NULLS_LAST ? false
                                                             : o->or_desc;
  }
  if (w->wi_frame == SQL_FRAME_DEFAULT) {
    out->wn_unit = XFRAME_RANGE;
    out->wn_start = XBOUND_UNBOUNDED_PRECEDING;
    out->wn_end = XBOUND_CURRENT;
    return CZ_OK;
  }
  out->wn_unit = (xframe_t)w->wi_frame;
  out->wn_start = (xbound_t)w->wi_start;
  out->wn_end = (xbound_t)w->wi_end;
  out->wn_exclude = (xexclude_t)w->wi_exclude;
  if (w->wi_start_off && bind_offset(b, sc, w, out, w->wi_start_off, &out->wn_start_off) != CZ_OK)
    return CZ_ERR;
  if (w->wi_end_off && bind_offset(b, sc, w, out, w->wi_end_off, &out->wn_end_off) != CZ_OK)
    return CZ_ERR;
  return CZ_OK;
}

static bool nodes_equal(const xnode_t *x, const xnode_t *y)
{
  return x == y || (x && y && bd_node_equal(x, y));
}

static bool windows_equal(const bd_win_t *a, const bd_win_t *c)
{
  if (a->wn_npart != c->wn_npart || a->wn_norder != c->wn_norder || a->wn_unit != c->wn_unit ||
      a->wn_start != c->wn_start || a->wn_end != c->wn_end || a->wn_exclude != c->wn_exclude ||
      !nodes_equal(a->wn_start_off, c->wn_start_off) || !nodes_equal(a->wn_end_off, c->wn_end_off))
    return false;
  for (int i = 0; i < a->wn_npart; i++)
    if (!bd_node_equal(a->wn_part[i], c->wn_part[i]))
      return false;
  for (int i = 0; i < a->wn_norder; i++)
    if (!bd_node_equal(a->wn_ord[i], c->wn_ord[i]) || a->wn_desc[i] != c->wn_desc[i] ||
        a->wn_nulls_first[i] != c->wn_nulls_first[i])
      return false;
  return true;
}

/* ---- the functions ------------------------------------------------------- */

typedef struct win_name_s {
  const char *wn_name;
  xwin_t wn_kind;
  int wn_min, wn_max;           /* arguments */
} win_name_t;

static const win_name_t win_names[] = {
  {"row_number", XWIN_ROW_NUMBER, 0, 0},   {"rank", XWIN_RANK, 0, 0},
  {"dense_rank", XWIN_DENSE_RANK, 0, 0},   {"percent_rank", XWIN_PERCENT_RANK, 0, 0},
  {"cume_dist", XWIN_CUME_DIST, 0, 0},     {"ntile", XWIN_NTILE, 1, 1},
  {"lag", XWIN_LAG, 1, 3},                 {"lead", XWIN_LEAD, 1, 3},
  {"first_value", XWIN_FIRST_VALUE, 1, 1}, {"last_value", XWIN_LAST_VALUE, 1, 1},
  {"nth_value", XWIN_NTH_VALUE, 2, 2},
};

bool bd_window_only(const char *name)
{
  for (size_t i = 0; i < CZ_ARRAY_LEN(win_names); i++)
    if (strcmp(win_names[i].wn_name, name) == 0)
      return true;
  return false;
}

static int bind_args(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **args, int n)
{
  for (int i = 0; i < n; i++)
    if (bd_expr(b, sc, sql_list_at(x->ex_list, i), &args[i]) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

/* The call's function, its arguments (coerced) and result type. */
static int bind_function(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, bd_wcall_t *c)
{
  int n = sql_list_len(x->ex_list);
  xnode_t *args[4] = {NULL, NULL, NULL, NULL};
  const win_name_t *wn = NULL;
  for (size_t i = 0; i < CZ_ARRAY_LEN(win_names); i++)
    if (strcmp(win_names[i].wn_name, x->ex_name) == 0)
      wn = &win_names[i];
  if (x->ex_distinct)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "DISTINCT is not implemented for window functions");
  if (!wn) {
    if (!xagg_is_aggregate(x->ex_name))
      return bd_error(b, xfunc_exists(x->ex_name) ? SQLSTATE_WRONG_OBJECT_TYPE : SQLSTATE_UNDEFINED_FUNCTION,
                      x->ex_pos, xfunc_exists(x->ex_name)
                                     ? "OVER specified, but %s is not a window function nor an "
                                       "aggregate function"
                                     : "function %s does not exist",
                      x->ex_name);
    if (n > 2)
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                      "aggregates of several arguments are not supported yet");
    if (bind_args(b, sc, x, args, n) != CZ_OK)
      return CZ_ERR;
    ty_t types[2], arg_to[2] = {ty_plain(TY_UNKNOWN), ty_plain(TY_UNKNOWN)};
    for (int i = 0; i < n; i++)
      types[i] = args[i]->x_type;
    xagg_t kind;
    if (xagg_resolve(x->ex_name, x->ex_star, types, n, &kind, arg_to, &c->wc_fn.wf_type,
                     b->b_e) != CZ_OK) {
      b->b_e->er_pos = x->ex_pos;
      return CZ_ERR;
    }
    if (n == 2 && kind != XAGG_STRING_AGG)
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                      "aggregates of several arguments are not supported yet");
    c->wc_fn.wf_kind = XWIN_AGG;
    c->wc_fn.wf_agg = kind;
    c->wc_nargs = kind == XAGG_COUNT_STAR ? 0 : n;
    for (int i = 0; i < c->wc_nargs; i++)
      if (!(c->wc_argx[i] = bd_coerce(b, args[i], arg_to[i])) ||
          !(c->wc_argx[i] = bd_finish_unknown(b, c->wc_argx[i])))
        return CZ_ERR;
    return CZ_OK;
  }
  if (x->ex_filter)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "FILTER is not implemented for non-aggregate window functions");
  if (x->ex_star || n < wn->wn_min || n > wn->wn_max)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, x->ex_pos,
                    "function %s with %d argument%s does not exist", x->ex_name, n,
                    n == 1 ? "" : "s");
  if (bind_args(b, sc, x, args, n) != CZ_OK)
    return CZ_ERR;
  c->wc_fn.wf_kind = wn->wn_kind;
  c->wc_nargs = n;
  ty_t i4 = ty_plain(TY_INT4);
  switch (wn->wn_kind) {
  case XWIN_PERCENT_RANK:
  case XWIN_CUME_DIST: c->wc_fn.wf_type = ty_plain(TY_FLOAT8); break;
  case XWIN_NTILE:
    c->wc_fn.wf_type = i4;
    if (!(args[0] = bd_coerce(b, args[0], i4)))
      return CZ_ERR;
    break;
  case XWIN_LAG:
  case XWIN_LEAD:
    if (n == 3) {
      xnode_t *u[2] = {args[0], args[2]};
      ty_t t;
      if (bd_unify(b, u, 2, x->ex_name, x->ex_pos, &t) != CZ_OK)
        return CZ_ERR;
      args[0] = u[0];
      args[2] = u[1];
    }
    if (n >= 2 && !(args[1] = bd_coerce(b, args[1], i4)))
      return CZ_ERR;
    if (!(args[0] = bd_finish_unknown(b, args[0])))
      return CZ_ERR;
    c->wc_fn.wf_type = args[0]->x_type;
    break;
  case XWIN_NTH_VALUE:
    if (!(args[1] = bd_coerce(b, args[1], i4)))
      return CZ_ERR;
    /* fall through */
  case XWIN_FIRST_VALUE:
  case XWIN_LAST_VALUE:
    if (!(args[0] = bd_finish_unknown(b, args[0])))
      return CZ_ERR;
    c->wc_fn.wf_type = args[0]->x_type;
    break;
  default: c->wc_fn.wf_type = ty_plain(TY_INT8); break;
  }
  for (int i = 0; i < n; i++)
    if (!(c->wc_argx[i] = bd_finish_unknown(b, args[i])))
      return CZ_ERR;
  return CZ_OK;
}

int bd_window_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  if (sc->sc_agg_forbid)
    return bd_error(b, SQLSTATE_WINDOWING_ERROR, x->ex_pos,
                    "window functions are not allowed in %s", sc->sc_agg_forbid);
  if (sc->sc_win && sc->sc_win->wx_forbid)
    return bd_error(b, SQLSTATE_WINDOWING_ERROR, x->ex_pos,
                    "window functions are not allowed in %s", sc->sc_win->wx_forbid);
  if (sc->sc_agg && sc->sc_agg->ag_in_agg)
    return bd_error(b, SQLSTATE_GROUPING_ERROR, x->ex_pos,
                    "aggregate function calls cannot contain window function calls");
  if (sc->sc_win && sc->sc_win->wx_binding)
    return bd_error(b, SQLSTATE_WINDOWING_ERROR, x->ex_pos, "%s", sc->sc_win->wx_binding);
  /* The select list and ORDER BY of a SELECT block are the places with an
   * aggregate context; anywhere else there is no block to add windows to. */
  if (!sc->sc_agg)
    return bd_error(b, SQLSTATE_WINDOWING_ERROR, x->ex_pos,
                    "window functions are not allowed here");
  bd_winctx_t *wx = winctx(b, sc);
  sql_window_t eff;
  if (resolve(b, wx, x->ex_over, sql_list_len(wx->wx_defs), &eff) != CZ_OK)
    return CZ_ERR;
  bd_wcall_t c;
  bd_win_t w;
  memset(&c, 0, sizeof(c));
  wx->wx_binding = "window functions are not allowed in window definitions";
  int rc = bind_window(b, sc, &eff, &w);
  wx->wx_binding = "window function calls cannot be nested";
  if (rc == CZ_OK)
    rc = bind_function(b, sc, x, &c);
  wx->wx_binding = NULL;
  if (rc != CZ_OK)
    return CZ_ERR;
  int k = -1;
  for (int i = 0; i < wx->wx_nwin && k < 0; i++)
    if (windows_equal(&wx->wx_wins[i], &w))
      k = i;
  if (k < 0) {
    if (wx->wx_nwin == wx->wx_capwin) {
      int cap = wx->wx_capwin ? wx->wx_capwin * 2 : 4;
      bd_win_t *nw = arena_alloc(b->b_a, sizeof(bd_win_t) * (size_t)cap);
      if (wx->wx_nwin)
        memcpy(nw, wx->wx_wins, sizeof(bd_win_t) * (size_t)wx->wx_nwin);
      wx->wx_wins = nw;
      wx->wx_capwin = cap;
    }
    k = wx->wx_nwin++;
    wx->wx_wins[k] = w;
  }
  if (wx->wx_ncall == wx->wx_capcall) {
    int cap = wx->wx_capcall ? wx->wx_capcall * 2 : 4;
    bd_wcall_t *nc = arena_alloc(b->b_a, sizeof(bd_wcall_t) * (size_t)cap);
    if (wx->wx_ncall)
      memcpy(nc, wx->wx_calls, sizeof(bd_wcall_t) * (size_t)wx->wx_ncall);
    wx->wx_calls = nc;
    wx->wx_capcall = cap;
  }
  c.wc_win = k;
  /* a distinct index per call until bd_window_logical sets the real one,
   * so that two calls never compare equal */
  c.wc_holder = bd_col(b, sc->sc_width + wx->wx_ncall, c.wc_fn.wf_type);
  c.wc_holder->x_pos = x->ex_pos;
  c.wc_holder->x_subq = (void *)&bd_win_holder_mark;
  wx->wx_calls[wx->wx_ncall++] = c;
  *out = c.wc_holder;
  return CZ_OK;
}

/* ---- planning ----------------------------------------------------------- */

static int rewrite(bd_t *b, const bd_wgroup_t *gr, xnode_t **x)
{
  if (!gr || !*x)
    return CZ_OK;
  return bd_agg_rewrite(b, gr->wg_agg, gr->wg_ngroup, gr->wg_group, *x, x);
}

int bd_window_logical(bd_t *b, bd_scope_t *sc, const bd_wgroup_t *grouped, int base, int *nwin,
                      const lp_window_t **out)
{
  bd_winctx_t *wx = sc->sc_win;
  *nwin = 0;
  *out = NULL;
  if (!wx || wx->wx_ncall == 0)
    return CZ_OK;
  lp_window_t *lw = arena_zalloc(b->b_a, sizeof(lp_window_t) * (size_t)wx->wx_nwin);
  for (int k = 0; k < wx->wx_nwin; k++) {
    bd_win_t *w = &wx->wx_wins[k];
    for (int i = 0; i < w->wn_npart; i++)
      if (rewrite(b, grouped, &w->wn_part[i]) != CZ_OK)
        return CZ_ERR;
    for (int i = 0; i < w->wn_norder; i++)
      if (rewrite(b, grouped, &w->wn_ord[i]) != CZ_OK)
        return CZ_ERR;
    int nargs = 0, nfn = 0;
    for (int c = 0; c < wx->wx_ncall; c++)
      if (wx->wx_calls[c].wc_win == k) {
        nargs += wx->wx_calls[c].wc_nargs;
        nfn++;
      }
    xnode_t **args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(nargs + 1));
    xwin_fn_t *fns = arena_alloc(b->b_a, sizeof(xwin_fn_t) * (size_t)(nfn + 1));
    int at = 0, f = 0;
    for (int c = 0; c < wx->wx_ncall; c++) {
      bd_wcall_t *wc = &wx->wx_calls[c];
      if (wc->wc_win != k)
        continue;
      fns[f] = wc->wc_fn;
      for (int a = 0; a < 3; a++) {
        fns[f].wf_args[a] = -1;
        if (a < wc->wc_nargs) {
          if (rewrite(b, grouped, &wc->wc_argx[a]) != CZ_OK)
            return CZ_ERR;
          fns[f].wf_args[a] = at;
          args[at++] = wc->wc_argx[a];
        }
      }
      /* the placeholder reads the call's result */
      wc->wc_holder->x_index = base + f;
      f++;
    }
    lw[k] = (lp_window_t){.lw_base = base, .lw_npart = w->wn_npart, .lw_norder = w->wn_norder,
                          .lw_part = w->wn_part, .lw_ord = w->wn_ord, .lw_desc = w->wn_desc,
                          .lw_nulls_first = w->wn_nulls_first, .lw_unit = w->wn_unit,
                          .lw_start = w->wn_start, .lw_end = w->wn_end,
                          .lw_start_off = w->wn_start_off, .lw_end_off = w->wn_end_off,
                          .lw_exclude = w->wn_exclude, .lw_nfn = nfn, .lw_fns = fns,
                          .lw_nargs = nargs, .lw_args = args};
    base += nfn;
  }
  *nwin = wx->wx_nwin;
  *out = lw;
  return CZ_OK;
}
