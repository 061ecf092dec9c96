/* sql — the SQL front end: lexer, parser and the abstract syntax tree.
 *
 * Design notes: sql_parse turns a text of one or more `;`-separated
 * statements into a list of statement trees. Every node, string and list of
 * the tree lives in the caller's arena; the tree is freed by resetting that
 * arena and never piecemeal. The parser is reentrant (a pure Bison parser
 * over a reentrant Flex scanner, all state on the caller's stack or in the
 * arena): any number of threads may parse at once.
 *
 * The tree is syntax only: names are not resolved, types of expressions are
 * not known. What the parser does decide: identifiers are folded (unquoted
 * to lower case, quoted kept), literals are classified, type names are
 * resolved to sql_type_t, and `-<number>` is folded into a negative literal.
 * Positions (`*_pos`) are 1-based character (not byte) positions in the
 * text, as PostgreSQL reports them, so that later phases can point at the
 * offending token. See sql/README.md.
 */
#ifndef CZ_SQL_H
#define CZ_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* SQLSTATEs raised by the parser. */

/* Identifiers longer than this many bytes are rejected (PostgreSQL's
 * NAMEDATALEN - 1), so that catalogs can store names in fixed fields. */
#define SQL_NAME_MAX 63
/* Deepest expression, set-operation chain or join chain accepted:
 * recursive walkers (printer, binder) may rely on it. Parenthesised nesting
 * is bounded separately by the parser stack. */
#define SQL_MAX_DEPTH 1000

/* ---- lists ------------------------------------------------------------- */

/* A growable array in the arena. The element type is stated at each field
 * that holds a list. A missing list is NULL, never an empty one. */
typedef struct sql_list_s {
  int ls_n;
  int ls_cap;
  void **ls_items;
} sql_list_t;

static inline int sql_list_len(const sql_list_t *l) { return l ? l->ls_n : 0; }
static inline void *sql_list_at(const sql_list_t *l, int i) { return l->ls_items[i]; }

/* ---- types ------------------------------------------------------------- */

typedef enum sql_type_id_e {
  SQL_TYPE_INT2,
  SQL_TYPE_INT4,
  SQL_TYPE_INT8,
  SQL_TYPE_FLOAT4,
  SQL_TYPE_FLOAT8,
  SQL_TYPE_NUMERIC,
  SQL_TYPE_CHAR,
  SQL_TYPE_VARCHAR,
  SQL_TYPE_TEXT,
  SQL_TYPE_BOOL,
  SQL_TYPE_DATE,
  SQL_TYPE_TIMESTAMP,
  SQL_TYPE_BYTEA,
  SQL_TYPE_INTERVAL, /* ty_scale the fields (SQL_IV_F_* bits, 0 all), ty_prec the seconds' */
  /* PostgreSQL's catalog types, which clients name in casts
   * (`c.oid::regclass`, `'pg_class'::regclass`, `x::pg_catalog.text`)
   * and which pg_catalog columns have. Added for the clients' catalog
   * queries; the binder maps each to its ty_t (PostgreSQL OID in
   * parentheses). */
  SQL_TYPE_OID,          /* oid (26) */
  SQL_TYPE_NAME,         /* name (19): a catalog name, at most 63 bytes */
  SQL_TYPE_CHAR1,        /* "char" (18), written quoted: one byte; unquoted char is CHAR(1) */
  SQL_TYPE_REGCLASS,     /* regclass (2205): a relation's oid, shown as its name */
  SQL_TYPE_REGTYPE,      /* regtype (2206) */
  SQL_TYPE_REGNAMESPACE, /* regnamespace (4089) */
  SQL_TYPE_REGPROC,      /* regproc (24) */
  SQL_TYPE_REGROLE,      /* regrole (4096) */
  SQL_TYPE_INT2VECTOR,   /* int2vector (22): pg_index.indkey */
  SQL_TYPE_OIDVECTOR,    /* oidvector (30) */
  SQL_TYPE_TIMESTAMPTZ,  /* timestamp with time zone (1184); ty_prec as TIMESTAMP's */
  SQL_TYPE_TIME,         /* time without time zone (1083) */
  SQL_TYPE_TIMETZ,       /* time with time zone (1266) */
  SQL_TYPE_JSON,         /* json (114) */
  SQL_TYPE_JSONB         /* jsonb (3802) */
} sql_type_id_t;

/* INTERVAL's fields (`day to second`) as PostgreSQL's typmod range bits;
 * types.h's TY_IV_F_* are the same values. */
#define SQL_IV_F_MONTH (1 << 1)
#define SQL_IV_F_YEAR (1 << 2)
#define SQL_IV_F_DAY (1 << 3)
#define SQL_IV_F_HOUR (1 << 10)
#define SQL_IV_F_MINUTE (1 << 11)
#define SQL_IV_F_SECOND (1 << 12)

/* A type as written: the modifiers that were given, -1 for those absent
 * (VARCHAR without length, NUMERIC without precision). */
typedef struct sql_type_s {
  sql_type_id_t ty_id;
  int ty_len;   /* CHAR(n), VARCHAR(n); CHAR without (n) is CHAR(1) */
  int ty_prec;  /* NUMERIC(p[,s]) */
  int ty_scale;
  uint8_t ty_serial; /* smallserial 2, serial 4, bigserial 8 (ty_id the integer
                      * type): a column with an owned sequence; 0 otherwise */
  bool ty_array; /* `int2[]`, `text[]`: a one-dimensional array of ty_id
                  * (the parser accepts any number of [] or [n] and keeps
                  * one dimension, as PostgreSQL ignores the declared ones) */
} sql_type_t;

/* ---- expressions ------------------------------------------------------- */

typedef struct sql_query_s sql_query_t;
typedef struct sql_expr_s sql_expr_t;

typedef enum sql_expr_kind_e {
  SQL_E_LITERAL,
  SQL_E_PARAM,    /* $n */
  SQL_E_COLUMN,   /* [schema.][table.]column */
  SQL_E_STAR,     /* * or t.* in a select list; COUNT(*) has no argument list */
  SQL_E_OP,       /* unary and binary operators, see sql_op_t */
  SQL_E_BETWEEN,  /* ex_left BETWEEN ex_right AND ex_third */
  SQL_E_IN_LIST,  /* ex_left IN (ex_list) */
  SQL_E_IN_QUERY, /* ex_left IN (ex_query) */
  SQL_E_EXISTS,   /* EXISTS (ex_query) */
  SQL_E_SUBQUERY, /* (ex_query) used as a scalar */
  SQL_E_CASE,     /* CASE [ex_left] ex_list(WHEN clauses) [ELSE ex_right] END */
  SQL_E_CAST,     /* CAST(ex_left AS ex_type), ex_left::ex_type */
  SQL_E_FUNC,     /* [ex_schema.]ex_name(ex_list) [OVER ex_over]; see below */
  SQL_E_DEFAULT,  /* DEFAULT in an INSERT's VALUES row */
  /* Added for the clients' catalog queries and the rest of core SQL: */
  SQL_E_ANY,      /* ex_left ex_op ANY (ex_right) or ANY (ex_query): true when the
                   * comparison holds for some element of the array ex_right
                   * (`oid = any (pol.polroles)`) or some row of the subquery;
                   * SOME is ANY; ex_not negates the operator (NOT LIKE, !~) */
  SQL_E_ALL,      /* the same with ALL: holds for every element / row */
  SQL_E_ARRAY,    /* ARRAY[ex_list] (ex_list NULL for ARRAY[]) */
  SQL_E_ARRAY_QUERY, /* ARRAY(ex_query): the single-column subquery's rows as an array */
  SQL_E_SUBSCRIPT,   /* ex_left[ex_right]: 1-based array element (`prattrs[s]`) */
  SQL_E_COLLATE,     /* ex_left COLLATE [ex_schema.]ex_name */
  SQL_E_FIELD,       /* (ex_left).ex_name: a field of a composite value; ex_name NULL
                      * for (ex_left).* (only as a select-list item) */
  SQL_E_GROUPING_SET /* only in GROUP BY: ex_int is an sql_gset_kind_t, ex_list the
                      * members (expressions or further SQL_E_GROUPING_SETs) */
} sql_expr_kind_t;

