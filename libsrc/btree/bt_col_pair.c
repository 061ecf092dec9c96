/* bt_col_pair.c — non-unique column trees: each (key, value) pair is the
 * key of a unique column tree (README "Column leaves", "Non-unique").
 *
 * Design notes:
 * - The pair's bytes are the key with every 0x00 byte written as 0x00 0xFF,
 *   then the terminator 0x00 0x01, then the value's bytes as they are.
 *   memcmp order of these strings is the B-tree's (key, value) order: a
 *   key that is a prefix of another ends in 0x00 0x01, below any byte of
 *   the longer key's rest (0x01..0xFF, or 0x00 0xFF); equal keys compare
 *   by their values. So a segment entry names its first pair and every
 *   unique-tree algorithm (locate, split, merge, check, clip) works as is.
 * - A key alone maps to its terminated form with no value: the lowest
 *   pair of that key (a seek's lower bound, an exclusive upper bound).
 * - The price: column 0 holds the value bytes once more beside the value
 *   columns (prefix coding shares the keys; secondary indexes' values —
 *   primary keys — are short), and a pair is limited to BT_MAX_KEY bytes.
 */
#include <string.h>

#include "btree/bt_col_int.h"

int btc_pair_make(const void *key, size_t klen, const void *val, size_t vlen, uint8_t *out, uint32_t *len,
                  err_t *e)
{
  const uint8_t *k = key;
  size_t n = 0;
  for (size_t i = 0; i < klen; i++) {
    if (n + 2 > BT_MAX_KEY)
      goto long_pair;
    out[n++] = k[i];
    if (k[i] == 0)
      out[n++] = 0xFF;
  }
  if (n + 2 + vlen > BT_MAX_KEY)
    goto long_pair;
  out[n++] = 0;
  out[n++] = 1;
  if (vlen)
    memcpy(out + n, val, vlen);
  *len = (uint32_t)(n + vlen);
  return CZ_OK;
long_pair:
  return err_set(e, SQLSTATE_PROGRAM_LIMIT,
                 "column tree: key and value of %zu bytes do not fit a non-unique column tree's %d",
                 klen + vlen, BT_MAX_KEY);
}

uint32_t btc_pair_bound(const void *key, size_t klen, uint8_t *out)
{
  const uint8_t *k = key;
  uint32_t n = 0;
  /* A key whose form passes BT_MAX_KEY sorts as its first bytes do: no
   * stored pair is longer. */
  for (size_t i = 0; i < klen && n + 2 <= BT_MAX_KEY; i++) {
    out[n++] = k[i];
    if (k[i] == 0)
      out[n++] = 0xFF;
  }
  if (n + 2 <= BT_MAX_KEY + 1) {
    out[n++] = 0;
    out[n++] = 1;
  }
  return n;
}

int btc_pair_split(const uint8_t *pair, size_t len, uint8_t *key, uint32_t *klen, const uint8_t **val,
                   uint32_t *vlen)
{
  uint32_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (pair[i] != 0) {
      key[n++] = pair[i];
      continue;
    }
    if (i + 1 >= len)
      return CZ_ERR;
    if (pair[i + 1] == 1) {
      *klen = n;
      *val = pair + i + 2;
      *vlen = (uint32_t)(len - i - 2);
      return CZ_OK;
    }
    if (pair[i + 1] != 0xFF)
      return CZ_ERR;
    key[n++] = 0;
    i++;
  }
  return CZ_ERR;
}
