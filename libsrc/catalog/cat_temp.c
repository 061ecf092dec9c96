/* cat_temp — the schemas of temporary views: pg_temp_<n>, one per session
 * that made one, dropped with everything in it when the session ends and,
 * after a crash, when the catalog is opened again.
 *
 * Design notes (catalog/README.md, "Temporary views"): a temporary view is
 * an ordinary sys.views record in its session's pg_temp_<n> schema, so it
 * is transactional, shows in pg_class / pg_views and takes part in the
 * dependency rules like any view; only its lifetime differs. The engine
 * names the schema and drops it at session end (cat_drop_temp_schema);
 * cat_drop_temp_schemas clears what a crash left. Views are dropped those
 * nothing reads first, so none is dropped under a reader. */
#include <string.h>

#include "catalog/cat_int.h"

bool cat_schema_is_temp(const char *name)
{
  return name && strncmp(name, "pg_temp_", 8) == 0 && name[8] != '\0';
}

/* A view in the schema (or reading one that is) that no view reads. */
static const cat_view_t *droppable(const cat_snapshot_t *s, cat_oid_t schema)
{
  for (int i = 0; i < s->cs_nviews; i++) {
    const cat_view_t *w = s->cs_views[i];
    bool in = w->cw_schema == schema;
    for (int d = 0; d < w->cw_ndeps && !in; d++) {
      const cat_view_t *on = cat_view_by_oid(s, w->cw_deps[d]);
      in = on && on->cw_schema == schema;
    }
    const cat_view_t *dep[1];
    if (in && cat_view_dependents(s, w->cw_oid, dep, 1) == 0)
      return w;
  }
  return NULL;
}

int cat_drop_temp_schema(cat_t *c, txn_t *tx, cat_oid_t schema, err_t *e)
{
  for (int guard = 0; guard < 100000; guard++) {
    cat_snapshot_t *s = cat_snapshot_tx(c, tx);
    const cat_view_t *w = droppable(s, schema);
    cat_oid_t oid = w ? w->cw_oid : 0;
    bool mat = w && w->cw_kind == 'm';
    cat_snapshot_release(s);
    if (!oid)
      break;
    if (cat_drop_view(c, tx, oid, e) != CZ_OK ||
        (mat && cat_drop_table(c, tx, oid, e) != CZ_OK))
      return CZ_ERR;
  }
  return cat_drop_schema(c, tx, schema, e);
}

int cat_drop_temp_schemas(cat_t *c, err_t *e)
{
  cat_snapshot_t *s = cat_snapshot(c);
  int n = 0;
  cat_oid_t temp[1024];
  for (int i = 0; i < s->cs_nschemas && n < (int)CZ_ARRAY_LEN(temp); i++)
    if (cat_schema_is_temp(s->cs_schemas[i].cs_name))
      temp[n++] = s->cs_schemas[i].cs_oid;
  cat_snapshot_release(s);
  if (n == 0)
    return CZ_OK;
  txn_t *tx = txn_begin(c->c_db, 0, e);
  if (!tx)
    return CZ_ERR;
  for (int i = 0; i < n; i++)
    if (cat_drop_temp_schema(c, tx, temp[i], e) != CZ_OK) {
      txn_rollback(tx, NULL);
      return CZ_ERR;
    }
  return txn_commit(tx, e);
}
