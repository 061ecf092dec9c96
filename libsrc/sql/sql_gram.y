/* sql_gram — the SQL grammar: tokens to statement trees; and sql_parse.
 *
 * Design notes: a pure (reentrant) LALR(1) Bison parser, its state in the
 * sql_pstate_t it is given, with no conflicts (%expect 0). The structure
 * follows PostgreSQL's gram.y, cut down to the core SQL of the server:
 * a_expr is the full expression, b_expr the restricted one that may stand
 * between BETWEEN and AND or after DEFAULT (no AND, OR, NOT, IS, LIKE, IN),
 * c_expr what both share; select_with_parens / select_no_parens /
 * select_clause let ORDER BY and LIMIT bind to a whole set operation.
 * Operator precedence is PostgreSQL's, NOT BETWEEN / NOT IN / NOT LIKE
 * included: sql_lex turns NOT into NOT_LA when one of those follows, so
 * that `a = b NOT IN (…)` groups as `a = (b NOT IN (…))`. sql_yylex also
 * joins 'a'<newline>'b' and makes the unit after INTERVAL 'text' a token.
 *
 * Actions build nodes in the arena (sql_node.c) and never free: on any
 * error the parse stops (YYABORT) and the arena keeps what was built until
 * the caller resets it. Keywords are either reserved or listed in
 * unreserved_keyword, which may also serve as a name.
 */

%define api.pure full
%define api.prefix {sql_yy}
%define api.value.type {sql_yystype_t}
%define api.location.type {sql_loc_t}
%locations
%parse-param {sql_pstate_t *ps}
%lex-param {sql_pstate_t *ps}
%expect 0

%code requires {
#include "sql/sql_int.h"
}

%code {
#include <stdlib.h>
#include <string.h>

/* A rule's place runs from its first symbol to its last; an empty rule
 * sits at the end of the symbol before it. */
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

#define NEW(T) ((T *)arena_zalloc(ps->ps_arena, sizeof(T)))
#define APPEND(l, x) sql_list_append(ps->ps_arena, (l), (x))
/* A builder returned NULL: it has set the error. */
#define CHK(x) do { if (!(x)) YYABORT; } while (0)

static int sql_yylex(sql_yystype_t *val, sql_loc_t *loc, sql_pstate_t *ps);
static void sql_yyerror(sql_loc_t *loc, sql_pstate_t *ps, const char *msg);
static sql_expr_t *sql_g_column(sql_pstate_t *ps, int pos, const char *a, const char *b,
                                const char *c);
static sql_expr_t *sql_g_func(sql_pstate_t *ps, int pos, sql_name_t name, sql_list_t *args,
                              bool distinct, bool star);
static sql_expr_t *sql_g_fn(sql_pstate_t *ps, int pos, const char *name, sql_list_t *args);
static sql_expr_t *sql_g_filter(sql_pstate_t *ps, int pos, sql_expr_t *f, sql_expr_t *cond);
static sql_expr_t *sql_g_binop(sql_pstate_t *ps, int op, int pos, sql_expr_t *l, sql_expr_t *r);
static sql_expr_t *sql_g_quant(sql_pstate_t *ps, sql_expr_kind_t kind, int op, int pos,
                               sql_expr_t *l, sql_expr_t *array, sql_query_t *q);
static sql_expr_t *sql_g_subscript(sql_pstate_t *ps, int pos, sql_expr_t *x, sql_expr_t *i);
static int sql_g_opcode(const char *text);
static const char *sql_g_opname(int op);
static sql_expr_t *sql_g_prefix(sql_pstate_t *ps, const char *op, int pos, sql_expr_t *x);
static sql_query_t *sql_g_with(sql_pstate_t *ps, sql_query_t *q, sql_query_t *with, int pos);
static sql_query_t *sql_g_lock(sql_pstate_t *ps, sql_query_t *q, struct sql_lockc_s lk, int pos);
static void sql_g_txnmode(sql_txnmode_t *tm, int mode);
static void sql_g_index_keys(sql_pstate_t *ps, sql_create_index_t *ci, sql_list_t *keys);
static sql_expr_t *sql_g_like(sql_pstate_t *ps, sql_op_t op, bool negated, int pos,
                              sql_expr_t *l, sql_expr_t *r, sql_expr_t *esc);
static sql_expr_t *sql_g_interval(sql_pstate_t *ps, int pos, const char *text, sql_type_t t);
static int sql_g_iv_fields(sql_pstate_t *ps, int pos, const char *from, const char *to, int prec,
                           sql_type_t *t);
static sql_expr_t *sql_g_between(sql_pstate_t *ps, int pos, bool negated, bool symmetric,
                                 sql_expr_t *x, sql_expr_t *lo, sql_expr_t *hi);

/* An operator number (all_op, subquery_op): the sql_op_t, with this bit
 * for the negated forms (!~, NOT LIKE). */
#define SQL_G_NOT 0x100
/* Transaction modes other than isolation levels (txn_mode). */
#define SQL_G_TM_READ_ONLY 0x201
#define SQL_G_TM_READ_WRITE 0x202
#define SQL_G_TM_DEFERRABLE 0x203
#define SQL_G_TM_NOT_DEFERRABLE 0x204
/* Whether the token at loc was a quoted identifier. */
#define SQL_G_QUOTED(loc) (ps->ps_text[(loc).lc_off] == '"')

static sql_query_t *sql_g_select(sql_pstate_t *ps, int pos, sql_select_t *se);
static sql_name_t *sql_g_name(sql_pstate_t *ps, sql_name_t n);
static sql_stmt_t *sql_g_drop(sql_pstate_t *ps, sql_stmt_kind_t kind, bool if_exists,
                              sql_list_t *names);
static sql_comment_t *sql_g_comment(sql_pstate_t *ps, char kind, sql_name_t name, const char *sub);
static bool sql_g_seqopt(sql_pstate_t *ps, int pos, int given);
static bool sql_g_word(sql_pstate_t *ps, const sql_loc_t *at, const char *got, const char *want);
static sql_grant_t *sql_g_grant(sql_pstate_t *ps, char kind, int privs, sql_list_t *objects,
                                sql_list_t *roles);
static sql_list_t *sql_g_schema_names(sql_pstate_t *ps, sql_list_t *names, int pos);
static sql_stmt_t *sql_g_schema(sql_pstate_t *ps, sql_stmt_kind_t kind, const char *name,
                                const char *owner, bool if_not_exists, int pos);
static bool sql_g_cons_attrs(sql_pstate_t *ps, int pos, char kind, int attrs, sql_tabcons_t *tc);
static bool sql_g_int8(sql_pstate_t *ps, int pos, const char *text, bool neg, int64_t *out);
static sql_stmt_t *sql_g_setvar(sql_pstate_t *ps, sql_stmt_kind_t kind, const char *name,
                                sql_list_t *values);
static sql_stmt_t *sql_g_alter_setting(sql_pstate_t *ps, char role_kind, const char *role,
                                       const char *database, sql_stmt_t *change);
}

%token <str> IDENT ICONST NCONST FCONST SCONST OP
%token <ival> PARAM
%token TYPECAST LESS_EQUALS GREATER_EQUALS NOT_EQUALS CONCAT NOT_LA
%token LEX_ERROR OP_UNKNOWN

%token <str> ALL ANALYZE AND AS ASC BEGIN_P BETWEEN BY CASE CAST COMMIT CREATE CROSS
%token <str> DEFAULT DELETE_P DESC DISTINCT DROP ELSE END_P EXCEPT EXISTS EXPLAIN
%token <str> FALSE_P FIRST_P FROM FULL GRANT GROUP_P HAVING IF_P ILIKE IN_P INCLUDE
%token <str> INDEX INNER_P INSERT INTERSECT INTO IS JOIN KEY LAST_P LEFT LIKE LIMIT
%token <str> LOCAL NOT NULL_P NULLS_P OFFSET ON OR ORDER OUTER_P PASSWORD PRECISION
%token <str> PRIMARY PRIVILEGES RELEASE REVOKE RIGHT ROLE ROLLBACK SAVEPOINT SELECT
%token <str> SESSION SET SHOW START TABLE THEN TIME TO TOP TRANSACTION TRUE_P UNION
%token <str> UNIQUE UPDATE USER VALUES VARYING WHEN WHERE WITH WITHOUT WORK ZONE
%token <str> ALTER ANY ARRAY BINARY BOTH CHARACTERISTICS CHECKPOINT COLLATE COMMITTED
%token <str> CONFLICT COPY CREATEDB CREATEROLE CSV CURRENT_CATALOG CURRENT_DATE CURRENT_ROLE
%token <str> AT CURRENT_TIME LOCALTIME
%token <str> DATABASE
%token <str> CURRENT_SCHEMA CURRENT_TIMESTAMP CURRENT_USER DEALLOCATE DEFERRABLE DELIMITER DO
%token <str> ENCODING ENCRYPTED ESCAPE EXTRACT FETCH FOR FORCE FREEZE HEADER_P ISOLATION
%token <str> LEADING LEVEL LOCALTIMESTAMP LOGIN NATURAL NEXT NOCREATEDB NOCREATEROLE NOLOGIN
%token <str> NOSUPERUSER NOTHING NOWAIT ONLY OPERATOR OVER PARTITION POSITION PREPARE QUOTE
%token <str> READ RECURSIVE REPEATABLE RESET RETURNING ROW ROWS SERIALIZABLE SESSION_USER
%token <str> SHARE SOME STDIN STDOUT SUBSTRING SUPERUSER TRAILING TRIM TRUNCATE UNCOMMITTED UNKNOWN
%token <str> USING VACUUM WRITE INTERVAL CASCADE CONSTRAINT RESTRICT SIMILAR SYMMETRIC
%token <str> ASYMMETRIC EXECUTE
/* the rest of the query language: LATERAL, GROUPING SETS / ROLLUP / CUBE */
%token <str> CUBE GROUPING LATERAL_P ROLLUP SETS
/* window frames and named windows (sql_bind_window.c) */
%token <str> CURRENT_P EXCLUDE FILTER FOLLOWING GROUPS NO OTHERS PRECEDING RANGE TIES UNBOUNDED
%token <str> WINDOW
/* sequences and identity columns (CREATE/ALTER/DROP SEQUENCE, serial, GENERATED … AS IDENTITY) */
%token <str> ALWAYS CACHE CYCLE GENERATED IDENTITY_P INCREMENT MAXVALUE MINVALUE NONE OVERRIDING
%token <str> OWNED RENAME RESTART SEQUENCE SYSTEM_P VALUE_P
/* views and materialized views (CREATE [OR REPLACE] [TEMP] VIEW … [WITH CHECK OPTION],
 * CREATE / REFRESH MATERIALIZED VIEW … WITH [NO] DATA, ALTER VIEW … RENAME, DROP VIEW);
 * MATERIALIZED also marks WITH q AS [NOT] MATERIALIZED (…);
 * CHECK is reserved, as in PostgreSQL (the constraints' grammar uses it too) */
%token <str> CASCADED CHECK DATA_P MATERIALIZED OPTION REFRESH REPLACE TEMP TEMPORARY VIEW
/* WITH before TIME or ORDINALITY (PostgreSQL's WITH_LA): `timestamp WITH TIME ZONE` then
 * never competes with a view's `… AS query WITH CHECK OPTION` */
%token WITH_LA
/* constraints: CHECK (declared above), FOREIGN KEY / REFERENCES, deferrable ones,
 * SET CONSTRAINTS */
%token <str> ACTION CONSTRAINTS DEFERRED FOREIGN IMMEDIATE INHERIT INITIALLY MATCH PARTIAL
%token <str> REFERENCES SIMPLE VALID
/* psql's \d of a table with foreign keys: pg_partition_ancestors(…) WITH ORDINALITY */
%token <str> ORDINALITY
/* year, month, day, hour, minute or second right after INTERVAL 'text'
 * (sql_yylex turns the identifier into this token only there) */
%token <str> IV_UNIT
/* ALTER TABLE (ADD, ALTER COLUMN … TYPE, SET DATA TYPE); COLUMN is reserved as in PostgreSQL */
%token <str> ADD_P COLUMN TYPE_P
/* SELECT … FOR UPDATE OF t SKIP LOCKED; COMMENT ON */
%token <str> LOCKED OF SKIP COMMENT CONTINUE_P SCHEMA
/* CREATE SCHEMA … AUTHORIZATION role (reserved in PostgreSQL too: a type
 * or function name only) */
%token <str> AUTHORIZATION

%type <stmt> stmt insert_stmt update_stmt delete_stmt with_dml_stmt create_table_stmt drop_stmt
%type <stmt> create_index_stmt txn_stmt grant_stmt role_stmt explain_stmt set_stmt schema_stmt
%type <stmt> show_stmt explainable_stmt set_rest copy_stmt alter_role_stmt misc_stmt
%type <stmt> setting_change
%type <str> opt_in_database
%type <stmt> prepare_stmt preparable_stmt execute_stmt
%type <stmt> alter_table_stmt
%type <alter> alter_rel
%type <altcmd> alter_cmd alter_col_action
%type <list> alter_cmds
%type <expr> alter_using
%type <query> select_stmt select_with_parens select_no_parens select_clause simple_select
%type <query> values_clause cte_query with_clause
%type <limit> limit_clause
%type <lock> for_locking_clause opt_for_locking_clause
%type <ival> lock_strength opt_nowait_or_skip
%type <list> opt_lock_of truncate_list
%type <name> truncate_item
%type <comment> comment_object
%type <str> comment_text
%type <flag> opt_restart_seqs
%type <expr> array_sub group_by_item
%type <expr> limit_value opt_top a_expr b_expr c_expr columnref const_expr func_expr
%type <expr> case_expr case_arg case_default in_expr values_item where_clause
%type <expr> having_clause var_value func_application func_common fetch_count
%type <expr> subscripted extract_arg fetch_clause
%type <list> target_list from_clause from_list opt_using group_clause sort_clause opt_sort_clause
%type <list> array_sub_list group_by_list
%type <list> sortby_list expr_list values_row name_list opt_include when_list
%type <list> grant_tables qualified_name_list set_list var_list grantee_list cte_list
%type <list> opt_name_list returning_clause opt_partition substr_list trim_list
%type <list> copy_col_list index_elems opt_prep_types prep_type_list
%type <copy> copy_opts copy_old_opts copy_generic_opts
%type <txn> txn_mode_list opt_txn_modes
%type <alias> opt_alias_clause
%type <window> over_clause opt_over_clause_filter window_spec window_def
%type <list> opt_window_clause window_def_list
%type <num> frame_bound_kind opt_frame_exclusion frame_unit
%type <window> opt_frame_clause frame_bound
%type <str> opt_window_ref opt_lock_mode lock_words lock_word owner_role opt_schema_auth
%type <target> target_el
%type <from> table_ref joined_table
%type <order> sortby index_elem
%type <when> when_clause
%type <cte> cte
%type <type> type_name simple_type opt_interval
%type <mods> opt_type_mods
%type <name> qualified_name any_name func_name
%type <str> col_id opt_alias unreserved_keyword var_name opt_index_name col_label
%type <str> reserved_keyword col_name_keyword type_function_name copy_target copy_value opt_insert_alias opt_index_method
%type <num> all_op any_operator subquery_op iso_level txn_mode
%type <num> join_type opt_asc_desc opt_nulls_order privileges privilege_list privilege
%type <num> opt_materialized
%type <flag> opt_grant_option opt_grant_option_for opt_nulls_nd opt_all opt_distinct opt_unique opt_user copy_direction opt_nowait opt_drop_behavior
%type <insert> insert_rest opt_on_conflict conflict_target
%type <ctab> table_elts
%type <coldef> column_def col_quals
%type <tabcons> table_cons named_table_cons
%type <assign> set_item
%type <role> role_opts
%type <stmt> sequence_stmt
%type <seqopts> seq_opts opt_identity_opts
%type <ival> seq_num
%type <num> override_kind
%type <stmt> view_stmt
%type <view> view_head
%type <flag> opt_or_replace opt_temp opt_with_data
%type <num> opt_check_option opt_rel_options rel_options
%type <str> rel_opt_value
%type <tabcons> col_cons key_actions key_delete
%type <num> key_update key_action key_match cons_attrs cons_attr opt_no_inherit
%type <list> set_cons_names

/* Lowest first; PostgreSQL's table. */
/* UNBOUNDED PRECEDING is the frame bound, not a column named unbounded
 * followed by PRECEDING (PostgreSQL's precedence trick, gram.y). */
%nonassoc UNBOUNDED
%nonassoc PRECEDING FOLLOWING
/* CUBE and ROLLUP are unreserved: below '(' so that GROUP BY cube(a, b)
 * shifts into the grouping set rather than taking cube as a function
 * name (PostgreSQL's trick, gram.y). */
%nonassoc CUBE ROLLUP
%left UNION EXCEPT
%left INTERSECT
%left OR
%left AND
%right NOT
%nonassoc IS
%nonassoc '<' '>' '=' LESS_EQUALS GREATER_EQUALS NOT_EQUALS
%nonassoc BETWEEN IN_P LIKE ILIKE SIMILAR NOT_LA
%nonassoc ESCAPE /* just above LIKE, ILIKE, SIMILAR: a LIKE b ESCAPE c */
%left CONCAT OP OPERATOR
%left '+' '-'
%left '*' '/' '%'
%left '^'
%left AT /* AT TIME ZONE */
%left COLLATE
%right UMINUS
%left '(' ')'
%left TYPECAST
%left '.'
%left JOIN CROSS LEFT FULL RIGHT INNER_P NATURAL

%%

stmtmulti:
    stmtmulti ';' toplevel_stmt
  | toplevel_stmt
  ;

toplevel_stmt:
    stmt
      {
        $1->st_pos = @1.lc_pos;
        $1->st_off = @1.lc_off;
        $1->st_len = @1.lc_end - @1.lc_off;
        ps->ps_stmts = APPEND(ps->ps_stmts, $1);
      }
  | %empty
  ;

stmt:
    select_stmt         { $$ = sql_stmt_new(ps, SQL_STMT_SELECT); $$->st_query = $1; }
  | insert_stmt
  | update_stmt
  | delete_stmt
  | with_dml_stmt
  | create_table_stmt
  | sequence_stmt
  | view_stmt
  | drop_stmt
  | create_index_stmt
  | txn_stmt
  | grant_stmt
  | schema_stmt
  | role_stmt
  | explain_stmt
  | set_stmt
  | show_stmt
  | copy_stmt
  | alter_role_stmt
  | alter_table_stmt
  | misc_stmt
  | prepare_stmt
  | execute_stmt
  ;

/* ---- queries ------------------------------------------------------------ */

select_stmt:
    select_no_parens
  | select_with_parens
  ;

select_with_parens:
    '(' select_no_parens ')'    { $$ = $2; }
  | '(' select_with_parens ')'  { $$ = $2; }
  ;

/* PostgreSQL's shape: ORDER BY, LIMIT and FOR UPDATE in either order
 * after the last set operation, all optionally under a WITH. */
select_no_parens:
    simple_select
  | select_clause sort_clause
      { CHK($$ = sql_query_tail(ps, $1, $2, NULL, NULL, @2.lc_pos)); }
  | select_clause opt_sort_clause limit_clause opt_for_locking_clause
      {
        CHK($$ = sql_query_tail(ps, $1, $2, $3.li_limit, $3.li_offset, @3.lc_pos));
        CHK($$ = sql_g_lock(ps, $$, $4, @4.lc_pos));
      }
  | select_clause opt_sort_clause for_locking_clause
      {
        CHK($$ = sql_query_tail(ps, $1, $2, NULL, NULL, @3.lc_pos));
        CHK($$ = sql_g_lock(ps, $$, $3, @3.lc_pos));
      }
  | select_clause opt_sort_clause for_locking_clause limit_clause
      {
        CHK($$ = sql_query_tail(ps, $1, $2, $4.li_limit, $4.li_offset, @4.lc_pos));
        CHK($$ = sql_g_lock(ps, $$, $3, @3.lc_pos));
      }
  | with_clause select_clause
      { CHK($$ = sql_g_with(ps, $2, $1, @1.lc_pos)); }
  | with_clause select_clause sort_clause
      {
        CHK($$ = sql_query_tail(ps, $2, $3, NULL, NULL, @3.lc_pos));
        CHK($$ = sql_g_with(ps, $$, $1, @1.lc_pos));
      }
  | with_clause select_clause opt_sort_clause limit_clause opt_for_locking_clause
      {
        CHK($$ = sql_query_tail(ps, $2, $3, $4.li_limit, $4.li_offset, @4.lc_pos));
        CHK($$ = sql_g_lock(ps, $$, $5, @5.lc_pos));
        CHK($$ = sql_g_with(ps, $$, $1, @1.lc_pos));
      }
  | with_clause select_clause opt_sort_clause for_locking_clause
      {
        CHK($$ = sql_query_tail(ps, $2, $3, NULL, NULL, @4.lc_pos));
        CHK($$ = sql_g_lock(ps, $$, $4, @4.lc_pos));
        CHK($$ = sql_g_with(ps, $$, $1, @1.lc_pos));
      }
  | with_clause select_clause opt_sort_clause for_locking_clause limit_clause
      {
        CHK($$ = sql_query_tail(ps, $2, $3, $5.li_limit, $5.li_offset, @5.lc_pos));
        CHK($$ = sql_g_lock(ps, $$, $4, @4.lc_pos));
        CHK($$ = sql_g_with(ps, $$, $1, @1.lc_pos));
      }
  ;

with_clause:
    WITH cte_list
      {
        /* a query shell holding only the WITH part; sql_g_with moves it */
        $$ = NEW(sql_query_t);
        $$->qu_with = $2;
      }
  | WITH RECURSIVE cte_list
      {
        $$ = NEW(sql_query_t);
        $$->qu_with = $3;
        $$->qu_recursive = true;
      }
  ;

cte_list:
    cte               { $$ = APPEND(NULL, $1); }
  | cte_list ',' cte  { $$ = APPEND($1, $3); }
  ;

cte:
    col_id opt_name_list AS opt_materialized cte_query
      {
        $$ = NEW(sql_cte_t);
        $$->wc_name = $1;
        $$->wc_pos = @1.lc_pos;
        $$->wc_columns = $2;
        $$->wc_materialized = $4;
        $$->wc_query = $5;
      }
  ;

opt_materialized:
    MATERIALIZED      { $$ = SQL_CTE_MATERIALIZED; }
  | NOT MATERIALIZED  { $$ = SQL_CTE_NOT_MATERIALIZED; }
  | %empty            { $$ = SQL_CTE_DEFAULT; }
  ;

cte_query:
    select_with_parens
  ;

opt_name_list:
    '(' name_list ')'  { $$ = $2; }
  | %empty             { $$ = NULL; }
  ;

for_locking_clause:
    FOR lock_strength opt_lock_of opt_nowait_or_skip
      { $$.lk_mode = $2; $$.lk_of = $3; $$.lk_wait = $4; $$.lk_pos = @1.lc_pos; }
  ;

