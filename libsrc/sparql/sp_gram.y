/* sp_gram — the SPARQL 1.1 grammar: tokens to a syntax tree; and sp_parse.
 *
 * Design notes: a pure (reentrant) LALR(1) Bison parser with no conflicts
 * (%expect 0), following the productions of the SPARQL 1.1 Query and Update
 * grammar (spec §19.8) one for one where LALR(1) allows; the departures:
 * - the mode is a first pseudo-token (START_QUERY, START_UPDATE, START_ANY),
 *   so one table serves QueryUnit, UpdateUnit and either;
 * - `WITH iri` is folded into Modify's two alternatives, so that DELETE
 *   needs no empty WITH before it;
 * - one set of triples rules (with paths) serves patterns, templates and
 *   data; sp_check.c refuses paths, variables and blank nodes where the
 *   spec's narrower rules (TriplesTemplate, QuadData) would not parse them;
 * - built-in calls are one BUILTIN token carrying the canonical name, their
 *   argument counts checked by the builder (sp_node.c), aggregates one AGG
 *   token (GROUP_CONCAT apart for its SEPARATOR);
 * - signed numbers after an additive expression follow the spec's
 *   AdditiveExpression: `?a -1 * ?b` is `?a - (1 * ?b)`.
 * Prefixed names and relative IRIs are resolved in the actions, which run
 * after every PREFIX/BASE before them has been reduced.
 */

%define api.pure full
%define api.prefix {sp_yy}
%define api.value.type {sp_yystype_t}
%define api.location.type {sp_loc_t}
%locations
%parse-param {sp_pstate_t *ps}
%lex-param {sp_pstate_t *ps}
%expect 0

%code requires {
#include "sparql/sparql_int.h"
}

%code {
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define YYLLOC_DEFAULT(Cur, Rhs, N)                        \
  do {                                                     \
    if (N) {                                               \
      (Cur).lc_pos = YYRHSLOC(Rhs, 1).lc_pos;              \
      (Cur).lc_off = YYRHSLOC(Rhs, 1).lc_off;              \
      (Cur).lc_end = YYRHSLOC(Rhs, N).lc_end;              \
    } else {                                               \
      (Cur).lc_pos = YYRHSLOC(Rhs, 0).lc_pos;              \
      (Cur).lc_off = (Cur).lc_end = YYRHSLOC(Rhs, 0).lc_end; \
    }                                                      \
  } while (0)

#define A_ ps->ps_arena
#define APPEND(l, x) sp_list_append(A_, (l), (x))
#define CHK(x) do { if (!(x)) YYABORT; } while (0)

static int sp_yylex(sp_yystype_t *val, sp_loc_t *loc, sp_pstate_t *ps);
static void sp_yyerror(sp_loc_t *loc, sp_pstate_t *ps, const char *msg);
int sp_scan_start(sp_pstate_t *ps);
void sp_scan_finish(sp_pstate_t *ps);
int sp_scan_next(sp_yystype_t *val, sp_loc_t *loc, sp_pstate_t *ps);
static sp_pat_t *g_pat1(sp_pstate_t *ps, sp_pat_kind_t k, sp_pat_t *sub, int pos);
static void g_solmod(sp_query_t *q, const struct sp_solmod_s *sm)
{
  q->qu_group = sm->sm_group;
  q->qu_having = sm->sm_having;
  q->qu_order = sm->sm_order;
  q->qu_limit = sm->sm_limit;
  q->qu_offset = sm->sm_offset;
}

/* Triples after FILTERs that follow triples continue the same basic graph
 * pattern (the FILTERs apply to the whole group anyway): one BGP, as the
 * spec's blank node scope and Jena have it. */
static void g_add_triples(sp_pstate_t *ps, sp_list_t *elems, sp_list_t *triples, int pos)
{
  if (!triples)
    return;
  for (int i = elems->ls_n - 1; i >= 0; i--) {
    sp_pat_t *e = elems->ls_v[i];
    if (e->pt_kind == SP_G_FILTER)
      continue;
    if (e->pt_kind == SP_G_TRIPLES) {
      sp_concat(ps, e->pt_list, triples);
      return;
    }
    break;
  }
  sp_pat_t *t = sp_pat_new(ps, SP_G_TRIPLES, pos);
  t->pt_list = triples;
  sp_list_append(ps->ps_arena, elems, t);
}

static void g_nps_add(sp_pstate_t *ps, sp_path_t *nps, sp_path_t *one)
{
  if (one->pa_kind == SP_P_INV)
    sp_list_append(ps->ps_arena, nps->pa_inv, (void *)one->pa_a->pa_iri);
  else
    sp_list_append(ps->ps_arena, nps->pa_fwd, (void *)one->pa_iri);
}

static sp_gref_t g_gref(sp_gref_kind_t k, const char *iri);
static bool g_int(sp_pstate_t *ps, sp_term_t *t, int64_t *out, int pos);
static sp_expr_t *g_agg(sp_pstate_t *ps, const char *name, bool distinct, sp_expr_t *arg,
                        bool star, const char *sep, int pos);
static sp_term_t *g_lit(sp_pstate_t *ps, const char *s, const char *lang, const char *dt, int pos);
static void g_solmod(sp_query_t *q, const struct sp_solmod_s *sm);
static void g_nps_add(sp_pstate_t *ps, sp_path_t *nps, sp_path_t *one);
}

