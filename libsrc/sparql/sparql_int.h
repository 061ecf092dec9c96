/* sparql_int — what the scanner, the grammar, the builders, the checks and
 * the translation share.
 *
 * Design notes: one sp_pstate_t per sp_parse call holds everything a parse
 * needs (arena, text, error, the prologue in force, counters for fresh
 * blank nodes and variables), so the scanner and the parser are reentrant.
 * The first error wins: later ones (the parser's reaction to the scanner's
 * error token) do not overwrite it.
 */
#ifndef CZ_SPARQL_INT_H
#define CZ_SPARQL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparql/sparql.h"
#include "util/util.h"

/* A token's or a rule's place in the text. */
typedef struct sp_loc_s {
  int lc_pos;    /* 1-based character position of the first character */
  size_t lc_off; /* byte offset of the first byte */
  size_t lc_end; /* byte offset just past the last byte */
} sp_loc_t;

/* A node of a triples pattern as written: its term and the triples the
 * node itself stands for ([ :p :o ] and ( … ) make triples of their own). */
typedef struct sp_node_s {
  sp_term_t *nd_term;
  sp_list_t *nd_triples;  /* sp_triple_t *, NULL = none */
} sp_node_t;

/* One verb of a property list with its objects. */
typedef struct sp_verbobj_s {
  sp_term_t *vo_var;    /* a variable verb, or NULL */
  sp_path_t *vo_path;   /* else the path (a plain IRI is SP_P_LINK) */
  sp_list_t *vo_objs;   /* sp_node_t * */
} sp_verbobj_t;

/* A prefixed name as scanned: the prefix (no colon) and the raw local part. */
typedef struct sp_pname_s {
  const char *pn_prefix;
  const char *pn_local;
} sp_pname_t;

/* The semantic value of tokens and grammar symbols (Bison's YYSTYPE). */
typedef union sp_yystype_u {
  const char *str;
  int num;
  bool flag;
  int64_t ival;
  sp_pname_t pname;
  sp_term_t *term;
  sp_expr_t *expr;
  sp_path_t *path;
  sp_node_t *node;
  sp_verbobj_t *vo;
  sp_list_t *list;
  sp_pat_t *pat;
  sp_query_t *query;
  sp_update_t *update;
  sp_values_t *values;
  sp_selitem_t *sel;
  sp_order_t *order;
  sp_gref_t gref;
  struct sp_solmod_s {
    sp_list_t *sm_group, *sm_having, *sm_order;
    int64_t sm_limit, sm_offset;
  } solmod;
} sp_yystype_t;

typedef struct sp_pstate_s {
  arena_t *ps_arena;
  const char *ps_text;
  size_t ps_len;
  err_t *ps_err;
  bool ps_failed;
  void *ps_scanner;          /* the Flex yyscan_t */
  int ps_first_token;        /* the mode's start token, returned once */
  /* scanner position */
  int ps_chars;
  size_t ps_bytes;
  int ps_line;               /* 1-based line of the next character */
  size_t ps_line_off;        /* byte offset where that line starts */
  /* prologue in force */
  const char *ps_base;
  sp_list_t *ps_prefixes;    /* sp_prefix_t * */
  /* fresh names */
  int ps_bnode_seq;          /* anonymous blank nodes */
  int ps_var_seq;            /* variables made by the translation */
  int ps_agg_seq;            /* ?.N aggregate variables */
  sp_request_t *ps_req;
} sp_pstate_t;

/* ---- errors (sp_node.c) ---- */
/* Sets 42601 (or sqlstate) with "line L, column C" for the character
 * position pos (0 = no position), once; returns NULL for builders. */
void *sp_fail(sp_pstate_t *ps, int pos, const char *fmt, ...) CZ_PRINTF(3, 4);
void *sp_fail_state(sp_pstate_t *ps, const char *sqlstate, int pos, const char *fmt, ...)
  CZ_PRINTF(4, 5);
/* Line and column of a character position. */
void sp_line_col(const sp_pstate_t *ps, int pos, int *line, int *col);

