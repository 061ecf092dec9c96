/* mem_store — for executor tests: tables kept in memory behind the
 * executor's storage hooks, and a runner that parses, plans (sql_plan.h)
 * and executes SQL over them without the catalog or the table layer.
 * CREATE TABLE makes a table (no keys); other DDL is not handled. */
#ifndef CZ_TEST_MEM_STORE_H
#define CZ_TEST_MEM_STORE_H

#include <stdbool.h>

#include "exec/exec.h"
#include "util/util.h"

typedef struct mem_db_s mem_db_t;

mem_db_t *mem_db_new(void);
void mem_db_free(mem_db_t *db);
/* Runs one or more statements; on success *rows (malloc'd, may be NULL)
 * holds the last statement's rows, each value as text ("NULL" for NULL),
 * values separated by '|' and rows by '\n'; *nrows and *ncols their
 * counts; *count the rows a DML statement changed. */
int mem_run(mem_db_t *db, const char *sql, char **rows, int *nrows, int *ncols, int64_t *count,
            err_t *e);
/* Rows of the last query as separate values (for the sqllogictest
 * runner): *vals[i] for i < nrows * ncols, malloc'd strings, NULL for
 * SQL NULL. */
int mem_query_values(mem_db_t *db, const char *sql, char ***vals, int *nrows, int *ncols,
                     err_t *e);

/* One query planned once, to be run any number of times, at once from
 * many threads (the plan is immutable: exec.h). */
typedef struct mem_plan_s mem_plan_t;
mem_plan_t *mem_plan(mem_db_t *db, const char *sql, err_t *e);
/* Runs p in a fresh execution: in q when q is given (a context set up by
 * the caller, e.g. a worker context, used for this run only), else in a
 * root context of its own with vector_size rows per batch. *rows as
 * mem_run's (malloc'd). */
int mem_plan_run(const mem_plan_t *p, qctx_t *q, int vector_size, char **rows, int *nrows,
                 err_t *e);
/* The plan's root operator and its subqueries (to check its shape). */
const op_t *mem_plan_root(const mem_plan_t *p);
int mem_plan_nsubqs(const mem_plan_t *p, int *ncorrelated);
void mem_plan_free(mem_plan_t *p);

#endif