lock_strength:
    UPDATE          { $$ = SQL_LOCK_UPDATE; }
  | NO KEY UPDATE   { $$ = SQL_LOCK_NO_KEY_UPDATE; }
  | SHARE           { $$ = SQL_LOCK_SHARE; }
  | KEY SHARE       { $$ = SQL_LOCK_KEY_SHARE; }
  ;

opt_lock_of:
    OF qualified_name_list  { $$ = $2; }
  | %empty                  { $$ = NULL; }
  ;

/* LOCK TABLE's NOWAIT */
opt_nowait:
    NOWAIT  { $$ = true; }
  | %empty  { $$ = false; }
  ;

opt_nowait_or_skip:
    NOWAIT        { $$ = SQL_LOCK_NOWAIT; }
  | SKIP LOCKED   { $$ = SQL_LOCK_SKIP; }
  | %empty        { $$ = SQL_LOCK_WAIT; }
  ;

opt_for_locking_clause:
    for_locking_clause
  | %empty  { $$.lk_mode = SQL_LOCK_NONE; $$.lk_of = NULL; $$.lk_wait = SQL_LOCK_WAIT; $$.lk_pos = 0; }
  ;


select_clause:
    simple_select
  | select_with_parens
  ;

simple_select:
    SELECT opt_distinct opt_top target_list from_clause where_clause group_clause having_clause
    opt_window_clause
      {
        sql_select_t *se = NEW(sql_select_t);
        se->se_distinct = $2;
        se->se_top = $3;
        se->se_targets = $4;
        se->se_from = $5;
        se->se_where = $6;
        se->se_group = $7;
        se->se_having = $8;
        se->se_windows = $9;
        $$ = sql_g_select(ps, @1.lc_pos, se);
      }
  | SELECT DISTINCT ON '(' expr_list ')' opt_top target_list from_clause where_clause
    group_clause having_clause
      {
        sql_select_t *se = NEW(sql_select_t);
        se->se_distinct_on = $5;
        se->se_top = $7;
        se->se_targets = $8;
        se->se_from = $9;
        se->se_where = $10;
        se->se_group = $11;
        se->se_having = $12;
        $$ = sql_g_select(ps, @1.lc_pos, se);
      }
  | values_clause
  | TABLE qualified_name
      {
        /* TABLE t is SELECT * FROM t (PostgreSQL rewrites it the same way) */
        sql_select_t *se = NEW(sql_select_t);
        sql_target_t *tg = NEW(sql_target_t);
        tg->tg_expr = sql_expr_new(ps, SQL_E_STAR, @1.lc_pos);
        se->se_targets = APPEND(NULL, tg);
        se->se_from = APPEND(NULL, sql_from_item(ps, @2.lc_pos, $2, NULL, NULL));
        $$ = sql_g_select(ps, @1.lc_pos, se);
      }
  | select_clause UNION opt_all select_clause
      { CHK($$ = sql_query_setop(ps, SQL_Q_UNION, $3, @2.lc_pos, $1, $4)); }
  | select_clause INTERSECT opt_all select_clause
      { CHK($$ = sql_query_setop(ps, SQL_Q_INTERSECT, $3, @2.lc_pos, $1, $4)); }
  | select_clause EXCEPT opt_all select_clause
      { CHK($$ = sql_query_setop(ps, SQL_Q_EXCEPT, $3, @2.lc_pos, $1, $4)); }
  ;

opt_all:
    ALL       { $$ = true; }
  | DISTINCT  { $$ = false; }
  | %empty    { $$ = false; }
  ;

opt_distinct:
    DISTINCT  { $$ = true; }
  | ALL       { $$ = false; }
  | %empty    { $$ = false; }
  ;

opt_top:
    TOP ICONST          { $$ = sql_expr_number(ps, $2, @2.lc_pos, SQL_LIT_INT); }
  | TOP PARAM           { $$ = sql_expr_new(ps, SQL_E_PARAM, @2.lc_pos); $$->ex_int = $2; }
  | TOP '(' a_expr ')'  { $$ = $3; }
  | %empty              { $$ = NULL; }
  ;

target_list:
    target_el                  { $$ = APPEND(NULL, $1); }
  | target_list ',' target_el  { $$ = APPEND($1, $3); }
  ;

target_el:
    a_expr AS col_label  { $$ = NEW(sql_target_t); $$->tg_expr = $1; $$->tg_alias = $3; }
  | a_expr IDENT      { $$ = NEW(sql_target_t); $$->tg_expr = $1; $$->tg_alias = $2; }
  | a_expr            { $$ = NEW(sql_target_t); $$->tg_expr = $1; }
  | '*'
      {
        $$ = NEW(sql_target_t);
        $$->tg_expr = sql_expr_new(ps, SQL_E_STAR, @1.lc_pos);
      }
  | col_id '.' '*'
      {
        $$ = NEW(sql_target_t);
        $$->tg_expr = sql_expr_new(ps, SQL_E_STAR, @1.lc_pos);
        $$->tg_expr->ex_table = $1;
      }
  | col_id '.' col_id '.' '*'
      {
        $$ = NEW(sql_target_t);
        $$->tg_expr = sql_expr_new(ps, SQL_E_STAR, @1.lc_pos);
        $$->tg_expr->ex_schema = $1;
        $$->tg_expr->ex_table = $3;
      }
  ;

from_clause:
    FROM from_list  { $$ = $2; }
  | %empty          { $$ = NULL; }
  ;

from_list:
    table_ref                { $$ = APPEND(NULL, $1); }
  | from_list ',' table_ref  { $$ = APPEND($1, $3); }
  ;

table_ref:
    qualified_name opt_alias_clause
      {
        $$ = sql_from_item(ps, @1.lc_pos, $1, NULL, $2.al_name);
        $$->fr_colnames = $2.al_cols;
      }
  | ONLY qualified_name opt_alias_clause
      {
        /* ONLY excludes child tables; there is no inheritance, so it is t */
        $$ = sql_from_item(ps, @2.lc_pos, $2, NULL, $3.al_name);
        $$->fr_colnames = $3.al_cols;
      }
  | select_with_parens opt_alias_clause
      {
        sql_name_t none = {0};
        $$ = sql_from_item(ps, @1.lc_pos, none, $1, $2.al_name);
        $$->fr_colnames = $2.al_cols;
      }
  | func_application opt_alias_clause
      {
        sql_name_t none = {0};
        $$ = sql_from_item(ps, @1.lc_pos, none, NULL, $2.al_name);
        $$->fr_kind = SQL_FROM_FUNC;
        $$->fr_func = $1;
        $$->fr_colnames = $2.al_cols;
      }
  | func_application WITH_LA ORDINALITY opt_alias_clause
      {
        sql_name_t none = {0};
        $$ = sql_from_item(ps, @1.lc_pos, none, NULL, $4.al_name);
        $$->fr_kind = SQL_FROM_FUNC;
        $$->fr_func = $1;
        $$->fr_colnames = $4.al_cols;
        $$->fr_ordinality = true;
      }
  | LATERAL_P select_with_parens opt_alias_clause
      {
        sql_name_t none = {0};
        $$ = sql_from_item(ps, @2.lc_pos, none, $2, $3.al_name);
        $$->fr_colnames = $3.al_cols;
        $$->fr_lateral = true;
      }
  | LATERAL_P func_application opt_alias_clause
      {
        sql_name_t none = {0};
        $$ = sql_from_item(ps, @2.lc_pos, none, NULL, $3.al_name);
        $$->fr_kind = SQL_FROM_FUNC;
        $$->fr_func = $2;
        $$->fr_colnames = $3.al_cols;
        $$->fr_lateral = true;
      }
  | joined_table
  ;

opt_alias_clause:
    AS col_id '(' name_list ')'  { $$.al_name = $2; $$.al_cols = $4; }
  | AS col_id                    { $$.al_name = $2; $$.al_cols = NULL; }
  | col_id '(' name_list ')'     { $$.al_name = $1; $$.al_cols = $3; }
  | col_id                       { $$.al_name = $1; $$.al_cols = NULL; }
  | %empty                       { $$.al_name = NULL; $$.al_cols = NULL; }
  ;

joined_table:
    '(' joined_table ')'  { $$ = $2; }
  | table_ref CROSS JOIN table_ref
      { CHK($$ = sql_from_join(ps, SQL_JOIN_CROSS, @2.lc_pos, $1, $4, NULL)); }
  | table_ref join_type JOIN table_ref ON a_expr
      { CHK($$ = sql_from_join(ps, (sql_join_kind_t)$2, @2.lc_pos, $1, $4, $6)); }
  | table_ref JOIN table_ref ON a_expr
      { CHK($$ = sql_from_join(ps, SQL_JOIN_INNER, @2.lc_pos, $1, $3, $5)); }
  | table_ref join_type JOIN table_ref USING '(' name_list ')'
      {
        CHK($$ = sql_from_join(ps, (sql_join_kind_t)$2, @2.lc_pos, $1, $4, NULL));
        $$->fr_using = $7;
      }
  | table_ref JOIN table_ref USING '(' name_list ')'
      {
        CHK($$ = sql_from_join(ps, SQL_JOIN_INNER, @2.lc_pos, $1, $3, NULL));
        $$->fr_using = $6;
      }
  | table_ref NATURAL join_type JOIN table_ref
      {
        CHK($$ = sql_from_join(ps, (sql_join_kind_t)$3, @2.lc_pos, $1, $5, NULL));
        $$->fr_natural = true;
      }
  | table_ref NATURAL JOIN table_ref
      {
        CHK($$ = sql_from_join(ps, SQL_JOIN_INNER, @2.lc_pos, $1, $4, NULL));
        $$->fr_natural = true;
      }
  ;

join_type:
    INNER_P          { $$ = SQL_JOIN_INNER; }
  | LEFT             { $$ = SQL_JOIN_LEFT; }
  | LEFT OUTER_P     { $$ = SQL_JOIN_LEFT; }
  | RIGHT            { $$ = SQL_JOIN_RIGHT; }
  | RIGHT OUTER_P    { $$ = SQL_JOIN_RIGHT; }
  | FULL             { $$ = SQL_JOIN_FULL; }
  | FULL OUTER_P     { $$ = SQL_JOIN_FULL; }
  ;

opt_alias:
    AS col_id  { $$ = $2; }
  | IDENT      { $$ = $1; }
  | %empty     { $$ = NULL; }
  ;

where_clause:
    WHERE a_expr  { $$ = $2; }
  | %empty        { $$ = NULL; }
  ;

group_clause:
    GROUP_P BY group_by_list  { $$ = $3; }
  | %empty                    { $$ = NULL; }
  ;

/* PostgreSQL's group_by_item: an expression, (), (a, b), ROLLUP, CUBE,
 * GROUPING SETS (nesting the others). */
group_by_list:
    group_by_item                    { $$ = APPEND(NULL, $1); }
  | group_by_list ',' group_by_item  { $$ = APPEND($1, $3); }
  ;

group_by_item:
    a_expr
  | '(' ')'
      {
        $$ = sql_expr_new(ps, SQL_E_GROUPING_SET, @1.lc_pos);
        $$->ex_int = SQL_GSET_EMPTY;
      }
  | '(' a_expr ',' expr_list ')'
      {
        $$ = sql_expr_new(ps, SQL_E_GROUPING_SET, @1.lc_pos);
        $$->ex_int = SQL_GSET_ROW;
        $$->ex_list = APPEND(NULL, $2);
        for (int i = 0; i < sql_list_len($4); i++)
          $$->ex_list = APPEND($$->ex_list, sql_list_at($4, i));
      }
  | ROLLUP '(' group_by_list ')'
      {
        $$ = sql_expr_new(ps, SQL_E_GROUPING_SET, @1.lc_pos);
        $$->ex_int = SQL_GSET_ROLLUP;
        $$->ex_list = $3;
      }
  | CUBE '(' group_by_list ')'
      {
        $$ = sql_expr_new(ps, SQL_E_GROUPING_SET, @1.lc_pos);
        $$->ex_int = SQL_GSET_CUBE;
        $$->ex_list = $3;
      }
  | GROUPING SETS '(' group_by_list ')'
      {
        $$ = sql_expr_new(ps, SQL_E_GROUPING_SET, @1.lc_pos);
        $$->ex_int = SQL_GSET_SETS;
        $$->ex_list = $4;
      }
  ;

having_clause:
    HAVING a_expr  { $$ = $2; }
  | %empty         { $$ = NULL; }
  ;

sort_clause:
    ORDER BY sortby_list  { $$ = $3; }
  ;

opt_sort_clause:
    sort_clause
  | %empty       { $$ = NULL; }
  ;

sortby_list:
    sortby                  { $$ = APPEND(NULL, $1); }
  | sortby_list ',' sortby  { $$ = APPEND($1, $3); }
  ;

sortby:
    a_expr opt_asc_desc opt_nulls_order
      {
        $$ = NEW(sql_order_t);
        $$->or_expr = $1;
        $$->or_desc = $2;
        $$->or_nulls = $3;
      }
  ;

opt_asc_desc:
    ASC     { $$ = 0; }
  | DESC    { $$ = 1; }
  | %empty  { $$ = 0; }
  ;

opt_nulls_order:
    NULLS_P FIRST_P  { $$ = SQL_NULLS_FIRST; }
  | NULLS_P LAST_P   { $$ = SQL_NULLS_LAST; }
  | %empty           { $$ = SQL_NULLS_DEFAULT; }
  ;

limit_clause:
    LIMIT limit_value                    { $$.li_limit = $2; $$.li_offset = NULL; }
  | LIMIT limit_value OFFSET a_expr      { $$.li_limit = $2; $$.li_offset = $4; }
  | OFFSET a_expr                        { $$.li_limit = NULL; $$.li_offset = $2; }
  | OFFSET a_expr LIMIT limit_value      { $$.li_limit = $4; $$.li_offset = $2; }
  | fetch_clause                         { $$.li_limit = $1; $$.li_offset = NULL; }
  | OFFSET a_expr row_or_rows            { $$.li_limit = NULL; $$.li_offset = $2; }
  | OFFSET a_expr row_or_rows fetch_clause  { $$.li_limit = $4; $$.li_offset = $2; }
  | fetch_clause OFFSET a_expr row_or_rows  { $$.li_limit = $1; $$.li_offset = $3; }
  ;

/* FETCH FIRST [n] ROW[S] ONLY: the standard's LIMIT (n defaults to 1) */
fetch_clause:
    FETCH first_or_next fetch_count row_or_rows ONLY  { $$ = $3; }
  | FETCH first_or_next row_or_rows ONLY
      { $$ = sql_expr_number(ps, "1", @1.lc_pos, SQL_LIT_INT); }
  ;

fetch_count:
    ICONST           { $$ = sql_expr_number(ps, $1, @1.lc_pos, SQL_LIT_INT); }
  | PARAM            { $$ = sql_expr_new(ps, SQL_E_PARAM, @1.lc_pos); $$->ex_int = $1; }
  | '(' a_expr ')'   { $$ = $2; }
  ;

first_or_next:
    FIRST_P
  | NEXT
  ;

row_or_rows:
    ROW
  | ROWS
  ;

limit_value:
    a_expr
  | ALL     { $$ = NULL; }
  ;

values_clause:
    VALUES '(' values_row ')'
      {
        $$ = NEW(sql_query_t);
        $$->qu_kind = SQL_Q_VALUES;
        $$->qu_pos = @1.lc_pos;
        $$->qu_depth = 1;
        $$->qu_rows = APPEND(NULL, $3);
      }
  | values_clause ',' '(' values_row ')'  { $$ = $1; $$->qu_rows = APPEND($1->qu_rows, $4); }
  ;

values_row:
    values_item                 { $$ = APPEND(NULL, $1); }
  | values_row ',' values_item  { $$ = APPEND($1, $3); }
  ;

values_item:
    a_expr
  | DEFAULT  { $$ = sql_expr_new(ps, SQL_E_DEFAULT, @1.lc_pos); }
  ;

/* ---- expressions -------------------------------------------------------- */

