/* cat_int.h — the catalog's private structures: the catalog handle, the
 * snapshot internals, the system tables and their record format.
 *
 * Design notes (catalog/README.md has the layout and the invariants):
 * - The system tables are the truth. A snapshot is built by reading them
 *   (cat_load): at open with no transaction, after each DDL through the
 *   DDL transaction (which sees its own changes). DDL transactions are
 *   serialised by the DDL lock, so nothing else is uncommitted there.
 * - c_mx guards c_cur (the committed snapshot) and the runtime map; it is
 *   never held across a B-tree call.
 */
#ifndef CZ_CAT_INT_H
#define CZ_CAT_INT_H

#include <stdatomic.h>

#include "catalog/catalog.h"
#include "thread/thread.h"

#define CAT_OID_BOOTSTRAP_SUPERUSER 10  /* PostgreSQL's bootstrap superuser OID */
#define CAT_FORMAT_VERSION 1

/* The system tables (each a unique B-tree in the database directory). */
enum {
  CAT_SYS_META = 0,   /* "format" -> u32, "next_oid" -> u32; the DDL lock's name "ddl" */
  CAT_SYS_SCHEMAS,    /* u32 oid -> schema record */
  CAT_SYS_TABLES,     /* u32 oid -> table record */
  CAT_SYS_COLUMNS,    /* u32 table oid, u16 column number -> column record */
  CAT_SYS_INDEXES,    /* u32 oid -> index record */
  CAT_SYS_ROLES,      /* u32 oid -> role record */
  CAT_SYS_MEMBERS,    /* u32 role, u32 member -> membership record */
  CAT_SYS_GRANTS,     /* u32 table, u32 grantee -> grant record */
  CAT_SYS_SEQUENCES,  /* u32 oid -> sequence definition record */
  CAT_SYS_SEQVALS,    /* u32 oid -> sequence value: i64 logged value, u8 called
                         (written outside the DDL transaction: cat_sequence.c) */
  CAT_SYS_VIEWS,      /* u32 oid -> view definition record (cat_view.c) */
  CAT_SYS_CONSTRAINTS, /* u32 oid -> CHECK / FOREIGN KEY record (cat_constraint.c) */
  CAT_SYS_COMMENTS,   /* u32 class, u32 object, u32 sub-id -> text (cat_comment.c) */
  CAT_SYS_SETTINGS,   /* u32 database, u32 role -> "name=value" list (cat_setting.c) */
  CAT_SYS_N
};
/* The system tables a database written before them lacks: cat_open
 * creates them. */
#define CAT_SYS_FIRST_OPTIONAL CAT_SYS_SEQUENCES
enum {
  CAT_REL_TABLE = 0,  /* the kinds of the relation name index */
  CAT_REL_INDEX = 1,
  CAT_REL_SEQUENCE = 2,
  CAT_REL_VIEW = 3    /* a plain view (a materialized view is its table) */
};

extern const char *const cat_sys_names[CAT_SYS_N];

struct cat_table_rt_s {
  struct cat_table_rt_s *rt_next;  /* in c_rts */
  cat_oid_t rt_oid;
  cz_mutex_t rt_mx;                /* serialises the first read of the tree */
  _Atomic bool rt_init;            /* rt_next_rowid read from the tree */
  _Atomic int64_t rt_next_rowid;
  _Atomic bool rt_long_init;       /* rt_next_long_id read from the long tree */
  _Atomic uint64_t rt_next_long_id;
  /* The index-build gate (cat_build_gate.c). */
  _Atomic int rt_writing;                /* writes of rows in flight now */
  _Atomic(const txn_t *) rt_builder;     /* building an index on the table; NULL none */
  _Atomic uint64_t rt_index_version;     /* snapshots older than this lack an index */
  uint64_t rt_build_version;             /* the builder's snapshot version (its own) */
  /* Statistics (cat_stats.c): made at first use, freed at cat_close. */
  _Atomic(struct cat_stats_s *) rt_stats;
  bool rt_born_open;                     /* made after cat_open: the table started
                                            empty, so its sketches see every row */
};

/* A sequence's values (cat_sequence.c): one per OID, for the catalog's
 * life. sr_mx is held while values are taken, and across the write that
 * logs a range ahead (once per CAT_SEQ_LOG_VALS or CACHE values). */
struct cat_seq_rt_s {
  struct cat_seq_rt_s *sr_next;    /* in c_seqrts */
  cat_oid_t sr_oid;
  cat_t *sr_cat;
  cz_mutex_t sr_mx;
  bool sr_loaded;                  /* sr_last / sr_called read from sys.seqvals */
  int64_t sr_last;                 /* the last value handed out (or the next one
                                      when !sr_called) */
  bool sr_called;
  int64_t sr_log_left;             /* values after sr_last the log already covers */
  _Atomic uint64_t sr_gen;         /* bumped when a CREATE reuses the OID: sessions
                                      forget what they cached of the old one */
};

