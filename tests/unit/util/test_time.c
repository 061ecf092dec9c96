/* test_time — the monotonic clock moves forward, sleeps last, wall time is now. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <time.h>

#include "util/util.h"

static void test_time_monotonic_never_goes_back(void **state)
{
  uint64_t prev = time_now_ns();
  (void)state;
  for (int i = 0; i < 100000; i++) {
    uint64_t now = time_now_ns();
    assert_true(now >= prev);
    prev = now;
  }
}

static void test_time_sleep_lasts_at_least_asked(void **state)
{
  uint64_t t0 = time_now_ns();
  (void)state;
  time_sleep_us(20000);
  uint64_t el = time_now_ns() - t0;
  assert_true(el >= 20000000u);
  assert_true(el < 2000000000u);
  time_sleep_us(0);
}

static void test_time_wall_is_epoch_ms(void **state)
{
  uint64_t ms = time_wall_ms();
  uint64_t s = (uint64_t)time(NULL);
  (void)state;
  assert_true(ms / 1000 + 2 >= s && ms / 1000 <= s + 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_time_monotonic_never_goes_back),
      cmocka_unit_test(test_time_sleep_lasts_at_least_asked),
      cmocka_unit_test(test_time_wall_is_epoch_ms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
