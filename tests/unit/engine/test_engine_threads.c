/* test_engine_threads — [Parameters] ThreadsPerQuery and MaxQueryThreads:
 * bad values refuse to start with F0000, good ones (and 0 workers) start
 * an engine whose queries run as before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cz_test.h"
#include "en_run.h"
#include "util/util.h"

/* engine_open with the [Parameters] lines extra; CZ_OK or the error. */
static int open_with(const char *name, const char *extra, engine_t **eng, err_t *e)
{
  char *db = cz_test_path(name);
  char text[2048];
  snprintf(text, sizeof(text),
           "[Database]\nDatabaseFile = %s.db\nTransactionFile = %s.trx\n"
           "[Parameters]\nNumberOfBuffers = 2000\nDBAPassword = secret\n%s\n",
           db, db, extra);
  free(db);
  ini_t *ini = ini_parse(text, strlen(text), e);
  assert_non_null(ini);
  *eng = NULL;
  int rc = engine_open(ini, eng, e);
  ini_free(ini);
  return rc;
}

static void test_bad_max_query_threads_refused(void **state)
{
  (void)state;
  static const char *bad[] = {"MaxQueryThreads = -1", "MaxQueryThreads = 5000",
                              "MaxQueryThreads = many"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    engine_t *eng;
    err_t e;
    err_clear(&e);
    if (open_with("thr_bad", bad[i], &eng, &e) == CZ_OK)
      fail_msg("%s: the engine opened", bad[i]);
    assert_true(err_is(&e, SQLSTATE_CONFIG));
  }
}

static void test_queries_run_with_any_worker_limit(void **state)
{
  (void)state;
  static const char *good[] = {"ThreadsPerQuery = 4\nMaxQueryThreads = 0",
                               "ThreadsPerQuery = 2\nMaxQueryThreads = 3", "ThreadsPerQuery = 1", ""};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    char name[32];
    snprintf(name, sizeof name, "thr_ok%zu", i);
    engine_t *eng;
    err_t e;
    err_clear(&e);
    if (open_with(name, good[i], &eng, &e) != CZ_OK)
      fail_msg("%s: %s %s", good[i], e.er_sqlstate, e.er_msg);
    esession_t *s = en_test_session(eng, "dba");
    en_exec(s, "create table t (a int primary key, b text)");
    en_exec(s, "insert into t select g, 'x' || g from generate_series(1, 3000) g");
    en_expect_rows(s, "select count(*), sum(a) from t where b like 'x%'", "3000|4501500");
    esession_close(s);
    assert_int_equal(engine_close(eng, &e), CZ_OK);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bad_max_query_threads_refused),
    cmocka_unit_test(test_queries_run_with_any_worker_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
