/* test_expr_types — the type rules (operator resolution, common types,
 * allowed casts, aggregates) and casts with PostgreSQL's semantics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

static ty_t T(ty_id_t id)
{
  return ty_plain(id);
}

/* The result type id of l op r, or -1 with the SQLSTATE in *state. */
static int res_of(xop_t op, ty_id_t l, ty_id_t r, ty_id_t *lto, ty_id_t *rto, char *sqlstate)
{
  ty_t a, b, res, rt = T(r);
  err_t e;
  if (xop_resolve(op, T(l), &rt, &a, &b, &res, &e) != CZ_OK) {
    strcpy(sqlstate, e.er_sqlstate);
    return -1;
  }
  if (lto)
    *lto = a.t_id;
  if (rto)
    *rto = b.t_id;
  return (int)res.t_id;
}

static void test_numeric_promotion(void **state)
{
  (void)state;
  char ss[6];
  ty_id_t l, r;
  assert_int_equal(res_of(XOP_ADD, TY_INT2, TY_INT2, NULL, NULL, ss), TY_INT2);
  assert_int_equal(res_of(XOP_ADD, TY_INT2, TY_INT4, &l, &r, ss), TY_INT4);
  assert_int_equal(l, TY_INT4);
  assert_int_equal(res_of(XOP_MUL, TY_INT4, TY_INT8, NULL, NULL, ss), TY_INT8);
  assert_int_equal(res_of(XOP_DIV, TY_INT4, TY_NUMERIC, &l, &r, ss), TY_NUMERIC);
  assert_int_equal(l, TY_NUMERIC);
  assert_int_equal(res_of(XOP_ADD, TY_INT4, TY_FLOAT4, NULL, NULL, ss), TY_FLOAT8);
  assert_int_equal(res_of(XOP_ADD, TY_FLOAT4, TY_FLOAT4, NULL, NULL, ss), TY_FLOAT4);
  assert_int_equal(res_of(XOP_ADD, TY_NUMERIC, TY_FLOAT8, NULL, NULL, ss), TY_FLOAT8);
  assert_int_equal(res_of(XOP_ADD, TY_UNKNOWN, TY_INT8, &l, &r, ss), TY_INT8);
  assert_int_equal(l, TY_INT8);
  assert_int_equal(res_of(XOP_MOD, TY_FLOAT8, TY_FLOAT8, NULL, NULL, ss), -1);
  assert_string_equal(ss, "42883");
  assert_int_equal(res_of(XOP_ADD, TY_TEXT, TY_INT4, NULL, NULL, ss), -1);
  assert_string_equal(ss, "42883");
  assert_int_equal(res_of(XOP_ADD, TY_DATE, TY_INT4, NULL, NULL, ss), TY_DATE);
  assert_int_equal(res_of(XOP_SUB, TY_DATE, TY_DATE, NULL, NULL, ss), TY_INT4);
}

static void test_comparison_and_string_rules(void **state)
{
  (void)state;
  char ss[6];
  ty_id_t l, r;
  assert_int_equal(res_of(XOP_EQ, TY_INT4, TY_NUMERIC, &l, &r, ss), TY_BOOL);
  assert_int_equal(l, TY_NUMERIC);
  assert_int_equal(res_of(XOP_LT, TY_VARCHAR, TY_CHAR, &l, &r, ss), TY_BOOL);
  assert_int_equal(l, TY_TEXT);
  assert_int_equal(r, TY_TEXT);
  assert_int_equal(res_of(XOP_EQ, TY_DATE, TY_TIMESTAMP, &l, &r, ss), TY_BOOL);
  assert_int_equal(l, TY_TIMESTAMP);
  assert_int_equal(res_of(XOP_EQ, TY_UNKNOWN, TY_DATE, &l, &r, ss), TY_BOOL);
  assert_int_equal(l, TY_DATE);
  assert_int_equal(res_of(XOP_EQ, TY_UNKNOWN, TY_UNKNOWN, &l, &r, ss), TY_BOOL);
  assert_int_equal(l, TY_TEXT);
  assert_int_equal(res_of(XOP_EQ, TY_INT4, TY_TEXT, NULL, NULL, ss), -1);
  assert_string_equal(ss, "42883");
  assert_int_equal(res_of(XOP_CONCAT, TY_TEXT, TY_INT4, &l, &r, ss), TY_TEXT);
  assert_int_equal(r, TY_TEXT);
  assert_int_equal(res_of(XOP_CONCAT, TY_INT4, TY_INT4, NULL, NULL, ss), -1);
  assert_int_equal(res_of(XOP_CONCAT, TY_BYTEA, TY_BYTEA, NULL, NULL, ss), TY_BYTEA);
  assert_int_equal(res_of(XOP_LIKE, TY_VARCHAR, TY_UNKNOWN, &l, &r, ss), TY_BOOL);
  assert_int_equal(r, TY_TEXT);
  assert_int_equal(res_of(XOP_AND, TY_BOOL, TY_INT4, NULL, NULL, ss), -1);
  assert_string_equal(ss, "42804");
}

