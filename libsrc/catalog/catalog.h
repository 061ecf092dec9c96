/* catalog — schemas, tables, columns, keys, indexes, roles, role
 * membership and table privileges, stored in system tables inside the
 * database and read through immutable in-memory snapshots.
 *
 * Design notes (catalog/README.md has the system table layout and the
 * numbered invariants):
 * - The committed catalog is one immutable snapshot (cat_snapshot_t):
 *   plain arrays and structs, built once, never changed, refcounted.
 *   Readers hold a snapshot for a statement (or a session, refreshing it
 *   when cat_version moves) and read it without any lock.
 * - DDL is transactional. A DDL function takes the caller's transaction,
 *   takes the catalog's DDL lock (a row lock in txn/'s lock table, held
 *   until the transaction ends: DDL transactions are serialised, and a
 *   deadlock with row locks is detected like any other), writes the system
 *   tables through that transaction and builds a new private snapshot.
 *   The transaction itself sees it (cat_snapshot_tx); others see it only
 *   when the transaction commits; rollback discards it (txn_on_end).
 * - Object names are stored exactly as given: the binder folds unquoted
 *   identifiers to lower case before calling.
 * - A DDL call that fails may have written part of its change: the caller
 *   rolls the transaction back, as after any failed statement.
 * - OIDs: built-in schemas carry PostgreSQL's OIDs (pg_catalog 11,
 *   public 2200, information_schema 13000); user objects get OIDs from
 *   CAT_FIRST_USER_OID up, one counter for all kinds (as PostgreSQL).
 * - Every table has a primary tree: keyed by its primary key columns or,
 *   without a primary key, by a hidden 8-byte row id. It is index 0 of the
 *   table (ct_indexes[0]); secondary indexes follow.
 */
#ifndef CZ_CATALOG_H
#define CZ_CATALOG_H

#include <stdbool.h>
#include <stdint.h>

#include "btree/btree.h"
#include "txn/txn.h"
#include "types/types.h"
#include "util/util.h"

typedef uint32_t cat_oid_t;

#define CAT_OID_PG_CATALOG 11
#define CAT_OID_PUBLIC 2200
#define CAT_OID_INFORMATION_SCHEMA 13000
#define CAT_OID_PUBLIC_ROLE 0          /* grantee "PUBLIC" in grants */
#define CAT_FIRST_USER_OID 16384
#define CAT_OID_DATABASE 16383         /* the one database (pg_database.oid) */

#define CAT_MAX_NAME 63                /* bytes, as PostgreSQL's NAMEDATALEN-1 */
#define CAT_MAX_COLUMNS 1600
#define CAT_MAX_INDEX_KEYS 32

/* SQLSTATEs of the catalog. */

/* Table privileges (bit set). */
#define CAT_PRIV_SELECT 0x1
#define CAT_PRIV_INSERT 0x2
#define CAT_PRIV_UPDATE 0x4
#define CAT_PRIV_DELETE 0x8
#define CAT_PRIV_ALL 0xf
/* Schema privileges (PostgreSQL's U and C), in the same bit space so that
 * one ACL item type serves both. */
#define CAT_PRIV_USAGE 0x10
#define CAT_PRIV_CREATE 0x20
#define CAT_PRIV_SCHEMA_ALL (CAT_PRIV_USAGE | CAT_PRIV_CREATE)
/* The grant option of privilege bits p (WITH GRANT OPTION): p shifted. */
#define CAT_PRIV_GRANT_SHIFT 8

typedef struct cat_s cat_t;

/* ---- the snapshot: what readers see ------------------------------------- */

/* One entry of a schema's access list, as one PostgreSQL aclitem. */
typedef struct cat_acl_item_s {
  cat_oid_t ai_grantee;        /* role OID, CAT_OID_PUBLIC_ROLE = PUBLIC */
  cat_oid_t ai_grantor;
  uint32_t ai_privs;           /* CAT_PRIV_USAGE | CAT_PRIV_CREATE, and their grant
                                  options << CAT_PRIV_GRANT_SHIFT */
} cat_acl_item_t;

typedef struct cat_schema_s {
  cat_oid_t cs_oid;
  const char *cs_name;
  cat_oid_t cs_owner;          /* role */
  bool cs_acl_set;             /* false: the default (the owner alone), pg_namespace.nspacl
                                  NULL; true: cs_acl lists who else holds what (the owner
                                  always holds everything, as in cat_table_privs) */
  int cs_nacl;
  const cat_acl_item_t *cs_acl;
} cat_schema_t;

typedef struct cat_column_s {
  const char *cc_name;
  ty_t cc_type;
  int cc_num;                  /* 0-based position in the table (attnum - 1) */
  bool cc_not_null;            /* NOT NULL, or part of the primary key */
  const char *cc_default;      /* DEFAULT as SQL text; NULL = none */
  char cc_identity;            /* GENERATED ALWAYS ('a') / BY DEFAULT ('d') AS
                                  IDENTITY; 0 = not an identity column */
} cat_column_t;

typedef struct cat_table_s cat_table_t;
typedef struct cat_constraint_s cat_constraint_t;

/* How an index's tree lays out its leaves (btree/README.md "Column
 * leaves"): rows, or column-wise compressed segments. Stored in
 * sys.tables (the primary tree's) and sys.indexes. */
typedef enum cat_layout_e {
  CAT_LAYOUT_ROW = 0,
  CAT_LAYOUT_COLUMN = 1
} cat_layout_t;

