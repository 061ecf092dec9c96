/* en_view_ddl — CREATE [OR REPLACE] VIEW, CREATE / REFRESH / DROP
 * MATERIALIZED VIEW, DROP VIEW, ALTER [MATERIALIZED] VIEW … RENAME, and
 * the dependency rule every DROP of a relation a view reads follows.
 *
 * Design notes (catalog/README.md, "Views"):
 * - CREATE binds the query once (sql_plan_stmt) for its columns and the
 *   relations it reads, then stores the query's text as written; the
 *   statement's top-level accesses (sp_access_t with ac_role 0) are the
 *   view's direct dependencies: tables, views, materialized views.
 * - OR REPLACE follows PostgreSQL: the same columns, in the same order,
 *   with the same names and types, new ones only at the end (42P16).
 * - DROP of a relation with dependent views is 2BP01 with PostgreSQL's
 *   DETAIL and HINT; with CASCADE every view depending on it, directly
 *   or through other views, goes first (one NOTICE, as PostgreSQL).
 * - A materialized view is a table (no primary key) plus its view record
 *   (same OID); REFRESH empties the table and runs INSERT … query, both
 *   planned with sp_env_t pe_refresh (which alone may write it).
 * - TEMP views (and views reading one, with PostgreSQL's NOTICE) go to the
 *   session's pg_temp_<n> schema, made in the same transaction; names are
 *   looked up there first (en_find_view); the session drops it at its end
 *   (engine/session), the next start whatever a crash left (cat_temp.c).
 * - The binder's notes (sp_refs_t) become the view's references by OID
 *   and column number (cat_view_ref_t), so renames keep it working;
 *   columns views use are guarded against DROP COLUMN / ALTER TYPE.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "engine/runner/runner_int.h"
#include "pgcat/pgcat.h"

#define EN_VIEW_MAX_DEPS 1024  /* views a DROP … CASCADE reaches at most */

static bool en_owns_view(esession_t *s, const cat_view_t *w)
{
  return esession_is_superuser(s) || w->cw_owner == es_role_oid(s);
}

static const char *rel_kind_name(char kind)
{
  return kind == 'v' ? "view" : kind == 'm' ? "materialized view" : "table";
}

/* The kind of relation oid for messages: 'v', 'm' or 't'. */
static char rel_kind(const cat_snapshot_t *snap, cat_oid_t oid)
{
  const cat_view_t *w = cat_view_by_oid(snap, oid);
  return w ? w->cw_kind : 't';
}

/* Every view that depends on rel, directly or through other views, into
 * out[0..n), breadth first: a view comes after one it depends on, so the
 * caller drops them from the end. */
static int collect_dependents(const cat_snapshot_t *snap, cat_oid_t rel, const cat_view_t **out,
                              int cap)
{
  int n = 0;
  cat_oid_t queue[EN_VIEW_MAX_DEPS];
  int qh = 0, qt = 0;
  queue[qt++] = rel;
  while (qh < qt) {
    const cat_view_t *dep[EN_VIEW_MAX_DEPS];
    int nd = cat_view_dependents(snap, queue[qh++], dep, EN_VIEW_MAX_DEPS);
    for (int i = 0; i < nd && i < EN_VIEW_MAX_DEPS; i++) {
      bool seen = false;
      for (int k = 0; k < n && !seen; k++)
        seen = out[k] == dep[i];
      if (seen || n >= cap || qt >= EN_VIEW_MAX_DEPS)
        continue;
      out[n++] = dep[i];
      queue[qt++] = dep[i]->cw_oid;
    }
  }
  return n;
}

/* PostgreSQL's NOTICE for the n views a CASCADE drops: one names it, more
 * are counted with each in the DETAIL. */
static void cascade_notice(esession_t *s, const cat_view_t *const *views, int n)
{
  if (n == 1) {
    es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION, "drop cascades to %s %s",
              rel_kind_name(views[0]->cw_kind), views[0]->cw_name);
    return;
  }
  char list[600];
  size_t l = 0;
  list[0] = '\0';
  for (int i = 0; i < n && l < sizeof list; i++)
    l += (size_t)snprintf(list + l, sizeof list - l, "%sdrop cascades to %s %s", i ? "\n" : "",
                          rel_kind_name(views[i]->cw_kind), views[i]->cw_name);
  err_t notice;
  err_set(&notice, SQLSTATE_SUCCESSFUL_COMPLETION, "drop cascades to %d other objects", n);
  err_detail(&notice, "%s", list);
  es_notice_err(s, "NOTICE", &notice);
}

static int drop_one_view(esession_t *s, const cat_view_t *w, err_t *e)
{
  cat_t *c = es_engine(s)->en_cat;
  cat_oid_t oid = w->cw_oid;
  bool mat = w->cw_kind == 'm';
  if (cat_drop_view(c, es_txn(s), oid, e) != CZ_OK)
    return CZ_ERR;
  return mat ? cat_drop_table(c, es_txn(s), oid, e) : CZ_OK;
}

