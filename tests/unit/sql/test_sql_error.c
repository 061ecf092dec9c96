/* test_sql_error — what the parser refuses and how it says so: SQLSTATE,
 * message and the 1-based character position of the offending token;
 * invalid UTF-8; very long and very deep input; and random mutations of
 * valid statements, which must end in a parse or a clean error.
 */
#include <stdlib.h>

#include "cz_test.h"
#include "sql_test.h"

typedef struct sqlt_err_s {
  const char *in;
  const char *sqlstate;
  int pos;
  const char *msg;  /* the whole message; NULL: not checked */
} sqlt_err_t;

static void sqlt_errors(arena_t *a, const sqlt_err_t *c, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    err_t e = sqlt_fail(a, c[i].in);
    if (strcmp(e.er_sqlstate, c[i].sqlstate) != 0 || e.er_pos != c[i].pos ||
        (c[i].msg && strcmp(e.er_msg, c[i].msg) != 0))
      fprintf(stderr, "input: %s\n  want: %s at %d: %s\n  got:  %s at %d: %s\n", c[i].in,
              c[i].sqlstate, c[i].pos, c[i].msg ? c[i].msg : "", e.er_sqlstate, e.er_pos,
              e.er_msg);
    assert_string_equal(e.er_sqlstate, c[i].sqlstate);
    assert_int_equal(e.er_pos, c[i].pos);
    if (c[i].msg)
      assert_string_equal(e.er_msg, c[i].msg);
  }
}

static void test_syntax_error_positions(void **state)
{
  static const sqlt_err_t c[] = {
    {"SELECT a FROM t WHERE FROM", "42601", 23, "syntax error at or near \"FROM\""},
    {"SELEC 1", "42601", 1, "syntax error at or near \"SELEC\""},
    {"SELECT 1 FROM", "42601", 14, "syntax error at end of input"},
    {"SELECT (1 + 2", "42601", 14, "syntax error at end of input"},
    {"SELECT 1 +* 2", "42601", 11, "syntax error at or near \"*\""},
    {"INSERT INTO t VALUES (1,)", "42601", 25, "syntax error at or near \")\""},
    {"SELECT a,\n  b\nFROM t WHERE a = = 1", "42601", 32, "syntax error at or near \"=\""},
    {"SELECT 1 < 2 < 3", "42601", 14, "syntax error at or near \"<\""},
    {"SELECT # FROM t", "42601", 10, "syntax error at or near \"FROM\""},  /* # is a prefix operator */
    {"SELECT 1; SELEC 2; SELECT 3", "42601", 11, "syntax error at or near \"SELEC\""},
    {"SELECT 'x' 'y'", "42601", 12, "syntax error at or near \"'y'\""},
    {"CREATE TABLE t (a int,)", "42601", 23, "syntax error at or near \")\""},
    {"UPDATE t SET WHERE a = 1", "42601", 14, "syntax error at or near \"WHERE\""},
    {"SELECT top 5 FROM t", "42601", 14, "syntax error at or near \"FROM\""},
    {"SELECT a FROM t ORDER BY", "42601", 25, "syntax error at end of input"},
    {"(SELECT 1 ORDER BY 1) ORDER BY 1", "42601", 23, "multiple ORDER BY clauses not allowed"},
    {"(SELECT 1 LIMIT 1) LIMIT 2", "42601", 20, "multiple LIMIT clauses not allowed"},
  };
  sqlt_errors(*state, c, CZ_ARRAY_LEN(c));
}

/* Positions count characters, not bytes: é is one character, two bytes. */
static void test_positions_count_characters(void **state)
{
  static const sqlt_err_t c[] = {
    {"SELECT '\xc3\xa9\xc3\xa9' \xc3\xa9\xc3\xa9 FROM WHERE", "42601", 21, NULL},
    {"SELECT \"\xe2\x82\xac\" + FROM", "42601", 14, "syntax error at or near \"FROM\""},
  };
  sqlt_errors(*state, c, CZ_ARRAY_LEN(c));
}

static void test_lexical_errors(void **state)
{
  static const sqlt_err_t c[] = {
    {"SELECT * FROM t WHERE a = 'abc", "42601", 27,
     "unterminated quoted string at or near \"'abc\""},
    {"SELECT 'it''", "42601", 8, NULL},
    {"SELECT E'abc\\'", "42601", 8, NULL},
    {"SELECT \"abc", "42601", 8, "unterminated quoted identifier at or near \"\"abc\""},
    {"SELECT 1 /* x /* y */", "42601", 10, "unterminated /* comment"},
    {"SELECT 123abc", "42601", 8, "trailing junk after numeric literal at or near \"123abc\""},
    {"SELECT 1.5e", "42601", 8, NULL},
    {"SELECT $1x", "42601", 8, NULL},
    {"SELECT $0", "22003", 8, NULL},
    {"SELECT $99999999999", "22003", 8, NULL},
    {"SELECT \"\"", "42601", 8, "zero-length delimited identifier"},
    {"SELECT E'\\u12'", "22025", 8, "invalid Unicode escape value"},
    {"SELECT E'\\uD800'", "22025", 8, NULL},
    {"SELECT E'\\xff'", "22021", 8, "invalid byte sequence for encoding \"UTF8\": 0xff"},
    {"SELECT E'\\0'", "22021", 8, NULL},
  };
  sqlt_errors(*state, c, CZ_ARRAY_LEN(c));
}

