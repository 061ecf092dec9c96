/* bitmap — growable bit sets with word-at-a-time search and count.
 *
 * Design notes: bits live in 64-bit words, bit i in word i/64 at position
 * i%64. Bits at or beyond bm_bits in the last word are kept zero (init,
 * resize) so that searches and counts need only mask the range asked for.
 * Searches skip whole words (all-ones when looking for a clear bit, zero when
 * looking for a set bit) and locate the bit with a count-trailing-zeros
 * instruction, which is what free-page allocation in storage relies on.
 */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define BITMAP_NONE ((size_t)-1)

static size_t bitmap_words(size_t bits)
{
  return bits / 64 + (bits % 64 != 0);
}

int bitmap_init(bitmap_t *bm, size_t bits, err_t *e)
{
  size_t nw = bitmap_words(bits);
  /* At least one word, so bm_words is never NULL after a successful init. */
  bm->bm_words = calloc(nw ? nw : 1, sizeof(uint64_t));
  bm->bm_bits = 0;
  if (!bm->bm_words)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "bitmap of %zu bits: out of memory", bits);
  bm->bm_bits = bits;
  return CZ_OK;
}

/* Zeroes the bits of word w at positions >= from%64 (from inside word w). */
static void bitmap_zero_tail(bitmap_t *bm, size_t from)
{
  if (from % 64)
    bm->bm_words[from / 64] &= ((uint64_t)1 << (from % 64)) - 1;
}

int bitmap_resize(bitmap_t *bm, size_t bits, err_t *e)
{
  size_t old_nw = bitmap_words(bm->bm_bits);
  size_t nw = bitmap_words(bits);
  size_t alloc_nw = nw ? nw : 1;

  /* Clearing the tail of the shorter size keeps the invariant either way,
   * even if a caller set a bit past the capacity. */
  bitmap_zero_tail(bm, CZ_MIN(bits, bm->bm_bits));
  if (alloc_nw != (old_nw ? old_nw : 1)) {
    uint64_t *w = realloc(bm->bm_words, alloc_nw * sizeof(uint64_t));
    if (!w)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "bitmap of %zu bits: out of memory", bits);
    bm->bm_words = w;
    if (alloc_nw > old_nw)
      memset(w + old_nw, 0, (alloc_nw - old_nw) * sizeof(uint64_t));
  }
  bm->bm_bits = bits;
  return CZ_OK;
}

void bitmap_free(bitmap_t *bm)
{
  free(bm->bm_words);
  bm->bm_words = NULL;
  bm->bm_bits = 0;
}

/* Search for the first bit at or after from, below limit, in words xored
 * with flip (all-ones to look for clear bits, zero for set bits). */
static size_t bitmap_find(const bitmap_t *bm, size_t from, size_t limit, uint64_t flip)
{
  size_t wi, last;
  uint64_t w;

  limit = CZ_MIN(limit, bm->bm_bits);
  if (from >= limit)
    return BITMAP_NONE;
  wi = from / 64;
  last = (limit - 1) / 64;
  w = (bm->bm_words[wi] ^ flip) & (~(uint64_t)0 << (from % 64));
  for (;;) {
    if (w) {
      size_t i = wi * 64 + (size_t)__builtin_ctzll(w);
      return i < limit ? i : BITMAP_NONE;
    }
    if (++wi > last)
      return BITMAP_NONE;
    w = bm->bm_words[wi] ^ flip;
  }
}

size_t bitmap_find_clear(const bitmap_t *bm, size_t from, size_t limit)
{
  return bitmap_find(bm, from, limit, ~(uint64_t)0);
}

size_t bitmap_find_set(const bitmap_t *bm, size_t from, size_t limit)
{
  return bitmap_find(bm, from, limit, 0);
}

size_t bitmap_count(const bitmap_t *bm, size_t from, size_t limit)
{
  size_t wi, last, n = 0;
  uint64_t w;

  limit = CZ_MIN(limit, bm->bm_bits);
  if (from >= limit)
    return 0;
  wi = from / 64;
  last = (limit - 1) / 64;
  for (; wi <= last; wi++) {
    w = bm->bm_words[wi];
    if (wi == from / 64)
      w &= ~(uint64_t)0 << (from % 64);
    if (wi == last && limit % 64)
      w &= ((uint64_t)1 << (limit % 64)) - 1;
    n += (size_t)__builtin_popcountll(w);
  }
  return n;
}
