/* test_column_force — the environment switch CZ_FORCE_CODEC=<name>, read
 * at the first encode, forces that codec wherever it applies (the SQL
 * suite runs once per codec family with it). Its own process, so the
 * variable is set before any encode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "column/column.h"

static void test_env_forces_codec(void **s)
{
  (void)s;
  arena_t *a = arena_create(NULL, "t");
  err_t e;
  vec_t v, sv;
  assert_int_equal(vec_init(&v, a, ty_plain(TY_INT8), 500, &e), CZ_OK);
  assert_int_equal(vec_init(&sv, a, ty_plain(TY_FLOAT8), 500, &e), CZ_OK);
  for (int i = 0; i < 500; i++) {
    v.v_i64[i] = i; /* the chooser would take delta */
    sv.v_f64[i] = i * 0.25;
  }
  uint8_t *b;
  size_t len;
  ce_info_t info;
  assert_int_equal(ce_encode(&v, 0, 500, CE_AUTO, a, a, &b, &len, &e), CZ_OK);
  assert_int_equal(ce_info(b, len, &info, &e), CZ_OK);
  assert_int_equal(info.ci_codec, CE_DICT_RLE);
  assert_int_equal(ce_forced_codec(), CE_DICT_RLE);
  /* an explicit codec wins over the switch */
  assert_int_equal(ce_encode(&v, 0, 500, CE_DELTA, a, a, &b, &len, &e), CZ_OK);
  assert_int_equal(ce_info(b, len, &info, &e), CZ_OK);
  assert_int_equal(info.ci_codec, CE_DELTA);
  assert_int_equal(ce_encode(&sv, 0, 500, CE_AUTO, a, a, &b, &len, &e), CZ_OK);
  assert_int_equal(ce_info(b, len, &info, &e), CZ_OK);
  assert_int_equal(info.ci_codec, CE_DICT_RLE);
  arena_destroy(a);
}

int main(void)
{
  setenv("CZ_FORCE_CODEC", "DICT_RLE", 1);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_env_forces_codec),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
