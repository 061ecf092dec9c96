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
#define CP_NUM_MASK "(-16)"                 /* clears the 4 type bits */
#define CP_XSD_INTEGER "<http://www.w3.org/2001/XMLSchema#integer>"

/* A column of a compiled operator: a variable. */
typedef struct cp_var_s {
  const char *cv_name;
  bool cv_maybe_null;   /* may be unbound */
  bool cv_count;        /* an aggregate's SQL int8, not a term id */
} cp_var_t;

/* A compiled operator: a SELECT with one column per variable. */
typedef struct cp_rel_s {
  char *cr_sql;
  int cr_n;
  cp_var_t *cr_v;
} cp_rel_t;

/* The graph a pattern matches in. */
typedef enum cp_gkind_e { CP_G_DEFAULT, CP_G_CONST, CP_G_VAR } cp_gkind_t;

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
  const sp_term_t *cp_gterm;
  sp_term_id_fn cp_ids;     /* constants' ids known before compiling, or NULL */
  void *cp_ids_ctx;
} cp_t;

/* A variable's SQL expression in an expression's scope. */
typedef struct cp_scope_s {
  const char *sc_alias;     /* the derived table the variables come from */
  const cp_rel_t *sc_rel;
  char **sc_exprs;          /* else each variable's own expression (a join's merged values) */
} cp_scope_t;

typedef enum cp_ekind_e { CP_E_ID, CP_E_BOOL, CP_E_COUNT } cp_ekind_t;

typedef struct cp_expr_s {
  char *ce_sql;
  cp_ekind_t ce_kind;
  rdf_id_t ce_num_id;        /* an inline numeric constant's id, else 0 */
  const char *ce_num_lex;    /* its lexical form (integer/decimal only), else NULL */
} cp_expr_t;

/* "not supported yet" (0A000) naming what. */
int cp_unsupported(cp_t *c, const char *what);
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

/* One algebra operator as a relation (sp_compile.c dispatches). */
int cp_op(cp_t *c, const sp_op_t *op, cp_rel_t *out);
int cp_bgp(cp_t *c, const sp_op_t *op, cp_rel_t *out);

/* An expression over a scope's variables (sp_compile_expr.c). */
int cp_expr(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out);
/* The conjunction of exprs over scope, as SQL (NULL when exprs is empty). */
int cp_conj(cp_t *c, const cp_scope_t *sc, const sp_list_t *exprs, char **out);

#endif