typedef struct cat_index_s {
  cat_oid_t ci_oid;
  const char *ci_name;         /* "<table>_pkey" for the primary key */
  const cat_table_t *ci_table;
  int ci_no;                   /* its place in ci_table->ct_indexes (0 = primary tree) */
  bool ci_primary;             /* the table's primary tree */
  bool ci_hidden;              /* the primary tree of a table without primary key:
                                  keyed by the row id; pg_index shows no row for it */
  bool ci_unique;
  int ci_nkeys;                /* key columns (0 for the hidden row id key) */
  const int *ci_keys;          /* table column numbers */
  const ty_t *ci_key_types;    /* their types (for bounds and key encoding) */
  int ci_ninclude;             /* INCLUDE columns (secondary indexes only) */
  const int *ci_include;
  bool ci_constraint;          /* made by a UNIQUE constraint (pg_constraint 'u'), not by
                                  CREATE UNIQUE INDEX; dropped with the constraint only */
  bool ci_nulls_nd;            /* UNIQUE NULLS NOT DISTINCT (PostgreSQL 15): a NULL key
                                  equals a NULL key (pg_index.indnullsnotdistinct) */
  cat_layout_t ci_layout;      /* the tree's leaf layout (the table's for the primary tree) */
  const char *ci_tree_name;    /* the tree's name in the database directory */
  uint32_t ci_gen;             /* rebuilds by ALTER TABLE (0: "i<oid>", else "i<oid>_<gen>") */
  bt_tree_t *ci_tree;          /* cached handle (owned by the database) */
  db_tree_t *ci_dtree;         /* the same tree for txn/ (locks, visibility) */
} cat_index_t;

/* Per-table state that outlives snapshots (shared by every snapshot that
 * holds the table): the row id generator of tables without primary key. */
typedef struct cat_table_rt_s cat_table_rt_t;

struct cat_table_s {
  cat_oid_t ct_oid;
  cat_oid_t ct_schema;         /* schema OID */
  const char *ct_schema_name;
  const char *ct_name;
  cat_oid_t ct_owner;          /* role OID */
  int ct_ncols;
  const cat_column_t *ct_cols;
  const ty_t *ct_types;        /* ct_cols[i].cc_type, contiguous (row codec) */
  int ct_npk;                  /* primary key columns; 0 = hidden row id */
  const int *ct_pk;            /* their column numbers, in key order */
  int ct_nindexes;             /* >= 1: [0] the primary tree, then secondaries */
  cat_index_t *const *ct_indexes;
  cat_table_rt_t *ct_rt;
  uint64_t ct_version;         /* version of the snapshot that loaded it */
  db_t *ct_db;
  cat_oid_t ct_pk_oid;         /* OID of the primary key constraint/index (0 none) */
  cat_layout_t ct_layout;      /* the primary tree's layout (WITH (layout = …)); a
                                  rewrite keeps it */
  uint32_t ct_gen;             /* rewrites by ALTER TABLE: the trees are "t<oid>" and
                                  "l<oid>" at 0, "t<oid>_<gen>" and "l<oid>_<gen>" after */
  /* The table's long-values tree (unique, "l<oid>"): values too long for
   * a row, in chunks keyed (value id, chunk number); see table/README.md.
   * Created with the table, dropped with it, and created at cat_open for
   * tables of databases written before it existed. */
  const char *ct_long_tree_name;
  bt_tree_t *ct_long_tree;
  db_tree_t *ct_long_dtree;
  /* CHECK and FOREIGN KEY constraints (cat_constraint.c): the table's own,
   * and the foreign keys of any table (itself too) that reference it. */
  int ct_ncons;
  const cat_constraint_t *const *ct_cons;
  int ct_nrefby;
  const cat_constraint_t *const *ct_refby;
};

/* A CHECK or FOREIGN KEY constraint (catalog/README.md, "Constraints").
 * PRIMARY KEY and UNIQUE constraints are their indexes (ci_constraint). */
struct cat_constraint_s {
  cat_oid_t co_oid;
  const char *co_name;         /* unique among the table's constraints */
  char co_type;                /* 'c' CHECK, 'f' FOREIGN KEY */
  const cat_table_t *co_table; /* the constrained (referencing) table */
  int co_nkeys;                /* 'f': the referencing columns; 'c': the columns the
                                  expression reads (pg_constraint.conkey) */
  const int *co_keys;
  const char *co_check;        /* 'c': the expression, SQL text as deparsed */
  /* 'f' only: */
  const cat_table_t *co_ref;   /* the referenced table */
  const int *co_ref_keys;      /* its columns, co_nkeys of them, pairwise with co_keys */
  const cat_index_t *co_ref_index; /* the unique index of co_ref over exactly those columns */
  char co_upd_action;          /* 'a' NO ACTION, 'r' RESTRICT, 'c' CASCADE, 'n' SET NULL,
                                  'd' SET DEFAULT (pg_constraint's letters) */
  char co_del_action;
  char co_match;               /* 's' SIMPLE, 'f' FULL */
  int co_ndel_set;             /* ON DELETE SET NULL / DEFAULT (columns): which; 0 = all keys */
  const int *co_del_set;
  bool co_deferrable;
  bool co_deferred;            /* INITIALLY DEFERRED */
};

typedef struct cat_role_s {
  cat_oid_t cr_oid;
  const char *cr_name;
  bool cr_superuser;
  bool cr_login;               /* a user (CREATE USER) may log in */
  bool cr_createdb;
  bool cr_createrole;
  const char *cr_verifier;     /* SCRAM-SHA-256 verifier; NULL = no password */
  const char *cr_digest;       /* HTTP Digest: "<32 hex digits of MD5(name:realm:password)>:<realm>",
                                  made when the password was set under [HTTPServer] DigestRealm;
                                  NULL = none (Digest cannot use a SCRAM verifier) */
} cat_role_t;

typedef struct cat_member_s {
  cat_oid_t cm_role;           /* the group role */
  cat_oid_t cm_member;         /* is a member of cm_role */
  cat_oid_t cm_grantor;
  bool cm_admin;
} cat_member_t;

typedef struct cat_grant_s {
  cat_oid_t cg_table;
  cat_oid_t cg_grantee;        /* role OID, CAT_OID_PUBLIC_ROLE = PUBLIC */
  cat_oid_t cg_grantor;
  uint32_t cg_privs;           /* CAT_PRIV_* */
} cat_grant_t;

/* A sequence (cat_sequence.c): its definition lives in the snapshot like
 * any relation's; its values are not transactional and live in the
 * per-sequence runtime state (sq_rt), shared by every snapshot. */
