/* en_env — what the binder and the executor need from the catalog and
 * the table layer: tables described as sp_table_t, the storage hooks
 * (qtable_ops_t) over tbl_*, and privilege checks of a plan. */
#include <string.h>
#include <strings.h>

#include "engine/runner/en_pgcat.h"
#include "opt/opt.h"
#include "engine/runner/runner_int.h"

static int env_table(void *ctx, const char *schema, const char *name, arena_t *a,
                     const sp_table_t **out, err_t *e)
{
  esession_t *s = ctx;
  (void)e;
  if (!schema || strcmp(schema, "pg_catalog") == 0 || strcmp(schema, "information_schema") == 0) {
    int rc = en_pgcat_table(s, schema, name, a, out, e);
    if (rc != 1)
      return rc;
  }
  const cat_table_t *t = cat_find_table(es_snapshot(s), en_rel_schema(s, schema, name), name);
  if (!t)
    return 1;
  sp_table_t *p = arena_zalloc(a, sizeof(*p));
  p->tb_handle = en_handle_table(t, a);
  p->tb_oid = t->ct_oid;
  p->tb_schema = t->ct_schema_name;
  p->tb_name = t->ct_name;
  p->tb_ncols = t->ct_ncols;
  const char **names = arena_alloc(a, sizeof(char *) * (size_t)(t->ct_ncols + 1));
  ty_t *types = arena_alloc(a, sizeof(ty_t) * (size_t)(t->ct_ncols + 1));
  bool *nn = arena_alloc(a, (size_t)(t->ct_ncols + 1));
  const char **defs = arena_alloc(a, sizeof(char *) * (size_t)(t->ct_ncols + 1));
  char *ident = NULL;
  for (int c = 0; c < t->ct_ncols; c++) {
    names[c] = t->ct_cols[c].cc_name;
    types[c] = t->ct_cols[c].cc_type;
    nn[c] = t->ct_cols[c].cc_not_null;
    defs[c] = t->ct_cols[c].cc_default;
    if (t->ct_cols[c].cc_identity) {
      if (!ident)
        ident = arena_zalloc(a, (size_t)(t->ct_ncols + 1));
      ident[c] = t->ct_cols[c].cc_identity;
    }
  }
  p->tb_identity = ident;
  p->tb_colnames = names;
  p->tb_coltypes = types;
  p->tb_notnull = nn;
  p->tb_defaults = defs;
  p->tb_npk = t->ct_npk;
  p->tb_pk = t->ct_pk;
  p->tb_pk_name = t->ct_npk > 0 ? t->ct_indexes[0]->ci_name : NULL;
  p->tb_column = t->ct_layout == CAT_LAYOUT_COLUMN;
  int nix = t->ct_nindexes > 1 ? t->ct_nindexes - 1 : 0;
  sp_index_t *ix = arena_zalloc(a, sizeof(sp_index_t) * (size_t)(nix + 1));
  for (int i = 0; i < nix; i++) {
    const cat_index_t *ci = t->ct_indexes[i + 1];
    ix[i].ix_name = ci->ci_name;
    ix[i].ix_no = ci->ci_no;
    ix[i].ix_ncols = ci->ci_nkeys;
    ix[i].ix_cols = ci->ci_keys;
    ix[i].ix_unique = ci->ci_unique;
    ix[i].ix_column = ci->ci_layout == CAT_LAYOUT_COLUMN;
  }
  p->tb_nindexes = nix;
  p->tb_indexes = ix;
  const cat_view_t *mv = cat_view_by_oid(es_snapshot(s), t->ct_oid);
  p->tb_matview = mv != NULL;
  p->tb_unpopulated = mv && !mv->cw_populated;
  *out = p;
  return CZ_OK;
}

/* A sequence named in FROM reads as PostgreSQL's one-row relation
 * (last_value, log_cnt, is_called): a view over the sequence functions,
 * so that pg_dump's SELECT last_value, is_called FROM seq works. */
