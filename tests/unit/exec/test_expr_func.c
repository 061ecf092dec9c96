/* test_expr_func — scalar functions: resolution, results against
 * PostgreSQL's, NULL handling, errors, and the registration API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "cz_test.h"
#include "expr_test_util.h"

static int setup(void **state)
{
  (void)state;
  tx_arena = arena_create(NULL, "test");
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  arena_destroy(tx_arena);
  return 0;
}

static xnode_t *num(const char *s)
{
  return tx_t(ty_plain(TY_NUMERIC), s);
}

static xnode_t *unk(const char *s)
{
  xnode_t *x = tx_node(X_CONST, ty_plain(TY_UNKNOWN));
  x->x_const.d_str.s_ptr = s;
  x->x_const.d_str.s_len = (uint32_t)strlen(s);
  return x;
}

#define F1(name, a) tx_eval_text(tx_fn(name, 1, (xnode_t *[]){a}))
#define F2(name, a, b) tx_eval_text(tx_fn(name, 2, (xnode_t *[]){a, b}))
#define F3(name, a, b, c) tx_eval_text(tx_fn(name, 3, (xnode_t *[]){a, b, c}))

static void test_math(void **state)
{
  (void)state;
  assert_string_equal(F1("abs", tx_i(TY_INT4, -5)), "5");
  assert_string_equal(F1("abs", num("-1.50")), "1.50");
  assert_string_equal(F1("abs", tx_f(-0.5)), "0.5");
  assert_string_equal(F1("abs", tx_i(TY_INT4, INT32_MIN)), "ERR 22003");
  assert_string_equal(F1("round", num("2.5")), "3");
  assert_string_equal(F1("round", num("-2.5")), "-3");
  assert_string_equal(F1("round", tx_f(2.5)), "2");
  assert_string_equal(F2("round", num("2.567"), tx_i(TY_INT4, 2)), "2.57");
  assert_string_equal(F2("round", num("1234.5"), tx_i(TY_INT4, -2)), "1200");
  assert_string_equal(F2("round", num("1.5"), tx_i(TY_INT4, 3)), "1.500");
  assert_string_equal(F2("trunc", num("-2.567"), tx_i(TY_INT4, 1)), "-2.5");
  assert_string_equal(F1("floor", num("-2.5")), "-3");
  assert_string_equal(F1("ceil", num("2.1")), "3");
  assert_string_equal(F1("ceiling", tx_f(-2.1)), "-2");
  assert_string_equal(F1("floor", tx_i(TY_INT4, 7)), "7");
  assert_string_equal(F1("sqrt", tx_i(TY_INT4, 16)), "4");
  assert_string_equal(F1("sqrt", tx_f(2)), "1.4142135623730951");
  assert_string_equal(F1("sqrt", tx_f(-1)), "ERR 2201F");
  assert_string_equal(F2("power", tx_i(TY_INT4, 2), tx_i(TY_INT4, 10)), "1024");
  assert_string_equal(F2("power", tx_f(0), tx_f(-1)), "ERR 2201F");
  assert_string_equal(F1("ln", tx_f(0)), "ERR 2201E");
  assert_string_equal(F1("log", tx_f(1000)), "3");
  assert_string_equal(F1("exp", tx_f(0)), "1");
  assert_string_equal(F2("mod", tx_i(TY_INT4, -7), tx_i(TY_INT4, 3)), "-1");
  assert_string_equal(F2("mod", tx_i(TY_INT4, 7), tx_i(TY_INT4, 0)), "ERR 22012");
  assert_string_equal(F2("mod", num("7.5"), tx_i(TY_INT4, 2)), "1.5");
  assert_string_equal(F1("sign", num("-3.2")), "-1");
  /* NUMERIC versions: PostgreSQL 15's digits and scales. */
  assert_string_equal(F2("power", num("2.0"), num("0.5")), "1.4142135623730950");
  assert_string_equal(F2("power", num("2.0"), num("3")), "8.0000000000000000");
  assert_string_equal(F2("power", num("2.0"), num("-2")), "0.2500000000000000");
  assert_string_equal(F2("power", num("1.1"), num("2")), "1.2100000000000000");
  assert_string_equal(F2("power", num("-2.0"), num("0.5")), "ERR 2201F");
  assert_string_equal(F1("exp", num("1.0")), "2.7182818284590452");
  assert_string_equal(F1("exp", num("0.0001")), "1.0001000050001667");
  assert_string_equal(F1("ln", num("10.0")), "2.3025850929940457");
  assert_string_equal(F1("ln", num("1.0000001")), "0.00000009999999500000033");
  assert_string_equal(F1("ln", num("0.0")), "ERR 2201E");
  assert_string_equal(F1("log", num("100.0")), "2.0000000000000000");
  assert_string_equal(F2("log", num("2.0"), num("8.0")), "3.0000000000000000");
  assert_string_equal(F1("sqrt", num("2.0")), "1.414213562373095");
  assert_string_equal(F1("abs", tx_null(TY_INT4)), "NULL");
  const char *r = tx_eval_text(tx_fn("random", 0, NULL));
  double v = atof(r);
  assert_true(v >= 0 && v < 1);
}

