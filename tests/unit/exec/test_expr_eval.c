/* test_expr_eval — vectored evaluation: batches with NULLs and selection
 * vectors, three-valued logic, CASE/COALESCE/AND laziness, comparisons,
 * LIKE, IN lists, IS DISTINCT FROM, arithmetic errors, filters,
 * subqueries and cancellation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cz_test.h"
#include "expr_test_util.h"
#include "exec/ex_int.h"

#define NROWS 8
static batch_t *tb;

/* Columns: 0 a int4, 1 b int4, 2 s text, 3 f float8, 4 p bool, 5 n numeric. */
static const int64_t col_a[NROWS] = {1, 2, 0, 4, 5, 6, 7, -8};
static const int a_null[NROWS] = {0, 0, 1, 0, 0, 0, 0, 0};
static const int64_t col_b[NROWS] = {1, 0, 3, 0, 5, 0, 7, 2};
static const int b_null[NROWS] = {0, 0, 0, 1, 0, 0, 0, 0};
static const char *const col_s[NROWS] = {"apple", "Banana", NULL, "cherry", "a%b", "", "date", "APPLE"};
static const double col_f[NROWS] = {1.5, -2.0, 0.0, 1e300, 3.25, 0.5, 7.0, -0.0};
static const int col_p[NROWS] = {1, 0, -1, 1, 0, -1, 1, 0};

static int setup(void **state)
{
  (void)state;
  tx_arena = arena_create(NULL, "test");
  ty_t types[6] = {ty_plain(TY_INT4), ty_plain(TY_INT4), ty_plain(TY_TEXT),
                   ty_plain(TY_FLOAT8), ty_plain(TY_BOOL), ty_plain(TY_NUMERIC)};
  err_t e;
  tb = batch_create(tx_arena, 6, types, NROWS, &e);
  tb->b_n = NROWS;
  for (int i = 0; i < NROWS; i++) {
    tb->b_cols[0].v_i64[i] = a_null[i] ? 123456 : col_a[i]; /* junk under NULL */
    tb->b_cols[0].v_null[i] = (uint8_t)a_null[i];
    tb->b_cols[1].v_i64[i] = col_b[i];
    tb->b_cols[1].v_null[i] = (uint8_t)b_null[i];
    if (col_s[i]) {
      tb->b_cols[2].v_str[i].s_ptr = col_s[i];
      tb->b_cols[2].v_str[i].s_len = (uint32_t)strlen(col_s[i]);
    } else {
      tb->b_cols[2].v_null[i] = 1;
    }
    tb->b_cols[3].v_f64[i] = col_f[i];
    tb->b_cols[4].v_bool[i] = col_p[i] > 0;
    tb->b_cols[4].v_null[i] = col_p[i] < 0;
    tb->b_cols[5].v_num[i].n_val = col_a[i] * 10 + 5; /* a.5 */
    tb->b_cols[5].v_num[i].n_scale = 1;
  }
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  arena_destroy(tx_arena);
  return 0;
}

#define A tx_col(0, ty_plain(TY_INT4))
#define B tx_col(1, ty_plain(TY_INT4))
#define S tx_col(2, ty_plain(TY_TEXT))
#define F tx_col(3, ty_plain(TY_FLOAT8))
#define P tx_col(4, ty_plain(TY_BOOL))
#define NUMC tx_col(5, ty_plain(TY_NUMERIC))

/* Evaluates x over the batch (sel may be NULL) into a fresh vector. */
static int run(const xnode_t *x, const int *sel, int nsel, vec_t *out, err_t *e)
{
  xctx_t c = tx_ctx();
  vec_init(out, tx_arena, x->x_type, NROWS, e);
  /* Poison so that a row the evaluator should not touch is visible. */
  for (int i = 0; i < NROWS; i++)
    out->v_null[i] = 7;
  return xeval(&c, x, tb, sel, nsel, out, e);
}

