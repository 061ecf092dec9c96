/* en_engine — opening and closing the database: configuration, recovery,
 * the catalog (bootstrapped with the superuser dba on first start) and the
 * role verifiers authentication reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "engine/runner/runner.h"
#include "engine/engine_int.h"
#include "exec/spill.h"
#include "rdf/rdf.h"

#define EN_SUPERUSER "dba"
#define EN_SAMPLE_PASSWORD "dba"

/* The folder beside the database file: [Database] DatabaseFile's (or the
 * first stripe's) folder, into buf. */
static void en_db_folder(const ini_t *ini, char *buf, size_t n)
{
  const char *db = ini_get(ini, "Striping", "Stripe1");
  if (!db)
    db = ini_get(ini, "Database", "DatabaseFile");
  const char *slash = db ? strrchr(db, '/') : NULL;
  if (!slash)
    snprintf(buf, n, ".");
  else if (slash == db)
    snprintf(buf, n, "/");
  else
    snprintf(buf, n, "%.*s", (int)(slash - db), db);
}

/* Spilling and the memory of all queries together: [Parameters]
 * TempDirectory, MaxTempSpace and MaxServerQueryMem. By default the
 * queries together may hold half of what the machine's memory leaves
 * beside the buffer pool (at least MaxQueryMem and 64 MB), so that many
 * sessions spill or fail with 53200 before the machine runs out. */
static int en_config_spill(const ini_t *ini, int64_t max_query_mem, err_t *e)
{
  char dir[4096];
  const char *td = ini_get(ini, "Parameters", "TempDirectory");
  if (td && *td)
    snprintf(dir, sizeof(dir), "%s", td);
  else {
    char base[4000];
    en_db_folder(ini, base, sizeof(base));
    snprintf(dir, sizeof(dir), "%s/cadenza-temp", base);
  }
  int64_t bufs, max_temp, server;
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  int64_t ram = pages > 0 && psize > 0 ? (int64_t)pages * psize : (int64_t)4 << 30;
  if (ini_get_int(ini, "Parameters", "NumberOfBuffers", 10000, &bufs, e) != CZ_OK)
    return CZ_ERR;
  int64_t left = ram - bufs * 8192;
  int64_t def = CZ_MAX(CZ_MAX(left / 2, max_query_mem), (int64_t)64 << 20);
  if (ini_get_size(ini, "Parameters", "MaxTempSpace", 0, &max_temp, e) != CZ_OK ||
      ini_get_size(ini, "Parameters", "MaxServerQueryMem", def, &server, e) != CZ_OK)
    return CZ_ERR;
  if (max_temp < 0 || server < 0)
    return err_set(e, SQLSTATE_CONFIG,
                   "[Parameters] MaxTempSpace and MaxServerQueryMem must not be negative");
  en_qmem_configure(server);
  return spill_configure(dir, max_temp, e);
}

