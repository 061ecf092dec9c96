/* test_isql_split — isql-cz's statement splitter: where statements end,
 * what counts as quoted or commented, line numbers, and that the result does
 * not depend on how the input is chunked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "isql/isql.h"

#define MAXST 32

typedef struct split_out_s {
  int n;
  iq_stmt_t st[MAXST];
} split_out_t;

static void collect(iq_split_t *sp, split_out_t *out)
{
  iq_stmt_t st;
  while (iq_split_next(sp, &st)) {
    assert_true(out->n < MAXST);
    out->st[out->n++] = st;
  }
}

/* Splits text fed in chunks of `chunk` bytes (0: all at once). */
static void split_chunked(const char *text, size_t chunk, split_out_t *out)
{
  iq_split_t sp;
  size_t len = strlen(text), off = 0;

  memset(out, 0, sizeof *out);
  iq_split_init(&sp, 1);
  if (chunk == 0)
    chunk = len ? len : 1;
  while (off < len) {
    size_t n = len - off < chunk ? len - off : chunk;
    iq_split_feed(&sp, text + off, n);
    off += n;
    collect(&sp, out);
  }
  iq_split_finish(&sp);
  collect(&sp, out);
  iq_split_free(&sp);
}

static void split(const char *text, split_out_t *out) { split_chunked(text, 0, out); }

static void out_free(split_out_t *out)
{
  for (int i = 0; i < out->n; i++)
    free(out->st[i].st_text);
  out->n = 0;
}

static void expect2(const char *text, const char *a, const char *b)
{
  split_out_t o;
  split(text, &o);
  assert_int_equal(o.n, 2);
  assert_string_equal(o.st[0].st_text, a);
  assert_string_equal(o.st[1].st_text, b);
  assert_int_equal(o.st[0].st_open, IQ_LEX_TOP);
  assert_int_equal(o.st[1].st_open, IQ_LEX_TOP);
  out_free(&o);
}

static void test_split_semicolons_end_statements(void **state)
{
  (void)state;
  expect2("select 1; select 2;", "select 1", "select 2");
  expect2("  select 1 ;\n\tselect 2\n;\n", "select 1", "select 2");
}

static void test_split_line_numbers_are_first_significant_byte(void **state)
{
  split_out_t o;
  (void)state;
  split("select 1;\n\n-- note\nselect\n  2\n;\n/* a\n b */ select 3;", &o);
  assert_int_equal(o.n, 3);
  assert_string_equal(o.st[0].st_text, "select 1");
  assert_int_equal(o.st[0].st_line, 1);
  assert_string_equal(o.st[1].st_text, "select\n  2");
  assert_int_equal(o.st[1].st_line, 4);
  assert_string_equal(o.st[2].st_text, "select 3");
  assert_int_equal(o.st[2].st_line, 8);
  out_free(&o);
}

static void test_split_single_quotes_with_doubled_quote(void **state)
{
  (void)state;
  expect2("select 'a;b'; select 2;", "select 'a;b'", "select 2");
  expect2("select 'it''s; fine'; select 2;", "select 'it''s; fine'", "select 2");
  /* standard_conforming_strings: a backslash does not escape in '…'. */
  expect2("select 'a\\'; select 2;", "select 'a\\'", "select 2");
  /* A string over several lines. */
  expect2("select 'x\n;\ny'; select 2;", "select 'x\n;\ny'", "select 2");
}

static void test_split_e_strings_honour_backslash(void **state)
{
  (void)state;
  expect2("select E'a\\';b'; select 2;", "select E'a\\';b'", "select 2");
  expect2("select e'\\\\'; select 2;", "select e'\\\\'", "select 2");
  expect2("select E'x''; y'; select 2;", "select E'x''; y'", "select 2");
  /* The E of a longer word does not make an E string. */
  expect2("select namE'a\\'; select 2;", "select namE'a\\'", "select 2");
}

static void test_split_double_quoted_identifiers(void **state)
{
  (void)state;
  expect2("select 1 as \"a;\"\"b\"; select 2;", "select 1 as \"a;\"\"b\"", "select 2");
  expect2("select 1 as \"it's\"; select 2;", "select 1 as \"it's\"", "select 2");
}

