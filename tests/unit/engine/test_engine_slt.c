/* The sqllogictest select files through the engine (catalog, table
 * layer, binder, executor) on a real database, as the server runs them,
 * minus the wire. The corpus is read from ../shared/data/slt (or
 * $CZ_SLT_DIR); when it is absent the test is skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "en_run.h"
#include "slt_run.h"

typedef struct vals_s {
  char **v;
  int n, cap;
  int nrows;
} vals_t;

static int collect(void *ctx, const batch_t *b, err_t *e)
{
  (void)e;
  vals_t *vs = ctx;
  for (int i = 0; i < b->b_n; i++) {
    for (int c = 0; c < b->b_ncols; c++) {
      if (vs->n == vs->cap) {
        vs->cap = vs->cap ? vs->cap * 2 : 64;
        vs->v = realloc(vs->v, sizeof(char *) * (size_t)vs->cap);
      }
      datum_t d;
      vec_get(&b->b_cols[c], i, &d);
      char *s = NULL;
      if (!d.d_null) {
        size_t cap = ty_text_max(b->b_cols[c].v_type, &d) + 1;
        s = malloc(cap);
        int n = ty_format_text(b->b_cols[c].v_type, &d, s, cap);
        s[n > 0 ? n : 0] = '\0';
      }
      vs->v[vs->n++] = s;
    }
    vs->nrows++;
  }
  return CZ_OK;
}

static int run_one(esession_t *s, const char *sql, vals_t *vs, int *ncols, err_t *e)
{
  estmt_t *st;
  eportal_t *p;
  bool susp;
  if (estmt_prepare(s, sql, strlen(sql), NULL, 0, &st, e) != CZ_OK)
    return CZ_ERR;
  const ecol_t *cols;
  estmt_columns(st, &cols, ncols);
  int rc = eportal_bind(st, NULL, 0, &p, e);
  if (rc == CZ_OK) {
    rc = eportal_execute(p, 0, collect, vs, &susp, e);
    eportal_free(p);
  }
  estmt_free(st);
  return rc;
}

static int en_exec_cb(void *ctx, const char *sql, err_t *e)
{
  vals_t vs = {0};
  int nc;
  int rc = run_one(ctx, sql, &vs, &nc, e);
  for (int i = 0; i < vs.n; i++)
    free(vs.v[i]);
  free(vs.v);
  return rc;
}

static int en_query_cb(void *ctx, const char *sql, char ***vals, int *nrows, int *ncols, err_t *e)
{
  vals_t vs = {0};
  int rc = run_one(ctx, sql, &vs, ncols, e);
  if (rc != CZ_OK) {
    for (int i = 0; i < vs.n; i++)
      free(vs.v[i]);
    free(vs.v);
    return rc;
  }
  *vals = vs.v;
  *nrows = vs.nrows;
  return CZ_OK;
}

static void run_corpus(const char *name, const char *dbname)
{
  char path[1024];
  const char *dir = getenv("CZ_SLT_DIR");
  if (dir)
    snprintf(path, sizeof(path), "%s/%s", dir, name);
  else
    snprintf(path, sizeof(path), "%s/../shared/data/slt/%s", CZ_SRCDIR, name);
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s not found: skipped\n", path);
    skip();
  }
  fclose(f);
  engine_t *eng = en_test_open(dbname);
  esession_t *s = en_test_session(eng, "dba");
  slt_ops_t ops = {.so_ctx = s, .so_exec = en_exec_cb, .so_query = en_query_cb};
  int passed = 0;
  int fails = slt_run_file(path, &ops, &passed);
  fprintf(stderr, "%s: %d passed, %d failed\n", name, passed, fails);
  esession_close(s);
  err_t e;
  assert_int_equal(engine_close(eng, &e), CZ_OK);
  assert_int_equal(fails, 0);
}

static void test_select1(void **state)
{
  (void)state;
  run_corpus("select1.test", "slt1");
}

static void test_select2(void **state)
{
  (void)state;
  run_corpus("select2.test", "slt2");
}

static void test_select3(void **state)
{
  (void)state;
  run_corpus("select3.test", "slt3");
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
