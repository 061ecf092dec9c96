/* runner_int — the statement runner's private structures: the front ends,
 * cursor statements, table handles, the execution's memory, server files,
 * DDL and COPY. Only runner files include it; the session reaches the
 * runner through runner.h, and the runner the session through
 * session/session.h (engine/README.md: the boundary). */
#ifndef CZ_ENGINE_RUNNER_INT_H
#define CZ_ENGINE_RUNNER_INT_H

/* The boundary (README.md): no file is of both parts. */
#ifdef CZ_ENGINE_SESSION_INT_H
#error "a file includes both engine/runner/runner_int.h and engine/session/session_int.h"
#endif

#include "engine/runner/runner.h"
#include "engine/session/session.h"
#include "table/table.h"

/* ---- en_frontend.c: the front-end dispatch --------------------------------- */

/* A statement language's front end. fe_claims (NULL for the default, SQL)
 * tells by the statement's first words whether it is this language's;
 * fe_extent gives the bytes of the statement at text (up to its
 * terminating `;`, excluded); fe_parse (NULL: fe_prepare reads st_text
 * itself) parses one statement into a; fe_prepare sets up st from the
 * parsed form (classify, plan, describe). */
typedef struct efront_s {
  const char *fe_name;
  bool (*fe_claims)(const char *text, size_t len);
  size_t (*fe_extent)(const char *text, size_t len);
  int (*fe_parse)(arena_t *a, const char *text, size_t len, void **parsed, err_t *e);
  int (*fe_prepare)(estmt_t *st, void *parsed, const uint32_t *ptypes, int nparams, err_t *e);
} efront_t;
const efront_t *en_front_for(const char *text, size_t len);
/* en_sparql.c: statements beginning `SPARQL` (or `EXPLAIN … SPARQL`). */
extern const efront_t en_sparql_front;
/* Where the SPARQL text of a `SPARQL …` statement begins (after the
 * keyword and a DEFINE). */
/* The rule set of a `SPARQL DEFINE input:inference "…" …` statement's
 * text, or NULL (an update's WHERE under inference). */
const char *en_sparql_inference(arena_t *a, const char *text, size_t len);
size_t en_sparql_text_start(const char *text, size_t len);
/* en_sparql_update.c: a `SPARQL <update>` statement prepared: a result of
 * one row (inserted, deleted), st_sparql_update set. */
int en_sparql_update_prepare(estmt_t *st, err_t *e);
/* en_sparql_update.c: the store's ids of constant terms[0..n) (IRIs and
 * literals no longer than EN_SPARQL_LOOKUP_MAX bytes), 0 for a term it
 * does not hold; nothing added. In the session's open transaction. */
#define EN_SPARQL_LOOKUP_MAX 700
struct sp_term_s;
int en_sparql_term_ids(esession_t *s, arena_t *a, const struct sp_term_s *const *terms, size_t n,
                       int64_t *ids, err_t *e);
/* The rows of a query of int8 columns (row-major in *rows), run in the
 * session's transaction (en_sparql_update.c): the inference rule set's
 * ontology triples at prepare. */
int en_sparql_id_rows(esession_t *s, arena_t *a, const char *sql, int64_t **rows, size_t *nrows, err_t *e);
/* en_stmt.c: the SQL front end's fe_prepare (parsed: a sql_stmt_t, NULL
 * for an empty statement). */
int en_sql_prepare(estmt_t *st, void *parsed, const uint32_t *ptypes, int nparams, err_t *e);

/* ---- en_cursor.c: DECLARE / FETCH / MOVE / CLOSE ------------------------ */

typedef enum ecur_kind_e { ECUR_NONE, ECUR_DECLARE, ECUR_FETCH, ECUR_MOVE, ECUR_CLOSE } ecur_kind_t;

/* A cursor statement as read (the parser does not know them). */
typedef struct ecur_stmt_s {
  ecur_kind_t cs_kind;
  char *cs_name;                /* NULL: CLOSE ALL */
  struct estmt_s *cs_query;     /* DECLARE: the query, prepared */
  int64_t cs_count;             /* FETCH / MOVE: rows, -1 = ALL */
} ecur_stmt_t;

/* ECUR_NONE unless text starts with DECLARE, FETCH, MOVE or CLOSE. */
ecur_kind_t en_cursor_kind(const char *text, size_t len);
/* Reads a cursor statement (en_cursor_kind not ECUR_NONE) into st. */
int en_cursor_prepare(estmt_t *st, const uint32_t *ptypes, int nparams, err_t *e);
void en_cursor_stmt_free(estmt_t *st);

