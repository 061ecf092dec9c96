/* rdf_sql — the store's SQL functions: ld_dir, rdf_loader_run (the bulk
 * loader, as Virtuoso's) and rdf_term (a term id in N-Triples form).
 *
 * Design notes: registered once per process through exec's function
 * registry (rdf_sql_init, at engine start). They reach the catalog, the
 * statement's transaction and the cancel flag through the environment the
 * engine keeps per session (pgcat_env_t, the hook pgcat uses too), and the
 * file gate (superuser, DirsAllowed) through the engine's path check. The
 * loader functions work in transactions of their own, committed as they
 * go (README.md "Bulk loader"): a ROLLBACK of the calling statement's
 * transaction does not take a load back.
 */
#include <stdatomic.h>
#include <string.h>

#include "exec/expr.h"
#include "rdf/rdf_int.h"

static _Atomic(pgcat_env_fn) rs_env_hook;
static _Atomic(rdf_session_path_fn) rs_path_hook;

typedef struct rs_gate_s {
  rdf_session_path_fn g_fn;
  void *g_session;
} rs_gate_t;

static int rs_gate(void *ctx, const char *path, char *real, err_t *e)
{
  rs_gate_t *g = ctx;
  return g->g_fn(g->g_session, path, real, e);
}

static const pgcat_env_t *rs_env(xctx_t *c, err_t *e)
{
  pgcat_env_fn fn = atomic_load(&rs_env_hook);
  const pgcat_env_t *env = fn && c->xc_session ? fn(c->xc_session) : NULL;
  if (!env || !env->pe_snap) {
    err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE, "RDF function called outside a session");
    return NULL;
  }
  return env;
}

static char *rs_str(xctx_t *c, const datum_t *d)
{
  if (d->d_null)
    return NULL;
  return arena_sprintf(c->xc_arena, "%.*s", (int)d->d_str.s_len, d->d_str.s_ptr);
}

static int rs_load_env(xctx_t *c, rdf_load_env_t *le, rs_gate_t *g, err_t *e)
{
  const pgcat_env_t *env = rs_env(c, e);
  rdf_session_path_fn fn = atomic_load(&rs_path_hook);
  if (!env)
    return CZ_ERR;
  if (!fn)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE, "RDF loader called outside a session");
  g->g_fn = fn;
  g->g_session = c->xc_session;
  *le = (rdf_load_env_t){.le_cat = env->pe_snap->cs_cat, .le_check = rs_gate, .le_check_ctx = g,
                         .le_cancel = env->pe_cancel};
  return CZ_OK;
}

static int rs_ld_dir(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  rdf_load_env_t le;
  rs_gate_t g;
  if (rs_load_env(c, &le, &g, e) != CZ_OK)
    return CZ_ERR;
  if (a[0].d_null)
    return err_set(e, SQLSTATE_NULL_VALUE_NOT_ALLOWED, "ld_dir: the folder must not be null");
  int64_t added;
  if (rdf_ld_dir(&le, rs_str(c, &a[0]), rs_str(c, &a[1]), x->x_nargs > 2 ? rs_str(c, &a[2]) : NULL,
                 &added, e) != CZ_OK)
    return CZ_ERR;
  *out = (datum_t){.d_i64 = added};
  return CZ_OK;
}

static int rs_loader_run(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  rdf_load_env_t le;
  rs_gate_t g;
  if (rs_load_env(c, &le, &g, e) != CZ_OK)
    return CZ_ERR;
  le.le_skip_bad = x->x_nargs > 0 && !a[0].d_null && a[0].d_bool;
  /* before any file is claimed: a session that may not load must not
   * mark the waiting files failed */
  if (g.g_fn(g.g_session, NULL, NULL, e) != CZ_OK)
    return CZ_ERR;
  int64_t files;
  if (rdf_loader_run(&le, &files, e) != CZ_OK)
    return CZ_ERR;
  *out = (datum_t){.d_i64 = files};
  return CZ_OK;
}