/* The GROUP BY forms beyond plain expressions (SQL_E_GROUPING_SET). */
typedef enum sql_gset_kind_e {
  SQL_GSET_EMPTY,    /* () */
  SQL_GSET_ROW,      /* (a, b): one set of several expressions */
  SQL_GSET_ROLLUP,   /* ROLLUP (…) */
  SQL_GSET_CUBE,     /* CUBE (…) */
  SQL_GSET_SETS      /* GROUPING SETS (…) */
} sql_gset_kind_t;

typedef enum sql_op_e {
  SQL_OP_OR,
  SQL_OP_AND,
  SQL_OP_NOT,        /* unary */
  SQL_OP_NEG,        /* unary minus (not folded: operand not a number) */
  SQL_OP_EQ,
  SQL_OP_NE,         /* <> and != */
  SQL_OP_LT,
  SQL_OP_LE,
  SQL_OP_GT,
  SQL_OP_GE,
  SQL_OP_ADD,
  SQL_OP_SUB,
  SQL_OP_MUL,
  SQL_OP_DIV,
  SQL_OP_MOD,
  SQL_OP_CONCAT,     /* || */
  SQL_OP_LIKE,
  SQL_OP_ILIKE,
  SQL_OP_IS_NULL,    /* unary postfix */
  SQL_OP_IS_TRUE,
  SQL_OP_IS_FALSE,
  SQL_OP_IS_UNKNOWN, /* a boolean IS [NOT] UNKNOWN: IS [NOT] NULL of a boolean */
  SQL_OP_IS_DISTINCT, /* a IS DISTINCT FROM b */
  /* POSIX regular expressions, PostgreSQL's ~ ~* !~ !~* (also written
   * OPERATOR(pg_catalog.~)); ex_not for the !~ forms */
  SQL_OP_MATCH,      /* a ~ b: a matches the pattern b, case-sensitively */
  SQL_OP_IMATCH,     /* a ~* b: the same ignoring case */
  SQL_OP_POW,        /* a ^ b: power, left-associative, above * and / (as PostgreSQL) */
  SQL_OP_SIMILAR,    /* a SIMILAR TO b [ESCAPE c]; ex_not for NOT SIMILAR TO */
  SQL_OP_BITAND,     /* a & b, a | b, a # b, ~a (unary), a << b, a >> b: integers' bit */
  SQL_OP_BITOR,      /* operators, PostgreSQL's generic-operator precedence (OP) */
  SQL_OP_BITXOR,
  SQL_OP_BITNOT,
  SQL_OP_SHL,
  SQL_OP_SHR,
  /* the json / jsonb operators (sql_bind_json.c binds them as calls) */
  SQL_OP_JGET,        /* a -> b */
  SQL_OP_JGET_TEXT,   /* a ->> b */
  SQL_OP_JPATH,       /* a #> b */
  SQL_OP_JPATH_TEXT,  /* a #>> b */
  SQL_OP_JCONTAINS,   /* a @> b */
  SQL_OP_JCONTAINED,  /* a <@ b */
  SQL_OP_JEXISTS,     /* a ? b */
  SQL_OP_JEXISTS_ANY, /* a ?| b */
  SQL_OP_JEXISTS_ALL, /* a ?& b */
  SQL_OP_JDELETE_PATH, /* a #- b */
  SQL_OP_JPATH_EXISTS, /* a @? b (jsonpath) */
  SQL_OP_JPATH_MATCH   /* a @@ b (jsonpath) */
} sql_op_t;
/* SQL_OP_LIKE / SQL_OP_ILIKE / SQL_OP_SIMILAR (and their ex_not forms) carry the ESCAPE
 * expression of `a LIKE b ESCAPE c` in ex_third, NULL without ESCAPE.
 * The operators ~~ !~~ ~~* !~~* are LIKE, NOT LIKE, ILIKE, NOT ILIKE. */

typedef enum sql_lit_kind_e {
  SQL_LIT_NULL,
  SQL_LIT_BOOL,
  SQL_LIT_INT,     /* fits int64: ex_int */
  SQL_LIT_NUMERIC, /* digits with a point, or an integer too large for int64 */
  SQL_LIT_FLOAT,   /* with an exponent: 1.5e10 */
  SQL_LIT_STRING,  /* ex_text is the value, quotes and escapes removed */
  SQL_LIT_TYPED    /* DATE '…', TIMESTAMP '…', INTERVAL '…' DAY: ex_text of type ex_type */
} sql_lit_kind_t;

/* One WHEN clause of a CASE. */
typedef struct sql_when_s {
  sql_expr_t *wh_cond;   /* the condition, or the value compared in simple CASE */
  sql_expr_t *wh_result;
} sql_when_t;

/* Window frames (PostgreSQL's): the unit, the kinds of bound, EXCLUDE. */
typedef enum sql_frame_e {
  SQL_FRAME_DEFAULT = 0,   /* none written: RANGE UNBOUNDED PRECEDING .. CURRENT ROW */
  SQL_FRAME_ROWS,
  SQL_FRAME_RANGE,
  SQL_FRAME_GROUPS
} sql_frame_t;

typedef enum sql_bound_e {
  SQL_BOUND_UNBOUNDED_PRECEDING = 0,
  SQL_BOUND_PRECEDING,     /* offset PRECEDING */
  SQL_BOUND_CURRENT,
  SQL_BOUND_FOLLOWING,     /* offset FOLLOWING */
  SQL_BOUND_UNBOUNDED_FOLLOWING
} sql_bound_t;

typedef enum sql_exclude_e {
  SQL_EXCLUDE_NONE = 0,    /* also EXCLUDE NO OTHERS */
  SQL_EXCLUDE_CURRENT,
  SQL_EXCLUDE_GROUP,
  SQL_EXCLUDE_TIES
} sql_exclude_t;

/* A window: OVER (…) after a function call, or one WINDOW w AS (…) of a
 * SELECT (wi_name set). `OVER w` has only wi_ref and wi_bare_ref;
 * `OVER (w ORDER BY …)` names the window it extends in wi_ref. */
