/* sparql — the SPARQL 1.1 Query and Update front end: text in, a checked
 * syntax tree and its SPARQL algebra (spec §18.2) out.
 *
 * Design notes: sp_parse runs the scanner and grammar (sp_scan.l,
 * sp_gram.y), resolves IRIs against BASE, runs the static checks the
 * standard requires (sp_check.c) and translates every query pattern to the
 * algebra (sp_algebra.c). Everything lives in the caller's arena; the parse
 * is reentrant. Errors are 42601 with a message naming line and column (and
 * er_pos, the 1-based character position). The SPARQL-to-SQL compiler and
 * execution are later stages that read sp_request_t. See README.md.
 */
#ifndef CZ_SPARQL_H
#define CZ_SPARQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/util.h"

/* No expression, path or algebra tree is higher than this (54001 past it),
 * so the recursive walkers here and in later stages need no checks of
 * their own: long chains (a + b + …, {…} UNION {…} …) are built by loops
 * in the parser but walked by recursion. */
#define SP_MAX_DEPTH 1000

/* A growable array of pointers; the element type is named at each use. */
typedef struct sp_list_s {
  int ls_n;
  int ls_cap;
  void **ls_v;
} sp_list_t;

#define XSD_NS "http://www.w3.org/2001/XMLSchema#"
#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

/* ---- terms ------------------------------------------------------------ */

typedef enum sp_term_kind_e {
  SP_T_IRI,
  SP_T_LIT,
  SP_T_BNODE,  /* in templates and data; in query patterns they become SP_T_VAR with tm_anon */
  SP_T_VAR
} sp_term_kind_t;

typedef struct sp_term_s {
  sp_term_kind_t tm_kind;
  const char *tm_str;   /* IRI (absolute after resolution), lexical form, blank node label, var name */
  const char *tm_dt;    /* literal: datatype IRI; NULL = simple literal (xsd:string) or language tagged */
  const char *tm_lang;  /* literal: language tag as written; NULL = none */
  bool tm_anon;         /* bnode written [] / [...] / ( ... ), or a variable standing for a blank node or a path step */
  int tm_bgp;           /* labelled bnode: the basic graph pattern it was seen in (the sharing check) */
  int tm_pos;           /* 1-based character position; 0 for terms the translation made */
} sp_term_t;

/* ---- property paths ----------------------------------------------------- */

typedef enum sp_path_kind_e {
  SP_P_LINK,   /* pa_iri */
  SP_P_INV,    /* ^pa_a */
  SP_P_SEQ,    /* pa_a / pa_b */
  SP_P_ALT,    /* pa_a | pa_b */
  SP_P_STAR,   /* ZeroOrMorePath(pa_a) */
  SP_P_PLUS,   /* OneOrMorePath(pa_a) */
  SP_P_OPT,    /* ZeroOrOnePath(pa_a) */
  SP_P_NPS     /* NPS: !(pa_fwd | ^pa_inv); the translation splits a mixed set (§18.2.2.4) */
} sp_path_kind_t;

typedef struct sp_path_s {
  sp_path_kind_t pa_kind;
  const char *pa_iri;
  struct sp_path_s *pa_a, *pa_b;
  sp_list_t *pa_fwd;    /* NPS: const char * IRIs, forward */
  sp_list_t *pa_inv;    /* NPS: const char * IRIs written ^iri */
  int pa_depth;         /* height of the tree below (at most SP_MAX_DEPTH) */
} sp_path_t;

/* A triple pattern, or a path pattern when tr_path is set (tr_p NULL). */
typedef struct sp_triple_s {
  sp_term_t *tr_s, *tr_p, *tr_o;
  sp_path_t *tr_path;
} sp_triple_t;

/* A quad of an update template or data block: tr with its GRAPH (NULL = the default graph). */
typedef struct sp_quad_s {
  sp_term_t *qd_g;
  sp_triple_t *qd_t;
} sp_quad_t;