static void test_strings(void **state)
{
  (void)state;
  assert_string_equal(F1("length", tx_s("h\xc3\xa9llo")), "5");
  assert_string_equal(F1("octet_length", tx_s("h\xc3\xa9llo")), "6");
  assert_string_equal(F1("char_length", unk("abc")), "3");
  ty_t c5 = {TY_CHAR, 5, -1, 0, TY_UNKNOWN};
  assert_string_equal(F1("length", tx_t(c5, "ab")), "2");
  assert_string_equal(F1("lower", tx_s("HeLLo")), "hello");
  assert_string_equal(F1("upper", tx_s("hello")), "HELLO");
  assert_string_equal(F3("substr", tx_s("hello"), tx_i(TY_INT4, 2), tx_i(TY_INT4, 3)), "ell");
  assert_string_equal(F2("substring", tx_s("hello"), tx_i(TY_INT4, 3)), "llo");
  assert_string_equal(F3("substring", tx_s("hello"), tx_i(TY_INT4, 0), tx_i(TY_INT4, 2)), "h");
  assert_string_equal(F3("substring", tx_s("hello"), tx_i(TY_INT4, -5), tx_i(TY_INT4, 2)), "");
  assert_string_equal(F3("substring", tx_s("hello"), tx_i(TY_INT4, 2), tx_i(TY_INT4, -1)),
                      "ERR 22011");
  assert_string_equal(F3("substr", tx_s("\xc3\xa9t\xc3\xa9"), tx_i(TY_INT4, 2), tx_i(TY_INT4, 2)),
                      "t\xc3\xa9");
  assert_string_equal(F2("strpos", tx_s("high"), tx_s("ig")), "2");
  assert_string_equal(F2("position", tx_s("high"), tx_s("x")), "0");
  assert_string_equal(F2("left", tx_s("abcde"), tx_i(TY_INT4, 2)), "ab");
  assert_string_equal(F2("left", tx_s("abcde"), tx_i(TY_INT4, -2)), "abc");
  assert_string_equal(F2("right", tx_s("abcde"), tx_i(TY_INT4, 2)), "de");
  assert_string_equal(F2("right", tx_s("abcde"), tx_i(TY_INT4, -2)), "cde");
  assert_string_equal(F3("replace", tx_s("abcabc"), tx_s("b"), tx_s("XY")), "aXYcaXYc");
  assert_string_equal(F1("btrim", tx_s("  x y  ")), "x y");
  assert_string_equal(F1("ltrim", tx_s("  x ")), "x ");
  assert_string_equal(F1("rtrim", tx_s("  x ")), "  x");
  assert_string_equal(F2("btrim", tx_s("xxhixy"), tx_s("xy")), "hi");
  assert_string_equal(F3("lpad", tx_s("hi"), tx_i(TY_INT4, 5), tx_s("xy")), "xyxhi");
  assert_string_equal(F2("lpad", tx_s("hello"), tx_i(TY_INT4, 2)), "he");
  assert_string_equal(F3("rpad", tx_s("hi"), tx_i(TY_INT4, 5), tx_s("xy")), "hixyx");
  assert_string_equal(F2("rpad", tx_s("hi"), tx_i(TY_INT4, 4)), "hi  ");
  assert_string_equal(tx_eval_text(tx_fn("concat", 4, (xnode_t *[]){tx_s("a"), tx_null(TY_TEXT),
                                                                    tx_i(TY_INT4, 1), tx_b(1)})),
                      "a1t");
  assert_string_equal(tx_eval_text(tx_fn("concat_ws", 4, (xnode_t *[]){tx_s(","), tx_s("a"),
                                                                       tx_null(TY_TEXT), tx_s("b")})),
                      "a,b");
  assert_string_equal(F2("concat_ws", tx_null(TY_TEXT), tx_s("a")), "NULL");
  assert_string_equal(F2("repeat", tx_s("ab"), tx_i(TY_INT4, 3)), "ababab");
  assert_string_equal(F2("repeat", tx_s("ab"), tx_i(TY_INT4, -1)), "");
  assert_string_equal(F1("reverse", tx_s("h\xc3\xa9llo")), "oll\xc3\xa9h");
  assert_string_equal(F1("md5", tx_s("abc")), "900150983cd24fb0d6963f7d28e17f72");
  assert_string_equal(F1("ascii", tx_s("A")), "65");
  assert_string_equal(F1("chr", tx_i(TY_INT4, 233)), "\xc3\xa9");
  assert_string_equal(F3("split_part", tx_s("a,b,c"), tx_s(","), tx_i(TY_INT4, 2)), "b");
  assert_string_equal(F3("split_part", tx_s("a,b,c"), tx_s(","), tx_i(TY_INT4, -1)), "c");
  assert_string_equal(F3("split_part", tx_s("a,b,c"), tx_s(","), tx_i(TY_INT4, 4)), "");
  assert_string_equal(F1("initcap", tx_s("hello wORLD")), "Hello World");
  assert_string_equal(F1("upper", tx_null(TY_TEXT)), "NULL");
  /* Unicode case mapping, as PostgreSQL under the C.UTF-8 ctype. */
  assert_string_equal(F1("upper", tx_s("\xc3\xa9t\xc3\xa9")), "\xc3\x89T\xc3\x89");
  assert_string_equal(F1("lower", tx_s("\xc3\x80\xc3\x89\xc3\x8e")), "\xc3\xa0\xc3\xa9\xc3\xae");
  assert_string_equal(F1("upper", tx_s("stra\xc3\x9f" "e")), "STRA\xc3\x9f" "E");
  assert_string_equal(F1("initcap", tx_s("\xc3\x89LAN vital")), "\xc3\x89lan Vital");
  assert_string_equal(F1("concat", tx_i(TY_INT4, 1)), "1");
  assert_null(tx_fn("concat", 0, NULL));
}