typedef struct sql_window_s {
  const char *wi_name;      /* WINDOW clause: the name defined; NULL in OVER */
  const char *wi_ref;       /* the existing window referred to; NULL when none */
  bool wi_bare_ref;         /* OVER w (not parenthesised): w's frame as it is */
  sql_list_t *wi_partition; /* of sql_expr_t; NULL when none */
  sql_list_t *wi_order;     /* of sql_order_t; NULL when none */
  sql_frame_t wi_frame;     /* SQL_FRAME_DEFAULT: no frame clause */
  sql_bound_t wi_start, wi_end;
  sql_expr_t *wi_start_off; /* the offset of n PRECEDING / FOLLOWING; NULL otherwise */
  sql_expr_t *wi_end_off;
  int wi_start_pos, wi_end_pos;
  sql_exclude_t wi_exclude;
  int wi_pos;               /* position of OVER (…)'s parenthesis, of OVER w's name */
} sql_window_t;

/* One node shape for every expression: the kinds differ only in which of
 * the operand fields they use (stated at sql_expr_kind_t), which keeps the
 * grammar actions and the tree walkers short. */
struct sql_expr_s {
  sql_expr_kind_t ex_kind;
  int ex_pos;            /* 1-based character position of its main token */
  int ex_depth;          /* 1 + deepest operand; <= SQL_MAX_DEPTH */
  sql_op_t ex_op;        /* SQL_E_OP */
  bool ex_not;           /* NOT BETWEEN, NOT IN, NOT LIKE, IS NOT …, IS NOT DISTINCT */
  bool ex_distinct;      /* SQL_E_FUNC: f(DISTINCT …) */
  bool ex_star;          /* SQL_E_FUNC: COUNT(*) */
  sql_lit_kind_t ex_lit; /* SQL_E_LITERAL */
  bool ex_bool;          /* SQL_LIT_BOOL */
  int64_t ex_int;        /* SQL_LIT_INT; SQL_E_PARAM: the n of $n */
  const char *ex_text;   /* literal text or value (see sql_lit_kind_t) */
  const char *ex_schema; /* SQL_E_COLUMN, SQL_E_STAR qualifiers; NULL when absent */
  const char *ex_table;
  const char *ex_name;   /* column name, function name */
  sql_type_t ex_type;    /* SQL_E_CAST, SQL_LIT_TYPED */
  sql_expr_t *ex_left;
  sql_expr_t *ex_right;
  sql_expr_t *ex_third;
  sql_list_t *ex_list;   /* of sql_expr_t (IN list, arguments) or sql_when_t (CASE) */
  sql_query_t *ex_query;
  sql_window_t *ex_over; /* SQL_E_FUNC: the window of f(…) OVER (…); NULL for a plain call */
  sql_expr_t *ex_filter; /* SQL_E_FUNC: FILTER (WHERE …), already folded into the first
                          * argument (see sql_g_filter); kept to refuse it on
                          * what is not an aggregate */
  sql_list_t *ex_agg_order; /* SQL_E_FUNC: f(args ORDER BY …), of sql_order_t; NULL none */
};

/* SQL_E_FUNC details. ex_schema is the schema qualifier when one was
 * written (`pg_catalog.format_type(…)`: "pg_catalog"), else NULL. The SQL
 * forms with special syntax become plain calls, as PostgreSQL does:
 *   CURRENT_DATE, CURRENT_TIMESTAMP, LOCALTIMESTAMP, CURRENT_USER,
 *   CURRENT_ROLE, SESSION_USER, USER, CURRENT_SCHEMA, CURRENT_CATALOG
 *     → current_date(), current_timestamp(), localtimestamp(),
 *       current_user(), current_user(), session_user(), current_user(),
 *       current_schema(), current_database() (no arguments;
 *       CURRENT_TIMESTAMP(p) and LOCALTIMESTAMP(p) keep p as argument)
 *   EXTRACT(field FROM x)       → extract('field', x)   (field lower-cased, a string literal)
 *   POSITION(a IN b)            → position(b, a)        (string first, as PostgreSQL)
 *   SUBSTRING(x FROM a [FOR b]) → substring(x, a [, b]); SUBSTRING(x FOR b) → substring(x, 1, b)
 *   TRIM([BOTH] [c] FROM x)     → btrim(x [, c]); LEADING → ltrim, TRAILING → rtrim
 *   COALESCE, NULLIF, GREATEST, LEAST are ordinary names. */

/* ---- queries ----------------------------------------------------------- */

/* A qualified object name: [schema.]name. */
typedef struct sql_name_s {
  const char *nm_schema; /* NULL when not given */
  const char *nm_name;
  int nm_pos;
} sql_name_t;

/* One item of a select list. */
typedef struct sql_target_s {
  sql_expr_t *tg_expr;   /* SQL_E_STAR for * and t.* */
  const char *tg_alias;  /* NULL when none */
} sql_target_t;

typedef enum sql_from_kind_e {
  SQL_FROM_TABLE,
  SQL_FROM_SUBQUERY,
  SQL_FROM_JOIN,
  SQL_FROM_FUNC      /* a set-returning function: FROM generate_series(1, 3) s */
} sql_from_kind_t;

typedef enum sql_join_kind_e {
  SQL_JOIN_INNER,
  SQL_JOIN_LEFT,
  SQL_JOIN_RIGHT,
  SQL_JOIN_FULL,
  SQL_JOIN_CROSS
} sql_join_kind_t;

/* A FROM item: a table, a derived table, or a join of two items. */
typedef struct sql_from_s sql_from_t;
struct sql_from_s {
  sql_from_kind_t fr_kind;
  int fr_pos;
  int fr_depth;            /* join nesting, <= SQL_MAX_DEPTH */
  sql_name_t fr_table;     /* SQL_FROM_TABLE */
  sql_query_t *fr_query;   /* SQL_FROM_SUBQUERY */
  const char *fr_alias;    /* NULL when none */
  sql_join_kind_t fr_join; /* SQL_FROM_JOIN */
  sql_from_t *fr_left;
  sql_from_t *fr_right;
  sql_expr_t *fr_on;       /* NULL for CROSS JOIN, NATURAL and USING joins */
  /* added: */
  sql_expr_t *fr_func;     /* SQL_FROM_FUNC: the call, an SQL_E_FUNC */
  sql_list_t *fr_colnames; /* of const char *: column aliases `AS s(a, b)`; NULL when none */
  bool fr_natural;         /* SQL_FROM_JOIN: NATURAL JOIN (join on all same-named columns) */
  sql_list_t *fr_using;    /* SQL_FROM_JOIN: JOIN … USING (of const char *); NULL when none */
  bool fr_lateral;         /* LATERAL before a derived table or a function */
  bool fr_ordinality;      /* a function WITH ORDINALITY: a last bigint column 1, 2, … */
};

typedef struct sql_order_s {
  sql_expr_t *or_expr;
  bool or_desc;
  int or_nulls;            /* 0 default, 1 NULLS FIRST, 2 NULLS LAST */
} sql_order_t;

#define SQL_NULLS_DEFAULT 0
#define SQL_NULLS_FIRST 1
#define SQL_NULLS_LAST 2

