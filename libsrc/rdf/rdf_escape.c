/* rdf_escape — how each output format escapes strings and terms.
 *
 * Design notes: one place for the escaping rules, so every writer gets
 * them the same way. N-Triples strings follow the canonical N-Triples form
 * of RDF 1.1 (section 4 of the N-Triples recommendation): ECHAR only for
 * ", \, LF and CR; UCHAR \u00XX for the other C0 controls and DEL; every
 * other character as UTF-8. IRIs escape the characters IRIREF forbids as
 * UCHAR. JSON escapes what RFC 8259 requires. XML 1.0 cannot carry C0
 * controls other than TAB, LF and CR at all (not even as character
 * references), so those become U+FFFD; CR is written as &#13; so that XML
 * line-end normalisation does not turn it into LF.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rdf/rdf_int.h"

static int rdf_esc_uchar(rdf_out_t *o, unsigned char c)
{
  char b[8];
  snprintf(b, sizeof(b), "\\u%04X", c);
  return rdf_out_put(o, b, 6);
}

int rdf_esc_nt_string(rdf_out_t *o, const char *s, size_t n, bool tab)
{
  size_t run = 0; /* start of the bytes that need no escape */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *rep = NULL;
    if (c == '"')
      rep = "\\\"";
    else if (c == '\\')
      rep = "\\\\";
    else if (c == '\n')
      rep = "\\n";
    else if (c == '\r')
      rep = "\\r";
    else if (c == '\t')
      rep = tab ? "\\t" : NULL;
    else if (c < 0x20 || c == 0x7F)
      rep = "";
    if (!rep)
      continue;
    rdf_out_put(o, s + run, i - run);
    if (*rep)
      rdf_out_puts(o, rep);
    else
      rdf_esc_uchar(o, c);
    run = i + 1;
  }
  return rdf_out_put(o, s + run, n - run);
}

/* The bytes IRIREF forbids (controls, space and <>"{}|^`\): a table,
 * not a strchr per byte — every IRI of every result row passes here. */
static bool rdf_iri_forbidden(unsigned char c)
{
  static const uint64_t low = 0xFFFFFFFFull | 1ull << ' ' | 1ull << '<' | 1ull << '>' | 1ull << '"';
  static const uint64_t high = 1ull << ('{' - 64) | 1ull << ('}' - 64) | 1ull << ('|' - 64) |
                               1ull << ('^' - 64) | 1ull << ('`' - 64) | 1ull << ('\\' - 64);
  return c < 64 ? (low >> c) & 1 : c < 128 ? (high >> (c - 64)) & 1 : false;
}

int rdf_esc_nt_iri(rdf_out_t *o, const char *s, size_t n)
{
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!rdf_iri_forbidden(c))
      continue;
    rdf_out_put(o, s + run, i - run);
    rdf_esc_uchar(o, c);
    run = i + 1;
  }
  return rdf_out_put(o, s + run, n - run);
}

bool rdf_esc_bnode_ok(const char *s, size_t n)
{
  if (n == 0 || s[0] == '-' || s[0] == '.' || s[n - 1] == '.')
    return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '-' || c == '.'))
      return false;
  }
  return true;
}

/* Labels outside the safe ASCII set (which the reader never produces, but
 * terms from elsewhere may carry) are written as "x" and the label's bytes
 * in hex: a valid label, one per distinct input. */
int rdf_esc_bnode(rdf_out_t *o, const char *s, size_t n)
{
  rdf_out_put(o, "_:", 2);
  if (rdf_esc_bnode_ok(s, n) && s[0] != 'x')
    return rdf_out_put(o, s, n);
  rdf_out_putc(o, 'x');
  for (size_t i = 0; i < n; i++) {
    char b[3];
    snprintf(b, sizeof(b), "%02x", (unsigned char)s[i]);
    rdf_out_put(o, b, 2);
  }
  return rdf_out_status(o);
}

int rdf_esc_nt_term(rdf_out_t *o, const rdf_term_t *t, bool tab)
{
  switch (t->rt_kind) {
  case RDF_IRI:
    rdf_out_putc(o, '<');
    rdf_esc_nt_iri(o, t->rt_str, t->rt_len);
    return rdf_out_putc(o, '>');
  case RDF_BNODE:
    return rdf_esc_bnode(o, t->rt_str, t->rt_len);
  case RDF_LITERAL:
    rdf_out_putc(o, '"');
    rdf_esc_nt_string(o, t->rt_str, t->rt_len, tab);
    rdf_out_putc(o, '"');
    if (t->rt_lang_len) {
      rdf_out_putc(o, '@');
      return rdf_out_put(o, t->rt_lang, t->rt_lang_len);
    }
    if (t->rt_dt && !(t->rt_dt_len == sizeof(RDF_XSD_STRING) - 1 &&
                      memcmp(t->rt_dt, RDF_XSD_STRING, t->rt_dt_len) == 0)) {
      rdf_out_put(o, "^^<", 3);
      rdf_esc_nt_iri(o, t->rt_dt, t->rt_dt_len);
      return rdf_out_putc(o, '>');
    }
    return rdf_out_status(o);
  default:
    return rdf_out_status(o);
  }
}

int rdf_esc_json_string(rdf_out_t *o, const char *s, size_t n)
{
  rdf_out_putc(o, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *rep = NULL;
    char b[8];
    if (c == '"')
      rep = "\\\"";
    else if (c == '\\')
      rep = "\\\\";
    else if (c == '\n')
      rep = "\\n";
    else if (c == '\r')
      rep = "\\r";
    else if (c == '\t')
      rep = "\\t";
    else if (c == '\b')
      rep = "\\b";
    else if (c == '\f')
      rep = "\\f";
    else if (c < 0x20) {
      snprintf(b, sizeof(b), "\\u%04x", c);
      rep = b;
    }
    if (!rep)
      continue;
    rdf_out_put(o, s + run, i - run);
    rdf_out_puts(o, rep);
    run = i + 1;
  }
  rdf_out_put(o, s + run, n - run);
  return rdf_out_putc(o, '"');
}

int rdf_esc_xml_text(rdf_out_t *o, const char *s, size_t n)
{
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *rep = NULL;
    switch (c) {
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    case '"': rep = "&quot;"; break;
    case '\'': rep = "&apos;"; break;
    case '\r': rep = "&#13;"; break;
    default:
      if (c < 0x20 && c != '\t' && c != '\n')
        rep = "\xEF\xBF\xBD"; /* U+FFFD: XML 1.0 has no form for it */
    }
    if (!rep)
      continue;
    rdf_out_put(o, s + run, i - run);
    rdf_out_puts(o, rep);
    run = i + 1;
  }
  return rdf_out_put(o, s + run, n - run);
}