int en_view_drop_dependents(esession_t *s, cat_oid_t rel, const char *name, bool cascade,
                            err_t *e)
{
  es_refresh_snapshot(s);
  const cat_snapshot_t *snap = es_snapshot(s);
  static _Thread_local const cat_view_t *deps[EN_VIEW_MAX_DEPS];
  int n = collect_dependents(snap, rel, deps, EN_VIEW_MAX_DEPS);
  if (n == 0)
    return CZ_OK;
  /* PostgreSQL's DETAIL: each dependent and what it depends on */
  char detail[400];
  size_t len = 0;
  detail[0] = '\0';
  for (int i = 0; i < n && len < sizeof detail; i++) {
    /* what it depends on: rel itself, or a view dropped before it */
    const cat_view_t *w = deps[i];
    const char *on_name = name;
    cat_oid_t on = rel;
    bool direct = false;
    for (int d = 0; d < w->cw_ndeps && !direct; d++)
      direct = w->cw_deps[d] == rel;
    for (int k = 0; k < i && !direct && on == rel; k++)
      for (int d = 0; d < w->cw_ndeps; d++)
        if (w->cw_deps[d] == deps[k]->cw_oid) {
          on = deps[k]->cw_oid;
          on_name = deps[k]->cw_name;
          break;
        }
    len += (size_t)snprintf(detail + len, sizeof detail - len, "%s%s %s depends on %s %s",
                            i ? "\n" : "", rel_kind_name(w->cw_kind), w->cw_name,
                            rel_kind_name(rel_kind(snap, on)), on_name);
  }
  if (!cascade) {
    err_set(e, SQLSTATE_DEPENDENT_OBJECTS, "cannot drop %s %s because other objects depend on it",
            rel_kind_name(rel_kind(snap, rel)), name);
    return err_add_fields(e, detail,
                          "Use DROP ... CASCADE to drop the dependent objects too.");
  }
  cascade_notice(s, deps, n);
  /* the ones found last depend on earlier ones: drop from the end */
  for (int i = n - 1; i >= 0; i--) {
    es_refresh_snapshot(s);
    const cat_view_t *w = cat_view_by_oid(es_snapshot(s), deps[i]->cw_oid);
    if (w && drop_one_view(s, w, e) != CZ_OK)
      return CZ_ERR;
  }
  es_refresh_snapshot(s);
  return CZ_OK;
}

/* ---- columns views use -------------------------------------------------------- */

static cat_view_def_t view_def(const cat_view_t *w);

int en_view_column_used(esession_t *s, const cat_table_t *t, int col, bool drop, bool cascade,
                        err_t *e)
{
  es_refresh_snapshot(s);
  const cat_snapshot_t *snap = es_snapshot(s);
  const char *cname = t->ct_cols[col].cc_name;
  /* PostgreSQL's report: each view using the column, then the views
   * depending on it; ALTER TYPE stops at the first */
  static _Thread_local const cat_view_t *all[EN_VIEW_MAX_DEPS];
  static _Thread_local const cat_view_t *on[EN_VIEW_MAX_DEPS];  /* what each depends on */
  static _Thread_local const cat_view_t *deps[EN_VIEW_MAX_DEPS];
  int n = 0;
  for (int i = 0; i < snap->cs_nviews && n < EN_VIEW_MAX_DEPS; i++) {
    const cat_view_t *w = snap->cs_views[i];
    bool seen = false;
    for (int k = 0; k < n && !seen; k++)
      seen = all[k] == w;
    if (seen || !cat_view_uses_column(w, t->ct_oid, col))
      continue;
    on[n] = NULL;
    all[n++] = w;
    if (!drop)
      break;
    int nd = collect_dependents(snap, w->cw_oid, deps, EN_VIEW_MAX_DEPS);
    for (int d = 0; d < nd && n < EN_VIEW_MAX_DEPS; d++) {
      seen = false;
      for (int k = 0; k < n && !seen; k++)
        seen = all[k] == deps[d];
      if (seen)
        continue;
      /* the view it depends on: the first one listed that it reads */
      on[n] = w;
      for (int k = 0; k < n; k++)
        for (int x = 0; x < deps[d]->cw_ndeps; x++)
          if (deps[d]->cw_deps[x] == all[k]->cw_oid) {
            on[n] = all[k];
            k = n;
            break;
          }
      all[n++] = deps[d];
    }
  }
  if (n == 0)
    return CZ_OK;
  char detail[600];
  size_t len = 0;
  detail[0] = '\0';
  for (int i = 0; i < n && len < sizeof detail; i++) {
    const cat_view_t *w = all[i];
    if (!drop)
      len += (size_t)snprintf(detail + len, sizeof detail - len,
                              "rule _RETURN on %s %s depends on column \"%s\"",
                              rel_kind_name(w->cw_kind), w->cw_name, cname);
    else if (!on[i])
      len += (size_t)snprintf(detail + len, sizeof detail - len,
                              "%s%s %s depends on column %s of table %s", i ? "\n" : "",
                              rel_kind_name(w->cw_kind), w->cw_name, cname, t->ct_name);
    else
      len += (size_t)snprintf(detail + len, sizeof detail - len, "%s%s %s depends on %s %s",
                              i ? "\n" : "", rel_kind_name(w->cw_kind), w->cw_name,
                              rel_kind_name(on[i]->cw_kind), on[i]->cw_name);
  }
  if (!drop) {
    err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
            "cannot alter type of a column used by a view or rule");
    return err_add_fields(e, detail, NULL);
  }
  if (!cascade) {
    err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
            "cannot drop column %s of table %s because other objects depend on it", cname,
            t->ct_name);
    return err_add_fields(e, detail, "Use DROP ... CASCADE to drop the dependent objects too.");
  }
  cascade_notice(s, all, n);
  cat_oid_t oids[EN_VIEW_MAX_DEPS];
  for (int i = 0; i < n; i++)
    oids[i] = all[i]->cw_oid;
  /* dependents after what they depend on: drop from the end */
  for (int i = n - 1; i >= 0; i--) {
    es_refresh_snapshot(s);
    const cat_view_t *w = cat_view_by_oid(es_snapshot(s), oids[i]);
    if (w && drop_one_view(s, w, e) != CZ_OK)
      return CZ_ERR;
  }
  es_refresh_snapshot(s);
  return CZ_OK;
}

