/* sql_bind_syn — binding of the grammar additions that need more than a
 * node mapping: `a LIKE b ESCAPE c` (sql_bind_like.c) and INTERVAL
 * literals in date/timestamp arithmetic (sql_bind_interval.c). Called
 * from sql_bind_expr.c; owned with the grammar.
 */
#ifndef CZ_SQL_BIND_SYN_H
#define CZ_SQL_BIND_SYN_H

#include "sql/sql_bind_int.h"

/* The pattern of x (a [NOT] [I]LIKE with ex_third set), already bound as
 * *pattern, rewritten to the executor's backslash-escape form: each
 * occurrence of the escape character before a character becomes a
 * backslash, a backslash that is not escaped is doubled, and an empty
 * escape makes every character literal. Pattern and escape must be
 * constants (the usual case), except that the escape '\' needs no
 * rewrite and so allows any pattern; otherwise 0A000. Escape longer than
 * one character, or a pattern ending in the escape character: 22025. */
int bd_like_escape(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **pattern);

/* x is `a [NOT] SIMILAR TO b [ESCAPE c]`, b bound as *pattern: replaced
 * by the POSIX extended regular expression that means the same, anchored
 * at both ends, for regexp_like (PostgreSQL's similar_to_escape): % is .*,
 * _ is ., the escape character (default backslash; '' none) makes the
 * next character literal, . ^ $ are literal, | * + ? {m,n} ( ) and
 * bracket expressions keep their meaning. Pattern and escape must be
 * constants: else 0A000; an escape longer than one character, 22025. */
int bd_similar_pattern(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **pattern);

/* Whether x is an INTERVAL literal (SQL_LIT_INTERVAL). */
bool bd_is_interval(const sql_expr_t *x);

/* x is `d + i`, `i + d` or `d - i` with i an INTERVAL literal (checked by
 * the caller with bd_is_interval): bound as PostgreSQL types it, a
 * TIMESTAMP. A constant date or timestamp d is folded (months first, the
 * day clamped to the month's end, then days, then time). A non-constant d
 * works when the interval is whole days (date + integer, then cast);
 * anything else needs an interval type, which does not exist: 0A000. */
int bd_interval_arith(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);

/* An INTERVAL literal anywhere else: 0A000 (there is no interval type). */
int bd_interval_alone(bd_t *b, const sql_expr_t *x);

#endif