static void test_type_errors(void **state)
{
  static const sqlt_err_t c[] = {
    {"SELECT CAST(a AS foo)", "42704", 18, "type \"foo\" does not exist"},
    {"SELECT a::int precision", "42704", 11, NULL},
    {"SELECT a::varchar(0)", "22023", 11, NULL},
    {"SELECT a::numeric(5,6)", "22023", 11, NULL},
    {"SELECT a::numeric(1001)", "22023", 11, NULL},
    {"SELECT a::int(5)", "42601", 11, "type modifier is not allowed for type \"int\""},
    {"CREATE TABLE t (a date with time zone)", "42704", 19, "type \"date with time zone\" does not exist"},
    {"SELECT bogus '1'", "42704", 8, NULL},
  };
  sqlt_errors(*state, c, CZ_ARRAY_LEN(c));
}

static void test_name_too_long(void **state)
{
  arena_t *a = *state;
  char name[65];
  memset(name, 'n', 64);
  name[64] = 0;
  err_t e = sqlt_fail(a, arena_sprintf(a, "SELECT 1 FROM %s", name));
  assert_string_equal(e.er_sqlstate, "42622");
  assert_int_equal(e.er_pos, 15);
  e = sqlt_fail(a, arena_sprintf(a, "SELECT \"%s\"", name));
  assert_string_equal(e.er_sqlstate, "42622");
  assert_int_equal(e.er_pos, 8);
}

static void test_invalid_utf8(void **state)
{
  arena_t *a = *state;
  static const struct {
    const char *in;
    size_t len;
    int pos;
    const char *msg;
  } c[] = {
    {"SELECT '\xff'", 10, 9, "invalid byte sequence for encoding \"UTF8\": 0xff"},
    {"SELECT 'a\xc3", 10, 10, NULL},                /* truncated at the end */
    {"SELECT '\xc3(", 10, 9, NULL},                 /* bad continuation */
    {"SELECT '\xc0\x80'", 11, 9, NULL},             /* overlong NUL */
    {"SELECT '\xed\xa0\x80'", 12, 9, NULL},         /* surrogate */
    {"SELECT '\xf4\x90\x80\x80'", 13, 9, NULL},     /* past U+10FFFF */
    {"SELECT '\xc3\xa9', '\xe9'", 16, 14, NULL},    /* position in characters */
    {"SELECT 1\0 + 1", 13, 9, "invalid byte sequence for encoding \"UTF8\": 0x00"},
  };
  for (size_t i = 0; i < CZ_ARRAY_LEN(c); i++) {
    err_t e = sqlt_fail_len(a, c[i].in, c[i].len);
    assert_string_equal(e.er_sqlstate, "22021");
    assert_int_equal(e.er_pos, c[i].pos);
    if (c[i].msg)
      assert_string_equal(e.er_msg, c[i].msg);
  }
  /* valid multi-byte text everywhere it may appear */
  assert_string_equal(sqlt_stmt(a, "SELECT '\xf0\x9f\x98\x80' AS \"\xe2\x82\xac\" FROM "
                                   "t\xc3\xa9"),
                      "(select ((as '\xf0\x9f\x98\x80' \"\xe2\x82\xac\")) (from \"t\xc3\xa9\"))");
}

/* Sizes far past anything a client sends still parse, in linear time. */
static void test_very_long_input(void **state)
{
  arena_t *a = *state;
  /* a 4 MB string literal */
  size_t n = (size_t)4 << 20;
  char *text = malloc(n + 32);
  assert_non_null(text);
  size_t len = (size_t)sprintf(text, "SELECT '");
  memset(text + len, 'x', n);
  len += n;
  len += (size_t)sprintf(text + len, "' AS big");
  sql_stmt_list_t *l = sqlt_parse(a, text);
  const sql_target_t *t = sql_list_at(l->sl_stmts[0]->st_query->qu_select->se_targets, 0);
  assert_int_equal(strlen(t->tg_expr->ex_text), n);
  /* an IN list of 100,000 values, and 100,000 statements in one text */
  len = (size_t)sprintf(text, "SELECT a FROM t WHERE a IN (0");
  for (int i = 1; i < 100000; i++)
    len += (size_t)sprintf(text + len, ",%d", i);
  sprintf(text + len, ")");
  l = sqlt_parse(a, text);
  const sql_expr_t *in = l->sl_stmts[0]->st_query->qu_select->se_where;
  assert_int_equal(sql_list_len(in->ex_list), 100000);
  len = 0;
  for (int i = 0; i < 100000; i++)
    len += (size_t)sprintf(text + len, "SELECT %d;", i);
  l = sqlt_parse(a, text);
  assert_int_equal(l->sl_n, 100000);
  assert_int_equal(l->sl_stmts[99999]->st_pos, (int)len - 12); /* "SELECT 99999;" */
  free(text);
}

