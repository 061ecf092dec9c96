/* iq_print — result tables and error reports, as the user sees them.
 *
 * Design notes: a table is printed in two passes over the rows shown: the
 * first measures each column (in terminal columns, not bytes, so UTF-8 text
 * lines up), the second writes. Values holding newlines span several lines
 * of the row. Columns are separated by two blanks, numbers are aligned right
 * and everything else left, and no line ends in blanks, so output compares
 * well in tests. Errors name the line of the script the server's position
 * points to, and repeat that line with a caret under the spot.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "isql.h"

/* Type OIDs of PostgreSQL's numeric types (pg_type.oid; Cadenza uses the
 * same numbers on the wire). */
#define IQ_OID_INT8 20
#define IQ_OID_INT2 21
#define IQ_OID_INT4 23
#define IQ_OID_OID 26
#define IQ_OID_FLOAT4 700
#define IQ_OID_FLOAT8 701
#define IQ_OID_NUMERIC 1700

static bool numeric_type(Oid t)
{
  return t == IQ_OID_INT8 || t == IQ_OID_INT2 || t == IQ_OID_INT4 || t == IQ_OID_OID ||
         t == IQ_OID_FLOAT4 || t == IQ_OID_FLOAT8 || t == IQ_OID_NUMERIC;
}

/* Decodes one UTF-8 sequence at s (n bytes left); returns its length and
 * the code point in *cp. Malformed bytes count as one code point each. */
static size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
  unsigned char c = s[0];
  size_t len;
  uint32_t v;

  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if ((c & 0xE0) == 0xC0) {
    len = 2;
    v = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    v = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    v = c & 0x07;
  } else {
    *cp = 0xFFFD;
    return 1;
  }
  if (len > n) {
    *cp = 0xFFFD;
    return 1;
  }
  for (size_t k = 1; k < len; k++) {
    if ((s[k] & 0xC0) != 0x80) {
      *cp = 0xFFFD;
      return 1;
    }
    v = (v << 6) | (s[k] & 0x3F);
  }
  *cp = v;
  return len;
}

/* Columns a code point takes: what the locale says (2 for wide East Asian
 * characters, 0 for combining marks), else 1. */
static size_t cp_width(uint32_t cp)
{
  int w;
  if (cp < 0x80)
    return 1;
  w = wcwidth((wchar_t)cp);
  return w < 0 ? 1 : (size_t)w;
}

size_t iq_text_width(const char *s, size_t len)
{
  const unsigned char *p = (const unsigned char *)s;
  size_t w = 0, i = 0;
  while (i < len) {
    uint32_t cp;
    i += utf8_next(p + i, len - i, &cp);
    w += cp_width(cp);
  }
  return w;
}

/* The widest line of a value that may hold newlines, and its line count. */
static size_t value_width(const char *v, int *nlines)
{
  size_t w = 0;
  int lines = 1;
  for (;;) {
    const char *nl = strchr(v, '\n');
    size_t lw = iq_text_width(v, nl ? (size_t)(nl - v) : strlen(v));
    if (lw > w)
      w = lw;
    if (!nl)
      break;
    lines++;
    v = nl + 1;
  }
  *nlines = lines;
  return w;
}

/* Line k of value v (k from 0), or "" past its last line. */
static const char *value_line(const char *v, int k, size_t *len)
{
  while (k-- > 0) {
    const char *nl = strchr(v, '\n');
    if (!nl) {
      *len = 0;
      return "";
    }
    v = nl + 1;
  }
  const char *nl = strchr(v, '\n');
  *len = nl ? (size_t)(nl - v) : strlen(v);
  return v;
}

static void pad(iq_buf_t *b, size_t n)
{
  while (n-- > 0)
    iq_buf_putc(b, ' ');
}

/* Appends one cell of width w to the line being built. */
static void put_cell(iq_buf_t *line, int col, const char *s, size_t len, size_t w, bool right)
{
  size_t tw = iq_text_width(s, len);
  if (col > 0)
    iq_buf_puts(line, "  ");
  if (right)
    pad(line, w - tw);
  iq_buf_append(line, s, len);
  if (!right)
    pad(line, w - tw);
}

/* Writes the line without trailing blanks, then empties it. */
static void flush_line(FILE *out, iq_buf_t *line)
{
  size_t n = line->b_len;
  while (n > 0 && line->b_data[n - 1] == ' ')
    n--;
  fwrite(line->b_data ? line->b_data : "", 1, n, out);
  fputc('\n', out);
  iq_buf_clear(line);
}

static const char *cell_text(const PGresult *res, int r, int c)
{
  return PQgetisnull(res, r, c) ? "NULL" : PQgetvalue(res, r, c);
}