static void test_arith_with_nulls_and_selection(void **state)
{
  (void)state;
  vec_t out;
  err_t e;
  int sel[] = {0, 2, 4, 7};
  assert_int_equal(run(tx_op(XOP_ADD, A, B), sel, 4, &out, &e), CZ_OK);
  assert_int_equal(out.v_null[0], 0);
  assert_int_equal(out.v_i64[0], 2);
  assert_int_equal(out.v_null[2], 1); /* NULL + 3 */
  assert_int_equal(out.v_i64[4], 10);
  assert_int_equal(out.v_i64[7], -6);
  assert_int_equal(out.v_null[1], 7); /* not selected: untouched */
  assert_int_equal(out.v_null[3], 7);
  /* Constant on either side, and a negative constant subtraction. */
  assert_int_equal(run(tx_op(XOP_SUB, tx_i(TY_INT4, 10), A), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_i64[0], 9);
  assert_int_equal(out.v_i64[7], 18);
  assert_int_equal(out.v_null[2], 1);
  assert_int_equal(run(tx_op(XOP_MUL, A, tx_i(TY_INT4, 3)), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_i64[6], 21);
}

static void test_integer_division_truncates_and_zero_is_22012(void **state)
{
  (void)state;
  vec_t out;
  err_t e;
  int sel[] = {0, 4, 6, 7};
  assert_int_equal(run(tx_op(XOP_DIV, A, B), sel, 4, &out, &e), CZ_OK);
  assert_int_equal(out.v_i64[7], -4);
  assert_int_equal(run(tx_op(XOP_DIV, tx_i(TY_INT4, -7), tx_i(TY_INT4, 2)), NULL, 0, &out, &e),
                   CZ_OK);
  assert_int_equal(out.v_i64[0], -3);
  assert_int_equal(run(tx_op(XOP_MOD, tx_i(TY_INT4, -7), tx_i(TY_INT4, 2)), NULL, 0, &out, &e),
                   CZ_OK);
  assert_int_equal(out.v_i64[0], -1);
  /* Row 1 has b = 0: an error only when row 1 is evaluated. */
  assert_int_equal(run(tx_op(XOP_DIV, A, B), NULL, 0, &out, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22012");
  assert_string_equal(e.er_msg, "division by zero");
  /* Row 3 (b NULL) divides nothing. */
  int sel3[] = {3};
  assert_int_equal(run(tx_op(XOP_DIV, A, B), sel3, 1, &out, &e), CZ_OK);
  assert_int_equal(out.v_null[3], 1);
  assert_string_equal(tx_eval_text(tx_op(XOP_DIV, tx_f(1), tx_f(0))), "ERR 22012");
  assert_string_equal(
      tx_eval_text(tx_op(XOP_DIV, tx_t(ty_plain(TY_NUMERIC), "1"), tx_t(ty_plain(TY_NUMERIC), "0"))),
      "ERR 22012");
}

static void test_integer_overflow_is_22003(void **state)
{
  (void)state;
  err_t e;
  vec_t out;
  xnode_t *x = tx_op(XOP_ADD, tx_i(TY_INT4, 2147483647), tx_i(TY_INT4, 1));
  assert_int_equal(run(x, NULL, 0, &out, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22003");
  assert_string_equal(e.er_msg, "integer out of range");
  assert_string_equal(tx_eval_text(tx_op(XOP_MUL, tx_i(TY_INT8, INT64_MAX), tx_i(TY_INT8, 2))),
                      "ERR 22003");
  assert_string_equal(tx_eval_text(tx_op(XOP_NEG, tx_i(TY_INT8, INT64_MIN), NULL)), "ERR 22003");
  assert_string_equal(tx_eval_text(tx_op(XOP_DIV, tx_i(TY_INT8, INT64_MIN), tx_i(TY_INT8, -1))),
                      "ERR 22003");
  assert_string_equal(tx_eval_text(tx_op(XOP_ADD, tx_i(TY_INT2, 32767), tx_i(TY_INT2, 1))),
                      "ERR 22003");
  /* int2 + int4 works in int4 */
  assert_string_equal(tx_eval_text(tx_op(XOP_ADD, tx_i(TY_INT2, 32767), tx_i(TY_INT4, 1))), "32768");
  assert_string_equal(tx_eval_text(tx_op(XOP_MUL, tx_f(1e300), tx_f(1e300))), "ERR 22003");
}

static void test_mixed_arithmetic_types(void **state)
{
  (void)state;
  assert_string_equal(tx_eval_text(tx_op(XOP_ADD, tx_i(TY_INT4, 1), tx_t(ty_plain(TY_NUMERIC), "2.50"))),
                      "3.50");
  assert_string_equal(tx_eval_text(tx_op(XOP_DIV, tx_i(TY_INT4, 1), tx_t(ty_plain(TY_NUMERIC), "3"))),
                      "0.33333333333333333333");
  assert_string_equal(tx_eval_text(tx_op(XOP_ADD, tx_i(TY_INT4, 1), tx_f(0.5))), "1.5");
  assert_string_equal(tx_eval_text(tx_op(XOP_MUL, tx_f(0.1), tx_i(TY_INT4, 3))),
                      "0.30000000000000004");
  assert_string_equal(
      tx_eval_text(tx_op(XOP_SUB, tx_t(ty_plain(TY_DATE), "2020-03-01"), tx_i(TY_INT4, 1))),
      "2020-02-29");
  assert_string_equal(tx_eval_text(tx_op(XOP_SUB, tx_t(ty_plain(TY_DATE), "2020-03-01"),
                                         tx_t(ty_plain(TY_DATE), "2020-01-01"))),
                      "60");
  assert_string_equal(tx_eval_text(tx_op(XOP_MOD, tx_t(ty_plain(TY_NUMERIC), "5.5"), tx_i(TY_INT4, 2))),
                      "1.5");
}

/* AND, OR, NOT over {TRUE, FALSE, NULL}² against SQL's truth tables. */
static void test_three_valued_logic(void **state)
{
  (void)state;
  static const char *const and_t[3][3] = {{"t", "f", "NULL"}, {"f", "f", "f"}, {"NULL", "f", "NULL"}};
  static const char *const or_t[3][3] = {{"t", "t", "t"}, {"t", "f", "NULL"}, {"t", "NULL", "NULL"}};
  int v[3] = {1, 0, -1};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      assert_string_equal(tx_eval_text(tx_op(XOP_AND, tx_b(v[i]), tx_b(v[j]))), and_t[i][j]);
      assert_string_equal(tx_eval_text(tx_op(XOP_OR, tx_b(v[i]), tx_b(v[j]))), or_t[i][j]);
    }
  assert_string_equal(tx_eval_text(tx_op(XOP_NOT, tx_b(1), NULL)), "f");
  assert_string_equal(tx_eval_text(tx_op(XOP_NOT, tx_b(-1), NULL)), "NULL");
  assert_string_equal(tx_eval_text(tx_op(XOP_IS_TRUE, tx_b(-1), NULL)), "f");
  assert_string_equal(tx_eval_text(tx_op(XOP_IS_NOT_TRUE, tx_b(-1), NULL)), "t");
  assert_string_equal(tx_eval_text(tx_op(XOP_IS_FALSE, tx_b(0), NULL)), "t");
  assert_string_equal(tx_eval_text(tx_op(XOP_IS_NOT_FALSE, tx_b(-1), NULL)), "t");
  assert_string_equal(tx_eval_text(tx_op(XOP_IS_NULL, tx_null(TY_INT4), NULL)), "t");
  assert_string_equal(tx_eval_text(tx_op(XOP_IS_NOT_NULL, tx_i(TY_INT4, 1), NULL)), "t");
  /* Over a column: p AND (a > 3) with NULLs in both. */
  vec_t out;
  err_t e;
  assert_int_equal(run(tx_op(XOP_AND, P, tx_op(XOP_GT, A, tx_i(TY_INT4, 3))), NULL, 0, &out, &e),
                   CZ_OK);
  assert_int_equal(out.v_bool[0], 0);   /* t and f */
  assert_int_equal(out.v_bool[1], 0);   /* f */
  assert_int_equal(out.v_null[2], 1);   /* NULL and NULL */
  assert_int_equal(out.v_bool[3], 1);   /* t and t */
  assert_int_equal(out.v_null[5], 1);   /* NULL and t */
  assert_int_equal(out.v_null[5], 1);
}

/* The same tables over vectors: every (l, r) pair is one row, for the
 * branch-free path (safe right side) and the lazy one (right side that
 * could fail, here a comparison over a division). */
static void test_three_valued_logic_vectors(void **state)
{
  (void)state;
  ty_t bt[2] = {ty_plain(TY_BOOL), ty_plain(TY_INT4)};
  err_t e;
  batch_t *b = batch_create(tx_arena, 2, bt, 9, &e);
  b->b_n = 9;
  int v[3] = {1, 0, -1};
  for (int i = 0; i < 9; i++) {
    b->b_cols[0].v_null[i] = v[i / 3] < 0;
    b->b_cols[0].v_bool[i] = v[i / 3] > 0;
    b->b_cols[1].v_null[i] = v[i % 3] < 0;
    b->b_cols[1].v_i64[i] = v[i % 3] > 0 ? 1 : 0;
  }
  xnode_t *l = tx_col(0, bt[0]), *ri = tx_col(1, bt[1]);
  xnode_t *safe_r = tx_op(XOP_EQ, ri, tx_i(TY_INT4, 1));
  xnode_t *lazy_r = tx_op(XOP_EQ, tx_op(XOP_DIV, ri, tx_i(TY_INT4, 1)), tx_i(TY_INT4, 1));
  static const int and_t[9] = {1, 0, -1, 0, 0, 0, -1, 0, -1};
  static const int or_t[9] = {1, 1, 1, 1, 0, -1, 1, -1, -1};
  for (int pass = 0; pass < 4; pass++) {
    xop_t op = pass % 2 ? XOP_OR : XOP_AND;
    const int *want = pass % 2 ? or_t : and_t;
    xnode_t *x = tx_op(op, l, pass < 2 ? safe_r : lazy_r);
    xctx_t c = tx_ctx();
    vec_t out;
    vec_init(&out, tx_arena, x->x_type, 9, &e);
    assert_int_equal(xeval(&c, x, b, NULL, 0, &out, &e), CZ_OK);
    for (int i = 0; i < 9; i++) {
      int got = out.v_null[i] ? -1 : out.v_bool[i];
      assert_int_equal(got, want[i]);
    }
  }
}

static void test_and_skips_right_side_where_left_false(void **state)
{
  (void)state;
  vec_t out;
  err_t e;
  /* b <> 0 AND a / b > 0: never divides by zero. */
  xnode_t *x = tx_op(XOP_AND, tx_op(XOP_NE, B, tx_i(TY_INT4, 0)),
                     tx_op(XOP_GT, tx_op(XOP_DIV, A, B), tx_i(TY_INT4, 0)));
  assert_int_equal(run(x, NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_bool[1], 0);
  assert_int_equal(out.v_bool[0], 1);
  assert_int_equal(out.v_null[3], 1); /* b NULL: NULL AND (NULL) */
  assert_int_equal(out.v_bool[7], 0); /* -8 / 2 > 0 is false */
}

static void test_case_is_lazy(void **state)
{
  (void)state;
  vec_t out;
  err_t e;
  /* CASE WHEN b <> 0 THEN a / b ELSE -1 END */
  xnode_t *args[3] = {tx_op(XOP_NE, B, tx_i(TY_INT4, 0)), tx_op(XOP_DIV, A, B), tx_i(TY_INT4, -1)};
  xnode_t *x = tx_args(tx_node(X_CASE, ty_plain(TY_INT4)), 3, args);
  x->x_has_else = true;
  assert_int_equal(run(x, NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_i64[0], 1);
  assert_int_equal(out.v_i64[1], -1);
  assert_int_equal(out.v_null[2], 1);   /* NULL / 3 */
  assert_int_equal(out.v_i64[3], -1);   /* b NULL: condition NULL -> ELSE */
  assert_int_equal(out.v_i64[5], -1);
  assert_int_equal(out.v_i64[7], -4);
  /* Without ELSE: NULL; with a selection. */
  xnode_t *y = tx_args(tx_node(X_CASE, ty_plain(TY_INT4)), 2, args);
  int sel[] = {1, 4};
  assert_int_equal(run(y, sel, 2, &out, &e), CZ_OK);
  assert_int_equal(out.v_null[1], 1);
  assert_int_equal(out.v_i64[4], 1);
  assert_int_equal(out.v_null[0], 7);
  /* Several WHENs: the first true one wins. */
  xnode_t *w[5] = {tx_op(XOP_GT, A, tx_i(TY_INT4, 4)), tx_s("big"),
                   tx_op(XOP_GT, A, tx_i(TY_INT4, 1)), tx_s("mid"), tx_s("small")};
  xnode_t *z = tx_args(tx_node(X_CASE, ty_plain(TY_TEXT)), 5, w);
  z->x_has_else = true;
  assert_int_equal(run(z, NULL, 0, &out, &e), CZ_OK);
  assert_memory_equal(out.v_str[0].s_ptr, "small", 5);
  assert_memory_equal(out.v_str[1].s_ptr, "mid", 3);
  assert_memory_equal(out.v_str[2].s_ptr, "small", 5); /* a NULL */
  assert_memory_equal(out.v_str[5].s_ptr, "big", 3);
}

static void test_coalesce_is_lazy(void **state)
{
  (void)state;
  vec_t out;
  err_t e;
  /* coalesce(a, 100 / b): b is 0 in rows 1 and 5 but a is not NULL there. */
  xnode_t *args[2] = {A, tx_op(XOP_DIV, tx_i(TY_INT4, 100), B)};
  xnode_t *x = tx_fn("coalesce", 2, args);
  assert_non_null(x);
  assert_int_equal(run(x, NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_i64[1], 2);
  assert_int_equal(out.v_i64[2], 33);
  xnode_t *n3[3] = {tx_null(TY_INT4), tx_null(TY_INT4), tx_i(TY_INT8, 5)};
  assert_string_equal(tx_eval_text(tx_fn("coalesce", 3, n3)), "5");
}

static void test_comparisons(void **state)
{
  (void)state;
  vec_t out;
  err_t e;
  assert_int_equal(run(tx_op(XOP_LT, tx_i(TY_INT4, 4), A), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_bool[3], 0);
  assert_int_equal(out.v_bool[4], 1);
  assert_int_equal(out.v_null[2], 1);
  assert_int_equal(run(tx_op(XOP_GE, F, tx_i(TY_INT4, 1)), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_bool[0], 1);
  assert_int_equal(out.v_bool[1], 0);
  assert_int_equal(run(tx_op(XOP_EQ, S, tx_s("apple")), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_bool[0], 1);
  assert_int_equal(out.v_bool[7], 0);
  assert_int_equal(out.v_null[2], 1);
  assert_int_equal(run(tx_op(XOP_GT, NUMC, tx_i(TY_INT4, 5)), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_bool[3], 0); /* 4.5 */
  assert_int_equal(out.v_bool[4], 1); /* 5.5 */
  assert_string_equal(tx_eval_text(tx_op(XOP_EQ, tx_f(0.0 / 0.0), tx_f(0.0 / 0.0))), "t");
  assert_string_equal(tx_eval_text(tx_op(XOP_LT, tx_f(1e308), tx_f(0.0 / 0.0))), "t");
  assert_string_equal(tx_eval_text(tx_op(XOP_EQ, tx_i(TY_INT4, 1), tx_null(TY_INT4))), "NULL");
  /* Untyped literal adopts the column's type. */
  xnode_t *lit = tx_node(X_CONST, ty_plain(TY_UNKNOWN));
  lit->x_const.d_str.s_ptr = "4";
  lit->x_const.d_str.s_len = 1;
  assert_int_equal(run(tx_op(XOP_EQ, A, lit), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_bool[3], 1);
  assert_int_equal(out.v_bool[0], 0);
  /* A computed string column with a NULL: the value under the NULL is
   * never read (temporaries are not zeroed; ASan fills them with junk). */
  xnode_t *up = tx_fn("upper", 1, (xnode_t *[]){S});
  assert_int_equal(run(tx_op(XOP_EQ, up, tx_s("APPLE")), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_bool[0], 1);
  assert_int_equal(out.v_bool[7], 1);
  assert_int_equal(out.v_null[2], 1);
  assert_int_equal(run(tx_op(XOP_LT, up, tx_s("B")), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_bool[0], 1);
  assert_int_equal(out.v_bool[3], 0);
  assert_int_equal(out.v_null[2], 1);
  assert_int_equal(run(tx_op(XOP_LIKE, tx_op(XOP_CONCAT, up, tx_s("x")), tx_s("%Ex")), NULL, 0, &out, &e),
                   CZ_OK);
  assert_int_equal(out.v_bool[0], 1);
  assert_int_equal(out.v_null[2], 1);
  assert_int_equal(run(tx_fn("length", 1, (xnode_t *[]){up}), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_i64[1], 6);
  assert_int_equal(out.v_null[2], 1);
  /* CHAR compares without its padding. */
  ty_t c5 = {TY_CHAR, 5, -1, 0, TY_UNKNOWN};
  assert_string_equal(tx_eval_text(tx_op(XOP_EQ, tx_t(c5, "ab"), tx_s("ab"))), "t");
}

static void test_is_distinct_from(void **state)
{
  (void)state;
  assert_string_equal(tx_eval_text(tx_op(XOP_IS_DISTINCT, tx_null(TY_INT4), tx_null(TY_INT4))), "f");
  assert_string_equal(tx_eval_text(tx_op(XOP_IS_DISTINCT, tx_i(TY_INT4, 1), tx_null(TY_INT4))), "t");
  assert_string_equal(tx_eval_text(tx_op(XOP_IS_DISTINCT, tx_i(TY_INT4, 1), tx_i(TY_INT4, 1))), "f");
  assert_string_equal(tx_eval_text(tx_op(XOP_IS_NOT_DISTINCT, tx_null(TY_INT4), tx_null(TY_INT4))),
                      "t");
  assert_string_equal(tx_eval_text(tx_op(XOP_IS_NOT_DISTINCT, tx_i(TY_INT4, 2), tx_null(TY_INT4))),
                      "f");
}

static const char *like(xop_t op, const char *s, const char *p)
{
  return tx_eval_text(tx_op(op, tx_s(s), tx_s(p)));
}

static void test_like(void **state)
{
  (void)state;
  assert_string_equal(like(XOP_LIKE, "abc", "a%"), "t");
  assert_string_equal(like(XOP_LIKE, "abc", "%c"), "t");
  assert_string_equal(like(XOP_LIKE, "abc", "%b%"), "t");
  assert_string_equal(like(XOP_LIKE, "abc", "_b_"), "t");
  assert_string_equal(like(XOP_LIKE, "abc", "__"), "f");
  assert_string_equal(like(XOP_LIKE, "abc", "ABC"), "f");
  assert_string_equal(like(XOP_ILIKE, "abc", "A_C"), "t");
  assert_string_equal(like(XOP_NOT_LIKE, "abc", "a%"), "f");
  assert_string_equal(like(XOP_NOT_ILIKE, "abc", "X%"), "t");
  assert_string_equal(like(XOP_LIKE, "a%b", "a\\%b"), "t");
  assert_string_equal(like(XOP_LIKE, "axb", "a\\%b"), "f");
  assert_string_equal(like(XOP_LIKE, "a_b", "a\\_b"), "t");
  assert_string_equal(like(XOP_LIKE, "", "%"), "t");
  assert_string_equal(like(XOP_LIKE, "", "_"), "f");
  assert_string_equal(like(XOP_LIKE, "\xc3\xa9t\xc3\xa9", "_t_"), "t"); /* é is one character */
  assert_string_equal(like(XOP_LIKE, "aaab", "%a%ab"), "t");
  assert_string_equal(like(XOP_ILIKE, "\xc3\x89t\xc3\xa9", "\xc3\xa9T%"), "t");
  assert_string_equal(like(XOP_LIKE, "mississippi", "%iss%ppi"), "t");
  assert_string_equal(like(XOP_LIKE, "mississippi", "%iss%pp"), "f");
  assert_string_equal(like(XOP_LIKE, "abcd", "abc\\"), "ERR 22025");
  assert_string_equal(like(XOP_LIKE, "abc", "abc\\"), "f"); /* never reached */
  vec_t out;
  err_t e;
  assert_int_equal(run(tx_op(XOP_ILIKE, S, tx_s("a%")), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_bool[0], 1);
  assert_int_equal(out.v_bool[1], 0);
  assert_int_equal(out.v_null[2], 1);
  assert_int_equal(out.v_bool[7], 1);
}

/* Every string of length < maxlen (at most 7) over alphabet into out
 * (NUL-terminated, one per 8 bytes); how many. */
static int all_strings(const char *alpha, int maxlen, char *out)
{
  int na = (int)strlen(alpha), n = 0;
  for (int len = 0; len < maxlen; len++) {
    int total = 1;
    for (int k = 0; k < len; k++)
      total *= na;
    for (int v = 0; v < total; v++, n++) {
      char *o = out + (size_t)n * 8;
      for (int k = 0, x = v; k < len; k++, x /= na)
        o[k] = alpha[x % na];
      o[len] = 0;
    }
  }
  return n;
}

/* A constant pattern without _ is matched by its literal pieces
 * (ex_strop.c, xe_like_plan): the same answers as the general matcher
 * for every pattern of up to 3 characters of a, b, %, _ and the escape
 * against every subject of up to 4 of a, b, %, _ (escaped % and _,
 * escaped escapes, a trailing escape, empty pieces, overlaps). */
static void test_like_pieces_agree(void **state)
{
  (void)state;
  static char pats[400 * 8], subs[400 * 8];
  int np = all_strings("ab%\\_", 4, pats), ns = all_strings("ab%_", 5, subs);
  for (int i = 0; i < np; i++) {
    const char *p = pats + (size_t)i * 8;
    for (int k = 0; k < ns; k++) {
      const char *s = subs + (size_t)k * 8;
      bool m = false;
      err_t e;
      int rc = xe_like_match(s, strlen(s), p, strlen(p), false, &m, &e);
      const char *want = rc != CZ_OK ? "ERR 22025" : m ? "t" : "f";
      const char *got = like(XOP_LIKE, s, p);
      if (strcmp(got, want) != 0)
        fail_msg("'%s' LIKE '%s': %s, the general matcher %s", s, p, got, want);
    }
  }
}

static xnode_t *in_list(bool not_in, xnode_t *lhs, int n, xnode_t **items)
{
  xnode_t *args[16];
  args[0] = lhs;
  for (int i = 0; i < n; i++)
    args[i + 1] = items[i];
  xnode_t *x = tx_args(tx_node(X_IN_LIST, ty_plain(TY_BOOL)), n + 1, args);
  x->x_not = not_in;
  return x;
}

static void test_in_list_3vl(void **state)
{
  (void)state;
  xnode_t *l1[3] = {tx_i(TY_INT4, 1), tx_i(TY_INT4, 2), tx_i(TY_INT4, 3)};
  xnode_t *l2[2] = {tx_i(TY_INT4, 1), tx_null(TY_INT4)};
  assert_string_equal(tx_eval_text(in_list(false, tx_i(TY_INT4, 2), 3, l1)), "t");
  assert_string_equal(tx_eval_text(in_list(false, tx_i(TY_INT4, 5), 3, l1)), "f");
  assert_string_equal(tx_eval_text(in_list(true, tx_i(TY_INT4, 5), 3, l1)), "t");
  assert_string_equal(tx_eval_text(in_list(false, tx_i(TY_INT4, 1), 2, l2)), "t");
  assert_string_equal(tx_eval_text(in_list(false, tx_i(TY_INT4, 5), 2, l2)), "NULL");
  assert_string_equal(tx_eval_text(in_list(true, tx_i(TY_INT4, 5), 2, l2)), "NULL");
  assert_string_equal(tx_eval_text(in_list(true, tx_i(TY_INT4, 1), 2, l2)), "f");
  assert_string_equal(tx_eval_text(in_list(false, tx_null(TY_INT4), 3, l1)), "NULL");
  /* Long constant lists take the sorted path: same 3VL answers. */
  xnode_t *many[10], *many_null[10];
  for (int i = 0; i < 10; i++) {
    many[i] = tx_i(TY_INT4, 100 - i * 11); /* 100, 89, ..., 1 */
    many_null[i] = i == 4 ? tx_null(TY_INT4) : many[i];
  }
  vec_t o2;
  err_t e2;
  assert_int_equal(run(in_list(false, A, 10, many), NULL, 0, &o2, &e2), CZ_OK);
  assert_int_equal(o2.v_bool[0], 1);  /* 1 */
  assert_int_equal(o2.v_bool[1], 0);  /* 2 */
  assert_int_equal(o2.v_null[2], 1);  /* NULL */
  assert_int_equal(run(in_list(true, A, 10, many_null), NULL, 0, &o2, &e2), CZ_OK);
  assert_int_equal(o2.v_bool[0], 0);  /* 1 NOT IN (...1...) */
  assert_int_equal(o2.v_null[1], 1);  /* 2 NOT IN (..., NULL) */
  xnode_t *words[9];
  const char *w[9] = {"date", "fig", "kiwi", "apple", "lime", "pear", "plum", "", "yuzu"};
  for (int i = 0; i < 9; i++)
    words[i] = tx_s(w[i]);
  assert_int_equal(run(in_list(false, S, 9, words), NULL, 0, &o2, &e2), CZ_OK);
  assert_int_equal(o2.v_bool[0], 1);
  assert_int_equal(o2.v_bool[1], 0);
  assert_int_equal(o2.v_null[2], 1);
  assert_int_equal(o2.v_bool[5], 1); /* empty string */
  assert_int_equal(o2.v_bool[7], 0); /* APPLE */
  xnode_t *ls[2] = {tx_s("date"), tx_s("apple")};
  vec_t out;
  err_t e;
  assert_int_equal(run(in_list(false, S, 2, ls), NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_bool[0], 1);
  assert_int_equal(out.v_bool[1], 0);
  assert_int_equal(out.v_null[2], 1);
  assert_int_equal(out.v_bool[6], 1);
}

static void test_filter_narrows_selection(void **state)
{
  (void)state;
  xctx_t c = tx_ctx();
  int out[NROWS], n;
  err_t e;
  /* a > 1 AND b <> 0 AND a / b >= 1 */
  xnode_t *x = tx_op(XOP_AND, tx_op(XOP_AND, tx_op(XOP_GT, A, tx_i(TY_INT4, 1)),
                                    tx_op(XOP_NE, B, tx_i(TY_INT4, 0))),
                     tx_op(XOP_GE, tx_op(XOP_DIV, A, B), tx_i(TY_INT4, 1)));
  assert_int_equal(xeval_filter(&c, x, tb, NULL, 0, out, &n, &e), CZ_OK);
  assert_int_equal(n, 2);
  assert_int_equal(out[0], 4);
  assert_int_equal(out[1], 6);
  int sel[] = {0, 1, 6};
  assert_int_equal(xeval_filter(&c, x, tb, sel, 3, out, &n, &e), CZ_OK);
  assert_int_equal(n, 1);
  assert_int_equal(out[0], 6);
  /* NULL is not TRUE. */
  assert_int_equal(xeval_filter(&c, P, tb, NULL, 0, out, &n, &e), CZ_OK);
  assert_int_equal(n, 3);
  assert_int_equal(out[2], 6);
  assert_int_equal(xeval_filter(&c, tx_b(0), tb, NULL, 0, out, &n, &e), CZ_OK);
  assert_int_equal(n, 0);
}

static void test_cancel_is_57014(void **state)
{
  (void)state;
  volatile bool cancel = true;
  xctx_t c = tx_ctx();
  c.xc_cancel = &cancel;
  vec_t out;
  err_t e;
  vec_init(&out, tx_arena, ty_plain(TY_INT4), NROWS, &e);
  assert_int_equal(xeval(&c, A, tb, NULL, 0, &out, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "57014");
}

/* A fake subquery: scalar returns the outer a * 10; IN is true when lhs is
 * even, NULL when odd and negative. */
static int fake_subq(void *qctx, void *subq, int kind, const batch_t *in, int row,
                     const datum_t *lhs, arena_t *a, datum_t *out, err_t *e)
{
  (void)qctx;
  (void)subq;
  (void)a;
  (void)e;
  memset(out, 0, sizeof(*out));
  if (kind == 0) {
    out->d_null = in->b_cols[0].v_null[row];
    out->d_i64 = in->b_cols[0].v_i64[row] * 10;
  } else if (kind == 2) {
    if (lhs->d_null || (lhs->d_i64 < 0 && lhs->d_i64 % 2))
      out->d_null = true;
    else
      out->d_bool = lhs->d_i64 % 2 == 0;
  } else {
    out->d_bool = row % 2 == 0;
  }
  return CZ_OK;
}

static void test_subquery_callback(void **state)
{
  (void)state;
  xctx_t c = tx_ctx();
  c.xc_subq = fake_subq;
  vec_t out;
  err_t e;
  xnode_t *sq = tx_node(X_SUBQ, ty_plain(TY_INT4));
  sq->x_subq_kind = 0;
  vec_init(&out, tx_arena, sq->x_type, NROWS, &e);
  assert_int_equal(xeval(&c, sq, tb, NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_i64[1], 20);
  assert_int_equal(out.v_null[2], 1);
  xnode_t *in = tx_node(X_SUBQ, ty_plain(TY_BOOL));
  xnode_t *lhs = A;
  in->x_subq_kind = 2;
  in->x_not = true;
  tx_args(in, 1, &lhs);
  vec_init(&out, tx_arena, in->x_type, NROWS, &e);
  assert_int_equal(xeval(&c, in, tb, NULL, 0, &out, &e), CZ_OK);
  assert_int_equal(out.v_bool[0], 1); /* NOT IN: 1 is odd */
  assert_int_equal(out.v_bool[1], 0);
  assert_int_equal(out.v_null[2], 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arith_with_nulls_and_selection),
      cmocka_unit_test(test_integer_division_truncates_and_zero_is_22012),
      cmocka_unit_test(test_integer_overflow_is_22003),
      cmocka_unit_test(test_mixed_arithmetic_types),
      cmocka_unit_test(test_three_valued_logic),
      cmocka_unit_test(test_three_valued_logic_vectors),
      cmocka_unit_test(test_and_skips_right_side_where_left_false),
      cmocka_unit_test(test_case_is_lazy),
      cmocka_unit_test(test_coalesce_is_lazy),
      cmocka_unit_test(test_comparisons),
      cmocka_unit_test(test_is_distinct_from),
      cmocka_unit_test(test_like),
      cmocka_unit_test(test_like_pieces_agree),
      cmocka_unit_test(test_in_list_3vl),
      cmocka_unit_test(test_filter_narrows_selection),
      cmocka_unit_test(test_cancel_is_57014),
      cmocka_unit_test(test_subquery_callback),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