static int env_sequence(const cat_sequence_t *sq, arena_t *a, const sp_view_t **out)
{
  static const char *const cols[] = {"last_value", "log_cnt", "is_called"};
  static const ty_t types[] = {{.t_id = TY_INT8}, {.t_id = TY_INT8}, {.t_id = TY_BOOL}};
  sp_view_t *v = arena_zalloc(a, sizeof(*v));
  v->vi_oid = sq->sq_oid;
  v->vi_schema = sq->sq_schema_name;
  v->vi_name = sq->sq_name;
  v->vi_owner = sq->sq_owner;
  v->vi_query = arena_sprintf(a,
                              "SELECT pg_catalog._cz_seq_last_value(%u) AS last_value, "
                              "0::bigint AS log_cnt, pg_catalog._cz_seq_is_called(%u) AS is_called",
                              (unsigned)sq->sq_oid, (unsigned)sq->sq_oid);
  v->vi_ncols = 3;
  v->vi_colnames = (const char **)cols;
  v->vi_coltypes = types;
  *out = v;
  return CZ_OK;
}

static int env_view(void *ctx, const char *schema, const char *name, arena_t *a,
                    const sp_view_t **out, err_t *e)
{
  esession_t *s = ctx;
  (void)e;
  const cat_view_t *w = en_find_view(s, schema, name);
  if (!w) {
    const cat_sequence_t *sq =
        cat_find_sequence(es_snapshot(s), en_rel_schema(s, schema, name), name);
    if (sq)
      return env_sequence(sq, a, out);
  }
  if (!w || w->cw_kind != 'v')
    return 1;  /* a materialized view is read as its table */
  sp_view_t *v = arena_zalloc(a, sizeof(*v));
  v->vi_oid = w->cw_oid;
  v->vi_schema = w->cw_schema_name;
  v->vi_name = w->cw_name;
  v->vi_owner = w->cw_owner;
  v->vi_check = w->cw_check;
  v->vi_query = cat_view_text(a, es_snapshot(s), w, pgcat_quote_ident, NULL, NULL);
  v->vi_ncols = w->cw_ncols;
  v->vi_colnames = w->cw_colnames;
  v->vi_coltypes = w->cw_coltypes;
  *out = v;
  return CZ_OK;
}

void en_env(esession_t *s, sp_env_t *env)
{
  memset(env, 0, sizeof(*env));  /* fields added later default to off */
  env->pe_ctx = s;
  env->pe_table = env_table;
  env->pe_view = env_view;
  env->pe_vector_size = es_engine(s)->en_vector_size;
  env->pe_threads = esession_threads(s);
  env->pe_par_min_rows = (double)es_engine(s)->en_par_min_rows;
  env->pe_opt = opt_entry();
  const char *seq = es_setting(s, "enable_seqscan");
  env->pe_no_seqscan = seq && (strcasecmp(seq, "off") == 0 || strcasecmp(seq, "false") == 0 ||
                               strcmp(seq, "0") == 0);
}

