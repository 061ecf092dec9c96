/* en_analyze — ANALYZE [table, …] and VACUUM ANALYZE: rebuilds the
 * statistics of the tables named (or of every table the role owns) from
 * a scan of their committed rows (tbl_analyze).
 *
 * Design notes: statistics are kept current as rows change
 * (catalog/README.md, "Statistics"), so ANALYZE is never needed for the
 * optimizer to see a table's size; it corrects the drift of the distinct
 * estimates after deletes and gives tables older than the statistics file
 * their first distinct estimates. As in PostgreSQL, only a table's owner
 * (or a superuser) analyzes it: a table named by another role is skipped
 * with a WARNING; the form without names skips the others silently. The
 * scan reads committed rows (no transaction): the session's own
 * uncommitted rows are counted when it commits. */
#include "engine/runner/runner_int.h"

static bool may_analyze(esession_t *s, const cat_table_t *t)
{
  return esession_is_superuser(s) || t->ct_owner == es_role_oid(s);
}

int en_analyze(esession_t *s, const sql_stmt_t *ast, err_t *e)
{
  es_refresh_snapshot(s);
  const cat_snapshot_t *snap = es_snapshot(s);
  const sql_list_t *names = ast->st_drop ? ast->st_drop->dr_names : NULL;
  int n = sql_list_len(names);
  if (n == 0) {
    for (int i = 0; i < snap->cs_ntables; i++) {
      const cat_table_t *t = snap->cs_tables[i];
      if (may_analyze(s, t) && tbl_analyze(NULL, t, es_cancel_flag(s), e) != CZ_OK)
        return CZ_ERR;
    }
    return CZ_OK;
  }
  /* every name is checked before any table is read */
  arena_t *a = arena_create(NULL, "analyze");
  const cat_table_t **ts = arena_alloc(a, sizeof(*ts) * (size_t)n);
  int rc = CZ_OK;
  for (int i = 0; i < n && rc == CZ_OK; i++) {
    const sql_name_t *nm = sql_list_at(names, i);
    rc = en_lookup_table(s, nm->nm_schema, nm->nm_name, &ts[i], e);
  }
  for (int i = 0; i < n && rc == CZ_OK; i++) {
    if (!may_analyze(s, ts[i]))
      es_notice(s, "WARNING", "42501", "permission denied to analyze \"%s\", skipping it",
                ts[i]->ct_name);
    else
      rc = tbl_analyze(NULL, ts[i], es_cancel_flag(s), e);
  }
  arena_destroy(a);
  return rc;
}
