/* sql_bind_srf — set-returning functions in FROM: generate_series(start,
 * stop [, step]) over integers (psql's `\d` lists publication columns
 * with it), unnest(array) (psql's `\d+` lists TOAST options with it) and
 * pg_options_to_table(options) (pg_dump's options of foreign objects).
 * The function's arguments see the enclosing queries (outer references of
 * a correlated subquery) but not the other FROM items. Its one column is
 * named by the column alias, else the table alias, else the function's
 * name, as in PostgreSQL.
 *
 * unnest(a) over an array's text form is the series array_lower(a, 1) ..
 * array_upper(a, 1) (none for an empty or NULL array) with each number i
 * replaced by a[i] cast to the element type, so it needs no operator of
 * its own. Each function is a logical node (LN_FUNC: the series and the
 * row made of each number) the optimizer generates with its block.
 */
#include <string.h>

#include "sql/sql_bind_ext.h"
#include "sql/sql_int.h"

static bool is_int(ty_id_t id)
{
  return id == TY_INT2 || id == TY_INT4 || id == TY_INT8;
}

/* Adds a one-column range entry to sc (42712 for a repeated name). */
static int scope_add_one(bd_t *b, bd_scope_t *sc, const char *name, const char *col, ty_t t,
                         int pos)
{
  for (int i = 0; i < sc->sc_nrels; i++)
    if (!sc->sc_rels[i]->rl_hidden && strcmp(sc->sc_rels[i]->rl_name, name) == 0 &&
        !sc->sc_rels[i]->rl_schema)
      return bd_error(b, SQLSTATE_DUPLICATE_ALIAS, pos, "table name \"%s\" specified more than once",
                      name);
  bd_rel_t *r = arena_zalloc(b->b_a, sizeof(*r));
  r->rl_name = name;
  r->rl_ncols = 1;
  r->rl_cols = arena_alloc(b->b_a, sizeof(char *));
  r->rl_cols[0] = col;
  r->rl_types = arena_alloc(b->b_a, sizeof(ty_t));
  r->rl_types[0] = t;
  r->rl_base = sc->sc_width;
  bd_rel_t **n = arena_alloc(b->b_a, sizeof(bd_rel_t *) * (size_t)(sc->sc_nrels + 1));
  if (sc->sc_nrels)
    memcpy(n, sc->sc_rels, sizeof(bd_rel_t *) * (size_t)sc->sc_nrels);
  n[sc->sc_nrels++] = r;
  sc->sc_rels = n;
  sc->sc_width += 1;
  return CZ_OK;
}

static void args_scope(bd_scope_t *out, const bd_scope_t *sc)
{
  memset(out, 0, sizeof(*out));
  out->sc_parent = sc->sc_parent;
  out->sc_subq = sc->sc_subq;
  out->sc_agg_forbid = "functions in FROM";
}

/* unnest(a); with options, pg_options_to_table(a): each "name=value"
 * element of a text[] of options (reloptions, fdwoptions …) as the two
 * columns option_name, option_value (pg_dump lists options with it). */
lp_node_t *bd_func_node(bd_t *b, ty_t t, xnode_t *lo, xnode_t *hi, xnode_t *step, int ncols,
                        xnode_t **row)
{
  lp_node_t *n = arena_zalloc(b->b_a, sizeof(*n));
  ty_t *types = arena_alloc(b->b_a, sizeof(ty_t) * (size_t)(ncols + 1));
  for (int c = 0; c < ncols; c++)
    types[c] = row ? row[c]->x_type : t;
  *n = (lp_node_t){.ln_kind = LN_FUNC, .ln_ncols = ncols, .ln_types = types, .ln_fn_type = t,
                   .ln_fn_lo = lo, .ln_fn_hi = hi, .ln_fn_step = step, .ln_fn_row = row};
  return n;
}