struct cat_s {
  db_t *c_db;
  bt_tree_t *c_sys[CAT_SYS_N];
  cz_mutex_t c_mx;
  cat_snapshot_t *c_cur;           /* committed; holds one reference */
  _Atomic uint64_t c_version;      /* c_cur->cs_version */
  _Atomic(const txn_t *) c_ddl_tx; /* the transaction holding the DDL lock */
  cat_snapshot_t *c_pending;       /* its snapshot (one reference) */
  uint64_t c_next_version;         /* for snapshots built (under the DDL lock) */
  struct cat_table_rt_s *c_rts;    /* per-table runtime, by OID (under c_mx) */
  struct cat_seq_rt_s *c_seqrts;   /* per-sequence values, by OID (under c_mx) */
  bool c_opened;                   /* cat_open has loaded the first snapshot */
  char *c_stats_path;              /* cat_stats_attach's file; NULL none */
};

/* Open-addressing name index of a snapshot. */
typedef struct cat_name_slot_s {
  uint64_t ns_hash;
  const void *ns_obj;              /* NULL = empty */
} cat_name_slot_t;

struct cat_snap_int_s {
  _Atomic int si_refs;
  arena_t *si_arena;
  cat_name_slot_t *si_rel;         /* tables and indexes by (schema oid, name) */
  size_t si_rel_mask;
};

/* COMMENT ON (cat_comment.c): one sys.comments record, and the snapshot's
 * array of those whose objects it has (cms in key order, kept). */
int cat_comment_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                       cat_comment_t *out, err_t *e);
void cat_comment_link(cat_snapshot_t *s, cat_comment_t *cms, int n);
/* ALTER ROLE / DATABASE … SET (cat_setting.c): one sys.settings record,
 * and the snapshot's list of them. */
int cat_setting_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                       cat_setting_t *out, err_t *e);
void cat_setting_link(cat_snapshot_t *s, cat_setting_t *sts, int n);

/* ---- records ----------------------------------------------------------- */

typedef struct cat_wbuf_s {
  uint8_t *w_p;
  size_t w_len, w_cap;
  bool w_over;
} cat_wbuf_t;

void cat_w_u8(cat_wbuf_t *w, uint8_t v);
void cat_w_u32(cat_wbuf_t *w, uint32_t v);
void cat_w_str(cat_wbuf_t *w, const char *s);  /* NULL is distinct from "" */

typedef struct cat_rbuf_s {
  const uint8_t *r_p;
  size_t r_len, r_off;
  bool r_bad;
} cat_rbuf_t;

uint8_t cat_r_u8(cat_rbuf_t *r);
uint32_t cat_r_u32(cat_rbuf_t *r);
/* A field appended to a record kind after databases were written with
 * it (records only grow at their end): dflt when this record ends before
 * it (written by an older server), or when it is already bad. */
uint8_t cat_r_opt_u8(cat_rbuf_t *r, uint8_t dflt);
uint32_t cat_r_opt_u32(cat_rbuf_t *r, uint32_t dflt);
const char *cat_r_str(cat_rbuf_t *r, arena_t *a);

/* Big-endian keys (so B-tree order is OID order). */
size_t cat_key_oid(uint8_t *out, cat_oid_t a);
size_t cat_key_oid2(uint8_t *out, cat_oid_t a, uint32_t b);
cat_oid_t cat_key_get(const uint8_t *p, int i);

/* ---- loading (cat_load.c) ---------------------------------------------- */

/* Builds a snapshot from the system tables as tx sees them (NULL: as
 * committed). One reference for the caller. */
int cat_load(cat_t *c, const txn_t *tx, uint64_t version, cat_snapshot_t **out, err_t *e);
/* Opens the handles of the system trees; 1 when they do not exist. */
int cat_open_sys(cat_t *c, err_t *e);
/* The name of a table's long-values tree ("l<oid>", "l<oid>_<gen>" after
 * a rewrite) into buf. */
void cat_long_tree_name(cat_oid_t table, uint32_t gen, char *buf, size_t cap);
/* The generation ending a sys.tables record (0 when the record has none). */
uint32_t cat_table_rec_gen(const uint8_t *v, size_t vl);
/* A data tree's name: kind 't' (primary) or 'i' (index), "<kind><oid>",
 * or "<kind><oid>_<gen>" for the gen-th rewrite (ALTER TABLE). */
void cat_tree_name(char kind, cat_oid_t oid, uint32_t gen, char *buf, size_t cap);
cat_table_rt_t *cat_rt_get(cat_t *c, cat_oid_t oid);
/* cat_close: saves (when attached) and frees the statistics. */
void cat_stats_close(cat_t *c);

