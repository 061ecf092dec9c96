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

/* ---- table-driven checks ------------------------------------------------ */

/* One statement text, the kind it must parse to and its printed tree. */
typedef struct sqlt_case_s {
  const char *in;
  sql_stmt_kind_t kind;
  const char *want;
} sqlt_case_t;

static inline void sqlt_cases(arena_t *a, const sqlt_case_t *c, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    sql_stmt_list_t *l = sqlt_parse(a, c[i].in);
    assert_int_equal(l->sl_n, 1);
    const char *got = sql_ast_print(a, l->sl_stmts[0]);
    if (strcmp(got, c[i].want) != 0)
      fprintf(stderr, "input: %s\n  want: %s\n  got:  %s\n", c[i].in, c[i].want, got);
    assert_string_equal(got, c[i].want);
    assert_int_equal(l->sl_stmts[0]->st_kind, c[i].kind);
  }
}

/* The expression x (parsed as SELECT x) prints as want. */
static inline void sqlt_x(arena_t *a, const char *x, const char *want)
{
  const char *got = sqlt_expr(a, x);
  if (strcmp(got, want) != 0)
    fprintf(stderr, "input: %s\n  want: %s\n  got:  %s\n", x, want, got);
  assert_string_equal(got, want);
}

/* text fails with sqlstate, at character position pos when pos is not 0. */
static inline void sqlt_err(arena_t *a, const char *text, const char *sqlstate, int pos)
{
  err_t e = sqlt_fail(a, text);
  if (strcmp(e.er_sqlstate, sqlstate) != 0 || (pos && e.er_pos != pos))
    fprintf(stderr, "input: %s\n  got: %s [%s] at %d\n", text, e.er_msg, e.er_sqlstate,
            e.er_pos);
  assert_string_equal(e.er_sqlstate, sqlstate);
  if (pos)
    assert_int_equal(e.er_pos, pos);
}

#endif /* CZ_SQL_TEST_H */