/* Builds "<head><item>×n<tail>" in the arena. */
static char *sqlt_repeat(arena_t *a, const char *head, const char *item, int n, const char *tail)
{
  size_t hl = strlen(head), il = strlen(item), tl = strlen(tail);
  char *s = arena_alloc(a, hl + il * (size_t)n + tl + 1);
  memcpy(s, head, hl);
  for (int i = 0; i < n; i++)
    memcpy(s + hl + il * (size_t)i, item, il);
  memcpy(s + hl + il * (size_t)n, tail, tl + 1);
  return s;
}

/* Deep trees are refused with 54001 before a recursive walker could
 * overflow the stack; just under the limit is fine. */
static void test_nesting_limits(void **state)
{
  arena_t *a = *state;
  /* 1+1+…: depth = number of terms */
  sqlt_parse(a, sqlt_repeat(a, "SELECT 1", "+1", SQL_MAX_DEPTH - 1, ""));
  err_t e = sqlt_fail(a, sqlt_repeat(a, "SELECT 1", "+1", SQL_MAX_DEPTH, ""));
  assert_string_equal(e.er_sqlstate, "54001");
  e = sqlt_fail(a, sqlt_repeat(a, "SELECT 1", " UNION SELECT 1", SQL_MAX_DEPTH, ""));
  assert_string_equal(e.er_sqlstate, "54001");
  sqlt_parse(a, sqlt_repeat(a, "SELECT * FROM t", " CROSS JOIN t", SQL_MAX_DEPTH - 1, ""));
  e = sqlt_fail(a, sqlt_repeat(a, "SELECT * FROM t", " JOIN t ON 1", SQL_MAX_DEPTH, ""));
  assert_string_equal(e.er_sqlstate, "54001");
  /* parentheses: bounded by the parser's stack */
  char *open = sqlt_repeat(a, "SELECT ", "(", 100000, "1");
  e = sqlt_fail(a, sqlt_repeat(a, open, ")", 100000, ""));
  assert_string_equal(e.er_sqlstate, "54001");
  e = sqlt_fail(a, sqlt_repeat(a, "SELECT ", "NOT ", 100000, "TRUE"));
  assert_string_equal(e.er_sqlstate, "54001");
  open = sqlt_repeat(a, "SELECT ", "(SELECT ", 100000, "1");
  e = sqlt_fail(a, sqlt_repeat(a, open, ")", 100000, ""));
  assert_string_equal(e.er_sqlstate, "54001");
}

static const char *const sqlt_seeds[] = {
  "SELECT a, b AS x, count(DISTINCT c) FROM t1 JOIN s.t2 y ON t1.k = y.k WHERE a BETWEEN 1 "
  "AND 2 AND b NOT IN (SELECT z FROM u) GROUP BY a HAVING sum(b) > 3 ORDER BY 1 DESC LIMIT 5",
  "SELECT CASE WHEN a<b-3 THEN 111 WHEN a<=b THEN 222 ELSE 444 END, abs(b-c), "
  "(SELECT count(*) FROM t1 AS x WHERE x.b<t1.b) FROM t1 WHERE EXISTS(SELECT 1 FROM t1 AS x "
  "WHERE x.b<t1.b) UNION ALL SELECT 1, 2, 3 EXCEPT SELECT a, b, c FROM t9",
  "INSERT INTO t (a, \"B\") VALUES (1, 'it''s'), ($1, E'\\n'), (-2.5e3, DATE '2024-01-01')",
  "UPDATE t SET a = a::int + 1, b = CAST(b AS varchar(10)) || 'x' WHERE c IS NOT NULL",
  "CREATE TABLE t (a int PRIMARY KEY, b numeric(10,2) NOT NULL DEFAULT 0, c text UNIQUE, "
  "PRIMARY KEY (a, b))",
  "CREATE UNIQUE INDEX i ON t (a, b) INCLUDE (c); DROP TABLE IF EXISTS t; BEGIN; COMMIT; "
  "ROLLBACK TO SAVEPOINT s",
  "GRANT SELECT, INSERT ON t TO alice; CREATE USER bob WITH PASSWORD 'x'; SET x = 1; SHOW x; "
  "EXPLAIN DELETE FROM t WHERE a LIKE 'x%' /* comment */ -- end",
};