static void test_split_dollar_quotes(void **state)
{
  (void)state;
  expect2("create function f() returns int as $$ select 1; $$ language sql; select 2;",
          "create function f() returns int as $$ select 1; $$ language sql", "select 2");
  expect2("do $body$ begin; $$ ; $b$ end $body$; select 2;",
          "do $body$ begin; $$ ; $b$ end $body$", "select 2");
  /* $1 is a parameter and a$b$ an identifier: neither opens a quote. */
  expect2("select $1; select 2;", "select $1", "select 2");
  expect2("select a$b$ from t; select 2;", "select a$b$ from t", "select 2");
  expect2("select $_x1$;$_x1$; select 2;", "select $_x1$;$_x1$", "select 2");
}

static void test_split_comments(void **state)
{
  (void)state;
  expect2("-- a; b\nselect 1; /* x; /* nested; */ still; */ select 2;", "select 1", "select 2");
  /* A comment inside a statement stays with it. */
  expect2("select 1 -- c;\n + 1; select 2;", "select 1 -- c;\n + 1", "select 2");
  expect2("select 1 /* ; */ + 1; select 2;", "select 1 /* ; */ + 1", "select 2");
  /* A single minus or slash is an operator. */
  expect2("select 1-1; select 4 /2;", "select 1-1", "select 4 /2");
}

static void test_split_semicolon_inside_parentheses_does_not_end(void **state)
{
  (void)state;
  expect2("create rule r as on insert to t do (insert into a values (1); delete from b); "
          "select 1;",
          "create rule r as on insert to t do (insert into a values (1); delete from b)",
          "select 1");
  expect2("SPARQL SELECT * WHERE { ?s <p> ?o ; <q> ?x }; select 1;",
          "SPARQL SELECT * WHERE { ?s <p> ?o ; <q> ?x }", "select 1");
  /* A stray ')' does not make the depth negative. */
  expect2("select 1); select 2;", "select 1)", "select 2");
}

static void test_split_empty_statements_are_skipped(void **state)
{
  split_out_t o;
  (void)state;
  split(";;  ;\n-- only a comment\n; select 1;; /* c */ ;", &o);
  assert_int_equal(o.n, 1);
  assert_string_equal(o.st[0].st_text, "select 1");
  assert_int_equal(o.st[0].st_line, 3);
  out_free(&o);
  split("  \n -- c\n", &o);
  assert_int_equal(o.n, 0);
}

static void test_split_last_statement_without_semicolon(void **state)
{
  split_out_t o;
  (void)state;
  split("select 1;\nselect 2\n", &o);
  assert_int_equal(o.n, 2);
  assert_string_equal(o.st[1].st_text, "select 2");
  assert_int_equal(o.st[1].st_line, 2);
  assert_int_equal(o.st[1].st_open, IQ_LEX_TOP);
  out_free(&o);
  /* A trailing -- comment closes at the end of input. */
  split("select 3 -- c", &o);
  assert_int_equal(o.n, 1);
  assert_int_equal(o.st[0].st_open, IQ_LEX_TOP);
  out_free(&o);
}

static void expect_open(const char *text, iq_lex_t open)
{
  split_out_t o;
  split(text, &o);
  assert_int_equal(o.n, 1);
  assert_int_equal(o.st[0].st_open, open);
  out_free(&o);
}

static void test_split_reports_what_is_left_open(void **state)
{
  (void)state;
  expect_open("select 'abc;\n", IQ_LEX_SQUOTE);
  expect_open("select E'abc\\';", IQ_LEX_ESTRING);
  expect_open("select \"abc;", IQ_LEX_DQUOTE);
  expect_open("select $t$ x; $$;", IQ_LEX_DOLLAR);
  expect_open("select 1 /* x; ", IQ_LEX_BLOCK_COMMENT);
  expect_open("/* only an open comment", IQ_LEX_BLOCK_COMMENT);
  assert_string_equal(iq_lex_name(IQ_LEX_SQUOTE), "quoted string");
}

static const char *g_script =
    "-- a script with everything\n"
    "create table t (a int, \"b;c\" text);\n"
    "insert into t values (1, 'x;''y'), (2, E'\\';z');\n"
    "select $$;$$, $q$ $$ ; $q$ /* c; /* d; */ */ from t; -- tail;\n"
    "select a-1, a/2 from t where a > (select 1; );\n"
    "select 'é;ü', \"ß;\"\n"
    ";select 'last'";