%token <str> IRIREF BLANK_NODE_LABEL VAR LANGTAG STRING
%token <pname> PNAME
%token <term> NUMBER SNUMBER
%token NIL ANON DTYPE OROR ANDAND NE LE GE LEX_ERROR A
%token START_QUERY START_UPDATE START_ANY
%token <str> K_BASE K_PREFIX K_SELECT K_DISTINCT K_REDUCED K_AS K_CONSTRUCT K_WHERE
%token <str> K_DESCRIBE K_ASK K_FROM K_NAMED K_GROUP K_BY K_HAVING K_ORDER K_ASC K_DESC
%token <str> K_LIMIT K_OFFSET K_VALUES K_UNDEF K_LOAD K_SILENT K_INTO K_CLEAR K_DROP
%token <str> K_CREATE K_ADD K_TO K_MOVE K_COPY K_INSERT K_DATA K_DELETE K_WITH K_USING
%token <str> K_DEFAULT K_ALL K_GRAPH K_OPTIONAL K_SERVICE K_BIND K_MINUS K_UNION K_FILTER
%token <str> K_NOT K_IN K_EXISTS K_TRUE K_FALSE K_SEPARATOR K_GROUP_CONCAT AGG BUILTIN

%type <query> query_form select_query construct_query describe_query ask_query subselect
%type <query> select_clause
%type <flag> silent_opt distinct_opt
%type <num> sel_mod
%type <list> sel_items dataset_clauses describe_targets describe_list group_conds constraints order_conds
%type <list> triples_opt triples_block tss_list tss plist_path_ne plist_path_opt object_list
%type <list> gnp_list expression_list in_list data_values data_rows var_list
%type <list> using_list quads quads_rest ggp_rest
%type <solmod> solution_modifier
%type <list> group_opt having_opt order_opt
%type <sel> sel_item group_cond
%type <order> order_cond
%type <expr> expression cond_or cond_and relational additive signed_tail multiplicative
%type <expr> unary primary bracketted builtin_call aggregate iri_or_function function_call
%type <expr> constraint
%type <term> var var_or_iri var_or_term graph_term blank_node rdf_literal numeric_literal
%type <term> boolean_literal data_value
%type <str> iri
%type <path> path path_seq path_elt_or_inv path_elt path_primary path_nps path_one
%type <list> path_one_list
%type <node> graph_node_path triples_node_path
%type <vo> verb_objs
%type <pat> where_clause group_graph_pattern ggp_inner ggp_sub gpnt group_or_union
%type <values> data_block values_opt
%type <update> update1 modify modify_body
%type <list> update_seq
%type <gref> graph_ref graph_ref_all graph_or_default into_opt
%type <list> insert_opt quad_pattern
%type <num> add_kind
%type <ival> limit_clause offset_clause
%type <solmod> limit_offset_opt

%start unit

%%

unit:
    START_QUERY query_unit
  | START_UPDATE update_unit
  | START_ANY query_unit
  | START_ANY update_unit
  ;

/* ---- prologue ---- */

prologue:
    %empty
  | prologue K_BASE IRIREF        { CHK(sp_base_declare(ps, $3, @3.lc_pos) == CZ_OK); }
  | prologue K_PREFIX PNAME IRIREF
      { if ($3.pn_local[0] != '\0') { sp_fail(ps, @3.lc_pos, "PREFIX needs a prefix ending with a colon, not a prefixed name"); YYABORT; }
        const char *iri = sp_iri_from_ref(ps, $4, @4.lc_pos); CHK(iri);
        CHK(sp_prefix_declare(ps, $3.pn_prefix, iri, @3.lc_pos) == CZ_OK); }
  ;

/* ---- queries ---- */

query_unit:
    prologue query_form values_opt
      { $2->qu_values = $3; ps->ps_req->rq_query = $2; ps->ps_req->rq_update = false; }
  ;

query_form: select_query | construct_query | describe_query | ask_query ;

select_query:
    select_clause dataset_clauses where_clause solution_modifier
      { $$ = $1; $$->qu_from = $2; $$->qu_where = $3; g_solmod($$, &$4); }
  ;

subselect:
    select_clause where_clause solution_modifier values_opt
      { $$ = $1; $$->qu_where = $2; g_solmod($$, &$3); $$->qu_values = $4; }
  ;

select_clause:
    K_SELECT sel_mod sel_items
      { $$ = sp_query_new(ps, SP_Q_SELECT, @1.lc_pos); $$->qu_distinct = $2 == 1;
        $$->qu_reduced = $2 == 2; $$->qu_select = $3; }
  | K_SELECT sel_mod '*'
      { $$ = sp_query_new(ps, SP_Q_SELECT, @1.lc_pos); $$->qu_distinct = $2 == 1;
        $$->qu_reduced = $2 == 2; $$->qu_star = true; $$->qu_select = sp_list_new(A_); }
  ;
sel_mod: %empty { $$ = 0; } | K_DISTINCT { $$ = 1; } | K_REDUCED { $$ = 2; } ;
sel_items:
    sel_item                         { $$ = APPEND(NULL, $1); }
  | sel_items sel_item               { $$ = APPEND($1, $2); }
  ;
sel_item:
    var                              { $$ = arena_zalloc(A_, sizeof(sp_selitem_t)); $$->si_var = $1; $$->si_pos = @1.lc_pos; }
  | '(' expression K_AS var ')'      { $$ = arena_zalloc(A_, sizeof(sp_selitem_t)); $$->si_var = $4; $$->si_expr = $2; $$->si_pos = @1.lc_pos; }
  ;

construct_query:
    K_CONSTRUCT '{' triples_opt '}' dataset_clauses where_clause solution_modifier
      { $$ = sp_query_new(ps, SP_Q_CONSTRUCT, @1.lc_pos); $$->qu_template = $3 ? $3 : sp_list_new(A_);
        $$->qu_from = $5; $$->qu_where = $6; g_solmod($$, &$7); }
  | K_CONSTRUCT dataset_clauses K_WHERE '{' triples_opt '}' solution_modifier
      { $$ = sp_query_new(ps, SP_Q_CONSTRUCT, @1.lc_pos); $$->qu_template = $5 ? $5 : sp_list_new(A_);
        $$->qu_from = $2;
        sp_pat_t *g = sp_pat_new(ps, SP_G_GROUP, @4.lc_pos); g->pt_list = sp_list_new(A_);
        if ($5) { sp_pat_t *t = sp_pat_new(ps, SP_G_TRIPLES, @5.lc_pos); t->pt_list = $5; APPEND(g->pt_list, t); }
        $$->qu_where = g; g_solmod($$, &$7); }
  ;