static int bd_unnest(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, bool options,
                     lp_node_t **out)
{
  const sql_expr_t *f = fr->fr_func;
  if (sql_list_len(f->ex_list) != 1)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, fr->fr_pos,
                    "unnest of several arrays is not supported");
  bd_scope_t *args_sc = bd_scope_new(b);
  args_scope(args_sc, sc);
  const sql_expr_t *ax = sql_list_at(f->ex_list, 0);
  xnode_t *arr, *lo, *hi, *el;
  if (bd_expr(b, args_sc, ax, &arr) != CZ_OK)
    return CZ_ERR;
  ty_t et = bd_array_elem_of(args_sc, ax, arr);
  ty_id_t id = arr->x_type.t_id;
  if (id != TY_TEXT && id != TY_VARCHAR && id != TY_UNKNOWN)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, fr->fr_pos,
                    "function unnest(%s) does not exist", ty_name(b->b_a, arr->x_type));
  if (!(arr = bd_coerce(b, arr, ty_plain(TY_TEXT))))
    return CZ_ERR;
  /* every element of every dimension, in row-major order, as PostgreSQL */
  xnode_t *dim = bd_const_i64(b, TY_INT4, 1);
  xnode_t *lo_args[2] = {arr, dim}, *hi_args[1] = {arr};
  if (bd_ext_call(b, "array_lower", lo_args, 2, fr->fr_pos, &lo) != CZ_OK ||
      bd_ext_call(b, "array_flat_upper", hi_args, 1, fr->fr_pos, &hi) != CZ_OK)
    return CZ_ERR;
  ty_t i4 = ty_plain(TY_INT4);
  xnode_t *el_args[2] = {arr, bd_col(b, 0, i4)};
  if (bd_ext_call(b, "array_flat_element", el_args, 2, fr->fr_pos, &el) != CZ_OK)
    return CZ_ERR;
  if (et.t_id != TY_TEXT && !(el = bd_cast(b, el, et, fr->fr_pos)))
    return CZ_ERR;
  const char *name = fr->fr_alias ? fr->fr_alias : options ? "pg_options_to_table" : "unnest";
  const char *col = sql_list_len(fr->fr_colnames) ? sql_list_at(fr->fr_colnames, 0)
                    : options                      ? "option_name"
                                                   : name;
  xnode_t **cols = arena_alloc(b->b_a, sizeof(xnode_t *) * 2);
  cols[0] = el;
  if (options) {
    if (bd_ext_call(b, "pg_option_name", &el, 1, fr->fr_pos, &cols[0]) != CZ_OK ||
        bd_ext_call(b, "pg_option_value", &el, 1, fr->fr_pos, &cols[1]) != CZ_OK)
      return CZ_ERR;
  }
  if (scope_add_one(b, sc, name, col, cols[0]->x_type, fr->fr_pos) != CZ_OK)
    return CZ_ERR;
  if (options) {
    /* the value column widens the entry just added */
    bd_rel_t *r = sc->sc_rels[sc->sc_nrels - 1];
    const char **names = arena_alloc(b->b_a, sizeof(char *) * 2);
    ty_t *types = arena_alloc(b->b_a, sizeof(ty_t) * 2);
    names[0] = col;
    names[1] = sql_list_len(fr->fr_colnames) > 1 ? sql_list_at(fr->fr_colnames, 1) : "option_value";
    types[0] = types[1] = ty_plain(TY_TEXT);
    r->rl_ncols = 2;
    r->rl_cols = names;
    r->rl_types = types;
    sc->sc_width += 1;
  }
  *out = bd_func_node(b, i4, lo, hi, NULL, options ? 2 : 1, cols);
  return CZ_OK;
}

/* pg_partition_ancestors(rel) [WITH ORDINALITY]: a table and the
 * partitioned tables above it — nothing is partitioned here, so the one
 * row (rel[, 1]). psql's \d of a table with triggers (its foreign keys)
 * names it so. */
static int bd_partition_ancestors(bd_t *b, bd_scope_t *sc, const sql_from_t *fr,
                                  lp_node_t **out)
{
  const sql_expr_t *f = fr->fr_func;
  if (sql_list_len(f->ex_list) != 1)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, fr->fr_pos,
                    "function pg_partition_ancestors takes 1 argument");
  bd_scope_t *args_sc = bd_scope_new(b);
  args_scope(args_sc, sc);
  xnode_t *rel;
  ty_t i8 = ty_plain(TY_INT8);
  if (bd_expr(b, args_sc, sql_list_at(f->ex_list, 0), &rel) != CZ_OK || !(rel = bd_coerce(b, rel, i8)))
    return CZ_ERR;
  const char *name = fr->fr_alias ? fr->fr_alias : "pg_partition_ancestors";
  int ncol = fr->fr_ordinality ? 2 : 1;
  const char *c0 = sql_list_len(fr->fr_colnames) > 0 ? sql_list_at(fr->fr_colnames, 0) : "relid";
  if (scope_add_one(b, sc, name, c0, i8, fr->fr_pos) != CZ_OK)
    return CZ_ERR;
  if (ncol == 2) {
    /* the ordinality column widens the entry just added */
    bd_rel_t *r = sc->sc_rels[sc->sc_nrels - 1];
    const char **names = arena_alloc(b->b_a, sizeof(char *) * 2);
    ty_t *types = arena_alloc(b->b_a, sizeof(ty_t) * 2);
    names[0] = c0;
    names[1] = sql_list_len(fr->fr_colnames) > 1 ? sql_list_at(fr->fr_colnames, 1) : "ordinality";
    types[0] = types[1] = i8;
    r->rl_ncols = 2;
    r->rl_cols = names;
    r->rl_types = types;
    sc->sc_width += 1;
  }
  xnode_t **cols = arena_alloc(b->b_a, sizeof(xnode_t *) * 2);
  cols[0] = rel;
  cols[1] = bd_col(b, 0, i8);
  *out = bd_func_node(b, i8, bd_const_i64(b, TY_INT8, 1), bd_const_i64(b, TY_INT8, 1), NULL, ncol,
                   cols);
  return CZ_OK;
}

