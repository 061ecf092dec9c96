/* test_sql_corpus — every statement and query of the sqllogictest files
 * select1.test, select2.test and select3.test parses.
 *
 * Design notes: the files are read where the project keeps them
 * (/work/shared/data/slt, or $CZ_SLT_DIR) and never copied into the tree. A
 * record starts with a `statement …` or `query …` line; its SQL runs to a
 * `----` line or a blank line. Other lines (hash-threshold, results) are
 * skipped. A test is skipped, loudly, when the files are not there.
 */
#include <stdlib.h>

#include "sql_test.h"

#define SQLT_SLT_DIR "/work/shared/data/slt"

static char *sqlt_read_file(const char *path, size_t *len)
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

/* Parses each record's SQL; returns the number of records, counts failures. */
static int sqlt_corpus_file(arena_t *a, const char *name, int *failures)
{
  const char *dir = getenv("CZ_SLT_DIR") ? getenv("CZ_SLT_DIR") : SQLT_SLT_DIR;
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  size_t len = 0;
  char *buf = sqlt_read_file(path, &len);
  if (!buf) {
    fprintf(stderr, "SKIP: %s not found (set CZ_SLT_DIR)\n", path);
    skip();
    return 0;
  }
  int records = 0;
  char *line = buf;
  while (line < buf + len) {
    char *eol = strchr(line, '\n');
    char *next = eol ? eol + 1 : buf + len;
    if (strncmp(line, "statement ", 10) == 0 || strncmp(line, "query ", 6) == 0) {
      /* the SQL: the following lines up to "----" or a blank line */
      char *sql = next, *end = next;
      while (end < buf + len && *end != '\n' && strncmp(end, "----", 4) != 0) {
        char *e2 = strchr(end, '\n');
        end = e2 ? e2 + 1 : buf + len;
      }
      sql_stmt_list_t *l = NULL;
      err_t e;
      if (sql_parse(a, sql, (size_t)(end - sql), &l, &e) != CZ_OK || l->sl_n != 1) {
        if (*failures < 20)
          fprintf(stderr, "%s: %s at %d: %.*s\n", name, e.er_msg, e.er_pos, (int)(end - sql),
                  sql);
        (*failures)++;
      }
      records++;
      arena_reset(a);
      next = end;
    }
    line = next;
  }
  free(buf);
  return records;
}

static void sqlt_corpus(void **state, const char *name, int expected_records)
{
  int failures = 0;
  int records = sqlt_corpus_file(*state, name, &failures);
  fprintf(stderr, "%s: %d records, %d failures\n", name, records, failures);
  assert_int_equal(failures, 0);
  assert_int_equal(records, expected_records);
}

/* Record counts are those of `grep -c '^statement\|^query'` on each file:
 * every record is found, not just the ones that happen to parse. */
static void test_select1_parses(void **state) { sqlt_corpus(state, "select1.test", 1031); }
static void test_select2_parses(void **state) { sqlt_corpus(state, "select2.test", 1031); }
static void test_select3_parses(void **state) { sqlt_corpus(state, "select3.test", 3351); }

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_select1_parses),
    cmocka_unit_test(test_select2_parses),
    cmocka_unit_test(test_select3_parses),
  };
  return cmocka_run_group_tests(tests, sqlt_setup, sqlt_teardown);
}
