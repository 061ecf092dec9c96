/* en_pgcat — pgcat's relations and functions wired into the engine: the
 * session's pgcat_env_t, the binder's lookup of virtual relations and
 * their scans (see en_pgcat.h). */
#include <stdatomic.h>
#include <string.h>
#include <strings.h>

#include "engine/runner/en_pgcat.h"
#include "rdf/rdf.h"

struct en_pgcat_s {
  const char *pg_database;      /* as the client asked (session arena) */
  int32_t pg_id;                /* pg_backend_pid() */
  pgcat_env_t pg_env;
  arena_t *pg_arena;            /* pg_settings' array, rebuilt when a setting changes */
  int pg_nset, pg_capset;
  pgcat_setting_t *pg_set;
  const char **pg_seen;         /* the setting values the array was built from */
  cat_seq_session_t *pg_seqs;   /* currval, lastval and cached values of sequences */
};

struct en_pgscan_s {
  pgcat_scan_t *ps_scan;
  const int *ps_cols;
  int ps_ncols;
};

static atomic_int en_pgcat_next_id = 1;

/* PostgreSQL's spelling of the settings the session keeps in lower case. */
static const char *setting_display(const char *name)
{
  static const char *mixed[] = {"DateStyle", "IntervalStyle", "TimeZone"};
  for (size_t i = 0; i < CZ_ARRAY_LEN(mixed); i++)
    if (strcasecmp(mixed[i], name) == 0)
      return mixed[i];
  return name;
}

/* The server's fixed limits, shown as PostgreSQL's read-only "preset"
 * settings (pgJDBC reads max_index_keys before listing foreign keys). */
#define EN_STR2(x) #x
#define EN_STR(x) EN_STR2(x)
static const pgcat_setting_t en_presets[] = {
    {"max_index_keys", EN_STR(CAT_MAX_INDEX_KEYS)},
    {"max_function_args", EN_STR(XF_MAX_ARGS)},
};

/* A pass over the session's settings (es_settings_each): counts them and
 * notes whether each is the value the array was built from; with fill,
 * puts them into the array. */
typedef struct settings_pass_s {
  en_pgcat_t *sp_p;
  int sp_n;
  bool sp_same;
  bool sp_fill;
} settings_pass_t;

static void settings_visit(void *ctx, const char *name, const char *value)
{
  settings_pass_t *sp = ctx;
  en_pgcat_t *p = sp->sp_p;
  int i = sp->sp_n++;
  if (!sp->sp_fill) {
    if (i >= p->pg_nset || p->pg_seen[i] != value)
      sp->sp_same = false;
    return;
  }
  p->pg_set[i].pst_name = setting_display(name);
  p->pg_set[i].pst_value = value;
  p->pg_seen[i] = value;
}

/* Rebuilds the settings array only when a value changed: the session
 * gives a changed setting a new string, so comparing the pointers is
 * enough. The presets follow the session's settings. */
static void refresh_settings(esession_t *s, en_pgcat_t *p)
{
  settings_pass_t sp = {.sp_p = p, .sp_same = true};
  es_settings_each(s, settings_visit, &sp);
  int n = sp.sp_n;
  if (sp.sp_same && n == p->pg_nset)
    return;
  arena_reset(p->pg_arena);
  int np = (int)CZ_ARRAY_LEN(en_presets);
  p->pg_set = arena_alloc(p->pg_arena, sizeof(pgcat_setting_t) * (size_t)(n + np + 1));
  p->pg_seen = arena_alloc(p->pg_arena, sizeof(char *) * (size_t)(n + 1));
  sp = (settings_pass_t){.sp_p = p, .sp_fill = true};
  es_settings_each(s, settings_visit, &sp);
  p->pg_nset = n;
  for (int k = 0; k < np; k++)
    p->pg_set[n + k] = en_presets[k];
}

static int env_set(void *ctx, const char *name, const char *value, err_t *e)
{
  return es_set_setting(ctx, name, value, e);
}

const pgcat_env_t *en_pgcat_env(esession_t *s)
{
  en_pgcat_t *p = es_pgcat(s);
  if (!p)
    return NULL;
  refresh_settings(s, p);
  pgcat_env_t *env = &p->pg_env;
  env->pe_snap = es_snapshot(s);
  env->pe_user = es_role_oid(s);
  env->pe_session_user = es_role_oid(s);  /* no SET ROLE: both are the login role */
  env->pe_database = p->pg_database;
  env->pe_backend_pid = p->pg_id;
  env->pe_nsettings = p->pg_nset + (int)CZ_ARRAY_LEN(en_presets);
  env->pe_settings = p->pg_set;
  env->pe_seqs = p->pg_seqs;
  env->pe_txn = es_txn(s);
  env->pe_cancel = es_cancel_flag(s);
  env->pe_set = env_set;
  env->pe_set_ctx = s;
  return env;
}

static const pgcat_env_t *env_hook(void *session)
{
  return session ? en_pgcat_env(session) : NULL;
}

