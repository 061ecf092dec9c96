/* bt_bench — the storage engine benchmark of the foundation issue: B-tree
 * over the buffer pool against SQLite (WAL mode) on the same 16-byte keys,
 * same machine, same run. Prints figures; asserts nothing.
 *
 * Phases (N keys, default 10 M; key i = big-endian i followed by 8 bytes of
 * hash64_int(i), value = 8 bytes):
 *   1. sorted bulk insert in batches of 10,000 (bt_insert_batch / one SQLite
 *      transaction per batch with a prepared INSERT);
 *   2. random point lookups: one by one (bt_lookup, SQLite prepared SELECT)
 *      and vectored (bt_lookup_batch over batches of 10,000, the batch's
 *      radix sort included in its time); three runs each, medians;
 *   3. full scan with a cursor (and SQLite stepping SELECT k, v);
 *   4. a cold full scan (OS cache dropped) with the pool a quarter of the
 *      tree's size, extent read-ahead on and off, three runs each: time,
 *      read requests and pages read, medians.
 * Phases 1-3 run with a pool large enough for the whole tree, and SQLite
 * with a page cache of the same size, so both measure their CPU path.
 *
 * Usage: bt_bench [-n rows] [-d dir] [-l lookups] [-s 0|1 (run SQLite)]
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btree/btree.h"
#include "buffer/buffer.h"
#include "storage/storage.h"
#include "util/util.h"

#define KEY_LEN 16
#define VAL_LEN 8
#define BATCH 10000

typedef struct bench_s {
  int64_t bn_rows;
  int64_t bn_lookups;
  const char *bn_dir;
  bool bn_sqlite;
} bench_t;

static void die(const char *what, const err_t *e)
{
  fprintf(stderr, "bt_bench: %s: %s %s\n", what, e ? e->er_sqlstate : "", e ? e->er_msg : "");
  exit(1);
}

static void make_key(uint64_t i, uint8_t *k)
{
  uint64_t h = hash64_int(i);
  for (int b = 0; b < 8; b++) {
    k[b] = (uint8_t)(i >> (56 - 8 * b));
    k[8 + b] = (uint8_t)(h >> (56 - 8 * b));
  }
}

static double secs_since(uint64_t t0) { return (double)(time_now_ns() - t0) / 1e9; }

/* Random key indexes for the lookup phases, the same for both systems. */
static uint64_t *random_indexes(int64_t n, int64_t range)
{
  uint64_t *ix = malloc(sizeof(uint64_t) * (size_t)n);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int64_t i = 0; i < n; i++) {
    x = hash64_int(x + (uint64_t)i);
    ix[i] = x % (uint64_t)range;
  }
  return ix;
}

/* LSD radix sort of key indexes, 8 bits a pass, as many passes as the
 * largest index needs: what a vectored executor does to order a batch of
 * integer keys before a lookup (qsort's comparison calls would cost more
 * than the lookups they prepare). */
static void radix_sort(uint64_t *a, int n, uint64_t *tmp)
{
  uint64_t max = 0;
  for (int i = 0; i < n; i++)
    max = CZ_MAX(max, a[i]);
  for (int shift = 0; shift < 64 && (max >> shift) != 0; shift += 8) {
    int count[257] = {0};
    for (int i = 0; i < n; i++)
      count[((a[i] >> shift) & 0xff) + 1]++;
    for (int d = 0; d < 256; d++)
      count[d + 1] += count[d];
    for (int i = 0; i < n; i++)
      tmp[count[(a[i] >> shift) & 0xff]++] = a[i];
    memcpy(a, tmp, sizeof(uint64_t) * (size_t)n);
  }
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define REPS 3
static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return v[n / 2];
}

/* ---- Cadenza ----------------------------------------------------------- */

typedef struct cz_db_s {
  storage_t *cd_st;
  bpool_t *cd_bp;
  bt_tree_t *cd_tree;
} cz_db_t;

static void cz_open(cz_db_t *d, const char *path, int n_buffers, bool read_ahead, bool create)
{
  err_t e;
  err_clear(&e);
  st_config_t sc;
  memset(&sc, 0, sizeof sc);
  sc.sc_path = path;
  sc.sc_create = create;
  sc.sc_sync = true;
  if (st_open(&sc, &d->cd_st, &e) != CZ_OK)
    die("st_open", &e);
  bp_config_t bc;
  bp_config_default(&bc);
  bc.bc_n_buffers = n_buffers;
  bc.bc_max_dirty = n_buffers * 3 / 4;
  bc.bc_read_ahead = read_ahead;
  if (bp_create(d->cd_st, &bc, &d->cd_bp, &e) != CZ_OK)
    die("bp_create", &e);
  pg_no_t root = PG_NONE;
  size_t len = 0;
  const void *ur = st_user_root(d->cd_st, &len);
  if (len == sizeof root) {
    memcpy(&root, ur, sizeof root);
  } else if (bt_create(d->cd_bp, BT_UNIQUE, &root, &e) != CZ_OK) {
    die("bt_create", &e);
  }
  if (bt_open(d->cd_bp, root, &d->cd_tree, &e) != CZ_OK)
    die("bt_open", &e);
}