/* WITH q AS [NOT] MATERIALIZED (…): what the binder does with q. */
typedef enum sql_cte_mat_e {
  SQL_CTE_DEFAULT,          /* its choice: computed once when named twice or more */
  SQL_CTE_MATERIALIZED,
  SQL_CTE_NOT_MATERIALIZED
} sql_cte_mat_t;

/* One common table expression of WITH: name [(columns)] AS [[NOT]
 * MATERIALIZED] (query). */
typedef struct sql_cte_s {
  const char *wc_name;
  int wc_pos;
  sql_list_t *wc_columns;  /* of const char *; NULL when not given */
  sql_query_t *wc_query;
  sql_cte_mat_t wc_materialized;
} sql_cte_t;

/* Row locks of SELECT … FOR UPDATE / FOR SHARE. */
typedef enum sql_lock_e {
  SQL_LOCK_NONE,
  SQL_LOCK_UPDATE,         /* FOR UPDATE: exclusive row locks */
  SQL_LOCK_SHARE,          /* FOR SHARE: shared row locks */
  SQL_LOCK_NO_KEY_UPDATE,  /* FOR NO KEY UPDATE */
  SQL_LOCK_KEY_SHARE       /* FOR KEY SHARE */
} sql_lock_t;
/* What a lock request does when another holds the row. */
#define SQL_LOCK_WAIT 0
#define SQL_LOCK_NOWAIT 1    /* 55P03 at once */
#define SQL_LOCK_SKIP 2      /* SKIP LOCKED: the row is left out */
/* "FOR UPDATE", "FOR NO KEY UPDATE", … (PostgreSQL's words in errors). */
const char *sql_lock_name(sql_lock_t mode);

/* The SELECT … FROM … WHERE … GROUP BY … HAVING … block. */
typedef struct sql_select_s {
  bool se_distinct;
  sql_expr_t *se_top;      /* SELECT TOP n; NULL when absent */
  sql_list_t *se_targets;  /* of sql_target_t */
  sql_list_t *se_from;     /* of sql_from_t: comma-separated items; NULL = no FROM */
  sql_expr_t *se_where;
  sql_list_t *se_group;    /* of sql_expr_t (SQL_E_GROUPING_SET for ROLLUP & co.) */
  sql_expr_t *se_having;
  sql_list_t *se_windows;  /* of sql_window_t: WINDOW w AS (…), …; NULL when none */
  sql_list_t *se_distinct_on; /* of sql_expr_t: SELECT DISTINCT ON (…); NULL when absent */
} sql_select_t;

typedef enum sql_query_kind_e {
  SQL_Q_SELECT,
  SQL_Q_VALUES,
  SQL_Q_UNION,
  SQL_Q_EXCEPT,
  SQL_Q_INTERSECT
} sql_query_kind_t;

/* A query expression: a SELECT block, a VALUES list, or a set operation of
 * two queries; any of them with ORDER BY / LIMIT / OFFSET on the whole. */
struct sql_query_s {
  sql_query_kind_t qu_kind;
  int qu_pos;
  int qu_depth;            /* set-operation nesting, <= SQL_MAX_DEPTH */
  sql_select_t *qu_select; /* SQL_Q_SELECT */
  sql_list_t *qu_rows;     /* SQL_Q_VALUES: of sql_list_t of sql_expr_t */
  bool qu_all;             /* UNION ALL, EXCEPT ALL, INTERSECT ALL */
  sql_query_t *qu_left;    /* set operations */
  sql_query_t *qu_right;
  sql_list_t *qu_order;    /* of sql_order_t */
  sql_expr_t *qu_limit;    /* LIMIT n and FETCH FIRST n ROWS ONLY; NULL for none or ALL */
  sql_expr_t *qu_offset;
  /* added: */
  sql_list_t *qu_with;     /* of sql_cte_t: WITH before this query; NULL when none. The
                            * names are visible in the whole query, each also in the
                            * CTEs after it (not recursive) */
  bool qu_recursive;       /* WITH RECURSIVE (the binder may refuse it: 0A000) */
  sql_lock_t qu_lock;      /* FOR UPDATE / FOR SHARE */
  int qu_lock_wait;        /* SQL_LOCK_WAIT / NOWAIT / SKIP */
  sql_list_t *qu_lock_of;  /* of sql_name_t *: FOR UPDATE OF these; NULL = every table */
};

/* ---- statements -------------------------------------------------------- */

typedef enum sql_stmt_kind_e {
  SQL_STMT_SELECT,
  SQL_STMT_INSERT,
  SQL_STMT_UPDATE,
  SQL_STMT_DELETE,
  SQL_STMT_CREATE_TABLE,
  SQL_STMT_DROP_TABLE,
  SQL_STMT_CREATE_INDEX,
  SQL_STMT_DROP_INDEX,
  SQL_STMT_BEGIN,
  SQL_STMT_COMMIT,
  SQL_STMT_ROLLBACK,
  SQL_STMT_SAVEPOINT,
  SQL_STMT_RELEASE,
  SQL_STMT_ROLLBACK_TO,
  SQL_STMT_GRANT,
  SQL_STMT_REVOKE,
  SQL_STMT_CREATE_ROLE,
  SQL_STMT_DROP_ROLE,
  SQL_STMT_EXPLAIN,
  SQL_STMT_SET,
  SQL_STMT_SHOW,
  /* added for the clients and bulk load: */
  SQL_STMT_COPY,            /* st_copy */
  SQL_STMT_DEALLOCATE,      /* st_deallocate: DEALLOCATE [PREPARE] name | ALL */
  SQL_STMT_SET_TRANSACTION, /* st_txn: SET TRANSACTION …, SET SESSION CHARACTERISTICS AS TRANSACTION … */
  SQL_STMT_ALTER_ROLE,      /* st_role: ALTER USER/ROLE name [WITH] options (one name) */
  SQL_STMT_CHECKPOINT,      /* no operand */
  SQL_STMT_TRUNCATE,        /* st_drop: TRUNCATE [TABLE] names (dr_if_exists false) */
  SQL_STMT_VACUUM,          /* st_drop: VACUUM [ANALYZE] / ANALYZE [names]; st_analyze set for
                             * ANALYZE; dr_names NULL = all tables. Statistics only: may be a no-op */
  SQL_STMT_PREPARE,         /* st_prepare: PREPARE name [(types)] AS statement */
  SQL_STMT_EXECUTE,         /* st_execute: EXECUTE name [(arguments)] */
  SQL_STMT_CREATE_SEQUENCE, /* st_sequence */
  SQL_STMT_ALTER_SEQUENCE,  /* st_sequence */
  SQL_STMT_DROP_SEQUENCE,   /* st_drop */
  SQL_STMT_CREATE_VIEW,     /* st_view: CREATE [OR REPLACE] [TEMP] VIEW, CREATE MATERIALIZED VIEW */
  SQL_STMT_ALTER_VIEW,      /* st_view: ALTER [MATERIALIZED] VIEW … RENAME TO (vw_rename) */
  SQL_STMT_REFRESH_MATVIEW, /* st_view: REFRESH MATERIALIZED VIEW name [WITH [NO] DATA] */
  SQL_STMT_DROP_VIEW,       /* st_drop: DROP VIEW */
  SQL_STMT_DROP_MATVIEW,    /* st_drop: DROP MATERIALIZED VIEW */
  SQL_STMT_SET_CONSTRAINTS, /* st_setcons: SET CONSTRAINTS ALL | names DEFERRED | IMMEDIATE */
  SQL_STMT_ALTER_TABLE,     /* st_alter */
  SQL_STMT_LOCK,            /* st_drop: LOCK [TABLE] names; st_lock_mode, st_lock_nowait */
  SQL_STMT_ALTER_OWNER,     /* st_drop (one name): ALTER TABLE | SEQUENCE | VIEW | SCHEMA …
                             * OWNER TO st_owner_role, st_owner_kind the object word */
  SQL_STMT_COMMENT,         /* st_comment: COMMENT ON … IS '…' | NULL */
  SQL_STMT_ALTER_SETTING,   /* st_setting: ALTER ROLE … [IN DATABASE …] SET | RESET,
                             * ALTER DATABASE … SET | RESET */
  SQL_STMT_CREATE_SCHEMA,   /* st_schema: CREATE SCHEMA [IF NOT EXISTS] [name] [AUTHORIZATION r] */
  SQL_STMT_ALTER_SCHEMA,    /* st_schema: ALTER SCHEMA name RENAME TO new */
  SQL_STMT_DROP_SCHEMA      /* st_drop: DROP SCHEMA [IF EXISTS] names [CASCADE | RESTRICT]
                             * (nm_name of each; nm_schema NULL) */
} sql_stmt_kind_t;

