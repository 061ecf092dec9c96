/* sql_test — helpers shared by the SQL front end's unit tests.
 *
 * Design notes: every helper parses into one arena per test (created in the
 * group setup, reset after each test), asserts with CMocka and returns arena
 * strings, so tests read as `assert_string_equal(sqlt_expr(a, "1+2*3"), …)`.
 */
#ifndef CZ_SQL_TEST_H
#define CZ_SQL_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sql/sql.h"
#include "util/util.h"

static inline int sqlt_setup(void **state)
{
  *state = arena_create(NULL, "sql-test");
  return 0;
}

static inline int sqlt_teardown(void **state)
{
  arena_destroy(*state);
  return 0;
}

/* Per test: an empty arena. */
static inline int sqlt_reset(void **state)
{
  arena_reset(*state);
  return 0;
}

/* Parses text, which must succeed; prints the parser's error otherwise. */
static inline sql_stmt_list_t *sqlt_parse(arena_t *a, const char *text)
{
  sql_stmt_list_t *l = NULL;
  err_t e;
  err_clear(&e);
  int rc = sql_parse(a, text, strlen(text), &l, &e);
  if (rc != CZ_OK)
    fprintf(stderr, "parse failed: %s [%s] at %d\n  in: %s\n", e.er_msg, e.er_sqlstate,
            e.er_pos, text);
  assert_int_equal(rc, CZ_OK);
  assert_non_null(l);
  return l;
}

/* The S-expression of the single statement in text. */
static inline const char *sqlt_stmt(arena_t *a, const char *text)
{
  sql_stmt_list_t *l = sqlt_parse(a, text);
  assert_int_equal(l->sl_n, 1);
  return sql_ast_print(a, l->sl_stmts[0]);
}

/* The S-expression of the expression x, parsed as `SELECT x`. */
static inline const char *sqlt_expr(arena_t *a, const char *x)
{
  sql_stmt_list_t *l = sqlt_parse(a, arena_sprintf(a, "SELECT %s", x));
  assert_int_equal(l->sl_n, 1);
  const sql_query_t *q = l->sl_stmts[0]->st_query;
  assert_int_equal(q->qu_kind, SQL_Q_SELECT);
  assert_int_equal(sql_list_len(q->qu_select->se_targets), 1);
  const sql_target_t *t = sql_list_at(q->qu_select->se_targets, 0);
  return sql_expr_print(a, t->tg_expr);
}

/* Parses text, which must fail; returns the error. */
static inline err_t sqlt_fail_len(arena_t *a, const char *text, size_t len)
{
  sql_stmt_list_t *l = NULL;
  err_t e;
  err_clear(&e);
  int rc = sql_parse(a, text, len, &l, &e);
  if (rc == CZ_OK)
    fprintf(stderr, "parse unexpectedly succeeded: %.200s\n", text);
  assert_int_equal(rc, CZ_ERR);
  assert_null(l);
  return e;
}

static inline err_t sqlt_fail(arena_t *a, const char *text)
{
  return sqlt_fail_len(a, text, strlen(text));
}

#endif /* CZ_SQL_TEST_H */
