/* test_ini — the Virtuoso-style ini parser on tricky input, errors included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "util/util.h"

static ini_t *parse(const char *text, err_t *e)
{
  return ini_parse(text, strlen(text), e);
}

static void test_ini_sections_keys_values(void **state)
{
  err_t e;
  ini_t *ini = parse("[Database]\n"
                     "DatabaseFile = cadenza.db\n"
                     "ErrorLogFile=cadenza.log\n"
                     "\n"
                     "[Parameters]\n"
                     "ServerPort = 1111\n",
                     &e);
  (void)state;
  assert_non_null(ini);
  assert_string_equal(ini_get(ini, "Database", "DatabaseFile"), "cadenza.db");
  assert_string_equal(ini_get(ini, "Database", "ErrorLogFile"), "cadenza.log");
  assert_string_equal(ini_get(ini, "Parameters", "ServerPort"), "1111");
  assert_null(ini_get(ini, "Database", "ServerPort"));
  assert_null(ini_get(ini, "Nowhere", "ServerPort"));
  ini_free(ini);
}

static void test_ini_names_are_case_insensitive_values_keep_case(void **state)
{
  err_t e;
  ini_t *ini = parse("[Parameters]\nNumberOfBuffers = MixedCase Value\n", &e);
  (void)state;
  assert_string_equal(ini_get(ini, "PARAMETERS", "numberofbuffers"), "MixedCase Value");
  assert_string_equal(ini_get(ini, "parameters", "NumberOfBuffers"), "MixedCase Value");
  ini_free(ini);
}

static void test_ini_trims_blanks_and_crlf(void **state)
{
  err_t e;
  ini_t *ini = parse("  [  Sec  ]  \r\n\t Key\t =  a b  \t\r\nEmpty =\r\nEq = x=y\r\n", &e);
  (void)state;
  assert_non_null(ini);
  assert_string_equal(ini_get(ini, "Sec", "Key"), "a b");
  assert_string_equal(ini_get(ini, "Sec", "Empty"), "");
  assert_string_equal(ini_get(ini, "Sec", "Eq"), "x=y");
  ini_free(ini);
}

static void test_ini_comments_are_skipped(void **state)
{
  err_t e;
  ini_t *ini = parse("; a comment\n# another\n[S] ; trailing comment\n  ; indented = no\n"
                     "K = v ; not a comment inside a value\n",
                     &e);
  (void)state;
  assert_non_null(ini);
  assert_null(ini_get(ini, "S", "; indented"));
  assert_string_equal(ini_get(ini, "S", "K"), "v ; not a comment inside a value");
  ini_free(ini);
}

static void test_ini_later_duplicate_wins(void **state)
{
  err_t e;
  ini_t *ini = parse("[S]\nK = first\n[T]\nK = other\n[s]\nk = second\n", &e);
  (void)state;
  assert_string_equal(ini_get(ini, "S", "K"), "second");
  assert_string_equal(ini_get(ini, "T", "K"), "other");
  ini_free(ini);
}

static void test_ini_last_line_without_newline(void **state)
{
  err_t e;
  ini_t *ini = parse("[S]\nK = tail", &e);
  (void)state;
  assert_string_equal(ini_get(ini, "S", "K"), "tail");
  ini_free(ini);
  /* len, not the NUL, bounds the text. */
  ini = ini_parse("[S]\nK = abcdef", 11, &e);
  assert_string_equal(ini_get(ini, "S", "K"), "abc");
  ini_free(ini);
}

static void test_ini_empty_text_is_empty_config(void **state)
{
  err_t e;
  ini_t *ini = ini_parse("", 0, &e);
  (void)state;
  assert_non_null(ini);
  assert_null(ini_get(ini, "S", "K"));
  ini_free(ini);
}

/* Each malformed line is an F0000 error naming its line number. */
static void test_ini_errors_name_the_line(void **state)
{
  static const struct {
    const char *text;
    const char *msg_part;
  } bad[] = {
      {"[S]\nK = 1\nthis line has no equals\n", "line 3"},
      {"[S]\n\n; c\n[Unterminated\nK = 1\n", "line 4"},
      {"[S]\n = value\n", "line 2"},
      {"K = v\n", "line 1"},
      {"[]\n", "line 1"},
      {"[S] junk\n", "line 1"},
  };
  (void)state;
  for (size_t i = 0; i < CZ_ARRAY_LEN(bad); i++) {
    err_t e;
    err_clear(&e);
    assert_null(parse(bad[i].text, &e));
    assert_true(err_is(&e, SQLSTATE_CONFIG));
    if (!strstr(e.er_msg, bad[i].msg_part))
      fail_msg("case %zu: '%s' does not mention '%s'", i, e.er_msg, bad[i].msg_part);
  }
}