where_clause:
    group_graph_pattern              { $$ = $1; }
  | K_WHERE group_graph_pattern      { $$ = $2; }
  ;

describe_query:
    K_DESCRIBE describe_targets dataset_clauses solution_modifier
      { $$ = sp_query_new(ps, SP_Q_DESCRIBE, @1.lc_pos); $$->qu_describe = $2; $$->qu_star = $2 == NULL;
        $$->qu_from = $3; g_solmod($$, &$4); }
  | K_DESCRIBE describe_targets dataset_clauses where_clause solution_modifier
      { $$ = sp_query_new(ps, SP_Q_DESCRIBE, @1.lc_pos); $$->qu_describe = $2; $$->qu_star = $2 == NULL;
        $$->qu_from = $3; $$->qu_where = $4; g_solmod($$, &$5); }
  ;
describe_targets:
    '*'                              { $$ = NULL; }
  | describe_list
  ;
describe_list:
    var_or_iri                       { $$ = APPEND(NULL, $1); }
  | describe_list var_or_iri         { $$ = APPEND($1, $2); }
  ;

ask_query:
    K_ASK dataset_clauses where_clause solution_modifier
      { $$ = sp_query_new(ps, SP_Q_ASK, @1.lc_pos); $$->qu_from = $2; $$->qu_where = $3; g_solmod($$, &$4); }
  ;

dataset_clauses:
    %empty                           { $$ = sp_list_new(A_); }
  | dataset_clauses K_FROM iri
      { sp_gref_t *g = arena_zalloc(A_, sizeof *g); *g = g_gref(SP_GR_IRI, $3); $$ = APPEND($1, g); }
  | dataset_clauses K_FROM K_NAMED iri
      { sp_gref_t *g = arena_zalloc(A_, sizeof *g); *g = g_gref(SP_GR_NAMED, $4); $$ = APPEND($1, g); }
  ;

/* Collected here, set on the query by g_solmod. */
solution_modifier:
    group_opt having_opt order_opt limit_offset_opt
      { $$.sm_group = $1; $$.sm_having = $2; $$.sm_order = $3;
        $$.sm_limit = $4.sm_limit; $$.sm_offset = $4.sm_offset; }
  ;
group_opt: %empty { $$ = NULL; } | K_GROUP K_BY group_conds { $$ = $3; } ;
group_conds:
    group_cond                       { $$ = APPEND(NULL, $1); }
  | group_conds group_cond           { $$ = APPEND($1, $2); }
  ;
group_cond:
    builtin_call                     { $$ = arena_zalloc(A_, sizeof(sp_selitem_t)); $$->si_expr = $1; $$->si_pos = @1.lc_pos; }
  | function_call                    { $$ = arena_zalloc(A_, sizeof(sp_selitem_t)); $$->si_expr = $1; $$->si_pos = @1.lc_pos; }
  | '(' expression ')'
      { $$ = arena_zalloc(A_, sizeof(sp_selitem_t)); $$->si_pos = @1.lc_pos;
        /* GROUP BY (?x) is GROUP BY ?x: a key variable */
        if ($2->ex_kind == SP_E_TERM && $2->ex_term->tm_kind == SP_T_VAR) $$->si_var = $2->ex_term;
        else $$->si_expr = $2; }
  | '(' expression K_AS var ')'      { $$ = arena_zalloc(A_, sizeof(sp_selitem_t)); $$->si_expr = $2; $$->si_var = $4; $$->si_pos = @1.lc_pos; }
  | var                              { $$ = arena_zalloc(A_, sizeof(sp_selitem_t)); $$->si_var = $1; $$->si_pos = @1.lc_pos; }
  ;
having_opt: %empty { $$ = NULL; } | K_HAVING constraints { $$ = $2; } ;
constraints:
    constraint                       { $$ = APPEND(NULL, $1); }
  | constraints constraint           { $$ = APPEND($1, $2); }
  ;
order_opt: %empty { $$ = NULL; } | K_ORDER K_BY order_conds { $$ = $3; } ;
order_conds:
    order_cond                       { $$ = APPEND(NULL, $1); }
  | order_conds order_cond           { $$ = APPEND($1, $2); }
  ;
order_cond:
    K_ASC bracketted                 { $$ = arena_zalloc(A_, sizeof(sp_order_t)); $$->or_expr = $2; }
  | K_DESC bracketted                { $$ = arena_zalloc(A_, sizeof(sp_order_t)); $$->or_expr = $2; $$->or_desc = true; }
  | constraint                       { $$ = arena_zalloc(A_, sizeof(sp_order_t)); $$->or_expr = $1; }
  | var                              { $$ = arena_zalloc(A_, sizeof(sp_order_t)); $$->or_expr = sp_expr_term(ps, $1); }
  ;
limit_offset_opt:
    %empty                           { $$.sm_limit = -1; $$.sm_offset = -1; }
  | limit_clause                     { $$.sm_limit = $1; $$.sm_offset = -1; }
  | offset_clause                    { $$.sm_limit = -1; $$.sm_offset = $1; }
  | limit_clause offset_clause       { $$.sm_limit = $1; $$.sm_offset = $2; }
  | offset_clause limit_clause       { $$.sm_limit = $2; $$.sm_offset = $1; }
  ;
