/* st_config.c — the storage part of the configuration file: [Database]
 * DatabaseFile and [Striping] Stripe1..Stripe16.
 *
 * Design notes: stripes, when given, replace DatabaseFile (sc_path is then
 * Stripe1, which holds the header). They must be numbered from 1 without
 * gaps, since the stripe number decides which extents a file holds. The
 * whole st_config_t is filled: sc_create and sc_sync default to true (a
 * server creates its database on first start and syncs at checkpoints).
 */
#include <stdio.h>
#include <string.h>

#include "storage/storage_int.h"

int st_config_from_ini(const ini_t *ini, st_config_t *cfg, err_t *e)
{
  const char *db = ini_get(ini, "Database", "DatabaseFile");
  char key[16];
  int n = 0;

  memset(cfg, 0, sizeof *cfg);
  cfg->sc_create = true;
  cfg->sc_sync = true;
  cfg->sc_path = db && db[0] ? db : "cadenza.db";
  for (int i = 1; i <= ST_MAX_STRIPES + 1; i++) {
    const char *v;

    snprintf(key, sizeof key, "Stripe%d", i);
    v = ini_get(ini, "Striping", key);
    if (!v || !v[0])
      continue;
    if (i > ST_MAX_STRIPES)
      return err_set(e, SQLSTATE_CONFIG, "[Striping] %s: at most %d stripes", key,
                     ST_MAX_STRIPES);
    if (i != n + 1)
      return err_set(e, SQLSTATE_CONFIG, "[Striping] %s given but Stripe%d missing", key, n + 1);
    cfg->sc_stripes[n++] = v;
  }
  if (n > 0) {
    cfg->sc_n_stripes = n;
    cfg->sc_path = cfg->sc_stripes[0];
  }
  return CZ_OK;
}
