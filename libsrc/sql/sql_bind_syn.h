/* sql_bind_syn — binding of the grammar additions that need more than a
 * node mapping: `a LIKE b ESCAPE c` and SIMILAR TO (sql_bind_like.c). Called
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

#endif