int bd_from_func(bd_t *b, bd_scope_t *sc, const sql_from_t *fr, lp_node_t **out)
{
  const sql_expr_t *f = fr->fr_func;
  if (bd_jsonpath_query_expr(b, f) != f) {
    /* jsonb_path_query in FROM: its one column is named as the function
     * (or its alias), as PostgreSQL names a scalar function's column */
    sql_from_t *q = arena_alloc(b->b_a, sizeof(*q));
    *q = *fr;
    q->fr_func = (sql_expr_t *)bd_jsonpath_query_expr(b, f);  /* a new node here */
    if (!q->fr_alias)
      q->fr_alias = "jsonb_path_query";
    if (!q->fr_colnames)
      q->fr_colnames = sql_list_append(b->b_a, NULL, (void *)q->fr_alias);
    return bd_json_srf(b, sc, q, out);
  }
  if (strcmp(f->ex_name, "pg_partition_ancestors") == 0 &&
      (!f->ex_schema || strcmp(f->ex_schema, "pg_catalog") == 0))
    return bd_partition_ancestors(b, sc, fr, out);
  if (bd_transitive_is(f))
    return bd_transitive(b, sc, fr, out);  /* sql_bind_transitive.c */
  if (bd_json_srf_is(f->ex_name) && (!f->ex_schema || strcmp(f->ex_schema, "pg_catalog") == 0))
    return bd_json_srf(b, sc, fr, out);  /* sql_bind_json_srf.c */
  if (fr->fr_ordinality)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, fr->fr_pos, "WITH ORDINALITY is not supported here");
  bool series = strcmp(f->ex_name, "generate_series") == 0;
  bool options = strcmp(f->ex_name, "pg_options_to_table") == 0;
  if ((!series && !options && strcmp(f->ex_name, "unnest") != 0) ||
      (f->ex_schema && strcmp(f->ex_schema, "pg_catalog") != 0))
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, fr->fr_pos,
                    "function %s in FROM is not supported (only generate_series and unnest)",
                    f->ex_name);
  if (f->ex_over || f->ex_star || f->ex_distinct)
    return bd_error(b, SQLSTATE_SYNTAX_ERROR, fr->fr_pos, "%s is not an aggregate or window function",
                    f->ex_name);
  if (!series)
    return bd_unnest(b, sc, fr, options, out);
  int n = sql_list_len(f->ex_list);
  if (n < 2 || n > 3)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, fr->fr_pos,
                    "function generate_series takes 2 or 3 arguments");
  bd_scope_t *args_sc = bd_scope_new(b);
  args_scope(args_sc, sc);
  xnode_t *a[3] = {NULL, NULL, NULL};
  bool wide = false;
  for (int i = 0; i < n; i++) {
    if (bd_expr(b, args_sc, sql_list_at(f->ex_list, i), &a[i]) != CZ_OK)
      return CZ_ERR;
    ty_id_t id = a[i]->x_type.t_id;
    if (id != TY_UNKNOWN && !is_int(id))
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, fr->fr_pos,
                      "generate_series over %s is not supported (only integers)",
                      ty_name(b->b_a, a[i]->x_type));
    wide |= id == TY_INT8;
  }
  ty_t t = ty_plain(wide ? TY_INT8 : TY_INT4);
  for (int i = 0; i < n; i++)
    if (!(a[i] = bd_coerce(b, a[i], t)))
      return CZ_ERR;
  const char *name = fr->fr_alias ? fr->fr_alias : "generate_series";
  const char *col = sql_list_len(fr->fr_colnames) ? sql_list_at(fr->fr_colnames, 0) : name;
  if (scope_add_one(b, sc, name, col, t, fr->fr_pos) != CZ_OK)
    return CZ_ERR;
  *out = bd_func_node(b, t, a[0], a[1], a[2], 1, NULL);
  return CZ_OK;
}
