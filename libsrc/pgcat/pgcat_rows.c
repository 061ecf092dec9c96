/* pgcat_rows — the row builder of the fill functions, and the scans that
 * hand the built rows out in batches.
 *
 * Design notes: values go straight into column vectors (the executor's
 * format), growing by doubling; strings are copied into the scan's arena so
 * that nothing points into a catalog snapshot, which the caller may release
 * before it reads the rows.
 */
#include <string.h>

#include "pgcat/pgcat_int.h"

struct pgcat_scan_s {
  const pgcat_rel_t *sc_rel;
  pgcat_rows_t sc_rows;
  int sc_next;               /* first row not yet handed out */
};

ty_t pgcat_pg_type_storage(pgcat_pgtype_t t)
{
  switch (t) {
  case PGT_BOOL: return ty_plain(TY_BOOL);
  case PGT_INT2: return ty_plain(TY_INT2);
  case PGT_INT4: return ty_plain(TY_INT4);
  case PGT_INT8: return ty_plain(TY_INT8);
  /* oid is unsigned 32-bit: int8 holds every value */
  case PGT_OID: return ty_plain(TY_INT8);
  case PGT_FLOAT4: return ty_plain(TY_FLOAT4);
  case PGT_VARCHAR: return ty_plain(TY_VARCHAR);
  case PGT_INTERVAL: return ty_plain(TY_INTERVAL);
  case PGT_TIMESTAMPTZ: return ty_plain(TY_TIMESTAMPTZ);
  default: /* name, "char", text, regproc (the function's name), pg_node_tree,
            * vectors and arrays (PostgreSQL's text form) */
    return ty_plain(TY_TEXT);
  }
}

bool pgcat_pgtype_elem(pgcat_pgtype_t t, pgcat_pgtype_t *elem)
{
  switch (t) {
  case PGT_INT2VECTOR:
  case PGT_INT2_ARRAY: *elem = PGT_INT2; return true;
  case PGT_OIDVECTOR:
  case PGT_OID_ARRAY: *elem = PGT_OID; return true;
  case PGT_CHAR_ARRAY: *elem = PGT_CHAR; return true;
  case PGT_TEXT_ARRAY:
  case PGT_ACLITEM_ARRAY: *elem = PGT_TEXT; return true;
  default: return false;
  }
}

int pgcat_rows_init(pgcat_rows_t *w, const pgcat_rel_t *r, arena_t *a, err_t *e)
{
  memset(w, 0, sizeof *w);
  w->pw_rel = r;
  w->pw_arena = a;
  w->pw_cap = 64;
  w->pw_cols = arena_zalloc(a, (size_t)r->pr_ncols * sizeof *w->pw_cols);
  for (int i = 0; i < r->pr_ncols; i++)
    if (vec_init(&w->pw_cols[i], a, pgcat_pg_type_storage(r->pr_cols[i].pc_type), w->pw_cap, e))
      return CZ_ERR;
  return CZ_OK;
}

/* Room for row pw_n: doubles every vector when full. */
static void pgcat_grow(pgcat_rows_t *w)
{
  if (w->pw_n < w->pw_cap)
    return;
  int cap = w->pw_cap * 2;
  for (int i = 0; i < w->pw_rel->pr_ncols; i++) {
    vec_t nv;
    err_t e;
    /* arena allocation aborts on exhaustion, so vec_init cannot fail here */
    if (vec_init(&nv, w->pw_arena, w->pw_cols[i].v_type, cap, &e))
      return;
    for (int r = 0; r < w->pw_n; r++) {
      datum_t d;
      vec_get(&w->pw_cols[i], r, &d);
      vec_set(&nv, r, &d);
    }
    w->pw_cols[i] = nv;
  }
  w->pw_cap = cap;
}

/* The vector of the next value, or NULL past the last column. */
static vec_t *pgcat_next_col(pgcat_rows_t *w)
{
  if (w->pw_col >= w->pw_rel->pr_ncols) {
    w->pw_bad = true;
    return NULL;
  }
  pgcat_grow(w);
  return &w->pw_cols[w->pw_col++];
}

void pgcat_put_null(pgcat_rows_t *w)
{
  vec_t *v = pgcat_next_col(w);
  if (!v)
    return;
  datum_t d = {.d_null = true};
  vec_set(v, w->pw_n, &d);
}

void pgcat_put_int(pgcat_rows_t *w, int64_t x)
{
  vec_t *v = pgcat_next_col(w);
  if (!v)
    return;
  datum_t d = {.d_null = false};
  switch (ty_phys(v->v_type.t_id)) {
  case TP_I64: d.d_i64 = x; break;
  case TP_F64: d.d_f64 = (double)x; break;
  case TP_BOOL: d.d_bool = x != 0; break;
  default: { /* a text column holding a number */
    char *s = arena_sprintf(w->pw_arena, "%lld", (long long)x);
    d.d_str.s_ptr = s;
    d.d_str.s_len = (uint32_t)strlen(s);
    break;
  }
  }
  vec_set(v, w->pw_n, &d);
}