int en_view_remap_columns(esession_t *s, cat_oid_t table, const int *colmap, int nold, err_t *e)
{
  /* the pending snapshot, not the session's: ALTER TABLE still reads the
   * old rows through the session's snapshot after this */
  cat_t *c = es_engine(s)->en_cat;
  cat_snapshot_t *ps = cat_snapshot_tx(c, es_txn(s));
  int n = 0;
  cat_oid_t moved[EN_VIEW_MAX_DEPS];
  for (int i = 0; i < ps->cs_nviews && n < EN_VIEW_MAX_DEPS; i++) {
    const cat_view_t *w = ps->cs_views[i];
    for (int k = 0; k < w->cw_nrefs; k++) {
      const cat_view_ref_t *f = &w->cw_refs[k];
      if (f->vr_oid == table && f->vr_col >= 0 && f->vr_col < nold &&
          colmap[f->vr_col] != f->vr_col) {
        moved[n++] = w->cw_oid;
        break;
      }
    }
  }
  cat_snapshot_release(ps);
  for (int i = 0; i < n; i++) {
    ps = cat_snapshot_tx(c, es_txn(s));
    const cat_view_t *w = cat_view_by_oid(ps, moved[i]);
    int rc = CZ_OK;
    if (w) {
      arena_t *a = arena_create(NULL, "view remap");
      cat_view_ref_t *refs = arena_alloc(a, sizeof(*refs) * (size_t)(w->cw_nrefs + 1));
      int m = 0;
      for (int k = 0; k < w->cw_nrefs; k++) {
        cat_view_ref_t f = w->cw_refs[k];
        if (f.vr_oid == table && f.vr_col >= 0 && f.vr_col < nold)
          f.vr_col = colmap[f.vr_col];
        if (f.vr_oid == table && f.vr_col < 0 && f.vr_kind != 'r')
          continue;  /* a dropped column no longer used (only CASCADE gets here) */
        refs[m++] = f;
      }
      cat_view_def_t d = view_def(w);
      d.vd_nrefs = m;
      d.vd_refs = refs;
      rc = cat_replace_view(c, es_txn(s), w->cw_oid, &d, e);
      arena_destroy(a);
    }
    cat_snapshot_release(ps);
    if (rc != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- CREATE -------------------------------------------------------------- */

/* The query bound: its columns and the relations it reads directly. */
typedef struct vq_s {
  int vq_ncols;
  const char **vq_names;
  ty_t *vq_types;
  int vq_ndeps;
  cat_oid_t *vq_deps;
  int vq_nrefs;                 /* the names of the text by OID (cat_view_ref_t) */
  cat_view_ref_t *vq_refs;
} vq_t;

/* The byte offset of 1-based character position pos in text. */
static size_t char_to_byte(const char *text, size_t len, int pos)
{
  size_t b = 0;
  for (int ch = 1; b < len && ch < pos; ch++) {
    b++;
    while (b < len && ((unsigned char)text[b] & 0xC0) == 0x80)
      b++;
  }
  return b;
}

/* The byte range of part `part` of the dotted name starting at text[b]
 * (an identifier, plain or double-quoted); false when it is not there. */
static bool name_part(const char *text, size_t len, size_t b, int part, size_t *off, size_t *n)
{
  for (int k = 0;; k++) {
    size_t start = b;
    if (b < len && text[b] == '"') {
      for (b++; b < len; b++)
        if (text[b] == '"') {
          if (b + 1 < len && text[b + 1] == '"')
            b++;
          else
            break;
        }
      if (b >= len)
        return false;
      b++;
    } else {
      while (b < len && (isalnum((unsigned char)text[b]) || text[b] == '_' || text[b] == '$' ||
                         (unsigned char)text[b] >= 0x80))
        b++;
    }
    if (b == start)
      return false;
    if (k == part) {
      *off = start;
      *n = b - start;
      return true;
    }
    while (b < len && isspace((unsigned char)text[b]))
      b++;
    if (b >= len || text[b] != '.')
      return false;
    b++;
    while (b < len && isspace((unsigned char)text[b]))
      b++;
  }
}

/* The binder's notes (sp_refs_t) as the catalog keeps them: byte ranges
 * of the view's own text, and the select-list items that are one column
 * name alone (written `name AS col` once the column is renamed). */
static void refs_from_notes(arena_t *a, const cat_snapshot_t *snap, const char *stmt,
                            const sql_view_t *v, const sp_refs_t *rs, vq_t *out)
{
  size_t len = strlen(stmt);
  /* room for a schema note beside each qualified relation name */
  out->vq_refs = arena_zalloc(a, sizeof(cat_view_ref_t) * (size_t)(2 * rs->rs_n + 1));
  out->vq_nrefs = 0;
  const sql_query_t *q = v->vw_query;
  const sql_list_t *targets =
      q && q->qu_kind == SQL_Q_SELECT && q->qu_select ? q->qu_select->se_targets : NULL;
  for (int i = 0; i < rs->rs_n; i++) {
    const sp_ref_t *r = &rs->rs_refs[i];
    cat_view_ref_t f = {.vr_kind = r->rf_kind, .vr_oid = r->rf_oid, .vr_col = r->rf_col};
    if (r->rf_kind != 'd') {
      size_t off, n;
      size_t b = char_to_byte(stmt, len, r->rf_pos);
      if (b < v->vw_off || !name_part(stmt, len, b, r->rf_part, &off, &n) ||
          off + n > v->vw_off + v->vw_len)
        continue;  /* not in the view's own text: nothing to rename there */
      f.vr_off = (uint32_t)(off - v->vw_off);
      f.vr_len = (uint32_t)n;
      /* schema.relation: the schema's name is noted too (kind 'n', the
       * schema's OID), so that ALTER SCHEMA … RENAME leaves the view
       * working */
      size_t soff, sn;
      if (r->rf_kind == 'r' && r->rf_part == 1 && name_part(stmt, len, b, 0, &soff, &sn)) {
        const cat_view_t *rv = cat_view_by_oid(snap, r->rf_oid);
        const cat_table_t *rt = rv ? NULL : cat_table_by_oid(snap, r->rf_oid);
        cat_oid_t sch = rv ? rv->cw_schema : rt ? rt->ct_schema : 0;
        if (sch)
          out->vq_refs[out->vq_nrefs++] = (cat_view_ref_t){
              .vr_kind = 'n', .vr_oid = sch, .vr_col = -1,
              .vr_off = (uint32_t)(soff - v->vw_off), .vr_len = (uint32_t)sn};
      }
      for (int t = 0; r->rf_kind == 'c' && t < sql_list_len(targets); t++) {
        const sql_target_t *tg = sql_list_at(targets, t);
        if (!tg->tg_alias && tg->tg_expr->ex_kind == SQL_E_COLUMN &&
            tg->tg_expr->ex_pos == r->rf_pos && t < out->vq_ncols)
          f.vr_alias = t + 1;
      }
    }
    out->vq_refs[out->vq_nrefs++] = f;
  }
}

static void dep_add(vq_t *q, cat_oid_t oid)
{
  for (int i = 0; i < q->vq_ndeps; i++)
    if (q->vq_deps[i] == oid)
      return;
  q->vq_deps[q->vq_ndeps++] = oid;
}

static int bind_query(esession_t *s, arena_t *a, const char *stmt, const sql_view_t *v, vq_t *out,
                      err_t *e)
{
  sql_stmt_t st = {.st_kind = SQL_STMT_SELECT, .st_query = v->vw_query};
  sp_env_t env;
  en_env(s, &env);
  sp_refs_t notes = {.rs_a = a};
  env.pe_refs = &notes;
  splan_t *p;
  if (sql_plan_stmt(a, &st, &env, NULL, 0, &p, e) != CZ_OK)
    return CZ_ERR;
  if (p->sp_nparams > 0)
    return err_set(e, SQLSTATE_UNDEFINED_PARAMETER, "there is no parameter $1");
  int nal = sql_list_len(v->vw_columns);
  if (nal > p->sp_ncols)
    return err_set(e, SQLSTATE_SYNTAX_ERROR,
                   "CREATE %sVIEW specifies more column names than columns",
                   v->vw_materialized ? "MATERIALIZED " : "");
  out->vq_ncols = p->sp_ncols;
  out->vq_names = arena_alloc(a, sizeof(char *) * (size_t)(p->sp_ncols + 1));
  out->vq_types = arena_alloc(a, sizeof(ty_t) * (size_t)(p->sp_ncols + 1));
  for (int i = 0; i < p->sp_ncols; i++) {
    out->vq_names[i] = i < nal ? sql_list_at(v->vw_columns, i) : p->sp_cols[i].pc_name;
    out->vq_types[i] = p->sp_cols[i].pc_type;
    if (out->vq_types[i].t_id == TY_UNKNOWN)
      out->vq_types[i] = ty_plain(TY_TEXT);  /* PostgreSQL 10+: an unknown literal is text */
    for (int k = 0; k < i; k++)
      if (strcmp(out->vq_names[k], out->vq_names[i]) == 0)
        return err_set(e, SQLSTATE_DUPLICATE_COLUMN, "column \"%s\" specified more than once",
                       out->vq_names[i]);
  }
  out->vq_deps = arena_alloc(a, sizeof(cat_oid_t) * (size_t)(p->sp_naccess + 1));
  out->vq_ndeps = 0;
  for (int i = 0; i < p->sp_naccess; i++) {
    const sp_access_t *ac = &p->sp_access[i];
    if (ac->ac_role)
      continue;  /* read inside another view: that view is the dependency */
    if (ac->ac_view)
      dep_add(out, ac->ac_view->vi_oid);
    else if (en_handle_cat(ac->ac_table->tb_handle))
      dep_add(out, ac->ac_table->tb_oid);
  }
  refs_from_notes(a, es_snapshot(s), stmt, v, &notes, out);
  return CZ_OK;
}

/* Whether view oid is among the relations deps reach through views. */
static bool reaches(const cat_snapshot_t *snap, const cat_oid_t *deps, int n, cat_oid_t oid,
                    int depth)
{
  if (depth > 64)
    return true;
  for (int i = 0; i < n; i++) {
    if (deps[i] == oid)
      return true;
    const cat_view_t *w = cat_view_by_oid(snap, deps[i]);
    if (w && reaches(snap, w->cw_deps, w->cw_ndeps, oid, depth + 1))
      return true;
  }
  return false;
}

/* PostgreSQL's rules for CREATE OR REPLACE VIEW (42P16). */
static int replace_check(arena_t *a, const cat_view_t *old, const vq_t *q, err_t *e)
{
  if (q->vq_ncols < old->cw_ncols)
    return err_set(e, SQLSTATE_INVALID_TABLE_DEF, "cannot drop columns from view");
  for (int i = 0; i < old->cw_ncols; i++) {
    if (strcmp(old->cw_colnames[i], q->vq_names[i]) != 0) {
      err_set(e, SQLSTATE_INVALID_TABLE_DEF, "cannot change name of view column \"%s\" to \"%s\"",
              old->cw_colnames[i], q->vq_names[i]);
      return err_add_fields(
          e, NULL, "Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.");
    }
    ty_t o = old->cw_coltypes[i], n = q->vq_types[i];
    if (o.t_id != n.t_id || o.t_len != n.t_len || o.t_prec != n.t_prec ||
        o.t_scale != n.t_scale || o.t_elem != n.t_elem)
      return err_set(e, SQLSTATE_INVALID_TABLE_DEF,
                     "cannot change data type of view column \"%s\" from %s to %s",
                     old->cw_colnames[i], ty_name(a, o), ty_name(a, n));
  }
  return CZ_OK;
}

/* Plans and runs an INSERT, UPDATE or DELETE statement st (REFRESH's) to
 * the end; *rows (may be NULL) the rows it changed. */
static int run_dml(esession_t *s, arena_t *a, const sql_stmt_t *st, int64_t *rows, err_t *e)
{
  sp_env_t env;
  en_env(s, &env);
  env.pe_refresh = true;
  splan_t *p;
  if (sql_plan_stmt(a, st, &env, NULL, 0, &p, e) != CZ_OK || en_check_access(s, p, e) != CZ_OK)
    return CZ_ERR;
  erexec_t x;
  er_exec_begin(&x, s, p, NULL, 0, a, a, NULL);
  qctx_t *q = &x.x_q;
  obatch_t ob;
  int rc = op_open(p->sp_root, q, e);
  if (rc == CZ_OK)
    rc = op_next(p->sp_root, q, &ob, e);
  if (rc == CZ_OK && rows && p->sp_dml)
    *rows = (int64_t)op_dml_count(p->sp_dml, q);
  op_close(p->sp_root, q);
  er_exec_end(&x);
  return rc;
}

/* REFRESH's work: the table emptied, then filled from the query (when
 * populated). */
static int matview_fill(esession_t *s, arena_t *a, const cat_view_t *w, int64_t *rows, err_t *e)
{
  sql_name_t n = {.nm_schema = w->cw_schema_name, .nm_name = w->cw_name};
  sql_delete_t de = {.de_table = n};
  sql_stmt_t del = {.st_kind = SQL_STMT_DELETE, .st_delete = &de};
  if (run_dml(s, a, &del, NULL, e) != CZ_OK)
    return CZ_ERR;
  if (!w->cw_populated)
    return CZ_OK;
  sql_stmt_list_t *l;
  const char *text = cat_view_text(a, es_snapshot(s), w, pgcat_quote_ident, NULL, NULL);
  if (sql_parse(a, text, strlen(text), &l, e) != CZ_OK)
    return CZ_ERR;
  if (l->sl_n != 1 || l->sl_stmts[0]->st_kind != SQL_STMT_SELECT)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "materialized view \"%s\" has a bad definition",
                   w->cw_name);
  sql_insert_t in = {.in_table = n, .in_query = l->sl_stmts[0]->st_query};
  sql_stmt_t ins = {.st_kind = SQL_STMT_INSERT, .st_insert = &in};
  return run_dml(s, a, &ins, rows, e);
}

static cat_view_def_t view_def(const cat_view_t *w)
{
  return (cat_view_def_t){.vd_schema = w->cw_schema_name, .vd_name = w->cw_name,
                          .vd_owner = w->cw_owner, .vd_kind = w->cw_kind,
                          .vd_check = w->cw_check, .vd_populated = w->cw_populated,
                          .vd_query = w->cw_query, .vd_ncols = w->cw_ncols,
                          .vd_colnames = w->cw_colnames, .vd_coltypes = w->cw_coltypes,
                          .vd_ndeps = w->cw_ndeps, .vd_deps = w->cw_deps,
                          .vd_nrefs = w->cw_nrefs, .vd_refs = w->cw_refs};
}

static int create_matview(esession_t *s, arena_t *a, const sql_view_t *v, const char *schema,
                          const char *text, const vq_t *q, int64_t *rows, err_t *e)
{
  cat_t *c = es_engine(s)->en_cat;
  cat_column_def_t *cols = arena_zalloc(a, sizeof(*cols) * (size_t)(q->vq_ncols + 1));
  for (int i = 0; i < q->vq_ncols; i++) {
    cols[i].cd_name = q->vq_names[i];
    cols[i].cd_type = q->vq_types[i];
  }
  cat_table_def_t td = {.td_schema = schema, .td_name = v->vw_name.nm_name,
                        .td_owner = es_role_oid(s), .td_ncols = q->vq_ncols, .td_cols = cols,
                        .td_layout = en_default_layout(s, cols, q->vq_ncols)};
  cat_oid_t oid;
  if (cat_create_table(c, es_txn(s), &td, &oid, e) != CZ_OK)
    return CZ_ERR;
  cat_view_def_t d = {.vd_schema = schema, .vd_name = v->vw_name.nm_name,
                      .vd_owner = es_role_oid(s), .vd_kind = 'm', .vd_populated = !v->vw_no_data,
                      .vd_query = text, .vd_ncols = q->vq_ncols, .vd_colnames = q->vq_names,
                      .vd_coltypes = q->vq_types, .vd_ndeps = q->vq_ndeps, .vd_deps = q->vq_deps,
                      .vd_table = oid, .vd_nrefs = q->vq_nrefs, .vd_refs = q->vq_refs};
  if (cat_create_view(c, es_txn(s), &d, NULL, e) != CZ_OK)
    return CZ_ERR;
  es_refresh_snapshot(s);
  const cat_view_t *w = cat_view_by_oid(es_snapshot(s), oid);
  return w ? matview_fill(s, a, w, rows, e)
           : err_set(e, SQLSTATE_INTERNAL, "materialized view lost");
}

/* PostgreSQL's answer when name is taken by a relation of kind (0: free):
 * CZ_OK to go on, 1 to skip (IF NOT EXISTS), CZ_ERR. */
static int name_taken(esession_t *s, const sql_view_t *v, char kind, err_t *e)
{
  if (!kind)
    return CZ_OK;
  if (v->vw_materialized && v->vw_if_not_exists) {
    es_notice(s, "NOTICE", SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists, skipping",
              v->vw_name.nm_name);
    return 1;
  }
  if (v->vw_replace && kind == 'v')
    return CZ_OK;
  if (v->vw_replace)
    return err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "\"%s\" is not a view", v->vw_name.nm_name);
  return err_set(e, SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists",
                 v->vw_name.nm_name);
}

/* Whether the bound query reads a temporary view (its schema pg_temp_<n>). */
static bool reads_temp(const cat_snapshot_t *snap, const vq_t *q)
{
  for (int i = 0; i < q->vq_ndeps; i++) {
    const cat_view_t *w = cat_view_by_oid(snap, q->vq_deps[i]);
    if (w && cat_schema_is_temp(w->cw_schema_name))
      return true;
  }
  return false;
}

/* The session's temporary schema, made in this transaction when missing
 * (owned by the bootstrap superuser, as PostgreSQL's pg_temp_<n>). */
static int temp_schema_ready(esession_t *s, const char *schema, err_t *e)
{
  if (cat_find_schema(es_snapshot(s), schema))
    return CZ_OK;
  if (cat_create_schema(es_engine(s)->en_cat, es_txn(s), schema, 10, NULL, e) != CZ_OK)
    return CZ_ERR;
  es_refresh_snapshot(s);
  return CZ_OK;
}

static int create_view(esession_t *s, arena_t *a, const char *stmt_text, const sql_view_t *v,
                       int64_t *rows, err_t *e)
{
  /* TEMP, or a name in pg_temp: the session's temporary schema */
  const char *schema = v->vw_name.nm_schema;
  bool temp = v->vw_temp;
  if (schema && strcmp(schema, "pg_temp") == 0) {
    temp = true;
    schema = NULL;
  }
  if (temp && schema && !cat_schema_is_temp(schema))
    return err_set(e, SQLSTATE_INVALID_TABLE_DEF,
                   "cannot create temporary relation in non-temporary schema");
  const char *written = schema;
  if (temp)
    schema = es_temp_schema(s, true);
  else if (en_new_schema(s, written, v->vw_name.nm_name, &schema, e) != CZ_OK)
    return CZ_ERR;  /* en_path.c: the first schema of search_path */
  cat_oid_t existing = 0;
  char kind = cat_find_relation(es_snapshot(s), schema, v->vw_name.nm_name, &existing);
  int rc = name_taken(s, v, kind, e);
  if (rc != CZ_OK)
    return rc == 1 ? CZ_OK : CZ_ERR;
  vq_t q = {0};
  if (bind_query(s, a, stmt_text, v, &q, e) != CZ_OK)
    return CZ_ERR;
  if (!temp && reads_temp(es_snapshot(s), &q)) {
    /* PostgreSQL: a view reading a temporary one is temporary too */
    if (v->vw_materialized)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                     "materialized views must not use temporary tables or views");
    es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION, "view \"%s\" will be a temporary view",
              v->vw_name.nm_name);
    if (written)
      return err_set(e, SQLSTATE_INVALID_TABLE_DEF,
                     "cannot create temporary relation in non-temporary schema");
    temp = true;
    schema = es_temp_schema(s, true);
    kind = cat_find_relation(es_snapshot(s), schema, v->vw_name.nm_name, &existing);
    rc = name_taken(s, v, kind, e);
    if (rc != CZ_OK)
      return rc == 1 ? CZ_OK : CZ_ERR;
  }
  if (temp && temp_schema_ready(s, schema, e) != CZ_OK)
    return CZ_ERR;
  if (!kind && !temp && en_check_schema_create(s, schema, e) != CZ_OK)
    return CZ_ERR;  /* en_schema_ddl.c: CREATE on the schema */
  const cat_snapshot_t *snap = es_snapshot(s);
  char *text = arena_alloc(a, v->vw_len + 1);
  memcpy(text, stmt_text + v->vw_off, v->vw_len);
  text[v->vw_len] = '\0';
  if (v->vw_materialized)
    return create_matview(s, a, v, schema, text, &q, rows, e);
  cat_view_def_t d = {.vd_schema = schema, .vd_name = v->vw_name.nm_name,
                      .vd_owner = es_role_oid(s), .vd_kind = 'v', .vd_check = v->vw_check,
                      .vd_populated = true, .vd_query = text, .vd_ncols = q.vq_ncols,
                      .vd_colnames = q.vq_names, .vd_coltypes = q.vq_types,
                      .vd_ndeps = q.vq_ndeps, .vd_deps = q.vq_deps,
                      .vd_nrefs = q.vq_nrefs, .vd_refs = q.vq_refs};
  /* writable through when simple over a table (not over another view) */
  d.vd_updatable = sql_view_updatable(v->vw_query) && q.vq_ndeps == 1 &&
                   !cat_view_by_oid(snap, q.vq_deps[0]);
  cat_t *c = es_engine(s)->en_cat;
  if (!kind)
    return cat_create_view(c, es_txn(s), &d, NULL, e);
  const cat_view_t *old = cat_view_by_oid(snap, existing);
  if (!old)
    return err_set(e, SQLSTATE_INTERNAL, "view \"%s\" lost", v->vw_name.nm_name);
  if (!en_owns_view(s, old))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of view %s", old->cw_name);
  if (reaches(snap, q.vq_deps, q.vq_ndeps, existing, 0))
    return err_set(e, SQLSTATE_INVALID_OBJECT_DEF,
                   "infinite recursion detected in rules for relation \"%s\"", old->cw_name);
  if (replace_check(a, old, &q, e) != CZ_OK)
    return CZ_ERR;
  d.vd_owner = old->cw_owner;
  return cat_replace_view(c, es_txn(s), existing, &d, e);
}

