/* db_config — the database configuration from cadenza.ini.
 *
 * Design notes: CheckpointInterval is in minutes, as in Virtuoso (default
 * 60; 0 turns the periodic checkpoint off). MaxVersionMem bounds the
 * snapshot version store in MB (default 1024; 0 = no bound).
 * LogStreamBytes (a size, K/M/G suffixes; default 64M; 0 = off) is the redo
 * a transaction holds before writing it to the log as it goes. Strings
 * point into ini; db_open copies what it keeps.
 */
#include <string.h>

#include "txn/txn_int.h"

#define DB_DEFAULT_WAL "cadenza.trx"
#define DB_DEFAULT_CHECKPOINT_MIN 60
#define DB_DEFAULT_VERSION_MB 1024
#define DB_DEFAULT_LOG_STREAM ((int64_t)64 << 20)
/* A streamed record passes the limit by at most one row: far below the
 * log's 1 GiB record limit. */
#define DB_MAX_LOG_STREAM ((int64_t)256 << 20)

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
  int64_t stream;
  if (ini_get_size(ini, "Parameters", "LogStreamBytes", DB_DEFAULT_LOG_STREAM, &stream, e) != CZ_OK)
    return CZ_ERR;
  if (stream < 0 || stream > DB_MAX_LOG_STREAM)
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] LogStreamBytes = %lld: must be 0 (stream nothing) or "
                   "a size of at most 256M", (long long)stream);
  cfg->dc_log_stream_bytes = (uint64_t)stream;
  cfg->dc_sync = true;
  return CZ_OK;
}