void pgcat_put_interval_secs(pgcat_rows_t *w, int64_t secs)
{
  vec_t *v = pgcat_next_col(w);
  if (!v)
    return;
  if (ty_phys(v->v_type.t_id) != TP_IV) {
    w->pw_bad = true;
    return;
  }
  datum_t d = {.d_null = false};
  d.d_iv.iv_us = secs * 1000000;
  vec_set(v, w->pw_n, &d);
}

void pgcat_put_bool(pgcat_rows_t *w, bool x)
{
  vec_t *v = pgcat_next_col(w);
  if (!v)
    return;
  datum_t d = {.d_null = false};
  if (ty_phys(v->v_type.t_id) != TP_BOOL) {
    w->pw_bad = true;
    return;
  }
  d.d_bool = x;
  vec_set(v, w->pw_n, &d);
}

void pgcat_put_f64(pgcat_rows_t *w, double x)
{
  vec_t *v = pgcat_next_col(w);
  if (!v)
    return;
  datum_t d = {.d_null = false};
  if (ty_phys(v->v_type.t_id) != TP_F64) {
    w->pw_bad = true;
    return;
  }
  d.d_f64 = x;
  vec_set(v, w->pw_n, &d);
}

void pgcat_put_text(pgcat_rows_t *w, const char *s)
{
  if (!s) {
    pgcat_put_null(w);
    return;
  }
  vec_t *v = pgcat_next_col(w);
  if (!v)
    return;
  if (ty_phys(v->v_type.t_id) != TP_STR) {
    w->pw_bad = true;
    return;
  }
  datum_t d = {.d_null = false};
  d.d_str.s_ptr = arena_strdup(w->pw_arena, s);
  d.d_str.s_len = (uint32_t)strlen(s);
  vec_set(v, w->pw_n, &d);
}

void pgcat_put_char(pgcat_rows_t *w, char c)
{
  char s[2] = {c, 0};
  pgcat_put_text(w, s);
}

int pgcat_fill_empty(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  (void)w, (void)env, (void)e;
  return CZ_OK;
}

int pgcat_row_end(pgcat_rows_t *w, err_t *e)
{
  if (w->pw_bad || w->pw_col != w->pw_rel->pr_ncols)
    return err_set(e, SQLSTATE_INTERNAL, "pg_catalog relation %s: a row has the wrong values",
                   w->pw_rel->pr_name);
  w->pw_n++;
  w->pw_col = 0;
  return CZ_OK;
}

int pgcat_scan_open(const pgcat_rel_t *r, const pgcat_env_t *env, arena_t *a,
                    pgcat_scan_t **out, err_t *e)
{
  *out = NULL;
  if (!env || !env->pe_snap)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE, "no catalog snapshot for %s", r->pr_name);
  pgcat_scan_t *sc = arena_zalloc(a, sizeof *sc);
  sc->sc_rel = r;
  if (pgcat_rows_init(&sc->sc_rows, r, a, e) || r->pr_fill(&sc->sc_rows, env, e))
    return CZ_ERR;
  *out = sc;
  return CZ_OK;
}

int pgcat_scan_next(pgcat_scan_t *sc, const int *cols, int ncols, batch_t *out, err_t *e)
{
  const pgcat_rows_t *w = &sc->sc_rows;
  int nrel = w->pw_rel->pr_ncols;
  if (!cols)
    ncols = nrel;
  if (out->b_ncols != ncols)
    return err_set(e, SQLSTATE_INTERNAL, "scan of %s into a batch of %d columns, not %d",
                   w->pw_rel->pr_name, out->b_ncols, ncols);
  for (int c = 0; c < ncols; c++)
    if (cols && (cols[c] < 0 || cols[c] >= nrel))
      return err_set(e, SQLSTATE_INTERNAL, "scan of %s: no column %d", w->pw_rel->pr_name,
                     cols[c]);
  int n = w->pw_n - sc->sc_next;
  for (int c = 0; c < ncols; c++)
    n = CZ_MIN(n, out->b_cols[c].v_cap);
  for (int c = 0; c < ncols; c++) {
    const vec_t *src = &w->pw_cols[cols ? cols[c] : c];
    for (int i = 0; i < n; i++) {
      datum_t d;
      vec_get(src, sc->sc_next + i, &d);
      vec_set(&out->b_cols[c], i, &d);
    }
  }
  out->b_n = n;
  sc->sc_next += n;
  return CZ_OK;
}

int pgcat_rows(const pgcat_rel_t *r, const pgcat_env_t *env, arena_t *a, const batch_t **out,
               err_t *e)
{
  pgcat_scan_t *sc;
  *out = NULL;
  if (pgcat_scan_open(r, env, a, &sc, e))
    return CZ_ERR;
  batch_t *b = arena_zalloc(a, sizeof *b);
  b->b_n = sc->sc_rows.pw_n;
  b->b_ncols = r->pr_ncols;
  b->b_cols = sc->sc_rows.pw_cols;
  *out = b;
  return CZ_OK;
}
