/* test_isql_print — isql-cz's result tables and error reports, printed from
 * results built in memory with libpq's own PGresult constructors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "isql/isql.h"

#define OID_INT4 23
#define OID_NUMERIC 1700
#define OID_TEXT 25

/* A PGRES_TUPLES_OK result; cells are row-major, NULL for SQL NULL. */
static PGresult *make_result(int ncols, const char *const *names, const Oid *types, int nrows,
                             const char *const *cells)
{
  PGresult *r = PQmakeEmptyPGresult(NULL, PGRES_TUPLES_OK);
  PGresAttDesc att[8];
  assert_non_null(r);
  assert_true(ncols <= 8);
  memset(att, 0, sizeof att);
  for (int c = 0; c < ncols; c++) {
    att[c].name = (char *)names[c];
    att[c].typid = types[c];
    att[c].typlen = -1;
    att[c].atttypmod = -1;
  }
  assert_int_equal(PQsetResultAttrs(r, ncols, att), 1);
  for (int i = 0; i < nrows; i++)
    for (int c = 0; c < ncols; c++) {
      const char *v = cells[i * ncols + c];
      assert_int_equal(PQsetvalue(r, i, c, (char *)v, v ? (int)strlen(v) : -1), 1);
    }
  return r;
}

/* Prints res with maxrows and returns the text (malloc'd). */
static char *print_to_string(const PGresult *res, long maxrows, long *shown)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  iq_print_opts_t po = {maxrows};
  assert_non_null(f);
  *shown = iq_print_table(f, res, &po);
  fclose(f);
  return text;
}

static void test_print_aligns_numbers_right_and_shows_null(void **state)
{
  static const char *names[] = {"id", "name"};
  static const Oid types[] = {OID_INT4, OID_TEXT};
  static const char *cells[] = {"1", "alpha", "22", NULL, "333", "b"};
  PGresult *r = make_result(2, names, types, 3, cells);
  long shown;
  char *s = print_to_string(r, 0, &shown);
  (void)state;
  assert_int_equal(shown, 3);
  assert_string_equal(s, " id  name\n"
                         "---  -----\n"
                         "  1  alpha\n"
                         " 22  NULL\n"
                         "333  b\n");
  free(s);
  PQclear(r);
}

static void test_print_multiline_values_span_lines(void **state)
{
  static const char *names[] = {"t", "n"};
  static const Oid types[] = {OID_TEXT, OID_NUMERIC};
  static const char *cells[] = {"a\nbbb", "5", "c", "10.5"};
  PGresult *r = make_result(2, names, types, 2, cells);
  long shown;
  char *s = print_to_string(r, 0, &shown);
  (void)state;
  assert_string_equal(s, "t       n\n"
                         "---  ----\n"
                         "a       5\n"
                         "bbb\n"
                         "c    10.5\n");
  free(s);
  PQclear(r);
}

static void test_print_measures_utf8_in_characters(void **state)
{
  static const char *names[] = {"name", "v"};
  static const Oid types[] = {OID_TEXT, OID_INT4};
  static const char *cells[] = {"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", "1", "x", "2"};
  PGresult *r = make_result(2, names, types, 2, cells);
  long shown;
  char *s = print_to_string(r, 0, &shown);
  (void)state;
  assert_string_equal(s, "name   v\n"
                         "-----  -\n"
                         "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9  1\n"
                         "x      2\n");
  assert_int_equal(iq_text_width("a\xc3\xa9", 3), 2);
  free(s);
  PQclear(r);
}

static void test_print_maxrows_limits_rows_and_widths(void **state)
{
  static const char *names[] = {"v"};
  static const Oid types[] = {OID_TEXT};
  static const char *cells[] = {"a", "b", "a much longer value", "c"};
  PGresult *r = make_result(1, names, types, 4, cells);
  long shown;
  char *s = print_to_string(r, 2, &shown);
  (void)state;
  assert_int_equal(shown, 2);
  assert_string_equal(s, "v\n-\na\nb\n");
  free(s);
  s = print_to_string(r, 10, &shown);
  assert_int_equal(shown, 4);
  free(s);
  PQclear(r);
}