/* ---- expressions -------------------------------------------------------- */

typedef enum sp_expr_kind_e {
  SP_E_TERM,     /* ex_term */
  SP_E_OR, SP_E_AND, SP_E_EQ, SP_E_NE, SP_E_LT, SP_E_GT, SP_E_LE, SP_E_GE,
  SP_E_ADD, SP_E_SUB, SP_E_MUL, SP_E_DIV,          /* ex_a, ex_b */
  SP_E_NOT, SP_E_NEG, SP_E_POS,                    /* ex_a */
  SP_E_IN, SP_E_NOTIN,                             /* ex_a IN ex_args */
  SP_E_BUILTIN,  /* ex_name (canonical spelling, sp_builtin_name), ex_args */
  SP_E_FUNC,     /* ex_name = function IRI, ex_args, ex_distinct */
  SP_E_AGG,      /* ex_name = count|sum|min|max|avg|sample|group_concat; ex_args (0 or 1), ex_star, ex_distinct, ex_sep */
  SP_E_EXISTS, SP_E_NOTEXISTS  /* ex_pat; after translation ex_op */
} sp_expr_kind_t;

struct sp_pat_s;
struct sp_op_s;

typedef struct sp_expr_s {
  sp_expr_kind_t ex_kind;
  sp_term_t *ex_term;
  struct sp_expr_s *ex_a, *ex_b;
  sp_list_t *ex_args;        /* sp_expr_t * */
  const char *ex_name;
  bool ex_distinct;
  bool ex_star;              /* COUNT(*) */
  const char *ex_sep;        /* GROUP_CONCAT's SEPARATOR; NULL = none written (" ") */
  struct sp_pat_s *ex_pat;   /* EXISTS */
  struct sp_op_s *ex_op;     /* EXISTS after translation */
  int ex_pos;
  int ex_depth;              /* height of the tree below (at most SP_MAX_DEPTH) */
} sp_expr_t;

/* ---- graph patterns (the syntax tree) ------------------------------------ */

typedef enum sp_pat_kind_e {
  SP_G_GROUP,      /* pt_list: sp_pat_t * elements in order */
  SP_G_TRIPLES,    /* pt_list: sp_triple_t * (a TriplesBlock: one basic graph pattern with its paths) */
  SP_G_OPTIONAL,   /* pt_sub */
  SP_G_MINUS,      /* pt_sub */
  SP_G_UNION,      /* pt_list: sp_pat_t * groups, two or more */
  SP_G_GRAPH,      /* pt_name, pt_sub */
  SP_G_SERVICE,    /* pt_name, pt_silent, pt_sub */
  SP_G_FILTER,     /* pt_expr */
  SP_G_BIND,       /* pt_expr AS pt_var */
  SP_G_VALUES,     /* pt_values */
  SP_G_SUBSELECT   /* pt_query */
} sp_pat_kind_t;

typedef struct sp_values_s {
  sp_list_t *va_vars;   /* sp_term_t * variables */
  sp_list_t *va_rows;   /* sp_list_t * of sp_term_t * (NULL = UNDEF), each va_vars->ls_n long */
  int va_pos;
} sp_values_t;

struct sp_query_s;

typedef struct sp_pat_s {
  sp_pat_kind_t pt_kind;
  sp_list_t *pt_list;
  struct sp_pat_s *pt_sub;
  sp_term_t *pt_name;
  bool pt_silent;
  sp_expr_t *pt_expr;
  sp_term_t *pt_var;
  sp_values_t *pt_values;
  struct sp_query_s *pt_query;
  int pt_pos;
} sp_pat_t;

/* A graph named by an operation. */
typedef enum sp_gref_kind_e { SP_GR_NONE, SP_GR_IRI, SP_GR_DEFAULT, SP_GR_NAMED, SP_GR_ALL } sp_gref_kind_t;
typedef struct sp_gref_s {
  sp_gref_kind_t gr_kind;
  const char *gr_iri;
} sp_gref_t;

