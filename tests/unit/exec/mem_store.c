/* mem_store — see mem_store.h. Rows are datum arrays in the table's
 * arena; the row identity is the row's number as 8 bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "mem_store.h"
#include "sql/sql.h"
#include "opt/opt.h"
#include "sql/sql_plan.h"

typedef struct mem_table_s {
  qtable_t mt_q;                /* first: the handle the executor calls */
  sp_table_t mt_sp;
  arena_t *mt_arena;
  int mt_n, mt_cap;
  datum_t **mt_rows;
  bool *mt_dead;
} mem_table_t;

struct mem_db_s {
  arena_t *md_arena;
  int md_n;
  mem_table_t *md_tables[64];
};

struct qscan_s {
  mem_table_t *ms_t;
  const int *ms_cols;
  int ms_ncols;
  bool ms_rowid;
  int ms_pos;
  const qpred_t *ms_preds;
  int ms_npred;
};

/* The pushed predicates, as the contract of qt_scan_open says (datum_cmp
 * orders as the executor does for these tests' types). */
static bool ms_pass(const qscan_t *s, const datum_t *row)
{
  for (int j = 0; j < s->ms_npred; j++) {
    const qpred_t *p = &s->ms_preds[j];
    datum_t dv = row[s->ms_cols[p->qp_col]];
    const datum_t *d = &dv;
    if (p->qp_rtrim && !dv.d_null)
      while (dv.d_str.s_len > 0 && dv.d_str.s_ptr[dv.d_str.s_len - 1] == ' ')
        dv.d_str.s_len--;
    ty_phys_t ph = ty_phys(s->ms_t->mt_sp.tb_coltypes[s->ms_cols[p->qp_col]].t_id);
    if (p->qp_op == QP_NULL) {
      if (!d->d_null)
        return false;
      continue;
    }
    if (d->d_null)
      return false;
    bool ok;
    if (p->qp_op == QP_NOT_NULL) {
      ok = true;
    } else if (p->qp_op == QP_IN || p->qp_op == QP_NOT_IN) {
      bool found = false;
      for (int i = 0; i < p->qp_nvals && !found; i++)
        found = datum_cmp(ph, d, &p->qp_vals[i]) == 0;
      ok = found == (p->qp_op == QP_IN);
    } else {
      int c = datum_cmp(ph, d, &p->qp_vals[0]);
      ok = p->qp_op == QP_EQ ? c == 0 : p->qp_op == QP_NE ? c != 0 : p->qp_op == QP_LT ? c < 0
           : p->qp_op == QP_LE ? c <= 0 : p->qp_op == QP_GT ? c > 0 : c >= 0;
    }
    if (!ok)
      return false;
  }
  return true;
}

static int ms_open(qctx_t *q, void *tab, int idx, const int *cols, int ncols, const qrange_t *r,
                   const qpred_t *preds, int npred, bool want_rowid, arena_t *a, qscan_t **out,
                   err_t *e)
{
  (void)q;
  (void)idx;
  if (r)
    return err_set(e, SQLSTATE_INTERNAL, "memory tables have no keys to bound");
  qscan_t *s = arena_zalloc(a, sizeof(*s));
  s->ms_t = tab;
  s->ms_cols = cols;
  s->ms_ncols = ncols;
  s->ms_rowid = want_rowid;
  s->ms_preds = preds;
  s->ms_npred = npred;
  *out = s;
  return CZ_OK;
}

static int ms_next(qctx_t *q, qscan_t *s, batch_t *out, arena_t *a, err_t *e)
{
  (void)q;
  (void)e;
  int n = 0;
  while (s->ms_pos < s->ms_t->mt_n && n < out->b_cols[0].v_cap) {
    int r = s->ms_pos++;
    if (s->ms_t->mt_dead[r] || !ms_pass(s, s->ms_t->mt_rows[r]))
      continue;
    for (int c = 0; c < s->ms_ncols; c++)
      vec_set(&out->b_cols[c], n, &s->ms_t->mt_rows[r][s->ms_cols[c]]);
    if (s->ms_rowid) {
      char *id = arena_alloc(a, 8);
      int64_t v = r;
      memcpy(id, &v, 8);
      datum_t d = {.d_null = false};
      d.d_str.s_ptr = id;
      d.d_str.s_len = 8;
      vec_set(&out->b_cols[s->ms_ncols], n, &d);
    }
    n++;
  }
  out->b_n = n;
  return CZ_OK;
}

static void ms_close(qctx_t *q, qscan_t *s)
{
  (void)q;
  (void)s;
}