static void test_ini_get_int(void **state)
{
  err_t e;
  int64_t v = 0;
  ini_t *ini = parse("[S]\nA = 42\nB = -7\nC = 12abc\nD =\nE = 99999999999999999999\n", &e);
  (void)state;
  assert_int_equal(ini_get_int(ini, "S", "A", 0, &v, &e), CZ_OK);
  assert_int_equal(v, 42);
  assert_int_equal(ini_get_int(ini, "S", "B", 0, &v, &e), CZ_OK);
  assert_int_equal(v, -7);
  assert_int_equal(ini_get_int(ini, "S", "Missing", 123, &v, &e), CZ_OK);
  assert_int_equal(v, 123);
  assert_int_equal(ini_get_int(ini, "S", "C", 0, &v, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_CONFIG));
  assert_non_null(strstr(e.er_msg, "[S] C"));
  assert_int_equal(ini_get_int(ini, "S", "D", 0, &v, &e), CZ_ERR);
  assert_int_equal(ini_get_int(ini, "S", "E", 0, &v, &e), CZ_ERR);
  ini_free(ini);
}

static void test_ini_get_size_suffixes(void **state)
{
  static const struct {
    const char *val;
    int64_t want;
  } ok[] = {
      {"0", 0},           {"512", 512},          {"4K", 4096},
      {"4k", 4096},       {"4KB", 4096},         {"3 M", 3 << 20},
      {"3mb", 3 << 20},   {"2G", 2LL << 30},     {"2 GB ", 2LL << 30},
      {"1T", 1LL << 40},
  };
  static const char *const bad[] = {"4X", "4KBB", "K", "-1K", "4 K B", "1.5G",
                                    "99999999999G"};
  char text[128];
  err_t e;
  int64_t v;
  (void)state;
  for (size_t i = 0; i < CZ_ARRAY_LEN(ok); i++) {
    snprintf(text, sizeof text, "[S]\nV = %s\n", ok[i].val);
    ini_t *ini = parse(text, &e);
    assert_int_equal(ini_get_size(ini, "S", "V", -1, &v, &e), CZ_OK);
    assert_int_equal(v, ok[i].want);
    ini_free(ini);
  }
  for (size_t i = 0; i < CZ_ARRAY_LEN(bad); i++) {
    snprintf(text, sizeof text, "[S]\nV = %s\n", bad[i]);
    ini_t *ini = parse(text, &e);
    if (ini_get_size(ini, "S", "V", -1, &v, &e) != CZ_ERR)
      fail_msg("'%s' accepted as a size", bad[i]);
    assert_true(err_is(&e, SQLSTATE_CONFIG));
    ini_free(ini);
  }
}

static void test_ini_get_bool(void **state)
{
  err_t e;
  bool b;
  ini_t *ini = parse("[S]\nA = yes\nB = OFF\nC = True\nD = 0\nE = maybe\n", &e);
  (void)state;
  assert_int_equal(ini_get_bool(ini, "S", "A", false, &b, &e), CZ_OK);
  assert_true(b);
  assert_int_equal(ini_get_bool(ini, "S", "B", true, &b, &e), CZ_OK);
  assert_false(b);
  assert_int_equal(ini_get_bool(ini, "S", "C", false, &b, &e), CZ_OK);
  assert_true(b);
  assert_int_equal(ini_get_bool(ini, "S", "D", true, &b, &e), CZ_OK);
  assert_false(b);
  assert_int_equal(ini_get_bool(ini, "S", "Missing", true, &b, &e), CZ_OK);
  assert_true(b);
  assert_int_equal(ini_get_bool(ini, "S", "E", false, &b, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_CONFIG));
  ini_free(ini);
}

static void test_ini_load_file_and_errors(void **state)
{
  char *path = cz_test_path("cadenza.ini");
  FILE *f = fopen(path, "w");
  err_t e;
  ini_t *ini;
  (void)state;
  assert_non_null(f);
  fputs("[Parameters]\nNumberOfBuffers = 2000\n", f);
  fclose(f);
  ini = ini_load(path, &e);
  assert_non_null(ini);
  assert_string_equal(ini_get(ini, "parameters", "numberofbuffers"), "2000");
  ini_free(ini);

  f = fopen(path, "w");
  fputs("[Parameters]\nbroken\n", f);
  fclose(f);
  assert_null(ini_load(path, &e));
  assert_true(err_is(&e, SQLSTATE_CONFIG));
  assert_non_null(strstr(e.er_msg, path));
  assert_non_null(strstr(e.er_msg, "line 2"));

  assert_null(ini_load("/nonexistent/dir/x.ini", &e));
  assert_true(err_is(&e, SQLSTATE_IO_ERROR));
  free(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ini_sections_keys_values),
      cmocka_unit_test(test_ini_names_are_case_insensitive_values_keep_case),
      cmocka_unit_test(test_ini_trims_blanks_and_crlf),
      cmocka_unit_test(test_ini_comments_are_skipped),
      cmocka_unit_test(test_ini_later_duplicate_wins),
      cmocka_unit_test(test_ini_last_line_without_newline),
      cmocka_unit_test(test_ini_empty_text_is_empty_config),
      cmocka_unit_test(test_ini_errors_name_the_line),
      cmocka_unit_test(test_ini_get_int),
      cmocka_unit_test(test_ini_get_size_suffixes),
      cmocka_unit_test(test_ini_get_bool),
      cmocka_unit_test(test_ini_load_file_and_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
