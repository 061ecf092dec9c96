/* ty_bytea — BYTEA text forms: output in PostgreSQL's default hex format
 * ("\x0a1b"), input in hex (pairs of digits, blanks allowed between pairs)
 * or escape format (backslash + three octal digits, "\\" for a backslash,
 * any other byte as itself). */
#include <string.h>

#include "types/types_int.h"

int ty_bytea_parse(const char *s, size_t len, arena_t *a, str_t *out, err_t *e)
{
  char *p = arena_alloc(a, len + 1);
  size_t o = 0;
  if (len >= 2 && s[0] == '\\' && s[1] == 'x') {
    for (size_t i = 2; i < len;) {
      char c = s[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        i++;
        continue;
      }
      int hi = hex_digit_value(c);
      if (hi < 0)
        return err_set(e, SQLSTATE_INVALID_PARAMETER, "invalid hexadecimal digit: \"%c\"", c);
      if (i + 1 >= len)
        return err_set(e, SQLSTATE_INVALID_PARAMETER, "invalid hexadecimal data: odd number of digits");
      int lo = hex_digit_value(s[i + 1]);
      if (lo < 0)
        return err_set(e, SQLSTATE_INVALID_PARAMETER, "invalid hexadecimal digit: \"%c\"", s[i + 1]);
      p[o++] = (char)(hi << 4 | lo);
      i += 2;
    }
  } else {
    for (size_t i = 0; i < len;) {
      if (s[i] != '\\') {
        p[o++] = s[i++];
      } else if (i + 1 < len && s[i + 1] == '\\') {
        p[o++] = '\\';
        i += 2;
      } else if (i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
                 s[i + 3] >= '0' && s[i + 3] <= '7') {
        p[o++] = (char)((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 | (s[i + 3] - '0'));
        i += 4;
      } else {
        return err_set(e, SQLSTATE_INVALID_TEXT, "invalid input syntax for type bytea");
      }
    }
  }
  out->s_ptr = p;
  out->s_len = (uint32_t)o;
  return CZ_OK;
}