/* ---- builders (sp_node.c) ---- */
sp_term_t *sp_term_new(sp_pstate_t *ps, sp_term_kind_t k, const char *s, int pos);
sp_term_t *sp_bnode_fresh(sp_pstate_t *ps, int pos);
sp_term_t *sp_var_fresh(sp_pstate_t *ps);
sp_term_t *sp_iri_term(sp_pstate_t *ps, const char *iri, int pos);
const char *sp_iri_from_ref(sp_pstate_t *ps, const char *ref, int pos);
const char *sp_iri_from_pname(sp_pstate_t *ps, sp_pname_t pn, int pos);
int sp_prefix_declare(sp_pstate_t *ps, const char *name, const char *iri, int pos);
int sp_base_declare(sp_pstate_t *ps, const char *iri, int pos);
sp_expr_t *sp_expr_new(sp_pstate_t *ps, sp_expr_kind_t k, int pos);
sp_expr_t *sp_expr_bin(sp_pstate_t *ps, sp_expr_kind_t k, sp_expr_t *a, sp_expr_t *b, int pos);
sp_expr_t *sp_expr_term(sp_pstate_t *ps, sp_term_t *t);
/* Sets e->ex_depth from its operands; past SP_MAX_DEPTH the parse fails (54001). */
void sp_expr_depth(sp_pstate_t *ps, sp_expr_t *e);
sp_expr_t *sp_expr_builtin(sp_pstate_t *ps, const char *name, sp_list_t *args, int pos);
sp_pat_t *sp_pat_new(sp_pstate_t *ps, sp_pat_kind_t k, int pos);
sp_path_t *sp_path_new(sp_pstate_t *ps, sp_path_kind_t k, sp_path_t *a, sp_path_t *b);
sp_path_t *sp_path_link(sp_pstate_t *ps, const char *iri);
sp_node_t *sp_node_term(sp_pstate_t *ps, sp_term_t *t);
sp_node_t *sp_node_bnode_plist(sp_pstate_t *ps, sp_list_t *plist, int pos);
sp_node_t *sp_node_collection(sp_pstate_t *ps, sp_list_t *nodes, int pos);
/* The triples of subject node s with property list plist (sp_verbobj_t *, may be NULL). */
sp_list_t *sp_triples_of(sp_pstate_t *ps, sp_node_t *s, sp_list_t *plist);
sp_list_t *sp_concat(sp_pstate_t *ps, sp_list_t *a, sp_list_t *b);
/* Quads of a triples list in graph g (NULL = default). */
sp_list_t *sp_quads_of(sp_pstate_t *ps, sp_list_t *triples, sp_term_t *g, sp_list_t *into);
sp_query_t *sp_query_new(sp_pstate_t *ps, sp_query_kind_t k, int pos);
sp_update_t *sp_update_new(sp_pstate_t *ps, sp_update_kind_t k, int pos);

/* ---- lexical forms (sp_lit.c) ---- */
/* Decodes a quoted string token (quotes included, long or short) into UTF-8. */
const char *sp_lit_string(sp_pstate_t *ps, const char *text, size_t len, int pos);
/* Decodes an IRIREF token (angle brackets included): \u escapes, checks. */
const char *sp_lit_iriref(sp_pstate_t *ps, const char *text, size_t len, int pos);
/* Checks the non-ASCII characters of a name token against PN_CHARS etc.
 * kind: 'p' prefix, 'l' local part, 'v' variable name, 'b' blank node label. */
bool sp_lit_name_ok(sp_pstate_t *ps, char kind, const char *s, size_t len, int pos);
/* Undoes PN_LOCAL_ESC (\-escapes) of a local part; %XX stays as written. */
const char *sp_lit_local(sp_pstate_t *ps, const char *s, size_t len);
/* Keyword lookup: the token and, for built-in calls, the canonical name. */
int sp_keyword(const char *s, size_t len, const char **canon);
/* Built-in calls and aggregates (sp_builtin.c): the canonical name of
 * word (upper case) or NULL; *agg tells an aggregate. */
const char *sp_builtin_find(const char *word, bool *agg);
bool sp_builtin_arity(const char *canon, int *min, int *max);
/* The byte offset of the first ill-formed UTF-8 sequence, or (size_t)-1. */
size_t sp_utf8_invalid_at(const char *s, size_t len);

/* ---- string-keyed maps (sp_strmap.c); values are never NULL ---- */
typedef struct sp_strmap_s sp_strmap_t;
sp_strmap_t *sp_strmap_new(arena_t *a);
void *sp_strmap_get(const sp_strmap_t *m, const char *key);
void sp_strmap_put(sp_strmap_t *m, const char *key, void *val);

/* ---- checks (sp_check.c) and translation (sp_algebra.c) ---- */
int sp_check_request(sp_pstate_t *ps, sp_request_t *rq);
int sp_translate_request(sp_pstate_t *ps, sp_request_t *rq);
/* Variables in scope of a pattern (§18.2.1), appended to vars without duplicates. */
/* A set of variables in the order first seen (vs_list: sp_term_t *), with
 * a map for constant-time membership (queries may name very many). */
typedef struct sp_varset_s {
  sp_list_t *vs_list;
  sp_strmap_t *vs_map;
} sp_varset_t;
sp_varset_t *sp_varset_new(arena_t *a);
void sp_scope_pattern(const sp_pat_t *p, sp_varset_t *vars, arena_t *a);
bool sp_vars_has(const sp_varset_t *vars, const char *name);
void sp_vars_add(arena_t *a, sp_varset_t *vars, sp_term_t *v);

/* ---- sp_sql_text.c: SQL text pieces for the compiler ---------------------- */

/* 'text' with quotes doubled; "name" with quotes doubled. */
char *sp_sql_quote(arena_t *a, const char *s);
char *sp_sql_ident(arena_t *a, const char *name);
/* A constant term's id: for inline literals *inline_id (an int8 literal)
 * and NULL returned; else a query "SELECT id …" over the dictionaries with
 * one row, none when the term is unknown. NULL with e set (0A000) for
 * values too long to look up. */
char *sp_sql_term_query(arena_t *a, const sp_term_t *t, char **inline_id, err_t *e);
/* The SQL expression of a constant term's id; 0 (no term) when unknown. */
char *sp_sql_term_id(arena_t *a, const sp_term_t *t, err_t *e);

#endif /* CZ_SPARQL_INT_H */
