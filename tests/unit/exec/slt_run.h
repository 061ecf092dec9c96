/* slt_run — a sqllogictest runner for unit tests, following
 * ../shared/tools/sql/slt.py's rendering (I, R, T), sort modes (nosort,
 * rowsort, valuesort) and result hashing (md5 of the values, one per
 * line), over any way of running SQL (memory tables, the engine). */
#ifndef CZ_TEST_SLT_RUN_H
#define CZ_TEST_SLT_RUN_H

#include "util/util.h"

typedef struct slt_ops_s {
  void *so_ctx;
  /* Runs a statement. */
  int (*so_exec)(void *ctx, const char *sql, err_t *e);
  /* Runs a query: nrows * ncols values (malloc'd strings, NULL = SQL NULL)
   * in *vals (malloc'd); the runner frees them. */
  int (*so_query)(void *ctx, const char *sql, char ***vals, int *nrows, int *ncols, err_t *e);
} slt_ops_t;

/* Runs the file: returns the number of failed records (the first five
 * are printed to stderr), or -1 when the file cannot be read; *passed
 * counts the records that passed. */
int slt_run_file(const char *path, const slt_ops_t *ops, int *passed);

#endif