a_expr:
    c_expr
  | a_expr TYPECAST type_name
      {
        $$ = sql_expr_new(ps, SQL_E_CAST, @2.lc_pos);
        $$->ex_left = $1;
        $$->ex_type = $3;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | a_expr AT TIME ZONE a_expr %prec AT
      { /* PostgreSQL's spelling of timezone(zone, value) */
        CHK($$ = sql_g_fn(ps, @2.lc_pos, "timezone", APPEND(APPEND(NULL, $5), $1)));
      }
  | '+' a_expr %prec UMINUS  { $$ = $2; }
  | '-' a_expr %prec UMINUS  { CHK($$ = sql_expr_negate(ps, $2, @1.lc_pos)); }
  | a_expr '+' a_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_ADD, @2.lc_pos, $1, $3)); }
  | a_expr '-' a_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_SUB, @2.lc_pos, $1, $3)); }
  | a_expr '*' a_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_MUL, @2.lc_pos, $1, $3)); }
  | a_expr '/' a_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_DIV, @2.lc_pos, $1, $3)); }
  | a_expr '%' a_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_MOD, @2.lc_pos, $1, $3)); }
  | a_expr '^' a_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_POW, @2.lc_pos, $1, $3)); }
  | a_expr CONCAT a_expr         { CHK($$ = sql_expr_op(ps, SQL_OP_CONCAT, @2.lc_pos, $1, $3)); }
  | a_expr '<' a_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_LT, @2.lc_pos, $1, $3)); }
  | a_expr '>' a_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_GT, @2.lc_pos, $1, $3)); }
  | a_expr '=' a_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_EQ, @2.lc_pos, $1, $3)); }
  | a_expr LESS_EQUALS a_expr    { CHK($$ = sql_expr_op(ps, SQL_OP_LE, @2.lc_pos, $1, $3)); }
  | a_expr GREATER_EQUALS a_expr { CHK($$ = sql_expr_op(ps, SQL_OP_GE, @2.lc_pos, $1, $3)); }
  | a_expr NOT_EQUALS a_expr     { CHK($$ = sql_expr_op(ps, SQL_OP_NE, @2.lc_pos, $1, $3)); }
  | a_expr AND a_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_AND, @2.lc_pos, $1, $3)); }
  | a_expr OR a_expr             { CHK($$ = sql_expr_op(ps, SQL_OP_OR, @2.lc_pos, $1, $3)); }
  | NOT a_expr                   { CHK($$ = sql_expr_op(ps, SQL_OP_NOT, @1.lc_pos, $2, NULL)); }
  | a_expr LIKE a_expr           { CHK($$ = sql_expr_op(ps, SQL_OP_LIKE, @2.lc_pos, $1, $3)); }
  | a_expr LIKE a_expr ESCAPE a_expr %prec LIKE
      { CHK($$ = sql_g_like(ps, SQL_OP_LIKE, false, @2.lc_pos, $1, $3, $5)); }
  | a_expr NOT_LA LIKE a_expr %prec NOT_LA
      { CHK($$ = sql_expr_op_not(ps, SQL_OP_LIKE, @2.lc_pos, $1, $4)); }
  | a_expr NOT_LA LIKE a_expr ESCAPE a_expr %prec NOT_LA
      { CHK($$ = sql_g_like(ps, SQL_OP_LIKE, true, @2.lc_pos, $1, $4, $6)); }
  | a_expr ILIKE a_expr          { CHK($$ = sql_expr_op(ps, SQL_OP_ILIKE, @2.lc_pos, $1, $3)); }
  | a_expr ILIKE a_expr ESCAPE a_expr %prec ILIKE
      { CHK($$ = sql_g_like(ps, SQL_OP_ILIKE, false, @2.lc_pos, $1, $3, $5)); }
  | a_expr NOT_LA ILIKE a_expr %prec NOT_LA
      { CHK($$ = sql_expr_op_not(ps, SQL_OP_ILIKE, @2.lc_pos, $1, $4)); }
  | a_expr NOT_LA ILIKE a_expr ESCAPE a_expr %prec NOT_LA
      { CHK($$ = sql_g_like(ps, SQL_OP_ILIKE, true, @2.lc_pos, $1, $4, $6)); }
  | a_expr SIMILAR TO a_expr %prec SIMILAR
      { CHK($$ = sql_g_like(ps, SQL_OP_SIMILAR, false, @2.lc_pos, $1, $4, NULL)); }
  | a_expr SIMILAR TO a_expr ESCAPE a_expr %prec SIMILAR
      { CHK($$ = sql_g_like(ps, SQL_OP_SIMILAR, false, @2.lc_pos, $1, $4, $6)); }
  | a_expr NOT_LA SIMILAR TO a_expr %prec NOT_LA
      { CHK($$ = sql_g_like(ps, SQL_OP_SIMILAR, true, @2.lc_pos, $1, $5, NULL)); }
  | a_expr NOT_LA SIMILAR TO a_expr ESCAPE a_expr %prec NOT_LA
      { CHK($$ = sql_g_like(ps, SQL_OP_SIMILAR, true, @2.lc_pos, $1, $5, $7)); }
  | a_expr IS NULL_P %prec IS
      { CHK($$ = sql_expr_op(ps, SQL_OP_IS_NULL, @2.lc_pos, $1, NULL)); }
  | a_expr IS NOT NULL_P %prec IS
      { CHK($$ = sql_expr_op_not(ps, SQL_OP_IS_NULL, @2.lc_pos, $1, NULL)); }
  | a_expr IS TRUE_P %prec IS
      { CHK($$ = sql_expr_op(ps, SQL_OP_IS_TRUE, @2.lc_pos, $1, NULL)); }
  | a_expr IS NOT TRUE_P %prec IS
      { CHK($$ = sql_expr_op_not(ps, SQL_OP_IS_TRUE, @2.lc_pos, $1, NULL)); }
  | a_expr IS FALSE_P %prec IS
      { CHK($$ = sql_expr_op(ps, SQL_OP_IS_FALSE, @2.lc_pos, $1, NULL)); }
  | a_expr IS NOT FALSE_P %prec IS
      { CHK($$ = sql_expr_op_not(ps, SQL_OP_IS_FALSE, @2.lc_pos, $1, NULL)); }
  | a_expr IS UNKNOWN %prec IS
      { CHK($$ = sql_expr_op(ps, SQL_OP_IS_UNKNOWN, @2.lc_pos, $1, NULL)); }
  | a_expr IS NOT UNKNOWN %prec IS
      { CHK($$ = sql_expr_op_not(ps, SQL_OP_IS_UNKNOWN, @2.lc_pos, $1, NULL)); }
  | a_expr IS DISTINCT FROM a_expr %prec IS
      { CHK($$ = sql_expr_op(ps, SQL_OP_IS_DISTINCT, @2.lc_pos, $1, $5)); }
  | a_expr IS NOT DISTINCT FROM a_expr %prec IS
      { CHK($$ = sql_expr_op_not(ps, SQL_OP_IS_DISTINCT, @2.lc_pos, $1, $6)); }
  | a_expr BETWEEN b_expr AND a_expr %prec BETWEEN
      {
        $$ = sql_expr_new(ps, SQL_E_BETWEEN, @2.lc_pos);
        $$->ex_left = $1;
        $$->ex_right = $3;
        $$->ex_third = $5;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | a_expr BETWEEN ASYMMETRIC b_expr AND a_expr %prec BETWEEN
      { CHK($$ = sql_g_between(ps, @2.lc_pos, false, false, $1, $4, $6)); }
  | a_expr BETWEEN SYMMETRIC b_expr AND a_expr %prec BETWEEN
      { CHK($$ = sql_g_between(ps, @2.lc_pos, false, true, $1, $4, $6)); }
  | a_expr NOT_LA BETWEEN ASYMMETRIC b_expr AND a_expr %prec NOT_LA
      { CHK($$ = sql_g_between(ps, @2.lc_pos, true, false, $1, $5, $7)); }
  | a_expr NOT_LA BETWEEN SYMMETRIC b_expr AND a_expr %prec NOT_LA
      { CHK($$ = sql_g_between(ps, @2.lc_pos, true, true, $1, $5, $7)); }
  | a_expr NOT_LA BETWEEN b_expr AND a_expr %prec NOT_LA
      {
        $$ = sql_expr_new(ps, SQL_E_BETWEEN, @2.lc_pos);
        $$->ex_not = true;
        $$->ex_left = $1;
        $$->ex_right = $4;
        $$->ex_third = $6;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | a_expr IN_P in_expr
      {
        $$ = $3;
        $$->ex_pos = @2.lc_pos;
        $$->ex_left = $1;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | a_expr NOT_LA IN_P in_expr %prec NOT_LA
      {
        $$ = $4;
        $$->ex_pos = @2.lc_pos;
        $$->ex_not = true;
        $$->ex_left = $1;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | a_expr OP a_expr
      {
        int op = sql_g_opcode($2);
        if (op < 0) {
          sql_error_at(ps, SQLSTATE_UNDEFINED_FUNCTION, @2.lc_pos, "operator does not exist: %s", $2);
          YYABORT;
        }
        CHK($$ = sql_g_binop(ps, op, @2.lc_pos, $1, $3));
      }
  | OP a_expr %prec UMINUS
      { CHK($$ = sql_g_prefix(ps, $1, @1.lc_pos, $2)); }
  | a_expr OPERATOR '(' any_operator ')' a_expr %prec OPERATOR
      { CHK($$ = sql_g_binop(ps, $4, @1.lc_pos, $1, $6)); }
  | a_expr COLLATE any_name
      {
        $$ = sql_expr_new(ps, SQL_E_COLLATE, @2.lc_pos);
        $$->ex_left = $1;
        $$->ex_schema = $3.nm_schema;
        $$->ex_name = $3.nm_name;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | a_expr subquery_op ANY select_with_parens %prec OP
      { CHK($$ = sql_g_quant(ps, SQL_E_ANY, $2, @3.lc_pos, $1, NULL, $4)); }
  | a_expr subquery_op ANY '(' a_expr ')' %prec OP
      { CHK($$ = sql_g_quant(ps, SQL_E_ANY, $2, @3.lc_pos, $1, $5, NULL)); }
  | a_expr subquery_op SOME select_with_parens %prec OP
      { CHK($$ = sql_g_quant(ps, SQL_E_ANY, $2, @3.lc_pos, $1, NULL, $4)); }
  | a_expr subquery_op SOME '(' a_expr ')' %prec OP
      { CHK($$ = sql_g_quant(ps, SQL_E_ANY, $2, @3.lc_pos, $1, $5, NULL)); }
  | a_expr subquery_op ALL select_with_parens %prec OP
      { CHK($$ = sql_g_quant(ps, SQL_E_ALL, $2, @3.lc_pos, $1, NULL, $4)); }
  | a_expr subquery_op ALL '(' a_expr ')' %prec OP
      { CHK($$ = sql_g_quant(ps, SQL_E_ALL, $2, @3.lc_pos, $1, $5, NULL)); }
  ;

/* An operator as a number: the sql_op_t, plus SQL_G_NOT when negated
 * (!~, NOT LIKE). Only the operators the AST has are accepted. */
subquery_op:
    all_op
  | OPERATOR '(' any_operator ')'  { $$ = $3; }
  | LIKE                           { $$ = SQL_OP_LIKE; }
  | NOT_LA LIKE                    { $$ = SQL_OP_LIKE | SQL_G_NOT; }
  | ILIKE                          { $$ = SQL_OP_ILIKE; }
  | NOT_LA ILIKE                   { $$ = SQL_OP_ILIKE | SQL_G_NOT; }
  ;

any_operator:
    all_op
  | col_id '.' any_operator
      {
        if (strcmp($1, "pg_catalog") != 0) {
          sql_error_at(ps, SQLSTATE_UNDEFINED_FUNCTION, @1.lc_pos,
                       "operator does not exist: %s.%s", $1,
                       sql_g_opname($3));
          YYABORT;
        }
        $$ = $3;
      }
  ;

all_op:
    OP
      {
        if (($$ = sql_g_opcode($1)) < 0) {
          sql_error_at(ps, SQLSTATE_UNDEFINED_FUNCTION, @1.lc_pos, "operator does not exist: %s", $1);
          YYABORT;
        }
      }
  | '='             { $$ = SQL_OP_EQ; }
  | '<'             { $$ = SQL_OP_LT; }
  | '>'             { $$ = SQL_OP_GT; }
  | LESS_EQUALS     { $$ = SQL_OP_LE; }
  | GREATER_EQUALS  { $$ = SQL_OP_GE; }
  | NOT_EQUALS      { $$ = SQL_OP_NE; }
  | '+'             { $$ = SQL_OP_ADD; }
  | '-'             { $$ = SQL_OP_SUB; }
  | '*'             { $$ = SQL_OP_MUL; }
  | '/'             { $$ = SQL_OP_DIV; }
  | '%'             { $$ = SQL_OP_MOD; }
  | '^'             { $$ = SQL_OP_POW; }
  | CONCAT          { $$ = SQL_OP_CONCAT; }
  ;

b_expr:
    c_expr
  | b_expr TYPECAST type_name
      {
        $$ = sql_expr_new(ps, SQL_E_CAST, @2.lc_pos);
        $$->ex_left = $1;
        $$->ex_type = $3;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | '+' b_expr %prec UMINUS  { $$ = $2; }
  | '-' b_expr %prec UMINUS  { CHK($$ = sql_expr_negate(ps, $2, @1.lc_pos)); }
  | b_expr '+' b_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_ADD, @2.lc_pos, $1, $3)); }
  | b_expr '-' b_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_SUB, @2.lc_pos, $1, $3)); }
  | b_expr '*' b_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_MUL, @2.lc_pos, $1, $3)); }
  | b_expr '/' b_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_DIV, @2.lc_pos, $1, $3)); }
  | b_expr '%' b_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_MOD, @2.lc_pos, $1, $3)); }
  | b_expr '^' b_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_POW, @2.lc_pos, $1, $3)); }
  | b_expr CONCAT b_expr         { CHK($$ = sql_expr_op(ps, SQL_OP_CONCAT, @2.lc_pos, $1, $3)); }
  | b_expr '<' b_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_LT, @2.lc_pos, $1, $3)); }
  | b_expr '>' b_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_GT, @2.lc_pos, $1, $3)); }
  | b_expr '=' b_expr            { CHK($$ = sql_expr_op(ps, SQL_OP_EQ, @2.lc_pos, $1, $3)); }
  | b_expr LESS_EQUALS b_expr    { CHK($$ = sql_expr_op(ps, SQL_OP_LE, @2.lc_pos, $1, $3)); }
  | b_expr GREATER_EQUALS b_expr { CHK($$ = sql_expr_op(ps, SQL_OP_GE, @2.lc_pos, $1, $3)); }
  | b_expr NOT_EQUALS b_expr     { CHK($$ = sql_expr_op(ps, SQL_OP_NE, @2.lc_pos, $1, $3)); }
  ;

