/* pgcat — PostgreSQL's pg_catalog and information_schema, computed from
 * Cadenza's catalog at query time, and the catalog functions clients call
 * (format_type, pg_get_expr, pg_table_is_visible, …).
 *
 * Design notes (pgcat/README.md lists every relation, column and where its
 * values come from):
 * - A relation here is virtual: a name, columns with types, and a fill
 *   function that computes every row from a catalog snapshot (cat_snapshot_t)
 *   and the session's environment (pgcat_env_t). Nothing is stored; a scan
 *   materialises the rows in the caller's arena (catalogs are small) and
 *   hands them out in batches like a table scan.
 * - The binder resolves table names against pgcat first for pg_catalog and
 *   information_schema, and for unqualified names (PostgreSQL searches
 *   pg_catalog before the search path), then against the catalog:
 *
 *     const pgcat_rel_t *r = pgcat_find(schema, name);  // NULL: not ours
 *     if (r) { columns: pgcat_ncols(r), pgcat_col_name(r, i), pgcat_col_type(r, i);
 *              RowDescription table OID: pgcat_rel_oid(r), attnum i + 1 }
 *
 *   and the executor's scan of such a relation is
 *
 *     pgcat_scan_t *sc; pgcat_scan_open(r, env, arena, &sc, e);
 *     loop: pgcat_scan_next(sc, cols, ncols, out_batch, e) until out_batch->b_n == 0
 *
 *   with out_batch created with the types of the columns asked for.
 * - Functions are registered once (pgcat_init) through exec's
 *   xfunc_register. They reach the statement's snapshot and user through
 *   the hook the engine installs: pgcat_init(fn) where fn maps the
 *   xctx_t's xc_session to the pgcat_env_t of that session's running
 *   statement.
 * - Types: the catalog's PostgreSQL types (oid, name, "char", regproc,
 *   arrays, int2vector, pg_node_tree …) are held in the nearest type
 *   types/ has (pgcat_pg_type_storage): oid and regproc as int8, name and
 *   "char" and pg_node_tree as text, arrays in PostgreSQL's text form
 *   ('{1,2}') as text. pg_attribute and RowDescription agree because both
 *   use the storage type's OID. When types/ gains oid, name and "char",
 *   only that map changes.
 */
#ifndef CZ_PGCAT_H
#define CZ_PGCAT_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "types/types.h"
#include "util/util.h"

/* The PostgreSQL types of catalog columns (their PostgreSQL OIDs). */
typedef enum pgcat_pgtype_e {
  PGT_BOOL = 16,
  PGT_CHAR = 18,          /* "char" */
  PGT_NAME = 19,
  PGT_INT8 = 20,
  PGT_INT2 = 21,
  PGT_INT2VECTOR = 22,
  PGT_INT4 = 23,
  PGT_REGPROC = 24,
  PGT_TEXT = 25,
  PGT_OID = 26,
  PGT_OIDVECTOR = 30,
  PGT_PG_NODE_TREE = 194,
  PGT_FLOAT4 = 700,
  PGT_CHAR_ARRAY = 1002,
  PGT_INT2_ARRAY = 1005,
  PGT_TEXT_ARRAY = 1009,
  PGT_OID_ARRAY = 1028,
  PGT_ACLITEM_ARRAY = 1034,
  PGT_VARCHAR = 1043,
  PGT_TIMESTAMPTZ = 1184,
  PGT_INTERVAL = 1186
} pgcat_pgtype_t;

/* The type values of a catalog column of PostgreSQL type t are held in. */
ty_t pgcat_pg_type_storage(pgcat_pgtype_t t);
/* The element type of an array or vector type (int2vector and int2[] →
 * int2, oid[] and oidvector → oid, "char"[] → "char", text[] → text);
 * false for a scalar type. With array_element(arr, i) (text) the binder
 * can give x[i] its element type by a cast to pgcat_pg_type_storage(elem). */
bool pgcat_pgtype_elem(pgcat_pgtype_t t, pgcat_pgtype_t *elem);

/* ---- the session's environment ---------------------------------------- */

/* One run-time setting, for pg_settings and current_setting(). */
typedef struct pgcat_setting_s {
  const char *pst_name;      /* as PostgreSQL spells it: "DateStyle", "search_path" */
  const char *pst_value;
} pgcat_setting_t;

/* What a catalog query sees; filled by the engine for each statement.
 * Everything must stay valid while the statement runs. */
typedef struct pgcat_env_s {
  const cat_snapshot_t *pe_snap;  /* the statement's catalog snapshot */
  cat_oid_t pe_user;              /* current_user's role OID */
  cat_oid_t pe_session_user;      /* session_user's (the login role) */
  const char *pe_database;        /* the database name the client asked for */
  int32_t pe_backend_pid;         /* pg_backend_pid(): the session's id */
  int pe_nsettings;
  const pgcat_setting_t *pe_settings;
  /* For the sequence functions (nextval, currval, setval, lastval): */
  cat_seq_session_t *pe_seqs;     /* the session's sequence state */
  txn_t *pe_txn;                  /* the statement's transaction; NULL none */
  const volatile bool *pe_cancel; /* the session's cancel flag; NULL none */
  /* set_config(name, value, is_local): the session's SET (NULL: 55000). */
  int (*pe_set)(void *ctx, const char *name, const char *value, err_t *e);
  void *pe_set_ctx;
} pgcat_env_t;

/* The engine's map from an expression context's session (xctx_t's
 * xc_session) to the environment of that session's current statement;
 * NULL when there is none (functions then fail with 55000). */
typedef const pgcat_env_t *(*pgcat_env_fn)(void *session);

