/* cat_view — views and materialized views: their definitions in
 * sys.views, loaded into every snapshot (cat_view_t), DDL and the
 * dependency lookups DROP needs.
 *
 * Design notes (catalog/README.md, "Views"):
 * - A view is stored as the TEXT of its defining query (as written, the
 *   statement's own byte range), with the column names and types it had
 *   when created and the OIDs of the relations the query read then
 *   (cw_deps). Each use parses and binds the text again, so a view sees
 *   the catalog of the statement that uses it; the catalog holds no plan
 *   or bound tree (those are arena- and snapshot-bound, there is no
 *   serialised form of them), which is why the text is what survives a
 *   restart or a crash: it is a system-table row like any other,
 *   logged and recovered with the DDL transaction.
 * - A plain view ('v') is a relation of its schema's name space (the
 *   relation name index, kind CAT_REL_VIEW); it has no tree.
 * - A materialized view ('m') is a table (sys.tables, its rows in the
 *   table's trees) plus a sys.views record of the same OID holding the
 *   query and whether it is populated; the table is what the name index
 *   finds, cat_view_by_oid tells it is a materialized view.
 * - Dependencies: cw_deps lists tables, views and materialized views by
 *   OID; DROP of any of them is refused (2BP01) unless CASCADE, which
 *   drops the dependent views first (the engine's en_view_ddl.c walks
 *   cat_view_dependents).
 */
#include <string.h>

#include "catalog/cat_int.h"

int cat_view_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                    cat_view_t **out, err_t *e)
{
  if (kl != 4)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed view record in the catalog");
  cat_view_t *w = arena_zalloc(a, sizeof *w);
  cat_rbuf_t r = {v, vl, 0, false};
  w->cw_oid = cat_key_get(k, 0);
  w->cw_schema = cat_r_u32(&r);
  w->cw_owner = cat_r_u32(&r);
  w->cw_name = cat_r_str(&r, a);
  w->cw_kind = (char)cat_r_u8(&r);
  w->cw_check = (char)cat_r_u8(&r);
  uint8_t flags = cat_r_u8(&r);
  w->cw_populated = (flags & 1) != 0;
  w->cw_updatable = (flags & 2) != 0;
  w->cw_query = cat_r_str(&r, a);
  w->cw_ncols = (int)cat_r_u32(&r);
  if (r.r_bad || w->cw_ncols < 0 || w->cw_ncols > CAT_MAX_COLUMNS)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed view record in the catalog");
  const char **names = arena_zalloc(a, sizeof(char *) * (size_t)(w->cw_ncols + 1));
  ty_t *types = arena_zalloc(a, sizeof(ty_t) * (size_t)(w->cw_ncols + 1));
  for (int i = 0; i < w->cw_ncols; i++) {
    names[i] = cat_r_str(&r, a);
    types[i].t_id = (ty_id_t)cat_r_u32(&r);
    types[i].t_len = (int32_t)cat_r_u32(&r);
    types[i].t_prec = (int16_t)(int32_t)cat_r_u32(&r);
    types[i].t_scale = (int16_t)(int32_t)cat_r_u32(&r);
    types[i].t_elem = (ty_id_t)cat_r_u32(&r);
  }
  w->cw_colnames = names;
  w->cw_coltypes = types;
  w->cw_ndeps = (int)cat_r_u32(&r);
  if (r.r_bad || w->cw_ndeps < 0 || w->cw_ndeps > 100000)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed view record in the catalog");
  cat_oid_t *deps = arena_zalloc(a, sizeof(cat_oid_t) * (size_t)(w->cw_ndeps + 1));
  for (int i = 0; i < w->cw_ndeps; i++)
    deps[i] = cat_r_u32(&r);
  w->cw_deps = deps;
  /* the references came later: older records end before them (none) */
  w->cw_nrefs = (int)cat_r_opt_u32(&r, 0);
  if (r.r_bad || w->cw_nrefs < 0 || w->cw_nrefs > 1000000)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed view record in the catalog");
  cat_view_ref_t *refs = arena_zalloc(a, sizeof(cat_view_ref_t) * (size_t)(w->cw_nrefs + 1));
  size_t qlen = w->cw_query ? strlen(w->cw_query) : 0;
  for (int i = 0; i < w->cw_nrefs; i++) {
    refs[i].vr_off = cat_r_u32(&r);
    refs[i].vr_len = cat_r_u32(&r);
    refs[i].vr_kind = (char)cat_r_u8(&r);
    refs[i].vr_oid = cat_r_u32(&r);
    refs[i].vr_col = (int)cat_r_u32(&r) - 1;
    refs[i].vr_alias = (int)cat_r_u32(&r);
    if ((size_t)refs[i].vr_off + refs[i].vr_len > qlen)
      r.r_bad = true;
  }
  w->cw_refs = refs;
  if (r.r_bad || !w->cw_name || !w->cw_query)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed view record in the catalog");
  *out = w;
  return CZ_OK;
}