/* ---- queries ------------------------------------------------------------ */

typedef enum sp_query_kind_e { SP_Q_SELECT, SP_Q_CONSTRUCT, SP_Q_DESCRIBE, SP_Q_ASK } sp_query_kind_t;

/* A SELECT item or GROUP BY condition: an expression with its variable, or
 * a bare variable (si_expr NULL). */
typedef struct sp_selitem_s {
  sp_term_t *si_var;   /* NULL for a GROUP BY expression without AS */
  sp_expr_t *si_expr;
  int si_pos;
} sp_selitem_t;

typedef struct sp_order_s {
  sp_expr_t *or_expr;
  bool or_desc;
} sp_order_t;

typedef struct sp_query_s {
  sp_query_kind_t qu_kind;
  bool qu_distinct, qu_reduced;
  bool qu_star;                 /* SELECT * / DESCRIBE * */
  sp_list_t *qu_select;         /* sp_selitem_t * */
  sp_list_t *qu_from;           /* sp_gref_t *: FROM iri (SP_GR_IRI), FROM NAMED iri (SP_GR_NAMED) */
  sp_pat_t *qu_where;           /* NULL only for DESCRIBE without WHERE */
  sp_list_t *qu_group;          /* sp_selitem_t *; NULL = no GROUP BY */
  sp_list_t *qu_having;         /* sp_expr_t * */
  sp_list_t *qu_order;          /* sp_order_t * */
  int64_t qu_limit;             /* -1 = none */
  int64_t qu_offset;            /* -1 = none */
  sp_values_t *qu_values;       /* trailing VALUES */
  sp_list_t *qu_template;       /* CONSTRUCT: sp_triple_t * */
  sp_list_t *qu_describe;       /* DESCRIBE: sp_term_t * */
  sp_list_t *qu_vars;           /* after checks: the result variables (sp_term_t *) in order */
  struct sp_op_s *qu_op;        /* after translation: the algebra */
  int qu_pos;
} sp_query_t;

/* ---- updates ------------------------------------------------------------ */

typedef enum sp_update_kind_e {
  SP_U_LOAD, SP_U_CLEAR, SP_U_DROP, SP_U_CREATE, SP_U_ADD, SP_U_MOVE, SP_U_COPY,
  SP_U_INSERT_DATA, SP_U_DELETE_DATA, SP_U_DELETE_WHERE, SP_U_MODIFY
} sp_update_kind_t;


typedef struct sp_update_s {
  sp_update_kind_t up_kind;
  bool up_silent;
  const char *up_source;     /* LOAD's document IRI */
  sp_gref_t up_target;       /* LOAD INTO, CLEAR, DROP, CREATE; ADD/MOVE/COPY's destination */
  sp_gref_t up_from;         /* ADD/MOVE/COPY's source */
  const char *up_with;       /* WITH iri or NULL */
  sp_list_t *up_delete;      /* sp_quad_t *: DELETE DATA, DELETE WHERE, DELETE {…}; NULL = none */
  sp_list_t *up_insert;      /* sp_quad_t *: INSERT DATA, INSERT {…}; NULL = none */
  sp_list_t *up_using;       /* sp_gref_t *: USING iri (SP_GR_IRI), USING NAMED iri (SP_GR_NAMED) */
  const char *up_inference;  /* DEFINE input:inference for the WHERE (ontology graph IRI), or NULL */
  sp_pat_t *up_where;        /* MODIFY's WHERE; DELETE WHERE's pattern built from its quads */
  struct sp_op_s *up_op;     /* after translation: MODIFY and DELETE WHERE */
  int up_pos;
} sp_update_t;

/* ---- the algebra (spec §18.2) -------------------------------------------- */

