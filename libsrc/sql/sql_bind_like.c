/* sql_bind_like — patterns translated while binding: `a [NOT] [I]LIKE b
 * ESCAPE c` and `a [NOT] SIMILAR TO b [ESCAPE c]` (see sql_bind_syn.h).
 *
 * The executor's LIKE knows one escape, the backslash (PostgreSQL's
 * default). Any other escape is therefore translated into that form while
 * binding, as PostgreSQL's like_escape() does at run time: the result is
 * a pattern that means the same with a backslash escape. SIMILAR TO has
 * no matcher of its own: its pattern becomes the POSIX regular expression
 * that regexp_like (`~`) matches, as PostgreSQL's similar_to_escape()
 * does.
 */
#include <string.h>

#include "sql/sql_bind_syn.h"


static bool is_string(ty_id_t id)
{
  return id == TY_UNKNOWN || id == TY_TEXT || id == TY_VARCHAR || id == TY_CHAR;
}

/* Byte length of the UTF-8 character starting with byte c (the text is
 * valid UTF-8: invariant 4 of the parser, and the wire checks values). */
static size_t utf8_len(unsigned char c)
{
  return c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
}

static bool is_const_string(const xnode_t *n)
{
  return n->x_kind == X_CONST && is_string(n->x_type.t_id);
}

int bd_like_escape(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **pattern)
{
  xnode_t *esc;
  if (bd_expr(b, sc, x->ex_third, &esc) != CZ_OK)
    return CZ_ERR;
  xnode_t *p = *pattern;
  if (!is_const_string(esc) || (!esc->x_const.d_null && !is_const_string(p) &&
                                !(esc->x_const.d_str.s_len == 1 &&
                                  esc->x_const.d_str.s_ptr[0] == '\\')))
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_third->ex_pos,
                    "LIKE … ESCAPE needs a constant pattern and escape string");
  ty_t rt = p->x_type.t_id == TY_UNKNOWN ? ty_plain(TY_UNKNOWN) : ty_plain(TY_TEXT);
  if (esc->x_const.d_null || (p->x_kind == X_CONST && p->x_const.d_null)) {
    /* like_escape is strict: a NULL pattern or escape makes the match NULL */
    *pattern = bd_const_null(b, rt.t_id == TY_UNKNOWN ? ty_plain(TY_TEXT) : rt);
    return CZ_OK;
  }
  const char *e = esc->x_const.d_str.s_ptr;
  size_t elen = esc->x_const.d_str.s_len;
  if (elen > 0 && utf8_len((unsigned char)e[0]) != elen)
    return bd_error(b, SQLSTATE_INVALID_ESCAPE_SEQUENCE, x->ex_third->ex_pos,
                    "invalid escape string");
  if (elen == 1 && e[0] == '\\')
    return CZ_OK; /* already the executor's escape */
  const char *s = p->x_const.d_str.s_ptr;
  size_t len = p->x_const.d_str.s_len;
  char *out = arena_alloc(b->b_a, 2 * len + 1);
  size_t o = 0;
  for (size_t i = 0; i < len;) {
    size_t cl = CZ_MIN(utf8_len((unsigned char)s[i]), len - i);
    if (elen > 0 && cl == elen && memcmp(s + i, e, elen) == 0) {
      i += cl;
      if (i >= len)
        return bd_error(b, SQLSTATE_INVALID_ESCAPE_SEQUENCE, x->ex_right->ex_pos,
                        "LIKE pattern must not end with escape character");
      cl = CZ_MIN(utf8_len((unsigned char)s[i]), len - i);
      out[o++] = '\\'; /* the escaped character, taken literally */
    } else if (s[i] == '\\')
      out[o++] = '\\'; /* a backslash is an ordinary character here */
    memcpy(out + o, s + i, cl);
    o += cl;
    i += cl;
  }
  out[o] = '\0';
  xnode_t *n = bd_node(b, X_CONST, rt, p->x_pos);
  n->x_const.d_str.s_ptr = out;
  n->x_const.d_str.s_len = (uint32_t)o;
  *pattern = n;
  return CZ_OK;
}