/* Registers the catalog functions (once per process; later calls only
 * replace the hook). Call at server start, before any statement binds. */
int pgcat_init(pgcat_env_fn fn, err_t *e);

/* The value of setting name (case-insensitive) in env, or NULL. */
const char *pgcat_setting(const pgcat_env_t *env, const char *name);

/* The schemas of env's search_path that exist, in its order, "$user"
 * resolved, pg_catalog first unless the path lists it (PostgreSQL's
 * implicit schema); the temporary schema (pg_temp) is left to the engine.
 * Returns how many (at most max). */
int pgcat_search_path(const pgcat_env_t *env, cat_oid_t *out, int max);
/* The same without the implicit pg_catalog: current_schemas(false), and
 * where CREATE without a schema makes its object (the first). */
int pgcat_search_path_explicit(const pgcat_env_t *env, cat_oid_t *out, int max);

/* ---- relations ---------------------------------------------------------- */

typedef struct pgcat_rel_s pgcat_rel_t;

/* schema "pg_catalog" or "information_schema", or NULL for an unqualified
 * name (pg_catalog only, as PostgreSQL looks there first). NULL when no
 * such virtual relation exists. Names are the folded identifiers. */
const pgcat_rel_t *pgcat_find(const char *schema, const char *name);
const pgcat_rel_t *pgcat_find_oid(cat_oid_t oid);
/* Whether p is one of pgcat's relation descriptors: lets the engine tell
 * a virtual relation's handle from a stored table's in its scan hooks. */
bool pgcat_is_rel(const void *p);
/* All relations, for enumeration (pg_class lists them too). */
int pgcat_nrels(void);
const pgcat_rel_t *pgcat_rel_at(int i);

const char *pgcat_rel_name(const pgcat_rel_t *r);
const char *pgcat_rel_schema(const pgcat_rel_t *r);
cat_oid_t pgcat_rel_schema_oid(const pgcat_rel_t *r);
/* PostgreSQL's OID of the relation (pg_class 1259, …): for RowDescription
 * and regclass. */
cat_oid_t pgcat_rel_oid(const pgcat_rel_t *r);
char pgcat_rel_kind(const pgcat_rel_t *r);   /* 'r' table, 'v' view */
int pgcat_ncols(const pgcat_rel_t *r);
const char *pgcat_col_name(const pgcat_rel_t *r, int i);
ty_t pgcat_col_type(const pgcat_rel_t *r, int i);
pgcat_pgtype_t pgcat_col_pgtype(const pgcat_rel_t *r, int i);
/* Column number (0-based) or -1. */
int pgcat_find_col(const pgcat_rel_t *r, const char *name);

/* ---- scans -------------------------------------------------------------- */

typedef struct pgcat_scan_s pgcat_scan_t;

/* Computes every row of r for env into a (the rows, their strings and the
 * scan itself live there until the arena is reset). */
int pgcat_scan_open(const pgcat_rel_t *r, const pgcat_env_t *env, arena_t *a,
                    pgcat_scan_t **out, err_t *e);
/* Copies the next rows (at most out's column capacity) into out:
 * relation columns cols[0..ncols) in that order (cols NULL: all columns),
 * out's columns having their types; out->b_n = 0 at the end. Strings
 * point into the scan's arena. */
int pgcat_scan_next(pgcat_scan_t *sc, const int *cols, int ncols, batch_t *out, err_t *e);
/* All rows at once, one batch (b_n rows, possibly 0). */
int pgcat_rows(const pgcat_rel_t *r, const pgcat_env_t *env, arena_t *a, const batch_t **out,
               err_t *e);

/* ---- names of objects, for the binder's casts ----------------------------- */

/* 'name'::regclass and friends, resolved when the binder meets a literal:
 * the OID of the relation (a table, an index, or a pgcat relation; the
 * name may be schema-qualified and double-quoted), type, schema or role.
 * 42P01 / 42704 / 3F000 with PostgreSQL's messages when there is none. */
int pgcat_regclass_in(const pgcat_env_t *env, const char *text, cat_oid_t *out, err_t *e);
int pgcat_regtype_in(const pgcat_env_t *env, const char *text, cat_oid_t *out, err_t *e);
int pgcat_regnamespace_in(const pgcat_env_t *env, const char *text, cat_oid_t *out, err_t *e);
int pgcat_regrole_in(const pgcat_env_t *env, const char *text, cat_oid_t *out, err_t *e);
/* The text forms (regclassout …): the name, schema-qualified when it is not
 * visible, or the number when no object has that OID. Allocated in a. */
char *pgcat_regclass_out(const pgcat_env_t *env, cat_oid_t oid, arena_t *a);
char *pgcat_regtype_out(cat_oid_t oid, arena_t *a);
char *pgcat_regnamespace_out(const pgcat_env_t *env, cat_oid_t oid, arena_t *a);
char *pgcat_regrole_out(const pgcat_env_t *env, cat_oid_t oid, arena_t *a);

/* PostgreSQL's format_type(type OID, typmod) for the built-in types:
 * "integer", "character varying(40)", "numeric(10,2)"; NULL-safe callers
 * pass typmod -1. "???" for an unknown OID, as PostgreSQL. */
char *pgcat_format_type(uint32_t type_oid, int32_t typmod, arena_t *a);

/* Arrays have at most this many dimensions (PostgreSQL's MAXDIM). */
#define PGCAT_ARRAY_MAXDIM TY_ARRAY_MAXDIM

/* An identifier quoted as PostgreSQL's quote_ident does (only when
 * needed); also how a view's text spells renamed names (cat_view_text). */
char *pgcat_quote_ident(const char *s, arena_t *a);

#endif /* CZ_PGCAT_H */
