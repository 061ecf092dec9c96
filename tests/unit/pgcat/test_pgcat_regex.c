/* test_pgcat_regex — the regular-expression engine (pgcat_regex*.c):
 * PostgreSQL syntax translated for PCRE2, refusals with PostgreSQL's
 * messages, the per-thread cache, and every match bounded: a cancel flag
 * stops a running match within milliseconds, the match heap is charged to
 * the statement's budget (53200) and given back, the match and depth
 * limits end a match with 54001 naming the limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "exec/expr.h"
#include "pgcat/pgcat_regex_int.h"

static double now_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The PCRE2 text of PostgreSQL pattern p under flags (freed by the next call). */
static const char *tr(const char *p, unsigned flags, unsigned *out_flags)
{
  static char *last;
  free(last);
  last = NULL;
  size_t n;
  unsigned f;
  err_t e;
  if (rx_translate(p, strlen(p), flags, &last, &n, &f, &e) != CZ_OK)
    return NULL;
  if (out_flags)
    *out_flags = f;
  return last;
}

static void tr_fails(const char *p, const char *msg_part)
{
  char *out = NULL;
  size_t n;
  unsigned f;
  err_t e;
  assert_int_equal(rx_translate(p, strlen(p), 0, &out, &n, &f, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "2201B");
  if (!strstr(e.er_msg, msg_part))
    fail_msg("%s: message %s lacks %s", p, e.er_msg, msg_part);
}

static void test_translate_escapes(void **state)
{
  (void)state;
  assert_string_equal(tr("\\ybar\\Y", 0, NULL), "\\bbar\\B");
  assert_string_equal(tr("\\mfoo\\M", 0, NULL), "\\b(?=\\w)foo\\b(?<=\\w)");
  assert_string_equal(tr("[[:<:]]a[[:>:]]", 0, NULL), "\\b(?=\\w)a\\b(?<=\\w)");
  assert_string_equal(tr("a\\Z", 0, NULL), "a\\z");
  assert_string_equal(tr("\\b\\B\\v", 0, NULL), "\\x{8}\\\\\\x{b}");
  assert_string_equal(tr("\\u00e9\\x41\\cA\\e", 0, NULL), "\\x{e9}\\x{41}\\x{1}\\x{1b}");
  assert_string_equal(tr("\\d\\W", 0, NULL), "\\d\\W");
  assert_string_equal(tr("[\\v\\d]", 0, NULL), "[\\x{b}\\d]");
  assert_string_equal(tr("(a)\\1", 0, NULL), "(a)\\g{1}");
  /* \12 with one group: not a back-reference, \1 then a literal 2 */
  assert_string_equal(tr("(a)\\12", 0, NULL), "(a)\\g{1}2");
  assert_string_equal(tr("\\101", 0, NULL), "\\x{41}");
  /* groups inside lookaround do not capture */
  assert_string_equal(tr("(?=(a))(b)", 0, NULL), "(?=(?:a))(b)");
  /* a { that starts no bound is a literal; } and ] alone too */
  assert_string_equal(tr("a{b}]", 0, NULL), "a\\{b\\}\\]");
  assert_string_equal(tr("a{2,3}?", 0, NULL), "a{2,3}?");
  assert_string_equal(tr("a#b c", 0, NULL), "a\\#b c");
}

static void test_translate_options(void **state)
{
  (void)state;
  unsigned f = 0;
  assert_string_equal(tr("(?i)ab", 0, &f), "ab");
  assert_true(f & RX_ICASE);
  assert_string_equal(tr("(?n)a", 0, &f), "a");
  assert_true((f & RX_NL_DOT) && (f & RX_NL_ANCHOR));
  assert_string_equal(tr("[^a]", RX_NL_DOT, NULL), "[^a\\n]");
  assert_string_equal(tr("***=a.(", 0, &f), "a\\.\\(");
  assert_string_equal(tr("***:(?x) a b # c", 0, NULL), "ab");
  assert_string_equal(tr("a\\ b", RX_EXPANDED, NULL), "a\\ b");
  assert_string_equal(tr("[ ]", RX_EXPANDED, NULL), "[ ]");
  assert_string_equal(tr("a.", RX_LITERAL, NULL), "a\\.");

  err_t e;
  unsigned fl = 0;
  assert_int_equal(rx_parse_flags("ig", 2, false, "regexp_like", &fl, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22023");
  assert_non_null(strstr(e.er_msg, "regexp_like() does not support the \"global\" option"));
  assert_int_equal(rx_parse_flags("b", 1, true, NULL, &fl, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "0A000");
  assert_int_equal(rx_parse_flags("z", 1, true, NULL, &fl, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22023");
  fl = 0;
  assert_int_equal(rx_parse_flags("icgx", 4, true, NULL, &fl, &e), CZ_OK);
  assert_int_equal(fl, RX_GLOBAL | RX_EXPANDED);
}

static void test_translate_refusals(void **state)
{
  (void)state;
  tr_fails("a**", "quantifier operand invalid");
  tr_fails("a++", "quantifier operand invalid");
  tr_fails("a*?+", "quantifier operand invalid");
  tr_fails("*a", "quantifier operand invalid");
  tr_fails("(*LIMIT_MATCH=1)a", "quantifier operand invalid");
  tr_fails("^*", "quantifier operand invalid");
  tr_fails("a(?i)b", "quantifier operand invalid");
  tr_fails("(?C1)a", "quantifier operand invalid");
  tr_fails("(?<n>a)", "quantifier operand invalid");
  tr_fails("(?z)a", "invalid embedded option");
  tr_fails("\\q", "invalid escape");
  tr_fails("\\K", "invalid escape");
  tr_fails("\\p{L}", "invalid escape");
  tr_fails("a\\", "invalid escape");
  tr_fails("a{256}", "invalid repetition count");
  tr_fails("a{3,2}", "invalid repetition count");
  tr_fails("a{2", "braces {} not balanced");
  tr_fails("[a", "brackets [] not balanced");
  tr_fails("(a", "parentheses () not balanced");
  tr_fails("a)", "parentheses () not balanced");
  tr_fails("\\1(a)", "invalid backreference number");
  tr_fails("(?=(a))\\1", "invalid backreference number");
  tr_fails("(a\\1)", "invalid backreference number");
  tr_fails("(a(b)|\\1)", "invalid backreference number");
  tr_fails("[[.hyphen.]]", "invalid collating element");
}

static rx_t *get(const char *p, unsigned flags)
{
  err_t e;
  str_t s = {p, (uint32_t)strlen(p)};
  rx_t *r = rx_get(&s, flags, &e);
  if (!r)
    fail_msg("%s: %s %s", p, e.er_sqlstate, e.er_msg);
  return r;
}

static int match(xctx_t *c, rx_t *r, const char *s, int64_t *ov, err_t *e)
{
  return rx_match(c, r, s, strlen(s), 0, false, ov, e);
}

static void test_match_and_cache(void **state)
{
  (void)state;
  xctx_t c = {0};
  err_t e;
  int64_t ov[8];
  rx_t *r = get("(b+)(x)?", 0);
  assert_int_equal(rx_groups(r), 2);
  assert_int_equal(match(&c, r, "abbc", ov, &e), 1);
  assert_int_equal(ov[0], 1);
  assert_int_equal(ov[1], 3);
  assert_int_equal(ov[2], 1);
  assert_int_equal(ov[4], -1); /* group 2 did not take part */
  assert_int_equal(match(&c, r, "ac", ov, &e), 0);
  /* cached: the same pattern and flags give the same compiled pattern */
  assert_ptr_equal(get("(b+)(x)?", 0), r);
  assert_ptr_not_equal(get("(b+)(x)?", RX_ICASE), r);
  /* more patterns than slots: each still matches what it should */
  char p[32], s[32];
  for (int i = 0; i < 40; i++) {
    snprintf(p, sizeof p, "^k%d$", i);
    snprintf(s, sizeof s, "k%d", i);
    assert_int_equal(match(&c, get(p, 0), s, ov, &e), 1);
    snprintf(s, sizeof s, "k%dx", i);
    assert_int_equal(match(&c, get(p, 0), s, ov, &e), 0);
  }
  /* PostgreSQL's newline rules: . matches \n, $ only at the very end */
  assert_int_equal(match(&c, get("a.b", 0), "a\nb", ov, &e), 1);
  assert_int_equal(match(&c, get("a$", 0), "a\n", ov, &e), 0);
  assert_int_equal(match(&c, get("a$", RX_NL_ANCHOR | RX_NL_DOT), "a\nb", ov, &e), 1);
  assert_int_equal(match(&c, get("a.b", RX_NL_ANCHOR | RX_NL_DOT), "a\nb", ov, &e), 0);
  /* back-references */
  assert_int_equal(match(&c, get("^(ab)\\1$", 0), "abab", ov, &e), 1);
  assert_int_equal(match(&c, get("^(ab)\\1$", 0), "abac", ov, &e), 0);
  /* an empty pattern or subject may come without a pointer */
  str_t empty = {NULL, 0};
  rx_t *re = rx_get(&empty, 0, &e);
  assert_non_null(re);
  assert_int_equal(rx_match(&c, re, NULL, 0, 0, false, ov, &e), 1);
  assert_int_equal(rx_match(&c, get("^$", 0), NULL, 0, 0, false, ov, &e), 1);
  /* invalid UTF-8 in a subject is 22021, not undefined behaviour */
  assert_int_equal(match(&c, get("a", 0), "\xff" "a", ov, &e), -1);
  assert_string_equal(e.er_sqlstate, "22021");
}

/* A subject on which (a+)+$ backtracks below the match limit from every
 * start position but for minutes in all. */
static char *slow_subject(size_t runs)
{
  char *s = malloc(runs * 19 + 1);
  for (size_t i = 0; i < runs; i++) {
    memset(s + i * 19, 'a', 18);
    s[i * 19 + 18] = 'b';
  }
  s[runs * 19] = 0;
  return s;
}

static void test_cancel_stops_a_running_match(void **state)
{
  (void)state;
  volatile bool cancel = true;
  xctx_t c = {.xc_cancel = &cancel};
  err_t e;
  int64_t ov[4];
  char *s = slow_subject(100000);
  double t0 = now_s();
  assert_int_equal(match(&c, get("(a+)+$", 0), s, ov, &e), -1);
  double secs = now_s() - t0;
  assert_string_equal(e.er_sqlstate, "57014");
  if (secs > 0.1)
    fail_msg("the cancel took %.3f s", secs);
  free(s);
}

static void test_limits(void **state)
{
  (void)state;
  xctx_t c = {0};
  err_t e;
  int64_t ov[4];
  char s[64];
  memset(s, 'a', 40);
  strcpy(s + 40, "b");
  assert_int_equal(match(&c, get("(a+)+$", 0), s, ov, &e), -1);
  assert_string_equal(e.er_sqlstate, "54001");
  assert_non_null(strstr(e.er_msg, "match limit"));
  /* a group repeated past the depth limit (no budget: the heap is allowed) */
  size_t n = 1200000;
  char *big = malloc(n + 1);
  for (size_t i = 0; i < n; i++)
    big[i] = i % 2 ? 'b' : 'a';
  big[n] = 0;
  assert_int_equal(match(&c, get("^(?:a|b)*$", 0), big, ov, &e), -1);
  assert_string_equal(e.er_sqlstate, "54001");
  assert_non_null(strstr(e.er_msg, "depth limit"));
  free(big);
}

static void test_heap_charged_to_the_budget(void **state)
{
  (void)state;
  mem_budget_t b;
  mem_budget_init(&b, 8 << 20);
  xctx_t c = {.xc_budget = &b};
  err_t e;
  int64_t ov[4];
  size_t n = 400000;
  char *big = malloc(n + 1);
  for (size_t i = 0; i < n; i++)
    big[i] = i % 2 ? 'b' : 'a';
  big[n] = 0;
  rx_t *r = get("^(a|b)*$", 0);
  assert_int_equal(match(&c, r, big, ov, &e), -1);
  assert_string_equal(e.er_sqlstate, "53200");
  /* nothing stays charged after the match */
  assert_int_equal(b.mb_used, 0);
  /* within a larger budget it matches, and gives everything back */
  mem_budget_t b2;
  mem_budget_init(&b2, 512 << 20);
  c.xc_budget = &b2;
  assert_int_equal(match(&c, r, big, ov, &e), 1);
  assert_true(b2.mb_peak > (int64_t)(8 << 20));
  assert_int_equal(b2.mb_used, 0);
  free(big);
}

/* The SQL functions through their registry rows. */
static datum_t call(const char *name, int n, const char **args, err_t *e, int *rc)
{
  static arena_t *a;
  if (!a)
    a = arena_create(NULL, "test");
  xctx_t c = {.xc_arena = a};
  const xfunc_def_t *d = NULL;
  for (int i = 0; i < pgcat_regex_nfuncs && !d; i++)
    if (strcmp(pgcat_regex_funcs[i].fd_name, name) == 0 && pgcat_regex_funcs[i].fd_nargs == n)
      d = &pgcat_regex_funcs[i];
  assert_non_null(d);
  datum_t v[8];
  memset(v, 0, sizeof v);
  for (int i = 0; i < n; i++) {
    if (d->fd_args[i] == TY_INT4) {
      v[i].d_i64 = atoi(args[i]);
    } else {
      v[i].d_str.s_ptr = args[i];
      v[i].d_str.s_len = (uint32_t)strlen(args[i]);
    }
  }
  xnode_t x = {.x_kind = X_FUNC, .x_func = d, .x_nargs = n};
  datum_t out;
  memset(&out, 0, sizeof out);
  *rc = d->fd_row(&c, &x, v, &out, e);
  return out;
}

static void str_is(datum_t d, const char *want)
{
  assert_false(d.d_null);
  char buf[256];
  snprintf(buf, sizeof buf, "%.*s", (int)d.d_str.s_len, d.d_str.s_ptr);
  assert_string_equal(buf, want);
}

static void test_functions(void **state)
{
  (void)state;
  err_t e;
  int rc;
  str_is(call("regexp_replace", 4, (const char *[]){"abc", "b*", "-", "g"}, &e, &rc), "-a--c-");
  str_is(call("regexp_replace", 3, (const char *[]){"hello world", "(\\w+) (\\w+)", "\\2 \\1"}, &e,
              &rc), "world hello");
  str_is(call("regexp_replace", 5, (const char *[]){"abcb", "b", "X", "1", "2"}, &e, &rc), "abcX");
  str_is(call("regexp_match", 2, (const char *[]){"abc", "(a)(x)?"}, &e, &rc), "{a,NULL}");
  str_is(call("regexp_split_to_array", 2, (const char *[]){"abc", "b*"}, &e, &rc), "{a,c}");
  str_is(call("substring", 2, (const char *[]){"foobar", "o(.)b"}, &e, &rc), "o");
  assert_int_equal(call("regexp_count", 2, (const char *[]){"abc", ""}, &e, &rc).d_i64, 4);
  assert_int_equal(
      call("regexp_instr", 5, (const char *[]){"abcabc", "b", "1", "2", "1"}, &e, &rc).d_i64, 6);
  call("regexp_count", 3, (const char *[]){"abc", "b", "0"}, &e, &rc);
  assert_int_equal(rc, CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22023");
  call("regexp_like", 3, (const char *[]){"abc", "b", "g"}, &e, &rc);
  assert_int_equal(rc, CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22023");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_translate_escapes),
    cmocka_unit_test(test_translate_options),
    cmocka_unit_test(test_translate_refusals),
    cmocka_unit_test(test_match_and_cache),
    cmocka_unit_test(test_cancel_stops_a_running_match),
    cmocka_unit_test(test_limits),
    cmocka_unit_test(test_heap_charged_to_the_budget),
    cmocka_unit_test(test_functions),
  };
  return cmocka_run_group_tests_name("pgcat regex", tests, NULL, NULL);
}