static void test_conditionals(void **state)
{
  (void)state;
  assert_string_equal(F2("nullif", tx_i(TY_INT4, 1), tx_i(TY_INT4, 1)), "NULL");
  assert_string_equal(F2("nullif", tx_i(TY_INT4, 1), tx_i(TY_INT4, 2)), "1");
  assert_string_equal(F2("nullif", tx_i(TY_INT4, 1), num("1.0")), "NULL");
  assert_string_equal(F3("greatest", tx_i(TY_INT4, 1), tx_null(TY_INT4), num("2.5")), "2.5");
  assert_string_equal(F3("least", tx_s("b"), tx_s("a"), tx_s("c")), "a");
  assert_string_equal(F2("least", tx_null(TY_INT4), tx_null(TY_INT4)), "NULL");
  err_t e;
  const xfunc_t *f;
  ty_t args[2] = {ty_plain(TY_INT4), ty_plain(TY_TEXT)}, to[2], res;
  assert_int_equal(xfunc_resolve("greatest", args, 2, &f, to, &res, &e), CZ_ERR);
}

static void test_time_functions(void **state)
{
  (void)state;
  ty_t ts = ty_plain(TY_TIMESTAMP), d = ty_plain(TY_DATE);
  xnode_t *t1 = tx_t(ts, "2020-02-29 13:14:05.123456");
  assert_string_equal(F2("date_part", tx_s("year"), t1), "2020");
  assert_string_equal(F2("date_part", tx_s("month"), t1), "2");
  assert_string_equal(F2("date_part", tx_s("second"), t1), "5.123456");
  assert_string_equal(F2("extract", tx_s("second"), t1), "5.123456");
  assert_string_equal(F2("extract", tx_s("minute"), t1), "14");
  assert_string_equal(F2("extract", tx_s("dow"), t1), "6");
  assert_string_equal(F2("extract", tx_s("doy"), t1), "60");
  assert_string_equal(F2("extract", tx_s("epoch"), tx_t(ts, "1970-01-01 00:00:01")), "1.000000");
  assert_string_equal(F2("extract", tx_s("epoch"), tx_t(d, "1970-01-02")), "86400");
  assert_string_equal(F2("extract", tx_s("week"), tx_t(d, "2021-01-03")), "53");
  assert_string_equal(F2("extract", tx_s("quarter"), tx_t(d, "2021-08-03")), "3");
  assert_string_equal(F2("extract", tx_s("year"), tx_t(d, "0010-01-01 BC")), "-10");
  assert_string_equal(F2("extract", tx_s("century"), tx_t(d, "0001-01-01 BC")), "-1");
  assert_string_equal(F2("extract", tx_s("decade"), tx_t(d, "0002-01-01 BC")), "-1");
  assert_string_equal(F2("extract", tx_s("century"), tx_t(d, "2000-12-31")), "20");
  assert_string_equal(F2("extract", tx_s("millennium"), tx_t(d, "2001-01-01")), "3");
  assert_string_equal(F2("extract", tx_s("hour"), tx_t(d, "2021-08-03")), "ERR 0A000");
  assert_string_equal(F2("extract", tx_s("fortnight"), t1), "ERR 22023");
  assert_string_equal(F2("date_trunc", tx_s("month"), t1), "2020-02-01 00:00:00");
  assert_string_equal(F2("date_trunc", tx_s("hour"), t1), "2020-02-29 13:00:00");
  assert_string_equal(F2("date_trunc", tx_s("week"), t1), "2020-02-24 00:00:00");
  assert_string_equal(F2("date_trunc", tx_s("year"), t1), "2020-01-01 00:00:00");
  assert_string_equal(
      F3("make_date", tx_i(TY_INT4, 2021), tx_i(TY_INT4, 2), tx_i(TY_INT4, 28)), "2021-02-28");
  assert_string_equal(
      F3("make_date", tx_i(TY_INT4, 2021), tx_i(TY_INT4, 2), tx_i(TY_INT4, 29)), "ERR 22008");
  xctx_t c = tx_ctx();
  c.xc_stmt_ts = 86400000000LL + 1;
  datum_t out;
  err_t e;
  assert_int_equal(xeval_scalar(&c, tx_fn("now", 0, NULL), &out, &e), CZ_OK);
  assert_int_equal(out.d_i64, 86400000001LL);
  assert_int_equal(xeval_scalar(&c, tx_fn("current_date", 0, NULL), &out, &e), CZ_OK);
  assert_int_equal(out.d_i64, 1);
}