static void cz_close(cz_db_t *d)
{
  err_t e;
  err_clear(&e);
  pg_no_t root = bt_root(d->cd_tree);
  bt_close(d->cd_tree);
  if (bp_flush_all(d->cd_bp, &e) != CZ_OK || st_checkpoint(d->cd_st, &root, sizeof root, &e) != CZ_OK)
    die("checkpoint", &e);
  bp_destroy(d->cd_bp);
  st_close(d->cd_st);
}

static double cz_insert(cz_db_t *d, int64_t rows)
{
  static uint8_t keys[BATCH][KEY_LEN], vals[BATCH][VAL_LEN];
  static bt_row_t batch[BATCH];
  err_t e;
  err_clear(&e);
  uint64_t t0 = time_now_ns();
  for (int64_t base = 0; base < rows; base += BATCH) {
    int n = (int)CZ_MIN(BATCH, rows - base);
    for (int j = 0; j < n; j++) {
      uint64_t i = (uint64_t)(base + j);
      make_key(i, keys[j]);
      memcpy(vals[j], &i, VAL_LEN);
      batch[j] = (bt_row_t){ keys[j], KEY_LEN, vals[j], VAL_LEN };
    }
    if (bt_insert_batch(d->cd_tree, batch, n, NULL, &e) != CZ_OK)
      die("bt_insert_batch", &e);
  }
  return (double)rows / secs_since(t0);
}

static double cz_lookup_single(cz_db_t *d, const uint64_t *ix, int64_t n)
{
  err_t e;
  err_clear(&e);
  uint8_t k[KEY_LEN], v[VAL_LEN];
  size_t vl;
  int64_t found = 0;
  uint64_t t0 = time_now_ns();
  for (int64_t i = 0; i < n; i++) {
    make_key(ix[i], k);
    int rc = bt_lookup(d->cd_tree, k, KEY_LEN, v, sizeof v, &vl, &e);
    if (rc == CZ_ERR)
      die("bt_lookup", &e);
    found += rc == CZ_OK;
  }
  double rate = (double)n / secs_since(t0);
  if (found != n)
    fprintf(stderr, "bt_bench: one-by-one lookup found %" PRId64 " of %" PRId64 "\n", found, n);
  return rate;
}

static void count_found(void *ctx, int key_index, bool found, const void *val, size_t val_len)
{
  (void)key_index; (void)val; (void)val_len;
  *(int64_t *)ctx += found;
}

static double cz_lookup_vectored(cz_db_t *d, const uint64_t *ix, int64_t n)
{
  static uint8_t keys[BATCH][KEY_LEN];
  static bt_key_t kv[BATCH];
  static uint64_t sorted[BATCH], tmp[BATCH];
  err_t e;
  err_clear(&e);
  int64_t found = 0;
  uint64_t t0 = time_now_ns();
  for (int64_t base = 0; base < n; base += BATCH) {
    int m = (int)CZ_MIN(BATCH, n - base);
    /* Sorting the batch is part of the vectored lookup's cost. */
    memcpy(sorted, ix + base, sizeof(uint64_t) * (size_t)m);
    radix_sort(sorted, m, tmp);
    for (int j = 0; j < m; j++) {
      make_key(sorted[j], keys[j]);
      kv[j] = (bt_key_t){ keys[j], KEY_LEN };
    }
    if (bt_lookup_batch(d->cd_tree, kv, m, count_found, &found, &e) != CZ_OK)
      die("bt_lookup_batch", &e);
  }
  double rate = (double)n / secs_since(t0);
  if (found != n)
    fprintf(stderr, "bt_bench: vectored lookup found %" PRId64 " of %" PRId64 "\n", found, n);
  return rate;
}

static double cz_scan(cz_db_t *d, int64_t expect, double *seconds)
{
  err_t e;
  err_clear(&e);
  bt_cursor_t *c;
  if (bt_cursor_open(d->cd_tree, &c, &e) != CZ_OK || bt_seek(c, NULL, 0, BT_FORWARD, &e) != CZ_OK)
    die("bt_seek", &e);
  const void *k, *v;
  size_t kl, vl;
  int64_t rows = 0;
  uint64_t sum = 0, t0 = time_now_ns();
  int rc;
  while ((rc = bt_next(c, &k, &kl, &v, &vl, &e)) == CZ_OK) {
    rows++;
    sum += ((const uint8_t *)v)[0];
  }
  if (rc == CZ_ERR)
    die("bt_next", &e);
  bt_cursor_close(c);
  *seconds = secs_since(t0);
  if (rows != expect)
    fprintf(stderr, "bt_bench: scan saw %" PRId64 " rows of %" PRId64 " (checksum %" PRIu64 ")\n", rows, expect, sum);
  return (double)rows / *seconds;
}