/* COMMENT ON kind name IS text. */
typedef struct sql_comment_s {
  char cm_kind;            /* 't' TABLE, 'v' VIEW, 'm' MATERIALIZED VIEW, 'i' INDEX,
                            * 'S' SEQUENCE, 'c' COLUMN, 'n' SCHEMA, 'k' CONSTRAINT … ON */
  sql_name_t cm_name;      /* the object ('c': its table; 'k': the table; 'n': nm_name) */
  const char *cm_sub;      /* 'c': the column; 'k': the constraint's name */
  const char *cm_text;     /* NULL: IS NULL (removes the description) */
} sql_comment_t;

typedef struct sql_stmt_s sql_stmt_t;

typedef struct sql_insert_s {
  sql_name_t in_table;
  sql_list_t *in_columns;  /* of const char *; NULL when not given */
  sql_query_t *in_query;   /* VALUES rows or a SELECT; NULL for DEFAULT VALUES */
  /* added: */
  const char *in_alias;    /* INSERT INTO t AS alias (for RETURNING / ON CONFLICT); NULL none */
  char in_overriding;      /* OVERRIDING SYSTEM VALUE 's', OVERRIDING USER VALUE 'u', 0 none */
  sql_list_t *in_returning; /* of sql_target_t: RETURNING list; NULL when none */
  bool in_on_conflict;     /* ON CONFLICT [(cols)] DO NOTHING: rows that would violate a
                            * unique index (those columns' when given) are skipped */
  sql_list_t *in_conflict_cols; /* of const char *; NULL when not given */
  const char *in_conflict_constraint; /* ON CONFLICT ON CONSTRAINT name; NULL when not given */
  sql_expr_t *in_conflict_where; /* ON CONFLICT (cols) WHERE p: the index predicate */
  int in_conflict_pos;     /* where ON CONFLICT starts */
  bool in_do_update;       /* DO UPDATE (else DO NOTHING) */
  sql_list_t *in_update_set; /* DO UPDATE SET: of sql_assign_t */
  sql_expr_t *in_update_where; /* DO UPDATE … WHERE; NULL when none */
} sql_insert_t;

/* One `column = expr` of UPDATE … SET. */
typedef struct sql_assign_s {
  const char *as_column;
  int as_pos;
  sql_expr_t *as_expr;
} sql_assign_t;

typedef struct sql_update_s {
  sql_name_t up_table;
  const char *up_alias;
  sql_list_t *up_set;      /* of sql_assign_t */
  sql_list_t *up_from;     /* UPDATE … FROM: of sql_from_t; NULL when none */
  sql_expr_t *up_where;
  sql_list_t *up_returning; /* added: of sql_target_t; NULL when no RETURNING */
} sql_update_t;

typedef struct sql_delete_s {
  sql_name_t de_table;
  const char *de_alias;
  sql_list_t *de_using;    /* DELETE … USING: of sql_from_t; NULL when none */
  sql_expr_t *de_where;
  sql_list_t *de_returning; /* added: of sql_target_t; NULL when no RETURNING */
} sql_delete_t;

typedef struct sql_coldef_s {
  const char *cd_name;
  int cd_pos;
  sql_type_t cd_type;
  bool cd_not_null;        /* NOT NULL given (NULL given clears it) */
  bool cd_primary;         /* PRIMARY KEY as a column constraint */
  bool cd_unique;
  sql_expr_t *cd_default;  /* NULL when none */
  const char *cd_pk_name;  /* CONSTRAINT name PRIMARY KEY; NULL when not named */
  const char *cd_unique_name; /* CONSTRAINT name UNIQUE; NULL when not named */
  bool cd_unique_nulls_nd; /* UNIQUE NULLS NOT DISTINCT */
  char cd_identity;        /* GENERATED ALWAYS 'a' / BY DEFAULT 'd' AS IDENTITY (Virtuoso's
                            * IDENTITY: 'd'); 0 none */
  struct sql_seqopts_s *cd_identity_opts; /* AS IDENTITY (options); NULL none */
  sql_list_t *cd_constraints; /* CHECK / REFERENCES on the column: of sql_tabcons_t
                            * (tc_columns NULL); NULL none */
} sql_coldef_t;

/* The options of CREATE / ALTER SEQUENCE and of an identity column, as
 * written (the *_given fields say which were). */
typedef struct sql_seqopts_s {
  bool so_type_given;
  sql_type_t so_type;      /* AS type */
  bool so_increment_given;
  int64_t so_increment;
  int so_min;              /* 0 not given, 1 MINVALUE n, -1 NO MINVALUE */
  int64_t so_min_value;
  int so_max;              /* as so_min */
  int64_t so_max_value;
  bool so_start_given;
  int64_t so_start;
  bool so_restart;         /* RESTART [[WITH] n] */
  bool so_restart_given;   /* … with n */
  int64_t so_restart_value;
  bool so_cache_given;
  int64_t so_cache;
  int so_cycle;            /* 0 not given, 1 CYCLE, -1 NO CYCLE */
  int so_owned;            /* 0 not given, 1 OWNED BY table.column, -1 OWNED BY NONE */
  sql_name_t so_owned_table;
  const char *so_owned_col;
  sql_name_t *so_seqname;  /* SEQUENCE NAME name (an identity column's); NULL none */
} sql_seqopts_t;