/* Stores row r of b into row; set (NULL = all) picks the columns taken. */
static void row_store(mem_table_t *t, datum_t *row, const batch_t *b, const bool *set, int r)
{
  for (int c = 0; c < t->mt_sp.tb_ncols; c++) {
    if (set && !set[c])
      continue;
    datum_t d;
    vec_get(&b->b_cols[c], r, &d);
    if (!d.d_null && ty_phys(t->mt_sp.tb_coltypes[c].t_id) == TP_STR) {
      char *p = arena_alloc(t->mt_arena, d.d_str.s_len + 1);
      memcpy(p, d.d_str.s_ptr, d.d_str.s_len);
      d.d_str.s_ptr = p;
    }
    row[c] = d;
  }
}

static int ms_insert(qctx_t *q, void *tab, const batch_t *b, const int *sel, int n, err_t *e)
{
  (void)q;
  (void)e;
  mem_table_t *t = tab;
  for (int i = 0; i < n; i++) {
    if (t->mt_n == t->mt_cap) {
      t->mt_cap = t->mt_cap ? t->mt_cap * 2 : 64;
      t->mt_rows = realloc(t->mt_rows, sizeof(datum_t *) * (size_t)t->mt_cap);
      t->mt_dead = realloc(t->mt_dead, (size_t)t->mt_cap);
    }
    datum_t *row = arena_alloc(t->mt_arena, sizeof(datum_t) * (size_t)t->mt_sp.tb_ncols);
    row_store(t, row, b, NULL, sel ? sel[i] : i);
    t->mt_dead[t->mt_n] = false;
    t->mt_rows[t->mt_n++] = row;
  }
  return CZ_OK;
}

static int64_t rowid_of(const batch_t *b, int col, int r)
{
  datum_t d;
  vec_get(&b->b_cols[col], r, &d);
  int64_t v;
  memcpy(&v, d.d_str.s_ptr, 8);
  return v;
}

static int ms_update(qctx_t *q, void *tab, const batch_t *b, const bool *set, const int *sel,
                     int n, const qepq_t *epq, err_t *e)
{
  (void)q, (void)epq;  /* one session: no row changes under a statement */
  (void)e;
  mem_table_t *t = tab;
  for (int i = 0; i < n; i++) {
    int r = sel ? sel[i] : i;
    row_store(t, t->mt_rows[rowid_of(b, b->b_ncols - 1, r)], b, set, r);
  }
  return CZ_OK;
}

static int ms_delete(qctx_t *q, void *tab, const batch_t *b, int rid, const int *sel, int n,
                     const qepq_t *epq, err_t *e)
{
  (void)q, (void)epq;
  (void)e;
  mem_table_t *t = tab;
  for (int i = 0; i < n; i++)
    t->mt_dead[rowid_of(b, rid, sel ? sel[i] : i)] = true;
  return CZ_OK;
}

/* no primary keys, so no key lookups */
static const qtable_ops_t mem_ops = {ms_open, ms_next, ms_close, ms_insert, ms_update, ms_delete,
                                     NULL, NULL, NULL, .qt_stats = NULL, .qt_sample = NULL};

static int env_table(void *ctx, const char *schema, const char *name, arena_t *a,
                     const sp_table_t **out, err_t *e)
{
  (void)schema;
  (void)a;
  (void)e;
  mem_db_t *db = ctx;
  for (int i = 0; i < db->md_n; i++)
    if (strcmp(db->md_tables[i]->mt_sp.tb_name, name) == 0) {
      *out = &db->md_tables[i]->mt_sp;
      return CZ_OK;
    }
  return 1;
}

mem_db_t *mem_db_new(void)
{
  mem_db_t *db = calloc(1, sizeof(*db));
  db->md_arena = arena_create(NULL, "memdb");
  return db;
}

void mem_db_free(mem_db_t *db)
{
  for (int i = 0; i < db->md_n; i++) {
    free(db->md_tables[i]->mt_rows);
    free(db->md_tables[i]->mt_dead);
  }
  arena_destroy(db->md_arena);
  free(db);
}