static void test_print_empty_result_has_header_only(void **state)
{
  static const char *names[] = {"a", "bb"};
  static const Oid types[] = {OID_INT4, OID_TEXT};
  PGresult *r = make_result(2, names, types, 0, NULL);
  long shown;
  char *s = print_to_string(r, 0, &shown);
  (void)state;
  assert_int_equal(shown, 0);
  assert_string_equal(s, "a  bb\n-  --\n");
  free(s);
  PQclear(r);
}

static void test_error_locate_maps_position_to_line_and_column(void **state)
{
  iq_errloc_t loc;
  const char *stmt = "select *\n  from nothere";
  const char *u = "select '\xc3\xa9',\n x";
  (void)state;
  assert_true(iq_error_locate(stmt, 10, 17, &loc));
  assert_int_equal(loc.el_line, 11);
  assert_int_equal(loc.el_col, 7);
  assert_int_equal(loc.el_len, 14);
  assert_memory_equal(loc.el_text, "  from nothere", 14);
  assert_true(iq_error_locate(stmt, 1, 1, &loc));
  assert_int_equal(loc.el_line, 1);
  assert_int_equal(loc.el_col, 0);
  /* Positions count characters, not bytes. */
  assert_true(iq_error_locate(u, 1, 14, &loc));
  assert_int_equal(loc.el_line, 2);
  assert_int_equal(loc.el_col, 1);
  /* Just past the end ("at end of input") is a position too. */
  assert_true(iq_error_locate("select", 1, 7, &loc));
  assert_int_equal(loc.el_col, 6);
  assert_false(iq_error_locate("select", 1, 8, &loc));
  assert_false(iq_error_locate("select", 1, 0, &loc));
}

static char *error_to_string(const char *sqlstate, const char *msg, const char *hint, long pos,
                             const char *stmt, int line, const char *src)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  iq_print_error(f, sqlstate, msg, NULL, hint, pos, stmt, line, src);
  fclose(f);
  return text;
}

static void test_print_error_with_position_and_source(void **state)
{
  char *s;
  (void)state;
  s = error_to_string("42P01", "relation \"nothere\" does not exist", "check the name", 17,
                      "select *\n  from nothere", 10, "file t.sql");
  assert_string_equal(s, "*** Error 42P01: relation \"nothere\" does not exist\n"
                         "at line 11 of file t.sql:\n"
                         "  from nothere\n"
                         "       ^\n"
                         "HINT: check the name\n");
  free(s);
  /* Without a position: the statement's line; a tab keeps the caret true. */
  s = error_to_string("22012", "division by zero\n", NULL, 0, "select 1/0", 4, "stdin");
  assert_string_equal(s, "*** Error 22012: division by zero\nat line 4 of stdin\n");
  free(s);
  s = error_to_string("42601", "syntax error", NULL, 3, "\tx y", 1, NULL);
  assert_string_equal(s, "*** Error 42601: syntax error\n\tx y\n\t ^\n");
  free(s);
  s = error_to_string(NULL, "connection lost", NULL, 0, NULL, 0, NULL);
  assert_string_equal(s, "*** Error: connection lost\n");
  free(s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_print_aligns_numbers_right_and_shows_null),
      cmocka_unit_test(test_print_multiline_values_span_lines),
      cmocka_unit_test(test_print_measures_utf8_in_characters),
      cmocka_unit_test(test_print_maxrows_limits_rows_and_widths),
      cmocka_unit_test(test_print_empty_result_has_header_only),
      cmocka_unit_test(test_error_locate_maps_position_to_line_and_column),
      cmocka_unit_test(test_print_error_with_position_and_source),
  };
  setlocale(LC_CTYPE, "C.UTF-8");
  return cmocka_run_group_tests_name("isql_print", tests, NULL, NULL);
}