/* CREATE SEQUENCE, ALTER SEQUENCE. */
typedef struct sql_sequence_s {
  sql_name_t sq_name;
  bool sq_if_not_exists;   /* CREATE … IF NOT EXISTS */
  bool sq_if_exists;       /* ALTER … IF EXISTS */
  sql_seqopts_t sq_opts;
  const char *sq_rename;   /* ALTER SEQUENCE … RENAME TO name; NULL none */
} sql_sequence_t;

/* CREATE [OR REPLACE] [TEMP] VIEW name [(cols)] AS query [WITH [CASCADED | LOCAL] CHECK
 * OPTION], CREATE MATERIALIZED VIEW [IF NOT EXISTS] … [WITH [NO] DATA], REFRESH
 * MATERIALIZED VIEW, ALTER [MATERIALIZED] VIEW … RENAME TO. */
typedef struct sql_view_s {
  sql_name_t vw_name;
  sql_list_t *vw_columns;  /* of const char *; NULL when not given */
  sql_query_t *vw_query;   /* CREATE only */
  size_t vw_off;           /* the query's text: a byte range of the statement's input */
  size_t vw_len;
  bool vw_replace;         /* OR REPLACE */
  bool vw_temp;            /* TEMP / TEMPORARY */
  bool vw_materialized;    /* MATERIALIZED VIEW */
  bool vw_if_not_exists;
  bool vw_if_exists;       /* ALTER … IF EXISTS */
  bool vw_no_data;         /* WITH NO DATA (materialized views) */
  char vw_check;           /* WITH [CASCADED] CHECK OPTION 'c', LOCAL 'l', 0 none */
  const char *vw_rename;   /* ALTER … RENAME TO name */
} sql_view_t;

/* Referential actions of a FOREIGN KEY (pg_constraint's letters). */
#define SQL_FK_NO_ACTION 'a'
#define SQL_FK_RESTRICT 'r'
#define SQL_FK_CASCADE 'c'
#define SQL_FK_SET_NULL 'n'
#define SQL_FK_SET_DEFAULT 'd'

/* A table constraint: PRIMARY KEY (…) or UNIQUE (…) (tc_kind 'p' / 'u',
 * tc_primary says which), CHECK (…) ('c') or FOREIGN KEY (…) REFERENCES
 * … ('f'). CHECK and REFERENCES written as column constraints come as
 * these too (sql_coldef_t cd_constraints, tc_columns NULL: the column). */
typedef struct sql_tabcons_s {
  bool tc_primary;         /* PRIMARY KEY (tc_kind 'p') */
  int tc_pos;
  sql_list_t *tc_columns;  /* of const char *: the key's / the referencing columns */
  const char *tc_name;     /* CONSTRAINT name …; NULL when not named. (A column
                            * constraint's: cd_pk_name, cd_unique_name.) */
  char tc_kind;            /* 'p', 'u', 'c', 'f' (0 read as 'u' or 'p' by tc_primary) */
  sql_expr_t *tc_check;    /* CHECK's expression */
  bool tc_no_inherit;      /* CHECK … NO INHERIT (refused: no inheritance here) */
  bool tc_not_valid;       /* NOT VALID written */
  sql_name_t tc_ref_table; /* REFERENCES table */
  sql_list_t *tc_ref_columns; /* (columns) after it; NULL: its primary key */
  char tc_match;           /* 's' SIMPLE (default), 'f' FULL, 'p' PARTIAL */
  char tc_on_delete;       /* SQL_FK_* (default NO ACTION) */
  char tc_on_update;
  sql_list_t *tc_del_set_cols; /* ON DELETE SET NULL / DEFAULT (columns); NULL: all */
  bool tc_deferrable;      /* DEFERRABLE */
  bool tc_deferred;        /* INITIALLY DEFERRED */
  bool tc_nulls_not_distinct; /* UNIQUE NULLS NOT DISTINCT */
} sql_tabcons_t;

/* One action of ALTER TABLE (sql_alter_t at_cmds). */
typedef enum sql_alter_kind_e {
  SQL_AT_ADD_COLUMN,       /* ADD [COLUMN] [IF NOT EXISTS] ac_column */
  SQL_AT_DROP_COLUMN,      /* DROP [COLUMN] [IF EXISTS] ac_name [CASCADE] */
  SQL_AT_ALTER_TYPE,       /* ALTER [COLUMN] ac_name [SET DATA] TYPE ac_type [USING ac_expr] */
  SQL_AT_SET_DEFAULT,      /* ALTER [COLUMN] ac_name SET DEFAULT ac_expr */
  SQL_AT_DROP_DEFAULT,
  SQL_AT_SET_NOT_NULL,
  SQL_AT_DROP_NOT_NULL,
  SQL_AT_ADD_CONSTRAINT,   /* ADD ac_cons */
  SQL_AT_DROP_CONSTRAINT,  /* DROP CONSTRAINT [IF EXISTS] ac_name [CASCADE] */
  SQL_AT_RENAME_COLUMN,    /* RENAME [COLUMN] ac_name TO ac_newname */
  SQL_AT_RENAME_TABLE,     /* RENAME TO ac_newname */
  SQL_AT_RENAME_CONSTRAINT, /* RENAME CONSTRAINT ac_name TO ac_newname */
  SQL_AT_ADD_IDENTITY      /* ALTER [COLUMN] ac_name ADD GENERATED {ALWAYS | BY DEFAULT}
                            * (ac_identity 'a' / 'd') AS IDENTITY [(ac_seqopts)] */
} sql_alter_kind_t;

typedef struct sql_alter_cmd_s {
  sql_alter_kind_t ac_kind;
  int ac_pos;
  const char *ac_name;         /* the column or constraint acted on */
  const char *ac_newname;      /* RENAME … TO */
  struct sql_coldef_s *ac_column; /* ADD COLUMN */
  struct sql_tabcons_s *ac_cons;  /* ADD [CONSTRAINT name] … */
  sql_type_t ac_type;          /* ALTER … TYPE */
  sql_expr_t *ac_expr;         /* USING, SET DEFAULT; NULL none */
  bool ac_if_exists;           /* DROP … IF EXISTS */
  bool ac_if_not_exists;       /* ADD COLUMN IF NOT EXISTS */
  bool ac_cascade;             /* DROP … CASCADE */
  char ac_identity;            /* ADD … AS IDENTITY: 'a' ALWAYS, 'd' BY DEFAULT */
  struct sql_seqopts_s *ac_seqopts; /* its sequence options; NULL none */
} sql_alter_cmd_t;

/* ALTER TABLE [IF EXISTS] [ONLY] name action, … */
typedef struct sql_alter_s {
  sql_name_t at_table;
  bool at_if_exists;
  bool at_only;                /* ONLY (or name *): no inheritance here, no effect */
  sql_list_t *at_cmds;         /* of sql_alter_cmd_t, at least one */
} sql_alter_t;

typedef struct sql_create_table_s {
  sql_name_t ct_table;
  bool ct_if_not_exists;
  sql_list_t *ct_columns;     /* of sql_coldef_t */
  sql_list_t *ct_constraints; /* of sql_tabcons_t; NULL when none */
  char ct_layout;             /* WITH (layout = …): 'r' row, 'c' column, 0 not written
                                 (the server's DefaultLayout) */
} sql_create_table_t;