typedef struct cat_seq_rt_s cat_seq_rt_t;

typedef struct cat_sequence_s {
  cat_oid_t sq_oid;
  cat_oid_t sq_schema;
  const char *sq_schema_name;
  const char *sq_name;
  cat_oid_t sq_owner;          /* role */
  ty_id_t sq_type;             /* TY_INT2, TY_INT4 or TY_INT8 (AS type) */
  int64_t sq_increment;        /* never 0 */
  int64_t sq_min, sq_max;      /* sq_min < sq_max */
  int64_t sq_start;
  int64_t sq_cache;            /* >= 1: values a session takes at once */
  bool sq_cycle;
  cat_oid_t sq_owned_table;    /* OWNED BY table.column (0 = none): dropped with it */
  int sq_owned_col;            /* its column number (0-based; -1 none) */
  cat_seq_rt_t *sq_rt;
} cat_sequence_t;

/* A view or materialized view (cat_view.c; catalog/README.md, "Views"). */
/* A name in a view's query text bound to an object when the view was
 * made ('r' a relation, 'c' a column of a table), or a column the query
 * uses without naming it here ('d': `*`, USING; vr_off, vr_len 0). The
 * text is rendered with the names the objects have now
 * (cat_view_text): PostgreSQL keeps a view's parse tree by OID and
 * column number, so renames do not break it. */
typedef struct cat_view_ref_s {
  uint32_t vr_off, vr_len;     /* the name's bytes in the query text */
  char vr_kind;                /* 'r', 'c', 'd'; 'n' the schema of a qualified name (its OID) */
  cat_oid_t vr_oid;            /* the relation (of the column) */
  int vr_col;                  /* 'c', 'd': the table's column number; -1 'r' */
  int vr_alias;                /* a select-list item that is this name alone: the view
                                  column (1-based) it names, written `name AS col` when
                                  the column's name changed; 0 otherwise */
} cat_view_ref_t;

typedef struct cat_view_s {
  cat_oid_t cw_oid;            /* a materialized view: its table's OID too */
  cat_oid_t cw_schema;
  const char *cw_schema_name;
  const char *cw_name;
  cat_oid_t cw_owner;          /* role: the view's tables are read with its privileges */
  char cw_kind;                /* 'v' view, 'm' materialized view (pg_class.relkind) */
  char cw_check;               /* WITH CASCADED CHECK OPTION 'c', LOCAL 'l', 0 none */
  bool cw_populated;           /* materialized: refreshed with data (not WITH NO DATA) */
  bool cw_updatable;           /* automatically updatable (one table, plain columns, no
                                  DISTINCT, GROUP BY, LIMIT, set operation …): what
                                  information_schema shows; the binder decides again */
  const char *cw_query;        /* the defining query's text, as written */
  int cw_ncols;
  const char **cw_colnames;
  const ty_t *cw_coltypes;
  int cw_ndeps;                /* relations the query reads (tables, views), by OID */
  const cat_oid_t *cw_deps;
  int cw_nrefs;                /* names and columns the query's text uses (cat_view_ref_t) */
  const cat_view_ref_t *cw_refs;
} cat_view_t;

/* Immutable once published. Arrays are sorted by OID. Everything it points
 * to lives as long as the snapshot. */
typedef struct cat_snapshot_s {
  uint64_t cs_version;         /* increases with each committed DDL */
  cat_t *cs_cat;
  int cs_nschemas;
  const cat_schema_t *cs_schemas;
  int cs_ntables;
  const cat_table_t *const *cs_tables;
  int cs_nindexes;             /* every index of every table (primary trees too) */
  const cat_index_t *const *cs_indexes;
  int cs_nroles;
  const cat_role_t *cs_roles;
  int cs_nmembers;
  const cat_member_t *cs_members;
  int cs_ngrants;
  const cat_grant_t *cs_grants;
  int cs_nsequences;
  const cat_sequence_t *const *cs_sequences;
  int cs_nviews;               /* views and materialized views */
  const cat_view_t *const *cs_views;
  int cs_nconstraints;         /* CHECK and FOREIGN KEY constraints, by OID */
  const cat_constraint_t *const *cs_constraints;
  int cs_ncomments;            /* COMMENT ON descriptions of objects it has, by key */
  const struct cat_comment_s *cs_comments;
  int cs_nsettings;            /* ALTER ROLE / DATABASE … SET, by (database, role) */
  const struct cat_setting_s *cs_settings;
  /* private: reference count and the lookup hashes */
  struct cat_snap_int_s *cs_int;
} cat_snapshot_t;

/* ---- opening ------------------------------------------------------------ */

/* Creates the system tables, the built-in schemas and the superuser role
 * (superuser, login, verifier as given: util.h's scram_make_verifier) in
 * one transaction. 42710 when the database already has a catalog. */
int cat_bootstrap(db_t *db, const char *superuser, const char *verifier, err_t *e);
/* Loads the catalog of db. Returns 1 (nothing opened) when db has no
 * catalog yet (call cat_bootstrap first). */
int cat_open(db_t *db, cat_t **out, err_t *e);
/* Releases the catalog (snapshots still held must be released first). */
void cat_close(cat_t *c);
db_t *cat_db(const cat_t *c);

/* ---- snapshots ----------------------------------------------------------- */

/* The committed snapshot, with a reference for the caller. */
cat_snapshot_t *cat_snapshot(cat_t *c);
/* What tx sees: its own uncommitted DDL, else the committed snapshot;
 * tx NULL = the committed one. With a reference. */
cat_snapshot_t *cat_snapshot_tx(cat_t *c, const txn_t *tx);
void cat_snapshot_release(cat_snapshot_t *s);
/* Another reference to s (a plan built against s keeps s alive: taking
 * "what tx sees" after planning could name a newer snapshot than the one
 * the plan's objects live in). */
cat_snapshot_t *cat_snapshot_hold(cat_snapshot_t *s);
/* The version of the committed snapshot (one atomic load): a session whose
 * snapshot has another version takes a new one. */
