/* sql_bind_srf_list — set-returning functions in a select list, with
 * PostgreSQL 10+'s semantics: the functions of one select list run in
 * lockstep, one output row per member of the longest, the shorter ones
 * giving NULL; they run after grouping, aggregates, HAVING and window
 * functions and before DISTINCT, ORDER BY and LIMIT (which may name their
 * results). Supported: generate_series over integers, unnest(array),
 * generate_subscripts(array, dim [, reverse]),
 * information_schema._pg_expandarray(array) (a record (x, n):
 * sql_bind_record.c) and json[b]_array_elements[_text] and
 * json[b]_object_keys (a series over the document's items, as in FROM:
 * sql_bind_json_srf.c; json_each, a record, is not done here).
 *
 * Design notes:
 * - Each function is an integer series (start, stop, step) plus a value
 *   that is an ordinary expression of the series' counter: unnest(a) runs
 *   over a's subscripts with value a[i], generate_subscripts gives the
 *   counter, _pg_expandarray the record (a[i], i - lower + 1). So one
 *   operator, op_project_set (exec), counts for all of them, and the
 *   values are computed by the block's projection above it.
 * - A call binds to a placeholder node (an X_COL marked like the window
 *   placeholders, which the GROUP BY rewrite passes through) whose type is
 *   the value's; bd_srf_logical, when the block's row is complete (grouped
 *   or not), rewrites the arguments over that row, puts the ProjectSet on
 *   the plan and overwrites each placeholder in place with its value
 *   expression over the counter column. Equal calls (same function, equal
 *   arguments) are one function: ORDER BY unnest(a) sorts the select
 *   list's unnest(a), and (f(a)).* calls f once.
 * - Where PostgreSQL refuses them, so does the binder (0A000): WHERE,
 *   JOIN ON, HAVING, CASE, COALESCE, VALUES, UPDATE's SET, aggregate
 *   arguments; and where it does not (not supported here): GROUP BY and
 *   calls nested in another's arguments.
 */
#include <string.h>

#include "exec/exec_pg.h"
#include "sql/sql_bind_ext.h"

typedef enum srf_kind_e { SRF_SERIES, SRF_UNNEST, SRF_SUBSCRIPTS, SRF_EXPAND, SRF_JSON } srf_kind_t;

typedef struct bd_srf_s {
  srf_kind_t sf_kind;
  int sf_nargs;
  xnode_t *sf_args[3];          /* bound over the block's row, as the call wrote them */
  ty_t sf_elem;                 /* an array's element type (unnest, _pg_expandarray) */
  bool sf_reverse;              /* generate_subscripts(…, true) */
  xnode_t *sf_holder;           /* the placeholder the call bound to */
  const char *sf_name;          /* SRF_JSON: which function */
} bd_srf_t;

static bool is_json_srf(const sql_expr_t *x)
{
  static const char *const names[] = {
    "json_array_elements", "json_array_elements_text", "json_object_keys",
    "jsonb_array_elements", "jsonb_array_elements_text", "jsonb_object_keys",
  };
  if (x->ex_schema && strcmp(x->ex_schema, "pg_catalog") != 0)
    return false;
  for (size_t i = 0; i < CZ_ARRAY_LEN(names); i++)
    if (strcmp(x->ex_name, names[i]) == 0)
      return true;
  return false;
}

struct bd_srfctx_s {
  int sx_n, sx_cap;
  bd_srf_t *sx_srfs;
  const char *sx_forbid;        /* binding a part where they are not allowed ("HAVING") */
  bool sx_in_args;              /* binding a set-returning function's arguments */
};

/* The mark of a placeholder: its x_subq (unused by X_COL). */
static const char bd_srf_holder_mark = 0;

bool bd_srf_is_holder(const xnode_t *x)
{
  return x->x_kind == X_COL && x->x_subq == &bd_srf_holder_mark;
}

bool bd_srf_any(const bd_scope_t *sc)
{
  return sc->sc_srf && sc->sc_srf->sx_n > 0;
}

void bd_srf_begin(bd_t *b, bd_scope_t *sc)
{
  sc->sc_srf = arena_zalloc(b->b_a, sizeof(*sc->sc_srf));
}

const char *bd_srf_forbid(bd_scope_t *sc, const char *where)
{
  if (!sc->sc_srf)
    return NULL;
  const char *prev = sc->sc_srf->sx_forbid;
  sc->sc_srf->sx_forbid = where;
  return prev;
}

static bool is_named(const sql_expr_t *x, const char *name, const char *schema)
{
  return strcmp(x->ex_name, name) == 0 &&
         (!x->ex_schema || strcmp(x->ex_schema, schema) == 0);
}