long iq_print_table(FILE *out, const PGresult *res, const iq_print_opts_t *po)
{
  int ncols = PQnfields(res);
  long nrows = PQntuples(res);
  long shown = po && po->po_maxrows > 0 && po->po_maxrows < nrows ? po->po_maxrows : nrows;
  size_t *width = iq_xmalloc(sizeof(size_t) * (size_t)(ncols ? ncols : 1));
  bool *right = iq_xmalloc(sizeof(bool) * (size_t)(ncols ? ncols : 1));
  iq_buf_t line = {0};
  int lines;

  for (int c = 0; c < ncols; c++) {
    width[c] = value_width(PQfname(res, c), &lines);
    right[c] = numeric_type(PQftype(res, c));
    for (long r = 0; r < shown; r++) {
      size_t w = value_width(cell_text(res, (int)r, c), &lines);
      if (w > width[c])
        width[c] = w;
    }
  }
  if (ncols > 0) {
    int height = 1; /* a column name may hold newlines too */
    for (int c = 0; c < ncols; c++) {
      value_width(PQfname(res, c), &lines);
      if (lines > height)
        height = lines;
    }
    for (int k = 0; k < height; k++) {
      for (int c = 0; c < ncols; c++) {
        size_t len;
        const char *s = value_line(PQfname(res, c), k, &len);
        put_cell(&line, c, s, len, width[c], right[c]);
      }
      flush_line(out, &line);
    }
    for (int c = 0; c < ncols; c++) {
      if (c > 0)
        iq_buf_puts(&line, "  ");
      for (size_t k = 0; k < width[c]; k++)
        iq_buf_putc(&line, '-');
    }
    flush_line(out, &line);
  }
  for (long r = 0; r < shown; r++) {
    int height = 1;
    for (int c = 0; c < ncols; c++) {
      value_width(cell_text(res, (int)r, c), &lines);
      if (lines > height)
        height = lines;
    }
    for (int k = 0; k < height; k++) {
      for (int c = 0; c < ncols; c++) {
        size_t len;
        const char *s = value_line(cell_text(res, (int)r, c), k, &len);
        put_cell(&line, c, s, len, width[c], right[c]);
      }
      flush_line(out, &line);
    }
  }
  iq_buf_free(&line);
  free(width);
  free(right);
  return shown;
}

bool iq_error_locate(const char *stmt, int stmt_line, long pos, iq_errloc_t *loc)
{
  const unsigned char *p = (const unsigned char *)stmt;
  size_t n = strlen(stmt), off = 0, line_start = 0;
  int line = stmt_line;

  if (pos < 1)
    return false;
  /* pos counts characters from 1; walk pos-1 of them. */
  for (long k = 1; k < pos; k++) {
    uint32_t cp;
    if (off >= n)
      return false;
    if (p[off] == '\n') {
      line++;
      line_start = off + 1;
    }
    off += utf8_next(p + off, n - off, &cp);
  }
  loc->el_line = line;
  loc->el_text = stmt + line_start;
  {
    const char *nl = strchr(stmt + line_start, '\n');
    loc->el_len = nl ? (size_t)(nl - (stmt + line_start)) : n - line_start;
  }
  loc->el_col = iq_text_width(stmt + line_start, off - line_start);
  return true;
}

void iq_print_error(FILE *out, const char *sqlstate, const char *message,
                    const char *detail, const char *hint, long pos,
                    const char *stmt, int stmt_line, const char *src_name)
{
  iq_errloc_t loc;
  size_t mlen = message ? strlen(message) : 0;

  /* libpq's messages end with a newline; ours are printed on one line. */
  while (mlen > 0 && (message[mlen - 1] == '\n' || message[mlen - 1] == ' '))
    mlen--;
  if (sqlstate && *sqlstate)
    fprintf(out, "*** Error %s: %.*s\n", sqlstate, (int)mlen, message ? message : "");
  else
    fprintf(out, "*** Error: %.*s\n", (int)mlen, message ? message : "");
  if (stmt && iq_error_locate(stmt, stmt_line, pos, &loc)) {
    if (src_name)
      fprintf(out, "at line %d of %s:\n", loc.el_line, src_name);
    fprintf(out, "%.*s\n", (int)loc.el_len, loc.el_text);
    /* Keep the line's tabs so the caret lands under the same spot. */
    {
      const unsigned char *q = (const unsigned char *)loc.el_text;
      size_t i = 0, col = 0;
      while (col < loc.el_col && i < loc.el_len) {
        uint32_t cp;
        size_t l = utf8_next(q + i, loc.el_len - i, &cp);
        if (cp == '\t') {
          fputc('\t', out);
          col++;
        } else {
          for (size_t w = cp_width(cp); w > 0; w--, col++)
            fputc(' ', out);
        }
        i += l;
      }
      while (col++ < loc.el_col)
        fputc(' ', out);
    }
    fputs("^\n", out);
  } else if (src_name && stmt) {
    fprintf(out, "at line %d of %s\n", stmt_line, src_name);
  }
  if (detail && *detail)
    fprintf(out, "DETAIL: %s\n", detail);
  if (hint && *hint)
    fprintf(out, "HINT: %s\n", hint);
}