/* ---- ALTER, REFRESH, DROP -------------------------------------------------- */

const cat_view_t *en_find_view(esession_t *s, const char *schema, const char *name)
{
  const cat_snapshot_t *snap = es_snapshot(s);
  const char *temp = es_temp_schema(s, false);
  if (schema && strcmp(schema, "pg_temp") == 0)
    return temp ? cat_find_view(snap, temp, name) : NULL;
  const cat_view_t *w = !schema && temp ? cat_find_view(snap, temp, name) : NULL;
  return w ? w : cat_find_view(snap, en_rel_schema(s, schema, name), name);
}

static int find_view(esession_t *s, const sql_name_t *n, bool materialized, bool if_exists,
                     const cat_view_t **out, err_t *e)
{
  const cat_snapshot_t *snap = es_snapshot(s);
  const cat_view_t *w = en_find_view(s, n->nm_schema, n->nm_name);
  *out = NULL;
  if (w && (w->cw_kind == 'm') == materialized) {
    *out = w;
    return CZ_OK;
  }
  cat_oid_t oid;
  char kind = w ? w->cw_kind : cat_find_relation(snap, en_name_schema(s, n), n->nm_name, &oid);
  if (kind) {
    err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "\"%s\" is not a %s", n->nm_name,
            materialized ? "materialized view" : "view");
    return err_add_fields(e, NULL, kind == 'v'   ? "Use DROP VIEW to remove a view."
                                   : kind == 'm' ? "Use DROP MATERIALIZED VIEW to remove a "
                                                   "materialized view."
                                   : kind == 'i' ? "Use DROP INDEX to remove an index."
                                   : kind == 'S' ? "Use DROP SEQUENCE to remove a sequence."
                                                 : "Use DROP TABLE to remove a table.");
  }
  if (if_exists) {
    es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION, "%s \"%s\" does not exist, skipping",
              materialized ? "materialized view" : "view", n->nm_name);
    return CZ_OK;
  }
  err_set(e, SQLSTATE_UNDEFINED_TABLE, "%s \"%s\" does not exist",
          materialized ? "materialized view" : "view", n->nm_name);
  e->er_pos = n->nm_pos;
  return CZ_ERR;
}