static void test_split_chunking_does_not_change_result(void **state)
{
  split_out_t whole, part;
  uint64_t seed = cz_test_seed();
  (void)state;

  split(g_script, &whole);
  assert_int_equal(whole.n, 6);
  assert_string_equal(whole.st[1].st_text, "insert into t values (1, 'x;''y'), (2, E'\\';z')");
  assert_string_equal(whole.st[2].st_text,
                      "select $$;$$, $q$ $$ ; $q$ /* c; /* d; */ */ from t");
  assert_string_equal(whole.st[3].st_text, "select a-1, a/2 from t where a > (select 1; )");
  assert_string_equal(whole.st[4].st_text, "select 'é;ü', \"ß;\"");
  assert_int_equal(whole.st[4].st_line, 6);
  assert_string_equal(whole.st[5].st_text, "select 'last'");
  assert_int_equal(whole.st[5].st_line, 7);
  for (size_t chunk = 1; chunk <= 7; chunk++) {
    split_chunked(g_script, chunk, &part);
    assert_int_equal(part.n, whole.n);
    for (int i = 0; i < whole.n; i++) {
      assert_string_equal(part.st[i].st_text, whole.st[i].st_text);
      assert_int_equal(part.st[i].st_line, whole.st[i].st_line);
      assert_int_equal(part.st[i].st_open, whole.st[i].st_open);
    }
    out_free(&part);
  }
  /* Random cut points. */
  for (int round = 0; round < 50; round++) {
    iq_split_t sp;
    size_t len = strlen(g_script), off = 0;
    uint64_t x = seed + (uint64_t)round * 0x9E3779B97F4A7C15ull;
    memset(&part, 0, sizeof part);
    iq_split_init(&sp, 1);
    while (off < len) {
      size_t n;
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      n = 1 + (size_t)(x % 9);
      if (n > len - off)
        n = len - off;
      iq_split_feed(&sp, g_script + off, n);
      off += n;
      collect(&sp, &part);
    }
    iq_split_finish(&sp);
    collect(&sp, &part);
    iq_split_free(&sp);
    assert_int_equal(part.n, whole.n);
    for (int i = 0; i < whole.n; i++)
      assert_string_equal(part.st[i].st_text, whole.st[i].st_text);
    out_free(&part);
  }
  out_free(&whole);
}

static void test_split_pending_tells_a_statement_continues(void **state)
{
  iq_split_t sp;
  iq_stmt_t st;
  (void)state;
  iq_split_init(&sp, 1);
  iq_split_feed(&sp, "  \n-- c\n", 8);
  assert_false(iq_split_next(&sp, &st));
  assert_false(iq_split_pending(&sp));
  iq_split_feed(&sp, "/* open\n", 8);
  assert_false(iq_split_next(&sp, &st));
  assert_true(iq_split_pending(&sp));
  iq_split_feed(&sp, "*/ select\n", 10);
  assert_false(iq_split_next(&sp, &st));
  assert_true(iq_split_pending(&sp));
  iq_split_feed(&sp, "1;\n", 3);
  assert_true(iq_split_next(&sp, &st));
  assert_string_equal(st.st_text, "select\n1");
  assert_int_equal(st.st_line, 4);
  free(st.st_text);
  assert_false(iq_split_pending(&sp));
  iq_split_free(&sp);
}

static void test_split_reset_drops_text_and_keeps_line_count(void **state)
{
  iq_split_t sp;
  iq_stmt_t st;
  (void)state;
  iq_split_init(&sp, 1);
  iq_split_feed(&sp, "select 'abc\n", 12);
  assert_false(iq_split_next(&sp, &st));
  iq_split_reset(&sp);
  assert_false(iq_split_pending(&sp));
  iq_split_feed(&sp, "select 1;\n", 10);
  assert_true(iq_split_next(&sp, &st));
  assert_string_equal(st.st_text, "select 1");
  assert_int_equal(st.st_line, 2);
  free(st.st_text);
  iq_split_free(&sp);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split_semicolons_end_statements),
      cmocka_unit_test(test_split_line_numbers_are_first_significant_byte),
      cmocka_unit_test(test_split_single_quotes_with_doubled_quote),
      cmocka_unit_test(test_split_e_strings_honour_backslash),
      cmocka_unit_test(test_split_double_quoted_identifiers),
      cmocka_unit_test(test_split_dollar_quotes),
      cmocka_unit_test(test_split_comments),
      cmocka_unit_test(test_split_semicolon_inside_parentheses_does_not_end),
      cmocka_unit_test(test_split_empty_statements_are_skipped),
      cmocka_unit_test(test_split_last_statement_without_semicolon),
      cmocka_unit_test(test_split_reports_what_is_left_open),
      cmocka_unit_test(test_split_chunking_does_not_change_result),
      cmocka_unit_test(test_split_pending_tells_a_statement_continues),
      cmocka_unit_test(test_split_reset_drops_text_and_keeps_line_count),
  };
  return cmocka_run_group_tests_name("isql_split", tests, NULL, NULL);
}