static int create_table(mem_db_t *db, const sql_create_table_t *ct, err_t *e)
{
  if (db->md_n == 64)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "too many tables");
  mem_table_t *t = arena_zalloc(db->md_arena, sizeof(*t));
  t->mt_arena = arena_create(db->md_arena, "table");
  int n = sql_list_len(ct->ct_columns);
  const char **names = arena_alloc(db->md_arena, sizeof(char *) * (size_t)n);
  ty_t *types = arena_alloc(db->md_arena, sizeof(ty_t) * (size_t)n);
  for (int i = 0; i < n; i++) {
    const sql_coldef_t *cd = sql_list_at(ct->ct_columns, i);
    names[i] = arena_strdup(db->md_arena, cd->cd_name);
    if (sql_bind_type(&cd->cd_type, &types[i], e) != CZ_OK)
      return CZ_ERR;
  }
  t->mt_q.qt_ops = &mem_ops;
  t->mt_sp.tb_handle = t;
  t->mt_sp.tb_oid = (uint32_t)(16384 + db->md_n);
  t->mt_sp.tb_schema = "public";
  t->mt_sp.tb_name = arena_strdup(db->md_arena, ct->ct_table.nm_name);
  t->mt_sp.tb_ncols = n;
  t->mt_sp.tb_colnames = names;
  t->mt_sp.tb_coltypes = types;
  db->md_tables[db->md_n++] = t;
  return CZ_OK;
}

typedef struct sink_s {
  char **vals;
  int n, cap;
  int ncols;
  int nrows;
} sink_t;

static void sink_add(sink_t *s, char *v)
{
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->vals = realloc(s->vals, sizeof(char *) * (size_t)s->cap);
  }
  s->vals[s->n++] = v;
}

static int run_stmt(mem_db_t *db, const sql_stmt_t *st, sink_t *sink, int64_t *count, err_t *e)
{
  if (st->st_kind == SQL_STMT_CREATE_TABLE)
    return create_table(db, st->st_create_table, e);
  arena_t *a = arena_create(NULL, "stmt");
  sp_env_t env = {.pe_ctx = db, .pe_table = env_table, .pe_vector_size = 7, .pe_opt = opt_entry()};
  splan_t *p;
  int rc = sql_plan_stmt(a, st, &env, NULL, 0, &p, e);
  if (rc != CZ_OK) {
    arena_destroy(a);
    return CZ_ERR;
  }
  /* A small vector size exercises batch boundaries in every operator. */
  qctx_t q = {.q_arena = a, .q_vector_size = 7};
  rc = op_open(p->sp_root, &q, e);
  sink->ncols = p->sp_kind == SP_QUERY ? p->sp_ncols : 0;
  while (rc == CZ_OK) {
    obatch_t ob;
    rc = op_next(p->sp_root, &q, &ob, e);
    if (rc != CZ_OK || !ob.ob_b)
      break;
    for (int i = 0; i < ob.ob_n && p->sp_kind == SP_QUERY; i++) {
      int r = ob.ob_sel ? ob.ob_sel[i] : i;
      for (int c = 0; c < p->sp_ncols; c++) {
        datum_t d;
        vec_get(&ob.ob_b->b_cols[c], r, &d);
        if (d.d_null) {
          sink_add(sink, NULL);
          continue;
        }
        ty_t t = ob.ob_b->b_cols[c].v_type;
        size_t cap = ty_text_max(t, &d) + 1;
        char *buf = malloc(cap);
        int n = ty_format_text(t, &d, buf, cap);
        buf[n > 0 ? n : 0] = '\0';
        sink_add(sink, buf);
      }
      sink->nrows++;
    }
  }
  op_close(p->sp_root, &q);
  if (rc == CZ_OK && p->sp_kind != SP_QUERY)
    *count = op_dml_count(p->sp_root, &q);
  arena_destroy(a);
  return rc;
}

static void sink_free(sink_t *s)
{
  for (int i = 0; i < s->n; i++)
    free(s->vals[i]);
  free(s->vals);
  memset(s, 0, sizeof(*s));
}

static int run_all(mem_db_t *db, const char *sql, sink_t *sink, int64_t *count, err_t *e)
{
  arena_t *a = arena_create(NULL, "parse");
  sql_stmt_list_t *l;
  int rc = sql_parse(a, sql, strlen(sql), &l, e);
  for (int i = 0; rc == CZ_OK && i < l->sl_n; i++) {
    sink_free(sink);
    rc = run_stmt(db, l->sl_stmts[i], sink, count, e);
  }
  arena_destroy(a);
  return rc;
}

int mem_query_values(mem_db_t *db, const char *sql, char ***vals, int *nrows, int *ncols,
                     err_t *e)
{
  sink_t s = {0};
  int64_t count = 0;
  if (run_all(db, sql, &s, &count, e) != CZ_OK) {
    sink_free(&s);
    return CZ_ERR;
  }
  *vals = s.vals;
  *nrows = s.nrows;
  *ncols = s.ncols;
  return CZ_OK;
}