c_expr:
    columnref
  | const_expr
  | PARAM                { $$ = sql_expr_new(ps, SQL_E_PARAM, @1.lc_pos); $$->ex_int = $1; }
  | '(' a_expr ')'       { $$ = $2; }
  | case_expr
  | func_expr
  | select_with_parens %prec UMINUS
      {
        $$ = sql_expr_new(ps, SQL_E_SUBQUERY, @1.lc_pos);
        $$->ex_query = $1;
      }
  | EXISTS select_with_parens
      {
        $$ = sql_expr_new(ps, SQL_E_EXISTS, @1.lc_pos);
        $$->ex_query = $2;
      }
  | CAST '(' a_expr AS type_name ')'
      {
        $$ = sql_expr_new(ps, SQL_E_CAST, @1.lc_pos);
        $$->ex_left = $3;
        $$->ex_type = $5;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | subscripted
  | '(' a_expr ')' '.' col_label
      {
        $$ = sql_expr_new(ps, SQL_E_FIELD, @4.lc_pos);
        $$->ex_left = $2;
        $$->ex_name = $5;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | '(' a_expr ')' '.' '*'
      {
        $$ = sql_expr_new(ps, SQL_E_FIELD, @4.lc_pos);
        $$->ex_left = $2;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | ARRAY '[' expr_list ']'
      {
        $$ = sql_expr_new(ps, SQL_E_ARRAY, @1.lc_pos);
        $$->ex_list = $3;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | ARRAY '[' array_sub_list ']'
      {
        /* ARRAY[[1,2],[3,4]]: the inner brackets are ARRAY[…] without the
         * keyword, as in PostgreSQL */
        $$ = sql_expr_new(ps, SQL_E_ARRAY, @1.lc_pos);
        $$->ex_list = $3;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | ARRAY '[' ']'  { $$ = sql_expr_new(ps, SQL_E_ARRAY, @1.lc_pos); }
  | ARRAY select_with_parens
      {
        $$ = sql_expr_new(ps, SQL_E_ARRAY_QUERY, @1.lc_pos);
        $$->ex_query = $2;
      }
  ;

/* x[i]: only after a column or a parenthesised expression, as in
 * PostgreSQL (f(x)[1] needs parentheses) */
subscripted:
    columnref '[' a_expr ']'         { CHK($$ = sql_g_subscript(ps, @2.lc_pos, $1, $3)); }
  | '(' a_expr ')' '[' a_expr ']'    { CHK($$ = sql_g_subscript(ps, @4.lc_pos, $2, $5)); }
  | subscripted '[' a_expr ']'       { CHK($$ = sql_g_subscript(ps, @2.lc_pos, $1, $3)); }
  ;

in_expr:
    select_with_parens
      {
        $$ = sql_expr_new(ps, SQL_E_IN_QUERY, @1.lc_pos);
        $$->ex_query = $1;
      }
  | '(' expr_list ')'
      {
        $$ = sql_expr_new(ps, SQL_E_IN_LIST, @1.lc_pos);
        $$->ex_list = $2;
      }
  ;

array_sub_list:
    array_sub                     { $$ = APPEND(NULL, $1); }
  | array_sub_list ',' array_sub  { $$ = APPEND($1, $3); }
  ;

array_sub:
    '[' expr_list ']'
      {
        $$ = sql_expr_new(ps, SQL_E_ARRAY, @1.lc_pos);
        $$->ex_list = $2;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | '[' array_sub_list ']'
      {
        $$ = sql_expr_new(ps, SQL_E_ARRAY, @1.lc_pos);
        $$->ex_list = $2;
        CHK($$ = sql_expr_done(ps, $$));
      }
  | '[' ']'  { $$ = sql_expr_new(ps, SQL_E_ARRAY, @1.lc_pos); }
  ;

expr_list:
    a_expr                { $$ = APPEND(NULL, $1); }
  | expr_list ',' a_expr  { $$ = APPEND($1, $3); }
  ;

columnref:
    col_id                        { $$ = sql_g_column(ps, @1.lc_pos, NULL, NULL, $1); }
  | col_id '.' col_id             { $$ = sql_g_column(ps, @1.lc_pos, NULL, $1, $3); }
  | col_id '.' col_id '.' col_id  { $$ = sql_g_column(ps, @1.lc_pos, $1, $3, $5); }
  ;

const_expr:
    ICONST   { $$ = sql_expr_number(ps, $1, @1.lc_pos, SQL_LIT_INT); }
  | NCONST   { $$ = sql_expr_number(ps, $1, @1.lc_pos, SQL_LIT_NUMERIC); }
  | FCONST   { $$ = sql_expr_number(ps, $1, @1.lc_pos, SQL_LIT_FLOAT); }
  | SCONST   { $$ = sql_expr_string(ps, $1, @1.lc_pos); }
  | TRUE_P
      {
        $$ = sql_expr_new(ps, SQL_E_LITERAL, @1.lc_pos);
        $$->ex_lit = SQL_LIT_BOOL;
        $$->ex_bool = true;
      }
  | FALSE_P
      {
        $$ = sql_expr_new(ps, SQL_E_LITERAL, @1.lc_pos);
        $$->ex_lit = SQL_LIT_BOOL;
      }
  | NULL_P
      {
        $$ = sql_expr_new(ps, SQL_E_LITERAL, @1.lc_pos);
        $$->ex_lit = SQL_LIT_NULL;
      }
  | INTERVAL SCONST opt_interval  { $$ = sql_g_interval(ps, @1.lc_pos, $2, $3); }
  | INTERVAL '(' ICONST ')' SCONST
      {
        sql_type_t t;
        if (sql_g_iv_fields(ps, @3.lc_pos, NULL, NULL, (int)strtol($3, NULL, 10), &t))
          YYABORT;
        $$ = sql_g_interval(ps, @1.lc_pos, $5, t);
      }
  | type_function_name SCONST
      {
        /* DATE '2024-01-31': a literal of the named type */
        $$ = sql_expr_string(ps, $2, @1.lc_pos);
        $$->ex_lit = SQL_LIT_TYPED;
        if (sql_type_resolve(ps, NULL, $1, SQL_G_QUOTED(@1), SQL_TYPE_PLAIN, 0, NULL, @1.lc_pos,
                             &$$->ex_type))
          YYABORT;
      }
  ;

func_expr:
    func_application
  | func_application over_clause  { $$ = $1; $$->ex_over = $2; }
  | func_application FILTER '(' WHERE a_expr ')' opt_over_clause_filter
      { CHK($$ = sql_g_filter(ps, @2.lc_pos, $1, $5)); $$->ex_over = $7; }
  | func_common
  ;

func_application:
    func_name '(' ')'                     { CHK($$ = sql_g_func(ps, @1.lc_pos, $1, NULL, false, false)); }
  | func_name '(' '*' ')'                 { CHK($$ = sql_g_func(ps, @1.lc_pos, $1, NULL, false, true)); }
  | func_name '(' expr_list ')'           { CHK($$ = sql_g_func(ps, @1.lc_pos, $1, $3, false, false)); }
  | func_name '(' ALL expr_list ')'       { CHK($$ = sql_g_func(ps, @1.lc_pos, $1, $4, false, false)); }
  | func_name '(' DISTINCT expr_list ')'  { CHK($$ = sql_g_func(ps, @1.lc_pos, $1, $4, true, false)); }
  | func_name '(' expr_list sort_clause ')'
      { CHK($$ = sql_g_func(ps, @1.lc_pos, $1, $3, false, false)); $$->ex_agg_order = $4; }
  ;

/* LEFT and RIGHT are reserved (joins) but name functions too, as in
 * PostgreSQL: left(s, n), right(s, n). */
func_name:
    type_function_name { $$.nm_schema = NULL; $$.nm_name = $1; $$.nm_pos = @1.lc_pos; }
  | col_id '.' col_id  { $$.nm_schema = $1; $$.nm_name = $3; $$.nm_pos = @1.lc_pos; }
  | LEFT               { $$.nm_schema = NULL; $$.nm_name = "left"; $$.nm_pos = @1.lc_pos; }
  | RIGHT              { $$.nm_schema = NULL; $$.nm_name = "right"; $$.nm_pos = @1.lc_pos; }
  | GROUPING           { $$.nm_schema = NULL; $$.nm_name = "grouping"; $$.nm_pos = @1.lc_pos; }
  ;

over_clause:
    OVER window_spec  { $$ = $2; }
  | OVER col_id
      {
        $$ = NEW(sql_window_t);
        $$->wi_ref = $2;
        $$->wi_bare_ref = true;
        $$->wi_pos = @2.lc_pos;
      }
  ;

opt_over_clause_filter:
    over_clause
  | %empty       { $$ = NULL; }
  ;

/* ( [existing window] [PARTITION BY …] [ORDER BY …] [frame] ). The
 * existing window's name is a plain identifier here (PostgreSQL also
 * takes unreserved keywords, which would make PARTITION, ROWS, RANGE and
 * GROUPS ambiguous without precedence tricks). */
window_spec:
    '(' opt_window_ref opt_partition opt_sort_clause opt_frame_clause ')'
      {
        $$ = $5;
        $$->wi_ref = $2;
        $$->wi_partition = $3;
        $$->wi_order = $4;
        $$->wi_pos = @1.lc_pos;
      }
  ;

opt_window_ref:
    IDENT    { $$ = $1; }
  | %empty   { $$ = NULL; }
  ;

opt_frame_clause:
    frame_unit frame_bound opt_frame_exclusion
      {
        $$ = $2;
        $$->wi_frame = $1;
        $$->wi_exclude = $3;
      }
  | frame_unit BETWEEN frame_bound AND frame_bound opt_frame_exclusion
      {
        $$ = $3;
        $$->wi_frame = $1;
        $$->wi_end = $5->wi_start;
        $$->wi_end_off = $5->wi_start_off;
        $$->wi_end_pos = $5->wi_start_pos;
        $$->wi_exclude = $6;
      }
  | %empty  { $$ = NEW(sql_window_t); }
  ;

frame_unit:
    ROWS    { $$ = SQL_FRAME_ROWS; }
  | RANGE   { $$ = SQL_FRAME_RANGE; }
  | GROUPS  { $$ = SQL_FRAME_GROUPS; }
  ;

/* One bound, parsed into wi_start (the BETWEEN rule moves the second
 * into wi_end); a lone bound is the start, the end CURRENT ROW. */
frame_bound:
    frame_bound_kind
      {
        $$ = NEW(sql_window_t);
        $$->wi_start = $1;
        $$->wi_end = SQL_BOUND_CURRENT;
        $$->wi_start_pos = @1.lc_pos;
      }
  | a_expr PRECEDING
      {
        $$ = NEW(sql_window_t);
        $$->wi_start = SQL_BOUND_PRECEDING;
        $$->wi_start_off = $1;
        $$->wi_end = SQL_BOUND_CURRENT;
        $$->wi_start_pos = @1.lc_pos;
      }
  | a_expr FOLLOWING
      {
        $$ = NEW(sql_window_t);
        $$->wi_start = SQL_BOUND_FOLLOWING;
        $$->wi_start_off = $1;
        $$->wi_end = SQL_BOUND_CURRENT;
        $$->wi_start_pos = @1.lc_pos;
      }
  ;

frame_bound_kind:
    UNBOUNDED PRECEDING  { $$ = SQL_BOUND_UNBOUNDED_PRECEDING; }
  | UNBOUNDED FOLLOWING  { $$ = SQL_BOUND_UNBOUNDED_FOLLOWING; }
  | CURRENT_P ROW        { $$ = SQL_BOUND_CURRENT; }
  ;

opt_frame_exclusion:
    EXCLUDE CURRENT_P ROW  { $$ = SQL_EXCLUDE_CURRENT; }
  | EXCLUDE GROUP_P        { $$ = SQL_EXCLUDE_GROUP; }
  | EXCLUDE TIES           { $$ = SQL_EXCLUDE_TIES; }
  | EXCLUDE NO OTHERS      { $$ = SQL_EXCLUDE_NONE; }
  | %empty                 { $$ = SQL_EXCLUDE_NONE; }
  ;

/* WINDOW w AS (…) [, …] after HAVING */
opt_window_clause:
    WINDOW window_def_list  { $$ = $2; }
  | %empty                  { $$ = NULL; }
  ;

window_def_list:
    window_def                      { $$ = APPEND(NULL, $1); }
  | window_def_list ',' window_def  { $$ = APPEND($1, $3); }
  ;

window_def:
    col_id AS window_spec  { $$ = $3; $$->wi_name = $1; }
  ;

opt_partition:
    PARTITION BY expr_list  { $$ = $3; }
  | %empty                  { $$ = NULL; }
  ;

/* The SQL forms with their own syntax, turned into plain calls (the
 * mapping is documented at SQL_E_FUNC in sql.h). */
func_common:
    CURRENT_DATE           { CHK($$ = sql_g_fn(ps, @1.lc_pos, "current_date", NULL)); }
  | CURRENT_TIMESTAMP      { CHK($$ = sql_g_fn(ps, @1.lc_pos, "current_timestamp", NULL)); }
  | CURRENT_TIMESTAMP '(' ICONST ')'
      {
        sql_expr_t *p = sql_expr_number(ps, $3, @3.lc_pos, SQL_LIT_INT);
        CHK($$ = sql_g_fn(ps, @1.lc_pos, "current_timestamp", APPEND(NULL, p)));
      }
  | CURRENT_TIME           { CHK($$ = sql_g_fn(ps, @1.lc_pos, "current_time", NULL)); }
  | CURRENT_TIME '(' ICONST ')'
      {
        sql_expr_t *p = sql_expr_number(ps, $3, @3.lc_pos, SQL_LIT_INT);
        CHK($$ = sql_g_fn(ps, @1.lc_pos, "current_time", APPEND(NULL, p)));
      }
  | LOCALTIME              { CHK($$ = sql_g_fn(ps, @1.lc_pos, "localtime", NULL)); }
  | LOCALTIME '(' ICONST ')'
      {
        sql_expr_t *p = sql_expr_number(ps, $3, @3.lc_pos, SQL_LIT_INT);
        CHK($$ = sql_g_fn(ps, @1.lc_pos, "localtime", APPEND(NULL, p)));
      }
  | LOCALTIMESTAMP         { CHK($$ = sql_g_fn(ps, @1.lc_pos, "localtimestamp", NULL)); }
  | LOCALTIMESTAMP '(' ICONST ')'
      {
        sql_expr_t *p = sql_expr_number(ps, $3, @3.lc_pos, SQL_LIT_INT);
        CHK($$ = sql_g_fn(ps, @1.lc_pos, "localtimestamp", APPEND(NULL, p)));
      }
  | CURRENT_USER           { CHK($$ = sql_g_fn(ps, @1.lc_pos, "current_user", NULL)); }
  | CURRENT_ROLE           { CHK($$ = sql_g_fn(ps, @1.lc_pos, "current_user", NULL)); }
  | USER                   { CHK($$ = sql_g_fn(ps, @1.lc_pos, "current_user", NULL)); }
  | SESSION_USER           { CHK($$ = sql_g_fn(ps, @1.lc_pos, "session_user", NULL)); }
  | CURRENT_CATALOG        { CHK($$ = sql_g_fn(ps, @1.lc_pos, "current_database", NULL)); }
  | CURRENT_SCHEMA         { CHK($$ = sql_g_fn(ps, @1.lc_pos, "current_schema", NULL)); }
  | CURRENT_SCHEMA '(' ')' { CHK($$ = sql_g_fn(ps, @1.lc_pos, "current_schema", NULL)); }
  | EXTRACT '(' extract_arg FROM a_expr ')'
      { CHK($$ = sql_g_fn(ps, @1.lc_pos, "extract", APPEND(APPEND(NULL, $3), $5))); }
  | POSITION '(' b_expr IN_P b_expr ')'
      { CHK($$ = sql_g_fn(ps, @1.lc_pos, "position", APPEND(APPEND(NULL, $5), $3))); }
  | SUBSTRING '(' substr_list ')'  { CHK($$ = sql_g_fn(ps, @1.lc_pos, "substring", $3)); }
  | SUBSTRING '(' expr_list ')'    { CHK($$ = sql_g_fn(ps, @1.lc_pos, "substring", $3)); }
  | TRIM '(' BOTH trim_list ')'    { CHK($$ = sql_g_fn(ps, @1.lc_pos, "btrim", $4)); }
  | TRIM '(' LEADING trim_list ')' { CHK($$ = sql_g_fn(ps, @1.lc_pos, "ltrim", $4)); }
  | TRIM '(' TRAILING trim_list ')' { CHK($$ = sql_g_fn(ps, @1.lc_pos, "rtrim", $4)); }
  | TRIM '(' trim_list ')'         { CHK($$ = sql_g_fn(ps, @1.lc_pos, "btrim", $3)); }
  ;

extract_arg:
    col_id  { $$ = sql_expr_string(ps, $1, @1.lc_pos); }
  | SCONST
      {
        /* the field name as PostgreSQL takes it: case does not matter */
        char *f = arena_strdup(ps->ps_arena, $1);
        for (char *c = f; *c; c++)
          if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
        $$ = sql_expr_string(ps, f, @1.lc_pos);
      }
  ;

substr_list:
    a_expr FROM a_expr FOR a_expr  { $$ = APPEND(APPEND(APPEND(NULL, $1), $3), $5); }
  | a_expr FOR a_expr FROM a_expr  { $$ = APPEND(APPEND(APPEND(NULL, $1), $5), $3); }
  | a_expr FROM a_expr             { $$ = APPEND(APPEND(NULL, $1), $3); }
  | a_expr FOR a_expr
      {
        sql_expr_t *one = sql_expr_number(ps, "1", @2.lc_pos, SQL_LIT_INT);
        $$ = APPEND(APPEND(APPEND(NULL, $1), one), $3);
      }
  ;

/* [chars] FROM string → (string, chars); a plain list stays as written */
trim_list:
    a_expr FROM expr_list
      {
        $$ = $3;
        $$ = APPEND($$, $1);
      }
  | FROM expr_list  { $$ = $2; }
  | expr_list
  ;

case_expr:
    CASE case_arg when_list case_default END_P
      {
        $$ = sql_expr_new(ps, SQL_E_CASE, @1.lc_pos);
        $$->ex_left = $2;
        $$->ex_list = $3;
        $$->ex_right = $4;
        CHK($$ = sql_expr_done(ps, $$));
      }
  ;

case_arg:
    a_expr
  | %empty  { $$ = NULL; }
  ;

when_list:
    when_clause            { $$ = APPEND(NULL, $1); }
  | when_list when_clause  { $$ = APPEND($1, $2); }
  ;

when_clause:
    WHEN a_expr THEN a_expr
      {
        $$ = NEW(sql_when_t);
        $$->wh_cond = $2;
        $$->wh_result = $4;
      }
  ;

case_default:
    ELSE a_expr  { $$ = $2; }
  | %empty       { $$ = NULL; }
  ;

/* A type: a name, optionally pg_catalog-qualified, with its second word
 * and modifiers, then any number of [] for an array. Whether the name was
 * quoted is read from the text ("char" is not char). */
type_name:
    simple_type
  | type_name '[' ']'         { $$ = $1; $$.ty_array = true; }
  | type_name '[' ICONST ']'  { $$ = $1; $$.ty_array = true; }
  ;

simple_type:
    type_function_name opt_type_mods
      {
        if (sql_type_resolve(ps, NULL, $1, SQL_G_QUOTED(@1), SQL_TYPE_PLAIN, $2.md_n, $2.md_v,
                             @1.lc_pos, &$$))
          YYABORT;
      }
  | type_function_name '.' col_id opt_type_mods
      {
        if (sql_type_resolve(ps, $1, $3, SQL_G_QUOTED(@3), SQL_TYPE_PLAIN, $4.md_n, $4.md_v,
                             @1.lc_pos, &$$))
          YYABORT;
      }
  | type_function_name PRECISION
      {
        if (sql_type_resolve(ps, NULL, $1, false, SQL_TYPE_PRECISION, 0, NULL, @1.lc_pos, &$$))
          YYABORT;
      }
  | type_function_name VARYING opt_type_mods
      {
        if (sql_type_resolve(ps, NULL, $1, false, SQL_TYPE_VARYING, $3.md_n, $3.md_v, @1.lc_pos,
                             &$$))
          YYABORT;
      }
  | type_function_name WITHOUT TIME ZONE
      {
        if (sql_type_resolve(ps, NULL, $1, false, SQL_TYPE_NO_TZ, 0, NULL, @1.lc_pos, &$$))
          YYABORT;
      }
  | type_function_name WITH_LA TIME ZONE
      {
        if (sql_type_resolve(ps, NULL, $1, false, SQL_TYPE_TZ, 0, NULL, @1.lc_pos, &$$))
          YYABORT;
      }
  | type_function_name '(' ICONST ')' WITHOUT TIME ZONE
      {
        int64_t m = strtoll($3, NULL, 10);
        if (sql_type_resolve(ps, NULL, $1, false, SQL_TYPE_NO_TZ, 1, &m, @1.lc_pos, &$$))
          YYABORT;
      }
  | type_function_name '(' ICONST ')' WITH_LA TIME ZONE
      {
        int64_t m = strtoll($3, NULL, 10);
        if (sql_type_resolve(ps, NULL, $1, false, SQL_TYPE_TZ, 1, &m, @1.lc_pos, &$$))
          YYABORT;
      }
  | INTERVAL opt_interval  { $$ = $2; }
  | INTERVAL '(' ICONST ')'
      {
        if (sql_g_iv_fields(ps, @3.lc_pos, NULL, NULL, (int)strtol($3, NULL, 10), &$$))
          YYABORT;
      }
  ;

/* INTERVAL's fields and seconds precision: `day to second(3)`. The units
 * are IV_UNIT tokens only right after INTERVAL (see sql_yylex). */
opt_interval:
    %empty
      { if (sql_g_iv_fields(ps, 0, NULL, NULL, -1, &$$)) YYABORT; }
  | IV_UNIT
      { if (sql_g_iv_fields(ps, @1.lc_pos, $1, NULL, -1, &$$)) YYABORT; }
  | IV_UNIT '(' ICONST ')'
      {
        if (sql_g_iv_fields(ps, @1.lc_pos, $1, NULL, (int)strtol($3, NULL, 10), &$$))
          YYABORT;
      }
  | IV_UNIT TO IV_UNIT
      { if (sql_g_iv_fields(ps, @1.lc_pos, $1, $3, -1, &$$)) YYABORT; }
  | IV_UNIT TO IV_UNIT '(' ICONST ')'
      {
        if (sql_g_iv_fields(ps, @1.lc_pos, $1, $3, (int)strtol($5, NULL, 10), &$$))
          YYABORT;
      }
  ;

opt_type_mods:
    '(' ICONST ')'
      {
        $$.md_n = 1;
        $$.md_v[0] = strtoll($2, NULL, 10); /* saturates: range checked later */
      }
  | '(' ICONST ',' ICONST ')'
      {
        $$.md_n = 2;
        $$.md_v[0] = strtoll($2, NULL, 10);
        $$.md_v[1] = strtoll($4, NULL, 10);
      }
  | %empty  { $$.md_n = 0; }
  ;

/* ---- names -------------------------------------------------------------- */

col_id:
    IDENT
  | unreserved_keyword
  | col_name_keyword
  ;

/* A function's or type's name: PostgreSQL's type_function_name without
 * its type_func_name_keyword (LEFT and RIGHT are in func_name). */
type_function_name:
    IDENT
  | unreserved_keyword
  ;

qualified_name:
    col_id             { $$.nm_schema = NULL; $$.nm_name = $1; $$.nm_pos = @1.lc_pos; }
  | col_id '.' col_id  { $$.nm_schema = $1; $$.nm_name = $3; $$.nm_pos = @1.lc_pos; }
  ;

qualified_name_list:
    qualified_name                          { $$ = APPEND(NULL, sql_g_name(ps, $1)); }
  | qualified_name_list ',' qualified_name  { $$ = APPEND($1, sql_g_name(ps, $3)); }
  ;

name_list:
    col_id                { $$ = APPEND(NULL, (void *)$1); }
  | name_list ',' col_id  { $$ = APPEND($1, (void *)$3); }
  ;

/* A name after AS in a select list, after a dot in a collation name, or
 * of a COPY option: any keyword will do there. */
col_label:
    col_id
  | reserved_keyword
  ;

/* [schema.]name where the name may be any keyword (COLLATE pg_catalog.default) */
any_name:
    col_id                { $$.nm_schema = NULL; $$.nm_name = $1; $$.nm_pos = @1.lc_pos; }
  | col_id '.' col_label  { $$.nm_schema = $1; $$.nm_name = $3; $$.nm_pos = @1.lc_pos; }
  ;

unreserved_keyword:
    ANALYZE | BEGIN_P | COMMIT | EXPLAIN | FIRST_P | IF_P | INCLUDE | INDEX | KEY | LAST_P
  | LOCAL | NULLS_P | PASSWORD | PRECISION | PRIVILEGES | RELEASE | ROLE | ROLLBACK
  | SAVEPOINT | SESSION | SHOW | START | TIME | TRANSACTION | VARYING | WITHOUT | WORK | ZONE
  | AT
  | ALTER | BINARY | CHARACTERISTICS | CHECKPOINT | COMMITTED | CONFLICT | COPY | CREATEDB
  | CREATEROLE | CSV | DEALLOCATE | DELIMITER | ENCODING | ENCRYPTED | ESCAPE | FORCE | FREEZE
  | HEADER_P | ISOLATION | LEVEL | LOGIN | NEXT | NOCREATEDB | NOCREATEROLE | NOLOGIN
  | NOSUPERUSER | NOTHING | NOWAIT | OPERATOR | OVER | PARTITION | PREPARE | QUOTE | READ
  | EXECUTE
  | RECURSIVE | REPEATABLE | RESET | ROW | ROWS | SERIALIZABLE | SHARE | STDIN | STDOUT
  | SUPERUSER | TRUNCATE | UNCOMMITTED | VACUUM | WRITE | CASCADE | RESTRICT | UNKNOWN
  | SETS
  | CURRENT_P | EXCLUDE | FILTER | FOLLOWING | GROUPS | NO | OTHERS | PRECEDING | RANGE | TIES
  | UNBOUNDED
  | BY | CUBE | DELETE_P | DROP | INSERT | REVOKE | ROLLUP | SET | UPDATE
  | ALWAYS | CACHE | CYCLE | GENERATED | IDENTITY_P | INCREMENT | MAXVALUE | MINVALUE | NONE
  | OVERRIDING | OWNED | RENAME | RESTART | SEQUENCE | SYSTEM_P | VALUE_P
  | CASCADED | DATA_P | MATERIALIZED | OPTION | REFRESH | REPLACE | TEMP | TEMPORARY | VIEW
  | ACTION | CONSTRAINTS | DEFERRED | IMMEDIATE | INHERIT | MATCH | PARTIAL | SIMPLE | VALID
  | ORDINALITY
  | ADD_P | TYPE_P
  | LOCKED | SKIP | COMMENT | CONTINUE_P | SCHEMA | OF
  | DATABASE
  ;

/* PostgreSQL's col_name_keyword: a column or table name, never a function
 * or type name (each has a syntax of its own: EXTRACT(f FROM x),
 * INTERVAL '1' DAY, VALUES (…), GROUPING(…)). */
col_name_keyword:
    BETWEEN | EXISTS | EXTRACT | GROUPING | INTERVAL | POSITION | SUBSTRING | TRIM | VALUES
  ;

/* Every other keyword: not usable as a bare name. */
reserved_keyword:
    ALL | AND | ANY | ARRAY | AS | ASC | ASYMMETRIC | BOTH | CASE | CAST | CHECK | COLLATE
  | CONSTRAINT
  | COLUMN
  | CREATE
  | CROSS | CURRENT_CATALOG | CURRENT_DATE | CURRENT_ROLE | CURRENT_SCHEMA | CURRENT_TIMESTAMP
  | CURRENT_TIME | LOCALTIME
  | CURRENT_USER | DEFAULT | DEFERRABLE | DESC | DISTINCT | DO | ELSE | END_P
  | EXCEPT | FALSE_P | FETCH | FOR | FROM | FULL | GRANT | GROUP_P | HAVING
  | ILIKE | IN_P | INNER_P | INTERSECT | INTO | IS | JOIN | LEADING | LEFT | LIKE
  | LIMIT | LOCALTIMESTAMP | NATURAL | NOT | NULL_P | OFFSET | ON | ONLY | OR | ORDER | OUTER_P
  | PRIMARY | RETURNING | RIGHT | SELECT | SESSION_USER | SIMILAR | SOME
  | SYMMETRIC | TABLE | THEN | TO | TOP | TRAILING | TRUE_P | UNION | UNIQUE
  | USER | USING | WHEN | WHERE | WINDOW | WITH
  | LATERAL_P
  | AUTHORIZATION
  | FOREIGN | INITIALLY | REFERENCES
  ;

/* ---- data manipulation -------------------------------------------------- */

insert_stmt:
    INSERT INTO qualified_name opt_insert_alias insert_rest opt_on_conflict returning_clause
      {
        $$ = sql_stmt_new(ps, SQL_STMT_INSERT);
        $$->st_insert = $5;
        $5->in_table = $3;
        $5->in_alias = $4;
        if ($6) {
          $5->in_on_conflict = true;
          $5->in_conflict_cols = $6->in_conflict_cols;
          $5->in_conflict_constraint = $6->in_conflict_constraint;
          $5->in_conflict_where = $6->in_conflict_where;
          $5->in_conflict_pos = $6->in_conflict_pos;
          $5->in_do_update = $6->in_do_update;
          $5->in_update_set = $6->in_update_set;
          $5->in_update_where = $6->in_update_where;
        }
        $5->in_returning = $7;
      }
  ;

opt_insert_alias:
    AS col_id  { $$ = $2; }
  | %empty     { $$ = NULL; }
  ;

/* NULL: no ON CONFLICT; else a shell holding only the in_conflict_* and
 * in_update_* fields (insert_stmt copies them). */
opt_on_conflict:
    ON CONFLICT conflict_target DO NOTHING
      { $$ = $3; $$->in_conflict_pos = @1.lc_pos; }
  | ON CONFLICT conflict_target DO UPDATE SET set_list where_clause
      {
        $$ = $3;
        $$->in_conflict_pos = @1.lc_pos;
        $$->in_do_update = true;
        $$->in_update_set = $7;
        $$->in_update_where = $8;
      }
  | %empty  { $$ = NULL; }
  ;

conflict_target:
    '(' name_list ')' where_clause
      { $$ = NEW(sql_insert_t); $$->in_conflict_cols = $2; $$->in_conflict_where = $4; }
  | ON CONSTRAINT col_id  { $$ = NEW(sql_insert_t); $$->in_conflict_constraint = $3; }
  | %empty                { $$ = NEW(sql_insert_t); }
  ;

returning_clause:
    RETURNING target_list  { $$ = $2; }
  | %empty                 { $$ = NULL; }
  ;

insert_rest:
    select_stmt                    { $$ = NEW(sql_insert_t); $$->in_query = $1; }
  | '(' name_list ')' select_stmt
      {
        $$ = NEW(sql_insert_t);
        $$->in_columns = $2;
        $$->in_query = $4;
      }
  | OVERRIDING override_kind VALUE_P select_stmt
      { $$ = NEW(sql_insert_t); $$->in_query = $4; $$->in_overriding = (char)$2; }
  | '(' name_list ')' OVERRIDING override_kind VALUE_P select_stmt
      {
        $$ = NEW(sql_insert_t);
        $$->in_columns = $2;
        $$->in_query = $7;
        $$->in_overriding = (char)$5;
      }
  | DEFAULT VALUES                 { $$ = NEW(sql_insert_t); }
  ;

override_kind:
    SYSTEM_P  { $$ = 's'; }
  | USER      { $$ = 'u'; }
  ;

update_stmt:
    UPDATE qualified_name opt_alias SET set_list from_clause where_clause returning_clause
      {
        $$ = sql_stmt_new(ps, SQL_STMT_UPDATE);
        $$->st_update = NEW(sql_update_t);
        $$->st_update->up_table = $2;
        $$->st_update->up_alias = $3;
        $$->st_update->up_set = $5;
        $$->st_update->up_from = $6;
        $$->st_update->up_where = $7;
        $$->st_update->up_returning = $8;
      }
  ;

set_list:
    set_item               { $$ = APPEND(NULL, $1); }
  | set_list ',' set_item  { $$ = APPEND($1, $3); }
  ;

set_item:
    col_id '=' values_item
      {
        $$ = NEW(sql_assign_t);
        $$->as_column = $1;
        $$->as_pos = @1.lc_pos;
        $$->as_expr = $3;
      }
  ;

/* WITH … INSERT / UPDATE / DELETE: the WITH queries are in force for
 * the whole statement (the shell from with_clause is kept as st_with). */
with_dml_stmt:
    with_clause insert_stmt  { $$ = $2; $$->st_with = $1; }
  | with_clause update_stmt  { $$ = $2; $$->st_with = $1; }
  | with_clause delete_stmt  { $$ = $2; $$->st_with = $1; }
  ;

/* DELETE … USING: more FROM items, as UPDATE … FROM */
opt_using:
    USING from_list  { $$ = $2; }
  | %empty           { $$ = NULL; }
  ;

delete_stmt:
    DELETE_P FROM qualified_name opt_alias opt_using where_clause returning_clause
      {
        $$ = sql_stmt_new(ps, SQL_STMT_DELETE);
        $$->st_delete = NEW(sql_delete_t);
        $$->st_delete->de_table = $3;
        $$->st_delete->de_alias = $4;
        $$->st_delete->de_using = $5;
        $$->st_delete->de_where = $6;
        $$->st_delete->de_returning = $7;
      }
  ;

/* ---- data definition ---------------------------------------------------- */

create_table_stmt:
    CREATE TABLE qualified_name '(' table_elts ')' opt_rel_options
      {
        $$ = sql_stmt_new(ps, SQL_STMT_CREATE_TABLE);
        $$->st_create_table = $5;
        $5->ct_table = $3;
        $5->ct_layout = (char)$7;
      }
  | CREATE TABLE IF_P NOT EXISTS qualified_name '(' table_elts ')' opt_rel_options
      {
        $$ = sql_stmt_new(ps, SQL_STMT_CREATE_TABLE);
        $$->st_create_table = $8;
        $8->ct_table = $6;
        $8->ct_if_not_exists = true;
        $8->ct_layout = (char)$10;
      }
  ;

/* WITH (name [= value], …): storage parameters (PostgreSQL's reloptions);
 * the layout, 'r' / 'c', 0 when not written */
opt_rel_options:
    %empty                   { $$ = 0; }
  | WITH '(' rel_options ')' { $$ = $3; }
  ;

rel_options:
    col_label rel_opt_value
      { CHK(sql_rel_option(ps, 0, $1, $2, @1.lc_pos, &$$) == CZ_OK); }
  | rel_options ',' col_label rel_opt_value
      { CHK(sql_rel_option(ps, $1, $3, $4, @3.lc_pos, &$$) == CZ_OK); }
  ;

rel_opt_value:
    '=' copy_value  { $$ = $2; }
  | %empty          { $$ = NULL; }
  ;

table_elts:
    column_def
      {
        $$ = NEW(sql_create_table_t);
        $$->ct_columns = APPEND(NULL, $1);
      }
  | table_cons
      {
        $$ = NEW(sql_create_table_t);
        $$->ct_constraints = APPEND(NULL, $1);
      }
  | table_elts ',' column_def  { $$ = $1; $$->ct_columns = APPEND($1->ct_columns, $3); }
  | table_elts ',' table_cons  { $$ = $1; $$->ct_constraints = APPEND($1->ct_constraints, $3); }
  | named_table_cons
      {
        $$ = NEW(sql_create_table_t);
        $$->ct_constraints = APPEND(NULL, $1);
      }
  | table_elts ',' named_table_cons
      { $$ = $1; $$->ct_constraints = APPEND($1->ct_constraints, $3); }
  ;

column_def:
    col_id type_name col_quals
      {
        $$ = $3;
        $$->cd_name = $1;
        $$->cd_pos = @1.lc_pos;
        $$->cd_type = $2;
      }
  ;

col_quals:
    %empty                     { $$ = NEW(sql_coldef_t); }
  | col_quals NOT NULL_P       { $$ = $1; $$->cd_not_null = true; }
  | col_quals NULL_P           { $$ = $1; $$->cd_not_null = false; }
  | col_quals DEFAULT b_expr   { $$ = $1; $$->cd_default = $3; }
  | col_quals PRIMARY KEY      { $$ = $1; $$->cd_primary = true; }
  | col_quals UNIQUE opt_nulls_nd  { $$ = $1; $$->cd_unique = true; $$->cd_unique_nulls_nd = $3; }
  /* a named column constraint: the name is not kept */
  | col_quals CONSTRAINT col_id NOT NULL_P   { $$ = $1; $$->cd_not_null = true; }
  | col_quals CONSTRAINT col_id NULL_P       { $$ = $1; $$->cd_not_null = false; }
  | col_quals CONSTRAINT col_id PRIMARY KEY  { $$ = $1; $$->cd_primary = true; $$->cd_pk_name = $3; }
  | col_quals CONSTRAINT col_id UNIQUE opt_nulls_nd
      { $$ = $1; $$->cd_unique = true; $$->cd_unique_name = $3; $$->cd_unique_nulls_nd = $5; }
  | col_quals GENERATED ALWAYS AS IDENTITY_P opt_identity_opts
      { $$ = $1; $$->cd_identity = 'a'; $$->cd_identity_opts = $6; }
  | col_quals GENERATED BY DEFAULT AS IDENTITY_P opt_identity_opts
      { $$ = $1; $$->cd_identity = 'd'; $$->cd_identity_opts = $7; }
  /* Virtuoso's IDENTITY column keyword: BY DEFAULT (an explicit value is taken) */
  | col_quals IDENTITY_P                     { $$ = $1; $$->cd_identity = 'd'; }
  | col_quals col_cons                       { $$ = $1; $$->cd_constraints = APPEND($1->cd_constraints, $2); }
  | col_quals CONSTRAINT col_id col_cons
      {
        $$ = $1;
        $4->tc_name = $3;
        $4->tc_pos = @2.lc_pos;
        $$->cd_constraints = APPEND($1->cd_constraints, $4);
      }
  /* DEFERRABLE, INITIALLY …: of the constraint just before (PostgreSQL's
   * ConstraintAttr as a column constraint) */
  | col_quals cons_attr
      {
        $$ = $1;
        int n = sql_list_len($1->cd_constraints);
        sql_tabcons_t *tc = n ? sql_list_at($1->cd_constraints, n - 1) : NULL;
        CHK(sql_g_cons_attrs(ps, @2.lc_pos, tc ? tc->tc_kind : 'u', $2, tc));
      }
  ;

/* CHECK or REFERENCES written after a column (tc_columns NULL: that column). */
col_cons:
    CHECK '(' a_expr ')' opt_no_inherit
      {
        $$ = NEW(sql_tabcons_t);
        $$->tc_kind = 'c';
        $$->tc_pos = @1.lc_pos;
        $$->tc_check = $3;
        $$->tc_no_inherit = $5;
      }
  | REFERENCES qualified_name opt_name_list key_match key_actions
      {
        $$ = $5;
        $$->tc_kind = 'f';
        $$->tc_pos = @1.lc_pos;
        $$->tc_ref_table = $2;
        $$->tc_ref_columns = $3;
        $$->tc_match = (char)$4;
      }
  ;

opt_no_inherit:
    NO INHERIT  { $$ = 1; }
  | %empty      { $$ = 0; }
  ;

key_match:
    %empty          { $$ = 's'; }
  | MATCH SIMPLE    { $$ = 's'; }
  | MATCH FULL      { $$ = 'f'; }
  | MATCH PARTIAL
      {
        sql_error_at(ps, SQLSTATE_FEATURE_NOT_SUPPORTED, @1.lc_pos, "MATCH PARTIAL not yet implemented");
        YYABORT;
      }
  ;

/* ON UPDATE / ON DELETE, each at most once, in either order (as PostgreSQL). */
key_actions:
    %empty
      {
        $$ = NEW(sql_tabcons_t);
        $$->tc_on_delete = $$->tc_on_update = SQL_FK_NO_ACTION;
      }
  | key_update              { $$ = NEW(sql_tabcons_t); $$->tc_on_delete = SQL_FK_NO_ACTION; $$->tc_on_update = (char)$1; }
  | key_delete              { $$ = $1; $$->tc_on_update = SQL_FK_NO_ACTION; }
  | key_update key_delete   { $$ = $2; $$->tc_on_update = (char)$1; }
  | key_delete key_update   { $$ = $1; $$->tc_on_update = (char)$2; }
  ;

key_update:
    ON UPDATE key_action  { $$ = $3; }
  ;

key_delete:
    ON DELETE_P key_action  { $$ = NEW(sql_tabcons_t); $$->tc_on_delete = (char)$3; }
  | ON DELETE_P SET NULL_P '(' name_list ')'
      { $$ = NEW(sql_tabcons_t); $$->tc_on_delete = SQL_FK_SET_NULL; $$->tc_del_set_cols = $6; }
  | ON DELETE_P SET DEFAULT '(' name_list ')'
      { $$ = NEW(sql_tabcons_t); $$->tc_on_delete = SQL_FK_SET_DEFAULT; $$->tc_del_set_cols = $6; }
  ;

key_action:
    NO ACTION       { $$ = SQL_FK_NO_ACTION; }
  | RESTRICT        { $$ = SQL_FK_RESTRICT; }
  | CASCADE         { $$ = SQL_FK_CASCADE; }
  | SET NULL_P      { $$ = SQL_FK_SET_NULL; }
  | SET DEFAULT     { $$ = SQL_FK_SET_DEFAULT; }
  ;

/* Constraint attributes as bits: 1 DEFERRABLE, 2 NOT DEFERRABLE,
 * 4 INITIALLY DEFERRED, 8 INITIALLY IMMEDIATE, 16 NOT VALID
 * (sql_g_cons_attrs applies them). */
cons_attrs:
    %empty                { $$ = 0; }
  | cons_attrs cons_attr
      {
        if ($1 & $2) {
          sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, @2.lc_pos, "multiple constraint attribute clauses are not allowed");
          YYABORT;
        }
        $$ = $1 | $2;
      }
  ;

cons_attr:
    DEFERRABLE              { $$ = 1; }
  | NOT DEFERRABLE          { $$ = 2; }
  | INITIALLY DEFERRED      { $$ = 4; }
  | INITIALLY IMMEDIATE     { $$ = 8; }
  ;

opt_identity_opts:
    '(' seq_opts ')'  { $$ = $2; }
  | %empty            { $$ = NULL; }
  ;

/* ---- views -------------------------------------------------------------- */

/* The query's own text is kept (vw_off, vw_len): the catalog stores it
 * and every use parses and binds it again (sql/README.md, "Views"). */
view_stmt:
    view_head AS select_stmt opt_check_option
      {
        $1->vw_query = $3;
        $1->vw_off = @3.lc_off;
        $1->vw_len = @3.lc_end - @3.lc_off;
        $1->vw_check = (char)$4;
        $$ = sql_stmt_new(ps, SQL_STMT_CREATE_VIEW);
        $$->st_view = $1;
      }
  | CREATE MATERIALIZED VIEW qualified_name opt_name_list AS select_stmt opt_with_data
      {
        sql_view_t *v = NEW(sql_view_t);
        v->vw_name = $4;
        v->vw_columns = $5;
        v->vw_query = $7;
        v->vw_off = @7.lc_off;
        v->vw_len = @7.lc_end - @7.lc_off;
        v->vw_materialized = true;
        v->vw_no_data = !$8;
        $$ = sql_stmt_new(ps, SQL_STMT_CREATE_VIEW);
        $$->st_view = v;
      }
  | CREATE MATERIALIZED VIEW IF_P NOT EXISTS qualified_name opt_name_list AS select_stmt
    opt_with_data
      {
        sql_view_t *v = NEW(sql_view_t);
        v->vw_name = $7;
        v->vw_columns = $8;
        v->vw_query = $10;
        v->vw_off = @10.lc_off;
        v->vw_len = @10.lc_end - @10.lc_off;
        v->vw_materialized = true;
        v->vw_if_not_exists = true;
        v->vw_no_data = !$11;
        $$ = sql_stmt_new(ps, SQL_STMT_CREATE_VIEW);
        $$->st_view = v;
      }
  | REFRESH MATERIALIZED VIEW qualified_name opt_with_data
      {
        sql_view_t *v = NEW(sql_view_t);
        v->vw_name = $4;
        v->vw_materialized = true;
        v->vw_no_data = !$5;
        $$ = sql_stmt_new(ps, SQL_STMT_REFRESH_MATVIEW);
        $$->st_view = v;
      }
  | ALTER VIEW qualified_name RENAME TO col_id
      {
        sql_view_t *v = NEW(sql_view_t);
        v->vw_name = $3;
        v->vw_rename = $6;
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_VIEW);
        $$->st_view = v;
      }
  | ALTER VIEW IF_P EXISTS qualified_name RENAME TO col_id
      {
        sql_view_t *v = NEW(sql_view_t);
        v->vw_name = $5;
        v->vw_rename = $8;
        v->vw_if_exists = true;
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_VIEW);
        $$->st_view = v;
      }
  | ALTER MATERIALIZED VIEW qualified_name RENAME TO col_id
      {
        sql_view_t *v = NEW(sql_view_t);
        v->vw_name = $4;
        v->vw_rename = $7;
        v->vw_materialized = true;
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_VIEW);
        $$->st_view = v;
      }
  | ALTER MATERIALIZED VIEW IF_P EXISTS qualified_name RENAME TO col_id
      {
        sql_view_t *v = NEW(sql_view_t);
        v->vw_name = $6;
        v->vw_rename = $9;
        v->vw_materialized = true;
        v->vw_if_exists = true;
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_VIEW);
        $$->st_view = v;
      }
  ;

view_head:
    CREATE opt_or_replace opt_temp VIEW qualified_name opt_name_list
      {
        $$ = NEW(sql_view_t);
        $$->vw_replace = $2;
        $$->vw_temp = $3;
        $$->vw_name = $5;
        $$->vw_columns = $6;
      }
  ;

opt_or_replace:
    OR REPLACE  { $$ = true; }
  | %empty      { $$ = false; }
  ;

opt_temp:
    TEMP       { $$ = true; }
  | TEMPORARY  { $$ = true; }
  | %empty     { $$ = false; }
  ;

opt_check_option:
    WITH CHECK OPTION           { $$ = 'c'; }
  | WITH CASCADED CHECK OPTION  { $$ = 'c'; }
  | WITH LOCAL CHECK OPTION     { $$ = 'l'; }
  | %empty                      { $$ = 0; }
  ;

opt_with_data:
    WITH DATA_P     { $$ = true; }
  | WITH NO DATA_P  { $$ = false; }
  | %empty          { $$ = true; }
  ;

/* ---- ALTER TABLE ---------------------------------------------------------- */

alter_table_stmt:
    ALTER TABLE alter_rel IDENT TO owner_role
      { CHK(sql_g_word(ps, &@4, $4, "owner"));
        $$ = sql_g_drop(ps, SQL_STMT_ALTER_OWNER, $3->at_if_exists, APPEND(NULL, sql_g_name(ps, $3->at_table)));
        $$->st_owner_kind = "table"; $$->st_owner_role = $6; }
  | ALTER SEQUENCE qualified_name IDENT TO owner_role
      { CHK(sql_g_word(ps, &@4, $4, "owner")); $$ = sql_g_drop(ps, SQL_STMT_ALTER_OWNER, false, APPEND(NULL, sql_g_name(ps, $3)));
        $$->st_owner_kind = "sequence"; $$->st_owner_role = $6; }
  | ALTER VIEW qualified_name IDENT TO owner_role
      { CHK(sql_g_word(ps, &@4, $4, "owner")); $$ = sql_g_drop(ps, SQL_STMT_ALTER_OWNER, false, APPEND(NULL, sql_g_name(ps, $3)));
        $$->st_owner_kind = "view"; $$->st_owner_role = $6; }
  | ALTER MATERIALIZED VIEW qualified_name IDENT TO owner_role
      { CHK(sql_g_word(ps, &@5, $5, "owner")); $$ = sql_g_drop(ps, SQL_STMT_ALTER_OWNER, false, APPEND(NULL, sql_g_name(ps, $4)));
        $$->st_owner_kind = "materialized view"; $$->st_owner_role = $7; }
  | ALTER SCHEMA col_id IDENT TO owner_role
      {
        CHK(sql_g_word(ps, &@4, $4, "owner"));
        sql_name_t nm = {.nm_name = $3, .nm_pos = @3.lc_pos};
        $$ = sql_g_drop(ps, SQL_STMT_ALTER_OWNER, false, APPEND(NULL, sql_g_name(ps, nm)));
        $$->st_owner_kind = "schema"; $$->st_owner_role = $6;
      }
  | ALTER TABLE alter_rel alter_cmds
      {
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_TABLE);
        $$->st_alter = $3;
        $3->at_cmds = $4;
      }
  | ALTER TABLE alter_rel RENAME TO col_id
      {
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_TABLE);
        $$->st_alter = $3;
        sql_alter_cmd_t *c = NEW(sql_alter_cmd_t);
        c->ac_kind = SQL_AT_RENAME_TABLE;
        c->ac_pos = @4.lc_pos;
        c->ac_newname = $6;
        $3->at_cmds = APPEND(NULL, c);
      }
  | ALTER TABLE alter_rel RENAME col_id TO col_id
      {
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_TABLE);
        $$->st_alter = $3;
        sql_alter_cmd_t *c = NEW(sql_alter_cmd_t);
        c->ac_kind = SQL_AT_RENAME_COLUMN;
        c->ac_pos = @5.lc_pos;
        c->ac_name = $5;
        c->ac_newname = $7;
        $3->at_cmds = APPEND(NULL, c);
      }
  | ALTER TABLE alter_rel RENAME COLUMN col_id TO col_id
      {
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_TABLE);
        $$->st_alter = $3;
        sql_alter_cmd_t *c = NEW(sql_alter_cmd_t);
        c->ac_kind = SQL_AT_RENAME_COLUMN;
        c->ac_pos = @6.lc_pos;
        c->ac_name = $6;
        c->ac_newname = $8;
        $3->at_cmds = APPEND(NULL, c);
      }
  | ALTER TABLE alter_rel RENAME CONSTRAINT col_id TO col_id
      {
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_TABLE);
        $$->st_alter = $3;
        sql_alter_cmd_t *c = NEW(sql_alter_cmd_t);
        c->ac_kind = SQL_AT_RENAME_CONSTRAINT;
        c->ac_pos = @6.lc_pos;
        c->ac_name = $6;
        c->ac_newname = $8;
        $3->at_cmds = APPEND(NULL, c);
      }
  ;

