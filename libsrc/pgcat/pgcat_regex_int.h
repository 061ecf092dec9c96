/* pgcat_regex_int.h — what the regular-expression files share: the flag
 * letters, the translation of PostgreSQL's syntax into PCRE2's
 * (pgcat_regex_syntax.c) and the bounded, interruptible matcher
 * (pgcat_regex.c) that the SQL functions (pgcat_regex_func.c) call.
 */
#ifndef CZ_PGCAT_REGEX_INT_H
#define CZ_PGCAT_REGEX_INT_H

#include <stddef.h>
#include <stdint.h>

#include "pgcat/pgcat_int.h"


/* Bytes of the UTF-8 sequence lead byte c starts (1 for a stray byte). */
static inline size_t rx_utf8_len(unsigned char c)
{
  return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* Options, from a function's flags argument and the pattern's leading
 * embedded options (PostgreSQL's letters, table 9.24). */
#define RX_ICASE 0x01u       /* i (c clears it) */
#define RX_NL_DOT 0x02u      /* n, m, p: . and [^…] do not match a newline */
#define RX_NL_ANCHOR 0x04u   /* n, m, w: ^ and $ match at newlines too */
#define RX_EXPANDED 0x08u    /* x (t clears it): white space and # comments ignored */
#define RX_LITERAL 0x10u     /* q, or a ***= prefix: every character is itself */
#define RX_GLOBAL 0x20u      /* g: every match (regexp_replace); never compiled */

/* Parses a flags argument into *flags (starting from *flags). 22023 for
 * a letter PostgreSQL does not have, 0A000 for b and e (basic and
 * extended POSIX syntax: only the advanced syntax is translated). fn names
 * the SQL function for the message when g is not allowed (allow_g false). */
int rx_parse_flags(const char *s, size_t n, bool allow_g, const char *fn, unsigned *flags,
                   err_t *e);

/* The PCRE2 pattern for PostgreSQL pattern p (n bytes) under flags:
 * *out (malloc'd, NUL-terminated, *out_len bytes) and the final flags
 * after the pattern's own embedded options (*out_flags). 2201B with
 * PostgreSQL's message for what PostgreSQL refuses or PCRE2 would read
 * differently. */
int rx_translate(const char *p, size_t n, unsigned flags, char **out, size_t *out_len,
                 unsigned *out_flags, err_t *e);

/* A compiled pattern; owned by the calling thread's cache (valid until
 * that thread compiles RX_CACHE_SLOTS other patterns). */
typedef struct rx_s rx_t;

/* The compiled form of PostgreSQL pattern pat under flags (RX_GLOBAL is
 * ignored): from the thread's cache, or translated and compiled now.
 * NULL with 2201B (invalid), 54001 (too large) or 53200. */
rx_t *rx_get(const str_t *pat, unsigned flags, err_t *e);
/* Capturing groups of r. */
int rx_groups(const rx_t *r);

/* One match attempt of r in subject s (len bytes) from byte offset start
 * (a character boundary; checked: s was already found valid UTF-8 by an
 * earlier call, so PCRE2 need not look again):
 * 1 with the match's byte offsets in ov (ov[2k], ov[2k+1] for group k;
 * -1 for a group that did not take part; room for rx_groups + 1 pairs),
 * 0 when there is none, -1 with the error: 57014 (cancel, timeout) and
 * 53200 (memory budget) from the statement's context c, 54001 when the
 * match passes its backtracking limits, 22021 for invalid UTF-8. */
int rx_match(xctx_t *c, rx_t *r, const char *s, size_t len, size_t start, bool checked,
             int64_t *ov, err_t *e);

#endif /* CZ_PGCAT_REGEX_INT_H */