limit_clause: K_LIMIT NUMBER         { CHK(g_int(ps, $2, &$$, @2.lc_pos)); } ;
offset_clause: K_OFFSET NUMBER       { CHK(g_int(ps, $2, &$$, @2.lc_pos)); } ;

values_opt: %empty { $$ = NULL; } | K_VALUES data_block { $$ = $2; } ;

data_block:
    var '{' data_values '}'
      { $$ = arena_zalloc(A_, sizeof(sp_values_t)); $$->va_pos = @1.lc_pos;
        $$->va_vars = APPEND(NULL, $1); $$->va_rows = sp_list_new(A_);
        for (int i = 0; i < $3->ls_n; i++) APPEND($$->va_rows, APPEND(NULL, $3->ls_v[i])); }
  | NIL '{' data_rows '}'
      { $$ = arena_zalloc(A_, sizeof(sp_values_t)); $$->va_pos = @1.lc_pos;
        $$->va_vars = sp_list_new(A_); $$->va_rows = $3; }
  | '(' var_list ')' '{' data_rows '}'
      { $$ = arena_zalloc(A_, sizeof(sp_values_t)); $$->va_pos = @1.lc_pos;
        $$->va_vars = $2; $$->va_rows = $5; }
  ;
var_list: var { $$ = APPEND(NULL, $1); } | var_list var { $$ = APPEND($1, $2); } ;
data_rows:
    %empty                           { $$ = sp_list_new(A_); }
  | data_rows '(' data_values ')'    { $$ = APPEND($1, $3); }
  | data_rows NIL                    { $$ = APPEND($1, sp_list_new(A_)); }
  ;
data_values:
    %empty                           { $$ = sp_list_new(A_); }
  | data_values data_value           { $$ = APPEND($1, $2); }
  ;
data_value:
    iri                              { $$ = sp_iri_term(ps, $1, @1.lc_pos); }
  | rdf_literal | numeric_literal | boolean_literal
  | K_UNDEF                          { $$ = NULL; }
  ;

/* ---- group graph patterns ---- */

group_graph_pattern:
    '{' ggp_inner '}'                { $$ = $2; }
  ;
ggp_inner:
    subselect
      { $$ = sp_pat_new(ps, SP_G_GROUP, @1.lc_pos); $$->pt_list = sp_list_new(A_);
        sp_pat_t *s = sp_pat_new(ps, SP_G_SUBSELECT, @1.lc_pos); s->pt_query = $1;
        APPEND($$->pt_list, s); }
  | ggp_sub
  ;
ggp_sub:
    triples_opt ggp_rest
      { $$ = sp_pat_new(ps, SP_G_GROUP, @$.lc_pos); $$->pt_list = sp_list_new(A_);
        g_add_triples(ps, $$->pt_list, $1, @1.lc_pos);
        for (int i = 0; i < $2->ls_n; i++) { sp_pat_t *e = $2->ls_v[i];
          if (e->pt_kind == SP_G_TRIPLES) g_add_triples(ps, $$->pt_list, e->pt_list, e->pt_pos);
          else APPEND($$->pt_list, e); } }
  ;
ggp_rest:
    %empty                           { $$ = sp_list_new(A_); }
  | ggp_rest gpnt dot_opt triples_opt
      { $$ = APPEND($1, $2);
        if ($4) { sp_pat_t *t = sp_pat_new(ps, SP_G_TRIPLES, @4.lc_pos); t->pt_list = $4; APPEND($$, t); } }
  ;
dot_opt: %empty | '.' ;
triples_opt: %empty { $$ = NULL; } | triples_block ;
triples_block: tss_list | tss_list '.' ;
tss_list:
    tss
  | tss_list '.' tss                 { $$ = sp_concat(ps, $1, $3); }
  ;

gpnt:
    group_or_union
  | K_OPTIONAL group_graph_pattern   { $$ = g_pat1(ps, SP_G_OPTIONAL, $2, @1.lc_pos); }
  | K_MINUS group_graph_pattern      { $$ = g_pat1(ps, SP_G_MINUS, $2, @1.lc_pos); }
  | K_GRAPH var_or_iri group_graph_pattern
      { $$ = g_pat1(ps, SP_G_GRAPH, $3, @1.lc_pos); $$->pt_name = $2; }
  | K_SERVICE silent_opt var_or_iri group_graph_pattern
      { $$ = g_pat1(ps, SP_G_SERVICE, $4, @1.lc_pos); $$->pt_name = $3; $$->pt_silent = $2; }
  | K_FILTER constraint
      { $$ = sp_pat_new(ps, SP_G_FILTER, @1.lc_pos); $$->pt_expr = $2; }
  | K_BIND '(' expression K_AS var ')'
      { $$ = sp_pat_new(ps, SP_G_BIND, @1.lc_pos); $$->pt_expr = $3; $$->pt_var = $5; }
  | K_VALUES data_block
      { $$ = sp_pat_new(ps, SP_G_VALUES, @1.lc_pos); $$->pt_values = $2; }
  ;
group_or_union:
    group_graph_pattern
      { $$ = sp_pat_new(ps, SP_G_UNION, @1.lc_pos); $$->pt_list = APPEND(NULL, $1); }
  | group_or_union K_UNION group_graph_pattern
      { $$ = $1; APPEND($$->pt_list, $3); }
  ;
silent_opt: %empty { $$ = false; } | K_SILENT { $$ = true; } ;

/* ---- triples ---- */

tss:
    var_or_term plist_path_ne        { $$ = sp_triples_of(ps, sp_node_term(ps, $1), $2); CHK($$); }
  | triples_node_path plist_path_opt { $$ = sp_triples_of(ps, $1, $2); CHK($$); }
  ;
