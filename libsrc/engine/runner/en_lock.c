/* en_lock — LOCK [TABLE] names [IN mode MODE] [NOWAIT], which pg_dump
 * sends for every table it dumps (ACCESS SHARE).
 *
 * Design notes: Cadenza has no table-level lock modes; what it has is the
 * catalog's DDL lock, which every schema change takes and holds until its
 * transaction ends (catalog.h). The modes that only keep a table's
 * definition stable against DROP / ALTER / TRUNCATE — ACCESS SHARE, ROW
 * SHARE, ROW EXCLUSIVE, SHARE UPDATE EXCLUSIVE — take that lock: stronger
 * than PostgreSQL's (it holds off all DDL, not only that table's, and
 * two such transactions queue behind each other) but never weaker. The
 * modes that must also hold off other sessions' row changes (SHARE and
 * up) cannot be honoured and are refused (0A000) rather than accepted
 * without their effect. NOWAIT is refused for the same reason: the wait
 * cannot be bounded here.
 */
#include <stdio.h>
#include <string.h>

#include "engine/runner/runner_int.h"

static const char *const en_lock_modes[] = {
  "access share mode", "row share mode", "row exclusive mode", "share update exclusive mode",
  "share mode", "share row exclusive mode", "exclusive mode", "access exclusive mode",
};
#define EN_LOCK_HONOURED 4 /* the first four only conflict with schema changes */

int en_lock(esession_t *s, const sql_stmt_t *ast, char *tag, size_t tagcap, err_t *e)
{
  snprintf(tag, tagcap, "LOCK TABLE");
  int mode = -1;
  for (int i = 0; i < (int)CZ_ARRAY_LEN(en_lock_modes); i++)
    if (strcmp(ast->st_lock_mode, en_lock_modes[i]) == 0)
      mode = i;
  if (mode < 0)
    return err_set(e, SQLSTATE_SYNTAX_ERROR, "syntax error at or near \"%s\"", ast->st_lock_mode);
  if (!es_in_block(s))
    return err_set(e, SQLSTATE_NO_ACTIVE_TX,
                   "LOCK TABLE can only be used in transaction blocks");
  const sql_list_t *names = ast->st_drop->dr_names;
  for (int i = 0; i < sql_list_len(names); i++) {
    const sql_name_t *nm = sql_list_at(names, i);
    const cat_table_t *t = cat_find_table(es_snapshot(s), en_name_schema(s, nm), nm->nm_name);
    if (!t)
      return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s%s%s\" does not exist",
                     nm->nm_schema ? nm->nm_schema : "", nm->nm_schema ? "." : "", nm->nm_name);
    /* PostgreSQL: SELECT for ACCESS SHARE, a write privilege for the rest */
    uint32_t privs = cat_table_privs(es_snapshot(s), es_role_oid(s), t);
    uint32_t need = mode == 0 ? CAT_PRIV_SELECT : CAT_PRIV_INSERT | CAT_PRIV_UPDATE | CAT_PRIV_DELETE;
    if (!(privs & need))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied for table %s",
                     t->ct_name);
  }
  if (mode >= EN_LOCK_HONOURED || ast->st_lock_nowait)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "LOCK TABLE … IN %s%s is not supported",
                   ast->st_lock_mode, ast->st_lock_nowait ? " NOWAIT" : "");
  /* a block's transaction begins at its first statement that needs one */
  bool implicit;
  if (es_tx_ensure(s, &implicit, e) != CZ_OK)
    return CZ_ERR;
  return cat_lock_ddl(es_engine(s)->en_cat, es_txn(s), e);
}
