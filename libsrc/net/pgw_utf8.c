/* pgw_utf8 — a strict UTF-8 validator for strings received from clients.
 *
 * Design notes: the server stores and compares text as UTF-8 bytes, so every
 * string a client sends is checked once, at the protocol boundary, with the
 * rules of RFC 3629 (Table 3-7 of the Unicode standard): no overlong forms,
 * no UTF-16 surrogates, nothing past U+10FFFF. The errors name the bytes the
 * way PostgreSQL does ("invalid byte sequence for encoding "UTF8": 0xc3 0x28").
 */
#include <stdio.h>

#include "net/net_int.h"

/* Length of the valid sequence at s[0..n), or 0 when it is not one. */
static size_t utf8_seq_len(const uint8_t *s, size_t n)
{
  uint8_t c = s[0];
  uint8_t lo = 0x80, hi = 0xBF; /* range of the second byte */
  size_t len;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0)
      lo = 0xA0; /* overlong below U+0800 */
    else if (c == 0xED)
      hi = 0x9F; /* surrogates U+D800..U+DFFF */
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0)
      lo = 0x90; /* overlong below U+10000 */
    else if (c == 0xF4)
      hi = 0x8F; /* above U+10FFFF */
  } else
    return 0; /* continuation byte, C0/C1 overlong lead, F5..FF */
  if (n < len || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i < len; i++)
    if ((s[i] & 0xC0) != 0x80)
      return 0;
  return len;
}

size_t pgw_utf8_check(const uint8_t *s, size_t len)
{
  size_t i = 0;
  while (i < len) {
    if (s[i] < 0x80) { /* ASCII runs are the common case */
      i++;
      continue;
    }
    size_t n = utf8_seq_len(s + i, len - i);
    if (n == 0)
      return i;
    i += n;
  }
  return len;
}

int pgw_utf8_error(err_t *e, const uint8_t *s, size_t len, size_t bad)
{
  char hex[32] = "";
  size_t used = 0;
  /* As PostgreSQL's report_invalid_encoding: as many bytes as the lead
   * byte announces (pg_utf_mblen), at most what is there. */
  uint8_t c = s[bad];
  size_t want = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
  for (size_t i = bad; i < len && i < bad + want; i++)
    used += (size_t)snprintf(hex + used, sizeof hex - used, "%s0x%02x", i > bad ? " " : "", s[i]);
  return err_set(e, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE,
                 "invalid byte sequence for encoding \"UTF8\": %s", hex);
}
