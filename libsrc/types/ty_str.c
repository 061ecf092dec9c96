/* ty_str — character strings: UTF-8 character counting and the
 * CHAR(n)/VARCHAR(n) length rules of PostgreSQL (pad CHAR with blanks;
 * too long is 22001 unless only blanks would be cut, or the cast is
 * explicit, which truncates). */
#include <string.h>

#include "types/types_int.h"

size_t ty_utf8_chars(const char *s, size_t len)
{
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    n += ((unsigned char)s[i] & 0xC0) != 0x80;
  return n;
}

size_t ty_utf8_prefix(const char *s, size_t len, size_t n)
{
  size_t i = 0, chars = 0;
  while (i < len) {
    if (((unsigned char)s[i] & 0xC0) != 0x80) {
      if (chars == n)
        return i;
      chars++;
    }
    i++;
  }
  return len;
}

int ty_str_apply_len(ty_t t, str_t s, bool truncate, arena_t *a, str_t *out, err_t *e)
{
  *out = s;
  if ((t.t_id != TY_CHAR && t.t_id != TY_VARCHAR) || t.t_len < 0)
    return CZ_OK;
  size_t max = (size_t)t.t_len;
  /* Fast path: bytes >= characters, so a VARCHAR no longer in bytes than
   * its limit fits without counting. */
  if (t.t_id == TY_VARCHAR && s.s_len <= max)
    return CZ_OK;
  size_t nchars = s.s_len <= max ? ty_utf8_chars(s.s_ptr, s.s_len) : 0;
  if (s.s_len > max) {
    size_t cut = ty_utf8_prefix(s.s_ptr, s.s_len, max);
    if (cut < s.s_len) {
      if (!truncate) {
        for (size_t i = cut; i < s.s_len; i++)
          if (s.s_ptr[i] != ' ')
            return err_set(e, SQLSTATE_STRING_DATA_RIGHT_TRUNCATION, "value too long for type %s(%d)",
                           t.t_id == TY_CHAR ? "character" : "character varying", (int)t.t_len);
      }
      out->s_len = (uint32_t)cut;
      return CZ_OK; /* exactly max characters now: no padding needed */
    }
    nchars = ty_utf8_chars(s.s_ptr, s.s_len);
  }
  if (t.t_id == TY_CHAR && nchars < max) {
    size_t pad = max - nchars;
    char *p = arena_alloc(a, s.s_len + pad);
    memcpy(p, s.s_ptr, s.s_len);
    memset(p + s.s_len, ' ', pad);
    out->s_ptr = p;
    out->s_len = (uint32_t)(s.s_len + pad);
  }
  return CZ_OK;
}
