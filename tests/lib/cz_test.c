/* cz_test — temporary directory, paths and a reproducible seed for tests.
 *
 * Design notes: the directory is removed with nftw at exit (atexit), depth
 * first, so a test that leaves files behind does not fill /tmp. Helpers
 * abort on failure: a test whose fixture cannot be set up must not pass.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nftw */
#endif
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cz_test.h"

static char cz_tmpdir[64];

static int cz_test_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)ftw;
  if (flag == FTW_DP)
    rmdir(path);
  else
    unlink(path);
  return 0;
}

static void cz_test_cleanup(void)
{
  if (cz_tmpdir[0] && !getenv("CZ_KEEP_TMP"))
    nftw(cz_tmpdir, cz_test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *cz_test_tmpdir(void)
{
  if (!cz_tmpdir[0]) {
    snprintf(cz_tmpdir, sizeof cz_tmpdir, "/tmp/cz-test-XXXXXX");
    if (!mkdtemp(cz_tmpdir)) {
      perror("cz_test_tmpdir: mkdtemp");
      abort();
    }
    atexit(cz_test_cleanup);
    if (getenv("CZ_KEEP_TMP"))
      fprintf(stderr, "cz_test: keeping %s\n", cz_tmpdir);
  }
  return cz_tmpdir;
}

char *cz_test_path(const char *name)
{
  const char *dir = cz_test_tmpdir();
  size_t n = strlen(dir) + 1 + strlen(name) + 1;
  char *p = malloc(n);
  if (!p)
    abort();
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

uint64_t cz_test_seed(void)
{
  static uint64_t seed;
  static int have_seed;
  if (!have_seed) {
    const char *env = getenv("CZ_TEST_SEED");
    if (env && *env) {
      seed = strtoull(env, NULL, 0);
    } else {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      seed = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32;
    }
    have_seed = 1;
    fprintf(stderr, "cz_test: seed %llu (set CZ_TEST_SEED to repeat)\n", (unsigned long long)seed);
  }
  return seed;
}