bool bd_srf_name(const sql_expr_t *x)
{
  return !x->ex_over && (is_named(x, "unnest", "pg_catalog") || is_named(x, "generate_series", "pg_catalog") ||
                         is_named(x, "generate_subscripts", "pg_catalog") ||
                         is_named(x, "_pg_expandarray", "information_schema") || is_json_srf(x));
}

static bool is_int(ty_id_t id)
{
  return id == TY_INT2 || id == TY_INT4 || id == TY_INT8;
}

/* The call's arguments, checked per function; *t its value's type. */
static int srf_args(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, bd_srf_t *f, ty_t *t)
{
  int n = sql_list_len(x->ex_list);
  if (is_json_srf(x)) {
    f->sf_kind = SRF_JSON;
    f->sf_name = x->ex_name;
    if (n != 1)
      return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, x->ex_pos, "function %s takes 1 argument", x->ex_name);
    f->sf_nargs = 1;
    sc->sc_srf->sx_in_args = true;
    int rc = bd_expr(b, sc, sql_list_at(x->ex_list, 0), &f->sf_args[0]);
    sc->sc_srf->sx_in_args = false;
    if (rc != CZ_OK)
      return CZ_ERR;
    bool jb = strncmp(x->ex_name, "jsonb", 5) == 0;
    ty_id_t id = f->sf_args[0]->x_type.t_id, want = jb ? TY_JSONB : TY_JSON;
    if (id != want && id != TY_UNKNOWN)
      return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, x->ex_pos, "function %s(%s) does not exist", x->ex_name,
                      ty_name(b->b_a, f->sf_args[0]->x_type));
    if (!(f->sf_args[0] = bd_coerce(b, f->sf_args[0], ty_plain(want))))
      return CZ_ERR;
    bool text = strstr(x->ex_name, "_text") || strstr(x->ex_name, "_keys");
    *t = ty_plain(text ? TY_TEXT : want);
    return CZ_OK;
  }
  f->sf_kind = strcmp(x->ex_name, "generate_series") == 0       ? SRF_SERIES
               : strcmp(x->ex_name, "unnest") == 0              ? SRF_UNNEST
               : strcmp(x->ex_name, "generate_subscripts") == 0 ? SRF_SUBSCRIPTS
                                                                : SRF_EXPAND;
  int lo = f->sf_kind == SRF_SERIES ? 2 : f->sf_kind == SRF_SUBSCRIPTS ? 2 : 1;
  int hi = f->sf_kind == SRF_SERIES || f->sf_kind == SRF_SUBSCRIPTS ? 3 : 1;
  if (n < lo || n > hi) {
    if (f->sf_kind == SRF_UNNEST && n > 1)
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                      "unnest of several arrays is not supported");
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, x->ex_pos,
                    "function %s takes %d to %d arguments", x->ex_name, lo, hi);
  }
  f->sf_nargs = n;
  sc->sc_srf->sx_in_args = true;
  for (int i = 0; i < n; i++)
    if (bd_expr(b, sc, sql_list_at(x->ex_list, i), &f->sf_args[i]) != CZ_OK)
      return CZ_ERR;
  sc->sc_srf->sx_in_args = false;
  if (f->sf_kind == SRF_SERIES) {
    bool wide = false;
    for (int i = 0; i < n; i++) {
      ty_id_t id = f->sf_args[i]->x_type.t_id;
      if (id != TY_UNKNOWN && !is_int(id))
        return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                        "generate_series over %s is not supported (only integers)",
                        ty_name(b->b_a, f->sf_args[i]->x_type));
      wide |= id == TY_INT8;
    }
    *t = ty_plain(wide ? TY_INT8 : TY_INT4);
    for (int i = 0; i < n; i++)
      if (!(f->sf_args[i] = bd_coerce(b, f->sf_args[i], *t)))
        return CZ_ERR;
    return CZ_OK;
  }
  /* an array argument: unnest, generate_subscripts, _pg_expandarray */
  xnode_t *arr = f->sf_args[0];
  f->sf_elem = bd_array_elem_of(sc, sql_list_at(x->ex_list, 0), arr);
  ty_id_t id = arr->x_type.t_id;
  if (id != TY_TEXT && id != TY_VARCHAR && id != TY_UNKNOWN)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, x->ex_pos, "function %s(%s) does not exist",
                    x->ex_name, ty_name(b->b_a, arr->x_type));
  if (!(f->sf_args[0] = bd_coerce(b, arr, ty_plain(TY_TEXT))))
    return CZ_ERR;
  if (f->sf_kind == SRF_UNNEST) {
    *t = f->sf_elem;
    return CZ_OK;
  }
  if (f->sf_kind == SRF_EXPAND) {
    const char *names[2] = {"x", "n"};
    ty_t types[2] = {f->sf_elem, ty_plain(TY_INT4)};
    *t = bd_record_type(b, 2, names, types);
    return CZ_OK;
  }
  if (!(f->sf_args[1] = bd_coerce(b, f->sf_args[1], ty_plain(TY_INT4))))
    return CZ_ERR;
  if (n == 3) {
    xnode_t *rv = bd_coerce(b, f->sf_args[2], ty_plain(TY_BOOL));
    if (!rv)
      return CZ_ERR;
    if (rv->x_kind != X_CONST)
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                      "generate_subscripts with a reverse flag that is not a constant is not supported");
    f->sf_reverse = !rv->x_const.d_null && rv->x_const.d_bool;
    f->sf_nargs = 2;
  }
  *t = ty_plain(TY_INT4);
  return CZ_OK;
}