/* rdf_term(id): decodes the selected rows' ids with one rdf_dict_decode. */
static int rs_term(xctx_t *c, const xnode_t *x, vec_t *const *args, const int *sel, int nsel,
                   vec_t *out, err_t *e)
{
  (void)x;
  const pgcat_env_t *env = rs_env(c, e);
  if (!env)
    return CZ_ERR;
  /* decoding reads the dictionaries: the caller must be allowed to */
  static const char *const dicts[3] = {"rdf_prefix", "rdf_iri", "rdf_literal"};
  for (int i = 0; i < 3; i++) {
    const cat_table_t *t = cat_find_table(env->pe_snap, RDF_SCHEMA, dicts[i]);
    if (t && cat_check_priv(env->pe_snap, env->pe_user, t, CAT_PRIV_SELECT, e) != CZ_OK)
      return CZ_ERR;
  }
  arena_t *a = arena_create(NULL, "rdf_term");
  rdf_dict_t *d;
  int rc = rdf_dict_open(env->pe_snap->cs_cat, a, &d, e);
  rdf_id_t *ids = arena_alloc(a, sizeof(rdf_id_t) * (size_t)(nsel + 1));
  rdf_term_t *terms = arena_alloc(a, sizeof(rdf_term_t) * (size_t)(nsel + 1));
  for (int i = 0; i < nsel; i++) {
    int r = sel ? sel[i] : i;
    ids[i] = args[0]->v_null[r] ? 0 : (rdf_id_t)args[0]->v_i64[r];
  }
  if (rc == CZ_OK) {
    rc = rdf_dict_decode(d, env->pe_txn, ids, (size_t)nsel, terms, a, e);
    rdf_dict_close(d);
  }
  for (int i = 0; rc == CZ_OK && i < nsel; i++) {
    int r = sel ? sel[i] : i;
    datum_t v = {.d_null = args[0]->v_null[r] || ids[i] == 0};
    if (!v.d_null) {
      char *s = rdf_term_ntriples(&terms[i], c->xc_arena);
      v.d_str = (str_t){s, (uint32_t)strlen(s)};
    }
    vec_set(out, r, &v);
  }
  arena_destroy(a);
  return rc;
}

static const xfunc_def_t rs_funcs[] = {
  {.fd_name = "ld_dir", .fd_nargs = 3, .fd_args = {TY_TEXT, TY_TEXT, TY_TEXT},
   .fd_result = TY_INT8, .fd_flags = XF_VOLATILE, .fd_row = rs_ld_dir},
  {.fd_name = "ld_dir", .fd_nargs = 2, .fd_args = {TY_TEXT, TY_TEXT}, .fd_result = TY_INT8,
   .fd_flags = XF_VOLATILE, .fd_row = rs_ld_dir},
  {.fd_name = "rdf_loader_run", .fd_nargs = 0, .fd_result = TY_INT8, .fd_flags = XF_VOLATILE,
   .fd_row = rs_loader_run},
  {.fd_name = "rdf_loader_run", .fd_nargs = 1, .fd_args = {TY_BOOL}, .fd_result = TY_INT8,
   .fd_flags = XF_VOLATILE, .fd_row = rs_loader_run},
  {.fd_name = "rdf_term", .fd_nargs = 1, .fd_args = {TY_INT8}, .fd_result = TY_TEXT,
   .fd_vec = rs_term},
};

int rdf_sql_init(pgcat_env_fn env, rdf_session_path_fn path, err_t *e)
{
  static atomic_bool registered;
  atomic_store(&rs_env_hook, env);
  atomic_store(&rs_path_hook, path);
  if (atomic_exchange(&registered, true))
    return CZ_OK;
  if (xfunc_register(rs_funcs, (int)(sizeof(rs_funcs) / sizeof(rs_funcs[0])), e) != CZ_OK)
    return CZ_ERR;
  return rdf_sql_fn_init(e);
}
