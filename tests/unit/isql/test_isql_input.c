/* test_isql_input — isql-cz's line sources: -c strings and files (line
 * ends, CRLF, a last line without newline, a file that cannot be opened). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "isql/isql.h"

static void expect_line(iq_input_t *in, const char *want)
{
  char *line = iq_input_line(in, NULL);
  if (!want) {
    assert_null(line);
    return;
  }
  assert_non_null(line);
  assert_string_equal(line, want);
  free(line);
}

static void test_input_string_gives_its_lines(void **state)
{
  iq_input_t *in = iq_input_open_string("select 1;\n\nselect 2", 3);
  (void)state;
  assert_false(iq_input_interactive(in));
  assert_string_equal(iq_input_name(in), "-c string 3");
  expect_line(in, "select 1;");
  expect_line(in, "");
  expect_line(in, "select 2");
  assert_int_equal(iq_input_lines_read(in), 3);
  expect_line(in, NULL);
  expect_line(in, NULL);
  assert_int_equal(iq_input_lines_read(in), 3); /* the end is not a line */
  iq_input_close(in);
}

static void test_input_file_strips_line_ends(void **state)
{
  char *path = cz_test_path("script.sql");
  char msg[256];
  FILE *f = fopen(path, "w");
  iq_input_t *in;
  (void)state;
  assert_non_null(f);
  fputs("select 1;\r\nselect 2;\nlast", f);
  fclose(f);
  in = iq_input_open_file(path, msg, sizeof msg);
  assert_non_null(in);
  assert_non_null(strstr(iq_input_name(in), "script.sql"));
  assert_memory_equal(iq_input_name(in), "file ", 5);
  expect_line(in, "select 1;");
  expect_line(in, "select 2;");
  expect_line(in, "last");
  expect_line(in, NULL);
  iq_input_close(in);
  free(path);
}

static void test_input_missing_file_says_why(void **state)
{
  char msg[256] = "";
  char *path = cz_test_path("no-such.sql");
  (void)state;
  assert_null(iq_input_open_file(path, msg, sizeof msg));
  assert_non_null(strstr(msg, "cannot open"));
  assert_non_null(strstr(msg, "No such file"));
  free(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_input_string_gives_its_lines),
      cmocka_unit_test(test_input_file_strips_line_ends),
      cmocka_unit_test(test_input_missing_file_says_why),
  };
  return cmocka_run_group_tests_name("isql_input", tests, NULL, NULL);
}