plist_path_opt: %empty { $$ = NULL; } | plist_path_ne ;
plist_path_ne:
    verb_objs                        { $$ = APPEND(NULL, $1); }
  | plist_path_ne ';'
  | plist_path_ne ';' verb_objs      { $$ = APPEND($1, $3); }
  ;
verb_objs:
    var object_list
      { $$ = arena_zalloc(A_, sizeof(sp_verbobj_t)); $$->vo_var = $1; $$->vo_objs = $2; }
  | path object_list
      { $$ = arena_zalloc(A_, sizeof(sp_verbobj_t)); $$->vo_path = $1; $$->vo_objs = $2; }
  ;
object_list:
    graph_node_path                  { $$ = APPEND(NULL, $1); }
  | object_list ',' graph_node_path  { $$ = APPEND($1, $3); }
  ;
graph_node_path:
    var_or_term                      { $$ = sp_node_term(ps, $1); }
  | triples_node_path
  ;
triples_node_path:
    '(' gnp_list ')'                 { $$ = sp_node_collection(ps, $2, @1.lc_pos); CHK($$); }
  | '[' plist_path_ne ']'            { $$ = sp_node_bnode_plist(ps, $2, @1.lc_pos); CHK($$); }
  ;
gnp_list:
    graph_node_path                  { $$ = APPEND(NULL, $1); }
  | gnp_list graph_node_path         { $$ = APPEND($1, $2); }
  ;

path:
    path_seq
  | path '|' path_seq                { $$ = sp_path_new(ps, SP_P_ALT, $1, $3); }
  ;
path_seq:
    path_elt_or_inv
  | path_seq '/' path_elt_or_inv     { $$ = sp_path_new(ps, SP_P_SEQ, $1, $3); }
  ;
path_elt_or_inv:
    path_elt
  | '^' path_elt                     { $$ = sp_path_new(ps, SP_P_INV, $2, NULL); }
  ;
path_elt:
    path_primary
  | path_primary '?'                 { $$ = sp_path_new(ps, SP_P_OPT, $1, NULL); }
  | path_primary '*'                 { $$ = sp_path_new(ps, SP_P_STAR, $1, NULL); }
  | path_primary '+'                 { $$ = sp_path_new(ps, SP_P_PLUS, $1, NULL); }
  ;
path_primary:
    iri                              { $$ = sp_path_link(ps, $1); }
  | A                                { $$ = sp_path_link(ps, RDF_NS "type"); }
  | '!' path_nps                     { $$ = $2; }
  | '(' path ')'                     { $$ = $2; }
  ;
path_nps:
    path_one                         { $$ = sp_path_new(ps, SP_P_NPS, NULL, NULL); g_nps_add(ps, $$, $1); }
  | '(' path_one_list ')'
      { $$ = sp_path_new(ps, SP_P_NPS, NULL, NULL);
        for (int i = 0; i < $2->ls_n; i++) g_nps_add(ps, $$, $2->ls_v[i]); }
  | NIL                              { $$ = sp_path_new(ps, SP_P_NPS, NULL, NULL); }
  ;
path_one_list:
    path_one                         { $$ = APPEND(NULL, $1); }
  | path_one_list '|' path_one       { $$ = APPEND($1, $3); }
  ;
path_one:
    iri                              { $$ = sp_path_link(ps, $1); }
  | A                                { $$ = sp_path_link(ps, RDF_NS "type"); }
  | '^' iri                          { $$ = sp_path_new(ps, SP_P_INV, sp_path_link(ps, $2), NULL); }
  | '^' A                            { $$ = sp_path_new(ps, SP_P_INV, sp_path_link(ps, RDF_NS "type"), NULL); }
  ;

/* ---- terms ---- */

var: VAR                             { $$ = sp_term_new(ps, SP_T_VAR, $1, @1.lc_pos); } ;
var_or_iri:
    var
  | iri                              { $$ = sp_iri_term(ps, $1, @1.lc_pos); }
  ;
var_or_term: var | graph_term ;
graph_term:
    iri                              { $$ = sp_iri_term(ps, $1, @1.lc_pos); }
  | rdf_literal | numeric_literal | boolean_literal | blank_node
  | NIL                              { $$ = sp_iri_term(ps, RDF_NS "nil", @1.lc_pos); }
  ;
blank_node:
    BLANK_NODE_LABEL                 { $$ = sp_term_new(ps, SP_T_BNODE, $1, @1.lc_pos); }
  | ANON                             { $$ = sp_bnode_fresh(ps, @1.lc_pos); }
  ;
rdf_literal:
    STRING                           { $$ = g_lit(ps, $1, NULL, NULL, @1.lc_pos); }
  | STRING LANGTAG                   { $$ = g_lit(ps, $1, $2, NULL, @1.lc_pos); }
  | STRING DTYPE iri                 { $$ = g_lit(ps, $1, NULL, $3, @1.lc_pos); }
  ;
numeric_literal: NUMBER | SNUMBER ;
boolean_literal:
    K_TRUE                           { $$ = g_lit(ps, "true", NULL, XSD_NS "boolean", @1.lc_pos); }
  | K_FALSE                          { $$ = g_lit(ps, "false", NULL, XSD_NS "boolean", @1.lc_pos); }
  ;
iri:
    IRIREF                           { $$ = sp_iri_from_ref(ps, $1, @1.lc_pos); CHK($$); }
  | PNAME                            { $$ = sp_iri_from_pname(ps, $1, @1.lc_pos); CHK($$); }
  ;

/* ---- expressions ---- */

expression: cond_or ;
cond_or:
    cond_and
  | cond_or OROR cond_and            { $$ = sp_expr_bin(ps, SP_E_OR, $1, $3, @2.lc_pos); }
  ;