typedef enum sp_op_kind_e {
  SP_OP_BGP,        /* op_triples: sp_triple_t * (no paths); empty = the unit table Z */
  SP_OP_PATH,       /* op_path: one triple with a path */
  SP_OP_JOIN,       /* op_a, op_b */
  SP_OP_LEFTJOIN,   /* op_a, op_b, op_exprs (the OPTIONAL's filter; empty = true) */
  SP_OP_FILTER,     /* op_exprs (conjunction), op_a */
  SP_OP_UNION,      /* op_a, op_b */
  SP_OP_MINUS,      /* op_a, op_b */
  SP_OP_GRAPH,      /* op_term, op_a */
  SP_OP_SERVICE,    /* op_term, op_silent, op_a */
  SP_OP_EXTEND,     /* op_binds: sp_selitem_t * (var, expr), op_a */
  SP_OP_GROUP,      /* op_binds: keys (var may be NULL), op_aggs: sp_selitem_t * (?.N, aggregate), op_a */
  SP_OP_ORDER,      /* op_order: sp_order_t *, op_a */
  SP_OP_PROJECT,    /* op_vars: sp_term_t *, op_a */
  SP_OP_DISTINCT, SP_OP_REDUCED, /* op_a */
  SP_OP_SLICE,      /* op_start, op_length (-1 = unset), op_a */
  SP_OP_TABLE,      /* op_values */
  SP_OP_TOMULTISET  /* op_a: a subquery's sequence as a multiset */
} sp_op_kind_t;

typedef struct sp_op_s {
  sp_op_kind_t op_kind;
  struct sp_op_s *op_a, *op_b;
  sp_list_t *op_triples;
  sp_triple_t *op_path;
  sp_list_t *op_exprs;
  sp_term_t *op_term;
  bool op_silent;
  sp_list_t *op_binds;
  sp_list_t *op_aggs;
  sp_list_t *op_order;
  sp_list_t *op_vars;
  int64_t op_start, op_length;
  sp_values_t *op_values;
  int op_depth;             /* height of the tree below (at most SP_MAX_DEPTH) */
} sp_op_t;

/* ---- the request --------------------------------------------------------- */

typedef enum sp_mode_e {
  SP_PARSE_QUERY,   /* a QueryUnit: the protocol's query= */
  SP_PARSE_UPDATE,  /* an UpdateUnit: update= */
  SP_PARSE_ANY      /* either, told apart by the first keyword after the prologue */
} sp_mode_t;

typedef struct sp_prefix_s {
  const char *pf_name;   /* without the colon; "" for the empty prefix */
  const char *pf_iri;
} sp_prefix_t;

typedef struct sp_request_s {
  bool rq_update;
  sp_query_t *rq_query;      /* a query */
  sp_list_t *rq_ops;         /* an update: sp_update_t *, possibly empty */
  const char *rq_base;       /* the last BASE in force (NULL = none) */
  sp_list_t *rq_prefixes;    /* sp_prefix_t *, as declared */
  bool rq_store_default;     /* set by the caller: a query without FROM / FROM NAMED reads
                                the store's own default graph (g = 0) and every named
                                graph, not the union of all graphs as its default graph */
  const char *rq_inference;  /* DEFINE input:inference: the rule set (ontology graph IRI), or NULL */
  const int64_t *rq_tbox;    /* its triples' ids (s, p, o)…, known at prepare; NULL = not known */
  size_t rq_tbox_n;          /* triples in rq_tbox */
} sp_request_t;

/* Parses, checks and translates text (len bytes, UTF-8). base is the
 * document's base IRI (the protocol's request URL, a file's IRI) or NULL;
 * a BASE in the text replaces it. Returns NULL with e set (42601, line and
 * column in the message, er_pos) on any error. */
sp_request_t *sp_parse(arena_t *a, const char *text, size_t len, const char *base,
                       sp_mode_t mode, err_t *e);

/* The algebra of every query pattern in the request as S-expressions (SSE,
 * the notation of Jena's `qparse --print=op`), one expression per query or
 * update operation, each ending with a newline. */
