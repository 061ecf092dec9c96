/* test_sql_clients — every SQL text the standard clients send parses.
 *
 * Design notes: tests/unit/sql/client_queries.sql holds, verbatim, the 43
 * texts of CLIENT_QUERIES.md (psql's \dt and \d, psycopg, pgJDBC's
 * metadata queries, psqlODBC's connect sequence, SQLTables and SQLColumns),
 * each after a `-- @@ label` line; every one must parse, with 0 failures.
 * When CLIENT_QUERIES.md itself is reachable ($CZ_CLIENT_QUERIES, or
 * ../shared/tools/sql/ beside the source tree) its ```sql blocks are
 * parsed too and each must be in the committed list, so the list cannot
 * fall behind the capture without this test failing.
 */
#include <stdlib.h>

#include "sql_test.h"

static char *sqlt_slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* Parses one client text; prints it with the error when it fails. */
static bool sqlt_client_parses(arena_t *a, const char *label, const char *sql, size_t len)
{
  sql_stmt_list_t *l = NULL;
  err_t e;
  err_clear(&e);
  if (sql_parse(a, sql, len, &l, &e) == CZ_OK && l->sl_n >= 1) {
    /* every statement prints: the tree is complete enough to walk */
    for (int i = 0; i < l->sl_n; i++)
      assert_non_null(sql_ast_print(a, l->sl_stmts[i]));
    return true;
  }
  fprintf(stderr, "FAIL %s: %s [%s] at %d\n%.*s\n", label, e.er_msg, e.er_sqlstate, e.er_pos,
          (int)len, sql);
  return false;
}

static char *sqlt_client_list(size_t *len)
{
  char *buf = sqlt_slurp(CZ_SRCDIR "/tests/unit/sql/client_queries.sql", len);
  assert_non_null(buf);
  return buf;
}

static void test_client_queries_parse(void **state)
{
  arena_t *a = *state;
  size_t len = 0;
  char *buf = sqlt_client_list(&len);
  int blocks = 0, failures = 0;
  char *p = strstr(buf, "\n-- @@ ");
  while (p) {
    char *label = p + 7;
    char *body = strchr(label, '\n');
    assert_non_null(body);
    *body++ = 0;
    char *next = strstr(body, "\n-- @@ ");
    size_t n = next ? (size_t)(next - body) : strlen(body);
    blocks++;
    if (!sqlt_client_parses(a, label, body, n))
      failures++;
    p = next;
  }
  free(buf);
  fprintf(stderr, "client texts: %d parsed, %d failed\n", blocks - failures, failures);
  assert_int_equal(blocks, 43);
  assert_int_equal(failures, 0);
}

static void test_capture_matches_list(void **state)
{
  arena_t *a = *state;
  const char *path = getenv("CZ_CLIENT_QUERIES");
  size_t mlen = 0, llen = 0;
  char *md = sqlt_slurp(path ? path : CZ_SRCDIR "/../shared/tools/sql/CLIENT_QUERIES.md", &mlen);
  if (!md)
    md = sqlt_slurp("/work/shared/tools/sql/CLIENT_QUERIES.md", &mlen);
  if (!md) {
    fprintf(stderr, "SKIP: CLIENT_QUERIES.md not found (set CZ_CLIENT_QUERIES)\n");
    skip();
  }
  char *list = sqlt_client_list(&llen);
  int blocks = 0, failures = 0;
  for (char *p = strstr(md, "```sql\n"); p; p = strstr(p, "```sql\n")) {
    char *body = p + 7;
    char *end = strstr(body, "```");
    assert_non_null(end);
    blocks++;
    char *text = arena_sprintf(a, "%.*s", (int)(end - body), body);
    if (!sqlt_client_parses(a, "CLIENT_QUERIES.md", body, (size_t)(end - body)))
      failures++;
    /* the block, less its final newline, is in the committed list */
    text[strlen(text) - 1] = 0;
    if (!strstr(list, text)) {
      fprintf(stderr, "not in client_queries.sql:\n%s\n", text);
      failures++;
    }
    p = end + 3;
  }
  free(md);
  free(list);
  assert_true(blocks > 0);
  assert_int_equal(failures, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_client_queries_parse, sqlt_reset),
    cmocka_unit_test_setup(test_capture_matches_list, sqlt_reset),
  };
  return cmocka_run_group_tests(tests, sqlt_setup, sqlt_teardown);
}