int bd_srf_call(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  bd_srfctx_t *sx = sc->sc_srf;
  if (sc->sc_agg && sc->sc_agg->ag_in_agg)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "aggregate function calls cannot contain set-returning function calls");
  if (!sx || sx->sx_forbid || sc->sc_agg_forbid)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "set-returning functions are not allowed in %s",
                    sx && sx->sx_forbid ? sx->sx_forbid
                    : sc->sc_agg_forbid ? sc->sc_agg_forbid
                                        : "this context");
  if (sx->sx_in_args)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "set-returning functions as arguments of set-returning functions are not supported");
  if (x->ex_star || x->ex_distinct || x->ex_filter || x->ex_agg_order)
    return bd_error(b, SQLSTATE_WRONG_OBJECT_TYPE, x->ex_pos, "%s is not an aggregate function",
                    x->ex_name);
  bd_srf_t f;
  memset(&f, 0, sizeof(f));
  ty_t t;
  if (srf_args(b, sc, x, &f, &t) != CZ_OK)
    return CZ_ERR;
  for (int k = 0; k < sx->sx_n; k++) {
    const bd_srf_t *g = &sx->sx_srfs[k];
    bool same = g->sf_kind == f.sf_kind && g->sf_nargs == f.sf_nargs && g->sf_reverse == f.sf_reverse &&
                (f.sf_kind != SRF_JSON || strcmp(g->sf_name, f.sf_name) == 0);
    for (int i = 0; same && i < f.sf_nargs; i++)
      same = bd_node_equal(g->sf_args[i], f.sf_args[i]);
    if (same) {
      *out = g->sf_holder;
      return CZ_OK;
    }
  }
  if (sx->sx_n == sx->sx_cap) {
    int cap = sx->sx_cap ? 2 * sx->sx_cap : 4;
    bd_srf_t *n = arena_alloc(b->b_a, sizeof(*n) * (size_t)cap);
    if (sx->sx_n)
      memcpy(n, sx->sx_srfs, sizeof(*n) * (size_t)sx->sx_n);
    sx->sx_srfs = n;
    sx->sx_cap = cap;
  }
  /* the index only keeps placeholders apart (bd_node_equal); the real
   * column is set by bd_srf_logical */
  f.sf_holder = bd_col(b, sc->sc_width + 100000 + sx->sx_n, t);
  f.sf_holder->x_pos = x->ex_pos;
  f.sf_holder->x_subq = (void *)&bd_srf_holder_mark;
  sx->sx_srfs[sx->sx_n++] = f;
  *out = f.sf_holder;
  return CZ_OK;
}

static int rewrite(bd_t *b, const bd_wgroup_t *gr, xnode_t **x)
{
  if (!gr || !*x)
    return CZ_OK;
  return bd_agg_rewrite(b, gr->wg_agg, gr->wg_ngroup, gr->wg_group, *x, x);
}

static xnode_t *as_i8(bd_t *b, xnode_t *x)
{
  return bd_coerce(b, x, ty_plain(TY_INT8));
}

