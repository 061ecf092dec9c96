/* test_fileguard — the server's own files are known by identity (a hard
 * link or another spelling is the same file) and by resolved path, and
 * released when closed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cz_test.h"
#include "util/util.h"

static void test_identity_survives_links_and_spellings(void **state)
{
  (void)state;
  char *db = cz_test_path("own.db");
  char *hard = cz_test_path("hard.db");
  char *other = cz_test_path("other.db");
  int fd = open(db, O_RDWR | O_CREAT, 0644);
  assert_true(fd >= 0);
  int ofd = open(other, O_RDWR | O_CREAT, 0644);
  assert_true(ofd >= 0);
  assert_int_equal(link(db, hard), 0);
  int n0 = fg_count();
  fg_protect_fd(fd, db, "the database file");
  assert_int_equal(fg_count(), n0 + 1);

  struct stat sb;
  assert_int_equal(stat(hard, &sb), 0);
  assert_string_equal(fg_protected(&sb, NULL), "the database file");
  char spelled[PATH_MAX];
  snprintf(spelled, sizeof spelled, "%s/./../%s/own.db", cz_test_tmpdir(),
           strrchr(cz_test_tmpdir(), '/') + 1);
  assert_int_equal(stat(spelled, &sb), 0);
  assert_non_null(fg_protected(&sb, NULL));
  assert_int_equal(fstat(ofd, &sb), 0);
  assert_null(fg_protected(&sb, NULL));

  /* by resolved path: the file removed and made again under its name */
  char real[PATH_MAX];
  assert_non_null(realpath(db, real));
  assert_non_null(fg_protected(NULL, real));

  /* registered twice (two opens), released twice */
  fg_protect_fd(fd, db, "the database file");
  assert_int_equal(fg_count(), n0 + 1);
  fg_release_fd(fd);
  assert_non_null(fg_protected(NULL, real));
  fg_release_fd(fd);
  assert_int_equal(fg_count(), n0);
  assert_int_equal(stat(db, &sb), 0);
  assert_null(fg_protected(&sb, real));
  close(fd);
  close(ofd);
  free(db);
  free(hard);
  free(other);
}

static void test_path_registration(void **state)
{
  (void)state;
  char *key = cz_test_path("server.key");
  FILE *f = fopen(key, "w");
  assert_non_null(f);
  fputs("secret\n", f);
  fclose(f);
  fg_protect_path(key, "the server's TLS private key");
  struct stat sb;
  assert_int_equal(stat(key, &sb), 0);
  assert_string_equal(fg_protected(&sb, NULL), "the server's TLS private key");
  /* a path that does not exist registers nothing */
  int n = fg_count();
  fg_protect_path("/nonexistent/cadenza.key", "x");
  assert_int_equal(fg_count(), n);
  free(key);
}

/* A file replaced by renames (the statistics file): refused by its path
 * whatever file is there now, never by the identity of the file it was
 * (whose inode any other file may get); released by name. */
static void test_name_registration(void **state)
{
  (void)state;
  char *stats = cz_test_path("db.stats"), *tmp = cz_test_path("db.stats.tmp");
  FILE *f = fopen(stats, "w");
  assert_non_null(f);
  fclose(f);
  struct stat old;
  assert_int_equal(stat(stats, &old), 0);
  int n = fg_count();
  fg_protect_name(stats, "the optimizer's statistics file");
  assert_int_equal(fg_count(), n + 1);
  assert_null(fg_protected(&old, NULL));
  f = fopen(tmp, "w");
  assert_non_null(f);
  fclose(f);
  assert_int_equal(rename(tmp, stats), 0);
  char real[PATH_MAX];
  assert_non_null(realpath(stats, real));
  assert_string_equal(fg_protected(NULL, real), "the optimizer's statistics file");
  fg_release_name(stats);
  assert_int_equal(fg_count(), n);
  assert_null(fg_protected(NULL, real));
  free(stats);
  free(tmp);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_identity_survives_links_and_spellings),
      cmocka_unit_test(test_path_registration),
      cmocka_unit_test(test_name_registration),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