/* ---- DDL helpers (cat_ddl.c) ------------------------------------------- */

/* Takes the DDL lock for tx and returns what tx sees (no reference taken:
 * valid until the next DDL of tx). */
int cat_ddl_begin(cat_t *c, txn_t *tx, const cat_snapshot_t **snap, err_t *e);
/* Rebuilds tx's pending snapshot after its system table writes. */
int cat_ddl_end(cat_t *c, txn_t *tx, err_t *e);
int cat_next_oid(cat_t *c, txn_t *tx, cat_oid_t *out, err_t *e);
/* A primary key of npk columns pk[] over cols[0..ncols) (CREATE TABLE's
 * and ALTER TABLE's): 42P16-style limits, 42703, 42701. */
int cat_check_pk(const cat_column_def_t *cols, int ncols, const int *pk, int npk, err_t *e);
int cat_sys_put(cat_t *c, txn_t *tx, int sys, const uint8_t *key, size_t kl, const cat_wbuf_t *w,
                bool replace, err_t *e);
int cat_sys_del(cat_t *c, txn_t *tx, int sys, const uint8_t *key, size_t kl, err_t *e);
/* Record writers and checks shared by CREATE and ALTER (cat_ddl.c). */
int cat_name_check(const char *what, const char *name, err_t *e);
/* 42P07 when schema already has a relation called name. */
int cat_rel_free(const cat_snapshot_t *s, cat_oid_t schema, const char *name, err_t *e);
int cat_put_table(cat_t *c, txn_t *tx, cat_oid_t oid, cat_oid_t schema, cat_oid_t owner,
                  const char *name, int ncols, int npk, const int *pk, cat_oid_t pk_oid,
                  const char *pk_name, uint32_t gen, cat_layout_t layout, bool replace, err_t *e);
/* The B-tree flags of a data tree of this layout. */
uint32_t cat_tree_flags(cat_layout_t layout);
int cat_put_column(cat_t *c, txn_t *tx, cat_oid_t table, int num, const cat_column_def_t *cd,
                   bool not_null, char identity, bool replace, err_t *e);
int cat_put_index(cat_t *c, txn_t *tx, cat_oid_t oid, cat_oid_t table, const char *name,
                  const cat_index_def_t *def, uint32_t gen, bool replace, err_t *e);
/* Deletes an index's record and drops its tree. */
int cat_drop_index_rows(cat_t *c, txn_t *tx, const cat_index_t *ix, err_t *e);
/* PostgreSQL's default index name for def on t ("<table>_<cols>_key"/"_idx"). */
void cat_index_name(const cat_snapshot_t *s, const cat_table_t *t, const cat_index_def_t *def,
                    char *out, size_t cap);

/* The relation (table, index or sequence) named name in schema, or NULL;
 * *kind (may be NULL) says which (CAT_REL_*). */
const void *cat_find_rel(const cat_snapshot_t *s, cat_oid_t schema, const char *name, int *kind);
/* Schemas (cat_schema.c): a sys.schemas record into out (its strings and
 * access list in a); the record of sc written (replace: over the old). */
int cat_schema_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                      cat_schema_t *out, err_t *e);
int cat_schema_put(cat_t *c, txn_t *tx, const cat_schema_t *sc, bool replace, err_t *e);
cat_seq_rt_t *cat_seq_rt_get(cat_t *c, cat_oid_t oid);
/* Loading (cat_sequence.c): a sequence record into the snapshot arena. */
int cat_seq_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                   cat_sequence_t **out, err_t *e);
/* Loading (cat_view.c): a view record into the snapshot arena. */
int cat_view_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                    cat_view_t **out, err_t *e);
/* Constraints (cat_constraint.c): a record into the snapshot arena (the
 * tables' OIDs in co_table / co_ref until cat_constraint_link); then
 * attached to their tables (ct_cons, ct_refby) once tables and indexes
 * are linked. */
int cat_constraint_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                          cat_constraint_t **out, err_t *e);
int cat_constraint_link(cat_snapshot_t *s, cat_constraint_t **cons, int n, arena_t *a, err_t *e);
/* DROP TABLE: drops the table's own constraints; 2BP01 while another
 * table's foreign key references it (the caller drops those first). */
int cat_drop_table_constraints(cat_t *c, txn_t *tx, const cat_table_t *t, err_t *e);
/* DROP TABLE: drops the sequences the table owns. */
int cat_drop_owned_sequences(cat_t *c, txn_t *tx, const cat_snapshot_t *s, cat_oid_t table,
                             err_t *e);

#endif /* CZ_CAT_INT_H */