static int view_put(cat_t *c, txn_t *tx, cat_oid_t oid, cat_oid_t schema, const cat_view_def_t *d,
                    bool replace, err_t *e)
{
  size_t cap = 64 + strlen(d->vd_name) + strlen(d->vd_query) + (size_t)d->vd_ndeps * 4 +
               (size_t)d->vd_nrefs * 21;
  for (int i = 0; i < d->vd_ncols; i++)
    cap += 32 + strlen(d->vd_colnames[i]);
  arena_t *a = arena_create(NULL, "cat_view");
  cat_wbuf_t w = {arena_alloc(a, cap), 0, cap, false};
  cat_w_u32(&w, schema);
  cat_w_u32(&w, d->vd_owner);
  cat_w_str(&w, d->vd_name);
  cat_w_u8(&w, (uint8_t)d->vd_kind);
  cat_w_u8(&w, (uint8_t)d->vd_check);
  cat_w_u8(&w, (uint8_t)((d->vd_populated ? 1 : 0) | (d->vd_updatable ? 2 : 0)));
  cat_w_str(&w, d->vd_query);
  cat_w_u32(&w, (uint32_t)d->vd_ncols);
  for (int i = 0; i < d->vd_ncols; i++) {
    cat_w_str(&w, d->vd_colnames[i]);
    cat_w_u32(&w, (uint32_t)d->vd_coltypes[i].t_id);
    cat_w_u32(&w, (uint32_t)d->vd_coltypes[i].t_len);
    cat_w_u32(&w, (uint32_t)(int32_t)d->vd_coltypes[i].t_prec);
    cat_w_u32(&w, (uint32_t)(int32_t)d->vd_coltypes[i].t_scale);
    cat_w_u32(&w, (uint32_t)d->vd_coltypes[i].t_elem);
  }
  cat_w_u32(&w, (uint32_t)d->vd_ndeps);
  for (int i = 0; i < d->vd_ndeps; i++)
    cat_w_u32(&w, d->vd_deps[i]);
  cat_w_u32(&w, (uint32_t)d->vd_nrefs);
  for (int i = 0; i < d->vd_nrefs; i++) {
    const cat_view_ref_t *f = &d->vd_refs[i];
    cat_w_u32(&w, f->vr_off);
    cat_w_u32(&w, f->vr_len);
    cat_w_u8(&w, (uint8_t)f->vr_kind);
    cat_w_u32(&w, f->vr_oid);
    cat_w_u32(&w, (uint32_t)(f->vr_col + 1));
    cat_w_u32(&w, (uint32_t)f->vr_alias);
  }
  uint8_t k[4];
  int rc = w.w_over ? err_set(e, SQLSTATE_INTERNAL, "view record overflow")
                    : cat_sys_put(c, tx, CAT_SYS_VIEWS, k, cat_key_oid(k, oid), &w, replace, e);
  arena_destroy(a);
  return rc;
}

static int view_name_check(const char *name, err_t *e)
{
  if (!name || !*name)
    return err_set(e, SQLSTATE_INVALID_NAME, "zero-length view name");
  if (strlen(name) > CAT_MAX_NAME)
    return err_set(e, SQLSTATE_NAME_TOO_LONG, "view name \"%s\" is too long (at most %d bytes)",
                   name, CAT_MAX_NAME);
  return CZ_OK;
}