/* ---- SQLite ------------------------------------------------------------ */

static void sq_check(sqlite3 *db, int rc, const char *what)
{
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    fprintf(stderr, "bt_bench: sqlite %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
  }
}

static sqlite3 *sq_open(const char *path, int64_t cache_kb)
{
  sqlite3 *db;
  unlink(path);
  char wal[1100];
  snprintf(wal, sizeof wal, "%s-wal", path);
  unlink(wal);
  sq_check(NULL, sqlite3_open(path, &db), "open");
  char sql[512];
  snprintf(sql, sizeof sql,
           "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-%" PRId64 ";"
           "CREATE TABLE t(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID;", cache_kb);
  sq_check(db, sqlite3_exec(db, sql, NULL, NULL, NULL), "setup");
  return db;
}

static double sq_insert(sqlite3 *db, int64_t rows)
{
  sqlite3_stmt *st;
  sq_check(db, sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?)", -1, &st, NULL), "prepare");
  uint8_t k[KEY_LEN];
  uint64_t t0 = time_now_ns();
  for (int64_t base = 0; base < rows; base += BATCH) {
    sq_check(db, sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), "begin");
    int64_t end = CZ_MIN(base + BATCH, rows);
    for (int64_t i = base; i < end; i++) {
      uint64_t v = (uint64_t)i;
      make_key((uint64_t)i, k);
      sqlite3_bind_blob(st, 1, k, KEY_LEN, SQLITE_STATIC);
      sqlite3_bind_blob(st, 2, &v, VAL_LEN, SQLITE_STATIC);
      sq_check(db, sqlite3_step(st), "insert");
      sqlite3_reset(st);
    }
    sq_check(db, sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), "commit");
  }
  sqlite3_finalize(st);
  return (double)rows / secs_since(t0);
}

static double sq_lookup(sqlite3 *db, const uint64_t *ix, int64_t n)
{
  sqlite3_stmt *st;
  sq_check(db, sqlite3_prepare_v2(db, "SELECT v FROM t WHERE k = ?", -1, &st, NULL), "prepare");
  uint8_t k[KEY_LEN];
  int64_t found = 0;
  uint64_t t0 = time_now_ns();
  for (int64_t i = 0; i < n; i++) {
    make_key(ix[i], k);
    sqlite3_bind_blob(st, 1, k, KEY_LEN, SQLITE_STATIC);
    found += sqlite3_step(st) == SQLITE_ROW;
    sqlite3_reset(st);
  }
  double rate = (double)n / secs_since(t0);
  sqlite3_finalize(st);
  if (found != n)
    fprintf(stderr, "bt_bench: sqlite lookup found %" PRId64 " of %" PRId64 "\n", found, n);
  return rate;
}

static double sq_scan(sqlite3 *db)
{
  sqlite3_stmt *st;
  sq_check(db, sqlite3_prepare_v2(db, "SELECT k, v FROM t", -1, &st, NULL), "prepare");
  int64_t rows = 0;
  uint64_t sum = 0, t0 = time_now_ns();
  while (sqlite3_step(st) == SQLITE_ROW) {
    rows++;
    sum += ((const uint8_t *)sqlite3_column_blob(st, 1))[0];
  }
  double rate = (double)rows / secs_since(t0);
  sqlite3_finalize(st);
  (void)sum;
  return rate;
}

/* ---- driver ------------------------------------------------------------ */

static double cold_scan(const char *path, int n_buffers, bool ra, int64_t rows)
{
  cz_db_t d;
  err_t e;
  err_clear(&e);
  cz_open(&d, path, n_buffers, ra, false);
  if (st_drop_os_cache(d.cd_st, &e) != CZ_OK)
    die("st_drop_os_cache", &e);
  st_stats_t s0, s1;
  st_get_stats(d.cd_st, &s0);
  bp_reset_stats(d.cd_bp);
  double secs;
  double rate = cz_scan(&d, rows, &secs);
  st_get_stats(d.cd_st, &s1);
  bp_stats_t b;
  bp_get_stats(d.cd_bp, &b);
  printf("cold scan, pool %d buffers, read-ahead %-3s: %8.3f s  %10.0f rows/s  read requests %8" PRIu64
         "  pages read %8" PRIu64 "  read-ahead pages %8" PRIu64 " (used %" PRIu64 ")\n",
         n_buffers, ra ? "on" : "off", secs, rate, s1.ss_reads - s0.ss_reads,
         s1.ss_pages_read - s0.ss_pages_read, b.bs_ra_pages_read, b.bs_ra_pages_used);
  cz_close(&d);
  return secs;
}