/* OWNER TO's role: a name, CURRENT_USER, SESSION_USER, CURRENT_ROLE */
owner_role:
    col_id        { $$ = $1; }
  | CURRENT_USER  { $$ = "current_user"; }
  | CURRENT_ROLE  { $$ = "current_user"; }
  | SESSION_USER  { $$ = "session_user"; }
  ;

/* [IF EXISTS] [ONLY] name [*] (no inheritance here: ONLY and * change nothing) */
alter_rel:
    qualified_name                         { $$ = NEW(sql_alter_t); $$->at_table = $1; }
  | qualified_name '*'                     { $$ = NEW(sql_alter_t); $$->at_table = $1; }
  | ONLY qualified_name                    { $$ = NEW(sql_alter_t); $$->at_table = $2; $$->at_only = true; }
  | IF_P EXISTS qualified_name             { $$ = NEW(sql_alter_t); $$->at_table = $3; $$->at_if_exists = true; }
  | IF_P EXISTS qualified_name '*'         { $$ = NEW(sql_alter_t); $$->at_table = $3; $$->at_if_exists = true; }
  | IF_P EXISTS ONLY qualified_name
      { $$ = NEW(sql_alter_t); $$->at_table = $4; $$->at_if_exists = true; $$->at_only = true; }
  ;

alter_cmds:
    alter_cmd                 { $$ = APPEND(NULL, $1); }
  | alter_cmds ',' alter_cmd  { $$ = APPEND($1, $3); }
  ;

alter_cmd:
    ADD_P column_def
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_ADD_COLUMN; $$->ac_pos = @1.lc_pos; $$->ac_column = $2; }
  | ADD_P COLUMN column_def
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_ADD_COLUMN; $$->ac_pos = @1.lc_pos; $$->ac_column = $3; }
  | ADD_P COLUMN IF_P NOT EXISTS column_def
      {
        $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_ADD_COLUMN; $$->ac_pos = @1.lc_pos;
        $$->ac_column = $6; $$->ac_if_not_exists = true;
      }
  | ADD_P table_cons
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_ADD_CONSTRAINT; $$->ac_pos = @1.lc_pos; $$->ac_cons = $2; }
  | ADD_P named_table_cons
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_ADD_CONSTRAINT; $$->ac_pos = @1.lc_pos; $$->ac_cons = $2; }
  | DROP col_id opt_drop_behavior
      {
        $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_DROP_COLUMN; $$->ac_pos = @2.lc_pos;
        $$->ac_name = $2; $$->ac_cascade = $3;
      }
  | DROP COLUMN col_id opt_drop_behavior
      {
        $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_DROP_COLUMN; $$->ac_pos = @3.lc_pos;
        $$->ac_name = $3; $$->ac_cascade = $4;
      }
  | DROP IF_P EXISTS col_id opt_drop_behavior
      {
        $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_DROP_COLUMN; $$->ac_pos = @4.lc_pos;
        $$->ac_name = $4; $$->ac_cascade = $5; $$->ac_if_exists = true;
      }
  | DROP COLUMN IF_P EXISTS col_id opt_drop_behavior
      {
        $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_DROP_COLUMN; $$->ac_pos = @5.lc_pos;
        $$->ac_name = $5; $$->ac_cascade = $6; $$->ac_if_exists = true;
      }
  | DROP CONSTRAINT col_id opt_drop_behavior
      {
        $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_DROP_CONSTRAINT; $$->ac_pos = @3.lc_pos;
        $$->ac_name = $3; $$->ac_cascade = $4;
      }
  | DROP CONSTRAINT IF_P EXISTS col_id opt_drop_behavior
      {
        $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_DROP_CONSTRAINT; $$->ac_pos = @5.lc_pos;
        $$->ac_name = $5; $$->ac_cascade = $6; $$->ac_if_exists = true;
      }
  | ALTER col_id alter_col_action         { $$ = $3; $$->ac_name = $2; $$->ac_pos = @2.lc_pos; }
  | ALTER COLUMN col_id alter_col_action  { $$ = $4; $$->ac_name = $3; $$->ac_pos = @3.lc_pos; }
  ;

alter_col_action:
    ADD_P GENERATED ALWAYS AS IDENTITY_P opt_identity_opts
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_ADD_IDENTITY; $$->ac_identity = 'a'; $$->ac_seqopts = $6; }
  | ADD_P GENERATED BY DEFAULT AS IDENTITY_P opt_identity_opts
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_ADD_IDENTITY; $$->ac_identity = 'd'; $$->ac_seqopts = $7; }
  | TYPE_P type_name alter_using
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_ALTER_TYPE; $$->ac_type = $2; $$->ac_expr = $3; }
  | SET DATA_P TYPE_P type_name alter_using
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_ALTER_TYPE; $$->ac_type = $4; $$->ac_expr = $5; }
  | SET DEFAULT a_expr
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_SET_DEFAULT; $$->ac_expr = $3; }
  | DROP DEFAULT
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_DROP_DEFAULT; }
  | SET NOT NULL_P
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_SET_NOT_NULL; }
  | DROP NOT NULL_P
      { $$ = NEW(sql_alter_cmd_t); $$->ac_kind = SQL_AT_DROP_NOT_NULL; }
  ;

alter_using:
    USING a_expr  { $$ = $2; }
  | %empty        { $$ = NULL; }
  ;

/* ---- sequences ---------------------------------------------------------- */

sequence_stmt:
    CREATE SEQUENCE qualified_name seq_opts
      {
        $$ = sql_stmt_new(ps, SQL_STMT_CREATE_SEQUENCE);
        $$->st_sequence = NEW(sql_sequence_t);
        $$->st_sequence->sq_name = $3;
        $$->st_sequence->sq_opts = *$4;
      }
  | CREATE SEQUENCE IF_P NOT EXISTS qualified_name seq_opts
      {
        $$ = sql_stmt_new(ps, SQL_STMT_CREATE_SEQUENCE);
        $$->st_sequence = NEW(sql_sequence_t);
        $$->st_sequence->sq_name = $6;
        $$->st_sequence->sq_if_not_exists = true;
        $$->st_sequence->sq_opts = *$7;
      }
  | ALTER SEQUENCE qualified_name seq_opts
      {
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_SEQUENCE);
        $$->st_sequence = NEW(sql_sequence_t);
        $$->st_sequence->sq_name = $3;
        $$->st_sequence->sq_opts = *$4;
      }
  | ALTER SEQUENCE IF_P EXISTS qualified_name seq_opts
      {
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_SEQUENCE);
        $$->st_sequence = NEW(sql_sequence_t);
        $$->st_sequence->sq_name = $5;
        $$->st_sequence->sq_if_exists = true;
        $$->st_sequence->sq_opts = *$6;
      }
  | ALTER SEQUENCE qualified_name RENAME TO col_id
      {
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_SEQUENCE);
        $$->st_sequence = NEW(sql_sequence_t);
        $$->st_sequence->sq_name = $3;
        $$->st_sequence->sq_rename = $6;
      }
  | ALTER SEQUENCE IF_P EXISTS qualified_name RENAME TO col_id
      {
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_SEQUENCE);
        $$->st_sequence = NEW(sql_sequence_t);
        $$->st_sequence->sq_name = $5;
        $$->st_sequence->sq_if_exists = true;
        $$->st_sequence->sq_rename = $8;
      }
  ;

/* Each option fills its fields of one sql_seqopts_t; a repeated option is
 * an error, as in PostgreSQL ("conflicting or redundant options"). */
seq_opts:
    %empty                 { $$ = NEW(sql_seqopts_t); }
  | seq_opts AS simple_type
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_type_given)); $$->so_type_given = true; $$->so_type = $3; }
  | seq_opts INCREMENT seq_num
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_increment_given)); $$->so_increment_given = true; $$->so_increment = $3; }
  | seq_opts INCREMENT BY seq_num
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_increment_given)); $$->so_increment_given = true; $$->so_increment = $4; }
  | seq_opts MINVALUE seq_num
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_min)); $$->so_min = 1; $$->so_min_value = $3; }
  | seq_opts NO MINVALUE
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_min)); $$->so_min = -1; }
  | seq_opts MAXVALUE seq_num
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_max)); $$->so_max = 1; $$->so_max_value = $3; }
  | seq_opts NO MAXVALUE
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_max)); $$->so_max = -1; }
  | seq_opts START seq_num
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_start_given)); $$->so_start_given = true; $$->so_start = $3; }
  | seq_opts START WITH seq_num
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_start_given)); $$->so_start_given = true; $$->so_start = $4; }
  | seq_opts RESTART
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_restart)); $$->so_restart = true; }
  | seq_opts RESTART seq_num
      {
        $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_restart));
        $$->so_restart = $$->so_restart_given = true; $$->so_restart_value = $3;
      }
  | seq_opts RESTART WITH seq_num
      {
        $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_restart));
        $$->so_restart = $$->so_restart_given = true; $$->so_restart_value = $4;
      }
  | seq_opts CACHE seq_num
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_cache_given)); $$->so_cache_given = true; $$->so_cache = $3; }
  | seq_opts SEQUENCE IDENT qualified_name
      {
        $$ = $1;
        CHK(sql_g_word(ps, &@3, $3, "name"));
        CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_seqname != NULL));
        $$->so_seqname = NEW(sql_name_t);
        *$$->so_seqname = $4;
      }
  | seq_opts CYCLE
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_cycle)); $$->so_cycle = 1; }
  | seq_opts NO CYCLE
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_cycle)); $$->so_cycle = -1; }
  | seq_opts OWNED BY NONE
      { $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_owned)); $$->so_owned = -1; }
  | seq_opts OWNED BY col_id '.' col_id
      {
        $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_owned)); $$->so_owned = 1;
        $$->so_owned_table.nm_name = $4; $$->so_owned_table.nm_pos = @4.lc_pos; $$->so_owned_col = $6;
      }
  | seq_opts OWNED BY col_id '.' col_id '.' col_id
      {
        $$ = $1; CHK(sql_g_seqopt(ps, @2.lc_pos, $$->so_owned)); $$->so_owned = 1;
        $$->so_owned_table.nm_schema = $4; $$->so_owned_table.nm_name = $6;
        $$->so_owned_table.nm_pos = @4.lc_pos; $$->so_owned_col = $8;
      }
  ;