cond_and:
    relational
  | cond_and ANDAND relational       { $$ = sp_expr_bin(ps, SP_E_AND, $1, $3, @2.lc_pos); }
  ;
relational:
    additive
  | additive '=' additive            { $$ = sp_expr_bin(ps, SP_E_EQ, $1, $3, @2.lc_pos); }
  | additive NE additive             { $$ = sp_expr_bin(ps, SP_E_NE, $1, $3, @2.lc_pos); }
  | additive '<' additive            { $$ = sp_expr_bin(ps, SP_E_LT, $1, $3, @2.lc_pos); }
  | additive '>' additive            { $$ = sp_expr_bin(ps, SP_E_GT, $1, $3, @2.lc_pos); }
  | additive LE additive             { $$ = sp_expr_bin(ps, SP_E_LE, $1, $3, @2.lc_pos); }
  | additive GE additive             { $$ = sp_expr_bin(ps, SP_E_GE, $1, $3, @2.lc_pos); }
  | additive K_IN in_list            { $$ = sp_expr_bin(ps, SP_E_IN, $1, NULL, @2.lc_pos); $$->ex_args = $3; sp_expr_depth(ps, $$); }
  | additive K_NOT K_IN in_list      { $$ = sp_expr_bin(ps, SP_E_NOTIN, $1, NULL, @2.lc_pos); $$->ex_args = $4; sp_expr_depth(ps, $$); }
  ;
in_list:
    NIL                              { $$ = sp_list_new(A_); }
  | '(' expression_list ')'          { $$ = $2; }
  ;
additive:
    multiplicative
  | additive '+' multiplicative      { $$ = sp_expr_bin(ps, SP_E_ADD, $1, $3, @2.lc_pos); }
  | additive '-' multiplicative      { $$ = sp_expr_bin(ps, SP_E_SUB, $1, $3, @2.lc_pos); }
  | additive signed_tail
      { /* `a -1 * b` is a - (1 * b): the sign is the operator */
        sp_expr_t *t = $2;
        sp_expr_t **lit = &t;
        while ((*lit)->ex_kind == SP_E_MUL || (*lit)->ex_kind == SP_E_DIV)
          lit = &(*lit)->ex_a;
        sp_term_t *n = (*lit)->ex_term;
        bool neg = n->tm_str[0] == '-';
        sp_term_t *u = sp_term_new(ps, SP_T_LIT, n->tm_str + 1, n->tm_pos + 1);
        u->tm_dt = n->tm_dt;
        *lit = sp_expr_term(ps, u);
        $$ = sp_expr_bin(ps, neg ? SP_E_SUB : SP_E_ADD, $1, t, @2.lc_pos); }
  ;
signed_tail:
    SNUMBER                          { $$ = sp_expr_term(ps, $1); }
  | signed_tail '*' unary            { $$ = sp_expr_bin(ps, SP_E_MUL, $1, $3, @2.lc_pos); }
  | signed_tail '/' unary            { $$ = sp_expr_bin(ps, SP_E_DIV, $1, $3, @2.lc_pos); }
  ;
multiplicative:
    unary
  | multiplicative '*' unary         { $$ = sp_expr_bin(ps, SP_E_MUL, $1, $3, @2.lc_pos); }
  | multiplicative '/' unary         { $$ = sp_expr_bin(ps, SP_E_DIV, $1, $3, @2.lc_pos); }
  ;
unary:
    primary
  | '!' primary                      { $$ = sp_expr_bin(ps, SP_E_NOT, $2, NULL, @1.lc_pos); }
  | '+' primary                      { $$ = sp_expr_bin(ps, SP_E_POS, $2, NULL, @1.lc_pos); }
  | '-' primary                      { $$ = sp_expr_bin(ps, SP_E_NEG, $2, NULL, @1.lc_pos); }
  ;
primary:
    bracketted
  | builtin_call
  | iri_or_function
  | rdf_literal                      { $$ = sp_expr_term(ps, $1); }
  | numeric_literal                  { $$ = sp_expr_term(ps, $1); }
  | boolean_literal                  { $$ = sp_expr_term(ps, $1); }
  | var                              { $$ = sp_expr_term(ps, $1); }
  ;
bracketted: '(' expression ')'       { $$ = $2; } ;
constraint: bracketted | builtin_call | function_call ;
function_call:
    iri NIL
      { $$ = sp_expr_new(ps, SP_E_FUNC, @1.lc_pos); $$->ex_name = $1; $$->ex_args = sp_list_new(A_); }
  | iri '(' distinct_opt expression_list ')'
      { $$ = sp_expr_new(ps, SP_E_FUNC, @1.lc_pos); $$->ex_name = $1; $$->ex_args = $4; $$->ex_distinct = $3;
        sp_expr_depth(ps, $$); }
  ;
iri_or_function:
    iri                              { $$ = sp_expr_term(ps, sp_iri_term(ps, $1, @1.lc_pos)); }
  | function_call
  ;
distinct_opt: %empty { $$ = false; } | K_DISTINCT { $$ = true; } ;
expression_list:
    expression                       { $$ = APPEND(NULL, $1); }
  | expression_list ',' expression   { $$ = APPEND($1, $3); }
  ;
builtin_call:
    BUILTIN '(' expression_list ')'  { $$ = sp_expr_builtin(ps, $1, $3, @1.lc_pos); CHK($$); }
  | BUILTIN NIL                      { $$ = sp_expr_builtin(ps, $1, sp_list_new(A_), @1.lc_pos); CHK($$); }
  | aggregate
  | K_EXISTS group_graph_pattern
      { $$ = sp_expr_new(ps, SP_E_EXISTS, @1.lc_pos); $$->ex_pat = $2; }
  | K_NOT K_EXISTS group_graph_pattern
      { $$ = sp_expr_new(ps, SP_E_NOTEXISTS, @1.lc_pos); $$->ex_pat = $3; }
  ;