static void parse_args(int argc, char **argv, bench_t *b)
{
  b->bn_rows = 10000000;
  b->bn_lookups = 2000000;
  b->bn_dir = "/tmp/cz-bench";
  b->bn_sqlite = true;
  int o;
  while ((o = getopt(argc, argv, "n:d:l:s:")) != -1) {
    switch (o) {
    case 'n': b->bn_rows = atoll(optarg); break;
    case 'l': b->bn_lookups = atoll(optarg); break;
    case 'd': b->bn_dir = optarg; break;
    case 's': b->bn_sqlite = atoi(optarg) != 0; break;
    default:
      fprintf(stderr, "usage: bt_bench [-n rows] [-l lookups] [-d dir] [-s 0|1]\n");
      exit(2);
    }
  }
}

int main(int argc, char **argv)
{
  bench_t b;
  parse_args(argc, argv, &b);
  mkdir(b.bn_dir, 0755);
  char path[1024], sq_path[1024];
  snprintf(path, sizeof path, "%s/bench.db", b.bn_dir);
  snprintf(sq_path, sizeof sq_path, "%s/bench.sqlite", b.bn_dir);
  unlink(path);

  /* The tree takes roughly 40 bytes a row; give both systems room for all. */
  int64_t est_pages = b.bn_rows * 40 / ST_PAGE_SIZE + 1024;
  printf("bt_bench: %" PRId64 " rows of %d-byte keys, %" PRId64 " lookups, dir %s\n",
         b.bn_rows, KEY_LEN, b.bn_lookups, b.bn_dir);

  cz_db_t d;
  cz_open(&d, path, (int)est_pages, true, true);
  double cz_ins = cz_insert(&d, b.bn_rows);
  uint64_t *ix = random_indexes(b.bn_lookups, b.bn_rows);
  /* Alternate the two lookup styles and keep medians: the machine is shared. */
  double one[REPS], vec[REPS];
  for (int r = 0; r < REPS; r++) {
    one[r] = cz_lookup_single(&d, ix, b.bn_lookups);
    vec[r] = cz_lookup_vectored(&d, ix, b.bn_lookups);
  }
  double cz_one = median(one, REPS), cz_vec = median(vec, REPS);
  double secs;
  double cz_scn = cz_scan(&d, b.bn_rows, &secs);
  err_t e;
  err_clear(&e);
  bt_check_t chk;
  if (bt_check(d.cd_tree, &chk, &e) != CZ_OK)
    die("bt_check", &e);
  cz_close(&d);

  printf("cadenza: sorted insert %10.0f rows/s | lookup one-by-one %10.0f /s | vectored %10.0f /s (x%.2f) | scan %10.0f rows/s\n",
         cz_ins, cz_one, cz_vec, cz_vec / cz_one, cz_scn);
  printf("cadenza: tree %" PRIu64 " leaves + %" PRIu64 " inner pages (%.1f MB), height %d\n",
         chk.bc_leaves, chk.bc_inner, (double)(chk.bc_leaves + chk.bc_inner) * ST_PAGE_SIZE / 1048576.0,
         chk.bc_height);

  if (b.bn_sqlite) {
    sqlite3 *sq = sq_open(sq_path, est_pages * ST_PAGE_SIZE / 1024);
    double sq_ins = sq_insert(sq, b.bn_rows);
    double sq_one = sq_lookup(sq, ix, b.bn_lookups);
    double sq_scn = sq_scan(sq);
    sqlite3_close(sq);
    printf("sqlite : sorted insert %10.0f rows/s | lookup one-by-one %10.0f /s | scan %10.0f rows/s\n",
           sq_ins, sq_one, sq_scn);
    printf("ratio cadenza/sqlite: insert x%.2f | lookup one-by-one x%.2f | vectored lookup x%.2f | scan x%.2f\n",
           cz_ins / sq_ins, cz_one / sq_one, cz_vec / sq_one, cz_scn / sq_scn);
    unlink(sq_path);
  }
  free(ix);

  /* Phase 4: data 4x the pool, cold (OS cache dropped), read-ahead off then on. */
  int quarter = (int)((chk.bc_leaves + chk.bc_inner) / 4);
  if (quarter < 64)
    quarter = 64;
  double off[REPS], on[REPS];
  for (int r = 0; r < REPS; r++) {
    off[r] = cold_scan(path, quarter, false, b.bn_rows);
    on[r] = cold_scan(path, quarter, true, b.bn_rows);
  }
  double m_off = median(off, REPS), m_on = median(on, REPS);
  printf("cold scan medians: read-ahead off %.3f s, on %.3f s (on takes x%.2f of the time)\n",
         m_off, m_on, m_on / m_off);
  unlink(path);
  return 0;
}