int cat_create_view(cat_t *c, txn_t *tx, const cat_view_def_t *def, cat_oid_t *oid, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK || view_name_check(def->vd_name, e) != CZ_OK)
    return CZ_ERR;
  const char *sname = def->vd_schema ? def->vd_schema : "public";
  const cat_schema_t *sch = cat_find_schema(s, sname);
  if (!sch)
    return err_set(e, SQLSTATE_INVALID_SCHEMA, "schema \"%s\" does not exist", sname);
  cat_oid_t vid = def->vd_table;
  if (!vid) {
    if (cat_find_rel(s, sch->cs_oid, def->vd_name, NULL))
      return err_set(e, SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists", def->vd_name);
    if (cat_next_oid(c, tx, &vid, e) != CZ_OK)
      return CZ_ERR;
  }
  if (view_put(c, tx, vid, sch->cs_oid, def, false, e) != CZ_OK || cat_ddl_end(c, tx, e) != CZ_OK)
    return CZ_ERR;
  if (oid)
    *oid = vid;
  return CZ_OK;
}

int cat_replace_view(cat_t *c, txn_t *tx, cat_oid_t view, const cat_view_def_t *def, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK || view_name_check(def->vd_name, e) != CZ_OK)
    return CZ_ERR;
  const cat_view_t *w = cat_view_by_oid(s, view);
  if (!w)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "view with OID %u does not exist", (unsigned)view);
  if (strcmp(w->cw_name, def->vd_name) != 0 && cat_find_rel(s, w->cw_schema, def->vd_name, NULL))
    return err_set(e, SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists", def->vd_name);
  if (view_put(c, tx, view, w->cw_schema, def, true, e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

int cat_drop_view(cat_t *c, txn_t *tx, cat_oid_t view, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  if (!cat_view_by_oid(s, view))
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "view with OID %u does not exist", (unsigned)view);
  uint8_t k[8];
  for (int i = 0; i < s->cs_ngrants; i++)
    if (s->cs_grants[i].cg_table == view &&
        cat_sys_del(c, tx, CAT_SYS_GRANTS, k, cat_key_oid2(k, view, s->cs_grants[i].cg_grantee),
                    e) != CZ_OK)
      return CZ_ERR;
  if (cat_sys_del(c, tx, CAT_SYS_VIEWS, k, cat_key_oid(k, view), e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

/* ---- lookups ---------------------------------------------------------------- */

const cat_view_t *cat_view_by_oid(const cat_snapshot_t *s, cat_oid_t oid)
{
  int lo = 0, hi = s->cs_nviews - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    cat_oid_t o = s->cs_views[mid]->cw_oid;
    if (o == oid)
      return s->cs_views[mid];
    if (o < oid)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

const cat_view_t *cat_find_view(const cat_snapshot_t *s, const char *schema, const char *name)
{
  int kind;
  const void *o;
  if (schema) {
    const cat_schema_t *sch = cat_find_schema(s, schema);
    o = sch ? cat_find_rel(s, sch->cs_oid, name, &kind) : NULL;
  } else {
    o = cat_find_rel(s, CAT_OID_PUBLIC, name, &kind);
    if (!o)
      o = cat_find_rel(s, CAT_OID_PG_CATALOG, name, &kind);
  }
  if (!o)
    return NULL;
  if (kind == CAT_REL_VIEW)
    return o;
  if (kind == CAT_REL_TABLE)
    return cat_view_by_oid(s, ((const cat_table_t *)o)->ct_oid);  /* materialized */
  return NULL;
}

int cat_check_view_priv(const cat_snapshot_t *s, cat_oid_t role, const cat_view_t *w,
                        uint32_t privs, err_t *e)
{
  /* privileges are the table rules: owner, superuser, grants by OID */
  cat_table_t shim = {.ct_oid = w->cw_oid, .ct_owner = w->cw_owner, .ct_name = w->cw_name};
  if ((cat_table_privs(s, role, &shim) & privs) == privs)
    return CZ_OK;
  return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied for %s %s",
                 w->cw_kind == 'm' ? "materialized view" : "view", w->cw_name);
}

int cat_view_dependents(const cat_snapshot_t *s, cat_oid_t rel, const cat_view_t **out, int cap)
{
  int n = 0;
  for (int i = 0; i < s->cs_nviews; i++) {
    const cat_view_t *w = s->cs_views[i];
    for (int d = 0; d < w->cw_ndeps; d++)
      if (w->cw_deps[d] == rel && w->cw_oid != rel) {
        if (n < cap)
          out[n] = w;
        n++;
        break;
      }
  }
  return n;
}