static int en_config(engine_t *eng, const ini_t *ini, err_t *e)
{
  int64_t vs, mem, thr;
  if (ini_get_int(ini, "Parameters", "VectorSize", 1024, &vs, e) != CZ_OK ||
      ini_get_size(ini, "Parameters", "MaxQueryMem", (int64_t)1 << 30, &mem, e) != CZ_OK ||
      ini_get_int(ini, "Parameters", "ThreadsPerQuery", 1, &thr, e) != CZ_OK)
    return CZ_ERR;
  if (vs < 1 || vs > 1000000)
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] VectorSize must be between 1 and 1000000");
  eng->en_vector_size = (int)vs;
  eng->en_max_mem = mem;
  eng->en_threads = (int)(thr < 1 ? 1 : thr);
  /* [Parameters] ParallelMinRows: the driving table's rows from which a
   * block gets a parallel plan (sql_plan_par.c); tests set it low */
  int64_t pmin;
  if (ini_get_int(ini, "Parameters", "ParallelMinRows", 100000, &pmin, e) != CZ_OK)
    return CZ_ERR;
  if (pmin < 1)
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] ParallelMinRows must be at least 1");
  eng->en_par_min_rows = pmin;
  /* [Parameters] LockTimeout (ms): the default of every session's
   * lock_timeout, as postgresql.conf's; 0 = wait as long as it takes */
  int64_t lockt;
  if (ini_get_int(ini, "Parameters", "LockTimeout", 0, &lockt, e) != CZ_OK)
    return CZ_ERR;
  if (lockt < 0 || lockt > 2147483647)
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] LockTimeout must be between 0 and 2147483647");
  eng->en_lock_timeout_ms = lockt;
  /* [Parameters] DefaultLayout: the layout of tables created without
   * WITH (layout = …) */
  const char *layout = ini_get(ini, "Parameters", "DefaultLayout");
  if (!layout || strcasecmp(layout, "row") == 0)
    eng->en_layout = CAT_LAYOUT_ROW;
  else if (strcasecmp(layout, "column") == 0)
    eng->en_layout = CAT_LAYOUT_COLUMN;
  else
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] DefaultLayout must be row or column, not \"%s\"",
                   layout);
  /* [SPARQL] QuadLayout: rdf_quad's primary tree (PSOG), row or column;
   * read when the store is created with the database, ignored after */
  const char *ql = ini_get(ini, "SPARQL", "QuadLayout");
  if (!ql || strcasecmp(ql, "row") == 0)
    eng->en_quad_layout = RDF_LAYOUT_ROW;
  else if (strcasecmp(ql, "column") == 0)
    eng->en_quad_layout = RDF_LAYOUT_COLUMN;
  else
    return err_set(e, SQLSTATE_CONFIG, "[SPARQL] QuadLayout must be row or column, not \"%s\"", ql);
  /* [Parameters] MaxQueryThreads: worker threads all queries together may
   * use beside their sessions' own threads; by default one per CPU */
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int64_t maxq;
  if (ini_get_int(ini, "Parameters", "MaxQueryThreads", cpus > 0 ? cpus : 1, &maxq, e) != CZ_OK)
    return CZ_ERR;
  if (maxq < 0 || maxq > 4096)
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] MaxQueryThreads must be between 0 and 4096");
  if (!(eng->en_qworkers = qw_pool_create((int)maxq, "cz-query", e)))
    return CZ_ERR;
  if (en_config_spill(ini, mem, e) != CZ_OK)
    return CZ_ERR;
  /* [Parameters] TimeZone as PostgreSQL's timezone in postgresql.conf;
   * unset, the system's zone (initdb writes that one too) */
  const char *tz = ini_get(ini, "Parameters", "TimeZone");
  eng->en_tz = tz ? ty_tz_find(tz) : ty_tz_system();
  if (tz && !eng->en_tz)
    return err_set(e, SQLSTATE_CONFIG, "[Parameters] TimeZone: time zone \"%s\" not recognized", tz);
  /* Kept as written: the folders are resolved when a COPY runs, so one
   * created after the start counts, relative to the working folder then. */
  const char *dirs = ini_get(ini, "Parameters", "DirsAllowed");
  if (dirs && !(eng->en_dirs_allowed = strdup(dirs)))
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  /* [HTTPServer] DigestRealm: read here, not by the HTTP server, because
   * the hash Digest needs is made when a password is set (en_ddl.c) */
  const char *realm = ini_get(ini, "HTTPServer", "DigestRealm");
  if (realm && *realm) {
    for (const char *p = realm; *p; p++)
      if ((unsigned char)*p < 0x20 || *p == '"' || *p == '\\' || *p == 0x7f)
        return err_set(e, SQLSTATE_CONFIG,
                       "[HTTPServer] DigestRealm: no quotes, backslashes or control characters");
    if (strlen(realm) > 200)
      return err_set(e, SQLSTATE_CONFIG, "[HTTPServer] DigestRealm: at most 200 bytes");
    if (!(eng->en_digest_realm = strdup(realm)))
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  }
  return CZ_OK;
}

/* The optimizer's statistics live in "<database file>.stats" (the first
 * stripe's name when striped), saved at every checkpoint
 * (catalog/README.md, "Statistics"); a log replayed at this open makes
 * the saved row counts stale. */
static int en_stats_attach(engine_t *eng, const ini_t *ini, err_t *e)
{
  const char *db = ini_get(ini, "Striping", "Stripe1");
  if (!db)
    db = ini_get(ini, "Database", "DatabaseFile");
  if (!db || !db[0])
    db = "cadenza.db";  /* storage's default (st_config.c) */
  char path[4200];
  snprintf(path, sizeof(path), "%s.stats", db);
  db_stats_t ds;
  db_get_stats(eng->en_db, &ds);
  return cat_stats_attach(eng->en_cat, path, ds.ds_replayed > 0, e);
}

/* The RDF store's tables (rdf/README.md "Tables"), owned by the superuser:
 * made with a new database, and at the first start of an older one. */
static int en_rdf_store(engine_t *eng, err_t *e)
{
  cat_snapshot_t *s = cat_snapshot(eng->en_cat);
  const cat_role_t *dba = cat_find_role(s, EN_SUPERUSER);
  cat_oid_t owner = dba ? dba->cr_oid : 0;
  cat_snapshot_release(s);
  if (!owner)
    return err_set(e, SQLSTATE_INTERNAL, "the superuser %s is missing", EN_SUPERUSER);
  return rdf_schema_ensure(eng->en_cat, owner, (rdf_layout_t)eng->en_quad_layout, e);
}

