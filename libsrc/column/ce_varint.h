/* ce_varint — unsigned LEB128 integers (7 bits a byte, low first), read
 * with a bound so a corrupt length never runs past the buffer. */
#ifndef CZ_CE_VARINT_H
#define CZ_CE_VARINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Strings restart front coding every this many values (a restart point
 * holds the whole string), so fetch and skip need not start at row 0. */
#define CE_PREFIX_RESTART 16u

static inline unsigned ce_varint_size(uint32_t v)
{
  unsigned n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static inline size_t ce_varint_put(uint8_t *p, uint32_t v)
{
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}

/* Reads at p[*off] (< end); false when it runs past end or past 32 bits. */
static inline bool ce_varint_get(const uint8_t *p, size_t end, size_t *off, uint32_t *out)
{
  uint32_t v = 0;
  for (unsigned sh = 0; sh < 35; sh += 7) {
    if (*off >= end)
      return false;
    uint8_t b = p[(*off)++];
    if (sh == 28 && b > 0x0f)
      return false;
    v |= (uint32_t)(b & 0x7f) << sh;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

#endif /* CZ_CE_VARINT_H */