uint64_t cat_version(const cat_t *c);
/* Replaces *held (may be NULL) by what tx sees when it is not that
 * already; costs one atomic load when nothing changed. */
void cat_snapshot_refresh(cat_t *c, const txn_t *tx, cat_snapshot_t **held);

/* ---- the index-build gate (cat_build_gate.c) ------------------------------
 * Writers of a table's rows keep the indexes of the snapshot their
 * statement took; an index built meanwhile would miss their rows. So every
 * row write runs between cat_table_write_begin and cat_table_write_end,
 * which refuses it (40001) while another transaction builds an index on
 * the table or when the statement's snapshot is older than an index
 * created since; and cat_index_build_begin, before the build reads the
 * rows, closes the gate and waits until no other transaction has a write
 * in flight or an uncommitted row in the table (55P03 after
 * CAT_BUILD_WAIT_MS, 57014 on cancel). */
#define CAT_BUILD_WAIT_MS 30000
int cat_table_write_begin(const cat_table_t *t, const txn_t *tx, err_t *e);
void cat_table_write_end(const cat_table_t *t);
/* version: the version of the snapshot holding the new index (tx's). */
int cat_index_build_begin(txn_t *tx, const cat_table_t *t, uint64_t version, err_t *e);

/* ---- lookups (NULL / -1 when absent; the cat_lookup_ forms set the
 * SQLSTATE error instead) --------------------------------------------------- */

const cat_schema_t *cat_find_schema(const cat_snapshot_t *s, const char *name);
const cat_schema_t *cat_schema_by_oid(const cat_snapshot_t *s, cat_oid_t oid);
/* schema NULL: the search path (public, then pg_catalog). */
const cat_table_t *cat_find_table(const cat_snapshot_t *s, const char *schema, const char *name);
const cat_table_t *cat_table_by_oid(const cat_snapshot_t *s, cat_oid_t oid);
/* 42P01 "relation \"x\" does not exist" (3F000 for an unknown schema). */
int cat_lookup_table(const cat_snapshot_t *s, const char *schema, const char *name,
                     const cat_table_t **out, err_t *e);
/* Column number (0-based) or -1. */
int cat_find_column(const cat_table_t *t, const char *name);
/* 42703 "column \"x\" of relation \"t\" does not exist". */
int cat_lookup_column(const cat_table_t *t, const char *name, int *colno, err_t *e);
/* Index names share the table namespace of a schema. */
const cat_index_t *cat_find_index(const cat_snapshot_t *s, const char *schema, const char *name);
const cat_index_t *cat_index_by_oid(const cat_snapshot_t *s, cat_oid_t oid);
const cat_role_t *cat_find_role(const cat_snapshot_t *s, const char *name);
const cat_role_t *cat_role_by_oid(const cat_snapshot_t *s, cat_oid_t oid);
/* 42704 "role \"x\" does not exist". */
int cat_lookup_role(const cat_snapshot_t *s, const char *name, const cat_role_t **out, err_t *e);
/* Whether member is role, or a member of it directly or through other
 * roles. */
bool cat_role_is_member(const cat_snapshot_t *s, cat_oid_t member, cat_oid_t role);
/* The privileges role holds on table: everything for superusers and the
 * owner, else the union of the grants to role, to roles it is a member of,
 * and to PUBLIC. */
uint32_t cat_table_privs(const cat_snapshot_t *s, cat_oid_t role, const cat_table_t *t);
/* CZ_OK, or 42501 "permission denied for table x". privs: CAT_PRIV_* (all
 * of them are required). */
int cat_check_priv(const cat_snapshot_t *s, cat_oid_t role, const cat_table_t *t,
                   uint32_t privs, err_t *e);

/* The schema privileges (CAT_PRIV_USAGE, CAT_PRIV_CREATE, grant options
 * above them) role holds on schema: all for superusers and the owner's
 * members, else the access list's items for role, its groups and PUBLIC
 * (cat_acl.c). */
uint32_t cat_schema_privs(const cat_snapshot_t *s, cat_oid_t role, const cat_schema_t *sc);
/* The privileges role holds on a sequence (CAT_PRIV_SELECT, _UPDATE,
 * _USAGE): all for superusers and the owner's members, else the grants
 * (sys.grants by the sequence's OID) to role, its groups and PUBLIC. */
uint32_t cat_sequence_privs(const cat_snapshot_t *s, cat_oid_t role, const cat_sequence_t *sq);
/* CZ_OK when role holds any of the privileges any_of, else 42501
 * "permission denied for sequence x" (nextval: USAGE or UPDATE; currval:
 * SELECT or USAGE; setval: UPDATE, as PostgreSQL). */
int cat_check_sequence_priv(const cat_snapshot_t *s, cat_oid_t role, const cat_sequence_t *sq,
                            uint32_t any_of, err_t *e);
/* CZ_OK, or 42501 "permission denied for schema x". */
int cat_check_schema_priv(const cat_snapshot_t *s, cat_oid_t role, const cat_schema_t *sc,
                          uint32_t privs, err_t *e);

/* ---- DDL (each takes the DDL lock for tx, see the design notes) --------- */

/* Takes the DDL lock for tx without changing anything (LOCK TABLE: no
 * schema change can happen until tx ends). */
int cat_lock_ddl(cat_t *c, txn_t *tx, err_t *e);

typedef struct cat_column_def_s {
  const char *cd_name;
  ty_t cd_type;
  bool cd_not_null;
  const char *cd_default;      /* SQL text of the DEFAULT expression; NULL none */
} cat_column_def_t;

typedef struct cat_table_def_s {
  const char *td_schema;       /* NULL = public */
  const char *td_name;
  cat_oid_t td_owner;
  int td_ncols;
  const cat_column_def_t *td_cols;
  int td_npk;                  /* 0 = no primary key (hidden row id) */
  const int *td_pk;            /* column numbers, in key order */
  const char *td_pk_name;      /* constraint name; NULL = "<table>_pkey" */
  const char *td_identity;     /* per column: 'a' GENERATED ALWAYS, 'd' BY DEFAULT AS
                                  IDENTITY, 0 not (cc_identity); NULL: no identity column */
  cat_layout_t td_layout;      /* the primary tree's layout */
} cat_table_def_t;