int engine_open(const ini_t *ini, engine_t **out, err_t *e)
{
  engine_t *eng = calloc(1, sizeof(*eng));
  if (!eng)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  pthread_mutex_init(&eng->en_mu, NULL);
  if (en_pgcat_init(e) != CZ_OK)  /* pg_catalog's functions, before any statement */
    goto fail;
  db_config_t cfg;
  if (en_config(eng, ini, e) != CZ_OK || db_config_from_ini(ini, &cfg, e) != CZ_OK ||
      db_open(&cfg, &eng->en_db, e) != CZ_OK)
    goto fail;
  int rc = cat_open(eng->en_db, &eng->en_cat, e);
  if (rc == 1) {
    const char *pw = ini_get(ini, "Parameters", "DBAPassword");
    if (!pw)
      pw = EN_SAMPLE_PASSWORD;
    char ver[SCRAM_VERIFIER_MAX];
    if (scram_make_verifier(pw, SCRAM_DEFAULT_ITERATIONS, ver, e) != CZ_OK ||
        cat_bootstrap(eng->en_db, EN_SUPERUSER, ver, e) != CZ_OK)
      goto fail_db;
    log_info("created the catalog with superuser %s", EN_SUPERUSER);
    rc = cat_open(eng->en_db, &eng->en_cat, e);
  }
  if (rc != CZ_OK) {
    if (rc == 1)
      err_set(e, SQLSTATE_INTERNAL, "the catalog is missing after bootstrap");
    goto fail_db;
  }
  if (en_stats_attach(eng, ini, e) != CZ_OK)
    goto fail_db;
  if (en_rdf_store(eng, e) != CZ_OK)
    goto fail_db;
  /* temporary views of sessions a crash ended (catalog/README.md) */
  if (cat_drop_temp_schemas(eng->en_cat, e) != CZ_OK)
    goto fail_db;
  {
    const char *pw = ini_get(ini, "Parameters", "DBAPassword");
    if (!pw || strcmp(pw, EN_SAMPLE_PASSWORD) == 0)
      log_warn("[Parameters] DBAPassword is the sample's default: change dba's password");
  }
  en_file_warn_config(eng, ini);
  *out = eng;
  return CZ_OK;
fail_db:
  db_close(eng->en_db, false, NULL);
fail:
  qw_pool_destroy(eng->en_qworkers);
  pthread_mutex_destroy(&eng->en_mu);
  free(eng->en_dirs_allowed);
  free(eng->en_digest_realm);
  free(eng);
  return CZ_ERR;
}

int engine_close(engine_t *eng, err_t *e)
{
  if (!eng)
    return CZ_OK;
  cat_close(eng->en_cat);
  int rc = db_close(eng->en_db, true, e);
  qw_pool_destroy(eng->en_qworkers);
  pthread_mutex_destroy(&eng->en_mu);
  free(eng->en_dirs_allowed);
  free(eng->en_digest_realm);
  free(eng);
  return rc;
}

int engine_checkpoint(engine_t *eng, err_t *e)
{
  return db_checkpoint(eng->en_db, e);
}

void engine_stats(engine_t *eng, estats_t *out)
{
  bp_stats_t bs;
  bp_get_stats(db_pool(eng->en_db), &bs);
  *out = (estats_t){.es_buf_hits = bs.bs_hits, .es_buf_misses = bs.bs_misses,
                    .es_ra_requests = bs.bs_ra_requests, .es_ra_pages_read = bs.bs_ra_pages_read,
                    .es_ra_pages_used = bs.bs_ra_pages_used,
                    .es_pages_written = bs.bs_pages_written, .es_evictions = bs.bs_evictions,
                    .es_dirty_evictions = bs.bs_dirty_evictions, .es_buffers = bs.bs_n_buffers,
                    .es_buffers_used = bs.bs_n_used, .es_buffers_dirty = bs.bs_n_dirty};
  pthread_mutex_lock(&eng->en_mu);
  out->es_sessions = eng->en_nsessions;
  pthread_mutex_unlock(&eng->en_mu);
}

const char *engine_digest_realm(const engine_t *eng)
{
  return eng->en_digest_realm;
}

static int hexval(char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int engine_role_digest(engine_t *eng, const char *role, uint8_t ha1[16])
{
  if (!eng->en_digest_realm)
    return 1;
  cat_snapshot_t *s = cat_snapshot(eng->en_cat);
  const cat_role_t *r = cat_find_role(s, role);
  int rc = 1;
  /* "<32 hex>:<realm>": a hash made under another realm does not count */
  if (r && r->cr_login && r->cr_digest && strlen(r->cr_digest) > 33 && r->cr_digest[32] == ':' &&
      strcmp(r->cr_digest + 33, eng->en_digest_realm) == 0) {
    rc = CZ_OK;
    for (int i = 0; i < 16 && rc == CZ_OK; i++) {
      int hi = hexval(r->cr_digest[2 * i]), lo = hexval(r->cr_digest[2 * i + 1]);
      if (hi < 0 || lo < 0)
        rc = 1;
      else
        ha1[i] = (uint8_t)(hi << 4 | lo);
    }
  }
  cat_snapshot_release(s);
  return rc;
}

int engine_role_verifier(engine_t *eng, const char *role, arena_t *a, char **verifier, err_t *e)
{
  (void)e;
  cat_snapshot_t *s = cat_snapshot(eng->en_cat);
  const cat_role_t *r = cat_find_role(s, role);
  int rc = 1;
  if (r && r->cr_login && r->cr_verifier) {
    *verifier = arena_strdup(a, r->cr_verifier);
    rc = CZ_OK;
  }
  cat_snapshot_release(s);
  return rc;
}