static const char *const sqlt_tokens[] = {
  "(", ")", ",", ";", "'", "\"", "E'", "$1", "::", "--", "/*", "*/", " ", "\n", "SELECT",
  "FROM", "WHERE", "NOT", "IN", "BETWEEN", "AND", "CASE", "END", "UNION", "NULL", "1e",
  "\xff", "\xc3", "\xe2\x82\xac", "\\", "0", "9999999999999999999999", "\0",
};

static size_t sqlt_mutate(uint64_t *rng, char *buf, size_t len, size_t cap)
{
#define SQLT_RAND(n) ((size_t)((*rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL) >> 33) % (n))
  int edits = 1 + (int)SQLT_RAND(4);
  for (int k = 0; k < edits; k++) {
    size_t at = len ? SQLT_RAND(len + 1) : 0;
    switch (SQLT_RAND(4)) {
    case 0: { /* delete a span */
      size_t n = 1 + SQLT_RAND(8); /* not inside CZ_MIN, which evaluates twice */
      n = CZ_MIN(len - at, n);
      memmove(buf + at, buf + at + n, len - at - n);
      len -= n;
      break;
    }
    case 1: { /* insert a token */
      const char *tok = sqlt_tokens[SQLT_RAND(CZ_ARRAY_LEN(sqlt_tokens))];
      size_t n = tok[0] ? strlen(tok) : 1;
      if (len + n > cap)
        break;
      memmove(buf + at + n, buf + at, len - at);
      memcpy(buf + at, tok, n);
      len += n;
      break;
    }
    case 2: /* replace a byte with anything */
      if (at < len)
        buf[at] = (char)SQLT_RAND(256);
      break;
    default: /* truncate */
      len = at;
      break;
    }
  }
  return len;
#undef SQLT_RAND
}

static bool sqlt_known_sqlstate(const char *s)
{
  static const char *const known[] = {"42601", "42622", "42704", "22021", "22025",
                                      "22003", "22023", "54001", "0A000", "42883"};
  for (size_t i = 0; i < CZ_ARRAY_LEN(known); i++)
    if (strcmp(s, known[i]) == 0)
      return true;
  return false;
}

/* Random edits of valid statements either parse (and print) or fail with a
 * parser SQLSTATE and a position inside the text or just past it. */
static void test_mutations_fail_cleanly(void **state)
{
  arena_t *a = *state;
  uint64_t rng = cz_test_seed();
  int ok = 0, failed = 0;
  char buf[1024];
  for (int i = 0; i < 20000; i++) {
    const char *seed = sqlt_seeds[i % CZ_ARRAY_LEN(sqlt_seeds)];
    size_t len = strlen(seed);
    memcpy(buf, seed, len);
    len = sqlt_mutate(&rng, buf, len, sizeof buf);
    sql_stmt_list_t *l = NULL;
    err_t e;
    err_clear(&e);
    if (sql_parse(a, buf, len, &l, &e) == CZ_OK) {
      for (int j = 0; j < l->sl_n; j++)
        assert_true(sql_ast_print(a, l->sl_stmts[j])[0] == '(');
      ok++;
    } else {
      if (!sqlt_known_sqlstate(e.er_sqlstate))
        fprintf(stderr, "unexpected %s: %s for %.*s\n", e.er_sqlstate, e.er_msg, (int)len, buf);
      assert_true(sqlt_known_sqlstate(e.er_sqlstate));
      assert_true(e.er_msg[0] != 0);
      assert_true(e.er_pos >= 1 && (size_t)e.er_pos <= len + 1);
      assert_null(l);
      failed++;
    }
    arena_reset(a);
  }
  fprintf(stderr, "mutations: %d parsed, %d failed cleanly\n", ok, failed);
  assert_true(ok > 0 && failed > 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_syntax_error_positions, sqlt_reset),
    cmocka_unit_test_setup(test_positions_count_characters, sqlt_reset),
    cmocka_unit_test_setup(test_lexical_errors, sqlt_reset),
    cmocka_unit_test_setup(test_type_errors, sqlt_reset),
    cmocka_unit_test_setup(test_name_too_long, sqlt_reset),
    cmocka_unit_test_setup(test_invalid_utf8, sqlt_reset),
    cmocka_unit_test_setup(test_very_long_input, sqlt_reset),
    cmocka_unit_test_setup(test_nesting_limits, sqlt_reset),
    cmocka_unit_test_setup(test_mutations_fail_cleanly, sqlt_reset),
  };
  return cmocka_run_group_tests(tests, sqlt_setup, sqlt_teardown);
}