aggregate:
    AGG '(' distinct_opt expression ')'
      { $$ = g_agg(ps, $1, $3, $4, false, NULL, @1.lc_pos); CHK($$); }
  | AGG '(' distinct_opt '*' ')'
      { $$ = g_agg(ps, $1, $3, NULL, true, NULL, @1.lc_pos); CHK($$); }
  | K_GROUP_CONCAT '(' distinct_opt expression ')'
      { $$ = g_agg(ps, "group_concat", $3, $4, false, NULL, @1.lc_pos); CHK($$); }
  | K_GROUP_CONCAT '(' distinct_opt expression ';' K_SEPARATOR '=' STRING ')'
      { $$ = g_agg(ps, "group_concat", $3, $4, false, $8, @1.lc_pos); CHK($$); }
  ;

/* ---- updates ---- */

update_unit:
    prologue                         { ps->ps_req->rq_update = true; ps->ps_req->rq_ops = sp_list_new(A_); }
  | update_seq                       { ps->ps_req->rq_update = true; ps->ps_req->rq_ops = $1; }
  | update_seq ';' prologue          { ps->ps_req->rq_update = true; ps->ps_req->rq_ops = $1; }
  ;
update_seq:
    prologue update1                 { $$ = APPEND(NULL, $2); }
  | update_seq ';' prologue update1  { $$ = APPEND($1, $4); }
  ;
update1:
    K_LOAD silent_opt iri into_opt
      { $$ = sp_update_new(ps, SP_U_LOAD, @1.lc_pos); $$->up_silent = $2; $$->up_source = $3; $$->up_target = $4; }
  | K_CLEAR silent_opt graph_ref_all
      { $$ = sp_update_new(ps, SP_U_CLEAR, @1.lc_pos); $$->up_silent = $2; $$->up_target = $3; }
  | K_DROP silent_opt graph_ref_all
      { $$ = sp_update_new(ps, SP_U_DROP, @1.lc_pos); $$->up_silent = $2; $$->up_target = $3; }
  | K_CREATE silent_opt graph_ref
      { $$ = sp_update_new(ps, SP_U_CREATE, @1.lc_pos); $$->up_silent = $2; $$->up_target = $3; }
  | add_kind silent_opt graph_or_default K_TO graph_or_default
      { $$ = sp_update_new(ps, (sp_update_kind_t)$1, @1.lc_pos); $$->up_silent = $2;
        $$->up_from = $3; $$->up_target = $5; }
  | K_INSERT K_DATA quad_pattern
      { $$ = sp_update_new(ps, SP_U_INSERT_DATA, @1.lc_pos); $$->up_insert = $3; }
  | K_DELETE K_DATA quad_pattern
      { $$ = sp_update_new(ps, SP_U_DELETE_DATA, @1.lc_pos); $$->up_delete = $3; }
  | K_DELETE K_WHERE quad_pattern
      { $$ = sp_update_new(ps, SP_U_DELETE_WHERE, @1.lc_pos); $$->up_delete = $3; }
  | modify
  ;
add_kind: K_ADD { $$ = SP_U_ADD; } | K_MOVE { $$ = SP_U_MOVE; } | K_COPY { $$ = SP_U_COPY; } ;
modify:
    modify_body
  | K_WITH iri modify_body           { $$ = $3; $$->up_with = $2; $$->up_pos = @1.lc_pos; }
  ;
modify_body:
    K_DELETE quad_pattern insert_opt using_list K_WHERE group_graph_pattern
      { $$ = sp_update_new(ps, SP_U_MODIFY, @1.lc_pos); $$->up_delete = $2; $$->up_insert = $3;
        $$->up_using = $4; $$->up_where = $6; }
  | K_INSERT quad_pattern using_list K_WHERE group_graph_pattern
      { $$ = sp_update_new(ps, SP_U_MODIFY, @1.lc_pos); $$->up_insert = $2;
        $$->up_using = $3; $$->up_where = $5; }
  ;
insert_opt: %empty { $$ = NULL; } | K_INSERT quad_pattern { $$ = $2; } ;
using_list:
    %empty                           { $$ = sp_list_new(A_); }
  | using_list K_USING iri
      { sp_gref_t *g = arena_zalloc(A_, sizeof *g); *g = g_gref(SP_GR_IRI, $3); $$ = APPEND($1, g); }
  | using_list K_USING K_NAMED iri
      { sp_gref_t *g = arena_zalloc(A_, sizeof *g); *g = g_gref(SP_GR_NAMED, $4); $$ = APPEND($1, g); }
  ;
into_opt: %empty { $$ = g_gref(SP_GR_NONE, NULL); } | K_INTO graph_ref { $$ = $2; } ;
graph_ref: K_GRAPH iri               { $$ = g_gref(SP_GR_IRI, $2); } ;
graph_ref_all:
    graph_ref
  | K_DEFAULT                        { $$ = g_gref(SP_GR_DEFAULT, NULL); }
  | K_NAMED                          { $$ = g_gref(SP_GR_NAMED, NULL); }
  | K_ALL                            { $$ = g_gref(SP_GR_ALL, NULL); }
  ;
graph_or_default:
    K_DEFAULT                        { $$ = g_gref(SP_GR_DEFAULT, NULL); }
  | iri                              { $$ = g_gref(SP_GR_IRI, $1); }
  | K_GRAPH iri                      { $$ = g_gref(SP_GR_IRI, $2); }
  ;
quad_pattern: '{' quads '}'          { $$ = $2; } ;
quads:
    triples_opt quads_rest           { $$ = sp_quads_of(ps, $1, NULL, sp_list_new(A_)); $$ = sp_concat(ps, $$, $2); }
  ;