/* A signed integer option value (bigint range: 22003 beyond it). */
seq_num:
    ICONST          { CHK(sql_g_int8(ps, @1.lc_pos, $1, false, &$$)); }
  | '-' ICONST      { CHK(sql_g_int8(ps, @2.lc_pos, $2, true, &$$)); }
  | '+' ICONST      { CHK(sql_g_int8(ps, @2.lc_pos, $2, false, &$$)); }
  ;

named_table_cons:
    CONSTRAINT col_id table_cons  { $$ = $3; $$->tc_name = $2; $$->tc_pos = @1.lc_pos; }
  ;

table_cons:
    PRIMARY KEY '(' name_list ')' cons_attrs
      {
        $$ = NEW(sql_tabcons_t);
        $$->tc_primary = true;
        $$->tc_kind = 'p';
        $$->tc_pos = @1.lc_pos;
        $$->tc_columns = $4;
        CHK(sql_g_cons_attrs(ps, @6.lc_pos, 'p', $6, $$));
      }
  | UNIQUE '(' name_list ')' cons_attrs
      {
        $$ = NEW(sql_tabcons_t);
        $$->tc_kind = 'u';
        $$->tc_pos = @1.lc_pos;
        $$->tc_columns = $3;
        CHK(sql_g_cons_attrs(ps, @5.lc_pos, 'u', $5, $$));
      }
  | UNIQUE NULLS_P NOT DISTINCT '(' name_list ')' cons_attrs
      {
        $$ = NEW(sql_tabcons_t);
        $$->tc_kind = 'u';
        $$->tc_pos = @1.lc_pos;
        $$->tc_columns = $6;
        $$->tc_nulls_not_distinct = true;
        CHK(sql_g_cons_attrs(ps, @8.lc_pos, 'u', $8, $$));
      }
  | UNIQUE NULLS_P DISTINCT '(' name_list ')' cons_attrs
      {
        $$ = NEW(sql_tabcons_t);
        $$->tc_kind = 'u';
        $$->tc_pos = @1.lc_pos;
        $$->tc_columns = $5;
        CHK(sql_g_cons_attrs(ps, @7.lc_pos, 'u', $7, $$));
      }
  | CHECK '(' a_expr ')' opt_no_inherit cons_attrs
      {
        $$ = NEW(sql_tabcons_t);
        $$->tc_kind = 'c';
        $$->tc_pos = @1.lc_pos;
        $$->tc_check = $3;
        $$->tc_no_inherit = $5;
        CHK(sql_g_cons_attrs(ps, @6.lc_pos, 'c', $6, $$));
      }
  | FOREIGN KEY '(' name_list ')' REFERENCES qualified_name opt_name_list key_match key_actions
    cons_attrs
      {
        $$ = $10;
        $$->tc_kind = 'f';
        $$->tc_pos = @1.lc_pos;
        $$->tc_columns = $4;
        $$->tc_ref_table = $7;
        $$->tc_ref_columns = $8;
        $$->tc_match = (char)$9;
        CHK(sql_g_cons_attrs(ps, @11.lc_pos, 'f', $11, $$));
      }
  ;

drop_stmt:
    DROP TABLE qualified_name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_TABLE, false, $3);
        $$->st_drop->dr_cascade = $4;
      }
  | DROP TABLE IF_P EXISTS qualified_name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_TABLE, true, $5);
        $$->st_drop->dr_cascade = $6;
      }
  | DROP INDEX qualified_name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_INDEX, false, $3);
        $$->st_drop->dr_cascade = $4;
      }
  | DROP INDEX IF_P EXISTS qualified_name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_INDEX, true, $5);
        $$->st_drop->dr_cascade = $6;
      }
  | DROP SEQUENCE qualified_name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_SEQUENCE, false, $3);
        $$->st_drop->dr_cascade = $4;
      }
  | DROP SEQUENCE IF_P EXISTS qualified_name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_SEQUENCE, true, $5);
        $$->st_drop->dr_cascade = $6;
      }
  | DROP VIEW qualified_name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_VIEW, false, $3);
        $$->st_drop->dr_cascade = $4;
      }
  | DROP VIEW IF_P EXISTS qualified_name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_VIEW, true, $5);
        $$->st_drop->dr_cascade = $6;
      }
  | DROP MATERIALIZED VIEW qualified_name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_MATVIEW, false, $4);
        $$->st_drop->dr_cascade = $5;
      }
  | DROP MATERIALIZED VIEW IF_P EXISTS qualified_name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_MATVIEW, true, $6);
        $$->st_drop->dr_cascade = $7;
      }
  | DROP opt_user name_list
      {
        $$ = sql_stmt_new(ps, SQL_STMT_DROP_ROLE);
        $$->st_role = NEW(sql_role_t);
        $$->st_role->ro_user = $2;
        $$->st_role->ro_names = $3;
      }
  | DROP opt_user IF_P EXISTS name_list
      {
        $$ = sql_stmt_new(ps, SQL_STMT_DROP_ROLE);
        $$->st_role = NEW(sql_role_t);
        $$->st_role->ro_user = $2;
        $$->st_role->ro_if_exists = true;
        $$->st_role->ro_names = $5;
      }
  ;

create_index_stmt:
    CREATE opt_unique INDEX opt_index_name ON qualified_name opt_index_method '(' index_elems ')'
    opt_include opt_nulls_nd opt_rel_options
      {
        sql_create_index_t *ci = NEW(sql_create_index_t);
        ci->ci_unique = $2;
        ci->ci_index.nm_name = $4;
        ci->ci_index.nm_pos = @4.lc_pos;
        ci->ci_table = $6;
        ci->ci_method = $7;
        sql_g_index_keys(ps, ci, $9);
        ci->ci_include = $11;
        ci->ci_nulls_nd = $12;
        ci->ci_layout = (char)$13;
        $$ = sql_stmt_new(ps, SQL_STMT_CREATE_INDEX);
        $$->st_create_index = ci;
      }
  | CREATE opt_unique INDEX IF_P NOT EXISTS col_id ON qualified_name opt_index_method
    '(' index_elems ')' opt_include opt_nulls_nd opt_rel_options
      {
        sql_create_index_t *ci = NEW(sql_create_index_t);
        ci->ci_unique = $2;
        ci->ci_if_not_exists = true;
        ci->ci_index.nm_name = $7;
        ci->ci_index.nm_pos = @7.lc_pos;
        ci->ci_table = $9;
        ci->ci_method = $10;
        sql_g_index_keys(ps, ci, $12);
        ci->ci_include = $14;
        ci->ci_nulls_nd = $15;
        ci->ci_layout = (char)$16;
        $$ = sql_stmt_new(ps, SQL_STMT_CREATE_INDEX);
        $$->st_create_index = ci;
      }
  ;

/* PostgreSQL 15's NULLS [NOT] DISTINCT of a unique index or constraint:
 * true for NOT DISTINCT (NULL keys conflict) */
opt_nulls_nd:
    %empty                  { $$ = false; }
  | NULLS_P DISTINCT        { $$ = false; }
  | NULLS_P NOT DISTINCT    { $$ = true; }
  ;

/* key columns, each with its own order: (a DESC, b ASC NULLS FIRST) */
index_elems:
    index_elem                  { $$ = APPEND(NULL, $1); }
  | index_elems ',' index_elem  { $$ = APPEND($1, $3); }
  ;

index_elem:
    col_id opt_asc_desc opt_nulls_order
      {
        $$ = NEW(sql_order_t);
        $$->or_expr = sql_g_column(ps, @1.lc_pos, NULL, NULL, $1);
        $$->or_desc = $2;
        $$->or_nulls = $3;
      }
  ;

opt_drop_behavior:
    CASCADE   { $$ = true; }
  | RESTRICT  { $$ = false; }
  | %empty    { $$ = false; }
  ;

/* USING btree: the only access method there is */
opt_index_method:
    USING col_id
      {
        static const char *const pg_methods[] = {"hash", "gist", "gin", "spgist", "brin"};
        if (strcmp($2, "btree") != 0) {
          bool known = false;
          for (size_t i = 0; i < sizeof pg_methods / sizeof pg_methods[0]; i++)
            known = known || strcmp($2, pg_methods[i]) == 0;
          sql_error_at(ps, known ? SQLSTATE_FEATURE_NOT_SUPPORTED : SQLSTATE_UNDEFINED_OBJECT,
                       @2.lc_pos, known ? "access method \"%s\" is not supported"
                                        : "access method \"%s\" does not exist", $2);
          YYABORT;
        }
        $$ = $2;
      }
  | %empty  { $$ = NULL; }
  ;

opt_unique:
    UNIQUE  { $$ = true; }
  | %empty  { $$ = false; }
  ;

opt_index_name:
    col_id
  | %empty  { $$ = NULL; }
  ;

opt_include:
    INCLUDE '(' name_list ')'  { $$ = $3; }
  | %empty                     { $$ = NULL; }
  ;

/* ---- transactions ------------------------------------------------------- */

txn_stmt:
    BEGIN_P opt_transaction opt_txn_modes
      { $$ = sql_stmt_new(ps, SQL_STMT_BEGIN); $$->st_txn = $3; }
  | START TRANSACTION opt_txn_modes
      { $$ = sql_stmt_new(ps, SQL_STMT_BEGIN); $$->st_txn = $3; }
  | COMMIT opt_transaction         { $$ = sql_stmt_new(ps, SQL_STMT_COMMIT); }
  | END_P opt_transaction          { $$ = sql_stmt_new(ps, SQL_STMT_COMMIT); }
  | ROLLBACK opt_transaction       { $$ = sql_stmt_new(ps, SQL_STMT_ROLLBACK); }
  | SAVEPOINT col_id
      { $$ = sql_stmt_new(ps, SQL_STMT_SAVEPOINT); $$->st_savepoint = $2; }
  | RELEASE SAVEPOINT col_id
      { $$ = sql_stmt_new(ps, SQL_STMT_RELEASE); $$->st_savepoint = $3; }
  | RELEASE col_id
      { $$ = sql_stmt_new(ps, SQL_STMT_RELEASE); $$->st_savepoint = $2; }
  | ROLLBACK opt_transaction TO SAVEPOINT col_id
      { $$ = sql_stmt_new(ps, SQL_STMT_ROLLBACK_TO); $$->st_savepoint = $5; }
  | ROLLBACK opt_transaction TO col_id
      { $$ = sql_stmt_new(ps, SQL_STMT_ROLLBACK_TO); $$->st_savepoint = $4; }
  ;

opt_transaction:
    WORK
  | TRANSACTION
  | %empty
  ;

opt_txn_modes:
    txn_mode_list
  | %empty  { $$ = NULL; }
  ;

/* ISOLATION LEVEL …, READ ONLY | WRITE, [NOT] DEFERRABLE, separated by
 * commas or blanks; a mode given twice keeps the last */
txn_mode_list:
    txn_mode                    { $$ = NEW(sql_txnmode_t); sql_g_txnmode($$, $1); }
  | txn_mode_list ',' txn_mode  { $$ = $1; sql_g_txnmode($$, $3); }
  | txn_mode_list txn_mode      { $$ = $1; sql_g_txnmode($$, $2); }
  ;

txn_mode:
    ISOLATION LEVEL iso_level  { $$ = $3; }
  | READ ONLY                  { $$ = SQL_G_TM_READ_ONLY; }
  | READ WRITE                 { $$ = SQL_G_TM_READ_WRITE; }
  | DEFERRABLE                 { $$ = SQL_G_TM_DEFERRABLE; }
  | NOT DEFERRABLE             { $$ = SQL_G_TM_NOT_DEFERRABLE; }
  ;

iso_level:
    READ UNCOMMITTED  { $$ = SQL_ISO_READ_UNCOMMITTED; }
  | READ COMMITTED    { $$ = SQL_ISO_READ_COMMITTED; }
  | REPEATABLE READ   { $$ = SQL_ISO_REPEATABLE_READ; }
  | SERIALIZABLE      { $$ = SQL_ISO_SERIALIZABLE; }
  ;

/* ---- privileges and roles ----------------------------------------------- */

grant_stmt:
    GRANT privileges ON grant_tables TO grantee_list opt_grant_option
      {
        $$ = sql_stmt_new(ps, SQL_STMT_GRANT);
        $$->st_grant = sql_g_grant(ps, 'r', $2, $4, $6);
        $$->st_grant->gr_grant_option = $7;
      }
  | REVOKE opt_grant_option_for privileges ON grant_tables FROM grantee_list opt_drop_behavior
      {
        $$ = sql_stmt_new(ps, SQL_STMT_REVOKE);
        $$->st_grant = sql_g_grant(ps, 'r', $3, $5, $7);
        $$->st_grant->gr_grant_option = $2;
        $$->st_grant->gr_cascade = $8;
      }
  | GRANT privileges ON SCHEMA name_list TO grantee_list opt_grant_option
      {
        $$ = sql_stmt_new(ps, SQL_STMT_GRANT);
        $$->st_grant = sql_g_grant(ps, 'n', $2, sql_g_schema_names(ps, $5, @5.lc_pos), $7);
        $$->st_grant->gr_grant_option = $8;
      }
  | GRANT privileges ON SEQUENCE qualified_name_list TO grantee_list opt_grant_option
      {
        $$ = sql_stmt_new(ps, SQL_STMT_GRANT);
        $$->st_grant = sql_g_grant(ps, 'S', $2, $5, $7);
        $$->st_grant->gr_grant_option = $8;
      }
  | REVOKE opt_grant_option_for privileges ON SEQUENCE qualified_name_list FROM grantee_list
    opt_drop_behavior
      {
        $$ = sql_stmt_new(ps, SQL_STMT_REVOKE);
        $$->st_grant = sql_g_grant(ps, 'S', $3, $6, $8);
        $$->st_grant->gr_grant_option = $2;
        $$->st_grant->gr_cascade = $9;
      }
  | REVOKE opt_grant_option_for privileges ON SCHEMA name_list FROM grantee_list opt_drop_behavior
      {
        $$ = sql_stmt_new(ps, SQL_STMT_REVOKE);
        $$->st_grant = sql_g_grant(ps, 'n', $3, sql_g_schema_names(ps, $6, @6.lc_pos), $8);
        $$->st_grant->gr_grant_option = $2;
        $$->st_grant->gr_cascade = $9;
      }
  ;

/* ON [TABLE] names: spelled out (not opt_table) so that ON SCHEMA x and a
 * table named "schema" part on the token after SCHEMA */
grant_tables:
    TABLE qualified_name_list  { $$ = $2; }
  | qualified_name_list        { $$ = $1; }
  ;

opt_grant_option:
    WITH GRANT OPTION  { $$ = true; }
  | %empty             { $$ = false; }
  ;

opt_grant_option_for:
    GRANT OPTION FOR  { $$ = true; }
  | %empty            { $$ = false; }
  ;

privileges:
    ALL             { $$ = -1; }
  | ALL PRIVILEGES  { $$ = -1; }
  | privilege_list
  ;

privilege_list:
    privilege                     { $$ = $1; }
  | privilege_list ',' privilege  { $$ = $1 | $3; }
  ;

privilege:
    SELECT    { $$ = SQL_PRIV_SELECT; }
  | INSERT    { $$ = SQL_PRIV_INSERT; }
  | UPDATE    { $$ = SQL_PRIV_UPDATE; }
  | DELETE_P  { $$ = SQL_PRIV_DELETE; }
  | CREATE    { $$ = SQL_PRIV_CREATE; }
  | IDENT     { CHK(sql_g_word(ps, &@1, $1, "usage")); $$ = SQL_PRIV_USAGE; }
  ;

/* ---- schemas ---------------------------------------------------------------- */

schema_stmt:
    CREATE SCHEMA col_id opt_schema_auth
      { $$ = sql_g_schema(ps, SQL_STMT_CREATE_SCHEMA, $3, $4, false, @3.lc_pos); }
  | CREATE SCHEMA IF_P NOT EXISTS col_id opt_schema_auth
      { $$ = sql_g_schema(ps, SQL_STMT_CREATE_SCHEMA, $6, $7, true, @6.lc_pos); }
  | CREATE SCHEMA AUTHORIZATION owner_role
      { $$ = sql_g_schema(ps, SQL_STMT_CREATE_SCHEMA, NULL, $4, false, @4.lc_pos); }
  | CREATE SCHEMA IF_P NOT EXISTS AUTHORIZATION owner_role
      { $$ = sql_g_schema(ps, SQL_STMT_CREATE_SCHEMA, NULL, $7, true, @7.lc_pos); }
  | ALTER SCHEMA col_id RENAME TO col_id
      {
        $$ = sql_g_schema(ps, SQL_STMT_ALTER_SCHEMA, $3, NULL, false, @3.lc_pos);
        $$->st_schema->sc_new_name = $6;
      }
  | DROP SCHEMA name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_SCHEMA, false, sql_g_schema_names(ps, $3, @3.lc_pos));
        $$->st_drop->dr_cascade = $4;
      }
  | DROP SCHEMA IF_P EXISTS name_list opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_DROP_SCHEMA, true, sql_g_schema_names(ps, $5, @5.lc_pos));
        $$->st_drop->dr_cascade = $6;
      }
  ;

opt_schema_auth:
    AUTHORIZATION owner_role  { $$ = $2; }
  | %empty                    { $$ = NULL; }
  ;

opt_table:
    TABLE
  | %empty
  ;

grantee_list:
    col_id                   { $$ = APPEND(NULL, (void *)$1); }
  | grantee_list ',' col_id  { $$ = APPEND($1, (void *)$3); }
  ;

role_stmt:
    CREATE opt_user col_id opt_with role_opts
      {
        $$ = sql_stmt_new(ps, SQL_STMT_CREATE_ROLE);
        $$->st_role = $5;
        $5->ro_user = $2;
        $5->ro_names = APPEND(NULL, (void *)$3);
      }
  ;

alter_role_stmt:
    ALTER opt_user col_id opt_with role_opts
      {
        $$ = sql_stmt_new(ps, SQL_STMT_ALTER_ROLE);
        $$->st_role = $5;
        $5->ro_user = $2;
        $5->ro_names = APPEND(NULL, (void *)$3);
      }
  | ALTER opt_user col_id opt_in_database setting_change
      { (void)$2; $$ = sql_g_alter_setting(ps, 'n', $3, $4, $5); }
  | ALTER opt_user CURRENT_USER opt_in_database setting_change
      { (void)$2; $$ = sql_g_alter_setting(ps, 'c', NULL, $4, $5); }
  | ALTER opt_user SESSION_USER opt_in_database setting_change
      { (void)$2; $$ = sql_g_alter_setting(ps, 'c', NULL, $4, $5); }
  | ALTER opt_user ALL opt_in_database setting_change
      { (void)$2; $$ = sql_g_alter_setting(ps, 'a', NULL, $4, $5); }
  | ALTER DATABASE col_id setting_change
      { $$ = sql_g_alter_setting(ps, 0, NULL, $3, $4); }
  ;

opt_in_database:
    IN_P DATABASE col_id  { $$ = $3; }
  | %empty                { $$ = NULL; }
  ;

/* what ALTER ROLE / DATABASE change: SET as the SET statement's forms,
 * RESET name | ALL */
setting_change:
    SET set_rest  { $$ = $2; }
  | SET var_name FROM CURRENT_P
      { $$ = sql_g_setvar(ps, SQL_STMT_SET, $2, NULL); $$->st_set->sv_from_current = true; }
  | RESET var_name
      { $$ = sql_g_setvar(ps, SQL_STMT_SET, $2, NULL); $$->st_set->sv_default = true; }
  | RESET ALL
      { $$ = sql_g_setvar(ps, SQL_STMT_SET, "all", NULL); $$->st_set->sv_default = true; }
  | RESET TIME ZONE
      { $$ = sql_g_setvar(ps, SQL_STMT_SET, "timezone", NULL); $$->st_set->sv_default = true; }
  ;

opt_user:
    USER  { $$ = true; }
  | ROLE  { $$ = false; }
  ;

opt_with:
    WITH
  | %empty
  ;

role_opts:
    %empty                     { $$ = NEW(sql_role_t); }
  | role_opts PASSWORD SCONST  { $$ = $1; $$->ro_password = $3; $$->ro_password_given = true; }
  | role_opts ENCRYPTED PASSWORD SCONST
      { $$ = $1; $$->ro_password = $4; $$->ro_password_given = true; }
  | role_opts PASSWORD NULL_P  { $$ = $1; $$->ro_password = NULL; $$->ro_password_given = true; }
  | role_opts LOGIN            { $$ = $1; $$->ro_login = 1; }
  | role_opts NOLOGIN          { $$ = $1; $$->ro_login = -1; }
  | role_opts SUPERUSER        { $$ = $1; $$->ro_superuser = 1; }
  | role_opts NOSUPERUSER      { $$ = $1; $$->ro_superuser = -1; }
  | role_opts CREATEDB         { $$ = $1; $$->ro_createdb = 1; }
  | role_opts NOCREATEDB       { $$ = $1; $$->ro_createdb = -1; }
  | role_opts CREATEROLE       { $$ = $1; $$->ro_createrole = 1; }
  | role_opts NOCREATEROLE     { $$ = $1; $$->ro_createrole = -1; }
  ;

/* ---- utility ------------------------------------------------------------ */

explain_stmt:
    EXPLAIN explainable_stmt
      {
        $$ = sql_stmt_new(ps, SQL_STMT_EXPLAIN);
        $$->st_explained = $2;
      }
  | EXPLAIN ANALYZE explainable_stmt
      {
        $$ = sql_stmt_new(ps, SQL_STMT_EXPLAIN);
        $$->st_explained = $3;
        $$->st_analyze = true;
      }
  ;

explainable_stmt:
    select_stmt
      {
        $$ = sql_stmt_new(ps, SQL_STMT_SELECT);
        $$->st_query = $1;
        $$->st_pos = @1.lc_pos;
        $$->st_off = @1.lc_off;
        $$->st_len = @1.lc_end - @1.lc_off;
      }
  | insert_stmt  { $$ = $1; $$->st_pos = @1.lc_pos; $$->st_off = @1.lc_off; $$->st_len = @1.lc_end - @1.lc_off; }
  | update_stmt  { $$ = $1; $$->st_pos = @1.lc_pos; $$->st_off = @1.lc_off; $$->st_len = @1.lc_end - @1.lc_off; }
  | delete_stmt  { $$ = $1; $$->st_pos = @1.lc_pos; $$->st_off = @1.lc_off; $$->st_len = @1.lc_end - @1.lc_off; }
  | with_dml_stmt  { $$ = $1; $$->st_pos = @1.lc_pos; $$->st_off = @1.lc_off; $$->st_len = @1.lc_end - @1.lc_off; }
  ;