/* Whether columns of these types can be stored column-wise (a column
 * tree's rows hold each value in its column form: INTERVAL has none yet,
 * and a segment names at most BTC_MAX_COLS - 1 value columns); 0A000
 * saying why not. */
int cat_layout_check(const cat_column_def_t *cols, int ncols, err_t *e);
/* "row" / "column". */
const char *cat_layout_name(cat_layout_t l);

/* 42P07 when the name is taken (by a table or an index of the schema),
 * 42701 duplicate column, 3F000 unknown schema, 42P16 bad key. Primary key
 * columns become NOT NULL. UNIQUE constraints: create the indexes after
 * (tbl_create_index). */
int cat_create_table(cat_t *c, txn_t *tx, const cat_table_def_t *def, cat_oid_t *oid, err_t *e);
/* Drops the table, its indexes, its trees and the grants on it. */
int cat_drop_table(cat_t *c, txn_t *tx, cat_oid_t table, err_t *e);

typedef struct cat_index_def_s {
  const char *id_name;         /* NULL: "<table>_<col>_idx" / "_key" as PostgreSQL */
  bool id_constraint;          /* a UNIQUE constraint's index (ci_constraint) */
  cat_oid_t id_table;
  bool id_unique;
  int id_nkeys;
  const int *id_keys;          /* table column numbers */
  int id_ninclude;
  const int *id_include;
  bool id_nulls_nd;            /* NULLS NOT DISTINCT (ci_nulls_nd) */
  cat_layout_t id_layout;      /* the index tree's leaf layout (a column index holds
                                  its INCLUDE columns as column rows) */
} cat_index_def_t;

/* Creates an EMPTY index (its tree and catalog entry). The table layer's
 * tbl_create_index calls this and then fills it from the table's rows:
 * DDL executors call tbl_create_index. 42P07 name taken. */
int cat_create_index(cat_t *c, txn_t *tx, const cat_index_def_t *def, cat_oid_t *oid, err_t *e);
/* 2BP01 for the primary key's index. */
int cat_drop_index(cat_t *c, txn_t *tx, cat_oid_t index, err_t *e);

/* ---- CHECK and FOREIGN KEY constraints (cat_constraint.c) ---------------- */

typedef struct cat_constraint_def_s {
  const char *nd_name;         /* NULL: PostgreSQL's default name (<table>_<col>_check,
                                  <table>_check, <table>_<cols>_fkey; a number added
                                  while taken) */
  cat_oid_t nd_table;
  char nd_type;                /* 'c' or 'f' */
  int nd_nkeys;
  const int *nd_keys;          /* as co_keys */
  const char *nd_check;        /* 'c' */
  cat_oid_t nd_ref;            /* 'f': the referenced table, its columns and the unique */
  const int *nd_ref_keys;      /* index over exactly them (the caller found it: 42830 */
  cat_oid_t nd_ref_index;      /* otherwise) */
  char nd_upd_action, nd_del_action, nd_match;
  int nd_ndel_set;
  const int *nd_del_set;
  bool nd_deferrable, nd_deferred;
} cat_constraint_def_t;

/* Records the constraint (its rows are the caller's to validate). 42710
 * "constraint \"x\" for relation \"t\" already exists"; the name chosen
 * goes to *name (may be NULL), in tx's arena. */
int cat_create_constraint(cat_t *c, txn_t *tx, const cat_constraint_def_t *def, cat_oid_t *oid,
                          const char **name, err_t *e);
/* ALTER TABLE … DROP CONSTRAINT, DROP TABLE … CASCADE (the foreign keys of
 * other tables referencing it). */
int cat_drop_constraint(cat_t *c, txn_t *tx, cat_oid_t con, err_t *e);
const cat_constraint_t *cat_constraint_by_oid(const cat_snapshot_t *s, cat_oid_t oid);
/* The CHECK / FOREIGN KEY constraint of t named name, or NULL. */
const cat_constraint_t *cat_find_constraint(const cat_table_t *t, const char *name);
/* ---- ALTER TABLE (cat_alter.c; catalog/README.md, "ALTER TABLE") ------- */

/* A secondary index of the table's new definition. */
typedef struct cat_alter_index_s {
  cat_oid_t ai_oid;            /* an index the table keeps (its OID and, unless
                                  id_name says otherwise, its name); 0: a new one */
  cat_index_def_t ai_def;      /* in the NEW column numbers (id_table not read) */
} cat_alter_index_t;

/* A table's whole new definition. */
typedef struct cat_alter_def_s {
  const char *ad_name;         /* the table's name (RENAME TO gives another) */
  int ad_ncols;
  const cat_column_def_t *ad_cols;
  const char *ad_identity;     /* per column as td_identity; NULL: none */
  const int *ad_colmap;        /* per OLD column: its new number, -1 when dropped */
  int ad_npk;                  /* the primary key (new column numbers); 0 none */
  const int *ad_pk;
  const char *ad_pk_name;      /* NULL: the old name when the key is kept, else
                                  "<table>_pkey" */
  int ad_nindexes;             /* the secondary indexes (any not listed is dropped) */
  const cat_alter_index_t *ad_indexes;
  bool ad_rewrite;             /* new empty trees for the rows, the long values and
                                  every index (a new generation); required when the
                                  primary key changes */
} cat_alter_def_t;

/* Replaces table's definition by def (same OID): 42P07 name taken, 42701
 * duplicate column. Without ad_rewrite the trees stay, except that new
 * indexes get empty trees (new_oids[k], per ad_indexes entry: the OID of
 * a new index to fill, 0 for a kept one; may be NULL). With ad_rewrite
 * every tree is new and empty: the caller fills them from the old trees
 * (still there, readable through the old snapshot's table), then drops
 * those with cat_alter_drop_trees. Primary key columns become NOT NULL.
 * The caller adjusts the sequences the table owns beforehand. */