quads_rest:
    %empty                           { $$ = sp_list_new(A_); }
  | quads_rest K_GRAPH var_or_iri '{' triples_opt '}' dot_opt triples_opt
      { $$ = sp_quads_of(ps, $5, $3, $1); $$ = sp_quads_of(ps, $8, NULL, $$); }
  ;

%%

static sp_pat_t *g_pat1(sp_pstate_t *ps, sp_pat_kind_t k, sp_pat_t *sub, int pos)
{
  sp_pat_t *p = sp_pat_new(ps, k, pos);
  p->pt_sub = sub;
  return p;
}

static sp_gref_t g_gref(sp_gref_kind_t k, const char *iri)
{
  sp_gref_t g = { k, iri };
  return g;
}

static bool g_int(sp_pstate_t *ps, sp_term_t *t, int64_t *out, int pos)
{
  if (strcmp(t->tm_dt, XSD_NS "integer") != 0) {
    sp_fail(ps, pos, "LIMIT and OFFSET take an integer, not \"%s\"", t->tm_str);
    return false;
  }
  errno = 0;
  char *end;
  long long v = strtoll(t->tm_str, &end, 10);
  if (errno != 0 || *end != '\0') {
    sp_fail(ps, pos, "LIMIT or OFFSET %s is out of range", t->tm_str);
    return false;
  }
  *out = v;
  return true;
}

static sp_expr_t *g_agg(sp_pstate_t *ps, const char *name, bool distinct, sp_expr_t *arg,
                        bool star, const char *sep, int pos)
{
  if (star && strcmp(name, "count") != 0)
    return sp_fail(ps, pos, "only COUNT takes *, not %s", name);
  sp_expr_t *e = sp_expr_new(ps, SP_E_AGG, pos);
  e->ex_name = name;
  e->ex_distinct = distinct;
  e->ex_star = star;
  e->ex_sep = sep;
  e->ex_args = sp_list_new(ps->ps_arena);
  if (arg)
    sp_list_append(ps->ps_arena, e->ex_args, arg);
  sp_expr_depth(ps, e);
  return e;
}

static sp_term_t *g_lit(sp_pstate_t *ps, const char *s, const char *lang, const char *dt, int pos)
{
  sp_term_t *t = sp_term_new(ps, SP_T_LIT, s, pos);
  t->tm_lang = lang;
  t->tm_dt = dt;
  return t;
}

static int sp_yylex(sp_yystype_t *val, sp_loc_t *loc, sp_pstate_t *ps)
{
  if (ps->ps_first_token) {
    int t = ps->ps_first_token;
    ps->ps_first_token = 0;
    loc->lc_pos = 1;
    loc->lc_off = loc->lc_end = 0;
    return t;
  }
  return sp_scan_next(val, loc, ps);
}

static void sp_yyerror(sp_loc_t *loc, sp_pstate_t *ps, const char *msg)
{
  if (ps->ps_failed)
    return;
  if (strstr(msg, "exhausted")) {
    sp_fail_state(ps, SQLSTATE_STATEMENT_TOO_COMPLEX, loc->lc_pos, "query nested too deeply");
    return;
  }
  if (loc->lc_off >= ps->ps_len) {
    sp_fail(ps, loc->lc_pos, "syntax error at end of input");
    return;
  }
  size_t n = loc->lc_end - loc->lc_off;
  if (n > 40)
    n = 40;
  sp_fail(ps, loc->lc_pos, "syntax error at or near \"%.*s\"", (int)n, ps->ps_text + loc->lc_off);
}

sp_request_t *sp_parse(arena_t *a, const char *text, size_t len, const char *base,
                       sp_mode_t mode, err_t *e)
{
  sp_pstate_t ps;
  memset(&ps, 0, sizeof ps);
  ps.ps_arena = a;
  ps.ps_text = text;
  ps.ps_len = len;
  ps.ps_err = e;
  ps.ps_prefixes = sp_list_new(a);
  ps.ps_req = arena_zalloc(a, sizeof(sp_request_t));
  ps.ps_req->rq_prefixes = ps.ps_prefixes;
  ps.ps_first_token = mode == SP_PARSE_QUERY ? START_QUERY
                      : mode == SP_PARSE_UPDATE ? START_UPDATE : START_ANY;
  err_clear(e);
  if (base && *base) {
    if (!sp_iri_is_absolute(base)) {
      err_set(e, SQLSTATE_SYNTAX_ERROR, "base IRI <%s> is not absolute", base);
      return NULL;
    }
    ps.ps_base = arena_strdup(a, base);
  }
  if (memchr(text, '\0', len)) {
    sp_fail(&ps, 0, "the query text contains a NUL byte");
    return NULL;
  }
  size_t bad = sp_utf8_invalid_at(text, len);
  if (bad != (size_t)-1) {
    int pos = 1;
    for (size_t i = 0; i < bad; i++)
      if (((unsigned char)text[i] & 0xC0) != 0x80)
        pos++;
    sp_fail_state(&ps, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE, pos, "invalid UTF-8 in the query text");
    return NULL;
  }
  if (sp_scan_start(&ps) != CZ_OK) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "cannot start the SPARQL scanner");
    return NULL;
  }
  int rc = sp_yyparse(&ps);
  sp_scan_finish(&ps);
  if (rc != 0 || ps.ps_failed) {
    if (!ps.ps_failed)
      sp_fail(&ps, 0, "syntax error");
    return NULL;
  }
  ps.ps_req->rq_base = ps.ps_base;
  if (sp_check_request(&ps, ps.ps_req) != CZ_OK)
    return NULL;
  if (sp_translate_request(&ps, ps.ps_req) != CZ_OK)
    return NULL;
  return ps.ps_req;
}
