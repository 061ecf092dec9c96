/* test_hll — the HyperLogLog sketch: estimates within a few percent from
 * tiny to large counts, duplicates not counted, merge equals one sketch
 * of the union, save/load round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "cz_test.h"
#include "util/util.h"

static hll_t *new_hll(void)
{
  hll_t *h = malloc(sizeof *h);
  hll_clear(h);
  return h;
}

static void add_range(hll_t *h, uint64_t from, uint64_t to)
{
  for (uint64_t v = from; v < to; v++)
    hll_add(h, hash64(&v, sizeof v, 0));
}

static void test_hll_empty_is_zero(void **state)
{
  (void)state;
  hll_t *h = new_hll();
  assert_true(hll_estimate(h) < 0.5);
  free(h);
}

/* One standard error is 1.04 / sqrt(1024) = 3.3%: allow 4 of them. */
static void test_hll_estimates_within_error(void **state)
{
  (void)state;
  static const uint64_t counts[] = {1, 10, 100, 1000, 5000, 20000, 200000};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    hll_t *h = new_hll();
    add_range(h, 0, counts[i]);
    double est = hll_estimate(h), n = (double)counts[i];
    double tol = n < 100 ? 2 : 0.13 * n;
    if (fabs(est - n) > tol)
      fail_msg("%llu distinct values estimated %.1f", (unsigned long long)counts[i], est);
    free(h);
  }
}

static void test_hll_duplicates_do_not_count(void **state)
{
  (void)state;
  hll_t *h = new_hll();
  for (int rep = 0; rep < 50; rep++)
    add_range(h, 0, 300);
  double est = hll_estimate(h);
  assert_true(est > 280 && est < 320);
  free(h);
}

static void test_hll_merge_is_union(void **state)
{
  (void)state;
  hll_t *a = new_hll(), *b = new_hll(), *u = new_hll();
  add_range(a, 0, 6000);
  add_range(b, 4000, 10000);
  add_range(u, 0, 10000);
  hll_merge(a, b);
  /* register-wise maximum: exactly the sketch of the union */
  uint8_t ra[HLL_REGS], ru[HLL_REGS];
  hll_save(a, ra);
  hll_save(u, ru);
  assert_memory_equal(ra, ru, HLL_REGS);
  free(a), free(b), free(u);
}

static void test_hll_save_load_round_trip(void **state)
{
  (void)state;
  hll_t *a = new_hll(), *b = new_hll();
  add_range(a, 0, 777);
  uint8_t regs[HLL_REGS];
  hll_save(a, regs);
  hll_load(b, regs);
  assert_true(fabs(hll_estimate(a) - hll_estimate(b)) < 1e-9);
  free(a), free(b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hll_empty_is_zero),
      cmocka_unit_test(test_hll_estimates_within_error),
      cmocka_unit_test(test_hll_duplicates_do_not_count),
      cmocka_unit_test(test_hll_merge_is_union),
      cmocka_unit_test(test_hll_save_load_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