int cat_alter_table(cat_t *c, txn_t *tx, cat_oid_t table, const cat_alter_def_t *def,
                    cat_oid_t *new_oids, err_t *e);
/* After a rewrite: drops the trees of the table's old version (rows, long
 * values, indexes), as old (a snapshot from before the change) names them. */
int cat_alter_drop_trees(txn_t *tx, const cat_table_t *old, err_t *e);

/* 42P06 duplicate. */
int cat_create_schema(cat_t *c, txn_t *tx, const char *name, cat_oid_t owner, cat_oid_t *oid,
                      err_t *e);
/* 2BP01 while it holds tables (no CASCADE); built-in schemas cannot be
 * dropped (2BP01). */
int cat_drop_schema(cat_t *c, txn_t *tx, cat_oid_t schema, err_t *e);
/* ALTER SCHEMA … RENAME TO: 42P06 when the new name is taken; the schema's
 * objects follow (they name it by OID). */
int cat_rename_schema(cat_t *c, txn_t *tx, cat_oid_t schema, const char *name, err_t *e);
/* GRANT privs ON SCHEMA TO grantee (privs may carry grant options): adds to
 * the grantee's item (grantor recorded). REVOKE removes the bits from the
 * grantee's item; grant_option_only (REVOKE GRANT OPTION FOR) removes only
 * the grant options of privs. The schema's access list becomes explicit. */
int cat_grant_schema(cat_t *c, txn_t *tx, cat_oid_t schema, cat_oid_t grantee, uint32_t privs,
                     cat_oid_t grantor, err_t *e);
int cat_revoke_schema(cat_t *c, txn_t *tx, cat_oid_t schema, cat_oid_t grantee, uint32_t privs,
                      bool grant_option_only, err_t *e);

typedef struct cat_role_def_s {
  const char *rd_name;
  bool rd_superuser;
  bool rd_login;
  bool rd_createdb;
  bool rd_createrole;
  const char *rd_verifier;     /* NULL = no password */
  const char *rd_digest;       /* cat_role_t.cr_digest; NULL = none */
} cat_role_def_t;

/* 42710 "role \"x\" already exists". */
int cat_create_role(cat_t *c, txn_t *tx, const cat_role_def_t *def, cat_oid_t *oid, err_t *e);
/* ALTER ROLE: replaces every attribute with def's; the name too (42710 when
 * taken). */
int cat_alter_role(cat_t *c, txn_t *tx, cat_oid_t role, const cat_role_def_t *def, err_t *e);
/* 2BP01 while the role owns tables or schemas, or holds grants. */
int cat_drop_role(cat_t *c, txn_t *tx, cat_oid_t role, err_t *e);
/* GRANT role TO member (nothing when already a member). 0LP01-style loops
 * (role a member of member) are 0LP01. */
int cat_grant_role(cat_t *c, txn_t *tx, cat_oid_t role, cat_oid_t member, cat_oid_t grantor,
                   bool admin, err_t *e);
int cat_revoke_role(cat_t *c, txn_t *tx, cat_oid_t role, cat_oid_t member, err_t *e);

/* GRANT privs ON table TO grantee (CAT_OID_PUBLIC_ROLE = PUBLIC): adds to
 * what the grantee holds. REVOKE removes those bits. */
int cat_grant(cat_t *c, txn_t *tx, cat_oid_t table, cat_oid_t grantee, uint32_t privs,
              cat_oid_t grantor, err_t *e);
int cat_revoke(cat_t *c, txn_t *tx, cat_oid_t table, cat_oid_t grantee, uint32_t privs,
               err_t *e);

/* ---- sequences (cat_sequence.c; catalog/README.md, "Sequences") -------- */

#define CAT_SEQ_LOG_VALS 32     /* values logged ahead at least (PostgreSQL's SEQ_LOG_VALS) */

typedef struct cat_seq_def_s {
  const char *sd_schema;       /* NULL = public */
  const char *sd_name;
  cat_oid_t sd_owner;
  ty_id_t sd_type;
  int64_t sd_increment, sd_min, sd_max, sd_start, sd_cache;
  bool sd_cycle;
  cat_oid_t sd_owned_table;    /* 0 none */
  int sd_owned_col;            /* -1 none */
} cat_seq_def_t;

/* The definition PostgreSQL gives options not written: type TY_INT8,
 * increment 1, ascending 1 .. type max (descending type min .. -1),
 * start at the bottom (top when descending), cache 1, no cycle. Then
 * cat_seq_check says what is wrong with a definition (22023, as
 * PostgreSQL words it); restart: an ALTER's RESTART value to check too
 * (NULL none). */
void cat_seq_defaults(cat_seq_def_t *d, bool min_given, bool max_given, bool start_given);
int cat_seq_check(const cat_seq_def_t *d, const int64_t *restart, err_t *e);

/* 42P07 when the name is taken. The sequence starts unused at sd_start. */
int cat_create_sequence(cat_t *c, txn_t *tx, const cat_seq_def_t *def, cat_oid_t *oid, err_t *e);
/* Replaces the definition (name and schema stay unless def names others:
 * RENAME TO); the values go on from where they are. */
int cat_alter_sequence(cat_t *c, txn_t *tx, cat_oid_t seq, const cat_seq_def_t *def, err_t *e);
/* Drops the sequence and its value. */
int cat_drop_sequence(cat_t *c, txn_t *tx, cat_oid_t seq, err_t *e);
/* Changes a column's DEFAULT text (NULL drops it) and identity kind
 * (DROP SEQUENCE … CASCADE drops the defaults that use the sequence). */
int cat_set_column_default(cat_t *c, txn_t *tx, cat_oid_t table, int col, const char *def,
                           char identity, err_t *e);

