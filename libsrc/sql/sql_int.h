/* sql_int — what the scanner, the grammar and the node builders share.
 *
 * Design notes: one sql_pstate_t per sql_parse call holds everything a
 * parse needs (arena, text, error, scanner position, one token of
 * lookahead), so the scanner and the parser are reentrant. The first error
 * found wins: later ones (the parser's reaction to the scanner's error
 * token, say) do not overwrite it.
 */
#ifndef CZ_SQL_INT_H
#define CZ_SQL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sql/sql.h"
#include "util/util.h"

/* A token's or a rule's place in the text. */
typedef struct sql_loc_s {
  int lc_pos;    /* 1-based character position of its first character */
  size_t lc_off; /* byte offset of its first byte */
  size_t lc_end; /* byte offset just past its last byte */
} sql_loc_t;

/* The semantic value of tokens and grammar symbols (Bison's YYSTYPE). */
typedef union sql_yystype_u {
  const char *str;       /* identifiers, keywords, numbers as text, strings */
  int64_t ival;          /* $n */
  int num;               /* small flags and enumerations */
  bool flag;
  sql_expr_t *expr;
  sql_query_t *query;
  sql_list_t *list;
  sql_stmt_t *stmt;
  sql_from_t *from;
  sql_target_t *target;
  sql_order_t *order;
  sql_when_t *when;
  sql_type_t type;
  sql_name_t name;
  sql_coldef_t *coldef;
  sql_tabcons_t *tabcons;
  sql_assign_t *assign;
  sql_role_t *role;
  sql_insert_t *insert;
  sql_create_table_t *ctab;
  sql_seqopts_t *seqopts;
  sql_view_t *view;
  struct sql_limit_s {
    sql_expr_t *li_limit;  /* NULL for LIMIT ALL or none */
    sql_expr_t *li_offset;
  } limit;
  struct sql_mods_s {      /* type modifiers: VARCHAR(n), NUMERIC(p,s) */
    int md_n;
    int64_t md_v[2];
  } mods;
  struct sql_lockc_s {     /* FOR UPDATE / FOR SHARE [OF …] [NOWAIT | SKIP LOCKED] */
    sql_lock_t lk_mode;
    sql_list_t *lk_of;     /* of sql_name_t *; NULL = every table */
    int lk_wait;           /* SQL_LOCK_WAIT / NOWAIT / SKIP */
    int lk_pos;
  } lock;
  struct sql_alias_s {     /* [AS] name [(col, …)] of a FROM item */
    const char *al_name;
    sql_list_t *al_cols;
  } alias;
  sql_copy_t *copy;
  sql_comment_t *comment;
  sql_txnmode_t *txn;
  sql_window_t *window;
  sql_cte_t *cte;
  sql_alter_t *alter;
  sql_alter_cmd_t *altcmd;
} sql_yystype_t;

typedef struct sql_pstate_s {
  arena_t *ps_arena;
  const char *ps_text;
  size_t ps_len;
  err_t *ps_err;
  bool ps_failed;        /* ps_err holds the error of this parse */
  void *ps_scanner;      /* the Flex yyscan_t */
  /* scanner position: what the scanner has consumed so far */
  int ps_chars;
  size_t ps_bytes;
  int ps_comment_depth;  /* nested block comments */
  int ps_comment_pos;    /* where the outermost open comment began */
  /* an open dollar-quoted string ($tag$…$tag$): its delimiter, where it
   * began, and its text so far (arena) */
  const char *ps_dq_delim;
  sql_loc_t ps_dq_loc;
  char *ps_dq_buf;
  size_t ps_dq_len, ps_dq_cap;
  /* one token of lookahead, see sql_lex in sql_gram.y */
  bool ps_have_la;
  int ps_la_tok;
  sql_yystype_t ps_la_val;
  sql_loc_t ps_la_loc;
  int ps_iv_state;       /* tokens of INTERVAL 'text' seen so far (0-2), see sql_yylex */
  int ps_prev_tok;       /* the token sql_yylex returned last (TOP's context) */
  sql_list_t *ps_stmts;  /* of sql_stmt_t */
} sql_pstate_t;

/* errors (sql_node.c); each returns CZ_ERR and keeps the first error */
int sql_error_at(sql_pstate_t *ps, const char *sqlstate, int pos, const char *fmt, ...)
  CZ_PRINTF(4, 5);
/* 42601 "syntax error at or near "<token text>"" or "… at end of input". */
int sql_syntax_error(sql_pstate_t *ps, const sql_loc_t *loc);

/* the scanner (sql_scan.l) */
int sql_scan_init(sql_pstate_t *ps);
void sql_scan_done(sql_pstate_t *ps);
int sql_scan_lex(sql_yystype_t *val, sql_loc_t *loc, void *scanner);

/* node builders (sql_node.c); those returning a pointer return NULL after
 * setting an error, and grammar actions then abort the parse */