static int alter_view(esession_t *s, const sql_view_t *v, err_t *e)
{
  const cat_view_t *w;
  if (find_view(s, &v->vw_name, v->vw_materialized, v->vw_if_exists, &w, e) != CZ_OK)
    return CZ_ERR;
  if (!w)
    return CZ_OK;
  if (!en_owns_view(s, w))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of %s %s",
                   rel_kind_name(w->cw_kind), w->cw_name);
  if (w->cw_kind == 'm')
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "renaming a materialized view is not supported yet");
  /* a view reading it names it by OID (cat_view_ref_t), unless made
   * before views kept their names so: that one still reads it by name */
  const cat_view_t *dep[EN_VIEW_MAX_DEPS];
  int nd = cat_view_dependents(es_snapshot(s), w->cw_oid, dep, EN_VIEW_MAX_DEPS);
  for (int i = 0; i < nd && i < EN_VIEW_MAX_DEPS; i++)
    if (dep[i]->cw_nrefs == 0)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                     "cannot rename view %s: view %s reads it by name (made by an older version)",
                     w->cw_name, dep[i]->cw_name);
  cat_view_def_t d = view_def(w);
  d.vd_name = v->vw_rename;
  return cat_replace_view(es_engine(s)->en_cat, es_txn(s), w->cw_oid, &d, e);
}

