/* sql_plan — the binder and planner: a parsed statement (sql.h) becomes an
 * executable operator tree (exec/exec.h) with typed result columns and
 * inferred parameter types.
 *
 * Design notes (sql/README.md, "Binder and planner"):
 * - The binder resolves names against the tables the environment (the
 *   engine, over the catalog) describes, types every expression with the
 *   rules of exec/expr.h, inserting casts, and infers the type of each $n
 *   from its context (an untyped parameter is text).
 * - The planner is rule-based for now: WHERE conjuncts are pushed to the
 *   scans and joins they can be evaluated at, equality conjuncts between
 *   two inputs make hash joins, and equality (or range) conjuncts on a
 *   prefix of a table's primary key or an index become key bounds of the
 *   scan, so `pk = $1` is a point lookup.
 * - Everything a plan holds lives in the arena given to sql_plan_stmt;
 *   a plan is executed by running sp_root (see exec.h); once built it is
 *   immutable and may run in any number of executions at once.
 * - Utility statements (DDL, transactions, SET) are not planned: the
 *   engine carries them out from the syntax tree, using sql_bind_type and
 *   sql_bind_default for what needs binding.
 */
#ifndef CZ_SQL_PLAN_H
#define CZ_SQL_PLAN_H

#include "exec/exec.h"
#include "sql/sql.h"
#include "types/types.h"
#include "util/util.h"


/* A secondary index of a table, as the planner sees it. */
typedef struct sp_index_s {
  const char *ix_name;
  int ix_no;                    /* the table layer's index number (scan_spec_t ss_index) */
  int ix_ncols;
  const int *ix_cols;           /* key columns (table column numbers, 0-based) */
  bool ix_unique;
  bool ix_column;               /* its tree is column-wise (EXPLAIN says so) */
} sp_index_t;

/* A stored table, as the environment describes it. */
typedef struct sp_table_s {
  void *tb_handle;              /* the table layer's handle (for scans and DML) */
  uint32_t tb_oid;
  const char *tb_schema;
  const char *tb_name;
  int tb_ncols;
  const char **tb_colnames;
  const ty_t *tb_coltypes;
  const bool *tb_notnull;
  const char **tb_defaults;     /* SQL text of each column's DEFAULT; NULL none */
  const char *tb_identity;      /* per column: 'a' GENERATED ALWAYS / 'd' BY DEFAULT AS
                                   IDENTITY, 0 not; NULL: no identity column */
  int tb_npk;                   /* primary index key columns (0: no declared key) */
  const int *tb_pk;
  const char *tb_pk_name;       /* the primary key constraint's name; NULL none */
  int tb_nindexes;
  const sp_index_t *tb_indexes;
  /* Per column, the element type x[i] gives (arrays, and the catalog's
   * int2vector and oidvector, which are not arrays to ARRAY[…]);
   * TY_UNKNOWN: not subscriptable. NULL: no column is. */
  const ty_id_t *tb_subscript_elem;
  /* A materialized view's table: read only by REFRESH (sp_env_t
   * pe_refresh), never changed by INSERT / UPDATE / DELETE (42809);
   * unpopulated (WITH NO DATA), reading it is 55000. */
  bool tb_matview;
  bool tb_unpopulated;
  /* The primary index is column-wise (WITH (layout = column)): it reads
   * forward only, so a descending order is a forward read and a sort. */
  bool tb_column;
} sp_table_t;

/* A view, as the environment describes it: the binder parses its query
 * text and binds it where the view is named (sql_bind_view.c). */
typedef struct sp_view_s {
  uint32_t vi_oid;
  const char *vi_schema;
  const char *vi_name;
  uint32_t vi_owner;            /* role: the tables it reads are checked with its privileges */
  char vi_check;                /* WITH CASCADED CHECK OPTION 'c', LOCAL 'l', 0 none */
  const char *vi_query;         /* the defining query's text */
  int vi_ncols;                 /* the columns it had when created (a later column of a
                                   table its `*` reads is not one of them) */
  const char **vi_colnames;
  const ty_t *vi_coltypes;
} sp_view_t;

/* CREATE VIEW's notes on its own query (sql_bind_refs.c): each name in
 * the text that resolved to a stored relation or to one of its columns
 * (rf_pos the 1-based character position of the name's first part,
 * rf_part which dot-separated part names it), and every column the query
 * uses (rf_pos 0: `*`, USING, as well as named ones), so the engine can
 * keep the view by OID and column number (catalog/README.md, "Views"). */
typedef struct sp_ref_s {
  int rf_pos;
  int rf_part;
  char rf_kind;                 /* 'r' a relation's name, 'c' a column's name, 'd' a
                                   column used (no text) */
  uint32_t rf_oid;
  int rf_col;                   /* 'c', 'd': the column number; -1 for 'r' */
} sp_ref_t;

typedef struct sp_refs_s {
  arena_t *rs_a;
  int rs_n, rs_cap;
  sp_ref_t *rs_refs;
} sp_refs_t;