/* DROP TABLE, DROP INDEX. */
typedef struct sql_drop_s {
  bool dr_if_exists;
  sql_list_t *dr_names;    /* of sql_name_t */
  bool dr_cascade;         /* CASCADE written (RESTRICT, the default, is false);
                            * DROP TABLE / DROP INDEX / TRUNCATE */
  bool dr_restart_identity; /* TRUNCATE … RESTART IDENTITY */
} sql_drop_t;

typedef struct sql_create_index_s {
  sql_name_t ci_index;     /* nm_name NULL when unnamed */
  sql_name_t ci_table;
  bool ci_unique;
  bool ci_if_not_exists;
  sql_list_t *ci_columns;  /* of const char * */
  sql_list_t *ci_include;  /* of const char *; NULL when none */
  const char *ci_method;   /* USING method: always "btree" when written (the
                            * parser rejects the others), NULL when not */
  sql_list_t *ci_keys;     /* of sql_order_t, parallel to ci_columns: or_expr the
                            * column (SQL_E_COLUMN), or_desc / or_nulls as written
                            * after it (`a DESC NULLS FIRST`); never NULL when
                            * ci_columns is set */
  bool ci_nulls_nd;        /* NULLS NOT DISTINCT (after INCLUDE, as PostgreSQL 15) */
  char ci_layout;          /* WITH (layout = …): 'r', 'c', 0 not written */
} sql_create_index_t;

/* Privileges of GRANT and REVOKE, a bit set. */
#define SQL_PRIV_SELECT 0x01
#define SQL_PRIV_INSERT 0x02
#define SQL_PRIV_UPDATE 0x04
#define SQL_PRIV_DELETE 0x08
#define SQL_PRIV_ALL 0x0f

#define SQL_PRIV_USAGE 0x10  /* ON SCHEMA */
#define SQL_PRIV_CREATE 0x20 /* ON SCHEMA */

typedef struct sql_grant_s {
  unsigned gr_privs;       /* SQL_PRIV_*; SQL_PRIV_ALL for ALL [PRIVILEGES] */
  bool gr_all;             /* ALL [PRIVILEGES] was written (the object kind's every privilege) */
  char gr_kind;            /* 'r' ON [TABLE] (tables and views), 'n' ON SCHEMA, 'S' ON
                            * SEQUENCE */
  sql_list_t *gr_tables;   /* of sql_name_t (a schema: nm_name alone) */
  sql_list_t *gr_roles;    /* of const char *; "public" for PUBLIC */
  bool gr_grant_option;    /* GRANT … WITH GRANT OPTION; REVOKE GRANT OPTION FOR … */
  bool gr_cascade;         /* REVOKE … CASCADE */
} sql_grant_t;

/* CREATE SCHEMA, ALTER SCHEMA … RENAME TO. */
typedef struct sql_schema_s {
  const char *sc_name;     /* NULL: CREATE SCHEMA AUTHORIZATION r names it after r */
  const char *sc_owner;    /* AUTHORIZATION role (owner_role's names); NULL none */
  bool sc_if_not_exists;
  const char *sc_new_name; /* RENAME TO */
  int sc_pos;
} sql_schema_t;

/* CREATE USER/ROLE, DROP USER/ROLE, ALTER USER/ROLE. */
typedef struct sql_role_s {
  bool ro_user;            /* written as USER (implies LOGIN) */
  bool ro_if_exists;       /* DROP … IF EXISTS */
  sql_list_t *ro_names;    /* of const char *; CREATE and ALTER have exactly one */
  const char *ro_password; /* NULL when not given or PASSWORD NULL */
  /* added: */
  bool ro_password_given;  /* PASSWORD 'x' or PASSWORD NULL was written (ALTER … PASSWORD
                            * NULL removes the password); [ENCRYPTED] PASSWORD both */
  int ro_login;            /* 0 not given, 1 LOGIN, -1 NOLOGIN */
  int ro_superuser;        /* 0 not given, 1 SUPERUSER, -1 NOSUPERUSER */
  int ro_createdb;         /* 0 not given, 1 CREATEDB, -1 NOCREATEDB */
  int ro_createrole;       /* 0 not given, 1 CREATEROLE, -1 NOCREATEROLE */
} sql_role_t;

/* Transaction modes of BEGIN / START TRANSACTION / SET TRANSACTION. */
typedef enum sql_isolation_e {
  SQL_ISO_DEFAULT,         /* not given */
  SQL_ISO_READ_UNCOMMITTED,
  SQL_ISO_READ_COMMITTED,
  SQL_ISO_REPEATABLE_READ,
  SQL_ISO_SERIALIZABLE
} sql_isolation_t;

typedef struct sql_txnmode_s {
  sql_isolation_t tm_isolation;
  int tm_read_only;        /* 0 not given, 1 READ ONLY, -1 READ WRITE */
  int tm_deferrable;       /* 0 not given, 1 DEFERRABLE, -1 NOT DEFERRABLE */
  bool tm_session;         /* SET SESSION CHARACTERISTICS AS TRANSACTION: the session's
                            * default for later transactions, not this one's */
} sql_txnmode_t;

/* COPY table [(cols)] FROM STDIN | 'file' / TO STDOUT | 'file', COPY (query)
 * TO …, with its options; both the `WITH (FORMAT csv, HEADER true)` form and
 * the old `WITH CSV HEADER DELIMITER ','` form give the same fields. */
typedef enum sql_copy_format_e {
  SQL_COPY_TEXT,           /* tab-separated, \N for NULL, backslash escapes */
  SQL_COPY_CSV,
  SQL_COPY_BINARY          /* the binary COPY format (the engine may refuse it: 0A000) */
} sql_copy_format_t;

typedef struct sql_copy_s {
  sql_name_t co_table;     /* nm_name NULL for COPY (query) */
  sql_list_t *co_columns;  /* of const char *; NULL = all columns */
  sql_query_t *co_query;   /* COPY (query) TO …; NULL otherwise */
  bool co_from;            /* FROM (load) rather than TO (unload) */
  const char *co_file;     /* server-side file name; NULL for STDIN / STDOUT */
  sql_copy_format_t co_format;
  bool co_header;          /* CSV: first line is a header (skipped FROM, written TO) */
  const char *co_delimiter; /* one character; NULL = default (tab text, comma CSV) */
  const char *co_null;     /* NULL marker; NULL = default (\N text, empty CSV) */
  const char *co_quote;    /* CSV quote character; NULL = '"' */
  const char *co_escape;   /* CSV escape character; NULL = the quote */
  const char *co_encoding; /* ENCODING 'x' as written; NULL when not given */
  sql_list_t *co_force_quote; /* of const char *: CSV TO, columns always quoted; NULL none */
  bool co_force_quote_all; /* FORCE_QUOTE * */
  sql_list_t *co_force_not_null; /* of const char *: CSV FROM, empty is '' not NULL */
  bool co_freeze;          /* FREEZE: accepted, no effect */
  unsigned co_given;       /* options written, one bit each: the parser's check for
                            * repeated options; of no use after parsing */
} sql_copy_t;