int en_check_access(esession_t *s, const splan_t *p, err_t *e)
{
  if (en_pgcat_check_access(p, e) != CZ_OK)
    return CZ_ERR;
  const cat_snapshot_t *snap = es_snapshot(s);
  bool super = esession_is_superuser(s);
  for (int i = 0; i < p->sp_naccess; i++) {
    /* a view's relations are read with its owner's privileges */
    cat_oid_t role = p->sp_access[i].ac_role ? p->sp_access[i].ac_role : es_role_oid(s);
    if (!p->sp_access[i].ac_role && super)
      continue;
    unsigned want = p->sp_access[i].ac_priv;
    /* SQL_PRIV_* and CAT_PRIV_* are the same bits; mapped to be explicit. */
    uint32_t privs = (want & SQL_PRIV_SELECT ? CAT_PRIV_SELECT : 0) |
                     (want & SQL_PRIV_INSERT ? CAT_PRIV_INSERT : 0) |
                     (want & SQL_PRIV_UPDATE ? CAT_PRIV_UPDATE : 0) |
                     (want & SQL_PRIV_DELETE ? CAT_PRIV_DELETE : 0);
    /* a relation the statement names needs USAGE on its schema (those a
     * view reads were looked up when the view was made, as in PostgreSQL) */
    bool named = !p->sp_access[i].ac_role;
    if (p->sp_access[i].ac_view) {
      const cat_view_t *w = cat_view_by_oid(snap, p->sp_access[i].ac_view->vi_oid);
      if (w && named && en_check_schema_usage(s, snap, role, w->cw_schema, e) != CZ_OK)
        return CZ_ERR;
      if (w && cat_check_view_priv(snap, role, w, privs, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    const cat_table_t *t = en_handle_cat(p->sp_access[i].ac_table->tb_handle);
    if (!t)
      continue;  /* the system catalogs are readable by everyone */
    if (named && en_check_schema_usage(s, snap, role, t->ct_schema, e) != CZ_OK)
      return CZ_ERR;
    if (cat_check_priv(snap, role, t, privs, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- storage hooks ---------------------------------------------------------- */

/* A scan is a tbl_ range scan, a point lookup by the full primary key
 * (which the table layer recognises: tbl_point_open), or a scan of a
 * pgcat relation. */
struct qscan_s {
  tbl_scan_t *qs_scan;
  tbl_point_t *qs_point;
  en_pgscan_t *qs_pg;           /* a scan of a pgcat relation */
  tbl_pred_t *qs_preds;         /* the pushed predicates, as the table layer takes them */
  int qs_npred;
};

static tbl_pred_t *scan_preds(const qpred_t *preds, int n, arena_t *a)
{
  tbl_pred_t *tp = arena_alloc(a, sizeof(tbl_pred_t) * (size_t)(n + 1));
  for (int j = 0; j < n; j++) {
    static const tbl_pred_op_t map[] = {
        [QP_EQ] = TBP_EQ, [QP_NE] = TBP_NE,         [QP_LT] = TBP_LT,
        [QP_LE] = TBP_LE, [QP_GT] = TBP_GT,         [QP_GE] = TBP_GE,
        [QP_IN] = TBP_IN, [QP_NOT_IN] = TBP_NOT_IN, [QP_NULL] = TBP_NULL,
        [QP_NOT_NULL] = TBP_NOT_NULL};
    tp[j] = (tbl_pred_t){preds[j].qp_col, map[preds[j].qp_op], preds[j].qp_rtrim,
                         preds[j].qp_nvals, preds[j].qp_vals};
  }
  return tp;
}

/* Keeps the rows of out passing the predicates (scans that do not test
 * them themselves: catalog relations, point lookups). */
static void scan_filter_batch(const qscan_t *s, batch_t *out)
{
  if (!s->qs_npred)
    return;
  int w = 0;
  for (int r = 0; r < out->b_n; r++) {
    if (!tbl_preds_pass(s->qs_preds, s->qs_npred, out, r))
      continue;
    if (w != r)
      for (int c = 0; c < out->b_ncols; c++) {
        datum_t d;
        vec_get(&out->b_cols[c], r, &d);
        vec_set(&out->b_cols[c], w, &d);
      }
    w++;
  }
  out->b_n = w;
}

static int hook_scan_open(qctx_t *q, void *tab, int idx, const int *cols, int ncols,
                          const qrange_t *r, const qpred_t *preds, int npred, bool want_rowid,
                          arena_t *a, qscan_t **out, err_t *e)
{
  if (en_handle_pgrel(tab)) {
    qscan_t *s = arena_zalloc(a, sizeof(*s));
    s->qs_preds = scan_preds(preds, npred, a);
    s->qs_npred = npred;
    if (en_pgcat_scan_open(q, en_handle_pgrel(tab), cols, ncols, r, want_rowid, a, &s->qs_pg, e) != CZ_OK)
      return CZ_ERR;
    *out = s;
    return CZ_OK;
  }
  const cat_table_t *t = en_handle_cat(tab);
  qscan_t *s = arena_zalloc(a, sizeof(*s));
  s->qs_preds = scan_preds(preds, npred, a);
  s->qs_npred = npred;
  tbl_bound_t lo = {0}, hi = {0};
  if (r) {
    lo.tb_n = r->qr_nlow;
    lo.tb_vals = r->qr_low;
    lo.tb_incl = r->qr_low_incl;
    hi.tb_n = r->qr_nhigh;
    hi.tb_vals = r->qr_high;
    hi.tb_incl = r->qr_high_incl;
  }
  int rc = tbl_point_open(q->q_txn, t, idx, cols, ncols, r ? &lo : NULL, r ? &hi : NULL,
                          want_rowid, a, &s->qs_point, e);
  if (rc == 1)
    rc = tbl_scan_open(q->q_txn, t, idx, cols, ncols, r ? &lo : NULL, r ? &hi : NULL, want_rowid,
                       a, &s->qs_scan, e) == CZ_OK
             ? tbl_scan_filter(s->qs_scan, s->qs_preds, npred, e)
             : CZ_ERR;
  if (rc == CZ_OK && s->qs_scan && r && r->qr_backward)
    tbl_scan_backward(s->qs_scan);
  if (rc != CZ_OK)
    return CZ_ERR;
  *out = s;
  return CZ_OK;
}

static int hook_scan_fill(qctx_t *q, qscan_t *s, batch_t *out, arena_t *a, err_t *e)
{
  if (s->qs_pg) {
    /* a catalog batch that the predicates empty is not the end */
    do {
      if (en_pgcat_scan_next(s->qs_pg, out, e) != CZ_OK)
        return CZ_ERR;
      int got = out->b_n;
      scan_filter_batch(s, out);
      if (got == 0)
        break;
    } while (out->b_n == 0);
    return CZ_OK;
  }
  if (s->qs_point) {
    if (tbl_point_next(s->qs_point, out, a, e) != CZ_OK)
      return CZ_ERR;
    scan_filter_batch(s, out);  /* at most one row: empty is the end */
    return CZ_OK;
  }
  /* a filtered scan may come back empty before its end: check for
   * cancel between such steps */
  for (;;) {
    bool done;
    if (tbl_scan_step(s->qs_scan, out, a, &done, e) != CZ_OK)
      return CZ_ERR;
    if (out->b_n > 0 || done)
      return CZ_OK;
    if (op_check_cancel(q, e) != CZ_OK)
      return CZ_ERR;
  }
}

/* Every read of a table ends with the snapshot's check: a snapshot
 * cancelled over MaxVersionMem may have read rows whose versions were
 * collected meanwhile (72000, txn_check_snapshot). */
static int hook_scan_next(qctx_t *q, qscan_t *s, batch_t *out, arena_t *a, err_t *e)
{
  if (hook_scan_fill(q, s, out, a, e) != CZ_OK)
    return CZ_ERR;
  return txn_check_snapshot(q->q_txn, e);
}

static void hook_scan_close(qctx_t *q, qscan_t *s)
{
  (void)q;
  if (s->qs_scan) {
    tbl_scan_close(s->qs_scan);
    s->qs_scan = NULL;
  }
}

/* Writes of a table with constraints (or referenced by foreign keys) go
 * through en_cons.c; the others straight to the table layer. */
static int hook_insert(qctx_t *q, void *tab, const batch_t *b, const int *sel, int n, err_t *e)
{
  const cat_table_t *t = en_handle_cat(tab);
  if (en_cons_needed(t))
    return en_cons_insert(q->q_tops_ctx, q->q_txn, t, b, sel, n, false, q->q_arena, e);
  return tbl_insert(q->q_txn, t, b, sel, n, e);
}

static int hook_update(qctx_t *q, void *tab, const batch_t *b, const bool *set, const int *sel,
                       int n, const qepq_t *epq, err_t *e)
{
  const cat_table_t *t = en_handle_cat(tab);
  tbl_epq_t te = {epq ? epq->qe_fn : NULL, epq ? epq->qe_ctx : NULL};
  if (en_cons_needed(t))
    return en_cons_update(q->q_tops_ctx, q->q_txn, t, b, b->b_ncols - 1, set, sel, n,
                          epq ? &te : NULL, q->q_arena, e);
  return tbl_update_epq(q->q_txn, t, b, b->b_ncols - 1, set, sel, n, epq ? &te : NULL, e);
}

static int hook_delete(qctx_t *q, void *tab, const batch_t *b, int rid, const int *sel, int n,
                       const qepq_t *epq, err_t *e)
{
  const cat_table_t *t = en_handle_cat(tab);
  tbl_epq_t te = {epq ? epq->qe_fn : NULL, epq ? epq->qe_ctx : NULL};
  if (en_cons_needed(t))
    return en_cons_delete(q->q_tops_ctx, q->q_txn, t, b, rid, sel, n, epq ? &te : NULL,
                          q->q_arena, e);
  return tbl_delete_epq(q->q_txn, t, b, rid, sel, n, epq ? &te : NULL, e);
}

static int hook_modify_end(qctx_t *q, void *tab, err_t *e)
{
  (void)tab;
  return en_cons_stmt_end(q->q_tops_ctx, q->q_txn, q->q_arena, e);
}

static int hook_lookup(qctx_t *q, void *tab, const datum_t *const *keys, int n, const int *cols,
                       int ncols, batch_t *out, bool *found, arena_t *a, err_t *e)
{
  if (tbl_lookup(q->q_txn, en_handle_cat(tab), keys, n, cols, ncols, false, out, found, a, e) !=
      CZ_OK)
    return CZ_ERR;
  return txn_check_snapshot(q->q_txn, e);
}

/* Index-prefix probes (table/tb_probe.c): the predicates as the scan
 * hooks make them. */
struct qprobe_s {
  tbl_probe_t *qp_probe;
};

static int hook_probe_open(qctx_t *q, void *tab, int idx, int nkey, const int *cols, int ncols,
                           const qpred_t *preds, int npred, arena_t *a, qprobe_t **out, err_t *e)
{
  qprobe_t *p = arena_zalloc(a, sizeof *p);
  if (tbl_probe_open(q->q_txn, en_handle_cat(tab), idx, nkey, cols, ncols,
                     scan_preds(preds, npred, a), npred, a, &p->qp_probe, e) != CZ_OK)
    return CZ_ERR;
  *out = p;
  return CZ_OK;
}

static int hook_probe_keys(qctx_t *q, qprobe_t *p, const vec_t *const *keys, const int *sel, int n,
                           int *same, arena_t *a, err_t *e)
{
  (void)q;
  return tbl_probe_keys(p->qp_probe, keys, sel, n, same, a, e);
}

static int hook_probe_next(qctx_t *q, qprobe_t *p, batch_t *out, int *at, arena_t *a, err_t *e)
{
  if (tbl_probe_next(p->qp_probe, out, at, a, e) != CZ_OK)
    return CZ_ERR;
  return txn_check_snapshot(q->q_txn, e);
}

static void hook_probe_close(qctx_t *q, qprobe_t *p)
{
  (void)q;
  if (p)
    tbl_probe_close(p->qp_probe);
}

/* ON CONFLICT lives in the table layer (tb_conflict.c); these only pass
 * the transaction. qcf_eval_t and tbl_cf_eval_t have the same shape. */
_Static_assert(QCF_SKIPPED == TBL_CF_SKIPPED && QCF_INSERTED == TBL_CF_INSERTED &&
                   QCF_UPDATED == TBL_CF_UPDATED,
               "exec's and table's ON CONFLICT outcomes differ");

/* The statement's ON CONFLICT state: the table layer's, and what the
 * constraint checks after each batch need. */
typedef struct en_conflict_s {
  tbl_conflict_t *ec_tc;
  const cat_table_t *ec_t;
  const bool *ec_set;           /* DO UPDATE's SET columns */
} en_conflict_t;

static int hook_conflict_open(qctx_t *q, void *tab, int index, qcf_eval_t eval, void *ctx,
                              const bool *set, arena_t *a, qconflict_t **out, err_t *e)
{
  const cat_table_t *t = en_handle_cat(tab);
  en_conflict_t *c = arena_zalloc(a, sizeof *c);
  c->ec_t = t;
  c->ec_set = set;
  if (eval && en_cons_conflict_open(t, set, e) != CZ_OK)
    return CZ_ERR;
  if (tbl_conflict_open(q->q_txn, t, index, (tbl_cf_eval_t)eval, ctx, set, a, &c->ec_tc, e) != CZ_OK)
    return CZ_ERR;
  *out = (qconflict_t *)c;
  return CZ_OK;
}

static int hook_conflict_apply(qctx_t *q, qconflict_t *qc, const batch_t *b, const int *sel, int n,
                               uint8_t *act, batch_t **newv, arena_t *a, err_t *e)
{
  en_conflict_t *c = (en_conflict_t *)qc;
  if (tbl_conflict_apply(c->ec_tc, b, sel, n, act, newv, a, e) != CZ_OK)
    return CZ_ERR;
  if (!en_cons_needed(c->ec_t))
    return CZ_OK;
  return en_cons_conflict_after(q->q_tops_ctx, q->q_txn, c->ec_t, b, sel, n, act, *newv, c->ec_set,
                                q->q_arena, e);
}

/* ---- parallel scans: tbl_scan_split and its morsels (table/tb_split.c) -- */

static int hook_scan_split(qctx_t *q, void *tab, int idx, const qrange_t *r, int n, arena_t *a,
                           qsplit_t **out, int *nout, err_t *e)
{
  (void)q;
  tbl_bound_t lo = {0}, hi = {0};
  if (r) {
    lo = (tbl_bound_t){r->qr_nlow, r->qr_low, r->qr_low_incl};
    hi = (tbl_bound_t){r->qr_nhigh, r->qr_high, r->qr_high_incl};
  }
  tbl_split_t *sp;
  if (tbl_scan_split(en_handle_cat(tab), idx, r ? &lo : NULL, r ? &hi : NULL, n,
                     r ? r->qr_align : 0, a, &sp, e) != CZ_OK)
    return CZ_ERR;
  *out = (qsplit_t *)sp;
  *nout = tbl_split_count(sp);
  return CZ_OK;
}

static int hook_morsels_open(qctx_t *q, void *tab, const qsplit_t *sp, arena_t *a, qmorsels_t **out,
                             err_t *e)
{
  (void)tab;
  return tbl_morsels_new(q->q_txn, (const tbl_split_t *)sp, a, (tbl_morsels_t **)out, e);
}

static int hook_scan_open_morsels(qctx_t *q, void *tab, qmorsels_t *m, const int *cols, int ncols,
                                  const qpred_t *preds, int npred, bool want_rowid, arena_t *a,
                                  qscan_t **out, err_t *e)
{
  (void)q, (void)tab;
  qscan_t *s = arena_zalloc(a, sizeof(*s));
  s->qs_preds = scan_preds(preds, npred, a);
  s->qs_npred = npred;
  if (tbl_scan_open_morsels((tbl_morsels_t *)m, cols, ncols, want_rowid, a, &s->qs_scan, e) != CZ_OK ||
      tbl_scan_filter(s->qs_scan, s->qs_preds, npred, e) != CZ_OK)
    return CZ_ERR;
  *out = s;
  return CZ_OK;
}

static int rel_insert(qctx_t *q, void *tab, const batch_t *b, const int *sel, int n, err_t *e)
{
  (void)q, (void)tab, (void)b, (void)sel, (void)n;
  return err_set(e, SQLSTATE_INTERNAL, "cannot change a catalog relation");
}

static int rel_update(qctx_t *q, void *tab, const batch_t *b, const bool *set, const int *sel,
                      int n, const qepq_t *epq, err_t *e)
{
  (void)set, (void)epq;
  return rel_insert(q, tab, b, sel, n, e);
}

static int rel_delete(qctx_t *q, void *tab, const batch_t *b, int rid, const int *sel, int n,
                      const qepq_t *epq, err_t *e)
{
  (void)rid, (void)epq;
  return rel_insert(q, tab, b, sel, n, e);
}

/* ---- statistics and samples (the optimizer's, at plan time) ------------ */

static int hook_stats(void *tab, arena_t *a, qstats_t *out, err_t *e)
{
  (void)e;
  const cat_table_t *t = en_handle_cat(tab);
  cat_tabstats_t ts;
  cat_stats_get(t, a, &ts);
  qcolstats_t *cols = arena_alloc(a, sizeof(qcolstats_t) * (size_t)(ts.ts_ncols + 1));
  for (int c = 0; c < ts.ts_ncols; c++)
    cols[c] = (qcolstats_t){ts.ts_cols[c].cs_ndv, ts.ts_cols[c].cs_null_frac,
                            ts.ts_cols[c].cs_avg_width};
  *out = (qstats_t){ts.ts_rows, ts.ts_ncols, cols};
  return CZ_OK;
}

/* Committed rows only (tx NULL): planning must not move the statement's
 * command counter, and its estimates need no exactness. */
static int hook_sample(void *tab, int idx, const qrange_t *r, int n, uint64_t seed,
                       const int *cols, int ncols, batch_t *out, double *rows, arena_t *a,
                       err_t *e)
{
  const cat_table_t *t = en_handle_cat(tab);
  tbl_bound_t lo = {0}, hi = {0};
  if (r) {
    lo = (tbl_bound_t){r->qr_nlow, r->qr_low, r->qr_low_incl};
    hi = (tbl_bound_t){r->qr_nhigh, r->qr_high, r->qr_high_incl};
  }
  if (tbl_estimate(t, idx, &lo, &hi, a, rows, e) != CZ_OK)
    return CZ_ERR;
  if (n <= 0 || !out)
    return CZ_OK;
  return tbl_sample(NULL, t, idx, &lo, &hi, n, seed ^ t->ct_oid, cols, ncols, out, a, e);
}

/* SELECT … FOR UPDATE / FOR SHARE (table/tb_lock.c). */
_Static_assert(QLOCK_OK == TBL_LOCK_OK && QLOCK_CHANGED == TBL_LOCK_CHANGED &&
                   QLOCK_GONE == TBL_LOCK_GONE && QLOCK_BUSY == TBL_LOCK_BUSY,
               "exec's and table's row lock outcomes differ");

static int hook_lock_row(qctx_t *q, void *tab, const uint8_t *rid, size_t rid_len, int strength,
                         bool nowait, datum_t *cur, arena_t *a, int *st, err_t *e)
{
  int s = strength == QLOCK_FOR_KEY_SHARE       ? TBL_LOCK_KEY_SHARE
          : strength == QLOCK_FOR_SHARE         ? TBL_LOCK_SHARE
          : strength == QLOCK_FOR_NO_KEY_UPDATE ? TBL_LOCK_NO_KEY_UPDATE
                                                : TBL_LOCK_UPDATE;
  return tbl_lock_row(q->q_txn, en_handle_cat(tab), rid, rid_len, s, nowait, cur, a, st, e);
}

static const qtable_ops_t en_table_ops = {
    hook_scan_open, hook_scan_next, hook_scan_close,    hook_insert,        hook_update,
    hook_delete,    hook_lookup,    hook_conflict_open, hook_conflict_apply,
    .qt_stats = hook_stats, .qt_sample = hook_sample, .qt_scan_split = hook_scan_split,
    .qt_morsels_open = hook_morsels_open, .qt_scan_open_morsels = hook_scan_open_morsels,
    .qt_modify_end = hook_modify_end,
    .qt_probe_open = hook_probe_open, .qt_probe_keys = hook_probe_keys,
    .qt_probe_next = hook_probe_next, .qt_probe_close = hook_probe_close,
    .qt_lock_row = hook_lock_row};

/* Catalog relations: scans only (no key lookups, no ON CONFLICT). */
static const qtable_ops_t en_rel_ops = {hook_scan_open, hook_scan_next, hook_scan_close,
                                        rel_insert,     rel_update,     rel_delete,
                                        NULL,           NULL,           NULL,
                                        .qt_stats = NULL, .qt_sample = NULL};

en_handle_t *en_handle_table(const cat_table_t *t, arena_t *a)
{
  en_handle_t *h = arena_zalloc(a, sizeof *h);
  h->eh_q.qt_ops = &en_table_ops;
  h->eh_table = t;
  return h;
}

en_handle_t *en_handle_rel(const void *rel, arena_t *a)
{
  en_handle_t *h = arena_zalloc(a, sizeof *h);
  h->eh_q.qt_ops = &en_rel_ops;
  h->eh_rel = rel;
  return h;
}