const cat_sequence_t *cat_sequence_by_oid(const cat_snapshot_t *s, cat_oid_t oid);
/* schema NULL: the search path. */
const cat_sequence_t *cat_find_sequence(const cat_snapshot_t *s, const char *schema, const char *name);
/* Whether schema.name (schema NULL: the search path) is any relation —
 * table, index, sequence or view — and which: 't', 'i', 'S', 'v' (a
 * materialized view is its table: 't'); 0 none. *oid set. */
char cat_find_relation(const cat_snapshot_t *s, const char *schema, const char *name, cat_oid_t *oid);

/* A session's view of sequences: currval of each it used, lastval, and
 * the values it took ahead (CACHE > 1). Lives in the session's arena. */
typedef struct cat_seq_session_s cat_seq_session_t;
cat_seq_session_t *cat_seq_session_new(arena_t *a);

/* nextval: not transactional (a rolled-back transaction does not give its
 * values back). tx: the caller's transaction (NULL none), for logging
 * ahead (catalog/README.md); cancel: its cancel flag (NULL none).
 * 2200H when the sequence reached its limit without CYCLE. */
int cat_seq_nextval(cat_seq_session_t *ss, const cat_sequence_t *sq, txn_t *tx,
                    const volatile bool *cancel, int64_t *out, err_t *e);
/* 55000 when this session has not called nextval of sq yet. */
int cat_seq_currval(cat_seq_session_t *ss, const cat_sequence_t *sq, int64_t *out, err_t *e);
/* The last nextval of this session, of any sequence; 55000 before the first. */
int cat_seq_lastval(cat_seq_session_t *ss, const cat_snapshot_t *snap, int64_t *out, err_t *e);
/* setval(sq, v, called) (ALTER … RESTART is setval(v, false)): 22003 when
 * v is outside [min, max]. Durable when it returns. */
int cat_seq_setval(cat_seq_session_t *ss, const cat_sequence_t *sq, txn_t *tx,
                   const volatile bool *cancel, int64_t v, bool called, err_t *e);
/* The shared state as pg_sequences shows it: the last value handed out to
 * any session (cached ones included), and whether any was. */
int cat_seq_peek(const cat_sequence_t *sq, txn_t *tx, int64_t *last, bool *called, err_t *e);

/* ---- descriptions: COMMENT ON (cat_comment.c) ----------------------------- */

/* PostgreSQL's catalog OIDs that name the class of a described object
 * (pg_description.classoid). */
#define CAT_CLASS_PG_CLASS 1259       /* tables, views, indexes, sequences; columns by sub-id */
#define CAT_CLASS_PG_NAMESPACE 2615
#define CAT_CLASS_PG_CONSTRAINT 2606

typedef struct cat_comment_s {
  cat_oid_t cm_classoid;
  cat_oid_t cm_objoid;
  int32_t cm_subid;            /* a column's number (1-based), else 0 */
  const char *cm_text;
} cat_comment_t;

/* Sets the description of (classoid, objoid, subid) in tx (transactional
 * like all DDL); text NULL or "" removes it. The caller checked that the
 * object exists and may be commented by the session's role. */
int cat_set_comment(cat_t *c, txn_t *tx, cat_oid_t classoid, cat_oid_t objoid, int32_t subid,
                    const char *text, err_t *e);
/* The description, NULL when none. */
const char *cat_comment(const cat_snapshot_t *s, cat_oid_t classoid, cat_oid_t objoid,
                        int32_t subid);

/* ---- per-role and per-database settings (cat_setting.c) ------------------- */

/* One pg_db_role_setting row: the run-time parameters a session of role
 * in database starts with (0 = every database / every role), each item
 * "name=value" as PostgreSQL stores them, in the order first set. */
typedef struct cat_setting_s {
  cat_oid_t st_database;
  cat_oid_t st_role;
  int st_n;
  const char *const *st_items;
} cat_setting_t;

/* ALTER ROLE … [IN DATABASE …] SET / RESET and ALTER DATABASE … SET /
 * RESET, in tx (transactional like all DDL): name = value replaces the
 * item of that name (compared case-insensitively) in place or appends it;
 * value NULL removes it (RESET name); name NULL removes them all (RESET
 * ALL). A row left empty is deleted. The caller checked the value, the
 * objects and the privileges; name is the parameter's display name. */
int cat_alter_setting(cat_t *c, txn_t *tx, cat_oid_t database, cat_oid_t role, const char *name,
                      const char *value, err_t *e);
/* The row of (database, role), NULL when none. */
const cat_setting_t *cat_setting(const cat_snapshot_t *s, cat_oid_t database, cat_oid_t role);

/* ---- views (cat_view.c; catalog/README.md, "Views") ---------------------- */

typedef struct cat_view_def_s {
  const char *vd_schema;       /* NULL = public */
  const char *vd_name;
  cat_oid_t vd_owner;
  char vd_kind;                /* 'v' or 'm' */
  char vd_check;               /* 'c', 'l' or 0 */
  bool vd_populated;
  bool vd_updatable;
  const char *vd_query;        /* the query's text */
  int vd_ncols;
  const char *const *vd_colnames;
  const ty_t *vd_coltypes;
  int vd_ndeps;
  const cat_oid_t *vd_deps;
  cat_oid_t vd_table;          /* materialized: the table made for its rows (same OID); 0 view */
  int vd_nrefs;
  const cat_view_ref_t *vd_refs;
} cat_view_def_t;

/* 42P07 when the name is taken (a plain view; a materialized view's
 * table was made first and holds the name). */
int cat_create_view(cat_t *c, txn_t *tx, const cat_view_def_t *def, cat_oid_t *oid, err_t *e);
/* CREATE OR REPLACE, ALTER VIEW … RENAME, REFRESH (populated): replaces
 * the record (the caller checked PostgreSQL's rules for the columns). */
int cat_replace_view(cat_t *c, txn_t *tx, cat_oid_t view, const cat_view_def_t *def, err_t *e);
/* Drops the record and the grants on it (a materialized view's table:
 * cat_drop_table after). */