/* ---- en_qmem.c: one execution's memory budget -------------------------- */

/* Initialises b with limit and charges q's arena, the plan's arena and
 * out_arena (either may be NULL) to it. */
void en_qmem_attach(qctx_t *q, mem_budget_t *b, int64_t limit, arena_t *plan_arena,
                    arena_t *out_arena);
/* The execution ended: deletes its temporary files (spill_end), releases
 * the plan's operator arenas, q's arena and out_arena, detaches the
 * budget, and gives memory back to the system
 * after a big run. No-op when nothing is attached. */
void en_qmem_detach(qctx_t *q, arena_t *plan_arena, arena_t *out_arena);

/* ---- en_exec.c: EXPLAIN ------------------------------------------------- */

/* EXPLAIN [ANALYZE] of r's statement: the operator tree, one row per line. */
int en_explain(erun_t *r, erows_fn_t fn, void *ctx, err_t *e);

/* ---- en_analyze.c --------------------------------------------------------- */

/* ANALYZE [names] / VACUUM ANALYZE (ast->st_drop's names). */
int en_analyze(esession_t *s, const sql_stmt_t *ast, err_t *e);
/* LOCK TABLE (en_lock.c). */
int en_lock(esession_t *s, const sql_stmt_t *ast, char *tag, size_t tagcap, err_t *e);
/* ALTER … OWNER TO (en_owner.c). */
int en_alter_owner(esession_t *s, const sql_stmt_t *ast, char *tag, size_t tagcap, err_t *e);
/* ALTER TABLE … ALTER COLUMN c ADD GENERATED … AS IDENTITY (en_seq_ddl.c): the
 * column's sequence (SEQUENCE NAME or <table>_<column>_seq) and identity. */
int en_add_identity(esession_t *s, const cat_table_t *t, const sql_alter_cmd_t *c, err_t *e);

/* ---- en_env.c: the binder's view of the catalog, the executor's storage
 * hooks --------------------------------------------------------------- */

/* en_file.c: the one gate for SQL that reads or writes a server file (op
 * names the operation in errors: "COPY to a file"). On success *fd is open
 * for reading, or for writing and emptied; the caller closes it. */
int en_file_open(esession_t *s, const char *op, const char *path, bool write, int *fd, err_t *e);

/* The table handles the engine gives the planner (sp_table_t.tb_handle):
 * a stored table or a catalog relation, each with its own operations. */
typedef struct en_handle_s {
  qtable_t eh_q;                /* first: what the executor calls */
  const cat_table_t *eh_table;  /* a stored table, or NULL */
  const void *eh_rel;           /* a pgcat relation, or NULL */
} en_handle_t;
/* A handle for a stored table / a catalog relation, in a. */
en_handle_t *en_handle_table(const cat_table_t *t, arena_t *a);
en_handle_t *en_handle_rel(const void *rel, arena_t *a);
/* The stored table of a handle (NULL for a catalog relation). */
static inline const cat_table_t *en_handle_cat(const void *h)
{
  return ((const en_handle_t *)h)->eh_table;
}
/* The catalog relation of a handle (NULL for a stored table). */
static inline const void *en_handle_pgrel(const void *h)
{
  return ((const en_handle_t *)h)->eh_rel;
}
/* Checks the plan's privileges for the session's role (42501). */
int en_check_access(esession_t *s, const splan_t *p, err_t *e);

/* ---- en_ddl.c -------------------------------------------------------------- */

/* text: the statement's text (CREATE VIEW keeps its query's). */
int en_ddl(esession_t *s, const char *text, const sql_stmt_t *st, char *tag, size_t tagcap,
           err_t *e);

/* DROP TABLE (names, cascade, if_exists as dr says). */
int en_ddl_drop_tables(esession_t *s, const sql_drop_t *dr, err_t *e);

/* The role a GRANT / REVOKE names (`public`: CAT_OID_PUBLIC_ROLE);
 * grant_option: WITH GRANT OPTION, refused for PUBLIC (0LP01). */
int en_grantee(esession_t *s, const char *name, bool grant_option, cat_oid_t *out, err_t *e);

/* ---- en_schema_ddl.c ---------------------------------------------------------- */

/* CREATE SCHEMA, ALTER SCHEMA … RENAME TO, DROP SCHEMA. */
int en_ddl_schema(esession_t *s, const sql_stmt_t *st, char *tag, size_t tagcap, err_t *e);
/* GRANT / REVOKE … ON SCHEMA. */
int en_grant_schema(esession_t *s, const sql_grant_t *g, bool grant, err_t *e);
/* 42501 unless the session may create objects in schema (NULL: public). */
int en_check_schema_create(esession_t *s, const char *schema, err_t *e);
/* 42501 unless role holds USAGE on schema (pg_catalog, information_schema
 * and temporary schemas are open to all). */
