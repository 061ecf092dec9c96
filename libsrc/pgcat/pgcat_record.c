/* pgcat_record — composite (record) values in PostgreSQL's text form,
 * '(1,"a b",)': the binder holds a composite as that text with its shape
 * (field names and types) in the type (sql_bind_record.c), and reads a
 * field with _cz_record_field(rec, k), the k-th (1-based) field's text,
 * cast to the field's type by the binder.
 *
 * The form is PostgreSQL's record_out / record_in: fields separated by
 * commas inside parentheses, an empty unquoted field is NULL, a field is
 * double-quoted when it is empty or holds a comma, parenthesis, double
 * quote, backslash or white space, and inside quotes "" and \x stand for
 * the character.
 */
#include <ctype.h>
#include <string.h>

#include "pgcat/pgcat_int.h"

static bool field_needs_quotes(const char *s)
{
  if (!*s)
    return true;
  for (; *s; s++)
    if (*s == ',' || *s == '(' || *s == ')' || *s == '"' || *s == '\\' ||
        isspace((unsigned char)*s))
      return true;
  return false;
}

char *pgcat_record_text(arena_t *a, const char *const *fields, int n)
{
  size_t len = 3;
  for (int i = 0; i < n; i++)
    len += fields[i] ? 2 * strlen(fields[i]) + 3 : 1;
  char *o = arena_alloc(a, len), *p = o;
  *p++ = '(';
  for (int i = 0; i < n; i++) {
    if (i)
      *p++ = ',';
    const char *f = fields[i];
    if (!f)
      continue;
    bool q = field_needs_quotes(f);
    if (q)
      *p++ = '"';
    for (; *f; f++) {
      if (q && (*f == '"' || *f == '\\'))
        *p++ = *f;
      *p++ = *f;
    }
    if (q)
      *p++ = '"';
  }
  *p++ = ')';
  *p = '\0';
  return o;
}

/* The k-th field (0-based) of the record text s[0..len): *null when it is
 * NULL or the record has fewer fields; 22P02 when malformed. */
static int record_field(arena_t *a, const char *s, size_t len, int k, char **out, err_t *e)
{
  size_t i = 0;
  while (i < len && isspace((unsigned char)s[i]))
    i++;
  if (i >= len || s[i] != '(')
    return err_set(e, SQLSTATE_INVALID_TEXT, "malformed record literal: \"%.*s\"", (int)len, s);
  i++;
  char *buf = arena_alloc(a, len + 1);
  for (int f = 0;; f++) {
    size_t n = 0;
    bool quoted = false, any = false;
    while (i < len && s[i] != ',' && s[i] != ')') {
      if (s[i] == '"') {
        quoted = any = true;
        i++;
        while (i < len) {
          if (s[i] == '\\' && i + 1 < len) {
            buf[n++] = s[i + 1];
            i += 2;
          } else if (s[i] == '"' && i + 1 < len && s[i + 1] == '"') {
            buf[n++] = '"';
            i += 2;
          } else if (s[i] == '"') {
            i++;
            break;
          } else {
            buf[n++] = s[i++];
          }
        }
      } else {
        if (s[i] == '\\' && i + 1 < len)
          i++;
        buf[n++] = s[i++];
        any = true;
      }
    }
    if (i >= len)
      return err_set(e, SQLSTATE_INVALID_TEXT, "malformed record literal: \"%.*s\"", (int)len, s);
    if (f == k) {
      buf[n] = '\0';
      *out = any || quoted ? buf : NULL;
      return CZ_OK;
    }
    if (s[i] == ')') {
      *out = NULL;
      return CZ_OK;
    }
    i++;
  }
}

static int pf_record_field(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  char *f;
  if (record_field(c->xc_arena, a[0].d_str.s_ptr, a[0].d_str.s_len, (int)a[1].d_i64 - 1, &f, e) !=
      CZ_OK)
    return CZ_ERR;
  if (!f) {
    out->d_null = true;
    return CZ_OK;
  }
  out->d_null = false;
  out->d_str.s_ptr = f;
  out->d_str.s_len = (uint32_t)strlen(f);
  return CZ_OK;
}

const xfunc_def_t pgcat_record_funcs[] = {
  {.fd_name = "_cz_record_field", .fd_nargs = 2, .fd_args = {TY_TEXT, TY_INT4},
   .fd_result = TY_TEXT, .fd_flags = XF_STRICT, .fd_row = pf_record_field},
};
const int pgcat_record_nfuncs = (int)CZ_ARRAY_LEN(pgcat_record_funcs);
