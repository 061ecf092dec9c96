/* en_run — test helpers: an engine on a fresh temporary database and a
 * runner that executes SQL text through engine.h as the simple query
 * protocol would, collecting rows as text ("a|b" per row, NULL as
 * "NULL"), the last command tag and the first error. */
#ifndef CZ_TEST_EN_RUN_H
#define CZ_TEST_EN_RUN_H

#include "engine/engine.h"

typedef struct en_result_s {
  char *rr_rows;        /* rows joined by '\n' (malloc'd) */
  size_t rr_len, rr_cap;
  int rr_nrows;
  char rr_tag[64];
  err_t rr_err;
  bool rr_failed;
} en_result_t;

/* Opens an engine on a new database in the test's temp folder, named
 * name (one per test so tests are independent). */
engine_t *en_test_open(const char *name);
/* Reopens the same database (restart). */
engine_t *en_test_reopen(const char *name);
esession_t *en_test_session(engine_t *eng, const char *role);
/* Runs every statement of sql; stops at the first error. Returns
 * CZ_OK/CZ_ERR; r (reset first) has the rows of the last statement. */
int en_run(esession_t *s, const char *sql, en_result_t *r);
void en_result_free(en_result_t *r);
/* Runs sql and returns its rows as one string (the caller frees); fails
 * the test on error. */
char *en_query(esession_t *s, const char *sql);
/* Runs sql expecting an error with this SQLSTATE. */
void en_expect_error(esession_t *s, const char *sql, const char *sqlstate);
void en_exec(esession_t *s, const char *sql);
/* Runs sql and fails the test unless its rows are exactly want. */
void en_expect_rows(esession_t *s, const char *sql, const char *want);
/* The usual per-test fixture (for cmocka setup / teardown): an engine on
 * a new database named prefix<k>, k counting the opens so that every
 * test starts empty, and a session of the role "dba". */
void en_fixture_open(const char *prefix, engine_t **eng, esession_t **ses);
void en_fixture_close(engine_t *eng, esession_t *ses);

#endif
