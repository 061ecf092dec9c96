/* test_err — err_t values: set, prefix, clear, truncation, state checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "util/util.h"

static void test_err_set_fills_state_and_message(void **state)
{
  err_t e;
  (void)state;
  assert_int_equal(err_set(&e, SQLSTATE_IO_ERROR, "read %s: %d", "x.db", 5), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "58030");
  assert_string_equal(e.er_msg, "read x.db: 5");
  assert_int_equal(e.er_pos, 0);
  assert_true(err_is(&e, SQLSTATE_IO_ERROR));
  assert_false(err_is(&e, SQLSTATE_INTERNAL));
}

static void test_err_set_null_is_allowed(void **state)
{
  (void)state;
  assert_int_equal(err_set(NULL, SQLSTATE_INTERNAL, "ignored %d", 1), CZ_ERR);
  assert_int_equal(err_prefix(NULL, "ctx"), CZ_ERR);
  err_clear(NULL);
  assert_false(err_is(NULL, "00000"));
}

static void test_err_clear_gives_00000(void **state)
{
  err_t e;
  (void)state;
  err_set(&e, SQLSTATE_INTERNAL, "boom");
  e.er_pos = 7;
  err_clear(&e);
  assert_string_equal(e.er_sqlstate, "00000");
  assert_string_equal(e.er_msg, "");
  assert_int_equal(e.er_pos, 0);
  assert_true(err_is(&e, "00000"));
}

static void test_err_long_message_is_truncated_and_terminated(void **state)
{
  err_t e;
  char big[2000];
  (void)state;
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  err_set(&e, SQLSTATE_PROGRAM_LIMIT, "%s", big);
  assert_int_equal(strlen(e.er_msg), sizeof e.er_msg - 1);
  assert_string_equal(e.er_sqlstate, "54000");
}

static void test_err_prefix_prepends_and_keeps_state(void **state)
{
  err_t e;
  (void)state;
  err_set(&e, SQLSTATE_DATA_CORRUPTED, "checksum mismatch");
  assert_int_equal(err_prefix(&e, "page %d", 42), CZ_ERR);
  assert_string_equal(e.er_msg, "page 42: checksum mismatch");
  assert_string_equal(e.er_sqlstate, "XX001");
  err_prefix(&e, "table %s", "t");
  assert_string_equal(e.er_msg, "table t: page 42: checksum mismatch");
}

static void test_err_prefix_truncates_long_result(void **state)
{
  err_t e;
  char big[600];
  (void)state;
  memset(big, 'y', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  err_set(&e, SQLSTATE_INTERNAL, "%s", big);
  err_prefix(&e, "ctx");
  assert_int_equal(strlen(e.er_msg), sizeof e.er_msg - 1);
  assert_memory_equal(e.er_msg, "ctx: yyy", 8);
}

static void test_err_bad_sqlstate_is_contained(void **state)
{
  err_t e;
  (void)state;
  err_set(&e, "1234567", "too long a state");
  assert_string_equal(e.er_sqlstate, "12345");
  err_set(&e, "", "empty state");
  assert_string_equal(e.er_sqlstate, SQLSTATE_INTERNAL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_err_set_fills_state_and_message),
      cmocka_unit_test(test_err_set_null_is_allowed),
      cmocka_unit_test(test_err_clear_gives_00000),
      cmocka_unit_test(test_err_long_message_is_truncated_and_terminated),
      cmocka_unit_test(test_err_prefix_prepends_and_keeps_state),
      cmocka_unit_test(test_err_prefix_truncates_long_result),
      cmocka_unit_test(test_err_bad_sqlstate_is_contained),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