/* The ERE for SIMILAR TO pattern s (len bytes) with escape e (elen bytes,
 * 0: none); NULL after an error. */
static char *similar_to_ere(bd_t *b, const sql_expr_t *x, const char *s, size_t len,
                            const char *e, size_t elen)
{
  /* worst case: every byte becomes two, plus the anchors; (?: so that
   * the pattern's own groups keep their numbers, as PostgreSQL's
   * similar_to_escape writes it */
  char *out = arena_alloc(b->b_a, 2 * len + 10);
  size_t o = 0;
  memcpy(out, "^(?:", 4);
  o = 4;
  bool in_bracket = false;
  size_t bracket_start = 0;
  for (size_t i = 0; i < len;) {
    size_t cl = CZ_MIN(utf8_len((unsigned char)s[i]), len - i);
    char c = s[i];
    if (elen > 0 && cl == elen && memcmp(s + i, e, elen) == 0) {
      i += cl;
      if (i >= len) {
        bd_error(b, SQLSTATE_INVALID_ESCAPE_SEQUENCE, x->ex_right->ex_pos,
                 "SIMILAR TO pattern must not end with escape character");
        return NULL;
      }
      cl = CZ_MIN(utf8_len((unsigned char)s[i]), len - i);
      if (cl == 1 && strchr(".[]()*+?{}|^$\\", s[i]))
        out[o++] = '\\';
      memcpy(out + o, s + i, cl);
      o += cl;
      i += cl;
      continue;
    }
    if (in_bracket) {
      /* bracket expressions pass through; ] right after [ or [^ is a member */
      if (c == ']' && i > bracket_start)
        in_bracket = false;
      memcpy(out + o, s + i, cl);
    } else if (c == '[') {
      in_bracket = true;
      out[o++] = '[';
      i++;
      if (i < len && s[i] == '^')
        out[o++] = s[i++];
      bracket_start = i;
      continue;
    } else if (c == '%') {
      memcpy(out + o, ".*", 2);
      o += 2;
      i++;
      continue;
    } else if (c == '_')
      out[o] = '.';
    else if (c == '.' || c == '^' || c == '$' || c == '\\') {
      out[o++] = '\\'; /* literal in SIMILAR TO (a backslash here is not the escape) */
      out[o] = c;
    } else
      memcpy(out + o, s + i, cl);
    o += cl;
    i += cl;
  }
  memcpy(out + o, ")$", 3);
  return out;
}

int bd_similar_pattern(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **pattern)
{
  const char *e = "\\";
  size_t elen = 1;
  xnode_t *p = *pattern;
  if (x->ex_third) {
    xnode_t *esc;
    if (bd_expr(b, sc, x->ex_third, &esc) != CZ_OK)
      return CZ_ERR;
    if (!is_const_string(esc))
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_third->ex_pos,
                      "SIMILAR TO … ESCAPE needs a constant escape string");
    if (esc->x_const.d_null) {
      *pattern = bd_const_null(b, ty_plain(TY_TEXT));
      return CZ_OK;
    }
    e = esc->x_const.d_str.s_ptr;
    elen = esc->x_const.d_str.s_len;
    if (elen > 0 && utf8_len((unsigned char)e[0]) != elen)
      return bd_error(b, SQLSTATE_INVALID_ESCAPE_SEQUENCE, x->ex_third->ex_pos,
                      "invalid escape string");
  }
  if (!is_const_string(p))
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_right->ex_pos,
                    "SIMILAR TO needs a constant pattern");
  if (p->x_const.d_null) {
    *pattern = bd_const_null(b, ty_plain(TY_TEXT));
    return CZ_OK;
  }
  char *re = similar_to_ere(b, x, p->x_const.d_str.s_ptr, p->x_const.d_str.s_len, e, elen);
  if (!re)
    return CZ_ERR;
  xnode_t *n = bd_node(b, X_CONST, ty_plain(TY_TEXT), p->x_pos);
  n->x_const.d_str.s_ptr = re;
  n->x_const.d_str.s_len = (uint32_t)strlen(re);
  *pattern = n;
  return CZ_OK;
}