int en_check_schema_usage(esession_t *s, const cat_snapshot_t *snap, cat_oid_t role,
                          cat_oid_t schema, err_t *e);

/* ---- en_path.c ---------------------------------------------------------------- */

/* The schema the relation name schema.name refers to: schema when given;
 * else the session's temporary schema or the first schema of search_path
 * holding a relation of that name (or, when none does, one where the
 * lookup after this finds nothing). Never NULL. */
const char *en_rel_schema(esession_t *s, const char *schema, const char *name);
/* en_rel_schema of a name as written. */
const char *en_name_schema(esession_t *s, const sql_name_t *n);
/* cat_lookup_table of schema.name through search_path (42P01, 3F000 as
 * written: the schema appears in the message only when the text gave it). */
int en_lookup_table(esession_t *s, const char *schema, const char *name, const cat_table_t **out,
                    err_t *e);
/* The schema CREATE of schema.name makes it in: schema when given, else
 * the first existing schema of search_path (3F000 when there is none,
 * 42501 when that is pg_catalog). */
int en_new_schema(esession_t *s, const char *schema, const char *name, const char **out, err_t *e);
/* A default's deparsed text with the sequence each nextval / currval /
 * setval('name') names written as 'schema.name'::regclass, so the
 * default keeps naming it whatever search_path is later (PostgreSQL
 * stores the regclass constant's OID); 42P01 for an unknown name. */
int en_qualify_seq_names(esession_t *s, arena_t *a, const char *text, const char **out, err_t *e);
/* Whether the schema of that name is one search_path names. */
bool en_schema_in_path(esession_t *s, const char *schema);

/* ---- en_view_ddl.c ----------------------------------------------------------- */

/* CREATE [MATERIALIZED] VIEW, ALTER VIEW … RENAME, REFRESH MATERIALIZED VIEW. */
int en_ddl_view(esession_t *s, const char *text, const sql_stmt_t *st, char *tag, size_t tagcap,
                err_t *e);
int en_ddl_drop_views(esession_t *s, const sql_drop_t *dr, bool materialized, err_t *e);
/* Before relation rel (named name) is dropped: the views that depend on
 * it — 2BP01 with PostgreSQL's DETAIL and HINT, or with cascade dropped
 * (NOTICE "drop cascades to …"). */
/* ALTER TABLE on column col of t that views use (en_view_ddl.c): DROP
 * COLUMN is 2BP01 unless cascade (then those views and theirs go), ALTER
 * TYPE (drop false) 0A000, both with PostgreSQL's DETAIL. */
int en_view_column_used(esession_t *s, const cat_table_t *t, int col, bool drop, bool cascade,
                        err_t *e);
/* After ALTER TABLE renumbered table's columns (colmap: old -> new, -1
 * dropped), the views' notes follow them. */
int en_view_remap_columns(esession_t *s, cat_oid_t table, const int *colmap, int nold, err_t *e);
/* A view by name as the session sees it: its temporary schema (pg_temp)
 * first when the name is not qualified, as PostgreSQL's search path. */
const cat_view_t *en_find_view(esession_t *s, const char *schema, const char *name);
int en_view_drop_dependents(esession_t *s, cat_oid_t rel, const char *name, bool cascade,
                            err_t *e);

/* ---- en_seq_ddl.c ------------------------------------------------------------ */

/* CREATE SEQUENCE, ALTER SEQUENCE. */
int en_ddl_sequence(esession_t *s, const sql_stmt_t *st, err_t *e);
/* ALTER TABLE (en_alter.c). */
int en_alter_table(esession_t *s, const sql_alter_t *at, err_t *e);
/* COMMENT ON (en_comment.c). */
int en_comment(esession_t *s, const sql_comment_t *cm, err_t *e);
/* ALTER TABLE … ADD CONSTRAINT of a CHECK or FOREIGN KEY: recorded and
 * the rows validated by en_constraint_add (en_cons_ddl.c). */
int en_alter_add_constraint_cons(esession_t *s, arena_t *a, const cat_table_t *t,
                                 const sql_tabcons_t *tc, err_t *e);
int en_ddl_drop_sequences(esession_t *s, const sql_drop_t *dr, err_t *e);
/* CREATE TABLE's serial and identity columns: before the table is made,
 * each one's sequence name (*seqnames, NULL for other columns), DEFAULT
 * and NOT NULL in cols, and the identity kinds (*identity, NULL none);
 * after it, the sequences, OWNED BY their columns. */
