/* hll — HyperLogLog distinct-value sketches for the catalog's statistics.
 *
 * Design notes: the algorithm is Flajolet, Fusy, Gandouet and Meunier's
 * (2007). The top HLL_BITS bits of a 64-bit hash pick a register; the
 * register keeps the largest rank (position of the first 1 bit, from 1)
 * of the remaining bits seen. The estimate is alpha m^2 / sum(2^-reg);
 * below 5m/2 with empty registers left, linear counting m ln(m / empty)
 * is used instead (its bias is lower there). With 64-bit hashes no
 * large-range correction is needed. Writers race only on growing a
 * register: a compare-and-swap loop that stops as soon as the stored
 * rank is at least the new one, so the common case (rank not larger) is
 * one relaxed load and no store — cheap on the write path.
 */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "util/util.h"

void hll_clear(hll_t *h)
{
  for (int i = 0; i < HLL_REGS; i++)
    atomic_store_explicit(&h->hl_reg[i], 0, memory_order_relaxed);
}

static void hll_raise(hll_t *h, int i, uint8_t rank)
{
  uint8_t cur = atomic_load_explicit(&h->hl_reg[i], memory_order_relaxed);
  while (cur < rank &&
         !atomic_compare_exchange_weak_explicit(&h->hl_reg[i], &cur, rank, memory_order_relaxed,
                                                memory_order_relaxed))
    ;
}

void hll_add(hll_t *h, uint64_t hash)
{
  int i = (int)(hash >> (64 - HLL_BITS));
  /* a guard bit keeps the rank finite when the rest is all zeros */
  uint64_t rest = (hash << HLL_BITS) | ((uint64_t)1 << (HLL_BITS - 1));
  hll_raise(h, i, (uint8_t)(__builtin_clzll(rest) + 1));
}

double hll_estimate(const hll_t *h)
{
  const double m = HLL_REGS;
  double sum = 0;
  int empty = 0;
  for (int i = 0; i < HLL_REGS; i++) {
    uint8_t r = atomic_load_explicit(&h->hl_reg[i], memory_order_relaxed);
    sum += ldexp(1.0, -(int)r);
    empty += r == 0;
  }
  double alpha = 0.7213 / (1 + 1.079 / m);
  double est = alpha * m * m / sum;
  if (est <= 2.5 * m && empty > 0)
    est = m * log(m / empty);
  return est;
}

void hll_merge(hll_t *into, const hll_t *from)
{
  for (int i = 0; i < HLL_REGS; i++)
    hll_raise(into, i, atomic_load_explicit(&from->hl_reg[i], memory_order_relaxed));
}

void hll_save(const hll_t *h, uint8_t out[HLL_REGS])
{
  for (int i = 0; i < HLL_REGS; i++)
    out[i] = atomic_load_explicit(&h->hl_reg[i], memory_order_relaxed);
}

void hll_load(hll_t *h, const uint8_t in[HLL_REGS])
{
  for (int i = 0; i < HLL_REGS; i++)
    atomic_store_explicit(&h->hl_reg[i], in[i], memory_order_relaxed);
}
