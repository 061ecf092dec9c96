/* db_config — the database configuration from cadenza.ini.
 *
 * Design notes: CheckpointInterval is in minutes, as in Virtuoso (default
 * 60; 0 turns the periodic checkpoint off). MaxVersionMem bounds the
 * snapshot version store in MB (default 1024; 0 = no bound). Strings
 * point into ini; db_open copies what it keeps.
 */
#include <string.h>

#include "txn/txn_int.h"

#define DB_DEFAULT_WAL "cadenza.trx"
#define DB_DEFAULT_CHECKPOINT_MIN 60
#define DB_DEFAULT_VERSION_MB 1024

int db_config_from_ini(const ini_t *ini, db_config_t *cfg, err_t *e)
{
  memset(cfg, 0, sizeof *cfg);
  if (st_config_from_ini(ini, &cfg->dc_storage, e) != CZ_OK)
    return CZ_ERR;
  cfg->dc_storage.sc_create = true;
  cfg->dc_storage.sc_sync = true;
  if (bp_config_from_ini(ini, &cfg->dc_pool, e) != CZ_OK)
    return CZ_ERR;
  const char *wal = ini_get(ini, "Database", "TransactionFile");
  cfg->dc_wal_path = wal && *wal ? wal : DB_DEFAULT_WAL;
  int64_t minutes;
  if (ini_get_int(ini, "Parameters", "CheckpointInterval", DB_DEFAULT_CHECKPOINT_MIN, &minutes, e) != CZ_OK)
    return CZ_ERR;
  if (minutes < 0)
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] CheckpointInterval = %lld: must be 0 or more minutes",
                   (long long)minutes);
  cfg->dc_checkpoint_interval_s = minutes * 60;
  int64_t mb;
  if (ini_get_int(ini, "Parameters", "MaxVersionMem", DB_DEFAULT_VERSION_MB, &mb, e) != CZ_OK)
    return CZ_ERR;
  if (mb < 0 || mb > (1ll << 30))
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] MaxVersionMem = %lld: must be 0 (no limit) or "
                   "a size in MB", (long long)mb);
  cfg->dc_max_version_bytes = (uint64_t)mb << 20;
  cfg->dc_sync = true;
  return CZ_OK;
}
