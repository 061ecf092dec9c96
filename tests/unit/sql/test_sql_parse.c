/* test_sql_parse — expressions: precedence and associativity, literals,
 * identifiers and parameters, asserted through the canonical S-expression
 * printer (sql_expr_print) and, for values, the tree itself.
 */
#include <stdint.h>

#include "sql_test.h"

typedef struct sqlt_expr_case_s {
  const char *in;
  const char *want;
} sqlt_expr_case_t;

static void sqlt_expr_cases(arena_t *a, const sqlt_expr_case_t *c, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    const char *got = sqlt_expr(a, c[i].in);
    if (strcmp(got, c[i].want) != 0)
      fprintf(stderr, "input: %s\n  want: %s\n  got:  %s\n", c[i].in, c[i].want, got);
    assert_string_equal(got, c[i].want);
  }
}

/* The first target expression of `SELECT x`. */
static const sql_expr_t *sqlt_expr_node(arena_t *a, const char *x)
{
  sql_stmt_list_t *l = sqlt_parse(a, arena_sprintf(a, "SELECT %s", x));
  const sql_target_t *t = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 0);
  return t->tg_expr;
}

static void test_arithmetic_precedence(void **state)
{
  static const sqlt_expr_case_t c[] = {
    {"1 + 2 * 3", "(+ 1 (* 2 3))"},
    {"1 * 2 + 3", "(+ (* 1 2) 3)"},
    {"(1 + 2) * 3", "(* (+ 1 2) 3)"},
    {"a % b * c", "(* (% a b) c)"},
    {"a - b / c % d", "(- a (% (/ b c) d))"},
    {"-a * b", "(* (neg a) b)"},
    {"-a::int", "(neg (cast a int4))"},
    {"a + b || c", "(|| (+ a b) c)"},
    {"a || b = c", "(= (|| a b) c)"},
  };
  sqlt_expr_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_left_associativity(void **state)
{
  static const sqlt_expr_case_t c[] = {
    {"1 - 2 - 3", "(- (- 1 2) 3)"},
    {"8 / 4 / 2", "(/ (/ 8 4) 2)"},
    {"a || b || c", "(|| (|| a b) c)"},
    {"a OR b OR c", "(or (or a b) c)"},
    {"a AND b AND c", "(and (and a b) c)"},
    {"a::int::text", "(cast (cast a int4) text)"},
  };
  sqlt_expr_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_boolean_precedence(void **state)
{
  static const sqlt_expr_case_t c[] = {
    {"a OR b AND c", "(or a (and b c))"},
    {"a AND b OR c", "(or (and a b) c)"},
    {"NOT a AND b", "(and (not a) b)"},
    {"NOT a = b", "(not (= a b))"},
    {"NOT NOT a", "(not (not a))"},
    {"a = 1 OR b = 2 AND c = 3", "(or (= a 1) (and (= b 2) (= c 3)))"},
    {"a + 1 < b * 2", "(< (+ a 1) (* b 2))"},
    {"a <> b AND a != c", "(and (<> a b) (<> a c))"},
    {"a <= b OR a >= c", "(or (<= a b) (>= a c))"},
  };
  sqlt_expr_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_is_between_in_like(void **state)
{
  static const sqlt_expr_case_t c[] = {
    {"a IS NULL AND b IS NOT NULL", "(and (is-null a) (is-not-null b))"},
    {"a = b IS TRUE", "(is-true (= a b))"},
    {"a IS NOT TRUE OR b IS FALSE OR c IS NOT FALSE",
     "(or (or (is-not-true a) (is-false b)) (is-not-false c))"},
    {"a IS DISTINCT FROM b", "(is-distinct-from a b)"},
    {"a IS NOT DISTINCT FROM b + 1", "(is-not-distinct-from a (+ b 1))"},
    {"a BETWEEN 1 AND 2 AND b", "(and (between a 1 2) b)"},
    {"a NOT BETWEEN b + 1 AND c * 2", "(not-between a (+ b 1) (* c 2))"},
    {"a + 1 BETWEEN b AND c OR d", "(or (between (+ a 1) b c) d)"},
    {"a = b NOT IN (1, 2)", "(= a (not-in b (1 2)))"},
    {"NOT a IN (1)", "(not (in a (1)))"},
    {"a IN (SELECT b FROM t)", "(in a (select (b) (from t)))"},
    {"a NOT IN (SELECT b FROM t)", "(not-in a (select (b) (from t)))"},
    {"a LIKE 'x%' OR b NOT LIKE 'y'", "(or (like a 'x%') (not-like b 'y'))"},
    {"a ILIKE b AND a NOT ILIKE c", "(and (ilike a b) (not-ilike a c))"},
    {"a || 'x' LIKE b", "(like (|| a 'x') b)"},
  };
  sqlt_expr_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_subqueries_case_cast_functions(void **state)
{
  static const sqlt_expr_case_t c[] = {
    {"EXISTS (SELECT 1)", "(exists (select (1)))"},
    {"NOT EXISTS (SELECT * FROM t)", "(not (exists (select (*) (from t))))"},
    {"(SELECT max(a) FROM t) + 1", "(+ (subquery (select ((max a)) (from t))) 1)"},
    {"((SELECT 1))", "(subquery (select (1)))"},
    {"CASE a WHEN 1 THEN 'x' WHEN 2 THEN 'y' ELSE 'z' END",
     "(case a (when 1 'x') (when 2 'y') (else 'z'))"},
    {"CASE WHEN a > 1 THEN 1 END", "(case (when (> a 1) 1))"},
    {"CAST(a AS numeric(10,2))", "(cast a numeric(10,2))"},
    {"CAST(a AS DOUBLE PRECISION)", "(cast a float8)"},
    {"a::varchar(5)", "(cast a varchar(5))"},
    {"'1'::character varying", "(cast '1' varchar)"},
    {"x::timestamp without time zone", "(cast x timestamp)"},
    {"abs(a - b)", "(abs (- a b))"},
    {"count(*)", "(count *)"},
    {"count(DISTINCT a)", "(count distinct a)"},
    {"sum(ALL a)", "(sum a)"},
    {"coalesce(a, b, 0)", "(coalesce a b 0)"},
    {"now()", "(now)"},
    {"Upper(x)", "(upper x)"},
  };
  sqlt_expr_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_type_names(void **state)
{
  static const sqlt_expr_case_t c[] = {
    {"a::integer", "(cast a int4)"},     {"a::INT", "(cast a int4)"},
    {"a::int4", "(cast a int4)"},        {"a::bigint", "(cast a int8)"},
    {"a::int8", "(cast a int8)"},        {"a::smallint", "(cast a int2)"},
    {"a::int2", "(cast a int2)"},        {"a::real", "(cast a float4)"},
    {"a::float4", "(cast a float4)"},    {"a::float8", "(cast a float8)"},
    {"a::float(10)", "(cast a float4)"}, {"a::decimal", "(cast a numeric)"},
    {"a::numeric(5)", "(cast a numeric(5,0))"},
    {"a::text", "(cast a text)"},        {"a::char", "(cast a char(1))"},
    {"a::char(3)", "(cast a char(3))"},  {"a::character(3)", "(cast a char(3))"},
    {"a::boolean", "(cast a bool)"},     {"a::bool", "(cast a bool)"},
    {"a::date", "(cast a date)"},        {"a::timestamp", "(cast a timestamp)"},
    {"a::bytea", "(cast a bytea)"},
  };
  sqlt_expr_cases(*state, c, CZ_ARRAY_LEN(c));
}

static void test_numeric_literals(void **state)
{
  arena_t *a = *state;
  const sql_expr_t *x = sqlt_expr_node(a, "42");
  assert_int_equal(x->ex_kind, SQL_E_LITERAL);
  assert_int_equal(x->ex_lit, SQL_LIT_INT);
  assert_int_equal(x->ex_int, 42);
  x = sqlt_expr_node(a, "9223372036854775807");
  assert_int_equal(x->ex_lit, SQL_LIT_INT);
  assert_true(x->ex_int == INT64_MAX);
  x = sqlt_expr_node(a, "9223372036854775808");
  assert_int_equal(x->ex_lit, SQL_LIT_NUMERIC);
  assert_string_equal(x->ex_text, "9223372036854775808");
  x = sqlt_expr_node(a, "-9223372036854775808");
  assert_int_equal(x->ex_lit, SQL_LIT_INT);
  assert_true(x->ex_int == INT64_MIN);
  x = sqlt_expr_node(a, "-5");
  assert_int_equal(x->ex_lit, SQL_LIT_INT);
  assert_int_equal(x->ex_int, -5);
  assert_int_equal(x->ex_pos, 8);
  x = sqlt_expr_node(a, "3.14");
  assert_int_equal(x->ex_lit, SQL_LIT_NUMERIC);
  assert_string_equal(x->ex_text, "3.14");
  x = sqlt_expr_node(a, "- .5");
  assert_int_equal(x->ex_lit, SQL_LIT_NUMERIC);
  assert_string_equal(x->ex_text, "-.5");
  x = sqlt_expr_node(a, "5.");
  assert_int_equal(x->ex_lit, SQL_LIT_NUMERIC);
  x = sqlt_expr_node(a, "1.5E-3");
  assert_int_equal(x->ex_lit, SQL_LIT_FLOAT);
  assert_string_equal(x->ex_text, "1.5E-3");
  x = sqlt_expr_node(a, "1e10");
  assert_int_equal(x->ex_lit, SQL_LIT_FLOAT);
  /* negation folds only into literals; twice gives the number back */
  assert_string_equal(sqlt_expr(a, "- -5"), "5");
  assert_string_equal(sqlt_expr(a, "-(5)"), "-5");
  assert_string_equal(sqlt_expr(a, "-'5'"), "(neg '5')");
}

static void test_string_and_other_literals(void **state)
{
  arena_t *a = *state;
  const sql_expr_t *x = sqlt_expr_node(a, "'it''s'");
  assert_int_equal(x->ex_lit, SQL_LIT_STRING);
  assert_string_equal(x->ex_text, "it's");
  assert_string_equal(sqlt_expr_node(a, "''")->ex_text, "");
  /* standard_conforming_strings: a backslash is an ordinary character */
  assert_string_equal(sqlt_expr_node(a, "'a\\nb'")->ex_text, "a\\nb");
  assert_string_equal(sqlt_expr_node(a, "E'a\\nb\\tc\\\\'")->ex_text, "a\nb\tc\\");
  assert_string_equal(sqlt_expr_node(a, "e'it\\'s ''x'''")->ex_text, "it's 'x'");
  assert_string_equal(sqlt_expr_node(a, "E'\\x41\\101\\u00e9\\U0001F600'")->ex_text,
                      "AA\xc3\xa9\xf0\x9f\x98\x80");
  assert_string_equal(sqlt_expr_node(a, "'h\xc3\xa9" "llo -- not a comment'")->ex_text,
                      "h\xc3\xa9" "llo -- not a comment");
  assert_string_equal(sqlt_expr(a, "'a''b'"), "'a''b'");
  x = sqlt_expr_node(a, "TRUE");
  assert_int_equal(x->ex_lit, SQL_LIT_BOOL);
  assert_true(x->ex_bool);
  x = sqlt_expr_node(a, "false");
  assert_int_equal(x->ex_lit, SQL_LIT_BOOL);
  assert_false(x->ex_bool);
  assert_int_equal(sqlt_expr_node(a, "NULL")->ex_lit, SQL_LIT_NULL);
  x = sqlt_expr_node(a, "DATE '2024-01-31'");
  assert_int_equal(x->ex_lit, SQL_LIT_TYPED);
  assert_int_equal(x->ex_type.ty_id, SQL_TYPE_DATE);
  assert_string_equal(x->ex_text, "2024-01-31");
  assert_string_equal(sqlt_expr(a, "TIMESTAMP '2024-01-31 10:00:00'"),
                      "(timestamp '2024-01-31 10:00:00')");
}

static void test_identifier_folding_and_quoting(void **state)
{
  arena_t *a = *state;
  static const sqlt_expr_case_t c[] = {
    {"FooBar", "foobar"},
    {"\"FooBar\"", "\"FooBar\""},
    {"\"Mixed Case\"", "\"Mixed Case\""},
    {"\"a\"\"b\"", "\"a\"\"b\""},
    {"Tbl.Col", "tbl.col"},
    {"S.\"T\".c", "s.\"T\".c"},
    {"\"select\"", "select"},
    {"_x$1", "\"_x$1\""},
    {"\xc3\x84" "Bc", "\"\xc3\x84" "bc\""}, /* only ASCII letters fold */
  };
  sqlt_expr_cases(a, c, CZ_ARRAY_LEN(c));
  const sql_expr_t *x = sqlt_expr_node(a, "\"Mixed Case\"");
  assert_int_equal(x->ex_kind, SQL_E_COLUMN);
  assert_string_equal(x->ex_name, "Mixed Case");
  assert_null(x->ex_table);
  x = sqlt_expr_node(a, "Sch.Tab.Col");
  assert_string_equal(x->ex_schema, "sch");
  assert_string_equal(x->ex_table, "tab");
  assert_string_equal(x->ex_name, "col");
  /* unreserved keywords and type names serve as names */
  assert_string_equal(sqlt_stmt(a, "SELECT key, first, last, zone, date, text FROM begin"),
                      "(select (key first last zone date text) (from begin))");
  /* 63 bytes is the longest name */
  char name[64];
  memset(name, 'x', 63);
  name[63] = 0;
  assert_string_equal(sqlt_expr(a, name), name);
}

static void test_parameters(void **state)
{
  arena_t *a = *state;
  assert_string_equal(sqlt_expr(a, "$1 + $2"), "(+ $1 $2)");
  const sql_expr_t *x = sqlt_expr_node(a, "$12");
  assert_int_equal(x->ex_kind, SQL_E_PARAM);
  assert_int_equal(x->ex_int, 12);
  assert_int_equal(x->ex_pos, 8);
  assert_string_equal(sqlt_stmt(a, "INSERT INTO t VALUES ($1, $2)"),
                      "(insert t (values ($1 $2)))");
  assert_string_equal(sqlt_stmt(a, "SELECT a FROM t WHERE b = $1 LIMIT $2"),
                      "(select (a) (from t) (where (= b $1)) (limit $2))");
  assert_string_equal(sqlt_stmt(a, "UPDATE t SET a = $1::int WHERE k = $2"),
                      "(update t (set (= a (cast $1 int4))) (where (= k $2)))");
}

static void test_comments_and_whitespace(void **state)
{
  arena_t *a = *state;
  assert_string_equal(sqlt_stmt(a, "SELECT /* a /* nested */ comment */ 1 -- trailing\n + 2"),
                      "(select ((+ 1 2)))");
  assert_string_equal(sqlt_stmt(a, "\tSELECT\r\n1\f"), "(select (1))");
  assert_string_equal(sqlt_stmt(a, "SELECT 1--2"), "(select (1))");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_arithmetic_precedence, sqlt_reset),
    cmocka_unit_test_setup(test_left_associativity, sqlt_reset),
    cmocka_unit_test_setup(test_boolean_precedence, sqlt_reset),
    cmocka_unit_test_setup(test_is_between_in_like, sqlt_reset),
    cmocka_unit_test_setup(test_subqueries_case_cast_functions, sqlt_reset),
    cmocka_unit_test_setup(test_type_names, sqlt_reset),
    cmocka_unit_test_setup(test_numeric_literals, sqlt_reset),
    cmocka_unit_test_setup(test_string_and_other_literals, sqlt_reset),
    cmocka_unit_test_setup(test_identifier_folding_and_quoting, sqlt_reset),
    cmocka_unit_test_setup(test_parameters, sqlt_reset),
    cmocka_unit_test_setup(test_comments_and_whitespace, sqlt_reset),
  };
  return cmocka_run_group_tests(tests, sqlt_setup, sqlt_teardown);
}
