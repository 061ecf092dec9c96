/* en_role_setting — ALTER ROLE … [IN DATABASE …] SET | RESET and ALTER
 * DATABASE … SET | RESET: the checks PostgreSQL makes before it stores a
 * setting (the role and database exist, the parameter is known, the value
 * is one SET would take, the privileges), the catalog write, and the
 * settings applied when a session starts.
 *
 * Design notes: a value is checked by setting it in this session and
 * putting the old value back, so ALTER … SET accepts exactly what SET
 * does. The stored text is the one SET keeps ("search_path" items quoted
 * as SHOW shows them), under the name's display case ("TimeZone"), as
 * pg_db_role_setting.setconfig holds it (SET … FROM CURRENT: the session's
 * value as SHOW shows it). Cadenza has one database: a
 * database name other than the session's is 3D000. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/session/session_int.h"

/* Parameters no session can change (SET refuses them; 55P02). */
static bool rs_fixed(const char *name)
{
  return strcasecmp(name, "server_version") == 0 || strcasecmp(name, "server_encoding") == 0 ||
         strcasecmp(name, "is_superuser") == 0 || strcasecmp(name, "integer_datetimes") == 0 ||
         strcasecmp(name, "session_authorization") == 0;
}

/* value must be one SET name = value takes: tried in this session, then
 * the session's own value put back. */
static int rs_check_value(esession_t *s, const char *name, const char *value, err_t *e)
{
  if (strcasecmp(name, "transaction_isolation") == 0)
    return CZ_OK;  /* per transaction: checked when a session applies it */
  const char *cur = en_guc_get(s, name);
  char *old = cur ? arena_strdup(s->se_arena, cur) : NULL;
  if (en_guc_set(s, name, value, false, e) != CZ_OK)
    return CZ_ERR;
  if (old)
    en_guc_set(s, name, old, false, NULL);
  return CZ_OK;
}

int es_alter_setting(esession_t *s, const sql_alter_setting_t *sa, err_t *e)
{
  const cat_snapshot_t *snap = s->se_snap;
  const sql_set_t *sv = sa->sa_set;
  cat_oid_t role = 0, db = 0;
  if (sa->sa_role_kind == 'n') {
    const cat_role_t *r = cat_find_role(snap, sa->sa_role);
    if (!r)
      return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role \"%s\" does not exist", sa->sa_role);
    role = r->cr_oid;
  } else if (sa->sa_role_kind == 'c') {
    role = s->se_role_oid;
  }
  if (sa->sa_database) {
    if (strcmp(sa->sa_database, s->se_database) != 0)
      return err_set(e, SQLSTATE_INVALID_CATALOG_NAME, "database \"%s\" does not exist",
                     sa->sa_database);
    db = CAT_OID_DATABASE;
  }
  /* the privileges, as PostgreSQL 15 checks them */
  if (sa->sa_role_kind == 0) {
    if (!s->se_superuser)
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of database %s",
                     sa->sa_database);
  } else if (sa->sa_role_kind == 'a') {
    if (!s->se_superuser)
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE,
                     "must be superuser to alter settings globally");
  } else {
    const cat_role_t *target = cat_role_by_oid(snap, role);
    const cat_role_t *me = cat_role_by_oid(snap, s->se_role_oid);
    if (target && target->cr_superuser) {
      if (!s->se_superuser)
        return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be superuser to alter superusers");
    } else if (!s->se_superuser && !(me && me->cr_createrole) && role != s->se_role_oid) {
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied");
    }
  }
  const char *name = NULL, *value = NULL;
  bool all = sv->sv_default && strcmp(sv->sv_name, "all") == 0;
  if (!all) {
    if (!en_guc_get(s, sv->sv_name) && !strchr(sv->sv_name, '.'))
      return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "unrecognized configuration parameter \"%s\"",
                     sv->sv_name);
    if (rs_fixed(sv->sv_name))
      return err_set(e, SQLSTATE_CANT_CHANGE_RUNTIME_PARAM, "parameter \"%s\" cannot be changed",
                     sv->sv_name);
    name = en_guc_display(sv->sv_name);
    if (sv->sv_from_current) {
      value = arena_strdup(txn_arena(s->se_tx), en_guc_get(s, sv->sv_name));
    } else if (!sv->sv_default) {
      value = en_set_value_text(txn_arena(s->se_tx), sv);
      if (strncmp(value, "interval\x01", 9) == 0)
        return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                       "SET TIME ZONE INTERVAL is not supported in ALTER ROLE / DATABASE");
      if (rs_check_value(s, sv->sv_name, value, e) != CZ_OK)
        return CZ_ERR;
    }
  }
  return cat_alter_setting(s->se_eng->en_cat, s->se_tx, db, role, name, value, e);
}

/* Applies one pg_db_role_setting row; a value no longer accepted is a
 * WARNING, as PostgreSQL's at connection start. */
static void rs_apply(esession_t *s, const cat_snapshot_t *snap, cat_oid_t db, cat_oid_t role)
{
  const cat_setting_t *st = cat_setting(snap, db, role);
  for (int i = 0; st && i < st->st_n; i++) {
    const char *item = st->st_items[i], *eq = strchr(item, '=');
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(eq - item), item);
    for (char *p = name; *p; p++)
      if (*p >= 'A' && *p <= 'Z')
        *p = (char)(*p - 'A' + 'a');
    err_t e;
    err_clear(&e);
    if (en_guc_set(s, name, eq + 1, false, &e) != CZ_OK)
      es_notice(s, "WARNING", e.er_sqlstate, "%s", e.er_msg);
  }
}

void en_apply_role_settings(esession_t *s)
{
  const cat_snapshot_t *snap = s->se_snap;
  rs_apply(s, snap, 0, 0);
  rs_apply(s, snap, CAT_OID_DATABASE, 0);
  rs_apply(s, snap, 0, s->se_role_oid);
  rs_apply(s, snap, CAT_OID_DATABASE, s->se_role_oid);
}