int cat_drop_view(cat_t *c, txn_t *tx, cat_oid_t view, err_t *e);
const cat_view_t *cat_view_by_oid(const cat_snapshot_t *s, cat_oid_t oid);
/* schema NULL: the search path. A view or a materialized view. */
const cat_view_t *cat_find_view(const cat_snapshot_t *s, const char *schema, const char *name);
/* 42501 "permission denied for view v" unless role holds privs on w. */
int cat_check_view_priv(const cat_snapshot_t *s, cat_oid_t role, const cat_view_t *w,
                        uint32_t privs, err_t *e);
/* The view's query text with the names its objects have now (relations
 * by OID, columns by table OID and number), in a; quote gives a name as
 * an identifier of the text (quote_ident's rule). A relation the text
 * names without its schema gets the schema it was found in when
 * visible(ctx, oid) says the bare name would not find it now, and always
 * when visible is NULL (the text the binder reads: it means the same
 * objects whatever search_path is). cat_view_text.c. */
const char *cat_view_text(arena_t *a, const cat_snapshot_t *s, const cat_view_t *w,
                          char *(*quote)(const char *name, arena_t *a),
                          bool (*visible)(const void *ctx, cat_oid_t rel), const void *ctx);
/* Whether w's query uses column col of table (cat_view_ref_t). */
bool cat_view_uses_column(const cat_view_t *w, cat_oid_t table, int col);
/* The views whose query reads rel, into out[0..cap); returns how many
 * there are (may exceed cap). */
int cat_view_dependents(const cat_snapshot_t *s, cat_oid_t rel, const cat_view_t **out, int cap);

/* ALTER … OWNER TO (cat_owner.c): the owner of object oid becomes owner.
 * kind: 'n' schema, 'r' table, 'S' sequence, 'v' view, 'm' materialized
 * view. The caller checked PostgreSQL's permission rules. */
int cat_set_owner(cat_t *c, txn_t *tx, char kind, cat_oid_t oid, cat_oid_t owner, err_t *e);

/* Temporary views' schemas (cat_temp.c): pg_temp_<n>. cat_drop_temp_schema
 * drops the schema and its views (and views reading them) in tx;
 * cat_drop_temp_schemas, at open, every such schema a crash left, in a
 * transaction of its own. */
bool cat_schema_is_temp(const char *name);
int cat_drop_temp_schema(cat_t *c, txn_t *tx, cat_oid_t schema, err_t *e);
int cat_drop_temp_schemas(cat_t *c, err_t *e);

/* ---- per-table runtime ----------------------------------------------------- */

/* The next hidden row id of a table without primary key (unique, ascending
 * within a run of the server; never reuses an id present in the tree). */
int cat_next_rowid(const cat_table_t *t, int64_t *out, err_t *e);
/* The next long-value id of a table (ascending within a run, starting
 * after the largest id in its long-values tree: an id is never reused
 * while a row or a reader may still name it). */
int cat_next_long_id(const cat_table_t *t, uint64_t *out, err_t *e);

/* ---- statistics (cat_stats.c; catalog/README.md, "Statistics") ------------
 * Per table, kept current by the table layer's row writes: the committed
 * row count, and per column a HyperLogLog sketch of the values written
 * with the NULLs and bytes among them. Nothing here is exact; everything
 * is cheap to keep. ANALYZE rebuilds them from a scan; they are saved
 * beside the database at every checkpoint (cat_stats_attach). */

typedef struct cat_colstats_s {
  double cs_ndv;                /* distinct non-NULL values; < 0 unknown */
  double cs_null_frac;          /* NULLs among the rows; < 0 unknown */
  double cs_avg_width;          /* bytes of a non-NULL value; < 0 unknown */
} cat_colstats_t;

typedef struct cat_tabstats_s {
  double ts_rows;               /* committed rows, roughly (>= 0) */
  bool ts_analyzed;             /* ANALYZE has run on it (since it was created) */
  int64_t ts_written;           /* rows written (inserted, updated) since the sketches began */
  int ts_ncols;
  cat_colstats_t *ts_cols;      /* in the caller's arena */
} cat_tabstats_t;

/* t's statistics, copied into a (never fails; unknowns are < 0). */
void cat_stats_get(const cat_table_t *t, arena_t *a, cat_tabstats_t *out);
/* Values written: rows sel[0..n) of b (NULL sel: rows 0..n-1), all of the
 * table's columns in order; cols (NULL = every one) marks the columns
 * whose values are new (an UPDATE's SET). */
void cat_stats_note_batch(const cat_table_t *t, const batch_t *b, const int *sel, int n,
                          const bool *cols);
/* One row's values written (vals: every column; cols as above). */
void cat_stats_note_row(const cat_table_t *t, const datum_t *vals, const bool *cols);
/* Rows added (delta > 0) or removed by tx: counted when tx commits,
 * forgotten when it rolls back. After a rollback to a savepoint the
 * table's count is taken again from its primary tree (where the undo
 * fell is not known here). */
void cat_stats_count(txn_t *tx, const cat_table_t *t, int64_t delta);

/* ANALYZE: a fresh set built from every row of a scan replaces t's. */
typedef struct cat_stats_build_s cat_stats_build_t;
cat_stats_build_t *cat_stats_build_begin(const cat_table_t *t);
/* Rows sel[0..n) of b: every column of the table in order. */
void cat_stats_build_rows(cat_stats_build_t *sb, const batch_t *b, const int *sel, int n);
/* Installs the result (rows: the rows scanned) and frees sb. */
void cat_stats_build_end(const cat_table_t *t, cat_stats_build_t *sb, int64_t rows);
void cat_stats_build_abort(cat_stats_build_t *sb);

/* Loads the statistics saved at path (when the file exists) and saves
 * them there after every checkpoint and at cat_close. recovered: the
 * database replayed its log at this open, so row counts saved at the last
 * checkpoint are stale: they are taken again from the primary trees (an
 * estimate from a few descents) at first use. Tables the file does not
 * hold get row counts from their trees and no distinct-value estimates
 * until ANALYZE. */
int cat_stats_attach(cat_t *c, const char *path, bool recovered, err_t *e);

#endif /* CZ_CATALOG_H */