/* [Parameters] DefaultLayout for a new table of these columns: row when
 * they cannot be stored column-wise (INTERVAL, too many), so that a
 * column default never refuses a table (en_ddl.c; materialized views'
 * tables too). */
cat_layout_t en_default_layout(esession_t *s, const cat_column_def_t *cols, int nc);
int en_serial_plan(esession_t *s, arena_t *a, const sql_create_table_t *ct, cat_column_def_t *cols,
                   char **identity, const char ***seqnames, err_t *e);
int en_serial_make(esession_t *s, const sql_create_table_t *ct, const cat_column_def_t *cols,
                   const char *const *seqnames, cat_oid_t table, err_t *e);

/* ---- en_cons.c: CHECK and FOREIGN KEY enforcement (README "Constraints") --- */

/* Whether t's writes go through en_cons_* (it has constraints or is referenced). */
bool en_cons_needed(const cat_table_t *t);
/* The writes, with every constraint: as tbl_insert (load: tbl_insert_batch,
 * sel NULL), tbl_update / tbl_update_cols (set NULL: every column) and
 * tbl_delete; scratch memory in a child of parent. */
int en_cons_insert(esession_t *s, txn_t *tx, const cat_table_t *t, const batch_t *b, const int *sel,
                   int n, bool load, arena_t *parent, err_t *e);
/* epq (may be NULL): READ COMMITTED's recheck of changed rows
 * (tbl_epq_t), used where the checks do not depend on the values as the
 * scan read them: an update that names its columns (checks read the rows
 * back as written) of a table no foreign key references, a delete from
 * such a table; elsewhere a changed row stays 40001. */
int en_cons_update(esession_t *s, txn_t *tx, const cat_table_t *t, const batch_t *b, int loc,
                   const bool *set, const int *sel, int n, const tbl_epq_t *epq, arena_t *parent,
                   err_t *e);
int en_cons_delete(esession_t *s, txn_t *tx, const cat_table_t *t, const batch_t *b, int loc,
                   const int *sel, int n, const tbl_epq_t *epq, arena_t *parent, err_t *e);
/* INSERT … ON CONFLICT: refused (0A000) when DO UPDATE sets a referenced
 * key; after tbl_conflict_apply, the rows it inserted or updated. */
int en_cons_conflict_open(const cat_table_t *t, const bool *set, err_t *e);
int en_cons_conflict_after(esession_t *s, txn_t *tx, const cat_table_t *t, const batch_t *b,
                           const int *sel, int n, const uint8_t *act, const batch_t *newv,
                           const bool *set, arena_t *parent, err_t *e);
/* The end of a writing statement: its pending referential checks. */
int en_cons_stmt_end(esession_t *s, txn_t *tx, arena_t *parent, err_t *e);
/* SET CONSTRAINTS. */
int en_cons_set(esession_t *s, const sql_setcons_t *sc, char *tag, size_t tagcap, err_t *e);
/* Every row of co's table checked against co (vectored: a batch of rows
 * evaluated, or probed into the referenced index, at a time): 23514 /
 * 23503 as PostgreSQL's ALTER TABLE … ADD CONSTRAINT. */
int en_cons_validate(esession_t *s, txn_t *tx, const cat_constraint_t *co, arena_t *parent, err_t *e);

/* ---- en_cons_ddl.c: constraints of CREATE TABLE and ALTER TABLE ----------- */

/* Adds the CHECK or FOREIGN KEY constraint tc to table t (column: the
 * column a column constraint is written after, else NULL) and validates
 * t's rows against it (en_cons_validate). ALTER TABLE … ADD CONSTRAINT
 * calls this; CREATE TABLE too. PRIMARY KEY / UNIQUE are not its (0A000). */
int en_constraint_add(esession_t *s, arena_t *a, const cat_table_t *t, const sql_tabcons_t *tc,
                      const char *column, err_t *e);
/* DROP TABLE: the foreign keys of other tables referencing t: 2BP01 as
 * PostgreSQL words it, or with cascade dropped (a NOTICE each). */
int en_constraint_drop_refs(esession_t *s, const cat_table_t *t, bool cascade, err_t *e);

/* ---- en_copy.c ------------------------------------------------------------- */

/* Checks a COPY statement at prepare time and sets its column count. */
int en_copy_describe(estmt_t *st, err_t *e);
/* COPY with a server file, reached through eportal_execute (not the copy
 * sub-protocol). */
int en_copy_run(erun_t *r, err_t *e);

#endif /* CZ_ENGINE_RUNNER_INT_H */