static int refresh_matview(esession_t *s, arena_t *a, const sql_view_t *v, err_t *e)
{
  const cat_view_t *w;
  if (find_view(s, &v->vw_name, true, false, &w, e) != CZ_OK)
    return CZ_ERR;
  if (!en_owns_view(s, w))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of materialized view %s",
                   w->cw_name);
  cat_view_def_t d = view_def(w);
  d.vd_populated = !v->vw_no_data;
  if (cat_replace_view(es_engine(s)->en_cat, es_txn(s), w->cw_oid, &d, e) != CZ_OK)
    return CZ_ERR;
  es_refresh_snapshot(s);
  w = cat_view_by_oid(es_snapshot(s), w->cw_oid);
  return w ? matview_fill(s, a, w, NULL, e)
           : err_set(e, SQLSTATE_INTERNAL, "materialized view lost");
}

int en_ddl_drop_views(esession_t *s, const sql_drop_t *dr, bool materialized, err_t *e)
{
  for (int i = 0; i < sql_list_len(dr->dr_names); i++) {
    const sql_name_t *n = sql_list_at(dr->dr_names, i);
    es_refresh_snapshot(s);
    const cat_view_t *w;
    err_clear(e);
    if (find_view(s, n, materialized, dr->dr_if_exists, &w, e) != CZ_OK)
      return CZ_ERR;
    if (!w)
      continue;
    if (!en_owns_view(s, w))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of %s %s",
                     rel_kind_name(w->cw_kind), w->cw_name);
    cat_oid_t oid = w->cw_oid;
    if (en_view_drop_dependents(s, oid, w->cw_name, dr->dr_cascade, e) != CZ_OK)
      return CZ_ERR;
    w = cat_view_by_oid(es_snapshot(s), oid);
    if (w && drop_one_view(s, w, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

int en_ddl_view(esession_t *s, const char *text, const sql_stmt_t *st, char *tag, size_t tagcap,
                err_t *e)
{
  const sql_view_t *v = st->st_view;
  arena_t *a = arena_create(NULL, "view ddl");
  int rc;
  switch (st->st_kind) {
  case SQL_STMT_CREATE_VIEW:
  {
    int64_t rows = 0;
    rc = text ? create_view(s, a, text, v, &rows, e)
              : err_set(e, SQLSTATE_INTERNAL, "CREATE VIEW without its text");
    /* a materialized view's tag is PostgreSQL's SELECT n (the rows filled) */
    if (v->vw_materialized)
      snprintf(tag, tagcap, "SELECT %lld", (long long)rows);
    else
      snprintf(tag, tagcap, "CREATE VIEW");
    break;
  }
  case SQL_STMT_ALTER_VIEW:
    snprintf(tag, tagcap, v->vw_materialized ? "ALTER MATERIALIZED VIEW" : "ALTER VIEW");
    err_clear(e);
    rc = alter_view(s, v, e);
    break;
  case SQL_STMT_REFRESH_MATVIEW:
    snprintf(tag, tagcap, "REFRESH MATERIALIZED VIEW");
    rc = refresh_matview(s, a, v, e);
    break;
  default:
    rc = err_set(e, SQLSTATE_INTERNAL, "not a view statement");
  }
  arena_destroy(a);
  return rc;
}
