/* cat_setting — ALTER ROLE … SET, ALTER ROLE … IN DATABASE … SET and
 * ALTER DATABASE … SET: the run-time parameters sessions start with,
 * kept in sys.settings (PostgreSQL's pg_db_role_setting), transactional
 * like all DDL.
 *
 * Design notes: key two big-endian u32, (database, role), 0 standing for
 * "every database" / "every role" as in pg_db_role_setting; value u32 n
 * and n strings "name=value", the text PostgreSQL keeps in setconfig (the
 * order first set is kept: a new value replaces its item in place). A
 * snapshot keeps the rows in key order, without those of dropped roles
 * (OIDs are not reused, so DROP ROLE needs no step of its own). The
 * session applies them at its start (engine/session/en_session.c). */
#include <string.h>
#include <strings.h>

#include "catalog/cat_int.h"

int cat_setting_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                       cat_setting_t *out, err_t *e)
{
  cat_rbuf_t r = {v, vl, 0, false};
  if (kl != 8)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed setting record in the catalog");
  out->st_database = cat_key_get(k, 0);
  out->st_role = cat_key_get(k, 1);
  uint32_t n = cat_r_u32(&r);
  if (r.r_bad || n > vl / 4)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed setting record in the catalog");
  const char **items = arena_alloc(a, (n ? n : 1) * sizeof *items);
  for (uint32_t i = 0; i < n; i++) {
    items[i] = cat_r_str(&r, a);
    if (r.r_bad || !items[i] || !strchr(items[i], '='))
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed setting record in the catalog");
  }
  out->st_n = (int)n;
  out->st_items = items;
  return CZ_OK;
}

void cat_setting_link(cat_snapshot_t *s, cat_setting_t *sts, int n)
{
  int k = 0;
  for (int i = 0; i < n; i++)
    if (sts[i].st_role == 0 || cat_role_by_oid(s, sts[i].st_role))
      sts[k++] = sts[i];
  s->cs_nsettings = k;
  s->cs_settings = sts;
}

const cat_setting_t *cat_setting(const cat_snapshot_t *s, cat_oid_t database, cat_oid_t role)
{
  int lo = 0, hi = s->cs_nsettings - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    const cat_setting_t *m = &s->cs_settings[mid];
    int c = m->st_database != database ? (m->st_database < database ? -1 : 1)
            : m->st_role != role       ? (m->st_role < role ? -1 : 1)
                                       : 0;
    if (c == 0)
      return m;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

/* Whether item "n=v" sets the parameter name (names are case-insensitive). */
static bool st_item_names(const char *item, const char *name)
{
  size_t l = strlen(name);
  return strncasecmp(item, name, l) == 0 && item[l] == '=';
}

int cat_alter_setting(cat_t *c, txn_t *tx, cat_oid_t database, cat_oid_t role, const char *name,
                      const char *value, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  if (!c->c_sys[CAT_SYS_SETTINGS])
    return err_set(e, SQLSTATE_INTERNAL, "the catalog has no settings table");
  const cat_setting_t *old = cat_setting(s, database, role);
  int nold = old ? old->st_n : 0;
  arena_t *a = txn_arena(tx);
  const char **items = arena_alloc(a, (size_t)(nold + 1) * sizeof *items);
  int n = 0;
  bool placed = false;
  const char *item = name && value ? arena_sprintf(a, "%s=%s", name, value) : NULL;
  for (int i = 0; i < nold && name; i++) {
    if (!st_item_names(old->st_items[i], name))
      items[n++] = old->st_items[i];
    else if (item && !placed) {
      items[n++] = item;
      placed = true;
    }
  }
  if (item && !placed)
    items[n++] = item;
  uint8_t k[8];
  size_t kl = cat_key_oid2(k, database, role);
  int rc;
  if (n == 0) {
    rc = old ? cat_sys_del(c, tx, CAT_SYS_SETTINGS, k, kl, e) : CZ_OK;
  } else {
    size_t cap = 8;
    for (int i = 0; i < n; i++)
      cap += strlen(items[i]) + 8;
    cat_wbuf_t w = {arena_alloc(a, cap), 0, cap, false};
    cat_w_u32(&w, (uint32_t)n);
    for (int i = 0; i < n; i++)
      cat_w_str(&w, items[i]);
    rc = cat_sys_put(c, tx, CAT_SYS_SETTINGS, k, kl, &w, true, e);
  }
  if (rc != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}