/* SET name = value / TO value, SHOW name. */
typedef struct sql_set_s {
  const char *sv_name;     /* lower-cased, dotted for a.b; "all" for SHOW ALL */
  bool sv_local;           /* SET LOCAL */
  bool sv_default;         /* SET x = DEFAULT / TO DEFAULT */
  bool sv_from_current;    /* ALTER ROLE / DATABASE … SET x FROM CURRENT: the session's value */
  sql_list_t *sv_values;   /* of sql_expr_t (literals and names as text) */
} sql_set_t;

/* ALTER ROLE role [IN DATABASE db] SET … | RESET …, ALTER DATABASE db SET
 * … | RESET …: the parameter change of sa_set as SET / RESET writes it
 * (RESET and SET … TO DEFAULT have sv_default; RESET ALL names "all"). */
typedef struct sql_alter_setting_s {
  char sa_role_kind;       /* 'n' a named role, 'c' CURRENT_USER / SESSION_USER,
                            * 'a' ALL, 0 none (ALTER DATABASE) */
  const char *sa_role;     /* the name when 'n' */
  const char *sa_database; /* IN DATABASE / ALTER DATABASE; NULL for none */
  sql_set_t *sa_set;
} sql_alter_setting_t;

/* PREPARE name [(type, …)] AS statement. */
typedef struct sql_prepare_s {
  const char *pr_name;
  sql_list_t *pr_types;    /* of sql_type_t *; NULL when none given */
  sql_stmt_t *pr_stmt;     /* SELECT/VALUES, INSERT, UPDATE, DELETE (WITH too) */
  size_t pr_off;           /* its text: a byte range of the PREPARE's input */
  size_t pr_len;
} sql_prepare_t;

/* EXECUTE name [(argument, …)]. */
typedef struct sql_execute_s {
  const char *ex_name;
  sql_list_t *ex_args;     /* of sql_expr_t; NULL when none given */
} sql_execute_t;

/* SET CONSTRAINTS ALL | name, … DEFERRED | IMMEDIATE. */
typedef struct sql_setcons_s {
  sql_list_t *sc_names;    /* of sql_name_t *; NULL: ALL */
  bool sc_deferred;
} sql_setcons_t;

struct sql_stmt_s {
  sql_stmt_kind_t st_kind;
  int st_pos;              /* 1-based character position of its first token */
  size_t st_off;           /* byte range of its text in the input */
  size_t st_len;
  union {
    sql_query_t *st_query;          /* SELECT (and VALUES) */
    sql_insert_t *st_insert;
    sql_update_t *st_update;
    sql_delete_t *st_delete;
    sql_create_table_t *st_create_table;
    sql_alter_t *st_alter;          /* ALTER TABLE */
    sql_drop_t *st_drop;            /* DROP TABLE, DROP INDEX, DROP SEQUENCE, TRUNCATE,
                                     * VACUUM/ANALYZE */
    sql_sequence_t *st_sequence;    /* CREATE / ALTER SEQUENCE */
    sql_view_t *st_view;            /* CREATE / ALTER VIEW, REFRESH MATERIALIZED VIEW */
    sql_create_index_t *st_create_index;
    const char *st_savepoint;       /* SAVEPOINT, RELEASE, ROLLBACK TO */
    sql_grant_t *st_grant;          /* GRANT, REVOKE */
    sql_role_t *st_role;            /* CREATE/DROP/ALTER USER/ROLE */
    sql_stmt_t *st_explained;       /* EXPLAIN */
    sql_set_t *st_set;              /* SET, SHOW (RESET x is SET x TO DEFAULT) */
    /* added: */
    sql_copy_t *st_copy;            /* COPY */
    const char *st_deallocate;      /* DEALLOCATE: the statement's name; NULL for ALL */
    sql_prepare_t *st_prepare;      /* PREPARE */
    sql_execute_t *st_execute;      /* EXECUTE */
    sql_txnmode_t *st_txn;          /* SET TRANSACTION; BEGIN / START TRANSACTION with
                                     * modes (NULL for a plain BEGIN) */
    struct sql_setcons_s *st_setcons; /* SET CONSTRAINTS */
    sql_comment_t *st_comment;      /* COMMENT ON */
    sql_alter_setting_t *st_setting; /* ALTER ROLE / DATABASE … SET | RESET */
    sql_schema_t *st_schema;        /* CREATE SCHEMA, ALTER SCHEMA … RENAME */
  };
  bool st_analyze;                  /* EXPLAIN ANALYZE; VACUUM ANALYZE and ANALYZE */
  const char *st_lock_mode;         /* LOCK: "access share mode" (the words of IN … MODE,
                                     * lower case; "access exclusive mode" when omitted) */
  bool st_lock_nowait;              /* LOCK … NOWAIT */
  const char *st_owner_kind;        /* ALTER … OWNER TO: "table", "sequence", "view",
                                     * "materialized view", "schema" */
  const char *st_owner_role;        /* the role's name ("current_user", "session_user") */
  sql_query_t *st_with;             /* WITH before INSERT/UPDATE/DELETE: a query shell
                                     * holding only qu_with and qu_recursive; NULL none */
};

typedef struct sql_stmt_list_s {
  int sl_n;                /* 0 for a text of only blanks, comments and `;` */
  sql_stmt_t **sl_stmts;
} sql_stmt_list_t;

/* ---- entry points ------------------------------------------------------ */

/* Parses len bytes of text (need not be NUL-terminated) into *out, every
 * node allocated in a. On error returns CZ_ERR with e filled: 42601 syntax
 * error (er_pos at the offending token, "syntax error at or near "X"" or
 * "syntax error at end of input"), 22021 invalid UTF-8, 42622 identifier
 * longer than SQL_NAME_MAX, 42704 unknown type, 54001 nesting deeper than
 * SQL_MAX_DEPTH. Whatever was allocated in a before the error stays until
 * the arena is reset. */
int sql_parse(arena_t *a, const char *text, size_t len, sql_stmt_list_t **out, err_t *e);

/* The lexical cut of a multi-statement text (sql_split.c), for a front
 * end that must find statements before parsing them: the bytes of text
 * before the first `;` outside quotes, dollar quotes and comments (len
 * when there is none), and the bytes of blanks and comments at its start. */
size_t sql_statement_extent(const char *text, size_t len);
size_t sql_skip_blanks(const char *text, size_t len);

/* A canonical S-expression of one statement, allocated in a: operators in
 * prefix form with every subexpression parenthesised, so tests can assert
 * precedence and structure. The format is described in sql/README.md. */
char *sql_ast_print(arena_t *a, const sql_stmt_t *s);
/* The same for one expression. */
char *sql_expr_print(arena_t *a, const sql_expr_t *x);
/* Whether name (lower case) is a keyword that quote_ident and the
 * catalog's text forms double-quote: one PostgreSQL 15 does not list as
 * unreserved (PostgreSQL's rule). Some of them (col_name keywords
 * such as values, interval, trim) still serve as bare column names. */
bool sql_keyword_reserved(const char *name);
/* The name of a type as the printer writes it: "int4", "varchar(10)". */
char *sql_type_print(arena_t *a, const sql_type_t *t);

#endif /* CZ_SQL_H */