sql_list_t *sql_list_append(arena_t *a, sql_list_t *l, void *item);
sql_expr_t *sql_expr_new(sql_pstate_t *ps, sql_expr_kind_t kind, int pos);
/* Computes x->ex_depth from its operands; NULL with 54001 when too deep. */
sql_expr_t *sql_expr_done(sql_pstate_t *ps, sql_expr_t *x);
sql_expr_t *sql_expr_op(sql_pstate_t *ps, sql_op_t op, int pos, sql_expr_t *l, sql_expr_t *r);
/* The same negated: NOT LIKE, IS NOT NULL, … */
sql_expr_t *sql_expr_op_not(sql_pstate_t *ps, sql_op_t op, int pos, sql_expr_t *l,
                            sql_expr_t *r);
sql_expr_t *sql_expr_number(sql_pstate_t *ps, const char *text, int pos, sql_lit_kind_t kind);
sql_expr_t *sql_expr_string(sql_pstate_t *ps, const char *text, int pos);
/* Unary minus; a numeric literal operand becomes a negative literal. */
sql_expr_t *sql_expr_negate(sql_pstate_t *ps, sql_expr_t *x, int pos);
sql_query_t *sql_query_setop(sql_pstate_t *ps, sql_query_kind_t kind, bool all, int pos,
                             sql_query_t *l, sql_query_t *r);
/* Puts ORDER BY / LIMIT / OFFSET on q; 42601 when q already has one. */
sql_query_t *sql_query_tail(sql_pstate_t *ps, sql_query_t *q, sql_list_t *order,
                            sql_expr_t *limit, sql_expr_t *offset, int pos);
/* A table or derived table as a FROM item (q NULL: the table n). */
sql_from_t *sql_from_item(sql_pstate_t *ps, int pos, sql_name_t n, sql_query_t *q,
                          const char *alias);
/* A join of two FROM items; NULL with 54001 when joins nest too deeply. */
sql_from_t *sql_from_join(sql_pstate_t *ps, sql_join_kind_t kind, int pos, sql_from_t *l,
                          sql_from_t *r, sql_expr_t *on);
sql_stmt_t *sql_stmt_new(sql_pstate_t *ps, sql_stmt_kind_t kind);

/* type names (sql_type.c) */
#define SQL_TYPE_PLAIN 0
#define SQL_TYPE_PRECISION 1 /* DOUBLE PRECISION */
#define SQL_TYPE_VARYING 2   /* CHARACTER VARYING */
#define SQL_TYPE_NO_TZ 3     /* TIMESTAMP WITHOUT TIME ZONE */
#define SQL_TYPE_TZ 4        /* TIMESTAMP WITH TIME ZONE */
/* Resolves a type as written; nmods is 0, 1 or 2 modifiers in mods.
 * schema is the qualifier (only "pg_catalog" names built-in types; NULL
 * when none); quoted says the name was a quoted identifier, which tells
 * "char" (the one-byte catalog type) from char (CHAR(1)). */
int sql_type_resolve(sql_pstate_t *ps, const char *schema, const char *name, bool quoted,
                     int variant, int nmods, const int64_t *mods, int pos, sql_type_t *out);

/* COPY options (sql_copy.c): one `name [value]` of the WITH (…) list or of
 * the old option syntax applied to c; 42601 for an unknown or repeated
 * option, 22023 for a bad value. value NULL when none was written; list
 * for FORCE_QUOTE (…) / FORCE_NOT_NULL (…); star for FORCE_QUOTE *. */
int sql_copy_option(sql_pstate_t *ps, sql_copy_t *c, const char *name, const char *value,
                    sql_list_t *list, bool star, int pos);
/* A table's or an index's storage parameter `name [= value]` of its
 * WITH (…) list (sql_relopt.c): only layout = row | column, as *layout
 * ('r' / 'c'; prev is the value of the parameters before, 0 none). 22023
 * for an unknown or repeated parameter or a bad value, as PostgreSQL's
 * reloptions. */
int sql_rel_option(sql_pstate_t *ps, int prev, const char *name, const char *value, int pos,
                   int *layout);
/* Checks the options of a complete COPY against its direction (22023/0A000). */
int sql_copy_check(sql_pstate_t *ps, sql_copy_t *c, int pos);

/* literal text (sql_string.c) */
/* Byte offset of the first invalid UTF-8 sequence (or NUL byte), or len. */
size_t sql_utf8_check(const char *s, size_t len);
/* Characters in s[0..len) of valid UTF-8. */
int sql_utf8_chars(const char *s, size_t len);
/* The longest prefix of s, at most max bytes, that does not split a
 * character: for quoting text in messages. */
size_t sql_utf8_prefix(const char *s, size_t len, size_t max);
/* The body of a quoted string or identifier with doubled quotes undone. */
char *sql_string_dequote(arena_t *a, const char *s, size_t len, char quote);
/* The body of an E'' string with its backslash escapes decoded; NULL with
 * 22025 for a bad escape or 22021 when the result is not valid UTF-8. pos
 * is where the literal begins. */
char *sql_string_unescape(sql_pstate_t *ps, const char *s, size_t len, int pos);
/* An identifier as the catalog sees it: unquoted ones folded to lower case
 * (ASCII letters only, as PostgreSQL does for UTF-8), quoted ones kept with
 * "" undone. NULL with 42622 when longer than SQL_NAME_MAX bytes, 42601 for
 * a zero-length quoted one. */
char *sql_ident_fold(sql_pstate_t *ps, const char *s, size_t len, int pos, bool quoted);

#endif /* CZ_SQL_INT_H */