static void test_common_type(void **state)
{
  (void)state;
  ty_t in[3], out;
  err_t e;
  in[0] = T(TY_INT4);
  in[1] = T(TY_NUMERIC);
  in[2] = T(TY_UNKNOWN);
  assert_int_equal(xtype_common(in, 3, &out, &e), CZ_OK);
  assert_int_equal(out.t_id, TY_NUMERIC);
  in[0] = T(TY_UNKNOWN);
  in[1] = T(TY_UNKNOWN);
  assert_int_equal(xtype_common(in, 2, &out, &e), CZ_OK);
  assert_int_equal(out.t_id, TY_TEXT);
  ty_t v10 = {TY_VARCHAR, 10, -1, 0, TY_UNKNOWN}, v20 = {TY_VARCHAR, 20, -1, 0, TY_UNKNOWN};
  in[0] = v10;
  in[1] = v10;
  assert_int_equal(xtype_common(in, 2, &out, &e), CZ_OK);
  assert_int_equal(out.t_len, 10);
  in[1] = v20;
  assert_int_equal(xtype_common(in, 2, &out, &e), CZ_OK);
  assert_int_equal(out.t_id, TY_VARCHAR);
  assert_int_equal(out.t_len, -1);
  in[1] = T(TY_TEXT);
  assert_int_equal(xtype_common(in, 2, &out, &e), CZ_OK);
  assert_int_equal(out.t_id, TY_TEXT);
  /* An untyped literal among them drops the modifiers, as in PostgreSQL. */
  in[1] = T(TY_UNKNOWN);
  assert_int_equal(xtype_common(in, 2, &out, &e), CZ_OK);
  assert_int_equal(out.t_id, TY_VARCHAR);
  assert_int_equal(out.t_len, -1);
  in[0] = T(TY_INT4);
  in[1] = T(TY_TEXT);
  assert_int_equal(xtype_common(in, 2, &out, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "42804");
}

static void test_cast_rules(void **state)
{
  (void)state;
  assert_true(xcast_implicit(T(TY_INT4), T(TY_INT8)));
  assert_false(xcast_implicit(T(TY_INT8), T(TY_INT4)));
  assert_true(xcast_implicit(T(TY_NUMERIC), T(TY_FLOAT8)));
  assert_false(xcast_implicit(T(TY_INT4), T(TY_TEXT)));
  assert_true(xcast_allowed(T(TY_NUMERIC), T(TY_INT4), false));   /* assignment */
  assert_true(xcast_allowed(T(TY_INT4), T(TY_TEXT), false));
  assert_false(xcast_allowed(T(TY_TEXT), T(TY_INT4), false));
  assert_true(xcast_allowed(T(TY_TEXT), T(TY_INT4), true));
  assert_true(xcast_allowed(T(TY_BOOL), T(TY_INT4), true));
  assert_false(xcast_allowed(T(TY_DATE), T(TY_INT4), true));
  assert_false(xcast_allowed(T(TY_BYTEA), T(TY_INT4), true));
}

static const char *cast(ty_t from, const char *text, ty_t to, bool explicit_cast)
{
  xnode_t *c = tx_t(from, text);
  return tx_eval_text(tx_cast(c, to, explicit_cast));
}

static void test_casts_follow_postgres(void **state)
{
  (void)state;
  ty_t num = T(TY_NUMERIC), i4 = T(TY_INT4), i2 = T(TY_INT2), f8 = T(TY_FLOAT8), tx = T(TY_TEXT);
  assert_string_equal(cast(num, "2.5", i4, true), "3");     /* half away from zero */
  assert_string_equal(cast(num, "-2.5", i4, true), "-3");
  assert_string_equal(cast(f8, "2.5", i4, true), "2");      /* half to even */
  assert_string_equal(cast(f8, "3.5", i4, true), "4");
  assert_string_equal(cast(f8, "-0.5", i4, true), "0");
  assert_string_equal(cast(f8, "1e10", i4, true), "ERR 22003");
  assert_string_equal(cast(f8, "NaN", i4, true), "ERR 22003");
  assert_string_equal(cast(i4, "40000", i2, true), "ERR 22003");
  assert_string_equal(cast(num, "3000000000", i4, true), "ERR 22003");
  assert_string_equal(cast(tx, "abc", i4, true), "ERR 22P02");
  assert_string_equal(cast(tx, " 12 ", i4, true), "12");
  assert_string_equal(cast(tx, "99999999999", i4, true), "ERR 22003");
  ty_t v3 = {TY_VARCHAR, 3, -1, 0, TY_UNKNOWN}, c3 = {TY_CHAR, 3, -1, 0, TY_UNKNOWN}, n52 = {TY_NUMERIC, -1, 5, 2, TY_UNKNOWN};
  assert_string_equal(cast(tx, "abcd", v3, false), "ERR 22001");
  assert_string_equal(cast(tx, "abcd", v3, true), "abc");
  assert_string_equal(cast(tx, "ab", c3, false), "ab ");
  assert_string_equal(cast(c3, "ab", tx, false), "ab");
  assert_string_equal(cast(T(TY_BOOL), "t", tx, true), "true");
  assert_string_equal(cast(T(TY_INT4), "7", T(TY_BOOL), true), "t");
  assert_string_equal(cast(T(TY_BOOL), "t", i4, true), "1");
  assert_string_equal(cast(f8, "0.1", num, true), "0.1");
  assert_string_equal(cast(T(TY_FLOAT4), "0.1", f8, true), "0.10000000149011612");
  assert_string_equal(cast(T(TY_FLOAT4), "0.1", num, true), "0.1");
  assert_string_equal(cast(f8, "1e300", T(TY_FLOAT4), true), "ERR 22003");
  assert_string_equal(cast(num, "123.456", n52, false), "123.46");
  assert_string_equal(cast(num, "1234.5", n52, false), "ERR 22003");
  assert_string_equal(cast(T(TY_DATE), "2020-05-06", T(TY_TIMESTAMP), false), "2020-05-06 00:00:00");
  assert_string_equal(cast(T(TY_TIMESTAMP), "1999-12-31 23:59:59", T(TY_DATE), false),
                      "1999-12-31");
  assert_string_equal(cast(T(TY_TIMESTAMP), "1969-07-20 20:17:40", T(TY_DATE), false),
                      "1969-07-20");
  assert_string_equal(cast(num, "1.5", tx, true), "1.5");
  assert_string_equal(cast(f8, "1e20", tx, true), "1e+20");
  assert_string_equal(cast(tx, "\\x41", T(TY_BYTEA), true), "\\x41");
  assert_string_equal(cast(T(TY_DATE), "2020-01-01", i4, true), "ERR 42846");
  /* Scalar form for INSERT: assignment semantics. */
  datum_t in = {.d_str = {"hello", 5}}, out;
  err_t e;
  assert_int_equal(xcast_datum(tx, &in, v3, tx_arena, &out, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22001");
  assert_int_equal(xcast_datum_ex(tx, &in, v3, true, tx_arena, &out, &e), CZ_OK);
  assert_int_equal(out.d_str.s_len, 3);
}

static void test_aggregate_types(void **state)
{
  (void)state;
  xagg_t agg;
  ty_t to[2], res;
  err_t e;
  ty_t args[2];
  assert_true(xagg_is_aggregate("sum"));
  assert_true(xagg_is_aggregate("count"));
  assert_false(xagg_is_aggregate("abs"));
  assert_int_equal(xagg_resolve("count", true, NULL, 0, &agg, to, &res, &e), CZ_OK);
  assert_int_equal(agg, XAGG_COUNT_STAR);
  assert_int_equal(res.t_id, TY_INT8);
  static const struct {
    const char *name;
    ty_id_t arg, result;
  } cases[] = {
      {"count", TY_TEXT, TY_INT8},      {"sum", TY_INT2, TY_INT8},       {"sum", TY_INT4, TY_INT8},
      {"sum", TY_INT8, TY_NUMERIC},     {"sum", TY_NUMERIC, TY_NUMERIC}, {"sum", TY_FLOAT8, TY_FLOAT8},
      {"sum", TY_FLOAT4, TY_FLOAT4},    {"avg", TY_INT4, TY_NUMERIC},    {"avg", TY_INT8, TY_NUMERIC},
      {"avg", TY_FLOAT4, TY_FLOAT8},    {"avg", TY_NUMERIC, TY_NUMERIC}, {"min", TY_DATE, TY_DATE},
      {"max", TY_VARCHAR, TY_TEXT},     {"bool_and", TY_BOOL, TY_BOOL},  {"every", TY_BOOL, TY_BOOL},
  };
  for (size_t i = 0; i < CZ_ARRAY_LEN(cases); i++) {
    args[0] = T(cases[i].arg);
    assert_int_equal(xagg_resolve(cases[i].name, false, args, 1, &agg, to, &res, &e), CZ_OK);
    assert_int_equal(res.t_id, cases[i].result);
  }
  args[0] = T(TY_TEXT);
  assert_int_equal(xagg_resolve("sum", false, args, 1, &agg, to, &res, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "42883");
  args[1] = T(TY_UNKNOWN);
  assert_int_equal(xagg_resolve("string_agg", false, args, 2, &agg, to, &res, &e), CZ_OK);
  assert_int_equal(agg, XAGG_STRING_AGG);
  assert_int_equal(to[1].t_id, TY_TEXT);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numeric_promotion),
      cmocka_unit_test(test_comparison_and_string_rules),
      cmocka_unit_test(test_common_type),
      cmocka_unit_test(test_cast_rules),
      cmocka_unit_test(test_casts_follow_postgres),
      cmocka_unit_test(test_aggregate_types),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
