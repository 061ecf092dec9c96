/* test_pgcat_clients — the catalog the clients read is the catalog pgcat
 * has: every pg_catalog / information_schema relation that a statement of
 * CLIENT_QUERIES.md (tests/unit/sql/client_queries.sql) names exists, every
 * column it takes from one (alias.column, or a bare name) is a column of
 * it, and every function it calls is registered.
 *
 * Design notes: a statement's names are checked against the union of its
 * relations and aliases (a flat scope, not per query level): enough to
 * catch a missing relation or column, which is what would make a client's
 * query fail at bind time. Statements that also read user tables (`items`)
 * only have their qualified catalog columns checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/expr.h"
#include "pgcat/pgcat.h"
#include "sql/sql.h"

typedef struct pc_scope_s {
  int sc_nrels;
  const pgcat_rel_t *sc_rels[32];
  const char *sc_alias[32];      /* the relation's alias, or its name */
  int sc_nnames;
  const char *sc_names[256];     /* other names a bare column may be: output and FROM aliases */
  bool sc_user_tables;           /* reads a table that is not pgcat's */
  int sc_failures;
  const char *sc_label;
} pc_scope_t;

static void pc_query(pc_scope_t *s, const sql_query_t *q, bool check);
static void pc_expr(pc_scope_t *s, const sql_expr_t *x, bool check);

static void pc_name(pc_scope_t *s, const char *n)
{
  if (n && s->sc_nnames < 256)
    s->sc_names[s->sc_nnames++] = n;
}

static void pc_from(pc_scope_t *s, const sql_from_t *f, bool check)
{
  switch (f->fr_kind) {
  case SQL_FROM_TABLE: {
    if (check)
      break;
    const char *schema = f->fr_table.nm_schema;
    const pgcat_rel_t *r = pgcat_find(schema, f->fr_table.nm_name);
    if (!r && (!schema || strcmp(schema, "public") == 0) &&
        strncmp(f->fr_table.nm_name, "pg_", 3) != 0) {
      s->sc_user_tables = true;
      break;
    }
    if (!r) {
      fprintf(stderr, "%s: no relation %s%s%s\n", s->sc_label, schema ? schema : "",
              schema ? "." : "", f->fr_table.nm_name);
      s->sc_failures++;
      break;
    }
    s->sc_rels[s->sc_nrels] = r;
    s->sc_alias[s->sc_nrels++] = f->fr_alias ? f->fr_alias : f->fr_table.nm_name;
    break;
  }
  case SQL_FROM_SUBQUERY:
    if (!check)
      pc_name(s, f->fr_alias);
    pc_query(s, f->fr_query, check);
    break;
  case SQL_FROM_FUNC:
    if (!check) {
      pc_name(s, f->fr_alias);
      for (int i = 0; i < sql_list_len(f->fr_colnames); i++)
        pc_name(s, sql_list_at(f->fr_colnames, i));
    }
    pc_expr(s, f->fr_func, check);
    break;
  case SQL_FROM_JOIN:
    pc_from(s, f->fr_left, check);
    pc_from(s, f->fr_right, check);
    if (f->fr_on)
      pc_expr(s, f->fr_on, check);
    break;
  }
}

static bool pc_has_col(const pgcat_rel_t *r, const char *col)
{
  return pgcat_find_col(r, col) >= 0;
}

static void pc_column(pc_scope_t *s, const sql_expr_t *x)
{
  if (x->ex_table) {
    for (int i = 0; i < s->sc_nrels; i++) {
      if (strcmp(s->sc_alias[i], x->ex_table) != 0)
        continue;
      if (!pc_has_col(s->sc_rels[i], x->ex_name)) {
        fprintf(stderr, "%s: %s (%s) has no column %s\n", s->sc_label, x->ex_table,
                pgcat_rel_name(s->sc_rels[i]), x->ex_name);
        s->sc_failures++;
      }
      return;
    }
    return; /* a derived table's column */
  }
  if (s->sc_user_tables)
    return;
  for (int i = 0; i < s->sc_nrels; i++)
    if (pc_has_col(s->sc_rels[i], x->ex_name))
      return;
  for (int i = 0; i < s->sc_nnames; i++)
    if (strcmp(s->sc_names[i], x->ex_name) == 0)
      return;
  fprintf(stderr, "%s: no relation has a column %s\n", s->sc_label, x->ex_name);
  s->sc_failures++;
}

/* Functions other modules provide: the executor's window and set-returning
 * functions. */
static bool pc_elsewhere(const char *name)
{
  return strcmp(name, "row_number") == 0 || strcmp(name, "generate_series") == 0;
}

static void pc_exprs(pc_scope_t *s, const sql_list_t *l, bool check)
{
  for (int i = 0; i < sql_list_len(l); i++)
    pc_expr(s, sql_list_at(l, i), check);
}

static void pc_orders(pc_scope_t *s, const sql_list_t *l, bool check)
{
  for (int i = 0; i < sql_list_len(l); i++)
    pc_expr(s, ((const sql_order_t *)sql_list_at(l, i))->or_expr, check);
}