set_stmt:
    SET set_rest          { $$ = $2; }
  | SET SESSION set_rest  { $$ = $3; }
  | SET LOCAL set_rest    { $$ = $3; $$->st_set->sv_local = true; }
  | SET TRANSACTION txn_mode_list
      { $$ = sql_stmt_new(ps, SQL_STMT_SET_TRANSACTION); $$->st_txn = $3; }
  | SET CONSTRAINTS set_cons_names DEFERRED
      {
        $$ = sql_stmt_new(ps, SQL_STMT_SET_CONSTRAINTS);
        $$->st_setcons = NEW(sql_setcons_t);
        $$->st_setcons->sc_names = $3;
        $$->st_setcons->sc_deferred = true;
      }
  | SET CONSTRAINTS set_cons_names IMMEDIATE
      {
        $$ = sql_stmt_new(ps, SQL_STMT_SET_CONSTRAINTS);
        $$->st_setcons = NEW(sql_setcons_t);
        $$->st_setcons->sc_names = $3;
      }
  | SET SESSION CHARACTERISTICS AS TRANSACTION txn_mode_list
      {
        $$ = sql_stmt_new(ps, SQL_STMT_SET_TRANSACTION);
        $$->st_txn = $6;
        $6->tm_session = true;
      }
  | RESET var_name
      { $$ = sql_g_setvar(ps, SQL_STMT_SET, $2, NULL); $$->st_set->sv_default = true; }
  | RESET ALL
      { $$ = sql_g_setvar(ps, SQL_STMT_SET, "all", NULL); $$->st_set->sv_default = true; }
  | RESET TIME ZONE
      { $$ = sql_g_setvar(ps, SQL_STMT_SET, "timezone", NULL); $$->st_set->sv_default = true; }
  ;

set_cons_names:
    ALL                  { $$ = NULL; }
  | qualified_name_list  { $$ = $1; }
  ;

set_rest:
    var_name TO var_list       { $$ = sql_g_setvar(ps, SQL_STMT_SET, $1, $3); }
  | var_name '=' var_list      { $$ = sql_g_setvar(ps, SQL_STMT_SET, $1, $3); }
  | var_name TO DEFAULT
      { $$ = sql_g_setvar(ps, SQL_STMT_SET, $1, NULL); $$->st_set->sv_default = true; }
  | var_name '=' DEFAULT
      { $$ = sql_g_setvar(ps, SQL_STMT_SET, $1, NULL); $$->st_set->sv_default = true; }
  | TIME ZONE var_value
      { $$ = sql_g_setvar(ps, SQL_STMT_SET, "timezone", APPEND(NULL, $3)); }
  | TIME ZONE DEFAULT
      { $$ = sql_g_setvar(ps, SQL_STMT_SET, "timezone", NULL); $$->st_set->sv_default = true; }
  | TIME ZONE INTERVAL SCONST opt_interval
      {
        /* kept as the text of a cast, read by the TimeZone setting */
        sql_expr_t *v = sql_expr_string(ps, arena_sprintf(ps->ps_arena, "interval\x01%s\x01%d\x01%d",
                                                           $4, (int)$5.ty_prec, (int)$5.ty_scale),
                                        @4.lc_pos);
        $$ = sql_g_setvar(ps, SQL_STMT_SET, "timezone", APPEND(NULL, v));
      }
  ;

var_name:
    col_id
  | var_name '.' col_id  { $$ = arena_sprintf(ps->ps_arena, "%s.%s", $1, $3); }
  ;

var_list:
    var_value               { $$ = APPEND(NULL, $1); }
  | var_list ',' var_value  { $$ = APPEND($1, $3); }
  ;

var_value:
    SCONST      { $$ = sql_expr_string(ps, $1, @1.lc_pos); }
  | ICONST      { $$ = sql_expr_number(ps, $1, @1.lc_pos, SQL_LIT_INT); }
  | NCONST      { $$ = sql_expr_number(ps, $1, @1.lc_pos, SQL_LIT_NUMERIC); }
  | FCONST      { $$ = sql_expr_number(ps, $1, @1.lc_pos, SQL_LIT_FLOAT); }
  | '-' ICONST  { $$ = sql_expr_negate(ps, sql_expr_number(ps, $2, @2.lc_pos, SQL_LIT_INT), @1.lc_pos); }
  | '-' NCONST  { $$ = sql_expr_negate(ps, sql_expr_number(ps, $2, @2.lc_pos, SQL_LIT_NUMERIC), @1.lc_pos); }
  | col_id      { $$ = sql_expr_string(ps, $1, @1.lc_pos); }
  | ON          { $$ = sql_expr_string(ps, "on", @1.lc_pos); }
  | TRUE_P      { $$ = sql_expr_string(ps, "true", @1.lc_pos); }
  | FALSE_P     { $$ = sql_expr_string(ps, "false", @1.lc_pos); }
  ;

show_stmt:
    SHOW var_name   { $$ = sql_g_setvar(ps, SQL_STMT_SHOW, $2, NULL); }
  | SHOW ALL        { $$ = sql_g_setvar(ps, SQL_STMT_SHOW, "all", NULL); }
  | SHOW TIME ZONE  { $$ = sql_g_setvar(ps, SQL_STMT_SHOW, "timezone", NULL); }
  | SHOW TRANSACTION ISOLATION LEVEL
      { $$ = sql_g_setvar(ps, SQL_STMT_SHOW, "transaction_isolation", NULL); }
  ;

/* ---- COPY --------------------------------------------------------------- */

copy_stmt:
    COPY qualified_name copy_col_list copy_direction copy_target copy_opts
      {
        $$ = sql_stmt_new(ps, SQL_STMT_COPY);
        $$->st_copy = $6;
        $6->co_table = $2;
        $6->co_columns = $3;
        $6->co_from = $4;
        $6->co_file = $5;
        CHK(sql_copy_check(ps, $6, @1.lc_pos) == CZ_OK);
      }
  | COPY select_with_parens TO copy_target copy_opts
      {
        $$ = sql_stmt_new(ps, SQL_STMT_COPY);
        $$->st_copy = $5;
        $5->co_query = $2;
        $5->co_file = $4;
        CHK(sql_copy_check(ps, $5, @1.lc_pos) == CZ_OK);
      }
  ;

copy_col_list:
    '(' name_list ')'  { $$ = $2; }
  | %empty             { $$ = NULL; }
  ;

copy_direction:
    FROM  { $$ = true; }
  | TO    { $$ = false; }
  ;

/* NULL for STDIN / STDOUT, else the server-side file name */
copy_target:
    STDIN   { $$ = NULL; }
  | STDOUT  { $$ = NULL; }
  | SCONST
  ;

copy_opts:
    '(' copy_generic_opts ')'       { $$ = $2; }
  | WITH '(' copy_generic_opts ')'  { $$ = $3; }
  | WITH copy_old_opts              { $$ = $2; }
  | copy_old_opts
  ;

copy_generic_opts:
    col_label copy_value
      { $$ = NEW(sql_copy_t); CHK(!sql_copy_option(ps, $$, $1, $2, NULL, false, @1.lc_pos)); }
  | col_label '(' name_list ')'
      { $$ = NEW(sql_copy_t); CHK(!sql_copy_option(ps, $$, $1, NULL, $3, false, @1.lc_pos)); }
  | col_label '*'
      { $$ = NEW(sql_copy_t); CHK(!sql_copy_option(ps, $$, $1, NULL, NULL, true, @1.lc_pos)); }
  | copy_generic_opts ',' col_label copy_value
      { $$ = $1; CHK(!sql_copy_option(ps, $$, $3, $4, NULL, false, @3.lc_pos)); }
  | copy_generic_opts ',' col_label '(' name_list ')'
      { $$ = $1; CHK(!sql_copy_option(ps, $$, $3, NULL, $5, false, @3.lc_pos)); }
  | copy_generic_opts ',' col_label '*'
      { $$ = $1; CHK(!sql_copy_option(ps, $$, $3, NULL, NULL, true, @3.lc_pos)); }
  ;

/* an option's value as text; NULL when none was written */
copy_value:
    SCONST
  | ICONST
  | col_label
  | %empty  { $$ = NULL; }
  ;

/* the pre-9.0 spelling: BINARY, CSV, HEADER, DELIMITER [AS] 'c', NULL [AS]
 * 'x', QUOTE [AS] 'q', ESCAPE [AS] 'e', FORCE QUOTE cols | *, FORCE NOT NULL
 * cols, ENCODING 'x', FREEZE */
copy_old_opts:
    %empty  { $$ = NEW(sql_copy_t); }
  | copy_old_opts BINARY
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "format", "binary", NULL, false, @2.lc_pos)); }
  | copy_old_opts CSV
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "format", "csv", NULL, false, @2.lc_pos)); }
  | copy_old_opts HEADER_P
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "header", NULL, NULL, false, @2.lc_pos)); }
  | copy_old_opts FREEZE
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "freeze", NULL, NULL, false, @2.lc_pos)); }
  | copy_old_opts DELIMITER opt_as SCONST
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "delimiter", $4, NULL, false, @2.lc_pos)); }
  | copy_old_opts NULL_P opt_as SCONST
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "null", $4, NULL, false, @2.lc_pos)); }
  | copy_old_opts QUOTE opt_as SCONST
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "quote", $4, NULL, false, @2.lc_pos)); }
  | copy_old_opts ESCAPE opt_as SCONST
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "escape", $4, NULL, false, @2.lc_pos)); }
  | copy_old_opts ENCODING SCONST
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "encoding", $3, NULL, false, @2.lc_pos)); }
  | copy_old_opts FORCE QUOTE name_list
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "force_quote", NULL, $4, false, @2.lc_pos)); }
  | copy_old_opts FORCE QUOTE '*'
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "force_quote", NULL, NULL, true, @2.lc_pos)); }
  | copy_old_opts FORCE NOT NULL_P name_list
      { $$ = $1; CHK(!sql_copy_option(ps, $$, "force_not_null", NULL, $5, false, @2.lc_pos)); }
  ;

opt_as:
    AS
  | %empty
  ;

/* LOCK's IN … MODE: the words as written, lower case, checked by the
 * runner (ACCESS, EXCLUSIVE and MODE are not keywords) */
opt_lock_mode:
    IN_P lock_words  { $$ = $2; }
  | %empty           { $$ = "access exclusive mode"; }
  ;

lock_words:
    lock_word             { $$ = $1; }
  | lock_words lock_word  { $$ = arena_sprintf(ps->ps_arena, "%s %s", $1, $2); }
  ;

lock_word:
    IDENT   { $$ = $1; }
  | ROW     { $$ = "row"; }
  | SHARE   { $$ = "share"; }
  | UPDATE  { $$ = "update"; }
  ;

/* COMMENT ON's objects (sql_comment_t; the text is set by misc_stmt) */
comment_object:
    TABLE any_name              { $$ = sql_g_comment(ps, 't', $2, NULL); }
  | VIEW any_name               { $$ = sql_g_comment(ps, 'v', $2, NULL); }
  | MATERIALIZED VIEW any_name  { $$ = sql_g_comment(ps, 'm', $3, NULL); }
  | INDEX any_name              { $$ = sql_g_comment(ps, 'i', $2, NULL); }
  | SEQUENCE any_name           { $$ = sql_g_comment(ps, 'S', $2, NULL); }
  | SCHEMA col_id
      {
        sql_name_t n = {.nm_name = $2, .nm_pos = @2.lc_pos};
        $$ = sql_g_comment(ps, 'n', n, NULL);
      }
  | COLUMN col_id '.' col_label
      {
        sql_name_t n = {.nm_name = $2, .nm_pos = @2.lc_pos};
        $$ = sql_g_comment(ps, 'c', n, $4);
      }
  | COLUMN col_id '.' col_label '.' col_label
      {
        sql_name_t n = {.nm_schema = $2, .nm_name = $4, .nm_pos = @2.lc_pos};
        $$ = sql_g_comment(ps, 'c', n, $6);
      }
  | CONSTRAINT col_id ON any_name  { $$ = sql_g_comment(ps, 'k', $4, $2); }
  ;

comment_text:
    SCONST  { $$ = $1; }
  | NULL_P  { $$ = NULL; }
  ;

/* TRUNCATE's tables: [ONLY] name [*] (no inheritance: both mean the table) */
truncate_list:
    truncate_item                    { $$ = APPEND(NULL, sql_g_name(ps, $1)); }
  | truncate_list ',' truncate_item  { $$ = APPEND($1, sql_g_name(ps, $3)); }
  ;

truncate_item:
    qualified_name
  | qualified_name '*'  { $$ = $1; }
  | ONLY qualified_name { $$ = $2; }
  ;

opt_restart_seqs:
    RESTART IDENTITY_P     { $$ = true; }
  | CONTINUE_P IDENTITY_P  { $$ = false; }
  | %empty                 { $$ = false; }
  ;

/* ---- other utility statements ------------------------------------------- */

misc_stmt:
    CHECKPOINT  { $$ = sql_stmt_new(ps, SQL_STMT_CHECKPOINT); }
  | IDENT
      {
        /* LOCK is not a keyword here, so that it stays a bare alias. Checked
         * at once (a default reduction: no lookahead is read), so that any
         * other word starting a statement is the syntax error's place */
        CHK(sql_g_word(ps, &@1, $1, "lock"));
      }
    opt_table qualified_name_list opt_lock_mode opt_nowait
      {
        $$ = sql_g_drop(ps, SQL_STMT_LOCK, false, $4); $$->st_lock_mode = $5;
        $$->st_lock_nowait = $6;
      }
  | COMMENT ON comment_object IS comment_text
      { $$ = sql_stmt_new(ps, SQL_STMT_COMMENT); $$->st_comment = $3; $3->cm_text = $5; }
  | TRUNCATE opt_table truncate_list opt_restart_seqs opt_drop_behavior
      {
        $$ = sql_g_drop(ps, SQL_STMT_TRUNCATE, false, $3);
        $$->st_drop->dr_restart_identity = $4;
        $$->st_drop->dr_cascade = $5;
      }
  | VACUUM      { $$ = sql_g_drop(ps, SQL_STMT_VACUUM, false, NULL); }
  | VACUUM ANALYZE
      { $$ = sql_g_drop(ps, SQL_STMT_VACUUM, false, NULL); $$->st_analyze = true; }
  | VACUUM ANALYZE qualified_name_list
      { $$ = sql_g_drop(ps, SQL_STMT_VACUUM, false, $3); $$->st_analyze = true; }
  | ANALYZE
      { $$ = sql_g_drop(ps, SQL_STMT_VACUUM, false, NULL); $$->st_analyze = true; }
  | ANALYZE qualified_name_list
      { $$ = sql_g_drop(ps, SQL_STMT_VACUUM, false, $2); $$->st_analyze = true; }
  | DEALLOCATE col_id          { $$ = sql_stmt_new(ps, SQL_STMT_DEALLOCATE); $$->st_deallocate = $2; }
  | DEALLOCATE PREPARE col_id  { $$ = sql_stmt_new(ps, SQL_STMT_DEALLOCATE); $$->st_deallocate = $3; }
  | DEALLOCATE ALL             { $$ = sql_stmt_new(ps, SQL_STMT_DEALLOCATE); }
  | DEALLOCATE PREPARE ALL     { $$ = sql_stmt_new(ps, SQL_STMT_DEALLOCATE); }
  ;

/* PREPARE name [(type, …)] AS statement: the statement's own text is kept
 * (pr_off, pr_len) so that the engine prepares it as a client's Parse
 * would, with the given parameter types. */
prepare_stmt:
    PREPARE col_id opt_prep_types AS preparable_stmt
      {
        sql_prepare_t *pr = arena_zalloc(ps->ps_arena, sizeof *pr);
        pr->pr_name = $2;
        pr->pr_types = $3;
        pr->pr_stmt = $5;
        pr->pr_off = @5.lc_off;
        pr->pr_len = @5.lc_end - @5.lc_off;
        $$ = sql_stmt_new(ps, SQL_STMT_PREPARE);
        $$->st_prepare = pr;
      }
  ;

opt_prep_types:
    '(' prep_type_list ')'  { $$ = $2; }
  | %empty                  { $$ = NULL; }
  ;

prep_type_list:
    type_name
      {
        sql_type_t *t = arena_alloc(ps->ps_arena, sizeof *t);
        *t = $1;
        $$ = APPEND(NULL, t);
      }
  | prep_type_list ',' type_name
      {
        sql_type_t *t = arena_alloc(ps->ps_arena, sizeof *t);
        *t = $3;
        $$ = APPEND($1, t);
      }
  ;

preparable_stmt:
    select_stmt  { $$ = sql_stmt_new(ps, SQL_STMT_SELECT); $$->st_query = $1; }
  | insert_stmt
  | update_stmt
  | delete_stmt
  | with_dml_stmt
  ;

/* EXECUTE name [(argument, …)] */
execute_stmt:
    EXECUTE col_id
      {
        $$ = sql_stmt_new(ps, SQL_STMT_EXECUTE);
        $$->st_execute = arena_zalloc(ps->ps_arena, sizeof(sql_execute_t));
        $$->st_execute->ex_name = $2;
      }
  | EXECUTE col_id '(' expr_list ')'
      {
        $$ = sql_stmt_new(ps, SQL_STMT_EXECUTE);
        $$->st_execute = arena_zalloc(ps->ps_arena, sizeof(sql_execute_t));
        $$->st_execute->ex_name = $2;
        $$->st_execute->ex_args = $4;
      }
  ;

%%

/* Whether the n bytes at s are white space holding a newline. */
static bool sql_g_newline_gap(const char *s, size_t n)
{
  bool nl = false;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\n')
      nl = true;
    else if (!strchr(" \t\r\f\v", s[i]))
      return false;
  }
  return nl;
}

/* The scanner's tokens, with NOT turned into NOT_LA when BETWEEN, IN, LIKE,
 * ILIKE or SIMILAR follows (PostgreSQL's parser.c does the same): one token
 * of lookahead is what lets the grammar give NOT IN the precedence of IN.
 * The same lookahead joins string constants separated by a newline. */
static int sql_yylex_la(sql_yystype_t *val, sql_loc_t *loc, sql_pstate_t *ps)
{
  int tok;
  if (ps->ps_have_la) {
    tok = ps->ps_la_tok;
    *val = ps->ps_la_val;
    *loc = ps->ps_la_loc;
    ps->ps_have_la = false;
  } else
    tok = sql_scan_lex(val, loc, ps->ps_scanner);
  while (tok == SCONST) {
    /* 'foo'<newline>'bar' is 'foobar' (the standard's continuation; the
     * blank between must hold a newline, as in PostgreSQL) */
    sql_yystype_t nv;
    sql_loc_t nl;
    int next = sql_scan_lex(&nv, &nl, ps->ps_scanner);
    if (next == SCONST && sql_g_newline_gap(ps->ps_text + loc->lc_end, nl.lc_off - loc->lc_end)) {
      val->str = arena_sprintf(ps->ps_arena, "%s%s", val->str, nv.str);
      loc->lc_end = nl.lc_end;
      continue;
    }
    ps->ps_la_tok = next;
    ps->ps_la_val = nv;
    ps->ps_la_loc = nl;
    ps->ps_have_la = true;
    return tok;
  }
  if (tok != NOT && tok != WITH)
    return tok;
  int next = sql_scan_lex(&ps->ps_la_val, &ps->ps_la_loc, ps->ps_scanner);
  ps->ps_la_tok = next;
  ps->ps_have_la = true;
  if (tok == WITH)
    return next == TIME || next == ORDINALITY ? WITH_LA : WITH;
  if (next == BETWEEN || next == IN_P || next == LIKE || next == ILIKE || next == SIMILAR)
    return NOT_LA;
  return tok;
}

/* Those tokens, with an unquoted year, month, day, hour, minute or second
 * turned into IV_UNIT right after INTERVAL or INTERVAL 'text' (the type's
 * fields: `INTERVAL '1' DAY`, `x::interval day to second`), and after TO
 * following such a unit. Only there is such a word a unit; everywhere
 * else it stays an identifier (a column, an alias as in `SELECT
 * extract(year FROM d) year`), so no new keyword is needed. States: 1
 * after INTERVAL, 2 after its string, 3 after a unit, 4 after unit TO. */
static int sql_yylex_units(sql_yystype_t *val, sql_loc_t *loc, sql_pstate_t *ps)
{
  static const char *const units[] = {"year", "month", "day", "hour", "minute", "second"};
  int tok = sql_yylex_la(val, loc, ps);
  int state = ps->ps_iv_state;
  ps->ps_iv_state = 0;
  if (tok == INTERVAL)
    ps->ps_iv_state = 1;
  else if (tok == SCONST && state == 1)
    ps->ps_iv_state = 2;
  else if (tok == TO && state == 3)
    ps->ps_iv_state = 4;
  else if (tok == IDENT && state >= 1 && state != 3 && !SQL_G_QUOTED(*loc)) {
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
      if (strcmp(val->str, units[i]) == 0) {
        ps->ps_iv_state = state == 4 ? 0 : 3;
        return IV_UNIT;
      }
  }
  return tok;
}

/* Those tokens, with Virtuoso's TOP a keyword only where it opens a
 * SELECT's row limit: right after SELECT, DISTINCT, ALL or DISTINCT ON's
 * ')' and before a number, a parameter or '('. Everywhere else `top` is
 * a plain name, as in PostgreSQL, which does not reserve it (a column of
 * that name is common). The peeked token waits in the lookahead slot,
 * which is free here: only SCONST and NOT fill it, and TOP is neither. */
static int sql_yylex(sql_yystype_t *val, sql_loc_t *loc, sql_pstate_t *ps)
{
  int tok = sql_yylex_units(val, loc, ps);
  if (tok == TOP) {
    int prev = ps->ps_prev_tok;
    bool opens = prev == SELECT || prev == DISTINCT || prev == ALL || prev == ')';
    if (opens && !ps->ps_have_la) {
      ps->ps_la_tok = sql_scan_lex(&ps->ps_la_val, &ps->ps_la_loc, ps->ps_scanner);
      ps->ps_have_la = true;
      opens = ps->ps_la_tok == ICONST || ps->ps_la_tok == PARAM || ps->ps_la_tok == '(';
    }
    if (!opens)
      tok = IDENT;
  }
  ps->ps_prev_tok = tok;
  return tok;
}

/* loc is the lookahead token's: the one the parser could not accept. */
static void sql_yyerror(sql_loc_t *loc, sql_pstate_t *ps, const char *msg)
{
  if (strcmp(msg, "memory exhausted") == 0)
    sql_error_at(ps, SQLSTATE_STATEMENT_TOO_COMPLEX, loc->lc_pos,
                 "statement is too complex (nested too deeply)");
  else
    sql_syntax_error(ps, loc);
}

static sql_expr_t *sql_g_column(sql_pstate_t *ps, int pos, const char *a, const char *b,
                                const char *c)
{
  sql_expr_t *x = sql_expr_new(ps, SQL_E_COLUMN, pos);
  x->ex_schema = a;
  x->ex_table = b;
  x->ex_name = c;
  return x;
}

static sql_expr_t *sql_g_func(sql_pstate_t *ps, int pos, sql_name_t name, sql_list_t *args,
                              bool distinct, bool star)
{
  sql_expr_t *x = sql_expr_new(ps, SQL_E_FUNC, pos);
  x->ex_schema = name.nm_schema;
  x->ex_name = name.nm_name;
  x->ex_list = args;
  x->ex_distinct = distinct;
  x->ex_star = star;
  return sql_expr_done(ps, x);
}