int mem_run(mem_db_t *db, const char *sql, char **rows, int *nrows, int *ncols, int64_t *count,
            err_t *e)
{
  sink_t s = {0};
  *count = 0;
  if (run_all(db, sql, &s, count, e) != CZ_OK) {
    sink_free(&s);
    return CZ_ERR;
  }
  size_t len = 1;
  for (int i = 0; i < s.n; i++)
    len += (s.vals[i] ? strlen(s.vals[i]) : 4) + 1;
  char *out = malloc(len);
  size_t k = 0;
  for (int i = 0; i < s.n; i++) {
    if (i)
      out[k++] = s.ncols && i % s.ncols == 0 ? '\n' : '|';
    const char *v = s.vals[i] ? s.vals[i] : "NULL";
    memcpy(out + k, v, strlen(v));
    k += strlen(v);
  }
  out[k] = '\0';
  *rows = out;
  *nrows = s.nrows;
  *ncols = s.ncols;
  sink_free(&s);
  return CZ_OK;
}

struct mem_plan_s {
  arena_t *mp_arena;
  splan_t *mp_plan;
};

mem_plan_t *mem_plan(mem_db_t *db, const char *sql, err_t *e)
{
  arena_t *a = arena_create(NULL, "plan");
  sql_stmt_list_t *l;
  sp_env_t env = {.pe_ctx = db, .pe_table = env_table, .pe_vector_size = 7, .pe_opt = opt_entry()};
  splan_t *p;
  if (sql_parse(a, sql, strlen(sql), &l, e) != CZ_OK || l->sl_n != 1 ||
      sql_plan_stmt(a, l->sl_stmts[0], &env, NULL, 0, &p, e) != CZ_OK) {
    arena_destroy(a);
    return NULL;
  }
  mem_plan_t *mp = arena_zalloc(a, sizeof(*mp));
  mp->mp_arena = a;
  mp->mp_plan = p;
  return mp;
}

const op_t *mem_plan_root(const mem_plan_t *p)
{
  return p->mp_plan->sp_root;
}

int mem_plan_nsubqs(const mem_plan_t *p, int *ncorrelated)
{
  *ncorrelated = 0;
  for (int i = 0; i < p->mp_plan->sp_nsubqs; i++)
    *ncorrelated += p->mp_plan->sp_subqs[i]->xs_ncorr > 0;
  return p->mp_plan->sp_nsubqs;
}

int mem_plan_run(const mem_plan_t *mp, qctx_t *given, int vector_size, char **rows, int *nrows,
                 err_t *e)
{
  const splan_t *p = mp->mp_plan;
  arena_t *a = NULL;
  qctx_t own;
  qctx_t *q = given;
  if (!q) {
    a = arena_create(NULL, "execution");
    own = (qctx_t){.q_arena = a, .q_vector_size = vector_size};
    q = &own;
  }
  sink_t sink = {.ncols = p->sp_ncols};
  int rc = op_open(p->sp_root, q, e);
  while (rc == CZ_OK) {
    obatch_t ob;
    rc = op_next(p->sp_root, q, &ob, e);
    if (rc != CZ_OK || !ob.ob_b)
      break;
    for (int i = 0; i < ob.ob_n; i++) {
      int r = ob.ob_sel ? ob.ob_sel[i] : i;
      for (int c = 0; c < p->sp_ncols; c++) {
        datum_t d;
        vec_get(&ob.ob_b->b_cols[c], r, &d);
        if (d.d_null) {
          sink_add(&sink, NULL);
          continue;
        }
        ty_t t = ob.ob_b->b_cols[c].v_type;
        size_t cap = ty_text_max(t, &d) + 1;
        char *buf = malloc(cap);
        int n = ty_format_text(t, &d, buf, cap);
        buf[n > 0 ? n : 0] = '\0';
        sink_add(&sink, buf);
      }
      sink.nrows++;
    }
  }
  op_close(p->sp_root, q);
  if (a)
    arena_destroy(a);
  size_t len = 1;
  for (int i = 0; i < sink.n; i++)
    len += (sink.vals[i] ? strlen(sink.vals[i]) : 4) + 1;
  char *out = malloc(len);
  size_t k = 0;
  for (int i = 0; i < sink.n; i++) {
    if (i)
      out[k++] = sink.ncols && i % sink.ncols == 0 ? '\n' : '|';
    const char *v = sink.vals[i] ? sink.vals[i] : "NULL";
    memcpy(out + k, v, strlen(v));
    k += strlen(v);
  }
  out[k] = '\0';
  *rows = out;
  *nrows = sink.nrows;
  sink_free(&sink);
  return rc;
}

void mem_plan_free(mem_plan_t *p)
{
  if (p)
    arena_destroy(p->mp_arena);
}
