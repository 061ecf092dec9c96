/* sp_compile_int.h — what the SPARQL-to-SQL compiler's files share: the
 * compiled relation (one SQL SELECT, a column per variable), the compiler
 * state, expression values, and the helpers every operator uses.
 * sp_compile.c holds the operators and the entry point, sp_compile_bgp.c
 * basic graph patterns, sp_compile_expr.c expressions. */
#ifndef CZ_SP_COMPILE_INT_H
#define CZ_SP_COMPILE_INT_H

#include "rdf/rdf.h"
#include "sparql/sparql_int.h"

/* Id ranges (libsrc/rdf README "Term ids"), as signed int8: numbers have
 * bit 63 set and are negative; tag t occupies [t<<60, (t+1)<<60). */
#define CP_BNODE_LO "1152921504606846976"   /* 1 << 60 */
#define CP_IRI_LO "2305843009213693952"     /* 2 << 60 */
#define CP_LIT_LO "3458764513820540928"     /* 3 << 60 */
#define CP_INLINE_LO "4611686018427387904"  /* 4 << 60: past the literal dictionary */
#define CP_DATETIME_LO "6917529027641081856" /* 6 << 60: inline xsd:dateTime */
#define CP_DATETIME_HI "8070450532247928832" /* 7 << 60 */
#define CP_NUM_MASK "(-16)"                 /* clears the 4 type bits */
#define CP_XSD_INTEGER "<http://www.w3.org/2001/XMLSchema#integer>"

/* A column of a compiled operator: a variable. */
typedef struct cp_var_s {
  const char *cv_name;
  bool cv_maybe_null;   /* may be unbound */
  bool cv_count;        /* an aggregate's SQL int8, not a term id */
  bool cv_text;         /* a computed term in N-Triples text (README "Computed terms"), not an id */
} cp_var_t;

/* A compiled operator: a SELECT with one column per variable. */
typedef struct cp_rel_s {
  char *cr_sql;
  int cr_n;
  cp_var_t *cr_v;
} cp_rel_t;

/* The graph a pattern matches in. */
typedef enum cp_gkind_e { CP_G_DEFAULT, CP_G_CONST, CP_G_VAR } cp_gkind_t;

struct cp_scope_s;
/* The solutions an EXISTS pattern is evaluated for, innermost first: its
 * expressions read a variable the pattern does not bind from there (the
 * standard substitutes the current solution into the pattern). */
typedef struct cp_outer_s {
  const struct cp_scope_s *co_scope;
  const struct cp_outer_s *co_up;
} cp_outer_t;

typedef struct cp_s {
  arena_t *cp_a;
  err_t *cp_e;
  int cp_alias;             /* fresh alias numbers */
  bool cp_dataset;          /* FROM or FROM NAMED given */
  char *cp_default_in;      /* "(id, id…)" of FROM graphs; NULL = none */
  char *cp_named_in;        /* "(id, …)" of FROM NAMED graphs; NULL = none */
  bool cp_named_all;        /* with cp_dataset: the named graphs are all graphs but the
                               default one (an update's WITH, or no USING) */
  cp_gkind_t cp_gkind;
  const sp_term_t *cp_gterm;  /* CP_G_CONST: the graph IRI; CP_G_VAR: the hidden graph
                                 variable (CP_GRAPH_STEM), never the query's ?g */
  const char *cp_base;      /* the query's BASE (IRI() of a relative constant), NULL = none */
  int cp_solution_vars;     /* BNODE(str)'s solution key: the first N variables of the
                               scope (an Extend's input, not its own new ones); -1 all */
  bool cp_in_on;            /* compiling a LEFT JOIN's ON condition: no subqueries
                               (dictionary constants become their text) */
  sp_term_id_fn cp_ids;     /* constants' ids known before compiling, or NULL */
  void *cp_ids_ctx;
  const sp_term_t *cp_infer; /* DEFINE input:inference: the ontology graph, or NULL */
  const int64_t *cp_tbox;   /* its triples' ids (s, p, o)…, or NULL when not known */
  size_t cp_tbox_n;
  const cp_outer_t *cp_outer; /* inside EXISTS: the outer solutions' scopes, or NULL */
} cp_t;

/* A variable's SQL expression in an expression's scope. */
typedef struct cp_scope_s {
  const char *sc_alias;     /* the derived table the variables come from */
  const cp_rel_t *sc_rel;
  char **sc_exprs;          /* else each variable's own expression (a join's merged values) */
} cp_scope_t;

/* What an expression's SQL is: a term id (int8), a SQL boolean (SPARQL's
 * effective boolean value already taken), a COUNT (SQL int8), or a term
 * in N-Triples text (a computed value). */
typedef enum cp_ekind_e { CP_E_ID, CP_E_BOOL, CP_E_COUNT, CP_E_TERM } cp_ekind_t;

typedef struct cp_expr_s {
  char *ce_sql;
  cp_ekind_t ce_kind;
  rdf_id_t ce_num_id;        /* an inline numeric constant's id, else 0 */
  const char *ce_num_lex;    /* its lexical form (integer/decimal only), else NULL */
  char *ce_nt;               /* a constant's N-Triples text as a SQL literal, else NULL */
  rdf_id_t ce_dt_id;         /* an inline xsd:dateTime constant's id, else 0 */
} cp_expr_t;

/* The hidden variable of the active graph under GRAPH ?var: column
 * "?g#N" (no query variable or other hidden one has '#'). Inside the
 * pattern it is a shared key of every operator (joins, unions, groups,
 * subqueries), never a variable of MINUS's disjointness test; cp_graph
 * turns it into ?var. */