static void test_resolution_errors(void **state)
{
  (void)state;
  err_t e;
  const xfunc_t *f;
  ty_t args[2] = {ty_plain(TY_BOOL)}, to[2], res;
  assert_int_equal(xfunc_resolve("no_such_function", args, 1, &f, to, &res, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "42883");
  assert_string_equal(e.er_msg, "function no_such_function(boolean) does not exist");
  assert_int_equal(xfunc_resolve("upper", args, 1, &f, to, &res, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "42883");
  args[0] = ty_plain(TY_FLOAT8);
  args[1] = ty_plain(TY_FLOAT8);
  assert_int_equal(xfunc_resolve("mod", args, 2, &f, to, &res, &e), CZ_ERR);
  /* round(int) prefers double precision, as PostgreSQL does. */
  args[0] = ty_plain(TY_INT4);
  assert_int_equal(xfunc_resolve("round", args, 1, &f, to, &res, &e), CZ_OK);
  assert_int_equal(res.t_id, TY_FLOAT8);
  args[0] = ty_plain(TY_NUMERIC);
  assert_int_equal(xfunc_resolve("round", args, 1, &f, to, &res, &e), CZ_OK);
  assert_int_equal(res.t_id, TY_NUMERIC);
  /* Varchar arguments are passed as text. */
  ty_t v10 = {TY_VARCHAR, 10, -1, 0, TY_UNKNOWN};
  args[0] = v10;
  assert_int_equal(xfunc_resolve("upper", args, 1, &f, to, &res, &e), CZ_OK);
  assert_int_equal(to[0].t_id, TY_TEXT);
  assert_true(xfunc_exists("upper"));
  assert_false(xfunc_exists("no_such_function"));
}

static int my_answer(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)x;
  (void)e;
  out->d_i64 = a[0].d_null ? -1 : a[0].d_i64 * 2;
  return CZ_OK;
}

/* A vectored definition: negates an int8 vector over the selection. */
static int my_vec_negate(xctx_t *c, const xnode_t *x, vec_t *const *args, const int *sel, int nsel,
                         vec_t *out, err_t *e)
{
  (void)c;
  (void)x;
  (void)e;
  for (int k = 0; k < nsel; k++) {
    int i = sel ? sel[k] : k;
    out->v_null[i] = args[0]->v_null[i];
    out->v_i64[i] = -args[0]->v_i64[i];
  }
  return CZ_OK;
}

static const xfunc_def_t my_vec_defs[] = {
  {.fd_name = "cz_test_negate", .fd_nargs = 1, .fd_args = {TY_INT8}, .fd_result = TY_INT8,
   .fd_vec = my_vec_negate},
};

static const xfunc_def_t my_defs[] = {
  {.fd_name = "cz_test_double", .fd_nargs = 1, .fd_args = {TY_INT8}, .fd_result = TY_INT8,
   .fd_row = my_answer},
};

static void test_register_api(void **state)
{
  (void)state;
  err_t e;
  assert_int_equal(xfunc_register(my_defs, 1, &e), CZ_OK);
  assert_string_equal(F1("cz_test_double", tx_i(TY_INT4, 21)), "42");
  assert_string_equal(F1("cz_test_double", tx_null(TY_INT8)), "-1"); /* not strict */
  assert_int_equal(xfunc_register(my_defs, 1, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "42723");
  /* A vectored function over a batch with a selection. */
  assert_int_equal(xfunc_register(my_vec_defs, 1, &e), CZ_OK);
  ty_t t8 = ty_plain(TY_INT8);
  batch_t *b = batch_create(tx_arena, 1, &t8, 4, &e);
  b->b_n = 4;
  for (int i = 0; i < 4; i++)
    b->b_cols[0].v_i64[i] = i + 1;
  b->b_cols[0].v_null[2] = 1;
  xnode_t *x = tx_fn("cz_test_negate", 1, (xnode_t *[]){tx_col(0, t8)});
  assert_non_null(x);
  xctx_t c = tx_ctx();
  vec_t out;
  vec_init(&out, tx_arena, x->x_type, 4, &e);
  int sel[] = {1, 2, 3};
  assert_int_equal(xeval(&c, x, b, sel, 3, &out, &e), CZ_OK);
  assert_int_equal(out.v_i64[1], -2);
  assert_int_equal(out.v_null[2], 1);
  assert_int_equal(out.v_i64[3], -4);
  assert_int_equal(out.v_i64[0], 0); /* not selected: untouched */
  /* Malformed definitions are refused. */
  static const xfunc_def_t bad[] = {{.fd_name = "cz_test_bad", .fd_nargs = 1}};
  assert_int_equal(xfunc_register(bad, 1, &e), CZ_ERR);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_math),
      cmocka_unit_test(test_strings),
      cmocka_unit_test(test_conditionals),
      cmocka_unit_test(test_time_functions),
      cmocka_unit_test(test_resolution_errors),
      cmocka_unit_test(test_register_api),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