int en_pgcat_init(err_t *e)
{
  if (pgcat_init(env_hook, e) != CZ_OK)
    return CZ_ERR;
  /* the RDF store's functions see the same environment */
  return rdf_sql_init(env_hook, en_file_check_path, e);
}

en_pgcat_t *en_pgcat_session_open(arena_t *a, const char *database, const char *role)
{
  en_pgcat_t *p = arena_zalloc(a, sizeof(*p));
  p->pg_database = arena_strdup(a, database && *database ? database : role);
  p->pg_id = atomic_fetch_add(&en_pgcat_next_id, 1);
  p->pg_arena = arena_create(a, "pgcat settings");
  p->pg_seqs = cat_seq_session_new(a);
  return p;
}

cat_seq_session_t *en_seq_session(esession_t *s)
{
  en_pgcat_t *p = es_pgcat(s);
  return p ? p->pg_seqs : NULL;
}

void en_pgcat_set_backend_pid(en_pgcat_t *p, int32_t pid)
{
  if (p)
    p->pg_id = pid;
}

int en_pgcat_table(esession_t *s, const char *schema, const char *name, arena_t *a,
                   const sp_table_t **out, err_t *e)
{
  (void)s, (void)e;
  const pgcat_rel_t *r = pgcat_find(schema, name);
  if (!r)
    return 1;
  int n = pgcat_ncols(r);
  sp_table_t *t = arena_zalloc(a, sizeof(*t));
  const char **names = arena_alloc(a, sizeof(char *) * (size_t)(n + 1));
  ty_t *types = arena_alloc(a, sizeof(ty_t) * (size_t)(n + 1));
  ty_id_t *sub = arena_alloc(a, sizeof(ty_id_t) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    names[i] = pgcat_col_name(r, i);
    types[i] = pgcat_col_type(r, i);
    /* A column of an array type (pg_constraint.conkey int2[], relacl …)
     * is an array to the binder (ARRAY[…] of it adds a dimension);
     * int2vector and oidvector are not, as in PostgreSQL, but both can
     * be subscripted (indkey[0]). */
    pgcat_pgtype_t pt = pgcat_col_pgtype(r, i), el;
    sub[i] = TY_UNKNOWN;
    if (pt == PGT_NAME)
      sub[i] = TY_CHAR;  /* name[i]: its i-th byte, from 0 (sql_bind_array.c) */
    else if (pgcat_pgtype_elem(pt, &el)) {
      sub[i] = pgcat_pg_type_storage(el).t_id;
      if (pt != PGT_INT2VECTOR && pt != PGT_OIDVECTOR)
        types[i].t_elem = sub[i];
      else
        types[i].t_scale = (int16_t)-sub[i];  /* a vector's element, carried by the
                                                * type through derived tables (types.h) */
    }
  }
  t->tb_subscript_elem = sub;
  t->tb_handle = en_handle_rel(r, a);
  t->tb_oid = pgcat_rel_oid(r);
  t->tb_schema = pgcat_rel_schema(r);
  t->tb_name = pgcat_rel_name(r);
  t->tb_ncols = n;
  t->tb_colnames = names;
  t->tb_coltypes = types;
  t->tb_notnull = arena_zalloc(a, (size_t)(n + 1));
  t->tb_defaults = arena_zalloc(a, sizeof(char *) * (size_t)(n + 1));
  *out = t;
  return CZ_OK;
}

int en_pgcat_check_access(const splan_t *p, err_t *e)
{
  for (int i = 0; i < p->sp_naccess; i++) {
    const sp_table_t *t = p->sp_access[i].ac_table;
    if (!t)
      continue;  /* a view (its own relations are listed too) */
    if (en_handle_pgrel(t->tb_handle) && (p->sp_access[i].ac_priv & ~(unsigned)SQL_PRIV_SELECT))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE,
                     "permission denied: \"%s\" is a system catalog", t->tb_name);
  }
  return CZ_OK;
}

int en_pgcat_scan_open(qctx_t *q, const void *rel, const int *cols, int ncols,
                       const qrange_t *range, bool want_rowid, arena_t *a, en_pgscan_t **out,
                       err_t *e)
{
  if (range || want_rowid)
    return err_set(e, SQLSTATE_INTERNAL, "a system catalog scan takes neither keys nor row ids");
  const pgcat_env_t *env = q->q_tops_ctx ? en_pgcat_env(q->q_tops_ctx) : NULL;
  en_pgscan_t *sc = arena_zalloc(a, sizeof(*sc));
  if (pgcat_scan_open(rel, env, a, &sc->ps_scan, e) != CZ_OK)
    return CZ_ERR;
  sc->ps_cols = cols;
  sc->ps_ncols = ncols;
  *out = sc;
  return CZ_OK;
}

int en_pgcat_scan_next(en_pgscan_t *sc, batch_t *out, err_t *e)
{
  return pgcat_scan_next(sc->ps_scan, sc->ps_cols, sc->ps_ncols, out, e);
}