#define CP_GRAPH_STEM "g#"
bool cp_is_graph_col(const char *name);
/* The hidden graph column in force (under GRAPH ?var), else NULL. */
const char *cp_graph_col(const cp_t *c);

/* "not supported yet" (0A000) naming what. */
int cp_unsupported(cp_t *c, const char *what);
/* sp_compile_infer.c: the relation (g, s, p, o) a triple pattern reads
 * under inference; a constant term's id expression. NULL on error. */
char *cp_infer_source(cp_t *c, const sp_triple_t *t);
char *ci_term(cp_t *c, const sp_term_t *t);
/* sp_infer_tbox.c: closures of the rule set over the ontology's triples
 * known at prepare (cp_tbox), as sets of term ids. */
typedef struct ci_ids_s {
  int64_t *ids_v;
  size_t ids_n, ids_cap;
} ci_ids_t;
bool ci_ids_has(const ci_ids_t *s, int64_t id);
/* Adds id unless already there; true when added. */
bool ci_ids_add(cp_t *c, ci_ids_t *s, int64_t id);
/* cls and every class below it (subClassOf, equivalentClass, an
 * intersection class below each conjunct), added to out. */
void ci_classes_below(cp_t *c, int64_t cls, ci_ids_t *out);
/* props grown by every subproperty of its members. */
void ci_props_below(cp_t *c, ci_ids_t *props);
/* The owl:inverseOf (either way) of each of props, added to out. */
void ci_inverses(cp_t *c, const ci_ids_t *props, ci_ids_t *out);
/* The objects of (s, p_iri, ?) in the ontology, added to out. */
void ci_objects(cp_t *c, int64_t s, const char *p_iri, ci_ids_t *out);
/* The items of x's owl:intersectionOf lists, added to out. */
void ci_conjuncts(cp_t *c, int64_t x, ci_ids_t *out);
/* Properties whose rdfs:domain (which) or range is in below, and their
 * subproperties, added to out. */
void ci_props_with_class(cp_t *c, const char *which, const ci_ids_t *below, ci_ids_t *out);
/* "id, id, …" (NULL when s is empty). */
char *ci_id_list(cp_t *c, const ci_ids_t *s);
/* A fresh alias: stem and a number. */
char *cp_fresh(cp_t *c, const char *stem);
/* a, sep, b — or b alone when a is empty. */
char *cp_cat(cp_t *c, const char *a, const char *sep, const char *b);
/* The column of variable name in r, or -1. */
int cp_find(const cp_rel_t *r, const char *name);
void cp_rel_init(cp_t *c, cp_rel_t *r, int cap);
const char *cp_vname(cp_t *c, const sp_term_t *t);
/* alias."name" */
char *cp_col(cp_t *c, const char *alias, const char *name);
char *cp_select_list(cp_t *c, const cp_rel_t *r, char **exprs);
char *cp_passthrough(cp_t *c, const cp_rel_t *r, const char *alias);

/* "((id query), …)" of the graphs of kind k in refs (FROM / FROM NAMED,
 * USING / USING NAMED); NULL when there are none. An unknown graph is
 * NULL in the list: it matches no quad (not even the default graph's
 * g = 0, as 0 for "no term" would). */
char *cp_graph_set(cp_t *c, const sp_list_t *refs, sp_gref_kind_t k);

/* One algebra operator as a relation (sp_compile.c dispatches). */
int cp_op(cp_t *c, const sp_op_t *op, cp_rel_t *out);
int cp_bgp(cp_t *c, const sp_op_t *op, cp_rel_t *out);
/* A property path pattern (sp_compile_path.c). */
int cp_path(cp_t *c, const sp_op_t *op, cp_rel_t *out);
/* The same, to be joined with bound (compiled already): a `*` or `+`
 * path with an end that bound certainly binds runs only from bound's
 * values of it, read from the WITH query named cte (*seeded: the caller
 * must make bound that query and join with it). */
int cp_path_seeded(cp_t *c, const sp_op_t *op, const cp_rel_t *bound, const char *cte, cp_rel_t *out,
                   bool *seeded);
/* A CONSTRUCT or DESCRIBE query: rows (s, p, o) of N-Triples text
 * (sp_compile_construct.c); NULL with the error set. */
char *cp_graph_query(cp_t *c, const sp_query_t *q);

/* An expression over a scope's variables (sp_compile_expr.c). */
int cp_expr(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out);
/* Any value as SQL text in N-Triples form (NULL = error/unbound). */
char *cp_text_of(cp_t *c, const cp_expr_t *x);
/* A variable's column (SQL col of kind v) as N-Triples text. */
char *cp_var_text(cp_t *c, const cp_var_t *v, const char *col);
/* SQL equality of two variables' columns of kinds va, vb (term equality:
 * ids, or texts when either is a computed term). */
char *cp_var_eq(cp_t *c, const cp_var_t *va, const char *a, const cp_var_t *vb, const char *b);
/* A value for BIND / SELECT (expr AS ?v) / GROUP BY keys: its SQL and the
 * kind of column it makes (id, text or count). */
int cp_value(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, char **sql, cp_var_t *kind);
/* An aggregate call over the group's input scope: its SQL and column kind. */
int cp_aggregate(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, char **sql, cp_var_t *kind);
/* ORDER BY keys of one expression over scope. */
int cp_order_expr(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, const char *dir, char **out);
/* VALUES (sp_compile_expr.c: constants as terms). */
int cp_table(cp_t *c, const sp_op_t *op, cp_rel_t *out);

/* The conjunction of exprs over scope, as SQL (NULL when exprs is empty). */
int cp_conj(cp_t *c, const cp_scope_t *sc, const sp_list_t *exprs, char **out);

#endif