void sp_print_request(FILE *f, const sp_request_t *rq);
void sp_print_op(FILE *f, const sp_op_t *op);
void sp_print_expr(FILE *f, const sp_expr_t *e);
void sp_print_term(FILE *f, const sp_term_t *t);
/* The same into an arena string. */
char *sp_request_sse(arena_t *a, const sp_request_t *rq);

/* ---- SPARQL inside SQL (sp_compile.c, sp_extent.c) ---------------------- */

/* The SQL text of a query request: one SELECT over pg_rdf.rdf_quad and the
 * dictionaries, a column per result variable in N-Triples form (ASK: one
 * boolean column "ask"; CONSTRUCT and DESCRIBE: the graph as three text
 * columns s, p, o, each an N-Triples term, each triple once — a graph
 * serializer reads the terms back and writes them, rdf_writer_quad). 0A000 "SPARQL feature X is not supported yet" for
 * what the compiler does not cover (README.md "Compiler"). */
char *sp_compile_sql(arena_t *a, const sp_request_t *rq, err_t *e);

/* A constant's term id known before compiling: true and *id when the store
 * holds the term. The engine looks a query's constants up first so that
 * the SQL carries them as int8 literals — the planner then sees each triple
 * pattern's constants (index keys, statistics) instead of a join with a
 * dictionary query it cannot estimate (LUBM Q2 went from a cross product
 * to 1 s). */
typedef bool (*sp_term_id_fn)(void *ctx, const sp_term_t *t, int64_t *id);
/* sp_compile_sql with known ids: fn is asked about every constant of a
 * triple pattern that is not an inline literal; a term it does not know
 * keeps its dictionary query (so a prepared statement still finds a term
 * added later). */
char *sp_compile_sql_ids(arena_t *a, const sp_request_t *rq, sp_term_id_fn fn, void *ctx, err_t *e);

/* ---- SPARQL Update's SQL (sp_compile_update.c) ---------------------------- */

/* What a column of an update's WHERE holds. */
typedef enum sp_wcol_e {
  SP_WCOL_ID,     /* a term id (int8) */
  SP_WCOL_COUNT,  /* an aggregate's count (a SQL int8): an xsd:integer */
  SP_WCOL_TERM    /* a computed term (BIND, VALUES, an expression): its N-Triples text */
} sp_wcol_t;

/* The SELECT of the WHERE of u (a Modify or DELETE WHERE, after
 * translation): one column per name in vars (NULL = unbound), in that
 * order, one row per solution; kinds[i] says what column i holds. The
 * dataset: using (the protocol's using-graph-uri / using-named-graph-uri,
 * sp_gref_t *; NULL or empty: none) or else u's USING / USING NAMED; else
 * WITH's graph, else the store's default graph (g = 0), with all named
 * graphs. */
char *sp_compile_update_where(arena_t *a, const sp_update_t *u, const sp_list_t *using,
                              const char *const *vars, int nvars, sp_wcol_t *kinds, err_t *e);
/* Where a SPARQL statement inside a multi-statement SQL text ends: the
 * bytes before the first ';' outside strings, IRIs, comments, braces and
 * parentheses that is not followed by another update operation (len when
 * there is none). */
size_t sp_statement_extent(const char *text, size_t len);

/* Resolves ref against base (RFC 3986 §5.2, with §5.2.4's dot removal).
 * base must be absolute; NULL when it is not (and ref is relative). */
char *sp_iri_resolve(arena_t *a, const char *base, const char *ref);
/* True when iri has a scheme (RFC 3986 §3.1). */
bool sp_iri_is_absolute(const char *iri);

/* Lists. */
sp_list_t *sp_list_new(arena_t *a);
sp_list_t *sp_list_append(arena_t *a, sp_list_t *l, void *x);

#endif /* CZ_SPARQL_H */