static sql_expr_t *sql_g_fn(sql_pstate_t *ps, int pos, const char *name, sql_list_t *args)
{
  sql_name_t n = {.nm_name = name, .nm_pos = pos};
  return sql_g_func(ps, pos, n, args, false, false);
}

/* f(x, …) FILTER (WHERE cond) is f(CASE WHEN cond THEN x END, …): every
 * aggregate ignores NULL inputs, so the rows that fail the condition drop
 * out (count(*) counts CASE WHEN cond THEN 1 END). ex_filter keeps the
 * condition so that the binder refuses FILTER on what is not an aggregate. */
static sql_expr_t *sql_g_filter(sql_pstate_t *ps, int pos, sql_expr_t *f, sql_expr_t *cond)
{
  sql_expr_t *arg = f->ex_star ? sql_expr_number(ps, "1", pos, SQL_LIT_INT)
                               : sql_list_len(f->ex_list) ? sql_list_at(f->ex_list, 0) : NULL;
  if (arg) {
    sql_when_t *w = arena_zalloc(ps->ps_arena, sizeof *w);
    w->wh_cond = cond;
    w->wh_result = arg;
    sql_expr_t *c = sql_expr_new(ps, SQL_E_CASE, pos);
    c->ex_list = sql_list_append(ps->ps_arena, NULL, w);
    if (!(c = sql_expr_done(ps, c)))
      return NULL;
    sql_list_t *args = sql_list_append(ps->ps_arena, NULL, c);
    for (int i = 1; i < sql_list_len(f->ex_list); i++)
      args = sql_list_append(ps->ps_arena, args, sql_list_at(f->ex_list, i));
    f->ex_list = args;
    f->ex_star = false;
  }
  f->ex_filter = cond;
  return sql_expr_done(ps, f);
}

/* The operators the OP token stands for: the regular-expression matches,
 * PostgreSQL's spelling of [NOT] [I]LIKE and the bit operators; -1 for
 * any other run of operator characters. */
static int sql_g_opcode(const char *text)
{
  static const struct { const char *name; int op; } ops[] = {
    {"~", SQL_OP_MATCH},   {"~*", SQL_OP_IMATCH},   {"!~", SQL_OP_MATCH | SQL_G_NOT},
    {"!~*", SQL_OP_IMATCH | SQL_G_NOT}, {"~~", SQL_OP_LIKE}, {"~~*", SQL_OP_ILIKE},
    {"!~~", SQL_OP_LIKE | SQL_G_NOT},  {"!~~*", SQL_OP_ILIKE | SQL_G_NOT},
    {"&", SQL_OP_BITAND},  {"|", SQL_OP_BITOR},  {"#", SQL_OP_BITXOR},
    {"<<", SQL_OP_SHL},    {">>", SQL_OP_SHR},
    {"->", SQL_OP_JGET},   {"->>", SQL_OP_JGET_TEXT}, {"#>", SQL_OP_JPATH},
    {"#>>", SQL_OP_JPATH_TEXT}, {"@>", SQL_OP_JCONTAINS}, {"<@", SQL_OP_JCONTAINED},
    {"?", SQL_OP_JEXISTS}, {"?|", SQL_OP_JEXISTS_ANY}, {"?&", SQL_OP_JEXISTS_ALL},
    {"#-", SQL_OP_JDELETE_PATH}, {"@?", SQL_OP_JPATH_EXISTS}, {"@@", SQL_OP_JPATH_MATCH},
  };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(text, ops[i].name) == 0)
      return ops[i].op;
  return -1; /* a run of operator characters that is no operator here */
}

static const char *sql_g_opname(int op)
{
  static const char *const names[] = {
    [SQL_OP_EQ] = "=",  [SQL_OP_NE] = "<>", [SQL_OP_LT] = "<",  [SQL_OP_LE] = "<=",
    [SQL_OP_GT] = ">",  [SQL_OP_GE] = ">=", [SQL_OP_ADD] = "+", [SQL_OP_SUB] = "-",
    [SQL_OP_MUL] = "*", [SQL_OP_DIV] = "/", [SQL_OP_MOD] = "%", [SQL_OP_CONCAT] = "||",
    [SQL_OP_LIKE] = "~~", [SQL_OP_ILIKE] = "~~*", [SQL_OP_MATCH] = "~", [SQL_OP_IMATCH] = "~*",
    [SQL_OP_POW] = "^", [SQL_OP_BITAND] = "&", [SQL_OP_BITOR] = "|", [SQL_OP_BITXOR] = "#",
    [SQL_OP_BITNOT] = "~", [SQL_OP_SHL] = "<<", [SQL_OP_SHR] = ">>",
    [SQL_OP_JGET] = "->", [SQL_OP_JGET_TEXT] = "->>", [SQL_OP_JPATH] = "#>",
    [SQL_OP_JPATH_TEXT] = "#>>", [SQL_OP_JCONTAINS] = "@>", [SQL_OP_JCONTAINED] = "<@",
    [SQL_OP_JEXISTS] = "?", [SQL_OP_JEXISTS_ANY] = "?|", [SQL_OP_JEXISTS_ALL] = "?&",
    [SQL_OP_JDELETE_PATH] = "#-", [SQL_OP_JPATH_EXISTS] = "@?", [SQL_OP_JPATH_MATCH] = "@@",
  };
  static const char *const negated[] = {
    [SQL_OP_LIKE] = "!~~", [SQL_OP_ILIKE] = "!~~*", [SQL_OP_MATCH] = "!~", [SQL_OP_IMATCH] = "!~*",
  };
  int base = op & ~SQL_G_NOT;
  const char *n = (op & SQL_G_NOT) ? negated[base] : names[base];
  return n ? n : "?";
}

/* A prefix operator: only ~ (bitwise NOT) is one; the others are errors
 * PostgreSQL gives too (no prefix operator & …: 42883). */
static sql_expr_t *sql_g_prefix(sql_pstate_t *ps, const char *op, int pos, sql_expr_t *x)
{
  if (strcmp(op, "~") != 0) {
    sql_error_at(ps, SQLSTATE_UNDEFINED_FUNCTION, pos, "operator does not exist: %s", op);
    return NULL;
  }
  return sql_expr_op(ps, SQL_OP_BITNOT, pos, x, NULL);
}

/* A binary operator given as a number (all_op). */
static sql_expr_t *sql_g_binop(sql_pstate_t *ps, int op, int pos, sql_expr_t *l, sql_expr_t *r)
{
  sql_op_t o = (sql_op_t)(op & ~SQL_G_NOT);
  return (op & SQL_G_NOT) ? sql_expr_op_not(ps, o, pos, l, r) : sql_expr_op(ps, o, pos, l, r);
}

/* x op ANY|ALL (array) or (subquery); only comparisons and pattern
 * matches yield the boolean each element is tested with. */
static sql_expr_t *sql_g_quant(sql_pstate_t *ps, sql_expr_kind_t kind, int op, int pos,
                               sql_expr_t *l, sql_expr_t *array, sql_query_t *q)
{
  sql_op_t o = (sql_op_t)(op & ~SQL_G_NOT);
  bool cmp = o == SQL_OP_EQ || o == SQL_OP_NE || o == SQL_OP_LT || o == SQL_OP_LE ||
             o == SQL_OP_GT || o == SQL_OP_GE || o == SQL_OP_LIKE || o == SQL_OP_ILIKE ||
             o == SQL_OP_MATCH || o == SQL_OP_IMATCH;
  if (!cmp) {
    sql_error_at(ps, SQLSTATE_WRONG_OBJECT_TYPE, pos,
                 "op ANY/ALL (array) requires operator to yield boolean");
    return NULL;
  }
  sql_expr_t *x = sql_expr_new(ps, kind, pos);
  x->ex_op = o;
  x->ex_not = (op & SQL_G_NOT) != 0;
  x->ex_left = l;
  x->ex_right = array;
  x->ex_query = q;
  return sql_expr_done(ps, x);
}

static sql_expr_t *sql_g_subscript(sql_pstate_t *ps, int pos, sql_expr_t *x, sql_expr_t *i)
{
  sql_expr_t *s = sql_expr_new(ps, SQL_E_SUBSCRIPT, pos);
  s->ex_left = x;
  s->ex_right = i;
  return sql_expr_done(ps, s);
}

/* WITH … before q; one WITH per query level, as PostgreSQL requires. */
static sql_query_t *sql_g_with(sql_pstate_t *ps, sql_query_t *q, sql_query_t *with, int pos)
{
  if (q->qu_with) {
    sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "multiple WITH clauses not allowed");
    return NULL;
  }
  q->qu_with = with->qu_with;
  q->qu_recursive = with->qu_recursive;
  return q;
}

static sql_query_t *sql_g_lock(sql_pstate_t *ps, sql_query_t *q, struct sql_lockc_s lk, int pos)
{
  if (lk.lk_mode == SQL_LOCK_NONE)
    return q;
  if (q->qu_kind != SQL_Q_SELECT) {
    (void)pos;
    sql_error_at(ps, SQLSTATE_FEATURE_NOT_SUPPORTED, lk.lk_pos,
                 q->qu_kind == SQL_Q_VALUES ? "%s cannot be applied to VALUES"
                                            : "%s is not allowed with UNION/INTERSECT/EXCEPT",
                 sql_lock_name(lk.lk_mode));
    return NULL;
  }
  q->qu_lock = lk.lk_mode;
  q->qu_lock_wait = lk.lk_wait;
  q->qu_lock_of = lk.lk_of;
  return q;
}

/* The key columns: ci_keys as written, ci_columns their names (what the
 * index is built on, whatever the order). */
static void sql_g_index_keys(sql_pstate_t *ps, sql_create_index_t *ci, sql_list_t *keys)
{
  ci->ci_keys = keys;
  for (int i = 0; i < sql_list_len(keys); i++) {
    sql_order_t *o = sql_list_at(keys, i);
    ci->ci_columns = APPEND(ci->ci_columns, (void *)o->or_expr->ex_name);
  }
}

/* [NOT] [I]LIKE or SIMILAR TO with an optional ESCAPE (ex_third). */
static sql_expr_t *sql_g_like(sql_pstate_t *ps, sql_op_t op, bool negated, int pos,
                              sql_expr_t *l, sql_expr_t *r, sql_expr_t *esc)
{
  sql_expr_t *x = sql_expr_new(ps, SQL_E_OP, pos);
  x->ex_op = op;
  x->ex_not = negated;
  x->ex_left = l;
  x->ex_right = r;
  x->ex_third = esc;
  return sql_expr_done(ps, x);
}

/* INTERVAL [(p)] 'text' [fields]: a literal of that interval type. */
static sql_expr_t *sql_g_interval(sql_pstate_t *ps, int pos, const char *text, sql_type_t t)
{
  sql_expr_t *x = sql_expr_string(ps, text, pos);
  x->ex_lit = SQL_LIT_TYPED;
  x->ex_type = t;
  return x;
}

/* The interval type with fields from [TO to] (lower-case unit words, NULL
 * for none) and seconds precision prec (-1 none): ty_scale holds the
 * fields as PostgreSQL's range bits (SQL_IV_F_*). A precision needs SECOND
 * as the last field to mean that (after another field it is the standard's
 * leading field precision, which PostgreSQL refuses and we ignore), and
 * lies in 0..6 (PostgreSQL lowers a larger one to 6, with a warning). */
static int sql_g_iv_fields(sql_pstate_t *ps, int pos, const char *from, const char *to, int prec,
                           sql_type_t *t)
{
  static const char *const units[] = {"year", "month", "day", "hour", "minute", "second"};
  static const int bits[] = {SQL_IV_F_YEAR, SQL_IV_F_MONTH, SQL_IV_F_DAY, SQL_IV_F_HOUR,
                             SQL_IV_F_MINUTE, SQL_IV_F_SECOND};
  memset(t, 0, sizeof *t);
  t->ty_id = SQL_TYPE_INTERVAL;
  t->ty_len = -1;
  t->ty_prec = prec;
  int a = -1, b = -1;
  for (int i = 0; i < 6; i++) {
    if (from && strcmp(from, units[i]) == 0)
      a = i;
    if (to && strcmp(to, units[i]) == 0)
      b = i;
  }
  if (from && !to)
    b = a;
  /* one field, year to month, or a run within day .. second */
  if (to && !((a == 0 && b == 1) || (a >= 2 && b > a)))
    return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "syntax error at or near \"%s\"", to);
  for (int i = a; from && i <= b; i++)
    t->ty_scale |= bits[i];
  if (from && b != 5)
    t->ty_prec = -1; /* the standard's leading field precision (`day (3)`): no limit here */
  if (prec > 6) /* PostgreSQL lowers it with a warning */
    t->ty_prec = 6;
  return CZ_OK;
}

static sql_expr_t *sql_g_between1(sql_pstate_t *ps, int pos, bool negated, sql_expr_t *x,
                                  sql_expr_t *lo, sql_expr_t *hi)
{
  sql_expr_t *b = sql_expr_new(ps, SQL_E_BETWEEN, pos);
  b->ex_not = negated;
  b->ex_left = x;
  b->ex_right = lo;
  b->ex_third = hi;
  return sql_expr_done(ps, b);
}

/* [NOT] BETWEEN [A]SYMMETRIC. SYMMETRIC is rewritten here, as PostgreSQL
 * does: x BETWEEN lo AND hi OR x BETWEEN hi AND lo (NOT: both NOT BETWEEN,
 * ANDed). The operands are shared by both halves; the tree is read-only
 * after parsing, so sharing is safe. */
static sql_expr_t *sql_g_between(sql_pstate_t *ps, int pos, bool negated, bool symmetric,
                                 sql_expr_t *x, sql_expr_t *lo, sql_expr_t *hi)
{
  sql_expr_t *a = sql_g_between1(ps, pos, negated, x, lo, hi);
  if (!a || !symmetric)
    return a;
  sql_expr_t *b = sql_g_between1(ps, pos, negated, x, hi, lo);
  return b ? sql_expr_op(ps, negated ? SQL_OP_AND : SQL_OP_OR, pos, a, b) : NULL;
}

static void sql_g_txnmode(sql_txnmode_t *tm, int mode)
{
  switch (mode) {
  case SQL_G_TM_READ_ONLY: tm->tm_read_only = 1; break;
  case SQL_G_TM_READ_WRITE: tm->tm_read_only = -1; break;
  case SQL_G_TM_DEFERRABLE: tm->tm_deferrable = 1; break;
  case SQL_G_TM_NOT_DEFERRABLE: tm->tm_deferrable = -1; break;
  default: tm->tm_isolation = (sql_isolation_t)mode; break;
  }
}

static sql_query_t *sql_g_select(sql_pstate_t *ps, int pos, sql_select_t *se)
{
  sql_query_t *q = NEW(sql_query_t);
  q->qu_kind = SQL_Q_SELECT;
  q->qu_pos = pos;
  q->qu_depth = 1;
  q->qu_select = se;
  return q;
}

static sql_name_t *sql_g_name(sql_pstate_t *ps, sql_name_t n)
{
  sql_name_t *p = NEW(sql_name_t);
  *p = n;
  return p;
}

/* A sequence option written twice: 42601, as PostgreSQL. */
/* Applies constraint attributes (cons_attr bits) to tc, of kind 'p', 'u',
 * 'c' or 'f' (tc NULL: a column's PRIMARY KEY / UNIQUE / NOT NULL, which
 * the attributes cannot name). PostgreSQL's errors: 42601 for
 * contradictions and for attributes a CHECK cannot have; deferrable
 * unique keys are not built (0A000). */
static bool sql_g_cons_attrs(sql_pstate_t *ps, int pos, char kind, int attrs, sql_tabcons_t *tc)
{
  if ((attrs & 1) && (attrs & 2)) {
    sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "multiple DEFERRABLE/NOT DEFERRABLE clauses not allowed");
    return false;
  }
  if ((attrs & 4) && (attrs & 8)) {
    sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "multiple INITIALLY IMMEDIATE/DEFERRED clauses not allowed");
    return false;
  }
  if ((attrs & 4) && (attrs & 2)) {
    sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "constraint declared INITIALLY DEFERRED must be DEFERRABLE");
    return false;
  }
  bool deferrable = (attrs & (1 | 4)) != 0;
  if (kind == 'c' && deferrable) {
    sql_error_at(ps, SQLSTATE_FEATURE_NOT_SUPPORTED, pos, "CHECK constraints cannot be marked DEFERRABLE");
    return false;
  }
  if ((kind == 'p' || kind == 'u' || !tc) && deferrable) {
    sql_error_at(ps, SQLSTATE_FEATURE_NOT_SUPPORTED, pos,
                 "deferrable unique and primary key constraints are not supported");
    return false;
  }
  if (tc) {
    tc->tc_deferrable |= deferrable;
    tc->tc_deferred |= (attrs & 4) != 0;
    if (attrs & 2)
      tc->tc_deferrable = false;
  }
  return true;
}

/* A word the grammar reads as an identifier (LOCK, OWNER, NAME:
 * not keywords, so they stay usable as bare aliases) must be this one:
 * 42601 at it otherwise. */
static bool sql_g_word(sql_pstate_t *ps, const sql_loc_t *at, const char *got, const char *want)
{
  if (strcmp(got, want) == 0)
    return true;
  sql_syntax_error(ps, at);  /* the word as written */
  return false;
}

static bool sql_g_seqopt(sql_pstate_t *ps, int pos, int given)
{
  if (!given)
    return true;
  sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "conflicting or redundant options");
  return false;
}

/* An integer literal (its digits; neg: with a minus before it) as int8. */
static bool sql_g_int8(sql_pstate_t *ps, int pos, const char *text, bool neg, int64_t *out)
{
  uint64_t v = 0;
  bool over = false;
  for (const char *p = text; *p; p++) {
    if (*p < '0' || *p > '9')
      continue;  /* 1_000 style separators */
    over = over || v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  if (over || v > (uint64_t)INT64_MAX + (neg ? 1u : 0u)) {
    sql_error_at(ps, SQLSTATE_NUMERIC_OUT_OF_RANGE, pos, "value \"%s%s\" is out of range for type bigint",
                 neg ? "-" : "", text);
    return false;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

static sql_stmt_t *sql_g_drop(sql_pstate_t *ps, sql_stmt_kind_t kind, bool if_exists,
                              sql_list_t *names)
{
  sql_stmt_t *s = sql_stmt_new(ps, kind);
  s->st_drop = NEW(sql_drop_t);
  s->st_drop->dr_if_exists = if_exists;
  s->st_drop->dr_names = names;
  return s;
}

/* GRANT / REVOKE's operand; privs -1 for ALL [PRIVILEGES]. */
static sql_grant_t *sql_g_grant(sql_pstate_t *ps, char kind, int privs, sql_list_t *objects,
                                sql_list_t *roles)
{
  sql_grant_t *g = NEW(sql_grant_t);
  g->gr_kind = kind;
  g->gr_all = privs < 0;
  g->gr_privs = privs < 0 ? (kind == 'n'   ? SQL_PRIV_USAGE | SQL_PRIV_CREATE
                             : kind == 'S' ? SQL_PRIV_SELECT | SQL_PRIV_UPDATE | SQL_PRIV_USAGE
                                           : SQL_PRIV_ALL)
                          : (unsigned)privs;
  g->gr_tables = objects;
  g->gr_roles = roles;
  return g;
}

/* Schema names (plain identifiers) as sql_name_t items (nm_name alone). */
static sql_list_t *sql_g_schema_names(sql_pstate_t *ps, sql_list_t *names, int pos)
{
  sql_list_t *out = NULL;
  for (int i = 0; i < sql_list_len(names); i++) {
    sql_name_t n = {.nm_name = sql_list_at(names, i), .nm_pos = pos};
    out = APPEND(out, sql_g_name(ps, n));
  }
  return out;
}

static sql_stmt_t *sql_g_schema(sql_pstate_t *ps, sql_stmt_kind_t kind, const char *name,
                                const char *owner, bool if_not_exists, int pos)
{
  sql_stmt_t *s = sql_stmt_new(ps, kind);
  s->st_schema = NEW(sql_schema_t);
  s->st_schema->sc_name = name;
  s->st_schema->sc_owner = owner;
  s->st_schema->sc_if_not_exists = if_not_exists;
  s->st_schema->sc_pos = pos;
  return s;
}

static sql_comment_t *sql_g_comment(sql_pstate_t *ps, char kind, sql_name_t name, const char *sub)
{
  sql_comment_t *c = NEW(sql_comment_t);
  c->cm_kind = kind;
  c->cm_name = name;
  c->cm_sub = sub;
  return c;
}

static sql_stmt_t *sql_g_setvar(sql_pstate_t *ps, sql_stmt_kind_t kind, const char *name,
                                sql_list_t *values)
{
  sql_stmt_t *s = sql_stmt_new(ps, kind);
  s->st_set = NEW(sql_set_t);
  s->st_set->sv_name = name;
  s->st_set->sv_values = values;
  return s;
}

/* ALTER ROLE / DATABASE … SET | RESET from the SET statement change made. */
static sql_stmt_t *sql_g_alter_setting(sql_pstate_t *ps, char role_kind, const char *role,
                                       const char *database, sql_stmt_t *change)
{
  sql_stmt_t *s = sql_stmt_new(ps, SQL_STMT_ALTER_SETTING);
  s->st_setting = NEW(sql_alter_setting_t);
  s->st_setting->sa_role_kind = role_kind;
  s->st_setting->sa_role = role;
  s->st_setting->sa_database = database;
  s->st_setting->sa_set = change->st_set;
  return s;
}

int sql_parse(arena_t *a, const char *text, size_t len, sql_stmt_list_t **out, err_t *e)
{
  *out = NULL;
  if (len > (size_t)INT32_MAX / 2)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "statement text of %zu bytes is too long", len);
  size_t bad = sql_utf8_check(text, len);
  if (bad < len) {
    err_set(e, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE,
            "invalid byte sequence for encoding \"UTF8\": 0x%02x", (unsigned char)text[bad]);
    if (e)
      e->er_pos = sql_utf8_chars(text, bad) + 1;
    return CZ_ERR;
  }
  sql_pstate_t ps = {.ps_arena = a, .ps_text = text, .ps_len = len, .ps_err = e};
  if (sql_scan_init(&ps) != CZ_OK)
    return CZ_ERR;
  int rc = sql_yyparse(&ps);
  sql_scan_done(&ps);
  if (rc != 0 || ps.ps_failed) {
    if (!ps.ps_failed)
      err_set(e, SQLSTATE_INTERNAL, "SQL parser failed without an error");
    return CZ_ERR;
  }
  sql_stmt_list_t *l = arena_zalloc(a, sizeof *l);
  l->sl_n = sql_list_len(ps.ps_stmts);
  l->sl_stmts = l->sl_n ? (sql_stmt_t **)ps.ps_stmts->ls_items : NULL;
  *out = l;
  return CZ_OK;
}
