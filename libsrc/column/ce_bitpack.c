/* ce_bitpack — packing unsigned integers at any width 0..64 into 64-bit
 * little-endian words, and unpacking them with a loop specialised for each
 * width (the width is a compile-time constant in each instance, as
 * MonetDB's templates do, so shifts and masks fold).
 *
 * Design notes: ce_pack_bytes reserves one word of padding after the data,
 * so the unpacker may load the word after the one a value starts in without
 * a bounds test; codecs check that the padded size fits their buffer when
 * they open a segment.
 */
#include "column/column_int.h"

void ce_pack(uint8_t *out, const uint64_t *vals, size_t k, int w)
{
  size_t bytes = ce_pack_bytes(k, w);
  if (!bytes)
    return;
  memset(out, 0, bytes);
  uint64_t b = 0, acc = 0;
  size_t wi = 0;
  const uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
  for (size_t i = 0; i < k; i++) {
    uint64_t v = vals[i] & mask;
    unsigned sh = (unsigned)(b & 63);
    acc |= v << sh;
    if (sh + (unsigned)w >= 64) {
      ce_st64(out + 8 * wi, acc);
      wi++;
      acc = sh ? v >> (64 - sh) : 0;
    }
    b += (uint64_t)w;
  }
  if (b & 63)
    ce_st64(out + 8 * wi, acc);
}

static inline __attribute__((always_inline)) void unpack_w(const uint8_t *in, uint64_t start, size_t k,
                                                           const unsigned w, uint64_t base, uint64_t *out)
{
  const uint64_t mask = w == 64 ? ~0ull : (1ull << (w & 63)) - 1;
  uint64_t b = start * w;
  for (size_t i = 0; i < k; i++, b += w) {
    uint64_t wi = b >> 6;
    unsigned sh = (unsigned)(b & 63);
    uint64_t v = ce_ld64(in + 8 * wi) >> sh;
    if (sh + w > 64)
      v |= ce_ld64(in + 8 * wi + 8) << ((64 - sh) & 63);
    out[i] = (v & mask) + base;
  }
}

#define W4(x) case x: unpack_w(in, start, k, x, base, out); break; \
  case x + 1: unpack_w(in, start, k, x + 1, base, out); break; \
  case x + 2: unpack_w(in, start, k, x + 2, base, out); break; \
  case x + 3: unpack_w(in, start, k, x + 3, base, out); break;

void ce_unpack(const uint8_t *in, uint64_t start, size_t k, int w, uint64_t base, uint64_t *out)
{
  switch (w) {
  case 0:
    for (size_t i = 0; i < k; i++)
      out[i] = base;
    break;
  case 1: unpack_w(in, start, k, 1, base, out); break;
  case 2: unpack_w(in, start, k, 2, base, out); break;
  case 3: unpack_w(in, start, k, 3, base, out); break;
  W4(4) W4(8) W4(12) W4(16) W4(20) W4(24) W4(28) W4(32) W4(36) W4(40) W4(44) W4(48) W4(52) W4(56) W4(60)
  case 64: unpack_w(in, start, k, 64, base, out); break;
  default:
    break;
  }
}
