/* sql_bind_record — composite values: (expr).field and (expr).* where expr
 * gives a record with named fields (information_schema._pg_expandarray's
 * (x, n), which pgJDBC reads as (…).x and (…).n).
 *
 * Design notes:
 * - types/ has no composite type, so a record is a TEXT value in
 *   PostgreSQL's text form ('(1,2)', pgcat_record.c) and its shape — the
 *   field names and types — is kept by the binder for the statement
 *   (b_recs); the value's ty_t names it in t_scale (1-based; 0 for every
 *   other text value), so that the shape follows the value through derived
 *   tables, WITH queries and set operations as any type does. A record
 *   leaves the statement as text (the wire shows PostgreSQL's form).
 * - (r).f is _cz_record_field(r, k) cast to field k's type; (r).* in a
 *   select list is one such item per field, each binding r again (a
 *   set-returning r is one function for all of them: sql_bind_srf_list.c
 *   binds equal calls once).
 * - Errors are PostgreSQL's: a field access on a value that is not a
 *   composite is 42809, a field the record lacks 42703.
 */
#include <string.h>

#include "sql/sql_bind_ext.h"

typedef struct bd_recshape_s {
  int rs_n;
  const char **rs_names;
  ty_t *rs_types;
} bd_recshape_t;

ty_t bd_record_type(bd_t *b, int n, const char *const *names, const ty_t *types)
{
  for (int r = 0; r < b->b_nrecs; r++) {
    bd_recshape_t *s = &b->b_recs[r];
    bool same = s->rs_n == n;
    for (int i = 0; same && i < n; i++)
      same = strcmp(s->rs_names[i], names[i]) == 0 && s->rs_types[i].t_id == types[i].t_id &&
             s->rs_types[i].t_elem == types[i].t_elem;
    if (same) {
      ty_t t = ty_plain(TY_TEXT);
      t.t_scale = (int16_t)(r + 1);
      return t;
    }
  }
  bd_recshape_t *nr = arena_alloc(b->b_a, sizeof(*nr) * (size_t)(b->b_nrecs + 1));
  if (b->b_nrecs)
    memcpy(nr, b->b_recs, sizeof(*nr) * (size_t)b->b_nrecs);
  bd_recshape_t *s = &nr[b->b_nrecs];
  s->rs_n = n;
  s->rs_names = arena_alloc(b->b_a, sizeof(char *) * (size_t)n);
  s->rs_types = arena_alloc(b->b_a, sizeof(ty_t) * (size_t)n);
  for (int i = 0; i < n; i++) {
    s->rs_names[i] = names[i];
    s->rs_types[i] = types[i];
  }
  b->b_recs = nr;
  b->b_nrecs++;
  ty_t t = ty_plain(TY_TEXT);
  t.t_scale = (int16_t)b->b_nrecs;
  return t;
}

static const bd_recshape_t *shape_of(const bd_t *b, ty_t t)
{
  if (t.t_id != TY_TEXT || t.t_elem != TY_UNKNOWN || t.t_scale <= 0 || t.t_scale > b->b_nrecs)
    return NULL;
  return &b->b_recs[t.t_scale - 1];
}

/* Field k of the bound record r. */
static int field_of(bd_t *b, const bd_recshape_t *s, xnode_t *r, int k, int pos, xnode_t **out)
{
  xnode_t *args[2] = {r, bd_const_i64(b, TY_INT4, k + 1)};
  xnode_t *f;
  if (bd_ext_call(b, "_cz_record_field", args, 2, pos, &f) != CZ_OK)
    return CZ_ERR;
  ty_t ft = s->rs_types[k];
  if (ft.t_id != TY_TEXT || ft.t_elem != TY_UNKNOWN || ft.t_scale) {
    if (!(f = bd_cast(b, f, ft, pos)))
      return CZ_ERR;
    f->x_type = ft;  /* an array's or a nested record's marks */
  }
  *out = f;
  return CZ_OK;
}

static int record_arg(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **r,
                      const bd_recshape_t **s)
{
  if (bd_expr(b, sc, x->ex_left, r) != CZ_OK)
    return CZ_ERR;
  *s = shape_of(b, (*r)->x_type);
  if (!*s) {
    if (x->ex_name)
      return bd_error(b, SQLSTATE_WRONG_OBJECT_TYPE, x->ex_pos,
                      "column notation .%s applied to type %s, which is not a composite type",
                      x->ex_name, ty_name(b->b_a, (*r)->x_type));
    return bd_error(b, SQLSTATE_WRONG_OBJECT_TYPE, x->ex_pos, "type %s is not composite",
                    ty_name(b->b_a, (*r)->x_type));
  }
  return CZ_OK;
}

int bd_field(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  if (!x->ex_name)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "row expansion via \"*\" is not supported here");
  xnode_t *r;
  const bd_recshape_t *s;
  if (record_arg(b, sc, x, &r, &s) != CZ_OK)
    return CZ_ERR;
  for (int k = 0; k < s->rs_n; k++)
    if (strcmp(s->rs_names[k], x->ex_name) == 0)
      return field_of(b, s, r, k, x->ex_pos, out);
  return bd_error(b, SQLSTATE_UNDEFINED_COLUMN, x->ex_pos, "column \"%s\" not found in data type record",
                  x->ex_name);
}

int bd_field_star(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, int *n, xnode_t ***outs,
                  const char ***names)
{
  xnode_t *r;
  const bd_recshape_t *s;
  if (record_arg(b, sc, x, &r, &s) != CZ_OK)
    return CZ_ERR;
  *n = s->rs_n;
  *outs = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(s->rs_n + 1));
  *names = arena_alloc(b->b_a, sizeof(char *) * (size_t)(s->rs_n + 1));
  for (int k = 0; k < s->rs_n; k++) {
    (*names)[k] = s->rs_names[k];
    if (k > 0 && bd_expr(b, sc, x->ex_left, &r) != CZ_OK)
      return CZ_ERR;
    if (field_of(b, s, r, k, x->ex_pos, &(*outs)[k]) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}