static void pc_expr(pc_scope_t *s, const sql_expr_t *x, bool check)
{
  if (!x)
    return;
  if (check && x->ex_kind == SQL_E_COLUMN)
    pc_column(s, x);
  if (check && x->ex_kind == SQL_E_FUNC && !xfunc_exists(x->ex_name) &&
      !xagg_is_aggregate(x->ex_name) && !pc_elsewhere(x->ex_name)) {
    fprintf(stderr, "%s: no function %s\n", s->sc_label, x->ex_name);
    s->sc_failures++;
  }
  pc_expr(s, x->ex_left, check);
  pc_expr(s, x->ex_right, check);
  pc_expr(s, x->ex_third, check);
  if (x->ex_kind == SQL_E_CASE) {
    for (int i = 0; i < sql_list_len(x->ex_list); i++) {
      const sql_when_t *w = sql_list_at(x->ex_list, i);
      pc_expr(s, w->wh_cond, check);
      pc_expr(s, w->wh_result, check);
    }
  } else
    pc_exprs(s, x->ex_list, check);
  if (x->ex_query)
    pc_query(s, x->ex_query, check);
  if (x->ex_over) {
    pc_exprs(s, x->ex_over->wi_partition, check);
    pc_orders(s, x->ex_over->wi_order, check);
  }
}

static void pc_query(pc_scope_t *s, const sql_query_t *q, bool check)
{
  for (int i = 0; i < sql_list_len(q->qu_with); i++)
    pc_query(s, ((const sql_cte_t *)sql_list_at(q->qu_with, i))->wc_query, check);
  if (q->qu_kind == SQL_Q_SELECT) {
    const sql_select_t *se = q->qu_select;
    for (int i = 0; i < sql_list_len(se->se_from); i++)
      pc_from(s, sql_list_at(se->se_from, i), check);
    for (int i = 0; i < sql_list_len(se->se_targets); i++) {
      const sql_target_t *t = sql_list_at(se->se_targets, i);
      if (!check)
        pc_name(s, t->tg_alias);
      pc_expr(s, t->tg_expr, check);
    }
    pc_expr(s, se->se_where, check);
    pc_exprs(s, se->se_group, check);
    pc_expr(s, se->se_having, check);
  } else if (q->qu_kind == SQL_Q_VALUES) {
    for (int i = 0; i < sql_list_len(q->qu_rows); i++)
      pc_exprs(s, sql_list_at(q->qu_rows, i), check);
  } else {
    pc_query(s, q->qu_left, check);
    pc_query(s, q->qu_right, check);
  }
  pc_orders(s, q->qu_order, check);
}

/* Checks every text of a `-- @@ label` file; returns how many there were. */
static int pc_check_file(arena_t *a, const char *path, int *catalog, int *failures)
{
  err_t e;
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char buf[1 << 17];
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[len] = 0;
  int texts = 0;
  for (char *p = strstr(buf, "\n-- @@ "); p;) {
    char *label = p + 7;
    char *body = strchr(label, '\n');
    *body++ = 0;
    char *next = strstr(body, "\n-- @@ ");
    size_t n = next ? (size_t)(next - body) : strlen(body);
    sql_stmt_list_t *l;
    if (sql_parse(a, body, n, &l, &e) != CZ_OK)
      fail_msg("%s: %s", label, e.er_msg);
    texts++;
    for (int i = 0; i < l->sl_n; i++) {
      if (l->sl_stmts[i]->st_kind != SQL_STMT_SELECT)
        continue;
      pc_scope_t s = {.sc_label = label};
      pc_query(&s, l->sl_stmts[i]->st_query, false);
      pc_query(&s, l->sl_stmts[i]->st_query, true);
      *catalog += s.sc_nrels > 0;
      *failures += s.sc_failures;
    }
    p = next;
  }
  return texts;
}

static void test_client_catalog(void **state)
{
  arena_t *a = *state;
  err_t e;
  assert_int_equal(pgcat_init(NULL, &e), CZ_OK);
  int catalog = 0, failures = 0;
  int texts = pc_check_file(a, CZ_SRCDIR "/tests/unit/sql/client_queries.sql", &catalog,
                            &failures);
  fprintf(stderr, "%d client texts, %d read the catalog, %d problems\n", texts, catalog,
          failures);
  assert_int_equal(texts, 43);
  assert_true(catalog >= 20);
  assert_int_equal(failures, 0);
}

static void test_psql_backslash_catalog(void **state)
{
  arena_t *a = *state;
  int catalog = 0, failures = 0;
  int texts = pc_check_file(a, CZ_SRCDIR "/tests/unit/pgcat/psql_backslash.sql", &catalog,
                            &failures);
  assert_int_equal(texts, 2);
  assert_int_equal(catalog, 2);
  assert_int_equal(failures, 0);
}

static int pc_setup(void **state)
{
  *state = arena_create(NULL, "pgcat-clients");
  return 0;
}

static int pc_teardown(void **state)
{
  arena_destroy(*state);
  return 0;
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_client_catalog),
    cmocka_unit_test(test_psql_backslash_catalog),
  };
  return cmocka_run_group_tests(tests, pc_setup, pc_teardown);
}