/* The series and the value of f, its counter in column ctr. */
static int srf_build(bd_t *b, bd_srf_t *f, int ctr, xnode_t **bounds, xnode_t **value)
{
  int pos = f->sf_holder->x_pos;
  xnode_t *i8 = bd_col(b, ctr, ty_plain(TY_INT8));
  xnode_t *arr = f->sf_args[0];
  bounds[2] = NULL;
  if (f->sf_kind == SRF_SERIES) {
    for (int k = 0; k < f->sf_nargs; k++)
      if (!(bounds[k] = as_i8(b, f->sf_args[k])))
        return CZ_ERR;
    *value = bd_coerce(b, i8, f->sf_holder->x_type);
    return *value ? CZ_OK : CZ_ERR;
  }
  if (f->sf_kind == SRF_JSON) {
    /* items 0 .. count - 1, each read by its number (sql_bind_json_srf.c) */
    xnode_t *name = bd_node(b, X_CONST, ty_plain(TY_TEXT), pos), *cnt, *last, *v;
    name->x_const.d_str.s_ptr = f->sf_name;
    name->x_const.d_str.s_len = (uint32_t)strlen(f->sf_name);
    xnode_t *cargs[2] = {arr, name}, *i4 = bd_coerce(b, i8, ty_plain(TY_INT4));
    if (!i4 || bd_ext_call(b, "_cz_json_srf_count", cargs, 2, pos, &cnt) != CZ_OK ||
        bd_op(b, XOP_SUB, cnt, bd_const_i64(b, TY_INT4, 1), pos, &last) != CZ_OK)
      return CZ_ERR;
    bounds[0] = bd_const_i64(b, TY_INT8, 0);
    if (!(bounds[1] = as_i8(b, last)))
      return CZ_ERR;
    const char *fn = strstr(f->sf_name, "_keys") ? "_cz_json_srf_key"
                     : strstr(f->sf_name, "_text") ? "_cz_json_srf_value_text"
                                                   : "_cz_json_srf_value";
    xnode_t *args[2] = {arr, i4};
    if (bd_ext_call(b, fn, args, 2, pos, &v) != CZ_OK)
      return CZ_ERR;
    *value = v;
    return CZ_OK;
  }
  xnode_t *lo, *hi, *i4 = bd_coerce(b, i8, ty_plain(TY_INT4));
  xnode_t *dim = f->sf_kind == SRF_SUBSCRIPTS ? f->sf_args[1] : bd_const_i64(b, TY_INT4, 1);
  xnode_t *lo_args[2] = {arr, dim}, *hi_args[2] = {arr, dim};
  if (!i4 || bd_ext_call(b, "array_lower", lo_args, 2, pos, &lo) != CZ_OK ||
      (f->sf_kind == SRF_UNNEST ? bd_ext_call(b, "array_flat_upper", hi_args, 1, pos, &hi)
                                : bd_ext_call(b, "array_upper", hi_args, 2, pos, &hi)) != CZ_OK)
    return CZ_ERR;
  if (!(bounds[0] = as_i8(b, f->sf_reverse ? hi : lo)) || !(bounds[1] = as_i8(b, f->sf_reverse ? lo : hi)))
    return CZ_ERR;
  if (f->sf_reverse)
    bounds[2] = bd_const_i64(b, TY_INT8, -1);
  xnode_t *args[2] = {arr, i4};
  switch (f->sf_kind) {
  case SRF_SUBSCRIPTS:
    *value = i4;
    return CZ_OK;
  case SRF_EXPAND:
    if (bd_ext_call(b, "_cz_expandarray_row", args, 2, pos, value) != CZ_OK)
      return CZ_ERR;
    (*value)->x_type = f->sf_holder->x_type;  /* the record's shape */
    return CZ_OK;
  default:
    if (bd_ext_call(b, "array_flat_element", args, 2, pos, value) != CZ_OK)
      return CZ_ERR;
    if (f->sf_elem.t_id != TY_TEXT && !(*value = bd_cast(b, *value, f->sf_elem, pos)))
      return CZ_ERR;
    (*value)->x_type = f->sf_holder->x_type;
    return CZ_OK;
  }
}

int bd_srf_logical(bd_t *b, bd_scope_t *sc, const bd_wgroup_t *grouped, int base, int *n,
                   xnode_t ***bounds_out)
{
  bd_srfctx_t *sx = sc->sc_srf;
  *n = 0;
  *bounds_out = NULL;
  if (!sx || sx->sx_n == 0)
    return CZ_OK;
  xnode_t **bounds = arena_zalloc(b->b_a, sizeof(xnode_t *) * (size_t)(3 * sx->sx_n));
  xnode_t **values = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)sx->sx_n);
  for (int k = 0; k < sx->sx_n; k++) {
    bd_srf_t *f = &sx->sx_srfs[k];
    for (int i = 0; i < f->sf_nargs; i++)
      if (rewrite(b, grouped, &f->sf_args[i]) != CZ_OK)
        return CZ_ERR;
    if (srf_build(b, f, base + k, &bounds[3 * k], &values[k]) != CZ_OK)
      return CZ_ERR;
  }
  /* every use of a placeholder now reads its value */
  for (int k = 0; k < sx->sx_n; k++) {
    int pos = sx->sx_srfs[k].sf_holder->x_pos;
    *sx->sx_srfs[k].sf_holder = *values[k];
    sx->sx_srfs[k].sf_holder->x_pos = pos;
  }
  *n = sx->sx_n;
  *bounds_out = bounds;
  return CZ_OK;
}