/* What the binder asks of the world outside. */
typedef struct sp_env_s {
  void *pe_ctx;
  /* Finds schema.name (schema NULL: the search path). Returns CZ_OK with
   * *out set, 1 when there is no such table, CZ_ERR on error. */
  int (*pe_table)(void *ctx, const char *schema, const char *name, arena_t *a,
                  const sp_table_t **out, err_t *e);
  /* Finds the view schema.name (schema NULL: the search path): CZ_OK with
   * *out set, 1 when there is none, CZ_ERR on error. NULL: no views. */
  int (*pe_view)(void *ctx, const char *schema, const char *name, arena_t *a,
                 const sp_view_t **out, err_t *e);
  int pe_vector_size;
  /* Estimates come from each table's handle (qtable_ops_t qt_stats,
   * qt_sample), not from here. pe_no_seqscan: PostgreSQL's
   * enable_seqscan = off, an index the conjuncts can bound is used
   * however much of the table its range holds. */
  bool pe_no_seqscan;
  int pe_threads;               /* [Parameters] ThreadsPerQuery: > 1 allows Gather plans
                                   (opt_par.c); 0 read as 1 */
  double pe_par_min_rows;       /* [Parameters] ParallelMinRows: a block is parallel when
                                   its driving table holds at least this many rows;
                                   0 read as 100000 */
  /* The optimizer (sql_logical.h): the statement runner sets opt's
   * entry points (opt/opt.h opt_entry()); sql never includes opt. */
  const struct sql_opt_s *pe_opt;
  /* REFRESH MATERIALIZED VIEW's own INSERT: the materialized view's table
   * may be written. */
  bool pe_refresh;
  /* CREATE VIEW: where the binder notes the names of the query it binds
   * (not those of views it expands); NULL: nothing noted. */
  sp_refs_t *pe_refs;
} sp_env_t;

typedef enum sp_kind_e {
  SP_QUERY,                     /* returns rows */
  SP_INSERT,
  SP_UPDATE,
  SP_DELETE
} sp_kind_t;

typedef struct sp_col_s {
  const char *pc_name;
  ty_t pc_type;
  uint32_t pc_table_oid;        /* 0 = computed */
  int16_t pc_attnum;            /* 1-based; 0 = computed */
} sp_col_t;

/* A table a plan reads or changes, with the privilege that needs. */
typedef struct sp_access_s {
  const sp_table_t *ac_table;
  unsigned ac_priv;             /* SQL_PRIV_* */
  uint32_t ac_role;             /* whose privileges: a view's owner for the relations its
                                   query reads; 0 the session's role */
  const sp_view_t *ac_view;     /* a view named in the statement (ac_table NULL) */
} sp_access_t;

typedef struct splan_s {
  sp_kind_t sp_kind;
  op_t *sp_root;
  op_t *sp_dml;                 /* INSERT/UPDATE/DELETE: the modify operator (op_dml_count) */
  int sp_ncols;                 /* result columns (queries, DML with RETURNING) */
  sp_col_t *sp_cols;
  int sp_nparams;
  ty_t *sp_param_types;         /* inferred; untyped ones are text */
  int sp_nsubqs;
  xsubq_t **sp_subqs;           /* parents before children */
  int sp_naccess;
  sp_access_t *sp_access;
  bool sp_locks_rows;           /* SELECT … FOR UPDATE / SHARE somewhere: runs in a
                                   transaction (the implicit one outside a block) */
} splan_t;

/* Binds and plans SELECT, VALUES, INSERT, UPDATE, DELETE. param_types
 * gives the client's types of $1..$nparams (TY_UNKNOWN = infer). */
int sql_plan_stmt(arena_t *a, const sql_stmt_t *st, const sp_env_t *env,
                  const ty_t *param_types, int nparams, splan_t **out, err_t *e);

/* EXECUTE's arguments: each expression bound (no columns; a subquery is
 * 0A000, as in PostgreSQL) and cast to to[i], the prepared statement's
 * parameter type, into out[0..n-1] (each evaluated by xeval_scalar).
 * $k in them are the EXECUTE's own parameters: param_types gives the
 * client's types, *out_ptypes / *out_nparams all of them, inferred. */
int sql_bind_args(arena_t *a, const sql_list_t *args, const ty_t *to, int n, const sp_env_t *env,
                  const ty_t *param_types, int nparams, xnode_t ***out, ty_t **out_ptypes,
                  int *out_nparams, err_t *e);

/* Whether a view with query q is automatically updatable (one table in
 * FROM, plain columns, no DISTINCT, GROUP BY, HAVING, LIMIT, set
 * operation, WITH or window: sql_bind_view.c). */
bool sql_view_updatable(const sql_query_t *q);

/* The ty_t of a type name as written (CREATE TABLE, casts). */
int sql_bind_type(const sql_type_t *t, ty_t *out, err_t *e);

/* Evaluates a column DEFAULT's SQL text (or an expression tree for
 * CREATE TABLE's check) to a value of type t, in a. The evaluation is
 * charged to a's budget (none: unlimited) and fails with 53200 past it. */
int sql_eval_default(arena_t *a, const char *text, ty_t t, void *session, datum_t *out, err_t *e);
/* The DEFAULT text bound into an expression of type t (in a), and whether
 * it is volatile (nextval, random(): to be evaluated once per row, with
 * the session as xctx_t xc_session). */
int sql_bind_default(arena_t *a, const char *text, ty_t t, xnode_t **out, bool *is_volatile,
                     err_t *e);

/* A CHECK constraint's SQL text bound over a row of the table's columns
 * (names[i], types[i] at X_COL i), in a. *used (ncols flags, in a; may be
 * NULL) says which columns it reads. PostgreSQL's errors: 42804 when not
 * boolean ("argument of CHECK must be type boolean, not type …"), 0A000
 * for a subquery, 42803 for an aggregate, 42P02 for a parameter, 42703
 * for an unknown column. */
int sql_bind_check(arena_t *a, const char *text, int ncols, const char *const *names,
                   const ty_t *types, const char *table, xnode_t **out, bool **used, err_t *e);

/* SQL text of an expression (for DEFAULTs kept as text), in a; NULL with
 * 0A000 for the forms it does not cover. */
char *sql_deparse_expr(arena_t *a, const sql_expr_t *x, err_t *e);

#endif /* CZ_SQL_PLAN_H */
