/* The sqllogictest select files run through the binder and the executor
 * over memory tables (the acceptance corpus without the server): each
 * file must pass with 0 failures. Rendering, sorting and hashing follow
 * ../shared/tools/sql/slt.py. The corpus is read from ../shared/data/slt
 * (public data that is not copied into this tree); when it is absent the
 * test says so and is skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "mem_store.h"
#include "slt_run.h"

static int mem_exec(void *ctx, const char *sql, err_t *e)
{
  char *rows;
  int nr, nc;
  int64_t cnt;
  if (mem_run(ctx, sql, &rows, &nr, &nc, &cnt, e) != CZ_OK)
    return CZ_ERR;
  free(rows);
  return CZ_OK;
}

static int mem_query(void *ctx, const char *sql, char ***vals, int *nrows, int *ncols, err_t *e)
{
  return mem_query_values(ctx, sql, vals, nrows, ncols, e);
}

static void run_corpus(const char *name)
{
  char path[1024];
  const char *dir = getenv("CZ_SLT_DIR");  /* another copy of the corpus */
  if (dir)
    snprintf(path, sizeof(path), "%s/%s", dir, name);
  else
    snprintf(path, sizeof(path), "%s/../shared/data/slt/%s", CZ_SRCDIR, name);
  int passed = 0;
  mem_db_t *db = mem_db_new();
  slt_ops_t ops = {.so_ctx = db, .so_exec = mem_exec, .so_query = mem_query};
  int f = slt_run_file(path, &ops, &passed);
  mem_db_free(db);
  if (f < 0) {
    fprintf(stderr, "%s not found: skipped\n", path);
    skip();
  }
  fprintf(stderr, "%s: %d passed, %d failed\n", name, passed, f);
  assert_int_equal(f, 0);
}

static void test_select1(void **state)
{
  (void)state;
  run_corpus("select1.test");
}

static void test_select2(void **state)
{
  (void)state;
  run_corpus("select2.test");
}

static void test_select3(void **state)
{
  (void)state;
  run_corpus("select3.test");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_select1),
      cmocka_unit_test(test_select2),
      cmocka_unit_test(test_select3),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
